"""The bot protocol: the example bots play every game, misbehaving bots are replaced by the
fallback and reported, and no bot is ever sent a card its player may not see."""

from __future__ import annotations

import json
import logging
import os
import random
import shlex
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from quintet.actions import NIL_OPEN, Action
from quintet.arena import ArenaConfig, run_arena
from quintet.botproto import ExternalBot, finish_hand, hand_events, new_hand_message
from quintet.bots import (
    Bot,
    BotView,
    Budget,
    HeuristicBot,
    allow_commands,
    bot_step,
    make_bot,
    play_out,
)
from quintet.cards import card_str, mask_cards
from quintet.cli import main
from quintet.errors import InvalidOptionError
from quintet.quinto import QuintoRules, QuintoState
from quintet.quintus import QuintusRules, QuintusState
from quintet.record import record_from_json, score
from quintet.table import Table

JSON = dict[str, Any]
ROOT = Path(__file__).resolve().parent.parent
JS_BOT = ROOT / "examples" / "quintet-bot.js"
SH_BOT = ROOT / "examples" / "first-legal.sh"
VARIANTS = [
    ("quinto", "partnership"),
    ("quinto", "dummy"),
    ("quintus", "base"),
    ("quintus", "bidding"),
]

#: A bot that misbehaves as its first argument says; it appends its pid to the second.
BAD_BOT = r"""
import json, os, sys, time

mode, pids = sys.argv[1], sys.argv[2]
with open(pids, "a") as f:
    f.write(f"{os.getpid()}\n")
answered = 0


def send(obj):
    print(json.dumps(obj), flush=True)


for line in sys.stdin:
    m = json.loads(line)
    kind = m["type"]
    if kind == "hello":
        if mode == "no-ready":
            time.sleep(60)
        elif mode == "wrong-version":
            send({"type": "ready", "protocol": "quintet-bot", "version": 99})
        else:
            send({"type": "ready", "name": mode})
    elif kind == "decide":
        if mode == "crash":
            print("boom: the bot fell over", file=sys.stderr, flush=True)
            sys.exit(3)
        elif mode == "sleep":
            time.sleep(60)
        elif mode == "spin":
            end = time.time() + 60
            while time.time() < end:
                pass
        elif mode == "garbage":
            print("I think I will play the ace", flush=True)
        elif mode == "wrong-type":
            send({"type": "move", "action": m["legal"][0]})
        elif mode == "illegal":
            send({"type": "action", "action": "bid 30"})
        elif mode == "quit":
            send({"type": "quit"})
            sys.exit(0)
        else:
            send({"type": "action", "action": m["legal"][0]})
            answered += 1
            if mode == "exit-after-two" and answered == 2:
                sys.exit(0)
    elif kind == "signal?":
        send({"type": "pass"})
    elif kind == "quit":
        break
"""

#: Records every line it is sent (and its answers) to the file its argument names, and
#: plays the first legal action.
RECORDER = r"""
import json, sys

log = open(sys.argv[1], "a", encoding="utf-8")
for line in sys.stdin:
    log.write(line)
    log.flush()
    m = json.loads(line)
    out = None
    if m["type"] == "hello":
        out = {"type": "ready", "name": "recorder"}
    elif m["type"] == "decide":
        out = {"type": "action", "action": m["legal"][0]}
    elif m["type"] == "signal?":
        out = {"type": "pass"}
    elif m["type"] == "quit":
        break
    if out is not None:
        print(json.dumps(out), flush=True)
"""

