"""``quintet play``: a person plays Quinto or Quintus against bots in the terminal.

The game itself is a :class:`~quintet.table.Table`; this module draws it from the
person's observation (:mod:`quintet.tui.model`), turns keys and clicks into the table's
checked actions, paces the bots with a timer and offers hints, undo, the last trick,
score sheets, the end-of-hand summary and saving.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.events import Key
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Static

from quintet.actions import Action, bid_amount, is_bid, is_play, is_signal
from quintet.cards import Card
from quintet.errors import IllegalActionError, InvalidActionError, InvalidOptionError
from quintet.game import GameState
from quintet.games import find_game
from quintet.quinto import QuintoObservation, QuintoState
from quintet.quinto.rules import SIDE_NAMES
from quintet.quintus import QuintusObservation, QuintusState
from quintet.record import Record, dumps
from quintet.sheets import hand_summary, sheet
from quintet.table import Table
from quintet.tui.model import ChoiceView, TableView, build_view, describe_action
from quintet.tui.render import cards_text, seat_label, trump_label
from quintet.tui.screens import SaveScreen, TextScreen
from quintet.tui.widgets import (
    CARD_KEYS,
    CardWidget,
    ChoiceButton,
    HandRow,
    LogPanel,
    Painted,
    Panel,
    SeatBox,
    TrickBox,
)

#: The bot level whose suggestion ``h`` shows, unless told otherwise.
HINT_LEVEL = "pimc"

__all__ = [
    "HINT_LEVEL",
    "PlayApp",
    "default_save_name",
    "new_table",
    "parse_bots",
    "resume_table",
    "run_play",
    "save_record",
]


# ------------------------------------------------------------------ setting up a table


def parse_bots(text: str, others: int) -> list[str]:
    """Return one bot level per other player from ``LEVEL`` or ``L1,L2,...``.

    Raises:
        InvalidOptionError: a list of the wrong length.

    >>> parse_bots("heuristic", 3)
    ['heuristic', 'heuristic', 'heuristic']
    >>> parse_bots("random,heuristic,pimc", 3)
    ['random', 'heuristic', 'pimc']
    """
    levels = [s.strip() for s in text.split(",") if s.strip()]
    if len(levels) == 1:
        return levels * others
    if len(levels) != others:
        raise InvalidOptionError(
            f"--bots takes one level or {others} (one per other player), not {len(levels)}"
        )
    return levels


def new_table(
    game: str,
    variant: str | None = None,
    seat: int = 0,
    bots: str = "heuristic",
    seed: int = 0,
    hands: int | None = None,
    lone: int | None = None,
    options: dict[str, Any] | None = None,
) -> tuple[Table, int]:
    """Return a new table with the person at ``seat`` and bots elsewhere, and that seat.

    ``bots`` is one level for every other player or a comma list, one per other player
    in seat order. In Quinto's dummy variant the lone player sits at ``lone`` (default
    0) and decides for the dummy opposite; the person may not sit at the dummy.

    Raises:
        InvalidOptionError: a bad game, variant, seat, bot level or option.
    """
    info = find_game(game)
    n = info.num_seats
    if not 0 <= seat < n:
        raise InvalidOptionError(f"{game} has seats 0..{n - 1}, not {seat}")
    opts = dict(options or {})
    if hands is not None:
        if "hands" not in info.option_defaults():
            raise InvalidOptionError("--hands sets the length of a Quintus session")
        opts["hands"] = hands
    dummy: int | None = None
    if info.variant(variant).lone_seat:
        lone = 0 if lone is None else lone
        if not 0 <= lone < n:
            raise InvalidOptionError(f"the lone seat must be 0..{n - 1}, not {lone}")
        dummy = info.dummy_of(lone)
        if seat == dummy:
            raise InvalidOptionError(
                f"seat {seat} is the dummy: sit at the lone seat {lone} to play alone with it,"
                f" or at {(lone + 1) & 3} or {(lone + 3) & 3} against it"
            )
    elif lone is not None:
        raise InvalidOptionError("--lone is for Quinto's dummy variant")
    players = [s for s in range(n) if s != seat and s != dummy]
    levels = parse_bots(bots, len(players))
    seats: list[str | None] = [None] * n
    for s, level in zip(players, levels, strict=True):
        seats[s] = level
    if dummy is not None and lone is not None:
        seats[dummy] = seats[lone]
    table = Table.new(game, variant, seats, seed=seed, options=opts, lone_seat=lone)
    return table, seat


def resume_table(record: Record, seat: int | None = None) -> tuple[Table, int]:
    """Return the table a saved record continues, and the person's seat.

    The seat is the one saved with the record (``play.seat``), else ``seat``, else the
    first seat without a bot.

    Raises:
        RecordError: the record does not replay.
    """
    table = Table.from_record(record)
    info = record.extra.get("table", {}) if isinstance(record.extra, dict) else {}
    steps = info.get("steps") if isinstance(info, dict) else None
    if isinstance(steps, int):
        # The bots' random draws are numbered per table: carry the count on, so a resumed
        # game goes on exactly as it would have (see the report on Table._steps).
        table._steps = steps
    saved = record.extra.get("play", {}) if isinstance(record.extra, dict) else {}
    person = saved.get("seat") if isinstance(saved, dict) else None
    if not isinstance(person, int) or not 0 <= person < table.num_seats:
        person = seat
    if person is None:
        person = next((s for s, level in enumerate(table.seats) if level is None), 0)
    return table, person


def save_record(table: Table, person: int) -> Record:
    """Return the table's record with what resuming it needs (the person's seat)."""
    record = table.record()
    info = record.extra.setdefault("table", {})
    info["steps"] = table._steps
    record.extra["play"] = {"seat": person}
    return record


def default_save_name(now: datetime.datetime | None = None) -> str:
    """Return ``quintet-YYYYMMDD-HHMMSS.json``."""
    now = now or datetime.datetime.now()
    return f"quintet-{now:%Y%m%d-%H%M%S}.json"


# ------------------------------------------------------------------------ the screen


@dataclass
class Cursor:
    """Where the keyboard cursor is: on a card of a hand, or on a choice button."""

    kind: str  # "card" or "choice"
    value: int  # the card, or the choice's index


class TableScreen(Screen[None]):
    """The table: seats, the trick, the person's hands, decisions, score and log."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "confirm", "Play/choose", priority=True),
        Binding("left", "move(-1)", "Move", show=False),
        Binding("right", "move(1)", "Move", show=False),
        Binding("up", "bid(2)", "Bid +2", show=False),
        Binding("down", "bid(-2)", "Bid −2", show=False),
        Binding("h", "hint", "Hint"),
        Binding("u", "undo", "Undo"),
        Binding("l", "last_trick", "Last trick"),
        Binding("t", "sheet", "Score sheet"),
        Binding("s", "save", "Save"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit_game", "Quit"),
    ]

    DEFAULT_CSS = """
    TableScreen {
        background: #0b3d2e;
    }
    TableScreen #body {
        height: 1fr;
    }
    TableScreen #main {
        width: 1fr;
        min-width: 62;
    }
    TableScreen #side {
        width: 38;
    }
    TableScreen #info {
        height: auto;
    }
    TableScreen #log {
        height: 1fr;
    }
    TableScreen Grid {
        grid-size: 3 3;
        grid-columns: 1fr 1fr 1fr;
        grid-rows: 1fr 1fr 1fr;
        height: 1fr;
        min-height: 9;
        max-height: 21;
    }
    TableScreen #choices {
        height: 1;
        margin-top: 1;
    }
    TableScreen #prompt {
        height: auto;
        color: $text;
        text-style: italic;
    }
    TableScreen #status {
        height: auto;
        min-height: 1;
    }
    TableScreen #status.error {
        color: $error;
        text-style: bold;
    }
    TableScreen #status.good {
        color: $success;
    }
    """

    def __init__(self, table: Table, person: int) -> None:
        super().__init__()
        self.table = table
        self.person = person
        n = table.num_seats
        self.seat_boxes = {s: SeatBox(id=f"seat-{s}") for s in range(n)}
        self.trick_box = TrickBox(id="trick")
        size = find_game(table.game).hand_size
        self.rows = [HandRow(0, size), HandRow(1, size)]
        self.choice_buttons = [ChoiceButton(i) for i in range(6)]
        self.view: TableView | None = None
        self.cursor: Cursor | None = None
        self.bid_wanted: int | None = None
        self.card_keys: dict[str, tuple[int, Card]] = {}
        self.status_text: Text = Text()
        self.prompt = Painted("", id="prompt")
        self.status = Painted("", id="status")
        self.info = Panel("Score", id="info")
        self.log_panel = LogPanel("Play", id="log")

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="body"):
            with Vertical(id="main"):
                yield self.rows[0]
                with Grid(id="grid"):
                    yield from self._grid_cells()
                yield self.rows[1]
                with Horizontal(id="choices"):
                    yield from self.choice_buttons
                yield self.prompt
                yield self.status
            with Vertical(id="side"):
                yield self.info
                yield self.log_panel
        yield Footer()

    def _grid_cells(self) -> list[Static]:
        by_slot = {}
        n = self.table.num_seats
        for s in range(n):
            by_slot[(s - self.person) % n] = self.seat_boxes[s]
        if n == 4:
            return [
                Static(),
                by_slot[2],
                Static(),
                by_slot[1],
                self.trick_box,
                by_slot[3],
                Static(),
                by_slot[0],
                Static(),
            ]
        self.trick_box.styles.row_span = 2
        return [
            by_slot[2],
            self.trick_box,
            by_slot[3],
            by_slot[1],
            by_slot[4],
            Static(),
            by_slot[0],
        ]

    @property
    def play_app(self) -> PlayApp:
        """The app this screen belongs to."""
        app = self.app
        assert isinstance(app, PlayApp)
        return app

    def on_mount(self) -> None:
        self.play_app.begin()

    # ----------------------------------------------------------------- drawing

    def refresh_view(self) -> None:
        """Draw the table again from the person's observation."""
        if self.play_app.busy:
            return
        view = build_view(self.table, self.person, self.bid_wanted)
        if self.view is None or view.key != self.view.key:
            self.bid_wanted = None
            view = build_view(self.table, self.person, None)
            self.view = view
            self.cursor = self._default_cursor(view)
        self.view = view
        self.paint()

    def paint(self) -> None:
        """Draw the current view (also after moving the cursor)."""
        view = self.view
        if view is None:
            return
        app = self.play_app
        app.title = view.title
        app.sub_title = f"you: {seat_label(view.game, view.person)}"
        for sv in view.seats:
            self.seat_boxes[sv.seat].show(sv)
        self.trick_box.show(view.trick_title, view.trick, view.names)
        rows = view.hands
        top = rows[0] if len(rows) > 1 else None
        bottom = rows[-1] if rows else None
        self.card_keys = {}
        for widget, hv in ((self.rows[0], top), (self.rows[1], bottom)):
            keys: dict[Card, str] = {}
            if hv is not None and hv.active:
                for i, c in enumerate(hv.cards):
                    keys[c] = CARD_KEYS[i]
                    self.card_keys[CARD_KEYS[i]] = (hv.seat, c)
            cur = self.cursor
            cursor_card = (
                cur.value
                if cur is not None and cur.kind == "card" and hv is not None and hv.active
                else None
            )
            legal = view.legal.get(hv.seat, set()) if hv is not None else set()
            widget.show(hv, legal, keys, cursor_card)
        digit = 0
        for i, button in enumerate(self.choice_buttons):
            choice = view.choices[i] if i < len(view.choices) else None
            key = ""
            if choice is not None and choice.kind == "act":
                digit += 1
                key = str(digit)
            is_cursor = self.cursor == Cursor("choice", i)
            button.show(choice, key, is_cursor)
        self.prompt.paint(view.prompt)
        self.status.paint(self.status_text)
        self.info.paint(view.info)
        self.log_panel.show_lines(view.log)

    def say(self, text: str | Text, kind: str = "") -> None:
        """Show a message in the status line (``error``: in red)."""
        self.status_text = text if isinstance(text, Text) else Text(text)
        self.status.restyle(kind)
        self.status.paint(self.status_text)

    # ----------------------------------------------------------------- cursor

    def _items(self) -> list[Cursor]:
        view = self.view
        if view is None:
            return []
        items: list[Cursor] = []
        for hv in view.hands:
            if hv.active:
                items.extend(Cursor("card", c) for c in hv.cards)
        items.extend(Cursor("choice", i) for i in range(len(view.choices)))
        return items

    def _default_cursor(self, view: TableView) -> Cursor | None:
        for hv in view.hands:
            if hv.active:
                legal = view.legal.get(hv.seat, set())
                for c in hv.cards:
                    if c in legal:
                        return Cursor("card", c)
        for i, ch in enumerate(view.choices):
            if ch.kind == "act" and ch.legal:
                return Cursor("choice", i)
        for hv in view.hands:
            if hv.active and hv.cards:
                return Cursor("card", hv.cards[0])
        return None

    def action_move(self, step: int) -> None:
        items = self._items()
        if not items:
            return
        i = items.index(self.cursor) if self.cursor in items else -1
        self.cursor = items[(i + step) % len(items)]
        self.paint()

    def action_bid(self, step: int) -> None:
        view = self.view
        if view is None or view.phase != "auction" or view.decision is None:
            return
        current = next((c for c in view.choices if is_bid(c.action) and c.kind == "act"), None)
        if current is None:
            return
        amount = min(max(bid_amount(current.action) + step, 30), 120)
        self.bid_wanted = amount
        self.view = build_view(self.table, self.person, amount)
        self.paint()

    def on_key(self, event: Key) -> None:
        char = event.character or ""
        view = self.view
        if view is None:
            return
        if char in self.card_keys:
            event.stop()
            _, card = self.card_keys[char]
            self.cursor = Cursor("card", card)
            self.paint()
            return
        if char.isdigit() and char != "0":
            event.stop()
            acts = [i for i, c in enumerate(view.choices) if c.kind == "act"]
            k = int(char) - 1
            if k < len(acts):
                self.cursor = Cursor("choice", acts[k])
            else:  # no such button now (say, no Redouble when nobody may redouble)
                self.cursor = None
                there = f"1-{len(acts)}" if len(acts) > 1 else "1" if acts else "none"
                self.say(f"There is no choice {char} now ({there}).", "error")
            self.paint()
            return
        if char in ("+", "="):
            event.stop()
            self.action_bid(2)
        elif char == "-":
            event.stop()
            self.action_bid(-2)

    # ---------------------------------------------------------------- acting

    def action_confirm(self) -> None:
        """Take the action under the cursor (Enter); after a hand, deal the next one."""
        view = self.view
        if view is None:
            return
        if view.hand_over:
            self.play_app.next_hand()
            return
        cur = self.cursor
        if cur is None:
            self.say("Nothing to choose here yet.", "error")
            return
        if cur.kind == "card":
            seat = next((hv.seat for hv in view.hands if cur.value in hv.cards), self.person)
            self.play_app.person_acts(seat, cur.value)
        else:
            self.choose(cur.value)

    def choose(self, index: int) -> None:
        """Take the choice at ``index`` (or change the bid)."""
        view = self.view
        if view is None or index >= len(view.choices):
            return
        choice: ChoiceView = view.choices[index]
        if choice.kind == "down":
            self.action_bid(-2)
            return
        if choice.kind == "up":
            self.action_bid(2)
            return
        self.cursor = Cursor("choice", index)
        self.play_app.person_acts(view.choice_seat, choice.action)

    def on_card_widget_clicked(self, message: CardWidget.Clicked) -> None:
        self.cursor = Cursor("card", message.card)
        self.play_app.person_acts(message.seat, message.card)

    def on_choice_button_clicked(self, message: ChoiceButton.Clicked) -> None:
        self.choose(message.index)

    def point_at(self, action: Action) -> None:
        """Move the cursor to where ``action`` is taken (after a hint)."""
        view = self.view
        if view is None:
            return
        if is_play(action):
            self.cursor = Cursor("card", action)
        elif is_bid(action):
            self.bid_wanted = bid_amount(action)
            self.view = view = build_view(self.table, self.person, self.bid_wanted)
            i = next(i for i, c in enumerate(view.choices) if c.kind == "act" and is_bid(c.action))
            self.cursor = Cursor("choice", i)
        else:
            for i, c in enumerate(view.choices):
                if c.kind == "act" and c.action == action:
                    self.cursor = Cursor("choice", i)
        self.paint()

    # ------------------------------------------------------------ commands

    def action_hint(self) -> None:
        self.play_app.hint()

    def action_undo(self) -> None:
        self.play_app.undo()

    def action_last_trick(self) -> None:
        self.play_app.show_last_trick()

    def action_sheet(self) -> None:
        self.play_app.show_sheet()

    def action_save(self) -> None:
        self.play_app.ask_save()

    def action_help(self) -> None:
        self.play_app.show_help()

    def action_quit_game(self) -> None:
        self.play_app.ask_quit()


