"""pimc's doubling with ``lone_credit`` against without, in duplicate: what it is worth.

    .venv/bin/python bench/doubling_duplicate.py [--credit 0.5] [--hands 400]
        [--samples 100] [--play-samples 10] [--seed 9] [--out FILE]
    .venv/bin/python bench/doubling_duplicate.py --merge FILE...

``bench/doubling_calibration.py`` found that in the dummy game the doubling's playouts
underrate the lone player's side by about half a trick. ``pimc:lone_credit=C`` credits
his side with ``C`` tricks (and debits the partners') in those playouts (0.5, the
default since 2026-12-07, was chosen by this bench; ``pimc`` below is
``pimc:lone_credit=0``, the bot before it). An arena run
cannot see a change that moves one doubling decision in several hands; this bench looks
only at the decisions. For ``--hands`` random dummy hands (the lone seat and the dealer
at random) the doubling round is decided three ways: by pimc at every seat (the base);
with the lone player's decisions by ``pimc:lone_credit=C`` (the partners' as in the
base); with the partners' by it. Each decision is pimc's over ``--samples`` sampled
deals, the same deals for both bots (the same random seed), so that they differ only
by the credit. A way whose round ends as the base's is worth 0 in that hand, with no
play. Otherwise the hand is played from the end of its round, and from the end of the
base's, by the same pimc (``--play-samples`` deals a card, 20,000 nodes a deal: no clock,
so the two plays differ only where the trick value changes a card) with the same seeds,
and the way's gain is the corrected side's hand points less the other's, against the
base's.

Prints for each way the hands whose round it changed, their mean gain (95% CI), and its
gain a hand over all the hands (zeros included); then what the corrected bot would gain
a deal against pimc (half of each way's gain a hand: in an arena it sits on each side
half the time). Targets are out of reach (10,000): hand points only, no game won.

``--out FILE`` keeps the run's arguments and its hands' rows (whether each way changed
the round, and its gain) as JSON; ``--merge FILE...`` prints the same report over the
rows of several such runs (of other seeds, the same credit and sample counts), pooled
hand by hand.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from quintet.actions import Action
from quintet.arena import summarize
from quintet.bots import BotView, Budget
from quintet.bots.pimc import PimcBot
from quintet.game import Phase
from quintet.quinto import QuintoRules, QuintoState

#: Whose doubling decisions the corrected bot takes, for a lone seat: the lone player's
#: side (its seats' parity is the lone seat's), or the partners'.
WAYS = ("lone", "partners")
LABELS = {"lone": "the lone player's", "partners": "the partners'"}


def _round(
    start: QuintoState, decide: Callable[[QuintoState, int], Action]
) -> tuple[QuintoState, tuple[Action, ...]]:
    """Play ``start``'s doubling round with ``decide(state, seat)``; return the state after
    it and the round's actions."""
    s = start.clone()
    actions = []
    while s.phase == Phase.DOUBLING:
        seat = s.current_player()
        a = decide(s, seat)
        s.apply_action(a, seat)
        actions.append(a)
    return s, tuple(actions)


def _play(s: QuintoState, bot: PimcBot, seed: int) -> QuintoState:
    """Play ``s`` to the end of the hand with ``bot`` at every seat, its random seeds
    drawn from ``seed`` (the same seeds whatever the round was)."""
    s = s.clone()
    rng = random.Random(seed)
    budget = Budget(iterations=bot.samples)
    while not s.is_terminal():
        p = s.current_player()
        view = BotView.of(s, p, random.Random(rng.getrandbits(64)), budget)
        s.apply_action(bot.act(view), p)
    return s


def hand(
    rng: random.Random, credit: float, samples: int, play_samples: int
) -> dict[str, tuple[bool, float]]:
    """One random dummy hand: for each way, whether its doubling round differs from the
    base's and the corrected side's gain (0.0 when it does not)."""
    rules = QuintoRules(variant="dummy", target=10_000)
    lone = rng.randrange(4)
    dealer = rng.randrange(4)
    if dealer == (lone + 2) % 4:
        dealer = lone  # the dummy seat never deals
    start = QuintoState.deal(rules, dealer, rng, lone_seat=lone)
    seed = rng.getrandbits(64)
    bots = {
        False: PimcBot(samples=samples, lone_credit=0.0),
        True: PimcBot(samples=samples, lone_credit=credit),
    }
    memo: dict[tuple[tuple[Action, ...], bool], Action] = {}

    def decider(corrected_side: int | None) -> Callable[[QuintoState, int], Action]:
        def decide(s: QuintoState, seat: int) -> Action:
            corrected = corrected_side is not None and seat & 1 == corrected_side
            key = (tuple(a for _, a in s.history()), corrected)
            if key not in memo:
                # The same deals for both bots at a decision: a seed of the hand and the
                # round so far, not of the bot.
                r = random.Random(hash((seed, key[0])))
                view = BotView.of(s, seat, r, Budget(iterations=samples))
                memo[key] = bots[corrected].act(view)
            return memo[key]

        return decide

    player = PimcBot(samples=play_samples, max_nodes=20_000)
    base_end, base_round = _round(start, decider(None))
    base_played: QuintoState | None = None
    out = {}
    for way in WAYS:
        side = lone & 1 if way == "lone" else 1 - (lone & 1)
        end, actions = _round(start, decider(side))
        if actions == base_round:
            out[way] = (False, 0.0)
            continue
        if base_played is None:
            base_played = _play(base_end, player, seed)
        played = _play(end, player, seed)
        a, b = played.hand_points()
        a0, b0 = base_played.hand_points()
        gain = (a - b) - (a0 - b0)
        out[way] = (True, float(gain if side == 0 else -gain))
    return out


