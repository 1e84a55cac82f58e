"""Random playouts of every Quinto variant and option, checked against a reference model.

Each example deals with ``random.Random(deal_seed)`` and chooses uniformly among
``legal_actions()`` with ``random.Random(play_seed)``. The engine is compared step by step
with :class:`RefHand`, a deliberately naive re-statement of ``shared/spec/rulings.md``
written over Python sets of card numbers (card = suit * 13 + rank, joker 52, the encoding
documented in ``quintet.cards``); it shares no code with the engine.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from hypothesis import event, given, settings
from hypothesis import strategies as st

from quintet.actions import DOUBLE, PASS, REDOUBLE
from quintet.errors import IllegalActionError
from quintet.game import TERMINAL
from quintet.quinto import QuintoMatch, QuintoRules, QuintoState
from quintet.record import dumps, read_record, record_from_match, replay
from quintet.record import score as record_score

# --------------------------------------------------------------------------- reference

JK = 52
PACK = frozenset(range(53))
SUIT_QUINT = (5, 10, 15, 20)
HAND = 12
TRICKS = 12

Play = tuple[int, int]  # (seat, card)
RefEvent = tuple[object, ...]


def suit(c: int) -> int:
    """Return the suit of an ordinary card (0 spades .. 3 hearts)."""
    return c // 13


def to_mask(cards: Iterable[int]) -> int:
    """Return the engine's bitmask of a set of card numbers."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def to_set(mask: int) -> set[int]:
    """Return the card numbers of an engine bitmask."""
    return {c for c in range(53) if mask >> c & 1}


def ref_quints(cards: Iterable[int]) -> int:
    """Return the quint value of a trick or cachette, from the rules' quint table."""
    cs = set(cards)
    v = 25 if JK in cs else 0
    for s in range(4):
        two, three, four, five, ace = (13 * s + r for r in (0, 1, 2, 3, 12))
        if five in cs:
            v += SUIT_QUINT[s]
        if ace in cs and four in cs:
            v += SUIT_QUINT[s]
        if two in cs and three in cs:
            v += SUIT_QUINT[s]
    return v


def ref_trick_winner(plays: list[Play]) -> int:
    """Return the seat that played the highest non-joker card."""
    return max((c, seat) for seat, c in plays if c != JK)[1]


def ref_legal_cards(hand: set[int], trick: list[int], tricks_played: int, j11: bool) -> set[int]:
    """Return the cards a player may play: follow suit, joker rules, joker_eleventh_trick."""
    if not trick:
        return {JK} if hand == {JK} else hand - {JK}
    led = trick[0]
    if led == JK:
        event("joker led")
        legal = set(hand)
    else:
        same = {c for c in hand if c != JK and suit(c) == suit(led)}
        legal = (same | (hand & {JK})) if same else set(hand)
    if j11 and tricks_played == 10 and JK in hand and len(hand) == 2:
        (other,) = hand - {JK}
        if other > max(c for c in trick if c != JK):
            event("joker_eleventh_trick forces the joker")
            legal = {JK}
    return legal


def ref_doubling_legal(multiplier: int, doubler_side: int | None, seat: int) -> set[int]:
    """Return the legal doubling-round actions of ``seat``."""
    if multiplier == 1:
        return {PASS, DOUBLE}
    if multiplier == 2 and doubler_side != seat & 1:
        return {PASS, REDOUBLE}
    return {PASS}


