"""Load benchmark of several server processes: N tables against 1 process and against 2.

Issue 16's goal: "with the site running as several server processes (2 on this
machine), 1,000 concurrent tables with no error and actions/s at least 1.7x one
process's". For each configuration this starts the servers (subprocesses of
``quintet serve``, on a fresh PostgreSQL schema each), creates N Quinto tables (spread
over the processes: the process that creates a table runs it), and opens four scripted
websocket players per table, spread over the processes as a load balancer that knows
nothing of tables would (seat ``s`` of table ``i`` on process ``(i + s) % P``: with 2
processes half the players are relayed to their table's owner). Every player plays a
random legal action the moment it is its turn and says ``next`` after each hand. For
``--seconds`` it measures:

* actions per second (accepted, stored and broadcast) and errors (error messages and
  dropped connections);
* action to broadcast, to the acting client: median and 99th percentile;
* the CPU of the servers (all processes together) and of the clients, in cores, and the
  machine's load average (the other work on the machine shows there);
* with ``--failover``, after measuring: the first process is killed (SIGKILL), the time
  until every table it ran is held by a live process, and the players' reconnections
  (the clients reconnect as the pages do, and play on for ``--after`` seconds).

The configurations: ``single`` (today's server: one process, PostgreSQL, no Redis),
``cluster1`` (one process with ``--redis``: the cost of leases and fencing alone) and
``cluster2`` (two processes with ``--redis``). The clients run in ``--clients``
processes of their own (uvloop when available) on the same machine.

Run: ``.venv/bin/python bench/cluster_load.py`` (``--tables 1000 --seconds 20
--configs single,cluster2``); PostgreSQL at ``--db`` (default
``postgresql+psycopg://postgres@127.0.0.1:5432/test``) and Redis at ``--redis``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import secrets
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
import sqlalchemy as sa
import websockets

from quintet.server.security import new_cookie
from quintet.server.testing import SeatClient, ServerProcess, random_choice

JSON = dict[str, Any]
PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
REDIS = "redis://127.0.0.1:6379/0"


def pct(xs: list[float], q: float) -> float:
    """Return the q-quantile of xs in milliseconds (0 when empty)."""
    if not xs:
        return 0.0
    s = sorted(xs)
    return 1000 * s[min(len(s) - 1, int(q * len(s)))]


# -------------------------------------------------------------------- clients


@dataclass
class Stats:
    """What one client process measured."""

    measuring: bool = False
    actions: int = 0
    after: bool = False  # measuring after a failover
    after_actions: int = 0
    reconnects: int = 0
    to_actor: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)


class TimedClient(SeatClient):
    """A scripted player that times each of its actions to the state showing it."""

    stats: Stats
    sent_at: float | None = None
    sent_seq: int = -1

    async def recv(self) -> JSON:
        """Return the next message, timing the action it shows (if this one's)."""
        m = await super().recv()
        if m["type"] in ("state", "update"):  # protocol 2: a whole state, then updates
            if self.sent_at is not None and m["seq"] > self.sent_seq:
                if self.stats.measuring:
                    self.stats.to_actor.append(time.perf_counter() - self.sent_at)
                self.sent_at = None
        elif m["type"] == "error":
            self.stats.errors[str(m.get("code"))] += 1
        return m


def timed_choice(client: SeatClient, state: JSON) -> JSON | None:
    """A random legal action, its time noted."""
    assert isinstance(client, TimedClient)
    if state["seq"] <= client.sent_seq:
        return None  # acted on this state already (a state sent again: a seat reconnected)
    a = random_choice(client, state)
    if a is not None:
        client.sent_at = time.perf_counter()
        client.sent_seq = state["seq"]
        if client.stats.measuring:
            client.stats.actions += 1
        if client.stats.after:
            client.stats.after_actions += 1
    return a


Seat = tuple[list[str], str, int]  # the servers to try (its own first), table, seat


async def _clients(seats: list[Seat], events: Any, out: Any) -> None:
    stats = Stats()
    sem = asyncio.Semaphore(50)  # connections opened at once

    def client(url: str, table: str, seat: int, token: str | None, cookie: str) -> TimedClient:
        c = TimedClient(
            url, table, token=token, rng=random.Random(hash((table, seat))),
            choose=timed_choice, keep=False, cookie=cookie,
        )  # fmt: skip
        c.stats = stats
        return c

    async def one(urls: list[str], table: str, seat: int) -> None:
        cookie, token = new_cookie(), None
        first = True
        while not events["stop"].is_set():
            c = None
            for url in urls:  # its own process first, then any that answers
                again = client(url, table, seat, token, cookie)
                try:
                    async with sem:
                        await again.connect()
                        if token is None:
                            await again.join(seat, f"p{seat}")
                            token = again.token
                            with events["joined"].get_lock():
                                events["joined"].value += 1
                except (OSError, websockets.InvalidHandshake, websockets.ConnectionClosed):
                    continue
                c = again
                break
            if c is None:
                await asyncio.sleep(0.2)
                continue
            if not first:
                stats.reconnects += 1  # the connection dropped: again, as a page does
            first = False
            await c.play(stop_on_finish=False)

    tasks = [asyncio.create_task(one(*s)) for s in seats]
    done = asyncio.gather(*tasks, return_exceptions=True)
    while not events["stop"].is_set():
        stats.measuring = events["measure"].is_set()
        stats.after = events["after"].is_set()
        await asyncio.sleep(0.05)
    for t in tasks:
        t.cancel()
    results = await done
    failed = [r for r in results if isinstance(r, BaseException) and not isinstance(
        r, asyncio.CancelledError
    )]  # fmt: skip
    for r in failed:
        stats.errors[type(r).__name__] += 1
    out.put(
        {
            "actions": stats.actions,
            "after_actions": stats.after_actions,
            "reconnects": stats.reconnects,
            "to_actor": stats.to_actor,
            "errors": dict(stats.errors),
        }
    )


def client_main(seats: list[Seat], events: Any, out: Any) -> None:
    """One client process: play ``seats`` until told to stop, then report."""
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover
        pass
    asyncio.run(_clients(seats, events, out))


# -------------------------------------------------------------------- servers


def cpu_seconds(pid: int) -> float:
    """Return a process's user + system CPU seconds, with its children's (Linux)."""
    total = 0.0
    pids = [pid]
    try:
        from quintet.server.testing import descendants

        pids += sorted(descendants(pid))
    except OSError:  # pragma: no cover
        pass
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                parts = f.read().rsplit(")", 1)[1].split()
            total += (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            continue
    return total


def start_servers(
    config: str, db_url: str, redis_url: str, prefix: str, log: str
) -> list[ServerProcess]:
    """Start the processes of a configuration (``single``, ``cluster1``, ``cluster2``...)."""
    n = 1 if config == "single" else int(config.removeprefix("cluster"))
    extra = ["--search-workers", "1", "--set", "create_burst=100000"]
    if config != "single":
        extra += ["--redis", redis_url, "--set", f"redis_prefix={prefix}"]
    servers = [ServerProcess(db_url, bot_delay=0.0, extra=extra, log_path=log) for _ in range(n)]
    for s in servers:  # one after the other: the schema is migrated once
        s.start(timeout=120)
    return servers


def failover(servers: list[ServerProcess], tables: list[str], prefix: str, url: str) -> JSON:
    """Kill the first process (SIGKILL); return how long until another process holds the
    lease of every table it ran, and of all tables."""
    import redis

    r = redis.Redis.from_url(url)
    dead = httpx.get(servers[0].http + "/healthz", timeout=30).json()["process"].encode()
    keys = [f"{prefix}:lease:{t}" for t in tables]
    ran = sum(1 for v in r.mget(keys) if v == dead)
    servers[0].kill()
    t0 = time.perf_counter()
    while True:
        owners = r.mget(keys)
        if all(v is not None and v != dead for v in owners):
            break
        if time.perf_counter() - t0 > 60:
            break
        time.sleep(0.05)
    took = time.perf_counter() - t0
    r.close()
    left = sum(1 for v in owners if v is None or v == dead)
    return {"tables_of_the_killed": ran, "takeover_s": took, "not_taken": left}


async def create_tables(servers: list[ServerProcess], n: int) -> list[str]:
    """Create ``n`` tables of four open seats, table ``i`` on server ``i % len``."""
    sem = asyncio.Semaphore(16)

    async def one(http: httpx.AsyncClient, i: int) -> str:
        body = {"game": "quinto", "options": {"target": 5000}, "seats": ["open"] * 4}
        for attempt in range(3):  # a kept-alive connection the server just closed
            try:
                async with sem:
                    r = await http.post(
                        servers[i % len(servers)].http + "/api/tables", json=body | {"seed": i}
                    )
                break
            except httpx.TransportError:
                if attempt == 2:
                    raise
        r.raise_for_status()
        table_id: str = r.json()["id"]
        return table_id

    async with httpx.AsyncClient(timeout=120) as http:
        return list(await asyncio.gather(*(one(http, i) for i in range(n))))


def run_config(args: argparse.Namespace, config: str, db_url: str, log: str) -> JSON:
    """Run one configuration and return its figures."""
    prefix = f"bench-{secrets.token_hex(4)}"
    servers = start_servers(config, db_url, args.redis, prefix, log)
    fail: JSON | None = None
    ctx = multiprocessing.get_context("spawn")
    events: dict[str, Any] = {
        "measure": ctx.Event(),
        "stop": ctx.Event(),
        "after": ctx.Event(),
        "joined": ctx.Value("i", 0),  # seats taken by the clients
    }
    out: Any = ctx.Queue()
    procs = []
    try:
        t0 = time.perf_counter()
        tables = asyncio.run(create_tables(servers, args.tables))
        print(f"  {len(tables)} tables created in {time.perf_counter() - t0:.1f} s", flush=True)
        p = len(servers)
        urls = [s.ws for s in servers]
        seats: list[Seat] = [
            ([urls[(i + s + k) % p] for k in range(p)], t, s)
            for i, t in enumerate(tables)
            for s in range(4)
        ]
        shares: list[list[Seat]] = [[] for _ in range(args.clients)]
        for k, seat in enumerate(seats):
            shares[k % args.clients].append(seat)
        for share in shares:
            proc = ctx.Process(target=client_main, args=(share, events, out), daemon=True)
            proc.start()
            procs.append(proc)
        deadline = time.monotonic() + 600
        while events["joined"].value < 4 * len(tables) and time.monotonic() < deadline:
            time.sleep(0.2)
        print(f"  {events['joined'].value} seats taken", flush=True)
        time.sleep(args.warmup)  # the first deals, everyone playing
        pids = [s.proc.pid for s in servers if s.proc is not None]
        clients = [proc.pid for proc in procs if proc.pid is not None]
        c0 = sum(cpu_seconds(pid) for pid in pids)
        k0 = sum(cpu_seconds(pid) for pid in clients)
        load0 = os.getloadavg()[0]
        w0 = time.perf_counter()
        events["measure"].set()
        time.sleep(args.seconds)
        events["measure"].clear()
        elapsed = time.perf_counter() - w0
        cpu = (sum(cpu_seconds(pid) for pid in pids) - c0) / elapsed
        client_cpu = (sum(cpu_seconds(pid) for pid in clients) - k0) / elapsed
        load = (load0 + os.getloadavg()[0]) / 2
        if args.failover and p > 1:
            fail = failover(servers, tables, prefix, args.redis)
            events["after"].set()  # the players reconnect and play on
            time.sleep(args.after)
            events["after"].clear()
        events["stop"].set()
        results = [out.get(timeout=120) for _ in procs]
    finally:
        events["stop"].set()
        for proc in procs:
            proc.join(30)
            if proc.is_alive():
                proc.kill()
        for s in servers:
            s.stop()
        if config != "single":  # the run's keys (the leases run out by themselves)
            import redis

            r = redis.Redis.from_url(args.redis)
            keys = list(r.scan_iter(match=f"{prefix}:*"))
            if keys:
                r.delete(*keys)
            r.close()
    lat = [x for r in results for x in r["to_actor"]]
    if fail is not None:
        fail["actions_per_s_after"] = sum(r["after_actions"] for r in results) / args.after
        fail["reconnects"] = sum(r["reconnects"] for r in results)
    errors: Counter[str] = Counter()
    for r in results:
        errors.update(r["errors"])
    return {
        "config": config,
        "processes": len(servers),
        "tables": args.tables,
        "actions_per_s": sum(r["actions"] for r in results) / elapsed,
        "actor_median_ms": pct(lat, 0.5),
        "actor_p99_ms": pct(lat, 0.99),
        "samples": len(lat),
        "errors": dict(errors),
        "server_cpu": cpu,
        "client_cpu": client_cpu,
        "load": load,
        "failover": fail,
    }


def fresh_schema(url: str) -> tuple[str, str, sa.Engine]:
    """Create a schema for one run; return its URL, name and an engine to drop it."""
    schema = f"quintet_bench_{secrets.token_hex(4)}"
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options=-csearch_path%3D{schema}", schema, engine


def main() -> None:
    """Run the configurations and print one line each, then the ratio of the last to the
    first."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=1000)
    p.add_argument("--seconds", type=float, default=20.0, help="measuring time")
    p.add_argument(
        "--warmup", type=float, default=5.0, help="seconds between every seat taken and measuring"
    )
    p.add_argument("--configs", default="single,cluster2", help="single, cluster1, cluster2...")
    p.add_argument("--clients", type=int, default=2, help="client processes")
    p.add_argument("--db", default=PG, help="PostgreSQL URL (a schema of its own per run)")
    p.add_argument("--redis", default=REDIS)
    p.add_argument("--json", default=None, help="write the results to this file")
    p.add_argument(
        "--failover",
        action="store_true",
        help="after measuring, kill the first of several processes (SIGKILL) and time the "
        "takeover of its tables",
    )
    p.add_argument("--after", type=float, default=10.0, help="seconds played after the kill")
    p.add_argument("--logs", default=None, help="keep the servers' logs in this directory")
    args = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        d = args.logs or tmp
        os.makedirs(d, exist_ok=True)
        for config in args.configs.split(","):
            url, schema, engine = fresh_schema(args.db)
            print(f"{config}: {args.tables} tables, {args.seconds:g} s", flush=True)
            try:
                row = run_config(args, config, url, f"{d}/{config}.log")
            finally:
                with engine.begin() as conn:
                    conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
                engine.dispose()
            rows.append(row)
            errors = sum(row["errors"].values())
            print(
                f"  {row['processes']} process(es): {row['actions_per_s']:7.0f} actions/s | "
                f"action->broadcast to actor median {row['actor_median_ms']:7.1f} ms, p99 "
                f"{row['actor_p99_ms']:7.1f} ms | CPU: servers {row['server_cpu']:.2f}, clients "
                f"{row['client_cpu']:.2f} cores (load {row['load']:.1f}) | "
                f"errors {errors} {row['errors'] or ''}",
                flush=True,
            )
            if row["failover"]:
                f = row["failover"]
                print(
                    f"  killed the first process (SIGKILL), which ran {f['tables_of_the_killed']} "
                    f"tables: every table held by a live process {f['takeover_s']:.2f} s later "
                    f"({f['not_taken']} not taken); {f['reconnects']} players reconnected, "
                    f"then {f['actions_per_s_after']:.0f} actions/s on one process",
                    flush=True,
                )
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {args.clients} client processes"
    )
    if len(rows) > 1:
        ratio = rows[-1]["actions_per_s"] / max(rows[0]["actions_per_s"], 1e-9)
        print(f"actions/s, {rows[-1]['config']} / {rows[0]['config']}: {ratio:.2f} (goal 1.7)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
