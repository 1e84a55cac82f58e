"""The ``ismcts`` bot: legal in every phase of both games, deterministic, stronger than random.

Every search here runs on an iteration budget (no time limit), so each test is
reproducible from its seeds; the time budget is tested on a fake CPU clock.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from quintet.actions import (
    DECLINE,
    DOUBLE,
    MELD_COURT,
    NIL_NONE,
    PASS,
    REDOUBLE,
    SIGNAL_ASK,
    SIGNAL_DOWN,
    SIGNAL_UP,
    TRUMP_BASE,
    TRUMP_NT,
    Action,
    bid,
    is_bid,
    is_play,
    is_signal,
)
from quintet.bots import Bot, BotView, Budget, HeuristicBot, RandomBot, make_bot, play_out
from quintet.bots.ismcts import (
    DEFAULT_ITERATIONS,
    DEFAULT_SECONDS,
    IsmctsBot,
    random_rollout,
    tree_moves,
)
from quintet.cards import parse_card, parse_mask
from quintet.quinto import QuintoRules, QuintoState
from quintet.quintus import QuintusRules, QuintusState

ITERATIONS = 200


def view_of(state: Any, seed: int = 0, seat: int | None = None) -> BotView:
    """Return the view of the seat to act (or ``seat``) with a seeded RNG."""
    who = state.current_player() if seat is None else seat
    return BotView.of(state, who, random.Random(seed))


def check_act(bot: IsmctsBot, state: Any, seed: int = 0) -> Action:
    """Return the bot's action for the seat to act, checking it is legal and no signal."""
    view = view_of(state, seed)
    action = bot.act(view)
    assert action in view.legal
    assert not is_signal(action)
    return action


def advance(state: Any, n: int, rng: random.Random) -> None:
    """Play ``n`` random main-line actions."""
    for _ in range(n):
        state.apply_action(rng.choice([a for a in state.legal_actions() if not is_signal(a)]))


# ----------------------------------------------------------------------- basics


def test_registered_level() -> None:
    bot = make_bot("ismcts")
    assert isinstance(bot, IsmctsBot)
    assert isinstance(bot, Bot)
    assert bot.name == "ismcts"


def test_tree_moves() -> None:
    cards = (3, 17, 30)
    assert tree_moves(cards) == cards
    assert tree_moves((*cards, SIGNAL_UP, SIGNAL_DOWN, SIGNAL_ASK)) == cards
    assert list(tree_moves((MELD_COURT, DECLINE))) == [MELD_COURT]
    auction = (PASS, *(bid(x) for x in range(40, 122, 2)))
    assert list(tree_moves(auction)) == [PASS, bid(40), bid(42), bid(44)]
    assert list(tree_moves((PASS, bid(118), bid(120)))) == [PASS, bid(118), bid(120)]
    assert tree_moves((PASS, DOUBLE)) == (PASS, DOUBLE)


def test_budget() -> None:
    state = QuintoState.deal(QuintoRules(), 0, random.Random(1))
    advance(state, 4, random.Random(1))
    bot = IsmctsBot()
    assert bot._limits(view_of(state)) == (DEFAULT_ITERATIONS, DEFAULT_SECONDS)
    view = BotView.of(state, state.current_player(), random.Random(0), Budget(iterations=37))
    bot.act(view)
    assert bot.last_iterations == 37
    # The constructor's budget replaces the view's.
    view = BotView.of(state, state.current_player(), random.Random(0), Budget(iterations=37))
    small = IsmctsBot(iterations=11)
    small.act(view)
    assert small.last_iterations == 11
    assert sum(v for v, _ in small.last_stats.values()) == 11
    with pytest.raises(ValueError):
        IsmctsBot(rollout="nonsense")


def test_the_time_budget_is_cpu_time_of_the_deciding_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A fake thread CPU clock, moved one second by each iteration's determinization.
    clock = [0.0]
    monkeypatch.setattr(time, "thread_time", lambda: clock[0])
    state = QuintoState.deal(QuintoRules(), 0, random.Random(1))
    advance(state, 4, random.Random(1))
    view = view_of(state)
    real_sample = view.sample

    def costly_sample(rng: random.Random | None = None) -> Any:
        clock[0] += 1.0
        return real_sample(rng)

    monkeypatch.setattr(view, "sample", costly_sample)
    bot = IsmctsBot(seconds=5.0)
    bot.act(view)
    # Deadline 0 + 5; iterations start while the clock reads 0, 1, 2, 3, 4: five in all.
    assert bot.last_iterations == 5
    assert Budget(seconds=2.0).deadline() == clock[0] + 2.0


