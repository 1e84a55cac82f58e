"""Tournaments between bots: duplicate deals, confidence intervals, records.

``quintet arena`` (and :func:`run_arena` from Python) plays bots against each other over
many deals in *duplicate* form: every deal is replayed with the bots' seats exchanged, so
the cards cancel out and what is left is the difference in play::

    quintet arena --game quinto|quintus [--variant V] --bots A,B[,C...] [--deals N]
        [--seed S] [--jobs J] [--budget SECONDS] [--iterations N] [--rubbers R]
        [--out results.json] [--no-records] [--plot diff.png] [--option name=value ...]
        [--backend local|ray [--address ADDR]]

    result = run_arena(ArenaConfig(game="quinto", bots=("random", "heuristic"), deals=200))
    print(result.table()); result.write_json("results.json"); result.plot("diff.png")

Seatings of one deal (``A`` and ``B`` are the two bots of a pair; a bot holds every seat of
its role, and one new bot object is made per seat and hand):

* Quinto partnership: dealer ``i % 4``; A at N-S against B at E-W, then B at N-S.
* Quinto dummy: lone seat ``L = i % 4``, who deals (a dummy game's first hand is dealt by the
  lone player); A alone (with the dummy at ``L + 2``) against B at ``L + 1``/``L + 3``, then
  B alone against A.
* Quintus: dealer ``d = i % 5``; three seat groups: ``{d + 4}`` (the base game's quintus),
  ``{d, d + 2}`` (its team 0) and ``{d + 1, d + 3}`` (its team 1). The deal is played in the
  6 ways of giving the groups to A and B that do not give all three to one bot, so each bot
  holds each seat in 3 of the 6. In the base game the groups are the roles (quintus, team
  0, team 1); in the bidding variant the auction picks the quintus, so the groups are only
  seats, the same for every deal, and each bot sits in each of them equally often. A void
  bidding hand (all five pass) scores 0 for every seat.

Scores: a seat's score in a hand is, in Quinto, the hand points of its side (quints and
trick points) and, in Quintus, what the seat gains in the hand (``QuintusState.scores()``).
In one seating, A's result is the mean score of the seats A holds minus the mean score of
the seats B holds; a deal's result is the mean over its seatings (computed exactly with
fractions, so a bot against itself gives exactly 0). Single Quinto hands are played with
the target set to :data:`HAND_TARGET`, so no hand stops early for a game won; the
``target`` option applies to the rubbers only.

Games and rubbers (Quinto): ``rubbers`` duplicate pairs of whole matches (a rubber in the
partnership variant, one game from the handicap in the dummy variant) are also played
under the given rules: match ``r`` has first dealer ``r % 4`` (dummy: lone seat ``r % 4``),
its ``k``-th hand is dealt from ``(seed, r, k)`` in both seatings, and the winners of games
and matches and the match points (rubber totals with the bonus; dummy game scores with the
handicap) are tallied per bot. Default ``deals // 8`` (at least 1); 0 skips them. Quintus
sessions are not played: the arena reports each bot's mean hand score per seat held, and as
the quintus.

Determinism: deal ``i`` is dealt by ``random.Random(f"{seed}:deal:{i}")`` and played with
the table generator ``random.Random(f"{seed}:play:{i}")`` from which every bot view draws
its seed (:func:`quintet.bots.bot_step`). The table generator is deliberately the same in
every seating of a deal (common random numbers): identical bots then play every seating
identically, so a bot against itself scores exactly 0 and noise from the bots' own
randomness partly cancels too. Each deal is played in all its seatings by one task, tasks
run in a process pool and results are gathered in deal order: the per-deal results and the
summary depend only on the configuration and seed, never on ``jobs`` or scheduling, as
long as the bots are deterministic given their seed and an ``iterations`` budget (a
``budget`` in CPU seconds makes search bots depend on the machine's speed, though not on
its load).

Statistics: per pair, the mean of the deal results with a 95% confidence interval, mean ±
q·sd/√n with q = 1.96 for n ≥ 30 and Student's t quantile (n - 1 degrees of freedom) below
that; the interval is "clear" when it excludes 0.

Bots are named by level (:func:`quintet.bots.levels`) or, for a program speaking the bot
protocol, ``cmd:COMMAND`` (:mod:`quintet.botproto`; a comma cannot appear in it);
:func:`parse_bot_spec` is the one place a bot string is read. Several bots play a round
robin of all pairs, on the same deals. An external bot's process lives for one seat of
one hand; every decision it could not make (a crash, a timeout, an illegal answer) is made
by its fallback bot and listed with the deal in ``incidents``.

Backends: ``local`` (default) runs the tasks in a process pool of ``jobs`` processes;
``ray`` runs the same tasks as Ray remote functions, on the cluster at ``address`` or, by
default, on a local Ray instance with ``jobs`` CPUs (a Ray already initialised in this
process is used as it is). Results are gathered in deal order either way, so for the same
seed both give the same results (needs the ``ray`` extra: ``pip install
'quintet-cards[ray]'``; on a remote cluster quintet, and the command of an external bot,
must be installed on every node).

>>> summarize([1.0, 2.0, 3.0]).mean
2.0
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import logging
import math
import os
import random
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field, replace
from fractions import Fraction
from itertools import combinations, product
from typing import Any, Final

from quintet.botproto import (
    ExternalBot,
    close_bots,
    command_of,
    finish_hand,
    is_external,
    probe,
)
from quintet.bots import Bot, Budget, levels, make_bot, play_out
from quintet.errors import InvalidOptionError
from quintet.quinto import QuintoMatch, QuintoRules
from quintet.quinto import random_deal as quinto_deal
from quintet.quintus import QuintusMatch, QuintusRules
from quintet.quintus import random_deal as quintus_deal
from quintet.record import GAMES, record_from_match

JSON = dict[str, Any]

#: The Quinto target used for single duplicate hands: above any hand's points, so every
#: hand is played out and its result is the hand points difference.
HAND_TARGET: Final = 10_000
FORMAT: Final = "quintet-arena"
VERSION: Final = 1
#: Student's t 0.975 quantile for 1..29 degrees of freedom.
_T975: Final = (
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
    2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
    2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452,
)  # fmt: skip
_Z975: Final = 1.96
_MAX_MATCH_HANDS: Final = 1000
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
    record of every hand; ``progress`` shows a progress bar (with tqdm) on standard error;
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
        if self.game not in GAMES:
            raise InvalidOptionError(f"unknown game {self.game!r} (known: quinto, quintus)")
        variant = self.variant or GAMES[self.game][0]
        if variant not in GAMES[self.game]:
            known = ", ".join(GAMES[self.game])
            raise InvalidOptionError(f"unknown {self.game} variant {variant!r} (known: {known})")
        if self.deals < 1:
            raise InvalidOptionError(f"deals must be at least 1, not {self.deals}")
        jobs = self.jobs if self.jobs is not None else _cores()
        if jobs < 1:
            raise InvalidOptionError(f"jobs must be at least 1, not {jobs}")
        if self.budget is not None and self.budget <= 0:
            raise InvalidOptionError(f"budget must be positive, not {self.budget}")
        if self.iterations is not None and self.iterations < 1:
            raise InvalidOptionError(f"iterations must be at least 1, not {self.iterations}")
        if self.game == "quintus":
            if self.rubbers:
                raise InvalidOptionError("rubbers are a Quinto thing: Quintus plays single hands")
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

    def match_rules(self) -> QuintoRules | QuintusRules:
        """Return the rules with the given options (rubbers and Quintus hands).

        Raises:
            InvalidOptionError: unknown option or wrong value.
        """
        variant = self.variant or GAMES[self.game][0]
        if self.game == "quinto":
            return QuintoRules.from_options(variant, self.options)
        return QuintusRules.from_options(variant, self.options)

    def hand_rules(self) -> QuintoRules | QuintusRules:
        """Return the rules of single duplicate hands (Quinto: target :data:`HAND_TARGET`)."""
        rules = self.match_rules()
        if isinstance(rules, QuintoRules):
            return replace(rules, target=HAND_TARGET)
        return rules

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


# ------------------------------------------------------------------------ results


@dataclass(frozen=True)
class Summary:
    """Mean of ``n`` values with its 95% confidence interval (None when n < 2).

    ``clear`` says the interval excludes 0.
    """

    n: int
    mean: float
    sd: float | None
    low: float | None
    high: float | None

    @property
    def half_width(self) -> float | None:
        """The interval's half width."""
        return None if self.low is None or self.high is None else (self.high - self.low) / 2

    @property
    def clear(self) -> bool:
        """Whether the interval lies wholly on one side of zero."""
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)

    def to_json(self) -> JSON:
        """Return the summary as JSON."""
        return {
            "n": self.n,
            "mean": self.mean,
            "sd": self.sd,
            "ci95": None if self.low is None else [self.low, self.high],
            "clear_of_zero": self.clear,
        }


