"""What both games' hand states share: checked actions, copies, history, snapshots and
resampling.

A hand state keeps an immutable *context* shared by all its copies; the context
holds a *snapshot* of the state when the hand (or position) began (kept without a
context of its own), so the public event log can be replayed and the deal recovered
without copying history around. What views need from the history is kept up to date
as actions are applied (the cards each seat's play has ruled out) or follows from the
cards (what each seat has played: its hand at the start less its hand now), so that a
view of a state never seen before costs no more than one seen often.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar, Self

from quintet.actions import Action, action_type, parse_action
from quintet.cards import CardMask
from quintet.errors import IllegalActionError, InvalidActionError
from quintet.game import IllegalReason
from quintet.sampling import deal_constrained

#: ``(seat, action)`` pairs at ``seat << 8 | action``: the history's entries are these
#: shared tuples (one object per pair, however many states hold it).
_PAIRS: tuple[tuple[int, Action], ...] = tuple((h >> 8, h & 0xFF) for h in range(8 << 8))
#: The hidden seats by (number of seats, visible seats).
_HIDDEN: dict[tuple[int, tuple[int, ...]], tuple[int, ...]] = {}


class HandState:
    """Base of :class:`~quintet.quinto.QuintoState` and :class:`~quintet.quintus.QuintusState`.

    Subclasses define ``__slots__`` holding at least ``ctx`` (with a ``snapshot`` and a
    ``fork()`` method), ``hands``, ``turn``, ``_hist`` (the actions as ``(seat, action)``,
    the shared tuples of ``_PAIRS``), ``_htup`` (the history as a tuple when last asked
    for, ``()`` in a new state: see :meth:`history_pairs`), ``_forb`` (per seat the cards
    its play has ruled out, a tuple replaced when it grows, all 0 in a new state; kept by
    ``apply_action``) and ``_base`` (None, or the hands as the hand began with this
    state's cards: see :meth:`_start_hands`), name in ``LIST_SLOTS`` the slots holding
    lists (a copy gets its own), and say which action types their game has
    (``ACTION_KINDS``, by their record names) and what the game is called in messages
    (``TITLE``). :meth:`clone` is generated for each subclass from its slots, as fast as
    one written by hand (search copies states millions of times).
    """

    __slots__ = ()

    num_seats: int
    ctx: Any
    hands: list[CardMask]
    turn: int
    _hist: list[tuple[int, Action]]
    _htup: tuple[tuple[int, Action], ...]
    _forb: tuple[CardMask, ...]
    _base: tuple[CardMask, ...] | None
    #: The slots holding lists: a copy gets its own.
    LIST_SLOTS: ClassVar[tuple[str, ...]] = ()
    #: The action types this game has (``play``, ``pass``, ``bid`` ...).
    ACTION_KINDS: ClassVar[frozenset[str]] = frozenset()
    #: The game's name in messages ("Quinto").
    TITLE: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        slots = cls.__dict__.get("__slots__", ())
        if not slots:
            return
        unknown = set(cls.LIST_SLOTS) - set(slots)
        if unknown:
            raise TypeError(f"{cls.__name__}.LIST_SLOTS names no slot: {sorted(unknown)}")
        body = "".join(
            f"    s.{n} = self.{n}[:]\n" if n in cls.LIST_SLOTS else f"    s.{n} = self.{n}\n"
            for n in slots
        )
        src = f"def clone(self):\n    s = _new(_cls)\n{body}    return s\n"
        shared = "".join(f"    s.{n} = self.{n}\n" for n in slots)
        src += f"def _share(self):\n    s = _new(_cls)\n{shared}    return s\n"
        namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
        exec(src, namespace)
        clone = namespace["clone"]
        clone.__qualname__ = f"{cls.__qualname__}.clone"
        clone.__doc__ = "Return an independent copy (history included)."
        cls.clone = clone  # type: ignore[method-assign]
        cls.__copy__ = clone  # type: ignore[attr-defined]
        share = namespace["_share"]
        share.__qualname__ = f"{cls.__qualname__}._share"
        share.__doc__ = "Return a copy sharing this state's lists (for snapshots: never changed)."
        cls._share = share  # type: ignore[method-assign]

    def clone(self) -> Self:  # pragma: no cover - generated for every subclass
        """Return an independent copy (history included)."""
        raise NotImplementedError

    def _share(self) -> Self:  # pragma: no cover - generated for every subclass
        """Return a copy sharing this state's lists (for snapshots: never changed)."""
        raise NotImplementedError

    def legal_actions(self, seat: int | None = None) -> tuple[Action, ...]:  # pragma: no cover
        raise NotImplementedError

    def is_terminal(self) -> bool:  # pragma: no cover
        raise NotImplementedError

    def _illegal(self, a: Action, seat: int) -> str | IllegalReason:  # pragma: no cover
        raise NotImplementedError

    def illegal_reason(self, a: Action, seat: int) -> IllegalReason:
        """Return why ``seat`` may not take action ``a`` now, with the hand cards it names."""
        why = self._illegal(a, seat)
        return why if isinstance(why, IllegalReason) else IllegalReason(why)

    def why_illegal(self, a: Action, seat: int) -> str:
        """Return why ``seat`` may not take action ``a`` now (for error messages)."""
        return self.illegal_reason(a, seat).text

    def parse(self, action: Action | str) -> Action:
        """Return the action number of ``action`` (number or text) if this game has it.

        Raises:
            InvalidActionError: not an action, or not one of this game's.
        """
        a = parse_action(action) if isinstance(action, str) else action
        if isinstance(a, bool) or not isinstance(a, int):
            raise InvalidActionError(f"not an action: {action!r}")
        name = action_type(a)  # raises for a number that names no action
        if name not in self.ACTION_KINDS:
            raise InvalidActionError(f"{name} is not a {self.TITLE} action")
        return a

    def act(self, action: Action | str, seat: int | None = None) -> None:
        """Check and apply ``action`` for ``seat`` (default: the seat to act).

        ``action`` is an action number or text such as ``QS``, ``double``, ``bid 40``.

        Raises:
            InvalidActionError: the text or number names no action of this game.
            IllegalActionError: the rules do not allow it now; the state is unchanged.
        """
        a = self.parse(action)
        if seat is not None and (
            isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.num_seats
        ):
            raise IllegalActionError(f"seat {seat!r} is out of range 0..{self.num_seats - 1}")
        who = self.turn if seat is None else seat
        if self.is_terminal() or a not in self.legal_actions(who):
            raise IllegalActionError(self.why_illegal(a, who))
        self.apply_action(a, who)

    def apply_action(self, action: Action, seat: int | None = None) -> None:  # pragma: no cover
        raise NotImplementedError

    def visible_seats(self, viewer: int) -> tuple[int, ...]:  # pragma: no cover
        raise NotImplementedError

    def private_view(
        self, seat: int
    ) -> tuple[tuple[CardMask | None, ...], tuple[tuple[int, Action], ...]]:
        """Return what the player deciding for ``seat`` sees that others may not: the
        hands he may see (None for the others) and his legal actions as ``(seat,
        action)``, exactly his observation's ``hands`` and ``legal_actions`` without the
        public rest of it (a live table sends each player these at every change and
        the public part once for all)."""
        visible = self.visible_seats(seat)
        hands = tuple([m if s in visible else None for s, m in enumerate(self.hands)])
        me = self.controller(seat)
        legal: tuple[tuple[int, Action], ...] = ()
        for s in self.actors():
            if self.controller(s) == me:
                legal += tuple([(s, a) for a in self.legal_actions(s)])
        return hands, legal

    def controller(self, seat: int) -> int:  # pragma: no cover
        raise NotImplementedError

    def actors(self) -> tuple[int, ...]:  # pragma: no cover
        raise NotImplementedError

    def _forbid(self, seat: int, cards: CardMask) -> None:
        """Add ``cards`` to what ``seat``'s play has shown it cannot hold (``apply_action``)."""
        f = list(self._forb)
        f[seat] |= cards
        self._forb = tuple(f)  # type: ignore[misc]  # a slot of every subclass

    def child(self, action: Action, seat: int | None = None) -> Self:
        """Return a copy with ``action`` applied (unchecked)."""
        s = self.clone()
        s.apply_action(action, seat)
        return s

    def history(self) -> list[tuple[int, Action]]:
        """Return every action so far as ``(seat, action)``."""
        return list(self.history_pairs())

    def history_pairs(self) -> tuple[tuple[int, Action], ...]:
        """Return every action so far as a tuple of ``(seat, action)`` (kept: cheap again).

        The history is kept as those pairs: the tuple is one copy of it, kept until the
        history grows.
        """
        done = self._htup
        hist = self._hist
        if len(done) != len(hist):
            done = tuple(hist)
            self._htup = done  # type: ignore[misc]  # a slot of every subclass
        return done

    def played_by_seat(self) -> list[CardMask]:
        """Return per seat the cards it has played since the hand (or position) began."""
        return [b & ~m for b, m in zip(self._start_hands(), self.hands, strict=True)]

    def _start_hands(self) -> Sequence[CardMask]:
        """Return each seat's hand now plus the cards it has played since the hand began.

        Cards leave a hand only when its seat plays them, so that is the snapshot's hands
        for a state dealt from its snapshot; a resampled copy that keeps its original's
        snapshot (``rebase`` False), and what is made from one, keep theirs in ``_base``.
        """
        base = self._base
        if base is not None:
            return base
        hands: list[CardMask] = self.ctx.snapshot.hands
        return hands

    def snapshot(self) -> Self:
        """Return a copy of the state as the hand (or position) began."""
        snap: Self = self.ctx.snapshot.clone()
        snap.ctx = self.ctx
        return snap

    def position(self) -> Self:
        """Return a copy that begins a position here: its snapshot is this state, its
        history empty.

        Its :meth:`events` are those of what is played from here on only: a live table
        adds an action's public events to its log this way, without replaying the hand.
        """
        out = self.clone()
        out.ctx = self.ctx.fork()
        out._hist = []  # type: ignore[misc]  # slots of every subclass
        out._htup = ()  # type: ignore[misc]
        out._forb = (0,) * self.num_seats  # type: ignore[misc]
        out._base = None  # type: ignore[misc]
        out._new_position()
        out._keep_snapshot()
        return out

    def _keep_snapshot(self) -> None:
        """Keep a copy of this state as its context's snapshot.

        The copy has no context of its own (:meth:`snapshot` gives its copies this one's):
        a context and its snapshot holding each other would be a reference cycle, left for
        the garbage collector to find, for every resampled state.
        """
        snap = self.clone()
        snap.ctx = None
        self.ctx.snapshot = snap

    def _new_position(self) -> None:
        """Forget what the game keeps of the history before a position (see :meth:`position`)."""

    # Game hooks for cards that are neither in a hand nor played (Quinto's cachette).
    def _hidden_extra(self) -> CardMask | None:
        return None

    def _set_extra(self, mask: CardMask) -> None:  # pragma: no cover - Quinto overrides
        raise NotImplementedError

    def resample_from_infostate(self, seat: int, rng: random.Random) -> Self:
        """Return a copy where the cards ``seat``'s player cannot see are dealt again.

        Hidden hands keep their sizes and never receive a card their holder's play has
        ruled out (a suit it showed void in, or what a rule reveals); other unseen cards
        (Quinto's cachette) are dealt too, uniformly over all such deals (see
        :func:`~quintet.sampling.deal_constrained`). The result's observation for
        ``seat`` equals this state's.
        """
        return self.resample(seat, rng)

    def resample(
        self,
        seat: int,
        rng: random.Random,
        forbidden: Sequence[CardMask] | None = None,
        rebase: bool = True,
    ) -> Self:
        """Resample like :meth:`resample_from_infostate`, for search loops.

        ``forbidden`` may pass :meth:`constraints` computed once for many samples; with
        ``rebase`` False the copy keeps this state's snapshot (its event log and deal are
        then this state's: fine for a search that only plays on).
        """
        hidden = self._hidden_seats(seat)
        if forbidden is None:
            forbidden = self._forb
        hands = self.hands
        pool = 0
        slots = []
        for s in hidden:
            m = hands[s]
            pool |= m
            slots.append((m.bit_count(), forbidden[s]))
        extra = self._hidden_extra()
        if extra is not None:
            pool |= extra
            slots.append((extra.bit_count(), 0))
        dealt = deal_constrained(pool, slots, rng)
        out = self.clone()
        new = out.hands
        # The new hands as the hand began: a hidden seat's new cards and what it has played.
        start = self._base  # _start_hands(), inlined
        base = list(self.ctx.snapshot.hands if start is None else start)
        for s, m in zip(hidden, dealt):  # noqa: B905  # the keyword costs more than the loop
            new[s] = m
            base[s] = m | (base[s] & ~hands[s])
        if extra is not None:
            out._set_extra(dealt[-1])
        if rebase:
            out._rebase(base, dealt[-1] if extra is not None else None)
        else:
            out._base = tuple(base)  # type: ignore[misc]  # a slot of every subclass
        return out

    def _hidden_seats(self, seat: int) -> tuple[int, ...]:
        """Return the seats whose hands ``seat``'s player cannot see, in seat order."""
        vis = self.visible_seats(seat)
        hidden = _HIDDEN.get((self.num_seats, vis))
        if hidden is None:
            hidden = tuple(s for s in range(self.num_seats) if s not in vis)
            _HIDDEN[(self.num_seats, vis)] = hidden
        return hidden

    def constraints(self) -> list[CardMask]:
        """Return per seat the cards its play has shown it cannot hold."""
        return list(self._forb)

    def _rebase(self, start: list[CardMask], extra: CardMask | None) -> None:
        """Give this state its own context whose snapshot holds its current cards
        (``start``: its hands plus what each seat has played; ``extra``: its unseen extra
        cards, see :meth:`_hidden_extra`)."""
        ctx = self.ctx.fork()
        # A snapshot is never changed (snapshot() hands out copies): the new one shares the
        # old one's lists, all but its hands.
        snap = self.ctx.snapshot._share()
        snap.hands = start
        self._base = None  # type: ignore[misc]  # a slot of every subclass
        if extra is not None:
            snap._set_extra(extra)
        ctx.snapshot = snap
        self.ctx = ctx

    def start_of_hand(self) -> Self:
        """Return a copy of the state as the hand (or position) began, with this state's
        cards: each hand as it lies here plus what its seat has played since, and the
        unseen extra cards (Quinto's cachette, until taken) as they lie here.

        For a search bot's sampled world (:meth:`resample` with ``rebase`` False, whose
        snapshot is not its own deal): replaying :meth:`history_pairs` from it reaches
        this state again.
        """
        start: Self = self.snapshot()
        base = self._base
        if base is not None:
            start.hands[:] = base  # a copy's own list
            start._base = base  # type: ignore[misc]  # not its snapshot's: its own
        extra = self._hidden_extra()
        if extra is not None:
            start._set_extra(extra)
        return start

    def initial_hands(self) -> list[CardMask]:
        """Return each seat's hand as the hand (or position) began."""
        hands: list[CardMask] = self.ctx.snapshot.hands
        return hands[:]
