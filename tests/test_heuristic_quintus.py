"""The heuristic plays Quintus by the rules its docstring and docs/bots.md give.

Each test is one rule of ``quintet/bots/heuristic.py``'s Quintus half. Seats 0..4 go
clockwise and the quintus is seat 0 in every position, so the two teams against him are
{1, 3} and {2, 4} (rules §15: each defender's team mate sits across the table). Cards
rank 5 6 7 8 9 T J Q K A; the highest trump in a trick wins it, else the highest card of
the suit led. The quintus scores +10 for each J, Q, K he wins and -1 for each 5 to 10, a
team +5 and -1 (§21); a nil quintus fails as soon as he wins a trick holding a J, Q, K or
ace (§17).

Trick play is set up with ``QuintusState.from_position`` (``position`` below); melds,
nil, trump and the auction are reached from a deal (``deal`` below). A position's
"unseen" cards, for the heuristic, are the cards the deciding player cannot see (his own
hand, and the quintus's under open nil) that no one has played or won: neither since the
position began nor, in ``taken``, before it.
"""

from __future__ import annotations

import random

from quintet.actions import SIGNAL_ASK, SIGNAL_DOWN, SIGNAL_UP, Action, action_str
from quintet.bots import BotView
from quintet.bots.heuristic import HeuristicBot, quintus_estimate, signal_strength
from quintet.cards import QUINTUS_PACK, mask_cards, parse_card, parse_mask
from quintet.quintus import QuintusRules, QuintusState

BASE = QuintusRules(variant="base")
BIDDING = QuintusRules(variant="bidding")
Q = 0  # the quintus's seat


def position(
    hands: dict[int, str],
    leader: int,
    trick: str = "",
    trump: str = "NT",
    nil: str = "none",
    taken: str = "",
) -> QuintusState:
    """Return a trick-play position with the quintus at seat 0 (``hands`` by seat);
    ``taken`` the cards the quintus has won so far."""
    return QuintusState.from_position(
        [parse_mask(hands[s]) for s in range(5)],
        Q,
        leader,
        trump,
        nil=nil,
        trick=[parse_card(c) for c in trick.split()],
        taken=[parse_mask(taken), 0, 0, 0, 0],
    )


def deal(hands: dict[int, str], rules: QuintusRules = BASE, dealer: int = 1) -> QuintusState:
    """Return a new hand: the seats named get their cards, the rest of the pack goes in
    order to the others. In the base game dealer 1 makes seat 0 the quintus."""
    given = {s: parse_mask(h) for s, h in hands.items()}
    rest = [c for c in mask_cards(QUINTUS_PACK) if not any(m >> c & 1 for m in given.values())]
    masks = []
    for s in range(5):
        if s in given:
            masks.append(given[s])
        else:
            masks.append(sum(1 << c for c in rest[:8]))
            rest = rest[8:]
    return QuintusState.new(rules, dealer, masks)


def decide(state: QuintusState, seed: int = 1) -> tuple[str, str]:
    """Return the heuristic's action for the seat to act, as text, and its reason."""
    seat = state.current_player()
    a, why = HeuristicBot().explain(BotView.of(state, seat, random.Random(seed)))
    return action_str(a), why


def signal(state: QuintusState, seat: int, seed: int = 1) -> Action | None:
    """Return the signal the heuristic gives for ``seat`` now, or None."""
    return HeuristicBot().signal(BotView.of(state, seat, random.Random(seed)))


# ------------------------------------------------------------------------- premiums


def test_a_court_premium_won_is_melded() -> None:
    """Seat 1 leads JH, then QH, KH, 5H; the quintus, last, takes the trick with AH: it
    holds the court J Q K of hearts, and he melds it (a declined premium is lost, §19)."""
    state = position(
        {0: "AH 6C", 1: "7C", 2: "8D", 3: "9D", 4: "TD"},
        leader=1,
        trick="JH QH KH 5H",
    )
    state.act("AH")
    assert state.pending_meld == "court" and state.current_player() == Q
    action, why = decide(state)
    assert action == "meld court" and "premium" in why


