"""Running bots at a table: whose turn, which bot, and applying what it answers."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from quintet.actions import Action
from quintet.bots.base import Bot, BotView, Budget
from quintet.game import GameState

#: Called with (state, seat, action, bot) after every action a bot takes.
Listener = Callable[[Any, int, Action, Bot], None]


def bot_step(
    state: GameState,
    bots: Sequence[Bot | None],
    rng: random.Random | Callable[[int], random.Random],
    budget: Budget | None = None,
    listener: Listener | None = None,
) -> list[tuple[int, Action]]:
    """Let the bots act once: the first bot that signals out of turn, else the seat to act.

    This is the one rule of every table (the terminal's, the web server's, the arena's):
    at each point of a hand, each bot that may signal is asked once, in seat order, and
    the first signal given is made (the next point asks again); when none signals, the
    bot of the seat to act decides. ``bots[s]`` plays for the player at seat ``s`` (and,
    in Quinto's dummy variant, for the seats that player controls); a ``None`` entry is a
    person and is skipped. ``rng`` gives each decision its generator: a function of the
    deciding seat (a table seeds by the point of the game, :mod:`quintet.table`), or one
    generator the decisions draw their seeds from in turn. Returns the actions applied.
    Raises ValueError if a bot answers illegally.
    """
    if state.is_terminal():
        return []
    rng_for: Callable[[int], random.Random]
    if isinstance(rng, random.Random):
        source = rng
        rng_for = lambda seat: random.Random(source.getrandbits(64))  # noqa: E731
    else:
        rng_for = rng
    turn = state.current_player()
    for seat in state.actors():
        if seat == turn:
            continue
        bot = bots[state.controller(seat)]
        if bot is None:
            continue
        view = BotView.of(state, seat, rng_for(seat), budget)
        sig = bot.signal(view)
        if sig is not None:
            _apply(state, seat, sig, bot, view, listener)
            return [(seat, sig)]
    bot = bots[state.controller(turn)]
    if bot is None:
        return []
    view = BotView.of(state, turn, rng_for(turn), budget)
    action = bot.act(view)
    _apply(state, turn, action, bot, view, listener)
    return [(turn, action)]


def _apply(
    state: GameState,
    seat: int,
    action: Action,
    bot: Bot,
    view: BotView,
    listener: Listener | None,
) -> None:
    if action not in view.legal:
        raise ValueError(f"bot {bot.name} answered an illegal action {action!r} for seat {seat}")
    state.apply_action(action, seat)
    if listener is not None:
        listener(state, seat, action, bot)


def play_out(
    state: GameState,
    bots: Sequence[Bot | None],
    rng: random.Random,
    budget: Budget | None = None,
    listener: Listener | None = None,
) -> None:
    """Let the bots play ``state`` to the end of the hand (every seat must have a bot)."""
    while not state.is_terminal():
        if not bot_step(state, bots, rng, budget, listener):
            raise ValueError(f"no bot for seat {state.current_player()}")
