"""Quinto's rules options and variants, and the card facts the rules are built on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Final

from quintet.cards import (
    ACE,
    FIVE,
    FOUR,
    JOKER,
    JOKER_BIT,
    SUIT_CHARS,
    SUIT_SYMBOLS,
    THREE,
    TWO,
    CardMask,
    card,
)
from quintet.errors import InvalidOptionError

VARIANTS: Final = ("partnership", "dummy")
SEAT_NAMES: Final = ("North", "East", "South", "West")
SEAT_LETTERS: Final = "NESW"
SIDE_NAMES: Final = ("N-S", "E-W")

#: Quint value by suit: spades 5, clubs 10, diamonds 15, hearts 20 (Hoyle 000).
SUIT_QUINT: Final = (5, 10, 15, 20)
JOKER_QUINT: Final = 25
TRICK_VALUE: Final = 5
HAND_SIZE: Final = 12
TRICKS: Final = 12

FIVES: Final[CardMask] = sum(1 << card(FIVE, s) for s in range(4))
_ACE_FOUR_LOW: Final[CardMask] = sum(1 << card(FOUR, s) for s in range(4))
_TWO_THREE_LOW: Final[CardMask] = sum(1 << card(TWO, s) for s in range(4))
_FIVE_POINTS: Final = tuple(sum(SUIT_QUINT[s] for s in range(4) if i >> s & 1) for i in range(16))


def quint_points(mask: CardMask) -> int:
    """Return the value of the quints in a set of cards (a trick or the cachette).

    >>> from quintet.cards import parse_mask
    >>> quint_points(parse_mask("5H AS 4S 9D"))   # heart five 20 + spade ace-four 5
    25
    >>> quint_points(parse_mask("JK 2D 3D"))      # joker 25 + diamond two-three 15
    40
    """
    v = _FIVE_POINTS[(mask >> 3 & 1) | (mask >> 15 & 2) | (mask >> 27 & 4) | (mask >> 39 & 8)]
    pairs = (mask & (mask >> 10) & _ACE_FOUR_LOW) | (mask & (mask >> 1) & _TWO_THREE_LOW)
    while pairs:
        low = pairs & -pairs
        v += SUIT_QUINT[(low.bit_length() - 1) // 13]
        pairs ^= low
    if mask & JOKER_BIT:
        v += JOKER_QUINT
    return v


def quints(mask: CardMask) -> list[tuple[str, int]]:
    """Return each quint in a set of cards as ``(description, value)``.

    >>> from quintet.cards import parse_mask
    >>> quints(parse_mask("5H AS 4S JK"))
    [('5♥', 20), ('A♠+4♠', 5), ('Quint Royal', 25)]
    """
    out: list[tuple[str, int]] = []
    for s in (3, 2, 1, 0):
        sym = SUIT_SYMBOLS[s]
        if mask >> card(FIVE, s) & 1:
            out.append((f"5{sym}", SUIT_QUINT[s]))
    for s in (3, 2, 1, 0):
        sym = SUIT_SYMBOLS[s]
        if mask >> card(ACE, s) & 1 and mask >> card(FOUR, s) & 1:
            out.append((f"A{sym}+4{sym}", SUIT_QUINT[s]))
        if mask >> card(TWO, s) & 1 and mask >> card(THREE, s) & 1:
            out.append((f"2{sym}+3{sym}", SUIT_QUINT[s]))
    if mask >> JOKER & 1:
        out.append(("Quint Royal", JOKER_QUINT))
    return out


@dataclass(frozen=True, slots=True)
class Quint:
    """One of the 13 quints: ``code`` as a score pad writes it (``5H``, ``AH+4H``,
    ``2H+3H``, ``JK``), ``name`` as the table shows it, its cards and its value."""

    code: str
    name: str
    mask: CardMask
    value: int


def _all_quints() -> tuple[Quint, ...]:
    out = [Quint("JK", "Quint Royal", JOKER_BIT, quint_points(JOKER_BIT))]
    for s in (3, 2, 1, 0):
        c, sym = SUIT_CHARS[s], SUIT_SYMBOLS[s]
        for code, name, ranks in (
            (f"5{c}", f"5{sym}", (FIVE,)),
            (f"A{c}+4{c}", f"A{sym}+4{sym}", (ACE, FOUR)),
            (f"2{c}+3{c}", f"2{sym}+3{sym}", (TWO, THREE)),
        ):
            mask = sum(1 << card(r, s) for r in ranks)
            out.append(Quint(code, name, mask, quint_points(mask)))
    return tuple(out)


#: Every quint, the joker first, then hearts down to spades (each: five, A+4, 2+3). Each
#: card belongs to at most one, so a hand holds each quint at most once.
QUINTS: Final = _all_quints()


def trick_value(multiplier: int) -> int:
    """Return the points per trick won: 5, doubled 10, redoubled 20 (Hoyle 000).

    >>> trick_value(1), trick_value(2), trick_value(4)
    (5, 10, 20)
    """
    return TRICK_VALUE * multiplier


def trick_points(tricks_won: Sequence[int], multiplier: int) -> tuple[int, int]:
    """Return each side's trick points: tricks won (cachette included) x the trick value.

    >>> trick_points((7, 6), 2)
    (70, 60)
    """
    value = TRICK_VALUE * multiplier
    return tricks_won[0] * value, tricks_won[1] * value


def score_quints(score: list[int], side: int, points: int, target: int) -> bool:
    """Add quint points to ``side``'s game score; return whether that wins the game at once.

    Quints score the moment they fall, and the side they bring to the target wins there
    and then (rulings.md, End of a game); in an extra hand after a tie both sides are
    already past it, so any quint wins.

    >>> score = [240, 100]
    >>> score_quints(score, 0, 5, 250), score_quints(score, 0, 5, 250), score
    (False, True, [250, 100])
    """
    score[side] += points
    return score[side] >= target


def count_tricks(score: list[int], tricks_won: Sequence[int], multiplier: int, target: int) -> int:
    """Add both sides' trick points to the game score; return the side that wins, else -1.

    After the trick points one side at or past the target wins; both at or past it, the
    higher total; an exact tie at or past it (or nobody there) wins nothing yet.

    >>> score = [200, 230]
    >>> count_tricks(score, (6, 7), 2, 250), score
    (1, [260, 300])
    """
    a, b = trick_points(tricks_won, multiplier)
    score[0] += a
    score[1] += b
    return winner_after_tricks(score[0], score[1], target)


def winner_after_tricks(a: int, b: int, target: int) -> int:
    """Return the side whose game score ``a`` (side 0) or ``b`` wins once tricks count, or -1.

    >>> winner_after_tricks(255, 260, 250), winner_after_tricks(255, 255, 250)
    (1, -1)
    """
    if (a >= target or b >= target) and a != b:
        return 0 if a > b else 1
    return -1


def is_tie(a: int, b: int, target: int) -> bool:
    """Return whether game scores ``a`` and ``b`` are level at or past the target.

    Then neither side wins and another hand is played with the scores carried.
    """
    return a == b and a >= target


@dataclass(frozen=True, slots=True)
class QuintoRules:
    """The rules a Quinto match is played under (rulings.md; defaults in brackets).

    ``variant``: ``partnership`` (four players, rubbers) or ``dummy`` (three players,
    one game). ``target`` [250]: game. ``rubber_bonus`` [100]. ``dummy_handicap`` [25]:
    the lone player's opponents start with it. ``joker_eleventh_trick`` [False]: the
    modern rule forcing the joker at the 11th trick. ``dummy_double_view`` [``own``]:
    which hand the lone player doubles from (``own`` or Hoyle's ``leading``).
    """

    game: ClassVar[str] = "quinto"

    variant: str = "partnership"
    target: int = 250
    rubber_bonus: int = 100
    dummy_handicap: int = 25
    joker_eleventh_trick: bool = False
    dummy_double_view: str = "own"

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise InvalidOptionError(
                f"unknown quinto variant {self.variant!r} (known: {', '.join(VARIANTS)})"
            )
        for name in ("target", "rubber_bonus", "dummy_handicap"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidOptionError(f"option {name} must be an integer, not {value!r}")
        if self.target < 1:
            raise InvalidOptionError(f"option target must be at least 1, not {self.target}")
        if self.rubber_bonus < 0 or self.dummy_handicap < 0:
            raise InvalidOptionError("options rubber_bonus and dummy_handicap must be >= 0")
        if not isinstance(self.joker_eleventh_trick, bool):
            raise InvalidOptionError(
                f"option joker_eleventh_trick must be true or false, "
                f"not {self.joker_eleventh_trick!r}"
            )
        if self.dummy_double_view not in ("own", "leading"):
            raise InvalidOptionError(
                f"option dummy_double_view must be 'own' or 'leading', "
                f"not {self.dummy_double_view!r}"
            )

    @classmethod
    def from_options(cls, variant: str, options: Mapping[str, Any] | None) -> QuintoRules:
        """Return the rules for ``variant`` with record-style ``options`` (None = default).

        Raises:
            InvalidOptionError: unknown variant or option name, or a value of the wrong type.
        """
        known = {f.name for f in fields(cls)} - {"variant"}
        kwargs: dict[str, Any] = {}
        for name, value in (options or {}).items():
            if name not in known:
                raise InvalidOptionError(
                    f"unknown quinto option {name!r} (known: {', '.join(sorted(known))})"
                )
            if value is not None:
                kwargs[name] = value
        return cls(variant=variant, **kwargs)

    def options(self) -> dict[str, Any]:
        """Return the options that differ from the defaults, as a record writes them."""
        default = QuintoRules()
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name != "variant" and getattr(self, f.name) != getattr(default, f.name)
        }


def suit_name_char(suit: int) -> str:
    """Return the record letter of a suit."""
    return SUIT_CHARS[suit]
