"""The strength ladder: every pair of bot levels in duplicate, and one rating per level.

    .venv/bin/python bench/ladder.py [--game quinto] [--variant V] [--deals 1000] [--jobs 2]
        [--seed 2026] [--levels a,b,c] [--out ladder.json]

Plays every pair of levels over ``--deals`` duplicate deals each (``quintet arena
--ladder``, :func:`quintet.arena.run_ladder`) and prints the ratings strongest first
(Bradley–Terry on duplicate deals, Elo scale, random at 0, 95% bootstrap intervals) and
each pair's points per deal (A minus B) with its 95% confidence interval.

The levels are every level of :func:`quintet.bots.levels` (a new level joins by itself),
the search bots at the reduced, fixed budgets of :data:`REDUCED` (samples, iterations and
node limits, not seconds) so that the results are reproducible and do not depend on the
machine; a level not in :data:`REDUCED` plays at its own default budget, which may be CPU
seconds (the script says so). ``--levels`` names the levels (with parameters) instead.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Final

from quintet.arena import ArenaConfig, run_ladder
from quintet.bots import levels

#: Each search level's reduced, fixed budget (the ladder of docs/bots.md).
REDUCED: Final = {
    "ismcts": "ismcts:iterations=300",
    "pimc": "pimc:samples=10:max_nodes=20000",
}


def default_levels() -> list[str]:
    """Return every bot level, the search levels at their :data:`REDUCED` budgets."""
    return [REDUCED.get(level, level) for level in levels()]


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the pool's workers)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--game", default="quinto")
    parser.add_argument("--variant", default=None)
    parser.add_argument("--deals", type=int, default=1000, help="duplicate deals per pair")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--levels", default=None, help="a,b,c (default: every level)")
    parser.add_argument("--out", default=None, help="write the ladder as JSON")
    args = parser.parse_args(argv)
    names = args.levels.split(",") if args.levels else default_levels()
    fixed = {"random", "heuristic", *REDUCED.values()}
    for name in names:
        if name not in fixed and ":" not in name:
            print(f"note: {name} plays at its default budget", file=sys.stderr)
    cfg = ArenaConfig(
        game=args.game,
        variant=args.variant,
        bots=tuple(names),
        deals=args.deals,
        seed=args.seed,
        jobs=args.jobs,
        progress=True,
    )
    t0, c0 = time.perf_counter(), _cpu()
    result = run_ladder(cfg)
    print(result.table())
    print(f"\n{time.perf_counter() - t0:.0f} s wall, {_cpu() - c0:.0f} CPU s (workers included)")
    if args.out:
        result.write_json(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
