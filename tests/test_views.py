"""The fast views are the plain ones: observations, constraints and resampled states.

``observation(seat)`` is built field by field and reads the history incrementally (see
the engines); here each is checked against a straightforward construction written in
this file (the dataclass's own ``__init__``, the history decoded afresh, the constraints
and signals read from the snapshot on), on random play of every variant, from dealt hands
and from positions. Resampled states keep what the seat's player knows and only that.
"""

from __future__ import annotations

import random
from dataclasses import fields
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quintet import sampling
from quintet.actions import SIGNAL_NAMES, SIGNAL_UP, is_play, is_signal
from quintet.cards import JOKER, JOKER_BIT, QUINTUS_PACK, SUIT_MASK, SUIT_OF
from quintet.game import PHASE_LABELS
from quintet.quinto import QuintoRules, QuintoState
from quintet.quinto.state import QuintoObservation
from quintet.quintus import QuintusRules, QuintusState
from quintet.quintus.rules import (
    FAILED_NIL_BONUS,
    NIL_BONUS,
    NT,
    quintus_card_points,
    team_card_points,
)
from quintet.quintus.state import OVER, QuintusObservation, teams_of

VARIANTS = ["partnership", "dummy", "hoyle", "base", "bidding"]


def deal(variant: str, rng: random.Random) -> Any:
    if variant in ("base", "bidding"):
        return QuintusState.deal(QuintusRules(variant=variant), rng.randrange(5), rng)
    if variant == "partnership":
        return QuintoState.deal(QuintoRules(), rng.randrange(4), rng)
    lone = rng.randrange(4)
    rules = (
        QuintoRules(variant="dummy")
        if variant == "dummy"
        else QuintoRules(variant="dummy", dummy_double_view="leading", joker_eleventh_trick=True)
    )
    dealer = rng.choice([d for d in range(4) if d != (lone + 2) & 3])
    return QuintoState.deal(rules, dealer, rng, lone_seat=lone)


def as_position(s: Any) -> Any:
    """Return a position with the state's cards, trick and table (an empty history)."""
    if s.game == "quinto":
        return QuintoState.from_position(
            s.hands,
            s.leader,
            s.rules,
            trick=s.trick,
            cachette=s.cachette,
            multiplier=s.multiplier,
            score=(s.score[0], s.score[1]),
            tricks_won=(s.tricks_won[0], s.tricks_won[1]),
            lone_seat=s.lone_seat,
        )
    return QuintusState.from_position(
        s.hands,
        s.quintus,
        s.leader,
        s.trump_name() or "NT",
        s.rules,
        nil=s.nil_name() or "none",
        trick=s.trick,
        taken=s.taken,
        contract=s.contract,
        premiums=s.premiums,
    )


def step(s: Any, rng: random.Random) -> None:
    """Apply one random legal action, sometimes a signal given out of turn."""
    seat = rng.choice(s.actors())
    s.apply_action(rng.choice(s.legal_actions(seat)), seat)


# ----------------------------------------------------------------- references


def ref_history(s: Any) -> tuple[tuple[int, int], ...]:
    return tuple((seat, a) for seat, a in s._hist)


def ref_quinto_constraints(s: QuintoState) -> list[int]:
    forbidden = [0, 0, 0, 0]
    snap = s.snapshot()
    trick = list(snap.trick)
    led = snap._led
    tricks_played = snap.tricks_played
    for seat, a in ref_history(s):
        if not is_play(a):
            continue
        if not trick:
            led = SUIT_OF[a]
        else:
            if a != JOKER and led >= 0 and SUIT_OF[a] != led:
                forbidden[seat] |= SUIT_MASK[led]
            if tricks_played == 10 and s.rules.joker_eleventh_trick and a != JOKER:
                best = max((c for c in trick if c != JOKER), default=-1)
                if a > best:
                    forbidden[seat] |= JOKER_BIT
        trick.append(a)
        if len(trick) == 4:
            trick = []
            tricks_played += 1
    return forbidden


def ref_quintus_constraints(s: QuintusState) -> list[int]:
    forbidden = [0] * 5
    snap = s.snapshot()
    n = len(snap.trick)
    led = snap._led
    first = snap.tricks_played == 0 and n == 0
    for seat, a in ref_history(s):
        if not is_play(a):
            continue
        if n == 0:
            led = SUIT_OF[a]
            if first and seat == s.quintus and s.trump < NT and led == s.trump:
                forbidden[seat] |= QUINTUS_PACK & ~SUIT_MASK[s.trump]
            first = False
        elif SUIT_OF[a] != led:
            forbidden[seat] |= SUIT_MASK[led]
        n = (n + 1) % 5
    return forbidden


def ref_constraints(s: Any) -> list[int]:
    return ref_quinto_constraints(s) if s.game == "quinto" else ref_quintus_constraints(s)


def ref_played(s: Any) -> list[int]:
    played = [0] * s.num_seats
    for seat, a in ref_history(s):
        if is_play(a):
            played[seat] |= 1 << a
    return played


