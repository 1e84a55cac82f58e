"""How often αμ and PIMC choose differently on the same deals, in the last tricks.

    .venv/bin/python bench/alphamu_agreement.py [--game quinto] [--variant dummy]
        [--tricks 3] [--worlds 16] [--positions 150] [--seed 1]

The positions are those of ``bench/endgames.py`` (each deal played by the heuristic to
the lead with ``--tricks`` tricks left), played on by the heuristic; at each decision
with more than one card, ``--worlds`` deals are drawn by pimc's inference and given to
both: PIMC's card (the best mean of the solver's value in each deal) and αμ's
(:mod:`quintet.bots.alphamu`). Prints the decisions, the share where the two differ, and
αμ's own estimate of what its card gains there over PIMC's (by αμ's model of the other
players: it is not a measured gain; ``bench/endgames.py`` measures that).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
from pathlib import Path
from typing import Any

from quintet.actions import is_play
from quintet.bots import BotView, Budget, HeuristicBot, bot_step
from quintet.bots.alphamu import AlphaMu
from quintet.bots.pimc import PimcBot
from quintet.games import find_game


def _endgames() -> Any:
    """bench/endgames.py, for its positions."""
    path = Path(__file__).resolve().parent / "endgames.py"
    spec = importlib.util.spec_from_file_location("endgames", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compare(state: Any, seat: int, worlds: int, rng: random.Random) -> tuple[Any, Any, float]:
    """Return PIMC's card, αμ's card and αμ's value of its card less PIMC's, on the same
    ``worlds`` deals of ``seat``'s view of ``state``."""
    info = find_game(state.game)
    cards = tuple(a for a in state.legal_actions(seat) if is_play(a))
    bot = PimcBot()
    view = BotView.of(state, seat, rng, Budget(iterations=worlds))
    deals = [bot._sample(view) for _ in range(worlds)]
    solver = bot._solver(deals[0])
    solver.max_nodes = 0
    measure = info.solver_class

    def leaf(w: Any) -> float:
        return float(measure.so_far(w, seat) + solver.seat_value(w, seat))

    def end(w: Any) -> float:
        return float(measure.outcome(w, seat))

    am = AlphaMu(deals, [1.0] * worlds, seat, leaf, end, measure.sign).card_values(cards)
    pimc = dict.fromkeys(cards, 0.0)
    for w in deals:
        for c in cards:
            after = w.child(c, seat)
            pimc[c] += end(after) if after.is_terminal() else leaf(after)
    a = max(cards, key=lambda c: (am[c], -c))
    p = max(cards, key=lambda c: (pimc[c], -c))
    return p, a, am[a] - am[p]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--game", default="quinto")
    parser.add_argument("--variant", default=None)
    parser.add_argument("--tricks", type=int, default=3)
    parser.add_argument("--worlds", type=int, default=16)
    parser.add_argument("--positions", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    info = find_game(args.game)
    variant = info.variant(args.variant).name
    endgames = _endgames()
    decisions = differ = 0
    gain = 0.0
    for i in range(args.positions):
        state = endgames.position(args.game, variant, i, args.tricks, args.seed)
        if state is None:
            continue
        rng = random.Random(i)
        heuristic = [HeuristicBot()] * info.num_seats
        while not state.is_terminal():
            seat = state.current_player()
            if sum(1 for a in state.legal_actions(seat) if is_play(a)) > 1:
                p, a, g = compare(state, seat, args.worlds, random.Random(i))
                decisions += 1
                if a != p:
                    differ += 1
                    gain += g
            bot_step(state, heuristic, rng)
    print(
        f"{args.game} {variant}, {args.tricks} tricks left, {args.worlds} deals: "
        f"{decisions} decisions, αμ chooses otherwise than PIMC in {differ} "
        f"({100 * differ / max(1, decisions):.1f}%), by its own estimate gaining "
        f"{gain / max(1, differ):.2f} points there"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
