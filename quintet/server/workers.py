"""Worker processes for bot searches and analyses: fair by owner, hard time limits.

:class:`SearchPool` runs module-level functions in ``spawn`` worker processes for
coroutines on one asyncio event loop (the server's):

* **Fair by owner.** Every owner (a table id, say) has its own FIFO queue. A free worker
  takes the next job of the owner served least recently, so one owner's 50 queued jobs
  delay another owner's single job by at most one job per other owner (plus the jobs
  already running).
* **Hard limits.** A job that runs past its ``limit`` (seconds of wall time, counted from
  the moment a worker takes it, not while it waits) has its worker SIGKILLed and
  replaced; its awaiter gets :class:`SearchTimeout`. A worker that dies during a job
  (crash, OOM killer, ``kill -9``) fails that job with :class:`SearchFailed` and is
  replaced too.
* **Workers die with the server.** Each worker asks Linux to SIGKILL it when its parent
  dies (``prctl(PR_SET_PDEATHSIG)``), which works even while the job holds the GIL in C
  code. As a portable fallback a daemon thread in the worker waits on a *lifeline* pipe
  whose only write end the server holds, and exits the worker when it reads EOF (that
  thread needs the GIL, so it cannot stop a job stuck in C code). The write end is
  close-on-exec and ``spawn`` hands a child only the descriptors it needs, so no other
  worker holds it (a child made by a bare ``os.fork()`` in the server would, and would
  then keep the lifeline open: PDEATHSIG still works). :meth:`SearchPool.close`
  terminates busy workers at once, SIGKILLs them after a short grace, and returns within
  that grace (0.25 s) at worst. multiprocessing's resource tracker (started by
  ``spawn``) exits by itself once the server and every worker are gone: the pool uses
  no semaphores, only one socket pair and one pipe per worker.

Workers are spawned from the thread that runs the event loop, and Linux delivers
``PR_SET_PDEATHSIG`` when the *thread* that spawned a worker exits: call every method
from the loop's thread, and run that loop for the whole life of the pool (uvicorn runs
it in the main thread). Spawning a worker takes a few hundred ms (it imports
:mod:`quintet.server`); a worker reports ready only after its ``initializer`` ran, and
only ready workers are given jobs, so neither counts against a job's limit.

The overhead of a trivial job, from ``await pool.run(...)`` to its result, measured on a
2-core machine: about 130 µs with asyncio's default loop, 40 µs with uvloop
(``tests/test_server_workers.py::test_per_job_overhead_is_small`` prints it).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import itertools
import logging
import math
import multiprocessing
import os
import pickle
import signal
import struct
import sys
import threading
import time
import traceback
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

log = logging.getLogger("quintet.server")

#: Seconds a new worker may take to import and run its initializer before it is killed.
START_TIMEOUT = 120.0
#: Seconds :meth:`SearchPool.close` waits for terminated workers before SIGKILLing them.
CLOSE_GRACE = 0.25
#: Seconds a worker whose pipe closed may linger before it is SIGKILLed.
EXIT_GRACE = 1.0

_PR_SET_PDEATHSIG = 1
_HEADER = struct.Struct("!Q")
_READ_SIZE = 1 << 20


class SearchTimeout(Exception):
    """A job ran past its hard time limit: its worker was killed."""


class SearchFailed(Exception):
    """A job's worker died, or its result could not be read."""


class PoolClosed(Exception):
    """The pool is closed."""


class PoolBusy(Exception):
    """Too many jobs are waiting: the pool's ``max_queued`` are queued already."""


@dataclass
class JobResult:
    """What a job returned, with the CPU and wall seconds it took in its worker."""

    value: Any  # what fn returned
    cpu: float  # CPU seconds of the worker process during the job (time.process_time)
    wall: float  # wall seconds from the job's arrival in the worker to fn's return


# ---------------------------------------------------------------------- worker side


def _tie_to_parent(parent_pid: int, lifeline: Connection) -> None:
    """Make this process die with ``parent_pid``: PDEATHSIG on Linux, and the lifeline."""
    if sys.platform.startswith("linux"):
        # A failed prctl (seccomp, odd libc) leaves the lifeline, so it is not fatal.
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(
                ctypes.c_int(_PR_SET_PDEATHSIG),
                ctypes.c_ulong(signal.SIGKILL),
                ctypes.c_ulong(0),
                ctypes.c_ulong(0),
                ctypes.c_ulong(0),
            )
    # The parent may have died before prctl: then nobody would ever signal us.
    if os.getppid() != parent_pid:
        os._exit(1)
    threading.Thread(target=_watch_lifeline, args=(lifeline,), name="lifeline", daemon=True).start()


