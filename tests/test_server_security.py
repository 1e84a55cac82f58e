"""The server's privacy and abuse defences, each tried as an attacker would.

One person (one browser: one ``quintet_person`` cookie) opens two connections and
tries every way of seeing a second seat's hand; clients try to choose what the server
computes; private tables try to leak; bad input tries to make a 500; a flood of tables,
cross-site requests and abandoned tables try to fill the server. Every test here fails
on the server as it was before these defences (issue 10). The worker processes dying
with the server are in ``test_server_workers.py`` (the pool) and at the end of this file
(a real ``quintet serve``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from quintet.server import Settings, create_app
from quintet.server.live import Hub
from quintet.server.protocol import PROTOCOL_VERSION
from quintet.server.security import new_cookie
from quintet.server.testing import follow

JSON = dict[str, Any]


# ------------------------------------------------------------------- helpers


def make_client(tmp_path: Path, name: str = "s", **settings: Any) -> TestClient:
    base: JSON = {"db_url": f"sqlite:///{tmp_path / (name + '.db')}", "bot_delay": 0.0}
    base.setdefault("allow_seed", True)
    return TestClient(create_app(Settings(**(base | settings))))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path) as c:
        yield c


class Person:
    """One browser: a cookie jar of its own, any number of websocket connections."""

    def __init__(self, client: TestClient, stack: ExitStack) -> None:
        self.client = client
        self.stack = stack
        self.cookie = new_cookie()
        self.headers = {"cookie": f"quintet_person={self.cookie}"}

    def ws(self) -> WebSocketTestSession:
        s: WebSocketTestSession = self.stack.enter_context(
            self.client.websocket_connect("/ws", headers=self.headers)
        )
        return s

    def get(self, path: str, **kw: Any) -> Any:
        return self.client.get(path, headers=self.headers | kw.pop("headers", {}), **kw)

    def post(self, path: str, body: Any) -> Any:
        return self.client.post(path, json=body, headers=self.headers)

    def create(self, **body: Any) -> JSON:
        base: JSON = {"game": "quinto", "seed": 5}
        r = self.post("/api/tables", base | body)
        assert r.status_code == 201, r.text
        out: JSON = r.json()
        return out


@pytest.fixture
def people(client: TestClient) -> Iterator[Any]:
    with ExitStack() as stack:
        yield lambda: Person(client, stack)


def send(ws: WebSocketTestSession, msg: JSON | str) -> None:
    ws.send_text(msg if isinstance(msg, str) else json.dumps(msg))


def recv(ws: WebSocketTestSession) -> JSON:
    """Return the next message; a state or update as the whole table after it."""
    return follow(ws, ws.receive_json())


def until(ws: WebSocketTestSession, kind: str) -> JSON:
    while True:
        m = recv(ws)
        if m["type"] == kind:
            return m
        assert m["type"] != "error", m


def answer(ws: WebSocketTestSession, msg: JSON) -> JSON:
    """Send ``msg`` and return the first reply that is not a state update."""
    send(ws, msg)
    while True:
        m = recv(ws)
        if m["type"] != "state":
            return m


def drain(ws: WebSocketTestSession) -> None:
    send(ws, {"type": "ping", "id": "drain"})
    while recv(ws) != {"type": "pong", "ref": "drain", "t": None}:
        pass


def hello(ws: WebSocketTestSession, table: str, **more: Any) -> JSON:
    send(ws, {"type": "hello", "v": PROTOCOL_VERSION, "table": table, **more})
    assert recv(ws)["type"] == "welcome"
    return until(ws, "state")


def join(ws: WebSocketTestSession, seat: int, name: str, **more: Any) -> str:
    m = answer(ws, {"type": "join", "seat": seat, "name": name, **more})
    assert m["type"] == "joined", m
    token: str = m["token"]
    return token


def refused(ws: WebSocketTestSession, msg: JSON, code: str) -> JSON:
    m = answer(ws, msg)
    assert m["type"] == "error" and m["code"] == code, m
    return m


def invites(p: Person, table: str, token: str | None = None) -> list[JSON]:
    headers = {"x-seat-token": token} if token else {}
    r = p.get(f"/api/tables/{table}/invites", headers=headers)
    assert r.status_code == 200, r.text
    seats: list[JSON] = r.json()["seats"]
    return seats


def invite_of(links: list[JSON], seat: int) -> str:
    url = next(s["url"] for s in links if s["seat"] == seat)
    return str(url.split("invite=")[1])


def two_players(people: Any, bots: str = "heuristic") -> tuple[Any, Any, JSON, Any, Any]:
    """Ann (seat 0) and Bea (seat 1) seated at a new table with two bots: the hand is dealt.

    Returns both people, the table and their sockets.
    """
    ann, bea = people(), people()
    t = ann.create(seats=["open", "open", bots, bots], join={"seat": 0, "name": "Ann"})
    a = ann.ws()
    hello(a, t["id"], token=t["token"])
    b = bea.ws()
    hello(b, t["id"])
    join(b, 1, "Bea")
    return ann, bea, t, a, b


def hands_seen(state: JSON) -> list[int]:
    return [s for s, h in enumerate(state["hand"]["hands"]) if h is not None]


# ---------------------------------------------- 1. one person, one seat


def test_a_bot_seat_of_a_public_table_needs_its_invite_and_a_seated_person_gets_none(
    people: Any,
) -> None:
    ann = people()
    t = ann.create(
        seats=["open", "heuristic", "heuristic", "heuristic"], join={"seat": 0, "name": "Ann"}
    )
    first = ann.ws()
    hello(first, t["id"], token=t["token"])
    second = ann.ws()  # a second tab: the same cookie
    hello(second, t["id"])
    refused(second, {"type": "join", "seat": 1, "name": "Ann2"}, "already_seated")
    code = invite_of(invites(ann, t["id"]), 1)
    m = refused(
        second, {"type": "join", "seat": 1, "name": "Ann2", "invite": code}, "already_seated"
    )
    assert "North" in m["message"]
    # Another person needs the seat's invite: a bot's seat is not open.
    bea = people()
    ws = bea.ws()
    hello(ws, t["id"])
    refused(ws, {"type": "join", "seat": 1, "name": "Bea"}, "bad_invite")
    join(ws, 1, "Bea", invite=code)


def test_an_open_seat_of_a_public_table_is_refused_to_a_seated_person(people: Any) -> None:
    ann = people()
    t = ann.create(
        seats=["open", "open", "heuristic", "heuristic"], join={"seat": 0, "name": "Ann"}
    )
    tab = ann.ws()
    hello(tab, t["id"])
    refused(tab, {"type": "join", "seat": 1, "name": "Ann2"}, "already_seated")


def test_a_private_tables_invite_does_not_give_its_player_a_second_seat(people: Any) -> None:
    ann = people()
    t = ann.create(
        public=False,
        seats=["open", "open", "heuristic", "heuristic"],
        join={"seat": 0, "name": "Ann"},
    )
    links = invites(ann, t["id"], t["token"])
    tab = ann.ws()
    code = invite_of(links, 1)
    hello(tab, t["id"], invite=code)
    refused(tab, {"type": "join", "seat": 1, "name": "A", "invite": code}, "already_seated")
    refused(
        tab,
        {"type": "join", "seat": 3, "name": "A", "invite": invite_of(links, 3)},
        "already_seated",
    )


def test_an_opponent_cannot_take_the_lone_players_seat_and_see_the_dummy(people: Any) -> None:
    ann = people()  # the lone player's seat is a bot; Ann plays East, an opponent
    t = ann.create(
        variant="dummy",
        lone_seat=0,
        seats=["heuristic", "open", "open", "heuristic"],
        join={"seat": 1, "name": "Ann"},
    )
    code = invite_of(invites(ann, t["id"]), 0)
    tab = ann.ws()
    hello(tab, t["id"])
    refused(tab, {"type": "join", "seat": 0, "name": "A", "invite": code}, "already_seated")
    # And the tab is still shown neither the lone hand nor the dummy.
    send(tab, {"type": "state"})
    hands = until(tab, "state")["hand"]["hands"]
    assert hands[0] is None and hands[2] is None, hands


def test_a_seat_given_to_a_bot_cannot_then_be_joined_by_the_player_who_gave_it(
    people: Any,
) -> None:
    ann, bea, cy = people(), people(), people()
    t = ann.create(
        seats=["open", "open", "heuristic", "heuristic"], join={"seat": 0, "name": "Ann"}
    )
    a = ann.ws()
    hello(a, t["id"], token=t["token"])
    b = bea.ws()
    hello(b, t["id"])
    join(b, 1, "Bea")
    b.close()  # Bea goes away mid-hand
    send(a, {"type": "replace", "seat": 1, "level": "heuristic"})
    drain(a)
    spy = ann.ws()
    hello(spy, t["id"])
    code = invite_of(invites(ann, t["id"]), 1)
    refused(spy, {"type": "join", "seat": 1, "name": "A", "invite": code}, "already_seated")
    # Cy, another person, may take over the bot's seat; everyone is told in the log.
    c = cy.ws()
    hello(c, t["id"])
    join(c, 1, "Cy", invite=code)
    watcher = people().ws()
    state = hello(watcher, t["id"])
    texts = [e["text"] for e in state["log"]["events"] if e["kind"] == "notice"]
    assert any("Cy takes over East" in x for x in texts), texts
    assert any("bot takes over East" in x for x in texts), texts


def test_leaving_a_seat_does_not_free_the_person_to_take_another(people: Any) -> None:
    ann = people()
    t = ann.create(seats=["open", "open", "heuristic", "heuristic"])
    tab = ann.ws()
    hello(tab, t["id"])
    join(tab, 0, "Ann")
    assert answer(tab, {"type": "leave"})["type"] == "left"
    refused(tab, {"type": "join", "seat": 1, "name": "Ann"}, "already_seated")
    join(tab, 0, "Ann")  # back to the seat she had


def test_another_seats_token_does_not_give_a_person_a_second_seat(people: Any) -> None:
    ann, bea = people(), people()
    t = ann.create(
        seats=["open", "open", "heuristic", "heuristic"], join={"seat": 0, "name": "Ann"}
    )
    b = bea.ws()
    hello(b, t["id"])
    bea_token = join(b, 1, "Bea")
    tab = ann.ws()
    send(tab, {"type": "hello", "table": t["id"], "token": bea_token})
    m = recv(tab)
    assert m["type"] == "error" and m["code"] == "already_seated", m


def test_a_connection_without_a_person_cookie_only_watches(client: TestClient) -> None:
    t = client.post("/api/tables", json={"game": "quinto", "seats": ["open"] * 4}).json()
    with client.websocket_connect("/ws", headers={"cookie": ""}) as ws:
        hello(ws, t["id"])
        refused(ws, {"type": "join", "seat": 0, "name": "Ann"}, "no_person")


def test_a_person_taking_over_a_seat_mid_hand_is_announced_to_everyone(people: Any) -> None:
    ann, bea = people(), people()
    t = ann.create(seats=["open", "open", "random", "random"], join={"seat": 0, "name": "Ann"})
    a = ann.ws()
    hello(a, t["id"], token=t["token"])
    b = bea.ws()
    hello(b, t["id"])
    join(b, 1, "Bea")  # every seat taken: the hand is dealt
    assert answer(b, {"type": "leave"})["type"] == "left"
    b2 = people().ws()
    hello(b2, t["id"])
    join(b2, 1, "Dee")
    spectator = people().ws()
    state = hello(spectator, t["id"])
    assert state["status"] == "playing"
    notices = [e for e in state["log"]["events"] if e["kind"] == "notice"]
    assert [n["text"] for n in notices] == ["Bea leaves East", "Dee takes over East"]
    assert all(n["seat"] == 1 for n in notices)


# ------------------------------------------- 2. what the server computes


def test_only_named_bot_levels_are_offered_and_parameters_are_refused(people: Any) -> None:
    ann = people()
    info = ann.get("/api/info").json()
    assert info["levels"] == ["random", "heuristic", "pimc", "ismcts"]
    for level in ("pimc:seconds=20", "ismcts:iterations=1000000000000", "pimc:tt_bits=60"):
        for seat in (level, {"kind": "bot", "level": level}):
            r = ann.post("/api/tables", {"game": "quinto", "seats": ["open", seat, "open", "open"]})
            assert r.status_code == 422, r.text
            assert r.json()["error"]["field"].startswith("seats[1]")
    t = ann.create(seats=["open", "open", "heuristic", "heuristic"], join={"seat": 0, "name": "A"})
    tab = ann.ws()
    hello(tab, t["id"], token=t["token"])
    m = refused(tab, {"type": "replace", "seat": 1, "level": "pimc:seconds=20"}, "bad_level")
    assert "offered" in m["message"]


def test_the_operator_names_the_levels_and_their_budgets(tmp_path: Path) -> None:
    with make_client(tmp_path, levels={"strong": "pimc:samples=3"}, bot_seconds=0.2) as c:
        info = c.get("/api/info").json()
        assert info["levels"][-1] == "strong" and info["bot_seconds"] == 0.2
        r = c.post(
            "/api/tables", json={"game": "quinto", "seats": ["open", "strong", "open", "open"]}
        )
        assert r.status_code == 201, r.text
        hub: Hub = c.app.state.hub  # type: ignore[attr-defined]
        assert hub.levels["pimc"] == "pimc:seconds=0.2"


def test_a_search_past_its_hard_limit_falls_back_to_the_heuristic_and_says_so(
    tmp_path: Path,
) -> None:
    # The operator's "slow" level would think 30 s; the hard limit cuts it at 1 s.
    with make_client(
        tmp_path,
        levels={"slow": "pimc:seconds=30"},
        bot_seconds=0.1,
        search_limit=1.0,
        search_workers=1,
    ) as c:
        seats = ["slow", "random", "random", "random"]
        t = c.post("/api/tables", json={"game": "quinto", "seats": seats, "seed": 3}).json()
        deadline = time.monotonic() + 90
        notices: list[str] = []
        while time.monotonic() < deadline and not notices:
            with c.websocket_connect("/ws", headers={"cookie": ""}) as ws:
                state = hello(ws, t["id"])
            notices = [
                e["text"]
                for e in (state.get("log") or {}).get("events", [])
                if e["kind"] == "notice"
            ]
            time.sleep(0.2)
        assert notices and "North's slow bot took longer than 1 s" in notices[0], notices
        # The table played on: the heuristic decided for North.
        assert state["hand"]["actions"] > 0


# ---------------------------------------------------- 4. private stays private


class Stranger:
    """Requests from another browser (a cookie of its own) through the same client."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.headers = {"cookie": f"quintet_person={new_cookie()}"}

    def get(self, path: str, **kw: Any) -> Any:
        return self.client.get(path, headers=self.headers, **kw)

    def websocket_connect(self, path: str) -> Any:
        return self.client.websocket_connect(path, headers=self.headers)


