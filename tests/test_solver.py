"""The double-dummy solvers give exactly what plain minimax over the engine gives."""

from __future__ import annotations

import random
from typing import Any

import pytest

from quintet.actions import MELD_COURT, MELD_STRAIGHT, is_play
from quintet.cards import QUINTUS_PACK, mask_cards, parse_mask
from quintet.quinto import QuintoRules, QuintoState
from quintet.quintus import QuintusRules, QuintusState
from quintet.quintus.state import MELD
from quintet.quintus.state import PLAY as QUINTUS_PLAY
from quintet.solver import QuintoSolver, QuintusSolver, SolverLimitError

# A target no hand can reach: the solver plays every hand out.
FAR = QuintoRules(target=10_000)
FAR_J11 = QuintoRules(target=10_000, joker_eleventh_trick=True)


def quinto_minimax(state: QuintoState) -> int:
    """Side 0's points minus side 1's from here to the end, by plain minimax."""
    if state.is_terminal():
        return 0
    before = _quinto_banked(state)
    values = []
    for a in state.legal_actions():
        child = state.child(a)
        values.append(_quinto_banked(child) - before + quinto_minimax(child))
    return max(values) if state.current_player() & 1 == 0 else min(values)


def _quinto_banked(state: QuintoState) -> int:
    # The engine adds trick points after the cachette; count them as banked.
    s0, s1 = state.score
    if state.is_terminal():
        return s0 - s1
    value = 5 * state.multiplier
    return s0 - s1 + value * (state.tricks_won[0] - state.tricks_won[1])


def random_quinto_endgame(rng: random.Random, cards: int, rules: QuintoRules) -> QuintoState:
    pack = list(range(53))
    rng.shuffle(pack)
    hands = [0, 0, 0, 0]
    leader = rng.randrange(4)
    trick_len = rng.randrange(4) if rng.random() < 0.5 else 0
    trick = []
    pos = 0
    for i in range(4):
        seat = (leader + i) & 3
        n = cards - 1 if i < trick_len else cards
        for c in pack[pos : pos + n]:
            hands[seat] |= 1 << c
        pos += n
    for _ in range(trick_len):
        trick.append(pack[pos])
        pos += 1
    cachette = 0
    if rng.random() < 0.8:
        for c in pack[pos : pos + 5]:
            cachette |= 1 << c
    state = QuintoState.from_position(
        hands,
        leader,
        rules,
        trick=trick,
        cachette=cachette,
        multiplier=rng.choice((1, 1, 2, 4)),
    )
    # A random position may break the joker rules; replace it by a legal one.
    if state.trick and any(c == 52 for c in state.trick[:1]) and cards > 0:
        return random_quinto_endgame(rng, cards, rules)
    return state


def quintus_minimax(state: QuintusState) -> int:
    """The quintus's points still to come, by plain minimax (premiums melded)."""
    if state.is_terminal():
        return 0
    base = state.points()[0]
    if state.phase == MELD:
        combo = MELD_COURT if state.pending_meld == "court" else MELD_STRAIGHT
        child = state.child(combo)
        return child.points()[0] - base + quintus_minimax(child)
    values = []
    for a in state.legal_actions():
        if not is_play(a):
            continue
        child = state.child(a)
        values.append(child.points()[0] - base + quintus_minimax(child))
    return max(values) if state.current_player() == state.quintus else min(values)