def _watch_lifeline(lifeline: Connection) -> None:
    """Exit the process at once when the parent's end of the lifeline closes."""
    try:
        while True:
            lifeline.recv_bytes()  # the parent never writes: this returns only at EOF
    except BaseException:
        pass
    os._exit(1)


def _write_frame(fd: int, data: bytes) -> None:
    """Write ``data`` with its length in front, all of it, to ``fd``."""
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _safe_repr(obj: object) -> str:
    """Return ``repr(obj)`` (shortened), or a placeholder when repr itself raises."""
    try:
        text = repr(obj)
    except Exception:
        text = f"<{type(obj).__name__} with a broken repr>"
    return text if len(text) <= 2000 else text[:2000] + "..."


def _run_job(data: bytes) -> bytes:
    """Return the pickled answer for one pickled ``(fn, args)`` job: ok, err or bad."""
    wall0 = time.perf_counter()
    cpu0 = time.process_time()
    try:
        fn, args = pickle.loads(data)
        value = fn(*args)
    except BaseException as exc:  # SystemExit too: the worker outlives its jobs
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        tb = traceback.format_exc()
        blob: bytes | None
        try:
            blob = pickle.dumps(exc, pickle.HIGHEST_PROTOCOL)
        except Exception:
            blob = None
        return pickle.dumps(("err", cpu, wall, blob, _safe_repr(exc), tb))
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    try:
        blob = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        why = f"the job's result could not be pickled: {_safe_repr(exc)}"
        return pickle.dumps(("bad", cpu, wall, why))
    return pickle.dumps(("ok", cpu, wall, blob))


def _worker_main(
    conn: Connection,
    lifeline: Connection,
    parent_pid: int,
    initializer: Callable[[], None] | None,
) -> None:
    """Serve jobs from ``conn`` until the parent closes it (the worker's main function)."""
    _tie_to_parent(parent_pid, lifeline)
    # Ctrl-C reaches the whole process group; the server decides when workers stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = conn.fileno()
    if initializer is not None:
        try:
            initializer()
        except BaseException as exc:
            why = f"its initializer raised {_safe_repr(exc)}\n{traceback.format_exc()}"
            _write_frame(out, pickle.dumps(("initerr", why)))
            return
    _write_frame(out, pickle.dumps(("ready", os.getpid())))
    while True:
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):
            return
        _write_frame(out, _run_job(data))


# ---------------------------------------------------------------------- parent side


@dataclass(eq=False)
class _Job:
    owner: str
    seq: int
    payload: bytes
    limit: float
    future: asyncio.Future[JobResult]


@dataclass(eq=False)
class _Worker:
    proc: BaseProcess
    conn: Connection  # the parent's end of the socket pair
    lifeline: Connection  # the write end of the lifeline; never written
    ready: asyncio.Future[None]
    buf: bytearray = field(default_factory=bytearray)
    job: _Job | None = None
    timer: asyncio.TimerHandle | None = None
    dead: bool = False


def _describe_exit(code: int | None) -> str:
    """Return how a process ended, from its multiprocessing exit code."""
    if code is None:
        return "exit status unknown"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _retrieve(fut: asyncio.Future[Any]) -> None:
    """Mark a future's exception as retrieved (nobody may be waiting for it)."""
    if not fut.cancelled():
        fut.exception()


