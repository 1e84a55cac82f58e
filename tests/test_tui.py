"""Terminal play (``quintet play`` and ``quintet replay``) driven through Textual's pilot.

Whole hands of each game and variant are played with keys and clicks, saved from the
screen, and scored: the scorer must give the score the screen shows. Bots are paced at
0 seconds (one test uses a real timer) and the person's hints are the heuristic's (the
default hint bot, pimc, thinks a CPU second) so the suite stays fast.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from quintet.actions import action_str, parse_action
from quintet.bots import Budget
from quintet.cards import SUIT_SYMBOLS, card_display, mask_cards
from quintet.cli import main
from quintet.record import dumps, example_text, read_record, score
from quintet.table import Table
from quintet.tui.play import PlayApp, new_table, resume_table
from quintet.tui.replay import ReplayApp
from quintet.tui.testing import advance, decide, play_hand, screen_text, wait_idle

SIZE = (110, 36)


def run(test: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run an async test body (Textual's pilot is async)."""
    asyncio.run(test())


async def save_from_summary(pilot: Any, app: PlayApp) -> dict[str, Any]:
    """Save with ``s`` from the end-of-hand summary; return the scorer's result."""
    assert app.screen.name == "summary"
    await pilot.press("s")
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()
    assert app.save_path is not None
    text = Path(app.save_path).read_text()
    assert "Saved to" in app.screen_table.status_text.plain
    return score(read_record(text))


def quinto_shown(app: PlayApp) -> list[int]:
    view = app.screen_table.view
    assert view is not None
    a, b = view.shown_score
    assert f"{'Score':<11}{a:>6}{b:>6}" in view.info.plain  # what the score panel shows
    return [a, b]


# --------------------------------------------------------------- whole hands of each game


def test_quinto_partnership_hand_through_the_ui(tmp_path: Path) -> None:
    async def body() -> None:
        table, seat = new_table("quinto", "partnership", seat=0, seed=4)
        app = PlayApp(
            table, seat, hint_level="heuristic", pace=0, save_path=str(tmp_path / "q.json")
        )
        async with app.run_test(size=SIZE) as pilot:
            taken = await play_hand(pilot, app)
            assert taken == 13  # the doubling round and twelve cards
            assert table.state.multiplier == 2  # the person doubled (through the UI)
            result = await save_from_summary(pilot, app)
            shown = quinto_shown(app)
            assert result["games"][-1]["score"] == shown
            summary = app.summary_text().plain
            assert f"Game score{shown[0]:>18}{shown[1]:>8}" in summary

    run(body)


def test_quinto_dummy_hand_as_the_lone_player(tmp_path: Path) -> None:
    async def body() -> None:
        table, seat = new_table("quinto", "dummy", seat=0, seed=3)
        app = PlayApp(
            table, seat, hint_level="heuristic", pace=0, save_path=str(tmp_path / "d.json")
        )
        async with app.run_test(size=SIZE) as pilot:
            await wait_idle(pilot, app)
            view = app.screen_table.view
            assert view is not None and view.phase == "doubling"
            dummy = next(h for h in view.hands if h.seat == 2)
            assert dummy.hidden  # own view: the dummy is seen from the first lead
            await decide(pilot, app, 1)
            await wait_idle(pilot, app)
            view = app.screen_table.view
            assert view is not None
            dummy = next(h for h in view.hands if h.seat == 2)
            assert not dummy.hidden and len(dummy.cards) == 12
            taken = 1 + await play_hand(pilot, app)
            assert taken == 25  # the doubling round, twelve own cards, twelve dummy cards
            result = await save_from_summary(pilot, app)
            assert result["games"][-1]["score"] == quinto_shown(app)
            assert result["rubber"] is None

    run(body)


