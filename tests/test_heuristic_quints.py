"""The heuristic (and so every playout policy built on it) knows Quinto's quints.

Each test is one rule, set up as a position with ``QuintoState.from_position``: seats
N=0, E=1, S=2, W=3, partners N-S and E-W; the highest card of a trick wins (hearts
over diamonds over clubs over spades); an ace and four, or a two and three, of one suit
in one trick make a quint, and so does each five.
"""

from __future__ import annotations

import random

import pytest

from quintet.bots import BotView, Budget
from quintet.bots.heuristic import HeuristicBot
from quintet.bots.pimc import PimcBot
from quintet.cards import card_str, parse_card, parse_mask
from quintet.quinto import QuintoRules, QuintoState

RULES = QuintoRules(target=10_000)


def position(
    hands: dict[str, str],
    leader: str,
    trick: str = "",
    cachette: str = "",
    multiplier: int = 1,
    rules: QuintoRules = RULES,
    lone_seat: int | None = None,
) -> QuintoState:
    seats = "NESW"
    return QuintoState.from_position(
        [parse_mask(hands[s]) for s in seats],
        seats.index(leader),
        rules,
        trick=[parse_card(c) for c in trick.split()],
        cachette=parse_mask(cachette) if cachette else 0,
        multiplier=multiplier,
        lone_seat=lone_seat,
    )


def heuristic_play(state: QuintoState, seed: int = 1) -> str:
    seat = state.current_player()
    return card_str(HeuristicBot().act(BotView.of(state, seat, random.Random(seed))))


def test_capture_a_quint_with_the_winning_card() -> None:
    """East leads 4H; South's AH takes the ace-and-four quint (+20) and K H does not."""
    state = position(
        {"N": "2C 3C 6C", "E": "7D 8D", "S": "AH KH 9H", "W": "5D 6D 9D"},
        leader="E",
        trick="4H",
        multiplier=4,
    )
    assert state.current_player() == 2
    assert heuristic_play(state) == "AH"


def test_pimc_with_a_few_samples_captures_the_quint_too() -> None:
    """The playouts follow the heuristic, so even a one-sample pimc takes the quint."""
    state = position(
        {"N": "2C 3C 6C", "E": "7D 8D", "S": "AH KH 9H", "W": "5D 6D 9D"},
        leader="E",
        trick="4H",
        multiplier=4,
    )
    for seed in range(5):
        view = BotView.of(state, 2, random.Random(seed), Budget(iterations=1))
        assert card_str(PimcBot(exact_tricks=0).act(view)) == "AH"


def test_never_feed_a_quint_to_the_opponents_trick() -> None:
    """West leads 4C, East (an opponent of South) wins with AH; South, void in clubs,
    throws AD (no quint) rather than its lowest card 5S (a quint for East-West)."""
    state = position(
        {"N": "7S", "E": "JD", "S": "5S AD", "W": "9S"},
        leader="W",
        trick="4C 6S AH",
    )
    assert state.current_player() == 2
    assert heuristic_play(state) == "AD"


def test_the_quint_royal_goes_on_a_partners_sure_trick() -> None:
    """North wins the trick with AH (nothing can beat it): South throws the joker."""
    state = position(
        {"N": "2S 3S", "E": "4D 6D", "S": "JK 7C 8C", "W": "9S TS JS"},
        leader="N",
        trick="AH 5D",
    )
    assert state.current_player() == 2
    assert heuristic_play(state) == "JK"


def test_keep_the_last_trick_winner_for_the_cachette() -> None:
    """At the 11th trick South could win only with AH, the sure winner of the 12th trick
    (worth two tricks and the cachette's quints): it keeps it and plays 2S."""
    state = position(
        {"N": "6S 7S", "E": "9C", "S": "AH 2S", "W": "8S TS"},
        leader="E",
        trick="3C",
        cachette="5H 5D 4S 2D 3H",
    )
    assert state.tricks_played == 10 and state.current_player() == 2
    assert heuristic_play(state) == "2S"


# ------------------------------------------------------------------- hints' reasons


def explain(state: QuintoState, seed: int = 1) -> tuple[str, str]:
    seat = state.current_player()
    a, why = HeuristicBot().explain(BotView.of(state, seat, random.Random(seed)))
    return card_str(a), why


def test_the_reason_of_a_quint_capture_names_the_quint() -> None:
    """A hint says which rule chose the card: the A♥ takes the quint of the led 4♥."""
    state = position(
        {"N": "2C 3C 6C", "E": "7D 8D", "S": "AH KH 9H", "W": "5D 6D 9D"},
        leader="E",
        trick="4H",
    )
    card, why = explain(state)
    assert card == "AH"
    assert "sure to win" in why and "quint" in why


