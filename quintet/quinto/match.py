"""Games, rubbers and the deal rotation of Quinto, and the draw for partners.

>>> import random
>>> m = QuintoMatch(QuintoRules(), first_dealer=0)
>>> h = m.start_hand(rng=random.Random(3))
>>> h.dealer, m.next_dealer()
(0, 1)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from quintet.actions import Action
from quintet.cards import JOKER, Card, CardMask
from quintet.errors import IllegalActionError
from quintet.quinto.rules import QuintoRules
from quintet.quinto.state import QuintoState, random_deal


@dataclass(frozen=True)
class GameResult:
    """One game of a match: the score per side (0 = N-S, 1 = E-W), its winner if decided."""

    score: tuple[int, int]
    winner: int | None
    hands: int


#: Games a side must win to win the rubber.
GAMES_TO_WIN: Final = 2


def dealer_after(dealer: int, lone_seat: int | None) -> int:
    """Return the dealer of the hand after ``dealer``'s: clockwise, skipping the dummy seat.

    The deal passes on from one game of a rubber to the next too (rulings.md, Deal).

    >>> dealer_after(3, None), dealer_after(1, 1), dealer_after(0, 1)
    (0, 2, 1)
    """
    d = (dealer + 1) & 3
    if lone_seat is not None and d == (lone_seat + 2) & 3:
        d = (d + 1) & 3
    return d


def new_game_score(lone_seat: int | None, handicap: int) -> tuple[int, int]:
    """Return the score per side (0 = N-S) a game starts from: the dummy's opponents get
    the handicap, otherwise 0 each.

    >>> new_game_score(None, 25), new_game_score(0, 25), new_game_score(3, 25)
    ((0, 0), (0, 25), (25, 0))
    """
    if lone_seat is None:
        return (0, 0)
    return (0, handicap) if lone_seat & 1 == 0 else (handicap, 0)


def next_lone_seat(lone_seat: int) -> int:
    """Return the lone seat of the next dummy game: the seat to this one's left."""
    return (lone_seat + 1) & 3


def games_won(games: Sequence[GameResult]) -> tuple[int, int]:
    """Return the number of games each side has won."""
    won = [0, 0]
    for g in games:
        if g.winner is not None:
            won[g.winner] += 1
    return won[0], won[1]


def match_winner(games: Sequence[GameResult], dummy: bool) -> int | None:
    """Return the side that won the rubber (first to two games), or the dummy game, else None."""
    if dummy:
        return games[0].winner if games else None
    won = games_won(games)
    for side in (0, 1):
        if won[side] >= GAMES_TO_WIN:
            return side
    return None


def rubber_total(games: Sequence[GameResult], winner: int, bonus: int) -> tuple[int, int]:
    """Return each side's rubber total: its final score in every game, plus the bonus if
    it won the rubber.

    >>> rubber_total([GameResult((262, 140), 0, 3), GameResult((255, 90), 0, 2)], 0, 100)
    (617, 230)
    """
    total = [0, 0]
    for g in games:
        total[0] += g.score[0]
        total[1] += g.score[1]
    total[winner] += bonus
    return total[0], total[1]


def summary(
    game: str, games: Sequence[GameResult], lone_seat: int | None, rubber_bonus: int
) -> dict[str, Any]:
    """Return the scorer's object for a match's games (record-format.md, ``quintet score``).

    Sides are listed as the record scores them: in the dummy game the lone player's side
    first.
    """
    dummy = lone_seat is not None
    flip = dummy and (lone_seat or 0) & 1 == 1
    out = []
    for g in games:
        sc = [g.score[1], g.score[0]] if flip else [g.score[0], g.score[1]]
        winner = g.winner if g.winner is None or not flip else 1 - g.winner
        out.append({"score": sc, "winner": winner})
    w = match_winner(games, dummy)
    rubber: dict[str, Any] | None
    if dummy:
        rubber = None
    else:
        rs = None if w is None else rubber_total(games, w, rubber_bonus)
        rubber = {"winner": w, "score": list(rs) if rs else None}
    return {"game": game, "complete": w is not None, "games": out, "rubber": rubber}


