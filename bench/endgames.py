"""Two bots on the same endgames, in duplicate: which plays the last tricks better.

    .venv/bin/python bench/endgames.py --bots pimc:alphamu=2,pimc [--game quinto]
        [--variant dummy] [--tricks 2] [--positions 300] [--budget 0.05] [--seed 1]
        [--jobs 2]

A whole-deal arena measures the last tricks through the noise of every earlier card; this
starts every comparison at the same position instead. Deal ``i`` (dealer and lone seat
as ``quintet arena`` seats deal ``i``) is played by the heuristic for every seat up to the
lead with ``--tricks`` tricks left; from there it is played to the end in every seating of
the arena (the sides exchanged between the bots: :func:`quintet.arena.seating.seatings`),
each decision with ``--budget`` CPU seconds. A position's result is the mean over its
seatings of bot A's seats' hand score less bot B's (the arena's measure); the report gives
the points per position with a 95% confidence interval, and each bot's CPU per decision.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from quintet.actions import is_play, is_signal
from quintet.arena.seating import roles_of, seatings
from quintet.arena.stats import summarize
from quintet.bots import Budget, HeuristicBot, bot_step, make_bot
from quintet.game import Phase
from quintet.games import find_game


def position(game: str, variant: str, index: int, tricks: int, seed: int) -> Any | None:
    """Return deal ``index`` played by the heuristic to the lead with ``tricks`` left
    (None when the hand ended before, e.g. a void Quintus hand)."""
    info = find_game(game)
    var = info.variant(variant)
    first, _ = roles_of(info).groups(info, var, index)
    rng = random.Random(f"{seed}:endgame:{index}")
    lone = first if var.lone_seat else None
    state: Any = info.deal(info.rules(var.name), first, rng, lone_seat=lone)
    bots = [HeuristicBot()] * info.num_seats
    while not state.is_terminal():
        if not state.trick and info.num_tricks - state.tricks_played <= tricks:
            main = [x for x in state.legal_actions() if not is_signal(x)]
            if state.phase == Phase.PLAY and all(is_play(x) for x in main):
                return state
        bot_step(state, bots, rng)
    return None


def play(args: tuple[str, str, int, int, int, str, str, float]) -> tuple[float, list[float]] | None:
    """Return a position's duplicate result for bot A and each bot's CPU per decision."""
    game, variant, index, tricks, seed, a, b, budget = args
    start = position(game, variant, index, tricks, seed)
    if start is None:
        return None
    info = find_game(game)
    roles = roles_of(info)
    _, owners = seatings(info, info.variant(variant), index)
    results = []
    cpu = [0.0, 0.0]
    count = [0, 0]
    for k, owner in enumerate(owners):
        state = start.clone()
        players = [make_bot(a), make_bot(b)]
        bots = [players[owner[s]] for s in range(info.num_seats)]
        rng = random.Random(f"{seed}:endgame:{index}:{k}")
        while not state.is_terminal():
            who = owner[state.controller(state.current_player())]
            t = time.thread_time()
            bot_step(state, bots, rng, Budget(seconds=budget))
            cpu[who] += time.thread_time() - t
            count[who] += 1
        scores = roles.scores(info, state)
        mine = [scores[s] for s in range(info.num_seats) if owner[s] == 0]
        theirs = [scores[s] for s in range(info.num_seats) if owner[s] == 1]
        results.append(sum(mine) / len(mine) - sum(theirs) / len(theirs))
    return sum(results) / len(results), [cpu[i] / max(1, count[i]) for i in (0, 1)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--game", default="quinto")
    p.add_argument("--variant", default=None)
    p.add_argument("--bots", default="pimc:alphamu=2,pimc")
    p.add_argument("--tricks", type=int, default=2)
    p.add_argument("--positions", type=int, default=300)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--budget", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args(argv)
    a, b = args.bots.split(",")
    make_bot(a), make_bot(b)  # fail early on a bad name
    variant = find_game(args.game).variant(args.variant).name
    jobs = [
        (args.game, variant, i, args.tricks, args.seed, a, b, args.budget)
        for i in range(args.first, args.first + args.positions)
    ]
    values: list[float] = []
    cpu = [0.0, 0.0]
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    try:
        for out in pool.map(play, jobs) if pool else map(play, jobs):
            if out is None:
                continue
            values.append(out[0])
            cpu = [cpu[0] + out[1][0], cpu[1] + out[1][1]]
    finally:
        if pool:
            pool.shutdown()
    s = summarize(values)
    low = "" if s.low is None else f" [{s.low:+.2f}, {s.high:+.2f}]"
    print(
        f"{args.game} {variant}, {args.tricks} tricks left, {s.n} positions, "
        f"{args.budget} CPU s a decision: {a} - {b} = {s.mean:+.2f}{low} points a position"
        f"{' (clear)' if s.clear else ''}"
    )
    n = max(1, len(values))
    print(f"CPU per decision: {a} {cpu[0] / n * 1000:.1f} ms, {b} {cpu[1] / n * 1000:.1f} ms")
    changed = sum(1 for v in values if v != 0)
    print(f"positions where the results differ: {changed} of {len(values)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
