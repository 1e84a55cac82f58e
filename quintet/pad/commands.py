"""A short typed language for pad entries (the terminal's input line), both ways.

Quinto (sides ``ns`` and ``ew``)::

    x ns            doubled by N-S          xx ew     doubled by E-W, redoubled by N-S
    ns 5h           a quint to N-S          ew jk 5s  one trick's quints to E-W
    b ah4h          the A+4 pair is broken  c ew 5s   E-W take the cachette (its quints)
    t 7 6           tricks won, the cachette counted

Quintus (sides: the quintus, team 0 = q+1 & q+3, team 1 = q+2 & q+4)::

    H none 12 20 -3                 trump, nil kind, each side's card points
    NT closed failed 8 30 10        a nil declared and failed (with points)
    D 40@2 33 12 -5                 bidding: bid 40 by seat 2
    S open cards JS 5H .. / AH .. / rest      the cards won (one side "rest")
    ... court=0,1,0 straight=0,0,1  premiums melded
    void                            bidding: all five passed
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from quintet.actions import NIL_NAMES, TRUMP_NAMES
from quintet.pad.base import JSON, Pad
from quintet.pad.errors import InvalidEntryError
from quintet.pad.quinto import QuintoPad, find_quint
from quintet.pad.quintus import QuintusPad

SIDES: Final = {"ns": 0, "n-s": 0, "0": 0, "ew": 1, "e-w": 1, "1": 1}
SIDE_WORDS: Final = ("ns", "ew")


def _side(word: str) -> int:
    try:
        return SIDES[word.lower()]
    except KeyError:
        raise InvalidEntryError(f"{word!r} is not a side: ns or ew") from None


def _quint_word(word: str) -> str:
    """``ah4h`` or ``AH+4H`` -> the quint's code."""
    w = word.upper()
    if "+" not in w and len(w) == 4:
        w = w[:2] + "+" + w[2:]
    return find_quint(w).code


def quinto_entry(text: str) -> JSON:
    """Return the Quinto entry a command line means.

    Raises:
        InvalidEntryError: the line means nothing (the reason says what is expected).

    >>> quinto_entry("xx ew")
    {'type': 'doubling', 'level': 'redoubled', 'by': 1}
    >>> quinto_entry("ns 5h ah4h")
    {'type': 'quint', 'quints': ['5H', 'AH+4H'], 'side': 0}
    """
    words = text.split()
    if not words:
        raise InvalidEntryError("type an entry (? for help)")
    head, rest = words[0].lower(), words[1:]
    if head in ("x", "xx", "double", "redouble"):
        if len(rest) != 1:
            raise InvalidEntryError(f"'{head}' names the side that doubled: {head} ns")
        level = "doubled" if head in ("x", "double") else "redoubled"
        return {"type": "doubling", "level": level, "by": _side(rest[0])}
    if head in ("nodouble", "-"):
        return {"type": "doubling", "level": "none"}
    if head in SIDES and rest:
        return {"type": "quint", "quints": [_quint_word(w) for w in rest], "side": _side(head)}
    if head in ("b", "broken"):
        if len(rest) != 1:
            raise InvalidEntryError("'b' names one pair: b ah4h")
        return {"type": "broken", "pair": _quint_word(rest[0])}
    if head in ("c", "cachette"):
        if not rest:
            raise InvalidEntryError("'c' names the side that took the cachette: c ns 5s")
        return {
            "type": "cachette",
            "side": _side(rest[0]),
            "quints": [_quint_word(w) for w in rest[1:]],
        }
    if head in ("t", "tricks"):
        try:
            counts = [int(w) for w in rest]
        except ValueError:
            counts = []
        if len(counts) != 2:
            raise InvalidEntryError("'t' gives the tricks of N-S and E-W: t 7 6")
        return {"type": "tricks", "tricks": counts}
    raise InvalidEntryError(f"{text!r} is not an entry (? for help)")


def quinto_command(entry: JSON) -> str:
    """Return the command line of a Quinto entry (what ``quinto_entry`` reads back)."""
    kind = entry["type"]
    if kind == "doubling":
        if entry["level"] == "none":
            return "nodouble"
        return ("x " if entry["level"] == "doubled" else "xx ") + SIDE_WORDS[entry["by"]]
    if kind == "quint":
        return SIDE_WORDS[entry["side"]] + " " + " ".join(q.lower() for q in entry["quints"])
    if kind == "broken":
        return "b " + str(entry["pair"]).lower()
    if kind == "cachette":
        return " ".join(["c", SIDE_WORDS[entry["side"]], *(q.lower() for q in entry["quints"])])
    return f"t {entry['tricks'][0]} {entry['tricks'][1]}"


def _ints(text: str, what: str) -> list[int]:
    try:
        out = [int(x) for x in text.split(",")]
    except ValueError:
        out = []
    if len(out) != 3:
        raise InvalidEntryError(f"{what}= gives three counts: quintus, team 0, team 1")
    return out


