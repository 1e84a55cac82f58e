"""The ``pimc`` bot's budget and valuation: CPU time, the solver from the first trick.

The CPU clock is faked (``time.thread_time``) and the solver's ``move_values`` stubbed
where a test is about what pimc asks of them, so nothing here depends on the machine's
speed and no full deal is really solved.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from quintet.actions import PASS, Action, is_signal
from quintet.bots import BotView, Budget
from quintet.bots import pimc as pimc_module
from quintet.bots.pimc import MIN_NODES, MIN_SAMPLES, NODES_PER_CPU_SECOND, PimcBot
from quintet.game import Phase
from quintet.games import find_game
from quintet.quinto import QuintoRules, QuintoState
from quintet.quintus import QuintusRules, QuintusState
from quintet.quintus.state import PLAY as QUINTUS_PLAY
from quintet.solver import QuintoSolver, QuintusSolver, SolverLimitError


class FakeClock:
    """A thread CPU clock that moves only when a test moves it."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def quinto_at(tricks_left: int, seed: int = 1) -> QuintoState:
    """Return a Quinto deal at the lead with ``tricks_left`` tricks to play."""
    rng = random.Random(seed)
    s = QuintoState.deal(QuintoRules(target=10_000), 0, rng)
    while s.phase == Phase.DOUBLING:
        s.apply_action(PASS)
    while 12 - s.tricks_played > tricks_left or s.trick:
        s.apply_action(rng.choice(s.legal_actions()))
    return s


def quintus_first_lead(seed: int = 1) -> QuintusState:
    """Return a Quintus base deal at its first card (trump and nil chosen at random)."""
    rng = random.Random(seed)
    s = QuintusState.deal(QuintusRules(variant="base"), 0, rng)
    while s.phase != QUINTUS_PLAY:
        s.apply_action(rng.choice([a for a in s.legal_actions() if not is_signal(a)]))
    return s


FIRST_LEADS: dict[str, Callable[[], Any]] = {
    "quinto": lambda: quinto_at(12),
    "quintus": quintus_first_lead,
}
SOLVERS: dict[str, Any] = {"quinto": QuintoSolver, "quintus": QuintusSolver}


def cards_of(state: Any) -> list[Action]:
    """Return the cards the seat to act may play (no signals)."""
    return [a for a in state.legal_actions(state.current_player()) if not is_signal(a)]


def view_of(state: Any, budget: Budget, seed: int = 3) -> BotView:
    return BotView.of(state, state.current_player(), random.Random(seed), budget)


def stub_solver(
    monkeypatch: pytest.MonkeyPatch, game: str, favourite: Action | None, clock: Any = None
) -> list[dict[str, Any]]:
    """Replace ``move_values`` by a stub valuing ``favourite`` best for the side to move
    (raising SolverLimitError when ``favourite`` is None); return its calls."""
    calls: list[dict[str, Any]] = []

    def move_values(self: Any, state: Any) -> dict[Action, int]:
        calls.append(
            {
                "tricks_played": state.tricks_played,
                "trick": list(state.trick),
                "max_nodes": self.max_nodes,
                "now": None if clock is None else clock.now,
            }
        )
        if favourite is None:
            raise SolverLimitError(f"gave up after {self.max_nodes} nodes")
        # Quinto values are for the side to move, Quintus values for the quintus.
        sign = 1 if game == "quinto" or state.current_player() == state.quintus else -1
        return {c: sign * (5 if c == favourite else 0) for c in state.legal_actions()}

    monkeypatch.setattr(SOLVERS[game], "move_values", move_values)
    return calls


