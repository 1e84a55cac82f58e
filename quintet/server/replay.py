"""Replays and double-dummy analyses of games that are over (all hands shown).

Only for tables that are over: every card is in these views. The server runs
:func:`analyze_json` in its analysis worker (:class:`quintet.server.workers.SearchPool`).
"""

from __future__ import annotations

from typing import Any

from quintet.actions import action_str, action_to_json
from quintet.record import Record, record_from_json, replay, score
from quintet.server import views

JSON = dict[str, Any]


def replay_steps(record: Record) -> JSON:
    """Return every hand of a finished match step by step: all hands after each action."""
    match = replay(record)
    hands: list[JSON] = []
    for i, final in enumerate(match.hands):
        st: Any = final.snapshot()
        first = st.observation(0)
        steps = [views.hand_json(first, st.hands, i)]
        for seat, a in final.history():
            st.apply_action(a, seat)
            step = views.hand_json(st.observation(0), st.hands, i)
            step["action"] = action_to_json(a, seat)
            step["text"] = action_str(a)
            steps.append(step)
        hands.append({"hand": i, "steps": steps, "result": views.hand_result(final)})
    return {"hands": hands, "score": score(record)}


def analyze_json(record_json: JSON, tricks: int | None = None) -> JSON:
    """Return the double-dummy notes of every card of a record (a worker's job)."""
    from quintet.analysis import DEFAULT_TRICKS, analyze_record, summary

    record = record_from_json(record_json)
    notes = analyze_record(record, tricks)
    seats = 4 if record.game == "quinto" else 5
    return {
        "tricks": DEFAULT_TRICKS[record.game] if tricks is None else tricks,
        "plays": [n.to_json() for n in notes],
        "seats": summary(notes, seats),
    }
