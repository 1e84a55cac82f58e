"""Quinto, one test per rule (shared/spec/rulings.md and docs/rules.md).

Most tests play one of two concrete, fully legal deals card by card:

* ``WORKED``: Hoyle's example "If A B win 11 tricks, and Y Z 2, A B score 55, and Y Z 10"
  (seed 000). Every trick holds four cards of one suit; North-South win ten tricks and
  the twelfth, so eleven with the cachette; East-West win two.
* ``TIE``: a hand that ends North-South 95, East-West 95.

Positions in the middle of a hand are built with ``QuintoState.from_position``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from quintet.actions import DOUBLE, PASS, REDOUBLE, Action
from quintet.cards import JOKER, QUINTO_PACK, CardMask, card_str, hand_display, parse_card
from quintet.cards import parse_mask as m
from quintet.errors import IllegalActionError, InvalidActionError, InvalidOptionError
from quintet.game import TERMINAL, Event, Phase
from quintet.quinto import (
    QuintoMatch,
    QuintoRules,
    QuintoState,
    draw_for_partners,
    quint_points,
    quints,
    random_deal,
    trick_winner,
)
from quintet.quinto.rules import SEAT_NAMES, SIDE_NAMES

# ----------------------------------------------------------------------------- deals

#: Hoyle's 11-to-2 hand. Per suit: A K Q J fall together, T 9 8 7 together, 5 4 3 2
#: together (so every 5 lies with its suit's 2+3, and every A+4 is split).
WORKED_HANDS = (
    "AH 8H 5H KD TD 4D AC 9C 4C KS TS 3S",  # North
    "KH 7H 4H QD 9D 3D KC TC 3C QS 9S 4S",  # East
    "QH TH 3H AD 8D 5D QC 8C 5C AS 8S 2S",  # South
    "JH 9H 2H JD 7D 2D JC 7C 2C JS 7S 5S",  # West
)
WORKED_CACHETTE = "JK 6S 6C 6D 6H"
#: The tricks in play order from the leader, North leading the first (dealer West).
WORKED_TRICKS = (
    "AH KH QH JH",  # 1  N wins
    "5H 4H 3H 2H",  # 2  N wins: 5H 20 + 2H+3H 20
    "TD 9D 8D 7D",  # 3  N
    "AC KC QC JC",  # 4  N
    "TS 9S 8S 7S",  # 5  N
    "9C TC 8C 7C",  # 6  E wins
    "4S 2S 5S 3S",  # 7  E leads, W wins: 5S 5 + 2S+3S 5
    "9H 8H 7H TH",  # 8  W leads, S wins
    "AD JD KD QD",  # 9  S
    "5D 2D 4D 3D",  # 10 S: 5D 15 + 2D+3D 15
    "AS JS KS QS",  # 11 S
    "5C 2C 4C 3C",  # 12 S: 5C 10 + 2C+3C 10; the cachette: JK 25
)
WORKED_WINNERS = (0, 0, 0, 0, 0, 1, 3, 2, 2, 2, 2, 2)
WORKED_QUINTS = (0, 40, 0, 0, 0, 0, 10, 0, 0, 30, 0, 20)

#: A hand ending 95-95: N-S take 5C/2C+3C, 5S/2S+3S and the cachette (JK), E-W take
#: 5D/2D+3D and 5H/2H+3H; N-S win 7 tricks + cachette, E-W 5.
TIE_HANDS = (
    "AH 9H 3H KD 9D 4D AC 9C 5C KS TS 4S",  # North
    "KH TH 4H QD 8D 5D KC 8C 4C AS 9S 3S",  # East
    "QH 8H 2H AD 7D 3D QC TC 3C QS 8S 5S",  # South
    "JH 7H 5H JD TD 2D JC 7C 2C JS 7S 2S",  # West
)
TIE_CACHETTE = WORKED_CACHETTE
TIE_TRICKS = (
    "AH KH QH JH",  # 1  N
    "AC KC QC JC",  # 2  N
    "5C 4C 3C 2C",  # 3  N: 20
    "TS 9S 8S 7S",  # 4  N
    "9H TH 8H 7H",  # 5  E
    "AS QS JS KS",  # 6  E
    "5D 3D 2D 4D",  # 7  E: 30
    "4H 2H 5H 3H",  # 8  W: 40
    "TD 9D 8D 7D",  # 9  W
    "JD KD QD AD",  # 10 S
    "TC 7C 9C 8C",  # 11 S
    "5S 2S 4S 3S",  # 12 S: 10; the cachette: 25
)

PASSES = ("pass", "pass", "pass", "pass")


def deal(hands: Sequence[str], cachette: str, rotate: int = 0) -> tuple[list[CardMask], CardMask]:
    """Return masks for four hands (hand ``k`` going to seat ``k + rotate``) and a cachette."""
    out = [0, 0, 0, 0]
    for k, text in enumerate(hands):
        out[(k + rotate) % 4] = m(text)
    return out, m(cachette)


def worked_deal(rotate: int = 0) -> tuple[list[CardMask], CardMask]:
    return deal(WORKED_HANDS, WORKED_CACHETTE, rotate)


def worked(
    score: tuple[int, int] = (0, 0),
    rules: QuintoRules | None = None,
    doubling: Sequence[str] = PASSES,
) -> QuintoState:
    """The WORKED deal, dealer West (so North speaks and leads first), doubling done."""
    hands, cachette = worked_deal()
    s = QuintoState.new(rules or QuintoRules(), 3, hands, cachette, score)
    for a in doubling:
        s.act(a)
    return s


def cards(text: str) -> list[int]:
    return [parse_card(code) for code in text.split()]


def play(state: QuintoState, codes: str) -> None:
    for code in codes.split():
        state.act(code)


def play_tricks(state: QuintoState, tricks: Sequence[str], n: int | None = None) -> None:
    for t in tricks[:n]:
        play(state, t)


def play_out(state: QuintoState) -> None:
    """Finish a hand, always taking the lowest legal action."""
    while not state.is_terminal():
        state.act(state.legal_actions()[0])


def events(state: QuintoState, kind: str) -> list[Event]:
    return [e for e in state.events() if e.kind == kind]


def cards_of(actions: Sequence[Action]) -> list[str]:
    return [card_str(a) for a in actions]


def position(
    hands: Sequence[str],
    leader: int,
    trick: str = "",
    rules: QuintoRules | None = None,
    **kwargs: object,
) -> QuintoState:
    """A position in play: the cards still held per seat and the trick so far."""
    return QuintoState.from_position(
        [m(h) for h in hands],
        leader,
        rules,
        trick=cards(trick),
        **kwargs,  # type: ignore[arg-type]
    )


def snapshot(s: QuintoState) -> tuple[object, ...]:
    return (
        s.history(),
        list(s.hands),
        s.render(),
        list(s.score),
        list(s.tricks_won),
        list(s.trick),
        s.current_player(),
        s.multiplier,
        s.doubled_by,
        s.is_terminal(),
        s.legal_actions(),
    )


def quick_game_hand(match: QuintoMatch) -> QuintoState:
    """Deal the WORKED cards so that the next leader holds North's cards, and play two
    tricks: the leader's side scores 40 in quints (a game when the target is 40)."""
    rotate = (match.next_dealer() + 1) % 4
    hands, cachette = worked_deal(rotate)
    s = match.start_hand(hands, cachette)
    while s.phase == Phase.DOUBLING:  # doubling round: everybody passes
        s.act("pass")
    play_tricks(s, WORKED_TRICKS, 2)
    return s


