"""Dealing unseen cards under constraints always finds a deal when one exists."""

import random

import pytest

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
