"""Quinto double-dummy search kernel.

Written once in the subset of Python that numba compiles (see ``_jit``): an
iterative fail-soft alpha-beta (no recursion, so the compiled code can be cached)
driven by MTD(f), with a transposition table at trick boundaries.

Values are in units of 5 points (every trick and quint value is a multiple of 5):
side 0's points minus side 1's from the node to the end of the hand. A trick is worth
``tv`` (the multiplier) plus its quints; the winner of the last trick adds ``cach``
(the cachette's quints and one more trick). Side 0 maximizes, side 1 minimizes.

The table is keyed by a *canonical* form of the position: within a suit, cards from
six to king carry no quint, so only their order and owners matter, not their ranks.
Positions that differ only in which plain cards were played share an entry.

Arrays (all int64 unless noted):
    hands        [4]       cards held, the current trick's cards removed
    trick        [4]       cards played to the current trick (``tlen`` of them)
    tt_key       [N, 6]    canonical key words k0..k4 and the generation
    tt_lo, tt_hi [N] int32 bounds on a trick-boundary position's value
    tt_move      [N] int32 canonical code of the best lead found there
"""

from __future__ import annotations

import numpy as np

from quintet.solver._bits import msb
from quintet.solver._jit import jit

JOKER = 52
JOKER_BIT = 1 << 52
NO_JOKER = JOKER_BIT - 1
SUIT_MASK = np.array([0x1FFF << (13 * s) for s in range(4)], dtype=np.int64)
A4_LOW = sum(1 << (13 * s + 2) for s in range(4))
TWO_LOW = sum(1 << (13 * s) for s in range(4))
SUIT_UNITS = np.array([1, 2, 3, 4], dtype=np.int64)  # quint values / 5
#: Cards whose identity matters beyond their order: twos to fives, aces, the joker.
QUINT_CARDS = sum(1 << (13 * s + r) for s in range(4) for r in (0, 1, 2, 3, 12)) | JOKER_BIT
PLAIN = NO_JOKER & ~QUINT_CARDS
INF = 1 << 20
MAXPLY = 49


@jit
def quint_units(m: int) -> int:
    """Return the quints in a set of cards, in units of 5 points."""
    v = 0
    for s in range(4):
        if m >> (13 * s + 3) & 1:
            v += SUIT_UNITS[s]
    p = (m & (m >> 10) & A4_LOW) | (m & (m >> 1) & TWO_LOW)
    if p:
        for s in range(4):
            if p >> (13 * s + 2) & 1:
                v += SUIT_UNITS[s]
            if p >> (13 * s) & 1:
                v += SUIT_UNITS[s]
    if m >> 52 & 1:
        v += 5
    return v


