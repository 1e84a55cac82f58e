"""Accounts: sign-up, log-in and -out, sessions, throttling, and the ``/api/account`` API.

An account (``quintet_accounts``) has a user name, an argon2id hash of its password and
the *person id* it acts as (docs/server.md, "Accounts"). A browser signed in carries the
``quintet_session`` cookie (256 random bits; only its SHA-256 is stored, in
``quintet_sessions``); the :class:`~quintet.server.security.Guard` resolves it with
:meth:`Accounts.resolve` and the request or websocket is then the account's person, so
every rule keyed by the person (one seat per table, creators, private tables, pads)
holds for the account across browsers. :func:`account_of_scope` says which account a
request is, or None for a guest.

* **Sign-up** from a guest keeps the guest's person id: the tables, seats and pads of
  the guest are the account's. The answer gives the browser a new guest cookie, so that
  after log-out it is a new guest and not the account; the old guest cookie is *retired*
  (:meth:`Accounts.retired`): it is worth nothing any more.
* **Sessions** end ``session_days`` after log-in, or ``session_idle_days`` after their
  last use (noted at most once a minute), at log-out, at a password change (all the
  account's others), and when the account is disabled. A resolved session is trusted
  from memory for ``session_cache_seconds``.
* **Throttling**: ``login_failures`` wrong passwords per user name and per client
  address within ``login_window`` seconds, then 429 ``too_many_attempts`` (with
  ``retry_after``) until the oldest of them is out of the window, even for the right
  password. Sign-ups: ``signups_per_hour`` per address.
* **Passwords** are hashed with argon2id (``argon2-cffi``) off the event loop,
  ``password_hashes_at_once`` at a time; a hash made with other parameters than the
  settings' is redone at the next log-in.

Every limit is the operator's (:class:`Settings`); the clock is :attr:`Accounts.clock`
(tests move it). The ``quintet admin accounts`` commands use :func:`list_accounts`,
:func:`set_disabled`, :func:`delete_account` and :func:`export_account`.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import math
import re
import secrets
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from quintet.server import db
from quintet.server.db import (
    accounts_t,
    friends_t,
    holders_t,
    pads_t,
    ratings_t,
    results_t,
    seats_t,
    sessions_t,
    tables_t,
)
from quintet.server.messages import Text
from quintet.server.security import (
    COOKIE,
    SESSION_COOKIE,
    Buckets,
    new_cookie,
    person_id,
    set_cookie,
)
from quintet.server.settings import Settings

#: A user name: 3 to 20 ASCII letters, digits, ``_`` and ``-`` (no look-alike letters).
NAME_MIN, NAME_MAX = 3, 20
_NAME_CHAR = re.compile(r"[A-Za-z0-9_-]")
#: A session's last use is written at most this often.
TOUCH_EVERY = timedelta(minutes=1)
#: Sessions and guest persons remembered in memory at most (the oldest are forgotten).
CACHE_MAX = 100_000
#: Keys (names, addresses) whose recent failures are remembered at most.
THROTTLE_MAX = 100_000

Scope = MutableMapping[str, Any]


@dataclass(frozen=True)
class Account:
    """An account as the server acts for it: its id, user name and person id."""

    id: str
    name: str
    person: str


@dataclass
class Session:
    """A resolved session: ``id`` is the SHA-256 of its cookie, as stored."""

    id: str
    account: Account
    expires_at: datetime
    last_seen: datetime
    cached_at: datetime


class AccountRefused(Exception):
    """A request the accounts API answers with an error (status, code, message, field)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        field: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.field = field
        self.retry_after = None if retry_after is None else max(1, math.ceil(retry_after))

    def response(self) -> JSONResponse:
        """Return the error as the API's JSON answer (429s with ``Retry-After``)."""
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.field is not None:
            body["field"] = self.field
        headers = None
        if self.retry_after is not None:
            body["retry_after"] = self.retry_after
            headers = {"retry-after": str(self.retry_after)}
        return JSONResponse({"error": body}, status_code=self.status, headers=headers)


# ---------------------------------------------------------------- names, passwords


def name_key(name: str) -> str:
    """Return the form names are unique by (case-folded): ``Ann`` and ``ANN`` are one."""
    return name.casefold()


