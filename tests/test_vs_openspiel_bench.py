"""bench/vs_openspiel.py: --out kept up to date as deals finish, --resume, --merge."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from conftest import LoadBench

pytest.importorskip("pyspiel")

ARGS = ["--game", "quinto", "--deals", "2", "--seconds", "0.002", "--jobs", "1", "--seed", "7"]


def test_out_is_written_as_deals_finish_and_a_resumed_shard_plays_only_the_rest(
    load_bench: LoadBench, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_bench("vs_openspiel")
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


def test_a_file_of_another_run_is_not_resumed(load_bench: LoadBench, tmp_path: Path) -> None:
    bench = load_bench("vs_openspiel")
    out = tmp_path / "shard.json"
    other = {"arguments": {"game": "quinto", "seed": 8}, "deals": []}
    out.write_text(json.dumps(other))
    assert bench.main([*ARGS, "--out", str(out), "--resume"]) == 2
    assert json.loads(out.read_text()) == other  # left as it was
    with pytest.raises(SystemExit):
        bench.main([*ARGS, "--resume"])  # nothing to resume


def test_team_against_team_compares_two_of_ours_with_two_of_ismcts_in_one_hand(
    load_bench: LoadBench,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Quintus: where one team is both ours and the other both ISMCTS's (against the same
    quintus), the report gives our team's seat score less theirs; other hands are left
    out, and who held the lone seat is counted."""
    bench = load_bench("vs_openspiel")

    def deal(k: int, scores: list[int]) -> Any:
        # Quintus at seat 0: teams (1, 3) and (2, 4). Ours (0) hold 1 and 3.
        pure = {"owners": [1, 0, 1, 0, 1], "scores": scores, "diff": 0.0, "lone": 0}
        mixed = {"owners": [0, 0, 1, 1, 0], "scores": [9, 9, 9, 9, 9], "diff": 0.0, "lone": 0}
        void = {"owners": [0, 1, 0, 1, 0], "scores": [0] * 5, "diff": 0.0, "lone": None}
        return bench.DealResult(k, 0.0, seatings=[pure, mixed, void])

    results = [deal(0, [16, -3, 5, -3, 5]), deal(1, [-4, 3, 1, 3, 1])]
    bench.lone_lines(results, "quintus")
    out = capsys.readouterr().out
    assert "ours held the lone seat in 2 seatings: mean score +9.00, above zero in 100%" in out
    assert "ISMCTS held the lone seat in 2 seatings: mean score +6.00, above zero in 50%" in out
    # Deal 0: -3 - 5 = -8; deal 1: 3 - 1 = +2; the mean -3 over the two deals.
    assert "ISMCTS the lone player), ours minus theirs a seat: -3.00" in out
    assert "any the lone player), ours minus theirs a seat: -3.00" in out
    assert "ours the lone player)" not in out  # no such hand: ours never held him there

    bench.lone_lines(results, "quinto")  # no teams against a lone player: roles only
    assert "team against team" not in capsys.readouterr().out


def test_against_compares_two_runs_deal_by_deal_on_the_deals_both_played(
    load_bench: LoadBench, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--merge A --against B``: each measure of run A less run B's on the same deal,
    over the deals both played; runs of other deals (another seed) are refused."""
    bench = load_bench("vs_openspiel")

    def deal(k: int, diff: float, team: list[int]) -> dict[str, Any]:
        # Quintus at seat 0; ours hold the team (1, 3), ISMCTS the quintus and (2, 4).
        pure = {"owners": [1, 0, 1, 0, 1], "scores": team, "diff": diff, "lone": 0}
        return asdict(bench.DealResult(k, diff, seatings=[pure], ours_time=1.0))

    def run(path: Path, bot: str, deals: list[dict[str, Any]], seed: int = 7) -> str:
        a = {"game": "quintus", "variant": "base", "bot": bot, "seconds": 1.0, "seed": seed}
        path.write_text(json.dumps({"arguments": {**a, "uct_c": 25}, "deals": deals}))
        return str(path)

    a = run(
        tmp_path / "a.json",
        "pimc:x=1",
        [
            deal(0, 4.0, [0, 6, 0, 6, 0]),
            deal(1, 1.0, [0, 2, 0, 2, 0]),
            deal(2, 9.0, [0, 9, 0, 9, 0]),
        ],
    )
    b = run(
        tmp_path / "b.json", "pimc", [deal(0, 1.0, [0, 1, 0, 1, 0]), deal(1, 2.0, [0, 4, 0, 4, 0])]
    )
    assert bench.main(["--merge", a, "--against", b]) == 0
    out = capsys.readouterr().out
    assert "on the 2 deals both played" in out
    # Deal 0: 4 - 1 = +3, deal 1: 1 - 2 = -1; the mean +1.
    assert "  points per deal: +1.00 [" in out
    # Team against team: deal 0, 6 - 0 = +6 against 1 - 0 = +1; deal 1, 2 against 4.
    assert "  team against team, a seat: +1.50 [" in out

    other = run(tmp_path / "c.json", "pimc", [deal(0, 1.0, [0] * 5)], seed=8)
    assert bench.main(["--merge", a, "--against", other]) == 2
    assert "--against: not the same deals (seed differ)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench.main(["--against", b])  # nothing to compare it with


def test_a_shard_that_cannot_be_read_is_named_and_nothing_is_reported(
    load_bench: LoadBench, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_bench("vs_openspiel")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert bench.main(["--merge", str(bad)]) == 2
    assert f"{bad}: cannot be read as a shard" in capsys.readouterr().err
    assert bench.main(["--merge", str(tmp_path / "missing.json")]) == 2
    assert "missing.json: cannot be read as a shard" in capsys.readouterr().err
