"""Quinto and Quintus as OpenSpiel Python games: ``python_quinto`` and ``python_quintus``.

Needs the ``openspiel`` extra (``pip install 'quintet-cards[openspiel]'``). Importing
this module registers nothing; :func:`register` does, once::

    from quintet.integrations import openspiel
    openspiel.register()
    game = pyspiel.load_game("python_quinto", {"variant": "dummy", "lone_seat": 1,
                                               "dealer": 1})
    # or: game = openspiel.load_game("quinto", variant="dummy", lone_seat=1, dealer=1)

One episode is one hand. Parameters: ``variant`` and the rules options that matter in
one hand (see :func:`quintet.integrations.table_spec`): Quinto ``variant``
[partnership], ``dealer`` [0], ``lone_seat`` [0; dummy variant], ``target`` [250],
``joker_eleventh_trick`` [False], ``dummy_double_view`` [own], ``score_ns``,
``score_ew`` [0]; Quintus ``variant`` [base], ``dealer`` [0].

* Chance: the deal, one card per chance node (53 nodes for Quinto, 40 for Quintus, like
  OpenSpiel's hearts): the ``k``-th card goes to seat ``k % seats``, Quinto's last five
  to the cachette. Each outcome is a card still in the pack, all equally likely.
* Players are the deciding seats (:mod:`quintet.integrations`): four in Quinto, three in
  its dummy variant (the seats other than the dummy, in seat order; the lone player
  also plays the dummy's cards), five in Quintus.
* Actions are the project's action numbers (:mod:`quintet.actions`): Quinto uses 0..55
  (cards, pass, double, redouble), Quintus the whole space of 116; Quintus signals are
  never legal (OpenSpiel cannot express out-of-turn actions). ``apply_action`` checks that
  the action is legal (a membership test) and otherwise raises
  :class:`~quintet.errors.IllegalActionError`, leaving the state unchanged.
* Returns, at the end of the hand only (zeros before): a player's seat's
  ``returns()`` (Quinto: its side's hand points minus the other side's; Quintus: the
  seat's score). Quinto partnership and the Quintus bidding game are zero-sum; Quinto's
  dummy variant (lone ``+d``, each opponent ``-d``) and the Quintus base game are
  general-sum.
* Observations (strings and tensors, information state and observation) are computed
  from the engine's ``observation(seat)`` only (:class:`quintet.integrations.Encoder`).
* ``clone()`` costs one engine clone: OpenSpiel copies a Python state by deep-copying
  its attributes, and the one attribute here copies itself with the engine's ``clone``.
* ``resample_from_infostate(player, sampler)`` re-deals the cards the player cannot see
  with the engine's resampling and replays the hand, so the new state's history is
  that of the new deal.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar, Final

import pyspiel

from quintet.actions import NUM_ACTIONS, Action, action_str, is_signal
from quintet.bots import Bot, BotView, Budget, make_bot
from quintet.cards import card_str, mask_cards
from quintet.errors import IllegalActionError, InvalidOptionError
from quintet.game import GameState
from quintet.games import GAMES, find_game
from quintet.integrations import Encoder, TableSpec, hand_option_defaults, table_spec

GAME_NAMES: Final = tuple(f"python_{game}" for game in GAMES)
#: Each game's parameters and their defaults: its variant and the options of one hand.
PARAMETERS: Final[dict[str, dict[str, Any]]] = {
    info.name: {"variant": info.default_variant, **hand_option_defaults(info)}
    for info in GAMES.values()
}
_CHANCE: Final = int(pyspiel.PlayerId.CHANCE)
_TERMINAL: Final = int(pyspiel.PlayerId.TERMINAL)
_TEXT: Final = tuple(action_str(a) for a in range(NUM_ACTIONS))
_GT = pyspiel.GameType


def _game_type(game: str, utility: Any) -> Any:
    info = find_game(game)
    return pyspiel.GameType(
        short_name=f"python_{game}",
        long_name=f"Python {info.title} (quintet)",
        dynamics=_GT.Dynamics.SEQUENTIAL,
        chance_mode=_GT.ChanceMode.EXPLICIT_STOCHASTIC,
        information=_GT.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=_GT.RewardModel.TERMINAL,
        max_num_players=max(v.players for v in info.variants.values()),
        min_num_players=min(v.players for v in info.variants.values()),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=PARAMETERS[game],
    )


def register() -> None:
    """Register ``python_quinto`` and ``python_quintus`` with OpenSpiel (again: no-op).

    The registered types say general-sum; each loaded game's ``get_type()`` gives the
    utility of its variant.
    """
    known = set(pyspiel.registered_names())
    for cls in (QuintoGame, QuintusGame):
        if f"python_{cls.quintet_game}" not in known:
            pyspiel.register_game(_game_type(cls.quintet_game, _GT.Utility.GENERAL_SUM), cls)


def load_game(game: str = "quinto", **params: Any) -> Any:
    """Register the games and return ``python_<game>`` loaded with ``params``.

    Raises:
        InvalidOptionError: unknown game or parameter, or a bad value.
    """
    find_game(game)  # an unknown game's error
    unknown = set(params) - set(PARAMETERS[game])
    if unknown:
        known = ", ".join(sorted(PARAMETERS[game]))
        raise InvalidOptionError(f"unknown {game} parameter {sorted(unknown)[0]!r} ({known})")
    register()
    return pyspiel.load_game(f"python_{game}", params)


def spec_from_params(game: str, params: Mapping[str, Any]) -> TableSpec:
    """Return the table spec of OpenSpiel ``params`` (missing ones take their defaults).

    Raises:
        InvalidOptionError: an unknown parameter or a bad value.
    """
    merged = {**PARAMETERS[game], **params}
    unknown = set(merged) - set(PARAMETERS[game])
    if unknown:
        raise InvalidOptionError(f"unknown {game} parameter {sorted(unknown)[0]!r}")
    variant = merged.pop("variant")
    if "lone_seat" in merged and not find_game(game).variant(variant).lone_seat:
        merged.pop("lone_seat")
    return table_spec(game, variant, **merged)


class QuintetGame(pyspiel.Game):  # type: ignore[misc]
    """One hand of Quinto or Quintus as an OpenSpiel game (see the module docstring)."""

    def __init__(self, game: str, params: Mapping[str, Any] | None = None) -> None:
        params = {**PARAMETERS[game], **(params or {})}
        spec = spec_from_params(game, params)
        utility = _GT.Utility.ZERO_SUM if spec.zero_sum else _GT.Utility.GENERAL_SUM
        info = pyspiel.GameInfo(
            num_distinct_actions=spec.num_actions,
            max_chance_outcomes=max(spec.deck) + 1,
            num_players=spec.num_players,
            min_utility=spec.min_utility,
            max_utility=spec.max_utility,
            utility_sum=0.0 if spec.zero_sum else None,
            max_game_length=spec.max_game_length,
        )
        super().__init__(_game_type(game, utility), info, params)
        self.spec = spec

    def new_initial_state(self) -> QuintetState:
        """Return a hand about to be dealt."""
        return QuintetState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> QuintetObserver:
        """Return an observer (strings and tensors) of the requested kind."""
        return QuintetObserver(self.spec, iig_obs_type, params)

    def max_chance_nodes_in_history(self) -> int:
        """Return the number of chance nodes in a hand: the cards dealt."""
        return self.spec.deal_size

    def state_from_engine(self, engine: GameState) -> QuintetState:
        """Return the OpenSpiel state of an engine state of this game (deal and history).

        ``engine`` must be a hand of this game's rules, dealer and seats from its start
        (its deal and actions are replayed; Quintus signals are skipped).
        """
        out = self.new_initial_state()
        for card in _deal_order(self.spec, engine):
            out.apply_action(card)
        for _, a in engine.history():
            if not is_signal(a):
                out.apply_action(a)
        return out


class QuintoGame(QuintetGame):
    """``python_quinto``."""

    quintet_game: ClassVar[str] = "quinto"

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        super().__init__(self.quintet_game, params)


class QuintusGame(QuintetGame):
    """``python_quintus``."""

    quintet_game: ClassVar[str] = "quintus"

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        super().__init__(self.quintet_game, params)


class _Core:
    """Everything a state holds, in one attribute that deep-copies as a cheap clone.

    While the hand is dealt, ``hands`` collects the cards per slot (seats, then Quinto's
    cachette) and ``left`` the undealt ones; then ``engine`` is the engine's state.
    """

    __slots__ = ("dealt", "engine", "hands", "left", "spec")

    def __init__(self, spec: TableSpec) -> None:
        self.spec = spec
        self.engine: Any = None
        self.hands = [0] * (spec.num_seats + (1 if spec.info.cachette_size else 0))
        self.dealt = 0
        self.left = spec.pack

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        out = _Core.__new__(_Core)
        out.spec = self.spec
        out.engine = None if self.engine is None else self.engine.clone()
        out.hands = self.hands[:]
        out.dealt = self.dealt
        out.left = self.left
        return out

    def deal(self, card: int) -> None:
        spec = self.spec
        self.hands[spec.deal_slot(self.dealt)] |= 1 << card
        self.left ^= 1 << card
        self.dealt += 1
        if self.dealt == spec.deal_size:
            n = spec.num_seats
            cachette = self.hands[n] if spec.info.cachette_size else 0
            self.engine = spec.new_state(self.hands[:n], cachette)


class QuintetState(pyspiel.State):  # type: ignore[misc]
    """A hand of Quinto or Quintus in OpenSpiel (see the module docstring)."""

    def __init__(self, game: QuintetGame) -> None:
        super().__init__(game)
        self._core = _Core(game.spec)

    @property
    def engine(self) -> Any:
        """The engine's state once dealt (every card visible: not for a player), or None."""
        return self._core.engine

    @property
    def spec(self) -> TableSpec:
        """The table spec."""
        return self._core.spec

    def current_player(self) -> int:
        """Return the player to act, CHANCE while dealing, or TERMINAL."""
        e = self._core.engine
        if e is None:
            return _CHANCE
        if e.is_terminal():
            return _TERMINAL
        return self._core.spec.player_of_seat(e.current_player())

    def _legal_actions(self, player: int) -> list[Action]:
        actions = self._core.engine.legal_actions()
        if actions and is_signal(actions[-1]):  # Quintus signals come last: leave them out
            return [a for a in actions if not is_signal(a)]
        return list(actions)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Return the cards still in the pack, each with the same probability."""
        cards = mask_cards(self._core.left)
        p = 1.0 / len(cards)
        return [(c, p) for c in cards]

    def _apply_action(self, action: int) -> None:
        core = self._core
        engine = core.engine
        if engine is None:
            if not core.left >> action & 1:
                raise IllegalActionError(f"no card {action!r} left to deal")
            core.deal(action)
            return
        # Checked (a membership test): a wrong action number from outside would
        # otherwise corrupt the hand; the engine's own search skips this path.
        if action not in engine.legal_actions() or is_signal(action):
            seat = engine.current_player()
            raise IllegalActionError(
                engine.why_illegal(action, seat)
                if 0 <= action < NUM_ACTIONS
                else f"not an action number: {action!r}"
            )
        engine.apply_action(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == _CHANCE:
            return f"deal {card_str(action)}"
        return _TEXT[action]

    def is_terminal(self) -> bool:
        """Return whether the hand is over."""
        e = self._core.engine
        return e is not None and e.is_terminal()

    def returns(self) -> list[float]:
        """Return each player's result for the hand at its end (zeros before)."""
        core = self._core
        spec = core.spec
        e = core.engine
        if e is None or not e.is_terminal():
            return [0.0] * spec.num_players
        r = e.returns()
        return [float(r[s]) for s in spec.players]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> QuintetState:
        """Return a state ``player_id`` cannot tell from this one, the unseen cards re-dealt.

        ``probability_sampler`` is OpenSpiel's (a callable giving floats in [0, 1): one
        call seeds the deal), or a ``random.Random``.
        """
        rng = _rng(probability_sampler)
        core = self._core
        out: QuintetState = self.get_game().new_initial_state()
        if core.engine is None:  # nothing seen yet: any deal of as many cards
            for _ in range(core.dealt):
                out.apply_action(rng.choice(mask_cards(out._core.left)))
            return out
        spec = core.spec
        engine = core.engine.resample_from_infostate(spec.players[player_id], rng)
        for card in _deal_order(spec, engine):
            out.apply_action(card)
        for _, a in engine.history():
            out.apply_action(a)
        return out

    def __deepcopy__(self, memo: dict[int, Any]) -> QuintetState:
        return self.clone()  # type: ignore[no-any-return]

    def __str__(self) -> str:
        core = self._core
        if core.engine is not None:
            return str(core.engine.render())
        spec = core.spec
        names = [*spec.seat_names[: spec.num_seats], "cachette"]
        lines = [f"Dealing: {core.dealt} of {spec.deal_size} cards dealt"]
        slots = spec.num_seats + (1 if spec.info.cachette_size else 0)
        for slot, m in enumerate(core.hands[:slots]):
            lines.append(f"  {names[slot]}: {' '.join(card_str(c) for c in mask_cards(m))}")
        return "\n".join(lines)


