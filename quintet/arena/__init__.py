"""Tournaments between bots: duplicate deals, confidence intervals, records.

``quintet arena`` (and :func:`run_arena` from Python) plays bots against each other over
many deals in *duplicate* form: every deal is replayed with the bots' seats exchanged, so
the cards cancel out and what is left is the difference in play::

    quintet arena --game quinto|quintus [--variant V] --bots A,B[,C...] [--deals N]
        [--seed S] [--jobs J] [--budget SECONDS] [--iterations N] [--rubbers R]
        [--out results.json] [--no-records] [--plot diff.png] [--option name=value ...]
        [--backend local|ray [--address ADDR]]
    quintet arena --merge RUN.json RUN.json ... [--out merged.json]

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

Ladder: ``quintet arena --ladder [--levels a,b,c]`` (:func:`run_ladder`) plays every pair
of levels (default: every level of :func:`quintet.bots.levels`) on the same deals and fits
one rating per level (Bradley–Terry on duplicate deals won, tied and lost, Elo scale,
``random`` at 0, bootstrap intervals; :mod:`~quintet.arena.ratings`), listed strongest
first.

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

Modules, one concern each: :mod:`~quintet.arena.config` (the contestants and
:class:`ArenaConfig`), :mod:`~quintet.arena.stats` (means and intervals),
:mod:`~quintet.arena.seating` (seat groups and each game's scores, from
:mod:`quintet.games`), :mod:`~quintet.arena.play` (one deal or match in all its
seatings), :mod:`~quintet.arena.backends` (local pool or Ray),
:mod:`~quintet.arena.run` (:func:`run_arena`), :mod:`~quintet.arena.results`,
:mod:`~quintet.arena.report` (the text table), :mod:`~quintet.arena.plot`,
:mod:`~quintet.arena.ratings` (Bradley–Terry ratings from duplicate deals) and
:mod:`~quintet.arena.ladder` (:func:`run_ladder`: every pair of levels, rated). Everything
is importable from here.

>>> summarize([1.0, 2.0, 3.0]).mean
2.0
"""

from __future__ import annotations

from quintet.arena.config import (
    BACKENDS,
    HAND_TARGET,
    ArenaConfig,
    BotSpec,
    parse_bot_spec,
    parse_bots,
    parse_options,
)
from quintet.arena.ladder import LadderResult, duplicate_games, format_ladder, run_ladder
from quintet.arena.play import play_deal, play_match
from quintet.arena.plot import plot_running
from quintet.arena.ratings import DuplicateGame, Rating, Ratings, fit_bradley_terry, rate
from quintet.arena.report import format_table
from quintet.arena.results import (
    FORMAT,
    VERSION,
    ArenaResult,
    BotStats,
    DealResult,
    MatchResult,
    MatchSeating,
    PairResult,
    SeatingResult,
)
from quintet.arena.run import run_arena
from quintet.arena.stats import Summary, summarize, t_quantile

__all__ = [
    "BACKENDS",
    "FORMAT",
    "HAND_TARGET",
    "VERSION",
    "ArenaConfig",
    "ArenaResult",
    "BotSpec",
    "BotStats",
    "DealResult",
    "DuplicateGame",
    "LadderResult",
    "MatchResult",
    "MatchSeating",
    "PairResult",
    "Rating",
    "Ratings",
    "SeatingResult",
    "Summary",
    "duplicate_games",
    "fit_bradley_terry",
    "format_ladder",
    "format_table",
    "parse_bot_spec",
    "parse_bots",
    "parse_options",
    "play_deal",
    "play_match",
    "plot_running",
    "rate",
    "run_arena",
    "run_ladder",
    "summarize",
    "t_quantile",
]
