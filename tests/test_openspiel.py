"""The OpenSpiel games: OpenSpiel's own checks, resampling, privacy, cheap clones, its bots."""

from __future__ import annotations

import copy
import random
import subprocess
import sys
import time
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts  # noqa: E402

from quintet.actions import SIGNAL_UP, is_signal  # noqa: E402
from quintet.errors import IllegalActionError, InvalidOptionError  # noqa: E402
from quintet.integrations import openspiel as qos  # noqa: E402

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("quinto", {}),
    ("quinto", {"variant": "dummy", "lone_seat": 1, "dealer": 1}),
    ("quinto", {"variant": "dummy", "dummy_double_view": "leading", "joker_eleventh_trick": True}),
    ("quintus", {}),
    ("quintus", {"variant": "bidding", "dealer": 3}),
]
IDS = ["partnership", "dummy", "dummy-hoyle", "base", "bidding"]


def load(game: str, params: dict[str, Any]) -> Any:
    return qos.load_game(game, **params)


def deal(state: Any, rng: random.Random) -> Any:
    while state.is_chance_node():
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
    return state


def play(state: Any, bots: list[Any], rs: np.random.RandomState) -> list[float]:
    """Play a hand with one OpenSpiel bot per player (chance from ``rs``); return returns."""
    while not state.is_terminal():
        if state.is_chance_node():
            cards, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rs.choice(cards, p=probs)))
        else:
            state.apply_action(int(bots[state.current_player()].step(state)))
    return list(state.returns())


