"""Helpers shared by the server's tests and its load benchmark.

:class:`ServerProcess` runs ``quintet serve`` in a subprocess on a free port (and can
kill it with SIGKILL); :class:`SeatClient` is a scripted websocket client that keeps the
latest state and every message it received, and can play random legal actions.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import httpx
import websockets
from websockets.asyncio.client import ClientConnection

from quintet.botproto.cpu import proc_stat as _stat
from quintet.server.protocol import PROTOCOL_VERSION

JSON = dict[str, Any]


def bare_table_row(table_id: str, status: str = "waiting", hands_dealt: int = 0) -> Any:
    """Return a Quinto table's database row, its four seats open and no actions (for
    tests and benchmarks of the store)."""
    from quintet.server import db

    return db.TableRow(
        id=table_id,
        game="quinto",
        variant="partnership",
        options={},
        lone_seat=None,
        seed=1,
        public=True,
        title="",
        status=status,
        hands_dealt=hands_dealt,
        created_at=db.now(),
        finished_at=None,
        result=None,
        seats=[db.SeatRow(s, "open", None, None, None, f"{table_id}-{s}") for s in range(4)],
        actions=[],
    )


def free_port() -> int:
    """Return a TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerProcess:
    """``quintet serve`` in a subprocess (tests and benchmarks)."""

    def __init__(
        self,
        db_url: str,
        port: int | None = None,
        bot_delay: float = 0.0,
        extra: list[str] | None = None,
        log_path: str | None = None,
        python: list[str] | None = None,
    ) -> None:
        self.db_url = db_url
        #: The command that runs Python (default: this interpreter; a profiler, say).
        self.python = python or [sys.executable]
        self.port = port or free_port()
        self.bot_delay = bot_delay
        self.extra = extra or []
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: Any = None

    @property
    def http(self) -> str:
        """The base URL."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        """The websocket URL."""
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self, timeout: float = 30.0) -> ServerProcess:
        """Start the server and wait until it answers."""
        cmd = [
            *self.python,
            "-m",
            "quintet.cli",
            "serve",
            "--port",
            str(self.port),
            "--db",
            self.db_url,
            "--bot-delay",
            str(self.bot_delay),
            "--allow-seed",
            "--echo",
            # Tests and benchmarks create many tables from one address.
            "--create-rate",
            "100000",
            "--tables-per-client",
            "100000",
            "--max-tables",
            "100000",
            "--max-connections",
            "100000",
            "--analysis-nodes",
            "2000000",
            "--no-access-log",
            "--log-level",
            "warning",
            *self.extra,
        ]
        self._log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=self._log, env=env)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with status {self.proc.returncode}")
            try:
                if httpx.get(self.http + "/api/info", timeout=1.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("the server did not start in time")

    def kill(self) -> None:
        """Kill the server with SIGKILL (nothing is flushed or closed)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self._close_log()

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL if it hangs)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._close_log()

    def _close_log(self) -> None:
        if self._log not in (None, subprocess.DEVNULL):
            self._log.close()
        self._log = None

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def person_cookie(base: str) -> str:
    """Return a new person cookie from the server at ``base`` (a browser's identity)."""
    r = httpx.get(base + "/api/info", timeout=30)
    cookie = r.cookies.get("quintet_person")
    assert cookie, "the server sets no person cookie"
    return str(cookie)


def http_of(ws_url: str) -> str:
    """Return the HTTP base URL of a websocket URL."""
    base = ws_url.replace("wss://", "https://").replace("ws://", "http://")
    return base.rsplit("/ws", 1)[0]


def create_table(base: str, body: JSON, cookie: str | None = None) -> JSON:
    """POST a table (as the person of ``cookie``, else a new one) and return the answer.

    Raises:
        AssertionError: the server refused it.
    """
    cookies = {"quintet_person": cookie} if cookie else None
    r = httpx.post(base + "/api/tables", json=body, timeout=30, cookies=cookies)
    assert r.status_code == 201, r.text
    out: JSON = r.json()
    return out


