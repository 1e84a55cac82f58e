"""Quintus's rules options and variants, card values and the bidding settlement."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Final

from quintet.cards import ACE, FIVE, JACK, KING, NINE, QUEEN, TEN, CardMask, card
from quintet.errors import InvalidOptionError

VARIANTS: Final = ("base", "bidding")
SEATS: Final = 5
HAND_SIZE: Final = 8
TRICKS: Final = 8
NT: Final = 4  # the trump index of sans atout

#: Nil bonus by kind (closed, open): base game, and the bidding variant.
NIL_BONUS: Final = {"base": (40, 70), "bidding": (38, 46)}
#: The teams' bonus when the quintus fails nil (closed, open): base game only.
FAILED_NIL_BONUS: Final = (50, 70)
COURT_POINTS: Final = 10
STRAIGHT_POINTS: Final = 25

PIPS: Final[CardMask] = sum(1 << card(r, s) for s in range(4) for r in range(FIVE, TEN + 1))
FACES: Final[CardMask] = sum(1 << card(r, s) for s in range(4) for r in (JACK, QUEEN, KING))
#: Winning any of these in a trick fails the quintus's nil.
NIL_BREAKERS: Final[CardMask] = FACES | sum(1 << card(ACE, s) for s in range(4))
COURT_LOW: Final = tuple(card(JACK, s) for s in range(4))
STRAIGHT_LOW: Final = tuple(card(FIVE, s) for s in range(4))
_ = NINE


def combo_in(mask: CardMask) -> int:
    """Return 1 for a court (J Q K of a suit), 2 for a straight (5-9 of a suit), else 0.

    A trick of five cards holds at most one of them.

    >>> from quintet.cards import parse_mask
    >>> combo_in(parse_mask("JH QH KH 5S AD")), combo_in(parse_mask("5C 6C 7C 8C 9C"))
    (1, 2)
    """
    for s in range(4):
        if mask >> COURT_LOW[s] & 7 == 7:
            return 1
        if mask >> STRAIGHT_LOW[s] & 0x1F == 0x1F:
            return 2
    return 0


def quintus_card_points(mask: CardMask) -> int:
    """Return the quintus's points for cards won: -1 per 5-10, +10 per J/Q/K, aces 0."""
    return 10 * (mask & FACES).bit_count() - (mask & PIPS).bit_count()


def team_card_points(mask: CardMask) -> int:
    """Return a team's points for cards won: -1 per 5-10, +5 per J/Q/K, aces 0."""
    return 5 * (mask & FACES).bit_count() - (mask & PIPS).bit_count()


