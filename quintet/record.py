"""Game records: read, validate, write and replay them, and score them.

The format is ``shared/spec/record-format.md``: a JSON document with the deals and
every action of a match. :func:`read_record` checks the shape (``unreadable`` or
``invalid`` errors), :func:`replay` plays it under the rules (``invalid`` for a
wrong dealer or an unfinished hand, ``illegal action`` for the rest), and
:func:`score` returns what ``quintet score`` prints. Every error is a
:class:`~quintet.errors.RecordError` and nothing is scored from a rejected record.

>>> rec = read_record(example_text("quinto-partnership"))
>>> score(rec)["games"]
[{'score': [240, 195], 'winner': None}]
>>> read_record(dumps(rec)) == rec
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Final

from quintet.actions import FIELDS_OF, Action, action_from_json, action_to_json
from quintet.cards import CardMask, card_str, mask_cards, parse_card
from quintet.errors import (
    IllegalActionError,
    InvalidActionError,
    InvalidCardError,
    InvalidOptionError,
    RecordError,
)
from quintet.games import GAMES as ALL_GAMES
from quintet.games import GameInfo, find_game
from quintet.quinto import QuintoMatch, QuintoRules
from quintet.quintus import QuintusMatch, QuintusRules

FORMAT: Final = "quintet-record"
VERSION: Final = 1
#: Each game's variants, by name (from quintet.games).
GAMES: Final = {g.name: g.variant_names for g in ALL_GAMES.values()}
#: A bid amount outside the action space (odd, too low or high): stored as this action
#: with the raw amount in ``HandRecord.raw_bids``, and refused when replayed.
BAD_BID: Final = -1


_TOP_FIELDS: Final = ("format", "version", "game", "variant", "options", "lone_seat", "hands")

JSON = dict[str, Any]


@dataclass
class HandRecord:
    """One hand of a record: its dealer, the deal (masks per seat) and its actions.

    ``cachette`` is None in Quintus. ``extra`` keeps optional fields of the hand object,
    ``deal_extra`` those of its deal object and ``action_extra`` those of its action
    objects (by index), so that they are written back unchanged; ``raw_bids`` the amounts
    of bids no rule allows.
    """

    dealer: int
    hands: list[CardMask]
    cachette: CardMask | None
    actions: list[tuple[int, Action]] = field(default_factory=list)
    extra: JSON = field(default_factory=dict)
    action_extra: dict[int, JSON] = field(default_factory=dict)
    raw_bids: dict[int, int] = field(default_factory=dict)
    deal_extra: JSON = field(default_factory=dict)


@dataclass
class Record:
    """A whole game record (see record-format.md)."""

    game: str
    variant: str
    options: JSON = field(default_factory=dict)
    lone_seat: int | None = None
    hands: list[HandRecord] = field(default_factory=list)
    extra: JSON = field(default_factory=dict)

    def to_json(self) -> JSON:
        """Return the record as a JSON-ready dict, cards in canonical form."""
        out: JSON = {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "variant": self.variant,
            "options": dict(self.options),
            "lone_seat": self.lone_seat,
            "hands": [_hand_to_json(h) for h in self.hands],
        }
        out.update(self.extra)
        return out


def _hand_to_json(h: HandRecord) -> JSON:
    deal: JSON = {"hands": [[card_str(c) for c in mask_cards(m)] for m in h.hands]}
    if h.cachette is not None:
        deal["cachette"] = [card_str(c) for c in mask_cards(h.cachette)]
    deal.update(h.deal_extra)
    actions = []
    for i, (seat, a) in enumerate(h.actions):
        if a == BAD_BID:
            obj: JSON = {"seat": seat, "type": "bid", "amount": h.raw_bids[i]}
        else:
            obj = action_to_json(a, seat)
        obj.update(h.action_extra.get(i, {}))
        actions.append(obj)
    out: JSON = {"dealer": h.dealer, "deal": deal, "actions": actions}
    out.update(h.extra)
    return out


def dumps(record: Record) -> str:
    """Return the record as JSON text (one space indent, as the spec's examples)."""
    return json.dumps(record.to_json(), indent=1, ensure_ascii=False)


# ---------------------------------------------------------------- reading


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def read_record(text: str | bytes) -> Record:
    """Parse and shape-check a record from JSON text.

    Raises:
        RecordError: ``unreadable`` (not JSON) or ``invalid`` (wrong shape).
    """
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as e:
        raise RecordError("unreadable", f"not JSON: {e}") from None
    except RecursionError:
        raise RecordError("unreadable", "not JSON this reader accepts: nested too deeply") from None
    return record_from_json(data)


def record_from_json(data: object) -> Record:
    """Shape-check a parsed JSON value and return the record.

    Raises:
        RecordError: ``invalid`` with the hand and action of the first fault.
    """
    if not isinstance(data, dict):
        raise RecordError("invalid", f"a record is a JSON object, not {type(data).__name__}")
    for name in ("format", "version", "game", "variant", "hands"):
        if name not in data:
            raise RecordError("invalid", f"missing field '{name}'")
    if data["format"] != FORMAT:
        raise RecordError("invalid", f"format must be '{FORMAT}', not {data['format']!r}")
    if data["version"] != VERSION or not _int(data["version"]):
        raise RecordError("invalid", f"unsupported version {data['version']!r} (expected 1)")
    game = data["game"]
    if not isinstance(game, str) or game not in ALL_GAMES:
        raise RecordError("invalid", f"unknown game {game!r} (expected {' or '.join(ALL_GAMES)})")
    info = ALL_GAMES[game]
    variant = data["variant"]
    if not isinstance(variant, str) or variant not in info.variants:
        raise RecordError(
            "invalid",
            f"unknown {game} variant {variant!r} (expected {' or '.join(info.variant_names)})",
        )
    options = data.get("options")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RecordError("invalid", "options must be an object")
    try:
        info.rules(variant, options)
    except InvalidOptionError as e:
        raise RecordError("invalid", str(e)) from None
    lone = data.get("lone_seat")
    if info.variants[variant].lone_seat:
        top = info.num_seats - 1
        if not isinstance(lone, int) or isinstance(lone, bool) or not 0 <= lone <= top:
            raise RecordError(
                "invalid", f"a {variant} record needs lone_seat 0..{top}, not {lone!r}"
            )
    elif lone is not None:
        raise RecordError("invalid", f"lone_seat must be null in a {variant} record")
    hands = data["hands"]
    if not isinstance(hands, list):
        raise RecordError("invalid", "hands must be a list")
    extra = {k: v for k, v in data.items() if k not in _TOP_FIELDS}
    return Record(
        game=game,
        variant=variant,
        options=dict(options),
        lone_seat=lone,
        hands=[_read_hand(info, i, h) for i, h in enumerate(hands)],
        extra=extra,
    )


def _read_cards(hand: int, what: str, value: object, size: int) -> CardMask:
    if not isinstance(value, list):
        raise RecordError("invalid", f"{what} must be a list of card codes", hand)
    m = 0
    for code in value:
        try:
            if not isinstance(code, str):
                raise InvalidCardError(f"not a card code: {code!r}")
            c = parse_card(code)
        except InvalidCardError as e:
            raise RecordError("invalid", f"{what}: {e}", hand) from None
        if m >> c & 1:
            raise RecordError("invalid", f"{what}: card {card_str(c)} given twice", hand)
        m |= 1 << c
    if len(value) != size:
        raise RecordError("invalid", f"{what} has {len(value)} cards, not {size}", hand)
    return m


def _read_hand(spec: GameInfo, i: int, obj: object) -> HandRecord:
    if not isinstance(obj, dict):
        raise RecordError("invalid", "a hand must be an object", i)
    for name in ("dealer", "deal", "actions"):
        if name not in obj:
            raise RecordError("invalid", f"hand has no '{name}'", i)
    dealer = obj["dealer"]
    if not _int(dealer) or not 0 <= dealer < spec.num_seats:
        raise RecordError(
            "invalid", f"dealer {dealer!r} is out of range 0..{spec.num_seats - 1}", i
        )
    deal = obj["deal"]
    if not isinstance(deal, dict) or "hands" not in deal:
        raise RecordError("invalid", "deal must be an object with 'hands'", i)
    if spec.cachette_size and "cachette" not in deal:
        raise RecordError("invalid", f"a {spec.name} deal needs its 'cachette'", i)
    if not spec.cachette_size and "cachette" in deal:
        raise RecordError("invalid", f"a {spec.name} deal has no cachette", i)
    seats = deal["hands"]
    if not isinstance(seats, list) or len(seats) != spec.num_seats:
        raise RecordError("invalid", f"deal.hands must list the {spec.num_seats} seats' hands", i)
    masks = [
        _read_cards(i, f"deal.hands[{s}]", seats[s], spec.hand_size) for s in range(spec.num_seats)
    ]
    cachette = (
        _read_cards(i, "deal.cachette", deal["cachette"], spec.cachette_size)
        if spec.cachette_size
        else None
    )
    seen = 0
    for m in [*masks, cachette or 0]:
        if seen & m:
            dup = card_str(mask_cards(seen & m)[0])
            raise RecordError("invalid", f"card {dup} is dealt twice: not a complete pack", i)
        seen |= m
    if seen & ~spec.pack:
        bad = card_str(mask_cards(seen & ~spec.pack)[0])
        raise RecordError("invalid", f"card {bad} is not in the pack: not a complete pack", i)
    actions_in = obj["actions"]
    if not isinstance(actions_in, list):
        raise RecordError("invalid", "actions must be a list", i)
    actions: list[tuple[int, Action]] = []
    action_extra: dict[int, JSON] = {}
    raw_bids: dict[int, int] = {}
    game = spec.title
    for j, a in enumerate(actions_in):
        try:
            seat, action = action_from_json(a, spec.num_seats)
        except InvalidActionError as e:
            amount = a.get("amount") if isinstance(a, dict) else None
            if not (isinstance(a, dict) and a.get("type") == "bid" and _int(amount)):
                raise RecordError("invalid", str(e), i, j) from None
            # A whole number that is not a legal bid: well-formed, refused in replay.
            given = a.get("seat")
            if not isinstance(given, int) or isinstance(given, bool):
                raise RecordError("invalid", str(e), i, j) from None
            if not 0 <= given < spec.num_seats:
                raise RecordError("invalid", str(e), i, j) from None
            seat, action = given, BAD_BID
            raw_bids[j] = int(amount)  # type: ignore[arg-type]
        assert isinstance(a, dict)
        if a["type"] not in spec.action_kinds:
            raise RecordError("invalid", f"action type {a['type']!r} is not a {game} action", i, j)
        actions.append((seat, action))
        more = {k: v for k, v in a.items() if k not in ("seat", "type", *FIELDS_OF[a["type"]])}
        if more:
            action_extra[j] = more
    extra = {k: v for k, v in obj.items() if k not in ("dealer", "deal", "actions")}
    deal_extra = {k: v for k, v in deal.items() if k not in ("hands", "cachette")}
    return HandRecord(dealer, masks, cachette, actions, extra, action_extra, raw_bids, deal_extra)


# ---------------------------------------------------------------- replay

Match = QuintoMatch | QuintusMatch


def rules_of(record: Record) -> QuintoRules | QuintusRules:
    """Return the rules a (shape-checked) record is played under."""
    return find_game(record.game).rules(record.variant, record.options)


def new_match(record: Record) -> Match:
    """Return the empty match a record's hands are played in."""
    rules = rules_of(record)
    first = record.hands[0].dealer if record.hands else 0
    return find_game(record.game).new_match(rules, first, record.lone_seat)


def replay(record: Record, upto: tuple[int, int] | None = None) -> Match:
    """Replay a record under the rules and return the match as it ends.

    ``upto=(hand, k)`` stops before action ``k`` of hand ``hand`` (for analysis).
    The number of hands of a Quintus session is not enforced (record-format.md).

    Raises:
        RecordError: ``invalid`` (wrong dealer, unfinished hand) or ``illegal action``.
    """
    match = new_match(record)
    for i, h in enumerate(record.hands):
        if upto is not None and i > upto[0]:
            break
        last = match.hands[-1] if match.hands else None
        if last is not None and not last.is_terminal():
            raise RecordError(
                "invalid", f"hand {i - 1} is unfinished but hand {i} follows it", i - 1
            )
        closed = match.closed()
        if closed is not None:
            if h.actions:
                raise RecordError("illegal action", closed.replace(" is ", " is already "), i, 0)
            raise RecordError("invalid", f"hand {i} is dealt after {closed}", i)
        want = match.next_dealer()
        if h.dealer != want:
            raise RecordError(
                "invalid",
                f"dealer must be seat {want} by the rotation{match.DEALER_RULE}, "
                f"not seat {h.dealer}",
                i,
            )
        # Any: it goes back to match.why_over, which takes its own engine's state class.
        state: Any = match.deal_recorded(h.hands, h.cachette)
        for j, (seat, a) in enumerate(h.actions):
            if upto is not None and (i, j) == upto:
                return match
            if state.is_terminal():
                raise RecordError("illegal action", match.why_over(state), i, j)
            if a == BAD_BID:
                raise RecordError(
                    "illegal action",
                    f"a bid must be an even number from 30 to 120, not {h.raw_bids[j]!r}",
                    i,
                    j,
                )
            try:
                state.act(a, seat)
            except (IllegalActionError, InvalidActionError) as e:
                raise RecordError("illegal action", str(e), i, j) from None
    return match


def score(record: Record) -> JSON:
    """Replay a record and return the scorer's JSON object (record-format.md).

    Raises:
        RecordError: the record does not replay.
    """
    return replay(record).score_summary()


def record_from_match(match: Match, extra: JSON | None = None) -> Record:
    """Return the record of a match played so far."""
    hands = []
    for st in match.hands:
        cachette = st.initial_cachette()
        hands.append(HandRecord(st.dealer, st.initial_hands(), cachette, st.history()))
    return Record(
        game=match.game,
        variant=match.rules.variant,
        options=match.rules.options(),
        lone_seat=match.lone_seat,
        hands=hands,
        extra=dict(extra or {}),
    )


def example_text(name: str) -> str:
    """Return the text of a bundled example record (``quinto-partnership`` ...)."""
    return (resources.files("quintet") / "data" / "examples" / f"{name}.json").read_text()


__all__ = [
    "HandRecord",
    "Record",
    "dumps",
    "example_text",
    "read_record",
    "record_from_json",
    "record_from_match",
    "replay",
    "rules_of",
    "score",
]