def ref_signals(s: QuintusState) -> tuple[tuple[int, str], ...]:
    out: list[tuple[int, str]] = []
    plays = len(s.snapshot().trick)
    for seat, a in ref_history(s):
        if is_play(a):
            plays += 1
            if plays % 5 == 0:
                out = []
        elif is_signal(a):
            out.append((seat, SIGNAL_NAMES[a - SIGNAL_UP]))
    return tuple(out)


def ref_points(s: QuintusState) -> tuple[int, int, int]:
    if s.quintus < 0:
        return (0, 0, 0)
    q = s.quintus
    (a1, a2), (b1, b2) = teams_of(q)
    bidding = s.rules.variant == "bidding"
    taken, prem = s.taken, s.premiums
    qp = quintus_card_points(taken[q]) + prem[q]
    ta = team_card_points(taken[a1] | taken[a2]) + prem[a1] + prem[a2]
    tb = team_card_points(taken[b1] | taken[b2]) + prem[b1] + prem[b2]
    if s.nil > 0:
        kind = s.nil - 1
        if s.nil_failed:
            if bidding:
                qp = 0
            else:
                ta += FAILED_NIL_BONUS[kind]
                tb += FAILED_NIL_BONUS[kind]
        elif s.phase == OVER:
            qp += NIL_BONUS["bidding" if bidding else "base"][kind]
    return qp, ta, tb


def ref_observation(s: Any, seat: int) -> Any:
    """The observation as the dataclass builds it, every field worked out afresh."""
    if s.game == "quinto":
        v = s.controller(seat)
        vis = s.visible_seats(v)
        turn = s.current_player()
        legal: tuple[tuple[int, int], ...] = ()
        if turn >= 0 and s.controller(turn) == v:
            legal = tuple((turn, a) for a in s.legal_actions())
        return QuintoObservation(
            game="quinto",
            variant=s.rules.variant,
            viewer=v,
            hands=tuple(s.hands[x] if x in vis else None for x in range(4)),
            hand_sizes=tuple(m.bit_count() for m in s.hands),
            history=ref_history(s),
            current_player=turn,
            legal_actions=legal,
            dealer=s.dealer,
            lone_seat=s.lone_seat,
            phase=PHASE_LABELS[s.phase],
            multiplier=s.multiplier,
            doubled_by=s.doubled_by,
            trick=tuple(((s.leader + i) & 3, c) for i, c in enumerate(s.trick)),
            tricks_played=s.tricks_played,
            tricks_won=tuple(s.tricks_won),
            score=tuple(s.score),
            start_score=s.start_score,
            target=s.rules.target,
            cachette=s.cachette if s.cachette_side is not None else None,
            game_winner=s.game_winner,
            cachette_side=s.cachette_side,
        )
    vis = s.visible_seats(seat)
    legal_q: tuple[tuple[int, int], ...] = ()
    if s.phase != OVER:
        legal_q = tuple((seat, a) for a in s.legal_actions(seat))
    return QuintusObservation(
        game="quintus",
        variant=s.rules.variant,
        viewer=seat,
        hands=tuple(s.hands[x] if x in vis else None for x in range(5)),
        hand_sizes=tuple(m.bit_count() for m in s.hands),
        history=ref_history(s),
        current_player=s.current_player(),
        legal_actions=legal_q,
        dealer=s.dealer,
        phase=PHASE_LABELS[s.phase],
        quintus=s.quintus if s.quintus >= 0 else None,
        contract=s.contract,
        high_bid=s.high_bid,
        passed=tuple(x for x in range(5) if s._passed >> x & 1),
        trump=s.trump_name(),
        nil=s.nil_name(),
        trick=tuple(((s.leader + i) % 5, c) for i, c in enumerate(s.trick)),
        tricks_played=s.tricks_played,
        signals=ref_signals(s),
        meld=s.pending_meld,
        points=ref_points(s),
        taken=tuple(s.taken),
        void=s.void,
        high_bidder=s.high_bidder,
    )


# --------------------------------------------------------------------- checks


def check_views(s: Any) -> None:
    for seat in range(s.num_seats):
        fast, ref = s.observation(seat), ref_observation(s, seat)
        assert type(fast) is type(ref)
        assert fast == ref and hash(fast) == hash(ref)
        for f in fields(ref):  # every field is the same value
            assert getattr(fast, f.name) == getattr(ref, f.name), f.name
        assert list(vars(fast)) == [f.name for f in fields(fast)]
        # The text drawn from the fields is the state's own drawing for that seat.
        assert fast.text == ref.text == s.render(viewer=fast.viewer) and str(fast) == str(ref)
        assert repr(fast) == repr(ref)
    assert s.history() == list(ref_history(s))
    assert s.constraints() == ref_constraints(s)
    assert s.played_by_seat() == ref_played(s)
    if s.game == "quintus":
        assert s.trick_signals() == ref_signals(s)
        assert s.points() == ref_points(s)


def hidden_seats(s: Any, seat: int) -> list[int]:
    vis = s.visible_seats(seat)
    return [x for x in range(s.num_seats) if x not in vis]


