"""Pop-up screens shared by ``play`` and ``replay``: text pages, the end of a hand,
saving and quitting."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Click, Key
from textual.screen import ModalScreen
from textual.widgets import Input, Static

MODAL_CSS = """
.modal-body {
    width: auto;
    max-width: 96%;
    height: auto;
    max-height: 92%;
    border: thick $primary;
    background: $surface;
    padding: 0 1;
}
.modal-title {
    text-style: bold;
    color: $warning;
    height: 1;
    margin-bottom: 1;
}
.modal-keys {
    height: auto;
    margin-top: 1;
}
.modal-scroll {
    height: auto;
    max-height: 30;
    width: auto;
}
.modal-text {
    width: auto;
}
"""


class KeyButton(Static):
    """A button of a pop-up: a click presses its key."""

    DEFAULT_CSS = """
    KeyButton {
        width: auto;
        height: 1;
        padding: 0 1;
        margin-right: 1;
        background: $primary-darken-1;
    }
    """

    def __init__(self, key: str, label: str) -> None:
        super().__init__(f"{label}", id=f"key-{key}")
        self.key = key

    def on_click(self, event: Click) -> None:
        event.stop()
        screen = self.screen
        if isinstance(screen, TextScreen):
            screen.pressed(self.key)


class TextScreen(ModalScreen[str]):
    """A page of text with a few keys (each a button too); dismissed with the key pressed."""

    DEFAULT_CSS = (
        MODAL_CSS
        + """
    TextScreen {
        align: center middle;
    }
    """
    )

    def __init__(
        self,
        title: str,
        body: Text | str,
        keys: list[tuple[str, str]] | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.title_text = title
        self.body = body
        self.keys = keys or [("escape", "Esc close")]

    def compose(self) -> ComposeResult:
        plain = self.body.plain if isinstance(self.body, Text) else self.body
        keys = sum(len(label) + 3 for _, label in self.keys)
        widest = max([len(line) for line in plain.splitlines()] + [len(self.title_text), keys])
        with Vertical(classes="modal-body") as body:
            body.styles.width = widest + 6
            yield Static(self.title_text, classes="modal-title")
            with VerticalScroll(classes="modal-scroll"):
                yield Static(self.body, classes="modal-text")
            with Horizontal(classes="modal-keys"):
                for key, label in self.keys:
                    yield KeyButton(key, label)

    def key_names(self) -> set[str]:
        """Return the keys this page answers to."""
        return {k for k, _ in self.keys} | {"escape"}

    def on_key(self, event: Key) -> None:
        if event.key in self.key_names():
            event.stop()
            self.pressed(event.key)

    def pressed(self, key: str) -> None:
        """Dismiss with ``key``."""
        self.dismiss(key)


class SaveScreen(ModalScreen[str | None]):
    """Ask where to save the record; dismissed with the path, or None."""

    DEFAULT_CSS = (
        MODAL_CSS
        + """
    SaveScreen {
        align: center middle;
    }
    SaveScreen Input {
        width: 60;
    }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, default: str) -> None:
        super().__init__()
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-body"):
            yield Static("Save the game as a record", classes="modal-title")
            yield Input(value=self.default, id="save-path")
            yield Static("Enter saves · Esc cancels", classes="modal-keys")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
