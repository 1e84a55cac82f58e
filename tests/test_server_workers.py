"""quintet.server.workers: fair scheduling, hard limits, and workers that die with the server.

The job functions below are module-level so that spawn workers can unpickle them (the
workers import this module by name, from the sys.path they inherit).
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from quintet.server.workers import (
    JobResult,
    PoolBusy,
    PoolClosed,
    SearchFailed,
    SearchPool,
    SearchTimeout,
)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

# ------------------------------------------------------------------ jobs (in workers)


def add(a: int, b: int) -> int:
    return a + b


def burn(seconds: float) -> int:
    """Spin for ``seconds`` of this thread's CPU time; return how many loops ran."""
    end = time.thread_time() + seconds
    n = 0
    while time.thread_time() < end:
        n += 1
    return n


def nap(seconds: float, tag: str) -> str:
    time.sleep(seconds)
    return tag


def spin() -> None:
    while True:
        pass


def worker_pid() -> int:
    return os.getpid()


def raise_value_error(text: str) -> None:
    raise ValueError(text)


class NeedsTwo(Exception):
    """Pickles fine, but unpickling calls NeedsTwo(a) and fails."""

    def __init__(self, a: int, b: int) -> None:
        super().__init__(a)
        self.b = b


def raise_needs_two() -> None:
    raise NeedsTwo(1, 2)


def call_exit() -> None:
    sys.exit(3)


def return_lock() -> Any:
    return threading.Lock()


def touch(path: str) -> None:
    Path(path).touch()


def mark_init() -> None:
    os.environ["QUINTET_WORKER_INIT"] = str(os.getpid())


def read_init() -> str | None:
    return os.environ.get("QUINTET_WORKER_INIT")


def broken_init() -> None:
    raise RuntimeError("no numba today")


# ------------------------------------------------------------------ helpers


def _stat(pid: int) -> tuple[str, int, int] | None:
    """Return (state, ppid, starttime) of a process, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1]), int(fields[19])


def _children(pid: int) -> dict[int, int]:
    """Return {child pid: its start time} for the processes whose parent is ``pid``."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _stat(int(entry))
            if st is not None and st[1] == pid:
                out[int(entry)] = st[2]
    return out


def _alive(pid: int, started: int | None = None) -> bool:
    """Return whether ``pid`` runs (a zombie, or a new process with its pid, is dead)."""
    st = _stat(pid)
    if st is None or st[0] in ("Z", "X", "x"):
        return False
    return started is None or st[2] == started


def _wait_dead(procs: dict[int, int], timeout: float) -> tuple[float, list[int]]:
    """Return the seconds until every process died (or ``timeout``) and those alive."""
    t0 = time.monotonic()
    while True:
        alive = [pid for pid, started in procs.items() if _alive(pid, started)]
        elapsed = time.monotonic() - t0
        if not alive or elapsed > timeout:
            return elapsed, alive
        time.sleep(0.01)


async def _until(cond: Any, timeout: float = 10.0) -> None:
    """Wait until ``cond()`` is true."""
    t0 = time.monotonic()
    while not cond():
        assert time.monotonic() - t0 < timeout, "condition not met in time"
        await asyncio.sleep(0.005)


# ------------------------------------------------------------------ results


def test_value_times_and_exceptions() -> None:
    async def main() -> None:
        pool = SearchPool(workers=1)
        try:
            r = await pool.run("t", add, 2, 3)
            assert isinstance(r, JobResult) and r.value == 5
            r = await pool.run("t", burn, 0.2)
            assert r.value > 0
            # No upper bound: a loaded machine stretches the wall time, never the CPU.
            assert r.cpu >= 0.19 and r.wall >= r.cpu - 0.01
            r = await pool.run("t", nap, 0.2, "x")
            assert r.value == "x" and r.wall >= 0.19 and r.cpu < 0.05
            with pytest.raises(ValueError, match="bad card") as info:
                await pool.run("t", raise_value_error, "bad card")
            assert any("raise_value_error" in note for note in info.value.__notes__)
            assert pool.stats()["done"] == 3 and pool.stats()["errors"] == 1
        finally:
            await pool.close()

    asyncio.run(main())


