"""Computer players for both games, by level: ``random``, ``heuristic``, ``pimc``, ``ismcts``.

``pimc-2026`` is ``pimc`` (and its heuristic playouts) frozen as it played when issue 13
was filed: the ladder's yardstick (:mod:`quintet.bots.frozen`).

An external program speaking the bot protocol (:mod:`quintet.botproto`) is the level
``cmd:COMMAND``, once its command is allowed with :func:`allow_commands`.

Time budgets (:class:`Budget`, the ``seconds`` parameters) are CPU seconds of the
deciding thread (:func:`cpu_clock`), not wall time.

>>> bot = make_bot("heuristic")
>>> bot.name
'heuristic'
"""

from __future__ import annotations

from collections.abc import Callable

from quintet.actions import Action
from quintet.bots.base import Bot, BotView, Budget, cpu_clock, pick_best
from quintet.bots.heuristic import HeuristicBot
from quintet.bots.play import bot_step, play_out
from quintet.bots.random_bot import RandomBot
from quintet.errors import InvalidOptionError

_LEVELS: dict[str, Callable[[], Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
}


def levels() -> list[str]:
    """Return the names of the bot levels (random and heuristic first).

    Which is strongest depends on the game and the budget: the ladder
    (``quintet arena --ladder``, published in docs/bots.md) rates them per game.
    """
    _register_search_bots()
    return list(_LEVELS)


_COMMANDS: set[str] = set()
_ANY_COMMAND = [False]


def allow_commands(*commands: str, any_command: bool = False) -> None:
    """Let :func:`make_bot` seat external bots: ``cmd:`` levels naming these commands.

    Running a ``cmd:`` level runs its command on this machine, so no command is allowed
    until the program's operator allows it (a server must never take one from a client);
    ``any_command`` allows every command (a trusted, single-user program).
    """
    _COMMANDS.update(c.strip() for c in commands)
    _ANY_COMMAND[0] = _ANY_COMMAND[0] or any_command


def make_bot(level: str) -> Bot:
    """Return a new bot of ``level``, optionally with parameters: ``pimc:samples=10``.

    Parameters follow the level's name, each as ``:name=value`` (numbers or text), and
    are passed to the bot's constructor (``pimc``: seconds, samples, exact_tricks,
    max_nodes, alphamu, worlds and the rest of :class:`~quintet.bots.pimc.PimcBot`'s;
    ``ismcts``: iterations, seconds, exploration, rollout; ``seconds`` are CPU
    seconds).

    ``cmd:COMMAND`` (everything after ``cmd:`` is a shell command) is an external bot,
    :class:`quintet.botproto.ExternalBot`, if :func:`allow_commands` allowed the command.

    Raises:
        InvalidOptionError: no bot level has that name, a parameter is not the level's,
            or an external bot's command is not allowed.
    """
    if level.strip().startswith("cmd:"):
        from quintet.botproto import ExternalBot, command_of

        command = command_of(level)
        if not (_ANY_COMMAND[0] or command in _COMMANDS):
            raise InvalidOptionError(
                f"external bot command {command!r} is not allowed here "
                "(quintet.bots.allow_commands)"
            )
        return ExternalBot(command)
    _register_search_bots()
    name, *params = level.strip().split(":")
    try:
        factory = _LEVELS[name]
    except KeyError:
        if name in _NEEDS_EXTRA:
            raise InvalidOptionError(
                f"bot level {name!r} needs the 'solver' extra: pip install 'quintet-cards[solver]'"
            ) from None
        known = ", ".join(_LEVELS)
        raise InvalidOptionError(f"unknown bot level {name!r} (known: {known})") from None
    kwargs: dict[str, object] = {}
    for item in params:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise InvalidOptionError(f"bot parameter {item!r} must be name=value")
        value: object = raw
        for convert in (int, float):
            try:
                value = convert(raw)
                break
            except ValueError:
                continue
        kwargs[key] = value
    try:
        return factory(**kwargs)
    except (TypeError, ValueError) as e:
        raise InvalidOptionError(f"bad parameter for bot {name!r}: {e}") from None


def explain(bot: Bot, view: BotView, signal_only: bool = False) -> tuple[Action | None, str | None]:
    """Return what ``bot`` would do for ``view`` and why, in one sentence (a hint).

    A bot that can say why has ``explain(view) -> (action, reason)`` (``heuristic``: the
    rule it applied; ``pimc``: the value of the choice over its deals); for any other the
    reason is None. ``signal_only``: only a signal is wanted (None to stay silent).
    """
    if signal_only:
        signal = bot.signal(view)
        return signal, None if signal is None else "the meaning of the signal agreed before play"
    method = getattr(bot, "explain", None)
    if method is None:
        return bot.act(view), None
    action, reason = method(view)
    return action, reason


#: Levels that could not be loaded because an extra is missing (the solver's numba).
_NEEDS_EXTRA: set[str] = set()


def _register_search_bots() -> None:
    # The search bots import the solver (numba); load them only when asked for.
    if "pimc" in _LEVELS or "pimc" in _NEEDS_EXTRA:
        return
    try:
        from quintet.bots.frozen.pimc_2026 import Pimc2026Bot
        from quintet.bots.pimc import PimcBot

        _LEVELS["pimc-2026"] = Pimc2026Bot
        _LEVELS["pimc"] = PimcBot
    except ImportError:  # the 'solver' extra is not installed
        _NEEDS_EXTRA.update(("pimc-2026", "pimc"))
    try:
        from quintet.bots.ismcts import IsmctsBot

        _LEVELS["ismcts"] = IsmctsBot
    except ImportError:  # pragma: no cover
        pass


__all__ = [
    "Bot",
    "BotView",
    "Budget",
    "HeuristicBot",
    "RandomBot",
    "allow_commands",
    "bot_step",
    "cpu_clock",
    "explain",
    "levels",
    "make_bot",
    "pick_best",
    "play_out",
]
