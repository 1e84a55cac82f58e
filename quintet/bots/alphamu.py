"""αμ: card play over several deals at once for the last tricks, without strategy fusion.

PIMC (:mod:`quintet.bots.pimc`) values every card in each sampled deal as if the deciding
player would know the deal from then on: in one deal it finesses, in another it drops,
and the average credits it with both. αμ (Cazenave and Ventos, "The αμ Search Algorithm
for the Game of Bridge", 2019) searches the sampled deals together: at the deciding
player's own turns the same card must be played in every deal he cannot tell apart (the
deals still consistent with the cards played in the tree), while each other player
chooses deal by deal, as the solver assumes. A node's value is therefore not one number
but a *front*: the set of vectors (one value per deal) that the deciding player can
secure by some strategy, without dominated ones (a vector no better anywhere than
another). At his turns the fronts of his cards are joined; at an opponent's turn each
deal takes its worst child (the fronts are combined element by element with ``min``); at
a partner's turn each deal takes its best (``max``: the partner is taken to see the
cards, as in PIMC); a node with one deal left is valued by the double-dummy solver. The
root card is the one with a front vector of highest mean.

Played this way to the end of the hand, from ``tricks`` tricks left: each player's
hand is small there, so the tree is small, and deals split apart quickly as the other
players' cards are played (most nodes deep in the tree hold one deal). Fronts are kept
to at most ``cap`` vectors, the best on average (an approximation when more survive).

The three-player Quinto game is the case the algorithm was made for: the lone player
sees both his hands, as a bridge declarer does, and decides for both. For a partnership
player his partner is assumed to see the cards (as PIMC assumes of everyone).

The values are those of :mod:`quintet.bots.pimc`: the outcome for the deciding seat as
the solver measures it (``so_far`` plus the solved rest), or under a Quintus contract +1
or -1 by whether the seat's goal is reached (plus a tie-break per point at the end of
the hand).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

from quintet.actions import DECLINE, Action, is_play, is_signal

#: At most this many vectors are kept in a front (the best on average).
CAP: Final = 16

Front = np.ndarray  # (vectors, deals) of float64


class OutOfTime(Exception):
    """The search passed its deadline (the caller decides otherwise)."""


def _prune(front: Front, weights: np.ndarray, cap: int) -> Front:
    """Return ``front`` without duplicate or dominated rows, at most ``cap`` rows (the
    best by weighted mean; infinite entries, a combination's neutral fill, count 0)."""
    if len(front) > 1:
        front = np.unique(front, axis=0)
    if len(front) > 1:
        ge = np.all(front[:, None, :] >= front[None, :, :], axis=2)
        np.fill_diagonal(ge, False)
        front = front[~ge.any(axis=0)]  # a row some other row is >= everywhere: dominated
    if len(front) > cap:
        score = np.where(np.isfinite(front), front, 0.0) @ weights
        front = front[np.argsort(-score, kind="stable")[:cap]]
    return front


def _auto_action(state: Any, seat: int) -> Action | None:
    """Return the action taken without search at a decision other than a card (a
    Quintus meld: always taken, as pimc does), or None when ``seat`` is to play a card."""
    main: list[Action] = [a for a in state.legal_actions(seat) if not is_signal(a)]
    if all(is_play(a) for a in main):
        return None
    return next((a for a in main if a != DECLINE), main[0])


class AlphaMu:
    """One αμ search over ``worlds`` (full states of one position, the same public play)
    for ``seat``, whose player decides at the nodes of every seat he controls.

    ``leaf(world)`` values a position of one deal for ``seat`` (the solver); ``end(world)``
    values a finished hand. ``weights`` are the deals' weights (their multiplicity).
    ``sign(world, seat)`` is 1 when ``seat`` is on the side of the seat to move (the
    solver's :meth:`sign`). Past ``deadline`` on ``clock`` the search raises
    :class:`OutOfTime`.
    """

    def __init__(
        self,
        worlds: Sequence[Any],
        weights: Sequence[float],
        seat: int,
        leaf: Callable[[Any], float],
        end: Callable[[Any], float],
        sign: Callable[[Any, int], int],
        cap: int = CAP,
        deadline: float = math.inf,
        clock: Callable[[], float] | None = None,
    ) -> None:
        if not worlds:
            raise ValueError("αμ needs at least one deal")
        self.worlds = list(worlds)
        self.weights = np.asarray(weights, dtype=np.float64)
        self.seat = seat
        self.player = self.worlds[0].controller(seat)
        self.leaf = leaf
        self.end = end
        self.sign = sign
        self.cap = cap
        self.deadline = deadline
        self.clock = clock
        #: Nodes searched, and of them valued by ``leaf`` (one deal left).
        self.nodes = 0
        self.leaves = 0

    def card_values(self, cards: Sequence[Action]) -> dict[Action, float]:
        """Return each of ``seat``'s ``cards`` valued by its best front vector's weighted mean."""
        total = float(self.weights.sum())
        out: dict[Action, float] = {}
        idx = np.arange(len(self.worlds))
        for c in cards:
            front = self._front([w.child(c, self.seat) for w in self.worlds], idx)
            out[c] = float((front @ self.weights).max()) / total
        return out

    def _front(self, states: list[Any], idx: np.ndarray) -> Front:
        """Return the front of the node whose deals are ``states`` (the worlds ``idx``)."""
        self.nodes += 1
        if self.clock is not None and self.nodes % 16 == 1 and self.clock() > self.deadline:
            raise OutOfTime(f"αμ passed its deadline after {self.nodes} nodes")
        s0 = states[0]
        if s0.is_terminal():
            return np.array([[self.end(s) for s in states]], dtype=np.float64)
        mover = s0.current_player()
        auto = _auto_action(s0, mover)
        if auto is not None:  # public and the same in every deal
            return self._front([s.child(auto, mover) for s in states], idx)
        if len(states) == 1:
            self.leaves += 1
            return np.array([[self.leaf(s0)]], dtype=np.float64)
        weights = self.weights[idx]
        if s0.controller(mover) == self.player:  # his own turn: one card for every deal
            cards = [a for a in s0.legal_actions(mover) if is_play(a)]
            parts = [self._front([s.child(c, mover) for s in states], idx) for c in cards]
            return _prune(np.concatenate(parts), weights, self.cap)
        mine = self.sign(s0, self.seat) > 0
        fill, combine = (-np.inf, np.maximum) if mine else (np.inf, np.minimum)
        legal = [[a for a in s.legal_actions(mover) if is_play(a)] for s in states]
        cards = sorted({c for cs in legal for c in cs})
        acc: Front | None = None
        n = len(states)
        for c in cards:
            where = [i for i in range(n) if c in legal[i]]
            sub = self._front([states[i].child(c, mover) for i in where], idx[where])
            ext = np.full((len(sub), n), fill)
            ext[:, where] = sub
            if acc is None:
                acc = ext
            else:
                both = combine(acc[:, None, :], ext[None, :, :]).reshape(-1, n)
                acc = _prune(both, weights, self.cap)
        assert acc is not None
        return _prune(acc, weights, self.cap)
