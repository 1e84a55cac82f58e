"""Reference playout speed of OpenSpiel's C++ ``hearts`` driven from Python.

The playout benchmark compares our engine with this figure in the same run, so the loop
here is written the way one would write it against our own engine::

    while not s.is_terminal():
        a = rng.choice(s.legal_actions())
        s.apply_action(a)

plus the one branch OpenSpiel needs for chance nodes.

What one hand is
    ``game.new_initial_state()`` followed by random transitions until ``is_terminal()``.
    OpenSpiel's hearts (default parameters) goes through these phases:

    1. PassDir: one chance node, outcome 0-3 = No Pass / Left / Across / Right.
    2. Deal: 52 chance nodes, outcome = card id 0-51.
    3. Pass: 12 decisions (4 players pass 3 cards each, one card per action, action =
       card id 0-51), none when the pass direction is No Pass.
    4. Play: 52 decisions, action = card id 0-51.

    So a hand is 117 transitions when cards are passed and 105 on a No Pass hand
    (one hand in four), about 114 on average.

How each action is picked
    At a chance node: ``rng.choice(state.chance_outcomes())[0]``. Picking uniformly from
    the outcome list equals sampling by the listed probabilities because hearts' chance
    outcomes are all equally likely (pass direction 1/4, each remaining card 1/n);
    :func:`verify_counting` asserts this. At a decision node:
    ``rng.choice(state.legal_actions())``. One ``random.Random(seed)`` serves both; no
    global random state is used.

What is counted
    ``transitions``
        every ``apply_action``: chance and decisions alike (``len(state.history())`` at
        the end of each hand).
    ``chance_transitions``
        those made at chance nodes (pass direction and deal), counted in the chance branch.
    ``decision_transitions``
        ``transitions - chance_transitions``: pass and play decisions.
    ``plays``
        card-play decisions only. Passing and playing share the action ids 0-51, so they
        cannot be told apart by id; they are told apart by phase instead. In OpenSpiel's
        hearts every Pass-phase decision comes before every Play-phase one and there are
        exactly 4 * 3 = 12 of them unless the pass-direction outcome (the hand's first
        action) is "No Pass" (id 0), when there are none. So per hand
        ``plays = decisions - (12 if history[0] != 0 else 0)``, computed once at the end
        of the hand, outside the per-transition loop. :func:`verify_counting` checks this
        derivation against the phase the state reports itself (``state.to_struct().phase``)
        on a few untimed hands; it comes to 52 plays per hand.

What is timed
    ``time.perf_counter()`` around the whole run of hands, including
    ``new_initial_state()``; the deadline is checked once per hand, so a run lasts a little
    past ``seconds`` and the measured elapsed time is what the rates use.
    ``us_per_transition`` is elapsed / transitions, ``us_per_decision`` is elapsed /
    decision transitions and ``us_per_play`` elapsed / plays (both of the latter charge
    the chance transitions to the decisions).

    ``clone_us`` is the mean cost of ``state.clone()`` (including freeing the copy) on a
    mid-hand state: cards passed, 20 cards played. It is a separate loop of ``clone_reps``
    clones after a short warm-up; the empty loop's own cost (tens of nanoseconds) is not
    subtracted.

Run (needs ``pip install open-spiel``)::

    python bench/openspiel_hearts.py --seconds 3 --seed 1
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

GAME_NAME = "hearts"
NO_PASS = 0
"""Pass-direction chance outcome meaning no cards are passed this hand."""
PASS_DECISIONS_PER_HAND = 4 * 3
"""Pass-phase decisions in a hand with passing: 4 players pass 3 cards each, one per action."""
CLONE_AFTER_PLAYS = 20
"""Cards played in the mid-hand state whose clone cost is measured."""


def available() -> bool:
    """True if OpenSpiel's Python module ``pyspiel`` imports."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


def _load_game() -> Any:
    import pyspiel

    return pyspiel.load_game(GAME_NAME)


def _phase(state: Any) -> str:
    """Phase name as the state reports it ("PassDir", "Deal", "Pass", "Play", ...); slow."""
    return str(state.to_struct().phase)


def verify_counting(hands: int = 8, seed: int = 1) -> None:
    """Check, on untimed hands, the assumptions :func:`measure` counts by.

    Raises AssertionError if chance outcomes are not uniform, if a chance node comes after
    a decision, or if the play count derived from the pass direction differs from the
    number of decisions taken while the state reports the Play phase.
    """
    game = _load_game()
    rng = random.Random(seed)
    for _ in range(hands):
        s = game.new_initial_state()
        chance = decisions = plays = 0
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                probs = {p for _, p in outcomes}
                assert max(probs) - min(probs) < 1e-12, f"non-uniform chance: {outcomes}"
                assert decisions == 0, "chance node after a decision"
                a = rng.choice(outcomes)[0]
                chance += 1
            else:
                if _phase(s) == "Play":
                    plays += 1
                a = rng.choice(s.legal_actions())
                decisions += 1
            s.apply_action(a)
        hist = s.history()
        assert len(hist) == chance + decisions
        derived = decisions - (PASS_DECISIONS_PER_HAND if hist[0] != NO_PASS else 0)
        assert derived == plays == 52, (derived, plays, hist[0])