class QuintoMatch:
    """A Quinto match: a rubber (partnership variant) or one game (dummy variant).

    The match deals hands in turn (``start_hand``); each hand is a
    :class:`QuintoState` the caller plays to its end. Scores carry from hand to hand
    within a game; a game won ends at once (the hand is abandoned), and the next
    game starts from 0 (the dummy's opponents from ``dummy_handicap``).
    """

    game: ClassVar[str] = "quinto"
    #: Why the next dealer is who he is, in an error about the wrong one.
    DEALER_RULE: ClassVar[str] = ""

    def __init__(
        self,
        rules: QuintoRules | None = None,
        first_dealer: int | None = None,
        lone_seat: int | None = None,
    ) -> None:
        """Start a match.

        Raises:
            ValueError: a lone seat missing or given for the wrong variant, a dealer out of
                range, or a dummy game whose first dealer is not the lone player.
        """
        self.rules = rules or QuintoRules()
        if self.rules.variant == "dummy":
            if lone_seat is None or not 0 <= lone_seat < 4:
                raise ValueError("the dummy variant needs a lone seat 0..3")
            if first_dealer is not None and first_dealer != lone_seat:
                raise ValueError(
                    f"the lone player (seat {lone_seat}) deals the first hand, not seat "
                    f"{first_dealer}"
                )
            first_dealer = lone_seat
        elif lone_seat is not None:
            raise ValueError("only the dummy variant has a lone seat")
        if first_dealer is None:
            first_dealer = 0
        if not 0 <= first_dealer < 4:
            raise ValueError(f"dealer {first_dealer} is out of range 0..3")
        self.lone_seat = lone_seat
        self.first_dealer = first_dealer
        self.hands: list[QuintoState] = []
        self.game_of_hand: list[int] = []

    # ------------------------------------------------------------------ flow

    @property
    def state(self) -> QuintoState | None:
        """The hand being played (or the last one), None before the first deal."""
        return self.hands[-1] if self.hands else None

    def next_dealer(self) -> int:
        """Return the dealer of the next hand: clockwise, skipping the dummy seat."""
        if not self.hands:
            return self.first_dealer
        return dealer_after(self.hands[-1].dealer, self.lone_seat)

    def _new_game_score(self) -> tuple[int, int]:
        return new_game_score(self.lone_seat, self.rules.dummy_handicap)

    def start_hand(
        self,
        hands: Sequence[CardMask] | None = None,
        cachette: CardMask | None = None,
        rng: random.Random | None = None,
    ) -> QuintoState:
        """Deal the next hand: the given cards, or a random deal with ``rng``.

        Raises:
            IllegalActionError: the match is over or the current hand is not finished.
            ValueError: the cards are not a complete Quinto deal.
        """
        if self.is_over():
            raise IllegalActionError(f"the {self.kind} is over")
        last = self.state
        if last is not None and not last.is_terminal():
            raise IllegalActionError(f"hand {len(self.hands) - 1} is not finished")
        if hands is None:
            if rng is None:
                raise ValueError("start_hand needs the cards or an rng to deal them")
            hands, cachette = random_deal(rng)
        if cachette is None:
            raise ValueError("start_hand needs the cachette with the hands")
        if last is None:
            game, score = 0, self._new_game_score()
        elif last.game_winner is not None:
            game, score = self.game_of_hand[-1] + 1, self._new_game_score()
        else:
            game, score = self.game_of_hand[-1], (last.score[0], last.score[1])
        state = QuintoState.new(
            self.rules, self.next_dealer(), hands, cachette, score, self.lone_seat
        )
        self.hands.append(state)
        self.game_of_hand.append(game)
        return state

    @classmethod
    def for_record(
        cls, rules: QuintoRules, first_dealer: int, lone_seat: int | None
    ) -> QuintoMatch:
        """Return the empty match of a record whose first hand ``first_dealer`` deals.

        In the dummy game the lone player always deals first (the match checks it).
        """
        first = None if rules.variant == "dummy" else first_dealer
        return cls(rules, first_dealer=first, lone_seat=lone_seat)

    def closed(self) -> str | None:
        """Return why the match takes no more hands (the rubber is over), else None."""
        return f"the {self.kind} is over" if self.is_over() else None

    def deal_recorded(self, hands: Sequence[CardMask], cachette: CardMask | None) -> QuintoState:
        """Deal the next hand of a record (its cards and cachette)."""
        return self.start_hand(hands, cachette)

    def why_over(self, state: QuintoState) -> str:
        """Return why no action may be taken in ``state``, a finished hand of this match."""
        if self.is_over():
            return f"the {self.kind} is over"
        return "the game is over" if state.game_winner is not None else "the hand is over"

    def act(self, action: Action | str, seat: int | None = None) -> None:
        """Check and apply an action to the current hand.

        Raises:
            IllegalActionError: no hand is in play, or the rules forbid the action.
            InvalidActionError: the action names nothing.
        """
        state = self.state
        if state is None:
            raise IllegalActionError("no hand has been dealt")
        if state.is_terminal() and self.is_over():
            raise IllegalActionError(f"the {self.kind} is over")
        state.act(action, seat)

    # --------------------------------------------------------------- results

    @property
    def kind(self) -> str:
        """``rubber`` or ``game`` (dummy variant): what the match plays for."""
        return "game" if self.lone_seat is not None else "rubber"

    def games(self) -> list[GameResult]:
        """Return every game begun, with its score as it stands now."""
        out: list[GameResult] = []
        for i, (h, g) in enumerate(zip(self.hands, self.game_of_hand, strict=True)):
            last_of_game = i + 1 == len(self.hands) or self.game_of_hand[i + 1] != g
            if last_of_game:
                n = self.game_of_hand.count(g)
                out.append(GameResult((h.score[0], h.score[1]), h.game_winner, n))
        return out

    def games_won(self) -> tuple[int, int]:
        """Return the number of games each side has won."""
        return games_won(self.games())

    def winner(self) -> int | None:
        """Return the side that won the rubber (or the dummy game), else None."""
        return match_winner(self.games(), self.lone_seat is not None)

    def is_over(self) -> bool:
        """Return whether the rubber (or the dummy game) is decided."""
        return self.winner() is not None

    def rubber_score(self) -> tuple[int, int] | None:
        """Return each side's rubber total (game scores plus the bonus) once decided."""
        w = self.winner()
        if w is None or self.lone_seat is not None:
            return None
        return rubber_total(self.games(), w, self.rules.rubber_bonus)

    def score_summary(self) -> dict[str, Any]:
        """Return the scorer's object for the match (record-format.md, ``quintet score``).

        Sides are listed as the record scores them: in the dummy game the lone player's
        side first.
        """
        return summary(self.game, self.games(), self.lone_seat, self.rules.rubber_bonus)

    def next_lone_seat(self) -> int:
        """Return the lone seat of the next dummy game: the seat to this one's left."""
        if self.lone_seat is None:
            raise ValueError("only the dummy variant has a lone seat")
        return next_lone_seat(self.lone_seat)