def random_play(state: Any, rng: random.Random, steps: int) -> Any:
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_importing_registers_nothing() -> None:
    code = (
        "import pyspiel, quintet.integrations.openspiel as q\n"
        "before = 'python_quinto' in pyspiel.registered_names()\n"
        "q.register(); q.register()\n"
        "names = pyspiel.registered_names()\n"
        "print(before, 'python_quinto' in names, 'python_quintus' in names)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "True"]


@pytest.mark.parametrize(("game", "params"), VARIANTS, ids=IDS)
def test_openspiel_random_simulation_checks_pass(game: str, params: dict[str, Any]) -> None:
    # Clones, history, legal-action masks and order, observation and information-state
    # strings and tensors at every node, returns within bounds and their sum.
    pyspiel.random_sim_test(load(game, params), num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize(("game", "params"), VARIANTS, ids=IDS)
def test_resampling_keeps_every_players_information_state(
    game: str, params: dict[str, Any]
) -> None:
    # OpenSpiel's ResampleInfostateTest (C++ only), for every player at every decision.
    g = load(game, params)
    rng = random.Random(3)
    state = deal(g.new_initial_state(), rng)
    changed = 0
    while not state.is_terminal():
        for p in range(g.num_players()):
            other = state.resample_from_infostate(p, rng)
            assert other.information_state_string(p) == state.information_state_string(p)
            assert other.information_state_tensor(p) == state.information_state_tensor(p)
            assert other.observation_string(p) == state.observation_string(p)
            assert other.observation_tensor(p) == state.observation_tensor(p)
            assert other.current_player() == state.current_player()
            changed += str(other) != str(state)
        state.apply_action(rng.choice(state.legal_actions()))
    assert changed > 0  # the unseen cards were really dealt again


def test_resampling_uses_openspiels_sampler_and_a_fresh_history() -> None:
    g = load("quinto", {})
    state = random_play(deal(g.new_initial_state(), random.Random(1)), random.Random(2), 9)
    other = state.resample_from_infostate(
        state.current_player(), pyspiel.UniformProbabilitySampler(0.0, 1.0)
    )
    assert len(other.history()) == len(state.history())
    assert other.history()[53:] == state.history()[53:]  # the same actions after the deal
    replay = g.new_initial_state()
    for a in other.history():
        replay.apply_action(a)
    assert str(replay) == str(other)  # the history is the new deal's


@pytest.mark.parametrize(("game", "params"), VARIANTS, ids=IDS)
def test_no_player_sees_a_hidden_card(game: str, params: dict[str, Any]) -> None:
    g = load(game, params)
    spec = g.spec
    state = random_play(deal(g.new_initial_state(), random.Random(5)), random.Random(6), 14)
    engine = state.engine
    for p in range(g.num_players()):
        seat = spec.players[p]
        visible = engine.visible_seats(seat)
        obs = pyspiel.IIGObservationType(perfect_recall=True)
        observer = g.make_py_observer(obs)
        observer.set_from(state, p)
        text = state.information_state_string(p)
        hand_lines = text.splitlines()[1:-1]
        for s in range(spec.num_seats):
            row = observer.dict["hands"][s]
            if s in visible:
                assert row.sum() == engine.hands[s].bit_count()
            else:
                assert not row.any()
                assert not any(line.startswith(f"{spec.seat_names[s]}:") for line in hand_lines)


def test_public_observer_shows_no_hand_and_all_hands_is_refused() -> None:
    g = load("quintus", {})
    state = random_play(deal(g.new_initial_state(), random.Random(7)), random.Random(8), 5)
    public = g.make_py_observer(
        pyspiel.IIGObservationType(perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE)
    )
    assert "hands" not in public.dict
    assert len(public.string_from(state, 0).splitlines()) == 2
    with pytest.raises(ValueError, match="private"):
        g.make_py_observer(
            pyspiel.IIGObservationType(
                perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
            )
        )


@pytest.mark.parametrize(("game", "params"), VARIANTS, ids=IDS)
def test_returns_are_zero_until_the_hand_ends_then_the_engines(
    game: str, params: dict[str, Any]
) -> None:
    g = load(game, params)
    state = deal(g.new_initial_state(), random.Random(9))
    rng = random.Random(10)
    while not state.is_terminal():
        assert state.returns() == [0.0] * g.num_players()
        state.apply_action(rng.choice(state.legal_actions()))
    engine_returns = state.engine.returns()
    assert state.returns() == [engine_returns[s] for s in g.spec.players]
    if g.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM:
        assert sum(state.returns()) == 0


def test_dummy_variant_players_are_the_deciding_seats() -> None:
    g = load("quinto", {"variant": "dummy", "lone_seat": 1, "dealer": 1})
    assert g.num_players() == 3
    assert g.spec.players == (0, 1, 2)  # seat 3 is the dummy, played by seat 1
    assert g.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    state = deal(g.new_initial_state(), random.Random(11))
    rng = random.Random(12)
    dummy_turns = 0
    while not state.is_terminal():
        seat = state.engine.current_player()
        if seat == 3:
            dummy_turns += 1
            assert state.current_player() == 1
            assert set(state.legal_actions()) <= set(
                a for a in range(53) if state.engine.hands[3] >> a & 1
            )
        state.apply_action(rng.choice(state.legal_actions()))
    assert dummy_turns == 12
    north, lone, south = state.returns()  # seats 0, 1 (lone, with the dummy), 2
    assert north == south == -lone


def test_quintus_signals_are_left_out_of_the_action_set() -> None:
    g = load("quintus", {})
    state = deal(g.new_initial_state(), random.Random(13))
    rng = random.Random(14)
    while state.engine.phase != 3 or state.current_player() == state.engine.quintus:
        state.apply_action(rng.choice(state.legal_actions()))
    assert any(is_signal(a) for a in state.engine.legal_actions())  # the engine has them
    assert not any(is_signal(a) for a in state.legal_actions())
    with pytest.raises(IllegalActionError):
        state.apply_action(SIGNAL_UP)


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    g = load("quinto", {})
    state = deal(g.new_initial_state(), random.Random(15))
    before = (str(state), state.history())
    for bad in (0 if 0 not in state.legal_actions() else 1, 55, 200):
        with pytest.raises(IllegalActionError):
            state.apply_action(bad)
    assert (str(state), state.history()) == before
    fresh = g.new_initial_state()
    fresh.apply_action(7)
    with pytest.raises(IllegalActionError, match="no card"):
        fresh.apply_action(7)


def test_a_clone_costs_one_engine_clone() -> None:
    g = load("quinto", {})
    state = random_play(deal(g.new_initial_state(), random.Random(16)), random.Random(17), 20)
    twin = state.clone()
    assert twin.engine is not state.engine
    assert twin.engine.ctx is state.engine.ctx  # the engine's clone, not a deep copy
    assert twin.history() == state.history() and str(twin) == str(state)
    twin.apply_action(twin.legal_actions()[0])
    assert len(twin.history()) == len(state.history()) + 1
    assert copy.deepcopy(state).engine.ctx is state.engine.ctx

    def best(fn: Any, n: int = 200) -> float:
        times = []
        for _ in range(5):
            t = time.perf_counter()
            for _ in range(n):
                fn()
            times.append(time.perf_counter() - t)
        return min(times) / n

    engine = state.engine
    # OpenSpiel's default would deep-copy the engine state: ten times the cost at least.
    assert best(state.clone) * 3 < best(lambda: copy.deepcopy(engine, {}))


@pytest.mark.parametrize(("game", "params"), VARIANTS, ids=IDS)
def test_openspiels_ismcts_and_mcts_bots_play_full_hands(game: str, params: dict[str, Any]) -> None:
    g = load(game, params)
    rs = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(1, rs)
    n = g.num_players()
    for kind in ("ismcts", "mcts"):
        bots: list[Any] = [
            ismcts.ISMCTSBot(g, evaluator, 40.0, 6, random_state=rs)
            if kind == "ismcts"
            else mcts.MCTSBot(g, 40.0, 6, evaluator, random_state=rs)
            for _ in range(n)
        ]
        returns = play(g.new_initial_state(), bots, rs)
        assert len(returns) == n
        assert g.min_utility() <= min(returns) <= max(returns) <= g.max_utility()


def test_quintet_bot_plays_in_openspiel() -> None:
    g = load("quintus", {"variant": "bidding"})
    bots = [qos.QuintetBot("heuristic", seed=s) for s in range(5)]
    rs = np.random.RandomState(1)
    assert sum(evaluate_bots.evaluate_bots(g.new_initial_state(), bots, rs)) == 0


def test_state_from_engine_replays_a_hand() -> None:
    g = load("quinto", {"variant": "dummy"})
    engine = g.spec.deal(random.Random(18))
    rng = random.Random(19)
    for _ in range(17):
        engine.apply_action(rng.choice(engine.legal_actions()))
    state = g.state_from_engine(engine)
    assert str(state) == str(engine.render())
    assert state.engine.history() == engine.history()


def test_parameters_are_the_rules_options() -> None:
    g = load("quinto", {"joker_eleventh_trick": True, "target": 300, "score_ew": 280})
    spec = g.spec
    assert spec.rules.joker_eleventh_trick and spec.rules.target == 300
    assert spec.start_score == (0, 280)
    params = g.get_parameters()
    assert params["target"] == 300 and params["variant"] == "partnership"
    with pytest.raises(InvalidOptionError, match="rubber_bonus"):
        qos.load_game("quinto", rubber_bonus=50)
    with pytest.raises(InvalidOptionError):
        qos.load_game("quinto", dummy_double_view="sideways")
    with pytest.raises(ValueError, match="never deals"):
        qos.load_game("quinto", variant="dummy", lone_seat=2)
    with pytest.raises(InvalidOptionError):
        qos.load_game("hearts")
    # A hand stops as soon as a side reaches the target: East-West are 20 short.
    state = random_play(
        deal(load("quinto", {"score_ew": 245}).new_initial_state(), random.Random(20)),
        random.Random(21),
        60,
    )
    assert state.is_terminal()


def test_game_bounds_and_sizes() -> None:
    for (game, params), players, actions in zip(
        VARIANTS, (4, 3, 3, 5, 5), (56, 56, 56, 116, 116), strict=True
    ):
        g = load(game, params)
        assert g.num_players() == players
        assert g.num_distinct_actions() == actions
        assert g.max_chance_outcomes() == (53 if game == "quinto" else 52)
        assert g.max_chance_nodes_in_history() == g.spec.deal_size
        state = g.new_initial_state()
        assert len(state.chance_outcomes()) == g.spec.deal_size
        assert state.information_state_string(0).endswith("dealing: 0 cards dealt")


@pytest.mark.parametrize(("game", "params"), VARIANTS, ids=IDS)
def test_tensor_parts_hold_what_they_name(game: str, params: dict[str, Any]) -> None:
    g = load(game, params)
    spec = g.spec
    state = random_play(deal(g.new_initial_state(), random.Random(22)), random.Random(23), 30)
    engine = state.engine
    p = spec.player_of_seat(engine.current_player())
    seat = spec.players[p]
    history = engine.history()
    plays = [(s, a) for s, a in history if a < 53]
    info = g.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    info.set_from(state, p)
    d = info.dict
    assert d["viewer"][seat] == 1 and d["viewer"].sum() == 1
    assert d["dealer"][spec.dealer] == 1
    assert d["current_player"][engine.current_player()] == 1
    assert d["plays"].sum() == len(plays)
    n = spec.num_seats
    for k, (s, a) in enumerate(plays):
        assert d["plays"][k // n, s, spec.card_index[a]] == 1
        if k % n == 0:
            assert d["leaders"][k // n, s] == 1
    assert d["leaders"].sum() == (len(plays) + n - 1) // n
    assert np.array_equal(np.asarray(state.information_state_tensor(p)), info.tensor)
    now = g.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False))
    now.set_from(state, p)
    d = now.dict
    assert d["trick"].sum() == len(engine.trick)
    for s in range(n):
        played = sum(1 for t, a in plays if t == s)
        assert d["played"][s].sum() == played
    assert np.array_equal(np.asarray(state.observation_tensor(p)), now.tensor)
    assert now.tensor.min() >= 0 and now.tensor.max() <= 1
