"""Rated tables, ratings and results (docs/server.md, "Ratings and history").

Games are played to their end by fast bots (``random``, ``heuristic``) and by people
whose connections take the first legal action (or double when they may), at small
targets, so each finishes in a fraction of a second. Every expected rating is what
openskill's ``rate`` gives for the same teams and ranks, the ranks read from the
table's stored result (the scorer's summary), not from the code under test. Accounts
are rows put straight into ``quintet_accounts``. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from test_server_storage import _postgres

from quintet.actions import DOUBLE, action_to_json
from quintet.server import db, ratings
from quintet.server.conn import Conn
from quintet.server.db import Store
from quintet.server.live import FieldError, Hub, LiveTable
from quintet.server.messages import CreateTable
from quintet.server.settings import Settings

JSON = dict[str, Any]
M = ratings.MODEL
DOCS = Path(__file__).resolve().parent.parent / "docs" / "server.md"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.db'}"
    else:
        yield from _postgres()


# ------------------------------------------------------------------ helpers


def settings(url: str, **more: Any) -> Settings:
    """Fast bots, and connections that may send and queue as much as a test needs."""
    base: JSON = {
        "db_url": url,
        "bot_delay": 0.0,
        "allow_seed": True,
        "search_workers": 1,
        "rate": 1e6,
        "burst": 1e6,
        "outbox_limit": 10**7,
        "outbox_bytes": 1 << 40,
    }
    return Settings(**(base | more))


async def _noop_send(text: str) -> None:
    return None


async def _noop_close(code: int, reason: str) -> None:
    return None


def conn_of(hub: Hub, person: str | None = None) -> Conn:
    return Conn(_noop_send, _noop_close, hub.settings, person or secrets.token_hex(32))


def sent(conn: Conn) -> list[JSON]:
    return [json.loads(m) for m in conn.outbox if isinstance(m, str)]


def errors(conn: Conn) -> list[str]:
    return [m["code"] for m in sent(conn) if m["type"] == "error"]


async def add_account(hub: Hub, name: str, person: str | None = None) -> tuple[str, str]:
    """Put an account row in (any password hash); return its id and person."""
    account_id = secrets.token_hex(8)
    person = person or secrets.token_hex(32)

    def job(conn: Any) -> None:
        conn.execute(
            db.accounts_t.insert().values(
                id=account_id,
                name=name,
                name_key=name.casefold(),
                password_hash="argon2-not-checked-here",
                person=person,
                disabled=False,
                created_at=db.now(),
            )
        )

    await hub.store.write(job)
    return account_id, person


async def create(hub: Hub, body: JSON, person: str) -> JSON:
    return await hub.create_table(CreateTable.model_validate(body), person)


async def hello(hub: Hub, c: Conn, table: str, token: str | None = None) -> None:
    msg: JSON = {"type": "hello", "table": table}
    if token is not None:
        msg["token"] = token
    await hub.handle(c, json.dumps(msg))


async def join(hub: Hub, c: Conn, table: str, seat: int, name: str = "Someone") -> None:
    await hello(hub, c, table)
    await hub.handle(c, json.dumps({"type": "join", "seat": seat, "name": name}))


Chooser = Callable[[Any, int, tuple[int, ...]], int]


def first(state: Any, seat: int, legal: tuple[int, ...]) -> int:
    return legal[0]


def doubler(state: Any, seat: int, legal: tuple[int, ...]) -> int:
    """Double when the rules allow it, else the first legal action."""
    return DOUBLE if DOUBLE in legal else legal[0]


async def play_out(
    hub: Hub, t: LiveTable, conns: list[Conn], choose: Chooser = first, timeout: float = 60.0
) -> None:
    """Play the people's seats until the match is over (the bots play theirs)."""
    end = time.monotonic() + timeout
    nexted: set[tuple[int, int]] = set()
    while not t.closed:
        assert time.monotonic() < end, "the game did not finish"
        st = t.table.state
        if st is None or t.question is not None:
            await asyncio.sleep(0.002)
            continue
        if st.is_terminal():
            hand = len(t.table.match.hands)
            for c in conns:
                if c.seat is not None and (hand, c.seat) not in nexted:
                    nexted.add((hand, c.seat))
                    await hub.handle(c, json.dumps({"type": "next"}))
            await asyncio.sleep(0.002)
            continue
        turn = st.current_player()
        mine = [c for c in conns if c.seat is not None and turn in t.controls(c.seat)]
        if not mine:
            await asyncio.sleep(0.001)
            continue
        a = choose(st, turn, tuple(st.legal_actions(turn)))
        act = {"type": "act", "action": action_to_json(a, turn), "expect": t.seq}
        await hub.handle(mine[0], json.dumps(act))
        for c in conns:
            c.outbox.clear()
            c.queued_bytes = 0


