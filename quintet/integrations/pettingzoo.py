"""Quinto and Quintus as PettingZoo AEC environments.

Needs the ``pettingzoo`` extra (``pip install 'quintet-cards[pettingzoo]'``)::

    from quintet.integrations.pettingzoo import env

    e = env(game="quinto", variant="dummy", lone_seat=1, dealer=1)
    e.reset(seed=42)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

One episode is one hand, dealt by ``reset(seed=...)`` (the same seed deals the same
hand; without a seed the environment's generator goes on). Options are those of
:func:`quintet.integrations.table_spec` (variant, dealer, Quinto's lone seat, target,
``joker_eleventh_trick``, ``dummy_double_view``, start score).

* Agents are ``seat_<n>`` for each deciding seat (:mod:`quintet.integrations`): in
  Quinto's dummy variant the lone player's agent also plays the dummy's cards.
* Actions are the project's action numbers (``Discrete(56)`` for Quinto, ``Discrete(116)``
  for Quintus); Quintus signals are never legal. An illegal action raises
  :class:`~quintet.errors.IllegalActionError` and leaves the hand as it was.
* Observations are dicts: ``observation`` is a float32 vector in [0, 1] built from the
  engine's ``observation(seat)`` (the table now; ``perfect_recall=True`` gives the
  information state instead, see :class:`quintet.integrations.Encoder`), and
  ``action_mask`` an int8 vector marking the legal actions of the agent to act (all
  zeros for the others).
* Rewards come at the end of the hand: each agent's seat's ``returns()`` (Quinto: its
  side's hand points minus the other side's; Quintus: the seat's score).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from quintet.errors import IllegalActionError, InvalidOptionError
from quintet.integrations import Encoder, action_mask, main_actions, table_spec


def env(game: str = "quinto", variant: str | None = None, **kwargs: Any) -> Any:
    """Return the AEC environment of ``game`` behind PettingZoo's order-enforcing wrapper.

    Keyword arguments are :class:`QuintetEnv`'s.

    Raises:
        InvalidOptionError: unknown game, variant or option, or a bad value.
    """
    return wrappers.OrderEnforcingWrapper(QuintetEnv(game, variant, **kwargs))


def raw_env(game: str = "quinto", variant: str | None = None, **kwargs: Any) -> QuintetEnv:
    """Return the AEC environment of ``game`` without wrappers."""
    return QuintetEnv(game, variant, **kwargs)


class QuintetEnv(AECEnv):  # type: ignore[misc]
    """One hand of Quinto or Quintus per episode (see the module docstring).

    ``render_mode`` is None, ``ansi`` (``render()`` returns the whole table as text) or
    ``human`` (prints it after every step).

    Raises:
        InvalidOptionError: unknown game, variant, option or render mode.
    """

    render_modes: ClassVar[tuple[str, ...]] = ("human", "ansi")

    def __init__(
        self,
        game: str = "quinto",
        variant: str | None = None,
        *,
        render_mode: str | None = None,
        perfect_recall: bool = False,
        **options: Any,
    ) -> None:
        super().__init__()
        spec = table_spec(game, variant, **options)
        if render_mode is not None and render_mode not in self.render_modes:
            raise InvalidOptionError(f"unknown render mode {render_mode!r} (human, ansi)")
        self.spec = spec
        self.render_mode = render_mode
        self.metadata = {
            "render_modes": list(self.render_modes),
            "name": f"{game}_{spec.variant}_v0",
            "is_parallelizable": False,
        }
        self.possible_agents = [f"seat_{s}" for s in spec.players]
        self._seats = {f"seat_{s}": s for s in spec.players}
        self._encoder = Encoder(spec, perfect_recall)
        size = self._encoder.size
        n = spec.num_actions
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (n,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(n) for agent in self.possible_agents}
        self._rng = random.Random()
        self.hand: Any = None
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """Return ``agent``'s observation space (the same object every time)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """Return ``agent``'s action space (the same object every time)."""
        return self.action_spaces[agent]

    def _agent_to_act(self) -> str:
        seat = self.hand.current_player()
        return self.possible_agents[self.spec.player_of_seat(seat)]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new hand (with a generator seeded by ``seed``, if given)."""
        if seed is not None:
            self._rng = random.Random(seed)
        self.hand = self.spec.deal(self._rng)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self._agent_to_act()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Return ``agent``'s observation and action mask."""
        seat = self._seats[agent]
        hand = self.hand
        tensor = self._encoder.set_from(hand.observation(seat), seat).copy()
        legal: list[int] = []
        if (
            not hand.is_terminal()
            and self.possible_agents[self.spec.player_of_seat(hand.current_player())] == agent
        ):
            legal = main_actions(hand.legal_actions())
        return {"observation": tensor, "action_mask": action_mask(legal, self.spec.num_actions)}

    def step(self, action: Any) -> None:
        """Apply the selected agent's action (None for an agent whose hand is over).

        Raises:
            IllegalActionError: the action is not legal now; nothing changes.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        hand = self.hand
        a = int(action)
        if a not in main_actions(hand.legal_actions()):
            seat = hand.current_player()
            why = (
                hand.why_illegal(a, seat)
                if 0 <= a < self.spec.num_actions
                else f"not an action number: {action!r}"
            )
            raise IllegalActionError(why)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        hand.apply_action(a)
        if hand.is_terminal():
            returns = hand.returns()
            for other in self.agents:
                self.rewards[other] = float(returns[self._seats[other]])
                self.terminations[other] = True
            i = self.agents.index(agent)
            self.agent_selection = self.agents[(i + 1) % len(self.agents)]
        else:
            self.agent_selection = self._agent_to_act()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """Return (``ansi``) or print (``human``) the whole table; None without a mode."""
        if self.hand is None or self.render_mode is None:
            return None
        text = str(self.hand.render())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


__all__ = ["QuintetEnv", "env", "raw_env"]