#: A bot written with the Python helper: it keeps its own hand from new_hand and the
#: events, and answers an illegal action if that ever differs from what decide says.
HELPER_BOT = r"""
import sys
sys.path.insert(0, sys.argv[1])
from quintet.botproto import serve


def decide(hand, request):
    mine = hand.hands[request["seat"]]
    if request["hand"] is not None and sorted(mine) != sorted(request["hand"]):
        return "bid 120"
    return request["legal"][-1] if request["phase"] == "play" else request["legal"][0]


def signal(hand, request):
    return "signal up" if len(hand.actions) % 3 == 0 else None


serve(decide, signal, name="helper")
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def deal(game: str, variant: str, seed: int, **kw: Any) -> Any:
    rng = random.Random(seed)
    if game == "quinto":
        lone = kw.pop("lone_seat", 1 if variant == "dummy" else None)
        dealer = kw.pop("dealer", 1)
        rules = QuintoRules(variant=variant, target=10_000, **kw)
        return QuintoState.deal(rules, dealer, rng, lone_seat=lone)
    return QuintusState.deal(QuintusRules(variant=variant), kw.pop("dealer", 0), rng)


def codes(message: Any) -> Iterator[str]:
    """Every card code a message holds, wherever it is."""
    if isinstance(message, dict):
        for key, value in message.items():
            if key in ("cards", "hand") and isinstance(value, list):
                yield from value
            elif key == "hands" and isinstance(value, list):
                for h in value:
                    yield from h or []
            elif key == "card":
                yield value
            else:
                yield from codes(value)
    elif isinstance(message, list):
        for item in message:
            yield from codes(item)


def hidden_codes(state: Any, viewer: int) -> set[str]:
    """The cards the player at ``viewer`` may not see in ``state`` (hands, cachette)."""
    vis = state.visible_seats(viewer)
    hidden = 0
    for s in range(state.num_seats):
        if s not in vis:
            hidden |= state.hands[s]
    if state.game == "quinto" and state.observation(viewer).cachette is None:
        hidden |= state.cachette
    return {card_str(c) for c in mask_cards(hidden)}


def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.skip("node is not installed: the JavaScript example bot cannot run")
    return path


# ------------------------------------------------------------------ example bots


@pytest.mark.parametrize(("game", "variant"), VARIANTS)
def test_javascript_example_plays_in_the_arena(game: str, variant: str, tmp_path: Path) -> None:
    node()
    out = tmp_path / "results.json"
    bots = f"cmd:node {JS_BOT},random"
    args = ["arena", "--game", game, "--variant", variant, "--bots", bots, "--seed", "4"]
    args += ["--deals", "2" if game == "quinto" else "1", "--jobs", "1", "--out", str(out)]
    if game == "quinto":
        args += ["--rubbers", "1" if variant == "partnership" else "0"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "External bots" not in result.output
    data = json.loads(out.read_text())
    assert data["incidents"] == []
    (pair,) = data["pairs"]
    assert pair["a"] == f"cmd:node {JS_BOT}"
    seatings = 2 if game == "quinto" else 6
    assert len(data["records"]) >= len(pair["deals"]) * seatings
    for rec in data["records"]:
        assert "error" not in score(record_from_json(rec))


@pytest.mark.parametrize(("game", "variant"), VARIANTS)
def test_examples_play_whole_hands_from_python(game: str, variant: str) -> None:
    node()
    for command in (f"node {shlex.quote(str(JS_BOT))}", f"sh {shlex.quote(str(SH_BOT))}"):
        state = deal(game, variant, 7)
        bots: list[Bot] = [ExternalBot(command) for _ in range(state.num_seats)]
        bots[1] = HeuristicBot()
        play_out(state, bots, random.Random(3))
        assert state.is_terminal()
        assert finish_hand(bots, state) == []
        assert all(b.fallbacks == 0 for b in bots if isinstance(b, ExternalBot))


def test_python_helper_tracks_the_hand_and_signals(tmp_path: Path) -> None:
    script = write(tmp_path, "helper.py", HELPER_BOT)
    for seed in range(3):
        state = deal("quintus", "base", seed)
        bot = ExternalBot([sys.executable, str(script), str(ROOT)])
        bots: list[Bot] = [HeuristicBot() for _ in range(5)]
        bots[1] = bots[2] = bot
        play_out(state, bots, random.Random(seed))
        finish_hand(bots, state)
        assert bot.incidents == [] and bot.fallbacks == 0
        signals = [a for s, a in state.history() if s in (1, 2) and 67 <= a <= 69]
        assert signals, "the helper bot gave no signal"


# ------------------------------------------------------------------ misbehaving bots

CASES = {
    "crash": ["crash", "crash", "gave_up"],
    "sleep": ["timeout", "timeout", "gave_up"],
    "no-ready": ["start", "start", "gave_up"],
    "wrong-version": ["start", "start", "gave_up"],
    "garbage": ["garbage"] * 13,
    "wrong-type": ["garbage"] * 13,
    "illegal": ["illegal"] * 13,
    "quit": ["quit"],
}


@pytest.mark.parametrize("mode", list(CASES))
def test_a_misbehaving_bot_is_replaced_by_the_fallback_and_reported(
    mode: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    script = write(tmp_path, "bad.py", BAD_BOT)
    pids = tmp_path / "pids"
    bot = ExternalBot(
        [sys.executable, str(script), mode, str(pids)], max_restarts=1, startup_timeout=1.0
    )
    state = deal("quinto", "partnership", 3)
    bots: list[Bot] = [bot, HeuristicBot(), HeuristicBot(), HeuristicBot()]
    with caplog.at_level(logging.WARNING, logger="quintet.botproto"):
        play_out(state, bots, random.Random(9), Budget(seconds=0.2))
        incidents = finish_hand(bots, state)
    assert [x.kind for x in incidents] == CASES[mode]
    assert incidents == bot.incidents and bot.fallbacks == 13
    for x in incidents:
        assert x.seat == 0 and x.bot == bot.name and x.detail
        if x.kind != "gave_up":
            assert x.fallback is not None and x.request == "decide"
            assert any(x.kind in r.getMessage() for r in caplog.records)
    if mode == "crash":
        assert "exited with status 3: boom: the bot fell over" in incidents[0].detail
    if mode == "wrong-version":
        assert "version 99" in incidents[0].detail
    # Every decision was the fallback's: the hand is the one a heuristic bot plays.
    reference = deal("quinto", "partnership", 3)
    play_out(reference, [HeuristicBot() for _ in range(4)], random.Random(9))
    assert state.history() == reference.history()
    # No bot process outlives the hand.
    for pid in map(int, pids.read_text().split()):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_a_bot_that_exits_between_decisions_is_started_again(tmp_path: Path) -> None:
    script = write(tmp_path, "bad.py", BAD_BOT)
    pids = tmp_path / "pids"
    bot = ExternalBot([sys.executable, str(script), "exit-after-two", str(pids)], max_restarts=2)
    state = deal("quinto", "partnership", 5)
    bots: list[Bot] = [bot, HeuristicBot(), HeuristicBot(), HeuristicBot()]

    def pause(state: Any, seat: int, action: Action, who: Bot) -> None:
        if who is bot:
            time.sleep(0.1)  # time for the process to exit before its next decision

    play_out(state, bots, random.Random(1), listener=pause)
    incidents = finish_hand(bots, state)
    assert [x.kind for x in incidents] == ["crash", "crash", "crash", "gave_up"]
    for x in incidents[:3]:
        assert x.fallback is None and "between decisions" in x.detail
    assert len(pids.read_text().split()) == 3  # started, then started again twice
    assert bot.fallbacks == 13 - 6  # three processes answered two decisions each


def test_arena_reports_incidents_and_rejects_a_bot_that_does_not_start(tmp_path: Path) -> None:
    script = write(tmp_path, "bad.py", BAD_BOT)
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} illegal"
    command += f" {shlex.quote(str(tmp_path / 'pids'))}"
    cfg = ArenaConfig(bots=(f"cmd:{command}", "random"), deals=1, rubbers=0, jobs=1)
    result = run_arena(cfg)
    incidents = result.incidents()
    assert len(incidents) == 4 * 13  # two seats in each of the two seatings
    first = incidents[0]
    assert first["pair"] == [f"cmd:{command}", "random"] and first["deal"] == 0
    assert first["kind"] == "illegal" and first["label"] == f"cmd:{command}"
    assert {x["seating"] for x in incidents} == {0, 1}
    assert result.to_json()["pairs"][0]["deals"][0]["incidents"][0]["kind"] == "illegal"
    assert "External bots" in result.table() and "illegal" in result.table()
    with pytest.raises(InvalidOptionError, match="does not start"):
        run_arena(ArenaConfig(bots=("cmd:no-such-program-here", "random"), deals=1, jobs=1))
    bad = CliRunner().invoke(main, ["arena", "--bots", "cmd:no-such-program-here,random"])
    assert bad.exit_code == 2 and "does not start" in bad.output


# ------------------------------------------------------------------ what a bot is sent


def new_messages(log: Path, done: int, hidden: set[str]) -> list[JSON]:
    """The messages a recorder logged after the first ``done``, checked against ``hidden``."""
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    out = []
    for line in lines[done:]:
        message = json.loads(line)
        leaked = set(codes(message)) & hidden
        assert not leaked, (message, leaked)
        out.append(message)
    return out


class OpenNil:
    """The heuristic, except that it always declares open nil."""

    name = "open-nil"

    def __init__(self) -> None:
        self.inner = HeuristicBot()

    def act(self, view: BotView) -> Action:
        return NIL_OPEN if NIL_OPEN in view.legal else self.inner.act(view)

    def signal(self, view: BotView) -> Action | None:
        return self.inner.signal(view)


SEEN_CASES = [
    ("quinto", "partnership", {}, 0, None),
    ("quinto", "dummy", {"lone_seat": 1, "dealer": 2, "dummy_double_view": "leading"}, 1, 1),
    ("quinto", "dummy", {"lone_seat": 1}, 2, None),
    ("quinto", "dummy", {"lone_seat": 1}, 1, 3),
    ("quintus", "base", {}, 1, 4),
    ("quintus", "bidding", {}, 2, None),
]


@pytest.mark.parametrize(("game", "variant", "kw", "viewer", "revealed"), SEEN_CASES)
def test_a_bot_is_never_sent_a_card_its_player_cannot_see(
    game: str, variant: str, kw: JSON, viewer: int, revealed: int | None, tmp_path: Path
) -> None:
    script = write(tmp_path, "recorder.py", RECORDER)
    for seed in range(3):
        log = tmp_path / f"seen{seed}.jsonl"
        state = deal(game, variant, seed, **dict(kw))
        bots: list[Bot] = [HeuristicBot() for _ in range(state.num_seats)]
        if game == "quintus":
            bots[4] = OpenNil()
        bots[viewer] = ExternalBot([sys.executable, str(script), str(log)])
        rng = random.Random(seed)
        messages: list[JSON] = []
        while not state.is_terminal():
            before = state.clone()
            bot_step(state, bots, rng)
            messages += new_messages(log, len(messages), hidden_codes(before, viewer))
        finish_hand(bots, state)
        messages += new_messages(log, len(messages), hidden_codes(state, viewer))
        kinds = [m["type"] for m in messages]
        assert kinds[:2] == ["hello", "new_hand"] and kinds[-2:] == ["end_hand", "quit"]
        start = messages[1]
        assert start["seat"] == viewer
        assert start["controls"] == [
            s for s in range(state.num_seats) if state.controller(s) == viewer
        ]
        reveals = [m["seat"] for m in messages if m.get("event") == "reveal"]
        if revealed is not None:
            assert reveals == [revealed]
        actions = [m for m in messages if m.get("event") == "action"]
        assert len(actions) == len(state.history())


def test_events_grow_as_the_hand_goes_on() -> None:
    state = deal("quintus", "bidding", 2)
    rng = random.Random(2)
    bots = [HeuristicBot() for _ in range(5)]
    previous: list[JSON] = []
    while not state.is_terminal():
        events = hand_events(state, 3, [3])
        assert events[: len(previous)] == previous
        previous = events
        bot_step(state, bots, rng)
    assert any(e["event"] == "quintus" for e in previous)
    start = new_hand_message(state, 3)
    assert start["hands"][3] is not None and start["hands"].count(None) == 4


# ------------------------------------------------------------------ tables


def test_a_table_seats_an_allowed_command_for_several_hands(tmp_path: Path) -> None:
    script = write(tmp_path, "recorder.py", RECORDER)
    log = tmp_path / "table.jsonl"
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} {shlex.quote(str(log))}"
    with pytest.raises(InvalidOptionError, match="not allowed"):
        make_bot(f"cmd:{command}")
    allow_commands(command)
    table = Table.new("quinto", seats=[f"cmd:{command}"] + ["heuristic"] * 3, seed=2)
    bot = table.bots[0]
    assert isinstance(bot, ExternalBot)
    for hand in range(2):
        if hand:
            table.deal()
        table.run_bots()
        assert table.hand_over()
        finish_hand(table.bots, table.state, close=False)
    bot.close()
    messages = [json.loads(line) for line in log.read_text().splitlines()]
    assert [m["type"] for m in messages].count("hello") == 1  # one process for both hands
    assert [m["type"] for m in messages].count("new_hand") == 2
    assert [m["type"] for m in messages].count("end_hand") == 2
    assert bot.incidents == []


@pytest.mark.parametrize(("mode", "why"), [("spin", "CPU seconds"), ("sleep", "in time")])
def test_an_external_bots_budget_is_cpu_time_with_wall_time_as_a_ceiling(
    mode: str, why: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule: a bot's budget is CPU seconds of its processes; one that computes past it is
    stopped on its CPU time, one that only waits on the wall-time ceiling."""
    if mode == "spin":
        # However loaded the machine, the CPU limit and not the wall ceiling must stop it.
        import quintet.botproto.manager as manager

        monkeypatch.setattr(manager, "WALL_PER_CPU", 1000.0)
    script = write(tmp_path, "bad.py", BAD_BOT)
    pids = tmp_path / "pids"
    bot = ExternalBot([sys.executable, str(script), mode, str(pids)], max_restarts=0)
    state = deal("quinto", "partnership", 3)
    view = BotView.of(state, state.current_player(), random.Random(1), Budget(seconds=0.2))
    bot.act(view)
    bot.close()
    assert bot.incidents and bot.incidents[0].kind == "timeout"
    assert why in bot.incidents[0].detail, bot.incidents[0].detail
