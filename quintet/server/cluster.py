"""Several server processes, one site: table leases, fenced writes and relays over Redis.

With ``quintet serve --redis URL`` (and a PostgreSQL ``--db``) any number of server
processes share one database and one Redis. Each table is run by exactly one of them at
a time, its *owner*, which holds it in memory, runs its bots and answers its messages
as a single server does (:class:`ClusterHub` is a :class:`~quintet.server.live.Hub`).

* **Leases.** A process owns a table while it holds the Redis key
  ``<prefix>:lease:<table>`` (its process id; ``SET NX PX``, ``lease_seconds``, 3 s),
  renewed every ``renew_seconds`` (1 s) by one script for all its tables. A renewal
  that finds the key another process's loses the table at once: its bots stop and its
  connections are closed (the pages reconnect, and reach the new owner).
* **Fencing.** Taking a table increments its ``fence`` column in the database (the new
  owner's token, migration 0006); every write of an owner first checks, in the same
  transaction, that the token is still the table's (:func:`check_fence`, which also
  locks the table's row until the commit). A process that lost a table without knowing
  it (paused past its lease) therefore stores nothing more: its write fails, and since
  an action is made in memory and broadcast only after its write is committed, it never
  broadcasts an action the store refused; it drops the table at once. The new owner
  reads the table only after its own token is committed, so it sees every write the old
  owner made. The token lives in the database, beside the writes it fences, so a Redis
  restarted empty cannot hand out an old one again.
* **Relays.** Any process accepts any websocket. A ``hello`` for a table another
  process owns makes this process the connection's *relay*: each message the client
  sends goes to the owner over Redis pub/sub (the owner's channel
  ``<prefix>:proc:<process>``), tagged with the relay's connection id, and the owner
  handles it on a :class:`ProxyConn`, whose messages go back on the relay's channel to
  the websocket. The owner treats a proxy as its own connection (the same handlers, the
  same lock, each connection its own seat's view), so what a connection may see is
  decided where the cards are, and hidden cards never leave the owner for a connection
  that may not see them. Person ids, seat tokens and the hello/join handshake go the
  same way.
* **Taking over.** A table nobody owns (its owner died, or it was never loaded) is
  taken by the process that needs it (a ``hello`` for it) or by the sweep every
  ``takeover_seconds`` (1 s) of the unfinished tables in the database: take the lease,
  increment the fence, then load the table by replaying its stored actions (as a
  restart does) and start its bots. When an owner dies (SIGKILL) its leases expire
  within ``lease_seconds``; its relays notice at once (its channel has lost its
  subscriber) and close its connections, and the pages reconnect: a ``hello`` waits
  while the dead owner's lease runs out, then takes the table over. Nothing accepted is
  lost, since an action is acknowledged (broadcast) only once it is committed.
* **Lobby.** The lobby is read from the database, so every process shows the same:
  each owner keeps the live part of its public tables' lobby lines (who is connected,
  spectators) in Redis (``<prefix>:line:<table>``, ``<prefix>:present``).

Bots run on the owner only. Redis is needed to run: without it no lease can be
renewed, and after ``lease_seconds`` every process stops running its tables.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import redis.asyncio as aioredis
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from quintet.errors import InvalidOptionError, QuintetError
from quintet.server import db, metrics
from quintet.server.conn import Conn
from quintet.server.db import CLOSED, ActionRow, Job, Store, TableRow, actions_t, tables_t
from quintet.server.handlers import drop_hint
from quintet.server.live import Hub
from quintet.server.livetable import LiveTable
from quintet.server.messages import Hello, parse_message
from quintet.server.protocol import ProtocolError, dumps, error
from quintet.server.settings import Settings

log = logging.getLogger("quintet.server")

JSON = dict[str, Any]

_PREFIX = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
#: Unowned tables one sweep takes at most (the next sweep takes more).
TAKE_BATCH = 500
#: Connections to Redis a process opens at most (one is its subscription).
REDIS_CONNECTIONS = 64
#: How long a lobby line lives in Redis, and how often its owner writes it again anyway.
LINE_TTL = 30.0
LINE_REFRESH = 10.0
#: A PostgreSQL advisory lock: one process migrates the schema at a time.
MIGRATE_LOCK = 0x71756E74  # "qunt"
#: The close code and reason a connection gets when its table moved to another process.
MOVED = (1012, "the table moved to another server process: reconnect")


def check_settings(settings: Settings) -> None:
    """Check the settings of a process of several (``redis_url`` set).

    Raises:
        InvalidOptionError: naming the setting that is wrong.
    """
    if not settings.db_url.startswith("postgresql"):
        raise InvalidOptionError(
            "--redis needs a PostgreSQL database (--db postgresql+psycopg://...): the "
            "processes share it, and its row locks fence their writes"
        )
    if not _PREFIX.fullmatch(settings.redis_prefix):
        raise InvalidOptionError("redis_prefix: 1 to 64 letters, digits and . _ : -")
    for name in ("lease_seconds", "renew_seconds", "takeover_seconds"):
        if not getattr(settings, name) > 0:
            raise InvalidOptionError(f"{name} must be positive")
    if settings.renew_seconds * 2 > settings.lease_seconds:
        raise InvalidOptionError(
            "renew_seconds must be at most half of lease_seconds: a lease is renewed well "
            "before it runs out"
        )


# ------------------------------------------------------------------ fencing


class LostLease(ProtocolError):
    """Another process has taken the table over: this process's write was refused."""

    def __init__(self, table_id: str) -> None:
        super().__init__("server_error", MOVED[1])
        self.table_id = table_id


@dataclass
class Fence:
    """This process's hold on one table: its fencing token, and whether it was lost."""

    table_id: str
    token: int = 0
    lost: bool = False


#: The table whose lock the current task holds (its writes are fenced with it).
CURRENT: contextvars.ContextVar[Fence | None] = contextvars.ContextVar(
    "quintet_fence", default=None
)


