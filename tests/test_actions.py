"""The action space: numbering, text forms, record JSON forms and their errors."""

from __future__ import annotations

from typing import Any

import pytest

from quintet.actions import (
    BID_BASE,
    DECLINE,
    DOUBLE,
    FIELDS_OF,
    MELD_COURT,
    MELD_STRAIGHT,
    NIL_CLOSED,
    NIL_NONE,
    NIL_OPEN,
    NUM_ACTIONS,
    PASS,
    REDOUBLE,
    SIGNAL_ASK,
    SIGNAL_DOWN,
    SIGNAL_UP,
    TRUMP_BASE,
    TRUMP_NT,
    action_from_json,
    action_str,
    action_to_json,
    action_type,
    bid,
    bid_amount,
    is_bid,
    is_play,
    is_signal,
    parse_action,
)
from quintet.cards import JOKER, parse_card
from quintet.errors import InvalidActionError, InvalidCardError, QuintetError

ALL_ACTIONS = range(NUM_ACTIONS)


# --------------------------------------------------------------------------- numbering


def test_action_numbers_follow_the_documented_layout() -> None:
    assert (PASS, DOUBLE, REDOUBLE) == (53, 54, 55)
    assert [TRUMP_BASE + s for s in range(4)] == [56, 57, 58, 59]
    assert TRUMP_NT == 60
    assert (NIL_NONE, NIL_CLOSED, NIL_OPEN) == (61, 62, 63)
    assert (MELD_COURT, MELD_STRAIGHT, DECLINE) == (64, 65, 66)
    assert (SIGNAL_UP, SIGNAL_DOWN, SIGNAL_ASK) == (67, 68, 69)
    assert BID_BASE == 70
    assert NUM_ACTIONS == 116  # bids 30, 32, ..., 120: 46 of them


def test_playing_a_card_is_the_card_number() -> None:
    for c in range(53):
        assert is_play(c)
        assert action_type(c) == "play"
    assert parse_action("AH") == parse_card("AH")
    assert parse_action("JK") == JOKER
    assert not is_play(PASS)
    assert not is_play(-1)


def test_bids_are_even_numbers_from_30_to_120() -> None:
    assert bid(30) == BID_BASE
    assert bid(32) == BID_BASE + 1
    assert bid(120) == NUM_ACTIONS - 1
    for amount in range(30, 121, 2):
        a = bid(amount)
        assert is_bid(a)
        assert bid_amount(a) == amount
    assert not is_bid(BID_BASE - 1)
    assert not is_bid(NUM_ACTIONS)


@pytest.mark.parametrize("amount", [28, 29, 31, 121, 122, 0, -30, 119])
def test_bid_rejects_amounts_outside_the_even_range(amount: int) -> None:
    with pytest.raises(InvalidActionError, match="even number from 30 to 120"):
        bid(amount)


@pytest.mark.parametrize("amount", [True, False, 40.0, "40", None])
def test_bid_rejects_non_integers(amount: object) -> None:
    with pytest.raises(InvalidActionError, match="even number from 30 to 120"):
        bid(amount)  # type: ignore[arg-type]


def test_is_signal_marks_only_the_three_signals() -> None:
    assert [a for a in ALL_ACTIONS if is_signal(a)] == [SIGNAL_UP, SIGNAL_DOWN, SIGNAL_ASK]


def test_action_type_names_every_action() -> None:
    kinds = [action_type(a) for a in ALL_ACTIONS]
    assert kinds[:53] == ["play"] * 53
    assert kinds[53:70] == (
        ["pass", "double", "redouble"]
        + ["trump"] * 5
        + ["nil"] * 3
        + ["meld"] * 2
        + ["decline"]
        + ["signal"] * 3
    )
    assert set(kinds[70:]) == {"bid"}


@pytest.mark.parametrize("number", [-1, NUM_ACTIONS, 200])
def test_action_type_rejects_numbers_outside_the_space(number: int) -> None:
    with pytest.raises(InvalidActionError, match="not an action number"):
        action_type(number)


