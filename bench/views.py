"""What search pays for a player's view: ``observation(seat)`` and a resample, against hearts.

    .venv/bin/python bench/views.py [--seconds 2] [--seed 1] [--positions 200] [--reps 10]

Measured interleaved in one run, in CPU time (``time.process_time_ns``, never wall
time), on random mid-hand positions of every variant (Quinto partnership and dummy,
Quintus base and bidding) and of OpenSpiel's C++ ``hearts``:

``obs``
    ``state.observation(seat)`` for the seat to act (hearts:
    ``state.information_state_string(player)``, OpenSpiel's information-state key).
``resample``
    ``state.resample_from_infostate(seat, rng)`` for the seat to act, called again and
    again on the same positions, as search does (ISMCTS and PIMC resample the state they
    decide from once per iteration or sample). Hearts: its own
    ``state.resample_from_infostate(player, sampler)`` with OpenSpiel's C++
    ``UniformProbabilitySampler`` (no Python call per random number): the same job, dealing
    the cards the player has not seen consistently with the voids shown, returning a new
    state.
``cold obs``
    the same observation, once on each of fresh positions (drawn untimed before each
    block): nothing kept on the state from an earlier call. Hearts the same way.
``cold``
    the same resample, once on each of fresh positions (drawn untimed before each block):
    nothing the engine keeps on a state from an earlier call helps (what the deal sampler
    keeps per deal *shape* may, as it would in a long search). Hearts the same way.
``norebase``
    ``state.resample(seat, rng, rebase=False)`` (a search that only plays on: the copy keeps
    the original's snapshot), for information.
``adapter``
    the resample through the OpenSpiel adapter (``python_quinto``/``python_quintus``:
    rebuilds an OpenSpiel state and replays the deal and history), for information; left
    out with ``--no-adapter``.

A *position* is a random deal played by uniform legal choices (Quintus signals
included, as the seat to act chooses them) to a random point between the second
trick and the second-last (Quinto: 4 to 43 cards played; Quintus: 5 to 34; hearts: 4 to
47 after the pass). ``--positions`` positions per variant are drawn once. A *block* times
one measure: ``--reps`` passes over its positions (so that it runs with its data in the CPU
caches, as a search working on one state does; ``--reps 1`` times one pass, with what
the other measures left in the caches). Rounds time one block of
every measure in turn (the order rotates) until the blocks add up to ``--seconds`` of
CPU time. A figure is a measure's total CPU time over its calls. The positions are
frozen out of the garbage collector's reach once drawn (``gc.freeze``): what a call
leaves for the collector is still charged to the calls. The goals are the
issue's: ``observation`` at most 3 us, a resample at most 20 us.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

# Measure the checkout this file is in, not whatever ``quintet`` is installed.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quintet.actions import is_play
from quintet.quinto import QuintoRules, QuintoState
from quintet.quintus import QuintusRules, QuintusState

OBS_GOAL_US = 3.0
RESAMPLE_GOAL_US = 20.0
#: Fresh positions per block of a ``cold`` measure.
COLD = 32
#: Positions per variant of the ``adapter`` measure (one pass per block: it is slow).
ADAPTER = 50
VARIANTS = ("quinto partnership", "quinto dummy", "quintus base", "quintus bidding")


def _quinto_position(variant: str, rng: random.Random) -> QuintoState:
    rules = QuintoRules(variant=variant)
    lone = 0 if variant == "dummy" else None
    while True:
        dealer = rng.randrange(4)
        if lone is not None and dealer == 2:  # the dummy never deals
            dealer = 0
        s = QuintoState.deal(rules, dealer, rng, lone_seat=lone)
        if _play_to(s, rng.randrange(4, 44), rng):
            return s


def _play_to(s: Any, cards: int, rng: random.Random) -> bool:
    """Play uniform legal choices until ``cards`` cards are played; False if the hand ended."""
    played = 0
    while not s.is_terminal() and played < cards:
        a = rng.choice(s.legal_actions())
        played += is_play(a)
        s.apply_action(a)
    return not s.is_terminal()


def _quintus_position(variant: str, rng: random.Random) -> QuintusState:
    rules = QuintusRules(variant=variant)
    while True:
        s = QuintusState.deal(rules, rng.randrange(5), rng)
        if _play_to(s, rng.randrange(5, 35), rng):
            return s


def _hearts_position(game: Any, rng: random.Random) -> Any:
    while True:
        s = game.new_initial_state()
        while s.is_chance_node():
            s.apply_action(rng.choice(s.chance_outcomes())[0])
        passes = 0 if s.history()[0] == 0 else 12
        stop = 1 + 52 + passes + rng.randrange(4, 48)
        while not s.is_terminal() and len(s.history()) < stop:
            s.apply_action(rng.choice(s.legal_actions()))
        if not s.is_terminal():
            return s


def _position(variant: str, rng: random.Random, hearts: Any) -> Any:
    game, _, kind = variant.partition(" ")
    if game == "quinto":
        return _quinto_position(kind, rng)
    if game == "quintus":
        return _quintus_position(kind, rng)
    return _hearts_position(hearts, rng)


class Measure:
    """One timed operation; ``run()`` does one round and returns (calls, CPU ns) it timed."""

    def __init__(self, name: str, run: Callable[[], tuple[int, int]]) -> None:
        self.name = name
        self.run = run
        self.ns = 0
        self.calls = 0

    def round(self) -> None:
        n, ns = self.run()
        self.ns += ns
        self.calls += n

    @property
    def us(self) -> float:
        return self.ns / 1000 / self.calls if self.calls else float("nan")


def timed(call: Callable[..., Any], args: list[tuple[Any, ...]], reps: int) -> tuple[int, int]:
    """Return (calls, CPU ns) of ``call(*a)`` for every ``a`` in ``args``, ``reps`` times."""
    clock = time.process_time_ns
    t0 = clock()
    for _ in range(reps):
        for a in args:
            call(*a)
    return reps * len(args), clock() - t0


def build(args: argparse.Namespace) -> list[Measure]:
    import pyspiel

    hearts = pyspiel.load_game("hearts")
    rng = random.Random(args.seed)
    measures: list[Measure] = []
    n = args.positions
    reps = args.reps

    for variant in VARIANTS:
        states = [_position(variant, rng, hearts) for _ in range(n)]
        pairs = [(s, s.current_player()) for s in states]
        triples = [(s, seat, random.Random(rng.getrandbits(64))) for s, seat in pairs]
        cold_rng = random.Random(rng.getrandbits(64))

        def cold(variant: str = variant, cold_rng: random.Random = cold_rng) -> tuple[int, int]:
            # Fresh positions each block (drawn untimed), each resampled once.
            fresh = [_position(variant, cold_rng, hearts) for _ in range(COLD)]
            args = [(s, s.current_player(), random.Random(cold_rng.getrandbits(64))) for s in fresh]
            return timed(_resample, args, 1)

        def cold_obs(variant: str = variant, cold_rng: random.Random = cold_rng) -> tuple[int, int]:
            # Fresh positions each block (drawn untimed), each observed once.
            fresh = [_position(variant, cold_rng, hearts) for _ in range(COLD)]
            return timed(_observation, [(s, s.current_player()) for s in fresh], 1)

        measures += [
            Measure(f"{variant}: obs", partial(timed, _observation, pairs, reps)),
            Measure(f"{variant}: cold obs", cold_obs),
            Measure(f"{variant}: resample", partial(timed, _resample, triples, reps)),
            Measure(f"{variant}: cold", cold),
            Measure(f"{variant}: norebase", partial(timed, _norebase, triples, reps)),
        ]
        if args.adapter:
            adapted = _adapter_positions(variant, rng, ADAPTER)
            if adapted is not None:
                ad = [(s, s.current_player(), random.Random(rng.getrandbits(64))) for s in adapted]
                measures.append(Measure(f"{variant}: adapter", partial(timed, _resample, ad, 1)))

    hstates = [_hearts_position(hearts, rng) for _ in range(n)]
    hpairs = [(s, s.current_player()) for s in hstates]
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)

    htriples = [(s, p, sampler) for s, p in hpairs]
    cold_rng = random.Random(rng.getrandbits(64))

    def hearts_cold() -> tuple[int, int]:
        fresh = [_hearts_position(hearts, cold_rng) for _ in range(COLD)]
        return timed(_resample, [(s, s.current_player(), sampler) for s in fresh], 1)

    def hearts_cold_obs() -> tuple[int, int]:
        fresh = [_hearts_position(hearts, cold_rng) for _ in range(COLD)]
        return timed(_hearts_obs, [(s, s.current_player()) for s in fresh], 1)

    measures += [
        Measure("hearts: obs", partial(timed, _hearts_obs, hpairs, reps)),
        Measure("hearts: resample", partial(timed, _resample, htriples, reps)),
        Measure("hearts: cold", hearts_cold),
        Measure("hearts: cold obs", hearts_cold_obs),
    ]
    return measures


def _observation(s: Any, seat: int) -> Any:
    return s.observation(seat)


def _hearts_obs(s: Any, player: int) -> Any:
    return s.information_state_string(player)


def _resample(s: Any, seat: int, rng: Any) -> Any:
    return s.resample_from_infostate(seat, rng)


def _norebase(s: Any, seat: int, rng: random.Random) -> Any:
    return s.resample(seat, rng, rebase=False)


def _adapter_positions(variant: str, rng: random.Random, n: int) -> list[Any] | None:
    """Random mid-hand positions of the OpenSpiel adapter's game for ``variant``."""
    try:
        from quintet.integrations import openspiel as qos
    except ImportError:  # pragma: no cover - the bench extra is missing
        return None
    game, _, kind = variant.partition(" ")
    params: dict[str, Any] = {"variant": kind}
    if kind == "dummy":
        params["lone_seat"] = 0
    g = qos.load_game(game, **params)
    cards = 48 if game == "quinto" else 40
    out: list[Any] = []
    while len(out) < n:
        st = g.new_initial_state()
        while st.is_chance_node():
            st.apply_action(rng.choice(st.chance_outcomes())[0])
        stop = rng.randrange(cards // 12, cards - cards // 12)
        played = 0
        while not st.is_terminal() and played < stop:
            a = rng.choice(st.legal_actions())
            played += a < 53
            st.apply_action(a)
        if not st.is_terminal():
            out.append(st)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="total CPU seconds timed")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--positions", type=int, default=200, help="positions per variant")
    ap.add_argument("--reps", type=int, default=10, help="passes over the positions per block")
    ap.add_argument("--no-adapter", dest="adapter", action="store_false")
    args = ap.parse_args(argv)

    measures = build(args)
    for m in measures:  # warm up (imports, first-call costs) untimed
        m.run()
    # The positions live through the run: the garbage collector need not walk them again
    # and again (a full collection over them would land on whichever call set it off).
    gc.collect()
    gc.freeze()
    budget = args.seconds * 1e9
    rounds = 0
    while sum(m.ns for m in measures) < budget or rounds < 2:
        k = rounds % len(measures)
        for m in measures[k:] + measures[:k]:
            m.round()
        rounds += 1
    report(measures, args, rounds)


