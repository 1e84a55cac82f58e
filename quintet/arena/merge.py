"""Several arena runs of the same bots as one: ``quintet arena --merge RUN.json ...``.

A run too long for one machine or one sitting can be played as several runs with
different seeds (on different machines, on different days) and reported as one: each
seed deals its own deals, so the runs' deals are independent draws of the same
experiment and their duplicate results pool. What must agree between the runs is the
experiment: the game, the variant, the bots (in order), their budget in CPU seconds or
iterations, and the rules options; what may differ is how each was run (deals, jobs,
backend, records, rubbers). The same seed twice is refused: its deals would count twice
(a merged result counts as the seeds of all its runs, so it merges again safely).

The merged result is an :class:`~quintet.arena.results.ArenaResult` whose pairs hold every
run's deals and duplicate matches in the order of the files, its summaries computed
again over all of them; it has no records (each run's ``--out`` keeps its own).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from quintet.arena.config import ArenaConfig
from quintet.arena.results import FORMAT, VERSION, ArenaResult, DealResult, MatchResult, PairResult
from quintet.arena.run import _bot_stats
from quintet.arena.stats import summarize
from quintet.errors import InvalidOptionError

JSON = dict[str, Any]

#: The arguments that make two runs the same experiment.
SAME: Final = ("game", "variant", "bots", "budget", "iterations", "options")


def load_run(path: str | Path) -> JSON:
    """Return the arena result ``quintet arena --out`` wrote to ``path``.

    Raises:
        InvalidOptionError: the file cannot be read, is not JSON, or is not an arena's
            result (naming the file and what is wrong).
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise InvalidOptionError(f"{path}: cannot be read ({e.strerror or e})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InvalidOptionError(f"{path}: not JSON ({e})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InvalidOptionError(f"{path}: not a quintet arena result (no format {FORMAT!r})")
    if data.get("version") != VERSION:
        raise InvalidOptionError(
            f"{path}: arena result version {data.get('version')!r}, this quintet reads {VERSION}"
        )
    for key in ("arguments", "pairs"):
        if not isinstance(data.get(key), dict if key == "arguments" else list):
            raise InvalidOptionError(f"{path}: field {key!r} is missing or malformed")
    return data


def _config(args: JSON) -> ArenaConfig:
    return ArenaConfig(
        game=args["game"],
        variant=args["variant"],
        bots=tuple(args["bots"]),
        deals=int(args["deals"]),
        seed=int(args["seed"]),
        jobs=args.get("jobs"),
        budget=args.get("budget"),
        iterations=args.get("iterations"),
        rubbers=args.get("rubbers"),
        options=dict(args.get("options") or {}),
        records=False,
    )


def merge_runs(paths: Sequence[str | Path]) -> ArenaResult:
    """Return the runs in ``paths`` (``quintet arena --out`` files) as one result.

    Raises:
        InvalidOptionError: fewer than two files, a file that is not an arena result,
            runs of different experiments (naming the argument and both values), or a
            seed used twice.
    """
    if len(paths) < 2:
        raise InvalidOptionError(f"--merge takes two or more arena results, not {len(paths)}")
    runs = [load_run(p) for p in paths]
    first = runs[0]["arguments"]
    seen: dict[int, str | Path] = {}
    for path, run in zip(paths, runs, strict=True):
        args = run["arguments"]
        for key in SAME:
            if args.get(key) != first.get(key):
                raise InvalidOptionError(
                    f"{path}: {key} is {args.get(key)!r}, but {paths[0]} has "
                    f"{first.get(key)!r}: not the same experiment"
                )
        # A merged result is of the seeds of all its runs.
        seeds = run.get("merged_seeds") or [args.get("seed")]
        if not all(isinstance(x, int) for x in seeds):
            raise InvalidOptionError(f"{path}: field 'arguments.seed' is missing or malformed")
        for seed in seeds:
            if seed in seen:
                raise InvalidOptionError(
                    f"{path} and {seen[seed]} are both of seed {seed}: their deals are the same"
                )
            seen[seed] = path
    deals: dict[tuple[str, str], list[DealResult]] = {}
    matches: dict[tuple[str, str], list[MatchResult]] = {}
    for path, run in zip(paths, runs, strict=True):
        try:
            for p in run["pairs"]:
                ab = (p["a"], p["b"])
                deals.setdefault(ab, []).extend(DealResult.from_json(d) for d in p["deals"])
                matches.setdefault(ab, []).extend(MatchResult.from_json(m) for m in p["matches"])
        except (KeyError, TypeError, ValueError) as e:
            raise InvalidOptionError(f"{path}: a pair's results are malformed ({e!r})") from None
    pairs = [
        PairResult(
            a=a,
            b=b,
            deals=ds,
            matches=matches[(a, b)],
            summary=summarize([d.diff for d in ds]),
            match_summary=(
                summarize([m.diff for m in matches[(a, b)]]) if matches[(a, b)] else None
            ),
            bots=_bot_stats(ds, (a, b)),
        )
        for (a, b), ds in deals.items()
    ]
    config = replace(
        _config(first),
        deals=max(len(p.deals) for p in pairs),
        rubbers=max(len(p.matches) for p in pairs),
    )
    elapsed = sum(float(r.get("elapsed_seconds") or 0.0) for r in runs)
    return ArenaResult(config, pairs, [], elapsed, seeds=tuple(seen))


__all__ = ["SAME", "load_run", "merge_runs"]