def is_signal(action: JSON) -> bool:
    """Whether a legal action object is a Quintus signal."""
    return bool(action.get("type") == "signal")


class SeatClient:
    """A scripted websocket client at one table (a seat, or a spectator).

    It keeps every message received (``messages``), the latest state and a token to
    reconnect with. It is one person: the ``cookie`` given, or a new one from the
    server at ``connect``. ``play()`` answers every state where it may act with a legal action
    chosen by ``choose`` and says ``next`` after each hand, until the match is over.
    """

    def __init__(
        self,
        url: str,
        table: str,
        seat: int | None = None,
        token: str | None = None,
        rng: random.Random | None = None,
        choose: Callable[[SeatClient, JSON], JSON | None] | None = None,
        keep: bool = True,
        cookie: str | None = None,
    ) -> None:
        self.url = url
        self.cookie = cookie
        self.table = table
        self.seat = seat
        self.token = token
        self.rng = rng or random.Random(0)
        self.choose = choose or random_choice
        self.keep = keep
        self.messages: list[JSON] = []
        self.raw: list[str] = []
        #: The table as the messages so far make it (updates applied to the last state).
        self.state: JSON | None = None
        #: ``state`` after each state or update message (when ``keep``).
        self.states: list[JSON] = []
        self.ws: ClientConnection | None = None
        self.errors: list[JSON] = []
        self.acted = 0
        self.finished = asyncio.Event()
        self._next_sent: int | None = None

    async def connect(self) -> None:
        """Open the websocket and say hello (with the seat token if any)."""
        if self.cookie is None:
            self.cookie = await asyncio.to_thread(person_cookie, http_of(self.url))
        self.ws = await websockets.connect(
            self.url,
            max_size=2**22,
            open_timeout=30,
            compression=None,
            additional_headers={"Cookie": f"quintet_person={self.cookie}"},
        )
        hello: JSON = {"type": "hello", "v": PROTOCOL_VERSION, "table": self.table}
        if self.token:
            hello["token"] = self.token
        await self.ws.send(json.dumps(hello))

    async def join(self, seat: int, name: str, invite: str | None = None) -> None:
        """Take a seat (after ``connect``); wait for the token."""
        assert self.ws is not None
        msg: JSON = {"type": "join", "seat": seat, "name": name}
        if invite:
            msg["invite"] = invite
        await self.ws.send(json.dumps(msg))
        while True:
            m = await self.recv()
            if m["type"] == "joined":
                self.seat = m["seat"]
                self.token = m["token"]
                return
            if m["type"] == "error":
                raise AssertionError(f"join refused: {m}")

    async def recv(self) -> JSON:
        """Return the next message (kept, and the state tracked)."""
        assert self.ws is not None
        raw = await self.ws.recv()
        if isinstance(raw, bytes):
            raw = raw.decode()
        m: JSON = json.loads(raw)
        if self.keep:
            self.messages.append(m)
            self.raw.append(raw)
        if m["type"] in ("state", "update"):
            self.state = apply_update(self.state, m)
            if self.keep:
                self.states.append(self.state)
            if self.state["status"] == "finished":
                self.finished.set()
        elif m["type"] == "welcome":
            self.seat = m["seat"]
        elif m["type"] == "error":
            self.errors.append(m)
        return m

    def messages_of_table(self) -> list[JSON]:
        """Return the state and update messages received (one per entry of ``states``)."""
        return [m for m in self.messages if m["type"] in ("state", "update")]

    async def send(self, msg: JSON) -> None:
        """Send one message."""
        assert self.ws is not None
        await self.ws.send(json.dumps(msg))

    async def play(self, stop_on_finish: bool = True) -> None:
        """Play until the match is over (or the connection closes)."""
        assert self.ws is not None
        try:
            while True:
                got = await self.recv()
                if got["type"] not in ("state", "update"):
                    continue
                m = self.state  # the whole table after it
                assert m is not None
                if m["status"] == "finished":
                    if stop_on_finish:
                        return
                    continue
                if self.seat is None:
                    continue
                if m["status"] == "hand_over":
                    number = m["hand"]["number"]
                    if self._next_sent != number:
                        self._next_sent = number
                        await self.send({"type": "next"})
                    continue
                if m["status"] == "playing" and m["legal"]:
                    action = self.choose(self, m)
                    if action is not None:
                        self.acted += 1
                        await self.send({"type": "act", "action": action, "expect": m["seq"]})
        except websockets.ConnectionClosed:
            return

    async def close(self) -> None:
        """Close the websocket."""
        if self.ws is not None:
            await self.ws.close()