# ------------------------------------------------------------------ seats and sides


def test_seats_are_north_east_south_west() -> None:
    assert SEAT_NAMES == ("North", "East", "South", "West")
    assert SIDE_NAMES == ("N-S", "E-W")


def test_play_goes_clockwise_north_east_south_west() -> None:
    s = worked()
    seats = []
    for code in WORKED_TRICKS[0].split():
        seats.append(s.current_player())
        s.act(code)
    assert seats == [0, 1, 2, 3]


def test_partners_sit_opposite_north_south_against_east_west() -> None:
    s = worked()
    play_tricks(s, WORKED_TRICKS, 8)
    # tricks 1-5 by North, 6 by East, 7 by West, 8 by South
    assert [e.seat for e in events(s, "trick")] == [0, 0, 0, 0, 0, 1, 3, 2]
    assert s.tricks_won == [6, 2]  # North's and South's tricks are side 0's
    assert s.score == [40, 10]  # West's quints count for side 1 (East-West)


# ----------------------------------------------------------------------- card order


def test_all_52_cards_form_one_sequence_for_winning_tricks() -> None:
    # a higher suit beats any card of a lower suit, whatever was led
    assert trick_winner(0, cards("AS 2C KS QS")) == 1
    assert trick_winner(0, cards("AC 2D KC QC")) == 1
    assert trick_winner(0, cards("AD KD 2H QD")) == 2
    assert trick_winner(2, cards("KH AH 2S 3C")) == 3


def test_highest_card_in_a_trick_wins_whatever_its_suit() -> None:
    s = position(["9S", "2C", "AS", "2D"], leader=0)
    play(s, "9S 2C AS 2D")
    assert events(s, "trick")[0].seat == 3  # 2D beats 2C, which beats AS


def test_heart_ace_beats_every_card() -> None:
    for c in range(52):
        if c != parse_card("AH"):
            assert trick_winner(1, [c, parse_card("AH")]) == 2


def test_joker_never_wins_a_trick() -> None:
    assert trick_winner(0, [parse_card("2S"), JOKER, parse_card("3S"), parse_card("4S")]) == 3
    assert trick_winner(0, [parse_card("2S"), parse_card("3S"), parse_card("4S"), JOKER]) == 2
    s = position(["2S", "JK", "3S", "4S"], leader=0)
    play(s, "2S JK 3S 4S")
    assert events(s, "trick")[0].seat == 3


# -------------------------------------------------------------------------- the deal


def test_deal_gives_twelve_cards_each_and_five_to_the_cachette() -> None:
    for seed in range(20):
        hands, cachette = random_deal(random.Random(seed))
        assert [h.bit_count() for h in hands] == [12, 12, 12, 12]
        assert cachette.bit_count() == 5
        assert hands[0] | hands[1] | hands[2] | hands[3] | cachette == QUINTO_PACK
    s = QuintoState.deal(QuintoRules(), dealer=2, rng=random.Random(1))
    assert [h.bit_count() for h in s.hands] == [12, 12, 12, 12]
    assert s.cachette.bit_count() == 5


def test_a_deal_must_be_the_whole_pack_twelve_each_and_five_cards_apart() -> None:
    hands, cachette = worked_deal()
    short = [hands[0] ^ (hands[0] & -hands[0]), *hands[1:]]
    with pytest.raises(ValueError, match="seat 0 \\(North\\) is dealt 11 cards, not 12"):
        QuintoState.new(QuintoRules(), 0, short, cachette)
    with pytest.raises(ValueError, match="the cachette has 4 cards, not 5"):
        QuintoState.new(QuintoRules(), 0, hands, cachette ^ (1 << JOKER))
    with pytest.raises(ValueError, match="a Quinto deal has 4 hands"):
        QuintoState.new(QuintoRules(), 0, hands[:3], cachette)
    with pytest.raises(ValueError, match="dealer 4 is out of range"):
        QuintoState.new(QuintoRules(), 4, hands, cachette)


# -------------------------------------------------------------------- doubling round


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_doubling_round_starts_left_of_dealer_and_goes_clockwise(dealer: int) -> None:
    hands, cachette = worked_deal()
    s = QuintoState.new(QuintoRules(), dealer, hands, cachette)
    speakers = []
    for _ in range(4):
        speakers.append(s.current_player())
        s.act("pass")
    assert speakers == [(dealer + i) % 4 for i in range(1, 5)]


def test_each_player_acts_exactly_once_in_the_doubling_round() -> None:
    hands, cachette = worked_deal()
    s = QuintoState.new(QuintoRules(), 3, hands, cachette)
    s.act("pass")
    s.act("double")
    s.act("pass")
    s.act("pass")
    # the round is over after four turns: North, who passed first, gets no second turn
    assert [seat for seat, _ in s.history()] == [0, 1, 2, 3]
    assert s.phase == Phase.PLAY
    assert s.current_player() == 0
    assert all(a < PASS for a in s.legal_actions())
    with pytest.raises(IllegalActionError, match="cannot redouble: the doubling round is over"):
        s.act("redouble")


def test_pass_and_double_are_legal_when_nobody_has_doubled() -> None:
    s = worked(doubling=())
    assert s.legal_actions() == (PASS, DOUBLE)
    s.act("pass")
    assert s.legal_actions() == (PASS, DOUBLE)


def test_double_only_if_nobody_has_doubled() -> None:
    s = worked(doubling=("double",))
    assert DOUBLE not in s.legal_actions()
    with pytest.raises(IllegalActionError, match="cannot double: N-S already doubled"):
        s.act("double")


def test_opponent_may_redouble_a_double() -> None:
    s = worked(doubling=("double",))
    assert s.current_player() == 1
    assert s.legal_actions() == (PASS, REDOUBLE)
    s.act("redouble")
    assert s.multiplier == 4


def test_partner_double_cannot_be_redoubled() -> None:
    s = worked(doubling=("double", "pass"))
    assert s.current_player() == 2  # South, North's partner
    assert s.legal_actions() == (PASS,)
    with pytest.raises(IllegalActionError, match="cannot redouble his own side's double"):
        s.act("redouble")
    s.act("pass")
    assert s.legal_actions() == (PASS, REDOUBLE)  # West, an opponent, may
    s.act("redouble")
    assert s.multiplier == 4


def test_redouble_only_after_a_double() -> None:
    s = worked(doubling=())
    with pytest.raises(IllegalActionError, match="cannot redouble: nobody has doubled"):
        s.act("redouble")


def test_a_redouble_is_final() -> None:
    s = worked(doubling=("double", "redouble"))
    assert s.legal_actions() == (PASS,)
    with pytest.raises(IllegalActionError, match="the double is already redoubled"):
        s.act("redouble")
    with pytest.raises(IllegalActionError, match="cannot double: N-S already doubled"):
        s.act("double")
    s.act("pass")
    assert s.legal_actions() == (PASS,)


def test_dealer_double_stands() -> None:
    s = worked(doubling=("pass", "pass", "pass", "double"))
    assert s.multiplier == 2
    assert s.doubled_by == 1
    assert s.phase == Phase.PLAY
    assert s.current_player() == 0


@pytest.mark.parametrize(
    ("doubling", "multiplier", "doubled_by"),
    [
        (PASSES, 1, None),
        (("pass", "double", "pass", "pass"), 2, 1),
        (("double", "pass", "pass", "pass"), 2, 0),
        (("double", "redouble", "pass", "pass"), 4, 0),
        (("pass", "double", "redouble", "pass"), 4, 1),
        (("pass", "pass", "double", "redouble"), 4, 0),
    ],
)
def test_trick_value_multiplier_is_1_2_or_4(
    doubling: tuple[str, ...], multiplier: int, doubled_by: int | None
) -> None:
    s = worked(doubling=doubling)
    assert s.multiplier == multiplier
    assert s.doubled_by == doubled_by


