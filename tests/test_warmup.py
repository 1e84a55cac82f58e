"""The solver warm-up the install runs (``quintet warm-up``): it runs, and leaves nothing
for the solvers to compile later.

Cheap once numba's cache is warm (``make`` warms it before the tests): the warm-up then
only loads the kernels.
"""

from __future__ import annotations

import random
import re
from typing import Any

from click.testing import CliRunner

from quintet.actions import is_play
from quintet.cli import main
from quintet.quinto import QuintoRules, QuintoState
from quintet.quintus import QuintusRules, QuintusState
from quintet.solver import QuintoSolver, QuintusSolver, _quinto_kernel, _quintus_kernel
from quintet.solver.warmup import warm_up


def test_warm_up_returns_its_seconds() -> None:
    seconds = warm_up()
    assert isinstance(seconds, float)
    assert seconds > 0


def test_warm_up_command_says_what_it_does_and_how_long_it_took() -> None:
    result = CliRunner().invoke(main, ["warm-up"])
    assert result.exit_code == 0, result.output
    assert re.fullmatch(
        r"quintet: compiling the double-dummy solver .*\.\.\. \d+\.\d s\n", result.output
    )


def _signatures() -> dict[str, set[str]]:
    """The compiled signatures of every numba function of the kernel modules."""
    out: dict[str, set[str]] = {}
    for module in (_quinto_kernel, _quintus_kernel):
        for name, obj in vars(module).items():
            if hasattr(obj, "signatures"):  # a numba dispatcher
                out[f"{module.__name__}.{name}"] = {str(s) for s in obj.signatures}
    return out


def _decisions(state: Any, rng: random.Random, last: int, tricks: int) -> list[Any]:
    """The positions of a hand played at random from its last ``last`` tricks."""
    out = []
    while not state.is_terminal():
        legal = state.legal_actions()
        plays = [a for a in legal if is_play(a)]
        if state.tricks_played >= tricks - last:
            out.append(state.clone())
        state.apply_action(rng.choice(plays or list(legal)))
    return out


def test_after_the_warm_up_the_solvers_compile_nothing_new() -> None:
    warm_up()
    before = _signatures()
    # The kernels are there and their entry points compiled (else the comparison below
    # would be of nothing; helpers only called from other kernels have no signatures).
    compiled = sorted(name for name, sigs in before.items() if sigs)
    assert any("_quinto_kernel" in n for n in compiled), compiled
    assert any("_quintus_kernel" in n for n in compiled), compiled
    rng = random.Random(11)
    quinto, quintus = QuintoSolver(tt_bits=12), QuintusSolver(tt_bits=12)
    reached = 0
    for i in range(4):
        deal = QuintoState.deal(QuintoRules(target=10_000), i, rng)
        for s in _decisions(deal, rng, 2, 12):
            quinto.value(s)
            quinto.best_move(s)
            if not s.trick:
                quinto.best_lead(s)
        rules = QuintusRules(variant=("base", "bidding")[i % 2])
        for s in _decisions(QuintusState.deal(rules, i, rng), rng, 2, 8):
            quintus.value(s)
            if any(is_play(a) for a in s.legal_actions()):
                quintus.best_move(s)
                target = quintus.target(s)
                if target is not None:  # the bidding variant's contract searches
                    quintus.seat_reaches(s)
                    quintus.reaches(s, target)
                    reached += 1
    assert reached, "no contract position was searched"
    after = _signatures()
    missed = {
        k: sorted(v - before.get(k, set())) for k, v in after.items() if v - before.get(k, set())
    }
    assert not missed, f"compiled after warm_up(): {missed}"
