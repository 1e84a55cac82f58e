"""Game records and the scorer against the binding contract (shared/spec/record-format.md).

Records are built by playing random legal actions in a :class:`QuintoMatch`, written
with :func:`record_from_match` and :func:`dumps`, then mutated as JSON to create each
fault the format names. Every rejection is checked through its error object: the
error kind, the hand and action indices (or their absence) and a phrase of the detail.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

import pytest

from quintet.actions import DOUBLE, PASS, REDOUBLE, Action, action_to_json
from quintet.cards import JOKER, SUIT_OF, card_str, mask_cards, parse_card, suit_cards
from quintet.errors import RecordError
from quintet.quinto import QuintoMatch, QuintoRules, QuintoState, quint_points, random_deal
from quintet.quinto.state import DOUBLING, PLAY
from quintet.record import (
    Record,
    dumps,
    example_text,
    read_record,
    record_from_json,
    record_from_match,
    replay,
    score,
)

JSON = dict[str, Any]
DELETE = object()
CANONICAL = re.compile(r"^(?:[2-9TJQKA][SCDH]|JK)$")

# ------------------------------------------------------------------ helpers


def play_match(
    seed: int,
    rules: QuintoRules | None = None,
    *,
    lone_seat: int | None = None,
    first_dealer: int | None = None,
    max_hands: int | None = None,
    partial: int | None = None,
) -> QuintoMatch:
    """Play random legal actions until the match is over (or ``max_hands`` are dealt).

    With ``partial``, the last hand (number ``max_hands``) stops after that many actions.
    """
    rng = random.Random(seed)
    match = QuintoMatch(rules or QuintoRules(), first_dealer=first_dealer, lone_seat=lone_seat)
    while not match.is_over() and (max_hands is None or len(match.hands) < max_hands):
        state = match.start_hand(rng=random.Random(rng.randrange(1 << 30)))
        last = max_hands is not None and len(match.hands) == max_hands
        n = 0
        while not state.is_terminal():
            if last and partial is not None and n >= partial:
                break
            state.apply_action(rng.choice(state.legal_actions()))
            n += 1
    return match


def as_json(match: QuintoMatch) -> JSON:
    """Return a match's record as parsed JSON, through the project's writer."""
    data: JSON = json.loads(dumps(record_from_match(match)))
    return data


def reject(data: object) -> JSON:
    """Read and score a record (JSON value) that must be rejected; return the error object."""
    with pytest.raises(RecordError) as info:
        score(read_record(json.dumps(data)))
    err = info.value.to_json()
    assert json.loads(json.dumps(err)) == err
    return err


def check_error(
    err: JSON, kind: str, hand: int | None, action: int | None, phrase: str | None
) -> None:
    """Check an error object: kind, indices present exactly when given, detail phrase."""
    assert err["error"] == kind, err
    if hand is None:
        assert "hand" not in err, err
    else:
        assert err.get("hand") == hand, err
    if action is None:
        assert "action" not in err, err
    else:
        assert err.get("action") == action, err
    assert set(err) <= {"error", "hand", "action", "detail"}, err
    assert isinstance(err["detail"], str) and err["detail"], err
    if phrase is not None:
        assert phrase.lower() in err["detail"].lower(), err


def expect(
    data: object, kind: str, hand: int | None, action: int | None, phrase: str | None
) -> None:
    check_error(reject(data), kind, hand, action, phrase)


def mutate(data: JSON, path: tuple[str | int, ...], value: object) -> JSON:
    """Return a deep copy of ``data`` with ``path`` set to ``value`` (or deleted)."""
    out = copy.deepcopy(data)
    target: Any = out
    for p in path[:-1]:
        target = target[p]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


def deal_json(seed: int) -> JSON:
    hands, cachette = random_deal(random.Random(seed))
    return {
        "hands": [[card_str(c) for c in mask_cards(m)] for m in hands],
        "cachette": [card_str(c) for c in mask_cards(cachette)],
    }


def replay_json(data: JSON) -> QuintoMatch:
    match = replay(read_record(json.dumps(data)))
    assert isinstance(match, QuintoMatch)
    return match


def score_of(data: JSON) -> JSON:
    out: JSON = score(read_record(json.dumps(data)))
    return out


@cache
def _partnership_text() -> str:
    # Three hands, default rules: hands 0 and 1 played out, hand 2 stopped part-way.
    for seed in range(100):
        m = play_match(seed, max_hands=3, partial=30)
        if not m.is_over() and all(g.winner is None for g in m.games()):
            return dumps(record_from_match(m))
    raise AssertionError("no partnership base record")


@cache
def _dummy_text() -> str:
    m = play_match(5, QuintoRules(variant="dummy"), lone_seat=1, max_hands=1, partial=20)
    return dumps(record_from_match(m))


def partnership() -> JSON:
    data: JSON = json.loads(_partnership_text())
    return data


def dummy() -> JSON:
    data: JSON = json.loads(_dummy_text())
    return data


def test_base_records_score() -> None:
    assert score_of(partnership())["complete"] is False
    assert score_of(dummy())["complete"] is False


# ------------------------------------------------- invalid: the record as a whole


@pytest.mark.parametrize(
    "text", ["", "  ", "{", "not json", "{'format': 'quintet-record'}", '{"format": 1,}']
)
def test_not_json_is_unreadable(text: str) -> None:
    with pytest.raises(RecordError) as info:
        read_record(text)
    check_error(info.value.to_json(), "unreadable", None, None, "JSON")


def test_bytes_that_are_not_utf8_are_unreadable() -> None:
    with pytest.raises(RecordError) as info:
        read_record(b'{"format": "\xff\xfe"}')
    check_error(info.value.to_json(), "unreadable", None, None, None)


@pytest.mark.parametrize("value", [[], [1, 2], "quinto", 3, 1.5, None, True])
def test_top_level_not_an_object(value: object) -> None:
    expect(value, "invalid", None, None, "object")


@pytest.mark.parametrize("name", ["format", "version", "game", "variant", "hands"])
def test_missing_top_level_field(name: str) -> None:
    expect(mutate(partnership(), (name,), DELETE), "invalid", None, None, name)


@pytest.mark.parametrize("value", ["quintet", "QUINTET-RECORD", "", None, 1, ["quintet-record"]])
def test_wrong_format(value: object) -> None:
    expect(mutate(partnership(), ("format",), value), "invalid", None, None, "format")


@pytest.mark.parametrize("value", [0, 2, "1", 1.5, True, None, [1]])
def test_wrong_version(value: object) -> None:
    expect(mutate(partnership(), ("version",), value), "invalid", None, None, "version")


@pytest.mark.parametrize("value", ["bridge", "Quinto", "", None, 5])
def test_unknown_game(value: object) -> None:
    expect(mutate(partnership(), ("game",), value), "invalid", None, None, "game")


@pytest.mark.parametrize("value", [["quinto"], {"name": "quinto"}])
def test_game_of_unhashable_type_is_invalid_not_a_crash(value: object) -> None:
    # Regression (fixed): record_from_json tests `game not in GAMES` (a dict) with a list or an
    # object as the key: TypeError (unhashable type) escapes instead of an `invalid` error,
    # and `quintet score` crashes with a traceback (exit 1) instead of exit 2.
    expect(mutate(partnership(), ("game",), value), "invalid", None, None, "game")


@pytest.mark.parametrize("value", ["base", "bidding", "Partnership", "", None, 0, ["dummy"]])
def test_unknown_quinto_variant(value: object) -> None:
    expect(mutate(partnership(), ("variant",), value), "invalid", None, None, "variant")


@pytest.mark.parametrize(
    ("options", "phrase"),
    [
        ({"trumps": True}, "trumps"),
        ({"Target": 60}, "Target"),
        ({"hands": 5}, "hands"),  # a quintus option: unknown for quinto
        ({"target": "250"}, "target"),
        ({"target": True}, "target"),
        ({"target": [250]}, "target"),
        ({"rubber_bonus": "100"}, "rubber_bonus"),
        ({"dummy_handicap": False}, "dummy_handicap"),
        ({"joker_eleventh_trick": 1}, "joker_eleventh_trick"),
        ({"joker_eleventh_trick": "true"}, "joker_eleventh_trick"),
        ({"dummy_double_view": "x"}, "dummy_double_view"),
        ({"dummy_double_view": 1}, "dummy_double_view"),
        ({"dummy_double_view": True}, "dummy_double_view"),
    ],
)
def test_bad_options(options: JSON, phrase: str) -> None:
    expect(mutate(partnership(), ("options",), options), "invalid", None, None, phrase)


@pytest.mark.parametrize(
    "options",
    [
        {"target": "250"},
        {"joker_eleventh_trick": 1},
        {"dummy_double_view": "x"},
        {"dummy_handicap": "25"},
        {"hands": 5},
    ],
)
def test_bad_options_in_a_dummy_record(options: JSON) -> None:
    expect(mutate(dummy(), ("options",), options), "invalid", None, None, next(iter(options)))


@pytest.mark.parametrize("value", [[], "target=60", 60, True])
def test_options_not_an_object(value: object) -> None:
    expect(mutate(partnership(), ("options",), value), "invalid", None, None, "options")


@pytest.mark.parametrize("make", [partnership, dummy])
def test_options_absent_or_null_mean_the_defaults(make: Callable[[], JSON]) -> None:
    base = make()
    assert base["options"] == {}
    want = score_of(base)
    for variant in (mutate(base, ("options",), DELETE), mutate(base, ("options",), None)):
        assert score_of(variant) == want
        rec = read_record(json.dumps(variant))
        assert rec.options == {}
        assert read_record(dumps(rec)) == rec


def test_explicit_default_option_values_score_like_no_options() -> None:
    base = partnership()
    opts = {
        "target": 250,
        "rubber_bonus": 100,
        "dummy_handicap": 25,
        "joker_eleventh_trick": False,
        "dummy_double_view": "own",
    }
    assert score_of(mutate(base, ("options",), opts)) == score_of(base)


@pytest.mark.parametrize("value", [DELETE, None, 4, -1, "1", True])
def test_dummy_record_needs_lone_seat_0_to_3(value: object) -> None:
    expect(mutate(dummy(), ("lone_seat",), value), "invalid", None, None, "lone_seat")


@pytest.mark.parametrize("value", [0, 1, 3, "0"])
def test_partnership_record_with_lone_seat(value: object) -> None:
    expect(mutate(partnership(), ("lone_seat",), value), "invalid", None, None, "lone_seat")


def test_partnership_lone_seat_absent_or_null_is_fine() -> None:
    base = partnership()
    assert base["lone_seat"] is None
    assert score_of(mutate(base, ("lone_seat",), DELETE)) == score_of(base)


@pytest.mark.parametrize("value", [None, {}, "hands", 0])
def test_hands_not_a_list(value: object) -> None:
    expect(mutate(partnership(), ("hands",), value), "invalid", None, None, "hands")


def test_deeply_nested_json_is_rejected_not_a_crash() -> None:
    # Regression (fixed): json.loads raises RecursionError (not a ValueError) for deeply nested
    # input; read_record lets it escape, so `quintet score` crashes instead of exit 2.
    for text in ("[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000):
        try:
            read_record(text)
        except RecordError as e:
            assert e.kind in ("unreadable", "invalid")
        else:
            raise AssertionError("accepted a deeply nested non-record")


# ------------------------------------------------------- invalid: a hand's deal


@pytest.mark.parametrize("value", [None, [], "hand", 3])
def test_hand_not_an_object(value: object) -> None:
    expect(mutate(partnership(), ("hands", 1), value), "invalid", 1, None, "object")


@pytest.mark.parametrize("name", ["dealer", "deal", "actions"])
def test_hand_missing_field(name: str) -> None:
    expect(mutate(partnership(), ("hands", 2, name), DELETE), "invalid", 2, None, name)


@pytest.mark.parametrize("name", ["hands", "cachette"])
def test_deal_missing_field(name: str) -> None:
    expect(mutate(partnership(), ("hands", 1, "deal", name), DELETE), "invalid", 1, None, name)


def test_dummy_deal_missing_cachette() -> None:
    expect(
        mutate(dummy(), ("hands", 0, "deal", "cachette"), DELETE), "invalid", 0, None, "cachette"
    )


@pytest.mark.parametrize("value", [4, -1, "0", None, True])
def test_dealer_out_of_range(value: object) -> None:
    expect(mutate(partnership(), ("hands", 1, "dealer"), value), "invalid", 1, None, "dealer")


@pytest.mark.parametrize("value", [[], "deal", None])
def test_deal_not_an_object(value: object) -> None:
    expect(mutate(partnership(), ("hands", 0, "deal"), value), "invalid", 0, None, "deal")


@pytest.mark.parametrize("code", ["ZZ", "1S", "AX", "", "A", "ASS", "11H", "J K", "JOKER"])
def test_bad_card_code_in_deal(code: str) -> None:
    data = mutate(partnership(), ("hands", 1, "deal", "hands", 2, 3), code)
    expect(data, "invalid", 1, None, "card")
    data = mutate(partnership(), ("hands", 0, "deal", "cachette", 4), code)
    expect(data, "invalid", 0, None, "card")


@pytest.mark.parametrize("value", [51, None, ["AS"], {"card": "AS"}, True])
def test_card_that_is_not_a_string_in_deal(value: object) -> None:
    data = mutate(partnership(), ("hands", 1, "deal", "hands", 0, 0), value)
    expect(data, "invalid", 1, None, "card")


def test_deal_with_a_card_twice_across_hands() -> None:
    base = partnership()
    dup = base["hands"][1]["deal"]["hands"][0][0]
    data = mutate(base, ("hands", 1, "deal", "hands", 3, 5), dup)
    expect(data, "invalid", 1, None, "twice")
    data = mutate(base, ("hands", 1, "deal", "cachette", 0), dup)
    expect(data, "invalid", 1, None, "twice")


def test_deal_with_a_card_twice_in_one_hand() -> None:
    base = partnership()
    dup = base["hands"][0]["deal"]["hands"][2][0]
    expect(mutate(base, ("hands", 0, "deal", "hands", 2, 1), dup), "invalid", 0, None, "twice")


def test_deal_with_a_card_twice_in_different_spellings() -> None:
    base = partnership()
    dup = base["hands"][0]["deal"]["hands"][2][0].lower()
    expect(mutate(base, ("hands", 0, "deal", "hands", 1, 1), dup), "invalid", 0, None, "twice")


def test_deal_missing_a_card() -> None:
    base = partnership()
    cards = base["hands"][2]["deal"]["hands"][1][:-1]
    expect(mutate(base, ("hands", 2, "deal", "hands", 1), cards), "invalid", 2, None, "11")
    cachette = base["hands"][2]["deal"]["cachette"][:-1]
    expect(mutate(base, ("hands", 2, "deal", "cachette"), cachette), "invalid", 2, None, "4")


def test_deal_with_wrong_hand_sizes() -> None:
    # All 53 cards, each once, but 13 + 11 cards in two hands.
    base = partnership()
    hands = base["hands"][1]["deal"]["hands"]
    moved = hands[3][-1]
    data = mutate(base, ("hands", 1, "deal", "hands", 0), [*hands[0], moved])
    data = mutate(data, ("hands", 1, "deal", "hands", 3), hands[3][:-1])
    expect(data, "invalid", 1, None, "13")
    # A card of the cachette moved into a hand.
    cachette = base["hands"][1]["deal"]["cachette"]
    data = mutate(base, ("hands", 1, "deal", "hands", 2), [*hands[2], cachette[0]])
    data = mutate(data, ("hands", 1, "deal", "cachette"), cachette[1:])
    expect(data, "invalid", 1, None, "cards")


@pytest.mark.parametrize("n", [3, 5])
def test_deal_with_wrong_number_of_hands(n: int) -> None:
    base = partnership()
    hands = base["hands"][0]["deal"]["hands"]
    value = hands[:n] if n < 4 else [*hands, []]
    expect(mutate(base, ("hands", 0, "deal", "hands"), value), "invalid", 0, None, "hands")


def test_deal_hand_not_a_list() -> None:
    base = partnership()
    text = " ".join(base["hands"][0]["deal"]["hands"][1])
    expect(mutate(base, ("hands", 0, "deal", "hands", 1), text), "invalid", 0, None, "list")


@pytest.mark.parametrize("value", [None, {}, "pass"])
def test_hand_actions_not_a_list(value: object) -> None:
    expect(mutate(partnership(), ("hands", 1, "actions"), value), "invalid", 1, None, "actions")


def test_dummy_deal_is_a_complete_pack_too() -> None:
    base = dummy()
    dup = base["hands"][0]["deal"]["hands"][0][0]
    expect(mutate(base, ("hands", 0, "deal", "hands", 3, 0), dup), "invalid", 0, None, "twice")


# ----------------------------------------------------- invalid: an action's shape


@pytest.mark.parametrize("value", [None, "pass", ["pass"], 53])
def test_action_not_an_object(value: object) -> None:
    expect(mutate(partnership(), ("hands", 1, "actions", 7), value), "invalid", 1, 7, "object")


@pytest.mark.parametrize("name", ["seat", "type"])
def test_action_missing_field(name: str) -> None:
    expect(mutate(partnership(), ("hands", 1, "actions", 2, name), DELETE), "invalid", 1, 2, name)
    expect(mutate(partnership(), ("hands", 2, "actions", 9, name), DELETE), "invalid", 2, 9, name)


def test_play_action_missing_card() -> None:
    base = partnership()
    assert base["hands"][0]["actions"][10]["type"] == "play"
    expect(mutate(base, ("hands", 0, "actions", 10, "card"), DELETE), "invalid", 0, 10, "card")


@pytest.mark.parametrize("seat", [4, -1, 5, "1", None, True])
def test_action_seat_out_of_range(seat: object) -> None:
    expect(mutate(partnership(), ("hands", 1, "actions", 0, "seat"), seat), "invalid", 1, 0, "seat")
    expect(
        mutate(partnership(), ("hands", 0, "actions", 20, "seat"), seat), "invalid", 0, 20, "seat"
    )


def test_dummy_action_seat_out_of_range() -> None:
    expect(mutate(dummy(), ("hands", 0, "actions", 5, "seat"), 4), "invalid", 0, 5, "seat")


@pytest.mark.parametrize("kind", ["bogus", "Play", "PASS", "", None, 1, "lead", "cachette"])
def test_unknown_action_type(kind: object) -> None:
    expect(mutate(partnership(), ("hands", 1, "actions", 3, "type"), kind), "invalid", 1, 3, "type")


@pytest.mark.parametrize(
    "action",
    [
        {"type": "bid", "amount": 40},
        {"type": "trump", "suit": "H"},
        {"type": "trump", "suit": "NT"},
        {"type": "nil", "kind": "none"},
        {"type": "meld", "combo": "court"},
        {"type": "decline"},
        {"type": "signal", "signal": "up"},
    ],
)
def test_quintus_only_action_type_in_quinto_record(action: JSON) -> None:
    base = partnership()
    seat = base["hands"][1]["actions"][1]["seat"]
    data = mutate(base, ("hands", 1, "actions", 1), {"seat": seat, **action})
    expect(data, "invalid", 1, 1, action["type"])
    seat = base["hands"][0]["actions"][30]["seat"]
    data = mutate(base, ("hands", 0, "actions", 30), {"seat": seat, **action})
    expect(data, "invalid", 0, 30, action["type"])


@pytest.mark.parametrize("code", ["ZZ", "1H", "AX", "", "J", 51, None, ["AS"]])
def test_bad_card_code_in_play(code: object) -> None:
    base = partnership()
    assert base["hands"][1]["actions"][12]["type"] == "play"
    expect(mutate(base, ("hands", 1, "actions", 12, "card"), code), "invalid", 1, 12, "card")


# --------------------------------------------------------------- invalid: dealer


def test_partnership_first_dealer_is_free() -> None:
    for first in range(4):
        m = play_match(first, first_dealer=first, max_hands=2, partial=10)
        data = as_json(m)
        assert [h["dealer"] for h in data["hands"]] == [first, (first + 1) % 4]
        assert score_of(data)["complete"] is False


@pytest.mark.parametrize("hand", [1, 2])
def test_partnership_wrong_dealer(hand: int) -> None:
    base = partnership()
    want = base["hands"][hand]["dealer"]
    for wrong in range(4):
        if wrong != want:
            data = mutate(base, ("hands", hand, "dealer"), wrong)
            expect(data, "invalid", hand, None, "dealer")


@cache
def _rubber_text(seed: int, target: int = 60, bonus: int | None = None) -> str:
    rules = QuintoRules(target=target, rubber_bonus=100 if bonus is None else bonus)
    return dumps(record_from_match(play_match(seed, rules, first_dealer=seed % 4)))


def rubber(seed: int, target: int = 60, bonus: int | None = None) -> JSON:
    data: JSON = json.loads(_rubber_text(seed, target, bonus))
    return data


def game_starts(data: JSON) -> list[int]:
    """Return the indices of the hands that begin a game (by replaying the record)."""
    match = replay_json(data)
    return [i for i, g in enumerate(match.game_of_hand) if i == 0 or match.game_of_hand[i - 1] != g]


def test_dealer_rotation_continues_across_games() -> None:
    checked = 0
    for seed in range(12):
        data = rubber(seed)
        dealers = [h["dealer"] for h in data["hands"]]
        assert dealers == [(dealers[0] + i) % 4 for i in range(len(dealers))]
        for start in game_starts(data)[1:]:
            prev = dealers[start - 1]
            for wrong in (prev, dealers[0], (prev + 2) % 4):
                if wrong != (prev + 1) % 4:
                    data2 = mutate(data, ("hands", start, "dealer"), wrong)
                    expect(data2, "invalid", start, None, "dealer")
                    checked += 1
    assert checked > 10


def dummy_dealers(lone: int, n: int) -> list[int]:
    """The dealers of a dummy game by rulings.md: the lone player first, skip the dummy."""
    out = [lone]
    while len(out) < n:
        d = (out[-1] + 1) % 4
        if d == (lone + 2) % 4:
            d = (d + 1) % 4
        out.append(d)
    return out


@cache
def _long_dummy_text(lone: int) -> str:
    # A high target keeps the game going for several hands.
    rules = QuintoRules(variant="dummy", target=900)
    return dumps(record_from_match(play_match(lone + 10, rules, lone_seat=lone, max_hands=5)))


def long_dummy(lone: int) -> JSON:
    data: JSON = json.loads(_long_dummy_text(lone))
    return data


@pytest.mark.parametrize("lone", [0, 1, 2, 3])
def test_dummy_dealer_rotation(lone: int) -> None:
    data = long_dummy(lone)
    assert len(data["hands"]) == 5
    assert [h["dealer"] for h in data["hands"]] == dummy_dealers(lone, 5)
    score_of(data)
    # The lone player deals first.
    for wrong in range(4):
        if wrong != lone:
            expect(mutate(data, ("hands", 0, "dealer"), wrong), "invalid", 0, None, "dealer")
    # The deal skips the dummy seat: after seat lone+1 deals comes lone+3, never lone+2.
    skip = dummy_dealers(lone, 5).index((lone + 1) % 4) + 1
    expect(mutate(data, ("hands", skip, "dealer"), (lone + 2) % 4), "invalid", skip, None, "dealer")
    for i in range(1, 5):
        for wrong in range(4):
            if wrong != data["hands"][i]["dealer"]:
                expect(mutate(data, ("hands", i, "dealer"), wrong), "invalid", i, None, "dealer")


# ------------------------------------------------------ invalid: unfinished hands


def test_unfinished_hand_before_another_hand() -> None:
    base = partnership()
    actions = base["hands"][0]["actions"]
    for keep in (0, 3, 4, 20, len(actions) - 1):
        data = mutate(base, ("hands", 0, "actions"), actions[:keep])
        expect(data, "invalid", 0, None, "unfinished")
    actions = base["hands"][1]["actions"]
    data = mutate(base, ("hands", 1, "actions"), actions[:-4])
    expect(data, "invalid", 1, None, "unfinished")


def test_last_hand_may_stop_anywhere() -> None:
    base = partnership()
    actions = base["hands"][2]["actions"]
    for keep in range(len(actions) + 1):
        score_of(mutate(base, ("hands", 2, "actions"), actions[:keep]))


# -------------------------------------------------------------- illegal actions

Pred = Callable[[QuintoState], tuple[int, Action] | None]


def find_fault(
    pred: Pred,
    rules: QuintoRules | None = None,
    lone_seat: int | None = None,
    min_hand: int = 0,
    seeds: Iterable[int] = range(300),
) -> tuple[JSON, int, int]:
    """Play random matches until ``pred`` offers a bad action at some point.

    The match is then played on to its end (a complete record follows the fault) and
    the action at the fault's place is replaced by the bad one. Returns the record and
    the (hand, action) indices the error must name.
    """
    for seed in seeds:
        rng = random.Random(seed)
        match = QuintoMatch(rules or QuintoRules(), lone_seat=lone_seat)
        found: tuple[int, int, int, Action] | None = None
        while not match.is_over() and (found is None or len(match.hands) < found[0] + 2):
            state = match.start_hand(rng=rng)
            j = 0
            while not state.is_terminal():
                if found is None and len(match.hands) > min_hand:
                    bad = pred(state)
                    if bad is not None:
                        found = (len(match.hands) - 1, j, bad[0], bad[1])
                state.apply_action(rng.choice(state.legal_actions()))
                j += 1
        if found is not None:
            hand, j, seat, action = found
            data = as_json(match)
            data["hands"][hand]["actions"][j] = action_to_json(action, seat)
            return data, hand, j
    raise AssertionError("no position found for the fault")


def _wrong_seat_doubling(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == DOUBLING:
        other = (s.turn + 1) % 4
        if other == s.dummy_seat:
            other = (other + 1) % 4
        return other, PASS
    return None


def _wrong_seat_play(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == PLAY and len(s.trick) == 2:
        other = (s.turn + 1) % 4
        return other, mask_cards(s.hands[other])[0]
    return None


def _wrong_seat_lead(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == PLAY and not s.trick and s.tricks_played == 3:
        other = (s.turn + 2) % 4
        return other, mask_cards(s.hands[other])[-1]
    return None


def _not_following(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == PLAY and s.trick and s.trick[0] != JOKER:
        hand = s.hands[s.turn]
        led = SUIT_OF[s.trick[0]]
        if suit_cards(hand, led):
            others = [c for c in mask_cards(hand) if c != JOKER and SUIT_OF[c] != led]
            if others:
                return s.turn, others[0]
    return None


def _not_in_hand(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == PLAY and s.trick:
        return s.turn, mask_cards(s.hands[(s.turn + 2) % 4])[0]
    return None


def _already_played(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == PLAY and s.tricks_played == 2 and not s.trick:
        played = [a for seat, a in s.history() if seat == s.turn and a <= JOKER]
        return s.turn, played[0]
    return None


def _lead_joker(s: QuintoState) -> tuple[int, Action] | None:
    hand = s.hands[s.turn]
    if s.phase == PLAY and not s.trick and hand >> JOKER & 1 and hand.bit_count() > 1:
        return s.turn, JOKER
    return None


def _double_after_double(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == DOUBLING and s.multiplier == 2 and s.doubled_by != s.turn % 2:
        return s.turn, DOUBLE
    return None


def _partner_double_after_double(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == DOUBLING and s.multiplier == 2 and s.doubled_by == s.turn % 2:
        return s.turn, DOUBLE
    return None


def _double_after_redouble(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == DOUBLING and s.multiplier == 4:
        return s.turn, DOUBLE
    return None


def _redouble_partner(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == DOUBLING and s.multiplier == 2 and s.doubled_by == s.turn % 2:
        return s.turn, REDOUBLE
    return None


def _redouble_undoubled(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == DOUBLING and s.multiplier == 1:
        return s.turn, REDOUBLE
    return None


def _redouble_twice(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == DOUBLING and s.multiplier == 4:
        return s.turn, REDOUBLE
    return None


def _play_in_doubling(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == DOUBLING:
        return s.turn, mask_cards(s.hands[s.turn])[0]
    return None


def _double_in_play(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == PLAY and s.tricks_played == 0 and not s.trick:
        return s.turn, DOUBLE
    return None


def _double_mid_play(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == PLAY and s.tricks_played == 4 and len(s.trick) == 1:
        return s.turn, DOUBLE
    return None


def _pass_in_play(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == PLAY and s.tricks_played == 5:
        return s.turn, PASS
    return None


def _redouble_in_play(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == PLAY and s.multiplier == 2 and s.doubled_by != s.turn % 2:
        return s.turn, REDOUBLE
    return None


ILLEGAL: list[tuple[str, Pred, str]] = [
    ("wrong seat in the doubling round", _wrong_seat_doubling, "turn"),
    ("wrong seat in a trick", _wrong_seat_play, "turn"),
    ("wrong seat leads", _wrong_seat_lead, "turn"),
    ("not following suit", _not_following, "must follow"),
    ("card not in the hand", _not_in_hand, "does not hold"),
    ("card already played", _already_played, "does not hold"),
    ("leading the joker", _lead_joker, "joker"),
    ("double after an opponent's double", _double_after_double, "double"),
    ("double after the partner's double", _partner_double_after_double, "double"),
    ("double after a redouble", _double_after_redouble, "double"),
    ("redoubling the partner's double", _redouble_partner, "redouble"),
    ("redouble with no double", _redouble_undoubled, "redouble"),
    ("redouble after a redouble", _redouble_twice, "redouble"),
    ("card play during the doubling round", _play_in_doubling, "doubling round"),
    ("double after the doubling round", _double_in_play, "doubling round"),
    ("double in the middle of play", _double_mid_play, "doubling round"),
    ("pass during play", _pass_in_play, "pass"),
    ("redouble after the doubling round", _redouble_in_play, "redouble"),
]


@pytest.mark.parametrize(
    ("pred", "phrase"), [(p, w) for _, p, w in ILLEGAL], ids=[n for n, _, _ in ILLEGAL]
)
@pytest.mark.parametrize("min_hand", [0, 1])
def test_illegal_action(pred: Pred, phrase: str, min_hand: int) -> None:
    data, hand, action = find_fault(pred, min_hand=min_hand)
    assert hand >= min_hand
    expect(data, "illegal action", hand, action, phrase)


@pytest.mark.parametrize(
    ("pred", "phrase"), [(p, w) for _, p, w in ILLEGAL], ids=[n for n, _, _ in ILLEGAL]
)
def test_illegal_action_in_a_dummy_game(pred: Pred, phrase: str) -> None:
    data, hand, action = find_fault(pred, QuintoRules(variant="dummy"), lone_seat=3)
    expect(data, "illegal action", hand, action, phrase)


def test_not_following_suit_detail_names_the_suit() -> None:
    data, hand, action = find_fault(_not_following)
    err = reject(data)
    check_error(err, "illegal action", hand, action, "must follow")
    seat = data["hands"][hand]["actions"][action]["seat"]
    assert str(seat) in err["detail"]


def test_joker_may_be_played_instead_of_following() -> None:
    def pred(s: QuintoState) -> tuple[int, Action] | None:
        hand = s.hands[s.turn]
        if (
            s.phase == PLAY
            and s.trick
            and s.trick[0] != JOKER
            and hand >> JOKER & 1
            and suit_cards(hand, SUIT_OF[s.trick[0]])
        ):
            return s.turn, JOKER
        return None

    data, hand, action = find_fault(pred)
    actions = data["hands"][hand]["actions"]
    # Keep the record up to the joker: the joker is legal, and the record scores.
    data["hands"] = data["hands"][: hand + 1]
    data["hands"][hand]["actions"] = actions[: action + 1]
    score_of(data)


def _dummy_acts_in_doubling(s: QuintoState) -> tuple[int, Action] | None:
    if s.phase == DOUBLING and s.dummy_seat is not None:
        return s.dummy_seat, PASS
    return None


@pytest.mark.parametrize("lone", [0, 1, 2, 3])
@pytest.mark.parametrize("kind", [PASS, DOUBLE])
def test_dummy_takes_no_turn_in_the_doubling_round(lone: int, kind: Action) -> None:
    def pred(s: QuintoState) -> tuple[int, Action] | None:
        if s.phase == DOUBLING and s.dummy_seat is not None:
            return s.dummy_seat, kind
        return None

    data, hand, action = find_fault(pred, QuintoRules(variant="dummy"), lone_seat=lone)
    expect(data, "illegal action", hand, action, "dummy")


@pytest.mark.parametrize("lone", [0, 1, 2, 3])
def test_dummy_doubling_round_in_generated_records(lone: int) -> None:
    # Three turns from the dealer's left, skipping the dummy; the dummy seat's plays
    # carry its own seat number, and the player to the dealer's left leads.
    data = long_dummy(lone)
    dummy_seat = (lone + 2) % 4
    for h in data["hands"]:
        dealer = h["dealer"]
        order = [s for s in ((dealer + i) % 4 for i in range(1, 5)) if s != dummy_seat]
        acts = h["actions"]
        assert [a["seat"] for a in acts[:3]] == order
        assert all(a["type"] in ("pass", "double", "redouble") for a in acts[:3])
        assert acts[3]["type"] == "play"
        assert acts[3]["seat"] == (dealer + 1) % 4
    plays = [a for h in data["hands"] for a in h["actions"] if a["type"] == "play"]
    assert any(a["seat"] == dummy_seat for a in plays)


def test_dummy_card_played_under_the_lone_seat_number() -> None:
    # The dummy's cards are played with the dummy's seat number; the lone player's seat
    # on a dummy turn is the wrong seat.
    def pred(s: QuintoState) -> tuple[int, Action] | None:
        if s.phase == PLAY and s.turn == s.dummy_seat:
            return (s.turn + 2) % 4, s.legal_actions()[0]
        return None

    data, hand, action = find_fault(pred, QuintoRules(variant="dummy"), lone_seat=0)
    expect(data, "illegal action", hand, action, "turn")


def test_action_after_the_hand_is_over() -> None:
    base = partnership()
    # Hand 0 is over (the game goes on): one more action in it, with hand 1 after it.
    next_seat = (base["hands"][1]["dealer"] + 1) % 4
    n = len(base["hands"][0]["actions"])
    data = copy.deepcopy(base)
    data["hands"][0]["actions"].append({"seat": next_seat, "type": "pass"})
    expect(data, "illegal action", 0, n, "hand is over")
    # The same at the end of the record.
    data = copy.deepcopy(base)
    data["hands"] = data["hands"][:2]
    n = len(data["hands"][1]["actions"])
    card = data["hands"][1]["deal"]["hands"][0][0]
    data["hands"][1]["actions"].append({"seat": 0, "type": "play", "card": card})
    expect(data, "illegal action", 1, n, "over")


def _mid_hand_game_end(data: JSON) -> int | None:
    """Return a hand where quints ended a game (not the rubber) before the hand's end."""
    match = replay_json(data)
    for i, h in enumerate(match.hands):
        if h.game_winner is not None and h.tricks_played < 12 and i + 1 < len(match.hands):
            return i
    return None


