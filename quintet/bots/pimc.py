"""The ``pimc`` level: perfect-information Monte Carlo.

For a card play, the bot deals the cards it cannot see again many times, consistently
with everything it has seen (:meth:`~quintet.bots.base.BotView.sample`: voids, cards
played, the open-nil hand, the quintus's all-trump first lead), values every legal card
in each deal, and plays the card of best average value. Each deal is chosen among
``candidates`` consistent ones by how likely it makes the other players' decisions so
far under a soft model of them (inference: :mod:`quintet.bots.inference`).

In each deal, from any trick, every card is valued exactly by the double-dummy solver
(``move_values``) within a node limit for that deal: the CPU time left in the budget,
converted at :data:`NODES_PER_CPU_SECOND`, shared among at least :data:`MIN_SAMPLES`
deals still to come (so that early deals cannot eat the whole budget), and never below
:data:`MIN_NODES`. Only a deal the solver cannot answer within its limit
(:class:`~quintet.solver.SolverLimitError`) is valued instead by playing it out with
the ``heuristic`` policy for every seat after each card (the same perfect-information
deal, a cheaper and rougher evaluator); once the solver has given up on
:data:`GIVE_UP` deals of a decision and solved none, the rest of its deals are played
out without trying (early in a hand, with a small budget, the tries would cost most of
it and all fail). A played-out deal is measured as the solver
measures (Quinto: the side's points minus the other side's; Quintus: the quintus's
points, which the four others minimise), so exact and played-out deals add up. The
first deal is always valued, whatever the budget, so a decision always returns;
``last_samples``, ``last_exact`` and ``last_fallbacks`` say how the last card decision
went, ``counts`` adds them up.

Under a contract (the Quintus bidding variant) the quintus gains or loses exactly the
bid, however far he passes it: a deal is worth +1 to the deciding seat if the card
reaches its side's goal (the contract made for the quintus, failed for the others) and
-1 if not. The solver answers that by one null-window search per card
(``seat_reaches``), much cheaper than the points (more deals are solved early in the
hand); a played-out deal is thresholded the same way, plus :data:`CONTRACT_TIE` per
point; cards that tie go to the heuristic's choice. With ``split`` a team player
values each card by his settlement instead (the solver's made or failed, the split of
the bid by the teams' card points of a playout).

In the Quintus base game each team member scores his own team's card points, not the
other team's: with ``team`` (on by default) a team player values each card by them, the
deal played out after the card by the heuristic for the split between the two teams and
the solver's value for the quintus's part (:meth:`PimcBot._team_values`); while a nil is
still to break, the teams' bonus (alike for both) is what counts and the quintus's
points alone are weighed, as the solver measures.

``exact_tricks`` (off by default) restores the old rule: the solver only once at most
that many tricks are left, playouts before.

The budget is CPU seconds of the deciding thread (:func:`~quintet.bots.base.cpu_clock`;
the solver's numba kernels run in that thread), checked between deals.

Doubling, bids, trump and nil come from simulated outcomes (heuristic playouts of
sampled deals, not the solver, within the same CPU budget): Quinto passes, doubles or
redoubles by the value each gives in the sampled deals, the rest of the doubling round
answered as the heuristic would and a game won or lost in the hand counted (the risk of
the target: :meth:`PimcBot.doubling_values`). A Quintus bidder plays sampled deals out
under each trump and bids the lowest bid when his mean points clear it by
:data:`BID_MARGIN`; the quintus names trump and declares nil by the points
(or, with a contract, the chance to make it) the simulations give. It always melds;
signals are given and read as by the heuristic.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
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
from quintet.bots.alphamu import AlphaMu, OutOfTime
from quintet.bots.base import BotView, cpu_clock, switch
from quintet.bots.heuristic import HeuristicBot, quinto_strength, signal_strength
from quintet.bots.inference import EPSILON, MEMORY, likelihood, pick
from quintet.cards import card_display, suit_cards
from quintet.game import Phase
from quintet.games import GAMES, game_of
from quintet.quinto import QuintoState
from quintet.quintus import QuintusState, teams_of
from quintet.quintus.rules import NIL_BONUS, settle
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
#: What a Quinto game won (or lost) in the hand is worth to the doubling, in points: the
#: risk of the target (half a rubber's bonus).
GAME_VALUE: Final = 50.0
#: Deals drawn per sample, one kept by how likely it makes the others' decisions
#: (:mod:`quintet.bots.inference`); 1 samples uniformly.
CANDIDATES: Final = 4
#: After this many deals of a decision the solver gave up on, none solved, the rest
#: are played out (early in a hand the solver cannot finish within a share of a small
#: budget, and trying costs most of the budget).
GIVE_UP: Final = 2
#: The simulated points a Quintus bid must clear (see ``PimcBot._bid``): the heuristic's
#: playouts overrate the quintus by some 12 points, and a bid they clear by less than 16
#: is made less than half the time (``bench/bid_calibration.py``, docs/bots.md).
#: pimc-2026 bids with 4.
BID_MARGIN: Final = 16
#: The most deals a Quintus bid, trump or nil choice plays out (each option in each
#: deal); fewer when its share of the budget runs out first.
OPTION_DEALS: Final = 200
#: A Quintus choice simulated: (trump: 0-3 a suit, 4 sans atout; nil kind; contract).
Option = tuple[int, str, int | None]
#: Whether a Quintus base-game team player values a card by his own team's card points
#: (his score) rather than by the quintus's alone (``team``; docs/bots.md has the runs).
TEAM: Final = 1
#: Whether a Quintus team player under a contract (the bidding game) values a card by
#: his own settlement (the contract made or failed, the bid split by the teams' card
#: points) rather than by the contract alone (``split``; docs/bots.md has the runs).
SPLIT: Final = 1
#: Deals αμ searches together (``alphamu``, ``worlds``), before duplicates merge.
ALPHAMU_WORLDS: Final = 16
#: The share of a decision's budget αμ may take (PIMC decides in the rest if it cannot).
ALPHAMU_SHARE: Final = 0.6
#: Tricks the Quinto dummy game's doubling playouts credit the lone player with (and
#: debit his opponents): the heuristic plays his two hands some half a trick worse than
#: pimc does (``bench/doubling_calibration.py``); measured by
#: ``bench/doubling_duplicate.py`` (docs/bots.md, "Doubling").
LONE_CREDIT: Final = 0.5
#: A card decision with at least this many CPU seconds is long: the game's
#: ``playout_solve_tricks_long`` applies (measured at 1 s; at 0.1 s the default's).
LONG_DECISION: Final = 0.5
#: The node limit of each solve of ``solve_tricks`` tricks left (a few thousand nodes).
HYBRID_NODES: Final = 200_000
#: The smallest node limit of a deal (the last tricks solve in far fewer nodes).
MIN_NODES: Final = 20_000
#: With a contract (the Quintus bidding variant) a deal is worth +1 to the side whose
#: goal it reaches (made for the quintus, failed for the four others) and -1 to the
#: other; a played-out deal adds this much per point of the solver's measure, to break
#: ties between cards that win the contract equally often (too small to outweigh one).
CONTRACT_TIE: Final = 1e-3

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


def quintus_start(
    world: Any, quintus: int, trump: int, nil: str, contract: int | None
) -> QuintusState:
    """Return the first trick of a sampled Quintus deal with ``quintus`` to lead under
    ``trump`` (0-3 a suit, 4 sans atout), ``nil`` and ``contract``: what the trump, nil
    and bid simulations play out."""
    return QuintusState.from_position(
        world.hands,
        quintus,
        quintus,
        "SCDH"[trump] if trump < 4 else "NT",
        world.rules,
        nil=nil,
        contract=contract,
        first_trick=True,
    )


def _size(world: Any) -> int:
    """Return the tricks still to be played in ``world``'s hand, the current one included
    (the positions of one trick are about as hard to solve as each other)."""
    seats = len(world.hands)
    cards: int = sum(h.bit_count() for h in world.hands)
    return (cards + seats - 1) // seats


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


def _final_multiplier(world: Any, action: Action) -> int:
    """Return the trick-value multiplier after ``action`` in ``world``'s doubling round,
    the seats still to act answering as the heuristic would with their hands there."""
    w = world.clone()
    w.apply_action(action)
    while w.phase == Phase.DOUBLING:
        seat = w.current_player()
        legal = w.legal_actions()
        strength = quinto_strength(w.hands[seat])
        if REDOUBLE in legal and strength >= 4.0:
            w.apply_action(REDOUBLE)
        elif DOUBLE in legal and strength >= 4.5:
            w.apply_action(DOUBLE)
        else:
            w.apply_action(PASS)
    return int(w.multiplier)


def _doubled_value(
    world: Any, side: int, multiplier: int, game_value: float, lone_credit: float = 0.0
) -> float:
    """Return ``side``'s value of a hand played out at trick value 1, rescored at ``multiplier``.

    Its hand points less the other side's with the trick points (if they were added)
    multiplied, plus or minus ``game_value`` when a side reaches the target in the hand.
    ``lone_credit`` (tricks, the dummy game) moves that many tricks from the partners'
    count to the lone player's before the rescoring (see ``PimcBot``).
    """
    points = world.hand_points()
    score = list(world.start_score)
    target = world.rules.target
    winner = world.game_winner
    mine = [0.0, 0.0]
    credit = [0.0, 0.0]
    if lone_credit and world.lone_seat is not None:
        credit[world.lone_seat & 1] = lone_credit
        credit[1 - (world.lone_seat & 1)] = -lone_credit
    counted = world.trick_points_counted
    for s in (0, 1):
        tricks = 5 * world.tricks_won[s] if counted else 0
        mine[s] = points[s] + (multiplier - 1) * tricks
        if counted:
            mine[s] += 5 * multiplier * credit[s]
        score[s] += mine[s]
    if world.trick_points_counted:
        a, b = score
        winner = None if not (a >= target or b >= target) or a == b else (0 if a > b else 1)
    value = mine[side] - mine[1 - side]
    if winner is not None:
        value += game_value if winner == side else -game_value
    return value


_ACTION_WORD: Final = {PASS: "passing", DOUBLE: "doubling", REDOUBLE: "redoubling"}


def _card_reason(
    view: BotView, best: Action, totals: dict[Action, float], n: int, exact: int
) -> str:
    """Return why ``best`` was played: its mean value, and how far ahead of the next card."""
    world = view.state()
    words = game_of(world).solver_class.value_words(world, view.seat)
    mean = totals[best] / n
    if exact == n:
        how = f"{n} deals that fit what you have seen, each solved double-dummy"
    elif exact == 0:
        how = f"{n} deals that fit what you have seen, each played out"
    else:
        how = f"{n} deals that fit what you have seen ({exact} solved double-dummy)"
    others = [c for c in totals if c != best]
    if not others:
        return f"{card_display(best)} averages {mean:+.1f} ({words}) over {how}"
    second = max(others, key=lambda c: totals[c])
    gap = mean - totals[second] / n
    return (
        f"{card_display(best)} averages {mean:+.1f} ({words}) over {how}, "
        f"{gap:.1f} more than {card_display(second)}"
    )


def _played_out(world: Any, seat: int, card: Action, rng: random.Random) -> Any:
    """Return a copy of ``world`` with ``seat``'s ``card`` played and the rest of the hand
    played out by the heuristic."""
    w = world.clone()
    w.apply_action(card, seat)
    playout(w, rng)
    return w


def _team_player(view: BotView) -> bool:
    """Return whether ``view``'s seat plays in a team against a lone quintus."""
    quintus = getattr(view.obs, "quintus", None)
    teams = GAMES[view.obs.game].teams_of(quintus)
    return teams is not None and view.seat != quintus


