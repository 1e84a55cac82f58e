"""The solver agrees with the search it replaced on positions both can solve.

``tests/solver_reference`` keeps the kernels as they were before the canonical
positions, live quints and premiums, quick tricks, table moves and first guesses
(issue 11): plain MTD(f) over an alpha-beta keyed by the cards' ranks. Random hands
are played to a few tricks from the end (up to 9 tricks left in Quinto, 6 in
Quintus) and both searches value the position and each legal card.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from solver_reference import quinto_kernel as RQ
from solver_reference import quintus_kernel as RU

from quintet.quinto import QuintoRules, QuintoState
from quintet.quintus import QuintusRules, QuintusState
from quintet.quintus.state import PLAY
from quintet.solver import QuintoSolver, QuintusSolver


def _quinto_hand(seed: int, left: int, rules: QuintoRules) -> QuintoState:
    rng = random.Random(seed)
    s = QuintoState.deal(rules, rng.randrange(4), rng)
    for _ in range(4):
        s.apply_action(53)  # pass
    stop = rng.randrange(4)  # sometimes in the middle of a trick
    while s.tricks_played < 12 - left or len(s.trick) < stop:
        s.apply_action(rng.choice(s.legal_actions()))
    return s


def _quintus_hand(seed: int, left: int) -> QuintusState:
    rng = random.Random(seed)
    while True:  # a bidding hand all five pass is void: deal another
        variant = rng.choice(("base", "bidding"))
        s = QuintusState.deal(QuintusRules(variant=variant), rng.randrange(5), rng)
        stop = rng.randrange(5)  # sometimes in the middle of a trick
        while not s.is_terminal() and (
            s.phase != PLAY or s.tricks_played < 8 - left or len(s.trick) < stop
        ):
            acts = [a for a in s.legal_actions() if a < 67]  # no signals
            s.apply_action(rng.choice(acts))
        if not s.is_terminal():
            return s


def _reference_quinto(solver: QuintoSolver, state: QuintoState, card: int | None) -> int:
    """The old kernel's value (side 0's view, units of 5) of ``state`` or of a card."""
    hands, trick, ntr, tv, cach, tlen = solver._position(state)
    size = 1 << 18
    key = np.zeros((size, 6), dtype=np.int64)
    lo = np.zeros(size, dtype=np.int32)
    hi = np.zeros(size, dtype=np.int32)
    mv = np.zeros(size, dtype=np.int32)
    stats = np.zeros(5, dtype=np.int64)
    j11 = state.rules.joker_eleventh_trick
    if card is None:
        return int(
            RQ.mtdf(hands, trick, tlen, state.leader, ntr, 0, tv, cach, j11, key, lo, hi, mv, 1,
                    stats, 0)
        )  # fmt: skip
    return int(
        RQ.child_value(hands, trick, tlen, state.leader, ntr, card, 0, tv, cach, j11, key, lo,
                       hi, mv, 1, stats, 0)
    )  # fmt: skip


@pytest.mark.parametrize(
    ("seed", "left", "j11"),
    [(1, 9, False), (2, 9, False), (3, 8, True), (4, 8, False), (5, 7, False), (6, 7, True)],
)
def test_quinto_solver_agrees_with_the_reference_search(seed: int, left: int, j11: bool) -> None:
    state = _quinto_hand(seed, left, QuintoRules(target=100_000, joker_eleventh_trick=j11))
    solver = QuintoSolver(tt_bits=18)
    sign = 5 if state.turn & 1 == 0 else -5
    assert solver.value(state) == sign * _reference_quinto(solver, state, None)
    values = solver.move_values(state)
    assert values == {c: sign * _reference_quinto(solver, state, c) for c in values}
    if not state.trick:
        card, value = solver.best_lead(state)
        assert value == max(values.values()) and values[card] == value


def _reference_quintus(solver: QuintusSolver, state: QuintusState, card: int | None) -> int:
    p = solver._position(state)
    size = 1 << 18
    key = np.zeros((size, 7), dtype=np.int64)
    lo = np.zeros(size, dtype=np.int32)
    hi = np.zeros(size, dtype=np.int32)
    stats = np.zeros(3, dtype=np.int64)
    common = (p.quintus, p.trump, p.first, p.nil, p.failed, p.bidding, p.cur, p.bonus)
    if card is None:
        return int(
            RU.mtdf(p.hands, p.trick, p.tlen, p.leader, p.ntr, 0, *common, key, lo, hi, 1,
                    stats, 0)
        )  # fmt: skip
    return int(
        RU.child_value(p.hands, p.trick, p.tlen, p.leader, p.ntr, card, 0, *common, key, lo,
                       hi, 1, stats, 0)
    )  # fmt: skip


@pytest.mark.parametrize(("seed", "left"), [(1, 6), (2, 6), (3, 6), (4, 5), (5, 5), (6, 4)])
def test_quintus_solver_agrees_with_the_reference_search(seed: int, left: int) -> None:
    state = _quintus_hand(seed, left)
    solver = QuintusSolver(tt_bits=18)
    assert solver.value(state) == _reference_quintus(solver, state, None)
    values = solver.move_values(state)
    assert values == {c: _reference_quintus(solver, state, c) for c in values}