async def rating_of(hub: Hub, account_id: str, game: str, variant: str) -> tuple[float, float]:
    def read(conn: Any) -> tuple[float, float]:
        t = db.ratings_t
        r = conn.execute(
            sa.select(t.c.mu, t.c.sigma).where(
                t.c.account_id == account_id, t.c.game == game, t.c.variant == variant
            )
        ).one()
        return float(r.mu), float(r.sigma)

    return await hub.store.read(read)


async def all_ratings(hub: Hub) -> list[Any]:
    return await hub.store.read(lambda conn: list(conn.execute(sa.select(db.ratings_t))))


async def results_of(hub: Hub, table_id: str) -> dict[str, Any]:
    def read(conn: Any) -> dict[str, Any]:
        q = sa.select(db.results_t).where(db.results_t.c.table_id == table_id)
        return {r.person: r for r in conn.execute(q)}

    return await hub.store.read(read)


def bot(game: str, level: str) -> Any:
    mu, sigma = ratings.BOT_RATINGS[game][level]
    return M.rating(mu=mu, sigma=sigma)


def quinto_ranks(result: JSON, lone_side: int | None = None) -> list[float]:
    """Ranks of (N-S, E-W) from the scorer's summary (the dummy game lists the lone side
    first; ``lone_side`` is then the lone player's side)."""
    if lone_side is None:
        w = result["rubber"]["winner"]
    else:
        w = result["games"][0]["winner"]
        w = lone_side if w == 0 else 1 - lone_side
    return [1.0, 2.0] if w == 0 else [2.0, 1.0]


def close(got: tuple[float, float], want: Any) -> None:
    assert got == pytest.approx((want.mu, want.sigma), rel=1e-12, abs=1e-12)


# ------------------------------------------------------------------- ratings


def test_a_rated_quinto_game_changes_both_sides_ratings_as_openskill_rates_them(
    db_url: str,
) -> None:
    async def main() -> None:
        hub = Hub(settings(db_url), Store(db_url))
        await hub.start()
        ann_id, ann = await add_account(hub, "Ann")
        bob_id, bob = await add_account(hub, "Bob")
        made = await create(
            hub,
            {
                "game": "quinto",
                "seats": ["open", "open", "heuristic", "random"],
                "join": {"seat": 0, "name": "whatever"},
                "options": {"target": 40},
                "seed": 5,
                "rated": True,
            },
            ann,
        )
        t = hub.tables[made["id"]]
        assert t.rated and t.config_json()["rated"] and t.lobby_json()["rated"]
        assert t.seats[0].name == "Ann"  # a rated seat shows the account's name
        a, b = conn_of(hub, ann), conn_of(hub, bob)
        await hello(hub, a, t.id, made["token"])
        await join(hub, b, t.id, 1, "not Bob")
        assert t.seats[1].name == "Bob" and errors(b) == []
        await play_out(hub, t, [a, b])
        assert t.status == "finished"
        # N-S (Ann and the heuristic) against E-W (Bob and random), ranked by the rubber.
        teams = [[M.rating(), bot("quinto", "heuristic")], [M.rating(), bot("quinto", "random")]]
        new = M.rate(teams, ranks=quinto_ranks(t.result))
        close(await rating_of(hub, ann_id, "quinto", "partnership"), new[0][0])
        close(await rating_of(hub, bob_id, "quinto", "partnership"), new[1][0])
        winner_side = t.result["rubber"]["winner"]
        ann_mu = (await rating_of(hub, ann_id, "quinto", "partnership"))[0]
        assert (ann_mu > M.mu) == (winner_side == 0)  # both sides moved, the winner's up
        rows = await results_of(hub, t.id)
        assert rows[ann].rating["before"] == ratings.rating_json(M.mu, M.sigma)
        assert rows[ann].rating["after"]["mu"] == pytest.approx(new[0][0].mu)
        assert rows[bob].rating["after"]["sigma"] == pytest.approx(new[1][0].sigma)
        assert len(await all_ratings(hub)) == 2  # the two accounts; no bot's
        await hub.stop()

    asyncio.run(main())


