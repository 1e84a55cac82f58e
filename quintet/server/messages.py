"""Every message a client may send, as declared models (pydantic).

The websocket's client messages are one discriminated union on ``type``
(:data:`ClientMessage`); the HTTP bodies are :class:`CreateTable`. Whatever does not
fit its model is refused before any handler runs: the websocket answers an ``error``
naming the field (:func:`parse_message`), the HTTP API a 422 naming it. Text fields
refuse lone surrogates (JSON can carry ``"\\ud800"``, UTF-8 cannot), so nothing a
client sent can later fail to encode.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
)

from quintet.server.protocol import CLIENT_TYPES, MAX_MESSAGE, ProtocolError


def _encodable(s: str) -> str:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text must be valid Unicode (no lone surrogates)") from None
    return s


def _printable(what: str, low: int, high: int) -> Callable[[str], str]:
    """Return a check of a line of ``low`` to ``high`` printable characters (spaces collapsed)."""

    def check(s: str) -> str:
        n = " ".join(s.split())
        if not low <= len(n) <= high or not n.isprintable():
            size = f"{low} to {high}" if low else f"up to {high}"
            raise ValueError(f"{what} is {size} printable characters")
        return n

    return check


#: Text a client sends: a string that encodes to UTF-8.
Text = Annotated[StrictStr, AfterValidator(_encodable)]
#: A random code (seat token, invite, view key, table id): URL-safe base64 characters.
Code = Annotated[StrictStr, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
#: A seat number (the table checks it against the game's seats).
SeatNo = StrictInt
#: A display name: 1 to 40 printable characters, inner spaces collapsed.
Name = Annotated[Text, Field(max_length=200), AfterValidator(_printable("a display name", 1, 40))]
#: A bot level's name (the server says which exist).
LevelName = Annotated[Text, Field(min_length=1, max_length=64)]
#: A table's title: up to 80 printable characters, inner spaces collapsed.
Title = Annotated[Text, Field(max_length=400), AfterValidator(_printable("a title", 0, 80))]
#: A number a client may send (no NaN or infinity: they are not JSON).
Number = StrictInt | Annotated[StrictFloat, Field(allow_inf_nan=False)]
#: A message id, given back as ``ref``.
MessageId = StrictInt | Annotated[Text, Field(max_length=64)]


class _Message(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    id: MessageId | None = None


class Hello(_Message):
    """Watch a table, or take back a seat with its token."""

    type: Literal["hello"]
    table: Code
    token: Annotated[Code, Field(max_length=128)] | None = None
    v: StrictInt | None = None
    key: Code | None = None  # a private table's view key (its link)
    invite: Code | None = None  # an invite of a private table's seat (its link)


class Join(_Message):
    """Take a seat with a display name."""

    type: Literal["join"]
    seat: SeatNo
    name: Name
    invite: Code | None = None


class Leave(_Message):
    """Give up the seat."""

    type: Literal["leave"]


class Replace(_Message):
    """Give an open seat, or an absent player's, to a bot."""

    type: Literal["replace"]
    seat: SeatNo
    level: LevelName | None = None


class Act(_Message):
    """Take an action: a record action object or its text form."""

    type: Literal["act"]
    action: Annotated[Text, Field(max_length=40)] | dict[Text, Any]
    expect: StrictInt | None = None


class Hint(_Message):
    """Ask what the hint bot would do."""

    type: Literal["hint"]


class Next(_Message):
    """Ready for the next hand."""

    type: Literal["next"]


class Chat(_Message):
    """Say a line in the table's chat (plain text; the server bounds its length)."""

    type: Literal["chat"]
    text: Annotated[Text, Field(min_length=1, max_length=4000)]


class TakeBack(_Message):
    """Ask to take back the actions since this player's previous decision in the hand."""

    type: Literal["takeback"]


class Claim(_Message):
    """Claim every remaining trick of the hand for this player's side."""

    type: Literal["claim"]


class Answer(_Message):
    """Accept or refuse the question put to this player (a take-back, a claim)."""

    type: Literal["answer"]
    question: StrictInt
    accept: StrictBool


class Rematch(_Message):
    """Play again: the same people in the same seats, rotated as the rules say."""

    type: Literal["rematch"]


class State(_Message):
    """Ask for the whole state again (a client that lost track of the updates)."""

    type: Literal["state"]


class Ping(_Message):
    """Answered by ``pong``, echoing ``t``."""

    type: Literal["ping"]
    t: Number | Annotated[Text, Field(max_length=64)] | None = None


ClientMessage = Annotated[
    Hello
    | Join
    | Leave
    | Replace
    | Act
    | Hint
    | Next
    | Ping
    | State
    | Chat
    | TakeBack
    | Claim
    | Answer
    | Rematch,
    Field(discriminator="type"),
]
_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# How pydantic names a union's members in an error's location: not fields.
_TYPE_TAGS = frozenset({"int", "float", "bool", "str", "SeatSpec", "JoinSpec"})


def field_of(loc: tuple[int | str, ...]) -> str:
    """Return a validation error's location as ``seats[1].level``.

    The members of a union (``int``, ``function-after[...]``) are not fields: left out.
    """
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in _TYPE_TAGS or not _IDENT.fullmatch(part):
            continue
        else:
            out += ("." if out else "") + part
    return out


def _msg(err: Any) -> str:
    return str(err.get("msg", "invalid")).removeprefix("Value error, ")


