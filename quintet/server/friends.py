"""Friends: asking by user name, friendships, who is online and where, seat invitations.

docs/server.md ("Friends") describes the rules; this module is the ``/api/friends``
HTTP API and ``POST /api/tables/{id}/invite``.

* **Asking.** An account asks another by user name (``POST /api/friends``): one row of
  ``quintet_friends``. When both have asked they are friends; one way it is a request,
  which the other accepts by asking back or refuses with ``DELETE``. ``DELETE`` ends a
  friendship or a request either way (both rows go). An account has at most
  ``max_friends`` friendships and requests of its own; guests have no friends (401).
* **Presence.** A friend is online while the friend's person (the account's person id)
  has a websocket open on a table, or the lobby has asked for its friends in the last
  three ``friends_poll_seconds``. The table shown is that connection's, and only when
  the asker may see it anyway (a public table, or one the asker plays, played or
  created); otherwise the friend is "at a private table" and nothing else is said.
* **Invitations.** A player of a table invites a mutual friend to an open seat, or to a
  bot's seat (which is taken with its invite link). The friend's ``GET /api/friends``
  lists the invitation with the seat's invite link, the link the table's Invite button
  gives. Invitations are kept in memory only: at most ``friend_invites_max`` waiting for
  an account, each for ``friend_invite_seconds``, ``friend_invite_rate`` a minute per
  inviter; one goes when its seat is taken, its table starts (if it was made while the
  table waited) or closes, or the friendship ends.

The current account is the session's (:func:`quintet.server.accounts.account_of_scope`);
a guest is refused with 401 ``sign_in``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import sqlalchemy as sa
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictInt
from sqlalchemy.engine import Connection

from quintet.server import db
from quintet.server.accounts import (
    Account,
    account_by_name,
    account_of_scope,
    name_key,
    name_problem,
)
from quintet.server.accounts import AccountRefused as Refused
from quintet.server.db import accounts_t, friends_t
from quintet.server.messages import Text
from quintet.server.security import Buckets
from quintet.server.settings import Settings

if TYPE_CHECKING:
    from quintet.server.live import Hub
    from quintet.server.livetable import LiveTable

JSON = dict[str, Any]
#: Seconds the map of who is connected where is reused (one scan of the tables a second).
PRESENCE_SECONDS = 1.0
#: Lobby polls missed before a friend counts as gone.
POLLS_ONLINE = 3
#: Names are at most this long (the accounts' column).
NAME_MAX = 40
#: Seconds between two sweeps of the expired invitations.
SWEEP_SECONDS = 60.0
#: Lobbies remembered before those gone are forgotten (then twice those left).
PRUNE_AT = 1000


#: An account as its friends know it: its id, user name and person id.
Member = Account


class FriendBody(BaseModel):
    """``POST /api/friends``: the user name of the account to ask."""

    model_config = ConfigDict(extra="forbid")
    name: Annotated[Text, Field(min_length=1, max_length=NAME_MAX)]


class InviteBody(BaseModel):
    """``POST /api/tables/{id}/invite``: the seat and the friend's user name."""

    model_config = ConfigDict(extra="forbid")
    seat: Annotated[StrictInt, Field(ge=0, le=9)]
    friend: Annotated[Text, Field(min_length=1, max_length=NAME_MAX)]


# ------------------------------------------------------------------ storage


@dataclass
class Relations:
    """One account's friendships and requests, each side by account."""

    friends: list[Member]
    asked: list[Member]  # asked by this account, not (yet) back
    asking: list[Member]  # asking this account


