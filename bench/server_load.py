"""Load benchmark of ``quintet serve``: N tables of scripted websocket players.

Starts the server (a subprocess, SQLite in a temporary directory unless --db), then for
each N: opens N Quinto tables whose four seats are websocket clients that play a legal
action the moment it is their turn (and say ``next`` after each hand), and measures for
``--seconds``:

* actions per second (accepted, stored and sent to the four players);
* the server's CPU time per action: the server process's user and system time
  (``/proc/PID/stat``, every thread) over the measuring window, divided by the actions
  taken in it; and of that, the event loop's thread and the system (kernel) time;
* action to broadcast: from a client sending its action to that client receiving the
  message holding it (median and 99th percentile), and to the last of the table's four
  players receiving it;
* errors: error messages and connections lost;
* the floor, in the same run: a bare websocket echo round trip on the same server (same
  uvicorn, same websocket stack, ``/bench/echo``) with N clients doing the same at
  once (its latency, and the server's CPU time per round trip), and a single unloaded
  client;
* the fan-out floor, in the same run: an action's traffic with nothing of a table (one
  message of an update's size in, sent to the four members of its group: ``/bench/fanout``)
  with N groups of four clients doing it at once, and the ratio of its p99 to the echo's:
  what the stack alone makes of the p99 goal (``--no-fanout`` leaves it out).

Run: ``.venv/bin/python bench/server_load.py`` (``--tables 10,100,500 --seconds 10``).

By default every client acts the moment it may (closed loop, no pause): the server is
saturated, so an action waits behind every other table's and its latency is mostly
queueing, about ``N`` times the server's CPU per action; the echo's likewise, ``N`` times
its CPU per round trip. Their p99 ratio is then close to the ratio of the two CPU costs.
``--think S`` makes each player (and each echo client) wait about ``S`` seconds before
acting (uniformly 0.5 S to 1.5 S), an offered load below saturation, as at a real site:
the latencies then show the time an action takes through the server more than the
queue.
All clients run in this one process (uvloop when available): on a 2-core machine the
server and the clients share the two cores. The server takes a scripted player's pace
(its per-connection message rate raised: ``--set rate=...``).

Looking inside: ``--profile FILE`` runs the server under cProfile and writes its
statistics to FILE when it stops (``python -m pstats FILE``; its clock is the wall's,
so a write that lets a client run first looks long); ``--sample FILE`` under
``bench/sampler.py``, sampling only the measuring windows. ``QUINTET_BENCH_PYTHON`` (a
command, split on spaces) runs the server's Python through a wrapper of one's own
(it gets ``-m quintet.cli serve ...``), and ``QUINTET_BENCH_SIGNALS=1`` sends the
server SIGUSR1 when a measuring window opens and SIGUSR2 when it closes.

The clients follow the table with either protocol version: version 1 sends a whole
``state`` message after every change; version 2 a ``state`` on connect and an
``update`` (what changed) after every change.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets

from quintet.server.security import new_cookie
from quintet.server.testing import ServerProcess

JSON = dict[str, Any]


def pct(xs: list[float], q: float) -> float:
    """Return the q-quantile of xs in milliseconds (0 when empty)."""
    if not xs:
        return 0.0
    s = sorted(xs)
    return 1000 * s[min(len(s) - 1, int(q * len(s)))]


def cpu_times(pid: int, tid: int | None = None) -> tuple[float, float]:
    """Return a process's user and system CPU seconds, all its threads (Linux); with
    ``tid``, that thread's only."""
    path = f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat"
    try:
        with open(path) as f:
            parts = f.read().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        return int(parts[11]) / tick, int(parts[12]) / tick
    except OSError:  # pragma: no cover - not Linux
        return float("nan"), float("nan")


def cpu_seconds(pid: int) -> float:
    """Return a process's user + system CPU seconds, all its threads (Linux)."""
    user, system = cpu_times(pid)
    return user + system


# ------------------------------------------------------------------------ echo


