"""Driving the terminal table in tests, as a person would: keys and mouse clicks.

The decisions taken are the hint bot's (what ``h`` points at), entered in turn by the
hint key, by the letter or number keys, and by clicking, so that one hand goes through
every way of deciding. Screens are compared as SVG snapshots (and shown as text).
"""

from __future__ import annotations

import difflib
import io
import os
from pathlib import Path
from typing import Any

from rich.console import Console
from textual.pilot import Pilot

from quintet.actions import Action, bid_amount, is_bid, is_play, is_signal
from quintet.tui.play import PlayApp
from quintet.tui.widgets import CardWidget, ChoiceButton

#: Set to 1 to write the snapshots again instead of comparing with them.
UPDATE_ENV = "QUINTET_UPDATE_SNAPSHOTS"


def screen_text(app: Any) -> str:
    """Return the screen as plain text (what a person reads)."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(
        app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    )
    return console.export_text()


def check_snapshot(app: Any, path: Path) -> None:
    """Compare the screen with the SVG snapshot at ``path`` (and its ``.txt`` twin).

    With ``QUINTET_UPDATE_SNAPSHOTS=1`` the files are written instead.

    Raises:
        AssertionError: the screen differs; the text of both is in the message.
    """
    svg = app.export_screenshot(title=path.stem)
    text = screen_text(app)
    txt_path = path.with_suffix(".txt")
    if os.environ.get(UPDATE_ENV) == "1" or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(svg, encoding="utf-8")
        txt_path.write_text(text, encoding="utf-8")
        if os.environ.get(UPDATE_ENV) != "1":
            raise AssertionError(f"snapshot {path} was missing: written, check it in")
        return
    want_text = txt_path.read_text(encoding="utf-8") if txt_path.exists() else ""
    if text != want_text:
        diff = difflib.unified_diff(
            want_text.splitlines(), text.splitlines(), "expected", "shown", lineterm=""
        )
        raise AssertionError(
            f"the screen differs from {txt_path} (set {UPDATE_ENV}=1 to accept):\n"
            f"--- expected\n{want_text}\n--- shown\n{text}\n--- the lines that differ\n"
            + "\n".join(diff)
        )
    if svg != path.read_text(encoding="utf-8"):
        raise AssertionError(
            f"the screen's colours or styles differ from {path} (set {UPDATE_ENV}=1 to accept)"
        )


async def snapshot(pilot: Pilot[Any], app: Any, path: Path, timeout: float = 3.0) -> None:
    """``check_snapshot`` once the screen has caught up: under load a refresh (the footer
    under a modal, say) can come a few frames late, so a screen that differs is looked at
    again every 20 ms for up to ``timeout`` seconds before the difference counts."""
    waited = 0.0
    # Nothing to catch up with when the snapshot is being written.
    writing = os.environ.get(UPDATE_ENV) == "1" or not path.exists()
    while True:
        await pilot.pause()
        try:
            check_snapshot(app, path)
            return
        except AssertionError:
            if waited >= timeout or writing:
                raise
        await pilot.pause(0.02)
        waited += 0.02


async def wait_idle(pilot: Pilot[Any], app: PlayApp, timeout: float = 10.0) -> None:
    """Wait until paced bots have finished and the person (or a page) is to act."""
    waited = 0.0
    while waited < timeout:
        if not app.bots_waiting():
            return
        await pilot.pause(0.02)
        waited += 0.02
    raise AssertionError("the bots did not finish in time")


async def decide(pilot: Pilot[Any], app: PlayApp, way: int) -> Action:
    """Take the person's next decision (the hint bot's choice) by keys or a click.

    ``way`` 0 presses ``h`` then Enter; 1 presses the card's letter or the button's
    number (``+``/``-`` for a bid amount) then Enter; 2 clicks. Returns the action.
    """
    screen = app.screen_table
    view = screen.view
    assert view is not None and view.decision is not None, "not the person's decision"
    action = app.table.hint(view.decision, app.hint_level)
    assert action is not None, "the person's main-line decision always has a hint"
    if way == 0:
        await pilot.press("h", "enter")
        return action
    if is_play(action):
        if way == 1:
            letter = next(k for k, (_, c) in screen.card_keys.items() if c == action)
            await pilot.press(letter, "enter")
        else:
            widget = next(w for w in app.screen.query(CardWidget) if w.card == action)
            await pilot.click(widget)
        return action
    if is_bid(action):
        bid_index = next(i for i, c in enumerate(view.choices) if is_bid(c.action))
        have = bid_amount(view.choices[bid_index].action)
        steps = (bid_amount(action) - have) // 2
        key, button = ("plus", 3) if steps > 0 else ("minus", 2)
        for _ in range(abs(steps)):
            if way == 1:
                await pilot.press(key)
            else:
                await pilot.click(app.screen.query_one(f"#choice-{button}", ChoiceButton))
        if way == 1:
            await pilot.press(str(bid_index + 1), "enter")
        else:
            await pilot.click(app.screen.query_one(f"#choice-{bid_index}", ChoiceButton))
        return action
    index = next(i for i, c in enumerate(view.choices) if c.kind == "act" and c.action == action)
    number = sum(1 for c in view.choices[: index + 1] if c.kind == "act")
    if way == 1:
        await pilot.press(str(number), "enter")
    else:
        await pilot.click(app.screen.query_one(f"#choice-{index}", ChoiceButton))
    return action


async def signal(pilot: Pilot[Any], app: PlayApp, which: int = 1) -> bool:
    """Give a signal (1 up, 2 down, 3 ask) with its number key, if one is allowed now."""
    view = app.screen_table.view
    if view is None:
        return False
    if not any(is_signal(a) for a in view.legal.get(view.person, set())):
        return False
    await pilot.press(str(which), "enter")
    return True


def advance(table: Any, person: int, decisions: int | None = None) -> int:
    """Play on without the screen: the bots, and the hint bot for the person.

    Stops after ``decisions`` of the person's decisions (None: at the end of the hand),
    when the person is to act again; returns the number taken. For setting up screens.
    """
    taken = 0
    while not table.hand_over():
        table.run_bots()
        if table.hand_over() or (decisions is not None and taken >= decisions):
            break
        seat = table.to_act()
        assert seat is not None
        action = table.hint(seat)
        assert action is not None
        table.act(seat, action)
        taken += 1
    return taken


async def play_hand(
    pilot: Pilot[Any], app: PlayApp, signals: bool = False, limit: int = 200
) -> int:
    """Play the person's decisions until the hand is over; return how many were taken.

    Decisions go in turn by the hint key, by letters/numbers and by clicks; with
    ``signals`` the person also signals ``up`` at the first chance in each trick.
    """
    taken = 0
    signalled: set[tuple[int, int]] = set()
    for _ in range(limit):
        await wait_idle(pilot, app)
        if app.table.hand_over():
            return taken
        view = app.screen_table.view
        assert view is not None
        if signals and view.phase == "play":
            obs_key = (len(app.table.match.hands), app.table.state.tricks_played)
            if obs_key not in signalled:
                signalled.add(obs_key)
                if await signal(pilot, app, 1 + taken % 3):
                    continue
        await decide(pilot, app, taken % 3)
        taken += 1
    raise AssertionError("the hand did not end")
