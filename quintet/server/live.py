"""Tables in play: the server's authority over every table, its seats and connections.

The :class:`Hub` keeps the tables (:class:`~quintet.server.livetable.LiveTable`),
resumes the unfinished ones at start by replaying their stored actions, creates new
ones within the operator's limits, runs the bots off the event loop (search bots in
worker processes shared fairly between clients, each search with a hard time limit)
and closes abandoned tables. Its message handlers are in
:mod:`quintet.server.handlers`.

Seating rules (docs/server.md, "Security"): a person (the browser's cookie) holds at
most one seat of a table in a match, ever, except the lone player's dummy; a bot's
seat is taken by a person only with that seat's invite; a private table is seen only by
its players, its creator and holders of one of its links.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Any

from quintet.actions import Action
from quintet.errors import InvalidOptionError, QuintetError
from quintet.game import GameState
from quintet.games import find_game
from quintet.server import db, ratings
from quintet.server.accounts import Account
from quintet.server.botjobs import advise, decide, warm_up
from quintet.server.conn import Conn
from quintet.server.db import SeatRow, Store, TableRow
from quintet.server.handlers import Handlers, fit_for, parse_client_action
from quintet.server.livetable import LiveTable, merge_notices
from quintet.server.messages import Act, CreateTable, FieldError, Hint, Join, Leave, Next, Replace
from quintet.server.metrics import TimedTable, process_id
from quintet.server.security import Buckets, count_down, hash_token
from quintet.server.settings import SEARCH_LEVELS, Settings
from quintet.server.sitewide import SiteTally
from quintet.server.social import Social
from quintet.server.workers import PoolBusy, PoolClosed, SearchFailed, SearchPool, SearchTimeout
from quintet.table import Table

log = logging.getLogger("quintet.server")

JSON = dict[str, Any]
#: Tables that are over kept in memory (and their replays) after being shown.
SHOWN_TABLES = 128


class Hub(Social, Handlers):
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
        #: Why the last analysis of a game failed (until it is asked for again).
        self.analysis_failures: dict[str, str] = {}
        self.analysis_clients: Counter[str] = Counter()  # analyses waiting, by client
        per_minute = 60.0
        self.create_buckets = Buckets(settings.create_rate / per_minute, settings.create_burst)
        self._loading: dict[str, asyncio.Task[LiveTable | None]] = {}
        self._shown: OrderedDict[str, None] = OrderedDict()
        #: Open websockets by client address (bounded by ``max_connections``).
        self.connections: Counter[str] = Counter()
        self._creating: Counter[str] = Counter()  # tables being created, by client
        self._creating_total = 0
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
        self._handlers.update(self.social_handlers())
        self.chat_buckets = Buckets(settings.chat_rate, settings.chat_burst)
        #: The site's limits, counted over every process (alone: this one's counts).
        self.tally = SiteTally()
        self.tally.count("connections", lambda: self.connections)
        self.tally.count("tables", self._creators)
        self.tally.rate("create", self.create_buckets)
        #: This server process's id (its host, pid and a random part).
        self.proc = process_id()

    # ------------------------------------------------------------- lifetime

    async def start(self) -> None:
        """Create or upgrade the schema, then resume every unfinished table."""
        await self._prepare()
        rows = await self.store.read(db.load_unfinished)
        for row in rows:
            try:
                t = self.live_table(row)
            except (QuintetError, ValueError):
                log.exception("table %s does not replay: left out", row.id)
                continue
            await self._offered_levels_only(t)
            self.tables[t.id] = t
            t.start_bots()
        log.info("resumed %d tables", len(self.tables))
        self._sweeper = asyncio.create_task(self._sweep(), name="quintet-sweeper")

    async def _prepare(self) -> None:
        """Create or upgrade the schema, load the bots, start the store's writer."""
        await asyncio.to_thread(self._migrate)
        # Load the search bots (numba) now rather than while tables are being played.
        from quintet.bots import levels

        await asyncio.to_thread(levels)
        self.store.start()

    def _migrate(self) -> None:
        self.store.migrate()

    def live_table(self, row: TableRow) -> LiveTable:
        """Return a stored table in memory (its match rebuilt from its actions), timed
        for the metrics (:class:`~quintet.server.metrics.TimedTable`)."""
        return TimedTable(self, row)

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

    def runs(self, table_id: str) -> bool:
        """Whether this process runs the table (one process: every table it holds)."""
        return table_id in self.tables

    def relayed_count(self) -> int:
        """Websockets playing a table another process runs (none with one process)."""
        return 0

    async def health(self) -> JSON:
        """Return ``/healthz``'s checks: ``ok``, this process's id, the database reachable,
        the tables run here and the websockets open."""
        try:
            await asyncio.wait_for(self.store.read(lambda c: c.exec_driver_sql("SELECT 1")), 3.0)
            database = True
        except Exception:
            database = False
        return {
            "ok": database,
            "process": self.proc,
            "pid": os.getpid(),
            "database": database,
            "tables": sum(1 for t in self.tables.values() if not t.closed and self.runs(t.id)),
            "connections": sum(self.connections.values()),
        }

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
        self,
        owner: str,
        level: str,
        state: GameState,
        seat: int,
        seed: str,
        kind: str,
        spec: str | None = None,
    ) -> tuple[Action | None, str | None]:
        """Return a bot's decision and, if the level's bot failed, why.

        Search levels run in the worker processes, shared fairly between tables
        (``owner``) and cut off at the hard time limit (wall time, well above their CPU
        budget); the others on a thread. A bot that fails, or runs past the limit, is
        replaced by the heuristic for this decision. ``spec`` (the operator's, never a
        client's) replaces the level's bot, as the hint's budget does.
        """
        (a, _), failure = await self._run(owner, level, state, seat, seed, kind, spec, False)
        return a, failure

    async def run_hint(
        self,
        owner: str,
        level: str,
        state: GameState,
        seat: int,
        seed: str,
        kind: str,
        spec: str | None = None,
    ) -> tuple[Action | None, str | None, str | None]:
        """Return :meth:`run_bot`'s decision with the bot's reason for it (a hint's
        "why", :func:`~quintet.server.botjobs.advise`), then the failure if any."""
        (a, reason), failure = await self._run(owner, level, state, seat, seed, kind, spec, True)
        return a, reason, failure

    async def _run(
        self,
        owner: str,
        level: str,
        state: GameState,
        seat: int,
        seed: str,
        kind: str,
        spec: str | None,
        why: bool,
    ) -> tuple[tuple[Action | None, str | None], str | None]:
        """Run :func:`decide` (or :func:`advise`, ``why``) as :meth:`run_bot` says."""
        if spec is None:
            spec = self.levels.get(level, "heuristic")
        loop = asyncio.get_running_loop()
        failure: str | None = None

        def answer(value: Any) -> tuple[Action | None, str | None]:
            return (value[0], value[1]) if why else (value, None)

        job = advise if why else decide
        try:
            if spec.split(":")[0] in SEARCH_LEVELS:
                res = await self.search_pool.run(owner, job, spec, state, seat, seed, kind)
                out = answer(res.value)
            else:
                out = answer(await loop.run_in_executor(None, job, spec, state, seat, seed, kind))
            if out[0] is None and kind == "act":
                failure = "gave no action"
            else:
                return out, None
        except SearchTimeout:
            failure = f"took longer than {self.settings.search_limit:g} s"
        except (SearchFailed, PoolBusy) as e:
            failure = f"failed ({type(e).__name__})"
        except PoolClosed:
            raise asyncio.CancelledError from None
        except Exception as e:
            log.exception("bot %s failed", level)
            failure = f"failed ({type(e).__name__})"
        value = await loop.run_in_executor(None, job, "heuristic", state, seat, seed, kind)
        return answer(value), failure

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
        if len(live) + self._creating_total >= settings.max_tables:
            raise FieldError("", "the server has as many tables as it can hold", 503, "busy")
        for name, value in body.options.items():
            limit = settings.option_limits.get(name)
            if limit is not None and isinstance(value, int) and value > limit:
                raise FieldError(f"options.{name}", f"at most {limit} on this server")
        game = body.game
        info = find_game(game)
        lone = body.lone_seat
        n = info.num_seats
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
        if not info.variants[variant].lone_seat:
            if body.lone_seat is not None:
                raise FieldError("lone_seat", "only the dummy variant has a lone player")
        elif lone is None:
            lone = probe.match.lone_seat  # the table's default
        dummy = info.dummy_of(lone)
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
        account = await self.check_rated(body, person, seats) if body.rated else None
        token = None
        holders: dict[str, int] = {}
        if body.join is not None:
            js = body.join.seat
            if not 0 <= js < n or seats[js].kind == "dummy":
                raise FieldError("join.seat", f"seat {js} cannot be taken")
            token = secrets.token_urlsafe(24)
            name = body.join.name if account is None else account.name  # rated: the account's
            seats[js] = SeatRow(
                js, "person", None, name, hash_token(token), seats[js].invite, person
            )
            holders[person] = js
        social = self.social_options(body, info)
        # Checked last, so that a refused body costs no token.
        keys = self.check_create_limits(person, client)
        table_id = secrets.token_urlsafe(9)
        row = TableRow(
            id=table_id,
            game=game,
            variant=variant,
            options=probe.match.rules.options(),
            lone_seat=lone if info.variants[variant].lone_seat else None,
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
            social=social,
            rated=body.rated,
        )
        t = await self.insert_table(row, keys, client)
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

    async def check_rated(self, body: CreateTable, person: str, seats: list[SeatRow]) -> Account:
        """Check that a rated table may be made: return its creator's account.

        The server rates tables (``rated_tables``), the creator is signed in, and every
        bot seat is a level with a published rating (:func:`ratings.rated_levels`).

        Raises:
            FieldError: naming ``rated`` or the bot's seat.
        """
        if not self.settings.rated_tables:
            raise FieldError("rated", "this server has no rated tables")
        account = await ratings.signed_in(self.store, person)
        if account is None:
            raise FieldError("rated", "sign in to create a rated table", 403, "rated_needs_account")
        ok = ratings.rated_levels(body.game, self.levels)
        for s in seats:
            if s.kind == "bot" and s.level not in ok:
                where = f"seats[{s.seat}]"
                if body.seats is not None and not isinstance(body.seats[s.seat], str):
                    where += ".level"
                raise FieldError(
                    where,
                    f"a rated table's bots are levels with a published rating "
                    f"({', '.join(ok)}), not {s.level!r}",
                )
        return account

    def _creators(self) -> Counter[str]:
        """Return the tables in play by creator key (``person:…``, ``client:…``)."""
        out: Counter[str] = Counter()
        for t in self.in_play():
            if t.creator:
                out[f"person:{t.creator}"] += 1
            if t.creator_client:
                out[f"client:{t.creator_client}"] += 1
        return out

    def check_create_limits(self, person: str, client: str | None) -> list[str]:
        """Check that ``person`` (from ``client``) may create a table now; return their keys.

        Tables still being created count: concurrent requests cannot pass the limits
        together.

        Raises:
            FieldError: too_many_tables or rate_limited (status 429).
        """
        live = self.in_play()
        keys = [f"person:{person}"] + ([f"client:{client}"] if client else [])
        mine = (
            sum(1 for t in live if t.creator == person or (client and t.creator_client == client))
            + max(self._creating[k] for k in keys)
            + max(self.tally.others("tables", k) for k in keys)  # the site's other processes
        )
        if mine >= self.settings.max_tables_per_client:
            raise FieldError(
                "", f"you have {mine} tables in play: finish some first", 429, "too_many_tables"
            )
        if len(live) + self._creating_total >= self.settings.max_tables:
            raise FieldError("", "the server has as many tables as it can hold", 503, "busy")
        for key in keys:
            wait = self.create_buckets.take(key)
            if wait > 0:
                raise FieldError(
                    "", f"too many new tables: try again in {wait:.0f} s", 429, "rate_limited"
                )
        return keys

    async def insert_table(self, row: TableRow, keys: list[str], client: str | None) -> LiveTable:
        """Store a new table, keep it in play, deal if its seats are taken, start its bots."""
        for k in keys:
            self._creating[k] += 1
        self._creating_total += 1
        try:
            t = await self._insert(row)
        finally:
            self._creating_total -= 1
            for k in keys:
                count_down(self._creating, k)
        t.creator_client = client
        self.tables[t.id] = t
        log.info("table %s created: %s %s", t.id, row.game, row.variant)
        async with t.lock:
            await t.maybe_first_deal()
        t.start_bots()
        return t

    async def _insert(self, row: TableRow) -> LiveTable:
        """Store a new table's rows; return it in memory."""
        await self.store.write(lambda conn: db.insert_table(conn, row))
        return self.live_table(row)

    async def view_table(self, table_id: str) -> LiveTable | None:
        """Return a table to show over HTTP (:meth:`get_table` here; with several
        processes a copy read from the database when another process plays it)."""
        return await self.get_table(table_id)

    async def get_table(self, table_id: str) -> LiveTable | None:
        """Return a table by id, loading one that is over from storage to show it."""
        t = self.tables.get(table_id)
        if t is not None:
            if t.closed:
                self._remember(t)
            return t
        if not isinstance(table_id, str) or not 1 <= len(table_id) <= 32:
            return None
        # One load per table, in a task of its own: a requester that is cancelled (its
        # connection went away) cancels nothing that others wait for.
        task = self._loading.get(table_id)
        if task is None:
            task = asyncio.create_task(self._load(table_id), name=f"load-{table_id}")
            self._loading[table_id] = task
            task.add_done_callback(lambda done: self._loaded(table_id, done))
        return await asyncio.shield(task)

    def _loaded(self, table_id: str, task: asyncio.Task[LiveTable | None]) -> None:
        if self._loading.get(table_id) is task:
            del self._loading[table_id]
        if not task.cancelled() and task.exception() is not None:
            log.error("table %s could not be loaded: %r", table_id, task.exception())

    async def _load(self, table_id: str) -> LiveTable | None:
        row = await self.store.read(lambda conn: db.load_table(conn, table_id))
        if row is None:
            return None
        t = self.tables.get(table_id) or self.live_table(row)
        self.tables[table_id] = t
        t.start_bots()
        if t.closed:
            self._remember(t)
        return t

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

    async def lobby_page(self, limit: int, offset: int = 0) -> JSON:
        """Return :meth:`lobby` (with several processes, read from the database)."""
        return self.lobby(limit, offset)

    def lobby(self, limit: int, offset: int = 0) -> JSON:
        """Return a page of the public tables in play, newest first, and their number."""
        idle = time.time() - self.settings.lobby_idle_after
        rows = [
            t
            for t in self.tables.values()
            if t.public and not t.closed and (t.seat_conn or t.last_active >= idle)
        ]
        rows.sort(key=lambda t: t.created_at, reverse=True)
        page = rows[offset : offset + limit]
        return {
            "tables": [t.lobby_json() for t in page],
            "total": len(rows),
            "offset": offset,
            "limit": limit,
        }


__all__ = [
    "Conn",
    "FieldError",
    "Hub",
    "LiveTable",
    "Settings",
    "decide",
    "fit_for",
    "hash_token",
    "merge_notices",
    "parse_client_action",
]