async def echo_floor(
    url: str, clients: int, seconds: float, pid: int, size: int = 1000, think: float = 0.0
) -> tuple[list[float], float]:
    """Run ``clients`` closed-loop echo clients for ``seconds``, each waiting ``think``
    seconds before each round trip.

    Returns the round-trip times and the server's CPU seconds per round trip.
    """
    payload = json.dumps({"type": "echo", "pad": "x" * size})
    lat: list[float] = []
    opened = 0
    all_open = asyncio.Event()
    go = asyncio.Event()
    stop = 0.0

    sem = asyncio.Semaphore(100)  # connections opened at once

    async def one() -> None:
        nonlocal opened
        async with sem:
            ws = await websockets.connect(url, compression=None, max_size=2**22)
        opened += 1
        if opened == clients:
            all_open.set()
        try:
            await go.wait()
            while time.perf_counter() < stop:
                if think:
                    await asyncio.sleep(think * (0.5 + random.random()))
                t = time.perf_counter()
                await ws.send(payload)
                await ws.recv()
                lat.append(time.perf_counter() - t)
        finally:
            await ws.close()

    tasks = [asyncio.create_task(one()) for _ in range(clients)]
    await asyncio.wait_for(all_open.wait(), timeout=300)
    c0 = cpu_seconds(pid)
    stop = time.perf_counter() + seconds
    go.set()
    await asyncio.gather(*tasks)
    cpu = cpu_seconds(pid) - c0
    return lat, cpu / max(len(lat), 1)


#: A text of an ``update``'s size (some 400 bytes), for the fan-out floor.
FANOUT_TEXT = json.dumps(
    {
        "type": "update",
        "table": "Xv3k9QmZ0aBc",
        "seq": 58,
        "hand": {
            "actions": 57,
            "turn": 3,
            "hand_sizes": [9, 9, 9, 10],
            "trick": [{"seat": 0, "card": "AS"}, {"seat": 1, "card": "5S"}],
        },
        "log": {
            "hand": 0,
            "from": 71,
            "events": [
                {
                    "kind": "action",
                    "seat": 2,
                    "text": "South: 3S",
                    "action": {"seat": 2, "type": "play", "card": "3S"},
                }
            ],
        },
        "legal": [{"seat": 3, "type": "play", "card": c} for c in ("4S", "9S", "KS")],
    }
)


async def fanout_floor(
    url: str, groups: int, seconds: float, pid: int, think: float = 0.0
) -> tuple[list[float], list[float], float]:
    """Run ``groups`` groups of four clients on ``/bench/fanout``: in turn one member
    sends an update-sized text and the server sends it to all four (an action's
    traffic, one message in and four out, with nothing of a table), closed loop or
    after ``think`` seconds on average.

    Returns the times to the sender and to the last of the four, and the server's CPU
    seconds per fan-out.
    """
    to_actor: list[float] = []
    to_all: list[float] = []
    opened = 0
    all_open = asyncio.Event()
    go = asyncio.Event()
    stop = 0.0
    sem = asyncio.Semaphore(100)
    rng = random.Random(groups)

    async def group(g: int) -> None:
        nonlocal opened
        wss = []
        for _ in range(4):
            async with sem:
                wss.append(await websockets.connect(f"{url}/{g}", compression=None, max_size=2**22))
        opened += 1
        if opened == groups:
            all_open.set()
        try:
            await go.wait()
            i = 0
            while time.perf_counter() < stop:
                if think:
                    await asyncio.sleep(think * (0.5 + rng.random()))
                actor = wss[i % 4]
                t = time.perf_counter()
                await actor.send(FANOUT_TEXT)
                json.loads(await actor.recv())  # the clients read what they get
                to_actor.append(time.perf_counter() - t)
                for w in wss:
                    if w is not actor:
                        json.loads(await w.recv())
                to_all.append(time.perf_counter() - t)
                i += 1
        finally:
            for w in wss:
                await w.close()

    tasks = [asyncio.create_task(group(g)) for g in range(groups)]
    await asyncio.wait_for(all_open.wait(), timeout=300)
    c0 = cpu_seconds(pid)
    stop = time.perf_counter() + seconds
    go.set()
    await asyncio.gather(*tasks)
    cpu = cpu_seconds(pid) - c0
    return to_actor, to_all, cpu / max(len(to_all), 1)


