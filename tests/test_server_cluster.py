"""Several server processes, one site (issue 16): leases, fencing, relays, failover, ops.

Against a real PostgreSQL (``QUINTET_TEST_PG``, a schema per test) and a real Redis
(``QUINTET_TEST_REDIS``, default ``redis://127.0.0.1:6379/0``, a key prefix per test, its
keys deleted afterwards). Where either does not answer the tests skip with the reason,
except under CI (``CI`` set), where they fail.

The unit tests run two :class:`~quintet.server.cluster.ClusterHub` in one event loop
(short leases); the others start real ``quintet serve --redis`` processes: two on two
ports, one of them killed with SIGKILL mid-hand, and ``--workers 2`` on one port.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import secrets
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import sqlalchemy as sa
import websockets
from click.testing import CliRunner

from quintet.cli import main
from quintet.record import dumps as record_dumps
from quintet.server import db
from quintet.server.app import settings_json, settings_of_json
from quintet.server.cluster import (
    ClusterHub,
    Fence,
    FencedStore,
    LostLease,
    check_fence,
    claim_fences,
)
from quintet.server.conn import Conn
from quintet.server.messages import CreateTable, FieldError
from quintet.server.settings import Settings
from quintet.server.testing import (
    SeatClient,
    ServerProcess,
    apply_update,
    create_table,
    first_choice,
)

PG = os.environ.get("QUINTET_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("QUINTET_TEST_REDIS", "redis://127.0.0.1:6379/0")

JSON = dict[str, Any]


def _unavailable(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(why + " - CI must run the cluster tests")
    pytest.skip(why)


@pytest.fixture
def pg() -> Iterator[str]:
    """A PostgreSQL URL whose search path is a schema of this test's own."""
    schema = f"quintet_test_{secrets.token_hex(4)}"
    try:
        engine = sa.create_engine(PG, connect_args={"connect_timeout": 3})
        with engine.begin() as conn:
            conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    except Exception as e:
        _unavailable(
            f"PostgreSQL is not reachable at {PG.split('@')[-1]} ({type(e).__name__}: {e})"
        )
    try:
        yield f"{PG}?options=-csearch_path%3D{schema}"
    finally:
        with engine.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
        engine.dispose()


@pytest.fixture
def prefix() -> Iterator[str]:
    """A Redis key prefix of this test's own (its keys are deleted afterwards)."""
    try:
        r = redis.Redis.from_url(REDIS, socket_connect_timeout=3)
        r.ping()
    except Exception as e:
        _unavailable(f"Redis is not reachable at {REDIS} ({type(e).__name__}: {e})")
    name = f"quintet-test-{secrets.token_hex(4)}"
    try:
        yield name
    finally:
        keys = list(r.scan_iter(match=f"{name}:*"))
        if keys:
            r.delete(*keys)
        r.close()


def cluster_settings(url: str, prefix: str, **more: Any) -> Settings:
    """Settings of one process of several, with short leases (tests)."""
    base: JSON = {
        "db_url": url,
        "redis_url": REDIS,
        "redis_prefix": prefix,
        "bot_delay": 0.0,
        "allow_seed": True,
        "lease_seconds": 1.0,
        "renew_seconds": 0.2,
        "takeover_seconds": 0.3,
        "search_workers": 1,
    }
    return Settings(**(base | more))


@contextlib.asynccontextmanager
async def processes(
    url: str, prefix: str, n: int = 2, **more: Any
) -> AsyncIterator[list[ClusterHub]]:
    """Start ``n`` cluster hubs on one database and one Redis prefix (one event loop)."""
    hubs = [ClusterHub(cluster_settings(url, prefix, **more), FencedStore(url)) for _ in range(n)]
    for h in hubs:
        await h.start()
    try:
        yield hubs
    finally:
        for h in hubs:
            await h.stop()


async def _noop(*args: Any) -> None:
    return None


def conn_of(hub: ClusterHub, person: str | None = None) -> Conn:
    """A websocket of ``hub`` whose messages stay in its outbox."""
    return Conn(_noop, _noop, hub.settings, person or secrets.token_hex(32))


def sent(conn: Conn) -> list[JSON]:
    return [json.loads(m) for m in conn.outbox if isinstance(m, str)]


