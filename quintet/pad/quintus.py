"""The Quintus score pad: one entry per hand, the settlement worked out and shown.

Entries (JSON objects, by ``type``; the three *sides* of a hand are 0 the quintus,
1 team 0 = seats q+1 and q+3, 2 team 1 = seats q+2 and q+4):

- ``{"type": "hand", "trump": "H", "nil": "none", ...}`` with, in the bidding variant,
  ``"bid": 40, "bidder": 2``; then either ``"cards": [[...], [...], null]`` (the cards
  each side won; one ``null`` stands for the rest of the pack) or ``"points": [q, a, b]``
  (each side's card points as counted, before premiums and nil; with a nil declared, also
  ``"nil_failed"``); and ``"premiums": {"court": [q, a, b], "straight": [q, a, b]}``,
  the premiums each side melded.
- ``{"type": "void"}``: in the bidding variant, all five passed; the same dealer deals
  again and the hand does not count toward the session.

The arithmetic is the engine's (:mod:`quintet.quintus.rules`: ``quintus_card_points``,
``team_card_points``, ``nil_points``, ``hand_scores``, ``settlement``, ``contract_made``,
``base_quintus``, ``teams_of``; :func:`quintet.quintus.match.dealer_after`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any, ClassVar, Final

from quintet.actions import MAX_BID, MIN_BID, NIL_NAMES, TRUMP_NAMES
from quintet.cards import ACE, FIVE, JACK, KING, QUEEN, TEN, card, cards_str
from quintet.errors import InvalidCardError
from quintet.pad.base import JSON, Pad, only_fields
from quintet.pad.base import field as entry_field
from quintet.pad.errors import ImpossibleEntryError, InvalidEntryError, InvalidPadError
from quintet.quintus.match import dealer_after
from quintet.quintus.rules import (
    COURT_LOW,
    COURT_POINTS,
    FACES,
    NIL_BREAKERS,
    PIPS,
    SEATS,
    STRAIGHT_LOW,
    STRAIGHT_POINTS,
    TRICKS,
    QuintusRules,
    Settlement,
    base_quintus,
    contract_made,
    hand_scores,
    nil_points,
    quintus_card_points,
    settlement,
    team_card_points,
    teams_of,
)

#: Cards in a trick: each side's cards are whole tricks.
TRICK: Final = 5
PACK_SIZE: Final = SEATS * TRICKS
PREMIUMS: Final = ("court", "straight")
ACES: Final = sum(1 << card(ACE, s) for s in range(4))
_FACES_N: Final = FACES.bit_count()
_PIPS_N: Final = PIPS.bit_count()
_ACES_N: Final = ACES.bit_count()
_FACE_CARDS: Final = tuple(card(r, s) for s in range(4) for r in (JACK, QUEEN, KING))
_PIP_CARDS: Final = tuple(card(r, s) for s in range(4) for r in range(FIVE, TEN + 1))
_ACE_CARDS: Final = tuple(card(ACE, s) for s in range(4))


def side_names(quintus: int) -> tuple[str, str, str]:
    """Return how a hand's sides are named: the quintus and each team by its seats."""
    (a1, a2), (b1, b2) = teams_of(quintus)
    return (f"quintus (seat {quintus})", f"team {a1}&{a2}", f"team {b1}&{b2}")


def _pile(faces: int, pips: int, aces: int) -> int:
    """A set of cards with these counts (which ones does not change the points)."""
    m = 0
    for c in _FACE_CARDS[:faces] + _PIP_CARDS[:pips] + _ACE_CARDS[:aces]:
        m |= 1 << c
    return m


@cache
def _counts(side: int, points: int) -> tuple[tuple[int, int, int], ...]:
    """Every (faces, pips, aces) of whole tricks that the engine counts as ``points``."""
    count = quintus_card_points if side == 0 else team_card_points
    return tuple(
        (f, p, a)
        for f in range(_FACES_N + 1)
        for p in range(_PIPS_N + 1)
        for a in range(_ACES_N + 1)
        if (f + p + a) % TRICK == 0 and count(_pile(f, p, a)) == points
    )