@pytest.mark.parametrize("doubling", [PASSES, ("pass", "double"), ("double", "redouble")])
def test_doubling_never_changes_quint_values(doubling: tuple[str, ...]) -> None:
    s = worked(doubling=(*doubling, *("pass",) * (4 - len(doubling))))
    play_tricks(s, WORKED_TRICKS)
    assert [e.points for e in events(s, "trick")] == list(WORKED_QUINTS)
    assert [e.points for e in events(s, "cachette")] == [25]


# ------------------------------------------------------------------------- leading


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_player_left_of_dealer_leads_to_first_trick(dealer: int) -> None:
    hands, cachette = worked_deal()
    s = QuintoState.new(QuintoRules(), dealer, hands, cachette)
    for _ in range(4):
        s.act("pass")
    assert s.current_player() == (dealer + 1) % 4
    assert s.leader == (dealer + 1) % 4


def test_trick_winner_leads_to_next_trick() -> None:
    s = worked()
    for t, winner in zip(WORKED_TRICKS[:-1], WORKED_WINNERS, strict=False):
        play(s, t)
        assert s.current_player() == winner
        assert s.leader == winner


def test_any_card_but_the_joker_may_be_led() -> None:
    s = position(["2S QD AH JK", "3S 4S 5S 6S", "7S 8S 9S TS", "JS QS KS AS"], leader=0)
    assert cards_of(s.legal_actions()) == ["2S", "QD", "AH"]


# ------------------------------------------------------------------ following suit


def test_must_follow_suit_led() -> None:
    s = worked()
    s.act("AH")
    assert cards_of(s.legal_actions()) == ["4H", "7H", "KH"]
    with pytest.raises(IllegalActionError, match="seat 1 \\(East\\) must follow hearts"):
        s.act("QD")


def test_joker_may_always_be_played_instead_of_following_suit() -> None:
    s = position(["3C", "9S JK", "4S 6C", "8C 9C"], leader=0, trick="2S")
    assert cards_of(s.legal_actions()) == ["9S", "JK"]
    s.act("JK")
    assert s.hands[1] == m("9S")


def test_void_player_may_play_any_card_trumping_allowed_not_required() -> None:
    s = position(["3C", "9S JK", "4S 6C", "8C 9D"], leader=0, trick="2S")
    s.act("9S")
    s.act("4S")
    assert cards_of(s.legal_actions()) == ["8C", "9D"]  # West has no spade
    s.act("8C")  # a higher suit: "trumps"
    assert events(s, "trick")[0].seat == 3
    s2 = position(["2C", "9S JK", "4S 6C", "2S 9D"], leader=0, trick="AH")
    s2.act("9S")  # East, void in hearts, may discard low
    s2.act("4S")
    s2.act("2S")
    assert events(s2, "trick")[0].seat == 0


# ------------------------------------------------------------------------ the joker


def test_joker_may_not_lead_before_last_trick() -> None:
    s = position(["JK 2S", "3S 4S", "5C 6S", "7S 8S"], leader=0)
    assert cards_of(s.legal_actions()) == ["2S"]
    with pytest.raises(IllegalActionError, match="may not lead the joker while holding other"):
        s.act("JK")


def test_joker_must_be_led_when_it_is_the_only_card_left() -> None:
    s = position(["JK", "6C", "8S", "3D"], leader=0)
    assert s.tricks_played == 11
    assert s.legal_actions() == (JOKER,)


def test_joker_led_no_suit_to_follow_and_highest_other_card_wins() -> None:
    s = position(["JK", "6C", "8S", "3D"], leader=0)
    play(s, "JK 6C 8S 3D")
    assert events(s, "trick")[0].seat == 3  # 3D is the highest of 6C 8S 3D
    # with more cards in hand, nobody has to follow a suit after a joker lead
    s2 = position(["2C", "4S 6C", "7S 8C", "3C 9D"], leader=0, trick="JK")
    assert cards_of(s2.legal_actions()) == ["4S", "6C"]


def test_joker_thrown_on_partners_trick_scores_25_for_his_side() -> None:
    s = position(["2S", "JK", "4S", "KS"], leader=0)
    play(s, "2S JK 4S KS")
    trick = events(s, "trick")[0]
    assert (trick.seat, trick.points) == (3, 25)
    assert s.score[0] == 0
    assert s.score[1] >= 25


def test_joker_thrown_on_opponents_trick_scores_for_them() -> None:
    s = position(["2S", "JK", "KS", "4S"], leader=0)
    play(s, "2S JK KS 4S")
    trick = events(s, "trick")[0]
    assert (trick.seat, trick.points) == (2, 25)
    assert s.score[0] >= 25
    assert s.score[1] == 0


# ------------------------------------------------------ option joker_eleventh_trick

J11 = QuintoRules(joker_eleventh_trick=True)


def test_joker_eleventh_trick_is_off_by_default() -> None:
    assert QuintoRules().joker_eleventh_trick is False
    s = position(["3C", "AH JK", "4S 6C", "7S 8C"], leader=0, trick="2S")
    assert s.tricks_played == 10
    assert cards_of(s.legal_actions()) == ["AH", "JK"]


def test_without_joker_eleventh_trick_holder_may_be_left_to_lead_the_joker() -> None:
    s = position(["2S 3C", "AH JK", "4S 6C", "7S 8C"], leader=0)
    play(s, "2S AH 4S 7S")
    assert s.current_player() == 1
    assert s.legal_actions() == (JOKER,)
    play(s, "JK 6C 8C 3C")
    assert events(s, "trick")[1].seat == 3  # 8C, the highest card other than the joker
    assert events(s, "trick")[1].points == 25  # thrown... led on his partner's trick


def test_joker_eleventh_trick_forces_the_joker_when_other_card_would_be_highest() -> None:
    # void in the suit led
    s = position(["3C", "AH JK", "4S 6C", "7S 8C"], leader=0, trick="2S", rules=J11)
    assert s.legal_actions() == (JOKER,)
    with pytest.raises(IllegalActionError, match="must play the joker: AH would be the highest"):
        s.act("AH")
    # following suit
    s = position(["3C", "KS JK", "4S 6C", "7S 8C"], leader=0, trick="2S", rules=J11)
    assert s.legal_actions() == (JOKER,)
    # third to play, above the cards so far
    s = position(["3C", "7D", "AS JK", "8S 8C"], leader=0, trick="2S 6S", rules=J11)
    assert s.legal_actions() == (JOKER,)
    play(s, "JK 8S")
    assert events(s, "trick")[0].seat == 3
    play(s, "8C 3C 7D AS")  # so the joker's holder need not lead it at trick 12
    assert s.is_terminal()


def test_joker_eleventh_trick_allows_the_other_card_when_it_would_not_be_highest() -> None:
    s = position(["3C", "7D", "QS JK", "8S 8C"], leader=0, trick="2S KS", rules=J11)
    assert cards_of(s.legal_actions()) == ["QS", "JK"]
    s = position(["3C", "7D", "AS JK", "8S 8C"], leader=0, trick="2S 2H", rules=J11)
    assert cards_of(s.legal_actions()) == ["AS", "JK"]  # AS is below 2H


