"""Where the tasks run: in this process, a local process pool, or Ray.

A task is a deal in all its seatings, or a duplicate match; chunks of tasks go to the
workers and come back in any order (the runner gathers them in deal order).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from quintet.arena.config import ArenaConfig
from quintet.arena.play import play_deal, play_match
from quintet.arena.results import DealResult, MatchResult

JSON = dict[str, Any]

Task = tuple[str, int, int, int]
Outcome = tuple[Task, DealResult | MatchResult, list[JSON]]


def _run_chunk(cfg: ArenaConfig, chunk: Sequence[Task]) -> list[Outcome]:
    """Play some tasks (in a worker process or in this one)."""
    specs = cfg.specs()
    out: list[Outcome] = []
    for task in chunk:
        kind, ia, ib, i = task
        play = play_deal if kind == "deal" else play_match
        res, recs = play(cfg, specs[ia], specs[ib], i)
        out.append((task, res, recs))
    return out


def _chunks(tasks: Sequence[Task], jobs: int) -> list[list[Task]]:
    """Group small tasks so a worker gets several at once, a few chunks per worker at least."""
    matches = [t for t in tasks if t[0] == "match"]
    deals = [t for t in tasks if t[0] == "deal"]
    size = max(1, min(16, len(deals) // (jobs * 8)))
    # Matches are the longest tasks: start them first.
    return [[t] for t in matches] + [deals[i : i + size] for i in range(0, len(deals), size)]


def run_tasks(
    cfg: ArenaConfig, tasks: Sequence[Task], jobs: int, collect: Callable[[list[Outcome]], None]
) -> None:
    """Play ``tasks`` on ``cfg``'s backend (``jobs`` local processes; 1: in this one),
    handing each finished chunk's outcomes to ``collect``."""
    if cfg.backend == "ray":
        _run_ray(cfg, tasks, collect)
    elif jobs <= 1:
        for chunk in _chunks(tasks, 1):
            collect(_run_chunk(cfg, chunk))
    else:
        _run_local(cfg, tasks, jobs, collect)


def _run_local(
    cfg: ArenaConfig, tasks: Sequence[Task], jobs: int, collect: Callable[[list[Outcome]], None]
) -> None:
    """Run the tasks in a pool of ``jobs`` processes."""
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        pending: set[Future[list[Outcome]]] = {
            pool.submit(_run_chunk, cfg, chunk) for chunk in _chunks(tasks, jobs)
        }
        try:
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    collect(fut.result())
        except BaseException:
            for fut in pending:
                fut.cancel()
            raise


def _run_ray(
    cfg: ArenaConfig, tasks: Sequence[Task], collect: Callable[[list[Outcome]], None]
) -> None:
    """Run the tasks as Ray remote functions (see the module docstring)."""
    ray = importlib.import_module("ray")
    started = False
    if not ray.is_initialized():
        if cfg.address is None:
            ray.init(num_cpus=cfg.jobs, include_dashboard=False, logging_level=logging.WARNING)
        else:
            ray.init(address=cfg.address, logging_level=logging.WARNING)
        started = True
    try:
        cpus = int(ray.cluster_resources().get("CPU", cfg.jobs or 1))
        remote = ray.remote(num_cpus=1)(_run_chunk)
        config = ray.put(cfg)
        pending = [remote.remote(config, chunk) for chunk in _chunks(tasks, max(1, cpus))]
        try:
            while pending:
                finished, pending = ray.wait(pending, num_returns=1)
                for ref in finished:
                    collect(ray.get(ref))
        except BaseException:
            for ref in pending:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
            raise
    finally:
        if started:
            ray.shutdown()


__all__ = ["Outcome", "Task", "run_tasks"]
