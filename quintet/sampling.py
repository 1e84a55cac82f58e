"""Dealing unseen cards under constraints (used by ``resample_from_infostate``).

A seat that failed to follow suit is void in it; some rules reveal that a seat
cannot hold a given card. Both become a *forbidden* mask per slot, and the unseen
cards are dealt so that every slot gets exactly its size and none of its forbidden
cards: uniformly at random among all such deals.

How, exactly uniform and cheap when search deals from the same position again and again.
Think of a slot of size ``r`` as ``r`` places, and of a deal as every card put in a
place of a slot that may take it: each deal is then the same number of placements
(``prod r!``), so a uniform placement gives a uniform deal.

1. The cards are grouped into *classes* by the slots that may take them (a void suit's
   cards form one class; the cards no slot refuses, the *free* cards, another). The
   cards of a class are interchangeable for the constraints.
2. The constrained classes choose their places one class after the other, the free cards
   take the places left. Slots that every class still to come either may or may not use
   are interchangeable for those classes: they are merged into *groups*, and the number
   of ways the classes still to come can choose places depends only on the room left per
   group (Vandermonde's identity ``sum_i C(a, i) C(b, n - i) = C(a + b, n)`` merges them).
   A small dynamic programme over the classes counts those ways; how many cards of a
   class go to each group is drawn with probability proportional to the placements it
   leaves possible. The counts depend only on the slot sizes and the class sizes and
   slots, so they are computed once per shape and kept (search repeats a few shapes).
3. Within that, each card takes a place uniformly among the free places of its group
   (a slot with probability proportional to its room), and the free cards fill what is
   left uniformly.

Every step draws with the exact share of complete placements it leaves, so the
placement, and the deal, is uniform over all that are consistent. (Single cards are
drawn with ``int(rng.random() * n)``: uniform up to the 2**-53 granularity of a float,
like the engines' own deals; the counts, whose totals can be large, with ``randrange``.)
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable, Sequence

from quintet.cards import BIT, CardMask, mask_cards
from quintet.errors import QuintetError

#: ``_BINOM[n][k]``: n choose k, for the sizes a hand or a pool can have.
_BINOM: list[list[int]] = [[1]]
for _n in range(1, 64):
    _prev = _BINOM[-1]
    _BINOM.append([1, *(_prev[k - 1] + _prev[k] for k in range(1, _n)), 1])
del _n, _prev

#: Plans kept, by deal shape; the store is emptied when it grows past this.
_MAX_PLANS = 4096
#: Prepared deals kept, by exact ``(pool, slots)``; emptied when it grows past this.
_MAX_PREPARED = 4096

#: A deal's shape: per constrained class, the slots it may go to and its size.
_Shape = tuple[tuple[tuple[int, ...], int], ...]
#: A plan's entry: cumulative weights, per-group counts, and the next level's rooms.
_Entry = tuple[list[int], list[tuple[int, ...]], list[tuple[int, ...]]]


class ImpossibleDealError(QuintetError):
    """No deal satisfies the constraints (the information state is inconsistent)."""


def _impossible() -> ImpossibleDealError:
    return ImpossibleDealError("no deal of the unseen cards satisfies what has been seen")


class _Plan:
    """The exact distribution of how many cards of each constrained class go to each group.

    ``classes[k]`` is ``(slots allowed, size)`` in dealing order. Level ``k``'s groups
    (``groups[k]``) split the slots by which of classes ``k``.. may use them (slots none of
    them may use are left out); a level's *state* is the room per group. ``targets[k]``
    are the groups class ``k`` may use, ``merge[k][g]`` the next level's group that group
    ``g`` falls in (-1: none). ``table[k, state]`` holds the cumulative weights of class
    ``k``'s possible counts (per group of ``targets[k]``), the counts, and the next state
    each leaves. The
    last class needs no table: it has one group, and ``C(room, size)`` ways.
    """

    __slots__ = ("classes", "groups", "merge", "start", "table", "targets", "total")

    def __init__(self, sizes: tuple[int, ...], classes: _Shape) -> None:
        self.classes = classes
        n = len(classes)
        self.groups: list[tuple[tuple[int, ...], ...]] = []
        for k in range(n):
            by: dict[tuple[bool, ...], list[int]] = {}
            for j in range(len(sizes)):
                pattern = tuple(j in elig for elig, _ in classes[k:])
                if any(pattern):
                    by.setdefault(pattern, []).append(j)
            # Groups class k may use first (pattern[0] True sorts after False: reverse).
            self.groups.append(tuple(tuple(by[p]) for p in sorted(by, reverse=True)))
        self.targets = [
            tuple(g for g, slots in enumerate(self.groups[k]) if slots[0] in classes[k][0])
            for k in range(n)
        ]
        self.merge: list[tuple[int, ...]] = []
        for k in range(n - 1):
            nxt = self.groups[k + 1]
            self.merge.append(
                tuple(
                    next((i for i, h in enumerate(nxt) if slots[0] in h), -1)
                    for slots in self.groups[k]
                )
            )
        self.table: dict[tuple[int, tuple[int, ...]], _Entry] = {}
        self.start = tuple(sum(sizes[j] for j in slots) for slots in self.groups[0])
        self.total = self._weight(0, self.start)

    def _weight(self, k: int, state: tuple[int, ...]) -> int:
        size = self.classes[k][1]
        if k == len(self.classes) - 1:
            room = state[0]  # the last level has the one group its class may use
            return _BINOM[room][size] if size <= room else 0
        entry = self.table.get((k, state))
        if entry is not None:
            return entry[0][-1] if entry[0] else 0
        merge = self.merge[k]
        targets = self.targets[k]
        width = len(self.groups[k + 1])
        cums: list[int] = []
        counts: list[tuple[int, ...]] = []
        nexts: list[tuple[int, ...]] = []
        total = 0
        for y in _splits(size, targets, state):
            nxt = [0] * width
            w = 1
            for g, (r, v) in enumerate(zip(state, y, strict=True)):
                if v:
                    w *= _BINOM[r][v]
                if merge[g] >= 0:
                    nxt[merge[g]] += r - v
            nt = tuple(nxt)
            w *= self._weight(k + 1, nt)
            if not w:
                continue
            total += w
            cums.append(total)
            counts.append(tuple(y[g] for g in targets))
            nexts.append(nt)
        self.table[(k, state)] = (cums, counts, nexts)
        return total

    def draw(self, rng: random.Random) -> list[tuple[int, ...]]:
        """Return per class its number of cards per group it may use, drawn exactly."""
        state = self.start
        out = []
        table = self.table
        for k in range(len(self.classes) - 1):
            cums, counts, nexts = table[(k, state)]
            i = 0 if len(cums) == 1 else bisect_right(cums, rng.randrange(cums[-1]))
            out.append(counts[i])
            state = nexts[i]
        out.append((self.classes[-1][1],))
        return out


def _splits(n: int, targets: tuple[int, ...], room: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Return every way to put ``n`` cards into the groups ``targets`` within ``room``."""
    out: list[tuple[int, ...]] = []
    cur = [0] * len(room)
    last = len(targets) - 1
    caps = [0] * (last + 2)
    for i in range(last, -1, -1):
        caps[i] = caps[i + 1] + room[targets[i]]

    def rec(i: int, left: int) -> None:
        g = targets[i]
        if i == last:
            cur[g] = left
            out.append(tuple(cur))
            cur[g] = 0
            return
        for v in range(max(0, left - caps[i + 1]), min(left, room[g]) + 1):
            cur[g] = v
            rec(i + 1, left - v)
        cur[g] = 0

    if n <= caps[0]:
        rec(0, n)
    return out


