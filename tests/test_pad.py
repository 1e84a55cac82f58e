"""The score pad agrees with the scorer: pads written from random complete records (what a
person at the table would have noted from each record's events) score exactly as
``quintet score`` scores the record, in all four variants; corrections recompute."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quintet.pad import PadError, dumps, new_pad, pad_from_json, read_pad
from quintet.pad.commands import entry_command, parse_command
from quintet.pad.fromrecord import pad_entries
from quintet.pad.sheets import board, export, ledger, rubber_sheet
from quintet.quinto import QuintoMatch, QuintoRules
from quintet.quintus import QuintusMatch, QuintusRules
from quintet.record import Record, example_text, read_record, record_from_match, score

JSON = dict[str, Any]


def _play(match: Any, rng: random.Random, hands: int) -> None:
    """Play random legal hands to the match's end (or ``hands`` hands)."""
    for _ in range(hands):
        if match.is_over():
            break
        state = match.start_hand(rng=random.Random(rng.randrange(1 << 30)))
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))


def quinto_record(seed: int, dummy: bool, target: int, bonus: int, handicap: int) -> Record:
    """A random complete Quinto match: a rubber, or a dummy game."""
    rng = random.Random(seed)
    rules = QuintoRules(
        variant="dummy" if dummy else "partnership",
        target=target,
        rubber_bonus=bonus,
        dummy_handicap=handicap,
    )
    lone = seed % 4 if dummy else None
    match = QuintoMatch(rules, first_dealer=None if dummy else seed % 4, lone_seat=lone)
    _play(match, rng, 60)
    return read_record(json.dumps(record_from_match(match).to_json()))


def quintus_record(seed: int, bidding: bool, hands: int) -> Record:
    """A random complete Quintus session."""
    rng = random.Random(seed)
    rules = QuintusRules(variant="bidding" if bidding else "base", hands=hands)
    match = QuintusMatch(rules, first_dealer=seed % 5)
    _play(match, rng, 3 * hands)
    return read_record(json.dumps(record_from_match(match).to_json()))


def pad_of(record: Record, cards: bool = True) -> Any:
    """The pad a person would have kept for ``record``."""
    pad = new_pad(
        record.game,
        record.variant,
        record.options,
        first_dealer=record.hands[0].dealer if record.hands else 0,
        lone_seat=record.lone_seat,
    )
    pad.set_entries(pad_entries(record, cards))
    return pad


def agree(record: Record, cards: bool = True) -> Any:
    pad = pad_of(record, cards)
    assert pad.score_summary() == score(record)
    # The document round-trips: a pad read back from its JSON is the same pad.
    again = read_pad(dumps(pad))
    assert again.entries == pad.entries and again.score_summary() == pad.score_summary()
    return pad


FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(
    seed=st.integers(0, 1 << 30),
    target=st.sampled_from([30, 60, 120, 250]),
    bonus=st.sampled_from([0, 100]),
)
def test_quinto_partnership_pads_agree_with_the_scorer(seed: int, target: int, bonus: int) -> None:
    agree(quinto_record(seed, False, target, bonus, 25))


@FAST
@given(
    seed=st.integers(0, 1 << 30),
    target=st.sampled_from([30, 80, 250]),
    handicap=st.sampled_from([0, 25, 40]),
)
def test_quinto_dummy_pads_agree_with_the_scorer(seed: int, target: int, handicap: int) -> None:
    agree(quinto_record(seed, True, target, 100, handicap))


@FAST
@given(seed=st.integers(0, 1 << 30), hands=st.integers(1, 6), cards=st.booleans())
def test_quintus_base_pads_agree_with_the_scorer(seed: int, hands: int, cards: bool) -> None:
    agree(quintus_record(seed, False, hands), cards)


@FAST
@given(seed=st.integers(0, 1 << 30), hands=st.integers(1, 6), cards=st.booleans())
def test_quintus_bidding_pads_agree_with_the_scorer(seed: int, hands: int, cards: bool) -> None:
    agree(quintus_record(seed, True, hands), cards)


@pytest.mark.parametrize(
    "name", ["quinto-partnership", "quinto-dummy", "quintus-base", "quintus-bidding"]
)
@pytest.mark.parametrize("cards", [True, False])
def test_example_records_pads_agree(name: str, cards: bool) -> None:
    record = read_record(example_text(name))
    expected = score(record)
    pad = pad_of(record, cards)
    if record.game == "quintus":  # the pad takes a Quintus hand once it is over
        expected["hands"] = [h for h in expected["hands"] if h["score"] is not None]
        expected["complete"] = True
    assert pad.score_summary() == expected


def test_the_random_pads_reach_every_ending() -> None:
    """The random records used above do hold games won by a quint, by the cachette, by
    tricks, and ties: the agreement covers each way a game ends."""
    seen: set[str] = set()
    for seed in range(300):
        pad = pad_of(quinto_record(seed, seed % 2 == 1, [30, 60, 120][seed % 3], 100, 25))
        for h in pad.computed.hands:
            if h.tied:
                seen.add("tie")
            elif h.winner is not None:
                seen.add(h.ended_by or "tricks")
        if len(seen) == 4:
            break
    assert seen == {"quint", "cachette", "tricks", "tie"}


