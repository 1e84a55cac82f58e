"""Seating two bots at one deal, and what a seat scores in a hand.

A deal's seats fall into *groups* held by one bot together: the two partnerships (Quinto),
the lone player with his dummy against the other pair (Quinto's dummy variant), or the
base game's quintus and the two teams against him (Quintus). A deal is played once for
each way of giving the groups to A and B that does not give them all to one bot
(:func:`seatings`), so every bot holds every group equally often.

The groups come from the game's description (partnerships, the dummy of a lone seat, the
teams against a quintus); how a hand is scored, who plays alone and whether whole matches
are played depend on the engine's API, so they are one :class:`Roles` per engine, chosen
by the game's ``state_class`` (:func:`roles_of`), never by its name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any, Final

from quintet.errors import InvalidOptionError
from quintet.games import GameInfo, VariantInfo
from quintet.quinto import QuintoState
from quintet.quintus import QuintusState

#: The seat groups of a deal: (its first dealer, or lone seat), the groups.
Groups = tuple[int, list[tuple[int, ...]]]
#: A whole match's tally per side: games won, the winning side (or None), match points.
Tally = tuple[tuple[int, ...], int | None, tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class Matches:
    """How the arena plays whole matches of a game (Quinto's rubbers and dummy games).

    ``name(variant)`` is what they are called; ``sides(info)`` a seat of each side;
    ``tally(info, variant, match)`` a finished match's games won, winner and points per
    side.
    """

    name: Callable[[VariantInfo], str]
    sides: Callable[[GameInfo], tuple[int, ...]]
    tally: Callable[[GameInfo, VariantInfo, Any], Tally]


@dataclass(frozen=True, slots=True)
class Roles:
    """How the arena seats bots at one engine's game and scores its hands.

    ``groups(info, variant, index)`` gives deal ``index``'s first dealer (a lone seat, if
    the variant has one: he deals) and seat groups; ``new_match(info, rules, variant,
    first)`` the match a deal's hand or a whole match is played in; ``scores(info,
    state)`` each seat's score in a finished hand; ``solo(state)`` the seat playing alone
    in it (None: nobody). ``matches``: how whole matches are played too, if they are.
    The labels name the scores in the report.
    """

    groups: Callable[[GameInfo, VariantInfo, int], Groups]
    new_match: Callable[[GameInfo, Any, VariantInfo, int], Any]
    scores: Callable[[GameInfo, Any], tuple[int, ...]]
    solo: Callable[[Any], int | None]
    #: Whether the report shows the player alone's mean (a variant with one).
    shows_solo: Callable[[VariantInfo], bool]
    solo_label: str
    score_unit: str
    matches: Matches | None = None

    @property
    def plays_matches(self) -> bool:
        """Whether the arena plays whole matches of this game too."""
        return self.matches is not None


# ------------------------------------------------------------------------ Quinto


def _partnership_groups(info: GameInfo, variant: VariantInfo, index: int) -> Groups:
    """Dealer ``index % seats``: the partnerships; with a lone seat (who deals) there, the
    lone player with his dummy against the other pair."""
    first = index % info.num_seats
    if variant.lone_seat:
        dummy = info.dummy_of(first)
        alone = (first, dummy) if dummy is not None else (first,)
        others = tuple(s for s in range(info.num_seats) if s not in alone)
        return first, [alone, others]
    return first, [tuple(pair) for pair in info.partnerships or ()]


def _partnership_match(info: GameInfo, rules: Any, variant: VariantInfo, first: int) -> Any:
    match_class: Any = info.match_class
    lone = first if variant.lone_seat else None
    return match_class(rules, first_dealer=first, lone_seat=lone)


def _side_points(info: GameInfo, state: Any) -> tuple[int, ...]:
    """Each seat's score: its side's hand points (quints and trick points)."""
    hp = state.hand_points()
    side = {s: i for i, pair in enumerate(info.partnerships or ()) for s in pair}
    return tuple(int(hp[side[s]]) for s in range(info.num_seats))


def _lone_seat(state: Any) -> int | None:
    lone: int | None = state.lone_seat
    return lone


def _has_lone_seat(variant: VariantInfo) -> bool:
    return variant.lone_seat


def _match_name(variant: VariantInfo) -> str:
    return "dummy games" if variant.lone_seat else "rubbers"


def _partnership_sides(info: GameInfo) -> tuple[int, ...]:
    return tuple(pair[0] for pair in info.partnerships or ())


def _quinto_tally(info: GameInfo, variant: VariantInfo, match: Any) -> Tally:
    """Games won per side, the winner, and match points: a dummy game's score with the
    handicap, or the rubber's totals with the bonus."""
    if variant.lone_seat:
        points = match.games()[-1].score
    else:
        points = match.rubber_score()
        if points is None:  # pragma: no cover - a rubber that is over has a score
            raise RuntimeError("a rubber is over but has no score")
    return tuple(match.games_won()), match.winner(), tuple(points)


