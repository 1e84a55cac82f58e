"""The ``heuristic`` level: fast rule-based play a decent player would recognise.

Quinto (Hoffmann's advice included): the original leader without the Quint Royal leads
the ace of spades, else the ace of clubs, for a partner's joker; the joker is thrown on
a partner's trick that is safe; fives go to one's own side's tricks, never to the
other's; sure winners are cashed; a side doubles with strength in the high suits.

Quintus: the quintus bids and picks trump from an estimate of the points his hand can
take, declares nil with no court card or ace to lose, and always melds; defenders take
court cards from the quintus, feed them to their partner's trick, and before the first
lead signal ``up`` with a strong hand and ``down`` with no strength, answering a
partner's ``ask`` in its trick if they have not played to it (:func:`signal_strength`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Final

from quintet.actions import (
    DECLINE,
    DOUBLE,
    MELD_COURT,
    MELD_STRAIGHT,
    NIL_CLOSED,
    NIL_NONE,
    NIL_OPEN,
    PASS,
    REDOUBLE,
    SIGNAL_ASK,
    SIGNAL_DOWN,
    SIGNAL_UP,
    TRUMP_BASE,
    Action,
    bid_amount,
    is_bid,
    is_play,
    is_signal,
)
from quintet.bots.base import BotView, switch
from quintet.cards import (
    ACE,
    CLUBS,
    JOKER,
    JOKER_BIT,
    KING,
    QUINTO_PACK,
    QUINTUS_PACK,
    SPADES,
    SUIT_MASK,
    SUIT_OF,
    Card,
    CardMask,
    card,
    mask_cards,
)
from quintet.quinto.rules import quint_points
from quintet.quintus.rules import FACES, NIL_BREAKERS, PIPS

_NO_JOKER = QUINTO_PACK ^ JOKER_BIT
#: Quinto cards whose loss gives away a quint: fives, aces, fours, twos, threes.
_QUINT_RANKS = (0, 1, 2, 3, 12)
_QUINT_CARDS = sum(1 << card(r, s) for s in range(4) for r in _QUINT_RANKS) | JOKER_BIT


def _visible(obs: Any) -> CardMask:
    m = 0
    for h in obs.hands:
        if h is not None:
            m |= h
    return m


def _lowest(cards: list[Card]) -> Card:
    return min(cards)


def _highest(cards: list[Card]) -> Card:
    return max(cards)


class HeuristicBot:
    """Rule-based play for both games (see the module docstring)."""

    name = "heuristic"

    def __init__(self, mate: int = 1) -> None:
        #: Quinto: second to play, with the partner's hand in view (the lone player and
        #: his dummy), count the trick as the partner's when he holds a sure winner.
        self.mate = switch("mate", mate)

    def act(self, view: BotView) -> Action:
        """Return the heuristic's choice among ``view.legal``."""
        if len(view.legal) == 1:
            return view.legal[0]
        return _ACTS[view.game](view, self)

    def explain(self, view: BotView) -> tuple[Action, str]:
        """Return the heuristic's choice and the rule it applied, in one sentence."""
        _NOTE.why = None
        a = self.act(view)
        why = getattr(_NOTE, "why", None)
        if len(view.legal) == 1:
            why = "the only legal choice"
        return a, why or "the heuristic's choice"

    def signal(self, view: BotView) -> Action | None:
        """Return a Quintus signal with the rulebook's meaning, or None."""
        if not view.signals():  # only Quintus has signals
            return None
        return _quintus_signal(view)


# ------------------------------------------------------------------------- reasons

#: The reason for the last choice this thread's heuristic made (see ``explain``).
_NOTE = threading.local()


def _say(a: Action, why: str) -> Action:
    """Return ``a``, noting ``why`` it was chosen (one sentence, for hints)."""
    _NOTE.why = why
    return a


