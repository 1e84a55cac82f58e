"""Quintus, one test per rule: rulebook 004, rulings.md "Quintus" (binding), docs/rules.md §14-23.

Positions are built with :meth:`QuintusState.new` (a whole deal) or
:meth:`QuintusState.from_position` (a few cards left) and played through the checked
``act``. Two whole deals are scripted card by card:

* ``RULEBOOK``: the quintus (seat 0 unrotated) plays sans atout, wins six tricks worth
  50 card points, and the teams take 8 ({1, 3}) and 13 ({2, 4}): the numbers of the
  rulebook's settlement example (bid 40, team A 8, team B 13).
* ``NIL_STRAIGHT``: the quintus wins only the first trick, 5-9 of spades, and loses every
  other: the rulebook's remark "38 - 5 + 25 = 58".

The property tests compare the engine with ``ref_points`` / ``ref_settle``, a naive
re-statement of the rules over the action history that shares no code with the engine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quintet.actions import (
    DECLINE,
    MELD_COURT,
    MELD_STRAIGHT,
    NIL_NONE,
    NIL_OPEN,
    PASS,
    SIGNAL_ASK,
    SIGNAL_DOWN,
    SIGNAL_UP,
    TRUMP_BASE,
    TRUMP_NT,
    Action,
    action_type,
    bid,
    is_bid,
    is_play,
    is_signal,
)
from quintet.cards import (
    QUINTUS_PACK,
    RANK_OF,
    SUIT_OF,
    CardMask,
    mask_cards,
    parse_card,
    parse_mask,
)
from quintet.errors import IllegalActionError
from quintet.game import TERMINAL
from quintet.quintus import (
    QuintusMatch,
    QuintusRules,
    QuintusState,
    random_deal,
    round_even,
    settle,
    teams_of,
)

BASE = QuintusRules()
BIDDING = QuintusRules(variant="bidding")
SIGNALS = (SIGNAL_UP, SIGNAL_DOWN, SIGNAL_ASK)
TRUMPS = tuple(range(TRUMP_BASE, TRUMP_NT + 1))
NILS = (NIL_NONE, NIL_NONE + 1, NIL_OPEN)

# The rulebook hand (module docstring). Seat 0 is the quintus when unrotated.
RULEBOOK = (
    "AD KD AS KS AC KC 5H 7H",
    "JD 7D 5S 6S 5C 6C AH 8H",
    "QD 8D 7S 7C KH JH 9H TH",
    "5D 9D 8S 9S 8C 9C QH 6H",
    "6D TD TS JS QS TC QC JC",
)
# Eight tricks, five cards each, in play order. The quintus leads and wins tricks 1-6;
# seat 1 wins trick 7 with AH (team {1,3}: AH JH QS 5H 6H = 8 points) and seat 2 wins
# trick 8 with KH (team {2,4}: KH QH JC 8H 7H = 13 points). Seat 2 discards 9H and TH
# when void in spades and clubs; seat 4 discards QS and JC when void in hearts.
RULEBOOK_TRICKS = (
    "AD JD QD 5D 6D",
    "KD 7D 8D 9D TD",
    "AS 5S 7S 8S TS",
    "KS 6S 9H 9S JS",
    "AC 5C 7C 8C TC",
    "KC 6C TH 9C QC",
    "5H AH JH 6H QS",
    "8H KH QH JC 7H",
)
RULEBOOK_PLAYS = " ".join(RULEBOOK_TRICKS).split()

# The nil hand: the quintus (seat 0) leads 9S, the others must follow with 5S 6S 7S 8S:
# a straight won by the quintus. His other cards are the lowest of their suits.
NIL_STRAIGHT = (
    "9S 5C 6C 5D 6D 5H 6H 7H",
    "5S TS JS 7C 8C 7D 8D 8H",
    "6S QS 9C TC 9D TD 9H TH",
    "7S KS JC QC JD QD JH QH",
    "8S AS KC AC KD AD KH AH",
)


# --------------------------------------------------------------------------- helpers


def masks(hands: Sequence[str]) -> list[CardMask]:
    """Return the masks of hands written as card codes."""
    return [parse_mask(h) for h in hands]


def rotate(hands: Sequence[str], k: int) -> list[CardMask]:
    """Return the deal with seat i's cards moved to seat i + k."""
    out = [0] * 5
    for i, h in enumerate(hands):
        out[(i + k) % 5] = parse_mask(h)
    return out


_TWO_WORDS = ("meld", "signal", "bid", "trump", "nil")


def act_all(state: QuintusState, actions: Sequence[str] | str) -> None:
    """Apply actions of the seat to act: a list, or text like ``"AD bid 40 meld court"``."""
    if isinstance(actions, str):
        words = actions.split()
        actions = []
        while words:
            w = words.pop(0)
            actions.append(f"{w} {words.pop(0)}" if w in _TWO_WORDS else w)
    for a in actions:
        state.act(a)


def plays(state: QuintusState, seat: int | None = None) -> list[Action]:
    """Return the card plays among ``seat``'s legal actions."""
    return [a for a in state.legal_actions(seat) if is_play(a)]


def cards(text: str) -> list[Action]:
    """Return the card numbers of card codes, in order."""
    return [parse_card(c) for c in text.split()]


def pos(
    hands: Sequence[str],
    quintus: int = 0,
    leader: int = 0,
    trump: str = "NT",
    *,
    nil: str = "none",
    contract: int | None = None,
) -> QuintusState:
    """Return a position in trick play (``QuintusState.from_position``), no trick begun."""
    return QuintusState.from_position(
        masks(hands), quintus, leader, trump, nil=nil, contract=contract
    )


def rulebook_hand(
    variant: str = "base", k: int = 0, nil: str = "none", trump: str = "NT", bid_: int = 40
) -> QuintusState:
    """Return the rulebook deal rotated by ``k`` with trump and nil declared."""
    if variant == "base":
        s = QuintusState.new(BASE, (1 + k) % 5, rotate(RULEBOOK, k))
    else:
        s = QuintusState.new(BIDDING, (4 + k) % 5, rotate(RULEBOOK, k))
        act_all(s, [f"bid {bid_}", "pass", "pass", "pass", "pass"])
    assert s.quintus == k % 5
    s.act(f"trump {trump}")
    s.act(f"nil {nil}")
    return s


def nil_straight_hand(
    variant: str, nil: str, meld: str = "meld straight", bid_: int = 38
) -> QuintusState:
    """Play the nil hand to its end: the quintus takes 5-9S, then plays low, others high."""
    if variant == "base":
        s = QuintusState.new(BASE, 1, masks(NIL_STRAIGHT))
    else:
        s = QuintusState.new(BIDDING, 4, masks(NIL_STRAIGHT))
        act_all(s, [f"bid {bid_}", "pass", "pass", "pass", "pass"])
    act_all(s, ["trump NT", f"nil {nil}", "9S", "5S", "6S", "7S", "8S"])
    assert s.pending_meld == "straight" and s.current_player() == 0
    s.act(meld)
    while not s.is_terminal():
        assert s.pending_meld is None
        ps = plays(s)
        s.act(min(ps) if s.current_player() == 0 else max(ps))
    return s