class RefHand:
    """One hand of Quinto restated from the rulings, slowly and plainly."""

    def __init__(
        self,
        rules: QuintoRules,
        dealer: int,
        hands: list[set[int]],
        cachette: set[int],
        start: tuple[int, int],
        lone: int | None,
    ) -> None:
        self.target = rules.target
        self.j11 = rules.joker_eleventh_trick
        self.dealer = dealer
        self.lone = lone
        self.dummy = None if lone is None else (lone + 2) % 4
        self.order = [s for s in ((dealer + i) % 4 for i in range(1, 5)) if s != self.dummy]
        self.hands = [set(h) for h in hands]
        self.cachette = set(cachette)
        self.start = start
        self.score = list(start)
        self.phase = "doubling"
        self.spoken = 0
        self.multiplier = 1
        self.doubler_side: int | None = None
        self.leader = (dealer + 1) % 4
        self.trick: list[Play] = []
        self.tricks_played = 0
        self.tricks_won = [0, 0]
        self.winner: int | None = None
        self.tie = False
        self.cachette_side: int | None = None
        self.events: list[RefEvent] = []
        self.voids: list[set[int]] = [set() for _ in range(4)]
        self.no_joker = [False] * 4

    @classmethod
    def position(
        cls,
        rules: QuintoRules,
        hands: list[set[int]],
        leader: int,
        trick: list[int],
        cachette: set[int],
        score: tuple[int, int],
        tricks_won: tuple[int, int],
        multiplier: int,
        lone: int | None,
    ) -> RefHand:
        """Return a hand in play, as ``QuintoState.from_position`` describes it."""
        ref = cls(rules, (leader + 3) % 4, hands, cachette, score, lone)
        ref.phase = "play"
        ref.leader = leader
        ref.multiplier = multiplier
        ref.trick = [((leader + i) % 4, c) for i, c in enumerate(trick)]
        ref.tricks_played = TRICKS - len(hands[leader]) - (1 if trick else 0)
        ref.tricks_won = list(tricks_won)
        return ref

    def to_act(self) -> int | None:
        """Return the seat to act, None once the hand is over."""
        if self.phase == "over":
            return None
        if self.phase == "doubling":
            return self.order[self.spoken]
        return (self.leader + len(self.trick)) % 4

    def legal(self) -> set[int]:
        """Return the legal actions of the seat to act."""
        seat = self.to_act()
        if seat is None:
            return set()
        if self.phase == "doubling":
            return ref_doubling_legal(self.multiplier, self.doubler_side, seat)
        cards = [c for _, c in self.trick]
        return ref_legal_cards(self.hands[seat], cards, self.tricks_played, self.j11)

    def apply(self, seat: int, action: int) -> None:
        """Take a legal action (asserting that it is legal)."""
        assert seat == self.to_act(), (seat, self.to_act())
        assert action in self.legal(), (action, self.legal())
        if self.phase == "doubling":
            if action == DOUBLE:
                self.multiplier = 2
                self.doubler_side = seat & 1
            elif action == REDOUBLE:
                self.multiplier = 4
            self.spoken += 1
            if self.spoken == len(self.order):
                self.phase = "play"
            return
        cards = [c for _, c in self.trick]
        if cards and cards[0] != JK and action != JK and suit(action) != suit(cards[0]):
            self.voids[seat].add(suit(cards[0]))
        eleventh = self.j11 and self.tricks_played == 10 and cards and action != JK
        if eleventh and action > max(c for c in cards if c != JK):
            self.no_joker[seat] = True
        self.hands[seat].remove(action)
        self.trick.append((seat, action))
        if len(self.trick) == 4:
            self._end_trick()

    def _quints_win(self, side: int, q: int) -> bool:
        self.score[side] += q
        if q and self.score[side] >= self.target:
            self.winner = side
            self.phase = "over"
            self.events.append(("game", side, tuple(self.score)))
            return True
        return False

    def _end_trick(self) -> None:
        w = ref_trick_winner(self.trick)
        cards = frozenset(c for _, c in self.trick)
        side = w % 2
        q = ref_quints(cards)
        self.tricks_won[side] += 1
        self.tricks_played += 1
        self.trick = []
        self.leader = w
        self.events.append(("trick", w, cards, q))
        if self._quints_win(side, q):
            return
        if self.tricks_played < TRICKS:
            return
        self.cachette_side = side
        self.tricks_won[side] += 1
        cq = ref_quints(self.cachette)
        self.events.append(("cachette", side, frozenset(self.cachette), cq))
        if self._quints_win(side, cq):
            return
        value = 5 * self.multiplier
        tp = (self.tricks_won[0] * value, self.tricks_won[1] * value)
        self.score[0] += tp[0]
        self.score[1] += tp[1]
        self.events.append(("tricks", tp))
        a, b = self.score
        if a >= self.target or b >= self.target:
            if a == b:
                self.tie = True
                self.events.append(("game", None, (a, b)))
            else:
                self.winner = 0 if a > b else 1
                self.events.append(("game", self.winner, (a, b)))
        self.phase = "over"

    def visible(self, viewer: int, view: str) -> set[int]:
        """Return the seats whose hands the player deciding for ``viewer`` may see, under
        the ``dummy_double_view`` option ``view``."""
        if self.lone is None:
            return {viewer}
        v = self.lone if viewer == self.dummy else viewer
        if v != self.lone:
            return {v}  # an opponent of the lone player never sees the dummy
        assert self.dummy is not None
        if self.phase != "doubling":
            return {self.lone, self.dummy}
        if view == "leading" and self.dealer != self.lone:
            # Hoyle: he doubles from whichever of his two hands plays first.
            seats = [(self.dealer + i) % 4 for i in range(1, 5)]
            return {next(s for s in seats if s in (self.lone, self.dummy))}
        return {self.lone}