def test_quintus_base_hand_as_the_quintus_trump_nil_and_meld(tmp_path: Path) -> None:
    async def body() -> None:
        table, seat = new_table("quintus", "base", seat=4, seed=11)
        app = PlayApp(
            table, seat, hint_level="heuristic", pace=0, save_path=str(tmp_path / "b.json")
        )
        async with app.run_test(size=SIZE) as pilot:
            await play_hand(pilot, app)
            kinds = {action_str(a).split()[0] for s, a in table.state.history() if s == 4}
            assert {"trump", "nil", "meld"} <= kinds
            result = await save_from_summary(pilot, app)
            view = app.screen_table.view
            assert view is not None
            assert result["totals"] == list(view.shown_score)
            assert "Totals" in app.summary_text().plain

    run(body)


def test_quintus_bidding_hand_with_bids_melds_and_settlement(tmp_path: Path) -> None:
    async def body() -> None:
        table, seat = new_table("quintus", "bidding", seat=0, seed=8)
        app = PlayApp(
            table, seat, hint_level="heuristic", pace=0, save_path=str(tmp_path / "g.json")
        )
        async with app.run_test(size=SIZE) as pilot:
            await play_hand(pilot, app)
            mine = [action_str(a) for s, a in table.state.history() if s == 0]
            assert sum(m.startswith("bid") for m in mine) >= 2 and "trump" in " ".join(mine)
            result = await save_from_summary(pilot, app)
            view = app.screen_table.view
            assert view is not None
            assert result["totals"] == list(view.shown_score)
            made = result["hands"][-1]["made"]
            assert ("Contract " + str(result["hands"][-1]["contract"])) in app.summary_text().plain
            assert ("made" if made else "failed") in app.summary_text().plain

    run(body)


def test_a_whole_quintus_session_with_signals_and_its_ledger(tmp_path: Path) -> None:
    async def body() -> None:
        table, seat = new_table("quintus", "base", seat=0, seed=3, hands=2)
        app = PlayApp(
            table, seat, hint_level="heuristic", pace=0, save_path=str(tmp_path / "m.json")
        )
        async with app.run_test(size=SIZE) as pilot:
            while not table.match_over():
                await play_hand(pilot, app, signals=True)
                await pilot.pause()
                assert app.screen.name == "summary"
                if len(table.match.hands) == 1:
                    history = table.state.history()
                    assert any(s == 0 and 67 <= a <= 69 for s, a in history)  # the person's
                    log = "\n".join(t.plain for t in app.screen_table.view.log)  # type: ignore[union-attr]
                    assert "Seat 0 signals" in log
                    # Every signal of the hand, the bots' too, is public: all are in the log.
                    assert log.count("signals") == sum(67 <= a <= 69 for _, a in history)
                if not table.match_over():
                    await pilot.press("enter")
            assert "Session won by" in app.summary_text().plain
            result = await save_from_summary(pilot, app)
            assert result["complete"]
            view = app.screen_table.view
            assert view is not None and result["totals"] == list(view.shown_score)
            await pilot.press("escape")
            await pilot.press("t")
            await pilot.pause()
            assert app.screen.name == "sheet"
            ledger = screen_text(app)
            assert "Session won by" in ledger and "running total" in ledger

    run(body)


# ------------------------------------------------------------ refusing illegal choices


def test_illegal_choices_are_refused_with_the_reason() -> None:
    async def body() -> None:
        table, seat = new_table("quinto", "partnership", seat=0, seed=4)
        app = PlayApp(table, seat, hint_level="heuristic", pace=0)
        async with app.run_test(size=SIZE) as pilot:
            await wait_idle(pilot, app)
            screen = app.screen_table
            before = table.state.history()
            # Nobody has doubled: no Redouble button (pass or double), and its key is refused.
            view = screen.view
            assert view is not None
            assert [c.label for c in view.choices] == ["Pass", "Double"]
            assert "pass or double (1-2" in view.prompt
            await pilot.press("3")
            assert "There is no choice 3 now (1-2)" in screen.status_text.plain
            await pilot.press("enter")
            assert table.state.history() == before
            await pilot.press("a", "enter")  # a card during the doubling round
            assert "cannot play a card during the doubling round" in screen.status_text.plain
            await pilot.press("1", "enter")  # pass
            await wait_idle(pilot, app)
            view = screen.view
            assert view is not None and view.trick  # the first lead is on the table
            hand = next(h for h in view.hands if h.seat == 0)
            bad = next(c for c in hand.cards if c not in view.legal[0])
            before = table.state.history()
            letter = next(k for k, (_, c) in screen.card_keys.items() if c == bad)
            await pilot.press(letter, "enter")
            assert "Not allowed: seat 0 (North) must follow" in screen.status_text.plain
            assert table.state.history() == before
            assert "Not allowed" in screen_text(app)

    run(body)


