"""Players: profiles, histories and the leaderboard (pages and HTTP API).

* ``GET /api/players/{name}``: an account's profile: per game and variant its games,
  wins, hands and average points per hand with the game's own figures (Quinto: quints
  and doubling; Quintus: as quintus and as a team player), its rating (mu, sigma and the
  conservative ``mu - 3 sigma``), and the first page of its history.
* ``GET /api/players/{name}/games?offset=&limit=``: its finished games, newest first,
  each with its result, date, replay and record links. A private table is listed only
  to the account itself (the request's person is the account's).
* ``GET /api/leaderboard?game=&variant=&offset=&limit=``: the accounts with at least one
  rated game of that game and variant, by conservative rating, with the bots' fixed
  ratings beside them.
* ``/players/{name}`` and ``/leaderboard``: the pages (``players.html``,
  ``leaderboard.html``) that show them.

Page sizes are the operator's (``history_limit``, ``leaderboard_limit``; a client may ask
for fewer). An unknown (or disabled) account answers 404 ``no_player``. The results of
tables finished before migration 0005 are filled in from their stored actions when a
profile or history is first asked for (at most ``results_fill`` tables a request).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Final

import sqlalchemy as sa
from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from sqlalchemy.engine import Connection

from quintet.errors import InvalidOptionError, QuintetError
from quintet.games import find_game
from quintet.server import db, ratings, results, views
from quintet.server.accounts import Account, account_by_name
from quintet.server.security import person_of_scope
from quintet.server.settings import Settings

log = logging.getLogger("quintet.server")

JSON = dict[str, Any]
STATIC = Path(str(resources.files("quintet.server") / "static"))
#: The furthest page of a listing (a database offset must fit its integers).
MAX_OFFSET: Final = 1_000_000
#: Stats keys that describe a game rather than add up over games.
_NOT_SUMMED: Final = frozenset({"place", "side", "total", "lone"})


def _per(num: float, den: float) -> float | None:
    return None if not den else round(num / den, 2)


def _quinto_figures(s: dict[str, float], hands: float) -> list[tuple[str, str, Any]]:
    return [
        ("quints", "quints scored", s.get("quints", 0)),
        ("quint_points", "quint points", s.get("quint_points", 0)),
        ("quint_points_per_hand", "quint points per hand", _per(s.get("quint_points", 0), hands)),
        ("games_won", "games won (of rubbers)", s.get("games_won", 0)),
        ("doubles", "hands doubled", s.get("doubles", 0)),
        ("doubles_won", "won when doubling", s.get("doubles_won", 0)),
        ("doubles_lost", "lost when doubling", s.get("doubles_lost", 0)),
        ("redoubles", "hands redoubled", s.get("redoubles", 0)),
        ("redoubles_won", "won when redoubling", s.get("redoubles_won", 0)),
        ("redoubles_lost", "lost when redoubling", s.get("redoubles_lost", 0)),
        ("doubled_against", "doubled by the other side", s.get("doubled_against", 0)),
        ("doubled_against_won", "won when doubled", s.get("doubled_against_won", 0)),
        ("doubled_against_lost", "lost when doubled", s.get("doubled_against_lost", 0)),
    ]


def _quintus_figures(s: dict[str, float], hands: float) -> list[tuple[str, str, Any]]:
    qh, th = s.get("quintus_hands", 0), s.get("team_hands", 0)
    return [
        ("quintus_hands", "hands as quintus", qh),
        (
            "quintus_points_per_hand",
            "points per hand as quintus",
            _per(s.get("quintus_points", 0), qh),
        ),
        ("contracts_made", "contracts made", s.get("contracts_made", 0)),
        ("contracts_failed", "contracts failed", s.get("contracts_failed", 0)),
        ("nil_closed", "closed nils", s.get("nil_closed", 0)),
        ("nil_open", "open nils", s.get("nil_open", 0)),
        ("nil_made", "nils made", s.get("nil_made", 0)),
        ("nil_failed", "nils failed", s.get("nil_failed", 0)),
        ("team_hands", "hands as a team player", th),
        (
            "team_points_per_hand",
            "points per hand as a team player",
            _per(s.get("team_points", 0), th),
        ),
        ("contracts_beaten", "contracts beaten", s.get("contracts_beaten", 0)),
    ]


#: Each game's figures of a profile, from its results' summed stats.
_FIGURES: Final = {"quinto": _quinto_figures, "quintus": _quintus_figures}


def statistics(conn: Connection, person: str) -> list[JSON]:
    """Return a person's statistics per game and variant (from their result rows)."""
    r = db.results_t
    q = (
        sa.select(r.c.game, r.c.variant, r.c.won, r.c.hands, r.c.points, r.c.stats)
        .where(r.c.person == person)
        .order_by(r.c.game, r.c.variant)
    )
    groups: dict[tuple[str, str], JSON] = {}
    for row in conn.execute(q):
        g = groups.setdefault(
            (row.game, row.variant),
            {"games": 0, "wins": 0, "hands": 0, "points": 0.0, "sums": {}},
        )
        g["games"] += 1
        g["wins"] += 1 if row.won else 0
        g["hands"] += int(row.hands)
        g["points"] += float(row.points)
        for key, value in (row.stats or {}).items():
            if key not in _NOT_SUMMED and isinstance(value, int | float):
                g["sums"][key] = g["sums"].get(key, 0) + value
    out = []
    for (game, variant), g in groups.items():
        figures = _FIGURES.get(game)
        rows = figures(g["sums"], g["hands"]) if figures is not None else []
        out.append(
            {
                "game": game,
                "variant": variant,
                "games": g["games"],
                "wins": g["wins"],
                "hands": g["hands"],
                "points": g["points"],
                "points_per_hand": _per(g["points"], g["hands"]),
                "figures": [{"key": k, "label": label, "value": v} for k, label, v in rows],
            }
        )
    return out


