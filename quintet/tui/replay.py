"""``quintet replay``: step through a record with every hand visible, with double-dummy
values of the cards played.

Every hand of a replay is shown (that is what a replay is for). The double-dummy
values of the cards that could be played at a point come from the solver, in a worker
thread so the screen never waits: every card play of every trick is solved as it is
shown, or when asked for (``a``), each under
a node limit; a position the solver gives up on reads "not solved".
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Click
from textual.message import Message
from textual.widgets import Footer, Header, Static

from quintet.actions import Action, is_play
from quintet.game import Event, GameState
from quintet.games import find_game, game_of
from quintet.quinto import QuintoObservation, QuintoState
from quintet.quinto.rules import SIDE_NAMES
from quintet.quintus import QuintusObservation, QuintusState
from quintet.record import Match, Record, replay
from quintet.sheets import sheet
from quintet.solver import SolverLimitError
from quintet.tui.model import finished_tricks, seat_names
from quintet.tui.render import card_text, cards_text, event_line, hand_order, trump_label
from quintet.tui.screens import TextScreen
from quintet.tui.widgets import LogPanel, Panel

__all__ = ["Analysis", "ReplayApp"]

#: The solver gives up after this many nodes (about half a second on a 2-core machine).
DEFAULT_MAX_NODES = 40_000_000


@dataclass
class Analysis:
    """The double-dummy values at one point: per card, or why there are none."""

    values: dict[Action, int] | None
    note: str = ""


class StepButton(Static):
    """A replay control; a click runs its action."""

    DEFAULT_CSS = """
    StepButton {
        width: auto;
        height: 1;
        padding: 0 1;
        margin-right: 1;
        background: $primary-darken-1;
    }
    """

    class Pressed(Message):
        """A control was clicked."""

        def __init__(self, action: str) -> None:
            self.action = action
            super().__init__()

    def __init__(self, label: str, action: str) -> None:
        super().__init__(label, id=f"step-{action.replace('(', '-').rstrip(')')}")
        self.action = action

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Pressed(self.action))


class ReplayApp(App[None]):
    """Step through a record: ``ReplayApp(record).run()``."""

    TITLE = "quintet replay"
    CSS = """
    #replay {
        background: #0b3d2e;
    }
    #main {
        width: 1fr;
    }
    #side {
        width: 40;
    }
    #hands {
        height: auto;
    }
    #trick {
        height: auto;
    }
    #info {
        height: auto;
    }
    #moves {
        height: 1fr;
    }
    #analysis {
        height: auto;
        min-height: 8;
    }
    #controls {
        height: 1;
        margin-top: 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right", "step(1)", "Next"),
        Binding("left", "step(-1)", "Back"),
        Binding("down", "trick(1)", "Next trick"),
        Binding("up", "trick(-1)", "Trick back"),
        Binding("right_square_bracket", "hand(1)", "Next hand"),
        Binding("left_square_bracket", "hand(-1)", "Hand back"),
        Binding("home", "ends(0)", "Start", show=False),
        Binding("end", "ends(1)", "End", show=False),
        Binding("space", "step(1)", "Next", show=False),
        Binding("a", "analyse", "Analyse"),
        Binding("t", "sheet", "Sheet"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(
        self,
        record: Record,
        analysis: bool = True,
        max_nodes: int = DEFAULT_MAX_NODES,
        hand: int = 0,
    ) -> None:
        super().__init__()
        self.record = record
        self.match: Match = replay(record)
        played: Sequence[GameState] = self.match.hands
        self.finals: list[GameState] = list(played)
        self.analysis_on = analysis
        self.max_nodes = max_nodes
        self.hand = min(max(hand, 0), max(len(self.finals) - 1, 0))
        self.at = 0
        self.results: dict[tuple[int, int], Analysis] = {}
        self.solving: tuple[int, int] | None = None
        self.asked: set[tuple[int, int]] = set()
        self._lock = threading.Lock()
        self.hands_panel = Panel("Hands", id="hands")
        self.trick_panel = Panel("Trick", id="trick")
        self.info_panel = Panel("Score", id="info")
        self.moves_panel = LogPanel("Moves", id="moves")
        self.analysis_panel = Panel("Double-dummy", id="analysis")

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Horizontal(id="replay"):
            with Vertical(id="main"):
                yield self.hands_panel
                yield self.trick_panel
                yield self.info_panel
                with Horizontal(id="controls"):
                    yield StepButton("◀ hand", "hand(-1)")
                    yield StepButton("◀ trick", "trick(-1)")
                    yield StepButton("◀ back", "step(-1)")
                    yield StepButton("next ▶", "step(1)")
                    yield StepButton("trick ▶", "trick(1)")
                    yield StepButton("hand ▶", "hand(1)")
                    yield StepButton("analyse", "analyse")
            with Vertical(id="side"):
                yield self.moves_panel
                yield self.analysis_panel
        yield Footer()

    def on_mount(self) -> None:
        self.show()

    # --------------------------------------------------------------- position

    def history(self) -> list[tuple[int, Action]]:
        """Return the actions of the hand shown."""
        if not self.finals:
            return []
        return list(self.finals[self.hand].history())

    def state(self) -> GameState:
        """Return the hand shown, before action ``at``."""
        final = self.finals[self.hand]
        st = final.snapshot()
        for seat, a in final.history()[: self.at]:
            st.apply_action(a, seat)
        return st

    def action_step(self, n: int) -> None:
        self.at = min(max(self.at + n, 0), len(self.history()))
        self.show()

    def action_trick(self, n: int) -> None:
        """Go to the next (or previous) trick's lead."""
        hist = self.history()
        size = game_of(self.record).num_seats
        leads = {0, len(hist)}
        plays = 0
        for i, (_, a) in enumerate(hist):
            if is_play(a):
                if plays % size == 0:
                    leads.add(i)  # the lead of a trick
                plays += 1
        starts = sorted(leads)
        if n > 0:
            later = [s for s in starts if s > self.at]
            self.at = later[0] if later else len(hist)
        else:
            earlier = [s for s in starts if s < self.at]
            self.at = earlier[-1] if earlier else 0
        self.show()

    def action_hand(self, n: int) -> None:
        if not self.finals:
            return
        self.hand = min(max(self.hand + n, 0), len(self.finals) - 1)
        self.at = 0
        self.show()

    def action_ends(self, end: int) -> None:
        self.at = len(self.history()) if end else 0
        self.show()

    async def on_step_button_pressed(self, message: StepButton.Pressed) -> None:
        await self.run_action(message.action)

    def action_sheet(self) -> None:
        title = game_of(self.record).sheet_title
        self.push_screen(TextScreen(title, Text(sheet(self.match)), name="sheet"))

    # --------------------------------------------------------------- drawing

    def show(self) -> None:
        """Draw the position."""
        if not self.finals:
            self.hands_panel.paint("The record has no hands.")
            return
        st = self.state()
        game = self.record.game
        hist = self.history()
        names = seat_names(game, st.observation(0))
        self.title = (
            f"Replay · {game} {self.record.variant} · hand {self.hand + 1}/{len(self.finals)}"
            + (f" · move {self.at + 1} of {len(hist)}" if self.at < len(hist) else " · end")
        )
        obs = st.observation(0)
        trump = getattr(obs, "trump", None)
        first = "SCDH".index(trump) if trump in ("S", "C", "D", "H") else None
        nxt = hist[self.at] if self.at < len(hist) else None
        hands = Text()
        for s in range(st.num_seats):
            marker = "▶ " if st.current_player() == s else "  "
            hands.append(marker, style="bold yellow")
            hands.append(f"{names[s]:<14}", style="bold" if marker.strip() else "")
            for c in hand_order(st.hands[s], first):
                t = card_text(c)
                if nxt is not None and nxt[0] == s and nxt[1] == c:
                    t.stylize("reverse")
                hands.append_text(t)
                hands.append(" ")
            hands.append("\n")
        cachette = getattr(st, "cachette", None)
        if cachette:
            taken = getattr(st, "cachette_side", None) is not None
            hands.append(f"  {'Cachette':<14}", style="dim")
            hands.append_text(cards_text(cachette))
            hands.append("  (taken)\n" if taken else "\n", style="dim")
        self.hands_panel.paint(hands)
        self.trick_panel.border_title = "Trick"
        self.trick_panel.paint(self._trick_text(st, names))
        self.info_panel.paint(self._info_text(st))
        lines = self._moves_lines(st, hist, names)
        focus = next((i for i, t in enumerate(lines) if t.plain.startswith("▶")), 0)
        self.moves_panel.show_lines(lines, focus)
        self.analysis_panel.paint(self._analysis_text(st, nxt))
        self._maybe_solve(st, nxt)

    def _trick_text(self, st: GameState, names: list[str]) -> Text:
        out = Text()
        obs = st.observation(0)
        trick = list(obs.trick)
        title = f"Trick {obs.tricks_played + 1}"
        if not trick:
            done = finished_tricks(st.game, tuple(obs.history), st.events())
            if done and obs.phase in ("play", "meld", "over"):
                last = done[-1]
                trick = last.plays
                who = names[last.winner] if last.winner is not None else "?"
                title = f"Trick {last.number} won by {who}"
        self.trick_panel.border_title = title
        if not trick:
            out.append(f"{obs.phase}", style="dim")
        for i, (seat, c) in enumerate(trick):
            if i:
                out.append("   ")
            out.append(f"{names[seat]} ")
            out.append_text(card_text(c))
        return out

    def _info_text(self, st: GameState) -> Text:
        return _INFO_LINES[type(st)](st.observation(0))

    def _moves_lines(
        self, st: GameState, hist: list[tuple[int, Action]], names: list[str]
    ) -> list[Text]:
        events = [e for e in self.finals[self.hand].events() if e.kind != "action"]
        lines: list[Text] = []
        game = st.game
        size = find_game(game).num_seats
        plays = 0
        for i, (seat, a) in enumerate(hist):
            mark = "▶" if i == self.at else " "
            line = Text(f"{mark}{i + 1:>3}. ", style="bold yellow" if i == self.at else "dim")
            line.append_text(_action_line(game, seat, a, names))
            note = self.results.get((self.hand, i))
            if note is not None and note.values and a in note.values:
                cost = _cost(self.finals[self.hand], seat, a, note.values)
                if cost:
                    line.append(f"  −{cost}", style="bold red")
            lines.append(line)
            if is_play(a):
                plays += 1
                if plays % size == 0:
                    k = plays // size - 1
                    tricks = [e for e in events if e.kind == "trick"]
                    if k < len(tricks):
                        lines.append(
                            Text("      ", style="dim") + event_line(game, tricks[k], names)
                        )
        if self.at == len(hist):
            lines.append(Text("▶ end of the hand", style="bold yellow"))
        return lines

    # -------------------------------------------------------------- analysis

    # ``st: Any`` here, in _solve and in _cost: it goes to the game's solver
    # (QuintoSolver | QuintusSolver), whose methods each take their own engine's state.
    def _analysis_text(self, st: Any, nxt: tuple[int, Action] | None) -> Text:
        out = Text()
        if nxt is None or not is_play(nxt[1]):
            out.append("No card is played at this point.", style="dim")
            return out
        key = (self.hand, self.at)
        res = self.results.get(key)
        if res is None:
            if self.solving == key:
                out.append("solving…", style="italic")
            elif not self.analysis_on:
                out.append("not solved (analysis is off)", style="dim")
            else:
                left = game_of(st).num_tricks - st.tricks_played
                out.append(
                    f"not solved: {left} tricks left; press a to try "
                    f"({self.max_nodes:,} nodes at most)",
                    style="dim",
                )
            return out
        if res.values is None:
            out.append(f"not solved: {res.note}", style="dim")
            return out
        seat, played = nxt
        values = res.values
        solver = game_of(st).solver_class
        sign = solver.sign(st, seat)
        best = sign * max(sign * v for v in values.values())
        out.append(f"{solver.meaning}\n", style="dim")
        order = sorted(values, key=lambda c: (-sign * values[c], c))
        for c in order:
            v = values[c]
            t = card_text(c)
            out.append("▶ " if c == played else "  ")
            out.append_text(t)
            out.append(" " * (3 - len(t.plain)))
            out.append(f"{v:>6}")
            if v == best:
                out.append("  best", style="green")
            out.append("\n")
        cost = _cost(st, seat, played, values)
        if cost:
            out.append(f"The card played costs {cost}.", style="bold red")
        else:
            out.append("The card played is among the best.", style="bold green")
        return out

    def _auto(self, st: GameState) -> bool:
        return self.analysis_on

    def _maybe_solve(self, st: GameState, nxt: tuple[int, Action] | None) -> None:
        key = (self.hand, self.at)
        if nxt is None or not is_play(nxt[1]) or key in self.results or self.solving is not None:
            return
        if not (self._auto(st) or key in self.asked):
            return
        self.solving = key
        self.analysis_panel.paint(self._analysis_text(st, nxt))
        self.run_worker(lambda: self._solve(key, st), thread=True, group="dd")

    def action_analyse(self) -> None:
        """Solve the position shown (under the node limit)."""
        self.asked.add((self.hand, self.at))
        self.show()

    def _solve(self, key: tuple[int, int], st: Any) -> None:
        with self._lock:
            solver = game_of(st).solver(tt_bits=18, max_nodes=self.max_nodes)
            try:
                res = Analysis(dict(solver.move_values(st)))
            except SolverLimitError:
                res = Analysis(None, f"the solver gave up after {self.max_nodes:,} nodes")
        self.call_from_thread(self._solved, key, res)

    def _solved(self, key: tuple[int, int], res: Analysis) -> None:
        self.results[key] = res
        self.solving = None
        self.show()

    def wait_key(self) -> tuple[int, int]:
        """Return the point shown (for tests waiting on the analysis)."""
        return (self.hand, self.at)


def _cost(st: Any, seat: int, card: Action, values: dict[Action, int]) -> int:
    sign = game_of(st).solver_class.sign(st, seat)
    v = values.get(card)
    if v is None:
        return 0
    return max(sign * (w - v) for w in values.values())


def _action_line(game: str, seat: int, a: Action, names: list[str]) -> Text:
    return event_line(game, Event("action", seat, a), names)


def _quinto_info_line(obs: QuintoObservation) -> Text:
    out = Text()
    a, b = obs.score
    out.append(f"Score {SIDE_NAMES[0]} {a}  {SIDE_NAMES[1]} {b}  (target {obs.target})")
    out.append(f" · tricks {obs.tricks_won[0]}-{obs.tricks_won[1]}")
    m = obs.multiplier
    out.append(" · not doubled" if m == 1 else f" · tricks ×{m}")
    return out


def _quintus_info_line(obs: QuintusObservation) -> Text:
    out = Text()
    out.append(f"Quintus {obs.quintus if obs.quintus is not None else '?'} · trump ")
    out.append_text(trump_label(obs.trump))
    if obs.nil is not None:
        out.append(f" · nil {obs.nil}")
    if obs.contract is not None:
        out.append(f" · contract {obs.contract}")
    qp, ta, tb = obs.points
    out.append(f"\nCard points: quintus {qp} · teams {ta} and {tb}")
    return out


#: Each game's line of the hand's public facts, by its state class.
_INFO_LINES: Final[dict[type, Callable[[Any], Text]]] = {
    QuintoState: _quinto_info_line,
    QuintusState: _quintus_info_line,
}
