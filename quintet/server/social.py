"""What people do around the cards: chat, take-backs, claims, the turn clock, the draw
for partners, rematches and series.

The message handlers are :class:`Social` (a mixin of :class:`~quintet.server.live.Hub`);
the functions below work on one :class:`~quintet.server.livetable.LiveTable` with its
lock held. Every change goes as the rest of the server's: checked, stored, made, sent.

* **Chat**: plain text from seated players, bounded by the operator (``chat_length``
  characters, ``chat_rate`` lines a second per person, ``chat_max`` lines a table),
  stored, sent to every connection of the table (players and spectators), and kept with
  the record (its optional ``chat`` field).
* **Take-back**: the rule of the terminal's undo (:meth:`quintet.table.Table.undo`):
  everything since the asker's previous decision in the hand. Granted at once when no
  other person plays at the table, else put to the other people, who all must accept.
* **Claim**: every remaining trick for the claimant's side, checked exactly against
  every defence (:mod:`quintet.server.claims`, in the search workers). Guaranteed: played
  out at once; possible but not guaranteed: put to the opponents (bots refuse it);
  impossible: refused. An accepted claim is played out card by card, so the record is
  a complete record.
* **Turn clock**: a table's ``turn_seconds``; when a person's decision runs out of time
  the heuristic bot makes it, and the log says so.
* **Draw for partners** (a game of partners, at create): when the table starts, each
  player draws a card; the seats are arranged as the rules say and the first dealer is
  the highest card (rules §2; in the dummy game the lowest plays alone).
* **Rematch and series**: the same people in the same seats; the deal passes on (or, in
  the dummy game, the lone player moves to the left, rules §11), and the earlier games'
  results are kept with the series.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from quintet.cards import JOKER, card_str
from quintet.game import GameState
from quintet.games import GameInfo, find_game
from quintet.server import db
from quintet.server.claims import check_claim, claimable
from quintet.server.conn import Conn
from quintet.server.db import ChatLine, SeatRow, TableRow
from quintet.server.messages import (
    Answer,
    Chat,
    Claim,
    CreateTable,
    FieldError,
    Rematch,
    TakeBack,
)
from quintet.server.protocol import ProtocolError, dumps
from quintet.server.security import Buckets, hash_token
from quintet.server.settings import Settings

if TYPE_CHECKING:
    from quintet.server.livetable import LiveTable

log = logging.getLogger("quintet.server")

JSON = dict[str, Any]

#: What the signals mean unless the players agreed otherwise before play (rulebook 004,
#: docs/rules.md §20).
RULEBOOK_SIGNALS: dict[str, str] = {
    "up": "strong or high-value cards",
    "down": "weak or low-value cards",
    "ask": "asks the team mate to give a signal",
}


def _has_signals(info: GameInfo) -> bool:
    return "signal" in info.action_kinds


# ---------------------------------------------------------------- what is shown


def config_json(t: LiveTable) -> JSON:
    """Return the social part of a table's configuration (public)."""
    info = find_game(t.game)
    out: JSON = {
        "turn_seconds": t.social.get("turn_seconds"),
        "draw": bool(t.social.get("draw")),
        "first_dealer": t.first_dealer,
    }
    if _has_signals(info):
        out["signals"] = RULEBOOK_SIGNALS | dict(t.social.get("signals") or {})
    series = t.social.get("series")
    if series:
        out["series"] = series
    return out


def question_json(t: LiveTable) -> JSON | None:
    """Return the question put to the players, as everyone may see it (never its line)."""
    q = t.question
    if q is None:
        return None
    return {
        "n": q.n,
        "kind": q.kind,
        "by": q.by,
        "text": q.text,
        "ask": sorted(q.ask),
        "waiting": sorted(q.ask - q.accepted),
        "seconds_left": max(0.0, round(q.deadline - time.monotonic(), 1)),
    }


