"""The sheets people keep, drawn from a pad: the Quinto rubber sheet and cribbage board,
the Quintus ledger; and the pad exported as JSON, CSV or a printable text sheet."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import Any, Final

from quintet.pad.base import Pad
from quintet.pad.quinto import LEVELS, QuintoHandSheet, QuintoPad, _hand_end_words
from quintet.pad.quintus import QuintusPad, formula, side_names
from quintet.quinto.rules import SEAT_NAMES, SIDE_NAMES
from quintet.quintus.rules import SEATS

EXPORTS: Final = ("json", "csv", "text")
_COL: Final = 9


def _row(label: str, a: object, b: object, width: int = 34) -> str:
    return f"{label:<{width}}{a!s:>{_COL}}{b!s:>{_COL}}"


def _doubling(hand: QuintoHandSheet) -> str:
    if hand.multiplier == 1:
        return "not doubled"
    by = SIDE_NAMES[hand.doubled_by or 0]
    if hand.multiplier == 2:
        return f"doubled by {by}"
    return f"doubled by {by}, redoubled by {SIDE_NAMES[1 - (hand.doubled_by or 0)]}"


def rubber_sheet(pad: QuintoPad) -> str:
    """Return the Quinto sheet: each hand's quints, tricks and score, each game, the rubber."""
    r = pad.rules
    sheet = pad.computed
    kind = "dummy games" if pad.dummy else "rubber"
    lines = [
        f"Quinto {kind}  (target {r.target}"
        + (f", handicap {r.dummy_handicap})" if pad.dummy else f", rubber bonus {r.rubber_bonus})"),
        _row("", SIDE_NAMES[0], SIDE_NAMES[1]),
    ]
    for g in sheet.games:
        head = f"Game {g.index + 1}"
        if g.lone_seat is not None:
            head += f": {pad.seat_label(g.lone_seat)} plays alone ({SEAT_NAMES[g.lone_seat]})"
        lines.append(head)
        if g.start != (0, 0):
            lines.append(_row("    start (handicap)", g.start[0], g.start[1]))
        for h in g.hands:
            lines.append(f"{h.number + 1:>3}. {SEAT_NAMES[h.dealer]} deals, {_doubling(h)}")
            q = h.quint_points()
            lines.append(_row("      quints", q[0], q[1]))
            for side in (0, 1):
                codes = " ".join(p.quint.code for p in h.quints if p.side == side)
                if codes:
                    lines.append(f"        {SIDE_NAMES[side]}: {codes}")
            if h.cachette_side is not None:
                cq = " ".join(p.quint.code for p in h.cachette_quints) or "no quints"
                lines.append(f"      cachette to {SIDE_NAMES[h.cachette_side]}: {cq}")
            if h.tricks and h.trick_points:
                label = f"      tricks {h.tricks[0]}-{h.tricks[1]} at {5 * h.multiplier}"
                lines.append(_row(label, h.trick_points[0], h.trick_points[1]))
            lines.append(_row("      score", h.score[0], h.score[1]))
            if h.over and (h.winner is not None or h.tied or h.ended_by):
                lines.append("      " + _hand_end_words(h, r.target))
            elif not h.over:
                lines.append("      (hand in progress)")
    if not sheet.games:
        lines.append("  no hands yet")
    v = pad.view()
    rub = v["rubber"]
    if rub is not None:
        won = rub["games_won"]
        lines.append(_row("Games won", won[0], won[1]))
        if rub["winner"] is not None:
            lines.append(
                f"Rubber: {SIDE_NAMES[rub['winner']]} win {won[rub['winner']]} games to "
                f"{won[1 - rub['winner']]}, bonus {rub['bonus']}"
            )
            lines.append(_row("Rubber total", rub["score"][0], rub["score"][1]))
    return "\n".join(lines)


def board(pad: QuintoPad, width: int = 40) -> str:
    """Return the cribbage-board view of the current game: each side's pegs on the way to
    the target (``o`` the front peg, ``.`` the back peg where it stood before)."""
    sheet = pad.computed
    target = pad.rules.target
    width = max(10, width)
    if not sheet.games:
        g_score, before, number = (0, 0), (0, 0), 1
        lone = pad.lone_seat
        from quintet.quinto.match import new_game_score

        g_score = before = new_game_score(lone, pad.rules.dummy_handicap)
    else:
        g = sheet.games[-1]
        number = g.index + 1
        g_score = g.score
        before = _previous(g.hands, g.start)
    per = target / width
    lines = [f"Game {number} to {target}  (one hole = {per:g} points)"]
    for side in (0, 1):
        holes = ["-"] * width
        back = min(width - 1, int(before[side] / per))
        front = min(width - 1, int(g_score[side] / per))
        if before[side] > 0:
            holes[back] = "."
        if g_score[side] > 0:
            holes[front] = "o"
        track = "".join(holes)
        flag = (
            " WIN"
            if g_score[side] >= target and sheet.games and sheet.games[-1].winner == side
            else ""
        )
        lines.append(f"{SIDE_NAMES[side]} |{track}| {g_score[side]}{flag}")
    return "\n".join(lines)


def _previous(hands: list[QuintoHandSheet], start: tuple[int, int]) -> tuple[int, int]:
    """Each side's score before its last gain (the back peg)."""
    out = [start[0], start[1]]
    marks: list[tuple[int, int]] = [start]
    for h in hands:
        for p in (*h.quints, *h.cachette_quints):
            marks.append(p.score)
        marks.append((h.score[0], h.score[1]))
    for side in (0, 1):
        now = marks[-1][side]
        for m in reversed(marks):
            if m[side] != now:
                out[side] = m[side]
                break
    return out[0], out[1]