def relations(conn: Connection, me: str, limit: int) -> Relations:
    """Return ``me``'s friends and requests (by name; requests to ``me`` newest first).

    Disabled accounts are left out. At most ``limit`` requests to ``me`` are read: an
    account's own rows are bounded by ``max_friends``, the others' are not.
    """
    a = accounts_t
    mine = conn.execute(
        sa.select(a.c.id, a.c.name, a.c.person)
        .join(friends_t, friends_t.c.friend_id == a.c.id)
        .where(friends_t.c.account_id == me, a.c.disabled == sa.false())
    ).all()
    theirs = conn.execute(
        sa.select(a.c.id, a.c.name, a.c.person)
        .join(friends_t, friends_t.c.account_id == a.c.id)
        .where(friends_t.c.friend_id == me, a.c.disabled == sa.false())
        .order_by(friends_t.c.created_at.desc())
        .limit(limit + len(mine))
    ).all()
    asked_me = {r.id for r in theirs}
    asked = {r.id for r in mine}
    by_name: Callable[[Member], str] = lambda m: name_key(m.name)  # noqa: E731

    def _member(r: Any) -> Member:
        return Member(r.id, r.name, r.person)

    return Relations(
        friends=sorted((_member(r) for r in mine if r.id in asked_me), key=by_name),
        asked=sorted((_member(r) for r in mine if r.id not in asked_me), key=by_name),
        asking=[_member(r) for r in theirs if r.id not in asked][:limit],
    )


def ask(conn: Connection, me: str, other: str, limit: int) -> str | None:
    """Store ``me`` asking ``other``; return ``friends``, ``asked``, or None (at the limit).

    Asking again changes nothing.
    """
    f = friends_t
    have = conn.execute(
        sa.select(f.c.account_id).where(f.c.account_id == me, f.c.friend_id == other)
    ).first()
    if have is None:
        count = conn.execute(
            sa.select(sa.func.count()).select_from(f).where(f.c.account_id == me)
        ).scalar_one()
        if count >= limit:
            return None
        conn.execute(f.insert().values(account_id=me, friend_id=other, created_at=db.now()))
    back = conn.execute(
        sa.select(f.c.account_id).where(f.c.account_id == other, f.c.friend_id == me)
    ).first()
    return "friends" if back is not None else "asked"


def unfriend(conn: Connection, me: str, other: str) -> int:
    """Delete the friendship or request between two accounts (both ways); return the rows."""
    f = friends_t
    res = conn.execute(
        f.delete().where(
            sa.or_(
                sa.and_(f.c.account_id == me, f.c.friend_id == other),
                sa.and_(f.c.account_id == other, f.c.friend_id == me),
            )
        )
    )
    return int(res.rowcount or 0)


def are_friends(conn: Connection, a: str, b: str) -> bool:
    """Whether both accounts asked each other."""
    f = friends_t
    n = conn.execute(
        sa.select(sa.func.count())
        .select_from(f)
        .where(
            sa.or_(
                sa.and_(f.c.account_id == a, f.c.friend_id == b),
                sa.and_(f.c.account_id == b, f.c.friend_id == a),
            )
        )
    ).scalar_one()
    return int(n) == 2


# ----------------------------------------------------------------- in memory


@dataclass
class Invitation:
    """A player's invitation of a friend to a seat (kept in memory only)."""

    inviter: Member
    friend: Member
    table_id: str
    seat: int
    waiting: bool  # made while the table waited for its players
    at: float  # monotonic


