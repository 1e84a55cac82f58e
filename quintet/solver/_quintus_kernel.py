"""Quintus double-dummy search kernel (numba-compiled when available; see ``_jit``).

The value of a node is the quintus's card points from the tricks still to be
completed: -1 per five to ten and +10 per J/Q/K he wins, premiums in his tricks
counted as melded, and under nil the bonus as the hand would score it. The quintus
maximizes; the four others, together, minimize. Iterative alpha-beta with a
transposition table at trick boundaries, driven by MTD(f).

Nil is path-dependent: ``failed`` says the quintus has already won a J, Q, K or ace.
In the bidding variant a failed nil makes his whole hand worth 0, so the value of a
node that can still fail depends on the points ``cur + acc`` he has so far; such nodes
carry ``acc`` in their table key.

The table is keyed by a *canonical* form of the position (see ``canonical``): cards
that score alike and belong to no premium that can still be made are known only by
their order and owners, so positions that differ in such cards share an entry.

Arrays (int64 unless noted): hands [5]; trick [5]; tt_key [N, 6] (four suit words, a
word of leader/flags/acc, generation); tt_lo, tt_hi [N] int32; tt_move [N] int32, the
canonical code of the best card found at a trick's lead.
"""

from __future__ import annotations

import numpy as np

from quintet.solver._bits import msb, popcount
from quintet.solver._jit import jit

SUIT_MASK = np.array([0x1FFF << (13 * s) for s in range(4)], dtype=np.int64)
PIPS = sum(1 << (13 * s + r) for s in range(4) for r in range(3, 9))
FACES = sum(1 << (13 * s + r) for s in range(4) for r in (9, 10, 11))
BREAKERS = FACES | sum(1 << (13 * s + 12) for s in range(4))
INF = 1 << 20
MAXPLY = 41
#: Equivalence groups by rank: 1 = five to nine (straight), 2 = J Q K (court), 0 = alone.
NT = 4
#: Point classes by rank for the canonical form: 0 five to ten, 2 J Q K, 4 ace.
CLASS = np.array([0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 4], dtype=np.int64)
STRAIGHT = np.array([0x1F << (13 * s + 3) for s in range(4)], dtype=np.int64)
COURT = np.array([7 << (13 * s + 9) for s in range(4)], dtype=np.int64)


@jit
def premium(m: int) -> int:
    """Return the premium in a trick: court 10, straight 25, else 0."""
    for s in range(4):
        if (m >> (13 * s + 9)) & 7 == 7:
            return 10
        if (m >> (13 * s + 3)) & 0x1F == 0x1F:
            return 25
    return 0


@jit
def card_points(m: int) -> int:
    """Return the quintus's points for cards won: +10 per J/Q/K, -1 per five to ten."""
    return 10 * popcount(m & FACES) - popcount(m & PIPS)