def name_problem(name: str) -> str | None:
    """Return why ``name`` cannot be a user name, or None if it can."""
    if not NAME_MIN <= len(name) <= NAME_MAX:
        return f"a user name has {NAME_MIN} to {NAME_MAX} characters, not {len(name)}"
    bad = next((c for c in name if not _NAME_CHAR.fullmatch(c)), None)
    if bad is not None:
        return f"a user name has only letters (a-z, A-Z), digits, _ and -: not {bad!r}"
    return None


def password_problem(password: str, name: str, settings: Settings) -> str | None:
    """Return why ``password`` cannot be the password of ``name``, or None if it can."""
    n = len(password)
    if n < settings.password_min:
        return f"a password has at least {settings.password_min} characters, not {n}"
    if n > settings.password_max:
        return f"a password has at most {settings.password_max} characters, not {n}"
    if name_key(password) == name_key(name):
        return "the password must not be the user name"
    return None


def hasher(settings: Settings) -> PasswordHasher:
    """Return the argon2id hasher of the settings' parameters."""
    return PasswordHasher(
        time_cost=settings.password_time_cost,
        memory_cost=settings.password_memory_kib,
        parallelism=settings.password_parallelism,
    )


def session_id(token: str) -> str:
    """Return the stored form of a session cookie (SHA-256, hex)."""
    return hashlib.sha256(b"quintet-session:" + token.encode()).hexdigest()


def _utc(t: datetime) -> datetime:
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def _iso(t: datetime | None) -> str | None:
    return None if t is None else _utc(t).isoformat()


# ------------------------------------------------------------------------ queries


def _account(r: Any) -> Account:
    return Account(r.id, r.name, r.person)


def account_by_person(conn: Connection, person: str) -> Account | None:
    """Return the (enabled) account acting as ``person``, or None."""
    q = sa.select(accounts_t).where(accounts_t.c.person == person, accounts_t.c.disabled.is_(False))
    r = conn.execute(q).first()
    return None if r is None else _account(r)


def accounts_by_person(conn: Connection, persons: Sequence[str]) -> dict[str, Account]:
    """Return the (enabled) accounts acting as any of ``persons``, by person."""
    if not persons:
        return {}
    q = sa.select(accounts_t).where(
        accounts_t.c.person.in_(list(persons)), accounts_t.c.disabled.is_(False)
    )
    return {r.person: _account(r) for r in conn.execute(q)}


def account_by_name(conn: Connection, name: str) -> Account | None:
    """Return the (enabled) account named ``name`` in any case, or None."""
    q = sa.select(accounts_t).where(
        accounts_t.c.name_key == name_key(name), accounts_t.c.disabled.is_(False)
    )
    r = conn.execute(q).first()
    return None if r is None else _account(r)


def _row_by_name(conn: Connection, name: str) -> Any:
    q = sa.select(accounts_t).where(accounts_t.c.name_key == name_key(name))
    return conn.execute(q).first()


def _is_account_person(conn: Connection, person: str) -> bool:
    q = sa.select(accounts_t.c.id).where(accounts_t.c.person == person)
    return conn.execute(q).first() is not None


def _load_session(conn: Connection, sid: str) -> Any:
    q = (
        sa.select(
            sessions_t.c.expires_at,
            sessions_t.c.last_seen_at,
            accounts_t.c.id,
            accounts_t.c.name,
            accounts_t.c.person,
            accounts_t.c.disabled,
        )
        .join(accounts_t, accounts_t.c.id == sessions_t.c.account_id)
        .where(sessions_t.c.id == sid)
    )
    return conn.execute(q).first()


def _delete_session(conn: Connection, sid: str) -> None:
    conn.execute(sessions_t.delete().where(sessions_t.c.id == sid))


def _touch(conn: Connection, sid: str, account_id: str, t: datetime) -> None:
    conn.execute(sessions_t.update().where(sessions_t.c.id == sid).values(last_seen_at=t))
    conn.execute(accounts_t.update().where(accounts_t.c.id == account_id).values(last_seen_at=t))


