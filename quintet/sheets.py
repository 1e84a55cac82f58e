"""Score sheets as a player keeps them on paper, drawn from a replayed match."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from quintet.game import Event
from quintet.quinto import QuintoMatch, QuintoState
from quintet.quinto.rules import SEAT_NAMES, SIDE_NAMES
from quintet.quintus import QuintusMatch


def sheet(match: QuintoMatch | QuintusMatch) -> str:
    """Return the score sheet of either game's match as text (its game's own kind)."""
    draw: Callable[[Any], str] = _SHEETS[type(match)]
    return draw(match)


def quintus_ledger(match: QuintusMatch) -> str:
    """Return the Quintus ledger: each hand's points per player and the running totals."""
    head = "".join(f"{'seat ' + str(s):>8}" for s in range(5))
    lines = [
        f"Quintus {match.rules.variant} session ({match.rules.hands} hands)",
        f"{'':<34}{head}",
    ]
    totals = [0] * 5
    for i, st in enumerate(match.hands):
        if st.void:
            lines.append(f"{i + 1:>2}. dealer {st.dealer}: all passed, dealt again")
            continue
        what = f"q{st.quintus} {st.trump_name() or '?'}"
        if st.nil and st.nil > 0:
            what += f" {st.nil_name()} nil"
        if st.contract is not None:
            made = st.made()
            what += f" bid {st.contract}" + ("" if made is None else (" made" if made else " down"))
        label = f"{i + 1:>2}. dealer {st.dealer} {what}"
        if not st.is_terminal():
            lines.append(f"{label:<34}  (in progress)")
            continue
        sc = st.scores()
        totals = [t + x for t, x in zip(totals, sc, strict=True)]
        lines.append(f"{label:<34}" + "".join(f"{x:>8}" for x in sc))
        lines.append(f"{'    running total':<34}" + "".join(f"{x:>8}" for x in totals))
    if not match.hands:
        lines.append(" no hands yet")
    if match.is_over():
        best = match.winners()
        lines.append("Session won by " + " and ".join(f"seat {s}" for s in best))
    return "\n".join(lines)


def hand_summary(
    state: QuintoState, events: Sequence[Event] | None = None
) -> dict[str, tuple[int, int]]:
    """Return a hand's quints, trick points and tricks won per side.

    ``events`` are the hand's public events if the caller keeps them (else replayed).
    """
    q = [0, 0]
    tp = (0, 0)
    for e in state.events() if events is None else events:
        if e.kind == "trick" and e.seat is not None:
            q[e.seat & 1] += e.points
        elif e.kind == "cachette" and e.seat is not None:
            q[e.seat] += e.points
        elif e.kind == "tricks":
            tp = (e.values[0], e.values[1])
    return {
        "quints": (q[0], q[1]),
        "tricks": tp,
        "won": (state.tricks_won[0], state.tricks_won[1]),
    }


def quinto_sheet(match: QuintoMatch) -> str:
    """Return the rubber sheet (or the dummy game's sheet) of a match as text."""
    names = list(SIDE_NAMES)
    flip = False
    if match.lone_seat is not None:
        lone = match.lone_seat
        flip = lone & 1 == 1
        names = [f"lone {SEAT_NAMES[lone][0]}", "opponents"]
    order = (1, 0) if flip else (0, 1)

    def row(label: str, pair: tuple[int, int]) -> str:
        return f"  {label:<34}{pair[order[0]]:>10}{pair[order[1]]:>10}"

    title = "Quinto rubber" if match.lone_seat is None else "Quinto three-hand game"
    lines = [f"{title:<36}{names[0]:>10}{names[1]:>10}"]
    current_game = -1
    for i, (st, g) in enumerate(zip(match.hands, match.game_of_hand, strict=True)):
        if g != current_game:
            current_game = g
            lines.append(f"Game {g + 1}")
            if st.start_score != (0, 0):
                lines.append(row("handicap", st.start_score))
        summary = hand_summary(st)
        dbl = {1: "", 2: "  doubled", 4: "  redoubled"}[st.multiplier]
        status = "" if st.is_terminal() else "  (in progress)"
        lines.append(f" hand {i + 1}: dealer {SEAT_NAMES[st.dealer]}{dbl}{status}")
        lines.append(row("quints", summary["quints"]))
        w = summary["won"]
        if summary["tricks"] != (0, 0):
            lines.append(row(f"tricks {w[0]}-{w[1]} at {5 * st.multiplier}", summary["tricks"]))
        elif st.is_terminal():
            lines.append("  tricks not counted: the game ended on a quint")
        lines.append(row("score", (st.score[0], st.score[1])))
        if st.game_winner is not None:
            side = st.game_winner
            label = names[order.index(side)]
            lines.append(f" Game {g + 1} to {label}: {st.score[side]} to {st.score[1 - side]}")
        elif st.tied:
            lines.append(" tie at or past the target: another hand is played")
    if not match.hands:
        lines.append(" no hands yet")
    winner = match.winner()
    if match.lone_seat is None:
        won = match.games_won()
        lines.append(f"Games won: {SIDE_NAMES[0]} {won[0]}, {SIDE_NAMES[1]} {won[1]}")
        rs = match.rubber_score()
        if winner is not None and rs is not None:
            lines.append(
                f"Rubber to {SIDE_NAMES[winner]} (+{match.rules.rubber_bonus}): "
                f"{SIDE_NAMES[0]} {rs[0]}, {SIDE_NAMES[1]} {rs[1]}"
            )
        else:
            lines.append("Rubber not yet decided")
    elif winner is None:
        lines.append("Game not yet decided")
    return "\n".join(lines)


#: Each game's sheet, by its match class.
_SHEETS: Final[dict[type, Callable[[Any], str]]] = {
    QuintoMatch: quinto_sheet,
    QuintusMatch: quintus_ledger,
}
