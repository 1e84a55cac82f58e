"""pimc in the Quintus bidding variant: the card play is for the contract.

The quintus gains exactly the bid when his points reach it and loses exactly the bid
otherwise, so a deal is worth +1 or -1 to the seat deciding (made for the quintus,
defeated for the others), whatever the points beyond. The solver is asked the
threshold question (``seat_reaches``) and stubbed where a test is about what pimc does
with the answer.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from quintet.actions import (
    NIL_CLOSED,
    NIL_NONE,
    NIL_OPEN,
    PASS,
    Action,
    bid_amount,
    is_bid,
    is_signal,
)
from quintet.bots import BotView, Budget
from quintet.bots.heuristic import HeuristicBot
from quintet.bots.pimc import BID_MARGIN, CONTRACT_TIE, PimcBot
from quintet.quintus import QuintusRules, QuintusState
from quintet.quintus.state import NIL, PLAY, TRUMP
from quintet.solver import QuintusSolver


def bidding_first_lead(seed: int = 1, bid_seat: int = 1) -> QuintusState:
    """Return a bidding deal at its first card: ``bid_seat`` bids 30, the rest pass."""
    rng = random.Random(seed)
    s = QuintusState.deal(QuintusRules(variant="bidding"), 0, rng)
    while s.phase != PLAY:
        legal = [a for a in s.legal_actions() if not is_signal(a)]
        if is_bid(legal[-1]):
            a = next(a for a in legal if is_bid(a)) if s.current_player() == bid_seat else PASS
        else:
            a = rng.choice(legal)
        s.apply_action(a)
    return s


def base_first_lead(seed: int = 1) -> QuintusState:
    rng = random.Random(seed)
    s = QuintusState.deal(QuintusRules(variant="base"), 0, rng)
    while s.phase != PLAY:
        s.apply_action(rng.choice([a for a in s.legal_actions() if not is_signal(a)]))
    return s


def after(state: QuintusState, plays: int, seed: int = 2) -> QuintusState:
    """Return ``state`` after ``plays`` random cards, and more until the seat to play has
    a choice of cards."""
    rng = random.Random(seed)
    for _ in range(plays):
        state.apply_action(rng.choice(cards_of(state)))
    while len(cards_of(state)) < 2:
        state.apply_action(cards_of(state)[0])
    return state


def cards_of(state: QuintusState) -> list[Action]:
    return [a for a in state.legal_actions(state.current_player()) if not is_signal(a)]


def view_of(state: QuintusState, samples: int = 3, seed: int = 3) -> BotView:
    return BotView.of(
        state, state.current_player(), random.Random(seed), Budget(iterations=samples)
    )


def stub_reaches(monkeypatch: pytest.MonkeyPatch, favourite: Action | None) -> list[int]:
    """Make ``move_reaches`` say only ``favourite`` makes the contract (every card when
    None), and ``move_values`` fail; return the targets asked."""
    targets: list[int] = []

    def move_reaches(self: Any, state: Any, target: int) -> dict[Action, bool]:
        targets.append(target)
        return {c: favourite is None or c == favourite for c in cards_of(state)}

    def move_values(self: Any, state: Any) -> dict[Action, int]:
        raise AssertionError("a contract's card play asks for points")

    monkeypatch.setattr(QuintusSolver, "move_reaches", move_reaches)
    monkeypatch.setattr(QuintusSolver, "move_values", move_values)
    return targets


def spy_on(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """Record the seat of every call of the static method ``PimcBot.<name>`` (which
    still runs); return the list the seats go to."""
    seats: list[int] = []
    real = getattr(PimcBot, name)

    def spy(world: Any, seat: int, *rest: Any) -> dict[Action, float]:
        seats.append(seat)
        result: dict[Action, float] = real(world, seat, *rest)
        return result

    monkeypatch.setattr(PimcBot, name, staticmethod(spy))
    return seats


def test_a_contract_card_play_asks_the_solver_for_the_contract_less_the_points_so_far(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = after(bidding_first_lead(), 7)
    targets = stub_reaches(monkeypatch, None)
    PimcBot(max_nodes=10**9).act(view_of(state))
    assert state.contract is not None
    assert targets == [state.contract - state.points()[0]] * 3


@pytest.mark.parametrize("split", [0, 1])
@pytest.mark.parametrize("plays", [0, 1, 6, 7])
def test_each_seat_plays_the_card_that_gets_its_side_of_the_contract(
    monkeypatch: pytest.MonkeyPatch, plays: int, split: int
) -> None:
    """The quintus plays the card that makes the contract; the others, with the same
    answer from the solver, any card but that one (by the contract alone, or by their
    settlement, in which the contract made costs them the bid)."""
    state = after(bidding_first_lead(), plays)
    cards = cards_of(state)
    favourite = cards[len(cards) // 2]
    stub_reaches(monkeypatch, favourite)
    action = PimcBot(max_nodes=10**9, split=split).act(view_of(state))
    if state.current_player() == state.quintus:
        assert action == favourite
    else:
        assert action != favourite and action in cards


def test_cards_that_win_the_contract_equally_often_go_to_the_heuristic(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = after(bidding_first_lead(), 1)
    stub_reaches(monkeypatch, None)  # every card: made in every deal
    view = view_of(state)
    want = HeuristicBot().act(view_of(state))
    assert not is_signal(want)
    # By the contract alone (``split`` 0): with it a team player's cards also differ by
    # the settlement's split of the bid, so they rarely tie.
    assert PimcBot(max_nodes=10**9, split=0).act(view) == want


def test_the_base_game_card_play_still_asks_for_points(monkeypatch: pytest.MonkeyPatch) -> None:
    state = after(base_first_lead(), 3)

    def move_reaches(self: Any, state: Any, target: int) -> dict[Action, bool]:
        raise AssertionError("no contract in the base game")

    monkeypatch.setattr(QuintusSolver, "move_reaches", move_reaches)
    bot = PimcBot(max_nodes=10**9)
    assert bot.act(view_of(state)) in cards_of(state)
    assert bot.last_exact == 3


def test_a_played_out_deal_under_a_contract_is_worth_one_either_way_plus_a_tie_break() -> None:
    state = after(bidding_first_lead(), 5)
    seat = state.current_player()
    world = view_of(state).sample()
    cards = tuple(cards_of(state))
    contract = state.contract
    assert contract is not None
    values = PimcBot._playout_values(world, seat, cards, random.Random(1), contract)
    assert set(values) == set(cards)
    for v in values.values():
        assert abs(abs(v) - 1) <= CONTRACT_TIE * 200


def test_the_solved_contract_values_agree_with_the_points_thresholded() -> None:
    """The values pimc takes from the solver under a contract are the points' values
    compared with what the quintus still needs (two tricks left: quickly solved)."""
    state = after(bidding_first_lead(seed=4), 30)
    solver = QuintusSolver(tt_bits=14)
    target = QuintusSolver.target(state)
    assert target is not None
    points = solver.move_values(state)
    for seat in range(5):
        values = PimcBot._contract_values(solver, state, seat, tuple(points))
        for c, v in values.items():
            made = points[c] >= target
            assert v == (1.0 if made == (seat == state.quintus) else -1.0)


def test_the_reason_of_a_contract_card_says_how_often_it_wins_the_contract(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = after(bidding_first_lead(), 0)
    stub_reaches(monkeypatch, None)
    bot = PimcBot(max_nodes=10**9)
    bot.act(view_of(state))
    assert bot.last_reason is not None
    assert "makes the contract in about 100% of 3 deals" in bot.last_reason


def test_a_team_player_with_split_values_a_card_by_the_settlement() -> None:
    """With ``split`` a team player's card is worth the game points the settlement
    gives him: the contract made or failed as the solver says, the bid's split by the
    teams' card points of the playout."""
    from quintet.bots.pimc import playout
    from quintet.quintus import teams_of
    from quintet.quintus.rules import settle

    state = after(bidding_first_lead(), 6)
    seat = state.current_player()
    assert seat != state.quintus and state.contract is not None
    world = view_of(state).sample()
    for c in cards_of(state):
        w = world.clone()
        w.apply_action(c, seat)
        playout(w, random.Random(1))
        _, a, b = w.points()
        for made in (True, False):
            values = PimcBot._settled_values(world, seat, (c,), random.Random(1), {c: made})
            teams = teams_of(state.quintus)
            assert values[c] == settle(state.contract, made, (a, b), teams, state.quintus)[seat]


