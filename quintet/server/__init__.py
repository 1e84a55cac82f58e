"""``quintet serve``: the web server where people play Quinto and Quintus in the browser.

:func:`create_app` returns the ASGI app, :func:`run` serves it with uvicorn. The pieces:
:mod:`~quintet.server.settings` (the operator's settings and limits),
:mod:`~quintet.server.security` (person cookie, origins, headers, rate buckets),
:mod:`~quintet.server.messages` (every client message and body as a declared model),
:mod:`~quintet.server.db` (storage and migrations), :mod:`~quintet.server.live` (the
hub: tables in play, bots, limits), :mod:`~quintet.server.livetable` (one table),
:mod:`~quintet.server.handlers` (the message handlers), :mod:`~quintet.server.conn`
(one connection),
:mod:`~quintet.server.workers` (the search workers), :mod:`~quintet.server.views`
(per-recipient JSON), :mod:`~quintet.server.protocol` (the websocket protocol) and
:mod:`~quintet.server.replay` (replays and analyses of finished games). The protocol is
described in docs/server.md.

The web framework is imported only when :func:`create_app` or :func:`run` is used, so a
search worker importing :mod:`quintet.server.botjobs` loads the bots and nothing more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quintet.server.protocol import PROTOCOL_VERSION
from quintet.server.settings import Settings

if TYPE_CHECKING:
    from quintet.server.app import create_app, run


def __getattr__(name: str) -> Any:
    if name in ("create_app", "run"):
        from quintet.server import app

        return getattr(app, name)
    raise AttributeError(name)


__all__ = ["PROTOCOL_VERSION", "Settings", "create_app", "run"]