_WHY_JOKER = "the Quint Royal on a trick your partner is sure to win: its 25 are your side's"
_WHY_FIVE = "a five on a trick your partner is sure to win: its quint is your side's"
_WHY_PAIR = "completes a quint on a trick your partner is sure to win"
_WHY_UNDER = "your partner is winning the trick: the lowest card that leaves it to him"
_WHY_LOWEST = "nothing better to do: your lowest card"
_WHY_SURE = "the cheapest card sure to win the trick, taking its quint when it can"
_WHY_TAKE = (
    "wins the trick for now: the cheapest such card, as the trick holds a quint or is nearly done"
)
_WHY_FEED = "you cannot win the trick: the card that gives the winners the fewest quint points"
_WHY_OPENING = (
    "the opening lead of the ace of spades (or clubs), so that a partner holding the "
    "Quint Royal can throw it (Hoffmann)"
)
_WHY_CASH = "no unseen card can beat it: a sure trick"
_WHY_LEAD_LOW = "nothing sure to lead: the lowest card that cannot give away a quint"
_WHY_MATE = "your partner, whose hand you see, is sure to win this trick after you"
_WHY_SIGNAL = "your team mate signalled strength: lead low and let him take the trick"
_WHY_LEAD_LOW_Q = "nothing sure to lead: your lowest card that is not a court card"
_WHY_TAKE_Q = "the cheapest card that wins the trick, as it holds points or is the last chance"
_WHY_DUMP = "you are not taking this trick: the card worth least to whoever takes it"
_WHY_BREAK = "break the quintus's nil: give his trick an ace or a court card"
_WHY_FEED_MATE = "your team mate is sure to win the trick: give it points"


# ----------------------------------------------------------------------------- Quinto


def quinto_strength(hand: CardMask) -> float:
    """Return the tricks a Quinto hand should win on its own high cards."""
    s = 0.0
    for c in mask_cards(hand & _NO_JOKER):
        suit, rank = divmod(c, 13)
        if suit == 3 and rank >= 8:  # heart ten to ace
            s += 1.0
        elif (suit == 3 and rank >= 5) or (suit == 2 and rank >= KING):
            s += 0.5  # heart seven to nine, diamond king and ace
    return s


def _quinto_act(view: BotView, bot: HeuristicBot) -> Action:
    obs = view.obs
    legal = view.legal
    if obs.phase == "doubling":
        own = obs.hands[view.seat] or 0
        strength = quinto_strength(own)
        if REDOUBLE in legal and strength >= 4.0:
            return _say(
                REDOUBLE,
                f"your high hearts and diamonds are worth {strength:g} tricks: 4 or more redouble",
            )
        if DOUBLE in legal and strength >= 4.5:
            return _say(
                DOUBLE,
                f"your high hearts and diamonds are worth {strength:g} tricks: 4.5 or more double",
            )
        return _say(
            PASS, f"your high hearts and diamonds are worth {strength:g} tricks: too few to double"
        )
    seat = view.seat
    hand = obs.hands[seat] or 0
    side = seat & 1
    cachette = obs.cachette or 0  # type: ignore[attr-defined]
    played = view.played()
    unseen = QUINTO_PACK & ~_visible(obs) & ~played & ~cachette
    unseen &= ~_trick_mask(obs.trick)  # a position may begin mid-trick (no history of it)
    # Cards held by my side that I can see (a dummy hand for the lone player).
    threat = unseen & _NO_JOKER
    for s, h in enumerate(obs.hands):
        if h is not None and s & 1 != side:
            threat |= h & _NO_JOKER
    top_threat = threat.bit_length() - 1
    cards = [a for a in legal if is_play(a)]
    trick = obs.trick
    if not trick:
        return _quinto_lead(obs, hand, cards, played, top_threat)
    best = max(c for _, c in trick if c != JOKER) if any(c != JOKER for _, c in trick) else -1
    winner = next(s for s, c in trick if c == best) if best >= 0 else trick[0][0]
    partner_wins = best >= 0 and winner & 1 == side
    last = len(trick) == 3
    safe = partner_wins and (last or best > top_threat)
    if bot.mate and len(trick) == 1 and best >= 0:
        # Second to play, the partner fourth: when his hand is in view (the lone player
        # and his dummy) and he holds a card he may play that beats every card still
        # out, the trick is his: play to it as to his sure trick.
        his = _mate_sure(obs.hands[(seat + 2) % 4], trick[0][1], max(best, top_threat))
        if his is not None:
            best, partner_wins, safe = his, True, True
    plain = [c for c in cards if c != JOKER and not (_QUINT_CARDS >> c & 1)]
    fives = [c for c in cards if c != JOKER and c % 13 == 3]
    if partner_wins:
        if safe:
            if JOKER in cards:
                # Hoffmann: throw the Quint Royal on a partner's trick
                return _say(JOKER, _WHY_JOKER)
            if fives:
                return _say(_highest(fives), _WHY_FIVE)
            quint = [c for c in cards if c < best and _QUINT_CARDS >> c & 1]
            pairs = [c for c in quint if quint_points((1 << c) | _trick_mask(trick)) > 0]
            if pairs:
                return _say(pairs[0], _WHY_PAIR)
        under = [c for c in plain if c < best] or [c for c in cards if c != JOKER and c < best]
        if under:
            # Second to play, the partner's trick is still to come (his hand in view).
            return _say(_lowest(under), _WHY_MATE if len(trick) == 1 else _WHY_UNDER)
        return _say(_lowest(plain or [c for c in cards if c != JOKER] or cards), _WHY_LOWEST)
    in_trick = _trick_mask(trick)
    value = quint_points(in_trick)
    winners = [c for c in cards if c != JOKER and c > best]
    if winners:
        sure = winners if last else [c for c in winners if c > top_threat]
        if sure and _keep_for_the_cachette(obs, cards, sure, value, top_threat):
            sure = []
        if sure:
            # Capture a quint with the card that wins: the ace on a led four, the two on
            # a three (the cheapest such card; else the cheapest sure winner).
            return _say(_cheapest_capture(sure, in_trick), _WHY_SURE)
        if value or len(trick) >= 2:
            return _say(_cheapest_capture(winners, in_trick), _WHY_TAKE)
    losers = [c for c in plain if c < best] or [c for c in cards if c != JOKER and c < best]
    if not losers:
        losers = [c for c in cards if c != JOKER] or cards
    # Never feed a quint to the opponents' trick: the card that gives them least, lowest.
    return _say(min(losers, key=lambda c: (_gain(c, in_trick), c)), _WHY_FEED)


