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
   The last two classes' ways have a closed form (a sum over how many cards of the first
   go where both may), and their tables are built only when a draw reaches them: a new
   position makes a new shape, and its first resample pays for its plan.
3. Within that, each card takes a place uniformly among the free places of its group
   (a slot with probability proportional to its room), and the free cards fill what is
   left uniformly.

Every step draws with the exact share of complete placements it leaves, so the
placement, and the deal, is uniform over all that are consistent. (Single cards are
drawn with ``floor(rng.random() * n)``, which is ``int()`` of these positive numbers and
cheaper to call: uniform up to the 2**-53 granularity of a float, like the engines' own
deals; the counts, whose totals can be large, with ``randrange``.)
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable, Sequence
from math import floor

from quintet.cards import CardMask, mask_bits
from quintet.errors import QuintetError

# The zips here go without ``strict=``: in the loops a deal runs through, the keyword costs
# more than the loop body (their sequences have equal lengths by construction).

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

#: A plan's entry: cumulative weights, per-group counts, and the next level's rooms.
_Entry = tuple[list[int], list[tuple[int, ...]], list[tuple[int, ...]]]


class ImpossibleDealError(QuintetError):
    """No deal satisfies the constraints (the information state is inconsistent)."""


def _impossible() -> ImpossibleDealError:
    return ImpossibleDealError("no deal of the unseen cards satisfies what has been seen")


def _structure(
    m: int, eligs: tuple[tuple[int, ...], ...]
) -> tuple[
    tuple[tuple[tuple[int, ...], ...], ...],
    tuple[tuple[int, ...], ...],
    tuple[tuple[tuple[int, int], ...], ...],
]:
    """Return the groups per level, each level's target groups, and per level per group
    its index among the targets (-1: not one) and its group at the next level (-1: none).

    Level ``k``'s groups split the ``m`` slots by which of the classes ``k``.. may use them
    (slots none of them may use are left out); its targets are the groups class ``k`` may
    use. Kept per ``(m, eligs)``: it does not depend on any size.
    """
    key = (m, eligs)
    done = _structures.get(key)
    if done is not None:
        return done
    n = len(eligs)
    # A slot's pattern at level k: bit n-1-i set when class i (i >= k) may use it. Class
    # k's bit is the highest, so descending patterns put the groups class k may use first.
    pattern = [0] * m
    for i, elig in enumerate(eligs):
        bit = 1 << (n - 1 - i)
        for j in elig:
            pattern[j] |= bit
    groups = []
    targets = []
    places = []  # per level: each group's index, by its pattern
    for k in range(n):
        level = (1 << (n - k)) - 1
        by: dict[int, list[int]] = {}
        for j in range(m):
            p = pattern[j] & level
            if p:
                if p in by:
                    by[p].append(j)
                else:
                    by[p] = [j]
        order = sorted(by, reverse=True)
        groups.append(tuple([tuple(by[p]) for p in order]))
        top = (level + 1) >> 1
        targets.append(tuple(range(sum(1 for p in order if p & top))))
        places.append({p: g for g, p in enumerate(order)})
    links = []
    for k in range(n - 1):
        below = (1 << (n - k - 1)) - 1
        width = len(targets[k])
        nxt = places[k + 1]
        links.append(
            tuple([(g if g < width else -1, nxt.get(p & below, -1)) for p, g in places[k].items()])
        )
    done = (tuple(groups), tuple(targets), tuple(links))
    if len(_structures) >= _MAX_PLANS:
        _structures.clear()
    _structures[key] = done
    return done


