"""bench/doubling_duplicate.py: pimc's doubling with a lone_credit against without."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from conftest import LoadBench


def test_without_a_credit_no_round_changes_and_nothing_is_played(load_bench: LoadBench) -> None:
    """Both bots decide over the same deals: with no credit they decide alike."""
    bench = load_bench("doubling_duplicate")
    rng = random.Random(4)
    for _ in range(3):
        assert bench.hand(rng, 0.0, 6, 2) == {"lone": (False, 0.0), "partners": (False, 0.0)}


def test_a_large_credit_changes_rounds_and_the_report_adds_the_gains_up(
    load_bench: LoadBench,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With 13 tricks credited the lone player doubles every hand he can and his
    opponents never: rounds change; a way that changed nothing is worth 0; the deal's
    figure is the mean of the two ways' gains halved."""
    bench = load_bench("doubling_duplicate")
    rows: list[Any] = []
    hand = bench.hand

    def kept(*args: Any) -> Any:
        rows.append(hand(*args))
        return rows[-1]

    bench.hand = kept
    args = [
        "--credit",
        "13",
        "--hands",
        "4",
        "--samples",
        "6",
        "--play-samples",
        "2",
        "--seed",
        "2",
    ]
    assert bench.main(args) == 0
    out = capsys.readouterr().out
    assert len(rows) == 4
    assert any(r[w][0] for r in rows for w in ("lone", "partners")), "no round changed"
    for r in rows:
        for differs, gain in r.values():
            assert differs or gain == 0.0
    deal = sum((r["lone"][1] + r["partners"][1]) / 2 for r in rows) / 4
    m = re.search(r"a deal against pimc:lone_credit=0 \(each side half the time\): ([-+.\d]+)", out)
    assert m is not None, out
    assert float(m.group(1)) == pytest.approx(deal, abs=0.006)
    changed = sum(r["lone"][0] for r in rows)
    assert f"round changed in {changed} hands" in out


def test_fewer_than_two_hands_is_refused(
    load_bench: LoadBench, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        load_bench("doubling_duplicate").main(["--hands", "1"])
    assert "--hands must be at least 2, not 1" in capsys.readouterr().err