@pytest.mark.parametrize("level", ["pimc:split=1", "pimc"])
def test_split_asks_the_solver_and_settles_for_team_players_only(
    monkeypatch: pytest.MonkeyPatch, level: str
) -> None:
    """``split`` is on by default (docs/bots.md: +0.64 [+0.06, +1.21] a deal against
    pimc without it, Quintus bidding at 0.1 CPU s, 200 deals)."""
    from quintet.bots import make_bot

    settled = spy_on(monkeypatch, "_settled_values")
    targets = stub_reaches(monkeypatch, None)
    for plays in (0, 6):
        state = after(bidding_first_lead(), plays)
        bot = make_bot(f"{level}:max_nodes=1000000000")
        bot.act(view_of(state))
    assert len(targets) == 6
    assert settled == [after(bidding_first_lead(), 6).current_player()] * 3


def test_without_split_a_team_player_values_a_card_by_the_contract_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settled = spy_on(monkeypatch, "_settled_values")
    targets = stub_reaches(monkeypatch, None)
    bot = PimcBot(max_nodes=10**9, split=0)
    bot.act(view_of(after(bidding_first_lead(), 6)))
    assert len(targets) == 3 and settled == []
    assert bot.last_reason is not None and "defeats the contract" in bot.last_reason


def test_split_must_be_0_or_1() -> None:
    from quintet.bots import make_bot
    from quintet.errors import InvalidOptionError

    with pytest.raises(ValueError, match=r"split must be 0 \(off\) or 1 \(on\), not 2"):
        PimcBot(split=2)
    with pytest.raises(InvalidOptionError, match=r"bot 'pimc': split must be 0 .* not 'yes'"):
        make_bot("pimc:split=yes")