def test_a_straight_premium_won_is_melded() -> None:
    """Seat 1 leads 5S, then 6S, 9S, 7S; the quintus plays 8S: seat 3's 9S wins the
    straight 5-9 of spades, and seat 3 melds it for his team (25 points, §19)."""
    state = position(
        {0: "8S 6C", 1: "7C", 2: "8D", 3: "9D", 4: "TD"},
        leader=1,
        trick="5S 6S 9S 7S",
    )
    state.act("8S")
    assert state.pending_meld == "straight" and state.current_player() == 3
    assert decide(state)[0] == "meld straight"


# ------------------------------------------------------------------------------ nil


def test_no_ace_or_court_card_and_nothing_above_an_eight_declares_open_nil() -> None:
    """The quintus holds 5 to 8 of spades and clubs: no card can break a nil, and none
    above an eight to win a trick with: he declares open nil (+70, §21)."""
    state = deal({Q: "5S 6S 7S 8S 5C 6C 7C 8C"})
    state.act("trump NT")
    action, why = decide(state)
    assert action == "nil open" and "open nil" in why


def test_no_ace_or_court_card_but_a_nine_or_ten_declares_closed_nil() -> None:
    """No J, Q, K or ace, but a nine (or a ten), which might win a trick while his hand
    is shown: the quintus declares closed nil."""
    for hand in ("5S 6S 7S 8S 5C 6C 7C 9C", "5S 6S 7S 8S 5C 6C 7C TC"):
        state = deal({Q: hand})
        state.act("trump NT")
        assert decide(state)[0] == "nil closed", hand


def test_an_ace_or_a_court_card_declares_no_nil() -> None:
    """One ace, or one court card, among low cards could win a trick and fail the nil:
    the quintus declares none."""
    for hand in ("5S 6S 7S 8S 5C 6C 7C AC", "5S 6S 7S 8S 5C 6C 7C JC"):
        state = deal({Q: hand})
        state.act("trump NT")
        action, why = decide(state)
        assert action == "nil none" and "no nil" in why, hand


# ------------------------------------------------------------------- auction, trump


def test_the_auction_bids_the_lowest_bid_with_a_strong_hand_and_passes_a_weak_one() -> None:
    """First to bid (seat 0, the dealer being 4), eight hearts from the seven up (worth
    about 76 points with hearts trump) bid 30, the lowest legal bid; 5-8 of spades and
    clubs (about 16 points at best) pass."""
    strong = "AH KH QH JH TH 9H 8H 7H"
    weak = "5S 6S 7S 8S 5C 6C 7C 8C"
    state = deal({0: strong}, BIDDING, dealer=4)
    assert state.current_player() == 0
    assert decide(state)[0] == "bid 30"
    state = deal({0: weak}, BIDDING, dealer=4)
    action, why = decide(state)
    assert action == "pass" and "not enough" in why


def test_the_auction_bids_only_when_the_estimate_clears_the_next_bid_by_four() -> None:
    """AD KD QD TD 8D 6S 7C 9H is worth 44.9 points with diamonds trump
    (``quintus_estimate``): after a bid of 38 it bids 40 (40 <= 44.9 - 4), after a bid
    of 40 it passes (42 > 40.9)."""
    hand = "AD KD QD TD 8D 6S 7C 9H"
    best = max(quintus_estimate(parse_mask(hand), t) for t in range(5))
    assert 42 <= best < 46
    state = deal({1: hand}, BIDDING, dealer=4)
    state.act("bid 38")
    assert state.current_player() == 1
    assert decide(state)[0] == "bid 40"
    state = deal({1: hand}, BIDDING, dealer=4)
    state.act("bid 40")
    assert decide(state)[0] == "pass"


def test_trump_is_the_suit_or_no_trump_of_the_best_estimate() -> None:
    """Five diamonds with the ace, king and queen name diamonds (44.9 points against
    25.1 at no trump); four aces and four kings name NT (82.8 against 73.6 for any
    suit, whose trumps would ruff the kings)."""
    state = deal({Q: "AD KD QD TD 8D 6S 7C 9H"})
    action, why = decide(state)
    assert action == "trump D" and "best estimate" in why
    state = deal({Q: "AS AC AD AH KS KC KD KH"})
    assert decide(state)[0] == "trump NT"