def random_step(state: QuintusState, rng: random.Random, signal_rate: float = 0.15) -> None:
    """Take one random legal action: now and then a signal by any seat allowed one."""
    actors = state.actors()
    signallers = [s for s in actors if any(is_signal(a) for a in state.legal_actions(s))]
    if signallers and rng.random() < signal_rate:
        seat = rng.choice(signallers)
        sig = [a for a in state.legal_actions(seat) if is_signal(a)]
        state.act(rng.choice(sig), seat)
        return
    seat = actors[0]
    legal = [a for a in state.legal_actions(seat) if not is_signal(a)]
    if PASS in legal:  # the auction: pass often, bid low mostly
        bids = legal[1:]
        if not bids or rng.random() < 0.55:
            state.act(PASS, seat)
        else:
            state.act(bids[0] if rng.random() < 0.7 else rng.choice(bids), seat)
        return
    state.act(rng.choice(legal), seat)


def play_out(state: QuintusState, rng: random.Random) -> None:
    """Play random legal actions until the hand is over."""
    while not state.is_terminal():
        random_step(state, rng)


def random_session(seed: int, rules: QuintusRules) -> QuintusMatch:
    """Play a whole session with random legal actions through the match layer."""
    rng = random.Random(seed)
    match = QuintusMatch(rules, first_dealer=rng.randrange(5))
    while not match.is_over():
        state = match.start_hand(rng=random.Random(rng.randrange(1 << 30)))
        while not state.is_terminal():
            actors = state.actors()
            before = len(state.history())
            # Act through the match, as a table would.
            probe = state.clone()
            random_step(probe, rng)
            seat, a = probe.history()[before]
            assert seat in actors
            match.act(a, seat)
    return match


# ------------------------------------------------------------- reference model


def ref_points(
    variant: str, history: Sequence[tuple[int, Action]]
) -> tuple[int, tuple[int, int, int], bool]:
    """Return (quintus, (quintus, team 0, team 1) card points, nil failed) of a whole hand.

    Naive re-statement of rulings.md over the history; the quintus is whoever names trump.
    """
    quintus = next(seat for seat, a in history if action_type(a) == "trump")
    trump = next(a for _, a in history if action_type(a) == "trump") - TRUMP_BASE
    nil = next(a for _, a in history if action_type(a) == "nil") - NIL_NONE
    team0 = {(quintus + 1) % 5, (quintus + 3) % 5}
    won: dict[int, list[int]] = {0: [], 1: [], 2: []}  # side 0 = quintus, 1/2 = teams
    premium = [0, 0, 0]
    failed = False
    trick: list[tuple[int, int]] = []

    def side(seat: int) -> int:
        return 0 if seat == quintus else 1 if seat in team0 else 2

    for seat, a in history:
        if is_play(a):
            trick.append((seat, a))
            if len(trick) == 5:
                led = SUIT_OF[trick[0][1]]
                trumps = [(RANK_OF[c], s) for s, c in trick if trump < 4 and SUIT_OF[c] == trump]
                follow = [(RANK_OF[c], s) for s, c in trick if SUIT_OF[c] == led]
                winner = max(trumps or follow)[1]
                won[side(winner)] += [c for _, c in trick]
                if nil and winner == quintus and any(RANK_OF[c] >= 9 for _, c in trick):
                    failed = True
                trick = []
        elif a == MELD_COURT:
            premium[side(seat)] += 10
        elif a == MELD_STRAIGHT:
            premium[side(seat)] += 25
    pips = [sum(1 for c in won[i] if 3 <= RANK_OF[c] <= 8) for i in range(3)]
    faces = [sum(1 for c in won[i] if 9 <= RANK_OF[c] <= 11) for i in range(3)]
    q = 10 * faces[0] - pips[0] + premium[0]
    t0 = 5 * faces[1] - pips[1] + premium[1]
    t1 = 5 * faces[2] - pips[2] + premium[2]
    if nil and not failed:
        q += {"base": (40, 70), "bidding": (38, 46)}[variant][nil - 1]
    if nil and failed:
        if variant == "base":
            t0 += (50, 70)[nil - 1]
            t1 += (50, 70)[nil - 1]
        else:
            q = 0
    return quintus, (q, t0, t1), failed