# --------------------------------------------------------------------------- configs


@dataclass(frozen=True)
class Config:
    """One random hand: the rules, the deal and the seeds."""

    variant: str
    lone: int | None
    dealer: int
    target: int
    j11: bool
    view: str
    handicap: int
    start: tuple[int, int]
    deal_seed: int
    play_seed: int

    def rules(self) -> QuintoRules:
        """Return the rules of this configuration."""
        return QuintoRules(
            variant=self.variant,
            target=self.target,
            dummy_handicap=self.handicap,
            joker_eleventh_trick=self.j11,
            dummy_double_view=self.view,
        )


SEEDS = st.integers(0, 2**32 - 1)
TARGETS = st.one_of(st.just(250), st.integers(1, 120))


@st.composite
def configs(draw: st.DrawFn) -> Config:
    """Draw a variant, every option, a start score and the seeds."""
    variant = draw(st.sampled_from(["partnership", "dummy"]))
    lone = draw(st.integers(0, 3)) if variant == "dummy" else None
    dummy = None if lone is None else (lone + 2) % 4
    dealer = draw(st.sampled_from([s for s in range(4) if s != dummy]))
    target = draw(TARGETS)
    handicap = draw(st.one_of(st.just(25), st.integers(0, target - 1)))
    kind = draw(st.sampled_from(["zero", "handicap", "below", "tie"]))
    start: tuple[int, int]
    if kind == "zero":
        start = (0, 0)
    elif kind == "handicap":
        opp = 1 if lone is None else (lone + 1) % 2
        start = (handicap, 0) if opp == 0 else (0, handicap)
    elif kind == "below":
        start = (draw(st.integers(0, target - 1)), draw(st.integers(0, target - 1)))
    else:
        t = draw(st.integers(target, target + 100))
        start = (t, t)
    return Config(
        variant=variant,
        lone=lone,
        dealer=dealer,
        target=target,
        j11=draw(st.booleans()),
        view=draw(st.sampled_from(["own", "leading"])),
        handicap=handicap,
        start=start,
        deal_seed=draw(SEEDS),
        play_seed=draw(SEEDS),
    )


def deal(cfg: Config) -> tuple[QuintoState, RefHand]:
    """Deal the hand of ``cfg`` to the engine and to the reference."""
    rng = random.Random(cfg.deal_seed)
    pack = list(range(53))
    rng.shuffle(pack)
    hands = [set(pack[5 + 12 * i : 17 + 12 * i]) for i in range(4)]
    cachette = set(pack[:5])
    state = QuintoState.new(
        cfg.rules(), cfg.dealer, [to_mask(h) for h in hands], to_mask(cachette), cfg.start, cfg.lone
    )
    ref = RefHand(cfg.rules(), cfg.dealer, hands, cachette, cfg.start, cfg.lone)
    return state, ref


# --------------------------------------------------------------------------- checks


def assert_same(state: QuintoState, ref: RefHand) -> None:
    """The engine's state and legal actions equal the reference's."""
    to_act = ref.to_act()
    assert state.current_player() == (TERMINAL if to_act is None else to_act)
    assert state.is_terminal() == (to_act is None)
    legal = state.legal_actions()
    assert list(legal) == sorted(set(legal)), "legal actions must be ascending, each once"
    assert set(legal) == ref.legal()
    for s in range(4):
        if s != to_act:
            assert state.legal_actions(s) == ()
    assert state.hands == [to_mask(h) for h in ref.hands]
    assert state.score == ref.score
    assert state.tricks_won == ref.tricks_won
    assert state.multiplier == ref.multiplier
    assert state.game_winner == ref.winner
    assert state.tied == ref.tie
    assert state.cachette_side == ref.cachette_side
    if to_act is not None:
        # (When quints end the game, the engine leaves the last trick on the table.)
        assert state.trick_pairs() == tuple(ref.trick)
    d = (ref.score[0] - ref.start[0]) - (ref.score[1] - ref.start[1])
    assert state.returns() == [d, -d, d, -d]


def assert_cards_conserved(state: QuintoState) -> None:
    """Hands + played cards + cachette are the 53-card pack, each card once."""
    played = [0, 0, 0, 0]
    seen = 0
    for seat, a in state.history():
        if 0 <= a <= JK:
            assert not seen >> a & 1, f"card {a} played twice"
            seen |= 1 << a
            played[seat] |= 1 << a
    total = state.cachette
    for s in range(4):
        assert not total & state.hands[s]
        total |= state.hands[s]
        assert not total & played[s]
        total |= played[s]
    assert total == to_mask(PACK)
    for s in range(4):
        assert state.hands[s].bit_count() + played[s].bit_count() == HAND
    assert state.cachette.bit_count() == 5
    trick = state.trick_pairs()
    if trick:
        assert [(s, a) for s, a in state.history()[-len(trick) :]] == list(trick)


