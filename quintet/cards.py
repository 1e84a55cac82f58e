"""Cards as small ints, sets of cards as int bitmasks.

Encoding (used everywhere in the project)::

    card = suit * 13 + rank          rank 0 = two ... 12 = ace
                                     suit 0 = spades, 1 = clubs, 2 = diamonds, 3 = hearts
    JOKER = 52                       Quinto's "Quint Royal"

The encoding is chosen so that the integer order of the 52 ordinary cards is
Quinto's trick-taking order: spade 2 (0) lowest ... heart ace (51) highest.

A set of cards (a hand, a trick, the cachette) is a ``CardMask``: bit ``c`` is set
when card ``c`` is in the set. All bit helpers live here.

>>> parse_card("10h") == parse_card("TH")
True
>>> card_str(parse_card("ah"))
'AH'
>>> cards_str(parse_mask(["2s", "JK", "qd"]))
'2S QD JK'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

from quintet.errors import InvalidCardError

Card = int
CardMask = int
Suit = int
Rank = int

SPADES: Final = 0
CLUBS: Final = 1
DIAMONDS: Final = 2
HEARTS: Final = 3
SUITS: Final = (SPADES, CLUBS, DIAMONDS, HEARTS)

SUIT_CHARS: Final = "SCDH"
SUIT_SYMBOLS: Final = "♠♣♦♥"
SUIT_NAMES: Final = ("spades", "clubs", "diamonds", "hearts")
RANK_CHARS: Final = "23456789TJQKA"
RANK_DISPLAY: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

TWO: Final = 0
THREE: Final = 1
FOUR: Final = 2
FIVE: Final = 3
SIX: Final = 4
SEVEN: Final = 5
EIGHT: Final = 6
NINE: Final = 7
TEN: Final = 8
JACK: Final = 9
QUEEN: Final = 10
KING: Final = 11
ACE: Final = 12

JOKER: Final = 52
JOKER_BIT: Final = 1 << JOKER

BIT: Final[tuple[CardMask, ...]] = tuple(1 << c for c in range(53))
SUIT_OF: Final[tuple[int, ...]] = tuple([c // 13 for c in range(52)] + [-1])
RANK_OF: Final[tuple[int, ...]] = tuple([c % 13 for c in range(52)] + [-1])
SUIT_MASK: Final[tuple[CardMask, ...]] = tuple(((1 << 13) - 1) << (13 * s) for s in SUITS)

#: The 53-card Quinto pack: 52 cards and the joker.
QUINTO_PACK: Final[CardMask] = (1 << 53) - 1
#: The 40-card Quintus pack: five to ace in four suits.
QUINTUS_PACK: Final[CardMask] = sum(1 << (s * 13 + r) for s in SUITS for r in range(FIVE, ACE + 1))


def card(rank: Rank, suit: Suit) -> Card:
    """Return the card of ``rank`` (0 = two .. 12 = ace) and ``suit`` (0 = spades .. 3)."""
    return suit * 13 + rank


# Per-suit tables: the cards of a 13-bit suit chunk, as a tuple of card ints, and the
# same cards as one-bit masks. Listing a mask's cards is then four lookups, not a loop
# over bits (hot in search). A chunk's row is its lowest card before the row of the rest.
def _chunk_tables() -> tuple[
    tuple[tuple[tuple[Card, ...], ...], ...], tuple[tuple[tuple[CardMask, ...], ...], ...]
]:
    cards_tables = []
    bits_tables = []
    for s in SUITS:
        base = 13 * s
        cards: list[tuple[Card, ...]] = [()] * (1 << 13)
        bits: list[tuple[CardMask, ...]] = [()] * (1 << 13)
        for chunk in range(1, 1 << 13):
            low = chunk & -chunk
            c = base + low.bit_length() - 1
            cards[chunk] = (c, *cards[chunk ^ low])
            bits[chunk] = (BIT[c], *bits[chunk ^ low])
        cards_tables.append(tuple(cards))
        bits_tables.append(tuple(bits))
    return tuple(cards_tables), tuple(bits_tables)


_CHUNK, _CHUNK_BITS = _chunk_tables()
_S0, _S1, _S2, _S3 = _CHUNK
_B0, _B1, _B2, _B3 = _CHUNK_BITS


def mask_cards(mask: CardMask) -> tuple[Card, ...]:
    """Return the cards of ``mask`` in ascending card order (the joker last).

    >>> mask_cards(mask_of([51, 0, 52]))
    (0, 51, 52)
    """
    out = (
        _S0[mask & 0x1FFF]
        + _S1[mask >> 13 & 0x1FFF]
        + _S2[mask >> 26 & 0x1FFF]
        + _S3[mask >> 39 & 0x1FFF]
    )
    if mask & JOKER_BIT:
        return (*out, JOKER)
    return out


def mask_bits(mask: CardMask) -> tuple[CardMask, ...]:
    """Return the one-bit masks of the cards of ``mask``, in ascending card order.

    ``tuple(1 << c for c in mask_cards(mask))``, from tables.

    >>> mask_bits(mask_of([0, 14, 52]))
    (1, 16384, 4503599627370496)
    """
    out = (
        _B0[mask & 0x1FFF]
        + _B1[mask >> 13 & 0x1FFF]
        + _B2[mask >> 26 & 0x1FFF]
        + _B3[mask >> 39 & 0x1FFF]
    )
    if mask & JOKER_BIT:
        return (*out, JOKER_BIT)
    return out


def suit_cards(mask: CardMask, suit: Suit) -> tuple[Card, ...]:
    """Return the cards of ``suit`` in ``mask``, ascending."""
    return _CHUNK[suit][mask >> (13 * suit) & 0x1FFF]


def iter_cards(mask: CardMask) -> Iterator[Card]:
    """Iterate the cards of ``mask`` in ascending order."""
    return iter(mask_cards(mask))


def mask_of(cards: Iterable[Card]) -> CardMask:
    """Return the mask holding ``cards``."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def count(mask: CardMask) -> int:
    """Return the number of cards in ``mask``."""
    return mask.bit_count()