def states(conn: Conn) -> list[JSON]:
    """The table as the connection's client keeps it, after each state or update."""
    out: list[JSON] = []
    table: JSON | None = None
    for m in sent(conn):
        if m["type"] in ("state", "update"):
            table = apply_update(table, m)
            out.append(table)
    return out


async def until(check: Callable[[], Any], timeout: float = 10.0, what: str = "") -> None:
    """Wait until ``check()`` is true."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or check}")
        await asyncio.sleep(0.02)


PLAYER_TABLE: JSON = {
    "game": "quinto",
    "variant": "partnership",
    "options": {"target": 60},
    "seats": ["open", "random", "random", "random"],
    "seed": 11,
    "join": {"seat": 0, "name": "Ann"},
}


async def _turn_of_seat_0(hub: ClusterHub, table_id: str) -> None:
    """Wait until the bots are done and seat 0 (a person) is to play."""
    t = hub.tables[table_id]
    await until(
        lambda: t.table.state is not None and t.table.state.current_player() == 0,
        what="seat 0's turn",
    )


# --------------------------------------------------------------- unit tests


def test_a_table_is_run_by_one_process_and_played_through_another(pg: str, prefix: str) -> None:
    """A table is run by the process that created it; a websocket of another process
    says hello with the seat's token and is relayed: the owner sends it its own seat's
    view (a spectator relayed the same way sees no hidden card), its action is made by
    the owner, and once it goes the owner forgets it."""

    async def run() -> None:
        async with processes(pg, prefix) as (a, b):
            out = await a.create_table(CreateTable.model_validate(PLAYER_TABLE), "person-ann")
            tid = out["id"]
            await _turn_of_seat_0(a, tid)
            assert a.runs(tid) and not b.runs(tid)
            assert await b.take(tid) is None  # another process holds the lease
            assert await b._owner(tid) == a.proc
            ann = conn_of(b, "person-ann")
            await b.handle(ann, json.dumps({"type": "hello", "table": tid, "token": out["token"]}))
            watcher = conn_of(b)
            await b.handle(watcher, json.dumps({"type": "hello", "table": tid}))
            await until(lambda: states(ann) and states(watcher), what="the relayed states")
            assert ann.id in b.relays and watcher.id in b.relays
            assert [m["type"] for m in sent(ann)][:2] == ["welcome", "state"]
            mine = states(ann)[-1]
            t = a.tables[tid]
            assert mine["hand"]["hands"][0] is not None and mine["legal"]
            assert all(h is None for h in states(watcher)[-1]["hand"]["hands"])
            assert t.connected(0)  # the owner sees the relayed player connected
            seq = mine["seq"]
            action = first_choice(SeatClient("", tid), mine)
            await b.handle(ann, json.dumps({"type": "act", "action": action, "expect": seq}))
            await until(lambda: states(ann)[-1]["seq"] > seq, what="the action's broadcast")
            assert t.seq > seq
            assert states(watcher)[-1]["seq"] > seq
            b.disconnect(ann)
            await until(lambda: not t.connected(0), what="the proxy to go")
            assert len(a.proxies) == 1  # the watcher's

    asyncio.run(run())


def test_the_limits_count_over_every_process_of_the_site(pg: str, prefix: str) -> None:
    """A client's tables in play, its new tables a minute and its websockets are counted
    over both processes (each publishes its counts and reads the other's every
    renewal); Redis holds only keyed hashes of the keys; a process gone counts nothing."""

    async def run() -> None:
        more: JSON = {"max_tables_per_client": 2, "create_rate": 3.0, "create_burst": 3.0}
        async with processes(pg, prefix, **more) as (a, b):
            body = CreateTable.model_validate(PLAYER_TABLE | {"join": None})
            await a.create_table(body, "person-ann", "203.0.113.5")
            await b.create_table(body, "person-ann", "203.0.113.5")
            for h in (a, b, a):  # each publishes, then reads what the other published
                await h.sync_tally()
            for h in (a, b):  # one table here, one there: two of two
                with pytest.raises(FieldError, match="2 tables in play") as e:
                    h.check_create_limits("person-ann", None)
                assert e.value.code == "too_many_tables"
            b.check_create_limits("person-bob", "203.0.113.9")  # others may
            # Tokens: bob took one on b and takes two more on a: b refuses his fourth.
            a.check_create_limits("person-bob", None)
            a.check_create_limits("person-bob", None)
            await a.sync_tally()
            await b.sync_tally()
            with pytest.raises(FieldError, match="too many new tables") as e:
                b.check_create_limits("person-bob", None)
            a.connections["203.0.113.5"] = 3
            await a.sync_tally()
            await b.sync_tally()
            assert b.tally.others("connections", "203.0.113.5") == 3
            r = redis.Redis.from_url(REDIS)
            stored = b"".join(
                k + b"".join(f for f in r.hgetall(k) if isinstance(f, bytes))
                for k in r.scan_iter(match=f"{prefix}:tally:*")
                if r.type(k) == b"hash"
            )
            r.close()
            assert b"203.0.113.5" not in stored and b"person-ann" not in stored
            await a.stop()
            await asyncio.sleep(a.settings.lease_seconds + 0.1)
            await b.sync_tally()
            assert b.tally.others("connections", "203.0.113.5") == 0
            a.stop = _noop  # type: ignore[method-assign]  # stopped already

    asyncio.run(run())


def test_a_stale_owners_write_is_refused_and_it_stops_at_once(pg: str, prefix: str) -> None:
    """An owner that could not renew its lease (paused) while another process took the
    table over: its next action is refused by the fence in the database, nothing is
    stored or broadcast, and it drops the table and closes its connections at once. The
    new owner plays on from where the table was."""

    async def run() -> None:
        async with processes(pg, prefix) as (a, b):
            out = await a.create_table(CreateTable.model_validate(PLAYER_TABLE), "person-ann")
            tid = out["id"]
            ann = conn_of(a, "person-ann")
            await a.handle(ann, json.dumps({"type": "hello", "table": tid, "token": out["token"]}))
            await _turn_of_seat_0(a, tid)
            t = a.tables[tid]
            seq = t.seq
            before = states(ann)[-1]
            a._stopping = True  # a is "paused": no more renewals, no sweeps
            await asyncio.sleep(a.settings.lease_seconds + 0.3)
            taken = await b.take(tid)
            assert taken is not None and taken.seq == seq and b.leases[tid].token == 2
            n = len(ann.outbox)
            action = first_choice(SeatClient("", tid), before)
            await a.handle(ann, json.dumps({"type": "act", "action": action, "expect": seq}))
            assert t.seq == seq, "the refused action was made in memory"
            assert ann.closed and tid not in a.tables and tid not in a.leases
            assert not [m for m in sent(ann)[n:] if m["type"] in ("state", "update", "error")]
            stored = await b.store.read(
                lambda c: c.exec_driver_sql(
                    f"SELECT count(*) FROM quintet_actions WHERE table_id = '{tid}'"
                ).scalar_one()
            )
            assert stored == seq - 1  # every action before (one deal), none after
            # The new owner takes the very same action.
            ann2 = conn_of(b, "person-ann")
            await b.handle(ann2, json.dumps({"type": "hello", "table": tid, "token": out["token"]}))
            await until(lambda: states(ann2), what="the new owner's state")
            await b.handle(ann2, json.dumps({"type": "act", "action": action, "expect": seq}))
            await until(lambda: taken.seq > seq, what="the new owner's action")

    asyncio.run(run())


def test_the_fence_refuses_a_write_with_an_older_token(pg: str) -> None:
    """claim_fences increments a table's token; check_fence refuses any older one (and
    the write it guards is rolled back)."""
    store = FencedStore(pg)
    store.migrate()
    try:
        now = db.now()
        row = {"id": "T1", "game": "quinto", "variant": "partnership", "options": {}, "seed": 1}
        row |= {"public": True, "status": "waiting", "created_at": now, "updated_at": now}
        store.run_sync(lambda c: c.execute(db.tables_t.insert().values(**row)))
        assert store.run_sync(lambda c: claim_fences(c, ["T1", "nope"])) == {"T1": 1}
        assert store.run_sync(lambda c: claim_fences(c, ["T1"])) == {"T1": 2}
        store.run_sync(lambda c: check_fence(c, Fence("T1", 2)))

        def stale(c: Any) -> None:
            c.execute(db.tables_t.update().where(db.tables_t.c.id == "T1").values(title="x"))
            check_fence(c, Fence("T1", 1))

        with pytest.raises(LostLease):
            store.run_sync(stale)
        title = store.run_sync(lambda c: c.execute(sa.select(db.tables_t.c.title)).scalar_one())
        assert title == ""
        with pytest.raises(LostLease):
            store.run_sync(lambda c: check_fence(c, Fence("nope", 1)))
    finally:
        store.close()


def test_an_owner_whose_lease_another_took_drops_the_table_at_its_next_renewal(
    pg: str, prefix: str
) -> None:
    """When a renewal finds the lease another process's, the table is dropped at once:
    its connections are closed (to reconnect to its new owner) and its bots stop."""

    async def run() -> None:
        async with processes(pg, prefix, n=1) as (a,):
            out = await a.create_table(CreateTable.model_validate(PLAYER_TABLE), "person-ann")
            tid = out["id"]
            ann = conn_of(a, "person-ann")
            await a.handle(ann, json.dumps({"type": "hello", "table": tid, "token": out["token"]}))
            t = a.tables[tid]
            await a.redis.set(a.lease_key(tid), "another-process", px=5000)
            await until(lambda: tid not in a.tables, timeout=3, what="the table to be dropped")
            assert ann.closed and t.bot_task is None and tid not in a.leases

    asyncio.run(run())


def test_a_game_over_that_left_memory_is_shown_while_its_lease_is_handed_back(
    pg: str, prefix: str
) -> None:
    """A table that is over leaves memory with its last connection (``detach``) while its
    lease is handed back only at the next tick: a request in between (its record, a
    ``hello``) is answered from storage with the same game, never with "no table"."""

    async def run() -> None:
        async with processes(pg, prefix, n=1) as (a,):
            body = {**PLAYER_TABLE, "seats": ["random"] * 4}
            del body["join"]
            out = await a.create_table(CreateTable.model_validate(body), "person-ann")
            tid = out["id"]
            t = a.tables[tid]
            await until(lambda: t.closed, timeout=60, what="the bots' game to end")
            record = record_dumps(t.record())
            a.tables.pop(tid)  # as the last connection's detach does
            assert tid in a.leases
            shown = await a.view_table(tid)
            assert shown is not None and shown.closed
            assert record_dumps(shown.record()) == record
            again = await a.get_table(tid)
            assert again is not None and record_dumps(again.record()) == record

    asyncio.run(run())


def test_the_lobby_is_the_same_on_every_process(pg: str, prefix: str) -> None:
    """The lobby is read from the database: every process lists the same public tables
    (never a private one), with who is connected as the owner says."""

    async def run() -> None:
        async with processes(pg, prefix) as (a, b):
            ids = []
            for i in range(3):
                body = PLAYER_TABLE | {"seed": i, "title": f"t{i}"}
                ids.append((await a.create_table(CreateTable.model_validate(body), "p"))["id"])
            private = PLAYER_TABLE | {"public": False}
            secret = (await b.create_table(CreateTable.model_validate(private), "p"))["id"]
            out = await b.create_table(CreateTable.model_validate(PLAYER_TABLE), "person-bo")
            ann = conn_of(a, "person-bo")
            await a.handle(
                ann, json.dumps({"type": "hello", "table": out["id"], "token": out["token"]})
            )
            await asyncio.sleep(3 * a.settings.renew_seconds)
            page_a = await a.lobby_page(50)
            page_b = await b.lobby_page(50)
            assert page_a == page_b
            listed = [t["id"] for t in page_b["tables"]]
            assert listed == [out["id"], *reversed(ids)] and secret not in listed
            assert page_b["total"] == 4
            line = page_a["tables"][0]
            assert line["present"] == 1 and line["seats"][0]["connected"]
            assert (await b.lobby_page(2, 1))["tables"] == page_a["tables"][1:3]

    asyncio.run(run())


def test_one_process_serves_healthz_and_metrics_and_says_when_its_database_fails(
    tmp_path: Path,
) -> None:
    """Without --redis (one process, SQLite): /healthz says ok with the process's id and
    the database reachable, /metrics counts the actions played; when the database does
    not answer /healthz is a 503 saying so."""
    from fastapi.testclient import TestClient

    from quintet.server.app import create_app

    settings = Settings(db_url=f"sqlite:///{tmp_path / 'h.db'}", bot_delay=0.0, allow_seed=True)
    with TestClient(create_app(settings)) as client:
        h = client.get("/healthz")
        assert h.status_code == 200
        body = h.json()
        assert body["ok"] and body["database"] and "redis" not in body
        assert body["pid"] == os.getpid() and str(os.getpid()) in body["process"]
        before = metric(client.get("/metrics").text, "quintet_actions_total")
        r = client.post("/api/tables", json=BOT_TABLE | {"options": {"target": 20}})
        assert r.status_code == 201
        table = r.json()["id"]
        deadline = time.monotonic() + 30
        while client.get(f"/api/tables/{table}").json()["status"] != "finished":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        hands = client.get(f"/api/games/{table}/record").json()["hands"]
        text = client.get("/metrics").text
        assert metric(text, "quintet_actions_total") - before == sum(
            len(h["actions"]) for h in hands
        )
        assert metric(text, "quintet_tables_owned") == 0  # it is over
        hub = client.app.state.hub  # type: ignore[attr-defined]

        async def down(fn: Any) -> Any:
            raise OSError("the database is down")

        hub.store.read = down
        h = client.get("/healthz")
        assert h.status_code == 503 and h.json()["database"] is False and not h.json()["ok"]


def test_the_settings_reach_the_workers_whole() -> None:
    """``--workers`` hands the settings to each worker as JSON: every field comes back."""
    s = Settings(
        db_url="postgresql+psycopg://x/y",
        redis_url="redis://r:1/0",
        allow_origins=("https://a.example",),
        levels={"strong": "pimc:samples=40"},
        bot_commands=(),
        lease_seconds=4.0,
    )
    assert settings_of_json(settings_json(s)) == s


def test_redis_needs_postgresql_and_workers_need_redis(monkeypatch: pytest.MonkeyPatch) -> None:
    """`quintet serve --redis` refuses SQLite, and `--workers 2` needs `--redis`: a usage
    error naming what is missing, and nothing starts."""
    import quintet.server as server

    started: list[Any] = []
    monkeypatch.setattr(server, "run", lambda settings, **kw: started.append((settings, kw)))
    for args, message in (
        (["--db", "sqlite://", "--redis", REDIS], "--redis needs a PostgreSQL database"),
        (["--db", PG, "--workers", "2"], "--workers needs --redis"),
        (["--db", PG, "--redis", REDIS, "--set", "renew_seconds=2"], "renew_seconds must be"),
    ):
        result = CliRunner().invoke(main, ["serve", *args])
        assert result.exit_code == 2 and message in result.output, result.output
    assert not started
    ok = ["serve", "--db", PG, "--redis", REDIS, "--workers", "2", "--log-json"]
    result = CliRunner().invoke(main, ok)
    assert result.exit_code == 0, result.output
    settings, kw = started[0]
    assert settings.redis_url == REDIS and kw["workers"] == 2 and kw["log_json"]


# ------------------------------------------------------------ real processes


def cluster_args(prefix: str) -> list[str]:
    return ["--redis", REDIS, "--set", f"redis_prefix={prefix}"]


async def play_seat(
    urls: Callable[[], list[str]], table: str, token: str, cookie: str | None, log: list[JSON]
) -> None:
    """Play a seat with :func:`first_choice` until the match is over, reconnecting (to
    whichever process answers) whenever the connection drops. ``log`` gets every
    message, and a ``{"type": "reconnect"}`` at each reconnection (after the first
    connection with ``cookie``)."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        client = None
        for url in urls():
            c = SeatClient(url, table, token=token, choose=first_choice, cookie=cookie)
            c.messages = log  # every message, as it comes
            try:
                await c.connect()
            except (OSError, websockets.InvalidHandshake, TimeoutError):
                continue
            client = c
            break
        if client is None:
            await asyncio.sleep(0.1)
            continue
        if cookie is not None:
            log.append({"type": "reconnect", "at": time.monotonic()})
        cookie = client.cookie
        await client.play()
        with contextlib.suppress(Exception):
            await client.close()
        if client.finished.is_set():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the match did not end in time")


