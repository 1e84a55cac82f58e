"""The game descriptions (quintet.games) agree with the engines they describe."""

from __future__ import annotations

import random

import pytest

from quintet.actions import is_signal
from quintet.errors import InvalidOptionError
from quintet.game import GameState, Phase
from quintet.games import GAMES, GameInfo, find_game, find_variant, game_of, games
from quintet.quinto import QuintoState
from quintet.quintus import QuintusState


@pytest.mark.parametrize("info", games(), ids=lambda g: g.name)
def test_each_description_matches_a_dealt_hand_of_its_engine(info: GameInfo) -> None:
    rules = info.rules()
    state = info.deal(rules, 0, random.Random(1))
    assert game_of(state) is info
    assert game_of(rules) is info
    assert state.num_seats == info.num_seats
    dealt = 0
    for seat in range(info.num_seats):
        hand = state.observation(seat).hands[seat]
        assert hand is not None and hand.bit_count() == info.hand_size
        dealt |= hand
    assert dealt & ~info.pack == 0
    assert (info.pack & ~dealt).bit_count() == info.cachette_size
    assert list(info.deck) == [c for c in range(64) if info.pack >> c & 1]
    assert all(a < info.num_actions for a in state.legal_actions())
    assert state.phase in info.phases and Phase(state.phase).label == state.observation(0).phase


@pytest.mark.parametrize("info", games(), ids=lambda g: g.name)
def test_option_defaults_are_the_rules_defaults(info: GameInfo) -> None:
    for v in info.variant_names:
        rules = info.rules(v, info.option_defaults(v))
        assert rules == info.rules(v)
        for name, value in info.option_defaults(v).items():
            assert getattr(rules, name) == value


def test_the_dummy_is_the_lone_players_partner() -> None:
    g = find_game("quinto")
    assert [g.dummy_of(s) for s in range(4)] == [2, 3, 0, 1]
    assert g.dummy_of(None) is None
    assert find_game("quintus").dummy_of(0) is None


def test_quintus_teams_come_from_the_engine() -> None:
    g = find_game("quintus")
    assert g.teams_of(0) == ((1, 3), (2, 4))
    assert g.teams_of(None) is None and g.teams_of(-1) is None
    assert find_game("quinto").teams_of(0) is None


def test_unknown_games_and_variants_are_named_in_the_error() -> None:
    with pytest.raises(InvalidOptionError, match="QuintusRules are not rules of quinto"):
        find_game("quinto").deal(find_game("quintus").rules(), 0, random.Random(1))
    with pytest.raises(InvalidOptionError, match=r"'bridge' \(known: quinto, quintus\)"):
        find_game("bridge")
    with pytest.raises(InvalidOptionError, match="unknown quintus variant 'dummy'"):
        find_variant("quintus", "dummy")
    with pytest.raises(InvalidOptionError, match="belongs to no game"):
        game_of(object())


def test_variants_and_the_browsers_description() -> None:
    assert find_variant("quinto").name == "partnership"
    dummy = find_variant("quinto", "dummy")
    assert dummy.lone_seat and dummy.players == 3
    for info in GAMES.values():
        j = info.to_json()
        assert j["seats"] == info.num_seats and j["variants"] == list(info.variant_names)
        assert set(j["options"]) == {o.name for o in info.options}


#: Every table of per-game code above the engines: (module, name, what its keys are).
PER_GAME_TABLES = [
    ("quintet.sheets", "_SHEETS", "match_class"),
    ("quintet.server.views", "_HAND_PARTS", "observation"),
    ("quintet.server.views", "_RESULT_PARTS", "state_class"),
    ("quintet.server.views", "_SHEETS", "match_class"),
    ("quintet.tui.model", "_TITLES", "match_class"),
    ("quintet.tui.model", "_INFOS", "match_class"),
    ("quintet.tui.replay", "_INFO_LINES", "state_class"),
    ("quintet.tui.play", "_SUMMARIES", "state_class"),
    ("quintet.arena.seating", "ROLES", "state_class"),
    ("quintet.botproto.messages", "_GAME_PARTS", "state_class"),
    ("quintet.integrations.layouts", "LAYOUTS", "state_class"),
    ("quintet.integrations.spec", "_HANDS", "state_class"),
    ("quintet.bots.heuristic", "_ACTS", "name"),
    ("quintet.bots.frozen.heuristic_2026", "_ACTS", "name"),
    ("quintet.pad", "PADS", "name"),
    ("quintet.pad.commands", "_PARSE", "pad"),
    ("quintet.pad.commands", "_WRITE", "pad"),
    ("quintet.pad.commands", "_HELP", "pad"),
    ("quintet.pad.sheets", "_SHEETS", "pad"),
    ("quintet.pad.sheets", "_ROWS", "pad"),
    ("quintet.pad.fromrecord", "_ENTRIES", "state_class"),
    ("quintet.server.players", "_FIGURES", "name"),
    ("quintet.server.results", "_RESULTS", "name"),
    ("quintet.server.ratings", "LADDERS", "name"),
    ("quintet.server.ratings", "LADDER_SOURCES", "name"),
]


@pytest.mark.parametrize(("module", "name", "key"), PER_GAME_TABLES)
def test_every_per_game_table_has_every_game(module: str, name: str, key: str) -> None:
    """A new game (or a new table) cannot leave a layer without its part."""
    import importlib

    table = getattr(importlib.import_module(module), name)
    for info in games():
        if key == "observation":
            want: object = type(info.deal(info.rules(), 0, random.Random(0)).observation(0))
        elif key == "name":
            want = info.name
        elif key == "pad":
            from quintet.pad import PADS

            want = PADS[info.name]
        else:
            want = getattr(info, key)
        assert want in table, f"{module}.{name} has nothing for {info.name}"


def test_a_table_may_be_created_for_every_game() -> None:
    """The web API's create body names every game (its field is a closed list)."""
    import typing

    from quintet.server.messages import CreateTable

    allowed = typing.get_args(CreateTable.model_fields["game"].annotation)
    assert sorted(allowed) == sorted(info.name for info in games())


def _quinto_is_a_game_state(state: QuintoState) -> GameState:
    return state  # mypy checks that QuintoState implements the protocol


def _quintus_is_a_game_state(state: QuintusState) -> GameState:
    return state  # and QuintusState


def test_both_engines_implement_the_game_protocol() -> None:
    """Statically (the two functions above, under mypy) and at run time."""
    for info in games():
        state = info.deal(info.rules(), 0, random.Random(3))
        assert isinstance(state, GameState)
        assert state.phase in info.phases and state.dealer == 0


def test_both_engines_say_points_and_scores_by_the_same_names() -> None:
    """points(): by side so far; scores(): by seat; returns() follows from them (Quinto)."""
    for info in games():
        rng = random.Random(5)
        state = info.deal(info.rules(), 0, rng)
        while not state.is_terminal():
            legal = [a for a in state.legal_actions() if not is_signal(a)]
            state.apply_action(rng.choice(legal))
        points, scores = state.points(), state.scores()
        assert len(scores) == info.num_seats
        if info.partnerships is not None:
            assert len(points) == 2
            for a, b in info.partnerships:
                assert scores[a] == scores[b] == points[a & 1]
            assert state.returns()[0] == points[0] - points[1]
        else:
            assert len(points) == 3  # the quintus, and each team
