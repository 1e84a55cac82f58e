"""The bot side, for bots written in Python: :func:`serve` runs the protocol's loop and
:class:`BotHand` keeps what the bot knows of the hand."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import IO

from quintet.botproto.protocol import JSON, PROTOCOL, VERSION


class BotHand:
    """What a bot knows of the hand in play, kept from the manager's messages (bot side).

    ``hands[s]`` is seat ``s``'s current hand (card codes) if the bot may see it, else
    None; ``actions`` every action so far as ``(seat, text)``; ``events`` every event
    message; ``start`` the ``new_hand`` message and ``end`` the ``end_hand`` one.
    """

    def __init__(self, start: JSON) -> None:
        self.start = start
        self.game: str = start["game"]
        self.variant: str = start["variant"]
        self.options: JSON = dict(start.get("options", {}))
        self.seat: int = start["seat"]
        self.controls: list[int] = list(start.get("controls", [self.seat]))
        self.dealer: int = start["dealer"]
        self.hands: list[list[str] | None] = [
            None if h is None else list(h) for h in start["hands"]
        ]
        self.actions: list[tuple[int, str]] = []
        self.events: list[JSON] = []
        self.end: JSON | None = None

    def apply(self, event: JSON) -> None:
        """Update the hand with an ``event`` message."""
        self.events.append(event)
        kind = event.get("event")
        if kind == "action":
            seat, text = event["seat"], event["text"]
            self.actions.append((seat, text))
            hand = self.hands[seat]
            if event["action"].get("type") == "play" and hand is not None and text in hand:
                hand.remove(text)
        elif kind == "reveal":
            self.hands[event["seat"]] = list(event["cards"])


#: A bot-side decision: (the hand, the request) -> an action's text (or record object);
#: for ``signal?`` None gives no signal.
Chooser = Callable[[BotHand | None, JSON], str | JSON | None]


def serve(
    decide: Chooser,
    signal: Chooser | None = None,
    *,
    name: str = "python bot",
    infile: IO[str] | None = None,
    outfile: IO[str] | None = None,
) -> None:
    """Run a bot on standard input and output until ``quit`` or end of input (bot side).

    ``decide(hand, request)`` answers every ``decide`` with one of ``request["legal"]``;
    ``signal(hand, request)`` answers ``signal?`` (None: no signal). Without ``signal``
    the bot says in ``ready`` that it never signals, and is not asked.
    """
    inp = infile or sys.stdin
    out = outfile or sys.stdout

    def send(message: JSON) -> None:
        out.write(json.dumps(message, separators=(",", ":")) + "\n")
        out.flush()

    hand: BotHand | None = None
    for line in inp:
        if not line.strip():
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            ready: JSON = {"type": "ready", "name": name, "protocol": PROTOCOL}
            ready["version"] = VERSION
            if signal is None:
                ready["signals"] = False
            send(ready)
        elif kind == "new_hand":
            hand = BotHand(msg)
        elif kind == "event" and hand is not None:
            hand.apply(msg)
        elif kind == "end_hand" and hand is not None:
            hand.end = msg
        elif kind == "decide":
            send({"type": "action", "action": decide(hand, msg)})
        elif kind == "signal?":
            choice = signal(hand, msg) if signal is not None else None
            send({"type": "pass"} if choice is None else {"type": "action", "action": choice})
        elif kind == "quit":
            return


__all__ = ["BotHand", "Chooser", "serve"]