def _fits(
    c: tuple[int, int, int], side: int, courts: int, straights: int, nil: int, failed: bool
) -> bool:
    f, p, a = c
    if f < 3 * courts or p < 5 * straights or (f + p + a) // TRICK < courts + straights:
        return False
    if side == 0 and nil > 0:
        return (f + a > 0) == failed
    return True


def points_problem(
    points: Sequence[int | None],
    nil: int,
    failed: bool,
    courts: Sequence[int],
    straights: Sequence[int],
    names: Sequence[str],
) -> str | None:
    """Return why no set of cards gives these card points with these premiums, else None.

    ``points[0]`` may be None (a failed nil in the bidding variant, where the quintus's
    cards do not count).
    """
    cands: list[list[tuple[int, int, int]]] = []
    for side in range(3):
        x = points[side]
        if x is None:
            pool = [
                (f, p, a)
                for f in range(_FACES_N + 1)
                for p in range(_PIPS_N + 1)
                for a in range(_ACES_N + 1)
                if (f + p + a) % TRICK == 0
            ]
        else:
            pool = list(_counts(side, x))
        if not pool:
            return (
                f"no set of whole tricks gives the {names[side]} {x} card points "
                f"(J Q K {'+10' if side == 0 else '+5'}, 5 to 10 -1, aces 0)"
            )
        fit = [c for c in pool if _fits(c, side, courts[side], straights[side], nil, failed)]
        if not fit:
            why = []
            if courts[side] or straights[side]:
                why.append(f"{courts[side]} court(s) and {straights[side]} straight(s)")
            if side == 0 and nil > 0:
                why.append("a failed nil" if failed else "a made nil (no J, Q, K or ace won)")
            return f"{x} card points for the {names[side]} do not fit with " + " and ".join(why)
        cands.append(fit)
    want = (_FACES_N, _PIPS_N, _ACES_N)
    third = set(cands[2])
    for c0 in cands[0]:
        for c1 in cands[1]:
            rest = tuple(w - x - y for w, x, y in zip(want, c0, c1, strict=True))
            if rest in third:
                return None
    shown = ", ".join(f"{n} {'?' if x is None else x}" for n, x in zip(names, points, strict=True))
    return (
        f"no deal of the {PACK_SIZE} cards gives {shown} together (all cards counted, the "
        f"three add up to {_PIPS_N * -1 + _FACES_N * 5} plus 5 for each J, Q or K the "
        f"quintus won)"
    )


@dataclass
class QuintusHandSheet:
    """One hand as the pad has it."""

    number: int
    dealer: int
    entry: int
    void: bool = False
    quintus: int = -1
    bid: int | None = None
    trump: str | None = None
    nil: str | None = None
    nil_failed: bool = False
    cards: tuple[int, int, int] | None = None
    raw: tuple[int | None, int, int] | None = None
    courts: tuple[int, int, int] = (0, 0, 0)
    straights: tuple[int, int, int] = (0, 0, 0)
    points: tuple[int, int, int] | None = None
    made: bool | None = None
    scores: list[int] = field(default_factory=lambda: [0] * SEATS)
    totals: list[int] = field(default_factory=lambda: [0] * SEATS)
    settlement: Settlement | None = None

    def premium_points(self) -> tuple[int, int, int]:
        """Return each side's premium points."""
        return tuple(  # type: ignore[return-value]
            c * COURT_POINTS + s * STRAIGHT_POINTS
            for c, s in zip(self.courts, self.straights, strict=True)
        )

    def to_json(self) -> JSON:
        """Return the hand as JSON (what a front end shows, the settlement worked out)."""
        out: JSON = {
            "number": self.number,
            "entry": self.entry,
            "dealer": self.dealer,
            "void": self.void,
            "quintus": None if self.void else self.quintus,
            "teams": None if self.void else [list(t) for t in teams_of(self.quintus)],
            "bid": self.bid,
            "trump": self.trump,
            "nil": self.nil,
            "nil_failed": self.nil_failed if self.nil not in (None, "none") else None,
            "cards": [cards_str(m).split() for m in self.cards] if self.cards else None,
            "card_points": list(self.raw) if self.raw else None,
            "premiums": {"court": list(self.courts), "straight": list(self.straights)},
            "points": list(self.points) if self.points else None,
            "made": self.made,
            "scores": list(self.scores),
            "totals": list(self.totals),
            "settlement": None,
        }
        st = self.settlement
        if st is not None:
            out["settlement"] = {
                "teams": list(st.teams),
                "clamped": list(st.clamped),
                "shares": [str(x) for x in st.shares],
                "s": st.s,
                "m": st.m,
                "payments": [list(p) for p in st.payments()],
                "formula": formula(st),
            }
        return out