def apply_update(state: JSON | None, msg: JSON) -> JSON:
    """Return the table after a ``state`` or ``update`` message, as a client keeps it.

    A ``state`` is the whole table; an ``update`` holds what changed: its ``hand``
    fields replace those of the hand (a null hand: no hand), its ``log`` continues the
    hand's log at ``from`` (0: a new log), every other field replaces the table's. The
    result has the shape of a ``state`` message, its ``log`` whole (``from`` 0): what
    a ``state`` sent at the same moment holds (tests compare the two).

    Raises:
        AssertionError: an update without a state before it, or a log with a gap.
    """
    if msg["type"] == "state":
        return dict(msg)
    assert msg["type"] == "update", msg
    assert state is not None, f"an update before any state: {msg}"
    out = dict(state)
    for key, value in msg.items():
        if key == "type":
            continue
        if key == "hand" and value is not None:
            out["hand"] = {**(state.get("hand") or {}), **value}
        elif key == "log" and value is not None:
            old = state.get("log")
            events = old["events"] if old is not None and old["hand"] == value["hand"] else []
            assert value["from"] <= len(events), f"a gap in the log: {value['from']} {events}"
            events = events[: value["from"]] + value["events"]
            out["log"] = {"hand": value["hand"], "from": 0, "events": events}
        else:
            out[key] = value
    return out


_FOLLOWED: dict[int, JSON] = {}


def follow(conn: object, msg: JSON) -> JSON:
    """Return a message as a client of the old whole-state kind would see it (tests).

    For a ``state`` or ``update`` received on ``conn`` (any object naming the
    connection), the table after it (:func:`apply_update`: shaped as a ``state``
    message); any other message as it is.
    """
    if msg["type"] not in ("state", "update"):
        return msg
    table = apply_update(_FOLLOWED.get(id(conn)), msg)
    _FOLLOWED[id(conn)] = table
    return table


def random_choice(client: SeatClient, state: JSON) -> JSON | None:
    """Return a random legal action (on its turn always; a Quintus signal now and then)."""
    legal: list[JSON] = state["legal"]
    turn = state["hand"]["turn"]
    mine = [a for a in legal if a["seat"] == turn and not is_signal(a)]
    signals = [a for a in legal if is_signal(a)]
    if mine:
        if signals and client.rng.random() < 0.05:
            return client.rng.choice(signals)
        return client.rng.choice(mine)
    if signals and client.rng.random() < 0.3:
        return client.rng.choice(signals)
    return None


def first_choice(client: SeatClient, state: JSON) -> JSON | None:
    """Return the first legal action of the seat to act (a deterministic script)."""
    turn = state["hand"]["turn"]
    for a in state["legal"]:
        if a["seat"] == turn and not is_signal(a):
            found: JSON = a
            return found
    return None


# ------------------------------------------------------------ process trees (Linux)


def descendants(pid: int) -> set[int]:
    """Return the pids of every process below ``pid`` now (children, theirs, ...)."""
    out: set[int] = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(entry)
            if fields is not None and int(fields[1]) == pid:
                out.add(int(entry))
    for child in list(out):
        out |= descendants(child)
    return out


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie or a dead process does not)."""
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def cpu_seconds(pid: int) -> float:
    """Return the CPU seconds ``pid`` has used (user and system), 0 if it is gone."""
    fields = _stat(pid)
    if fields is None:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