def test_a_rated_quintus_game_rates_the_five_players_by_their_session_totals(
    db_url: str,
) -> None:
    async def main() -> None:
        hub = Hub(settings(db_url), Store(db_url))
        await hub.start()
        ann_id, ann = await add_account(hub, "Ann")
        cy_id, cy = await add_account(hub, "Cy")
        levels = ["open", "random", "open", "heuristic", "random"]
        made = await create(
            hub,
            {
                "game": "quintus",
                "variant": "bidding",
                "seats": levels,
                "join": {"seat": 0, "name": "Ann"},
                "options": {"hands": 2},
                "seed": 8,
                "rated": True,
            },
            ann,
        )
        t = hub.tables[made["id"]]
        a, c = conn_of(hub, ann), conn_of(hub, cy)
        await hello(hub, a, t.id, made["token"])
        await join(hub, c, t.id, 2)
        await play_out(hub, t, [a, c])
        totals = t.result["totals"]
        ranks = [float(1 + sum(1 for x in totals if x > mine)) for mine in totals]
        teams = [[M.rating()] if lv == "open" else [bot("quintus", lv)] for lv in levels]
        new = M.rate(teams, ranks=ranks)
        close(await rating_of(hub, ann_id, "quintus", "bidding"), new[0][0])
        close(await rating_of(hub, cy_id, "quintus", "bidding"), new[2][0])
        rows = await results_of(hub, t.id)
        assert rows[ann].stats["place"] == ranks[0] and rows[cy].stats["place"] == ranks[2]
        await hub.stop()

    asyncio.run(main())


def test_a_person_playing_only_bots_is_rated_and_the_bots_ratings_never_change(
    db_url: str,
) -> None:
    async def main() -> None:
        hub = Hub(settings(db_url), Store(db_url))
        await hub.start()
        ann_id, ann = await add_account(hub, "Ann")
        published = {g: dict(v) for g, v in ratings.BOT_RATINGS.items()}
        expected = M.rating()
        for seed in (3, 4):  # two dummy games alone against two bots
            made = await create(
                hub,
                {
                    "game": "quinto",
                    "variant": "dummy",
                    "lone_seat": 0,
                    "seats": ["open", "heuristic", "open", "random"],
                    "join": {"seat": 0, "name": "Ann"},
                    "options": {"target": 40, "dummy_handicap": 0},
                    "seed": seed,
                    "rated": True,
                },
                ann,
            )
            t = hub.tables[made["id"]]
            a = conn_of(hub, ann)
            await hello(hub, a, t.id, made["token"])
            await play_out(hub, t, [a])
            # The lone player is his rating twice (his hand and the dummy's) against the
            # pair; the bots go in as published, every game.
            lone = [M.rating(mu=expected.mu, sigma=expected.sigma) for _ in range(2)]
            pair = [bot("quinto", "heuristic"), bot("quinto", "random")]
            new = M.rate([lone, pair], ranks=quinto_ranks(t.result, lone_side=0))
            assert new[0][0].mu == pytest.approx(new[0][1].mu)  # the same by symmetry
            expected = new[0][0]
            close(await rating_of(hub, ann_id, "quinto", "dummy"), expected)
        stored = await all_ratings(hub)
        assert [(r.account_id, r.games) for r in stored] == [(ann_id, 2)]
        assert {g: dict(v) for g, v in ratings.BOT_RATINGS.items()} == published
        await hub.stop()

    asyncio.run(main())


def test_a_rematch_of_a_rated_table_is_rated_too(db_url: str) -> None:
    async def main() -> None:
        hub = Hub(settings(db_url), Store(db_url))
        await hub.start()
        _ann_id, ann = await add_account(hub, "Ann")
        made = await create(
            hub,
            {
                "game": "quinto",
                "variant": "dummy",
                "lone_seat": 0,
                "seats": ["open", "heuristic", "open", "random"],
                "join": {"seat": 0, "name": "Ann"},
                "options": {"target": 40, "dummy_handicap": 0},
                "seed": 5,
                "rated": True,
            },
            ann,
        )
        t = hub.tables[made["id"]]
        a = conn_of(hub, ann)
        await hello(hub, a, t.id, made["token"])
        await play_out(hub, t, [a])
        await hub.handle(a, json.dumps({"type": "rematch", "id": "rm"}))
        again = hub.tables[t.social["rematch"]["id"]]
        assert again.rated and again.lobby_json()["rated"]
        await hub.stop()

    asyncio.run(main())


