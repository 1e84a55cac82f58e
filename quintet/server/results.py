"""Results: what each person's finished game says of them (``quintet_results``).

When a table finishes (:meth:`~quintet.server.livetable.LiveTable.commit_action` with the
match over), :func:`finish_job` writes one row per person who held one of its seats
(guests and accounts alike, by person id), in the transaction of the last action: the
seat, whether its side won, the hands of the match, the points its side scored in them
and the game's figures (:func:`seat_results`); and, at a rated table, the ratings
before and after (:func:`quintet.server.ratings.rate_table`, in the same transaction).
An abandoned table gets no rows and changes no rating.

Every figure is read from the engine's match (its hands' events, scores, doublings,
contracts and nils); nothing here applies a rule of its own:

* Quinto, per side: ``points`` is the sum of the side's hand points (quints and tricks;
  the rubber bonus and the dummy's handicap are not scored in play: they are in
  ``total``, the rubber total or the dummy game's score); ``quints`` and
  ``quint_points`` the quints the side took; ``doubles``, ``redoubles`` and
  ``doubled_against`` (the other side doubled, this side did not redouble) count hands,
  each with its ``_won`` and ``_lost`` (the side's hand points above or below the other
  side's).
* Quintus, per seat: ``points`` is the seat's session total; ``quintus_hands`` and
  ``quintus_points`` its hands as quintus, with ``contracts_made``/``contracts_failed``
  (bidding) and its nils (``nil_closed``, ``nil_open``, ``nil_made``, ``nil_failed``);
  ``team_hands``, ``team_points`` and ``contracts_beaten`` as a team player.

``place`` is 1 for the winners (ties share it), 2 and on for the others: the ranks the
ratings use. Tables finished before migration 0005 have no rows: :func:`missing_tables`
finds those a person held a seat of, and :func:`results_of_row` replays one from its
stored actions to fill them in (the profile does, when first asked).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from quintet.games import GameInfo, find_game
from quintet.quinto import quints
from quintet.server import db, ratings
from quintet.table import Preview, Table

if TYPE_CHECKING:
    from quintet.server.livetable import LiveTable

log = logging.getLogger("quintet.server")

JSON = dict[str, Any]


@dataclass(frozen=True)
class SeatResult:
    """One player seat's result: see the module docstring for each field."""

    seat: int
    won: bool | None
    hands: int
    points: float
    place: int
    stats: JSON


def _hand_outcome(mine: int, theirs: int) -> str | None:
    return "won" if mine > theirs else "lost" if mine < theirs else None


def _quinto_results(info: GameInfo, match: Any) -> dict[int, SeatResult]:
    lone = match.lone_seat
    dummy = info.dummy_of(lone)
    keys = ("doubles", "redoubles", "doubled_against")
    side_stats: list[dict[str, int]] = [
        {
            "quints": 0,
            "quint_points": 0,
            **{f"{k}{end}": 0 for k in keys for end in ("", "_won", "_lost")},
        }
        for _ in (0, 1)
    ]
    points = [0, 0]
    for st in match.hands:
        pts = st.hand_points()
        for side in (0, 1):
            points[side] += pts[side]
        for e in st.events():
            if e.kind in ("trick", "cachette") and e.points:
                s = side_stats[e.seat & 1]
                s["quints"] += len(quints(e.cards))
                s["quint_points"] += e.points
        by = st.doubled_by
        if by is None:
            continue
        redoubled = st.multiplier > 2
        for side in (0, 1):
            key = "doubles" if side == by else "redoubles" if redoubled else "doubled_against"
            s = side_stats[side]
            s[key] += 1
            outcome = _hand_outcome(pts[side], pts[1 - side])
            if outcome is not None:
                s[f"{key}_{outcome}"] += 1
    winner = match.winner()
    rubber = match.rubber_score()
    games = match.games()
    won_games = match.games_won()
    out: dict[int, SeatResult] = {}
    for seat in range(info.num_seats):
        if seat == dummy:
            continue
        side = seat & 1
        total = rubber[side] if rubber is not None else games[-1].score[side] if games else 0
        stats: JSON = {
            "side": side,
            "total": total,
            "games_won": won_games[side],
            **side_stats[side],
        }
        if lone is not None:
            stats["lone"] = seat == lone
        out[seat] = SeatResult(
            seat=seat,
            won=None if winner is None else winner == side,
            hands=len(match.hands),
            points=float(points[side]),
            place=1 if winner is None or winner == side else 2,
            stats=stats,
        )
    return out


def _quintus_results(info: GameInfo, match: Any) -> dict[int, SeatResult]:
    n = info.num_seats
    zero = (
        "quintus_hands",
        "quintus_points",
        "contracts_made",
        "contracts_failed",
        "nil_closed",
        "nil_open",
        "nil_made",
        "nil_failed",
        "team_hands",
        "team_points",
        "contracts_beaten",
    )
    seat_stats: list[dict[str, int]] = [dict.fromkeys(zero, 0) for _ in range(n)]
    for st in match.hands:
        if not st.is_terminal() or st.void:
            continue
        q = st.quintus_seat
        scores = st.scores()
        made = st.made()
        nil = st.nil_name()
        for seat in range(n):
            s = seat_stats[seat]
            if seat == q:
                s["quintus_hands"] += 1
                s["quintus_points"] += scores[seat]
                if made is not None:
                    s["contracts_made" if made else "contracts_failed"] += 1
                if nil in ("closed", "open"):
                    s[f"nil_{nil}"] += 1
                    s["nil_failed" if st.nil_failed else "nil_made"] += 1
            else:
                s["team_hands"] += 1
                s["team_points"] += scores[seat]
                if made is False:
                    s["contracts_beaten"] += 1
    totals = match.totals()
    winners = set(match.winners())
    hands = match.hands_played()
    out: dict[int, SeatResult] = {}
    for seat in range(n):
        place = 1 + sum(1 for x in totals if x > totals[seat])
        out[seat] = SeatResult(
            seat=seat,
            won=seat in winners,
            hands=hands,
            points=float(totals[seat]),
            place=place,
            stats={"total": totals[seat], **seat_stats[seat]},
        )
    return out


