"""Ratings: the OpenSkill model, who plays with whom in it, and the bots' fixed ratings.

Every account has a rating per game and variant (``quintet_ratings``: an OpenSkill mu
and sigma, and the rated games counted). A rated table's finish updates the ratings of
its players with :data:`MODEL`, openskill's Plackett-Luce model, in the same
transaction as the table's last action (:func:`rate_table`); nothing here computes a
rating itself: every new rating is what ``MODEL.rate`` returns, and the bots' ratings
are found with ``MODEL.predict_win``.

Why Plackett-Luce: it ranks any number of teams of any sizes, with ties, in one update
(Quinto's two sides of two, the lone player against a pair, Quintus's five players in
the order of their totals), and for two teams it is the Bradley-Terry model the bot
ladder is fitted with (docs/bots.md, "The ladder"), so the bots' ladder carries over to
it. It is openskill's default and, in its authors' benchmarks, as accurate as the
pairwise models at a fraction of their cost for five teams.

Teams (:func:`teams_of`), from :mod:`quintet.games`' description of the game:

* a game of partnerships: one team per partnership (Quinto: N-S against E-W);
* its lone-player variant: the lone player against the other two. He plays both his
  hand and the dummy's, so his team is his rating twice (he counts as the two players
  he is, as his opponents' team is the sum of theirs); his new rating is the first
  member's (the second is the same by symmetry, and dropped);
* a game without fixed sides (Quintus): each player is a team of one, ranked by the
  session's totals. A Quintus game is rated once, as one match on the final totals, and
  not hand by hand: the session is what the players play for (the highest total wins),
  the quintus's and a team's points of one hand are not on one scale, and five updates
  a game would count one game's evidence five times.

Ranks come from the results (:mod:`quintet.server.results`): 1 for the winners, ties
sharing a rank.

Bots have fixed ratings (:data:`BOT_RATINGS`), taken from the ladder of docs/bots.md:
the ``heuristic`` level is put at the model's newcomer rating (mu 25), and each other
level's mu is chosen so that ``MODEL.predict_win`` gives it, against the heuristic, the
ladder's expected score against the heuristic (its Bradley-Terry expectation
``1 / (1 + 10 ** ((R_heuristic - R) / 400))``); every bot's sigma is :data:`BOT_SIGMA`,
about the ladder's standard errors. They take part in every update as what they are and
are never changed, so that a person playing bots alone is rated too. Only the levels on
a game's ladder have a rating; a rated table's bots are those levels, offered here as
themselves (:func:`rated_levels`).

Who is rated for a seat (:func:`seat_players`): the account holding it at the finish;
if a bot holds it then (its player left or was replaced), the last account that held
it, who takes the result as if he had played on. Others who held the seat before
handing it to another account keep their result row, with no rating change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

import sqlalchemy as sa
from openskill.models import PlackettLuce, PlackettLuceRating
from sqlalchemy.engine import Connection

from quintet.games import GameInfo, find_game
from quintet.server import db
from quintet.server.accounts import Account, account_by_person, accounts_by_person
from quintet.server.protocol import ProtocolError

if TYPE_CHECKING:
    from quintet.server.livetable import LiveTable

#: The model every rating is computed with (openskill's defaults: mu 25, sigma 25/3,
#: beta 25/6, tau 25/300).
MODEL: Final = PlackettLuce()
#: The level put at the newcomer's rating, and every bot's sigma.
ANCHOR_LEVEL: Final = "heuristic"
BOT_SIGMA: Final = 1.0
#: How many standard deviations the conservative rating (the leaderboard's) is below mu.
CONSERVATIVE_Z: Final = 3.0

#: The ladder's ratings (Elo scale) of each game's levels, and where they were measured
#: (docs/bots.md, "The ladder"). Each game's variants share its ladder.
LADDERS: Final[Mapping[str, Mapping[str, float]]] = {
    # Quinto (partnership), 100 deals a pair, at commit 39560ae (docs/bots.md).
    "quinto": {"random": 0, "heuristic": 318, "ismcts": 586, "pimc-2026": 590, "pimc": 611},
    # Quintus (base), 30 deals a pair, at commit 9cbd47a (docs/bots.md).
    "quintus": {"random": 0, "pimc-2026": 150, "heuristic": 266, "ismcts": 292, "pimc": 429},
}
LADDER_SOURCES: Final[Mapping[str, str]] = {
    "quinto": "Quinto (partnership) ladder, commit 39560ae",
    "quintus": "Quintus (base) ladder, commit 9cbd47a",
}


def _bot_mu(elo: float, anchor: float) -> float:
    """Return the mu whose ``MODEL.predict_win`` against the anchor bot is the ladder's
    expected score of a level rated ``elo`` against one rated ``anchor``."""
    want = 1.0 / (1.0 + 10.0 ** ((anchor - elo) / 400.0))
    base = MODEL.rating(mu=MODEL.mu, sigma=BOT_SIGMA)
    low, high = MODEL.mu - 50.0, MODEL.mu + 50.0
    for _ in range(60):  # bisection: predict_win rises with mu
        mid = (low + high) / 2.0
        p = MODEL.predict_win([[MODEL.rating(mu=mid, sigma=BOT_SIGMA)], [base]])[0]
        if p < want:
            low = mid
        else:
            high = mid
    return (low + high) / 2.0


def _bot_ratings() -> dict[str, dict[str, tuple[float, float]]]:
    out: dict[str, dict[str, tuple[float, float]]] = {}
    for game, ladder in LADDERS.items():
        anchor = ladder[ANCHOR_LEVEL]
        out[game] = {
            level: (_bot_mu(elo, anchor), BOT_SIGMA)
            for level, elo in sorted(ladder.items(), key=lambda kv: kv[1])
        }
    return out


#: Each game's bot levels with their fixed (mu, sigma), weakest first.
BOT_RATINGS: Final[Mapping[str, Mapping[str, tuple[float, float]]]] = _bot_ratings()


def conservative(mu: float, sigma: float) -> float:
    """Return the conservative rating ``mu - 3 sigma`` (openskill's ordinal)."""
    return float(MODEL.rating(mu=mu, sigma=sigma).ordinal(z=CONSERVATIVE_Z))


def rating_json(mu: float, sigma: float) -> dict[str, float]:
    """Return a rating as the API shows it: mu, sigma and the conservative rating."""
    return {"mu": mu, "sigma": sigma, "conservative": conservative(mu, sigma)}


# ------------------------------------------------------------------ levels


def rated_levels(game: str, offered: Mapping[str, str]) -> list[str]:
    """Return the bot levels a rated table of ``game`` may seat here, weakest first.

    A level with a published rating, offered under its own name as itself (an
    operator's level of the same name that is another bot is not the ladder's).
    """
    ladder = BOT_RATINGS.get(game, {})
    return [lv for lv in ladder if lv in offered and offered[lv].split(":")[0] == lv]


def check_rated_level(t: LiveTable, level: str) -> None:
    """Refuse a bot of ``level`` at a rated table (``replace``) if it has no rating.

    Raises:
        ProtocolError: bad_level, naming the levels a rated table takes.
    """
    ok = rated_levels(t.game, t.hub.levels)
    if level not in ok:
        raise ProtocolError(
            "bad_level", f"a rated table's bots are levels with a rating: {', '.join(ok)}"
        )


# ---------------------------------------------------------------- accounts


async def signed_in(store: db.Store, person: str | None) -> Account | None:
    """Return the account acting as ``person`` if it may play (not disabled), or None."""
    if person is None:
        return None
    return await store.read(lambda conn: account_by_person(conn, person))


async def seat_account(t: LiveTable, person: str | None) -> Account:
    """Return the account of ``person``, who would take a person seat of the rated ``t``.

    Raises:
        ProtocolError: rated_needs_account (a guest, or a disabled account).
    """
    account = await signed_in(t.hub.store, person)
    if account is None:
        raise ProtocolError("rated_needs_account", "sign in to sit at a rated table")
    return account


# ------------------------------------------------------------------- model


def teams_of(info: GameInfo, variant: str, lone_seat: int | None) -> list[list[int]]:
    """Return the model's teams as seats (the lone player's seat twice: see above)."""
    if info.partnerships is None:
        return [[s] for s in range(info.num_seats)]
    if info.variants[variant].lone_seat and lone_seat is not None:
        dummy = info.dummy_of(lone_seat)
        others = [s for s in range(info.num_seats) if s not in (lone_seat, dummy)]
        return [[lone_seat, lone_seat], others]
    return [list(p) for p in info.partnerships]


@dataclass(frozen=True)
class SeatPlayer:
    """Who a seat is in the model: an account, or a bot level (fixed)."""

    account: Account | None
    level: str | None


def seat_players(
    conn: Connection, table_id: str, seats: Sequence[db.SeatRow], seat_numbers: Sequence[int]
) -> dict[int, SeatPlayer] | None:
    """Return who each of ``seat_numbers`` is in the model, or None if one is nobody.

    The account holding the seat at the finish; else the last account that held it
    (by when it first took it); else the bot at the seat. A seat with none of them (an
    open seat) leaves the table unrated.
    """
    q = (
        sa.select(db.holders_t.c.person, db.holders_t.c.seat)
        .where(db.holders_t.c.table_id == table_id)
        .order_by(db.holders_t.c.at, db.holders_t.c.person)
    )
    held = [(r.person, r.seat) for r in conn.execute(q)]
    persons = [p for p, _ in held] + [s.person for s in seats if s.person is not None]
    accounts = accounts_by_person(conn, persons)
    out: dict[int, SeatPlayer] = {}
    for n in seat_numbers:
        row = seats[n]
        now = accounts.get(row.person or "") if row.kind == "person" else None
        if now is None:
            last = [accounts[p] for p, s in held if s == n and p in accounts]
            now = last[-1] if last else None
        if now is not None:
            out[n] = SeatPlayer(now, None)
        elif row.kind == "bot" and row.level is not None:
            out[n] = SeatPlayer(None, row.level)
        else:
            return None
    return out


def _load_ratings(
    conn: Connection, account_ids: Sequence[str], game: str, variant: str
) -> dict[str, tuple[float, float, int]]:
    if not account_ids:
        return {}
    t = db.ratings_t
    q = sa.select(t.c.account_id, t.c.mu, t.c.sigma, t.c.games).where(
        t.c.account_id.in_(list(account_ids)), t.c.game == game, t.c.variant == variant
    )
    return {r.account_id: (float(r.mu), float(r.sigma), int(r.games)) for r in conn.execute(q)}


def rate_table(
    conn: Connection,
    table_id: str,
    game: str,
    variant: str,
    lone_seat: int | None,
    seats: Sequence[db.SeatRow],
    places: Mapping[int, int],
    when: datetime,
) -> dict[str, dict[str, Any]]:
    """Update the ratings of a rated table's accounts from its result (in ``conn``'s
    transaction); return each rated person's rating before and after.

    ``places`` is each player seat's place (1 for the winners, ties shared). The bots'
    ratings go into the update and are not stored. A table none of whose players is an
    account, with a seat nobody is rated for, or with a bot whose level has no rating
    (the operator's levels changed while it was played), changes nothing.
    """
    info = find_game(game)
    teams = teams_of(info, variant, lone_seat)
    seat_numbers = sorted({s for team in teams for s in team})
    players = seat_players(conn, table_id, seats, seat_numbers)
    bots = BOT_RATINGS.get(game, {})
    if players is None or any(p.account is None and p.level not in bots for p in players.values()):
        return {}  # an open seat, or a bot whose level has no rating (changed settings)
    account_ids = [p.account.id for p in players.values() if p.account is not None]
    if not account_ids:
        return {}
    stored = _load_ratings(conn, account_ids, game, variant)

    def rating_of(seat: int) -> PlackettLuceRating:
        p = players[seat]
        if p.account is not None:
            mu, sigma, _ = stored.get(p.account.id, (MODEL.mu, MODEL.sigma, 0))
            return MODEL.rating(mu=mu, sigma=sigma, name=p.account.id)
        mu, sigma = bots[p.level or ""]
        return MODEL.rating(mu=mu, sigma=sigma, name=f"bot:{p.level}")

    model_teams = [[rating_of(s) for s in team] for team in teams]
    ranks = [float(places[team[0]]) for team in teams]
    new = MODEL.rate(model_teams, ranks=ranks)
    out: dict[str, dict[str, Any]] = {}
    done: set[str] = set()
    for team, before_team, after_team in zip(teams, model_teams, new, strict=True):
        for seat, before, after in zip(team, before_team, after_team, strict=True):
            account = players[seat].account
            if account is None or account.id in done:
                continue  # a bot, or the lone player's second place in his team
            done.add(account.id)
            games = stored.get(account.id, (0.0, 0.0, 0))[2] + 1
            values = {"mu": after.mu, "sigma": after.sigma, "games": games, "updated_at": when}
            t = db.ratings_t
            if account.id in stored:
                conn.execute(
                    t.update()
                    .where(t.c.account_id == account.id, t.c.game == game, t.c.variant == variant)
                    .values(**values)
                )
            else:
                conn.execute(
                    t.insert().values(account_id=account.id, game=game, variant=variant, **values)
                )
            out[account.person] = {
                "before": rating_json(before.mu, before.sigma),
                "after": rating_json(after.mu, after.sigma),
                "seat": seat,
            }
    return out


__all__ = [
    "BOT_RATINGS",
    "BOT_SIGMA",
    "LADDERS",
    "MODEL",
    "SeatPlayer",
    "check_rated_level",
    "conservative",
    "rate_table",
    "rated_levels",
    "rating_json",
    "seat_account",
    "seat_players",
    "signed_in",
    "teams_of",
]
