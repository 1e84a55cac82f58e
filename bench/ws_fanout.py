"""The websocket stack's own cost of a table's action: one message in, four out.

    .venv/bin/python bench/ws_fanout.py [--groups 1,10,100] [--seconds 6]
        [--ws websockets-sansio,websockets] [--send starlette,asgi] [--rounds 1]

Starts uvicorn (the settings ``quintet serve`` uses) on a bare FastAPI app that does
nothing but this: a client of a group of four sends a message, and the app sends a
fixed message of the size of an update (some 400 bytes) to each of the four. The
clients (one process, uvloop) keep every group busy; the server's CPU time (user and
system, ``/proc``) per fan-out is what receiving one message and sending four costs on
uvicorn, Starlette and websockets, with nothing of quintet: the floor under
``bench/server_load.py``'s CPU per action.

``--ws`` names uvicorn's websocket implementations to compare (its ``--ws``: the
default, ``auto``, is ``websockets-sansio`` with websockets installed), ``--send`` how
the app sends: Starlette's ``send_text``, or the server's ASGI ``send`` called directly
(what ``quintet serve`` does: :func:`quintet.server.app.text_sender`). Every
combination runs in turn, ``--rounds`` times over, so that a machine's changing load
falls on all of them alike.

As a module (``uvicorn bench.ws_fanout:app``) it is the app.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from typing import Any

from fastapi import FastAPI, WebSocket

from quintet.server.testing import free_port

app = FastAPI()
_GROUPS: dict[str, list[WebSocket]] = {}
_UPDATE = json.dumps(
    {
        "type": "update",
        "table": "Xv3k9QmZ0aBc",
        "seq": 58,
        "hand": {
            "actions": 57,
            "turn": 3,
            "hand_sizes": [9, 9, 9, 10],
            "trick": [{"seat": 0, "card": "AS"}, {"seat": 1, "card": "5S"}],
        },
        "log": {
            "hand": 0,
            "from": 71,
            "events": [
                {
                    "kind": "action",
                    "seat": 2,
                    "text": "South: 3S",
                    "action": {"seat": 2, "type": "play", "card": "3S"},
                }
            ],
        },
    }
)


class KeepSend:
    """ASGI middleware keeping a websocket's ``send`` as the server gave it (the Guard's
    part in ``quintet serve``)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            scope["bench.send"] = send
        await self.app(scope, receive, send)


app.add_middleware(KeepSend)


@app.websocket("/fan/{group}")
async def fan(ws: WebSocket, group: str) -> None:
    """Send the update to every member of the group for each message received."""
    await ws.accept()
    members = _GROUPS.setdefault(group, [])
    members.append(ws)
    try:
        while True:
            m = await ws.receive()
            if m["type"] == "websocket.disconnect":
                break
            for w in list(members):
                await w.send_text(_UPDATE)
    except Exception:  # a member went away: the run is over
        pass
    finally:
        members.remove(ws)


@app.websocket("/asgi/{group}")
async def fan_asgi(ws: WebSocket, group: str) -> None:
    """As :func:`fan`, sending through each member's ASGI ``send`` itself."""
    await ws.accept()
    members = _GROUPS.setdefault(group, [])
    members.append(ws)
    message = {"type": "websocket.send", "text": _UPDATE}
    try:
        while True:
            m = await ws.receive()
            if m["type"] == "websocket.disconnect":
                break
            for w in list(members):
                await w.scope["bench.send"](message)
    except Exception:  # a member went away: the run is over
        pass
    finally:
        members.remove(ws)


def _cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


async def _run(
    port: int, pid: int, groups: int, seconds: float, path: str, run: int
) -> tuple[float, float]:
    import websockets

    count = 0
    stop = False

    async def group(g: int) -> None:
        nonlocal count
        url = f"ws://127.0.0.1:{port}/{path}/{run}-{groups}-{g}"
        wss = [await websockets.connect(url, compression=None) for _ in range(4)]
        await asyncio.sleep(0.5)
        i = 0
        while not stop:
            await wss[i % 4].send('{"type":"act","action":"AS","expect":57}')
            for w in wss:
                await w.recv()
            count += 1
            i += 1
        for w in wss:
            await w.close()

    tasks = [asyncio.create_task(group(g)) for g in range(groups)]
    await asyncio.sleep(2.0)
    c0, n0, t0 = _cpu(pid), count, time.perf_counter()
    await asyncio.sleep(seconds)
    cpu, n, wall = _cpu(pid) - c0, count - n0, time.perf_counter() - t0
    stop = True
    await asyncio.gather(*tasks, return_exceptions=True)
    return n / wall, 1000 * cpu / max(n, 1)


