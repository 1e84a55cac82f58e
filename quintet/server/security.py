"""Who a browser is, where a request comes from, and the headers every answer carries.

* **Person identity.** Every browser gets a random, HttpOnly, SameSite=Lax cookie
  ``quintet_person`` from the first HTTP answer it receives; the websocket handshake
  carries it. The server keeps only :func:`person_id` of it (a SHA-256), so the cookie
  itself is never stored. A person holds at most one seat of a table in a match
  (:mod:`quintet.server.live` enforces it).
* **Accounts.** A browser signed in to an account (:mod:`quintet.server.accounts`) also
  carries ``quintet_session``: the :class:`Guard` resolves it and the request or
  websocket then *is* the account's person (``scope["state"]["person"]``, and
  ``["account"]``), so every rule keyed by the person applies to the account from any
  browser. A stale session is as none (a guest), and the answer clears its cookie; a
  guest cookie whose person became an account's is no guest any more (a new one is
  given), so an old copy of it is worth nothing.
* **Origins.** A state-changing request (``POST`` and the like) must be
  ``application/json`` and come from this site or an origin the operator allowed
  (``--allow-origin``); the websocket refuses foreign origins the same way. Requests
  without an ``Origin`` header (not from a browser page) are allowed: a cross-site
  form always sends one.
* **Headers.** A Content-Security-Policy without inline scripts, ``nosniff``, no
  framing, no referrer (links carry invite codes).
* **Rates.** :class:`Buckets` are token buckets per key (a client address, a person).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from http.cookies import SimpleCookie
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from quintet.server.settings import Settings

if TYPE_CHECKING:
    from quintet.server.accounts import Accounts, Session
    from quintet.server.db import Store

COOKIE = "quintet_person"
#: The cookie of a signed-in browser (:mod:`quintet.server.accounts`).
SESSION_COOKIE = "quintet_session"
_COOKIE_VALUE = re.compile(r"[A-Za-z0-9_-]{43}")
COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest browsers keep a cookie

#: The policy of every page: scripts and styles from this site only, nothing framed.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def new_cookie() -> str:
    """Return a new person cookie value (256 random bits)."""
    return secrets.token_urlsafe(32)


def person_id(cookie: str) -> str:
    """Return the stored form of a person cookie (SHA-256, hex)."""
    return hashlib.sha256(b"quintet-person:" + cookie.encode()).hexdigest()


def hash_token(token: str) -> str:
    """Return the stored form of a seat token (SHA-256, hex)."""
    return hashlib.sha256(token.encode()).hexdigest()


def same_code(given: str | None, expected: str | None) -> bool:
    """Whether a code a client gave equals the stored one (in constant time)."""
    if given is None or expected is None:
        return False
    return hmac.compare_digest(given.encode(), expected.encode())


def cookie_of(headers: Iterable[tuple[bytes, bytes]], cookie: str = COOKIE) -> str | None:
    """Return the well-formed ``cookie`` (``quintet_person``, ``quintet_session``) among
    raw headers, or None."""
    for name, value in headers:
        if name != b"cookie":
            continue
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(value.decode("latin-1"))
        except Exception:  # a malformed Cookie header: no person
            continue
        morsel = jar.get(cookie)
        if morsel is not None and _COOKIE_VALUE.fullmatch(morsel.value):
            return morsel.value
    return None


#: The key of a websocket's scope where :class:`Guard` keeps the ``send`` it was given:
#: the server's own (no middleware wraps a websocket's), for messages sent without
#: Starlette's wrapper and its state checks (:func:`quintet.server.app.text_sender`).
WS_SEND = "quintet.ws_send"


def person_of_scope(scope: Scope) -> str | None:
    """Return the person id of a request or websocket (None without a cookie)."""
    state = scope.get("state") or {}
    if "person" in state:
        person: str | None = state["person"]
        return person
    cookie = cookie_of(scope.get("headers") or [])
    return None if cookie is None else person_id(cookie)


def set_cookie(scope: Scope, name: str, value: str, max_age: int) -> bytes:
    """Return a ``Set-Cookie`` value: HttpOnly, SameSite=Lax, Path=/, Secure over HTTPS.

    ``max_age`` 0 with an empty ``value`` clears the cookie.
    """
    secure = "; Secure" if scope.get("scheme") in ("https", "wss") else ""
    return f"{name}={value}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}".encode()


def _accounts_of(scope: Scope) -> tuple[Accounts, Store] | None:
    """Return the app's accounts and store (None before start-up, or in an app without)."""
    state = getattr(scope.get("app"), "state", None)
    accounts = getattr(state, "accounts", None)
    hub = getattr(state, "hub", None)
    if accounts is None or hub is None:
        return None
    return accounts, hub.store


