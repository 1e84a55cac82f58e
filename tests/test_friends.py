"""Friends: asking, friendships, presence and its privacy, and invitations to a seat.

Each test drives the in-process server (FastAPI's test client). Each :class:`User` is a
browser with a cookie jar of its own, signed up through ``/api/account/signup`` (argon2
at its cheapest), so that its requests and websockets are its account's. The tests that
store friendships run on SQLite and on PostgreSQL (skipped without one, as
tests/test_server_storage.py says).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_server_storage import _postgres

from quintet.server import Settings, accounts, create_app, db, friends
from quintet.server.protocol import PROTOCOL_VERSION
from quintet.server.testing import apply_update

JSON = dict[str, Any]
PASSWORD = "correct horse"
#: argon2id at its cheapest (the tests check friends, not hashing); many sign-ups.
CHEAP: JSON = {
    "password_time_cost": 1,
    "password_memory_kib": 8,
    "password_parallelism": 1,
    "signups_per_hour": 10_000,
}


def make_client(url: str, **more: Any) -> TestClient:
    settings = Settings(db_url=url, bot_delay=0.0, search_workers=1, **(CHEAP | more))
    return TestClient(create_app(settings))


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'f.db'}"
    else:
        yield from _postgres()


#: For what the tests on both databases already store: SQLite only (a quicker file).
SQLITE_ONLY = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with make_client(db_url) as c:
        yield c


@pytest.fixture
def sqlite_client(tmp_path: Path) -> Iterator[Callable[..., TestClient]]:
    """A maker of clients on SQLite with settings of the test's (for limits and times)."""
    with ExitStack() as stack:

        def make(**more: Any) -> TestClient:
            return stack.enter_context(make_client(f"sqlite:///{tmp_path / 'l.db'}", **more))

        yield make


@pytest.fixture
def quick_presence(monkeypatch: pytest.MonkeyPatch) -> None:
    """Who is where is worked out again at each request (not once a second)."""
    monkeypatch.setattr(friends, "PRESENCE_SECONDS", 0.0)


class User:
    """A browser with a cookie jar of its own, signed up as an account (or a guest)."""

    def __init__(self, client: TestClient, name: str | None, disabled: bool = False) -> None:
        self.client = client
        self.name = name
        self.jar: dict[str, str] = {}
        if name is not None:
            r = self.post("/api/account/signup", {"name": name, "password": PASSWORD})
            assert r.status_code == 201, r.text
        if disabled:
            assert name is not None
            app: Any = client.app
            done = app.state.hub.store.run_sync(lambda c: accounts.set_disabled(c, name, True))
            assert done is not None
            gone, _ended = done
            app.state.accounts.forget_account(gone.id)

    @property
    def headers(self) -> dict[str, str]:
        return {"cookie": "; ".join(f"{k}={v}" for k, v in self.jar.items())}

    def call(self, method: str, path: str, body: JSON | None, **headers: str) -> Any:
        self.client.cookies.clear()  # this browser's jar is its own
        kw: JSON = {} if body is None else {"json": body}
        r = self.client.request(method, path, headers=self.headers | headers, **kw)
        self.client.cookies.clear()
        for line in r.headers.get_list("set-cookie"):
            name, _, rest = line.partition("=")
            if "Max-Age=0" in line:
                self.jar.pop(name, None)
            else:
                self.jar[name] = rest.split(";")[0]
        return r

    def get(self, path: str) -> Any:
        return self.call("GET", path, None)

    def post(self, path: str, body: JSON, **headers: str) -> Any:
        return self.call("POST", path, body, **headers)

    def delete(self, path: str) -> Any:
        # A DELETE is a change: the Guard wants it sent as JSON, as every POST.
        return self.call("DELETE", path, {})

    def ask(self, other: User) -> Any:
        return self.post("/api/friends", {"name": other.name})

    def friends(self) -> JSON:
        r = self.get("/api/friends")
        assert r.status_code == 200, r.text
        out: JSON = r.json()
        return out

    def entry(self, other: User) -> JSON:
        found = [f for f in self.friends()["friends"] if f["name"] == other.name]
        assert len(found) == 1, found
        one: JSON = found[0]
        return one

    def create(self, **body: Any) -> JSON:
        r = self.post("/api/tables", body)
        assert r.status_code == 201, r.text
        out: JSON = r.json()
        return out

    def ws(self, stack: ExitStack) -> Any:
        return stack.enter_context(self.client.websocket_connect("/ws", headers=self.headers))


