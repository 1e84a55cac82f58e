"""The Quinto score pad: doubling, quints as they fall, the cachette and the tricks.

Entries (JSON objects, by ``type``; sides are 0 = N-S, 1 = E-W):

- ``{"type": "doubling", "level": "doubled", "by": 1}``: the hand's doubling round
  (``level`` ``none``, ``doubled`` or ``redoubled``; ``by`` the side that doubled, the
  other side redoubled). Only as a hand's first entry; no entry means nobody doubled.
- ``{"type": "quint", "quint": "AH+4H", "side": 0}``: a quint falls in a trick won by
  ``side`` (``"quints": [...]`` for several in one trick: they score together); when it
  brings that side to the target the game is won there and then.
- ``{"type": "broken", "pair": "AH+4H"}``: one card of a pair fell without the other,
  so that pair can no longer be a quint in this hand (optional; the pad then stops
  offering it).
- ``{"type": "cachette", "side": 1, "quints": ["5S"]}``: who won the 12th trick and took
  the cachette, and the quints in it.
- ``{"type": "tricks", "tricks": [7, 6]}``: tricks won by each side, the cachette
  counted as one (13 in all); the trick points are added and the hand ends.

All the arithmetic is the engine's: :mod:`quintet.quinto.rules` (quint values,
``score_quints``, ``count_tricks``, ``is_tie``) and :mod:`quintet.quinto.match` (the deal
rotation, a game's starting score, the lone seat's rotation, the rubber and its summary).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar, Final

from quintet.actions import DOUBLE, PASS, REDOUBLE
from quintet.cards import mask_cards
from quintet.pad.base import JSON, Pad, only_fields, side_field
from quintet.pad.base import field as entry_field
from quintet.pad.errors import ImpossibleEntryError, InvalidEntryError, InvalidPadError
from quintet.quinto.match import (
    GameResult,
    dealer_after,
    match_winner,
    new_game_score,
    next_lone_seat,
    rubber_total,
    summary,
)
from quintet.quinto.rules import (
    QUINTS,
    SEAT_NAMES,
    SIDE_NAMES,
    TRICKS,
    Quint,
    QuintoRules,
    count_tricks,
    is_tie,
    quint_points,
    score_quints,
    trick_points,
)
from quintet.quinto.state import DOUBLING, QuintoState

LEVELS: Final = ("none", "doubled", "redoubled")
MULTIPLIER: Final = {"none": 1, "doubled": 2, "redoubled": 4}
#: Tricks in a hand, the cachette counted as one.
ALL_TRICKS: Final = TRICKS + 1
#: Cards the cachette holds.
CACHETTE: Final = 5
#: Cards in a trick.
TRICK_CARDS: Final = 4
QUINT_BY_CODE: Final = {q.code: q for q in QUINTS}
_BY_MASK: Final = {q.mask: q for q in QUINTS}
PAIRS: Final = tuple(q.code for q in QUINTS if q.mask.bit_count() == 2)


def find_quint(text: object) -> Quint:
    """Return the quint a pad names: ``5H``, ``AH+4H`` (either order, either case), ``JK``.

    Raises:
        InvalidEntryError: not the name of a quint.

    >>> find_quint("4h+ah").code, find_quint("JK").value
    ('AH+4H', 25)
    """
    from quintet.cards import parse_mask
    from quintet.errors import InvalidCardError

    if isinstance(text, str):
        try:
            q = _BY_MASK.get(parse_mask(text.replace("+", " ")))
        except InvalidCardError:
            q = None
        if q is not None:
            return q
    raise InvalidEntryError(
        f"{text!r} is not a quint (the quints: {', '.join(q.code for q in QUINTS)})"
    )


@cache
def doubling_outcomes(dealer: int, lone_seat: int | None) -> tuple[tuple[int, int | None], ...]:
    """Return every ``(multiplier, side that doubled)`` a doubling round can end in.

    Found by playing every doubling round through the engine (so a double the dealer
    makes, which nobody can redouble, is ruled out where it must be).
    """
    variant = "partnership" if lone_seat is None else "dummy"
    hands = [((1 << 12) - 1) << (12 * s) for s in range(4)]
    state = QuintoState.new(
        QuintoRules(variant=variant), dealer, hands, ((1 << 5) - 1) << 48, lone_seat=lone_seat
    )
    found: set[tuple[int, int | None]] = set()

    def walk(s: QuintoState) -> None:
        if s.phase != DOUBLING:
            found.add((s.multiplier, s.doubled_by))
            return
        for a in s.legal_actions():
            if a in (PASS, DOUBLE, REDOUBLE):
                c = s.clone()
                c.apply_action(a)
                walk(c)

    walk(state)
    return tuple(sorted(found, key=lambda x: (x[0], -1 if x[1] is None else x[1])))


@dataclass
class PadQuint:
    """A quint entered: which, for which side, at which entry, and the score after it."""

    quint: Quint
    side: int
    entry: int
    score: tuple[int, int]

    def to_json(self) -> JSON:
        """Return it as JSON."""
        q = self.quint
        return {
            "quint": q.code,
            "name": q.name,
            "value": q.value,
            "side": self.side,
            "entry": self.entry,
            "score": list(self.score),
        }


@dataclass
class QuintoHandSheet:
    """One hand as the pad has it: who dealt, the doubling, the quints, the end."""

    number: int
    game: int
    dealer: int
    lone_seat: int | None
    start: tuple[int, int]
    score: list[int]
    multiplier: int = 1
    doubled_by: int | None = None
    quints: list[PadQuint] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)
    cachette_side: int | None = None
    cachette_quints: list[PadQuint] = field(default_factory=list)
    cachette_points: int = 0
    tricks: tuple[int, int] | None = None
    trick_points: tuple[int, int] | None = None
    winner: int | None = None
    over: bool = False
    entries: list[int] = field(default_factory=list)
    #: What ended the game in this hand: the quint (or the cachette) reaching the target.
    ended_by: str | None = None

    @property
    def tied(self) -> bool:
        """Whether the hand ended level at or past the target (another hand follows)."""
        return self.over and self.winner is None and self.tied_at is not None

    tied_at: int | None = None

    def quint_points(self) -> tuple[int, int]:
        """Return each side's quints in this hand (the cachette's included)."""
        q = [0, 0]
        for p in (*self.quints, *self.cachette_quints):
            q[p.side] += p.quint.value
        return q[0], q[1]

    def used(self) -> int:
        """Return the cards the hand's quints and broken pairs account for, as a mask."""
        m = 0
        for p in (*self.quints, *self.cachette_quints):
            m |= p.quint.mask
        for code in self.broken:
            m |= QUINT_BY_CODE[code].mask
        return m

    def to_json(self) -> JSON:
        """Return the hand as JSON."""
        return {
            "number": self.number,
            "game": self.game,
            "dealer": self.dealer,
            "lone_seat": self.lone_seat,
            "start": list(self.start),
            "multiplier": self.multiplier,
            "doubled_by": self.doubled_by,
            "quints": [p.to_json() for p in self.quints],
            "broken": list(self.broken),
            "cachette": None
            if self.cachette_side is None
            else {
                "side": self.cachette_side,
                "quints": [p.to_json() for p in self.cachette_quints],
                "points": self.cachette_points,
            },
            "tricks": list(self.tricks) if self.tricks else None,
            "trick_points": list(self.trick_points) if self.trick_points else None,
            "score": list(self.score),
            "winner": self.winner,
            "tied": self.tied,
            "over": self.over,
            "ended_by": self.ended_by,
            "entries": list(self.entries),
        }


