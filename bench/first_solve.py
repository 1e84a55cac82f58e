"""Wall time of a fresh process's first ``quintet solve`` (issue 11: at most 3 s after install).

    .venv/bin/python bench/first_solve.py [--repeat 3] [--record FILE --hand 0 --at 40]

Every figure is one new process, timed from start to exit (wall), with its CPU time
(user + system, from ``getrusage(RUSAGE_CHILDREN)`` before and after). The solve is
``quintet solve RECORD --hand H --at A`` (default: the bundled quinto-partnership
example before action 40 of hand 0, as in docs/bots.md).

- ``warm``: numba's cache as the install leaves it. ``make`` ends its install with
  ``quintet warm-up``; that is run first (quick when the cache is already warm), then
  the solve ``--repeat`` times (the median is printed).
- ``cold``: ``NUMBA_CACHE_DIR`` set to an empty temporary directory, which numba uses
  before the ``__pycache__`` next to the kernels: what the first solve costs without
  the warm-up. The same solve again in that directory shows it was the cache numba used.
- ``warm-up from scratch``: ``quintet warm-up`` in another empty directory (what the
  install step costs once), then the solve in that directory (the warm-up compiled what
  the solve needs).
- for reference: ``python -c "import numba"`` and ``python -c "import quintet.cli"``.

Wall time depends on the machine's load (other processes compete for the cores); CPU
time much less, so both are printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import quintet

EXAMPLE = Path(quintet.__file__).resolve().parent / "data" / "examples" / "quinto-partnership.json"
TARGET = 3.0  # seconds of wall time for the first solve after install (issue 11)


def quintet_command() -> list[str]:
    """The installed ``quintet`` script next to this Python, else the module."""
    script = Path(sys.executable).with_name("quintet")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from quintet.cli import main; main()"]


def timed(cmd: list[str], cache_dir: str | None) -> tuple[float, float]:
    """Run ``cmd`` in a new process; return (wall seconds, CPU seconds)."""
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def line(what: str, wall: float, cpu: float) -> None:
    print(f"  {what:<46} {wall:>7.2f} s wall {cpu:>7.2f} s CPU", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs of the quick cases (median)")
    ap.add_argument("--record", default=str(EXAMPLE), help="the record to solve")
    ap.add_argument("--hand", type=int, default=0)
    ap.add_argument("--at", type=int, default=40)
    args = ap.parse_args()

    q = quintet_command()
    solve = [*q, "solve", args.record, "--hand", str(args.hand), "--at", str(args.at)]
    warm_up = [*q, "warm-up"]
    print(f"first solve: quintet {' '.join(solve[len(q) :])}")
    print(f"  {'':<46} {'(fresh process each)':>33}")

    def median(cmd: list[str], cache_dir: str | None) -> tuple[float, float]:
        runs = [timed(cmd, cache_dir) for _ in range(args.repeat)]
        return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)

    line("warm: quintet warm-up (the install's last step)", *timed(warm_up, None))
    warm = median(solve, None)
    line(f"warm: first solve (median of {args.repeat})", *warm)
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cold:
        line("cold: first solve, empty NUMBA_CACHE_DIR", *timed(solve, cold))
        line("cold: the same solve again, same directory", *timed(solve, cold))
    with tempfile.TemporaryDirectory(prefix="numba-scratch-") as scratch:
        line("warm-up from scratch (empty NUMBA_CACHE_DIR)", *timed(warm_up, scratch))
        line("  then the first solve there", *timed(solve, scratch))
    line(
        f"reference: import numba (median of {args.repeat})",
        *median([sys.executable, "-c", "import numba"], None),
    )
    line(
        f"reference: import quintet.cli (median of {args.repeat})",
        *median([sys.executable, "-c", "import quintet.cli"], None),
    )
    verdict = "met" if warm[0] <= TARGET else "NOT met"
    print(f"target: first solve after install <= {TARGET:.0f} s wall: {verdict} ({warm[0]:.2f} s)")


if __name__ == "__main__":
    main()
