"""Playing one duplicate deal, or one duplicate match, in all its seatings."""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Final

from quintet.arena.config import ArenaConfig, BotSpec
from quintet.arena.results import DealResult, MatchResult, MatchSeating, SeatingResult
from quintet.arena.seating import diff, roles_of, seatings
from quintet.botproto import ExternalBot, close_bots, finish_hand
from quintet.bots import Bot, Budget, play_out
from quintet.errors import InvalidOptionError
from quintet.games import games
from quintet.record import record_from_match

JSON = dict[str, Any]

_MAX_MATCH_HANDS: Final = 1000


def _seed(cfg: ArenaConfig, *parts: object) -> random.Random:
    return random.Random(":".join(str(p) for p in (cfg.seed, *parts)))


def _arena_extra(
    cfg: ArenaConfig, pair: tuple[BotSpec, BotSpec], players: Sequence[str], **kw: Any
) -> JSON:
    return {
        "players": list(players),
        "arena": {"seed": cfg.seed, "pair": [pair[0].label, pair[1].label], **kw},
    }


def play_deal(
    cfg: ArenaConfig, a: BotSpec, b: BotSpec, index: int
) -> tuple[DealResult, list[JSON]]:
    """Play deal ``index`` in all its seatings; return its result and the hands' records.

    Every seating's hand is dealt from the same generator seed, so all get the same cards.
    """
    info, variant = cfg.game_info(), cfg.variant_info()
    roles = roles_of(info)
    rules = cfg.hand_rules()
    budget = cfg.bot_budget()
    first, owners = seatings(info, variant, index)
    specs = (a, b)
    results = []
    records = []
    incidents: list[JSON] = []
    total = Fraction(0)
    for k, owner in enumerate(owners):
        match = roles.new_match(info, rules, variant, first)
        state = match.start_hand(rng=_seed(cfg, "deal", index))
        bots = [specs[o].make() for o in owner]
        labels = [specs[o].label for o in owner]
        incidents += _play_hand(state, bots, labels, _seed(cfg, "play", index), budget, seating=k)
        scores = roles.scores(info, state)
        d = diff(owner, scores)
        total += d
        players = tuple(specs[o].label for o in owner)
        results.append(SeatingResult(players, scores, float(d), roles.solo(state)))
        if cfg.records:
            extra = _arena_extra(cfg, (a, b), players, deal=index, seating=k)
            records.append(record_from_match(match, extra).to_json())
    mean = total / len(owners)
    return DealResult(index, first, float(mean), tuple(results), tuple(incidents)), records


def play_match(
    cfg: ArenaConfig, a: BotSpec, b: BotSpec, index: int
) -> tuple[MatchResult, list[JSON]]:
    """Play duplicate Quinto match ``index`` (a rubber, or a dummy game) in both seatings."""
    info, variant = cfg.game_info(), cfg.variant_info()
    roles = roles_of(info)
    matches = roles.matches
    if matches is None:
        those = " and ".join(g.title for g in games() if roles_of(g).plays_matches)
        raise InvalidOptionError(f"only {those} plays whole matches in the arena")
    rules = cfg.match_rules()
    budget = cfg.bot_budget()
    first, owners = seatings(info, variant, index)
    specs = (a, b)
    results = []
    records = []
    incidents: list[JSON] = []
    total = Fraction(0)
    for k, owner in enumerate(owners):
        match = roles.new_match(info, rules, variant, first)
        n = 0
        while not match.is_over():
            if n >= _MAX_MATCH_HANDS:
                raise RuntimeError(f"match {index} is not over after {n} hands")
            state = match.start_hand(rng=_seed(cfg, "match-deal", index, n))
            bots = [specs[o].make() for o in owner]
            labels = [specs[o].label for o in owner]
            rng = _seed(cfg, "match-play", index, n)
            incidents += _play_hand(state, bots, labels, rng, budget, seating=k, hand=n)
            n += 1
        label = [specs[owner[seat]].label for seat in matches.sides(info)]  # who holds each side
        won, win, sc = matches.tally(info, variant, match)
        points = {label[0]: sc[0], label[1]: sc[1]}
        games_won = {label[0]: won[0], label[1]: won[1]}
        players = tuple(specs[o].label for o in owner)
        winner = None if win is None else label[win]
        results.append(MatchSeating(players, n, games_won, winner, points))
        total += points[a.label] - points[b.label]
        if cfg.records:
            extra = _arena_extra(cfg, (a, b), players, match=index, seating=k)
            records.append(record_from_match(match, extra).to_json())
    mean = float(total / len(owners))
    return MatchResult(index, mean, tuple(results), tuple(incidents)), records


def _play_hand(
    state: Any,
    bots: Sequence[Bot],
    labels: Sequence[str],
    rng: random.Random,
    budget: Budget | None,
    **where: int,
) -> list[JSON]:
    """Play a hand out; tell external bots how it ended and stop them; return incidents."""
    try:
        play_out(state, bots, rng, budget)
        finish_hand(bots, state)
    finally:
        close_bots(bots)
    return [
        {**where, "label": labels[seat], **x.to_json()}
        for seat, bot in enumerate(bots)
        if isinstance(bot, ExternalBot)
        for x in bot.incidents
    ]


__all__ = ["play_deal", "play_match"]
