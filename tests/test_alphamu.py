"""αμ (quintet.bots.alphamu): fronts, strategy fusion avoided, and pimc's ``alphamu`` option.

The algorithm's cases are checked on a tiny made-up game whose tree is written out by
hand (two deals the deciding player cannot tell apart, an opponent, a partner), where
the right answer is obvious; then pimc plays real endgames with it.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from conftest import LoadBench

from quintet.actions import PASS, Action, is_play, is_signal
from quintet.bots import BotView, Budget
from quintet.bots.alphamu import AlphaMu, OutOfTime, _prune
from quintet.bots.pimc import PimcBot
from quintet.game import Phase
from quintet.games import find_game
from quintet.solver import QuintoSolver

# A made-up game: each node is (mover, {card: child}) or a terminal value; trees differ
# by deal. Seat 0 decides (the αμ player), seat 1 is his opponent, seat 2 his partner.
Tree = Any


@dataclass
class Fake:
    """A state of the made-up game: the deal's tree below the cards played so far."""

    node: Tree

    def is_terminal(self) -> bool:
        return not isinstance(self.node, tuple)

    def current_player(self) -> int:
        return int(self.node[0])

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        return sorted(self.node[1])

    def child(self, a: Action, seat: int | None = None) -> Fake:
        return Fake(self.node[1][a])

    def controller(self, seat: int) -> int:
        return seat

    @property
    def value(self) -> float:
        return float(self.node)


def solve(s: Fake) -> float:
    """The made-up deal's value with every card seen (what the solver gives a leaf)."""
    if s.is_terminal():
        return s.value
    values = [solve(s.child(a)) for a in s.legal_actions()]
    return min(values) if s.current_player() == 1 else max(values)


def side(s: Fake, seat: int) -> int:
    """Seats 0 and 2 are one side, seat 1 the other."""
    return 1 if (seat != 1) == (s.current_player() != 1) else -1


def alphamu(deals: list[Tree], weights: list[float] | None = None) -> AlphaMu:
    worlds = [Fake(d) for d in deals]
    return AlphaMu(worlds, weights or [1.0] * len(deals), 0, solve, lambda s: s.value, side)


def guess(world: int, reveal: bool) -> Tree:
    """After card 1 the opponent plays (card 10, or 10 + world when ``reveal``), then seat
    0 must guess: card 2 scores 10 in deal 0, card 3 in deal 1 (0 otherwise)."""
    last = (0, {2: 10 if world == 0 else 0, 3: 10 if world == 1 else 0})
    return (1, {(10 + world if reveal else 10): last})


def test_alphamu_does_not_credit_a_guess_it_cannot_make_in_every_deal() -> None:
    # Card 0 is safe (6 in both deals); card 1 leads to a guess between deals the player
    # cannot tell apart: PIMC values it 10 (it guesses right in each deal), αμ 5.
    deals = [(0, {0: 6, 1: guess(w, reveal=False)}) for w in (0, 1)]
    values = alphamu(deals).card_values([0, 1])
    assert values == {0: 6.0, 1: 5.0}
    pimc = {c: sum(solve(Fake(d).child(c)) for d in deals) / 2 for c in (0, 1)}
    assert pimc == {0: 6.0, 1: 10.0}


def test_alphamu_lets_the_player_choose_by_deal_once_a_card_tells_them_apart() -> None:
    deals = [(0, {0: 6, 1: guess(w, reveal=True)}) for w in (0, 1)]
    assert alphamu(deals).card_values([0, 1]) == {0: 6.0, 1: 10.0}


def test_alphamu_opponent_chooses_deal_by_deal_and_partner_too() -> None:
    # The opponent (seat 1) picks his worse card for us in each deal separately...
    deals = [(0, {0: (1, {10: 5, 11: 3})}), (0, {0: (1, {10: 5, 11: 8})})]
    search = alphamu(deals)
    assert search.card_values([0]) == {0: 4.0}  # (3 + 5) / 2
    # ... and the partner (seat 2), assumed to see the cards, his better one.
    deals = [(0, {0: (2, {10: 5, 11: 3})}), (0, {0: (2, {10: 5, 11: 8})})]
    assert alphamu(deals).card_values([0]) == {0: 6.5}  # (5 + 8) / 2