def check_resample(s: Any, seat: int, rng: random.Random) -> None:
    obs = s.observation(seat)
    forbidden = ref_constraints(s)
    hidden = hidden_seats(s, seat)
    extra = s._hidden_extra()
    for rebase in (True, False):
        r = s.resample(seat, rng, None if rebase else s.constraints(), rebase=rebase)
        assert r.observation(seat) == obs and r.observation(seat).text == obs.text
        assert r.history() == s.history()
        pool = 0
        for x in range(s.num_seats):
            if x in hidden:
                assert r.hands[x].bit_count() == s.hands[x].bit_count()
                assert not r.hands[x] & forbidden[x], (x, forbidden[x], r.hands[x])
                pool ^= s.hands[x] ^ r.hands[x]
            else:
                assert r.hands[x] == s.hands[x]
        if extra is not None:
            assert r.cachette.bit_count() == extra.bit_count()
            pool ^= extra ^ r.cachette
        elif s.game == "quinto":
            assert r.cachette == s.cachette  # shown to all
        assert pool == 0  # the same unseen cards, dealt again
        if rebase:
            # The new snapshot is the new deal: replaying the history reaches the new hands.
            replay = r.snapshot()
            for who, a in r.history():
                replay.apply_action(a, who)
            assert replay.hands == r.hands
            assert r.initial_hands() == [m | p for m, p in zip(r.hands, ref_played(s), strict=True)]
            assert r.ctx is not s.ctx and r.snapshot().ctx is r.ctx
        else:
            assert r.ctx is s.ctx
            # The copy's own deal: replaying the history from its start reaches it.
            start = r.start_of_hand()
            for who, a in r.history():
                start.apply_action(a, who)
            assert start.hands == r.hands and start.played_by_seat() == ref_played(s)
        # What the history shows stays with the copy, whatever its snapshot.
        assert r.played_by_seat() == ref_played(s)
        assert r.constraints() == forbidden
        # Play goes on legally from the resampled state.
        if not r.is_terminal():
            step(r, rng)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(
    variant=st.sampled_from(VARIANTS),
    seed=st.integers(0, 2**32 - 1),
    position_at=st.integers(-1, 40),
)
def test_fast_views_equal_plain_ones_and_resamples_are_consistent(
    variant: str, seed: int, position_at: int
) -> None:
    rng = random.Random(seed)
    s = deal(variant, rng)
    steps = 0
    while not s.is_terminal():
        if steps == position_at and s.phase == 3 and s.trick:
            s = as_position(s)  # from here on the history starts at a position in a trick
        check_views(s)
        if rng.random() < 0.2:
            check_resample(s, rng.randrange(s.num_seats), rng)
        step(s, rng)
        steps += 1
    check_views(s)
    check_resample(s, rng.randrange(s.num_seats), rng)


@settings(max_examples=40, deadline=None, database=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1))
def test_kept_readings_follow_copies_that_part_ways(variant: str, seed: int) -> None:
    # A copy inherits what its original read of the history; both then play on apart.
    rng = random.Random(seed)
    s = deal(variant, rng)
    for _ in range(rng.randrange(60)):
        if s.is_terminal():
            break
        step(s, rng)
    s.observation(0)
    s.constraints()
    twin = s.clone()
    for _ in range(rng.randrange(1, 12)):
        for state in (s, twin):
            if not state.is_terminal():
                step(state, rng)
    for state in (twin, s):
        check_views(state)


@settings(max_examples=200, deadline=None, database=None)
@given(
    sizes=st.lists(st.integers(0, 8), min_size=2, max_size=5),
    data=st.data(),
)
def test_the_closed_form_plans_draw_as_the_general_one(sizes: list[int], data: Any) -> None:
    m = len(sizes)
    k = data.draw(st.integers(1, 2))
    slot_sets = st.lists(st.integers(0, m - 1), min_size=1, max_size=m, unique=True)
    eligs = tuple(tuple(sorted(data.draw(slot_sets))) for _ in range(k))
    if len(set(eligs)) < k:
        return
    counts = tuple(sorted(data.draw(st.integers(1, 8)) for _ in range(k)))
    general = sampling._Plan(tuple(sizes), eligs, counts)
    fast: Any = (
        sampling._Plan1(tuple(sizes), eligs[0], counts[0])
        if k == 1
        else sampling._Plan2(tuple(sizes), eligs, counts)
    )
    assert fast.total == general.total
    assert fast.target_slots == general.target_slots
    if general.total:
        seed = data.draw(st.integers(0, 2**32 - 1))
        a, b = random.Random(seed), random.Random(seed)
        assert [general.draw(a) for _ in range(5)] == [fast.draw(b) for _ in range(5)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_an_observation_keeps_its_text_after_the_state_moves_on(variant: str) -> None:
    rng = random.Random(3)
    s = deal(variant, rng)
    for _ in range(15):
        step(s, rng)
    obs = s.observation(1)
    text = s.render(s.controller(1) if s.game == "quinto" else 1)
    for _ in range(10):
        step(s, rng)
    assert obs.text == text