def check_observations(state: QuintoState, ref: RefHand, view: str) -> None:
    """Each seat's observation shows exactly the hands its player may see."""
    to_act = ref.to_act()
    for seat in range(4):
        obs = state.observation(seat)
        vis = ref.visible(seat, view)
        v = ref.lone if seat == ref.dummy else seat
        assert obs.viewer == v
        for s in range(4):
            if s in vis:
                assert obs.hands[s] == to_mask(ref.hands[s]), (seat, s)
            else:
                assert obs.hands[s] is None, f"seat {seat} sees hand {s}"
        assert obs.hand_sizes == tuple(len(h) for h in ref.hands)
        assert obs.history == tuple(state.history())
        assert obs.score == tuple(ref.score)
        if to_act is not None:
            assert obs.trick == tuple(ref.trick)
        assert obs.multiplier == ref.multiplier
        taken = ref.cachette_side is not None
        assert obs.cachette == (to_mask(ref.cachette) if taken else None)
        controls = to_act is not None and (ref.lone if to_act == ref.dummy else to_act) == v
        want = tuple((to_act, a) for a in sorted(ref.legal())) if controls else ()
        assert obs.legal_actions == want


def fingerprint(state: QuintoState) -> tuple[object, ...]:
    """Everything observable about a state, to detect any change."""
    return (
        state.render(),
        tuple(state.history()),
        tuple(state.hands),
        state.cachette,
        tuple(state.score),
        tuple(state.tricks_won),
        state.current_player(),
        state.legal_actions(),
        tuple(state.trick),
        state.multiplier,
        state.phase,
        state.game_winner,
        tuple(state.events()),
        tuple(state.observation(s) for s in range(4)),
        tuple(str(state.observation(s)) for s in range(4)),
    )


def engine_events(state: QuintoState) -> list[RefEvent]:
    """Return the engine's non-action events in the reference's form."""
    out: list[RefEvent] = []
    for e in state.events():
        if e.kind == "trick":
            out.append(("trick", e.seat, frozenset(to_set(e.cards)), e.points))
        elif e.kind == "cachette":
            out.append(("cachette", e.seat, frozenset(to_set(e.cards)), e.points))
        elif e.kind == "tricks":
            out.append(("tricks", e.values))
        elif e.kind == "game":
            out.append(("game", e.seat, e.values))
        else:
            assert e.kind == "action"
    return out


def check_final(state: QuintoState, ref: RefHand) -> None:
    """Events equal the reference's; the score is the start plus the scoring events."""
    events = state.events()
    assert [(e.seat, e.action) for e in events if e.kind == "action"] == state.history()
    assert engine_events(state) == ref.events
    total = list(state.start_score)
    for e in events:
        if e.kind == "trick":
            assert e.seat is not None
            total[e.seat % 2] += e.points
        elif e.kind == "cachette":
            assert e.seat is not None
            total[e.seat] += e.points
        elif e.kind == "tricks":
            total[0] += e.values[0]
            total[1] += e.values[1]
    assert total == state.score
    # The end of the game, recomputed from the scores and events alone.
    a, b = state.score
    t = ref.target
    counted = any(e.kind == "tricks" for e in events)
    if not counted:
        # Abandoned: the last trick (or the cachette) brought its winner to the target
        # with quints, and nothing was scored after it.
        w = state.game_winner
        assert w is not None, "a hand ends early only when quints win the game"
        last = [e for e in events if e.kind in ("trick", "cachette")][-1]
        assert last.seat is not None and last.points > 0
        assert (last.seat % 2 if last.kind == "trick" else last.seat) == w
        assert (state.score[w] >= t and state.score[w] - last.points < t) or ref.start[w] >= t
        assert events[-1].kind == "game" and events[-1].seat == w
        event(
            "game won by quints" + (" from the cachette" if ref.cachette_side is not None else "")
        )
    else:
        assert ref.cachette_side is not None
        assert sum(state.tricks_won) == 13
        if (a >= t or b >= t) and a != b:
            assert state.game_winner == (0 if a > b else 1)
        else:
            assert state.game_winner is None
        assert state.tied == (a == b and a >= t)
        tie = ", tie" if state.tied else ""
        won = ", won" if state.game_winner is not None else ""
        event("hand played out" + tie + won)
    event(f"tricks x{state.multiplier}")


