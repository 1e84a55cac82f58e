"""Storage: the schema, migrations at start, and a writer that commits before broadcasts.

Everything a table needs to resume is stored: its configuration and dealing seed, its
seats (names, bot levels, the *hash* of each seat token), how many hands were dealt and
every accepted action. Deals are derived from the seed and the hand's index
(:class:`quintet.table.Table`), so the cards themselves are never stored for a table in
play.

Writes go through :class:`Store`: every job queued since the last commit is committed
in one transaction (group commit), then the coroutines waiting on them are woken. A
coroutine that awaits :meth:`Store.write` therefore knows its rows are committed.
SQLite runs in WAL mode with ``synchronous=NORMAL``: a commit survives the server
process being killed (SIGKILL), not a power cut.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

log = logging.getLogger("quintet.server")

metadata = sa.MetaData()
#: The newest migration (quintet/server/migrations/versions).
HEAD_REVISION = "0006"

tables_t = sa.Table(
    "quintet_tables",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("game", sa.String(16), nullable=False),
    sa.Column("variant", sa.String(16), nullable=False),
    sa.Column("options", sa.JSON, nullable=False),
    sa.Column("lone_seat", sa.Integer, nullable=True),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("public", sa.Boolean, nullable=False),
    sa.Column("title", sa.String(80), nullable=False, server_default=""),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("hands_dealt", sa.Integer, nullable=False, server_default="0"),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("result", sa.JSON, nullable=True),
    # Migration 0002: what a private table's link carries, and who created the table.
    sa.Column("view_key", sa.String(32), nullable=True),
    sa.Column("creator", sa.String(64), nullable=True),
    # Migration 0003: who deals the first hand (the draw, a rematch), and the table's
    # social settings (turn clock, signal meanings, the draw, its series, its rematch).
    sa.Column("first_dealer", sa.Integer, nullable=False, server_default="0"),
    sa.Column("social", sa.JSON, nullable=True),
    sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),  # 0005
    # 0006: the fencing token of the table's owner (several processes: cluster.py).
    sa.Column("fence", sa.BigInteger, nullable=False, server_default="0"),
    sa.Index("ix_quintet_tables_status", "status"),
)


def _table_ref() -> sa.Column[str]:
    """The ``table_id`` column of a table's rows: part of their key, gone with the table."""
    return sa.Column(
        "table_id",
        sa.String(32),
        sa.ForeignKey("quintet_tables.id", ondelete="CASCADE"),
        primary_key=True,
    )


seats_t = sa.Table(
    "quintet_seats",
    metadata,
    _table_ref(),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("level", sa.String(64), nullable=True),
    sa.Column("name", sa.String(40), nullable=True),
    sa.Column("token_hash", sa.String(64), nullable=True),
    sa.Column("invite", sa.String(32), nullable=False),
    sa.Column("person", sa.String(64), nullable=True),  # 0002: who holds the seat now
)

# Every person who has held a seat of a table, and which: one seat per person per table
# (the primary key), so nobody can ever have seen two seats' hands of one match.
holders_t = sa.Table(
    "quintet_holders",
    metadata,
    _table_ref(),
    sa.Column("person", sa.String(64), primary_key=True),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
)

