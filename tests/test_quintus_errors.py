"""Bad input for Quintus: every refused action, through ``state.act`` and through records.

Through ``act``: each case builds a position, checks the error class and message, and
that the state is exactly as before (history, rendering, legal actions, observations).

Through records: random legal sessions of a :class:`QuintusMatch` are written with
``record_from_match``; a fault finder looks for the first point where its fault can be
made, inserts the bad action(s) there and checks the scorer's error object: the kind
(``illegal action`` or ``invalid``), the hand and action indices, and the detail.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from quintet.actions import SIGNAL_UP, is_signal
from quintet.cards import SUIT_MASK, SUIT_OF, card_str, mask_cards, parse_card, parse_mask
from quintet.errors import IllegalActionError, InvalidActionError, RecordError
from quintet.quintus import QuintusMatch, QuintusRules, QuintusState, random_deal
from quintet.quintus.state import AUCTION, MELD, NIL, OVER, PLAY, TRUMP
from quintet.record import dumps, read_record, record_from_match, score

JSON = dict[str, Any]
BASE = QuintusRules()
BIDDING = QuintusRules(variant="bidding")

# The rulebook hand of test_quintus_rules.py: seat 0 is the quintus in the base game with
# dealer 1, or in the bidding variant with dealer 4 after "bid 40" and four passes.
RULEBOOK = (
    "AD KD AS KS AC KC 5H 7H",
    "JD 7D 5S 6S 5C 6C AH 8H",
    "QD 8D 7S 7C KH JH 9H TH",
    "5D 9D 8S 9S 8C 9C QH 6H",
    "6D TD TS JS QS TC QC JC",
)
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


# ------------------------------------------------------------------ positions


def masks(hands: Sequence[str]) -> list[int]:
    return [parse_mask(h) for h in hands]


def base_hand(*actions: str) -> QuintusState:
    """The rulebook deal, base game (quintus 0), after ``actions`` by the seat to act."""
    s = QuintusState.new(BASE, 1, masks(RULEBOOK))
    for a in actions:
        s.act(a)
    return s


def bidding_hand(*actions: str) -> QuintusState:
    """The rulebook deal, bidding variant, dealer 0 (seat 1 bids first)."""
    s = QuintusState.new(BIDDING, 0, masks(RULEBOOK))
    for a in actions:
        s.act(a)
    return s


def playing(*actions: str, trump: str = "NT") -> QuintusState:
    """Base rulebook hand in trick play after ``actions``."""
    return base_hand(f"trump {trump}", "nil none", *actions)


def court_pending() -> QuintusState:
    """Seat 0 (quintus) has won JC QC KC and must meld or decline the court."""
    s = QuintusState.from_position(masks(["AC 5D", "JC 6D", "QC 7D", "KC 8D", "5C TD"]), 0, 0, "NT")
    for a in ["AC", "JC", "QC", "KC", "5C"]:
        s.act(a)
    assert s.pending_meld == "court"
    return s


def straight_pending() -> QuintusState:
    """Seat 0 (quintus) has won 5S-9S and must meld or decline the straight."""
    s = QuintusState.from_position(masks(["9S 5D", "5S 6D", "6S 7D", "7S 8D", "8S TD"]), 0, 0)
    for a in ["9S", "5S", "6S", "7S", "8S"]:
        s.act(a)
    assert s.pending_meld == "straight"
    return s


def finished() -> QuintusState:
    return playing(*RULEBOOK_PLAYS)


def void_hand() -> QuintusState:
    return bidding_hand("pass", "pass", "pass", "pass", "pass")


def fingerprint(s: QuintusState) -> tuple[object, ...]:
    """Everything observable about a state."""
    return (
        s.history(),
        s.render(),
        tuple(s.legal_actions(v) for v in range(5)) if not s.is_terminal() else (),
        s.current_player(),
        s.actors(),
        tuple(s.observation(v) for v in range(5)),
        tuple(s.observation(v).text for v in range(5)),
        s.points(),
        s.scores(),
        s.pending_meld,
        tuple(s.hands),
        tuple(s.taken),
        s.is_terminal(),
    )


# (id, position, action, seat or None for the seat to act, error class, message part)
Case = tuple[str, Callable[[], QuintusState], str, int | None, type[Exception], str]

CASES: list[Case] = [
    # --- the auction
    (
        "odd bid",
        bidding_hand,
        "bid 31",
        None,
        InvalidActionError,
        "even number from 30 to 120, not 31",
    ),
    (
        "low bid",
        bidding_hand,
        "bid 28",
        None,
        InvalidActionError,
        "even number from 30 to 120, not 28",
    ),
    ("high bid", bidding_hand, "bid 122", None, InvalidActionError, "from 30 to 120, not 122"),
    ("bid no number", bidding_hand, "bid forty", None, InvalidActionError, "a bid needs a number"),
    (
        "equal bid",
        lambda: bidding_hand("bid 40"),
        "bid 40",
        None,
        IllegalActionError,
        "seat 2 must bid more than 40: bids rise",
    ),
    (
        "lower bid",
        lambda: bidding_hand("bid 40", "pass"),
        "bid 30",
        None,
        IllegalActionError,
        "seat 3 must bid more than 40: bids rise",
    ),
    (
        "bid after passing",
        lambda: bidding_hand("pass", "bid 40"),
        "bid 42",
        1,
        IllegalActionError,
        "seat 1 has passed and may not bid again",
    ),
    (
        "pass again",
        lambda: bidding_hand("pass", "bid 40"),
        "pass",
        1,
        IllegalActionError,
        "seat 1 has passed",
    ),
    (
        "bid out of turn",
        lambda: bidding_hand("bid 40"),
        "bid 44",
        4,
        IllegalActionError,
        "it is seat 2's turn, not seat 4's",
    ),
    (
        "bid after the auction",
        lambda: bidding_hand("bid 40", "pass", "pass", "pass", "pass"),
        "bid 50",
        None,
        IllegalActionError,
        "seat 1 cannot bid: the auction is over",
    ),
    (
        "bid in the base game",
        base_hand,
        "bid 40",
        None,
        IllegalActionError,
        "the base game has no auction",
    ),
    (
        "pass in the base game",
        base_hand,
        "pass",
        None,
        IllegalActionError,
        "the base game has no auction",
    ),
    (
        "play in the auction",
        bidding_hand,
        "JD",
        None,
        IllegalActionError,
        "seat 1 cannot play during the auction: bid or pass",
    ),
    (
        "trump in the auction",
        bidding_hand,
        "trump H",
        None,
        IllegalActionError,
        "seat 1 cannot trump during the auction",
    ),
    # --- trump and nil
    (
        "trump by a non-quintus",
        base_hand,
        "trump H",
        2,
        IllegalActionError,
        "only the quintus (seat 0) chooses trump and nil",
    ),
    (
        "nil by a non-quintus",
        lambda: base_hand("trump H"),
        "nil open",
        4,
        IllegalActionError,
        "only the quintus (seat 0) chooses trump and nil",
    ),
    (
        "nil before trump",
        base_hand,
        "nil closed",
        None,
        IllegalActionError,
        "seat 0 must first name trump (a suit or NT)",
    ),
    ("play before trump", base_hand, "AD", None, IllegalActionError, "must first name trump"),
    (
        "play before nil",
        lambda: base_hand("trump NT"),
        "AD",
        None,
        IllegalActionError,
        "seat 0 must declare nil (none, closed or open) first",
    ),
    (
        "trump twice",
        lambda: base_hand("trump NT"),
        "trump S",
        None,
        IllegalActionError,
        "seat 0 has already named trump",
    ),
    (
        "trump in trick play",
        playing,
        "trump S",
        None,
        IllegalActionError,
        "seat 0 cannot trump now: trick play has begun",
    ),
    (
        "nil in trick play",
        playing,
        "nil open",
        None,
        IllegalActionError,
        "seat 0 cannot nil now: trick play has begun",
    ),
    # --- premiums
    (
        "meld with no combination",
        playing,
        "meld court",
        None,
        IllegalActionError,
        "seat 0 cannot meld: there is no court or straight in the last trick to meld",
    ),
    (
        "meld after a trick without one",
        lambda: playing(*RULEBOOK_PLAYS[:5]),
        "meld straight",
        None,
        IllegalActionError,
        "there is no court or straight in the last trick",
    ),
    (
        "decline with nothing pending",
        lambda: playing(*RULEBOOK_PLAYS[:5]),
        "decline",
        None,
        IllegalActionError,
        "seat 0 cannot decline: there is no court or straight",
    ),
    (
        "meld by the wrong seat",
        court_pending,
        "meld court",
        2,
        IllegalActionError,
        "seat 0 won the trick and must first meld or decline its court",
    ),
    (
        "decline by the wrong seat",
        straight_pending,
        "decline",
        3,
        IllegalActionError,
        "seat 0 won the trick and must first meld or decline its straight",
    ),
    (
        "meld a straight for a court",
        court_pending,
        "meld straight",
        None,
        IllegalActionError,
        "the trick holds a court, not a straight",
    ),
    (
        "meld a court for a straight",
        straight_pending,
        "meld court",
        None,
        IllegalActionError,
        "the trick holds a straight, not a court",
    ),
    (
        "play while a meld is pending",
        court_pending,
        "5D",
        None,
        IllegalActionError,
        "seat 0 must first meld or decline the trick's court",
    ),
    (
        "another seat plays while a meld is pending",
        court_pending,
        "6D",
        1,
        IllegalActionError,
        "seat 0 won the trick and must first meld or decline its court",
    ),
    (
        "signal while a meld is pending",
        court_pending,
        "signal up",
        3,
        IllegalActionError,
        "seat 3 cannot signal while seat 0 decides to meld or decline",
    ),
    # --- signals
    (
        "signal by the quintus",
        playing,
        "signal up",
        0,
        IllegalActionError,
        "seat 0 is the quintus and may not signal",
    ),
    (
        "signal by the quintus, his turn",
        playing,
        "signal ask",
        None,
        IllegalActionError,
        "seat 0 is the quintus and may not signal",
    ),
    (
        "signal after playing",
        lambda: playing("AD", "JD"),
        "signal down",
        1,
        IllegalActionError,
        "seat 1 has already played to this trick and may not signal",
    ),
    (
        "second signal in a trick",
        lambda: _signalled(playing("AD"), 3),
        "signal down",
        3,
        IllegalActionError,
        "seat 3 has already signalled in this trick",
    ),
    (
        "second signal by the seat to play",
        lambda: _signalled(playing("AD"), 1),
        "signal ask",
        None,
        IllegalActionError,
        "seat 1 has already signalled in this trick",
    ),
    (
        "signal in the auction",
        bidding_hand,
        "signal up",
        3,
        IllegalActionError,
        "seat 3 cannot signal: signals are given during trick play only",
    ),
    (
        "signal before trump",
        base_hand,
        "signal up",
        2,
        IllegalActionError,
        "signals are given during trick play only",
    ),
    (
        "signal before nil",
        lambda: base_hand("trump C"),
        "signal down",
        1,
        IllegalActionError,
        "signals are given during trick play only",
    ),
    # --- cards
    (
        "trump led to the first trick",
        lambda: playing(trump="H"),
        "5H",
        None,
        IllegalActionError,
        "the quintus must lead the first trick with a non-trump card; holds KS AS KC AC KD AD",
    ),
    (
        "not following suit",
        lambda: playing("AD"),
        "5S",
        None,
        IllegalActionError,
        "seat 1 must follow diamonds; holds 7D JD",
    ),
    (
        "card not held",
        playing,
        "QH",
        None,
        IllegalActionError,
        "seat 0 does not hold QH; holds",
    ),
    (
        "card already played",
        lambda: playing(*RULEBOOK_PLAYS[:5]),
        "AD",
        None,
        IllegalActionError,
        "seat 0 does not hold AD",
    ),
    (
        "play out of turn",
        lambda: playing("AD"),
        "QD",
        2,
        IllegalActionError,
        "it is seat 1's turn, not seat 2's",
    ),
    (
        "2H is not a Quintus card",
        playing,
        "2H",
        None,
        IllegalActionError,
        "2H is not in the Quintus pack",
    ),
    (
        "4D is not a Quintus card",
        lambda: playing("AD"),
        "4D",
        None,
        IllegalActionError,
        "4D is not in the Quintus pack",
    ),
    (
        "the joker is not a Quintus card",
        playing,
        "JK",
        None,
        IllegalActionError,
        "JK is not in the Quintus pack",
    ),
    # --- Quinto's actions and nonsense
    ("double", playing, "double", None, InvalidActionError, "double is not a Quintus action"),
    (
        "redouble",
        bidding_hand,
        "redouble",
        1,
        InvalidActionError,
        "redouble is not a Quintus action",
    ),
    ("unknown action", playing, "shuffle", None, InvalidActionError, "unknown action 'shuffle'"),
    ("bad card code", playing, "play 1H", None, InvalidActionError, "not a card code"),
    (
        "bad signal",
        playing,
        "signal left",
        2,
        InvalidActionError,
        "signal must be one of up, down, ask",
    ),
    (
        "seat out of range",
        playing,
        "signal up",
        5,
        IllegalActionError,
        "seat 5 is out of range 0..4",
    ),
    ("negative seat", playing, "AD", -1, IllegalActionError, "seat -1 is out of range 0..4"),
    # --- after the hand
    ("play after the hand", finished, "AD", None, IllegalActionError, "the hand is over"),
    ("signal after the hand", finished, "signal up", 1, IllegalActionError, "the hand is over"),
    ("decline after the hand", finished, "decline", 2, IllegalActionError, "the hand is over"),
    ("trump after the hand", finished, "trump H", 0, IllegalActionError, "the hand is over"),
    (
        "bid after a void hand",
        void_hand,
        "bid 30",
        1,
        IllegalActionError,
        "the hand is void: all five passed",
    ),
    (
        "pass after a void hand",
        void_hand,
        "pass",
        None,
        IllegalActionError,
        "the hand is void: all five passed",
    ),
    ("play after a void hand", void_hand, "JD", 1, IllegalActionError, "the hand is void"),
    ("trump after a void hand", void_hand, "trump S", 0, IllegalActionError, "the hand is void"),
]


def _signalled(s: QuintusState, seat: int) -> QuintusState:
    s.act("signal up", seat=seat)
    return s


@pytest.mark.parametrize(
    ("make", "action", "seat", "exc", "phrase"),
    [pytest.param(*c[1:], id=c[0]) for c in CASES],
)
def test_act_refuses_and_leaves_the_state_unchanged(
    make: Callable[[], QuintusState],
    action: str,
    seat: int | None,
    exc: type[Exception],
    phrase: str,
) -> None:
    s = make()
    before = fingerprint(s)
    copy_before = s.clone()
    with pytest.raises(exc) as info:
        s.act(action, seat)
    assert type(info.value) is exc
    assert phrase in str(info.value), str(info.value)
    assert fingerprint(s) == before
    assert fingerprint(copy_before) == before


@pytest.mark.parametrize(("make", "action", "seat"), [(c[1], c[2], c[3]) for c in CASES[:3]])
def test_act_refusals_are_value_errors(
    make: Callable[[], QuintusState], action: str, seat: int | None
) -> None:
    with pytest.raises(ValueError):
        make().act(action, seat)


def test_a_refused_action_can_be_followed_by_a_legal_one() -> None:
    s = playing("AD")
    for bad in ("5S", "QH", "2H", "signal up"):
        with pytest.raises(IllegalActionError):
            s.act(bad, 0 if bad.startswith("signal") else None)
    s.act("JD")
    assert s.history()[-1] == (1, parse_card("JD"))


def test_every_non_legal_action_is_refused_with_the_state_unchanged() -> None:
    """Exhaustively: at points of a whole hand, every action number not legal is refused."""
    s = QuintusState.new(BIDDING, 4, masks(RULEBOOK))
    script = ["bid 40", "pass", "pass", "pass", "pass", "trump H", "nil closed"]
    script += ["AD", "signal up", *RULEBOOK_PLAYS[1:5]]
    for step, text in enumerate(script):
        if step % 2 == 0:
            before = fingerprint(s)
            for seat in range(5):
                legal = set(s.legal_actions(seat))
                for a in range(116):
                    if a in legal:
                        continue
                    with pytest.raises((IllegalActionError, InvalidActionError)):
                        s.act(a, seat)
            assert fingerprint(s) == before
        s.act(text, 2 if text.startswith("signal") else None)


# ================================================================== records


def random_match(seed: int, variant: str, hands: int = 3, void_first: bool = False) -> QuintusMatch:
    """Play a session with random legal actions (signals now and then)."""
    rng = random.Random(seed)
    match = QuintusMatch(QuintusRules(variant=variant, hands=hands), first_dealer=seed % 5)
    first = True
    while not match.is_over():
        state = match.start_hand(rng=random.Random(rng.randrange(1 << 30)))
        while not state.is_terminal():
            if first and void_first:
                match.act("pass")
                continue
            actors = state.actors()
            if len(actors) > 1 and rng.random() < 0.2:
                seat = rng.choice(actors[1:])
                match.act(rng.choice(state.legal_actions(seat)), seat)
                continue
            legal = [a for a in state.legal_actions() if not is_signal(a)]
            if state.phase == AUCTION and (len(legal) == 1 or rng.random() < 0.5):
                match.act(legal[0])
            elif state.phase == AUCTION:
                match.act(legal[1] if rng.random() < 0.7 else rng.choice(legal[1:]))
            else:
                match.act(rng.choice(state.legal_actions()))
        first = False
    return match


def as_json(match: QuintusMatch) -> JSON:
    data: JSON = json.loads(dumps(record_from_match(match)))
    return data


def reject(data: object) -> RecordError:
    with pytest.raises(RecordError) as info:
        score(read_record(json.dumps(data)))
    return info.value


def check(
    data: object, kind: str, hand: int | None, action: int | None, phrase: str
) -> RecordError:
    err = reject(data)
    out = err.to_json()
    assert (err.kind, err.hand, err.action) == (kind, hand, action), out
    assert out["error"] == kind
    assert ("hand" in out) == (hand is not None) and ("action" in out) == (action is not None)
    assert phrase in err.detail, out
    return err


def test_random_records_score_like_their_matches() -> None:
    for seed in range(6):
        for variant in ("base", "bidding"):
            match = random_match(seed, variant, void_first=variant == "bidding")
            out = score(read_record(dumps(record_from_match(match))))
            assert out["complete"] and out["totals"] == match.totals()
            assert [h["score"] for h in out["hands"]] == [h.scores() for h in match.hands]


def states_of(match: QuintusMatch, i: int) -> list[QuintusState]:
    """Return the states of hand ``i`` before each of its actions, and after the last."""
    hand = match.hands[i]
    s = hand.snapshot()
    out = [s.clone()]
    for seat, a in hand.history():
        s.act(a, seat)
        out.append(s.clone())
    return out


Finder = Callable[[QuintusState], list[JSON] | None]


def find_and_check(
    finder: Finder,
    variants: Sequence[str],
    kind: str,
    phrase: str | Callable[[QuintusState], str],
    seeds: Sequence[int] = range(40),
    min_hand: int = 0,
) -> None:
    """Insert the first fault ``finder`` offers in a random record and check the error."""
    for seed in seeds:
        variant = variants[seed % len(variants)]
        match = random_match(seed, variant)
        for i in range(min(min_hand, len(match.hands) - 1), len(match.hands)):
            for j, s in enumerate(states_of(match, i)):
                bad = finder(s)
                if bad is None:
                    continue
                data = as_json(match)
                actions = data["hands"][i]["actions"]
                assert len(actions) >= j
                data["hands"][i]["actions"] = actions[:j] + bad + actions[j:]
                want = phrase if isinstance(phrase, str) else phrase(s)
                check(data, kind, i, j + len(bad) - 1, want)
                # The same fault on a copy of the record with the hands that follow cut.
                data["hands"] = data["hands"][: i + 1]
                check(data, kind, i, j + len(bad) - 1, want)
                return
    raise AssertionError("no position found for the fault")


def obj(seat: int, kind: str, /, **fields: object) -> JSON:
    return {"seat": seat, "type": kind, **fields}


def in_auction(s: QuintusState) -> bool:
    return s.phase == AUCTION


# ----------------------------------------------------------- auction faults


@pytest.mark.parametrize("amount", [31, 28, 122, 0, -2, 29, 121, 1000])
def test_record_bid_that_no_rule_allows_is_illegal(amount: int) -> None:
    find_and_check(
        lambda s: [obj(s.turn, "bid", amount=amount)] if in_auction(s) else None,
        ["bidding"],
        "illegal action",
        f"a bid must be an even number from 30 to 120, not {amount}",
    )


@pytest.mark.parametrize("amount", ["40", 40.0, True, None, [40], "forty"])
def test_record_bid_amount_of_the_wrong_type_is_invalid(amount: object) -> None:
    find_and_check(
        lambda s: [obj(s.turn, "bid", amount=amount)] if in_auction(s) else None,
        ["bidding"],
        "invalid",
        "a bid must be an even number from 30 to 120",
    )


def test_record_bid_without_amount_is_invalid() -> None:
    find_and_check(
        lambda s: [obj(s.turn, "bid")] if in_auction(s) else None,
        ["bidding"],
        "invalid",
        "bid action has no 'amount'",
    )


def _equal_bid(s: QuintusState) -> list[JSON] | None:
    if in_auction(s) and s.high_bid is not None:
        return [obj(s.turn, "bid", amount=s.high_bid)]
    return None


def _lower_bid(s: QuintusState) -> list[JSON] | None:
    if in_auction(s) and s.high_bid is not None and s.high_bid >= 34:
        return [obj(s.turn, "bid", amount=s.high_bid - 4)]
    return None


def test_record_bid_not_higher_than_the_last_is_illegal() -> None:
    for finder in (_equal_bid, _lower_bid):
        find_and_check(
            finder,
            ["bidding"],
            "illegal action",
            lambda s: f"seat {s.turn} must bid more than {s.high_bid}: bids rise",
        )


def _passed_seat(s: QuintusState) -> int | None:
    passed = s.observation(0).passed
    return passed[0] if in_auction(s) and passed else None


def test_record_bid_after_passing_is_illegal() -> None:
    def finder(s: QuintusState) -> list[JSON] | None:
        p = _passed_seat(s)
        if p is None or (s.high_bid or 0) >= 120:
            return None
        return [obj(p, "bid", amount=max(30, (s.high_bid or 0) + 2))]

    find_and_check(
        finder,
        ["bidding"],
        "illegal action",
        lambda s: f"seat {_passed_seat(s)} has passed and may not bid again",
    )


def test_record_bid_or_pass_in_the_base_game_is_illegal() -> None:
    for bad in (obj(0, "bid", amount=40), obj(0, "pass")):

        def finder(s: QuintusState, bad: JSON = bad) -> list[JSON] | None:
            return [{**bad, "seat": s.quintus}] if s.phase == TRUMP else None

        find_and_check(finder, ["base"], "illegal action", "the base game has no auction")


def test_record_bid_after_the_auction_is_illegal() -> None:
    find_and_check(
        lambda s: [obj(s.quintus, "bid", amount=120)] if s.phase in (TRUMP, NIL) else None,
        ["bidding"],
        "illegal action",
        "cannot bid: the auction is over",
    )


def test_record_bid_out_of_turn_is_illegal() -> None:
    def finder(s: QuintusState) -> list[JSON] | None:
        if not in_auction(s) or (s.high_bid or 0) >= 120:
            return None
        others = [v for v in range(5) if v != s.turn and v not in s.observation(0).passed]
        return [obj(others[0], "bid", amount=120)] if others else None

    find_and_check(finder, ["bidding"], "illegal action", "'s turn, not seat")


# ------------------------------------------------------------- trump and nil


def test_record_trump_or_nil_by_a_non_quintus_is_illegal() -> None:
    for phase, bad in ((TRUMP, obj(0, "trump", suit="H")), (NIL, obj(0, "nil", kind="open"))):

        def finder(s: QuintusState, phase: int = phase, bad: JSON = bad) -> list[JSON] | None:
            return [{**bad, "seat": (s.quintus + 2) % 5}] if s.phase == phase else None

        find_and_check(
            finder,
            ["base", "bidding"],
            "illegal action",
            lambda s: f"only the quintus (seat {s.quintus}) chooses trump and nil",
        )


def test_record_nil_before_trump_is_illegal() -> None:
    find_and_check(
        lambda s: [obj(s.quintus, "nil", kind="none")] if s.phase == TRUMP else None,
        ["base", "bidding"],
        "illegal action",
        "must first name trump (a suit or NT)",
    )


def test_record_play_before_nil_is_illegal() -> None:
    def finder(s: QuintusState) -> list[JSON] | None:
        if s.phase != NIL:
            return None
        return [obj(s.quintus, "play", card=card_str(mask_cards(s.hands[s.quintus])[0]))]

    find_and_check(
        finder, ["base", "bidding"], "illegal action", "must declare nil (none, closed or open)"
    )


def test_record_trump_in_trick_play_is_illegal() -> None:
    find_and_check(
        lambda s: [obj(s.turn, "trump", suit="NT")] if s.phase == PLAY and s.trick else None,
        ["base", "bidding"],
        "illegal action",
        "trick play has begun",
    )


# -------------------------------------------------------------- premium faults


def test_record_meld_or_decline_with_nothing_to_claim_is_illegal() -> None:
    for kind, fields in (
        ("meld", {"combo": "court"}),
        ("meld", {"combo": "straight"}),
        ("decline", {}),
    ):

        def finder(s: QuintusState, kind: str = kind, fields: JSON = fields) -> list[JSON] | None:
            if s.phase == PLAY and s.tricks_played >= 1 and not s.trick:
                return [obj(s.turn, kind, **fields)]
            return None

        find_and_check(
            finder,
            ["base", "bidding"],
            "illegal action",
            f"cannot {kind}: there is no court or straight in the last trick",
        )


def test_record_meld_by_a_seat_other_than_the_winner_is_illegal() -> None:
    def finder(s: QuintusState) -> list[JSON] | None:
        if s.phase != MELD:
            return None
        combo = s.pending_meld
        return [obj((s.turn + 1) % 5, "meld", combo=combo)]

    find_and_check(
        finder,
        ["base", "bidding"],
        "illegal action",
        lambda s: (
            f"seat {s.turn} won the trick and must first meld or decline its {s.pending_meld}"
        ),
    )


def test_record_decline_by_a_seat_other_than_the_winner_is_illegal() -> None:
    find_and_check(
        lambda s: [obj((s.turn + 3) % 5, "decline")] if s.phase == MELD else None,
        ["base", "bidding"],
        "illegal action",
        "won the trick and must first meld or decline",
    )


def test_record_meld_of_the_wrong_combination_is_illegal() -> None:
    def finder(s: QuintusState) -> list[JSON] | None:
        if s.phase != MELD:
            return None
        wrong = "straight" if s.pending_meld == "court" else "court"
        return [obj(s.turn, "meld", combo=wrong)]

    find_and_check(
        finder,
        ["base", "bidding"],
        "illegal action",
        lambda s: (
            f"the trick holds a {s.pending_meld}, not a "
            f"{'straight' if s.pending_meld == 'court' else 'court'}"
        ),
    )


def test_record_play_while_a_meld_is_pending_is_illegal() -> None:
    def finder(s: QuintusState) -> list[JSON] | None:
        if s.phase != MELD or s.tricks_played == 8:
            return None
        return [obj(s.turn, "play", card=card_str(mask_cards(s.hands[s.turn])[0]))]

    find_and_check(
        finder,
        ["base", "bidding"],
        "illegal action",
        lambda s: f"seat {s.turn} must first meld or decline the trick's {s.pending_meld}",
    )


def test_record_signal_while_a_meld_is_pending_is_illegal() -> None:
    def finder(s: QuintusState) -> list[JSON] | None:
        if s.phase != MELD:
            return None
        seat = next(v for v in range(5) if v not in (s.turn, s.quintus))
        return [obj(seat, "signal", signal="up")]

    find_and_check(
        finder,
        ["base", "bidding"],
        "illegal action",
        lambda s: f"cannot signal while seat {s.turn} decides to meld or decline",
    )


# --------------------------------------------------------------- signal faults


def test_record_signal_by_the_quintus_is_illegal() -> None:
    find_and_check(
        lambda s: [obj(s.quintus, "signal", signal="ask")] if s.phase == PLAY else None,
        ["base", "bidding"],
        "illegal action",
        lambda s: f"seat {s.quintus} is the quintus and may not signal",
    )


def _played_non_quintus(s: QuintusState) -> int | None:
    if s.phase != PLAY:
        return None
    for seat, _ in s.trick_pairs():
        if seat != s.quintus:
            return seat
    return None


def test_record_signal_after_playing_to_the_trick_is_illegal() -> None:
    def finder(s: QuintusState) -> list[JSON] | None:
        seat = _played_non_quintus(s)
        return None if seat is None else [obj(seat, "signal", signal="down")]

    find_and_check(
        finder,
        ["base", "bidding"],
        "illegal action",
        lambda s: f"seat {_played_non_quintus(s)} has already played to this trick",
    )


def _free_signaller(s: QuintusState) -> int | None:
    if s.phase != PLAY:
        return None
    for v in range(5):
        if SIGNAL_UP in s.legal_actions(v):
            return v
    return None


def test_record_second_signal_in_a_trick_is_illegal() -> None:
    def finder(s: QuintusState) -> list[JSON] | None:
        v = _free_signaller(s)
        if v is None or not s.trick:
            return None
        return [obj(v, "signal", signal="up"), obj(v, "signal", signal="ask")]

    find_and_check(
        finder,
        ["base", "bidding"],
        "illegal action",
        lambda s: f"seat {_free_signaller(s)} has already signalled in this trick",
    )


def test_record_signal_outside_trick_play_is_illegal() -> None:
    def finder(s: QuintusState) -> list[JSON] | None:
        if s.phase not in (AUCTION, TRUMP, NIL):
            return None
        return [obj((s.turn + 1) % 5, "signal", signal="up")]

    find_and_check(
        finder, ["base", "bidding"], "illegal action", "signals are given during trick play only"
    )


# ----------------------------------------------------------------- card faults


def _trump_lead(s: QuintusState) -> list[JSON] | None:
    if s.phase != PLAY or s.trick or s.tricks_played or s.trump >= 4 or s.turn != s.quintus:
        return None
    hand = s.hands[s.quintus]
    trumps = hand & SUIT_MASK[s.trump]
    if not trumps or trumps == hand:
        return None
    return [obj(s.quintus, "play", card=card_str(mask_cards(trumps)[0]))]


def test_record_trump_led_to_the_first_trick_is_illegal() -> None:
    find_and_check(
        _trump_lead,
        ["base", "bidding"],
        "illegal action",
        "the quintus must lead the first trick with a non-trump card",
    )


def _renege(s: QuintusState) -> list[JSON] | None:
    if s.phase != PLAY or not s.trick:
        return None
    led = SUIT_OF[s.trick[0]]
    hand = s.hands[s.turn]
    others = hand & ~SUIT_MASK[led]
    if not hand & SUIT_MASK[led] or not others:
        return None
    return [obj(s.turn, "play", card=card_str(mask_cards(others)[0]))]


def test_record_not_following_suit_is_illegal() -> None:
    find_and_check(
        _renege,
        ["base", "bidding"],
        "illegal action",
        lambda s: f"seat {s.turn} must follow",
    )


def test_record_card_not_held_is_illegal() -> None:
    def finder(s: QuintusState) -> list[JSON] | None:
        if s.phase != PLAY:
            return None
        other = s.hands[(s.turn + 1) % 5]
        return [obj(s.turn, "play", card=card_str(mask_cards(other)[-1]))]

    find_and_check(
        finder, ["base", "bidding"], "illegal action", lambda s: f"seat {s.turn} does not hold"
    )


def test_record_play_out_of_turn_is_illegal() -> None:
    def finder(s: QuintusState) -> list[JSON] | None:
        if s.phase != PLAY or len(s.trick) != 2:
            return None
        other = (s.turn + 1) % 5
        return [obj(other, "play", card=card_str(mask_cards(s.hands[other])[0]))]

    find_and_check(
        finder,
        ["base", "bidding"],
        "illegal action",
        lambda s: f"it is seat {s.turn}'s turn, not seat {(s.turn + 1) % 5}'s",
    )


@pytest.mark.parametrize("code", ["2H", "4S", "3c", "JK", "jk"])
def test_record_card_not_in_the_quintus_pack_is_illegal(code: str) -> None:
    find_and_check(
        lambda s: [obj(s.turn, "play", card=code)] if s.phase == PLAY else None,
        ["base", "bidding"],
        "illegal action",
        f"{code.upper()} is not in the Quintus pack",
    )


@pytest.mark.parametrize("code", ["1H", "ZZ", "", 12, None])
def test_record_bad_card_code_is_invalid(code: object) -> None:
    find_and_check(
        lambda s: [obj(s.turn, "play", card=code)] if s.phase == PLAY else None,
        ["base", "bidding"],
        "invalid",
        "card",
    )


@pytest.mark.parametrize("kind", ["double", "redouble"])
def test_record_double_or_redouble_in_quintus_is_invalid(kind: str) -> None:
    find_and_check(
        lambda s: [obj(s.turn, kind)] if s.phase != OVER else None,
        ["base", "bidding"],
        "invalid",
        f"action type '{kind}' is not a Quintus action",
    )


@pytest.mark.parametrize(
    ("bad", "phrase"),
    [
        (obj(5, "pass"), "seat 5 is out of range 0..4"),
        (obj(-1, "pass"), "seat -1 is out of range 0..4"),
        (obj(1, "trump", suit="X"), "suit must be one of S, C, D, H, NT"),
        (obj(1, "nil", kind="half"), "nil kind must be one of none, closed, open"),
        (obj(1, "meld", combo="flush"), "combo must be one of court, straight"),
        (obj(1, "signal", signal="left"), "signal must be one of up, down, ask"),
        (obj(1, "fold"), "unknown action type 'fold'"),
    ],
)
def test_record_malformed_quintus_action_is_invalid(bad: JSON, phrase: str) -> None:
    find_and_check(lambda s: [bad], ["base", "bidding"], "invalid", phrase, min_hand=1)


# ----------------------------------------------------------- after the hand


def test_record_action_after_a_finished_hand_is_illegal() -> None:
    for bad in (obj(0, "play", card="AS"), obj(1, "signal", signal="up"), obj(2, "decline")):
        for seed in range(3):
            match = random_match(seed, ["base", "bidding"][seed % 2])
            data = as_json(match)
            hand = next(i for i, h in enumerate(match.hands) if not h.void)
            n = len(data["hands"][hand]["actions"])
            data["hands"][hand]["actions"].append(bad)
            check(data, "illegal action", hand, n, "the hand is over")
            last = len(data["hands"]) - 1
            data = as_json(match)
            data["hands"][last]["actions"].append(bad)
            want = "the hand is void" if match.hands[last].void else "the hand is over"
            check(data, "illegal action", last, len(data["hands"][last]["actions"]) - 1, want)


@pytest.mark.parametrize(
    "bad",
    [obj(3, "bid", amount=30), obj(2, "pass"), obj(0, "trump", suit="S"), obj(1, "bid", amount=31)],
)
def test_record_action_after_a_void_hand_is_illegal(bad: JSON) -> None:
    match = random_match(7, "bidding", void_first=True)
    assert match.hands[0].void
    data = as_json(match)
    assert len(data["hands"][0]["actions"]) == 5
    data["hands"][0]["actions"].append(bad)
    check(data, "illegal action", 0, 5, "the hand is void: all five passed")


def test_record_void_hand_scores_zero_and_keeps_its_dealer() -> None:
    match = random_match(7, "bidding", void_first=True)
    data = as_json(match)
    assert data["hands"][1]["dealer"] == data["hands"][0]["dealer"]
    out = score(read_record(json.dumps(data)))
    void = out["hands"][0]
    assert void["quintus"] is None and void["score"] == [0] * 5
    assert void["contract"] is None and void["trump"] is None and void["points"] is None
    assert void["made"] is None and void["nil"] is None
    # Rotating the deal after a void hand is a wrong dealer.
    bad = copy.deepcopy(data)
    for i in range(1, len(bad["hands"])):
        bad["hands"][i]["dealer"] = (bad["hands"][i]["dealer"] + 1) % 5
    d0 = data["hands"][0]["dealer"]
    check(
        bad,
        "invalid",
        1,
        None,
        f"dealer must be seat {d0} by the rotation (a void hand keeps its dealer), "
        f"not seat {(d0 + 1) % 5}",
    )


@pytest.mark.parametrize("variant", ["base", "bidding"])
def test_record_wrong_dealer_is_invalid(variant: str) -> None:
    match = random_match(4, variant)
    data = as_json(match)
    for i in range(1, len(data["hands"])):
        bad = copy.deepcopy(data)
        want = bad["hands"][i]["dealer"]
        bad["hands"][i]["dealer"] = (want + 2) % 5
        check(bad, "invalid", i, None, f"dealer must be seat {want} by the rotation")


def test_record_first_dealer_is_free() -> None:
    for d in range(5):
        match = random_match(d, "base", hands=1)
        assert as_json(match)["hands"][0]["dealer"] == d
        score(read_record(dumps(record_from_match(match))))


@pytest.mark.parametrize("variant", ["base", "bidding"])
def test_record_hand_unfinished_before_another_is_invalid(variant: str) -> None:
    match = random_match(2, variant)
    data = as_json(match)
    for cut in (0, 1, 7, len(data["hands"][0]["actions"]) - 1):
        bad = copy.deepcopy(data)
        acts = bad["hands"][0]["actions"]
        if cut >= len(acts):
            continue
        del acts[cut:]
        check(bad, "invalid", 0, None, "hand 0 is unfinished but hand 1 follows it")
    # The last hand may stop anywhere: it is a hand in progress.
    ok = copy.deepcopy(data)
    ok["hands"][-1]["actions"].pop()
    out = score(read_record(json.dumps(ok)))
    assert out["complete"] is False and out["hands"][-1]["score"] is None


# ----------------------------------------------------------------- deal faults


def test_record_quintus_deal_with_a_cachette_is_invalid() -> None:
    data = as_json(random_match(1, "base"))
    for cachette in ([], ["2S", "3S", "4S", "2C", "3C"], None):
        bad = copy.deepcopy(data)
        bad["hands"][1]["deal"]["cachette"] = cachette
        check(bad, "invalid", 1, None, "a quintus deal has no cachette")


@pytest.mark.parametrize("code", ["2H", "JK", "4C"])
def test_record_quintus_deal_with_a_card_outside_the_pack_is_invalid(code: str) -> None:
    data = as_json(random_match(1, "bidding"))
    bad = copy.deepcopy(data)
    bad["hands"][0]["deal"]["hands"][2][3] = code
    check(bad, "invalid", 0, None, f"card {code} is not in the pack")


def test_record_quintus_deal_of_the_wrong_shape_is_invalid() -> None:
    data = as_json(random_match(1, "base"))
    hands = data["hands"][0]["deal"]["hands"]
    cases: list[tuple[JSON, str]] = []
    bad = copy.deepcopy(data)
    bad["hands"][0]["deal"]["hands"][1] = hands[1][:7]
    cases.append((bad, "deal.hands[1] has 7 cards, not 8"))
    bad = copy.deepcopy(data)
    bad["hands"][0]["deal"]["hands"][1] = [*hands[1][:7], hands[0][0]]
    cases.append((bad, "is dealt twice"))
    bad = copy.deepcopy(data)
    bad["hands"][0]["deal"]["hands"] = hands[:4]
    cases.append((bad, "deal.hands must list the 5 seats' hands"))
    bad = copy.deepcopy(data)
    bad["hands"][0]["deal"]["hands"] = [*hands, []]
    cases.append((bad, "deal.hands must list the 5 seats' hands"))
    for record, phrase in cases:
        check(record, "invalid", 0, None, phrase)


def test_rejected_records_score_nothing() -> None:
    """A fault in the last hand rejects the whole record, not just that hand."""
    match = random_match(3, "base")
    data = as_json(match)
    last = len(data["hands"]) - 1
    data["hands"][last]["actions"].insert(0, obj(match.hands[last].quintus, "bid", amount=40))
    err = check(data, "illegal action", last, 0, "the base game has no auction")
    assert set(err.to_json()) == {"error", "hand", "action", "detail"}


def test_refusal_through_the_match_layer_changes_nothing() -> None:
    match = random_match(5, "bidding", hands=2)
    data = as_json(match)
    m2 = QuintusMatch(QuintusRules(variant="bidding", hands=3), first_dealer=match.first_dealer)
    for h in match.hands:
        s = m2.start_hand(hands=h.initial_hands())
        for seat, a in h.history():
            m2.act(a, seat)
    s = m2.start_hand(hands=random_deal(random.Random(0)))
    before = fingerprint(s)
    for bad, who in (("bid 31", None), ("trump H", None), ("signal up", 2), ("JK", None)):
        with pytest.raises((IllegalActionError, InvalidActionError)):
            m2.act(bad, who)
    assert fingerprint(s) == before
    assert m2.totals() == match.totals()
    assert len(data["hands"]) == len(match.hands)


def test_card_codes_in_messages_are_canonical() -> None:
    s = playing("AD")
    with pytest.raises(IllegalActionError) as info:
        s.act("10s")
    assert str(info.value).startswith("seat 1 does not hold TS; holds ")