def _mate_sure(mate: CardMask | None, led: Card, above: int) -> Card | None:
    """Return the partner's highest card he may play to a trick led with ``led`` when it
    beats ``above`` (the trick's best and every card still out), else None (also when
    his hand is not in view)."""
    if mate is None or led == JOKER:
        return None
    mate &= _NO_JOKER
    follow = mate & SUIT_MASK[SUIT_OF[led]]
    top = (follow or mate).bit_length() - 1
    return top if top > above else None


def _gain(c: Card, in_trick: CardMask) -> int:
    """Return the quint points card ``c`` adds to a trick holding ``in_trick``."""
    return quint_points(in_trick | 1 << c) - quint_points(in_trick)


def _cheapest_capture(winners: list[Card], in_trick: CardMask) -> Card:
    """Return the winner that adds most quint points to the trick, the lowest on a tie."""
    return min(winners, key=lambda c: (-_gain(c, in_trick), c))


def _keep_for_the_cachette(
    obs: Any, cards: list[Card], sure: list[Card], value: int, top_threat: int
) -> bool:
    """Return whether to keep a sure winner for the 12th trick, which takes the cachette.

    At the 11th trick with two cards, when the only way to win this trick is the card
    that would surely win the last one, and this trick holds no quint: the 12th trick is
    worth two tricks and the cachette's quints.
    """
    if obs.tricks_played != 10 or len(cards) != 2:
        return False
    other = next(c for c in cards if c != sure[0]) if len(sure) == 1 else None
    return other is not None and other not in sure and sure[0] > top_threat and value == 0


def _trick_mask(trick: tuple[tuple[int, Card], ...]) -> CardMask:
    m = 0
    for _, c in trick:
        m |= 1 << c
    return m


def _quinto_lead(
    obs: Any, hand: CardMask, cards: list[Card], played: CardMask, top_threat: int
) -> Action:
    if len(cards) == 1:
        return cards[0]
    first_lead = not played and obs.tricks_played == 0
    joker_out = bool(played & JOKER_BIT)
    if first_lead and not hand & JOKER_BIT and not joker_out:
        # Hoffmann: the original leader leads the ace of spades, else of clubs, so that
        # a partner holding the Quint Royal can throw it.
        for c in (card(ACE, SPADES), card(ACE, CLUBS)):
            if c in cards:
                return _say(c, _WHY_OPENING)
    sure = [c for c in cards if c != JOKER and c > top_threat]
    if sure:
        return _say(_highest(sure), _WHY_CASH)
    plain = [c for c in cards if c != JOKER and not (_QUINT_CARDS >> c & 1)]
    if plain:
        return _say(_lowest(plain), _WHY_LEAD_LOW)
    return _say(_lowest([c for c in cards if c != JOKER] or cards), _WHY_LOWEST)


# ---------------------------------------------------------------------------- Quintus

_RANK_TRICKS = {12: 1.0, 11: 0.7, 10: 0.4, 9: 0.2}


