"""What a person at the table would have written on the pad, read from a game record.

Used to check the pad against the scorer (``quintet score``) and by ``quintet pad
--from-record`` to start a pad from a record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from quintet.actions import MELD_COURT, MELD_STRAIGHT
from quintet.cards import cards_str
from quintet.pad.base import JSON
from quintet.pad.quinto import LEVELS
from quintet.quinto import QuintoState
from quintet.quinto.rules import QUINTS
from quintet.quintus import QuintusState
from quintet.quintus.rules import quintus_card_points, team_card_points
from quintet.record import Record, replay


def _quinto_entries(state: Any, cards: bool) -> list[JSON]:
    out: list[JSON] = []
    if state.multiplier > 1:
        out.append(
            {
                "type": "doubling",
                "level": LEVELS[{2: 1, 4: 2}[state.multiplier]],
                "by": state.doubled_by,
            }
        )
    broken: set[str] = set()
    for ev in state.events():
        if ev.kind == "trick":
            side = ev.seat & 1
            found = [q.code for q in QUINTS if ev.cards & q.mask == q.mask]
            for q in QUINTS:
                pair = q.mask.bit_count() == 2 and q.code not in broken
                if pair and (ev.cards & q.mask).bit_count() == 1:
                    broken.add(q.code)
                    out.append({"type": "broken", "pair": q.code})
            if found:
                out.append({"type": "quint", "quints": found, "side": side})
        elif ev.kind == "cachette":
            found = [q.code for q in QUINTS if ev.cards & q.mask == q.mask and q.code not in broken]
            out.append({"type": "cachette", "side": ev.seat, "quints": found})
    if state.trick_points_counted:
        out.append({"type": "tricks", "tricks": list(state.tricks_won)})
    return out


def _quintus_entries(state: Any, cards: bool) -> list[JSON]:
    if not state.is_terminal():
        return []  # a Quintus hand is entered once it is over
    if state.void:
        return [{"type": "void"}]
    q = state.quintus_seat
    teams = state.teams()
    piles = [state.taken[q], *(state.taken[a] | state.taken[b] for a, b in teams)]
    side_of = {q: 0, teams[0][0]: 1, teams[0][1]: 1, teams[1][0]: 2, teams[1][1]: 2}
    courts, straights = [0, 0, 0], [0, 0, 0]
    for seat, a in state.history():
        if a == MELD_COURT:
            courts[side_of[seat]] += 1
        elif a == MELD_STRAIGHT:
            straights[side_of[seat]] += 1
    e: JSON = {"type": "hand", "trump": state.trump_name(), "nil": state.nil_name()}
    if state.contract is not None:
        e["bid"] = state.contract
        e["bidder"] = q
    if cards:
        e["cards"] = [cards_str(m).split() for m in piles]
    else:
        e["points"] = [
            quintus_card_points(piles[0]),
            team_card_points(piles[1]),
            team_card_points(piles[2]),
        ]
        if state.nil_name() != "none":
            e["nil_failed"] = state.nil_failed
    if any(courts) or any(straights):
        e["premiums"] = {"court": courts, "straight": straights}
    return [e]


def pad_entries(record: Record, cards: bool = True) -> list[JSON]:
    """Return the pad entries a person would have written for a record's hands.

    Quinto: the doubling, each trick's quints (and each pair broken), the cachette, the
    tricks. Quintus (finished hands only): the bid, trump, nil, each side's cards
    (``cards``) or card points, and the premiums melded.
    """
    match = replay(record)
    out: list[JSON] = []
    for state in match.hands:
        out.extend(_ENTRIES[type(state)](state, cards))
    return out


_ENTRIES: dict[type, Callable[[Any, bool], list[JSON]]] = {
    QuintoState: _quinto_entries,
    QuintusState: _quintus_entries,
}
