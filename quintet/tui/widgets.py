"""The table's widgets: cards, hands, decision buttons, seats, the trick and side panels.

Widgets never take focus: the table screen reads every key itself, and a click on a
card or a button is posted to it as a message.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.events import Click
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from quintet.actions import Action
from quintet.cards import Card
from quintet.tui.model import ChoiceView, HandView, SeatView
from quintet.tui.render import card_text, cards_text

#: The keys that select cards (h, l, q, s, t, u are commands).
CARD_KEYS = "abcdefgijkmnoprvwxyz"


class Painted(Static):
    """A Static that redraws only what changed (restyling every widget is slow)."""

    def __init__(self, content: str = "", **kwargs: Any) -> None:
        super().__init__(content, **kwargs)
        self._shown: object = content

    def paint(self, content: Text | str, layout: bool = True) -> None:
        """Show ``content`` unless it is already shown."""
        if content != self._shown:
            self._shown = content
            self.update(content, layout=layout)

    def restyle(self, *classes: str) -> None:
        """Set the widget's classes unless they are already set."""
        new = {c for c in classes if c}
        if set(self.classes) != new:
            self.set_classes(new)

    def titled(self, title: str, subtitle: str | None = None) -> None:
        """Set the border title (and subtitle) unless already set."""
        if self.border_title != title:
            self.border_title = title
        if subtitle is not None and self.border_subtitle != subtitle:
            self.border_subtitle = subtitle


class CardWidget(Painted):
    """One card of a hand the person plays from; a click plays it."""

    DEFAULT_CSS = """
    CardWidget {
        width: 5;
        height: 3;
        border: round $panel-lighten-2;
        background: #f4f1e8;
        content-align: center middle;
    }
    CardWidget.illegal {
        background: #8c8a84;
        border: round $panel;
    }
    CardWidget.legal {
        border: round $success;
    }
    CardWidget.cursor {
        border: heavy $warning;
    }
    CardWidget.empty {
        display: none;
    }
    """

    class Clicked(Message):
        """The person clicked a card of ``seat``'s hand."""

        def __init__(self, seat: int, card: Card) -> None:
            self.seat = seat
            self.card = card
            super().__init__()

    def __init__(self, index: int) -> None:
        super().__init__("", classes="empty")
        self.index = index
        self.seat = -1
        self.card: Card | None = None

    def show(self, seat: int, card: Card | None, legal: bool, cursor: bool) -> None:
        """Show ``card`` (None: hide this slot)."""
        self.seat = seat
        self.card = card
        if card is None:
            self.restyle("empty")
            return
        self.paint(card_text(card, face=True), layout=False)
        self.restyle("legal" if legal else "illegal", "cursor" if cursor else "")

    def on_click(self, event: Click) -> None:
        event.stop()
        if self.card is not None:
            self.post_message(self.Clicked(self.seat, self.card))


class HandRow(Vertical):
    """A hand the person plays from: a title line and up to 12 cards."""

    DEFAULT_CSS = """
    HandRow {
        height: 5;
        width: 1fr;
    }
    HandRow.hidden-row {
        display: none;
    }
    HandRow > .title {
        height: 1;
        color: $text-muted;
    }
    HandRow > .keys {
        height: 1;
    }
    HandRow.active > .title {
        color: $warning;
        text-style: bold;
    }
    HandRow > Horizontal {
        height: 3;
    }
    """

    def __init__(self, slot: int, size: int) -> None:
        super().__init__(id=f"hand-{slot}", classes="hidden-row")
        self.slot = slot
        self.capacity = size
        self.cards = [CardWidget(i) for i in range(size)]
        self.title = Painted("", classes="title")
        self.keys = Painted("", classes="keys")
        self.view: HandView | None = None

    def compose(self) -> ComposeResult:
        yield self.title
        yield self.keys
        with Horizontal():
            yield from self.cards

    def show(
        self,
        view: HandView | None,
        legal: set[Action],
        keys: dict[Card, str],
        cursor: Card | None,
    ) -> None:
        """Show a hand (None hides the row)."""
        self.view = view
        if view is None:
            if set(self.classes) != {"hidden-row"}:
                self.set_classes("hidden-row")
            return
        want = {"active"} if view.active else set()
        if set(self.classes) != want:
            self.set_classes(want)
        title = Text(view.title)
        if view.hidden:
            title.append("  (hidden from you until the first lead)", style="dim")
        elif view.active and any(c in legal for c in view.cards):
            title.append("  · framed in green: playable now", style="dim")
        self.title.paint(title, layout=False)
        line = Text()
        for c in view.cards:
            key = keys.get(c, "")
            style = "bold reverse yellow" if c == cursor else ("bold" if c in legal else "dim")
            line.append("  ")
            line.append(key or " ", style=style if key else "")
            line.append("  ")
        self.keys.paint(line, layout=False)
        for i, w in enumerate(self.cards):
            if i < len(view.cards):
                c = view.cards[i]
                w.show(view.seat, c, c in legal, c == cursor)
            else:
                w.show(view.seat, None, False, False)