def test_a_private_table_is_shown_only_to_its_players_and_link_holders(tmp_path: Path) -> None:
    with make_client(tmp_path) as owner:
        stranger = Stranger(owner)
        body = {
            "game": "quinto",
            "options": {"target": 30},
            "seats": ["random"] * 4,
            "public": False,
            "seed": 2,
        }
        made = owner.post("/api/tables", json=body).json()
        tid = made["id"]
        key = made["spectate"].split("key=")[1]
        assert stranger.get(f"/api/tables/{tid}").status_code == 404  # in play too
        for _ in range(600):
            if owner.get(f"/api/tables/{tid}").json()["status"] == "finished":
                break
            time.sleep(0.05)
        pub = owner.post("/api/tables", json=body | {"public": True}).json()["id"]
        for _ in range(600):
            if owner.get(f"/api/tables/{pub}").json()["status"] == "finished":
                break
            time.sleep(0.05)
        listed = [g["id"] for g in stranger.get("/api/games").json()["games"]]
        assert listed == [pub]
        paths = [
            f"/api/tables/{tid}",
            f"/api/games/{tid}/record",
            f"/api/games/{tid}/replay",
            f"/api/games/{tid}/analysis",
        ]
        for path in paths:
            r = stranger.get(path)
            assert r.status_code == 404, (path, r.text)
            assert r.json() == stranger.get(path.replace(tid, "nosuchtable")).json()
            assert stranger.get(path + "?key=wrong").status_code == 404
            assert stranger.get(path, params={"key": key}).status_code in (200, 202), path
            assert owner.get(path).status_code in (200, 202), path  # its creator
        invite = made["seats"][1]["invite"]
        r = stranger.get(f"/api/games/{tid}/record", params={"invite": invite})
        assert r.status_code == 200
        with stranger.websocket_connect("/ws") as ws:
            send(ws, {"type": "hello", "table": tid})
            assert recv(ws)["code"] == "no_table"
            hello(ws, tid, key=key)


