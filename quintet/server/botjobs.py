"""What the server's worker processes run: one bot decision at a time.

Kept apart from :mod:`quintet.server.live` so that a worker imports the bots and
nothing of the web server.
"""

from __future__ import annotations

import random

from quintet.actions import Action
from quintet.bots import BotView, explain, make_bot
from quintet.game import GameState


def decide(spec: str, state: GameState, seat: int, seed: str, kind: str) -> Action | None:
    """Return a bot's action (``kind`` act) or signal (``kind`` signal) for ``seat``.

    ``spec`` is the bot the server's level names (``pimc:seconds=1``), never a client's
    text. Runs on a worker thread or process: ``state`` is the caller's own copy. The
    bot sees only a :class:`~quintet.bots.BotView` (its seat's observation).
    """
    bot = make_bot(spec)
    view = BotView.of(state, seat, random.Random(seed))
    if kind == "signal":
        return bot.signal(view)
    return bot.act(view)


def advise(
    spec: str, state: GameState, seat: int, seed: str, kind: str
) -> tuple[Action | None, str | None]:
    """Return :func:`decide`'s answer and the bot's reason in one sentence (a hint).

    The reason is the bot's own (:func:`quintet.bots.explain`): the heuristic's rule,
    pimc's value of the choice over its deals; None when the bot gives none.
    """
    bot = make_bot(spec)
    view = BotView.of(state, seat, random.Random(seed))
    return explain(bot, view, signal_only=kind == "signal")


def warm_up() -> None:
    """Load the search bots (numba kernels) in a new worker, before its first decision."""
    from quintet.bots import levels

    levels()
