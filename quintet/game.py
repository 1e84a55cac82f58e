"""The game protocol both engines implement, and the types they share.

A *state* is one hand of a game (Quinto or Quintus), from the deal to its last
trick. It is deterministic and does no I/O; every method below is on both engines
(see :class:`GameState`). Games of several hands (a Quinto rubber, a Quintus
session) are run by each game's match layer on top of it.

Conventions, as in OpenSpiel:

* ``current_player()`` is the seat to act on the main line, or :data:`TERMINAL`.
  Some seats may act out of turn (Quintus signals): ``actors()`` lists every seat
  with a legal action now, and ``legal_actions(seat)`` is asked per seat.
* A *seat* holds a hand; a *player* decides for one or more seats. In Quinto's
  three-player variant the lone player decides for the dummy's seat too:
  ``controller(seat)`` says who decides.
* ``apply_action(action, seat)`` trusts its caller (search calls it millions of
  times); ``act(action, seat)`` checks everything and raises
  :class:`~quintet.errors.IllegalActionError` leaving the state unchanged.
* ``observation(seat)`` is exactly what that seat's player may see;
  ``resample_from_infostate(seat, rng)`` deals the cards it cannot see again,
  consistently with everything it has observed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Protocol, Self, runtime_checkable

from quintet.actions import Action
from quintet.cards import Card, CardMask

TERMINAL = -4
"""``current_player()`` of a finished hand (OpenSpiel's kTerminalPlayerId)."""


@dataclass(frozen=True, slots=True)
class Event:
    """One public event of a hand: an action, or a result the rules derive from actions.

    ``kind`` is ``action`` (``seat`` took ``action``), ``trick`` (``seat`` won the
    trick holding ``cards``, scoring ``points`` for its side), ``cachette`` (``seat``'s
    side took the cachette ``cards``), ``tricks`` (trick points per side in
    ``values``), ``game`` (``seat`` is the winning side, or ``None`` on a tie),
    ``reveal`` (``seat``'s hand ``cards`` shown to all) or ``premium``/``hand``
    (game-specific). ``text`` says it in words.
    """

    kind: str
    seat: int | None = None
    action: Action | None = None
    cards: CardMask = 0
    points: int = 0
    values: tuple[int, ...] = ()
    text: str = ""


class Phase(IntEnum):
    """The phases of a hand, one meaning for both games (each game has some of them).

    Quinto: ``DOUBLING``, ``PLAY``, ``OVER``. Quintus: ``AUCTION`` (bidding variant),
    ``TRUMP``, ``NIL``, ``PLAY``, ``MELD``, ``OVER``. A state's ``phase`` is the member's
    value; an observation's ``phase`` its :attr:`label`.
    """

    AUCTION = 0
    TRUMP = 1
    NIL = 2
    PLAY = 3
    MELD = 4
    OVER = 5
    DOUBLING = 6

    @property
    def label(self) -> str:
        """The phase as observations and messages name it (``doubling``, ``play``)."""
        return self.name.lower()


#: Each phase's label by its value (what an observation's ``phase`` says).
PHASE_LABELS: tuple[str, ...] = tuple(p.label for p in Phase)


@dataclass(frozen=True, slots=True)
class IllegalReason:
    """Why an action is not allowed: the words, and the cards of a hand they name.

    ``shows`` is every card the text names from a hand (``holds 2S 9S``), so that an
    interface can tell whether the words are fit for a player who may not see that hand.
    """

    text: str
    shows: CardMask = 0

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Observation:
    """What one player may see: equality-comparable, hashable, printable.

    ``hands[s]`` is seat ``s``'s current hand if this player may see it, else
    ``None``; ``hand_sizes`` are public. ``history`` is every public action so far
    as ``(seat, action)``. ``legal_actions`` are this player's legal actions now
    (for every seat it controls), as ``(seat, action)``. ``phase`` is the hand's
    :class:`Phase` by its label, ``dealer`` the hand's dealer, ``trick`` the trick in
    progress as ``(seat, card)`` and ``tricks_played`` the tricks finished. Each game
    adds its own public fields in a subclass.
    """

    game: str
    variant: str
    viewer: int
    hands: tuple[CardMask | None, ...]
    hand_sizes: tuple[int, ...]
    history: tuple[tuple[int, Action], ...]
    current_player: int
    legal_actions: tuple[tuple[int, Action], ...]
    phase: str = ""
    dealer: int = 0
    trick: tuple[tuple[int, Card], ...] = ()
    tricks_played: int = 0

    @property
    def text(self) -> str:
        """The table as this player sees it, drawn from the fields when asked for (search
        makes many observations and reads few); each game's subclass draws its own."""
        return ""

    def __str__(self) -> str:
        return self.text


@runtime_checkable
class GameState(Protocol):
    """The state protocol shared by both engines (see the module docstring)."""

    game: str
    num_seats: int
    #: The seat to act on the main line (the hand's own bookkeeping; see current_player).
    turn: int
    #: The hand's :class:`Phase`, by value.
    phase: int
    #: The hand's cards in each seat now (the engine's own view: every hand).
    hands: list[CardMask]
    #: Tricks finished so far.
    tricks_played: int

    @property
    def dealer(self) -> int:
        """The hand's dealer."""
        ...

    def current_player(self) -> int:
        """Return the seat to act on the main line, or TERMINAL."""
        ...

    def actors(self) -> tuple[int, ...]:
        """Return every seat with a legal action now, the main-line seat first."""
        ...

    def controller(self, seat: int) -> int:
        """Return the seat of the player who decides for ``seat``."""
        ...

    def legal_actions(self, seat: int | None = None) -> Sequence[Action]:
        """Return ``seat``'s legal actions in a stable order (default: current player)."""
        ...

    def apply_action(self, action: Action, seat: int | None = None) -> None:
        """Apply a legal action without checking it (the fast path)."""
        ...

    def act(self, action: Action | str, seat: int | None = None) -> None:
        """Check and apply an action; raise IllegalActionError leaving the state as it was."""
        ...

    def parse(self, action: Action | str) -> Action:
        """Return the number of ``action`` (number or text) if this game has it."""
        ...

    def illegal_reason(self, a: Action, seat: int) -> IllegalReason:
        """Return why ``seat`` may not take ``a`` now, with the hand cards the words name."""
        ...

    def why_illegal(self, a: Action, seat: int) -> str:
        """Return why ``seat`` may not take ``a`` now, in words."""
        ...

    def clone(self) -> Self:
        """Return an independent copy."""
        ...

    def child(self, action: Action, seat: int | None = None) -> Self:
        """Return a copy with ``action`` applied."""
        ...

    def is_terminal(self) -> bool:
        """Return whether the hand is over."""
        ...

    def returns(self) -> list[float]:
        """Return each seat's result for this hand (see each game)."""
        ...

    def points(self) -> tuple[int, ...]:
        """Return the points each side has taken in this hand so far (Quinto: N-S and E-W;
        Quintus: the quintus and each team)."""
        ...

    def scores(self) -> list[int]:
        """Return what each seat gains in this hand (so far, if it is not over)."""
        ...

    def history(self) -> list[tuple[int, Action]]:
        """Return every action so far as ``(seat, action)``."""
        ...

    def events(self) -> list[Event]:
        """Return the public event log of the hand."""
        ...

    def observation(self, seat: int) -> Observation:
        """Return what the player deciding for ``seat`` may see."""
        ...

    def snapshot(self) -> Self:
        """Return a copy of the state as the hand (or position) began."""
        ...

    def initial_hands(self) -> list[CardMask]:
        """Return each seat's hand as the hand (or position) began."""
        ...

    def initial_cachette(self) -> CardMask | None:
        """Return the cards dealt apart (Quinto's cachette), or None."""
        ...

    def resample_from_infostate(self, seat: int, rng: random.Random) -> Self:
        """Return a state with the cards ``seat`` cannot see dealt again consistently."""
        ...
