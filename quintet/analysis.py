"""Double-dummy analysis of records: ``quintet solve`` and ``quintet analyze``.

Values follow the solvers: Quinto from the side to move (its points minus the other
side's from the position to the end of the hand), Quintus as the quintus's points still
to come. The *cost* of a card is how much worse it is than the best card for the player
who played it: for Quinto and for the quintus, best value minus its value; for a
Quintus defender, who wants the quintus to score little, its value minus the least.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quintet.actions import Action, is_play
from quintet.cards import card_str
from quintet.errors import QuintetError
from quintet.games import game_of
from quintet.record import Record, replay
from quintet.solver import QuintoSolver, QuintusSolver, SolverLimitError, solver_for

#: A position needing more nodes than this is left unsolved (its note has no value):
#: about 10 to 20 CPU seconds. The plays of a hand are solved from the last one back, so
#: each search finds the later positions already in the solver's table.
DEFAULT_MAX_NODES = 100_000_000

# The states here are typed Any: they go to their game's solver (QuintoSolver |
# QuintusSolver), each of whose methods takes its own engine's state class; a precise
# type would need a cast at every call.


class AnalysisError(QuintetError):
    """The point asked for has no card play to value."""


def state_at(record: Record, hand: int | None = None, at: int | None = None) -> Any:
    """Return the hand state before action ``at`` of hand ``hand`` (default: the record's end).

    Raises:
        RecordError: the record does not replay.
        AnalysisError: the hand or action index is not in the record.
    """
    if not record.hands:
        raise AnalysisError("the record has no hands")
    h = len(record.hands) - 1 if hand is None else hand
    if not 0 <= h < len(record.hands):
        raise AnalysisError(f"hand {h} is not in the record (0..{len(record.hands) - 1})")
    n = len(record.hands[h].actions)
    k = n if at is None else at
    if not 0 <= k <= n:
        raise AnalysisError(f"action {k} is not in hand {h} (0..{n})")
    match = replay(record, upto=(h, k))
    return match.hands[h]


def solve_state(
    state: Any, solver: QuintoSolver | QuintusSolver | None = None
) -> dict[Action, int]:
    """Return the double-dummy value of each legal card at ``state``.

    Raises:
        AnalysisError: no card is to be played here (the hand is over, or it is the
            doubling round, the auction, trump, nil or a meld decision).
    """
    if state.is_terminal():
        raise AnalysisError("the hand is over at this point: give --hand and --at")
    cards = [a for a in state.legal_actions() if is_play(a)]
    if not cards:
        phase = getattr(state.observation(state.current_player()), "phase", "?")
        raise AnalysisError(f"no card is played at this point (the {phase} phase)")
    solver = solver or solver_for(state)
    return dict(solver.move_values(state))


@dataclass
class PlayNote:
    """One analysed card play."""

    hand: int
    action: int
    trick: int
    seat: int
    card: int
    value: int | None
    best: int | None
    cost: int | None
    best_cards: list[int] = field(default_factory=list)
    gave_up: bool = False  # the solver gave up at its node limit (else: not asked)

    def to_json(self) -> dict[str, Any]:
        """Return the note as JSON data (cards as codes)."""
        return {
            "hand": self.hand,
            "action": self.action,
            "trick": self.trick,
            "seat": self.seat,
            "card": card_str(self.card),
            "value": self.value,
            "best": self.best,
            "cost": self.cost,
            "best_cards": [card_str(c) for c in self.best_cards],
            "gave_up": self.gave_up,
        }


def analyze_record(
    record: Record, tricks: int | None = None, max_nodes: int = DEFAULT_MAX_NODES
) -> list[PlayNote]:
    """Return a note for every card play of every finished hand.

    The plays of the last ``tricks`` tricks of each hand are solved (default: every
    trick), each under ``max_nodes`` (0: no limit); a play left unsolved gets no value
    (``cost`` None; ``gave_up`` when the limit stopped it). Each hand is solved from
    its last play back to its first with one solver, whose table keeps what the later
    positions taught.

    Raises:
        RecordError: the record does not replay.
    """
    match = replay(record)
    notes: list[PlayNote] = []
    hands: list[Any] = list(match.hands)
    for hi, final in enumerate(hands):
        if not final.is_terminal():
            continue
        total = game_of(final).num_tricks
        limit = total if tricks is None else tricks
        state: Any = final.snapshot()
        plays: list[tuple[int, int, int, Action, Any]] = []
        for k, (seat, a) in enumerate(final.history()):
            if is_play(a):
                snap = state.clone() if total - state.tricks_played <= limit else None
                plays.append((k, state.tricks_played + 1, seat, a, snap))
            state.apply_action(a, seat)
        solver = solver_for(state)
        solver.max_nodes = max_nodes
        hand_notes: list[PlayNote] = []
        for k, trick, seat, a, snap in reversed(plays):
            note = PlayNote(hi, k, trick, seat, a, None, None, None)
            if snap is not None:
                try:
                    note = _note(solver, snap, hi, k, trick, seat, a, solver.move_values(snap))
                except SolverLimitError:
                    note.gave_up = True
            hand_notes.append(note)
        notes.extend(reversed(hand_notes))
    return notes


def _note(
    solver: QuintoSolver | QuintusSolver,
    state: Any,
    hand: int,
    k: int,
    trick: int,
    seat: int,
    card: int,
    values: dict[Action, int],
) -> PlayNote:
    sign = solver.sign(state, seat)
    best = sign * max(sign * v for v in values.values())
    value = values[card]
    cost = sign * (best - value)
    best_cards = sorted(c for c, v in values.items() if v == best)
    return PlayNote(hand, k, trick, seat, card, value, best, cost, best_cards)


def summary(notes: list[PlayNote], seats: int) -> list[dict[str, int]]:
    """Return per seat: cards analysed, cards that cost something, and the total cost."""
    out = [{"analysed": 0, "errors": 0, "cost": 0} for _ in range(seats)]
    for n in notes:
        if n.cost is None:
            continue
        row = out[n.seat]
        row["analysed"] += 1
        row["cost"] += n.cost
        if n.cost > 0:
            row["errors"] += 1
    return out
