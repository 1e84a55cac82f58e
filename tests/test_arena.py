"""The arena: duplicate seatings, valid records, determinism, statistics and the command."""

from __future__ import annotations

import importlib.util
import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from quintet.arena import (
    HAND_TARGET,
    ArenaConfig,
    ArenaResult,
    parse_bots,
    parse_options,
    run_arena,
    summarize,
    t_quantile,
)
from quintet.cli import main
from quintet.errors import InvalidOptionError
from quintet.record import record_from_json, score

JSON = dict[str, Any]
VARIANTS = [
    ("quinto", "partnership"),
    ("quinto", "dummy"),
    ("quintus", "base"),
    ("quintus", "bidding"),
]
SEATINGS = {"quinto": 2, "quintus": 6}


def arena(game: str, variant: str, **kw: Any) -> ArenaResult:
    base: dict[str, Any] = {"bots": ("random", "heuristic"), "deals": 3, "jobs": 1, "seed": 11}
    base.update(kw)
    return run_arena(ArenaConfig(game=game, variant=variant, **base))


def comparable(result: ArenaResult) -> JSON:
    """The result as JSON without what may differ between runs (time, number of jobs)."""
    out = result.to_json()
    del out["elapsed_seconds"]
    del out["arguments"]["jobs"]
    return out


# ------------------------------------------------------------------ records


@pytest.mark.parametrize(("game", "variant"), VARIANTS)
def test_every_played_hand_has_a_record_the_scorer_accepts(game: str, variant: str) -> None:
    res = arena(game, variant, rubbers=1 if game == "quinto" else None)
    (pair,) = res.pairs
    rubbers = len(pair.matches)
    assert rubbers == (1 if game == "quinto" else 0)
    assert len(res.records) == 3 * SEATINGS[game] + 2 * rubbers
    for i, rec in enumerate(res.records):
        assert rec["game"] == game and rec["variant"] == variant
        assert set(rec["players"]) == {"random", "heuristic"}
        out = score(record_from_json(json.loads(json.dumps(rec))))
        if i < 3 * SEATINGS[game]:  # a single duplicate hand, finished
            assert len(rec["hands"]) == 1
            if game == "quinto":
                assert rec["options"]["target"] == HAND_TARGET
            else:
                assert out["complete"]
        else:  # a whole match: decided
            assert out["complete"]


@pytest.mark.parametrize(("game", "variant"), VARIANTS)
def test_seat_scores_are_the_scorers(game: str, variant: str) -> None:
    res = arena(game, variant, deals=2, rubbers=0)
    seatings = [s for d in res.pairs[0].deals for s in d.seatings]
    assert len(seatings) == len(res.records)
    for s, rec in zip(seatings, res.records, strict=True):
        out = score(record_from_json(rec))
        if game == "quintus":
            assert list(s.scores) == out["hands"][0]["score"]
        else:
            # Hand points: the game score less the dummy's handicap.
            start = [0, 0]
            if variant == "dummy":
                start[1 - (rec["lone_seat"] & 1)] = 25
                flip = rec["lone_seat"] & 1  # the scorer puts the lone side first
                start = [start[flip], start[1 - flip]]
            got = [x - y for x, y in zip(out["games"][0]["score"], start, strict=True)]
            side0 = rec["lone_seat"] if variant == "dummy" else 0
            assert [s.scores[side0], s.scores[side0 + 1 & 3]] == got
        assert s.players == tuple(rec["players"])


def test_no_records_when_not_asked() -> None:
    res = arena("quinto", "partnership", records=False, rubbers=0)
    assert res.records == []
    assert len(res.pairs[0].deals) == 3


# -------------------------------------------------------------- duplicate form


