"""Running an arena: every pair's tasks on a backend, gathered into an :class:`ArenaResult`."""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

from quintet.arena.backends import Outcome, Task, run_tasks
from quintet.arena.config import ArenaConfig
from quintet.arena.results import ArenaResult, BotStats, DealResult, MatchResult, PairResult
from quintet.arena.stats import summarize
from quintet.botproto import command_of, is_external, probe

JSON = dict[str, Any]


class _Progress:
    """Progress on standard error, when asked for: on a terminal a tqdm bar (if tqdm is
    installed), elsewhere (a log, ``nohup``) a plain line at each tenth of the tasks and
    at the last, where a bar's redrawing would be noise."""

    def __init__(self, total: int, enabled: bool, desc: str) -> None:
        self.bar: Any = None
        self.plain = False
        self.total, self.desc, self.done = total, desc, 0
        self.start = time.monotonic()
        if not enabled or total <= 0:
            return
        stderr = sys.stderr
        if stderr is None:
            return
        if not stderr.isatty():
            self.plain = True
            return
        try:
            tqdm = importlib.import_module("tqdm").tqdm
        except ImportError:
            return
        self.bar = tqdm(total=total, desc=desc, unit="task", file=sys.stderr, disable=None)

    def update(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)
        if not self.plain or n <= 0:
            return
        before, self.done = self.done, self.done + n
        tenth = -(-self.total // 10)  # the tasks of a tenth, rounded up
        if self.done // tenth > before // tenth or self.done >= self.total:
            print(
                f"{self.desc}: {self.done}/{self.total} tasks "
                f"({100 * self.done // self.total}%), {time.monotonic() - self.start:.0f} s",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def run_arena(
    config: ArenaConfig, on_progress: Callable[[int, int], None] | None = None
) -> ArenaResult:
    """Play the arena ``config`` describes and return its results.

    ``on_progress(done, total)`` is called as tasks finish (a task is a deal in all its
    seatings, or a duplicate match).

    Raises:
        InvalidOptionError: the configuration is invalid (see :meth:`ArenaConfig.resolved`),
            or an external bot's command does not start and answer ``hello``.
    """
    cfg = config.resolved()
    start = time.perf_counter()
    specs = cfg.specs()
    if cfg.backend == "local" or cfg.address is None:
        for spec in specs:
            if is_external(spec.level):
                probe(command_of(spec.level))  # fail now rather than in every hand
    pairs = list(combinations(range(len(specs)), 2))
    rubbers = cfg.rubbers or 0
    tasks: list[Task] = []
    for ia, ib in pairs:
        tasks += [("deal", ia, ib, i) for i in range(cfg.deals)]
        tasks += [("match", ia, ib, r) for r in range(rubbers)]
    jobs = min(cfg.jobs or 1, len(tasks))
    outcomes: dict[Task, tuple[DealResult | MatchResult, list[JSON]]] = {}
    desc = f"{cfg.game} {cfg.variant}"
    bar = _Progress(len(tasks), cfg.progress, desc)
    done = 0

    def collect(batch: list[Outcome]) -> None:
        nonlocal done
        for task, res, recs in batch:
            outcomes[task] = (res, recs)
        done += len(batch)
        bar.update(len(batch))
        if on_progress is not None:
            on_progress(done, len(tasks))

    try:
        run_tasks(cfg, tasks, jobs, collect)
    finally:
        bar.close()

    results = []
    records: list[JSON] = []
    for ia, ib in pairs:
        deals = []
        for i in range(cfg.deals):
            res, recs = outcomes[("deal", ia, ib, i)]
            assert isinstance(res, DealResult)
            deals.append(res)
            records += recs
        matches = []
        for r in range(rubbers):
            mres, recs = outcomes[("match", ia, ib, r)]
            assert isinstance(mres, MatchResult)
            matches.append(mres)
            records += recs
        a, b = specs[ia], specs[ib]
        results.append(
            PairResult(
                a=a.label,
                b=b.label,
                deals=deals,
                matches=matches,
                summary=summarize([d.diff for d in deals]),
                match_summary=summarize([m.diff for m in matches]) if matches else None,
                bots=_bot_stats(deals, (a.label, b.label)),
            )
        )
    return ArenaResult(cfg, results, records, time.perf_counter() - start)


def _bot_stats(deals: Sequence[DealResult], labels: Sequence[str]) -> dict[str, BotStats]:
    out = {}
    for label in labels:
        total = n = solo_total = solo_n = 0
        for d in deals:
            for s in d.seatings:
                for who, x in zip(s.players, s.scores, strict=True):
                    if who == label:
                        total += x
                        n += 1
                if s.solo is not None and s.players[s.solo] == label:
                    solo_total += s.scores[s.solo]
                    solo_n += 1
        out[label] = BotStats(
            hands=n,
            mean=total / n if n else 0.0,
            solo_hands=solo_n,
            solo_mean=solo_total / solo_n if solo_n else None,
        )
    return out


__all__ = ["run_arena"]
