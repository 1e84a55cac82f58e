"""`quintet solve` and `quintet analyze` on records."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from quintet.analysis import AnalysisError, analyze_record, solve_state, state_at, summary
from quintet.bots import make_bot, play_out
from quintet.cli import main
from quintet.quinto import QuintoMatch, QuintoRules
from quintet.quintus import QuintusMatch, QuintusRules
from quintet.record import dumps, read_record, record_from_match
from quintet.solver import QuintoSolver, QuintusSolver


def _quinto_record(tmp_path: Path, seed: int = 4) -> Path:
    m = QuintoMatch(QuintoRules(target=10_000), first_dealer=0)
    s = m.start_hand(rng=random.Random(seed))
    play_out(s, [make_bot("heuristic")] * 4, random.Random(1))
    path = tmp_path / "quinto.json"
    path.write_text(dumps(record_from_match(m)))
    return path


def _quintus_record(tmp_path: Path) -> Path:
    m = QuintusMatch(QuintusRules(), first_dealer=0)
    s = m.start_hand(rng=random.Random(2))
    play_out(s, [make_bot("heuristic")] * 5, random.Random(1))
    path = tmp_path / "quintus.json"
    path.write_text(dumps(record_from_match(m)))
    return path


def test_solve_json_gives_the_solvers_values_at_that_point(tmp_path: Path) -> None:
    path = _quinto_record(tmp_path)
    result = CliRunner().invoke(main, ["solve", str(path), "--hand", "0", "--at", "40", "--json"])
    assert result.exit_code == 0, result.output
    values = json.loads(result.output)["values"]
    state = state_at(read_record(path.read_text()), 0, 40)
    want = QuintoSolver().move_values(state)
    from quintet.cards import card_str

    assert values == {card_str(c): v for c, v in want.items()}


def test_solve_prints_each_card_and_marks_the_best(tmp_path: Path) -> None:
    path = _quintus_record(tmp_path)
    result = CliRunner().invoke(main, ["solve", str(path), "--hand", "0", "--at", "30"])
    assert result.exit_code == 0, result.output
    assert "quintus" in result.output and "best" in result.output


def test_solve_refuses_a_point_without_card_play(tmp_path: Path) -> None:
    path = _quinto_record(tmp_path)
    result = CliRunner().invoke(main, ["solve", str(path), "--hand", "0", "--at", "0"])
    assert result.exit_code == 1
    assert "no card is played at this point (the doubling phase)" in result.output
    result = CliRunner().invoke(main, ["solve", str(path)])
    assert "the hand is over" in result.output
    result = CliRunner().invoke(main, ["solve", str(path), "--hand", "3"])
    assert "hand 3 is not in the record" in result.output


def test_analyze_costs_are_against_the_best_card(tmp_path: Path) -> None:
    record = read_record(_quinto_record(tmp_path).read_text())
    notes = analyze_record(record, tricks=4)
    solved = [n for n in notes if n.cost is not None]
    assert len(notes) == 48 and len(solved) == 16
    for n in solved:
        assert n.cost is not None and n.cost >= 0 and n.best is not None
        assert (n.cost == 0) == (n.card in n.best_cards)
    rows = summary(notes, 4)
    assert sum(r["analysed"] for r in rows) == 16
    assert sum(r["cost"] for r in rows) == sum(n.cost or 0 for n in solved)


def test_analyze_quintus_defenders_minimise_the_quintus(tmp_path: Path) -> None:
    """Values are the quintus's points: his best card is the highest, a defender's the
    lowest, each note's best is the solver's at that point, and each cost the gap."""
    record = read_record(_quintus_record(tmp_path).read_text())
    solved = [n for n in analyze_record(record, tricks=3) if n.cost is not None]
    kinds = set()
    for n in solved:
        state = state_at(record, n.hand, n.action)
        values = QuintusSolver().move_values(state)
        assert n.value == values[n.card]
        if n.seat == state.quintus:
            assert n.best == max(values.values())
            kinds.add("quintus")
        else:
            assert n.best == min(values.values())
            kinds.add("defender")
        assert n.cost == abs(n.best - n.value)
    assert kinds == {"quintus", "defender"}


def test_analyze_command_prints_and_writes_json(tmp_path: Path) -> None:
    path = _quinto_record(tmp_path)
    result = CliRunner().invoke(main, ["analyze", str(path), "--tricks", "3"])
    assert result.exit_code == 0, result.output
    assert "per seat" in result.output and "(not solved)" in result.output
    result = CliRunner().invoke(main, ["analyze", str(path), "--tricks", "3", "--json"])
    data = json.loads(result.output)
    assert len(data["plays"]) == 48 and len(data["seats"]) == 4


def test_state_at_checks_its_indices(tmp_path: Path) -> None:
    record = read_record(_quinto_record(tmp_path).read_text())
    with pytest.raises(AnalysisError, match="action 99 is not in hand 0"):
        state_at(record, 0, 99)
    with pytest.raises(AnalysisError, match="the hand is over"):
        solve_state(state_at(record))


def test_analyze_solves_every_trick_by_default_and_marks_what_the_limit_stopped(
    tmp_path: Path,
) -> None:
    record = read_record(_quinto_record(tmp_path).read_text())
    notes = analyze_record(record, max_nodes=300_000)
    assert len(notes) == 48
    # Every play was asked for: it has a value or the node limit stopped it.
    assert all((n.cost is None) == n.gave_up for n in notes)
    assert all(n.cost is not None for n in notes if n.trick >= 9)
    # Some early play is too big for 300,000 nodes; its note says so in its JSON.
    stopped = [n for n in notes if n.gave_up]
    assert stopped and all(n.to_json()["gave_up"] for n in stopped)
    assert analyze_record(record, tricks=2)[0].gave_up is False
