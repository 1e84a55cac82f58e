"""The CPU time an external bot's process tree has used (Linux ``/proc``).

A bot's budget is CPU seconds, like the project's own bots': the manager reads what the
bot's process and every process below it have used (user and system time, waited-for
children included) while it waits for the answer. Where ``/proc`` cannot be read, the
reading is None and the budget falls back to wall time.
"""

from __future__ import annotations

import os
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def proc_stat(pid: int | str) -> list[str] | None:
    """Return the fields of ``/proc/PID/stat`` after the command name, or None."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for task in tasks:
        try:
            text = Path(f"/proc/{pid}/task/{task}/children").read_text()
        except OSError:
            continue
        out.extend(int(x) for x in text.split())
    return out


def tree_cpu_seconds(pid: int) -> float | None:
    """Return the CPU seconds ``pid`` and its descendants have used, or None if unknown.

    >>> tree_cpu_seconds(os.getpid()) is None or tree_cpu_seconds(os.getpid()) >= 0
    True
    """
    fields = proc_stat(pid)
    if fields is None:
        return None
    total = 0
    todo = [pid]
    seen: set[int] = set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        f = fields if p == pid else proc_stat(p)
        if f is None:
            continue  # it ended meanwhile: its parent's cutime will count it once waited
        # utime, stime, cutime, cstime
        total += int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])
        todo.extend(_children(p))
    return total / _TICKS