def round_even(x: Fraction) -> int:
    """Round to the nearest even number; an odd whole number rounds up.

    >>> round_even(Fraction(40 * 8, 21)), round_even(Fraction(15)), round_even(Fraction(13, 2))
    (16, 16, 6)
    """
    half = x / 2 + Fraction(1, 2)
    return 2 * (half.numerator // half.denominator)


def base_quintus(dealer: int) -> int:
    """Return the base game's quintus: the player to the dealer's right (``dealer + 4``)."""
    return (dealer + SEATS - 1) % SEATS


def teams_of(quintus: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """Return the two teams against ``quintus``: ({q+1, q+3}, {q+2, q+4})."""
    return ((quintus + 1) % 5, (quintus + 3) % 5), ((quintus + 2) % 5, (quintus + 4) % 5)


def nil_points(
    points: tuple[int, int, int], nil: int, failed: bool, over: bool, bidding: bool
) -> tuple[int, int, int]:
    """Return the card points (quintus, team 0, team 1) with the nil bonuses applied.

    ``nil`` is 0 none, 1 closed, 2 open. A made nil adds the quintus's bonus once the hand
    is over; a failed one (as soon as it fails) gives the teams their bonus in the base
    game, and in the bidding variant leaves the quintus 0 card points.

    >>> nil_points((-3, 20, 10), 1, False, True, False)   # closed nil made, base game
    (37, 20, 10)
    >>> nil_points((-3, 20, 10), 2, True, True, True)     # open nil failed, bidding
    (0, 20, 10)
    """
    qp, ta, tb = points
    if nil <= 0:
        return points
    kind = nil - 1
    if failed:
        if bidding:
            qp = 0
        else:
            ta += FAILED_NIL_BONUS[kind]
            tb += FAILED_NIL_BONUS[kind]
    elif over:
        qp += NIL_BONUS["bidding" if bidding else "base"][kind]
    return qp, ta, tb


def contract_made(quintus_points: int, bid: int) -> bool:
    """Return whether the quintus's card points (nil and premiums included) reach the bid."""
    return quintus_points >= bid


@dataclass(frozen=True, slots=True)
class Settlement:
    """How a bidding hand is settled (rulings.md, Settlement), every step kept to show it.

    ``teams``: the raw card points of team 0 ({q+1, q+3}) and team 1; ``clamped``:
    ``max(x, 0)`` of each; ``shares``: each team's exact share of the bid; ``s``: the
    smaller share rounded to an even number; ``m``: the team with more card points (team
    0 on a tie), ``low`` the other; ``scores``: each seat's game points.
    """

    bid: int
    made: bool
    quintus: int
    team_seats: tuple[tuple[int, int], ...]
    teams: tuple[int, int]
    clamped: tuple[int, int]
    shares: tuple[Fraction, Fraction]
    s: int
    m: int
    low: int
    scores: tuple[int, ...]

    def payments(self) -> list[tuple[int, int, int]]:
        """Return ``(payer, payee, amount)`` for each team player, paying or paid by the quintus."""
        out = []
        for seat in (*self.team_seats[0], *self.team_seats[1]):
            x = self.scores[seat]
            if x < 0:
                out.append((seat, self.quintus, -x))
            elif x > 0:
                out.append((self.quintus, seat, x))
        return out


def settlement(
    bid: int,
    made: bool,
    teams: tuple[int, int],
    team_seats: tuple[tuple[int, int], ...],
    quintus: int,
) -> Settlement:
    """Return the settlement of a bidding hand, with its steps (see :func:`settle`)."""
    a, b = teams
    ca, cb = max(a, 0), max(b, 0)
    total = ca + cb
    shares = (
        (Fraction(bid, 2), Fraction(bid, 2))
        if total == 0
        else (
            Fraction(ca * bid, total),
            Fraction(cb * bid, total),
        )
    )
    s = round_even(min(shares))
    m = 0 if a >= b else 1  # on a tie M is the team of the player to the quintus's left
    low = 1 - m
    out = [0] * SEATS
    if made:
        for seat in team_seats[m]:
            out[seat] = -(s // 2)
        for seat in team_seats[low]:
            out[seat] = -((bid - s) // 2)
        out[quintus] = bid
    else:
        for seat in team_seats[low]:
            out[seat] = s // 2
        for seat in team_seats[m]:
            out[seat] = (bid - s) // 2
        out[quintus] = -bid
    return Settlement(
        bid, made, quintus, tuple(team_seats), (a, b), (ca, cb), shares, s, m, low, tuple(out)
    )


def settle(
    bid: int,
    made: bool,
    teams: tuple[int, int],
    team_seats: tuple[tuple[int, int], ...],
    quintus: int,
) -> list[int]:
    """Return each seat's game points for a bidding hand (rulings.md, Settlement).

    ``teams`` are the card points of team 0 ({q+1, q+3}) and team 1 ({q+2, q+4}).

    >>> settle(40, True, (8, 13), ((1, 3), (2, 4)), 0)   # rulebook: B pays 8, A pays 12
    [40, -12, -8, -12, -8]
    >>> settle(40, False, (8, 13), ((1, 3), (2, 4)), 0)
    [-40, 8, 12, 8, 12]
    """
    return list(settlement(bid, made, teams, team_seats, quintus).scores)


def hand_scores(bidding: bool, quintus: int, bid: int, points: tuple[int, int, int]) -> list[int]:
    """Return what each seat gains in a hand from its card points (quintus, team 0, team 1).

    Base game: the quintus his points, each team player his team's. Bidding: the
    settlement of the contract ``bid``. No quintus (``-1``, a void hand): zeros.
    """
    if quintus < 0:
        return [0] * SEATS
    qp, ta, tb = points
    teams = teams_of(quintus)
    if bidding:
        return settle(bid, contract_made(qp, bid), (ta, tb), teams, quintus)
    out = [0] * SEATS
    out[quintus] = qp
    for seat in teams[0]:
        out[seat] = ta
    for seat in teams[1]:
        out[seat] = tb
    return out


@dataclass(frozen=True, slots=True)
class QuintusRules:
    """The rules a Quintus session is played under.

    ``variant``: ``base`` (the quintus is the dealer's right-hand player) or ``bidding``
    (an auction chooses him and sets a contract). ``hands`` [5]: the session length.
    """

    game: ClassVar[str] = "quintus"

    variant: str = "base"
    hands: int = 5

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise InvalidOptionError(
                f"unknown quintus variant {self.variant!r} (known: {', '.join(VARIANTS)})"
            )
        if isinstance(self.hands, bool) or not isinstance(self.hands, int):
            raise InvalidOptionError(f"option hands must be an integer, not {self.hands!r}")
        if self.hands < 1:
            raise InvalidOptionError(f"option hands must be at least 1, not {self.hands}")

    @classmethod
    def from_options(cls, variant: str, options: Mapping[str, Any] | None) -> QuintusRules:
        """Return the rules for ``variant`` with record-style ``options`` (None = default).

        Raises:
            InvalidOptionError: unknown variant or option name, or a value of the wrong type.
        """
        kwargs: dict[str, Any] = {}
        for name, value in (options or {}).items():
            if name != "hands":
                raise InvalidOptionError(f"unknown quintus option {name!r} (known: hands)")
            if value is not None:
                kwargs[name] = value
        return cls(variant=variant, **kwargs)

    def options(self) -> dict[str, Any]:
        """Return the options that differ from the defaults, as a record writes them."""
        return {} if self.hands == 5 else {"hands": self.hands}
