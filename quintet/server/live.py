"""Tables in play: the server's authority over every table, its seats and connections.

A :class:`LiveTable` holds a :class:`quintet.table.Table` (the match), its seats and the
connections watching it. Every change goes the same way, under the table's lock:
check it against the engine (nothing changes if it is refused), store it (the
:class:`~quintet.server.db.Store` commits before returning), make it in memory, then
send every connection its own ``state`` message. The :class:`Hub` keeps the tables,
resumes the unfinished ones at start by replaying their stored actions, and runs the
bots off the event loop.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import random
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from quintet.actions import (
    MELD_COURT,
    MELD_STRAIGHT,
    Action,
    action_from_json,
    action_str,
    action_to_json,
    parse_action,
)
from quintet.bots import BotView, make_bot
from quintet.cards import parse_card
from quintet.errors import InvalidActionError, InvalidOptionError, QuintetError
from quintet.game import Observation
from quintet.quinto import QuintoMatch
from quintet.record import Record, record_from_match, score
from quintet.server import db, views
from quintet.server.db import SeatRow, Store, TableRow
from quintet.server.protocol import (
    PROTOCOL_VERSION,
    ProtocolError,
    clean_name,
    dumps,
    error,
    get_int,
    get_str,
    parse,
    ref_of,
)
from quintet.table import Table

log = logging.getLogger("quintet.server")

JSON = dict[str, Any]
SEARCH_LEVELS = ("pimc", "ismcts")


def _aware(t: datetime) -> datetime:
    """Return ``t`` with its time zone (UTC when the database dropped it)."""
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def hash_token(token: str) -> str:
    """Return the stored form of a seat token (SHA-256, hex)."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Settings:
    """What a server is run with (``quintet serve`` options)."""

    db_url: str = ""
    bot_delay: float = 0.8
    hint_level: str = "heuristic"
    allow_seed: bool = False
    echo: bool = False
    rate: float = 50.0  # messages per second per connection (sustained)
    burst: float = 200.0  # messages a connection may send at once
    outbox_limit: int = 2000  # queued messages before a connection is dropped as too slow


# ----------------------------------------------------------------------- bots


def decide(level: str, state: Any, seat: int, seed: str, kind: str) -> Action | None:
    """Return a bot's action (``kind`` act) or signal (``kind`` signal) for ``seat``.

    Runs on a worker thread or process: ``state`` is the caller's own copy. The bot sees
    only a :class:`~quintet.bots.BotView` (its seat's observation).
    """
    bot = make_bot(level)
    view = BotView.of(state, seat, random.Random(seed))
    if kind == "signal":
        return bot.signal(view)
    return bot.act(view)


# ---------------------------------------------------------------- connections

_CLOSE = object()


