"""Perft for Quinto: the number of distinct legal play sequences from fixed positions.

As in python-chess's ``examples/perft``, the counts are pinned as literal numbers, so a
change in move generation fails loudly. Each count is also recomputed by a brute-force
reference written here from ``shared/spec/rulings.md`` over explicit lists of card codes
(no engine code), and both must agree.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace

import pytest

from quintet.actions import DOUBLE, PASS
from quintet.cards import cards_str, mask_of, parse_mask
from quintet.quinto import QuintoRules, QuintoState

# --------------------------------------------------------------------------- reference

RANKS = "23456789TJQKA"
SUITS = "SCDH"
SUIT_QUINT = {"S": 5, "C": 10, "D": 15, "H": 20}
JOKER = "JK"

Outcome = tuple[int, int, str]  # final score per side, and "0", "1", "tie" or "none"


def order(code: str) -> int:
    """Return a card's place in the single trick-taking sequence (2S lowest, AH highest)."""
    return SUITS.index(code[1]) * 13 + RANKS.index(code[0])


def quints(cards: list[str]) -> int:
    """Return the quint value of a trick or of the cachette."""
    v = 25 if JOKER in cards else 0
    for s, value in SUIT_QUINT.items():
        v += value * (("5" + s) in cards)
        v += value * (("A" + s) in cards and ("4" + s) in cards)
        v += value * (("2" + s) in cards and ("3" + s) in cards)
    return v


def legal(hand: list[str], trick: list[str], trick_no: int, j11: bool) -> list[str]:
    """Return the cards of ``hand`` that may be played to ``trick`` (the 1-based ``trick_no``)."""
    if not trick:
        return [JOKER] if hand == [JOKER] else [c for c in hand if c != JOKER]
    if trick[0] == JOKER:
        out = list(hand)
    else:
        follow = [c for c in hand if c != JOKER and c[1] == trick[0][1]]
        out = follow + [c for c in hand if c == JOKER] if follow else list(hand)
    if j11 and trick_no == 11 and JOKER in hand and len(hand) == 2:
        other = next(c for c in hand if c != JOKER)
        if order(other) > max(order(c) for c in trick if c != JOKER):
            out = [JOKER]
    return out


@dataclass(frozen=True)
class Pos:
    """A position in play, with every card written out."""

    hands: tuple[tuple[str, ...], ...]
    leader: int
    trick: tuple[str, ...] = ()
    cachette: tuple[str, ...] = ()
    score: tuple[int, int] = (0, 0)
    tricks_won: tuple[int, int] = (0, 0)
    target: int = 250
    j11: bool = False
    multiplier: int = 1
    lone_seat: int | None = None

    def state(self) -> QuintoState:
        """Return the engine's position."""
        variant = "partnership" if self.lone_seat is None else "dummy"
        rules = QuintoRules(variant=variant, target=self.target, joker_eleventh_trick=self.j11)
        return QuintoState.from_position(
            [parse_mask(list(h)) for h in self.hands],
            self.leader,
            rules,
            trick=[order(c) if c != JOKER else 52 for c in self.trick],
            cachette=parse_mask(list(self.cachette)),
            multiplier=self.multiplier,
            score=self.score,
            tricks_won=self.tricks_won,
            lone_seat=self.lone_seat,
        )


def ref_outcomes(pos: Pos) -> Counter[Outcome]:
    """Return, for every legal play sequence to the end of the hand, its outcome (counted)."""
    out: Counter[Outcome] = Counter()
    left = len(pos.hands[pos.leader]) + (1 if pos.trick else 0)
    trick_no = 13 - left

    def walk(
        hands: list[list[str]],
        plays: list[tuple[int, str]],
        leader: int,
        trick_no: int,
        score: list[int],
        won: list[int],
    ) -> None:
        if len(plays) == 4:
            winner = max((order(c), s) for s, c in plays if c != JOKER)[1]
            side = winner % 2
            won = won[:]
            won[side] += 1
            score = score[:]
            q = quints([c for _, c in plays])
            score[side] += q
            if q and score[side] >= pos.target:
                out[(score[0], score[1], str(side))] += 1
                return
            if trick_no < 12:
                walk(hands, [], winner, trick_no + 1, score, won)
                return
            won[side] += 1  # the cachette counts as a trick
            cq = quints(list(pos.cachette))
            score[side] += cq
            if cq and score[side] >= pos.target:
                out[(score[0], score[1], str(side))] += 1
                return
            a = score[0] + won[0] * 5 * pos.multiplier
            b = score[1] + won[1] * 5 * pos.multiplier
            if a >= pos.target or b >= pos.target:
                result = "tie" if a == b else ("0" if a > b else "1")
            else:
                result = "none"
            out[(a, b, result)] += 1
            return
        seat = (leader + len(plays)) % 4
        for c in legal(hands[seat], [c for _, c in plays], trick_no, pos.j11):
            rest = [h if i != seat else [x for x in h if x != c] for i, h in enumerate(hands)]
            walk(rest, [*plays, (seat, c)], leader, trick_no, score, won)

    first = [((pos.leader + i) % 4, c) for i, c in enumerate(pos.trick)]
    walk(
        [list(h) for h in pos.hands],
        first,
        pos.leader,
        trick_no,
        list(pos.score),
        list(pos.tricks_won),
    )
    return out


