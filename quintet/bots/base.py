"""The bot interface: what a bot is given, and what it answers.

A bot sees only a :class:`BotView`: its player's observation, the seat it acts for,
that seat's legal actions, a budget and a seeded RNG, and a way to deal the cards it
cannot see consistently with everything it has seen (:meth:`BotView.sample`). The
view is built from a *shadow* state whose hidden cards were already re-dealt, so the
true hidden cards never reach the bot: with the same observation and seed a bot makes
the same choice however the unseen cards lie.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from quintet.actions import Action, is_signal
from quintet.cards import CardMask
from quintet.game import GameState, Observation


def cpu_clock() -> float:
    """Return the CPU seconds the calling thread has used: the clock budgets count.

    This is :func:`time.thread_time`. A bot decides in one thread and the solver's
    numba kernels run in that thread (they release the GIL, they do not move), so its
    search counts in full, while time spent waiting for a core on a loaded machine does
    not: a budget buys the same work however busy the machine is.
    """
    return time.thread_time()


@dataclass(frozen=True)
class Budget:
    """How long a bot may think: ``seconds`` of CPU time and/or ``iterations``.

    ``seconds`` counts the CPU time of the thread that decides (:func:`cpu_clock`), not
    wall time, so that a bot is as strong on a loaded machine as on an idle one; the
    wall time a decision takes is then at least ``seconds`` and, under load, several
    times more. Whoever must bound the wall time too (the server) sets a hard limit of
    its own, generously above the budget. A bot checks its budget between units of work
    (a sample, an iteration), so it may overrun by one unit.
    """

    seconds: float | None = None
    iterations: int | None = None

    def deadline(self) -> float | None:
        """Return the :func:`cpu_clock` value to stop at, or None."""
        return None if self.seconds is None else cpu_clock() + self.seconds


@dataclass
class BotView:
    """Everything a bot may know when it decides for ``seat``.

    ``obs`` is the observation of the player deciding for ``seat`` (in Quinto's dummy
    variant the lone player decides for the dummy's seat too). ``legal`` are ``seat``'s
    legal actions now.
    """

    seat: int
    obs: Observation
    legal: tuple[Action, ...]
    budget: Budget
    rng: random.Random
    _shadow: Any = field(repr=False)
    _forbidden: Any = field(default=None, repr=False)

    @classmethod
    def of(
        cls,
        state: GameState,
        seat: int,
        rng: random.Random,
        budget: Budget | None = None,
    ) -> BotView:
        """Return the view of ``state`` for the bot deciding for ``seat``.

        The shadow state is drawn from a generator seeded by ``rng``, so the view depends
        on the observation and the seed only.
        """
        shadow = state.resample_from_infostate(seat, random.Random(rng.getrandbits(64)))
        return cls(
            seat=seat,
            obs=shadow.observation(seat),
            legal=tuple(state.legal_actions(seat)),
            budget=budget or Budget(),
            rng=rng,
            _shadow=shadow,
        )

    @classmethod
    def inside(cls, world: GameState, seat: int, rng: random.Random) -> BotView:
        """Return a view of a state a search bot simulates (its own sampled world).

        The world already holds only sampled cards, so no shadow is drawn: it is cheap.
        """
        return cls(
            seat=seat,
            obs=world.observation(seat),
            legal=tuple(world.legal_actions(seat)),
            budget=Budget(),
            rng=rng,
            _shadow=world,
        )

    @property
    def game(self) -> str:
        """``quinto`` or ``quintus``."""
        return self.obs.game

    def sample(self, rng: random.Random | None = None) -> Any:
        """Return a full state: the cards this player cannot see dealt consistently."""
        if self._forbidden is None:
            self._forbidden = self._shadow.constraints()
        return self._shadow.resample(self.seat, rng or self.rng, self._forbidden, rebase=False)

    def state(self) -> Any:
        """Return one consistent full state (the shadow itself, copied)."""
        return self._shadow.clone()

    def played(self) -> CardMask:
        """Return the cards played in the hand so far (public; kept by the engine's scan
        of its history, so cheap again and again as a simulated world plays on)."""
        m = 0
        for p in self._shadow.played_by_seat():
            m |= p
        return m

    def main_actions(self) -> tuple[Action, ...]:
        """Return the legal actions other than signals."""
        return tuple(a for a in self.legal if not is_signal(a))

    def signals(self) -> tuple[Action, ...]:
        """Return the legal signals."""
        return tuple(a for a in self.legal if is_signal(a))


@runtime_checkable
class Bot(Protocol):
    """A computer player. ``act`` decides for the seat to act; ``signal`` may give a
    signal out of turn (Quintus) and returns None to stay silent."""

    name: str

    def act(self, view: BotView) -> Action:
        """Return one of ``view.legal``."""
        ...

    def signal(self, view: BotView) -> Action | None:
        """Return one of ``view.signals()`` or None."""
        ...


def pick_best(values: dict[Action, float], order: Sequence[Action]) -> Action:
    """Return the action with the highest value; ties go to the first in ``order``."""
    best = order[0]
    for a in order:
        if a in values and values[a] > values.get(best, float("-inf")):
            best = a
    return best


def switch(name: str, value: object) -> bool:
    """Return a bot's on/off option ``name`` (0 or 1) as a bool.

    Raises:
        ValueError: ``value`` is neither 0 nor 1 (the option and the value named).
    """
    if value not in (0, 1):
        raise ValueError(f"{name} must be 0 (off) or 1 (on), not {value!r}")
    return bool(value)
