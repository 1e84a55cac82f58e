"""Tables in play: the server's authority over every table, its seats and connections.

A :class:`LiveTable` holds a :class:`quintet.table.Table` (the match), its seats, who
has held them, and the connections watching it. Every change goes the same way, under
the table's lock: check it against the engine and the seating rules (nothing changes
if it is refused), store it (the :class:`~quintet.server.db.Store` commits before
returning), make it in memory, then send every connection its own ``state`` message.
The :class:`Hub` keeps the tables, resumes the unfinished ones at start by replaying
their stored actions, runs the bots off the event loop (search bots in worker
processes shared fairly between tables, each search with a hard time limit) and closes
abandoned tables.

Seating rules (docs/server.md, "Security"): a person (the browser's cookie) holds at
most one seat of a table in a match, ever, except the lone player's dummy; a bot's
seat is taken by a person only with that seat's invite; a private table is seen only by
its players, its creator and holders of one of its links.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
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
from quintet.cards import parse_card
from quintet.errors import InvalidActionError, InvalidOptionError, QuintetError
from quintet.game import Observation
from quintet.quinto import QuintoMatch
from quintet.record import Record, record_from_match, score
from quintet.server import db, views
from quintet.server.botjobs import decide, warm_up
from quintet.server.conn import Conn
from quintet.server.db import CLOSED, Notice, SeatRow, Store, TableRow
from quintet.server.messages import (
    Act,
    ClientMessage,
    CreateTable,
    Hello,
    Hint,
    Join,
    Leave,
    Next,
    Ping,
    Replace,
    parse_message,
    ref_of_raw,
)
from quintet.server.protocol import (
    PROTOCOL_VERSION,
    ProtocolError,
    dumps,
    error,
)
from quintet.server.security import Buckets
from quintet.server.settings import SEARCH_LEVELS, Settings
from quintet.server.workers import PoolBusy, PoolClosed, SearchFailed, SearchPool, SearchTimeout
from quintet.table import Table

log = logging.getLogger("quintet.server")

JSON = dict[str, Any]
#: Tables that are over kept in memory (and their replays) after being shown.
SHOWN_TABLES = 128


def hash_token(token: str) -> str:
    """Return the stored form of a seat token (SHA-256, hex)."""
    return hashlib.sha256(token.encode()).hexdigest()


def same_code(given: str | None, expected: str | None) -> bool:
    """Whether a code a client gave equals the stored one (in constant time)."""
    if given is None or expected is None:
        return False
    return hmac.compare_digest(given.encode(), expected.encode())


class FieldError(Exception):
    """A request body that fits its model but not this server: which field, and why."""

    def __init__(self, field: str, message: str, status: int = 422, code: str = "invalid") -> None:
        self.field = field
        self.message = message
        self.status = status
        self.code = code
        super().__init__(f"{field}: {message}")


# ---------------------------------------------------------------------- tables


class LiveTable:
    """A table in memory: the match, the seats and their holders, connections, bots."""

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
        self.view_key = row.view_key
        self.creator = row.creator
        #: Every person who has held a seat of this table: person id -> seat.
        self.holders: dict[str, int] = dict(row.holders)
        self.notices: list[Notice] = list(row.notices)
        # SQLite gives back naive datetimes (UTC): make them aware like new tables' so
        # the lobby can sort resumed and new tables together.
        self.created_at = db._utc(row.created_at)
        self.finished_at = None if row.finished_at is None else db._utc(row.finished_at)
        active = row.last_active or self.created_at
        #: When the table last changed (an action, a deal, a seat), on the wall clock.
        self.last_active = db._utc(active).timestamp()
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
        self.creator_client: str | None = None  # the creating client's address (in memory)
        self._signal_asked: set[tuple[int, int]] = set()
        self._bot_failed: set[tuple[int, int]] = set()
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

    @property
    def closed(self) -> bool:
        """Whether the table is over: finished, or closed as abandoned."""
        return self.status in CLOSED

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
        """``waiting``, ``playing``, ``hand_over``, ``finished`` or ``abandoned``."""
        if self.closed:
            return self.status
        st = self.table.state
        if st is None:
            return "waiting"
        return "hand_over" if st.is_terminal() else "playing"

    def in_hand(self) -> bool:
        """Whether a hand is being played (dealt and not over)."""
        st = self.table.state
        return st is not None and not st.is_terminal() and not self.closed

    def people(self) -> list[int]:
        """Return the seats held by people (connected or not)."""
        return [s.seat for s in self.seats if s.kind == "person"]

    def connected(self, seat: int) -> bool:
        """Whether the person at ``seat`` has a live connection."""
        return seat in self.seat_conn

    def label(self, seat: int) -> str:
        """How ``seat`` is named to people."""
        return views.seat_label(self.game, seat)

    # --------------------------------------------------------------- access

    def seat_of_token(self, token: str | None) -> int | None:
        """Return the seat whose token this is, or None."""
        if not token:
            return None
        h = hash_token(token)
        for s in self.seats:
            if same_code(h, s.token_hash):
                return s.seat
        return None

    def can_view(
        self,
        person: str | None,
        key: str | None = None,
        invite: str | None = None,
        token: str | None = None,
    ) -> bool:
        """Whether a client may see this table at all.

        A public table: anyone. A private one: its players (who hold or held a seat),
        its creator, and holders of one of its links (the view key, a seat's invite, a
        seat's token).
        """
        if self.public:
            return True
        if person is not None and (person in self.holders or person == self.creator):
            return True
        if same_code(key, self.view_key):
            return True
        if invite is not None and any(same_code(invite, s.invite) for s in self.seats):
            return True
        return self.seat_of_token(token) is not None

    def is_player(self, person: str | None, token: str | None = None) -> bool:
        """Whether a client holds a seat now (by its person or a seat token), or created it."""
        if self.seat_of_token(token) is not None:
            return True
        if person is None:
            return False
        return person == self.creator or any(s.person == person for s in self.seats)

    def spectate_url(self) -> str:
        """The link to watch (a private table's carries its view key)."""
        if self.public or self.view_key is None:
            return f"/table/{self.id}"
        return f"/table/{self.id}?key={self.view_key}"

    def seat_url(self, s: SeatRow) -> str:
        """The invite link of a seat."""
        return f"/table/{self.id}?seat={s.seat}&invite={s.invite}"

    # ----------------------------------------------------------------- JSON

    def seats_json(self) -> list[JSON]:
        """Return the seats as the protocol shows them (never a token, invite or person)."""
        out = []
        for s in self.seats:
            out.append(
                {
                    "seat": s.seat,
                    "label": self.label(s.seat),
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
        a meld or the hand ends, the log is rebuilt from the engine's events and the
        table's notices (a seat taken over mid-hand, a bot that failed).
        """
        number = len(self.table.match.hands) - 1
        if self._log_key != (number, self.seq):
            events, last = views.public_log(self.table.state)
            notices = [n for n in self.notices if n.hand == number]
            self._log = [dumps(e) for e in merge_notices(events, notices)]
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
            label = self.label(seat)
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
        if self.closed:
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
        """Return the match as a record (all cards: only for tables that are over)."""
        return record_from_match(self.table.match, self._record_extra())

    def touch(self) -> None:
        """Note that the table changed now (abandoned tables are those long untouched)."""
        self.last_active = time.time()

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
        self.touch()
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
        self.touch()
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
        if st is None or not st.is_terminal() or self.match_over() or self.closed:
            return False
        present = [s for s in self.people() if self.connected(s)]
        return bool(present) and all(s in self.ready for s in present)

    def notice(self, seat: int | None, kind: str, text: str) -> Notice | None:
        """Return a notice for the public log if a hand is being played, else None."""
        if not self.in_hand():
            return None
        st = self.table.state
        return Notice(len(self.table.match.hands) - 1, len(st.history()), seat, kind, text)

    async def save_seat(
        self, seat: SeatRow, holder: str | None = None, notice: Notice | None = None
    ) -> None:
        """Store one seat's row (with its new holder and a notice), then keep it here.

        ``holder`` is a person taking the seat for the first time at this table.
        """
        table_id = self.id
        values = {
            "kind": seat.kind,
            "level": seat.level,
            "name": seat.name,
            "token_hash": seat.token_hash,
            "person": seat.person,
        }
        n = len(self.notices)

        def job(conn: Any) -> None:
            db.update_seat(conn, table_id, seat.seat, **values)
            db.update_table(conn, table_id)  # a seat change counts as activity
            if holder is not None:
                db.insert_holder(conn, table_id, holder, seat.seat)
            if notice is not None:
                db.insert_notice(conn, table_id, n, notice)

        await self.hub.store.write(job)
        self.seats[seat.seat] = seat
        if holder is not None:
            self.holders[holder] = seat.seat
        if notice is not None:
            self._add_notice(notice)
        self.touch()

    def _add_notice(self, notice: Notice) -> None:
        self.notices.append(notice)
        self._log_key = None  # the log is rebuilt with it

    async def post_notice(self, seat: int | None, kind: str, text: str) -> None:
        """Store a notice and put it in the public log (if a hand is being played).

        Takes the table's lock: notices are numbered in the order they are stored.
        """
        async with self.lock:
            notice = self.notice(seat, kind, text)
            if notice is None:
                return
            table_id = self.id
            n = len(self.notices)
            await self.hub.store.write(lambda conn: db.insert_notice(conn, table_id, n, notice))
            self._add_notice(notice)
            self.broadcast()

    async def abandon(self) -> None:
        """Close the table: nobody plays it (the lock is held). Its record is kept."""
        result = score(self.record())
        finished = db.now()
        table_id = self.id

        def job(conn: Any) -> None:
            db.update_table(conn, table_id, status="abandoned", result=result, finished_at=finished)

        await self.hub.store.write(job)
        self.status = "abandoned"
        self.result = result
        self.finished_at = finished
        self.stop_bots()
        log.info("table %s closed: abandoned", self.id)
        self.broadcast()

    # ------------------------------------------------------------------ bots

    def start_bots(self) -> None:
        """Start the task that lets bots act (and deals for tables of bots only)."""
        if self.bot_task is None and not self.closed:
            self.bot_task = asyncio.create_task(self._bot_loop(), name=f"bots-{self.id}")
            self.wake.set()

    def stop_bots(self) -> None:
        """Cancel the bots' task (a search it waits for is dropped or left to finish)."""
        if self.bot_task is not None:
            if self.bot_task is not asyncio.current_task():
                self.bot_task.cancel()
            self.bot_task = None

    @property
    def owner(self) -> str:
        """Whose share of the search workers this table's bots use: its creator's.

        The workers serve their owners in turn, so a client with many tables of search
        bots gets one share, like a client with one.
        """
        if self.creator_client is not None:
            return f"client:{self.creator_client}"
        if self.creator is not None:
            return f"person:{self.creator}"
        return f"table:{self.id}"

    async def _bot_loop(self) -> None:
        while not self.closed:
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

    async def _decide(self, level: str, seat: int, seed: str, kind: str) -> Action | None:
        """Return a bot's decision; a bot that fails is replaced by the heuristic, said."""
        st = self.table.state
        a, failure = await self.hub.run_bot(self.owner, level, st.clone(), seat, seed, kind)
        if failure is not None:
            hand = len(self.table.match.hands) - 1
            log.warning("table %s seat %d: %s bot %s", self.id, seat, level, failure)
            if (hand, seat) not in self._bot_failed:
                self._bot_failed.add((hand, seat))
                await self.post_notice(
                    seat,
                    "bot",
                    f"{self.label(seat)}'s {level} bot {failure}: the heuristic decides "
                    "for it this time",
                )
        return a

    async def _bot_steps(self) -> None:
        while not self.closed:
            st = self.table.state
            if st is None:
                return
            seq0 = self.seq
            if st.is_terminal():
                if self.match_over() or self.people():
                    return
                await self._pause(2.0)
                async with self.lock:
                    if self.seq == seq0 and not self.people() and not self.closed:
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
                sig = await self._decide(level, seat, seed, "signal")
                if sig is not None:
                    job = (seat, sig)
                    break
            if job is None:
                level = self._bot_level(turn)
                if level is None:
                    return
                seed = f"{self.seed}:bot:{hand}:{n}:{turn}:act"
                a = await self._decide(level, turn, seed, "act")
                if a is None:
                    log.error("table %s: no bot could decide for seat %d", self.id, turn)
                    return
                job = (turn, a)
            await self._pause()
            async with self.lock:
                if self.seq != seq0 or self._bot_level(job[0]) is None or self.closed:
                    continue
                state = self.table.state
                if job[1] not in state.legal_actions(job[0]):  # pragma: no cover - a bot bug
                    log.error("table %s: bot at seat %d chose an illegal action", self.id, job[0])
                    return
                await self.commit_action(*job)
            if len(self._signal_asked) > 1000:
                self._signal_asked = {k for k in self._signal_asked if k[0] >= self.seq}


def merge_notices(events: list[JSON], notices: list[Notice]) -> list[JSON]:
    """Return a hand's public events with its notices, each after the actions before it.

    A notice made when ``k`` actions of the hand had been taken comes after everything
    the ``k``-th action brought (its trick, its meld) and before the next action.

    >>> ev = [{"kind": "action"}, {"kind": "trick"}, {"kind": "action"}]
    >>> [e["kind"] for e in merge_notices(ev, [Notice(0, 1, 2, "seat", "Ann takes over")])]
    ['action', 'trick', 'notice', 'action']
    """
    if not notices:
        return events
    out: list[JSON] = []
    pending = sorted(notices, key=lambda n: n.actions)
    done = 0
    for e in events:
        if e["kind"] == "action":
            while pending and pending[0].actions <= done:
                out.append(_notice_json(pending.pop(0)))
            done += 1
        out.append(e)
    out.extend(_notice_json(n) for n in pending)
    return out


def _notice_json(n: Notice) -> JSON:
    return {"kind": "notice", "about": n.kind, "seat": n.seat, "text": n.text}


# ------------------------------------------------------------------------- hub


class Hub:
    """Every table the server knows in memory, the bots' workers and the handlers."""

    def __init__(self, settings: Settings, store: Store) -> None:
        settings.check()
        self.settings = settings
        self.store = store
        self.tables: dict[str, LiveTable] = {}
        #: The bot levels offered: name -> the bot it makes (never a client's text).
        self.levels = settings.offered_levels()
        self.search_pool = SearchPool(
            workers=settings.search_workers,
            hard_limit=settings.search_limit,
            initializer=warm_up,
            name="search",
        )
        self.analysis_pool = SearchPool(
            workers=1,
            hard_limit=settings.analysis_limit,
            max_queued=settings.analysis_queue,
            name="analysis",
        )
        self.analyses: dict[str, asyncio.Task[None]] = {}
        self.analysis_clients: Counter[str] = Counter()  # analyses waiting, by client
        per_minute = 60.0
        self.create_buckets = Buckets(settings.create_rate / per_minute, settings.create_burst)
        self._loading: dict[str, asyncio.Future[LiveTable | None]] = {}
        self._shown: OrderedDict[str, None] = OrderedDict()
        #: Open websockets by client address (bounded by ``max_connections``).
        self.connections: Counter[str] = Counter()
        self._creating: Counter[str] = Counter()  # tables being created, by client
        self.replays: dict[str, JSON] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self._handlers: dict[type, Callable[[Conn, LiveTable, Any], Any]] = {
            Join: self.on_join,
            Leave: self.on_leave,
            Replace: self.on_replace,
            Act: self.on_act,
            Next: self.on_next,
            Hint: self.on_hint,
        }

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
            await self._offered_levels_only(t)
            self.tables[t.id] = t
            t.start_bots()
        log.info("resumed %d tables", len(self.tables))
        self._sweeper = asyncio.create_task(self._sweep(), name="quintet-sweeper")

    async def _offered_levels_only(self, t: LiveTable) -> None:
        """Give a stored bot seat whose level is not offered here the nearest offered one.

        Tables stored by an older server, or under other settings, may name levels with
        parameters (``pimc:seconds=20``): a stored level never decides what is computed.
        """
        for s in t.seats:
            if s.kind != "bot" or s.level in self.levels:
                continue
            base = (s.level or "").split(":")[0]
            level = base if base in self.levels else "heuristic"
            log.warning(
                "table %s seat %d: bot level %r is not offered: %s instead",
                t.id,
                s.seat,
                s.level,
                level,
            )
            new = SeatRow(s.seat, "bot", level, f"{level} bot", None, s.invite)
            await t.save_seat(new)

    async def stop(self) -> None:
        """Stop the bots and their workers, close the connections and the store."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        for t in self.tables.values():
            t.stop_bots()
            for c in list(t.conns):
                c.close(1012, "server restarting")
        await asyncio.sleep(0.05)
        await asyncio.gather(self.search_pool.close(), self.analysis_pool.close())
        for task in list(self.analyses.values()):
            task.cancel()
        await asyncio.to_thread(self.store.close)

    async def _sweep(self) -> None:
        """Close, now and then, the tables nobody plays."""
        while True:
            await asyncio.sleep(self.settings.sweep_every)
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("closing abandoned tables failed")

    async def sweep(self, now: float | None = None) -> list[str]:
        """Close every table with no person connected and untouched for too long.

        Returns the ids closed.
        """
        t_now = time.time() if now is None else now
        closed = []
        for t in list(self.tables.values()):
            if t.closed or t.seat_conn or t_now - t.last_active < self.settings.abandon_after:
                continue
            async with t.lock:
                if t.closed or t.seat_conn:
                    continue
                await t.abandon()
            closed.append(t.id)
            if not t.conns:
                self.tables.pop(t.id, None)
        return closed

    # ------------------------------------------------------------------ bots

    async def run_bot(
        self, owner: str, level: str, state: Any, seat: int, seed: str, kind: str
    ) -> tuple[Action | None, str | None]:
        """Return a bot's decision and, if the level's bot failed, why.

        Search levels run in the worker processes, shared fairly between tables
        (``owner``) and cut off at the hard time limit; the others on a thread. A bot
        that fails, or runs past the limit, is replaced by the heuristic for this
        decision.
        """
        spec = self.levels.get(level, "heuristic")
        loop = asyncio.get_running_loop()
        failure: str | None = None
        try:
            if spec.split(":")[0] in SEARCH_LEVELS:
                res = await self.search_pool.run(owner, decide, spec, state, seat, seed, kind)
                a: Action | None = res.value
            else:
                a = await loop.run_in_executor(None, decide, spec, state, seat, seed, kind)
            if a is None and kind == "act":
                failure = "gave no action"
            else:
                return a, None
        except SearchTimeout:
            failure = f"took longer than {self.settings.search_limit:g} s"
        except (SearchFailed, PoolBusy) as e:
            failure = f"failed ({type(e).__name__})"
        except PoolClosed:
            raise asyncio.CancelledError from None
        except Exception as e:
            log.exception("bot %s failed", level)
            failure = f"failed ({type(e).__name__})"
        a = await loop.run_in_executor(None, decide, "heuristic", state, seat, seed, kind)
        return a, failure

    # -------------------------------------------------------------- tables

    def check_level(self, level: str, field: str) -> str:
        """Return ``level`` if this server offers it.

        Raises:
            FieldError: naming ``field`` and the offered levels.
        """
        if level not in self.levels:
            offered = ", ".join(self.levels)
            raise FieldError(field, f"no bot level {level[:64]!r} here (offered: {offered})")
        return level

    def in_play(self) -> list[LiveTable]:
        """Return the tables in memory that are not over."""
        return [t for t in self.tables.values() if not t.closed]

    async def create_table(self, body: CreateTable, person: str, client: str | None = None) -> JSON:
        """Create a table from a checked request body; return its id, links and invites.

        ``person`` (the creator) may see it even if it is private; with ``join`` they
        hold that seat.

        Raises:
            FieldError: a field that does not fit this server (a bot level it does not
                offer, a seat the game does not have, options the rules refuse, a seed)
                or a limit reached (status 429 or 503).
        """
        settings = self.settings
        live = self.in_play()
        if len(live) + sum(self._creating.values()) >= settings.max_tables:
            raise FieldError("", "the server has as many tables as it can hold", 503, "busy")
        for name, value in body.options.items():
            limit = settings.option_limits.get(name)
            if limit is not None and isinstance(value, int) and value > limit:
                raise FieldError(f"options.{name}", f"at most {limit} on this server")
        game = body.game
        lone = body.lone_seat
        n = 5 if game == "quintus" else 4
        if game == "quinto" and body.variant == "dummy" and lone is None:
            lone = 0
        if body.seed is not None and not settings.allow_seed:
            raise FieldError("seed", "this server does not take a seed")
        seed = secrets.randbits(62) if body.seed is None else body.seed
        try:
            probe = Table.new(
                game,
                body.variant,
                seats=[None] * n,
                seed=seed,
                options=dict(body.options),
                lone_seat=lone,
                deal=False,
            )
        except (InvalidOptionError, ValueError) as e:
            text = str(e)
            field = "variant" if "variant" in text else "lone_seat" if "lone" in text else "options"
            raise FieldError(field, text) from None
        variant = probe.variant
        if body.lone_seat is not None and variant != "dummy":
            raise FieldError("lone_seat", "only the dummy variant has a lone player")
        dummy = (lone + 2) % 4 if variant == "dummy" and lone is not None else None
        seats_in: list[Any] = list(body.seats) if body.seats is not None else []
        if body.seats is None:
            seats_in = ["open"] + ["heuristic"] * (n - 1)
        if len(seats_in) != n:
            raise FieldError("seats", f"list the {n} seats of {game}, not {len(seats_in)}")
        seats: list[SeatRow] = []
        for i, s in enumerate(seats_in):
            invite = secrets.token_urlsafe(12)
            if isinstance(s, str):
                kind, level = ("open", None) if s == "open" else ("bot", s)
                where = f"seats[{i}]"
            else:
                kind, level = s.kind, s.level
                where = f"seats[{i}].level"
            if level is not None:  # whatever the seat becomes, a level must be offered
                self.check_level(level, where)
            if i == dummy:
                seats.append(SeatRow(i, "dummy", None, "dummy", None, invite))
            elif kind == "bot":
                level = self.check_level(level or "heuristic", where)
                seats.append(SeatRow(i, "bot", level, f"{level} bot", None, invite))
            else:
                seats.append(SeatRow(i, "open", None, None, None, invite))
        token = None
        holders: dict[str, int] = {}
        if body.join is not None:
            js = body.join.seat
            if not 0 <= js < n or seats[js].kind == "dummy":
                raise FieldError("join.seat", f"seat {js} cannot be taken")
            token = secrets.token_urlsafe(24)
            seats[js] = SeatRow(
                js, "person", None, body.join.name, hash_token(token), seats[js].invite, person
            )
            holders[person] = js
        # Checked last, so that a refused body costs no token. Tables still being created
        # count: concurrent requests cannot pass the limits together.
        keys = [f"person:{person}"] + ([f"client:{client}"] if client else [])
        mine = sum(
            1 for t in live if t.creator == person or (client and t.creator_client == client)
        ) + max(self._creating[k] for k in keys)
        if mine >= settings.max_tables_per_client:
            raise FieldError(
                "", f"you have {mine} tables in play: finish some first", 429, "too_many_tables"
            )
        for key in keys:
            wait = self.create_buckets.take(key)
            if wait > 0:
                raise FieldError(
                    "", f"too many new tables: try again in {wait:.0f} s", 429, "rate_limited"
                )
        table_id = secrets.token_urlsafe(9)
        row = TableRow(
            id=table_id,
            game=game,
            variant=variant,
            options=probe.match.rules.options(),
            lone_seat=lone if variant == "dummy" else None,
            seed=seed,
            public=body.public,
            title=body.title.strip(),
            status="waiting",
            hands_dealt=0,
            created_at=db.now(),
            finished_at=None,
            result=None,
            seats=seats,
            actions=[],
            view_key=secrets.token_urlsafe(12),
            creator=person,
            holders=holders,
        )
        for k in keys:
            self._creating[k] += 1
        try:
            await self.store.write(lambda conn: db.insert_table(conn, row))
        finally:
            for k in keys:
                self._creating[k] -= 1
                if self._creating[k] <= 0:
                    del self._creating[k]
        t = LiveTable(self, row)
        t.creator_client = client
        self.tables[t.id] = t
        log.info("table %s created: %s %s", t.id, game, variant)
        async with t.lock:
            await t.maybe_first_deal()
        t.start_bots()
        out: JSON = {
            "id": t.id,
            "url": f"/table/{t.id}",
            "spectate": t.spectate_url(),
            "seats": [
                {
                    "seat": s.seat,
                    "kind": s.kind,
                    "invite": s.invite if s.kind != "dummy" else None,
                    "url": t.seat_url(s) if s.kind != "dummy" else None,
                }
                for s in seats
            ],
        }
        if not t.public:
            out["url"] = t.spectate_url()
        if token is not None:
            out["token"] = token
            out["seat"] = body.join.seat if body.join is not None else None
        return out

    async def get_table(self, table_id: str) -> LiveTable | None:
        """Return a table by id, loading one that is over from storage to show it."""
        t = self.tables.get(table_id)
        if t is not None:
            if t.closed:
                self._remember(t)
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
                if t.closed:
                    self._remember(t)
            fut.set_result(t)
            return t
        except Exception as e:
            fut.set_exception(e)
            raise
        finally:
            del self._loading[table_id]

    def _remember(self, t: LiveTable) -> None:
        """Keep a table that is over in memory among the last few shown, and no more.

        Anyone may ask for any public game that is over: without a bound, asking for
        them all would load every stored game into memory.
        """
        self._shown[t.id] = None
        self._shown.move_to_end(t.id)
        while len(self._shown) > SHOWN_TABLES:
            old, _ = self._shown.popitem(last=False)
            kept = self.tables.get(old)
            if kept is not None and kept.closed and not kept.conns:
                del self.tables[old]
                self.replays.pop(old, None)

    async def replay_of(self, t: LiveTable) -> JSON:
        """Return the steps of a table that is over (computed once, kept while shown)."""
        data = self.replays.get(t.id)
        if data is None:
            from quintet.server import replay

            data = await asyncio.to_thread(replay.replay_steps, t.record())
            self.replays[t.id] = data
            while len(self.replays) > SHOWN_TABLES:
                self.replays.pop(next(iter(self.replays)))
        return data

    def lobby(self, limit: int, offset: int = 0) -> JSON:
        """Return a page of the public tables in play, newest first, and their number."""
        rows = [t for t in self.tables.values() if t.public and not t.closed]
        rows.sort(key=lambda t: t.created_at, reverse=True)
        page = rows[offset : offset + limit]
        return {
            "tables": [t.lobby_json() for t in page],
            "total": len(rows),
            "offset": offset,
            "limit": limit,
        }

    # ------------------------------------------------------------ messages

    async def handle(self, conn: Conn, text: str) -> None:
        """Answer one client message; errors go to this connection only."""
        msg: ClientMessage | None = None
        try:
            if not conn.allow():
                raise ProtocolError("rate_limited")
            msg = parse_message(text)
            if isinstance(msg, Ping):
                conn.send({"type": "pong", "ref": msg.id, "t": msg.t})
            elif isinstance(msg, Hello):
                await self.on_hello(conn, msg)
            else:
                t = conn.table
                if t is None:
                    raise ProtocolError("not_joined")
                await self._handlers[type(msg)](conn, t, msg)
        except ProtocolError as e:
            ref = msg.id if msg is not None else ref_of_raw(text)
            conn.send(error(e.code, e.message, ref))
        except Exception:
            log.exception("connection %d: message failed", conn.id)
            conn.send(error("server_error", None, None if msg is None else msg.id))

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
            t.touch()  # an abandoned table's clock starts when its last player goes
            t.seats_changed()
        if t.closed and not t.conns:
            t.stop_bots()
            self.tables.pop(t.id, None)

    def disconnect(self, conn: Conn) -> None:
        """Forget a closed connection (and the hint being worked out for it)."""
        conn.closed = True
        if conn.hint_task is not None:
            conn.hint_task.cancel()
        self.detach(conn)

    def _hold(self, t: LiveTable, person: str | None, seat: int) -> str | None:
        """Check that ``person`` may hold ``seat``; return them if it is their first seat.

        Raises:
            ProtocolError: no_person (no cookie) or already_seated (they held another).
        """
        if person is None:
            raise ProtocolError("no_person")
        held = t.holders.get(person)
        if held is not None and held != seat:
            raise ProtocolError(
                "already_seated",
                f"you have played {t.label(held)} at this table: one person plays one seat",
            )
        return person if held is None else None

    def _seated(self, conn: Conn, t: LiveTable) -> int:
        """Return the seat ``conn`` holds at ``t`` now (call with the table's lock held).

        Checked again under the lock: another tab may have taken the seat over while
        this message waited for it.

        Raises:
            ProtocolError: not_player.
        """
        seat = conn.seat
        if seat is None or t.seat_conn.get(seat) is not conn or conn.table is not t:
            raise ProtocolError("not_player")
        return seat

    def _take_over(self, t: LiveTable, seat: int, conn: Conn) -> None:
        """Give ``seat``'s connection to ``conn``; the one holding it is told and closed."""
        old = t.seat_conn.get(seat)
        if old is not None and old is not conn:
            old.send(error("taken_over", "this seat was taken over by another connection"))
            t.conns.discard(old)
            old.table = None
            old.seat = None
            old.close(4001, "taken over")
        t.seat_conn[seat] = conn

    async def on_hello(self, conn: Conn, msg: Hello) -> None:
        """``hello``: watch a table, or take back a seat with its token."""
        if msg.v is not None and msg.v != PROTOCOL_VERSION:
            raise ProtocolError(
                "bad_version", f"this server speaks protocol version {PROTOCOL_VERSION}"
            )
        t = await self.get_table(msg.table)
        if t is None or not t.can_view(conn.person, msg.key, msg.invite, msg.token):
            # A private table answers as if it did not exist.
            raise ProtocolError("no_table", f"no table has the id {msg.table[:40]!r}")
        if msg.token is not None and t.seat_of_token(msg.token) is None:
            raise ProtocolError("bad_token")
        self.detach(conn)
        async with t.lock:
            seat = None
            if msg.token is not None:
                # Looked up again: the seat may have changed hands while we waited.
                seat = t.seat_of_token(msg.token)
                if seat is None or t.seats[seat].kind != "person":
                    raise ProtocolError("bad_token")
                first = self._hold(t, conn.person, seat)
                row = t.seats[seat]
                if not t.closed and (first is not None or row.person != conn.person):
                    text = f"{t.label(seat)} is now played from another browser"
                    notice = t.notice(seat, "seat", text) if row.person != conn.person else None
                    new = SeatRow(
                        seat, row.kind, row.level, row.name, row.token_hash, row.invite, conn.person
                    )
                    await t.save_seat(new, holder=first, notice=notice)
                self._take_over(t, seat, conn)
                t.touch()
            elif sum(1 for c in t.conns if c.seat is None) >= self.settings.max_spectators:
                raise ProtocolError("full")
            conn.table = t
            conn.seat = seat
            conn.reset_cursors()
            t.conns.add(conn)
            conn.send(
                {
                    "type": "welcome",
                    "v": PROTOCOL_VERSION,
                    "ref": msg.id,
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

    async def on_join(self, conn: Conn, t: LiveTable, msg: Join) -> None:
        """``join``: take an open seat (or a bot's, with its invite) with a display name."""
        seat = msg.seat
        if conn.seat is not None:
            raise ProtocolError("already_seated", "leave your seat first")
        async with t.lock:
            if conn.seat is not None or conn.table is not t:
                raise ProtocolError("already_seated", "leave your seat first")
            if t.closed:
                raise ProtocolError("game_over")
            if not 0 <= seat < t.num_seats or t.seats[seat].kind == "dummy":
                raise ProtocolError("no_seat", f"seat {seat} cannot be taken")
            row = t.seats[seat]
            if row.kind == "person" and (row.person != conn.person or conn.person is None):
                raise ProtocolError("seat_taken")
            first = self._hold(t, conn.person, seat)
            returning = first is None  # this person held this very seat before
            # A bot's seat is taken only with its invite (even by the person who once
            # held it: he gave it up); an open seat of a private table by its invite or
            # by the person who held it.
            need = row.kind == "bot" or (not t.public and not returning)
            if need and not same_code(msg.invite, row.invite):
                why = "a bot's seat is taken with its invite link" if row.kind == "bot" else None
                raise ProtocolError("bad_invite", why)
            token = secrets.token_urlsafe(24)
            tok = hash_token(token)
            new = SeatRow(seat, "person", None, msg.name, tok, row.invite, conn.person)
            before = f"the {row.level} bot" if row.kind == "bot" else row.name
            text = f"{msg.name} takes over {t.label(seat)}" + (f" from {before}" if before else "")
            notice = t.notice(seat, "seat", text) if row.person != conn.person else None
            await t.save_seat(new, holder=first, notice=notice)
            self._take_over(t, seat, conn)
            t.ready.discard(seat)
            conn.seat = seat
            conn.reset_cursors()
            log.info("table %s: seat %d taken", t.id, seat)
            conn.send({"type": "joined", "ref": msg.id, "seat": seat, "token": token})
            t.seats_changed()
            await t.maybe_first_deal()
        t.wake.set()

    async def on_leave(self, conn: Conn, t: LiveTable, msg: Leave) -> None:
        """``leave``: give up the seat (it becomes open); stay as a spectator."""
        async with t.lock:
            seat = self._seated(conn, t)
            if t.closed:
                raise ProtocolError("game_over", "the match is over: its seats stay as they were")
            row = t.seats[seat]
            new = SeatRow(seat, "open", None, None, None, row.invite)
            notice = t.notice(seat, "seat", f"{row.name} leaves {t.label(seat)}")
            await t.save_seat(new, notice=notice)
            if t.seat_conn.get(seat) is conn:
                del t.seat_conn[seat]
            t.ready.discard(seat)
            conn.seat = None
            conn.reset_cursors()
            log.info("table %s: seat %d left", t.id, seat)
            conn.send({"type": "left", "ref": msg.id, "seat": seat})
            t.seats_changed()
            if t.ready_for_next():
                await t.deal()

    async def on_replace(self, conn: Conn, t: LiveTable, msg: Replace) -> None:
        """``replace``: a seated player puts a bot in an open seat or an absent player's."""
        if conn.seat is None:
            raise ProtocolError("not_player")
        seat = msg.seat
        try:
            level = self.check_level(msg.level or "heuristic", "level")
        except FieldError as e:
            raise ProtocolError("bad_level", e.message) from None
        async with t.lock:
            self._seated(conn, t)
            if t.closed:
                raise ProtocolError("game_over")
            if not 0 <= seat < t.num_seats or t.seats[seat].kind in ("dummy", "bot"):
                raise ProtocolError("no_seat", f"seat {seat} has no player to replace")
            if t.connected(seat):
                raise ProtocolError("seat_present")
            row = t.seats[seat]
            new = SeatRow(seat, "bot", level, f"{level} bot", None, row.invite)
            notice = t.notice(seat, "seat", f"a {level} bot takes over {t.label(seat)}")
            await t.save_seat(new, notice=notice)
            t.ready.discard(seat)
            log.info("table %s: seat %d given to a %s bot", t.id, seat, level)
            t.seats_changed()
            await t.maybe_first_deal()
            if t.ready_for_next():
                await t.deal()
        t.wake.set()

    async def on_act(self, conn: Conn, t: LiveTable, msg: Act) -> None:
        """``act``: take an action for a seat this connection decides for."""
        if conn.seat is None:
            raise ProtocolError("not_player")
        async with t.lock:
            mine = self._seated(conn, t)
            state = t.table.state
            if t.closed:
                raise ProtocolError("game_over")
            if state is None:
                raise ProtocolError("not_started")
            if state.is_terminal():
                raise ProtocolError("hand_over", "the hand is over: send next for the next hand")
            if msg.expect is not None and msg.expect != t.seq:
                raise ProtocolError("stale", f"the table is at seq {t.seq}, not {msg.expect}")
            controls = t.controls(mine)
            seat, a = parse_client_action(msg.action, t.num_seats, controls, state)
            if seat not in controls:
                raise ProtocolError("not_your_seat", f"you do not decide for seat {seat}")
            try:
                a = state.parse(a)
            except InvalidActionError as e:
                raise ProtocolError("invalid_action", str(e)) from None
            if a not in state.legal_actions(seat):
                why = scrub(state.why_illegal(a, seat), t.observation(mine))
                if not state.legal_actions(seat):
                    raise ProtocolError("not_your_turn", why)
                raise ProtocolError("illegal", why)
            await t.commit_action(seat, a)

    async def on_next(self, conn: Conn, t: LiveTable, msg: Next) -> None:
        """``next``: this player is ready for the next hand."""
        if conn.seat is None:
            raise ProtocolError("not_player")
        async with t.lock:
            seat = self._seated(conn, t)
            st = t.table.state
            if st is None or not st.is_terminal() or t.match_over() or t.closed:
                raise ProtocolError("not_ready")
            t.ready.add(seat)
            if t.ready_for_next():
                await t.deal()
            else:
                t.broadcast()

    async def on_hint(self, conn: Conn, t: LiveTable, msg: Hint) -> None:
        """``hint``: what the hint bot would do for this player's seat (one at a time).

        The hint is worked out in a task of its own, so the connection is answered
        meanwhile; a second ``hint`` before the first is answered is ``busy``.
        """
        if conn.seat is None or t.seat_conn.get(conn.seat) is not conn:
            raise ProtocolError("not_player")
        if conn.hinting:
            raise ProtocolError("busy", "a hint is being worked out for you")
        st = t.table.state
        if st is None or st.is_terminal() or t.closed:
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
        state = st.clone()

        async def work() -> None:
            a, _ = await self.run_bot(t.owner, level, state, seat, seed, kind)
            if a is None:
                a = state.legal_actions(seat)[0] if kind == "act" else None
            out: JSON = {"type": "hint", "ref": msg.id, "seq": seq, "seat": seat, "level": level}
            if a is None:
                out.update({"action": None, "text": "no signal"})
            else:
                out.update(views.action_text(seat, a))
            conn.send(out)

        conn.hint_task = asyncio.create_task(work(), name=f"hint-{conn.id}")


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
    "FieldError",
    "Hub",
    "LiveTable",
    "Settings",
    "decide",
    "hash_token",
    "merge_notices",
]