def _identify(state: dict[str, Any], guest: str | None, session: Session | None) -> None:
    """Say in ``scope["state"]`` who the request is: the account's person, or the guest."""
    state["guest"] = guest  # the browser's own person (a sign-up takes it)
    state["account"] = None if session is None else session.account
    state["session"] = None if session is None else session.id
    state["person"] = guest if session is None else session.account.person


def _header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers") or []:
        if k == name:
            return str(v.decode("latin-1"))
    return None


def origin_allowed(scope: Scope, settings: Settings) -> bool:
    """Whether the request's ``Origin`` is this site, an allowed origin, or absent."""
    origin = _header(scope, b"origin")
    if origin is None:
        return True
    allowed = settings.allow_origins
    if "*" in allowed or origin.rstrip("/") in {a.rstrip("/") for a in allowed}:
        return True
    host = _header(scope, b"host")
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return (
        parts.scheme in ("http", "https")
        and host is not None
        and parts.netloc.lower() == host.lower()
    )


def _json_error(status: int, code: str, message: str) -> tuple[int, bytes]:
    body = {"error": {"code": code, "message": message}}
    return status, json.dumps(body).encode()


class Guard:
    """ASGI middleware: the person cookie and session, origin and body checks, headers.

    ``csp`` maps a path prefix to its own policy (the OpenAPI page's scripts). Sessions
    are resolved by the app's ``state.accounts`` (:class:`quintet.server.accounts.Accounts`)
    in the store of ``state.hub``; an app without them has guests only.
    """

    def __init__(self, app: ASGIApp, settings: Settings, csp: dict[str, str] | None = None) -> None:
        self.app = app
        self.settings = settings
        self.csp = csp or {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers") or []
        state = scope.setdefault("state", {})
        cookie = cookie_of(headers)
        session: Session | None = None
        stale = False
        found = _accounts_of(scope)
        if found is not None:
            accounts, store = found
            if cookie is not None and await accounts.retired(store, person_id(cookie)):
                cookie = None  # its person is an account's now: this browser gets a new one
            token = cookie_of(headers, SESSION_COOKIE)
            if token is not None:
                session = await accounts.resolve(store, token)
                stale = session is None
        if kind == "websocket":
            _identify(state, None if cookie is None else person_id(cookie), session)
            scope[WS_SEND] = send
            await self.app(scope, receive, send)
            return
        fresh = cookie is None
        if cookie is None:
            cookie = new_cookie()
        _identify(state, person_id(cookie), session)
        path: str = scope.get("path", "")
        csp = next((v for k, v in self.csp.items() if path.startswith(k)), CSP)
        extra = list(_HEADERS)
        extra.append((b"content-security-policy", csp.encode()))
        cookies: list[tuple[bytes, bytes]] = []
        if fresh:
            cookies.append((b"set-cookie", set_cookie(scope, COOKIE, cookie, COOKIE_MAX_AGE)))
        if stale:
            cookies.append((b"set-cookie", set_cookie(scope, SESSION_COOKIE, "", 0)))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                own = message.get("headers", [])
                # A cookie the answer sets itself (a sign-up's new guest, a log-in's
                # session) is not overridden by the Guard's.
                named = {v.split(b"=", 1)[0] for k, v in own if k.lower() == b"set-cookie"}
                mine = [(k, v) for k, v in cookies if v.split(b"=", 1)[0] not in named]
                message["headers"] = [*own, *extra, *mine]
            await send(message)

        if scope.get("method") in _UNSAFE:
            refused = self._refuse(scope)
            if refused is None:
                body, too_large = await _read_body(receive, self.settings.max_body)
                if too_large:
                    refused = _json_error(
                        413, "too_large", f"the body is over {self.settings.max_body} bytes"
                    )
                else:
                    receive = _replay(body)
            if refused is not None:
                status, payload = refused
                await send_with_headers(
                    {
                        "type": "http.response.start",
                        "status": status,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(payload)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": payload})
                return
        await self.app(scope, receive, send_with_headers)

    def _refuse(self, scope: Scope) -> tuple[int, bytes] | None:
        if not origin_allowed(scope, self.settings):
            return _json_error(403, "bad_origin", "requests from other sites are refused")
        ctype = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            return _json_error(415, "bad_content_type", "send the body as application/json")
        length = _header(scope, b"content-length")
        if length is not None and length.isdigit() and int(length) > self.settings.max_body:
            return _json_error(413, "too_large", f"the body is over {self.settings.max_body} bytes")
        return None


async def _read_body(receive: Receive, limit: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return b"", True
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks), False


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


def count_down(counter: Counter[str], key: str) -> None:
    """Count one ``key`` less, forgetting keys that reach zero (counters stay small)."""
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]


class Buckets:
    """Token buckets by key: ``rate`` tokens a second, at most ``burst`` saved up."""

    def __init__(self, rate: float, burst: float, max_keys: int = 100_000) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self._buckets: dict[str, tuple[float, float]] = {}
        #: How keys are kept (a site's buckets keep them hashed: quintet.server.sitewide).
        self.keyer: Callable[[str], str] | None = None
        #: Tokens taken by (kept) key, a running total, when the site shares the buckets.
        self.taken: Counter[str] | None = None
        #: The clock of a :meth:`debit` (that of the takes: they may pass their own ``now``).
        self.clock: Callable[[], float] = time.monotonic

    def take(self, key: str, now: float | None = None) -> float:
        """Take a token for ``key``: return 0, or the seconds until one is there."""
        t = self.clock() if now is None else now
        if self.keyer is not None:
            key = self.keyer(key)
        tokens, last = self._buckets.get(key, (self.burst, t))
        tokens = min(self.burst, tokens + (t - last) * self.rate)
        if tokens < 1:
            self._buckets[key] = (tokens, t)
            return (1 - tokens) / self.rate
        self._buckets[key] = (tokens - 1, t)
        if self.taken is not None:
            self.taken[key] += 1
        if len(self._buckets) > self.max_keys:
            self._forget(t)
        return 0.0

    def debit(self, key: str, n: int, now: float | None = None) -> None:
        """Take ``n`` tokens of a kept ``key`` that other processes of the site took
        (the bucket may go below zero: its next token comes that much later)."""
        t = self.clock() if now is None else now
        tokens, last = self._buckets.get(key, (self.burst, t))
        tokens = min(self.burst, tokens + max(0.0, t - last) * self.rate)
        self._buckets[key] = (max(tokens - n, 1 - self.burst), max(t, last))
        if len(self._buckets) > self.max_keys:
            self._forget(t)

    def clear(self) -> None:
        """Forget every bucket (all full again)."""
        self._buckets.clear()
        if self.taken is not None:
            self.taken.clear()

    def _forget(self, t: float) -> None:
        # A bucket that has filled up again is the same as no bucket.
        full = [
            k for k, (n, last) in self._buckets.items() if n + (t - last) * self.rate >= self.burst
        ]
        for k in full:
            del self._buckets[k]
        while len(self._buckets) > self.max_keys:
            self._buckets.pop(next(iter(self._buckets)))
