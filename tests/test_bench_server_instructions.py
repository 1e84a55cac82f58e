"""bench/server_instructions.py: its players play the hands asked for, its fan-out groups
make the fan-outs asked for (against a real server, without valgrind), and a run reads
valgrind's count from the server's log."""

from __future__ import annotations

import asyncio
import importlib.util
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from quintet.server.testing import ServerProcess

ROOT = Path(__file__).resolve().parent.parent


def _bench() -> Any:
    path = ROOT / "bench" / "server_instructions.py"
    spec = importlib.util.spec_from_file_location("server_instructions_bench", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_the_players_play_every_hand_asked_for_and_the_groups_every_fan_out() -> None:
    bench = _bench()
    with tempfile.TemporaryDirectory() as d, ServerProcess(f"sqlite:///{d}/b.db") as server:
        # Two tables, two hands each: a Quinto hand is 52 plays and up to 3 doublings.
        played = asyncio.run(bench.play(server.ws, server.http, 2, 2))
        assert 2 * 2 * 52 <= played <= 2 * 2 * 55
        assert asyncio.run(bench.play(server.ws, server.http, 1, 0)) == 0  # set-up only
        assert asyncio.run(bench.fan_out(server.ws, 3, 5)) == 15


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_a_run_counts_the_servers_instructions_under_valgrind() -> None:
    bench = _bench()
    instructions, actions = bench.count(str(ROOT), 1, 0, fanout=True)
    assert actions == 0
    assert instructions > 10**9  # the interpreter and the server's start alone
