"""Server CPU time per action and per message check, against the bare engine, in one run.

    .venv/bin/python bench/server_cpu.py [--hands 20]

Part 1, per action: a :class:`~quintet.server.live.Hub` (SQLite in a temporary file) runs
in this process with four in-memory connections per table, each a person of its own
(no network). A hand is played by random legal actions sent as ``act`` messages; the
CPU time of the event loop's thread (``time.thread_time``) over the hand, divided by its
actions, is what the server spends per action: parsing and checking the message (the
declared model), the seat and lock checks, the engine's check, the stored row (one
commit per action: a single table has no group to commit with), and the four
``update`` messages written out. Interleaved with it, the same hand is replayed on
the bare engine with what no server can skip (``act`` checked, four observations): the
floor. The ratio of the two is printed.

Part 2, per message: the websocket's checks (:func:`quintet.server.messages.
parse_message`) against plain ``json.loads`` of the same texts, interleaved.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from typing import Any

from quintet.actions import action_to_json
from quintet.server.conn import Conn
from quintet.server.db import Store
from quintet.server.live import Hub
from quintet.server.messages import CreateTable, parse_message
from quintet.server.settings import Settings
from quintet.table import Table


async def _sink(text: str) -> None:
    return None


async def _close(code: int, reason: str) -> None:
    return None


async def hand_on_hub(hub: Hub, seed: int) -> tuple[float, list[tuple[int, int]], int]:
    """Play one hand at a new table; return (CPU seconds, its actions, the table's seed)."""
    body = CreateTable(game="quinto", seats=["open"] * 4, seed=seed)
    made = await hub.create_table(body, f"creator{seed}", None)
    t = hub.tables[made["id"]]
    conns = []
    senders = []
    for s in range(4):
        c = Conn(_sink, _close, hub.settings, f"{seed}-{s}")
        senders.append(asyncio.create_task(c.sender()))
        await hub.handle(c, json.dumps({"type": "hello", "table": t.id}))
        await hub.handle(c, json.dumps({"type": "join", "seat": s, "name": f"p{s}"}))
        conns.append(c)
    rng = random.Random(seed)
    played: list[tuple[int, int]] = []
    await asyncio.sleep(0)
    cpu0 = time.thread_time()
    while not t.table.state.is_terminal():
        st = t.table.state
        seat = st.current_player()
        a = rng.choice(st.legal_actions(seat))
        msg = {"type": "act", "action": action_to_json(a, seat), "expect": t.seq}
        await hub.handle(conns[seat], json.dumps(msg))
        played.append((seat, a))
        await asyncio.sleep(0)  # the senders write the state messages out
    cpu = time.thread_time() - cpu0
    for c in conns:
        hub.disconnect(c)
    for task in senders:
        task.cancel()
    return cpu, played, seed


def hand_on_engine(seed: int, played: list[tuple[int, int]]) -> float:
    """Replay a hand on the bare engine (checked act, four observations); CPU seconds."""
    table = Table.new("quinto", None, seats=[None] * 4, seed=seed, deal=False)
    st = table.deal()
    cpu0 = time.thread_time()
    for seat, a in played:
        st.act(a, seat)
        for s in range(4):
            st.observation(s)
    return time.thread_time() - cpu0


async def per_action(hands: int) -> None:
    d = tempfile.mkdtemp(prefix="quintet-cpu-")
    settings = Settings(
        db_url=f"sqlite:///{d}/b.db",
        bot_delay=0.0,
        allow_seed=True,
        rate=1e9,
        burst=1e9,
        create_rate=1e9,
        create_burst=1e9,
        max_tables_per_client=10**9,
        search_workers=1,
    )
    hub = Hub(settings, Store(settings.db_url))
    await hub.start()
    server_us: list[float] = []
    engine_us: list[float] = []
    actions = 0
    for i in range(hands):
        cpu, played, seed = await hand_on_hub(hub, 1000 + i)
        floor = hand_on_engine(seed, played)
        actions += len(played)
        server_us.append(1e6 * cpu / len(played))
        engine_us.append(1e6 * floor / len(played))
    await hub.stop()
    s, e = statistics.median(server_us), statistics.median(engine_us)
    print(
        f"per action ({hands} hands, {actions} actions, CPU time of the loop's thread): "
        f"server median {s:.0f} us, bare engine {e:.0f} us, ratio {s / e:.1f}"
    )


def per_message(rounds: int) -> None:
    rng = random.Random(1)
    texts = []
    for i in range(2000):
        kind = rng.choice(["act", "act", "act", "ping", "hello", "join", "hint", "next"])
        msg: dict[str, Any] = {"type": kind, "id": i}
        if kind == "act":
            msg["action"] = {"type": "play", "card": rng.choice(["AS", "QH", "7C", "JK"])}
            msg["expect"] = rng.randrange(500)
        elif kind == "ping":
            msg["t"] = rng.random()
        elif kind == "hello":
            msg.update(table="Xv3k9QmZ0aBc", token="kM" * 16, v=1)
        elif kind == "join":
            msg.update(seat=rng.randrange(4), name="Ann", invite="s8Hq2abcdefg")
        texts.append(json.dumps(msg))
    checked: list[float] = []
    loads: list[float] = []
    for _ in range(rounds):
        t0 = time.thread_time()
        for text in texts:
            parse_message(text)
        checked.append(time.thread_time() - t0)
        t0 = time.thread_time()
        for text in texts:
            json.loads(text)
        loads.append(time.thread_time() - t0)
    c = 1e6 * statistics.median(checked) / len(texts)
    j = 1e6 * statistics.median(loads) / len(texts)
    print(
        f"per message ({len(texts)} messages x {rounds}): parse_message {c:.1f} us, "
        f"json.loads {j:.1f} us, ratio {c / j:.1f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    asyncio.run(per_action(args.hands))
    per_message(args.rounds)


if __name__ == "__main__":
    main()