def _new_session(
    conn: Connection, sid: str, account_id: str, t: datetime, settings: Settings
) -> None:
    """Store a session; forget expired ones, and the account's beyond its newest few."""
    idle = t - timedelta(days=settings.session_idle_days)
    conn.execute(
        sessions_t.delete().where(
            sa.or_(sessions_t.c.expires_at <= t, sessions_t.c.last_seen_at <= idle)
        )
    )
    keep = settings.sessions_per_account - 1
    old = conn.execute(
        sa.select(sessions_t.c.id)
        .where(sessions_t.c.account_id == account_id)
        .order_by(sessions_t.c.created_at.desc(), sessions_t.c.id)
        .offset(keep)
    ).all()
    if old:
        conn.execute(sessions_t.delete().where(sessions_t.c.id.in_([o.id for o in old])))
    conn.execute(
        sessions_t.insert().values(
            id=sid,
            account_id=account_id,
            created_at=t,
            last_seen_at=t,
            expires_at=t + timedelta(days=settings.session_days),
        )
    )
    conn.execute(accounts_t.update().where(accounts_t.c.id == account_id).values(last_seen_at=t))


def _end_sessions(conn: Connection, account_id: str, keep: str | None = None) -> int:
    """Delete the account's sessions (but ``keep``); return how many ended."""
    q = sessions_t.delete().where(sessions_t.c.account_id == account_id)
    if keep is not None:
        q = q.where(sessions_t.c.id != keep)
    return int(conn.execute(q).rowcount)


# ---------------------------------------------------------------------- throttle


