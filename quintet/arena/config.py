"""What an arena plays: the contestants (:class:`BotSpec`) and :class:`ArenaConfig`."""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Final

from quintet.arena.seating import roles_of
from quintet.botproto import ExternalBot, command_of, is_external
from quintet.bots import Bot, Budget, levels, make_bot
from quintet.errors import InvalidOptionError
from quintet.games import GameInfo, VariantInfo, find_game, games
from quintet.quinto import QuintoRules
from quintet.quintus import QuintusRules

JSON = dict[str, Any]

#: The Quinto target used for single duplicate hands: above any hand's points, so every
#: hand is played out and its result is the hand points difference.
HAND_TARGET: Final = 10_000
#: Where the tasks run: a local process pool, or Ray.
BACKENDS: Final = ("local", "ray")


# --------------------------------------------------------------------------- bots


@dataclass(frozen=True)
class BotSpec:
    """A contestant: its ``label`` in results (unique) and the ``level`` that makes it."""

    label: str
    level: str

    def make(self) -> Bot:
        """Return a new bot for one seat of one hand."""
        if is_external(self.level):
            # The arena's user named the command: no allow_commands needed.
            return ExternalBot(command_of(self.level))
        return make_bot(self.level)


def parse_bot_spec(text: str, label: str | None = None) -> BotSpec:
    """Return the contestant a ``--bots`` entry names: a bot level, or ``cmd:COMMAND``.

    Raises:
        InvalidOptionError: no bot level has that name, or ``cmd:`` without a command.
    """
    level = text.strip()
    if is_external(level):
        command_of(level)
        return BotSpec(label or level, level)
    known = levels()
    if level.split(":")[0] not in known:
        raise InvalidOptionError(f"unknown bot {level!r} (known levels: {', '.join(known)})")
    make_bot(level)  # a bad parameter fails here, before any deal is played
    return BotSpec(label or level, level)


def parse_bots(texts: str | Sequence[str]) -> tuple[BotSpec, ...]:
    """Return the contestants of ``A,B,...``; a bot named twice is labelled ``name#1``, ...

    Raises:
        InvalidOptionError: fewer than two bots, or an unknown one.
    """
    items = texts.split(",") if isinstance(texts, str) else list(texts)
    names = [t.strip() for t in items if t.strip()]
    if len(names) < 2:
        raise InvalidOptionError(f"an arena needs at least two bots, not {len(names)}")
    seen: dict[str, int] = {}
    specs = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        label = f"{name}#{seen[name]}" if names.count(name) > 1 else name
        specs.append(parse_bot_spec(name, label))
    return tuple(specs)


def parse_options(items: Iterable[str]) -> dict[str, Any]:
    """Return rules options from ``name=value`` strings (``true``/``false``, integers, text).

    Raises:
        InvalidOptionError: an item without ``=``.

    >>> parse_options(["target=300", "joker_eleventh_trick=true"])
    {'target': 300, 'joker_eleventh_trick': True}
    """
    out: dict[str, Any] = {}
    for item in items:
        name, eq, text = item.partition("=")
        if not eq or not name.strip():
            raise InvalidOptionError(f"an option is name=value, not {item!r}")
        value: Any = text.strip()
        if value.lower() in ("true", "false"):
            value = value.lower() == "true"
        else:
            with contextlib.suppress(ValueError):
                value = int(value)
        out[name.strip()] = value
    return out


# ------------------------------------------------------------------------- config


