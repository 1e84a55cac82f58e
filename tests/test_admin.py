"""``quintet admin accounts``: list, disable, enable, delete and export, on a real database.

The database is made by the server itself (accounts signed up over HTTP, a table Ann
sat at, a pad), with the rows the ratings and results code writes added directly; then
the commands run with click's CliRunner, as an operator runs them, on SQLite (and the
listing on PostgreSQL too).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from click.testing import CliRunner, Result
from test_accounts import Server, make_server
from test_server_storage import _postgres

from quintet.cli import main
from quintet.server import db

JSON = dict[str, Any]


def admin(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, ["admin", "accounts", *args], input=input)


def populate(server: Server) -> str:
    """Ann (two sessions, a table, a pad, a rating, a result, a friend) and Bob."""
    ann, bob = server.browser(), server.browser()
    r = ann.post(
        "/api/tables",
        {
            "game": "quinto",
            "seats": ["open", "open", "heuristic", "heuristic"],
            "join": {"seat": 0, "name": "Ann the Bold"},
        },
    )
    assert r.status_code == 201, r.text
    table = r.json()["id"]
    assert ann.post("/api/pads", {"game": "quinto", "title": "Friday"}).status_code == 201
    ann.sign_up("Ann")
    bob.sign_up("Bob")
    bob_seat = bob.ws()
    bob_seat.send_text(json.dumps({"type": "hello", "table": table}))
    bob_seat.send_text(json.dumps({"type": "join", "seat": 1, "name": "Bob"}))
    while bob_seat.receive_json()["type"] != "joined":
        pass
    assert server.browser().log_in("Ann").status_code == 200
    rows = {n: server.account_row(n) for n in ("Ann", "Bob")}
    t = db.now()
    result = {"game": "quinto", "complete": True, "score": [100, 80]}

    def finish(conn: Any) -> None:
        db.update_table(conn, table, status="finished", finished_at=t, result=result)
        conn.execute(
            db.ratings_t.insert().values(
                account_id=rows["Ann"].id,
                game="quinto",
                variant="partnership",
                mu=27.0,
                sigma=7.5,
                games=1,
                updated_at=t,
            )
        )
        for name, seat, won in (("Ann", 0, True), ("Bob", 1, False)):
            conn.execute(
                db.results_t.insert().values(
                    table_id=table,
                    person=rows[name].person,
                    seat=seat,
                    game="quinto",
                    variant="partnership",
                    finished_at=t,
                    won=won,
                    hands=3,
                    points=33.3,
                    stats={"quints": 2},
                )
            )
        for a, b in (("Ann", "Bob"), ("Bob", "Ann")):
            conn.execute(
                db.friends_t.insert().values(
                    account_id=rows[a].id, friend_id=rows[b].id, created_at=t
                )
            )

    server.sql(finish)
    return str(table)


@pytest.fixture
def populated(tmp_path: Path) -> Iterator[tuple[str, str]]:
    url = f"sqlite:///{tmp_path / 'admin.db'}"
    with ExitStack() as stack:
        table = populate(make_server(stack, url))
    yield url, table


def count(url: str, table: sa.Table, *where: Any) -> int:
    engine = db.make_engine(url)
    try:
        with engine.connect() as conn:
            q = sa.select(sa.func.count()).select_from(table).where(*where)
            return int(conn.execute(q).scalar_one())
    finally:
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'admin.db'}"
    else:
        yield from _postgres()


def test_admin_accounts_list_shows_each_account_with_its_dates_sessions_and_status(
    db_url: str,
) -> None:
    with ExitStack() as stack:
        populate(make_server(stack, db_url))
    r = admin("list", "--db", db_url)
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].split() == ["name", "created", "last", "seen", "sessions", "status"]
    assert [line.split()[0] for line in lines[1:]] == ["Ann", "Bob"]
    assert lines[1].split()[-2:] == ["2", "active"] and lines[2].split()[-2:] == ["1", "active"]
    rows = json.loads(admin("list", "--db", db_url, "--json").output)
    assert [(x["name"], x["sessions"], x["disabled"]) for x in rows] == [
        ("Ann", 2, False),
        ("Bob", 1, False),
    ]
    assert all(x["created_at"] and x["last_seen_at"] for x in rows)


def test_admin_migrates_a_new_database_first_and_uses_the_servers_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'default.db'}"
    monkeypatch.setattr(db, "default_db_url", lambda: url)
    r = admin("list")
    assert r.exit_code == 0 and r.output == "no accounts\n", r.output
    engine = db.make_engine(url)
    assert db.schema_revision(engine) == db.HEAD_REVISION
    engine.dispose()


def test_admin_disable_ends_the_sessions_and_a_running_server_refuses_the_account(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'admin.db'}"
    with ExitStack() as stack:
        server = make_server(stack, url)
        ann = server.browser()
        ann.sign_up("Ann")
        r = admin("disable", "ann", "--db", url)
        assert r.exit_code == 0 and r.output == "disabled Ann (1 sessions ended)\n", r.output
        assert "disabled" in admin("list", "--db", url).output
        server.clock.advance(seconds=31)  # the server's memory of the session is over
        assert ann.account() is None
        r = server.browser().log_in("Ann")
        assert r.status_code == 403 and r.json()["error"]["code"] == "account_disabled"
        r = admin("enable", "Ann", "--db", url)
        assert r.exit_code == 0 and r.output == "enabled Ann\n", r.output
        assert ann.log_in("Ann").status_code == 200 and ann.account() is not None


def test_admin_delete_removes_the_account_and_its_data_but_keeps_the_tables(
    populated: tuple[str, str],
) -> None:
    url, table = populated
    ann = count(url, db.accounts_t, db.accounts_t.c.name == "Ann")
    assert ann == 1
    r = admin("delete", "Ann", "--db", url, input="n\n")
    assert r.exit_code == 1 and "Aborted" in r.output, r.output
    assert count(url, db.accounts_t) == 2
    engine = db.make_engine(url)
    with engine.connect() as conn:
        row = conn.execute(sa.select(db.accounts_t).where(db.accounts_t.c.name == "Ann")).one()
    engine.dispose()
    r = admin("delete", "Ann", "--db", url, "--yes")
    assert r.exit_code == 0, r.output
    assert r.output == (
        "deleted Ann (2 sessions, 1 ratings, 1 friends, 1 results, 1 pads); "
        "the tables it played stay\n"
    )
    assert count(url, db.accounts_t) == 1
    assert count(url, db.sessions_t, db.sessions_t.c.account_id == row.id) == 0
    assert count(url, db.ratings_t) == 0
    assert count(url, db.friends_t) == 0  # both ways
    assert count(url, db.results_t) == 1  # Bob's
    assert count(url, db.pads_t) == 0
    engine = db.make_engine(url)
    with engine.connect() as conn:
        t = db.load_table(conn, table)
    engine.dispose()
    assert t is not None and t.status == "finished"
    assert [s.name for s in t.seats[:2]] == ["Ann the Bold", "Bob"]  # as typed
    assert admin("list", "--db", url, "--json").output.count('"name"') == 1


def test_admin_export_holds_what_is_stored_about_the_account_and_no_secret(
    populated: tuple[str, str], tmp_path: Path
) -> None:
    url, table = populated
    r = admin("export", "Ann", "--db", url)
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["account"]["name"] == "Ann" and data["account"]["disabled"] is False
    assert len(data["sessions"]) == 2
    assert set(data["sessions"][0]) == {"created_at", "last_seen_at", "expires_at"}
    assert [(x["game"], x["mu"], x["games"]) for x in data["ratings"]] == [("quinto", 27.0, 1)]
    assert [(x["table"], x["seat"], x["won"]) for x in data["results"]] == [(table, 0, True)]
    assert data["friends"] == {"friends": ["Bob"], "asked": [], "asked_by": []}
    (played,) = data["tables"]
    assert (played["table"], played["seat"], played["seat_name"]) == (table, 0, "Ann the Bold")
    assert played["status"] == "finished" and played["result"]["score"] == [100, 80]
    assert [p["title"] for p in data["pads"]] == ["Friday"]
    engine = db.make_engine(url)
    with engine.connect() as conn:
        secrets = [conn.execute(sa.select(db.accounts_t.c.password_hash)).scalars().all()]
        secrets.append(conn.execute(sa.select(db.sessions_t.c.id)).scalars().all())
    engine.dispose()
    for value in [v for group in secrets for v in group]:
        assert value not in r.output
    assert "argon2" not in r.output and "password" not in r.output
    out = tmp_path / "ann.json"
    r = admin("export", "ann", "--db", url, "-o", str(out))
    assert r.exit_code == 0 and r.output == f"wrote {out}\n", r.output
    assert json.loads(out.read_text())["account"] == data["account"]


@pytest.mark.parametrize("command", ["disable", "enable", "delete", "export"])
def test_admin_commands_name_an_unknown_account(populated: tuple[str, str], command: str) -> None:
    url, _ = populated
    r = admin(command, "Zed", "--db", url, *(["--yes"] if command == "delete" else []))
    assert r.exit_code == 1
    assert r.output == "Error: no account is named 'Zed' (see quintet admin accounts list)\n"
    assert count(url, db.accounts_t) == 2
