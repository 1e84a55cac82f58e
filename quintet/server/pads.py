"""Score pads on the web: the ``/pad`` page and the ``/api/pads`` HTTP API (docs/pad.md).

A pad is a ``quintet.pad`` document stored in ``quintet_pads``. The server computes
nothing of its own: every change loads the document with :func:`quintet.pad.pad_from_json`,
applies it with the model (``add``, ``replace``, ``delete``, ``undo``), and stores the
result; a change the model refuses is answered 422 with the model's words and changes
nothing. Every answer carries ``pad.view()``, which the page draws.

Who may do what: the person who created a pad (the browser's person cookie) and holders
of its edit link (``?token=``) change it; holders of its read-only link (``?key=``)
read it; to anyone else it does not exist (404). The page polls
``/api/pads/{id}/version`` every ``pad_poll_seconds`` and reloads the pad when it
changed. Sizes, counts and rates are the operator's (:class:`Settings`), never the
request's.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
import secrets
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from quintet.cards import cards_str
from quintet.games import find_game
from quintet.pad import Pad, PadError, new_pad, pad_from_json
from quintet.pad.sheets import export
from quintet.server import db
from quintet.server.security import Buckets, person_of_scope, same_code
from quintet.server.settings import Settings

_CODE = re.compile(r"[A-Za-z0-9_-]{1,64}")
_MEDIA = {"json": "application/json", "csv": "text/csv", "text": "text/plain"}
_SUFFIX = {"json": "json", "csv": "csv", "text": "txt"}
Role = Literal["owner", "editor", "reader"]

OptionValue = (
    Annotated[int, Field(ge=0, le=1_000_000)] | bool | Annotated[str, Field(max_length=16)]
)


class CreatePad(BaseModel):
    """``POST /api/pads``: a new pad (the model checks game, variant, options and seats)."""

    model_config = ConfigDict(extra="forbid")
    game: Annotated[str, Field(max_length=16)]
    variant: Annotated[str, Field(max_length=16)] | None = None
    options: Annotated[
        dict[Annotated[str, Field(max_length=32)], OptionValue], Field(max_length=8)
    ] = {}
    first_dealer: Annotated[int, Field(ge=0, le=9)] = 0
    lone_seat: Annotated[int, Field(ge=0, le=9)] | None = None
    players: Annotated[list[Annotated[str, Field(max_length=40)]], Field(max_length=9)] | None = (
        None
    )
    title: Annotated[str, Field(max_length=80)] = ""


class EntryBody(BaseModel):
    """An entry to add or to put in place of entry ``index``; ``version`` the pad's as loaded."""

    model_config = ConfigDict(extra="forbid")
    entry: dict[str, Any]
    version: Annotated[int, Field(ge=0)] | None = None


class VersionBody(BaseModel):
    """A deletion or undo: ``version`` the pad's as loaded (a stale one is refused)."""

    model_config = ConfigDict(extra="forbid")
    version: Annotated[int, Field(ge=0)] | None = None


class PadRefused(Exception):
    """A request the pad API answers with an error (status, code, message, field)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        field: str | None = None,
        entry: int | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.field, self.entry = field, entry

    def response(self) -> JSONResponse:
        """Return the error as the API's JSON answer."""
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.field is not None:
            body["field"] = self.field
        if self.entry is not None:
            body["entry"] = self.entry
        headers = {"retry-after": "5"} if self.status == 429 else None
        return JSONResponse({"error": body}, status_code=self.status, headers=headers)


def _code(value: str | None) -> str | None:
    return value if value is not None and _CODE.fullmatch(value) else None


def _refusal(e: PadError, field: str = "entry") -> PadRefused:
    code = e.kind.replace(" ", "_")
    where = field if e.entry is None else f"{field} {e.entry}"
    return PadRefused(422, code, e.detail, where, e.entry)


def seat_labels(pad: Pad[Any]) -> list[str]:
    """Return each seat's player name, or its seat name."""
    return [pad.seat_label(s) for s in range(pad.SEATS)]


@functools.lru_cache(maxsize=256)
def _blank_offers(key: str) -> dict[str, Any]:
    doc = json.loads(key)
    offers: dict[str, Any] = pad_from_json(doc).view()["offers"]
    return offers


def blank_offers(pad: Pad[Any]) -> dict[str, Any]:
    """Return what a fresh hand of this pad's kind offers (every choice; corrections use it)."""
    doc = pad.to_json() | {"entries": []}
    return _blank_offers(json.dumps(doc, sort_keys=True))