def test_a_seat_left_to_a_bot_is_rated_as_the_account_that_held_it(db_url: str) -> None:
    async def main() -> None:
        hub = Hub(settings(db_url), Store(db_url))
        await hub.start()
        ann_id, ann = await add_account(hub, "Ann")
        bob_id, bob = await add_account(hub, "Bob")
        made = await create(
            hub,
            {
                "game": "quinto",
                "seats": ["open", "open", "random", "random"],
                "join": {"seat": 0, "name": "Ann"},
                "options": {"target": 40},
                "seed": 6,
                "rated": True,
            },
            ann,
        )
        t = hub.tables[made["id"]]
        a, b = conn_of(hub, ann), conn_of(hub, bob)
        await hello(hub, a, t.id, made["token"])
        await join(hub, b, t.id, 1)
        hub.disconnect(a)  # Ann goes away; Bob gives her seat to a bot
        await hub.handle(b, json.dumps({"type": "replace", "seat": 0, "level": "random"}))
        assert t.seats[0].kind == "bot" and errors(b) == []
        await play_out(hub, t, [b])
        teams = [[M.rating(), bot("quinto", "random")], [M.rating(), bot("quinto", "random")]]
        new = M.rate(teams, ranks=quinto_ranks(t.result))
        close(await rating_of(hub, ann_id, "quinto", "partnership"), new[0][0])
        close(await rating_of(hub, bob_id, "quinto", "partnership"), new[1][0])
        await hub.stop()

    asyncio.run(main())


# ----------------------------------------------------------- rated tables


def test_a_guest_cannot_sit_at_a_rated_table(db_url: str) -> None:
    async def main() -> None:
        hub = Hub(settings(db_url), Store(db_url))
        await hub.start()
        _, ann = await add_account(hub, "Ann")
        guest = secrets.token_hex(32)
        body = {"game": "quinto", "seats": ["open", "open", "random", "random"], "rated": True}
        with pytest.raises(FieldError) as refused:
            await create(hub, body | {"join": {"seat": 0, "name": "G"}}, guest)
        assert refused.value.field == "rated" and refused.value.code == "rated_needs_account"
        made = await create(hub, body | {"join": {"seat": 0, "name": "Ann"}}, ann)
        t = hub.tables[made["id"]]
        g = conn_of(hub, guest)
        await join(hub, g, t.id, 1, "Guest")
        assert errors(g) == ["rated_needs_account"] and t.seats[1].kind == "open"
        # Nor with Ann's seat token from a guest's browser.
        h = conn_of(hub)
        await hello(hub, h, t.id, made["token"])
        assert errors(h) == ["rated_needs_account"] and t.seats[0].person == ann
        assert guest not in t.holders and h.person not in t.holders
        # An unrated table seats guests as before.
        free = await create(hub, {"game": "quinto", "seats": ["open"] * 4}, ann)
        await join(hub, g, free["id"], 1, "Guest")
        assert hub.tables[free["id"]].seats[1].person == guest
        await hub.stop()

    asyncio.run(main())


def test_a_rated_table_takes_only_bots_with_a_published_rating(db_url: str) -> None:
    async def main() -> None:
        more = settings(db_url, levels={"strong": "heuristic", "heuristic2": "random"})
        hub = Hub(more, Store(db_url))
        await hub.start()
        _, ann = await add_account(hub, "Ann")
        base: JSON = {"game": "quinto", "join": {"seat": 0, "name": "Ann"}, "rated": True}
        for seats, field in (
            (["open", "strong", "random", "random"], "seats[1]"),
            (["open", "random", {"kind": "bot", "level": "heuristic2"}, "open"], "seats[2].level"),
        ):
            with pytest.raises(FieldError) as refused:
                await create(hub, base | {"seats": seats}, ann)
            assert refused.value.field == field, refused.value
            assert "random, heuristic" in refused.value.message
        # Quintus has no ladder rating for pimc-2026, Quinto has; neither is offered here.
        assert "pimc-2026" not in ratings.rated_levels("quinto", hub.levels)
        made = await create(hub, base | {"seats": ["open", "open", "heuristic", "random"]}, ann)
        t = hub.tables[made["id"]]
        a = conn_of(hub, ann)
        await hello(hub, a, t.id, made["token"])
        await hub.handle(a, json.dumps({"type": "replace", "seat": 1, "level": "strong"}))
        assert errors(a) == ["bad_level"] and t.seats[1].kind == "open"
        await hub.handle(a, json.dumps({"type": "replace", "seat": 1, "level": "heuristic"}))
        assert t.seats[1].level == "heuristic"
        # Unrated tables take any offered level; a server may rate no tables at all.
        await create(hub, base | {"rated": False, "seats": ["open", "strong", "open", "open"]}, ann)
        await hub.stop()
        off = Hub(settings(db_url, rated_tables=False), Store(db_url))
        await off.start()
        with pytest.raises(FieldError) as refused:
            await create(off, base | {"seats": ["open", "open", "random", "random"]}, ann)
        assert refused.value.field == "rated"
        await off.stop()

    asyncio.run(main())


