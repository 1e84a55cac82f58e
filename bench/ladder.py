"""The strength ladder: duplicate arena matches between neighbouring bot levels.

    .venv/bin/python bench/ladder.py [--game quinto] [--deals 1000] [--jobs 2]
        [--pimc pimc:samples=10] [--ismcts ismcts:iterations=300] [--out ladder.json]

Plays random vs heuristic, heuristic vs ismcts, heuristic vs pimc and pimc vs ismcts,
each over ``--deals`` duplicate deals (quintet.arena), and prints each pair's points per
deal (A minus B) with its 95% confidence interval. The search bots run at reduced,
fixed budgets (samples / iterations, not seconds) so that the results are reproducible
and a thousand deals per pair fit in an hour on two cores.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from quintet.arena import ArenaConfig, run_arena


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--game", default="quinto")
    parser.add_argument("--variant", default=None)
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--pimc", default="pimc:samples=10")
    parser.add_argument("--ismcts", default="ismcts:iterations=300")
    parser.add_argument("--out", default=None, help="write every pair's summary as JSON")
    args = parser.parse_args(argv)
    pairs = [
        ("random", "heuristic"),
        ("heuristic", args.ismcts),
        ("heuristic", args.pimc),
        (args.pimc, args.ismcts),
    ]
    out = []
    for a, b in pairs:
        t0 = time.perf_counter()
        cfg = ArenaConfig(
            game=args.game,
            variant=args.variant,
            bots=(a, b),
            deals=args.deals,
            seed=args.seed,
            jobs=args.jobs,
            rubbers=0,
            records=False,
        )
        result = run_arena(cfg)
        s = result.pairs[0].summary
        lo, hi = s.low or 0.0, s.high or 0.0
        verdict = "not clear"
        if s.clear:
            verdict = f"{a if s.mean > 0 else b} stronger"
        print(
            f"{args.game:<8} {a:>22} vs {b:<22} {s.n:>5} deals  A-B {s.mean:+8.2f} "
            f"[{lo:+.2f}, {hi:+.2f}]  {verdict}  ({time.perf_counter() - t0:.0f} s)",
            flush=True,
        )
        out.append({"a": a, "b": b, **s.to_json()})
    if args.out:
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
