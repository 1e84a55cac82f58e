"""``quintet serve``: the web server where people play Quinto and Quintus in the browser.

:func:`create_app` returns the ASGI app, :func:`run` serves it with uvicorn. The pieces:
:mod:`~quintet.server.db` (storage and migrations), :mod:`~quintet.server.live` (tables
in play, seats, connections, bots), :mod:`~quintet.server.views` (per-recipient JSON),
:mod:`~quintet.server.protocol` (the websocket protocol) and
:mod:`~quintet.server.replay` (replays and analyses of finished games). The protocol is
described in docs/server.md.
"""

from __future__ import annotations

from quintet.server.app import create_app, run
from quintet.server.live import Settings
from quintet.server.protocol import PROTOCOL_VERSION

__all__ = ["PROTOCOL_VERSION", "Settings", "create_app", "run"]