def _num(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{float(x):.2f}"


def formula(st: Settlement) -> list[str]:
    """Return the settlement's steps with the hand's numbers filled in, and who pays whom."""
    a, b = st.teams
    ca, cb = st.clamped
    t = [f"{x}&{y}" for x, y in st.team_seats]
    lines = [f"card points: team {t[0]} {a}, team {t[1]} {b}"]
    if (ca, cb) != (a, b):
        lines.append(f"clamped at 0: {ca} and {cb}")
    if ca + cb == 0:
        lines.append(f"shares: {st.bid}/2 = {_num(st.shares[0])} each")
    else:
        lines.append(
            f"shares: {ca}/{ca + cb} x {st.bid} = {_num(st.shares[0])}, "
            f"{cb}/{ca + cb} x {st.bid} = {_num(st.shares[1])}"
        )
    lines.append(f"smaller share {_num(min(st.shares))} rounds to an even s = {st.s}")
    why = "more card points" if st.teams[st.m] != st.teams[st.low] else "a tie: q+1's team"
    lines.append(f"M = team {t[st.m]} ({why}), L = team {t[st.low]}")
    half, rest = st.s // 2, (st.bid - st.s) // 2
    if st.made:
        lines.append(
            f"bid {st.bid} made: each of M pays s/2 = {half}, each of L pays "
            f"({st.bid} - {st.s})/2 = {rest}; the quintus gains {st.bid}"
        )
    else:
        lines.append(
            f"bid {st.bid} failed: the quintus pays each of L s/2 = {half} and each of M "
            f"({st.bid} - {st.s})/2 = {rest}; he loses {st.bid}"
        )
    for payer, payee, amount in st.payments():
        lines.append(f"seat {payer} pays seat {payee} {amount}")
    return lines


@dataclass
class QuintusSheet:
    """What a Quintus pad's entries come to."""

    hands: list[QuintusHandSheet] = field(default_factory=list)

    @property
    def totals(self) -> list[int]:
        """Each seat's total."""
        return list(self.hands[-1].totals) if self.hands else [0] * SEATS

    def counted(self) -> int:
        """Return the hands that count toward the session (not void)."""
        return sum(1 for h in self.hands if not h.void)


class QuintusPad(Pad[QuintusSheet]):
    """A Quintus score pad: a session of hands, base game or bidding."""

    game: ClassVar[str] = "quintus"
    #: The entry form a front end draws (a contract, then cards or card points):
    #: ``view()['form']``.
    FORM: ClassVar[str] = "points"
    SEATS: ClassVar[int] = SEATS
    ENTRY_TYPES: ClassVar[tuple[str, ...]] = ("hand", "void")

    rules: QuintusRules

    @classmethod
    def rules_class(cls) -> type[QuintusRules]:
        """Return the engine's rules class."""
        return QuintusRules

    @classmethod
    def default_variant(cls) -> str:
        """Return the base game."""
        return "base"

    def _check_seats(self) -> None:
        if not 0 <= self.first_dealer < SEATS:
            raise InvalidPadError(f"the first dealer must be a seat 0..4, not {self.first_dealer}")
        if self.lone_seat is not None:
            raise InvalidPadError("Quintus has no lone seat")

    def seat_names(self) -> tuple[str, ...]:
        """Return seat 0 .. seat 4."""
        return tuple(f"seat {s}" for s in range(SEATS))

    @property
    def bidding(self) -> bool:
        """Whether an auction chooses the quintus."""
        return self.rules.variant == "bidding"

    def next_dealer(self, sheet: QuintusSheet | None = None) -> int:
        """Return the dealer of the next hand."""
        sheet = sheet or self._computed
        if not sheet.hands:
            return self.first_dealer
        last = sheet.hands[-1]
        return dealer_after(last.dealer, last.void)

    def over_reason(self, sheet: QuintusSheet | None = None) -> str | None:
        """Return why no more hands are entered (the session is over), else None."""
        sheet = sheet or self._computed
        if sheet.counted() >= self.rules.hands:
            return f"the session of {self.rules.hands} hands is over"
        return None

    def _replay(self, entries: list[JSON]) -> tuple[list[JSON], QuintusSheet]:
        sheet = QuintusSheet()
        written = []
        for i, e in enumerate(entries):
            try:
                reason = self.over_reason(sheet)
                if reason:
                    raise ImpossibleEntryError(reason)
                hand = QuintusHandSheet(len(sheet.hands), self.next_dealer(sheet), i)
                out = self._apply(hand, e)
            except (InvalidEntryError, ImpossibleEntryError) as err:
                raise err.at(i) from None
            totals = sheet.totals
            hand.totals = [t + x for t, x in zip(totals, hand.scores, strict=True)]
            sheet.hands.append(hand)
            written.append(out)
        return written, sheet

    def _apply(self, hand: QuintusHandSheet, e: Mapping[str, Any]) -> JSON:
        n = hand.number + 1
        if e["type"] == "void":
            only_fields(e, ())
            if not self.bidding:
                raise ImpossibleEntryError(
                    "a void hand (all five passed) happens only in the bidding variant"
                )
            hand.void = True
            return {"type": "void"}
        only_fields(
            e, ("trump", "nil", "bid", "bidder", "cards", "points", "nil_failed", "premiums")
        )
        trump = entry_field(e, "trump", str)
        if trump.upper() == "SA":
            trump = "NT"
        trump = trump.upper()
        if trump not in TRUMP_NAMES:
            raise InvalidEntryError(f"'trump' is one of {', '.join(TRUMP_NAMES)}, not {trump!r}")
        nil = entry_field(e, "nil", str, choices=NIL_NAMES, default="none")
        out: JSON = {"type": "hand", "trump": trump, "nil": nil}
        if self.bidding:
            bid = entry_field(e, "bid", int)
            bidder = entry_field(e, "bidder", int, choices=range(SEATS))
            if bid % 2 or not MIN_BID <= bid <= MAX_BID:
                raise ImpossibleEntryError(
                    f"a bid is an even number from {MIN_BID} to {MAX_BID}, not {bid}"
                )
            hand.bid, hand.quintus = bid, bidder
            out["bid"], out["bidder"] = bid, bidder
        else:
            for name in ("bid", "bidder"):
                if e.get(name) is not None:
                    raise ImpossibleEntryError(
                        f"the base game has no auction: the quintus of hand {n} is the "
                        f"dealer's right-hand player, seat {base_quintus(hand.dealer)}"
                    )
            hand.quintus = base_quintus(hand.dealer)
        hand.trump, hand.nil = trump, nil
        names = side_names(hand.quintus)
        courts, straights = self._premiums(e.get("premiums"))
        if courts != (0, 0, 0) or straights != (0, 0, 0):
            out["premiums"] = {"court": list(courts), "straight": list(straights)}
        for kind, counts in (("courts", courts), ("straights", straights)):
            if sum(counts) > 4:
                raise ImpossibleEntryError(f"{sum(counts)} {kind}: the pack has four suits")
        nil_index = NIL_NAMES.index(nil)
        has_cards, has_points = e.get("cards") is not None, e.get("points") is not None
        if has_cards == has_points:
            raise InvalidEntryError(
                "a hand entry gives either 'cards' (each side's) or 'points' (each side's "
                "card points)"
            )
        given_failed = e.get("nil_failed")
        if given_failed is not None and not isinstance(given_failed, bool):
            raise InvalidEntryError(f"'nil_failed' is true or false, not {given_failed!r}")
        if nil == "none" and given_failed:
            raise ImpossibleEntryError("no nil was declared, so none can fail")
        raw: tuple[int | None, int, int]
        if has_cards:
            piles = self._piles(e["cards"], names)
            failed = nil_index > 0 and bool(piles[0] & NIL_BREAKERS)
            if given_failed is not None and nil_index > 0 and given_failed != failed:
                held = cards_str(piles[0] & NIL_BREAKERS)
                raise ImpossibleEntryError(
                    f"nil_failed is {str(given_failed).lower()} but the quintus's cards "
                    + (f"hold {held}: his nil failed" if failed else "hold no J, Q, K or ace")
                )
            for side in range(3):
                self._check_premiums(piles[side], courts[side], straights[side], names[side])
            raw = (
                quintus_card_points(piles[0]),
                team_card_points(piles[1]),
                team_card_points(piles[2]),
            )
            hand.cards = piles
            out["cards"] = [cards_str(m).split() for m in piles]
        else:
            pts = entry_field(e, "points", list)
            if len(pts) != 3:
                raise InvalidEntryError(
                    "'points' is three card points: the quintus's and each team's"
                )
            if nil_index > 0 and given_failed is None:
                raise InvalidEntryError(
                    f"with a {nil} nil and points (not cards), say whether it failed: 'nil_failed'"
                )
            failed = bool(given_failed)
            quintus_ignored = self.bidding and failed
            for k, x in enumerate(pts):
                if x is None and k == 0 and quintus_ignored:
                    continue
                if isinstance(x, bool) or not isinstance(x, int):
                    raise InvalidEntryError(f"card points are whole numbers, not {x!r}")
            problem = points_problem(pts, nil_index, failed, courts, straights, names)
            if problem:
                raise ImpossibleEntryError(problem)
            raw = (pts[0], pts[1], pts[2])
            out["points"] = list(pts)
            if nil_index > 0:
                out["nil_failed"] = failed
        hand.nil_failed = failed
        hand.raw = raw
        hand.courts, hand.straights = courts, straights
        prem = hand.premium_points()
        base = (raw[0] or 0) + prem[0], raw[1] + prem[1], raw[2] + prem[2]
        points = nil_points(base, nil_index, failed, True, self.bidding)
        hand.points = points
        bid = hand.bid or 0
        hand.scores = hand_scores(self.bidding, hand.quintus, bid, points)
        if self.bidding:
            hand.made = contract_made(points[0], bid)
            hand.settlement = settlement(
                bid, hand.made, (points[1], points[2]), teams_of(hand.quintus), hand.quintus
            )
        return out

    def _premiums(self, value: object) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        if value is None:
            return (0, 0, 0), (0, 0, 0)
        if not isinstance(value, Mapping) or set(value) - set(PREMIUMS):
            raise InvalidEntryError(
                '\'premiums\' is {"court": [q, a, b], "straight": [q, a, b]}: the premiums '
                "each side melded"
            )
        out = []
        for name in PREMIUMS:
            counts = value.get(name) or [0, 0, 0]
            if (
                not isinstance(counts, list)
                or len(counts) != 3
                or any(isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in counts)
            ):
                raise InvalidEntryError(
                    f"'premiums' {name!r} is three counts (quintus, team, team), not {counts!r}"
                )
            out.append((counts[0], counts[1], counts[2]))
        return out[0], out[1]

    def _piles(self, value: object, names: Sequence[str]) -> tuple[int, int, int]:
        from quintet.cards import QUINTUS_PACK, parse_card

        if not isinstance(value, list) or len(value) != 3:
            raise InvalidEntryError(
                "'cards' is three lists of cards: the quintus's and each team's (null for the rest)"
            )
        if sum(1 for x in value if x is None) > 1:
            raise InvalidEntryError("only one side's cards can be 'the rest' (null)")
        piles: list[int | None] = []
        seen = 0
        for side, listed in enumerate(value):
            if listed is None:
                piles.append(None)
                continue
            if not isinstance(listed, list):
                raise InvalidEntryError(f"the {names[side]}'s cards are a list, not {listed!r}")
            m = 0
            for text in listed:
                try:
                    c = parse_card(text) if isinstance(text, str) else -1
                except InvalidCardError:
                    c = -1
                if c < 0 or not QUINTUS_PACK >> c & 1:
                    raise InvalidEntryError(f"{text!r} is not a card of the Quintus pack")
                if (m | seen) >> c & 1:
                    raise ImpossibleEntryError(f"card {cards_str(1 << c)} is entered twice")
                m |= 1 << c
            seen |= m
            piles.append(m)
        rest = QUINTUS_PACK & ~seen
        full = [rest if m is None else m for m in piles]
        if None not in piles and rest:
            raise ImpossibleEntryError(
                f"the three sides hold {seen.bit_count()} of the {PACK_SIZE} cards: "
                f"missing {cards_str(rest)}"
            )
        for side, m in enumerate(full):
            if m.bit_count() % TRICK:
                raise ImpossibleEntryError(
                    f"the {names[side]} won {m.bit_count()} cards: tricks are {TRICK} cards each"
                )
        return full[0], full[1], full[2]

    def _check_premiums(self, pile: int, courts: int, straights: int, name: str) -> None:
        have_c = sum(1 for s in range(4) if pile >> COURT_LOW[s] & 7 == 7)
        have_s = sum(1 for s in range(4) if pile >> STRAIGHT_LOW[s] & 0x1F == 0x1F)
        if courts > have_c:
            raise ImpossibleEntryError(
                f"the {name} melded {courts} court(s) but hold J Q K of {have_c} suit(s)"
            )
        if straights > have_s:
            raise ImpossibleEntryError(
                f"the {name} melded {straights} straight(s) but hold 5 to 9 of {have_s} suit(s)"
            )
        if courts + straights > pile.bit_count() // TRICK:
            raise ImpossibleEntryError(
                f"the {name} won {pile.bit_count() // TRICK} trick(s), too few for "
                f"{courts + straights} premiums (one a trick)"
            )

    # ------------------------------------------------------------------ reading

    def offers(self) -> JSON:
        """Return what the next entry is: the hand's dealer and quintus, or why none."""
        reason = self.over_reason()
        if reason:
            return {"over": reason}
        d = self.next_dealer()
        return {
            "over": None,
            "hand": len(self._computed.hands),
            "dealer": d,
            "quintus": None if self.bidding else base_quintus(d),
            "bidding": self.bidding,
            "bids": [MIN_BID, MAX_BID] if self.bidding else None,
            "trumps": list(TRUMP_NAMES),
            "nils": list(NIL_NAMES),
        }

    def view(self) -> JSON:
        """Return the pad's figures, what comes next and the status line, as JSON."""
        sheet = self._computed
        return {
            "game": self.game,
            "form": self.FORM,
            "variant": self.variant,
            "hands": [h.to_json() for h in sheet.hands],
            "totals": sheet.totals,
            "counted": sheet.counted(),
            "session": self.rules.hands,
            "offers": self.offers(),
            "status": self.status(),
        }

    def score_summary(self) -> JSON:
        """Return the scores in the scorer's shape (``quintet score``)."""
        hands: list[JSON] = []
        for h in self._computed.hands:
            if h.void:
                hands.append(
                    {
                        "dealer": h.dealer,
                        "quintus": None,
                        "contract": None,
                        "trump": None,
                        "nil": None,
                        "points": None,
                        "made": None,
                        "score": [0] * SEATS,
                    }
                )
                continue
            assert h.points is not None
            hands.append(
                {
                    "dealer": h.dealer,
                    "quintus": h.quintus,
                    "contract": h.bid,
                    "trump": h.trump,
                    "nil": h.nil,
                    "points": {"quintus": h.points[0], "teams": [h.points[1], h.points[2]]},
                    "made": h.made,
                    "score": list(h.scores),
                }
            )
        return {
            "game": self.game,
            "complete": True,
            "hands": hands,
            "totals": self._computed.totals,
        }

    def hand_groups(self) -> list[tuple[str, list[int]]]:
        """Return each hand's heading and the indices of its entries, in order."""
        return [
            (f"- hand {h.number + 1}, {self.seat_label(h.dealer)} deals", [h.entry])
            for h in self._computed.hands
        ]

    def status(self) -> str:
        """Return one line: where the pad stands and what is entered next."""
        sheet = self._computed
        tot = ", ".join(f"{self.seat_label(s)} {x}" for s, x in enumerate(sheet.totals))
        reason = self.over_reason()
        if reason:
            best = max(sheet.totals)
            won = " and ".join(self.seat_label(s) for s, x in enumerate(sheet.totals) if x == best)
            return f"The session is over: {won} won. Totals: {tot}."
        d = self.next_dealer()
        who = (
            "the auction decides the quintus"
            if self.bidding
            else f"the quintus is {self.seat_label(base_quintus(d))}"
        )
        return (
            f"Hand {sheet.counted() + 1} of {self.rules.hands}: {self.seat_label(d)} deals, "
            f"{who}. Totals: {tot}."
        )
