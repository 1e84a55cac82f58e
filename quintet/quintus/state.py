"""One hand of Quintus: the auction (bidding variant), trump and nil, eight tricks.

>>> import random
>>> s = QuintusState.deal(QuintusRules(), dealer=0, rng=random.Random(2))
>>> s.quintus, [action_str(a) for a in s.legal_actions()]
(4, ['trump S', 'trump C', 'trump D', 'trump H', 'trump NT'])
>>> s.act("trump H"); s.act("nil none")
>>> s.current_player(), s.actors()
(4, (4, 0, 1, 2, 3))
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Final

from quintet.actions import (
    BID_BASE,
    DECLINE,
    MELD_COURT,
    MELD_STRAIGHT,
    NIL_NAMES,
    NIL_NONE,
    NIL_OPEN,
    NUM_ACTIONS,
    PASS,
    SIGNAL_ASK,
    SIGNAL_DOWN,
    SIGNAL_NAMES,
    SIGNAL_UP,
    TRUMP_BASE,
    TRUMP_NAMES,
    TRUMP_NT,
    Action,
    action_str,
    action_type,
    bid_amount,
    is_play,
)
from quintet.cards import (
    BIT,
    JOKER,
    QUINTUS_PACK,
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
from quintet.quintus.rules import (
    COURT_POINTS,
    FACES,
    HAND_SIZE,
    NIL_BREAKERS,
    NT,
    PIPS,
    SEATS,
    STRAIGHT_POINTS,
    TRICKS,
    QuintusRules,
    base_quintus,
    combo_in,
    contract_made,
    hand_scores,
    nil_points,
    teams_of,
)

AUCTION: Final = int(Phase.AUCTION)
TRUMP: Final = int(Phase.TRUMP)
NIL: Final = int(Phase.NIL)
PLAY: Final = int(Phase.PLAY)
MELD: Final = int(Phase.MELD)
OVER: Final = int(Phase.OVER)
_PHASE_NAMES: Final = PHASE_LABELS
_NEXT: Final = (1, 2, 3, 4, 0)
_SIGNALS: Final = (SIGNAL_UP, SIGNAL_DOWN, SIGNAL_ASK)
_ALL_BIDS: Final = tuple(range(BID_BASE, NUM_ACTIONS))
_TRUMPS: Final = tuple(range(TRUMP_BASE, TRUMP_NT + 1))
_NILS: Final = (NIL_NONE, NIL_NONE + 1, NIL_OPEN)
_COMBO_NAMES: Final = ("", "court", "straight")
_COMBO_MELD: Final = (0, MELD_COURT, MELD_STRAIGHT)
_COMBO_POINTS: Final = (0, COURT_POINTS, STRAIGHT_POINTS)
_PACK: Final = mask_cards(QUINTUS_PACK)
_new: Final = object.__new__
#: ``(seat, action)`` pairs by seat, then action (the history's shared tuples).
_SEAT_PAIRS: Final = tuple(_PAIRS[s << 8 : (s + 1) << 8] for s in range(SEATS))
#: ``(seat, signal name)`` by seat, then signal action.
_SIGNAL_PAIRS: Final = tuple(
    {a: (s, SIGNAL_NAMES[a - SIGNAL_UP]) for a in _SIGNALS} for s in range(SEATS)
)
#: Every seat but one, by that seat.
_OTHERS: Final = tuple(tuple(s for s in range(SEATS) if s != v) for v in range(SEATS))
#: The seats in play order from each leader.
_FROM: Final = tuple(tuple((leader + i) % 5 for i in range(SEATS)) for leader in range(SEATS))
#: The seats in a ``_passed`` bit set, by the set.
_PASSED: Final = tuple(tuple(s for s in range(SEATS) if p >> s & 1) for p in range(1 << SEATS))


def seat_name(seat: int) -> str:
    """Return ``seat 2``: how errors name a Quintus seat."""
    return f"seat {seat}"


#: ``teams_of(q)`` by the quintus's seat.
_TEAMS: Final = tuple(teams_of(q) for q in range(SEATS))
#: By the quintus's seat, then a seat: -1 the quintus, else the seat's team (0 or 1).
_SIDE: Final = tuple(
    tuple(-1 if s == q else 0 if s in _TEAMS[q][0] else 1 for s in range(SEATS))
    for q in range(SEATS)
)


class _Context:
    """What every copy of a hand shares and never changes."""

    __slots__ = ("bidding", "dealer", "rules", "snapshot", "variant")

    def __init__(self, rules: QuintusRules, dealer: int) -> None:
        self.rules = rules
        self.variant = rules.variant
        self.bidding = rules.variant == "bidding"
        self.dealer = dealer
        self.snapshot: QuintusState | None = None

    def fork(self) -> _Context:
        """Return a copy without the snapshot (for a state that gets a snapshot of its own)."""
        c = _new(_Context)
        c.rules = self.rules
        c.variant = self.variant
        c.bidding = self.bidding
        c.dealer = self.dealer
        c.snapshot = None
        return c


@dataclass(frozen=True)
class QuintusObservation(Observation):
    """A Quintus player's view: :class:`~quintet.game.Observation` plus the public table.

    ``quintus``, ``contract``, ``trump`` (``S``..``H`` or ``NT``) and ``nil`` are None
    until known; ``trick`` is the trick in progress as ``(seat, card)``; ``signals`` the
    signals given since the current trick began as ``(seat, signal name)``; ``meld`` the
    combination awaiting its winner's meld or decline; ``points`` the running card points
    ``(quintus, team 0, team 1)``; ``taken`` the cards each seat has won; ``high_bidder``
    the seat of ``high_bid``.
    """

    dealer: int = 0
    phase: str = "auction"
    quintus: int | None = None
    contract: int | None = None
    high_bid: int | None = None
    passed: tuple[int, ...] = ()
    trump: str | None = None
    nil: str | None = None
    trick: tuple[tuple[int, Card], ...] = ()
    tricks_played: int = 0
    signals: tuple[tuple[int, str], ...] = ()
    meld: str | None = None
    points: tuple[int, int, int] = (0, 0, 0)
    taken: tuple[CardMask, ...] = ()
    void: bool = False
    high_bidder: int | None = None

    @property
    def text(self) -> str:
        """The table as this player sees it (drawn from the fields when asked for)."""
        q = -1 if self.quintus is None else self.quintus
        nil = -1 if self.nil is None else NIL_NAMES.index(self.nil)
        bidder = self.high_bidder
        return _table(
            self.variant,
            self.dealer,
            self.hands,
            self.hand_sizes,
            PHASE_LABELS.index(self.phase),
            self.current_player,
            q,
            self.high_bid or 0,
            -1 if bidder is None else bidder,
            -1 if self.trump is None else TRUMP_NAMES.index(self.trump),
            nil,
            bool(nil > 0 and self.taken[q] & NIL_BREAKERS),
            self.points,
            self.tricks_played,
            _COMBO_NAMES.index(self.meld or ""),
            self.trick,
            self.signals,
            self.void,
        )


class QuintusState(HandState):
    """A hand of Quintus; implements :class:`quintet.game.GameState`.

    Seats 0..4 clockwise. The quintus plays alone against two teams: team 0 is
    {q+1, q+3}, team 1 is {q+2, q+4}. Signals may be given out of turn.
    """

    __slots__ = (
        "_base",
        "_bidder",
        "_forb",
        "_high",
        "_hist",
        "_htup",
        "_led",
        "_nil_failed",
        "_passed",
        "_pending",
        "_raw",
        "_signaled",
        "_sigs",
        "_tplayed",
        "_void",
        "ctx",
        "hands",
        "leader",
        "nil",
        "phase",
        "premiums",
        "quintus",
        "taken",
        "trick",
        "tricks_played",
        "trump",
        "turn",
    )

    game = "quintus"
    num_seats = SEATS
    LIST_SLOTS = ("_hist", "hands", "premiums", "taken", "trick")
    ACTION_KINDS = frozenset({"play", "pass", "bid", "trump", "nil", "meld", "decline", "signal"})
    TITLE = "Quintus"

    ctx: _Context
    phase: int
    turn: int
    quintus: int
    trump: int
    nil: int
    trick: list[Card]
    leader: int
    tricks_played: int
    taken: list[CardMask]
    premiums: list[int]
    _high: int
    _bidder: int
    _passed: int
    _led: int
    _tplayed: int
    _signaled: int
    #: The signals given since the current trick began, as ``(seat, signal name)``.
    _sigs: tuple[tuple[int, str], ...]
    _pending: int
    #: The card points and premiums so far (quintus, team 0, team 1), nil aside: kept as
    #: tricks end and melds are decided.
    _raw: tuple[int, int, int]
    _nil_failed: bool
    _void: bool

    # ----------------------------------------------------------------- creation

    @classmethod
    def new(cls, rules: QuintusRules, dealer: int, hands: Sequence[CardMask]) -> QuintusState:
        """Return a hand about to start (auction, or the quintus naming trump).

        Raises:
            ValueError: the deal is not the 40-card pack in five hands of 8, or the dealer
                is out of range.
        """
        if len(hands) != SEATS:
            raise ValueError(f"a Quintus deal has 5 hands, not {len(hands)}")
        seen = 0
        for i, m in enumerate(hands):
            if m.bit_count() != HAND_SIZE:
                raise ValueError(f"seat {i} is dealt {m.bit_count()} cards, not {HAND_SIZE}")
            if seen & m:
                raise ValueError(f"card {cards_str(seen & m)} is dealt twice")
            seen |= m
        if seen != QUINTUS_PACK:
            raise ValueError(
                f"the deal is not the Quintus pack: holds {cards_str(seen & ~QUINTUS_PACK)}"
                if seen & ~QUINTUS_PACK
                else "the deal is not the Quintus pack"
            )
        if not 0 <= dealer < SEATS:
            raise ValueError(f"dealer {dealer} is out of range 0..4")
        return cls._create(rules, dealer, list(hands))

    @classmethod
    def _create(cls, rules: QuintusRules, dealer: int, hands: list[CardMask]) -> QuintusState:
        ctx = _Context(rules, dealer)
        s = cls.__new__(cls)
        s.ctx = ctx
        s.hands = hands
        if ctx.bidding:
            s.phase = AUCTION
            s.quintus = -1
            s.turn = (dealer + 1) % 5
        else:
            s.phase = TRUMP
            s.quintus = s.turn = base_quintus(dealer)
        s._high = 0
        s._bidder = -1
        s._passed = 0
        s.trump = -1
        s.nil = -1
        s.trick = []
        s.leader = s.quintus
        s._led = -1
        s._tplayed = 0
        s._signaled = 0
        s.tricks_played = 0
        s.taken = [0, 0, 0, 0, 0]
        s.premiums = [0, 0, 0, 0, 0]
        s._pending = 0
        s._nil_failed = False
        s._void = False
        s._hist = []
        s._htup = ()
        s._forb = (0, 0, 0, 0, 0)
        s._base = None
        s._sigs = ()
        s._raw = (0, 0, 0)
        s._keep_snapshot()
        return s

    @classmethod
    def deal(cls, rules: QuintusRules, dealer: int, rng: random.Random) -> QuintusState:
        """Return a hand dealt at random with ``rng``: 8 cards to each seat."""
        if not 0 <= dealer < SEATS:
            raise ValueError(f"dealer {dealer} is out of range 0..4")
        return cls._create(rules, dealer, random_deal(rng))

    @classmethod
    def from_position(
        cls,
        hands: Sequence[CardMask],
        quintus: int,
        leader: int,
        trump: str = "NT",
        rules: QuintusRules | None = None,
        *,
        nil: str = "none",
        trick: Sequence[Card] = (),
        taken: Sequence[CardMask] | None = None,
        contract: int | None = None,
        premiums: Sequence[int] | None = None,
        first_trick: bool = False,
    ) -> QuintusState:
        """Return a position in trick play (for endgames, puzzles and the solver).

        ``hands`` are the cards still held, ``trick`` the cards played to the current
        trick led by ``leader``; ``taken`` the cards each seat has won so far. The
        number of tricks played is ``8 - cards the leader held at the lead``.

        Raises:
            ValueError: hand sizes that do not fit one position, a card given twice.
        """
        rules = rules or QuintusRules(variant="bidding" if contract else "base")
        seen = 0
        for m in [*hands, *(BIT[c] for c in trick), *(taken or ())]:
            if seen & m:
                raise ValueError(f"card {cards_str(seen & m)} given twice")
            seen |= m
        if len(hands) != SEATS or len(trick) > 4:
            raise ValueError("a position has 5 hands and at most 4 trick cards")
        left = hands[leader].bit_count() + (1 if trick else 0)
        for i in range(SEATS):
            seat = (leader + i) % 5
            want = left - 1 if i < len(trick) else left
            if hands[seat].bit_count() != want:
                raise ValueError(
                    f"seat {seat} holds {hands[seat].bit_count()} cards, expected {want}"
                )
        if not 1 <= left <= HAND_SIZE:
            raise ValueError("a hand holds 1 to 8 cards")
        ctx = _Context(rules, (quintus + 1) % 5)
        s = cls.__new__(cls)
        s.ctx = ctx
        s.hands = list(hands)
        s.phase = PLAY
        s.quintus = quintus
        s._high = contract or 0
        s._bidder = quintus if contract else -1
        s._passed = 0
        s.trump = TRUMP_NAMES.index(trump.upper())
        s.nil = NIL_NAMES.index(nil)
        s.trick = list(trick)
        s.leader = leader
        s._led = SUIT_OF[trick[0]] if trick else -1
        s.turn = (leader + len(trick)) % 5
        s._tplayed = 0
        for i in range(len(trick)):
            s._tplayed |= 1 << ((leader + i) % 5)
        s._signaled = 0
        s.tricks_played = TRICKS - left
        if first_trick:
            s.tricks_played = 0
        s.taken = list(taken) if taken is not None else [0] * SEATS
        s.premiums = list(premiums) if premiums is not None else [0] * SEATS
        s._pending = 0
        s._nil_failed = bool(s.nil > 0 and s.taken[quintus] & NIL_BREAKERS)
        s._void = False
        s._hist = []
        s._htup = ()
        s._forb = (0, 0, 0, 0, 0)
        s._base = None
        s._sigs = ()
        s._raw = s._count_points()
        s._keep_snapshot()
        return s

    # ------------------------------------------------------------ properties

    @property
    def rules(self) -> QuintusRules:
        """The rules this hand is played under."""
        return self.ctx.rules

    @property
    def dealer(self) -> int:
        """The dealer's seat."""
        return self.ctx.dealer

    @property
    def contract(self) -> int | None:
        """The quintus's bid once the auction is won (bidding variant), else None."""
        if not self.ctx.bidding or self.quintus < 0:
            return None
        return self._high

    @property
    def high_bid(self) -> int | None:
        """The highest bid so far in the auction, or None."""
        return self._high or None

    @property
    def high_bidder(self) -> int | None:
        """The seat that made the highest bid so far (the quintus once it has won the
        auction), or None."""
        return self._bidder if self._bidder >= 0 else None

    @property
    def void(self) -> bool:
        """Whether all five passed: the hand is void and the same dealer deals again."""
        return self._void

    @property
    def nil_failed(self) -> bool:
        """Whether the quintus declared nil and has won a J, Q, K or ace."""
        return self._nil_failed

    @property
    def pending_meld(self) -> str | None:
        """The combination awaiting its winner's meld or decline: court, straight or None."""
        return _COMBO_NAMES[self._pending] or None

    def trump_name(self) -> str | None:
        """Return the trump as a record writes it (``S``..``H``, ``NT``), or None."""
        return TRUMP_NAMES[self.trump] if self.trump >= 0 else None

    def nil_name(self) -> str | None:
        """Return the nil kind (``none``, ``closed``, ``open``), or None before it is declared."""
        return NIL_NAMES[self.nil] if self.nil >= 0 else None

    @property
    def quintus_seat(self) -> int | None:
        """The quintus's seat, None until known (``quintus`` is -1 then: the engine's own)."""
        return self.quintus if self.quintus >= 0 else None

    def teams(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """Return the two teams' seats; the quintus must be known."""
        return teams_of(self.quintus)

    # ------------------------------------------------------------ the protocol

    def current_player(self) -> int:
        """Return the seat to act on the main line, or TERMINAL."""
        return self.turn if self.phase != OVER else TERMINAL

    def controller(self, seat: int) -> int:
        """Return who decides for ``seat``: in Quintus every seat decides for itself."""
        return seat

    def is_terminal(self) -> bool:
        """Return whether the hand is over (last trick and its meld decision done, or void)."""
        return self.phase == OVER

    def _may_signal(self, seat: int) -> bool:
        return (
            self.phase == PLAY
            and seat != self.quintus
            and not (self._tplayed | self._signaled) >> seat & 1
        )

    def actors(self) -> tuple[int, ...]:
        """Return every seat with a legal action now, the seat to act first."""
        if self.phase == OVER:
            return ()
        if self.phase != PLAY:
            return (self.turn,)
        others = [s for s in range(SEATS) if s != self.turn and self._may_signal(s)]
        return (self.turn, *others)

    def legal_actions(self, seat: int | None = None) -> tuple[Action, ...]:
        """Return ``seat``'s legal actions now (default: the seat to act), in action order.

        In trick play the seat to act has its cards and, if it may, the three signals;
        another seat has only its signals.
        """
        phase = self.phase
        turn = self.turn
        if phase == PLAY:
            if seat is None or seat == turn:
                hand = self.hands[turn]
                if self.trick:
                    follow = suit_cards(hand, self._led)
                    cards = follow or mask_cards(hand)
                elif self.tricks_played == 0 and turn == self.quintus and self.trump < NT:
                    plain = hand & ~SUIT_MASK[self.trump]
                    cards = mask_cards(plain or hand)
                else:
                    cards = mask_cards(hand)
                if turn != self.quintus and not self._signaled >> turn & 1:
                    return cards + _SIGNALS
                return cards
            return _SIGNALS if self._may_signal(seat) else ()
        if seat is not None and seat != turn:
            return ()
        if phase == MELD:
            return (_COMBO_MELD[self._pending], DECLINE)
        if phase == AUCTION:
            low = max(30, self._high + 2)
            return (PASS, *_ALL_BIDS[(low - 30) // 2 :])
        if phase == TRUMP:
            return _TRUMPS
        if phase == NIL:
            return _NILS
        return ()

    def apply_action(self, action: Action, seat: int | None = None) -> None:
        """Apply a legal action of ``seat`` (default: the seat to act) without checking it."""
        if self.phase == PLAY:
            if action < 52:
                s = self.turn
                self.hands[s] ^= BIT[action]
                self._hist.append(_SEAT_PAIRS[s][action])
                t = self.trick
                if t:
                    led = self._led
                    if SUIT_OF[action] != led and not self._forb[s] & SUIT_MASK[led]:
                        self._forbid(s, SUIT_MASK[led])  # a void shown, for the first time
                else:
                    led = self._led = SUIT_OF[action]
                    if (
                        self.tricks_played == 0
                        and s == self.quintus
                        and self.trump < NT
                        and led == self.trump
                    ):
                        # The quintus led a trump to the first trick: he held only trumps.
                        self._forbid(s, QUINTUS_PACK & ~SUIT_MASK[led])
                t.append(action)
                self._tplayed |= 1 << s
                if len(t) < 5:
                    self.turn = _NEXT[s]
                else:
                    self._end_trick()
                return
            s = self.turn if seat is None else seat
            self._hist.append(_SEAT_PAIRS[s][action])
            self._signaled |= 1 << s
            self._sigs = (*self._sigs, _SIGNAL_PAIRS[s][action])
            return
        s = self.turn
        self._hist.append(_SEAT_PAIRS[s][action])
        phase = self.phase
        if phase == MELD:
            if action != DECLINE:
                pts = _COMBO_POINTS[self._pending]
                self.premiums[s] += pts
                self._score(s, pts, pts)
            self._pending = 0
            self.phase = OVER if self.tricks_played == TRICKS else PLAY
        elif phase == AUCTION:
            self._auction(s, action)
        elif phase == TRUMP:
            self.trump = action - TRUMP_BASE
            self.phase = NIL
        else:  # NIL
            self.nil = action - NIL_NONE
            self.phase = PLAY
            self.turn = self.leader = self.quintus

    def _auction(self, s: int, action: Action) -> None:
        if action == PASS:
            self._passed |= 1 << s
        else:
            self._high = bid_amount(action)
            self._bidder = s
        passes = self._passed.bit_count()
        if passes == SEATS:
            self._void = True
            self.phase = OVER
            return
        if passes == SEATS - 1 and self._bidder >= 0:
            self.quintus = self.turn = self.leader = self._bidder
            self.phase = TRUMP
            return
        n = _NEXT[s]
        while self._passed >> n & 1:
            n = _NEXT[n]
        self.turn = n

    def _end_trick(self) -> None:
        t = self.trick
        m = BIT[t[0]] | BIT[t[1]] | BIT[t[2]] | BIT[t[3]] | BIT[t[4]]
        trump = self.trump
        trumps = m & SUIT_MASK[trump] if trump < NT else 0
        best = (trumps or m & SUIT_MASK[self._led]).bit_length() - 1
        w = (self.leader + t.index(best)) % 5
        self.taken[w] |= m
        faces = (m & FACES).bit_count()
        pips = (m & PIPS).bit_count()
        qp, ta, tb = self._raw
        side = _SIDE[self.quintus][w]
        if side < 0:
            self._raw = (qp + 10 * faces - pips, ta, tb)
        elif side:
            self._raw = (qp, ta, tb + 5 * faces - pips)
        else:
            self._raw = (qp, ta + 5 * faces - pips, tb)
        self.tricks_played += 1
        if self.nil > 0 and w == self.quintus and m & NIL_BREAKERS:
            self._nil_failed = True
        self.trick = []
        self._tplayed = 0
        self._signaled = 0
        self._sigs = ()
        self.leader = self.turn = w
        combo = combo_in(m)
        if combo:
            self._pending = combo
            self.phase = MELD
        elif self.tricks_played == TRICKS:
            self.phase = OVER

    # --------------------------------------------------------------- scoring

    def points(self) -> tuple[int, int, int]:
        """Return the card points so far: (quintus, team 0, team 1), nil and premiums included.

        Nil bonuses count once the hand is over (a made nil) or as soon as it fails.
        """
        if self.nil > 0:
            return nil_points(
                self._raw, self.nil, self._nil_failed, self.phase == OVER, self.ctx.bidding
            )
        return self._raw

    def _score(self, seat: int, as_quintus: int, as_team: int) -> None:
        """Add points won by ``seat``: ``as_quintus`` if it is the quintus, else ``as_team``."""
        qp, ta, tb = self._raw
        side = _SIDE[self.quintus][seat]
        if side < 0:
            self._raw = (qp + as_quintus, ta, tb)
        elif side:
            self._raw = (qp, ta, tb + as_team)
        else:
            self._raw = (qp, ta + as_team, tb)

    def _count_points(self) -> tuple[int, int, int]:
        """Return the card points and premiums (quintus, team 0, team 1) from ``taken``."""
        q = self.quintus
        if q < 0:
            return (0, 0, 0)
        (a1, a2), (b1, b2) = _TEAMS[q]
        taken, prem = self.taken, self.premiums
        m = taken[q]
        qp = 10 * (m & FACES).bit_count() - (m & PIPS).bit_count() + prem[q]
        m = taken[a1] | taken[a2]
        ta = 5 * (m & FACES).bit_count() - (m & PIPS).bit_count() + prem[a1] + prem[a2]
        m = taken[b1] | taken[b2]
        tb = 5 * (m & FACES).bit_count() - (m & PIPS).bit_count() + prem[b1] + prem[b2]
        return qp, ta, tb

    def made(self) -> bool | None:
        """Return whether the contract is made (bidding variant, hand over), else None."""
        if not self.ctx.bidding or self.phase != OVER or self._void:
            return None
        return contract_made(self.points()[0], self._high)

    def scores(self) -> list[int]:
        """Return what each seat gains in this hand (base: card points; bidding: settlement).

        Before the hand is over this is the score if it ended now.
        """
        return hand_scores(self.ctx.bidding, self.quintus, self._high, self.points())

    def returns(self) -> list[float]:
        """Return each seat's score for the hand (see :meth:`scores`)."""
        return [float(x) for x in self.scores()]

    # ---------------------------------------------------------- checked input

    def _illegal(self, a: Action, seat: int) -> str | IllegalReason:
        """Return why ``seat`` may not take action ``a`` now (see ``illegal_reason``)."""
        who = seat_name(seat)
        phase = self.phase
        kind = action_type(a)
        if phase == OVER:
            return "the hand is void: all five passed" if self._void else "the hand is over"
        if kind == "signal":
            if phase == MELD:
                return (
                    f"{who} cannot signal while {seat_name(self.turn)} decides to meld or decline"
                )
            if phase != PLAY:
                return f"{who} cannot signal: signals are given during trick play only"
            if seat == self.quintus:
                return f"{who} is the quintus and may not signal"
            if self._tplayed >> seat & 1:
                return f"{who} has already played to this trick and may not signal"
            return f"{who} has already signalled in this trick"
        if phase == MELD:
            combo = _COMBO_NAMES[self._pending]
            if seat != self.turn:
                turn = seat_name(self.turn)
                return f"{turn} won the trick and must first meld or decline its {combo}"
            if kind == "meld":
                return f"the trick holds a {combo}, not a {action_str(a)[5:]}"
            return f"{who} must first meld or decline the trick's {combo}"
        if kind in ("meld", "decline"):
            return f"{who} cannot {kind}: there is no court or straight in the last trick to meld"
        if seat != self.turn:
            if phase == AUCTION and self._passed >> seat & 1:
                return f"{who} has passed and may not bid again"
            if phase in (TRUMP, NIL):
                return f"only the quintus ({seat_name(self.quintus)}) chooses trump and nil"
            return f"it is {seat_name(self.turn)}'s turn, not {who}'s"
        if phase == AUCTION:
            if kind == "bid":
                return f"{who} must bid more than {self._high}: bids rise"
            return f"{who} cannot {kind} during the auction: bid or pass"
        if kind in ("bid", "pass"):
            if not self.ctx.bidding:
                return f"{who} cannot {kind}: the base game has no auction"
            return f"{who} cannot {kind}: the auction is over"
        if phase == TRUMP:
            return f"{who} must first name trump (a suit or NT)"
        if phase == NIL:
            if kind == "trump":
                return f"{who} has already named trump"
            return f"{who} must declare nil (none, closed or open) first"
        if kind in ("trump", "nil"):
            return f"{who} cannot {kind} now: trick play has begun"
        if not QUINTUS_PACK >> a & 1:
            return f"{card_str(a)} is not in the Quintus pack"
        hand = self.hands[seat]
        if not hand >> a & 1:
            return IllegalReason(
                f"{who} does not hold {card_str(a)}; holds {cards_str(hand)}", hand
            )
        if self.trick:
            follow = hand & SUIT_MASK[self._led]
            return IllegalReason(
                f"{who} must follow {SUIT_NAMES[self._led]}; holds {cards_str(follow)}", follow
            )
        if self.tricks_played == 0 and seat == self.quintus and self.trump < NT:
            others = hand & ~SUIT_MASK[self.trump]
            return IllegalReason(
                "the quintus must lead the first trick with a non-trump card; holds "
                f"{cards_str(others)}",
                others,
            )
        return f"{who} cannot play {card_str(a)} now"

    # ------------------------------------------------------------ information

    def _hidden_seats(self, seat: int) -> tuple[int, ...]:
        if self.nil != 2 or seat == self.quintus:  # no open nil: each sees its own hand only
            return _OTHERS[seat]
        return super()._hidden_seats(seat)

    def visible_seats(self, viewer: int) -> tuple[int, ...]:
        """Return the seats whose hands ``viewer`` may see: its own, and an open-nil hand."""
        if self.nil == 2 and viewer != self.quintus:
            return (viewer, self.quintus)
        return (viewer,)

    def trick_pairs(self) -> tuple[tuple[int, Card], ...]:
        """Return the trick in progress as ``(seat, card)`` in play order."""
        return tuple(zip(_FROM[self.leader], self.trick, strict=False))

    def trick_signals(self) -> tuple[tuple[int, str], ...]:
        """Return the signals given since the current trick began, as ``(seat, name)``."""
        return self._sigs

    def _new_position(self) -> None:
        self._sigs = ()

    def private_view(
        self, seat: int
    ) -> tuple[tuple[CardMask | None, ...], tuple[tuple[int, Action], ...]]:
        """Return the hands ``seat`` may see and its legal actions: its observation's
        ``hands`` and ``legal_actions`` (the same code)."""
        held = self.hands
        q = self.quintus
        shown: list[CardMask | None] = [None, None, None, None, None]
        shown[seat] = held[seat]
        if self.nil == 2 and seat != q:  # an open nil: the quintus's hand is shown
            shown[q] = held[q]
        legal: tuple[tuple[int, Action], ...] = ()
        if self.phase != OVER:
            pairs = _SEAT_PAIRS[seat]
            acts = self.legal_actions(seat)
            if len(acts) > 1:
                legal = itemgetter(*acts)(pairs)
            elif acts:
                legal = (pairs[acts[0]],)
        return tuple(shown), legal

    def observation(self, seat: int) -> QuintusObservation:
        """Return what ``seat`` may see now."""
        # Built field by field into the frozen dataclass (its __init__ costs more than all
        # the rest); tests/test_views.py checks it against a plain construction.
        ctx = self.ctx
        held = self.hands
        phase = self.phase
        q = self.quintus
        shown: list[CardMask | None] = [None, None, None, None, None]
        shown[seat] = held[seat]
        if self.nil == 2 and seat != q:  # an open nil: the quintus's hand is shown
            shown[q] = held[q]
        hands = tuple(shown)
        sizes = (
            held[0].bit_count(),
            held[1].bit_count(),
            held[2].bit_count(),
            held[3].bit_count(),
            held[4].bit_count(),
        )
        legal: tuple[tuple[int, Action], ...] = ()
        if phase == OVER:
            current = TERMINAL
        else:
            current = self.turn
            pairs = _SEAT_PAIRS[seat]
            acts = self.legal_actions(seat)
            # One itemgetter call is cheaper than a loop (it returns a lone item bare).
            if len(acts) > 1:
                legal = itemgetter(*acts)(pairs)
            elif acts:
                legal = (pairs[acts[0]],)
        passed = _PASSED[self._passed]
        # zip without strict=: its keyword costs more than the rest of this line.
        trick = tuple(zip(_FROM[self.leader], self.trick)) if self.trick else ()  # noqa: B905
        signals = self.trick_signals()
        points = self._raw  # points(), inlined
        if self.nil > 0:
            points = nil_points(points, self.nil, self._nil_failed, phase == OVER, ctx.bidding)
        high = self._high
        contract = high if ctx.bidding and q >= 0 else None
        trump = TRUMP_NAMES[self.trump] if self.trump >= 0 else None
        nil = NIL_NAMES[self.nil] if self.nil >= 0 else None
        meld = _COMBO_NAMES[self._pending] or None
        history = self._htup
        if len(history) != len(self._hist):
            history = self._htup = tuple(self._hist)
        o = _new(QuintusObservation)
        d = o.__dict__
        d["game"] = "quintus"
        d["variant"] = ctx.variant
        d["viewer"] = seat
        d["hands"] = hands
        d["hand_sizes"] = sizes
        d["history"] = history
        d["current_player"] = current
        d["legal_actions"] = legal
        d["phase"] = _PHASE_NAMES[phase]
        d["dealer"] = ctx.dealer
        d["trick"] = trick
        d["tricks_played"] = self.tricks_played
        d["quintus"] = q if q >= 0 else None
        d["contract"] = contract
        d["high_bid"] = high or None
        d["passed"] = passed
        d["trump"] = trump
        d["nil"] = nil
        d["signals"] = signals
        d["meld"] = meld
        d["points"] = points
        d["taken"] = tuple(self.taken)
        d["void"] = self._void
        bidder = self._bidder
        d["high_bidder"] = bidder if bidder >= 0 else None
        return o

    def initial_cachette(self) -> None:
        """Return None: Quintus deals no cachette (Quinto's states return theirs)."""
        return None

    def events(self) -> list[Event]:
        """Return the public event log: every action, trick, premium and the result."""
        st = self.snapshot()
        out: list[Event] = []
        for seat, a in self.history():
            cards = [*st.trick, a] if is_play(a) else []
            played = st.tricks_played
            nil_failed = st._nil_failed
            st.apply_action(a, seat)
            out.append(Event("action", seat, a, text=f"seat {seat}: {action_str(a)}"))
            if st.tricks_played > played:
                w = st.leader
                m = 0
                for c in cards:
                    m |= BIT[c]
                out.append(
                    Event("trick", w, cards=m, text=f"seat {w} wins trick {st.tricks_played}")
                )
                if st._nil_failed and not nil_failed:
                    out.append(Event("nil", st.quintus, text="the quintus's nil fails"))
            if a in (MELD_COURT, MELD_STRAIGHT):
                pts = COURT_POINTS if a == MELD_COURT else STRAIGHT_POINTS
                out.append(Event("premium", seat, a, points=pts, text=f"seat {seat} melds {pts}"))
            if st.phase == OVER:
                if st._void:
                    out.append(Event("hand", text="all five passed: the hand is void"))
                else:
                    sc = tuple(st.scores())
                    out.append(Event("hand", st.quintus, values=sc, text=f"hand scores {sc}"))
        return out

    # --------------------------------------------------------------- display

    def render(self, viewer: int | None = None) -> str:
        """Return the table as text; ``viewer`` hides what that seat may not see."""
        held = self.hands
        if viewer is None:
            hands: tuple[CardMask | None, ...] = tuple(held)
        else:
            vis = self.visible_seats(viewer)
            hands = tuple(held[s] if s in vis else None for s in range(SEATS))
        return _table(
            self.ctx.variant,
            self.ctx.dealer,
            hands,
            tuple(m.bit_count() for m in held),
            self.phase,
            self.turn,
            self.quintus,
            self._high,
            self._bidder,
            self.trump,
            self.nil,
            self._nil_failed,
            self.points(),
            self.tricks_played,
            self._pending,
            self.trick_pairs(),
            self.trick_signals(),
            self._void,
        )

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"<QuintusState {_PHASE_NAMES[self.phase]} trick {self.tricks_played + 1}>"


def _table(
    variant: str,
    dealer: int,
    hands: tuple[CardMask | None, ...],
    sizes: tuple[int, ...],
    phase: int,
    turn: int,
    quintus: int,
    high: int,
    bidder: int,
    trump: int,
    nil: int,
    nil_failed: bool,
    points: tuple[int, int, int],
    tricks_played: int,
    pending: int,
    trick: tuple[tuple[int, Card], ...],
    signals: tuple[tuple[int, str], ...],
    void: bool,
) -> str:
    """Return the table as text: ``hands[s]`` is None for a hand the viewer cannot see.

    What :meth:`QuintusState.render` draws, from the values it needs: an observation draws
    the same from its own fields when its text is asked for (-1: no quintus, no bidder,
    trump or nil not chosen).
    """
    bidding = variant == "bidding"
    contract = high if bidding and quintus >= 0 else None
    head = f"Quintus ({variant})  dealer {dealer}"
    if quintus >= 0:
        head += f"  quintus {quintus}"
    if contract is not None:
        head += f"  contract {contract}"
    if trump >= 0:
        head += f"  trump {TRUMP_NAMES[trump]}"
    if nil > 0:
        head += f"  {NIL_NAMES[nil]} nil" + (" (failed)" if nil_failed else "")
    lines = [head]
    if quintus >= 0:
        qp, ta, tb = points
        (a1, a2), (b1, b2) = teams_of(quintus)
        lines.append(
            f"Points  quintus {qp}   team {a1}+{a2} {ta}   team {b1}+{b2} {tb}"
            f"   tricks played {tricks_played}"
        )
    for s in range(SEATS):
        tag = " (quintus)" if s == quintus else ""
        m = hands[s]
        body = hand_display(m) if m is not None else f"[{sizes[s]} cards]"
        lines.append(f"  seat {s}{tag:<10} {body}")
    if phase == AUCTION:
        what = f"high bid {high} by seat {bidder}" if bidder >= 0 else "no bid"
        lines.append(f"Auction: {what}; seat {turn} to bid")
    elif phase in (TRUMP, NIL):
        what = "trump" if phase == TRUMP else "nil"
        lines.append(f"The quintus (seat {quintus}) to choose {what}")
    elif phase == MELD:
        lines.append(f"Seat {turn} to meld or decline a {_COMBO_NAMES[pending] or None}")
    elif phase == PLAY:
        played = "  ".join(f"{s}:{card_display(c)}" for s, c in trick)
        sig = "  ".join(f"{s}:{n}" for s, n in signals)
        lines.append(
            f"Trick {tricks_played + 1}: {played or '-'}   seat {turn} to play"
            + (f"   signals {sig}" if sig else "")
        )
    elif void:
        lines.append("Hand void: all five passed")
    else:
        sc = hand_scores(bidding, quintus, high, points)
        made = None if not bidding else contract_made(points[0], high)
        res = "" if made is None else ("  contract made" if made else "  contract failed")
        lines.append(f"Hand over: scores {sc}{res}")
    return "\n".join(lines)


def random_deal(rng: random.Random) -> list[CardMask]:
    """Return five 8-card hands dealt from a shuffled 40-card pack."""
    r = rng.random
    keys = [r() for _ in _PACK]
    order = sorted(range(40), key=keys.__getitem__)
    hands = []
    for i in range(0, 40, 8):
        m = 0
        for k in order[i : i + 8]:
            m |= BIT[_PACK[k]]
        hands.append(m)
    return hands


__all__ = [
    "JOKER",
    "QuintusObservation",
    "QuintusState",
    "random_deal",
    "teams_of",
]
