"""bench/doubling_calibration.py: the doubling playouts' trick balance against the play."""

from __future__ import annotations

import re
from typing import Any

import pytest
from conftest import LoadBench


def test_each_hand_compares_the_estimate_with_the_balance_played(
    load_bench: LoadBench,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A hand's estimate is a mean of trick balances (12 tricks and the cachette, which
    counts as one: from -13 to +13), its played balance one of them; the report's bias
    is the mean of their differences over the hands of each side."""
    bench = load_bench("doubling_calibration")
    rows: list[Any] = []
    hand = bench.hand

    def kept(*args: Any) -> Any:
        rows.append(hand(*args))
        return rows[-1]

    bench.hand = kept
    args = ["--hands", "6", "--samples", "3", "--seconds", "0.001", "--seed", "3"]
    assert bench.main(args) == 0
    out = capsys.readouterr().out
    assert len(rows) == 6
    for _, est, played in rows:
        assert -13 <= est <= 13 and -13 <= played <= 13 and isinstance(played, int)
    bias = sum(est - played for _, est, played in rows) / 6
    m = re.search(
        r"every hand: 6 hands, estimated ([-+.\d]+), played ([-+.\d]+), bias ([-+.\d]+)", out
    )
    assert m is not None, out
    assert float(m.group(3)) == pytest.approx(bias, abs=0.006)
    lone = sum(1 for r in rows if r[0])
    if lone >= 2:
        assert f"the lone player's side: {lone} hands" in out
    if 6 - lone >= 2:
        assert f"the partners' side: {6 - lone} hands" in out
