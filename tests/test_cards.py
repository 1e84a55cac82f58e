"""Cards: the encoding, parsing, canonical and Unicode forms, and the mask helpers.

The encoding is ``suit * 13 + rank`` (spades, clubs, diamonds, hearts; two .. ace), so the
integer order of the 52 ordinary cards is Quinto's single trick-taking sequence
(rulings.md "Pack"; docs/rules.md §1); the joker is 52. Codes are rank then suit,
``T`` or ``10`` for the ten, any case, ``JK`` for the joker (record-format; docs/rules.md
"Cards").
"""

from __future__ import annotations

import pytest

from quintet.cards import (
    ACE,
    CLUBS,
    DIAMONDS,
    FIVE,
    HEARTS,
    JOKER,
    JOKER_BIT,
    QUINTO_PACK,
    QUINTUS_PACK,
    RANK_OF,
    SPADES,
    SUIT_OF,
    TEN,
    TWO,
    card,
    card_display,
    card_str,
    cards_str,
    count,
    hand_display,
    highest,
    iter_cards,
    lowest,
    mask_cards,
    mask_of,
    parse_card,
    parse_cards,
    parse_mask,
    suit_cards,
    suit_from_str,
)
from quintet.errors import InvalidCardError, QuintetError

RANKS = "23456789TJQKA"
SUITS = "SCDH"


# ------------------------------------------------------------------ encoding and order


def test_card_number_is_suit_times_13_plus_rank() -> None:
    for s in range(4):
        for r in range(13):
            assert card(r, s) == s * 13 + r
            assert SUIT_OF[card(r, s)] == s
            assert RANK_OF[card(r, s)] == r


def test_spade_two_is_lowest_card_and_heart_ace_highest() -> None:
    assert parse_card("2S") == 0
    assert parse_card("AS") == 12
    assert parse_card("2C") == 13
    assert parse_card("2D") == 26
    assert parse_card("2H") == 39
    assert parse_card("AH") == 51


def test_all_52_cards_form_one_sequence_suit_by_suit_spades_clubs_diamonds_hearts() -> None:
    sequence = [rank + suit for suit in SUITS for rank in RANKS]
    assert [parse_card(code) for code in sequence] == list(range(52))
    assert (SPADES, CLUBS, DIAMONDS, HEARTS) == (0, 1, 2, 3)


def test_every_card_of_a_higher_suit_outranks_every_card_of_a_lower_suit() -> None:
    assert parse_card("2C") > parse_card("AS")
    assert parse_card("2D") > parse_card("AC")
    assert parse_card("2H") > parse_card("AD")


def test_ace_is_high_within_a_suit() -> None:
    for suit in SUITS:
        codes = [rank + suit for rank in RANKS]
        assert [parse_card(c) for c in codes] == sorted(parse_card(c) for c in codes)
    assert card(ACE, HEARTS) == parse_card("AH")
    assert card(TWO, SPADES) == parse_card("2S")
    assert card(FIVE, DIAMONDS) == parse_card("5D")
    assert card(TEN, CLUBS) == parse_card("TC")


def test_joker_is_card_52_outside_the_suits() -> None:
    assert JOKER == 52
    assert parse_card("JK") == JOKER
    assert JOKER_BIT == 1 << 52
    assert SUIT_OF[JOKER] == -1
    assert RANK_OF[JOKER] == -1


def test_quinto_pack_is_52_cards_and_the_joker() -> None:
    assert count(QUINTO_PACK) == 53
    assert mask_cards(QUINTO_PACK) == tuple(range(53))


def test_quintus_pack_is_five_to_ace_in_four_suits() -> None:
    assert count(QUINTUS_PACK) == 40
    assert not QUINTUS_PACK & JOKER_BIT
    for code in ("2S", "3C", "4D", "4H"):
        assert not QUINTUS_PACK >> parse_card(code) & 1
    for code in ("5S", "9C", "TD", "AH"):
        assert QUINTUS_PACK >> parse_card(code) & 1


# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize("text", ["TH", "10H", "th", "10h", "Th", "tH"])
def test_parse_accepts_t_and_10_for_the_ten(text: str) -> None:
    assert parse_card(text) == card(TEN, HEARTS)


@pytest.mark.parametrize("text", ["AS", "as", "As", "aS"])
def test_parse_accepts_any_case(text: str) -> None:
    assert parse_card(text) == parse_card("AS") == 12


@pytest.mark.parametrize("text", ["JK", "jk", "Jk", "jK"])
def test_parse_joker_in_any_case(text: str) -> None:
    assert parse_card(text) == JOKER


def test_parse_every_canonical_code() -> None:
    for c in range(53):
        assert parse_card(card_str(c)) == c
        assert parse_card(card_str(c).lower()) == c


@pytest.mark.parametrize(
    "text",
    [
        "",
        "A",
        "S",
        "1S",
        "0S",
        "11H",
        "1H0",
        "XS",
        "AX",
        "ASS",
        " AS",
        "AS ",
        "A S",
        "JKR",
        "JOKER",
        "10",
        "T",
        "♥A",
        "A♥",
        "10♥",
    ],
)
def test_invalid_card_codes_raise_invalid_card_error(text: str) -> None:
    with pytest.raises(InvalidCardError, match="not a card code"):
        parse_card(text)


@pytest.mark.parametrize("value", [None, 5, 12.0, b"AS", ["AS"]])
def test_parse_card_rejects_non_strings(value: object) -> None:
    with pytest.raises(InvalidCardError, match="must be a string"):
        parse_card(value)  # type: ignore[arg-type]


