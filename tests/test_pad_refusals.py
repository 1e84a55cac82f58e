"""Each refusal of the score pad, with its message; a refused entry changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from quintet.pad import ImpossibleEntryError, InvalidEntryError, InvalidPadError, PadError, new_pad

Q = {"type": "quint"}


def refused(
    pad: Any, entry: dict[str, Any], message: str, kind: type = ImpossibleEntryError
) -> None:
    before = pad.to_json()
    with pytest.raises(PadError) as e:
        pad.add(entry)
    assert type(e.value) is kind
    assert e.value.detail == message
    assert e.value.entry == len(before["entries"])
    assert pad.to_json() == before


def quinto(**options: Any) -> Any:
    return new_pad("quinto", options=options or None)


def ended_hand(pad: Any, tricks: tuple[int, int] = (6, 7)) -> None:
    pad.add({"type": "cachette", "side": 1})
    pad.add({"type": "tricks", "tricks": list(tricks)})


# ----------------------------------------------------------------------- Quinto


def test_more_than_thirteen_tricks_is_refused() -> None:
    pad = quinto()
    pad.add({"type": "cachette", "side": 0})
    refused(
        pad,
        {"type": "tricks", "tricks": [8, 6]},
        "N-S 8 + E-W 6 = 14 tricks: a hand has 13 (12 played and the cachette)",
    )


def test_a_quint_entered_twice_is_refused() -> None:
    pad = quinto()
    pad.add({**Q, "quint": "5H", "side": 0})
    refused(
        pad,
        {**Q, "quint": "5h", "side": 1},
        "the 5♥ quint was already entered in hand 1 (entry 0): each quint falls once a hand",
    )


def test_a_quint_listed_twice_in_one_trick_is_refused() -> None:
    refused(
        quinto(), {**Q, "quints": ["JK", "JK"], "side": 0}, "the Quint Royal quint is listed twice"
    )


def test_a_broken_pair_is_no_longer_offered_or_accepted() -> None:
    pad = quinto()
    assert "AH+4H" in pad.possible_quints()
    pad.add({"type": "broken", "pair": "4H+AH"})
    assert "AH+4H" not in pad.possible_quints() and "5H" in pad.possible_quints()
    refused(
        pad,
        {**Q, "quint": "AH+4H", "side": 0},
        "the A♥+4♥ pair is broken in hand 1: one of its cards fell without the other",
    )
    refused(
        pad,
        {"type": "cachette", "side": 0, "quints": ["AH+4H"]},
        "the A♥+4♥ pair is broken in hand 1: one of its cards fell without the other, so it "
        "cannot be in the cachette",
    )


def test_only_a_pair_can_be_broken() -> None:
    refused(
        quinto(),
        {"type": "broken", "pair": "5H"},
        "5♥ is not a pair: only an A+4 or 2+3 pair can be broken",
        InvalidEntryError,
    )


def test_a_quint_that_is_not_one_is_refused() -> None:
    refused(
        quinto(),
        {**Q, "quint": "AH+3H", "side": 0},
        "'AH+3H' is not a quint (the quints: JK, 5H, AH+4H, 2H+3H, 5D, AD+4D, 2D+3D, 5C, "
        "AC+4C, 2C+3C, 5S, AS+4S, 2S+3S)",
        InvalidEntryError,
    )


def test_a_trick_holds_four_cards_of_quints_at_most() -> None:
    refused(
        quinto(),
        {**Q, "quints": ["AH+4H", "2H+3H", "5S"], "side": 0},
        "a trick holds 4 cards; these quints need 5: 5♠ 2♥ 3♥ 4♥ A♥",
    )


def test_the_cachette_holds_five_cards() -> None:
    refused(
        quinto(),
        {"type": "cachette", "side": 0, "quints": ["AH+4H", "2H+3H", "AS+4S"]},
        "the cachette holds 5 cards; these quints need 6: 4♠ A♠ 2♥ 3♥ 4♥ A♥",
    )


def test_the_doubling_comes_first() -> None:
    pad = quinto()
    pad.add({**Q, "quint": "5C", "side": 1})
    refused(
        pad,
        {"type": "doubling", "level": "doubled", "by": 0},
        "the doubling round comes first: hand 1 already has entries",
    )


def test_the_lone_dealers_double_cannot_be_redoubled() -> None:
    pad = new_pad("quinto", "dummy", lone_seat=0)  # North alone deals and speaks last
    refused(
        pad,
        {"type": "doubling", "level": "redoubled", "by": 0},
        "N-S cannot be redoubled in hand 1: North deals, and the round can end: none, "
        "doubled by N-S, doubled by E-W, redoubled by E-W",
    )
    pad.add({"type": "doubling", "level": "redoubled", "by": 1})


def test_the_tricks_come_after_the_cachette() -> None:
    refused(
        quinto(),
        {"type": "tricks", "tricks": [6, 7]},
        "enter who took the cachette (the 12th trick) before the tricks of hand 1",
    )


def test_the_cachette_taker_won_the_twelfth_trick() -> None:
    pad = quinto()
    pad.add({"type": "cachette", "side": 0})
    refused(
        pad,
        {"type": "tricks", "tricks": [1, 12]},
        "N-S took the cachette, so they won the 12th trick too: at least 2 tricks, not 1",
    )


def test_quints_need_tricks_to_lie_in() -> None:
    pad = quinto()
    pad.add({**Q, "quints": ["AH+4H", "2H+3H"], "side": 1})
    pad.add({**Q, "quint": "5S", "side": 1})
    pad.add({"type": "cachette", "side": 0})
    refused(
        pad,
        {"type": "tricks", "tricks": [12, 1]},
        "E-W's quints (5♠ 2♥ 3♥ 4♥ A♥) need at least 2 tricks of 4 cards, not 1",
    )


def test_no_trick_quint_after_the_cachette() -> None:
    pad = quinto()
    pad.add({"type": "cachette", "side": 0})
    refused(
        pad,
        {**Q, "quint": "5H", "side": 0},
        "the 5♥ quint cannot come now: the cachette of hand 1 is taken (only its tricks are left)",
    )


def test_the_target_ends_the_game_at_once_and_says_so() -> None:
    pad = quinto(target=40)
    pad.add({**Q, "quint": "5H", "side": 0})
    pad.add({**Q, "quints": ["5D", "5S"], "side": 0})  # 40: the game is won there
    hand = pad.computed.hands[0]
    assert hand.over and hand.winner == 0 and hand.tricks is None
    assert pad.status() == (
        "N-S reach 40 with the 5♠ quint in hand 1: they win game 1 40 to 0, and the hand stops "
        "there. Next: hand 2, East deals."
    )
    pad.add({**Q, "quint": "5H", "side": 1})  # hand 2 (game 2) starts from 0
    assert pad.computed.hands[1].game == 1 and pad.computed.hands[1].score == [0, 20]


def test_a_tie_plays_an_extra_hand_won_by_the_first_quint() -> None:
    pad = quinto(target=60)
    pad.add({"type": "cachette", "side": 0})
    pad.add({"type": "tricks", "tricks": [6, 7]})  # 30 - 35
    pad.add({**Q, "quint": "5S", "side": 0})
    pad.add({"type": "cachette", "side": 1})
    pad.add({"type": "tricks", "tricks": [6, 7]})  # 65 - 70
    assert pad.computed.hands[1].winner == 1
    pad2 = quinto(target=30)
    pad2.add({**Q, "quint": "5S", "side": 1})
    pad2.add({"type": "cachette", "side": 0})
    pad2.add({"type": "tricks", "tricks": [7, 6]})  # 35 - 35: a tie past 30
    assert pad2.computed.hands[0].tied
    assert pad2.status().startswith("Tie at 35 in hand 1: another hand is played")
    pad2.add({**Q, "quint": "5S", "side": 0})  # the first quint of the extra hand wins
    assert pad2.computed.hands[1].winner == 0 and pad2.computed.hands[1].ended_by == "quint"


def test_the_rubber_over_takes_no_more_entries() -> None:
    pad = quinto(target=20)
    pad.add({**Q, "quint": "5H", "side": 0})
    pad.add({**Q, "quint": "5H", "side": 0})
    assert pad.score_summary()["rubber"] == {"winner": 0, "score": [140, 0]}
    refused(pad, {**Q, "quint": "5S", "side": 1}, "the rubber is over: N-S won it 2 games to 0")


def test_the_dummy_games_rotate_the_lone_player_with_the_handicap() -> None:
    pad: Any = new_pad("quinto", "dummy", {"target": 40}, lone_seat=1)
    pad.add({**Q, "quint": "5H", "side": 0})  # the opponents (N-S) start at 25: 45
    g = pad.computed.games[0]
    assert g.start == (25, 0) and g.winner == 0
    pad.add({**Q, "quint": "5S", "side": 0})
    g2 = pad.computed.games[1]
    assert g2.lone_seat == 2 and g2.start == (0, 25) and g2.hands[0].dealer == 2
    assert pad.score_summary(1) == {
        "game": "quinto", "complete": False, "games": [{"score": [5, 25], "winner": None}],
        "rubber": None,
    }  # fmt: skip


def test_bad_shapes_are_refused() -> None:
    pad = quinto()
    refused(
        pad,
        {"type": "trick"},
        "unknown entry type 'trick' (a quinto pad has: doubling, quint, broken, cachette, tricks)",
        InvalidEntryError,
    )
    refused(
        pad,
        {**Q, "quint": "5H", "side": 2},
        "'side' of a quint entry is 2, not one of 0, 1",
        InvalidEntryError,
    )
    refused(
        pad,
        {**Q, "quint": "5H", "side": 0, "sied": 1},
        "a quint entry has no field 'sied' (fields: quint, quints, side)",
        InvalidEntryError,
    )
    refused(pad, {"type": "tricks", "tricks": [6, True]}, "'tricks' is two counts, N-S's and "
            "E-W's, not [6, True]", InvalidEntryError)  # fmt: skip


def test_bad_documents_are_refused() -> None:
    with pytest.raises(InvalidPadError, match=r"a dummy pad needs the lone player's seat 0\.\.3"):
        new_pad("quinto", "dummy")
    with pytest.raises(InvalidPadError, match="unknown game 'bridge'"):
        new_pad("bridge")
    with pytest.raises(InvalidPadError, match="option target must be at least 1"):
        new_pad("quinto", options={"target": 0})
    with pytest.raises(InvalidPadError, match="'players' must be a list of 5 names"):
        new_pad("quintus", players=["a", "b"])


# ---------------------------------------------------------------------- Quintus


def quintus(variant: str = "base", **kw: Any) -> Any:
    return new_pad("quintus", variant, **kw)


H = {"type": "hand", "trump": "H"}


def test_card_points_no_set_of_cards_gives_are_refused() -> None:
    refused(
        quintus(),
        {**H, "points": [0, 61, -24]},
        "no set of whole tricks gives the team 0&2 61 card points (J Q K +5, 5 to 10 -1, aces 0)",
    )
    refused(
        quintus(),
        {**H, "points": [10, 20, 20]},
        "no deal of the 40 cards gives quintus (seat 4) 10, team 0&2 20, team 1&3 20 together "
        "(all cards counted, the three add up to 36 plus 5 for each J, Q or K the quintus won)",
    )


def test_a_made_nil_with_court_cards_is_refused() -> None:
    refused(
        quintus(),
        {**H, "nil": "closed", "nil_failed": False, "points": [10, 20, 6]},
        "10 card points for the quintus (seat 4) do not fit with a made nil (no J, Q, K or ace "
        "won)",
    )


def test_a_nil_with_points_says_whether_it_failed() -> None:
    refused(
        quintus(),
        {**H, "nil": "open", "points": [-5, 30, 16]},
        "with a open nil and points (not cards), say whether it failed: 'nil_failed'",
        InvalidEntryError,
    )


def test_cards_must_be_whole_tricks_of_the_pack() -> None:
    refused(
        quintus(),
        {**H, "cards": [["JH", "QH", "KH", "5S"], None, []]},
        "the quintus (seat 4) won 4 cards: tricks are 5 cards each",
    )
    refused(quintus(), {**H, "cards": [["JH", "JH"], None, []]}, "card JH is entered twice")
    refused(
        quintus(),
        {**H, "cards": [["2H"], None, []]},
        "'2H' is not a card of the Quintus pack",
        InvalidEntryError,
    )
    refused(
        quintus(),
        {**H, "cards": [["JH", "QH", "KH", "5S", "6S"], [], []]},
        "the three sides hold 5 of the 40 cards: missing 7S 8S 9S TS JS QS KS AS 5C 6C 7C 8C "
        "9C TC JC QC KC AC 5D 6D 7D 8D 9D TD JD QD KD AD 5H 6H 7H 8H 9H TH AH",
    )


def test_a_nil_that_the_cards_contradict_is_refused() -> None:
    refused(
        quintus(),
        {
            **H,
            "nil": "closed",
            "nil_failed": False,
            "cards": [["JH", "5S", "6S", "7S", "8S"], None, []],
        },
        "nil_failed is false but the quintus's cards hold JH: his nil failed",
    )


def test_a_premium_needs_its_cards() -> None:
    refused(
        quintus(),
        {
            **H,
            "cards": [["JH", "QH", "5S", "6S", "7S"], None, []],
            "premiums": {"court": [1, 0, 0]},
        },
        "the quintus (seat 4) melded 1 court(s) but hold J Q K of 0 suit(s)",
    )
    refused(
        quintus(),
        {**H, "points": [-5, 30, 11], "premiums": {"straight": [0, 0, 5]}},
        "5 straights: the pack has four suits",
    )


def test_bids_are_even_from_30_to_120() -> None:
    pad = quintus("bidding")
    refused(pad, {**H, "bid": 41, "bidder": 1, "points": [0, 30, 6]},
            "a bid is an even number from 30 to 120, not 41")  # fmt: skip
    refused(
        pad,
        {**H, "points": [0, 30, 6]},
        "a hand entry needs 'bid'",
        InvalidEntryError,
    )


def test_the_base_game_has_no_auction() -> None:
    refused(
        quintus(first_dealer=2),
        {**H, "bid": 40, "bidder": 1, "points": [0, 30, 6]},
        "the base game has no auction: the quintus of hand 1 is the dealer's right-hand player, "
        "seat 1",
    )
    refused(
        quintus(),
        {"type": "void"},
        "a void hand (all five passed) happens only in the bidding variant",
    )


def test_the_session_over_takes_no_more_hands() -> None:
    pad: Any = new_pad("quintus", "bidding", {"hands": 1})
    pad.add({"type": "void"})  # does not count, the same dealer deals again
    assert pad.offers()["dealer"] == 0
    pad.add({**H, "bid": 30, "bidder": 3, "points": [30, 0, 26]})
    refused(pad, {"type": "void"}, "the session of 1 hands is over")


def test_a_failed_bidding_nil_ignores_the_quintus_cards() -> None:
    pad = quintus("bidding")
    pad.add(
        {**H, "bid": 38, "bidder": 0, "nil": "closed", "nil_failed": True, "points": [None, 20, 6]}
    )
    h = pad.view()["hands"][0]
    assert h["points"] == [0, 20, 6] and h["made"] is False and h["scores"][0] == -38
