"""Time per decision of each bot level at its default budget.

    .venv/bin/python bench/decisions.py [--positions 30] [--levels random,heuristic,pimc,ismcts]

Positions are taken from hands played by the heuristic bot (every phase: doubling,
auction, trump, nil, card play from the first to the last trick), in Quinto and Quintus.
A decision is timed from building the bot's view (which includes dealing the shadow
state the bot samples from) to its answer. Prints the median and the worst time per
level and game.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from typing import Any

from quintet.bots import BotView, HeuristicBot, levels, make_bot, play_out
from quintet.quinto import QuintoRules, QuintoState
from quintet.quintus import QuintusRules, QuintusState


def positions(game: str, n: int, seed: int) -> list[Any]:
    """Return ``n`` states spread over whole hands played by the heuristic."""
    rng = random.Random(seed)
    out: list[Any] = []
    h = HeuristicBot()
    while len(out) < n:
        if game == "quinto":
            s: Any = QuintoState.deal(QuintoRules(target=10_000), rng.randrange(4), rng)
        else:
            variant = rng.choice(("base", "bidding"))
            s = QuintusState.deal(QuintusRules(variant=variant), rng.randrange(5), rng)
        seen: list[Any] = []

        def keep(st: Any, *_: Any, seen: list[Any] = seen) -> None:
            seen.append(st.clone())

        play_out(s, [h] * s.num_seats, rng, listener=keep)
        live = [x for x in seen if not x.is_terminal()]
        out.extend(rng.sample(live, min(len(live), 6)))
    return out[:n]


def time_level(level: str, states: list[Any]) -> list[float]:
    """Return the seconds each decision took."""
    bot = make_bot(level)
    times = []
    for i, s in enumerate(states):
        seat = s.current_player()
        t0 = time.perf_counter()
        view = BotView.of(s, seat, random.Random(i))
        bot.act(view)
        times.append(time.perf_counter() - t0)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--levels", default=",".join(levels()))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for game in ("quinto", "quintus"):
        states = positions(game, args.positions, args.seed)
        for level in args.levels.split(","):
            make_bot(level)  # fail early on a bad name
            time_level(level, states[:2])  # warm up (compilation, caches)
            t = time_level(level, states)
            print(
                f"{game:<8} {level:<10} median {statistics.median(t) * 1000:>9.2f} ms   "
                f"worst {max(t) * 1000:>9.2f} ms   ({len(t)} decisions)",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
