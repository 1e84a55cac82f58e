"""Replays and double-dummy analyses of games that are over (all hands shown).

Only for tables that are over: every card is in these views. The server runs
:func:`analyze_json` in its analysis worker (:class:`quintet.server.workers.SearchPool`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from quintet.actions import action_str, action_to_json
from quintet.cards import card_str
from quintet.game import Event, GameState
from quintet.games import game_of
from quintet.record import Record, record_from_json, replay, score
from quintet.server import views

JSON = dict[str, Any]


def replay_steps(record: Record) -> JSON:
    """Return every hand of a finished match step by step: all hands after each action.

    A step whose card ends a trick also has ``completed_trick``: ``{"winner", "cards",
    "points"}`` (the trick's cards in the order played, as the table's ``last_trick``),
    since the step's ``trick`` may already be the next, empty one.
    """
    match = replay(record)
    hands: list[JSON] = []
    played: Sequence[GameState] = match.hands
    for i, final in enumerate(played):
        tricks = _tricks_by_action(final.events())
        st = final.snapshot()
        first = st.observation(0)
        steps = [views.hand_json(first, st.hands, i)]
        for k, (seat, a) in enumerate(final.history()):
            before = steps[-1]["trick"]
            st.apply_action(a, seat)
            step = views.hand_json(st.observation(0), st.hands, i)
            step["action"] = action_to_json(a, seat)
            step["text"] = action_str(a)
            won = tricks.get(k)
            if won is not None:
                step["completed_trick"] = {
                    "winner": won.seat,
                    "cards": [*before, {"seat": seat, "card": card_str(a)}],
                    "points": won.points,
                }
            steps.append(step)
        hands.append({"hand": i, "steps": steps, "result": views.hand_result(final)})
    return {"hands": hands, "score": score(record)}


def _tricks_by_action(events: list[Event]) -> dict[int, Event]:
    """Return the ``trick`` events by the index (in the history) of the card ending each."""
    out: dict[int, Event] = {}
    k = -1
    for e in events:
        if e.kind == "action":
            k += 1
        elif e.kind == "trick":
            out[k] = e
    return out


def analyze_json(
    record_json: JSON, tricks: int | None = None, max_nodes: int | None = None
) -> JSON:
    """Return the double-dummy notes of every card of a record (a worker's job).

    ``max_nodes`` limits each position's search (default: the analysis's own).
    """
    from quintet.analysis import DEFAULT_MAX_NODES, analyze_record, summary

    record = record_from_json(record_json)
    notes = analyze_record(record, tricks, DEFAULT_MAX_NODES if max_nodes is None else max_nodes)
    info = game_of(record)
    return {
        "tricks": info.num_tricks if tricks is None else tricks,
        "plays": [n.to_json() for n in notes],
        "seats": summary(notes, info.num_seats),
    }
