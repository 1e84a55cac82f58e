"""The arena's Ray backend gives the local backend's results for the same seed.

One test starts one local Ray instance (2 CPUs, no dashboard) for everything, so that
pytest-xdist never starts two. Without Ray installed, or where a local Ray cannot start,
it is skipped and says why.
"""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path
from typing import Any

import pytest

from quintet.arena import ArenaConfig, ArenaResult, run_arena
from quintet.errors import InvalidOptionError

JSON = dict[str, Any]
SH_BOT = Path(__file__).resolve().parent.parent / "examples" / "first-legal.sh"


def comparable(result: ArenaResult) -> JSON:
    """The result as JSON without what may differ between runs (time, jobs, backend)."""
    out = result.to_json()
    del out["elapsed_seconds"]
    for key in ("jobs", "backend", "address"):
        del out["arguments"][key]
    return out


def test_ray_backend_gives_the_local_results() -> None:
    if importlib.util.find_spec("ray") is None:
        pytest.skip("Ray is not installed (pip install 'quintet-cards[ray]')")
    import ray

    try:
        ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING)
    except Exception as e:  # pragma: no cover - depends on the machine
        pytest.skip(f"a local Ray instance cannot start here: {type(e).__name__}: {e}")
    try:
        cases: list[JSON] = [
            {"game": "quinto", "bots": ("random", "heuristic"), "deals": 3, "rubbers": 1},
            {
                "game": "quintus",
                "variant": "bidding",
                "bots": ("heuristic", f"cmd:sh {SH_BOT}"),
                "deals": 2,
            },
        ]
        for kw in cases:
            local = run_arena(ArenaConfig(seed=7, jobs=1, **kw))
            remote = run_arena(ArenaConfig(seed=7, jobs=2, backend="ray", **kw))
            assert remote.config.backend == "ray"
            assert comparable(remote) == comparable(local)
            assert remote.table().splitlines()[2:] == local.table().splitlines()[2:]
        assert ray.is_initialized()  # a Ray already running is used, and left running
    finally:
        ray.shutdown()


def test_backend_options_are_checked() -> None:
    with pytest.raises(InvalidOptionError, match="unknown backend"):
        ArenaConfig(backend="dask").resolved()
    with pytest.raises(InvalidOptionError, match="ray backend"):
        ArenaConfig(address="ray://head:10001").resolved()
    cfg = ArenaConfig(deals=2).resolved()
    assert (cfg.backend, cfg.address) == ("local", None)
    assert cfg.to_json()["backend"] == "local"
