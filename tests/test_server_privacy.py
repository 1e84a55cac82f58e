"""Hidden information: hundreds of hands played through the real websocket protocol, and
every card in every message to every seat and spectator checked against what that
recipient may see at that moment.

The oracle here is independent of the server's views: from the finished game's record it
replays each hand to the point a message describes (``hand.number``, ``hand.actions``)
and allows exactly: the cards of the seats the recipient plays (the lone player's dummy
once the doubling round is over), the cards played so far in the hand, the cachette once
taken, an open-nil hand (to everyone), and, once the hand is over, the whole deal.
"""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from quintet.cards import CardMask, parse_card
from quintet.game import Phase
from quintet.record import Record, read_record, replay
from quintet.server.testing import (
    SeatClient,
    ServerProcess,
    apply_update,
    create_table,
    random_choice,
)

JSON = dict[str, Any]
ROUNDS = 11
CARD = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][SCDH]|JK)(?![A-Za-z0-9])")

#: (game, variant, options, seats): "p" a websocket client, anything else a server bot.
CONFIGS: list[tuple[str, str, JSON, list[str]]] = [
    ("quinto", "partnership", {"target": 150}, ["p", "p", "p", "p"]),
    ("quinto", "partnership", {"target": 150}, ["p", "random", "p", "p"]),
    ("quinto", "dummy", {"target": 200}, ["p", "p", "dummy", "p"]),
    ("quinto", "dummy", {"target": 200, "dummy_double_view": "leading"}, ["p", "p", "d", "p"]),
    ("quintus", "base", {"hands": 5}, ["p", "p", "p", "p", "p"]),
    ("quintus", "bidding", {"hands": 5}, ["p", "p", "heuristic", "p", "p"]),
]


def cards_in(raw: str, table_id: str) -> list[int]:
    """Return every card code in a message's text (the table's id taken out)."""
    return [parse_card(m) for m in CARD.findall(raw.replace(table_id, ""))]


class Oracle:
    """What each recipient may see at each point of a finished game's record."""

    def __init__(self, record: Record) -> None:
        self.record = record
        self.match = replay(record)
        self.lone = record.lone_seat
        self.leading = record.options.get("dummy_double_view") == "leading"
        self._states: dict[tuple[int, int], Any] = {}
        self._allowed: dict[tuple[int, int, int | None], CardMask] = {}

    def state(self, hand: int, actions: int) -> Any:
        """Return the hand's state before action ``actions``."""
        key = (hand, actions)
        if key not in self._states:
            final: Any = self.match.hands[hand]
            st: Any = final.snapshot()
            for s, a in final.history()[:actions]:
                st.apply_action(a, s)
            self._states[key] = st
        return self._states[key]

    def visible_seats(self, st: Any, seat: int | None) -> set[int]:
        """Return the seats whose hands ``seat`` (None: a spectator) may see (rules.md)."""
        vis: set[int] = set() if seat is None else {seat}
        if seat is not None and self.lone is not None and seat == self.lone:
            dummy = (self.lone + 2) % 4
            if st.phase != Phase.DOUBLING:  # the doubling round is over: the lone plays both hands
                vis = {seat, dummy}
            elif self.leading and st.dealer != seat:
                order = [(st.dealer + i) % 4 for i in range(1, 5)]
                vis = {next(s for s in order if s in (seat, dummy))}
        if st.game == "quintus" and st.nil == 2:
            vis.add(st.quintus)
        return vis

    def allowed(self, st: Any, seat: int | None) -> CardMask:
        """Return every card ``seat`` may see at this point."""
        if st.is_terminal():  # the deal is shown to everyone once the hand is over
            m = 0
            for h in st.initial_hands():
                m |= h
            if st.game == "quinto":
                m |= st.initial_cachette()
            return m
        m = 0
        for _, a in st.history():
            if a <= 52:
                m |= 1 << a
        for s in self.visible_seats(st, seat):
            m |= st.hands[s]
        if st.game == "quinto" and st.cachette_side is not None:
            m |= st.cachette
        return m

    def check(self, client: SeatClient, table_id: str) -> int:
        """Assert every message holds only allowed cards; return the cards checked."""
        seat = client.seat
        where: tuple[int, int] | None = None
        checked = 0
        own_seen = 0
        table: JSON | None = None  # the table as the client keeps it (updates applied)
        for m, raw in zip(client.messages, client.raw, strict=True):
            hand = None
            if m["type"] in ("state", "update"):
                table = apply_update(table, m)
                hand = table["hand"]
            if isinstance(hand, dict):
                where = (hand["number"], hand["actions"])
            cards = cards_in(raw.replace(client.token or table_id, ""), table_id)
            if not cards:
                continue
            assert where is not None, f"cards before any hand: {m}"
            st = self.state(*where)
            key = (*where, seat)
            if key not in self._allowed:
                self._allowed[key] = self.allowed(st, seat)
            allowed = self._allowed[key]
            who = "spectator" if seat is None else f"seat {seat}"
            for c in cards:
                assert allowed >> c & 1, (
                    f"{who} was sent a card it may not see at hand {where[0]} "
                    f"action {where[1]}: {m}"
                )
            checked += len(cards)
            if isinstance(hand, dict) and not st.is_terminal():
                # Not vacuous: exactly the hands this recipient may see are shown.
                vis = self.visible_seats(st, seat)
                for s, shown in enumerate(hand["hands"]):
                    if s in vis:
                        assert shown is not None, f"{who} was not shown seat {s}'s hand"
                        assert sum(1 << parse_card(c) for c in shown) == st.hands[s]
                        own_seen += 1
                    else:
                        assert shown is None, f"{who} was shown seat {s}'s hand: {m}"
        assert seat is None or own_seen > 0
        return checked