def t_quantile(n: int) -> float:
    """Return the 95% two-sided quantile for a mean of ``n`` values (t below 30, else z)."""
    if n < 2:
        return math.inf
    return _T975[n - 2] if n < 30 else _Z975


def summarize(values: Sequence[float]) -> Summary:
    """Return the mean of ``values`` with its 95% confidence interval.

    Raises:
        ValueError: no values.

    >>> s = summarize([2.0, 4.0, 6.0, 8.0])
    >>> s.mean, round(s.sd, 4), [round(x, 3) for x in (s.low, s.high)], s.clear
    (5.0, 2.582, [0.892, 9.108], True)
    """
    n = len(values)
    if n == 0:
        raise ValueError("no values to summarize")
    mean = math.fsum(values) / n
    if n < 2:
        return Summary(n, mean, None, None, None)
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in values) / (n - 1))
    hw = t_quantile(n) * sd / math.sqrt(n)
    return Summary(n, mean, sd, mean - hw, mean + hw)


@dataclass(frozen=True)
class SeatingResult:
    """One hand of a deal: the bot label at each seat, each seat's score, A's result."""

    players: tuple[str, ...]
    scores: tuple[int, ...]
    diff: float
    solo: int | None = None

    def to_json(self) -> JSON:
        """Return the seating as JSON."""
        return {
            "players": list(self.players),
            "scores": list(self.scores),
            "diff": self.diff,
            "solo_seat": self.solo,
        }


