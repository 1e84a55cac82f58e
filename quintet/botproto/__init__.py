"""The quintet bot protocol: computer players as programs speaking JSON lines.

An *external bot* is any program that reads one JSON object per line on its standard
input and writes one per line on its standard output (UTF-8), in the spirit of UCI for
chess engines and the Blue Chip protocol for bridge robots. ``docs/bot-protocol.md``
is the full specification with an example session; in short (version 1)::

    manager -> bot                                     bot -> manager
    {"type":"hello","protocol":"quintet-bot","version":1}
                                                       {"type":"ready","name":"my bot"}
    {"type":"new_hand","game":"quinto",...,"seat":0,"hands":[[...],null,null,null],...}
    {"type":"event","event":"action","seat":1,"action":{...},"text":"pass"}
    {"type":"decide","seat":0,"legal":["pass","double"],"time_ms":5000,...}
                                                       {"type":"action","action":"double"}
    {"type":"signal?","seat":2,"legal":["signal up",...],"time_ms":5000,...}
                                                       {"type":"pass"}
    {"type":"end_hand","scores":[...],...}
    {"type":"quit"}

The table-manager side is :class:`ExternalBot`, a :class:`~quintet.bots.Bot` like the
others: ``make_bot("cmd:node examples/quintet-bot.js")`` seats one anywhere a level name
is accepted (the arena, :class:`~quintet.table.Table`). It starts the program when it
first has to decide, tells it only what its player may see (every message is built from
the view's observation and the public event log of the view's *shadow* state, whose
hidden cards are not the true ones, and is checked against the observation before it is
sent), and sends the events incrementally. When the program crashes, does not answer in
time, answers something that is not an action, or an illegal action, a fallback bot
(``heuristic``) decides instead, and the event is logged and kept in
:attr:`ExternalBot.incidents`.

The bot side, for bots written in Python, is :func:`serve` (with :class:`BotHand`, what
the bot knows of the hand)::

    from quintet.botproto import serve
    serve(lambda hand, request: request["legal"][0], name="first legal")

Modules: :mod:`~quintet.botproto.protocol` (constants, the line encoding, ``cmd:``
levels), :mod:`~quintet.botproto.messages` (what the manager sends),
:mod:`~quintet.botproto.process` (a bot's process and its pipes),
:mod:`~quintet.botproto.manager` (:class:`ExternalBot`) and
:mod:`~quintet.botproto.bot_side` (:func:`serve`). Everything is importable from here.
"""

from __future__ import annotations

from quintet.botproto.bot_side import BotHand, Chooser, serve
from quintet.botproto.manager import ExternalBot, Incident, close_bots, finish_hand
from quintet.botproto.messages import (
    cards_json,
    end_hand_message,
    hand_events,
    new_hand_message,
    request_message,
    visible_mask,
)
from quintet.botproto.process import probe
from quintet.botproto.protocol import (
    DEFAULT_TIMEOUT,
    GRACE,
    JSON,
    MARGIN,
    MAX_LINE,
    PREFIX,
    PROTOCOL,
    STARTUP_TIMEOUT,
    VERSION,
    command_of,
    encode,
    is_external,
)

__all__ = [
    "DEFAULT_TIMEOUT",
    "GRACE",
    "JSON",
    "MARGIN",
    "MAX_LINE",
    "PREFIX",
    "PROTOCOL",
    "STARTUP_TIMEOUT",
    "VERSION",
    "BotHand",
    "Chooser",
    "ExternalBot",
    "Incident",
    "cards_json",
    "close_bots",
    "command_of",
    "encode",
    "end_hand_message",
    "finish_hand",
    "hand_events",
    "is_external",
    "new_hand_message",
    "probe",
    "request_message",
    "serve",
    "visible_mask",
]