def send_overhead(repeats: int = 7, n: int = 200_000) -> dict[str, float]:
    """Return the CPU microseconds a message costs through Starlette's ``send_text`` and
    through :func:`quintet.server.app.text_sender`, over a send that does nothing (the
    exception handler's wrapper between, as in an app): the least of ``repeats``."""
    from starlette.websockets import WebSocketState

    from quintet.server.app import text_sender
    from quintet.server.security import WS_SEND

    async def server_send(message: Any) -> None:
        return None

    async def wrapped(message: Any) -> None:  # Starlette's exception handler's sender
        await server_send(message)

    async def receive() -> Any:
        return {"type": "websocket.connect"}

    scope = {"type": "websocket", "path": "/", "headers": [], WS_SEND: server_send}
    ws = WebSocket(scope, receive, wrapped)
    ws.application_state = WebSocketState.CONNECTED
    ways = {"starlette": ws.send_text, "asgi": text_sender(ws)}
    best = {name: float("inf") for name in ways}
    for _ in range(repeats):
        for name, send in ways.items():
            start = time.thread_time()
            for _ in range(n):
                coro = send(_UPDATE)
                try:  # noqa: SIM105 - a context manager would be timed with it
                    coro.send(None)
                except StopIteration:
                    pass
            best[name] = min(best[name], 1e6 * (time.thread_time() - start) / n)
    return best


def main() -> None:
    """Start the bare app, drive it, print the server's CPU per fan-out."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--groups", default="1,10,100", help="comma-separated groups of four")
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--ws", default="websockets-sansio", help="uvicorn --ws, comma-separated")
    ap.add_argument("--send", default="starlette", help="starlette and/or asgi, comma-separated")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument(
        "--overhead", action="store_true", help="only time Starlette's send_text (no server)"
    )
    args = ap.parse_args()
    if args.overhead:
        best = send_overhead()
        print(
            f"per message over a no-op send (least of 7): starlette send_text "
            f"{best['starlette']:.2f} us, ASGI send (text_sender) {best['asgi']:.2f} us"
        )
        return
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover
        pass
    paths = {"starlette": "fan", "asgi": "asgi"}
    sends = args.send.split(",")
    if unknown := [x for x in sends if x not in paths]:
        ap.error(f"--send: unknown {', '.join(unknown)} (starlette or asgi)")
    here = os.path.dirname(os.path.abspath(__file__))
    runs = 0
    for r in range(args.rounds):
        for impl in args.ws.split(","):
            port = free_port()
            cmd = [sys.executable, "-m", "uvicorn", "ws_fanout:app", "--app-dir", here]
            cmd += ["--port", str(port), "--log-level", "warning", "--no-access-log"]
            cmd += ["--ws-per-message-deflate", "false", "--ws", impl]
            proc = subprocess.Popen(cmd)
            try:
                time.sleep(2.0)
                if proc.poll() is not None:
                    raise SystemExit(f"uvicorn --ws {impl} did not start (exit {proc.returncode})")
                for send in sends:
                    for g in (int(x) for x in args.groups.split(",")):
                        runs += 1
                        rate, ms = asyncio.run(
                            _run(port, proc.pid, g, args.seconds, paths[send], runs)
                        )
                        print(
                            f"round {r + 1} ws {impl:<17} send {send:<9} {g:>4} groups of 4: "
                            f"{rate:6.0f} fan-outs/s, server CPU {ms:.3f} ms "
                            "per message in and four out",
                            flush=True,
                        )
            finally:
                proc.terminate()
                proc.wait(10)


if __name__ == "__main__":
    main()
