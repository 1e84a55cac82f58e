"""Double-dummy values of Quintus positions.

The value of a position is the quintus's card points from the tricks still to be
completed, every card visible: -1 per five to ten and +10 per J, Q, K he wins,
premiums in his tricks counted as melded, and in a nil hand the nil bonus as the hand
would score it (in the bidding variant a failed nil leaves him 0 for the whole hand).
The quintus maximizes it and the four others minimize it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from quintet.actions import Action
from quintet.quintus import QuintusState
from quintet.quintus.rules import NIL_BONUS
from quintet.quintus.state import MELD, PLAY
from quintet.solver import _quintus_kernel as K
from quintet.solver.quinto import SolverLimitError


@dataclass
class _Position:
    hands: np.ndarray
    trick: np.ndarray
    tlen: int
    leader: int
    ntr: int
    quintus: int
    trump: int
    first: bool
    nil: int
    failed: bool
    bidding: bool
    cur: int
    bonus: int


class QuintusSolver:
    """A reusable double-dummy solver for Quintus (it keeps its transposition table).

    ``max_nodes`` (0: no limit) makes it give up on positions too big to answer in
    time, raising :class:`~quintet.solver.quinto.SolverLimitError`.
    """

    #: What the values are, in words (the interfaces caption them so).
    meaning: ClassVar[str] = "The quintus's points still to come"

    def __init__(self, tt_bits: int = 18, max_nodes: int = 0) -> None:
        self.max_nodes = max_nodes
        size = 1 << tt_bits
        self._tt_key = np.zeros((size, 6), dtype=np.int64)
        self._tt_lo = np.zeros(size, dtype=np.int32)
        self._tt_hi = np.zeros(size, dtype=np.int32)
        self._tt_move = np.zeros(size, dtype=np.int32)
        self._stats = np.zeros(3, dtype=np.int64)
        self._gen = 0
        self._context: tuple[int, ...] | None = None
        self.nodes = 0
        self.passes = 0

    def _position(self, state: QuintusState) -> _Position:
        if state.phase not in (PLAY, MELD):
            raise ValueError("the double-dummy solver values card play: trump and nil come first")
        trick = np.zeros(5, dtype=np.int64)
        for i, c in enumerate(state.trick):
            trick[i] = c
        pos = _Position(
            hands=np.array(state.hands, dtype=np.int64),
            trick=trick,
            tlen=len(state.trick),
            leader=state.leader,
            ntr=8 - state.tricks_played,
            quintus=state.quintus,
            trump=state.trump,
            first=state.tricks_played == 0,
            nil=max(state.nil, 0),
            failed=state.nil_failed,
            bidding=state.rules.variant == "bidding",
            cur=state.points()[0],
            bonus=NIL_BONUS[state.rules.variant][state.nil - 1] if state.nil > 0 else 0,
        )
        # A table entry's bounds hold for its canonical position given these: entries
        # stay usable while they are the same (the points so far matter only to a
        # bidding nil).
        context = (
            pos.quintus, pos.trump, pos.nil, pos.bidding, pos.bonus,
            pos.cur if pos.bidding and pos.nil else 0,
        )  # fmt: skip
        if context != self._context:
            self._context = context
            self._gen += 1
        self._stats[:] = 0
        return pos

    def _check(self) -> None:
        self.nodes = int(self._stats[0])
        self.passes = int(self._stats[1])
        if self._stats[2]:
            raise SolverLimitError(f"gave up after {self.max_nodes} nodes")

    def value(self, state: QuintusState) -> int:
        """Return the double-dummy value of ``state``: the quintus's points still to come.

        Raises:
            ValueError: the hand is not in its card play.
        """
        if state.is_terminal():
            return 0
        p = self._position(state)
        v = K.mtdf(
            p.hands, p.trick, p.tlen, p.leader, p.ntr, 0, p.quintus, p.trump, p.first,
            p.nil, p.failed, p.bidding, p.cur, p.bonus,
            self._tt_key, self._tt_lo, self._tt_hi, self._tt_move, self._gen, self._stats,
            self.max_nodes,
        )  # fmt: skip
        self._check()
        return int(v)

    def move_values(self, state: QuintusState) -> dict[Action, int]:
        """Return the double-dummy value of each legal card of the seat to play.

        Raises:
            ValueError: the hand is not in its card play or a meld decision is pending.
        """
        if state.is_terminal():
            return {}
        if state.phase == MELD:
            raise ValueError("a meld decision is pending: no card may be played")
        p = self._position(state)
        out: dict[Action, int] = {}
        guess = 0
        for c in state.legal_actions():
            if c >= 52:
                continue  # signals
            v = K.child_value(
                p.hands, p.trick, p.tlen, p.leader, p.ntr, c, guess, p.quintus, p.trump,
                p.first, p.nil, p.failed, p.bidding, p.cur, p.bonus,
                self._tt_key, self._tt_lo, self._tt_hi, self._tt_move, self._gen, self._stats,
                self.max_nodes,
            )  # fmt: skip
            self._check()
            guess = int(v)
            out[c] = int(v)
        self.nodes = int(self._stats[0])
        return out

    def move_reaches(self, state: QuintusState, target: int) -> dict[Action, bool]:
        """Return, for each legal card of the seat to play, whether the value after it
        (the quintus's points still to come, double-dummy) reaches ``target``.

        The same answer as :meth:`move_values` compared with ``target``, found by one
        null-window search per card instead of a series: cheaper, and all a contract
        needs (the quintus gains or loses exactly the bid, however far he passes it).

        Raises:
            ValueError: the hand is not in its card play or a meld decision is pending.
            SolverLimitError: the position needs more than ``max_nodes`` nodes.
        """
        if state.is_terminal():
            return {}
        if state.phase == MELD:
            raise ValueError("a meld decision is pending: no card may be played")
        p = self._position(state)
        out: dict[Action, bool] = {}
        for c in state.legal_actions():
            if c >= 52:
                continue  # signals
            v = K.child_bound(
                p.hands, p.trick, p.tlen, p.leader, p.ntr, c, target, p.quintus, p.trump,
                p.first, p.nil, p.failed, p.bidding, p.cur, p.bonus,
                self._tt_key, self._tt_lo, self._tt_hi, self._tt_move, self._gen, self._stats,
                self.max_nodes,
            )  # fmt: skip
            self._check()
            out[c] = int(v) >= target
        self.nodes = int(self._stats[0])
        return out

    def reaches(self, state: QuintusState, target: int) -> bool:
        """Return whether the value of ``state`` (the quintus's points still to come,
        double-dummy) reaches ``target``: :meth:`value` compared, by one null-window
        search.

        Raises:
            ValueError: the hand is not in its card play.
            SolverLimitError: the position needs more than ``max_nodes`` nodes.
        """
        if state.is_terminal():
            return target <= 0
        p = self._position(state)
        v = K.search(
            p.hands, p.trick, p.tlen, p.leader, p.ntr, target - 1, target, p.quintus,
            p.trump, p.first, p.nil, p.failed, p.bidding, p.cur, p.bonus,
            self._tt_key, self._tt_lo, self._tt_hi, self._tt_move, self._gen, self._stats,
            self.max_nodes,
        )  # fmt: skip
        self._check()
        return int(v) >= target

    @staticmethod
    def target(state: QuintusState) -> int | None:
        """Return the points still to come the quintus needs to make the contract
        (the contract less his card points so far), None without a contract."""
        contract = state.contract
        if contract is None:
            return None
        return contract - int(state.points()[0])

    def seat_reaches(self, state: QuintusState, seat: int | None = None) -> dict[Action, bool]:
        """Return, for each legal card, whether it gets ``seat`` (default: the seat to
        play) its side of the contract double-dummy: made for the quintus, failed for
        the four others.

        Raises:
            ValueError: no contract (the base variant), the hand is not in its card
                play, or a meld decision is pending.
            SolverLimitError: the position needs more than ``max_nodes`` nodes.
        """
        target = self.target(state)
        if target is None:
            raise ValueError("seat_reaches needs a contract (the bidding variant)")
        mine = self.sign(state, seat) > 0
        return {c: r == mine for c, r in self.move_reaches(state, target).items()}

    def best_lead(self, state: QuintusState) -> tuple[Action, int]:
        """Return a best card and the value at a trick's lead, without valuing every card.

        Cheaper than :meth:`best_move`: one exact search, then a null-window search that
        proves a card reaches that value.

        Raises:
            ValueError: not at the lead of a trick in the card play.
            SolverLimitError: the position needs more than ``max_nodes`` nodes.
        """
        if state.is_terminal() or state.trick or state.phase != PLAY:
            raise ValueError("best_lead needs a position at the lead of a trick")
        p = self._position(state)
        common = (
            p.quintus, p.trump, p.first, p.nil, p.failed, p.bidding, p.cur, p.bonus,
            self._tt_key, self._tt_lo, self._tt_hi, self._tt_move, self._gen, self._stats,
        )  # fmt: skip
        v = K.mtdf(p.hands, p.trick, 0, p.leader, p.ntr, 0, *common, self.max_nodes)
        self._check()
        # Null window next to the value: the search cuts off on a card reaching it.
        a, b = (v - 1, v) if state.turn == state.quintus else (v, v + 1)
        K.search(p.hands, p.trick, 0, p.leader, p.ntr, a, b, *common, 0)
        w = p.leader | ((1 if p.failed else 0) << 3) | (1024 << 4)
        card = K.root_move(p.hands, w, self._tt_key, self._tt_move, self._gen)
        if card < 0 or card not in state.legal_actions():
            return self.best_move(state)
        return card, int(v)

    @staticmethod
    def caption(state: QuintusState) -> str:
        """Return what :meth:`move_values` gives at ``state``, in words."""
        return f"the quintus's points to come (quintus seat {state.quintus}):"

    @staticmethod
    def value_words(state: QuintusState, seat: int) -> str:
        """Return what :meth:`seat_values` measures for ``seat``, in words (for hints)."""
        if seat == state.quintus:
            return "your points as quintus"
        return "minus the quintus's points"

    @staticmethod
    def sign(state: QuintusState, seat: int | None = None) -> int:
        """Return 1 if this solver's values are for ``seat`` (default: to move), else -1.

        Values are the quintus's points: the four others, who minimise them, read them
        negated.
        """
        seat = state.turn if seat is None else seat
        return 1 if seat == state.quintus else -1

    def seat_values(self, state: QuintusState, seat: int | None = None) -> dict[Action, int]:
        """Return each legal card's value for ``seat`` (default: the seat to play).

        The quintus's points still to come for him, their negative for the others.

        Raises:
            ValueError: the hand is not in its card play or a meld decision is pending.
            SolverLimitError: the position needs more than ``max_nodes`` nodes.
        """
        sign = self.sign(state, seat)
        return {c: sign * v for c, v in self.move_values(state).items()}

    @staticmethod
    def outcome(state: QuintusState, seat: int) -> int:
        """Return a finished hand's result for ``seat`` as the solver measures it.

        The quintus's card points (premiums and nil as :meth:`value` counts them), for
        him, and negated for the four others.
        """
        quintus = int(state.points()[0])
        return quintus if seat == state.quintus else -quintus

    @staticmethod
    def so_far(state: QuintusState, seat: int) -> int:
        """Return what :meth:`outcome` measures of the hand so far for ``seat``: the
        quintus's points taken, for him, and negated for the four others.

        ``so_far(state, seat) + seat_value(state, seat)`` is the outcome of best play.
        """
        quintus = int(state.points()[0])
        return quintus if seat == state.quintus else -quintus

    def seat_value(self, state: QuintusState, seat: int) -> int:
        """Return the double-dummy value of ``state`` for ``seat`` (or raise).

        Raises:
            ValueError: the hand is not in its card play or a meld decision is pending.
            SolverLimitError: the position needs more than ``max_nodes`` nodes.
        """
        return self.sign(state, seat) * self.value(state)

    def best_move(self, state: QuintusState) -> tuple[Action, int]:
        """Return the card that is best for the seat to play (max for the quintus, else min).

        Raises:
            ValueError: the hand is not in its card play.
        """
        values = self.move_values(state)
        sign = self.sign(state)
        card = max(values, key=lambda c: (sign * values[c], -c))
        return card, values[card]