class _Plan:
    """The exact distribution of how many cards of each constrained class go to each group.

    ``eligs[k]`` are the slots class ``k`` may go to and ``sizes[k]`` its size, in dealing
    order; ``groups``, ``targets`` and ``links`` are the deal's :func:`_structure`
    (``target_slots``: the slots of each target group). A level's *state* is the room per group.
    ``table[k, state]`` holds the cumulative weights of class ``k``'s possible counts per
    target group, the counts, and the next state each leaves. A weight counts the ways to
    choose the class's places (``prod C(room, count)`` over its groups) times those of
    the classes after it. The last class needs no table: its level has one group, and
    ``C(room, size)`` ways.
    """

    __slots__ = (
        "below",
        "groups",
        "links",
        "sizes",
        "start",
        "table",
        "target_slots",
        "targets",
        "total",
    )

    def __init__(
        self,
        slot_sizes: tuple[int, ...],
        eligs: tuple[tuple[int, ...], ...],
        sizes: tuple[int, ...],
    ) -> None:
        self.groups, self.targets, self.links = _structure(len(slot_sizes), eligs)
        self.target_slots = tuple(
            tuple(self.groups[k][g] for g in self.targets[k]) for k in range(len(eligs))
        )
        self.sizes = sizes
        # Per level, each target group's group at the next level (-1: none).
        links = self.links
        self.below = tuple(
            [tuple([links[k][g][1] for g in self.targets[k]]) for k in range(len(links))]
        )
        self.table: dict[tuple[int, tuple[int, ...]], _Entry] = {}
        start = []
        for slots in self.groups[0]:
            room = 0
            for j in slots:
                room += slot_sizes[j]
            start.append(room)
        self.start = tuple(start)
        if len(sizes) == 1:
            room, size = start[0], sizes[0]
            self.total = _BINOM[room][size] if size <= room else 0
        else:
            self.total = self._weight(0, self.start)

    def _weight(self, k: int, state: tuple[int, ...]) -> int:
        """Return the ways classes ``k``.. can choose places in ``state`` (k < last)."""
        entry = self.table.get((k, state))
        if entry is not None:
            return entry[0][-1] if entry[0] else 0
        links = self.links[k]
        below = self.below[k]
        caps = list(state[: len(below)])  # the target groups are the first ones
        binom = _BINOM
        cums: list[int] = []
        counts: list[tuple[int, ...]] = []
        nexts: list[tuple[int, ...]] = []
        total = 0
        if k == len(self.sizes) - 2:
            # The next level is the last class's one group: its room is what this level's
            # groups falling in it keep, and C(room, size) is its ways.
            n_last = self.sizes[-1]
            room0 = 0
            for r, (_, g) in zip(state, links):  # noqa: B905
                if g >= 0:
                    room0 += r
            for y in _splits(self.sizes[k], caps):
                w = 1
                room = room0
                for a, v, g in zip(caps, y, below):  # noqa: B905
                    if v:
                        w *= binom[a][v]
                        if g >= 0:
                            room -= v
                if n_last > room:
                    continue
                total += w * binom[room][n_last]
                cums.append(total)
                counts.append(y)
                nexts.append((room,))
        else:
            # What each group keeps falls in its group at the next level, less what this
            # class puts in the target groups.
            base = [0] * len(self.groups[k + 1])
            for r, (_, g) in zip(state, links):  # noqa: B905
                if g >= 0:
                    base[g] += r
            weight = self._weight
            for y in _splits(self.sizes[k], caps):
                nxt = base[:]
                w = 1
                for a, v, g in zip(caps, y, below):  # noqa: B905
                    if v:
                        w *= binom[a][v]
                        if g >= 0:
                            nxt[g] -= v
                nt = tuple(nxt)
                w *= weight(k + 1, nt)
                if not w:
                    continue
                total += w
                cums.append(total)
                counts.append(y)
                nexts.append(nt)
        self.table[(k, state)] = (cums, counts, nexts)
        return total

    def draw(self, rng: random.Random) -> list[tuple[int, ...]]:
        """Return per class its number of cards per target group, drawn exactly."""
        state = self.start
        out = []
        table = self.table
        for k in range(len(self.sizes) - 1):
            cums, counts, nexts = table[(k, state)]
            i = 0 if len(cums) == 1 else bisect_right(cums, rng.randrange(cums[-1]))
            out.append(counts[i])
            state = nexts[i]
        out.append((self.sizes[-1],))
        return out