def _deal_order(spec: TableSpec, engine: GameState) -> list[int]:
    """Return the chance outcomes that deal ``engine``'s hand in :meth:`TableSpec.deal_slot`
    order."""
    slots = [list(mask_cards(m)) for m in engine.initial_hands()]
    if spec.info.cachette_size:
        cachette = engine.initial_cachette()
        assert cachette is not None, "a game with a cachette deals one"
        slots.append(list(mask_cards(cachette)))
    for s in slots:
        s.reverse()
    return [slots[spec.deal_slot(k)].pop() for k in range(spec.deal_size)]


def _rng(sampler: Any) -> random.Random:
    if isinstance(sampler, random.Random):
        return sampler
    if sampler is None:
        return random.Random()
    return random.Random(int(sampler() * 2**53))


class QuintetObserver:
    """OpenSpiel's observer protocol over :class:`quintet.integrations.Encoder`.

    ``perfect_recall`` gives the information state, else the observation; private
    information is the player's own (``SINGLE_PLAYER``) or none (``NONE``).

    Raises:
        ValueError: observer parameters, no public information, or every player's
            private information (the engines show a player only what it may see).
    """

    def __init__(
        self, spec: TableSpec, iig_obs_type: Any, params: Mapping[str, Any] | None
    ) -> None:
        if params:
            raise ValueError(f"observer parameters are not supported: {dict(params)}")
        kind = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        if not kind.public_info:
            raise ValueError("an observation without public information is not supported")
        private = kind.private_info
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("every player's private information is not observable")
        self._spec = spec
        self._encoder = Encoder(
            spec, kind.perfect_recall, private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        )
        self.tensor = self._encoder.tensor
        self.dict = self._encoder.dict

    def set_from(self, state: QuintetState, player: int) -> None:
        """Write ``player``'s view of ``state`` into ``tensor``."""
        engine = state._core.engine
        seat = self._spec.players[player]
        self._encoder.set_from(None if engine is None else engine.observation(seat), seat)

    def string_from(self, state: QuintetState, player: int) -> str:
        """Return ``player``'s view of ``state`` as text."""
        core = state._core
        seat = self._spec.players[player]
        if core.engine is None:
            return self._encoder.string_from(None, seat, core.dealt)
        return self._encoder.string_from(core.engine.observation(seat), seat)


