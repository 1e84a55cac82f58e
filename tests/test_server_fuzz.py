"""Random JSON at every websocket message type and every HTTP endpoint (hypothesis).

Whatever a client sends, a real ``quintet serve`` answers a 4xx (HTTP) or a protocol
``error`` (websocket), never a 500, a ``server_error`` or a dead connection: after every
random message the connection still answers a ping. Messages and bodies are drawn two
ways: anything at all (random JSON, random fields), and a valid message or body with
one field replaced by something random, which reaches the deeper checks. The values
include the inputs that once crashed the server (lone surrogates, non-ASCII codes,
deep nesting, lists where text belongs). A real server, not an in-process test client:
a lone surrogate only fails where text is encoded for the wire.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.sync.client import ClientConnection, connect

from quintet.server.protocol import CLIENT_TYPES, ERRORS, PROTOCOL_VERSION
from quintet.server.testing import ServerProcess, person_cookie

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

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def dumps(obj: Any) -> str:
    # ensure_ascii keeps lone surrogates as \\ud800 escapes: JSON text a client can send.
    return json.dumps(obj, ensure_ascii=True)


def mutate(draw: st.DrawFn, obj: Any) -> Any:
    """Return ``obj`` with one field (at any depth) replaced by a random value, or dropped."""
    if isinstance(obj, dict) and obj and draw(st.integers(0, 3)):
        key = draw(st.sampled_from(sorted(obj)))
        out = dict(obj)
        if draw(st.integers(0, 5)) == 0:
            del out[key]
        else:
            out[key] = mutate(draw, obj[key])
        return out
    if isinstance(obj, list) and obj and draw(st.integers(0, 3)):
        i = draw(st.integers(0, len(obj) - 1))
        return [*obj[:i], mutate(draw, obj[i]), *obj[i + 1 :]]
    return draw(values)


# --------------------------------------------------------------------- server


class Site:
    """A real server with three tables; a seated player's and a spectator's sockets."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.http = httpx.Client(base_url=server.http, timeout=30)
        body = {"game": "quinto", "seats": ["open", "open", "random", "random"], "seed": 1}
        self.ids = [
            self.http.post("/api/tables", json=body).json()["id"],
            self.http.post("/api/tables", json=body | {"game": "quintus", "seats": None}).json()[
                "id"
            ],
            self.http.post("/api/tables", json=body | {"public": False}).json()["id"],
            "nosuchtable",
        ]
        made = self.http.post("/api/tables", json=body | {"join": {"seat": 0, "name": "A"}})
        self.token = made.json()["token"]
        self.invites = [s["invite"] for s in made.json()["seats"]]
        self.seated_table = made.json()["id"]
        self.n = 0
        self.stack = ExitStack()
        self.conns: list[ClientConnection] = []
        self.sent = [0, 0]
        self.reconnect(0)
        self.reconnect(1)

    def reconnect(self, i: int) -> None:
        """Open socket ``i`` afresh: 0 is the seated player, 1 a spectator."""
        cookie = person_cookie(self.server.http)
        ws = self.stack.enter_context(
            connect(
                self.server.ws,
                additional_headers={"Cookie": f"quintet_person={cookie}"},
                open_timeout=30,
            )
        )
        hello: JSON = {"type": "hello", "table": self.seated_table if i == 0 else self.ids[0]}
        if i == 0:
            hello["token"] = self.token
        ws.send(json.dumps(hello))
        # Read the hello's answers (a seat left by a fuzzed `leave` answers bad_token), so
        # that they are not taken for the next message's.
        ws.send(json.dumps({"type": "ping", "id": "reconnected"}))
        while json.loads(ws.recv(timeout=30)).get("ref") != "reconnected":
            pass
        if i < len(self.conns):
            self.conns[i].close()
            self.conns[i] = ws
        else:
            self.conns.append(ws)
        self.sent[i] = 0

    def close(self) -> None:
        self.stack.close()
        self.http.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    d: Path = tmp_path_factory.mktemp("fuzz")
    server = ServerProcess(f"sqlite:///{d / 'f.db'}", log_path=str(d / "server.log"))
    with server:
        s = Site(server)
        try:
            yield s
        finally:
            s.close()
    log = (d / "server.log").read_text()
    assert "Traceback" not in log and "server_error" not in log, log[-3000:]


ANSWERS = {"error", "state", "update", "welcome", "joined", "left", "hint", "pong"}


def alive_after(site: Site, i: int, text: str) -> list[JSON]:
    """Send ``text`` on socket ``i``, then a ping: the pong comes, no server error before;
    return the error messages that came before the pong."""
    if site.sent[i] > 150:  # stay under the connection's burst of 200 messages
        site.reconnect(i)
    ws = site.conns[i]
    site.n += 1
    site.sent[i] += 2
    ws.send(text)
    ws.send(json.dumps({"type": "ping", "id": f"p{site.n}"}))
    errors = []
    while True:
        m = json.loads(ws.recv(timeout=30))
        assert m["type"] in ANSWERS, m
        if m["type"] == "error":
            assert m["code"] in ERRORS and m["code"] != "server_error", (text, m)
            errors.append(m)
        if m == {"type": "pong", "ref": f"p{site.n}", "t": None}:
            return errors


