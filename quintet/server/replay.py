"""Replays and double-dummy analyses of finished games (all hands shown).

Only for finished tables: every card is in these views.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ProcessPoolExecutor
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


_pool: ProcessPoolExecutor | None = None


async def analyze(record: Record, tricks: int | None = None) -> JSON:
    """Return the analysis of a record, computed in a worker process."""
    global _pool
    if _pool is None:
        import multiprocessing

        _pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_pool, analyze_json, record.to_json(), tricks)