@pytest.mark.parametrize(("game", "variant"), VARIANTS)
def test_each_bot_holds_each_seat_equally_often(game: str, variant: str) -> None:
    res = arena(game, variant, deals=5, rubbers=0, records=False)
    for d in res.pairs[0].deals:
        assert len(d.seatings) == SEATINGS[game]
        held = Counter((seat, who) for s in d.seatings for seat, who in enumerate(s.players))
        seats = 4 if game == "quinto" else 5
        each = SEATINGS[game] // 2
        bots = ("random", "heuristic")
        assert held == Counter({(seat, who): each for seat in range(seats) for who in bots})
        diffs = [s.diff for s in d.seatings]
        assert d.diff == pytest.approx(sum(diffs) / len(diffs))


def test_quinto_deal_seatings_exchange_the_sides() -> None:
    d = arena("quinto", "partnership", deals=2, rubbers=0, records=False).pairs[0].deals[1]
    assert d.dealer == 1
    first, second = d.seatings
    assert first.players == ("random", "heuristic", "random", "heuristic")
    assert second.players == ("heuristic", "random", "heuristic", "random")
    assert first.diff == first.scores[0] - first.scores[1]
    assert second.diff == second.scores[1] - second.scores[0]


def test_dummy_deal_gives_each_bot_the_lone_hand() -> None:
    d = arena("quinto", "dummy", deals=3, rubbers=0, records=False).pairs[0].deals[2]
    lone = 2
    assert [s.solo for s in d.seatings] == [lone, lone]
    assert [s.players[lone] for s in d.seatings] == ["random", "heuristic"]
    for s in d.seatings:
        assert s.players[lone] == s.players[(lone + 2) % 4]


@pytest.mark.parametrize("bot", ["random", "heuristic"])
@pytest.mark.parametrize(("game", "variant"), VARIANTS)
def test_a_bot_against_itself_scores_exactly_zero(bot: str, game: str, variant: str) -> None:
    # Every seating of a deal shares the table's random numbers, so identical bots play
    # each seating identically and the exchanged seats cancel exactly.
    res = arena(game, variant, bots=(bot, bot), deals=2, rubbers=0, records=False)
    (pair,) = res.pairs
    assert (pair.a, pair.b) == (f"{bot}#1", f"{bot}#2")
    assert [d.diff for d in pair.deals] == [0.0, 0.0]
    assert pair.summary.mean == 0.0 and pair.summary.low == 0.0 and pair.summary.high == 0.0
    assert not pair.summary.clear


def test_duplicate_rubbers_replay_the_same_deals() -> None:
    res = arena("quinto", "partnership", bots=("heuristic", "heuristic"), deals=1, rubbers=2)
    (pair,) = res.pairs
    for m in pair.matches:
        first, second = m.seatings
        assert first.hands == second.hands
        assert first.winner is not None and second.winner is not None
        assert m.diff == 0.0
    deals = [[h["deal"] for h in rec["hands"]] for rec in res.records[2:]]
    assert deals[0] == deals[1] and deals[2] == deals[3] and deals[0] != deals[2]
    tally = pair.tally()
    assert tally["heuristic#1"]["matches"] == tally["heuristic#2"]["matches"] == 2


# ---------------------------------------------------------------- determinism


def test_same_seed_same_results_whatever_the_jobs() -> None:
    kw: dict[str, Any] = {"bots": ("random", "heuristic", "random"), "deals": 6, "rubbers": 1}
    one = arena("quinto", "partnership", **kw)
    two = arena("quinto", "partnership", jobs=2, **kw)
    again = arena("quinto", "partnership", **kw)
    assert len(one.pairs) == 3
    assert comparable(one) == comparable(two) == comparable(again)
    other = arena("quinto", "partnership", **{**kw, "seed": 12})
    assert comparable(other)["pairs"] != comparable(one)["pairs"]


def test_same_seed_same_results_quintus_bidding() -> None:
    one = arena("quintus", "bidding", deals=3, jobs=1)
    two = arena("quintus", "bidding", deals=3, jobs=2)
    assert comparable(one) == comparable(two)