class Throttle:
    """Failures by key within a sliding window: ``limit`` of them, then a wait."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._failures: dict[str, collections.deque[float]] = {}

    def wait(self, key: str, now: float) -> float:
        """Return 0 if ``key`` may try now, else the seconds until it may."""
        q = self._failures.get(key)
        if q is None:
            return 0.0
        while q and q[0] <= now - self.window:
            q.popleft()
        if not q:
            del self._failures[key]
            return 0.0
        if len(q) < self.limit:
            return 0.0
        return q[0] + self.window - now

    def fail(self, key: str, now: float) -> None:
        """Count a failure of ``key`` at ``now``."""
        q = self._failures.pop(key, None) or collections.deque()
        q.append(now)
        self._failures[key] = q  # the most recently failed last
        if len(self._failures) > THROTTLE_MAX:
            # Keys whose failures are all out of the window first, then the oldest (to
            # nine tenths, so that the next such sweep is far).
            for k in [k for k, v in self._failures.items() if v[-1] <= now - self.window]:
                del self._failures[k]
            while len(self._failures) > THROTTLE_MAX * 9 // 10:
                self._failures.pop(next(iter(self._failures)))

    def unfail(self, key: str, now: float) -> None:
        """Take back the failure counted at ``now`` (the attempt succeeded)."""
        q = self._failures.get(key)
        if q is not None and now in q:
            q.remove(now)
            if not q:
                del self._failures[key]

    def clear(self, key: str) -> None:
        """Forget the failures of ``key``."""
        self._failures.pop(key, None)


# ---------------------------------------------------------------------- service


class Accounts:
    """The accounts of one server: sessions in memory, throttles, hashing (``app.state``).

    Its queries run in the :class:`~quintet.server.db.Store` given to each method (the
    hub's). ``clock`` returns the time (UTC): tests move it.
    """

    def __init__(self, settings: Settings, clock: Callable[[], datetime] = db.now) -> None:
        self.settings = settings
        self.clock = clock
        self.hasher = hasher(settings)
        self._hashing = asyncio.Semaphore(settings.password_hashes_at_once)
        self._dummy: str | None = None  # a hash to check unknown names against
        self._sessions: dict[str, Session] = {}
        self._persons: dict[str, tuple[bool, datetime]] = {}  # person -> (account's?, when)
        self.logins = Throttle(settings.login_failures, settings.login_window)
        self.signups = Buckets(settings.signups_per_hour / 3600.0, settings.signups_per_hour)
        self.signups.clock = self._now_seconds  # the site's debits keep the takes' clock

    # ---------------------------------------------------------------- sessions

    async def resolve(self, store: db.Store, token: str) -> Session | None:
        """Return the live session of a ``quintet_session`` cookie, or None.

        An unknown, expired, idle or disabled account's session is None (and an expired
        one is deleted). Its last use is noted at most once a minute.
        """
        if not self.settings.accounts:
            return None
        sid = session_id(token)
        now = self.clock()
        s = self._sessions.get(sid)
        if s is None or now - s.cached_at >= timedelta(seconds=self.settings.session_cache_seconds):
            self._sessions.pop(sid, None)
            r = await store.read(lambda conn: _load_session(conn, sid))
            if r is None or r.disabled:
                return None
            s = Session(
                sid,
                Account(r.id, r.name, r.person),
                _utc(r.expires_at),
                _utc(r.last_seen_at),
                now,
            )
            self._remember(self._sessions, sid, s)
        idle = timedelta(days=self.settings.session_idle_days)
        if now >= s.expires_at or now >= s.last_seen + idle:
            self._sessions.pop(sid, None)
            await store.write(lambda conn: _delete_session(conn, sid))
            return None
        if now - s.last_seen >= TOUCH_EVERY:
            s.last_seen = now
            aid = s.account.id
            await store.write(lambda conn: _touch(conn, sid, aid, now))
        return s

    def forget_account(self, account_id: str, keep: str | None = None) -> None:
        """Drop the account's resolved sessions here (but ``keep``): they are read again."""
        for sid in [k for k, s in self._sessions.items() if s.account.id == account_id]:
            if sid != keep:
                del self._sessions[sid]

    async def retired(self, store: db.Store, person: str) -> bool:
        """Whether ``person`` (a guest cookie's) is an account's: that cookie is no guest."""
        now = self.clock()
        known = self._persons.get(person)
        ttl = timedelta(seconds=self.settings.session_cache_seconds)
        if known is not None and (known[0] or now - known[1] < ttl):
            return known[0]
        taken = await store.read(lambda conn: _is_account_person(conn, person))
        self._persons.pop(person, None)
        self._remember(self._persons, person, (taken, now))
        return taken

    @staticmethod
    def _remember(cache: dict[str, Any], key: str, value: Any) -> None:
        cache[key] = value
        while len(cache) > CACHE_MAX:
            cache.pop(next(iter(cache)))

    # ---------------------------------------------------------------- hashing

    async def _hash(self, password: str) -> str:
        async with self._hashing:
            return await asyncio.to_thread(self.hasher.hash, password)

    async def _verify(self, stored: str | None, password: str) -> bool:
        """Check ``password`` against a stored hash (an unknown name: a dummy one)."""
        if stored is None and self._dummy is None:
            self._dummy = await self._hash(secrets.token_urlsafe(16))
        target = stored if stored is not None else self._dummy
        assert target is not None

        def check() -> bool:
            try:
                return bool(self.hasher.verify(target, password))
            except (VerificationError, InvalidHashError):
                return False

        async with self._hashing:
            ok = await asyncio.to_thread(check)
        return ok and stored is not None

    def _needs_rehash(self, stored: str) -> bool:
        try:
            return self.hasher.check_needs_rehash(stored)
        except InvalidHashError:  # pragma: no cover - a stored hash verified just now
            return True

    # ---------------------------------------------------------------- actions

    def _now_seconds(self) -> float:
        return self.clock().timestamp()

    def _throttled(self, keys: list[str]) -> None:
        t = self._now_seconds()
        wait = max(self.logins.wait(k, t) for k in keys)
        if wait > 0:
            raise AccountRefused(
                429,
                "too_many_attempts",
                f"too many wrong passwords: try again in {math.ceil(wait)} s",
                retry_after=wait,
            )

    async def sign_up(
        self, store: db.Store, name: str, password: str, guest: str | None, client: str
    ) -> tuple[Account, str, datetime]:
        """Make an account acting as ``guest`` (the browser's person), and a session.

        Returns the account, the session cookie and when the account was made.

        Raises:
            AccountRefused: bad_name, bad_password (naming the field), name_taken,
                too_many_signups.
        """
        why = name_problem(name)
        if why is not None:
            raise AccountRefused(422, "bad_name", why, "name")
        why = password_problem(password, name, self.settings)
        if why is not None:
            raise AccountRefused(422, "bad_password", why, "password")
        taken = AccountRefused(409, "name_taken", f"the user name {name!r} is taken", "name")
        if await store.read(lambda conn: _row_by_name(conn, name)) is not None:
            raise taken
        wait = self.signups.take(f"a:{client}", self._now_seconds())
        if wait > 0:
            raise AccountRefused(
                429,
                "too_many_signups",
                f"too many new accounts from your address: try again in {math.ceil(wait)} s",
                retry_after=wait,
            )
        hashed = await self._hash(password)
        token = secrets.token_urlsafe(32)
        sid = session_id(token)
        t = self.clock()
        aid = secrets.token_hex(16)

        def insert(conn: Connection) -> str:
            # A guest whose person is an account's already (a second sign-up racing the
            # first: the Guard replaces retired cookies) becomes a new person.
            p = guest if guest is not None and not _is_account_person(conn, guest) else None
            p = p or person_id(new_cookie())
            conn.execute(
                accounts_t.insert().values(
                    id=aid,
                    name=name,
                    name_key=name_key(name),
                    password_hash=hashed,
                    person=p,
                    disabled=False,
                    created_at=t,
                    last_seen_at=t,
                )
            )
            _new_session(conn, sid, aid, t, self.settings)
            return p

        try:
            person: str = await store.write(insert)
        except IntegrityError:
            raise taken from None  # the name was taken meanwhile
        account = Account(aid, name, person)
        self._remember(self._persons, account.person, (True, t))
        return account, token, t

    async def log_in(
        self, store: db.Store, name: str, password: str, client: str, old: str | None
    ) -> tuple[Account, str]:
        """Check a name and password; return the account and a new session's cookie.

        ``old`` is the session the browser had (it ends).

        Raises:
            AccountRefused: too_many_attempts (429), bad_login (401), account_disabled.
        """
        keys = [f"n:{name_key(name)[:64]}", f"a:{client}"]
        self._throttled(keys)
        # Counted before the check, so that attempts at once cannot pass the limit.
        t0 = self._now_seconds()
        for k in keys:
            self.logins.fail(k, t0)
        row = await store.read(lambda conn: _row_by_name(conn, name))
        ok = await self._verify(None if row is None else row.password_hash, password)
        if not ok or row is None:
            raise AccountRefused(401, "bad_login", "wrong user name or password")
        for k in keys:
            self.logins.unfail(k, t0)
        self.logins.clear(keys[0])
        if row.disabled:
            raise AccountRefused(
                403, "account_disabled", "this account is disabled: ask the server's operator"
            )
        rehashed = await self._hash(password) if self._needs_rehash(row.password_hash) else None
        account = _account(row)
        token = secrets.token_urlsafe(32)
        sid = session_id(token)
        t = self.clock()

        def write(conn: Connection) -> None:
            if old is not None:
                _delete_session(conn, old)
            if rehashed is not None:
                conn.execute(
                    accounts_t.update()
                    .where(accounts_t.c.id == account.id)
                    .values(password_hash=rehashed)
                )
            _new_session(conn, sid, account.id, t, self.settings)

        await store.write(write)
        if old is not None:
            self._sessions.pop(old, None)
        return account, token

    async def log_out(self, store: db.Store, sid: str | None) -> None:
        """End a session (None: nothing to end)."""
        if sid is None:
            return
        self._sessions.pop(sid, None)
        await store.write(lambda conn: _delete_session(conn, sid))

    async def change_password(
        self, store: db.Store, account: Account, sid: str, old: str, new: str, client: str
    ) -> int:
        """Check the old password, store the new one and end every other session.

        Returns how many other sessions ended.

        Raises:
            AccountRefused: bad_password (``new``), too_many_attempts, wrong_password
                (``old``).
        """
        why = password_problem(new, account.name, self.settings)
        if why is not None:
            raise AccountRefused(422, "bad_password", why, "new")
        keys = [f"n:{name_key(account.name)}", f"a:{client}"]
        self._throttled(keys)
        t0 = self._now_seconds()
        for k in keys:
            self.logins.fail(k, t0)
        aid = account.id
        stored = await store.read(
            lambda conn: conn.execute(
                sa.select(accounts_t.c.password_hash).where(accounts_t.c.id == aid)
            ).scalar_one_or_none()
        )
        if stored is None or not await self._verify(stored, old):
            raise AccountRefused(401, "wrong_password", "the old password is wrong", "old")
        for k in keys:
            self.logins.unfail(k, t0)
        hashed = await self._hash(new)

        def write(conn: Connection) -> int:
            conn.execute(
                accounts_t.update().where(accounts_t.c.id == aid).values(password_hash=hashed)
            )
            return _end_sessions(conn, aid, keep=sid)

        ended: int = await store.write(write)
        self.forget_account(aid, keep=sid)
        return ended