@jit
def legal_mask(hand: int, trick: np.ndarray, tlen: int, first_lead: bool, trump: int) -> int:
    """Return the legal cards of ``hand`` (rulings.md, Quintus play)."""
    if tlen == 0:
        if first_lead and trump < NT:
            plain = hand & ~SUIT_MASK[trump]
            if plain:
                return int(plain)
        return hand
    follow = hand & SUIT_MASK[trick[0] // 13]
    return follow if follow else hand


@jit
def trick_winner(trick: np.ndarray, leader: int, trump: int) -> int:
    """Return the seat winning a complete trick of five cards."""
    best = trick[0]
    pos = 0
    for i in range(1, 5):
        c = trick[i]
        s = c // 13
        bs = best // 13
        if s == bs:
            if c > best:
                best = c
                pos = i
        elif s == trump:
            best = c
            pos = i
    return (leader + pos) % 5


@jit
def live_premiums(hands: np.ndarray, extra: int) -> int:
    """Return the cards of each straight and court that can still be made: all its
    cards in play, no two in one hand (``extra``, the cards of the current trick,
    count as in play). Other cards score only by their point class.
    """
    present = hands[0] | hands[1] | hands[2] | hands[3] | hands[4] | extra
    live = 0
    for s in range(4):
        for k in range(2):
            group = STRAIGHT[s] if k == 0 else COURT[s]
            if present & group == group:
                ok = True
                for p in range(5):
                    g = hands[p] & group
                    if g & (g - 1):
                        ok = False
                if ok:
                    live |= group
    return live


@jit
def canonical(hands: np.ndarray, w: int, key: np.ndarray) -> None:
    """Write the canonical key of a trick-boundary position into ``key[0:5]``.

    Per suit, the cards in play from low to high, each as its owner and its tag
    (its point class, +1 when it belongs to a premium that can still be made); the
    last word holds the leader and the path flags ``w``. Positions with the same key
    have the same value, whatever the cards' ranks.
    """
    live = live_premiums(hands, 0)
    for s in range(4):
        sh = 13 * s
        x = ((hands[0] | hands[1] | hands[2] | hands[3] | hands[4]) >> sh) & 0x1FFF
        seq = 1
        while x:
            low = x & -x
            x ^= low
            c = msb(low) + sh
            bit = 1 << c
            o = 0
            for p in range(1, 5):
                if hands[p] & bit:
                    o = p
            t = CLASS[c - sh] + (1 if live & bit else 0)
            seq = (seq << 6) | (o << 3) | t
        key[s] = seq
    key[4] = w


@jit
def move_code(hands: np.ndarray, c: int) -> int:
    """Return a card's canonical code: its suit and its order among the suit's cards."""
    s = c // 13
    all_cards = hands[0] | hands[1] | hands[2] | hands[3] | hands[4]
    return s * 16 + popcount(all_cards & SUIT_MASK[s] & ((1 << c) - 1))


@jit
def code_card(hands: np.ndarray, code: int) -> int:
    """Return the card a canonical code stands for in this position (-1 if none)."""
    s = code // 16
    k = code % 16
    x = (hands[0] | hands[1] | hands[2] | hands[3] | hands[4]) & SUIT_MASK[s]
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
def _order(
    hands: np.ndarray,
    p: int,
    q: int,
    legal: int,
    trick: np.ndarray,
    tlen: int,
    leader: int,
    trump: int,
    first: int,
    buf: np.ndarray,
    keys: np.ndarray,
) -> int:
    """Fill ``buf`` with one card per class of equivalent legal cards, best-first
    (``first``, the table's best card, before all).

    Two cards of one suit with no other player's card between them are equivalent
    when they score alike (both five to ten, or both J Q K) and neither belongs to a
    premium that can still be made: they win and lose alike.
    """
    played = 0
    for i in range(tlen):
        played |= 1 << trick[i]
    others = ((hands[0] | hands[1] | hands[2] | hands[3] | hands[4]) & ~hands[p]) | played
    live = live_premiums(hands, played)
    n = 0
    prev = -1
    x = legal
    while x:
        low = x & -x
        c = msb(low)
        x ^= low
        if (
            prev >= 0
            and c // 13 == prev // 13
            and CLASS[c % 13] < 4
            and CLASS[c % 13] == CLASS[prev % 13]
            and (live >> c) & 1 == 0
            and (live >> prev) & 1 == 0
            and (others & ((1 << c) - (1 << (prev + 1)))) == 0
        ):
            prev = c
            continue
        buf[n] = c
        n += 1
        prev = c
    if n < 2:
        return n
    winner_is_q = False
    best = -1
    if tlen > 0:
        best = trick[0]
        pos = 0
        for i in range(1, tlen):
            c = trick[i]
            if c // 13 == best // 13:
                if c > best:
                    best = c
                    pos = i
            elif c // 13 == trump:
                best = c
                pos = i
        winner_is_q = (leader + pos) % 5 == q
    for i in range(n):
        c = buf[i]
        value = 10 if (FACES >> c) & 1 else (-1 if (PIPS >> c) & 1 else 0)
        if tlen == 0:
            keys[i] = c % 13  # high cards first
        else:
            beats = (c // 13 == best // 13 and c > best) or (
                c // 13 == trump and best // 13 != trump
            )
            if p == q:
                keys[i] = 100 + value - c % 13 if beats else -value - c % 13
            elif winner_is_q:
                keys[i] = 100 - c % 13 if beats else -value * 3 - c % 13
            else:
                keys[i] = value * 3 - c % 13
        if c == first:
            keys[i] = 1 << 40
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
    q: int,
    trump: int,
    first0: bool,
    nil: int,
    failed0: bool,
    bidding: bool,
    cur: int,
    bonus: int,
    tt_key: np.ndarray,
    tt_lo: np.ndarray,
    tt_hi: np.ndarray,
    tt_move: np.ndarray,
    gen: int,
    stats: np.ndarray,
    max_nodes: int,
) -> int:
    """Return the value of the position within ``[alpha0, beta0]`` (fail-soft).

    Past ``max_nodes`` nodes (0: no limit) it gives up and sets ``stats[2]``.
    """
    size = tt_key.shape[0]
    f_trick = np.zeros((MAXPLY + 1, 5), dtype=np.int64)
    f_tlen = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_leader = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_ntr = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_failed = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_acc = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_alpha = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_beta = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_a0 = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_b0 = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_best = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_slot = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_bestc = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_key = np.zeros((MAXPLY + 1, 5), dtype=np.int64)
    f_n = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_k = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_sv = np.zeros(MAXPLY + 1, dtype=np.int64)
    f_moves = np.zeros((MAXPLY + 1, 8), dtype=np.int64)
    f_keys = np.zeros((MAXPLY + 1, 8), dtype=np.int64)
    nilb = nil > 0

    for i in range(tlen0):
        f_trick[0, i] = trick0[i]
    f_tlen[0] = tlen0
    f_leader[0] = leader0
    f_ntr[0] = ntr0
    f_failed[0] = 1 if failed0 else 0
    f_acc[0] = 0
    f_alpha[0] = alpha0
    f_beta[0] = beta0

    d = 0
    entering = True
    ret = 0
    while True:
        merge = True
        if entering:
            entering = False
            merge = False
            stats[0] += 1
            if max_nodes and stats[0] > max_nodes:
                stats[2] = 1
                return 0
            tlen = f_tlen[d]
            leader = f_leader[d]
            ntr = f_ntr[d]
            alpha = f_alpha[d]
            beta = f_beta[d]
            f_a0[d] = alpha
            f_b0[d] = beta
            f_slot[d] = -1
            first_card = -1
            done = False
            if tlen == 0:
                if ntr == 0:
                    # The hand is over: the nil bonus if nil held.
                    ret = bonus if nilb and f_failed[d] == 0 else 0
                    done = True
                elif bidding and nilb and f_failed[d] == 1:
                    ret = 0  # a failed bidding nil: nothing more counts
                    done = True
                else:
                    acc = f_acc[d] if (bidding and nilb) else 0
                    w = leader | (f_failed[d] << 3) | ((acc + 1024) << 4)
                    key = f_key[d]
                    canonical(hands, w, key)
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
                            first_card = code_card(hands, tt_move[slot])
            if done:
                if d == 0:
                    return ret
                d -= 1
                merge = True
            else:
                p = (leader + tlen) % 5
                first = first0 and ntr == ntr0 and tlen == 0 and p == q
                legal = legal_mask(hands[p], f_trick[d], tlen, first, trump)
                f_n[d] = _order(
                    hands, p, q, legal, f_trick[d], tlen, leader, trump, first_card,
                    f_moves[d], f_keys[d],
                )  # fmt: skip
                f_k[d] = 0
                f_best[d] = -INF if p == q else INF
                f_bestc[d] = -1

        if merge:
            tlen = f_tlen[d]
            p = (f_leader[d] + tlen) % 5
            c = f_moves[d, f_k[d]]
            hands[p] ^= 1 << c
            val = ret + f_sv[d]
            if p == q:
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
                f_k[d] = f_n[d]

        if f_k[d] < f_n[d]:
            tlen = f_tlen[d]
            leader = f_leader[d]
            ntr = f_ntr[d]
            p = (leader + tlen) % 5
            c = f_moves[d, f_k[d]]
            hands[p] ^= 1 << c
            f_trick[d, tlen] = c
            if tlen == 4:
                row = f_trick[d]
                w = trick_winner(row, leader, trump)
                m = 0
                for i in range(5):
                    m |= 1 << row[i]
                failed = f_failed[d]
                acc = f_acc[d]
                gain = 0
                if w == q and not (bidding and nilb and failed == 1):
                    gain = card_points(m) + premium(m)
                    if nilb and failed == 0 and m & BREAKERS:
                        failed = 1
                        if bidding:
                            # The whole hand is now worth 0 to the quintus.
                            gain = -(cur + acc)
                f_sv[d] = gain
                f_tlen[d + 1] = 0
                f_leader[d + 1] = w
                f_ntr[d + 1] = ntr - 1
                f_failed[d + 1] = failed
                f_acc[d + 1] = acc + gain
                f_alpha[d + 1] = f_alpha[d] - gain
                f_beta[d + 1] = f_beta[d] - gain
            else:
                f_sv[d] = 0
                for i in range(tlen + 1):
                    f_trick[d + 1, i] = f_trick[d, i]
                f_tlen[d + 1] = tlen + 1
                f_leader[d + 1] = leader
                f_ntr[d + 1] = ntr
                f_failed[d + 1] = f_failed[d]
                f_acc[d + 1] = f_acc[d]
                f_alpha[d + 1] = f_alpha[d]
                f_beta[d + 1] = f_beta[d]
            d += 1
            entering = True
            continue

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


