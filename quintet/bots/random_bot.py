"""The ``random`` level: uniform over the legal actions."""

from __future__ import annotations

from quintet.actions import Action
from quintet.bots.base import BotView


class RandomBot:
    """Chooses uniformly among the legal actions; never signals out of turn."""

    name = "random"

    def act(self, view: BotView) -> Action:
        """Return a legal action chosen uniformly with the view's RNG."""
        return view.rng.choice(view.legal)

    def signal(self, view: BotView) -> Action | None:
        """Return None: the random bot gives no out-of-turn signals."""
        return None