def test_joker_eleventh_trick_does_not_bind_the_leader() -> None:
    s = position(["AH JK", "3S 4S", "5C 6S", "7S 8S"], leader=0, rules=J11)
    assert cards_of(s.legal_actions()) == ["AH"]


def test_joker_eleventh_trick_applies_only_at_the_eleventh_trick() -> None:
    tenth = position(["3C 4C", "AH KH JK", "4S 6C 7C", "7S 8C 9C"], leader=0, trick="2S")
    tenth_j11 = position(
        ["3C 4C", "AH KH JK", "4S 6C 7C", "7S 8C 9C"], leader=0, trick="2S", rules=J11
    )
    assert tenth.tricks_played == 9
    assert cards_of(tenth_j11.legal_actions()) == cards_of(tenth.legal_actions())
    assert cards_of(tenth_j11.legal_actions()) == ["KH", "AH", "JK"]


# ---------------------------------------------------------------------------- quints


@pytest.mark.parametrize(("five", "value"), [("5S", 5), ("5C", 10), ("5D", 15), ("5H", 20)])
def test_each_five_is_a_quint_valued_by_its_suit(five: str, value: int) -> None:
    assert quint_points(m(five)) == value
    assert quint_points(m(f"{five} 9S KD")) == value


def test_joker_is_quint_royal_worth_25() -> None:
    assert quint_points(m("JK")) == 25
    assert quints(m("JK 7C")) == [("Quint Royal", 25)]


@pytest.mark.parametrize(
    ("pair", "value"),
    [
        ("AS 4S", 5),
        ("2S 3S", 5),
        ("AC 4C", 10),
        ("2C 3C", 10),
        ("AD 4D", 15),
        ("2D 3D", 15),
        ("AH 4H", 20),
        ("2H 3H", 20),
    ],
)
def test_ace_four_and_two_three_of_one_suit_in_one_trick_are_quints(pair: str, value: int) -> None:
    assert quint_points(m(pair)) == value
    assert quint_points(m(pair + " 9S")) == value


@pytest.mark.parametrize("cards", ["AH 4S", "2D 3C", "AC 4D", "2S 3H", "AS 2S", "4H 3H", "AH"])
def test_pairs_of_different_suits_or_other_ranks_are_not_quints(cards: str) -> None:
    assert quint_points(m(cards)) == 0


def test_quint_values_match_a_plain_count_of_fives_joker_and_pairs() -> None:
    rng = random.Random(5)
    suit_value = (5, 10, 15, 20)
    for _ in range(3000):
        cards = rng.sample(range(53), rng.randint(0, 8))
        held = set(cards)
        want = 25 if JOKER in held else 0
        for s in range(4):
            five, ace, four, two, three = (s * 13 + r for r in (3, 12, 2, 0, 1))
            want += suit_value[s] * (
                (five in held) + (ace in held and four in held) + (two in held and three in held)
            )
        mask = sum(1 << c for c in cards)
        assert quint_points(mask) == want
        assert sum(v for _, v in quints(mask)) == want


def test_docs_worked_example_quints() -> None:
    # docs/rules.md §12: trick 3 "5H AD 4D 7S" holds 5H (20) and AD+4D (15); the
    # cachette "2C 3C 9H TS KD" holds 2C+3C (10)
    assert quint_points(m("5H AD 4D 7S")) == 35
    assert quint_points(m("2C 3C 9H TS KD")) == 10
    assert trick_winner(0, cards("5H AD 4D 7S")) == 0
    # "Had side 0 begun the hand on 220, trick 3's quints would take it to 255: game over"
    s = position(["5H 2S", "AD 3S", "4D 4S", "7S 6S"], leader=0, score=(220, 150))
    play(s, "5H AD 4D 7S")
    assert s.game_winner == 0
    assert s.score == [255, 150]


def test_a_trick_can_hold_several_quints_and_each_counts() -> None:
    assert quint_points(m("5H AS 4S JK")) == 20 + 5 + 25
    assert quint_points(m("5D 2D 3D 4D")) == 15 + 15
    assert quint_points(m("AH 4H 2H 3H")) == 40
    assert quint_points(m("5S 5C 5D 5H")) == 50
    assert quints(m("5H AS 4S JK")) == [("5♥", 20), ("A♠+4♠", 5), ("Quint Royal", 25)]
    s = worked()
    play_tricks(s, WORKED_TRICKS, 2)
    assert events(s, "trick")[1].points == 40  # 5H and 2H+3H in trick 2
    assert "5♥ 20, 2♥+3♥ 20" in events(s, "trick")[1].text


def test_pairs_split_across_tricks_do_not_count() -> None:
    s = worked()
    play_tricks(s, WORKED_TRICKS, 2)
    # AH fell in trick 1, 4H in trick 2: no ace-four quint
    assert [e.points for e in events(s, "trick")] == [0, 40]
    assert s.score == [40, 0]


def test_quints_score_to_the_side_that_wins_the_trick_not_the_side_dealt_them() -> None:
    s = worked()
    play_tricks(s, WORKED_TRICKS, 7)
    # trick 7: 4S (East), 2S (South), 5S (West), 3S (North); West wins all 10
    assert s.score == [40, 10]


def test_quints_score_the_moment_the_trick_is_won() -> None:
    s = worked()
    play_tricks(s, WORKED_TRICKS, 1)
    play(s, "5H 4H 3H")
    assert s.score == [0, 0]  # the trick is not yet won
    s.act("2H")
    assert s.score == [40, 0]  # scored before the next card is played
    assert s.observation(1).score == (40, 0)


# -------------------------------------------------------------------------- cachette


def test_twelfth_trick_winner_takes_the_cachette_and_its_quints() -> None:
    s = worked()
    play_tricks(s, WORKED_TRICKS, 11)
    assert s.cachette_side is None
    assert s.observation(0).cachette is None  # face down until taken
    before = s.score[0]
    play(s, WORKED_TRICKS[11])
    assert s.cachette_side == 0
    (cachette,) = events(s, "cachette")
    assert cachette.cards == m(WORKED_CACHETTE)
    assert cachette.points == 25
    assert s.observation(1).cachette == m(WORKED_CACHETTE)
    assert s.score[0] == before + 20 + 25 + 55


def test_cachette_counts_as_one_more_trick() -> None:
    s = worked()
    play_tricks(s, WORKED_TRICKS)
    assert s.tricks_won == [11, 2]
    assert sum(s.tricks_won) == 13


# ---------------------------------------------------------------------- trick points


def test_hoyle_eleven_tricks_to_two_score_55_to_10() -> None:
    """Seed 000: "If A B win 11 tricks, and Y Z 2, A B score 55, and Y Z 10"."""
    s = worked()
    play_tricks(s, WORKED_TRICKS)
    assert s.is_terminal()
    assert [e.seat for e in events(s, "trick")] == list(WORKED_WINNERS)
    assert [e.points for e in events(s, "trick")] == list(WORKED_QUINTS)
    assert s.tricks_won == [11, 2]
    (tricks,) = events(s, "tricks")
    assert tricks.values == (55, 10)
    # quints: N-S 40 + 30 + 20 + cachette 25 = 115; E-W 10
    assert s.score == [115 + 55, 10 + 10]
    assert s.hand_points() == (170, 20)
    assert s.game_winner is None
    assert not s.tied


@pytest.mark.parametrize(
    ("doubling", "points"),
    [
        (PASSES, (55, 10)),
        (("pass", "double", "pass", "pass"), (110, 20)),
        (("double", "redouble", "pass", "pass"), (220, 40)),
    ],
)
def test_trick_points_are_5_a_trick_times_the_multiplier(
    doubling: tuple[str, ...], points: tuple[int, int]
) -> None:
    s = worked(doubling=doubling)
    play_tricks(s, WORKED_TRICKS)
    assert events(s, "tricks")[0].values == points
    assert s.score == [115 + points[0], 10 + points[1]]


