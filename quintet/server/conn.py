"""One websocket connection: who it is, its table and seat, its outbox and rate limit."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from quintet.server.protocol import dumps
from quintet.server.settings import Settings

if TYPE_CHECKING:
    from quintet.server.live import LiveTable

log = logging.getLogger("quintet.server")

JSON = dict[str, Any]

_CLOSE = object()
_CLOSE_SLOW = object()


class Conn:
    """One websocket connection: its person, table and seat, its outbox and rate limit.

    ``send`` never blocks: messages queue in the outbox and a sender task writes them
    in order. The ``sent_*`` fields let each ``state`` message carry only the parts
    (seats, log, sheet) that changed since the last one on this connection. ``person``
    is the person id of the browser's cookie (None without one: a spectator only).
    """

    _ids = 0

    def __init__(
        self,
        send_text: Callable[[str], Awaitable[None]],
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
        self.hinting = False
        self.tokens = settings.burst
        self.refilled = time.monotonic()
        self.reset_cursors()

    def reset_cursors(self) -> None:
        """Forget what was sent: the next state message is complete."""
        self.sent_seats = -1
        self.sent_sheet = -1
        self.sent_hand = -1
        self.sent_events = 0

    def send(self, msg: JSON | str) -> None:
        """Queue a message (a dict or ready JSON text)."""
        if self.closed:
            return
        if len(self.outbox) >= self.settings.outbox_limit:
            log.warning("connection %d is too slow: dropped", self.id)
            self.outbox.clear()
            self.outbox.append(_CLOSE_SLOW)
            self.closed = True
            self.wake.set()
            return
        self.outbox.append(msg if isinstance(msg, str) else dumps(msg))
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
        try:
            await self._send_all()
        except Exception:  # the client went away: the receive loop cleans up
            self.closed = True

    async def _send_all(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            while self.outbox:
                item = self.outbox.popleft()
                if isinstance(item, str):
                    try:
                        await self._send_text(item)
                    except UnicodeEncodeError:
                        # Every client text is checked on the way in, so this is a bug:
                        # lose the message, keep the connection.
                        log.error("connection %d: a message could not be encoded", self.id)
                    continue
                if item is _CLOSE_SLOW:
                    await self._close(1008, "too slow")
                    return
                _, code, reason = item
                await self._close(code, reason)
                return
