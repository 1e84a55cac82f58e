"""Accounts: sign-up, log-in, throttling, sessions, guest conversion, one seat per account.

Each test runs a real app (TestClient) on SQLite and on PostgreSQL (``db_url``, as in
test_server_storage.py). A :class:`Browser` keeps its own cookies from the answers'
``Set-Cookie`` headers and sends them, and says which client address it is (the
``x-test-client`` header, read by a wrapper around the app). The accounts' clock is a
:class:`Clock` the tests move; argon2 runs with cheap parameters (the hashing is the
same code).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import WebSocketTestSession
from test_server_storage import _postgres

from quintet.server import Settings, accounts, create_app, db
from quintet.server.accounts import Account
from quintet.server.protocol import PROTOCOL_VERSION
from quintet.server.security import new_cookie, person_id

JSON = dict[str, Any]
#: argon2id at its cheapest: the tests check the logic, not the cost.
CHEAP: JSON = {"password_time_cost": 1, "password_memory_kib": 8, "password_parallelism": 1}
PASSWORD = "correct horse"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'accounts.db'}"
    else:
        yield from _postgres()


class Clock:
    """The accounts' time: starts now, moves when told."""

    def __init__(self) -> None:
        self.t = db.now()

    def __call__(self) -> datetime:
        return self.t

    def advance(self, **delta: float) -> None:
        self.t += timedelta(**delta)


def _with_addresses(app: FastAPI) -> Callable[..., Any]:
    """The app, with each request's client address taken from ``x-test-client``."""

    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            for k, v in scope.get("headers") or []:
                if k == b"x-test-client":
                    scope["client"] = (v.decode(), 4321)
        await app(scope, receive, send)

    return asgi


class Server:
    """A running app, its clock, and browsers on it."""

    def __init__(self, app: FastAPI, client: TestClient, stack: ExitStack) -> None:
        self.app = app
        self.client = client
        self.stack = stack
        self.clock = Clock()
        self.accounts.clock = self.clock

    @property
    def accounts(self) -> accounts.Accounts:
        a: accounts.Accounts = self.app.state.accounts
        return a

    @property
    def store(self) -> db.Store:
        s: db.Store = self.app.state.hub.store
        return s

    def browser(self, address: str = "10.0.0.1") -> Browser:
        return Browser(self, address)

    def sql(self, fn: Callable[[Any], Any]) -> Any:
        return self.store.run_sync(fn)

    def account_row(self, name: str) -> Any:
        return self.sql(
            lambda c: c.execute(
                sa.select(db.accounts_t).where(db.accounts_t.c.name_key == name.lower())
            ).first()
        )

    def sessions(self, name: str) -> list[Any]:
        row = self.account_row(name)
        return list(
            self.sql(
                lambda c: c.execute(
                    sa.select(db.sessions_t).where(db.sessions_t.c.account_id == row.id)
                ).all()
            )
        )


class Browser:
    """One browser: its cookie jar and client address."""

    def __init__(self, server: Server, address: str) -> None:
        self.server = server
        self.address = address
        self.jar: dict[str, str] = {"quintet_person": new_cookie()}

    def headers(self) -> dict[str, str]:
        cookie = "; ".join(f"{k}={v}" for k, v in self.jar.items())
        return {"cookie": cookie, "x-test-client": self.address}

    def call(self, method: str, path: str, body: Any = None) -> Any:
        if method != "GET" and body is None:
            body = {}
        client = self.server.client
        headers = self.headers()
        content = None
        if method != "GET":
            # As JSON text (ASCII): a lone surrogate is sent as its escape.
            content = json.dumps(body)
            headers["content-type"] = "application/json"
        r = client.request(method, path, content=content, headers=headers)
        client.cookies.clear()  # this browser's jar is its own
        for line in r.headers.get_list("set-cookie"):
            name, _, rest = line.partition("=")
            if "Max-Age=0" in line:
                self.jar.pop(name, None)
            else:
                self.jar[name] = rest.split(";")[0]
        return r

    def get(self, path: str) -> Any:
        return self.call("GET", path)

    def post(self, path: str, body: Any = None) -> Any:
        return self.call("POST", path, body)

    def sign_up(self, name: str, password: str = PASSWORD) -> Any:
        r = self.post("/api/account/signup", {"name": name, "password": password})
        assert r.status_code == 201, r.text
        return r

    def log_in(self, name: str, password: str = PASSWORD) -> Any:
        return self.post("/api/account/login", {"name": name, "password": password})

    def account(self) -> JSON | None:
        r = self.get("/api/account")
        assert r.status_code == 200, r.text
        out: JSON | None = r.json()["account"]
        return out

    def ws(self) -> WebSocketTestSession:
        s: WebSocketTestSession = self.server.stack.enter_context(
            self.server.client.websocket_connect("/ws", headers=self.headers())
        )
        return s


