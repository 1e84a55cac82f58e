"""Arena: our strongest bot against OpenSpiel's Python ISMCTSBot, through the OpenSpiel games.

    .venv/bin/python bench/vs_openspiel.py [--game quinto|quintus] [--variant V]
        [--deals 500] [--seconds 0.2] [--bot pimc] [--uct-c C] [--jobs J]
        [--seed S] [--first F] [--out results.json [--resume]]
    .venv/bin/python bench/vs_openspiel.py --merge a.json b.json ...

``--first F`` plays deals ``F .. F+deals-1`` (a shard: the deals are fixed by the seed
and their index, and the budgets are CPU time, so shards run on different days or
machines add up). ``--merge`` reads the ``--out`` files of shards of one run (same game,
variant, bot, seconds, seed and constant), keeps each deal once and prints the report
over all of them.

``--out`` is written again as deals finish (by a rename: a reader sees the file as it
was or as it is, never half written), with ``"complete": false`` until the last, so a
shard stopped part way keeps the deals it played; ``--resume`` then plays only the
shard's deals that its ``--out`` does not hold yet (the file must be of the same run:
same game, variant, bot, seconds, seed and constant). A partial ``--out`` merges as a
smaller shard.

Both bots play every hand on ``python_quinto`` / ``python_quintus`` states
(:mod:`quintet.integrations.openspiel`): OpenSpiel's ``ISMCTSBot`` (random-rollout
evaluator, UCT, a new search per decision, the unseen cards re-dealt for every
simulation by the game's ``resample_from_infostate``) and ours through
:class:`~quintet.integrations.openspiel.QuintetBot`, which decides from the player's
observation only.

Equal time: each decision gets ``--seconds`` of CPU time of the deciding thread
(``time.thread_time``, the clock of our bots' budgets), so that load on the machine
favours neither. ISMCTS runs simulations until the time is up (its own loop has only a
simulation count, so ``TimedISMCTSBot`` checks the clock between simulations); our bot
is given the same seconds and no sample cap (``pimc:samples=1000000000``). A decision
with one legal action is answered at once by both. The report gives the measured mean
CPU time per decision of each.

Duplicate deals, as in ``quintet arena``: deal ``i`` (cards from
``random.Random(f"{seed}:deal:{i}")``) is played in every seating and the seats' roles
are swapped between them, so the cards cancel out:

* Quinto partnership: dealer ``i % 4``; ours at N-S against ISMCTS at E-W, then the
  reverse.
* Quinto dummy: lone seat and dealer ``i % 4``; ours alone (with the dummy) against
  ISMCTS, then the reverse.
* Quintus: dealer ``d = i % 5``; the seat groups ``{d + 4}`` (the base game's quintus),
  ``{d, d + 2}`` and ``{d + 1, d + 3}`` given to the two bots in the 6 ways that do not
  give all three to one.

A seat's score is its side's hand points (Quinto) or what it gains in the hand
(Quintus); in one seating our result is the mean score of our seats minus ISMCTS's, and
a deal's result is the mean over its seatings. The report: points per deal (ours minus
ISMCTS's) with a 95% confidence interval (``quintet.arena.summarize``), and whether the
interval is clear of zero. With a lone player, each bot's results where it held him,
each role in duplicate, how often each bot held him and how it went, and in Quintus
*team against team*: in a hand where one team is both ours and the other both ISMCTS's,
our team's seat score less theirs (the same quintus and the same cards against both:
the teams' play alone, far less noisy than the roles' comparison; in the base game the
team with more card points scores more, in the bidding game it pays less or gets
more). Deals run in ``--jobs`` processes (default: every core); at
0.2 s a decision a Quinto deal takes about 20 s per process.

``--uct-c`` (default 40 for Quinto, 25 for Quintus: returns are points, tens per hand, so
OpenSpiel's usual constant for returns in [-1, 1] would not explore) is ISMCTS's
exploration constant.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from quintet.arena import summarize
from quintet.arena.report import deal_teams, teams_compared
from quintet.arena.results import SeatingResult
from quintet.arena.seating import roles_of
from quintet.arena.seating import seatings as arena_seatings
from quintet.games import GAMES, find_game
from quintet.integrations import openspiel

UCT_C = {"quinto": 40.0, "quintus": 25.0}


class TimedISMCTSBot(ismcts.ISMCTSBot):  # type: ignore[misc]
    """OpenSpiel's ISMCTSBot searching until ``seconds`` have passed (two simulations at least).

    The search is OpenSpiel's (its node creation, world sampling, simulation and final
    policy); only the stopping rule differs. ``simulations`` collects the count per search.
    """

    def __init__(self, game: Any, uct_c: float, seconds: float, seed: int) -> None:
        rs = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(1, rs)
        super().__init__(game, evaluator, uct_c, max_simulations=10**9, random_state=rs)
        self.seconds = seconds
        self.simulations: list[int] = []
        rng = random.Random(seed)
        # OpenSpiel's default resampler draws from an unseeded sampler: seed it instead.
        self.set_resampler(lambda state, player: state.resample_from_infostate(player, rng))

    def run_search(self, state: Any) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)]
        deadline = time.thread_time() + self.seconds
        self.reset()
        root = self.create_new_node(state)
        n = 0
        # The first simulation only expands the root: two at least give it a visit.
        while n < 2 or time.thread_time() < deadline:
            self.run_simulation(self.sample_root_state(state))
            n += 1
        self.simulations.append(n)
        return list(self.get_final_policy(state, root))


def seatings(game: str, variant: str, index: int) -> tuple[int, int | None, list[tuple[int, ...]]]:
    """Return the dealer, the lone seat and, per seating, the owner of each seat (0 = ours):
    the arena's seatings (:func:`quintet.arena.seating.seatings`)."""
    info = find_game(game)
    v = info.variant(variant)
    dealer, owners = arena_seatings(info, v, index)
    return dealer, dealer if v.lone_seat else None, owners


