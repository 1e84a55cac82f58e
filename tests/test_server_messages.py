"""The table's messages: a whole ``state`` on connecting, then ``update``s of what changed.

Whole hands of every game and variant are played in one process (a Hub on SQLite, an
in-memory connection per seat and a spectator): after every action, deal and ``next``,
each connection's messages so far, applied as a client applies them
(:func:`quintet.server.testing.apply_update`), must give exactly the ``state`` the
server would send that connection then, and that state must be what a server that
never saw the table build up (a table resumed from the database) sends. The public
log grows without replaying the hand; a ``state`` request and a reconnection give the
whole state again.
"""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quintet.actions import action_to_json
from quintet.hand import HandState
from quintet.server import db, views
from quintet.server.conn import Conn
from quintet.server.db import Store
from quintet.server.live import Hub
from quintet.server.livetable import LiveTable
from quintet.server.messages import CreateTable
from quintet.server.protocol import PROTOCOL_VERSION, dumps
from quintet.server.settings import Settings
from quintet.server.testing import apply_update
from quintet.table import Table

JSON = dict[str, Any]

#: (game, variant, options): every game and variant, the dummy's leading view too.
CONFIGS: list[tuple[str, str, JSON]] = [
    ("quinto", "partnership", {}),
    ("quinto", "dummy", {}),
    ("quinto", "dummy", {"dummy_double_view": "leading"}),
    ("quintus", "base", {}),
    ("quintus", "bidding", {}),
]


async def _sink(text: str) -> None:
    return None


async def _close(code: int, reason: str) -> None:
    return None


class Client:
    """One in-memory connection and the table as it shows it (its messages applied)."""

    def __init__(self, hub: Hub, name: str) -> None:
        self.conn = Conn(_sink, _close, hub.settings, f"person-{name}")
        self.table: JSON | None = None
        self.kinds: list[str] = []  # the types of the state and update messages
        self.raw: list[str] = []
        self.token: str | None = None  # the seat token, once joined

    def take(self) -> list[JSON]:
        """Take the messages queued for this connection, applying the table's."""
        out = []
        while self.conn.outbox:
            item = self.conn.outbox.popleft()
            assert isinstance(item, str), item
            m: JSON = json.loads(item)
            if m["type"] in ("state", "update"):
                self.table = apply_update(self.table, m)
                self.kinds.append(m["type"])
                self.raw.append(item)
            elif m["type"] == "joined":
                self.token = m["token"]
            out.append(m)
        self.conn.queued_bytes = 0
        return out


@contextmanager
def hub_running() -> Iterator[tuple[Hub, asyncio.AbstractEventLoop]]:
    """A started Hub on a temporary SQLite database, and the loop to run it in."""
    d = tempfile.TemporaryDirectory()
    s = Settings(
        db_url=f"sqlite:///{d.name}/m.db",
        bot_delay=0.0,
        allow_seed=True,
        rate=1e9,
        burst=1e9,
        search_workers=1,
    )
    loop = asyncio.new_event_loop()
    hub = Hub(s, Store(s.db_url))
    loop.run_until_complete(hub.start())
    try:
        yield hub, loop
    finally:
        loop.run_until_complete(hub.stop())
        loop.close()
        d.cleanup()


async def seat_everyone(hub: Hub, game: str, variant: str, options: JSON, seed: int) -> Any:
    """Create a table of open seats, a client in each (and a spectator); deal."""
    n = 4 if game == "quinto" else 5
    body = CreateTable.model_validate(
        {"game": game, "variant": variant, "options": options, "seats": ["open"] * n, "seed": seed}
    )
    made = await hub.create_table(body, "creator")
    t = hub.tables[made["id"]]
    clients: dict[int | None, Client] = {}
    spectator = Client(hub, f"{seed}-spectator")
    await hub.handle(spectator.conn, json.dumps({"type": "hello", "table": t.id}))
    clients[None] = spectator
    for s in range(n):
        if t.seats[s].kind != "open":
            continue  # the dummy
        c = Client(hub, f"{seed}-{s}")
        await hub.handle(c.conn, json.dumps({"type": "hello", "table": t.id}))
        await hub.handle(c.conn, json.dumps({"type": "join", "seat": s, "name": f"p{s}"}))
        c.take()
        assert c.token is not None
        clients[s] = c
    return t, clients


