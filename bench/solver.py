"""Double-dummy solver speed against DDS, in CPU time, in one interleaved run.

    .venv/bin/python bench/solver.py [--deals 10] [--cap 20] [--seed 1] [--no-every]

One thread. Each round solves, one after the other: a random Quinto deal from the
opening lead (after four passes), a random Quintus deal from the opening lead (the
quintus names a random trump, no nil), and a few random bridge deals with DDS
``solve_board`` (best card at the opening lead, through ``endplay``: the ``bench``
extra, ``pip install -e '.[bench]'``). Times are CPU seconds of this process
(``time.process_time``), so the machine's load does not change them.

For each game it measures the best card and its value (``best_lead``) and, unless
``--no-every``, every card's value at the opening lead (``move_values``, what the
analysis of a hand needs). A solve that needs more than ``--cap`` CPU seconds (as a
node limit from the nodes per second measured at the start) is counted as unsolved
at the cap, so medians and p90s are lower bounds when deals go unsolved.

The figures are compared with the goal of issue 11: best card median <= DDS's
median and p90 <= 2 x DDS's p90; every card's values <= 3 x DDS's median.
``--from-trick K`` adds the same measures from trick K+1 of randomly played hands.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from quintet.quinto import QuintoRules, QuintoState
from quintet.quintus import QuintusRules, QuintusState
from quintet.quintus.state import PLAY
from quintet.solver import QuintoSolver, QuintusSolver, SolverLimitError


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


def _cpu(solve: Callable[[Any], object], state: Any, cap: float) -> tuple[float, bool]:
    t0 = time.process_time()
    try:
        solve(state)
    except SolverLimitError:
        return cap, False
    return time.process_time() - t0, True


def _stats(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return statistics.median(ordered), p90


def nodes_per_second() -> float:
    """Return the Quinto solver's nodes per CPU second on a few mid-hand positions."""
    solver = QuintoSolver(tt_bits=20)
    rng = random.Random(99)
    nodes = 0
    t0 = time.process_time()
    while time.process_time() - t0 < 1.0:
        solver.value(_quinto_position(rng, 2))
        nodes += solver.nodes
    return nodes / (time.process_time() - t0)


class _Dds:
    def __init__(self, seed: int) -> None:
        from endplay._dds import SetMaxThreads
        from endplay.dds import solve_board
        from endplay.dds.solve import SolveMode
        from endplay.dealer import generate_deal
        from endplay.types import Denom, Player

        SetMaxThreads(1)
        self._solve, self._mode, self._gen = solve_board, SolveMode.OptimalOne, generate_deal
        self._west, self._nt = Player.west, Denom.nt
        self._seed = seed * 1000
        self.times: list[float] = []

    def run(self, n: int) -> None:
        for _ in range(n):
            self._seed += 1
            d = self._gen(seed=self._seed)
            d.first = self._west
            d.trump = self._nt
            t0 = time.process_time()
            self._solve(d, self._mode)
            self.times.append(time.process_time() - t0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--deals", type=int, default=10, help="deals per game (default 10)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cap", type=float, default=20.0, help="CPU seconds per solve")
    parser.add_argument("--dds-per-round", type=int, default=5)
    parser.add_argument("--no-every", action="store_true", help="skip every card's values")
    parser.add_argument("--from-trick", type=int, nargs="*", default=[], metavar="K")
    args = parser.parse_args(argv)

    try:
        dds: _Dds | None = _Dds(args.seed)
    except ImportError:
        dds = None
        print("endplay not installed (pip install -e '.[bench]'): no DDS comparison")
    rate = nodes_per_second()
    limit = int(args.cap * rate)
    print(f"solver: {rate / 1e6:.1f} M nodes per CPU second; cap {args.cap:g} s = {limit:,} nodes")
    quinto = QuintoSolver(tt_bits=22, max_nodes=limit)
    quintus = QuintusSolver(tt_bits=22, max_nodes=limit)
    _cpu(quinto.best_lead, _quinto_position(random.Random(-1), 9), args.cap)  # load / compile
    _cpu(quintus.best_lead, _quintus_position(random.Random(-1), 6), args.cap)

    starts = [0, *args.from_trick]
    rows: dict[str, tuple[list[float], list[bool]]] = {}

    def measure(name: str, solve: Callable[[Any], object], state: Any) -> None:
        t, ok = _cpu(solve, state, args.cap)
        times, solved = rows.setdefault(name, ([], []))
        times.append(t)
        solved.append(ok)

    rngs = {(g, k): random.Random(f"{args.seed}-{g}-{k}") for g in "QU" for k in starts}
    for _ in range(args.deals):
        for k in starts:
            where = "full deal" if k == 0 else f"from trick {k + 1}"
            st = _quinto_position(rngs["Q", k], k)
            measure(f"Quinto {where}, best card", quinto.best_lead, st)
            if not args.no_every:
                measure(f"Quinto {where}, every card", quinto.move_values, st)
            su = _quintus_position(rngs["U", k], k)
            measure(f"Quintus {where}, best card", quintus.best_lead, su)
            if not args.no_every:
                measure(f"Quintus {where}, every card", quintus.move_values, su)
        if dds is not None:
            dds.run(args.dds_per_round)

    def line(name: str, times: list[float], solved: list[bool]) -> None:
        med, p90 = _stats(times)
        n = sum(solved)
        note = "" if n == len(times) else f"  ({len(times) - n} over the cap)"
        print(
            f"{name:<36} median {med * 1000:>9.1f} ms   p90 {p90 * 1000:>9.1f} ms   "
            f"solved {n}/{len(times)}{note}",
            flush=True,
        )

    for name, (times, solved) in rows.items():
        line(name, times, solved)
    if dds is None:
        return 0
    line("DDS bridge deal, best card", dds.times, [True] * len(dds.times))
    d_med, d_p90 = _stats(dds.times)
    print("ratios to DDS (goal: best card median <= 1, p90 <= 2; every card median <= 3):")
    for name, (times, _) in rows.items():
        if "full deal" not in name:
            continue
        med, p90 = _stats(times)
        print(f"  {name:<34} median x{med / d_med:>8.1f}   p90 x{p90 / d_p90:>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