def state_json(t: LiveTable) -> JSON:
    """Return the ``social`` part of a state message (the same for every recipient)."""
    out: JSON = {"question": question_json(t), "clock": None, "rematch": None}
    left = clock_left(t)
    st = t.table.state
    if left is not None and st is not None:
        out["clock"] = {
            "seat": int(st.current_player()),
            "left": round(left, 1),
            "seconds": t.social.get("turn_seconds"),
        }
    rematch = t.social.get("rematch")
    if rematch:
        out["rematch"] = rematch
    drawn = t.social.get("drawn")
    if drawn:
        out["drawn"] = drawn
    out["chat_lines"] = len(t.chat)
    return out


# ------------------------------------------------------------------- the clock


def state_text(t: LiveTable) -> str:
    """Return :func:`state_json` encoded (kept while no question or clock can change it:
    then it follows from the chat's length alone)."""
    social = t.social
    if t.question is None and not (
        social.get("turn_seconds") or social.get("rematch") or social.get("drawn")
    ):
        key = len(t.chat)
        kept = t._social_text
        if kept is not None and kept[0] == key:
            return kept[1]
        text = dumps(state_json(t))
        t._social_text = (key, text)
        return text
    return dumps(state_json(t))


def clock_left(t: LiveTable) -> float | None:
    """Return the seconds left to the person to act, or None when no clock runs."""
    secs = t.social.get("turn_seconds")
    st = t.table.state
    if not secs or t.closed or t.question is not None or st is None or st.is_terminal():
        return None
    turn = st.current_player()
    if t._bot_level(turn) is not None:
        return None
    return float(secs) - (time.monotonic() - t.changed_at)


async def clock_ran_out(t: LiveTable, seq0: int) -> None:
    """When the person to act has run out of time, let the heuristic decide for him."""
    left = clock_left(t)
    if left is None or left > 0 or t.seq != seq0:
        return
    st = t.table.state
    turn = int(st.current_player())
    a = await t._decide("heuristic", turn, t.table.decision_seed(turn), "act")
    if a is None:
        return
    async with t.lock:
        if t.seq != seq0 or t.question is not None or t.closed:
            return
        if a not in t.table.state.legal_actions(turn):  # pragma: no cover - a bot bug
            return
        who = t.label(t.controller(turn))
        secs = t.social.get("turn_seconds")
        notice = t.notice(
            turn, "clock", f"{who}'s {secs} s ran out: the heuristic bot played for {t.label(turn)}"
        )
        if notice is not None:
            n = len(t.notices)
            await t.hub.store.write(lambda conn: db.insert_notice(conn, t.id, n, notice))
            t._add_notice(notice)
        await t.commit_action(turn, a)


# -------------------------------------------------------------------- the draw


def draw_cards(seed: int, seats: list[int], info: GameInfo) -> dict[int, int]:
    """Return the card each seat draws (seeded by the table; the joker is redrawn)."""
    rng = random.Random(f"{seed}:draw")
    pack = [c for c in info.deck if c != JOKER]
    cards = rng.sample(pack, len(seats))
    return dict(zip(seats, cards, strict=True))


def arrange(
    drawn: dict[int, int], lone_seat: int | None, dummy_seat: int | None, num_seats: int
) -> tuple[dict[int, int], int]:
    """Return where each drawer sits (old seat -> new seat) and the first dealer.

    Cards rank as in play (their numbers are the order of play). Four players: the two
    highest play together against the two lowest, and the highest deals first; he keeps
    his seat and his partner sits opposite. The dummy game: the lowest plays alone (at
    the lone seat) and deals first (rules §2).
    """
    order = sorted(drawn, key=lambda s: drawn[s], reverse=True)
    if lone_seat is not None and dummy_seat is not None:
        lone = order[-1]
        others = [s for s in range(num_seats) if s not in (lone_seat, dummy_seat)]
        rest = order[:-1]
        place = {lone: lone_seat}
        staying = [s for s in rest if s in others]
        free = [s for s in others if s not in staying]
        for s in rest:
            place[s] = s if s in staying else free.pop(0)
        return place, lone_seat
    high = order[0]
    partner = (high + 2) % num_seats
    place = {high: high, order[1]: partner}
    left = [s for s in range(num_seats) if s not in (high, partner)]
    low = order[2:]
    staying = [s for s in low if s in left]
    free = [s for s in left if s not in staying]
    for s in low:
        place[s] = s if s in staying else free.pop(0)
    return place, high