@dataclass(frozen=True)
class DealResult:
    """One deal in all its seatings; ``diff`` is A's points per deal minus B's."""

    deal: int
    dealer: int
    diff: float
    seatings: tuple[SeatingResult, ...]
    #: External bots' incidents (:meth:`quintet.botproto.Incident.to_json` with the
    #: ``seating`` and the bot's ``label``).
    incidents: tuple[JSON, ...] = ()

    def to_json(self) -> JSON:
        """Return the deal result as JSON (``incidents`` only when there are some)."""
        out = {
            "deal": self.deal,
            "dealer": self.dealer,
            "diff": self.diff,
            "seatings": [s.to_json() for s in self.seatings],
        }
        if self.incidents:
            out["incidents"] = list(self.incidents)
        return out


@dataclass(frozen=True)
class MatchSeating:
    """One whole Quinto match (a rubber, or a dummy game): its tallies per bot label."""

    players: tuple[str, ...]
    hands: int
    games_won: dict[str, int]
    winner: str | None
    points: dict[str, int]

    def to_json(self) -> JSON:
        """Return the match as JSON."""
        return {
            "players": list(self.players),
            "hands": self.hands,
            "games_won": dict(self.games_won),
            "winner": self.winner,
            "points": dict(self.points),
        }


@dataclass(frozen=True)
class MatchResult:
    """Duplicate match ``index``: both seatings; ``diff`` is A's mean points minus B's."""

    index: int
    diff: float
    seatings: tuple[MatchSeating, ...]
    #: External bots' incidents, as in :class:`DealResult` (with the ``hand`` too).
    incidents: tuple[JSON, ...] = ()

    def to_json(self) -> JSON:
        """Return the duplicate match as JSON (``incidents`` only when there are some)."""
        out: JSON = {
            "match": self.index,
            "diff": self.diff,
            "seatings": [s.to_json() for s in self.seatings],
        }
        if self.incidents:
            out["incidents"] = list(self.incidents)
        return out


@dataclass(frozen=True)
class BotStats:
    """A bot's mean score per seat and hand, and as the player alone (quintus, lone)."""

    hands: int
    mean: float
    solo_hands: int
    solo_mean: float | None

    def to_json(self) -> JSON:
        """Return the statistics as JSON."""
        return asdict(self)