# ------------------------------------------------------------------ the nil quintus


NIL_LEAD = {
    0: "AS 9S 6H 7C",
    1: "5S 8H 9C TD",
    2: "6S 9H 8C JD",
    3: "7S TH 6C QD",
    4: "8S JH 5C KD",
}


def test_the_quintus_playing_nil_leads_his_lowest_card() -> None:
    """At no trump the quintus leads 6H, his lowest card, under nil; without nil, or
    once his nil has failed (he has won KS), he cashes AS, a card nobody can beat."""
    action, why = decide(position(NIL_LEAD, leader=Q, nil="closed"))
    assert action == "6H" and "nil" in why
    assert decide(position(NIL_LEAD, leader=Q))[0] == "AS"
    failed = position(NIL_LEAD, leader=Q, nil="closed", taken="KS 5H 7H TC AD")
    assert failed.nil_failed
    assert decide(failed)[0] == "AS"


NIL_FOLLOW = {
    0: "5H 8H TH 6C",
    1: "8S 9S TS JS",
    2: "5D 6D 7D 8D",
    3: "5C 7C 8C 9C",
    4: "5S 6S 7S",
}


def test_the_quintus_playing_nil_follows_with_the_highest_card_that_does_not_win() -> None:
    """Seat 4 leads 9H; the quintus, under nil, plays 8H: the highest heart below the
    nine (TH would win the trick). Without nil he would throw 5H, his cheapest loser."""
    action, why = decide(position(NIL_FOLLOW, leader=4, trick="9H", nil="closed"))
    assert action == "8H" and "does not win" in why
    assert decide(position(NIL_FOLLOW, leader=4, trick="9H"))[0] == "5H"


# ---------------------------------------------------------------------- defenders


BREAK = {0: "5C 6C 7C", 1: "KS AC 5D 6D", 2: "5H 6H 7H 8H", 3: "TH JH QH 6S", 4: "7S 8S 9S TS"}


def test_a_defender_breaks_the_quintuss_nil_with_his_highest_ace_or_court_card() -> None:
    """The nil quintus leads 9H and wins the trick so far; seat 1, void in hearts, gives
    it AC (his highest ace or court card, which cannot win) to fail the nil. Without nil
    he would throw 5D, his least valuable card."""
    action, why = decide(position(BREAK, leader=Q, trick="9H", nil="closed"))
    assert action == "AC" and "break" in why
    assert decide(position(BREAK, leader=Q, trick="9H"))[0] == "5D"


def test_a_defender_last_to_play_feeds_a_court_card_to_his_team_mates_trick() -> None:
    """The quintus leads 6H, seat 1 plays 7H, seat 2 KH, seat 3 8H: seat 4, last to play
    and void in hearts, gives his team mate's trick QS, his highest court card (+5 for
    his team), not his cheap 5D."""
    state = position(
        {0: "5C 6C 7C", 1: "8C 9C TC", 2: "5S 6S 7S", 3: "8S 9S TS", 4: "QS JC 5D 6D"},
        leader=Q,
        trick="6H 7H KH 8H",
    )
    action, why = decide(state)
    assert action == "QS" and "team mate is sure to win" in why


MATE = {0: "5C 6C 7C", 1: "8C 9C TC", 2: "8H 9H TH", 4: "7S 8S TS QS"}


def test_a_defender_feeds_a_court_card_to_his_team_mates_unbeatable_trick() -> None:
    """The quintus leads 6H, seat 1 plays AH (nothing beats it at no trump), seat 2 7H:
    seat 3, void in hearts with one player still to come, gives his team mate JC."""
    state = position({**MATE, 3: "JC 6D 9S 5S"}, leader=Q, trick="6H AH 7H")
    action, why = decide(state)
    assert action == "JC" and "team mate is sure to win" in why