def test_deals_do_not_depend_on_the_number_of_deals() -> None:
    short = arena("quintus", "base", deals=2, records=False)
    longer = arena("quintus", "base", deals=4, records=False)
    assert short.pairs[0].deals == longer.pairs[0].deals[:2]


# ------------------------------------------------------------------ statistics


def test_summary_uses_student_t_below_thirty() -> None:
    s = summarize([1.0, 3.0])
    assert s.mean == 2.0 and s.sd == pytest.approx(math.sqrt(2))
    assert s.half_width == pytest.approx(12.7062 * math.sqrt(2) / math.sqrt(2))
    assert t_quantile(29) == pytest.approx(2.0484) and t_quantile(30) == 1.96
    big = summarize([float(x % 7) for x in range(100)])
    assert big.half_width == pytest.approx(1.96 * (big.sd or 0) / 10)


def test_summary_of_one_value_has_no_interval() -> None:
    s = summarize([5.0])
    assert (s.n, s.mean, s.sd, s.low, s.high, s.clear) == (1, 5.0, None, None, None, False)
    assert s.to_json()["ci95"] is None
    with pytest.raises(ValueError, match="no values"):
        summarize([])


def test_random_loses_to_heuristic_clearly_over_enough_deals() -> None:
    res = arena("quinto", "partnership", deals=24, rubbers=0, records=False)
    s = res.pairs[0].summary
    assert s.clear and s.mean < 0
    assert "heuristic better" in res.table()


# ------------------------------------------------------------------ bad input


def test_bot_names_and_options_are_checked() -> None:
    assert [b.label for b in parse_bots("random,heuristic,random")] == [
        "random#1",
        "heuristic",
        "random#2",
    ]
    with pytest.raises(InvalidOptionError, match="unknown bot"):
        parse_bots("random,nobody")
    with pytest.raises(InvalidOptionError, match="at least two"):
        parse_bots("random")
    assert parse_options(["rubber_bonus=50", "dummy_double_view=leading"]) == {
        "rubber_bonus": 50,
        "dummy_double_view": "leading",
    }
    with pytest.raises(InvalidOptionError, match="name=value"):
        parse_options(["target"])
    with pytest.raises(InvalidOptionError, match="unknown quinto option"):
        ArenaConfig(options={"tagret": 300}).resolved()
    with pytest.raises(InvalidOptionError, match="variant"):
        ArenaConfig(game="quintus", variant="dummy").resolved()
    with pytest.raises(InvalidOptionError, match="Quintus plays single hands"):
        ArenaConfig(game="quintus", rubbers=2).resolved()


def test_resolved_defaults() -> None:
    cfg = ArenaConfig(game="quinto", deals=20).resolved()
    assert (cfg.variant, cfg.rubbers) == ("partnership", 2)
    assert ArenaConfig(deals=3).resolved().rubbers == 1
    assert ArenaConfig(game="quintus").resolved().rubbers == 0
    assert (cfg.jobs or 0) >= 1


# ------------------------------------------------------------------ command