def ref_round(x: Fraction) -> int:
    """Nearest even number; an odd whole number (exactly between two evens) rounds up."""
    lo = 2 * ((x / 2).numerator // (x / 2).denominator)
    hi = lo + 2
    return hi if x - lo >= hi - x else lo


def ref_settle(bid_: int, qp: int, a: int, b: int, q: int) -> list[int]:
    """rulings.md Settlement, stated naively."""
    ca, cb = max(a, 0), max(b, 0)
    if ca + cb == 0:
        shares = [Fraction(bid_, 2), Fraction(bid_, 2)]
    else:
        shares = [Fraction(ca * bid_, ca + cb), Fraction(cb * bid_, ca + cb)]
    s = ref_round(min(shares))
    m = 1 if b > a else 0
    team = [((q + 1) % 5, (q + 3) % 5), ((q + 2) % 5, (q + 4) % 5)]
    out = [0] * 5
    if qp >= bid_:
        out[q] = bid_
        for seat in team[m]:
            out[seat] = -s // 2
        for seat in team[1 - m]:
            out[seat] = -(bid_ - s) // 2
    else:
        out[q] = -bid_
        for seat in team[1 - m]:
            out[seat] = s // 2
        for seat in team[m]:
            out[seat] = (bid_ - s) // 2
    return out


# --------------------------------------------------------------- pack and seats


def test_pack_is_40_cards_five_to_ace_of_four_suits() -> None:
    codes = [c for s in "SCDH" for c in (r + s for r in "56789TJQKA")]
    assert parse_mask(codes) == QUINTUS_PACK
    assert QUINTUS_PACK.bit_count() == 40
    assert not QUINTUS_PACK & parse_mask("2S 3C 4D 2H JK")


@pytest.mark.parametrize("seed", range(5))
def test_deal_gives_eight_cards_to_each_of_five_seats(seed: int) -> None:
    hands = random_deal(random.Random(seed))
    assert len(hands) == 5 and all(h.bit_count() == 8 for h in hands)
    union = 0
    for h in hands:
        assert not union & h
        union |= h
    assert union == QUINTUS_PACK
    s = QuintusState.new(BASE, 0, hands)
    assert s.observation(3).hand_sizes == (8, 8, 8, 8, 8)


@pytest.mark.parametrize(
    "hands",
    [
        [*RULEBOOK[:4], "6D TD TS JS QS TC QC 2H"],  # a card outside the pack
        [*RULEBOOK[:4], "6D TD TS JS QS TC QC JK"],
        [*RULEBOOK[:4], "6D TD TS JS QS TC QC"],  # seven cards
        [*RULEBOOK[:4], "6D TD TS JS QS TC QC 5H"],  # 5H twice
        list(RULEBOOK[:4]),  # four hands
    ],
)
def test_a_deal_must_be_the_40_card_pack_in_five_hands_of_eight(hands: list[str]) -> None:
    with pytest.raises(ValueError):
        QuintusState.new(BASE, 0, masks(hands))


@pytest.mark.parametrize("q", range(5))
def test_teams_are_q_plus_1_with_q_plus_3_and_q_plus_2_with_q_plus_4(q: int) -> None:
    team0, team1 = teams_of(q)
    assert set(team0) == {(q + 1) % 5, (q + 3) % 5}
    assert set(team1) == {(q + 2) % 5, (q + 4) % 5}
    # Partners sit across the table: two seats apart, never next to each other.
    for a, b in (team0, team1):
        assert (a - b) % 5 in (2, 3)
    s = QuintusState.new(BASE, (q + 1) % 5, random_deal(random.Random(q)))
    assert s.teams() == (team0, team1)


@pytest.mark.parametrize("dealer", range(5))
def test_base_quintus_is_the_dealers_right_hand_player(dealer: int) -> None:
    s = QuintusState.new(BASE, dealer, random_deal(random.Random(dealer)))
    assert s.quintus == (dealer + 4) % 5
    assert s.current_player() == s.quintus
    # The dealer plays with the third player (dealer + 2); the second with the fourth.
    team_of_dealer = next(t for t in s.teams() if dealer in t)
    assert set(team_of_dealer) == {dealer, (dealer + 2) % 5}
    assert {(dealer + 1) % 5, (dealer + 3) % 5} in [set(t) for t in s.teams()]


def test_the_deal_rotates_clockwise_from_hand_to_hand() -> None:
    rng = random.Random(11)
    match = QuintusMatch(QuintusRules(hands=7), first_dealer=3)
    dealers, quinti = [], []
    while not match.is_over():
        assert match.next_dealer() == (3 + len(match.hands)) % 5
        state = match.start_hand(rng=random.Random(rng.randrange(1 << 30)))
        dealers.append(state.dealer)
        quinti.append(state.quintus)
        play_out(state, rng)
    assert dealers == [3, 4, 0, 1, 2, 3, 4]
    assert quinti == [(d + 4) % 5 for d in dealers]


# ---------------------------------------------------------------- trump and nil


def test_trump_suit_or_nt_is_chosen_first_then_the_nil_kind() -> None:
    s = QuintusState.new(BASE, 1, masks(RULEBOOK))
    assert s.legal_actions() == TRUMPS
    assert s.observation(0).phase == "trump"
    s.act("trump H")
    assert s.trump_name() == "H" and s.nil_name() is None
    assert s.legal_actions() == NILS
    assert s.current_player() == 0
    s.act("nil none")
    assert s.nil_name() == "none" and s.observation(2).phase == "play"


@pytest.mark.parametrize("trump", ["S", "C", "D", "H", "NT"])
@pytest.mark.parametrize("nil", ["none", "closed", "open"])
def test_every_trump_and_nil_kind_may_be_chosen(trump: str, nil: str) -> None:
    s = rulebook_hand(trump=trump, nil=nil)
    obs = s.observation(3)
    assert (obs.trump, obs.nil, obs.quintus) == (trump, nil, 0)


def test_open_nil_shows_the_quintus_hand_to_every_seat_from_the_declaration_on() -> None:
    s = QuintusState.new(BASE, 1, masks(RULEBOOK))
    s.act("trump NT")
    assert [s.observation(v).hands[0] is None for v in range(5)] == [False] + [True] * 4
    s.act("nil open")
    for v in range(5):
        assert s.observation(v).hands[0] == s.hands[0]
    act_all(s, RULEBOOK_PLAYS[:13])  # the quintus has played cards since
    for v in range(5):
        assert s.observation(v).hands[0] == s.hands[0] != 0
        others = [w for w in range(1, 5) if w != v]
        assert all(s.observation(v).hands[w] is None for w in others)


def test_closed_nil_keeps_the_quintus_hand_hidden() -> None:
    s = rulebook_hand(nil="closed")
    act_all(s, RULEBOOK_PLAYS[:7])
    assert s.observation(0).hands[0] == s.hands[0]
    for v in range(1, 5):
        obs = s.observation(v)
        assert obs.hands[0] is None
        assert obs.hands[v] == s.hands[v]


def test_no_nil_keeps_the_quintus_hand_hidden() -> None:
    s = rulebook_hand(nil="none")
    assert all(s.observation(v).hands[0] is None for v in range(1, 5))


# ---------------------------------------------------------------------- play


@pytest.mark.parametrize("variant", ["base", "bidding"])
def test_the_quintus_leads_to_the_first_trick(variant: str) -> None:
    s = rulebook_hand(variant, k=2)
    assert s.current_player() == s.leader == 2
    assert plays(s) and all(plays(s, v) == [] for v in (0, 1, 3, 4))


def test_first_lead_is_a_non_trump_card() -> None:
    s = rulebook_hand(trump="H")
    assert plays(s) == sorted(cards("AD KD AS KS AC KC"))
    s = rulebook_hand(trump="D")
    assert plays(s) == sorted(cards("AS KS AC KC 5H 7H"))


def test_first_lead_may_be_a_trump_when_the_quintus_holds_only_trumps() -> None:
    deal = [
        "5H 6H 7H 8H 9H TH JH QH",
        "KH AH 5S 6S 7S 8S 9S TS",
        "JS QS KS AS 5C 6C 7C 8C",
        "9C TC JC QC KC AC 5D 6D",
        "7D 8D 9D TD JD QD KD AD",
    ]
    s = QuintusState.new(BASE, 1, masks(deal))
    act_all(s, "trump H nil none")
    assert plays(s) == sorted(cards(deal[0]))
    s.act("9H")
    assert s.trick_pairs() == ((0, parse_card("9H")),)


def test_first_lead_rule_holds_in_a_first_trick_position() -> None:
    hands = masks(["5H 6H AS", "7H 8H 5S", "9H TH 6S", "JH QH 7S", "KH AH 8S"])
    s = QuintusState.from_position(hands, 0, 0, "H", first_trick=True)
    assert plays(s) == [parse_card("AS")]
    s = QuintusState.from_position(hands, 0, 0, "H")  # a later trick: any card
    assert plays(s) == sorted(cards("5H 6H AS"))


def test_open_nil_hand_stays_known_when_unseen_cards_are_dealt_again() -> None:
    s = rulebook_hand(nil="open")
    act_all(s, RULEBOOK_PLAYS[:7])
    for v in range(1, 5):
        r = s.resample_from_infostate(v, random.Random(v))
        assert r.hands[0] == s.hands[0] and r.hands[v] == s.hands[v]
        assert r.observation(v) == s.observation(v)


def test_first_lead_under_nt_may_be_any_card() -> None:
    s = rulebook_hand(trump="NT")
    assert plays(s) == sorted(cards(RULEBOOK[0]))


def test_non_trump_lead_rule_is_for_the_first_trick_only() -> None:
    s = rulebook_hand(trump="H")
    act_all(s, RULEBOOK_TRICKS[0])  # all follow diamonds: the quintus wins with AD
    assert s.current_player() == 0 and s.tricks_played == 1
    assert parse_card("5H") in plays(s) and parse_card("7H") in plays(s)
    s.act("5H")
    assert s.trick_pairs() == ((0, parse_card("5H")),)


def test_a_player_must_follow_suit_if_able() -> None:
    s = rulebook_hand()
    s.act("AD")
    assert plays(s) == sorted(cards("JD 7D"))
    s.act("7D")
    assert plays(s) == sorted(cards("QD 8D"))


def test_a_player_void_in_the_suit_led_may_play_any_card() -> None:
    s = rulebook_hand()
    act_all(s, RULEBOOK_PLAYS[:17])  # trick 4: seat 2 holds no spade now
    assert s.current_player() == 2 and s.trick_pairs()[0][1] == parse_card("KS")
    assert plays(s) == list(mask_cards(s.hands[2])) == sorted(cards("7C KH JH 9H TH"))


def test_trumping_is_never_required() -> None:
    # Seat 1 is void in clubs and holds a trump; it may throw a diamond instead.
    s = pos(["9C 5S", "KH 5D", "5C 6D", "6C 7D", "7C 8D"], trump="H")
    s.act("9C")
    assert plays(s) == sorted(cards("KH 5D"))
    s.act("5D")
    act_all(s, "5C 6C 7C")
    assert s.leader == 0 and s.taken[0] == parse_mask("9C 5D 5C 6C 7C")


def test_the_highest_trump_wins_the_trick() -> None:
    s = pos(["AS", "5H", "KS", "9H", "QS"], trump="H")
    act_all(s, "AS 5H KS 9H QS")
    assert s.taken[3] == parse_mask("AS 5H KS 9H QS")
    assert s.is_terminal()


def test_without_trumps_the_highest_card_of_the_suit_led_wins() -> None:
    s = pos(["6C", "AS", "AD", "AH", "5C"], quintus=0, leader=4, trump="NT")
    act_all(s, "5C 6C AS AD AH")
    assert s.taken[0] == parse_mask("5C 6C AS AD AH")


def test_an_off_suit_non_trump_card_never_wins() -> None:
    # Trumps are hearts and nobody plays one: the ace of spades loses to the 6 of clubs.
    s = pos(["5C", "AS", "6C", "AD", "KD"], trump="H")
    act_all(s, "5C AS 6C AD KD")
    assert s.taken[2] == parse_mask("5C AS 6C AD KD")


def test_ace_is_high_in_every_suit() -> None:
    s = pos(["KS", "AS", "QS", "5S", "TS"], trump="S")
    act_all(s, "KS AS QS 5S TS")
    assert s.taken[1].bit_count() == 5


def test_the_winner_of_a_trick_leads_to_the_next() -> None:
    s = pos(["5C 5D", "6C 6D", "AC 7D", "7C 8D", "8C TD"], trump="NT")
    act_all(s, "5C 6C AC 7C 8C")
    assert s.current_player() == s.leader == 2
    assert plays(s) == [parse_card("7D")]
    assert all(plays(s, v) == [] for v in (0, 1, 3, 4))
    act_all(s, "7D 8D TD 5D 6D")
    assert s.taken[4] == parse_mask("7D 8D TD 5D 6D") and s.is_terminal()


def test_eight_tricks_are_played_in_clockwise_order() -> None:
    s = rulebook_hand(k=3)
    seen: list[int] = []
    for c in RULEBOOK_PLAYS:
        seen.append(s.current_player())
        s.act(c)
    for t in range(8):
        lead = seen[5 * t]
        assert seen[5 * t : 5 * t + 5] == [(lead + i) % 5 for i in range(5)]
    assert s.tricks_played == 8 and s.is_terminal()


# ------------------------------------------------------------------ premiums


def court_position(winner_team: bool = False) -> QuintusState:
    """Two cards each; trick 1 holds JC QC KC won by the quintus (or by seat 2); trick 2 the
    pips 5D 6D 7D 8D TD (no straight), won by seat 4."""
    if winner_team:
        return pos(["JC 5D", "QC 6D", "AC 7D", "KC 8D", "5C TD"], trump="NT")
    return pos(["AC 5D", "JC 6D", "QC 7D", "KC 8D", "5C TD"], trump="NT")


def test_court_jqk_of_one_suit_is_a_premium_of_10_for_the_winner() -> None:
    s = court_position()
    act_all(s, "AC JC QC KC 5C")
    assert s.pending_meld == "court"
    assert s.current_player() == 0 and s.actors() == (0,)
    assert s.legal_actions() == (MELD_COURT, DECLINE)
    before = s.points()[0]
    s.act("meld court")
    assert s.points()[0] == before + 10
    assert s.pending_meld is None and s.current_player() == 0


def test_court_need_not_be_of_the_suit_led() -> None:
    s = pos(["6D", "5D", "JC", "QC", "KC"], quintus=0, leader=1, trump="NT")
    act_all(s, "5D JC QC KC 6D")
    assert s.taken[0] == parse_mask("5D 6D JC QC KC")
    assert s.pending_meld == "court" and s.current_player() == 0


def test_straight_5_to_9_of_one_suit_is_a_premium_of_25() -> None:
    s = pos(["9S", "5S", "6S", "7S", "8S"], trump="NT")
    act_all(s, "9S 5S 6S 7S 8S")
    assert s.pending_meld == "straight" and s.legal_actions() == (MELD_STRAIGHT, DECLINE)
    s.act("meld straight")
    assert s.points()[0] == -5 + 25 and s.is_terminal()


@pytest.mark.parametrize("trick", ["6S 7S 8S 9S TS", "5S 6S 7S 8S TS", "5S 6S 7S 8S 9H"])
def test_a_ten_does_not_count_in_a_straight(trick: str) -> None:
    hands = [c for c in trick.split()]
    s = pos(hands, trump="NT")
    act_all(s, trick)
    assert s.pending_meld is None and s.is_terminal()
    assert s.legal_actions() == ()


def test_jqk_of_different_suits_is_no_court() -> None:
    s = pos(["AC", "JC", "QD", "KC", "5C"], trump="NT")
    act_all(s, "AC JC QD KC 5C")
    assert s.pending_meld is None and s.is_terminal()


def test_a_premium_is_claimed_only_by_the_winner_right_after_the_trick() -> None:
    s = court_position()
    act_all(s, "AC JC QC KC 5C")
    for v in range(1, 5):
        assert s.legal_actions(v) == ()
        with pytest.raises(IllegalActionError):
            s.act("meld court", seat=v)
    with pytest.raises(IllegalActionError):
        s.act("5D")  # nothing else happens before the decision
    s.act("decline")
    # The chance has passed: the next trick starts and the premium cannot be claimed.
    assert s.current_player() == 0 and s.pending_meld is None
    for a in ("meld court", "decline"):
        with pytest.raises(IllegalActionError):
            s.act(a)
    act_all(s, "5D 6D 7D 8D TD")
    assert s.is_terminal() and s.points() == (30 - 1, 0, -5)


def test_a_declined_premium_is_lost() -> None:
    declined = court_position()
    act_all(declined, "AC JC QC KC 5C decline 5D 6D 7D 8D TD")
    melded = court_position()
    act_all(melded, "AC JC QC KC 5C meld court 5D 6D 7D 8D TD")
    assert declined.points()[0] + 10 == melded.points()[0]
    assert declined.scores()[0] == 30 - 1 and melded.scores()[0] == 30 - 1 + 10


def test_a_premium_won_by_a_team_player_counts_for_his_team() -> None:
    s = court_position(winner_team=True)
    act_all(s, "JC QC AC KC 5C")
    assert s.current_player() == 2 and s.pending_meld == "court"
    s.act("meld court")
    act_all(s, "7D 8D TD 5D 6D")  # seat 2 leads 7D; seat 4 wins with TD
    # Team {2, 4}: JC QC KC (+15) - 5C - five diamonds (-6) + court 10.
    assert s.points() == (0, 0, 15 - 6 + 10)
    assert s.scores() == [0, 0, 19, 0, 19]


def test_a_premium_melded_on_the_last_trick_ends_the_hand_after_the_decision() -> None:
    s = pos(["9S", "5S", "6S", "7S", "8S"], trump="NT")
    act_all(s, "9S 5S 6S 7S 8S")
    assert not s.is_terminal() and s.current_player() == 0
    s.act("decline")
    assert s.is_terminal() and s.current_player() == TERMINAL
    assert s.points() == (-5, 0, 0)


# ----------------------------------------------------------------------- nil


@pytest.mark.parametrize("breaker", ["JD", "QD", "KD", "AD"])
def test_nil_fails_when_the_quintus_wins_a_trick_holding_a_j_q_k_or_ace(breaker: str) -> None:
    s = pos(["9C", breaker, "5C", "6C", "7C"], trump="NT", nil="closed")
    act_all(s, f"9C {breaker} 5C 6C 7C")
    assert s.nil_failed and s.is_terminal()
    face = 0 if breaker == "AD" else 10
    # Base game: the quintus counts his cards; each team gets +50.
    assert s.points() == (face - 4, 50, 50)


def test_pip_cards_do_not_break_nil() -> None:
    s = pos(["9C", "TD", "5C", "6C", "7C"], trump="NT", nil="closed")
    act_all(s, "9C TD 5C 6C 7C")
    assert not s.nil_failed and s.is_terminal()
    assert s.points() == (-5 + 40, 0, 0)


def test_nil_is_not_broken_by_faces_won_by_others() -> None:
    s = pos(["5C", "AC", "KC", "QC", "JD"], trump="NT", nil="open")
    act_all(s, "5C AC KC QC JD")
    assert not s.nil_failed and s.points() == (70, -1 + 5 + 5 + 5, 0)


def test_play_continues_to_the_last_trick_after_nil_fails() -> None:
    s = rulebook_hand(nil="closed")
    act_all(s, RULEBOOK_TRICKS[0])  # the quintus wins AD JD QD: nil fails at once
    assert s.nil_failed and not s.is_terminal()
    assert s.current_player() == 0
    act_all(s, RULEBOOK_PLAYS[5:])
    assert s.tricks_played == 8 and s.is_terminal()


# ------------------------------------------------------------------ base scoring


def test_base_scoring_of_the_rulebook_hand() -> None:
    s = rulebook_hand()
    act_all(s, RULEBOOK_PLAYS)
    # Quintus: JD QD KD KS JS QC KC = 7 x 10, twenty pips -20, three aces 0.
    assert s.taken[0].bit_count() == 30
    assert s.points() == (70 - 20, 8, 13)
    assert s.scores() == [50, 8, 13, 8, 13]
    assert s.made() is None and s.contract is None


def test_base_quintus_counts_minus_1_per_pip_plus_10_per_face_and_0_per_ace() -> None:
    s = pos(["AS", "TS", "KD", "5H", "AC"], trump="NT")
    act_all(s, "AS TS KD 5H AC")
    assert s.points() == (-1 + 10 - 1 + 0 + 0, 0, 0)


def test_base_team_counts_minus_1_per_pip_plus_5_per_face_and_0_per_ace() -> None:
    s = pos(["5S", "TS", "KS", "JD", "AS"], trump="NT")  # seat 4 (team 1) wins
    act_all(s, "5S TS KS JD AS")
    assert s.points() == (0, 0, -2 + 5 + 5 + 0)
    s = pos(["5S", "AS", "KS", "QD", "AD"], trump="NT")  # seat 1 (team 0) wins
    act_all(s, "5S AS KS QD AD")
    assert s.points() == (0, -1 + 10, 0)


@pytest.mark.parametrize(("nil", "bonus"), [("closed", 40), ("open", 70)])
def test_base_nil_made_scores_40_or_70_for_open(nil: str, bonus: int) -> None:
    s = nil_straight_hand("base", nil)
    assert not s.nil_failed
    assert s.taken[0] == parse_mask("5S 6S 7S 8S 9S")
    assert s.points()[0] == -5 + 25 + bonus
    assert s.scores()[0] == -5 + 25 + bonus


@pytest.mark.parametrize(("nil", "bonus"), [("closed", 50), ("open", 70)])
def test_base_failed_nil_gives_each_team_50_or_70_for_open(nil: str, bonus: int) -> None:
    s = rulebook_hand(nil=nil)
    act_all(s, RULEBOOK_PLAYS)
    assert s.nil_failed
    assert s.points() == (50, 8 + bonus, 13 + bonus)
    assert s.scores() == [50, 8 + bonus, 13 + bonus, 8 + bonus, 13 + bonus]


@pytest.mark.parametrize("k", range(5))
def test_both_team_members_get_the_teams_points(k: int) -> None:
    s = rulebook_hand(k=k)
    act_all(s, RULEBOOK_PLAYS)
    sc = s.scores()
    (a1, a2), (b1, b2) = teams_of(k)
    assert sc[k] == 50
    assert sc[a1] == sc[a2] == 8
    assert sc[b1] == sc[b2] == 13


# ------------------------------------------------------------------- signals


def test_any_non_quintus_seat_may_signal_before_the_first_lead() -> None:
    s = rulebook_hand()
    assert s.actors() == (0, 1, 2, 3, 4)
    assert not [a for a in s.legal_actions(0) if is_signal(a)]
    for v in range(1, 5):
        assert s.legal_actions(v) == SIGNALS


@pytest.mark.parametrize("signal", ["up", "down", "ask"])
def test_a_signal_is_a_public_action_that_never_changes_the_turn(signal: str) -> None:
    s = rulebook_hand()
    s.act(f"signal {signal}", seat=3)
    assert s.current_player() == 0 and s.turn == 0
    code = SIGNALS[("up", "down", "ask").index(signal)]
    assert s.history()[-1] == (3, code)
    for v in range(5):
        obs = s.observation(v)
        assert obs.signals == ((3, signal),)
        assert obs.history[-1] == (3, code)
        assert obs.current_player == 0


def test_the_player_to_play_may_signal_and_still_has_the_turn() -> None:
    s = rulebook_hand()
    s.act("AD")
    assert s.current_player() == 1
    assert set(SIGNALS) <= set(s.legal_actions(1))
    s.act("signal down")
    assert s.current_player() == 1 and s.history()[-1] == (1, SIGNAL_DOWN)
    assert s.legal_actions(1) == tuple(sorted(cards("JD 7D")))


def test_a_seat_signals_at_most_once_per_trick() -> None:
    s = rulebook_hand()
    s.act("signal up", seat=2)
    assert s.legal_actions(2) == ()
    for sig in ("signal up", "signal down", "signal ask"):
        with pytest.raises(IllegalActionError):
            s.act(sig, seat=2)


def test_several_seats_may_signal_in_the_same_trick() -> None:
    s = rulebook_hand()
    s.act("signal up", seat=2)
    s.act("AD")
    s.act("signal ask", seat=4)
    s.act("signal down", seat=1)
    s.act("signal up", seat=3)
    assert s.observation(0).signals == ((2, "up"), (4, "ask"), (1, "down"), (3, "up"))
    assert s.current_player() == 1 and len(s.trick) == 1


def test_a_seat_that_has_played_to_the_trick_may_not_signal() -> None:
    s = rulebook_hand()
    act_all(s, "AD JD")
    assert s.legal_actions(1) == ()
    with pytest.raises(IllegalActionError):
        s.act("signal up", seat=1)
    assert s.legal_actions(3) == SIGNALS  # seat 3 has not played yet


def test_the_quintus_never_signals() -> None:
    s = rulebook_hand()
    for _ in range(3):
        assert not [a for a in s.legal_actions(0) if is_signal(a)]
        with pytest.raises(IllegalActionError):
            s.act("signal up", seat=0)
        act_all(s, RULEBOOK_PLAYS[len(s.trick) : len(s.trick) + 1])
    assert 0 not in s.actors()[1:]


def test_signals_are_allowed_again_for_the_next_trick_before_its_lead() -> None:
    s = rulebook_hand()
    for v in range(1, 5):
        s.act("signal up", seat=v)
    act_all(s, RULEBOOK_TRICKS[0])
    assert s.tricks_played == 1 and not s.trick and s.current_player() == 0
    assert s.observation(1).signals == ()
    for v in range(1, 5):
        assert s.legal_actions(v) == SIGNALS
    s.act("signal ask", seat=4)
    assert s.current_player() == 0 and s.observation(2).signals == ((4, "ask"),)


def test_no_signal_during_the_auction_trump_or_nil_choice() -> None:
    s = QuintusState.new(BIDDING, 0, masks(RULEBOOK))
    checks = [s.clone()]
    act_all(s, "bid 40 pass pass pass pass")
    checks.append(s.clone())  # trump
    s.act("trump S")
    checks.append(s.clone())  # nil
    for st_ in checks:
        for v in range(5):
            assert not [a for a in st_.legal_actions(v) if is_signal(a)]
            with pytest.raises(IllegalActionError):
                st_.act("signal up", seat=v)
        assert len(st_.actors()) == 1
    s = QuintusState.new(BASE, 0, masks(RULEBOOK))
    with pytest.raises(IllegalActionError):
        s.act("signal up", seat=1)


def test_no_signal_while_a_meld_decision_is_pending() -> None:
    s = court_position()
    act_all(s, "AC JC QC KC 5C")
    for v in range(1, 5):
        assert s.legal_actions(v) == ()
        with pytest.raises(IllegalActionError):
            s.act("signal up", seat=v)
    s.act("meld court")
    assert s.legal_actions(3) == SIGNALS


def test_no_signal_after_the_last_card() -> None:
    s = rulebook_hand()
    act_all(s, RULEBOOK_PLAYS)
    assert s.actors() == ()
    for v in range(5):
        assert s.legal_actions(v) == ()
        with pytest.raises(IllegalActionError):
            s.act("signal up", seat=v)


def test_a_signal_may_come_in_the_last_trick_before_its_last_card() -> None:
    s = rulebook_hand()
    act_all(s, RULEBOOK_PLAYS[:38])
    assert s.current_player() == 4
    assert s.legal_actions(4)[-3:] == SIGNALS
    s.act("signal ask")
    act_all(s, RULEBOOK_PLAYS[38:])
    assert s.is_terminal()


def test_signals_reset_with_each_trick_in_a_position_started_mid_trick() -> None:
    # Regression: trick_signals() once counted plays modulo 5 from the position's start
    # rather than from the trick's lead, so a position begun mid-trick kept listing the
    # previous trick's signals.
    s = QuintusState.from_position(
        masks(["AS 5C", "9S 5D", "8S 6D", "6C", "7C"]),
        quintus=0,
        leader=3,
        trump="NT",
        trick=cards("KS QS"),
    )
    s.act("signal up", seat=2)
    act_all(s, "AS 9S 8S")  # trick complete: the quintus leads the last one
    assert s.current_player() == 0 and not s.trick
    assert s.legal_actions(2) == SIGNALS
    assert s.observation(1).signals == ()


# -------------------------------------------------------------------- session


@pytest.mark.parametrize(("n", "seed"), [(1, 0), (3, 1), (5, 2)])
def test_session_totals_are_the_sum_of_the_hand_scores(n: int, seed: int) -> None:
    match = random_session(seed, QuintusRules(hands=n))
    assert len(match.hands) == n and match.is_over() and match.hands_played() == n
    want = [sum(h.scores()[i] for h in match.hands) for i in range(5)]
    assert match.totals() == want
    best = max(want)
    assert match.winners() == [i for i in range(5) if want[i] == best]


def test_a_session_is_five_hands_by_default() -> None:
    match = random_session(3, QuintusRules())
    assert len(match.hands) == 5
    assert sorted(h.quintus for h in match.hands) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("variant", ["base", "bidding"])
def test_no_action_or_deal_after_the_session_is_over(variant: str) -> None:
    match = random_session(5, QuintusRules(variant=variant, hands=2))
    assert match.is_over()
    totals = match.totals()
    with pytest.raises(IllegalActionError):
        match.start_hand(rng=random.Random(0))
    with pytest.raises(IllegalActionError):
        match.start_hand(hands=random_deal(random.Random(0)))
    for seat in range(5):
        for a in ("signal up", "pass", "AS", "decline"):
            with pytest.raises(IllegalActionError):
                match.act(a, seat)
    assert match.totals() == totals and match.hands_played() == 2


def test_no_new_hand_before_the_current_one_is_finished() -> None:
    match = QuintusMatch(QuintusRules(hands=3))
    match.start_hand(rng=random.Random(1))
    with pytest.raises(IllegalActionError):
        match.start_hand(rng=random.Random(2))


# -------------------------------------------------------------- bidding: auction


@pytest.mark.parametrize("dealer", range(5))
def test_the_auction_starts_left_of_the_dealer(dealer: int) -> None:
    s = QuintusState.new(BIDDING, dealer, random_deal(random.Random(dealer)))
    assert s.current_player() == (dealer + 1) % 5
    assert s.quintus < 0 and s.contract is None
    assert s.observation(0).phase == "auction"


def test_bids_are_even_from_30_to_120_and_strictly_rising() -> None:
    s = QuintusState.new(BIDDING, 0, masks(RULEBOOK))
    assert s.legal_actions() == (PASS, *(bid(x) for x in range(30, 121, 2)))
    s.act("bid 30")
    assert s.legal_actions() == (PASS, *(bid(x) for x in range(32, 121, 2)))
    s.act("bid 58")
    assert s.high_bid == 58
    assert s.legal_actions() == (PASS, *(bid(x) for x in range(60, 121, 2)))
    s.act("bid 120")
    assert s.legal_actions() == (PASS,)


def test_the_auction_goes_clockwise_over_players_who_have_not_passed() -> None:
    s = QuintusState.new(BIDDING, 0, masks(RULEBOOK))
    order = []
    for a in ["bid 30", "pass", "bid 32", "pass", "bid 34", "bid 36", "pass"]:
        order.append(s.current_player())
        s.act(a)
    # 1 bids, 2 passes, 3 bids, 4 passes, 0 bids; 1 bids again; 2 and 4 are skipped.
    assert order == [1, 2, 3, 4, 0, 1, 3]
    assert s.observation(2).passed == (2, 3, 4)
    assert s.current_player() == 0


def test_a_pass_is_final() -> None:
    s = QuintusState.new(BIDDING, 0, masks(RULEBOOK))
    act_all(s, "pass bid 40 bid 42 bid 44 bid 46")  # 1 passes; 2, 3, 4, 0 bid
    assert s.current_player() == 2  # seat 1 is skipped
    assert s.legal_actions(1) == ()
    with pytest.raises(IllegalActionError):
        s.act("bid 50", seat=1)


def test_four_passes_with_a_standing_bid_make_the_fifth_the_quintus() -> None:
    s = QuintusState.new(BIDDING, 0, masks(RULEBOOK))
    act_all(s, "bid 30 bid 32 pass pass pass")  # 1: 30, 2: 32, 3 4 0 pass
    assert s.current_player() == 1 and s.quintus < 0
    s.act("pass")
    assert s.quintus == 2 and s.contract == 32
    assert s.current_player() == 2 and s.legal_actions() == TRUMPS
    assert s.observation(4).contract == 32 and s.observation(4).quintus == 2


def test_the_quintus_is_known_as_soon_as_four_have_passed() -> None:
    s = QuintusState.new(BIDDING, 2, masks(RULEBOOK))
    act_all(s, "bid 44 pass pass pass pass")
    assert s.quintus == 3 and s.contract == 44 and s.current_player() == 3


def test_after_four_passes_without_a_bid_the_last_player_may_still_bid() -> None:
    s = QuintusState.new(BIDDING, 0, masks(RULEBOOK))
    act_all(s, "pass pass pass pass")
    assert s.current_player() == 0 and not s.is_terminal()
    assert s.legal_actions() == (PASS, *(bid(x) for x in range(30, 121, 2)))
    s.act("bid 30")
    assert s.quintus == 0 and s.contract == 30 and s.legal_actions() == TRUMPS


def test_five_passes_make_a_void_hand_that_scores_nothing() -> None:
    s = QuintusState.new(BIDDING, 3, masks(RULEBOOK))
    act_all(s, "pass pass pass pass pass")
    assert s.void and s.is_terminal() and s.current_player() == TERMINAL
    assert s.scores() == [0, 0, 0, 0, 0]
    assert s.points() == (0, 0, 0)
    assert s.made() is None and s.contract is None and s.quintus < 0
    assert s.actors() == () and all(s.legal_actions(v) == () for v in range(5))
    assert s.observation(1).void


def test_after_a_void_hand_the_same_dealer_deals_again() -> None:
    match = QuintusMatch(QuintusRules(variant="bidding", hands=2), first_dealer=2)
    s = match.start_hand(hands=masks(RULEBOOK))
    act_all(s, "pass pass pass pass pass")
    assert match.next_dealer() == 2
    s = match.start_hand(hands=masks(RULEBOOK))
    assert s.dealer == 2 and s.current_player() == 3
    act_all(s, "pass pass pass pass pass")
    assert match.next_dealer() == 2
    assert match.hands_played() == 0 and not match.is_over()  # void hands do not count
    assert match.totals() == [0] * 5
    s = match.start_hand(hands=rotate(RULEBOOK, 3))
    act_all(s, ["bid 40", "pass", "pass", "pass", "pass", "trump NT", "nil none"])
    act_all(s, RULEBOOK_PLAYS)
    assert match.next_dealer() == 3


# ---------------------------------------------------------- bidding: card points


@pytest.mark.parametrize(("nil", "value"), [("closed", 38), ("open", 46)])
def test_bidding_nil_made_is_worth_38_or_46_for_open(nil: str, value: int) -> None:
    s = nil_straight_hand("bidding", nil, bid_=30)
    assert not s.nil_failed
    assert s.points()[0] == -5 + 25 + value


@pytest.mark.parametrize("nil", ["closed", "open"])
def test_bidding_failed_nil_gives_the_quintus_0_and_the_teams_no_bonus(nil: str) -> None:
    s = rulebook_hand("bidding", nil=nil)
    act_all(s, RULEBOOK_PLAYS)
    assert s.nil_failed
    assert s.points() == (0, 8, 13)  # his 50 card points are ignored


def test_bidding_failed_nil_ignores_the_quintus_premiums() -> None:
    s = pos(["AS 5H", "QS 6H", "JS 7H", "KS 8H", "5S TH"], contract=30, nil="closed")
    act_all(s, "AS QS JS KS 5S meld court")
    assert s.premiums[0] == 10 and s.nil_failed
    act_all(s, "5H 6H 7H 8H TH")
    assert s.points() == (0, 0, -5)
    assert s.made() is False


def test_contract_is_made_when_card_points_reach_the_bid() -> None:
    hands = ["AS", "KS", "QC", "JD", "AC"]  # the quintus wins 30 card points
    for contract, made in [(30, True), (32, False), (120, False)]:
        s = pos(hands, contract=contract)
        act_all(s, "AS KS QC JD AC")
        assert s.is_terminal() and s.points() == (30, 0, 0)
        assert s.made() is made and s.contract == contract


def test_contract_counts_premiums_and_negative_pips() -> None:
    s = pos(["9S 5D", "5S 6D", "6S 7D", "7S 8D", "8S TD"], contract=30)
    act_all(s, "9S 5S 6S 7S 8S meld straight")
    act_all(s, "5D 6D 7D 8D TD")  # seat 4 wins the pips
    assert s.points() == (-5 + 25, 0, -5)
    assert s.made() is False  # 20 < 30


# ------------------------------------------------------------ bidding: settlement


def test_rulebook_settlement_example_with_settle() -> None:
    teams = ((1, 3), (2, 4))
    # Team A {1,3} 8, team B {2,4} 13: s = 16.
    assert settle(40, True, (8, 13), teams, 0) == [40, -12, -8, -12, -8]
    assert settle(40, False, (8, 13), teams, 0) == [-40, 8, 12, 8, 12]
    # Team labels swapped: the payments follow the points, not the label.
    assert settle(40, True, (13, 8), teams, 0) == [40, -8, -12, -8, -12]
    assert settle(40, False, (13, 8), teams, 0) == [-40, 12, 8, 12, 8]


@pytest.mark.parametrize("k", range(5))
def test_rulebook_settlement_example_played_made(k: int) -> None:
    s = rulebook_hand("bidding", k=k)
    act_all(s, RULEBOOK_PLAYS)
    assert s.points() == (50, 8, 13) and s.contract == 40 and s.made() is True
    # Team B (13 points) pays 16/2 = 8 each, team A pays (40 - 16)/2 = 12 each.
    want = [40, -12, -8, -12, -8]
    assert s.scores() == [want[(i - k) % 5] for i in range(5)]


@pytest.mark.parametrize("k", range(5))
def test_rulebook_settlement_example_played_failed(k: int) -> None:
    # The same cards with nil declared: it fails at trick 1, the quintus has 0 < 40.
    s = rulebook_hand("bidding", k=k, nil="closed")
    act_all(s, RULEBOOK_PLAYS)
    assert s.points() == (0, 8, 13) and s.made() is False
    # Team B receives 12 each, team A 8 each.
    want = [-40, 8, 12, 8, 12]
    assert s.scores() == [want[(i - k) % 5] for i in range(5)]


def test_rulebook_nil_example_58_makes_a_38_contract() -> None:
    s = nil_straight_hand("bidding", "closed", "meld straight", bid_=38)
    assert s.contract == 38 and not s.nil_failed
    assert s.taken[0] == parse_mask("5S 6S 7S 8S 9S")
    assert s.points()[0] == 38 - 5 + 25 == 58
    assert s.made() is True
    assert s.scores()[0] == 38 and sum(s.scores()) == 0


def test_rulebook_nil_example_33_fails_a_38_contract() -> None:
    # The same five pip cards without the straight claimed: 38 - 5 = 33.
    s = nil_straight_hand("bidding", "closed", "decline", bid_=38)
    assert not s.nil_failed
    assert s.points()[0] == 33
    assert s.made() is False and s.scores()[0] == -38


@pytest.mark.parametrize(
    ("x", "want"),
    [
        (Fraction(320, 21), 16),  # 15.24
        (Fraction(149, 10), 14),
        (Fraction(15), 16),  # an odd whole number rounds up
        (Fraction(17), 18),
        (Fraction(1), 2),
        (Fraction(16), 16),
        (Fraction(13, 2), 6),
        (Fraction(0), 0),
        (Fraction(1699, 100), 16),
        (Fraction(1701, 100), 18),
        (Fraction(60), 60),
    ],
)
def test_smaller_share_rounds_to_the_nearest_even_number(x: Fraction, want: int) -> None:
    assert round_even(x) == want == ref_round(x)


def test_settlement_clamps_negative_team_points_at_0() -> None:
    teams = ((1, 3), (2, 4))
    # Clamped (0, 10): shares 0 and 40, s = 0; M is team 1 (10 > -5).
    assert settle(40, True, (-5, 10), teams, 0) == [40, -20, 0, -20, 0]
    assert settle(40, False, (-5, 10), teams, 0) == [-40, 0, 20, 0, 20]


def test_settlement_with_a_zero_sum_gives_each_share_half_the_bid() -> None:
    teams = ((1, 3), (2, 4))
    # Both clamped to 0: shares 20 and 20, s = 20; M is team 0 (raw -3 > -7).
    assert settle(40, True, (-3, -7), teams, 0) == [40, -10, -10, -10, -10]
    # bid 30: shares 15, s = 16; M = team 1 (raw 0 > -2) pays 8, L pays 7.
    assert settle(30, True, (-2, 0), teams, 0) == [30, -7, -8, -7, -8]
    assert settle(30, False, (-2, 0), teams, 0) == [-30, 8, 7, 8, 7]


def test_settlement_tie_makes_the_team_left_of_the_quintus_m() -> None:
    # q = 2: team 0 is {3, 0} (seat 3 is at the quintus's left), team 1 is {4, 1}.
    teams = teams_of(2)
    # Tie 10-10, bid 30: shares 15, s = 16; M = team 0.
    assert settle(30, True, (10, 10), teams, 2) == [-8, -7, 30, -8, -7]
    assert settle(30, False, (10, 10), teams, 2) == [7, 8, -30, 7, 8]


def test_settlement_of_a_played_tie_with_zero_points() -> None:
    s = pos(["AS", "KS", "QC", "JD", "AC"], contract=30)
    act_all(s, "AS KS QC JD AC")
    assert s.points() == (30, 0, 0) and s.made() is True
    # Sum 0 -> shares 15 each, s = 16, M = {1, 3} pays 8 each, L = {2, 4} pays 7.
    assert s.scores() == [30, -8, -7, -8, -7]


def test_bidding_scores_are_the_settlement_only() -> None:
    s = rulebook_hand("bidding")
    act_all(s, RULEBOOK_PLAYS)
    assert s.scores() != [50, 8, 13, 8, 13]
    assert s.returns() == [float(x) for x in s.scores()]


# -------------------------------------------------------------- property tests

even_bids = st.integers(15, 60).map(lambda x: 2 * x)
team_points = st.integers(-60, 200)


@settings(max_examples=300, deadline=None)
@given(even_bids, st.booleans(), team_points, team_points, st.integers(0, 4))
def test_settlement_sums_to_zero_and_follows_the_ruling(
    bid_: int, made: bool, a: int, b: int, q: int
) -> None:
    out = settle(bid_, made, (a, b), teams_of(q), q)
    assert sum(out) == 0
    assert out[q] == (bid_ if made else -bid_)
    (a1, a2), (b1, b2) = teams_of(q)
    assert out[a1] == out[a2] and out[b1] == out[b2]
    if made:
        assert all(out[s] <= 0 for s in range(5) if s != q)
    else:
        assert all(out[s] >= 0 for s in range(5) if s != q)
    assert out == ref_settle(bid_, bid_ if made else bid_ - 1, a, b, q)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**30), st.integers(1, 4))