def base_after_no_nil(plays: int, seed: int = 1) -> QuintusState:
    """Return a base-game deal whose quintus declared no nil, after ``plays`` cards (and
    more until the seat to play has a choice, and, after any card, is a team player's)."""
    rng = random.Random(seed)
    s = QuintusState.deal(QuintusRules(variant="base"), 0, rng)
    while s.phase != PLAY:
        legal = [a for a in s.legal_actions() if not is_signal(a)]
        s.apply_action(NIL_NONE if s.phase == NIL else rng.choice(legal))
    s = after(s, plays)
    while plays and s.current_player() == s.quintus:
        s = after(s, 1)
    return s


def test_a_base_game_team_player_values_a_card_by_his_teams_points() -> None:
    """Rule (Base scoring): both members of a team score their team's card points, not
    the other team's. A pimc team player (``team``, on by default) values a card by his
    own team's points in the playout after it, the quintus's part corrected by the solver (a
    quarter of what the playout gave the quintus beyond the solver's value)."""
    from quintet.bots.pimc import playout
    from quintet.quintus import teams_of

    state = base_after_no_nil(6)
    seat = state.current_player()
    assert seat != state.quintus and state.nil == 0
    mine = 0 if seat in teams_of(state.quintus)[0] else 1
    world = view_of(state).sample()
    solver = QuintusSolver()
    exact = PimcBot._exact_values(solver, world, seat, tuple(cards_of(state)))
    for c in cards_of(state):
        w = world.clone()
        w.apply_action(c, seat)
        playout(w, random.Random(1))
        q, a, b = w.points()
        own = (a, b)[mine]
        played = PimcBot._team_values(world, seat, (c,), random.Random(1), None)
        assert played[c] == own
        solved = PimcBot._team_values(world, seat, (c,), random.Random(1), exact)
        assert solved[c] == own + (q + exact[c]) / 4


def test_a_base_game_team_player_counts_his_team_and_says_so() -> None:
    """Each card's value is the player's own team's points (the other team's are not
    his), and the reason of the card played says it is for his team."""
    from quintet.bots.pimc import playout
    from quintet.quintus import teams_of

    state = base_after_no_nil(6)
    seat = state.current_player()
    world = view_of(state).sample()
    values = PimcBot._team_values(world, seat, tuple(cards_of(state)), random.Random(1), None)
    # Each value is this seat's team's points: never the other team's.
    mine = 0 if seat in teams_of(state.quintus)[0] else 1
    for c, v in values.items():
        w = world.clone()
        w.apply_action(c, seat)
        playout(w, random.Random(1))
        assert v == w.points()[1 + mine]
    bot = PimcBot(max_nodes=10**9)
    action = bot.act(view_of(state))
    assert action in cards_of(state)
    assert bot.last_reason is not None and "your team" in bot.last_reason