Row = dict[str, tuple[bool, float]]

#: The arguments that must agree for runs to be merged.
SAME = ("credit", "samples", "play_samples")


def report(rows: list[Row], args: dict[str, Any]) -> None:
    """Print, over ``rows``, each way's changed rounds and gains, and the deal's figure."""
    print(
        f"Quinto dummy, {len(rows)} hands: pimc:lone_credit={args['credit']:g} against "
        f"pimc:lone_credit=0, doubling over {args['samples']} deals, play at "
        f"{args['play_samples']} deals a card"
    )
    for way in WAYS:
        changed = [g for differs, g in (r[way] for r in rows) if differs]
        every = summarize([r[way][1] for r in rows])
        if len(changed) >= 2:
            t = summarize(changed)
            what = f"gain {t.mean:+.2f} [{t.low:+.2f}, {t.high:+.2f}] there"
        else:
            what = "too few to say"
        print(
            f"  {LABELS[way]} decisions corrected (that side's points): round changed in "
            f"{len(changed)} hands, {what}; a hand {every.mean:+.2f} "
            f"[{every.low:+.2f}, {every.high:+.2f}]"
        )
    both = summarize([(r["lone"][1] + r["partners"][1]) / 2 for r in rows])
    print(
        f"  a deal against pimc:lone_credit=0 (each side half the time): {both.mean:+.2f} "
        f"[{both.low:+.2f}, {both.high:+.2f}]"
    )


def load(path: str) -> tuple[dict[str, Any], list[Row]]:
    """Read a run written by ``--out``: its arguments and rows.

    Raises:
        ValueError: the file is not such a run (naming the file and what is wrong).
    """
    try:
        data = json.loads(Path(path).read_text())
        args = dict(data["arguments"])
        rows = [{w: (bool(r[w][0]), float(r[w][1])) for w in WAYS} for r in data["rows"]]
        args["credit"] = float(args["credit"])
        for key in ("samples", "play_samples"):
            args[key] = int(args[key])
    except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
        raise ValueError(f"{path}: not a run of this bench written by --out ({e!r})") from e
    if not rows:
        raise ValueError(f"{path}: a run of no hands")
    return args, rows


def merge(paths: list[str]) -> tuple[dict[str, Any], list[Row]]:
    """Pool the rows of the runs in ``paths``.

    Raises:
        ValueError: a file is not a run, or two runs differ in an argument of ``SAME``,
            or two are the same seed (the same hands twice).
    """
    first: dict[str, Any] | None = None
    seeds: dict[Any, str] = {}
    rows: list[Row] = []
    for path in paths:
        args, more = load(path)
        if first is None:
            first = args
        for key in SAME:
            if args[key] != first[key]:
                raise ValueError(
                    f"{path}: --{key.replace('_', '-')} {args[key]} where {paths[0]} has "
                    f"{first[key]}: only runs of the same bots merge"
                )
        seed = args.get("seed")
        if seed in seeds:
            raise ValueError(f"{path}: seed {seed} again (also {seeds[seed]}): the same hands")
        seeds[seed] = path
        rows.extend(more)
    assert first is not None
    if len(rows) < 2:
        raise ValueError(f"{len(rows)} hand in all: at least 2 are needed for an interval")
    return first, rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--credit", type=float, default=0.5, help="lone_credit, in tricks")
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--samples", type=int, default=100, help="deals a doubling decision")
    parser.add_argument("--play-samples", type=int, default=10, help="deals a card")
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--out", default=None, help="write the arguments and rows as JSON")
    parser.add_argument("--merge", nargs="+", default=None, help="report over runs' --out files")
    args = parser.parse_args(argv)
    if args.merge:
        if args.out:
            parser.error("--merge reports over runs and writes none: leave out --out")
        try:
            arguments, rows = merge(args.merge)
        except ValueError as e:
            parser.error(str(e))
        report(rows, arguments)
        return 0
    if args.hands < 2:
        parser.error(f"--hands must be at least 2, not {args.hands}")
    if args.out and not Path(args.out).resolve().parent.is_dir():
        parser.error(f"--out {args.out}: its directory does not exist")
    rng = random.Random(args.seed)
    rows = [hand(rng, args.credit, args.samples, args.play_samples) for _ in range(args.hands)]
    arguments = {k: getattr(args, k) for k in (*SAME, "hands", "seed")}
    if args.out:
        tmp = Path(args.out + ".tmp")
        tmp.write_text(json.dumps({"arguments": arguments, "rows": rows}))
        tmp.replace(args.out)
    report(rows, arguments)
    return 0


if __name__ == "__main__":
    sys.exit(main())
