"""Snapshots of the terminal screens: the tables, an illegal choice, the pages, replay, and
a resumed game.

Each screen is kept as an SVG (colours and styles) with a text twin (what the person
reads) in ``tests/tui_snapshots/``; fixed seeds and a 110 x 36 terminal keep them
stable. After an intended change of the screens, write them again with
``QUINTET_UPDATE_SNAPSHOTS=1 pytest tests/test_tui_snapshots.py`` and look at them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from quintet.cards import mask_cards
from quintet.record import example_text, read_record
from quintet.table import Table
from quintet.tui.play import PlayApp, new_table, resume_table
from quintet.tui.replay import ReplayApp
from quintet.tui.testing import advance, decide, screen_text, snapshot, wait_idle

SNAPSHOTS = Path(__file__).parent / "tui_snapshots"
SIZE = (110, 36)


def run(test: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(test())


def snap(name: str) -> Path:
    return SNAPSHOTS / f"{name}.svg"


def test_quinto_table_illegal_choice_and_last_trick() -> None:
    async def body() -> None:
        table, seat = new_table("quinto", "partnership", seat=0, seed=4)
        advance(table, seat, 6)  # the doubling round and five tricks
        while set(table.legal(seat)) == set(mask_cards(table.state.observation(0).hands[0])):
            advance(table, seat, 1)  # on to a trick where the person must follow suit
        app = PlayApp(table, seat, hint_level="heuristic", pace=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            view = app.screen_table.view
            assert view is not None and view.decision == 0
            await snapshot(pilot, app, snap("quinto_table"))
            bad = next(c for c in view.hands[0].cards if c not in view.legal[0])
            letter = next(k for k, (_, c) in app.screen_table.card_keys.items() if c == bad)
            await pilot.press(letter, "enter")
            await snapshot(pilot, app, snap("quinto_illegal_choice"))
            await pilot.press("l")
            await snapshot(pilot, app, snap("quinto_last_trick"))

    run(body)


def test_quinto_hand_summary_and_rubber_sheet() -> None:
    async def body() -> None:
        table, seat = new_table("quinto", "partnership", seat=0, seed=4)
        advance(table, seat)
        app = PlayApp(table, seat, hint_level="heuristic", pace=0)
        async with app.run_test(size=SIZE) as pilot:
            await snapshot(pilot, app, snap("quinto_hand_summary"))
            await pilot.press("t")
            await snapshot(pilot, app, snap("quinto_rubber_sheet"))

    run(body)


def test_quinto_dummy_table_of_the_lone_player() -> None:
    async def body() -> None:
        table, seat = new_table("quinto", "dummy", seat=0, seed=3)
        app = PlayApp(table, seat, hint_level="heuristic", pace=0)
        async with app.run_test(size=SIZE) as pilot:
            for way in range(3):
                await wait_idle(pilot, app)
                await decide(pilot, app, way)
            await wait_idle(pilot, app)
            await snapshot(pilot, app, snap("quinto_dummy_table"))

    run(body)


def test_quintus_auction_and_play_with_signals() -> None:
    async def body() -> None:
        table, seat = new_table("quintus", "bidding", seat=0, seed=8)
        app = PlayApp(table, seat, hint_level="heuristic", pace=0)
        async with app.run_test(size=SIZE) as pilot:
            await wait_idle(pilot, app)
            await pilot.press("plus", "plus")
            await snapshot(pilot, app, snap("quintus_auction"))
            for _ in range(4):
                await pilot.press("minus")
            await pilot.press("2", "enter")  # a bid below the high bid
            await snapshot(pilot, app, snap("quintus_bid_refused"))

    async def signals() -> None:
        table, seat = new_table("quintus", "base", seat=0, seed=3)
        app = PlayApp(table, seat, hint_level="heuristic", pace=0)
        async with app.run_test(size=SIZE) as pilot:
            await wait_idle(pilot, app)
            await pilot.press("3", "enter")  # ask partner: the bots answer in the same trick
            await wait_idle(pilot, app)
            await snapshot(pilot, app, snap("quintus_play_signals"))

    run(body)
    run(signals)


def test_quintus_open_nil_and_ledger() -> None:
    async def body() -> None:
        table = Table.new("quintus", "base", [None, "heuristic", "heuristic", "heuristic", None], 3)
        table.act(4, "trump H")
        table.act(4, "nil open")
        app = PlayApp(table, 0, hint_level="heuristic", pace=0)
        async with app.run_test(size=SIZE) as pilot:
            await snapshot(pilot, app, snap("quintus_open_nil"))

    async def ledger() -> None:
        table, seat = new_table("quintus", "bidding", seat=0, seed=8, hands=3)
        advance(table, seat)
        app = PlayApp(table, seat, hint_level="heuristic", pace=0)
        async with app.run_test(size=SIZE) as pilot:
            await snapshot(pilot, app, snap("quintus_hand_summary"))
            await pilot.press("t")
            await snapshot(pilot, app, snap("quintus_ledger"))

    run(body)
    run(ledger)


def test_replay_with_every_hand_and_double_dummy_values() -> None:
    record = read_record(example_text("quinto-partnership"))

    async def body() -> None:
        app = ReplayApp(record)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("end", "up", "up")  # the lead of trick 11
            for _ in range(600):
                if (app.hand, app.at) in app.results:
                    break
                await pilot.pause(0.05)
            await snapshot(pilot, app, snap("replay"))

    run(body)


def test_a_resumed_game_shows_the_table_as_it_was_saved(tmp_path: Path) -> None:
    path = tmp_path / "saved.json"
    shown: list[str] = []

    async def original() -> None:
        table, seat = new_table("quintus", "bidding", seat=1, seed=13, hands=1)
        app = PlayApp(table, seat, hint_level="heuristic", pace=0)
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(5):
                await wait_idle(pilot, app)
                await decide(pilot, app, 0)
            await wait_idle(pilot, app)
            app.screen_table.say("")
            await pilot.pause()
            shown.append(screen_text(app))
            assert app.save(str(path))

    async def resumed() -> None:
        table, seat = resume_table(read_record(path.read_text()))
        app = PlayApp(table, seat, hint_level="heuristic", pace=0)
        async with app.run_test(size=SIZE) as pilot:
            await wait_idle(pilot, app)
            await pilot.pause()
            assert screen_text(app) == shown[0]
            await snapshot(pilot, app, snap("resumed"))

    run(original)
    run(resumed)


def test_a_screen_that_stays_different_fails_its_snapshot(tmp_path: Path) -> None:
    # snapshot() looks again while the screen catches up, but a screen that stays
    # different fails, naming the lines that differ.
    async def body() -> None:
        table, seat = new_table("quinto", "partnership", seat=0, seed=4)
        advance(table, seat)
        app = PlayApp(table, seat, hint_level="heuristic", pace=0)
        async with app.run_test(size=SIZE) as pilot:
            with pytest.raises(AssertionError, match="was missing: written"):
                await snapshot(pilot, app, tmp_path / "summary.svg")
            await pilot.press("t")  # the rubber sheet instead of the summary
            with pytest.raises(AssertionError, match="the lines that differ"):
                await snapshot(pilot, app, tmp_path / "summary.svg", timeout=0.2)

    run(body)