class ChoiceButton(Painted):
    """A decision button (pass, double, a bid, a trump ...); a click takes it."""

    DEFAULT_CSS = """
    ChoiceButton {
        width: auto;
        height: 1;
        padding: 0 1;
        margin-right: 1;
        background: $primary-darken-1;
        color: $text;
    }
    ChoiceButton.illegal {
        background: $panel;
        color: $text-disabled;
    }
    ChoiceButton.adjust {
        background: $secondary-darken-2;
    }
    ChoiceButton.cursor {
        background: $warning;
        color: $background;
        text-style: bold;
    }
    ChoiceButton.empty {
        display: none;
    }
    """

    class Clicked(Message):
        """The person clicked the choice at ``index``."""

        def __init__(self, index: int) -> None:
            self.index = index
            super().__init__()

    def __init__(self, index: int) -> None:
        super().__init__("", id=f"choice-{index}", classes="empty")
        self.index = index

    def show(self, choice: ChoiceView | None, key: str, cursor: bool) -> None:
        """Show a choice (None hides this button)."""
        if choice is None:
            self.restyle("empty")
            return
        label = f"{key} {choice.label}" if key else choice.label
        self.paint(label)
        self.restyle(
            "adjust" if choice.kind != "act" else "",
            "" if choice.legal else "illegal",
            "cursor" if cursor else "",
        )

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.index))


class SeatBox(Painted):
    """A seat around the table: who sits there, its cards, its play to the trick."""

    DEFAULT_CSS = """
    SeatBox {
        border: round $panel-lighten-2;
        height: 100%;
        width: 1fr;
        padding: 0 1;
        border-title-style: bold;
    }
    SeatBox.to-act {
        border: heavy $warning;
        border-title-color: $warning;
    }
    SeatBox.you {
        border-title-color: $success;
    }
    SeatBox.wins {
        border: round $success;
    }
    """

    def show(self, seat: SeatView) -> None:
        """Draw one seat."""
        self.titled(seat.name + (" · you" if seat.player == "you" else ""), " ".join(seat.tags))
        body = Text()
        body.append(f"{seat.cards} cards")
        if seat.player != "you":
            body.append(" · ")
            body.append(seat.player, style="italic")
        body.append("\n")
        if seat.hand is not None:
            body.append_text(cards_text(seat.hand))
            body.append("\n")
        if seat.played is not None:
            body.append("▶ ")
            body.append_text(card_text(seat.played))
            if seat.wins:
                body.append("  wins", style="bold green")
            body.append("\n")
        if seat.note:
            body.append(seat.note, style="bold cyan")
        elif seat.to_act:
            body.append("to act…", style="yellow")
        self.paint(body, layout=False)
        self.restyle(
            "to-act" if seat.to_act else "",
            "wins" if seat.wins else "",
            "you" if seat.player == "you" else "",
        )


class TrickBox(Painted):
    """The middle of the table: the trick, with who played what in order."""

    DEFAULT_CSS = """
    TrickBox {
        border: round $primary;
        height: 100%;
        width: 1fr;
        padding: 0 1;
        content-align: center middle;
        border-title-style: bold;
    }
    """

    def show(self, title: str, plays: list[tuple[int, Card]], names: list[str]) -> None:
        """Draw the trick."""
        self.titled(title)
        body = Text()
        if not plays:
            body.append("—", style="dim")
        width = max((len(names[seat]) for seat, _ in plays), default=0) + 1
        for i, (seat, c) in enumerate(plays):
            if i:
                body.append("\n")
            body.append(f"{i + 1}. {names[seat]:<{width}}")
            body.append_text(card_text(c))
        self.paint(body, layout=False)


class Panel(Painted):
    """A titled side panel of text."""

    DEFAULT_CSS = """
    Panel {
        border: round $panel-lighten-2;
        padding: 0 1;
        width: 1fr;
        border-title-style: bold;
    }
    """

    def __init__(self, title: str, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.border_title = title


class LogPanel(Widget):
    """A titled list of lines that shows the latest (or those around ``focus``) that fit."""

    DEFAULT_CSS = """
    LogPanel {
        border: round $panel-lighten-2;
        padding: 0 1;
        width: 1fr;
        border-title-style: bold;
    }
    """

    def __init__(self, title: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = title
        self.lines: list[Text] = []
        self.focus_line: int | None = None

    def show_lines(self, lines: list[Text], focus: int | None = None) -> None:
        """Show ``lines``: the last ones, or those around line ``focus``."""
        self.lines = lines
        self.focus_line = focus
        self.refresh()

    def render(self) -> Text:
        height = self.content_size.height or 12
        lines = self.lines
        if self.focus_line is None:
            start = max(0, len(lines) - height)
        else:
            start = max(0, min(self.focus_line - height // 2, len(lines) - height))
        return Text("\n").join(lines[start : start + height])
