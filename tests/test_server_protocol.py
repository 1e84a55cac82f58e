"""Bad input, message type by message type, and the HTTP API.

Every refusal is an ``error`` message to the sender only, with a code from
docs/server.md; the table is unchanged (same ``seq``) and the server keeps serving the
others (a bystander's next message is the answer to its own ping).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from quintet.server import Settings, create_app
from quintet.server.protocol import ERRORS, MAX_MESSAGE, PROTOCOL_VERSION
from quintet.server.security import new_cookie
from quintet.server.testing import follow

JSON = dict[str, Any]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(
        Settings(
            db_url=f"sqlite:///{tmp_path / 'p.db'}",
            bot_delay=0.0,
            allow_seed=True,
            analysis_nodes=2_000_000,
        )
    )
    with TestClient(app) as c:
        yield c


def connect(client: TestClient, cookie: str | None = None) -> Any:
    """Open a websocket as a person of its own (a browser with cookie ``cookie``)."""
    headers = {"cookie": f"quintet_person={cookie or new_cookie()}"}
    return client.websocket_connect("/ws", headers=headers)


def new_table(client: TestClient, **body: Any) -> JSON:
    base: JSON = {"game": "quinto", "seats": ["open", "open", "open", "open"], "seed": 4}
    r = client.post("/api/tables", json=base | body)
    assert r.status_code == 201, r.text
    out: JSON = r.json()
    return out


def recv(ws: WebSocketTestSession) -> JSON:
    """Return the next message; a state or update as the whole table after it."""
    return follow(ws, ws.receive_json())


def send(ws: WebSocketTestSession, msg: JSON | str) -> None:
    ws.send_text(msg if isinstance(msg, str) else json.dumps(msg))


def until(ws: WebSocketTestSession, kind: str) -> JSON:
    while True:
        m = recv(ws)
        if m["type"] == kind:
            return m


def hello(ws: WebSocketTestSession, table: str, token: str | None = None, **more: Any) -> JSON:
    msg: JSON = {"type": "hello", "v": PROTOCOL_VERSION, "table": table, **more}
    if token:
        msg["token"] = token
    send(ws, msg)
    assert recv(ws)["type"] == "welcome"
    return until(ws, "state")


def join(ws: WebSocketTestSession, seat: int, name: str) -> str:
    send(ws, {"type": "join", "seat": seat, "name": name})
    m = until(ws, "joined")
    token: str = m["token"]
    until(ws, "state")
    return token


def expect_error(ws: WebSocketTestSession, msg: JSON | str, code: str) -> JSON:
    send(ws, msg)
    m = recv(ws)
    assert m["type"] == "error", m
    assert m["code"] == code, m
    assert m["code"] in ERRORS and m["message"]
    return m


def quiet(ws: WebSocketTestSession) -> None:
    """Assert nothing was sent to ``ws`` since its last read (its ping is answered first)."""
    send(ws, {"type": "ping", "id": "q"})
    m = recv(ws)
    assert m == {"type": "pong", "ref": "q", "t": None}, m


class Seated:
    """Four players at a table that has dealt, and a spectator."""

    def __init__(self, client: TestClient, stack: Any) -> None:
        self.table = new_table(client)
        tid = self.table["id"]
        self.ws: list[WebSocketTestSession] = []
        self.tokens: list[str] = []
        for s in range(4):
            ws = stack.enter_context(connect(client))
            hello(ws, tid)
            self.tokens.append(join(ws, s, f"p{s}"))
            self.ws.append(ws)
        for ws in self.ws:  # drain the seat and deal updates
            quiet_drain(ws)
        self.spectator = stack.enter_context(connect(client))
        self.state = hello(self.spectator, tid)
        self.seq = self.state["seq"]

    def turn(self) -> int:
        t: int = self.state["hand"]["turn"]
        return t


def quiet_drain(ws: WebSocketTestSession) -> None:
    send(ws, {"type": "ping", "id": "drain"})
    while recv(ws) != {"type": "pong", "ref": "drain", "t": None}:
        pass


@pytest.fixture
def seated(client: TestClient) -> Iterator[Seated]:
    from contextlib import ExitStack

    with ExitStack() as stack:
        yield Seated(client, stack)


def seq_of(client: TestClient, table: str) -> int:
    seq: int = client.get(f"/api/tables/{table}").json()["seq"]
    return seq


# ------------------------------------------------------------------ any message


def test_malformed_and_oversized_messages_get_an_error_and_the_socket_lives_on(
    client: TestClient,
) -> None:
    with connect(client) as ws:
        expect_error(ws, "{not json", "bad_json")
        expect_error(ws, "[1, 2]", "bad_message")
        expect_error(ws, '"hello"', "bad_message")
        expect_error(ws, {"no": "type"}, "bad_message")
        expect_error(ws, {"type": 5}, "bad_message")
        expect_error(ws, {"type": "dance"}, "unknown_type")
        expect_error(ws, {"type": "ping", "pad": "x" * MAX_MESSAGE}, "too_large")
        expect_error(ws, "[" * 5000, "too_large")
        ws.send_bytes(b"\x00\x01")
        assert recv(ws)["code"] == "bad_message"
        m = expect_error(ws, {"type": "act", "id": 7, "action": "AS"}, "not_joined")
        assert m["ref"] == 7
        quiet(ws)


def test_a_flood_is_rate_limited(tmp_path: Path) -> None:
    app = create_app(Settings(db_url=f"sqlite:///{tmp_path / 'r.db'}", rate=1.0, burst=5.0))
    with TestClient(app) as client, connect(client) as ws:
        for _ in range(5):
            send(ws, {"type": "ping"})
            assert recv(ws)["type"] == "pong"
        expect_error(ws, {"type": "ping"}, "rate_limited")


# ------------------------------------------------------------------------ hello


def test_hello_refuses_bad_versions_tables_and_tokens(client: TestClient) -> None:
    table = new_table(client)["id"]
    with connect(client) as ws:
        expect_error(ws, {"type": "hello", "v": 99, "table": table}, "bad_version")
        expect_error(ws, {"type": "hello", "v": 1}, "bad_message")
        expect_error(ws, {"type": "hello", "table": 12}, "bad_message")
        expect_error(ws, {"type": "hello", "table": "nope"}, "no_table")
        expect_error(ws, {"type": "hello", "table": "x" * 100}, "bad_message")
        expect_error(ws, {"type": "hello", "table": table, "token": "forged"}, "bad_token")
        expect_error(ws, {"type": "hello", "table": table, "token": 5}, "bad_message")
        hello(ws, table)  # and then it works


def test_a_second_connection_takes_the_seat_over(client: TestClient) -> None:
    table = new_table(client)["id"]
    with connect(client) as a, connect(client) as b:
        hello(a, table)
        token = join(a, 0, "Ann")
        send(b, {"type": "hello", "table": table, "token": token})
        assert recv(b)["type"] == "welcome"
        m = until(a, "error")
        assert m["code"] == "taken_over"
        state = until(b, "state")
        assert state["you"]["seat"] == 0


# ------------------------------------------------------------------------- join


def test_join_refusals(client: TestClient) -> None:
    table = new_table(client)
    private = new_table(client, public=False)
    with connect(client) as ws, connect(client) as other:
        expect_error(ws, {"type": "join", "seat": 0, "name": "Ann"}, "not_joined")
        hello(ws, table["id"])
        hello(other, table["id"])
        expect_error(ws, {"type": "join", "name": "Ann"}, "bad_message")
        expect_error(ws, {"type": "join", "seat": "0", "name": "Ann"}, "bad_message")
        expect_error(ws, {"type": "join", "seat": 7, "name": "Ann"}, "no_seat")
        expect_error(ws, {"type": "join", "seat": 0, "name": "  "}, "bad_name")
        expect_error(ws, {"type": "join", "seat": 0, "name": "x" * 41}, "bad_name")
        expect_error(ws, {"type": "join", "seat": 0, "name": "a\x00b"}, "bad_name")
        join(other, 0, "Bea")
        until(ws, "state")
        expect_error(ws, {"type": "join", "seat": 0, "name": "Ann"}, "seat_taken")
        join(ws, 1, "Ann")
        expect_error(ws, {"type": "join", "seat": 2, "name": "Ann"}, "already_seated")
        quiet_drain(other)
        quiet(other)
        hello(ws, private["id"], invite=private["seats"][1]["invite"])
        expect_error(ws, {"type": "join", "seat": 0, "name": "Cy"}, "bad_invite")
        bad = {"type": "join", "seat": 0, "name": "Cy", "invite": private["seats"][1]["invite"]}
        expect_error(ws, bad, "bad_invite")
        good = {"type": "join", "seat": 0, "name": "Cy", "invite": private["seats"][0]["invite"]}
        send(ws, good)
        assert until(ws, "joined")["seat"] == 0


def test_the_dummy_seat_cannot_be_taken(client: TestClient) -> None:
    table = new_table(client, variant="dummy", seats=["open", "open", "open", "open"])
    with connect(client) as ws:
        hello(ws, table["id"])
        expect_error(ws, {"type": "join", "seat": 2, "name": "Ann"}, "no_seat")


# ------------------------------------------------------------ leave and replace


def test_leave_and_replace_refusals(client: TestClient) -> None:
    table = new_table(client)["id"]
    with connect(client) as ws, connect(client) as b:
        hello(ws, table)
        expect_error(ws, {"type": "leave"}, "not_player")
        expect_error(ws, {"type": "replace", "seat": 1}, "not_player")
        join(ws, 0, "Ann")
        hello(b, table)
        join(b, 1, "Bea")
        quiet_drain(ws)
        expect_error(ws, {"type": "replace", "seat": 1}, "seat_present")
        expect_error(ws, {"type": "replace", "seat": 2, "level": "genius"}, "bad_level")
        expect_error(ws, {"type": "replace", "seat": 9}, "no_seat")
        expect_error(ws, {"type": "replace"}, "bad_message")
        send(ws, {"type": "replace", "seat": 2, "level": "random"})
        state = until(ws, "state")
        assert state["seats"][2]["kind"] == "bot"
        expect_error(ws, {"type": "replace", "seat": 2}, "no_seat")  # already a bot
        send(b, {"type": "leave"})
        assert until(b, "left")["seat"] == 1
        quiet_drain(b)
        expect_error(b, {"type": "leave"}, "not_player")
        # Bea left: her seat is open and can be given to a bot, or taken back.
        token = join(b, 1, "Bea")
        assert token


# ---------------------------------------------------------------- act, hint, next


def test_act_refusals_leave_the_table_unchanged(client: TestClient, seated: Seated) -> None:
    tid = seated.table["id"]
    turn = seated.turn()
    other = (turn + 1) % 4
    me, them = seated.ws[turn], seated.ws[other]
    before = seq_of(client, tid)
    expect_error(seated.spectator, {"type": "act", "action": "pass"}, "not_player")
    m = expect_error(them, {"type": "act", "action": "pass"}, "not_your_turn")
    assert "turn" in m["message"]
    expect_error(them, {"type": "act", "action": {"type": "pass", "seat": turn}}, "not_your_seat")
    expect_error(me, {"type": "act"}, "bad_message")
    expect_error(me, {"type": "act", "action": 5}, "bad_message")
    expect_error(me, {"type": "act", "action": "fly away"}, "invalid_action")
    expect_error(me, {"type": "act", "action": {"type": "teleport"}}, "invalid_action")
    expect_error(me, {"type": "act", "action": {"type": "play"}}, "invalid_action")
    expect_error(me, {"type": "act", "action": {"type": "play", "card": "ZZ"}}, "invalid_action")
    expect_error(me, {"type": "act", "action": {"type": "seat", "seat": 9}}, "invalid_action")
    expect_error(me, {"type": "act", "action": "bid 40"}, "invalid_action")
    expect_error(me, {"type": "act", "action": "redouble"}, "illegal")
    m = expect_error(me, {"type": "act", "action": "AS"}, "illegal")
    assert "doubling" in m["message"]
    expect_error(me, {"type": "act", "action": "pass", "expect": before - 1}, "stale")
    expect_error(me, {"type": "act", "action": "pass", "expect": "x"}, "bad_message")
    assert seq_of(client, tid) == before
    for ws in [seated.spectator, *seated.ws]:
        quiet(ws)
    send(me, {"type": "act", "action": "pass", "expect": before})
    assert until(seated.spectator, "state")["seq"] == before + 1


def test_an_illegal_card_names_no_card_the_player_cannot_see(
    client: TestClient, seated: Seated
) -> None:
    # Pass the doubling round, then try to play a card held by someone else.
    for _ in range(4):
        t = seated.turn()
        send(seated.ws[t], {"type": "act", "action": "pass"})
        seated.state = until(seated.spectator, "state")
    turn = seated.turn()
    mine = until_hand(seated.ws[turn])
    others = [c for c in all_codes() if c not in mine]
    m = expect_error(seated.ws[turn], {"type": "act", "action": others[0]}, "illegal")
    for code in others:
        assert code not in m["message"].split()


def until_hand(ws: WebSocketTestSession) -> list[str]:
    send(ws, {"type": "ping", "id": "h"})
    hand: list[str] = []
    while True:
        m = recv(ws)
        if m["type"] == "state":
            hand = [c for h in m["hand"]["hands"] if h for c in h]
        if m.get("ref") == "h":
            return hand


def all_codes() -> list[str]:
    from quintet.cards import card_str

    return [card_str(c) for c in range(53)]


def test_hint_and_next_refusals(client: TestClient, seated: Seated) -> None:
    turn = seated.turn()
    expect_error(seated.spectator, {"type": "hint"}, "not_player")
    expect_error(seated.ws[(turn + 1) % 4], {"type": "hint"}, "nothing_to_do")
    send(seated.ws[turn], {"type": "hint", "id": "h1"})
    m = until(seated.ws[turn], "hint")
    assert m["ref"] == "h1" and m["action"]["seat"] == turn
    # The hint says why, in the hint bot's words (pimc: its choice's value over its deals;
    # the heuristic, when pimc fails: its rule).
    assert isinstance(m["reason"], str) and len(m["reason"]) > 20, m
    if m["level"] == "pimc":
        assert " over " in m["reason"] and "deals" in m["reason"], m
    expect_error(seated.ws[turn], {"type": "next"}, "not_ready")
    expect_error(seated.spectator, {"type": "next"}, "not_player")


@pytest.mark.parametrize("level", ["heuristic", "pimc"])
def test_a_hint_names_no_card_its_player_cannot_see(tmp_path: Path, level: str) -> None:
    """At every decision of a whole hand the player to act asks for a hint: its text and
    reason name only cards of the hands the player sees or cards already played (as codes,
    ``KH``, or as shown, ``K♥``)."""
    import re
    from contextlib import ExitStack

    from quintet.cards import card_display, card_str

    settings = Settings(
        db_url=f"sqlite:///{tmp_path / 'h.db'}",
        bot_delay=0.0,
        allow_seed=True,
        hint_level=level,
        hint_seconds=0.02,
    )
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        seated = Seated(client, stack)
        played: set[str] = set()
        hints = 0
        while seated.state["hand"] is not None and seated.state["hand"]["turn"] is not None:
            turn = seated.turn()
            ws = seated.ws[turn]
            seen = set(until_hand(ws))
            send(ws, {"type": "hint", "id": f"h{hints}"})
            m = until(ws, "hint")
            hints += 1
            words = set(re.split(r"[^0-9A-Za-z♠♣♦♥]+", f"{m['text']} {m['reason'] or ''}"))
            for c in range(53):
                code, shown = card_str(c), card_display(c)
                if code in seen or code in played:
                    continue
                assert code not in words and shown not in words, (code, m, seen)
            action = m["action"]
            if action.get("card"):
                played.add(action["card"])
            send(ws, {"type": "act", "action": action})
            seated.state = until(seated.spectator, "state")
        assert hints >= 52, hints  # the doubling round and the 13 tricks


def test_game_over_refusals(client: TestClient) -> None:
    made = new_table(client, game="quintus", options={"hands": 1}, seats=["random"] * 5, seed=9)
    tid = made["id"]
    for _ in range(200):
        if client.get(f"/api/tables/{tid}").json()["status"] == "finished":
            break
        import time

        time.sleep(0.05)
    with connect(client) as ws:
        state = hello(ws, tid)
        assert state["status"] == "finished" and state["result"]["complete"]
        expect_error(ws, {"type": "join", "seat": 0, "name": "Ann"}, "game_over")


# ----------------------------------------------------------------------- HTTP API


def test_creating_a_table_checks_everything(client: TestClient) -> None:
    def refused(body: Any, field: str, status: int = 422) -> None:
        # Encoded here: JSON may hold a lone surrogate (as an escape), UTF-8 may not.
        raw = json.dumps(body).encode()
        r = client.post("/api/tables", content=raw, headers={"content-type": "application/json"})
        assert r.status_code == status, r.text
        err = r.json()["error"]
        assert err["code"] == "invalid" and err["message"], err
        assert err.get("field") == field, err

    refused({"game": "chess"}, "game")
    refused({"game": "quinto", "variant": "solo"}, "variant")
    refused({"game": "quinto", "options": {"target": "high"}}, "options")
    refused({"game": "quinto", "options": {"colour": 1}}, "options")
    refused({"game": "quinto", "seats": ["open"] * 3}, "seats")
    refused(
        {"game": "quinto", "seats": ["open", "open", "open", {"kind": "alien"}]}, "seats[3].kind"
    )
    refused({"game": "quinto", "seats": ["open", "open", "open", "genius"]}, "seats[3]")
    refused({"game": "quinto", "seats": ["open", "open", "open", ["pimc"]]}, "seats[3]")
    bot = {"kind": "bot", "level": "pimc:seconds=20"}
    refused({"game": "quinto", "seats": ["open", "open", "open", bot]}, "seats[3].level")
    huge = "ismcts:iterations=1000000000000"
    refused({"game": "quinto", "seats": ["open", "open", huge, "open"]}, "seats[2]")
    refused({"game": "quinto", "join": {"seat": 0, "name": ""}}, "join.name")
    refused({"game": "quinto", "join": {"seat": 8, "name": "Ann"}}, "join.seat")
    refused({"game": "quinto", "title": "x\ud800y"}, "title")
    refused({"game": "quinto", "colour": "red"}, "colour")
    refused([1, 2], "")
    r = client.post("/api/tables", content=b"{", headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_json"
    ok = client.post("/api/tables", json={"game": "quintus", "variant": "bidding"})
    assert ok.status_code == 201
    body = ok.json()
    assert len(body["seats"]) == 5 and all(s["invite"] for s in body["seats"])


def test_the_server_takes_no_seed_unless_told(tmp_path: Path) -> None:
    app = create_app(Settings(db_url=f"sqlite:///{tmp_path / 's.db'}"))
    with TestClient(app) as client:
        r = client.post("/api/tables", json={"game": "quinto", "seed": 1})
        assert r.status_code == 422 and r.json()["error"]["field"] == "seed"


def test_lobby_info_invites_and_unfinished_games_hold_no_cards(
    client: TestClient, seated: Seated
) -> None:
    tid = seated.table["id"]
    info = client.get("/api/info").json()
    assert info["protocol"] == PROTOCOL_VERSION and "heuristic" in info["levels"]
    lobby = client.get("/api/tables").json()["tables"]
    assert tid in [t["id"] for t in lobby]
    table = client.get(f"/api/tables/{tid}")
    assert table.status_code == 200 and "seed" not in table.text
    assert client.get("/api/tables/nope").status_code == 404
    assert client.get(f"/api/games/{tid}/record").status_code == 409
    assert client.get(f"/api/games/{tid}/replay").status_code == 409
    assert client.get(f"/api/games/{tid}/analysis").status_code == 409
    stranger = {"cookie": f"quintet_person={new_cookie()}"}  # another browser
    assert client.get(f"/api/tables/{tid}/invites", headers=stranger).status_code == 403
    ok = client.get(f"/api/tables/{tid}/invites", headers={"X-Seat-Token": seated.tokens[0]})
    assert ok.status_code == 200 and len(ok.json()["seats"]) == 4
    for path in ("/", f"/table/{tid}", f"/replay/{tid}", "/static/app.js"):
        assert client.get(path).status_code == 200, path


def test_a_failed_analysis_says_why_and_starts_again(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An analysis that fails is reported with its reason (not as never started), and a
    POST starts it again."""
    import time

    from quintet.server import replay as replay_module

    made = new_table(client, game="quinto", options={"target": 40}, seats=["random"] * 4, seed=3)
    tid = made["id"]
    for _ in range(400):
        if client.get(f"/api/tables/{tid}").json()["status"] == "finished":
            break
        time.sleep(0.05)

    def broken(*args: object) -> object:
        raise RuntimeError("no solver today")

    monkeypatch.setattr(replay_module, "analyze_json", broken)
    assert client.post(f"/api/games/{tid}/analysis", json={}).status_code == 202
    for _ in range(200):
        r = client.get(f"/api/games/{tid}/analysis")
        if r.status_code == 200:
            break
        time.sleep(0.05)
    # (The pool cannot even send this local function to its worker: it fails all the same.)
    assert r.json()["status"] == "failed", r.json()
    assert r.json()["reason"].startswith("it failed ("), r.json()
    monkeypatch.undo()
    assert client.post(f"/api/games/{tid}/analysis", json={}).json() == {"status": "running"}


