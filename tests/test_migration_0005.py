"""The migration to 0005 (accounts): a database as 0004 stored it upgrades and still plays.

The 0004 database holds what the server stores: a finished game (every action, its
result), a table in play with a guest seated at it, and a score pad. They are made by
the server and copied, column by column, into a database built by the migrations up to
0004 (so only what 0004 had is there). After ``upgrade head`` the finished game still
replays to the same record, the table in play resumes with its seat, the pad loads,
and the guest who sat at the table can sign up and keep the seat. On SQLite and on
PostgreSQL; and 0005 goes back down to 0004 leaving every table.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from test_accounts import CHEAP
from test_server_storage import _postgres, _until

from quintet.pad import new_pad
from quintet.record import dumps as record_dumps
from quintet.server import Settings, create_app, db
from quintet.server.db import Store, schema_revision
from quintet.server.live import Hub
from quintet.server.messages import CreateTable
from quintet.server.security import new_cookie, person_id

JSON = dict[str, Any]


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.db'}"
    else:
        yield from _postgres()


def _alembic(engine: sa.Engine, revision: str, down: bool = False) -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(db.__file__).with_name("migrations")))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(cfg, revision)


def _played(url: str, guest: str) -> JSON:
    """Make, on a server at ``url``: a finished game, a table in play with ``guest``
    seated, and a pad of ``guest``'s. Returns their ids and the game's record."""

    async def main() -> JSON:
        hub = Hub(Settings(db_url=url, bot_delay=0.0, allow_seed=True), Store(url))
        await hub.start()
        done = await hub.create_table(
            CreateTable.model_validate(
                {"game": "quintus", "options": {"hands": 1}, "seats": ["random"] * 5, "seed": 3}
            ),
            "someone",
        )
        t = hub.tables[done["id"]]
        await _until(lambda: t.status == "finished")
        playing = await hub.create_table(
            CreateTable.model_validate(
                {
                    "game": "quinto",
                    "seats": ["open", "random", "open", "random"],
                    "join": {"seat": 0, "name": "Gus"},
                    "seed": 5,
                }
            ),
            person_id(guest),
        )
        pad = new_pad("quinto")
        pad.add({"type": "quint", "quints": ["5H"], "side": 0})
        t0 = db.now()
        row = db.PadRow(
            "pad1", person_id(guest), "quinto", "partnership", "kept", "vk1", "ek1",
            pad.to_json(), 1, 1, t0, t0,
        )  # fmt: skip
        await hub.store.write(lambda conn: db.insert_pad(conn, row))
        out = {
            "finished": done["id"],
            "playing": playing["id"],
            "record": json.loads(record_dumps(t.record())),
            "pad": pad.to_json(),
        }
        await hub.stop()
        return out

    return asyncio.run(main())


def _copy(source: sa.Engine, target: sa.Engine) -> dict[str, int]:
    """Copy every row of the tables ``target`` has, in the columns it has."""
    have = sa.MetaData()
    have.reflect(target)
    copied = {}
    with source.connect() as src, target.begin() as dst:
        for table in db.metadata.sorted_tables:
            if table.name not in have.tables:
                continue
            into = have.tables[table.name]
            cols = [c.name for c in into.columns]
            rows = [dict(r._mapping) for r in src.execute(sa.select(*(table.c[c] for c in cols)))]
            if rows:
                dst.execute(into.insert(), rows)
            copied[table.name] = len(rows)
    return copied


def test_a_database_at_0004_upgrades_to_0005_and_still_replays_its_games(
    db_url: str, tmp_path: Path
) -> None:
    guest = new_cookie()
    source = f"sqlite:///{tmp_path / 'made.db'}"
    made = _played(source, guest)
    old = db.make_engine(db_url)
    _alembic(old, "0004")
    src = db.make_engine(source)
    copied = _copy(src, old)
    src.dispose()
    assert copied["quintet_actions"] > 20 and copied["quintet_holders"] == 1
    assert copied["quintet_pads"] == 1 and "quintet_accounts" not in copied
    assert "quintet_accounts" not in sa.inspect(old).get_table_names()

    db.migrate(old)  # what quintet serve does at start
    assert schema_revision(old) == db.HEAD_REVISION
    names = set(sa.inspect(old).get_table_names())
    assert {"quintet_accounts", "quintet_sessions", "quintet_results"} <= names
    with old.connect() as conn:
        assert conn.execute(sa.select(db.tables_t.c.rated)).scalars().all() == [False, False]
    assert _counts(old, copied) == copied  # nothing lost on the way
    old.dispose()

    app = create_app(Settings(db_url=db_url, bot_delay=0.0, **CHEAP))
    with TestClient(app) as client:
        r = client.get(f"/api/games/{made['finished']}/record")
        assert r.status_code == 200, r.text
        assert r.json() == made["record"]  # the same game, replayed from its actions
        assert client.get(f"/api/games/{made['finished']}/replay").status_code == 200
        listed = client.get("/api/games").json()["games"]
        assert [g["id"] for g in listed] == [made["finished"]]
        info = client.get(f"/api/tables/{made['playing']}").json()
        assert info["status"] != "finished" and info["seats"][0]["name"] == "Gus"
        pad = client.get("/api/pads/pad1", params={"key": "vk1"})
        assert pad.status_code == 200 and pad.json()["pad"] == made["pad"]
        # The guest of before the upgrade signs up: the seat and the pad are the account's.
        r = client.post(
            "/api/account/signup",
            json={"name": "Gus", "password": "a long password"},
            headers={"cookie": f"quintet_person={guest}"},
        )
        assert r.status_code == 201, r.text
        session = r.cookies["quintet_session"]
        client.cookies.clear()
        me = {"cookie": f"quintet_session={session}"}
        assert client.get("/api/pads", headers=me).json()["pads"][0]["id"] == "pad1"
        assert client.get(f"/api/tables/{made['playing']}/invites", headers=me).status_code == 200

    # And back down: 0005 goes, every row of before stays.
    old = db.make_engine(db_url)
    _alembic(old, "0004", down=True)
    assert "quintet_accounts" not in sa.inspect(old).get_table_names()
    assert _counts(old, copied) == copied
    old.dispose()


def _counts(engine: sa.Engine, tables: dict[str, int]) -> dict[str, int]:
    with engine.connect() as conn:
        return {
            name: int(
                conn.execute(sa.select(sa.func.count()).select_from(sa.table(name))).scalar_one()
            )
            for name in tables
        }