async def draw_if_asked(t: LiveTable) -> bool:
    """Draw for partners and the first deal if the table asked for it (lock held).

    Moves the seats (with their players, tokens and connections), stores them and the
    first dealer, and rebuilds the (empty) match. Returns whether a draw was made.
    """
    if not t.social.get("draw") or t.social.get("drawn") or t.table.match.hands:
        return False
    info = find_game(t.game)
    seats = [s.seat for s in t.seats if s.kind != "dummy"]
    drawn = draw_cards(t.seed, seats, info)
    place, dealer = arrange(drawn, t.lone_seat, t.dummy_seat, t.num_seats)
    old = {s.seat: s for s in t.seats}
    new_rows = list(t.seats)
    for src, dst in place.items():
        r = old[src]
        new_rows[dst] = SeatRow(
            dst, r.kind, r.level, r.name, r.token_hash, old[dst].invite, r.person
        )
    result: list[JSON] = [
        {"seat": place[s], "card": card_str(c), "was": s} for s, c in sorted(drawn.items())
    ]
    result.sort(key=lambda x: int(x["seat"]))
    t.social["drawn"] = result
    social = dict(t.social)
    holders = {p: place.get(s, s) for p, s in t.holders.items()}

    def job(conn: Any) -> None:
        for r in new_rows:
            db.update_seat(
                conn,
                t.id,
                r.seat,
                kind=r.kind,
                level=r.level,
                name=r.name,
                token_hash=r.token_hash,
                person=r.person,
            )
        for p, s in holders.items():
            conn.execute(
                db.holders_t.update()
                .where(db.holders_t.c.table_id == t.id, db.holders_t.c.person == p)
                .values(seat=s)
            )
        db.update_table(conn, t.id, first_dealer=dealer, social=social)

    await t.hub.store.write(job)
    t.seats = new_rows
    t.holders = holders
    moved = {c: place[s] for s, c in t.seat_conn.items() if s in place}
    t.seat_conn = {}
    for c, s in moved.items():
        c.seat = s
        c.reset_cursors()
        t.seat_conn[s] = c
        c.send({"type": "moved", "seat": s, "why": "the draw for partners"})
    t.first_dealer = dealer
    t.table = t._new_table()
    t._first_facts = None
    t.seats_version += 1
    log.info("table %s: partners drawn, seat %d deals first", t.id, dealer)
    return True


async def post_draw(t: LiveTable) -> None:
    """Put the draw in the public log (once the first hand is dealt)."""
    drawn = t.social.get("drawn") or []
    cards = ", ".join(f"{t.label(d['seat'])} {d['card']}" for d in drawn)
    text = f"The draw: {cards}; {t.label(t.table.state.dealer)} deals first"
    notice = t.notice(None, "draw", text)
    if notice is None:
        return
    n = len(t.notices)
    await t.hub.store.write(lambda conn: db.insert_notice(conn, t.id, n, notice))
    t._add_notice(notice)
    t.broadcast()


# ------------------------------------------------------------ sides and undo


def side_of(t: LiveTable, seat: int) -> list[int]:
    """Return the seats on ``seat``'s side in the hand in play (itself first)."""
    info = find_game(t.game)
    if info.partnerships:
        for pair in info.partnerships:
            if seat in pair:
                return [seat] + [s for s in pair if s != seat]
    q = getattr(t.table.state, "quintus", None)
    teams = info.teams_of(q if isinstance(q, int) else None)
    for team in teams or ():
        if seat in team:
            return [seat] + [s for s in team if s != seat]
    return [seat]