def test_unreadable_results_keep_the_worker() -> None:
    async def main() -> None:
        pool = SearchPool(workers=1)
        try:
            pid = (await pool.run("t", worker_pid)).value
            with pytest.raises(SearchFailed, match="could not be pickled"):
                await pool.run("t", return_lock)
            with pytest.raises(SearchFailed, match="NeedsTwo"):
                await pool.run("t", raise_needs_two)
            with pytest.raises(SearchFailed, match="SystemExit"):
                await pool.run("t", call_exit)
            assert (await pool.run("t", worker_pid)).value == pid
            assert pool.pids() == [pid]
            assert pool.stats()["failures"] == 3 and pool.stats()["restarts"] == 0
        finally:
            await pool.close()

    asyncio.run(main())


def test_per_job_overhead_is_small() -> None:
    async def main() -> float:
        pool = SearchPool(workers=1)
        try:
            await pool.start()
            for _ in range(20):
                await pool.run("t", add, 1, 1)
            n = 300
            t0 = time.perf_counter()
            for i in range(n):
                assert (await pool.run("t", add, i, 1)).value == i + 1
            return (time.perf_counter() - t0) / n
        finally:
            await pool.close()

    per_job = asyncio.run(main())
    print(f"per-job overhead: {per_job * 1e6:.0f} µs")
    assert per_job < 0.003


def test_initializer_runs_in_each_worker_and_its_failure_is_reported() -> None:
    async def good() -> None:
        pool = SearchPool(workers=1, initializer=mark_init)
        try:
            await pool.start()
            r = await pool.run("t", read_init)
            assert r.value == str(pool.pids()[0])
        finally:
            await pool.close()

    async def bad() -> None:
        pool = SearchPool(workers=1, initializer=broken_init)
        try:
            with pytest.raises(SearchFailed, match="no numba today"):
                await pool.start()
            with pytest.raises(SearchFailed, match="no worker could start"):
                await pool.run("t", add, 1, 2)
        finally:
            await pool.close()

    async def main() -> None:
        await asyncio.gather(good(), bad())

    asyncio.run(main())


# ------------------------------------------------------------------ scheduling


def test_owners_are_served_round_robin() -> None:
    async def main() -> list[str]:
        pool = SearchPool(workers=1)
        order: list[str] = []

        async def job(owner: str) -> None:
            await pool.run(owner, nap, 0.2, owner)
            order.append(owner)

        try:
            await pool.start()
            tasks = [asyncio.ensure_future(job("A")) for _ in range(6)]
            await asyncio.sleep(0.05)  # A's first job runs, five wait
            tasks.append(asyncio.ensure_future(job("B")))
            tasks.append(asyncio.ensure_future(job("C")))
            await _until(lambda: len(order) >= 3)
            return list(order)
        finally:
            await pool.close()
            await asyncio.gather(*tasks, return_exceptions=True)

    order = asyncio.run(main())
    # FIFO would finish A six times first; fair: A's running job, then B, then C.
    assert order == ["A", "B", "C"], order


def test_cancelled_queued_job_is_dropped_and_queue_is_bounded(tmp_path: Path) -> None:
    marker = tmp_path / "ran"

    async def main() -> None:
        pool = SearchPool(workers=1, max_queued=2)
        try:
            await pool.start()
            busy = asyncio.ensure_future(pool.run("a", nap, 0.4, "a"))
            await _until(lambda: pool.stats()["running"] == 1)
            dropped = asyncio.ensure_future(pool.run("b", touch, str(marker)))
            await _until(lambda: pool.stats()["queued"] == 1)
            dropped.cancel()
            with pytest.raises(asyncio.CancelledError):
                await dropped
            assert pool.stats()["queued"] == 0

            # max_queued counts waiting jobs only: the running one is not among them.
            waiting = [asyncio.ensure_future(pool.run("c", add, i, 0)) for i in range(2)]
            await _until(lambda: pool.stats()["queued"] == 2)
            with pytest.raises(PoolBusy):
                await pool.run("d", add, 1, 1)
            pool.cancel_owner("c")
            for w in waiting:
                with pytest.raises(asyncio.CancelledError):
                    await w
            assert pool.stats()["queued"] == 0

            assert (await busy).value == "a"
            assert (await pool.run("e", add, 1, 1)).value == 2
            assert not marker.exists()
        finally:
            await pool.close()

    asyncio.run(main())


