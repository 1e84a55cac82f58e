"""Inference: how likely a sampled deal makes what the other players did.

A search bot samples the cards it cannot see uniformly among the deals consistent with
the rules (voids shown, cards played). But the other players chose their doubles, bids,
trumps and cards with their hands: a deal in which they would have done what they did
is likelier than one in which they would not. The strongest Skat programs weight their
samples so (Buro, Long, Furtak and Sturtevant, "Improving state evaluation, inference,
and search in trick-based card games", IJCAI 2009).

The policy model here is the ``heuristic`` level, made soft: in a sampled deal, a
player whose hand this bot cannot see takes the heuristic's choice with probability
``1 - epsilon`` plus an even share of ``epsilon`` spread over all his legal actions
(signals aside, the model knows only the main actions). :func:`likelihood` is the
product of those probabilities over the hand's decisions so far, found by replaying
the hand from its start with the sampled cards (:meth:`~quintet.hand.HandState.start_of_hand`).
Seats this bot sees (its own, a dummy, an open nil) tell it nothing about hidden cards
by their own choice and are left out; so are decisions with one legal action, and the
cards of tricks older than ``memory`` tricks before the current one (their lesson is
mostly in the voids every sampled deal respects; each decision weighed costs a call of
the heuristic).

:func:`pick` draws one deal among candidates in proportion to their likelihood
(sampling-importance-resampling): with a few candidates per sample the bot's samples
lean towards the deals the play makes likely while every consistent deal can still be
drawn, so that a model that is wrong about a player cannot rule out the true deal.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from quintet.actions import is_play, is_signal
from quintet.bots.base import BotView
from quintet.bots.heuristic import HeuristicBot

#: The share of a modelled player's probability spread over all his legal actions.
EPSILON: Final = 0.5
#: The tricks before the current one whose cards are weighed (see :func:`likelihood`).
MEMORY: Final = 2

_MODEL = HeuristicBot()


def likelihood(
    world: Any, seat: int, epsilon: float = EPSILON, memory: int | None = MEMORY
) -> float:
    """Return how likely ``world``'s hidden cards make the hand's decisions so far.

    The product, over the decisions of the seats ``seat``'s player cannot see, of the
    soft heuristic's probability of the action taken (see the module docstring). 1.0
    when there is nothing to infer from. ``memory`` (None: all) keeps only the cards
    played in the current trick and that many tricks before it (every decision before
    the play, doubles and bids, always counts): what older tricks showed is mostly in
    the voids the deals already respect, and weighing each decision costs a heuristic
    call.
    """
    history = world.history_pairs()
    if not history:
        return 1.0
    seen = world.visible_seats(seat)
    state = world.start_of_hand()
    first = -1 if memory is None else world.tricks_played - memory
    rng = random.Random(0)  # the heuristic breaks no ties at random; a fixed one anyway
    weight = 1.0
    for s, a in history:
        if s not in seen and not is_signal(a) and (not is_play(a) or state.tricks_played >= first):
            main = [x for x in state.legal_actions(s) if not is_signal(x)]
            if len(main) > 1:
                view = BotView.inside(state, s, rng)
                choice = _MODEL.act(view)
                if is_signal(choice):
                    choice = main[0]
                share = epsilon / len(main)
                weight *= share + (1.0 - epsilon if a == choice else 0.0)
        state.apply_action(a, s)
    return weight


def pick(candidates: Sequence[Any], weights: Sequence[float], rng: random.Random) -> Any:
    """Return one of ``candidates`` drawn with probability proportional to ``weights``."""
    total = sum(weights)
    if total <= 0.0:
        return candidates[0]
    u = rng.random() * total
    for c, w in zip(candidates, weights, strict=True):
        u -= w
        if u < 0.0:
            return c
    return candidates[-1]


__all__ = ["EPSILON", "MEMORY", "likelihood", "pick"]
