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

``--parts N`` (part 3, instead of the others): where an action's CPU goes at N busy
tables. N tables are set up and seated first (untimed); then every table plays ``--hands``
hands at once (a random legal action the moment it may, ``next`` after each hand), so
that the store commits a group of actions at a time as it does under load, and the loop
thread's CPU time over all their actions is divided by their number. Each round plays
four ways, interleaved: the whole server; without the store (each action's row and job
dropped: no commit, and no waiting for one); without the broadcast (no message made or
sent after a change); without either. Printed: the median of ``--rounds`` rounds of each,
and the differences: what the store and the broadcast cost an action (including the
task switches they bring), and what is left (the message's checks, the engine, the
log, the table's own bookkeeping). No websockets: what the stack costs is
``bench/ws_fanout.py``'s.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
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


async def _instant_write(row: Any, job: Any = None) -> None:
    return None


async def busy_tables(tables: int, hands: int, without: frozenset[str]) -> float:
    """Play ``hands`` hands at each of ``tables`` tables at once, the parts named in
    ``without`` ("store", "broadcast") removed; return the loop thread's CPU
    microseconds per action."""
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
    go = asyncio.Event()
    seated: list[asyncio.Future[None]] = []
    senders: list[asyncio.Task[None]] = []

    async def play(seed: int, ready: asyncio.Future[None]) -> int:
        made = await hub.create_table(
            CreateTable(game="quinto", seats=["open"] * 4, seed=seed), f"creator{seed}", None
        )
        t = hub.tables[made["id"]]
        conns = []
        for s in range(4):
            c = Conn(_sink, _close, hub.settings, f"{seed}-{s}")
            senders.append(asyncio.create_task(c.sender()))
            await hub.handle(c, json.dumps({"type": "hello", "table": t.id}))
            await hub.handle(c, json.dumps({"type": "join", "seat": s, "name": f"p{s}"}))
            conns.append(c)
        if "broadcast" in without:
            t.broadcast = lambda: None  # type: ignore[method-assign]
        ready.set_result(None)
        await go.wait()
        rng = random.Random(seed)
        n = 0
        for h in range(hands):
            while not t.table.state.is_terminal():
                st = t.table.state
                seat = st.current_player()
                a = rng.choice(st.legal_actions(seat))
                msg = {"type": "act", "action": action_to_json(a, seat), "expect": t.seq}
                await hub.handle(conns[seat], json.dumps(msg))
                n += 1
                await asyncio.sleep(0)
            if h < hands - 1 and not t.match_over():
                for c in conns:
                    await hub.handle(c, json.dumps({"type": "next"}))
                await asyncio.sleep(0)
        return n

    loop = asyncio.get_running_loop()
    tasks = []
    for i in range(tables):
        ready: asyncio.Future[None] = loop.create_future()
        seated.append(ready)
        tasks.append(asyncio.create_task(play(5000 + i, ready)))
    await asyncio.gather(*seated)
    for _ in range(3):  # let the seats' writes and messages settle
        await asyncio.sleep(0.01)
    if "store" in without:
        hub.store.write_action = _instant_write  # type: ignore[method-assign]
    gc.collect()
    cpu0 = time.thread_time()
    go.set()
    counts = await asyncio.gather(*tasks)
    cpu = time.thread_time() - cpu0
    for task in senders:
        task.cancel()
    await hub.stop()
    return 1e6 * cpu / max(1, sum(counts))


async def parts(tables: int, hands: int, rounds: int) -> None:
    gc.set_threshold(50_000, 20, 100)  # as `quintet serve` has it (quintet/server/app.py)
    ways = {
        "whole": frozenset(),
        "no store": frozenset({"store"}),
        "no broadcast": frozenset({"broadcast"}),
        "neither": frozenset({"store", "broadcast"}),
    }
    got: dict[str, list[float]] = {k: [] for k in ways}
    names = list(ways)
    for r in range(rounds):
        for k in names[r % 4 :] + names[: r % 4]:  # the order rotates
            got[k].append(await busy_tables(tables, hands, ways[k]))
    m = {k: statistics.median(v) for k, v in got.items()}
    print(
        f"parts ({tables} tables at once, {hands} hands each, {rounds} rounds, CPU time of "
        f"the loop's thread per action, medians):"
    )
    for k in names:
        print(f"  {k:<13} {m[k]:6.0f} us  ({', '.join(f'{x:.0f}' for x in got[k])})")
    print(
        f"  the store {m['whole'] - m['no store']:.0f} us, the broadcast "
        f"{m['whole'] - m['no broadcast']:.0f} us, the rest {m['neither']:.0f} us an action"
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
    ap.add_argument("--parts", type=int, default=0, metavar="N", help="part 3 at N tables")
    args = ap.parse_args()
    if args.parts:
        asyncio.run(parts(args.parts, args.hands, args.rounds))
        return
    asyncio.run(per_action(args.hands))
    per_message(args.rounds)


if __name__ == "__main__":
    main()