def quintus_estimate(hand: CardMask, trump: int) -> float:
    """Return the points a quintus holding ``hand`` may expect with ``trump`` (4 = NT)."""
    tricks = 0.0
    for s in range(4):
        suit = [c % 13 for c in mask_cards(hand & SUIT_MASK[s])]
        n = len(suit)
        if s == trump:
            tricks += sum(_RANK_TRICKS.get(r, 0.3) for r in suit)
            tricks += max(0, n - 3) * 0.6
        else:
            for r in suit:
                base = _RANK_TRICKS.get(r, 0.0)
                if trump != 4 and r < ACE:
                    base *= 0.6  # kings and below get trumped
                tricks += base
    # A trick the quintus wins holds about one and a half court cards and three pips.
    own = 10 * (hand & FACES).bit_count()
    return 11.0 * tricks + 0.3 * own - 4


def _quintus_act(view: BotView, bot: HeuristicBot) -> Action:
    obs: Any = view.obs
    legal = view.legal
    seat = view.seat
    hand = obs.hands[seat] or 0
    phase = obs.phase
    if phase == "meld":
        for a in (MELD_COURT, MELD_STRAIGHT):
            if a in legal:
                return _say(a, "a premium melded counts for you")
        return _say(DECLINE, "nothing to meld")
    if phase == "auction":
        best = max(quintus_estimate(hand, t) for t in range(5))
        bids = [a for a in legal if is_bid(a)]
        if bids and bid_amount(bids[0]) <= best - 4:
            return _say(bids[0], f"your hand is worth about {best:.0f} points under its best trump")
        return _say(
            PASS, f"your hand is worth about {best:.0f} points: not enough for the next bid"
        )
    if phase == "trump":
        values = {TRUMP_BASE + t: quintus_estimate(hand, t) for t in range(5)}
        choice = max(values, key=lambda a: (values[a], -a))
        return _say(choice, f"the best estimate for your hand: about {values[choice]:.0f} points")
    if phase == "nil":
        breakers = hand & NIL_BREAKERS
        if not breakers:
            high = max((c % 13 for c in mask_cards(hand)), default=0)
            if high <= 6:  # all cards eight or lower: open
                return _say(NIL_OPEN, "no ace or court card and nothing above an eight: open nil")
            return _say(NIL_CLOSED, "no ace or court card to lose a trick with: nil")
        return _say(NIL_NONE, "aces or court cards would win tricks: no nil")
    cards = [a for a in legal if is_play(a)]
    if len(cards) == 1 and not any(is_signal(a) for a in legal):
        return cards[0]
    return _quintus_play(obs, seat, hand, cards, view.played())


def _beats(c: Card, best: Card, trump: int) -> bool:
    if SUIT_OF[c] == SUIT_OF[best]:
        return c > best
    return SUIT_OF[c] == trump


def _quintus_play(
    obs: Any, seat: int, hand: CardMask, cards: list[Card], played: CardMask
) -> Action:
    q = obs.quintus
    trump = 4 if obs.trump == "NT" else "SCDH".index(obs.trump)
    nil = obs.nil in ("closed", "open") and not _nil_failed(obs, q)
    trick = obs.trick
    gone = played
    for m in obs.taken:  # the same cards in a game; more in a position set up mid-hand
        gone |= m
    unseen = QUINTUS_PACK & ~_visible(obs) & ~gone
    me_q = seat == q
    partner = _partner(seat, q)

    def value(c: Card) -> int:
        return 10 if FACES >> c & 1 else (-1 if PIPS >> c & 1 else 0)

    if not trick:
        if me_q and nil:
            return _say(min(cards, key=lambda c: (c % 13, c)), "playing nil: lead your lowest card")
        # Cash a card no one can beat; else lead low.
        sure = [c for c in cards if _sure_quintus(c, unseen, trump)]
        if sure:
            return _say(max(sure, key=lambda c: (c % 13, c)), _WHY_CASH)
        if not me_q and partner_signal(obs, seat) == "up":
            # The team mate showed strength: lead low and let him take the trick.
            low = [c for c in cards if value(c) <= 0 and SUIT_OF[c] != trump]
            if low:
                return _say(min(low, key=lambda c: (c % 13, c)), _WHY_SIGNAL)
        if me_q and trump < 4:
            trumps = [c for c in cards if SUIT_OF[c] == trump]
            if len(trumps) >= 3:
                return _say(max(trumps), "draw trumps with your highest")
        non_face = [c for c in cards if not FACES >> c & 1]
        return _say(min(non_face or cards, key=lambda c: (c % 13, c)), _WHY_LEAD_LOW_Q)
    best = trick[0][1]
    wpos = 0
    for i, (_, c) in enumerate(trick):
        if _beats(c, best, trump):
            best = c
            wpos = i
    winner = trick[wpos][0]
    pot = sum(value(c) for _, c in trick)
    winners = [c for c in cards if _beats(c, best, trump)]
    losers = [c for c in cards if c not in winners]
    last = len(trick) == 4

    def cheapest(cs: list[Card]) -> Card:
        return min(cs, key=lambda c: (SUIT_OF[c] == trump, c % 13, value(c)))

    def dump(cs: list[Card]) -> Card:
        # Lose the card worth least to whoever takes it: a pip, not a court card.
        return min(cs, key=lambda c: (value(c), c % 13))

    if me_q:
        if nil:
            safe = losers or cards
            return _say(
                max(safe, key=lambda c: (not (NIL_BREAKERS >> c & 1), c % 13)),
                "playing nil: the highest card that does not win the trick",
            )
        if winners and (pot > 0 or last or any(value(c) > 0 for c in cards)):
            return _say(cheapest(winners), _WHY_TAKE_Q)
        return _say(dump(losers or cards), _WHY_DUMP)
    # A defender.
    if nil and winner == q:
        # Make the quintus's winning trick hold a court card or an ace.
        breakers = [c for c in losers if NIL_BREAKERS >> c & 1]
        if breakers:
            return _say(max(breakers, key=lambda c: c % 13), _WHY_BREAK)
    if winner == partner and (last or not _beatable(best, unseen, trump)):
        feed = [c for c in losers if value(c) > 0]
        if feed:
            return _say(max(feed, key=lambda c: c % 13), _WHY_FEED_MATE)
        return _say(dump(losers or cards), _WHY_DUMP)
    if winners and (winner == q or pot > 0 or last):
        return _say(cheapest(winners), _WHY_TAKE_Q)
    return _say(dump(losers or cards), _WHY_DUMP)