# --------------------------------------------------------------------------- engine side


def perft(state: QuintoState) -> int:
    """Return the number of distinct legal action sequences from ``state`` to the end."""
    if state.is_terminal():
        return 1
    return sum(perft(state.child(a)) for a in state.legal_actions())


def perft_depth(state: QuintoState, depth: int) -> int:
    """Return the number of legal action sequences of length ``depth`` (or ending sooner)."""
    if depth == 0 or state.is_terminal():
        return 1
    return sum(perft_depth(state.child(a), depth - 1) for a in state.legal_actions())


def outcomes(state: QuintoState) -> Counter[Outcome]:
    """Return the engine's outcome of every legal play sequence, counted."""
    if state.is_terminal():
        if state.game_winner is not None:
            result = str(state.game_winner)
        else:
            result = "tie" if state.tied else "none"
        return Counter({(state.score[0], state.score[1], result): 1})
    total: Counter[Outcome] = Counter()
    for a in state.legal_actions():
        total += outcomes(state.child(a))
    return total


# --------------------------------------------------------------------------- positions


def hands(*text: str) -> tuple[tuple[str, ...], ...]:
    """Return four hands from four strings of card codes."""
    return tuple(tuple(t.split()) for t in text)


# Three cards each at the 10th trick, East on lead: North's joker, following and discards.
JOKER3 = Pos(
    hands=hands("JK 4S 9H", "2S KS 5D", "AS 3H TD", "6C 5H QD"),
    leader=1,
    cachette=("2C", "3C", "AC", "7D", "8H"),
    tricks_won=(5, 4),
)

# The 11th trick with East holding the joker and KD: under joker_eleventh_trick he must
# throw the joker whenever KD would head the trick (any club lead), not under AD.
ELEVENTH = Pos(
    hands=hands("AD 4C", "JK KD", "3D 8S", "9D 2C"),
    leader=0,
    cachette=("5S", "6S", "7S", "8D", "TH"),
    tricks_won=(6, 4),
)

# Mid-trick: South led 7D; West must follow (9D or 3D), North may discard anything (5S
# is a quint), East must head the trick with QD.
MID_TRICK = Pos(
    hands=hands("4H 7C 5S", "2H QD 9C", "6H AC", "9D 3D 5C"),
    leader=2,
    trick=("7D",),
    cachette=("JK", "2D", "8C", "4S", "TS"),
    tricks_won=(4, 5),
)

# The same cards with East-West on 245 of 250: the first quint they take ends the game at
# once (a 5S discard on their first trick, for one), so fewer sequences.
NEAR_TARGET = replace(MID_TRICK, score=(100, 245))

# JOKER3 from 205 to 200: the hand may end in a win for either side, by quints at once or
# after trick points, or in a tie at 270.
JOKER3_CLOSE = replace(JOKER3, score=(205, 200))

# JOKER3 in the extra hand after a tie at 260: the first quint taken wins the game.
JOKER3_TIED = replace(JOKER3, score=(260, 260))

# Four cards each, dummy variant (lone West, dummy East), doubled, with the joker.
DUMMY4 = Pos(
    hands=hands("AH 4H 7S 2D", "5C KC 3S JK", "9H 8H QC 6D", "2H TS 4D AS"),
    leader=3,
    cachette=("5H", "3H", "7H", "JH", "KH"),
    tricks_won=(4, 4),
    multiplier=2,
    lone_seat=3,
)

# North, void in spades, wins the 11th trick with AH whenever he plays it, keeping the
# joker: then, on lead at the 12th trick with the joker alone, he must lead it.
JOKER_LAST = Pos(
    hands=hands("JK AH", "3S 4S", "QH 5S", "6S 7S"),
    leader=2,
    cachette=("8S", "9S", "TS", "JS", "QS"),
    tricks_won=(5, 5),
)


PINNED = [
    pytest.param(JOKER3, 130, id="joker-3-cards"),
    pytest.param(ELEVENTH, 6, id="eleventh-trick-option-off"),
    pytest.param(replace(ELEVENTH, j11=True), 4, id="eleventh-trick-option-on"),
    pytest.param(MID_TRICK, 32, id="mid-trick"),
    pytest.param(NEAR_TARGET, 28, id="quint-reaches-target"),
    pytest.param(JOKER3_CLOSE, 130, id="close-to-target"),
    pytest.param(JOKER3_TIED, 15, id="tied-past-target"),
    pytest.param(DUMMY4, 8696, id="dummy-4-cards-doubled"),
    pytest.param(JOKER_LAST, 16, id="joker-led-last"),
]


