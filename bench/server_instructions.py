"""Instructions the real server spends per action, counted by valgrind: a figure that
does not move with the machine's load.

    .venv/bin/python bench/server_instructions.py [--tables 10] [--hands 2]
        [--checkout DIR ...]

``quintet serve`` (SQLite, the server of ``bench/server_load.py``) runs under
``valgrind --tool=cachegrind --cache-sim=no``, which counts the instructions a process
runs (user space: the kernel's share of a syscall is not counted), the same count on
every run of the same code and inputs, whatever else the machine does (give or take
a few percent: how the players' messages interleave, and so how many actions a group
commit holds, follows the timing). It runs twice:
once to set ``--tables`` Quinto tables up (four scripted websocket players each, the
first hand dealt) and stop, once to set them up the same way and then play ``--hands``
hands at each (each player acting the moment it may, as in ``bench/server_load.py``:
the same seeds, so the same deals). The difference of the two counts, divided by the
actions of the second, is what an action costs the server: the websocket's frames in
and out, the message checks, the engine, the stored row, the messages to the four
players, the deals and ``next`` of the hands after the first, shared out over their
actions. ``--fanout`` counts the floor under it instead: groups of four clients on
``/bench/fanout`` (``bench/server_load.py``'s fan-out floor), one text of an update's
size in and four out, as many as the tables' actions.

``bench/server_load.py`` measures CPU time under load, which on a shared machine moves
by a tenth or more from run to run; this count is what tells two versions of the
server apart. ``--checkout DIR`` counts the server of another checkout (a ``git
worktree`` of an older commit, say) in the same run, one after the other: a ratio.
Valgrind runs the server some 50 times slower, so a run takes minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

import httpx
import websockets

from quintet.server.security import new_cookie
from quintet.server.testing import ServerProcess

JSON = dict[str, Any]

# Counts the instructions a process runs and prints the total ("I   refs: N") on stderr
# when it exits; nothing else (no cache simulation, no output file).
VALGRIND = [
    "valgrind",
    "--tool=cachegrind",
    "--cache-sim=no",
    "--cachegrind-out-file=/dev/null",
]


def instructions_in(log: str) -> int:
    """The instruction count valgrind printed in ``log`` (a process's stderr)."""
    m = re.search(r"I\s+refs:\s+([\d,]+)", log)
    if m is None:
        raise RuntimeError(f"no instruction count in the server's log:\n{log[-2000:]}")
    return int(m.group(1).replace(",", ""))


async def play(ws_url: str, http_url: str, tables: int, hands: int) -> int:
    """Seat four players at each of ``tables`` new Quinto tables; once every table has
    dealt, play ``hands`` hands at each; return the actions played."""
    async with httpx.AsyncClient(base_url=http_url, timeout=600) as http:
        ids = []
        for i in range(tables):
            body = {"game": "quinto", "options": {"target": 5000}, "seats": ["open"] * 4}
            r = await http.post("/api/tables", json={**body, "seed": 1000 * tables + i})
            r.raise_for_status()
            ids.append(r.json()["id"])
    dealt = 0
    all_dealt = asyncio.Event()
    actions = 0

    async def seat(table: str, s: int) -> None:
        nonlocal dealt, actions
        rng = random.Random(1000 * s + ids.index(table))
        ws = await websockets.connect(
            ws_url,
            compression=None,
            max_size=2**22,
            open_timeout=600,
            ping_interval=None,
            additional_headers={"Cookie": f"quintet_person={new_cookie()}"},
        )
        status = "waiting"
        legal: list[JSON] = []
        hand: JSON = {}
        counted = False
        next_sent = -1
        async with ws:
            await ws.send(json.dumps({"type": "hello", "table": table}))
            await ws.send(json.dumps({"type": "join", "seat": s, "name": f"p{s}"}))
            while True:
                m = json.loads(await ws.recv())
                if m["type"] == "error":
                    raise RuntimeError(f"table {table} seat {s}: {m}")
                if m["type"] not in ("state", "update"):
                    continue
                status = m.get("status", status)
                legal = m.get("legal", legal)
                if m.get("hand") is not None:
                    hand = {**hand, **m["hand"]} if m["type"] == "update" else m["hand"]
                if status == "waiting":
                    continue
                if not counted:
                    counted = True
                    dealt += 1
                    if dealt == 4 * tables:
                        all_dealt.set()
                    await all_dealt.wait()
                if status == "hand_over":
                    if hand["number"] + 1 >= hands:
                        return
                    if next_sent != hand["number"]:
                        next_sent = hand["number"]
                        await ws.send('{"type":"next"}')
                    continue
                if hands and status == "playing" and legal:
                    action = legal[0] if hand["phase"] != "play" else rng.choice(legal)
                    legal = []
                    actions += 1
                    await ws.send(json.dumps({"type": "act", "action": action}))
                elif not hands:
                    return

    await asyncio.gather(*(seat(t, s) for t in ids for s in range(4)))
    return actions


async def fan_out(ws_url: str, groups: int, rounds: int) -> int:
    """Connect ``groups`` groups of four clients to ``/bench/fanout``; then, ``rounds``
    times in each group, one member sends an update-sized text and all four read it
    (an action's traffic with nothing of a table); return the fan-outs made."""
    base = ws_url.rsplit("/ws", 1)[0] + "/bench/fanout"
    text = json.dumps({"type": "update", "pad": "x" * 400})
    connected = 0
    all_connected = asyncio.Event()

    async def group(g: int) -> int:
        nonlocal connected
        wss = [
            await websockets.connect(f"{base}/{g}", compression=None, ping_interval=None)
            for _ in range(4)
        ]
        connected += 1
        if connected == groups:
            all_connected.set()
        await all_connected.wait()
        for i in range(rounds):
            await wss[i % 4].send(text)
            for w in wss:
                await w.recv()
        for w in wss:
            await w.close()
        return rounds

    return sum(await asyncio.gather(*(group(g) for g in range(groups))))


def count(
    checkout: str,
    tables: int,
    hands: int,
    fanout: bool = False,
    prefix: list[str] = VALGRIND,
) -> tuple[int, int]:
    """Run the server of ``checkout`` under valgrind (``prefix``) for one run; return
    (instructions, actions): ``hands`` hands at ``tables`` tables, or with ``fanout``, as
    many fan-outs in each of ``tables`` groups of four as a table plays actions in
    ``hands`` hands (52 a hand)."""
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "server.log")
        python = [*prefix, sys.executable]
        # The server's code is the checkout's: ``-m`` looks in the working directory
        # first, then in PYTHONPATH.
        env_path = os.environ.get("PYTHONPATH")
        cwd = os.getcwd()
        os.environ["PYTHONPATH"] = checkout
        os.chdir(checkout)
        try:
            server = ServerProcess(f"sqlite:///{d}/b.db", python=python, log_path=log)
            server.start(timeout=900)
        finally:
            os.chdir(cwd)
            if env_path is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = env_path
        assert server.proc is not None
        try:
            if fanout:
                actions = asyncio.run(fan_out(server.ws, tables, 52 * hands))
            else:
                actions = asyncio.run(play(server.ws, server.http, tables, hands))
        finally:
            server.proc.send_signal(signal.SIGTERM)
            try:
                server.proc.wait(600)
            except subprocess.TimeoutExpired:
                server.proc.kill()
                raise
        with open(log) as f:
            text = f.read()
    return instructions_in(text), actions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=10)
    ap.add_argument("--hands", type=int, default=2)
    ap.add_argument(
        "--checkout",
        action="append",
        default=[],
        metavar="DIR",
        help="also count the server of this checkout (repeat for several)",
    )
    ap.add_argument(
        "--fanout",
        action="store_true",
        help="count the fan-out floor instead: one text in and four out, no table",
    )
    args = ap.parse_args()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    checkouts = [here, *[os.path.abspath(c) for c in args.checkout]]
    got = {}
    for c in checkouts:
        t0 = time.monotonic()
        base, _ = count(c, args.tables, 0, args.fanout)
        total, actions = count(c, args.tables, args.hands, args.fanout)
        per = (total - base) / max(actions, 1)
        got[c] = per
        print(
            f"{c}: {per / 1000:.1f}k instructions per action ({actions} actions, "
            f"{args.tables} tables, {args.hands} hands; set-up {base / 1e9:.2f}G, "
            f"with play {total / 1e9:.2f}G; {time.monotonic() - t0:.0f} s)",
            flush=True,
        )
    for c in checkouts[1:]:
        print(f"{here} / {c}: {got[here] / got[c]:.3f}")


if __name__ == "__main__":
    main()