# ----------------------------------------------------------------------- Quinto


def test_quinto_doubling_round() -> None:
    bot = IsmctsBot(iterations=ITERATIONS)
    state = QuintoState.deal(QuintoRules(), 0, random.Random(3))
    assert check_act(bot, state) in (PASS, DOUBLE)
    state.apply_action(DOUBLE)
    view = view_of(state, 1)
    assert REDOUBLE in view.legal
    assert check_act(bot, state, 1) in (PASS, REDOUBLE)
    state.apply_action(PASS)
    assert view_of(state).legal == (PASS,)
    assert check_act(bot, state) == PASS  # the only legal action, no search


def test_quinto_play() -> None:
    bot = IsmctsBot(iterations=ITERATIONS)
    rng = random.Random(4)
    state = QuintoState.deal(QuintoRules(), 1, rng)
    advance(state, 4, rng)
    for _ in range(6):  # leads and follows in the first tricks
        state.apply_action(check_act(bot, state))
    advance(state, 30, rng)
    for _ in range(4):
        state.apply_action(check_act(bot, state))


def test_quinto_dummy_lone_player_acts_for_dummy() -> None:
    rules = QuintoRules(variant="dummy")
    bot = IsmctsBot(iterations=ITERATIONS)
    rng = random.Random(5)
    # Lone seat 0, dummy seat 2; dealer 1 (L+1): the dummy leads the first trick.
    state = QuintoState.deal(rules, 1, rng, lone_seat=0)
    for _ in range(3):  # doubling: seats 3, 0, 1 (the dummy takes no turn)
        assert state.current_player() != 2
        state.apply_action(check_act(bot, state))
    assert state.current_player() == 2
    view = view_of(state)
    assert view.seat == 2 and view.obs.viewer == 0
    assert view.obs.hands[2] is not None and view.obs.hands[0] is not None
    assert bot.act(view) in view.legal
    # A whole hand: the lone player's bot plays both his hand and the dummy's.
    state = QuintoState.deal(rules, 3, random.Random(6), lone_seat=0)
    bots: list[Bot | None] = [IsmctsBot(iterations=40), RandomBot(), None, RandomBot()]
    play_out(state, bots, random.Random(6))
    assert state.is_terminal()


def test_quinto_deterministic_and_blind_to_hidden_cards() -> None:
    rng = random.Random(7)
    state = QuintoState.deal(QuintoRules(), 2, rng)
    advance(state, 4 + 9, rng)
    seat = state.current_player()
    bot = IsmctsBot(iterations=ITERATIONS)
    first = bot.act(view_of(state, 42))
    stats = dict(bot.last_stats)
    assert bot.act(view_of(state, 42)) == first
    assert bot.last_stats == stats
    # The same observation with the unseen cards dealt differently: the same search.
    other = state.resample_from_infostate(seat, random.Random(99))
    assert other.hands != state.hands
    assert other.observation(seat) == state.observation(seat)
    assert bot.act(view_of(other, 42)) == first
    assert bot.last_stats == stats


def test_quinto_full_hands() -> None:
    for variant, lone in (("partnership", None), ("dummy", 1)):
        state = QuintoState.deal(QuintoRules(variant=variant), 1, random.Random(8), lone_seat=lone)
        bots: list[Bot | None] = [IsmctsBot(iterations=30) for _ in range(4)]
        play_out(state, bots, random.Random(8))
        assert state.is_terminal()


def test_quinto_beats_random() -> None:
    # The same deals with the sides swapped; ISMCTS's average hand points difference.
    bot = IsmctsBot(iterations=40)
    opponent = RandomBot()
    results = []
    for deal in range(10):
        for side in (0, 1):
            state = QuintoState.deal(QuintoRules(), deal % 4, random.Random(100 + deal))
            bots: list[Bot | None] = [bot if s & 1 == side else opponent for s in range(4)]
            play_out(state, bots, random.Random(200 + deal))
            a, b = state.hand_points()
            results.append(a - b if side == 0 else b - a)
    assert sum(results) / len(results) > 20  # about +65 with these seeds
    assert sum(r > 0 for r in results) >= 13  # 17 of 20


# ---------------------------------------------------------------------- Quintus