def router(settings: Settings, static: Any) -> APIRouter:
    """Return the pad page and API routes, bounded by ``settings``."""
    r = APIRouter()
    lock = asyncio.Lock()  # one change at a time: load, apply, store
    change_buckets = Buckets(settings.pad_rate, settings.pad_burst)
    create_buckets = Buckets(settings.pad_create_rate / 60.0, settings.pad_create_burst)

    def store(request: Request) -> db.Store:
        s: db.Store = request.app.state.hub.store
        return s

    def person(request: Request) -> str:
        p = person_of_scope(request.scope)
        if p is None:  # the Guard gives every HTTP request a person
            raise PadRefused(400, "no_person", "the request has no person cookie")
        return p

    def role_of(request: Request, owner: str, view_key: str, edit_key: str) -> Role | None:
        q = request.query_params
        if person_of_scope(request.scope) == owner:
            return "owner"
        if same_code(_code(q.get("token")), edit_key):
            return "editor"
        if same_code(_code(q.get("key")), view_key):
            return "reader"
        return None

    def throttle(buckets: Buckets, request: Request, what: str) -> None:
        keys = [f"p:{person(request)}"]
        if request.client is not None:
            keys.append(f"a:{request.client.host}")
        for key in keys:
            wait = buckets.take(key)
            if wait > 0:
                raise PadRefused(429, "too_fast", f"too many {what}: wait {wait:.0f} s")

    async def load(request: Request, pad_id: str) -> tuple[db.PadRow, Role]:
        row = await store(request).read(lambda conn: db.load_pad(conn, pad_id))
        role = None if row is None else role_of(request, row.owner, row.view_key, row.edit_key)
        if row is None or role is None:
            raise PadRefused(404, "no_pad", "no score pad has this id")
        return row, role

    def state(row: db.PadRow, role: Role, pad: Pad[Any]) -> dict[str, Any]:
        links = None
        if role != "reader":
            links = {"view": f"/pad/{row.id}?key={row.view_key}"}
            if role == "owner":
                links["edit"] = f"/pad/{row.id}?token={row.edit_key}"
        return {
            "id": row.id,
            "title": row.title,
            "version": row.version,
            "role": role,
            "can_edit": role != "reader",
            "pad": pad.to_json(),
            "view": pad.view(),
            "seats": seat_labels(pad),
            "blank_offers": blank_offers(pad),
            "pack": cards_str(find_game(pad.game).pack).split(),
            "links": links,
            "poll_seconds": settings.pad_poll_seconds,
            "updated_at": row.updated_at.isoformat(),
        }

    def checked_doc(pad: Pad[Any]) -> dict[str, Any]:
        doc = pad.to_json()
        n = len(doc["entries"])
        if n > settings.pad_max_entries:
            raise PadRefused(
                422,
                "too_many_entries",
                f"a pad on this server holds at most {settings.pad_max_entries} entries",
                "entry",
            )
        size = len(json.dumps(doc, ensure_ascii=False))
        if size > settings.pad_max_chars:
            raise PadRefused(
                413,
                "pad_too_large",
                f"the pad would be {size} characters, over this server's {settings.pad_max_chars}",
                "entry",
            )
        return doc

    async def change(request: Request, pad_id: str, version: int | None, op: Any) -> dict[str, Any]:
        throttle(change_buckets, request, "changes")
        async with lock:
            row, role = await load(request, pad_id)
            if role == "reader":
                raise PadRefused(403, "read_only", "this link shows the pad: it cannot change it")
            if version is not None and version != row.version:
                raise PadRefused(
                    409,
                    "stale",
                    f"the pad was changed since you loaded it (version {version}, now "
                    f"{row.version}): look again and re-enter",
                    "version",
                )
            try:
                pad = pad_from_json(row.doc)
            except PadError as e:  # pragma: no cover - a stored pad was checked
                raise PadRefused(
                    500, "bad_pad", f"the stored pad does not load: {e.detail}"
                ) from None
            try:
                op(pad)
            except PadError as e:
                raise _refusal(e) from None
            except IndexError as e:
                raise PadRefused(404, "no_entry", str(e), "index") from None
            doc = checked_doc(pad)
            new = row.version + 1
            ok = await store(request).write(
                lambda conn: db.update_pad(conn, pad_id, doc, len(doc["entries"]), new)
            )
            if not ok:  # pragma: no cover - changes are serialised by the lock
                raise PadRefused(409, "stale", "the pad was changed meanwhile: look again")
            row.doc, row.version, row.entries = doc, new, len(doc["entries"])
            row.updated_at = db.now()
            return state(row, role, pad)

    async def answer(work: Any) -> Response:
        try:
            return JSONResponse(await work)
        except PadRefused as e:
            return e.response()

    # ------------------------------------------------------------------ pages

    @r.get("/pad", include_in_schema=False)
    async def pad_home() -> FileResponse:
        return FileResponse(static / "pad.html")

    @r.get("/pad/{pad_id}", include_in_schema=False)
    async def pad_page(pad_id: str) -> FileResponse:
        return FileResponse(static / "pad.html")

    # -------------------------------------------------------------------- API

    @r.post("/api/pads", status_code=201)
    async def create_pad(body: CreatePad, request: Request) -> Response:
        """Create a score pad (yours: your browser's cookie); returns it and its links."""

        async def work() -> dict[str, Any]:
            me = person(request)
            for name, value in body.options.items():
                limit = settings.option_limits.get(name)
                if limit is not None and isinstance(value, int) and value > limit:
                    raise PadRefused(
                        422,
                        "invalid",
                        f"option {name} is at most {limit} on this server, not {value}",
                        f"options.{name}",
                    )
            try:
                pad = new_pad(
                    body.game,
                    body.variant,
                    body.options,
                    first_dealer=body.first_dealer,
                    lone_seat=body.lone_seat,
                    players=body.players,
                )
            except PadError as e:
                raise _refusal(e, "pad") from None
            doc = checked_doc(pad)
            throttle(create_buckets, request, "new pads")
            t = db.now()
            row = db.PadRow(
                id=secrets.token_urlsafe(9),
                owner=me,
                game=pad.game,
                variant=pad.variant,
                title=body.title.strip(),
                view_key=secrets.token_urlsafe(16),
                edit_key=secrets.token_urlsafe(16),
                doc=doc,
                entries=0,
                version=0,
                created_at=t,
                updated_at=t,
            )

            def insert(conn: Any) -> bool:
                if db.count_pads(conn, me) >= settings.pads_per_person:
                    return False
                db.insert_pad(conn, row)
                return True

            async with lock:
                if not await store(request).write(insert):
                    raise PadRefused(
                        429,
                        "too_many_pads",
                        f"you keep {settings.pads_per_person} pads, this server's limit",
                    )
            return state(row, "owner", pad)

        try:
            return JSONResponse(await work(), status_code=201)
        except PadRefused as e:
            return e.response()

    @r.get("/api/pads")
    async def my_pads(request: Request) -> Response:
        """Your score pads (this browser's), the last changed first."""
        me = person(request)
        rows = await store(request).read(
            lambda conn: db.list_pads(conn, me, settings.pads_per_person)
        )
        return JSONResponse(
            {
                "pads": [
                    {
                        "id": p.id,
                        "title": p.title,
                        "game": p.game,
                        "variant": p.variant,
                        "entries": p.entries,
                        "players": p.doc.get("players"),
                        "updated_at": p.updated_at.isoformat(),
                        "url": f"/pad/{p.id}",
                    }
                    for p in rows
                ],
                "limit": settings.pads_per_person,
            }
        )

    @r.get("/api/pads/{pad_id}")
    async def read_pad(pad_id: str, request: Request) -> Response:
        """A pad: its document, the model's view (figures, offers, status) and your role."""

        async def work() -> dict[str, Any]:
            row, role = await load(request, pad_id)
            return state(row, role, pad_from_json(row.doc))

        return await answer(work())

    @r.get("/api/pads/{pad_id}/version")
    async def pad_version(pad_id: str, request: Request) -> Response:
        """The pad's version: the page polls it and reloads the pad when it changed."""
        meta = await store(request).read(lambda conn: db.pad_version(conn, pad_id))
        if meta is None or role_of(request, *meta[:3]) is None:
            return PadRefused(404, "no_pad", "no score pad has this id").response()
        return JSONResponse({"version": meta[3]}, headers={"Cache-Control": "no-store"})

    @r.post("/api/pads/{pad_id}/entries")
    async def add_entry(pad_id: str, body: EntryBody, request: Request) -> Response:
        """Add an entry at the end (checked by the model: 422 with its reason)."""
        return await answer(change(request, pad_id, body.version, lambda p: p.add(body.entry)))

    @r.put("/api/pads/{pad_id}/entries/{index}")
    async def replace_entry(pad_id: str, index: int, body: EntryBody, request: Request) -> Response:
        """Correct entry ``index`` (0-based); everything after it is recomputed."""
        return await answer(
            change(request, pad_id, body.version, lambda p: p.replace(index, body.entry))
        )

    @r.delete("/api/pads/{pad_id}/entries/{index}")
    async def delete_entry(
        pad_id: str, index: int, request: Request, body: VersionBody | None = None
    ) -> Response:
        """Delete entry ``index``; everything after it is recomputed."""
        version = None if body is None else body.version
        return await answer(change(request, pad_id, version, lambda p: p.delete(index)))

    @r.post("/api/pads/{pad_id}/undo")
    async def undo(pad_id: str, request: Request, body: VersionBody | None = None) -> Response:
        """Delete the last entry."""
        version = None if body is None else body.version
        return await answer(change(request, pad_id, version, lambda p: p.undo()))

    @r.get("/api/pads/{pad_id}/export")
    async def export_pad(
        pad_id: str,
        request: Request,
        format: Annotated[Literal["json", "csv", "text"], Query()] = "json",
    ) -> Response:
        """The pad as a download: ``json`` (document, figures, scores), ``csv`` or ``text``."""
        try:
            row, _ = await load(request, pad_id)
        except PadRefused as e:
            return e.response()
        text = export(pad_from_json(row.doc), format)
        name = f"quintet-pad-{row.id}.{_SUFFIX[format]}"
        return Response(
            text,
            media_type=_MEDIA[format],
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    return r


__all__ = ["CreatePad", "EntryBody", "PadRefused", "router", "seat_labels"]