def _team_reason(best: Action, totals: dict[Action, float], n: int, exact: int) -> str:
    """Return why ``best`` was played by a team player valuing his team's points."""
    how = f"{n} deals that fit what you have seen"
    if exact:
        how += f" ({exact} with the quintus's points solved double-dummy)"
    others = [c for c in totals if c != best]
    text = f"{card_display(best)} brings your team the most points on average over {how}"
    if not others:
        return text
    second = max(others, key=lambda c: totals[c])
    gap = (totals[best] - totals[second]) / n
    return f"{text}, {gap:.1f} more than {card_display(second)}"


def _contract(obs: Any) -> int | None:
    """Return the contract a card play is for (the Quintus bidding variant), else None."""
    contract = getattr(obs, "contract", None)
    return None if contract is None else int(contract)


def _contract_outcome(world: Any, seat: int, contract: int) -> float:
    """Return +1 if ``world``'s finished hand reached ``seat``'s goal under
    ``contract`` (made for the quintus, failed for the others), else -1."""
    made = world.points()[0] >= contract
    return 1.0 if made == (seat == world.quintus) else -1.0


def _break_tie(
    view: BotView, cards: tuple[Action, ...], totals: dict[Action, float], best: Action
) -> Action:
    """Return the heuristic's card when it is among those tied with ``best``, else ``best``.

    Under a contract many cards often win it in exactly as many deals (every one, or
    none): the solver says nothing more about them, the heuristic's point play does.
    """
    tied = [c for c in cards if totals[c] >= totals[best] - 1e-9]
    if len(tied) < 2:
        return best
    choice = _HEURISTIC.act(view)
    return choice if choice in tied else best