class _PlanLast2(_Plan):
    """:class:`_Plan` for three or more constrained classes: the same draws, for less work.

    The last two classes' ways in a state have :class:`_Plan2`'s closed form,
    ``sum_v C(A, v) C(B, n - v) C(A + C - v, n_last)`` with ``A``, ``B``, ``C`` the room of
    the groups both, only the first, only the last of them may use; the totals are kept
    across plans (different deals share them), and that level's table (cumulative
    weights, counts, next states) is built only for the states a draw reaches: a plan is
    made once for each new position, and most of those tables were never drawn from.
    """

    __slots__ = ("where",)

    def __init__(
        self,
        slot_sizes: tuple[int, ...],
        eligs: tuple[tuple[int, ...], ...],
        sizes: tuple[int, ...],
    ) -> None:
        # As _Plan.__init__ (three or more classes), with what follows from the structure
        # alone kept with it.
        frame = _frames.get((len(slot_sizes), eligs))
        if frame is None:
            frame = _frame(len(slot_sizes), eligs)
        self.groups, self.targets, self.links, self.target_slots, self.below, where = frame
        self.where = (*where, sizes[-2], sizes[-1])
        self.sizes = sizes
        self.table = {}
        start = []
        for slots in self.groups[0]:
            room = 0
            for j in slots:
                room += slot_sizes[j]
            start.append(room)
        self.start = tuple(start)
        self.total = self._weight(0, self.start)

    def _weight(self, k: int, state: tuple[int, ...]) -> int:
        """Return the ways classes ``k``.. can choose places in ``state``."""
        if k != len(self.sizes) - 2:
            return _Plan._weight(self, k, state)
        ia, ib, ic, n, n_last = self.where
        a = state[ia] if ia >= 0 else 0
        b = state[ib] if ib >= 0 else 0
        c = state[ic] if ic >= 0 else 0
        key = (a, b, c, n, n_last)
        total = _pair_ways.get(key)
        if total is None:
            total = 0
            binom = _BINOM
            for v in range(max(0, n - b), min(n, a) + 1):
                room = a + c - v
                if n_last <= room:
                    total += binom[a][v] * binom[b][n - v] * binom[room][n_last]
            if len(_pair_ways) >= _MAX_PLANS:
                _pair_ways.clear()
            _pair_ways[key] = total
        return total

    def _last_entry(self, state: tuple[int, ...]) -> _Entry:
        """Return the table entry of the level before the last in ``state`` (as
        :meth:`_Plan._weight` builds it: the first class's counts over its groups, both
        then first only, each with the room left to the last class)."""
        ia, ib, ic, n, n_last = self.where
        a = state[ia] if ia >= 0 else 0
        c = state[ic] if ic >= 0 else 0
        binom = _BINOM
        cums: list[int] = []
        counts: list[tuple[int, ...]] = []
        nexts: list[tuple[int, ...]] = []
        total = 0
        if ib < 0:  # every card of the class in the group both may use
            room = a + c - n
            if n <= a and n_last <= room:
                cums.append(binom[a][n] * binom[room][n_last])
                counts.append((n,))
                nexts.append((room,))
        elif ia < 0:  # every card in the group only the first may use
            b = state[ib]
            if n <= b and n_last <= c:
                cums.append(binom[b][n] * binom[c][n_last])
                counts.append((n,))
                nexts.append((c,))
        else:
            b = state[ib]
            for v in range(max(0, n - b), min(n, a) + 1):
                room = a + c - v
                if n_last <= room:
                    total += binom[a][v] * binom[b][n - v] * binom[room][n_last]
                    cums.append(total)
                    counts.append((v, n - v))
                    nexts.append((room,))
        return (cums, counts, nexts)

    def draw(self, rng: random.Random) -> list[tuple[int, ...]]:
        state = self.start
        out = []
        table = self.table
        for k in range(len(self.sizes) - 1):
            entry = table.get((k, state))
            if entry is None:  # the level before the last, first drawn from here
                entry = table[(k, state)] = self._last_entry(state)
            cums, counts, nexts = entry
            i = 0 if len(cums) == 1 else bisect_right(cums, rng.randrange(cums[-1]))
            out.append(counts[i])
            state = nexts[i]
        out.append((self.sizes[-1],))
        return out


#: The last two classes' ways (:meth:`_PlanLast2._weight`), by ``(A, B, C, n, n_last)``.
_pair_ways: dict[tuple[int, int, int, int, int], int] = {}


