"""Random playouts through the public API: hands/s, transitions/s, card plays/s, copy cost.

    .venv/bin/python bench/playout.py [--seconds 3] [--seed 1] [--game quinto]

Each hand is dealt with the seeded ``random.Random`` (the deal is timed), then every
decision is uniform over ``legal_actions()`` and applied with ``apply_action()``:

    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))

A *transition* is one ``apply_action`` (Quinto: the doubling calls and 48 card plays;
Quintus: the auction, trump, nil, 40 card plays, melds and the signals the seat to
act chooses, since signals are among its legal actions).
The copy cost is ``clone()`` on a hand in mid-play (half its cards played).

When ``pyspiel`` is importable (``pip install -e '.[bench]'``) the same run plays
OpenSpiel's C++ ``hearts`` from Python with the same loop (see openspiel_hearts.py) and
prints the ratios. Hearts deals its cards as 52 chance transitions, which are cheap;
we deal in one step, so the fair per-step comparison is per *decision*, and per hand.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import openspiel_hearts

from quintet.actions import is_play
from quintet.quinto import QuintoRules, QuintoState
from quintet.quintus import QuintusRules, QuintusState

Dealer = Callable[[random.Random, int], Any]


def _quinto(variant: str) -> Dealer:
    rules = QuintoRules(variant=variant)
    lone = 0 if variant == "dummy" else None

    def deal(rng: random.Random, n: int) -> QuintoState:
        dealer = n & 3
        if lone is not None and dealer == 2:
            dealer = 0
        return QuintoState.deal(rules, dealer, rng, lone_seat=lone)

    return deal


def _quintus(variant: str) -> Dealer:
    rules = QuintusRules(variant=variant)

    def deal(rng: random.Random, n: int) -> QuintusState:
        return QuintusState.deal(rules, n % 5, rng)

    return deal


GAMES: dict[str, Callable[[], Dealer]] = {
    "quinto": lambda: _quinto("partnership"),
    "quinto-dummy": lambda: _quinto("dummy"),
    "quintus": lambda: _quintus("base"),
    "quintus-bidding": lambda: _quintus("bidding"),
}


def measure(deal: Dealer, seconds: float, seed: int) -> dict[str, float]:
    """Play random hands for about ``seconds``; return counts and rates."""
    rng = random.Random(seed)
    choice = rng.choice
    hands = transitions = plays = 0
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while True:
        s = deal(rng, hands)
        while not s.is_terminal():
            s.apply_action(choice(s.legal_actions()))
        hist = s.history()
        transitions += len(hist)
        plays += sum(1 for _, a in hist if is_play(a))
        hands += 1
        if time.perf_counter() >= deadline:
            break
    elapsed = time.perf_counter() - t0
    return {
        "hands": hands,
        "transitions": transitions,
        "plays": plays,
        "elapsed_s": elapsed,
        "hands_per_s": hands / elapsed,
        "transitions_per_s": transitions / elapsed,
        "us_per_transition": elapsed / transitions * 1e6,
        "us_per_play": elapsed / plays * 1e6,
        "clone_us": clone_cost(deal, seed),
    }


def clone_cost(deal: Dealer, seed: int, reps: int = 200_000) -> float:
    """Return the mean cost of ``clone()`` in µs on a hand with half its cards played."""
    rng = random.Random(seed)
    s = deal(rng, 0)
    total = sum(m.bit_count() for m in s.hands)
    while not s.is_terminal() and sum(m.bit_count() for m in s.hands) > total // 2:
        s.apply_action(rng.choice(s.legal_actions()))
    clone = s.clone
    t0 = time.perf_counter()
    for _ in range(reps):
        clone()
    return (time.perf_counter() - t0) / reps * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", choices=[*GAMES, "all"], default="all")
    args = parser.parse_args(argv)
    names = list(GAMES) if args.game == "all" else [args.game]
    results = {}
    for name in names:
        r = measure(GAMES[name](), args.seconds, args.seed)
        results[name] = r
        print(
            f"{name:<14} {r['hands_per_s']:>9,.0f} hands/s  "
            f"{r['transitions_per_s']:>10,.0f} transitions/s  "
            f"{r['us_per_transition']:.3f} µs/transition  "
            f"{r['plays'] / r['elapsed_s']:>10,.0f} plays/s  "
            f"{r['us_per_play']:.3f} µs/play  "
            f"clone {r['clone_us']:.3f} µs"
        )
    if not openspiel_hearts.available():
        print("OpenSpiel not installed (pip install -e '.[bench]'): no hearts comparison")
        return 0
    h = openspiel_hearts.measure(args.seconds, args.seed)
    print(
        f"{'hearts (C++)':<14} {h['hands_per_s']:>9,.0f} hands/s  "
        f"{h['transitions_per_s']:>10,.0f} transitions/s  "
        f"{h['us_per_transition']:.3f} µs/transition  "
        f"({h['us_per_decision']:.3f} µs/decision, {h['us_per_play']:.3f} µs/play)  "
        f"clone {h['clone_us']:.3f} µs"
    )
    for name, r in results.items():
        print(
            f"ratio {name} / hearts: "
            f"hands/s x{r['hands_per_s'] / h['hands_per_s']:.2f}, "
            f"per decision x{h['us_per_decision'] / r['us_per_transition']:.2f} "
            f"(>1 = we are faster), "
            f"per transition incl. hearts' chance steps "
            f"x{h['us_per_transition'] / r['us_per_transition']:.2f}, "
            f"clone x{h['clone_us'] / r['clone_us']:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