@pytest.mark.parametrize(("pos", "count"), PINNED)
def test_perft_of_endgames(pos: Pos, count: int) -> None:
    """The engine's sequence count equals the brute-force reference and the pinned number."""
    reference = sum(ref_outcomes(pos).values())
    assert perft(pos.state()) == reference
    assert reference == count


@pytest.mark.parametrize(("pos", "count"), PINNED)
def test_outcomes_of_endgames(pos: Pos, count: int) -> None:
    """Every sequence ends with the score and result the reference computes."""
    expected = ref_outcomes(pos)
    assert outcomes(pos.state()) == expected
    assert sum(expected.values()) == count


def test_joker_eleventh_trick_removes_sequences() -> None:
    """The option only removes choices, and here it removes some."""
    off = perft(ELEVENTH.state())
    on = perft(replace(ELEVENTH, j11=True).state())
    assert on < off


def test_quint_reaching_the_target_cuts_the_hand_short() -> None:
    """Near the target, sequences stop at the winning quint: fewer of them."""
    assert perft(NEAR_TARGET.state()) < perft(MID_TRICK.state())
    assert {r for _, _, r in outcomes(NEAR_TARGET.state())} == {"1"}


def test_leaf_outcomes_close_to_the_target() -> None:
    """The distinct final scores and results of JOKER3_CLOSE, each with its sequence count."""
    got = outcomes(JOKER3_CLOSE.state())
    assert got == ref_outcomes(JOKER3_CLOSE)
    assert dict(got) == {
        (205, 250, "1"): 4,
        (205, 260, "1"): 16,
        (205, 265, "1"): 14,
        (220, 250, "1"): 10,
        (220, 255, "1"): 8,
        (225, 250, "1"): 4,
        (225, 255, "1"): 4,
        (270, 275, "1"): 6,
        (250, 215, "0"): 2,
        (250, 225, "0"): 12,
        (255, 225, "0"): 16,
        (265, 205, "0"): 12,
        (275, 265, "0"): 2,
        (270, 270, "tie"): 20,
    }
    assert len(got) == 14


def joker_leads(state: QuintoState) -> int:
    """Return the number of play sequences from ``state`` in which the joker is led."""
    if state.is_terminal():
        return 0
    total = 0
    for a in state.legal_actions():
        child = state.child(a)
        if a == 52 and not state.trick:
            assert state.legal_actions() == (52,), "a lone joker must be led"
            total += perft(child)
        else:
            total += joker_leads(child)
    return total


def test_joker_is_led_when_it_is_the_last_card() -> None:
    """In JOKER_LAST, North wins the 11th trick with AH in 8 of 16 sequences, then leads JK."""
    assert joker_leads(JOKER_LAST.state()) == 8


# --------------------------------------------------------------------------- from a deal


def ref_doubling_sequences(sides: list[int]) -> int:
    """Return the number of doubling-round sequences for turns taken by ``sides`` in order."""

    def walk(i: int, multiplier: int, doubler: int | None) -> int:
        if i == len(sides):
            return 1
        total = walk(i + 1, multiplier, doubler)  # pass
        if multiplier == 1:
            total += walk(i + 1, 2, sides[i])
        elif multiplier == 2 and doubler != sides[i]:
            total += walk(i + 1, 4, doubler)
        return total

    return walk(0, 1, None)


def ref_first_two_cards(hands: list[list[str]], leader: int) -> tuple[int, int]:
    """Return the number of legal first leads, and of first leads with the reply to them."""
    leads = legal(hands[leader], [], 1, False)
    follower = hands[(leader + 1) % 4]
    return len(leads), sum(len(legal(follower, [c], 1, False)) for c in leads)


@pytest.mark.parametrize(
    ("variant", "lone_seat", "dealer", "sides", "counts"),
    [
        ("partnership", None, 0, [1, 0, 1, 0], (9, 99, 324)),
        ("dummy", 0, 0, [1, 1, 0], (6, 66, 216)),
        ("dummy", 0, 1, [1, 0, 1], (6, 72, 228)),
    ],
)
def test_perft_from_a_deal(
    variant: str, lone_seat: int | None, dealer: int, sides: list[int], counts: tuple[int, ...]
) -> None:
    """Sequences of the doubling round from a fixed deal (each seat acts once), then with
    the first lead, then with the reply to it (perft to depth n, n + 1, n + 2)."""
    pack = list(range(53))
    random.Random(2024).shuffle(pack)
    deal = [mask_of(pack[5 + 12 * i : 17 + 12 * i]) for i in range(4)]
    rules = QuintoRules(variant=variant)
    state = QuintoState.new(rules, dealer, deal, mask_of(pack[:5]), lone_seat=lone_seat)
    n = len(sides)
    got = tuple(perft_depth(state, d) for d in (n, n + 1, n + 2))
    doubling = ref_doubling_sequences(sides)
    codes = [cards_str(m).split() for m in state.hands]
    leads, replies = ref_first_two_cards(codes, (dealer + 1) % 4)
    assert got == (doubling, doubling * leads, doubling * replies)
    assert got == counts
    assert set(state.legal_actions()) == {PASS, DOUBLE}