class Conn:
    """One websocket connection: its table and seat, its outbox and what it was sent.

    ``send`` never blocks: messages queue in the outbox and a sender task writes them
    in order. The ``sent_*`` fields let each ``state`` message carry only the parts
    (seats, log, sheet) that changed since the last one on this connection.
    """

    _ids = 0

    def __init__(
        self,
        send_text: Callable[[str], Awaitable[None]],
        close: Callable[[int, str], Awaitable[None]],
        settings: Settings,
    ) -> None:
        Conn._ids += 1
        self.id = Conn._ids
        self._send_text = send_text
        self._close = close
        self.settings = settings
        self.table: LiveTable | None = None
        self.seat: int | None = None
        self.outbox: deque[Any] = deque()
        self.wake = asyncio.Event()
        self.closed = False
        self.tokens = settings.burst
        self.refilled = time.monotonic()
        self.reset_cursors()

    def reset_cursors(self) -> None:
        """Forget what was sent: the next state message is complete."""
        self.sent_seats = -1
        self.sent_sheet = -1
        self.sent_hand = -1
        self.sent_events = 0

    def send(self, msg: JSON | str) -> None:
        """Queue a message (a dict or ready JSON text)."""
        if self.closed:
            return
        if len(self.outbox) >= self.settings.outbox_limit:
            log.warning("connection %d is too slow: dropped", self.id)
            self.outbox.clear()
            self.outbox.append(_CLOSE_SLOW)
            self.closed = True
            self.wake.set()
            return
        self.outbox.append(msg if isinstance(msg, str) else dumps(msg))
        self.wake.set()

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Send what is queued, then close the websocket."""
        if not self.closed:
            self.outbox.append((_CLOSE, code, reason))
            self.closed = True
            self.wake.set()

    def allow(self) -> bool:
        """Return whether the rate limit lets one more message through."""
        t = time.monotonic()
        self.tokens = min(
            self.settings.burst, self.tokens + (t - self.refilled) * self.settings.rate
        )
        self.refilled = t
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def sender(self) -> None:
        """Write queued messages in order until the connection closes."""
        try:
            await self._send_all()
        except Exception:  # the client went away: the receive loop cleans up
            self.closed = True

    async def _send_all(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            while self.outbox:
                item = self.outbox.popleft()
                if isinstance(item, str):
                    await self._send_text(item)
                    continue
                if item is _CLOSE_SLOW:
                    await self._close(1008, "too slow")
                    return
                _, code, reason = item
                await self._close(code, reason)
                return


_CLOSE_SLOW = object()


# ---------------------------------------------------------------------- tables


class LiveTable:
    """A table in memory: the match, the seats, the connections and the bots' task."""

    def __init__(self, hub: Hub, row: TableRow) -> None:
        self.hub = hub
        self.id = row.id
        self.game = row.game
        self.variant = row.variant
        self.options = row.options
        self.lone_seat = row.lone_seat
        self.seed = row.seed
        self.public = row.public
        self.title = row.title
        self.status = row.status
        # SQLite gives back naive datetimes (UTC): make them aware like new tables' so
        # the lobby can sort resumed and new tables together.
        self.created_at = _aware(row.created_at)
        self.finished_at = None if row.finished_at is None else _aware(row.finished_at)
        self.result: Any = row.result
        self.seats: list[SeatRow] = sorted(row.seats, key=lambda s: s.seat)
        self.table = Table.new(
            row.game,
            row.variant,
            seats=[None] * len(self.seats),
            seed=row.seed,
            options=row.options,
            lone_seat=row.lone_seat,
            deal=False,
        )
        self.seq = 0
        self._replay(row)
        self.conns: set[Conn] = set()
        self.seat_conn: dict[int, Conn] = {}
        self.ready: set[int] = set()
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.changed_at = 0.0
        self.seats_version = 0
        self.bot_task: asyncio.Task[None] | None = None
        self._signal_asked: set[tuple[int, int]] = set()
        self._cache_seq = -1
        self._obs: dict[int, Observation] = {}
        self._log: list[str] = []
        self._last_trick = "null"
        self._log_key: tuple[int, int] | None = None
        self._enc: dict[str, tuple[Any, str]] = {}
        self._summary: JSON | None = None
        self._spectator_hands: list[Any] | None = None
        self._sheet_rows: list[JSON] = []
        self._sheet_key: Any = None
        self._sheet: JSON | None = None
        self.sheet_version = 0

    # ------------------------------------------------------------- resuming

    def _replay(self, row: TableRow) -> None:
        """Rebuild the match from the stored deals count and actions."""
        by_hand: dict[int, list[tuple[int, int]]] = {}
        for hand, seat, a in row.actions:
            by_hand.setdefault(hand, []).append((seat, a))
        for h in range(row.hands_dealt):
            state = self.table.deal()
            self.seq += 1
            for seat, a in by_hand.get(h, []):
                state.act(a, seat)
                self.seq += 1

    # ---------------------------------------------------------------- facts

    @property
    def num_seats(self) -> int:
        """4 or 5."""
        return len(self.seats)

    @property
    def dummy_seat(self) -> int | None:
        """The dummy's seat in Quinto's dummy variant."""
        return None if self.lone_seat is None else (self.lone_seat + 2) % 4

    def controls(self, seat: int | None) -> tuple[int, ...]:
        """Return the seats the player at ``seat`` decides for."""
        if seat is None:
            return ()
        if seat == self.lone_seat and self.dummy_seat is not None:
            return (seat, self.dummy_seat)
        return (seat,)

    def controller(self, seat: int) -> int:
        """Return the seat of the player deciding for ``seat``."""
        if seat == self.dummy_seat and self.lone_seat is not None:
            return self.lone_seat
        return seat

    def match_over(self) -> bool:
        """Whether the match is decided."""
        return self.table.match_over()

    def status_name(self) -> str:
        """``waiting``, ``playing``, ``hand_over`` or ``finished``."""
        if self.status == "finished":
            return "finished"
        st = self.table.state
        if st is None:
            return "waiting"
        return "hand_over" if st.is_terminal() else "playing"

    def people(self) -> list[int]:
        """Return the seats held by people (connected or not)."""
        return [s.seat for s in self.seats if s.kind == "person"]

    def connected(self, seat: int) -> bool:
        """Whether the person at ``seat`` has a live connection."""
        return seat in self.seat_conn

    def seats_json(self) -> list[JSON]:
        """Return the seats as the protocol shows them (never a token or invite)."""
        out = []
        for s in self.seats:
            out.append(
                {
                    "seat": s.seat,
                    "label": views.seat_label(self.game, s.seat),
                    "kind": s.kind,
                    "name": s.name,
                    "level": s.level,
                    "connected": s.kind == "bot" or self.connected(s.seat),
                    "controller": self.controller(s.seat),
                }
            )
        return out

    def config_json(self) -> JSON:
        """Return the table's configuration (public; never the seed)."""
        return {
            "id": self.id,
            "title": self.title,
            "game": self.game,
            "variant": self.variant,
            "options": self.table.match.rules.options(),
            "lone_seat": self.lone_seat,
            "dummy_seat": self.dummy_seat,
            "num_seats": self.num_seats,
            "public": self.public,
        }

    def lobby_json(self) -> JSON:
        """Return the lobby's line for this table."""
        return {
            **self.config_json(),
            "status": self.status_name(),
            "seats": self.seats_json(),
            "open_seats": [s.seat for s in self.seats if s.kind == "open"],
            "hands_dealt": len(self.table.match.hands),
            "spectators": sum(1 for c in self.conns if c.seat is None),
            "created_at": self.created_at.isoformat(),
        }

    # ------------------------------------------------------------- messages

    def _refresh(self) -> None:
        if self._cache_seq != self.seq:
            self._cache_seq = self.seq
            self._obs = {}
            self._summary = None
            self._spectator_hands = None

    def observation(self, seat: int) -> Observation:
        """Return ``seat``'s observation now (cached until the next change)."""
        self._refresh()
        obs = self._obs.get(seat)
        if obs is None:
            obs = self.table.state.observation(seat)
            self._obs[seat] = obs
        return obs

    def _players(self) -> list[int]:
        return [s for s in range(self.num_seats) if s != self.dummy_seat]

    def spectator_hands(self) -> list[Any]:
        """Return the hands every player's observation shows (None for the others)."""
        self._refresh()
        if self._spectator_hands is None:
            self._spectator_hands = views.public_hands(
                [self.observation(s) for s in self._players()]
            )
        return self._spectator_hands

    def public_log(self) -> tuple[list[str], str]:
        """Return the hand's public events and last trick, encoded.

        Most actions add one event (the action itself): it is appended; when a trick,
        a meld or the hand ends, the log is rebuilt from the engine's events.
        """
        number = len(self.table.match.hands) - 1
        if self._log_key != (number, self.seq):
            events, last = views.public_log(self.table.state)
            self._log = [dumps(e) for e in events]
            self._last_trick = dumps(last)
            self._log_key = (number, self.seq)
        return self._log, self._last_trick

    def _log_action(self, before: Any, after: Any, seat: int, a: Action) -> None:
        """Append an action's event to the cached log when it adds nothing else."""
        number = len(self.table.match.hands) - 1
        if (
            self._log_key == (number, self.seq - 1)
            and after.tricks_played == before.tricks_played
            and not after.is_terminal()
            and a not in (MELD_COURT, MELD_STRAIGHT)
        ):
            label = views.seat_label(self.game, seat)
            ev = {
                "kind": "action",
                "seat": seat,
                "text": f"{label}: {action_str(a)}",
                "action": action_to_json(a, seat),
            }
            self._log.append(dumps(ev))
            self._log_key = (number, self.seq)

    def summary(self) -> JSON | None:
        """Return the end-of-hand summary once the hand is over, else None."""
        st = self.table.state
        if st is None or not st.is_terminal():
            return None
        self._refresh()
        if self._summary is None:
            self._summary = views.hand_result(st)
        return self._summary

    def sheet(self) -> JSON:
        """Return the score sheet (rebuilt when a trick or hand ends)."""
        match = self.table.match
        st: Any = match.state
        key = (
            len(match.hands),
            None
            if st is None
            else (st.tricks_played, st.is_terminal(), getattr(st, "multiplier", 0)),
            self.status,
        )
        if key != self._sheet_key or self._sheet is None:
            self._sheet_key = key
            if isinstance(match, QuintoMatch):
                self._sheet = views.quinto_sheet(match, self._sheet_rows)
            else:
                self._sheet = views.quintus_ledger(match)
            self.sheet_version += 1
        return self._sheet

    def state_message(self, conn: Conn) -> str:
        """Return the ``state`` message for ``conn``, built from its seat's observation.

        The parts every recipient shares (seats, log, last trick, summary, sheet) are
        encoded once per change; the hand and legal actions once per recipient.
        """
        st = self.table.state
        seat = conn.seat
        you = {
            "seat": seat,
            "role": "spectator" if seat is None else "player",
            "controls": list(self.controls(seat)),
        }
        parts = [
            f'{{"type":"state","v":{PROTOCOL_VERSION},"table":{dumps(self.id)},'
            f'"seq":{self.seq},"status":"{self.status_name()}","you":{dumps(you)},'
            f'"ready":{dumps(sorted(self.ready))}'
        ]
        if conn.sent_seats != self.seats_version:
            conn.sent_seats = self.seats_version
            parts.append(',"seats":' + self._encoded("seats", self.seats_json))
        if st is None:
            parts.append(',"hand":null,"legal":[]')
        else:
            number = len(self.table.match.hands) - 1
            if seat is not None:
                obs = self.observation(seat)
                parts.append(',"hand":' + dumps(views.hand_json(obs, obs.hands, number)))
                parts.append(',"legal":' + dumps(views.legal_json(obs)))
            else:
                parts.append(',"hand":' + self._encoded("spectator", self._spectator_json))
                parts.append(',"legal":[]')
            events, last = self.public_log()
            if conn.sent_hand != number:
                conn.sent_hand = number
                conn.sent_events = 0
            if conn.sent_events < len(events) or conn.sent_events == 0:
                parts.append(
                    f',"log":{{"hand":{number},"from":{conn.sent_events},"events":['
                    + ",".join(events[conn.sent_events :])
                    + "]}"
                )
                conn.sent_events = len(events)
            parts.append(',"last_trick":' + last)
            if st.is_terminal():
                parts.append(',"summary":' + self._encoded("summary", self._summary_json))
        self.sheet()
        if conn.sent_sheet != self.sheet_version:
            conn.sent_sheet = self.sheet_version
            parts.append(',"sheet":' + self._encoded("sheet", lambda: self._sheet))
        if self.status == "finished":
            parts.append(',"result":' + dumps(self.result))
        parts.append("}")
        return "".join(parts)

    def _encoded(self, name: str, make: Callable[[], Any]) -> str:
        """Return a shared part encoded once per change of the table."""
        key = (self.seq, self.seats_version, self.sheet_version)
        hit = self._enc.get(name)
        if hit is not None and hit[0] == key:
            return hit[1]
        text = dumps(make())
        self._enc[name] = (key, text)
        return text

    def _spectator_json(self) -> JSON:
        number = len(self.table.match.hands) - 1
        obs = self.observation(0 if self.dummy_seat != 0 else 1)
        return views.hand_json(obs, self.spectator_hands(), number)

    def _summary_json(self) -> JSON | None:
        return self.summary()

    def broadcast(self) -> None:
        """Send every connection its own state message."""
        for c in list(self.conns):
            c.send(self.state_message(c))

    def seats_changed(self) -> None:
        """Note a change of seats (names, bots, connections) and tell everyone."""
        self.seats_version += 1
        self.broadcast()

    # -------------------------------------------------------------- changes

    def _record_extra(self) -> JSON:
        return {
            "table": {
                "id": self.id,
                "seed": self.seed,
                "seats": [s.level if s.kind == "bot" else None for s in self.seats],
            },
            "players": [
                {"seat": s.seat, "kind": s.kind, "name": s.name, "level": s.level}
                for s in self.seats
            ],
        }

    def record(self) -> Record:
        """Return the match as a record (all cards: only for finished tables)."""
        return record_from_match(self.table.match, self._record_extra())

    async def commit_action(self, seat: int, a: Action) -> None:
        """Store a checked action, then make it and broadcast (the lock is held)."""
        match = self.table.match
        hands: list[Any] = match.hands
        state = hands[-1]
        new = state.clone()
        new.apply_action(a, seat)
        hand = len(match.hands) - 1
        seq = self.seq
        hands[-1] = new
        try:
            over = self.table.match_over()
            result = score(self.record()) if over else None
        finally:
            hands[-1] = state
        table_id = self.id
        finished = db.now()

        def job(conn: Any) -> None:
            db.insert_action(conn, table_id, seq, hand, seat, a)
            if over:
                db.update_table(
                    conn, table_id, status="finished", result=result, finished_at=finished
                )

        await self.hub.store.write(job)
        hands[-1] = new
        self.seq += 1
        self._log_action(state, new, seat, a)
        self.changed_at = time.monotonic()
        log.debug("table %s hand %d seat %d: %s", self.id, hand, seat, action_str(a))
        if new.is_terminal():
            self.ready.clear()
        if over:
            self.status = "finished"
            self.result = result
            self.finished_at = finished
            log.info("table %s finished: %s", self.id, dumps(result))
        self.broadcast()
        self.wake.set()

    async def deal(self) -> None:
        """Store and deal the next hand (the lock is held)."""
        k = len(self.table.match.hands)
        table_id = self.id

        def job(conn: Any) -> None:
            db.update_table(conn, table_id, hands_dealt=k + 1, status="playing")

        await self.hub.store.write(job)
        self.table.deal()
        self.status = "playing"
        self.seq += 1
        self.ready.clear()
        self.changed_at = time.monotonic()
        log.info("table %s: hand %d dealt", self.id, k)
        self.broadcast()
        self.wake.set()

    async def maybe_first_deal(self) -> None:
        """Deal the first hand once every seat is taken (the lock is held)."""
        if not self.table.match.hands and all(s.kind != "open" for s in self.seats):
            await self.deal()

    def ready_for_next(self) -> bool:
        """Whether the next hand should be dealt: every connected person said ``next``."""
        st = self.table.state
        if st is None or not st.is_terminal() or self.match_over():
            return False
        present = [s for s in self.people() if self.connected(s)]
        return bool(present) and all(s in self.ready for s in present)

    async def save_seat(self, seat: SeatRow) -> None:
        """Store one seat's row."""
        table_id = self.id
        values = {
            "kind": seat.kind,
            "level": seat.level,
            "name": seat.name,
            "token_hash": seat.token_hash,
        }

        def job(conn: Any) -> None:
            db.update_seat(conn, table_id, seat.seat, **values)

        await self.hub.store.write(job)

    # ------------------------------------------------------------------ bots

    def start_bots(self) -> None:
        """Start the task that lets bots act (and deals for tables of bots only)."""
        if self.bot_task is None and self.status != "finished":
            self.bot_task = asyncio.create_task(self._bot_loop(), name=f"bots-{self.id}")
            self.wake.set()

    def stop_bots(self) -> None:
        """Cancel the bots' task."""
        if self.bot_task is not None:
            self.bot_task.cancel()
            self.bot_task = None

    async def _bot_loop(self) -> None:
        while self.status != "finished":
            await self.wake.wait()
            self.wake.clear()
            try:
                await self._bot_steps()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("table %s: bot step failed", self.id)
                await asyncio.sleep(1.0)
                self.wake.set()

    def _bot_level(self, seat: int) -> str | None:
        s = self.seats[self.controller(seat)]
        return s.level if s.kind == "bot" else None

    async def _pause(self, factor: float = 1.0) -> None:
        delay = self.hub.settings.bot_delay * factor
        left = delay - (time.monotonic() - self.changed_at)
        if left > 0:
            await asyncio.sleep(left)

    async def _bot_steps(self) -> None:
        while self.status != "finished":
            st = self.table.state
            if st is None:
                return
            seq0 = self.seq
            if st.is_terminal():
                if self.match_over() or self.people():
                    return
                await self._pause(2.0)
                async with self.lock:
                    if self.seq == seq0 and not self.people():
                        await self.deal()
                continue
            job: tuple[int, Action] | None = None
            turn = st.current_player()
            hand = len(self.table.match.hands) - 1
            n = len(st.history())
            for seat in st.actors():
                level = self._bot_level(seat)
                if seat == turn or level is None or (seq0, seat) in self._signal_asked:
                    continue
                self._signal_asked.add((seq0, seat))
                seed = f"{self.seed}:bot:{hand}:{n}:{seat}:signal"
                sig = await self.hub.run_bot(level, st.clone(), seat, seed, "signal")
                if sig is not None:
                    job = (seat, sig)
                    break
            if job is None:
                level = self._bot_level(turn)
                if level is None:
                    return
                seed = f"{self.seed}:bot:{hand}:{n}:{turn}:act"
                a = await self.hub.run_bot(level, st.clone(), turn, seed, "act")
                assert a is not None
                job = (turn, a)
            await self._pause()
            async with self.lock:
                if self.seq != seq0 or self._bot_level(job[0]) is None:
                    continue
                state = self.table.state
                if job[1] not in state.legal_actions(job[0]):  # pragma: no cover - a bot bug
                    log.error("table %s: bot at seat %d chose an illegal action", self.id, job[0])
                    return
                await self.commit_action(*job)
            if len(self._signal_asked) > 1000:
                self._signal_asked = {k for k in self._signal_asked if k[0] >= self.seq}