def account_of_scope(scope: Scope) -> Account | None:
    """Return the account a request or websocket is signed in to, or None (a guest)."""
    state = scope.get("state") or {}
    account: Account | None = state.get("account")
    return account


def accounts_of(request: Request) -> Accounts:
    """Return the app's :class:`Accounts` (``app.state.accounts``)."""
    a: Accounts = request.app.state.accounts
    return a


# --------------------------------------------------------------------- HTTP API


class Credentials(BaseModel):
    """``POST /api/account/signup`` and ``/login``: a user name and its password."""

    model_config = ConfigDict(extra="forbid")
    name: Annotated[Text, Field(max_length=1000)]
    password: Annotated[Text, Field(max_length=4096)]


class PasswordChange(BaseModel):
    """``POST /api/account/password``: the password now and the new one."""

    model_config = ConfigDict(extra="forbid")
    old: Annotated[Text, Field(max_length=4096)]
    new: Annotated[Text, Field(max_length=4096)]


def router(settings: Settings) -> APIRouter:
    """Return the ``/api/account`` routes (the service is the app's ``state.accounts``)."""
    r = APIRouter()
    session_age = int(settings.session_days * 86400)

    def store(request: Request) -> db.Store:
        s: db.Store = request.app.state.hub.store
        return s

    def client(request: Request) -> str:
        return request.client.host if request.client is not None else "?"

    def enabled() -> None:
        if not settings.accounts:
            raise AccountRefused(404, "no_accounts", "this server has no accounts")

    def signed_in(response: Response, request: Request, token: str) -> None:
        response.headers.append(
            "set-cookie", set_cookie(request.scope, SESSION_COOKIE, token, session_age).decode()
        )

    async def created_at(request: Request, account: Account) -> str | None:
        aid = account.id
        t = await store(request).read(
            lambda conn: conn.execute(
                sa.select(accounts_t.c.created_at).where(accounts_t.c.id == aid)
            ).scalar_one_or_none()
        )
        return _iso(t)

    @r.get("/api/account")
    async def whoami(request: Request) -> Response:
        """The account this browser is signed in to (``null``: a guest)."""
        account = account_of_scope(request.scope)
        out = None
        if account is not None:
            out = {"name": account.name, "created_at": await created_at(request, account)}
        return JSONResponse(
            {"account": out, "accounts": settings.accounts},
            headers={"Cache-Control": "no-store"},
        )

    @r.post("/api/account/signup", status_code=201)
    async def sign_up(body: Credentials, request: Request) -> Response:
        """Make an account of this browser's guest (its games are the account's); sign in.

        Sets the session cookie and a new guest cookie.
        """
        try:
            enabled()
            if account_of_scope(request.scope) is not None:
                raise AccountRefused(409, "signed_in", "log out before you make another account")
            guest = request.scope.get("state", {}).get("guest")
            account, token, t = await accounts_of(request).sign_up(
                store(request), body.name, body.password, guest, client(request)
            )
        except AccountRefused as e:
            return e.response()
        resp = JSONResponse(
            {"account": {"name": account.name, "created_at": _iso(t)}}, status_code=201
        )
        signed_in(resp, request, token)
        fresh = set_cookie(request.scope, COOKIE, new_cookie(), 400 * 24 * 3600)
        resp.headers.append("set-cookie", fresh.decode())
        return resp

    @r.post("/api/account/login")
    async def log_in(body: Credentials, request: Request) -> Response:
        """Sign in with a user name and password (the session cookie is set)."""
        try:
            enabled()
            old = request.scope.get("state", {}).get("session")
            account, token = await accounts_of(request).log_in(
                store(request), body.name, body.password, client(request), old
            )
            out = {"name": account.name, "created_at": await created_at(request, account)}
        except AccountRefused as e:
            return e.response()
        resp = JSONResponse({"account": out})
        signed_in(resp, request, token)
        return resp

    @r.post("/api/account/logout")
    async def log_out(request: Request) -> Response:
        """Sign out: the session ends; the browser is its guest again."""
        sid = request.scope.get("state", {}).get("session")
        await accounts_of(request).log_out(store(request), sid)
        resp = JSONResponse({"account": None})
        resp.headers.append("set-cookie", set_cookie(request.scope, SESSION_COOKIE, "", 0).decode())
        return resp

    @r.post("/api/account/password")
    async def change_password(body: PasswordChange, request: Request) -> Response:
        """Change the password: ``old`` is checked; every other session of the account ends."""
        try:
            enabled()
            account = account_of_scope(request.scope)
            sid = request.scope.get("state", {}).get("session")
            if account is None or sid is None:
                raise AccountRefused(401, "not_signed_in", "sign in first")
            ended = await accounts_of(request).change_password(
                store(request), account, sid, body.old, body.new, client(request)
            )
        except AccountRefused as e:
            return e.response()
        return JSONResponse({"account": {"name": account.name}, "sessions_ended": ended})

    return r