def test_bidding_hands_sum_to_zero_and_match_the_reference(seed: int, n: int) -> None:
    match = random_session(seed, QuintusRules(variant="bidding", hands=n))
    totals = [0] * 5
    for h in match.hands:
        sc = h.scores()
        assert sum(sc) == 0
        if h.void:
            assert sc == [0] * 5 and h.quintus < 0
        else:
            q, pts, failed = ref_points("bidding", h.history())
            assert (q, pts, failed) == (h.quintus, h.points(), h.nil_failed)
            assert h.contract is not None
            assert h.made() is (pts[0] >= h.contract)
            assert sc == ref_settle(h.contract, pts[0], pts[1], pts[2], q)
        totals = [t + x for t, x in zip(totals, sc, strict=True)]
    assert match.totals() == totals


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**30), st.integers(1, 6))
def test_base_session_totals_equal_the_sum_of_hand_scores(seed: int, n: int) -> None:
    match = random_session(seed, QuintusRules(hands=n))
    assert len(match.hands) == n
    totals = [0] * 5
    for i, h in enumerate(match.hands):
        assert h.dealer == (match.first_dealer + i) % 5
        q, pts, failed = ref_points("base", h.history())
        assert (q, pts, failed) == (h.quintus, h.points(), h.nil_failed)
        (a1, a2), (b1, b2) = teams_of(q)
        want = [0] * 5
        want[q], want[a1], want[a2], want[b1], want[b2] = pts[0], pts[1], pts[1], pts[2], pts[2]
        assert h.scores() == want
        totals = [t + x for t, x in zip(totals, want, strict=True)]
    assert match.totals() == totals


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**30))
def test_random_hands_respect_follow_suit_and_signal_rules(seed: int) -> None:
    rng = random.Random(seed)
    variant = rng.choice(["base", "bidding"])
    s = QuintusState.new(QuintusRules(variant=variant), rng.randrange(5), random_deal(rng))
    sig_in_trick: set[int] = set()
    played_in_trick: set[int] = set()
    while not s.is_terminal():
        phase = s.observation(0).phase
        for v in range(5):
            sig = [a for a in s.legal_actions(v) if is_signal(a)]
            may = (
                phase == "play"
                and v != s.quintus
                and v not in sig_in_trick
                and v not in played_in_trick
            )
            assert bool(sig) == may, (phase, v)
        turn = s.current_player()
        ps = plays(s)
        if phase == "play" and s.trick:
            led = SUIT_OF[s.trick[0]]
            held = [c for c in mask_cards(s.hands[turn]) if SUIT_OF[c] == led]
            assert sorted(ps) == (held or list(mask_cards(s.hands[turn])))
        assert all(not is_bid(a) for a in s.legal_actions()) or phase == "auction"
        before = s.current_player()
        random_step(s, rng, signal_rate=0.3)
        seat, a = s.history()[-1]
        if is_signal(a):
            assert s.current_player() == before
            sig_in_trick.add(seat)
        elif is_play(a):
            played_in_trick.add(seat)
            if len(played_in_trick) == 5:
                played_in_trick.clear()
                sig_in_trick.clear()