# ----------------------------------------------------------------------------- the app

HELP = """\
Keys
  a b c … (letters)   select a card of the hand you play from (the letter above it)
  ← →                 move between cards and buttons
  1 2 3 …             select a button (pass, double, bid, trump, nil, meld, signals)
  − + or ↓ ↑          lower or raise your bid in the auction
  Enter               play the card or take the choice selected; after a hand, deal
  h                   hint: what the bot would do in your place
  u                   undo back to your previous decision in this hand
  l                   the last trick (and every trick of the hand)
  t                   the score sheet
  s                   save the game as a record (quintet play --resume FILE)
  q                   quit
Mouse
  Click a card to play it, a button to choose it.
A choice the rules forbid is refused, with the reason, and nothing changes."""


class PlayApp(App[None]):
    """A person at a table of bots: ``PlayApp(table, seat).run()``."""

    TITLE = "quintet"

    def __init__(
        self,
        table: Table,
        person: int,
        pace: float = 0.4,
        hint_level: str = HINT_LEVEL,
        save_path: str | None = None,
        clock: Callable[[], datetime.datetime] | None = None,
    ) -> None:
        super().__init__()
        self.table = table
        self.person = person
        self.pace = pace
        self.hint_level = hint_level
        self.save_path = save_path
        self.clock = clock or datetime.datetime.now
        self.busy = False
        self.hinting = False
        self.paced_steps = 0
        self.saved_to: str | None = None
        self.dirty = False
        self._timer: Timer | None = None
        self._summary_for = -1
        self.screen_table = TableScreen(table, person)

    def get_default_screen(self) -> Screen[Any]:
        return self.screen_table

    def begin(self) -> None:
        """Start play once the table is on the screen (bots act if it is their turn)."""
        if self.table.state is None:
            self.table.deal()
        self.screen_table.refresh_view()
        if self.table.hand_over():
            self.hand_finished()
        elif not self.table.person_to_act():
            # When the person is to act, the bots have had their turn (a saved game was
            # saved after they acted): letting them look again would change their draws.
            self.start_bots()

    # ------------------------------------------------------------------- bots

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def start_bots(self) -> None:
        """Let the bots act: at once with pace 0, else one step per ``pace`` seconds."""
        self._stop_timer()
        if self.table.hand_over():
            self.hand_finished()
            return
        if self.pace <= 0:
            done = self.table.run_bots()
            if done:
                self.dirty = True
            self.screen_table.refresh_view()
            if self.table.hand_over():
                self.hand_finished()
            return
        delay = 0.0 if self.table.person_to_act() else self.pace
        self._timer = self.set_timer(delay, self._bot_tick)

    def _bot_tick(self) -> None:
        self._timer = None
        if self.busy:
            return
        if self.table.hand_over():
            self.hand_finished()
            return
        self.busy = True
        self.run_worker(self._bot_thread, thread=True, group="bots", exclusive=False)

    def _bot_thread(self) -> None:
        before = self.table.state.tricks_played
        step = self.table.bot_step()
        self.call_from_thread(self._bot_done, step, self.table.state.tricks_played > before)

    def _bot_done(self, step: list[tuple[int, Action]], trick_done: bool) -> None:
        self.busy = False
        self.paced_steps += 1
        if step:
            self.dirty = True
        self.screen_table.refresh_view()
        if self.table.hand_over():
            self.hand_finished()
            return
        if not step or self.table.person_to_act():
            return
        delay = self.pace * (3 if trick_done else 1)
        self._timer = self.set_timer(delay, self._bot_tick)

    def bots_waiting(self) -> bool:
        """Return whether a bot is about to act or thinking (paced play)."""
        return self.busy or self._timer is not None

    def _wait_message(self) -> bool:
        if self.busy:
            self.screen_table.say("One moment: a bot is thinking.", "error")
            return True
        return False

    # ----------------------------------------------------------------- acting

    def person_acts(self, seat: int, action: Action) -> bool:
        """Take the person's ``action`` for ``seat`` if the rules allow it; else say why."""
        screen = self.screen_table
        if self._wait_message():
            return False
        if self.table.hand_over():
            screen.say("The hand is over: Enter deals the next one.", "error")
            return False
        try:
            self.table.act(seat, action)
        except (IllegalActionError, InvalidActionError) as e:
            msg = Text("Not allowed: ", style="bold")
            msg.append(str(e))
            screen.say(msg, "error")
            return False
        self.dirty = True
        done = Text("You: ")
        done.append_text(describe_action(self.table.game, action))
        screen.say(done, "good")
        screen.refresh_view()
        self.start_bots()
        return True

    def hint(self) -> None:
        """Show (and point at) what the hint bot would do for the person's decision.

        With a pace (interactive play) the hint is worked out on a thread, as the bots'
        moves are, so the screen stays live while a search bot thinks (``pimc``: a CPU
        second); a hint the table has moved past meanwhile is dropped. With pace 0 it is
        worked out at once.
        """
        screen = self.screen_table
        view = screen.view
        if self._wait_message() or view is None:
            return
        if self.hinting:
            screen.say("One moment: the hint is being worked out.", "error")
            return
        level = self.hint_level
        if view.decision is not None:
            seat = view.decision
        elif any(is_signal(a) for a in view.legal.get(self.person, set())):
            seat = self.person
        else:
            screen.say("Nothing for you to decide now.", "error")
            return
        try:
            task = self.table.explain_task(seat, level)
            signal_only = view.decision is None
            point = self._hint_point()
            if self.pace <= 0:
                self._show_hint(point, level, signal_only, *task())
                return
        except (IllegalActionError, InvalidOptionError) as e:
            screen.say(str(e), "error")
            return
        self.hinting = True
        screen.say(f"Hint ({level}): thinking...", "good")
        self.run_worker(
            lambda: self._hint_thread(task, point, level, signal_only),
            thread=True,
            group="hint",
            exclusive=False,
        )

    def _hint_point(self) -> tuple[int, int, int]:
        """Return where the table is (a hint worked out elsewhere holds only here)."""
        state = self.table.state
        hands = len(self.table.match.hands)
        return hands, len(state.history()) if state is not None else -1, id(state)

    def _hint_thread(
        self,
        task: Callable[[], tuple[Action | None, str | None]],
        point: tuple[int, int, int],
        level: str,
        signal_only: bool,
    ) -> None:
        try:
            action, reason = task()
        except Exception as e:  # a bot's failure is said, never fatal to the screen
            self.call_from_thread(self._hint_failed, f"Hint ({level}) failed: {e}")
            return
        self.call_from_thread(self._show_hint, point, level, signal_only, action, reason)

    def _hint_failed(self, text: str) -> None:
        self.hinting = False
        self.screen_table.say(text, "error")

    def _show_hint(
        self,
        point: tuple[int, int, int],
        level: str,
        signal_only: bool,
        action: Action | None,
        reason: str | None = None,
    ) -> None:
        self.hinting = False
        screen = self.screen_table
        if point != self._hint_point():
            return  # the table moved on while the hint was worked out
        if action is None:
            text = "no signal now." if signal_only else "nothing to do"
            screen.say(f"Hint ({level}): {text}", "good")
            return
        msg = Text(f"Hint ({level}): ")
        msg.append_text(describe_action(self.table.game, action))
        if reason:
            msg.append(f": {reason}.")
        screen.say(msg, "good")
        screen.point_at(action)

    def undo(self) -> None:
        """Take back everything since the person's previous decision in this hand."""
        screen = self.screen_table
        if self._wait_message():
            return
        self._stop_timer()
        n = self.table.undo(self.person)
        if n == 0:
            screen.say("Nothing of yours to take back in this hand.", "error")
            return
        self.dirty = True
        self._summary_for = -1
        screen.say(f"Took back {n} action{'s' if n > 1 else ''}: your decision again.", "good")
        screen.view = None
        screen.refresh_view()
        if not self.table.person_to_act():
            self.start_bots()

    def next_hand(self) -> None:
        """Deal the next hand (after a finished one)."""
        screen = self.screen_table
        if self._wait_message():
            return
        if self.table.match_over():
            screen.say("The match is over: t for the score sheet, s to save, q to quit.")
            return
        if not self.table.hand_over():
            return
        self.table.deal()
        self.dirty = True
        screen.say("A new hand is dealt.", "good")
        screen.refresh_view()
        self.start_bots()

    # ---------------------------------------------------------------- pages

    def hand_finished(self) -> None:
        """Show the end-of-hand summary (once per hand)."""
        n = len(self.table.match.hands)
        if self._summary_for == n:
            return
        self._summary_for = n
        self.screen_table.refresh_view()
        over = self.table.match_over()
        keys = [("enter", "Enter next hand" if not over else "Enter close")]
        keys += [("t", "t score sheet"), ("s", "s save"), ("q", "q quit"), ("escape", "Esc table")]
        title = "Match over" if over else f"Hand {n} over"
        self.push_screen(
            TextScreen(title, self.summary_text(), keys, name="summary"), self._summary_done
        )

    def _summary_done(self, key: str | None) -> None:
        if key == "enter":
            if not self.table.match_over():
                self.next_hand()
        elif key == "t":
            self.show_sheet(then_summary=True)
        elif key == "s":
            self.ask_save(then_summary=True)
        elif key == "q":
            self.ask_quit()

    def _reopen_summary(self, *_: object) -> None:
        self._summary_for = -1
        self.hand_finished()

    def summary_text(self) -> Text:
        """Return the end-of-hand summary (the match's result when it is over)."""
        state: GameState = self.table.state
        obs = state.observation(self.person)
        return _SUMMARIES[type(state)](self.table, state, obs)

    def show_sheet(self, then_summary: bool = False) -> None:
        """Show the score sheet (the Quinto rubber sheet or the Quintus ledger)."""
        if self._wait_message():
            return
        body = Text(sheet(self.table.match))
        title = find_game(self.table.game).sheet_title
        done = self._reopen_summary if then_summary else None
        self.push_screen(TextScreen(title, body, name="sheet"), done)

    def show_last_trick(self) -> None:
        """Show the last trick played, and the hand's earlier tricks."""
        view = self.screen_table.view
        if self._wait_message() or view is None:
            return
        if not view.tricks:
            self.screen_table.say("No trick has been played yet in this hand.", "error")
            return
        out = Text()
        last = view.tricks[-1]
        for seat, c in last.plays:
            out.append(f"  {view.names[seat]:<16}")
            out.append_text(cards_text([c]))
            if seat == last.winner:
                out.append("  wins", style="bold green")
            out.append("\n")
        if len(view.tricks) > 1:
            out.append("\nThe hand's tricks\n", style="bold")
            for t in view.tricks:
                out.append(f"  {t.number:>2}. ")
                out.append_text(cards_text([c for _, c in t.plays]))
                who = view.names[t.winner] if t.winner is not None else "?"
                out.append(f"  → {who}\n")
        self.push_screen(TextScreen(f"Trick {last.number}", out, name="last-trick"))

    def show_help(self) -> None:
        """Show the keys."""
        self.push_screen(TextScreen("How to play", Text(HELP), name="help"))

    def ask_save(self, then_summary: bool = False) -> None:
        """Ask for a path and save the game there."""
        if self._wait_message():
            return
        default = self.save_path or self.saved_to or default_save_name(self.clock())

        def done(path: str | None) -> None:
            if path:
                self.save(path)
            if then_summary:
                self._reopen_summary()

        self.push_screen(SaveScreen(default), done)

    def save(self, path: str) -> bool:
        """Write the game's record to ``path``; report it in the status line."""
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(dumps(save_record(self.table, self.person)) + "\n")
        except OSError as e:
            self.screen_table.say(f"Could not save to {path}: {e.strerror}", "error")
            return False
        self.saved_to = path
        self.dirty = False
        self.screen_table.say(f"Saved to {path} (quintet play --resume {path}).", "good")
        return True

    def ask_quit(self) -> None:
        """Quit, asking first when there is unsaved play."""
        if not self.dirty:
            self.exit()
            return
        keys = [("y", "y quit"), ("s", "s save and quit"), ("escape", "Esc stay")]
        body = Text("The game has changed since it was last saved.")
        self.push_screen(TextScreen("Quit?", body, keys, name="quit"), self._quit_done)

    def _quit_done(self, key: str | None) -> None:
        if key == "y":
            self.exit()
        elif key == "s":
            path = self.save_path or self.saved_to or default_save_name(self.clock())
            if self.save(path):
                self.exit(message=f"Saved to {path}")


