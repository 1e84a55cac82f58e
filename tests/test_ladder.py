"""The ladder: Bradley–Terry ratings from duplicate deals, and ``quintet arena --ladder``.

The fit is checked on synthetic results drawn from known strengths with seeded
generators (it must find them again, and its intervals must cover them about as often as
they claim), for its invariances (which side is A, which level is the anchor, the order
of the games) and its degenerate cases (a level that won every deal, a single pair); the
command is run on a few real deals.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from quintet.arena import ArenaConfig, DuplicateGame, fit_bradley_terry, rate, run_ladder
from quintet.arena.ladder import duplicate_games, ladder_levels
from quintet.arena.ratings import ELO_PER_LOGIT, expected_score
from quintet.bots import levels
from quintet.cli import main

ROOT = Path(__file__).resolve().parents[1]

#: Known strengths (logits) for the synthetic ladders.
TRUE = {"random": 0.0, "heuristic": 1.2, "ismcts": 1.9, "pimc": 2.4, "pimc-2026": 3.1}


def synthetic(
    strengths: dict[str, float], per_pair: int, seed: int, tie: float = 0.0
) -> list[DuplicateGame]:
    """Every pair plays ``per_pair`` games on deals 0, 1, ... drawn from the model
    (a tie with probability ``tie``, else a win with the Bradley–Terry chance)."""
    rng = random.Random(seed)
    names = list(strengths)
    games = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            p = 1 / (1 + math.exp(strengths[b] - strengths[a]))
            for deal in range(per_pair):
                if rng.random() < tie:
                    games.append(DuplicateGame(a, b, 0.5, deal))
                else:
                    games.append(DuplicateGame(a, b, 1.0 if rng.random() < p else 0.0, deal))
    return games


# ------------------------------------------------------------------ the fit


def test_the_fit_recovers_known_strengths_from_synthetic_results() -> None:
    games = synthetic(TRUE, 800, seed=1)
    fit = fit_bradley_terry(games, prior_ties=0)
    assert fit.anchor == "random" and fit.theta["random"] == 0.0
    for level, theta in TRUE.items():
        assert abs(fit.theta[level] - theta) < 0.15, (level, fit.theta[level])
        assert abs(fit.theta[level] - theta) < 3 * fit.se(level) + 1e-12


def test_one_prior_tie_per_pair_moves_ratings_by_far_less_than_their_interval() -> None:
    games = synthetic(TRUE, 200, seed=2)
    plain = fit_bradley_terry(games, prior_ties=0)
    prior = fit_bradley_terry(games, prior_ties=1)
    for level in TRUE:
        assert abs(plain.theta[level] - prior.theta[level]) < 0.25 * plain.se(level) + 1e-12
    # ... and pulls every gap towards 0, never away.
    assert all(abs(prior.theta[x]) <= abs(plain.theta[x]) + 1e-12 for x in TRUE)


def test_the_fit_is_the_maximum_of_the_likelihood() -> None:
    games = synthetic(TRUE, 100, seed=3, tie=0.1)
    fit = fit_bradley_terry(games, prior_ties=0)

    def log_likelihood(theta: dict[str, float]) -> float:
        total = 0.0
        for g in games:
            p = 1 / (1 + math.exp(theta[g.b] - theta[g.a]))
            total += g.score * math.log(p) + (1 - g.score) * math.log(1 - p)
        return total

    best = log_likelihood(fit.theta)
    for level in TRUE:
        if level == fit.anchor:
            continue
        for step in (-0.01, 0.01):
            assert log_likelihood({**fit.theta, level: fit.theta[level] + step}) < best


def test_ratings_are_on_the_elo_scale_and_predict_the_scores() -> None:
    # 400 Elo points are 10 to 1 odds.
    games = [DuplicateGame("a", "b", 1.0, i) for i in range(10)]
    games += [DuplicateGame("a", "b", 0.0, 10)]
    fit = fit_bradley_terry(games, anchor="b", prior_ties=0)
    assert fit.theta["a"] * ELO_PER_LOGIT == pytest.approx(400.0)
    assert expected_score(fit, "a", "b") == pytest.approx(10 / 11)


def test_fisher_intervals_cover_the_true_ratings_about_95_percent_of_the_time() -> None:
    strengths = {"random": 0.0, "heuristic": 0.8, "ismcts": 1.5}
    covered = total = 0
    for seed in range(60):
        r = rate(synthetic(strengths, 60, seed=100 + seed), prior_ties=0, replicates=0)
        for x in r.ratings:
            if x.level == "random":
                continue
            lo, hi = x.fisher_ci95
            total += 1
            covered += lo <= strengths[x.level] * ELO_PER_LOGIT <= hi
    # 95% of 120: 114; fewer than 105 would be a 1-in-1000 accident of a true 95%.
    assert covered >= 105, (covered, total)
    assert covered < total  # intervals that cover everything are too wide


def test_bootstrap_intervals_cover_the_true_ratings_about_95_percent_of_the_time() -> None:
    strengths = {"random": 0.0, "heuristic": 0.8, "ismcts": 1.5}
    covered = total = 0
    for seed in range(30):
        games = synthetic(strengths, 60, seed=200 + seed)
        r = rate(games, prior_ties=0, replicates=200, seed=seed)
        for x in r.ratings:
            if x.level != "random":
                total += 1
                covered += x.ci95[0] <= strengths[x.level] * ELO_PER_LOGIT <= x.ci95[1]
    assert covered >= 51, (covered, total)  # 95% of 60 is 57


def test_the_bootstrap_resamples_whole_deals() -> None:
    # On each deal ``a`` is in form or not and wins or loses against both others: the
    # two pairs' results are one coin, so a's rating is as uncertain as half as many
    # games say. Resampling whole deals sees that; resampling single games does not.
    rng = random.Random(4)
    linked, unlinked = [], []
    for deal in range(200):
        s = 1.0 if rng.random() < 0.7 else 0.0
        other = 1.0 if rng.random() < 0.5 else 0.0
        for g in (("a", "b", s), ("a", "c", s), ("b", "c", other)):
            linked.append(DuplicateGame(*g, deal=deal))
            unlinked.append(DuplicateGame(*g, deal=None))
    width = {}
    for name, games in (("linked", linked), ("unlinked", unlinked)):
        r = rate(games, anchor="b", prior_ties=0, replicates=400, seed=1).by_level()["a"]
        width[name] = r.ci95[1] - r.ci95[0]
    assert width["linked"] > 1.25 * width["unlinked"], width


def test_the_bootstrap_is_reproducible_from_its_seed() -> None:
    games = synthetic(TRUE, 30, seed=5)
    one = rate(games, replicates=100, seed=7).by_level()
    two = rate(games, replicates=100, seed=7).by_level()
    other = rate(games, replicates=100, seed=8).by_level()
    assert all(one[x].ci95 == two[x].ci95 for x in TRUE)
    assert any(one[x].ci95 != other[x].ci95 for x in TRUE)


# ------------------------------------------------------------ invariances


def test_swapping_a_and_b_changes_no_rating() -> None:
    games = synthetic(TRUE, 50, seed=6, tie=0.05)
    swapped = [DuplicateGame(g.b, g.a, 1 - g.score, g.deal) for g in games]
    one = rate(games, replicates=50, seed=1).by_level()
    two = rate(swapped, list(TRUE), replicates=50, seed=1).by_level()
    for x in TRUE:
        assert two[x].rating == pytest.approx(one[x].rating, abs=1e-6)
        assert two[x].se == pytest.approx(one[x].se, abs=1e-6)
        assert two[x].ci95 == pytest.approx(one[x].ci95, abs=1e-6)
        assert (two[x].wins, two[x].ties, two[x].losses) == (
            one[x].wins,
            one[x].ties,
            one[x].losses,
        )


def test_the_order_of_the_games_changes_no_rating() -> None:
    games = synthetic(TRUE, 50, seed=7)
    shuffled = list(games)
    random.Random(0).shuffle(shuffled)
    one = fit_bradley_terry(games)
    two = fit_bradley_terry(shuffled, list(TRUE))
    assert all(two.theta[x] == pytest.approx(one.theta[x], abs=1e-9) for x in TRUE)


def test_the_anchor_is_at_zero_with_an_empty_interval() -> None:
    r = rate(synthetic(TRUE, 40, seed=8), replicates=50).by_level()
    assert r["random"].rating == 0.0 and r["random"].se == 0.0
    assert r["random"].ci95 == (0.0, 0.0) and r["random"].fisher_ci95 == (0.0, 0.0)


def test_the_anchor_shifts_every_rating_and_keeps_every_gap() -> None:
    games = synthetic(TRUE, 100, seed=9)
    base = fit_bradley_terry(games, anchor="random")
    other = fit_bradley_terry(games, anchor="ismcts")
    moved = base.reanchored("ismcts")
    assert other.theta["ismcts"] == 0.0
    for x in TRUE:
        assert other.theta[x] == pytest.approx(base.theta[x] - base.theta["ismcts"], abs=1e-9)
        assert moved.theta[x] == pytest.approx(other.theta[x], abs=1e-9)
        # the standard error of a gap is the same whichever level is held at 0
        assert moved.se(x) == pytest.approx(other.se(x), rel=1e-6, abs=1e-12)


def test_random_is_the_default_anchor_else_the_weakest_level() -> None:
    assert rate(synthetic(TRUE, 40, seed=10), replicates=0).fit.anchor == "random"
    without = {x: t for x, t in TRUE.items() if x != "random"}
    r = rate(synthetic(without, 200, seed=10), replicates=0)
    assert r.fit.anchor == "heuristic" == r.ratings[-1].level
    assert r.ratings[-1].rating == 0.0 and all(x.rating > 0 for x in r.ratings[:-1])


def test_ratings_are_listed_strongest_first() -> None:
    r = rate(synthetic(TRUE, 300, seed=11), replicates=0)
    assert [x.level for x in r.ratings] == sorted(TRUE, key=lambda x: -TRUE[x])
    assert all(a.rating >= b.rating for a, b in zip(r.ratings, r.ratings[1:], strict=False))


# -------------------------------------------------------- degenerate cases


def test_a_level_that_wins_every_deal_gets_a_finite_rating_and_a_note() -> None:
    games = synthetic({"random": 0.0, "heuristic": 1.0}, 40, seed=12)
    games += [
        DuplicateGame("champion", x, 1.0, d) for x in ("random", "heuristic") for d in range(40)
    ]
    r = rate(games, replicates=100).by_level()
    top = r["champion"]
    assert math.isfinite(top.rating) and top.rating > r["heuristic"].rating
    assert all(math.isfinite(v) for v in (*top.ci95, *top.fisher_ci95, top.se))
    assert top.note is not None and "won every deal" in top.note
    assert r["heuristic"].note is None
    # with one virtual tie per pair its gap to a level it beat 40 times is log(40.5/0.5)
    two = rate([DuplicateGame("champion", "random", 1.0, d) for d in range(40)], replicates=0)
    assert two.by_level()["champion"].rating == pytest.approx(math.log(40.5 / 0.5) * ELO_PER_LOGIT)
    assert two.by_level()["random"].note is not None


def test_without_prior_ties_a_level_that_never_lost_has_no_rating() -> None:
    games = synthetic({"random": 0.0, "heuristic": 1.0}, 40, seed=13)
    games += [DuplicateGame("champion", "random", 1.0, d) for d in range(40)]
    with pytest.raises(ValueError, match="champion never lost a deal"):
        fit_bradley_terry(games, prior_ties=0)


def test_a_single_pair_is_rated_by_its_log_odds() -> None:
    games = [DuplicateGame("heuristic", "random", 1.0, d) for d in range(30)]
    games += [DuplicateGame("heuristic", "random", 0.0, d) for d in range(30, 40)]
    games += [DuplicateGame("heuristic", "random", 0.5, d) for d in range(40, 44)]
    r = rate(games, prior_ties=0, replicates=200).by_level()
    wins = 30 + 4 / 2
    assert r["heuristic"].rating == pytest.approx(math.log(wins / (44 - wins)) * ELO_PER_LOGIT)
    p = wins / 44
    assert r["heuristic"].se == pytest.approx(ELO_PER_LOGIT / math.sqrt(44 * p * (1 - p)))
    assert (r["heuristic"].wins, r["heuristic"].ties, r["heuristic"].losses) == (30, 4, 10)
    assert r["heuristic"].ci95[0] < r["heuristic"].rating < r["heuristic"].ci95[1]


def test_ties_count_as_half_a_win() -> None:
    games = [DuplicateGame("a", "b", 0.5, d) for d in range(10)]
    assert fit_bradley_terry(games, prior_ties=0).theta == {"a": 0.0, "b": 0.0}
    assert DuplicateGame.of_diff("a", "b", 0.0).score == 0.5
    assert DuplicateGame.of_diff("a", "b", 2.5).score == 1.0
    assert DuplicateGame.of_diff("a", "b", -0.5).score == 0.0


def test_bad_games_are_refused() -> None:
    with pytest.raises(ValueError, match="at least two levels"):
        fit_bradley_terry([])
    with pytest.raises(ValueError, match="against itself"):
        fit_bradley_terry([DuplicateGame("a", "a", 1.0)])
    with pytest.raises(ValueError, match="between 0 and 1"):
        fit_bradley_terry([DuplicateGame("a", "b", 2.0)])
    with pytest.raises(ValueError, match="c played no game"):
        fit_bradley_terry([DuplicateGame("a", "b", 1.0)], ["a", "b", "c"])
    with pytest.raises(ValueError, match="never played each other"):
        fit_bradley_terry([DuplicateGame("a", "b", 1.0), DuplicateGame("c", "d", 1.0)])
    with pytest.raises(ValueError, match="anchor"):
        fit_bradley_terry([DuplicateGame("a", "b", 1.0)], anchor="z")


# ------------------------------------------------------------ real ladders


def test_a_ladder_plays_every_pair_on_the_same_deals() -> None:
    cfg = ArenaConfig(bots=("random", "heuristic", "ismcts:iterations=5"), deals=3, jobs=1, seed=4)
    result = run_ladder(cfg, replicates=50)
    pairs = [(p.a, p.b) for p in result.arena.pairs]
    assert pairs == [
        ("random", "heuristic"),
        ("random", "ismcts:iterations=5"),
        ("heuristic", "ismcts:iterations=5"),
    ]
    assert all([d.deal for d in p.deals] == [0, 1, 2] for p in result.arena.pairs)
    assert result.arena.records == [] and all(not p.matches for p in result.arena.pairs)
    games = duplicate_games(result.arena)
    assert len(games) == 9
    assert sorted(result.order()) == sorted(cfg.bots)
    by_level = result.ratings.by_level()
    assert all(by_level[x].games == 6 for x in cfg.bots)
    data = result.to_json()
    assert data["format"] == "quintet-ladder" and data["order"] == result.order()
    assert [p["deals"] for p in data["pairs"]] == [3, 3, 3]


def test_the_ladder_levels_are_the_bots_levels() -> None:
    """By default the ladder rates every level, the frozen yardstick included."""
    assert set(ladder_levels()) == {"random", "heuristic", "pimc-2026", "pimc", "ismcts"}
    assert ladder_levels() == tuple(levels())


def test_cli_ladder_prints_the_ratings_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "ladder.json"
    args = ["arena", "--ladder", "--levels", "random,heuristic", "--deals", "4"]
    args += ["--iterations", "5", "--jobs", "1", "--seed", "2", "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()  # progress goes to standard error
    assert lines[0].startswith("Ladder: Quinto partnership, 2 levels, 4 deals per pair")
    head = next(i for i, line in enumerate(lines) if line.lstrip().startswith("rank"))
    assert lines[head].split()[:4] == ["rank", "level", "rating", "95%"]
    rows = [lines[head + 1].split(), lines[head + 2].split()]
    assert [r[0] for r in rows] == ["1", "2"]
    assert {r[1] for r in rows} == {"random", "heuristic"}
    assert "Points per deal" in result.output or "points" in result.output
    data = json.loads(out.read_text())
    assert data["order"] == [r[1] for r in rows]
    assert [r["level"] for r in data["ratings"]] == data["order"]
    (pair,) = data["pairs"]
    assert pair["deals"] == 4 and len(pair["points_per_deal"]["ci95"]) == 2
    assert pair["a_wins"] + pair["ties"] + pair["b_wins"] == 4
    assert data["arguments"]["iterations"] == 5 and data["method"]["anchor"] == "random"
    assert float(rows[[r[1] for r in rows].index("random")][2]) == 0


def test_cli_ladder_plays_every_level_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("quintet.arena.ladder.levels", lambda: ["heuristic", "random"])
    result = CliRunner().invoke(main, ["arena", "--ladder", "--deals", "2", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "2 levels" in result.output
    assert "heuristic  random" in result.output  # the one pair, in levels() order


def test_cli_ladder_refuses_what_it_does_not_play() -> None:
    for extra in (["--bots", "random,heuristic"], ["--rubbers", "1"], ["--no-records"]):
        bad = CliRunner().invoke(main, ["arena", "--ladder", "--deals", "1", *extra])
        assert bad.exit_code == 2 and "--ladder takes --levels" in bad.output, bad.output
    bad = CliRunner().invoke(main, ["arena", "--levels", "random,heuristic"])
    assert bad.exit_code == 2 and "--levels is for --ladder" in bad.output
    bad = CliRunner().invoke(main, ["arena", "--ladder", "--levels", "random,wizard"])
    assert bad.exit_code == 2 and "unknown bot 'wizard'" in bad.output
    bad = CliRunner().invoke(main, ["arena", "--ladder", "--levels", "random"])
    assert bad.exit_code == 2 and "at least two" in bad.output


def test_the_ladder_works_on_the_base_install() -> None:
    # numpy (the solver extra) and the other extras' packages made unimportable
    code = (
        "import sys\n"
        "for m in ('numpy', 'numba', 'llvmlite', 'matplotlib', 'ray', 'scipy'):\n"
        "    sys.modules[m] = None\n"
        "from quintet.cli import main\n"
        "main(['arena', '--ladder', '--levels', 'random,heuristic,ismcts:iterations=3',"
        " '--deals', '2', '--jobs', '1'])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "Ratings, strongest first" in proc.stdout and "ismcts:iterations=3" in proc.stdout