#: A plan's structure with what follows from it (:func:`_frame`), by ``(m, eligs)``.
_Frame = tuple[
    tuple[tuple[tuple[int, ...], ...], ...],
    tuple[tuple[int, ...], ...],
    tuple[tuple[tuple[int, int], ...], ...],
    tuple[tuple[tuple[int, ...], ...], ...],
    tuple[tuple[int, ...], ...],
    tuple[int, int, int],
]
_frames: dict[tuple[int, tuple[tuple[int, ...], ...]], _Frame] = {}


def _frame(m: int, eligs: tuple[tuple[int, ...], ...]) -> _Frame:
    """Return (and keep) :func:`_structure`'s groups, targets and links for ``m`` slots and
    ``eligs`` (three or more classes), with the slots of each target group, each target
    group's group at the next level, and where the level before the last has its groups
    that both, only the first, only the last of the last two classes may use (-1: none).

    Worked out as :func:`_structure` does, in plain loops: a new position's first resample
    often has a structure not seen before, and comprehensions cost more than their work.
    """
    n = len(eligs)
    pattern = [0] * m
    bit = 1 << n
    for elig in eligs:
        bit >>= 1
        for j in elig:
            pattern[j] |= bit
    groups: list[tuple[tuple[int, ...], ...]] = []
    targets: list[tuple[int, ...]] = []
    target_slots: list[tuple[tuple[int, ...], ...]] = []
    places: list[dict[int, int]] = []
    level = (1 << n) - 1
    for _ in range(n):
        by: dict[int, list[int]] = {}
        for j in range(m):
            p = pattern[j] & level
            if p:
                if p in by:
                    by[p].append(j)
                else:
                    by[p] = [j]
        top = (level + 1) >> 1
        row: list[tuple[int, ...]] = []
        place: dict[int, int] = {}
        width = 0
        for p in sorted(by, reverse=True):
            place[p] = len(row)
            row.append(tuple(by[p]))
            if p & top:
                width += 1
        level_groups = tuple(row)
        groups.append(level_groups)
        targets.append(tuple(range(width)))
        target_slots.append(level_groups[:width])
        places.append(place)
        level >>= 1
    links: list[tuple[tuple[int, int], ...]] = []
    below: list[tuple[int, ...]] = []
    level = (1 << n) - 1
    for k in range(n - 1):
        level >>= 1
        width = len(targets[k])
        nxt = places[k + 1]
        link: list[tuple[int, int]] = []
        down: list[int] = []
        for p, g in places[k].items():
            to = nxt.get(p & level, -1)
            link.append((g if g < width else -1, to))
            if g < width:
                down.append(to)
        links.append(tuple(link))
        below.append(tuple(down))
    where = [-1, -1, -1]
    for g, (t, to) in enumerate(links[n - 2]):
        where[(0 if to >= 0 else 1) if t >= 0 else 2] = g
    frame = (
        tuple(groups),
        tuple(targets),
        tuple(links),
        tuple(target_slots),
        tuple(below),
        (where[0], where[1], where[2]),
    )
    if len(_frames) >= _MAX_PLANS:
        _frames.clear()
    _frames[(m, eligs)] = frame
    return frame


class _Plan1:
    """:class:`_Plan` for one constrained class, in closed form: ``C(room, size)`` ways."""

    __slots__ = ("size", "target_slots", "total")

    def __init__(self, slot_sizes: Sequence[int], elig: tuple[int, ...], size: int) -> None:
        room = 0
        for j in elig:
            room += slot_sizes[j]
        self.size = size
        self.total = _BINOM[room][size] if size <= room else 0
        self.target_slots = ((elig,),)

    def draw(self, rng: random.Random) -> list[tuple[int, ...]]:
        return [(self.size,)]


