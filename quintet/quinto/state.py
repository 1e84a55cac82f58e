"""One hand of Quinto: the doubling round, twelve tricks and the cachette.

The state carries the game score at the start of the hand because the hand ends
the moment quints bring a side to the target. Games and rubbers are run by
:mod:`quintet.quinto.match`.

>>> import random
>>> s = QuintoState.deal(QuintoRules(), dealer=0, rng=random.Random(7))
>>> s.current_player(), [action_str(a) for a in s.legal_actions()]
(1, ['pass', 'double'])
>>> s.act("double"); s.act("redouble"); s.act("pass"); s.act("pass")
>>> s.multiplier, s.current_player()
(4, 1)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Final

from quintet.actions import (
    DOUBLE,
    PASS,
    REDOUBLE,
    Action,
    action_str,
    is_play,
)
from quintet.cards import (
    BIT,
    JOKER,
    JOKER_BIT,
    QUINTO_PACK,
    SUIT_MASK,
    SUIT_NAMES,
    SUIT_OF,
    Card,
    CardMask,
    card_display,
    card_str,
    cards_str,
    hand_display,
    mask_cards,
    suit_cards,
)
from quintet.game import PHASE_LABELS, TERMINAL, Event, IllegalReason, Observation, Phase
from quintet.hand import _PAIRS, HandState
from quintet.quinto.rules import (
    HAND_SIZE,
    SEAT_NAMES,
    SIDE_NAMES,
    TRICKS,
    QuintoRules,
    count_tricks,
    is_tie,
    quint_points,
    quints,
    score_quints,
    trick_points,
    trick_value,
)

DOUBLING: Final = int(Phase.DOUBLING)
PLAY: Final = int(Phase.PLAY)
OVER: Final = int(Phase.OVER)
_PHASE_NAMES: Final = PHASE_LABELS
_NO_JOKER: Final = QUINTO_PACK ^ JOKER_BIT
_PACK: Final = range(53)
_new: Final = object.__new__
#: ``(seat, action)`` pairs by seat, then action (the history's shared tuples).
_SEAT_PAIRS: Final = tuple(_PAIRS[s << 8 : (s + 1) << 8] for s in range(4))
#: Every seat but one, by that seat.
_OTHERS: Final = tuple(tuple(s for s in range(4) if s != v) for v in range(4))
#: The seats in play order from each leader.
_FROM: Final = tuple(tuple((leader + i) & 3 for i in range(4)) for leader in range(4))
# The doubling round's order of turns, by (dealer, dummy seat or -1).
_ORDERS: Final = {
    (d, x): tuple(s for s in ((d + i) & 3 for i in range(1, 5)) if s != x)
    for d in range(4)
    for x in (-1, 0, 1, 2, 3)
}


def seat_name(seat: int) -> str:
    """Return ``seat 2 (South)``: how errors name a seat."""
    return f"seat {seat} ({SEAT_NAMES[seat]})"


def trick_winner(leader: int, cards: Sequence[Card]) -> int:
    """Return the seat winning a complete trick led by ``leader`` (the joker never wins)."""
    best = max(c for c in cards if c != JOKER)
    return (leader + list(cards).index(best)) & 3


class _Context:
    """What every copy of a hand shares and never changes."""

    __slots__ = (
        "dealer",
        "dummy",
        "j11",
        "leader0",
        "lone",
        "lone_seat",
        "order",
        "rules",
        "snapshot",
        "start_score",
        "target",
        "variant",
    )

    def __init__(
        self,
        rules: QuintoRules,
        dealer: int,
        lone: int,
        start_score: tuple[int, int],
    ) -> None:
        self.rules = rules
        self.target = rules.target
        self.j11 = rules.joker_eleventh_trick
        self.dealer = dealer
        self.lone = lone
        self.dummy = _dummy_of(lone)
        self.start_score = start_score
        self.order = tuple(s for s in ((dealer + i) & 3 for i in range(1, 5)) if s != self.dummy)
        self.leader0 = (dealer + 1) & 3
        self.variant = rules.variant
        self.lone_seat = lone if lone >= 0 else None
        self.snapshot: QuintoState | None = None

    def fork(self) -> _Context:
        """Return a copy without the snapshot (for a state that gets a snapshot of its own)."""
        c = _new(_Context)
        c.rules = self.rules
        c.target = self.target
        c.j11 = self.j11
        c.dealer = self.dealer
        c.lone = self.lone
        c.dummy = self.dummy
        c.start_score = self.start_score
        c.order = self.order
        c.leader0 = self.leader0
        c.variant = self.variant
        c.lone_seat = self.lone_seat
        c.snapshot = None
        return c


@dataclass(frozen=True)
class QuintoObservation(Observation):
    """A Quinto player's view: :class:`~quintet.game.Observation` plus the public table.

    ``trick`` is the trick in progress as ``(seat, card)``; ``score`` the game score per
    side (this hand's quints and, once counted, tricks included); ``cachette`` its cards
    once taken (shown to all), else ``None``, and ``cachette_side`` the side that took it.
    """

    dealer: int = 0
    lone_seat: int | None = None
    phase: str = "doubling"
    multiplier: int = 1
    doubled_by: int | None = None
    trick: tuple[tuple[int, Card], ...] = ()
    tricks_played: int = 0
    tricks_won: tuple[int, int] = (0, 0)
    score: tuple[int, int] = (0, 0)
    start_score: tuple[int, int] = (0, 0)
    target: int = 250
    cachette: CardMask | None = None
    game_winner: int | None = None
    cachette_side: int | None = None

    @property
    def text(self) -> str:
        """The table as this player sees it (drawn from the fields when asked for)."""
        lone = self.lone_seat
        winner = self.game_winner
        side = self.cachette_side
        return _table(
            self.variant,
            self.dealer,
            -1 if lone is None else lone,
            self.start_score,
            self.target,
            self.hands,
            self.hand_sizes,
            PHASE_LABELS.index(self.phase),
            self.current_player,
            self.multiplier,
            self.score,
            self.tricks_won,
            self.trick,
            self.tricks_played,
            -1 if winner is None else winner,
            -1 if side is None else side,
            self.cachette or 0,
        )


class QuintoState(HandState):
    """A hand of Quinto; implements :class:`quintet.game.GameState`.

    Seats 0 North, 1 East, 2 South, 3 West; side 0 is North-South, side 1 East-West.
    In the dummy variant the lone player at ``lone_seat`` also decides for the dummy
    hand opposite him.
    """

    __slots__ = (
        "_base",
        "_cachette_side",
        "_counted",
        "_doubler",
        "_forb",
        "_hist",
        "_htup",
        "_i",
        "_led",
        "_tmask",
        "_winner",
        "cachette",
        "ctx",
        "hands",
        "leader",
        "multiplier",
        "phase",
        "score",
        "trick",
        "tricks_played",
        "tricks_won",
        "turn",
    )

    game = "quinto"
    num_seats = 4
    LIST_SLOTS = ("_hist", "hands", "score", "trick", "tricks_won")
    ACTION_KINDS = frozenset({"play", "pass", "double", "redouble"})
    TITLE = "Quinto"

    ctx: _Context
    hands: list[CardMask]
    cachette: CardMask
    phase: int
    turn: int
    multiplier: int
    trick: list[Card]
    leader: int
    tricks_played: int
    tricks_won: list[int]
    score: list[int]
    _i: int
    _doubler: int
    _tmask: CardMask
    _led: int
    _winner: int
    _cachette_side: int
    _counted: bool
    _hist: list[tuple[int, Action]]

    # ----------------------------------------------------------------- creation

    @classmethod
    def new(
        cls,
        rules: QuintoRules,
        dealer: int,
        hands: Sequence[CardMask],
        cachette: CardMask,
        score: tuple[int, int] = (0, 0),
        lone_seat: int | None = None,
    ) -> QuintoState:
        """Return a hand about to start its doubling round, from a dealt pack.

        ``score`` is the game score per side before this hand.

        Raises:
            ValueError: the deal is not a complete pack of 12 + 12 + 12 + 12 + 5 cards,
                the dealer or lone seat is out of range, or the dummy would deal.
        """
        _check_deal(hands, cachette)
        if not 0 <= dealer < 4:
            raise ValueError(f"dealer {dealer} is out of range 0..3")
        lone = _check_lone(rules, lone_seat)
        if lone >= 0 and dealer == _dummy_of(lone):
            raise ValueError(f"the dummy seat {dealer} never deals")
        return cls._create(rules, dealer, list(hands), cachette, score, lone)

    @classmethod
    def _create(
        cls,
        rules: QuintoRules,
        dealer: int,
        hands: list[CardMask],
        cachette: CardMask,
        score: tuple[int, int],
        lone: int,
    ) -> QuintoState:
        ctx = _Context(rules, dealer, lone, (int(score[0]), int(score[1])))
        s = cls.__new__(cls)
        s.ctx = ctx
        s.hands = hands
        s.cachette = cachette
        s.phase = DOUBLING
        s._i = 0
        s.turn = ctx.order[0]
        s.multiplier = 1
        s._doubler = -1
        s.trick = []
        s._tmask = 0
        s._led = -1
        s.leader = ctx.leader0
        s.tricks_played = 0
        s.tricks_won = [0, 0]
        s.score = list(ctx.start_score)
        s._winner = -1
        s._cachette_side = -1
        s._counted = False
        s._hist = []
        s._htup = ()
        s._forb = (0, 0, 0, 0)
        s._base = None
        s._keep_snapshot()
        return s

    @classmethod
    def deal(
        cls,
        rules: QuintoRules,
        dealer: int,
        rng: random.Random,
        score: tuple[int, int] = (0, 0),
        lone_seat: int | None = None,
    ) -> QuintoState:
        """Return a hand dealt at random with ``rng``: 12 cards each and a cachette of 5.

        Raises:
            ValueError: the dealer or lone seat is out of range, or the dummy would deal.
        """
        if not 0 <= dealer < 4:
            raise ValueError(f"dealer {dealer} is out of range 0..3")
        lone = _check_lone(rules, lone_seat)
        if lone >= 0 and dealer == _dummy_of(lone):
            raise ValueError(f"the dummy seat {dealer} never deals")
        hands, cachette = random_deal(rng)
        return cls._create(rules, dealer, hands, cachette, score, lone)

    @classmethod
    def from_position(
        cls,
        hands: Sequence[CardMask],
        leader: int,
        rules: QuintoRules | None = None,
        *,
        trick: Sequence[Card] = (),
        cachette: CardMask = 0,
        multiplier: int = 1,
        score: tuple[int, int] = (0, 0),
        tricks_won: tuple[int, int] = (0, 0),
        lone_seat: int | None = None,
    ) -> QuintoState:
        """Return a position in the play of a hand (for endgames, puzzles and the solver).

        ``hands`` are the cards still held; ``trick`` the cards already played to the
        current trick, led by ``leader``. The number of tricks already played is
        ``12 - (cards in the leader's hand + cards he has played to the trick)``.
        ``cachette`` is 5 cards, or 0 to leave it out (no 13th trick).

        Raises:
            ValueError: hand sizes that do not fit one position, a card given twice.
        """
        rules = rules or QuintoRules()
        lone = _check_lone(rules, lone_seat)
        seen = 0
        for m in [*hands, cachette, *(1 << c for c in trick)]:
            if seen & m:
                raise ValueError(f"card {cards_str(seen & m)} given twice")
            seen |= m
        if len(hands) != 4 or len(trick) > 3 or not 0 <= leader < 4:
            raise ValueError("a position has 4 hands, a leader 0..3 and at most 3 trick cards")
        if cachette and cachette.bit_count() != 5:
            raise ValueError("the cachette has 5 cards (or 0 to leave it out)")
        left = hands[leader].bit_count() + (1 if trick else 0)
        for i in range(4):
            seat = (leader + i) & 3
            want = left - 1 if i < len(trick) else left
            if hands[seat].bit_count() != want:
                raise ValueError(
                    f"{seat_name(seat)} holds {hands[seat].bit_count()} cards, expected {want}"
                )
        if not 1 <= left <= HAND_SIZE:
            raise ValueError(f"a hand holds 1 to {HAND_SIZE} cards")
        dealer = (leader + 3) & 3
        ctx = _Context(rules, dealer, lone, (int(score[0]), int(score[1])))
        s = cls.__new__(cls)
        s.ctx = ctx
        s.hands = list(hands)
        s.cachette = cachette
        s.phase = PLAY
        s._i = len(ctx.order)
        s.multiplier = multiplier
        s._doubler = -1 if multiplier == 1 else 0
        s.trick = list(trick)
        s._tmask = 0
        for c in trick:
            s._tmask |= 1 << c
        s._led = SUIT_OF[trick[0]] if trick else -1
        s.leader = leader
        s.turn = (leader + len(trick)) & 3
        s.tricks_played = TRICKS - left
        s.tricks_won = list(tricks_won)
        s.score = [int(score[0]), int(score[1])]
        s._winner = -1
        s._cachette_side = -1
        s._counted = False
        s._hist = []
        s._htup = ()
        s._forb = (0, 0, 0, 0)
        s._base = None
        s._keep_snapshot()
        return s

    # ------------------------------------------------------------ the protocol

    @property
    def rules(self) -> QuintoRules:
        """The rules this hand is played under."""
        return self.ctx.rules

    @property
    def dealer(self) -> int:
        """The dealer's seat."""
        return self.ctx.dealer

    @property
    def lone_seat(self) -> int | None:
        """The lone player's seat in the dummy variant, else None."""
        return self.ctx.lone if self.ctx.lone >= 0 else None

    @property
    def dummy_seat(self) -> int | None:
        """The dummy hand's seat in the dummy variant, else None."""
        return self.ctx.dummy if self.ctx.dummy >= 0 else None

    @property
    def start_score(self) -> tuple[int, int]:
        """The game score per side before this hand."""
        return self.ctx.start_score

    @property
    def doubled_by(self) -> int | None:
        """The side that doubled, or None."""
        return self._doubler if self._doubler >= 0 else None

    @property
    def game_winner(self) -> int | None:
        """The side that won the game in this hand, or None (not yet, or a tie)."""
        return self._winner if self._winner >= 0 else None

    @property
    def cachette_side(self) -> int | None:
        """The side that took the cachette, or None."""
        return self._cachette_side if self._cachette_side >= 0 else None

    @property
    def trick_points_counted(self) -> bool:
        """Whether the hand's trick points have been added (never when quints end the game)."""
        return self._counted

    @property
    def tied(self) -> bool:
        """Whether the hand ended with both sides exactly level at or past the target."""
        a, b = self.score
        return self.phase == OVER and self._winner < 0 and is_tie(a, b, self.ctx.target)

    def current_player(self) -> int:
        """Return the seat to act, or TERMINAL."""
        return self.turn if self.phase != OVER else TERMINAL

    def actors(self) -> tuple[int, ...]:
        """Return the seats that may act now (in Quinto only the seat to act)."""
        return (self.turn,) if self.phase != OVER else ()

    def controller(self, seat: int) -> int:
        """Return who decides for ``seat``: the lone player for the dummy, else the seat."""
        return self.ctx.lone if seat == self.ctx.dummy else seat

    def is_terminal(self) -> bool:
        """Return whether the hand is over (played out, or abandoned when the game ended)."""
        return self.phase == OVER

    def legal_actions(self, seat: int | None = None) -> tuple[Action, ...]:
        """Return the legal actions of ``seat`` (default: the seat to act), ascending.

        >>> s = QuintoState.from_position([0b11 << 13, 0b11, 0b11 << 26, JOKER_BIT | 1 << 39],
        ...                               leader=3)
        >>> [card_str(c) for c in s.legal_actions()]   # the joker may not be led
        ['2H']
        """
        phase = self.phase
        if phase == PLAY:
            if seat is not None and seat != self.turn:
                return ()
            hand = self.hands[self.turn]
            if not self.trick:
                if hand == JOKER_BIT:
                    return (JOKER,)
                return mask_cards(hand & _NO_JOKER)
            led = self._led
            if led < 0:
                return mask_cards(hand)
            follow = suit_cards(hand, led)
            if follow:
                if hand & JOKER_BIT:
                    if self.tricks_played == 10 and self.ctx.j11 and len(follow) == 1:
                        return self._joker_eleventh(hand)
                    return (*follow, JOKER)
                return follow
            if self.tricks_played == 10 and self.ctx.j11 and hand & JOKER_BIT:
                return self._joker_eleventh(hand)
            return mask_cards(hand)
        if phase == DOUBLING:
            if seat is not None and seat != self.turn:
                return ()
            m = self.multiplier
            if m == 1:
                return (PASS, DOUBLE)
            if m == 2 and self._doubler != self.turn & 1:
                return (PASS, REDOUBLE)
            return (PASS,)
        return ()

    def _joker_eleventh(self, hand: CardMask) -> tuple[Action, ...]:
        # Option joker_eleventh_trick: holding the joker and one other card at the 11th
        # trick, not on lead, the joker must go if the other card would head the trick.
        other = hand ^ JOKER_BIT
        if other.bit_count() == 1 and other > self._tmask & _NO_JOKER:
            return (JOKER,)
        return mask_cards(hand)

    def apply_action(self, action: Action, seat: int | None = None) -> None:
        """Apply a legal action of the seat to act, without checking it."""
        if self.phase == PLAY:
            s = self.turn
            self.hands[s] ^= 1 << action
            self._hist.append(_SEAT_PAIRS[s][action])
            t = self.trick
            if t:
                led = self._led
                if (
                    SUIT_OF[action] != led
                    and action != JOKER
                    and led >= 0
                    and not self._forb[s] & SUIT_MASK[led]
                ):
                    self._forbid(s, SUIT_MASK[led])  # a void shown, for the first time
                if (
                    self.tricks_played == 10
                    and self.ctx.j11
                    and action != JOKER
                    and action > (self._tmask & _NO_JOKER).bit_length() - 1
                ):
                    # Heading the 11th trick, the joker would have had to go (rule
                    # joker_eleventh_trick): the seat does not hold it.
                    self._forbid(s, JOKER_BIT)
                t.append(action)
                self._tmask |= 1 << action
                if len(t) < 4:
                    self.turn = (s + 1) & 3
                else:
                    self._end_trick()
            else:
                t.append(action)
                self._tmask |= 1 << action
                self._led = SUIT_OF[action]
                self.turn = (s + 1) & 3
        else:
            self._doubling(action)

    def _doubling(self, action: Action) -> None:
        s = self.turn
        self._hist.append(_SEAT_PAIRS[s][action])
        if action == DOUBLE:
            self.multiplier = 2
            self._doubler = s & 1
        elif action == REDOUBLE:
            self.multiplier = 4
        self._i += 1
        order = self.ctx.order
        if self._i < len(order):
            self.turn = order[self._i]
        else:
            self.phase = PLAY
            self.turn = self.leader = self.ctx.leader0

    def _end_trick(self) -> None:
        m = self._tmask
        t = self.trick
        w = (self.leader + t.index((m & _NO_JOKER).bit_length() - 1)) & 3
        side = w & 1
        self.tricks_won[side] += 1
        self.tricks_played += 1
        q = quint_points(m)
        if q and score_quints(self.score, side, q, self.ctx.target):
            self._game_won(side)
            return
        self.trick = []
        self._tmask = 0
        self.leader = self.turn = w
        if self.tricks_played == TRICKS:
            self._last_trick_done(side)

    def _last_trick_done(self, side: int) -> None:
        self._cachette_side = side
        score = self.score
        if self.cachette:  # a position may leave the cachette out (from_position)
            self.tricks_won[side] += 1
        q = quint_points(self.cachette)
        if q and score_quints(score, side, q, self.ctx.target):
            self._game_won(side)
            return
        self._winner = count_tricks(score, self.tricks_won, self.multiplier, self.ctx.target)
        self._counted = True
        self.phase = OVER

    def _game_won(self, side: int) -> None:
        self._winner = side
        self.phase = OVER

    def hand_points(self) -> tuple[int, int]:
        """Return the points each side has scored in this hand so far."""
        s0, s1 = self.ctx.start_score
        return self.score[0] - s0, self.score[1] - s1

    def points(self) -> tuple[int, int]:
        """Return the points each side (N-S, E-W) has taken in this hand so far.

        The shared name (Quintus's ``points()`` gives the quintus's and each team's);
        the same as :meth:`hand_points`.
        """
        return self.hand_points()

    def scores(self) -> list[int]:
        """Return what each seat gains in this hand: its side's points so far.

        The shared name (Quintus's ``scores()`` is each seat's settlement).
        """
        a, b = self.hand_points()
        return [a, b, a, b]

    def returns(self) -> list[float]:
        """Return each seat's side's hand points minus the other side's (zero-sum)."""
        a, b = self.hand_points()
        d = float(a - b)
        return [d, -d, d, -d]

    # ---------------------------------------------------------- checked input

    def _illegal(self, a: Action, seat: int) -> str | IllegalReason:
        """Return why ``seat`` may not take action ``a`` now (see ``illegal_reason``)."""
        who = seat_name(seat)
        if self.phase == OVER:
            if self._winner >= 0:
                return f"the hand is over: {SIDE_NAMES[self._winner]} won the game"
            return "the hand is over"
        if seat != self.turn:
            owner = self.controller(self.turn)
            extra = f", played by {seat_name(owner)}" if owner != self.turn else ""
            if self.ctx.dummy == seat and self.phase == DOUBLING:
                return f"{who} is the dummy and takes no part in the doubling round"
            return f"it is {seat_name(self.turn)}'s turn{extra}, not {who}'s"
        if self.phase == DOUBLING:
            if is_play(a):
                return f"{who} cannot play a card during the doubling round"
            if a == DOUBLE:
                return f"{who} cannot double: {SIDE_NAMES[self._doubler]} already doubled"
            if a == REDOUBLE:
                if self.multiplier == 1:
                    return f"{who} cannot redouble: nobody has doubled"
                if self.multiplier == 4:
                    return f"{who} cannot redouble: the double is already redoubled"
                return f"{who} cannot redouble his own side's double"
            return f"{who} cannot {action_str(a)} now"
        if not is_play(a):
            return f"{who} cannot {action_str(a)}: the doubling round is over"
        hand = self.hands[seat]
        if not hand >> a & 1:
            return IllegalReason(
                f"{who} does not hold {card_str(a)}; holds {cards_str(hand)}", hand
            )
        if not self.trick and a == JOKER:
            return f"{who} may not lead the joker while holding other cards"
        if self._led >= 0:
            follow = suit_cards(hand, self._led)
            if follow and a != JOKER and SUIT_OF[a] != self._led:
                return IllegalReason(
                    f"{who} must follow {SUIT_NAMES[self._led]}; holds {cards_str(follow)}",
                    sum(1 << c for c in follow),
                )
        if self.tricks_played == 10 and self.ctx.j11 and a != JOKER:
            return (
                f"{who} must play the joker: {card_str(a)} would be the highest card of the "
                f"11th trick so far (rule joker_eleventh_trick)"
            )
        return f"{who} cannot play {card_str(a)} now"

    # ------------------------------------------------------------ information

    def _hidden_seats(self, seat: int) -> tuple[int, ...]:
        if self.ctx.lone < 0:  # partnership: each player sees his own hand only
            return _OTHERS[seat]
        return super()._hidden_seats(seat)

    def visible_seats(self, viewer: int) -> tuple[int, ...]:
        """Return the seats whose hands the player deciding for ``viewer`` may see."""
        v = self.controller(viewer)
        ctx = self.ctx
        if v != ctx.lone:
            return (v,)
        if self.phase != DOUBLING:
            return (v, ctx.dummy)
        if ctx.rules.dummy_double_view == "leading" and ctx.dealer != v:
            # Hoyle: when an opponent deals, the lone player doubles from the one of his
            # two hands that plays first to the first trick.
            for i in range(1, 5):
                s = (ctx.dealer + i) & 3
                if s in (v, ctx.dummy):
                    return (s,)
        return (v,)

    def private_view(
        self, seat: int
    ) -> tuple[tuple[CardMask | None, ...], tuple[tuple[int, Action], ...]]:
        """Return the hands the player deciding for ``seat`` may see and his legal
        actions: his observation's ``hands`` and ``legal_actions`` (the same code)."""
        ctx = self.ctx
        v = ctx.lone if seat == ctx.dummy else seat
        held = self.hands
        phase = self.phase
        shown: list[CardMask | None] = [None, None, None, None]
        if v != ctx.lone:
            shown[v] = held[v]
        elif phase != DOUBLING:
            shown[v] = held[v]
            shown[ctx.dummy] = held[ctx.dummy]
        else:
            for s in self.visible_seats(v):
                shown[s] = held[s]
        legal: tuple[tuple[int, Action], ...] = ()
        if phase != OVER:
            turn = self.turn
            if (ctx.lone if turn == ctx.dummy else turn) == v:
                pairs = _SEAT_PAIRS[turn]
                acts = self.legal_actions()
                if len(acts) > 1:
                    legal = itemgetter(*acts)(pairs)
                elif acts:
                    legal = (pairs[acts[0]],)
        return tuple(shown), legal

    def observation(self, seat: int) -> QuintoObservation:
        """Return what the player deciding for ``seat`` may see now."""
        # Built field by field into the frozen dataclass (its __init__ costs more than all
        # the rest); tests/test_views.py checks it against a plain construction.
        ctx = self.ctx
        v = ctx.lone if seat == ctx.dummy else seat
        held = self.hands
        phase = self.phase
        shown: list[CardMask | None] = [None, None, None, None]
        if v != ctx.lone:
            shown[v] = held[v]
        elif phase != DOUBLING:  # visible_seats(v), inlined: the lone hand and the dummy
            shown[v] = held[v]
            shown[ctx.dummy] = held[ctx.dummy]
        else:
            for s in self.visible_seats(v):
                shown[s] = held[s]
        hands = tuple(shown)
        sizes = (held[0].bit_count(), held[1].bit_count(), held[2].bit_count(), held[3].bit_count())
        turn = self.turn
        legal: tuple[tuple[int, Action], ...] = ()
        if phase == OVER:
            current = TERMINAL
        else:
            current = turn
            if (ctx.lone if turn == ctx.dummy else turn) == v:
                pairs = _SEAT_PAIRS[turn]
                acts = self.legal_actions()
                # One itemgetter call is cheaper than a loop (it returns a lone item bare).
                if len(acts) > 1:
                    legal = itemgetter(*acts)(pairs)
                elif acts:
                    legal = (pairs[acts[0]],)
        # zip without strict=: its keyword costs more than the rest of this line.
        trick = tuple(zip(_FROM[self.leader], self.trick)) if self.trick else ()  # noqa: B905
        score = self.score
        score_t = (score[0], score[1])
        won = self.tricks_won
        won_t = (won[0], won[1])
        side = self._cachette_side
        cachette = self.cachette if side >= 0 else None
        winner = self._winner
        history = self._htup
        if len(history) != len(self._hist):
            history = self._htup = tuple(self._hist)
        o = _new(QuintoObservation)
        d = o.__dict__
        d["game"] = "quinto"
        d["variant"] = ctx.variant
        d["viewer"] = v
        d["hands"] = hands
        d["hand_sizes"] = sizes
        d["history"] = history
        d["current_player"] = current
        d["legal_actions"] = legal
        d["phase"] = _PHASE_NAMES[phase]
        d["dealer"] = ctx.dealer
        d["trick"] = trick
        d["tricks_played"] = self.tricks_played
        d["lone_seat"] = ctx.lone_seat
        d["multiplier"] = self.multiplier
        d["doubled_by"] = self._doubler if self._doubler >= 0 else None
        d["tricks_won"] = won_t
        d["score"] = score_t
        d["start_score"] = ctx.start_score
        d["target"] = ctx.target
        d["cachette"] = cachette
        d["game_winner"] = winner if winner >= 0 else None
        d["cachette_side"] = side if side >= 0 else None
        return o

    def trick_pairs(self) -> tuple[tuple[int, Card], ...]:
        """Return the trick in progress as ``(seat, card)`` in play order."""
        return tuple(zip(_FROM[self.leader], self.trick, strict=False))

    def _hidden_extra(self) -> CardMask | None:
        return self.cachette if self._cachette_side < 0 else None

    def _set_extra(self, mask: CardMask) -> None:
        self.cachette = mask

    def initial_cachette(self) -> CardMask:
        """Return the cachette as dealt."""
        snap = self.ctx.snapshot
        assert snap is not None
        return snap.cachette

    def events(self) -> list[Event]:
        """Return the public event log: every action, trick, cachette and result."""
        st = self.snapshot()
        out: list[Event] = []
        for seat, a in self.history():
            cards = [*st.trick, a] if is_play(a) else []
            leader = st.leader
            played = st.tricks_played
            st.apply_action(a)
            out.append(Event("action", seat, a, text=f"{SEAT_NAMES[seat]}: {action_str(a)}"))
            if st.tricks_played > played:
                w = trick_winner(leader, cards)
                m = 0
                for c in cards:
                    m |= 1 << c
                q = quint_points(m)
                desc = ", ".join(f"{n} {v}" for n, v in quints(m))
                out.append(
                    Event(
                        "trick",
                        w,
                        cards=m,
                        points=q,
                        text=f"{SEAT_NAMES[w]} wins trick {st.tricks_played}"
                        + (f": quints {desc}" if desc else ""),
                    )
                )
            if st.tricks_played > played and st._cachette_side >= 0:
                side = st._cachette_side
                q = quint_points(st.cachette)
                desc = ", ".join(f"{n} {v}" for n, v in quints(st.cachette))
                out.append(
                    Event(
                        "cachette",
                        side,
                        cards=st.cachette,
                        points=q,
                        text=f"{SIDE_NAMES[side]} take the cachette {cards_str(st.cachette)}"
                        + (f": quints {desc}" if desc else ""),
                    )
                )
            if st.phase == OVER:
                if st._counted:
                    value = trick_value(st.multiplier)
                    tp = trick_points(st.tricks_won, st.multiplier)
                    out.append(
                        Event(
                            "tricks",
                            values=tp,
                            text=f"tricks {st.tricks_won[0]}-{st.tricks_won[1]} "
                            f"at {value}: {SIDE_NAMES[0]} {tp[0]}, {SIDE_NAMES[1]} {tp[1]}",
                        )
                    )
                if st._winner >= 0:
                    out.append(
                        Event(
                            "game",
                            st._winner,
                            values=(st.score[0], st.score[1]),
                            text=f"{SIDE_NAMES[st._winner]} win the game "
                            f"{st.score[st._winner]} to {st.score[1 - st._winner]}",
                        )
                    )
                elif st.tied:
                    out.append(
                        Event(
                            "game",
                            None,
                            values=(st.score[0], st.score[1]),
                            text=f"tie at {st.score[0]}: another hand is played",
                        )
                    )
        return out

    # --------------------------------------------------------------- display

    def render(self, viewer: int | None = None) -> str:
        """Return the table as text; ``viewer`` hides what that seat's player cannot see."""
        held = self.hands
        if viewer is None:
            hands: tuple[CardMask | None, ...] = tuple(held)
        else:
            vis = self.visible_seats(viewer)
            hands = tuple(held[s] if s in vis else None for s in range(4))
        ctx = self.ctx
        return _table(
            ctx.variant,
            ctx.dealer,
            ctx.lone,
            ctx.start_score,
            ctx.target,
            hands,
            tuple(m.bit_count() for m in held),
            self.phase,
            self.turn,
            self.multiplier,
            (self.score[0], self.score[1]),
            (self.tricks_won[0], self.tricks_won[1]),
            self.trick_pairs(),
            self.tricks_played,
            self._winner,
            self._cachette_side,
            self.cachette,
        )

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return (
            f"<QuintoState {_PHASE_NAMES[self.phase]} trick {self.tricks_played + 1} "
            f"score {self.score[0]}-{self.score[1]}>"
        )


def _dummy_of(lone: int) -> int:
    """Return the dummy seat of the lone player ``lone`` (his partner's), or -1 without one."""
    return (lone + 2) & 3 if lone >= 0 else -1


def _table(
    variant: str,
    dealer: int,
    lone: int,
    start_score: tuple[int, int],
    target: int,
    hands: tuple[CardMask | None, ...],
    sizes: tuple[int, ...],
    phase: int,
    turn: int,
    multiplier: int,
    score: tuple[int, int],
    tricks_won: tuple[int, int],
    trick: tuple[tuple[int, Card], ...],
    tricks_played: int,
    winner: int,
    cachette_side: int,
    cachette: CardMask,
) -> str:
    """Return the table as text: ``hands[s]`` is None for a hand the viewer cannot see.

    What :meth:`QuintoState.render` draws, from the values it needs: an observation draws
    the same from its own fields when its text is asked for (``lone`` is -1 without a
    lone player, ``winner`` and ``cachette_side`` -1 when none).
    """
    dummy = _dummy_of(lone)
    head = f"Quinto ({variant})  dealer {SEAT_NAMES[dealer]}"
    if lone >= 0:
        head += f"  lone {SEAT_NAMES[lone]}, dummy {SEAT_NAMES[dummy]}"
    if multiplier > 1:
        word = "doubled" if multiplier == 2 else "redoubled"
        head += f"  {word} (tricks x{multiplier})"
    s0, s1 = start_score
    a, b = score[0] - s0, score[1] - s1
    lines = [
        head,
        f"Score  {SIDE_NAMES[0]} {score[0]} ({a:+d} this hand)   "
        f"{SIDE_NAMES[1]} {score[1]} ({b:+d})   target {target}   "
        f"tricks {tricks_won[0]}-{tricks_won[1]}",
    ]
    for s in range(4):
        tag = " (dummy)" if s == dummy else ""
        m = hands[s]
        body = hand_display(m) if m is not None else f"[{sizes[s]} cards]"
        lines.append(f"  {SEAT_NAMES[s]:<6}{tag:<8} {body}")
    if phase == DOUBLING:
        lines.append(f"Doubling round: {SEAT_NAMES[turn]} to speak")
    elif phase == PLAY:
        played = "  ".join(f"{SEAT_NAMES[s][0]} {card_display(c)}" for s, c in trick)
        lines.append(f"Trick {tricks_played + 1}: {played or '-'}   {SEAT_NAMES[turn]} to play")
    else:
        if winner >= 0:
            lines.append(f"Hand over: {SIDE_NAMES[winner]} win the game")
        elif is_tie(score[0], score[1], target):
            lines.append("Hand over: tie at or past the target, another hand follows")
        else:
            lines.append("Hand over")
    if cachette_side >= 0:
        lines.append(f"Cachette ({SIDE_NAMES[cachette_side]}): {hand_display(cachette)}")
    return "\n".join(lines)


def random_deal(rng: random.Random) -> tuple[list[CardMask], CardMask]:
    """Return four 12-card hands and a 5-card cachette dealt from a shuffled 53-card pack."""
    # Sorting by random keys is a uniform shuffle and half the cost of rng.shuffle.
    r = rng.random
    keys = [r() for _ in _PACK]
    cards = sorted(_PACK, key=keys.__getitem__)
    cachette = 0
    for c in cards[:5]:
        cachette |= BIT[c]
    hands = []
    for i in range(5, 53, 12):
        m = 0
        for c in cards[i : i + 12]:
            m |= BIT[c]
        hands.append(m)
    return hands, cachette


def _check_deal(hands: Sequence[CardMask], cachette: CardMask) -> None:
    if len(hands) != 4:
        raise ValueError(f"a Quinto deal has 4 hands, not {len(hands)}")
    seen = 0
    for i, m in enumerate(hands):
        if m.bit_count() != HAND_SIZE:
            raise ValueError(f"{seat_name(i)} is dealt {m.bit_count()} cards, not {HAND_SIZE}")
        if seen & m:
            raise ValueError(f"card {cards_str(seen & m)} is dealt twice")
        seen |= m
    if cachette.bit_count() != 5:
        raise ValueError(f"the cachette has {cachette.bit_count()} cards, not 5")
    if seen & cachette:
        raise ValueError(f"card {cards_str(seen & cachette)} is dealt twice")
    seen |= cachette
    if seen != QUINTO_PACK:
        raise ValueError(f"the deal is not a Quinto pack: missing {cards_str(QUINTO_PACK & ~seen)}")


def _check_lone(rules: QuintoRules, lone_seat: int | None) -> int:
    if rules.variant == "dummy":
        if lone_seat is None or not 0 <= lone_seat < 4:
            raise ValueError("the dummy variant needs a lone seat 0..3")
        return lone_seat
    if lone_seat is not None:
        raise ValueError("only the dummy variant has a lone seat")
    return -1