def test_quintus_illegal_bids_and_signals_are_refused() -> None:
    async def body() -> None:
        table, seat = new_table("quintus", "bidding", seat=0, seed=8)
        app = PlayApp(table, seat, hint_level="heuristic", pace=0)
        async with app.run_test(size=SIZE) as pilot:
            await wait_idle(pilot, app)
            screen = app.screen_table
            view = screen.view
            assert view is not None and view.phase == "auction" and view.decision == 0
            high = table.state.high_bid
            assert high is not None
            for _ in range(10):
                await pilot.press("minus")
            await pilot.press("2", "enter")
            assert f"must bid more than {high}" in screen.status_text.plain
            await pilot.press("1", "enter")  # pass
            for _ in range(3):  # on to the person's first card
                await wait_idle(pilot, app)
                view = screen.view
                assert view is not None and view.decision == 0
                if view.phase == "play":
                    break
                await decide(pilot, app, 0)
            assert view.phase == "play"
            await pilot.press("1", "enter")  # signal up
            assert "You: Signal up" in screen.status_text.plain
            await pilot.press("2", "enter")  # a second signal in the same trick
            assert "seat 0 has already signalled in this trick" in screen.status_text.plain

    run(body)


# ------------------------------------------------------------------ hint, undo, pages


def test_hint_undo_last_trick_and_pages() -> None:
    async def body() -> None:
        table, seat = new_table("quinto", "partnership", seat=1, seed=5)
        app = PlayApp(table, seat, hint_level="heuristic", pace=0)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen_table
            await pilot.press("u")
            assert "Nothing of yours to take back" in screen.status_text.plain
            for way in range(3):
                await wait_idle(pilot, app)
                await decide(pilot, app, way)
            await wait_idle(pilot, app)
            await pilot.press("h")
            assert "Hint (heuristic)" in screen.status_text.plain
            # The hint says why, in the heuristic's words (its rule for this decision).
            _, reason = table.explain_task(1, "heuristic")()
            assert reason and reason in screen.status_text.plain
            view = screen.view
            assert view is not None and view.decision == 1
            hint = table.hint(1)
            assert screen.cursor is not None and screen.cursor.value == hint
            n = len(table.state.history())
            await pilot.press("u")
            assert "Took back" in screen.status_text.plain
            assert len(table.state.history()) < n and table.to_act() == 1
            await pilot.press("l")
            await pilot.pause()
            assert app.screen.name == "last-trick"
            assert "wins" in screen_text(app)
            await pilot.press("escape")
            await pilot.press("t")
            await pilot.pause()
            assert app.screen.name == "sheet" and "Quinto rubber" in screen_text(app)
            await pilot.press("escape")
            await pilot.press("question_mark")
            await pilot.pause()
            assert app.screen.name == "help"
            await pilot.press("escape")
            await pilot.press("q")
            await pilot.pause()
            assert app.screen.name == "quit"  # unsaved play: asks first
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is screen

    run(body)


def test_the_hint_is_pimcs_by_default_and_worked_out_on_a_thread() -> None:
    async def body() -> None:
        table, seat = new_table("quinto", "partnership", seat=1, seed=5)
        advance(table, seat, 10)  # late in the hand: pimc solves each deal at once
        table.budget = Budget(iterations=4)  # a samples budget: pimc's choice is repeatable
        want = table.hint(seat, "pimc")
        app = PlayApp(table, seat, pace=0.01)  # paced: the hint is worked out on a thread
        assert app.hint_level == "pimc"
        async with app.run_test(size=SIZE) as pilot:
            await wait_idle(pilot, app)
            await pilot.press("h")
            for _ in range(500):
                if not app.hinting:
                    break
                await pilot.pause(0.02)
            screen = app.screen_table
            assert "Hint (pimc): " in screen.status_text.plain
            assert screen.cursor is not None and screen.cursor.value == want

    run(body)


