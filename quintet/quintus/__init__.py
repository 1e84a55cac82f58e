"""Quintus: five players, a lone quintus against two teams of two; base and bidding games."""

from quintet.quintus.match import QuintusMatch
from quintet.quintus.rules import QuintusRules, round_even, settle
from quintet.quintus.state import QuintusObservation, QuintusState, random_deal, teams_of

__all__ = [
    "QuintusMatch",
    "QuintusObservation",
    "QuintusRules",
    "QuintusState",
    "random_deal",
    "round_even",
    "settle",
    "teams_of",
]