def test_trick_points_are_added_after_the_cachette() -> None:
    s = worked()
    play_tricks(s, WORKED_TRICKS)
    kinds = [e.kind for e in s.events() if e.kind != "action"]
    assert kinds[-2:] == ["cachette", "tricks"]


def test_returns_are_the_hand_points_difference() -> None:
    s = worked()
    play_tricks(s, WORKED_TRICKS)
    assert s.returns() == [150.0, -150.0, 150.0, -150.0]


# ----------------------------------------------------------------------- end of game


def test_game_ends_when_quints_reach_target_and_hand_is_abandoned() -> None:
    s = worked(score=(230, 0))
    play_tricks(s, WORKED_TRICKS, 2)
    assert s.is_terminal()
    assert s.current_player() == TERMINAL
    assert s.game_winner == 0
    assert s.score == [270, 0]  # no trick points
    assert events(s, "tricks") == []
    assert s.cachette_side is None
    assert [h.bit_count() for h in s.hands] == [10, 10, 10, 10]  # never played
    assert s.legal_actions() == ()
    with pytest.raises(IllegalActionError, match="the hand is over: N-S won the game"):
        s.act("TD")
    assert "N-S win the game" in s.render()
    assert s.observation(1).hands == (None, s.hands[1], None, None)  # the rest stay hidden


def test_reaching_the_target_exactly_with_quints_wins() -> None:
    s = worked(score=(210, 0))
    play_tricks(s, WORKED_TRICKS, 2)
    assert s.game_winner == 0
    assert s.score == [250, 0]


def test_quints_to_target_end_the_game_for_the_other_side_too() -> None:
    s = worked(score=(0, 240))
    play_tricks(s, WORKED_TRICKS, 7)
    assert s.game_winner == 1
    assert s.score == [40, 250]
    assert s.tricks_played == 7


def test_game_won_by_the_cachette_tricks_not_counted() -> None:
    s = worked(score=(140, 0))
    play_tricks(s, WORKED_TRICKS)
    assert s.cachette_side == 0
    assert s.game_winner == 0
    assert s.score == [140 + 90 + 25, 10]  # 255: no 55 for tricks
    assert events(s, "tricks") == []


def test_cachette_not_taken_when_game_ends_on_twelfth_trick() -> None:
    s = worked(score=(160, 0))
    play_tricks(s, WORKED_TRICKS, 11)
    assert s.score == [230, 10]
    play(s, WORKED_TRICKS[11])
    assert s.game_winner == 0
    assert s.score == [250, 10]  # the cachette's 25 is not scored
    assert s.cachette_side is None
    assert events(s, "cachette") == []
    assert events(s, "tricks") == []
    assert s.observation(1).cachette is None


def test_neither_side_at_target_after_trick_points_the_game_goes_on() -> None:
    s = worked(score=(0, 0))
    play_tricks(s, WORKED_TRICKS)
    assert s.is_terminal()
    assert s.game_winner is None
    assert not s.tied


def test_one_side_past_target_after_trick_points_wins() -> None:
    s = worked(score=(100, 0))
    play_tricks(s, WORKED_TRICKS)
    assert s.score == [270, 20]
    assert s.game_winner == 0


def test_reaching_target_exactly_with_trick_points_wins() -> None:
    s = worked(score=(80, 0))
    play_tricks(s, WORKED_TRICKS)
    assert s.score == [250, 20]
    assert s.game_winner == 0


def test_both_past_target_higher_total_wins() -> None:
    s = worked(score=(80, 239))
    play_tricks(s, WORKED_TRICKS)
    assert s.score == [250, 259]  # E-W had 249 after quints: short of 250
    assert s.game_winner == 1
    s = worked(score=(100, 235))
    play_tricks(s, WORKED_TRICKS)
    assert s.score == [270, 255]
    assert s.game_winner == 0


def test_exact_tie_at_target_after_trick_points_no_winner() -> None:
    s = worked(score=(80, 230))
    play_tricks(s, WORKED_TRICKS)
    assert s.score == [250, 250]
    assert s.is_terminal()
    assert s.game_winner is None
    assert s.tied
    assert events(s, "game")[0].seat is None
    assert "tie" in s.render()


def test_tie_deal_ends_level() -> None:
    hands, cachette = deal(TIE_HANDS, TIE_CACHETTE)
    s = QuintoState.new(QuintoRules(target=95), 3, hands, cachette)
    for a in PASSES:
        s.act(a)
    play_tricks(s, TIE_TRICKS)
    assert s.tricks_won == [8, 5]
    assert events(s, "tricks")[0].values == (40, 25)
    assert s.score == [95, 95]
    assert s.tied  # exactly at the target
    assert s.game_winner is None


def test_exact_tie_past_target_plays_another_hand() -> None:
    match = QuintoMatch(QuintoRules(target=90), first_dealer=3)
    s = match.start_hand(*deal(TIE_HANDS, TIE_CACHETTE))
    for a in PASSES:
        s.act(a)
    play_tricks(s, TIE_TRICKS)
    assert s.score == [95, 95]  # both past 90
    assert s.tied
    assert s.game_winner is None
    assert not match.is_over()
    assert match.games_won() == (0, 0)
    nxt = match.start_hand(*worked_deal())
    assert nxt.start_score == (95, 95)  # scores carried
    assert nxt.dealer == 0
    assert match.game_of_hand == [0, 0]  # the same game


def test_first_quint_in_tie_hand_wins() -> None:
    match = QuintoMatch(QuintoRules(target=90), first_dealer=3)
    s = match.start_hand(*deal(TIE_HANDS, TIE_CACHETTE))
    for a in PASSES:
        s.act(a)
    play_tricks(s, TIE_TRICKS)
    s = match.start_hand(*worked_deal())  # dealer North: East leads
    for a in PASSES:
        s.act(a)
    play(s, "4S 2S 5S 3S")  # West wins the first trick: 5S 5 + 2S+3S 5
    assert s.is_terminal()
    assert s.game_winner == 1
    assert s.score == [95, 105]
    assert s.tricks_played == 1
    assert match.games()[0].winner == 1
    assert match.games()[0].hands == 2
    assert match.games_won() == (0, 1)


def test_first_quint_in_tie_hand_wins_whatever_its_size() -> None:
    hands, cachette = worked_deal()
    s = QuintoState.new(QuintoRules(), 3, hands, cachette, score=(250, 250))
    for a in PASSES:
        s.act(a)
    play(s, WORKED_TRICKS[0])  # no quint: the hand goes on
    assert not s.is_terminal()
    play(s, WORKED_TRICKS[1])
    assert s.game_winner == 0
    assert s.score == [290, 250]


def test_option_target() -> None:
    assert QuintoRules().target == 250
    s = worked(rules=QuintoRules(target=40))
    play_tricks(s, WORKED_TRICKS, 2)
    assert s.game_winner == 0
    s = worked(rules=QuintoRules(target=41))
    play_tricks(s, WORKED_TRICKS, 2)
    assert not s.is_terminal()
    s = worked(rules=QuintoRules(target=170))
    play_tricks(s, WORKED_TRICKS)
    assert s.game_winner == 0  # 170 after trick points
    assert s.observation(0).target == 170


# ---------------------------------------------------------------------------- rubber