@dataclass
class PairResult:
    """Everything one pair played: deals (and Quinto matches) with their summaries."""

    a: str
    b: str
    deals: list[DealResult]
    matches: list[MatchResult]
    summary: Summary
    match_summary: Summary | None
    bots: dict[str, BotStats]

    def tally(self) -> dict[str, dict[str, int]]:
        """Return per bot label: ``games`` and ``matches`` won, matches ``played``, ``points``.

        ``points`` is the sum of the bot's match points (rubber totals with the bonus, or
        dummy game scores with the handicap) over the matches it played.
        """
        out = {x: {"games": 0, "matches": 0, "played": 0, "points": 0} for x in (self.a, self.b)}
        for m in self.matches:
            for s in m.seatings:
                for label in (self.a, self.b):
                    out[label]["games"] += s.games_won[label]
                    out[label]["played"] += 1
                    out[label]["points"] += s.points[label]
                if s.winner is not None:
                    out[s.winner]["matches"] += 1
        return out

    def to_json(self) -> JSON:
        """Return the pair's results as JSON."""
        return {
            "a": self.a,
            "b": self.b,
            "summary": self.summary.to_json(),
            "bots": {k: v.to_json() for k, v in self.bots.items()},
            "matches_summary": None if self.match_summary is None else self.match_summary.to_json(),
            "tally": self.tally(),
            "deals": [d.to_json() for d in self.deals],
            "matches": [m.to_json() for m in self.matches],
        }


@dataclass
class ArenaResult:
    """The outcome of :func:`run_arena`: one :class:`PairResult` per pair, and the records."""

    config: ArenaConfig
    pairs: list[PairResult]
    records: list[JSON]
    elapsed: float

    def incidents(self) -> list[JSON]:
        """Return every external bot incident, with its ``pair`` and ``deal`` or ``match``."""
        out: list[JSON] = []
        for p in self.pairs:
            for d in p.deals:
                out += [{"pair": [p.a, p.b], "deal": d.deal, **x} for x in d.incidents]
            for m in p.matches:
                out += [{"pair": [p.a, p.b], "match": m.index, **x} for x in m.incidents]
        return out

    def to_json(self) -> JSON:
        """Return the whole result as JSON (``elapsed_seconds`` is the only timing field)."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "arguments": self.config.to_json(),
            "seed": self.config.seed,
            "game": self.config.game,
            "variant": self.config.variant,
            "bots": [s.label for s in self.config.specs()],
            "elapsed_seconds": self.elapsed,
            "pairs": [p.to_json() for p in self.pairs],
            "incidents": self.incidents(),
            "records": self.records,
        }

    def write_json(self, path: str) -> None:
        """Write :meth:`to_json` to ``path``."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f, indent=1, ensure_ascii=False)
            f.write("\n")

    def table(self) -> str:
        """Return the report as text."""
        return format_table(self)

    def plot(self, path: str) -> None:
        """Write a PNG of the running mean difference per pair (needs matplotlib).

        Raises:
            ImportError: matplotlib is not installed.
        """
        plot_running(self, path)


# ------------------------------------------------------------------------ seating


def _seatings(game: str, variant: str, index: int) -> tuple[int, list[tuple[int, ...]]]:
    """Return the dealer (Quinto dummy: lone seat) and the owner (0 = A, 1 = B) per seat."""
    if game == "quinto":
        if variant == "dummy":
            lone = index % 4
            return lone, [
                tuple(x if (s - lone) % 2 == 0 else 1 - x for s in range(4)) for x in (0, 1)
            ]
        return index % 4, [(0, 1, 0, 1), (1, 0, 1, 0)]
    d = index % 5
    out = []
    for pattern in product((0, 1), repeat=3):
        if len(set(pattern)) == 1:
            continue
        owner = [0] * 5
        q, t0, t1 = pattern
        owner[(d + 4) % 5] = q
        owner[d] = owner[(d + 2) % 5] = t0
        owner[(d + 1) % 5] = owner[(d + 3) % 5] = t1
        out.append(tuple(owner))
    return d, out


def _diff(owner: Sequence[int], scores: Sequence[int]) -> Fraction:
    """A's mean seat score minus B's."""
    a = [x for o, x in zip(owner, scores, strict=True) if o == 0]
    b = [x for o, x in zip(owner, scores, strict=True) if o == 1]
    return Fraction(sum(a), len(a)) - Fraction(sum(b), len(b))


# ------------------------------------------------------------------------ playing


def _seed(cfg: ArenaConfig, *parts: object) -> random.Random:
    return random.Random(":".join(str(p) for p in (cfg.seed, *parts)))


def _arena_extra(
    cfg: ArenaConfig, pair: tuple[BotSpec, BotSpec], players: Sequence[str], **kw: Any
) -> JSON:
    return {
        "players": list(players),
        "arena": {"seed": cfg.seed, "pair": [pair[0].label, pair[1].label], **kw},
    }


