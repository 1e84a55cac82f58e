"""One hand of one game as the adapters see it: players, seats, actions and bounds.

Every fact comes from the game's description (:mod:`quintet.games`); the options of one
hand are derived from it too (:func:`hand_option_defaults`). The engines' constructors
differ (Quinto's hand has a cachette, a start score and maybe a lone seat), so how a
dealt hand becomes an engine state is one small function per engine, chosen by the
game's ``state_class`` (:data:`_HANDS`), never by its name.

>>> spec = table_spec("quinto", "dummy", lone_seat=1, dealer=1)
>>> spec.players, spec.num_actions, spec.player_of_seat(3)
((0, 1, 2), 56, 1)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from quintet.actions import NUM_ACTIONS, Action, action_str
from quintet.cards import JOKER, CardMask
from quintet.errors import InvalidOptionError
from quintet.games import GAMES, GameInfo, find_game
from quintet.quinto import QuintoRules, QuintoState
from quintet.quinto import random_deal as quinto_deal
from quintet.quintus import QuintusRules, QuintusState
from quintet.quintus import random_deal as quintus_deal

_TEXT: Final = tuple(action_str(a) for a in range(NUM_ACTIONS))

#: Options of a whole match, not of one hand (they never reach an adapter).
#: Wanted from quintet.games: ``OptionInfo.scope`` ("hand" or "match").
#: The options of the match around the hands (a hand's game is the same without them).
_MATCH_OPTIONS: Final = frozenset(
    o.name for info in GAMES.values() for o in info.options if o.scope == "match"
)


def seat_codes(info: GameInfo) -> tuple[str, ...]:
    """Return the short seat names of information-state strings: ``N E S W``, ``0 .. 4``."""
    return info.seat_codes


def _score_options(info: GameInfo) -> tuple[str, ...]:
    """Return the options giving each side's game score before the hand (``score_ns``...).

    Only fixed partnerships carry a game score from hand to hand; each option is named
    after its side's seats.
    """
    if info.partnerships is None:
        return ()
    codes = seat_codes(info)
    return tuple("score_" + "".join(codes[s] for s in pair).lower() for pair in info.partnerships)


def hand_option_defaults(info: GameInfo) -> dict[str, Any]:
    """Return the options of one hand of ``info`` and their defaults, in a stable order.

    They are the ``dealer``, the ``lone_seat`` (a game with a lone-seat variant), the rules
    options that apply to one hand and each side's score before the hand (a game of
    fixed partnerships).
    """
    out: dict[str, Any] = {"dealer": 0}
    if any(v.lone_seat for v in info.variants.values()):
        out["lone_seat"] = 0
    out.update({o.name: o.default for o in info.options if o.name not in _MATCH_OPTIONS})
    out.update(dict.fromkeys(_score_options(info), 0))
    return out


# ------------------------------------------------------------ engines' constructors


@dataclass(frozen=True, slots=True)
class _Hands:
    """How one engine deals a hand: ``deal(rng)`` gives ``(hands, cachette)`` at random
    (cachette 0 without one), ``new(spec, hands, cachette)`` the hand's state."""

    deal: Callable[[random.Random], tuple[list[CardMask], CardMask]]
    new: Callable[[TableSpec, Sequence[CardMask], CardMask], Any]


def _quintus_deal(rng: random.Random) -> tuple[list[CardMask], CardMask]:
    return quintus_deal(rng), 0


def _quinto_hand(spec: TableSpec, hands: Sequence[CardMask], cachette: CardMask) -> Any:
    rules: Any = spec.rules
    return QuintoState.new(rules, spec.dealer, hands, cachette, spec.start_score, spec.lone_seat)


def _quintus_hand(spec: TableSpec, hands: Sequence[CardMask], cachette: CardMask) -> Any:
    rules: Any = spec.rules
    return QuintusState.new(rules, spec.dealer, hands)


#: Per engine (the game's ``state_class``). Wanted from quintet.games:
#: ``GameInfo.new_hand(rules, dealer, hands, cachette, score, lone_seat)``, and a lone
#: seat and start score in ``GameInfo.deal`` (it cannot deal a dummy hand today).
_HANDS: Final[Mapping[type, _Hands]] = {
    QuintoState: _Hands(quinto_deal, _quinto_hand),
    QuintusState: _Hands(_quintus_deal, _quintus_hand),
}


def _hands_of(info: GameInfo) -> _Hands:
    try:
        return _HANDS[info.state_class]
    except KeyError:
        raise InvalidOptionError(f"the integrations cannot deal {info.title}") from None


# ------------------------------------------------------------------------ the spec


