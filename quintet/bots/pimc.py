"""The ``pimc`` level: perfect-information Monte Carlo.

For a card play, the bot deals the cards it cannot see again many times, consistently
with everything it has seen (:meth:`~quintet.bots.base.BotView.sample`: voids, cards
played, the open-nil hand, the quintus's all-trump first lead), values every legal card
in each deal, and plays the card of best average value.

In each deal a card is valued exactly by the double-dummy solver once the hand is
small enough for it to answer within the budget (``exact_tricks``: Quinto 6 tricks
left, Quintus 5 by default). Earlier, a full double-dummy solve takes seconds per deal,
so the card is valued by playing the deal out with the ``heuristic`` policy for every
seat instead (the same perfect-information sample, a cheaper evaluator).

Doubling, bids, trump and nil come from simulated outcomes: Quinto doubles when the
simulated trick difference favours its side; the Quintus bidder plays sampled deals
out under each trump (and nil) and bids, names trump and declares nil by the points
(or, with a contract, the chance to make it) the simulations give. It always melds;
signals are given and read as by the heuristic.
"""

from __future__ import annotations

import random
import time
from typing import Any

from quintet.actions import (
    DECLINE,
    DOUBLE,
    MELD_COURT,
    MELD_STRAIGHT,
    NIL_NONE,
    NIL_OPEN,
    PASS,
    REDOUBLE,
    SIGNAL_ASK,
    SIGNAL_UP,
    TRUMP_BASE,
    Action,
    bid_amount,
    is_bid,
    is_play,
    is_signal,
)
from quintet.bots.base import BotView
from quintet.bots.heuristic import HeuristicBot, signal_strength
from quintet.quinto import QuintoState
from quintet.quintus import QuintusState
from quintet.quintus.state import PLAY as QUINTUS_PLAY
from quintet.solver import QuintoSolver, QuintusSolver

_HEURISTIC = HeuristicBot()


def playout(world: Any, rng: random.Random) -> None:
    """Play a sampled world to the end of the hand with the heuristic for every seat."""
    while not world.is_terminal():
        seat = world.current_player()
        view = BotView.inside(world, seat, rng)
        main = view.main_actions()
        action = main[0] if len(main) == 1 else _HEURISTIC.act(view)
        if is_signal(action):
            action = main[0]
        world.apply_action(action, seat)


def _consistent(
    world: Any,
    history: tuple[tuple[int, Action], ...],
    signals: list[tuple[int, int, Action]],
) -> bool:
    """Return whether each signaller's hand in ``world`` fits its signal when given."""
    for i, seat, a in signals:
        hand = world.hands[seat]
        for s, b in history[i:]:
            if s == seat and is_play(b):
                hand |= 1 << b  # the card was still in the hand when it signalled
        strong = signal_strength(hand) >= 2
        if strong != (a == SIGNAL_UP):
            return False
    return True


def _seat_value(world: Any, seat: int) -> float:
    """Return the hand's result for ``seat``'s player (Quinto: side difference)."""
    return float(world.returns()[seat])