class _Prepared:
    """A ``(pool, slots)`` made ready to deal: its plan, classes and free cards."""

    __slots__ = ("classes", "free", "plan", "sizes")

    def __init__(self, pool: CardMask, slots: tuple[tuple[int, CardMask], ...]) -> None:
        m = len(slots)
        full = (1 << m) - 1
        # Split the pool by each slot's forbidden cards into classes keyed by the slots allowed.
        split: list[tuple[int, CardMask]] = [(full, pool)]
        for j, (_, forbidden) in enumerate(slots):
            f = forbidden & pool
            if not f:
                continue
            nxt = []
            for allowed, cards in split:
                inside = cards & f
                if inside:
                    if cards ^ inside:
                        nxt.append((allowed, cards ^ inside))
                    nxt.append((allowed & ~(1 << j), inside))
                else:
                    nxt.append((allowed, cards))
            split = nxt
        self.sizes = [size for size, _ in slots]
        self.free: CardMask = 0
        cons: list[tuple[int, tuple[int, ...], CardMask]] = []
        for allowed, cards in split:
            if allowed == full:
                self.free = cards
            elif not allowed:
                raise _impossible()
            else:
                elig = tuple(j for j in range(m) if allowed >> j & 1)
                cons.append((cards.bit_count(), elig, cards))
        cons.sort()  # the fewest cards first: the largest class is the one counted in closed form
        self.plan: _Plan | None = None
        #: Per constrained class: its cards' bits and, per group of its level, the slots.
        self.classes: list[tuple[tuple[CardMask, ...], list[tuple[int, ...]]]] = []
        if not cons:
            return
        shape = tuple((elig, n) for n, elig, _ in cons)
        key = (tuple(self.sizes), shape)
        plan = _plans.get(key)
        if plan is None:
            plan = _Plan(key[0], shape)
            if len(_plans) >= _MAX_PLANS:
                _plans.clear()
            _plans[key] = plan
        if not plan.total:
            raise _impossible()
        self.plan = plan
        for k, (_, _, cards) in enumerate(cons):
            bits = tuple(BIT[c] for c in mask_cards(cards))
            self.classes.append((bits, [plan.groups[k][g] for g in plan.targets[k]]))