def play_deal(
    cfg: ArenaConfig, a: BotSpec, b: BotSpec, index: int
) -> tuple[DealResult, list[JSON]]:
    """Play deal ``index`` in all its seatings; return its result and the hands' records."""
    game, variant = cfg.game, cfg.variant or GAMES[cfg.game][0]
    rules = cfg.hand_rules()
    budget = cfg.bot_budget()
    first, seatings = _seatings(game, variant, index)
    deal_rng = _seed(cfg, "deal", index)
    cards = quinto_deal(deal_rng) if game == "quinto" else (quintus_deal(deal_rng), None)
    specs = (a, b)
    results = []
    records = []
    incidents: list[JSON] = []
    total = Fraction(0)
    for k, owner in enumerate(seatings):
        match: QuintoMatch | QuintusMatch
        if isinstance(rules, QuintoRules):
            lone = first if variant == "dummy" else None
            match = QuintoMatch(rules, first_dealer=first, lone_seat=lone)
            hands, cachette = cards
            state: Any = match.start_hand(hands, cachette)
        else:
            match = QuintusMatch(rules, first_dealer=first)
            state = match.start_hand(cards[0])
        bots = [specs[o].make() for o in owner]
        labels = [specs[o].label for o in owner]
        incidents += _play_hand(state, bots, labels, _seed(cfg, "play", index), budget, seating=k)
        if game == "quinto":
            hp = state.hand_points()
            scores = tuple(int(hp[s & 1]) for s in range(4))
            solo = first if variant == "dummy" else None
        else:
            scores = tuple(int(x) for x in state.scores())
            solo = state.quintus if state.quintus >= 0 else None
        d = _diff(owner, scores)
        total += d
        players = tuple(specs[o].label for o in owner)
        results.append(SeatingResult(players, scores, float(d), solo))
        if cfg.records:
            extra = _arena_extra(cfg, (a, b), players, deal=index, seating=k)
            records.append(record_from_match(match, extra).to_json())
    diff = total / len(seatings)
    return DealResult(index, first, float(diff), tuple(results), tuple(incidents)), records


def play_match(
    cfg: ArenaConfig, a: BotSpec, b: BotSpec, index: int
) -> tuple[MatchResult, list[JSON]]:
    """Play duplicate Quinto match ``index`` (a rubber, or a dummy game) in both seatings."""
    rules = cfg.match_rules()
    if not isinstance(rules, QuintoRules):
        raise InvalidOptionError("only Quinto plays whole matches in the arena")
    budget = cfg.bot_budget()
    dummy = rules.variant == "dummy"
    first, seatings = _seatings("quinto", rules.variant, index)
    specs = (a, b)
    results = []
    records = []
    incidents: list[JSON] = []
    total = Fraction(0)
    for k, owner in enumerate(seatings):
        match = QuintoMatch(rules, first_dealer=first, lone_seat=first if dummy else None)
        n = 0
        while not match.is_over():
            if n >= _MAX_MATCH_HANDS:
                raise RuntimeError(f"match {index} is not over after {n} hands")
            hands, cachette = quinto_deal(_seed(cfg, "match-deal", index, n))
            state = match.start_hand(hands, cachette)
            bots = [specs[o].make() for o in owner]
            labels = [specs[o].label for o in owner]
            rng = _seed(cfg, "match-play", index, n)
            incidents += _play_hand(state, bots, labels, rng, budget, seating=k, hand=n)
            n += 1
        label = [specs[owner[side]].label for side in (0, 1)]  # side s holds seats s, s + 2
        won = match.games_won()
        win = match.winner()
        if dummy:
            sc = match.games()[-1].score
        else:
            rs = match.rubber_score()
            if rs is None:  # pragma: no cover - a rubber that is over has a score
                raise RuntimeError(f"rubber {index} is over but has no score")
            sc = rs
        points = {label[0]: sc[0], label[1]: sc[1]}
        games = {label[0]: won[0], label[1]: won[1]}
        players = tuple(specs[o].label for o in owner)
        results.append(MatchSeating(players, n, games, None if win is None else label[win], points))
        total += points[a.label] - points[b.label]
        if cfg.records:
            extra = _arena_extra(cfg, (a, b), players, match=index, seating=k)
            records.append(record_from_match(match, extra).to_json())
    diff = float(total / len(seatings))
    return MatchResult(index, diff, tuple(results), tuple(incidents)), records


