"""Score pads for games played with real cards: hand by hand entry, checked as entered.

>>> pad = new_pad("quinto")
>>> pad.add({"type": "doubling", "level": "doubled", "by": 1})
{'type': 'doubling', 'level': 'doubled', 'by': 1}
>>> pad.add({"type": "quint", "quint": "5h", "side": 0})["quints"]
['5H']
>>> try:
...     pad.add({"type": "quint", "quint": "5H", "side": 1})
... except PadError as e:
...     print(e.detail)
the 5♥ quint was already entered in hand 1 (entry 1): each quint falls once a hand
>>> len(pad.entries)
2
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from quintet.errors import InvalidOptionError
from quintet.games import find_game
from quintet.pad.base import FORMAT, JSON, VERSION, Pad
from quintet.pad.errors import ImpossibleEntryError, InvalidEntryError, InvalidPadError, PadError
from quintet.pad.quinto import QuintoPad
from quintet.pad.quintus import QuintusPad

#: Each game's pad class, by the game's name.
PADS: Final[dict[str, type[Pad[Any]]]] = {"quinto": QuintoPad, "quintus": QuintusPad}


def pad_class(game: str) -> type[Pad[Any]]:
    """Return the pad class of a game.

    Raises:
        InvalidPadError: an unknown game.
    """
    try:
        find_game(game)
    except InvalidOptionError as e:
        raise InvalidPadError(str(e)) from None
    return PADS[game]


def new_pad(
    game: str,
    variant: str | None = None,
    options: Mapping[str, Any] | None = None,
    *,
    first_dealer: int = 0,
    lone_seat: int | None = None,
    players: Sequence[str] | None = None,
) -> Pad[Any]:
    """Return an empty pad of a game (its default variant unless told).

    Raises:
        InvalidPadError: an unknown game, variant or option, or seats that do not fit.
    """
    cls = pad_class(game)
    try:
        rules = cls.rules_class().from_options(variant or cls.default_variant(), options)
    except InvalidOptionError as e:
        raise InvalidPadError(str(e)) from None
    return cls(rules, first_dealer, lone_seat, players)


def pad_from_json(data: object) -> Pad[Any]:
    """Return the pad of a JSON document (as ``Pad.to_json`` writes it), every entry checked.

    Raises:
        InvalidPadError: not a pad document, or its own fields are wrong.
        InvalidEntryError, ImpossibleEntryError: an entry does not fit (``entry`` names it).
    """
    if not isinstance(data, Mapping):
        raise InvalidPadError("a pad is a JSON object")
    if data.get("format") != FORMAT:
        raise InvalidPadError(f"not a score pad: 'format' must be {FORMAT!r}")
    if data.get("version") != VERSION:
        raise InvalidPadError(f"unknown pad version {data.get('version')!r} (known: {VERSION})")
    game = data.get("game")
    if not isinstance(game, str):
        raise InvalidPadError("a pad names its 'game'")
    return pad_class(game).from_document(data)


def read_pad(text: str | bytes) -> Pad[Any]:
    """Return the pad of a JSON text.

    Raises:
        InvalidPadError: not JSON, or not a pad document.
        InvalidEntryError, ImpossibleEntryError: an entry does not fit.
    """
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as e:
        raise InvalidPadError(f"not JSON: {e}") from None
    return pad_from_json(data)


def dumps(pad: Pad[Any]) -> str:
    """Return the pad's JSON document as text."""
    return json.dumps(pad.to_json(), ensure_ascii=False, indent=1)


__all__ = [
    "JSON",
    "PADS",
    "ImpossibleEntryError",
    "InvalidEntryError",
    "InvalidPadError",
    "Pad",
    "PadError",
    "QuintoPad",
    "QuintusPad",
    "dumps",
    "new_pad",
    "pad_class",
    "pad_from_json",
    "read_pad",
]