# ------------------------------------------------------------------------ admin


def list_accounts(conn: Connection, t: datetime | None = None) -> list[dict[str, Any]]:
    """Return every account (name, dates, disabled, live sessions), by name."""
    t = t or db.now()
    live = (
        sa.select(sa.func.count())
        .where(sessions_t.c.account_id == accounts_t.c.id, sessions_t.c.expires_at > t)
        .correlate(accounts_t)
        .scalar_subquery()
    )
    q = sa.select(accounts_t, live.label("sessions")).order_by(accounts_t.c.name_key)
    return [
        {
            "name": r.name,
            "created_at": _iso(r.created_at),
            "last_seen_at": _iso(r.last_seen_at),
            "disabled": bool(r.disabled),
            "sessions": int(r.sessions),
        }
        for r in conn.execute(q)
    ]


def set_disabled(conn: Connection, name: str, disabled: bool) -> tuple[Account, int] | None:
    """Disable (its sessions end) or enable the account ``name``.

    Returns the account and how many sessions ended, or None if there is no such account.
    """
    r = _row_by_name(conn, name)
    if r is None:
        return None
    conn.execute(accounts_t.update().where(accounts_t.c.id == r.id).values(disabled=disabled))
    ended = _end_sessions(conn, r.id) if disabled else 0
    return _account(r), ended


