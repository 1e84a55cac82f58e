"""Cards, seats, actions and events as styled text for the terminal table.

Nothing here looks at a game state: every function takes plain values (cards, seats,
actions, public events), so what the table shows is exactly what it is given.

>>> from quintet.actions import parse_action
>>> from quintet.cards import parse_card, parse_mask
>>> card_text(parse_card("TH")).plain
'10♥'
>>> seat_label("quinto", 3)
'West'
>>> action_phrase("quintus", parse_action("bid 44"))
'bids 44'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from rich.text import Text

from quintet.actions import (
    COMBO_NAMES,
    DECLINE,
    DOUBLE,
    MELD_COURT,
    NIL_NAMES,
    NIL_NONE,
    PASS,
    REDOUBLE,
    SIGNAL_NAMES,
    SIGNAL_UP,
    TRUMP_BASE,
    TRUMP_NT,
    Action,
    action_type,
    bid_amount,
    is_play,
)
from quintet.cards import (
    JOKER,
    SUIT_NAMES,
    SUIT_OF,
    SUIT_SYMBOLS,
    Card,
    CardMask,
    card_display,
    mask_cards,
)
from quintet.game import Event
from quintet.games import find_game
from quintet.quinto.rules import SIDE_NAMES

__all__ = [
    "SUIT_TEXT_STYLE",
    "action_label",
    "action_phrase",
    "card_text",
    "cards_text",
    "event_line",
    "hand_order",
    "seat_label",
    "trump_label",
]

#: Suit colours on the dark table (a four-colour pack: spades, clubs, diamonds, hearts).
SUIT_TEXT_STYLE: Final = ("bold #e8e8e8", "bold #5fd75f", "bold #5fafff", "bold #ff5f5f")
#: Suit colours on a white card face.
SUIT_FACE_STYLE: Final = ("bold #1c1c1c", "bold #107010", "bold #1050b0", "bold #c01020")
JOKER_TEXT_STYLE: Final = "bold #d787ff"
JOKER_FACE_STYLE: Final = "bold #8020a0"


def card_text(c: Card, face: bool = False) -> Text:
    """Return a card in its suit's colour: ``10♥`` (``face``: the colours of a card face)."""
    if c == JOKER:
        return Text("JK", style=JOKER_FACE_STYLE if face else JOKER_TEXT_STYLE)
    styles = SUIT_FACE_STYLE if face else SUIT_TEXT_STYLE
    return Text(card_display(c), style=styles[SUIT_OF[c]])


def cards_text(cards: Iterable[Card] | CardMask, sep: str = " ") -> Text:
    """Return several cards (a mask in the order a hand is shown), coloured."""
    seq = hand_order(cards) if isinstance(cards, int) else list(cards)
    out = Text()
    for i, c in enumerate(seq):
        if i:
            out.append(sep)
        out.append_text(card_text(c))
    return out


def hand_order(mask: CardMask, first_suit: int | None = None) -> list[Card]:
    """Return a hand's cards as a player sorts them: by suit, high cards first.

    Suits go hearts, clubs, diamonds, spades (colours alternate), ``first_suit`` (the
    trump) leading; the joker comes last.

    >>> from quintet.cards import parse_mask
    >>> [card_display(c) for c in hand_order(parse_mask("2S AS 5H JK 9D"))]
    ['5♥', '9♦', 'A♠', '2♠', 'JK']
    """
    order = [3, 1, 2, 0]
    if first_suit is not None and 0 <= first_suit < 4:
        order.remove(first_suit)
        order.insert(0, first_suit)
    cards = mask_cards(mask)
    out: list[Card] = []
    for s in order:
        out.extend(sorted((c for c in cards if c != JOKER and SUIT_OF[c] == s), reverse=True))
    if JOKER in cards:
        out.append(JOKER)
    return out


def seat_label(game: str, seat: int) -> str:
    """Return a seat's name: ``North`` (Quinto) or ``Seat 3`` (Quintus)."""
    label = find_game(game).seat_label(seat)
    return label[:1].upper() + label[1:]


def side_label(side: int) -> str:
    """Return a Quinto side's name: ``N-S`` or ``E-W``."""
    return SIDE_NAMES[side]