# ---------------------------------------------------------------------- tables


@dataclass
class Stats:
    """What the table clients measured."""

    measuring: bool = False
    actions: int = 0
    to_actor: list[float] = field(default_factory=list)
    to_all: list[float] = field(default_factory=list)
    errors: int = 0
    lost: int = 0


@dataclass
class TableRun:
    """One table's four clients and the times its actions were sent."""

    id: str
    sent: dict[int, tuple[float, int]] = field(default_factory=dict)  # seq -> (time, actor)
    seen: dict[int, int] = field(default_factory=dict)  # seq -> clients that got it


async def seat_client(
    url: str,
    table: TableRun,
    seat: int,
    stats: Stats,
    stop: asyncio.Event,
    ready: Any,
    sem: asyncio.Semaphore,
    think: float = 0.0,
) -> None:
    """Take ``seat`` and play a legal action whenever it is this seat's turn, after
    ``think`` seconds on average (uniform between half and one and a half times it)."""
    rng = random.Random(seat)
    async with sem:
        ws = await websockets.connect(
            url,
            compression=None,
            max_size=2**22,
            open_timeout=120,
            # Each client is a person of its own (a browser's cookie) to hold a seat.
            additional_headers={"Cookie": f"quintet_person={new_cookie()}"},
        )
    # What the client follows of the table: the fields it acts on.
    status = "waiting"
    legal: list[JSON] = []
    hand: JSON = {}
    async with ws:
        await ws.send(json.dumps({"type": "hello", "table": table.id}))
        await ws.send(json.dumps({"type": "join", "seat": seat, "name": f"p{seat}"}))
        ready()
        next_sent = -1
        try:
            while not stop.is_set():
                try:
                    raw = await asyncio.wait_for(ws.recv(), timeout=1.0)
                except TimeoutError:
                    continue
                now = time.perf_counter()
                m = json.loads(raw)
                kind = m["type"]
                if kind == "error":
                    stats.errors += 1
                    continue
                if kind not in ("state", "update"):
                    continue
                seq = m["seq"]
                status = m.get("status", status)
                legal = m.get("legal", legal)
                h = m.get("hand")
                if h is not None:
                    hand = {**hand, **h} if kind == "update" else h
                sent = table.sent.get(seq)
                if sent is not None:
                    t0, actor = sent
                    n = table.seen.get(seq, 0) + 1
                    table.seen[seq] = n
                    if stats.measuring:
                        if actor == seat:
                            stats.to_actor.append(now - t0)
                        if n == 4:
                            stats.to_all.append(now - t0)
                    if n == 4:
                        del table.sent[seq]
                        table.seen.pop(seq, None)
                if status == "hand_over" and next_sent != hand["number"]:
                    next_sent = hand["number"]
                    await ws.send('{"type":"next"}')
                    continue
                if status == "playing" and legal:
                    action = legal[0] if hand["phase"] != "play" else rng.choice(legal)
                    legal = []  # sent: wait for the next message
                    if think:
                        await asyncio.sleep(think * (0.5 + rng.random()))
                    table.sent[seq + 1] = (time.perf_counter(), seat)
                    if stats.measuring:
                        stats.actions += 1
                    await ws.send(json.dumps({"type": "act", "action": action, "expect": seq}))
        except websockets.ConnectionClosed:
            if not stop.is_set():
                stats.lost += 1


