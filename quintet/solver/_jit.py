"""The compiler for the solver's kernels: numba when installed, else plain Python.

The kernels are written once, in the subset of Python numba compiles; without numba
the same functions run interpreted (much slower, same results).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])

numba: Any
try:
    import numba

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - numba is a dependency; this keeps one code path
    numba = None
    HAVE_NUMBA = False


def jit(fn: F) -> F:
    """Compile ``fn`` with numba (no Python objects, cached on disk) when available."""
    if numba is None:  # pragma: no cover
        return fn
    compiled: Any = numba.njit(cache=True, nogil=True)(fn)
    return cast(F, compiled)