class PimcBot:
    """Perfect-information Monte Carlo (see the module docstring).

    ``seconds`` (default 1.0) and ``samples`` (default 200) bound the work per decision;
    the view's budget overrides them when it has its own.
    """

    name = "pimc"

    def __init__(
        self,
        seconds: float | None = None,
        samples: int | None = None,
        exact_tricks: int | None = None,
        tt_bits: int = 18,
    ) -> None:
        self.seconds = seconds
        self.samples = samples
        self.exact_tricks = exact_tricks
        self._tt_bits = tt_bits
        self._quinto: QuintoSolver | None = None
        self._quintus: QuintusSolver | None = None

    # ------------------------------------------------------------------ budget

    def _limits(self, view: BotView) -> tuple[float, int]:
        """Return the deadline and the number of samples; samples alone are exact."""
        samples = view.budget.iterations or self.samples
        seconds = view.budget.seconds or self.seconds
        if seconds is None and samples is not None:
            return float("inf"), samples
        return time.perf_counter() + (seconds or 1.0), samples or 200

    # -------------------------------------------------------------- decisions

    def act(self, view: BotView) -> Action:
        """Return the best average action over sampled deals."""
        main = view.main_actions()
        if len(main) == 1:
            return main[0]
        if MELD_COURT in main or MELD_STRAIGHT in main:
            return next(a for a in main if a != DECLINE)
        if all(is_play(a) for a in main):
            return self._play(view, main)
        if view.game == "quinto":
            return self._double(view, main)
        return self._quintus_choice(view, main)

    def signal(self, view: BotView) -> Action | None:
        """Return the heuristic's signal (given and read with the rulebook's meaning)."""
        return _HEURISTIC.signal(view)

    # ------------------------------------------------------------- card play

    def _solver(self, world: Any) -> QuintoSolver | QuintusSolver:
        if world.game == "quinto":
            if self._quinto is None:
                self._quinto = QuintoSolver(self._tt_bits)
            return self._quinto
        if self._quintus is None:
            self._quintus = QuintusSolver(self._tt_bits)
        return self._quintus

    def _exact(self, world: Any) -> bool:
        left: int = (12 if world.game == "quinto" else 8) - world.tricks_played
        limit = self.exact_tricks
        if limit is None:
            limit = 6 if world.game == "quinto" else 5
        return left <= limit

    def _play(self, view: BotView, cards: tuple[Action, ...]) -> Action:
        deadline, samples = self._limits(view)
        totals = dict.fromkeys(cards, 0.0)
        n = 0
        while n < samples and (n == 0 or time.perf_counter() < deadline):
            world = self._sample(view)
            values = self._card_values(world, view.seat, cards, view.rng)
            for c in cards:
                totals[c] += values[c]
            n += 1
        return max(cards, key=lambda c: (totals[c], -c))

    def _sample(self, view: BotView, tries: int = 8) -> Any:
        """Return a sample, preferring one where the signals given mean what they say.

        Signals are soft evidence (rulebook 004: ``up`` for strong or high-value cards,
        ``down`` for weak ones): a few samples are drawn and the first consistent with
        every signal is kept; if none is, the last is used.
        """
        world = view.sample()
        if view.game != "quintus":
            return world
        signals = [(i, s, a) for i, (s, a) in enumerate(view.obs.history) if is_signal(a)]
        signals = [x for x in signals if x[1] != view.seat and x[2] != SIGNAL_ASK]
        for _ in range(tries - 1):
            if not signals or _consistent(world, view.obs.history, signals):
                return world
            world = view.sample()
        return world

    def _card_values(
        self, world: Any, seat: int, cards: tuple[Action, ...], rng: random.Random
    ) -> dict[Action, float]:
        """Return each card's value for ``seat``'s player in one sampled world."""
        if self._exact(world) and (world.game == "quinto" or world.phase == QUINTUS_PLAY):
            values = self._solver(world).move_values(world)
            if world.game == "quinto":
                return {c: float(values[c]) for c in cards}  # already for the side to move
            sign = 1.0 if seat == world.quintus else -1.0
            return {c: sign * values[c] for c in cards}
        out: dict[Action, float] = {}
        for c in cards:
            w = world.clone()
            w.apply_action(c, seat)
            playout(w, rng)
            out[c] = _seat_value(w, seat)
        return out

    # ----------------------------------------------------------------- Quinto

    def _double(self, view: BotView, main: tuple[Action, ...]) -> Action:
        """Double or redouble when simulations give this side more tricks than the other."""
        deadline, samples = self._limits(view)
        side = view.seat & 1
        diff = 0.0
        n = 0
        while n < min(samples, 60) and (n == 0 or time.perf_counter() < deadline):
            world = view.sample()
            while world.phase == 0:  # the rest of the doubling round: passes
                world.apply_action(PASS)
            playout(world, view.rng)
            won = world.tricks_won
            diff += won[side] - won[1 - side]
            n += 1
        mean = diff / n
        if REDOUBLE in main and mean > 1.0:
            return REDOUBLE
        if DOUBLE in main and mean > 1.5:
            return DOUBLE
        return PASS

    # ---------------------------------------------------------------- Quintus

    def _quintus_choice(self, view: BotView, main: tuple[Action, ...]) -> Action:
        obs: Any = view.obs
        if obs.phase == "auction":
            return self._bid(view, main)
        if obs.phase == "trump":
            values = self._trump_values(view, obs.contract)
            return TRUMP_BASE + max(range(5), key=lambda t: (values[t], -t))
        if obs.phase == "nil":
            return self._nil(view, main, obs)
        return main[0]

    def _simulate(
        self, view: BotView, trump: int, nil: str, contract: int | None, n: int
    ) -> list[int]:
        """Return the quintus's points in ``n`` sampled deals played out by the heuristic."""
        seat = view.seat
        out = []
        end, _ = self._limits(view)
        # Each simulated option gets a sixth of the budget (a samples-only budget: none).
        deadline = time.perf_counter() + (end - time.perf_counter()) / 6
        for i in range(n):
            if i and time.perf_counter() > deadline:
                break
            world = view.sample()
            rules = world.rules
            s = QuintusState.from_position(
                world.hands,
                seat,
                seat,
                "SCDH"[trump] if trump < 4 else "NT",
                rules,
                nil=nil,
                contract=contract,
                first_trick=True,
            )
            playout(s, view.rng)
            out.append(s.points()[0])
        return out

    def _trump_values(self, view: BotView, contract: int | None) -> list[float]:
        values = []
        for t in range(5):
            pts = self._simulate(view, t, "none", contract, 12)
            if contract is None:
                values.append(sum(pts) / len(pts))
            else:
                values.append(sum(1 for p in pts if p >= contract) / len(pts))
        return values

    def _bid(self, view: BotView, main: tuple[Action, ...]) -> Action:
        bids = [a for a in main if is_bid(a)]
        if not bids:
            return PASS
        best = max(
            sum(p) / len(p) for p in (self._simulate(view, t, "none", None, 8) for t in range(5))
        )
        if bid_amount(bids[0]) <= best - 4:
            return bids[0]
        return PASS

    def _nil(self, view: BotView, main: tuple[Action, ...], obs: Any) -> Action:
        trump = 4 if obs.trump == "NT" else "SCDH".index(obs.trump)
        contract = obs.contract
        scores = {}
        for a in main:
            kind = ("none", "closed", "open")[a - NIL_NONE]
            pts = self._simulate(view, trump, kind, contract, 10)
            if contract is None:
                scores[a] = sum(pts) / len(pts)
            else:
                scores[a] = sum(1 for p in pts if p >= contract) / len(pts)
        return max(main, key=lambda a: (scores[a], a != NIL_OPEN, -a))


__all__ = ["PimcBot", "QuintoState", "playout"]