def play_out(state: QuintoState, ref: RefHand, rng: random.Random) -> None:
    """Play uniformly random legal actions to the end, comparing every step."""
    while not state.is_terminal():
        assert_same(state, ref)
        seat = state.current_player()
        a = rng.choice(state.legal_actions())
        state.act(a, seat)
        ref.apply(seat, a)
    assert_same(state, ref)
    check_final(state, ref)


def initial_deal(state: QuintoState) -> tuple[list[int], int]:
    """Return the hands and the cachette as the hand (or position) began."""
    return state.initial_hands(), state.initial_cachette()


def ref_of(state: QuintoState, rules: QuintoRules) -> RefHand:
    """Return a reference hand replaying ``state``'s deal and history (checking legality)."""
    hands, cachette = initial_deal(state)
    ref = RefHand(
        rules, state.dealer, [to_set(h) for h in hands], to_set(cachette), state.start_score,
        state.lone_seat,
    )  # fmt: skip
    for seat, a in state.history():
        ref.apply(seat, a)
    return ref


def trace(cfg: Config) -> list[tuple[object, ...]]:
    """Deal and play ``cfg``'s hand with no checks; return (history, render) per step."""
    state, _ = deal(cfg)
    rng = random.Random(cfg.play_seed)
    out: list[tuple[object, ...]] = [(tuple(state.history()), state.render())]
    while not state.is_terminal():
        state.act(rng.choice(state.legal_actions()))
        out.append((tuple(state.history()), state.render()))
    return out


# --------------------------------------------------------------------------- tests

FAST = settings(max_examples=400, deadline=None)
#: Steps of a hand at which to check something: the doubling round often, any step else.
POINTS = st.sets(st.one_of(st.integers(0, 4), st.integers(0, 56)), min_size=1, max_size=4)


@FAST
@given(cfg=configs())
def test_random_playouts_follow_the_rules(cfg: Config) -> None:
    """Cards conserved, legality, tricks, quints, scores, game end and privacy, every step."""
    state, ref = deal(cfg)
    choose = random.Random(cfg.play_seed)
    check = random.Random(cfg.play_seed ^ 0x5EED)
    steps: list[tuple[object, ...]] = []
    while True:
        assert_same(state, ref)
        assert_cards_conserved(state)
        check_observations(state, ref, cfg.view)
        steps.append((tuple(state.history()), state.render()))
        if state.is_terminal():
            break
        seat = state.current_player()
        legal = state.legal_actions()
        a = choose.choice(legal)
        if check.random() < 0.2:
            bad = [x for x in range(56) if x not in legal]
            before = (tuple(state.history()), tuple(state.hands), state.render())
            try:
                state.act(check.choice(bad), seat)
            except IllegalActionError:
                pass
            else:
                raise AssertionError("an illegal action was accepted")
            assert before == (tuple(state.history()), tuple(state.hands), state.render())
        state.act(a, seat)
        ref.apply(seat, a)
    check_final(state, ref)
    for seat in range(4):
        try:
            state.act(PASS, seat)
        except IllegalActionError:
            pass
        else:
            raise AssertionError("an action was accepted after the end of the hand")
    # Determinism: the same seeds give the same hand, step by step.
    assert trace(cfg) == steps
    assert trace(cfg) == steps


@FAST
@given(cfg=configs(), when=st.integers(0, 60), seed=SEEDS)
def test_clone_and_child_never_change_the_original(cfg: Config, when: int, seed: int) -> None:
    """Playing a clone (or a child) to the end leaves the original exactly as it was."""
    state, ref = deal(cfg)
    rng = random.Random(cfg.play_seed)
    for _ in range(when):
        if state.is_terminal():
            break
        seat = state.current_player()
        a = rng.choice(state.legal_actions())
        state.act(a, seat)
        ref.apply(seat, a)
    before = fingerprint(state)
    clone = state.clone()
    assert fingerprint(clone) == before
    play_out(clone, ref_of(clone, cfg.rules()), random.Random(seed))
    assert fingerprint(state) == before
    if not state.is_terminal():
        for a in state.legal_actions():
            child = state.child(a)
            assert child.history() == [*state.history(), (state.current_player(), a)]
            play_out(child, ref_of(child, cfg.rules()), random.Random(seed))
    assert fingerprint(state) == before
    play_out(state, ref, rng)


