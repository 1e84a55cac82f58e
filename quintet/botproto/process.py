"""A bot's process: its pipes read and written by threads, so every wait has a timeout.

:class:`_Process` starts a command in its own session, :func:`_handshake` says ``hello``
and :func:`probe` checks that a command starts and speaks the protocol. A process that
cannot answer raises :class:`_Failure`, whose ``kind`` names the incident.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal as signals
import subprocess
import threading
import time
import weakref
from collections import deque
from collections.abc import Sequence
from typing import IO, Any

from quintet.botproto.cpu import tree_cpu_seconds
from quintet.botproto.protocol import (
    CPU_POLL,
    GRACE,
    JSON,
    MAX_LINE,
    PROTOCOL,
    STARTUP_TIMEOUT,
    VERSION,
    encode,
    log,
)
from quintet.errors import InvalidOptionError


class _Failure(Exception):
    """Why a bot could not decide: ``kind`` names the incident; ``drop`` ends the process."""

    def __init__(self, kind: str, detail: str, drop: bool = False) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.drop = drop


class _Gone(Exception):
    """The bot is no longer asked (it quit, or was given up): the fallback decides."""


def _read_lines(stream: IO[bytes], lines: queue.Queue[str | None]) -> None:
    try:
        while raw := stream.readline(MAX_LINE):
            if not raw.endswith(b"\n") and len(raw) >= MAX_LINE:
                while (rest := stream.readline(MAX_LINE)) and not rest.endswith(b"\n"):
                    pass
                lines.put("\0line too long")
                continue
            lines.put(raw.decode("utf-8", "replace").strip())
    except (OSError, ValueError):
        pass
    finally:
        lines.put(None)
        with contextlib.suppress(OSError):
            stream.close()


def _read_errors(stream: IO[bytes], tail: deque[str], label: str) -> None:
    try:
        while raw := stream.readline(MAX_LINE):
            text = raw.decode("utf-8", "replace").rstrip()
            tail.append(text)
            log.debug("%s: stderr: %s", label, text)
    except (OSError, ValueError):
        pass
    finally:
        with contextlib.suppress(OSError):
            stream.close()


def _write_lines(stream: IO[bytes], outbox: queue.Queue[bytes | None]) -> None:
    try:
        while (item := outbox.get()) is not None:
            stream.write(item)
            stream.flush()
    except (OSError, ValueError):
        pass
    finally:
        with contextlib.suppress(OSError, ValueError):
            stream.close()


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signals.SIGKILL)  # the shell and what it started
        except (AttributeError, OSError):
            with contextlib.suppress(OSError):
                proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(GRACE)


def _stop(proc: subprocess.Popen[bytes], outbox: queue.Queue[bytes | None], grace: float) -> None:
    """Ask a bot to quit (``quit``, then end of input), wait ``grace`` seconds, then kill."""
    if proc.poll() is None and grace > 0:
        outbox.put(encode({"type": "quit"}))
        outbox.put(None)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(grace)
    outbox.put(None)
    _kill(proc)


class _Process:
    """A running bot: its pipes read and written by threads, so every wait has a timeout."""

    def __init__(
        self,
        command: str | Sequence[str],
        cwd: str | None,
        env: dict[str, str] | None,
        label: str,
    ) -> None:
        argv = ["/bin/sh", "-c", command] if isinstance(command, str) else list(command)
        self.label = label
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.errors: deque[str] = deque(maxlen=20)
        self._outbox: queue.Queue[bytes | None] = queue.Queue()
        for target, args in (
            (_read_lines, (self.proc.stdout, self.lines)),
            (_read_errors, (self.proc.stderr, self.errors, label)),
            (_write_lines, (self.proc.stdin, self._outbox)),
        ):
            threading.Thread(target=target, args=args, daemon=True, name=label).start()
        # Stops the process when this object goes away, at the latest at exit.
        self._finalizer = weakref.finalize(self, _stop, self.proc, self._outbox, GRACE)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def why_dead(self) -> str:
        """Describe how the process ended (waiting a little for its status)."""
        try:
            code = self.proc.wait(0.5)
        except subprocess.TimeoutExpired:
            what = "closed its output"
        else:
            what = f"killed by signal {-code}" if code < 0 else f"exited with status {code}"
        time.sleep(0.01)  # let the stderr reader catch the last lines
        tail = [t for t in self.errors if t.strip()][-3:]
        return what + (": " + " | ".join(tail) if tail else "")

    def send(self, message: JSON) -> None:
        if not self.alive():
            raise _Failure("crash", self.why_dead(), drop=True)
        self._outbox.put(encode(message))

    def cpu_seconds(self) -> float | None:
        """Return the CPU seconds the bot's process tree has used, None if unknown."""
        return tree_cpu_seconds(self.proc.pid)

    def receive(self, deadline: float, what: str, cpu_limit: float | None = None) -> Any:
        """Return the next message (parsed), skipping ``log`` messages.

        ``deadline`` is a ``time.monotonic()`` ceiling; ``cpu_limit``, when given, the
        most CPU seconds the bot's processes may use from now on (checked every
        :data:`CPU_POLL` seconds of waiting).

        Raises:
            _Failure: timeout (wall or CPU), crash or a line that is not JSON.
        """
        start = self.cpu_seconds() if cpu_limit is not None else None
        while True:
            left = deadline - time.monotonic()
            wait = max(0.0, left if start is None else min(left, CPU_POLL))
            try:
                line = self.lines.get(timeout=wait)
            except queue.Empty:
                if time.monotonic() < deadline and start is not None and cpu_limit is not None:
                    used = self.cpu_seconds()
                    if used is None or used - start <= cpu_limit:
                        continue
                    raise _Failure(
                        "timeout",
                        f"no answer to {what} within {cpu_limit:g} CPU seconds",
                        drop=True,
                    ) from None
                raise _Failure("timeout", f"no answer to {what} in time", drop=True) from None
            if line is None:
                self.lines.put(None)
                raise _Failure("crash", self.why_dead(), drop=True)
            if not line:
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                raise _Failure("garbage", f"not a JSON line: {line[:200]!r}") from None
            if isinstance(obj, dict) and obj.get("type") == "log":
                log.info("%s: %s", self.label, str(obj.get("message", ""))[:1000])
                continue
            return obj

    def drain(self) -> None:
        """Drop lines the bot wrote without being asked (logging them)."""
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self.lines.put(None)
                return
            with contextlib.suppress(ValueError):
                obj = json.loads(line)
                if isinstance(obj, dict) and obj.get("type") == "log":
                    log.info("%s: %s", self.label, str(obj.get("message", ""))[:1000])
                    continue
            if line:
                log.warning("%s: ignored a line nobody asked for: %r", self.label, line[:200])

    def close(self, grace: float = GRACE) -> None:
        """Stop the process: ``quit``, end of input, ``grace`` seconds, then kill."""
        if self._finalizer.detach() is not None:
            _stop(self.proc, self._outbox, grace)


