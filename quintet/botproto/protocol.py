"""The protocol's constants, its line encoding, and bot levels naming a command."""

from __future__ import annotations

import json
import logging
from typing import Any, Final

from quintet.errors import InvalidOptionError

JSON = dict[str, Any]

PROTOCOL: Final = "quintet-bot"
VERSION: Final = 1
#: Prefix of a bot level naming an external command: ``cmd:node examples/quintet-bot.js``.
PREFIX: Final = "cmd:"
#: Seconds a bot has per decision when the view's budget sets none.
DEFAULT_TIMEOUT: Final = 5.0
#: Seconds a bot has to answer ``hello``.
STARTUP_TIMEOUT: Final = 10.0
#: Seconds allowed on top of ``time_ms`` for the pipes and the process's scheduling.
MARGIN: Final = 0.5
#: A decision's wall-time ceiling, as a multiple of its CPU budget (plus MARGIN): a bot
#: that waits instead of computing is still stopped.
WALL_PER_CPU: Final = 5.0
#: Seconds between two readings of a bot's CPU time while it thinks.
CPU_POLL: Final = 0.05
#: Seconds a bot has to exit after ``quit`` before it is killed.
GRACE: Final = 1.0
#: Longest line read from a bot, in bytes.
MAX_LINE: Final = 1 << 20

#: Every module of the package logs here (``docs/bot-protocol.md`` names it).
log = logging.getLogger("quintet.botproto")


def is_external(level: str) -> bool:
    """Return whether a bot level names an external command (``cmd:...``)."""
    return level.strip().startswith(PREFIX)


def command_of(level: str) -> str:
    """Return the command of a ``cmd:`` level (everything after the prefix).

    Raises:
        InvalidOptionError: the level names no command.
    """
    command = level.strip()[len(PREFIX) :].strip()
    if not command:
        raise InvalidOptionError("a cmd: bot needs a command, e.g. 'cmd:node examples/bot.js'")
    return command


def encode(message: JSON) -> bytes:
    """Return a message as one protocol line (compact JSON, UTF-8, newline-terminated)."""
    return (json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


__all__ = [
    "CPU_POLL",
    "DEFAULT_TIMEOUT",
    "GRACE",
    "JSON",
    "MARGIN",
    "MAX_LINE",
    "PREFIX",
    "PROTOCOL",
    "STARTUP_TIMEOUT",
    "VERSION",
    "WALL_PER_CPU",
    "command_of",
    "encode",
    "is_external",
    "log",
]