async def play_table(
    server: ServerProcess, config: tuple[str, str, JSON, list[str]], seed: int
) -> tuple[int, int]:
    """Play one match at a table of websocket clients; check every message. Return
    (hands played, cards checked)."""
    game, variant, options, spec = config
    seats: list[JSON] = [
        {"kind": "open"} if s in ("p", "dummy", "d") else {"kind": "bot", "level": s} for s in spec
    ]
    body: JSON = {
        "game": game,
        "variant": variant,
        "options": options,
        "seats": seats,
        "seed": seed,
    }
    created = await asyncio.to_thread(create_table, server.http, body)
    tid = created["id"]
    spectator = SeatClient(server.ws, tid)
    await spectator.connect()
    clients: list[SeatClient] = []
    for s, row in enumerate(created["seats"]):
        if row["kind"] != "open":
            continue
        c = SeatClient(server.ws, tid, rng=random.Random(seed * 10 + s), choose=random_choice)
        await c.connect()
        await c.join(s, f"p{s}")
        clients.append(c)
    tasks = [asyncio.create_task(c.play()) for c in [*clients, spectator]]
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=120)
    for c in [*clients, spectator]:
        await c.close()
    r = await asyncio.to_thread(httpx.get, f"{server.http}/api/games/{tid}/record", timeout=30)
    assert r.status_code == 200, r.text
    record = read_record(r.text)
    oracle = Oracle(record)
    checked = 0
    for c in clients:
        bad = [e for e in c.errors if e["code"] not in ("stale",)]
        assert not bad, bad
        checked += oracle.check(c, tid)
    checked += oracle.check(spectator, tid)
    # The public log a client assembles from the deltas is the engine's event log.
    logs: dict[int, list[str]] = {}
    for m in spectator.messages:
        if m["type"] in ("state", "update") and m.get("log"):
            got = logs.setdefault(m["log"]["hand"], [])
            assert m["log"]["from"] == len(got)
            got.extend(e["text"] for e in m["log"]["events"])
    for h, texts in logs.items():
        assert texts == [e.text for e in oracle.match.hands[h].events()]
    # The end-of-hand summaries show the deal as the record has it.
    for m, shown in zip(spectator.messages_of_table(), spectator.states, strict=True):
        if m.get("summary"):
            h = record.hands[shown["hand"]["number"]]
            deal = [
                sum(1 << parse_card(c) for c in cards) for cards in m["summary"]["deal"]["hands"]
            ]
            assert deal == h.hands
    return len(record.hands), checked


def _config_id(cfg: tuple[str, str, JSON, list[str]]) -> str:
    game, variant, options, seats = cfg
    view = options.get("dummy_double_view")
    return "-".join([game, variant, *([view] if view else []), "".join(s[0] for s in seats)])


@pytest.mark.parametrize("config", CONFIGS, ids=[_config_id(c) for c in CONFIGS])
def test_no_message_to_any_seat_or_spectator_holds_a_card_it_may_not_see(
    tmp_path: Path, config: tuple[str, str, JSON, list[str]]
) -> None:
    """``ROUNDS`` matches of one configuration on one server (each configuration a test
    of its own, so that they run side by side): over the six, some 220 hands."""
    server = ServerProcess(f"sqlite:///{tmp_path / 'privacy.db'}", log_path=str(tmp_path / "log"))
    index = CONFIGS.index(config)
    with server:

        async def main() -> tuple[int, int]:
            played = await asyncio.gather(
                *(play_table(server, config, 100 * index + r + 1) for r in range(ROUNDS))
            )
            return sum(h for h, _ in played), sum(c for _, c in played)

        hands, checked = asyncio.run(main())
    # A Quintus match plays its ``hands``, a partnership rubber at least two games (a
    # hand each at least), a dummy-game match one game: 176 hands at least over the six
    # configurations (213 when last counted).
    least = config[2].get("hands", 2 if config[1] == "partnership" else 1)
    assert hands >= ROUNDS * least, f"only {hands} hands were played"
    assert checked > 1_000 * ROUNDS
    log = (tmp_path / "log").read_text()
    assert "Traceback" not in log, log[-3000:]


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__, "-q"])