def test_alphamu_weights_deals_by_their_multiplicity() -> None:
    deals = [(0, {0: 6, 1: guess(w, reveal=False)}) for w in (0, 1)]
    # Deal 0 three times as likely: guessing card 2 is worth 7.5, more than the safe 6.
    assert alphamu(deals, [3.0, 1.0]).card_values([0, 1]) == {0: 6.0, 1: 7.5}


def test_alphamu_values_a_deal_alone_in_its_node_by_the_leaf() -> None:
    calls: list[Fake] = []

    def leaf(s: Fake) -> float:
        calls.append(s)
        return solve(s)

    deals = [(0, {0: guess(w, reveal=True)}) for w in (0, 1)]
    search = AlphaMu([Fake(d) for d in deals], [1.0, 1.0], 0, leaf, lambda s: s.value, side)
    assert search.card_values([0]) == {0: 10.0}
    assert len(calls) == 2 and search.leaves == 2  # one per deal, after the revealing card


def test_alphamu_front_drops_duplicate_and_dominated_vectors_and_keeps_the_best() -> None:
    w = np.ones(2)
    front = np.array([[1.0, 1.0], [2.0, 0.0], [1.0, 1.0], [0.5, 0.5], [0.0, 3.0]])
    kept = {tuple(v) for v in _prune(front, w, cap=16)}
    assert kept == {(1.0, 1.0), (2.0, 0.0), (0.0, 3.0)}
    # Capped, the best by weighted mean stay: (0, 3) then (1, 1) or (2, 0).
    assert tuple(_prune(front, w, cap=1)[0]) == (0.0, 3.0)


def test_alphamu_needs_a_deal() -> None:
    with pytest.raises(ValueError, match="at least one deal"):
        AlphaMu([], [], 0, solve, solve, side)


# ---------------------------------------------------------------- pimc with αμ


