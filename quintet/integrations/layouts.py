"""How each game's observation is laid out in tensors and written in strings.

The parts every game shares (the viewer, the dealer, the hands, the player to act, the
cards played and the trick) are :class:`~quintet.integrations.encoder.Encoder`'s. What
only one game's observation holds (Quinto's doubling, multiplier and cachette; Quintus's
auction, trump, nil and melds) is a :class:`Layout`, one per engine, chosen by the game's
``state_class`` (:func:`layout_of`): the observations are the engines' own classes, so
this is the one place that reads their game-specific fields.

Sizes and scales come from the game's description (seats, cards, tricks, utility
bounds); the phases are the engines' phase names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, Protocol

from quintet.actions import (
    BID_BASE,
    DECLINE,
    MAX_BID,
    MELD_COURT,
    MELD_STRAIGHT,
    MIN_BID,
    NIL_NAMES,
    NUM_ACTIONS,
    PASS,
    TRUMP_NAMES,
    action_str,
    is_bid,
)
from quintet.cards import JOKER, cards_str
from quintet.errors import InvalidOptionError
from quintet.game import Observation
from quintet.games import GameInfo
from quintet.integrations.spec import seat_codes
from quintet.quinto import QuintoObservation, QuintoState
from quintet.quintus import QuintusObservation, QuintusState

if TYPE_CHECKING:
    from quintet.integrations.encoder import Encoder
    from quintet.integrations.spec import TableSpec

#: A named part of a tensor and its shape.
Piece = tuple[str, tuple[int, ...]]

NUM_BIDS: Final = (MAX_BID - MIN_BID) // 2 + 1
_TEXT: Final = tuple(action_str(a) for a in range(NUM_ACTIONS))


class Layout(Protocol):
    """One game's own parts of the tensors and of the observation string.

    ``obs`` is typed Any here: each layout takes its own engine's observation class
    (:class:`QuintoLayout` a ``QuintoObservation``...), which a parameter typed
    ``Observation`` would refuse (a protocol's parameters are contravariant).
    """

    def recall_pieces(self, spec: TableSpec) -> list[Piece]:
        """The information state's parts before ``plays`` and ``leaders``."""
        ...

    def table_pieces(self, spec: TableSpec) -> list[Piece]:
        """The observation's parts after ``trick`` and ``played``."""
        ...

    def history(self, enc: Encoder, ones: list[int], obs: Any) -> None:
        """Add the positions of the information state's ones (every action, in order)."""
        ...

    def table(self, enc: Encoder, ones: list[int], obs: Any) -> None:
        """Add the positions of the observation's ones (the table now) and its values."""
        ...

    def line(self, spec: TableSpec, obs: Any) -> str:
        """Return the observation string's last line: the table now."""
        ...


def _trick_text(spec: TableSpec, obs: Observation) -> str:
    names = spec.seat_names
    return " ".join(f"{names[s]}:{_TEXT[c]}" for s, c in obs.trick) or "-"


def _table(enc: Encoder, ones: list[int], obs: Observation) -> None:
    """The parts every game's observation shares: the trick and the cards played."""
    at = enc._at
    index = enc._index
    c = enc._cards
    played = at["played"]
    ones.extend([played + seat * c + index[a] for seat, a in obs.history if a <= JOKER])
    trick = at["trick"]
    ones.extend([trick + seat * c + index[card] for seat, card in obs.trick])


class QuintoLayout:
    """Quinto: the doubling round, the multiplier, tricks and points per side, the cachette."""

    PHASES: Final = ("doubling", "play", "over")

    def __init__(self, info: GameInfo) -> None:
        # Points of a side in one hand are bounded like a hand's result.
        self.points_scale = info.variant(info.default_variant).max_utility
        # The cachette counts as one more trick won.
        self.tricks_scale = info.num_tricks + (1 if info.cachette_size else 0)
        codes = seat_codes(info)
        self.side_names = tuple(
            "-".join(codes[s] for s in pair) for pair in info.partnerships or ()
        )

    def recall_pieces(self, spec: TableSpec) -> list[Piece]:
        return [("doubling", (spec.num_seats, 3)), ("cachette", (len(spec.deck),))]

    def table_pieces(self, spec: TableSpec) -> list[Piece]:
        return [
            ("phase", (3,)),
            ("multiplier", (3,)),
            ("doubled_by", (2,)),
            ("tricks_won", (2,)),
            ("points", (2,)),
            ("cachette", (len(spec.deck),)),
        ]

    def history(self, enc: Encoder, ones: list[int], obs: QuintoObservation) -> None:
        at = enc._at
        index = enc._index
        n = enc.spec.num_seats
        c = enc._cards
        plays, leaders, doubling = at["plays"], at["leaders"], at["doubling"]
        played = 0
        for seat, a in obs.history:
            if a <= JOKER:  # the cards played, as every layout has them (inlined: hot)
                trick = played // n
                if played % n == 0:
                    ones.append(leaders + trick * n + seat)
                ones.append(plays + (trick * n + seat) * c + index[a])
                played += 1
            else:
                ones.append(doubling + seat * 3 + a - PASS)
        if obs.cachette is not None:
            enc._cards_of(ones, enc._at["cachette"], (obs.cachette,))

    def table(self, enc: Encoder, ones: list[int], obs: QuintoObservation) -> None:
        at = enc._at
        _table(enc, ones, obs)
        ones.append(at["phase"] + self.PHASES.index(obs.phase))
        ones.append(at["multiplier"] + obs.multiplier.bit_length() - 1)
        if obs.doubled_by is not None:
            ones.append(at["doubled_by"] + obs.doubled_by)
        if obs.cachette is not None:
            enc._cards_of(ones, at["cachette"], (obs.cachette,))
        d = enc.dict
        for side in (0, 1):
            d["tricks_won"][side] = obs.tricks_won[side] / self.tricks_scale
            d["points"][side] = (obs.score[side] - obs.start_score[side]) / self.points_scale

    def line(self, spec: TableSpec, obs: QuintoObservation) -> str:
        names = spec.seat_names
        turn = names[obs.current_player] if obs.current_player >= 0 else "-"
        hp = (obs.score[0] - obs.start_score[0], obs.score[1] - obs.start_score[1])
        doubled = "" if obs.doubled_by is None else f" by {self.side_names[obs.doubled_by]}"
        cachette = "-" if obs.cachette is None else cards_str(obs.cachette)
        return (
            f"{obs.phase}, to act {turn}; trick {obs.tricks_played + 1}: "
            f"{_trick_text(spec, obs)}; "
            f"tricks {obs.tricks_won[0]}-{obs.tricks_won[1]}; points {hp[0]}-{hp[1]}; "
            f"x{obs.multiplier}{doubled}; score {obs.score[0]}-{obs.score[1]}; "
            f"cachette {cachette}"
        )


class QuintusLayout:
    """Quintus: the auction, the quintus, trump, nil, melds, the cards each seat took."""

    PHASES: Final = ("auction", "trump", "nil", "play", "meld", "over")

    def __init__(self, info: GameInfo) -> None:
        # A seat's points in one hand range like the base game's results (its points).
        base = info.variant(info.default_variant)
        self.points_min = base.min_utility
        self.points_span = base.max_utility - base.min_utility

    def recall_pieces(self, spec: TableSpec) -> list[Piece]:
        s = spec.num_seats
        return [
            ("bids", (s, NUM_BIDS)),
            ("passes", (s, NUM_BIDS + 1)),
            ("quintus", (s,)),
            ("trump", (5,)),
            ("nil", (3,)),
            ("melds", (spec.num_tricks, 2)),
        ]

    def table_pieces(self, spec: TableSpec) -> list[Piece]:
        s, c = spec.num_seats, len(spec.deck)
        return [
            ("phase", (6,)),
            ("quintus", (s,)),
            ("high_bid", (NUM_BIDS,)),
            ("passed", (s,)),
            ("trump", (5,)),
            ("nil", (3,)),
            ("meld", (2,)),
            ("taken", (s, c)),
            ("points", (3,)),
        ]

    def history(self, enc: Encoder, ones: list[int], obs: QuintusObservation) -> None:
        at = enc._at
        index = enc._index
        n = enc.spec.num_seats
        c = enc._cards
        plays, leaders = at["plays"], at["leaders"]
        played = 0
        level = 0  # the auction: 0 before any bid, else the high bid's index + 1
        for seat, a in obs.history:
            if a <= JOKER:  # as in QuintoLayout.history
                trick = played // n
                if played % n == 0:
                    ones.append(leaders + trick * n + seat)
                ones.append(plays + (trick * n + seat) * c + index[a])
                played += 1
            elif a == PASS:
                ones.append(at["passes"] + seat * (NUM_BIDS + 1) + level)
            elif is_bid(a):
                ones.append(at["bids"] + seat * NUM_BIDS + a - BID_BASE)
                level = a - BID_BASE + 1
            elif a in (MELD_COURT, MELD_STRAIGHT, DECLINE):
                ones.append(at["melds"] + (played // n - 1) * 2 + (a == DECLINE))
        if obs.quintus is not None:
            ones.append(at["quintus"] + obs.quintus)
        if obs.trump is not None:
            ones.append(at["trump"] + TRUMP_NAMES.index(obs.trump))
        if obs.nil is not None:
            ones.append(at["nil"] + NIL_NAMES.index(obs.nil))

    def table(self, enc: Encoder, ones: list[int], obs: QuintusObservation) -> None:
        at = enc._at
        _table(enc, ones, obs)
        ones.append(at["phase"] + self.PHASES.index(obs.phase))
        if obs.quintus is not None:
            ones.append(at["quintus"] + obs.quintus)
        if obs.high_bid is not None:
            ones.append(at["high_bid"] + (obs.high_bid - MIN_BID) // 2)
        ones.extend([at["passed"] + seat for seat in obs.passed])
        if obs.trump is not None:
            ones.append(at["trump"] + TRUMP_NAMES.index(obs.trump))
        if obs.nil is not None:
            ones.append(at["nil"] + NIL_NAMES.index(obs.nil))
        if obs.meld is not None:
            ones.append(at["meld"] + (obs.meld != "court"))
        enc._cards_of(ones, at["taken"], obs.taken)
        low, span = self.points_min, self.points_span
        points = enc.dict["points"]
        for i, p in enumerate(obs.points):
            points[i] = min(1.0, max(0.0, (p - low) / span))

    def line(self, spec: TableSpec, obs: QuintusObservation) -> str:
        turn = obs.current_player if obs.current_player >= 0 else "-"
        q = "-" if obs.quintus is None else obs.quintus
        bid = "-" if obs.high_bid is None else obs.high_bid
        passed = ",".join(str(s) for s in obs.passed) or "-"
        return (
            f"{obs.phase}, to act {turn}; quintus {q}; high bid {bid}; passed {passed}; "
            f"trump {obs.trump or '-'}; nil {obs.nil or '-'}; meld {obs.meld or '-'}; "
            f"trick {obs.tricks_played + 1}: {_trick_text(spec, obs)}; "
            f"points {'/'.join(str(p) for p in obs.points)}; "
            f"taken {' '.join(cards_str(m) or '-' for m in obs.taken)}"
        )


#: Each engine's layout, by the game's ``state_class``.
LAYOUTS: Final[Mapping[type, Callable[[GameInfo], Layout]]] = {
    QuintoState: QuintoLayout,
    QuintusState: QuintusLayout,
}


def layout_of(info: GameInfo) -> Layout:
    """Return the layout of ``info``'s observations.

    Raises:
        InvalidOptionError: no layout for that game's engine.
    """
    try:
        make = LAYOUTS[info.state_class]
    except KeyError:
        raise InvalidOptionError(f"no observation layout for {info.title}") from None
    return make(info)


__all__ = ["LAYOUTS", "NUM_BIDS", "Layout", "QuintoLayout", "QuintusLayout", "layout_of"]