def probe_state(t: LiveTable, hub: Hub, seat: int | None) -> JSON:
    """Return the whole state the table would send a new connection at ``seat`` now."""
    probe = Conn(_sink, _close, hub.settings, "probe")
    probe.seat = seat
    probe.table = t
    out: JSON = json.loads(t.full_state(probe))
    return out


def resumed_state(t: LiveTable, hub: Hub, seat: int | None) -> JSON:
    """Return the whole state a server resuming the table from its rows would send."""
    row = hub.store.run_sync(lambda conn: db.load_table(conn, t.id))
    assert row is not None
    fresh = LiveTable(hub, row)
    fresh.seat_conn = dict(t.seat_conn)  # who is connected lives in memory only
    fresh.conns = set(t.conns)
    fresh.ready = set(t.ready)
    return probe_state(fresh, hub, seat)


def check_all(t: LiveTable, hub: Hub, clients: dict[int | None, Client], resumed: bool) -> None:
    """Assert that every client's table is the state the server would send it now."""
    for seat, c in clients.items():
        c.take()
        whole = probe_state(t, hub, seat)
        assert c.table == whole, f"seat {seat}: {diff(c.table, whole)}"
        if resumed:
            again = resumed_state(t, hub, seat)
            assert whole == again, f"seat {seat} (resumed): {diff(whole, again)}"


def diff(a: JSON | None, b: JSON) -> str:
    """Say which fields of two tables differ (for an assertion's message)."""
    if a is None:
        return "no table"
    keys = sorted(set(a) | set(b))
    return "; ".join(f"{k}: {a.get(k)!r} != {b.get(k)!r}" for k in keys if a.get(k) != b.get(k))


async def play_hands(
    hub: Hub, config: tuple[str, str, JSON], seed: int, hands: int, resume_every: int
) -> int:
    """Play ``hands`` whole hands by random legal actions, checking every client after
    each change; return the actions checked."""
    game, variant, options = config
    t, clients = await seat_everyone(hub, game, variant, options, seed)
    rng = random.Random(seed)
    check_all(t, hub, clients, resumed=True)
    checked = 0
    for _ in range(hands):
        while not t.table.state.is_terminal():
            state = t.table.state
            seat = rng.choice(state.actors())
            a = rng.choice(state.legal_actions(seat))
            c = clients[t.controller(seat)]
            msg = {"type": "act", "action": action_to_json(a, seat), "expect": t.seq}
            await hub.handle(c.conn, json.dumps(msg))
            errors = [m for m in c.take() if m["type"] == "error"]
            assert not errors, errors
            checked += 1
            check_all(t, hub, clients, resumed=checked % resume_every == 0)
        check_all(t, hub, clients, resumed=True)  # the hand over: the summary, the sheet
        if t.match_over():
            break
        for seat, c in clients.items():
            if seat is not None:
                await hub.handle(c.conn, json.dumps({"type": "next"}))
                check_all(t, hub, clients, resumed=False)
    check_all(t, hub, clients, resumed=True)
    for seat, c in clients.items():
        assert c.kinds[0] == "state", seat
        assert c.kinds.count("update") > checked // 2, (seat, c.kinds)
    return checked


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join([c[0], c[1], *c[2].values()]))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31))
def test_updates_applied_give_the_whole_state_at_every_action_of_whole_hands(
    config: tuple[str, str, JSON], seed: int
) -> None:
    with hub_running() as (hub, loop):
        checked = loop.run_until_complete(play_hands(hub, config, seed, 2, resume_every=12))
    assert checked > 20