def test_a_finished_game_is_listed_replayed_analysed_and_downloaded(client: TestClient) -> None:
    made = new_table(client, game="quinto", options={"target": 40}, seats=["random"] * 4, seed=2)
    tid = made["id"]
    import time

    for _ in range(400):
        if client.get(f"/api/tables/{tid}").json()["status"] == "finished":
            break
        time.sleep(0.05)
    games = client.get("/api/games").json()["games"]
    assert [g["id"] for g in games] == [tid] and games[0]["result"]["complete"]
    record = client.get(f"/api/games/{tid}/record")
    assert record.status_code == 200 and "attachment" in record.headers["content-disposition"]
    from quintet.record import read_record, score

    rec = read_record(record.text)
    assert score(rec) == games[0]["result"]
    replay = client.get(f"/api/games/{tid}/replay").json()
    steps = replay["hands"][0]["steps"]
    assert len(steps) == len(rec.hands[0].actions) + 1
    assert all(h is not None for h in steps[0]["hands"])
    assert any("completed_trick" in st for st in steps)
    r = client.get(f"/api/games/{tid}/analysis")  # reading starts nothing
    assert r.status_code == 200 and r.json() == {"status": "not_started"}
    r = client.post(f"/api/games/{tid}/analysis", json={})
    assert r.status_code == 202 and r.json() == {"status": "running"}
    for _ in range(600):
        r = client.get(f"/api/games/{tid}/analysis")
        if r.status_code == 200:
            break
        time.sleep(0.1)
    assert r.json()["status"] != "failed", r.json()  # the reason is said
    assert r.status_code == 200 and "analysis" in r.json(), r.json()
    plays = r.json()["analysis"]["plays"]
    assert plays and any(p["cost"] is not None for p in plays)