QUINTO_ROLES: Final = Roles(
    groups=_partnership_groups,
    new_match=_partnership_match,
    scores=_side_points,
    solo=_lone_seat,
    shows_solo=_has_lone_seat,
    solo_label="as lone",
    score_unit="hand points of its side",
    matches=Matches(name=_match_name, sides=_partnership_sides, tally=_quinto_tally),
)


# ----------------------------------------------------------------------- Quintus


def _first_quintus(info: GameInfo, dealer: int) -> int:
    """The base game's quintus when ``dealer`` deals: the dealer's right-hand neighbour.

    Wanted from quintet.games: this seat (e.g. ``GameInfo.lone_of(dealer)``).
    """
    return (dealer + info.num_seats - 1) % info.num_seats


def _quintus_groups(info: GameInfo, variant: VariantInfo, index: int) -> Groups:
    """Dealer ``d = index % seats``: the base game's quintus, and the two teams against
    him. In the bidding game the auction picks the quintus, so the groups are only seats,
    the same for every deal."""
    dealer = index % info.num_seats
    quintus = _first_quintus(info, dealer)
    return dealer, [(quintus,), *(tuple(t) for t in info.teams_of(quintus) or ())]


def _quintus_match(info: GameInfo, rules: Any, variant: VariantInfo, first: int) -> Any:
    match_class: Any = info.match_class
    return match_class(rules, first_dealer=first)


def _seat_scores(info: GameInfo, state: Any) -> tuple[int, ...]:
    """Each seat's gain in the hand (0 for all in a void hand)."""
    return tuple(int(x) for x in state.scores())


def _always(variant: VariantInfo) -> bool:
    return True


def _quintus_of(state: Any) -> int | None:
    q: int = state.quintus
    return q if q >= 0 else None


QUINTUS_ROLES: Final = Roles(
    groups=_quintus_groups,
    new_match=_quintus_match,
    scores=_seat_scores,
    solo=_quintus_of,
    shows_solo=_always,
    solo_label="as quintus",
    score_unit="hand score",
)

#: Each engine's roles, by the game's ``state_class``.
ROLES: Final[Mapping[type, Roles]] = {QuintoState: QUINTO_ROLES, QuintusState: QUINTUS_ROLES}


def roles_of(info: GameInfo) -> Roles:
    """Return how the arena plays ``info``.

    Raises:
        InvalidOptionError: the arena cannot play that game's engine.
    """
    try:
        return ROLES[info.state_class]
    except KeyError:
        raise InvalidOptionError(f"the arena cannot play {info.title}") from None


def seatings(info: GameInfo, variant: VariantInfo, index: int) -> tuple[int, list[tuple[int, ...]]]:
    """Return deal ``index``'s first dealer (a lone seat: his) and the owner of each seat
    (0 = A, 1 = B) in each of its seatings."""
    first, groups = roles_of(info).groups(info, variant, index)
    out = []
    for pattern in product((0, 1), repeat=len(groups)):
        if len(set(pattern)) == 1:
            continue
        owner = [0] * info.num_seats
        for group, who in zip(groups, pattern, strict=True):
            for seat in group:
                owner[seat] = who
        out.append(tuple(owner))
    return first, out


def diff(owner: Sequence[int], scores: Sequence[int]) -> Fraction:
    """A's mean seat score minus B's."""
    a = [x for o, x in zip(owner, scores, strict=True) if o == 0]
    b = [x for o, x in zip(owner, scores, strict=True) if o == 1]
    return Fraction(sum(a), len(a)) - Fraction(sum(b), len(b))


__all__ = [
    "QUINTO_ROLES",
    "QUINTUS_ROLES",
    "ROLES",
    "Matches",
    "Roles",
    "diff",
    "roles_of",
    "seatings",
]