_plans: dict[tuple[tuple[int, ...], _Shape], _Plan] = {}
_prepared: dict[tuple[CardMask, tuple[tuple[int, CardMask], ...]], _Prepared] = {}


def deal_constrained(
    pool: CardMask, slots: Sequence[tuple[int, CardMask]], rng: random.Random
) -> list[CardMask]:
    """Deal every card of ``pool`` into ``slots`` given as ``(size, forbidden_mask)``.

    The deal is uniform over all deals giving each slot exactly its size and none of its
    forbidden cards (see the module docstring).

    Raises:
        ImpossibleDealError: the sizes do not add up or no deal satisfies the constraints.

    >>> deal_constrained(0b111111, [(3, 0b000111), (3, 0)], random.Random(1))
    [56, 7]
    """
    key = (pool, tuple(slots))
    prep = _prepared.get(key)
    if prep is None:
        n = pool.bit_count()
        if sum(size for size, _ in slots) != n:
            raise ImpossibleDealError(
                f"{n} unseen cards cannot fill slots of sizes {[s for s, _ in slots]}"
            )
        prep = _Prepared(pool, key[1])
        if len(_prepared) >= _MAX_PREPARED:
            _prepared.clear()
        _prepared[key] = prep
    room = prep.sizes[:]
    out = [0] * len(room)
    plan = prep.plan
    if plan is not None:
        r = rng.random
        for (bits, groups), counts in zip(prep.classes, plan.draw(rng), strict=True):
            if len(groups) == 1:
                _place(bits, groups[0], room, out, r)
                continue
            if max(counts) == len(bits):  # all in one group
                _place(bits, groups[counts.index(len(bits))], room, out, r)
                continue
            # Which cards go to which group: a uniform arrangement of the counts drawn.
            left = list(counts)
            total = len(bits)
            split: list[list[CardMask]] = [[] for _ in groups]
            for b in bits:
                u = int(r() * total)
                total -= 1
                g = 0
                while u >= left[g]:
                    u -= left[g]
                    g += 1
                left[g] -= 1
                split[g].append(b)
            for part, where in zip(split, groups, strict=True):
                if part:
                    _place(part, where, room, out, r)
    if prep.free:
        _deal_free(prep.free, room, out, rng)
    return out


def _place(
    bits: Sequence[CardMask],
    slots: tuple[int, ...],
    room: list[int],
    out: list[CardMask],
    r: Callable[[], float],
) -> None:
    """Put each card in a uniformly chosen free place of ``slots`` (updating ``room``)."""
    if len(slots) == 1:
        j = slots[0]
        m = 0
        for b in bits:
            m |= b
        out[j] |= m
        room[j] -= len(bits)
        return
    total = 0
    for j in slots:
        total += room[j]
    for b in bits:
        u = int(r() * total)
        total -= 1
        for j in slots:
            u -= room[j]
            if u < 0:
                break
        room[j] -= 1
        out[j] |= b


def _deal_free(cards: CardMask, room: list[int], out: list[CardMask], rng: random.Random) -> None:
    """Deal ``cards`` uniformly into the places ``room`` leaves (they fill it exactly)."""
    # The largest share is dealt last: it takes what is left, with no draw.
    last = max(range(len(room)), key=room.__getitem__)
    if room[last] == cards.bit_count():
        out[last] |= cards
        return
    deck = list(mask_cards(cards))
    left = len(deck)
    r = rng.random
    rest = cards
    for i, n in enumerate(room):
        if i == last or not n:
            continue
        m = 0
        for _ in range(n):
            k = int(r() * left)
            left -= 1
            m |= BIT[deck[k]]
            deck[k] = deck[left]
        out[i] |= m
        rest ^= m
    out[last] |= rest