@pytest.mark.parametrize("kind", ["quinto", "dummy", "quintus"])
def test_replay_steps_name_each_completed_trick_and_its_winner(kind: str) -> None:
    """The step of a trick's last card has ``completed_trick``: its cards, winner, points.

    The cards are the trick's plays in order; the winner leads the next trick and his
    side's (Quintus: his) count of tricks (cards taken) grows; Quinto's points are the
    quints of the trick's cards. One step per trick played has it; the usual fields stay.
    """
    import random

    from quintet.cards import parse_card
    from quintet.quinto import QuintoMatch, QuintoRules, quint_points
    from quintet.quintus import QuintusMatch, QuintusRules
    from quintet.record import record_from_match
    from quintet.server.replay import replay_steps

    match: Any
    if kind == "quintus":
        match = QuintusMatch(QuintusRules(hands=2))
    else:
        variant = "dummy" if kind == "dummy" else "partnership"
        match = QuintoMatch(
            QuintoRules(target=100, variant=variant), lone_seat=1 if kind == "dummy" else None
        )
    rng = random.Random(7)
    while not match.is_over():
        state = match.start_hand(rng=random.Random(rng.randrange(1 << 30)))
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
    data = replay_steps(record_from_match(match))
    n = 5 if kind == "quintus" else 4
    fields = {"number", "actions", "phase", "dealer", "turn", "hands", "hand_sizes", "trick"}
    completed = 0
    for hand in data["hands"]:
        steps = hand["steps"]
        plays: list[JSON] = []
        for k, st in enumerate(steps):
            assert fields <= st.keys()
            a = st.get("action")
            if a is not None and a["type"] == "play":
                plays.append({"seat": a["seat"], "card": a["card"]})
            done = st.get("completed_trick")
            if done is None:
                continue
            completed += 1
            assert a is not None and a["type"] == "play"
            assert done["cards"] == plays[-n:] == [*steps[k - 1]["trick"], plays[-1]]
            w = done["winner"]
            assert w in [c["seat"] for c in done["cards"]]
            lead = next(
                (s["action"] for s in steps[k + 1 :] if s["action"]["type"] == "play"), None
            )
            if lead is not None:
                assert lead["seat"] == w
            before, after = steps[k - 1], st
            if kind == "quintus":
                assert after["taken"][w] == before["taken"][w] + 5
                assert done["points"] == 0
            else:
                # The side's tricks grow (by two when it takes the cachette too).
                assert after["tricks_won"][w % 2] > before["tricks_won"][w % 2]
                assert after["tricks_won"][1 - w % 2] == before["tricks_won"][1 - w % 2]
                mask = 0
                for c in done["cards"]:
                    mask |= 1 << parse_card(c["card"])
                assert done["points"] == quint_points(mask)
        assert sum("completed_trick" in st for st in steps) == steps[-1]["tricks_played"]
    assert completed >= 8