# ------------------------------------------------ 5. bad input is a 4xx


def test_a_non_ascii_invite_is_a_bad_message_not_a_server_error(people: Any) -> None:
    ann = people()
    t = ann.create(public=False, seats=["open"] * 4)
    ws = ann.ws()
    hello(ws, t["id"])
    refused(ws, {"type": "join", "seat": 0, "name": "Ann", "invite": "éééé"}, "bad_message")
    send(ws, {"type": "hello", "table": t["id"], "invite": "éééé"})
    assert recv(ws)["code"] == "bad_message"


def test_bodies_that_crashed_the_server_are_refused_with_a_4xx(client: TestClient) -> None:
    def post(raw: bytes) -> Any:
        return client.post("/api/tables", content=raw, headers={"content-type": "application/json"})

    r = post(json.dumps({"game": "quinto", "seats": ["open", ["pimc"], "open", "open"]}).encode())
    assert r.status_code == 422 and r.json()["error"]["field"] == "seats[1]"
    assert post(b"[" * 100_000).status_code == 413
    deep = post(b"[" * 5_000)
    assert 400 <= deep.status_code < 500, deep.text
    r = post(b'{"game": "quinto", "title": "x\\ud800y"}')
    assert r.status_code == 422 and r.json()["error"]["field"] == "title"
    assert client.get("/api/tables").json()["total"] == 0


def test_a_ping_with_a_lone_surrogate_id_gets_an_error_and_the_connection_lives(
    client: TestClient,
) -> None:
    with client.websocket_connect("/ws") as ws:
        send(ws, '{"type": "ping", "id": "\\ud800"}')
        m = recv(ws)
        assert m["type"] == "error" and m["code"] == "bad_message" and "ref" not in m
        send(ws, '{"type": "ping", "id": 1, "t": "\\udfff"}')
        assert recv(ws)["code"] == "bad_message"
        send(ws, {"type": "ping", "id": "ok"})
        assert recv(ws) == {"type": "pong", "ref": "ok", "t": None}