def test_every_entry_reads_back_from_its_command_line() -> None:
    for name in ("quinto-partnership", "quintus-bidding"):
        for cards in (True, False):
            pad = pad_of(read_record(example_text(name)), cards)
            for e in pad.entries:
                assert parse_command(pad, entry_command(pad, e)) == e


def test_a_correction_recomputes_everything_after_it() -> None:
    pad = new_pad("quinto", options={"target": 100})
    pad.add({"type": "quint", "quint": "5H", "side": 0})
    pad.add({"type": "cachette", "side": 1, "quints": []})
    pad.add({"type": "tricks", "tricks": [6, 7]})  # 20 + 30 = 50 to 35
    pad.add({"type": "quint", "quint": "JK", "side": 0})  # hand 2: 75
    assert pad.computed.hands[1].score == [75, 35]
    pad.replace(0, {"type": "quint", "quint": "5S", "side": 0})  # 5 instead of 20
    assert pad.computed.hands[0].score == [35, 35]
    assert pad.computed.hands[1].score == [60, 35]
    pad.delete(0)
    assert pad.computed.hands[0].score == [30, 35]
    assert pad.undo() == {"type": "quint", "quints": ["JK"], "side": 0}


def test_a_correction_that_breaks_a_later_entry_is_refused_unchanged() -> None:
    pad = new_pad("quinto", options={"target": 60})
    pad.add({"type": "quint", "quint": "5S", "side": 0})
    pad.add({"type": "quint", "quint": "5D", "side": 0})
    before = pad.to_json()
    with pytest.raises(PadError) as e:
        pad.replace(0, {"type": "quint", "quint": "5D", "side": 1})
    assert e.value.entry == 1
    assert e.value.detail == (
        "entry 1 would no longer fit: the 5♦ quint was already entered in hand 1 (entry 0): "
        "each quint falls once a hand (delete or correct it first)"
    )
    assert pad.to_json() == before


def test_sheets_and_exports() -> None:
    quinto = pad_of(read_record(example_text("quinto-partnership")))
    text = export(quinto, "text")
    assert "Quinto rubber" in text and "tricks 4-9 at 10" in text
    assert rubber_sheet(quinto) in text and board(quinto) in text
    rows = export(quinto, "csv").splitlines()
    assert rows[0].startswith("game,hand,dealer") and len(rows) == 1 + len(quinto.computed.hands)
    doc = json.loads(export(quinto, "json"))
    assert doc["summary"] == quinto.score_summary() and pad_from_json(doc).entries == quinto.entries
    quintus = pad_of(read_record(example_text("quintus-bidding")))
    led = ledger(quintus)
    assert "smaller share 21.33 rounds to an even s = 22" in led
    assert "seat 4 pays seat 1 13" in led
    with pytest.raises(ValueError, match="unknown export format 'pdf'"):
        export(quintus, "pdf")


def test_the_cribbage_board_pegs() -> None:
    pad: Any = new_pad("quinto", options={"target": 100})
    pad.add({"type": "quint", "quint": "5H", "side": 0})
    pad.add({"type": "quint", "quint": "JK", "side": 0})
    lines = board(pad, width=20).splitlines()
    assert lines[0] == "Game 1 to 100  (one hole = 5 points)"
    assert lines[1] == "N-S |----.----o----------| 45"  # back peg at 20, front at 45
    assert lines[2] == "E-W |--------------------| 0"


def test_the_rulebook_settlement_with_its_formula() -> None:
    pad = new_pad("quintus", "bidding", first_dealer=4)
    pad.add({"type": "hand", "bid": 40, "bidder": 0, "trump": "H", "points": [40, 8, 13]})
    h = pad.view()["hands"][0]
    assert h["made"] is True and h["scores"] == [40, -12, -8, -12, -8]
    f = h["settlement"]["formula"]
    assert "shares: 8/21 x 40 = 15.24, 13/21 x 40 = 24.76" in f
    assert "smaller share 15.24 rounds to an even s = 16" in f
    assert "seat 2 pays seat 0 8" in f and "seat 1 pays seat 0 12" in f


def test_a_pad_file_names_its_bad_entry() -> None:
    doc = new_pad("quinto").to_json()
    doc["entries"] = [
        {"type": "quint", "quint": "5H", "side": 0},
        {"type": "tricks", "tricks": [6, 7]},
    ]
    with pytest.raises(PadError) as e:
        pad_from_json(doc)
    assert e.value.entry == 1
    assert e.value.to_json() == {
        "error": "impossible entry",
        "entry": 1,
        "detail": "enter who took the cachette (the 12th trick) before the tricks of hand 1",
    }