def forbidden_for(ref: RefHand, seat: int) -> set[int]:
    """Return the cards ``seat`` has shown it cannot hold (voids; joker_eleventh_trick)."""
    out = {c for c in range(52) if suit(c) in ref.voids[seat]}
    if ref.no_joker[seat]:
        out.add(JK)
    return out


def check_resample(state: QuintoState, ref: RefHand, cfg: Config, seat: int, seed: int) -> None:
    """``resample_from_infostate(seat)`` keeps what the seat's player knows, and only that."""
    before = fingerprint(state)
    obs = state.observation(seat)
    r = state.resample_from_infostate(seat, random.Random(seed))
    assert fingerprint(state) == before, "resampling changed the original"
    assert r.observation(seat) == obs
    assert str(r.observation(seat)) == str(obs)
    assert r.history() == state.history()
    assert [h.bit_count() for h in r.hands] == [h.bit_count() for h in state.hands]
    assert r.score == state.score
    vis = ref.visible(seat, cfg.view)
    for s in vis:
        assert r.hands[s] == state.hands[s]
    if ref.cachette_side is not None:
        assert r.cachette == state.cachette
    for s in range(4):
        assert not r.hands[s] & to_mask(forbidden_for(ref, s)), f"seat {s} gets a shown void"
    assert_cards_conserved(r)
    # The whole history is legal from the resampled deal, and play goes on legally.
    r_ref = ref_of(r, cfg.rules())
    assert_same(r, r_ref)
    play_out(r, r_ref, random.Random(seed))


@FAST
@given(cfg=configs(), points=POINTS, seed=SEEDS)
def test_resample_keeps_the_information_state(cfg: Config, points: set[int], seed: int) -> None:
    """For every seat, at random points (doubling round included) and at the end."""
    state, ref = deal(cfg)
    rng = random.Random(cfg.play_seed)
    step = 0
    while True:
        if step in points or state.is_terminal():
            event(f"resample in {state.observation(0).phase}")
            for seat in range(4):
                check_resample(state, ref, cfg, seat, seed + seat)
        if state.is_terminal():
            break
        seat = state.current_player()
        a = rng.choice(state.legal_actions())
        state.act(a, seat)
        ref.apply(seat, a)
        step += 1


def permuted_hidden(
    state: QuintoState, ref: RefHand, viewer: int, view: str, seed: int
) -> QuintoState:
    """Return ``state`` with the cards ``viewer`` cannot see shuffled at random (unchecked)."""
    rng = random.Random(seed)
    vis = ref.visible(viewer, view)
    hidden = [s for s in range(4) if s not in vis]
    slots: list[int] = [len(ref.hands[s]) for s in hidden]
    pool = [c for s in hidden for c in sorted(ref.hands[s])]
    cachette_hidden = ref.cachette_side is None
    if cachette_hidden:
        slots.append(5)
        pool += sorted(ref.cachette)
    rng.shuffle(pool)
    initial, cachette = initial_deal(state)
    new = list(initial)
    i = 0
    for k, s in enumerate(hidden):
        new[s] = (initial[s] & ~state.hands[s]) | to_mask(pool[i : i + slots[k]])
        i += slots[k]
    if cachette_hidden:
        cachette = to_mask(pool[i:])
    out = QuintoState.new(
        state.rules, state.dealer, new, cachette, state.start_score, state.lone_seat
    )
    for seat, a in state.history():
        out.apply_action(a, seat)
    return out


@FAST
@given(cfg=configs(), points=POINTS, seed=SEEDS)
def test_observation_depends_only_on_visible_cards(
    cfg: Config, points: set[int], seed: int
) -> None:
    """Shuffling the cards a player may not see changes neither his observation nor its text."""
    state, ref = deal(cfg)
    rng = random.Random(cfg.play_seed)
    step = 0
    while True:
        if step in points or state.is_terminal():
            for seat in range(4):
                other = permuted_hidden(state, ref, seat, cfg.view, seed + step * 4 + seat)
                assert other.observation(seat) == state.observation(seat)
                assert str(other.observation(seat)) == str(state.observation(seat))
                assert other.render(viewer=seat) == state.render(viewer=seat)
        if state.is_terminal():
            break
        seat = state.current_player()
        a = rng.choice(state.legal_actions())
        state.act(a, seat)
        ref.apply(seat, a)
        step += 1


# ----------------------------------------------------------------- endgame positions


