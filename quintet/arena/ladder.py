"""The ladder: every pair of bot levels in duplicate, and one rating per level.

``quintet arena --ladder`` (and :func:`run_ladder` from Python) plays a round robin of
the levels (default: every level of :func:`quintet.bots.levels`, so a new level joins by
itself) over the same duplicate deals, exactly as the arena plays ``--bots`` (seatings,
seeds and per-pair statistics are the arena's; no whole matches and no records), then
fits one rating per level from the duplicate deals (:mod:`quintet.arena.ratings`:
Bradley–Terry on deals won, tied and lost, Elo scale, ``random`` at 0, 95% bootstrap
intervals over deals). The table lists the levels strongest first: that order, not the
order the levels were given in, is the ladder::

    quintet arena --ladder [--game G] [--variant V] [--levels a,b,c] [--deals N per pair]
        [--budget S | --iterations N] [--seed S] [--jobs J] [--out ladder.json]

    result = run_ladder(ArenaConfig(game="quinto", bots=("random", "heuristic"), deals=50))
    print(result.table()); result.write_json("ladder.json")
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Final

from quintet.arena.config import ArenaConfig
from quintet.arena.ratings import (
    PRIOR_TIES,
    REPLICATES,
    DuplicateGame,
    Ratings,
    expected_score,
    rate,
)
from quintet.arena.results import ArenaResult, PairResult
from quintet.arena.run import run_arena
from quintet.arena.seating import seatings
from quintet.arena.stats import Summary
from quintet.bots import levels

JSON = dict[str, Any]

FORMAT: Final = "quintet-ladder"
VERSION: Final = 1


def ladder_levels() -> tuple[str, ...]:
    """Return the levels a ladder plays by default: every level of the bots."""
    return tuple(levels())


def duplicate_games(result: ArenaResult) -> list[DuplicateGame]:
    """Return every duplicate deal of an arena's pairs as a game (A's score by its diff)."""
    return [DuplicateGame.of_diff(p.a, p.b, d.diff, d.deal) for p in result.pairs for d in p.deals]


def _record(pair: PairResult) -> tuple[int, int, int]:
    """A's duplicate deals won, tied and lost."""
    wins = sum(1 for d in pair.deals if d.diff > 0)
    losses = sum(1 for d in pair.deals if d.diff < 0)
    return wins, len(pair.deals) - wins - losses, losses


