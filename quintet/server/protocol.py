"""The websocket protocol's constants, error codes and the encoding of what the server sends.

Every message is one JSON object with a ``type``. See docs/server.md for each message
with examples. Any message may carry an ``id`` (a string or number up to 64 characters):
the answer to it, or the error it causes, carries it back as ``ref``. What a client may
send is declared in :mod:`quintet.server.messages`.
"""

from __future__ import annotations

import json
from typing import Any, Final

PROTOCOL_VERSION: Final = 2
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
    "state",
    "chat",
    "takeback",
    "claim",
    "answer",
    "rematch",
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
    "rated_needs_account": "sign in to sit at a rated table",
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
    "chat_too_long": "a chat line is longer than this server allows",
    "chat_full": "this table's chat holds as many lines as it can",
    "question_pending": "a question is waiting for the players' answers",
    "no_question": "no question with this number is waiting for your answer",
    "nothing_to_take_back": "you have made no decision in this hand to take back",
    "too_many_requests": "you have made as many such requests this hand as a seat may",
    "no_claim": "no claim can be made now",
    "not_over": "the match is not over",
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

try:
    import orjson
except ImportError:  # pragma: no cover - orjson comes with the serve extra
    orjson = None  # type: ignore[assignment]


def dumps(obj: Any) -> str:
    """Return compact JSON text (UTF-8 characters as they are).

    With orjson (the serve extra) when it can: some ten times faster than the standard
    library, which encodes what orjson refuses (an integer past 64 bits, a key that is
    not a string). orjson writes a NaN or an infinity as null, the standard library
    refuses one: either way no message holds one.
    """
    if orjson is not None:
        try:
            return orjson.dumps(obj).decode()
        except TypeError:  # orjson.JSONEncodeError: what only the standard library takes
            pass
    return _ENCODE(obj)
