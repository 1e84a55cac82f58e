"""Compile the double-dummy solver's kernels ahead of their first use.

numba compiles the kernels the first time they run in a fresh cache, which takes tens of
seconds; it writes the machine code to its on-disk cache (``__pycache__`` next to the
kernels when that is writable, as in an editable install, else numba's user cache
directory; ``NUMBA_CACHE_DIR`` overrides both), and later processes load it in well
under a second. :func:`warm_up` fills that cache: ``make`` runs it after installing
(``quintet warm-up``), so the first ``quintet solve`` is as fast as any later one.

It only calls the solvers' public methods, on small positions reached by playing dealt
hands to near their end (at a trick's lead, in mid-trick and, in Quintus, at a meld
decision), so every kernel entry point and argument type the solvers use is compiled,
whatever the kernels' internals are.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from quintet.actions import is_play
from quintet.quinto import QuintoRules, QuintoState
from quintet.quintus import QuintusRules, QuintusState

# Small tables: the arrays have the same types whatever their size, and stay cheap.
_TT_BITS = 12


def warm_up() -> float:
    """Compile (or load from numba's cache) every solver kernel; return the seconds taken.

    The time includes importing numba and the kernels when they are not imported yet.
    """
    start = time.perf_counter()
    from quintet.solver import QuintoSolver, QuintusSolver

    quinto = QuintoSolver(tt_bits=_TT_BITS)
    for j11 in (False, True):
        rules = QuintoRules(target=10_000, joker_eleventh_trick=j11)
        for state in _late_positions(partial(QuintoState.deal, rules, 0), tricks=12):
            quinto.value(state)
            quinto.move_values(state)
            quinto.best_move(state)
            if not state.trick:
                quinto.best_lead(state)
    quintus = QuintusSolver(tt_bits=_TT_BITS)
    for variant in ("base", "bidding"):
        deal = partial(QuintusState.deal, QuintusRules(variant=variant), 0)
        for state in _late_positions(deal, tricks=8):
            quintus.value(state)
            if any(is_play(a) for a in state.legal_actions()):  # not a meld decision
                quintus.move_values(state)
                quintus.best_move(state)
                target = quintus.target(state)
                if target is not None:  # a contract: pimc's null-window searches
                    quintus.move_reaches(state, target)
                    quintus.reaches(state, target)
    return time.perf_counter() - start


def _late_positions(deal: Callable[[random.Random], Any], tricks: int) -> Iterator[Any]:
    """Yield positions of a hand played at random to its last two tricks.

    Every position of the last trick but one where a decision is due (each card of the
    trick, and any meld decision), and the lead of the last. A hand that ends before
    (a Quintus auction everybody passes) is dealt again.
    """
    for seed in range(100):
        rng = random.Random(seed)
        state = deal(rng)
        found = 0
        while not state.is_terminal() and state.tricks_played <= tricks - 2:
            if state.tricks_played == tricks - 2:
                yield state.clone()
                found += 1
            legal = state.legal_actions()
            plays = [a for a in legal if is_play(a)]
            state.apply_action(rng.choice(plays or list(legal)))
        if not state.is_terminal() and not state.trick:
            yield state.clone()
            found += 1
        if found:
            return
    raise RuntimeError("no dealt hand reached its last two tricks")  # pragma: no cover


__all__ = ["warm_up"]