async def run_tables(
    server: ServerProcess,
    n: int,
    seconds: float,
    warmup: float,
    sample: bool = False,
    think: float = 0.0,
) -> JSON:
    """Open ``n`` tables of four scripted clients; measure for ``seconds``."""
    async with httpx.AsyncClient(base_url=server.http, timeout=60) as http:
        ids = []
        for i in range(n):
            body = {
                "game": "quinto",
                "options": {"target": 5000},  # the most a server allows: a long game
                "seats": ["open"] * 4,
                "seed": 1000 * n + i,
            }
            r = await http.post("/api/tables", json=body)
            r.raise_for_status()
            ids.append(r.json()["id"])
    stats = Stats()
    stop = asyncio.Event()
    joined = 0
    all_joined = asyncio.Event()

    def ready() -> None:
        nonlocal joined
        joined += 1
        if joined == 4 * n:
            all_joined.set()

    tables = [TableRun(t) for t in ids]
    sem = asyncio.Semaphore(100)

    tasks = [
        asyncio.create_task(seat_client(server.ws, t, s, stats, stop, ready, sem, think))
        for t in tables
        for s in range(4)
    ]
    await asyncio.wait_for(all_joined.wait(), timeout=300)
    await asyncio.sleep(warmup)
    assert server.proc is not None
    pid = server.proc.pid
    stats.measuring = True
    u0, s0 = cpu_times(pid)
    c0 = u0 + s0
    m0 = sum(cpu_times(pid, pid))  # the event loop's thread
    t0 = time.perf_counter()
    if sample:
        os.kill(pid, signal.SIGUSR1)  # bench/sampler.py: sample from now
    await asyncio.sleep(seconds)
    if sample:
        os.kill(pid, signal.SIGUSR2)
    stats.measuring = False
    elapsed = time.perf_counter() - t0
    u1, s1 = cpu_times(pid)
    cpu = u1 + s1 - c0
    loop_cpu = sum(cpu_times(pid, pid)) - m0
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "tables": n,
        "actions": stats.actions,
        "actions_per_s": stats.actions / elapsed,
        "cpu_per_action_ms": 1000 * cpu / max(stats.actions, 1),
        "system_per_action_ms": 1000 * (s1 - s0) / max(stats.actions, 1),
        "loop_per_action_ms": 1000 * loop_cpu / max(stats.actions, 1),
        "server_cpu": cpu / elapsed,
        "actor_median_ms": pct(stats.to_actor, 0.5),
        "actor_p99_ms": pct(stats.to_actor, 0.99),
        "all_median_ms": pct(stats.to_all, 0.5),
        "all_p99_ms": pct(stats.to_all, 0.99),
        "samples": len(stats.to_actor),
        "errors": stats.errors + stats.lost,
    }


async def main_async(args: argparse.Namespace, server: ServerProcess) -> list[JSON]:
    assert server.proc is not None
    pid = server.proc.pid
    echo_url = f"ws://127.0.0.1:{server.port}/bench/echo"
    single, single_cpu = await echo_floor(echo_url, 1, min(args.seconds, 3.0), pid)
    print(
        f"echo, 1 client: median {pct(single, 0.5):.3f} ms, p99 {pct(single, 0.99):.3f} ms, "
        f"server CPU {1000 * single_cpu:.3f} ms per round trip ({len(single)} round trips)",
        flush=True,
    )
    rows = []
    for n in args.tables:
        echo, echo_cpu = await echo_floor(echo_url, n, args.seconds, pid, think=args.think)
        signals = bool(args.sample or os.environ.get("QUINTET_BENCH_SIGNALS"))
        row = await run_tables(server, n, args.seconds, args.warmup, signals, args.think)
        row["echo_median_ms"] = pct(echo, 0.5)
        row["echo_p99_ms"] = pct(echo, 0.99)
        row["echo_cpu_ms"] = 1000 * echo_cpu
        row["echo_single_median_ms"] = pct(single, 0.5)
        row["p99_over_echo_p99"] = row["actor_p99_ms"] / max(row["echo_p99_ms"], 1e-9)
        if args.fanout:
            fan_url = f"ws://127.0.0.1:{server.port}/bench/fanout"
            f_actor, f_all, fan_cpu = await fanout_floor(
                fan_url, n, args.seconds, pid, think=args.think
            )
            row["fanout_median_ms"] = pct(f_actor, 0.5)
            row["fanout_p99_ms"] = pct(f_actor, 0.99)
            row["fanout_all_p99_ms"] = pct(f_all, 0.99)
            row["fanout_cpu_ms"] = 1000 * fan_cpu
            row["fanout_p99_over_echo_p99"] = row["fanout_p99_ms"] / max(row["echo_p99_ms"], 1e-9)
            row["p99_over_fanout_p99"] = row["actor_p99_ms"] / max(row["fanout_p99_ms"], 1e-9)
        rows.append(row)
        print(
            f"N={n:>4}: {row['actions_per_s']:6.0f} actions/s | server CPU "
            f"{row['cpu_per_action_ms']:.3f} ms/action (loop thread "
            f"{row['loop_per_action_ms']:.3f}, system {row['system_per_action_ms']:.3f}; "
            f"{100 * row['server_cpu']:.0f}%) | "
            f"action->actor p50 {row['actor_median_ms']:6.2f} p99 {row['actor_p99_ms']:7.2f} ms"
            f" | ->all 4 p50 {row['all_median_ms']:6.2f} p99 {row['all_p99_ms']:7.2f} | "
            f"echo x{n} p50 {row['echo_median_ms']:5.2f} p99 {row['echo_p99_ms']:6.2f} ms, "
            f"CPU {row['echo_cpu_ms']:.3f} ms/trip | p99/echo p99 "
            f"{row['p99_over_echo_p99']:.1f} | errors {row['errors']}",
            flush=True,
        )
        if args.fanout:
            print(
                f"       fan-out floor x{n} (one in, four out, no table): p50 "
                f"{row['fanout_median_ms']:6.2f} p99 {row['fanout_p99_ms']:7.2f} ms "
                f"(->all 4 p99 {row['fanout_all_p99_ms']:7.2f}), CPU "
                f"{row['fanout_cpu_ms']:.3f} ms/fan-out | fan-out p99/echo p99 "
                f"{row['fanout_p99_over_echo_p99']:.1f} | action p99/fan-out p99 "
                f"{row['p99_over_fanout_p99']:.1f}",
                flush=True,
            )
    return rows