def test_first_side_to_win_two_games_wins_the_rubber() -> None:
    match = QuintoMatch(QuintoRules(target=40), first_dealer=3)
    winners = []
    for _ in range(3):
        s = quick_game_hand(match)
        winners.append(s.game_winner)
    assert winners == [0, 1, 0]
    assert match.games_won() == (2, 1)
    assert match.winner() == 0
    assert match.is_over()
    assert match.kind == "rubber"
    with pytest.raises(IllegalActionError, match="the rubber is over"):
        match.start_hand(*worked_deal())
    with pytest.raises(IllegalActionError, match="the rubber is over"):
        match.act("pass")


def test_two_straight_games_win_the_rubber() -> None:
    match = QuintoMatch(QuintoRules(target=40), first_dealer=3)
    quick_game_hand(match)  # dealer West: North leads, N-S win 40-0
    assert match.winner() is None
    assert match.games_won() == (1, 0)
    s = match.start_hand(*worked_deal(rotate=2))  # dealer North: East leads
    for a in PASSES:
        s.act(a)
    play(s, "2H 5H 4H 3H")  # South wins 5H and 2H+3H: 40
    assert s.game_winner == 0
    assert match.games_won() == (2, 0)
    assert match.winner() == 0
    assert match.rubber_score() == (40 + 40 + 100, 0)


def test_rubber_bonus() -> None:
    match = QuintoMatch(QuintoRules(target=40), first_dealer=3)
    assert match.rubber_score() is None
    for _ in range(3):
        quick_game_hand(match)
    assert [g.score for g in match.games()] == [(40, 0), (0, 40), (40, 0)]
    # rubber total: the sum of the game scores, plus 100 for the winners
    assert match.rubber_score() == (40 + 0 + 40 + 100, 0 + 40 + 0)


def test_option_rubber_bonus() -> None:
    assert QuintoRules().rubber_bonus == 100
    match = QuintoMatch(QuintoRules(target=40, rubber_bonus=30), first_dealer=3)
    for _ in range(3):
        quick_game_hand(match)
    assert match.rubber_score() == (110, 40)
    match = QuintoMatch(QuintoRules(target=40, rubber_bonus=0), first_dealer=3)
    for _ in range(3):
        quick_game_hand(match)
    assert match.rubber_score() == (80, 40)


def test_scores_start_from_zero_in_each_game() -> None:
    match = QuintoMatch(QuintoRules(target=40), first_dealer=3)
    first = quick_game_hand(match)
    assert first.score == [40, 0]
    second = quick_game_hand(match)
    assert second.start_score == (0, 0)
    assert match.game_of_hand == [0, 1]


def test_scores_carry_from_hand_to_hand_within_a_game() -> None:
    match = QuintoMatch(QuintoRules(), first_dealer=3)
    s = match.start_hand(*worked_deal())
    for a in PASSES:
        s.act(a)
    play_tricks(s, WORKED_TRICKS)
    nxt = match.start_hand(*worked_deal())
    assert nxt.start_score == (170, 20)
    assert match.game_of_hand == [0, 0]
    with pytest.raises(IllegalActionError, match="hand 1 is not finished"):
        match.start_hand(*worked_deal())


# -------------------------------------------------------------------- deal rotation


def test_deal_passes_clockwise_after_every_hand() -> None:
    match = QuintoMatch(QuintoRules(target=10_000), first_dealer=2)
    dealers = []
    for _ in range(6):
        s = match.start_hand(*worked_deal())
        dealers.append(s.dealer)
        play_out(s)
    assert dealers == [2, 3, 0, 1, 2, 3]


def test_deal_rotation_continues_across_games() -> None:
    match = QuintoMatch(QuintoRules(target=40), first_dealer=2)
    dealers = []
    for _ in range(3):
        s = quick_game_hand(match)
        dealers.append(s.dealer)
        assert s.game_winner is not None  # each hand ends a game
    assert dealers == [2, 3, 0]
    assert match.game_of_hand == [0, 1, 2]


# ------------------------------------------------------------ three-player (dummy)

DUMMY = QuintoRules(variant="dummy")


def dummy_state(dealer: int, lone: int = 0, rules: QuintoRules = DUMMY) -> QuintoState:
    hands, cachette = worked_deal()
    return QuintoState.new(rules, dealer, hands, cachette, lone_seat=lone)


@pytest.mark.parametrize("lone", [0, 1, 2, 3])
def test_dummy_sits_opposite_the_lone_player(lone: int) -> None:
    s = dummy_state(lone, lone)
    assert s.lone_seat == lone
    assert s.dummy_seat == (lone + 2) % 4


@pytest.mark.parametrize("lone", [0, 1, 2, 3])
def test_lone_player_controls_the_dummy_seat(lone: int) -> None:
    s = dummy_state(lone, lone)
    dummy = (lone + 2) % 4
    assert s.controller(dummy) == lone
    assert s.controller(lone) == lone
    assert s.controller((lone + 1) % 4) == (lone + 1) % 4
    assert s.controller((lone + 3) % 4) == (lone + 3) % 4


@pytest.mark.parametrize(("lone", "score"), [(0, (0, 25)), (1, (25, 0)), (2, (0, 25))])
def test_dummy_handicap_gives_the_opponents_25(lone: int, score: tuple[int, int]) -> None:
    match = QuintoMatch(DUMMY, lone_seat=lone)
    s = match.start_hand(*worked_deal())
    assert s.start_score == score
    assert tuple(s.score) == score


def test_option_dummy_handicap() -> None:
    assert QuintoRules().dummy_handicap == 25
    match = QuintoMatch(QuintoRules(variant="dummy", dummy_handicap=40), lone_seat=3)
    assert match.start_hand(*worked_deal()).start_score == (40, 0)
    match = QuintoMatch(QuintoRules(variant="dummy", dummy_handicap=0), lone_seat=0)
    assert match.start_hand(*worked_deal()).start_score == (0, 0)


def test_lone_player_deals_first() -> None:
    match = QuintoMatch(DUMMY, lone_seat=1)
    assert match.start_hand(*worked_deal()).dealer == 1
    assert QuintoMatch(DUMMY, first_dealer=1, lone_seat=1).first_dealer == 1
    with pytest.raises(ValueError, match="the lone player \\(seat 1\\) deals the first hand"):
        QuintoMatch(DUMMY, first_dealer=2, lone_seat=1)


@pytest.mark.parametrize(("lone", "dealers"), [(0, [0, 1, 3, 0, 1]), (1, [1, 2, 0, 1, 2])])
def test_deal_rotation_skips_the_dummy_seat(lone: int, dealers: list[int]) -> None:
    match = QuintoMatch(QuintoRules(variant="dummy", target=10_000), lone_seat=lone)
    seen = []
    for _ in dealers:
        s = match.start_hand(*worked_deal())
        seen.append(s.dealer)
        play_out(s)
    assert seen == dealers


def test_dummy_seat_never_deals() -> None:
    with pytest.raises(ValueError, match="the dummy seat 2 never deals"):
        dummy_state(dealer=2, lone=0)


@pytest.mark.parametrize(
    ("dealer", "order", "leader"),
    [(0, [1, 3, 0], 1), (1, [3, 0, 1], 2), (3, [0, 1, 3], 0)],
)
def test_dummy_doubling_round_has_three_turns_skipping_the_dummy_seat(
    dealer: int, order: list[int], leader: int
) -> None:
    s = dummy_state(dealer)
    speakers = []
    while s.phase == Phase.DOUBLING:
        speakers.append(s.current_player())
        s.act("pass")
    assert speakers == order
    assert s.current_player() == leader