def _measure_clone(game: Any, seed: int, reps: int) -> float:
    """Mean microseconds of ``state.clone()`` on a state with ``CLONE_AFTER_PLAYS`` plays."""
    rng = random.Random(seed)
    # Force a passing direction so the state is past the Pass phase like most hands.
    while True:
        s = game.new_initial_state()
        s.apply_action(rng.choice(s.chance_outcomes())[0])
        if s.history()[0] != NO_PASS:
            break
    played = 0
    while played < CLONE_AFTER_PLAYS:
        if s.is_chance_node():
            s.apply_action(rng.choice(s.chance_outcomes())[0])
            continue
        if _phase(s) == "Play":
            played += 1
        s.apply_action(rng.choice(s.legal_actions()))
    assert not s.is_terminal()

    warmup = max(1, reps // 10)
    for _ in range(warmup):
        s.clone()
    t0 = time.perf_counter()
    for _ in range(reps):
        s.clone()
    t1 = time.perf_counter()
    return (t1 - t0) / reps * 1e6


def measure(seconds: float = 3.0, seed: int = 1, clone_reps: int = 100_000) -> dict[str, float]:
    """Play random hands of OpenSpiel hearts for about ``seconds``; return rates and counts.

    See the module docstring for what is counted and timed. Keys: ``hands``,
    ``transitions``, ``chance_transitions``, ``decision_transitions``, ``plays``,
    ``elapsed_s``, ``hands_per_s``, ``transitions_per_s``, ``us_per_transition``,
    ``us_per_decision``, ``us_per_play``, ``clone_us``.
    """
    game = _load_game()
    rng = random.Random(seed)

    hands = 0
    transitions = 0
    chance = 0
    pass_decisions = 0
    perf_counter = time.perf_counter
    t0 = perf_counter()
    deadline = t0 + seconds
    while True:
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                a = rng.choice(s.chance_outcomes())[0]
                chance += 1
            else:
                a = rng.choice(s.legal_actions())
            s.apply_action(a)
        hist = s.history()
        transitions += len(hist)
        if hist[0] != NO_PASS:
            pass_decisions += PASS_DECISIONS_PER_HAND
        hands += 1
        if perf_counter() >= deadline:
            break
    elapsed = perf_counter() - t0

    decisions = transitions - chance
    plays = decisions - pass_decisions
    return {
        "hands": float(hands),
        "transitions": float(transitions),
        "chance_transitions": float(chance),
        "decision_transitions": float(decisions),
        "plays": float(plays),
        "elapsed_s": elapsed,
        "hands_per_s": hands / elapsed,
        "transitions_per_s": transitions / elapsed,
        "us_per_transition": elapsed / transitions * 1e6,
        "us_per_decision": elapsed / decisions * 1e6,
        "us_per_play": elapsed / plays * 1e6,
        "clone_us": _measure_clone(game, seed, clone_reps),
    }


def _format(result: dict[str, float]) -> str:
    rows = [
        ("hands", f"{result['hands']:,.0f}"),
        ("transitions (all)", f"{result['transitions']:,.0f}"),
        ("  chance", f"{result['chance_transitions']:,.0f}"),
        ("  decisions", f"{result['decision_transitions']:,.0f}"),
        ("    card plays", f"{result['plays']:,.0f}"),
        ("elapsed", f"{result['elapsed_s']:.3f} s"),
        ("hands/s", f"{result['hands_per_s']:,.0f}"),
        ("transitions/s", f"{result['transitions_per_s']:,.0f}"),
        ("µs/transition", f"{result['us_per_transition']:.3f}"),
        ("µs/decision", f"{result['us_per_decision']:.3f}"),
        ("µs/play", f"{result['us_per_play']:.3f}"),
        ("clone µs", f"{result['clone_us']:.3f}"),
    ]
    width = max(len(name) for name, _ in rows)
    vwidth = max(len(value) for _, value in rows)
    lines = [f"OpenSpiel {GAME_NAME} random playouts"]
    lines += [f"{name:<{width}}  {value:>{vwidth}}" for name, value in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=3.0, help="playout time (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="random.Random seed (default 1)")
    parser.add_argument(
        "--clone-reps", type=int, default=100_000, help="clones timed (default 100000)"
    )
    parser.add_argument("--no-verify", action="store_true", help="skip the untimed counting check")
    args = parser.parse_args(argv)
    if not available():
        parser.error("pyspiel is not importable: pip install open-spiel")
    if not args.no_verify:
        verify_counting(seed=args.seed)
    print(_format(measure(args.seconds, args.seed, args.clone_reps)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
