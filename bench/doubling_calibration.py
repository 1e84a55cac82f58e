"""How well the heuristic's playouts predict a Quinto hand's trick balance at the doubling.

    .venv/bin/python bench/doubling_calibration.py [--variant dummy] [--hands 400]
        [--seconds 0.03] [--samples 100] [--seed 8]

pimc doubles by playouts: from the doubling seat's view it samples the unseen cards
(its inference), plays each deal out with the heuristic at trick value 1 and rescores
it at each trick value the round can end on (``PimcBot.doubling_values``). Whether to
double hangs on the trick balance those playouts predict. For ``--hands`` random hands
of ``--variant`` (the dealer, and in the dummy game the lone seat, at random) this
takes the first doubling seat's estimate (his side's tricks less the other side's,
the mean over ``--samples`` sampled deals played out), then lets everyone pass and has
``pimc`` play the hand for all four seats at ``--seconds`` CPU seconds a decision, and
compares the estimate with the balance the hand actually ended with.

Prints, over the hands and by the doubling seat's side (in the dummy game: the lone
player's, or the partners'), the mean estimate, the mean actual balance and their
difference (the playouts' bias, with a 95% confidence interval). A bias the same for
every side would not move a decision much; one that differs by side does: the side
underrated doubles too rarely, the other too often. CPU time only matters for speed
here; nothing is timed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys

from quintet.actions import PASS
from quintet.arena import summarize
from quintet.bots import BotView, Budget
from quintet.bots.pimc import PimcBot, playout
from quintet.game import Phase
from quintet.quinto import QuintoRules, QuintoState


def hand(
    bot: PimcBot, rules: QuintoRules, rng: random.Random, samples: int, seconds: float
) -> tuple[bool, float, int]:
    """Play one random hand; return (the doubling seat is on the lone side, his side's
    estimated trick balance, the balance played)."""
    lone = rng.randrange(4) if rules.variant == "dummy" else None
    dealer = rng.randrange(4)
    if lone is not None and dealer == (lone + 2) % 4:
        dealer = lone  # the dummy seat never deals
    s = QuintoState.deal(rules, dealer, rng, lone_seat=lone)
    seat = s.current_player()
    side = seat & 1
    view = BotView.of(s, seat, random.Random(rng.getrandbits(64)), Budget(seconds=1.0))
    balance = []
    for _ in range(samples):
        w = bot._sample(view)
        while w.phase == Phase.DOUBLING:
            w.apply_action(PASS)
        playout(w, view.rng)
        balance.append(w.tricks_won[side] - w.tricks_won[1 - side])
    while s.phase == Phase.DOUBLING:
        s.apply_action(PASS)
    budget = Budget(seconds=seconds)
    while not s.is_terminal():
        p = s.current_player()
        s.apply_action(bot.act(BotView.of(s, p, random.Random(rng.getrandbits(64)), budget)), p)
    on_lone = lone is not None and (seat - lone) % 2 == 0
    return on_lone, statistics.fmean(balance), s.tricks_won[side] - s.tricks_won[1 - side]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--variant", default="dummy", choices=("partnership", "dummy"))
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--seconds", type=float, default=0.03, help="CPU s a card decision")
    parser.add_argument("--samples", type=int, default=100, help="playouts of the estimate")
    parser.add_argument("--seed", type=int, default=8)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    bot = PimcBot()
    rules = QuintoRules(variant=args.variant, target=10_000)
    rows = [hand(bot, rules, rng, args.samples, args.seconds) for _ in range(args.hands)]
    print(
        f"Quinto {args.variant}, {args.hands} hands, the first doubling seat's estimate over "
        f"{args.samples} playouts against pimc's play at {args.seconds:g} CPU s a card: "
        f"his side's tricks (the cachette counts as one) less the other's"
    )
    groups = [("every hand", rows)]
    if args.variant == "dummy":
        groups += [
            ("the lone player's side", [r for r in rows if r[0]]),
            ("the partners' side", [r for r in rows if not r[0]]),
        ]
    for label, rs in groups:
        if len(rs) < 2:
            print(f"  {label}: fewer than two hands")
            continue
        t = summarize([est - actual for _, est, actual in rs])
        print(
            f"  {label}: {len(rs)} hands, estimated {statistics.fmean(r[1] for r in rs):+.2f}, "
            f"played {statistics.fmean(r[2] for r in rs):+.2f}, bias {t.mean:+.2f} "
            f"[{t.low:+.2f}, {t.high:+.2f}]"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
