"""Profiles, histories and the leaderboard over HTTP (docs/server.md, "Ratings and history").

The games are played by a hub on the test's database (SQLite and PostgreSQL), which is
then served by the app and asked over HTTP. Accounts are rows put straight into
``quintet_accounts``; a request is an account's when its person cookie is the one the
account acts as.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from test_ratings import add_account, conn_of, create, db_url, hello, play_out, settings

from quintet.server import accounts, create_app, db, ratings
from quintet.server.db import Store
from quintet.server.live import Hub
from quintet.server.security import new_cookie, person_id

JSON = dict[str, Any]
STATIC = Path(__file__).resolve().parent.parent / "quintet" / "server" / "static"


def client_of(
    url: str, cookie: str | None = None, session: str | None = None, **more: Any
) -> TestClient:
    """A browser of the guest ``cookie``, signed in with the ``session`` token if given."""
    jar = [f"quintet_person={cookie}"] if cookie else []
    if session:
        jar.append(f"quintet_session={session}")
    headers = {"cookie": "; ".join(jar)} if jar else {}
    return TestClient(create_app(settings(url, **more)), headers=headers)


class Played:
    """Ann's games: a rated Quinto game and a private Quintus game, and Bob's name."""

    def __init__(self, url: str) -> None:
        self.cookie = new_cookie()
        self.ann = person_id(self.cookie)
        self.guest = secrets.token_hex(32)
        self.tables: list[str] = []
        asyncio.run(self._play(url))

    async def _play(self, url: str) -> None:
        hub = Hub(settings(url), Store(url))
        await hub.start()
        self.ann_id, _ = await add_account(hub, "Ann", self.ann)
        # Ann is signed in (a guest cookie of an account's person is retired by the Guard).
        self.session = secrets.token_urlsafe(32)
        sid, aid, now = accounts.session_id(self.session), self.ann_id, db.now()
        await hub.store.write(lambda c: accounts._new_session(c, sid, aid, now, hub.settings))
        await add_account(hub, "Bob")
        bodies: list[JSON] = [
            {
                "game": "quinto",
                "seats": ["open", "random", "heuristic", "random"],
                "options": {"target": 40},
                "seed": 31,
                "rated": True,
            },
            {
                "game": "quintus",
                "seats": ["open", "open", "random", "random", "random"],
                "options": {"hands": 2},
                "seed": 32,
                "public": False,
            },
        ]
        for body in bodies:
            made = await create(hub, body | {"join": {"seat": 0, "name": "Ann"}}, self.ann)
            t = hub.tables[made["id"]]
            a = conn_of(hub, self.ann)
            await hello(hub, a, t.id, made["token"])
            conns = [a]
            if t.seats[1].kind == "open":  # a guest plays seat 1 of the private table
                g = conn_of(hub, self.guest)
                invite = t.seats[1].invite
                await hub.handle(g, json.dumps({"type": "hello", "table": t.id, "invite": invite}))
                join = {"type": "join", "seat": 1, "name": "Guest", "invite": invite}
                await hub.handle(g, json.dumps(join))
                assert t.seats[1].person == self.guest
                conns.append(g)
            await play_out(hub, t, conns)
            self.tables.append(t.id)
        await hub.stop()


def results_rows(url: str) -> list[Any]:
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        rows = list(
            conn.execute(
                sa.select(db.results_t).order_by(db.results_t.c.table_id, db.results_t.c.person)
            )
        )
    engine.dispose()
    return rows


@pytest.fixture
def played(db_url: str) -> Played:
    return Played(db_url)


def test_a_profile_shows_each_games_statistics_rating_and_games(
    db_url: str, played: Played
) -> None:
    rows = results_rows(db_url)
    mine = [r for r in rows if r.person == played.ann]
    with client_of(db_url, played.cookie, played.session) as client:
        r = client.get("/api/players/aNN")  # names are case-insensitive
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["player"] == {"name": "Ann"} and body["me"] is True
        stats = {(s["game"], s["variant"]): s for s in body["statistics"]}
        assert set(stats) == {("quinto", "partnership"), ("quintus", "base")}
        for (game, variant), s in stats.items():
            rs = [x for x in mine if (x.game, x.variant) == (game, variant)]
            assert s["games"] == len(rs) == 1
            assert s["wins"] == sum(1 for x in rs if x.won)
            assert s["hands"] == sum(x.hands for x in rs)
            assert s["points_per_hand"] == round(sum(x.points for x in rs) / s["hands"], 2)
        quinto = {f["key"]: f for f in stats["quinto", "partnership"]["figures"]}
        q_row = next(x for x in mine if x.game == "quinto")
        assert quinto["quints"]["value"] == q_row.stats["quints"] >= 1
        assert quinto["quints"]["label"] == "quints scored" and "doubles_won" in quinto
        quintus = {f["key"]: f["value"] for f in stats["quintus", "base"]["figures"]}
        u_row = next(x for x in mine if x.game == "quintus")
        assert quintus["quintus_hands"] == u_row.stats["quintus_hands"]
        assert quintus["team_hands"] + quintus["quintus_hands"] == u_row.hands == 2
        # The rated game's rating: what the results row says it became.
        (rating,) = body["ratings"]
        after = q_row.rating["after"]
        assert (rating["game"], rating["variant"], rating["games"]) == ("quinto", "partnership", 1)
        assert rating["mu"] == pytest.approx(after["mu"])
        assert rating["conservative"] == pytest.approx(rating["mu"] - 3 * rating["sigma"])
        assert [g["id"] for g in body["games"]] == list(reversed(played.tables))
        assert body["total"] == 2
        game = body["games"][1]
        assert game["replay"] == f"/replay/{played.tables[0]}" and game["rated"] is True
        assert game["record"] == f"/api/games/{played.tables[0]}/record"
        assert game["seat"] == 0 and game["seat_label"] == "North"
        assert game["rating"]["after"]["mu"] == pytest.approx(after["mu"])
        assert client.get(game["record"]).status_code == 200
        # Bob has played nothing; nobody is called Zed.
        bob = client.get("/api/players/Bob").json()
        assert bob["statistics"] == [] and bob["ratings"] == [] and bob["games"] == []
        r = client.get("/api/players/Zed")
        assert r.status_code == 404 and r.json()["error"]["code"] == "no_player"


def test_a_private_table_is_listed_only_to_the_player_himself(db_url: str, played: Played) -> None:
    quinto, quintus = played.tables
    with client_of(db_url, played.cookie, played.session) as client:
        page = client.get("/api/players/Ann/games").json()
        assert [g["id"] for g in page["games"]] == [quintus, quinto] and page["total"] == 2
        assert page["games"][0]["public"] is False
        one = client.get("/api/players/Ann/games?limit=1&offset=1").json()
        assert [g["id"] for g in one["games"]] == [quinto] and one["limit"] == 1
        assert client.get(f"/api/games/{quintus}/record").status_code == 200
    with client_of(db_url, new_cookie()) as other:
        page = other.get("/api/players/Ann/games").json()
        assert [g["id"] for g in page["games"]] == [quinto] and page["total"] == 1
        profile = other.get("/api/players/Ann").json()
        assert profile["me"] is False and [g["id"] for g in profile["games"]] == [quinto]
        assert other.get(f"/api/games/{quintus}/record").status_code == 404
        # Statistics count every game, private ones too: they say nothing of the table.
        assert {s["game"] for s in profile["statistics"]} == {"quinto", "quintus"}


def test_the_results_of_a_table_finished_before_0005_are_filled_in_when_first_asked(
    db_url: str, played: Played
) -> None:
    before = results_rows(db_url)
    assert {r.person for r in before} == {played.ann, played.guest}
    engine = sa.create_engine(db_url)
    with engine.begin() as conn:  # as a table finished before results were kept
        conn.execute(db.results_t.delete())
        conn.execute(db.ratings_t.delete())
    engine.dispose()
    with client_of(db_url, new_cookie()) as client:
        assert client.get("/api/players/Ann").json()["total"] == 1  # the public one
    after = results_rows(db_url)

    def strip(r: Any) -> tuple[Any, ...]:
        return (r.table_id, r.person, r.seat, r.game, r.variant, r.won, r.hands, r.points, r.stats)

    # Every holder's row again (the guest's too), as at the finish, but unrated.
    assert [strip(r) for r in after] == [strip(r) for r in before]
    assert all(r.rating is None for r in after)
    assert [db._utc(r.finished_at) for r in after] == [db._utc(r.finished_at) for r in before]
    with client_of(
        db_url, played.cookie, played.session
    ) as client:  # asked again: nothing more to fill
        assert client.get("/api/players/Ann").json()["total"] == 2
    assert len(results_rows(db_url)) == len(before)


def test_the_leaderboard_ranks_by_conservative_rating_and_pages(db_url: str) -> None:
    async def fill() -> None:
        hub = Hub(settings(db_url), Store(db_url))
        await hub.start()
        people = {  # name: (mu, sigma, games)
            "Ann": (30.0, 2.0, 5),  # 24
            "bea": (26.0, 1.0, 9),  # 23
            "Cy": (35.0, 4.0, 2),  # 23 (after bea: by name)
            "Dot": (40.0, 8.0, 1),  # 16
            "Eve": (50.0, 1.0, 0),  # no rated game: not listed
            "Fay": (45.0, 1.0, 3),  # disabled: not listed
        }
        for name, (mu, sigma, games) in people.items():
            account_id, _ = await add_account(hub, name)

            def job(
                conn: Any,
                account_id: str = account_id,
                v: Any = (mu, sigma, games),
                name: str = name,
            ) -> None:
                conn.execute(
                    db.ratings_t.insert().values(
                        account_id=account_id,
                        game="quinto",
                        variant="partnership",
                        mu=v[0],
                        sigma=v[1],
                        games=v[2],
                        updated_at=db.now(),
                    )
                )
                if name == "Fay":
                    conn.execute(
                        db.accounts_t.update()
                        .where(db.accounts_t.c.id == account_id)
                        .values(disabled=True)
                    )

            await hub.store.write(job)
        await hub.stop()

    asyncio.run(fill())
    with client_of(db_url, leaderboard_limit=3) as client:
        board = client.get("/api/leaderboard?game=quinto&variant=partnership").json()
        names = [p["name"] for p in board["players"]]
        assert names == ["Ann", "bea", "Cy"] and board["total"] == 4 and board["limit"] == 3
        assert [p["rank"] for p in board["players"]] == [1, 2, 3]
        assert board["players"][0]["conservative"] == pytest.approx(24.0)
        assert board["players"][0]["url"] == "/players/Ann"
        more = client.get("/api/leaderboard?game=quinto&offset=3&limit=50").json()
        assert [(p["rank"], p["name"]) for p in more["players"]] == [(4, "Dot")]
        assert more["variant"] == "partnership"  # the game's first variant by default
        levels = [b["level"] for b in board["bots"]]
        assert levels == list(ratings.BOT_RATINGS["quinto"])
        assert client.get("/api/leaderboard?game=quinto&variant=dummy").json()["players"] == []
        for query, field in (("game=chess", "game"), ("game=quintus&variant=solo", "variant")):
            r = client.get(f"/api/leaderboard?{query}")
            assert r.status_code == 422 and r.json()["error"]["field"] == field, r.text


def test_the_players_and_leaderboard_pages_are_served_without_inline_scripts(
    tmp_path: Path,
) -> None:
    with client_of(f"sqlite:///{tmp_path / 'p.db'}") as client:
        for path, script in (("/players/Ann", "players.js"), ("/leaderboard", "leaderboard.js")):
            r = client.get(path)
            assert r.status_code == 200 and "text/html" in r.headers["content-type"]
            tags = re.findall(r"<script\b[^>]*>", r.text)
            assert tags == [f'<script type="module" src="/static/{script}">'], tags
            assert "/static/style.css" in r.text
            assert client.get(f"/static/{script}").status_code == 200
    lobby = (STATIC / "index.html").read_text()
    assert '<a class="leaderboard-link" href="/leaderboard">Leaderboard</a>' in lobby
    for name in ("players.js", "leaderboard.js"):  # text is set as text, never as HTML
        code = (STATIC / name).read_text()
        assert "innerHTML" not in code and "insertAdjacentHTML" not in code, name


__all__ = ["db_url"]