class FencedLock(asyncio.Lock):
    """A table's lock that fences every store write made while it is held.

    Every change of a table is made under its lock (:mod:`quintet.server.livetable`),
    so the store's writes made meanwhile are the owner's writes of that table:
    :class:`FencedStore` checks the lock's token in their transaction.
    """

    def __init__(self, fence: Fence) -> None:
        super().__init__()
        self.fence = fence
        self._reset: contextvars.Token[Fence | None] | None = None

    async def __aenter__(self) -> None:
        await self.acquire()
        self._reset = CURRENT.set(self.fence)

    async def __aexit__(self, *exc: object) -> None:
        if self._reset is not None:
            CURRENT.reset(self._reset)
            self._reset = None
        self.release()


def claim_fences(conn: Connection, table_ids: list[str]) -> dict[str, int]:
    """Increment the tables' fencing tokens; return the new ones (tables that exist).

    Each row's lock waits for a write of the old owner still in progress: once this
    commits, the old owner's writes are refused and every one it made is visible.
    """
    q = (
        tables_t.update()
        .where(tables_t.c.id.in_(table_ids))
        .values(fence=tables_t.c.fence + 1)
        .returning(tables_t.c.id, tables_t.c.fence)
    )
    return {r.id: int(r.fence) for r in conn.execute(q)}


def check_fence(conn: Connection, fence: Fence) -> None:
    """Lock the table's row and check that ``fence`` is still its token.

    Raises:
        LostLease: another process took the table over (the transaction must not commit).
    """
    if check_fences(conn, [fence]).get(fence.table_id) != fence.token:
        raise LostLease(fence.table_id)


def check_fences(conn: Connection, fences: list[Fence]) -> dict[str, int]:
    """Lock the rows of the fences' tables (until the commit); return their tokens now."""
    q = (
        sa.select(tables_t.c.id, tables_t.c.fence)
        .where(tables_t.c.id.in_(sorted({f.table_id for f in fences})))
        .order_by(tables_t.c.id)  # rows locked in one order: no deadlock between batches
        .with_for_update()
    )
    return {r.id: int(r.fence) for r in conn.execute(q)}


class _Batch(threading.local):
    """The fences of the batch the store's writer commits now (its thread's), and the
    tokens read under the row locks of its transaction."""

    fences: list[Fence]
    checked: tuple[Any, dict[str, int]] | None = None

    def __init__(self) -> None:
        self.fences = []


class FencedStore(Store):
    """The :class:`~quintet.server.db.Store` of a process of several: a write made under
    a table's :class:`FencedLock` runs after the check of its token (:func:`check_fence`),
    in its transaction.

    The jobs the store commits together are checked in one statement, which locks the
    rows of all their tables (a write costs no statement more). A write refused
    (:class:`LostLease`) calls :attr:`on_lost` with the table's id before it is raised:
    the process drops the table at once.
    """

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.on_lost: Callable[[str], None] | None = None
        self._batch = _Batch()

    async def _submit(self, job: Job | None, row: ActionRow | None) -> Any:
        """Queue a write fenced by the lock held (if any): its check runs in the
        transaction before its job, and before the action rows of the batch.

        Raises:
            LostLease: the table is another process's now (nothing was written).
        """
        fence = CURRENT.get()
        if fence is None:
            return await super()._submit(job, row)
        if fence.lost:
            raise LostLease(fence.table_id)

        def fenced(conn: Connection) -> Any:
            self._check(conn, fence)
            return None if job is None else job(conn)

        fenced.fence = fence  # type: ignore[attr-defined]
        try:
            return await super()._submit(fenced, row)
        except LostLease:
            fence.lost = True
            if self.on_lost is not None:
                self.on_lost(fence.table_id)
            raise

    async def write_unfenced(self, job: Job) -> Any:
        """Run ``job`` in a committed transaction, whatever lock is held (new tables)."""
        return await super()._submit(job, None)

    def _check(self, conn: Connection, fence: Fence) -> None:
        """Check a job's fence: the tokens of its batch are read once a transaction (the
        batch's, or a job's own when a failing batch is committed job by job)."""
        batch = self._batch
        txn = conn.get_transaction()
        if batch.checked is None or batch.checked[0] is not txn:
            fences = batch.fences if fence in batch.fences else [fence]
            batch.checked = (txn, check_fences(conn, fences))
        if batch.checked[1].get(fence.table_id) != fence.token:
            raise LostLease(fence.table_id)

    def _execute(self, batch: Any, conn: Connection) -> list[tuple[bool, Any]]:
        self._batch.fences = [f for job, _, _, _ in batch if (f := getattr(job, "fence", None))]
        self._batch.checked = None
        try:
            return super()._execute(batch, conn)
        finally:
            self._batch.fences = []
            self._batch.checked = None


# --------------------------------------------------------------- the database


def load_tables(conn: Connection, table_ids: list[str]) -> list[TableRow]:
    """Return the stored tables of ``table_ids`` with their actions (those that exist)."""
    if not table_ids:
        return []
    rows = list(
        conn.execute(
            sa.select(tables_t, db._LAST_ACTION)
            .where(tables_t.c.id.in_(table_ids))
            .order_by(tables_t.c.created_at, tables_t.c.id)
        )
    )
    ids = [r.id for r in rows]
    seats = db._seats_of(conn, ids)
    acts: dict[str, list[tuple[int, int, int]]] = {i: [] for i in ids}
    if ids:
        q = (
            sa.select(actions_t.c.table_id, actions_t.c.hand, actions_t.c.seat, actions_t.c.action)
            .where(actions_t.c.table_id.in_(ids))
            .order_by(actions_t.c.table_id, actions_t.c.seq)
        )
        for a in conn.execute(q):
            acts[a.table_id].append((a.hand, a.seat, a.action))
    return db._extras(conn, [db._table_row(r, seats[r.id], acts[r.id]) for r in rows])


def unfinished_ids(conn: Connection) -> list[str]:
    """Return the ids of the tables in play (not finished or abandoned), oldest first."""
    q = (
        sa.select(tables_t.c.id)
        .where(tables_t.c.status.not_in(CLOSED))
        .order_by(tables_t.c.created_at, tables_t.c.id)
    )
    return [r.id for r in conn.execute(q)]