def test_a_state_request_and_a_reconnection_give_the_whole_state() -> None:
    with hub_running() as (hub, loop):

        async def main() -> None:
            t, clients = await seat_everyone(hub, "quinto", "partnership", {}, 7)
            rng = random.Random(7)
            for _ in range(9):
                state = t.table.state
                seat = state.current_player()
                a = rng.choice(state.legal_actions(seat))
                msg = {"type": "act", "action": action_to_json(a, seat), "expect": t.seq}
                await hub.handle(clients[seat].conn, json.dumps(msg))
            for c in clients.values():
                c.take()
            # Asked for: the whole state, then updates again.
            ann = clients[0]
            await hub.handle(ann.conn, json.dumps({"type": "state", "id": 5}))
            (m,) = ann.take()
            assert m["type"] == "state" and m["v"] == PROTOCOL_VERSION
            assert m == probe_state(t, hub, 0)
            events = m["log"]["events"]
            assert m["log"]["from"] == 0 and sum(e["kind"] == "action" for e in events) == 9
            state = t.table.state
            seat = state.current_player()
            a = state.legal_actions(seat)[0]
            act = {"type": "act", "action": action_to_json(a, seat), "expect": t.seq}
            await hub.handle(clients[seat].conn, json.dumps(act))
            (u,) = ann.take()
            assert u["type"] == "update" and u["log"]["from"] == len(events)
            assert ann.table == probe_state(t, hub, 0)
            # A new connection with the seat's token (a reload): the whole state.
            bea = clients[1]
            again = Client(hub, "again")
            again.conn.person = bea.conn.person
            hello = {"type": "hello", "table": t.id, "token": bea.token}
            await hub.handle(again.conn, json.dumps(hello))
            msgs = again.take()
            assert [m["type"] for m in msgs][:2] == ["welcome", "state"], msgs
            assert again.table == probe_state(t, hub, 1)
            assert again.table is not None and again.table["hand"]["hands"][1]

        loop.run_until_complete(main())


def test_an_update_holds_only_what_changed_for_its_recipient() -> None:
    with hub_running() as (hub, loop):

        async def main() -> None:
            t, clients = await seat_everyone(hub, "quinto", "partnership", {}, 3)
            for c in clients.values():
                c.take()
            state = t.table.state
            seat = state.current_player()
            a = state.legal_actions(seat)[0]
            act = {"type": "act", "action": action_to_json(a, seat), "expect": t.seq}
            await hub.handle(clients[seat].conn, json.dumps(act))
            after = t.table.state
            nxt = after.current_player()
            for s, c in clients.items():
                (u,) = c.take()
                assert u["type"] == "update"
                assert set(u) <= {"type", "table", "seq", "hand", "legal", "log", "sheet"}, u
                assert "seats" not in u and "you" not in u and "social" not in u
                assert u["seq"] == t.seq and len(u["log"]["events"]) == 1
                # The hand's public fields that changed; no hands (nobody's changed).
                assert {"actions", "turn"} <= set(u["hand"]) and "hands" not in u["hand"]
                assert "number" not in u["hand"] and "dealer" not in u["hand"]
                # Legal actions only for the seat that had some and the seat that has now.
                assert ("legal" in u) == (s in (seat, nxt)), (s, u)

        loop.run_until_complete(main())


def test_a_seat_sees_its_own_hand_change_and_nobody_else_sees_it() -> None:
    with hub_running() as (hub, loop):

        async def main() -> None:
            t, clients = await seat_everyone(hub, "quinto", "partnership", {}, 5)
            # Pass the doubling round, then play a card.
            for _ in range(4):
                state = t.table.state
                seat = state.current_player()
                act = {"type": "act", "action": "pass", "expect": t.seq}
                await hub.handle(clients[seat].conn, json.dumps(act))
            for c in clients.values():
                c.take()
            state = t.table.state
            seat = state.current_player()
            a = state.legal_actions(seat)[0]
            act = {"type": "act", "action": action_to_json(a, seat), "expect": t.seq}
            await hub.handle(clients[seat].conn, json.dumps(act))
            for s, c in clients.items():
                (u,) = c.take()
                if s == seat:
                    hands = u["hand"]["hands"]
                    assert [i for i, h in enumerate(hands) if h is not None] == [seat]
                    assert len(hands[seat]) == 11
                else:
                    assert "hands" not in u["hand"], (s, u)

        loop.run_until_complete(main())