# What the public log says of the seats beside the engine's events: a person taking over
# a seat mid-hand, a bot put in, a bot that failed. ``actions`` is the hand's action count
# when it happened, which places it in the log.
notices_t = sa.Table(
    "quintet_notices",
    metadata,
    _table_ref(),
    sa.Column("n", sa.Integer, primary_key=True),
    sa.Column("hand", sa.Integer, nullable=False),
    sa.Column("actions", sa.Integer, nullable=False),
    sa.Column("seat", sa.Integer, nullable=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("text", sa.String(200), nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
)

actions_t = sa.Table(
    "quintet_actions",
    metadata,
    _table_ref(),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("hand", sa.Integer, nullable=False),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("action", sa.Integer, nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
)

# 0003: the table's chat, kept with its record.
chat_t = sa.Table(
    "quintet_chat",
    metadata,
    _table_ref(),
    sa.Column("n", sa.Integer, primary_key=True),
    sa.Column("hand", sa.Integer, nullable=False),
    sa.Column("seat", sa.Integer, nullable=True),
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("text", sa.String(1000), nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
)

# 0003: take-backs (and the seq numbers they used), so that a resumed table's ``seq``
# goes on from where it was: the actions taken back are deleted.
takebacks_t = sa.Table(
    "quintet_takebacks",
    metadata,
    _table_ref(),
    sa.Column("n", sa.Integer, primary_key=True),
    sa.Column("hand", sa.Integer, nullable=False),
    sa.Column("kept", sa.Integer, nullable=False),
    sa.Column("removed", sa.Integer, nullable=False),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
)

analysis_t = sa.Table(
    "quintet_analysis",
    metadata,
    _table_ref(),
    sa.Column("data", sa.JSON, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)


# 0004: score pads (quintet.pad documents), each its owner's, shared by link codes.
pads_t = sa.Table(
    "quintet_pads",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("owner", sa.String(64), nullable=False),
    sa.Column("game", sa.String(16), nullable=False),
    sa.Column("variant", sa.String(16), nullable=False),
    sa.Column("title", sa.String(80), nullable=False, server_default=""),
    sa.Column("view_key", sa.String(32), nullable=False),
    sa.Column("edit_key", sa.String(32), nullable=False),
    sa.Column("doc", sa.JSON, nullable=False),
    sa.Column("entries", sa.Integer, nullable=False, server_default="0"),
    sa.Column("version", sa.Integer, nullable=False, server_default="0"),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_quintet_pads_owner", "owner"),
)

# 0005: accounts (docs/server.md, "Accounts"). An account acts as one person id
# (``person``): the guest's id it was made from, so a guest's games stay its own, or a new
# one. Names are unique by ``name_key`` (the name case-folded).
accounts_t = sa.Table(
    "quintet_accounts",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("name_key", sa.String(40), nullable=False, unique=True),
    sa.Column("password_hash", sa.String(256), nullable=False),
    sa.Column("person", sa.String(64), nullable=False, unique=True),
    sa.Column("disabled", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=True),
)


def _account_ref(name: str = "account_id", primary_key: bool = True) -> sa.Column[str]:
    """A column naming an account: its rows go with the account."""
    return sa.Column(
        name,
        sa.String(32),
        sa.ForeignKey("quintet_accounts.id", ondelete="CASCADE"),
        primary_key=primary_key,
    )


# A session is kept only as the SHA-256 of its cookie.
sessions_t = sa.Table(
    "quintet_sessions",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    _account_ref(primary_key=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_quintet_sessions_account", "account_id"),
)

# A rating per account, game and variant (an OpenSkill mu and sigma).
ratings_t = sa.Table(
    "quintet_ratings",
    metadata,
    _account_ref(),
    sa.Column("game", sa.String(16), primary_key=True),
    sa.Column("variant", sa.String(16), primary_key=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False, server_default="0"),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)

# One finished table as one person played it (by person id, so a guest's games count
# once the guest becomes an account): the figures of the profile's statistics, and for
# a rated table the rating before and after.
results_t = sa.Table(
    "quintet_results",
    metadata,
    _table_ref(),
    sa.Column("person", sa.String(64), primary_key=True),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("game", sa.String(16), nullable=False),
    sa.Column("variant", sa.String(16), nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("won", sa.Boolean, nullable=True),
    sa.Column("hands", sa.Integer, nullable=False),
    sa.Column("points", sa.Float, nullable=False),
    sa.Column("stats", sa.JSON, nullable=False),
    sa.Column("rating", sa.JSON, nullable=True),
    sa.Index("ix_quintet_results_person", "person", "finished_at"),
)

# A friendship is asked by one account and is one when both have asked.
friends_t = sa.Table(
    "quintet_friends",
    metadata,
    _account_ref(),
    _account_ref("friend_id"),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_quintet_friends_friend", "friend_id"),
)


def now() -> datetime:
    """Return the current time (UTC, aware)."""
    return datetime.now(UTC)


def default_db_url() -> str:
    """Return ``sqlite:///<user data dir>/quintet.db`` (the directory is created)."""
    import platformdirs

    path = Path(platformdirs.user_data_dir("quintet"))
    path.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path / 'quintet.db'}"


def make_engine(url: str) -> Engine:
    """Return an engine for ``url`` (SQLite gets WAL, NORMAL sync and foreign keys)."""
    if url.startswith("sqlite"):
        engine = sa.create_engine(url, connect_args={"check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=10000")
            cur.close()

        return engine
    return sa.create_engine(url, pool_pre_ping=True)


def migrate(engine: Engine) -> None:
    """Create the schema or upgrade it to the newest migration (Alembic ``upgrade head``)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).with_name("migrations")))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def schema_revision(engine: Engine) -> str | None:
    """Return the schema's Alembic revision, or None before the first migration."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


# ------------------------------------------------------------------------ rows


@dataclass
class SeatRow:
    """A seat as stored: ``kind`` is open, person, bot or dummy.

    ``person`` is the holder's person id (:func:`quintet.server.security.person_id`).
    """

    seat: int
    kind: str
    level: str | None
    name: str | None
    token_hash: str | None
    invite: str
    person: str | None = None


@dataclass(frozen=True)
class Notice:
    """A line of the public log beside the engine's events (see :data:`notices_t`)."""

    hand: int
    actions: int
    seat: int | None
    kind: str
    text: str


@dataclass(frozen=True)
class ChatLine:
    """One line of a table's chat (see :data:`chat_t`): ``seat`` None for a spectator."""

    n: int
    hand: int
    seat: int | None
    name: str
    text: str
    at: str  # ISO 8601, UTC

    def to_json(self) -> dict[str, Any]:
        """Return the line as the protocol and the record show it."""
        return {
            "n": self.n,
            "hand": self.hand,
            "seat": self.seat,
            "name": self.name,
            "text": self.text,
            "at": self.at,
        }


@dataclass
class TableRow:
    """A table as stored, with its seats and (when loaded for resuming) its actions."""

    id: str
    game: str
    variant: str
    options: dict[str, Any]
    lone_seat: int | None
    seed: int
    public: bool
    title: str
    status: str
    hands_dealt: int
    created_at: datetime
    finished_at: datetime | None
    result: Any
    seats: list[SeatRow]
    actions: list[tuple[int, int, int]]  # (hand, seat, action) in order
    view_key: str | None = None
    creator: str | None = None
    holders: dict[str, int] = field(default_factory=dict)  # person -> seat
    notices: list[Notice] = field(default_factory=list)
    last_active: datetime | None = None  # the last action, or the last change of the row
    first_dealer: int = 0
    social: dict[str, Any] = field(default_factory=dict)
    chat: list[ChatLine] = field(default_factory=list)
    #: Changes of play lost to take-backs (actions taken back, and each take-back).
    lost_seq: int = 0
    takebacks: int = 0
    rated: bool = False  # 0005: a rated table (docs/server.md, "Ratings and history")


def insert_table(conn: Connection, row: TableRow) -> None:
    """Insert a new table and its seats."""
    t = now()
    conn.execute(
        tables_t.insert().values(
            id=row.id,
            game=row.game,
            variant=row.variant,
            options=row.options,
            lone_seat=row.lone_seat,
            seed=row.seed,
            public=row.public,
            title=row.title,
            status=row.status,
            hands_dealt=row.hands_dealt,
            created_at=t,
            updated_at=t,
            view_key=row.view_key,
            creator=row.creator,
            first_dealer=row.first_dealer,
            social=row.social or None,
            rated=row.rated,
        )
    )
    conn.execute(
        seats_t.insert(),
        [
            {
                "table_id": row.id,
                "seat": s.seat,
                "kind": s.kind,
                "level": s.level,
                "name": s.name,
                "token_hash": s.token_hash,
                "invite": s.invite,
                "person": s.person,
            }
            for s in row.seats
        ],
    )
    for person, seat in row.holders.items():
        insert_holder(conn, row.id, person, seat)


def insert_holder(conn: Connection, table_id: str, person: str, seat: int) -> None:
    """Note that ``person`` holds (or held) ``seat`` of a table.

    Raises:
        sqlalchemy.exc.IntegrityError: the person already held a seat of this table.
    """
    conn.execute(holders_t.insert().values(table_id=table_id, person=person, seat=seat, at=now()))


def insert_notice(conn: Connection, table_id: str, n: int, notice: Notice) -> None:
    """Store the table's ``n``-th notice (a line of the public log)."""
    conn.execute(
        notices_t.insert().values(
            table_id=table_id,
            n=n,
            hand=notice.hand,
            actions=notice.actions,
            seat=notice.seat,
            kind=notice.kind,
            text=notice.text,
            at=now(),
        )
    )


def insert_chat(conn: Connection, table_id: str, line: ChatLine) -> None:
    """Store one line of a table's chat."""
    conn.execute(
        chat_t.insert().values(
            table_id=table_id,
            n=line.n,
            hand=line.hand,
            seat=line.seat,
            name=line.name,
            text=line.text,
            at=datetime.fromisoformat(line.at),
        )
    )


def take_back(
    conn: Connection, table_id: str, n: int, hand: int, kept: int, removed: int, seat: int
) -> None:
    """Delete the actions of ``hand`` after its first ``kept``, and note the take-back."""
    seqs = [
        r.seq
        for r in conn.execute(
            sa.select(actions_t.c.seq)
            .where(actions_t.c.table_id == table_id, actions_t.c.hand == hand)
            .order_by(actions_t.c.seq)
            .offset(kept)
        )
    ]
    if len(seqs) != removed:
        raise ValueError(f"table {table_id}: {len(seqs)} actions stored past {kept}, not {removed}")
    if seqs:
        conn.execute(
            actions_t.delete().where(actions_t.c.table_id == table_id, actions_t.c.seq.in_(seqs))
        )
    conn.execute(
        takebacks_t.insert().values(
            table_id=table_id, n=n, hand=hand, kept=kept, removed=removed, seat=seat, at=now()
        )
    )


_INSERT_ACTION = actions_t.insert()

#: One accepted action's row of :data:`actions_t` (:func:`action_row`).
ActionRow = dict[str, Any]


def action_row(table_id: str, seq: int, hand: int, seat: int, a: int) -> ActionRow:
    """Return the row of one accepted action, stamped now (for :meth:`Store.write_action`)."""
    return {"table_id": table_id, "seq": seq, "hand": hand, "seat": seat, "action": a, "at": now()}


def insert_actions(conn: Connection, rows: Sequence[ActionRow]) -> None:
    """Insert accepted actions' rows in one statement (an ``executemany`` for several).

    The statement is compiled once per dialect and run as the driver's own SQL, its
    parameters made ready here (the time by the column type's own bind processor):
    the rows of every action of every table go this way, and SQLAlchemy's per-row
    work for a Core insert cost more than the insert itself.
    """
    sql, names, at = _raw_insert(conn.dialect)
    params: list[Any]
    if names is None:  # named parameters: the rows themselves
        params = list(rows) if at is None else [{**r, "at": at(r["at"])} for r in rows]
    elif at is None:
        params = [tuple([r[n] for n in names]) for r in rows]
    else:
        params = [tuple([at(r[n]) if n == "at" else r[n] for n in names]) for r in rows]
    conn.exec_driver_sql(sql, params[0] if len(params) == 1 else params)


#: The action insert as each dialect runs it: (SQL, parameter order or None for named
#: parameters, the time's bind processor or None).
_RAW_INSERTS: dict[tuple[str, str], tuple[str, list[str] | None, Any]] = {}


def _raw_insert(dialect: Any) -> tuple[str, list[str] | None, Any]:
    key = (dialect.name, dialect.driver)
    hit = _RAW_INSERTS.get(key)
    if hit is None:
        compiled = _INSERT_ACTION.compile(dialect=dialect)
        names = list(compiled.positiontup or []) if compiled.positional else None
        at = actions_t.c.at.type.dialect_impl(dialect).bind_processor(dialect)
        hit = _RAW_INSERTS[key] = (str(compiled), names, at)
    return hit


def insert_action(conn: Connection, table_id: str, seq: int, hand: int, seat: int, a: int) -> None:
    """Insert one accepted action."""
    conn.execute(_INSERT_ACTION, action_row(table_id, seq, hand, seat, a))


def update_table(conn: Connection, table_id: str, **values: Any) -> None:
    """Update a table's row."""
    values["updated_at"] = now()
    conn.execute(tables_t.update().where(tables_t.c.id == table_id).values(**values))


def update_seat(conn: Connection, table_id: str, seat: int, **values: Any) -> None:
    """Update one seat's row."""
    conn.execute(
        seats_t.update()
        .where(seats_t.c.table_id == table_id, seats_t.c.seat == seat)
        .values(**values)
    )


def _table_row(r: Any, seats: list[SeatRow], actions: list[tuple[int, int, int]]) -> TableRow:
    last = getattr(r, "last_action", None)
    updated = _utc(r.updated_at)
    return TableRow(
        id=r.id,
        game=r.game,
        variant=r.variant,
        options=dict(r.options or {}),
        lone_seat=r.lone_seat,
        seed=int(r.seed),
        public=bool(r.public),
        title=r.title or "",
        status=r.status,
        hands_dealt=int(r.hands_dealt),
        created_at=r.created_at,
        finished_at=r.finished_at,
        result=r.result,
        seats=seats,
        actions=actions,
        view_key=r.view_key,
        creator=r.creator,
        last_active=updated if last is None else max(_utc(last), updated),
        first_dealer=int(r.first_dealer or 0),
        social=dict(r.social or {}),
        rated=bool(r.rated),
    )


def _utc(t: datetime) -> datetime:
    """Return ``t`` with its time zone (UTC when the database dropped it)."""
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def _seats_of(conn: Connection, ids: Sequence[str]) -> dict[str, list[SeatRow]]:
    out: dict[str, list[SeatRow]] = {i: [] for i in ids}
    if not ids:
        return out
    q = (
        sa.select(seats_t)
        .where(seats_t.c.table_id.in_(list(ids)))
        .order_by(seats_t.c.table_id, seats_t.c.seat)
    )
    for s in conn.execute(q):
        out[s.table_id].append(
            SeatRow(s.seat, s.kind, s.level, s.name, s.token_hash, s.invite, s.person)
        )
    return out


def _extras(conn: Connection, rows: list[TableRow]) -> list[TableRow]:
    """Fill in the holders and notices of ``rows``."""
    by_id = {r.id: r for r in rows}
    if not by_id:
        return rows
    ids = list(by_id)
    q = sa.select(holders_t).where(holders_t.c.table_id.in_(ids))
    for h in conn.execute(q):
        by_id[h.table_id].holders[h.person] = h.seat
    q2 = (
        sa.select(notices_t)
        .where(notices_t.c.table_id.in_(ids))
        .order_by(notices_t.c.table_id, notices_t.c.n)
    )
    for n in conn.execute(q2):
        by_id[n.table_id].notices.append(Notice(n.hand, n.actions, n.seat, n.kind, n.text))
    q3 = sa.select(chat_t).where(chat_t.c.table_id.in_(ids)).order_by(chat_t.c.table_id, chat_t.c.n)
    for c in conn.execute(q3):
        at = _utc(c.at).isoformat()
        by_id[c.table_id].chat.append(ChatLine(c.n, c.hand, c.seat, c.name, c.text, at))
    q4 = sa.select(takebacks_t.c.table_id, takebacks_t.c.removed).where(
        takebacks_t.c.table_id.in_(ids)
    )
    for k in conn.execute(q4):
        by_id[k.table_id].lost_seq += k.removed + 1
        by_id[k.table_id].takebacks += 1
    return rows


_LAST_ACTION = (
    sa.select(sa.func.max(actions_t.c.at))
    .where(actions_t.c.table_id == tables_t.c.id)
    .correlate(tables_t)
    .scalar_subquery()
    .label("last_action")
)


def load_table(conn: Connection, table_id: str, with_actions: bool = True) -> TableRow | None:
    """Return a stored table (with its actions), or None."""
    r = conn.execute(sa.select(tables_t, _LAST_ACTION).where(tables_t.c.id == table_id)).first()
    if r is None:
        return None
    actions: list[tuple[int, int, int]] = []
    if with_actions:
        q = (
            sa.select(actions_t.c.hand, actions_t.c.seat, actions_t.c.action)
            .where(actions_t.c.table_id == table_id)
            .order_by(actions_t.c.seq)
        )
        actions = [(a.hand, a.seat, a.action) for a in conn.execute(q)]
    return _extras(conn, [_table_row(r, _seats_of(conn, [table_id])[table_id], actions)])[0]


#: Statuses of tables that are over: no more actions, record and replay available.
CLOSED: tuple[str, ...] = ("finished", "abandoned")


def load_unfinished(conn: Connection) -> list[TableRow]:
    """Return every table still in play, with its actions, oldest first."""
    rows = list(
        conn.execute(
            sa.select(tables_t, _LAST_ACTION)
            .where(tables_t.c.status.not_in(CLOSED))
            .order_by(tables_t.c.created_at, tables_t.c.id)
        )
    )
    ids = [r.id for r in rows]
    seats = _seats_of(conn, ids)
    acts: dict[str, list[tuple[int, int, int]]] = {i: [] for i in ids}
    if ids:
        q = (
            sa.select(actions_t.c.table_id, actions_t.c.hand, actions_t.c.seat, actions_t.c.action)
            .join(tables_t, tables_t.c.id == actions_t.c.table_id)
            .where(tables_t.c.status.not_in(CLOSED))
            .order_by(actions_t.c.table_id, actions_t.c.seq)
        )
        for a in conn.execute(q):
            acts[a.table_id].append((a.hand, a.seat, a.action))
    return _extras(conn, [_table_row(r, seats[r.id], acts[r.id]) for r in rows])


def list_finished(conn: Connection, limit: int = 100, offset: int = 0) -> list[TableRow]:
    """Return the public tables that are over (finished or abandoned), newest first.

    Private tables are never listed: only their players and link holders know them.
    """
    rows = list(
        conn.execute(
            sa.select(tables_t)
            .where(tables_t.c.status.in_(CLOSED), tables_t.c.public.is_(True))
            .order_by(tables_t.c.finished_at.desc(), tables_t.c.id)
            .limit(limit)
            .offset(offset)
        )
    )
    seats = _seats_of(conn, [r.id for r in rows])
    return [_table_row(r, seats[r.id], []) for r in rows]


def count_finished(conn: Connection) -> int:
    """Return how many tables :func:`list_finished` can list."""
    q = (
        sa.select(sa.func.count())
        .select_from(tables_t)
        .where(tables_t.c.status.in_(CLOSED), tables_t.c.public.is_(True))
    )
    return int(conn.execute(q).scalar_one())


def load_analysis(conn: Connection, table_id: str) -> Any:
    """Return a table's stored analysis, or None."""
    r = conn.execute(sa.select(analysis_t.c.data).where(analysis_t.c.table_id == table_id)).first()
    return None if r is None else r.data


def store_analysis(conn: Connection, table_id: str, data: Any) -> None:
    """Store (or replace) a table's analysis."""
    conn.execute(analysis_t.delete().where(analysis_t.c.table_id == table_id))
    conn.execute(analysis_t.insert().values(table_id=table_id, data=data, created_at=now()))


# ------------------------------------------------------------------------ pads


@dataclass
class PadRow:
    """A score pad as stored: ``doc`` is its ``quintet.pad`` JSON document."""

    id: str
    owner: str
    game: str
    variant: str
    title: str
    view_key: str
    edit_key: str
    doc: dict[str, Any]
    entries: int
    version: int
    created_at: datetime
    updated_at: datetime


def insert_pad(conn: Connection, row: PadRow) -> None:
    """Insert a new pad."""
    conn.execute(
        pads_t.insert().values(
            id=row.id,
            owner=row.owner,
            game=row.game,
            variant=row.variant,
            title=row.title,
            view_key=row.view_key,
            edit_key=row.edit_key,
            doc=row.doc,
            entries=row.entries,
            version=row.version,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )
    )


def _pad_row(r: Any) -> PadRow:
    return PadRow(
        id=r.id,
        owner=r.owner,
        game=r.game,
        variant=r.variant,
        title=r.title or "",
        view_key=r.view_key,
        edit_key=r.edit_key,
        doc=dict(r.doc),
        entries=int(r.entries),
        version=int(r.version),
        created_at=_utc(r.created_at),
        updated_at=_utc(r.updated_at),
    )


def load_pad(conn: Connection, pad_id: str) -> PadRow | None:
    """Return a stored pad, or None."""
    r = conn.execute(sa.select(pads_t).where(pads_t.c.id == pad_id)).first()
    return None if r is None else _pad_row(r)


def pad_version(conn: Connection, pad_id: str) -> tuple[str, str, str, int] | None:
    """Return a pad's owner, view key, edit key and version (what polling needs), or None."""
    q = sa.select(pads_t.c.owner, pads_t.c.view_key, pads_t.c.edit_key, pads_t.c.version)
    r = conn.execute(q.where(pads_t.c.id == pad_id)).first()
    return None if r is None else (r.owner, r.view_key, r.edit_key, int(r.version))


def update_pad(
    conn: Connection, pad_id: str, doc: dict[str, Any], entries: int, version: int
) -> bool:
    """Store a pad's new document as ``version`` if it is still at ``version - 1``.

    Returns whether it was stored (False: another change came first).
    """
    res = conn.execute(
        pads_t.update()
        .where(pads_t.c.id == pad_id, pads_t.c.version == version - 1)
        .values(doc=doc, entries=entries, version=version, updated_at=now())
    )
    return bool(res.rowcount == 1)


def count_pads(conn: Connection, owner: str) -> int:
    """Return how many pads a person owns."""
    q = sa.select(sa.func.count()).select_from(pads_t).where(pads_t.c.owner == owner)
    return int(conn.execute(q).scalar_one())


def list_pads(conn: Connection, owner: str, limit: int = 100) -> list[PadRow]:
    """Return a person's pads, the last changed first."""
    q = (
        sa.select(pads_t)
        .where(pads_t.c.owner == owner)
        .order_by(pads_t.c.updated_at.desc(), pads_t.c.id)
        .limit(limit)
    )
    return [_pad_row(r) for r in conn.execute(q)]


# ---------------------------------------------------------------------- writer

T = TypeVar("T")
Job = Callable[[Connection], Any]
#: A queued write: its job (None: only a row), its action row (None: none), and the
#: loop and future of the coroutine waiting for its commit.
_Write = tuple[Job | None, ActionRow | None, asyncio.AbstractEventLoop, asyncio.Future[Any]]


class StoreClosedError(RuntimeError):
    """The store was closed: nothing more can be written."""


class Store:
    """The database, with group commits: every write awaits its committed transaction.

    ``await store.write(job)`` returns once ``job(conn)`` has run and its transaction is
    committed; if the job raises, the error is raised to its caller and the jobs it was
    batched with are committed without it. Jobs queued while a commit runs are
    committed together in the next transaction. ``await store.write_action(row, job)``
    does the same for an accepted action's row (with an optional job beside it): the
    rows of a transaction's actions are inserted in one ``executemany`` after its jobs
    ran (a fifth of the cost of a statement a row). A job therefore must not read or
    change the action rows of a table with an action in its batch: every change of a
    table is made under the table's lock, which is held until its write is committed.

    With SQLite the commits run on the event loop itself (a WAL commit without fsync
    takes tens of microseconds; a thread would cost more in hand-overs); WAL checkpoints
    run on a thread of their own. With other databases (a network round trip per
    statement) one writer thread commits. ``await store.read(fn)`` runs ``fn(conn)`` on
    a worker thread.
    """

    def __init__(self, url: str, inline: bool | None = None) -> None:
        self.url = url
        self.engine = make_engine(url)
        self.inline = url.startswith("sqlite") if inline is None else inline
        self._queue: queue.SimpleQueue[_Write | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._pending: list[_Write] = []
        self._scheduled = False
        self._conn: Connection | None = None
        self._checkpointer: threading.Thread | None = None
        self._stop = threading.Event()
        self._closed = False
        self.commits = 0
        self.jobs = 0

    def migrate(self) -> None:
        """Create or upgrade the schema."""
        migrate(self.engine)

    def start(self) -> None:
        """Start writing (the writer thread, or SQLite's checkpoint thread)."""
        if self.inline:
            if self._conn is None:
                self._conn = self.engine.connect()
                if self.url.startswith("sqlite"):
                    self._conn.exec_driver_sql("PRAGMA wal_autocheckpoint=0")
                    self._conn.commit()
                    self._checkpointer = threading.Thread(
                        target=self._checkpoints, name="quintet-db-checkpoint", daemon=True
                    )
                    self._checkpointer.start()
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="quintet-db-writer", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Finish the queued jobs, stop writing and dispose of the engine."""
        if self._closed:
            return
        self._closed = True
        if self._pending:
            self._flush()
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout=30)
        self._stop.set()
        if self._checkpointer is not None:
            self._checkpointer.join(timeout=30)
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self.engine.dispose()

    async def write(self, job: Job) -> Any:
        """Run ``job(conn)`` in a committed transaction; return its result.

        Raises:
            StoreClosedError: the store is closed.
            Exception: whatever the job raised (nothing of it was committed).
        """
        return await self._submit(job, None)

    async def write_action(self, row: ActionRow, job: Job | None = None) -> Any:
        """Insert an accepted action's row (:func:`action_row`), with ``job(conn)`` (if
        any) in the same committed transaction; return the job's result (or None).

        Raises:
            StoreClosedError: the store is closed.
            Exception: whatever the job or the insert raised (nothing was committed).
        """
        return await self._submit(job, row)

    async def _submit(self, job: Job | None, row: ActionRow | None) -> Any:
        """Queue a write for the next group commit and wait for it."""
        if self._closed:
            raise StoreClosedError("the store is closed")
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        if self.inline:
            if self._conn is None:
                self.start()
            self._pending.append((job, row, loop, fut))
            if not self._scheduled:
                self._scheduled = True
                loop.call_soon(self._flush)
        else:
            self._queue.put((job, row, loop, fut))
        return await fut

    def _flush(self) -> None:
        batch, self._pending = self._pending, []
        self._scheduled = False
        if not batch:
            return
        assert self._conn is not None
        results = self._execute(batch, self._conn)
        for (_, _, _, fut), (ok, value) in zip(batch, results, strict=True):
            _resolve(fut, ok, value)

    def _checkpoints(self) -> None:
        # Move the WAL into the database now and then, off the event loop.
        while not self._stop.wait(2.0):
            try:
                with self.engine.connect() as conn:
                    conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
            except Exception:  # pragma: no cover - the next round tries again
                log.warning("WAL checkpoint failed", exc_info=True)
        with contextlib.suppress(Exception), self.engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")

    async def read(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn(conn)`` on a worker thread and return its result."""

        def run() -> T:
            with self.engine.connect() as conn:
                return fn(conn)

        return await asyncio.to_thread(run)

    def run_sync(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn(conn)`` in a transaction on this thread (start-up, tests)."""
        with self.engine.begin() as conn:
            return fn(conn)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            stop = item is None
            batch = [] if item is None else [item]
            while True:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                else:
                    batch.append(more)
            if batch:
                with self.engine.connect() as conn:
                    results = self._execute(batch, conn)
                for (_, _, loop, fut), (ok, value) in zip(batch, results, strict=True):
                    with contextlib.suppress(RuntimeError):  # the loop is closed (shutdown)
                        loop.call_soon_threadsafe(_resolve, fut, ok, value)
            if stop:
                return

    def _execute(self, batch: list[_Write], conn: Connection) -> list[tuple[bool, Any]]:
        """Commit the batch in one transaction (each write on its own should one fail);
        return each write's outcome: (True, the job's result) or (False, its error)."""
        results: list[tuple[bool, Any]] = []
        try:
            with conn.begin():
                rows = []
                for job, row, _, _ in batch:
                    results.append((True, None if job is None else job(conn)))
                    if row is not None:
                        rows.append(row)
                if rows:
                    insert_actions(conn, rows)
        except Exception:
            if len(batch) == 1:
                results = [(False, _current_error())]
            else:
                # One write failed: commit each on its own so the others still land.
                results = []
                for job, row, _, _ in batch:
                    try:
                        with conn.begin():
                            value = None if job is None else job(conn)
                            if row is not None:
                                insert_actions(conn, [row])
                        results.append((True, value))
                    except Exception:
                        results.append((False, _current_error()))
        self.commits += 1
        self.jobs += len(batch)
        return results


def _current_error() -> BaseException:
    import sys

    err = sys.exc_info()[1]
    assert err is not None
    return err


def _resolve(fut: asyncio.Future[Any], ok: bool, value: Any) -> None:
    if fut.done():
        return
    if ok:
        fut.set_result(value)
    else:
        fut.set_exception(value)