def delete_account(conn: Connection, name: str) -> dict[str, int] | None:
    """Delete the account ``name``: its sessions, ratings, friendships, results and pads.

    The tables it played stay, with their seats' names as typed. Returns how many rows
    of each kind went, or None if there is no such account.
    """
    r = _row_by_name(conn, name)
    if r is None:
        return None

    def count(table: sa.Table, *where: Any) -> int:
        return int(
            conn.execute(sa.select(sa.func.count()).select_from(table).where(*where)).scalar_one()
        )

    gone = {
        "sessions": count(sessions_t, sessions_t.c.account_id == r.id),
        "ratings": count(ratings_t, ratings_t.c.account_id == r.id),
        "friends": len(
            {
                f.account_id if f.friend_id == r.id else f.friend_id
                for f in conn.execute(
                    sa.select(friends_t).where(
                        sa.or_(friends_t.c.account_id == r.id, friends_t.c.friend_id == r.id)
                    )
                )
            }
        ),
        "results": int(
            conn.execute(results_t.delete().where(results_t.c.person == r.person)).rowcount
        ),
        "pads": int(conn.execute(pads_t.delete().where(pads_t.c.owner == r.person)).rowcount),
    }
    # Sessions, ratings and friendships go with the account (ON DELETE CASCADE).
    conn.execute(accounts_t.delete().where(accounts_t.c.id == r.id))
    return gone