# ------------------------------------------------------------------------- hub


class Hub:
    """Every table the server knows in memory, and the message handlers."""

    def __init__(self, settings: Settings, store: Store) -> None:
        self.settings = settings
        self.store = store
        self.tables: dict[str, LiveTable] = {}
        self._search_pool: Executor | None = None
        self._loading: dict[str, asyncio.Future[LiveTable | None]] = {}

    # ------------------------------------------------------------- lifetime

    async def start(self) -> None:
        """Create or upgrade the schema, then resume every unfinished table."""
        await asyncio.to_thread(self.store.migrate)
        # Load the search bots (numba) now rather than while tables are being played.
        from quintet.bots import levels

        await asyncio.to_thread(levels)
        self.store.start()
        rows = await self.store.read(db.load_unfinished)
        for row in rows:
            try:
                t = LiveTable(self, row)
            except (QuintetError, ValueError):
                log.exception("table %s does not replay: left out", row.id)
                continue
            self.tables[t.id] = t
            t.start_bots()
        log.info("resumed %d tables", len(self.tables))

    async def stop(self) -> None:
        """Stop the bots, close the connections and the store."""
        for t in self.tables.values():
            t.stop_bots()
            for c in list(t.conns):
                c.close(1012, "server restarting")
        await asyncio.sleep(0.05)
        if self._search_pool is not None:
            self._search_pool.shutdown(wait=False, cancel_futures=True)
        await asyncio.to_thread(self.store.close)

    async def run_bot(self, level: str, state: Any, seat: int, seed: str, kind: str) -> Any:
        """Run a bot's decision on a worker thread (search bots: a worker process)."""
        loop = asyncio.get_running_loop()
        if level.split(":")[0] in SEARCH_LEVELS:
            if self._search_pool is None:
                import multiprocessing

                self._search_pool = ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn")
                )
            return await loop.run_in_executor(
                self._search_pool, decide, level, state, seat, seed, kind
            )
        return await loop.run_in_executor(None, decide, level, state, seat, seed, kind)

    # -------------------------------------------------------------- tables

    async def create_table(self, body: JSON) -> JSON:
        """Create a table from a request body; return its id, links and invites.

        Raises:
            ProtocolError: bad_message, no_seat, bad_level, bad_name or bad_version
                with what is wrong.
        """
        game = body.get("game", "quinto")
        variant = body.get("variant")
        options = body.get("options") or {}
        if not isinstance(game, str) or (variant is not None and not isinstance(variant, str)):
            raise ProtocolError("bad_message", "game and variant are strings")
        if not isinstance(options, dict):
            raise ProtocolError("bad_message", "options is an object")
        lone = body.get("lone_seat")
        if lone is not None and (isinstance(lone, bool) or not isinstance(lone, int)):
            raise ProtocolError("bad_message", "lone_seat is an integer")
        n = 5 if game == "quintus" else 4
        if game == "quinto" and variant == "dummy" and lone is None:
            lone = 0
        seed = body.get("seed")
        if seed is not None and (
            not self.settings.allow_seed or isinstance(seed, bool) or not isinstance(seed, int)
        ):
            raise ProtocolError("bad_message", "this server does not take a seed")
        if seed is None:
            seed = secrets.randbits(62)
        public = body.get("public", True)
        title = body.get("title") or ""
        if not isinstance(public, bool) or not isinstance(title, str) or len(title) > 80:
            raise ProtocolError("bad_message", "public is true or false; title up to 80 chars")
        try:
            probe = Table.new(
                game,
                variant,
                seats=[None] * n,
                seed=seed,
                options=options,
                lone_seat=lone,
                deal=False,
            )
        except (InvalidOptionError, ValueError) as e:
            raise ProtocolError("bad_message", str(e)) from None
        variant = probe.variant
        dummy = (
            (lone + 2) % 4 if game == "quinto" and variant == "dummy" and lone is not None else None
        )
        seats_in = body.get("seats")
        if seats_in is None:
            seats_in = [{"kind": "open"}] + [{"kind": "bot", "level": "heuristic"}] * (n - 1)
        if not isinstance(seats_in, list) or len(seats_in) != n:
            raise ProtocolError("bad_message", f"seats lists the {n} seats")
        seats: list[SeatRow] = []
        for i, s in enumerate(seats_in):
            if isinstance(s, str):
                s = {"kind": "open"} if s == "open" else {"kind": "bot", "level": s}
            if not isinstance(s, dict) or s.get("kind") not in ("open", "bot"):
                raise ProtocolError("bad_message", f"seat {i} must be open or a bot")
            invite = secrets.token_urlsafe(12)
            if i == dummy:
                seats.append(SeatRow(i, "dummy", None, "dummy", None, invite))
            elif s["kind"] == "bot":
                level = s.get("level") or "heuristic"
                check_level(level)
                seats.append(SeatRow(i, "bot", level, f"{level} bot", None, invite))
            else:
                seats.append(SeatRow(i, "open", None, None, None, invite))
        join = body.get("join")
        token = None
        if join is not None:
            if not isinstance(join, dict):
                raise ProtocolError("bad_message", "join is {seat, name}")
            js = get_int(join, "seat")
            name = clean_name(get_str(join, "name") or "")
            if js is None or not 0 <= js < n or seats[js].kind == "dummy":
                raise ProtocolError("no_seat")
            token = secrets.token_urlsafe(24)
            seats[js] = SeatRow(js, "person", None, name, hash_token(token), seats[js].invite)
        table_id = secrets.token_urlsafe(9)
        row = TableRow(
            id=table_id,
            game=game,
            variant=variant,
            options=probe.match.rules.options(),
            lone_seat=lone if variant == "dummy" else None,
            seed=seed,
            public=public,
            title=title.strip(),
            status="waiting",
            hands_dealt=0,
            created_at=db.now(),
            finished_at=None,
            result=None,
            seats=seats,
            actions=[],
        )
        await self.store.write(lambda conn: db.insert_table(conn, row))
        t = LiveTable(self, row)
        self.tables[t.id] = t
        log.info("table %s created: %s %s", t.id, game, variant)
        async with t.lock:
            await t.maybe_first_deal()
        t.start_bots()
        out: JSON = {
            "id": t.id,
            "url": f"/table/{t.id}",
            "spectate": f"/table/{t.id}",
            "seats": [
                {
                    "seat": s.seat,
                    "kind": s.kind,
                    "invite": s.invite if s.kind not in ("dummy",) else None,
                    "url": f"/table/{t.id}?seat={s.seat}&invite={s.invite}"
                    if s.kind != "dummy"
                    else None,
                }
                for s in seats
            ],
        }
        if token is not None:
            out["token"] = token
            out["seat"] = join["seat"] if isinstance(join, dict) else None
        return out

    async def get_table(self, table_id: str) -> LiveTable | None:
        """Return a table by id, loading a finished one from storage to show it."""
        t = self.tables.get(table_id)
        if t is not None:
            return t
        if not isinstance(table_id, str) or not 1 <= len(table_id) <= 32:
            return None
        pending = self._loading.get(table_id)
        if pending is not None:
            return await pending
        fut: asyncio.Future[LiveTable | None] = asyncio.get_running_loop().create_future()
        self._loading[table_id] = fut
        try:
            row = await self.store.read(lambda conn: db.load_table(conn, table_id))
            t = None
            if row is not None:
                t = self.tables.get(table_id) or LiveTable(self, row)
                self.tables[table_id] = t
                t.start_bots()
            fut.set_result(t)
            return t
        except Exception as e:
            fut.set_exception(e)
            raise
        finally:
            del self._loading[table_id]

    def lobby(self) -> list[JSON]:
        """Return the public tables not finished, newest first."""
        rows = [t for t in self.tables.values() if t.public and t.status != "finished"]
        rows.sort(key=lambda t: t.created_at, reverse=True)
        return [t.lobby_json() for t in rows]

    # ------------------------------------------------------------ messages

    async def handle(self, conn: Conn, text: str) -> None:
        """Answer one client message; errors go to this connection only."""
        msg: Any = None
        try:
            if not conn.allow():
                raise ProtocolError("rate_limited")
            msg = parse(text)
            kind = msg["type"]
            if kind == "ping":
                conn.send({"type": "pong", "ref": ref_of(msg), "t": msg.get("t")})
            elif kind == "hello":
                await self.on_hello(conn, msg)
            else:
                t = conn.table
                if t is None:
                    raise ProtocolError("not_joined")
                handler = getattr(self, f"on_{kind}")
                await handler(conn, t, msg)
        except ProtocolError as e:
            conn.send(error(e.code, e.message, ref_of(msg)))
        except Exception:
            log.exception("connection %d: message failed", conn.id)
            conn.send(error("server_error", None, ref_of(msg)))

    def detach(self, conn: Conn) -> None:
        """Take a connection off its table."""
        t = conn.table
        if t is None:
            return
        t.conns.discard(conn)
        seat = conn.seat
        conn.table = None
        conn.seat = None
        if seat is not None and t.seat_conn.get(seat) is conn:
            del t.seat_conn[seat]
            t.ready.discard(seat)
            t.seats_changed()
        if t.status == "finished" and not t.conns:
            t.stop_bots()
            self.tables.pop(t.id, None)

    def disconnect(self, conn: Conn) -> None:
        """Forget a closed connection."""
        conn.closed = True
        self.detach(conn)

    async def on_hello(self, conn: Conn, msg: JSON) -> None:
        """``hello``: watch a table, or take back a seat with its token."""
        v = get_int(msg, "v", required=False)
        if v is not None and v != PROTOCOL_VERSION:
            raise ProtocolError(
                "bad_version", f"this server speaks protocol version {PROTOCOL_VERSION}"
            )
        table_id = get_str(msg, "table", limit=64)
        token = get_str(msg, "token", required=False, limit=128)
        assert table_id is not None
        t = await self.get_table(table_id)
        if t is None:
            raise ProtocolError("no_table", f"no table has the id {table_id[:40]!r}")
        seat = None
        if token is not None:
            h = hash_token(token)
            for s in t.seats:
                if s.token_hash is not None and hmac.compare_digest(s.token_hash, h):
                    seat = s.seat
                    break
            if seat is None:
                raise ProtocolError("bad_token")
        self.detach(conn)
        async with t.lock:
            if seat is not None:
                old = t.seat_conn.get(seat)
                if old is not None and old is not conn:
                    old.send(error("taken_over", "this seat was taken over by another connection"))
                    t.conns.discard(old)
                    old.table = None
                    old.seat = None
                    old.close(4001, "taken over")
                t.seat_conn[seat] = conn
            conn.table = t
            conn.seat = seat
            conn.reset_cursors()
            t.conns.add(conn)
            conn.send(
                {
                    "type": "welcome",
                    "v": PROTOCOL_VERSION,
                    "ref": ref_of(msg),
                    "table": t.config_json(),
                    "seat": seat,
                    "role": "spectator" if seat is None else "player",
                    "name": None if seat is None else t.seats[seat].name,
                }
            )
            if seat is not None:
                t.seats_changed()  # everyone sees the player connected
            else:
                conn.send(t.state_message(conn))
            if t.ready_for_next():
                await t.deal()

    async def on_join(self, conn: Conn, t: LiveTable, msg: JSON) -> None:
        """``join``: take an open seat (or a bot's) with a display name."""
        seat = get_int(msg, "seat")
        name = clean_name(get_str(msg, "name") or "")
        invite = get_str(msg, "invite", required=False, limit=64)
        assert seat is not None
        if conn.seat is not None:
            raise ProtocolError("already_seated", "leave your seat first")
        async with t.lock:
            if t.status == "finished":
                raise ProtocolError("game_over")
            if not 0 <= seat < t.num_seats or t.seats[seat].kind == "dummy":
                raise ProtocolError("no_seat", f"seat {seat} cannot be taken")
            row = t.seats[seat]
            if row.kind == "person":
                raise ProtocolError("seat_taken")
            if not t.public and not (
                invite is not None and hmac.compare_digest(invite, row.invite)
            ):
                raise ProtocolError("bad_invite")
            token = secrets.token_urlsafe(24)
            new = SeatRow(seat, "person", None, name, hash_token(token), row.invite)
            await t.save_seat(new)
            t.seats[seat] = new
            t.seat_conn[seat] = conn
            conn.seat = seat
            conn.reset_cursors()
            log.info("table %s: seat %d taken", t.id, seat)
            conn.send({"type": "joined", "ref": ref_of(msg), "seat": seat, "token": token})
            t.seats_changed()
            await t.maybe_first_deal()
        t.wake.set()

    async def on_leave(self, conn: Conn, t: LiveTable, msg: JSON) -> None:
        """``leave``: give up the seat (it becomes open); stay as a spectator."""
        seat = conn.seat
        if seat is None:
            raise ProtocolError("not_player")
        async with t.lock:
            row = t.seats[seat]
            new = SeatRow(seat, "open", None, None, None, row.invite)
            await t.save_seat(new)
            t.seats[seat] = new
            if t.seat_conn.get(seat) is conn:
                del t.seat_conn[seat]
            t.ready.discard(seat)
            conn.seat = None
            conn.reset_cursors()
            log.info("table %s: seat %d left", t.id, seat)
            conn.send({"type": "left", "ref": ref_of(msg), "seat": seat})
            t.seats_changed()
            if t.ready_for_next():
                await t.deal()

    async def on_replace(self, conn: Conn, t: LiveTable, msg: JSON) -> None:
        """``replace``: a seated player puts a bot in an open seat or an absent player's."""
        if conn.seat is None:
            raise ProtocolError("not_player")
        seat = get_int(msg, "seat")
        level = get_str(msg, "level", required=False, limit=64) or "heuristic"
        assert seat is not None
        check_level(level)
        async with t.lock:
            if t.status == "finished":
                raise ProtocolError("game_over")
            if not 0 <= seat < t.num_seats or t.seats[seat].kind in ("dummy", "bot"):
                raise ProtocolError("no_seat", f"seat {seat} has no player to replace")
            if t.connected(seat):
                raise ProtocolError("seat_present")
            row = t.seats[seat]
            new = SeatRow(seat, "bot", level, f"{level} bot", None, row.invite)
            await t.save_seat(new)
            t.seats[seat] = new
            t.ready.discard(seat)
            log.info("table %s: seat %d given to a %s bot", t.id, seat, level)
            t.seats_changed()
            await t.maybe_first_deal()
            if t.ready_for_next():
                await t.deal()
        t.wake.set()

    async def on_act(self, conn: Conn, t: LiveTable, msg: JSON) -> None:
        """``act``: take an action for a seat this connection decides for."""
        if conn.seat is None:
            raise ProtocolError("not_player")
        raw = msg.get("action")
        expect = get_int(msg, "expect", required=False)
        async with t.lock:
            state = t.table.state
            if t.status == "finished":
                raise ProtocolError("game_over")
            if state is None:
                raise ProtocolError("not_started")
            if state.is_terminal():
                raise ProtocolError("hand_over", "the hand is over: send next for the next hand")
            if expect is not None and expect != t.seq:
                raise ProtocolError("stale", f"the table is at seq {t.seq}, not {expect}")
            controls = t.controls(conn.seat)
            seat, a = parse_client_action(raw, t.num_seats, controls, state)
            if seat not in controls:
                raise ProtocolError("not_your_seat", f"you do not decide for seat {seat}")
            try:
                a = state.parse(a)
            except InvalidActionError as e:
                raise ProtocolError("invalid_action", str(e)) from None
            if a not in state.legal_actions(seat):
                why = scrub(state.why_illegal(a, seat), t.observation(conn.seat))
                if not state.legal_actions(seat):
                    raise ProtocolError("not_your_turn", why)
                raise ProtocolError("illegal", why)
            await t.commit_action(seat, a)

    async def on_next(self, conn: Conn, t: LiveTable, msg: JSON) -> None:
        """``next``: this player is ready for the next hand."""
        if conn.seat is None:
            raise ProtocolError("not_player")
        async with t.lock:
            st = t.table.state
            if st is None or not st.is_terminal() or t.match_over():
                raise ProtocolError("not_ready")
            t.ready.add(conn.seat)
            if t.ready_for_next():
                await t.deal()
            else:
                t.broadcast()

    async def on_hint(self, conn: Conn, t: LiveTable, msg: JSON) -> None:
        """``hint``: what the hint bot would do for this player's seat."""
        if conn.seat is None:
            raise ProtocolError("not_player")
        st = t.table.state
        if st is None or st.is_terminal():
            raise ProtocolError("nothing_to_do")
        seq = t.seq
        turn = st.current_player()
        seats = [s for s in t.controls(conn.seat) if st.legal_actions(s)]
        if not seats:
            raise ProtocolError("nothing_to_do")
        seat = turn if turn in seats else seats[0]
        kind = "act" if seat == turn else "signal"
        level = self.settings.hint_level
        seed = f"{secrets.randbits(32)}:hint"
        a = await self.run_bot(level, st.clone(), seat, seed, kind)
        if a is None:
            a = st.legal_actions(seat)[0] if kind == "act" else None
        out: JSON = {"type": "hint", "ref": ref_of(msg), "seq": seq, "seat": seat, "level": level}
        if a is None:
            out.update({"action": None, "text": "no signal"})
        else:
            out.update(views.action_text(seat, a))
        conn.send(out)