def count_playouts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the heuristic playouts pimc runs (they still run)."""
    count = [0]
    real = pimc_module.playout

    def playout(world: Any, rng: random.Random) -> None:
        count[0] += 1
        real(world, rng)

    monkeypatch.setattr(pimc_module, "playout", playout)
    return count


# ------------------------------------------------------------------ CPU budget


def test_pimc_stops_once_its_cpu_budget_is_spent(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    monkeypatch.setattr(time, "thread_time", clock)
    real_sample = PimcBot._sample

    def costly_sample(self: PimcBot, view: BotView) -> Any:
        clock.now += 0.3  # each deal costs 0.3 CPU seconds of the deciding thread
        return real_sample(self, view)

    monkeypatch.setattr(PimcBot, "_sample", costly_sample)
    state = quinto_at(3)
    bot = PimcBot()
    bot.act(view_of(state, Budget(seconds=1.0)))
    # Deals start at 0, 0.3, 0.6 and 0.9 CPU seconds; by 1.2 the budget is spent.
    assert bot.last_samples == 4
    assert bot.last_cpu == pytest.approx(1.2)
    # A clock that stands still (wall time passes meanwhile): only the sample cap stops it.
    monkeypatch.setattr(PimcBot, "_sample", real_sample)
    bot.act(view_of(state, Budget(seconds=1.0, iterations=7)))
    assert bot.last_samples == 7


def test_each_deal_gets_a_node_limit_from_the_cpu_time_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = FakeClock()
    monkeypatch.setattr(time, "thread_time", clock)
    state = quinto_at(12)
    calls = stub_solver(monkeypatch, "quinto", state.legal_actions()[0], clock)
    real_sample = PimcBot._sample

    def costly_sample(self: PimcBot, view: BotView) -> Any:
        clock.now += 0.125
        return real_sample(self, view)

    monkeypatch.setattr(PimcBot, "_sample", costly_sample)
    bot = PimcBot()
    bot.act(view_of(state, Budget(seconds=2.0)))
    assert bot.last_samples == len(calls) == 16  # 0.125 CPU s a deal, 2 s in all
    rate = NODES_PER_CPU_SECOND["quinto"]
    for n, call in enumerate(calls):
        left = max(0.0, 2.0 - call["now"])
        # The time left, shared among the deals still to come (at least MIN_SAMPLES).
        want = max(MIN_NODES, int(left / max(1, MIN_SAMPLES - n) * rate))
        assert call["max_nodes"] == want, n
    assert calls[-1]["max_nodes"] == MIN_NODES  # nothing left: the floor


def test_a_samples_budget_gives_fixed_node_limits() -> None:
    bot = PimcBot(samples=4)
    assert bot._node_limit("quinto", float("inf"), 4, 0) == int(NODES_PER_CPU_SECOND["quinto"] / 4)
    assert bot._node_limit("quinto", float("inf"), 4, 3) == int(NODES_PER_CPU_SECOND["quinto"] / 4)
    assert PimcBot(max_nodes=1234)._node_limit("quintus", 5.0, 200, 0) == 1234
    with pytest.raises(ValueError):
        PimcBot(max_nodes=0)


# -------------------------------------------------------- the solver from trick 1


@pytest.mark.parametrize("game", ["quinto", "quintus"])
def test_pimc_solves_every_deal_from_the_first_trick(
    monkeypatch: pytest.MonkeyPatch, game: str
) -> None:
    state = FIRST_LEADS[game]()
    assert state.tricks_played == 0 and not state.trick
    cards = cards_of(state)
    favourite = cards[len(cards) // 2]
    calls = stub_solver(monkeypatch, game, favourite)
    playouts = count_playouts(monkeypatch)
    bot = PimcBot()
    # A generous budget: 30 CPU seconds, so ample nodes for each of the 5 deals.
    action = bot.act(view_of(state, Budget(seconds=30.0, iterations=5)))
    assert action == favourite
    assert len(calls) == 5 and all(c["tricks_played"] == 0 and not c["trick"] for c in calls)
    assert all(c["max_nodes"] >= 3 * NODES_PER_CPU_SECOND[game] for c in calls)
    assert (bot.last_samples, bot.last_exact, bot.last_fallbacks) == (5, 5, 0)
    assert playouts[0] == 0


@pytest.mark.parametrize("game", ["quinto", "quintus"])
def test_a_deal_the_solver_gives_up_on_is_played_out(
    monkeypatch: pytest.MonkeyPatch, game: str
) -> None:
    state = FIRST_LEADS[game]()
    cards = cards_of(state)
    calls = stub_solver(monkeypatch, game, None)  # every solve raises SolverLimitError
    playouts = count_playouts(monkeypatch)
    bot = PimcBot(give_up=10, solve_tricks=0)  # played to the end
    action = bot.act(view_of(state, Budget(iterations=3)))
    assert action in cards
    assert len(calls) == 3
    assert (bot.last_samples, bot.last_exact, bot.last_fallbacks) == (3, 0, 3)
    assert playouts[0] == 3 * len(cards)  # each card of each deal played out
    assert bot.counts["fallbacks"] == 3 and bot.counts["decisions"] == 1


@pytest.mark.parametrize("game", ["quinto", "quintus"])
def test_after_give_up_failed_deals_the_rest_are_played_out_untried(
    monkeypatch: pytest.MonkeyPatch, game: str
) -> None:
    """The solver gave up on the first GIVE_UP deals and solved none: it is not tried on
    the rest of the decision's deals, which are played out (more of them fit the budget)."""
    state = FIRST_LEADS[game]()
    cards = cards_of(state)
    calls = stub_solver(monkeypatch, game, None)
    playouts = count_playouts(monkeypatch)
    bot = PimcBot(solve_tricks=0)
    assert bot.give_up == pimc_module.GIVE_UP == 2
    bot.act(view_of(state, Budget(iterations=6)))
    assert len(calls) == 2
    assert (bot.last_samples, bot.last_exact, bot.last_fallbacks) == (6, 0, 2)
    assert playouts[0] == 6 * len(cards)


