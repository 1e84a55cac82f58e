"""One description per game and variant: everything above the engines asks it.

A :class:`GameInfo` holds a game's facts (seats, tricks, pack, action kinds, options
with their defaults, the seat roles, utility bounds) and its classes (rules, state,
match; the solver is imported when asked for, since it needs the ``solver`` extra).
:func:`find_game` finds one by name, :func:`find_variant` one of its variants, and
:func:`game_of` the description of a state or match, each with a clear error. This
module and the engines' packages are the only places that know a game by its name.

>>> g = find_game("quinto")
>>> g.num_seats, g.num_tricks, g.seat_labels[0]
(4, 12, 'North')
>>> g.dummy_of(1)
3
>>> find_variant("quintus", "bidding").zero_sum
True
>>> find_game("bridge")
Traceback (most recent call last):
...
quintet.errors.InvalidOptionError: unknown game 'bridge' (known: quinto, quintus)
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from quintet.actions import MAX_BID, MIN_BID, NUM_ACTIONS, REDOUBLE
from quintet.cards import QUINTO_PACK, QUINTUS_PACK, CardMask, mask_cards
from quintet.errors import InvalidOptionError
from quintet.game import Phase
from quintet.quinto import QuintoMatch, QuintoRules, QuintoState
from quintet.quinto.rules import JOKER_QUINT, SUIT_QUINT, TRICK_VALUE
from quintet.quinto.rules import SEAT_NAMES as QUINTO_SEAT_NAMES
from quintet.quintus import QuintusMatch, QuintusRules, QuintusState, teams_of
from quintet.quintus.rules import COURT_POINTS, NIL_BONUS, STRAIGHT_POINTS

if TYPE_CHECKING:
    from quintet.solver import QuintoSolver, QuintusSolver

__all__ = [
    "GAMES",
    "GameInfo",
    "OptionInfo",
    "VariantInfo",
    "find_game",
    "find_variant",
    "game_of",
    "games",
]


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """One rules option: its name, type, default and allowed values.

    ``kind`` is ``int``, ``bool`` or ``choice``; ``minimum`` bounds an ``int``,
    ``choices`` lists a ``choice``'s values; ``variants`` are the variants it applies
    to (empty: every variant); ``scope`` is ``hand`` (it changes how a hand is played
    or scored) or ``match`` (only the match around the hands: a bonus, a length).
    """

    name: str
    kind: str
    default: int | bool | str
    help: str
    minimum: int | None = None
    choices: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    scope: str = "hand"

    def to_json(self) -> dict[str, Any]:
        """Return the option as the browser and ``/api/info`` see it."""
        out: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "default": self.default,
            "help": self.help,
            "scope": self.scope,
        }
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.choices:
            out["choices"] = list(self.choices)
        if self.variants:
            out["variants"] = list(self.variants)
        return out


@dataclass(frozen=True, slots=True)
class VariantInfo:
    """One variant of a game.

    ``lone_seat``: a lone player must be named (Quinto's dummy game); ``players``: how
    many people or bots decide (the dummy's seat has none of its own); ``zero_sum``:
    the seats' results of a hand always sum to zero; ``min_utility``/``max_utility``:
    bounds on any seat's result of one hand (``state.returns()``).
    """

    name: str
    title: str
    players: int
    lone_seat: bool
    zero_sum: bool
    min_utility: float
    max_utility: float
    #: The most actions one hand can take (OpenSpiel's max_game_length).
    max_actions: int


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A game's facts and classes (see the module docstring).

    ``sides`` says how seats are grouped: ``partnerships`` (fixed pairs in
    ``partnerships``; in a lone-seat variant the lone player against the other pair,
    his partner's seat played by him as the dummy) or ``quintus`` (the hand's quintus
    alone against the two teams of :meth:`teams_of`).
    """

    name: str
    title: str
    num_seats: int
    num_tricks: int
    hand_size: int
    #: The cards dealt, as a mask, and in card order (a card's index in tensors).
    pack: CardMask
    deck: tuple[int, ...]
    #: Cards dealt face down apart (Quinto's cachette), 0 if none.
    cachette_size: int
    action_kinds: frozenset[str]
    #: The phases a hand of this game goes through, in order.
    phases: tuple[Phase, ...]
    #: Actions are numbered 0..num_actions-1 (quintet.actions's shared numbering).
    num_actions: int
    seat_labels: tuple[str, ...]
    #: Short seat names (``N``, ``3``), as information-state strings write them.
    seat_codes: tuple[str, ...]
    variants: Mapping[str, VariantInfo]
    options: tuple[OptionInfo, ...]
    sides: str
    partnerships: tuple[tuple[int, int], ...] | None
    rules_class: type[QuintoRules] | type[QuintusRules]
    state_class: type[QuintoState] | type[QuintusState]
    match_class: type[QuintoMatch] | type[QuintusMatch]
    #: What the sheet of a match is called in the interfaces.
    sheet_title: str
    #: What a won trick's points are called where the log shows them ("" : not shown).
    trick_points: str
    #: Scale that brings a hand's result to about [-1, 1] for search bots.
    reward_scale: float
    #: Solver nodes a bot can expect per CPU second (measured), to turn time into nodes.
    solver_nodes_per_second: int
    #: Tricks left at which pimc's playout of a deal the solver gave up on hands over to
    #: the solver (None: played to the end): measured on the ladder (docs/bots.md).
    playout_solve_tricks: int | None = None
    #: (variant, tricks left) pairs: that variant's hand-over when a card decision has
    #: at least ``pimc.LONG_DECISION`` CPU seconds (measured at 1 s; docs/bots.md).
    playout_solve_tricks_long: tuple[tuple[str, int], ...] = ()
    _solver: str = field(default="", repr=False)

    @property
    def variant_names(self) -> tuple[str, ...]:
        """The variants' names, the default first."""
        return tuple(self.variants)

    @property
    def default_variant(self) -> str:
        """The variant played when none is named."""
        return next(iter(self.variants))

    def variant(self, name: str | None = None) -> VariantInfo:
        """Return the variant ``name`` (default: the first).

        Raises:
            InvalidOptionError: the game has no such variant.
        """
        if name is None:
            name = self.default_variant
        try:
            return self.variants[name]
        except (KeyError, TypeError):
            raise InvalidOptionError(
                f"unknown {self.name} variant {name!r} (known: {', '.join(self.variants)})"
            ) from None

    def option_defaults(self, variant: str | None = None) -> dict[str, int | bool | str]:
        """Return the default value of every option that applies to ``variant`` (default: all)."""
        return {
            o.name: o.default
            for o in self.options
            if variant is None or not o.variants or variant in o.variants
        }

    def rules(
        self, variant: str | None = None, options: Mapping[str, Any] | None = None
    ) -> QuintoRules | QuintusRules:
        """Return the rules of ``variant`` with record-style ``options``.

        Raises:
            InvalidOptionError: an unknown variant or option, or a value of the wrong type.
        """
        return self.rules_class.from_options(self.variant(variant).name, options)

    def deal(
        self,
        rules: QuintoRules | QuintusRules,
        dealer: int,
        rng: random.Random,
        lone_seat: int | None = None,
    ) -> QuintoState | QuintusState:
        """Return a hand of this game dealt at random by ``dealer`` under ``rules``.

        In a lone-seat variant ``lone_seat`` (default: the dealer) plays alone.

        Raises:
            InvalidOptionError: ``rules`` are another game's.
        """
        if isinstance(rules, QuintoRules) and self.state_class is QuintoState:
            if self.variant(rules.variant).lone_seat:
                lone = dealer if lone_seat is None else lone_seat
                return QuintoState.deal(rules, dealer, rng, lone_seat=lone)
            return QuintoState.deal(rules, dealer, rng)
        if isinstance(rules, QuintusRules) and self.state_class is QuintusState:
            return QuintusState.deal(rules, dealer, rng)
        raise InvalidOptionError(f"{type(rules).__name__} are not rules of {self.name}")

    def new_match(
        self,
        rules: QuintoRules | QuintusRules,
        first_dealer: int = 0,
        lone_seat: int | None = None,
    ) -> QuintoMatch | QuintusMatch:
        """Return an empty match under ``rules`` whose first hand ``first_dealer`` deals.

        Where the rules choose the first dealer (Quinto's dummy game: the lone player),
        ``first_dealer`` is not used.

        Raises:
            InvalidOptionError: ``rules`` are another game's.
            ValueError: a lone seat missing or out of range in a lone-seat variant.
        """
        if isinstance(rules, QuintoRules) and self.match_class is QuintoMatch:
            return QuintoMatch.for_record(rules, first_dealer, lone_seat)
        if isinstance(rules, QuintusRules) and self.match_class is QuintusMatch:
            return QuintusMatch.for_record(rules, first_dealer, lone_seat)
        raise InvalidOptionError(f"{type(rules).__name__} are not rules of {self.name}")

    def dummy_of(self, lone_seat: int | None) -> int | None:
        """Return the dummy's seat when ``lone_seat`` plays alone (None: no dummy)."""
        if lone_seat is None or self.partnerships is None:
            return None
        for pair in self.partnerships:
            if lone_seat in pair:
                return pair[1] if pair[0] == lone_seat else pair[0]
        raise InvalidOptionError(f"lone seat {lone_seat} is out of range 0..{self.num_seats - 1}")

    def teams_of(self, quintus: int | None) -> tuple[tuple[int, int], ...] | None:
        """Return the teams against the quintus ``quintus`` (None when there is none)."""
        if self.sides != "quintus" or quintus is None or quintus < 0:
            return None
        return teams_of(quintus)

    def seat_label(self, seat: int) -> str:
        """Return how the interfaces name ``seat`` ("North", "seat 3")."""
        return self.seat_labels[seat]

    @property
    def solver_class(self) -> type[QuintoSolver] | type[QuintusSolver]:
        """The double-dummy solver's class (imported when asked: the ``solver`` extra)."""
        import quintet.solver as solvers

        cls: type[QuintoSolver] | type[QuintusSolver] = getattr(solvers, self._solver)
        return cls

    def solver(self, **options: int) -> QuintoSolver | QuintusSolver:
        """Return a new double-dummy solver for this game (needs the ``solver`` extra).

        ``options`` go to the solver (``tt_bits``, ``max_nodes``).
        """
        return self.solver_class(**options)

    def to_json(self) -> dict[str, Any]:
        """Return the description the browser gets from ``/api/info``."""
        return {
            "name": self.name,
            "title": self.title,
            "seats": self.num_seats,
            "tricks": self.num_tricks,
            "phases": [p.label for p in self.phases],
            "seat_labels": list(self.seat_labels),
            "variants": list(self.variants),
            "variant_info": {
                v.name: {"title": v.title, "lone_seat": v.lone_seat, "players": v.players}
                for v in self.variants.values()
            },
            "options": self.option_defaults(),
            "option_schema": [o.to_json() for o in self.options],
            "sides": self.sides,
            "partnerships": [list(p) for p in self.partnerships] if self.partnerships else None,
            "dummy_of": (
                [self.dummy_of(s) for s in range(self.num_seats)] if self.partnerships else None
            ),
            "teams_of": (
                [[list(t) for t in teams_of(q)] for q in range(self.num_seats)]
                if self.sides == "quintus"
                else None
            ),
            "sheet_title": self.sheet_title,
        }


# Quints in the whole pack, and the most trick points a side can take (12 tricks and the
# cachette, redoubled): no hand result can lie outside plus or minus their sum.
_QUINTO_MAX: Final = 3 * sum(SUIT_QUINT) + JOKER_QUINT + 13 * TRICK_VALUE * 4
# Quintus: 12 faces at 10, every trick melded (4 straights and 4 courts), an open nil.
_QUINTUS_MAX: Final = 12 * 10 + 4 * (STRAIGHT_POINTS + COURT_POINTS) + NIL_BONUS["base"][1]
_QUINTUS_MIN: Final = -24  # every five to ten and no face
_NUM_BIDS: Final = (MAX_BID - MIN_BID) // 2 + 1

QUINTO: Final = GameInfo(
    name="quinto",
    title="Quinto",
    num_seats=4,
    num_tricks=12,
    hand_size=12,
    pack=QUINTO_PACK,
    deck=tuple(mask_cards(QUINTO_PACK)),
    cachette_size=5,
    action_kinds=QuintoState.ACTION_KINDS,
    phases=(Phase.DOUBLING, Phase.PLAY, Phase.OVER),
    num_actions=REDOUBLE + 1,
    seat_labels=QUINTO_SEAT_NAMES,
    seat_codes=tuple(name[0] for name in QUINTO_SEAT_NAMES),
    variants={
        "partnership": VariantInfo(
            "partnership",
            "partnership (four players)",
            players=4,
            lone_seat=False,
            zero_sum=True,
            min_utility=-float(_QUINTO_MAX),
            max_utility=float(_QUINTO_MAX),
            max_actions=4 + 48,
        ),
        "dummy": VariantInfo(
            "dummy",
            "dummy (three players)",
            players=3,
            lone_seat=True,
            # the lone player's result counts once, his two opponents' twice
            zero_sum=False,
            min_utility=-float(_QUINTO_MAX),
            max_utility=float(_QUINTO_MAX),
            max_actions=3 + 48,
        ),
    },
    options=(
        OptionInfo("target", "int", 250, "points that win a game", minimum=1),
        OptionInfo(
            "rubber_bonus",
            "int",
            100,
            "bonus for winning a rubber",
            minimum=0,
            variants=("partnership",),
            scope="match",
        ),
        OptionInfo(
            "dummy_handicap",
            "int",
            25,
            "the lone player's opponents start with it",
            minimum=0,
            variants=("dummy",),
            scope="match",
        ),
        OptionInfo(
            "joker_eleventh_trick",
            "bool",
            False,
            "the modern rule forcing the joker at the 11th trick",
        ),
        OptionInfo(
            "dummy_double_view",
            "choice",
            "own",
            "which hand the lone player doubles from",
            choices=("own", "leading"),
            variants=("dummy",),
        ),
    ),
    sides="partnerships",
    partnerships=((0, 2), (1, 3)),
    rules_class=QuintoRules,
    state_class=QuintoState,
    match_class=QuintoMatch,
    sheet_title="Rubber sheet",
    trick_points="quints",
    reward_scale=1.0 / 200.0,
    solver_nodes_per_second=7_000_000,
    playout_solve_tricks=5,
    playout_solve_tricks_long=(("dummy", 6),),
    _solver="QuintoSolver",
)

QUINTUS: Final = GameInfo(
    name="quintus",
    title="Quintus",
    num_seats=5,
    num_tricks=8,
    hand_size=8,
    pack=QUINTUS_PACK,
    deck=tuple(mask_cards(QUINTUS_PACK)),
    cachette_size=0,
    action_kinds=QuintusState.ACTION_KINDS,
    phases=(Phase.AUCTION, Phase.TRUMP, Phase.NIL, Phase.PLAY, Phase.MELD, Phase.OVER),
    num_actions=NUM_ACTIONS,
    seat_labels=tuple(f"seat {s}" for s in range(5)),
    seat_codes=tuple(str(s) for s in range(5)),
    variants={
        "base": VariantInfo(
            "base",
            "base game",
            players=5,
            lone_seat=False,
            zero_sum=False,
            min_utility=float(_QUINTUS_MIN),
            max_utility=float(_QUINTUS_MAX),
            # trump, nil, 40 cards, 8 melds
            max_actions=2 + 40 + 8,
        ),
        "bidding": VariantInfo(
            "bidding",
            "bidding",
            players=5,
            lone_seat=False,
            zero_sum=True,
            min_utility=-float(MAX_BID),
            max_utility=float(MAX_BID),
            # at most every bid once and five passes; trump, nil, 40 cards, 8 melds
            max_actions=_NUM_BIDS + 5 + 2 + 40 + 8,
        ),
    },
    options=(OptionInfo("hands", "int", 5, "hands in a session", minimum=1, scope="match"),),
    sides="quintus",
    partnerships=None,
    rules_class=QuintusRules,
    state_class=QuintusState,
    match_class=QuintusMatch,
    sheet_title="Ledger",
    trick_points="",
    reward_scale=1.0 / 60.0,
    solver_nodes_per_second=9_000_000,
    _solver="QuintusSolver",
)

GAMES: Final[Mapping[str, GameInfo]] = {QUINTO.name: QUINTO, QUINTUS.name: QUINTUS}


def games() -> tuple[GameInfo, ...]:
    """Return every game's description."""
    return tuple(GAMES.values())


def find_game(name: str) -> GameInfo:
    """Return the game called ``name``.

    Raises:
        InvalidOptionError: no game has that name.
    """
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise InvalidOptionError(f"unknown game {name!r} (known: {', '.join(GAMES)})") from None


def find_variant(name: str, variant: str | None = None) -> VariantInfo:
    """Return the variant ``variant`` (default: the first) of the game ``name``.

    Raises:
        InvalidOptionError: no such game, or no such variant of it.
    """
    return find_game(name).variant(variant)


def game_of(thing: Any) -> GameInfo:
    """Return the description of whatever names its game in ``.game``.

    States, observations, rules, matches and records all do.

    Raises:
        InvalidOptionError: ``thing`` belongs to no known game.
    """
    name = getattr(thing, "game", None)
    if name is None:
        raise InvalidOptionError(f"{type(thing).__name__} belongs to no game")
    return find_game(name)
