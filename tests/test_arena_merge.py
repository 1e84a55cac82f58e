"""quintet arena --merge: runs of the same experiment with other seeds, reported as one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from quintet.arena import ArenaConfig, run_arena, summarize
from quintet.arena.merge import merge_runs
from quintet.cli import main
from quintet.errors import InvalidOptionError

JSON = dict[str, Any]


def _run(tmp_path: Path, name: str, **kw: Any) -> Path:
    base: dict[str, Any] = {
        "game": "quinto",
        "bots": ("random", "heuristic"),
        "deals": 3,
        "jobs": 1,
        "rubbers": 1,
        "records": False,
    }
    base.update(kw)
    path = tmp_path / name
    run_arena(ArenaConfig(**base)).write_json(str(path))
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    d = tmp_path_factory.mktemp("runs")
    return (
        _run(d, "s1.json", seed=1),
        _run(d, "s2.json", seed=2, deals=4, rubbers=0),
        _run(d, "s3.json", seed=3, deals=2),
    )


def test_merged_runs_pool_every_runs_deals_and_matches(runs: tuple[Path, Path, Path]) -> None:
    merged = merge_runs(runs)
    datas = [json.loads(p.read_text()) for p in runs]
    diffs = [d["diff"] for data in datas for d in data["pairs"][0]["deals"]]
    (pair,) = merged.pairs
    assert [d.diff for d in pair.deals] == diffs and len(diffs) == 3 + 4 + 2
    assert pair.summary == summarize(diffs)
    match_diffs = [m["diff"] for data in datas for m in data["pairs"][0]["matches"]]
    assert len(match_diffs) == 2 and [m.diff for m in pair.matches] == match_diffs
    assert pair.match_summary == summarize(match_diffs)
    hands = sum(data["pairs"][0]["bots"]["heuristic"]["hands"] for data in datas)
    assert pair.bots["heuristic"].hands == hands
    assert merged.seeds == (1, 2, 3) and merged.config.deals == 9
    text = merged.table()
    assert "9 deals in duplicate" in text and "3 runs merged (seeds 1, 2, 3)" in text


def test_a_run_merged_with_itself_is_refused(runs: tuple[Path, Path, Path]) -> None:
    with pytest.raises(InvalidOptionError, match="both of seed 1: their deals are the same"):
        merge_runs([runs[0], runs[1], runs[0]])


def test_runs_of_other_bots_or_budgets_are_refused(tmp_path: Path, runs: tuple[Path, ...]) -> None:
    other = _run(tmp_path, "other.json", seed=9, bots=("random", "random"), deals=1, rubbers=0)
    with pytest.raises(InvalidOptionError, match=r"other\.json: bots is \['random', 'random'\]"):
        merge_runs([runs[0], other])
    data = json.loads(runs[1].read_text())
    data["arguments"]["iterations"] = 50
    data["arguments"]["seed"] = 7
    changed = tmp_path / "iterations.json"
    changed.write_text(json.dumps(data))
    with pytest.raises(InvalidOptionError, match=r"iterations is 50, but .* has None"):
        merge_runs([runs[0], changed])


def test_what_is_not_an_arena_result_is_named(tmp_path: Path, runs: tuple[Path, ...]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InvalidOptionError, match=r"bad\.json: not JSON"):
        merge_runs([runs[0], bad])
    bad.write_text(json.dumps({"format": "quintet-record"}))
    with pytest.raises(InvalidOptionError, match="not a quintet arena result"):
        merge_runs([runs[0], bad])
    with pytest.raises(InvalidOptionError, match="cannot be read"):
        merge_runs([runs[0], tmp_path / "missing.json"])
    with pytest.raises(InvalidOptionError, match="two or more"):
        merge_runs([runs[0]])


def test_cli_arena_merge_prints_and_writes_the_merged_result(
    tmp_path: Path, runs: tuple[Path, Path, Path]
) -> None:
    out = tmp_path / "merged.json"
    args = ["arena", "--merge", *map(str, runs), "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "3 runs merged" in result.output and "Points per deal" in result.output
    data = json.loads(out.read_text())
    assert data["merged_seeds"] == [1, 2, 3] and data["pairs"][0]["summary"]["n"] == 9
    # The merged file is an arena result itself: it merges with a run of another seed.
    s4 = _run(tmp_path, "s4.json", seed=4, deals=1, rubbers=0)
    again = merge_runs([out, s4])
    assert again.pairs[0].summary.n == 10 and again.seeds == (1, 2, 3, 4)
    # ... and knows the seeds it holds: one of them again is refused.
    with pytest.raises(InvalidOptionError, match="both of seed 2"):
        merge_runs([out, runs[1]])


def test_cli_arena_merge_refuses_play_options_and_files_without_it(
    runs: tuple[Path, Path, Path],
) -> None:
    bad = CliRunner().invoke(main, ["arena", "--merge", str(runs[0]), "--deals", "5"])
    assert bad.exit_code == 2 and "--merge takes files and --out, and no --deals" in bad.output
    bad = CliRunner().invoke(main, ["arena", str(runs[0]), str(runs[1])])
    assert bad.exit_code == 2 and "files to merge need --merge" in bad.output
    bad = CliRunner().invoke(main, ["arena", "--merge", str(runs[0]), str(runs[0])])
    assert bad.exit_code == 2 and "their deals are the same" in bad.output


def test_a_malformed_pair_names_its_file(tmp_path: Path, runs: tuple[Path, ...]) -> None:
    data = json.loads(runs[1].read_text())
    del data["pairs"][0]["deals"][0]["diff"]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data))
    with pytest.raises(InvalidOptionError, match=r"broken\.json: a pair's results are malformed"):
        merge_runs([runs[0], broken])