class Invitations:
    """The invitations waiting, by the invited account: bounded, and each expiring."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.clock = clock
        self.by_friend: dict[str, list[Invitation]] = {}
        self._swept = clock()

    def check(self, inv: Invitation) -> None:
        """Check that there is room for ``inv`` (an earlier one of its inviter to its
        table, which it replaces, makes none).

        Raises:
            Refused: the friend has ``friend_invites_max`` invitations waiting (429).
        """
        n = len(self._others(inv))
        if n >= self.settings.friend_invites_max:
            raise Refused(
                429,
                "too_many_invites",
                f"{inv.friend.name} has {n} invitations waiting, this server's limit: "
                "try again later",
                "friend",
            )

    def add(self, inv: Invitation) -> None:
        """Keep an invitation, in place of its inviter's earlier one to its table.

        Raises:
            Refused: as :meth:`check`.
        """
        self.sweep()
        self.check(inv)
        self.by_friend[inv.friend.id] = [*self._others(inv), inv]

    def _others(self, inv: Invitation) -> list[Invitation]:
        return [
            i
            for i in self.by_friend.get(inv.friend.id, [])
            if not (i.inviter.id == inv.inviter.id and i.table_id == inv.table_id)
            and self.clock() - i.at <= self.settings.friend_invite_seconds
        ]

    def waiting(self, hub: Hub, friend: str) -> list[tuple[Invitation, LiveTable]]:
        """Return an account's invitations that still hold, with their tables.

        The others are forgotten: expired, a table gone or closed, a seat taken, a table
        started since an invitation made while it waited, a friend now at another seat.
        """
        now = self.clock()
        out: list[tuple[Invitation, LiveTable]] = []
        for inv in self.by_friend.get(friend, []):
            t = hub.tables.get(inv.table_id)
            if (
                now - inv.at > self.settings.friend_invite_seconds
                or t is None
                or t.closed
                or t.seats[inv.seat].kind not in ("open", "bot")
                or (inv.waiting and t.status_name() != "waiting")
                or t.holders.get(inv.friend.person, inv.seat) != inv.seat
            ):
                continue
            out.append((inv, t))
        if out:
            self.by_friend[friend] = [inv for inv, _ in out]
        else:
            self.by_friend.pop(friend, None)
        return out

    def drop_between(self, a: str, b: str) -> None:
        """Forget the invitations between two accounts (their friendship ended)."""
        for friend, other in ((a, b), (b, a)):
            left = [i for i in self.by_friend.get(friend, []) if i.inviter.id != other]
            if left:
                self.by_friend[friend] = left
            else:
                self.by_friend.pop(friend, None)

    def sweep(self) -> None:
        """Forget every expired invitation, at most once in :data:`SWEEP_SECONDS`."""
        now = self.clock()
        if now - self._swept < SWEEP_SECONDS:
            return
        self._swept = now
        limit = self.settings.friend_invite_seconds
        for friend in list(self.by_friend):
            left = [i for i in self.by_friend[friend] if now - i.at <= limit]
            if left:
                self.by_friend[friend] = left
            else:
                del self.by_friend[friend]


class Presence:
    """Who is online: websockets on the tables, and lobbies that asked lately."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.clock = clock
        self.seen: dict[str, float] = {}  # person -> the lobby's last poll
        self._prune_at = PRUNE_AT
        self._where: dict[str, list[tuple[LiveTable, int | None]]] = {}
        self._at = -PRESENCE_SECONDS

    def saw(self, person: str) -> None:
        """Note that ``person``'s lobby asked now (forgetting those long gone)."""
        now = self.clock()
        self.seen[person] = now
        if len(self.seen) > self._prune_at:
            gone = now - self.window()
            self.seen = {p: t for p, t in self.seen.items() if t >= gone}
            self._prune_at = max(PRUNE_AT, 2 * len(self.seen))

    def window(self) -> float:
        """Seconds a lobby's poll counts as online."""
        return POLLS_ONLINE * self.settings.friends_poll_seconds

    def where(self, hub: Hub) -> dict[str, list[tuple[LiveTable, int | None]]]:
        """Return each connected person's tables and seats (None: watching).

        Made from every table's connections at most once in :data:`PRESENCE_SECONDS`.
        """
        now = self.clock()
        if now - self._at >= PRESENCE_SECONDS:
            where: dict[str, list[tuple[LiveTable, int | None]]] = {}
            for t in list(hub.tables.values()):
                for c in list(t.conns):
                    if c.person is not None and not c.closed:
                        where.setdefault(c.person, []).append((t, c.seat))
            self._where = where
            self._at = now
        return self._where

    def in_lobby(self, person: str) -> bool:
        """Whether ``person``'s lobby asked for its friends lately."""
        seen = self.seen.get(person)
        return seen is not None and self.clock() - seen <= self.window()