def report(measures: list[Measure], args: argparse.Namespace, rounds: int) -> None:
    by = {m.name: m for m in measures}
    h_obs = by["hearts: obs"].us
    h_cobs = by["hearts: cold obs"].us
    h_res = by["hearts: resample"].us
    h_cold = by["hearts: cold"].us
    print(
        f"views: {rounds} rounds, {args.positions} positions per variant, {args.reps} passes "
        f"per block, seed {args.seed}, CPU time {sum(m.ns for m in measures) / 1e9:.1f} s "
        "(process_time)"
    )
    print(
        f"hearts (OpenSpiel C++): information_state_string {h_obs:.2f} us (cold {h_cobs:.2f}), "
        f"resample_from_infostate {h_res:.2f} us (cold {h_cold:.2f})"
    )
    head = f"{'us per call':<19}{'obs':>6}{'x':>6}{'cold':>7}{'x':>6}"
    head += f"{'resample':>9}{'x':>6}{'cold':>7}{'x':>6}{'norebase':>9}"
    if args.adapter:
        head += f"{'adapter':>8}"
    print(head)
    ok = {"obs": True, "cold obs": True, "resample": True, "cold": True}
    for v in VARIANTS:
        o = by[f"{v}: obs"].us
        co = by[f"{v}: cold obs"].us
        r = by[f"{v}: resample"].us
        c = by[f"{v}: cold"].us
        nr = by[f"{v}: norebase"].us
        ok["obs"] &= o <= OBS_GOAL_US
        ok["cold obs"] &= co <= OBS_GOAL_US
        ok["resample"] &= r <= RESAMPLE_GOAL_US
        ok["cold"] &= c <= RESAMPLE_GOAL_US
        line = f"{v:<19}{o:>6.2f}{o / h_obs:>6.2f}{co:>7.2f}{co / h_cobs:>6.2f}"
        line += f"{r:>9.2f}{r / h_res:>6.2f}{c:>7.2f}{c / h_cold:>6.2f}{nr:>9.2f}"
        if args.adapter and f"{v}: adapter" in by:
            line += f"{by[f'{v}: adapter'].us:>8.1f}"
        print(line)
    print("(x: the ratio to hearts' figure in the same column)")

    def met(key: str) -> str:
        return "met" if ok[key] else "NOT met"

    print(
        f"goal observation <= {OBS_GOAL_US:g} us in every variant: repeated {met('obs')}, "
        f"cold {met('cold obs')}"
    )
    print(
        f"goal resample <= {RESAMPLE_GOAL_US:g} us in every variant: repeated "
        f"{met('resample')}, cold {met('cold')}"
    )


if __name__ == "__main__":
    main()
