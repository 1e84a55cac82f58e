"""bench/vs_openspiel.py: --out kept up to date as deals finish, --resume, --merge."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyspiel")

ARGS = ["--game", "quinto", "--deals", "2", "--seconds", "0.002", "--jobs", "1", "--seed", "7"]


def _bench() -> Any:
    path = Path(__file__).resolve().parent.parent / "bench" / "vs_openspiel.py"
    spec = importlib.util.spec_from_file_location("vs_openspiel_bench", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # its dataclasses look their module up
    spec.loader.exec_module(bench)
    return bench


def test_out_is_written_as_deals_finish_and_a_resumed_shard_plays_only_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _bench()
    out = tmp_path / "shard.json"
    played: list[int] = []
    writes: list[tuple[int, bool]] = []
    play, write = bench.play_deal, bench.write_out

    def counting_play(args: Any, index: int) -> Any:
        played.append(index)
        return play(args, index)

    def counting_write(path: str, results: list[Any], arguments: Any, complete: bool) -> None:
        writes.append((len(results), complete))
        write(path, results, arguments, complete)

    bench.play_deal, bench.write_out = counting_play, counting_write
    assert bench.main([*ARGS, "--out", str(out)]) == 0
    assert played == [0, 1] and writes == [(1, False), (2, True)]
    whole = json.loads(out.read_text())
    assert whole["complete"] is True and [d["deal"] for d in whole["deals"]] == [0, 1]
    assert not (tmp_path / "shard.json.part").exists()

    # A shard stopped after its first deal, resumed: only the second is played.
    stopped = dict(whole, complete=False, deals=whole["deals"][:1])
    out.write_text(json.dumps(stopped))
    played.clear()
    assert bench.main([*ARGS, "--out", str(out), "--resume"]) == 0
    assert played == [1]
    again = json.loads(out.read_text())
    assert again["complete"] is True and [d["deal"] for d in again["deals"]] == [0, 1]
    assert again["deals"][0] == whole["deals"][0]  # kept, not played again
    capsys.readouterr()

    # The resumed file merges like any shard; a partial one is named so.
    out.write_text(json.dumps(stopped))
    assert bench.main(["--merge", str(out)]) == 0
    assert "a shard stopped part way" in capsys.readouterr().err


def test_a_file_of_another_run_is_not_resumed(tmp_path: Path) -> None:
    bench = _bench()
    out = tmp_path / "shard.json"
    other = {"arguments": {"game": "quinto", "seed": 8}, "deals": []}
    out.write_text(json.dumps(other))
    assert bench.main([*ARGS, "--out", str(out), "--resume"]) == 2
    assert json.loads(out.read_text()) == other  # left as it was
    with pytest.raises(SystemExit):
        bench.main([*ARGS, "--resume"])  # nothing to resume
