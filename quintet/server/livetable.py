"""One table in play: the match, its seats and who held them, its connections, its bots.

A :class:`LiveTable` holds a :class:`quintet.table.Table` (the match), its seats, every
person who has held one (:attr:`LiveTable.holders`), the public log's notices and the
connections watching it. Every change goes the same way, under the table's lock: check
it against the engine and the seating rules (nothing changes if it is refused), store it
(the :class:`~quintet.server.db.Store` commits before returning), make it in memory,
then send every connection its own ``state`` message, built from its seat's observation.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from quintet.actions import Action, action_str
from quintet.game import GameState, Observation
from quintet.games import find_game
from quintet.record import Record, record_from_match, score
from quintet.server import db, results, social, views
from quintet.server.conn import Conn
from quintet.server.db import CLOSED, ChatLine, Notice, SeatRow, TableRow
from quintet.server.protocol import PROTOCOL_VERSION, dumps
from quintet.server.security import hash_token, same_code
from quintet.table import Table

if TYPE_CHECKING:
    from quintet.server.live import Hub

log = logging.getLogger("quintet.server")

JSON = dict[str, Any]


class LiveTable:
    """A table in memory: the match, the seats and their holders, connections, bots."""

    def __init__(self, hub: Hub, row: TableRow) -> None:
        self.hub = hub
        self.id = row.id
        self.game = row.game
        self.variant = row.variant
        self.options = row.options
        self.lone_seat = row.lone_seat
        self._dummy_seat = find_game(self.game).dummy_of(self.lone_seat)
        self.seed = row.seed
        self.public = row.public
        self.title = row.title
        self.status = row.status
        self.view_key = row.view_key
        self.creator = row.creator
        self.rated = row.rated  # its result changes its players' ratings (ratings.py)
        #: Every person who has held a seat of this table: person id -> seat.
        self.holders: dict[str, int] = dict(row.holders)
        self.notices: list[Notice] = list(row.notices)
        # SQLite gives back naive datetimes (UTC): make them aware like new tables' so
        # the lobby can sort resumed and new tables together.
        self.created_at = db._utc(row.created_at)
        self.finished_at = None if row.finished_at is None else db._utc(row.finished_at)
        active = row.last_active or self.created_at
        #: When the table last changed (an action, a deal, a seat), on the wall clock.
        self.last_active = db._utc(active).timestamp()
        self.result: Any = row.result
        self.seats: list[SeatRow] = sorted(row.seats, key=lambda s: s.seat)
        self.first_dealer = row.first_dealer
        #: The social settings: ``turn_seconds``, ``signals``, ``draw``/``drawn``,
        #: ``series``, ``rematch`` (see :mod:`quintet.server.social`).
        self.social: JSON = dict(row.social or {})
        self.chat: list[ChatLine] = list(row.chat)
        self.takebacks = row.takebacks  # take-backs stored (they number the rows)
        self.log_epoch = 0  # counts the take-backs made here: the log is sent again whole
        self.table = self._new_table()
        self.seq = 0
        self._replay(row)
        self.seq += row.lost_seq
        #: The question put to the players (a take-back or a claim), or None.
        self.question: Any = None
        self.questions_asked = 0
        #: Requests made this hand, by (hand, seat, kind).
        self.requests: dict[tuple[int, int, str], int] = {}
        self._first_facts: JSON | None = None
        self.conns: set[Conn] = set()
        self.seat_conn: dict[int, Conn] = {}
        self.ready: set[int] = set()
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.changed_at = 0.0
        self.seats_version = 0
        self.bot_task: asyncio.Task[None] | None = None
        self.creator_client: str | None = None  # the creating client's address (in memory)
        self._signal_asked: set[tuple[int, int]] = set()
        self._bot_failed: set[tuple[int, int]] = set()
        # What the messages are made of, kept from one change to the next.
        self._cache_seq = -1
        self._cache_state: GameState | None = None
        self._obs: dict[int, Observation] = {}
        self._public_hand: JSON | None = None
        self._summary: JSON | None = None
        self._spectator_hands: list[Any] | None = None
        self._plog: views.PublicLog | None = None  # the hand's log as it grows
        self._log_enc: list[str] = []  # its entries, encoded
        self._last_trick = "null"
        self._log_key: tuple[int, int] | None = None  # (hand, seq) the log is at
        self._log_gen = 0  # counts the logs read from a whole hand
        self._enc: dict[str, tuple[Any, str]] = {}
        self._sheet_rows: list[JSON] = []
        self._sheet_key: Any = None
        self._sheet: JSON | None = None
        self.sheet_version = 0
        self._serial = 0  # numbers the shared parts made (Shared.serial)
        self._deltas_of = -1
        self._deltas: dict[int, tuple[str, str | None, str | None]] = {}
        self._hands_texts: dict[tuple[Any, ...], str] = {}
        self._id_text = dumps(self.id)
        self._ready_text: tuple[tuple[int, ...], str] = ((), "[]")
        self._social_text: tuple[int, str] | None = None  # social.state_text's
        #: A player's seat (not the dummy's): the public hand is read from its observation.
        self._first_player = self._players()[0]

    # ------------------------------------------------------------- resuming

    def _new_table(self) -> Table:
        return Table.new(
            self.game,
            self.variant,
            seats=[None] * len(self.seats),
            seed=self.seed,
            options=self.options,
            lone_seat=self.lone_seat,
            first_dealer=self.first_dealer,
            deal=False,
        )

    def _replay(self, row: TableRow) -> None:
        """Rebuild the match from the stored deals count and actions."""
        by_hand: dict[int, list[tuple[int, int]]] = {}
        for hand, seat, a in row.actions:
            by_hand.setdefault(hand, []).append((seat, a))
        for h in range(row.hands_dealt):
            state = self.table.deal()
            self.seq += 1
            for seat, a in by_hand.get(h, []):
                state.act(a, seat)
                self.seq += 1

    # ---------------------------------------------------------------- facts

    @property
    def num_seats(self) -> int:
        """4 or 5."""
        return len(self.seats)

    @property
    def dummy_seat(self) -> int | None:
        """The dummy's seat in Quinto's dummy variant."""
        return self._dummy_seat

    @property
    def closed(self) -> bool:
        """Whether the table is over: finished, or closed as abandoned."""
        return self.status in CLOSED

    def controls(self, seat: int | None) -> tuple[int, ...]:
        """Return the seats the player at ``seat`` decides for."""
        if seat is None:
            return ()
        if seat == self.lone_seat and self.dummy_seat is not None:
            return (seat, self.dummy_seat)
        return (seat,)

    def controller(self, seat: int) -> int:
        """Return the seat of the player deciding for ``seat``."""
        if seat == self.dummy_seat and self.lone_seat is not None:
            return self.lone_seat
        return seat

    def match_over(self) -> bool:
        """Whether the match is decided."""
        return self.table.match_over()

    def status_name(self) -> str:
        """``waiting``, ``playing``, ``hand_over``, ``finished`` or ``abandoned``."""
        if self.closed:
            return self.status
        st = self.table.state
        if st is None:
            return "waiting"
        return "hand_over" if st.is_terminal() else "playing"

    def in_hand(self) -> bool:
        """Whether a hand is being played (dealt and not over)."""
        st = self.table.state
        return st is not None and not st.is_terminal() and not self.closed

    def people(self) -> list[int]:
        """Return the seats held by people (connected or not)."""
        return [s.seat for s in self.seats if s.kind == "person"]

    def connected(self, seat: int) -> bool:
        """Whether the person at ``seat`` has a live connection."""
        return seat in self.seat_conn

    def label(self, seat: int) -> str:
        """How ``seat`` is named to people."""
        return views.seat_label(self.game, seat)

    # --------------------------------------------------------------- access

    def seat_of_token(self, token: str | None) -> int | None:
        """Return the seat whose token this is, or None."""
        if not token:
            return None
        h = hash_token(token)
        for s in self.seats:
            if same_code(h, s.token_hash):
                return s.seat
        return None

    def can_view(
        self,
        person: str | None,
        key: str | None = None,
        invite: str | None = None,
        token: str | None = None,
    ) -> bool:
        """Whether a client may see this table at all.

        A public table: anyone. A private one: its players (who hold or held a seat),
        its creator, and holders of one of its links (the view key, a seat's invite, a
        seat's token).
        """
        if self.public:
            return True
        if person is not None and (person in self.holders or person == self.creator):
            return True
        if same_code(key, self.view_key):
            return True
        if invite is not None and any(same_code(invite, s.invite) for s in self.seats):
            return True
        return self.seat_of_token(token) is not None

    def is_player(self, person: str | None, token: str | None = None) -> bool:
        """Whether a client holds a seat now (by its person or a seat token), or created it."""
        if self.seat_of_token(token) is not None:
            return True
        if person is None:
            return False
        return person == self.creator or any(s.person == person for s in self.seats)

    def spectate_url(self) -> str:
        """The link to watch (a private table's carries its view key)."""
        if self.public or self.view_key is None:
            return f"/table/{self.id}"
        return f"/table/{self.id}?key={self.view_key}"

    def seat_url(self, s: SeatRow) -> str:
        """The invite link of a seat."""
        return f"/table/{self.id}?seat={s.seat}&invite={s.invite}"

    # ----------------------------------------------------------------- JSON

    def seats_json(self) -> list[JSON]:
        """Return the seats as the protocol shows them (never a token, invite or person)."""
        out = []
        for s in self.seats:
            out.append(
                {
                    "seat": s.seat,
                    "label": self.label(s.seat),
                    "kind": s.kind,
                    "name": s.name,
                    "level": s.level,
                    "connected": s.kind == "bot" or self.connected(s.seat),
                    "controller": self.controller(s.seat),
                }
            )
        return out

    def config_json(self) -> JSON:
        """Return the table's configuration (public; never the seed)."""
        return {
            "id": self.id,
            "title": self.title,
            "game": self.game,
            "variant": self.variant,
            "options": self.table.match.rules.options(),
            "lone_seat": self.lone_seat,
            "dummy_seat": self.dummy_seat,
            "num_seats": self.num_seats,
            "public": self.public,
            "rated": self.rated,
            **social.config_json(self),
        }

    def lobby_json(self) -> JSON:
        """Return the lobby's line for this table."""
        return {
            **self.config_json(),
            "status": self.status_name(),
            "seats": self.seats_json(),
            "open_seats": [s.seat for s in self.seats if s.kind == "open"],
            "hands_dealt": len(self.table.match.hands),
            "spectators": sum(1 for c in self.conns if c.seat is None),
            "created_at": self.created_at.isoformat(),
            "present": len(self.seat_conn),
            "first": self.first_facts(),
        }

    def first_facts(self) -> JSON:
        """Return who deals the first hand and who is quintus in it (if the rules say yet).

        Worked out on a copy of the match dealt from the table's seed, once; only the
        dealer and the quintus are read from it, never a card. ``quintus`` is None in a
        game without one, or where an auction decides it.
        """
        if self._first_facts is None:
            st: Any
            if self.table.match.hands:
                st = self.table.match.hands[0]
            else:
                probe = self._new_table()
                st = probe.deal()
            q = getattr(st, "quintus", None)
            self._first_facts = {
                "dealer": int(st.dealer),
                "quintus": int(q) if isinstance(q, int) and q >= 0 else None,
                "decided": self.status_name() != "waiting" or not self.social.get("draw"),
            }
        return self._first_facts

    # ------------------------------------------------------------- messages

    def _refresh(self) -> None:
        st = self.table.match.state
        if self._cache_seq != self.seq or self._cache_state is not st:
            self._cache_seq = self.seq
            self._cache_state = st
            self._obs = {}
            self._summary = None
            self._spectator_hands = None
            self._public_hand = None

    def observation(self, seat: int) -> Observation:
        """Return ``seat``'s observation now (kept until the next change; the public
        hand is read from one player's)."""
        st: Any = self.table.match.state
        if self._cache_seq != self.seq or self._cache_state is not st:
            self._refresh()
        obs = self._obs.get(seat)
        if obs is None:
            obs = self._obs[seat] = st.observation(seat)
        return obs

    def _players(self) -> list[int]:
        return [s for s in range(self.num_seats) if s != self._dummy_seat]

    def spectator_hands(self) -> list[Any]:
        """Return the hands every player is shown (None for the others)."""
        self._refresh()
        if self._spectator_hands is None:
            st: Any = self.table.match.state
            shown = [st.private_view(s)[0] for s in self._players()]
            self._spectator_hands = views.public_hands(shown)
        return self._spectator_hands

    def public_hand(self) -> JSON:
        """Return the hand in play without its hands (the same for every recipient).

        Built once per change, from one player's observation: its fields are public.
        """
        self._refresh()
        hand = self._public_hand
        if hand is None:
            match = self.table.match
            st: Any = match.state
            obs = st.observation(self._first_player)
            hand = self._public_hand = views.public_hand_json(obs, len(match.hands) - 1)
        return hand

    def public_log(self) -> tuple[list[str], str]:
        """Return the hand's public log (each entry encoded) and its last trick, encoded.

        Each action adds its own events as it is made (:meth:`_log_step`) and each
        notice itself (a seat taken over mid-hand, a bot that failed); the log is read
        from the whole hand only when it cannot be continued: a new hand, a take-back,
        a table resumed. Each such rebuild counts in ``_log_gen``: a connection that
        was sent an earlier one is sent the whole log again.
        """
        number = len(self.table.match.hands) - 1
        if self._log_key != (number, self.seq) or self._plog is None:
            st = self.table.state
            plog = views.PublicLog(self.game)
            pending = sorted((n for n in self.notices if n.hand == number), key=lambda n: n.actions)
            done = 0
            # Each notice after everything the actions before it brought (merge_notices).
            for e in st.events():
                if e.kind == "action":
                    while pending and pending[0].actions <= done:
                        plog.note(_notice_json(pending.pop(0)))
                    done += 1
                plog.add([e])
            for n in pending:
                plog.note(_notice_json(n))
            self._plog = plog
            self._log_enc = plog.texts
            self._last_trick = dumps(plog.last)
            self._log_key = (number, self.seq)
            self._log_gen += 1
        return self._log_enc, self._last_trick

    def _log_step(self, before: GameState, seat: int, a: Action) -> None:
        """Add an action's public events to the log (made: ``seq`` counts it)."""
        number = len(self.table.match.hands) - 1
        plog = self._plog
        if plog is None or self._log_key != (number, self.seq - 1):
            return  # the log is read again from the hand when it is next asked for
        last = plog.last
        plog.add(views.step_events(before, seat, a, self.table.match.state))
        if plog.last is not last:
            self._last_trick = dumps(plog.last)
        self._log_key = (number, self.seq)

    def summary(self) -> JSON | None:
        """Return the end-of-hand summary once the hand is over, else None."""
        st = self.table.state
        if st is None or not st.is_terminal():
            return None
        self._refresh()
        if self._summary is None:
            self.public_log()
            assert self._plog is not None
            self._summary = views.hand_result(st, self._plog.events)
        return self._summary

    def sheet(self) -> JSON:
        """Return the score sheet (built again when its in-progress row can change: a
        trick, a hand, the doubling, the auction; from the log's events, never a
        replay of the hand)."""
        match = self.table.match
        st: GameState | None = match.state
        key = (len(match.hands), views.sheet_key(st), self.status)
        if key != self._sheet_key or self._sheet is None:
            events = None
            if st is not None:
                self.public_log()
                assert self._plog is not None
                events = self._plog.events
            self._sheet_key = key
            self._sheet = views.sheet_json(match, self._sheet_rows, events)
            self.sheet_version += 1
        return self._sheet

    def _encoded(self, name: str, key: Any, make: Callable[[], Any]) -> str:
        """Return a shared part encoded once per ``key`` (what it depends on)."""
        hit = self._enc.get(name)
        if hit is not None and hit[0] == key:
            return hit[1]
        text = dumps(make())
        self._enc[name] = (key, text)
        return text

    def shared(self) -> Shared:
        """Return the table's public parts now: what every recipient's message shares."""
        self._serial += 1
        st = self.table.match.state
        ready = tuple(sorted(self.ready))
        if ready != self._ready_text[0]:
            self._ready_text = (ready, dumps(ready))
        sh = Shared(self._serial, self.seq, self.status_name(), self._ready_text[1])
        sh.seats_version = self.seats_version
        if st is not None:
            sh.hand = self.public_hand()
            log, sh.last_trick = self.public_log()
            sh.log_id = (len(self.table.match.hands) - 1, self._log_gen)
            sh.log_len = len(log)
            if st.is_terminal():
                sh.summary = self._encoded("summary", (self.seq, st), self.summary)
        self.sheet()
        sh.sheet_version = self.sheet_version
        if self.closed:
            sh.result = dumps(self.result)
        sh.social = social.state_text(self)
        return sh

    def _view(self, conn: Conn) -> tuple[tuple[Any, ...] | None, tuple[Any, ...]]:
        """Return the hands ``conn`` may see and its legal actions: its seat's private
        view, which are its observation's ``hands`` and ``legal_actions`` (a
        spectator's: the hands every player is shown, and none)."""
        st: Any = self.table.match.state
        if st is None:
            return None, ()
        seat = conn.seat
        if seat is None:
            return tuple(self.spectator_hands()), ()
        view: tuple[tuple[Any, ...], tuple[Any, ...]] = st.private_view(seat)
        return view

    def _you(self, conn: Conn) -> str:
        seat = conn.seat
        conn.sent_you = seat
        you = {
            "seat": seat,
            "role": "spectator" if seat is None else "player",
            "controls": list(self.controls(seat)),
        }
        return dumps(you)

    def state_message(self, conn: Conn, sh: Shared | None = None) -> str | None:
        """Return the next message for ``conn``: a whole ``state`` if it has none yet (or
        asked for one: :meth:`Conn.reset_cursors`), else an ``update`` of what changed
        since its last one (None when nothing did).

        ``sh`` is the table's shared parts now (:meth:`shared`), made once for all the
        recipients of a change; the hands and legal actions are each one's seat's view
        (:meth:`_view`), sent only when they changed.
        """
        if sh is None:
            sh = self.shared()
        if conn.base is None:
            return self._full_state(conn, sh)
        return self._update(conn, sh, self._view(conn))

    def full_state(self, conn: Conn) -> str:
        """Return a whole ``state`` message for ``conn`` (on connecting, or asked for)."""
        conn.reset_cursors()
        return self._full_state(conn, self.shared())

    def _full_state(self, conn: Conn, sh: Shared) -> str:
        hands, legal = self._view(conn)
        conn.base, conn.sent_hands, conn.sent_legal = sh, hands, legal
        if sh.hand is None or hands is None:
            hand = "null"
        else:
            hand = dumps({**sh.hand, "hands": views.hands_json(hands)})
        if sh.log_id is None:
            log = "null"
        else:
            events = ",".join(self._log_enc[: sh.log_len])
            log = f'{{"hand":{sh.log_id[0]},"from":0,"events":[{events}]}}'
        return (
            f'{{"type":"state","v":{PROTOCOL_VERSION},"table":{dumps(self.id)},"seq":{sh.seq},'
            f'"status":{dumps(sh.status)},"you":{self._you(conn)},"ready":{sh.ready},'
            f'"seats":{self._seats_text()},"hand":{hand},"legal":{self._legal_text(legal)},'
            f'"log":{log},"last_trick":{sh.last_trick},"summary":{sh.summary},'
            f'"sheet":{self._sheet_text()},"result":{sh.result},"social":{sh.social}}}'
        )

    def _update(
        self, conn: Conn, sh: Shared, view: tuple[tuple[Any, ...] | None, tuple[Any, ...]]
    ) -> str | None:
        base = conn.base
        assert base is not None
        head, patch, plain = self._delta(base, sh)
        hands, legal = view
        new_you = conn.sent_you != conn.seat
        new_hands = sh.hand is not None and hands != conn.sent_hands
        new_legal = legal != conn.sent_legal
        conn.base = sh
        conn.sent_hands = hands
        if not (new_you or new_hands or new_legal):
            return plain  # what every connection with nothing of its own is sent
        parts = [head]
        if new_you:
            parts.append(',"you":' + self._you(conn))
        if new_hands:
            text = ',"hands":' + self._hands_text(hands) + "}"
            parts.append(',"hand":' + ("{" + text[1:] if patch is None else patch[:-1] + text))
        elif patch is not None:
            parts.append(',"hand":' + patch)
        if new_legal:
            parts.append(',"legal":' + self._legal_text(legal))
            conn.sent_legal = legal
        parts.append("}")
        return "".join(parts)

    def _delta(self, base: Shared, sh: Shared) -> tuple[str, str | None, str | None]:
        """Return what changed from ``base`` to ``sh`` for every connection last sent
        ``base``: the update's head (its type, table, seq and changed shared fields), the
        hand's changed fields as an object (None: none changed), and the whole update
        for a connection whose own view (seat, hands, legal actions) did not change
        (None: nothing to send it), encoded.

        Made once per change for every connection last sent ``base``.
        """
        if self._deltas_of != sh.serial:
            self._deltas_of = sh.serial
            self._deltas = {}
            self._hands_texts = {}
        hit = self._deltas.get(base.serial)
        if hit is not None:
            return hit
        parts = [f'{{"type":"update","table":{self._id_text},"seq":{sh.seq}']
        if base.status != sh.status:
            parts.append(',"status":' + dumps(sh.status))
        if base.ready != sh.ready:
            parts.append(',"ready":' + sh.ready)
        if base.seats_version != sh.seats_version:
            parts.append(',"seats":' + self._seats_text())
        patch = None
        if sh.hand is None:
            if base.hand is not None:
                parts.append(',"hand":null')
        elif base.hand is not sh.hand:
            if base.hand is None or base.hand["number"] != sh.hand["number"]:
                changed = sh.hand
            else:
                old = base.hand
                changed = {k: v for k, v in sh.hand.items() if old[k] != v}
            if changed:
                patch = dumps(changed)
        if sh.log_id is None:
            if base.log_id is not None:
                parts.append(',"log":null')
        elif base.log_id != sh.log_id or base.log_len != sh.log_len:
            start = base.log_len if base.log_id == sh.log_id else 0
            events = ",".join(self._log_enc[start : sh.log_len])
            parts.append(f',"log":{{"hand":{sh.log_id[0]},"from":{start},"events":[{events}]}}')
        if base.last_trick != sh.last_trick:
            parts.append(',"last_trick":' + sh.last_trick)
        if base.summary != sh.summary:
            parts.append(',"summary":' + sh.summary)
        if base.sheet_version != sh.sheet_version:
            parts.append(',"sheet":' + self._sheet_text())
        if base.result != sh.result:
            parts.append(',"result":' + sh.result)
        if base.social != sh.social:
            parts.append(',"social":' + sh.social)
        head = "".join(parts)
        if patch is not None:
            plain: str | None = head + ',"hand":' + patch + "}"
        elif len(parts) > 1:
            plain = head + "}"
        else:
            plain = None
        out = (head, patch, plain)
        self._deltas[base.serial] = out
        return out

    def _seats_text(self) -> str:
        return self._encoded("seats", self.seats_version, self.seats_json)

    def _sheet_text(self) -> str:
        return self._encoded("sheet", self.sheet_version, self.sheet)

    def _hands_text(self, hands: tuple[Any, ...] | None) -> str:
        """Return hands as the protocol shows them, encoded (once per change and view)."""
        if hands is None:
            return "null"
        text = self._hands_texts.get(hands)
        if text is None:
            text = views.hands_text(hands)
            self._hands_texts[hands] = text
        return text

    def _legal_text(self, legal: tuple[Any, ...]) -> str:
        """Return ``(seat, action)`` pairs as the protocol's action objects, encoded."""
        texts = _ACTION_TEXTS
        out = []
        for pair in legal:
            text = texts.get(pair)
            if text is None:
                text = texts[pair] = dumps(views.actions_json([pair])[0])
            out.append(text)
        return "[" + ",".join(out) + "]"

    def broadcast(self) -> None:
        """Send every connection what changed (a whole state to one that has none)."""
        if not self.conns:
            return
        sh = self.shared()
        for c in list(self.conns):
            text = self.state_message(c, sh)
            if text is not None:
                c.send(text)

    def seats_changed(self) -> None:
        """Note a change of seats (names, bots, connections) and tell everyone."""
        self.seats_version += 1
        self.broadcast()

    # -------------------------------------------------------------- changes

    def _record_extra(self) -> JSON:
        return {
            "table": {
                "id": self.id,
                "seed": self.seed,
                "seats": [s.level if s.kind == "bot" else None for s in self.seats],
            },
            "players": [
                {"seat": s.seat, "kind": s.kind, "name": s.name, "level": s.level}
                for s in self.seats
            ],
            **({"chat": [line.to_json() for line in self.chat]} if self.chat else {}),
        }

    def record(self) -> Record:
        """Return the match as a record (all cards: only for tables that are over)."""
        return record_from_match(self.table.match, self._record_extra())

    def touch(self) -> None:
        """Note that the table changed now (abandoned tables are those long untouched)."""
        self.last_active = time.time()

    async def commit_action(self, seat: int, a: Action) -> None:
        """Store a checked action, then make it and broadcast (the lock is held)."""
        preview = self.table.preview(seat, a)
        state, new = preview.before, preview.state
        over, result = preview.over, preview.result
        hand = len(self.table.match.hands) - 1
        seq = self.seq
        table_id = self.id
        finished = db.now()
        # The players' results (and a rated table's ratings), stored with the last action.
        write_results = results.finish_job(self, preview, finished) if over else None

        def finish(conn: Any) -> None:
            db.update_table(conn, table_id, status="finished", result=result, finished_at=finished)
            if write_results is not None:
                write_results(conn)

        row = db.action_row(table_id, seq, hand, seat, a)
        await self.hub.store.write_action(row, finish if over else None)
        self.table.commit(preview)
        self.seq += 1
        self._log_step(state, seat, a)
        self.changed_at = time.monotonic()
        self.touch()
        if log.isEnabledFor(logging.DEBUG):
            log.debug("table %s hand %d seat %d: %s", self.id, hand, seat, action_str(a))
        if new.is_terminal():
            self.ready.clear()
        if over:
            self.status = "finished"
            self.result = result
            self.finished_at = finished
            log.info("table %s finished: %s", self.id, dumps(result))
        self.broadcast()
        self.nudge_bots()

    async def deal(self) -> None:
        """Store and deal the next hand (the lock is held)."""
        k = len(self.table.match.hands)
        table_id = self.id

        def job(conn: Any) -> None:
            db.update_table(conn, table_id, hands_dealt=k + 1, status="playing")

        await self.hub.store.write(job)
        self.table.deal()
        self.status = "playing"
        self.seq += 1
        self.ready.clear()
        self.changed_at = time.monotonic()
        self.touch()
        log.info("table %s: hand %d dealt", self.id, k)
        self.broadcast()
        self.nudge_bots()

    async def maybe_first_deal(self) -> None:
        """Deal the first hand once every seat is taken (the lock is held)."""
        if not self.table.match.hands and all(s.kind != "open" for s in self.seats):
            drawn = await social.draw_if_asked(self)
            await self.deal()
            if drawn:
                await social.post_draw(self)

    def ready_for_next(self) -> bool:
        """Whether the next hand should be dealt: every connected person said ``next``."""
        st = self.table.state
        if st is None or not st.is_terminal() or self.match_over() or self.closed:
            return False
        present = [s for s in self.people() if self.connected(s)]
        return bool(present) and all(s in self.ready for s in present)

    def notice(self, seat: int | None, kind: str, text: str) -> Notice | None:
        """Return a notice for the public log if a hand is being played, else None."""
        if not self.in_hand():
            return None
        st = self.table.state
        return Notice(len(self.table.match.hands) - 1, len(st.history()), seat, kind, text)

    async def save_seat(
        self, seat: SeatRow, holder: str | None = None, notice: Notice | None = None
    ) -> None:
        """Store one seat's row (with its new holder and a notice), then keep it here.

        ``holder`` is a person taking the seat for the first time at this table.
        """
        table_id = self.id
        values = {
            "kind": seat.kind,
            "level": seat.level,
            "name": seat.name,
            "token_hash": seat.token_hash,
            "person": seat.person,
        }
        n = len(self.notices)

        def job(conn: Any) -> None:
            db.update_seat(conn, table_id, seat.seat, **values)
            db.update_table(conn, table_id)  # a seat change counts as activity
            if holder is not None:
                db.insert_holder(conn, table_id, holder, seat.seat)
            if notice is not None:
                db.insert_notice(conn, table_id, n, notice)

        await self.hub.store.write(job)
        self.seats[seat.seat] = seat
        if holder is not None:
            self.holders[holder] = seat.seat
        if notice is not None:
            self._add_notice(notice)
        self.touch()

    def _add_notice(self, notice: Notice) -> None:
        """Keep a notice, and add it to the end of the log (made now: after everything
        the actions so far brought, where :func:`merge_notices` puts it)."""
        self.notices.append(notice)
        number = len(self.table.match.hands) - 1
        if self._plog is not None and self._log_key == (number, self.seq) and notice.hand == number:
            j = _notice_json(notice)
            self._plog.note(j)
        else:
            self._log_key = None  # the log is read again, with it

    async def post_notice(self, seat: int | None, kind: str, text: str) -> None:
        """Store a notice and put it in the public log (if a hand is being played).

        Takes the table's lock: notices are numbered in the order they are stored.
        """
        async with self.lock:
            notice = self.notice(seat, kind, text)
            if notice is None:
                return
            table_id = self.id
            n = len(self.notices)
            await self.hub.store.write(lambda conn: db.insert_notice(conn, table_id, n, notice))
            self._add_notice(notice)
            self.broadcast()

    async def abandon(self) -> None:
        """Close the table: nobody plays it (the lock is held). Its record is kept."""
        result = score(self.record())
        finished = db.now()
        table_id = self.id

        def job(conn: Any) -> None:
            db.update_table(conn, table_id, status="abandoned", result=result, finished_at=finished)

        await self.hub.store.write(job)
        self.status = "abandoned"
        self.result = result
        self.finished_at = finished
        self.stop_bots()
        log.info("table %s closed: abandoned", self.id)
        self.broadcast()

    # ------------------------------------------------------------------ bots

    def nudge_bots(self) -> None:
        """Wake the bots' task after a change, if it has anything to do at this table.

        It has when a bot holds a seat (it may act, or deal for bots alone), or when a
        turn clock runs (it plays for a person whose time ran out); a table of people
        without a clock is left alone (a seat given to a bot wakes it then).
        """
        if self.social.get("turn_seconds"):
            self.wake.set()
            return
        for s in self.seats:
            if s.kind == "bot":
                self.wake.set()
                return

    def start_bots(self) -> None:
        """Start the task that lets bots act (and deals for tables of bots only)."""
        if self.bot_task is None and not self.closed:
            self.bot_task = asyncio.create_task(self._bot_loop(), name=f"bots-{self.id}")
            self.wake.set()

    def stop_bots(self) -> None:
        """Cancel the bots' task (a search it waits for is dropped or left to finish)."""
        if self.bot_task is not None:
            if self.bot_task is not asyncio.current_task():
                self.bot_task.cancel()
            self.bot_task = None

    @property
    def owner(self) -> str:
        """Whose share of the search workers this table's bots use: its creator's.

        The workers serve their owners in turn, so a client with many tables of search
        bots gets one share, like a client with one.
        """
        if self.creator_client is not None:
            return f"client:{self.creator_client}"
        if self.creator is not None:
            return f"person:{self.creator}"
        return f"table:{self.id}"

    async def _bot_loop(self) -> None:
        while not self.closed:
            left = social.clock_left(self)
            if left is None:
                await self.wake.wait()
            else:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.wake.wait(), max(0.0, left))
            self.wake.clear()
            try:
                await self._bot_steps()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("table %s: bot step failed", self.id)
                await asyncio.sleep(1.0)
                self.wake.set()

    def _bot_level(self, seat: int) -> str | None:
        s = self.seats[self.controller(seat)]
        return s.level if s.kind == "bot" else None

    async def _pause(self, factor: float = 1.0) -> None:
        delay = self.hub.settings.bot_delay * factor
        left = delay - (time.monotonic() - self.changed_at)
        if left > 0:
            await asyncio.sleep(left)

    async def _decide(self, level: str, seat: int, seed: str, kind: str) -> Action | None:
        """Return a bot's decision; a bot that fails is replaced by the heuristic, said."""
        st = self.table.state
        a, failure = await self.hub.run_bot(self.owner, level, st.clone(), seat, seed, kind)
        if failure is not None:
            hand = len(self.table.match.hands) - 1
            log.warning("table %s seat %d: %s bot %s", self.id, seat, level, failure)
            if (hand, seat) not in self._bot_failed:
                self._bot_failed.add((hand, seat))
                await self.post_notice(
                    seat,
                    "bot",
                    f"{self.label(seat)}'s {level} bot {failure}: the heuristic decides "
                    "for it this time",
                )
        return a

    async def _bot_steps(self) -> None:
        while not self.closed:
            st = self.table.state
            if st is None:
                return
            seq0 = self.seq
            if self.question is not None:
                return  # play waits for the answers
            if st.is_terminal():
                if self.match_over() or self.people():
                    return
                await self._pause(2.0)
                async with self.lock:
                    if self.seq == seq0 and not self.people() and not self.closed:
                        await self.deal()
                continue
            job: tuple[int, Action] | None = None
            turn = st.current_player()
            for seat in st.actors():
                level = self._bot_level(seat)
                if seat == turn or level is None or (seq0, seat) in self._signal_asked:
                    continue
                self._signal_asked.add((seq0, seat))
                sig = await self._decide(level, seat, self.table.decision_seed(seat), "signal")
                if sig is not None:
                    job = (seat, sig)
                    break
            if job is None:
                level = self._bot_level(turn)
                if level is None:
                    await social.clock_ran_out(self, seq0)
                    return
                a = await self._decide(level, turn, self.table.decision_seed(turn), "act")
                if a is None:
                    log.error("table %s: no bot could decide for seat %d", self.id, turn)
                    return
                job = (turn, a)
            await self._pause()
            async with self.lock:
                if self.seq != seq0 or self._bot_level(job[0]) is None or self.closed:
                    continue
                state = self.table.state
                if job[1] not in state.legal_actions(job[0]):  # pragma: no cover - a bot bug
                    log.error("table %s: bot at seat %d chose an illegal action", self.id, job[0])
                    return
                await self.commit_action(*job)
            if len(self._signal_asked) > 1000:
                self._signal_asked = {k for k in self._signal_asked if k[0] >= self.seq}


#: Each (seat, action) pair as an encoded action object (the same in every game and at
#: every table: an action's number names one action).
_ACTION_TEXTS: dict[tuple[int, int], str] = {}


class Shared:
    """The parts of a table's messages every recipient shares, at one change.

    Made once per change (:meth:`LiveTable.shared`); each connection keeps the one its
    last message was made from (``Conn.base``), and its next ``update`` holds what
    differs between the two. Parts are kept encoded, except the hand (its fields are
    compared one by one) and the parts with a version (seats, sheet) or a length (log).
    """

    __slots__ = (
        "hand",
        "last_trick",
        "log_id",
        "log_len",
        "ready",
        "result",
        "seats_version",
        "seq",
        "serial",
        "sheet_version",
        "social",
        "status",
        "summary",
    )

    def __init__(self, serial: int, seq: int, status: str, ready: str) -> None:
        self.serial = serial
        self.seq = seq
        self.status = status
        self.ready = ready
        self.seats_version = -1
        #: The hand's public fields (:func:`views.public_hand_json`), or None.
        self.hand: JSON | None = None
        #: (hand number, log generation) of the log, and its length; None: no hand.
        self.log_id: tuple[int, int] | None = None
        self.log_len = 0
        self.last_trick = "null"
        self.summary = "null"
        self.sheet_version = -1
        self.result = "null"
        self.social = "null"


def merge_notices(events: list[JSON], notices: list[Notice]) -> list[JSON]:
    """Return a hand's public events with its notices, each after the actions before it.

    A notice made when ``k`` actions of the hand had been taken comes after everything
    the ``k``-th action brought (its trick, its meld) and before the next action.

    >>> ev = [{"kind": "action"}, {"kind": "trick"}, {"kind": "action"}]
    >>> [e["kind"] for e in merge_notices(ev, [Notice(0, 1, 2, "seat", "Ann takes over")])]
    ['action', 'trick', 'notice', 'action']
    """
    if not notices:
        return events
    out: list[JSON] = []
    pending = sorted(notices, key=lambda n: n.actions)
    done = 0
    for e in events:
        if e["kind"] == "action":
            while pending and pending[0].actions <= done:
                out.append(_notice_json(pending.pop(0)))
            done += 1
        out.append(e)
    out.extend(_notice_json(n) for n in pending)
    return out


def _notice_json(n: Notice) -> JSON:
    return {"kind": "notice", "about": n.kind, "seat": n.seat, "text": n.text}


__all__ = ["LiveTable", "Shared", "merge_notices"]