def run_play(
    table: Table,
    person: int,
    pace: float = 0.4,
    hint_level: str = HINT_LEVEL,
    save_path: str | None = None,
) -> None:
    """Run the table in the terminal until the person quits."""
    PlayApp(table, person, pace=pace, hint_level=hint_level, save_path=save_path).run()


def _quinto_summary(table: Table, state: QuintoState, obs: QuintoObservation) -> Text:
    """Return a Quinto hand's summary: quints, tricks, the score, the game and rubber."""
    out = Text()
    s = hand_summary(state)
    m = obs.multiplier
    dbl = {1: "not doubled", 2: "doubled", 4: "redoubled"}[m]
    out.append(f"Dealer {seat_label('quinto', obs.dealer)} · {dbl}\n\n")
    out.append(f"{'':<20}{SIDE_NAMES[0]:>8}{SIDE_NAMES[1]:>8}\n", style="bold")
    q, tp, won = s["quints"], s["tricks"], s["won"]
    out.append(f"{'Quints':<20}{q[0]:>8}{q[1]:>8}\n")
    if tp != (0, 0):
        label = f"Tricks {won[0]}-{won[1]} at {5 * m}"
        out.append(f"{label:<20}{tp[0]:>8}{tp[1]:>8}\n")
    else:
        out.append("Tricks not counted: the game ended on a quint\n")
    hp = (obs.score[0] - obs.start_score[0], obs.score[1] - obs.start_score[1])
    out.append(f"{'This hand':<20}{hp[0]:>8}{hp[1]:>8}\n")
    out.append(f"{'Game score':<20}{obs.score[0]:>8}{obs.score[1]:>8}\n", style="bold")
    if obs.cachette is not None:
        out.append("Cachette: ")
        out.append_text(cards_text(obs.cachette))
        out.append("\n")
    if obs.game_winner is not None:
        w = obs.game_winner
        out.append(
            f"\nGame to {SIDE_NAMES[w]}, {obs.score[w]} to {obs.score[1 - w]}.\n",
            style="bold green",
        )
    elif state.tied:
        out.append("\nA tie at or past the target: another hand is played.\n")
    else:
        out.append(f"\nThe game goes on: first side to {obs.target}.\n")
    match: Any = table.match
    if obs.lone_seat is None:
        won_games = match.games_won()
        out.append(f"Games won: {SIDE_NAMES[0]} {won_games[0]}, {SIDE_NAMES[1]} {won_games[1]}\n")
        rs = match.rubber_score()
        w = match.winner()
        if rs is not None and w is not None:
            out.append(
                f"Rubber to {SIDE_NAMES[w]} (+{match.rules.rubber_bonus}): "
                f"{SIDE_NAMES[0]} {rs[0]}, {SIDE_NAMES[1]} {rs[1]}\n",
                style="bold green",
            )
    return out


