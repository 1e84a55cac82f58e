"""bench/doubling_duplicate.py: pimc's doubling with a lone_credit against without."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import LoadBench


def test_without_a_credit_no_round_changes_and_nothing_is_played(load_bench: LoadBench) -> None:
    """Both bots decide over the same deals: with no credit they decide alike."""
    bench = load_bench("doubling_duplicate")
    rng = random.Random(4)
    for _ in range(3):
        assert bench.hand(rng, 0.0, 6, 2) == {"lone": (False, 0.0), "partners": (False, 0.0)}


def test_a_large_credit_changes_rounds_and_the_report_adds_the_gains_up(
    load_bench: LoadBench,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With 13 tricks credited the lone player doubles every hand he can and his
    opponents never: rounds change; a way that changed nothing is worth 0; the deal's
    figure is the mean of the two ways' gains halved."""
    bench = load_bench("doubling_duplicate")
    rows: list[Any] = []
    hand = bench.hand

    def kept(*args: Any) -> Any:
        rows.append(hand(*args))
        return rows[-1]

    bench.hand = kept
    args = [
        "--credit",
        "13",
        "--hands",
        "4",
        "--samples",
        "6",
        "--play-samples",
        "2",
        "--seed",
        "2",
    ]
    assert bench.main(args) == 0
    out = capsys.readouterr().out
    assert len(rows) == 4
    assert any(r[w][0] for r in rows for w in ("lone", "partners")), "no round changed"
    for r in rows:
        for differs, gain in r.values():
            assert differs or gain == 0.0
    deal = sum((r["lone"][1] + r["partners"][1]) / 2 for r in rows) / 4
    m = re.search(r"a deal against pimc:lone_credit=0 \(each side half the time\): ([-+.\d]+)", out)
    assert m is not None, out
    assert float(m.group(1)) == pytest.approx(deal, abs=0.006)
    changed = sum(r["lone"][0] for r in rows)
    assert f"round changed in {changed} hands" in out


def test_fewer_than_two_hands_is_refused(
    load_bench: LoadBench, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        load_bench("doubling_duplicate").main(["--hands", "1"])
    assert "--hands must be at least 2, not 1" in capsys.readouterr().err


def _two_runs(load_bench: LoadBench, tmp_path: Path, credit_b: str) -> tuple[Any, Path, Path]:
    """Load the bench and write two runs of two hands, seeds 2 and 3 (credits 13 and
    ``credit_b``); return the bench and the two files."""
    bench = load_bench("doubling_duplicate")
    files = tmp_path / "a.json", tmp_path / "b.json"
    for seed, credit, out in ((2, "13", files[0]), (3, credit_b, files[1])):
        args = ["--credit", credit, "--hands", "2", "--samples", "4", "--play-samples", "2"]
        assert bench.main([*args, "--seed", str(seed), "--out", str(out)]) == 0
    return bench, *files


def test_runs_written_with_out_merge_into_one_report_over_their_hands(
    load_bench: LoadBench, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--merge reports over the rows of the runs pooled, hand by hand, as one run."""
    bench, a, b = _two_runs(load_bench, tmp_path, "13")
    capsys.readouterr()
    args, rows = bench.merge([str(a), str(b)])
    assert len(rows) == 4 and args["seed"] == 2
    assert rows == bench.load(str(a))[1] + bench.load(str(b))[1]
    bench.report(rows, args)
    pooled = capsys.readouterr().out
    assert bench.main(["--merge", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert out == pooled and out.startswith("Quinto dummy, 4 hands: pimc:lone_credit=13 ")


def test_merge_refuses_other_bots_the_same_seed_twice_and_files_of_no_run(
    load_bench: LoadBench, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench, a, b = _two_runs(load_bench, tmp_path, "0.5")
    junk = tmp_path / "junk.json"
    junk.write_text('{"rows": []}')
    data = json.loads(a.read_text())
    empty, one, text = tmp_path / "empty.json", tmp_path / "one.json", tmp_path / "text.json"
    empty.write_text(json.dumps({**data, "rows": []}))
    one.write_text(json.dumps({**data, "rows": data["rows"][:1]}))
    text.write_text(json.dumps({**data, "arguments": {**data["arguments"], "credit": "x"}}))
    for argv, message in (
        ([a, b], f"{b}: --credit 0.5 where {a} has 13.0: only runs of the same bots merge"),
        ([a, a], f"{a}: seed 2 again (also {a}): the same hands"),
        ([junk], f"{junk}: not a run of this bench written by --out"),
        ([tmp_path / "none.json"], "none.json: not a run of this bench written by --out"),
        ([empty], f"{empty}: a run of no hands"),
        ([one], "1 hand in all: at least 2 are needed for an interval"),
        ([text], f"{text}: not a run of this bench written by --out"),
        ([a, "--out", tmp_path / "c.json"], "--merge reports over runs and writes none"),
    ):
        capsys.readouterr()
        with pytest.raises(SystemExit):
            bench.main(["--merge", *map(str, argv)])
        assert message in capsys.readouterr().err
    assert not (tmp_path / "c.json").exists()


def test_an_out_file_in_no_directory_is_refused_before_any_hand_is_played(
    load_bench: LoadBench, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_bench("doubling_duplicate")
    played: list[Any] = []
    bench.hand = lambda *args: played.append(args)
    with pytest.raises(SystemExit):
        bench.main(["--hands", "2", "--out", str(tmp_path / "no" / "x.json")])
    assert "its directory does not exist" in capsys.readouterr().err and played == []