def _contract_reason(
    view: BotView,
    best: Action,
    totals: dict[Action, float],
    n: int,
    exact: int,
    split: bool = False,
) -> str:
    """Return why ``best`` was played under a contract: how often it wins it (or, by
    the settlement, what it gains)."""
    how = f"{n} deals that fit what you have seen"
    if exact:
        how += f" ({exact} solved double-dummy)"
    if split:
        return f"{card_display(best)} averages {totals[best] / n:+.1f} game points over {how}"
    quintus = view.seat == getattr(view.obs, "quintus", None)
    goal = "makes the contract" if quintus else "defeats the contract"
    share = (totals[best] / n + 1) / 2
    return f"{card_display(best)} {goal} in about {100 * share:.0f}% of {how}"


class PimcBot:
    """Perfect-information Monte Carlo (see the module docstring).

    ``seconds`` (CPU seconds, default 1.0) and ``samples`` (default 200) bound the work
    per decision; the view's budget overrides them when it has its own. With samples and
    no seconds anywhere the choice depends only on the view: each deal's node limit is
    then fixed (:data:`DEFAULT_SECONDS` shared among ``min(samples, MIN_SAMPLES)``
    deals). ``max_nodes`` fixes the node limit per deal instead. ``exact_tricks``, when
    given, uses the solver only with at most that many tricks left (playouts before).
    ``solve_tricks`` (default: the game's ``playout_solve_tricks``, or in a decision of
    at least :data:`LONG_DECISION` CPU seconds its variant's
    ``playout_solve_tricks_long``; 0: never): a deal the solver gives up on is played
    out until that many tricks are left, then solved.
    ``game_value`` (points, default :data:`GAME_VALUE`) is what the Quinto doubling
    counts for a game won or lost in the hand. ``candidates`` (default
    :data:`CANDIDATES`; 1: none), ``epsilon`` and ``memory`` (tricks before the current
    one whose cards are weighed; -1: all) set the inference of each sample.
    ``signals`` 0 never signals (the partner's signals are still read). ``give_up``
    (default :data:`GIVE_UP`): once that many deals of a decision were given up by the
    solver and none solved, the rest are played out. ``contract`` 0 plays a contract
    for the points, as the base game (1, the default: for the contract); ``split`` (1,
    the default; 0: off) makes a team player value a card by his settlement under a
    contract instead of by the contract alone; ``team`` (1,
    the default; 0: off) makes a base-game team player value a card by his own team's
    card points instead of by the quintus's alone; ``bid_margin`` (default
    :data:`BID_MARGIN`) is what a Quintus bid must clear; ``nil_bid`` (a percentage, 0:
    off) also bids a contract a nil would make (at most the nil's bonus) when it is made
    in at least that share of the simulated deals. ``alphamu`` (tricks, 0: off) plays
    the last that many tricks by αμ (:mod:`quintet.bots.alphamu`) over ``worlds`` deals
    instead (the same inference draws them; duplicates are merged into weights).
    ``lone_credit`` (tricks, default :data:`LONE_CREDIT`; 0: none; the Quinto dummy
    game) credits the lone player with that many more tricks, and his opponents with as
    many fewer, in the doubling's playouts: the heuristic plays his two hands worse
    than pimc does (``bench/doubling_calibration.py``: about half a trick), so that
    without it he doubles too rarely and they too often.
    """

    name = "pimc"

    def __init__(
        self,
        seconds: float | None = None,
        samples: int | None = None,
        exact_tricks: int | None = None,
        tt_bits: int = 18,
        max_nodes: int | None = None,
        game_value: float = GAME_VALUE,
        candidates: int = CANDIDATES,
        epsilon: float = EPSILON,
        signals: int = 1,
        give_up: int = GIVE_UP,
        memory: int = MEMORY,
        solve_tricks: int | None = None,
        contract: int = 1,
        split: int = SPLIT,
        team: int = TEAM,
        bid_margin: int = BID_MARGIN,
        nil_bid: int = 0,
        alphamu: int = 0,
        worlds: int = ALPHAMU_WORLDS,
        lone_credit: float = LONE_CREDIT,
    ) -> None:
        if max_nodes is not None and max_nodes < 1:
            raise ValueError(f"max_nodes must be at least 1, not {max_nodes}")
        self.seconds = seconds
        self.samples = samples
        self.exact_tricks = exact_tricks
        self.max_nodes = max_nodes
        self.game_value = float(game_value)
        if candidates < 1:
            raise ValueError(f"candidates must be at least 1, not {candidates}")
        if not 0.0 < epsilon <= 1.0:
            raise ValueError(f"epsilon must be in (0, 1], not {epsilon}")
        self.candidates = int(candidates)
        self.epsilon = float(epsilon)
        self.signals = bool(signals)
        self.give_up = int(give_up)
        self.memory = None if memory < 0 else int(memory)
        if solve_tricks is not None and solve_tricks < 0:
            raise ValueError(f"solve_tricks must be at least 0, not {solve_tricks}")
        self.solve_tricks = solve_tricks
        self.contract = bool(contract)
        self.split = switch("split", split)
        self.team = switch("team", team)
        self.bid_margin = int(bid_margin)
        if not 0 <= nil_bid <= 100:
            raise ValueError(f"nil_bid must be a percentage from 0 to 100, not {nil_bid}")
        self.nil_bid = int(nil_bid)
        if alphamu < 0:
            raise ValueError(f"alphamu must be at least 0, not {alphamu}")
        if worlds < 1:
            raise ValueError(f"worlds must be at least 1, not {worlds}")
        self.alphamu = int(alphamu)
        self.worlds = int(worlds)
        if not -13 <= lone_credit <= 13:
            raise ValueError(f"lone_credit must be from -13 to 13 tricks, not {lone_credit}")
        self.lone_credit = float(lone_credit)
        self._tt_bits = tt_bits
        self._solvers: dict[str, QuintoSolver | QuintusSolver] = {}
        #: Per game and position size (tricks still to play), the largest node limit the
        #: solver gave up with: a deal as large, or larger, with no more nodes is not tried.
        self._gave_up: dict[tuple[str, int], int] = {}
        #: The last card decision: deals valued, of them solved exactly, and given up by
        #: the solver (played out instead); the solver's nodes and CPU seconds (given-up
        #: deals included), and the decision's CPU seconds.
        #: Whether the card decision under way is long (``LONG_DECISION``).
        self._long = False
        self.last_samples = 0
        self.last_exact = 0
        self.last_fallbacks = 0
        self.last_nodes = 0
        self.last_solve_cpu = 0.0
        self.last_cpu = 0.0
        #: Why the last decision was taken, in one sentence (see :meth:`explain`).
        self.last_reason: str | None = None
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
            t = max(range(5), key=lambda t: (values[t], -t))
            what = "points less the others'" if obs.contract is None else "chance to make it"
            self.last_reason = f"the best simulated {what}: {values[t]:.2f}"
            return TRUMP_BASE + t
        if obs.phase == "nil":
            return self._nil(view, main, obs)
        return main[0]

    def explain(self, view: BotView) -> tuple[Action, str]:
        """Return :meth:`act`'s choice and why, in one sentence (a hint's reason)."""
        self.last_reason = None
        main = view.main_actions()
        if len(main) == 1:
            return main[0], "the only legal choice"
        a = self.act(view)
        if self.last_reason is None:  # a meld: always taken
            return _HEURISTIC.explain(view)[0], "a premium melded counts for you"
        return a, self.last_reason

    def signal(self, view: BotView) -> Action | None:
        """Return the heuristic's signal (given and read with the rulebook's meaning);
        None always when ``signals`` is 0 (for the ladder: does signalling help?)."""
        if not self.signals:
            return None
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
        # A samples-only budget (no deadline) keeps the default's hand-over.
        self._long = math.isfinite(deadline) and deadline - t0 >= LONG_DECISION
        if self.alphamu:
            left = game_of(view.obs).num_tricks - view.obs.tricks_played
            if left <= self.alphamu:
                share = t0 + ALPHAMU_SHARE * (deadline - t0)
                chosen = self._alphamu_play(view, cards, share)
                if chosen is not None:
                    return chosen
        contract = _contract(view.obs) if self.contract else None
        # A team player's game points also hang on his team's card points against the
        # other team's (the split of the bid): he values each card by the settlement.
        split = (
            contract is not None and self.split and view.seat != getattr(view.obs, "quintus", None)
        )
        # With no contract (the base game) his score is his team's card points: with
        # ``team`` he values each card by them (the other team's are not his), unless
        # a nil is still to break (the teams' bonus, alike for both, is what counts).
        own = contract is None and self.team and _team_player(view)
        if own:
            shown = view.state()
            own = not (shown.nil > 0 and not shown.nil_failed)
        totals = dict.fromkeys(cards, 0.0)
        earlier = dict(self._gave_up)
        n = exact = fallbacks = nodes = 0
        solve_cpu = 0.0
        while n < samples and (n == 0 or cpu_clock() < deadline):
            world = self._sample(view)
            values = None
            # The solver gives up on the first deals: it will on the rest (the budget's
            # node limits barely change), so they are played out, many more of them.
            hopeless = not exact and fallbacks >= self.give_up
            if not hopeless and self._solvable(world):
                limit = self._node_limit(world.game, deadline, samples, n)
                size = _size(world)
                if not exact and self._known_hopeless(earlier, world.game, size, limit):
                    hopeless = True
            if not hopeless and self._solvable(world):
                solver = self._solver(world)
                solver.max_nodes = limit
                t = cpu_clock()
                try:
                    if contract is not None and isinstance(solver, QuintusSolver):
                        values = self._contract_values(solver, world, view.seat, cards)
                    else:
                        values = self._exact_values(solver, world, view.seat, cards)
                    exact += 1
                except SolverLimitError:
                    fallbacks += 1
                    key = (world.game, size)
                    self._gave_up[key] = max(limit, self._gave_up.get(key, 0))
                solve_cpu += cpu_clock() - t
                nodes += solver.nodes
            if split:
                made = None if values is None else {c: values[c] < 0 for c in cards}
                values = self._settled_values(world, view.seat, cards, view.rng, made)
            elif own:
                values = self._team_values(world, view.seat, cards, view.rng, values)
            if values is None and self._solve_tricks(world):
                values = self._hybrid_values(world, view.seat, cards, view.rng, contract)
            if values is None:
                values = self._playout_values(world, view.seat, cards, view.rng, contract)
            for c in cards:
                totals[c] += values[c]
            n += 1
        self.last_samples, self.last_exact, self.last_fallbacks = n, exact, fallbacks
        self.last_nodes, self.last_solve_cpu = nodes, solve_cpu
        self.last_cpu = cpu_clock() - t0
        self.counts.update(decisions=1, samples=n, exact=exact, fallbacks=fallbacks)
        best = max(cards, key=lambda c: (totals[c], -c))
        if contract is not None:
            best = _break_tie(view, cards, totals, best)
            self.last_reason = _contract_reason(view, best, totals, n, exact, split)
        elif own:
            self.last_reason = _team_reason(best, totals, n, exact)
        else:
            self.last_reason = _card_reason(view, best, totals, n, exact)
        return best

    def _alphamu_play(
        self, view: BotView, cards: tuple[Action, ...], deadline: float
    ) -> Action | None:
        """Return the card αμ chooses over ``worlds`` sampled deals, or None when it cannot
        by ``deadline`` (a CPU clock value: the deals are drawn in the first third of the
        time left, the search must end by it) or the solver gave up on one of its
        one-deal nodes: PIMC then decides in the rest of the budget."""
        t0 = cpu_clock()
        contract = _contract(view.obs) if self.contract else None
        merged: dict[tuple[Any, ...], list[Any]] = {}
        draw_by = t0 + (deadline - t0) / 3
        for i in range(self.worlds):
            if i >= 2 and cpu_clock() > draw_by:
                break
            w = self._sample(view)
            key = (tuple(w.hands), getattr(w, "cachette", None))
            if key in merged:
                merged[key][1] += 1
            else:
                merged[key] = [w, 1]
        worlds = [w for w, _ in merged.values()]
        weights = [float(k) for _, k in merged.values()]
        info = game_of(worlds[0])
        solver = self._solver(worlds[0])
        solver.max_nodes = HYBRID_NODES
        seat = view.seat
        measure = info.solver_class

        def leaf(w: Any) -> float:
            if contract is not None and isinstance(solver, QuintusSolver):
                return self._hybrid_contract(solver, w, seat)
            return float(measure.so_far(w, seat) + solver.seat_value(w, seat))

        def end(w: Any) -> float:
            value = float(measure.outcome(w, seat))
            if contract is not None:
                return _contract_outcome(w, seat, contract) + CONTRACT_TIE * value
            return value

        search = AlphaMu(
            worlds, weights, seat, leaf, end, measure.sign, deadline=deadline, clock=cpu_clock
        )
        try:
            values = search.card_values(cards)
        except (SolverLimitError, OutOfTime):
            self.counts.update(alphamu_abandoned=1)
            return None
        n = int(sum(weights))
        totals = {c: v * n for c, v in values.items()}
        best = max(cards, key=lambda c: (totals[c], -c))
        if contract is not None:
            best = _break_tie(view, cards, totals, best)
        self.last_samples, self.last_exact, self.last_fallbacks = n, n, 0
        self.last_nodes, self.last_solve_cpu = search.nodes, 0.0
        self.last_cpu = cpu_clock() - t0
        self.counts.update(decisions=1, samples=n, exact=n, alphamu=1)
        mean = values[best]
        self.last_reason = (
            f"{card_display(best)} is worth {mean:+.2f} on average over {n} deals that fit "
            f"what you have seen, searched together (αμ) so that your own later cards "
            f"are the same in deals you cannot tell apart"
        )
        return best

    @staticmethod
    def _known_hopeless(
        earlier: dict[tuple[str, int], int], game: str, size: int, limit: int
    ) -> bool:
        """Return whether the solver already gave up, in an earlier decision, on a
        position of ``game`` no larger than ``size`` tricks with at least ``limit`` nodes
        (so this one would fail too: the tries would only spend the budget). ``earlier``
        is what the bot's earlier decisions found (this one's own tries follow
        ``give_up``)."""
        return any(g == game and s <= size and lim >= limit for (g, s), lim in earlier.items())

    def _sample(self, view: BotView) -> Any:
        """Return a sample of the unseen cards, by inference from the others' decisions.

        With ``candidates`` above 1, that many consistent deals are drawn and one is
        kept in proportion to how likely it makes what the other players did
        (:mod:`quintet.bots.inference`, the soft heuristic with ``epsilon``).
        """
        if self.candidates <= 1 or not view.obs.history:
            return self._sample_signals(view)
        worlds = [self._sample_signals(view) for _ in range(self.candidates)]
        weights = [likelihood(w, view.seat, self.epsilon, self.memory) for w in worlds]
        return pick(worlds, weights, view.rng)

    def _sample_signals(self, view: BotView, tries: int = 8) -> Any:
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
    def _contract_values(
        solver: QuintusSolver, world: Any, seat: int, cards: tuple[Action, ...]
    ) -> dict[Action, float]:
        """Return each card's double-dummy value for ``seat``'s player under a contract:
        +1 if it reaches his side's goal (made for the quintus, failed for the others),
        -1 if not (or raise).

        Raises:
            SolverLimitError: the deal needs more than the solver's ``max_nodes``.
        """
        reaches = solver.seat_reaches(world, seat)
        return {c: 1.0 if reaches[c] else -1.0 for c in cards}

    @staticmethod
    def _playout_values(
        world: Any,
        seat: int,
        cards: tuple[Action, ...],
        rng: random.Random,
        contract: int | None = None,
    ) -> dict[Action, float]:
        """Return each card's value for ``seat``'s player by heuristic playouts.

        Measured as the solver measures, up to a constant of the deal: Quinto, the
        side's hand points minus the other side's; Quintus, the quintus's points (for
        him) or their negative (for the four others). With a ``contract``, as
        :meth:`_contract_values` measures (+1 or -1 by the contract), plus
        :data:`CONTRACT_TIE` per point of that measure.
        """
        out: dict[Action, float] = {}
        for c in cards:
            w = _played_out(world, seat, c, rng)
            value = float(game_of(w).solver_class.outcome(w, seat))
            if contract is not None:
                value = _contract_outcome(w, seat, contract) + CONTRACT_TIE * value
            out[c] = value
        return out

    @staticmethod
    def _settled_values(
        world: Any,
        seat: int,
        cards: tuple[Action, ...],
        rng: random.Random,
        made: dict[Action, bool] | None,
    ) -> dict[Action, float]:
        """Return each card's game points for the team player ``seat`` under the
        contract: the settlement of the deal played out by the heuristic after it, the
        contract made or failed as ``made`` says (the solver's answer) when given, else
        as the playout went.
        """
        out: dict[Action, float] = {}
        for c in cards:
            w = _played_out(world, seat, c, rng)
            qp, ta, tb = w.points()
            bid = int(w.contract)
            ok = qp >= bid if made is None else made[c]
            out[c] = float(settle(bid, ok, (ta, tb), teams_of(w.quintus), w.quintus)[seat])
        return out

    @staticmethod
    def _team_values(
        world: Any,
        seat: int,
        cards: tuple[Action, ...],
        rng: random.Random,
        exact: dict[Action, float] | None,
    ) -> dict[Action, float]:
        """Return each card's value for the team player ``seat`` in the base game: his
        team's card points, which are his score (up to a constant of the deal).

        The deal is played out by the heuristic after each card, which says how the
        points went between the quintus, his team and the other. With ``exact`` (the
        solver's values of the cards for him: minus the quintus's points to come,
        double-dummy) the quintus's part is the solver's: what the playout gave him
        beyond it goes back to the teams, a quarter of it to this player's team (a
        J, Q or K the quintus does not take is +10 less for him and +5 for one of the
        two teams). Under a nil not yet broken the teams' bonus, the same for both
        teams, is what counts: the quintus's points alone, as without ``team``.
        """
        mine = 0 if seat in teams_of(world.quintus)[0] else 1
        if world.nil > 0 and not world.nil_failed:
            # A nil still to break: the teams' bonus (both teams alike) is what counts,
            # as the quintus's points measure it: the solver's values as they are.
            return exact if exact is not None else PimcBot._playout_values(world, seat, cards, rng)
        out: dict[Action, float] = {}
        for c in cards:
            qp, ta, tb = _played_out(world, seat, c, rng).points()
            value = float(tb if mine else ta)
            if exact is not None:
                value += (qp + exact[c]) / 4
            out[c] = value
        return out

    def _solve_tricks(self, world: Any) -> int:
        """Return the tricks left at which a playout hands over to the solver (0: never):
        ``solve_tricks``, else the game's ``playout_solve_tricks`` (in a long decision,
        its variant's ``playout_solve_tricks_long`` when it has one)."""
        if self.solve_tricks is not None:
            return self.solve_tricks
        info = game_of(world)
        if self._long:
            long = dict(info.playout_solve_tricks_long).get(world.rules.variant)
            if long is not None:
                return long
        return info.playout_solve_tricks or 0

    def _hybrid_values(
        self,
        world: Any,
        seat: int,
        cards: tuple[Action, ...],
        rng: random.Random,
        contract: int | None = None,
    ) -> dict[Action, float] | None:
        """Return each card's value for ``seat``'s player: the deal played out by the
        heuristic after the card until ``solve_tricks`` tricks are left, then the
        solver's exact value of the rest added to what the hand gave so far (the
        solver's ``so_far``); None when the solver gives up on one of them.

        Measured as :meth:`_exact_values` and :meth:`_playout_values` measure: the
        outcome of the hand for ``seat``, up to a constant of the deal; with a
        ``contract``, +1 or -1 by whether the solver finds the rest reaching
        ``seat``'s goal (as :meth:`_contract_values`).
        """
        info = game_of(world)
        solver = self._solver(world)
        solver.max_nodes = HYBRID_NODES
        out: dict[Action, float] = {}
        left = self._solve_tricks(world)
        for c in cards:
            w = world.clone()
            w.apply_action(c, seat)
            while not w.is_terminal():
                s = w.current_player()
                view = BotView.inside(w, s, rng)
                main = view.main_actions()
                if (
                    not w.trick
                    and info.num_tricks - w.tricks_played <= left
                    and all(is_play(a) for a in main)
                ):
                    break
                a = main[0] if len(main) == 1 else _HEURISTIC.act(view)
                if is_signal(a):
                    a = main[0]
                w.apply_action(a, s)
            try:
                if contract is not None and isinstance(solver, QuintusSolver):
                    out[c] = self._hybrid_contract(solver, w, seat)
                    continue
                value = solver.seat_value(w, seat) if not w.is_terminal() else 0
            except SolverLimitError:
                return None
            out[c] = float(info.solver_class.so_far(w, seat) + value)
        return out

    @staticmethod
    def _hybrid_contract(solver: QuintusSolver, world: Any, seat: int) -> float:
        """Return +1 if the rest of ``world``'s hand, solved, reaches ``seat``'s goal
        under the contract, else -1 (or raise).

        Raises:
            SolverLimitError: the deal needs more than the solver's ``max_nodes``.
        """
        target = solver.target(world)
        if target is None:
            raise ValueError("a contract value needs a contract")
        made = solver.reaches(world, target)
        return 1.0 if made == (seat == world.quintus) else -1.0

    # ----------------------------------------------------------------- Quinto

    def _double(self, view: BotView, main: tuple[Action, ...]) -> Action:
        """Pass, double or redouble by the simulated value of each (see :meth:`doubling_values`)."""
        values = self.doubling_values(view, main)
        best = max(main, key=lambda a: (values[a], a == PASS))
        others = ", ".join(f"{_ACTION_WORD[a]} {values[a]:+.1f}" for a in main if a != best)
        self.last_reason = (
            f"{_ACTION_WORD[best]} is worth {values[best]:+.1f} points for your side on "
            f"average over the deals played out ({others}), the game's target counted"
        )
        return best

    def doubling_values(self, view: BotView, main: tuple[Action, ...]) -> dict[Action, float]:
        """Return the mean value for this side of each doubling action over sampled deals.

        Each sampled deal is played out once by the heuristic (its play does not depend
        on the trick value), then scored at every trick value the doubling can end on:
        for each action, the seats still to act in the doubling round answer as the
        heuristic would with the hands of that deal (its strength rule), which gives the
        final trick value. A deal's value is this side's hand points minus the other's
        at that trick value (none when quints end the game before the trick points are
        added), plus ``game_value`` for a game won in the hand and minus it for a game
        lost: the risk of the target (a doubled or redoubled hand can carry a side past
        it, for or against us). The same deals value every action.
        """
        deadline, samples = self._limits(view)
        side = view.seat & 1
        totals = dict.fromkeys(main, 0.0)
        n = 0
        while n < min(samples, 400) and (n == 0 or cpu_clock() < deadline):
            world = self._sample(view)
            finals = {a: _final_multiplier(world, a) for a in main}
            out = world.clone()
            while out.phase == Phase.DOUBLING:  # played out at the trick value 1
                out.apply_action(PASS)
            playout(out, view.rng)
            for a in main:
                totals[a] += _doubled_value(out, side, finals[a], self.game_value, self.lone_credit)
            n += 1
        return {a: totals[a] / n for a in main}

    # ---------------------------------------------------------------- Quintus

    def _simulate(
        self,
        view: BotView,
        options: Sequence[Option],
        relative: bool = False,
        share: float = 5 / 6,
    ) -> list[list[float]]:
        """Return the quintus's points under each of ``options`` (trump, nil, contract)
        in the same sampled deals played out by the heuristic.

        Every option is played in every deal, so their means differ by the options, not
        by the deals (the best of several noisy means would overrate it). Deals are
        drawn until ``share`` of the budget is spent (at least one) or the budget's
        samples are (a samples-only budget: that many deals), :data:`OPTION_DEALS` at
        most. ``relative``: his points less the mean of the four others' (each team
        member scores his team's points), what he plays for in the base game's ledger:
        a failed nil costs him the teams' bonus, which his own points do not show.
        """
        seat = view.seat
        out: list[list[float]] = [[] for _ in options]
        end, samples = self._limits(view)
        now = cpu_clock()
        deadline = now + (end - now) * share
        for i in range(min(samples, OPTION_DEALS)):
            if i and cpu_clock() > deadline:
                break
            world = self._sample(view)
            for pts, (trump, nil, contract) in zip(out, options, strict=True):
                s = quintus_start(world, seat, trump, nil, contract)
                playout(s, view.rng)
                qp, ta, tb = s.points()
                pts.append(qp - (ta + tb) / 2 if relative else float(qp))
        return out

    def _trump_values(self, view: BotView, contract: int | None) -> list[float]:
        """Return the value of each trump (0-3 a suit, 4 sans atout): without a contract
        the quintus's simulated points less the others' mean, with one the chance to
        make it (a nil that can make it counts for its trump)."""
        nils = self._nil_options(view, contract) if contract is not None else []
        options = [(t, "none", contract) for t in range(5)]
        options += [(t, kind, contract) for t, kind in nils]
        points = self._simulate(view, options, relative=contract is None)
        values: list[float] = []
        for (trump, _, _), pts in zip(options, points, strict=True):
            if contract is None:
                value = sum(pts) / len(pts)
            else:
                value = sum(1 for p in pts if p >= contract) / len(pts)
            if trump < len(values):  # a nil under this trump
                values[trump] = max(values[trump], value)
            else:
                values.append(value)
        return values

    def _bid(self, view: BotView, main: tuple[Action, ...]) -> Action:
        """Bid the lowest bid when the simulated points clear it by a margin, else pass.

        The quintus's mean points over sampled deals played out by the heuristic, under
        his best trump, must reach the lowest legal bid plus ``bid_margin``
        (:data:`BID_MARGIN`: what the playouts' bias against real defenders measured,
        with the same deals for every trump, as here).
        Bidding the amount of best expected settlement from the same playouts
        (``B (2p - 1)``) was tried and lost: the heuristic's playouts overrate the
        quintus, and jump bids made that error costly (docs/bots.md).
        """
        bids = [a for a in main if is_bid(a)]
        if not bids:
            self.last_reason = "no bid is possible"
            return PASS
        amount = bid_amount(bids[0])
        nils = self._nil_options(view, amount)
        options: list[Option] = [(t, "none", None) for t in range(5)]
        options += [(t, kind, amount) for t, kind in nils]
        points = self._simulate(view, options)
        best = max(sum(p) / len(p) for p in points[:5])
        # The simulated deals are played out by the heuristic, which overrates a quintus:
        # the reason says so, or a hint would pass on a hand "taking" more than the bid.
        if amount <= best - self.bid_margin:
            self.last_reason = (
                f"your hand takes about {best:.0f} points in the simulated deals: enough "
                f"for the lowest bid, {amount}, with the {self.bid_margin} to spare that "
                f"simulations need"
            )
            return bids[0]
        if nils:
            chance, kind = max(
                (sum(1 for p in pts if p >= amount) / len(pts), kind)
                for (_, kind, _), pts in zip(options[5:], points[5:], strict=True)
            )
            if chance * 100 >= self.nil_bid:
                self.last_reason = (
                    f"a {kind} nil makes {amount} in {chance:.0%} of the simulated deals: "
                    f"enough for the lowest bid"
                )
                return bids[0]
        self.last_reason = (
            f"your hand takes about {best:.0f} points in the simulated deals: not enough for "
            f"{amount}, since simulations overrate a quintus and a bid needs "
            f"{self.bid_margin} to spare (the bid must be made, or it is paid)"
        )
        return PASS

    def _nil_options(self, view: BotView, contract: int) -> list[tuple[int, str]]:
        """Return the (trump, nil kind) a contract of ``contract`` may be made by with
        ``nil_bid`` on: each nil whose bonus reaches it, under the trumps a nil would
        name (the suit the hand holds fewest of, the lowest highest card on a tie, and
        sans atout)."""
        if not self.nil_bid:
            return []
        bonus = NIL_BONUS["bidding"]
        kinds = [k for k, b in zip(("closed", "open"), bonus, strict=True) if contract <= b]
        if not kinds:
            return []
        hand = view.obs.hands[view.seat] or 0  # his own hand: always shown
        short = min(range(4), key=lambda t: (len(suit_cards(hand, t)), suit_cards(hand, t)[-1:]))
        return [(trump, kind) for trump in (short, 4) for kind in kinds]

    def _nil(self, view: BotView, main: tuple[Action, ...], obs: Any) -> Action:
        trump = 4 if obs.trump == "NT" else "SCDH".index(obs.trump)
        contract = obs.contract
        kinds = [("none", "closed", "open")[a - NIL_NONE] for a in main]
        points = self._simulate(
            view, [(trump, kind, contract) for kind in kinds], relative=contract is None
        )
        scores = {}
        for a, pts in zip(main, points, strict=True):
            if contract is None:
                scores[a] = sum(pts) / len(pts)
            else:
                scores[a] = sum(1 for p in pts if p >= contract) / len(pts)
        best = max(main, key=lambda a: (scores[a], a != NIL_OPEN, -a))
        what = "points less the others'" if contract is None else "chance to make the contract"
        self.last_reason = f"the best simulated {what}: {scores[best]:.2f}"
        return best


__all__ = ["NODES_PER_CPU_SECOND", "PimcBot", "QuintoState", "playout"]
