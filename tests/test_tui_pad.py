"""The terminal score pad driven with Textual's pilot: a whole Quinto game and a Quintus
bidding hand typed in, refusals shown, corrections, saving and resuming."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from quintet.pad import new_pad, read_pad
from quintet.pad.commands import entry_command
from quintet.pad.fromrecord import pad_entries
from quintet.record import example_text, read_record, score
from quintet.tui.pad import PadApp


def keys(text: str) -> list[str]:
    return ["space" if c == " " else c for c in text]


async def enter(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(*keys(text), "enter")
    await pilot.pause()


def test_a_whole_quinto_game_typed_in(tmp_path: Path) -> None:
    path = tmp_path / "pad.json"
    pad = new_pad("quinto", options={"target": 120})

    async def run() -> None:
        app = PadApp(pad, str(path))
        async with app.run_test(size=(80, 24)) as pilot:
            await enter(pilot, "x ew")
            await enter(pilot, "ns 5h")
            await enter(pilot, "ns 5h")  # refused: the 5H fell already
            assert app.error and "already entered" in app.message
            await enter(pilot, "ew jk 5s")
            await enter(pilot, "c ns")
            await enter(pilot, "t 8 6")  # refused: 14 tricks
            assert app.error and "14 tricks" in app.message
            await enter(pilot, "t 7 6")  # N-S 20 + 70 = 90, E-W 30 + 60 = 90
            assert pad.computed.hands[0].score == [90, 90]
            await enter(pilot, "e 1")  # correct the heart five to the diamond five
            assert app.query_one("#line").value == "e 1 ns 5h"  # type: ignore[attr-defined]
            await pilot.press(*["backspace"] * 2, "5", "d", "enter")
            await pilot.pause()
            assert pad.computed.hands[0].score == [85, 90]
            await enter(pilot, "ns 5c ah4h")  # hand 2: 85 + 10 + 20 = 115
            await enter(pilot, "ns 2d3d")  # 130: N-S reach the target, the game is won
            assert pad.computed.hands[1].winner == 0
            assert "reach 120" in app.message
            await enter(pilot, "u")
            assert pad.computed.hands[1].winner is None
            await enter(pilot, "ns 2d3d")
            await enter(pilot, "q")
        saved = read_pad(path.read_text())
        assert saved.entries == pad.entries
        assert saved.score_summary()["games"] == [{"score": [130, 90], "winner": 0}]

    asyncio.run(run())


def test_a_quintus_bidding_hand_with_its_settlement(tmp_path: Path) -> None:
    pad = new_pad("quintus", "bidding", first_dealer=4)

    async def run() -> None:
        app = PadApp(pad, None)
        async with app.run_test(size=(80, 24)) as pilot:
            await enter(pilot, "H 41@0 40 8 13")
            assert app.error and "even number" in app.message
            await enter(pilot, "H 40@0 40 8 13")
            sheet = str(app.query_one("#sheet").render())
            assert "smaller share 15.24 rounds to an even s = 16" in sheet
            assert "seat 2 pays seat 0 8" in sheet
            await enter(pilot, f"s {tmp_path / 'q.json'}")
            assert "saved" in app.message
            await enter(pilot, f"w csv {tmp_path / 'q.csv'}")
        assert pad.view()["hands"][0]["scores"] == [40, -12, -8, -12, -8]
        assert (tmp_path / "q.csv").read_text().startswith("hand,dealer,quintus")
        assert read_pad((tmp_path / "q.json").read_text()).entries == pad.entries

    asyncio.run(run())


def test_a_record_typed_line_by_line_agrees_with_the_scorer() -> None:
    record = read_record(example_text("quinto-partnership"))
    pad = new_pad("quinto", first_dealer=record.hands[0].dealer)
    lines = [entry_command(pad, e) for e in pad_entries(record)]

    async def run() -> None:
        app = PadApp(pad, None)
        async with app.run_test(size=(60, 20)) as pilot:  # a small terminal
            for line in lines:
                await enter(pilot, line)
                assert not app.error, app.message
            await enter(pilot, "?")
            assert app.screen.__class__.__name__ == "TextScreen"
            await pilot.press("escape")

    asyncio.run(run())
    assert pad.score_summary() == score(record)
    assert json.loads(json.dumps(pad.to_json()))["entries"] == pad.entries
