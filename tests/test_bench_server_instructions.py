"""bench/server_instructions.py: its players play the hands asked for, its fan-out groups
make the fan-outs asked for (against a real server, without valgrind), a run reads
valgrind's count from the server's log, and says so clearly when there is none."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import LoadBench

from quintet.server.testing import ServerProcess

ROOT = Path(__file__).resolve().parent.parent


def test_the_players_play_every_hand_asked_for_and_the_groups_every_fan_out(
    load_bench: LoadBench,
) -> None:
    bench = load_bench("server_instructions")
    with tempfile.TemporaryDirectory() as d, ServerProcess(f"sqlite:///{d}/b.db") as server:
        # Two tables, two hands each: a Quinto hand is 52 plays and up to 3 doublings.
        played = asyncio.run(bench.play(server.ws, server.http, 2, 2))
        assert 2 * 2 * 52 <= played <= 2 * 2 * 55
        assert asyncio.run(bench.play(server.ws, server.http, 1, 0)) == 0  # set-up only
        assert asyncio.run(bench.fan_out(server.ws, 3, 5)) == 15


def test_a_run_without_valgrind_says_the_log_holds_no_count(load_bench: LoadBench) -> None:
    # The whole run (the checkout's server started with a prefix, its fan-outs, its stop,
    # its log read), with no valgrind in front: a clear error, not a count of zero.
    bench = load_bench("server_instructions")
    with pytest.raises(RuntimeError, match="no instruction count in the server's log"):
        bench.count(str(ROOT), 1, 1, fanout=True, prefix=[])


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_valgrind_counts_a_programs_instructions(load_bench: LoadBench) -> None:
    # Under valgrind the server starts in about a minute, so the count is read off a
    # small program run the same way (the prefix the bench puts before the server).
    bench = load_bench("server_instructions")
    code = "import json; print(json.dumps([1] * 1000))"
    run = subprocess.run(
        [*bench.VALGRIND, sys.executable, "-c", code], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert bench.instructions_in(run.stderr) > 10**7  # the interpreter's start alone