def random_quintus_endgame(rng: random.Random, cards: int) -> QuintusState:
    pack = list(mask_cards(QUINTUS_PACK))
    rng.shuffle(pack)
    quintus = rng.randrange(5)
    leader = rng.randrange(5)
    trick_len = rng.randrange(5) if rng.random() < 0.4 else 0
    hands = [0] * 5
    pos = 0
    for i in range(5):
        seat = (leader + i) % 5
        n = cards - 1 if i < trick_len else cards
        for c in pack[pos : pos + n]:
            hands[seat] |= 1 << c
        pos += n
    trick = pack[pos : pos + trick_len]
    pos += trick_len
    # Cards already won, so that nil and bidding values have a history.
    taken = [0] * 5
    for c in pack[pos : pos + 5 * rng.randrange(3)]:
        taken[rng.randrange(5)] |= 1 << c
    variant = rng.choice(("base", "bidding"))
    nil = rng.choice(("none", "none", "closed", "open"))
    trump = rng.choice(("S", "C", "D", "H", "NT"))
    return QuintusState.from_position(
        hands,
        quintus,
        leader,
        trump,
        QuintusRules(variant=variant),
        nil=nil,
        trick=trick,
        taken=taken,
        contract=40 if variant == "bidding" else None,
        first_trick=cards == 8 and trick_len == 0 and leader == quintus,
    )


@pytest.fixture(scope="module")
def quinto_solver() -> QuintoSolver:
    return QuintoSolver(tt_bits=14)


@pytest.fixture(scope="module")
def quintus_solver() -> QuintusSolver:
    return QuintusSolver(tt_bits=14)


def test_quinto_solver_equals_minimax_on_random_endgames(quinto_solver: QuintoSolver) -> None:
    rng = random.Random(2026)
    for i in range(1500):
        rules = FAR_J11 if i % 3 == 0 else FAR
        state = random_quinto_endgame(rng, rng.choice((1, 2, 2, 3, 3)), rules)
        want = quinto_minimax(state)
        sign = 1 if state.current_player() & 1 == 0 else -1
        assert quinto_solver.value(state) == sign * want, (i, str(state))


def test_quinto_move_values_equal_minimax(quinto_solver: QuintoSolver) -> None:
    rng = random.Random(7)
    for i in range(300):
        state = random_quinto_endgame(rng, rng.choice((2, 3)), FAR)
        sign = 1 if state.current_player() & 1 == 0 else -1
        before = _quinto_banked(state)
        values = quinto_solver.move_values(state)
        assert set(values) == set(state.legal_actions())
        for a, v in values.items():
            child = state.child(a)
            want = _quinto_banked(child) - before + quinto_minimax(child)
            assert v == sign * want, (i, a, str(state))
        _, value = quinto_solver.best_move(state)
        assert value == max(values.values()) == quinto_solver.value(state)


def test_quintus_solver_equals_minimax_on_random_endgames(
    quintus_solver: QuintusSolver,
) -> None:
    rng = random.Random(99)
    for i in range(1500):
        state = random_quintus_endgame(rng, rng.choice((1, 2, 2, 3)))
        assert quintus_solver.value(state) == quintus_minimax(state), (i, str(state))


def test_quintus_move_values_equal_minimax(quintus_solver: QuintusSolver) -> None:
    rng = random.Random(5)
    for i in range(300):
        state = random_quintus_endgame(rng, rng.choice((2, 3)))
        base = state.points()[0]
        values = quintus_solver.move_values(state)
        assert set(values) == {a for a in state.legal_actions() if is_play(a)}
        for a, v in values.items():
            child = state.child(a)
            want = child.points()[0] - base + quintus_minimax(child)
            assert v == want, (i, a, str(state))


def test_quinto_solver_refuses_the_doubling_round(quinto_solver: QuintoSolver) -> None:
    state = QuintoState.deal(FAR, 0, random.Random(1))
    with pytest.raises(ValueError, match="doubling round"):
        quinto_solver.value(state)


def test_quinto_solver_values_a_known_last_trick(quinto_solver: QuintoSolver) -> None:
    # North's heart ace takes the spade 2 and 3 (a quint, 5) and the 4: 5 + 5 for N-S.
    hands = [parse_mask("AH"), parse_mask("2S"), parse_mask("3S"), parse_mask("4S")]
    state = QuintoState.from_position(hands, 0, FAR)
    assert quinto_solver.value(state) == 10