# ------------------------------------------------------------------ websocket


@st.composite
def random_messages(draw: st.DrawFn, table_ids: list[str]) -> Any:
    """Anything: mostly an object with a type and random fields."""
    if draw(st.integers(0, 9)) == 0:
        return draw(values)  # not even an object
    msg: JSON = {"type": draw(kinds)}
    for name in draw(st.lists(st.sampled_from(FIELDS) | texts, max_size=5, unique=True)):
        if name == "table" and draw(st.booleans()):
            msg[name] = draw(st.sampled_from(table_ids))
        else:
            msg[name] = draw(values)
    return msg


@st.composite
def near_messages(draw: st.DrawFn, site: Site) -> Any:
    """A valid message of each type with one field made random."""
    valid: list[JSON] = [
        {"type": "hello", "v": PROTOCOL_VERSION, "table": site.ids[0], "id": 1},
        {"type": "hello", "table": site.ids[2], "key": "abc", "invite": site.invites[1]},
        {"type": "join", "seat": 1, "name": "Bea", "invite": site.invites[1]},
        {"type": "leave", "id": "x"},
        {"type": "replace", "seat": 1, "level": "heuristic"},
        {"type": "act", "action": {"type": "play", "card": "AS", "seat": 0}, "expect": 3},
        {"type": "act", "action": "pass"},
        {"type": "hint"},
        {"type": "next"},
        {"type": "ping", "id": 7, "t": 1.5},
        {"type": "state", "id": 8},
    ]
    return mutate(draw, draw(st.sampled_from(valid)))


@SETTINGS
@given(data=st.data())
def test_random_messages_never_make_a_server_error_or_kill_the_connection(
    site: Site, data: st.DataObject
) -> None:
    msg = data.draw(random_messages(site.ids))
    for i in (0, 1):
        alive_after(site, i, dumps(msg))


@SETTINGS
@given(data=st.data())
def test_valid_messages_with_one_bad_field_get_a_protocol_error(
    site: Site, data: st.DataObject
) -> None:
    from quintet.server.messages import parse_message
    from quintet.server.protocol import ProtocolError

    msg = data.draw(near_messages(site))
    text = dumps(msg)
    try:
        parse_message(text)
        refused = None  # the mutation left it a valid message (its handler may refuse it)
    except ProtocolError as e:
        refused = e.code
    for i in (0, 1):
        errors = alive_after(site, i, text)
        if refused is not None:  # the server's own check refuses it, by the same code
            assert refused in [e["code"] for e in errors], (msg, errors)


@settings(max_examples=60, deadline=None)
@given(
    raw=st.binary(max_size=64) | st.text(max_size=64).map(lambda s: s.encode("utf-8", "replace"))
)
def test_random_text_frames_get_a_protocol_error(site: Site, raw: bytes) -> None:
    errors = alive_after(site, 1, raw.decode("utf-8", "replace"))
    assert len(errors) == 1, (raw, errors)  # each frame answered by one protocol error


# ----------------------------------------------------------------------- HTTP


def check_http(r: httpx.Response) -> None:
    assert r.status_code < 500, (r.status_code, r.text)
    if r.status_code >= 400:
        err = r.json()["error"]
        assert err["code"] and err["message"], err


VALID_BODY: JSON = {
    "game": "quinto",
    "variant": "dummy",
    "options": {"target": 100, "rubber_bonus": 50, "dummy_double_view": "own"},
    "lone_seat": 0,
    "seed": 3,
    "public": False,
    "title": "friday",
    "seats": ["open", {"kind": "bot", "level": "random"}, "open", "heuristic"],
    "join": {"seat": 0, "name": "Ann"},
}


@st.composite
def bodies(draw: st.DrawFn) -> Any:
    if draw(st.booleans()):
        return mutate(draw, VALID_BODY)
    keys = st.sampled_from(sorted(VALID_BODY))
    return draw(values | st.dictionaries(keys, values, max_size=6))


@SETTINGS
@given(
    body=bodies(),
    ctype=st.sampled_from(["application/json", "text/plain", "application/json; charset=utf-8"]),
)
def test_random_table_bodies_are_a_4xx_or_a_table(site: Site, body: Any, ctype: str) -> None:
    r = site.http.post("/api/tables", content=dumps(body), headers={"content-type": ctype})
    check_http(r)


@SETTINGS
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
    site: Site, path: str, ident: str, query: JSON, token: str | None
) -> None:
    headers = {}
    if token and token.isascii() and token.isprintable() and token.strip() == token:
        headers["x-seat-token"] = token
    safe = {
        k.encode("utf-8", "replace").decode(): v.encode("utf-8", "replace").decode()
        for k, v in query.items()
    }
    for tid in (quote(ident.encode("utf-8", "replace"), safe="") or "x", site.ids[0]):
        check_http(site.http.get(path.format(tid), params=safe, headers=headers))
        if path.endswith("analysis"):
            check_http(site.http.post(path.format(tid), params=safe, json={}, headers=headers))
    for listing in ("/api/tables", "/api/games"):
        check_http(site.http.get(listing, params=safe))