def test_dummy_takes_no_part_in_the_doubling_round() -> None:
    s = dummy_state(dealer=0)
    with pytest.raises(IllegalActionError, match="seat 2 \\(South\\) is the dummy and takes no"):
        s.act("pass", seat=2)


def test_lone_player_and_dummy_are_one_side_in_the_doubling_round() -> None:
    # dealer L+3 (West): North (lone) speaks first
    s = dummy_state(dealer=3)
    s.act("double")
    assert s.legal_actions() == (PASS, REDOUBLE)  # East may redouble
    s.act("pass")
    assert s.legal_actions() == (PASS, REDOUBLE)  # so may West
    s = dummy_state(dealer=0)
    s.act("double")  # East doubles
    s.act("pass")  # West
    assert s.current_player() == 0
    assert s.legal_actions() == (PASS, REDOUBLE)  # the lone player may redouble
    s.act("redouble")
    assert s.multiplier == 4


def test_player_left_of_dealer_leads_even_when_that_seat_is_the_dummy() -> None:
    s = dummy_state(dealer=1)  # lone North, dummy South leads
    for _ in range(3):
        s.act("pass")
    assert s.current_player() == 2
    assert s.controller(s.current_player()) == 0
    obs = s.observation(0)
    assert obs.legal_actions == tuple((2, a) for a in s.legal_actions())
    with pytest.raises(IllegalActionError, match="it is seat 2 \\(South\\)'s turn, played by"):
        s.act("AS", seat=0)
    s.act("AS", seat=2)
    assert s.history()[-1] == (2, parse_card("AS"))  # the dummy's card carries its seat
    assert s.current_player() == 3


def test_lone_player_plays_both_hands_through_a_whole_hand() -> None:
    s = dummy_state(dealer=0)
    play_out(s)
    assert s.is_terminal()
    assert sum(1 for seat, _ in s.history() if seat == 2) == 12


def test_lone_player_doubles_from_his_own_hand_only_by_default() -> None:
    assert QuintoRules().dummy_double_view == "own"
    for dealer in (0, 1, 3):
        s = dummy_state(dealer)
        obs = s.observation(0)
        assert obs.hands[0] == s.hands[0]
        assert obs.hands[2] is None


@pytest.mark.parametrize(("dealer", "sees"), [(0, 0), (1, 2), (3, 0)])
def test_leading_view_shows_the_hand_that_plays_first_when_an_opponent_deals(
    dealer: int, sees: int
) -> None:
    rules = QuintoRules(variant="dummy", dummy_double_view="leading")
    s = dummy_state(dealer, rules=rules)
    hands = s.observation(0).hands
    assert [seat for seat in range(4) if hands[seat] is not None] == [sees]
    assert hands[sees] == s.hands[sees]


@pytest.mark.parametrize("view", ["own", "leading"])
def test_lone_player_sees_the_dummy_hand_from_the_first_lead(view: str) -> None:
    rules = QuintoRules(variant="dummy", dummy_double_view=view)
    s = dummy_state(dealer=0, rules=rules)
    for _ in range(3):
        s.act("pass")
    obs = s.observation(0)
    assert obs.hands[0] == s.hands[0]
    assert obs.hands[2] == s.hands[2]
    assert s.observation(2) == obs  # the dummy seat's view is the lone player's


@pytest.mark.parametrize("view", ["own", "leading"])
def test_opponents_never_see_the_dummy_hand(view: str) -> None:
    rules = QuintoRules(variant="dummy", dummy_double_view=view)
    s = dummy_state(dealer=1, rules=rules)
    while not s.is_terminal():
        for opp in (1, 3):
            obs = s.observation(opp)
            assert obs.hands[2] is None
            assert obs.hands[0] is None
            assert obs.hands[opp] == s.hands[opp]
            assert f"[{s.hands[2].bit_count()} cards]" in s.render(viewer=opp)
        s.act(s.legal_actions()[0])
    assert s.observation(1).hands[2] is None


def test_dummy_game_is_one_game_without_rubbers() -> None:
    match = QuintoMatch(QuintoRules(variant="dummy", target=40), lone_seat=0)
    assert match.kind == "game"
    s = quick_game_hand(match)  # dealer North, East leads with the strong cards
    assert s.score == [0, 65]  # the handicap 25, and 40 in quints
    assert match.is_over()
    assert match.winner() == 1
    assert match.rubber_score() is None
    with pytest.raises(IllegalActionError, match="the game is over"):
        match.start_hand(*worked_deal())


@pytest.mark.parametrize("lone", [0, 1, 2, 3])
def test_next_lone_player_sits_left_of_the_previous_one(lone: int) -> None:
    assert QuintoMatch(DUMMY, lone_seat=lone).next_lone_seat() == (lone + 1) % 4
    with pytest.raises(ValueError, match="only the dummy variant"):
        QuintoMatch(QuintoRules()).next_lone_seat()


def test_dummy_variant_needs_a_lone_seat() -> None:
    with pytest.raises(ValueError, match="needs a lone seat"):
        QuintoMatch(DUMMY)
    with pytest.raises(ValueError, match="only the dummy variant has a lone seat"):
        QuintoMatch(QuintoRules(), lone_seat=0)


# -------------------------------------------------------------- drawing for partners


def test_draw_for_partners_two_highest_against_two_lowest_highest_deals() -> None:
    # cards rank as in play: the card numbers are the play order (2S lowest .. AH highest)
    for seed in range(200):
        d = draw_for_partners(random.Random(seed))
        assert len(d.cards) == 4
        assert sorted(d.seats) == [0, 1, 2, 3]
        by_card = sorted(range(4), key=lambda p: d.cards[p], reverse=True)
        high = {d.seats[by_card[0]], d.seats[by_card[1]]}
        low = {d.seats[by_card[2]], d.seats[by_card[3]]}
        assert {frozenset(high), frozenset(low)} == {frozenset({0, 2}), frozenset({1, 3})}
        assert d.first_dealer == d.seats[by_card[0]]  # the highest card deals
        assert d.lone_seat is None


def test_draw_joker_is_redrawn() -> None:
    redraws = 0
    for seed in range(400):
        d = draw_for_partners(random.Random(seed))
        assert JOKER not in d.cards
        assert all(c == JOKER for c in d.redrawn)
        redraws += len(d.redrawn)
    assert redraws > 0  # some draw did hit the joker


def test_three_player_draw_lowest_plays_alone_and_deals_first() -> None:
    for seed in range(100):
        d = draw_for_partners(random.Random(seed), players=3)
        assert len(d.cards) == 3
        lowest = min(range(3), key=lambda p: d.cards[p])
        assert d.seats[lowest] == d.lone_seat == d.first_dealer
        others = {d.seats[p] for p in range(3) if p != lowest}
        assert others == {(d.lone_seat + 1) % 4, (d.lone_seat + 3) % 4}
        assert JOKER not in d.cards


def test_draw_needs_three_or_four_players() -> None:
    with pytest.raises(ValueError, match="3 or 4 players"):
        draw_for_partners(random.Random(0), players=5)


# ------------------------------------------------------------------------ options


def test_rules_defaults() -> None:
    r = QuintoRules()
    assert (r.variant, r.target, r.rubber_bonus, r.dummy_handicap) == (
        "partnership",
        250,
        100,
        25,
    )
    assert r.joker_eleventh_trick is False
    assert r.dummy_double_view == "own"
    assert r.options() == {}