def test_cancelled_running_job_frees_its_worker() -> None:
    async def main() -> None:
        pool = SearchPool(workers=1)
        try:
            await pool.start()
            pid = pool.pids()[0]
            task = asyncio.ensure_future(pool.run("a", nap, 0.3, "a"))
            await _until(lambda: pool.stats()["running"] == 1)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            t0 = time.monotonic()
            assert (await pool.run("b", add, 1, 2)).value == 3
            assert time.monotonic() - t0 < 1.0  # waited for the discarded job, no more
            assert pool.pids() == [pid] and pool.stats()["running"] == 0
        finally:
            await pool.close()

    asyncio.run(main())


# ------------------------------------------------------------------ failures


def test_hard_limit_kills_and_replaces_the_worker() -> None:
    async def main() -> None:
        pool = SearchPool(workers=1, hard_limit=30.0)
        try:
            await pool.start()
            pid = pool.pids()[0]
            started = _stat(pid)
            assert started is not None
            t0 = time.monotonic()
            with pytest.raises(SearchTimeout):
                await pool.run("a", spin, limit=0.5)
            assert time.monotonic() - t0 < 1.5
            await _until(lambda: not _alive(pid, started[2]), timeout=1.0)
            r = await pool.run("a", worker_pid)
            assert r.value != pid and pool.pids() == [r.value]
            s = pool.stats()
            assert s["timeouts"] == 1 and s["restarts"] == 1
        finally:
            await pool.close()

    asyncio.run(main())


def test_worker_killed_from_outside_fails_its_job() -> None:
    async def main() -> None:
        pool = SearchPool(workers=1)
        try:
            await pool.start()
            pid = pool.pids()[0]
            task = asyncio.ensure_future(pool.run("a", nap, 5.0, "a"))
            await _until(lambda: pool.stats()["running"] == 1)
            os.kill(pid, signal.SIGKILL)
            with pytest.raises(SearchFailed, match="SIGKILL"):
                await asyncio.wait_for(task, 2.0)
            r = await pool.run("a", worker_pid)
            assert r.value != pid
            assert pool.stats()["failures"] == 1
        finally:
            await pool.close()

    asyncio.run(main())


def test_close_kills_a_busy_worker_at_once() -> None:
    async def main() -> None:
        pool = SearchPool(workers=1, hard_limit=60.0)
        await pool.start()
        pid = pool.pids()[0]
        task = asyncio.ensure_future(pool.run("a", spin))
        await _until(lambda: pool.stats()["running"] == 1)
        t0 = time.monotonic()
        await pool.close()
        assert time.monotonic() - t0 < 1.5
        assert not _alive(pid)
        with pytest.raises(PoolClosed):
            await task
        with pytest.raises(PoolClosed):
            await pool.run("a", add, 1, 1)
        await pool.close()  # idempotent
        assert pool.pids() == []

    asyncio.run(main())


def _fds(pid: int) -> list[tuple[str, int]]:
    """Return (link target, open flags) of each of a process's file descriptors."""
    out = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            info = Path(f"/proc/{pid}/fdinfo/{fd}").read_text()
        except FileNotFoundError:
            continue
        flags = next(int(line.split()[1], 8) for line in info.splitlines() if line[:6] == "flags:")
        out.append((target, flags))
    return out


