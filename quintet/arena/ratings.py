"""Ratings from duplicate results: a Bradley–Terry fit with 95% confidence intervals.

Every duplicate deal between levels A and B is one *game*: A scores 1 if its points per
deal beat B's (the deal's ``diff`` is above 0), 0 if below and 1/2 for a tie. The model
(Bradley–Terry, ties as half a win each) is ``P(A beats B) = σ(θ_A - θ_B)`` with ``σ``
the logistic function; the θ are fitted by maximum likelihood (Newton's method, pure
Python) with one level, the *anchor*, held at 0, and reported on the Elo scale:
``rating = 400·log10(e)·θ``, so a 400 point gap is 10 to 1 odds of winning a deal.

Ties in the prior: ``prior_ties`` virtual tied games are added to every pair that played
(the "virtual draws" of BayesElo). Without them a level that won every deal it played has
no finite maximum-likelihood rating; with them every rating is finite, and a level that
won (or lost) every deal is flagged with a note, since its rating is then set by the
prior rather than measured. One virtual tie against 100 real deals moves a rating by a
few points, well inside its interval. ``prior_ties=0`` is the plain maximum likelihood,
which raises :class:`ValueError` when it does not exist.

Intervals: ``ci95`` is a percentile bootstrap over *deals*: deal indices are drawn with
replacement and every pair's result on a drawn deal goes with it (in a ladder all pairs
play the same deals, so their results are correlated through the cards; resampling
whole deals keeps that), and the fit is redone for each replicate, with a generator
seeded by ``seed``. ``fisher_ci95`` is rating ± 1.96 standard errors from the observed
Fisher information (the inverse of the log-likelihood's negative Hessian), which treats
every game as independent. Both are intervals of the rating *relative to the anchor*,
whose own interval is [0, 0].

>>> games = [DuplicateGame("a", "b", 1.0, i) for i in range(3)]
>>> games += [DuplicateGame("a", "b", 0.0, 3)]
>>> fit = fit_bradley_terry(games, anchor="b", prior_ties=0)
>>> round(fit.theta["a"] - math.log(3), 9), fit.theta["b"]
(0.0, 0.0)
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

JSON = dict[str, Any]

#: Elo points per unit of θ (a logit): 400·log10(e).
ELO_PER_LOGIT: Final = 400 / math.log(10)
#: Virtual tied games added to every pair that played (see the module docstring).
PRIOR_TIES: Final = 1.0
#: Bootstrap replicates of the confidence intervals.
REPLICATES: Final = 1000
#: The anchor when the caller names none and the levels include it.
DEFAULT_ANCHOR: Final = "random"

_Z975: Final = 1.96
_PRIOR_NOTE: Final = "is set by the prior's virtual ties, not measured"
_MAX_ITERATIONS: Final = 200
_TOLERANCE: Final = 1e-10


@dataclass(frozen=True)
class DuplicateGame:
    """One duplicate deal between ``a`` and ``b``: ``score`` is A's (1 win, 1/2 tie, 0 loss).

    ``deal`` is the deal's index: games on one deal are resampled together by the
    bootstrap (None: a deal of its own).
    """

    a: str
    b: str
    score: float
    deal: int | None = None

    @classmethod
    def of_diff(cls, a: str, b: str, diff: float, deal: int | None = None) -> DuplicateGame:
        """Return the game of a deal A won by ``diff`` points per deal (negative: lost)."""
        return cls(a, b, 1.0 if diff > 0 else 0.0 if diff < 0 else 0.5, deal)


@dataclass(frozen=True)
class Fit:
    """A maximum-likelihood fit: ``theta`` per level (logits, the anchor's 0) and
    ``cov``, the covariance of the θ relative to the anchor (from the observed Fisher
    information), per pair of levels."""

    levels: tuple[str, ...]
    anchor: str
    theta: dict[str, float]
    cov: dict[tuple[str, str], float]
    iterations: int

    def se(self, level: str) -> float:
        """Return the standard error of ``level``'s θ (relative to the anchor)."""
        return math.sqrt(max(0.0, self.cov[level, level]))

    def reanchored(self, anchor: str) -> Fit:
        """Return the same fit with ``anchor`` at 0 instead."""
        if anchor not in self.theta:
            raise ValueError(f"unknown anchor level {anchor!r}")
        theta = {x: t - self.theta[anchor] for x, t in self.theta.items()}
        c = self.cov
        cov = {
            (x, y): c[x, y] - c[x, anchor] - c[anchor, y] + c[anchor, anchor]
            for x in self.levels
            for y in self.levels
        }
        return Fit(self.levels, anchor, theta, cov, self.iterations)


@dataclass(frozen=True)
class Rating:
    """One level's rating (Elo scale, relative to the anchor) and its record.

    ``ci95`` is the bootstrap interval, ``fisher_ci95`` the Fisher-information one;
    ``games`` the duplicate deals it played, ``wins``/``ties``/``losses`` their results
    and ``score`` its mean score (wins plus half the ties, per game); ``note`` says why
    the rating is to be read with care, if it is.
    """

    level: str
    rating: float
    ci95: tuple[float, float]
    se: float
    fisher_ci95: tuple[float, float]
    games: int
    wins: int
    ties: int
    losses: int
    note: str | None = None

    @property
    def score(self) -> float:
        """The mean score per game (wins plus half the ties)."""
        return (self.wins + self.ties / 2) / self.games if self.games else 0.0

    def to_json(self) -> JSON:
        """Return the rating as JSON."""
        return {
            "level": self.level,
            "rating": self.rating,
            "ci95": list(self.ci95),
            "se": self.se,
            "fisher_ci95": list(self.fisher_ci95),
            "games": self.games,
            "wins": self.wins,
            "ties": self.ties,
            "losses": self.losses,
            "score": self.score,
            "note": self.note,
        }


# ----------------------------------------------------------------------- the fit


def _levels_of(games: Sequence[DuplicateGame], levels: Sequence[str] | None) -> tuple[str, ...]:
    seen: dict[str, None] = dict.fromkeys(levels or ())
    for g in games:
        if g.a == g.b:
            raise ValueError(f"a game of {g.a!r} against itself says nothing about ratings")
        if not 0 <= g.score <= 1:
            raise ValueError(f"a game's score is between 0 and 1, not {g.score}")
        if levels is not None and (g.a not in seen or g.b not in seen):
            raise ValueError(f"a game of {g.a!r} against {g.b!r}, a level not listed")
        seen.setdefault(g.a)
        seen.setdefault(g.b)
    if len(seen) < 2:
        raise ValueError("ratings need at least two levels")
    return tuple(seen)


def _totals(
    index: dict[str, int], games: Iterable[DuplicateGame]
) -> tuple[list[list[float]], list[list[float]]]:
    """Return games played ``n[i][j]`` and score ``w[i][j]`` of level i against level j."""
    k = len(index)
    n = [[0.0] * k for _ in range(k)]
    w = [[0.0] * k for _ in range(k)]
    for g in games:
        i, j = index[g.a], index[g.b]
        n[i][j] += 1
        n[j][i] += 1
        w[i][j] += g.score
        w[j][i] += 1 - g.score
    return n, w


def _with_prior(n: list[list[float]], w: list[list[float]], ties: float) -> None:
    for i, row in enumerate(n):
        for j, count in enumerate(row):
            if i != j and count > 0:
                n[i][j] += ties
                w[i][j] += ties / 2


def _reach(k: int, edge: list[list[bool]], start: int) -> set[int]:
    seen = {start}
    todo = [start]
    while todo:
        i = todo.pop()
        for j in range(k):
            if edge[i][j] and j not in seen:
                seen.add(j)
                todo.append(j)
    return seen


def _check_finite(levels: Sequence[str], n: list[list[float]], w: list[list[float]]) -> None:
    """Raise unless the maximum-likelihood ratings exist: every level must be reachable
    from every other along "scored against" links (Zermelo, Ford)."""
    k = len(levels)
    if len(_reach(k, [[n[i][j] > 0 for j in range(k)] for i in range(k)], 0)) < k:
        raise ValueError("the levels fall into groups that never played each other")
    beat = [[w[i][j] > 0 for j in range(k)] for i in range(k)]
    beaten_by = [[beat[j][i] for j in range(k)] for i in range(k)]
    if len(_reach(k, beat, 0)) == k and len(_reach(k, beaten_by, 0)) == k:
        return
    unbeaten = [levels[i] for i in range(k) if not any(w[j][i] > 0 for j in range(k))]
    winless = [levels[i] for i in range(k) if not any(w[i][j] > 0 for j in range(k))]
    which = []
    if unbeaten:
        which.append(f"{', '.join(unbeaten)} never lost a deal")
    if winless:
        which.append(f"{', '.join(winless)} never won one")
    why = "; ".join(which) or "some levels never lost a deal to the others"
    raise ValueError(f"no finite maximum-likelihood ratings: {why} (use prior_ties > 0)")


def _solve(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    """Return ``a⁻¹ b`` (Gauss–Jordan with partial pivoting; ``a`` positive definite)."""
    m = len(a)
    rows = [list(a[i]) + list(b[i]) for i in range(m)]
    for c in range(m):
        p = max(range(c, m), key=lambda r: abs(rows[r][c]))
        if abs(rows[p][c]) < 1e-300:
            raise ValueError("the Fisher information is singular")
        rows[c], rows[p] = rows[p], rows[c]
        pivot = rows[c][c]
        rows[c] = [x / pivot for x in rows[c]]
        for r in range(m):
            if r != c and rows[r][c] != 0:
                f = rows[r][c]
                rows[r] = [x - f * y for x, y in zip(rows[r], rows[c], strict=True)]
    return [row[m:] for row in rows]


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)


def _log_likelihood(theta: list[float], n: list[list[float]], w: list[list[float]]) -> float:
    total = 0.0
    k = len(theta)
    for i in range(k):
        for j in range(k):
            if i != j and w[i][j] > 0:
                # log σ(d) = -log(1 + e^-d), computed stably
                d = theta[i] - theta[j]
                total -= w[i][j] * (math.log1p(math.exp(-d)) if d > -30 else -d)
    return total


def _newton(
    n: list[list[float]], w: list[list[float]], anchor: int
) -> tuple[list[float], list[list[float]], int]:
    """Return θ (anchor at 0), the covariance of the free θ (in the order of ``free``)
    and the iterations taken."""
    k = len(n)
    free = [i for i in range(k) if i != anchor]
    theta = [0.0] * k
    info: list[list[float]] = []
    iterations = 0
    while True:
        iterations += 1
        if iterations > _MAX_ITERATIONS:  # pragma: no cover - concave, and checked finite
            raise ValueError("the ratings did not converge")
        grad = [0.0] * k
        hess = [[0.0] * k for _ in range(k)]
        for i in range(k):
            for j in range(k):
                if i == j or n[i][j] == 0:
                    continue
                p = _sigmoid(theta[i] - theta[j])
                grad[i] += w[i][j] - n[i][j] * p
                v = n[i][j] * p * (1 - p)
                hess[i][i] += v
                hess[i][j] -= v
        info = [[hess[i][j] for j in free] for i in free]
        step = [row[0] for row in _solve(info, [[grad[i]] for i in free])]
        before = _log_likelihood(theta, n, w)
        scale = 1.0
        while True:
            trial = list(theta)
            for s, i in zip(step, free, strict=True):
                trial[i] += scale * s
            if _log_likelihood(trial, n, w) >= before - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        theta = trial
        if max((abs(s) for s in step), default=0.0) * scale < _TOLERANCE:
            break
    ident = [[1.0 if r == c else 0.0 for c in range(len(free))] for r in range(len(free))]
    return theta, _solve(info, ident), iterations


def fit_bradley_terry(
    games: Sequence[DuplicateGame],
    levels: Sequence[str] | None = None,
    anchor: str | None = None,
    prior_ties: float = PRIOR_TIES,
) -> Fit:
    """Return the Bradley–Terry fit of ``games`` (see the module docstring).

    ``levels`` (default: those in the games, in order of appearance) fixes the levels'
    order; every one of them must have played. ``anchor`` is the level held at 0
    (default: ``random`` if it is a level, else the first level).

    Raises:
        ValueError: fewer than two levels, a level that played nobody, an unknown anchor,
            or (``prior_ties`` 0) no finite maximum-likelihood ratings.
    """
    if prior_ties < 0:
        raise ValueError(f"prior_ties must be 0 or more, not {prior_ties}")
    names = _levels_of(games, levels)
    index = {x: i for i, x in enumerate(names)}
    if anchor is None:
        anchor = DEFAULT_ANCHOR if DEFAULT_ANCHOR in index else names[0]
    if anchor not in index:
        raise ValueError(f"the anchor {anchor!r} is not one of the levels")
    n, w = _totals(index, games)
    idle = [x for x in names if not any(n[index[x]])]
    if idle:
        raise ValueError(f"{', '.join(idle)} played no game")
    _with_prior(n, w, prior_ties)
    _check_finite(names, n, w)
    a = index[anchor]
    theta, cov, iterations = _newton(n, w, a)
    free = [x for x in names if x != anchor]
    covariance = {(x, y): 0.0 for x in names for y in names}
    for r, x in enumerate(free):
        for c, y in enumerate(free):
            covariance[x, y] = cov[r][c]
    return Fit(names, anchor, dict(zip(names, theta, strict=True)), covariance, iterations)


def expected_score(fit: Fit, a: str, b: str) -> float:
    """Return the model's expected score of ``a`` against ``b`` in one game."""
    return _sigmoid(fit.theta[a] - fit.theta[b])


# ------------------------------------------------------------------ the bootstrap


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q`` quantile, interpolating linearly between order statistics."""
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def bootstrap_theta(
    games: Sequence[DuplicateGame],
    fit: Fit,
    prior_ties: float = PRIOR_TIES,
    replicates: int = REPLICATES,
    seed: int | str = 0,
) -> tuple[dict[str, list[float]], int]:
    """Return each level's θ in ``replicates`` refits on deals drawn with replacement
    (anchored as ``fit``), sorted, and how many replicates had no finite fit (skipped;
    only possible with ``prior_ties`` 0)."""
    clusters: dict[object, list[DuplicateGame]] = {}
    for k, g in enumerate(games):
        key: object = ("deal", g.deal) if g.deal is not None else ("game", k)
        clusters.setdefault(key, []).append(g)
    groups = list(clusters.values())
    rng = random.Random(f"{seed}:bootstrap")
    out: dict[str, list[float]] = {x: [] for x in fit.levels}
    failed = 0
    for _ in range(replicates):
        drawn = [g for _ in groups for g in groups[rng.randrange(len(groups))]]
        try:
            again = fit_bradley_terry(drawn, fit.levels, fit.anchor, prior_ties)
        except ValueError:
            failed += 1
            continue
        for x in fit.levels:
            out[x].append(again.theta[x])
    for values in out.values():
        values.sort()
    return out, failed


# -------------------------------------------------------------------- the ratings


@dataclass(frozen=True)
class Ratings:
    """Every level's :class:`Rating`, strongest first, and how they were computed."""

    ratings: tuple[Rating, ...]
    fit: Fit
    prior_ties: float
    replicates: int
    failed_replicates: int
    seed: int | str

    def by_level(self) -> dict[str, Rating]:
        """Return the ratings by level."""
        return {r.level: r for r in self.ratings}

    def method_json(self) -> JSON:
        """Return how the ratings were computed, as JSON."""
        return {
            "model": "bradley-terry",
            "outcome": "duplicate deal: win 1, tie 1/2, loss 0 (points per deal, A minus B)",
            "scale": "elo: 400*log10(e) per logit",
            "anchor": self.fit.anchor,
            "prior_ties_per_pair": self.prior_ties,
            "ci95": "percentile bootstrap over deals",
            "replicates": self.replicates,
            "failed_replicates": self.failed_replicates,
            "bootstrap_seed": f"{self.seed}:bootstrap",
            "fisher_ci95": "rating ± 1.96 se, observed Fisher information",
            "newton_iterations": self.fit.iterations,
        }


def rate(
    games: Sequence[DuplicateGame],
    levels: Sequence[str] | None = None,
    anchor: str | None = None,
    prior_ties: float = PRIOR_TIES,
    replicates: int = REPLICATES,
    seed: int | str = 0,
) -> Ratings:
    """Return every level's rating from ``games`` (see the module docstring).

    ``anchor`` None is ``random`` if it is a level, else the lowest-rated level;
    ``replicates`` 0 skips the bootstrap (``ci95`` is then the Fisher interval).

    Raises:
        ValueError: as :func:`fit_bradley_terry`.
    """
    if replicates < 0:
        raise ValueError(f"replicates must be 0 or more, not {replicates}")
    fit = fit_bradley_terry(games, levels, anchor, prior_ties)
    if anchor is None and DEFAULT_ANCHOR not in fit.theta:
        fit = fit.reanchored(min(fit.levels, key=lambda x: fit.theta[x]))
    boot, failed = (
        bootstrap_theta(games, fit, prior_ties, replicates, seed) if replicates else ({}, 0)
    )
    record = {x: [0, 0, 0] for x in fit.levels}  # wins, ties, losses
    for g in games:
        for who, s in ((g.a, g.score), (g.b, 1 - g.score)):
            record[who][0 if s > 0.5 else 2 if s < 0.5 else 1] += 1
    out = []
    for x in fit.levels:
        theta, se = fit.theta[x], fit.se(x)
        fisher = ((theta - _Z975 * se) * ELO_PER_LOGIT, (theta + _Z975 * se) * ELO_PER_LOGIT)
        values = boot.get(x)
        if values:
            ci = (
                _quantile(values, 0.025) * ELO_PER_LOGIT,
                _quantile(values, 0.975) * ELO_PER_LOGIT,
            )
        else:
            ci = fisher
        wins, ties, losses = record[x]
        note = None
        if wins == wins + ties + losses:
            note = f"won every deal it played: how far above the others it is {_PRIOR_NOTE}"
        elif losses == wins + ties + losses:
            note = f"lost every deal it played: how far below the others it is {_PRIOR_NOTE}"
        out.append(
            Rating(
                level=x,
                rating=theta * ELO_PER_LOGIT,
                ci95=ci,
                se=se * ELO_PER_LOGIT,
                fisher_ci95=fisher,
                games=wins + ties + losses,
                wins=wins,
                ties=ties,
                losses=losses,
                note=note,
            )
        )
    out.sort(key=lambda r: -r.rating)
    return Ratings(tuple(out), fit, prior_ties, replicates, failed, seed)


__all__ = [
    "DEFAULT_ANCHOR",
    "ELO_PER_LOGIT",
    "PRIOR_TIES",
    "REPLICATES",
    "DuplicateGame",
    "Fit",
    "Rating",
    "Ratings",
    "bootstrap_theta",
    "expected_score",
    "fit_bradley_terry",
    "rate",
]