class QuintetBot(pyspiel.Bot):  # type: ignore[misc]
    """One of the project's bots (:func:`quintet.bots.make_bot`) as an OpenSpiel bot.

    It decides from a :class:`~quintet.bots.BotView` of the engine state (the player's
    observation; the unseen cards re-dealt), so it sees no more than OpenSpiel's own bots.
    ``seconds`` (CPU seconds of the deciding thread, or ``iterations``) is the budget per
    decision; ``seed`` makes it deterministic with an iterations budget.
    """

    def __init__(
        self,
        level: str | Bot = "heuristic",
        seed: int = 0,
        seconds: float | None = None,
        iterations: int | None = None,
    ) -> None:
        pyspiel.Bot.__init__(self)
        self.bot = make_bot(level) if isinstance(level, str) else level
        self._rng = random.Random(seed)
        budget = None if seconds is None and iterations is None else Budget(seconds, iterations)
        self._budget = budget

    def step(self, state: QuintetState) -> int:
        """Return the bot's action for the player to act."""
        engine = state._core.engine
        seat = engine.current_player()
        view = BotView.of(engine, seat, random.Random(self._rng.getrandbits(64)), self._budget)
        legal = [a for a in view.legal if not is_signal(a)]
        view.legal = tuple(legal)
        action = self.bot.act(view)
        if action not in legal:
            raise ValueError(f"bot {self.bot.name} answered an illegal action {action!r}")
        return int(action)

    def restart_at(self, state: QuintetState) -> None:
        """Nothing to forget: the bot keeps no state between decisions."""

    def inform_action(self, state: QuintetState, player_id: int, action: int) -> None:
        """Ignore other players' actions (the view is built from the state)."""


__all__ = [
    "GAME_NAMES",
    "PARAMETERS",
    "QuintetBot",
    "QuintetGame",
    "QuintetObserver",
    "QuintetState",
    "QuintoGame",
    "QuintusGame",
    "load_game",
    "register",
    "spec_from_params",
]