def _handshake(proc: _Process, timeout: float) -> JSON:
    """Send ``hello`` and return the bot's ``ready``.

    Raises:
        _Failure: (``start``) no ``ready`` in time, a crash, or another protocol.
    """
    try:
        proc.send({"type": "hello", "protocol": PROTOCOL, "version": VERSION})
        ready = proc.receive(time.monotonic() + timeout, "hello")
    except _Failure as f:
        raise _Failure("start", f"{f.kind}: {f.detail}", drop=True) from None
    if not isinstance(ready, dict) or ready.get("type") != "ready":
        raise _Failure("start", f"answered hello with {json.dumps(ready)[:200]}", drop=True)
    protocol, version = ready.get("protocol", PROTOCOL), ready.get("version", VERSION)
    if protocol != PROTOCOL or version != VERSION:
        raise _Failure(
            "start",
            f"speaks {protocol} version {version}, not {PROTOCOL} version {VERSION}",
            drop=True,
        )
    return ready


def probe(
    command: str | Sequence[str], timeout: float = STARTUP_TIMEOUT, cwd: str | None = None
) -> str:
    """Start a bot, check it answers ``hello``, stop it; return the name it gives.

    Raises:
        InvalidOptionError: the command does not start or does not speak the protocol.
    """
    try:
        proc = _Process(command, cwd, None, f"bot {command!r}")
    except OSError as e:
        raise InvalidOptionError(f"bot command {command!r} does not start: {e}") from None
    try:
        ready = _handshake(proc, timeout)
    except _Failure as f:
        raise InvalidOptionError(f"bot command {command!r} does not start: {f.detail}") from None
    finally:
        proc.close()
    return str(ready.get("name", ""))


__all__ = ["probe"]