def befriend(a: User, b: User) -> None:
    assert a.ask(b).status_code == 201
    assert b.ask(a).json()["friend"]["status"] == "friends"


def names(rows: list[JSON]) -> list[str]:
    return [r["name"] for r in rows]


def error(r: Any, status: int, code: str) -> JSON:
    assert r.status_code == status, r.text
    err: JSON = r.json()["error"]
    assert err["code"] == code, err
    return err


def hello(ws: Any, table: str, **more: Any) -> JSON:
    ws.send_text(json.dumps({"type": "hello", "v": PROTOCOL_VERSION, "table": table, **more}))
    return until(ws, "welcome")


def until(ws: Any, kind: str, limit: int = 5000) -> JSON:
    for _ in range(limit):
        m: JSON = ws.receive_json()
        if m["type"] == kind or m["type"] == "error":
            return m
    raise AssertionError(f"no {kind} came")


def eventually(check: Callable[[], bool], seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("never came true")
        time.sleep(0.05)


QUINTO_OPEN = {"game": "quinto", "variant": "partnership"}


def waiting_table(host: User, public: bool = True, **more: Any) -> JSON:
    """A Quinto table waiting for a person at seat 1 (the host at 0, bots at 2 and 3)."""
    return host.create(
        **QUINTO_OPEN,
        seats=["open", "open", "heuristic", "heuristic"],
        join={"seat": 0, "name": host.name or "guest"},
        public=public,
        **more,
    )


# ------------------------------------------------------------------- asking


def test_asking_is_a_request_until_asked_back(client: TestClient) -> None:
    ann, bob = User(client, "Ann"), User(client, "Bob")
    r = ann.ask(bob)
    assert r.status_code == 201 and r.json() == {"friend": {"name": "Bob", "status": "asked"}}
    assert names(ann.friends()["asked"]) == ["Bob"] and ann.friends()["friends"] == []
    assert names(bob.friends()["asking_you"]) == ["Ann"]
    r = bob.ask(ann)
    assert r.json() == {"friend": {"name": "Ann", "status": "friends"}}
    for me, other in ((ann, "Bob"), (bob, "Ann")):
        got = me.friends()
        assert names(got["friends"]) == [other]
        assert got["asked"] == [] and got["asking_you"] == []


def test_asking_again_changes_nothing(client: TestClient) -> None:
    ann, bob = User(client, "Ann"), User(client, "Bob")
    assert ann.ask(bob).status_code == 201
    assert ann.ask(bob).json()["friend"]["status"] == "asked"
    hub = client.app.state.hub  # type: ignore[attr-defined]
    rows = hub.store.run_sync(lambda c: c.execute(db.friends_t.select()).all())
    assert len(rows) == 1


def test_names_are_found_in_any_case(client: TestClient) -> None:
    ann, _ = User(client, "Ann"), User(client, "Bob")
    r = ann.post("/api/friends", {"name": "  bOB "})
    assert r.json()["friend"]["name"] == "Bob"


def test_removing_ends_the_friendship_both_ways(client: TestClient) -> None:
    ann, bob = User(client, "Ann"), User(client, "Bob")
    befriend(ann, bob)
    r = bob.delete("/api/friends/ann")
    assert r.status_code == 200 and r.json() == {"removed": "Ann"}
    for me in (ann, bob):
        got = me.friends()
        assert got["friends"] == got["asked"] == got["asking_you"] == []
    error(bob.delete("/api/friends/Ann"), 404, "not_friends")


def test_refusing_a_request_deletes_it(client: TestClient) -> None:
    ann, bob = User(client, "Ann"), User(client, "Bob")
    ann.ask(bob)
    assert bob.delete("/api/friends/Ann").status_code == 200
    assert ann.friends()["asked"] == [] and bob.friends()["asking_you"] == []


def test_an_unknown_name_is_refused(client: TestClient) -> None:
    ann = User(client, "Ann")
    err = error(ann.post("/api/friends", {"name": "Nobody"}), 404, "no_player")
    assert err["field"] == "name" and "Nobody" in err["message"]
    error(ann.delete("/api/friends/Nobody"), 404, "no_player")
    error(ann.post("/api/friends", {"name": ""}), 422, "invalid")
    error(ann.post("/api/friends", {"name": "x" * 41}), 422, "invalid")


def test_you_cannot_ask_yourself(client: TestClient) -> None:
    ann = User(client, "Ann")
    err = error(ann.post("/api/friends", {"name": "ANN"}), 422, "yourself")
    assert err["field"] == "name"
    assert ann.friends()["asked"] == []


def test_a_disabled_account_is_no_player(client: TestClient) -> None:
    ann, _ = User(client, "Ann"), User(client, "Gone", disabled=True)
    error(ann.post("/api/friends", {"name": "Gone"}), 404, "no_player")
    # The disabled account's browser is no account either.
    error(User(client, "Dis", disabled=True).get("/api/friends"), 401, "sign_in")


def test_the_friends_limit_counts_friendships_and_requests(
    sqlite_client: Callable[..., TestClient],
) -> None:
    client = sqlite_client(max_friends=2)
    ann, bob, cid, dan = (User(client, n) for n in ("Ann", "Bob", "Cid", "Dan"))
    befriend(ann, bob)
    assert ann.ask(cid).status_code == 201
    err = error(ann.ask(dan), 429, "too_many_friends")
    assert "2" in err["message"]
    assert names(dan.friends()["asking_you"]) == []
    # Removing one makes room again.
    ann.delete("/api/friends/Cid")
    assert ann.ask(dan).status_code == 201


def test_guests_are_refused(client: TestClient) -> None:
    guest, ann = User(client, None), User(client, "Ann")
    table = waiting_table(guest)
    for r in (
        guest.get("/api/friends"),
        guest.post("/api/friends", {"name": "Ann"}),
        guest.delete("/api/friends/Ann"),
        guest.post(f"/api/tables/{table['id']}/invite", {"seat": 1, "friend": "Ann"}),
    ):
        err = error(r, 401, "sign_in")
        assert "sign in" in err["message"]
    assert ann.friends()["asking_you"] == []


# ----------------------------------------------------------------- presence


@SQLITE_ONLY
def test_a_friend_at_a_public_table_is_online_there(
    client: TestClient, quick_presence: None
) -> None:
    ann, bob = User(client, "Ann"), User(client, "Bob")
    befriend(ann, bob)
    assert ann.entry(bob) == {
        "name": "Bob",
        "online": False,
        "where": "offline",
        "table": None,
        "playing": False,
    }
    table = waiting_table(User(client, "Cid"), title="Friday game")
    with ExitStack() as stack:
        ws = bob.ws(stack)
        hello(ws, table["id"])
        got = ann.entry(bob)
        assert got["online"] and got["where"] == "table" and not got["playing"]
        assert got["table"] == {
            "id": table["id"],
            "title": "Friday game",
            "game": "quinto",
            "variant": "partnership",
            "status": "waiting",
            "url": f"/table/{table['id']}",
        }
    eventually(lambda: not ann.entry(bob)["online"])


@SQLITE_ONLY
def test_a_friend_playing_a_seat_is_shown_playing(client: TestClient, quick_presence: None) -> None:
    ann, bob = User(client, "Ann"), User(client, "Bob")
    befriend(ann, bob)
    with ExitStack() as stack:
        ws = bob.ws(stack)
        table = waiting_table(bob)
        hello(ws, table["id"], token=table["token"])
        got = ann.entry(bob)
        assert got["playing"] and got["table"]["id"] == table["id"]


@SQLITE_ONLY
def test_a_private_table_is_not_named(client: TestClient, quick_presence: None) -> None:
    ann, bob = User(client, "Ann"), User(client, "Bob")
    befriend(ann, bob)
    table = waiting_table(bob, public=False, title="Secret")
    with ExitStack() as stack:
        hello(bob.ws(stack), table["id"], token=table["token"])
        got = ann.entry(bob)
        assert got["online"] and got["where"] == "private_table"
        assert got["table"] is None and not got["playing"]
        assert table["id"] not in json.dumps(ann.friends()) and "Secret" not in json.dumps(
            ann.friends()
        )
        # Once Ann plays there too, she is told where Bob is.
        link = table["seats"][1]["url"]
        invite = parse_qs(urlsplit(link).query)["invite"][0]
        ws = ann.ws(stack)
        assert hello(ws, table["id"], invite=invite)["type"] == "welcome"
        ws.send_text(json.dumps({"type": "join", "seat": 1, "name": "Ann", "invite": invite}))
        assert until(ws, "joined")["type"] == "joined"
        got = ann.entry(bob)
        assert got["where"] == "table" and got["table"]["title"] == "Secret"


def test_a_friend_in_the_lobby_is_online_for_a_while(
    sqlite_client: Callable[..., TestClient],
) -> None:
    client = sqlite_client(friends_poll_seconds=0.2)
    ann, bob = User(client, "Ann"), User(client, "Bob")
    befriend(ann, bob)
    bob.friends()  # Bob's lobby asks for his friends
    got = ann.entry(bob)
    assert got["online"] and got["where"] == "lobby" and got["table"] is None
    time.sleep(friends.POLLS_ONLINE * 0.2 + 0.1)
    assert ann.entry(bob)["where"] == "offline"


def test_the_lobbies_remembered_are_bounded() -> None:
    now = [0.0]
    presence = friends.Presence(Settings(friends_poll_seconds=1.0), clock=lambda: now[0])
    for i in range(friends.PRUNE_AT):
        presence.saw(f"p{i}")
    now[0] = 10.0  # every lobby seen is gone
    presence.saw("late")
    assert presence.seen == {"late": 10.0}
    assert presence.in_lobby("late") and not presence.in_lobby("p0")


@SQLITE_ONLY
def test_only_friends_are_shown_online(client: TestClient, quick_presence: None) -> None:
    ann, bob = User(client, "Ann"), User(client, "Bob")
    ann.ask(bob)  # a request: Ann learns nothing of Bob
    bob.friends()
    assert ann.friends()["asked"] == [{"name": "Bob"}]
    assert "online" not in json.dumps(ann.friends()["asked"])


# ------------------------------------------------------------------ invites


def invite(host: User, table: JSON, seat: int, friend: str, **headers: str) -> Any:
    return host.post(
        f"/api/tables/{table['id']}/invite", {"seat": seat, "friend": friend}, **headers
    )


def test_the_invited_friend_sees_the_link_and_takes_the_seat(client: TestClient) -> None:
    ann, bob = User(client, "Ann"), User(client, "Bob")
    befriend(ann, bob)
    table = waiting_table(ann, public=False, title="Ann's table")
    r = invite(ann, table, 1, "bob")
    assert r.status_code == 201, r.text
    assert r.json()["invite"]["friend"] == "Bob" and r.json()["invite"]["seat"] == 1
    got = bob.friends()["invites"]
    assert len(got) == 1
    inv = got[0]
    assert inv["from"] == "Ann" and inv["seat"] == 1 and inv["seat_label"]
    assert inv["table"]["id"] == table["id"] and inv["table"]["title"] == "Ann's table"
    assert inv["url"] == table["seats"][1]["url"]  # the Invite button's link
    assert 0 < inv["expires_in"] <= 600
    code = parse_qs(urlsplit(inv["url"]).query)["invite"][0]
    with ExitStack() as stack:
        ws = bob.ws(stack)
        assert hello(ws, table["id"], invite=code)["type"] == "welcome"  # a private table
        ws.send_text(json.dumps({"type": "join", "seat": 1, "name": "Bob", "invite": code}))
        assert until(ws, "joined")["seat"] == 1
    assert bob.friends()["invites"] == []  # the seat is taken: the invitation is gone


@SQLITE_ONLY
def test_a_bot_seat_is_taken_with_the_invitation(client: TestClient) -> None:
    ann, bob = User(client, "Ann"), User(client, "Bob")
    befriend(ann, bob)
    table = ann.create(**QUINTO_OPEN, seats=["open", "heuristic", "random", "heuristic"],
                       join={"seat": 0, "name": "Ann"})  # fmt: skip
    assert invite(ann, table, 2, "Bob").status_code == 201
    (inv,) = bob.friends()["invites"]
    code = parse_qs(urlsplit(inv["url"]).query)["invite"][0]
    with ExitStack() as stack:
        ws = bob.ws(stack)
        hello(ws, table["id"])
        ws.send_text(json.dumps({"type": "join", "seat": 2, "name": "Bob", "invite": code}))
        assert until(ws, "joined")["seat"] == 2


@SQLITE_ONLY
def test_only_players_invite(client: TestClient) -> None:
    ann, bob, cid = User(client, "Ann"), User(client, "Bob"), User(client, "Cid")
    befriend(cid, bob)
    table = waiting_table(ann)
    err = error(invite(cid, table, 1, "Bob"), 403, "not_player")
    assert "players" in err["message"]
    private = waiting_table(ann, public=False)
    error(invite(cid, private, 1, "Bob"), 404, "no_table")  # it does not exist for Cid
    error(invite(cid, {"id": "nope"}, 1, "Bob"), 404, "no_table")
    assert bob.friends()["invites"] == []


@SQLITE_ONLY
def test_a_seat_token_makes_a_player(client: TestClient) -> None:
    """A player known by a seat token (a browser's other cookie) invites too."""
    ann, bob = User(client, "Ann"), User(client, "Bob")
    guest = User(client, None)
    befriend(ann, bob)
    table = waiting_table(guest)
    error(invite(ann, table, 1, "Bob"), 403, "not_player")
    r = invite(ann, table, 1, "Bob", **{"x-seat-token": table["token"]})
    assert r.status_code == 201, r.text


def test_only_mutual_friends_are_invited(client: TestClient) -> None:
    ann, bob, cid = User(client, "Ann"), User(client, "Bob"), User(client, "Cid")
    ann.ask(bob)  # asked, not answered
    cid.ask(ann)  # asking Ann, not asked back
    table = waiting_table(ann)
    for name in ("Bob", "Cid"):
        err = error(invite(ann, table, 1, name), 403, "not_friends")
        assert err["field"] == "friend"
    error(invite(ann, table, 1, "Nobody"), 404, "no_player")
    error(invite(ann, table, 1, "Ann"), 422, "yourself")
    assert bob.friends()["invites"] == [] and cid.friends()["invites"] == []


@SQLITE_ONLY
def test_only_open_seats_and_bot_seats(client: TestClient) -> None:
    ann, bob = User(client, "Ann"), User(client, "Bob")
    befriend(ann, bob)
    table = waiting_table(ann)
    err = error(invite(ann, table, 0, "Bob"), 409, "seat_taken")  # Ann's own seat
    assert err["field"] == "seat"
    assert error(invite(ann, table, 4, "Bob"), 422, "no_seat")["field"] == "seat"
    error(invite(ann, table, 10, "Bob"), 422, "invalid")
    dummy = ann.create(game="quinto", variant="dummy", lone_seat=0,
                       seats=["open", "heuristic", "open", "heuristic"],
                       join={"seat": 0, "name": "Ann"})  # fmt: skip
    dummy_seat = next(s["seat"] for s in dummy["seats"] if s["kind"] == "dummy")
    error(invite(ann, dummy, dummy_seat, "Bob"), 422, "no_seat")
    assert bob.friends()["invites"] == []
    assert invite(ann, table, 3, "Bob").status_code == 201  # a bot's seat


@SQLITE_ONLY
def test_a_friend_who_played_another_seat_is_not_invited(client: TestClient) -> None:
    ann, bob = User(client, "Ann"), User(client, "Bob")
    befriend(ann, bob)
    table = ann.create(**QUINTO_OPEN, seats=["open", "open", "open", "heuristic"],
                       join={"seat": 0, "name": "Ann"})  # fmt: skip
    code = parse_qs(urlsplit(table["seats"][1]["url"]).query)["invite"][0]
    with ExitStack() as stack:
        ws = bob.ws(stack)
        hello(ws, table["id"])
        ws.send_text(json.dumps({"type": "join", "seat": 1, "name": "Bob", "invite": code}))
        assert until(ws, "joined")["seat"] == 1
    err = error(invite(ann, table, 2, "Bob"), 409, "already_seated")
    assert "one seat" in err["message"]


def test_friend_invites_are_rate_limited(sqlite_client: Callable[..., TestClient]) -> None:
    client = sqlite_client(friend_invite_rate=2)
    ann, bob, cid = User(client, "Ann"), User(client, "Bob"), User(client, "Cid")
    befriend(ann, bob)
    befriend(ann, cid)
    tables = [waiting_table(ann) for _ in range(3)]
    assert invite(ann, tables[0], 1, "Bob").status_code == 201
    assert invite(ann, tables[1], 1, "Cid").status_code == 201
    r = invite(ann, tables[2], 1, "Bob")
    err = error(r, 429, "rate_limited")
    assert err["retry_after"] >= 1 and int(r.headers["retry-after"]) >= 1
    assert len(bob.friends()["invites"]) == 1
    # A refused invitation costs no token: Bob's rate is his own.
    assert invite(bob, waiting_table(bob), 1, "Ann").status_code == 201


def test_invitations_waiting_for_an_account_are_bounded(
    sqlite_client: Callable[..., TestClient],
) -> None:
    client = sqlite_client(friend_invites_max=2)
    ann, bob = User(client, "Ann"), User(client, "Bob")
    befriend(ann, bob)
    tables = [waiting_table(ann) for _ in range(3)]
    assert invite(ann, tables[0], 1, "Bob").status_code == 201
    assert invite(ann, tables[1], 1, "Bob").status_code == 201
    # Inviting again to the same table replaces the invitation: no room is taken.
    assert invite(ann, tables[1], 1, "Bob").status_code == 201
    err = error(invite(ann, tables[2], 1, "Bob"), 429, "too_many_invites")
    assert err["field"] == "friend" and "Bob" in err["message"]
    got = bob.friends()["invites"]
    assert sorted(i["table"]["id"] for i in got) == sorted(t["id"] for t in tables[:2])


def test_an_invitation_expires(sqlite_client: Callable[..., TestClient]) -> None:
    client = sqlite_client(friend_invite_seconds=0.3)
    ann, bob = User(client, "Ann"), User(client, "Bob")
    befriend(ann, bob)
    assert invite(ann, waiting_table(ann), 1, "Bob").status_code == 201
    assert len(bob.friends()["invites"]) == 1
    time.sleep(0.4)
    assert bob.friends()["invites"] == []


@SQLITE_ONLY
def test_an_invitation_goes_when_the_table_starts(client: TestClient) -> None:
    ann, bob, cid = User(client, "Ann"), User(client, "Bob"), User(client, "Cid")
    befriend(ann, bob)
    table = ann.create(**QUINTO_OPEN, seats=["open", "open", "heuristic", "heuristic"],
                       join={"seat": 0, "name": "Ann"})  # fmt: skip
    assert invite(ann, table, 3, "Bob").status_code == 201  # a bot's seat, while it waits
    assert len(bob.friends()["invites"]) == 1
    with ExitStack() as stack:
        ws = cid.ws(stack)
        hello(ws, table["id"])
        ws.send_text(json.dumps({"type": "join", "seat": 1, "name": "Cid"}))
        assert until(ws, "joined")["seat"] == 1  # every seat taken: the table starts
        seen: JSON | None = None
        while seen is None or seen["status"] == "waiting":  # the table as the client keeps it
            m = ws.receive_json()
            if m["type"] in ("state", "update"):
                seen = apply_update(seen, m)
    assert bob.friends()["invites"] == []


@SQLITE_ONLY
def test_an_invitation_goes_when_the_table_closes(client: TestClient) -> None:
    ann, bob = User(client, "Ann"), User(client, "Bob")
    befriend(ann, bob)
    table = waiting_table(ann)
    assert invite(ann, table, 1, "Bob").status_code == 201
    hub = client.app.state.hub  # type: ignore[attr-defined]
    closed = client.portal.call(hub.sweep, time.time() + 10**9)  # type: ignore[union-attr]
    assert table["id"] in closed
    assert bob.friends()["invites"] == []
    error(invite(ann, table, 1, "Bob"), 409, "game_over")


@SQLITE_ONLY
def test_an_invitation_goes_with_the_friendship(client: TestClient) -> None:
    ann, bob = User(client, "Ann"), User(client, "Bob")
    befriend(ann, bob)
    assert invite(ann, waiting_table(ann), 1, "Bob").status_code == 201
    bob.delete("/api/friends/Ann")
    assert bob.friends()["invites"] == []


# ---------------------------------------------------------------- any input

JSONS = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=50),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
FIELDS = st.sampled_from(["name", "seat", "friend", "x"]) | st.text(max_size=8)
_PEOPLE: dict[int, tuple[User, User, User, JSON]] = {}


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.dictionaries(FIELDS, JSONS, max_size=3) | JSONS,
    name=st.text(min_size=1, max_size=60),
    who=st.sampled_from(["account", "guest"]),
)
def test_any_body_or_name_is_never_a_500(
    client: TestClient, body: Any, name: str, who: str
) -> None:
    key = id(client)
    if key not in _PEOPLE:  # one server, its accounts and table for every example
        ann, bob = User(client, "Ann"), User(client, "Bob")
        befriend(ann, bob)
        _PEOPLE[key] = (ann, bob, User(client, None), waiting_table(ann))
    ann, _, guest, table = _PEOPLE[key]
    user = ann if who == "account" else guest
    for r in (
        user.post("/api/friends", body),
        user.post(f"/api/tables/{table['id']}/invite", body),
        user.post("/api/tables/nope/invite", body),
        user.call("DELETE", "/api/friends/" + quote(name, safe=""), {}),
        user.post("/api/friends", {"name": name}),
        user.post(f"/api/tables/{table['id']}/invite", {"seat": 1, "friend": name}),
    ):
        assert r.status_code < 500, r.text
        if r.status_code >= 400:
            assert r.json()["error"]["code"], r.text
    assert user.get("/api/friends").status_code in (200, 401)


__all__ = ["quick_presence"]