def test_quintet_score_names_a_bid_without_its_seat_as_invalid(tmp_path: Path) -> None:
    from quintet.record import example_text

    rec = json.loads(example_text("quintus-bidding"))
    bid = next(a for a in rec["hands"][0]["actions"] if a["type"] == "bid")
    del bid["seat"]
    path = tmp_path / "bid.json"
    path.write_text(json.dumps(rec))
    out = subprocess.run(
        [sys.executable, "-m", "quintet.cli", "score", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2, out.stderr
    err = json.loads(out.stdout)
    assert err["error"] == "invalid" and "seat" in err["detail"], err
    assert "Traceback" not in out.stderr


# ---------------------------------------------------- 6. limits and headers


def test_table_creation_is_rate_limited_per_client(tmp_path: Path) -> None:
    with make_client(tmp_path, create_rate=1.0, create_burst=3) as c:
        body = {"game": "quinto", "seats": ["open"] * 4}
        codes = [c.post("/api/tables", json=body).status_code for _ in range(5)]
        assert codes == [201, 201, 201, 429, 429]
        # A new cookie is the same client (address): still limited.
        r = c.post("/api/tables", json=body, headers={"cookie": f"quintet_person={new_cookie()}"})
        assert r.status_code == 429 and r.headers["retry-after"]
        assert r.json()["error"]["code"] == "rate_limited"
        assert c.get("/api/tables").json()["total"] == 3


def test_one_client_has_a_bounded_number_of_tables_and_the_server_too(tmp_path: Path) -> None:
    with make_client(tmp_path, max_tables_per_client=2, max_tables=3) as c:
        body = {"game": "quinto", "seats": ["open"] * 4}
        codes = [c.post("/api/tables", json=body).status_code for _ in range(3)]
        assert codes == [201, 201, 429]
        hub: Hub = c.app.state.hub  # type: ignore[attr-defined]
        for t in list(hub.tables.values()):
            t.creator_client = None
            t.creator = None
        assert c.post("/api/tables", json=body).status_code == 201
        r = c.post("/api/tables", json=body)
        assert r.status_code == 503 and r.json()["error"]["code"] == "busy"


def test_the_lobby_is_paginated(tmp_path: Path) -> None:
    with make_client(tmp_path, lobby_limit=3) as c:
        made = [
            c.post("/api/tables", json={"game": "quinto", "seats": ["open"] * 4}).json()["id"]
            for _ in range(5)
        ]
        first = c.get("/api/tables").json()
        assert first["total"] == 5 and len(first["tables"]) == 3
        assert c.get("/api/tables?limit=100").json()["limit"] == 3
        second = c.get("/api/tables?offset=3").json()
        ids = [t["id"] for t in first["tables"] + second["tables"]]
        assert sorted(ids) == sorted(made) and len(set(ids)) == 5
        assert c.get("/api/tables?limit=0").status_code == 422


def test_state_changing_requests_must_be_json_from_this_site(tmp_path: Path) -> None:
    body = json.dumps({"game": "quinto", "seats": ["open"] * 4})
    with make_client(tmp_path, allow_origins=("https://friends.example",)) as c:
        # A cross-site form can send text/plain: refused before anything runs.
        r = c.post("/api/tables", content=body, headers={"content-type": "text/plain"})
        assert r.status_code == 415
        r = c.post(
            "/api/tables",
            content="game=quinto",
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
        assert r.status_code == 415
        js = {"content-type": "application/json"}
        r = c.post("/api/tables", content=body, headers=js | {"origin": "https://evil.example"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "bad_origin"
        r = c.post("/api/tables", content=body, headers=js | {"origin": "null"})
        assert r.status_code == 403
        assert c.get("/api/tables").json()["total"] == 0
        for origin in ("http://testserver", "https://friends.example"):
            r = c.post("/api/tables", content=body, headers=js | {"origin": origin})
            assert r.status_code == 201, (origin, r.text)
        r = c.post("/api/games/x/analysis", content="{}", headers={"content-type": "text/plain"})
        assert r.status_code == 415


def test_the_websocket_refuses_foreign_origins(tmp_path: Path) -> None:
    with make_client(tmp_path, allow_origins=("https://friends.example",)) as c:
        with (
            pytest.raises(WebSocketDisconnect),
            c.websocket_connect("/ws", headers={"origin": "https://evil.example"}) as ws,
        ):
            ws.receive_json()
        for origin in ("http://testserver", "https://friends.example"):
            with c.websocket_connect("/ws", headers={"origin": origin}) as ws:
                send(ws, {"type": "ping", "id": 1})
                assert recv(ws)["type"] == "pong"


def test_every_answer_carries_the_security_headers(client: TestClient) -> None:
    t = client.post("/api/tables", json={"game": "quinto"}).json()["id"]
    for path in ("/", f"/table/{t}", f"/replay/{t}", "/static/app.js", "/api/info", "/api/nope"):
        r = client.get(path)
        csp = r.headers["content-security-policy"]
        script = next(d for d in csp.split(";") if d.strip().startswith("script-src"))
        assert "'unsafe-inline'" not in script and "'unsafe-inline'" not in csp, csp
        assert "frame-ancestors 'none'" in csp
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["referrer-policy"] == "no-referrer"
    docs = client.get("/api/docs")
    assert docs.status_code == 200 and "'sha256-" in docs.headers["content-security-policy"]


def test_the_person_cookie_is_http_only_and_same_site(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        r = c.get("/")
        cookie = r.headers["set-cookie"]
        assert cookie.startswith("quintet_person=")
        assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie
        assert "set-cookie" not in c.get("/").headers  # kept, not renewed


def test_abandoned_tables_are_closed_leave_the_lobby_and_keep_their_record(
    tmp_path: Path,
) -> None:
    with make_client(tmp_path, abandon_after=3600.0) as c, ExitStack() as stack:
        idle = c.post("/api/tables", json={"game": "quinto", "seats": ["open"] * 4}).json()["id"]
        body = {"game": "quinto", "seats": ["open", "random", "random", "random"]}
        played = c.post("/api/tables", json=body | {"join": {"seat": 0, "name": "Ann"}}).json()
        ws = stack.enter_context(c.websocket_connect("/ws"))
        hello(ws, played["id"], token=played["token"])  # Ann is there: not abandoned
        hub: Hub = c.app.state.hub  # type: ignore[attr-defined]
        assert c.portal.call(hub.sweep) == []  # type: ignore[union-attr]
        later = time.time() + 3601
        closed = c.portal.call(hub.sweep, later)  # type: ignore[union-attr]
        assert closed == [idle]
        lobby = [t["id"] for t in c.get("/api/tables").json()["tables"]]
        assert lobby == [played["id"]]
        assert c.get(f"/api/tables/{idle}").json()["status"] == "abandoned"
        assert c.get(f"/api/games/{idle}/record").status_code == 200
        games = c.get("/api/games").json()["games"]
        assert [(g["id"], g["status"]) for g in games] == [(idle, "abandoned")]
        with c.websocket_connect("/ws") as w2:
            state = hello(w2, idle)
            assert state["status"] == "abandoned"
            refused(w2, {"type": "join", "seat": 0, "name": "Late"}, "game_over")


# ------------------------------------- 3. the search workers die with the server


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_search_workers_exit_within_two_seconds_of_the_server(tmp_path: Path, how: int) -> None:
    from quintet.server.testing import ServerProcess, alive, cpu_seconds, create_table, descendants

    server = ServerProcess(
        f"sqlite:///{tmp_path / 'w.db'}",
        extra=["--bot-level", "slow=pimc:seconds=60", "--search-limit", "120"],
        log_path=str(tmp_path / "log"),
    )
    with server:
        assert server.proc is not None
        pid = server.proc.pid
        create_table(server.http, {"game": "quinto", "seats": ["slow", "slow", "slow", "slow"]})
        deadline = time.monotonic() + 60
        busy: list[int] = []
        while time.monotonic() < deadline and not busy:
            kids = descendants(pid)
            before = {k: cpu_seconds(k) for k in kids}
            time.sleep(0.5)
            busy = [k for k in kids if cpu_seconds(k) - before[k] > 0.2]
        assert busy, "no worker is searching"
        kids = descendants(pid)
        assert len(kids) >= 2  # the worker and multiprocessing's resource tracker
        server.proc.send_signal(how)
        server.proc.wait(10)
        t0 = time.monotonic()
        while any(alive(k) for k in kids) and time.monotonic() - t0 < 2.0:
            time.sleep(0.02)
        left = [k for k in kids if alive(k)]
        for k in left:
            os.kill(k, signal.SIGKILL)
        assert not left, f"{len(left)} processes outlived the server by 2 s"


# ------------------------------------------- found by a review, one test each


class Probe:
    """A connection driven from inside the app's event loop, its messages recorded."""

    def __init__(self, hub: Hub, person: str | None) -> None:
        import asyncio

        from quintet.server.conn import Conn

        self.got: list[JSON] = []

        async def sink(text: str) -> None:
            self.got.append(json.loads(text))

        async def close(code: int, reason: str) -> None:
            self.got.append({"type": "closed", "code": code})

        self.conn = Conn(sink, close, hub.settings, person)
        self.task = asyncio.create_task(self.conn.sender())

    def kinds(self) -> list[tuple[str, Any]]:
        return [
            (m["type"], m.get("code")) for m in self.got if m["type"] not in ("state", "update")
        ]


def test_rules_options_are_bounded_so_every_match_ends(client: TestClient) -> None:
    for options, field in (
        ({"target": 10**18}, "options.target"),
        ({"target": 2**200}, "options.target"),
        ({"rubber_bonus": 10**9}, "options.rubber_bonus"),
    ):
        r = client.post("/api/tables", json={"game": "quinto", "options": options})
        assert r.status_code == 422 and r.json()["error"]["field"] == field, r.text
    r = client.post("/api/tables", json={"game": "quintus", "options": {"hands": 10**9}})
    assert r.status_code == 422 and r.json()["error"]["field"] == "options.hands"
    assert client.post(
        "/api/tables", json={"game": "quinto", "options": {"target": 5000}}
    ).is_success


def test_a_client_that_stops_reading_is_dropped_and_leaves_its_table(tmp_path: Path) -> None:
    import asyncio

    import quintet.server.conn as conn_mod

    with make_client(tmp_path, outbox_bytes=20_000) as c:
        t = c.post("/api/tables", json={"game": "quinto", "seats": ["random"] * 4}).json()["id"]
        hub: Hub = c.app.state.hub  # type: ignore[attr-defined]

        async def go() -> tuple[bool, bool, bool]:
            from quintet.server.conn import Conn

            stuck = asyncio.Event()  # never set: the client reads nothing, not even a close

            async def never(*_: Any) -> None:
                await stuck.wait()

            aborted = asyncio.Event()
            conn = Conn(never, never, hub.settings, None)
            conn.on_drop = lambda: hub.disconnect(conn)
            conn.abort = aborted.set
            conn_mod.CLOSE_TIMEOUT = 0.2
            task = asyncio.create_task(conn.sender())
            await hub.handle(conn, json.dumps({"type": "hello", "table": t}))
            lt = hub.tables[t]
            for _ in range(400):
                if conn.dropped.is_set():
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.05)
            await asyncio.wait_for(aborted.wait(), 5)
            task.cancel()
            return conn.dropped.is_set(), conn in lt.conns, conn.queued_bytes == 0

        try:
            dropped, attached, empty = c.portal.call(go)  # type: ignore[union-attr]
        finally:
            conn_mod.CLOSE_TIMEOUT = 2.0
        assert dropped and not attached and empty


def test_connections_per_address_and_spectators_per_table_are_bounded(tmp_path: Path) -> None:
    with make_client(tmp_path, max_connections=3, max_spectators=2) as c, ExitStack() as stack:
        t = c.post("/api/tables", json={"game": "quinto", "seats": ["open"] * 4}).json()["id"]
        socks = [stack.enter_context(c.websocket_connect("/ws")) for _ in range(3)]
        with pytest.raises(WebSocketDisconnect), c.websocket_connect("/ws") as ws:
            ws.receive_json()
        hello(socks[0], t)
        hello(socks[1], t)
        send(socks[2], {"type": "hello", "table": t})
        assert recv(socks[2])["code"] == "full"


def test_search_workers_are_shared_by_client_not_by_table(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        hub: Hub = c.app.state.hub  # type: ignore[attr-defined]
        from quintet.server.messages import CreateTable

        async def go() -> list[str]:
            body = CreateTable(game="quinto", seats=["open"] * 4)
            made = [
                await hub.create_table(body, "a" * 64, "10.0.0.1"),
                await hub.create_table(body, "b" * 64, "10.0.0.1"),
                await hub.create_table(body, "c" * 64, "10.0.0.2"),
            ]
            return [hub.tables[m["id"]].owner for m in made]

        owners = c.portal.call(go)  # type: ignore[union-attr]
        # One share for each client however many tables it has (the pool serves owners
        # in turn: tests/test_server_workers.py).
        assert owners == ["client:10.0.0.1", "client:10.0.0.1", "client:10.0.0.2"]


def test_a_revoked_token_cannot_take_back_a_seat_someone_else_joined(people: Any) -> None:
    ann = people()
    t = ann.create(
        seats=["open", "open", "heuristic", "heuristic"], join={"seat": 0, "name": "Ann"}
    )
    client = ann.client
    hub: Hub = client.app.state.hub
    lt = hub.tables[t["id"]]
    from quintet.server.security import person_id

    async def go() -> tuple[list[Any], str | None]:
        import asyncio

        a = Probe(hub, person_id(ann.cookie))
        a2 = Probe(hub, person_id(ann.cookie))
        dee = Probe(hub, "d" * 64)
        await hub.handle(a.conn, json.dumps({"type": "hello", "table": lt.id, "token": t["token"]}))
        await hub.handle(dee.conn, json.dumps({"type": "hello", "table": lt.id}))
        await lt.lock.acquire()  # a write in progress: the messages below queue up
        jobs = [
            asyncio.create_task(hub.handle(a.conn, json.dumps({"type": "leave"}))),
            asyncio.create_task(
                hub.handle(dee.conn, json.dumps({"type": "join", "seat": 0, "name": "Dee"}))
            ),
        ]
        await asyncio.sleep(0)
        hello_old = {"type": "hello", "table": lt.id, "token": t["token"]}
        jobs.append(asyncio.create_task(hub.handle(a2.conn, json.dumps(hello_old))))
        await asyncio.sleep(0)
        lt.lock.release()
        await asyncio.gather(*jobs)
        await asyncio.sleep(0.05)
        return a2.kinds(), lt.seats[0].person

    kinds, holder = client.portal.call(go)
    assert kinds == [("error", "bad_token")]
    assert holder == "d" * 64


def test_a_seat_taken_with_its_token_from_another_browser_mid_hand_is_announced(
    people: Any,
) -> None:
    ann, bea = people(), people()
    t = ann.create(seats=["open", "random", "random", "random"], join={"seat": 0, "name": "Ann"})
    b = bea.ws()
    state = hello(b, t["id"], token=t["token"])
    assert state["status"] == "playing"
    watcher = people().ws()
    state = hello(watcher, t["id"])
    texts = [e["text"] for e in state["log"]["events"] if e["kind"] == "notice"]
    assert texts == ["North is now played from another browser"]


def test_listing_offsets_and_seeds_beyond_the_databases_integers_are_a_422(
    client: TestClient,
) -> None:
    for path in ("/api/games", "/api/tables"):
        assert client.get(path, params={"offset": 2**63}).status_code == 422
    r = client.post("/api/tables", json={"game": "quinto", "seed": 2**63})
    assert r.status_code == 422 and r.json()["error"]["field"] == "seed"


def test_a_title_is_printable_text(client: TestClient) -> None:
    for title in ("a\x00b", "\u202eevil", "bell\x07"):
        r = client.post("/api/tables", json={"game": "quinto", "title": title})
        assert r.status_code == 422 and r.json()["error"]["field"] == "title", title
    r = client.post("/api/tables", json={"game": "quinto", "title": "  Friday \n  night "})
    tid = r.json()["id"]
    assert client.get(f"/api/tables/{tid}").json()["title"] == "Friday night"


def test_a_message_overtaken_by_another_tab_is_refused_not_a_server_error(people: Any) -> None:
    ann, bea = people(), people()
    t = ann.create(
        seats=["open", "open", "heuristic", "heuristic"], join={"seat": 0, "name": "Ann"}
    )
    client = ann.client
    hub: Hub = client.app.state.hub
    lt = hub.tables[t["id"]]
    from quintet.server.security import person_id

    async def go() -> tuple[list[Any], set[Any], list[Any]]:
        import asyncio

        a = Probe(hub, person_id(ann.cookie))
        a2 = Probe(hub, person_id(ann.cookie))
        b = Probe(hub, person_id(bea.cookie))
        await hub.handle(a.conn, json.dumps({"type": "hello", "table": lt.id, "token": t["token"]}))
        await hub.handle(b.conn, json.dumps({"type": "hello", "table": lt.id}))
        await hub.handle(b.conn, json.dumps({"type": "join", "seat": 1, "name": "Bea"}))
        await lt.lock.acquire()
        # Ann's new tab takes the seat first; then her old tab's messages arrive.
        jobs = [
            asyncio.create_task(
                hub.handle(
                    a2.conn, json.dumps({"type": "hello", "table": lt.id, "token": t["token"]})
                )
            )
        ]
        await asyncio.sleep(0)
        for kind in ("next", "act", "leave", "replace"):
            msg: JSON = {"type": kind, "id": kind}
            if kind == "act":
                msg["action"] = "pass"
            if kind == "replace":
                msg["seat"] = 1
            jobs.append(asyncio.create_task(hub.handle(a.conn, json.dumps(msg))))
            await asyncio.sleep(0)
        lt.lock.release()
        await asyncio.gather(*jobs)
        await asyncio.sleep(0.05)
        watcher = Probe(hub, "w" * 64)
        await hub.handle(watcher.conn, json.dumps({"type": "hello", "table": lt.id}))
        await asyncio.sleep(0.05)
        return a.kinds(), set(lt.ready), watcher.kinds()

    old_tab, ready, watcher = client.portal.call(go)
    assert ("error", "server_error") not in old_tab, old_tab
    errors = [code for kind, code in old_tab if kind == "error"]
    assert set(errors) <= {"not_player", "taken_over"}, old_tab
    assert None not in ready
    assert watcher == [("welcome", None)]
    assert lt.seats[0].kind == "person" and lt.seats[1].kind == "person"


def test_notices_posted_at_once_are_numbered_apart(people: Any) -> None:
    ann, _bea, t, _a, b = two_players(people)
    answer(b, {"type": "leave"})
    client = ann.client
    hub: Hub = client.app.state.hub
    lt = hub.tables[t["id"]]

    async def go() -> list[Any]:
        import asyncio

        cy = Probe(hub, "c" * 64)
        cy.conn.table = lt
        lt.conns.add(cy.conn)
        await asyncio.gather(
            lt.post_notice(2, "bot", "South's pimc bot failed"),
            hub.handle(cy.conn, json.dumps({"type": "join", "seat": 1, "name": "Cy"})),
        )
        await asyncio.sleep(0.05)
        return cy.kinds()

    assert client.portal.call(go) == [("joined", None)]
    assert [n.text for n in lt.notices][-2:] in (
        ["South's pimc bot failed", "Cy takes over East"],
        ["Cy takes over East", "South's pimc bot failed"],
    )


def test_a_ping_with_nan_or_infinity_is_refused_and_nothing_sent_is_not_json(
    client: TestClient,
) -> None:
    with client.websocket_connect("/ws") as ws:
        for raw in (
            '{"type":"ping","t":NaN}',
            '{"type":"ping","t":-Infinity}',
            '{"type":"ping","t":1e999}',
        ):
            ws.send_text(raw)
            text = ws.receive_text()
            assert json.loads(text)["code"] == "bad_message"
            assert "NaN" not in text and "Infinity" not in text


def test_a_bots_seat_needs_its_invite_even_for_its_former_player(people: Any) -> None:
    ann, _bea, t, a, b = two_players(people)
    answer(b, {"type": "leave"})
    send(a, {"type": "replace", "seat": 1, "level": "heuristic"})
    drain(a)
    refused(b, {"type": "join", "seat": 1, "name": "Bea"}, "bad_invite")
    join(b, 1, "Bea", invite=invite_of(invites(ann, t["id"]), 1))


def test_joining_ones_own_seat_from_another_tab_closes_the_old_one(people: Any) -> None:
    ann = people()
    t = ann.create(
        seats=["open", "open", "heuristic", "heuristic"], join={"seat": 0, "name": "Ann"}
    )
    a = ann.ws()
    hello(a, t["id"], token=t["token"])
    a2 = ann.ws()
    hello(a2, t["id"])
    join(a2, 0, "Ann")
    while (m := recv(a))["type"] != "error":
        pass
    assert m["code"] == "taken_over"
    with pytest.raises(WebSocketDisconnect):
        while True:
            recv(a)


def test_a_players_disconnect_starts_the_abandon_clock_anew(tmp_path: Path) -> None:
    with make_client(tmp_path, abandon_after=0.5) as c:
        body = {"game": "quinto", "seats": ["open", "open", "heuristic", "heuristic"]}
        made = c.post("/api/tables", json=body | {"join": {"seat": 0, "name": "Ann"}}).json()
        hub: Hub = c.app.state.hub  # type: ignore[attr-defined]
        with c.websocket_connect("/ws") as ws:
            hello(ws, made["id"], token=made["token"])
            time.sleep(0.8)  # connected, waiting for a friend, longer than abandon_after
            assert c.portal.call(hub.sweep) == []  # type: ignore[union-attr]
        time.sleep(0.05)  # the tab reloads
        assert c.portal.call(hub.sweep) == []  # type: ignore[union-attr]
        time.sleep(0.6)
        assert c.portal.call(hub.sweep) == [made["id"]]  # type: ignore[union-attr]


def test_a_hint_being_worked_out_does_not_hold_up_the_connection(tmp_path: Path) -> None:
    with make_client(tmp_path, hint_level="pimc", bot_seconds=0.5, search_workers=1) as c:
        body = {"game": "quinto", "seats": ["open", "random", "random", "random"], "seed": 8}
        made = c.post("/api/tables", json=body | {"join": {"seat": 0, "name": "Ann"}}).json()
        with c.websocket_connect("/ws") as ws:
            state = hello(ws, made["id"], token=made["token"])
            while not state.get("legal"):
                state = until(ws, "state")
            for msg in ({"type": "hint", "id": "h1"}, {"type": "hint", "id": "h2"}):
                send(ws, msg)
            send(ws, {"type": "ping", "id": "p"})
            order: list[tuple[Any, ...]] = []
            while len(order) < 3:
                m = recv(ws)
                if m["type"] != "state":
                    order.append((m["type"], m.get("ref"), m.get("code")))
        assert order == [("error", "h2", "busy"), ("pong", "p", None), ("hint", "h1", None)]


def _hint_at_a_choice(c: TestClient) -> JSON:
    """Return the hint seat 0 (Ann) gets at her first decision with a choice.

    Decisions with one legal action (she may only pass the doubling round) are taken.
    """
    body = {"game": "quinto", "seats": ["open", "random", "random", "random"], "seed": 8}
    made = c.post("/api/tables", json=body | {"join": {"seat": 0, "name": "Ann"}}).json()
    with c.websocket_connect("/ws") as ws:
        state = hello(ws, made["id"], token=made["token"])
        while len(state.get("legal") or []) < 2:
            if state.get("legal"):
                send(ws, {"type": "act", "action": state["legal"][0]})
            state = until(ws, "state")
        send(ws, {"type": "hint", "id": "h"})
        return until(ws, "hint")


def test_the_hint_is_pimcs_with_the_operators_hint_budget(tmp_path: Path) -> None:
    with make_client(tmp_path, hint_seconds=0.05, search_workers=1) as c:
        hub: Hub = c.app.state.hub  # type: ignore[attr-defined]
        assert hub.settings.hint_level == "pimc"  # the default
        asked: list[tuple[str, Any]] = []
        run_hint = hub.run_hint  # a hint's bot says why too (run_bot's decision and reason)

        async def spy(owner: str, level: str, *args: Any) -> Any:
            asked.append((level, args[4:]))
            return await run_hint(owner, level, *args)

        hub.run_hint = spy  # type: ignore[method-assign,assignment]
        hint = _hint_at_a_choice(c)
    assert hint["ref"] == "h" and hint["level"] == "pimc"
    assert hint["action"]["seat"] == 0
    # The hint's bot is the operator's pimc at the hint budget (0.05 CPU seconds).
    assert ("pimc", ("pimc:seconds=0.05",)) in asked


def test_a_hint_whose_bot_fails_is_the_heuristics_and_says_so(tmp_path: Path) -> None:
    # The operator's hint level would think 30 CPU seconds; the 1 s wall limit cuts it.
    with make_client(
        tmp_path,
        levels={"slow": "ismcts:seconds=30"},
        hint_level="slow",
        bot_seconds=0.1,
        search_limit=1.0,
        search_workers=1,
    ) as c:
        hint = _hint_at_a_choice(c)
    assert hint["level"] == "heuristic" and hint["action"]["seat"] == 0


def test_the_search_limit_is_generously_above_the_cpu_budgets() -> None:
    from quintet.errors import InvalidOptionError

    Settings().check()  # 10 wall seconds for 1 CPU second
    Settings(bot_seconds=2.0).check()  # 5 times: just enough
    for too_much in ({"bot_seconds": 3.0}, {"hint_seconds": 2.5}):
        with pytest.raises(InvalidOptionError, match="at least 5 times"):
            Settings(**too_much).check()  # type: ignore[arg-type]
    assert Settings().hint_spec() == "pimc:seconds=1"
    assert Settings(hint_seconds=0.3).hint_spec() == "pimc:seconds=0.3"
    assert Settings(hint_level="ismcts", bot_seconds=0.5).hint_spec() == "ismcts:seconds=0.5"
    assert Settings(hint_level="heuristic").hint_spec() == "heuristic"
    # A level of the operator's own keeps its spec.
    assert Settings(levels={"pimc": "pimc:samples=5"}).hint_spec() == "pimc:samples=5"


def test_seats_stay_as_they_were_once_a_table_is_over(tmp_path: Path) -> None:
    with make_client(tmp_path, abandon_after=10.0) as c:
        body = {"game": "quinto", "seats": ["open", "open", "heuristic", "heuristic"]}
        made = c.post("/api/tables", json=body | {"join": {"seat": 0, "name": "Ann"}}).json()
        hub: Hub = c.app.state.hub  # type: ignore[attr-defined]
        c.portal.call(hub.sweep, time.time() + 11)  # type: ignore[union-attr]
        with c.websocket_connect("/ws") as ws:
            hello(ws, made["id"], token=made["token"])
            refused(ws, {"type": "leave"}, "game_over")
        record = json.loads(c.get(f"/api/games/{made['id']}/record").text)
        assert record["players"][0]["name"] == "Ann"


def test_concurrent_creations_cannot_pass_the_table_limits_together(tmp_path: Path) -> None:
    with make_client(tmp_path, max_tables_per_client=2, max_tables=3) as c:
        hub: Hub = c.app.state.hub  # type: ignore[attr-defined]
        from quintet.server.live import FieldError
        from quintet.server.messages import CreateTable

        async def go() -> int:
            import asyncio

            body = CreateTable(game="quinto", seats=["open"] * 4)
            res = await asyncio.gather(
                *(hub.create_table(body, "p" * 64, "1.2.3.4") for _ in range(10)),
                return_exceptions=True,
            )
            assert all(isinstance(r, dict | FieldError) for r in res), res
            return sum(1 for r in res if isinstance(r, dict))

        assert c.portal.call(go) == 2  # type: ignore[union-attr]


def test_a_level_is_checked_wherever_it_is_named_and_lone_seat_only_for_dummy(
    client: TestClient,
) -> None:
    for body, field in (
        (
            {
                "variant": "dummy",
                "lone_seat": 0,
                "seats": ["open", "open", "pimc:seconds=9", "open"],
            },
            "seats[2]",
        ),
        (
            {"seats": [{"kind": "open", "level": "ismcts:iterations=9"}, "open", "open", "open"]},
            "seats[0].level",
        ),
        ({"game": "quintus", "lone_seat": 3}, "lone_seat"),
        ({"variant": "partnership", "lone_seat": 1}, "lone_seat"),
    ):
        r = client.post("/api/tables", json={"game": "quinto"} | body)
        assert r.status_code == 422 and r.json()["error"]["field"] == field, (body, r.text)


def test_reading_an_analysis_starts_nothing(tmp_path: Path) -> None:
    with make_client(tmp_path, abandon_after=10.0) as c:
        tid = c.post("/api/tables", json={"game": "quinto", "seats": ["open"] * 4}).json()["id"]
        hub: Hub = c.app.state.hub  # type: ignore[attr-defined]
        c.portal.call(hub.sweep, time.time() + 11)  # type: ignore[union-attr]
        r = c.get(f"/api/games/{tid}/analysis", headers={"origin": "https://evil.example"})
        assert r.json() == {"status": "not_started"} and not hub.analyses
        r = c.post(
            f"/api/games/{tid}/analysis", json={}, headers={"origin": "https://evil.example"}
        )
        assert r.status_code == 403 and not hub.analyses


def test_the_access_log_keeps_invites_and_keys_out() -> None:
    import logging

    from quintet.server.app import RedactCodes

    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        "",
        0,
        '%s - "%s %s HTTP/%s" %d',
        ("1.2.3.4:5", "GET", "/table/abc?seat=1&invite=SECRET1&key=SECRET2", "1.1", 200),
        None,
    )
    assert RedactCodes().filter(record)
    text = record.getMessage()
    assert "SECRET" not in text and "seat=1" in text and "invite=" in text
    from quintet.server.app import redact

    assert "SECRET" not in redact("/table/t?%69nvite=SECRET&key=SECRET&key=SECRET")


def test_dropping_a_slow_client_never_cuts_a_change_in_half(tmp_path: Path) -> None:
    """A client dropped while its message is being stored: the change is made in full."""
    import asyncio

    from quintet.server import db as dbm

    with make_client(tmp_path, bot_delay=30.0) as c:
        hub: Hub = c.app.state.hub  # type: ignore[attr-defined]
        body = {"game": "quinto", "seats": ["open", "heuristic", "heuristic", "heuristic"]}
        tid = c.post("/api/tables", json=body).json()["id"]
        write = hub.store.write

        async def slow_write(job: Any) -> Any:
            out = await write(job)  # committed ...
            await asyncio.sleep(0.3)  # ... and the answer comes late
            return out

        hub.store.write = slow_write  # type: ignore[method-assign]
        with c.websocket_connect("/ws", headers={"cookie": f"quintet_person={new_cookie()}"}) as ws:
            hello(ws, tid)
            send(ws, {"type": "join", "seat": 0, "name": "Ann"})
            time.sleep(0.1)  # the join is being stored now
            lt = hub.tables[tid]
            (conn,) = lt.conns

            async def overflow() -> None:
                conn.send("x" * (hub.settings.outbox_bytes + 1))

            c.portal.call(overflow)  # type: ignore[union-attr]
            time.sleep(1.5)
        hub.store.write = write  # type: ignore[method-assign]
        row = c.portal.call(hub.store.read, lambda cn: dbm.load_table(cn, tid))  # type: ignore[union-attr]
        assert row is not None
        assert [s.kind for s in row.seats] == [s.kind for s in lt.seats]
        assert row.hands_dealt == len(lt.table.match.hands)


def test_a_cancelled_request_does_not_strand_others_loading_the_same_table(
    tmp_path: Path,
) -> None:
    import asyncio

    with make_client(tmp_path, abandon_after=10.0) as c:
        hub: Hub = c.app.state.hub  # type: ignore[attr-defined]
        tid = c.post("/api/tables", json={"game": "quinto", "seats": ["open"] * 4}).json()["id"]
        c.portal.call(hub.sweep, time.time() + 11)  # type: ignore[union-attr]

        async def go() -> bool:
            hub.tables.pop(tid, None)  # as after a restart: in the database only
            hub._shown.clear()
            first = asyncio.create_task(hub.get_table(tid))
            await asyncio.sleep(0)
            second = asyncio.create_task(hub.get_table(tid))
            await asyncio.sleep(0)
            first.cancel()
            t = await asyncio.wait_for(second, 5)
            return t is not None and t.status == "abandoned"

        assert c.portal.call(go)  # type: ignore[union-attr]


def test_a_hint_reaches_only_the_seat_that_asked_and_uses_the_askers_share(
    tmp_path: Path,
) -> None:
    with make_client(tmp_path, hint_level="pimc", bot_seconds=0.5, search_workers=1) as c:
        hub: Hub = c.app.state.hub  # type: ignore[attr-defined]
        seen: list[str] = []
        run_bot, run_hint = hub.run_bot, hub.run_hint  # the bots' decisions; the hint's

        async def spy_bot(owner: str, *args: Any) -> Any:
            seen.append(owner)
            return await run_bot(owner, *args)

        async def spy_hint(owner: str, *args: Any) -> Any:
            seen.append(owner)
            return await run_hint(owner, *args)

        hub.run_bot = spy_bot  # type: ignore[method-assign,assignment]
        hub.run_hint = spy_hint  # type: ignore[method-assign,assignment]
        from quintet.server.messages import CreateTable

        body = CreateTable.model_validate(
            {
                "game": "quinto",
                "seats": ["open", "random", "random", "random"],
                "seed": 8,
                "join": {"seat": 0, "name": "Ann"},
            }
        )
        # Created from another address than the one asking for the hint.
        made = c.portal.call(hub.create_table, body, "a" * 64, "10.9.9.9")  # type: ignore[union-attr]
        c.get("/")  # this browser's person cookie
        with c.websocket_connect("/ws") as ws:
            state = hello(ws, made["id"], token=made["token"])
            while not state.get("legal"):
                state = until(ws, "state")
            send(ws, {"type": "hint", "id": "h"})
            send(ws, {"type": "leave", "id": "l"})
            got = []
            send(ws, {"type": "ping", "id": "p1"})
            time.sleep(3.0)  # longer than the hint's search
            send(ws, {"type": "ping", "id": "p2"})
            while (m := recv(ws)) != {"type": "pong", "ref": "p2", "t": None}:
                got.append(m["type"])
        assert "hint" not in got and "left" in got
        # The hint used the asker's share; the table's bots their creator's.
        assert seen.count("client:testclient") == 1
        assert set(seen) == {"client:testclient", "client:10.9.9.9"}


def test_the_server_wide_table_limit_counts_each_creation_once(tmp_path: Path) -> None:
    with make_client(tmp_path, max_tables=3) as c:
        hub: Hub = c.app.state.hub  # type: ignore[attr-defined]
        from quintet.server.messages import CreateTable

        async def go() -> int:
            import asyncio

            body = CreateTable(game="quinto", seats=["open"] * 4)
            res = await asyncio.gather(
                *(hub.create_table(body, f"{i}" * 64, f"10.0.0.{i}") for i in range(3)),
                return_exceptions=True,
            )
            return sum(1 for r in res if isinstance(r, dict))

        assert c.portal.call(go) == 3  # type: ignore[union-attr]


def test_each_refusal_says_what_is_wrong(tmp_path: Path) -> None:
    """The error message of every bad input these defences refuse."""
    with make_client(tmp_path, max_spectators=1) as c, ExitStack() as stack:

        def post(body: Any, headers: dict[str, str] | None = None) -> JSON:
            raw = body if isinstance(body, bytes) else json.dumps(body).encode()
            h = {"content-type": "application/json"} | (headers or {})
            r = c.post("/api/tables", content=raw, headers=h)
            assert 400 <= r.status_code < 500, r.text
            err: JSON = r.json()["error"]
            return err

        level = post({"seats": ["open", "pimc:seconds=20", "open", "open"]})["message"]
        assert level == (
            "no bot level 'pimc:seconds=20' here (offered: random, heuristic, pimc, ismcts)"
        )
        assert post({"options": {"target": 6000}})["message"] == "at most 5000 on this server"
        lone = post({"game": "quintus", "lone_seat": 1})["message"]
        assert lone == "only the dummy variant has a lone player"
        assert post({"seats": ["open"] * 3})["message"] == "list the 4 seats of quinto, not 3"
        assert "no lone surrogates" in post(b'{"title": "x\\ud800"}')["message"]
        assert post({"title": "a\x00b"})["message"] == (
            "title: a title is up to 80 printable characters"
        )
        assert post({"join": {"seat": 0, "name": " "}})["message"] == (
            "join.name: a display name is 1 to 40 printable characters"
        )
        assert post({"colour": 1})["message"] == "colour: Extra inputs are not permitted"
        assert post(b"{")["message"] == "the body is not JSON"
        assert post(b"[" * 20_000)["message"] == "the body is over 16384 bytes"
        assert post({}, {"content-type": "text/plain"})["message"] == (
            "send the body as application/json"
        )
        assert post({}, {"origin": "https://evil.example"})["message"] == (
            "requests from other sites are refused"
        )
        r = c.get("/api/games", params={"offset": 2**63})
        assert r.json()["error"]["field"] == "offset"
        assert "less than or equal to 1000000" in r.json()["error"]["message"]

        t = c.post("/api/tables", json={"seats": ["open", "heuristic", "open", "open"]}).json()
        ws = stack.enter_context(
            c.websocket_connect("/ws", headers={"cookie": f"quintet_person={new_cookie()}"})
        )

        def says(msg: JSON | str, code: str) -> str:
            send(ws, msg)
            while (m := recv(ws))["type"] == "state":
                pass
            assert m["type"] == "error" and m["code"] == code, m
            text: str = m["message"]
            return text

        assert says({"type": "foo"}, "unknown_type") == "unknown message type 'foo'"
        assert says({"type": "join", "seat": "0", "name": "A"}, "bad_message") == (
            "'join': seat: Input should be a valid integer"
        )
        assert "'hello': invite: String should match pattern" in says(
            {"type": "hello", "table": t["id"], "invite": "éééé"}, "bad_message"
        )
        assert "finite number" in says('{"type": "ping", "t": NaN}', "bad_message")
        assert "no lone surrogates" in says('{"type": "ping", "id": "\\ud800"}', "bad_message")
        hello(ws, t["id"])
        assert says({"type": "join", "seat": 1, "name": "A"}, "bad_invite") == (
            "a bot's seat is taken with its invite link"
        )
        join(ws, 0, "Ann")
        assert says({"type": "replace", "seat": 2, "level": "genius"}, "bad_level") == (
            "no bot level 'genius' here (offered: random, heuristic, pimc, ismcts)"
        )
        assert answer(ws, {"type": "leave"})["type"] == "left"
        assert says({"type": "join", "seat": 2, "name": "Ann"}, "already_seated") == (
            "you have played North at this table: one person plays one seat"
        )
        nobody = stack.enter_context(c.websocket_connect("/ws", headers={"cookie": ""}))
        send(nobody, {"type": "hello", "table": t["id"]})
        assert recv(nobody)["code"] == "full"  # the one spectator place is taken
        from quintet.server.protocol import ERRORS

        assert ERRORS["full"] == "the table has as many spectators as it can take"
        assert ERRORS["no_person"].startswith("this connection has no person cookie")


def test_the_limits_say_what_was_reached(tmp_path: Path) -> None:
    with make_client(tmp_path, create_rate=1.0, create_burst=1, max_tables_per_client=5) as c:
        body = {"game": "quinto", "seats": ["open"] * 4}
        assert c.post("/api/tables", json=body).status_code == 201
        err = c.post("/api/tables", json=body).json()["error"]
        assert err["code"] == "rate_limited"
        assert err["message"].startswith("too many new tables: try again in")
    with make_client(tmp_path, name="t", max_tables_per_client=1, max_tables=2) as c:
        body = {"game": "quinto", "seats": ["open"] * 4}
        assert c.post("/api/tables", json=body).status_code == 201
        err = c.post("/api/tables", json=body).json()["error"]
        assert err == {
            "code": "too_many_tables",
            "message": "you have 1 tables in play: finish some first",
        }
        other = {"cookie": f"quintet_person={new_cookie()}"}
        hub: Hub = c.app.state.hub  # type: ignore[attr-defined]
        for t in hub.tables.values():
            t.creator_client = None
        assert c.post("/api/tables", json=body, headers=other).status_code == 201
        err = c.post("/api/tables", json=body).json()["error"]
        assert err == {"code": "busy", "message": "the server has as many tables as it can hold"}


def test_a_websockets_messages_go_through_the_send_the_guard_was_given() -> None:
    """The Guard keeps the server's own ``send``; the socket's messages skip Starlette's."""
    import asyncio

    from starlette.websockets import WebSocket

    from quintet.server.app import text_sender
    from quintet.server.security import WS_SEND, Guard

    server_sent: list[Any] = []
    starlette_sent: list[Any] = []

    async def server_send(message: Any) -> None:
        server_sent.append(message)

    async def starlette_send(message: Any) -> None:
        starlette_sent.append(message)

    async def receive() -> Any:
        return {"type": "websocket.connect"}

    async def endpoint(scope: Any, receive: Any, send: Any) -> None:
        assert scope[WS_SEND] is send
        ws = WebSocket(scope, receive, starlette_send)
        await text_sender(ws)('{"type":"update"}')

    scope = {"type": "websocket", "path": "/ws", "headers": []}
    asyncio.run(Guard(endpoint, Settings())(scope, receive, server_send))
    assert server_sent == [{"type": "websocket.send", "text": '{"type":"update"}'}]
    assert starlette_sent == []
    # Without a Guard, Starlette's own send_text (which refuses a socket not accepted).
    bare = WebSocket({"type": "websocket", "path": "/ws", "headers": []}, receive, starlette_send)
    with pytest.raises(RuntimeError, match=r"websocket\.accept"):
        asyncio.run(text_sender(bare)("x"))