def test_rules_from_record_options() -> None:
    r = QuintoRules.from_options("dummy", {"target": 300, "dummy_double_view": "leading"})
    assert (r.variant, r.target, r.dummy_double_view) == ("dummy", 300, "leading")
    assert r.options() == {"target": 300, "dummy_double_view": "leading"}
    assert QuintoRules.from_options("partnership", None) == QuintoRules()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"variant": "solo"}, "unknown quinto variant"),
        ({"target": "250"}, "option target must be an integer"),
        ({"target": True}, "option target must be an integer"),
        ({"target": 0}, "option target must be at least 1"),
        ({"rubber_bonus": -1}, ">= 0"),
        ({"dummy_handicap": -5}, ">= 0"),
        ({"joker_eleventh_trick": 1}, "must be true or false"),
        ({"dummy_double_view": "both"}, "must be 'own' or 'leading'"),
    ],
)
def test_bad_rules_options_are_rejected(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidOptionError, match=message):
        QuintoRules(**kwargs)  # type: ignore[arg-type]


def test_unknown_record_option_is_rejected() -> None:
    with pytest.raises(InvalidOptionError, match="unknown quinto option 'trumps'"):
        QuintoRules.from_options("partnership", {"trumps": "H"})


# --------------------------------------------------- illegal and invalid actions


@pytest.mark.parametrize(
    ("setup", "action", "seat", "message"),
    [
        ((), "AH", None, "seat 0 \\(North\\) cannot play a card during the doubling round"),
        ((), "redouble", None, "seat 0 \\(North\\) cannot redouble: nobody has doubled"),
        (("double",), "double", None, "seat 1 \\(East\\) cannot double: N-S already doubled"),
        (("double", "pass"), "redouble", None, "cannot redouble his own side's double"),
        ((), "pass", 2, "it is seat 0 \\(North\\)'s turn, not seat 2 \\(South\\)'s"),
        (PASSES, "pass", None, "seat 0 \\(North\\) cannot pass: the doubling round is over"),
        (PASSES, "double", None, "cannot double: the doubling round is over"),
        (PASSES, "KH", None, "seat 0 \\(North\\) does not hold KH; holds 3S TS KS"),
        (PASSES, "JK", None, "does not hold JK"),
        ((*PASSES, "AH"), "QD", None, "seat 1 \\(East\\) must follow hearts; holds 4H 7H KH"),
        ((*PASSES, "AH"), "4H", 2, "it is seat 1 \\(East\\)'s turn, not seat 2 \\(South\\)'s"),
        ((*PASSES, "AH"), "AH", None, "seat 1 \\(East\\) does not hold AH"),
    ],
)
def test_illegal_actions_are_rejected_with_a_reason(
    setup: tuple[str, ...], action: str, seat: int | None, message: str
) -> None:
    s = worked(doubling=())
    for a in setup:
        s.act(a)
    before = snapshot(s)
    with pytest.raises(IllegalActionError, match=message):
        s.act(action, seat)
    assert snapshot(s) == before


def test_may_not_lead_the_joker_message_and_state_unchanged() -> None:
    s = position(["JK 2S", "3S 4S", "5C 6S", "7S 8S"], leader=0)
    before = snapshot(s)
    with pytest.raises(IllegalActionError, match="seat 0 \\(North\\) may not lead the joker"):
        s.act("JK")
    assert snapshot(s) == before


def test_acting_after_the_hand_is_over_is_illegal() -> None:
    s = worked()
    play_tricks(s, WORKED_TRICKS)
    before = snapshot(s)
    with pytest.raises(IllegalActionError, match=r"^the hand is over$"):
        s.act("pass")
    assert snapshot(s) == before


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ("bid 40", "bid is not a Quinto action"),
        ("trump S", "trump is not a Quinto action"),
        ("nil open", "nil is not a Quinto action"),
        ("meld court", "meld is not a Quinto action"),
        ("decline", "decline is not a Quinto action"),
        ("signal up", "signal is not a Quinto action"),
        ("hello", "unknown action 'hello'"),
        ("", "empty action"),
        ("play ZZ", "not a card code"),
        (200, "not an action number: 200"),
        (-1, "not an action number"),
    ],
)
def test_invalid_actions_raise_invalid_action_error(action: str | int, message: str) -> None:
    s = worked(doubling=())
    before = snapshot(s)
    with pytest.raises(InvalidActionError, match=message):
        s.act(action)
    assert snapshot(s) == before


@pytest.mark.parametrize("seat", [4, -1, True])
def test_seat_out_of_range_is_illegal(seat: int) -> None:
    s = worked(doubling=())
    before = snapshot(s)
    with pytest.raises(IllegalActionError, match=r"out of range 0\.\.3"):
        s.act("pass", seat)
    assert snapshot(s) == before


def test_actions_may_be_given_as_numbers_or_text() -> None:
    s = worked(doubling=())
    s.act(PASS)
    s.act("DOUBLE")
    s.act("redouble", seat=2)
    s.act("pass", seat=3)
    s.act(parse_card("AH"))
    s.act("kh")
    assert s.history() == [
        (0, PASS),
        (1, DOUBLE),
        (2, REDOUBLE),
        (3, PASS),
        (0, parse_card("AH")),
        (1, parse_card("KH")),
    ]


# ------------------------------------------------------------- render, observation


def test_render_shows_every_hand_and_the_score() -> None:
    s = worked(score=(120, 150), doubling=("double", "pass", "pass", "pass"))
    text = s.render()
    assert "dealer West" in text
    assert "doubled (tricks x2)" in text
    assert "N-S 120 (+0 this hand)" in text
    assert "E-W 150 (+0)" in text
    assert "target 250" in text
    for seat in range(4):
        assert hand_display(s.hands[seat]) in text
    play_tricks(s, WORKED_TRICKS, 2)
    text = s.render()
    assert "N-S 160 (+40 this hand)" in text
    assert "tricks 2-0" in text
    assert "Trick 3" in text
    assert str(s) == s.render()


def test_render_for_a_viewer_hides_the_other_hands() -> None:
    s = worked()
    text = s.render(viewer=1)
    assert hand_display(s.hands[1]) in text
    for seat in (0, 2, 3):
        assert hand_display(s.hands[seat]) not in text
    assert text.count("[12 cards]") == 3


def test_observation_hides_other_hands_and_shows_hand_sizes() -> None:
    s = worked(doubling=())
    obs = s.observation(1)
    assert obs.viewer == 1
    assert obs.hands == (None, s.hands[1], None, None)
    assert obs.hand_sizes == (12, 12, 12, 12)
    assert obs.legal_actions == ()  # North is to speak
    assert s.observation(0).legal_actions == ((0, PASS), (0, DOUBLE))
    for a in PASSES:
        s.act(a)
    s.act("AH")
    obs = s.observation(2)
    assert obs.hands == (None, None, s.hands[2], None)
    assert obs.hand_sizes == (11, 12, 12, 12)
    assert obs.trick == ((0, parse_card("AH")),)
    assert obs.history == tuple(s.history())
    assert obs.phase == "play"
    assert hand_display(s.hands[0]) not in str(obs)


def test_observation_shows_the_public_score_and_tricks() -> None:
    s = worked(score=(5, 7))
    play_tricks(s, WORKED_TRICKS, 7)
    obs = s.observation(3)
    assert obs.score == (45, 17)
    assert obs.start_score == (5, 7)
    assert obs.tricks_played == 7
    assert obs.tricks_won == (5, 2)
    assert obs.multiplier == 1
    assert obs.dealer == 3
    assert obs.game_winner is None
