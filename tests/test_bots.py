"""Bots: every level answers legally in every phase, and none sees a hidden card."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from quintet.actions import PASS, is_play
from quintet.bots import BotView, Budget, levels, make_bot, play_out
from quintet.bots.heuristic import HeuristicBot
from quintet.bots.pimc import PimcBot
from quintet.errors import InvalidOptionError
from quintet.game import Phase
from quintet.quinto import QuintoRules, QuintoState
from quintet.quintus import QuintusRules, QuintusState

FAST = Budget(iterations=3)


def _bot(level: str) -> Any:
    if level == "pimc":
        return PimcBot(samples=3, exact_tricks=3)
    if level == "ismcts":
        from quintet.bots.ismcts import IsmctsBot

        return IsmctsBot(iterations=60)
    return make_bot(level)


def quinto_positions(variant: str) -> list[QuintoState]:
    """States in the doubling round, at a lead, mid-trick and near the end."""
    lone = 1 if variant == "dummy" else None
    rules = QuintoRules(variant=variant, target=10_000)
    out = []
    for seed, plays in ((1, 0), (2, 4), (3, 13), (4, 30), (5, 42)):
        rng = random.Random(seed)
        s = QuintoState.deal(rules, 1, rng, lone_seat=lone)
        if plays:
            while s.phase == Phase.DOUBLING:
                s.apply_action(PASS)
            for _ in range(plays):
                s.apply_action(rng.choice(s.legal_actions()))
        out.append(s)
    return out


def quintus_positions(variant: str) -> list[QuintusState]:
    """States in every Quintus phase: auction, trump, nil, play, meld pending."""
    out = []
    for seed in range(40):
        rng = random.Random(seed)
        s = QuintusState.deal(QuintusRules(variant=variant), seed % 5, rng)
        steps = rng.randrange(0, 30)
        for _ in range(steps):
            if s.is_terminal():
                break
            legal = [a for a in s.legal_actions() if not 67 <= a <= 69]
            if s.phase == 0:  # the auction: one bid, then passes, so that play is reached
                legal = legal[1:2] if s.high_bid is None and rng.random() < 0.5 else legal[:1]
            s.apply_action(rng.choice(legal))
        if not s.is_terminal():
            out.append(s)
    return out


POSITIONS: dict[str, Callable[[], list[Any]]] = {
    "quinto": lambda: quinto_positions("partnership"),
    "quinto-dummy": lambda: quinto_positions("dummy"),
    "quintus": lambda: quintus_positions("base"),
    "quintus-bidding": lambda: quintus_positions("bidding"),
}


@pytest.mark.parametrize("level", ["random", "heuristic", "pimc", "ismcts"])
@pytest.mark.parametrize("game", list(POSITIONS))
def test_every_level_answers_legally_in_every_phase(level: str, game: str) -> None:
    bot = _bot(level)
    phases = set()
    for state in POSITIONS[game]():
        seat = state.current_player()
        view = BotView.of(state, seat, random.Random(7), FAST)
        action = bot.act(view)
        assert action in state.legal_actions(seat), (level, game, str(state))
        phases.add(getattr(view.obs, "phase", ""))
        for other in state.actors():
            if other != seat:
                sig = bot.signal(BotView.of(state, other, random.Random(8), FAST))
                assert sig is None or sig in state.legal_actions(other)
    assert len(phases) >= 2


@pytest.mark.parametrize("level", ["random", "heuristic", "pimc", "ismcts"])
@pytest.mark.parametrize("game", list(POSITIONS))
def test_a_bot_cannot_see_hidden_cards(level: str, game: str) -> None:
    # The same observation and seed give the same choice however the unseen cards lie.
    bot = _bot(level)
    for state in POSITIONS[game]()[:4]:
        seat = state.current_player()
        other_worlds = [state.resample_from_infostate(seat, random.Random(k)) for k in range(3)]
        # The worlds really lie otherwise (else the same choice would prove nothing).
        assert any(list(w.hands) != list(state.hands) for w in other_worlds), str(state)
        choices = set()
        for world in [state, *other_worlds]:
            assert world.observation(seat) == state.observation(seat)
            view = BotView.of(world, seat, random.Random(99), FAST)
            choices.add(bot.act(view))
        assert len(choices) == 1, (level, game, str(state))


def test_heuristic_leads_the_ace_of_spades_for_a_partners_quint_royal() -> None:
    # Hoffmann: the original leader without the joker leads the ace of spades.
    rng = random.Random(0)
    for seed in range(200):
        s = QuintoState.deal(QuintoRules(), 0, random.Random(seed))
        leader = 1
        hand = s.hands[leader]
        if hand >> 12 & 1 and not hand >> 52 & 1:
            for _ in range(4):
                s.apply_action(PASS)
            view = BotView.of(s, leader, rng, FAST)
            assert HeuristicBot().act(view) == 12  # AS
            return
    pytest.fail("no deal with the ace of spades at the leader")


def test_heuristic_throws_the_joker_on_a_partners_safe_trick() -> None:
    from quintet.cards import parse_mask

    hands = [parse_mask("AH 2C"), parse_mask("3C 4C"), parse_mask("JK 5C"), parse_mask("6C 7C")]
    s = QuintoState.from_position(hands, 0, QuintoRules(target=10_000))
    s.act("AH")
    s.act("3C")
    view = BotView.of(s, 2, random.Random(1), FAST)
    assert HeuristicBot().act(view) == 52


def test_levels_and_unknown_level() -> None:
    assert levels()[:2] == ["random", "heuristic"]
    assert {"pimc", "ismcts"} <= set(levels())
    with pytest.raises(InvalidOptionError, match="unknown bot level 'genius'"):
        make_bot("genius")


@pytest.mark.parametrize("game", ["quinto", "quintus-bidding"])
def test_pimc_plays_whole_hands(game: str) -> None:
    bot = PimcBot(samples=2, exact_tricks=3)
    h = make_bot("heuristic")
    state = POSITIONS[game]()[0]
    seats = state.num_seats
    play_out(state, [bot if s % 2 == 0 else h for s in range(seats)], random.Random(3), FAST)
    assert state.is_terminal()
    assert any(is_play(a) for _, a in state.history())


def test_bot_parameters_follow_the_level_name() -> None:
    bot = make_bot("pimc:samples=7:exact_tricks=4")
    assert isinstance(bot, PimcBot) and bot.samples == 7 and bot.exact_tricks == 4
    with pytest.raises(InvalidOptionError, match="bad parameter for bot 'pimc'"):
        make_bot("pimc:colour=blue")
    with pytest.raises(InvalidOptionError, match="must be name=value"):
        make_bot("ismcts:300")