# ----------------------------------------------------------- what the person may see


def _cards_on_screen(text: str) -> set[str]:
    ranks = "|".join(["10", "2", "3", "4", "5", "6", "7", "8", "9", "J", "Q", "K", "A"])
    return set(re.findall(rf"(?:{ranks})[{SUIT_SYMBOLS}]|\bJK\b", text))


def test_the_screen_shows_only_what_the_person_may_see() -> None:
    async def body() -> None:
        table, seat = new_table("quinto", "dummy", seat=1, lone=0, seed=6)
        app = PlayApp(table, seat, hint_level="heuristic", pace=0)
        async with app.run_test(size=SIZE) as pilot:
            await wait_idle(pilot, app)
            mine = {card_display(c) for c in mask_cards(table.state.hands[1])}
            shown = _cards_on_screen(screen_text(app))
            played = {card_display(a) for _, a in table.state.history() if a < 53}
            assert mine <= shown  # the person's own hand is found on the screen
            assert shown <= mine | played
            for _ in range(4):
                await decide(pilot, app, 0)
                await wait_idle(pilot, app)
            shown = _cards_on_screen(screen_text(app))
            played = {card_display(a) for _, a in table.state.history() if a < 53}
            dummy = {card_display(c) for c in mask_cards(table.state.hands[2])}
            assert shown <= {card_display(c) for c in mask_cards(table.state.hands[1])} | played
            assert not shown & dummy  # the dummy is never shown to its opponents

    run(body)


