"""The PettingZoo environments: PettingZoo's own API and seed tests, masks, rewards."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test

from quintet.actions import is_signal
from quintet.errors import IllegalActionError, InvalidOptionError
from quintet.integrations.pettingzoo import env, raw_env

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("quinto", {}),
    ("quinto", {"variant": "dummy", "lone_seat": 1, "dealer": 1}),
    ("quinto", {"perfect_recall": True, "joker_eleventh_trick": True}),
    ("quintus", {}),
    ("quintus", {"variant": "bidding", "dealer": 2}),
]
IDS = ["partnership", "dummy", "partnership-recall", "base", "bidding"]
# PettingZoo exempts its own dict-observation environments from these two by name.
EXPECTED_WARNINGS = ("Observation space for each agent probably", "Observation is not a NumPy")


def random_hand(e: Any, seed: int) -> dict[str, float]:
    """Play a hand with random legal actions; return each agent's total reward."""
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(e.agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


@pytest.mark.parametrize(("game", "options"), VARIANTS, ids=IDS)
def test_pettingzoo_api_test_passes(game: str, options: dict[str, Any]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(game, **options), num_cycles=200)
    unexpected = [
        str(w.message) for w in caught if not str(w.message).startswith(EXPECTED_WARNINGS)
    ]
    assert unexpected == []


@pytest.mark.parametrize(("game", "options"), VARIANTS, ids=IDS)
def test_pettingzoo_seed_test_passes(game: str, options: dict[str, Any]) -> None:
    seed_test(lambda: env(game, **options), num_cycles=200)


def test_the_same_seed_deals_the_same_hand() -> None:
    a, b = raw_env("quinto"), raw_env("quinto")
    a.reset(seed=5)
    b.reset(seed=5)
    assert a.hand.hands == b.hand.hands
    b.reset(seed=6)
    assert a.hand.hands != b.hand.hands
    first = a.hand.hands
    a.reset()  # no seed: the generator goes on
    assert a.hand.hands != first


@pytest.mark.parametrize(("game", "options"), VARIANTS, ids=IDS)
def test_the_mask_is_the_agent_to_acts_legal_actions(game: str, options: dict[str, Any]) -> None:
    e = raw_env(game, **options)
    e.reset(seed=1)
    rng = random.Random(2)
    while not e.hand.is_terminal():
        acting = e.agent_selection
        legal = [a for a in e.hand.legal_actions() if not is_signal(a)]
        for agent in e.agents:
            obs = e.observe(agent)
            assert e.observation_space(agent).contains(obs)
            expected = legal if agent == acting else []
            assert list(np.flatnonzero(obs["action_mask"])) == expected
        e.step(rng.choice(legal))


def test_the_lone_player_plays_the_dummys_cards() -> None:
    e = raw_env("quinto", "dummy", lone_seat=1, dealer=1)
    e.reset(seed=3)
    assert e.possible_agents == ["seat_0", "seat_1", "seat_2"]
    rng = random.Random(4)
    dummy_turns = 0
    while not e.hand.is_terminal():
        if e.hand.current_player() == 3:
            dummy_turns += 1
            assert e.agent_selection == "seat_1"
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        e.step(int(rng.choice(list(legal))))
    assert dummy_turns == 12


@pytest.mark.parametrize(("game", "options"), VARIANTS, ids=IDS)
def test_rewards_are_the_hands_returns(game: str, options: dict[str, Any]) -> None:
    e = env(game, **options)
    totals = random_hand(e, seed=8)
    hand = e.unwrapped.hand
    returns = hand.returns()
    assert totals == {f"seat_{s}": returns[s] for s in e.unwrapped.spec.players}
    assert e.agents == []


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    e = raw_env("quintus")
    e.reset(seed=9)
    before = e.hand.history()
    mask = e.observe(e.agent_selection)["action_mask"]
    for bad in (int(np.flatnonzero(mask == 0)[0]), 67, 500):
        with pytest.raises(IllegalActionError):
            e.step(bad)
    assert e.hand.history() == before


def test_unknown_options_are_refused() -> None:
    with pytest.raises(InvalidOptionError):
        env("quinto", rubber_bonus=10)
    with pytest.raises(InvalidOptionError):
        env("quintus", "solo")
    with pytest.raises(InvalidOptionError):
        env("quinto", render_mode="video")


def test_render_shows_the_table() -> None:
    e = raw_env("quinto", render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert text is not None and text.startswith("Quinto (partnership)")