# ------------------------------------------------------------------------- text forms


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("AS", 12),
        ("as", 12),
        ("10h", parse_card("TH")),
        ("TH", parse_card("TH")),
        ("jk", JOKER),
        ("play QS", parse_card("QS")),
        ("PLAY 10c", parse_card("TC")),
        ("pass", PASS),
        ("Pass", PASS),
        ("double", DOUBLE),
        ("REDOUBLE", REDOUBLE),
        ("decline", DECLINE),
        ("trump S", TRUMP_BASE),
        ("trump c", TRUMP_BASE + 1),
        ("trump D", TRUMP_BASE + 2),
        ("Trump h", TRUMP_BASE + 3),
        ("trump NT", TRUMP_NT),
        ("trump sa", TRUMP_NT),
        ("NT", TRUMP_NT),
        ("sa", TRUMP_NT),
        ("nil none", NIL_NONE),
        ("nil closed", NIL_CLOSED),
        ("NIL Open", NIL_OPEN),
        ("meld court", MELD_COURT),
        ("meld Straight", MELD_STRAIGHT),
        ("signal up", SIGNAL_UP),
        ("signal down", SIGNAL_DOWN),
        ("signal ASK", SIGNAL_ASK),
        ("up", SIGNAL_UP),
        ("down", SIGNAL_DOWN),
        ("ask", SIGNAL_ASK),
        ("bid 30", BID_BASE),
        ("bid 44", BID_BASE + 7),
        ("BID 120", NUM_ACTIONS - 1),
        ("  bid   40  ", bid(40)),
    ],
)
def test_parse_action_text_forms(text: str, action: int) -> None:
    assert parse_action(text) == action


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (parse_card("TH"), "TH"),
        (parse_card("2S"), "2S"),
        (JOKER, "JK"),
        (PASS, "pass"),
        (DOUBLE, "double"),
        (REDOUBLE, "redouble"),
        (DECLINE, "decline"),
        (TRUMP_BASE, "trump S"),
        (TRUMP_BASE + 3, "trump H"),
        (TRUMP_NT, "trump NT"),
        (NIL_NONE, "nil none"),
        (NIL_OPEN, "nil open"),
        (MELD_COURT, "meld court"),
        (MELD_STRAIGHT, "meld straight"),
        (SIGNAL_ASK, "signal ask"),
        (BID_BASE, "bid 30"),
        (bid(88), "bid 88"),
    ],
)
def test_action_str_is_the_canonical_text(action: int, text: str) -> None:
    assert action_str(action) == text


def test_every_action_round_trips_through_its_text() -> None:
    for a in ALL_ACTIONS:
        assert parse_action(action_str(a)) == a


def test_action_str_rejects_numbers_outside_the_space() -> None:
    with pytest.raises(InvalidActionError, match="not an action number"):
        action_str(NUM_ACTIONS)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty action"),
        ("   ", "empty action"),
        ("play", "play needs a card"),
        ("play ZZ", "not a card code"),
        ("play 11H", "not a card code"),
        ("hello", "unknown action 'hello'"),
        ("XX", "unknown action"),
        ("bid", "unknown action 'bid'"),
        ("bid 31", "even number from 30 to 120"),
        ("bid 28", "even number from 30 to 120"),
        ("bid 122", "even number from 30 to 120"),
        ("bid forty", "a bid needs a number"),
        ("bid 40.0", "a bid needs a number"),
        ("trump X", "trump must be one of S, C, D, H, NT"),
        ("trump spades", "trump must be one of"),
        ("nil maybe", "nil kind must be one of none, closed, open"),
        ("meld flush", "combination must be one of court, straight"),
        ("signal left", "signal must be one of up, down, ask"),
        ("double now", "unknown action 'double now'"),
        ("play AS KS", "unknown action"),
        ("pass pass pass", "unknown action"),
    ],
)
def test_parse_action_errors(text: str, message: str) -> None:
    with pytest.raises(InvalidActionError, match=message):
        parse_action(text)


@pytest.mark.parametrize("value", [None, 53, ["pass"], b"pass"])
def test_parse_action_rejects_non_text(value: object) -> None:
    with pytest.raises(InvalidActionError, match="an action must be text"):
        parse_action(value)  # type: ignore[arg-type]


def test_invalid_action_error_is_not_an_invalid_card_error() -> None:
    # Bad card codes inside an action are reported as InvalidActionError.
    with pytest.raises(InvalidActionError) as info:
        parse_action("play ZZ")
    assert not isinstance(info.value, InvalidCardError)
    assert isinstance(info.value, QuintetError)
    assert isinstance(info.value, ValueError)


# ------------------------------------------------------------------------- JSON forms


@pytest.mark.parametrize(
    ("action", "obj"),
    [
        (parse_card("TH"), {"seat": 2, "type": "play", "card": "TH"}),
        (JOKER, {"seat": 2, "type": "play", "card": "JK"}),
        (PASS, {"seat": 2, "type": "pass"}),
        (DOUBLE, {"seat": 2, "type": "double"}),
        (REDOUBLE, {"seat": 2, "type": "redouble"}),
        (DECLINE, {"seat": 2, "type": "decline"}),
        (TRUMP_BASE + 2, {"seat": 2, "type": "trump", "suit": "D"}),
        (TRUMP_NT, {"seat": 2, "type": "trump", "suit": "NT"}),
        (NIL_CLOSED, {"seat": 2, "type": "nil", "kind": "closed"}),
        (MELD_STRAIGHT, {"seat": 2, "type": "meld", "combo": "straight"}),
        (SIGNAL_DOWN, {"seat": 2, "type": "signal", "signal": "down"}),
        (bid(64), {"seat": 2, "type": "bid", "amount": 64}),
    ],
)
def test_action_to_json_gives_the_record_form(action: int, obj: dict[str, Any]) -> None:
    assert action_to_json(action, 2) == obj
    assert action_from_json(obj, 5) == (2, action)


