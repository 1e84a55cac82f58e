"""Nothing lost: a server killed with SIGKILL mid-hand resumes every table exactly.

A table with a scripted websocket player and three bots is played while the server is
killed (SIGKILL) and started again on the same database; the player reconnects with its
seat token and plays on. The finished game's record must equal the record of the same
table (same seed, same script) played without interruption, and no state a client saw
before the kill may be missing after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import httpx
import websockets

from quintet.server.testing import SeatClient, ServerProcess, create_table, first_choice

BODY: dict[str, Any] = {
    "game": "quinto",
    "variant": "partnership",
    "options": {"target": 60},
    "seats": [{"kind": "open"}, "random", "random", "random"],
    "seed": 77,
}


async def play_through(server: ServerProcess, table: str, client: SeatClient) -> None:
    """Let the client play until the match is over."""
    await asyncio.wait_for(client.play(), timeout=60)


def record_of(server: ServerProcess, table: str) -> dict[str, Any]:
    r = httpx.get(f"{server.http}/api/games/{table}/record", timeout=30)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = json.loads(r.text)
    return out


def test_a_table_killed_mid_hand_resumes_identically(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'restart.db'}"
    log = str(tmp_path / "log")

    # The reference: the same table played without interruption.
    with ServerProcess(url, bot_delay=0.0, log_path=log) as server:
        ref = create_table(server.http, {**BODY, "join": {"seat": 0, "name": "Ann"}})

        async def reference() -> None:
            c = SeatClient(server.ws, ref["id"], token=ref["token"], choose=first_choice)
            await c.connect()
            await play_through(server, ref["id"], c)
            await c.close()

        asyncio.run(reference())
        expected = record_of(server, ref["id"])

    # The same table, with the server killed twice while bots and the player act.
    server = ServerProcess(url, bot_delay=0.01, log_path=log).start()
    created = create_table(server.http, {**BODY, "join": {"seat": 0, "name": "Bob"}})
    tid, token = created["id"], created["token"]
    seen: list[int] = []
    try:
        for stop_at in (9, 40):

            async def until_kill(server: ServerProcess, stop_at: int) -> None:
                c = SeatClient(server.ws, tid, token=token, choose=first_choice)
                await c.connect()
                task = asyncio.create_task(c.play())
                while c.state is None or c.state["seq"] < stop_at:
                    await asyncio.sleep(0.005)
                seen.append(max(m["seq"] for m in c.messages if m["type"] in ("state", "update")))
                server.kill()
                with contextlib.suppress(websockets.ConnectionClosed, TimeoutError):
                    await asyncio.wait_for(task, timeout=10)

            asyncio.run(until_kill(server, stop_at))
            server = ServerProcess(url, bot_delay=0.01, log_path=log).start()
            info = httpx.get(f"{server.http}/api/tables/{tid}", timeout=30).json()
            assert info["seq"] >= seen[-1], "a state sent before the kill was lost"
            assert info["status"] in ("playing", "hand_over")

        async def finish() -> None:
            c = SeatClient(server.ws, tid, token=token, choose=first_choice)
            await c.connect()
            first = await c.recv()
            assert first["type"] == "welcome" and first["seat"] == 0
            await play_through(server, tid, c)
            await c.close()

        asyncio.run(finish())
        got = record_of(server, tid)
    finally:
        server.stop()
    assert got["hands"] == expected["hands"]
    assert got["table"]["seed"] == expected["table"]["seed"]
    assert "Traceback" not in Path(log).read_text()