#: Each game's figures of a finished match (what truly differs between the games).
_RESULTS: Final[Mapping[str, Callable[[GameInfo, Any], dict[int, SeatResult]]]] = {
    "quinto": _quinto_results,
    "quintus": _quintus_results,
}


def seat_results(match: Any) -> dict[int, SeatResult]:
    """Return each player seat's result of a finished match (the dummy has none)."""
    info = find_game(match.game)
    return _RESULTS[info.name](info, match)


# ---------------------------------------------------------------- writing


def _rows(
    table_id: str,
    game: str,
    variant: str,
    when: datetime,
    holders: Mapping[str, int],
    per_seat: Mapping[int, SeatResult],
    rated: Mapping[str, JSON],
) -> list[JSON]:
    out = []
    for person, seat in holders.items():
        r = per_seat.get(seat)
        if r is None:
            continue
        out.append(
            {
                "table_id": table_id,
                "person": person,
                "seat": seat,
                "game": game,
                "variant": variant,
                "finished_at": when,
                "won": r.won,
                "hands": r.hands,
                "points": r.points,
                "stats": {**r.stats, "place": r.place},
                "rating": rated.get(person),
            }
        )
    return out


def finish_job(t: LiveTable, preview: Preview, when: datetime) -> Callable[[Connection], None]:
    """Return the job that writes a finishing table's results (and rates a rated one).

    The figures are computed now, from the match as ``preview`` will leave it (the
    preview's own way: the hand put in place for a moment); the job, run in the
    transaction of the table's last action, reads and writes only the rows. Should the
    figures fail (a bug), the table finishes without results rather than not at all; a
    profile asked later fills them in from the record, unrated.
    """
    match: Any = t.table.match
    hands = match.hands
    hands[-1] = preview.state
    try:
        per_seat = seat_results(match)
    except Exception:  # a bug here must not keep the table from finishing
        log.exception("table %s: its results could not be worked out", t.id)
        return lambda conn: None
    finally:
        hands[-1] = preview.before
    table_id, game, variant, lone = t.id, t.game, t.variant, t.lone_seat
    holders = dict(t.holders)
    seats = list(t.seats)
    rated = t.rated
    places = {s: r.place for s, r in per_seat.items()}

    def job(conn: Connection) -> None:
        changes = (
            ratings.rate_table(conn, table_id, game, variant, lone, seats, places, when)
            if rated
            else {}
        )
        rows = _rows(table_id, game, variant, when, holders, per_seat, changes)
        if rows:
            conn.execute(db.results_t.insert(), rows)

    return job


# ------------------------------------------- tables finished before results


def missing_tables(conn: Connection, person: str, limit: int) -> list[str]:
    """Return finished tables ``person`` held a seat of that have no result of theirs.

    Tables finished before migration 0005, the newest first, at most ``limit``.
    """
    h, t, r = db.holders_t, db.tables_t, db.results_t
    has = sa.exists().where(r.c.table_id == h.c.table_id, r.c.person == h.c.person)
    q = (
        sa.select(h.c.table_id)
        .join(t, t.c.id == h.c.table_id)
        .where(h.c.person == person, t.c.status == "finished", ~has)
        .order_by(t.c.finished_at.desc(), t.c.id)
        .limit(limit)
    )
    return [row.table_id for row in conn.execute(q)]


def match_of_row(row: db.TableRow) -> Any:
    """Return a stored table's match, replayed from its seed and stored actions."""
    table = Table.new(
        row.game,
        row.variant,
        seats=[None] * len(row.seats),
        seed=row.seed,
        options=row.options,
        lone_seat=row.lone_seat,
        first_dealer=row.first_dealer,
        deal=False,
    )
    by_hand: dict[int, list[tuple[int, int]]] = {}
    for hand, seat, a in row.actions:
        by_hand.setdefault(hand, []).append((seat, a))
    for h in range(row.hands_dealt):
        state = table.deal()
        for seat, a in by_hand.get(h, []):
            state.act(a, seat)
    return table.match


def results_of_row(row: db.TableRow) -> list[JSON]:
    """Return the result rows of a stored finished table (for every holder; unrated).

    Raises:
        QuintetError: the stored actions do not replay.
    """
    match = match_of_row(row)
    when = row.finished_at or row.created_at
    return _rows(row.id, row.game, row.variant, when, row.holders, seat_results(match), {})


def insert_missing(conn: Connection, rows: Sequence[JSON]) -> int:
    """Insert those of ``rows`` not stored yet (another request may have filled them)."""
    if not rows:
        return 0
    r = db.results_t
    table_ids = sorted({row["table_id"] for row in rows})
    have = {
        (x.table_id, x.person)
        for x in conn.execute(
            sa.select(r.c.table_id, r.c.person).where(r.c.table_id.in_(table_ids))
        )
    }
    new = [row for row in rows if (row["table_id"], row["person"]) not in have]
    if new:
        conn.execute(r.insert(), new)
    return len(new)


__all__ = [
    "SeatResult",
    "finish_job",
    "insert_missing",
    "match_of_row",
    "missing_tables",
    "results_of_row",
    "seat_results",
]
