"""The ``ismcts`` level: single-observer information-set Monte Carlo tree search.

SO-ISMCTS (Cowling, Powley & Whitehouse 2012). One tree is grown for the deciding
player's information set. Each iteration

1. draws a *determinization* with :meth:`~quintet.bots.base.BotView.sample`: a full
   state consistent with everything the player has seen (the bot looks at nothing else);
2. descends the tree: a node's children are the actions seen so far at that point of
   the hand, by whichever seat acts there (the deciding player's, its partner's and its
   opponents'). Among the children legal in *this* determinization it picks by UCB1
   with availability counts (the "subset-armed bandit": ``log`` of the times a child
   was available instead of its parent's visits); a single legal action is followed
   without spending the iteration's expansion;
3. expands one node, an action legal here that the node has not yet tried;
4. plays the determinization out to the end of the hand with a fast rollout policy
   (uniform random by default; ``rollout="heuristic"`` is a cheap greedy policy for
   Quinto card play that reads the determinized state, about half as fast; Quintus
   then still rolls out at random);
5. backs up the result: a node keeps the reward of the player who chose the action
   leading to it (``state.controller(seat)``), so every player is modelled as
   maximizing its own return -- Quinto's two sides are opposed, Quintus's quintus and
   both teams each play for themselves.

Rewards are ``state.returns()`` scaled to about [-1, 1]: Quinto hand points
difference / 200, Quintus scores / 60.

Only main-line actions are searched: signals are never tree moves nor rollout moves
(:meth:`IsmctsBot.signal` gives the heuristic's signals, with the rulebook meaning).
A Quintus meld is always made (the search never declines one), and in the auction only
``pass`` and the three lowest legal bids are tree (and rollout) moves, which keeps the
branching of five bidders sane; the bot therefore never jumps the bidding.

The final move is the root child with most visits. A time budget is CPU seconds of
the deciding thread (:func:`~quintet.bots.base.cpu_clock`), checked between iterations.
With an iteration budget and no time budget the choice depends only on the view (its
observation and RNG seed).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any, Final

from quintet.actions import (
    DECLINE,
    MELD_COURT,
    MELD_STRAIGHT,
    PASS,
    SIGNAL_ASK,
    SIGNAL_UP,
    Action,
    is_bid,
    is_signal,
)
from quintet.bots.base import BotView, cpu_clock
from quintet.bots.heuristic import HeuristicBot
from quintet.cards import ACE, FIVE, FOUR, JOKER, THREE, TWO, card
from quintet.games import GAMES

#: Budget when neither the constructor nor the view gives one (CPU seconds, iterations).
DEFAULT_SECONDS: Final = 1.0
DEFAULT_ITERATIONS: Final = 5000
#: Quintus auction: the bids searched besides ``pass`` (the lowest legal ones).
MAX_BIDS: Final = 3
#: Reward scale per game (``GameInfo.reward_scale``): returns are multiplied by it.
REWARD_SCALE: Final = {g.name: g.reward_scale for g in GAMES.values()}

_MELDS: Final = (MELD_COURT, MELD_STRAIGHT)

Rollout = Callable[[Any, random.Random], None]


class _Node:
    """A tree node: the action leading here, by ``mover`` (a controlling seat)."""

    __slots__ = ("avail", "children", "mover", "total", "visits")

    def __init__(self, mover: int) -> None:
        self.mover = mover
        self.visits = 0
        self.avail = 1
        self.total = 0.0
        self.children: dict[Action, _Node] = {}


def tree_moves(legal: Sequence[Action]) -> Sequence[Action]:
    """Return the actions the search considers among a seat's ``legal`` actions.

    Signals are dropped, a legal meld is the only move, and in the auction only ``pass``
    and the :data:`MAX_BIDS` lowest bids remain. ``legal`` is in action order, as both
    engines give it; the common cases return it (or a slice) without building a list.
    """
    hi = legal[-1]
    if hi < DECLINE:  # cards, pass/double/redouble, trump, nil
        return legal
    n = len(legal)
    # Trick play: the cards, then the three signals.
    if hi == SIGNAL_ASK and n > 3 and legal[-3] == SIGNAL_UP and legal[-4] < SIGNAL_UP:
        return legal[:-3]
    moves = [a for a in legal if not is_signal(a)]
    melds = [a for a in moves if a in _MELDS]
    if melds:
        return melds[:1]
    bids = sorted(a for a in moves if is_bid(a))
    if len(bids) > MAX_BIDS:
        moves = [a for a in moves if not is_bid(a)] + bids[:MAX_BIDS]
    return moves


def random_rollout(state: Any, rng: random.Random) -> None:
    """Play ``state`` to the end of the hand, uniformly at random over the tree moves."""
    rnd = rng.random
    legal_actions = state.legal_actions
    apply_action = state.apply_action
    is_terminal = state.is_terminal
    while not is_terminal():
        legal = legal_actions()
        if legal[-1] >= DECLINE:
            legal = tree_moves(legal)
        apply_action(legal[int(rnd() * len(legal))])


class IsmctsBot:
    """Single-observer ISMCTS for both games (see the module docstring).

    ``iterations`` and ``seconds`` (CPU seconds of the deciding thread) replace the
    view's budget when either is given; with neither here nor in the view the bot thinks
    1 CPU second or 5000 iterations, whichever comes first. ``exploration`` is the UCB1
    constant (rewards lie in about [-1, 1]). ``rollout`` is ``random`` (default) or
    ``heuristic``.
    """

    name = "ismcts"

    def __init__(
        self,
        iterations: int | None = None,
        seconds: float | None = None,
        exploration: float = 0.7,
        rollout: str = "random",
    ) -> None:
        if rollout not in ROLLOUTS:
            raise ValueError(f"unknown rollout {rollout!r} (known: {', '.join(ROLLOUTS)})")
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.rollout = rollout
        self._heuristic = HeuristicBot()
        #: Root statistics of the last search: action -> (visits, mean reward).
        self.last_stats: dict[Action, tuple[int, float]] = {}
        #: Iterations run by the last search.
        self.last_iterations = 0

    # -------------------------------------------------------------- the protocol

    def act(self, view: BotView) -> Action:
        """Return the most visited root action after searching within the budget."""
        main = view.main_actions()
        if not main:
            return view.legal[0]
        moves = tree_moves(main)
        if len(moves) == 1:
            return moves[0]
        root = self.search(view)
        best = moves[0]
        best_key = (-1, -math.inf)
        for a in moves:
            child = root.children.get(a)
            if child is None:
                continue
            key = (child.visits, child.total / child.visits)
            if key > best_key:
                best, best_key = a, key
        return best

    def signal(self, view: BotView) -> Action | None:
        """Return the heuristic's signal (given and read with the rulebook's meaning)."""
        return self._heuristic.signal(view)

    # ----------------------------------------------------------------- search

    def _limits(self, view: BotView) -> tuple[int | None, float | None]:
        if self.iterations is not None or self.seconds is not None:
            iterations, seconds = self.iterations, self.seconds
        else:
            iterations, seconds = view.budget.iterations, view.budget.seconds
            if iterations is None and seconds is None:
                iterations, seconds = DEFAULT_ITERATIONS, DEFAULT_SECONDS
        return iterations, seconds

    def search(self, view: BotView) -> _Node:
        """Grow the tree for ``view`` within the budget and return its root."""
        max_iter, seconds = self._limits(view)
        clock = cpu_clock
        deadline = None if seconds is None else clock() + seconds
        rng = random.Random(view.rng.getrandbits(64))
        rnd = rng.random
        rollout = ROLLOUTS[self.rollout]
        scale = REWARD_SCALE[view.game]
        c = self.exploration
        log, sqrt = math.log, math.sqrt
        sample = view.sample
        root = _Node(-1)
        n = 0
        while (max_iter is None or n < max_iter) and (
            deadline is None or n == 0 or clock() < deadline
        ):
            n += 1
            st = sample(rng)  # a fresh state: the only copy this iteration makes
            node = root
            path = [root]
            while not st.is_terminal():
                legal = st.legal_actions()
                moves = legal if legal[-1] < DECLINE else tree_moves(legal)
                children = node.children
                if len(moves) == 1:
                    a = moves[0]
                    child = children.get(a)
                    if child is None:
                        child = children[a] = _Node(st.controller(st.current_player()))
                    else:
                        child.avail += 1
                    st.apply_action(a)
                    path.append(child)
                    node = child
                    continue
                untried: list[Action] | None = None
                for a in moves:
                    if a not in children:
                        if untried is None:
                            untried = [a]
                        else:
                            untried.append(a)
                if untried is not None:
                    for a in moves:
                        ch = children.get(a)
                        if ch is not None:
                            ch.avail += 1
                    a = untried[int(rnd() * len(untried))]
                    child = children[a] = _Node(st.controller(st.current_player()))
                    st.apply_action(a)
                    path.append(child)
                    break
                best_v = -math.inf
                a = moves[0]
                for m in moves:
                    ch = children[m]
                    v = ch.total / ch.visits + c * sqrt(log(ch.avail) / ch.visits)
                    ch.avail += 1
                    if v > best_v:
                        best_v, a = v, m
                child = children[a]
                st.apply_action(a)
                path.append(child)
                node = child
            if not st.is_terminal():
                rollout(st, rng)
            r = st.returns()
            root.visits += 1
            for i in range(1, len(path)):
                nd = path[i]
                nd.visits += 1
                nd.total += r[nd.mover] * scale
        self.last_iterations = n
        self.last_stats = {
            a: (ch.visits, ch.total / ch.visits if ch.visits else 0.0)
            for a, ch in root.children.items()
        }
        return root


# ------------------------------------------------------------ heuristic rollout

#: Chance that a heuristic rollout step plays uniformly at random instead.
EPSILON: Final = 0.1
_NO_JOKER: Final = (1 << JOKER) - 1
_FIVES: Final = sum(1 << card(FIVE, s) for s in range(4))
_QUINT_CARDS: Final = sum(1 << card(r, s) for s in range(4) for r in (TWO, THREE, FOUR, FIVE, ACE))


def _quinto_step(st: Any, legal: Sequence[Action]) -> Action:
    """Return a greedy Quinto card: feed quints to one's own safe trick, win cheaply."""
    trick = st.trick
    best = -1
    wi = 0
    for i, c in enumerate(trick):
        if c != JOKER and c > best:
            best, wi = c, i
    turn = st.turn
    side = turn & 1
    if (st.leader + wi) & 1 == side:
        above = _NO_JOKER & ~((1 << (best + 1)) - 1)
        hands = st.hands
        safe = True
        for k in range(1, 4 - len(trick)):
            s = (turn + k) & 3
            if s & 1 != side and hands[s] & above:
                safe = False
        if safe:
            if legal[-1] == JOKER:
                return JOKER
            fives = [c for c in legal if _FIVES >> c & 1]
            if fives:
                return fives[-1]
    else:
        for c in legal:
            if best < c < JOKER:
                return c  # the lowest winner
    for c in legal:
        if not _QUINT_CARDS >> c & 1:
            return c
    return legal[0] if legal[0] != JOKER or len(legal) == 1 else legal[1]


def _quinto_rollout(state: Any, rng: random.Random) -> None:
    """Play a Quinto hand out: passes in the doubling round, then cheap greedy card play."""
    rnd = rng.random
    legal_actions = state.legal_actions
    apply_action = state.apply_action
    while not state.is_terminal():
        legal = legal_actions()
        if len(legal) == 1:
            a = legal[0]
        elif legal[0] == PASS:
            a = PASS
        elif not state.trick or rnd() < EPSILON:
            a = legal[int(rnd() * len(legal))]
        else:
            a = _quinto_step(state, legal)
        apply_action(a)


#: The games whose rollouts have a greedy policy of their own; others play at random.
_GREEDY_ROLLOUTS: Final[dict[str, Rollout]] = {"quinto": _quinto_rollout}


def heuristic_rollout(state: Any, rng: random.Random) -> None:
    """Play ``state`` out with a cheap greedy policy (Quinto card play), else randomly.

    It reads the determinized state directly (trick, hands): a rollout plays a full
    state, so it may see everything in it. Doubling rounds are passed.
    """
    _GREEDY_ROLLOUTS.get(state.game, random_rollout)(state, rng)


ROLLOUTS: Final[dict[str, Rollout]] = {"random": random_rollout, "heuristic": heuristic_rollout}