@jit
def mtdf(
    hands: np.ndarray,
    trick: np.ndarray,
    tlen: int,
    leader: int,
    ntr: int,
    guess: int,
    q: int,
    trump: int,
    first: bool,
    nil: int,
    failed: bool,
    bidding: bool,
    cur: int,
    bonus: int,
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
        stats[1] += 1
        beta = g + 1 if g == lo else g
        g = search(
            hands, trick, tlen, leader, ntr, beta - 1, beta, q, trump, first, nil, failed,
            bidding, cur, bonus, tt_key, tt_lo, tt_hi, tt_move, gen, stats, max_nodes,
        )  # fmt: skip
        if stats[2]:
            return 0
        if g < beta:
            hi = g
        else:
            lo = g
    return g


@jit
def trick_end(
    row: np.ndarray,
    leader: int,
    q: int,
    trump: int,
    nil: int,
    failed: bool,
    bidding: bool,
    cur: int,
) -> tuple[int, int, bool]:
    """Return a completed trick's winner, what it gains the quintus (his points so far
    ``cur`` lost when it breaks a bidding nil) and whether nil has failed after it."""
    w = trick_winner(row, leader, trump)
    m = 0
    for i in range(5):
        m |= 1 << row[i]
    gain = 0
    now_failed = failed
    if w == q and not (bidding and nil > 0 and failed):
        gain = card_points(m) + premium(m)
        if nil > 0 and not failed and m & BREAKERS:
            now_failed = True
            if bidding:
                gain = -cur
    return w, gain, now_failed


@jit
def child_value(
    hands: np.ndarray,
    trick: np.ndarray,
    tlen: int,
    leader: int,
    ntr: int,
    c: int,
    guess: int,
    q: int,
    trump: int,
    first: bool,
    nil: int,
    failed: bool,
    bidding: bool,
    cur: int,
    bonus: int,
    tt_key: np.ndarray,
    tt_lo: np.ndarray,
    tt_hi: np.ndarray,
    tt_move: np.ndarray,
    gen: int,
    stats: np.ndarray,
    max_nodes: int,
) -> int:
    """Return the exact value after the player to move plays card ``c``."""
    p = (leader + tlen) % 5
    hands[p] ^= 1 << c
    row = np.zeros(5, dtype=np.int64)
    for i in range(tlen):
        row[i] = trick[i]
    row[tlen] = c
    if tlen < 4:
        v = mtdf(
            hands, row, tlen + 1, leader, ntr, guess, q, trump, False, nil, failed,
            bidding, cur, bonus, tt_key, tt_lo, tt_hi, tt_move, gen, stats, max_nodes,
        )  # fmt: skip
    else:
        w, gain, now_failed = trick_end(row, leader, q, trump, nil, failed, bidding, cur)
        if bidding and nil > 0 and now_failed:
            v = gain
        elif ntr == 1:
            v = gain + (bonus if nil > 0 and not now_failed else 0)
        else:
            v = gain + mtdf(
                hands, row, 0, w, ntr - 1, guess - gain, q, trump, False, nil, now_failed,
                bidding, cur + gain, bonus, tt_key, tt_lo, tt_hi, tt_move, gen, stats, max_nodes,
            )  # fmt: skip
    hands[p] ^= 1 << c
    return v


@jit
def root_move(hands: np.ndarray, w: int, tt_key: np.ndarray, tt_move: np.ndarray, gen: int) -> int:
    """Return the best lead the table holds for a trick-boundary position, or -1."""
    key = np.zeros(5, dtype=np.int64)
    canonical(hands, w, key)
    slot = _slot(key, tt_key.shape[0])
    for i in range(5):
        if tt_key[slot, i] != key[i]:
            return -1
    if tt_key[slot, 5] != gen:
        return -1
    return code_card(hands, tt_move[slot])


@jit
def child_bound(
    hands: np.ndarray,
    trick: np.ndarray,
    tlen: int,
    leader: int,
    ntr: int,
    c: int,
    target: int,
    q: int,
    trump: int,
    first: bool,
    nil: int,
    failed: bool,
    bidding: bool,
    cur: int,
    bonus: int,
    tt_key: np.ndarray,
    tt_lo: np.ndarray,
    tt_hi: np.ndarray,
    tt_move: np.ndarray,
    gen: int,
    stats: np.ndarray,
    max_nodes: int,
) -> int:
    """Return a fail-soft bound on the value after the player to move plays card ``c``:
    at least ``target`` exactly when the value reaches it (one null-window search, as
    :func:`child_value` does the exact value with several)."""
    p = (leader + tlen) % 5
    hands[p] ^= 1 << c
    row = np.zeros(5, dtype=np.int64)
    for i in range(tlen):
        row[i] = trick[i]
    row[tlen] = c
    if tlen < 4:
        v = search(
            hands, row, tlen + 1, leader, ntr, target - 1, target, q, trump, False, nil,
            failed, bidding, cur, bonus, tt_key, tt_lo, tt_hi, tt_move, gen, stats, max_nodes,
        )  # fmt: skip
    else:
        w, gain, now_failed = trick_end(row, leader, q, trump, nil, failed, bidding, cur)
        if bidding and nil > 0 and now_failed:
            v = gain
        elif ntr == 1:
            v = gain + (bonus if nil > 0 and not now_failed else 0)
        else:
            v = gain + search(
                hands, row, 0, w, ntr - 1, target - 1 - gain, target - gain, q, trump, False,
                nil, now_failed, bidding, cur + gain, bonus, tt_key, tt_lo, tt_hi, tt_move,
                gen, stats, max_nodes,
            )  # fmt: skip
    hands[p] ^= 1 << c
    return v