def account_ratings(conn: Connection, account_id: str) -> list[JSON]:
    """Return an account's ratings, one per game and variant it has rated games of."""
    t = db.ratings_t
    q = sa.select(t).where(t.c.account_id == account_id).order_by(t.c.game, t.c.variant)
    return [
        {
            "game": x.game,
            "variant": x.variant,
            "games": int(x.games),
            **ratings.rating_json(float(x.mu), float(x.sigma)),
        }
        for x in conn.execute(q)
    ]


def history(
    conn: Connection, person: str, mine: bool, limit: int, offset: int
) -> tuple[list[JSON], int]:
    """Return a page of a person's finished games, newest first, and how many there are.

    Private tables only if ``mine`` (the person is asking).
    """
    r, t = db.results_t, db.tables_t
    where = [r.c.person == person]
    if not mine:
        where.append(t.c.public.is_(True))
    base = sa.select(r, t.c.title, t.c.public, t.c.rated).join(t, t.c.id == r.c.table_id)
    q = (
        base.where(*where)
        .order_by(r.c.finished_at.desc(), r.c.table_id)
        .limit(limit)
        .offset(offset)
    )
    rows = list(conn.execute(q))
    count = sa.select(sa.func.count()).select_from(r.join(t, t.c.id == r.c.table_id))
    total = int(conn.execute(count.where(*where)).scalar_one())
    ids = [x.table_id for x in rows]
    seats: dict[str, list[JSON]] = {i: [] for i in ids}
    if ids:
        s = db.seats_t
        sq = (
            sa.select(s.c.table_id, s.c.seat, s.c.kind, s.c.name, s.c.level)
            .where(s.c.table_id.in_(ids))
            .order_by(s.c.table_id, s.c.seat)
        )
        for x in conn.execute(sq):
            seats[x.table_id].append(
                {"seat": x.seat, "kind": x.kind, "name": x.name, "level": x.level}
            )
    out = []
    for x in rows:
        stats = dict(x.stats or {})
        out.append(
            {
                "id": x.table_id,
                "title": x.title or "",
                "game": x.game,
                "variant": x.variant,
                "finished_at": db._utc(x.finished_at).isoformat(),
                "seat": x.seat,
                "seat_label": views.seat_label(x.game, x.seat),
                "won": x.won,
                "place": stats.get("place"),
                "hands": int(x.hands),
                "points": float(x.points),
                "stats": stats,
                "rated": bool(x.rated),
                "rating": x.rating,
                "public": bool(x.public),
                "players": seats[x.table_id],
                "replay": f"/replay/{x.table_id}",
                "record": f"/api/games/{x.table_id}/record",
            }
        )
    return out, total


def leaderboard(
    conn: Connection, game: str, variant: str, limit: int, offset: int
) -> tuple[list[JSON], int]:
    """Return a page of the accounts rated in ``game``/``variant`` by conservative rating."""
    t, a = db.ratings_t, db.accounts_t
    where = (
        t.c.game == game,
        t.c.variant == variant,
        t.c.games >= 1,
        a.c.disabled.is_(False),
    )
    score = (t.c.mu - ratings.CONSERVATIVE_Z * t.c.sigma).label("score")
    q = (
        sa.select(a.c.name, t.c.mu, t.c.sigma, t.c.games, score)
        .join(a, a.c.id == t.c.account_id)
        .where(*where)
        .order_by(score.desc(), a.c.name_key)
        .limit(limit)
        .offset(offset)
    )
    rows = [
        {
            "rank": offset + i + 1,
            "name": x.name,
            "games": int(x.games),
            "url": f"/players/{x.name}",
            **ratings.rating_json(float(x.mu), float(x.sigma)),
        }
        for i, x in enumerate(conn.execute(q))
    ]
    count = sa.select(sa.func.count()).select_from(t.join(a, a.c.id == t.c.account_id))
    return rows, int(conn.execute(count.where(*where)).scalar_one())


