"""Terminal play: ``quintet play`` (a person against bots) and ``quintet replay``.

Built on Textual. :mod:`quintet.tui.play` runs a :class:`~quintet.table.Table` for a
person, drawn from that person's observation only (:mod:`quintet.tui.model`);
:mod:`quintet.tui.replay` steps through a record with every hand visible and the
double-dummy values of the cards played; :mod:`quintet.tui.testing` drives both in
tests as a person would.
"""

from __future__ import annotations

from quintet.tui.play import PlayApp, new_table, resume_table, run_play, save_record
from quintet.tui.replay import ReplayApp

__all__ = ["PlayApp", "ReplayApp", "new_table", "resume_table", "run_play", "save_record"]