class SearchPool:
    """Worker processes that run jobs fairly by owner, with a hard time limit per job.

    ``await pool.run(owner, fn, *args)`` returns a :class:`JobResult`. Every method must
    be called from the thread running the event loop the pool was first used on.
    """

    def __init__(
        self,
        workers: int = 1,
        hard_limit: float = 10.0,
        max_queued: int = 1000,
        initializer: Callable[[], None] | None = None,
        name: str = "search",
    ) -> None:
        """Configure the pool; no worker starts before :meth:`start` or the first job.

        ``initializer`` must be a module-level function: each new worker runs it once
        before taking jobs.

        Raises:
            ValueError: ``workers`` below 1, ``hard_limit`` not positive or
                ``max_queued`` negative.
        """
        if workers < 1 or not hard_limit > 0 or max_queued < 0:
            raise ValueError("need workers >= 1, hard_limit > 0 and max_queued >= 0")
        self._size = workers
        self._hard_limit = hard_limit
        self._max_queued = max_queued
        self._initializer = initializer
        self._name = name
        self._ctx = multiprocessing.get_context("spawn")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._workers: list[_Worker] = []
        self._queues: dict[str, deque[_Job]] = {}
        self._queued = 0
        # Owners with queued or running jobs -> when they were last served (a sequence
        # number): the least recently served owner goes next.
        self._served: dict[str, int] = {}
        self._running: Counter[str] = Counter()
        self._seq = itertools.count()
        self._spawned = 0
        self._reapers: set[asyncio.Task[int | None]] = set()
        self._dispatching = False
        self._closed = False
        self._counts: Counter[str] = Counter()

    # ------------------------------------------------------------------ public

    async def start(self) -> None:
        """Start the workers now and return once each is ready for jobs.

        Raises:
            PoolClosed: the pool is closed.
            SearchFailed: a worker could not start (its initializer raised, or it died).
        """
        self._check_open()
        self._bind()
        self._fill()
        await asyncio.gather(*(asyncio.shield(w.ready) for w in self._workers))

    async def run(
        self, owner: str, fn: Callable[..., Any], *args: Any, limit: float | None = None
    ) -> JobResult:
        """Return what ``fn(*args)`` returned in a worker, once ``owner``'s turn came.

        ``fn`` and ``args`` are pickled here, so a pickling error is raised at once.
        Cancelling the awaiter drops a queued job; a running job is left to finish (or
        time out) and its result discarded.

        Raises:
            PoolClosed: the pool is closed, or was closed before the job finished.
            PoolBusy: ``max_queued`` jobs are waiting already.
            SearchTimeout: the job ran longer than ``limit`` (default ``hard_limit``).
            SearchFailed: the job's worker died, or its result could not be pickled or
                unpickled, or no worker could start.
            asyncio.CancelledError: :meth:`cancel_owner` dropped the job.
            ValueError: ``limit`` is not positive.
            pickle.PicklingError, TypeError, AttributeError: ``fn`` or ``args`` cannot
                be pickled (raised here, before anything is queued).
            Exception: whatever ``fn`` raised, unpickled (its worker traceback is added
                as a note).
        """
        self._check_open()
        if self._queued >= self._max_queued:
            raise PoolBusy(f"{self._queued} jobs are waiting for the {self._name} pool")
        limit = self._hard_limit if limit is None else limit
        if not limit > 0:
            raise ValueError("limit must be positive")
        payload = pickle.dumps((fn, args), pickle.HIGHEST_PROTOCOL)
        loop = self._bind()
        job = _Job(owner, next(self._seq), payload, limit, loop.create_future())
        self._queues.setdefault(owner, deque()).append(job)
        self._served.setdefault(owner, -1)
        self._queued += 1
        self._fill()
        self._dispatch()
        try:
            return await job.future
        except asyncio.CancelledError:
            self._unqueue(job)
            raise

    def cancel_owner(self, owner: str) -> None:
        """Drop ``owner``'s queued jobs: their awaiters get :class:`asyncio.CancelledError`.

        A job of ``owner`` already running is left to finish.
        """
        jobs = self._queues.pop(owner, None)
        if not jobs:
            return
        self._queued -= len(jobs)
        self._prune(owner)
        for job in jobs:
            job.future.cancel()

    def pids(self) -> list[int]:
        """Return the pids of the live workers (starting, idle or busy)."""
        return [w.proc.pid for w in self._workers if w.proc.pid is not None]

    def stats(self) -> dict[str, Any]:
        """Return counts: queued, running, done, errors, timeouts, failures, restarts...

        ``done`` counts jobs that returned, ``errors`` jobs that raised, ``failures``
        jobs failed with :class:`SearchFailed`, ``restarts`` workers started to replace
        others.
        """
        return {
            "workers": len(self._workers),
            "ready": sum(1 for w in self._workers if w.ready.done() and not w.dead),
            "queued": self._queued,
            "running": sum(1 for w in self._workers if w.job is not None),
            "owners": len(self._queues),
            "done": self._counts["done"],
            "errors": self._counts["errors"],
            "timeouts": self._counts["timeouts"],
            "failures": self._counts["failures"],
            "restarts": max(0, self._spawned - self._size),
            "closed": self._closed,
        }

    async def close(self) -> None:
        """Kill every worker now and fail every queued and running job with PoolClosed.

        Busy (and starting) workers are terminated at once and SIGKILLed after
        :data:`CLOSE_GRACE` seconds; idle ones exit when their pipe closes. Returns once
        every worker has been reaped. Calling it again waits for the same.
        """
        self._closed = True
        queued = [job for jobs in self._queues.values() for job in jobs]
        self._queues.clear()
        self._queued = 0
        for waiting in queued:
            self._settle(waiting, PoolClosed("the pool was closed"))
        for w in list(self._workers):
            job = w.job
            busy = job is not None or not w.ready.done()
            self._retire(w, grace=CLOSE_GRACE)
            if busy:
                with contextlib.suppress(OSError):
                    w.proc.terminate()
            if job is not None:
                self._settle(job, PoolClosed("the pool was closed while the job ran"))
            self._settle_ready(w, PoolClosed("the pool was closed"))
        self._served.clear()
        self._running.clear()
        if self._reapers:
            await asyncio.gather(*self._reapers, return_exceptions=True)

    # ------------------------------------------------------------------ queue

    def _check_open(self) -> None:
        if self._closed:
            raise PoolClosed(f"the {self._name} pool is closed")

    def _bind(self) -> asyncio.AbstractEventLoop:
        """Return the running loop, the one the pool belongs to from its first use.

        Raises:
            RuntimeError: another loop runs the pool already, or none is running.
        """
        loop = asyncio.get_running_loop()
        if self._loop is None:
            self._loop = loop
        elif self._loop is not loop:
            raise RuntimeError(f"the {self._name} pool belongs to another event loop")
        return loop

    def _unqueue(self, job: _Job) -> None:
        """Drop a job that still waits in its owner's queue (its awaiter is gone)."""
        jobs = self._queues.get(job.owner)
        if jobs is None or job not in jobs:
            return
        jobs.remove(job)
        self._queued -= 1
        if not jobs:
            del self._queues[job.owner]
            self._prune(job.owner)

    def _prune(self, owner: str) -> None:
        """Forget when ``owner`` was served once it has nothing queued or running."""
        if owner not in self._queues and not self._running[owner]:
            self._served.pop(owner, None)
            self._running.pop(owner, None)

    def _next_job(self) -> _Job | None:
        """Pop the head job of the owner served least recently (oldest job on ties)."""
        while self._queues:
            owner = min(
                self._queues, key=lambda o: (self._served.get(o, -1), self._queues[o][0].seq)
            )
            jobs = self._queues[owner]
            job = jobs.popleft()
            self._queued -= 1
            if not jobs:
                del self._queues[owner]
            if not job.future.done():
                return job
            self._prune(owner)
        return None

    def _dispatch(self) -> None:
        """Give queued jobs to idle ready workers."""
        if self._dispatching:
            return  # a worker lost while sending re-enters; the outer loop goes on
        self._dispatching = True
        try:
            while self._queues:
                w = next((w for w in self._workers if w.job is None and w.ready.done()), None)
                if w is None:
                    return
                job = self._next_job()
                if job is None:
                    return
                self._send(w, job)
        finally:
            self._dispatching = False

    def _send(self, w: _Worker, job: _Job) -> None:
        """Hand ``job`` to the idle worker ``w`` and arm its time limit."""
        try:
            # Blocking is fine: the worker is idle in recv_bytes, reading.
            w.conn.send_bytes(job.payload)
        except OSError as exc:
            # The worker never saw the job: it goes back to the head of its queue.
            self._queues.setdefault(job.owner, deque()).appendleft(job)
            self._queued += 1
            self._lost(w, f"its pipe broke ({exc})")
            return
        assert self._loop is not None
        w.job = job
        self._served[job.owner] = next(self._seq)
        self._running[job.owner] += 1
        if math.isfinite(job.limit):
            w.timer = self._loop.call_later(job.limit, self._on_timeout, w, job)

    def _end_job(self, w: _Worker) -> _Job | None:
        """Detach and return ``w``'s job (None when idle)."""
        job, w.job = w.job, None
        if w.timer is not None:
            w.timer.cancel()
            w.timer = None
        if job is not None:
            self._running[job.owner] -= 1
            self._prune(job.owner)
        return job

    @staticmethod
    def _settle(job: _Job, exc: BaseException | None = None, result: Any = None) -> None:
        """Resolve a job's future unless its awaiter went away already."""
        if job.future.done():
            return
        if exc is not None:
            job.future.set_exception(exc)
        else:
            job.future.set_result(result)

    @staticmethod
    def _settle_ready(w: _Worker, exc: BaseException | None = None) -> None:
        if w.ready.done():
            return
        if exc is None:
            w.ready.set_result(None)
        else:
            w.ready.set_exception(exc)

    # ------------------------------------------------------------------ workers

    def _fill(self) -> None:
        """Start workers until the pool has its size (nothing once closed)."""
        while not self._closed and len(self._workers) < self._size:
            if not self._spawn():
                return

    def _spawn(self) -> bool:
        """Start one worker; return False when the process could not be created."""
        loop = self._loop
        assert loop is not None
        self._spawned += 1
        ends: list[Connection] = []
        try:
            conn, child_conn = self._ctx.Pipe()
            ends += (conn, child_conn)
            life_r, life_w = self._ctx.Pipe(duplex=False)
            ends += (life_r, life_w)
            proc = self._ctx.Process(
                target=_worker_main,
                args=(child_conn, life_r, os.getpid(), self._initializer),
                name=f"{self._name}-worker-{self._spawned}",
                daemon=True,
            )
            # Spawned from this (the loop's) thread: PDEATHSIG follows the spawning thread.
            proc.start()
        except Exception as exc:  # out of fds or processes, an unpicklable initializer...
            for end in ends:
                end.close()
            self._start_failed(f"a {self._name} worker could not be spawned: {exc!r}")
            return False
        # Each worker must hold only its own ends: the parent's copies go now.
        child_conn.close()
        life_r.close()
        ready: asyncio.Future[None] = loop.create_future()
        ready.add_done_callback(_retrieve)
        w = _Worker(proc, conn, life_w, ready)
        self._workers.append(w)
        loop.add_reader(conn.fileno(), self._on_readable, w)
        w.timer = loop.call_later(START_TIMEOUT, self._on_start_timeout, w)
        return True

    def _retire(self, w: _Worker, grace: float, kill: bool = False) -> asyncio.Task[int | None]:
        """Stop watching ``w``, close its pipes and reap it (SIGKILL after ``grace``)."""
        assert self._loop is not None
        w.dead = True
        if w.timer is not None:
            w.timer.cancel()
            w.timer = None
        with contextlib.suppress(ValueError, OSError):
            self._loop.remove_reader(w.conn.fileno())
        if kill:
            with contextlib.suppress(OSError):
                w.proc.kill()
        w.conn.close()
        w.lifeline.close()
        if w in self._workers:
            self._workers.remove(w)
        task = self._loop.create_task(self._reap(w.proc, grace))
        self._reapers.add(task)
        task.add_done_callback(self._reapers.discard)
        return task

    async def _reap(self, proc: BaseProcess, grace: float) -> int | None:
        """Return ``proc``'s exit code once it exited (SIGKILLed after ``grace`` s)."""
        loop = asyncio.get_running_loop()
        kill_at = loop.time() + grace
        give_up = kill_at + 5.0
        killed = False
        delay = 0.002
        while proc.exitcode is None:
            now = loop.time()
            if not killed and now >= kill_at:
                with contextlib.suppress(OSError):
                    proc.kill()
                killed = True
            elif now >= give_up:
                log.error("%s (pid %s) does not die; left unreaped", proc.name, proc.pid)
                return None
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.02)
        code = proc.exitcode
        proc.close()
        return code

    def _on_readable(self, w: _Worker) -> None:
        """Read what ``w`` sent; handle every complete message."""
        try:
            chunk = os.read(w.conn.fileno(), _READ_SIZE)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._lost(w, "its pipe closed")
            return
        w.buf += chunk
        while not w.dead and len(w.buf) >= _HEADER.size:
            (n,) = _HEADER.unpack_from(w.buf)
            end = _HEADER.size + n
            if len(w.buf) < end:
                return
            frame = bytes(w.buf[_HEADER.size : end])
            del w.buf[:end]
            self._on_message(w, frame)

    def _on_message(self, w: _Worker, frame: bytes) -> None:
        """Handle one message from ``w``: ready, initerr, or a job's ok, err or bad."""
        try:
            msg = pickle.loads(frame)  # only builtins: the values are nested pickles
            kind = msg[0]
        except Exception as exc:
            # Something else wrote to the pipe: nothing it says can be trusted any more.
            with contextlib.suppress(OSError):
                w.proc.kill()
            self._lost(w, f"it sent a garbled message ({_safe_repr(exc)})")
            return
        if kind == "ready":
            if w.timer is not None:
                w.timer.cancel()
                w.timer = None
            self._settle_ready(w)
            self._dispatch()
            return
        if kind == "initerr":
            self._retire(w, grace=EXIT_GRACE)
            self._start_failed(f"a {self._name} worker failed to start: {msg[1]}", w)
            return
        job = self._end_job(w)
        if job is None:
            log.warning("%s sent %r with no job", w.proc.name, kind)
            return
        cpu, wall = msg[1], msg[2]
        if kind == "ok":
            try:
                value = pickle.loads(msg[3])
            except Exception as exc:
                self._counts["failures"] += 1
                why = f"the job's result could not be unpickled: {_safe_repr(exc)}"
                self._settle(job, SearchFailed(why))
            else:
                self._counts["done"] += 1
                self._settle(job, result=JobResult(value, cpu, wall))
        elif kind == "err":
            self._settle(job, self._remote_error(msg[3], msg[4], msg[5]))
        else:
            self._counts["failures"] += 1
            self._settle(job, SearchFailed(msg[3]))
        self._dispatch()

    def _remote_error(self, blob: bytes | None, text: str, tb: str) -> BaseException:
        """Return the exception a job raised, or SearchFailed when it cannot be rebuilt."""
        exc: object = None
        if blob is not None:
            try:
                exc = pickle.loads(blob)
            except Exception:
                exc = None
        if isinstance(exc, Exception):
            self._counts["errors"] += 1
            exc.add_note(f"raised in a {self._name} worker:\n{tb.rstrip()}")
            return exc
        # Not an Exception (SystemExit, CancelledError...): never raise those into the loop.
        self._counts["failures"] += 1
        return SearchFailed(f"the job raised {text}\n{tb.rstrip()}")

    def _on_timeout(self, w: _Worker, job: _Job) -> None:
        """Kill ``w``, whose job ran past its limit, and start a replacement."""
        if w.dead or w.job is not job:
            return
        self._end_job(w)
        pid = w.proc.pid
        self._retire(w, grace=0.0, kill=True)
        self._counts["timeouts"] += 1
        log.warning(
            "%s pool: a job of %r ran past %g s; worker %s killed",
            self._name,
            job.owner,
            job.limit,
            pid,
        )
        self._settle(
            job, SearchTimeout(f"the job ran past its limit of {job.limit:g} s (worker {pid})")
        )
        self._fill()
        self._dispatch()

    def _on_start_timeout(self, w: _Worker) -> None:
        """Kill ``w``, which did not get ready in time."""
        w.timer = None
        if w.dead or w.ready.done():
            return
        self._retire(w, grace=0.0, kill=True)
        why = f"a {self._name} worker was not ready after {START_TIMEOUT:g} s"
        self._start_failed(why, w)

    def _lost(self, w: _Worker, why: str) -> None:
        """``w`` died or its pipe broke: fail its job (once reaped), replace it."""
        was_ready = w.ready.done()
        job = self._end_job(w)
        pid = w.proc.pid
        task = self._retire(w, grace=EXIT_GRACE)
        if not was_ready:
            self._start_failed(f"a {self._name} worker (pid {pid}) died starting: {why}", w)
            return
        if job is None:
            log.warning("%s pool: idle worker %s lost (%s); replacing it", self._name, pid, why)
        else:
            self._counts["failures"] += 1

            def fail(task: asyncio.Task[int | None]) -> None:
                # Once reaped, the message can say how the worker ended.
                code = None if task.cancelled() or task.exception() else task.result()
                how = _describe_exit(code)
                log.warning("%s pool: worker %s died during a job (%s)", self._name, pid, how)
                self._settle(
                    job, SearchFailed(f"the worker (pid {pid}) died during the job ({how})")
                )

            task.add_done_callback(fail)
        self._fill()
        self._dispatch()

    def _start_failed(self, why: str, w: _Worker | None = None) -> None:
        """A worker could not start: fail the queued jobs if no worker is left."""
        log.error("%s", why)
        if w is not None:
            self._settle_ready(w, SearchFailed(why))
        if self._workers:
            return  # the others serve the queue; the next run() fills the pool again
        while (job := self._next_job()) is not None:
            self._counts["failures"] += 1
            self._settle(job, SearchFailed(f"no worker could start: {why}"))
