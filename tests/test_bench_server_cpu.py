"""bench/server_cpu.py --parts: the four ways it plays remove what they name."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from conftest import LoadBench


def test_busy_tables_without_the_store_and_broadcast_write_and_send_nothing(
    load_bench: LoadBench,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench = load_bench("server_cpu")
    from quintet.server.conn import Conn
    from quintet.server.db import Store

    sent: list[str] = []
    rows: list[Any] = []
    send, write_action = Conn.send, Store.write_action

    def counting_send(self: Conn, msg: Any) -> None:
        sent.append("x")
        send(self, msg)

    async def counting_write(self: Store, row: Any, job: Any = None) -> Any:
        rows.append(row)
        return await write_action(self, row, job)

    monkeypatch.setattr(Conn, "send", counting_send)
    monkeypatch.setattr(Store, "write_action", counting_write)
    whole = asyncio.run(bench.busy_tables(2, 1, frozenset()))
    assert whole > 0
    n_rows, n_sent = len(rows), len(sent)
    assert n_rows >= 2 * 48  # a hand each at two tables: every card played, stored
    assert n_sent >= 4 * n_rows  # and each action sent to the table's four seats
    rows.clear()
    sent.clear()
    asyncio.run(bench.busy_tables(2, 1, frozenset({"store", "broadcast"})))
    assert rows == []
    # Only the seating's messages are left (each join tells the table).
    assert len(sent) <= n_sent - 4 * n_rows


def test_parts_prints_each_way_and_the_differences(
    load_bench: LoadBench, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_bench("server_cpu")
    asyncio.run(bench.parts(2, 1, 1))
    out = capsys.readouterr().out
    import re

    per_way = {
        way: float(m)
        for way, m in re.findall(r"^\s+(whole|no store|no broadcast|neither)\s+(\d+) us", out, re.M)
    }
    assert set(per_way) == {"whole", "no store", "no broadcast", "neither"}, out
    assert all(v > 0 for v in per_way.values()), out
    diffs = re.search(
        r"the store (-?\d+) us, the broadcast (-?\d+) us, the rest (\d+) us an action", out
    )
    assert diffs is not None, out
    store, broadcast, rest = (int(x) for x in diffs.groups())
    # The differences are those of the medians printed above (each rounded to a whole us).
    assert abs(store - (per_way["whole"] - per_way["no store"])) <= 1
    assert abs(broadcast - (per_way["whole"] - per_way["no broadcast"])) <= 1
    assert abs(rest - per_way["neither"]) <= 1