def make_server(stack: ExitStack, db_url: str, **settings: Any) -> Server:
    base: JSON = {"db_url": db_url, "bot_delay": 0.0, **CHEAP}
    app = create_app(Settings(**(base | settings)))
    client = stack.enter_context(TestClient(_with_addresses(app)))
    return Server(app, client, stack)


@pytest.fixture
def server(db_url: str) -> Iterator[Server]:
    with ExitStack() as stack:
        yield make_server(stack, db_url)


@pytest.fixture
def sqlite_server(tmp_path: Path) -> Iterator[Server]:
    with ExitStack() as stack:
        yield make_server(stack, f"sqlite:///{tmp_path / 'accounts.db'}")


def error_of(r: Any) -> JSON:
    err: JSON = r.json()["error"]
    return err


# ------------------------------------------------------------ websocket helpers


def send(ws: WebSocketTestSession, msg: JSON) -> None:
    ws.send_text(json.dumps(msg))


def answer(ws: WebSocketTestSession, msg: JSON) -> JSON:
    """Send ``msg`` and return the first reply that is not a state update."""
    send(ws, msg)
    while True:
        m: JSON = ws.receive_json()
        if m["type"] not in ("state", "chat_history", "chat"):
            return m


def hello(ws: WebSocketTestSession, table: str, **more: Any) -> JSON:
    m = answer(ws, {"type": "hello", "v": PROTOCOL_VERSION, "table": table, **more})
    assert m["type"] == "welcome", m
    return m


def create_table(b: Browser, **body: Any) -> JSON:
    base: JSON = {"game": "quinto", "seats": ["open", "open", "heuristic", "heuristic"]}
    r = b.post("/api/tables", base | body)
    assert r.status_code == 201, r.text
    out: JSON = r.json()
    return out


# ---------------------------------------------------------------------- sign-up


def test_sign_up_signs_in_with_a_session_cookie_and_a_new_guest_cookie(server: Server) -> None:
    ann = server.browser()
    guest = ann.jar["quintet_person"]
    r = ann.sign_up("Ann")
    assert r.json()["account"]["name"] == "Ann"
    cookies = {c.split("=")[0]: c for c in r.headers.get_list("set-cookie")}
    session = cookies["quintet_session"]
    assert "HttpOnly" in session and "SameSite=Lax" in session and "Path=/" in session
    assert f"Max-Age={30 * 86400}" in session and "Secure" not in session
    assert ann.jar["quintet_person"] != guest  # after log-out, a new guest
    assert ann.account() == {"name": "Ann", "created_at": r.json()["account"]["created_at"]}
    row = server.account_row("Ann")
    assert row.person == person_id(guest)  # the guest's person is the account's
    assert row.password_hash.startswith("$argon2id$") and PASSWORD not in row.password_hash
    (s,) = server.sessions("Ann")
    token = ann.jar["quintet_session"]
    assert s.id == accounts.session_id(token) and token not in s.id  # only a hash is kept
    assert server.browser().account() is None  # another browser is a guest


def test_the_session_cookie_is_secure_over_https(tmp_path: Path) -> None:
    app = create_app(Settings(db_url=f"sqlite:///{tmp_path / 's.db'}", bot_delay=0.0, **CHEAP))
    with TestClient(app, base_url="https://testserver") as client:
        r = client.post("/api/account/signup", json={"name": "Ann", "password": PASSWORD})
        assert r.status_code == 201, r.text
        for line in r.headers.get_list("set-cookie"):
            assert line.endswith("; Secure"), line