def test_invalid_card_error_is_a_value_error() -> None:
    assert issubclass(InvalidCardError, QuintetError)
    assert issubclass(InvalidCardError, ValueError)


def test_parse_cards_from_a_string_or_a_list_keeps_the_order() -> None:
    assert parse_cards("AH 10c 2s jk") == [51, 21, 0, 52]
    assert parse_cards(["AH", "10c", "2s", "jk"]) == [51, 21, 0, 52]
    assert parse_cards("  AH\t2S\n") == [51, 0]
    assert parse_cards("") == []


def test_parse_cards_reports_the_bad_code() -> None:
    with pytest.raises(InvalidCardError, match="'ZZ'"):
        parse_cards("AS ZZ KH")


def test_parse_mask_builds_the_set() -> None:
    assert parse_mask("2S AH JK") == 1 | 1 << 51 | 1 << 52
    assert parse_mask([]) == 0
    assert parse_mask("") == 0


@pytest.mark.parametrize("text", ["AS as", "TH 10H", "JK jk"])
def test_parse_mask_rejects_a_card_given_twice(text: str) -> None:
    with pytest.raises(InvalidCardError, match="given twice"):
        parse_mask(text)


def test_suit_from_str_accepts_any_case() -> None:
    assert [suit_from_str(ch) for ch in "SCDH"] == [0, 1, 2, 3]
    assert [suit_from_str(ch) for ch in "scdh"] == [0, 1, 2, 3]


@pytest.mark.parametrize("text", ["", "X", "SS", "♠", "NT", "1"])
def test_suit_from_str_rejects_non_suits(text: str) -> None:
    with pytest.raises(InvalidCardError, match="not a suit"):
        suit_from_str(text)


# ------------------------------------------------------------------------ formatting


@pytest.mark.parametrize(
    ("text", "canonical"),
    [("10h", "TH"), ("th", "TH"), ("as", "AS"), ("2c", "2C"), ("qd", "QD"), ("jk", "JK")],
)
def test_canonical_code_is_uppercase_rank_then_suit_with_t_for_ten(
    text: str, canonical: str
) -> None:
    assert card_str(parse_card(text)) == canonical


def test_canonical_codes_of_all_cards() -> None:
    codes = [card_str(c) for c in range(52)]
    assert codes == [rank + suit for suit in SUITS for rank in RANKS]
    assert card_str(JOKER) == "JK"


@pytest.mark.parametrize("number", [-1, 53, 54, 100])
def test_card_str_rejects_numbers_that_are_not_cards(number: int) -> None:
    with pytest.raises(InvalidCardError, match="not a card number"):
        card_str(number)


@pytest.mark.parametrize(
    ("text", "shown"),
    [("TH", "10♥"), ("QS", "Q♠"), ("AD", "A♦"), ("2C", "2♣"), ("9H", "9♥"), ("JK", "JK")],
)
def test_unicode_display_uses_suit_symbols_and_10(text: str, shown: str) -> None:
    assert card_display(parse_card(text)) == shown


def test_hand_display_groups_suits_hearts_first_high_cards_first() -> None:
    hand = parse_mask("2S AH TH 3D KC JK 9S")
    assert hand_display(hand) == "♥ A 10  ♦ 3  ♣ K  ♠ 9 2  JK"


def test_hand_display_follows_a_given_suit_order() -> None:
    hand = parse_mask("2S AH TH")
    assert hand_display(hand, (0, 1, 2, 3)) == "♠ 2  ♥ A 10"


def test_hand_display_of_an_empty_hand_is_a_dash() -> None:
    assert hand_display(0) == "-"
    assert hand_display(JOKER_BIT) == "JK"


def test_cards_str_lists_a_mask_in_ascending_order_with_the_joker_last() -> None:
    assert cards_str(parse_mask("JK AH 2S TC")) == "2S TC AH JK"
    assert cards_str(0) == ""


def test_cards_str_keeps_the_order_of_a_list() -> None:
    assert cards_str([51, 0, 52]) == "AH 2S JK"


# ------------------------------------------------------------------------ mask helpers


def test_mask_of_and_mask_cards_are_inverse() -> None:
    cards = (0, 13, 38, 51, 52)
    assert mask_cards(mask_of(cards)) == cards
    assert mask_cards(mask_of(reversed(cards))) == cards
    assert mask_of([]) == 0
    assert mask_cards(0) == ()


def test_iter_cards_ascends() -> None:
    assert list(iter_cards(parse_mask("AH 2S JK KC"))) == [0, 24, 51, 52]


def test_count_highest_lowest() -> None:
    hand = parse_mask("3S QC 7H")
    assert count(hand) == 3
    assert card_str(highest(hand)) == "7H"
    assert card_str(lowest(hand)) == "3S"
    assert highest(parse_mask("AH JK")) == JOKER  # the joker counts highest for bits


def test_suit_cards_returns_one_suit_ascending() -> None:
    hand = parse_mask("AH 2H 5D QS 3S JK")
    assert [card_str(c) for c in suit_cards(hand, HEARTS)] == ["2H", "AH"]
    assert [card_str(c) for c in suit_cards(hand, SPADES)] == ["3S", "QS"]
    assert suit_cards(hand, CLUBS) == ()
    assert [card_str(c) for c in suit_cards(hand, DIAMONDS)] == ["5D"]


def test_a_card_code_is_ascii_letters_only() -> None:
    """Rule (record-format.md, cards): either case, but a long s is not an S."""
    with pytest.raises(InvalidCardError, match="not a card code: 'Aſ'"):
        parse_card("Aſ")
    assert parse_card("as") == parse_card("AS")
