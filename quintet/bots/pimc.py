"""The ``pimc`` level: perfect-information Monte Carlo.

For a card play, the bot deals the cards it cannot see again many times, consistently
with everything it has seen (:meth:`~quintet.bots.base.BotView.sample`: voids, cards
played, the open-nil hand, the quintus's all-trump first lead), values every legal card
in each deal, and plays the card of best average value.

In each deal, from any trick, every card is valued exactly by the double-dummy solver
(``move_values``) within a node limit for that deal: the CPU time left in the budget,
converted at :data:`NODES_PER_CPU_SECOND`, shared among at least :data:`MIN_SAMPLES`
deals still to come (so that early deals cannot eat the whole budget), and never below
:data:`MIN_NODES`. Only a deal the solver cannot answer within its limit
(:class:`~quintet.solver.SolverLimitError`) is valued instead by playing it out with
the ``heuristic`` policy for every seat after each card (the same perfect-information
deal, a cheaper and rougher evaluator). A played-out deal is measured as the solver
measures (Quinto: the side's points minus the other side's; Quintus: the quintus's
points, which the four others minimise), so exact and played-out deals add up. The
first deal is always valued, whatever the budget, so a decision always returns;
``last_samples``, ``last_exact`` and ``last_fallbacks`` say how the last card decision
went, ``counts`` adds them up. ``exact_tricks`` (off by default) restores the old rule:
the solver only once at most that many tricks are left, playouts before.

The budget is CPU seconds of the deciding thread (:func:`~quintet.bots.base.cpu_clock`;
the solver's numba kernels run in that thread), checked between deals.

Doubling, bids, trump and nil come from simulated outcomes (heuristic playouts of
sampled deals, not the solver, within the same CPU budget): Quinto doubles when the
simulated trick difference favours its side; the Quintus bidder plays sampled deals
out under each trump (and nil) and bids, names trump and declares nil by the points
(or, with a contract, the chance to make it) the simulations give. It always melds;
signals are given and read as by the heuristic.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any, Final

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
from quintet.bots.base import BotView, cpu_clock
from quintet.bots.heuristic import HeuristicBot, signal_strength
from quintet.game import Phase
from quintet.games import GAMES, game_of
from quintet.quinto import QuintoState
from quintet.quintus import QuintusState
from quintet.solver import QuintoSolver, QuintusSolver, SolverLimitError

#: Budget when neither the constructor nor the view gives one (CPU seconds, samples).
DEFAULT_SECONDS: Final = 1.0
DEFAULT_SAMPLES: Final = 200
#: Nodes the double-dummy solver searches per CPU second, by game
#: (``GameInfo.solver_nodes_per_second``): it turns the CPU time left into each deal's
#: node limit. Measured on a 2-core machine at the opening lead (bench/pimc_samples.py
#: prints the rate of each run): Quinto 7.4 M, Quintus 8.7 M (endgames run faster,
#: Quintus 12-13 M: their deals get a little less than their share).
NODES_PER_CPU_SECOND: Final = {g.name: g.solver_nodes_per_second for g in GAMES.values()}
#: The CPU time left is shared among at least this many deals still to come.
MIN_SAMPLES: Final = 10
#: The smallest node limit of a deal (the last tricks solve in far fewer nodes).
MIN_NODES: Final = 20_000

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


class PimcBot:
    """Perfect-information Monte Carlo (see the module docstring).

    ``seconds`` (CPU seconds, default 1.0) and ``samples`` (default 200) bound the work
    per decision; the view's budget overrides them when it has its own. With samples and
    no seconds anywhere the choice depends only on the view: each deal's node limit is
    then fixed (:data:`DEFAULT_SECONDS` shared among ``min(samples, MIN_SAMPLES)``
    deals). ``max_nodes`` fixes the node limit per deal instead. ``exact_tricks``, when
    given, uses the solver only with at most that many tricks left (playouts before).
    """

    name = "pimc"

    def __init__(
        self,
        seconds: float | None = None,
        samples: int | None = None,
        exact_tricks: int | None = None,
        tt_bits: int = 18,
        max_nodes: int | None = None,
    ) -> None:
        if max_nodes is not None and max_nodes < 1:
            raise ValueError(f"max_nodes must be at least 1, not {max_nodes}")
        self.seconds = seconds
        self.samples = samples
        self.exact_tricks = exact_tricks
        self.max_nodes = max_nodes
        self._tt_bits = tt_bits
        self._solvers: dict[str, QuintoSolver | QuintusSolver] = {}
        #: The last card decision: deals valued, of them solved exactly, and given up by
        #: the solver (played out instead); the solver's nodes and CPU seconds (given-up
        #: deals included), and the decision's CPU seconds.
        self.last_samples = 0
        self.last_exact = 0
        self.last_fallbacks = 0
        self.last_nodes = 0
        self.last_solve_cpu = 0.0
        self.last_cpu = 0.0
        #: Totals over this bot's card decisions: decisions, samples, exact, fallbacks.
        self.counts: Counter[str] = Counter()

    # ------------------------------------------------------------------ budget

    def _limits(self, view: BotView) -> tuple[float, int]:
        """Return the deadline (a :func:`cpu_clock` value) and the number of samples.

        A samples-only budget has no deadline (infinity): the choice is reproducible.
        """
        samples = view.budget.iterations or self.samples
        seconds = view.budget.seconds or self.seconds
        if seconds is None and samples is not None:
            return math.inf, samples
        return cpu_clock() + (seconds or DEFAULT_SECONDS), samples or DEFAULT_SAMPLES

    def _node_limit(self, game: str, deadline: float, samples: int, n: int) -> int:
        """Return the solver's node limit for deal ``n`` (0 first) of a decision."""
        if self.max_nodes is not None:
            return self.max_nodes
        spread = max(1, min(samples, MIN_SAMPLES) - n)
        if math.isinf(deadline):
            share = DEFAULT_SECONDS / min(samples, MIN_SAMPLES)
        else:
            share = max(0.0, deadline - cpu_clock()) / spread
        return max(MIN_NODES, int(share * NODES_PER_CPU_SECOND[game]))

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
        obs: Any = view.obs
        if obs.phase == "doubling":
            return self._double(view, main)
        if obs.phase == "auction":
            return self._bid(view, main)
        if obs.phase == "trump":
            values = self._trump_values(view, obs.contract)
            return TRUMP_BASE + max(range(5), key=lambda t: (values[t], -t))
        if obs.phase == "nil":
            return self._nil(view, main, obs)
        return main[0]

    def signal(self, view: BotView) -> Action | None:
        """Return the heuristic's signal (given and read with the rulebook's meaning)."""
        return _HEURISTIC.signal(view)

    # ------------------------------------------------------------- card play

    def _solver(self, world: Any) -> QuintoSolver | QuintusSolver:
        """Return this bot's solver for ``world``'s game (one per game, its table kept)."""
        solver = self._solvers.get(world.game)
        if solver is None:
            solver = self._solvers[world.game] = game_of(world).solver(tt_bits=self._tt_bits)
        return solver

    def _solvable(self, world: Any) -> bool:
        """Return whether the solver is tried on ``world`` (a card to play; ``exact_tricks``)."""
        if self.exact_tricks is None:
            return True
        left: int = game_of(world).num_tricks - world.tricks_played
        return left <= self.exact_tricks

    def _play(self, view: BotView, cards: tuple[Action, ...]) -> Action:
        t0 = cpu_clock()
        deadline, samples = self._limits(view)
        totals = dict.fromkeys(cards, 0.0)
        n = exact = fallbacks = nodes = 0
        solve_cpu = 0.0
        while n < samples and (n == 0 or cpu_clock() < deadline):
            world = self._sample(view)
            values = None
            if self._solvable(world):
                solver = self._solver(world)
                solver.max_nodes = self._node_limit(world.game, deadline, samples, n)
                t = cpu_clock()
                try:
                    values = self._exact_values(solver, world, view.seat, cards)
                    exact += 1
                except SolverLimitError:
                    fallbacks += 1
                solve_cpu += cpu_clock() - t
                nodes += solver.nodes
            if values is None:
                values = self._playout_values(world, view.seat, cards, view.rng)
            for c in cards:
                totals[c] += values[c]
            n += 1
        self.last_samples, self.last_exact, self.last_fallbacks = n, exact, fallbacks
        self.last_nodes, self.last_solve_cpu = nodes, solve_cpu
        self.last_cpu = cpu_clock() - t0
        self.counts.update(decisions=1, samples=n, exact=exact, fallbacks=fallbacks)
        return max(cards, key=lambda c: (totals[c], -c))

    def _sample(self, view: BotView, tries: int = 8) -> Any:
        """Return a sample, preferring one where the signals given mean what they say.

        Signals are soft evidence (rulebook 004: ``up`` for strong or high-value cards,
        ``down`` for weak ones): a few samples are drawn and the first consistent with
        every signal is kept; if none is, the last is used.
        """
        world = view.sample()
        signals = [(i, s, a) for i, (s, a) in enumerate(view.obs.history) if is_signal(a)]
        signals = [x for x in signals if x[1] != view.seat and x[2] != SIGNAL_ASK]
        if not signals:
            return world
        for _ in range(tries - 1):
            if _consistent(world, view.obs.history, signals):
                return world
            world = view.sample()
        return world

    @staticmethod
    def _exact_values(
        solver: QuintoSolver | QuintusSolver, world: Any, seat: int, cards: tuple[Action, ...]
    ) -> dict[Action, float]:
        """Return each card's double-dummy value for ``seat``'s player (or raise).

        Raises:
            SolverLimitError: the deal needs more than the solver's ``max_nodes``.
        """
        values = solver.seat_values(world, seat)
        return {c: float(values[c]) for c in cards}

    @staticmethod
    def _playout_values(
        world: Any, seat: int, cards: tuple[Action, ...], rng: random.Random
    ) -> dict[Action, float]:
        """Return each card's value for ``seat``'s player by heuristic playouts.

        Measured as the solver measures, up to a constant of the deal: Quinto, the
        side's hand points minus the other side's; Quintus, the quintus's points (for
        him) or their negative (for the four others).
        """
        out: dict[Action, float] = {}
        for c in cards:
            w = world.clone()
            w.apply_action(c, seat)
            playout(w, rng)
            out[c] = float(game_of(w).solver_class.outcome(w, seat))
        return out

    # ----------------------------------------------------------------- Quinto

    def _double(self, view: BotView, main: tuple[Action, ...]) -> Action:
        """Double or redouble when simulations give this side more tricks than the other."""
        deadline, samples = self._limits(view)
        side = view.seat & 1
        diff = 0.0
        n = 0
        while n < min(samples, 60) and (n == 0 or cpu_clock() < deadline):
            world = view.sample()
            while world.phase == Phase.DOUBLING:  # the rest of the doubling round: passes
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

    def _simulate(
        self,
        view: BotView,
        trump: int,
        nil: str,
        contract: int | None,
        n: int,
        relative: bool = False,
    ) -> list[float]:
        """Return the quintus's points in ``n`` sampled deals played out by the heuristic.

        ``relative``: his points less the mean of the four others' (each team member
        scores his team's points), what he plays for in the base game's ledger: a failed
        nil costs him the teams' bonus, which his own points do not show.
        """
        seat = view.seat
        out = []
        end, _ = self._limits(view)
        # Each simulated option gets a sixth of the budget (a samples-only budget: none).
        now = cpu_clock()
        deadline = now + (end - now) / 6
        for i in range(n):
            if i and cpu_clock() > deadline:
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
            qp, ta, tb = s.points()
            out.append(qp - (ta + tb) / 2 if relative else float(qp))
        return out

    def _trump_values(self, view: BotView, contract: int | None) -> list[float]:
        values = []
        for t in range(5):
            pts = self._simulate(view, t, "none", contract, 12, relative=contract is None)
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
            pts = self._simulate(view, trump, kind, contract, 10, relative=contract is None)
            if contract is None:
                scores[a] = sum(pts) / len(pts)
            else:
                scores[a] = sum(1 for p in pts if p >= contract) / len(pts)
        return max(main, key=lambda a: (scores[a], a != NIL_OPEN, -a))


__all__ = ["NODES_PER_CPU_SECOND", "PimcBot", "QuintoState", "playout"]