def test_an_open_nil_hand_is_shown_to_everyone() -> None:
    async def body() -> None:
        # Seat 4, the quintus, is decided by the test; seat 0 is the person on screen.
        table = Table.new("quintus", "base", [None, "heuristic", "heuristic", "heuristic", None], 3)
        table.act(4, "trump NT")
        table.act(4, "nil open")
        app = PlayApp(table, 0, hint_level="heuristic", pace=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            text = screen_text(app)
            quintus = {card_display(c) for c in mask_cards(table.state.hands[4])}
            assert quintus <= _cards_on_screen(text)
            assert "nil open" in text
            # Not the person's turn, but he may signal: the hint is about a signal.
            await pilot.press("h")
            assert "Hint (heuristic): " in app.screen_table.status_text.plain
            assert "signal" in app.screen_table.status_text.plain.lower()

    run(body)


# --------------------------------------------------------------- saving and resuming


async def _decide_until(pilot: Any, app: PlayApp, stop: int) -> None:
    for _ in range(stop):
        await wait_idle(pilot, app)
        if app.table.hand_over():
            return
        await decide(pilot, app, 0)


def test_a_resumed_game_continues_identically(tmp_path: Path) -> None:
    mid = tmp_path / "mid.json"
    whole = tmp_path / "whole.json"
    again = tmp_path / "again.json"

    async def original() -> None:
        table, seat = new_table("quintus", "bidding", seat=1, seed=13, hands=1)
        app = PlayApp(table, seat, hint_level="heuristic", pace=0, save_path=str(mid))
        async with app.run_test(size=SIZE) as pilot:
            await _decide_until(pilot, app, 4)
            await pilot.press("s")
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            app.save_path = str(whole)
            while not table.match_over():
                await play_hand(pilot, app)
                await pilot.pause()
                await pilot.press("enter")
            await pilot.press("escape")
            assert app.save(str(whole))

    async def resumed() -> None:
        table, seat = resume_table(read_record(mid.read_text()))
        assert seat == 1
        app = PlayApp(table, seat, hint_level="heuristic", pace=0, save_path=str(again))
        async with app.run_test(size=SIZE) as pilot:
            while not table.match_over():
                await play_hand(pilot, app)
                await pilot.pause()
                await pilot.press("enter")
            await pilot.press("escape")
            assert app.save(str(again))

    run(original)
    run(resumed)
    assert json.loads(whole.read_text()) == json.loads(again.read_text())
    assert score(read_record(whole.read_text()))["complete"]


def test_bots_paced_by_a_timer_play_as_without_pacing(tmp_path: Path) -> None:
    async def game(pace: float) -> str:
        table, seat = new_table("quinto", "partnership", seat=2, seed=9)
        app = PlayApp(table, seat, hint_level="heuristic", pace=pace)
        async with app.run_test(size=SIZE) as pilot:
            await _decide_until(pilot, app, 3)
            await wait_idle(pilot, app)
            assert (app.paced_steps > 5) == (pace > 0)  # one bot step per timer tick
        return dumps(table.record())

    async def body() -> None:
        assert await game(0.005) == await game(0)

    run(body)


# ------------------------------------------------------------------------------ replay


def test_replay_steps_through_a_record_with_every_hand_and_analysis() -> None:
    record = read_record(example_text("quinto-partnership"))

    async def body() -> None:
        app = ReplayApp(record)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            text = screen_text(app)
            for seat in ("North", "East", "South", "West"):
                assert seat in text
            first = app.state()
            for s in range(4):  # every hand is on the screen
                for c in mask_cards(first.hands[s])[:3]:
                    assert card_display(c) in text
            await pilot.press("right", "right", "left")
            assert app.at == 1
            await pilot.press("down")
            assert app.at > 1
            await pilot.press("end")
            assert app.at == len(app.history())
            await pilot.press("left", "left")  # the last trick: solved as shown
            for _ in range(600):
                if (app.hand, app.at) in app.results:
                    break
                await pilot.pause(0.05)
            res = app.results[(app.hand, app.at)]
            assert res.values is not None
            await pilot.pause()
            assert "best" in screen_text(app)
            await pilot.press("home")
            assert "press a to try" in screen_text(app) or "No card" in screen_text(app)
            await pilot.press("right_square_bracket")
            assert app.hand == 1 and app.at == 0
            await pilot.press("t")
            await pilot.pause()
            assert "Quinto rubber" in screen_text(app)

    run(body)


def test_replay_gives_up_under_its_node_limit() -> None:
    record = read_record(example_text("quinto-partnership"))

    async def body() -> None:
        app = ReplayApp(record, max_nodes=50)
        async with app.run_test(size=SIZE) as pilot:
            first_play = next(i for i, (_, a) in enumerate(app.history()) if a < 53)
            app.at = first_play
            app.show()
            await pilot.press("a")
            for _ in range(600):
                if (app.hand, app.at) in app.results:
                    break
                await pilot.pause(0.05)
            await pilot.pause()
            assert app.results[(app.hand, app.at)].values is None
            assert "not solved" in screen_text(app)

    run(body)


# --------------------------------------------------------------------------- commands


def test_play_and_replay_commands_check_their_arguments(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["play"])
    assert r.exit_code == 2 and "give the game" in r.output
    r = CliRunner().invoke(main, ["play", "quinto", "--variant", "dummy", "--seat", "2"])
    assert r.exit_code == 2 and "is the dummy" in r.output
    r = CliRunner().invoke(main, ["play", "quintus", "--bots", "random,heuristic"])
    assert r.exit_code == 2 and "one per other player" in r.output
    r = CliRunner().invoke(main, ["play", "quinto", "--bots", "genius"])
    assert r.exit_code == 2 and "unknown bot level" in r.output
    r = CliRunner().invoke(main, ["play", "quinto", "--hands", "3"])
    assert r.exit_code == 2 and "Quintus session" in r.output
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    r = CliRunner().invoke(main, ["play", "--resume", str(bad)])
    assert r.exit_code == 1 and "unreadable" in r.output
    r = CliRunner().invoke(main, ["replay", str(bad)])
    assert r.exit_code == 1 and "unreadable" in r.output


@pytest.mark.parametrize("text", ["pass", "double", "AS", "bid 40", "trump NT", "signal up"])
def test_choice_labels_cover_every_action(text: str) -> None:
    from quintet.tui.render import action_label, action_phrase

    a = parse_action(text)
    assert action_label(a) and action_phrase("quintus", a)
