"""Fixtures shared by the test modules."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"

#: The type of the ``load_bench`` fixture: a benchmark script's name to its module.
LoadBench = Callable[[str], Any]


@pytest.fixture
def load_bench(monkeypatch: pytest.MonkeyPatch) -> LoadBench:
    """Return a loader of the benchmark scripts of ``bench/`` by name (``"server_cpu"``:
    ``bench/server_cpu.py``), each call a fresh module ``NAME_bench``, registered in
    ``sys.modules`` (where its dataclasses and pickled functions look it up) until the
    test ends."""

    def load(name: str) -> Any:
        path = BENCH / f"{name}.py"
        if not path.is_file():
            raise FileNotFoundError(f"no benchmark {name!r}: {path} does not exist")
        spec = importlib.util.spec_from_file_location(f"{name}_bench", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, spec.name, module)
        spec.loader.exec_module(module)
        return module

    return load
