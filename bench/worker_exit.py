"""How soon the search workers die after the server does (issue 10: within 2 s).

    .venv/bin/python bench/worker_exit.py [--rounds 3]

Each round starts a real ``quintet serve``, seats four bots of a level that searches
for 60 s per decision, waits until a worker is busy in a search (its CPU time
grows), then kills the server with SIGKILL or stops it with SIGTERM and measures how
long every process below it (the workers and multiprocessing's resource tracker) takes
to be gone. This is an exit latency, so it is wall time; the machine's load hardly
matters at this scale (the workers die by a kernel signal, PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import argparse
import signal
import statistics
import tempfile
import time

from quintet.server.testing import (
    ServerProcess,
    alive,
    cpu_seconds,
    create_table,
    descendants,
)


def one(how: signal.Signals) -> tuple[int, float]:
    """Return (processes below the server, seconds until they were all gone)."""
    d = tempfile.mkdtemp(prefix="quintet-exit-")
    server = ServerProcess(
        f"sqlite:///{d}/w.db",
        extra=["--bot-level", "slow=pimc:seconds=60", "--search-limit", "120"],
    )
    server.start()
    assert server.proc is not None
    pid = server.proc.pid
    create_table(server.http, {"game": "quinto", "seats": ["slow"] * 4})
    busy: list[int] = []
    deadline = time.monotonic() + 120
    while not busy and time.monotonic() < deadline:
        kids = descendants(pid)
        before = {k: cpu_seconds(k) for k in kids}
        time.sleep(0.5)
        busy = [k for k in kids if cpu_seconds(k) - before[k] > 0.2]
    if not busy:
        server.kill()
        raise SystemExit("no worker started searching")
    kids = descendants(pid)
    t0 = time.monotonic()
    server.proc.send_signal(how)
    server.proc.wait(30)
    while any(alive(k) for k in kids) and time.monotonic() - t0 < 30:
        time.sleep(0.002)
    gone = time.monotonic() - t0
    server.stop()
    return len(kids), gone


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    for how in (signal.SIGKILL, signal.SIGTERM):
        times = []
        n = 0
        for _ in range(args.rounds):
            n, t = one(how)
            times.append(t)
        print(
            f"{how.name:7}: {n} processes below the server gone after "
            f"median {statistics.median(times):.3f} s, max {max(times):.3f} s "
            f"({args.rounds} rounds; the goal is 2 s)"
        )


if __name__ == "__main__":
    main()
