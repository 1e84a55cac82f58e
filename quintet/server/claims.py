"""Claims: whether one side wins every remaining trick of a hand, checked exactly.

A player claims the rest of the hand: every remaining trick for his side. The server
knows every card, so the question is exact (double dummy): is there a way for the
claiming side to play that wins every trick whatever the others play
(:func:`check_claim` answers ``guaranteed``), and if not, is there at least one play of
all the cards in which it does (the line played out if the others accept the claim)?
Both are AND-OR searches over the remaining cards with a transposition table, bounded by
a node limit (the server's ``claim_nodes``); they run in the search workers, never on the
event loop. Signals are left out (they change nothing of who wins a trick); a premium's
winner melds it (it only scores).

Runs in a worker process: imports nothing of the web server.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from quintet.actions import Action, is_play, is_signal
from quintet.game import GameState, Phase

JSON = dict[str, Any]


class _OutOfNodes(Exception):
    """The search used its node limit."""


def claimable(state: GameState) -> bool:
    """Return whether a claim may be made now: trick play under way, nothing else pending."""
    return (
        not state.is_terminal()
        and int(getattr(state, "phase", -1)) == Phase.PLAY
        and any(is_play(a) for a in state.legal_actions(state.current_player()))
    )


def _moves(state: GameState) -> list[tuple[int, Action]]:
    """Return the main-line moves of the seat to act (no signals), highest card first."""
    seat = state.current_player()
    acts = [a for a in state.legal_actions(seat) if not is_signal(a)]
    if int(getattr(state, "phase", -1)) != Phase.PLAY:
        return [(seat, acts[0])]  # a meld decision: the winner melds (it only scores)
    return [(seat, a) for a in sorted(acts, reverse=True)]


def _trick_winner(state: GameState) -> int:
    """Return the winner of the trick just finished."""
    if not state.is_terminal():
        return int(state.leader)  # type: ignore[attr-defined]
    tricks = [e for e in state.events() if e.kind == "trick"]
    return int(tricks[-1].seat) if tricks and tricks[-1].seat is not None else -1


class _Search:
    def __init__(self, side: frozenset[int], nodes: int) -> None:
        self.side = side
        self.left = nodes
        self.used = 0
        self.memo: dict[tuple[Any, ...], bool] = {}

    def key(self, state: GameState) -> tuple[Any, ...]:
        trick = getattr(state, "trick", ())
        return (
            tuple(getattr(state, "hands", ())),
            state.current_player(),
            int(getattr(state, "tricks_played", 0)),
            tuple(trick),
            int(getattr(state, "phase", 0)),
        )

    def child(self, state: GameState, seat: int, a: Action) -> GameState | None:
        """Return the state after ``a``, or None if it lost a trick to the others."""
        self.used += 1
        if self.used > self.left:
            raise _OutOfNodes
        before = int(getattr(state, "tricks_played", 0))
        nxt = state.child(a, seat)
        if int(getattr(nxt, "tricks_played", 0)) > before and _trick_winner(nxt) not in self.side:
            return None
        return nxt

    def wins(self, state: GameState, guaranteed: bool) -> bool:
        """Whether the side wins every trick from here (against every defence, or some)."""
        if state.is_terminal():
            return True
        key = self.key(state)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        moves = _moves(state)
        ours = moves[0][0] in self.side
        if ours or not guaranteed:
            ok = any(self._good(state, s, a, guaranteed) for s, a in moves)
        else:
            ok = all(self._good(state, s, a, guaranteed) for s, a in moves)
        self.memo[key] = ok
        return ok

    def _good(self, state: GameState, seat: int, a: Action, guaranteed: bool) -> bool:
        nxt = self.child(state, seat, a)
        return nxt is not None and self.wins(nxt, guaranteed)

    def line(self, state: GameState, guaranteed: bool) -> list[tuple[int, Action]]:
        """Return a play of the rest of the hand in which the side wins every trick."""
        out: list[tuple[int, Action]] = []
        while not state.is_terminal():
            for seat, a in _moves(state):
                nxt = self.child(state, seat, a)
                if nxt is not None and self.wins(nxt, guaranteed):
                    out.append((seat, a))
                    state = nxt
                    break
            else:  # pragma: no cover - wins() said a move exists
                raise RuntimeError("no winning move where the search found one")
        return out


def check_claim(state: GameState, side: Iterable[int], nodes: int) -> JSON:
    """Return what a claim of every remaining trick for ``side`` (seats) is worth.

    ``{"guaranteed": bool, "possible": bool, "line": [[seat, action], ...] | None,
    "gave_up": bool, "nodes": int}``: ``guaranteed`` when the side wins every trick
    against every defence; ``possible`` when at least one play of the cards gives it every
    trick; ``line`` such a play of the rest of the hand (a winning defence-proof line when
    guaranteed); ``gave_up`` when the node limit was reached first (then what was not
    settled is False).
    """
    seats = frozenset(side)
    state = state.clone()
    found: JSON = {"guaranteed": False, "possible": False, "line": None, "gave_up": False}
    search = _Search(seats, nodes)
    try:
        if search.wins(state, guaranteed=True):
            found["guaranteed"] = found["possible"] = True
            found["line"] = [list(m) for m in search.line(state, True)]
    except _OutOfNodes:
        found["gave_up"] = True
    used = search.used
    if not found["possible"]:
        coop = _Search(seats, nodes)
        try:
            if coop.wins(state, guaranteed=False):
                found["possible"] = True
                found["line"] = [list(m) for m in coop.line(state, False)]
        except _OutOfNodes:
            found["gave_up"] = True
        used += coop.used
    found["nodes"] = used
    return found


__all__ = ["check_claim", "claimable"]
