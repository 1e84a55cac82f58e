"""Double-dummy values of Quinto positions.

The value of a position is what the side to move gains minus what the other side
gains from it to the end of the hand, every card visible: the quints of the tricks
still to be completed (the trick in progress included), the trick points of those
tricks (5 x the multiplier each) and the cachette (its quints and one more trick) to
the winner of the 12th trick. The hand is played out whatever the game target.

>>> from quintet.quinto import QuintoState
>>> from quintet.cards import parse_mask
>>> s = QuintoState.from_position(
...     [parse_mask("AH"), parse_mask("2S"), parse_mask("3S"), parse_mask("4S")], leader=0)
>>> QuintoSolver().value(s)   # North wins the last trick: 5 + the spade 2-3 quint 5
10
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from quintet.actions import Action
from quintet.errors import QuintetError
from quintet.quinto import QuintoState, quint_points
from quintet.quinto.state import PLAY
from quintet.solver import _quinto_kernel as K


class SolverLimitError(QuintetError):
    """The solver gave up: the position needs more nodes than its ``max_nodes``."""


class QuintoSolver:
    """A reusable double-dummy solver for Quinto (it keeps its transposition table).

    ``max_nodes`` (0: no limit) makes it give up on positions too big to answer in
    time, raising :class:`SolverLimitError`. Not thread-safe: one solver per thread.
    """

    #: What the values are, in words (the interfaces caption them so).
    meaning: ClassVar[str] = "Points for the side to play, to the end of the hand"

    def __init__(self, tt_bits: int = 20, max_nodes: int = 0) -> None:
        self.max_nodes = max_nodes
        size = 1 << tt_bits
        self._tt_key = np.zeros((size, 6), dtype=np.int64)
        self._tt_lo = np.zeros(size, dtype=np.int32)
        self._tt_hi = np.zeros(size, dtype=np.int32)
        self._tt_move = np.zeros(size, dtype=np.int32)
        self._stats = np.zeros(8, dtype=np.int64)
        self._gen = 0
        self._context: tuple[int, int, bool] | None = None
        self.nodes = 0
        self.passes = 0

    def _position(self, state: QuintoState) -> tuple[np.ndarray, np.ndarray, int, int, int, int]:
        if state.phase != PLAY:
            raise ValueError("the double-dummy solver values card play, not the doubling round")
        hands = np.array(state.hands, dtype=np.int64)
        trick = np.zeros(4, dtype=np.int64)
        for i, c in enumerate(state.trick):
            trick[i] = c
        ntr = 12 - state.tricks_played
        tv = state.multiplier  # units of 5 points
        cach = 0
        if state.cachette_side is None and state.cachette:
            cach = tv + quint_points(state.cachette) // 5
        return hands, trick, ntr, tv, cach, len(state.trick)

    def _new_search(self, state: QuintoState, tv: int, cach: int) -> None:
        # A table entry's bounds hold for its canonical position given the trick value,
        # the cachette's worth and the joker rule: entries stay usable while those are
        # the same (the rest of a hand, or the next sample with the same cachette).
        context = (tv, cach, state.rules.joker_eleventh_trick)
        if context != self._context:
            self._context = context
            self._gen += 1
        self._stats[:] = 0

    def _check(self) -> None:
        self.nodes = int(self._stats[0])
        self.passes = int(self._stats[5])
        if self._stats[4]:
            raise SolverLimitError(f"gave up after {self.max_nodes} nodes")

    def value(self, state: QuintoState) -> int:
        """Return the double-dummy value of ``state`` in points, for the side to move.

        Raises:
            ValueError: the hand is not in its card play.
            SolverLimitError: the position needs more than ``max_nodes`` nodes.
        """
        if state.is_terminal():
            return 0
        hands, trick, ntr, tv, cach, tlen = self._position(state)
        self._new_search(state, tv, cach)
        j11 = state.rules.joker_eleventh_trick
        guess = K.playout_guess(hands, trick, tlen, state.leader, ntr, tv, cach, j11)
        v = K.mtdf(
            hands, trick, tlen, state.leader, ntr, guess, tv, cach, j11,
            self._tt_key, self._tt_lo, self._tt_hi, self._tt_move, self._gen, self._stats,
            self.max_nodes,
        )  # fmt: skip
        self._check()
        v *= 5
        return int(v) if state.turn & 1 == 0 else -int(v)

    def move_values(self, state: QuintoState) -> dict[Action, int]:
        """Return the double-dummy value in points of each legal card, for the side to move.

        Raises:
            ValueError: the hand is not in its card play.
            SolverLimitError: the position needs more than ``max_nodes`` nodes.
        """
        if state.is_terminal():
            return {}
        hands, trick, ntr, tv, cach, tlen = self._position(state)
        self._new_search(state, tv, cach)
        sign = 5 if state.turn & 1 == 0 else -5
        out: dict[Action, int] = {}
        guess = 0
        for c in state.legal_actions():
            v = K.child_value(
                hands, trick, tlen, state.leader, ntr, c, guess, tv, cach,
                state.rules.joker_eleventh_trick,
                self._tt_key, self._tt_lo, self._tt_hi, self._tt_move, self._gen, self._stats,
                self.max_nodes,
            )  # fmt: skip
            self._check()
            guess = int(v)
            out[c] = sign * int(v)
        self.nodes = int(self._stats[0])
        return out

    def best_lead(self, state: QuintoState) -> tuple[Action, int]:
        """Return a best card and the value at a trick's lead, without valuing every card.

        Cheaper than :meth:`best_move`: one exact search, then a null-window search that
        proves a card reaches that value.

        Raises:
            ValueError: not at the lead of a trick in the card play.
            SolverLimitError: the position needs more than ``max_nodes`` nodes.
        """
        if state.is_terminal() or state.trick:
            raise ValueError("best_lead needs a position at the lead of a trick")
        hands, trick, ntr, tv, cach, _ = self._position(state)
        self._new_search(state, tv, cach)
        j11 = state.rules.joker_eleventh_trick
        key, lo, hi, mv = self._tt_key, self._tt_lo, self._tt_hi, self._tt_move
        gen, stats = self._gen, self._stats
        leader = state.leader
        guess = K.playout_guess(hands, trick, 0, leader, ntr, tv, cach, j11)
        v = K.mtdf(
            hands, trick, 0, leader, ntr, guess, tv, cach, j11, key, lo, hi, mv, gen, stats,
            self.max_nodes,
        )  # fmt: skip
        self._check()
        # Null window just below the value: the search fails high on a card reaching it.
        a, b = (v - 1, v) if state.turn & 1 == 0 else (v, v + 1)
        K.search(
            hands, trick, 0, leader, ntr, a, b, tv, cach, j11, key, lo, hi, mv, gen, stats, 0
        )  # fmt: skip
        card = K.root_move(hands, state.leader, self._tt_key, self._tt_move, self._gen)
        if card < 0 or card not in state.legal_actions():
            return self.best_move(state)
        value = 5 * int(v)
        return card, value if state.turn & 1 == 0 else -value

    @staticmethod
    def caption(state: QuintoState) -> str:
        """Return what :meth:`move_values` gives at ``state``, in words."""
        return f"values for the side of seat {state.controller(state.current_player())}, to move:"

    @staticmethod
    def value_words(state: QuintoState, seat: int) -> str:
        """Return what :meth:`seat_values` measures for ``seat``, in words (for hints)."""
        return "points for your side less the other side's"

    @staticmethod
    def sign(state: QuintoState, seat: int | None = None) -> int:
        """Return 1 if this solver's values are for ``seat``'s side (default: to move), else -1.

        Values are for the side to move, so a seat of the other side reads them negated.
        """
        seat = state.turn if seat is None else seat
        return 1 if seat & 1 == state.turn & 1 else -1

    def seat_values(self, state: QuintoState, seat: int | None = None) -> dict[Action, int]:
        """Return each legal card's value for ``seat``'s side (default: the side to move).

        Raises:
            ValueError: the hand is not in its card play.
            SolverLimitError: the position needs more than ``max_nodes`` nodes.
        """
        sign = self.sign(state, seat)
        return {c: sign * v for c, v in self.move_values(state).items()}

    @staticmethod
    def outcome(state: QuintoState, seat: int) -> int:
        """Return a finished hand's result for ``seat`` as the solver measures it.

        The side's hand points minus the other side's: the values of
        :meth:`seat_values` from the start of the hand are this, in expectation.
        """
        return int(state.returns()[seat])

    @staticmethod
    def so_far(state: QuintoState, seat: int) -> int:
        """Return what the hand has given ``seat``'s side so far, less the other side, as
        :meth:`outcome` measures it: the quints taken and 5 x the trick value for each
        trick won (the trick points are added at the end of a hand played out).

        ``so_far(state, seat) + seat_value(state, seat)`` is the outcome of best play.
        """
        d = int(state.returns()[seat])
        if state.is_terminal():
            return d
        side = seat & 1
        won = state.tricks_won[side] - state.tricks_won[1 - side]
        return d + 5 * state.multiplier * won

    def seat_value(self, state: QuintoState, seat: int) -> int:
        """Return the double-dummy value of ``state`` for ``seat``'s side (or raise).

        Raises:
            ValueError: the hand is not in its card play.
            SolverLimitError: the position needs more than ``max_nodes`` nodes.
        """
        return self.sign(state, seat) * self.value(state)

    def best_move(self, state: QuintoState) -> tuple[Action, int]:
        """Return a card of best double-dummy value and that value (side to move).

        Raises:
            ValueError: the hand is not in its card play.
            SolverLimitError: the position needs more than ``max_nodes`` nodes.
        """
        values = self.move_values(state)
        card = max(values, key=lambda c: (values[c], -c))
        return card, values[card]