def _play_hand(
    state: Any,
    bots: Sequence[Bot],
    labels: Sequence[str],
    rng: random.Random,
    budget: Budget | None,
    **where: int,
) -> list[JSON]:
    """Play a hand out; tell external bots how it ended and stop them; return incidents."""
    try:
        play_out(state, bots, rng, budget)
        finish_hand(bots, state)
    finally:
        close_bots(bots)
    return [
        {**where, "label": labels[seat], **x.to_json()}
        for seat, bot in enumerate(bots)
        if isinstance(bot, ExternalBot)
        for x in bot.incidents
    ]


# ------------------------------------------------------------------------ running

#: One unit of work: (kind "deal" or "match", index of A, index of B, deal/match index).
Task = tuple[str, int, int, int]
Outcome = tuple[Task, DealResult | MatchResult, list[JSON]]


def _run_chunk(cfg: ArenaConfig, chunk: Sequence[Task]) -> list[Outcome]:
    """Play some tasks (in a worker process or in this one)."""
    specs = cfg.specs()
    out: list[Outcome] = []
    for task in chunk:
        kind, ia, ib, i = task
        play = play_deal if kind == "deal" else play_match
        res, recs = play(cfg, specs[ia], specs[ib], i)
        out.append((task, res, recs))
    return out