def highest(mask: CardMask) -> Card:
    """Return the highest card of a non-empty mask (the joker counts highest here)."""
    return mask.bit_length() - 1


def lowest(mask: CardMask) -> Card:
    """Return the lowest card of a non-empty mask."""
    return (mask & -mask).bit_length() - 1


def card_str(c: Card) -> str:
    """Return the canonical two-character code of a card (``AS``, ``TH``, ``JK``).

    Raises:
        InvalidCardError: ``c`` is not a card number.
    """
    if c == JOKER:
        return "JK"
    if not 0 <= c < 52:
        raise InvalidCardError(f"not a card number: {c!r}")
    return RANK_CHARS[c % 13] + SUIT_CHARS[c // 13]


def card_display(c: Card) -> str:
    """Return a card for people: ``10♥``, ``Q♠``, ``JK``."""
    if c == JOKER:
        return "JK"
    return RANK_DISPLAY[c % 13] + SUIT_SYMBOLS[c // 13]


_PARSE: dict[str, Card] = {}
for _c in range(52):
    _code = card_str(_c)
    _PARSE[_code] = _c
    if _code[0] == "T":
        _PARSE["10" + _code[1]] = _c
_PARSE["JK"] = JOKER


def parse_card(text: str) -> Card:
    """Parse a card code: rank then suit, any case, ``T`` or ``10``; ``JK`` is the joker.

    Raises:
        InvalidCardError: ``text`` is not a card code.

    >>> parse_card("QS"), parse_card("10c"), parse_card("jk")
    (10, 21, 52)
    """
    if not isinstance(text, str):
        raise InvalidCardError(f"a card code must be a string, not {text!r}")
    # ASCII only: "ſ".upper() is "S", and no other letter is a suit or a rank.
    c = _PARSE.get(text.upper()) if text.isascii() else None
    if c is None:
        raise InvalidCardError(f"not a card code: {text!r}")
    return c


def parse_cards(texts: Iterable[str] | str) -> list[Card]:
    """Parse card codes from a list or a whitespace-separated string.

    Raises:
        InvalidCardError: one of the codes is not a card code.
    """
    if isinstance(texts, str):
        texts = texts.split()
    return [parse_card(t) for t in texts]


def parse_mask(texts: Iterable[str] | str) -> CardMask:
    """Parse card codes into a mask.

    Raises:
        InvalidCardError: a code is invalid or a card is given twice.
    """
    m = 0
    for c in parse_cards(texts):
        if m >> c & 1:
            raise InvalidCardError(f"card {card_str(c)} given twice")
        m |= 1 << c
    return m


def cards_str(cards: Iterable[Card] | CardMask) -> str:
    """Return space-separated canonical codes (a mask is listed in ascending order)."""
    if isinstance(cards, int):
        cards = mask_cards(cards)
    return " ".join(card_str(c) for c in cards)


def hand_display(mask: CardMask, suit_order: tuple[Suit, ...] = (3, 2, 1, 0)) -> str:
    """Return a hand for people, one group per suit, high cards first.

    >>> hand_display(parse_mask("AH TH 2S JK"))
    '♥ A 10  ♠ 2  JK'
    """
    groups = []
    for s in suit_order:
        cs = suit_cards(mask, s)
        if cs:
            groups.append(
                SUIT_SYMBOLS[s] + " " + " ".join(RANK_DISPLAY[c % 13] for c in reversed(cs))
            )
    if mask & JOKER_BIT:
        groups.append("JK")
    return "  ".join(groups) if groups else "-"


def suit_from_str(text: str) -> Suit:
    """Parse a suit letter (``S C D H``, any case).

    Raises:
        InvalidCardError: not a suit letter.
    """
    if isinstance(text, str) and len(text) == 1 and text.upper() in SUIT_CHARS:
        return SUIT_CHARS.index(text.upper())
    raise InvalidCardError(f"not a suit: {text!r}")