def test_action_after_the_game_is_over_mid_hand() -> None:
    checked = 0
    for seed in range(30):
        data = rubber(seed)
        i = _mid_hand_game_end(data)
        if i is None:
            continue
        hand = data["hands"][i]
        n = len(hand["actions"])
        assert n < 4 + 48
        for extra in (
            {"seat": 0, "type": "pass"},
            {"seat": 1, "type": "play", "card": hand["deal"]["hands"][1][0]},
        ):
            data2 = copy.deepcopy(data)
            data2["hands"][i]["actions"].append(extra)
            expect(data2, "illegal action", i, n, "game")
        # The same game-ending hand as the last of the record.
        data2 = copy.deepcopy(data)
        data2["hands"] = data2["hands"][: i + 1]
        data2["hands"][i]["actions"].append({"seat": 2, "type": "pass"})
        expect(data2, "illegal action", i, n, "game")
        checked += 1
    assert checked >= 3


def test_rubber_over_then_more() -> None:
    checked = 0
    for seed in range(8):
        data = rubber(seed)
        match = replay_json(data)
        assert match.is_over()
        last = len(data["hands"]) - 1
        n = len(data["hands"][last]["actions"])
        # One more action in the last hand.
        data2 = copy.deepcopy(data)
        data2["hands"][last]["actions"].append({"seat": 0, "type": "pass"})
        expect(data2, "illegal action", last, n, "over")
        # A hand dealt after the rubber, with actions: illegal action at its action 0.
        dealer = (data["hands"][last]["dealer"] + 1) % 4
        extra = {
            "dealer": dealer,
            "deal": deal_json(seed),
            "actions": [{"seat": (dealer + 1) % 4, "type": "pass"}],
        }
        data2 = copy.deepcopy(data)
        data2["hands"].append(extra)
        expect(data2, "illegal action", last + 1, 0, "over")
        # ... and with no actions: invalid, with the hand index only.
        data2 = copy.deepcopy(data)
        data2["hands"].append({**extra, "actions": []})
        expect(data2, "invalid", last + 1, None, "over")
        checked += 1
    assert checked == 8


