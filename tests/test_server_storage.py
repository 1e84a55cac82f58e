"""Storage: the same tests against SQLite and a real PostgreSQL.

PostgreSQL is looked for at ``QUINTET_TEST_PG`` (default
``postgresql+psycopg://postgres@127.0.0.1:5432/test``; CI has one there). Each test
works in a schema of its own, dropped afterwards. Where no server answers the tests
skip with the reason, except under CI (``CI`` set), where they fail.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from quintet.server import db
from quintet.server.db import Store, schema_revision
from quintet.server.live import Conn, Hub, Settings
from quintet.server.messages import CreateTable
from quintet.server.testing import apply_update, bare_table_row

PG = os.environ.get("QUINTET_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _postgres() -> Iterator[str]:
    schema = f"quintet_test_{secrets.token_hex(4)}"
    try:
        engine = sa.create_engine(PG, connect_args={"connect_timeout": 3})
        with engine.begin() as conn:
            conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    except Exception as e:
        why = f"PostgreSQL is not reachable at {PG.split('@')[-1]} ({type(e).__name__}: {e})"
        if os.environ.get("CI"):
            pytest.fail(why + " - CI must run the PostgreSQL storage tests")
        pytest.skip(why)
    try:
        yield f"{PG}?options=-csearch_path%3D{schema}"
    finally:
        with engine.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.db'}"
    else:
        yield from _postgres()


async def _noop_send(text: str) -> None:
    return None


async def _noop_close(code: int, reason: str) -> None:
    return None


def conn_of(hub: Hub, person: str | None = None) -> Conn:
    """A connection of a person of its own (a browser's cookie), or of ``person``."""
    return Conn(_noop_send, _noop_close, hub.settings, person or secrets.token_hex(32))


async def create(hub: Hub, body: dict[str, Any], person: str = "creator") -> dict[str, Any]:
    return await hub.create_table(CreateTable.model_validate(body), person)


def sent(conn: Conn) -> list[dict[str, Any]]:
    return [json.loads(m) for m in conn.outbox if isinstance(m, str)]


def last_state(conn: Conn) -> dict[str, Any]:
    """Return the table as the messages sent to ``conn`` show it (updates applied)."""
    table: dict[str, Any] | None = None
    for m in sent(conn):
        if m["type"] in ("state", "update"):
            table = apply_update(table, m)
    assert table is not None
    return table


def settings(url: str, **more: Any) -> Settings:
    return Settings(db_url=url, bot_delay=0.0, allow_seed=True, **more)


def test_the_schema_is_created_and_upgraded_at_start(db_url: str) -> None:
    store = Store(db_url)
    assert schema_revision(store.engine) is None
    store.migrate()
    assert schema_revision(store.engine) == db.HEAD_REVISION
    store.migrate()  # an up-to-date schema is left as it is
    names = set(sa.inspect(store.engine).get_table_names())
    assert {
        "quintet_tables",
        "quintet_seats",
        "quintet_actions",
        "quintet_analysis",
        "quintet_holders",
        "quintet_notices",
    } <= names
    store.close()


async def _until(cond: Any, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.01)


def test_every_action_is_stored_and_a_new_server_resumes_every_table(db_url: str) -> None:
    async def first() -> tuple[dict[str, Any], dict[str, Any]]:
        hub = Hub(settings(db_url), Store(db_url))
        await hub.start()
        quinto = await create(
            hub,
            {
                "game": "quinto",
                "seats": ["open", "random", "random", "random"],
                "join": {"seat": 0, "name": "Ann"},
                "seed": 11,
            },
        )
        quintus = await create(
            hub,
            {
                "game": "quintus",
                "variant": "bidding",
                "seats": ["open", "open", "random", "random", "random"],
                "seed": 12,
                "title": "club night",
            },
        )
        # Ann plays a few actions at the Quinto table.
        c = conn_of(hub)
        await hub.handle(
            c, json.dumps({"type": "hello", "table": quinto["id"], "token": quinto["token"]})
        )
        t = hub.tables[quinto["id"]]
        for _ in range(3):
            await _until(lambda: bool(last_state(c)["legal"]) or t.table.state.is_terminal())
            if t.table.state.is_terminal():
                break
            st = last_state(c)
            act = {"type": "act", "action": st["legal"][0], "expect": st["seq"]}
            await hub.handle(c, json.dumps(act))
        # Someone takes a seat at the Quintus table (it waits for its second player).
        d = conn_of(hub)
        await hub.handle(d, json.dumps({"type": "hello", "table": quintus["id"]}))
        await hub.handle(d, json.dumps({"type": "join", "seat": 1, "name": "Bea"}))
        snapshot = {
            tid: (lt.seq, [h.history() for h in lt.table.match.hands], [s.name for s in lt.seats])
            for tid, lt in hub.tables.items()
        }
        await hub.stop()
        return quinto, {"snapshot": snapshot}

    quinto, before = asyncio.run(first())

    async def second() -> None:
        hub = Hub(settings(db_url), Store(db_url))
        await hub.start()
        now = {
            tid: (lt.seq, [h.history() for h in lt.table.match.hands], [s.name for s in lt.seats])
            for tid, lt in hub.tables.items()
        }
        # Bots may have acted once more after the snapshot: compare what was stored then.
        for tid, (seq, hists, names) in before["snapshot"].items():
            assert tid in now
            assert now[tid][2] == names
            assert now[tid][0] >= seq
            for h0, h1 in zip(hists, now[tid][1], strict=False):
                assert h1[: len(h0)] == h0
        # The seat token still holds the seat.
        c = conn_of(hub)
        await hub.handle(
            c, json.dumps({"type": "hello", "table": quinto["id"], "token": quinto["token"]})
        )
        welcome = sent(c)[0]
        assert welcome["type"] == "welcome" and welcome["seat"] == 0
        await hub.stop()

    asyncio.run(second())


def _bare_table(table_id: str) -> db.TableRow:
    """Return a waiting Quinto table's row, its four seats open."""
    row: db.TableRow = bare_table_row(table_id)
    return row


def test_a_failing_write_commits_nothing_and_spares_the_others(db_url: str) -> None:
    async def main() -> None:
        store = Store(db_url)
        store.migrate()
        store.start()
        row = _bare_table("t1")
        await store.write(lambda conn: db.insert_table(conn, row))

        def bad(conn: Any) -> None:
            db.insert_action(conn, "t1", 99, 0, 0, 1)
            raise RuntimeError("boom")

        def good(i: int) -> Any:
            return lambda conn: db.insert_action(conn, "t1", i, 0, i % 4, i)

        jobs = [store.write(good(i)) for i in range(20)]
        results = await asyncio.gather(*jobs, store.write(bad), return_exceptions=True)
        assert isinstance(results[-1], RuntimeError)
        assert all(r is None for r in results[:-1])
        loaded = await store.read(lambda conn: db.load_table(conn, "t1"))
        assert loaded is not None
        assert [a[2] for a in loaded.actions] == list(range(20))
        store.close()

    asyncio.run(main())


def test_a_group_commits_action_rows_in_one_statement_and_a_bad_one_spares_the_others(
    db_url: str,
) -> None:
    async def main() -> None:
        store = Store(db_url)
        store.migrate()
        store.start()
        inserts: list[int] = []  # the rows of each INSERT into the actions' table

        @sa.event.listens_for(store.engine, "before_cursor_execute")
        def seen(conn: Any, cursor: Any, statement: str, params: Any, *rest: Any) -> None:
            if statement.startswith("INSERT INTO quintet_actions"):
                inserts.append(len(params) if isinstance(params, list) else 1)

        await store.write(lambda conn: db.insert_table(conn, _bare_table("t1")))
        await store.write(lambda conn: db.insert_table(conn, _bare_table("t2")))

        def row(table_id: str, seq: int) -> db.ActionRow:
            return db.action_row(table_id, seq, 0, seq % 4, seq)

        # Two tables' actions and a job beside one of them: one transaction, one insert.
        done = await asyncio.gather(
            *(store.write_action(row("t1", i)) for i in range(6)),
            store.write_action(row("t2", 0), lambda conn: db.update_table(conn, "t2", title="x")),
            store.write_action(row("t2", 1)),
        )
        assert done == [None] * 8
        assert sum(inserts) == 8 and (len(inserts) == 1 or "postgresql" in db_url)

        def boom(conn: Any) -> None:
            raise RuntimeError("boom")

        # A row already stored, and a row whose job fails: each fails alone.
        got = await asyncio.gather(
            *(store.write_action(row("t1", i)) for i in range(6, 10)),
            store.write_action(row("t1", 3)),
            store.write_action(row("t2", 2), boom),
            return_exceptions=True,
        )
        assert got[:4] == [None] * 4
        assert isinstance(got[4], sa.exc.IntegrityError)
        assert isinstance(got[5], RuntimeError)
        t1 = await store.read(lambda conn: db.load_table(conn, "t1"))
        t2 = await store.read(lambda conn: db.load_table(conn, "t2"))
        assert t1 is not None and t2 is not None
        assert [a[2] for a in t1.actions] == list(range(10))
        assert [a[2] for a in t2.actions] == [0, 1] and t2.title == "x"
        store.close()

    asyncio.run(main())


def test_finished_games_are_listed_with_results_and_keep_their_analysis(db_url: str) -> None:
    async def main() -> None:
        hub = Hub(settings(db_url), Store(db_url))
        await hub.start()
        made = await create(
            hub, {"game": "quintus", "options": {"hands": 1}, "seats": ["random"] * 5, "seed": 3}
        )
        t = hub.tables[made["id"]]
        await _until(lambda: t.status == "finished")
        rows = await hub.store.read(lambda conn: db.list_finished(conn))
        assert [r.id for r in rows] == [made["id"]]
        assert rows[0].result["game"] == "quintus" and rows[0].result["complete"]
        await hub.store.write(lambda conn: db.store_analysis(conn, made["id"], {"plays": [1, 2]}))
        got = await hub.store.read(lambda conn: db.load_analysis(conn, made["id"]))
        assert got == {"plays": [1, 2]}
        # A finished table is not resumed, but can still be loaded to be shown.
        await hub.stop()
        hub2 = Hub(settings(db_url), Store(db_url))
        await hub2.start()
        assert made["id"] not in hub2.tables
        again = await hub2.get_table(made["id"])
        assert again is not None and again.status == "finished"
        assert again.record().hands == t.record().hands
        await hub2.stop()

    asyncio.run(main())


# ------------------------------------------------- people, levels, migrations


def test_a_person_who_held_a_seat_is_refused_another_after_a_restart(db_url: str) -> None:
    ann = secrets.token_hex(32)

    async def first() -> str:
        hub = Hub(settings(db_url), Store(db_url))
        await hub.start()
        made = await create(
            hub, {"game": "quinto", "seats": ["open", "open", "random", "random"], "seed": 4}
        )
        c = conn_of(hub, ann)
        await hub.handle(c, json.dumps({"type": "hello", "table": made["id"]}))
        await hub.handle(c, json.dumps({"type": "join", "seat": 0, "name": "Ann"}))
        await hub.handle(c, json.dumps({"type": "leave"}))
        await hub.stop()
        return str(made["id"])

    tid = asyncio.run(first())

    async def second() -> None:
        hub = Hub(settings(db_url), Store(db_url))
        await hub.start()
        assert hub.tables[tid].holders == {ann: 0}
        c = conn_of(hub, ann)
        await hub.handle(c, json.dumps({"type": "hello", "table": tid}))
        await hub.handle(c, json.dumps({"type": "join", "seat": 1, "name": "Ann"}))
        errors = [m for m in sent(c) if m["type"] == "error"]
        assert [e["code"] for e in errors] == ["already_seated"]
        await hub.stop()

    asyncio.run(second())


def test_stored_bot_levels_that_are_not_offered_resume_as_offered_ones(db_url: str) -> None:
    async def first() -> str:
        hub = Hub(settings(db_url), Store(db_url))
        await hub.start()
        made = await create(hub, {"game": "quinto", "seats": ["open", "random", "random", "open"]})
        tid = str(made["id"])

        def old_levels(conn: Any) -> None:  # what an older server stored
            db.update_seat(conn, tid, 1, level="pimc:seconds=20")
            db.update_seat(conn, tid, 2, level="genius:iterations=1000000000000")

        await hub.store.write(old_levels)
        await hub.stop()
        return tid

    tid = asyncio.run(first())

    async def second() -> None:
        hub = Hub(settings(db_url), Store(db_url))
        await hub.start()
        levels = [s.level for s in hub.tables[tid].seats]
        assert levels == [None, "pimc", "heuristic", None]
        row = await hub.store.read(lambda conn: db.load_table(conn, tid))
        assert row is not None and [s.level for s in row.seats] == levels
        await hub.stop()

    asyncio.run(second())


def test_an_abandoned_table_is_not_resumed_and_keeps_its_record(db_url: str) -> None:
    async def main() -> None:
        hub = Hub(settings(db_url, abandon_after=60.0), Store(db_url))
        await hub.start()
        made = await create(hub, {"game": "quinto", "seats": ["random"] * 4, "seed": 9})
        t = hub.tables[made["id"]]
        await _until(lambda: len(t.table.state.history()) >= 3 if t.table.state else False)
        import time

        assert await hub.sweep(time.time() + 61) == [made["id"]]
        assert t.status == "abandoned"
        n = len(t.table.state.history())
        await hub.stop()
        hub2 = Hub(settings(db_url), Store(db_url))
        await hub2.start()
        assert made["id"] not in hub2.tables
        again = await hub2.get_table(made["id"])
        assert again is not None and again.status == "abandoned"
        assert len(again.table.state.history()) == n
        assert again.result["complete"] is False
        await hub2.stop()

    asyncio.run(main())


def test_the_migration_to_0002_keeps_every_stored_table(db_url: str) -> None:
    from alembic import command
    from alembic.config import Config

    store = Store(db_url)
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(db.__file__).with_name("migrations")))
    with store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
    t = db.now()
    with store.engine.begin() as conn:  # a table as the first schema stored it
        conn.execute(
            sa.text(
                "INSERT INTO quintet_tables (id, game, variant, options, seed, public, title,"
                " status, hands_dealt, created_at, updated_at) VALUES ('old', 'quinto',"
                " 'partnership', '{}', 7, false, 'kept', 'playing', 1, :t, :t)"
            ),
            {"t": t},
        )
        for s in range(4):
            conn.execute(
                sa.text(
                    "INSERT INTO quintet_seats (table_id, seat, kind, level, name, invite)"
                    " VALUES ('old', :s, 'bot', 'random', 'random bot', :i)"
                ),
                {"s": s, "i": f"inv{s}"},
            )
    store.migrate()
    assert schema_revision(store.engine) == db.HEAD_REVISION
    row = store.run_sync(lambda conn: db.load_table(conn, "old"))
    assert row is not None and row.title == "kept" and not row.public
    assert row.view_key and len(row.view_key) >= 16
    assert [s.invite for s in row.seats] == ["inv0", "inv1", "inv2", "inv3"]
    assert row.holders == {} and row.notices == []
    store.close()


def test_games_that_are_over_are_kept_in_memory_only_while_recently_shown(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import quintet.server.live as live

    monkeypatch.setattr(live, "SHOWN_TABLES", 2)

    async def main() -> None:
        hub = Hub(settings(db_url, abandon_after=1.0), Store(db_url))
        await hub.start()
        ids = [
            (await create(hub, {"game": "quinto", "seats": ["open"] * 4}))["id"] for _ in range(4)
        ]
        import time

        assert sorted(await hub.sweep(time.time() + 2)) == sorted(ids)
        await hub.stop()
        hub2 = Hub(settings(db_url), Store(db_url))
        await hub2.start()
        for tid in ids:
            t = await hub2.get_table(tid)
            assert t is not None and t.status == "abandoned"
            await hub2.replay_of(t)
        assert set(hub2.tables) == set(ids[-2:]) and set(hub2.replays) <= set(ids[-2:])
        await hub2.stop()

    asyncio.run(main())