def export_account(conn: Connection, name: str) -> dict[str, Any] | None:
    """Return everything stored about the account ``name`` as JSON, or None.

    The account, its sessions' dates (never their hashes), ratings, results, friends
    and requests, the tables it played (seat, name, result) and its score pads; never
    the password hash.
    """
    r = _row_by_name(conn, name)
    if r is None:
        return None
    aid, person = r.id, r.person
    sessions = conn.execute(
        sa.select(sessions_t)
        .where(sessions_t.c.account_id == aid)
        .order_by(sessions_t.c.created_at)
    )
    ratings = conn.execute(
        sa.select(ratings_t)
        .where(ratings_t.c.account_id == aid)
        .order_by(ratings_t.c.game, ratings_t.c.variant)
    )
    results = conn.execute(
        sa.select(results_t)
        .where(results_t.c.person == person)
        .order_by(results_t.c.finished_at, results_t.c.table_id)
    )
    names = sa.select(accounts_t.c.id, accounts_t.c.name).subquery()
    asked = {
        x.name
        for x in conn.execute(
            sa.select(names.c.name)
            .join(friends_t, friends_t.c.friend_id == names.c.id)
            .where(friends_t.c.account_id == aid)
        )
    }
    asking = {
        x.name
        for x in conn.execute(
            sa.select(names.c.name)
            .join(friends_t, friends_t.c.account_id == names.c.id)
            .where(friends_t.c.friend_id == aid)
        )
    }
    played = conn.execute(
        sa.select(
            holders_t.c.table_id,
            holders_t.c.seat,
            holders_t.c.at,
            tables_t.c.game,
            tables_t.c.variant,
            tables_t.c.title,
            tables_t.c.status,
            tables_t.c.public,
            tables_t.c.rated,
            tables_t.c.created_at,
            tables_t.c.finished_at,
            tables_t.c.result,
            seats_t.c.name,
        )
        .join(tables_t, tables_t.c.id == holders_t.c.table_id)
        .join(
            seats_t,
            sa.and_(seats_t.c.table_id == holders_t.c.table_id, seats_t.c.seat == holders_t.c.seat),
        )
        .where(holders_t.c.person == person)
        .order_by(tables_t.c.created_at, holders_t.c.table_id)
    )
    pads = conn.execute(
        sa.select(pads_t).where(pads_t.c.owner == person).order_by(pads_t.c.created_at)
    )
    return {
        "exported_at": db.now().isoformat(),
        "account": {
            "id": aid,
            "name": r.name,
            "person": person,
            "disabled": bool(r.disabled),
            "created_at": _iso(r.created_at),
            "last_seen_at": _iso(r.last_seen_at),
        },
        "sessions": [
            {
                "created_at": _iso(s.created_at),
                "last_seen_at": _iso(s.last_seen_at),
                "expires_at": _iso(s.expires_at),
            }
            for s in sessions
        ],
        "ratings": [
            {
                "game": x.game,
                "variant": x.variant,
                "mu": x.mu,
                "sigma": x.sigma,
                "games": x.games,
                "updated_at": _iso(x.updated_at),
            }
            for x in ratings
        ],
        "results": [
            {
                "table": x.table_id,
                "seat": x.seat,
                "game": x.game,
                "variant": x.variant,
                "finished_at": _iso(x.finished_at),
                "won": x.won,
                "hands": x.hands,
                "points": x.points,
                "stats": x.stats,
                "rating": x.rating,
            }
            for x in results
        ],
        "friends": {
            "friends": sorted(asked & asking, key=name_key),
            "asked": sorted(asked - asking, key=name_key),
            "asked_by": sorted(asking - asked, key=name_key),
        },
        "tables": [
            {
                "table": x.table_id,
                "seat": x.seat,
                "seat_name": x.name,
                "sat_at": _iso(x.at),
                "game": x.game,
                "variant": x.variant,
                "title": x.title,
                "status": x.status,
                "public": bool(x.public),
                "rated": bool(x.rated),
                "created_at": _iso(x.created_at),
                "finished_at": _iso(x.finished_at),
                "result": x.result,
            }
            for x in played
        ],
        "pads": [
            {
                "id": x.id,
                "title": x.title,
                "game": x.game,
                "variant": x.variant,
                "entries": x.entries,
                "created_at": _iso(x.created_at),
                "updated_at": _iso(x.updated_at),
                "doc": x.doc,
            }
            for x in pads
        ],
    }


__all__ = [
    "NAME_MAX",
    "NAME_MIN",
    "Account",
    "AccountRefused",
    "Accounts",
    "Credentials",
    "PasswordChange",
    "Session",
    "Throttle",
    "account_by_name",
    "account_by_person",
    "account_of_scope",
    "delete_account",
    "export_account",
    "list_accounts",
    "name_key",
    "name_problem",
    "password_problem",
    "router",
    "session_id",
    "set_disabled",
]