@dataclass
class QuintoGameSheet:
    """One game: its lone seat (dummy), starting score and hands."""

    index: int
    lone_seat: int | None
    start: tuple[int, int]
    hands: list[QuintoHandSheet] = field(default_factory=list)

    @property
    def score(self) -> tuple[int, int]:
        """The game score per side as it stands."""
        if not self.hands:
            return self.start
        s = self.hands[-1].score
        return s[0], s[1]

    @property
    def winner(self) -> int | None:
        """The side that won the game, or None."""
        return self.hands[-1].winner if self.hands else None

    def result(self) -> GameResult:
        """Return the engine's record of the game."""
        return GameResult(self.score, self.winner, len(self.hands))


@dataclass
class QuintoSheet:
    """What a Quinto pad's entries come to."""

    games: list[QuintoGameSheet] = field(default_factory=list)

    @property
    def hands(self) -> list[QuintoHandSheet]:
        """Every hand, in order."""
        return [h for g in self.games for h in g.hands]

    @property
    def current(self) -> QuintoHandSheet | None:
        """The last hand begun, or None."""
        return self.games[-1].hands[-1] if self.games and self.games[-1].hands else None


class QuintoPad(Pad[QuintoSheet]):
    """A Quinto score pad: a rubber (partnership), or dummy games one after another."""

    game: ClassVar[str] = "quinto"
    #: The entry form a front end draws (tricks and quints as they fall): ``view()['form']``.
    FORM: ClassVar[str] = "quints"
    SEATS: ClassVar[int] = 4
    ENTRY_TYPES: ClassVar[tuple[str, ...]] = ("doubling", "quint", "broken", "cachette", "tricks")

    rules: QuintoRules

    @classmethod
    def rules_class(cls) -> type[QuintoRules]:
        """Return the engine's rules class."""
        return QuintoRules

    @classmethod
    def default_variant(cls) -> str:
        """Return the partnership variant."""
        return "partnership"

    def _check_seats(self) -> None:
        if not 0 <= self.first_dealer < 4:
            raise InvalidPadError(f"the first dealer must be a seat 0..3, not {self.first_dealer}")
        if self.rules.variant == "dummy":
            if self.lone_seat is None or not 0 <= self.lone_seat < 4:
                raise InvalidPadError("a dummy pad needs the lone player's seat 0..3")
            self.first_dealer = self.lone_seat  # the lone player deals first
        elif self.lone_seat is not None:
            raise InvalidPadError("only the dummy variant has a lone seat")

    def seat_names(self) -> tuple[str, ...]:
        """Return North, East, South, West."""
        return SEAT_NAMES

    @property
    def dummy(self) -> bool:
        """Whether this is the three-player game (a series of dummy games)."""
        return self.rules.variant == "dummy"

    def side_label(self, side: int, lone_seat: int | None = None) -> str:
        """Return ``N-S``/``E-W``, with the players' names, marked ``lone`` in the dummy game."""
        name = SIDE_NAMES[side]
        if self.players:
            seats = [s for s in (side, side + 2) if s != _dummy_of(lone_seat)]
            name += " (" + " & ".join(self.players[s] for s in seats) + ")"
        if lone_seat is not None and lone_seat & 1 == side:
            name += " lone"
        return name

    # --------------------------------------------------------------- replaying

    def over_reason(self, sheet: QuintoSheet) -> str | None:
        """Return why no more hands are played (the rubber is decided), else None."""
        if self.dummy or not sheet.games:
            return None
        w = match_winner([g.result() for g in sheet.games], False)
        if w is None:
            return None
        won = sum(1 for g in sheet.games if g.winner == w)
        lost = sum(1 for g in sheet.games if g.winner == 1 - w)
        return f"the rubber is over: {SIDE_NAMES[w]} won it {won} games to {lost}"

    def _new_hand(self, sheet: QuintoSheet) -> QuintoHandSheet:
        reason = self.over_reason(sheet)
        if reason:
            raise ImpossibleEntryError(reason)
        last = sheet.current
        if last is None or last.winner is not None:
            if last is None:
                lone, dealer = self.lone_seat, self.first_dealer
            elif self.dummy:
                assert last.lone_seat is not None
                lone = next_lone_seat(last.lone_seat)
                dealer = lone
            else:
                lone, dealer = None, dealer_after(last.dealer, None)
            start = new_game_score(lone, self.rules.dummy_handicap)
            sheet.games.append(QuintoGameSheet(len(sheet.games), lone, start))
            score = start
        else:
            lone = last.lone_seat
            dealer = dealer_after(last.dealer, lone)
            score = (last.score[0], last.score[1])
        game = sheet.games[-1]
        hand = QuintoHandSheet(
            len(sheet.hands), game.index, dealer, lone, score, [score[0], score[1]]
        )
        game.hands.append(hand)
        return hand

    def _replay(self, entries: list[JSON]) -> tuple[list[JSON], QuintoSheet]:
        sheet = QuintoSheet()
        written: list[JSON] = []
        for i, raw in enumerate(entries):
            try:
                hand = sheet.current
                if hand is None or hand.over:
                    hand = self._new_hand(sheet)
                entry = self._apply(hand, raw, i)
            except (InvalidEntryError, ImpossibleEntryError) as e:
                raise e.at(i) from None
            hand.entries.append(i)
            written.append(entry)
        return written, sheet

    def _apply(self, hand: QuintoHandSheet, e: Mapping[str, Any], i: int) -> JSON:
        kind = e["type"]
        where = f"hand {hand.number + 1}"
        if kind == "doubling":
            only_fields(e, ("level", "by"))
            level = entry_field(e, "level", str, choices=LEVELS)
            by = None if level == "none" else side_field(e, "by")
            if hand.entries:
                raise ImpossibleEntryError(
                    f"the doubling round comes first: {where} already has entries"
                )
            mult = MULTIPLIER[level]
            if (mult, by) not in doubling_outcomes(hand.dealer, hand.lone_seat):
                raise ImpossibleEntryError(
                    f"{SIDE_NAMES[by or 0]} cannot be {level} in {where}: "
                    f"{SEAT_NAMES[hand.dealer]} deals, and "
                    + _doubling_words(doubling_outcomes(hand.dealer, hand.lone_seat))
                )
            hand.multiplier, hand.doubled_by = mult, by
            return _clean({"type": kind, "level": level, "by": by})
        if kind == "quint":
            only_fields(e, ("quint", "quints", "side"))
            qs = _quint_list(e)
            side = side_field(e)
            self._check_trick_phase(hand, f"the {qs[0].name} quint")
            mask = 0
            for q in qs:
                self._check_free(hand, q)
                mask |= q.mask
            if mask.bit_count() > TRICK_CARDS:
                raise ImpossibleEntryError(
                    f"a trick holds {TRICK_CARDS} cards; these quints need "
                    f"{mask.bit_count()}: {' '.join(_card_names(mask))}"
                )
            # A trick's quints score together, the moment it is won (the engine's rule).
            won = score_quints(hand.score, side, quint_points(mask), self.rules.target)
            after = (hand.score[0], hand.score[1])
            hand.quints.extend(PadQuint(q, side, i, after) for q in qs)
            if won:
                self._game_won(hand, side, "quint")
            return {"type": kind, "quints": [q.code for q in qs], "side": side}
        if kind == "broken":
            only_fields(e, ("pair",))
            q = find_quint(entry_field(e, "pair", str))
            if q.code not in PAIRS:
                raise InvalidEntryError(
                    f"{q.name} is not a pair: only an A+4 or 2+3 pair can be broken"
                )
            self._check_trick_phase(hand, f"the {q.name} pair")
            self._check_free(hand, q)
            hand.broken.append(q.code)
            return {"type": kind, "pair": q.code}
        if kind == "cachette":
            only_fields(e, ("side", "quints"))
            side = side_field(e)
            listed = entry_field(e, "quints", list, default=[])
            self._check_trick_phase(hand, "the cachette")
            qs = [find_quint(x) for x in listed]
            mask = 0
            for q in qs:
                if q.mask & mask:
                    raise ImpossibleEntryError(f"the {q.name} quint is listed twice")
                self._check_free(hand, q, "in the cachette")
                mask |= q.mask
            if mask.bit_count() > CACHETTE:
                raise ImpossibleEntryError(
                    f"the cachette holds {CACHETTE} cards; these quints need "
                    f"{mask.bit_count()}: {' '.join(_card_names(mask))}"
                )
            hand.cachette_side = side
            points = quint_points(mask)  # the engine scores the cachette's quints at once
            hand.cachette_points = points
            won = bool(points) and score_quints(hand.score, side, points, self.rules.target)
            after = (hand.score[0], hand.score[1])
            hand.cachette_quints = [PadQuint(q, side, i, after) for q in qs]
            if won:
                self._game_won(hand, side, "cachette")
            return {"type": kind, "side": side, "quints": [q.code for q in qs]}
        # tricks
        only_fields(e, ("tricks",))
        tricks = entry_field(e, "tricks", list)
        if len(tricks) != 2 or any(
            isinstance(t, bool) or not isinstance(t, int) or t < 0 for t in tricks
        ):
            raise InvalidEntryError(f"'tricks' is two counts, N-S's and E-W's, not {tricks!r}")
        a, b = tricks
        if hand.cachette_side is None:
            raise ImpossibleEntryError(
                f"enter who took the cachette (the 12th trick) before the tricks of {where}"
            )
        if a + b != ALL_TRICKS:
            raise ImpossibleEntryError(
                f"{SIDE_NAMES[0]} {a} + {SIDE_NAMES[1]} {b} = {a + b} tricks: a hand has "
                f"{ALL_TRICKS} ({TRICKS} played and the cachette)"
            )
        c = hand.cachette_side
        played = [a, b]
        played[c] -= 1
        if played[c] < 1:
            raise ImpossibleEntryError(
                f"{SIDE_NAMES[c]} took the cachette, so they won the 12th trick too: "
                f"at least 2 tricks, not {tricks[c]}"
            )
        for side in (0, 1):
            m = 0
            for p in hand.quints:
                if p.side == side:
                    m |= p.quint.mask
            need = -(-m.bit_count() // TRICK_CARDS)
            if need > played[side]:
                raise ImpossibleEntryError(
                    f"{SIDE_NAMES[side]}'s quints ({' '.join(_card_names(m))}) need at least "
                    f"{need} tricks of {TRICK_CARDS} cards; they won {played[side]} "
                    f"besides the cachette"
                    if side == c
                    else f"{SIDE_NAMES[side]}'s quints ({' '.join(_card_names(m))}) need at "
                    f"least {need} tricks of {TRICK_CARDS} cards, not {played[side]}"
                )
        hand.tricks = (a, b)
        hand.trick_points = trick_points((a, b), hand.multiplier)
        w = count_tricks(hand.score, (a, b), hand.multiplier, self.rules.target)
        hand.over = True
        if w >= 0:
            hand.winner = w
        elif is_tie(hand.score[0], hand.score[1], self.rules.target):
            hand.tied_at = hand.score[0]
        return {"type": kind, "tricks": [a, b]}

    def _check_trick_phase(self, hand: QuintoHandSheet, what: str) -> None:
        if hand.cachette_side is not None:
            raise ImpossibleEntryError(
                f"{what} cannot come now: the cachette of hand {hand.number + 1} is taken "
                f"(only its tricks are left)"
            )

    def _check_free(self, hand: QuintoHandSheet, q: Quint, where: str = "") -> None:
        for p in (*hand.quints, *hand.cachette_quints):
            if p.quint is q:
                raise ImpossibleEntryError(
                    f"the {q.name} quint was already entered in hand {hand.number + 1} "
                    f"(entry {p.entry}): each quint falls once a hand"
                )
        if q.code in hand.broken:
            raise ImpossibleEntryError(
                f"the {q.name} pair is broken in hand {hand.number + 1}: one of its cards "
                f"fell without the other" + (f", so it cannot be {where}" if where else "")
            )

    def _game_won(self, hand: QuintoHandSheet, side: int, by: str) -> None:
        hand.winner = side
        hand.over = True
        hand.ended_by = by

    # ------------------------------------------------------------------ reading

    def possible_quints(self) -> list[str]:
        """Return the quints that may still fall in the current (or next) hand."""
        hand = self._computed.current
        if hand is None or hand.over:
            return [q.code for q in QUINTS]
        if hand.cachette_side is not None:
            return []
        used = hand.used()
        return [q.code for q in QUINTS if not q.mask & used]

    def offers(self) -> JSON:
        """Return what may be entered next: the doubling choices, quints, pairs, the end."""
        sheet = self._computed
        reason = None
        hand = sheet.current
        if hand is None or hand.over:
            reason = self.over_reason(sheet)
            if reason is not None:
                return {"over": reason}
            nxt = self._peek_next(sheet)
            fresh = True
        else:
            nxt = hand
            fresh = not hand.entries
        quints = self.possible_quints()
        taken = nxt.cachette_side is not None
        return {
            "over": None,
            "hand": nxt.number,
            "dealer": nxt.dealer,
            "lone_seat": nxt.lone_seat,
            "doubling": [
                {"level": LEVELS[{1: 0, 2: 1, 4: 2}[m]], "by": by}
                for m, by in doubling_outcomes(nxt.dealer, nxt.lone_seat)
            ]
            if fresh
            else [],
            "quints": quints,
            "pairs": [c for c in quints if c in PAIRS],
            "cachette": not taken,
            "tricks": taken,
        }

    def _peek_next(self, sheet: QuintoSheet) -> QuintoHandSheet:
        """Return the hand that the next entry would begin (without keeping it)."""
        copy = QuintoSheet(
            [QuintoGameSheet(g.index, g.lone_seat, g.start, list(g.hands)) for g in sheet.games]
        )
        return self._new_hand(copy)

    def view(self) -> JSON:
        """Return the pad's figures, what may come next and the status line, as JSON."""
        sheet = self._computed
        games = []
        for g in sheet.games:
            games.append(
                {
                    "index": g.index,
                    "lone_seat": g.lone_seat,
                    "start": list(g.start),
                    "score": list(g.score),
                    "winner": g.winner,
                    "hands": [h.to_json() for h in g.hands],
                }
            )
        results = [g.result() for g in sheet.games]
        w = None if self.dummy else match_winner(results, False)
        return {
            "game": self.game,
            "form": self.FORM,
            "variant": self.variant,
            "target": self.rules.target,
            "games": games,
            "rubber": None
            if self.dummy
            else {
                "games_won": [sum(1 for g in results if g.winner == s) for s in (0, 1)],
                "winner": w,
                "score": list(rubber_total(results, w, self.rules.rubber_bonus))
                if w is not None
                else None,
                "bonus": self.rules.rubber_bonus,
            },
            "offers": self.offers(),
            "status": self.status(),
        }

    def score_summary(self, game: int | None = None) -> JSON:
        """Return the scores in the scorer's shape (``quintet score``).

        Partnership: the rubber. Dummy: one game (``game``, default the first), as a
        dummy record holds one game: the lone player's side first.
        """
        results = [g.result() for g in self._computed.games]
        if not self.dummy:
            return summary(self.game, results, None, self.rules.rubber_bonus)
        k = 0 if game is None else game
        if not results:
            return summary(self.game, [], self.lone_seat, self.rules.rubber_bonus)
        g = self._computed.games[k]
        return summary(self.game, [results[k]], g.lone_seat, self.rules.rubber_bonus)

    def hand_groups(self) -> list[tuple[str, list[int]]]:
        """Return each hand's heading and the indices of its entries, in order."""
        return [
            (f"- hand {h.number + 1} (game {h.game + 1}), {SEAT_NAMES[h.dealer]} deals", h.entries)
            for h in self._computed.hands
        ]

    def status(self) -> str:
        """Return one line: where the pad stands and what is entered next."""
        sheet = self._computed
        hand = sheet.current
        reason = self.over_reason(sheet)
        if reason:
            return reason[0].upper() + reason[1:] + "."
        if hand is not None and hand.over:
            last = _hand_end_words(hand, self.rules.target)
            nxt = self._peek_next(sheet)
            return f"{last} Next: hand {nxt.number + 1}, {SEAT_NAMES[nxt.dealer]} deals."
        if hand is None:
            nxt = self._peek_next(sheet)
            return (
                f"Hand 1, {SEAT_NAMES[nxt.dealer]} deals: enter the doubling, then quints as "
                f"they fall."
            )
        a, b = hand.score
        head = (
            f"Hand {hand.number + 1} (game {hand.game + 1}), {SEAT_NAMES[hand.dealer]} deals"
            f"{_doubled_words(hand)}: {SIDE_NAMES[0]} {a}, {SIDE_NAMES[1]} {b}."
        )
        if hand.cachette_side is None:
            return head + " Enter quints as they fall, then who took the cachette."
        return head + " Enter the tricks each side won (the cachette is one)."


def _quint_list(e: Mapping[str, Any]) -> list[Quint]:
    """Return the quints of a quint entry: ``quint`` (one) or ``quints`` (one trick's)."""
    if ("quint" in e) == ("quints" in e):
        raise InvalidEntryError("a quint entry names 'quint' (one) or 'quints' (a trick's)")
    if "quint" in e:
        return [find_quint(e["quint"])]
    listed = entry_field(e, "quints", list)
    if not listed:
        raise InvalidEntryError("'quints' of a quint entry lists at least one quint")
    qs = [find_quint(x) for x in listed]
    for k, q in enumerate(qs):
        if q in qs[:k]:
            raise ImpossibleEntryError(f"the {q.name} quint is listed twice")
    return qs


def _dummy_of(lone_seat: int | None) -> int | None:
    return None if lone_seat is None else (lone_seat + 2) & 3


def _card_names(mask: int) -> list[str]:
    from quintet.cards import card_display

    return [card_display(c) for c in mask_cards(mask)]


def _clean(d: dict[str, Any]) -> JSON:
    return {k: v for k, v in d.items() if v is not None}


def _doubled_words(hand: QuintoHandSheet) -> str:
    if hand.multiplier == 1:
        return ""
    by = SIDE_NAMES[hand.doubled_by or 0]
    if hand.multiplier == 2:
        return f", doubled by {by}"
    return f", doubled by {by} and redoubled"


def _doubling_words(outcomes: Sequence[tuple[int, int | None]]) -> str:
    words = []
    for m, by in outcomes:
        if m == 1:
            words.append("none")
        else:
            words.append(f"{LEVELS[{2: 1, 4: 2}[m]]} by {SIDE_NAMES[by or 0]}")
    return "the round can end: " + ", ".join(words)


def _hand_end_words(hand: QuintoHandSheet, target: int) -> str:
    n = hand.number + 1
    if hand.winner is not None:
        w = hand.winner
        sc = hand.score
        if hand.ended_by == "quint":
            q = hand.quints[-1].quint
            return (
                f"{SIDE_NAMES[w]} reach {target} with the {q.name} quint in hand {n}: they win "
                f"game {hand.game + 1} {sc[w]} to {sc[1 - w]}, and the hand stops there."
            )
        if hand.ended_by == "cachette":
            return (
                f"{SIDE_NAMES[w]} reach {target} with the cachette's quints in hand {n}: they "
                f"win game {hand.game + 1} {sc[w]} to {sc[1 - w]}; tricks are not counted."
            )
        return f"{SIDE_NAMES[w]} win game {hand.game + 1} {sc[w]} to {sc[1 - w]} in hand {n}."
    if hand.tied:
        return (
            f"Tie at {hand.score[0]} in hand {n}: another hand is played, and the first "
            f"quint wins the game."
        )
    a, b = hand.score
    return f"Hand {n} is over: {SIDE_NAMES[0]} {a}, {SIDE_NAMES[1]} {b}."