@jit
def legal_mask(hand: int, trick: np.ndarray, tlen: int, ntr: int, j11: bool) -> int:
    """Return the legal cards of ``hand`` given the trick so far (rulings.md, Play)."""
    if tlen == 0:
        if hand == JOKER_BIT:
            return hand
        return hand & NO_JOKER
    lead = trick[0]
    if lead == JOKER:
        return hand
    follow = hand & SUIT_MASK[lead // 13]
    legal = (follow | (hand & JOKER_BIT)) if follow else hand
    if j11 and ntr == 2 and hand & JOKER_BIT:
        other = hand ^ JOKER_BIT
        if other and (other & (other - 1)) == 0:
            best = -1
            for i in range(tlen):
                c = trick[i]
                if c != JOKER and c > best:
                    best = c
            if msb(other) > best:
                return JOKER_BIT
    return legal


@jit
def _owner(hands: np.ndarray, c: int) -> int:
    bit = 1 << c
    for p in range(4):
        if hands[p] & bit:
            return p
    return -1


@jit
def canonical(hands: np.ndarray, leader: int, key: np.ndarray) -> None:
    """Write the canonical key of a trick-boundary position into ``key[0:5]``."""
    for s in range(4):
        sh = 13 * s
        c0 = (hands[0] >> sh) & 0x1FFF
        c1 = (hands[1] >> sh) & 0x1FFF
        c2 = (hands[2] >> sh) & 0x1FFF
        c3 = (hands[3] >> sh) & 0x1FFF
        # Quint ranks (2 3 4 5 A) keep their identity: owner + 1 (0 = gone), 3 bits each.
        w = 0
        for i in range(5):
            r = 12 if i == 4 else i
            o = 0
            if c0 >> r & 1:
                o = 1
            elif c1 >> r & 1:
                o = 2
            elif c2 >> r & 1:
                o = 3
            elif c3 >> r & 1:
                o = 4
            w = (w << 3) | o
        # Plain cards (6 to K): only their order and owners, 2 bits each.
        n = 0
        seq = 0
        x = ((c0 | c1 | c2 | c3) >> 4) & 0xFF
        while x:
            low = x & -x
            x ^= low
            b = low << 4
            o = 0 if c0 & b else (1 if c1 & b else (2 if c2 & b else 3))
            seq = (seq << 2) | o
            n += 1
        key[s] = (w << 20) | (n << 16) | seq
    o = 0
    for p in range(4):
        if hands[p] & JOKER_BIT:
            o = p + 1
    key[4] = (o << 2) | leader


@jit
def move_code(hands: np.ndarray, c: int) -> int:
    """Return a card's canonical code: its suit and rank, or its order among plain cards."""
    if c == JOKER:
        return 255
    s = c // 13
    if (PLAIN >> c) & 1 == 0:
        return s * 32 + c % 13
    all_cards = hands[0] | hands[1] | hands[2] | hands[3]
    below = all_cards & PLAIN & SUIT_MASK[s] & ((1 << c) - 1)
    k = 0
    while below:
        below &= below - 1
        k += 1
    return s * 32 + 16 + k


@jit
def code_card(hands: np.ndarray, code: int) -> int:
    """Return the card a canonical code stands for in this position (-1 if none)."""
    if code == 255:
        return JOKER
    s = code // 32
    r = code % 32
    if r < 16:
        return 13 * s + r
    k = r - 16
    x = (hands[0] | hands[1] | hands[2] | hands[3]) & PLAIN & SUIT_MASK[s]
    while x:
        low = x & -x
        if k == 0:
            return msb(low)
        k -= 1
        x ^= low
    return -1


@jit
def _slot(key: np.ndarray, size: int) -> int:
    x = (
        (key[0] * 0x2545F491)
        ^ (key[1] * 0x6F4F2A35)
        ^ (key[2] * 0x1B873593)
        ^ (key[3] * 0x5BD1E995)
        ^ (key[4] * 0x27D4EB2F)
    )
    x ^= x >> 29
    x ^= x >> 17
    x ^= x >> 7
    return int(x & (size - 1))


@jit
def _sure(mine_a: int, mine_b: int, theirs: int) -> int:
    """Return tricks a side surely wins: cards above all the other side's, one per trick."""
    if theirs == 0:
        return 64
    top = msb(theirs)
    above = ~((1 << (top + 1)) - 1)
    ka = 0
    x = mine_a & above & NO_JOKER
    while x:
        x &= x - 1
        ka += 1
    kb = 0
    x = mine_b & above & NO_JOKER
    while x:
        x &= x - 1
        kb += 1
    return ka if ka > kb else kb


@jit
def _single_units(m: int) -> int:
    """Return the quints of the fives and the joker in ``m`` (units of 5)."""
    v = 0
    for s in range(4):
        if m >> (13 * s + 3) & 1:
            v += SUIT_UNITS[s]
    if m >> 52 & 1:
        v += 5
    return v


@jit
def _bounds(hands: np.ndarray, ntr: int, tv: int, cach: int) -> tuple[int, int]:
    """Return bounds (low, high) on a trick-boundary position's value.

    All the points left are the tricks, the cachette and the quints: the fives and
    the joker surely, a pair only if its two cards are in different hands. A card
    above every card of the other side wins its trick for its side (a higher card in
    the same trick can only be its partner's); one player's such cards fall in
    different tricks.
    """
    union = hands[0] | hands[1] | hands[2] | hands[3]
    singles = _single_units(union)
    pairs = quint_units(union) - singles
    for pp in range(4):
        pairs -= quint_units(hands[pp]) - _single_units(hands[pp])
    base = ntr * tv + cach + singles
    most = base + pairs
    side0 = (hands[0] | hands[2]) & NO_JOKER
    side1 = (hands[1] | hands[3]) & NO_JOKER
    s0 = _sure(hands[0], hands[2], side1)
    s1 = _sure(hands[1], hands[3], side0)
    lo = base if s0 >= ntr else 2 * s0 * tv - most
    hi = -base if s1 >= ntr else most - 2 * s1 * tv
    return lo, hi


@jit
def _gen_moves(
    hands: np.ndarray,
    p: int,
    legal: int,
    trick: np.ndarray,
    tlen: int,
    leader: int,
    first: int,
    buf: np.ndarray,
    keys: np.ndarray,
) -> int:
    """Fill ``buf`` with one card per class of equivalent legal cards, best-first."""
    others = (hands[0] | hands[1] | hands[2] | hands[3]) & ~hands[p]
    for i in range(tlen):
        others |= 1 << trick[i]
    # Plain cards of one suit with no other player's card between them win and lose
    # alike and carry no quint: one of them stands for all.
    n = 0
    prev = -1
    x = legal
    while x:
        low = x & -x
        c = msb(low)
        x ^= low
        if (
            prev >= 0
            and (PLAIN >> c) & 1
            and (PLAIN >> prev) & 1
            and c // 13 == prev // 13
            and (others & ((1 << c) - (1 << (prev + 1)))) == 0
        ):
            prev = c
            continue
        buf[n] = c
        n += 1
        prev = c
    if n < 2:
        return n
    if tlen == 0:
        omax = msb(others & NO_JOKER) if others & NO_JOKER else -1
        for i in range(n):
            c = buf[i]
            # Cards that win their suit first, then the rest high to low.
            sm = others & SUIT_MASK[c // 13] if c != JOKER else 0
            if c > omax:
                keys[i] = 300 + c
            elif c != JOKER and (sm == 0 or c > msb(sm)):
                keys[i] = 100 + c
            else:
                keys[i] = c
    else:
        best = -1
        wpos = 0
        for i in range(tlen):
            c = trick[i]
            if c != JOKER and c > best:
                best = c
                wpos = i
        partner_wins = ((leader + wpos) & 1) == (p & 1)
        last = tlen == 3
        for i in range(n):
            c = buf[i]
            if c == JOKER:
                keys[i] = 300 if partner_wins else -300
            elif partner_wins:
                # Partner holds the trick: feed it a five, else keep high cards.
                if c % 13 == 3:
                    keys[i] = 250
                else:
                    keys[i] = -c if last or c < best else -c - 100
            elif c > best:
                keys[i] = 200 - c  # the cheapest winner first
            elif c % 13 == 3:
                keys[i] = -c - 100  # never feed the opponents a five
            else:
                keys[i] = -c  # else the lowest card
    for i in range(n):
        if buf[i] == first:
            keys[i] = 1000
    for i in range(1, n):
        k = keys[i]
        c = buf[i]
        j = i - 1
        while j >= 0 and keys[j] < k:
            keys[j + 1] = keys[j]
            buf[j + 1] = buf[j]
            j -= 1
        keys[j + 1] = k
        buf[j + 1] = c
    return n


@jit
def search(
    hands: np.ndarray,
    trick0: np.ndarray,
    tlen0: int,
    leader0: int,
    ntr0: int,
    alpha0: int,
    beta0: int,
    tv: int,
    cach: int,
    j11: bool,
    tt_key: np.ndarray,
    tt_lo: np.ndarray,
    tt_hi: np.ndarray,
    tt_move: np.ndarray,
    gen: int,
    stats: np.ndarray,
    max_nodes: int,
) -> int:
    """Return the value of the position within ``[alpha0, beta0]`` (fail-soft).

    ``hands`` is restored on return. ``stats[0]`` counts nodes; past ``max_nodes``
    (0: no limit) the search gives up, sets ``stats[4]`` and leaves ``hands`` as it was
    at that moment.
    """
    size = tt_key.shape[0]
    # Per-ply frames.
    f_trick = np.zeros((MAXPLY + 1, 4), dtype=np.int64)
    f_tlen = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_leader = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_ntr = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_alpha = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_beta = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_a0 = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_b0 = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_best = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_bestc = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_slot = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_n = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_k = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_sv = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_moves = np.zeros((MAXPLY + 1, 13), dtype=np.int64)
    f_keys = np.zeros((MAXPLY + 1, 13), dtype=np.int64)
    f_key = np.zeros((MAXPLY + 1, 5), dtype=np.int64)

    for i in range(tlen0):
        f_trick[0, i] = trick0[i]
    f_tlen[0] = tlen0
    f_leader[0] = leader0
    f_ntr[0] = ntr0
    f_alpha[0] = alpha0
    f_beta[0] = beta0

    d = 0
    entering = True
    ret = 0  # the value a finished child hands to its parent
    while True:
        if entering:
            entering = False
            stats[0] += 1
            if max_nodes and stats[0] > max_nodes:
                stats[4] = 1
                return 0
            tlen = f_tlen[d]
            leader = f_leader[d]
            ntr = f_ntr[d]
            alpha = f_alpha[d]
            beta = f_beta[d]
            f_a0[d] = alpha
            f_b0[d] = beta
            f_slot[d] = -1
            first = -1
            done = False
            if tlen == 0:
                if ntr == 1:
                    # The last trick plays itself.
                    m = 0
                    top = -1
                    w = leader
                    for i in range(4):
                        pp = (leader + i) & 3
                        c = msb(hands[pp])
                        m |= 1 << c
                        if c != JOKER and c > top:
                            top = c
                            w = pp
                    v = tv + quint_units(m) + cach
                    ret = v if (w & 1) == 0 else -v
                    done = True
                else:
                    stats[3] += 1
                    key = f_key[d]
                    canonical(hands, leader, key)
                    slot = _slot(key, size)
                    f_slot[d] = slot
                    if (
                        tt_key[slot, 5] == gen
                        and tt_key[slot, 0] == key[0]
                        and tt_key[slot, 1] == key[1]
                        and tt_key[slot, 2] == key[2]
                        and tt_key[slot, 3] == key[3]
                        and tt_key[slot, 4] == key[4]
                    ):
                        lo = tt_lo[slot]
                        hi = tt_hi[slot]
                        if lo >= beta:
                            ret = lo
                            done = True
                        elif hi <= alpha:
                            ret = hi
                            done = True
                        else:
                            if lo > alpha:
                                alpha = lo
                            if hi < beta:
                                beta = hi
                            f_alpha[d] = alpha
                            f_beta[d] = beta
                            first = code_card(hands, tt_move[slot])
                    if not done:
                        lo, hi = _bounds(hands, ntr, tv, cach)
                        if hi <= alpha:
                            ret = hi
                            done = True
                        elif lo >= beta:
                            ret = lo
                            done = True
            if done:
                # Hand the value to the parent.
                if d == 0:
                    return ret
                d -= 1
                _undo_and_merge = True
            else:
                p = (leader + tlen) & 3
                legal = legal_mask(hands[p], f_trick[d], tlen, ntr, j11)
                f_n[d] = _gen_moves(
                    hands, p, legal, f_trick[d], tlen, leader, first, f_moves[d], f_keys[d]
                )
                f_k[d] = 0
                f_best[d] = -INF if (p & 1) == 0 else INF
                f_bestc[d] = -1
                _undo_and_merge = False
        else:
            _undo_and_merge = True

        if _undo_and_merge:
            # A child of frame d returned ``ret``: undo its move, merge its value.
            tlen = f_tlen[d]
            leader = f_leader[d]
            p = (leader + tlen) & 3
            c = f_moves[d, f_k[d]]
            hands[p] ^= 1 << c
            val = ret + f_sv[d]
            if (p & 1) == 0:
                if val > f_best[d]:
                    f_best[d] = val
                    f_bestc[d] = c
                    if val > f_alpha[d]:
                        f_alpha[d] = val
            else:
                if val < f_best[d]:
                    f_best[d] = val
                    f_bestc[d] = c
                    if val < f_beta[d]:
                        f_beta[d] = val
            f_k[d] += 1
            if f_alpha[d] >= f_beta[d]:
                if f_k[d] == 1:
                    stats[1] += 1
                else:
                    stats[2] += 1
                f_k[d] = f_n[d]  # cut-off

        # Next move of frame d, or finish it.
        if f_k[d] < f_n[d]:
            tlen = f_tlen[d]
            leader = f_leader[d]
            ntr = f_ntr[d]
            p = (leader + tlen) & 3
            c = f_moves[d, f_k[d]]
            hands[p] ^= 1 << c
            f_trick[d, tlen] = c
            if tlen == 3:
                row = f_trick[d]
                m = (1 << row[0]) | (1 << row[1]) | (1 << row[2]) | (1 << c)
                top = msb(m & NO_JOKER)
                w = leader
                for i in range(4):
                    if row[i] == top:
                        w = (leader + i) & 3
                v = tv + quint_units(m)
                sv = v if (w & 1) == 0 else -v
                f_sv[d] = sv
                if ntr == 1:
                    # The last trick: its winner takes the cachette; merge at once.
                    ret = cach if (w & 1) == 0 else -cach
                    entering = False
                    continue
                f_tlen[d + 1] = 0
                f_leader[d + 1] = w
                f_ntr[d + 1] = ntr - 1
                f_alpha[d + 1] = f_alpha[d] - sv
                f_beta[d + 1] = f_beta[d] - sv
            else:
                f_sv[d] = 0
                for i in range(tlen + 1):
                    f_trick[d + 1, i] = f_trick[d, i]
                f_tlen[d + 1] = tlen + 1
                f_leader[d + 1] = leader
                f_ntr[d + 1] = ntr
                f_alpha[d + 1] = f_alpha[d]
                f_beta[d + 1] = f_beta[d]
            d += 1
            entering = True
            continue

        # Frame d is finished: store it, hand its value up.
        best = f_best[d]
        slot = f_slot[d]
        if slot >= 0:
            key = f_key[d]
            if not (
                tt_key[slot, 5] == gen
                and tt_key[slot, 0] == key[0]
                and tt_key[slot, 1] == key[1]
                and tt_key[slot, 2] == key[2]
                and tt_key[slot, 3] == key[3]
                and tt_key[slot, 4] == key[4]
            ):
                for i in range(5):
                    tt_key[slot, i] = key[i]
                tt_key[slot, 5] = gen
                tt_lo[slot] = -INF
                tt_hi[slot] = INF
            if best <= f_a0[d]:
                if best < tt_hi[slot]:
                    tt_hi[slot] = best
            elif best >= f_b0[d]:
                if best > tt_lo[slot]:
                    tt_lo[slot] = best
            else:
                tt_lo[slot] = best
                tt_hi[slot] = best
            if f_bestc[d] >= 0:
                tt_move[slot] = move_code(hands, f_bestc[d])
        ret = best
        if d == 0:
            return int(ret)
        d -= 1
        # loop round: the parent merges ``ret``
        entering = False


@jit
def mtdf(
    hands: np.ndarray,
    trick: np.ndarray,
    tlen: int,
    leader: int,
    ntr: int,
    guess: int,
    tv: int,
    cach: int,
    j11: bool,
    tt_key: np.ndarray,
    tt_lo: np.ndarray,
    tt_hi: np.ndarray,
    tt_move: np.ndarray,
    gen: int,
    stats: np.ndarray,
    max_nodes: int,
) -> int:
    """Return the exact value by a series of null-window searches (MTD(f))."""
    g = guess
    lo = -INF
    hi = INF
    while lo < hi:
        beta = g + 1 if g == lo else g
        g = search(
            hands, trick, tlen, leader, ntr, beta - 1, beta, tv, cach, j11,
            tt_key, tt_lo, tt_hi, tt_move, gen, stats, max_nodes,
        )  # fmt: skip
        if stats[4]:
            return 0
        if g < beta:
            hi = g
        else:
            lo = g
    return g


@jit
def child_value(
    hands: np.ndarray,
    trick: np.ndarray,
    tlen: int,
    leader: int,
    ntr: int,
    c: int,
    guess: int,
    tv: int,
    cach: int,
    j11: bool,
    tt_key: np.ndarray,
    tt_lo: np.ndarray,
    tt_hi: np.ndarray,
    tt_move: np.ndarray,
    gen: int,
    stats: np.ndarray,
    max_nodes: int,
) -> int:
    """Return the exact value (side 0's view) after the player to move plays card ``c``."""
    p = (leader + tlen) & 3
    hands[p] ^= 1 << c
    row = np.zeros(4, dtype=np.int64)
    for i in range(tlen):
        row[i] = trick[i]
    row[tlen] = c
    if tlen < 3:
        v = mtdf(
            hands, row, tlen + 1, leader, ntr, guess, tv, cach, j11,
            tt_key, tt_lo, tt_hi, tt_move, gen, stats, max_nodes,
        )  # fmt: skip
    else:
        m = (1 << row[0]) | (1 << row[1]) | (1 << row[2]) | (1 << row[3])
        top = msb(m & NO_JOKER)
        w = leader
        for i in range(4):
            if row[i] == top:
                w = (leader + i) & 3
        t = tv + quint_units(m)
        sv = t if (w & 1) == 0 else -t
        if ntr == 1:
            v = sv + (cach if (w & 1) == 0 else -cach)
        else:
            v = sv + mtdf(
                hands, row, 0, w, ntr - 1, guess - sv, tv, cach, j11,
                tt_key, tt_lo, tt_hi, tt_move, gen, stats, max_nodes,
            )  # fmt: skip
    hands[p] ^= 1 << c
    return v


@jit
def root_move(
    hands: np.ndarray, leader: int, tt_key: np.ndarray, tt_move: np.ndarray, gen: int
) -> int:
    """Return the best lead the table holds for a trick-boundary position, or -1."""
    key = np.zeros(5, dtype=np.int64)
    canonical(hands, leader, key)
    slot = _slot(key, tt_key.shape[0])
    for i in range(5):
        if tt_key[slot, i] != key[i]:
            return -1
    if tt_key[slot, 5] != gen:
        return -1
    return code_card(hands, tt_move[slot])