def test_step_events_are_what_replaying_the_whole_hand_adds() -> None:
    for game, variant, options in CONFIGS:
        for seed in range(6):
            table = Table.new(
                game,
                variant,
                seats=[None] * (4 if game == "quinto" else 5),
                seed=seed,
                options=options,
                deal=False,
            )
            state = table.deal()
            rng = random.Random(seed)
            log = views.PublicLog(game)
            while not state.is_terminal():
                seat = rng.choice(state.actors())
                a = rng.choice(state.legal_actions(seat))
                after = state.child(a, seat)
                step = views.step_events(state, seat, a, after)
                assert step == views.step_events(state, seat, a)  # read from a position
                log.add(step)
                state = after
                whole, last = views.public_log(state)
                assert log.json == whole and log.last == last, (game, variant, seed)
            assert log.events == state.events()


def test_a_seats_view_is_its_observations_hands_and_legal_actions() -> None:
    for game, variant, options in CONFIGS:
        for seed in range(4):
            n = 4 if game == "quinto" else 5
            table = Table.new(game, variant, seats=[None] * n, seed=seed, options=options)
            state = table.state
            rng = random.Random(seed)
            while True:
                for seat in range(n):
                    obs = state.observation(seat)
                    assert state.private_view(seat) == (obs.hands, obs.legal_actions)
                    assert HandState.private_view(state, seat) == (obs.hands, obs.legal_actions)
                    public = views.public_hand_json(obs, 0)
                    assert public == views.public_hand_json(state.observation(0), 0)
                if state.is_terminal():
                    break
                seat = rng.choice(state.actors())
                state = state.child(rng.choice(state.legal_actions(seat)), seat)


def test_the_public_log_and_sheet_never_replay_the_hand_per_action(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    replayed: list[int] = []
    original = HandState.__dict__.get("events")
    assert original is None  # each game defines its own events(): wrap both
    from quintet.quinto import QuintoState
    from quintet.quintus import QuintusState

    for cls in (QuintoState, QuintusState):
        inner = cls.events

        def counted(self: Any, inner: Any = inner) -> Any:
            replayed.append(len(self.history()))
            return inner(self)

        monkeypatch.setattr(cls, "events", counted)
    with hub_running() as (hub, loop):
        for config in (CONFIGS[0], CONFIGS[4]):

            async def main(config: tuple[str, str, JSON] = config) -> None:
                t, clients = await seat_everyone(hub, *config, 11)
                rng = random.Random(11)
                replayed.clear()
                actions = 0
                while not t.table.state.is_terminal():
                    state = t.table.state
                    seat = rng.choice(state.actors())
                    a = rng.choice(state.legal_actions(seat))
                    c = clients[t.controller(seat)]
                    msg = {"type": "act", "action": action_to_json(a, seat), "expect": t.seq}
                    await hub.handle(c.conn, json.dumps(msg))
                    for k in clients.values():
                        k.take()
                    actions += 1
                assert actions > 40 and t.summary() is not None
                # Only one-action positions are read (an action's own events), to the
                # summary at the end of the hand.
                assert replayed and max(replayed) <= 1, replayed

            loop.run_until_complete(main())


@given(st.lists(st.one_of(st.none(), st.integers(0, (1 << 53) - 1)), min_size=1, max_size=5))
def test_hands_are_encoded_as_the_json_of_their_cards(hands: list[int | None]) -> None:
    # The live table encodes hands from a table of card texts, not through the lists.
    assert views.hands_text(hands) == dumps(views.hands_json(hands))
    assert json.loads(views.hands_text(hands)) == views.hands_json(hands)