@dataclass(frozen=True)
class Position:
    """A position in play, as ``QuintoState.from_position`` takes it."""

    hands: tuple[frozenset[int], ...]
    leader: int
    trick: tuple[int, ...]
    cachette: frozenset[int]
    rules: QuintoRules
    score: tuple[int, int]
    tricks_won: tuple[int, int]
    multiplier: int
    lone: int | None

    def state(self) -> QuintoState:
        """Return the engine's position."""
        return QuintoState.from_position(
            [to_mask(h) for h in self.hands],
            self.leader,
            self.rules,
            trick=self.trick,
            cachette=to_mask(self.cachette),
            multiplier=self.multiplier,
            score=self.score,
            tricks_won=self.tricks_won,
            lone_seat=self.lone,
        )

    def ref(self, hands: list[int] | None = None, cachette: int | None = None) -> RefHand:
        """Return the reference position (with other starting cards, if given)."""
        hs = [set(h) for h in self.hands] if hands is None else [to_set(h) for h in hands]
        cs = set(self.cachette) if cachette is None else to_set(cachette)
        return RefHand.position(
            self.rules, hs, self.leader, list(self.trick), cs, self.score, self.tricks_won,
            self.multiplier, self.lone,
        )  # fmt: skip


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """Draw a random position in play, often at the 11th trick with the joker in a hand."""
    left = draw(st.sampled_from([1, 2, 2, 2, 3, 4, 6]))
    leader = draw(st.integers(0, 3))
    n = draw(st.integers(0, 3))
    rng = random.Random(draw(SEEDS))
    pack = list(range(53))
    rng.shuffle(pack)
    lo, hi = 5 + n, 5 + 4 * left  # pack[lo:hi] are the cards held
    j = pack.index(JK)
    if draw(st.booleans()) and not lo <= j < hi:
        # Put the joker in a hand: the case joker_eleventh_trick is about.
        k = rng.randrange(lo, hi)
        pack[j], pack[k] = pack[k], pack[j]
    if n and pack[5] == JK and left > 1:
        # The joker leads only as its holder's last card.
        pack[5], pack[lo] = pack[lo], pack[5]
    rest = pack[lo:hi]
    hands: list[frozenset[int]] = [frozenset()] * 4
    for i in range(4):
        k = left - 1 if i < n else left
        hands[(leader + i) % 4] = frozenset(rest[:k])
        rest = rest[k:]
    variant = draw(st.sampled_from(["partnership", "dummy"]))
    target = draw(TARGETS)
    below = st.integers(0, target - 1)
    played = TRICKS - left
    w0 = draw(st.integers(0, played))
    return Position(
        hands=tuple(hands),
        leader=leader,
        trick=tuple(pack[5:lo]),
        cachette=frozenset(pack[:5]),
        rules=QuintoRules(variant=variant, target=target, joker_eleventh_trick=draw(st.booleans())),
        score=(draw(below), draw(below)),
        tricks_won=(w0, played - w0),
        multiplier=draw(st.sampled_from([1, 2, 4])),
        lone=draw(st.integers(0, 3)) if variant == "dummy" else None,
    )


@settings(max_examples=1500, deadline=None)
@given(pos=positions(), when=st.integers(0, 24), seed=SEEDS)
def test_random_endgames_follow_the_rules(pos: Position, when: int, seed: int) -> None:
    """From random positions (joker at the 11th trick, tricks in progress) to the end, with
    every seat's resample checked at one random point."""
    state, ref = pos.state(), pos.ref()
    trick = state.trick_pairs()
    sizes = [h.bit_count() + sum(1 for s, _ in trick if s == seat) for seat, h in
             enumerate(state.hands)]  # fmt: skip
    assert len(set(sizes)) == 1
    rng = random.Random(seed)
    step = 0
    while True:
        assert_same(state, ref)
        if step == when or state.is_terminal():
            for seat in range(4):
                obs = state.observation(seat)
                r = state.resample_from_infostate(seat, random.Random(seed + seat))
                assert r.observation(seat) == obs
                assert str(r.observation(seat)) == str(obs)
                for s in ref.visible(seat, "own"):
                    assert r.hands[s] == state.hands[s]
                for s in range(4):
                    assert not r.hands[s] & to_mask(forbidden_for(ref, s))
                r_ref = pos.ref(*initial_deal(r))
                for who, a in r.history():
                    r_ref.apply(who, a)
                play_out(r, r_ref, random.Random(seed))
            when = -1
        if state.is_terminal():
            break
        seat = state.current_player()
        a = rng.choice(state.legal_actions())
        state.act(a, seat)
        ref.apply(seat, a)
        step += 1
    check_final(state, ref)


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class MatchConfig:
    """A random match: rules, first dealer, seeds, a cap on hands and a partial stop."""

    rules: QuintoRules
    lone: int | None
    first_dealer: int | None
    seed: int
    max_hands: int
    stop_at: int | None