@dataclass
class LadderResult:
    """The outcome of :func:`run_ladder`: the arena's result and the ratings."""

    arena: ArenaResult
    ratings: Ratings

    @property
    def config(self) -> ArenaConfig:
        """The arena's configuration (its ``bots`` are the levels)."""
        return self.arena.config

    def order(self) -> list[str]:
        """Return the levels, strongest first."""
        return [r.level for r in self.ratings.ratings]

    def pairs_json(self) -> list[JSON]:
        """Return each pair's summary: deals won, tied, lost, points per deal, the model's
        expected score."""
        out = []
        for p in self.arena.pairs:
            wins, ties, losses = _record(p)
            out.append(
                {
                    "a": p.a,
                    "b": p.b,
                    "deals": len(p.deals),
                    "a_wins": wins,
                    "ties": ties,
                    "b_wins": losses,
                    "a_score": (wins + ties / 2) / len(p.deals),
                    "model_a_score": expected_score(self.ratings.fit, p.a, p.b),
                    "points_per_deal": p.summary.to_json(),
                }
            )
        return out

    def to_json(self) -> JSON:
        """Return the ladder as JSON: ratings strongest first, pairs, and the arena's
        result (every deal of every pair)."""
        cfg = self.config
        return {
            "format": FORMAT,
            "version": VERSION,
            "arguments": cfg.to_json(),
            "game": cfg.game,
            "variant": cfg.variant,
            "seed": cfg.seed,
            "levels": list(cfg.bots),
            "order": self.order(),
            "method": self.ratings.method_json(),
            "ratings": [r.to_json() for r in self.ratings.ratings],
            "pairs": self.pairs_json(),
            "elapsed_seconds": self.arena.elapsed,
            "arena": self.arena.to_json(),
        }

    def write_json(self, path: str) -> None:
        """Write :meth:`to_json` to ``path``."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f, indent=1, ensure_ascii=False)
            f.write("\n")

    def table(self) -> str:
        """Return the ladder as text."""
        return format_ladder(self)


def run_ladder(
    config: ArenaConfig,
    on_progress: Callable[[int, int], None] | None = None,
    prior_ties: float = PRIOR_TIES,
    replicates: int = REPLICATES,
) -> LadderResult:
    """Play every pair of ``config.bots`` (the levels) over ``config.deals`` duplicate
    deals and rate the levels; whole matches and records are not played or kept.

    Raises:
        InvalidOptionError: as :func:`quintet.arena.run_arena`.
    """
    cfg = replace(config, rubbers=0, records=False)
    result = run_arena(cfg, on_progress)
    labels = [s.label for s in result.config.specs()]
    ratings = rate(
        duplicate_games(result),
        labels,
        prior_ties=prior_ties,
        replicates=replicates,
        seed=result.config.seed,
    )
    return LadderResult(result, ratings)


# ------------------------------------------------------------------------ report


def _ci(s: Summary) -> str:
    if s.low is None or s.high is None:
        return "(n < 2)"
    return f"[{s.low:+.2f}, {s.high:+.2f}]"


def format_ladder(result: LadderResult) -> str:
    """Return the ladder's report: the ratings strongest first, then every pair."""
    cfg = result.config
    info, variant = cfg.game_info(), cfg.variant_info()
    count = len(seatings(info, variant, 0)[1])
    rt = result.ratings
    boot = (
        f"bootstrap over deals ({rt.replicates} replicates)"
        if rt.replicates
        else "Fisher information"
    )
    ties = "tie" if rt.prior_ties == 1 else "ties"
    budget = []
    if cfg.iterations is not None:
        budget.append(f"{cfg.iterations} iterations")
    if cfg.budget is not None:
        budget.append(f"{cfg.budget:g} CPU s")
    lines = [
        f"Ladder: {info.title} {cfg.variant}, {len(cfg.bots)} levels, {cfg.deals} deals per "
        f"pair in duplicate ({count} seatings each), seed {cfg.seed}, {cfg.jobs} jobs"
        f"{', budget ' + ' and '.join(budget) + ' per decision' if budget else ''}, "
        f"{result.arena.elapsed:.1f} s",
        "",
        f"Ratings, strongest first (Elo scale, {rt.fit.anchor} = 0): Bradley–Terry on "
        f"duplicate deals won, tied (1/2) and lost,",
        f"with {rt.prior_ties:g} virtual {ties} per pair; 95% CI: {boot}",
    ]
    wl = max(len("level"), *(len(r.level) for r in rt.ratings))
    lines.append(
        f"{'rank':>4}  {'level':<{wl}}  {'rating':>6}  {'95% CI':<14}  {'deals':>5}  "
        f"{'won-tied-lost':>13}  {'score':>5}"
    )
    notes = []
    for k, r in enumerate(rt.ratings, start=1):
        ci = f"[{r.ci95[0]:+.0f}, {r.ci95[1]:+.0f}]"
        wtl = f"{r.wins}-{r.ties}-{r.losses}"
        mark = " *" if r.note else ""
        lines.append(
            f"{k:>4}  {r.level:<{wl}}  {r.rating:>6.0f}  {ci:<14}  {r.games:>5}  {wtl:>13}  "
            f"{r.score:>5.2f}{mark}"
        )
        if r.note:
            notes.append(f"* {r.level}: {r.note}")
    if rt.failed_replicates:
        notes.append(f"{rt.failed_replicates} bootstrap replicates had no finite fit (skipped)")
    lines += notes
    lines += [
        "",
        "Pairs: A's duplicate deals won-tied-lost, the model's expected score, and points",
        "per deal (A minus B) with 95% confidence interval",
    ]
    wa = max([len("A"), *(len(p.a) for p in result.arena.pairs)])
    wb = max([len("B"), *(len(p.b) for p in result.arena.pairs)])
    lines.append(
        f"{'A':<{wa}}  {'B':<{wb}}  {'deals':>5}  {'won-tied-lost':>13}  {'score':>5}  "
        f"{'model':>5}  {'A - B':>8}  {'95% CI':<18}  result"
    )
    for p, js in zip(result.arena.pairs, result.pairs_json(), strict=True):
        s = p.summary
        verdict = f"{p.a if s.mean > 0 else p.b} better" if s.clear else "not clear"
        wtl = f"{js['a_wins']}-{js['ties']}-{js['b_wins']}"
        lines.append(
            f"{p.a:<{wa}}  {p.b:<{wb}}  {s.n:>5}  {wtl:>13}  {js['a_score']:>5.2f}  "
            f"{js['model_a_score']:>5.2f}  {s.mean:>+8.2f}  {_ci(s):<18}  {verdict}"
        )
    return "\n".join(lines)


__all__ = [
    "FORMAT",
    "VERSION",
    "LadderResult",
    "duplicate_games",
    "format_ladder",
    "ladder_levels",
    "run_ladder",
]