@dataclass(frozen=True)
class Draw:
    """The draw for partners: each player's card (after redraws), seats and first deal.

    ``seats[p]`` is player ``p``'s seat. Four players: the two highest cards sit at
    seats 0 and 2 against the two lowest at 1 and 3, and the highest deals first.
    Three players: the lowest card plays alone at seat 0 (his dummy at 2) against the
    two highest at 1 and 3, and deals first (rulings.md; modern 001).
    """

    cards: tuple[Card, ...]
    redrawn: tuple[Card, ...]
    seats: tuple[int, ...]
    first_dealer: int
    lone_seat: int | None


def draw_for_partners(rng: random.Random, players: int = 4) -> Draw:
    """Return the draw for partners and first deal among 4 (or 3) players.

    Cards rank as in play; a player drawing the joker draws again.

    Raises:
        ValueError: ``players`` is not 3 or 4.

    >>> d = draw_for_partners(random.Random(5))
    >>> sorted(d.seats), d.first_dealer, d.lone_seat
    ([0, 1, 2, 3], 0, None)
    """
    if players not in (3, 4):
        raise ValueError(f"Quinto is drawn for by 3 or 4 players, not {players}")
    pack = list(range(53))
    rng.shuffle(pack)
    cards: list[Card] = []
    redrawn: list[Card] = []
    for _ in range(players):
        c = pack.pop()
        while c == JOKER:
            redrawn.append(c)
            c = pack.pop()
        cards.append(c)
    order = sorted(range(players), key=lambda p: -cards[p])  # highest first
    seats = [0] * players
    if players == 4:
        for p, seat in zip(order, (0, 2, 1, 3), strict=True):
            seats[p] = seat
        return Draw(tuple(cards), tuple(redrawn), tuple(seats), 0, None)
    for p, seat in zip(order, (1, 3, 0), strict=True):
        seats[p] = seat
    return Draw(tuple(cards), tuple(redrawn), tuple(seats), 0, 0)