def test_the_reason_of_the_quint_royal_names_the_partners_trick() -> None:
    state = position(
        {"N": "2S 3S", "E": "4D 6D", "S": "JK 7C 8C", "W": "9S TS JS"},
        leader="N",
        trick="AH 5D",
    )
    card, why = explain(state)
    assert card == "JK"
    assert "Quint Royal" in why and "partner" in why


def test_the_reason_of_a_discard_says_it_feeds_the_fewest_quint_points() -> None:
    state = position(
        {"N": "7S", "E": "JD", "S": "5S AD", "W": "9S"},
        leader="W",
        trick="4C 6S AH",
    )
    card, why = explain(state)
    assert card == "AD"
    assert "fewest quint points" in why


def test_pimc_explains_a_card_by_its_mean_value_over_the_deals() -> None:
    """pimc's reason: the card's mean value over its deals and its lead over the next."""
    state = position(
        {"N": "2C 3C 6C", "E": "7D 8D", "S": "AH KH 9H", "W": "5D 6D 9D"},
        leader="E",
        trick="4H",
    )
    view = BotView.of(state, 2, random.Random(0), Budget(iterations=4))
    card, why = PimcBot().explain(view)
    assert card_str(card) == "AH"
    assert why.startswith("A♥ averages +")
    assert "over 4 deals" in why and "more than" in why
    assert "points for your side less the other side's" in why


# ------------------------------------------------- the dummy game: the partner in view

DUMMY = QuintoRules(variant="dummy", target=10_000)


def dummy_position(hands: dict[str, str], leader: str, trick: str) -> QuintoState:
    """A dummy-game position with North the lone player and South his dummy."""
    return position(hands, leader, trick, rules=DUMMY, lone_seat=0)


def test_second_to_play_the_lone_player_throws_the_quint_royal_on_his_dummys_sure_trick() -> None:
    """West leads 7C; North (lone) plays second and sees that his dummy, fourth, has no
    club and holds AH, which nothing still out beats: the trick is the dummy's, so North
    throws the Quint Royal on it (without the dummy in view he would keep it)."""
    state = dummy_position(
        {"N": "JK 2S 3S", "E": "8S 9S TS", "S": "AH 6S 7S", "W": "4S 6D"},
        leader="W",
        trick="7C",
    )
    assert state.current_player() == 0
    view = BotView.of(state, 0, random.Random(1))
    card, why = HeuristicBot().explain(view)
    assert card_str(card) == "JK" and "partner is sure to win" in why
    assert card_str(HeuristicBot(mate=0).act(view)) != "JK"


def test_the_dummy_second_to_play_gives_its_five_to_the_lone_players_sure_trick() -> None:
    """East leads 9S; the dummy (South) plays second, and North, fourth, has no spade
    and holds the sure AH: the dummy's 5S goes on North's trick (its quint is theirs).
    Without North's hand in view it plays 3S, the card that gives an opponent least."""
    state = dummy_position(
        {"N": "AH 3C 4C", "E": "8D 9D", "S": "QS 5S 3S", "W": "KS 5C 7C"},
        leader="E",
        trick="9S",
    )
    assert state.current_player() == 2  # the dummy's turn, decided by North
    view = BotView.of(state, 2, random.Random(1))
    assert card_str(HeuristicBot().act(view)) == "5S"
    assert card_str(HeuristicBot(mate=0).act(view)) == "3S"


def test_the_reason_of_a_card_under_the_partners_coming_sure_trick() -> None:
    """The dummy must follow spades with QS or 2S under North's coming AH: it keeps the
    two (a quint card) and says why."""
    state = dummy_position(
        {"N": "AH 3C 4C", "E": "8D 9D", "S": "QS 2S 6C", "W": "KS 5C 7C"},
        leader="E",
        trick="9S",
    )
    card, why = HeuristicBot().explain(BotView.of(state, 2, random.Random(1)))
    assert card_str(card) == "QS" and "whose hand you see" in why


def test_a_partner_who_must_follow_with_a_low_card_is_not_sure() -> None:
    """West leads 7C; the dummy holds AH but also 2C, which it must play: North (second)
    does not count the trick as the dummy's and keeps the Quint Royal."""
    state = dummy_position(
        {"N": "JK 2S 3S", "E": "8S 9S TS", "S": "AH 2C 7S", "W": "4S 6D"},
        leader="W",
        trick="7C",
    )
    assert card_str(HeuristicBot().act(BotView.of(state, 0, random.Random(1)))) != "JK"


def test_mate_is_on_or_off() -> None:
    with pytest.raises(ValueError, match="mate must be 0 \\(off\\) or 1 \\(on\\), not 2"):
        HeuristicBot(mate=2)
