"""Random JSON at every websocket message type and every HTTP endpoint (hypothesis).

Whatever a client sends, the server answers a 4xx (HTTP) or a protocol ``error``
(websocket), never a 500, a ``server_error`` or a dead connection: after every random
message the connection still answers a ping. The values mix the fields the messages
really have with random ones, and include the inputs that once crashed the server
(lone surrogates, non-ASCII codes, deep nesting, lists where text belongs).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import WebSocketTestSession

from quintet.server import Settings, create_app
from quintet.server.protocol import CLIENT_TYPES, ERRORS
from quintet.server.security import new_cookie

JSON = dict[str, Any]

NASTY = [
    "\ud800",
    "x\udfffy",
    "éééé",
    "",
    " ",
    "x" * 70,
    "open",
    "bot",
    "heuristic",
    "pimc",
    "pimc:seconds=20",
    "ismcts:iterations=1000000000000",
    "pimc:tt_bits=60",
    "cmd:sh -c reboot",
    "quinto",
    "quintus",
    "dummy",
    "bidding",
    "AS",
    "QH",
    "JK",
    "pass",
    "double",
    "bid 40",
    "trump NT",
    "signal up",
    "\x00",
    "<script>",
]
FIELDS = [
    "id",
    "type",
    "table",
    "token",
    "v",
    "key",
    "invite",
    "seat",
    "name",
    "level",
    "action",
    "expect",
    "t",
    "card",
    "amount",
    "suit",
    "kind",
]

texts = st.text(max_size=12) | st.sampled_from(NASTY)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.integers(min_value=-2, max_value=6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(FIELDS) | texts, inner, max_size=4)
    ),
    max_leaves=12,
)
kinds = st.sampled_from(CLIENT_TYPES) | texts


@st.composite
def messages(draw: st.DrawFn, table_ids: list[str]) -> Any:
    """A random client message: mostly an object with a type and some fields."""
    if draw(st.integers(0, 9)) == 0:
        return draw(values)  # not even an object
    msg: JSON = {"type": draw(kinds)}
    for name in draw(st.lists(st.sampled_from(FIELDS) | texts, max_size=5, unique=True)):
        if name == "table" and draw(st.booleans()):
            msg[name] = draw(st.sampled_from(table_ids))
        else:
            msg[name] = draw(values)
    return msg


def dumps(obj: Any) -> str:
    # ensure_ascii keeps lone surrogates as \\ud800 escapes: JSON text a client can send.
    return json.dumps(obj, ensure_ascii=True)


@pytest.fixture(scope="module")
def app_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    d: Path = tmp_path_factory.mktemp("fuzz")
    s = Settings(
        db_url=f"sqlite:///{d / 'f.db'}",
        bot_delay=0.0,
        allow_seed=True,
        rate=1e9,
        burst=1e9,
        create_rate=1e9,
        create_burst=1e9,
        max_tables_per_client=10**9,
    )
    with TestClient(create_app(s)) as c:
        yield c


class Table:
    """Two public tables and a private one; a seated player and a spectator."""

    def __init__(self, client: TestClient, stack: ExitStack) -> None:
        body = {"game": "quinto", "seats": ["open", "open", "random", "random"], "seed": 1}
        self.ids = [
            client.post("/api/tables", json=body).json()["id"],
            client.post("/api/tables", json=body | {"game": "quintus", "seats": None}).json()["id"],
            client.post("/api/tables", json=body | {"public": False}).json()["id"],
            "nosuchtable",
        ]
        self.conns: list[WebSocketTestSession] = []
        for seat in (0, None):
            headers = {"cookie": f"quintet_person={new_cookie()}"}
            ws = stack.enter_context(client.websocket_connect("/ws", headers=headers))
            ws.send_text(json.dumps({"type": "hello", "table": self.ids[0]}))
            if seat is not None:
                ws.send_text(json.dumps({"type": "join", "seat": seat, "name": "Fuzz"}))
            self.conns.append(ws)
        self.n = 0


@pytest.fixture(scope="module")
def table(app_client: TestClient) -> Iterator[Table]:
    with ExitStack() as stack:
        yield Table(app_client, stack)


ANSWERS = {"error", "state", "welcome", "joined", "left", "hint", "pong"}


def alive_after(ws: WebSocketTestSession, t: Table, text: str) -> None:
    """Send ``text``, then a ping; every answer is a known message and no server error."""
    t.n += 1
    ws.send_text(text)
    ws.send_text(json.dumps({"type": "ping", "id": f"p{t.n}"}))
    while True:
        m = ws.receive_json()
        assert m["type"] in ANSWERS, m
        if m["type"] == "error":
            assert m["code"] in ERRORS and m["code"] != "server_error", (text, m)
        if m == {"type": "pong", "ref": f"p{t.n}", "t": None}:
            return


@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_random_messages_never_make_a_server_error_or_kill_the_connection(
    table: Table, data: st.DataObject
) -> None:
    msg = data.draw(messages(table.ids))
    for ws in table.conns:
        alive_after(ws, table, dumps(msg))


@settings(max_examples=60, deadline=None)
@given(
    raw=st.binary(max_size=64) | st.text(max_size=64).map(lambda s: s.encode("utf-8", "replace"))
)
def test_random_text_frames_get_a_protocol_error(table: Table, raw: bytes) -> None:
    text = raw.decode("utf-8", "replace")
    alive_after(table.conns[1], table, text)


def check_http(r: Any) -> None:
    assert r.status_code < 500, (r.status_code, r.text)
    if r.status_code >= 400:
        err = r.json()["error"]
        assert err["code"] and err["message"], err


@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    body=values
    | st.dictionaries(
        st.sampled_from(
            ["game", "variant", "options", "lone_seat", "seed", "public", "title", "seats", "join"]
        ),
        values,
        max_size=6,
    ),
    ctype=st.sampled_from(["application/json", "text/plain", "application/json; charset=utf-8"]),
)
def test_random_table_bodies_are_a_4xx_or_a_table(
    app_client: TestClient, body: Any, ctype: str
) -> None:
    r = app_client.post("/api/tables", content=dumps(body), headers={"content-type": ctype})
    check_http(r)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    path=st.sampled_from(
        [
            "/api/tables/{}",
            "/api/tables/{}/invites",
            "/api/games/{}/record",
            "/api/games/{}/replay",
            "/api/games/{}/analysis",
            "/table/{}",
            "/replay/{}",
        ]
    ),
    ident=st.text(max_size=40) | st.sampled_from(["nosuchtable", "..", "%00", "a" * 200]),
    query=st.dictionaries(
        st.sampled_from(["key", "invite", "limit", "offset"]) | texts, texts, max_size=3
    ),
    token=st.none() | texts,
)
def test_random_paths_queries_and_headers_are_a_4xx_or_an_answer(
    app_client: TestClient, table: Table, path: str, ident: str, query: JSON, token: str | None
) -> None:
    headers = {}
    if token is not None and token.isascii() and token.isprintable():
        headers["x-seat-token"] = token
    safe = {k: v.encode("utf-8", "replace").decode() for k, v in query.items()}
    safe = {k.encode("utf-8", "replace").decode(): v for k, v in safe.items()}
    for tid in (quote(ident.encode("utf-8", "replace"), safe="") or "x", table.ids[0]):
        check_http(app_client.get(path.format(tid), params=safe, headers=headers))
        if path.endswith("analysis"):
            r = app_client.post(path.format(tid), params=safe, json={}, headers=headers)
            check_http(r)
    for listing in ("/api/tables", "/api/games"):
        check_http(app_client.get(listing, params=safe))
