"""How well the heuristic's playouts predict a Quintus bidder's points: the bid's calibration.

    .venv/bin/python bench/bid_calibration.py ARENA.json [...] [--samples 40] [--seed 1]

Reads the records of ``quintet arena --game quintus --variant bidding --out FILE`` runs.
For every hand with a contract it replays the auction to the quintus's winning bid and
estimates, from his view there, his card points the way pimc's bid rule does: deals
sampled consistently with what he has seen (pimc's inference), played out by the
heuristic from the first trick with him as the quintus, under each trump; the estimate
is the best trump's mean. ``--samples`` deals per trump, the same deals for every trump
(as pimc's bid rule takes them since 2026-12-07, as many as its budget's share allows).
It also takes the estimate as pimc-2026 takes it (8 deals per trump, drawn anew for each
trump) to show the noise and the upward pull of taking the best of five noisy means.

Prints, over the hands: the mean and spread of estimate − points actually taken (the
playouts' bias), the share of contracts made, and how often a contract is made when the
estimate clears the bid by a margin ``m`` (for several ``m``): what a bid margin should
be. CPU time only matters for speed here; nothing is timed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import sys
from typing import Any

from quintet.actions import bid_amount, is_bid
from quintet.bots.base import BotView, Budget
from quintet.bots.pimc import PimcBot, playout, quintus_start
from quintet.record import record_from_json, replay


def _points(bot: PimcBot, view: BotView, worlds: list[Any], trump: int) -> float:
    """Return the quintus's mean points under ``trump`` in ``worlds`` played out."""
    pts = []
    for world in worlds:
        s = quintus_start(world, view.seat, trump, "none", None)
        playout(s, view.rng)
        pts.append(float(s.points()[0]))
    return sum(pts) / len(pts)


def estimates(bot: PimcBot, view: BotView, n: int) -> tuple[float, float]:
    """Return (the best trump's mean over ``n`` common deals, pimc-2026's 8-a-trump)."""
    worlds = [bot._sample(view) for _ in range(n)]
    common = max(_points(bot, view, worlds, t) for t in range(5))
    old = max(_points(bot, view, [bot._sample(view) for _ in range(8)], t) for t in range(5))
    return common, old


def hands_with_contracts(paths: list[str]) -> list[tuple[Any, int, int]]:
    """Return (record, hand index, index of the winning bid's action) for every contract."""
    out = []
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        for raw in data["records"]:
            rec = record_from_json(raw)
            for h, hand in enumerate(rec.hands):
                bids = [k for k, (_, a) in enumerate(hand.actions) if is_bid(a)]
                if bids:
                    out.append((rec, h, bids[-1]))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--samples", type=int, default=40)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--limit", type=int, default=None, help="at most this many hands")
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    bot = PimcBot()
    rows = []
    found = hands_with_contracts(args.files)[: args.limit]
    for rec, h, k in found:
        state = replay(rec, upto=(h, k)).hands[-1]
        seat, action = rec.hands[h].actions[k]
        view = BotView.of(state, seat, random.Random(rng.getrandbits(64)), Budget(seconds=60.0))
        common, own = estimates(bot, view, args.samples)
        final = replay(rec, upto=(h, len(rec.hands[h].actions))).hands[-1]
        taken = final.points()[0]
        rows.append((common, own, taken, bid_amount(action)))
    if not rows:
        print("no contracts in these records")
        return 1
    n = len(rows)
    print(f"{n} contracts from {len(args.files)} file(s); {args.samples} common deals a trump")
    for name, i in (("common deals", 0), ("pimc-2026's 8 a trump", 1)):
        err = [r[i] - r[2] for r in rows]
        print(
            f"estimate ({name}) - points taken: mean {statistics.fmean(err):+.2f}, "
            f"sd {statistics.stdev(err):.2f}, median {statistics.median(err):+.2f}"
        )
    made = sum(1 for r in rows if r[2] >= r[3])
    mean_bid = statistics.fmean(r[3] for r in rows)
    print(f"contracts made: {made}/{n} ({made / n:.0%}); mean bid {mean_bid:.1f}")
    print("estimate - bid (common deals): contracts, made")
    edges = [-99, -4, 0, 4, 8, 12, 16, 24, 999]
    for lo, hi in itertools.pairwise(edges):
        sel = [r for r in rows if lo <= r[0] - r[3] < hi]
        if sel:
            ok = sum(1 for r in sel if r[2] >= r[3])
            print(f"  [{lo:>3}, {hi:>3}): {len(sel):>4}, {ok / len(sel):.0%}")
    print("margin m: of the contracts whose common estimate cleared the bid by >= m, made")
    for m in (0, 2, 4, 6, 8, 10, 12, 16):
        sel = [r for r in rows if r[0] - r[3] >= m]
        if sel:
            ok = sum(1 for r in sel if r[2] >= r[3])
            print(f"  m={m:>2}: {ok}/{len(sel)} ({ok / len(sel):.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
