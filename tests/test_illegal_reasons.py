"""Illegal-action reasons say which hand cards they name (``IllegalReason.shows``).

Interfaces decide from ``shows`` whether a reason is fit for a player (the web server
tells a player the words only if he may see every card they name), so ``shows`` must
hold every card the words name, other than the action itself, and only cards of the
seat's hand.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from quintet.actions import NUM_ACTIONS, action_type
from quintet.cards import JOKER, card_str
from quintet.errors import InvalidActionError
from quintet.games import games


def _named_cards(text: str) -> set[int]:
    codes = {card_str(c): c for c in range(JOKER + 1)}
    words = text.replace(",", " ").replace(";", " ").replace(":", " ").replace("(", " ").split()
    return {codes[w] for w in words if w in codes}


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), game=st.sampled_from([g.name for g in games()]))
def test_every_reason_shows_the_hand_cards_it_names(seed: int, game: str) -> None:
    """Rule: a refusal names a hidden card only where it says so (the server's privacy)."""
    info = next(g for g in games() if g.name == game)
    rng = random.Random(seed)
    state = info.deal(info.rules(info.variant_names[rng.randrange(2)]), 0, rng)
    for _ in range(rng.randrange(40)):
        if state.is_terminal():
            break
        legal = [a for a in state.legal_actions() if action_type(a) != "signal"]
        state.apply_action(rng.choice(legal))
    for seat in range(info.num_seats):
        allowed = set(state.legal_actions(seat))
        for a in range(NUM_ACTIONS):
            try:
                state.parse(a)
            except InvalidActionError:
                continue
            if a in allowed:
                continue
            reason = state.illegal_reason(a, seat)
            assert reason.shows & ~state.hands[seat] == 0, reason
            named = _named_cards(reason.text) - {a}
            shown = {c for c in range(JOKER + 1) if reason.shows >> c & 1}
            assert named <= shown, (reason.text, sorted(card_str(c) for c in shown))
            assert state.why_illegal(a, seat) == reason.text