def check_level(level: str) -> None:
    """Raise ProtocolError(bad_level) unless ``level`` names a bot."""
    try:
        make_bot(level)
    except InvalidOptionError as e:
        raise ProtocolError("bad_level", str(e)) from None


def parse_client_action(
    raw: Any, num_seats: int, controls: tuple[int, ...], state: Any
) -> tuple[int, Action]:
    """Return ``(seat, action)`` from an ``act`` message's ``action``.

    The action is a record action object (``{"type": "play", "card": "AS"}``; ``seat``
    optional) or its text form (``"AS"``, ``"bid 40"``). Without a seat it is the seat
    to act if this player decides for it, else the player's own seat.

    Raises:
        ProtocolError: bad_message or invalid_action.
    """
    turn = state.current_player()
    default = turn if turn in controls else controls[0]
    try:
        if isinstance(raw, str):
            if len(raw) > 40:
                raise ProtocolError("invalid_action", "an action is a few words")
            return default, parse_action(raw)
        if isinstance(raw, dict):
            obj = dict(raw)
            if "seat" not in obj or obj["seat"] is None:
                obj["seat"] = default
            return action_from_json(obj, num_seats)
    except InvalidActionError as e:
        raise ProtocolError("invalid_action", str(e)) from None
    raise ProtocolError("bad_message", "'act' needs an 'action' object or text")


def scrub(message: str, obs: Observation) -> str:
    """Return an engine's message, or a plain one if it names a card the player can't see."""
    visible = 0
    for m in obs.hands:
        if m is not None:
            visible |= m
    for _, a in obs.history:
        if a <= 52:
            visible |= 1 << a
    for word in message.replace(",", " ").replace(";", " ").replace(":", " ").split():
        try:
            c = parse_card(word)
        except QuintetError:
            continue
        if not visible >> c & 1:
            return "the rules do not allow this action now"
    return message


__all__ = [
    "Conn",
    "Hub",
    "LiveTable",
    "Settings",
    "decide",
    "hash_token",
]