class _Plan2:
    """:class:`_Plan` for two constrained classes, without its tables' generality.

    Class 0 may use the slots ``E0``, class 1 (the larger) ``E1``. Class 0's cards split
    between ``E0 & E1`` (``v`` of them) and ``E0 - E1``; the ways are
    ``C(A, v) C(B, n0 - v) C(R - v, n1)`` with A, B, R the room in ``E0 & E1``, ``E0 - E1``
    and ``E1``. It draws exactly as :class:`_Plan` does (the same groups, in the same
    order, and the same weights).
    """

    __slots__ = ("counts", "cums", "sizes", "target_slots", "total")

    def __init__(
        self,
        slot_sizes: tuple[int, ...],
        eligs: tuple[tuple[int, ...], ...],
        sizes: tuple[int, ...],
    ) -> None:
        e0, e1 = eligs
        n0, n1 = sizes
        both_l = []
        only_l = []
        a = b = room = 0
        for j in e0:
            if j in e1:
                both_l.append(j)
                a += slot_sizes[j]
            else:
                only_l.append(j)
                b += slot_sizes[j]
        for j in e1:
            room += slot_sizes[j]
        both = tuple(both_l)
        only = tuple(only_l)
        binom = _BINOM
        self.sizes = sizes
        self.cums: list[int] = []
        self.counts: list[tuple[int, ...]] = []
        total = 0
        if both and only:
            for v in range(max(0, n0 - b), min(n0, a) + 1):
                if n1 <= room - v:
                    total += binom[a][v] * binom[b][n0 - v] * binom[room - v][n1]
                    self.cums.append(total)
                    self.counts.append((v, n0 - v))
            self.target_slots: tuple[tuple[tuple[int, ...], ...], ...] = ((both, only), (e1,))
        else:
            v = n0 if both else 0  # every card of class 0 in E0 & E1, or none
            ok = n0 <= (a if both else b) and n1 <= room - v
            if ok:
                total = binom[a if both else b][n0] * binom[room - v][n1]
                self.cums.append(total)
                self.counts.append((n0,))
            self.target_slots = ((both or only,), (e1,))
        self.total = total

    def draw(self, rng: random.Random) -> list[tuple[int, ...]]:
        cums = self.cums
        i = 0 if len(cums) == 1 else bisect_right(cums, rng.randrange(cums[-1]))
        return [self.counts[i], (self.sizes[1],)]


def _splits(n: int, caps: list[int]) -> list[tuple[int, ...]]:
    """Return every way to put ``n`` cards into places with room ``caps`` (kept: plans for
    different deals ask for the same splits)."""
    key = (n, *caps)
    done = _split_store.get(key)
    if done is not None:
        return done
    if len(caps) == 1:
        done = [(n,)] if n <= caps[0] else []
    elif len(caps) == 2:
        a, b = caps
        done = [(v, n - v) for v in range(max(0, n - b), min(n, a) + 1)]
    else:
        done = []
        rest = sum(caps[1:])
        for v in range(max(0, n - rest), min(n, caps[0]) + 1):
            done.extend((v, *tail) for tail in _splits(n - v, caps[1:]))
    if len(_split_store) >= _MAX_PLANS:
        _split_store.clear()
    _split_store[key] = done
    return done


#: The splits kept, by ``(n, *caps)``.
_split_store: dict[tuple[int, ...], list[tuple[int, ...]]] = {}