def test_team_play_in_the_base_game_is_for_team_players_and_broken_or_no_nils(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The quintus keeps his own points; under a nil not yet broken the teams' bonus,
    shared by both teams, is what counts, so the solver's values stand as they are."""
    real = PimcBot._team_values
    asked = spy_on(monkeypatch, "_team_values")
    for plays in (0, 6):  # the quintus leads the first trick; then a team player
        state = base_after_no_nil(plays)
        PimcBot(max_nodes=200_000).act(view_of(state))
    team_seat = base_after_no_nil(6).current_player()
    assert asked == [team_seat] * 3
    # With team=0, a team player values by the quintus's points alone.
    asked.clear()
    PimcBot(max_nodes=200_000, team=0).act(view_of(base_after_no_nil(6)))
    assert asked == []
    # An unbroken nil: the solver's values as they are (no playout after each card).
    state = base_after_no_nil(6)
    world = view_of(state).sample()
    world.nil = 1
    exact = {c: float(i) for i, c in enumerate(cards_of(state))}
    assert not world.nil_failed
    assert real(world, state.current_player(), tuple(exact), random.Random(1), exact) == exact


# ------------------------------------------------------------------ nil_bid


def low_hand_auction(contract_bid: bool = False) -> QuintusState:
    """A bidding deal (dealer 0) where seat 1, first to bid, holds the 5 and 6 of every
    suit: he can never win a trick holding a J, Q, K or ace, so a nil is sure. With
    ``contract_bid`` he bids 30 and the others pass (the hand then asks for trump)."""
    low = [s * 13 + r for s in range(4) for r in (3, 4)]  # the 5s and 6s
    rest = [s * 13 + r for s in range(4) for r in range(5, 13)]
    random.Random(4).shuffle(rest)
    hands = [0] * 5
    hands[1] = sum(1 << c for c in low)
    for i, seat in enumerate((0, 2, 3, 4)):
        hands[seat] = sum(1 << c for c in rest[8 * i : 8 * i + 8])
    s = QuintusState.new(QuintusRules(variant="bidding"), 0, hands)
    if contract_bid:
        s.apply_action(next(a for a in s.legal_actions() if is_bid(a)), 1)
        for seat in (2, 3, 4, 0):
            s.apply_action(PASS, seat)
    return s


def test_nil_bid_bids_a_contract_a_sure_nil_makes_and_the_points_rule_does_not() -> None:
    """A hand of the lowest cards takes no points (the points rule passes), but its nil
    makes 30 (the nil's bonus is 38) in every simulated deal: ``nil_bid`` bids."""
    state = low_hand_auction()
    assert state.current_player() == 1
    assert PimcBot().act(view_of(state, samples=6)) == PASS
    bot = PimcBot(nil_bid=60)
    action = bot.act(view_of(state, samples=6))
    assert is_bid(action) and bid_amount(action) == 30
    assert bot.last_reason is not None and "nil makes 30 in 100%" in bot.last_reason


def test_nil_bid_names_a_nil_trump_and_declares_the_nil() -> None:
    """Under the 30 he bid for a nil, his trump is one a nil names (his shortest suit or
    sans atout, worth the nil's chance) and he then declares a nil."""
    state = low_hand_auction(contract_bid=True)
    assert state.phase == TRUMP and state.contract == 30
    bot = PimcBot(nil_bid=60)
    trump = bot.act(view_of(state, samples=6))
    state.apply_action(trump, 1)
    assert state.phase == NIL
    assert bot.act(view_of(state, samples=6)) in (NIL_CLOSED, NIL_OPEN)


def test_nil_bid_weighs_only_the_nils_whose_bonus_reaches_the_bid() -> None:
    """A closed nil is worth 38 in the bidding game, an open one 46: a bid of 40 can be
    made by an open nil only, 48 by none; without ``nil_bid`` no nil is weighed."""
    view = view_of(low_hand_auction())
    bot = PimcBot(nil_bid=60)
    assert {k for _, k in bot._nil_options(view, 38)} == {"closed", "open"}
    assert {k for _, k in bot._nil_options(view, 40)} == {"open"}
    assert bot._nil_options(view, 48) == []
    assert PimcBot()._nil_options(view, 30) == []
    # The trumps: the shortest suit (all hold two: the lowest highest card, spades) and NT.
    assert {t for t, _ in bot._nil_options(view, 30)} == {0, 4}


def test_a_bid_simulates_every_option_in_the_same_deals_within_five_sixths_of_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bid plays the five trumps (and, with ``nil_bid``, the nils weighed) out in the
    same sampled deals, one simulation taking five sixths of the budget; a samples-only
    budget gives that many deals."""
    calls: list[tuple[list[Any], float, list[list[float]]]] = []
    real = PimcBot._simulate

    def spy(self: PimcBot, view: BotView, options: Any, **kw: Any) -> list[list[float]]:
        out = real(self, view, options, **kw)
        calls.append((list(options), kw.get("share", 5 / 6), out))
        return out

    monkeypatch.setattr(PimcBot, "_simulate", spy)
    PimcBot(nil_bid=60).act(view_of(low_hand_auction(), samples=3))
    ((options, share, points),) = calls
    assert [t for t, _, _ in options[:5]] == [0, 1, 2, 3, 4] and len(options) == 9
    assert {kind for _, kind, _ in options[5:]} == {"closed", "open"}
    assert share == pytest.approx(5 / 6) and [len(p) for p in points] == [3] * 9
    calls.clear()
    PimcBot().act(view_of(low_hand_auction(), samples=2))
    ((options, share, points),) = calls
    assert len(options) == 5 and [len(p) for p in points] == [2] * 5


def test_the_simulated_options_share_their_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each deal drawn is played under every option: one draw a deal, not one an option."""
    drawn: list[Any] = []
    real = PimcBot._sample

    def sample(self: PimcBot, view: BotView) -> Any:
        drawn.append(1)
        return real(self, view)

    monkeypatch.setattr(PimcBot, "_sample", sample)
    bot = PimcBot()
    points = bot._simulate(
        view_of(low_hand_auction(), samples=4), [(t, "none", None) for t in range(5)]
    )
    assert len(drawn) == 4 and [len(p) for p in points] == [4] * 5


def test_team_must_be_0_or_1() -> None:
    with pytest.raises(ValueError, match=r"team must be 0 \(off\) or 1 \(on\), not 2"):
        PimcBot(team=2)


def test_a_team_option_that_is_not_0_or_1_is_a_clear_error_for_the_bot_level() -> None:
    from quintet.bots import make_bot
    from quintet.errors import InvalidOptionError

    with pytest.raises(InvalidOptionError, match=r"bot 'pimc': team must be 0 .* not 'yes'"):
        make_bot("pimc:team=yes")
    assert make_bot("pimc:team=0").team is False  # type: ignore[attr-defined]


def test_nil_bid_must_be_a_percentage() -> None:
    with pytest.raises(ValueError, match="nil_bid must be a percentage"):
        PimcBot(nil_bid=101)


@pytest.mark.parametrize(("best", "bids"), [(30 + BID_MARGIN, True), (29 + BID_MARGIN, False)])
def test_a_bid_must_clear_the_playouts_bias_by_the_bid_margin(
    monkeypatch: pytest.MonkeyPatch, best: int, bids: bool
) -> None:
    """The lowest bid (30) is made when the best trump's simulated points reach it plus
    ``BID_MARGIN`` (16: the heuristic's playouts overrate the quintus), else a pass;
    ``bid_margin`` sets another margin (pimc-2026 bids with 4)."""
    assert BID_MARGIN == 16

    def simulate(self: PimcBot, view: BotView, options: Any, **kw: Any) -> list[list[float]]:
        return [[float(best if trump == 2 else 0)] for trump, _, _ in options]

    monkeypatch.setattr(PimcBot, "_simulate", simulate)
    view = view_of(low_hand_auction())
    action = PimcBot().act(view)
    assert (is_bid(action) and bid_amount(action) == 30) if bids else action == PASS
    assert is_bid(PimcBot(bid_margin=BID_MARGIN - 2).act(view_of(low_hand_auction())))


def test_a_pass_says_the_bid_needs_the_margin_to_spare(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hint's reason for passing a hand whose simulated points exceed the bid names the
    margin, so that it does not read as a contradiction."""

    def simulate(self: PimcBot, view: BotView, options: Any, **kw: Any) -> list[list[float]]:
        return [[40.0] for _ in options]

    monkeypatch.setattr(PimcBot, "_simulate", simulate)
    bot = PimcBot()
    assert bot.act(view_of(low_hand_auction())) == PASS
    assert bot.last_reason is not None
    assert "about 40 points" in bot.last_reason and "16 to spare" in bot.last_reason