def describe(errors: Sequence[Any], what: str = "", skip: int = 0) -> tuple[str, str]:
    """Return ``(field, sentence)``: which field of ``what`` is wrong, and why.

    ``errors`` are pydantic's (``ValidationError.errors()``); ``skip`` leading parts of
    each location are dropped (the message type of a union, ``body`` of a request). Of
    several errors (a value fitting no member of a union) the deepest field is named.
    """
    errs = list(errors) or [{"loc": (), "msg": "invalid"}]
    locs = [tuple(err.get("loc", ()))[skip:] for err in errs]
    paths = [field_of(loc) for loc in locs]
    deepest = max(range(len(errs)), key=lambda i: (len(locs[i]), -i))
    where = paths[deepest]
    msgs = list(dict.fromkeys(_msg(errs[i]) for i in range(len(errs)) if paths[i] == where))
    msg = msgs[0] if len(msgs) == 1 else "fits none of: " + "; ".join(msgs)
    prefix = f"{what}: " if what else ""
    return where, (f"{prefix}{where}: {msg}" if where else f"{prefix}{msg}")


# Fields whose errors have a code of their own.
_FIELD_CODES = {"name": "bad_name"}


def parse_message(text: str) -> ClientMessage:
    """Return the client message in a text frame.

    Raises:
        ProtocolError: too_large, bad_json, bad_message (naming the field) or unknown_type.
    """
    if len(text) > MAX_MESSAGE or len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE:
        raise ProtocolError("too_large")
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError("bad_json") from None
    if not isinstance(raw, dict):
        raise ProtocolError("bad_message", "a message is a JSON object with a 'type'")
    kind = raw.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "a message needs a 'type' string")
    if kind not in CLIENT_TYPES:
        shown = kind[:40].encode("utf-8", "replace").decode("utf-8")
        raise ProtocolError("unknown_type", f"unknown message type {shown!r}")
    try:
        return _ADAPTER.validate_python(raw)
    except ValidationError as e:
        field, why = describe(e.errors(include_url=False), f"'{kind}'", skip=1)
        raise ProtocolError(_FIELD_CODES.get(field, "bad_message"), why) from None


def ref_of_raw(text: str) -> Any:
    """Return the ``id`` of a message that failed to parse, if it is a usable ``ref``."""
    try:
        raw = json.loads(text) if len(text) <= MAX_MESSAGE else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(raw, dict):
        return None
    ref = raw.get("id")
    if isinstance(ref, bool):
        return None
    if isinstance(ref, int):
        return ref
    if isinstance(ref, str) and len(ref) <= 64:
        try:
            ref.encode("utf-8")
        except UnicodeEncodeError:
            return None
        return ref
    return None


# ----------------------------------------------------------------------- HTTP


class FieldError(Exception):
    """A request body that fits its model but not this server: which field, and why."""

    def __init__(self, field: str, message: str, status: int = 422, code: str = "invalid") -> None:
        self.field = field
        self.message = message
        self.status = status
        self.code = code
        super().__init__(f"{field}: {message}")


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SeatSpec(_Body):
    """One seat of a new table: open (for a person) or a bot of a named level."""

    kind: Literal["open", "bot"]
    level: LevelName | None = None


class JoinSpec(_Body):
    """The creator's own seat and display name."""

    seat: SeatNo
    name: Name


#: What a signal means, as the players agreed before play (rulebook 004).
Meaning = Annotated[Text, Field(max_length=400), AfterValidator(_printable("a meaning", 1, 80))]

OptionName = Annotated[Text, Field(max_length=32)]
OptionValue = StrictBool | StrictInt | Annotated[Text, Field(max_length=32)]


class CreateTable(_Body):
    """``POST /api/tables``: a new table.

    ``seats`` lists every seat as ``"open"``, a level name, or a :class:`SeatSpec`; by
    default the first seat is open and the others are heuristic bots.
    """

    game: Literal["quinto", "quintus"] = "quinto"
    variant: Annotated[Text, Field(max_length=16)] | None = None
    options: Annotated[dict[OptionName, OptionValue], Field(max_length=16)] = Field(
        default_factory=dict
    )
    lone_seat: Annotated[StrictInt, Field(ge=0, le=3)] | None = None
    seed: Annotated[StrictInt, Field(ge=0, lt=2**62)] | None = None
    public: StrictBool = True
    title: Title = ""
    seats: Annotated[list[SeatSpec | LevelName], Field(min_length=1, max_length=5)] | None = None
    join: JoinSpec | None = None
    #: Seconds a person has for each decision (the seat's bot plays when they run out);
    #: within the server's bounds. None: no clock.
    turn_seconds: StrictInt | None = None
    #: Draw for partners and the first deal when the table starts (a game of partners).
    draw: StrictBool = False
    #: The signals' meanings agreed before play (a game with signals): name -> meaning.
    signals: Annotated[
        dict[Annotated[Text, Field(max_length=16)], Meaning], Field(max_length=8)
    ] = Field(default_factory=dict)
    #: A rated table (docs/server.md, "Ratings and history"): its person seats are taken
    #: by accounts only, its bots are levels with a published rating, and its result
    #: changes the players' ratings. Refused where the server rates no tables.
    rated: StrictBool = False


__all__ = [
    "Act",
    "Answer",
    "Chat",
    "Claim",
    "ClientMessage",
    "CreateTable",
    "FieldError",
    "Hello",
    "Hint",
    "Join",
    "JoinSpec",
    "Leave",
    "Next",
    "Ping",
    "Rematch",
    "Replace",
    "SeatSpec",
    "State",
    "TakeBack",
    "describe",
    "field_of",
    "parse_message",
]