@dataclass
class DealResult:
    """One deal: our points minus ISMCTS's, and the time each bot took per decision."""

    deal: int
    diff: float
    seatings: list[dict[str, Any]] = field(default_factory=list)
    ours_time: float = 0.0
    ours_decisions: int = 0
    ismcts_time: float = 0.0
    ismcts_decisions: int = 0
    simulations: list[int] = field(default_factory=list)


def play_deal(args: argparse.Namespace, index: int) -> DealResult:
    """Play deal ``index`` in all its seatings."""
    game_name, variant = args.game, args.variant
    dealer, lone, owners = seatings(game_name, variant, index)
    params: dict[str, Any] = {"variant": variant, "dealer": dealer}
    if lone is not None:
        params["lone_seat"] = lone
    game = openspiel.load_game(game_name, **params)
    spec = game.spec
    engine = spec.deal(random.Random(f"{args.seed}:deal:{index}"))
    out = DealResult(index, 0.0)
    total = 0.0
    for k, owner in enumerate(owners):
        state = game.state_from_engine(engine.clone())
        bots: list[Any] = []
        for p, seat in enumerate(spec.players):
            seed = hash((args.seed, index, k, p)) & 0xFFFFFFFF
            if owner[seat] == 0:
                bots.append(openspiel.QuintetBot(args.bot, seed=seed, seconds=args.seconds))
            else:
                bots.append(TimedISMCTSBot(game, args.uct_c, args.seconds, seed))
        while not state.is_terminal():
            p = state.current_player()
            many = len(state.legal_actions()) > 1
            t = time.thread_time()
            action = bots[p].step(state)
            took = time.thread_time() - t
            if many:
                if owner[spec.players[p]] == 0:
                    out.ours_time += took
                    out.ours_decisions += 1
                else:
                    out.ismcts_time += took
                    out.ismcts_decisions += 1
            state.apply_action(int(action))
        info = spec.info
        scores = roles_of(info).scores(info, state.engine)  # as the arena scores a seat
        ours = [x for o, x in zip(owner, scores, strict=True) if o == 0]
        theirs = [x for o, x in zip(owner, scores, strict=True) if o == 1]
        diff = sum(ours) / len(ours) - sum(theirs) / len(theirs)
        total += diff
        # The lone player of the hand (a quintus; the Quinto dummy game's lone seat), if any.
        lone_seat = getattr(state.engine, "quintus_seat", lone)
        out.seatings.append(
            {"owners": list(owner), "scores": list(scores), "diff": diff, "lone": lone_seat}
        )
        for bot in bots:
            if isinstance(bot, TimedISMCTSBot):
                out.simulations.extend(bot.simulations)
    out.diff = total / len(owners)
    return out


