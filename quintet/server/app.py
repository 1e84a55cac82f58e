"""The ASGI application: pages, the HTTP API and the websocket.

``create_app(settings)`` returns a FastAPI app; ``quintet serve`` runs it with uvicorn.
Nothing the HTTP API returns holds a card of a table still in play: records, replays
and analyses are only given for tables that are over. A private table is answered
only to its players, its creator and holders of one of its links; to anyone else it
does not exist (404). Every body is a declared model (:mod:`quintet.server.messages`);
:class:`~quintet.server.security.Guard` sets the person cookie, checks origins and
content types, and adds the security headers.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import os
import re
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qsl, urlencode

from fastapi import Depends, FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from quintet.games import games
from quintet.record import dumps as record_dumps
from quintet.server import accounts, db, friends, metrics, pads, pages, players, replay
from quintet.server.conn import Conn
from quintet.server.db import CLOSED, Store
from quintet.server.live import FieldError, Hub, LiveTable
from quintet.server.messages import CreateTable, describe
from quintet.server.protocol import MAX_MESSAGE, PROTOCOL_VERSION, error
from quintet.server.security import (
    CSP,
    WS_SEND,
    Guard,
    count_down,
    origin_allowed,
    person_of_scope,
)
from quintet.server.settings import Settings
from quintet.server.social import RULEBOOK_SIGNALS
from quintet.server.workers import PoolBusy, SearchTimeout

log = logging.getLogger("quintet.server")

STATIC = Path(str(resources.files("quintet.server") / "static"))
_CODE = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: The furthest page of a listing (a database offset must fit its integers).
MAX_OFFSET = 1_000_000


def _error(status: int, code: str, message: str, field: str | None = None) -> JSONResponse:
    body: dict[str, Any] = {"code": code, "message": message}
    if field is not None:
        body["field"] = field
    return JSONResponse({"error": body}, status_code=status)


def _not_found() -> JSONResponse:
    return _error(404, "no_table", "no table has this id")


def _code(value: str | None) -> str | None:
    """Return a link code from a query or header if it is well formed, else None."""
    return value if value is not None and _CODE.fullmatch(value) else None


def hub_of(request: Request) -> Hub:
    """Return the app's hub (a FastAPI dependency)."""
    hub: Hub = request.app.state.hub
    return hub


HubDep = Annotated[Hub, Depends(hub_of)]