def _chunks(tasks: Sequence[Task], jobs: int) -> list[list[Task]]:
    """Group small tasks so a worker gets several at once, a few chunks per worker at least."""
    matches = [t for t in tasks if t[0] == "match"]
    deals = [t for t in tasks if t[0] == "deal"]
    size = max(1, min(16, len(deals) // (jobs * 8)))
    # Matches are the longest tasks: start them first.
    return [[t] for t in matches] + [deals[i : i + size] for i in range(0, len(deals), size)]


class _Progress:
    """A tqdm bar on standard error if tqdm is installed and asked for, else nothing."""

    def __init__(self, total: int, enabled: bool, desc: str) -> None:
        self.bar: Any = None
        if not enabled:
            return
        try:
            tqdm = importlib.import_module("tqdm").tqdm
        except ImportError:
            return
        self.bar = tqdm(total=total, desc=desc, unit="task", file=sys.stderr, disable=None)

    def update(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def run_arena(
    config: ArenaConfig, on_progress: Callable[[int, int], None] | None = None
) -> ArenaResult:
    """Play the arena ``config`` describes and return its results.

    ``on_progress(done, total)`` is called as tasks finish (a task is a deal in all its
    seatings, or a duplicate match).

    Raises:
        InvalidOptionError: the configuration is invalid (see :meth:`ArenaConfig.resolved`),
            or an external bot's command does not start and answer ``hello``.
    """
    cfg = config.resolved()
    start = time.perf_counter()
    specs = cfg.specs()
    if cfg.backend == "local" or cfg.address is None:
        for spec in specs:
            if is_external(spec.level):
                probe(command_of(spec.level))  # fail now rather than in every hand
    pairs = list(combinations(range(len(specs)), 2))
    rubbers = cfg.rubbers or 0
    tasks: list[Task] = []
    for ia, ib in pairs:
        tasks += [("deal", ia, ib, i) for i in range(cfg.deals)]
        tasks += [("match", ia, ib, r) for r in range(rubbers)]
    jobs = min(cfg.jobs or 1, len(tasks))
    outcomes: dict[Task, tuple[DealResult | MatchResult, list[JSON]]] = {}
    desc = f"{cfg.game} {cfg.variant}"
    bar = _Progress(len(tasks), cfg.progress, desc)
    done = 0

    def collect(batch: list[Outcome]) -> None:
        nonlocal done
        for task, res, recs in batch:
            outcomes[task] = (res, recs)
        done += len(batch)
        bar.update(len(batch))
        if on_progress is not None:
            on_progress(done, len(tasks))

    try:
        if cfg.backend == "ray":
            _run_ray(cfg, tasks, collect)
        elif jobs <= 1:
            for chunk in _chunks(tasks, 1):
                collect(_run_chunk(cfg, chunk))
        else:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                pending: set[Future[list[Outcome]]] = {
                    pool.submit(_run_chunk, cfg, chunk) for chunk in _chunks(tasks, jobs)
                }
                try:
                    while pending:
                        finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                        for fut in finished:
                            collect(fut.result())
                except BaseException:
                    for fut in pending:
                        fut.cancel()
                    raise
    finally:
        bar.close()

    results = []
    records: list[JSON] = []
    for ia, ib in pairs:
        deals = []
        for i in range(cfg.deals):
            res, recs = outcomes[("deal", ia, ib, i)]
            assert isinstance(res, DealResult)
            deals.append(res)
            records += recs
        matches = []
        for r in range(rubbers):
            mres, recs = outcomes[("match", ia, ib, r)]
            assert isinstance(mres, MatchResult)
            matches.append(mres)
            records += recs
        a, b = specs[ia], specs[ib]
        results.append(
            PairResult(
                a=a.label,
                b=b.label,
                deals=deals,
                matches=matches,
                summary=summarize([d.diff for d in deals]),
                match_summary=summarize([m.diff for m in matches]) if matches else None,
                bots=_bot_stats(deals, (a.label, b.label)),
            )
        )
    return ArenaResult(cfg, results, records, time.perf_counter() - start)


def _run_ray(
    cfg: ArenaConfig, tasks: Sequence[Task], collect: Callable[[list[Outcome]], None]
) -> None:
    """Run the tasks as Ray remote functions (see the module docstring)."""
    ray = importlib.import_module("ray")
    started = False
    if not ray.is_initialized():
        if cfg.address is None:
            ray.init(num_cpus=cfg.jobs, include_dashboard=False, logging_level=logging.WARNING)
        else:
            ray.init(address=cfg.address, logging_level=logging.WARNING)
        started = True
    try:
        cpus = int(ray.cluster_resources().get("CPU", cfg.jobs or 1))
        remote = ray.remote(num_cpus=1)(_run_chunk)
        config = ray.put(cfg)
        pending = [remote.remote(config, chunk) for chunk in _chunks(tasks, max(1, cpus))]
        try:
            while pending:
                finished, pending = ray.wait(pending, num_returns=1)
                for ref in finished:
                    collect(ray.get(ref))
        except BaseException:
            for ref in pending:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
            raise
    finally:
        if started:
            ray.shutdown()


def _bot_stats(deals: Sequence[DealResult], labels: Sequence[str]) -> dict[str, BotStats]:
    out = {}
    for label in labels:
        total = n = solo_total = solo_n = 0
        for d in deals:
            for s in d.seatings:
                for who, x in zip(s.players, s.scores, strict=True):
                    if who == label:
                        total += x
                        n += 1
                if s.solo is not None and s.players[s.solo] == label:
                    solo_total += s.scores[s.solo]
                    solo_n += 1
        out[label] = BotStats(
            hands=n,
            mean=total / n if n else 0.0,
            solo_hands=solo_n,
            solo_mean=solo_total / solo_n if solo_n else None,
        )
    return out


# ------------------------------------------------------------------------ report


def _signed(x: float | None, width: int = 8) -> str:
    return " " * (width - 1) + "-" if x is None else f"{x:+{width}.2f}"


def _ci(s: Summary) -> str:
    if s.low is None or s.high is None:
        return "(n < 2)"
    return f"[{s.low:+.2f}, {s.high:+.2f}]"


def format_table(result: ArenaResult) -> str:
    """Return the arena's report: points per deal per pair, games and rubbers, per-bot means."""
    cfg = result.config
    seatings = len(_seatings(cfg.game, cfg.variant or "", 0)[1])
    title = cfg.game.capitalize()
    lines = [
        f"{title} {cfg.variant}: {cfg.deals} deals in duplicate ({seatings} seatings each), "
        f"seed {cfg.seed}, {cfg.jobs} jobs{' on Ray' if cfg.backend == 'ray' else ''}, "
        f"{result.elapsed:.1f} s",
        "",
        "Points per deal, A minus B, with 95% confidence interval",
    ]
    wa = max([len("A"), *(len(p.a) for p in result.pairs)])
    wb = max([len("B"), *(len(p.b) for p in result.pairs)])
    lines.append(f"{'A':<{wa}}  {'B':<{wb}}  {'deals':>6}  {'A - B':>8}  {'95% CI':<20}  result")
    for p in result.pairs:
        s = p.summary
        verdict = f"{p.a if s.mean > 0 else p.b} better" if s.clear else "not clear"
        lines.append(
            f"{p.a:<{wa}}  {p.b:<{wb}}  {s.n:>6}  {_signed(s.mean)}  {_ci(s):<20}  {verdict}"
        )
    solo = {"quintus": "as quintus", "quinto": "as lone"}[cfg.game]
    show_solo = cfg.game == "quintus" or cfg.variant == "dummy"
    unit = "hand points of its side" if cfg.game == "quinto" else "hand score"
    lines += ["", f"Mean {unit} per seat and hand"]
    wl = max(len(s.label) for s in cfg.specs())
    wl = max(wl, len("bot"))
    head = f"{'pair':<{wa + wb + 4}}  {'bot':<{wl}}  {'hands':>6}  {'mean':>8}"
    lines.append(head + (f"  {solo:>10}  {'hands':>6}" if show_solo else ""))
    for p in result.pairs:
        pair = f"{p.a} vs {p.b}"
        for label, st in p.bots.items():
            row = f"{pair:<{wa + wb + 4}}  {label:<{wl}}  {st.hands:>6}  {st.mean:>8.2f}"
            if show_solo:
                sm = "-" if st.solo_mean is None else f"{st.solo_mean:.2f}"
                row += f"  {sm:>10}  {st.solo_hands:>6}"
            lines.append(row)
    if any(p.matches for p in result.pairs):
        kind = "dummy games" if cfg.variant == "dummy" else "rubbers"
        rules = cfg.match_rules()
        target = rules.target if isinstance(rules, QuintoRules) else None
        lines += [
            "",
            f"Whole {kind}: {cfg.rubbers} duplicate pairs per pair of bots "
            f"({2 * (cfg.rubbers or 0)} {kind}), target {target}",
        ]
        dummy = cfg.variant == "dummy"
        head = f"{'pair':<{wa + wb + 4}}  {'bot':<{wl}}  {'games won':>9}"
        lines.append(head + ("" if dummy else f"  {'rubbers won':>11}") + f"  {'points/match':>12}")
        for p in result.pairs:
            pair = f"{p.a} vs {p.b}"
            for label, t in p.tally().items():
                row = f"{pair:<{wa + wb + 4}}  {label:<{wl}}  {t['games']:>9}"
                if not dummy:
                    row += f"  {t['matches']:>11}"
                lines.append(row + f"  {t['points'] / max(1, t['played']):>12.1f}")
            ms = p.match_summary
            if ms is not None:
                lines.append(
                    f"{'':<{wa + wb + 4}}  A - B points per duplicate match: "
                    f"{ms.mean:+.1f} {_ci(ms)}"
                )
    incidents = result.incidents()
    if incidents:
        lines += ["", "External bots: decisions made by the fallback bot (details in --out)"]
        counts: dict[tuple[str, str], int] = {}
        for x in incidents:
            key = (x["label"], x["kind"])
            counts[key] = counts.get(key, 0) + 1
        for (label, kind), n in sorted(counts.items()):
            lines.append(f"{label:<{wl}}  {kind:<8}  {n:>6}")
    return "\n".join(lines)


def plot_running(result: ArenaResult, path: str) -> None:
    """Write a PNG of each pair's running mean difference with its 95% band.

    Raises:
        ImportError: matplotlib is not installed.
    """
    try:
        matplotlib = importlib.import_module("matplotlib")
    except ImportError as e:
        raise ImportError("--plot needs matplotlib: pip install matplotlib") from e
    matplotlib.use("Agg")
    plt = importlib.import_module("matplotlib.pyplot")

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for p in result.pairs:
        xs, means, lows, highs = [], [], [], []
        mean = m2 = 0.0
        for k, d in enumerate(p.deals, start=1):
            delta = d.diff - mean
            mean += delta / k
            m2 += delta * (d.diff - mean)
            xs.append(k)
            means.append(mean)
            hw = t_quantile(k) * math.sqrt(m2 / (k - 1) / k) if k > 1 else math.nan
            lows.append(mean - hw)
            highs.append(mean + hw)
        (line,) = ax.plot(xs, means, label=f"{p.a} - {p.b}")
        ax.fill_between(xs[2:], lows[2:], highs[2:], color=line.get_color(), alpha=0.15)
    ax.axhline(0.0, color="grey", linewidth=0.8)
    cfg = result.config
    ax.set_title(f"{cfg.game} {cfg.variant}: running mean points per deal (seed {cfg.seed})")
    ax.set_xlabel("deals")
    ax.set_ylabel("A - B points per deal (95% band)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=100)
    plt.close(fig)


__all__ = [
    "HAND_TARGET",
    "ArenaConfig",
    "ArenaResult",
    "BotSpec",
    "BotStats",
    "DealResult",
    "MatchResult",
    "MatchSeating",
    "PairResult",
    "SeatingResult",
    "Summary",
    "format_table",
    "parse_bot_spec",
    "parse_bots",
    "parse_options",
    "play_deal",
    "play_match",
    "plot_running",
    "run_arena",
    "summarize",
    "t_quantile",
]