class TableSpec:
    """One hand of ``game`` under ``rules``: who plays which seat, actions and bounds.

    Built by :func:`table_spec`. ``players`` are the deciding seats, in seat order
    (player ``i`` sits at ``players[i]``); ``deck`` lists the cards dealt, and a card's
    position in it is its index in tensors. ``info`` is the game's description and
    ``variant_info`` its variant's.
    """

    def __init__(
        self,
        game: str,
        rules: QuintoRules | QuintusRules,
        dealer: int,
        lone_seat: int | None = None,
        start_score: tuple[int, int] = (0, 0),
    ) -> None:
        info = find_game(game)
        variant = info.variant(rules.variant)
        self.info = info
        self.variant_info = variant
        self.game = game
        self.rules = rules
        self.variant = rules.variant
        self.dealer = dealer
        self.lone_seat = lone_seat
        self.start_score = start_score
        self.num_seats = info.num_seats
        # A lone seat out of range has no dummy here: the engine refuses it when dealt.
        in_range = lone_seat is not None and 0 <= lone_seat < info.num_seats
        dummy = info.dummy_of(lone_seat) if in_range else None
        self.dummy_seat = dummy
        self.players: tuple[int, ...] = tuple(s for s in range(self.num_seats) if s != dummy)
        self._player = [
            self.players.index(lone_seat if s == dummy and lone_seat is not None else s)
            for s in range(self.num_seats)
        ]
        self.deck: tuple[int, ...] = info.deck
        index = [-1] * (JOKER + 1)
        for i, c in enumerate(self.deck):
            index[c] = i
        self.card_index: tuple[int, ...] = tuple(index)
        #: The cards dealt, as a mask.
        self.pack: CardMask = info.pack
        self.num_tricks = info.num_tricks
        self.num_actions = info.num_actions
        self.zero_sum = variant.zero_sum
        self.min_utility, self.max_utility = variant.min_utility, variant.max_utility
        self.max_game_length = variant.max_actions
        self.seat_names: tuple[str, ...] = seat_codes(info)
        # "E:pass", "S:2C": a history entry as information-state strings write it.
        self._token = tuple(
            tuple(f"{name}:{_TEXT[a]}" for a in range(NUM_ACTIONS)) for name in self.seat_names
        )
        self._hands = _hands_of(info)

    @property
    def num_players(self) -> int:
        """The number of players (deciding seats)."""
        return len(self.players)

    def player_of_seat(self, seat: int) -> int:
        """Return the player who decides for ``seat`` (the lone player for the dummy)."""
        return self._player[seat]

    def new_state(self, hands: Sequence[CardMask], cachette: CardMask = 0) -> Any:
        """Return the engine's state for a dealt hand (with its cachette, if the game has one).

        Raises:
            ValueError: the cards are not a deal of this game.
        """
        return self._hands.new(self, hands, cachette)

    def deal(self, rng: random.Random) -> Any:
        """Return the engine's state for a hand dealt at random with ``rng``."""
        hands, cachette = self._hands.deal(rng)
        return self.new_state(hands, cachette)

    def deal_slot(self, step: int) -> int:
        """Return where the ``step``-th card of a deal goes: a seat, or ``num_seats`` for the
        cachette (Quinto's: 4).

        Cards go round the seats one at a time (seat 0 first); the last cards, once every
        hand is full, form the cachette.
        """
        if step >= self.num_seats * self.info.hand_size:
            return self.num_seats
        return step % self.num_seats

    @property
    def deal_size(self) -> int:
        """The number of cards dealt: 53 or 40."""
        return len(self.deck)

    def history_token(self, seat: int, action: Action) -> str:
        """Return ``E:pass``: one history entry as information-state strings write it."""
        return self._token[seat][action]

    def header(self, seat: int) -> str:
        """Return the first line of a player's strings: game, variant, dealer, seat."""
        names = self.seat_names
        text = f"{self.game} {self.variant}, dealer {names[self.dealer]}"
        if self.lone_seat is not None:
            text += f", lone {names[self.lone_seat]}"
        return text + f", seat {names[seat]}"

    def __repr__(self) -> str:
        return f"<TableSpec {self.game} {self.variant} dealer {self.dealer}>"


def table_spec(game: str = "quinto", variant: str | None = None, **options: Any) -> TableSpec:
    """Return the spec of one hand of ``game`` with rules ``options``.

    Quinto options: ``dealer`` [0], ``lone_seat`` [0, dummy variant only], ``target``
    [250], ``joker_eleventh_trick`` [False], ``dummy_double_view`` [``own``], and the game
    score before the hand ``score_ns``, ``score_ew`` [0] (a hand stops when a side reaches
    the target). Match options (``rubber_bonus``, ``dummy_handicap``: give it as the
    score; Quintus ``hands``) do not apply to one hand. Quintus options: ``dealer`` [0].
    (:func:`hand_option_defaults` lists them from the game's description.)

    Raises:
        InvalidOptionError: unknown game, variant or option, or a value of the wrong type.
        ValueError: a dealer or lone seat out of range, or a dummy seat that would deal.
    """
    info = find_game(game)
    known = hand_option_defaults(info)
    for name in options:
        if name not in known:
            raise InvalidOptionError(
                f"unknown {game} option {name!r} (known: {', '.join(sorted(known))})"
            )
    dealer = _int_option(options, "dealer", 0)
    rules_options: dict[str, Any] = {
        o.name: options[o.name]
        for o in info.options
        if o.name not in _MATCH_OPTIONS and o.name in options
    }
    rules = info.rules(variant, rules_options)
    lone = _int_option(options, "lone_seat", 0) if info.variant(rules.variant).lone_seat else None
    if lone is None and options.get("lone_seat") is not None:
        alone = ", ".join(v.name for v in info.variants.values() if v.lone_seat)
        raise InvalidOptionError(f"option lone_seat is for the {alone} variant only")
    scores = [_int_option(options, name, 0) for name in _score_options(info)]
    start = (scores[0], scores[1]) if scores else (0, 0)
    spec = TableSpec(info.name, rules, dealer, lone, start)
    spec.deal(random.Random(0))  # the engine checks the dealer and the lone seat
    return spec


def _int_option(options: Mapping[str, Any], name: str, default: int) -> int:
    value = options.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidOptionError(f"option {name} must be an integer, not {value!r}")
    return value


__all__ = ["TableSpec", "hand_option_defaults", "seat_codes", "table_spec"]