def endgame(variant: str, tricks_left: int, seed: int) -> Any:
    """Return a Quinto deal (``variant``) at a lead with ``tricks_left`` tricks to play."""
    rng = random.Random(seed)
    info = find_game("quinto")
    rules = info.rules(variant, {"target": 10_000})
    lone = 0 if info.variant(variant).lone_seat else None
    s: Any = info.deal(rules, 0, rng, lone_seat=lone)
    while s.phase == Phase.DOUBLING:
        s.apply_action(PASS)
    while 12 - s.tricks_played > tricks_left or s.trick:
        s.apply_action(rng.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("variant", ["partnership", "dummy"])
def test_pimc_alphamu_plays_the_last_tricks_legally_and_says_so(variant: str) -> None:
    for seed in range(3):
        s = endgame(variant, 2, seed)
        bot = PimcBot(alphamu=2, worlds=8)
        view = BotView.of(s, s.current_player(), random.Random(seed), Budget(iterations=8))
        card, reason = bot.explain(view)
        assert card in s.legal_actions()
        assert "αμ" in reason and bot.counts["alphamu"] == 1
        assert bot.last_samples == 8


def test_pimc_alphamu_with_one_deal_plays_the_solvers_best_card(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # One deal: no other deal to tell apart, so αμ is that deal solved double-dummy.
    for seed in range(4):
        s = endgame("partnership", 3, seed)
        seat = s.current_player()
        view = BotView.of(s, seat, random.Random(seed), Budget(iterations=1))
        world = view.sample()
        bot = PimcBot(alphamu=3, worlds=1)
        monkeypatch.setattr(bot, "_sample", lambda view, world=world: world.clone())
        card = bot.act(view)
        values = QuintoSolver().seat_values(world, seat)
        assert values[card] == max(values.values())


def test_pimc_alphamu_is_used_only_in_the_last_tricks() -> None:
    s = endgame("partnership", 4, 5)
    bot = PimcBot(alphamu=2, worlds=4)
    bot.act(BotView.of(s, s.current_player(), random.Random(1), Budget(iterations=4)))
    assert bot.counts["alphamu"] == 0


@pytest.mark.parametrize("options", [{"alphamu": -1}, {"worlds": 0}])
def test_pimc_alphamu_options_are_checked(options: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="must be at least"):
        PimcBot(**options)


@pytest.mark.parametrize("variant", ["base", "bidding"])
def test_pimc_alphamu_plays_quintus_endgames_and_contracts(variant: str) -> None:
    info = find_game("quintus")
    played = 0
    for seed in range(12):
        rng = random.Random(seed)
        s: Any = info.deal(info.rules(variant), 0, rng)
        while not s.is_terminal() and (info.num_tricks - s.tricks_played > 2 or s.trick):
            s.apply_action(rng.choice([a for a in s.legal_actions() if not is_signal(a)]))
        cards = [a for a in s.legal_actions() if not is_signal(a)]
        if s.is_terminal() or not all(is_play(a) for a in cards):
            continue
        bot = PimcBot(alphamu=2, worlds=6)
        view = BotView.of(s, s.current_player(), random.Random(seed), Budget(iterations=6))
        card, reason = bot.explain(view)
        assert card in cards and "αμ" in reason
        played += 1
    assert played >= 3


def test_endgames_benchmark_plays_both_bots_on_the_same_positions(
    load_bench: LoadBench,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # bench/endgames.py, the benchmark that measures alphamu, on two positions.
    bench = load_bench("endgames")
    start = bench.position("quinto", "dummy", 3, 2, 1)
    assert start.tricks_played == 10 and not start.trick
    assert bench.play(("quinto", "dummy", 3, 2, 1, "heuristic", "heuristic", 0.01))[0] == 0
    bench.main(["--bots", "heuristic,random", "--positions", "2", "--jobs", "1"])
    out = capsys.readouterr().out
    assert "heuristic - random" in out and "2 positions" in out


def test_alphamu_stops_at_its_deadline() -> None:
    # A clock already past the deadline: the search gives up at its first check.
    deals = [(0, {0: 6, 1: guess(w, reveal=False)}) for w in (0, 1)] * 8
    search = AlphaMu(
        [Fake(d) for d in deals], [1.0] * 16, 0, solve, lambda s: s.value, side,
        deadline=1.0, clock=lambda: 2.0,
    )  # fmt: skip
    with pytest.raises(OutOfTime):
        search.card_values([0, 1])


def test_pimc_decides_by_pimc_when_alphamu_runs_out_of_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def late(self: AlphaMu, cards: Any) -> Any:
        assert math.isfinite(self.deadline)  # the budget's share, not unbounded
        raise OutOfTime("late")

    monkeypatch.setattr(AlphaMu, "card_values", late)
    s = endgame("dummy", 2, 1)
    bot = PimcBot(alphamu=2, worlds=4)
    view = BotView.of(s, s.current_player(), random.Random(1), Budget(seconds=0.05))
    card, reason = bot.explain(view)
    assert card in s.legal_actions() and "αμ" not in reason
    assert bot.counts["alphamu_abandoned"] == 1 and bot.counts["alphamu"] == 0
    assert bot.last_samples >= 1


def test_alphamu_agreement_benchmark_counts_the_decisions(
    load_bench: LoadBench,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench = load_bench("alphamu_agreement")
    bench.main(["--variant", "dummy", "--tricks", "2", "--worlds", "4", "--positions", "2"])
    out = capsys.readouterr().out
    assert re.search(r"quinto dummy, 2 tricks left, 4 deals: [1-9]\d* decisions", out), out