def test_an_unrated_table_changes_no_rating(db_url: str) -> None:
    async def main() -> None:
        hub = Hub(settings(db_url), Store(db_url))
        await hub.start()
        _, ann = await add_account(hub, "Ann")
        made = await create(
            hub,
            {
                "game": "quintus",
                "seats": ["open", "random", "random", "random", "random"],
                "join": {"seat": 0, "name": "Ann"},
                "options": {"hands": 1},
                "seed": 2,
            },
            ann,
        )
        t = hub.tables[made["id"]]
        a = conn_of(hub, ann)
        await hello(hub, a, t.id, made["token"])
        await play_out(hub, t, [a])
        rows = await results_of(hub, t.id)
        assert list(rows) == [ann] and rows[ann].rating is None
        assert await all_ratings(hub) == []
        await hub.stop()

    asyncio.run(main())


# ------------------------------------------------------------------- results


def test_results_are_written_at_finish_for_every_holder_with_the_games_figures(
    db_url: str,
) -> None:
    async def main() -> None:
        hub = Hub(settings(db_url), Store(db_url))
        await hub.start()
        # Quinto: a guest plays a little and leaves, another guest takes the seat and
        # doubles whenever he may; results for both, and the doublings as recorded.
        first, second = secrets.token_hex(32), secrets.token_hex(32)
        made = await create(
            hub,
            {
                "game": "quinto",
                "seats": ["open", "random", "random", "random"],
                "join": {"seat": 0, "name": "First"},
                "options": {"target": 60},
                "seed": 12,
            },
            first,
        )
        t = hub.tables[made["id"]]
        c1 = conn_of(hub, first)
        await hello(hub, c1, t.id, made["token"])
        while t.table.state.current_player() != 0:
            await asyncio.sleep(0.002)
        st = t.table.state
        act = {"type": "act", "action": action_to_json(st.legal_actions(0)[0], 0)}
        await hub.handle(c1, json.dumps(act))
        await hub.handle(c1, json.dumps({"type": "leave"}))
        c2 = conn_of(hub, second)
        await join(hub, c2, t.id, 0, "Second")
        await play_out(hub, t, [c2], choose=doubler)
        rows = await results_of(hub, t.id)
        assert set(rows) == {first, second}
        rec = t.record().to_json()
        won = t.result["rubber"]["winner"] == 0
        for row in rows.values():
            assert (row.seat, row.game, row.variant, row.won) == (0, "quinto", "partnership", won)
            s = row.stats
            assert s["total"] == t.result["rubber"]["score"][0] and s["side"] == 0
            assert row.hands == len(rec["hands"])
            doubled = [
                h
                for h in rec["hands"]
                if any(x["type"] == "double" and x["seat"] % 2 == 0 for x in h["actions"])
            ]
            assert s["doubles"] == len(doubled) and s["doubles"] >= 1
            assert s["doubles_won"] + s["doubles_lost"] <= s["doubles"]
            # Hand points are quints and trick points: the quints counted are the rest.
            tricks = sum(
                e.values[0] for st in t.table.match.hands for e in st.events() if e.kind == "tricks"
            )
            assert row.points == s["quint_points"] + tricks
            assert s["quints"] >= 1 and s["place"] == (1 if won else 2)
        # Quintus bidding: the seat's total, its hands as quintus and as a team player.
        made = await create(
            hub,
            {
                "game": "quintus",
                "variant": "bidding",
                "seats": ["open", "heuristic", "heuristic", "heuristic", "heuristic"],
                "join": {"seat": 0, "name": "First"},
                "options": {"hands": 3},
                "seed": 21,
            },
            first,
        )
        t = hub.tables[made["id"]]
        c1 = conn_of(hub, first)
        await hello(hub, c1, t.id, made["token"])
        await play_out(hub, t, [c1])
        row = (await results_of(hub, t.id))[first]
        hands = [
            h for h in t.result["hands"] if h["score"] is not None and h["quintus"] is not None
        ]
        mine = [h for h in hands if h["quintus"] == 0]
        s = row.stats
        assert row.points == t.result["totals"][0] and row.hands == 3
        assert row.won == (t.result["totals"][0] == max(t.result["totals"]))
        assert s["quintus_hands"] == len(mine) and s["team_hands"] == 3 - len(mine)
        assert s["contracts_made"] == sum(1 for h in mine if h["made"])
        assert s["contracts_failed"] == sum(1 for h in mine if h["made"] is False)
        assert s["contracts_beaten"] == sum(
            1 for h in hands if h["quintus"] != 0 and h["made"] is False
        )
        assert s["quintus_points"] == sum(h["score"][0] for h in mine)
        assert s["team_points"] + s["quintus_points"] == row.points
        await hub.stop()

    asyncio.run(main())