def trump_label(name: str | None) -> Text:
    """Return a trump (``S``..``H``, ``NT``) for people: ``♥ hearts``, ``sans atout``."""
    if name is None:
        return Text("not named yet", style="dim")
    if name == "NT":
        return Text("sans atout", style="bold")
    s = "SCDH".index(name)
    return Text(f"{SUIT_SYMBOLS[s]} {SUIT_NAMES[s]}", style=SUIT_TEXT_STYLE[s])


_NIL_LABELS: Final = ("No nil", "Closed nil", "Open nil")
_SIGNAL_LABELS: Final = ("Signal up", "Signal down", "Ask partner")


def action_label(a: Action) -> str:
    """Return the text of a choice button: ``Double``, ``Bid 44``, ``♥ Hearts``."""
    kind = action_type(a)
    if is_play(a):
        return card_display(a)
    if kind == "bid":
        return f"Bid {bid_amount(a)}"
    if TRUMP_BASE <= a < TRUMP_NT:
        s = a - TRUMP_BASE
        return f"{SUIT_SYMBOLS[s]} {SUIT_NAMES[s].capitalize()}"
    if a == TRUMP_NT:
        return "Sans atout"
    if kind == "nil":
        return _NIL_LABELS[a - NIL_NONE]
    if kind == "signal":
        return _SIGNAL_LABELS[a - SIGNAL_UP]
    if kind == "meld":
        name = COMBO_NAMES[a - MELD_COURT]
        return f"Meld {name} (+{10 if name == 'court' else 25})"
    return {PASS: "Pass", DOUBLE: "Double", REDOUBLE: "Redouble", DECLINE: "Decline"}[a]


def action_phrase(game: str, a: Action) -> str:
    """Return what a seat did, for the log: ``plays 10♥``, ``doubles``, ``names trump ♥``."""
    kind = action_type(a)
    if is_play(a):
        return f"plays {card_display(a)}"
    if kind == "bid":
        return f"bids {bid_amount(a)}"
    if a == TRUMP_NT:
        return "chooses sans atout"
    if kind == "trump":
        return f"names trump {SUIT_SYMBOLS[a - TRUMP_BASE]}"
    if kind == "nil":
        name = NIL_NAMES[a - NIL_NONE]
        return "declares no nil" if name == "none" else f"declares {name} nil"
    if kind == "signal":
        return f"signals {SIGNAL_NAMES[a - SIGNAL_UP]}"
    if kind == "meld":
        return f"melds the {COMBO_NAMES[a - MELD_COURT]}"
    return {
        PASS: "passes",
        DOUBLE: "doubles",
        REDOUBLE: "redoubles",
        DECLINE: "declines the premium",
    }[a]


def event_line(game: str, e: Event, names: Sequence[str] | None = None) -> Text:
    """Return one public event as a log line with coloured cards."""
    name = (lambda s: names[s]) if names is not None else (lambda s: seat_label(game, s))
    out = Text()
    if e.kind == "action" and e.seat is not None and e.action is not None:
        out.append(f"{name(e.seat)} ")
        if is_play(e.action):
            out.append("plays ")
            out.append_text(card_text(e.action))
        else:
            out.append(action_phrase(game, e.action))
        return out
    if e.kind == "trick" and e.seat is not None:
        n = _trick_number(e.text)
        out.append(f"{name(e.seat)} wins trick {n}", style="bold")
        what = find_game(game).trick_points
        if what and e.points:
            out.append(f" · {what} {e.points}", style="bold yellow")
        return out
    if e.kind == "cachette" and e.seat is not None:
        out.append(f"{side_label(e.seat)} take the cachette ", style="bold")
        out.append_text(cards_text(e.cards))
        if e.points:
            out.append(f" · quints {e.points}", style="bold yellow")
        return out
    if e.kind == "premium" and e.seat is not None:
        out.append(f"{name(e.seat)} melds {e.points}", style="bold yellow")
        return out
    if e.kind == "nil":
        out.append("the quintus's nil fails", style="bold red")
        return out
    if e.kind in ("game", "tricks", "hand"):
        out.append(e.text, style="bold")
        return out
    out.append(e.text)
    return out


def _trick_number(text: str) -> str:
    words = text.split()
    for i, w in enumerate(words[:-1]):
        if w == "trick":
            return words[i + 1].rstrip(":")
    return "?"
