"""What both games' hand states share: history, snapshots and resampling.

A hand state keeps an immutable *context* shared by all its copies; the context
holds a *snapshot* of the state when the hand (or position) began, so the public
event log can be replayed and the deal recovered without copying history around.
"""

from __future__ import annotations

import random
from typing import Any, Self

from quintet.actions import Action, is_play
from quintet.cards import CardMask
from quintet.sampling import deal_constrained


class HandState:
    """Base of :class:`~quintet.quinto.QuintoState` and :class:`~quintet.quintus.QuintusState`.

    Subclasses define ``__slots__`` holding at least ``ctx`` (with a ``snapshot`` and a
    ``fork()`` method), ``hands`` and ``_hist`` (actions encoded ``seat << 8 | action``).
    """

    __slots__ = ()

    num_seats: int
    ctx: Any
    hands: list[CardMask]
    _hist: list[int]

    def clone(self) -> Self:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def apply_action(self, action: Action, seat: int | None = None) -> None:  # pragma: no cover
        raise NotImplementedError

    def visible_seats(self, viewer: int) -> tuple[int, ...]:  # pragma: no cover
        raise NotImplementedError

    def _constraints(self) -> list[CardMask]:  # pragma: no cover
        raise NotImplementedError

    def child(self, action: Action, seat: int | None = None) -> Self:
        """Return a copy with ``action`` applied (unchecked)."""
        s = self.clone()
        s.apply_action(action, seat)
        return s

    def history(self) -> list[tuple[int, Action]]:
        """Return every action so far as ``(seat, action)``."""
        return [(h >> 8, h & 0xFF) for h in self._hist]

    def played_by_seat(self) -> list[CardMask]:
        """Return per seat the cards it has played since the hand (or position) began."""
        played = [0] * self.num_seats
        for h in self._hist:
            a = h & 0xFF
            if is_play(a):
                played[h >> 8] |= 1 << a
        return played

    def snapshot(self) -> Self:
        """Return a copy of the state as the hand (or position) began."""
        snap: Self = self.ctx.snapshot
        return snap.clone()

    # Game hooks for cards that are neither in a hand nor played (Quinto's cachette).
    def _hidden_extra(self) -> CardMask | None:
        return None

    def _set_extra(self, mask: CardMask) -> None:  # pragma: no cover - Quinto overrides
        raise NotImplementedError

    def resample_from_infostate(self, seat: int, rng: random.Random) -> Self:
        """Return a copy where the cards ``seat``'s player cannot see are dealt again.

        Hidden hands keep their sizes and never receive a card their holder's play has
        ruled out (a suit it showed void in, or what a rule reveals); other unseen cards
        (Quinto's cachette) are dealt too. The result's observation for ``seat`` equals
        this state's.
        """
        return self.resample(seat, rng)

    def resample(
        self,
        seat: int,
        rng: random.Random,
        forbidden: list[CardMask] | None = None,
        rebase: bool = True,
    ) -> Self:
        """Resample like :meth:`resample_from_infostate`, for search loops.

        ``forbidden`` may pass :meth:`constraints` computed once for many samples; with
        ``rebase`` False the copy keeps this state's snapshot (its event log and deal are
        then this state's: fine for a search that only plays on).
        """
        vis = self.visible_seats(seat)
        hidden = [s for s in range(self.num_seats) if s not in vis]
        if forbidden is None:
            forbidden = self._constraints()
        pool = 0
        for s in hidden:
            pool |= self.hands[s]
        slots = [(self.hands[s].bit_count(), forbidden[s]) for s in hidden]
        extra = self._hidden_extra()
        if extra is not None:
            pool |= extra
            slots.append((extra.bit_count(), 0))
        dealt = deal_constrained(pool, slots, rng)
        out = self.clone()
        for s, m in zip(hidden, dealt, strict=False):
            out.hands[s] = m
        if extra is not None:
            out._set_extra(dealt[-1])
        if rebase:
            out._rebase()
        return out

    def constraints(self) -> list[CardMask]:
        """Return per seat the cards its play has shown it cannot hold."""
        return self._constraints()

    def _rebase(self) -> None:
        """Give this state its own context whose snapshot holds its current cards."""
        ctx = self.ctx.fork()
        snap = self.ctx.snapshot.clone()
        played = self.played_by_seat()
        snap.ctx = ctx
        snap.hands = [m | p for m, p in zip(self.hands, played, strict=True)]
        extra = self._hidden_extra()
        if extra is not None:
            snap._set_extra(extra)
        ctx.snapshot = snap
        self.ctx = ctx

    def initial_hands(self) -> list[CardMask]:
        """Return each seat's hand as the hand (or position) began."""
        hands: list[CardMask] = self.ctx.snapshot.hands
        return hands[:]