def _cut(state: GameState, player: int) -> int | None:
    """Return where the terminal's undo cuts the hand: the player's last decision."""
    history = state.history()
    for i in range(len(history) - 1, -1, -1):
        if state.controller(history[i][0]) == player:
            return i
    return None


async def take_back(t: LiveTable, seat: int) -> int:
    """Take back the actions since ``seat``'s previous decision (lock held); return how many."""
    st = t.table.state
    player = t.table.player_of(seat)
    cut = _cut(st, player)
    if cut is None:
        return 0
    removed = len(st.history()) - cut
    hand = len(t.table.match.hands) - 1
    n = t.takebacks
    await t.hub.store.write(lambda conn: db.take_back(conn, t.id, n, hand, cut, removed, seat))
    got = t.table.undo(seat)
    if got != removed:  # pragma: no cover - the same rule on both sides
        log.error("table %s: undo took back %d actions, not %d", t.id, got, removed)
    t.takebacks += 1
    t.log_epoch += 1
    t.seq += 1
    t.changed_at = time.monotonic()
    t.touch()
    t._log_key = None
    return removed


async def play_line(t: LiveTable, line: list[list[int]]) -> None:
    """Play out a claim's line (lock held): each action stored and made in turn."""
    for seat, a in line:
        st = t.table.state
        if st is None or st.is_terminal() or a not in st.legal_actions(seat):
            break
        await t.commit_action(seat, a)


# ------------------------------------------------------------------ questions


class Question:
    """A request put to some of the players: a take-back or a claim."""

    def __init__(
        self, n: int, kind: str, by: int, seq: int, ask: set[int], text: str, deadline: float
    ) -> None:
        self.n = n
        self.kind = kind
        self.by = by
        self.seq = seq
        self.ask = ask
        self.accepted: set[int] = set()
        self.text = text
        self.deadline = deadline
        self.line: list[list[int]] | None = None
        self.task: asyncio.Task[None] | None = None


# ------------------------------------------------------------------- handlers


