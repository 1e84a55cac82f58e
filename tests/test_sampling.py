"""Dealing unseen cards under constraints: a deal when one exists, uniform over all of them."""

import random
from collections import Counter

import pytest

from quintet import sampling
from quintet.cards import SUIT_MASK
from quintet.sampling import ImpossibleDealError, deal_constrained

SPADES, CLUBS, DIAMONDS, HEARTS = SUIT_MASK


def test_deal_respects_sizes_and_forbidden_suits_when_greedy_dealing_fails() -> None:
    # One slot may hold only spades: a greedy deal fails often, the guided one never.
    pool = SPADES | CLUBS
    for seed in range(200):
        hands = deal_constrained(
            pool, [(5, CLUBS | DIAMONDS | HEARTS), (10, SPADES), (11, 0)], random.Random(seed)
        )
        assert [h.bit_count() for h in hands] == [5, 10, 11]
        assert hands[0] & ~SPADES == 0 and hands[1] & SPADES == 0
        assert hands[0] | hands[1] | hands[2] == pool


def test_impossible_constraints_raise() -> None:
    with pytest.raises(ImpossibleDealError):
        deal_constrained(SPADES, [(5, SPADES), (8, 0)], random.Random(1))
    with pytest.raises(ImpossibleDealError, match="cannot fill"):
        deal_constrained(SPADES, [(5, 0)], random.Random(1))


def test_unconstrained_deal_is_a_shuffle() -> None:
    seen = set()
    for seed in range(50):
        a, _ = deal_constrained(0b1111, [(2, 0), (2, 0)], random.Random(seed))
        seen.add(a)
    assert len(seen) == 6  # every 2-card subset of 4 cards turns up


def _all_deals(pool: int, slots: list[tuple[int, int]]) -> list[tuple[int, ...]]:
    """Every deal of ``pool`` into ``slots`` (size, forbidden), by brute force."""
    cards = [c for c in range(64) if pool >> c & 1]
    out: list[tuple[int, ...]] = []
    hands = [0] * len(slots)

    def rec(i: int) -> None:
        if i == len(cards):
            if all(h.bit_count() == s for h, (s, _) in zip(hands, slots, strict=True)):
                out.append(tuple(hands))
            return
        for j, (size, forbidden) in enumerate(slots):
            if hands[j].bit_count() < size and not forbidden >> cards[i] & 1:
                hands[j] |= 1 << cards[i]
                rec(i + 1)
                hands[j] &= ~(1 << cards[i])

    rec(0)
    return out


def _chi_square(counts: Counter[tuple[int, ...]], cells: list[tuple[int, ...]], n: int) -> float:
    expected = n / len(cells)
    return sum((counts[c] - expected) ** 2 / expected for c in cells)


# Small deals with overlapping voids (several constrained classes, classes spread over
# several slots), each checked against every consistent deal.
UNIFORM_CASES = [
    # Card 0 may not go to slot 0, card 1 not to slot 1: placing the most constrained card
    # first with odds by free room gives these three deals 1/4, 3/8, 3/8.
    (0b111, [(1, 0b001), (1, 0b010), (1, 0)]),
    (0b1111111, [(2, 0b0000111), (2, 0b0011000), (3, 0)]),
    (0b11111111, [(3, 0b00001111), (2, 0b11110000), (2, 0b00110011), (1, 0)]),
    (0b111111111, [(2, 0b000011111), (3, 0b111000000), (2, 0b000100011), (2, 0b010000100)]),
    (0b1111111111, [(4, 0b0000000111), (3, 0b0011100000), (3, 0)]),
]


@pytest.mark.parametrize(("pool", "slots"), UNIFORM_CASES)
def test_constrained_deal_is_uniform_over_consistent_deals(
    pool: int, slots: list[tuple[int, int]]
) -> None:
    deals = _all_deals(pool, slots)
    n = 300 * len(deals)
    rng = random.Random(len(deals))
    counts = Counter(tuple(deal_constrained(pool, slots, rng)) for _ in range(n))
    assert set(counts) == set(deals)  # every consistent deal comes out, and only those
    # Chi-square against the uniform distribution: with df = cells - 1 its mean is df and
    # its spread sqrt(2 df); 6 spreads above the mean is p < 1e-6 (the seeds are fixed).
    df = len(deals) - 1
    assert _chi_square(counts, deals, n) < df + 6 * (2 * df) ** 0.5


def test_the_three_deal_case_is_even() -> None:
    pool, slots = UNIFORM_CASES[0]
    rng = random.Random(5)
    n = 30000
    counts = Counter(tuple(deal_constrained(pool, slots, rng)) for _ in range(n))
    for deal in _all_deals(pool, slots):
        assert abs(counts[deal] / n - 1 / 3) < 0.015  # not 1/4 or 3/8


def test_a_deal_depends_on_the_generator_only() -> None:
    pool, slots = SPADES | CLUBS, [(5, CLUBS | DIAMONDS | HEARTS), (10, SPADES), (11, 0)]
    first = [deal_constrained(pool, slots, random.Random(s)) for s in range(20)]
    sampling._plans.clear()
    sampling._prepared.clear()
    assert [deal_constrained(pool, slots, random.Random(s)) for s in range(20)] == first