def test_a_defender_without_a_court_card_dumps_a_pip_on_his_team_mates_sure_trick() -> None:
    """As above, but seat 3 holds no court card: he plays 5S, the card worth least to
    the winners (a pip scores -1), keeping his AC."""
    state = position({**MATE, 3: "AC 6D 9S 5S"}, leader=Q, trick="6H AH 7H")
    assert decide(state)[0] == "5S"


def test_a_defender_never_overtakes_his_team_mates_sure_trick() -> None:
    """The quintus leads 6H, seat 1 plays 7H, seat 2 KH, seat 3 8H: seat 4, last, could
    take the trick (worth +2 to a team: the king's +5, three pips -3) with AH but leaves
    it to his team mate and plays 5H."""
    state = position(
        {0: "5C 6C 7C", 1: "8C 9C TC", 2: "5S 6S 7S", 3: "8S TS JS", 4: "AH 5H 9S 6D"},
        leader=Q,
        trick="6H 7H KH 8H",
    )
    assert decide(state)[0] == "5H"


def test_a_defender_keeps_his_court_cards_off_a_team_mates_trick_that_may_be_beaten() -> None:
    """Seat 1 wins so far with KH, but AH is unseen (seat 4 may hold it): seat 3 does not
    give him JC but dumps 5S."""
    state = position(
        {**MATE, 2: "8H 9H TH", 3: "JC 6D 9S 5S", 4: "7S 8S TS AH"},
        leader=Q,
        trick="6H KH 7H",
    )
    action, why = decide(state)
    assert action == "5S" and "not taking this trick" in why


def test_a_defender_takes_a_trick_holding_a_court_card_with_his_cheapest_winner() -> None:
    """Seat 1 leads QH (+5 to a team that takes it, +10 to the quintus); seat 2, of the
    other team, holds KH and AH: he takes the trick with KH, the cheaper winner, not AH
    (which would be his throw-away were the trick not worth taking)."""
    state = position(
        {0: "5S 6S 7S 8S", 1: "9C TC JC", 2: "KH AH 5C 6C", 3: "5D 6D 7D 8D", 4: "9S TS JS QS"},
        leader=1,
        trick="QH",
    )
    action, why = decide(state)
    assert action == "KH" and "wins the trick" in why


def test_the_quintus_last_to_play_takes_the_trick_with_his_cheapest_winner() -> None:
    """Spades trump; seat 1 leads QH and the others follow 5H 6H 7H; the quintus, last
    and void in hearts, ruffs with 6S, his lowest trump, rather than AS or a discard."""
    state = position(
        {0: "6S AS 8C 9D", 1: "9C TC JC", 2: "5D 6D 7D", 3: "8D TD JD", 4: "7S 8S 9S"},
        leader=1,
        trick="QH 5H 6H 7H",
        trump="S",
    )
    assert decide(state)[0] == "6S"


def test_the_quintus_takes_a_trick_holding_a_court_card_when_he_can() -> None:
    """Seat 4 leads QH (+10 to the quintus); the quintus, second to play and holding no
    court card, takes it with AH, his one winner, rather than throwing 5H or 9H."""
    state = position(
        {0: "AH 5H 9H", 1: "5C 6C 7C", 2: "5D 6D 7D", 3: "5S 6S 7S", 4: "8C 8D"},
        leader=4,
        trick="QH",
    )
    action, why = decide(state)
    assert action == "AH" and "wins the trick" in why


def test_the_quintus_holding_a_court_card_takes_a_trick_he_can_win() -> None:
    """Seat 4 leads 6H, a trick worth nothing yet; the quintus, second to play, holds KH
    (a court card he would rather win with than lose later) and takes the trick with it,
    his one winner, instead of throwing 5H."""
    state = position(
        {0: "KH 5H 9C", 1: "5C 6C 7C", 2: "5D 6D 7D", 3: "5S 6S 7S", 4: "8C 8D"},
        leader=4,
        trick="6H",
    )
    assert decide(state)[0] == "KH"


