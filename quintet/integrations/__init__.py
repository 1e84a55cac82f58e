"""Adapters to other frameworks, and the encodings of observations they share.

* :mod:`quintet.integrations.openspiel`: both games as OpenSpiel Python games
  (``python_quinto``, ``python_quintus``; extra ``openspiel``).
* :mod:`quintet.integrations.pettingzoo`: both games as PettingZoo AEC environments
  (extra ``pettingzoo``).

This package itself needs only numpy. It holds what both adapters share:

* :class:`TableSpec` (:mod:`~quintet.integrations.spec`): one hand of one game under
  given rules (:func:`table_spec` checks the options), its *players* and their seats,
  its action set and bounds, all from the game's description (:mod:`quintet.games`);
* :class:`Encoder` (:mod:`~quintet.integrations.encoder`): a player's observation
  (:meth:`quintet.game.GameState.observation`) as a string and as a flat float32 tensor
  with named parts, each game's own parts laid out by its
  :mod:`~quintet.integrations.layouts`. Everything is computed from that observation,
  so no hidden card can reach a string or a tensor.

Players are the seats that decide: every seat, except in Quinto's dummy variant, whose
dummy seat is played by the lone player (three players: the seats other than the dummy,
in seat order). Quintus signals are given out of turn, which neither OpenSpiel nor an AEC
environment can express: they are left out of the action sets (signals are optional and
never needed to play a hand).

>>> spec = table_spec("quinto", "dummy", lone_seat=1, dealer=1)
>>> spec.players, spec.num_actions, spec.player_of_seat(3)
((0, 1, 2), 56, 1)
"""

from __future__ import annotations

from typing import Final

from quintet import games as _games
from quintet.integrations.encoder import Encoder, action_mask, main_actions
from quintet.integrations.layouts import NUM_BIDS
from quintet.integrations.spec import TableSpec, hand_option_defaults, table_spec

#: The games the adapters play (every game of :mod:`quintet.games`).
GAMES: Final = tuple(_games.GAMES)
#: Quinto's actions: cards 0..52, pass, double, redouble (the shared numbering, cut short).
QUINTO_ACTIONS: Final = _games.find_game("quinto").num_actions
#: Quintus's actions: the whole shared action space (signals are never legal here).
QUINTUS_ACTIONS: Final = _games.find_game("quintus").num_actions

__all__ = [
    "GAMES",
    "NUM_BIDS",
    "QUINTO_ACTIONS",
    "QUINTUS_ACTIONS",
    "Encoder",
    "TableSpec",
    "action_mask",
    "hand_option_defaults",
    "main_actions",
    "table_spec",
]
