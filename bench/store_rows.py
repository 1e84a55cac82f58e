"""The store's CPU time per action row: a statement a row against one per group commit.

    .venv/bin/python bench/store_rows.py [--batches 1,10,100] [--rows 4000] [--rounds 5]

A :class:`~quintet.server.db.Store` on SQLite (a temporary file, inline commits as
``quintet serve`` has them) stores accepted actions of B tables at once, B writes per
group commit, round after round: each action either as a job of its own inserting its
row (``store.write(lambda conn: db.insert_action(...))``, what the server did before)
or as a row the group commit inserts with the others in one ``executemany``
(``store.write_action(db.action_row(...))``, what it does now). Printed: the event
loop's CPU time (``time.thread_time``) per row, the writes' own awaiting included,
the least of ``--rounds`` runs of each way, the two ways interleaved.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from quintet.server import db
from quintet.server.db import Store
from quintet.server.testing import bare_table_row


def _table(table_id: str) -> db.TableRow:
    row: db.TableRow = bare_table_row(table_id, status="playing", hands_dealt=1)
    return row


async def _run(batch: int, rows: int, batched: bool) -> float:
    """Return the loop's CPU microseconds per row stored, ``batch`` tables at once."""
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(f"sqlite:///{Path(tmp) / 'rows.db'}")
        store.migrate()
        store.start()
        ids = [f"t{i}" for i in range(batch)]
        for i in ids:
            row = _table(i)
            await store.write(lambda conn, row=row: db.insert_table(conn, row))  # type: ignore[misc]

        async def act(table_id: str, seq: int) -> None:
            if batched:
                await store.write_action(db.action_row(table_id, seq, 0, seq % 4, 7))
            else:
                await store.write(lambda conn: db.insert_action(conn, table_id, seq, 0, seq % 4, 7))

        rounds = max(1, rows // batch)
        for seq in range(10):  # warm up: statements compiled, pages cached
            await asyncio.gather(*(act(i, seq) for i in ids))
        start = time.thread_time()
        for seq in range(10, 10 + rounds):
            await asyncio.gather(*(act(i, seq) for i in ids))
        spent = time.thread_time() - start
        store.close()
    return 1e6 * spent / (rounds * batch)


def main() -> None:
    """Print the CPU per row of both ways for each batch size."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batches", default="1,10,100", help="tables writing at once, comma-separated")
    ap.add_argument("--rows", type=int, default=4000, help="rows measured per run")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    for batch in (int(b) for b in args.batches.split(",")):
        each: list[float] = []
        grouped: list[float] = []
        for _ in range(args.rounds):
            each.append(asyncio.run(_run(batch, args.rows, batched=False)))
            grouped.append(asyncio.run(_run(batch, args.rows, batched=True)))
        print(
            f"{batch:>4} writes per commit: a statement a row {min(each):5.1f} us, "
            f"one executemany {min(grouped):5.1f} us CPU per action row "
            f"(least of {args.rounds})",
            flush=True,
        )


if __name__ == "__main__":
    main()