@dataclass(frozen=True)
class ArenaConfig:
    """What to play (see the module docstring); :meth:`resolved` fills in the defaults.

    ``variant`` None is the game's first (partnership, base); ``jobs`` None is every core;
    ``rubbers`` None is ``deals // 8`` (at least 1) for Quinto; ``budget`` is CPU seconds per
    decision and ``iterations`` the search bots' iteration budget; ``records`` keeps the
    record of every hand; ``progress`` shows progress on standard error (a tqdm bar on a
    terminal, else a line at each tenth of the tasks);
    ``backend`` is ``local`` or ``ray``, and ``address`` the Ray cluster's (None: a local
    Ray instance).
    """

    game: str = "quinto"
    variant: str | None = None
    bots: tuple[str, ...] = ("random", "heuristic")
    deals: int = 100
    seed: int = 0
    jobs: int | None = None
    budget: float | None = None
    iterations: int | None = None
    rubbers: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    records: bool = True
    progress: bool = False
    backend: str = "local"
    address: str | None = None

    def resolved(self) -> ArenaConfig:
        """Return the config with defaults filled in, checked.

        Raises:
            InvalidOptionError: unknown game, variant, bot or rules option, or a count out
                of range.
        """
        info = self.game_info()
        variant = info.variant(self.variant or None).name
        if self.deals < 1:
            raise InvalidOptionError(f"deals must be at least 1, not {self.deals}")
        jobs = self.jobs if self.jobs is not None else _cores()
        if jobs < 1:
            raise InvalidOptionError(f"jobs must be at least 1, not {jobs}")
        if self.budget is not None and self.budget <= 0:
            raise InvalidOptionError(f"budget must be positive, not {self.budget}")
        if self.iterations is not None and self.iterations < 1:
            raise InvalidOptionError(f"iterations must be at least 1, not {self.iterations}")
        if not roles_of(info).plays_matches:
            if self.rubbers:
                those = " and ".join(g.title for g in games() if roles_of(g).plays_matches)
                raise InvalidOptionError(
                    f"rubbers are a {those} thing: {info.title} plays single hands"
                )
            rubbers = 0
        else:
            rubbers = max(1, self.deals // 8) if self.rubbers is None else self.rubbers
            if rubbers < 0:
                raise InvalidOptionError(f"rubbers must be 0 or more, not {rubbers}")
        if self.backend not in BACKENDS:
            known = ", ".join(BACKENDS)
            raise InvalidOptionError(f"unknown backend {self.backend!r} (known: {known})")
        if self.address is not None and self.backend != "ray":
            raise InvalidOptionError("an address is for the ray backend (--backend ray)")
        if self.backend == "ray" and importlib.util.find_spec("ray") is None:
            raise InvalidOptionError(
                "the ray backend needs Ray: pip install 'quintet-cards[ray]' (or 'ray>=2.9')"
            )
        bots = self.bots.split(",") if isinstance(self.bots, str) else self.bots
        out = replace(
            self,
            variant=variant,
            bots=tuple(b.strip() for b in bots),
            jobs=jobs,
            rubbers=rubbers,
            options=dict(self.options),
        )
        out.match_rules()
        out.hand_rules()
        out.specs()
        return out

    def specs(self) -> tuple[BotSpec, ...]:
        """Return the contestants."""
        return parse_bots(self.bots)

    def game_info(self) -> GameInfo:
        """Return the game's description.

        Raises:
            InvalidOptionError: unknown game.
        """
        return find_game(self.game)

    def variant_info(self) -> VariantInfo:
        """Return the variant's description (None: the game's first).

        Raises:
            InvalidOptionError: unknown game or variant.
        """
        return self.game_info().variant(self.variant or None)

    def match_rules(self) -> QuintoRules | QuintusRules:
        """Return the rules with the given options (rubbers and Quintus hands).

        Raises:
            InvalidOptionError: unknown option or wrong value.
        """
        return self.game_info().rules(self.variant or None, self.options)

    def hand_rules(self) -> QuintoRules | QuintusRules:
        """Return the rules of single duplicate hands: a game won at a target (Quinto)
        has the target :data:`HAND_TARGET`."""
        rules: Any = self.match_rules()
        if any(o.name == "target" for o in self.game_info().options):
            rules = replace(rules, target=HAND_TARGET)
        out: QuintoRules | QuintusRules = rules
        return out

    def bot_budget(self) -> Budget | None:
        """Return the bots' budget, or None when neither seconds nor iterations are set."""
        if self.budget is None and self.iterations is None:
            return None
        return Budget(seconds=self.budget, iterations=self.iterations)

    def to_json(self) -> JSON:
        """Return the configuration as JSON (the command's arguments)."""
        out = asdict(self)
        out["bots"] = list(self.bots)
        out["options"] = dict(self.options)
        return out


def _cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1  # pragma: no cover


__all__ = [
    "BACKENDS",
    "HAND_TARGET",
    "ArenaConfig",
    "BotSpec",
    "parse_bot_spec",
    "parse_bots",
    "parse_options",
]