def test_a_defender_takes_a_trick_the_quintus_is_winning() -> None:
    """The quintus leads 6H, a pip (the trick holds no points yet): seat 1, second to play,
    takes it from him with 7H, his cheapest winner, rather than throwing 5H under it."""
    state = position(
        {0: "7C 8C 9C", 1: "5H 7H AH 5S", 2: "5D 6D 7D 8D", 3: "5C 6C TC 9D", 4: "6S 7S 8S 9S"},
        leader=Q,
        trick="6H",
    )
    action, why = decide(state)
    assert action == "7H" and "wins the trick" in why


# ------------------------------------------------------------------------- leading


CASH = {0: "AS KS QH 7D", 1: "5S 6S 7S 8S", 2: "5C 6C 7C 8C", 3: "5D 6D 8D 9D", 4: "5H 6H 7H 8H"}


def test_on_lead_the_highest_card_nobody_can_beat_is_cashed() -> None:
    """At no trump the quintus holds AS and KS, both sure tricks (no higher spade is
    out): he leads AS, the higher. With hearts trump, where any unseen heart could ruff
    them, neither is sure and he leads low, 7D."""
    action, why = decide(position(CASH, leader=Q))
    assert action == "AS" and "sure trick" in why
    assert decide(position(CASH, leader=Q, trump="H"))[0] == "7D"


def test_cards_won_before_a_position_began_are_not_unseen() -> None:
    """A position set up mid-hand whose first tricks gave the quintus AS: KS is then the
    highest spade out, a sure trick, and seat 1 on lead at no trump cashes it. Were AS
    counted as unseen, KS would not be sure and he would lead low."""
    state = position(
        {0: "5C 6C 7C", 1: "KS 5D 6D", 2: "7D 8D 9D", 3: "5H 6H 7H", 4: "8H 9H TH"},
        leader=1,
        taken="AS",
    )
    action, why = decide(state)
    assert action == "KS" and "sure trick" in why


SIGNAL_LEAD = {
    0: "6S 7S 8S 9S",
    1: "5S 9C 8D JH",
    2: "5C 6C 7C 8C",
    3: "5D 6D 7D 9D",
    4: "5H 6H 7H 8H",
}


def test_after_the_team_mates_up_signal_a_defender_leads_a_low_non_trump_card() -> None:
    """Spades trump; seat 1 is on lead and his team mate, seat 3, signalled ``up``: seat 1
    leads 8D, his lowest card that is neither a trump nor a court card, so that seat 3
    may take the trick. After a ``down`` he leads his lowest card, the trump 5S."""
    state = position(SIGNAL_LEAD, leader=1, trump="S")
    state.act("signal up", 3)
    action, why = decide(state)
    assert action == "8D" and "signalled strength" in why
    state = position(SIGNAL_LEAD, leader=1, trump="S")
    state.act("signal down", 3)
    assert decide(state)[0] == "5S"


def test_with_nothing_sure_to_lead_the_lowest_card_that_is_not_a_court_card_is_led() -> None:
    """Hearts trump (unseen hearts could ruff anything): seat 1 on lead with JC QC AD, no
    sure card and no signal from his team mate, leads AD, not the lower-ranked JC: court
    cards are kept off a trick the other side may take."""
    state = position(
        {0: "5S 6S 7S", 1: "JC QC AD", 2: "5D 6D 7D", 3: "8S 9S TS", 4: "5C 6C 7C"},
        leader=1,
        trump="H",
    )
    action, why = decide(state)
    assert action == "AD" and "not a court card" in why


def test_the_quintus_with_three_trumps_draws_trumps_with_his_highest() -> None:
    """Hearts trump; the quintus, on lead with KH 9H 6H (AH unseen: no sure card), leads
    KH. With only two trumps he leads his lowest card that is not a court card, 5S."""
    others = {1: "5D 6D 7D 9D TD", 2: "5C 6C 8C 9C TC", 3: "6S 7S 8S 9S TS", 4: "5H 7H 8H TH JH"}
    action, why = decide(position({**others, 0: "KH 9H 6H 7C 8D"}, leader=Q, trump="H"))
    assert action == "KH" and "draw trumps" in why
    two = {**others, 0: "KH 9H 7C 8D 5S", 3: "6S 7S 8S 9S 6H"}
    assert decide(position(two, leader=Q, trump="H"))[0] == "5S"