def test_a_name_is_taken_whatever_its_case(server: Server) -> None:
    server.browser().sign_up("Ann")
    for name in ("Ann", "ann", "ANN"):
        r = server.browser().post("/api/account/signup", {"name": name, "password": PASSWORD})
        assert r.status_code == 409, r.text
        assert error_of(r) == {
            "code": "name_taken",
            "message": f"the user name {name!r} is taken",
            "field": "name",
        }
    assert (
        server.sql(
            lambda c: c.execute(sa.select(sa.func.count()).select_from(db.accounts_t)).scalar()
        )
        == 1
    )


@pytest.mark.parametrize(
    ("name", "password", "code", "field", "message"),
    [
        ("An", PASSWORD, "bad_name", "name", "a user name has 3 to 20 characters, not 2"),
        ("A" * 21, PASSWORD, "bad_name", "name", "a user name has 3 to 20 characters, not 21"),
        (
            "Ann Bee",
            PASSWORD,
            "bad_name",
            "name",
            "a user name has only letters (a-z, A-Z), digits, _ and -: not ' '",
        ),
        (
            "Zoë",
            PASSWORD,
            "bad_name",
            "name",
            "a user name has only letters (a-z, A-Z), digits, _ and -: not 'ë'",
        ),
        ("Ann", "short", "bad_password", "password", "a password has at least 8 characters, not 5"),
        (
            "Ann",
            "x" * 201,
            "bad_password",
            "password",
            "a password has at most 200 characters, not 201",
        ),
        (
            "Annabelle",
            "ANNABELLE",
            "bad_password",
            "password",
            "the password must not be the user name",
        ),
    ],
)
def test_bad_names_and_passwords_are_refused_with_their_reason(
    sqlite_server: Server, name: str, password: str, code: str, field: str, message: str
) -> None:
    b = sqlite_server.browser()
    r = b.post("/api/account/signup", {"name": name, "password": password})
    assert r.status_code == 422, r.text
    assert error_of(r) == {"code": code, "message": message, "field": field}
    assert "quintet_session" not in b.jar and sqlite_server.account_row(name) is None


def test_a_body_that_does_not_fit_names_the_field(sqlite_server: Server) -> None:
    b = sqlite_server.browser()
    r = b.post("/api/account/signup", {"name": "Ann"})
    assert r.status_code == 422 and error_of(r)["field"] == "password", r.text
    r = b.post("/api/account/signup", {"name": "Ann", "password": "\ud800" * 9})
    assert r.status_code == 422 and error_of(r)["field"] == "password", r.text
    r = b.post("/api/account/login", {"name": "Ann", "password": PASSWORD, "admin": True})
    assert r.status_code == 422 and error_of(r)["field"] == "admin", r.text


def test_sign_up_while_signed_in_is_refused(sqlite_server: Server) -> None:
    ann = sqlite_server.browser()
    ann.sign_up("Ann")
    r = ann.post("/api/account/signup", {"name": "Another", "password": PASSWORD})
    assert r.status_code == 409 and error_of(r)["code"] == "signed_in", r.text
    assert sqlite_server.account_row("Another") is None


def test_sign_ups_from_one_address_are_limited_per_hour(tmp_path: Path) -> None:
    with ExitStack() as stack:
        server = make_server(stack, f"sqlite:///{tmp_path / 'a.db'}", signups_per_hour=2.0)
        for name in ("Ann", "Bea"):
            server.browser("10.0.0.5").sign_up(name)
        r = server.browser("10.0.0.5").post(
            "/api/account/signup", {"name": "Cid", "password": PASSWORD}
        )
        assert r.status_code == 429 and error_of(r)["code"] == "too_many_signups", r.text
        assert error_of(r)["retry_after"] == 1800 and r.headers["retry-after"] == "1800"
        server.browser("10.0.0.6").sign_up("Cid")  # another address may
        server.clock.advance(minutes=31)  # one sign-up came back
        server.browser("10.0.0.5").sign_up("Dee")


def test_accounts_can_be_switched_off(tmp_path: Path) -> None:
    with ExitStack() as stack:
        server = make_server(stack, f"sqlite:///{tmp_path / 'a.db'}", accounts=False)
        b = server.browser()
        r = b.post("/api/account/signup", {"name": "Ann", "password": PASSWORD})
        assert r.status_code == 404 and error_of(r)["code"] == "no_accounts", r.text
        assert b.get("/api/account").json() == {"account": None, "accounts": False}


