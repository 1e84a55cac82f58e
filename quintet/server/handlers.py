r"""The websocket's message handlers: each client message, checked and answered.

:class:`Handlers` is the part of :class:`~quintet.server.live.Hub` that answers
messages. Each message was parsed into its model (:mod:`quintet.server.messages`)
before a handler runs; a handler that changes a table checks again, under the table's
lock, that the connection still holds its seat. Refusals are :class:`ProtocolError`\ s,
sent to the connection that caused them only.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from quintet.actions import Action, action_from_json, parse_action
from quintet.errors import InvalidActionError
from quintet.game import GameState, IllegalReason, Observation
from quintet.server import ratings, views
from quintet.server.conn import Conn
from quintet.server.db import SeatRow
from quintet.server.livetable import LiveTable
from quintet.server.messages import (
    Act,
    ClientMessage,
    FieldError,
    Hello,
    Hint,
    Join,
    Leave,
    Next,
    Ping,
    Replace,
    State,
    parse_message,
    ref_of_raw,
)
from quintet.server.protocol import PROTOCOL_VERSION, ProtocolError, error
from quintet.server.security import hash_token, same_code
from quintet.server.settings import Settings

log = logging.getLogger("quintet.server")

JSON = dict[str, Any]


class Handlers:
    """The message handlers of :class:`~quintet.server.live.Hub` (a mixin)."""

    settings: Settings
    tables: dict[str, LiveTable]
    _handlers: dict[type, Callable[[Conn, LiveTable, Any], Any]]

    if TYPE_CHECKING:

        async def get_table(self, table_id: str) -> LiveTable | None: ...

        def check_level(self, level: str, field: str) -> str: ...

        def send_chat_history(self, conn: Conn, t: LiveTable) -> None: ...

        async def run_bot(
            self,
            owner: str,
            level: str,
            state: GameState,
            seat: int,
            seed: str,
            kind: str,
            spec: str | None = None,
        ) -> tuple[Action | None, str | None]: ...

        async def run_hint(
            self,
            owner: str,
            level: str,
            state: GameState,
            seat: int,
            seed: str,
            kind: str,
            spec: str | None = None,
        ) -> tuple[Action | None, str | None, str | None]: ...

    async def handle(self, conn: Conn, text: str) -> None:
        """Answer one client message; errors go to this connection only."""
        msg: ClientMessage | None = None
        try:
            if not conn.allow():
                raise ProtocolError("rate_limited")
            msg = parse_message(text)
            if isinstance(msg, Ping):
                conn.send({"type": "pong", "ref": msg.id, "t": msg.t})
            elif isinstance(msg, Hello):
                await self.on_hello(conn, msg)
            else:
                t = conn.table
                if t is None:
                    raise ProtocolError("not_joined")
                if isinstance(msg, State):
                    conn.send(t.full_state(conn))
                else:
                    await self._handlers[type(msg)](conn, t, msg)
        except ProtocolError as e:
            ref = msg.id if msg is not None else ref_of_raw(text)
            conn.send(error(e.code, e.message, ref))
        except Exception:
            log.exception("connection %d: message failed", conn.id)
            conn.send(error("server_error", None, None if msg is None else msg.id))

    def detach(self, conn: Conn) -> None:
        """Take a connection off its table (and drop the hint being worked out for it)."""
        drop_hint(conn)
        t = conn.table
        if t is None:
            return
        t.conns.discard(conn)
        seat = conn.seat
        conn.table = None
        conn.seat = None
        if seat is not None and t.seat_conn.get(seat) is conn:
            del t.seat_conn[seat]
            t.ready.discard(seat)
            t.touch()  # an abandoned table's clock starts when its last player goes
            t.seats_changed()
        if t.closed and not t.conns:
            t.stop_bots()
            self.tables.pop(t.id, None)

    def disconnect(self, conn: Conn) -> None:
        """Forget a closed connection."""
        conn.closed = True
        self.detach(conn)

    def _hold(self, t: LiveTable, person: str | None, seat: int) -> str | None:
        """Check that ``person`` may hold ``seat``; return them if it is their first seat.

        Raises:
            ProtocolError: no_person (no cookie) or already_seated (they held another).
        """
        if person is None:
            raise ProtocolError("no_person")
        held = t.holders.get(person)
        if held is not None and held != seat:
            raise ProtocolError(
                "already_seated",
                f"you have played {t.label(held)} at this table: one person plays one seat",
            )
        return person if held is None else None

    def _seated(self, conn: Conn, t: LiveTable) -> int:
        """Return the seat ``conn`` holds at ``t`` now (call with the table's lock held).

        Checked again under the lock: another tab may have taken the seat over while
        this message waited for it.

        Raises:
            ProtocolError: not_player.
        """
        seat = conn.seat
        if seat is None or t.seat_conn.get(seat) is not conn or conn.table is not t:
            raise ProtocolError("not_player")
        return seat

    def _take_over(self, t: LiveTable, seat: int, conn: Conn) -> None:
        """Give ``seat``'s connection to ``conn``; the one holding it is told and closed."""
        old = t.seat_conn.get(seat)
        if old is not None and old is not conn:
            drop_hint(old)
            old.send(error("taken_over", "this seat was taken over by another connection"))
            t.conns.discard(old)
            old.table = None
            old.seat = None
            old.close(4001, "taken over")
        t.seat_conn[seat] = conn

    async def on_hello(self, conn: Conn, msg: Hello) -> None:
        """``hello``: watch a table, or take back a seat with its token."""
        if msg.v is not None and msg.v != PROTOCOL_VERSION:
            raise ProtocolError(
                "bad_version", f"this server speaks protocol version {PROTOCOL_VERSION}"
            )
        t = await self.get_table(msg.table)
        if t is None or not t.can_view(conn.person, msg.key, msg.invite, msg.token):
            # A private table answers as if it did not exist.
            raise ProtocolError("no_table", f"no table has the id {msg.table[:40]!r}")
        if msg.token is not None and t.seat_of_token(msg.token) is None:
            raise ProtocolError("bad_token")
        if msg.token is not None and t.rated and not t.closed:
            await ratings.seat_account(t, conn.person)  # rated: accounts only
        self.detach(conn)
        async with t.lock:
            seat = None
            if msg.token is not None:
                # Looked up again: the seat may have changed hands while we waited.
                seat = t.seat_of_token(msg.token)
                if seat is None or t.seats[seat].kind != "person":
                    raise ProtocolError("bad_token")
                first = self._hold(t, conn.person, seat)
                row = t.seats[seat]
                if not t.closed and (first is not None or row.person != conn.person):
                    text = f"{t.label(seat)} is now played from another browser"
                    notice = t.notice(seat, "seat", text) if row.person != conn.person else None
                    new = SeatRow(
                        seat, row.kind, row.level, row.name, row.token_hash, row.invite, conn.person
                    )
                    await t.save_seat(new, holder=first, notice=notice)
                self._take_over(t, seat, conn)
                t.touch()
            elif sum(1 for c in t.conns if c.seat is None) >= self.settings.max_spectators:
                raise ProtocolError("full")
            conn.table = t
            conn.seat = seat
            conn.reset_cursors()
            t.conns.add(conn)
            conn.send(
                {
                    "type": "welcome",
                    "v": PROTOCOL_VERSION,
                    "ref": msg.id,
                    "table": t.config_json(),
                    "seat": seat,
                    "role": "spectator" if seat is None else "player",
                    "name": None if seat is None else t.seats[seat].name,
                }
            )
            if seat is not None:
                t.seats_changed()  # everyone sees the player connected
            else:
                conn.send(t.full_state(conn))
            self.send_chat_history(conn, t)
            if t.ready_for_next():
                await t.deal()

    async def on_join(self, conn: Conn, t: LiveTable, msg: Join) -> None:
        """``join``: take an open seat (or a bot's, with its invite) with a display name."""
        seat = msg.seat
        if conn.seat is not None:
            raise ProtocolError("already_seated", "leave your seat first")
        # A rated table's seats are taken by accounts, under the account's name.
        name = (await ratings.seat_account(t, conn.person)).name if t.rated else msg.name
        async with t.lock:
            if conn.seat is not None or conn.table is not t:
                raise ProtocolError("already_seated", "leave your seat first")
            if t.closed:
                raise ProtocolError("game_over")
            if not 0 <= seat < t.num_seats or t.seats[seat].kind == "dummy":
                raise ProtocolError("no_seat", f"seat {seat} cannot be taken")
            row = t.seats[seat]
            if row.kind == "person" and (row.person != conn.person or conn.person is None):
                raise ProtocolError("seat_taken")
            first = self._hold(t, conn.person, seat)
            returning = first is None  # this person held this very seat before
            # A bot's seat is taken only with its invite (even by the person who once
            # held it: he gave it up); an open seat of a private table by its invite or
            # by the person who held it.
            need = row.kind == "bot" or (not t.public and not returning)
            if need and not same_code(msg.invite, row.invite):
                why = "a bot's seat is taken with its invite link" if row.kind == "bot" else None
                raise ProtocolError("bad_invite", why)
            token = secrets.token_urlsafe(24)
            tok = hash_token(token)
            new = SeatRow(seat, "person", None, name, tok, row.invite, conn.person)
            before = f"the {row.level} bot" if row.kind == "bot" else row.name
            text = f"{name} takes over {t.label(seat)}" + (f" from {before}" if before else "")
            notice = t.notice(seat, "seat", text) if row.person != conn.person else None
            await t.save_seat(new, holder=first, notice=notice)
            self._take_over(t, seat, conn)
            t.ready.discard(seat)
            conn.seat = seat
            conn.reset_cursors()
            log.info("table %s: seat %d taken", t.id, seat)
            conn.send({"type": "joined", "ref": msg.id, "seat": seat, "token": token})
            t.seats_changed()
            await t.maybe_first_deal()
        t.wake.set()

    async def on_leave(self, conn: Conn, t: LiveTable, msg: Leave) -> None:
        """``leave``: give up the seat (it becomes open); stay as a spectator."""
        async with t.lock:
            seat = self._seated(conn, t)
            if t.closed:
                raise ProtocolError("game_over", "the match is over: its seats stay as they were")
            row = t.seats[seat]
            new = SeatRow(seat, "open", None, None, None, row.invite)
            notice = t.notice(seat, "seat", f"{row.name} leaves {t.label(seat)}")
            await t.save_seat(new, notice=notice)
            if t.seat_conn.get(seat) is conn:
                del t.seat_conn[seat]
            t.ready.discard(seat)
            drop_hint(conn)
            conn.seat = None
            conn.reset_cursors()
            log.info("table %s: seat %d left", t.id, seat)
            conn.send({"type": "left", "ref": msg.id, "seat": seat})
            t.seats_changed()
            if t.ready_for_next():
                await t.deal()

    async def on_replace(self, conn: Conn, t: LiveTable, msg: Replace) -> None:
        """``replace``: a seated player puts a bot in an open seat or an absent player's."""
        if conn.seat is None:
            raise ProtocolError("not_player")
        seat = msg.seat
        try:
            level = self.check_level(msg.level or "heuristic", "level")
        except FieldError as e:
            raise ProtocolError("bad_level", e.message) from None
        if t.rated:
            ratings.check_rated_level(t, level)
        async with t.lock:
            self._seated(conn, t)
            if t.closed:
                raise ProtocolError("game_over")
            if not 0 <= seat < t.num_seats or t.seats[seat].kind in ("dummy", "bot"):
                raise ProtocolError("no_seat", f"seat {seat} has no player to replace")
            if t.connected(seat):
                raise ProtocolError("seat_present")
            row = t.seats[seat]
            new = SeatRow(seat, "bot", level, f"{level} bot", None, row.invite)
            notice = t.notice(seat, "seat", f"a {level} bot takes over {t.label(seat)}")
            await t.save_seat(new, notice=notice)
            t.ready.discard(seat)
            log.info("table %s: seat %d given to a %s bot", t.id, seat, level)
            t.seats_changed()
            await t.maybe_first_deal()
            if t.ready_for_next():
                await t.deal()
        t.wake.set()

    async def on_act(self, conn: Conn, t: LiveTable, msg: Act) -> None:
        """``act``: take an action for a seat this connection decides for."""
        async with t.lock:
            mine = self._seated(conn, t)
            state = t.table.state
            if t.closed:
                raise ProtocolError("game_over")
            if state is None:
                raise ProtocolError("not_started")
            if state.is_terminal():
                raise ProtocolError("hand_over", "the hand is over: send next for the next hand")
            if msg.expect is not None and msg.expect != t.seq:
                raise ProtocolError("stale", f"the table is at seq {t.seq}, not {msg.expect}")
            if t.question is not None:
                raise ProtocolError("question_pending", f"{t.question.text}: waiting for answers")
            controls = t.controls(mine)
            seat, a = parse_client_action(msg.action, t.num_seats, controls, state)
            if seat not in controls:
                raise ProtocolError("not_your_seat", f"you do not decide for seat {seat}")
            try:
                a = state.parse(a)
            except InvalidActionError as e:
                raise ProtocolError("invalid_action", str(e)) from None
            if a not in state.legal_actions(seat):
                why = fit_for(state.illegal_reason(a, seat), t.observation(mine))
                if not state.legal_actions(seat):
                    raise ProtocolError("not_your_turn", why)
                raise ProtocolError("illegal", why)
            await t.commit_action(seat, a)

    async def on_next(self, conn: Conn, t: LiveTable, msg: Next) -> None:
        """``next``: this player is ready for the next hand."""
        async with t.lock:
            seat = self._seated(conn, t)
            st = t.table.state
            if st is None or not st.is_terminal() or t.match_over() or t.closed:
                raise ProtocolError("not_ready")
            t.ready.add(seat)
            if t.ready_for_next():
                await t.deal()
            else:
                t.broadcast()

    async def on_hint(self, conn: Conn, t: LiveTable, msg: Hint) -> None:
        """``hint``: what the hint bot would do for this player's seat (one at a time).

        The hint bot is the operator's ``hint_level`` (``pimc`` by default) with the
        operator's hint budget, never anything the client says; when it fails the
        heuristic's suggestion is sent, and ``level`` says so. The hint is worked out in a
        task of its own, so the connection is answered meanwhile; a second ``hint``
        before the first is answered is ``busy``.
        """
        if conn.seat is None or t.seat_conn.get(conn.seat) is not conn:
            raise ProtocolError("not_player")
        if conn.hinting:
            raise ProtocolError("busy", "a hint is being worked out for you")
        st = t.table.state
        if st is None or st.is_terminal() or t.closed:
            raise ProtocolError("nothing_to_do")
        seq = t.seq
        turn = st.current_player()
        seats = [s for s in t.controls(conn.seat) if st.legal_actions(s)]
        if not seats:
            raise ProtocolError("nothing_to_do")
        seat = turn if turn in seats else seats[0]
        kind = "act" if seat == turn else "signal"
        level = self.settings.hint_level
        spec = self.settings.hint_spec()
        seed = f"{secrets.randbits(32)}:hint"
        state = st.clone()

        mine = conn.seat
        # The asker's share of the workers, not the table creator's.
        owner = f"client:{conn.client}" if conn.client is not None else t.owner

        async def work() -> None:
            try:
                a, reason, failure = await self.run_hint(
                    owner, level, state, seat, seed, kind, spec
                )
            except Exception:
                log.exception("connection %d: hint failed", conn.id)
                conn.send(error("server_error", None, msg.id))
                return
            if conn.table is not t or conn.seat != mine:
                return  # the player left, or went to another table, meanwhile
            used = level
            if failure is not None:
                log.warning(
                    "connection %d: the %s hint %s: the heuristic's", conn.id, level, failure
                )
                used = "heuristic"
            if a is None and kind == "act":
                a, reason = state.legal_actions(seat)[0], None
            out: JSON = {
                "type": "hint",
                "ref": msg.id,
                "table": t.id,
                "seq": seq,
                "seat": seat,
                "level": used,
            }
            if a is None:
                out.update({"action": None, "text": "no signal"})
            else:
                out.update(views.action_text(seat, a))
            out["reason"] = reason  # the bot's why, in one sentence (None: it gives none)
            conn.send(out)

        conn.hint_task = asyncio.create_task(work(), name=f"hint-{conn.id}")


def drop_hint(conn: Conn) -> None:
    """Cancel the hint being worked out for ``conn``, if any."""
    if conn.hint_task is not None:
        conn.hint_task.cancel()
        conn.hint_task = None


def parse_client_action(
    raw: Any, num_seats: int, controls: tuple[int, ...], state: GameState
) -> tuple[int, Action]:
    """Return ``(seat, action)`` from an ``act`` message's ``action``.

    The action is a record action object (``{"type": "play", "card": "AS"}``; ``seat``
    optional) or its text form (``"AS"``, ``"bid 40"``). Without a seat it is the seat
    to act if this player decides for it, else the player's own seat.

    Raises:
        ProtocolError: bad_message or invalid_action.
    """
    turn = state.current_player()
    default = turn if turn in controls else controls[0]
    try:
        if isinstance(raw, str):
            if len(raw) > 40:
                raise ProtocolError("invalid_action", "an action is a few words")
            return default, parse_action(raw)
        if isinstance(raw, dict):
            obj = dict(raw)
            if "seat" not in obj or obj["seat"] is None:
                obj["seat"] = default
            return action_from_json(obj, num_seats)
    except InvalidActionError as e:
        raise ProtocolError("invalid_action", str(e)) from None
    raise ProtocolError("bad_message", "'act' needs an 'action' object or text")


def fit_for(reason: IllegalReason, obs: Observation) -> str:
    """Return an engine's reason in words, or plain words if it shows a card ``obs`` hides.

    The engine says which hand cards its words name (``reason.shows``); a player is
    told them only if every one is in a hand he may see.
    """
    visible = 0
    for m in obs.hands:
        if m is not None:
            visible |= m
    if reason.shows & ~visible:
        return "the rules do not allow this action now"
    return reason.text


__all__ = ["Handlers", "fit_for", "parse_client_action"]