def test_quintus_base_trump_nil_play() -> None:
    bot = IsmctsBot(iterations=ITERATIONS)
    rng = random.Random(9)
    state = QuintusState.deal(QuintusRules(), 0, rng)
    a = check_act(bot, state)
    assert TRUMP_BASE <= a <= TRUMP_NT
    state.apply_action(a)
    a = check_act(bot, state)
    assert a in (NIL_NONE, NIL_NONE + 1, NIL_NONE + 2)
    state.apply_action(a)
    for _ in range(7):  # the quintus's lead and every defender (signals are legal too)
        view = view_of(state)
        a = bot.act(view)
        assert a in view.legal and is_play(a)
        state.apply_action(a, view.seat)


def test_quintus_meld() -> None:
    # Two cards each; the first trick holds the clubs court, won by seat 2's king.
    hands = [parse_mask(h) for h in ("AH JC", "9S QC", "7D KC", "8D 5C", "6H TD")]
    state = QuintusState.from_position(hands, quintus=0, leader=1, trump="NT")
    bot = IsmctsBot(iterations=ITERATIONS)
    check_act(bot, state)  # a search whose tree holds meld decisions
    for c in ("QC", "KC", "5C"):
        state.apply_action(parse_card(c))
    state.apply_action(check_act(bot, state))  # seat 4, void in clubs
    assert check_act(bot, state) == parse_card("JC")  # the quintus's only card
    state.apply_action(parse_card("JC"))
    assert state.pending_meld == "court" and state.current_player() == 2
    assert check_act(bot, state) == MELD_COURT
    state.apply_action(MELD_COURT)
    check_act(bot, state)


def test_quintus_bidding_phases() -> None:
    bot = IsmctsBot(iterations=ITERATIONS)
    state = QuintusState.deal(QuintusRules(variant="bidding"), 0, random.Random(10))
    a = check_act(bot, state)
    assert a in (PASS, bid(30), bid(32), bid(34))  # pass or one of the three lowest bids
    state.apply_action(bid(40))
    a = check_act(bot, state, 1)
    assert a in (PASS, bid(42), bid(44), bid(46))
    for _ in range(4):
        state.apply_action(PASS)
    assert state.quintus == 1 and state.contract == 40
    a = check_act(bot, state)
    assert TRUMP_BASE <= a <= TRUMP_NT
    state.apply_action(a)
    a = check_act(bot, state)
    state.apply_action(a)
    for _ in range(6):
        view = view_of(state)
        a = bot.act(view)
        assert a in view.legal and is_play(a)
        state.apply_action(a, view.seat)


def test_quintus_signals_are_the_heuristics() -> None:
    state = QuintusState.deal(QuintusRules(), 2, random.Random(11))
    state.apply_action(TRUMP_BASE)
    state.apply_action(NIL_NONE)
    bot = IsmctsBot(iterations=ITERATIONS)
    for seat in state.actors()[1:]:
        mine = bot.signal(view_of(state, 3, seat))
        theirs = HeuristicBot().signal(view_of(state, 3, seat))
        assert mine == theirs
        assert mine is None or is_signal(mine)
    assert not bot.signal(view_of(QuintoState.deal(QuintoRules(), 0, random.Random(1))))


@pytest.mark.parametrize("variant", ["base", "bidding"])
def test_quintus_full_hands(variant: str) -> None:
    rules = QuintusRules(variant=variant)
    for dealer in (0, 3):
        state = QuintusState.deal(rules, dealer, random.Random(12 + dealer))
        bots: list[Bot | None] = [IsmctsBot(iterations=30), HeuristicBot(), RandomBot()] * 2
        play_out(state, bots[:5], random.Random(dealer))
        assert state.is_terminal()


def test_quintus_deterministic() -> None:
    state = QuintusState.deal(QuintusRules(variant="bidding"), 1, random.Random(13))
    bot = IsmctsBot(iterations=ITERATIONS)
    first = bot.act(view_of(state, 5))
    stats = dict(bot.last_stats)
    assert bot.act(view_of(state, 5)) == first and bot.last_stats == stats
    assert all(a == PASS or is_bid(a) for a in stats)


def test_random_rollout_ends_the_hand() -> None:
    state = QuintusState.deal(QuintusRules(variant="bidding"), 0, random.Random(14))
    random_rollout(state, random.Random(0))
    assert state.is_terminal()
    assert not any(is_signal(a) for _, a in state.history())