def test_lifeline_is_private_and_stops_a_worker() -> None:
    async def main() -> None:
        pool = SearchPool(workers=2, hard_limit=60.0)
        try:
            await pool.start()
            workers = list(pool._workers)
            inodes = [os.fstat(w.lifeline.fileno()).st_ino for w in workers]
            for w, ino in zip(workers, inodes, strict=True):
                assert w.proc.pid is not None
                held = [
                    (target, flags)
                    for target, flags in _fds(w.proc.pid)
                    if target in {f"pipe:[{i}]" for i in inodes}
                ]
                # Its own lifeline's read end, nothing else: no write end, no other's.
                assert len(held) == 1, held
                assert held[0][0] == f"pipe:[{ino}]"
                assert held[0][1] & os.O_ACCMODE == os.O_RDONLY

            # The fallback alone (no parent death): EOF on the lifeline ends the worker,
            # even during a pure-Python busy loop.
            victim = workers[0]
            assert victim.proc.pid is not None
            vpid = victim.proc.pid
            task = asyncio.ensure_future(pool.run("a", spin))
            await _until(lambda: victim.job is not None)
            victim.lifeline.close()
            with pytest.raises(SearchFailed, match="exit code 1"):
                await asyncio.wait_for(task, 2.0)
            assert not _alive(vpid)
            assert (await pool.run("b", add, 1, 1)).value == 2
        finally:
            await pool.close()

    asyncio.run(main())


# ------------------------------------------------------------------ parent death

_PARENT = textwrap.dedent(
    """
    import asyncio, json, signal, sys, time
    from quintet.server.workers import SearchPool

    def spin():
        while True:
            pass

    def c_loop():
        return sum(range(10**15))  # one C call: holds the GIL, never checks signals

    async def main():
        pool = SearchPool(workers=2, hard_limit=600.0)
        await pool.start()
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        jobs = [
            asyncio.ensure_future(pool.run("a", spin)),
            asyncio.ensure_future(pool.run("b", c_loop)),
        ]
        while pool.stats()["running"] < 2:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)
        print(json.dumps({"workers": pool.pids()}), flush=True)
        await stop.wait()
        t0 = time.monotonic()
        await pool.close()
        print(json.dumps({"close": time.monotonic() - t0}), flush=True)
        await asyncio.gather(*jobs, return_exceptions=True)

    if __name__ == "__main__":
        asyncio.run(main())
    """
)


def _read_json(proc: subprocess.Popen[str], timeout: float) -> dict[str, Any]:
    """Return the next JSON line ``proc`` prints."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "the parent printed nothing in time"
    line = proc.stdout.readline()
    assert line, f"the parent exited ({proc.poll()})"
    out: dict[str, Any] = json.loads(line)
    return out


def _start_parent(tmp_path: Path) -> tuple[subprocess.Popen[str], dict[int, int]]:
    """Start a parent with two busy workers; return it and its children (with start times)."""
    script = tmp_path / "parent.py"
    script.write_text(_PARENT)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        workers = _read_json(proc, 30.0)["workers"]
        children = _children(proc.pid)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    assert len(workers) == 2 and set(workers) <= set(children)
    trackers = [
        pid for pid in children if b"resource_tracker" in Path(f"/proc/{pid}/cmdline").read_bytes()
    ]
    assert trackers, "spawn starts multiprocessing's resource tracker"
    assert len(children) == 3, children
    return proc, children


def test_workers_die_with_a_killed_parent(tmp_path: Path) -> None:
    proc, children = _start_parent(tmp_path)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    elapsed, alive = _wait_dead(children, 2.0)
    print(f"all gone {elapsed:.3f} s after the parent's SIGKILL")
    assert not alive, f"still alive {elapsed:.2f} s after the parent's SIGKILL: {alive}"


def test_workers_die_with_a_terminated_parent(tmp_path: Path) -> None:
    proc, children = _start_parent(tmp_path)
    t0 = time.monotonic()
    os.kill(proc.pid, signal.SIGTERM)
    try:
        closed = _read_json(proc, 2.0)["close"]
        assert proc.wait(2.0) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    print(f"close() took {closed:.3f} s; parent exited {time.monotonic() - t0:.3f} s after SIGTERM")
    assert closed < 1.5
    _, alive = _wait_dead(children, max(0.1, 2.0 - (time.monotonic() - t0)))
    assert not alive, f"still alive after the parent's SIGTERM: {alive}"