def table_json(t: LiveTable) -> JSON:
    """Return what a friend's entry says of a table (nothing of its cards or links)."""
    return {
        "id": t.id,
        "title": t.title,
        "game": t.game,
        "variant": t.variant,
        "status": t.status_name(),
        "url": f"/table/{t.id}",
    }


def friend_json(hub: Hub, presence: Presence, me: Member, f: Member) -> JSON:
    """Return a friend's entry: online, and where (a table only if ``me`` may see it)."""
    places = presence.where(hub).get(f.person, [])
    # A seat before watching, a table the asker may see before one he may not.
    places = sorted(places, key=lambda p: (not p[0].can_view(me.person), p[1] is None))
    out: JSON = {"name": f.name, "online": False, "where": "offline", "table": None}
    out["playing"] = False
    if places:
        t, seat = places[0]
        out["online"] = True
        if t.can_view(me.person):
            out["where"] = "table"
            out["table"] = table_json(t)
            out["playing"] = seat is not None
        else:
            out["where"] = "private_table"
    elif presence.in_lobby(f.person):
        out["online"] = True
        out["where"] = "lobby"
    return out


# ---------------------------------------------------------------------- API


def router(settings: Settings) -> APIRouter:
    """Return the friends' routes, bounded by ``settings``."""
    r = APIRouter()
    invitations = Invitations(settings)
    presence = Presence(settings)
    invite_buckets = Buckets(settings.friend_invite_rate / 60.0, settings.friend_invite_rate)

    def hub_of(request: Request) -> Hub:
        hub: Hub = request.app.state.hub
        return hub

    def current(request: Request) -> Member:
        """Return the request's account.

        Raises:
            Refused: a guest (401 ``sign_in``).
        """
        account = account_of_scope(request.scope)
        if account is None:
            raise Refused(401, "sign_in", "sign in to have friends")
        return account

    async def named(request: Request, name: str, field: str | None) -> Member:
        key = name.strip()
        found = None
        if name_problem(key) is None:  # no account has another name: nothing to look up
            found = await hub_of(request).store.read(lambda c: account_by_name(c, key))
        if found is None:
            raise Refused(
                404, "no_player", f"no player is called {name.strip()[:NAME_MAX]!r}", field
            )
        return found

    async def answer(work: Any, status: int = 200) -> Response:
        try:
            return JSONResponse(await work, status_code=status)
        except Refused as e:
            return e.response()

    @r.get("/api/friends")
    async def list_friends(request: Request) -> Response:
        """Your friends (online, and where), the requests both ways, your invitations."""

        async def work() -> JSON:
            me = current(request)
            hub = hub_of(request)
            presence.saw(me.person)
            rel = await hub.store.read(lambda c: relations(c, me.id, settings.max_friends))
            friends = [friend_json(hub, presence, me, f) for f in rel.friends]
            friends.sort(key=lambda f: not f["online"])  # stable: by name within
            invites = [
                {
                    "from": inv.inviter.name,
                    "table": table_json(t),
                    "seat": inv.seat,
                    "seat_label": t.label(inv.seat),
                    "url": t.seat_url(t.seats[inv.seat]),
                    "expires_in": max(
                        0, round(settings.friend_invite_seconds - (invitations.clock() - inv.at))
                    ),
                }
                for inv, t in invitations.waiting(hub, me.id)
            ]
            return {
                "name": me.name,
                "friends": friends,
                "asked": [{"name": m.name} for m in rel.asked],
                "asking_you": [{"name": m.name} for m in rel.asking],
                "invites": invites,
                "limit": settings.max_friends,
                "poll_seconds": settings.friends_poll_seconds,
            }

        return await answer(work())

    @r.post("/api/friends")
    async def ask_friend(body: FriendBody, request: Request) -> Response:
        """Ask an account by user name (201); when it asked you too, you are friends."""

        async def work() -> JSON:
            me = current(request)
            other = await named(request, body.name, "name")
            if other.id == me.id:
                raise Refused(422, "yourself", "you cannot be your own friend", "name")
            store = hub_of(request).store
            status = await store.write(lambda c: ask(c, me.id, other.id, settings.max_friends))
            if status is None:
                raise Refused(
                    429,
                    "too_many_friends",
                    f"you have {settings.max_friends} friends and requests, this server's "
                    "limit: remove some first",
                    "name",
                )
            return {"friend": {"name": other.name, "status": status}}

        return await answer(work(), 201)

    @r.delete("/api/friends/{name}")
    async def remove_friend(name: str, request: Request) -> Response:
        """End a friendship, take back your request or refuse theirs (both ways)."""

        async def work() -> JSON:
            me = current(request)
            other = await named(request, name, None)
            rows = await hub_of(request).store.write(lambda c: unfriend(c, me.id, other.id))
            if not rows:
                raise Refused(
                    404, "not_friends", f"{other.name} is not your friend and asked nothing"
                )
            invitations.drop_between(me.id, other.id)
            return {"removed": other.name}

        return await answer(work())

    @r.post("/api/tables/{table_id}/invite", status_code=201)
    async def invite_friend(table_id: str, body: InviteBody, request: Request) -> Response:
        """Invite a mutual friend to an open seat or a bot's seat (a player of the table)."""

        async def work() -> JSON:
            me = current(request)
            hub = hub_of(request)
            token = request.headers.get("x-seat-token")
            t = await hub.get_table(table_id)
            if t is None or not t.can_view(me.person, token=token):
                raise Refused(404, "no_table", "no table has this id")
            if not t.is_player(me.person, token):
                raise Refused(403, "not_player", "only the table's players invite to its seats")
            if t.closed:
                raise Refused(409, "game_over", "the table is over: nobody joins it now")
            seat = body.seat
            if seat >= t.num_seats or t.seats[seat].kind == "dummy":
                raise Refused(422, "no_seat", f"seat {seat} cannot be taken", "seat")
            row = t.seats[seat]
            if row.kind == "person":
                raise Refused(
                    409, "seat_taken", f"{t.label(seat)} is taken: invite to an open seat", "seat"
                )
            friend = await named(request, body.friend, "friend")
            if friend.id == me.id:
                raise Refused(422, "yourself", "you cannot invite yourself", "friend")
            if not await hub.store.read(lambda c: are_friends(c, me.id, friend.id)):
                raise Refused(
                    403,
                    "not_friends",
                    f"{friend.name} is not your friend: you invite friends who asked you back",
                    "friend",
                )
            held = t.holders.get(friend.person)
            if held is not None and held != seat:
                raise Refused(
                    409,
                    "already_seated",
                    f"{friend.name} has played {t.label(held)} at this table: one person "
                    "plays one seat",
                    "friend",
                )
            inv = Invitation(
                me, friend, t.id, seat, t.status_name() == "waiting", invitations.clock()
            )
            invitations.check(inv)
            # The rate is taken last, so that a refused invitation costs nothing.
            wait = invite_buckets.take(me.id)
            if wait > 0:
                raise Refused(
                    429,
                    "rate_limited",
                    f"too many invitations: try again in {wait:.0f} s",
                    retry_after=wait,
                )
            invitations.add(inv)
            return {
                "invite": {
                    "friend": friend.name,
                    "seat": seat,
                    "seat_label": t.label(seat),
                    "expires_in": round(settings.friend_invite_seconds),
                }
            }

        return await answer(work(), 201)

    return r


__all__ = [
    "FriendBody",
    "Invitation",
    "Invitations",
    "InviteBody",
    "Member",
    "Presence",
    "Refused",
    "router",
]
