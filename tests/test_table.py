"""Tables: people and bots at one match, hints, undo, saving and resuming."""

from __future__ import annotations

import random

import pytest

from quintet.actions import PASS, action_str
from quintet.errors import IllegalActionError, InvalidOptionError
from quintet.quinto import QuintoMatch
from quintet.record import dumps, read_record, score
from quintet.table import Table


def test_bots_play_a_whole_rubber_and_the_record_scores_the_same() -> None:
    t = Table.new("quinto", seats=["heuristic"] * 4, seed=5, options={"target": 100})
    while not t.match_over():
        t.run_bots()
        if t.hand_over() and not t.match_over():
            t.deal()
    result = score(read_record(dumps(t.record())))
    assert isinstance(t.match, QuintoMatch)
    assert result["complete"] and result["rubber"]["winner"] == t.match.winner()


@pytest.mark.parametrize(
    ("game", "variant"),
    [("quinto", "partnership"), ("quinto", "dummy"), ("quintus", "base"), ("quintus", "bidding")],
)
def test_a_person_plays_against_bots_to_the_end_of_a_hand(game: str, variant: str) -> None:
    n = 4 if game == "quinto" else 5
    t = Table.new(game, variant, seats=[None] + ["heuristic"] * (n - 1), seed=2)
    rng = random.Random(1)
    while not t.hand_over():
        t.run_bots()
        if t.hand_over():
            break
        seat = t.to_act()
        assert seat is not None and t.player_of(seat) == 0
        hint = t.hint(seat)
        assert hint is not None and hint in t.legal(seat)
        legal = [a for a in t.legal(seat) if not 67 <= a <= 69]
        t.act(seat, rng.choice(legal))
    assert score(read_record(dumps(t.record())))["games" if game == "quinto" else "hands"]


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    t = Table.new("quinto", seats=[None, None, None, None], seed=1)
    before = t.state.history()
    with pytest.raises(IllegalActionError, match="seat 1 \\(East\\)'s turn"):
        t.act(2, "pass")
    with pytest.raises(IllegalActionError):
        t.act(1, "redouble")
    assert t.state.history() == before


def test_undo_takes_back_to_the_players_previous_decision() -> None:
    t = Table.new("quinto", seats=["heuristic", None, "heuristic", "heuristic"], seed=4)
    t.run_bots()
    t.act(1, "pass")
    t.run_bots()
    t.run_bots()
    n = len(t.state.history())
    undone = t.undo(1)
    assert undone >= 1 and len(t.state.history()) == n - undone
    assert t.to_act() == 1 and PASS in t.legal(1)


def test_a_saved_table_resumes_identically() -> None:
    t = Table.new("quintus", "bidding", seats=[None] + ["heuristic"] * 4, seed=9)
    t.run_bots()
    text = dumps(t.record())
    again = Table.from_record(read_record(text))
    assert again.seats == t.seats and again.seed == t.seed
    assert again.state.history() == t.state.history()
    assert [action_str(a) for a in again.legal(0)] == [action_str(a) for a in t.legal(0)]


def test_bad_table_settings_are_refused() -> None:
    with pytest.raises(InvalidOptionError, match="unknown game"):
        Table.new("bridge")
    with pytest.raises(InvalidOptionError, match="4 seats"):
        Table.new("quinto", seats=["random"] * 5)
    with pytest.raises(InvalidOptionError, match="unknown bot level"):
        Table.new("quinto", seats=["random", "genius", None, None])


@pytest.mark.parametrize(
    ("game", "variant", "options"),
    [
        ("quinto", "partnership", {"target": 40}),
        ("quinto", "dummy", {"target": 40}),
        ("quintus", "base", {"hands": 2}),
        ("quintus", "bidding", {"hands": 2}),
    ],
)
def test_a_preview_says_the_match_is_over_exactly_when_the_action_ends_it(
    game: str, variant: str, options: dict[str, int]
) -> None:
    # The preview asks the match only once the hand is over: a hand in play never ends it.
    n = 4 if game == "quinto" else 5
    rng = random.Random(9)
    for seed in range(3):
        t = Table.new(game, variant, seats=[None] * n, seed=seed, options=options)
        while True:
            seat = t.to_act()
            assert seat is not None
            a = rng.choice(t.legal(seat))
            p = t.preview(seat, a)
            t.commit(p)
            assert p.over == t.match_over()
            if t.match_over():
                break
            if t.hand_over():
                t.deal()