def _quintus_summary(table: Table, state: QuintusState, obs: QuintusObservation) -> Text:
    """Return a Quintus hand's summary: the contract, card points, scores and totals."""
    out = Text()
    if obs.void:
        out.append("All five passed: the hand is void, and the same dealer deals again.\n")
        return out
    q = obs.quintus
    assert q is not None, "a finished hand that is not void has its quintus"
    out.append(f"Dealer Seat {obs.dealer} · quintus Seat {q} · trump ")
    out.append_text(trump_label(obs.trump))
    if obs.nil and obs.nil != "none":
        failed = state.nil_failed
        out.append(f" · {obs.nil} nil {'failed' if failed else 'made'}")
    out.append("\n")
    if obs.contract is not None:
        made = state.made()
        out.append(
            f"Contract {obs.contract} {'made' if made else 'failed'}\n",
            style="bold green" if made else "bold red",
        )
    qp, ta, tb = obs.points
    a = ((q + 1) % 5, (q + 3) % 5)
    b = ((q + 2) % 5, (q + 4) % 5)
    out.append(
        f"Card points: quintus {qp} · Seats {a[0]} and {a[1]} {ta}"
        f" · Seats {b[0]} and {b[1]} {tb}\n\n"
    )
    head = "".join(f"{'Seat ' + str(s):>9}" for s in range(5))
    out.append(f"{'':<12}{head}\n", style="bold")
    out.append(f"{'This hand':<12}" + "".join(f"{x:>9}" for x in state.scores()) + "\n")
    match: Any = table.match
    totals = match.totals()
    out.append(f"{'Totals':<12}" + "".join(f"{x:>9}" for x in totals) + "\n", style="bold")
    out.append(f"\n{match.hands_played()} of {match.rules.hands} hands played.\n")
    if match.is_over():
        best = match.winners()
        out.append(
            "Session won by " + " and ".join(f"Seat {s}" for s in best) + "\n",
            style="bold green",
        )
    return out


#: Each game's end-of-hand summary, by its state class.
_SUMMARIES: Final[dict[type, Callable[[Table, Any, Any], Text]]] = {
    QuintoState: _quinto_summary,
    QuintusState: _quintus_summary,
}