def record_of(base: str, table: str) -> JSON:
    r = httpx.get(f"{base}/api/games/{table}/record", timeout=30)
    assert r.status_code == 200, r.text
    out: JSON = r.json()
    return out


def wait_finished(base: str, table: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = httpx.get(f"{base}/api/tables/{table}", timeout=30)
        if r.status_code == 200 and r.json()["status"] == "finished":
            return
        time.sleep(0.1)
    raise AssertionError(f"table {table} did not finish")


def metric(text: str, name: str) -> float:
    """The value of a metric without labels in Prometheus's text format."""
    m = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    assert m, f"no {name} in the metrics"
    return float(m.group(1))


PAIR_TABLE: JSON = {
    "game": "quinto",
    "variant": "partnership",
    "options": {"target": 60},
    "seats": ["open", "open", "random", "random"],
    "seed": 77,
}
BOT_TABLE: JSON = {
    "game": "quinto",
    "variant": "partnership",
    "options": {"target": 150},
    "seats": ["random", "random", "random", "random"],
    "seed": 78,
}


def test_a_table_played_across_two_processes_survives_its_owner_killed_mid_hand(
    pg: str, prefix: str, tmp_path: Path
) -> None:
    """Two `quintet serve --redis` processes on one database and one Redis. A table is
    created on the first (its owner); one player is connected to the second (relayed),
    the other to the first; a table of bots also runs on the first. The first is killed
    (SIGKILL) mid-hand: within 5 s the second holds both tables, the players' clients
    reconnect by themselves, nothing seen before the kill is lost, and both games finish
    with the records of the same tables played uninterrupted on the second at the same
    time. /healthz and /metrics say so."""
    logs = str(tmp_path / "servers.log")
    p1 = ServerProcess(pg, bot_delay=0.01, extra=cluster_args(prefix), log_path=logs)
    p2 = ServerProcess(pg, bot_delay=0.01, extra=cluster_args(prefix), log_path=logs)
    p1.start()
    p2.start()
    r = redis.Redis.from_url(REDIS)
    try:
        h1 = httpx.get(f"{p1.http}/healthz", timeout=10).json()
        h2 = httpx.get(f"{p2.http}/healthz", timeout=10).json()
        assert h1["ok"] and h1["redis"] and h1["database"] and h1["processes"] == 2
        assert h1["process"] != h2["process"]
        killed = create_table(p1.http, {**PAIR_TABLE, "join": {"seat": 0, "name": "Ann"}})
        ref = create_table(p2.http, {**PAIR_TABLE, "join": {"seat": 0, "name": "Ann"}})
        bots = create_table(p1.http, BOT_TABLE)
        bots_ref = create_table(p2.http, BOT_TABLE)
        assert r.get(f"{prefix}:lease:{killed['id']}") == h1["process"].encode()
        invite = next(s["invite"] for s in killed["seats"] if s["seat"] == 1)
        invite_ref = next(s["invite"] for s in ref["seats"] if s["seat"] == 1)

        async def join(url: str, table: str, invite: str) -> tuple[str, str]:
            c = SeatClient(url, table)
            await c.connect()
            await c.join(1, "Bob", invite)
            await c.close()
            assert c.token is not None and c.cookie is not None
            return c.token, c.cookie

        async def run() -> tuple[dict[str, list[JSON]], float, float]:
            bob = await join(p1.ws, killed["id"], invite)  # Bob at the owner
            bob_ref = await join(p2.ws, ref["id"], invite_ref)
            alive = [p2.ws, p1.ws]
            logs: dict[str, list[JSON]] = {k: [] for k in ("ann", "bob", "ann_ref", "bob_ref")}
            tasks = [
                # Ann is connected to the second process: relayed to the owner.
                play_seat(lambda: alive, killed["id"], killed["token"], None, logs["ann"]),
                play_seat(lambda: alive[::-1], killed["id"], bob[0], bob[1], logs["bob"]),
                play_seat(lambda: [p2.ws], ref["id"], ref["token"], None, logs["ann_ref"]),
                play_seat(lambda: [p2.ws], ref["id"], bob_ref[0], bob_ref[1], logs["bob_ref"]),
            ]
            running = [asyncio.create_task(t) for t in tasks]

            def seq_seen() -> int:
                return max(
                    (m["seq"] for m in logs["ann"] if m["type"] in ("state", "update")), default=0
                )

            while seq_seen() < 9:
                await asyncio.sleep(0.005)
                if any(t.done() for t in running):
                    raise AssertionError("a game ended before the kill")
            text = httpx.get(f"{p2.http}/metrics", timeout=10).text
            assert metric(text, "quintet_relayed_connections") >= 1  # Ann, through p2
            seen = seq_seen()
            p1.kill()
            killed_at = time.monotonic()
            alive.remove(p1.ws)
            key = f"{prefix}:lease:{killed['id']}"
            while r.get(key) != h2["process"].encode():
                assert time.monotonic() - killed_at < 5.0, "no process took the table in 5 s"
                await asyncio.sleep(0.02)
            took = time.monotonic() - killed_at
            await asyncio.wait_for(asyncio.gather(*running), timeout=90)
            return logs, took, seen

        logs_by, took, seen = asyncio.run(run())
        # Nothing a client saw before the kill was lost: it resumed at or after it.
        ann = logs_by["ann"]
        back = next(i for i, m in enumerate(ann) if m["type"] == "reconnect")
        first_after = next(m for m in ann[back:] if m["type"] in ("state", "update"))
        assert first_after["seq"] >= seen
        wait_finished(p2.http, bots["id"])
        wait_finished(p2.http, bots_ref["id"])
        got, expected = record_of(p2.http, killed["id"]), record_of(p2.http, ref["id"])
        assert got["hands"] == expected["hands"]
        got, expected = record_of(p2.http, bots["id"]), record_of(p2.http, bots_ref["id"])
        assert got["hands"] == expected["hands"]
        assert r.get(f"{prefix}:lease:{bots['id']}") in (None, h2["process"].encode())
        health = httpx.get(f"{p2.http}/healthz", timeout=10).json()
        assert health["ok"] and health["processes"] == 1
        text = httpx.get(f"{p2.http}/metrics", timeout=10).text
        assert metric(text, "quintet_actions_total") > 100
        assert metric(text, 'quintet_action_seconds_bucket{le="+Inf"}') == metric(
            text, "quintet_actions_total"
        )
        print(f"taken over {took:.2f} s after the kill")
    finally:
        p1.kill()
        p2.stop()
        r.close()
    assert "Traceback" not in Path(logs).read_text()


def test_workers_share_one_port_and_their_metrics(pg: str, prefix: str, tmp_path: Path) -> None:
    """`quintet serve --redis ... --workers 2`: two processes answer on one port (each
    /healthz names its own), a table created on one plays to its end, and /metrics from
    any worker counts the actions of both (prometheus-client's multiprocess mode)."""
    log = str(tmp_path / "workers.log")
    server = ServerProcess(
        pg,
        bot_delay=0.0,
        extra=[*cluster_args(prefix), "--workers", "2", "--log-json", "--log-level", "info"],
        log_path=log,
    )  # fmt: skip
    server.start(timeout=60)
    try:
        pids: set[int] = set()
        deadline = time.monotonic() + 60
        while len(pids) < 2:
            assert time.monotonic() < deadline, f"only workers {pids} answered"
            # A new connection each time: the kernel hands it to either worker.
            with httpx.Client(timeout=10) as client:
                h = client.get(f"{server.http}/healthz").json()
            assert h["ok"]
            pids.add(h["pid"])
        tables = [create_table(server.http, BOT_TABLE | {"seed": i}) for i in range(4)]
        for t in tables:
            wait_finished(server.http, t["id"])
        totals = set()
        for _ in range(6):
            with httpx.Client(timeout=10) as client:
                totals.add(
                    metric(client.get(f"{server.http}/metrics").text, "quintet_actions_total")
                )
        actions = sum(
            len(h["actions"]) for t in tables for h in record_of(server.http, t["id"])["hands"]
        )
        assert totals == {float(actions)}
    finally:
        server.stop()
    # --log-json: every line of the workers' logs is a JSON object (the first line is the
    # command's own banner), the server's naming the process.
    lines = [json.loads(x) for x in Path(log).read_text().splitlines()[1:]]
    assert all({"time", "level", "logger", "message", "pid"} <= set(x) for x in lines)
    created = [x for x in lines if x["message"].startswith("table ") and "created" in x["message"]]
    assert len(created) == 4 and all(x["process"] for x in created)
    assert {x["pid"] for x in created} <= pids
    assert any(x["logger"] == "uvicorn.error" for x in lines)