def test_every_action_round_trips_through_json() -> None:
    for seat in range(5):
        for a in ALL_ACTIONS:
            obj = action_to_json(a, seat)
            assert set(obj) == {"seat", "type", *FIELDS_OF[obj["type"]]}
            assert action_from_json(obj, 5) == (seat, a)


def test_action_from_json_accepts_lower_case_values() -> None:
    assert action_from_json({"seat": 0, "type": "play", "card": "10h"}, 4) == (
        0,
        parse_card("TH"),
    )
    assert action_from_json({"seat": 1, "type": "trump", "suit": "nt"}, 5) == (1, TRUMP_NT)


def test_action_from_json_ignores_optional_extra_fields() -> None:
    # record-format.md lets records carry optional fields; record.py keeps them aside.
    obj = {"seat": 3, "type": "pass", "comment": "hmm", "time": 1.5}
    assert action_from_json(obj, 4) == (3, PASS)


def test_fields_of_names_the_fields_of_each_action_type() -> None:
    assert dict(FIELDS_OF) == {
        "play": ("card",),
        "pass": (),
        "double": (),
        "redouble": (),
        "decline": (),
        "trump": ("suit",),
        "nil": ("kind",),
        "meld": ("combo",),
        "signal": ("signal",),
        "bid": ("amount",),
    }


@pytest.mark.parametrize(
    ("obj", "seats", "message"),
    [
        ([], 4, "an action must be an object, not list"),
        ("pass", 4, "an action must be an object, not str"),
        (None, 4, "an action must be an object, not NoneType"),
        ({"type": "pass"}, 4, "action has no 'seat'"),
        ({"seat": 4, "type": "pass"}, 4, r"seat 4 is out of range 0\.\.3"),
        ({"seat": 5, "type": "pass"}, 5, r"seat 5 is out of range 0\.\.4"),
        ({"seat": -1, "type": "pass"}, 4, "out of range"),
        ({"seat": True, "type": "pass"}, 4, "out of range"),
        ({"seat": "0", "type": "pass"}, 4, "out of range"),
        ({"seat": None, "type": "pass"}, 4, "out of range"),
        ({"seat": 0}, 4, "action has no 'type'"),
        ({"seat": 0, "type": "fold"}, 4, "unknown action type 'fold'"),
        ({"seat": 0, "type": 53}, 4, "unknown action type 53"),
        ({"seat": 0, "type": "play"}, 4, "play action has no 'card'"),
        ({"seat": 0, "type": "play", "card": 12}, 4, "card must be a card code"),
        ({"seat": 0, "type": "play", "card": "ZZ"}, 4, "not a card code"),
        ({"seat": 0, "type": "bid"}, 5, "bid action has no 'amount'"),
        ({"seat": 0, "type": "bid", "amount": 31}, 5, "even number from 30 to 120"),
        ({"seat": 0, "type": "bid", "amount": "40"}, 5, "even number from 30 to 120"),
        ({"seat": 0, "type": "bid", "amount": True}, 5, "even number from 30 to 120"),
        ({"seat": 0, "type": "trump"}, 5, "trump action has no 'suit'"),
        ({"seat": 0, "type": "trump", "suit": "X"}, 5, "suit must be one of S, C, D, H, NT"),
        ({"seat": 0, "type": "trump", "suit": 1}, 5, "suit must be one of"),
        ({"seat": 0, "type": "nil", "kind": "half"}, 5, "nil kind must be one of"),
        ({"seat": 0, "type": "meld", "combo": "flush"}, 5, "combo must be one of"),
        ({"seat": 0, "type": "signal", "signal": "left"}, 5, "signal must be one of"),
    ],
)
def test_action_from_json_errors(obj: object, seats: int, message: str) -> None:
    with pytest.raises(InvalidActionError, match=message):
        action_from_json(obj, seats)


def test_action_from_json_reports_a_bad_card_as_an_invalid_action() -> None:
    with pytest.raises(InvalidActionError) as info:
        action_from_json({"seat": 0, "type": "play", "card": "1S"}, 4)
    assert not isinstance(info.value, InvalidCardError)
