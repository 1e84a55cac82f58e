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
from typing import ClassVar

from quintet.actions import Action
from quintet.cards import CardMask
from quintet.errors import IllegalActionError
from quintet.quintus.rules import SEATS, QuintusRules
from quintet.quintus.state import QuintusState, random_deal


class QuintusMatch:
    """A Quintus session of ``rules.hands`` hands (void bidding hands do not count).

    The deal passes clockwise after each hand; a void hand (all five passed) is dealt
    again by the same dealer. Each seat's total is the sum of its hand scores.
    """

    game: ClassVar[str] = "quintus"

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
        return last.dealer if last.void else (last.dealer + 1) % SEATS

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

    def winners(self) -> list[int]:
        """Return the seats with the highest total (more than one on a tie)."""
        total = self.totals()
        best = max(total)
        return [s for s in range(SEATS) if total[s] == best]
