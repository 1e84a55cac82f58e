"""Double-dummy solver speed: full deals from the opening lead, and later positions.

    .venv/bin/python bench/solver.py [--deals 20] [--seed 1] [--max-seconds 30]

Single-threaded. For each random deal (Quinto: after four passes; Quintus: the
quintus names a random trump, no nil), the solver finds the value and a best card at
the opening lead (``QuintoSolver.best_lead``; Quintus: ``best_move``). A deal that
needs more than ``--max-seconds`` (as a node limit calibrated on this machine) is
counted as unsolved and its time as the limit, so medians and 90th percentiles are
lower bounds when deals go unsolved. The same is measured from later points of
randomly played hands (``--from-trick``), where the solver is used by the bots.

When ``endplay`` is installed (``pip install -e '.[bench]'``), the same run solves
random bridge deals with DDS (best card at the opening lead, one thread) and prints
the ratio of medians.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from typing import Any

from quintet.quinto import QuintoRules, QuintoState
from quintet.quintus import QuintusRules, QuintusState
from quintet.quintus.state import PLAY
from quintet.solver import QuintoSolver, QuintusSolver, SolverLimitError

NODES_PER_SECOND = 8_000_000  # measured on the 2-core machine; sets the node limits


def _quinto_position(rng: random.Random, tricks: int) -> QuintoState:
    s = QuintoState.deal(QuintoRules(target=100_000), rng.randrange(4), rng)
    for _ in range(4):
        s.apply_action(53)  # pass
    while s.tricks_played < tricks or s.trick:
        s.apply_action(rng.choice(s.legal_actions()))
    return s


def _quintus_position(rng: random.Random, tricks: int) -> QuintusState:
    s = QuintusState.deal(QuintusRules(), rng.randrange(5), rng)
    s.apply_action(56 + rng.randrange(5))  # trump
    s.apply_action(61)  # no nil
    while s.phase != PLAY or s.tricks_played < tricks or s.trick:
        acts = [a for a in s.legal_actions() if a < 67]  # no signals
        s.apply_action(rng.choice(acts))
    return s


def _time(solve: Any, state: Any, limit: float) -> tuple[float, bool]:
    t0 = time.perf_counter()
    try:
        solve(state)
    except SolverLimitError:
        return limit, False
    return time.perf_counter() - t0, True


def _stats(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return statistics.median(ordered), p90


def run_quinto(deals: int, seed: int, limit: float, tricks: int) -> tuple[list[float], int]:
    solver = QuintoSolver(tt_bits=22, max_nodes=int(limit * NODES_PER_SECOND))
    rng = random.Random(seed)
    _time(solver.best_lead, _quinto_position(random.Random(-1), 9), limit)  # compile / load
    times, solved = [], 0
    for _ in range(deals):
        t, ok = _time(solver.best_lead, _quinto_position(rng, tricks), limit)
        times.append(t)
        solved += ok
    return times, solved


def run_quintus(deals: int, seed: int, limit: float, tricks: int) -> tuple[list[float], int]:
    solver = QuintusSolver(tt_bits=20, max_nodes=int(limit * NODES_PER_SECOND))
    rng = random.Random(seed)
    _time(solver.best_move, _quintus_position(random.Random(-1), 6), limit)
    times, solved = [], 0
    for _ in range(deals):
        t, ok = _time(solver.best_move, _quintus_position(rng, tricks), limit)
        times.append(t)
        solved += ok
    return times, solved


def run_dds(deals: int, seed: int) -> list[float] | None:
    """Return DDS times for random bridge deals (best card at the opening lead)."""
    try:
        from endplay._dds import SetMaxThreads
        from endplay.dds import solve_board
        from endplay.dds.solve import SolveMode
        from endplay.dealer import generate_deal
        from endplay.types import Denom, Player
    except ImportError:
        return None
    SetMaxThreads(1)
    times = []
    for i in range(deals):
        d = generate_deal(seed=seed * 1000 + i)
        d.first = Player.west
        d.trump = Denom.nt
        t0 = time.perf_counter()
        solve_board(d, SolveMode.OptimalOne)
        times.append(time.perf_counter() - t0)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-seconds", type=float, default=30.0)
    parser.add_argument(
        "--from-trick",
        type=int,
        nargs="*",
        default=[4, 6],
        help="also solve from these tricks of randomly played hands (0 = opening lead)",
    )
    args = parser.parse_args(argv)

    def report(name: str, times: list[float], solved: int) -> float:
        med, p90 = _stats(times)
        note = "" if solved == len(times) else f"  ({len(times) - solved} over the limit)"
        print(
            f"{name:<34} median {med * 1000:>10.1f} ms   p90 {p90 * 1000:>10.1f} ms   "
            f"solved {solved}/{len(times)}{note}",
            flush=True,
        )
        return med

    q_med = report(
        "Quinto full deal, opening lead", *run_quinto(args.deals, args.seed, args.max_seconds, 0)
    )
    for k in args.from_trick:
        if k:
            report(f"Quinto from trick {k + 1}", *run_quinto(args.deals, args.seed, 5.0, k))
    report(
        "Quintus full deal, opening lead",
        *run_quintus(args.deals, args.seed, args.max_seconds, 0),
    )
    for k in args.from_trick:
        if k:
            report(f"Quintus from trick {k + 1}", *run_quintus(args.deals, args.seed, 5.0, k))
    dds = run_dds(max(args.deals, 50), args.seed)
    if dds is None:
        print("endplay not installed (pip install -e '.[bench]'): no DDS comparison")
        return 0
    d_med = report("DDS bridge deal, opening lead", dds, len(dds))
    print(f"ratio Quinto full deal / DDS bridge deal (medians): x{q_med / d_med:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
