"""Operations: the Prometheus metrics (``/metrics``), the health check and JSON log lines.

The metrics (prometheus-client):

* ``quintet_actions_total``: actions accepted, stored and broadcast (a counter: its
  rate is the actions a second);
* ``quintet_action_seconds``: the time from an accepted action to its broadcast (the
  store's commit, then every connection's message queued), a histogram;
* ``quintet_tables_owned``: the tables in play this process runs;
* ``quintet_connections``: the websockets open on this process, and
  ``quintet_relayed_connections`` those among them that play a table another process
  runs (:mod:`quintet.server.cluster`);
* ``quintet_bot_queue``: bot searches waiting for a worker.

Each process counts its own. ``quintet serve --workers N`` runs N processes behind one
port, and a scrape reaches any one of them, so there the workers share
prometheus-client's multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``, set by
:func:`quintet.server.app.run` to a directory of its own): any worker's ``/metrics``
is the sum over the live workers (counters and histograms over every worker that ever
ran). Several ``quintet serve`` processes on ports of their own are scraped one by one.

:class:`JsonLogFormatter` writes one JSON object a line (``quintet serve --log-json``),
for log collectors: the time, level, logger, message and the process.
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import socket
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

from quintet.actions import Action
from quintet.server.livetable import LiveTable

if TYPE_CHECKING:
    from quintet.server.live import Hub

#: The environment variable of prometheus-client's multiprocess mode.
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

ACTIONS = Counter("quintet_actions", "Actions accepted, stored and broadcast")
ACTION_SECONDS = Histogram(
    "quintet_action_seconds",
    "From an accepted action to its broadcast (the store's commit included)",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0),
)
TABLES = Gauge(
    "quintet_tables_owned", "Tables in play this process runs", multiprocess_mode="livesum"
)
CONNECTIONS = Gauge(
    "quintet_connections", "Websockets open on this process", multiprocess_mode="livesum"
)
RELAYED = Gauge(
    "quintet_relayed_connections",
    "Websockets of this process playing a table another process runs",
    multiprocess_mode="livesum",
)
BOT_QUEUE = Gauge(
    "quintet_bot_queue", "Bot searches waiting for a worker", multiprocess_mode="livesum"
)


def process_id() -> str:
    """Return a new id for this server process: its host, pid and a random part."""
    host = re.sub(r"[^A-Za-z0-9.-]", "-", socket.gethostname())[:40] or "host"
    return f"{host}-{os.getpid()}-{secrets.token_hex(3)}"


class TimedTable(LiveTable):
    """A :class:`LiveTable` whose actions are counted and timed for the metrics."""

    async def commit_action(self, seat: int, a: Action) -> None:
        """Store, make and broadcast an action (:meth:`LiveTable.commit_action`), timed."""
        start = time.perf_counter()
        await super().commit_action(seat, a)
        ACTION_SECONDS.observe(time.perf_counter() - start)
        ACTIONS.inc()


def sample(hub: Hub) -> None:
    """Set this process's gauges from ``hub`` now."""
    TABLES.set(sum(1 for t in hub.tables.values() if not t.closed and hub.runs(t.id)))
    CONNECTIONS.set(sum(hub.connections.values()))
    RELAYED.set(hub.relayed_count())
    BOT_QUEUE.set(hub.search_pool.stats()["queued"])


def render(hub: Hub) -> tuple[bytes, str]:
    """Return the text of ``/metrics`` and its content type (this process's gauges first
    brought up to date)."""
    sample(hub)
    path = os.environ.get(MULTIPROC_ENV)
    if not path:
        return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
    _forget_dead_workers(path)
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=path)  # type: ignore[no-untyped-call]
    return generate_latest(registry), CONTENT_TYPE_LATEST


_PID_FILE = re.compile(r"_(\d+)\.db$")


def _forget_dead_workers(path: str) -> None:
    """Drop the gauges of workers that are gone (their ``livesum`` files), so that a
    worker killed and started again is not counted twice."""
    for name in os.listdir(path):
        m = _PID_FILE.search(name)
        if m is None or not name.startswith("gauge_live"):
            continue
        pid = int(m.group(1))
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            multiprocess.mark_process_dead(pid, path)  # type: ignore[no-untyped-call]
        except PermissionError:  # pragma: no cover - another user's process: alive
            pass


class JsonLogFormatter(logging.Formatter):
    """One JSON object a line: ``time`` (UTC, ISO 8601), ``level``, ``logger``,
    ``message``, ``pid``, the server process's id in a cluster (``process``) and the
    traceback if any (``exception``)."""

    def __init__(self, process: str | None = None) -> None:
        super().__init__()
        self.process = process

    def format(self, record: logging.LogRecord) -> str:
        """Return the record as one line of JSON."""
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process or os.getpid(),
        }
        if self.process is not None:
            out["process"] = self.process
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def configure_logging(level: str, json_lines: bool) -> None:
    """Send every log (the server's and uvicorn's) to standard error, as text or as JSON
    lines."""
    handler = logging.StreamHandler()
    if json_lines:
        handler.setFormatter(JsonLogFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(levelname)-9s%(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def set_log_process(process: str) -> None:
    """Name the server process (its cluster id) in every JSON log line from now on."""
    for h in logging.getLogger().handlers:
        if isinstance(h.formatter, JsonLogFormatter):
            h.formatter.process = process


__all__ = [
    "ACTIONS",
    "ACTION_SECONDS",
    "BOT_QUEUE",
    "CONNECTIONS",
    "RELAYED",
    "TABLES",
    "JsonLogFormatter",
    "TimedTable",
    "configure_logging",
    "process_id",
    "render",
    "sample",
]
