"""Double-dummy solvers: exact values of positions with every card visible.

:class:`QuintoSolver` values a Quinto position for the side to move;
:class:`QuintusSolver` values a Quintus position as the quintus's points. Both have
``value(state)``, ``move_values(state)`` and ``best_move(state)``, and read for any
seat: ``sign(state, seat)``, ``seat_values(state, seat)`` (larger is better for that
seat) and ``outcome(final_state, seat)``. :func:`solver_for` returns the one for a
state's game (``quintet.games.GameInfo.solver``).
"""

from __future__ import annotations

from typing import Any

from quintet.games import game_of
from quintet.solver.quinto import QuintoSolver, SolverLimitError
from quintet.solver.quintus import QuintusSolver


def solver_for(state: Any) -> QuintoSolver | QuintusSolver:
    """Return a new solver for ``state``'s game."""
    return game_of(state).solver()


__all__ = ["QuintoSolver", "QuintusSolver", "SolverLimitError", "solver_for"]
