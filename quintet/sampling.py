"""Dealing unseen cards under constraints (used by ``resample_from_infostate``).

A seat that failed to follow suit is void in it; some rules reveal that a seat
cannot hold a given card. Both become a *forbidden* mask per slot, and the unseen
cards are dealt so that every slot gets exactly its size and none of its forbidden
cards.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from quintet.cards import Card, CardMask, mask_cards
from quintet.errors import QuintetError


class ImpossibleDealError(QuintetError):
    """No deal satisfies the constraints (the information state is inconsistent)."""


def deal_constrained(
    pool: CardMask, slots: Sequence[tuple[int, CardMask]], rng: random.Random
) -> list[CardMask]:
    """Deal every card of ``pool`` into ``slots`` given as ``(size, forbidden_mask)``.

    Cards are placed most-constrained first, each into an eligible slot chosen with
    probability proportional to the slot's free room: without constraints this is a
    uniform deal. A dead end restarts; after a few restarts an exhaustive randomized
    search takes over, so a deal is always found when one exists.

    Raises:
        ImpossibleDealError: the sizes do not add up or no deal satisfies the constraints.

    >>> hands = deal_constrained(0b111111, [(3, 0b000111), (3, 0)], random.Random(1))
    >>> hands
    [56, 7]
    """
    cards = list(mask_cards(pool))
    if sum(size for size, _ in slots) != len(cards):
        raise ImpossibleDealError(
            f"{len(cards)} unseen cards cannot fill slots of sizes {[s for s, _ in slots]}"
        )
    if not any(forbidden & pool for _, forbidden in slots):
        rng.shuffle(cards)
        out = []
        i = 0
        for size, _ in slots:
            m = 0
            for c in cards[i : i + size]:
                m |= 1 << c
            out.append(m)
            i += size
        return out
    eligible = {c: [i for i, (_, f) in enumerate(slots) if not f >> c & 1] for c in cards}
    for _ in range(20):
        rng.shuffle(cards)
        cards.sort(key=lambda c: len(eligible[c]))
        result = _greedy(cards, slots, eligible, rng)
        if result is not None:
            return result
    result = _exhaustive(cards, slots, eligible, rng)
    if result is None:
        raise ImpossibleDealError("no deal of the unseen cards satisfies what has been seen")
    return result


def _greedy(
    cards: list[Card],
    slots: Sequence[tuple[int, CardMask]],
    eligible: dict[Card, list[int]],
    rng: random.Random,
) -> list[CardMask] | None:
    room = [size for size, _ in slots]
    out = [0] * len(slots)
    for c in cards:
        choices = [i for i in eligible[c] if room[i]]
        if not choices:
            return None
        total = sum(room[i] for i in choices)
        pick = rng.randrange(total)
        for i in choices:
            pick -= room[i]
            if pick < 0:
                break
        room[i] -= 1
        out[i] |= 1 << c
    return out


def _exhaustive(
    cards: list[Card],
    slots: Sequence[tuple[int, CardMask]],
    eligible: dict[Card, list[int]],
    rng: random.Random,
) -> list[CardMask] | None:
    room = [size for size, _ in slots]
    out = [0] * len(slots)
    order = sorted(cards, key=lambda c: len(eligible[c]))

    def place(k: int) -> bool:
        if k == len(order):
            return True
        c = order[k]
        choices = [i for i in eligible[c] if room[i]]
        rng.shuffle(choices)
        for i in choices:
            room[i] -= 1
            out[i] |= 1 << c
            if place(k + 1):
                return True
            room[i] += 1
            out[i] ^= 1 << c
        return False

    return out if place(0) else None
