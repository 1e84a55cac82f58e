"""Quinto: Hoffmann's four-hand game with the Quint Royal, and its three-hand dummy variant."""

from quintet.quinto.match import Draw, GameResult, QuintoMatch, draw_for_partners
from quintet.quinto.rules import QuintoRules, quint_points, quints
from quintet.quinto.state import QuintoObservation, QuintoState, random_deal, trick_winner

__all__ = [
    "Draw",
    "GameResult",
    "QuintoMatch",
    "QuintoObservation",
    "QuintoRules",
    "QuintoState",
    "draw_for_partners",
    "quint_points",
    "quints",
    "random_deal",
    "trick_winner",
]