@st.composite
def match_configs(draw: st.DrawFn) -> MatchConfig:
    """Draw a partnership rubber or a dummy game under random options."""
    variant = draw(st.sampled_from(["partnership", "dummy"]))
    lone = draw(st.integers(0, 3)) if variant == "dummy" else None
    target = draw(st.one_of(st.just(250), st.integers(1, 120)))
    rules = QuintoRules(
        variant=variant,
        target=target,
        rubber_bonus=draw(st.one_of(st.just(100), st.integers(0, 300))),
        dummy_handicap=draw(st.one_of(st.just(25), st.integers(0, target - 1))),
        joker_eleventh_trick=draw(st.booleans()),
        dummy_double_view=draw(st.sampled_from(["own", "leading"])),
    )
    first = draw(st.one_of(st.none(), st.integers(0, 3))) if lone is None else lone
    stop = draw(st.one_of(st.none(), st.integers(0, 56)))
    return MatchConfig(rules, lone, first, draw(SEEDS), draw(st.integers(1, 25)), stop)


@FAST
@given(mc=match_configs())
def test_random_matches_round_trip_through_records(mc: MatchConfig) -> None:
    """Deal rotation, game and rubber rules, then record → dumps → read_record → score."""
    rules = mc.rules
    match = QuintoMatch(rules, first_dealer=mc.first_dealer, lone_seat=mc.lone)
    rng = random.Random(mc.seed)
    dummy = None if mc.lone is None else (mc.lone + 2) % 4
    fresh = (0, 0)
    if mc.lone is not None:
        h = rules.dummy_handicap
        fresh = (h, 0) if (mc.lone + 1) % 2 == 0 else (0, h)
    dealer = mc.first_dealer if mc.first_dealer is not None else 0
    games: list[tuple[tuple[int, int], int | None]] = []
    new_game = True
    score = fresh
    while not match.is_over() and len(match.hands) < mc.max_hands:
        state = match.start_hand(rng=rng)
        assert state.dealer == dealer
        if new_game:
            score = fresh
            games.append((score, None))
        assert state.start_score == score
        ref = ref_of(state, rules)
        last = len(match.hands) == mc.max_hands
        n = 0
        while not state.is_terminal():
            if last and mc.stop_at is not None and n == mc.stop_at:
                break
            seat = state.current_player()
            a = rng.choice(state.legal_actions())
            match.act(a, seat)
            ref.apply(seat, a)
            n += 1
        assert_same(state, ref)
        score = (state.score[0], state.score[1])
        if state.tied:
            event("tie carried into another hand")
        games[-1] = (score, state.game_winner)
        new_game = state.game_winner is not None
        dealer = (dealer + 1) % 4
        if dealer == dummy:
            dealer = (dealer + 1) % 4
        if not state.is_terminal():
            break
    # The match's own accounting equals the reference's.
    assert [(g.score, g.winner) for g in match.games()] == games
    won = [sum(1 for _, w in games if w == side) for side in (0, 1)]
    if mc.lone is None:
        over = max(won) >= 2
        winner = (0 if won[0] >= 2 else 1) if over else None
    else:
        winner = games[0][1]
        over = winner is not None
    assert match.is_over() == over
    event(f"{len(games)} games, {'decided' if over else 'undecided'}")
    assert match.winner() == winner
    if mc.lone is None and winner is not None:
        totals = [sum(g[0][0] for g in games), sum(g[0][1] for g in games)]
        totals[winner] += rules.rubber_bonus
        assert match.rubber_score() == tuple(totals)
    else:
        assert match.rubber_score() is None
    if mc.lone is not None:
        assert match.next_lone_seat() == (mc.lone + 1) % 4
    # Round trip.
    record = record_from_match(match)
    text = dumps(record)
    again = read_record(text)
    assert again == record
    assert dumps(again) == text
    replayed = replay(again)
    assert isinstance(replayed, QuintoMatch)
    assert [h.history() for h in replayed.hands] == [h.history() for h in match.hands]
    assert replayed.games() == match.games()
    flip = mc.lone is not None and mc.lone % 2 == 1
    expect_games = []
    for (a, b), w in games:
        if flip:
            a, b = b, a
            w = None if w is None else 1 - w
        expect_games.append({"score": [a, b], "winner": w})
    scored = record_score(again)
    assert scored["games"] == expect_games
    assert scored["complete"] == over
    if mc.lone is None:
        rs = match.rubber_score()
        assert scored["rubber"] == {"winner": winner, "score": list(rs) if rs else None}
    else:
        assert scored["rubber"] is None
