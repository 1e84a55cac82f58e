"""The Quintus solver's contract questions: does a card reach a number of points?

``move_reaches`` answers by one null-window search per card what ``move_values``
answers exactly; it must agree with ``move_values`` thresholded, on random positions of
both variants, at thresholds around each card's value (where a wrong bound would show).
"""

from __future__ import annotations

import random

import pytest
from test_solver import random_quintus_endgame

from quintet.quintus import QuintusRules, QuintusState
from quintet.solver import QuintusSolver, SolverLimitError


@pytest.fixture(scope="module")
def solver() -> QuintusSolver:
    return QuintusSolver(tt_bits=14)


def test_move_reaches_agrees_with_move_values_thresholded(solver: QuintusSolver) -> None:
    rng = random.Random(13)
    for i in range(300):
        state = random_quintus_endgame(rng, rng.choice((1, 2, 3, 4)))
        values = solver.move_values(state)
        for v in sorted(set(values.values())):
            for target in (v - 1, v, v + 1):
                reaches = solver.move_reaches(state, target)
                want = {c: values[c] >= target for c in values}
                assert reaches == want, (i, target, str(state))


def test_move_reaches_agrees_on_fresh_tables() -> None:
    rng = random.Random(29)
    for i in range(100):
        state = random_quintus_endgame(rng, rng.choice((2, 3, 4)))
        values = QuintusSolver(tt_bits=12).move_values(state)
        target = rng.choice(sorted(values.values())) + rng.choice((0, 1))
        reaches = QuintusSolver(tt_bits=12).move_reaches(state, target)
        assert reaches == {c: values[c] >= target for c in values}, (i, str(state))


def test_target_is_the_contract_less_the_points_so_far() -> None:
    rng = random.Random(3)
    for _ in range(50):
        state = random_quintus_endgame(rng, 3)
        want = None if state.contract is None else state.contract - state.points()[0]
        assert QuintusSolver.target(state) == want


def test_seat_reaches_is_made_for_the_quintus_and_failed_for_the_others(
    solver: QuintusSolver,
) -> None:
    rng = random.Random(5)
    done = 0
    while done < 60:
        state = random_quintus_endgame(rng, rng.choice((2, 3)))
        target = QuintusSolver.target(state)
        if target is None:
            continue
        values = solver.move_values(state)
        made = {c: values[c] >= target for c in values}
        for seat in range(5):
            want = made if seat == state.quintus else {c: not m for c, m in made.items()}
            assert solver.seat_reaches(state, seat) == want
        done += 1


def test_seat_reaches_needs_a_contract(solver: QuintusSolver) -> None:
    state = QuintusState.from_position(
        [1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4], 0, 0, "NT", QuintusRules(variant="base")
    )
    with pytest.raises(ValueError, match="needs a contract"):
        solver.seat_reaches(state)


def test_move_reaches_gives_up_past_its_node_limit() -> None:
    rng = random.Random(11)
    state = random_quintus_endgame(rng, 8)
    with pytest.raises(SolverLimitError):
        QuintusSolver(tt_bits=12, max_nodes=50).move_reaches(state, 0)


def test_reaches_agrees_with_value_thresholded(solver: QuintusSolver) -> None:
    rng = random.Random(17)
    for i in range(300):
        state = random_quintus_endgame(rng, rng.choice((1, 2, 3, 4)))
        v = solver.value(state)
        for target in (v - 1, v, v + 1):
            assert solver.reaches(state, target) == (v >= target), (i, target, str(state))