class Social:
    """The social message handlers of :class:`~quintet.server.live.Hub` (a mixin)."""

    settings: Settings
    tables: dict[str, LiveTable]
    search_pool: Any
    chat_buckets: Buckets

    if TYPE_CHECKING:

        def _seated(self, conn: Conn, t: LiveTable) -> int: ...

        async def get_table(self, table_id: str) -> LiveTable | None: ...

        def check_create_limits(self, person: str, client: str | None) -> list[str]: ...

        async def insert_table(
            self, row: TableRow, keys: list[str], client: str | None
        ) -> LiveTable: ...

    def social_handlers(self) -> dict[type, Callable[[Conn, LiveTable, Any], Any]]:
        """Return the handlers of the social messages, by message class."""
        return {
            Chat: self.on_chat,
            TakeBack: self.on_takeback,
            Claim: self.on_claim,
            Answer: self.on_answer,
            Rematch: self.on_rematch,
        }

    def social_options(self, body: CreateTable, info: GameInfo) -> JSON:
        """Return a new table's social settings from its request.

        Raises:
            FieldError: a turn clock outside the server's bounds, a draw in a game without
                partners, signal meanings in a game without signals or for no signal.
        """
        out: JSON = {}
        s = self.settings
        if body.turn_seconds is not None:
            if not s.turn_seconds_min <= body.turn_seconds <= s.turn_seconds_max:
                raise FieldError(
                    "turn_seconds",
                    f"a turn clock is {s.turn_seconds_min} to {s.turn_seconds_max} seconds here",
                )
            out["turn_seconds"] = body.turn_seconds
        if body.draw:
            if not info.partnerships:
                raise FieldError("draw", f"{info.title} has no partners to draw for")
            out["draw"] = True
        if body.signals:
            if not _has_signals(info):
                raise FieldError("signals", f"{info.title} has no signals")
            for name in body.signals:
                if name not in RULEBOOK_SIGNALS:
                    names = ", ".join(RULEBOOK_SIGNALS)
                    raise FieldError(f"signals.{name[:16]}", f"the signals are {names}")
            out["signals"] = dict(body.signals)
        return out

    def send_chat_history(self, conn: Conn, t: LiveTable) -> None:
        """Send a newcomer the table's recent chat (nothing when there is none)."""
        lines = t.chat[-self.settings.chat_history :]
        if not lines:
            return
        conn.send({"type": "chat", "lines": [x.to_json() for x in lines], "history": True})

    # ------------------------------------------------------------------ chat

    async def on_chat(self, conn: Conn, t: LiveTable, msg: Chat) -> None:
        """``chat``: a line of plain text from a seated player, to everyone at the table."""
        if conn.seat is None:
            raise ProtocolError("not_player", "only the table's players chat")
        text = " ".join(msg.text.split())
        if not text or not text.isprintable():
            raise ProtocolError("bad_message", "'chat': text: printable characters, not empty")
        limit = self.settings.chat_length
        if len(text) > limit:
            raise ProtocolError("chat_too_long", f"a chat line is at most {limit} characters")
        wait = self.chat_buckets.take(f"person:{conn.person}" if conn.person else f"c{conn.id}")
        if wait > 0:
            raise ProtocolError("rate_limited", f"too many chat lines: wait {wait:.0f} s")
        async with t.lock:
            seat = self._seated(conn, t)
            if len(t.chat) >= self.settings.chat_max:
                raise ProtocolError("chat_full")
            line = ChatLine(
                len(t.chat),
                max(0, len(t.table.match.hands) - 1),
                seat,
                t.seats[seat].name or t.label(seat),
                text,
                db.now().isoformat(),
            )
            await t.hub.store.write(lambda c: db.insert_chat(c, t.id, line))
            t.chat.append(line)
            t.touch()
            out = {"type": "chat", "lines": [line.to_json()]}
            for c in list(t.conns):
                c.send(out)

    # ------------------------------------------------------------- requests

    def _count_request(self, t: LiveTable, seat: int, kind: str) -> None:
        """Count a request of this seat in this hand (at most the server's number).

        Raises:
            ProtocolError: too_many_requests.
        """
        hand = len(t.table.match.hands) - 1
        key = (hand, t.controller(seat), kind)
        limit = (
            self.settings.takebacks_per_hand
            if kind == "takeback"
            else self.settings.claims_per_hand
        )
        if t.requests.get(key, 0) >= limit:
            raise ProtocolError("too_many_requests", f"at most {limit} {kind}s a hand per seat")
        t.requests = {k: v for k, v in t.requests.items() if k[0] == hand}
        t.requests[key] = t.requests.get(key, 0) + 1

    def _in_hand(self, t: LiveTable) -> GameState:
        st = t.table.state
        if t.closed:
            raise ProtocolError("game_over")
        if st is None:
            raise ProtocolError("not_started")
        if st.is_terminal():
            raise ProtocolError("hand_over")
        if t.question is not None:
            raise ProtocolError("question_pending")
        return st  # type: ignore[no-any-return]

    def _ask(self, t: LiveTable, kind: str, by: int, ask: set[int], text: str) -> Question:
        t.questions_asked += 1
        q = Question(
            t.questions_asked,
            kind,
            by,
            t.seq,
            ask,
            text,
            time.monotonic() + self.settings.question_seconds,
        )
        t.question = q
        q.task = asyncio.create_task(self._expire(t, q), name=f"question-{t.id}-{q.n}")
        return q

    async def _expire(self, t: LiveTable, q: Question) -> None:
        await asyncio.sleep(max(0.0, q.deadline - time.monotonic()))
        async with t.lock:
            if t.question is q:
                await self._settle(t, q, False, "no answer in time")

    async def _settle(self, t: LiveTable, q: Question, granted: bool, why: str) -> None:
        """End a question (lock held): make what it asked if granted, say so, go on."""
        t.question = None
        if q.task is not None and q.task is not asyncio.current_task():
            q.task.cancel()
        by = t.label(q.by)
        if q.kind == "takeback":
            if granted:
                n = await take_back(t, q.by)
                await _say(t, q.by, f"{by} takes back {n} action{'s' if n != 1 else ''} ({why})")
            else:
                await _say(t, q.by, f"{by}'s take-back is refused ({why})")
        elif granted and q.line is not None:
            await _say(t, q.by, f"{by}'s claim of the rest of the hand is accepted ({why})")
            await play_line(t, q.line)
        else:
            await _say(t, q.by, f"{by}'s claim is refused ({why})")
        t.changed_at = time.monotonic()  # the clock starts again
        t.broadcast()
        t.wake.set()

    def _others(self, t: LiveTable, seat: int, among: list[int] | None = None) -> set[int]:
        """Return the seats of the people at the table other than ``seat``'s player."""
        me = t.controller(seat)
        seats = range(t.num_seats) if among is None else among
        return {
            t.controller(s)
            for s in seats
            if t.controller(s) != me and t.seats[t.controller(s)].kind == "person"
        }

    async def on_takeback(self, conn: Conn, t: LiveTable, msg: TakeBack) -> None:
        """``takeback``: ask to take back everything since your previous decision."""
        async with t.lock:
            seat = self._seated(conn, t)
            st = self._in_hand(t)
            if _cut(st, t.table.player_of(seat)) is None:
                raise ProtocolError("nothing_to_take_back")
            self._count_request(t, seat, "takeback")
            others = self._others(t, seat)
            label = t.label(seat)
            if not others:
                n = await take_back(t, seat)
                await _say(t, seat, f"{label} takes back {n} action{'s' if n != 1 else ''}")
                t.broadcast()
                t.wake.set()
                return
            self._ask(t, "takeback", seat, others, f"{label} asks to take back a decision")
            t.broadcast()

    async def on_claim(self, conn: Conn, t: LiveTable, msg: Claim) -> None:
        """``claim``: claim every remaining trick for your side (checked in a worker)."""
        async with t.lock:
            seat = self._seated(conn, t)
            st = self._in_hand(t)
            if not claimable(st):
                raise ProtocolError("no_claim", "a claim is made during trick play")
            self._count_request(t, seat, "claim")
            seq0 = t.seq
            side = side_of(t, seat)
            state = st.clone()
        owner = f"client:{conn.client}" if conn.client is not None else t.owner
        try:
            res = await self.search_pool.run(
                owner, check_claim, state, side, self.settings.claim_nodes
            )
            found: JSON = res.value
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a search past its limit, a crashed worker
            log.warning("table %s: claim check failed: %r", t.id, e)
            found = {"guaranteed": False, "possible": False, "line": None, "gave_up": True}
        async with t.lock:
            if conn.table is not t or conn.seat != seat:
                return
            if t.seq != seq0 or t.question is not None or t.closed:
                raise ProtocolError("stale", "the table moved on while your claim was checked")
            label = t.label(seat)
            names = " and ".join(t.label(s) for s in side)
            if not found["possible"]:
                why = (
                    "too many cards are left for the server to check it: claim later"
                    if found["gave_up"]
                    else f"no play of the cards gives {names} every trick"
                )
                raise ProtocolError("no_claim", why)

            def reply(outcome: str, text: str) -> None:
                conn.send({"type": "claim_result", "ref": msg.id, "outcome": outcome, "text": text})

            if found["guaranteed"]:
                text = (
                    f"{label} claims the rest of the hand for {names}: every trick against "
                    "every defence, accepted"
                )
                reply("accepted", text)
                await _say(t, seat, text)
                await play_line(t, found["line"])
                t.wake.set()
                return
            opponents = [s for s in range(t.num_seats) if s not in side]
            people = self._others(t, seat, opponents)
            if not people:
                text = (
                    f"{label} claims the rest of the hand for {names}; the cards do not "
                    "guarantee it and the bots refuse"
                )
                reply("refused", text)
                await _say(t, seat, text)
                t.broadcast()
                return
            q = self._ask(
                t, "claim", seat, people, f"{label} claims every remaining trick for {names}"
            )
            q.line = found["line"]
            reply("offered", f"{q.text}: the cards do not guarantee it, so the others are asked")
            t.broadcast()

    async def on_answer(self, conn: Conn, t: LiveTable, msg: Answer) -> None:
        """``answer``: accept or refuse the question put to you."""
        async with t.lock:
            seat = self._seated(conn, t)
            q = t.question
            if q is None or q.n != msg.question or seat not in q.ask:
                raise ProtocolError("no_question")
            if not msg.accept:
                await self._settle(t, q, False, f"{t.label(seat)} refuses")
                return
            q.accepted.add(seat)
            if q.accepted >= q.ask:
                await self._settle(t, q, True, "everyone asked accepts")
            else:
                t.broadcast()

    # -------------------------------------------------------------- rematch

    async def on_rematch(self, conn: Conn, t: LiveTable, msg: Rematch) -> None:
        """``rematch``: the same people and seats again (rotated as the rules say)."""
        async with t.lock:
            seat = self._seated(conn, t)
            if t.status != "finished":
                raise ProtocolError("not_over", "a rematch follows a finished match")
            target = t.social.get("rematch")
            if target is None:
                await self._make_rematch(conn, t)
                return
        # Asked again (a reload): a new token for the same person's seat there.
        new_t = await self.get_table(target["id"])
        if new_t is None:
            raise ProtocolError("no_table")
        new_seat = _new_seat(t, seat)
        async with new_t.lock:
            row = new_t.seats[new_seat]
            token = None
            if row.kind == "person" and row.person == conn.person and not new_t.closed:
                token = secrets.token_urlsafe(24)
                await new_t.save_seat(
                    SeatRow(
                        row.seat,
                        row.kind,
                        row.level,
                        row.name,
                        hash_token(token),
                        row.invite,
                        row.person,
                    )
                )
        conn.send(_rematch_msg(new_t, new_seat if token else None, token, msg.id))

    async def _make_rematch(self, conn: Conn, t: LiveTable) -> LiveTable:
        """Create the rematch of a finished table (lock held) and tell its connections."""
        info = find_game(t.game)
        person = conn.person or ""
        try:
            keys = self.check_create_limits(person, conn.client)
        except FieldError as e:
            raise ProtocolError("too_many_requests", e.message) from None
        lone = t.lone_seat
        new_lone = None if lone is None else (lone + 1) % t.num_seats
        new_dummy = info.dummy_of(new_lone)
        tokens: dict[int, str] = {}
        seats: list[SeatRow] = []
        holders: dict[str, int] = {}
        for s in range(t.num_seats):
            invite = secrets.token_urlsafe(12)
            if s == new_dummy:
                seats.append(SeatRow(s, "dummy", None, "dummy", None, invite))
                continue
            old = t.seats[_old_seat(t, s, new_dummy)]
            if old.kind == "person" and old.person is not None:
                tok = secrets.token_urlsafe(24)
                tokens[s] = tok
                seats.append(
                    SeatRow(s, "person", None, old.name, hash_token(tok), invite, old.person)
                )
                holders[old.person] = s
            elif old.kind == "bot":
                seats.append(SeatRow(s, "bot", old.level, old.name, None, invite))
            else:
                seats.append(SeatRow(s, "open", None, None, None, invite))
        last = t.table.state
        first_dealer = (int(last.dealer) + 1) % t.num_seats if last is not None else 0
        series = dict(t.social.get("series") or {"id": t.id, "number": 1, "games": []})
        games = [
            *series.get("games", []),
            {"table": t.id, "lone_seat": t.lone_seat, "result": t.result},
        ]
        series = {
            "id": series.get("id", t.id),
            "number": int(series.get("number", 1)) + 1,
            "games": games[-self.settings.series_keep :],
        }
        social: JSON = {k: v for k, v in t.social.items() if k in ("turn_seconds", "signals")}
        social["series"] = series
        row = TableRow(
            id=secrets.token_urlsafe(9),
            game=t.game,
            variant=t.variant,
            options=dict(t.options),
            lone_seat=new_lone,
            seed=secrets.randbits(62),
            public=t.public,
            title=t.title,
            status="waiting",
            hands_dealt=0,
            created_at=db.now(),
            finished_at=None,
            result=None,
            seats=seats,
            actions=[],
            view_key=secrets.token_urlsafe(12),
            creator=t.creator,
            holders=holders,
            first_dealer=first_dealer,
            social=social,
            rated=t.rated,  # the same accounts and rated bots: rated as the match was
        )
        new_t = await self.insert_table(row, keys, conn.client)
        link = {"id": new_t.id, "url": new_t.spectate_url()}
        t.social["rematch"] = link
        kept = dict(t.social)
        await t.hub.store.write(lambda c: db.update_table(c, t.id, social=kept))
        log.info("table %s: rematch %s", t.id, new_t.id)
        for c in list(t.conns):
            s_new = None if c.seat is None else _new_seat(t, c.seat)
            mine = (
                s_new is not None
                and s_new in tokens
                and c.person is not None
                and new_t.seats[s_new].person == c.person
            )
            c.send(
                _rematch_msg(
                    new_t, s_new if mine else None, tokens.get(s_new or 0) if mine else None
                )
            )
        t.broadcast()
        return new_t