def lobby_ids(
    conn: Connection, idle: datetime, present: list[str], limit: int, offset: int
) -> tuple[list[str], int]:
    """Return a page of the lobby's tables (ids, newest first) and their number.

    The lobby's tables are the public tables in play that changed since ``idle`` or have
    a person connected (``present``), as :meth:`~quintet.server.live.Hub.lobby` says.
    """
    active = sa.or_(
        tables_t.c.updated_at >= idle,
        idle <= db._LAST_ACTION,
        tables_t.c.id.in_(present),
    )
    where = sa.and_(tables_t.c.public.is_(True), tables_t.c.status.not_in(CLOSED), active)
    q = (
        sa.select(tables_t.c.id)
        .where(where)
        .order_by(tables_t.c.created_at.desc(), tables_t.c.id)
        .limit(limit)
        .offset(offset)
    )
    ids = [r.id for r in conn.execute(q)]
    total = conn.execute(sa.select(sa.func.count()).select_from(tables_t).where(where))
    return ids, int(total.scalar_one())


def migrate_locked(store: Store) -> None:
    """Create or upgrade the schema, one process at a time (a PostgreSQL advisory lock)."""
    with store.engine.connect() as conn:
        conn.exec_driver_sql(f"SELECT pg_advisory_lock({MIGRATE_LOCK})")
        try:
            store.migrate()
        finally:
            conn.exec_driver_sql(f"SELECT pg_advisory_unlock({MIGRATE_LOCK})")
            conn.commit()


# ---------------------------------------------------------------- messages


def pack(op: str, key: str, body: str) -> bytes:
    """Return one frame of a message between processes: ``op key length\\n`` and body.

    >>> list(unpack(pack("msg", "p1/7", '{"a":\\n1}') + pack("close", "p1/7", "")))
    [('msg', 'p1/7', '{"a":\\n1}'), ('close', 'p1/7', '')]
    """
    data = body.encode("utf-8", "surrogatepass")
    return b"%s %s %d\n" % (op.encode(), key.encode(), len(data)) + data


def unpack(payload: bytes) -> Iterator[tuple[str, str, str]]:
    """Yield the ``(op, key, body)`` frames of a published message."""
    i = 0
    while i < len(payload):
        j = payload.index(b"\n", i)
        op, key, n = payload[i:j].split(b" ")
        end = j + 1 + int(n)
        yield op.decode(), key.decode(), payload[j + 1 : end].decode("utf-8", "surrogatepass")
        i = end


def _hello_of(text: str) -> Hello | None:
    """Return a client message if it is a well-formed ``hello`` (else None)."""
    if '"hello"' not in text:
        return None
    try:
        msg = parse_message(text)
    except ProtocolError:
        return None
    return msg if isinstance(msg, Hello) else None


async def _never(*args: Any) -> None:  # a proxy's socket: never written to
    raise RuntimeError("a proxy connection has no socket")


class ProxyConn(Conn):
    """The owner's end of a connection that another process (its relay) holds.

    What it is sent goes to the relay, which queues it on the websocket with the usual
    limits (a client too slow to read is dropped there); what the client sends arrives
    in :attr:`inbox` and is handled in order by one task, as a websocket's messages are.
    """

    def __init__(
        self,
        hub: ClusterHub,
        relay: str,
        remote: str,
        person: str | None,
        client: str | None,
    ) -> None:
        super().__init__(_never, _never, hub.settings, person)
        self.hub = hub
        self.relay = relay  # the relay's process id
        self.remote = remote  # the connection's id there
        self.key = f"{relay}/{remote}"
        self.client = client
        self.inbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    def send(self, msg: JSON | str) -> None:
        """Send a message to the client, through its relay."""
        if self.closed:
            return
        if isinstance(msg, bytes | bytearray):  # ready JSON as UTF-8 bytes
            text = bytes(msg).decode()
        else:
            text = msg if isinstance(msg, str) else dumps(msg)
        self.hub.post(self.relay, "send", self.remote, text)

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Close the client's websocket (after what was sent) and end this connection."""
        if self.closed:
            return
        self.closed = True
        self.hub.post(self.relay, "shut", self.remote, dumps({"code": code, "reason": reason}))
        self.inbox.put_nowait(None)


@dataclass
class Relay:
    """A websocket of this process whose table another process owns."""

    conn: Conn
    owner: str  # the owner's process id
    table: str
    hello: str  # the hello's text, sent again if the owner says the table moved


# -------------------------------------------------------------------- the hub

_RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
  else
    lost[#lost + 1] = i
  end
end
return lost
"""

_RELEASE = """
local n = 0
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('DEL', key)
    n = n + 1
  end
end
return n
"""


class Renewer(threading.Thread):
    """Renews a process's leases every ``renew_seconds``, on a thread of its own.

    The event loop of a busy server may run late by a second or more (thousands of
    messages ready at once), and a renewal waiting for it could let a lease run out
    under a process that is well: so the renewals do not wait for the loop. They stop
    when the loop itself stops running: the thread asks the loop to note the time each
    round, and renews nothing once the loop has not done so for ``lease_seconds`` (a
    process stuck for that long lets the others take its tables). Leases found lost are
    handed to the loop, which drops their tables.
    """

    def __init__(self, hub: ClusterHub, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(name="quintet-lease-renewer", daemon=True)
        import redis

        assert hub.settings.redis_url is not None
        self.hub = hub
        self.loop = loop
        every = hub.settings.renew_seconds
        self.client = redis.Redis.from_url(
            hub.settings.redis_url, socket_timeout=2 * every, socket_connect_timeout=every
        )
        self.script = self.client.register_script(_RENEW)
        self.done = threading.Event()
        self.seen = time.monotonic()  # when the loop last noted the time

    def _note(self) -> None:
        self.seen = time.monotonic()

    def run(self) -> None:
        """Renew until :attr:`done` is set."""
        hub = self.hub
        settings = hub.settings
        stuck = False
        while not self.done.wait(settings.renew_seconds):
            if hub._stopping:
                break
            if time.monotonic() - self.seen > settings.lease_seconds:
                if not stuck:
                    log.warning("the event loop has not run for %g s: leases left to run out",
                                settings.lease_seconds)  # fmt: skip
                stuck = True
                continue
            stuck = False
            try:
                self.loop.call_soon_threadsafe(self._note)
                ids = list(hub.leases)  # one C-level copy: safe while the loop changes it
                lost = []
                if ids:
                    ms = int(settings.lease_seconds * 1000)
                    keys = [hub.lease_key(i) for i in ids]
                    lost = [ids[int(k) - 1] for k in self.script(keys=keys, args=[hub.proc, ms])]
                hub.renewed_at = time.monotonic()
                if lost:
                    self.loop.call_soon_threadsafe(hub._lose_many, lost)
            except RuntimeError:  # the loop is closed: the process is stopping
                break
            except Exception as e:
                log.warning("renewing leases failed: %s: %s", type(e).__name__, e)
        self.client.close()


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else str(value)


class ClusterHub(Hub):
    """A :class:`~quintet.server.live.Hub` that is one process of several (see the
    module's documentation): it runs the tables it holds the lease of, relays the
    connections whose tables other processes run, and takes over tables nobody runs."""

    store: FencedStore

    def __init__(self, settings: Settings, store: FencedStore) -> None:
        super().__init__(settings, store)
        assert settings.redis_url is not None
        self.prefix = settings.redis_prefix
        # At most REDIS_CONNECTIONS at once: the others wait for one (many pages
        # reconnect at once after a failover).
        pool = aioredis.BlockingConnectionPool.from_url(
            settings.redis_url,
            max_connections=REDIS_CONNECTIONS,
            timeout=20,
            socket_connect_timeout=5,
        )
        self.redis: aioredis.Redis = aioredis.Redis(connection_pool=pool)
        #: The tables this process owns (holds the lease of), with their fences.
        self.leases: dict[str, Fence] = {}
        #: Local websockets relayed to the owner of their table, by connection id.
        self.relays: dict[int, Relay] = {}
        #: Connections other processes relay to this one, by ``relay/id``.
        self.proxies: dict[str, ProxyConn] = {}
        self._taking: dict[str, asyncio.Task[dict[str, LiveTable]]] = {}
        self._pending: set[str] = set()  # leases being set up (not renewed away)
        self._broken: set[str] = set()  # tables that do not replay (not taken again)
        self._outbox: dict[str, list[bytes]] = {}
        self._out_wake = asyncio.Event()
        self._lines: dict[str, tuple[Any, float]] = {}  # lobby lines written, by table
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = False  # the renewals and sweeps end
        self._closing = False  # the messages to and from other processes end
        self._rehellos: set[asyncio.Task[None]] = set()
        self._silent: dict[str, float] = {}  # processes found not listening, and when
        self._sweep_now = asyncio.Event()  # set: look for tables nobody runs now
        self._pubsub: Any = None
        self.renewed_at = time.monotonic()
        self._renewer: Renewer | None = None
        self._release = self.redis.register_script(_RELEASE)
        store.on_lost = lambda table_id: self._lose(
            table_id, "a write was refused: another process took it over"
        )

    # ------------------------------------------------------------------ keys

    def lease_key(self, table_id: str) -> str:
        """The Redis key of a table's lease."""
        return f"{self.prefix}:lease:{table_id}"

    def channel(self, proc: str) -> str:
        """The pub/sub channel of a process."""
        return f"{self.prefix}:proc:{proc}"

    def _line_key(self, table_id: str) -> str:
        return f"{self.prefix}:line:{table_id}"

    @property
    def _present_key(self) -> str:
        return f"{self.prefix}:present"

    def _key(self, conn: Conn) -> str:
        return f"{self.proc}/{conn.id}"

    def runs(self, table_id: str) -> bool:
        """Whether this process runs the table now (holds its lease)."""
        return table_id in self.leases

    def relayed_count(self) -> int:
        """How many websockets of this process play a table another process runs."""
        return len(self.relays)

    # -------------------------------------------------------------- lifetime

    def _migrate(self) -> None:
        migrate_locked(self.store)

    async def start(self) -> None:
        """Migrate, connect to Redis, take the tables nobody runs, start the loops."""
        await self._prepare()
        try:
            await self.redis.ping()
        except Exception as e:
            raise RuntimeError(f"Redis does not answer ({type(e).__name__}: {e})") from None
        # The site's salt for the limits' keyed hashes (the first process makes it).
        salt_key = f"{self.prefix}:tally:salt"
        await self.redis.set(salt_key, secrets.token_hex(16), nx=True)
        salt = await self.redis.get(salt_key)
        self.tally.set_salt(salt.encode() if isinstance(salt, str) else salt or b"")
        await self.sync_tally()
        self._pubsub = self.redis.pubsub()
        await self._pubsub.subscribe(self.channel(self.proc))
        metrics.set_log_process(self.proc)
        self.renewed_at = time.monotonic()
        self._renewer = Renewer(self, asyncio.get_running_loop())
        self._renewer.start()
        self._tasks = [
            asyncio.create_task(self._listen(), name="quintet-cluster-listen"),
            asyncio.create_task(self._publish(), name="quintet-cluster-publish"),
            asyncio.create_task(self._loop(self.settings.renew_seconds, self._tick), name="tick"),
            asyncio.create_task(
                self._loop(self.settings.takeover_seconds, self.take_unowned, self._sweep_now),
                name="takeover",
            ),
        ]
        taken = await self.take_unowned()
        log.info("process %s: %d tables taken over at start", self.proc, len(taken))
        self._sweeper = asyncio.create_task(self._sweep(), name="quintet-sweeper")

    async def stop(self) -> None:
        """Hand every table back (release the leases, so another process takes them at
        once), close the connections, then stop as a single server does."""
        self._stopping = True  # the renewals and sweeps end at their next turn
        if self._renewer is not None:
            self._renewer.done.set()
            await asyncio.to_thread(self._renewer.join, 5.0)
        for t in self.tables.values():
            t.stop_bots()
        ids = list(self.leases)
        for fence in self.leases.values():
            fence.lost = True
        self.leases.clear()
        if ids:
            try:
                await asyncio.wait_for(
                    self._release(keys=[self.lease_key(i) for i in ids], args=[self.proc]), 2.0
                )
            except Exception as e:
                log.warning("leases not released (%s): they run out", type(e).__name__)
        for r in list(self.relays.values()):
            r.conn.close(1012, "server restarting")
        self.relays.clear()
        for p in list(self.proxies.values()):
            p.close(1012, "server restarting")
        await super().stop()
        for _ in range(100):  # what is queued for other processes goes out
            if not self._outbox:
                break
            await asyncio.sleep(0.01)
        self._closing = True
        self._out_wake.set()
        # The loops end at their next turn; a cancellation alone can be lost inside a
        # Redis call (then the loop would run on).
        _, late = await asyncio.wait(self._tasks, timeout=3.0)
        for task in late:
            task.cancel()
        if self._pubsub is not None:
            await self._pubsub.aclose()
        await self.redis.aclose(close_connection_pool=True)

    async def _loop(
        self, every: float, step: Callable[[], Any], early: asyncio.Event | None = None
    ) -> None:
        while True:
            if early is None:
                await asyncio.sleep(every)
            else:  # a step sooner when asked (an owner died: its leases run out)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(early.wait(), every)
                early.clear()
            if self._stopping:
                return
            try:
                await step()
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("cluster %s failed: %s: %s", step.__name__, type(e).__name__, e)
            if time.monotonic() - self.renewed_at > self.settings.lease_seconds and self.leases:
                # No renewal for a whole lease: other processes may run these tables now.
                for table_id in list(self.leases):
                    self._lose(table_id, "its lease could not be renewed (Redis)")

    async def health(self) -> JSON:
        """:meth:`Hub.health`, with Redis reachable and the processes of the site."""
        out = await super().health()
        try:
            channels = await asyncio.wait_for(self.redis.pubsub_channels(self.channel("*")), 2.0)
            out["redis"] = True
            out["processes"] = len(channels)
        except Exception:
            out["redis"] = False
        out["ok"] = bool(out["database"] and out["redis"])
        return out

    # ---------------------------------------------------------------- leases

    async def _owner(self, table_id: str) -> str | None:
        """Return the process that holds the table's lease, or None."""
        return _text(await self.redis.get(self.lease_key(table_id)))

    async def _reachable(self, proc: str) -> bool:
        """Whether a process listens on its channel (a process that died does not).

        A process found silent is taken as such for a second: the pages reconnecting
        after an owner died ask Redis once a second, not each.
        """
        silent = self._silent.get(proc)
        if silent is not None and time.monotonic() - silent < 1.0:
            return False
        got = await self.redis.pubsub_numsub(self.channel(proc))
        if bool(got) and int(got[0][1]) > 0:
            self._silent.pop(proc, None)
            return True
        self._silent[proc] = time.monotonic()
        return False

    async def take(self, table_id: str) -> LiveTable | None:
        """Return the table if this process runs it, taking it if nobody does."""
        if table_id in self.leases and table_id not in self._taking:
            t = self.tables.get(table_id)
            if t is not None or table_id in self._pending:
                return t
            # A table that is over leaves memory with its last connection and its lease
            # is handed back at the next tick (_tick): hand it back now and take the
            # table again from storage, rather than answer that there is no such table.
            await self._hand_back([table_id])
        if not 1 <= len(table_id) <= 32:
            return None
        if table_id not in self._taking:  # a lease is taken only for a table that exists

            def exists(conn: Connection) -> bool:
                q = sa.select(tables_t.c.id).where(tables_t.c.id == table_id)
                return conn.execute(q).first() is not None

            if not await self.store.read(exists):
                return None
        self._start_taking([table_id])
        task = self._taking.get(table_id)
        if task is None:
            return self.tables.get(table_id) if table_id in self.leases else None
        got = await asyncio.shield(task)
        return got.get(table_id)

    async def take_unowned(self) -> list[str]:
        """Take the unfinished tables that nobody runs (a sweep); return their ids."""
        ids = await self.store.read(unfinished_ids)
        busy = self.leases.keys() | self._taking.keys() | self._broken
        free = [i for i in ids if i not in busy]
        unowned: list[str] = []
        for k in range(0, len(free), 1000):
            chunk = free[k : k + 1000]
            owners = await self.redis.mget([self.lease_key(i) for i in chunk])
            unowned += [i for i, o in zip(chunk, owners, strict=True) if o is None]
        if not unowned:
            return []
        batch = unowned[:TAKE_BATCH]
        self._start_taking(batch)
        tasks = {self._taking[i] for i in batch if i in self._taking}
        taken: list[str] = []
        for task in tasks:
            taken += list(await asyncio.shield(task))
        return taken

    def _start_taking(self, ids: list[str]) -> None:
        new = [i for i in ids if i not in self._taking and i not in self.leases]
        if not new:
            return
        # A context of its own: no table's lock (and fence) is held by the taking.
        task = asyncio.create_task(
            self._take_batch(new), name="quintet-take", context=contextvars.Context()
        )
        for i in new:
            self._taking[i] = task

        def done(d: asyncio.Task[dict[str, LiveTable]]) -> None:
            for i in new:
                if self._taking.get(i) is d:
                    del self._taking[i]
            if not d.cancelled() and d.exception() is not None:
                log.warning("taking %d tables failed: %r", len(new), d.exception())

        task.add_done_callback(done)

    async def _take_batch(self, ids: list[str]) -> dict[str, LiveTable]:
        """Take the leases that are free, increment the fences, load and start the tables."""
        ms = int(self.settings.lease_seconds * 1000)
        pipe = self.redis.pipeline(transaction=False)
        for i in ids:
            pipe.set(self.lease_key(i), self.proc, nx=True, px=ms)
        got = await pipe.execute()
        mine = [i for i, ok in zip(ids, got, strict=True) if ok]
        if not mine:
            return {}
        fences = {i: Fence(i) for i in mine}
        self._pending.update(mine)
        self.leases.update(fences)
        out: dict[str, LiveTable] = {}
        try:
            tokens: dict[str, int] = await self.store.write_unfenced(
                lambda conn: claim_fences(conn, mine)
            )
            rows = await self.store.read(lambda conn: load_tables(conn, list(tokens)))
            for k, row in enumerate(rows):
                if k and not k % 25:
                    await asyncio.sleep(0)  # replaying is the loop's work: others go on
                fence = fences[row.id]
                fence.token = tokens[row.id]
                try:
                    t = self.live_table(row)
                except (QuintetError, ValueError):
                    log.exception("table %s does not replay: left out", row.id)
                    self._broken.add(row.id)
                    continue
                t.lock = FencedLock(fence)
                self.tables[row.id] = t  # (a copy shown of a table that is over is replaced)
                out[row.id] = t
        finally:
            self._pending.difference_update(mine)
            left = [i for i in mine if i not in out]
            for i in left:
                if self.leases.get(i) is fences[i]:
                    del self.leases[i]
            if left:
                await self._release(keys=[self.lease_key(i) for i in left], args=[self.proc])
        for t in out.values():
            if self.tables.get(t.id) is not t:
                continue  # lost meanwhile
            async with t.lock:
                await self._offered_levels_only(t)
            if self.tables.get(t.id) is t:
                t.start_bots()
                log.info("table %s taken (fence %d)", t.id, fences[t.id].token)
        return {i: t for i, t in out.items() if self.tables.get(i) is t}

    def _lose(self, table_id: str, why: str) -> None:
        """Stop running a table now: forget its lease, stop its bots, close its connections."""
        fence = self.leases.pop(table_id, None)
        if fence is None:
            return
        fence.lost = True
        self._lines.pop(table_id, None)
        t = self.tables.get(table_id)
        if t is None or getattr(t.lock, "fence", None) is not fence:
            return
        del self.tables[table_id]
        task = t.bot_task
        t.stop_bots()
        if task is not None and not task.done():
            # Cancelled from outside the task (this may run inside it).
            asyncio.get_running_loop().call_soon(task.cancel)
        for c in list(t.conns):  # off the table now: the new owner has them back
            drop_hint(c)
            c.close(*MOVED)
            c.table = None
            c.seat = None
        t.conns.clear()
        t.seat_conn.clear()
        log.warning("table %s: %s: no longer run here", table_id, why)

    def _lose_many(self, table_ids: list[str]) -> None:
        for table_id in table_ids:
            self._lose(table_id, "its lease is another process's")

    async def _hand_back(self, ids: list[str]) -> None:
        """Give up the leases of tables no longer in memory (held by this process)."""
        for i in ids:
            self.leases.pop(i).lost = True
        await self._release(keys=[self.lease_key(i) for i in ids], args=[self.proc])

    async def _tick(self) -> None:
        """Hand back the tables no longer in memory, check the other processes this one
        talks to, write the lobby lines, sample the metrics (the leases are renewed by
        the :class:`Renewer`)."""
        gone = [
            i
            for i in self.leases
            if i not in self.tables and i not in self._taking and i not in self._pending
        ]
        if gone:
            await self._hand_back(gone)
        await self._check_peers()
        await self._write_lobby()
        await self.sync_tally()
        metrics.sample(self)

    async def sync_tally(self) -> None:
        """Publish this process's counts for the site's limits and read the others'
        (:mod:`quintet.server.sitewide`): ``<prefix>:tally:<process>``, a hash that
        expires with a lease, and ``<prefix>:tally:procs``, the processes by expiry."""
        ms = int(self.settings.lease_seconds * 1000)
        now = int(time.time() * 1000)
        mine = f"{self.prefix}:tally:{self.proc}"
        procs = f"{self.prefix}:tally:procs"
        snap = self.tally.snapshot()
        pipe = self.redis.pipeline(transaction=True)
        pipe.delete(mine)
        if snap:
            pipe.hset(mine, mapping=snap)  # type: ignore[arg-type]
        pipe.pexpire(mine, ms)
        pipe.zadd(procs, {self.proc: now + ms})
        pipe.zremrangebyscore(procs, "-inf", now)
        pipe.pexpire(procs, 10 * ms)
        pipe.zrange(procs, 0, -1)
        got = await pipe.execute()
        others = [p for p in (_text(x) for x in got[-1]) if p and p != self.proc]
        fields: dict[str, dict[str, int]] = {}
        if others:
            read = self.redis.pipeline(transaction=False)
            for p in others:
                read.hgetall(f"{self.prefix}:tally:{p}")
            for p, h in zip(others, await read.execute(), strict=True):
                fields[p] = {str(_text(k)): int(v) for k, v in h.items()}
        self.tally.absorb(fields)

    # --------------------------------------------------------------- tables

    async def get_table(self, table_id: str) -> LiveTable | None:
        """Return a table to play (a ``hello``): one this process runs, or takes now.

        None if another process runs it (its connections are relayed there) or there is
        no such table.
        """
        if not isinstance(table_id, str) or not 1 <= len(table_id) <= 32:
            return None
        t = await self.take(table_id)
        if t is not None and t.closed:
            self._remember(t)
        return t

    async def view_table(self, table_id: str) -> LiveTable | None:
        """Return a table to show over HTTP: one run here, a game that is over (loaded
        to be shown), or a copy read from the database of a table another process runs
        (its seats show nobody connected)."""
        if table_id in self.leases:
            return await self.get_table(table_id)
        t = self.tables.get(table_id)
        if t is not None:
            self._remember(t)
            return t
        if not isinstance(table_id, str) or not 1 <= len(table_id) <= 32:
            return None
        row = await self.store.read(lambda conn: db.load_table(conn, table_id))
        if row is None:
            return None
        t = LiveTable(self, row)
        if t.closed:
            self.tables.setdefault(table_id, t)
            self._remember(t)
        return t

    async def _insert(self, row: TableRow) -> LiveTable:
        """Take the new table's lease, store its rows with its first fencing token."""
        ms = int(self.settings.lease_seconds * 1000)
        if not await self.redis.set(self.lease_key(row.id), self.proc, nx=True, px=ms):
            raise RuntimeError(f"table id {row.id} is taken")  # 72 random bits
        fence = Fence(row.id)
        self.leases[row.id] = fence
        self._pending.add(row.id)
        try:

            def job(conn: Connection) -> int:
                db.insert_table(conn, row)
                return claim_fences(conn, [row.id])[row.id]

            fence.token = await self.store.write_unfenced(job)
            t = self.live_table(row)
            t.lock = FencedLock(fence)
        except BaseException:
            self.leases.pop(row.id, None)
            await self._release(keys=[self.lease_key(row.id)], args=[self.proc])
            raise
        finally:
            self._pending.discard(row.id)
        return t

    # ------------------------------------------------------------------ lobby

    async def lobby_page(self, limit: int, offset: int = 0) -> JSON:
        """Return a page of the lobby, read from the database (every process the same),
        each line as its owner last wrote it in Redis (read from the database when no
        process runs the table)."""
        now = time.time()
        present = [
            _text(p) or "" for p in await self.redis.zrangebyscore(self._present_key, now, "+inf")
        ]
        idle = db.now() - timedelta(seconds=self.settings.lobby_idle_after)
        ids, total = await self.store.read(
            lambda conn: lobby_ids(conn, idle, present, limit, offset)
        )
        lines = await self.redis.mget([self._line_key(i) for i in ids]) if ids else []
        out: dict[str, JSON] = {}
        missing = []
        for i, line in zip(ids, lines, strict=True):
            t = self.tables.get(i) if i in self.leases else None
            if t is not None:
                out[i] = t.lobby_json()
            elif line is not None:
                out[i] = json.loads(line)
            else:
                missing.append(i)
        if missing:
            for row in await self.store.read(lambda conn: load_tables(conn, missing)):
                try:
                    out[row.id] = LiveTable(self, row).lobby_json()
                except (QuintetError, ValueError):
                    continue
        return {
            "tables": [out[i] for i in ids if i in out],
            "total": total,
            "offset": offset,
            "limit": limit,
        }

    async def _write_lobby(self) -> None:
        """Write the lobby lines of this process's public tables that changed, and which
        of them have a person connected."""
        now = time.time()
        pipe = self.redis.pipeline(transaction=False)
        present: dict[str, float] = {}
        absent: list[str] = []
        ms = int(LINE_TTL * 1000)
        for table_id in self.leases:
            t = self.tables.get(table_id)
            if t is None or t.closed or not t.public:
                continue
            if t.seat_conn:
                present[table_id] = now + 3 * self.settings.lease_seconds
            else:
                absent.append(table_id)
            # What a lobby line shows (not each action): seats, watchers, status, hands.
            key = (t.seats_version, len(t.conns), t.status_name(), len(t.table.match.hands))
            old = self._lines.get(table_id)
            if old is None or old[0] != key or now - old[1] > LINE_REFRESH:
                pipe.set(self._line_key(table_id), dumps(t.lobby_json()), px=ms)
                self._lines[table_id] = (key, now)
        if present:
            pipe.zadd(self._present_key, present)
        if absent:
            pipe.zrem(self._present_key, *absent)
        pipe.zremrangebyscore(self._present_key, "-inf", now)
        await pipe.execute()

    # ------------------------------------------------------------ messages

    async def handle(self, conn: Conn, text: str) -> None:
        """Answer a websocket's message, or relay it to the process running its table."""
        hello = _hello_of(text)
        if hello is not None:
            try:
                await self._hello(conn, hello, text)
            except Exception:  # Redis or the database failing: this connection is told
                log.exception("connection %d: routing a hello failed", conn.id)
                conn.send(error("server_error", None, hello.id))
            return
        r = self.relays.get(conn.id)
        if r is None:
            await super().handle(conn, text)
            return
        if not conn.allow():
            conn.send(error("rate_limited"))
            return
        self.post(r.owner, "msg", self._key(conn), text)

    async def _hello(self, conn: Conn, msg: Hello, text: str) -> None:
        """Route a ``hello``: answer it here if this process runs the table (taking it if
        nobody does), else relay the connection to the process that runs it."""
        deadline = time.monotonic() + self.settings.lease_seconds + 2.0
        while True:
            owner = self.proc if msg.table in self.leases else await self._owner(msg.table)
            if owner is None:
                t = await self.take(msg.table)
                owner = self.proc if t is not None else await self._owner(msg.table)
            if owner is None or owner == self.proc:  # run here (or no such table)
                self._unrelay(conn)
                await super().handle(conn, text)
                return
            if await self._reachable(owner):
                break
            # Its owner died: wait for its lease to run out (within lease_seconds).
            if time.monotonic() > deadline:
                conn.send(error("busy", "the table's server process does not answer", msg.id))
                return
            left = await self.redis.pttl(self.lease_key(msg.table))
            await asyncio.sleep(min(max(int(left), 0) / 1000 + 0.02, 1.0))
        r = self.relays.get(conn.id)
        if r is not None and r.owner != owner:
            self._unrelay(conn)
            r = None
        if not conn.allow():
            conn.send(error("rate_limited", None, msg.id))
            return
        if r is None:
            self.detach(conn)  # off a table run here
            self.relays[conn.id] = Relay(conn, owner, msg.table, text)
            who = {"person": conn.person, "client": conn.client}
            self.post(owner, "open", self._key(conn), dumps(who))
        else:
            r.table, r.hello = msg.table, text
        self.post(owner, "msg", self._key(conn), text)

    def _unrelay(self, conn: Conn) -> None:
        r = self.relays.pop(conn.id, None)
        if r is not None:
            self.post(r.owner, "close", self._key(conn), "")

    def disconnect(self, conn: Conn) -> None:
        """Forget a closed connection (and its proxy at the owner, if relayed)."""
        self._unrelay(conn)
        super().disconnect(conn)

    def post(self, proc: str, op: str, key: str, body: str) -> None:
        """Queue a frame for another process (sent in order, batched, by one task)."""
        self._outbox.setdefault(proc, []).append(pack(op, key, body))
        self._out_wake.set()

    async def _publish(self) -> None:
        while True:
            await self._out_wake.wait()
            self._out_wake.clear()
            batch, self._outbox = self._outbox, {}
            if not batch:
                if self._closing:
                    return
                continue
            procs = list(batch)
            try:
                pipe = self.redis.pipeline(transaction=False)
                for p in procs:
                    pipe.publish(self.channel(p), b"".join(batch[p]))
                counts = await pipe.execute()
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("publishing to other processes failed: %s", type(e).__name__)
                counts = [0] * len(procs)
            for p, n in zip(procs, counts, strict=True):
                if not n:  # nobody listens there: that process is gone
                    self._gone(p)
            if self._closing and not self._outbox:
                return

    async def _listen(self) -> None:
        while not self._closing:
            try:
                m = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=0.5)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("listening to other processes failed: %s", type(e).__name__)
                await asyncio.sleep(0.5)
                continue
            if m is None or m.get("type") != "message":
                continue
            for op, key, body in unpack(m["data"]):
                try:
                    self._on_frame(op, key, body)
                except Exception:
                    log.exception("a message from another process failed (%s)", op)

    def _on_frame(self, op: str, key: str, body: str) -> None:
        if op == "open":  # a relay opens a connection to a table of this process
            relay, _, remote = key.partition("/")
            who = json.loads(body)
            old = self.proxies.pop(key, None)
            if old is not None:
                self._drop_proxy(old)
            p = ProxyConn(self, relay, remote, who.get("person"), who.get("client"))
            self.proxies[key] = p
            p.task = asyncio.create_task(self._serve(p), name=f"proxy-{key}")
        elif op == "msg":
            to = self.proxies.get(key)
            if to is not None and not to.closed:
                to.inbox.put_nowait(body)
        elif op == "close":
            to = self.proxies.get(key)
            if to is not None:
                self._drop_proxy(to)
        elif op == "send":  # the owner sends one of this process's websockets a message
            r = self.relays.get(int(key))
            if r is not None:
                r.conn.send(body)
        elif op == "shut":
            r = self.relays.pop(int(key), None)
            if r is not None:
                how = json.loads(body)
                r.conn.close(int(how["code"]), str(how["reason"]))
        elif op == "moved":
            r = self.relays.pop(int(key), None)
            if r is not None:
                task = asyncio.create_task(self._rehello(r))
                self._rehellos.add(task)
                task.add_done_callback(self._rehellos.discard)

    def _drop_proxy(self, p: ProxyConn) -> None:
        """End a proxy whose relay closed its websocket (or died)."""
        p.closed = True
        p.inbox.put_nowait(None)

    async def _serve(self, p: ProxyConn) -> None:
        """Handle a proxy's messages in order, as a websocket's handler does."""
        try:
            while True:
                text = await p.inbox.get()
                if text is None:
                    break
                hello = _hello_of(text)
                if hello is not None and hello.table not in self.leases:
                    try:
                        t = await self.take(hello.table)
                        moved = t is None and await self._owner(hello.table) is not None
                    except Exception:
                        log.exception("proxy %s: taking table %s failed", p.key, hello.table)
                        p.send(error("server_error", None, hello.id))
                        continue
                    if moved:
                        self.post(p.relay, "moved", p.remote, "")  # the relay routes it anew
                        break
                await super().handle(p, text)
        finally:
            if self.proxies.get(p.key) is p:
                del self.proxies[p.key]
            self.disconnect(p)

    async def _rehello(self, r: Relay) -> None:
        msg = _hello_of(r.hello)
        if msg is not None and not r.conn.closed:
            await self._hello(r.conn, msg, r.hello)

    def _gone(self, proc: str) -> None:
        """Another process stopped listening (it died): close the websockets relayed to
        it (the pages reconnect) and end the proxies of its websockets."""
        if proc not in self._silent:
            # Its leases run out within lease_seconds: sweep then, not a second later.
            asyncio.get_running_loop().call_later(
                self.settings.lease_seconds + 0.05, self._sweep_now.set
            )
        self._silent[proc] = time.monotonic()
        if len(self._silent) > 1000:
            old = time.monotonic() - 60.0
            self._silent = {p: t for p, t in self._silent.items() if t > old}
        for r in [r for r in self.relays.values() if r.owner == proc]:
            del self.relays[r.conn.id]
            r.conn.close(1012, "the table's server process is gone: reconnect")
        for p in [p for p in self.proxies.values() if p.relay == proc]:
            self._drop_proxy(p)

    async def _check_peers(self) -> None:
        """Close what depends on a process that is gone, and relayed websockets whose
        table moved to another process."""
        owners = {r.owner for r in self.relays.values()}
        peers = sorted(owners | {p.relay for p in self.proxies.values()})
        if peers:
            counts = {
                _text(c): int(n)
                for c, n in await self.redis.pubsub_numsub(*[self.channel(p) for p in peers])
            }
            for p in peers:
                if not counts.get(self.channel(p)):
                    self._gone(p)
        relays = list(self.relays.values())
        if relays:
            now = await self.redis.mget([self.lease_key(r.table) for r in relays])
            for r, o in zip(relays, now, strict=True):
                if _text(o) != r.owner and self.relays.get(r.conn.id) is r:
                    del self.relays[r.conn.id]
                    r.conn.close(*MOVED)


__all__ = [
    "CURRENT",
    "ClusterHub",
    "Fence",
    "FencedLock",
    "FencedStore",
    "LostLease",
    "ProxyConn",
    "check_fence",
    "check_settings",
    "claim_fences",
    "load_tables",
    "lobby_ids",
    "pack",
    "unpack",
]
