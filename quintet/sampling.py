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
    for _ in range(3):
        rng.shuffle(cards)
        cards.sort(key=lambda c: len(eligible[c]))
        result = _greedy(cards, slots, eligible, rng)
        if result is not None:
            return result
    return _guided(cards, slots, eligible, rng)


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


def _guided(
    cards: list[Card],
    slots: Sequence[tuple[int, CardMask]],
    eligible: dict[Card, list[int]],
    rng: random.Random,
) -> list[CardMask]:
    """Place cards one by one, each where a complete deal remains possible.

    Cards with the same eligible slots are interchangeable for feasibility, so
    feasibility is a flow problem on a handful of card classes and slots.
    """
    classes: dict[tuple[int, ...], int] = {}
    for c in cards:
        key = tuple(eligible[c])
        classes[key] = classes.get(key, 0) + 1
    room = [size for size, _ in slots]
    if not _feasible(classes, room):
        raise ImpossibleDealError("no deal of the unseen cards satisfies what has been seen")
    out = [0] * len(slots)
    rng.shuffle(cards)
    for c in cards:
        key = tuple(eligible[c])
        classes[key] -= 1
        choices = []
        for i in key:
            if room[i]:
                room[i] -= 1
                if _feasible(classes, room):
                    choices.append(i)
                room[i] += 1
        total = sum(room[i] for i in choices)
        pick = rng.randrange(total)
        for i in choices:
            pick -= room[i]
            if pick < 0:
                break
        room[i] -= 1
        out[i] |= 1 << c
    return out


def _feasible(classes: dict[tuple[int, ...], int], room: list[int]) -> bool:
    """Return whether the card classes fit the slots' room (max flow = cards left)."""
    need = [(key, n) for key, n in classes.items() if n]
    total = sum(n for _, n in need)
    if total > sum(room):
        return False
    # Flow from classes to slots by augmenting paths (the graph has a dozen nodes).
    left = [n for _, n in need]
    cap = room[:]
    flow: dict[tuple[int, int], int] = {}
    sent = 0
    while True:
        path = _augment(need, left, cap, flow)
        if path is None:
            break
        sent += path
    return sent == total


def _augment(
    need: list[tuple[tuple[int, ...], int]],
    left: list[int],
    cap: list[int],
    flow: dict[tuple[int, int], int],
) -> int | None:
    # Breadth-first search over class and slot nodes for a path source -> sink.
    n_cls = len(need)
    parent: dict[tuple[str, int], tuple[str, int] | None] = {}
    queue: list[tuple[str, int]] = []
    for k in range(n_cls):
        if left[k]:
            parent[("c", k)] = None
            queue.append(("c", k))
    while queue:
        kind, x = queue.pop(0)
        if kind == "c":
            for i in need[x][0]:
                if ("s", i) not in parent:
                    parent[("s", i)] = (kind, x)
                    queue.append(("s", i))
        else:
            if cap[x] > 0:
                # Reached the sink: push one unit back along the path.
                node: tuple[str, int] | None = (kind, x)
                cap[x] -= 1
                while node is not None:
                    prev = parent[node]
                    if prev is None:
                        left[node[1]] -= 1
                    elif node[0] == "s":
                        flow[(prev[1], node[1])] = flow.get((prev[1], node[1]), 0) + 1
                    else:
                        flow[(node[1], prev[1])] -= 1
                    node = prev
                return 1
            for k in range(n_cls):
                if flow.get((k, x), 0) > 0 and ("c", k) not in parent:
                    parent[("c", k)] = (kind, x)
                    queue.append(("c", k))
    return None
