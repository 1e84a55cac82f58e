"""Step cost through the OpenSpiel and PettingZoo integrations against the native API.

    .venv/bin/python bench/integrations.py [--game quinto|quintus|all] [--variant V]
        [--seconds 2] [--seed 1]

Plays random full hands (a uniform choice among the legal actions at every decision,
from one ``random.Random(seed)``) for about ``--seconds`` each way, in one run:

``native``
    ``spec.deal(rng)``, then ``legal_actions()`` and ``apply_action()`` on the engine
    state (Quintus signals left out of the choice, as the integrations do).
``native+obs``
    the same, plus the acting seat's ``observation(seat)`` at every decision: what an
    agent has to look at, the fair baseline for the two rows that build tensors.
``openspiel``
    ``game.new_initial_state()``, the deal as 53 (Quinto) or 40 (Quintus) chance nodes
    (``chance_outcomes()`` and ``apply_action()``), then ``legal_actions()`` and
    ``apply_action()`` at every decision: OpenSpiel's own playout loop.
``openspiel+tensor``
    the same plus ``information_state_tensor()`` of the player to act at every decision.
``pettingzoo``
    ``env.reset(seed)`` and, for every agent from ``agent_iter()``: ``last()`` (its
    observation tensor and action mask) and ``step()`` (a random legal action, or None
    when its hand is over), through PettingZoo's order-enforcing wrapper.

A *step* is one decision (the deal is charged to the decisions of its hand); the table
gives hands per second, microseconds per decision and the ratio to ``native``, then the
cost of copying a state after 20 cards: the engine's ``clone()`` and OpenSpiel's
``state.clone()``.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from quintet.actions import is_play, is_signal
from quintet.games import GAMES, find_game
from quintet.integrations import table_spec


def _native(spec: Any, rng: random.Random, observe: bool) -> int:
    s = spec.deal(rng)
    n = 0
    choice = rng.choice
    while not s.is_terminal():
        legal = s.legal_actions()
        if is_signal(legal[-1]):  # Quintus signals come last
            legal = [a for a in legal if not is_signal(a)]
        if observe:
            s.observation(s.current_player())
        s.apply_action(choice(legal))
        n += 1
    return n


def _openspiel(game: Any, rng: random.Random, tensor: bool) -> int:
    s = game.new_initial_state()
    choice = rng.choice
    while s.is_chance_node():
        s.apply_action(choice(s.chance_outcomes())[0])
    n = 0
    while not s.is_terminal():
        if tensor:
            s.information_state_tensor()
        s.apply_action(choice(s.legal_actions()))
        n += 1
    return n


def _pettingzoo(env: Any, rng: random.Random) -> int:
    env.reset(seed=rng.getrandbits(32))
    n = 0
    choice = rng.choice
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(choice(np.flatnonzero(obs["action_mask"]).tolist()))
        n += 1
    return n


def run(fn: Callable[[], int], seconds: float) -> tuple[int, int, float]:
    """Call ``fn`` (one hand) until ``seconds`` pass; return hands, decisions, elapsed."""
    fn()  # warm-up
    hands = steps = 0
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while True:
        steps += fn()
        hands += 1
        if time.perf_counter() >= deadline:
            break
    return hands, steps, time.perf_counter() - t0


def clone_costs(spec: Any, game: Any, seed: int, reps: int = 20_000) -> tuple[float, float]:
    """Return microseconds per engine clone and per OpenSpiel clone after 20 cards."""
    rng = random.Random(seed)
    engine = spec.deal(rng)
    cards = 0
    while cards < 20:
        legal = [a for a in engine.legal_actions() if not is_signal(a)]
        a = rng.choice(legal)
        cards += is_play(a)
        engine.apply_action(a)
    state = game.state_from_engine(engine)
    out = []
    for fn in (engine.clone, state.clone):
        fn()
        t = time.perf_counter()
        for _ in range(reps):
            fn()
        out.append((time.perf_counter() - t) / reps * 1e6)
    return out[0], out[1]


def bench(game_name: str, variant: str, seconds: float, seed: int) -> None:
    """Print the table for one game and variant."""
    spec = table_spec(game_name, variant)
    rows: list[tuple[str, Callable[[], int]]] = []
    rng = random.Random(seed)
    rows.append(("native", lambda: _native(spec, rng, False)))
    rows.append(("native+obs", lambda: _native(spec, rng, True)))
    game = None
    try:
        from quintet.integrations import openspiel

        game = openspiel.load_game(game_name, variant=variant)
        rows.append(("openspiel", lambda: _openspiel(game, rng, False)))
        rows.append(("openspiel+tensor", lambda: _openspiel(game, rng, True)))
    except ImportError:
        print("(OpenSpiel is not installed: pip install -e '.[openspiel]')")
    try:
        from quintet.integrations.pettingzoo import env as make_env

        e = make_env(game_name, variant)
        rows.append(("pettingzoo", lambda: _pettingzoo(e, rng)))
    except ImportError:
        print("(PettingZoo is not installed: pip install -e '.[pettingzoo]')")
    print(f"\n{game_name} {variant}  ({seconds:g} s each)")
    print(f"{'api':<18} {'hands':>7} {'hands/s':>9} {'decisions/hand':>15} {'us/decision':>12} "
          f"{'x native':>9}")  # fmt: skip
    base = None
    for name, fn in rows:
        hands, steps, elapsed = run(fn, seconds)
        per = elapsed / steps * 1e6
        base = base or per
        print(
            f"{name:<18} {hands:>7} {hands / elapsed:>9.1f} {steps / hands:>15.1f} "
            f"{per:>12.1f} {per / base:>9.2f}"
        )
    if game is not None:
        native, os_clone = clone_costs(spec, game, seed)
        print(
            f"clone after 20 cards: engine {native:.2f} us, OpenSpiel {os_clone:.2f} us "
            f"(x{os_clone / native:.1f})"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--game", default="all", choices=(*GAMES, "all"))
    parser.add_argument("--variant", default=None)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    games = tuple(GAMES) if args.game == "all" else (args.game,)
    for g in games:
        for v in (args.variant,) if args.variant else find_game(g).variant_names:
            bench(g, v, args.seconds, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