def _error(status: int, code: str, message: str, field: str | None = None) -> JSONResponse:
    body: JSON = {"code": code, "message": message}
    if field is not None:
        body["field"] = field
    return JSONResponse({"error": body}, status_code=status)


def _no_player() -> JSONResponse:
    return _error(404, "no_player", "no player has this name")


def router(settings: Settings) -> APIRouter:
    """Return the players' pages and API routes, bounded by ``settings``."""
    r = APIRouter()
    unreadable: set[str] = set()  # old tables whose stored actions do not replay

    def store(request: Request) -> db.Store:
        s: db.Store = request.app.state.hub.store
        return s

    async def account(request: Request, name: str) -> Account | None:
        if not 1 <= len(name) <= 40:
            return None
        return await store(request).read(lambda conn: account_by_name(conn, name))

    async def fill(request: Request, person: str) -> None:
        """Fill in the results of the old finished tables ``person`` held a seat of."""
        st = store(request)
        limit = settings.results_fill + len(unreadable)
        ids = await st.read(lambda conn: results.missing_tables(conn, person, limit))
        for table_id in [i for i in ids if i not in unreadable][: settings.results_fill]:
            row = await st.read(functools.partial(db.load_table, table_id=table_id))
            if row is None:
                continue
            try:
                rows = await asyncio.to_thread(results.results_of_row, row)
            except (QuintetError, ValueError):
                log.exception("table %s does not replay: its results are left out", table_id)
                unreadable.add(table_id)
                continue
            await st.write(functools.partial(results.insert_missing, rows=rows))

    # ------------------------------------------------------------------ pages

    @r.get("/players/{name}", include_in_schema=False)
    async def player_page(name: str) -> FileResponse:
        return FileResponse(STATIC / "players.html")

    @r.get("/leaderboard", include_in_schema=False)
    async def leaderboard_page() -> FileResponse:
        return FileResponse(STATIC / "leaderboard.html")

    # -------------------------------------------------------------------- API

    @r.get("/api/players/{name}")
    async def profile(name: str, request: Request) -> Response:
        """A player's profile: statistics and rating per game and variant, recent games."""
        acc = await account(request, name)
        if acc is None:
            return _no_player()
        await fill(request, acc.person)
        mine = person_of_scope(request.scope) == acc.person
        limit = settings.history_limit

        def read(conn: Connection) -> JSON:
            games, total = history(conn, acc.person, mine, limit, 0)
            return {
                "player": {"name": acc.name},
                "me": mine,
                "statistics": statistics(conn, acc.person),
                "ratings": account_ratings(conn, acc.id),
                "games": games,
                "total": total,
                "limit": limit,
            }

        return JSONResponse(await store(request).read(read))

    @r.get("/api/players/{name}/games")
    async def player_games(
        name: str,
        request: Request,
        limit: Annotated[int, Query(ge=1, le=1000)] = settings.history_limit,
        offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    ) -> Response:
        """A page of a player's finished games, newest first (private ones: to them only)."""
        acc = await account(request, name)
        if acc is None:
            return _no_player()
        await fill(request, acc.person)
        mine = person_of_scope(request.scope) == acc.person
        n = min(limit, settings.history_limit)
        games, total = await store(request).read(
            lambda conn: history(conn, acc.person, mine, n, offset)
        )
        return JSONResponse({"games": games, "total": total, "offset": offset, "limit": n})

    @r.get("/api/leaderboard")
    async def ranking(
        request: Request,
        game: Annotated[str, Query(max_length=16)] = "quinto",
        variant: Annotated[str | None, Query(max_length=16)] = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = settings.leaderboard_limit,
        offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    ) -> Response:
        """The accounts rated in a game and variant, by conservative rating (mu - 3 sigma)."""
        try:
            info = find_game(game)
        except InvalidOptionError as e:
            return _error(422, "invalid", str(e), "game")
        try:
            v = info.variant(variant).name
        except InvalidOptionError as e:
            return _error(422, "invalid", str(e), "variant")
        n = min(limit, settings.leaderboard_limit)
        rows, total = await store(request).read(
            lambda conn: leaderboard(conn, info.name, v, n, offset)
        )
        bots = [
            {"level": level, **ratings.rating_json(mu, sigma)}
            for level, (mu, sigma) in ratings.BOT_RATINGS.get(info.name, {}).items()
        ]
        return JSONResponse(
            {
                "game": info.name,
                "variant": v,
                "players": rows,
                "total": total,
                "offset": offset,
                "limit": n,
                "bots": bots,
            }
        )

    return r


__all__ = ["account_ratings", "history", "leaderboard", "router", "statistics"]