class _Prepared:
    """A ``(pool, slots)`` made ready to deal: its plan, classes and free cards.

    ``classes`` holds per constrained class (in the plan's order) its cards' bits and the
    slots of each group it may use.
    """

    __slots__ = ("classes", "free", "free_bits", "plan", "sizes")

    def __init__(
        self, pool: CardMask, slots: tuple[tuple[int, CardMask], ...], sizes: list[int]
    ) -> None:
        self.sizes = sizes
        self.free = pool
        self.plan: _Plan | _Plan1 | _Plan2 | None = None
        self.classes: list[tuple[tuple[CardMask, ...], tuple[tuple[int, ...], ...]]] = []
        full = (1 << len(slots)) - 1
        # Split the pool by each slot's forbidden cards into classes keyed by the slots allowed.
        split: list[tuple[int, CardMask]] | None = None
        for j, (_, forbidden) in enumerate(slots):
            f = forbidden & pool
            if f:
                nxt = []
                for allowed, cards in split or ((full, pool),):
                    inside = cards & f
                    if inside:
                        if cards ^ inside:
                            nxt.append((allowed, cards ^ inside))
                        nxt.append((allowed & ~(1 << j), inside))
                    else:
                        nxt.append((allowed, cards))
                split = nxt
        if split is None:
            self.free_bits = mask_bits(pool)
            return
        free = 0
        cons: list[tuple[int, tuple[int, ...], CardMask]] = []
        for allowed, cards in split:
            if allowed == full:
                free = cards
            elif not allowed:
                raise _impossible()
            else:
                cons.append((cards.bit_count(), _SLOTS_OF[allowed], cards))
        self.free = free
        self.free_bits = mask_bits(free)
        plan: _Plan | _Plan1 | _Plan2 | None
        # One and two classes (most first resamples) are written out: a comprehension costs
        # more than the rest of their lines.
        if len(cons) == 1:
            n, elig, cards = cons[0]
            plan = _Plan1(sizes, elig, n)  # as cheap to make as to look up
            if not plan.total:
                raise _impossible()
            self.plan = plan
            self.classes = [(mask_bits(cards), plan.target_slots[0])]
            return
        cons.sort()  # the fewest cards first: the largest class is counted in closed form
        key: tuple[tuple[int, ...], tuple[tuple[int, ...], ...], tuple[int, ...]]
        if len(cons) == 2:
            (n0, e0, c0), (n1, e1, c1) = cons
            key = (tuple(sizes), (e0, e1), (n0, n1))
        else:
            key = (tuple(sizes), tuple([e for _, e, _ in cons]), tuple([n for n, _, _ in cons]))
        plan = _plans.get(key)
        if plan is None:
            plan = _Plan2(*key) if len(cons) == 2 else _PlanLast2(*key)
            if len(_plans) >= _MAX_PLANS:
                _plans.clear()
            _plans[key] = plan
        if not plan.total:
            raise _impossible()
        self.plan = plan
        where = plan.target_slots
        if len(cons) == 2:
            self.classes = [(mask_bits(c0), where[0]), (mask_bits(c1), where[1])]
        else:
            self.classes = [(mask_bits(cons[k][2]), where[k]) for k in range(len(cons))]


#: The slots in a bit set of slots, by the set.
_SLOTS_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(j for j in range(8) if a >> j & 1) for a in range(256)
)
_plans: dict[
    tuple[tuple[int, ...], tuple[tuple[int, ...], ...], tuple[int, ...]], _Plan | _Plan1 | _Plan2
] = {}
_structures: dict[
    tuple[int, tuple[tuple[int, ...], ...]],
    tuple[
        tuple[tuple[tuple[int, ...], ...], ...],
        tuple[tuple[int, ...], ...],
        tuple[tuple[tuple[int, int], ...], ...],
    ],
] = {}
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
        sizes = [size for size, _ in slots]
        if sum(sizes) != n:
            raise ImpossibleDealError(f"{n} unseen cards cannot fill slots of sizes {sizes}")
        prep = _Prepared(pool, key[1], sizes)
        if len(_prepared) >= _MAX_PREPARED:
            _prepared.clear()
        _prepared[key] = prep
    room = prep.sizes[:]
    out = [0] * len(room)
    plan = prep.plan
    if plan is not None:
        r = rng.random
        for (bits, groups), counts in zip(prep.classes, plan.draw(rng)):  # noqa: B905
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
                u = floor(r() * total)
                total -= 1
                g = 0
                while u >= left[g]:
                    u -= left[g]
                    g += 1
                left[g] -= 1
                split[g].append(b)
            for part, where in zip(split, groups):  # noqa: B905
                if part:
                    _place(part, where, room, out, r)
    if prep.free:
        _deal_free(prep.free, prep.free_bits, room, out, rng)
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
        u = floor(r() * total)
        total -= 1
        for j in slots:
            u -= room[j]
            if u < 0:
                break
        room[j] -= 1
        out[j] |= b


def _deal_free(
    cards: CardMask,
    bits: tuple[CardMask, ...],
    room: list[int],
    out: list[CardMask],
    rng: random.Random,
) -> None:
    """Deal ``cards`` (``bits``: one bit each) uniformly into the places ``room`` leaves."""
    # The largest share is dealt last: it takes what is left, with no draw.
    last = room.index(max(room))
    left = len(bits)
    if room[last] == left:
        out[last] |= cards
        return
    deck = list(bits)
    r = rng.random
    rest = cards
    for i, n in enumerate(room):
        if i == last or not n:
            continue
        m = 0
        for _ in range(n):
            k = floor(r() * left)
            left -= 1
            m |= deck[k]
            deck[k] = deck[left]
        out[i] |= m
        rest ^= m
    out[last] |= rest