def _old_seat(t: LiveTable, new_seat: int, new_dummy: int | None) -> int:
    """Return the old seat of whoever sits at ``new_seat`` in the rematch.

    The same seats, except in the dummy game: the lone player moves to the left, so the
    new dummy's seat was a player's, who moves to the old dummy's seat (rules §11).
    """
    old_dummy = t.dummy_seat
    if old_dummy is not None and new_dummy is not None and new_seat == old_dummy:
        return new_dummy
    return new_seat


def _new_seat(t: LiveTable, old_seat: int) -> int:
    """Return where the player of ``old_seat`` sits in the rematch."""
    lone = t.lone_seat
    if lone is None or t.dummy_seat is None:
        return old_seat
    new_dummy = find_game(t.game).dummy_of((lone + 1) % t.num_seats)
    return t.dummy_seat if old_seat == new_dummy else old_seat


def _rematch_msg(new_t: LiveTable, seat: int | None, token: str | None, ref: Any = None) -> JSON:
    out: JSON = {"type": "rematch", "table": new_t.id, "url": new_t.spectate_url()}
    if token is not None:
        out.update({"seat": seat, "token": token, "url": f"/table/{new_t.id}"})
    if ref is not None:
        out["ref"] = ref
    return out


async def _say(t: LiveTable, seat: int | None, text: str) -> None:
    """Put a line in the public log (lock held), if a hand is being played."""
    notice = t.notice(seat, "social", text)
    if notice is None:
        return
    n = len(t.notices)
    await t.hub.store.write(lambda conn: db.insert_notice(conn, t.id, n, notice))
    t._add_notice(notice)


__all__ = [
    "RULEBOOK_SIGNALS",
    "Question",
    "Social",
    "arrange",
    "config_json",
    "draw_cards",
    "side_of",
    "state_json",
    "state_text",
]