def _docs_page() -> tuple[str, str]:
    """Return the OpenAPI page and its CSP: its one inline script allowed by hash."""
    html = get_swagger_ui_html(openapi_url="/api/openapi.json", title="quintet API").body
    text = bytes(html).decode()
    hashes = []
    for script in re.findall(r"<script>(.*?)</script>", text, re.S):
        digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
        hashes.append(f"'sha256-{digest}'")
    cdn = "https://cdn.jsdelivr.net"
    csp = (
        f"default-src 'self'; script-src 'self' {cdn} {' '.join(hashes)}; "
        f"style-src 'self' {cdn}; img-src 'self' data: https://fastapi.tiangolo.com; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    )
    return text, csp


def create_app(settings: Settings | None = None) -> FastAPI:
    """Return the server's ASGI app (storage opened and tables resumed at start-up)."""
    settings = settings or Settings()
    if not settings.db_url:
        settings.db_url = db.default_db_url()
    settings.check()
    _redact_access_log()  # however the app is served (run(), or uvicorn --factory)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub: Hub
        if settings.redis_url is None:
            hub = Hub(settings, Store(settings.db_url))
        else:  # one process of several (docs/server.md, "Deployment")
            from quintet.server.cluster import ClusterHub, FencedStore

            hub = ClusterHub(settings, FencedStore(settings.db_url))
        hub.tally.rate("signups", app.state.accounts.signups)  # counted over the site
        await hub.start()
        app.state.hub = hub
        try:
            yield
        finally:
            await hub.stop()

    app = FastAPI(
        title="quintet",
        version=str(PROTOCOL_VERSION),
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    docs_html, docs_csp = _docs_page()
    app.add_middleware(Guard, settings=settings, csp={"/api/docs": docs_csp})

    @app.exception_handler(RequestValidationError)
    async def invalid_body(request: Request, exc: RequestValidationError) -> JSONResponse:
        errs = list(exc.errors())
        if errs and errs[0].get("type") == "json_invalid":
            return _error(400, "bad_json", "the body is not JSON")
        field, message = describe(errs, skip=1)
        return _error(422, "invalid", message, field)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {400: "bad_request", 404: "not_found", 405: "bad_method"}.get(
            exc.status_code, "http_error"
        )
        return JSONResponse(
            {"error": {"code": code, "message": str(exc.detail)}},
            status_code=exc.status_code,
            headers=getattr(exc, "headers", None),
        )

    def person(request: Request) -> str:
        p = person_of_scope(request.scope)
        assert p is not None  # the Guard gives every HTTP request a person
        return p

    async def visible(request: Request, hub: Hub, table_id: str) -> LiveTable | None:
        """Return the table if this request may see it (else, as for no table, None)."""
        t = await hub.view_table(table_id)
        if t is None:
            return None
        q = request.query_params
        ok = t.can_view(
            person_of_scope(request.scope),
            key=_code(q.get("key")),
            invite=_code(q.get("invite")),
            token=_code(request.headers.get("x-seat-token")),
        )
        return t if ok else None

    # ------------------------------------------------------------------ pages

    @app.get("/", include_in_schema=False)
    async def lobby_page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/table/{table_id}", include_in_schema=False)
    async def table_page(table_id: str) -> FileResponse:
        return FileResponse(STATIC / "table.html")

    @app.get("/replay/{table_id}", include_in_schema=False)
    async def replay_page(table_id: str) -> FileResponse:
        return FileResponse(STATIC / "replay.html")

    @app.get("/rules", include_in_schema=False)
    async def rules_page() -> HTMLResponse:
        return HTMLResponse(pages.rules_html())

    @app.get("/api/docs", include_in_schema=False)
    async def docs_page() -> HTMLResponse:
        return HTMLResponse(docs_html)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(pads.router(settings, STATIC))  # the score pad: /pad, /api/pads
    app.state.accounts = accounts.Accounts(settings)  # sessions: the Guard resolves them
    app.include_router(accounts.router(settings))  # /api/account: sign-up, log-in, ...
    app.include_router(players.router(settings))  # profiles, history, the leaderboard
    app.include_router(friends.router(settings))  # /api/friends, /api/tables/{id}/invite

    # -------------------------------------------------------------------- API

    @app.get("/api/info")
    async def info(hub: HubDep) -> dict[str, Any]:
        """The server's protocol version, games, variants, options, bot levels and limits.

        Each game's description is ``quintet.games``' (``GameInfo.to_json``): the browser
        takes every game fact from it.
        """
        return {
            "protocol": PROTOCOL_VERSION,
            "max_message": MAX_MESSAGE,
            "games": {g.name: g.to_json() for g in games()},
            "levels": list(hub.levels),
            "bot_delay": settings.bot_delay,
            "bot_seconds": settings.bot_seconds,
            "lobby_limit": settings.lobby_limit,
            "chat_length": settings.chat_length,
            "turn_seconds": [settings.turn_seconds_min, settings.turn_seconds_max],
            "question_seconds": settings.question_seconds,
            # Each game with signals: what they mean unless the players agree otherwise.
            "signals": {g.name: RULEBOOK_SIGNALS for g in games() if "signal" in g.action_kinds},
        }

    @app.get("/api/tables")
    async def lobby(
        hub: HubDep,
        limit: Annotated[int, Query(ge=1, le=200)] = settings.lobby_limit,
        offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    ) -> dict[str, Any]:
        """A page of the lobby: public tables in play, newest first, and their number."""
        return await hub.lobby_page(min(limit, settings.lobby_limit), offset)

    @app.post("/api/tables", status_code=201)
    async def create(body: CreateTable, request: Request, hub: HubDep) -> Response:
        """Create a table; returns its id, its links and each seat's invite."""
        client = request.client.host if request.client is not None else None
        try:
            out = await hub.create_table(body, person(request), client)
        except FieldError as e:
            resp = _error(e.status, e.code, e.message, e.field or None)
            if e.status == 429:
                resp.headers["retry-after"] = "60"
            return resp
        return JSONResponse(out, status_code=201)

    @app.get("/api/tables/{table_id}")
    async def table_info(table_id: str, request: Request, hub: HubDep) -> Response:
        """A table's configuration, seats and status (no cards)."""
        t = await visible(request, hub, table_id)
        if t is None:
            return _not_found()
        return JSONResponse(t.lobby_json() | {"seq": t.seq, "result": t.result})

    @app.get("/api/tables/{table_id}/invites")
    async def invites(table_id: str, request: Request, hub: HubDep) -> Response:
        """Each seat's invite link, for a player or the creator of the table.

        A player is known by the browser's person cookie or a seat token (header
        ``X-Seat-Token``).
        """
        t = await visible(request, hub, table_id)
        if t is None:
            return _not_found()
        token = _code(request.headers.get("x-seat-token"))
        if not t.is_player(person_of_scope(request.scope), token):
            return _error(403, "bad_token", "only the table's players see its invites")
        return JSONResponse(
            {
                "seats": [
                    {"seat": s.seat, "kind": s.kind, "url": t.seat_url(s)}
                    for s in t.seats
                    if s.kind != "dummy"
                ],
                "spectate": t.spectate_url(),
            }
        )

    @app.get("/api/tables/{table_id}/qr.svg")
    async def invite_qr(
        table_id: str,
        request: Request,
        hub: HubDep,
        seat: Annotated[int | None, Query(ge=0, le=9)] = None,
    ) -> Response:
        """A QR code (SVG) of a seat's invite link (for a player), or of the watch link.

        The link is absolute, on the address this request was sent to.
        """
        t = await visible(request, hub, table_id)
        if t is None:
            return _not_found()
        if seat is None:
            path = t.spectate_url()
        else:
            token = _code(request.headers.get("x-seat-token"))
            if not t.is_player(person_of_scope(request.scope), token):
                return _error(403, "bad_token", "only the table's players see its invites")
            if not seat < t.num_seats or t.seats[seat].kind == "dummy":
                return _error(404, "no_seat", f"seat {seat} has no invite")
            path = t.seat_url(t.seats[seat])
        url = str(request.base_url).rstrip("/") + path
        return Response(
            pages.qr_svg(url),
            media_type="image/svg+xml",
            headers={"Cache-Control": "private, no-store"},
        )

    @app.get("/api/games")
    async def finished(
        hub: HubDep,
        limit: Annotated[int, Query(ge=1, le=200)] = 50,
        offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    ) -> dict[str, Any]:
        """Public games that are over (finished or abandoned), newest first."""

        def read(conn: Any) -> tuple[list[db.TableRow], int]:
            return db.list_finished(conn, limit, offset), db.count_finished(conn)

        rows, total = await hub.store.read(read)
        return {
            "games": [
                {
                    "id": r.id,
                    "title": r.title,
                    "game": r.game,
                    "variant": r.variant,
                    "options": r.options,
                    "status": r.status,
                    "finished_at": r.finished_at.isoformat() if r.finished_at else None,
                    "result": r.result,
                    "players": [
                        {"seat": s.seat, "kind": s.kind, "name": s.name, "level": s.level}
                        for s in r.seats
                    ],
                    "record": f"/api/games/{r.id}/record",
                    "replay": f"/replay/{r.id}",
                }
                for r in rows
            ],
            "total": total,
            "offset": offset,
            "limit": limit,
        }

    async def over_table(request: Request, hub: Hub, table_id: str) -> LiveTable | Response:
        t = await visible(request, hub, table_id)
        if t is None:
            return _not_found()
        if t.status not in CLOSED:
            return _error(409, "not_finished", "the game is still being played")
        return t

    @app.get("/api/games/{table_id}/record")
    async def record(table_id: str, request: Request, hub: HubDep) -> Response:
        """The record (record-format.md) of a game that is over, as a download."""
        t = await over_table(request, hub, table_id)
        if isinstance(t, Response):
            return t
        return Response(
            record_dumps(t.record()),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="quintet-{t.id}.json"'},
        )

    @app.get("/api/games/{table_id}/replay")
    async def replay_data(table_id: str, request: Request, hub: HubDep) -> Response:
        """Every step of a game that is over, all hands shown (and the analysis if done)."""
        t = await over_table(request, hub, table_id)
        if isinstance(t, Response):
            return t
        data = await hub.replay_of(t)
        analysis = await hub.store.read(lambda conn: db.load_analysis(conn, table_id))
        return JSONResponse(
            {
                "config": t.config_json(),
                "players": t.seats_json(),
                "status": t.status,
                **data,
                "analysis": analysis,
            }
        )

    async def analysis(table_id: str, request: Request, hub: Hub, start: bool) -> Response:
        t = await over_table(request, hub, table_id)
        if isinstance(t, Response):
            return t
        # Whether it runs is read before the stored analysis: the job stores its result
        # before it leaves hub.analyses, so a job gone by then has its result in the store.
        running = table_id in hub.analyses
        stored = await hub.store.read(lambda conn: db.load_analysis(conn, table_id))
        if stored is not None:
            return JSONResponse({"status": "done", "analysis": stored})
        if running or table_id in hub.analyses:
            return JSONResponse({"status": "running"}, status_code=202)
        if not start:
            failed = hub.analysis_failures.get(table_id)
            if failed is not None:  # said until it is started again
                return JSONResponse({"status": "failed", "reason": failed})
            return JSONResponse({"status": "not_started"})
        client = request.client.host if request.client is not None else "?"
        if len(hub.analyses) >= settings.analysis_queue:
            return _error(503, "busy", "the server is analysing other games: try later")
        if hub.analysis_clients[client] >= settings.analyses_per_client:
            return _error(
                429, "too_many_analyses", "your other analyses are still running: try later"
            )
        rec_json = t.record().to_json()

        async def work() -> None:
            try:
                res = await hub.analysis_pool.run(
                    f"analysis:{client}",
                    replay.analyze_json,
                    rec_json,
                    None,
                    settings.analysis_nodes,
                )
                data = res.value
                await hub.store.write(lambda conn: db.store_analysis(conn, table_id, data))
            except PoolBusy:
                log.warning("analysis of %s refused: too many waiting", table_id)
                hub.analysis_failures[table_id] = "the server had too many analyses waiting"
            except asyncio.CancelledError:
                raise
            except SearchTimeout:
                log.warning("analysis of %s ran past %g s", table_id, settings.analysis_limit)
                hub.analysis_failures[table_id] = (
                    f"it ran past the server's limit of {settings.analysis_limit:g} s"
                )
            except Exception as e:
                log.exception("analysis of %s failed", table_id)
                hub.analysis_failures[table_id] = f"it failed ({type(e).__name__})"
            finally:
                hub.analyses.pop(table_id, None)
                count_down(hub.analysis_clients, client)

        hub.analysis_clients[client] += 1
        hub.analysis_failures.pop(table_id, None)
        hub.analyses[table_id] = asyncio.create_task(work())
        return JSONResponse({"status": "running"}, status_code=202)

    @app.post("/api/games/{table_id}/analysis")
    async def start_analysis(table_id: str, request: Request, hub: HubDep) -> Response:
        """Start the double-dummy analysis of each card (202 while it runs), or return it."""
        return await analysis(table_id, request, hub, start=True)

    @app.get("/api/games/{table_id}/analysis")
    async def read_analysis(table_id: str, request: Request, hub: HubDep) -> Response:
        """The analysis: 200 done, 202 running, 200 ``failed`` with the reason (POST starts
        it again), or 200 ``not_started`` (POST starts it)."""
        return await analysis(table_id, request, hub, start=False)

    # ------------------------------------------------------------- operations

    @app.get("/healthz", include_in_schema=False)
    async def healthz(hub: HubDep) -> Response:
        """200 when this process can serve (its database, and Redis, reachable), else 503:
        ``ok``, ``process`` (its id), ``pid``, ``database``, ``redis`` (several processes),
        the tables it runs and its websockets."""
        checks = await hub.health()
        return JSONResponse(checks, status_code=200 if checks["ok"] else 503)

    @app.get("/metrics", include_in_schema=False)
    async def metrics_page(hub: HubDep) -> Response:
        """The Prometheus metrics (:mod:`quintet.server.metrics`)."""
        body, content_type = metrics.render(hub)
        return Response(body, media_type=content_type)

    # -------------------------------------------------------------- websocket

    @app.websocket("/ws")
    async def websocket(ws: WebSocket) -> None:
        if not origin_allowed(ws.scope, settings):
            await ws.close(1008, "origin not allowed")
            return
        hub: Hub = ws.app.state.hub
        client = ws.client.host if ws.client is not None else None
        if (
            client is not None
            and hub.connections[client] + hub.tally.others("connections", client)
            >= settings.max_connections
        ):
            await ws.close(1008, "too many connections from this address")
            return
        if client is not None:
            hub.connections[client] += 1  # counted before any await: no race past the cap
        try:
            await ws.accept()
        except BaseException:
            if client is not None:
                count_down(hub.connections, client)
            raise

        async def close(code: int, reason: str) -> None:
            await ws.close(code, reason)

        conn = Conn(text_sender(ws), close, settings, person_of_scope(ws.scope))
        conn.client = client
        me = asyncio.current_task()
        conn.on_drop = lambda: hub.disconnect(conn)
        receiving = False

        def abort() -> None:
            # A dropped client's handler ends between messages, never inside one (a
            # cancelled handler could leave a stored change unmade in memory): cancel
            # only a wait for the next message.
            if receiving and me is not None:
                me.cancel()

        conn.abort = abort
        sender = asyncio.create_task(conn.sender())
        try:
            while not conn.dropped.is_set():
                receiving = True
                try:
                    m = await ws.receive()
                finally:
                    receiving = False
                if m["type"] == "websocket.disconnect" or conn.dropped.is_set():
                    break
                text = m.get("text")
                if text is None:
                    conn.send(error("bad_message", "send text frames holding JSON"))
                    continue
                await hub.handle(conn, text)
        except (WebSocketDisconnect, RuntimeError):
            pass
        except asyncio.CancelledError:
            if not conn.dropped.is_set() or me is None:
                raise
            me.uncancel()  # a client too slow to read: its socket is left to the server
        finally:
            hub.disconnect(conn)
            if client is not None:
                count_down(hub.connections, client)
            await asyncio.sleep(0)
            sender.cancel()

    if settings.echo:

        @app.websocket("/bench/echo")
        async def echo(ws: WebSocket) -> None:
            await ws.accept()
            try:
                while True:
                    m = await ws.receive()
                    if m["type"] == "websocket.disconnect":
                        break
                    if m.get("text") is not None:
                        await ws.send_text(m["text"])
            except (WebSocketDisconnect, RuntimeError):
                pass

        fan_groups: dict[str, list[Callable[[str], Coroutine[Any, Any, None]]]] = {}

        @app.websocket("/bench/fanout/{group}")
        async def fanout(ws: WebSocket, group: str) -> None:
            """An action's traffic with nothing of a table: each text a member of a group
            (four at most) sends is sent to every member, through the ASGI ``send`` the
            tables' messages take (:func:`text_sender`)."""
            members = fan_groups.setdefault(group[:64], [])
            if len(members) >= 4:
                await ws.close(code=1008, reason="a fan-out group has four members")
                return
            await ws.accept()
            send = text_sender(ws)
            members.append(send)
            try:
                while True:
                    m = await ws.receive()
                    if m["type"] == "websocket.disconnect":
                        break
                    text = m.get("text")
                    if text is not None:
                        for member in list(members):
                            await member(text)
            except (WebSocketDisconnect, RuntimeError, OSError):
                pass
            finally:
                members.remove(send)
                if not members:
                    fan_groups.pop(group[:64], None)

    return app


def text_sender(ws: WebSocket) -> Callable[[str], Coroutine[Any, Any, None]]:
    """Return what sends a text message on an accepted websocket.

    It is the server's ASGI ``send`` itself, kept in the scope by the :class:`Guard`
    (:data:`~quintet.server.security.WS_SEND`): Starlette's ``send_text`` adds a
    wrapper and its state checks to each of the four or five messages of an action,
    checks a :class:`~quintet.server.conn.Conn` does not need (it sends nothing once it
    closed; a send on a closed websocket raises all the same). Without a Guard (an app
    of its own), ``send_text``.
    """
    send = ws.scope.get(WS_SEND)
    if send is None:
        return ws.send_text

    def send_text(text: str) -> Coroutine[Any, Any, None]:
        coro: Coroutine[Any, Any, None] = send({"type": "websocket.send", "text": text})
        return coro

    return send_text


_SECRET_NAMES = frozenset({"key", "invite", "token"})


def redact(path: str) -> str:
    """Return a request path with the values of ``key``, ``invite`` and ``token`` blanked.

    >>> redact("/table/T?seat=1&%69nvite=SECRET")
    '/table/T?seat=1&invite=%E2%80%A6'
    """
    base, sep, query = path.partition("?")
    if not sep:
        return path
    pairs = parse_qsl(query, keep_blank_values=True)
    if not any(k in _SECRET_NAMES for k, _ in pairs):
        return path
    return base + "?" + urlencode([(k, "…" if k in _SECRET_NAMES else v) for k, v in pairs])


class RedactCodes(logging.Filter):
    """Keep invite codes and view keys out of the access log (they are in page links)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) and "?" in a else a for a in args)
        return True


def _redact_access_log() -> None:
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RedactCodes) for f in access.filters):
        access.addFilter(RedactCodes())


#: How ``quintet serve --workers N`` hands its settings and logging to the workers.
SETTINGS_ENV = "QUINTET_SERVE_SETTINGS"
LOGGING_ENV = "QUINTET_SERVE_LOGGING"


def settings_json(settings: Settings) -> str:
    """Return ``settings`` as JSON (for the worker processes of ``--workers``)."""
    import dataclasses

    return json.dumps(dataclasses.asdict(settings))


def settings_of_json(text: str) -> Settings:
    """Return the settings :func:`settings_json` wrote."""
    import dataclasses

    data: dict[str, Any] = json.loads(text)
    tuples = {f.name for f in dataclasses.fields(Settings) if str(f.type).startswith("tuple")}
    for name in tuples & data.keys():
        data[name] = tuple(data[name])
    return Settings(**data)


def app_from_env() -> FastAPI:
    """Return the app of one worker of ``quintet serve --workers N`` (uvicorn's factory):
    the settings and logging are the ones :func:`run` put in the environment."""
    import gc
    import sys

    sys.setswitchinterval(0.0005)
    gc.set_threshold(50_000, 20, 100)  # as run() does: see there
    how = json.loads(os.environ.get(LOGGING_ENV) or "{}")
    metrics.configure_logging(how.get("level", "info"), bool(how.get("json")))
    return create_app(settings_of_json(os.environ[SETTINGS_ENV]))


def run(
    settings: Settings,
    host: str = "127.0.0.1",
    port: int = 8000,
    access_log: bool = True,
    log_level: str = "info",
    workers: int = 1,
    log_json: bool = False,
) -> None:
    """Run the server with uvicorn until it is stopped.

    ``workers`` > 1 (with ``settings.redis_url``) starts that many server processes on
    one port (uvicorn's workers share the listening socket; a worker that dies is
    started again), their metrics shared through prometheus-client's multiprocess mode
    in a temporary directory. ``log_json``: every log line is a JSON object.
    """
    import gc
    import shutil
    import sys
    import tempfile

    import uvicorn

    from quintet.server.protocol import MAX_FRAME

    # The storage writer and bot threads hand results back to the event loop: a short
    # switch interval keeps that hand-over from waiting 5 ms for the GIL.
    sys.setswitchinterval(0.0005)
    # What a server makes mostly lives as long as a table or a connection: the cycle
    # collector's defaults (made for scripts) walked the thousands of them after every
    # few actions (bench/server_load.py: a fifth of the CPU per action at 500 tables).
    gc.set_threshold(50_000, 20, 100)

    metrics.configure_logging(log_level, log_json)
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "ws_max_size": MAX_FRAME,
        "access_log": access_log,
        "log_level": log_level,
        "timeout_graceful_shutdown": 2,
        # Messages are small: compressing each costs more CPU than it saves on a LAN.
        "ws_per_message_deflate": False,
    }
    if log_json:
        options["log_config"] = None  # uvicorn's loggers write through the JSON handler
    if workers <= 1:
        uvicorn.run(create_app(settings), **options)
        return
    if settings.redis_url is None:
        raise ValueError("several workers need Redis (settings.redis_url)")
    settings.check()
    os.environ[SETTINGS_ENV] = settings_json(settings)
    os.environ[LOGGING_ENV] = json.dumps({"level": log_level, "json": log_json})
    made = None
    if not os.environ.get(metrics.MULTIPROC_ENV):
        made = tempfile.mkdtemp(prefix="quintet-metrics-")
        os.environ[metrics.MULTIPROC_ENV] = made
    try:
        uvicorn.run("quintet.server.app:app_from_env", factory=True, workers=workers, **options)
    finally:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)


__all__ = ["CSP", "app_from_env", "create_app", "run"]
