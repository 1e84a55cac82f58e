"""The websocket protocol's constants, error codes and message checks.

Every message is one JSON object with a ``type``. See docs/server.md for each message
with examples. Any message may carry an ``id`` (a string or number up to 64 characters):
the answer to it, or the error it causes, carries it back as ``ref``.
"""

from __future__ import annotations

import json
from typing import Any, Final

PROTOCOL_VERSION: Final = 1
#: The largest message a client may send (bytes of UTF-8 text).
MAX_MESSAGE: Final = 4096
#: Larger frames than this are refused by the websocket layer itself (close 1009).
MAX_FRAME: Final = 65536

CLIENT_TYPES: Final = (
    "hello",
    "join",
    "leave",
    "replace",
    "act",
    "hint",
    "next",
    "ping",
)

#: Error codes and what they mean (docs/server.md lists them with examples).
ERRORS: Final = {
    "bad_json": "the message is not JSON",
    "bad_message": "the message is not an object with a known shape",
    "too_large": f"the message is longer than {MAX_MESSAGE} bytes",
    "unknown_type": "no message has this type",
    "rate_limited": "too many messages: slow down",
    "bad_version": "this server speaks another protocol version",
    "no_table": "no table has this id (or it is private and this link does not open it)",
    "not_joined": "send hello first",
    "bad_token": "no seat of this table has this token",
    "taken_over": "another connection took over this seat",
    "no_seat": "this seat does not exist or cannot be taken",
    "seat_taken": "someone already holds this seat",
    "bad_invite": "the invite code is wrong (a private table needs one)",
    "bad_name": "a display name is 1 to 40 printable characters",
    "already_seated": "one person plays one seat of a table: this person holds or held another",
    "no_person": "this connection has no person cookie: open a page of this site first",
    "busy": "the server is still working on your last request",
    "full": "the table has as many spectators as it can take",
    "not_player": "only a seated player may do this",
    "seat_present": "a connected player cannot be replaced",
    "bad_level": "this server offers no bot level of that name",
    "not_started": "no hand has been dealt yet",
    "hand_over": "the hand is over",
    "game_over": "the match is over",
    "not_your_seat": "this connection does not decide for that seat",
    "not_your_turn": "it is another seat's turn",
    "invalid_action": "the action names nothing this game has",
    "illegal": "the rules do not allow this action now",
    "stale": "the table has moved on since the state the action was meant for",
    "not_ready": "there is no next hand to ask for now",
    "nothing_to_do": "the seat has nothing to do now",
    "server_error": "the server could not do this; the table is unchanged",
}


class ProtocolError(Exception):
    """A message the server refuses: ``code`` (see :data:`ERRORS`) and a message."""

    def __init__(self, code: str, message: str | None = None) -> None:
        self.code = code
        self.message = message or ERRORS.get(code, code)
        super().__init__(f"{code}: {self.message}")


def error(code: str, message: str | None = None, ref: Any = None) -> dict[str, Any]:
    """Return an error message object."""
    out: dict[str, Any] = {
        "type": "error",
        "code": code,
        "message": message or ERRORS.get(code, code),
    }
    if ref is not None:
        out["ref"] = ref
    return out


# No NaN or Infinity: they are not JSON, and nothing the server sends may hold one.
_ENCODE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode


def dumps(obj: Any) -> str:
    """Return compact JSON text."""
    return _ENCODE(obj)


def parse(text: str) -> dict[str, Any]:
    """Return the message object of a client's text frame.

    Raises:
        ProtocolError: too_large, bad_json, bad_message or unknown_type.
    """
    if len(text) > MAX_MESSAGE or len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE:
        raise ProtocolError("too_large")
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError("bad_json") from None
    if not isinstance(msg, dict):
        raise ProtocolError("bad_message", "a message is a JSON object with a 'type'")
    kind = msg.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "a message needs a 'type' string")
    if kind not in CLIENT_TYPES:
        raise ProtocolError("unknown_type", f"unknown message type {kind[:40]!r}")
    return msg


def ref_of(msg: Any) -> Any:
    """Return a message's ``id`` if it is a short string or an integer, else None."""
    if not isinstance(msg, dict):
        return None
    ref = msg.get("id")
    if isinstance(ref, bool):
        return None
    if isinstance(ref, int) or (isinstance(ref, str) and len(ref) <= 64):
        return ref
    return None


def get_int(msg: dict[str, Any], name: str, required: bool = True) -> int | None:
    """Return an integer field.

    Raises:
        ProtocolError: bad_message when missing (and required) or not an integer.
    """
    if name not in msg or msg[name] is None:
        if required:
            raise ProtocolError("bad_message", f"'{msg.get('type')}' needs an integer '{name}'")
        return None
    v = msg[name]
    if isinstance(v, bool) or not isinstance(v, int):
        raise ProtocolError("bad_message", f"'{name}' must be an integer")
    return v


def get_str(msg: dict[str, Any], name: str, required: bool = True, limit: int = 200) -> str | None:
    """Return a string field (at most ``limit`` characters).

    Raises:
        ProtocolError: bad_message when missing (and required), not a string or too long.
    """
    if name not in msg or msg[name] is None:
        if required:
            raise ProtocolError("bad_message", f"'{msg.get('type')}' needs a string '{name}'")
        return None
    v = msg[name]
    if not isinstance(v, str):
        raise ProtocolError("bad_message", f"'{name}' must be a string")
    if len(v) > limit:
        raise ProtocolError("bad_message", f"'{name}' is longer than {limit} characters")
    return v


def clean_name(name: str) -> str:
    """Return a display name stripped of surrounding space.

    Raises:
        ProtocolError: bad_name (empty, over 40 characters, or with control characters).
    """
    n = " ".join(name.split())
    if not 1 <= len(n) <= 40 or not n.isprintable():
        raise ProtocolError("bad_name")
    return n