def _chunk(args: argparse.Namespace, indices: list[int]) -> list[DealResult]:
    return [play_deal(args, i) for i in indices]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--game", default="quinto", choices=tuple(GAMES))
    parser.add_argument("--variant", default=None)
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=0.2)
    parser.add_argument("--bot", default="pimc:samples=1000000000")
    parser.add_argument("--uct-c", type=float, default=None)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--first", type=int, default=0, help="the first deal's index")
    parser.add_argument("--out", default=None, help="write the per-deal results as JSON")
    parser.add_argument("--merge", nargs="+", metavar="FILE", help="report over shards' --out")
    parser.add_argument(
        "--against",
        nargs="+",
        metavar="FILE",
        help="with --merge: another run's shards on the same deals, compared deal by deal",
    )
    parser.add_argument(
        "--resume", action="store_true", help="play only the deals --out does not hold yet"
    )
    args = parser.parse_args(argv)
    if args.against and not args.merge:
        parser.error("--against needs --merge (the run to compare with it)")
    if args.merge:
        return merge(args.merge, args.against)
    if args.resume and not args.out:
        parser.error("--resume needs --out (the file to resume)")
    args.variant = args.variant or find_game(args.game).default_variant
    args.uct_c = UCT_C[args.game] if args.uct_c is None else args.uct_c
    jobs = args.jobs or len(os.sched_getaffinity(0))
    openspiel.load_game(args.game, variant=args.variant)  # fail early on a bad variant
    print(
        f"{args.game} {args.variant}: {args.bot} vs OpenSpiel ISMCTSBot (uct_c {args.uct_c:g}), "
        f"{args.seconds:g} CPU s per decision, {args.deals} duplicate deals, {jobs} jobs",
        flush=True,
    )
    t0 = time.perf_counter()
    indices = list(range(args.first, args.first + args.deals))
    results: list[DealResult] = []
    if args.resume and os.path.exists(args.out):
        try:
            results = _resumed(args, set(indices))
        except ValueError as e:
            print(f"{args.out}: {e}", file=sys.stderr)
            return 2
        print(f"  {args.out}: {len(results)} of the deals already played", file=sys.stderr)
    held = {r.deal for r in results}
    todo = [i for i in indices if i not in held]
    # Small chunks in deal order so progress can be reported as deals finish.
    size = max(1, min(5, len(todo) // (jobs * 4) or 1))
    chunks = [todo[i : i + size] for i in range(0, len(todo), size)]
    arguments = {k: v for k, v in vars(args).items() if k != "resume"}

    def finished(batch: list[DealResult]) -> None:
        results.extend(batch)
        _progress(results, args.deals, t0)
        if args.out and len(results) < args.deals:
            write_out(args.out, sorted(results, key=lambda r: r.deal), arguments, False)

    if jobs == 1:
        for c in chunks:
            finished(_chunk(args, c))
    elif chunks:
        with ProcessPoolExecutor(jobs) as pool:
            for batch in pool.map(_chunk, [args] * len(chunks), chunks):
                finished(batch)
    results.sort(key=lambda r: r.deal)
    report(args.bot, results, time.perf_counter() - t0, args.out, arguments)
    return 0


def _resumed(args: argparse.Namespace, indices: set[int]) -> list[DealResult]:
    """Return the deals of this shard that ``args.out`` holds (checked to be this run's).

    Raises:
        ValueError: the file is not a shard of this run, or cannot be read.
    """
    try:
        with open(args.out, encoding="utf-8") as f:
            data = json.load(f)
        a = data["arguments"]
        deals = data["deals"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"cannot be resumed ({e!r})") from None
    bad = [k for k in SAME if a.get(k) != vars(args).get(k)]
    if bad:
        raise ValueError(f"not a shard of this run ({', '.join(bad)} differ): not resumed")
    return [DealResult(**d) for d in deals if d["deal"] in indices]


#: The arguments that must agree between shards of one run.
SAME = ("game", "variant", "bot", "seconds", "seed", "uct_c")


def merge(paths: list[str], against: list[str] | None = None) -> int:
    """Print the report over the shards in ``paths`` (``--out`` files of one run); with
    ``against`` (another run's shards on the same deals), the paired comparison."""
    try:
        first, results = _load(paths)
        if against:
            other, base = _load(against)
            bad = [k for k in SAME if k != "bot" and other.get(k) != first.get(k)]
            if bad:
                raise ValueError(f"--against: not the same deals ({', '.join(bad)} differ)")
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    if not against:
        report(first["bot"], results, None, None, first)
        return 0
    paired(first, results, other, base)
    return 0


def _load(paths: list[str]) -> tuple[dict[str, Any], list[DealResult]]:
    """Return the arguments and the deals (each once, in order) of one run's shards.

    Raises:
        ValueError: a file cannot be read, is not a shard of the same run, or is too
            old to merge.
    """
    first: dict[str, Any] | None = None
    deals: dict[int, DealResult] = {}
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            a = data["arguments"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{path}: cannot be read as a shard ({e!r})") from None
        if first is None:
            first = a
            print(
                f"{a['game']} {a['variant']}: {a['bot']} vs OpenSpiel ISMCTSBot "
                f"(uct_c {a['uct_c']:g}), {a['seconds']:g} CPU s per decision, merged"
            )
        bad = [k for k in SAME if a.get(k) != first.get(k)]
        if bad:
            raise ValueError(f"{path}: not a shard of the same run ({', '.join(bad)} differ)")
        for d in data["deals"]:
            if "ours_time" not in d:
                raise ValueError(f"{path}: written by an older version (no times per deal)")
            deals.setdefault(d["deal"], DealResult(**d))
        part = "" if data.get("complete", True) else " (a shard stopped part way)"
        print(f"  {path}: {len(data['deals'])} deals{part}", file=sys.stderr)
    if first is None:
        raise ValueError("no shards to merge")
    return first, [deals[k] for k in sorted(deals)]


def paired(
    first: dict[str, Any], results: list[DealResult], other: dict[str, Any], base: list[DealResult]
) -> None:
    """Print run A (``results``) less run B (``base``) deal by deal, over the deals both
    played: each against ISMCTS on the same cards, so the deals' own luck cancels and
    what is left is the two bots' difference (and ISMCTS's noise)."""
    by_deal = {r.deal: r for r in base}
    both = [(r, by_deal[r.deal]) for r in results if r.deal in by_deal]
    info = GAMES.get(first.get("game", ""))
    print(
        f"\nPaired by deal, A = {first['bot']} ({len(results)} deals), B = {other['bot']} "
        f"({len(base)} deals): A's result against ISMCTS less B's, on the {len(both)} deals "
        f"both played"
    )

    def line(label: str, values: list[float]) -> None:
        if len(values) < 2:
            print(f"  {label}: fewer than two deals")
            return
        t = summarize(values)
        verdict = "clear" if t.clear else "not clear"
        print(
            f"  {label}: {t.mean:+.2f} [{t.low:+.2f}, {t.high:+.2f}] over {t.n} deals ({verdict})"
        )

    line("points per deal", [a.diff - b.diff for a, b in both])
    for label, lone in (("as the lone player", True), ("as a team player", False)):
        values = []
        for a, b in both:
            va, vb = role_value(a, lone), role_value(b, lone)
            if va is not None and vb is not None:
                values.append(va - vb)
        if values:
            line(label, values)
    if info is not None and info.teams_of(0) is not None:
        values = []
        for a, b in both:
            ta = deal_teams(_seating_results(a), "ours", "ISMCTS", info)
            tb = deal_teams(_seating_results(b), "ours", "ISMCTS", info)
            if ta is not None and tb is not None:
                values.append(ta - tb)
        line("team against team, a seat", values)


def report(
    bot: str,
    results: list[DealResult],
    elapsed: float | None,
    out: str | None,
    arguments: dict[str, Any],
) -> None:
    """Print the summary of ``results`` (and write them to ``out`` when given)."""
    s = summarize([r.diff for r in results])
    ours_dec = sum(r.ours_decisions for r in results)
    os_dec = sum(r.ismcts_decisions for r in results)
    sims = [n for r in results for n in r.simulations]
    ours_t = sum(r.ours_time for r in results) / max(1, ours_dec)
    os_t = sum(r.ismcts_time for r in results) / max(1, os_dec)
    lo = "-" if s.low is None else f"{s.low:+.2f}"
    hi = "-" if s.high is None else f"{s.high:+.2f}"
    verdict = "clear of zero" if s.clear else "not clear of zero"
    span = f"deals {results[0].deal}-{results[-1].deal}" if results else "no deals"
    print(
        f"\n{bot} minus ISMCTS: {s.mean:+.2f} points per deal over {s.n} deals ({span}), "
        f"95% CI [{lo}, {hi}] ({verdict})"
    )
    # Roles (a lone quintus): the seatings where ours held him, and where ISMCTS did.
    for label, who in (("ours as the lone player", 0), ("ISMCTS as the lone player", 1)):
        per_deal = []
        for r in results:
            xs = [
                x["diff"]
                for x in r.seatings
                if x.get("lone") is not None and x["owners"][x["lone"]] == who
            ]
            if xs:
                per_deal.append(sum(xs) / len(xs))
        if len(per_deal) >= 2:
            t = summarize(per_deal)
            print(f"  {label}: {t.mean:+.2f} [{t.low:+.2f}, {t.high:+.2f}] over {t.n} deals")
    # Each role in duplicate: the same deal's role held by ours and by ISMCTS, compared.
    for label, lone in (("the lone player", True), ("a team player", False)):
        per_deal = [v for v in (role_value(r, lone) for r in results) if v is not None]
        if len(per_deal) >= 2:
            t = summarize(per_deal)
            print(
                f"  as {label}, ours minus ISMCTS in that role (its seat's own score, same "
                f"deals): {t.mean:+.2f} [{t.low:+.2f}, {t.high:+.2f}] over {t.n} deals"
            )
    lone_lines(results, arguments.get("game", ""))
    took = "" if elapsed is None else f"; elapsed {elapsed:.0f} s"
    print(
        f"CPU time per decision: ours {ours_t:.3f} s over {ours_dec}, ISMCTS {os_t:.3f} s over "
        f"{os_dec} (mean {sum(sims) / max(1, len(sims)):.0f} simulations per search){took}"
    )
    if out:
        write_out(out, results, arguments, True)


def role_value(r: DealResult, lone: bool) -> float | None:
    """Return one deal's role in duplicate: ours less ISMCTS's mean seat score where each
    held the lone seat (``lone``) or a team seat (not ``lone``); None when the deal has no
    lone player or one of the two never held that role in it."""
    mine: list[list[float]] = [[], []]
    for x in r.seatings:
        if x.get("lone") is None:
            continue
        for seat, owner in enumerate(x["owners"]):
            if (seat == x["lone"]) == lone:
                mine[owner].append(x["scores"][seat])
    if not (mine[0] and mine[1]):
        return None
    return sum(mine[0]) / len(mine[0]) - sum(mine[1]) / len(mine[1])


def _seating_results(r: DealResult) -> list[SeatingResult]:
    names = ("ours", "ISMCTS")
    return [
        SeatingResult(
            players=tuple(names[o] for o in x["owners"]),
            scores=tuple(x["scores"]),
            diff=x["diff"],
            solo=x.get("lone"),
        )
        for x in r.seatings
    ]


def lone_lines(results: list[DealResult], game: str) -> None:
    """Print who held the lone seat and how it went, and, where the lone player has
    teams against him (Quintus), how a team of two of ours did against a team of two
    ISMCTS players in the same hand.

    The seatings with a lone player: for each bot, the hands it held him, his mean
    score and the share he won (a contract made, in the bidding game). Team against
    team: in a hand where one team is both ours and the other both ISMCTS's, the two
    face the same lone player and the same cards played by him, so the difference of
    their seats' scores (per seat) is the teams' play alone, with far less noise than
    a role's duplicate comparison (in the bidding game the split of the bid between
    the teams by their card points is what it measures); per deal the mean of such
    hands, with a 95% CI, by who held the lone seat.
    """
    held: list[list[float]] = [[], []]
    for r in results:
        for x in r.seatings:
            lone = x.get("lone")
            if lone is not None:
                held[x["owners"][lone]].append(x["scores"][lone])
    for who, name in ((0, "ours"), (1, "ISMCTS")):
        xs = held[who]
        if xs:
            won = sum(1 for v in xs if v > 0) / len(xs)
            print(
                f"  {name} held the lone seat in {len(xs)} seatings: mean score "
                f"{sum(xs) / len(xs):+.2f}, above zero in {won:.0%}"
            )
    info = GAMES.get(game)
    if info is None:
        return
    deals = [_seating_results(r) for r in results]
    for holder, name in ((None, "any"), ("ours", "ours"), ("ISMCTS", "ISMCTS")):
        t = teams_compared(deals, "ours", "ISMCTS", info, holder)
        if t is not None:
            print(
                f"  team against team (two of ours against two ISMCTS in one hand, "
                f"{name} the lone player), ours minus theirs a seat: {t.mean:+.2f} "
                f"[{t.low:+.2f}, {t.high:+.2f}] over {t.n} deals"
            )


def write_out(
    out: str, results: list[DealResult], arguments: dict[str, Any], complete: bool
) -> None:
    """Write ``results`` to ``out`` as JSON (by a rename: never half written)."""
    dec = [sum(r.ours_decisions for r in results), sum(r.ismcts_decisions for r in results)]
    sims = [n for r in results for n in r.simulations]
    data = {
        "arguments": arguments,
        "complete": complete,
        "summary": summarize([r.diff for r in results]).to_json() if results else None,
        "seconds_per_decision": {
            "ours": sum(r.ours_time for r in results) / max(1, dec[0]),
            "ismcts": sum(r.ismcts_time for r in results) / max(1, dec[1]),
        },
        "mean_simulations": sum(sims) / max(1, len(sims)),
        "deals": [asdict(r) for r in results],
    }
    part = f"{out}.part"
    with open(part, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
    os.replace(part, out)


def _progress(results: list[DealResult], total: int, t0: float) -> None:
    if len(results) % 10 and len(results) != total:
        return
    s = summarize([r.diff for r in results])
    ci = "" if s.half_width is None else f" ± {s.half_width:.2f}"
    print(
        f"  {len(results):>4}/{total} deals  {s.mean:+8.2f}{ci} points per deal  "
        f"{time.perf_counter() - t0:6.0f} s",
        file=sys.stderr,
        flush=True,
    )


if __name__ == "__main__":
    raise SystemExit(main())
