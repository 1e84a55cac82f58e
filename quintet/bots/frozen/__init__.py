"""Frozen copies of earlier bots, kept unchanged as yardsticks for the ladder."""