def quintus_entry(text: str) -> JSON:
    """Return the Quintus entry a command line means.

    Raises:
        InvalidEntryError: the line means nothing (the reason says what is expected).

    >>> quintus_entry("D 40@2 33 12 -5 court=1,0,0")["premiums"]
    {'court': [1, 0, 0], 'straight': [0, 0, 0]}
    """
    words = text.split()
    if not words:
        raise InvalidEntryError("type an entry (? for help)")
    if words[0].lower() == "void":
        return {"type": "void"}
    trump = words[0].upper()
    if trump == "SA":
        trump = "NT"
    if trump not in TRUMP_NAMES:
        raise InvalidEntryError(
            f"a hand starts with its trump ({', '.join(TRUMP_NAMES)}), not {words[0]!r}"
        )
    e: JSON = {"type": "hand", "trump": trump, "nil": "none"}
    rest = words[1:]
    cards: list[Any] | None = None
    if "cards" in (w.lower() for w in rest):
        k = [w.lower() for w in rest].index("cards")
        piles = " ".join(rest[k + 1 :]).split("/")
        if len(piles) != 3:
            raise InvalidEntryError("cards: three piles split by /: quintus / team 0 / team 1")
        cards = [None if p.strip().lower() == "rest" else p.split() for p in piles]
        rest = rest[:k]
    points: list[int | None] = []
    premiums: dict[str, list[int]] = {}
    for w in rest:
        lw = w.lower()
        if lw in NIL_NAMES:
            e["nil"] = lw
        elif lw in ("failed", "made"):
            e["nil_failed"] = lw == "failed"
        elif "@" in w:
            bid, _, bidder = w.partition("@")
            try:
                e["bid"], e["bidder"] = int(bid), int(bidder)
            except ValueError:
                raise InvalidEntryError(
                    f"a bid is written 40@2 (bid 40 by seat 2), not {w!r}"
                ) from None
        elif lw.startswith(("court=", "straight=")):
            name, _, value = lw.partition("=")
            premiums[name] = _ints(value, name)
        elif w == "?":  # a failed bidding nil: the quintus's cards do not count
            points.append(None)
        else:
            try:
                points.append(int(w))
            except ValueError:
                raise InvalidEntryError(
                    f"{w!r} means nothing in a hand entry (? for help)"
                ) from None
    if cards is not None:
        if points:
            raise InvalidEntryError("give the cards or the card points, not both")
        e["cards"] = cards
    elif len(points) == 3:
        e["points"] = points
    else:
        raise InvalidEntryError(
            "give three card points (quintus, team 0, team 1) or 'cards ... / ... / ...'"
        )
    if premiums:
        e["premiums"] = {
            "court": premiums.get("court", [0, 0, 0]),
            "straight": premiums.get("straight", [0, 0, 0]),
        }
    return e


def quintus_command(entry: JSON) -> str:
    """Return the command line of a Quintus entry (what ``quintus_entry`` reads back)."""
    if entry["type"] == "void":
        return "void"
    words = [entry["trump"]]
    if entry.get("nil", "none") != "none":
        words.append(entry["nil"])
    if "bid" in entry:
        words.append(f"{entry['bid']}@{entry['bidder']}")
    if "points" in entry:
        if entry.get("nil_failed") is not None:
            words.append("failed" if entry["nil_failed"] else "made")
        words.extend("?" if x is None else str(x) for x in entry["points"])
    prem = entry.get("premiums")
    if prem:
        for name in ("court", "straight"):
            if any(prem[name]):
                words.append(f"{name}=" + ",".join(str(x) for x in prem[name]))
    if "cards" in entry:
        words.append("cards")
        words.append(" / ".join(" ".join(p) for p in entry["cards"]))
    return " ".join(words)


_PARSE: Final[dict[type, Callable[[str], JSON]]] = {
    QuintoPad: quinto_entry,
    QuintusPad: quintus_entry,
}
_WRITE: Final[dict[type, Callable[[JSON], str]]] = {
    QuintoPad: quinto_command,
    QuintusPad: quintus_command,
}


def parse_command(pad: Pad[Any], text: str) -> JSON:
    """Return the entry a command line means for this pad's game.

    Raises:
        InvalidEntryError: the line means nothing.
    """
    return _PARSE[type(pad)](text)


def entry_command(pad: Pad[Any], entry: JSON) -> str:
    """Return the command line that writes ``entry``."""
    return _WRITE[type(pad)](entry)


def command_help(pad: Pad[Any]) -> str:
    """Return the pad's command language, for the help screen."""
    return _HELP[type(pad)]


_QUINTO_HELP, _, _QUINTUS_HELP = (__doc__ or "").partition("Quintus (")
_HELP: Final[dict[type, str]] = {
    QuintoPad: _QUINTO_HELP.partition("\n\n")[2].strip(),
    QuintusPad: ("Quintus (" + _QUINTUS_HELP).strip(),
}
