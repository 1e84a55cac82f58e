"""What an arena played: per seating, deal, match, bot and pair, and the whole result."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Final

from quintet.arena.stats import Summary

if TYPE_CHECKING:
    from quintet.arena.config import ArenaConfig

JSON = dict[str, Any]

FORMAT: Final = "quintet-arena"
VERSION: Final = 1


@dataclass(frozen=True)
class SeatingResult:
    """One hand of a deal: the bot label at each seat, each seat's score, A's result."""

    players: tuple[str, ...]
    scores: tuple[int, ...]
    diff: float
    solo: int | None = None

    def to_json(self) -> JSON:
        """Return the seating as JSON."""
        return {
            "players": list(self.players),
            "scores": list(self.scores),
            "diff": self.diff,
            "solo_seat": self.solo,
        }

    @classmethod
    def from_json(cls, data: JSON) -> SeatingResult:
        """Return the seating :meth:`to_json` wrote."""
        return cls(
            players=tuple(data["players"]),
            scores=tuple(data["scores"]),
            diff=float(data["diff"]),
            solo=data.get("solo_seat"),
        )


@dataclass(frozen=True)
class DealResult:
    """One deal in all its seatings; ``diff`` is A's points per deal minus B's."""

    deal: int
    dealer: int
    diff: float
    seatings: tuple[SeatingResult, ...]
    #: External bots' incidents (:meth:`quintet.botproto.Incident.to_json` with the
    #: ``seating`` and the bot's ``label``).
    incidents: tuple[JSON, ...] = ()

    def to_json(self) -> JSON:
        """Return the deal result as JSON (``incidents`` only when there are some)."""
        out = {
            "deal": self.deal,
            "dealer": self.dealer,
            "diff": self.diff,
            "seatings": [s.to_json() for s in self.seatings],
        }
        if self.incidents:
            out["incidents"] = list(self.incidents)
        return out

    @classmethod
    def from_json(cls, data: JSON) -> DealResult:
        """Return the deal result :meth:`to_json` wrote."""
        return cls(
            deal=int(data["deal"]),
            dealer=int(data["dealer"]),
            diff=float(data["diff"]),
            seatings=tuple(SeatingResult.from_json(x) for x in data["seatings"]),
            incidents=tuple(data.get("incidents", ())),
        )


@dataclass(frozen=True)
class MatchSeating:
    """One whole Quinto match (a rubber, or a dummy game): its tallies per bot label."""

    players: tuple[str, ...]
    hands: int
    games_won: dict[str, int]
    winner: str | None
    points: dict[str, int]

    def to_json(self) -> JSON:
        """Return the match as JSON."""
        return {
            "players": list(self.players),
            "hands": self.hands,
            "games_won": dict(self.games_won),
            "winner": self.winner,
            "points": dict(self.points),
        }

    @classmethod
    def from_json(cls, data: JSON) -> MatchSeating:
        """Return the match :meth:`to_json` wrote."""
        return cls(
            players=tuple(data["players"]),
            hands=int(data["hands"]),
            games_won=dict(data["games_won"]),
            winner=data["winner"],
            points=dict(data["points"]),
        )


@dataclass(frozen=True)
class MatchResult:
    """Duplicate match ``index``: both seatings; ``diff`` is A's mean points minus B's."""

    index: int
    diff: float
    seatings: tuple[MatchSeating, ...]
    #: External bots' incidents, as in :class:`DealResult` (with the ``hand`` too).
    incidents: tuple[JSON, ...] = ()

    def to_json(self) -> JSON:
        """Return the duplicate match as JSON (``incidents`` only when there are some)."""
        out: JSON = {
            "match": self.index,
            "diff": self.diff,
            "seatings": [s.to_json() for s in self.seatings],
        }
        if self.incidents:
            out["incidents"] = list(self.incidents)
        return out

    @classmethod
    def from_json(cls, data: JSON) -> MatchResult:
        """Return the duplicate match :meth:`to_json` wrote."""
        return cls(
            index=int(data["match"]),
            diff=float(data["diff"]),
            seatings=tuple(MatchSeating.from_json(x) for x in data["seatings"]),
            incidents=tuple(data.get("incidents", ())),
        )


@dataclass(frozen=True)
class BotStats:
    """A bot's mean score per seat and hand, and as the player alone (quintus, lone)."""

    hands: int
    mean: float
    solo_hands: int
    solo_mean: float | None

    def to_json(self) -> JSON:
        """Return the statistics as JSON."""
        return asdict(self)