def main() -> None:
    """Run the benchmark and print one line per N."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", default="10,100,500", help="comma-separated N")
    p.add_argument("--seconds", type=float, default=10.0, help="measuring time per N")
    p.add_argument("--warmup", type=float, default=2.0)
    p.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="seconds a player (and an echo client) waits before acting, on average "
        "(default 0: as fast as the server answers)",
    )
    p.add_argument(
        "--no-fanout",
        dest="fanout",
        action="store_false",
        help="leave out the fan-out floor (one message in, four out, on /bench/fanout)",
    )
    p.add_argument("--db", default=None, help="database URL (default: a temporary SQLite)")
    p.add_argument("--json", default=None, help="write the results to this file")
    p.add_argument("--profile", default=None, help="run the server under cProfile: its stats")
    p.add_argument("--sample", default=None, help="run the server under bench/sampler.py")
    args = p.parse_args()
    args.tables = [int(x) for x in args.tables.split(",")]
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover
        pass
    with tempfile.TemporaryDirectory() as d:
        db = args.db or f"sqlite:///{d}/bench.db"
        python = os.environ.get("QUINTET_BENCH_PYTHON", "").split() or None
        if args.profile:
            python = [sys.executable, "-m", "cProfile", "-o", os.path.abspath(args.profile)]
        elif args.sample:
            sampler = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sampler.py")
            python = [sys.executable, sampler, "--signals", "-o", os.path.abspath(args.sample)]
        # Scripted players act the moment they may: past a person's message rate when
        # few tables share the server.
        extra = ["--set", "rate=100000", "--set", "burst=100000"]
        server = ServerProcess(db, log_path=f"{d}/server.log", python=python, extra=extra).start()
        try:
            rows = asyncio.run(main_async(args, server))
        finally:
            if (args.profile or args.sample) and server.proc is not None:
                # uvicorn ends a SIGTERM by raising it again (no stats written); SIGINT
                # ends cProfile's run with KeyboardInterrupt, which writes them.
                server.proc.send_signal(signal.SIGINT)
                server.proc.wait(60)
            server.stop()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, database {db.split(':')[0]}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    med = statistics.median([r["p99_over_echo_p99"] for r in rows]) if rows else 0
    print(f"median p99 ratio to the echo floor at the same concurrency: {med:.1f}")
    if args.fanout and rows:
        fan = statistics.median([r["fanout_p99_over_echo_p99"] for r in rows])
        print(
            "median p99 ratio of the bare fan-out (one in, four out, no table) to the echo "
            f"at the same concurrency: {fan:.1f}"
        )


if __name__ == "__main__":
    main()
