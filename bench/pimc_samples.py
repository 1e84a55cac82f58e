"""Samples per pimc decision at the opening lead, solved exactly or played out.

    .venv/bin/python bench/pimc_samples.py [--deals 10] [--seconds 1.0] [--seed 1]

For random deals of each game (Quinto partnership, everyone passing the doubling round;
Quintus base, trump and nil chosen by the heuristic), asks ``pimc`` for the opening
lead with a budget of ``--seconds`` CPU seconds and prints, per game, the mean number of
sampled deals per decision, how many of them the double-dummy solver valued exactly and
how many it gave up on (valued by heuristic playouts instead), the CPU and wall seconds
per decision, and the solver's nodes per CPU second over the run (what
``quintet.bots.pimc.NODES_PER_CPU_SECOND`` should say on this machine). The first
decision of each game is a warm-up (numba loads the kernels) and is not counted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from typing import Any

from quintet.actions import PASS
from quintet.bots import BotView, Budget, HeuristicBot
from quintet.bots.pimc import NODES_PER_CPU_SECOND, PimcBot
from quintet.game import Phase
from quintet.quinto import QuintoRules, QuintoState
from quintet.quintus import QuintusRules, QuintusState
from quintet.quintus.state import PLAY as QUINTUS_PLAY


def opening_lead(game: str, rng: random.Random) -> Any:
    """Return a random deal of ``game`` at its first card."""
    if game == "quinto":
        s: Any = QuintoState.deal(QuintoRules(target=10_000), rng.randrange(4), rng)
        while s.phase == Phase.DOUBLING:  # the doubling round
            s.apply_action(PASS)
        return s
    s = QuintusState.deal(QuintusRules(variant="base"), rng.randrange(5), rng)
    h = HeuristicBot()
    while s.phase != QUINTUS_PLAY:
        seat = s.current_player()
        s.apply_action(h.act(BotView.of(s, seat, random.Random(rng.getrandbits(64)))), seat)
    return s


def run(game: str, deals: int, seconds: float, seed: int) -> dict[str, float]:
    """Return the means per decision over ``deals`` opening leads of ``game``."""
    rng = random.Random(f"{seed}:{game}")
    bot = PimcBot()
    budget = Budget(seconds=seconds)
    rows: list[tuple[int, int, int, float, float]] = []
    nodes = 0
    solve_cpu = 0.0
    for i in range(deals + 1):
        s = opening_lead(game, rng)
        seat = s.current_player()
        view = BotView.of(s, seat, random.Random(rng.getrandbits(64)), budget)
        t = time.perf_counter()
        bot.act(view)
        wall = time.perf_counter() - t
        if i == 0:
            continue  # the warm-up
        rows.append((bot.last_samples, bot.last_exact, bot.last_fallbacks, bot.last_cpu, wall))
        nodes += bot.last_nodes
        solve_cpu += bot.last_solve_cpu
    mean = statistics.fmean
    return {
        "samples": mean(r[0] for r in rows),
        "exact": mean(r[1] for r in rows),
        "fallbacks": mean(r[2] for r in rows),
        "cpu": mean(r[3] for r in rows),
        "wall": mean(r[4] for r in rows),
        "rate": nodes / solve_cpu if solve_cpu else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per decision")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for game in ("quinto", "quintus"):
        r = run(game, args.deals, args.seconds, args.seed)
        print(
            f"{game:<8} opening lead, {args.seconds:g} CPU s, {args.deals} deals: "
            f"samples {r['samples']:6.1f}  exact {r['exact']:6.1f}  "
            f"played out {r['fallbacks']:6.1f}  CPU {r['cpu']:.3f} s  wall {r['wall']:.3f} s  "
            f"solver {r['rate'] / 1e6:.1f} M nodes/CPU s "
            f"(NODES_PER_CPU_SECOND {NODES_PER_CPU_SECOND[game] / 1e6:g} M)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
