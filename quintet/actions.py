"""One action space for both games: every decision is a small int.

=========  ===========================================================
0 .. 52    play a card (the card's number, see :mod:`quintet.cards`)
53         ``pass`` (Quinto doubling round, Quintus auction)
54, 55     ``double``, ``redouble``
56 .. 60   ``trump`` S C D H, ``trump NT`` (sans atout)
61 .. 63   ``nil`` none, closed, open
64, 65     ``meld`` court, straight
66         ``decline``
67 .. 69   ``signal`` up, down, ask
70 .. 115  ``bid`` 30, 32, ... 120
=========  ===========================================================

Each game uses the part it needs. Text forms (``AS``, ``pass``, ``bid 40``,
``trump NT``, ``nil open``, ``meld court``, ``signal up``) and record JSON objects
are converted here, at the edge.

>>> action_str(parse_action("bid 44"))
'bid 44'
>>> action_to_json(parse_action("10h"), 2)
{'seat': 2, 'type': 'play', 'card': 'TH'}
"""

from __future__ import annotations

from typing import Any, Final

from quintet.cards import JOKER, card_str, parse_card
from quintet.errors import InvalidActionError, InvalidCardError

Action = int

PASS: Final = 53
DOUBLE: Final = 54
REDOUBLE: Final = 55
TRUMP_BASE: Final = 56  # + suit; TRUMP_NT for sans atout
TRUMP_NT: Final = 60
NIL_NONE: Final = 61
NIL_CLOSED: Final = 62
NIL_OPEN: Final = 63
MELD_COURT: Final = 64
MELD_STRAIGHT: Final = 65
DECLINE: Final = 66
SIGNAL_UP: Final = 67
SIGNAL_DOWN: Final = 68
SIGNAL_ASK: Final = 69
BID_BASE: Final = 70
MIN_BID: Final = 30
MAX_BID: Final = 120
NUM_ACTIONS: Final = BID_BASE + (MAX_BID - MIN_BID) // 2 + 1

TRUMP_NAMES: Final = ("S", "C", "D", "H", "NT")
NIL_NAMES: Final = ("none", "closed", "open")
COMBO_NAMES: Final = ("court", "straight")
SIGNAL_NAMES: Final = ("up", "down", "ask")

_SIMPLE: Final = {PASS: "pass", DOUBLE: "double", REDOUBLE: "redouble", DECLINE: "decline"}


def is_play(a: Action) -> bool:
    """Return whether ``a`` plays a card."""
    return 0 <= a <= JOKER


def is_bid(a: Action) -> bool:
    """Return whether ``a`` is a bid."""
    return BID_BASE <= a < NUM_ACTIONS


def is_signal(a: Action) -> bool:
    """Return whether ``a`` is a signal."""
    return SIGNAL_UP <= a <= SIGNAL_ASK


def bid(amount: int) -> Action:
    """Return the action bidding ``amount``.

    Raises:
        InvalidActionError: ``amount`` is not an even number from 30 to 120.
    """
    if (
        isinstance(amount, bool)
        or not isinstance(amount, int)
        or amount % 2
        or not MIN_BID <= amount <= MAX_BID
    ):
        raise InvalidActionError(f"a bid must be an even number from 30 to 120, not {amount!r}")
    return BID_BASE + (amount - MIN_BID) // 2


def bid_amount(a: Action) -> int:
    """Return the amount of a bid action."""
    return MIN_BID + 2 * (a - BID_BASE)


def action_type(a: Action) -> str:
    """Return the record ``type`` of an action (``play``, ``pass``, ``bid``, ...)."""
    if is_play(a):
        return "play"
    if a in _SIMPLE:
        return _SIMPLE[a]
    if TRUMP_BASE <= a <= TRUMP_NT:
        return "trump"
    if NIL_NONE <= a <= NIL_OPEN:
        return "nil"
    if a in (MELD_COURT, MELD_STRAIGHT):
        return "meld"
    if is_signal(a):
        return "signal"
    if is_bid(a):
        return "bid"
    raise InvalidActionError(f"not an action number: {a!r}")


def action_str(a: Action) -> str:
    """Return the text form of an action: ``AS``, ``pass``, ``bid 40``, ``trump NT``."""
    kind = action_type(a)
    if kind == "play":
        return card_str(a)
    if kind == "trump":
        return "trump " + TRUMP_NAMES[a - TRUMP_BASE]
    if kind == "nil":
        return "nil " + NIL_NAMES[a - NIL_NONE]
    if kind == "meld":
        return "meld " + COMBO_NAMES[a - MELD_COURT]
    if kind == "signal":
        return "signal " + SIGNAL_NAMES[a - SIGNAL_UP]
    if kind == "bid":
        return f"bid {bid_amount(a)}"
    return kind


def _named(names: tuple[str, ...], base: int, value: object, what: str) -> Action:
    if isinstance(value, str):
        for i, n in enumerate(names):
            if value.lower() == n.lower():
                return base + i
    raise InvalidActionError(f"{what} must be one of {', '.join(names)}, not {value!r}")


