"""A resampled state's snapshot shares its original snapshot's lists (a snapshot is never
changed), and every copy handed out of either is still independent."""

from __future__ import annotations

import random

import pytest

from quintet.quinto import QuintoRules, QuintoState
from quintet.quintus import QuintusRules, QuintusState


def _played(game: str, seed: int) -> QuintoState | QuintusState:
    rng = random.Random(seed)
    s: QuintoState | QuintusState
    if game == "quinto":
        s = QuintoState.deal(QuintoRules(), 0, rng)
    else:
        s = QuintusState.deal(QuintusRules(), 0, rng)
    for _ in range(17):
        s.apply_action(rng.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("game", ["quinto", "quintus"])
def test_a_resampled_snapshot_shares_the_original_snapshots_lists_but_its_hands(
    game: str,
) -> None:
    s = _played(game, 4)
    r = s.resample_from_infostate(s.current_player(), random.Random(1))
    old, new = s.ctx.snapshot, r.ctx.snapshot
    assert old is not None and new is not None
    assert new is not old and new.hands is not old.hands
    assert new._hist is old._hist and new.trick is old.trick


@pytest.mark.parametrize("game", ["quinto", "quintus"])
def test_snapshot_copies_of_a_resampled_state_are_independent(game: str) -> None:
    s = _played(game, 5)
    r = s.resample_from_infostate(s.current_player(), random.Random(2))
    before_s = (s.snapshot().hands, s.events(), s.initial_hands())
    before_r = (r.snapshot().hands, r.events(), r.initial_hands())
    # Playing a copy of either snapshot on changes neither state's snapshot.
    for start in (s.snapshot(), r.snapshot()):
        for seat, a in r.history()[:9]:
            start.apply_action(a, seat)
    assert (s.snapshot().hands, s.events(), s.initial_hands()) == before_s
    assert (r.snapshot().hands, r.events(), r.initial_hands()) == before_r
    # Replaying the history from each snapshot reaches each state's own hands.
    for state in (s, r):
        replay = state.snapshot()
        for seat, a in state.history():
            replay.apply_action(a, seat)
        assert replay.hands == state.hands
