"""``quintet pad``: the score pad for a game played with real cards, in the terminal.

One screen: the status line, the entries (numbered, grouped by hand), the sheet (the
Quinto rubber sheet and cribbage board, or the Quintus ledger with its settlements), a
message line and the input line where entries are typed (:mod:`quintet.pad.commands`).
Every change is checked by the pad (:mod:`quintet.pad`) and, with a file, saved at once.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar, Final

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Static

from quintet.pad import Pad, PadError, dumps
from quintet.pad.commands import command_help, entry_command, parse_command
from quintet.pad.sheets import EXPORTS, export, sheet_text
from quintet.tui.screens import TextScreen

HELP: Final = """Type an entry and press Enter. The pad checks it and says why when it
does not fit; nothing changes then.

{game}

Corrections and the rest:
    u               undo the last entry
    e N             edit entry N (its line comes back to the input; Enter saves it)
    del N           delete entry N (everything after it is recomputed)
    s [FILE]        save (to the pad's file, or FILE)
    w FORMAT FILE   export: json, csv or text (a printable sheet)
    q               quit (saved first when the pad has a file)
Keys: ctrl+z undo, ctrl+s save, f1 this help, ctrl+q quit."""


class PadApp(App[None]):
    """The terminal score pad for one :class:`~quintet.pad.Pad`, saved to ``path``."""

    TITLE = "quintet pad"
    CSS = """
    #status { height: auto; max-height: 3; background: $boost; padding: 0 1; }
    #body { height: 1fr; }
    #entries-box { width: 32; border: round $primary; }
    #sheet-box { width: 1fr; border: round $primary; }
    #message { height: auto; max-height: 3; padding: 0 1; }
    #message.error { color: $error; }
    #line { dock: bottom; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+z", "undo", "undo"),
        Binding("ctrl+s", "save", "save"),
        Binding("f1", "help", "help"),
        Binding("ctrl+q", "quit_pad", "quit", priority=True),
    ]

    def __init__(self, pad: Pad[Any], path: str | None = None) -> None:
        super().__init__()
        self.pad = pad
        self.path = path
        self.message = ""
        self.error = False

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        with Horizontal(id="body"):
            with VerticalScroll(id="entries-box"):
                yield Static(id="entries")
            with VerticalScroll(id="sheet-box"):
                yield Static(id="sheet")
        yield Static(id="message")
        yield Input(placeholder="entry, or ? for help", id="line")

    def on_mount(self) -> None:
        self.query_one("#entries-box").border_title = "entries"
        self.query_one("#sheet-box").border_title = "sheet"
        self.say(f"{self.pad.game} {self.pad.variant}: ? for help")
        self.refresh_pad()
        self.query_one("#line", Input).focus()

    # ---------------------------------------------------------------- drawing

    def refresh_pad(self) -> None:
        """Draw the status, the entries and the sheet again."""
        self.query_one("#status", Static).update(self.pad.status())
        self.query_one("#entries", Static).update(self.entries_text())
        self.query_one("#sheet", Static).update(sheet_text(self.pad).rstrip())
        self.query_one("#entries-box", VerticalScroll).scroll_end(animate=False)

    def entries_text(self) -> str:
        """Return the numbered entries, grouped by hand."""
        pad = self.pad
        entries = pad.entries
        hands = {g[1][0]: g for g in pad.hand_groups() if g[1]}
        lines = []
        for i, e in enumerate(entries):
            if i in hands:
                lines.append(hands[i][0])
            lines.append(f"{i:>3} {entry_command(pad, e)}")
        return "\n".join(lines) or "(no entries yet)"

    def say(self, text: str, error: bool = False) -> None:
        """Show ``text`` on the message line (in the error colour when ``error``)."""
        self.message, self.error = text, error
        w = self.query_one("#message", Static)
        w.update(text)
        w.set_class(error, "error")

    # ---------------------------------------------------------------- input

    def on_input_submitted(self, event: Input.Submitted) -> None:
        line = event.value.strip()
        box = self.query_one("#line", Input)
        box.value = ""
        if line:
            self.run_line(line)

    def run_line(self, line: str) -> None:
        """Carry out one typed line: a command or an entry."""
        words = line.split()
        head = words[0].lower()
        try:
            if head in ("?", "help"):
                self.action_help()
            elif head in ("q", "quit"):
                self.action_quit_pad()
            elif head in ("u", "undo"):
                self.action_undo()
            elif head in ("s", "save"):
                self.save(words[1] if len(words) > 1 else None)
            elif head == "w":
                self.write_export(words[1:])
            elif head == "e":
                self.edit(words[1:], line)
            elif head == "del":
                index = self._index(words[1:2])
                self.pad.delete(index)
                self.changed(f"entry {index} deleted")
            else:
                written = self.pad.add(parse_command(self.pad, line))
                self.changed(f"added: {entry_command(self.pad, written)}")
        except PadError as e:
            self.say(e.detail, error=True)
        except IndexError as e:
            self.say(str(e), error=True)

    def _index(self, words: list[str]) -> int:
        if not words or not words[0].isdigit():
            raise IndexError("give the entry's number: e 12, del 12")
        return int(words[0])

    def edit(self, words: list[str], line: str) -> None:
        """``e N`` puts entry N back on the input line; ``e N ENTRY`` replaces it."""
        index = self._index(words[:1])
        if len(words) == 1:
            entry = self.pad.entries[index] if index < len(self.pad.entries) else None
            if entry is None:
                raise IndexError(f"no entry {index}: the pad has {len(self.pad.entries)}")
            box = self.query_one("#line", Input)
            box.value = f"e {index} {entry_command(self.pad, entry)}"
            box.cursor_position = len(box.value)
            self.say(f"correct entry {index} and press Enter (everything after is recomputed)")
            return
        rest = line.split(None, 2)[2]
        written = self.pad.replace(index, parse_command(self.pad, rest))
        self.changed(f"entry {index} is now: {entry_command(self.pad, written)}")

    def changed(self, text: str) -> None:
        """After a change: save to the file (if any), draw, and say what happened."""
        if self.path:
            self._write(self.path, dumps(self.pad) + "\n")
        self.refresh_pad()
        status = self.pad.status()
        self.say(f"{text}. {status}" if len(text) < 60 else text)

    def _write(self, path: str, text: str) -> None:
        tmp = f"{path}.tmp"
        Path(tmp).write_text(text, encoding="utf-8")
        os.replace(tmp, path)

    def save(self, path: str | None = None) -> None:
        """Save the pad to ``path`` (or its file)."""
        target = path or self.path
        if not target:
            self.say("no file: save with s FILE", error=True)
            return
        try:
            self._write(target, dumps(self.pad) + "\n")
        except OSError as e:
            self.say(f"cannot save {target}: {e.strerror}", error=True)
            return
        self.path = target
        self.say(f"saved to {target}")

    def write_export(self, words: list[str]) -> None:
        """``w FORMAT FILE``: export the pad."""
        if len(words) != 2 or words[0] not in EXPORTS:
            self.say(f"export with w FORMAT FILE, FORMAT one of {', '.join(EXPORTS)}", True)
            return
        try:
            self._write(words[1], export(self.pad, words[0]))
        except OSError as e:
            self.say(f"cannot write {words[1]}: {e.strerror}", error=True)
            return
        self.say(f"exported {words[0]} to {words[1]}")

    # --------------------------------------------------------------- actions

    def action_undo(self) -> None:
        """Delete the last entry."""
        try:
            last = self.pad.undo()
        except IndexError as e:
            self.say(str(e), error=True)
            return
        self.changed(f"undone: {entry_command(self.pad, last)}")

    def action_save(self) -> None:
        """Save to the pad's file."""
        self.save()

    def action_help(self) -> None:
        """Show the entry language and the commands."""
        body = HELP.format(game=command_help(self.pad).replace("::", ":"))
        self.push_screen(TextScreen("Score pad: help", body))

    def action_quit_pad(self) -> None:
        """Save (with a file) and quit."""
        if self.path:
            self._write(self.path, dumps(self.pad) + "\n")
        self.exit()


def run_pad(pad: Pad[Any], path: str | None) -> None:
    """Run the terminal pad until the person quits."""
    PadApp(pad, path).run()
