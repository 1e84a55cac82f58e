"""A table: a match of either game with people and bots in its seats.

What the terminal and the web tables share: dealing hands in turn, checking people's
actions, letting bots act (one step at a time, so a front end can pace them), hints,
undo, and saving and resuming as a record.

One seeding scheme: a hand is dealt from ``deal_seed(seed, hand)`` and a bot decides
from ``decision_seed(seed, hand, point, seat)`` (the point is the number of actions of
the hand so far), so a table's seed plays the same game in the terminal, in the browser
and wherever bots run the decisions. A front end that stores actions before making them
(the web server) uses :meth:`Table.preview` (check the action and see what it brings:
the match over, its score) and :meth:`Table.commit` (make it).

>>> t = Table.new("quinto", seats=["heuristic"] * 4, seed=3)
>>> while not t.match_over():
...     _ = t.run_bots()
...     if t.hand_over() and not t.match_over():
...         _ = t.deal()
>>> t.match.winner() in (0, 1)
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from quintet.actions import Action
from quintet.bots import Bot, BotView, Budget, bot_step, explain, make_bot
from quintet.errors import IllegalActionError, InvalidOptionError
from quintet.game import GameState
from quintet.games import find_game
from quintet.quinto import QuintoMatch
from quintet.quintus import QuintusMatch
from quintet.record import Record, new_match, record_from_match, replay

Match = QuintoMatch | QuintusMatch


def deal_seed(seed: int, hand: int) -> str:
    """Return the seed hand ``hand`` (0 first) of a table seeded ``seed`` is dealt from."""
    return f"{seed}:hand:{hand}"


def decision_seed(seed: int, hand: int, point: int, seat: int) -> str:
    """Return the seed of a bot's decision for ``seat`` after ``point`` actions of a hand.

    Seeded by the point of the game, not a counter: a resumed table's bots draw exactly
    as they would have, and a decision made on another thread or process (the web
    server's workers) draws as one made in place. ``hand`` counts from 1 (the hands
    dealt so far).
    """
    return f"{seed}:bot:{hand}:{point}:{seat}"


@dataclass(frozen=True)
class Preview:
    """What a checked action will bring (:meth:`Table.preview`), to store before making it.

    ``state`` is the hand with the action made; ``over`` whether it ends the match, and
    ``result`` the scorer's summary of the match then (None if it goes on).
    """

    seat: int
    action: Action
    before: GameState
    state: GameState
    over: bool
    result: dict[str, Any] | None


@dataclass
class Table:
    """A match in progress. ``seats[s]`` is a bot level, or None for a person.

    In Quinto's dummy variant the dummy seat has no player of its own: the lone player
    (a person or a bot) acts for it.
    """

    game: str
    variant: str
    match: Match
    seats: list[str | None]
    seed: int
    bots: list[Bot | None] = field(default_factory=list)
    budget: Budget | None = None
    _steps: int = 0

    # --------------------------------------------------------------- creation

    @classmethod
    def new(
        cls,
        game: str,
        variant: str | None = None,
        seats: Sequence[str | None] | None = None,
        seed: int = 0,
        options: dict[str, Any] | None = None,
        lone_seat: int | None = None,
        first_dealer: int = 0,
        budget: Budget | None = None,
        deal: bool = True,
    ) -> Table:
        """Return a new table (and deal its first hand unless ``deal`` is False).

        Raises:
            InvalidOptionError: unknown game, variant, option or bot level; wrong seat count.
        """
        info = find_game(game)
        variant = info.variant(variant).name
        if not info.variants[variant].lone_seat:
            lone_seat = None
        elif lone_seat is None:
            lone_seat = 0
        match = info.new_match(info.rules(variant, options), first_dealer, lone_seat)
        n = info.num_seats
        seat_list = list(seats) if seats is not None else [None] + ["heuristic"] * (n - 1)
        if len(seat_list) != n:
            raise InvalidOptionError(f"{game} has {n} seats, not {len(seat_list)}")
        table = cls(game, variant, match, seat_list, seed, budget=budget)
        table._make_bots()
        if deal:
            table.deal()
        return table

    def _make_bots(self) -> None:
        self.bots = [make_bot(level) if level else None for level in self.seats]

    @classmethod
    def from_record(
        cls,
        record: Record,
        seats: Sequence[str | None] | None = None,
        seed: int | None = None,
        budget: Budget | None = None,
    ) -> Table:
        """Return the table a record describes, ready to continue.

        The seats and the dealing seed come from the record's optional ``table`` field
        when it has one (records saved by a table do), else from the arguments.

        Raises:
            RecordError: the record does not replay.
        """
        info = record.extra.get("table", {}) if isinstance(record.extra, dict) else {}
        seat_list = list(seats) if seats is not None else info.get("seats")
        n = find_game(record.game).num_seats
        if not isinstance(seat_list, list) or len(seat_list) != n:
            seat_list = [None] + ["heuristic"] * (n - 1)
        table = cls(
            record.game,
            record.variant,
            replay(record),
            seat_list,
            int(info.get("seed", 0)) if seed is None else seed,
            budget=budget,
        )
        table._make_bots()
        return table

    # ------------------------------------------------------------------ state

    @property
    def state(self) -> Any:
        """The hand in play (or the last one)."""
        # Any, not QuintoState | QuintusState | None: the front ends read each game's own
        # fields from it, and most of them only once a hand is dealt.
        return self.match.state

    @property
    def num_seats(self) -> int:
        """The game's seats (4 for Quinto, 5 for Quintus)."""
        return find_game(self.game).num_seats

    def player_of(self, seat: int) -> int:
        """Return the seat of the player who decides for ``seat`` (the dummy's: the lone)."""
        state = self.state
        return state.controller(seat) if state is not None else seat

    def hand_over(self) -> bool:
        """Return whether the current hand is finished (or none was dealt)."""
        return self.state is None or self.state.is_terminal()

    def match_over(self) -> bool:
        """Return whether the rubber, the dummy game or the Quintus session is over."""
        return self.match.is_over()

    def waiting_for(self) -> list[int]:
        """Return the seats whose player may act now (people and bots)."""
        state = self.state
        if state is None or state.is_terminal():
            return []
        return list(state.actors())

    def to_act(self) -> int | None:
        """Return the seat to act on the main line, or None."""
        state = self.state
        if state is None or state.is_terminal():
            return None
        return int(state.current_player())

    def person_to_act(self) -> bool:
        """Return whether the main-line action belongs to a person."""
        seat = self.to_act()
        return seat is not None and self.bots[self.player_of(seat)] is None

    # ------------------------------------------------------------------ flow

    def _deal_rng(self) -> random.Random:
        return random.Random(deal_seed(self.seed, len(self.match.hands)))

    def deal(self) -> GameState:
        """Deal the next hand.

        Raises:
            IllegalActionError: the match is over or the hand is not finished.
        """
        return self.match.start_hand(rng=self._deal_rng())

    def act(self, seat: int, action: Action | str) -> Action:
        """Check and apply a person's action for ``seat``; return the action applied.

        Raises:
            IllegalActionError: not this seat's turn, not allowed, or no hand in play.
            InvalidActionError: the action names nothing.
        """
        state, a = self._hand_and_action(action)
        state.act(a, seat)
        return int(a)

    def _hand_and_action(self, action: Action | str) -> tuple[Any, Action]:
        """Return the hand in play and ``action`` as a number (text parsed).

        Raises:
            IllegalActionError: no hand in play, or it is over.
            InvalidActionError: the action names nothing.
        """
        state = self.state
        if state is None:
            raise IllegalActionError("no hand has been dealt")
        if state.is_terminal():
            raise IllegalActionError(
                "the match is over" if self.match_over() else "the hand is over"
            )
        return state, state.parse(action) if isinstance(action, str) else action

    def preview(self, seat: int, action: Action | str) -> Preview:
        """Check ``seat``'s action and return what it brings, leaving the table as it is.

        Raises:
            IllegalActionError: not this seat's turn, not allowed, or no hand in play.
            InvalidActionError: the action names nothing.
        """
        state, a = self._hand_and_action(action)
        new = state.clone()
        new.act(a, seat)
        hands: list[Any] = self.match.hands
        hands[-1] = new  # the match as it will be, for a moment
        try:
            # A match is decided only when a hand ends (a Quinto game won by quints ends
            # its hand there), so a hand still in play cannot end it.
            over = new.is_terminal() and self.match_over()
            result = self.match.score_summary() if over else None
        finally:
            hands[-1] = state
        return Preview(seat, int(a), state, new, over, result)

    def commit(self, preview: Preview) -> GameState:
        """Make the previewed action (nothing else may have changed the hand since).

        Returns the hand with the action made.

        Raises:
            IllegalActionError: the table moved on since the preview.
        """
        hands: list[Any] = self.match.hands
        if not hands or hands[-1] is not preview.before:
            raise IllegalActionError("the table moved on since this action was checked")
        hands[-1] = preview.state
        return preview.state

    def legal(self, seat: int) -> tuple[Action, ...]:
        """Return ``seat``'s legal actions now."""
        state = self.state
        if state is None or state.is_terminal():
            return ()
        return tuple(state.legal_actions(seat))

    def decision_seed(self, seat: int) -> str:
        """Return the seed of a bot's decision for ``seat`` now (:func:`decision_seed`)."""
        point = len(self.state.history())
        return decision_seed(self.seed, len(self.match.hands), point, seat)

    def _rng(self, seat: int) -> random.Random:
        return random.Random(self.decision_seed(seat))

    def bot_step(self) -> list[tuple[int, Action]]:
        """Let bots act once (:func:`quintet.bots.bot_step`: a signal, else the main line).

        Returns what they did; an empty list means a person must act (or the hand is over).
        """
        state = self.state
        if state is None or state.is_terminal():
            return []
        self._steps += 1
        return bot_step(state, self.bots, self._rng, self.budget)

    def run_bots(self) -> list[tuple[int, Action]]:
        """Let bots act until a person must act or the hand is over; return their actions."""
        done: list[tuple[int, Action]] = []
        while not self.hand_over():
            step = self.bot_step()
            done.extend(step)
            if not step or self.person_to_act():
                break
        return done

    def hint(self, seat: int, level: str = "heuristic") -> Action | None:
        """Return what a bot of ``level`` would do for ``seat`` (a person's hint).

        For a seat that may only signal, the answer is the bot's signal, or None when
        the bot would stay silent.

        Raises:
            IllegalActionError: ``seat`` has nothing to do now.
            InvalidOptionError: no bot level ``level``.
        """
        return self.hint_task(seat, level)()

    def hint_task(self, seat: int, level: str = "heuristic") -> Callable[[], Action | None]:
        """Return a function that works out :meth:`hint` for ``seat`` as the table is now.

        The bot's view is taken here, so the function may run on another thread (a
        search bot thinks its budget, a CPU second for ``pimc``) while the table moves on;
        it makes the bot (and raises InvalidOptionError for an unknown ``level``).

        Raises:
            IllegalActionError: ``seat`` has nothing to do now.
        """
        explained = self.explain_task(seat, level)
        return lambda: explained()[0]

    def explain_task(
        self, seat: int, level: str = "heuristic"
    ) -> Callable[[], tuple[Action | None, str | None]]:
        """Return a function that works out :meth:`hint` and its reason in one sentence.

        The reason is the bot's own (:func:`quintet.bots.explain`: the heuristic's rule,
        pimc's mean value over its deals), None when the bot gives none.

        Raises:
            IllegalActionError: ``seat`` has nothing to do now.
        """
        if not self.legal(seat):
            raise IllegalActionError(f"seat {seat} has nothing to do now")
        view = BotView.of(self.state, seat, random.Random(f"{self.seed}:hint"), self.budget)
        signal_only = seat != self.to_act()

        def work() -> tuple[Action | None, str | None]:
            return explain(make_bot(level), view, signal_only)

        return work

    def undo(self, seat: int) -> int:
        """Take back the actions since ``seat``'s player's previous decision in this hand.

        Returns the number of actions taken back (0 when there is nothing to undo).
        """
        state = self.state
        if state is None:
            return 0
        player = self.player_of(seat)
        history = state.history()
        cut = None
        for i in range(len(history) - 1, -1, -1):
            if state.controller(history[i][0]) == player:
                cut = i
                break
        if cut is None:
            return 0
        record = self.record()
        record.hands[-1].actions = record.hands[-1].actions[:cut]
        record.hands[-1].action_extra = {
            k: v for k, v in record.hands[-1].action_extra.items() if k < cut
        }
        self.match = replay(record)
        return len(history) - cut

    # ---------------------------------------------------------------- records

    def record(self) -> Record:
        """Return the match so far as a record (with the seats and seed to resume it)."""
        return record_from_match(self.match, {"table": {"seats": self.seats, "seed": self.seed}})

    def empty_match(self) -> Match:
        """Return a new match with this table's rules (for replays)."""
        return new_match(self.record())