@pytest.mark.parametrize("lone", [1, 2])
def test_dummy_game_over_then_more(lone: int) -> None:
    rules = QuintoRules(variant="dummy", target=60)
    match = play_match(lone, rules, lone_seat=lone)
    assert match.is_over()
    data = as_json(match)
    last = len(data["hands"]) - 1
    n = len(data["hands"][last]["actions"])
    data2 = copy.deepcopy(data)
    data2["hands"][last]["actions"].append({"seat": lone, "type": "pass"})
    expect(data2, "illegal action", last, n, "over")
    dealer = dummy_dealers(lone, last + 2)[-1]
    extra = {
        "dealer": dealer,
        "deal": deal_json(99),
        "actions": [{"seat": (dealer + 1) % 4, "type": "pass"}],
    }
    data2 = copy.deepcopy(data)
    data2["hands"].append(extra)
    expect(data2, "illegal action", last + 1, 0, "over")
    data2 = copy.deepcopy(data)
    data2["hands"].append({**extra, "actions": []})
    expect(data2, "invalid", last + 1, None, "over")


def test_first_error_wins_later_faults_ignored() -> None:
    base = partnership()
    # An illegal action in hand 0 and a wrong dealer in hand 2: the first is reported.
    data = mutate(base, ("hands", 2, "dealer"), (base["hands"][2]["dealer"] + 2) % 4)
    first = base["hands"][0]["actions"][0]
    data = mutate(data, ("hands", 0, "actions", 0, "seat"), (first["seat"] + 1) % 4)
    expect(data, "illegal action", 0, 0, "turn")