# ------------------------------------------------------------------------- signals


def test_signal_strength_counts_aces_and_half_the_court_cards() -> None:
    """An ace counts 1, a J, Q or K a half (rounded down over the hand); pips nothing."""
    assert signal_strength(parse_mask("5S 6S 7S 8S 9S TS")) == 0
    assert signal_strength(parse_mask("AS")) == 1
    assert signal_strength(parse_mask("KS 5H")) == 0
    assert signal_strength(parse_mask("KS QH")) == 1
    assert signal_strength(parse_mask("KS QH JD")) == 1
    assert signal_strength(parse_mask("AS AH KC QD JH 5S")) == 3


def first_trick(hand: str) -> QuintusState:
    """Return a base hand before the quintus's first lead, seat 1 holding ``hand``."""
    state = deal({Q: "5S 6S 7S 8S 5C 6C 7C 8C", 1: hand})
    state.act("trump NT")
    state.act("nil none")
    return state


def test_before_the_first_lead_a_strong_defender_signals_up() -> None:
    """Seat 1 with two aces and three court cards (strength 3) signals ``up`` before the
    first trick; the quintus never signals."""
    state = first_trick("AS AH KC QD JH 9S 9H 9C")
    assert signal(state, 1) == SIGNAL_UP
    assert signal(state, Q) is None


def test_before_the_first_lead_a_defender_without_strength_signals_down() -> None:
    """Seat 1 with no ace and one court card (strength 0) signals ``down``."""
    assert signal(first_trick("KH 9S TS 9H TH 9D TD 9C"), 1) == SIGNAL_DOWN


def test_a_middling_defender_asks_now_and_then_and_never_signals_up_or_down() -> None:
    """Seat 1 with two aces (strength 2, too little for an unprompted ``up``) or an ace
    and a king (strength 1, too much for ``down``) either stays silent or, one time in
    five, asks his team mate; once the mate has signalled, he stays silent."""
    for hand in ("AS AH 9S TS 9H TH 9D TD", "AS KH 9S TS 9H TH 9D TD"):
        state = first_trick(hand)
        given = {signal(state, 1, seed) for seed in range(30)}
        assert given == {None, SIGNAL_ASK}, hand
        state.act("signal down", 3)
        assert all(signal(state, 1, seed) is None for seed in range(30)), hand


def test_a_middling_defender_asks_about_one_time_in_five() -> None:
    """Over 200 seeded decisions seat 1, strength 2, asks in about a fifth (the seeds are
    fixed, so the count is too: 40 expected, within 25 to 55)."""
    state = first_trick("AS AH 9S TS 9H TH 9D TD")
    asks = sum(signal(state, 1, seed) == SIGNAL_ASK for seed in range(200))
    assert 25 <= asks <= 55, asks


def test_a_partners_ask_is_answered_up_with_strength_two_else_down() -> None:
    """In the middle of the hand seat 3 asks: seat 1 answers ``up`` with two aces
    (strength 2), ``down`` with one ace and a king (strength 1)."""
    rest = {0: "5S 6S 7S 8S", 2: "5C 6C 7C 8C", 4: "5H 6H 7H 8H"}
    for hand, answer in (("AS AH 9S 9H", SIGNAL_UP), ("AS KH 9S 9H", SIGNAL_DOWN)):
        state = position({**rest, 1: hand, 3: "5D 6D 7D 8D"}, leader=Q)
        assert state.tricks_played == 4
        state.act("signal ask", 3)
        assert signal(state, 1) == answer, hand


def test_after_the_first_trick_a_defender_signals_only_when_asked() -> None:
    """In the middle of the hand, unasked, seat 1 with three aces gives no signal."""
    state = position(
        {0: "5S 6S 7S 8S", 1: "AS AH AC 9H", 2: "5C 6C 7C 8C", 3: "5D 6D 7D 8D", 4: "5H 6H 7H 8H"},
        leader=Q,
    )
    assert all(signal(state, 1, seed) is None for seed in range(10))
