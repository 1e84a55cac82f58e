"""A Quintus session: a set number of hands with the deal rotating.

>>> import random
>>> m = QuintusMatch(QuintusRules(hands=2), first_dealer=0)
>>> h = m.start_hand(rng=random.Random(1))
>>> h.quintus, m.next_dealer()
(4, 1)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar

from quintet.actions import Action
from quintet.cards import CardMask
from quintet.errors import IllegalActionError
from quintet.quintus.rules import SEATS, QuintusRules
from quintet.quintus.state import QuintusState, random_deal


def dealer_after(dealer: int, void: bool) -> int:
    """Return the next hand's dealer after ``dealer``'s hand: clockwise, the same after a void.

    >>> dealer_after(4, False), dealer_after(2, True)
    (0, 2)
    """
    return dealer if void else (dealer + 1) % SEATS


class QuintusMatch:
    """A Quintus session of ``rules.hands`` hands (void bidding hands do not count).

    The deal passes clockwise after each hand; a void hand (all five passed) is dealt
    again by the same dealer. Each seat's total is the sum of its hand scores.
    """

    game: ClassVar[str] = "quintus"
    #: Why the next dealer is who he is, in an error about the wrong one.
    DEALER_RULE: ClassVar[str] = " (a void hand keeps its dealer)"
    #: Quintus has no lone seat (the quintus changes from hand to hand).
    lone_seat: ClassVar[None] = None

    def __init__(self, rules: QuintusRules | None = None, first_dealer: int = 0) -> None:
        """Start a session.

        Raises:
            ValueError: the first dealer is out of range.
        """
        if not 0 <= first_dealer < SEATS:
            raise ValueError(f"dealer {first_dealer} is out of range 0..4")
        self.rules = rules or QuintusRules()
        self.first_dealer = first_dealer
        self.hands: list[QuintusState] = []

    @property
    def state(self) -> QuintusState | None:
        """The hand being played (or the last one), None before the first deal."""
        return self.hands[-1] if self.hands else None

    def next_dealer(self) -> int:
        """Return the next hand's dealer: clockwise, or the same after a void hand."""
        if not self.hands:
            return self.first_dealer
        last = self.hands[-1]
        return dealer_after(last.dealer, last.void)

    def hands_played(self) -> int:
        """Return the number of finished hands that count toward the session (not void)."""
        return sum(1 for h in self.hands if h.is_terminal() and not h.void)

    def is_over(self) -> bool:
        """Return whether the session's hands have all been played."""
        return self.hands_played() >= self.rules.hands

    def start_hand(
        self, hands: Sequence[CardMask] | None = None, rng: random.Random | None = None
    ) -> QuintusState:
        """Deal the next hand: the given cards, or a random deal with ``rng``.

        Raises:
            IllegalActionError: the session is over or the current hand is not finished.
            ValueError: the cards are not a complete Quintus deal.
        """
        if self.is_over():
            raise IllegalActionError(f"the session of {self.rules.hands} hands is over")
        return self._deal(hands, rng)

    def _deal(self, hands: Sequence[CardMask] | None, rng: random.Random | None) -> QuintusState:
        last = self.state
        if last is not None and not last.is_terminal():
            raise IllegalActionError(f"hand {len(self.hands) - 1} is not finished")
        if hands is None:
            if rng is None:
                raise ValueError("start_hand needs the cards or an rng to deal them")
            hands = random_deal(rng)
        state = QuintusState.new(self.rules, self.next_dealer(), hands)
        self.hands.append(state)
        return state

    @classmethod
    def for_record(
        cls, rules: QuintusRules, first_dealer: int, lone_seat: int | None = None
    ) -> QuintusMatch:
        """Return the empty match of a record whose first hand ``first_dealer`` deals."""
        return cls(rules, first_dealer=first_dealer)

    def closed(self) -> str | None:
        """Return None: a record may hold more hands than the session (record-format.md)."""
        return None

    def deal_recorded(
        self, hands: Sequence[CardMask], cachette: CardMask | None = None
    ) -> QuintusState:
        """Deal the next hand of a record, past the session's length too."""
        return self._deal(hands, None)

    def why_over(self, state: QuintusState) -> str:
        """Return why no action may be taken in ``state``, a finished hand of this match."""
        return "the hand is void: all five passed" if state.void else "the hand is over"

    def act(self, action: Action | str, seat: int | None = None) -> None:
        """Check and apply an action to the current hand.

        Raises:
            IllegalActionError: no hand is in play, the session is over, or the rules
                forbid the action.
            InvalidActionError: the action names nothing Quintus has.
        """
        state = self.state
        if state is None:
            raise IllegalActionError("no hand has been dealt")
        if state.is_terminal() and self.is_over():
            raise IllegalActionError(f"the session of {self.rules.hands} hands is over")
        state.act(action, seat)

    def totals(self) -> list[int]:
        """Return each seat's total over the finished hands."""
        total = [0] * SEATS
        for h in self.hands:
            if h.is_terminal():
                for s, x in enumerate(h.scores()):
                    total[s] += x
        return total

    def score_summary(self) -> dict[str, Any]:
        """Return the scorer's object for the session (record-format.md, ``quintet score``)."""
        hands = []
        totals = [0] * SEATS
        complete = True
        for st in self.hands:
            done = st.is_terminal()
            complete = complete and done
            entry: dict[str, Any] = {
                "dealer": st.dealer,
                "quintus": st.quintus_seat,
                "contract": st.contract,
                "trump": st.trump_name(),
                "nil": st.nil_name(),
                "points": None,
                "made": None,
                "score": None,
            }
            if st.void:
                entry["score"] = [0] * SEATS
            elif done:
                qp, ta, tb = st.points()
                entry["points"] = {"quintus": qp, "teams": [ta, tb]}
                entry["made"] = st.made()
                entry["score"] = st.scores()
            if entry["score"] is not None:
                totals = [t + x for t, x in zip(totals, entry["score"], strict=True)]
            hands.append(entry)
        return {"game": self.game, "complete": complete, "hands": hands, "totals": totals}

    def winners(self) -> list[int]:
        """Return the seats with the highest total (more than one on a tie)."""
        total = self.totals()
        best = max(total)
        return [s for s in range(SEATS) if total[s] == best]