def test_nothing_is_scored_from_a_rejected_record() -> None:
    # score() raises; the caller gets no partial output object.
    base = partnership()
    data = mutate(base, ("hands", 2, "actions", 4, "card"), "ZZ")
    with pytest.raises(RecordError):
        score(read_record(json.dumps(data)))


# ------------------------------------------------------------ the scorer's output


def side_quints(actions: list[JSON]) -> tuple[int, int]:
    """Quints per seat side of the complete tricks among ``actions`` (no cachette)."""
    plays = [(a["seat"], parse_card(a["card"])) for a in actions if a["type"] == "play"]
    out = [0, 0]
    for t in range(len(plays) // 4):
        trick = plays[4 * t : 4 * t + 4]
        winner = max((p for p in trick if p[1] != JOKER), key=lambda p: p[1])[0]
        mask = 0
        for _, c in trick:
            mask |= 1 << c
        out[winner % 2] += quint_points(mask)
    return out[0], out[1]


def expected_games(match: QuintoMatch, flip: bool = False) -> list[JSON]:
    out = []
    for g in match.games():
        sc = [g.score[1], g.score[0]] if flip else [g.score[0], g.score[1]]
        w = g.winner if g.winner is None or not flip else 1 - g.winner
        out.append({"score": sc, "winner": w})
    return out


def test_score_shape_of_an_unfinished_rubber() -> None:
    data = partnership()
    out = score_of(data)
    assert set(out) == {"game", "complete", "games", "rubber"}
    assert out["game"] == "quinto"
    assert out["complete"] is False
    assert out["rubber"] == {"winner": None, "score": None}
    assert len(out["games"]) == 1
    assert out["games"][0]["winner"] is None
    assert all(isinstance(x, int) for x in out["games"][0]["score"])
    assert json.loads(json.dumps(out)) == out


@pytest.mark.parametrize("bonus", [None, 0, 30])
@pytest.mark.parametrize("seed", range(10))
def test_finished_rubber(seed: int, bonus: int | None) -> None:
    data = rubber(seed, bonus=bonus)
    rules = QuintoRules(target=60, rubber_bonus=100 if bonus is None else bonus)
    match = replay_json(data)
    out = score_of(data)
    assert data["options"]["target"] == 60
    assert out["complete"] is True
    games = match.games()
    assert out["games"] == expected_games(match)
    assert 2 <= len(games) <= 3
    winners = [g["winner"] for g in out["games"]]
    assert None not in winners
    side = max((0, 1), key=winners.count)
    assert winners.count(side) == 2 and winners[-1] == side
    for g in out["games"]:
        w = g["winner"]
        assert g["score"][w] >= 60
        assert g["score"][w] > g["score"][1 - w] or g["score"][1 - w] < 60
    total = [sum(g["score"][s] for g in out["games"]) for s in (0, 1)]
    total[side] += rules.rubber_bonus
    assert out["rubber"] == {"winner": side, "score": total}


def test_finished_rubber_with_a_tie() -> None:
    # A tie at or past the target: another hand is played in the same game, scores
    # carried, and the first quint in it wins the game at once.
    found = 0
    for seed in range(150):
        match = play_match(seed, QuintoRules(target=60), first_dealer=seed % 4)
        tied = [i for i, h in enumerate(match.hands) if h.tied]
        if not tied:
            continue
        data = as_json(match)
        out = score_of(data)
        assert out["games"] == expected_games(match)
        assert len(out["games"]) < len(data["hands"])
        i = tied[0]
        a, b = match.hands[i].score
        assert a == b >= 60
        assert match.hands[i + 1].start_score == (a, b)
        plays = [x for x in data["hands"][i + 1]["actions"] if x["type"] == "play"]
        n = 0
        while True:
            q = side_quints(plays[: 4 * (n + 1)])
            if q != (0, 0):
                break
            n += 1
        assert len(plays) == 4 * (n + 1)
        side = 0 if q[0] else 1
        assert match.hands[i + 1].game_winner == side
        assert list(match.hands[i + 1].score) == [a + q[0], b + q[1]]
        found += 1
    assert found >= 2


def test_games_include_a_game_begun_with_an_empty_hand() -> None:
    for seed in range(30):
        data = rubber(seed)
        starts = game_starts(data)
        if len(starts) < 3:
            continue
        cut = starts[1]
        data2 = copy.deepcopy(data)
        data2["hands"] = data2["hands"][: cut + 1]
        data2["hands"][cut]["actions"] = []
        out = score_of(data2)
        assert len(out["games"]) == 2
        assert out["games"][1] == {"score": [0, 0], "winner": None}
        assert out["games"][0]["winner"] is not None
        assert out["rubber"] == {"winner": None, "score": None}
        assert out["complete"] is False
        return
    raise AssertionError("no three-game rubber found")


def test_quints_of_an_unfinished_hand_are_included() -> None:
    checked = 0
    for seed in range(40):
        for partial in (13, 30, 47):
            m = play_match(seed, max_hands=2, partial=partial)
            if m.is_over() or m.hands[-1].is_terminal() or m.games()[-1].winner is not None:
                continue
            data = as_json(m)
            prev = score_of(mutate(data, ("hands",), data["hands"][:1]))["games"]
            q = side_quints(data["hands"][1]["actions"])
            if q == (0, 0):
                continue
            out = score_of(data)
            if len(prev) == 1 and prev[0]["winner"] is None:
                start = prev[0]["score"]
                assert out["games"][-1]["score"] == [start[0] + q[0], start[1] + q[1]]
            checked += 1
    assert checked > 20


def test_quints_of_a_first_unfinished_hand() -> None:
    # Independent of any other hand: the score of a part-played first hand is its quints.
    checked = 0
    for seed in range(40):
        m = play_match(seed, max_hands=1, partial=4 + 4 * (seed % 11 + 1))
        data = as_json(m)
        q = side_quints(data["hands"][0]["actions"])
        out = score_of(data)
        if max(q) >= 250:
            continue
        assert out["games"] == [{"score": list(q), "winner": None}]
        checked += bool(sum(q))
    assert checked > 20


def test_record_with_no_hands() -> None:
    data = mutate(partnership(), ("hands",), [])
    assert score_of(data) == {
        "game": "quinto",
        "complete": False,
        "games": [],
        "rubber": {"winner": None, "score": None},
    }
    data = mutate(dummy(), ("hands",), [])
    assert score_of(data) == {"game": "quinto", "complete": False, "games": [], "rubber": None}


@pytest.mark.parametrize("lone", [0, 1, 2, 3])
@pytest.mark.parametrize("handicap", [None, 0, 40])
def test_dummy_handicap_goes_to_the_opponents(lone: int, handicap: int | None) -> None:
    data = long_dummy(lone)
    data["hands"] = data["hands"][:1]
    data["hands"][0]["actions"] = []
    data["options"] = {} if handicap is None else {"dummy_handicap": handicap}
    out = score_of(data)
    h = 25 if handicap is None else handicap
    # Side 0 is the lone player's side, whatever his seat.
    assert out == {
        "game": "quinto",
        "complete": False,
        "games": [{"score": [0, h], "winner": None}],
        "rubber": None,
    }


@pytest.mark.parametrize("lone", [1, 3])
def test_dummy_side_flip_with_quints(lone: int) -> None:
    checked = 0
    for seed in range(30):
        rules = QuintoRules(variant="dummy")
        m = play_match(seed, rules, lone_seat=lone, max_hands=1, partial=4 + 4 * (seed % 11 + 1))
        data = as_json(m)
        q = side_quints(data["hands"][0]["actions"])  # by seat side: 0 = seats 0 and 2
        lone_side = lone % 2
        want = [q[lone_side], q[1 - lone_side] + 25]
        if max(want) >= 250:
            continue
        assert score_of(data)["games"] == [{"score": want, "winner": None}]
        checked += q[0] != q[1]
    assert checked > 10


@pytest.mark.parametrize("lone", [0, 1, 2, 3])
def test_finished_dummy_game(lone: int) -> None:
    winners = set()
    for seed in range(12):
        rules = QuintoRules(variant="dummy", target=80, dummy_handicap=10)
        m = play_match(seed, rules, lone_seat=lone)
        data = as_json(m)
        assert data["options"] == {"target": 80, "dummy_handicap": 10}
        out = score_of(data)
        flip = lone % 2 == 1
        assert out["complete"] is True
        assert out["rubber"] is None
        assert out["games"] == expected_games(m, flip)
        assert len(out["games"]) == 1
        g = m.games()[0]
        assert g.winner is not None
        lone_won = g.winner == lone % 2
        assert out["games"][0]["winner"] == (0 if lone_won else 1)
        assert out["games"][0]["score"][0] == g.score[lone % 2]
        winners.add(out["games"][0]["winner"])
    assert winners == {0, 1}


def test_unfinished_dummy_game() -> None:
    out = score_of(dummy())
    assert out["complete"] is False
    assert out["rubber"] is None
    assert len(out["games"]) == 1 and out["games"][0]["winner"] is None


# ------------------------------------------------------------------ round trip


def _matches() -> list[tuple[str, QuintoMatch]]:
    out: list[tuple[str, QuintoMatch]] = []
    option_sets: list[JSON] = [
        {},
        {"target": 60},
        {"target": 100, "rubber_bonus": 7},
        {"joker_eleventh_trick": True},
        {"target": 120, "joker_eleventh_trick": True},
    ]
    for seed in range(20):
        opts = option_sets[seed % len(option_sets)]
        rules = QuintoRules.from_options("partnership", opts)
        partial = None if seed % 3 == 0 else 5 * seed % 53
        hands = None if seed % 3 == 0 else 1 + seed % 4
        m = play_match(seed, rules, first_dealer=seed % 4, max_hands=hands, partial=partial)
        out.append((f"p{seed}", m))
    dummy_sets: list[JSON] = [
        {},
        {"dummy_handicap": 0},
        {"dummy_double_view": "leading"},
        {"target": 70, "dummy_handicap": 40, "joker_eleventh_trick": True},
    ]
    for seed in range(16):
        opts = dummy_sets[seed % len(dummy_sets)]
        rules = QuintoRules.from_options("dummy", opts)
        partial = None if seed % 2 == 0 else 3 * seed
        hands = None if seed % 2 == 0 else 1 + seed % 3
        m = play_match(seed, rules, lone_seat=seed % 4, max_hands=hands, partial=partial)
        out.append((f"d{seed}", m))
    return out


def _all_cards(data: JSON) -> list[str]:
    cards: list[str] = []
    for h in data["hands"]:
        for hand in h["deal"]["hands"]:
            cards += hand
        cards += h["deal"]["cachette"]
        cards += [a["card"] for a in h["actions"] if a["type"] == "play"]
    return cards


def test_round_trip_of_random_matches() -> None:
    for name, m in _matches():
        rec = record_from_match(m)
        text = dumps(rec)
        again = read_record(text)
        assert again == rec, name
        assert dumps(again) == text, name
        data = json.loads(text)
        assert data["format"] == "quintet-record" and data["version"] == 1
        assert data["game"] == "quinto"
        assert data["options"] == m.rules.options()
        assert all(CANONICAL.match(c) for c in _all_cards(data)), name
        for h in data["hands"]:
            dealt = [c for hand in h["deal"]["hands"] for c in hand] + h["deal"]["cachette"]
            assert len(set(dealt)) == len(dealt) == 53, name
        # The record replays to the same match.
        flip = m.lone_seat is not None and m.lone_seat % 2 == 1
        assert score(again)["games"] == expected_games(m, flip), name
        assert score(again)["complete"] == m.is_over(), name


def test_record_options_are_written_and_read() -> None:
    for name, m in _matches():
        data = json.loads(dumps(record_from_match(m)))
        assert QuintoRules.from_options(data["variant"], data["options"]) == m.rules, name


EXTRA_TOP: JSON = {
    "names": ["Ann", "Bob", "Cy", "Di"],
    "comment": "club night",
    "started": "2024-05-01T19:30:00Z",
    "bots": {"1": {"name": "greedy", "version": 3}},
}


def test_extra_fields_are_accepted_and_preserved() -> None:
    base = partnership()
    data = copy.deepcopy(base)
    data.update(EXTRA_TOP)
    data["hands"][0]["comment"] = "a slam"
    data["hands"][1]["started"] = 12345
    data["hands"][1]["notes"] = ["x", {"y": None}]
    data["hands"][0]["actions"][0]["comment"] = "thinks long"
    data["hands"][0]["actions"][7]["ms"] = 1200
    data["hands"][2]["actions"][5]["time"] = {"ms": 3}
    assert score_of(data) == score_of(base)
    rec = read_record(json.dumps(data))
    assert rec.extra == EXTRA_TOP
    written = json.loads(dumps(rec))
    assert written == data
    assert read_record(dumps(rec)) == rec


def test_extra_fields_in_a_dummy_record() -> None:
    data = dummy()
    data["names"] = {"lone": "Ann"}
    data["hands"][0]["actions"][3]["comment"] = "from the dummy"
    assert json.loads(dumps(read_record(json.dumps(data)))) == data


def test_record_from_match_keeps_extra() -> None:
    m = play_match(1, max_hands=1, partial=10)
    rec = record_from_match(m, extra={"names": ["a", "b", "c", "d"]})
    data = json.loads(dumps(rec))
    assert data["names"] == ["a", "b", "c", "d"]
    assert read_record(dumps(rec)) == rec


def _respell(code: str, style: int) -> str:
    if style == 0:
        return code.lower()
    if style == 1:
        return code.replace("T", "10")
    if style == 2:
        return code.replace("T", "10").lower()
    return code[0] + code[1:].lower() if code != "JK" else "jK"


@pytest.mark.parametrize("style", [0, 1, 2, 3])
def test_readers_accept_any_case_and_10(style: int) -> None:
    base = partnership()
    data = copy.deepcopy(base)
    for h in data["hands"]:
        h["deal"]["hands"] = [[_respell(c, style) for c in hand] for hand in h["deal"]["hands"]]
        h["deal"]["cachette"] = [_respell(c, style) for c in h["deal"]["cachette"]]
        for a in h["actions"]:
            if a["type"] == "play":
                a["card"] = _respell(a["card"], style)
    assert data != base
    if style in (1, 2):
        assert any("10" in c for c in _all_cards(data))
    rec = read_record(json.dumps(data))
    assert rec == read_record(json.dumps(base))
    assert score(rec) == score_of(base)
    # Writers write the canonical upper-case form.
    written = json.loads(dumps(rec))
    assert written == base
    assert all(CANONICAL.match(c) for c in _all_cards(written))


def test_record_from_json_matches_read_record() -> None:
    data = partnership()
    assert record_from_json(data) == read_record(json.dumps(data))
    assert isinstance(record_from_json(data), Record)


def _sorted_deals(data: JSON) -> JSON:
    out = copy.deepcopy(data)
    for h in out["hands"]:
        h["deal"]["hands"] = [sorted(hand) for hand in h["deal"]["hands"]]
        h["deal"]["cachette"] = sorted(h["deal"]["cachette"])
    return out


def test_example_records_round_trip_to_the_same_json() -> None:
    # The order of the cards within a dealt hand is not part of the contract.
    for name in ("quinto-partnership", "quinto-dummy"):
        text = example_text(name)
        rec = read_record(text)
        assert _sorted_deals(json.loads(dumps(rec))) == _sorted_deals(json.loads(text))
        assert read_record(dumps(rec)) == rec