def test_quinto_solver_counts_the_cachette_for_the_last_trick(
    quinto_solver: QuintoSolver,
) -> None:
    hands = [parse_mask("AH"), parse_mask("9S"), parse_mask("8S"), parse_mask("7S")]
    state = QuintoState.from_position(
        hands, 1, FAR, trick=[], cachette=parse_mask("5H 5D 6C 7C 8C")
    )
    # North wins the trick (5) and the cachette: one more trick (5) and 20 + 15 of quints.
    assert quinto_solver.value(state) == -(5 + 5 + 35)


def test_quinto_best_lead_is_a_best_card(quinto_solver: QuintoSolver) -> None:
    rng = random.Random(11)
    checked = 0
    while checked < 150:
        state = random_quinto_endgame(rng, rng.choice((2, 3, 4)), FAR)
        if state.trick:
            continue
        card, value = quinto_solver.best_lead(state)
        values = quinto_solver.move_values(state)
        assert value == max(values.values()) == values[card]
        checked += 1


def test_quintus_best_lead_is_a_best_card(quintus_solver: QuintusSolver) -> None:
    rng = random.Random(12)
    checked = 0
    while checked < 150:
        state = random_quintus_endgame(rng, rng.choice((2, 3, 4)))
        if state.trick or state.phase != QUINTUS_PLAY:
            continue
        card, value = quintus_solver.best_lead(state)
        values = quintus_solver.move_values(state)
        pick = max if state.current_player() == state.quintus else min
        assert value == pick(values.values()) == values[card]
        checked += 1


def test_solver_gives_up_past_its_node_limit() -> None:
    state = QuintoState.deal(FAR, 0, random.Random(3))
    for _ in range(4):
        state.apply_action(state.legal_actions()[0])
    with pytest.raises(SolverLimitError):
        QuintoSolver(tt_bits=12, max_nodes=1000).value(state)


def test_seat_values_are_for_the_seat_that_asks(
    quinto_solver: QuintoSolver, quintus_solver: QuintusSolver
) -> None:
    """Every seat reads values as "larger is better for me", whichever side the solver takes."""
    rng = random.Random(11)
    for _ in range(40):
        st = random_quinto_endgame(rng, 3, FAR)
        values = quinto_solver.move_values(st)
        for seat in range(4):
            mine = quinto_solver.seat_values(st, seat)
            same_side = seat & 1 == st.current_player() & 1
            assert mine == {c: v if same_side else -v for c, v in values.items()}
        q = random_quintus_endgame(rng, 3)
        values = quintus_solver.move_values(q)
        for seat in range(5):
            mine = quintus_solver.seat_values(q, seat)
            assert mine == {c: v if seat == q.quintus else -v for c, v in values.items()}


def test_so_far_and_the_value_add_up_to_the_outcome_of_best_play(
    quinto_solver: QuintoSolver, quintus_solver: QuintusSolver
) -> None:
    """``so_far(state, seat) + seat_value(state, seat)`` is the hand's outcome for the
    seat (what ``outcome`` measures at its end) when every card is a best one: what pimc
    adds up when it plays a deal out and solves the rest."""
    rng = random.Random(5)
    for i in range(60):
        st: Any = (
            random_quinto_endgame(rng, rng.choice((2, 3)), FAR)
            if i % 2
            else random_quintus_endgame(rng, rng.choice((2, 3)))
        )
        solver: Any = quinto_solver if i % 2 else quintus_solver
        seat = rng.randrange(len(st.hands))
        predicted = solver.so_far(st, seat) + solver.seat_value(st, seat)
        w = st.clone()
        while not w.is_terminal():
            if w.phase == MELD:  # premiums melded, as the solver counts them
                w.apply_action(MELD_COURT if w.pending_meld == "court" else MELD_STRAIGHT)
            else:
                w.apply_action(solver.best_move(w)[0])
        assert predicted == solver.outcome(w, seat), (i, str(st))