# ----------------------------------------------------------------------- log-in


def test_log_in_from_another_browser_and_a_wrong_password_is_401(server: Server) -> None:
    server.browser().sign_up("Ann")
    bob = server.browser()
    for name, password in (("Ann", "wrong password"), ("Nobody", PASSWORD)):
        r = bob.log_in(name, password)
        assert r.status_code == 401, r.text
        # The same words whether the name exists or not.
        assert error_of(r) == {"code": "bad_login", "message": "wrong user name or password"}
        assert "quintet_session" not in bob.jar and bob.account() is None
    r = bob.log_in("aNN")  # the name in any case
    assert r.status_code == 200 and r.json()["account"]["name"] == "Ann", r.text
    session = next(c for c in r.headers.get_list("set-cookie") if "quintet_session=" in c)
    assert "HttpOnly" in session and "SameSite=Lax" in session
    assert bob.account() is not None and bob.account()["name"] == "Ann"  # type: ignore[index]
    assert len(server.sessions("Ann")) == 2


def test_wrong_passwords_are_throttled_per_name_even_for_the_right_one(server: Server) -> None:
    server.browser().sign_up("Ann")
    for i in range(5):  # login_failures, each from another address
        assert server.browser(f"10.1.0.{i}").log_in("Ann", f"guess {i}").status_code == 401
    server.clock.advance(seconds=100)
    r = server.browser("10.1.1.1").log_in("ann")  # the right password, a new address
    assert r.status_code == 429, r.text
    err = error_of(r)
    assert err["code"] == "too_many_attempts" and err["retry_after"] == 200
    assert r.headers["retry-after"] == "200" and "try again in 200 s" in err["message"]
    # Another name from those addresses is not throttled.
    server.browser().sign_up("Bea")
    assert server.browser("10.1.0.0").log_in("Bea").status_code == 200
    server.clock.advance(seconds=200)  # the window has passed the failures
    assert server.browser("10.1.1.1").log_in("Ann").status_code == 200


def test_wrong_passwords_are_throttled_per_address(server: Server) -> None:
    for name in ("Ann", "Bea"):
        server.browser().sign_up(name)
    mallory = server.browser("10.2.0.1")
    for i in range(5):
        assert mallory.log_in("Ann" if i % 2 else "Bea", f"guess {i}").status_code == 401
    r = mallory.log_in("Bea")
    assert r.status_code == 429 and error_of(r)["code"] == "too_many_attempts", r.text
    assert server.browser("10.2.0.2").log_in("Bea").status_code == 200  # Bea elsewhere
    server.clock.advance(seconds=301)
    assert mallory.log_in("Bea").status_code == 200


def test_a_right_password_forgets_the_names_failures(sqlite_server: Server) -> None:
    server = sqlite_server
    server.browser().sign_up("Ann")
    for i in range(4):
        assert server.browser(f"10.3.0.{i}").log_in("Ann", "wrong one").status_code == 401
    assert server.browser("10.3.1.0").log_in("Ann").status_code == 200
    for i in range(4):  # four more wrong ones are not yet five
        assert server.browser(f"10.3.2.{i}").log_in("Ann", "wrong one").status_code == 401


