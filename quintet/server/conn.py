"""One websocket connection: who it is, its table and seat, its outbox and rate limit."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from quintet.server.protocol import dumps
from quintet.server.settings import Settings

if TYPE_CHECKING:
    from quintet.server.livetable import LiveTable, Shared

log = logging.getLogger("quintet.server")

JSON = dict[str, Any]

#: Seconds a close frame may wait for a client that does not read.
CLOSE_TIMEOUT = 2.0

_CLOSE = object()
_CLOSE_SLOW = object()


class Conn:
    """One websocket connection: its person, table and seat, its outbox and rate limit.

    ``send`` never blocks: a message is written at once when nothing waits before it
    and the write does not have to wait (the usual case: no task switch per message),
    else it queues in the outbox and a sender task writes them in order. ``base`` and
    the ``sent_*`` fields are what this connection was last sent of its table: its next
    message (an ``update``) carries only what changed since. ``person`` is the person
    id of the browser's cookie (None without one: a spectator only).
    """

    _ids = 0

    def __init__(
        self,
        send_text: Callable[[str], Coroutine[Any, Any, None]],
        close: Callable[[int, str], Awaitable[None]],
        settings: Settings,
        person: str | None = None,
    ) -> None:
        Conn._ids += 1
        self.id = Conn._ids
        self._send_text = send_text
        self._close = close
        self.settings = settings
        self.person = person
        self.table: LiveTable | None = None
        self.seat: int | None = None
        self.outbox: deque[Any] = deque()
        self.wake = asyncio.Event()
        self.closed = False
        #: Set when the connection must end now (too slow): the receive loop stops.
        self.dropped = asyncio.Event()
        self.queued_bytes = 0
        self.hint_task: asyncio.Task[None] | None = None
        self._sender_task: asyncio.Task[Any] | None = None
        self._idle = True  # the sender is writing nothing
        #: A write begun in ``send`` that had to wait, for the sender to finish.
        self._stuck: tuple[Coroutine[Any, Any, None], Any] | None = None
        self._drop_task: asyncio.Task[None] | None = None
        self.client: str | None = None  # the client's address
        #: Called (soon) when the connection is dropped: take it off its table.
        self.on_drop: Callable[[], None] | None = None
        #: Called once the close of a dropped connection was tried: end its handler.
        self.abort: Callable[[], None] | None = None
        self.tokens = settings.burst
        self.refilled = time.monotonic()
        self.reset_cursors()

    def reset_cursors(self) -> None:
        """Forget what was sent: the next message is a whole ``state``."""
        #: The table's shared parts the last message was made from (None: none sent).
        self.base: Shared | None = None
        #: The hands and the legal actions last sent (from this seat's observation).
        self.sent_hands: tuple[Any, ...] | None = None
        self.sent_legal: tuple[Any, ...] | None = None
        #: The seat the last ``you`` was sent for (None: a spectator; -1: none sent).
        self.sent_you: int | None = -1

    @property
    def hinting(self) -> bool:
        """Whether a hint is being worked out for this connection."""
        return self.hint_task is not None and not self.hint_task.done()

    def send(self, msg: JSON | str) -> None:
        """Queue a message (a dict or ready JSON text); drop a client that reads too slowly."""
        if self.closed:
            return
        text = msg if isinstance(msg, str) else dumps(msg)
        if self._idle and not self.outbox and self._sender_task is not None:
            self._write_now(text)
            return
        if (
            len(self.outbox) >= self.settings.outbox_limit
            or self.queued_bytes + len(text) > self.settings.outbox_bytes
        ):
            log.warning("connection %d is too slow: dropped", self.id)
            self.outbox.clear()
            self.queued_bytes = 0
            self.outbox.append(_CLOSE_SLOW)
            self.closed = True
            self.dropped.set()
            self.wake.set()
            if self.on_drop is not None:
                asyncio.get_running_loop().call_soon(self.on_drop)
            # The sender may be stuck writing to a client that reads nothing: end it.
            self._drop_task = asyncio.get_running_loop().create_task(self._finish_drop())
            return
        self.outbox.append(text)
        self.queued_bytes += len(text)
        self.wake.set()

    def _write_now(self, text: str) -> None:
        """Write a message without waiting for the sender task; one whose write has to
        wait (a client reading slowly) is left to the sender to finish."""
        coro = self._send_text(text)
        try:
            waiting = coro.send(None)
        except StopIteration:
            return
        except UnicodeEncodeError:
            log.error("connection %d: a message could not be encoded", self.id)
            return
        except Exception:  # the client went away: the receive loop cleans up
            self.closed = True
            return
        self._stuck = (coro, waiting)
        self._idle = False
        self.wake.set()

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Send what is queued, then close the websocket."""
        if not self.closed:
            self.outbox.append((_CLOSE, code, reason))
            self.closed = True
            self.wake.set()

    def allow(self) -> bool:
        """Return whether the rate limit lets one more message through."""
        t = time.monotonic()
        self.tokens = min(
            self.settings.burst, self.tokens + (t - self.refilled) * self.settings.rate
        )
        self.refilled = t
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def sender(self) -> None:
        """Write queued messages in order until the connection closes."""
        self._sender_task = asyncio.current_task()
        try:
            await self._send_all()
        except Exception:  # the client went away: the receive loop cleans up
            self.closed = True

    async def _finish_drop(self) -> None:
        """Stop the sender, try to close (briefly), then end the connection's handler."""
        task = self._sender_task
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        # A client that does not read may never take the close frame either.
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._close(1008, "too slow"), CLOSE_TIMEOUT)
        if self.abort is not None:
            self.abort()

    async def _send_all(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            self._idle = False
            if self._stuck is not None:
                coro, waiting = self._stuck
                self._stuck = None
                await _finish(coro, waiting)
            while self.outbox:
                item = self.outbox.popleft()
                if isinstance(item, str):
                    self.queued_bytes -= len(item)
                    try:
                        await self._send_text(item)
                    except UnicodeEncodeError:
                        # Every client text is checked on the way in, so this is a bug:
                        # lose the message, keep the connection.
                        log.error("connection %d: a message could not be encoded", self.id)
                    continue
                if item is _CLOSE_SLOW:  # _finish_drop closes the connection
                    return
                _, code, reason = item
                await self._close(code, reason)
                return
            self._idle = True


async def _finish(coro: Coroutine[Any, Any, None], waiting: Any) -> None:
    """Run to its end a coroutine suspended on ``waiting`` (what it yielded: a future,
    or None for a bare yield), as a task would."""
    try:
        while True:
            if waiting is None:
                await asyncio.sleep(0)
            else:
                await asyncio.wait([waiting])
            try:
                waiting = coro.send(None)
            except StopIteration:
                return
    finally:
        coro.close()  # cancelled: let it clean up
