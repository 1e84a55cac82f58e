"""The ASGI application: pages, the HTTP API and the websocket.

``create_app(settings)`` returns a FastAPI app; ``quintet serve`` runs it with uvicorn.
Nothing the HTTP API returns holds a card of a table still in play: records, replays
and analyses are only given for finished tables.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from quintet.record import dumps as record_dumps
from quintet.server import db, replay
from quintet.server.db import Store
from quintet.server.live import Conn, Hub, Settings
from quintet.server.protocol import (
    MAX_MESSAGE,
    PROTOCOL_VERSION,
    ProtocolError,
    error,
)

log = logging.getLogger("quintet.server")

STATIC = Path(str(resources.files("quintet.server") / "static"))


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def create_app(settings: Settings | None = None) -> FastAPI:
    """Return the server's ASGI app (storage opened and tables resumed at start-up)."""
    settings = settings or Settings()
    if not settings.db_url:
        settings.db_url = db.default_db_url()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(settings.db_url)
        hub = Hub(settings, store)
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
        docs_url="/api/docs",
        openapi_url="/api/openapi.json",
    )

    def hub_of(request: Request | WebSocket) -> Hub:
        hub: Hub = request.app.state.hub
        return hub

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

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # -------------------------------------------------------------------- API

    @app.get("/api/info")
    async def info() -> dict[str, Any]:
        """The server's protocol version, games, variants, options and bot levels."""
        from quintet.bots import levels

        return {
            "protocol": PROTOCOL_VERSION,
            "max_message": MAX_MESSAGE,
            "games": {
                "quinto": {
                    "variants": ["partnership", "dummy"],
                    "seats": 4,
                    "options": {
                        "target": 250,
                        "rubber_bonus": 100,
                        "dummy_handicap": 25,
                        "joker_eleventh_trick": False,
                        "dummy_double_view": "own",
                    },
                },
                "quintus": {
                    "variants": ["base", "bidding"],
                    "seats": 5,
                    "options": {"hands": 5},
                },
            },
            "levels": levels(),
            "bot_delay": settings.bot_delay,
        }

    @app.get("/api/tables")
    async def lobby(request: Request) -> dict[str, Any]:
        """The lobby: public tables not finished, newest first."""
        return {"tables": hub_of(request).lobby()}

    @app.post("/api/tables", status_code=201)
    async def create(request: Request) -> Response:
        """Create a table; returns its id, its links and each seat's invite."""
        try:
            body = await request.json()
        except ValueError:
            return _error(400, "bad_json", "the body is not JSON")
        if not isinstance(body, dict):
            return _error(400, "bad_message", "the body is a JSON object")
        try:
            out = await hub_of(request).create_table(body)
        except ProtocolError as e:
            return _error(400, e.code, e.message)
        return JSONResponse(out, status_code=201)

    @app.get("/api/tables/{table_id}")
    async def table_info(table_id: str, request: Request) -> Response:
        """A table's configuration, seats and status (no cards)."""
        t = await hub_of(request).get_table(table_id)
        if t is None:
            return _error(404, "no_table", "no table has this id")
        return JSONResponse(t.lobby_json() | {"seq": t.seq, "result": t.result})

    @app.get("/api/tables/{table_id}/invites")
    async def invites(table_id: str, request: Request) -> Response:
        """Each seat's invite link, for a player of the table (header X-Seat-Token)."""
        from quintet.server.live import hash_token

        t = await hub_of(request).get_table(table_id)
        if t is None:
            return _error(404, "no_table", "no table has this id")
        token = request.headers.get("x-seat-token", "")
        h = hash_token(token)
        if not token or not any(s.token_hash == h for s in t.seats):
            return _error(403, "bad_token", "no seat of this table has this token")
        return JSONResponse(
            {
                "seats": [
                    {
                        "seat": s.seat,
                        "kind": s.kind,
                        "url": f"/table/{t.id}?seat={s.seat}&invite={s.invite}",
                    }
                    for s in t.seats
                    if s.kind != "dummy"
                ],
                "spectate": f"/table/{t.id}",
            }
        )

    @app.get("/api/games")
    async def finished(request: Request, limit: int = 50, offset: int = 0) -> dict[str, Any]:
        """Finished games with their results, newest first."""
        limit = max(1, min(limit, 200))
        offset = max(0, offset)
        rows = await hub_of(request).store.read(lambda conn: db.list_finished(conn, limit, offset))
        return {
            "games": [
                {
                    "id": r.id,
                    "title": r.title,
                    "game": r.game,
                    "variant": r.variant,
                    "options": r.options,
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
            ]
        }

    async def finished_table(request: Request, table_id: str) -> Any:
        t = await hub_of(request).get_table(table_id)
        if t is None:
            return _error(404, "no_table", "no table has this id")
        if t.status != "finished":
            return _error(409, "not_finished", "the game is still being played")
        return t

    @app.get("/api/games/{table_id}/record")
    async def record(table_id: str, request: Request) -> Response:
        """The finished game's record (record-format.md), as a download."""
        t = await finished_table(request, table_id)
        if isinstance(t, Response):
            return t
        return Response(
            record_dumps(t.record()),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="quintet-{t.id}.json"'},
        )

    @app.get("/api/games/{table_id}/replay")
    async def replay_data(table_id: str, request: Request) -> Response:
        """Every step of a finished game with all hands shown (and the analysis if done)."""
        t = await finished_table(request, table_id)
        if isinstance(t, Response):
            return t
        hub = hub_of(request)
        rec = t.record()
        data = await asyncio.to_thread(replay.replay_steps, rec)
        analysis = await hub.store.read(lambda conn: db.load_analysis(conn, table_id))
        return JSONResponse(
            {"config": t.config_json(), "players": t.seats_json(), **data, "analysis": analysis}
        )

    running: dict[str, asyncio.Task[None]] = {}

    @app.post("/api/games/{table_id}/analysis")
    @app.get("/api/games/{table_id}/analysis")
    async def analysis(table_id: str, request: Request) -> Response:
        """The double-dummy analysis of each card (started on first request: 202 until done)."""
        t = await finished_table(request, table_id)
        if isinstance(t, Response):
            return t
        hub = hub_of(request)
        stored = await hub.store.read(lambda conn: db.load_analysis(conn, table_id))
        if stored is not None:
            return JSONResponse({"status": "done", "analysis": stored})
        if table_id not in running:
            rec = t.record()

            async def work() -> None:
                try:
                    data = await replay.analyze(rec)
                    await hub.store.write(lambda conn: db.store_analysis(conn, table_id, data))
                except Exception:
                    log.exception("analysis of %s failed", table_id)
                finally:
                    running.pop(table_id, None)

            running[table_id] = asyncio.create_task(work())
        return JSONResponse({"status": "running"}, status_code=202)

    # -------------------------------------------------------------- websocket

    @app.websocket("/ws")
    async def websocket(ws: WebSocket) -> None:
        await ws.accept()
        hub = hub_of(ws)

        async def close(code: int, reason: str) -> None:
            await ws.close(code, reason)

        conn = Conn(ws.send_text, close, settings)
        sender = asyncio.create_task(conn.sender())
        try:
            while True:
                m = await ws.receive()
                if m["type"] == "websocket.disconnect":
                    break
                text = m.get("text")
                if text is None:
                    conn.send(error("bad_message", "send text frames holding JSON"))
                    continue
                await hub.handle(conn, text)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            hub.disconnect(conn)
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

    return app


def run(
    settings: Settings,
    host: str = "127.0.0.1",
    port: int = 8000,
    access_log: bool = True,
    log_level: str = "info",
) -> None:
    """Run the server with uvicorn until it is stopped."""
    import sys

    import uvicorn

    from quintet.server.protocol import MAX_FRAME

    # The storage writer and bot threads hand results back to the event loop: a short
    # switch interval keeps that hand-over from waiting 5 ms for the GIL.
    sys.setswitchinterval(0.0005)

    logging.basicConfig(level=log_level.upper(), format="%(levelname)-9s%(name)s: %(message)s")
    app = create_app(settings)
    uvicorn.run(
        app,
        host=host,
        port=port,
        ws_max_size=MAX_FRAME,
        access_log=access_log,
        log_level=log_level,
        timeout_graceful_shutdown=2,
        # Messages are small: compressing each costs more CPU than it saves on a LAN.
        ws_per_message_deflate=False,
    )