def ledger(pad: QuintusPad) -> str:
    """Return the Quintus ledger: each hand, every seat's score, running totals, payments."""
    r = pad.rules
    head = "".join(f"{pad.seat_label(s)[:8]:>9}" for s in range(SEATS))
    lines = [f"Quintus {r.variant} session ({r.hands} hands)", f"{'':<34}{head}"]
    for h in pad.computed.hands:
        label = f"{h.number + 1:>2}. {pad.seat_label(h.dealer)} deals"
        if h.void:
            lines.append(f"{label}: all passed, dealt again")
            continue
        what = f"quintus {pad.seat_label(h.quintus)}, trump {h.trump}"
        if h.nil and h.nil != "none":
            what += f" {h.nil} nil" + (" failed" if h.nil_failed else "")
        if h.bid is not None:
            what += f", bid {h.bid} " + ("made" if h.made else "failed")
        lines.append(f"{label}: {what}")
        if h.points:
            names = side_names(h.quintus)
            pts = ", ".join(f"{n} {x}" for n, x in zip(names, h.points, strict=True))
            lines.append(f"      card points {pts}")
        lines.append(f"{'      scores':<34}" + "".join(f"{x:>9}" for x in h.scores))
        lines.append(f"{'      running total':<34}" + "".join(f"{x:>9}" for x in h.totals))
        if h.settlement is not None:
            for line in formula(h.settlement):
                lines.append(f"        {line}")
    if not pad.computed.hands:
        lines.append("  no hands yet")
    lines.append(pad.status())
    return "\n".join(lines)


_SHEETS: Final[dict[type, Callable[[Any], str]]] = {QuintoPad: rubber_sheet, QuintusPad: ledger}


def sheet_text(pad: Pad[Any]) -> str:
    """Return the printable sheet of a pad (its game's own kind)."""
    out = _SHEETS[type(pad)](pad)
    extra = _EXTRA.get(type(pad))
    return out + ("\n\n" + extra(pad) if extra else "") + "\n"


_EXTRA: Final[dict[type, Callable[[Any], str]]] = {QuintoPad: board}


def _quinto_rows(pad: QuintoPad) -> list[list[Any]]:
    rows: list[list[Any]] = [
        [
            "game", "hand", "dealer", "lone", "doubling", "doubled_by",
            "quints_ns", "quints_ew", "quints", "cachette", "cachette_quints",
            "tricks_ns", "tricks_ew", "trick_points_ns", "trick_points_ew",
            "score_ns", "score_ew", "result",
        ]
    ]  # fmt: skip
    for h in pad.computed.hands:
        q = h.quint_points()
        result = ""
        if h.winner is not None:
            result = f"{SIDE_NAMES[h.winner]} win game"
        elif h.tied:
            result = "tie"
        elif not h.over:
            result = "in progress"
        rows.append(
            [
                h.game + 1,
                h.number + 1,
                SEAT_NAMES[h.dealer],
                "" if h.lone_seat is None else SEAT_NAMES[h.lone_seat],
                LEVELS[{1: 0, 2: 1, 4: 2}[h.multiplier]],
                "" if h.doubled_by is None else SIDE_NAMES[h.doubled_by],
                q[0],
                q[1],
                " ".join(f"{p.quint.code}:{SIDE_NAMES[p.side]}" for p in h.quints),
                "" if h.cachette_side is None else SIDE_NAMES[h.cachette_side],
                " ".join(p.quint.code for p in h.cachette_quints),
                *(h.tricks or ("", "")),
                *(h.trick_points or ("", "")),
                h.score[0],
                h.score[1],
                result,
            ]
        )
    return rows


def _quintus_rows(pad: QuintusPad) -> list[list[Any]]:
    rows: list[list[Any]] = [
        [
            "hand", "dealer", "quintus", "bid", "trump", "nil", "nil_failed",
            "points_quintus", "points_team0", "points_team1", "made",
            *(f"score_{s}" for s in range(SEATS)), *(f"total_{s}" for s in range(SEATS)),
        ]
    ]  # fmt: skip
    for h in pad.computed.hands:
        if h.void:
            rows.append([h.number + 1, h.dealer, "void", *[""] * 8, *h.scores, *h.totals])
            continue
        pts = h.points or ("", "", "")
        rows.append(
            [
                h.number + 1,
                h.dealer,
                h.quintus,
                "" if h.bid is None else h.bid,
                h.trump,
                h.nil,
                h.nil_failed if h.nil != "none" else "",
                *pts,
                "" if h.made is None else h.made,
                *h.scores,
                *h.totals,
            ]
        )
    return rows


_ROWS: Final[dict[type, Callable[[Any], list[list[Any]]]]] = {
    QuintoPad: _quinto_rows,
    QuintusPad: _quintus_rows,
}


def to_csv(pad: Pad[Any]) -> str:
    """Return the pad as CSV: a header row, then one row per hand."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows(_ROWS[type(pad)](pad))
    return out.getvalue()


def export(pad: Pad[Any], fmt: str) -> str:
    """Return the pad exported as ``json`` (the document and its figures), ``csv`` or
    ``text`` (the printable sheet).

    Raises:
        ValueError: an unknown format.
    """
    if fmt == "json":
        doc = pad.to_json()
        doc["view"] = pad.view()
        doc["summary"] = pad.score_summary()
        return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"
    if fmt == "csv":
        return to_csv(pad)
    if fmt == "text":
        return sheet_text(pad)
    raise ValueError(f"unknown export format {fmt!r} (known: {', '.join(EXPORTS)})")