def test_cli_arena_writes_results_and_records(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    args = ["arena", "--game", "quinto", "--variant", "dummy", "--bots", "random,heuristic"]
    args += ["--deals", "4", "--seed", "3", "--jobs", "1", "--rubbers", "1", "--out", str(out)]
    args += ["--option", "dummy_handicap=30"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "Points per deal" in result.output and "95% CI" in result.output
    assert "as lone" in result.output and "dummy games" in result.output
    data = json.loads(out.read_text())
    assert data["format"] == "quintet-arena" and data["seed"] == 3
    assert data["arguments"]["options"] == {"dummy_handicap": 30}
    (pair,) = data["pairs"]
    assert (pair["a"], pair["b"]) == ("random", "heuristic")
    assert [d["deal"] for d in pair["deals"]] == [0, 1, 2, 3]
    assert pair["summary"]["n"] == 4 and len(pair["summary"]["ci95"]) == 2
    assert sum(t["played"] for t in pair["tally"].values()) == 4
    assert len(data["records"]) == 4 * 2 + 2
    for rec in data["records"]:
        scored = CliRunner().invoke(main, ["score", "-"], input=json.dumps(rec))
        assert scored.exit_code == 0, scored.output
    assert data["records"][-1]["options"] == {"dummy_handicap": 30}
    # Not on a terminal: progress as plain lines on standard error, the last at the end.
    assert result.stderr.splitlines()[-1].startswith("quinto dummy: 5/5 tasks (100%), ")


def test_progress_off_a_terminal_is_a_line_at_each_tenth_of_the_tasks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from quintet.arena.run import _Progress

    bar = _Progress(25, True, "quintus base")
    for n in (1, 1, 1, 2, 1, 19):  # 3, 5, 6, 25 done: tenths of 3 tasks crossed at 3, 6, 25
        bar.update(n)
    bar.close()
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(",")[0] for line in lines] == [
        "quintus base: 3/25 tasks (12%)",
        "quintus base: 6/25 tasks (24%)",
        "quintus base: 25/25 tasks (100%)",
    ]
    quiet = _Progress(25, False, "quintus base")
    quiet.update(25)
    assert capsys.readouterr().err == ""


def test_cli_arena_rejects_bad_arguments() -> None:
    bad = CliRunner().invoke(main, ["arena", "--bots", "random,wizard", "--deals", "1"])
    assert bad.exit_code == 2 and "unknown bot 'wizard'" in bad.output
    bad = CliRunner().invoke(main, ["arena", "--option", "nonsense", "--deals", "1"])
    assert bad.exit_code == 2 and "name=value" in bad.output


def test_cli_arena_plot(tmp_path: Path) -> None:
    if importlib.util.find_spec("matplotlib") is None:
        pytest.skip("matplotlib is not installed: --plot cannot draw")
    png = tmp_path / "diff.png"
    args = ["arena", "--game", "quintus", "--deals", "3", "--jobs", "1", "--plot", str(png)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_team_against_team_compares_a_team_of_a_with_a_team_of_b_in_one_hand() -> None:
    """Quintus: in a hand where one team against the quintus is both A's and the other
    both B's, the report gives A's team's seat score less B's; hands with mixed teams
    and games without teams (Quinto) give nothing."""
    from quintet.arena.report import format_table, team_against_team
    from quintet.arena.results import DealResult, PairResult, SeatingResult
    from quintet.games import GAMES

    quintus = GAMES["quintus"]
    # Quintus at seat 0: teams (1, 3) and (2, 4).
    pure = ("b", "a", "b", "a", "b")
    mixed = ("a", "a", "b", "b", "a")

    def deal(k: int, scores: tuple[int, ...]) -> DealResult:
        return DealResult(
            deal=k,
            dealer=0,
            diff=0.0,
            seatings=(
                SeatingResult(players=pure, scores=scores, diff=0.0, solo=0),
                SeatingResult(players=mixed, scores=(9, 9, 9, 9, 9), diff=0.0, solo=0),
            ),
        )

    deals = [deal(0, (16, -3, 5, -3, 5)), deal(1, (-4, 3, 1, 3, 1))]
    pair = PairResult("a", "b", deals, [], summarize([0.0, 0.0]), None, {})
    t = team_against_team(pair, quintus)
    assert t is not None and t.n == 2 and t.mean == pytest.approx(-3.0)  # -8 and +2
    assert team_against_team(pair, GAMES["quinto"]) is None
    lone = PairResult("a", "b", deals[:1], [], summarize([0.0]), None, {})
    assert team_against_team(lone, quintus) is None  # one deal: no interval

    result = run_arena(
        ArenaConfig(game="quintus", bots=("random", "heuristic"), deals=3, jobs=1, records=False)
    )
    # In the base game the seat groups the bots get are the quintus and the two teams.
    assert team_against_team(result.pairs[0], quintus) is not None
    assert "Team against team" in format_table(result)