def test_a_position_the_solver_gave_up_on_is_not_tried_again_as_large(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once the solver gave up on a trick's positions at a node limit, a later decision
    as large (tricks to play) with no more nodes plays its deals out untried; a smaller
    one, or a larger limit, tries again."""
    state = FIRST_LEADS["quinto"]()
    calls = stub_solver(monkeypatch, "quinto", None)
    bot = PimcBot(max_nodes=50_000)
    bot.act(view_of(state, Budget(iterations=4)))
    assert len(calls) == 2  # give_up tries
    bot.act(view_of(state, Budget(iterations=4), seed=9))
    assert len(calls) == 2 and bot.last_fallbacks == 0 and bot.last_samples == 4
    bot.max_nodes = 80_000
    bot.act(view_of(state, Budget(iterations=4)))
    assert len(calls) == 4
    bot.act(view_of(quinto_at(11), Budget(iterations=4)))
    assert len(calls) == 6


def test_a_deal_solved_keeps_the_solver_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    """With one deal solved the solver stays in use for every deal of the decision."""
    state = quinto_at(4)
    calls = stub_solver(monkeypatch, "quinto", state.legal_actions()[0])
    bot = PimcBot()
    bot.act(view_of(state, Budget(iterations=6)))
    assert len(calls) == 6 and bot.last_exact == 6


def test_the_first_deal_is_valued_whatever_the_budget() -> None:
    # The real solver: a full deal in MIN_NODES nodes is out of reach, so it gives up and
    # the deal is played out; the decision returns after that one deal.
    state = quinto_at(12)
    bot = PimcBot()
    action = bot.act(view_of(state, Budget(seconds=1e-9)))
    assert action in state.legal_actions()
    assert bot.last_samples == 1
    assert bot.last_exact + bot.last_fallbacks == 1


def test_exact_tricks_keeps_the_solver_for_the_last_tricks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = quinto_at(12)
    calls = stub_solver(monkeypatch, "quinto", state.legal_actions()[0])
    bot = PimcBot(exact_tricks=6)
    bot.act(view_of(state, Budget(iterations=2)))
    assert not calls and (bot.last_exact, bot.last_fallbacks) == (0, 0)
    late = quinto_at(6)
    bot.act(view_of(late, Budget(iterations=2)))
    assert len(calls) == 2 and bot.last_exact == 2


@pytest.mark.parametrize("game", ["quinto", "quintus"])
def test_solve_tricks_plays_a_given_up_deal_out_then_solves_its_last_tricks(
    monkeypatch: pytest.MonkeyPatch, game: str
) -> None:
    """With ``solve_tricks`` a deal the solver gives up on is played out by the heuristic
    only until that many tricks are left, at a trick's lead; the solver values the rest,
    added to what the hand gave so far."""
    state = FIRST_LEADS[game]()
    cards = cards_of(state)
    stub_solver(monkeypatch, game, None)  # the whole deal: given up
    seen: list[tuple[int, int]] = []
    real = SOLVERS[game].value

    def value(self: Any, w: Any) -> int:
        seen.append((w.tricks_played, len(w.trick)))
        v: int = real(self, w)
        return v

    monkeypatch.setattr(SOLVERS[game], "value", value)
    playouts = count_playouts(monkeypatch)
    bot = PimcBot(solve_tricks=3, give_up=1)
    action = bot.act(view_of(state, Budget(iterations=2)))
    assert action in cards
    num_tricks = find_game(game).num_tricks
    assert len(seen) == 2 * len(cards)  # every card of both deals
    assert all(t == num_tricks - 3 and n == 0 for t, n in seen)
    assert playouts[0] == 0  # no deal played to its end
    assert bot.last_fallbacks == 1


def test_quinto_playouts_hand_over_to_the_solver_at_five_tricks_by_default() -> None:
    """The game's ``playout_solve_tricks`` is the default (measured on the ladder):
    Quinto 5, Quintus none (played to the end)."""
    bot = PimcBot()
    assert bot._solve_tricks(FIRST_LEADS["quinto"]()) == 5
    assert bot._solve_tricks(FIRST_LEADS["quintus"]()) == 0


def test_in_a_long_decision_the_dummy_game_hands_over_at_six_tricks() -> None:
    """Quinto's ``playout_solve_tricks_long`` (measured at 1 CPU s, docs/bots.md): a card
    decision of at least ``LONG_DECISION`` CPU seconds in the dummy game hands over at 6
    tricks left; a shorter one, a samples-only one, the partnership game and an explicit
    ``solve_tricks`` keep theirs."""
    rng = random.Random(2)
    dummy = QuintoState.deal(QuintoRules(variant="dummy", target=10_000), 0, rng, lone_seat=1)
    while dummy.phase == Phase.DOUBLING:
        dummy.apply_action(PASS)
    partnership = quinto_at(12)
    long = pimc_module.LONG_DECISION
    for budget, state, want in (
        (Budget(seconds=long, iterations=3), dummy, 6),
        (Budget(seconds=long / 2, iterations=3), dummy, 5),
        (Budget(iterations=3), dummy, 5),
        (Budget(seconds=long, iterations=3), partnership, 5),
    ):
        bot = PimcBot(max_nodes=1)  # every deal given up by the solver: played out
        seen: list[int] = []
        solve_tricks = bot._solve_tricks

        def spy(world: Any, seen: list[int] = seen, f: Any = solve_tricks) -> int:
            seen.append(f(world))
            return seen[-1]

        bot._solve_tricks = spy  # type: ignore[method-assign]
        bot.act(view_of(state, budget))
        assert seen and set(seen) == {want}, (budget, want, seen)
    fixed = PimcBot(solve_tricks=4)
    fixed._long = True
    assert fixed._solve_tricks(dummy) == 4


def test_solve_tricks_values_a_card_as_the_whole_playout_would_with_best_play() -> None:
    """The hybrid value of a card is its playout's outcome when the solver's best play
    finishes the hand: ``so_far`` and the value add up (here from 2 tricks left)."""
    state = quinto_at(5)
    bot = PimcBot(solve_tricks=2)
    rng = random.Random(4)
    world = view_of(state, Budget(iterations=1)).sample()
    values = bot._hybrid_values(world, state.current_player(), tuple(cards_of(state)), rng)
    assert values is not None and set(values) == set(cards_of(state))
    assert len(set(values.values())) > 1  # the cards differ: a real valuation


def test_a_played_out_quintus_deal_is_measured_as_the_solver_measures() -> None:
    state = quintus_first_lead()
    rng = random.Random(5)
    while not state.is_terminal():
        state.apply_action(rng.choice([a for a in state.legal_actions() if not is_signal(a)]))
    quintus = state.points()[0]
    defender = next(s for s in range(5) if s != state.quintus)
    assert QuintusSolver.outcome(state, state.quintus) == quintus
    assert QuintusSolver.outcome(state, defender) == -quintus


def test_the_quintus_counts_the_teams_bonus_of_a_failed_nil() -> None:
    """Rule (base game): a failed nil gives each team +50, so the quintus weighs his points
    against the others' when he chooses nil; with aces and court cards to lose he does
    not declare it (he used to, his own points alone not showing the cost)."""
    from quintet.actions import NIL_NONE
    from quintet.game import Phase
    from quintet.quintus.rules import NIL_BREAKERS

    choices = []
    for seed in range(60):
        s = QuintusState.deal(QuintusRules(variant="base"), seed % 5, random.Random(seed))
        while s.phase != Phase.NIL:
            s.apply_action(s.legal_actions()[0])
        q = s.current_player()
        if (s.hands[q] & NIL_BREAKERS).bit_count() < 4:
            continue
        view = BotView.of(s, q, random.Random(seed), Budget(iterations=10))
        choices.append(PimcBot().act(view))
        if len(choices) == 4:
            break
    assert choices == [NIL_NONE] * 4


def test_a_negative_solve_tricks_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="solve_tricks must be at least 0, not -1"):
        PimcBot(solve_tricks=-1)