def test_an_abandoned_table_writes_no_result_and_changes_no_rating(db_url: str) -> None:
    async def main() -> None:
        hub = Hub(settings(db_url, abandon_after=60.0), Store(db_url))
        await hub.start()
        _, ann = await add_account(hub, "Ann")
        made = await create(
            hub,
            {
                "game": "quinto",
                "seats": ["open", "random", "random", "random"],
                "join": {"seat": 0, "name": "Ann"},
                "seed": 7,
                "rated": True,
            },
            ann,
        )
        t = hub.tables[made["id"]]
        a = conn_of(hub, ann)
        await hello(hub, a, t.id, made["token"])
        while t.table.state.current_player() != 0:
            await asyncio.sleep(0.002)
        act = {"type": "act", "action": action_to_json(t.table.state.legal_actions(0)[0], 0)}
        await hub.handle(a, json.dumps(act))
        hub.disconnect(a)
        assert await hub.sweep(time.time() + 61) == [t.id]
        assert t.status == "abandoned"
        assert await results_of(hub, t.id) == {} and await all_ratings(hub) == []
        await hub.stop()

    asyncio.run(main())


# ------------------------------------------------------------- the bots' table


def test_the_bots_ratings_give_the_ladders_expected_scores_and_are_published() -> None:
    for game, ladder in ratings.LADDERS.items():
        anchor = ladder[ratings.ANCHOR_LEVEL]
        h = bot(game, ratings.ANCHOR_LEVEL)
        assert (h.mu, h.sigma) == (M.mu, ratings.BOT_SIGMA)
        for level, elo in ladder.items():
            want = 1.0 / (1.0 + 10.0 ** ((anchor - elo) / 400.0))
            got = M.predict_win([[bot(game, level)], [h]])[0]
            assert got == pytest.approx(want, abs=1e-9), (game, level)
        mus = [mu for mu, _ in ratings.BOT_RATINGS[game].values()]
        assert mus == sorted(mus)  # listed weakest first, in the ladder's order
    # docs/server.md publishes the same table.
    text = DOCS.read_text(encoding="utf-8")
    rows = re.findall(
        r"^\| (\w+) \| `([\w-]+)` \| (-?\d+) \| (\d+\.\d\d) \| (\d+\.\d\d) \| (\d+\.\d\d) \|$",
        text,
        re.M,
    )
    published = {(g, lv): (float(mu), float(sd), float(c)) for g, lv, _, mu, sd, c in rows}
    expected = {
        (g, lv): (round(mu, 2), round(sd, 2), round(ratings.conservative(mu, sd), 2))
        for g, levels in ratings.BOT_RATINGS.items()
        for lv, (mu, sd) in levels.items()
    }
    assert published == expected
    elos = {(g, lv): int(e) for g, lv, e, *_ in rows}
    assert elos == {(g, lv): e for g, lad in ratings.LADDERS.items() for lv, e in lad.items()}


__all__ = ["add_account", "conn_of", "create", "db_url", "hello", "play_out", "settings"]