def test_an_external_bot_command_needs_the_operators_permission(
    client: TestClient, tmp_path: Path
) -> None:
    from quintet.bots import _COMMANDS

    level = "cmd:sh examples/first-legal.sh"
    body = {"game": "quinto", "seats": ["open", "open", "open", level]}
    r = client.post("/api/tables", json=body)
    assert r.status_code == 422 and r.json()["error"]["field"] == "seats[3]"
    # What `quintet serve --bot-command "sh examples/first-legal.sh"` does.
    settings = Settings(
        db_url=f"sqlite:///{tmp_path / 'cmd.db'}", bot_commands=("sh examples/first-legal.sh",)
    )
    try:
        with TestClient(create_app(settings)) as allowed:
            assert level in allowed.get("/api/info").json()["levels"]
            r = allowed.post("/api/tables", json=body)
            assert r.status_code == 201, r.text
    finally:
        _COMMANDS.discard("sh examples/first-legal.sh")


@pytest.mark.parametrize(
    ("game", "options", "levels"),
    [
        ("quinto", {"target": 40}, ["heuristic", "random", "heuristic", "random"]),
        ("quintus", {"hands": 1}, ["heuristic"] * 5),
    ],
)
def test_one_seed_plays_the_same_game_in_the_browser_and_the_terminal(
    client: TestClient, game: str, options: JSON, levels: list[str]
) -> None:
    """The server's bots (in its workers) deal and decide as a terminal Table does."""
    import time

    from quintet.record import read_record
    from quintet.table import Table

    made = new_table(client, game=game, options=options, seats=levels, seed=7)
    tid = made["id"]
    for _ in range(600):
        if client.get(f"/api/tables/{tid}").json()["status"] == "finished":
            break
        time.sleep(0.05)
    served = read_record(client.get(f"/api/games/{tid}/record").text)
    table = Table.new(game, seats=list(levels), seed=7, options=options)
    while not table.match_over():
        table.run_bots()
        if table.hand_over() and not table.match_over():
            table.deal()
    here = table.record()
    assert [h.actions for h in served.hands] == [h.actions for h in here.hands]
    assert [h.hands for h in served.hands] == [h.hands for h in here.hands]