def test_a_hash_made_with_other_parameters_is_redone_at_log_in(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    with ExitStack() as stack:
        make_server(stack, url).browser().sign_up("Ann")
    with ExitStack() as stack:
        server = make_server(stack, url, password_time_cost=2)
        before = server.account_row("Ann").password_hash
        assert "t=1," in before
        assert server.browser().log_in("Ann").status_code == 200
        after = server.account_row("Ann").password_hash
        assert "t=2," in after and after != before
        assert server.browser().log_in("Ann").status_code == 200  # the new hash verifies


# --------------------------------------------------------------------- sessions


def test_a_session_ends_session_days_after_log_in_however_often_used(server: Server) -> None:
    ann = server.browser()
    ann.sign_up("Ann")
    for days in (6, 6, 6, 6, 5):  # used every few days: never idle for 7
        server.clock.advance(days=days)
        assert ann.account() is not None
    server.clock.advance(days=1, seconds=1)  # 30 days after log-in: over session_days
    r = ann.get("/api/account")
    assert r.json()["account"] is None
    assert "quintet_session=; Path=/; Max-Age=0" in r.headers["set-cookie"]
    assert "quintet_session" not in ann.jar and server.sessions("Ann") == []


def test_a_session_ends_after_session_idle_days_unused(server: Server) -> None:
    ann = server.browser()
    ann.sign_up("Ann")
    start = server.clock.t
    server.clock.advance(seconds=30)
    assert ann.account() is not None
    (s,) = server.sessions("Ann")  # used again within a minute: not written
    assert abs((db._utc(s.last_seen_at) - start).total_seconds()) < 1
    server.clock.advance(days=6, seconds=30)
    assert ann.account() is not None
    (s,) = server.sessions("Ann")
    assert abs((db._utc(s.last_seen_at) - server.clock.t).total_seconds()) < 1
    server.clock.advance(days=7)  # not used for a week
    assert ann.account() is None and "quintet_session" not in ann.jar
    assert server.sessions("Ann") == []


def test_log_out_ends_the_session_and_the_browser_is_a_guest_again(server: Server) -> None:
    ann = server.browser()
    ann.sign_up("Ann")
    token = ann.jar["quintet_session"]
    guest = ann.jar["quintet_person"]
    r = ann.post("/api/account/logout")
    assert r.status_code == 200 and r.json() == {"account": None}
    assert "quintet_session" not in ann.jar and ann.jar["quintet_person"] == guest
    assert ann.account() is None and server.sessions("Ann") == []
    thief = server.browser()  # the ended session's cookie is worth nothing
    thief.jar["quintet_session"] = token
    assert thief.account() is None
    assert ann.post("/api/account/logout").status_code == 200  # as a guest: nothing to do


def test_a_password_change_ends_the_accounts_other_sessions(server: Server) -> None:
    ann, phone = server.browser(), server.browser()
    ann.sign_up("Ann")
    assert phone.log_in("Ann").status_code == 200
    assert phone.account() is not None
    bad = ann.post("/api/account/password", {"old": "not it at all", "new": "a new secret"})
    assert bad.status_code == 401, bad.text
    assert error_of(bad) == {
        "code": "wrong_password",
        "message": "the old password is wrong",
        "field": "old",
    }
    short = ann.post("/api/account/password", {"old": PASSWORD, "new": "tiny"})
    assert short.status_code == 422 and error_of(short)["field"] == "new", short.text
    r = ann.post("/api/account/password", {"old": PASSWORD, "new": "a new secret"})
    assert r.status_code == 200 and r.json()["sessions_ended"] == 1, r.text
    assert phone.account() is None and ann.account() is not None
    assert server.browser().log_in("Ann").status_code == 401
    assert server.browser().log_in("Ann", "a new secret").status_code == 200
    guest = server.browser()
    r = guest.post("/api/account/password", {"old": PASSWORD, "new": "a new secret"})
    assert r.status_code == 401 and error_of(r)["code"] == "not_signed_in"


def test_an_account_keeps_its_newest_sessions(tmp_path: Path) -> None:
    with ExitStack() as stack:
        server = make_server(stack, f"sqlite:///{tmp_path / 'a.db'}", sessions_per_account=2)
        first = server.browser()
        first.sign_up("Ann")
        others = [server.browser() for _ in range(2)]
        for b in others:
            server.clock.advance(seconds=1)
            assert b.log_in("Ann").status_code == 200
        assert len(server.sessions("Ann")) == 2
        assert first.account() is None
        assert all(b.account() is not None for b in others)


def test_a_disabled_account_cannot_log_in_and_its_sessions_stop(server: Server) -> None:
    ann = server.browser()
    ann.sign_up("Ann")
    assert server.sql(lambda c: accounts.set_disabled(c, "ann", True)) is not None
    server.clock.advance(seconds=31)  # past session_cache_seconds: read again
    assert ann.account() is None and "quintet_session" not in ann.jar
    r = server.browser().log_in("Ann")
    assert r.status_code == 403 and error_of(r)["code"] == "account_disabled", r.text
    r = server.browser().log_in("Ann", "wrong password")  # a wrong one says no more
    assert r.status_code == 401 and error_of(r)["code"] == "bad_login"
    server.sql(lambda c: accounts.set_disabled(c, "Ann", False))
    assert ann.log_in("Ann").status_code == 200 and ann.account() is not None


def test_a_session_is_trusted_from_memory_only_for_session_cache_seconds(server: Server) -> None:
    ann = server.browser()
    ann.sign_up("Ann")
    assert ann.account() is not None
    # Disabled by another process (quintet admin): this one knows it within 30 s.
    server.sql(lambda c: accounts.set_disabled(c, "Ann", True))
    server.clock.advance(seconds=29)
    assert ann.account() is not None
    server.clock.advance(seconds=2)
    assert ann.account() is None


# ------------------------------------------------------------ guest → account


def test_sign_up_keeps_the_guests_table_seat_and_pad(server: Server) -> None:
    ann = server.browser()
    t = create_table(ann, join={"seat": 0, "name": "Ann"})
    pad = ann.post("/api/pads", {"game": "quinto"})
    assert pad.status_code == 201, pad.text
    ann.sign_up("Ann")
    laptop = server.browser()  # the account on another browser is the same person
    assert laptop.log_in("Ann").status_code == 200
    assert [p["id"] for p in laptop.get("/api/pads").json()["pads"]] == [pad.json()["id"]]
    assert laptop.get(f"/api/tables/{t['id']}/invites").status_code == 200  # a player's
    ws = laptop.ws()
    hello(ws, t["id"])
    m = answer(ws, {"type": "join", "seat": 0, "name": "Ann"})  # her own seat back
    assert m["type"] == "joined", m
    # After log-out the browser that signed up is a new guest: nothing of the account.
    assert ann.post("/api/account/logout").status_code == 200
    assert ann.get("/api/pads").json()["pads"] == []
    assert ann.get(f"/api/tables/{t['id']}/invites").status_code == 403


def test_the_old_guest_cookie_of_an_account_is_no_guest_any_more(server: Server) -> None:
    ann = server.browser()
    old = ann.jar["quintet_person"]
    pad = ann.post("/api/pads", {"game": "quinto"}).json()["id"]
    ann.sign_up("Ann")
    thief = server.browser()
    thief.jar = {"quintet_person": old}
    r = thief.get("/api/pads")
    assert r.json()["pads"] == [] and thief.jar["quintet_person"] != old
    assert thief.get(f"/api/pads/{pad}").status_code == 404
    ws = server.client.websocket_connect("/ws", headers={"cookie": f"quintet_person={old}"})
    with ws:  # the websocket too: no person at all
        t = create_table(server.browser())
        hello(ws, t["id"])
        m = answer(ws, {"type": "join", "seat": 1, "name": "X"})
        assert m["type"] == "error" and m["code"] == "no_person", m


def test_one_account_holds_one_seat_of_a_table_across_two_browsers(server: Server) -> None:
    ann, phone = server.browser(), server.browser()
    ann.sign_up("Ann")
    assert phone.log_in("Ann").status_code == 200
    t = create_table(server.browser())
    a = ann.ws()
    hello(a, t["id"])
    assert answer(a, {"type": "join", "seat": 0, "name": "Ann"})["type"] == "joined"
    p = phone.ws()
    hello(p, t["id"])
    m = answer(p, {"type": "join", "seat": 1, "name": "Ann's phone"})
    assert m["type"] == "error" and m["code"] == "already_seated", m
    assert m["message"] == "you have played North at this table: one person plays one seat"
    # Signed out, the phone is its own guest and may sit.
    assert phone.post("/api/account/logout").status_code == 200
    guest = phone.ws()
    hello(guest, t["id"])
    assert answer(guest, {"type": "join", "seat": 1, "name": "Bob"})["type"] == "joined"


def test_the_websocket_of_a_signed_in_browser_is_the_accounts_person(server: Server) -> None:
    ann = server.browser()
    ann.sign_up("Ann")
    t = create_table(server.browser())
    ws = ann.ws()
    hello(ws, t["id"])
    assert answer(ws, {"type": "join", "seat": 1, "name": "Ann"})["type"] == "joined"
    person = server.account_row("Ann").person
    seat = server.sql(
        lambda c: c.execute(
            sa.select(db.seats_t.c.person).where(
                db.seats_t.c.table_id == t["id"], db.seats_t.c.seat == 1
            )
        ).scalar_one()
    )
    assert seat == person and person != person_id(ann.jar["quintet_person"])
    found = server.sql(lambda c: accounts.account_by_person(c, person))
    assert found == Account(server.account_row("Ann").id, "Ann", person)
    assert server.sql(lambda c: accounts.account_by_name(c, "aNN")) == found


def test_a_sign_up_from_a_browser_without_cookies_gets_one_new_guest_cookie(
    server: Server,
) -> None:
    b = server.browser()
    b.jar = {}
    r = b.sign_up("Ann")
    guests = [c for c in r.headers.get_list("set-cookie") if c.startswith("quintet_person=")]
    assert len(guests) == 1  # the Guard's own fresh cookie is not sent as well
    person = server.account_row("Ann").person
    assert person_id(b.jar["quintet_person"]) != person
    assert b.post("/api/account/logout").status_code == 200
    assert server.sql(lambda c: accounts.account_by_person(c, person)) is not None
    t = create_table(b, join={"seat": 0, "name": "Guest"})  # a guest of its own now
    row = server.sql(lambda c: db.load_table(c, t["id"]))
    assert row.creator != person and row.creator == person_id(b.jar["quintet_person"])


def test_wrong_passwords_sent_at_once_cannot_pass_the_limit(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"

    async def main() -> list[str]:
        store = db.Store(url)
        store.migrate()
        store.start()
        svc = accounts.Accounts(Settings(db_url=url, **CHEAP))
        await svc.sign_up(store, "Ann", PASSWORD, None, "10.9.0.1")

        async def attempt(i: int) -> str:
            try:
                await svc.log_in(store, "Ann", f"guess {i}", f"10.9.1.{i}", None)
            except accounts.AccountRefused as e:
                return e.code
            return "signed in"

        codes = await asyncio.gather(*(attempt(i) for i in range(12)))
        store.close()
        return list(codes)

    codes = asyncio.run(main())
    assert sorted(codes) == ["bad_login"] * 5 + ["too_many_attempts"] * 7


def test_the_throttle_forgets_keys_out_of_the_window_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(accounts, "THROTTLE_MAX", 10)
    th = accounts.Throttle(limit=2, window=60.0)
    for i in range(9):
        th.fail(f"old{i}", 0.0)
    th.fail("victim", 100.0)
    th.fail("victim", 100.0)
    th.fail("new", 100.0)  # one key too many: the old ones, out of the window, go
    assert th.wait("victim", 101.0) == 59.0  # and the victim's count stays
    assert len(th._failures) == 2
    th.unfail("victim", 100.0)
    assert th.wait("victim", 101.0) == 0.0


# ------------------------------------------------------------------ bad input

_JSONS = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.text(max_size=30)
    | st.sampled_from(["Ann", PASSWORD, "\ud800", "a" * 300]),
    lambda kids: (
        st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=8), kids, max_size=3)
    ),
    max_leaves=8,
)
_FIELDS = st.sampled_from(["name", "password", "old", "new", "extra"])
_ENDPOINTS = ["signup", "login", "logout", "password"]


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with ExitStack() as stack:
        url = f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'a.db'}"
        server = make_server(stack, url, login_failures=10**6, signups_per_hour=10**6)
        server.browser().sign_up("Ann")
        yield server


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.dictionaries(_FIELDS, _JSONS, max_size=4) | _JSONS,
    endpoint=st.sampled_from(_ENDPOINTS),
    signed_in=st.booleans(),
    session=st.text(alphabet="abcXYZ019_-=;, ", max_size=50) | st.none(),
)
def test_random_bodies_and_cookies_are_never_a_500(
    fuzzed: Server, body: Any, endpoint: str, signed_in: bool, session: str | None
) -> None:
    b = fuzzed.browser()
    if signed_in:
        assert b.log_in("Ann").status_code == 200
    elif session is not None:
        b.jar["quintet_session"] = session
    r = b.post(f"/api/account/{endpoint}", body)
    assert r.status_code < 500, r.text
    if r.status_code >= 400:
        assert set(r.json()["error"]) >= {"code", "message"}
    assert b.get("/api/account").status_code == 200