def signal_strength(hand: CardMask) -> int:
    """Return the strength a signal reports: aces, and court cards counted half.

    Answering a partner's ``ask``, ``up`` means 2 or more (strong or high-value cards),
    ``down`` less (rulebook 004). Unasked, a defender signals only before the first
    lead: ``up`` at 3 or more, ``down`` at 0, and in between now and then ``ask``
    (one time in five, if his team mate has not signalled).
    """
    return (hand & NIL_BREAKERS & ~FACES).bit_count() + (hand & FACES).bit_count() // 2


def partner_signal(obs: Any, seat: int) -> str | None:
    """Return the last signal this defender's team mate gave in the hand, or None."""
    q = obs.quintus
    if q is None or seat == q:
        return None
    partner = _partner(seat, q)
    last = None
    for s, a in obs.history:
        if s == partner and is_signal(a):
            last = ("up", "down", "ask")[a - SIGNAL_UP]
    return last


def _partner(seat: int, q: int) -> int:
    """Return the team mate of a defender (q+1 with q+3, q+2 with q+4); -1 for the quintus."""
    rel = (seat - q) % 5
    return -1 if rel == 0 else (q + {1: 3, 3: 1, 2: 4, 4: 2}[rel]) % 5


def _nil_failed(obs: Any, q: int) -> bool:
    return bool(obs.taken[q] & NIL_BREAKERS) if obs.taken else False


def _sure_quintus(c: Card, unseen: CardMask, trump: int) -> bool:
    s = SUIT_OF[c]
    higher = unseen & SUIT_MASK[s] & ~((1 << (c + 1)) - 1)
    if higher:
        return False
    return s == trump or trump == 4 or not unseen & SUIT_MASK[trump]


def _beatable(best: Card, unseen: CardMask, trump: int) -> bool:
    s = SUIT_OF[best]
    if unseen & SUIT_MASK[s] & ~((1 << (best + 1)) - 1):
        return True
    return trump < 4 and s != trump and bool(unseen & SUIT_MASK[trump])


def _quintus_signal(view: BotView) -> Action | None:
    obs: Any = view.obs
    seat = view.seat
    hand = obs.hands[seat] or 0
    partner = _partner(seat, obs.quintus)
    signals = dict(obs.signals)
    strong = signal_strength(hand)
    answer = SIGNAL_UP if strong >= 2 else SIGNAL_DOWN
    if signals.get(partner) == "ask" and seat not in signals:
        return answer
    if obs.tricks_played == 0 and not obs.trick and seat not in signals:
        if strong >= 3:
            return SIGNAL_UP
        if strong == 0:
            return SIGNAL_DOWN
        if partner not in signals and view.rng.random() < 0.2:
            return SIGNAL_ASK
    return None


#: The heuristic's play, per game (its strategy is each game's own).
_ACTS: Final[dict[str, Callable[[BotView, HeuristicBot], Action]]] = {
    "quinto": _quinto_act,
    "quintus": _quintus_act,
}