@dataclass
class PairResult:
    """Everything one pair played: deals (and Quinto matches) with their summaries."""

    a: str
    b: str
    deals: list[DealResult]
    matches: list[MatchResult]
    summary: Summary
    match_summary: Summary | None
    bots: dict[str, BotStats]

    def tally(self) -> dict[str, dict[str, int]]:
        """Return per bot label: ``games`` and ``matches`` won, matches ``played``, ``points``.

        ``points`` is the sum of the bot's match points (rubber totals with the bonus, or
        dummy game scores with the handicap) over the matches it played.
        """
        out = {x: {"games": 0, "matches": 0, "played": 0, "points": 0} for x in (self.a, self.b)}
        for m in self.matches:
            for s in m.seatings:
                for label in (self.a, self.b):
                    out[label]["games"] += s.games_won[label]
                    out[label]["played"] += 1
                    out[label]["points"] += s.points[label]
                if s.winner is not None:
                    out[s.winner]["matches"] += 1
        return out

    def to_json(self) -> JSON:
        """Return the pair's results as JSON."""
        return {
            "a": self.a,
            "b": self.b,
            "summary": self.summary.to_json(),
            "bots": {k: v.to_json() for k, v in self.bots.items()},
            "matches_summary": None if self.match_summary is None else self.match_summary.to_json(),
            "tally": self.tally(),
            "deals": [d.to_json() for d in self.deals],
            "matches": [m.to_json() for m in self.matches],
        }


@dataclass
class ArenaResult:
    """The outcome of :func:`run_arena`: one :class:`PairResult` per pair, and the records."""

    config: ArenaConfig
    pairs: list[PairResult]
    records: list[JSON]
    elapsed: float
    #: The seeds of the runs merged into this one (:func:`quintet.arena.merge.merge_runs`),
    #: in order; empty for a run played as one.
    seeds: tuple[int, ...] = ()

    def incidents(self) -> list[JSON]:
        """Return every external bot incident, with its ``pair`` and ``deal`` or ``match``."""
        out: list[JSON] = []
        for p in self.pairs:
            for d in p.deals:
                out += [{"pair": [p.a, p.b], "deal": d.deal, **x} for x in d.incidents]
            for m in p.matches:
                out += [{"pair": [p.a, p.b], "match": m.index, **x} for x in m.incidents]
        return out

    def to_json(self) -> JSON:
        """Return the whole result as JSON (``elapsed_seconds`` is the only timing field)."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "arguments": self.config.to_json(),
            "seed": self.config.seed,
            "game": self.config.game,
            "variant": self.config.variant,
            "bots": [s.label for s in self.config.specs()],
            "elapsed_seconds": self.elapsed,
            "pairs": [p.to_json() for p in self.pairs],
            "incidents": self.incidents(),
            "records": self.records,
            **({"merged_seeds": list(self.seeds)} if self.seeds else {}),
        }

    def write_json(self, path: str) -> None:
        """Write :meth:`to_json` to ``path``."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f, indent=1, ensure_ascii=False)
            f.write("\n")

    def table(self) -> str:
        """Return the report as text."""
        from quintet.arena.report import format_table

        return format_table(self)

    def plot(self, path: str) -> None:
        """Write a PNG of the running mean difference per pair (needs matplotlib).

        Raises:
            ImportError: matplotlib is not installed.
        """
        from quintet.arena.plot import plot_running

        plot_running(self, path)


__all__ = [
    "FORMAT",
    "VERSION",
    "ArenaResult",
    "BotStats",
    "DealResult",
    "MatchResult",
    "MatchSeating",
    "PairResult",
    "SeatingResult",
]