def parse_action(text: str) -> Action:
    """Parse the text form of an action (case-insensitive; a bare card code plays it).

    Raises:
        InvalidActionError: the text names no action.
    """
    if not isinstance(text, str):
        raise InvalidActionError(f"an action must be text, not {text!r}")
    words = text.split()
    if not words:
        raise InvalidActionError("empty action")
    head = words[0].lower()
    if len(words) == 1:
        if head == "play":
            raise InvalidActionError("play needs a card, e.g. 'play AS'")
        for a, name in _SIMPLE.items():
            if head == name:
                return a
        if head in ("sa", "nt"):
            return TRUMP_NT
        try:
            return parse_card(words[0])
        except InvalidCardError:
            pass
        if head in ("up", "down", "ask"):
            return SIGNAL_UP + SIGNAL_NAMES.index(head)
        raise InvalidActionError(f"unknown action {text!r}")
    if len(words) == 2:
        arg = words[1]
        if head == "play":
            try:
                return parse_card(arg)
            except InvalidCardError as e:
                raise InvalidActionError(str(e)) from None
        if head == "bid":
            try:
                amount = int(arg)
            except ValueError:
                raise InvalidActionError(f"a bid needs a number, not {arg!r}") from None
            return bid(amount)
        if head == "trump":
            return _named(TRUMP_NAMES, TRUMP_BASE, "NT" if arg.upper() == "SA" else arg, "trump")
        if head == "nil":
            return _named(NIL_NAMES, NIL_NONE, arg, "nil kind")
        if head == "meld":
            return _named(COMBO_NAMES, MELD_COURT, arg, "combination")
        if head == "signal":
            return _named(SIGNAL_NAMES, SIGNAL_UP, arg, "signal")
    raise InvalidActionError(f"unknown action {text!r}")


def action_to_json(a: Action, seat: int) -> dict[str, Any]:
    """Return the record form of action ``a`` by ``seat``."""
    kind = action_type(a)
    out: dict[str, Any] = {"seat": seat, "type": kind}
    if kind == "play":
        out["card"] = card_str(a)
    elif kind == "trump":
        out["suit"] = TRUMP_NAMES[a - TRUMP_BASE]
    elif kind == "nil":
        out["kind"] = NIL_NAMES[a - NIL_NONE]
    elif kind == "meld":
        out["combo"] = COMBO_NAMES[a - MELD_COURT]
    elif kind == "signal":
        out["signal"] = SIGNAL_NAMES[a - SIGNAL_UP]
    elif kind == "bid":
        out["amount"] = bid_amount(a)
    return out


_FIELDS: Final = {
    "play": ("card",),
    "pass": (),
    "double": (),
    "redouble": (),
    "decline": (),
    "trump": ("suit",),
    "nil": ("kind",),
    "meld": ("combo",),
    "signal": ("signal",),
    "bid": ("amount",),
}

#: The fields each action type carries besides ``seat`` and ``type``.
FIELDS_OF: Final = _FIELDS


def action_from_json(obj: object, num_seats: int) -> tuple[int, Action]:
    """Return ``(seat, action)`` from a record action object.

    Fields other than ``seat``, ``type`` and the type's own are ignored (records may
    carry optional fields).

    Raises:
        InvalidActionError: the object is not a well-formed action (a missing field,
            unknown type, seat out of range, bad card code or value).
    """
    if not isinstance(obj, dict):
        raise InvalidActionError(f"an action must be an object, not {type(obj).__name__}")
    seat = obj.get("seat")
    kind = obj.get("type")
    if "seat" not in obj:
        raise InvalidActionError("action has no 'seat'")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < num_seats:
        raise InvalidActionError(f"seat {seat!r} is out of range 0..{num_seats - 1}")
    if "type" not in obj:
        raise InvalidActionError("action has no 'type'")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise InvalidActionError(f"unknown action type {kind!r}")
    fields = _FIELDS[kind]
    for f in fields:
        if f not in obj:
            raise InvalidActionError(f"{kind} action has no '{f}'")
    value = obj[fields[0]] if fields else None
    if kind == "play":
        if not isinstance(value, str):
            raise InvalidActionError(f"card must be a card code, not {value!r}")
        try:
            return seat, parse_card(value)
        except InvalidCardError as e:
            raise InvalidActionError(str(e)) from None
    if kind == "trump":
        return seat, _named(TRUMP_NAMES, TRUMP_BASE, value, "suit")
    if kind == "nil":
        return seat, _named(NIL_NAMES, NIL_NONE, value, "nil kind")
    if kind == "meld":
        return seat, _named(COMBO_NAMES, MELD_COURT, value, "combo")
    if kind == "signal":
        return seat, _named(SIGNAL_NAMES, SIGNAL_UP, value, "signal")
    if kind == "bid":
        return seat, bid(value)  # type: ignore[arg-type]
    return seat, {"pass": PASS, "double": DOUBLE, "redouble": REDOUBLE, "decline": DECLINE}[kind]
