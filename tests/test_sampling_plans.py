"""The deal sampler's fast paths draw exactly as its general plan: same totals, same
draws from the same generator, same tables.

A resample must not change when the sampler gets faster: for three or more constrained
classes the deal uses :class:`~quintet.sampling._PlanLast2` (the last two classes in
closed form, their tables built when first drawn from), checked here against the general
:class:`~quintet.sampling._Plan` on random shapes.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quintet import sampling

#: A plan's shape: slot sizes, the slots each class may use, the class sizes.
Shape = tuple[tuple[int, ...], tuple[tuple[int, ...], ...], tuple[int, ...]]


def _shape(data: Any, classes: int) -> Shape | None:
    sizes = tuple(data.draw(st.lists(st.integers(0, 9), min_size=2, max_size=5)))
    m = len(sizes)
    slot_sets = st.lists(st.integers(0, m - 1), min_size=1, max_size=m, unique=True)
    eligs = tuple(tuple(sorted(data.draw(slot_sets))) for _ in range(classes))
    if len(set(eligs)) < classes:
        return None
    counts = tuple(sorted(data.draw(st.integers(1, 9)) for _ in range(classes)))
    return sizes, eligs, counts


@settings(max_examples=300, deadline=None, database=None)
@given(classes=st.integers(3, 4), data=st.data())
def test_the_plans_for_three_or_more_classes_draw_as_the_general_one(
    classes: int, data: Any
) -> None:
    shape = _shape(data, classes)
    if shape is None:
        return
    general = sampling._Plan(*shape)
    fast = sampling._PlanLast2(*shape)
    assert fast.total == general.total
    assert fast.target_slots == general.target_slots
    if general.total:
        seed = data.draw(st.integers(0, 2**32 - 1))
        a, b = random.Random(seed), random.Random(seed)
        assert [general.draw(a) for _ in range(8)] == [fast.draw(b) for _ in range(8)]
        assert a.random() == b.random()  # the same numbers drawn, no more


@settings(max_examples=300, deadline=None, database=None)
@given(classes=st.integers(3, 4), data=st.data())
def test_the_last_two_classes_tables_are_the_general_ones(classes: int, data: Any) -> None:
    shape = _shape(data, classes)
    if shape is None:
        return
    general = sampling._Plan(*shape)
    fast = sampling._PlanLast2(*shape)
    for (level, state), entry in general.table.items():
        if level == classes - 2:
            assert fast._last_entry(state) == entry
            assert fast._weight(level, state) == (entry[0][-1] if entry[0] else 0)


def test_a_deal_of_three_constrained_classes_is_the_general_plans_deal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Three voids shown (spades by slot 0, hearts by slot 1, clubs by slot 2): three
    # constrained classes; the deal from the fast plan is the general plan's deal.
    spades, clubs, _, hearts = (0x1FFF << (13 * s) for s in range(4))
    pool = (spades | clubs | hearts) & ~0b111 & ~(0b111 << 13)
    slots = [(10, spades), (9, hearts), (11, clubs), (3, 0)]
    assert sum(n for n, _ in slots) == pool.bit_count()
    fast = [sampling.deal_constrained(pool, slots, random.Random(s)) for s in range(30)]
    prep = sampling._prepared[(pool, tuple(slots))]
    assert isinstance(prep.plan, sampling._PlanLast2)
    general = sampling._Plan(*_plan_key(prep.plan))
    assert general.total == prep.plan.total
    monkeypatch.setattr(sampling, "_prepared", {})
    monkeypatch.setattr(sampling, "_plans", {})
    monkeypatch.setattr(sampling, "_PlanLast2", sampling._Plan)
    slow = [sampling.deal_constrained(pool, slots, random.Random(s)) for s in range(30)]
    assert isinstance(sampling._prepared[(pool, tuple(slots))].plan, sampling._Plan)
    assert slow == fast


def _plan_key(plan: sampling._Plan) -> Shape:
    for key, kept in sampling._plans.items():
        if kept is plan:
            return key
    raise AssertionError("the plan is not kept")


@settings(max_examples=300, deadline=None, database=None)
@given(m=st.integers(1, 6), classes=st.integers(3, 5), data=st.data())
def test_a_plans_frame_is_the_general_structure(m: int, classes: int, data: Any) -> None:
    slot_sets = st.lists(st.integers(0, m - 1), min_size=1, max_size=m, unique=True)
    eligs = tuple(tuple(sorted(data.draw(slot_sets))) for _ in range(classes))
    sampling._frames.clear()
    groups, targets, links, target_slots, below, where = sampling._frame(m, eligs)
    assert (groups, targets, links) == sampling._structure(m, eligs)
    assert target_slots == tuple(tuple(groups[k][g] for g in targets[k]) for k in range(classes))
    assert below == tuple(tuple(links[k][g][1] for g in targets[k]) for k in range(classes - 1))
    # The level before the last: its groups both, only the first, only the last may use.
    kinds = {(0 if nxt >= 0 else 1) if t >= 0 else 2: g for g, (t, nxt) in enumerate(links[-1])}
    assert where == tuple(kinds.get(kind, -1) for kind in range(3))
    assert sampling._frames[(m, eligs)] is not None
