"""Adapters to other frameworks, and the encodings of observations they share.

* :mod:`quintet.integrations.openspiel`: both games as OpenSpiel Python games
  (``python_quinto``, ``python_quintus``; extra ``openspiel``).
* :mod:`quintet.integrations.pettingzoo`: both games as PettingZoo AEC environments
  (extra ``pettingzoo``).

This package itself needs only numpy. It holds what both adapters share:

* :class:`TableSpec`: one hand of one game under given rules (:func:`table_spec` checks
  the options), its *players* and their seats, its action set and bounds;
* :class:`Encoder`: a player's observation (:meth:`quintet.game.GameState.observation`)
  as a string and as a flat float32 tensor with named parts. Everything is computed
  from that observation, so no hidden card can reach a string or a tensor.

Players are the seats that decide: every seat, except in Quinto's dummy variant, whose
dummy seat is played by the lone player (three players: the seats other than the dummy,
in seat order). Quintus signals are given out of turn, which neither OpenSpiel nor an AEC
environment can express: they are left out of the action sets (signals are optional and
never needed to play a hand).

>>> spec = table_spec("quinto", "dummy", lone_seat=1, dealer=1)
>>> spec.players, spec.num_actions, spec.player_of_seat(3)
((0, 1, 2), 56, 1)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np

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
    REDOUBLE,
    TRUMP_NAMES,
    Action,
    action_str,
    is_bid,
    is_signal,
)
from quintet.cards import JOKER, QUINTUS_PACK, CardMask, cards_str, mask_cards
from quintet.errors import InvalidOptionError
from quintet.game import Observation
from quintet.quinto import QuintoRules, QuintoState
from quintet.quinto import random_deal as quinto_deal
from quintet.quinto.rules import JOKER_QUINT, SUIT_QUINT, TRICK_VALUE
from quintet.quintus import QuintusRules, QuintusState
from quintet.quintus import random_deal as quintus_deal
from quintet.quintus.rules import COURT_POINTS, NIL_BONUS, STRAIGHT_POINTS

GAMES: Final = ("quinto", "quintus")
#: Quinto's actions: cards 0..52, pass, double, redouble (the shared numbering, cut short).
QUINTO_ACTIONS: Final = REDOUBLE + 1
#: Quintus's actions: the whole shared action space (signals are never legal here).
QUINTUS_ACTIONS: Final = NUM_ACTIONS
NUM_BIDS: Final = (MAX_BID - MIN_BID) // 2 + 1

_QUINTO_OPTIONS: Final = (
    "dealer",
    "lone_seat",
    "target",
    "joker_eleventh_trick",
    "dummy_double_view",
    "score_ns",
    "score_ew",
)
_QUINTUS_OPTIONS: Final = ("dealer",)
_QUINTUS_DECK: Final = mask_cards(QUINTUS_PACK)
_QUINTO_SEATS: Final = "NESW"
# Quints in the whole pack, and the most trick points a side can take (12 tricks and the
# cachette, redoubled): no hand result can lie outside plus or minus their sum.
_QUINTO_MAX: Final = 3 * sum(SUIT_QUINT) + JOKER_QUINT + 13 * TRICK_VALUE * 4
# Quintus: 12 faces at 10, every trick melded (4 straights and 4 courts), an open nil.
_QUINTUS_MAX: Final = 12 * 10 + 4 * (STRAIGHT_POINTS + COURT_POINTS) + NIL_BONUS["base"][1]
_QUINTUS_MIN: Final = -24  # every five to ten and no face
_TEXT: Final = tuple(action_str(a) for a in range(NUM_ACTIONS))


class TableSpec:
    """One hand of ``game`` under ``rules``: who plays which seat, actions and bounds.

    Built by :func:`table_spec`. ``players`` are the deciding seats, in seat order
    (player ``i`` sits at ``players[i]``); ``deck`` lists the cards dealt, and a card's
    position in it is its index in tensors.
    """

    def __init__(
        self,
        game: str,
        rules: QuintoRules | QuintusRules,
        dealer: int,
        lone_seat: int | None = None,
        start_score: tuple[int, int] = (0, 0),
    ) -> None:
        self.game = game
        self.rules = rules
        self.variant = rules.variant
        self.dealer = dealer
        self.lone_seat = lone_seat
        self.start_score = start_score
        quinto = game == "quinto"
        self.num_seats = 4 if quinto else 5
        dummy = (lone_seat + 2) & 3 if lone_seat is not None else -1
        self.dummy_seat = dummy if dummy >= 0 else None
        self.players: tuple[int, ...] = tuple(s for s in range(self.num_seats) if s != dummy)
        self._player = [
            self.players.index(lone_seat if s == dummy and lone_seat is not None else s)
            for s in range(self.num_seats)
        ]
        self.deck: tuple[int, ...] = tuple(range(JOKER + 1)) if quinto else _QUINTUS_DECK
        index = [-1] * (JOKER + 1)
        for i, c in enumerate(self.deck):
            index[c] = i
        self.card_index: tuple[int, ...] = tuple(index)
        #: The cards dealt, as a mask.
        self.pack: CardMask = sum(1 << c for c in self.deck)
        self.num_tricks = 12 if quinto else 8
        self.num_actions = QUINTO_ACTIONS if quinto else QUINTUS_ACTIONS
        bidding = not quinto and rules.variant == "bidding"
        self.zero_sum = (quinto and dummy < 0) or bidding
        if quinto:
            self.min_utility, self.max_utility = -float(_QUINTO_MAX), float(_QUINTO_MAX)
            self.max_game_length = (4 if dummy < 0 else 3) + 48
        elif bidding:
            self.min_utility, self.max_utility = -float(MAX_BID), float(MAX_BID)
            # at most every bid once and five passes; trump, nil, 40 cards, 8 melds
            self.max_game_length = NUM_BIDS + 5 + 2 + 40 + 8
        else:
            self.min_utility, self.max_utility = float(_QUINTUS_MIN), float(_QUINTUS_MAX)
            self.max_game_length = 2 + 40 + 8
        self.seat_names: tuple[str, ...] = (
            tuple(_QUINTO_SEATS) if quinto else tuple(str(s) for s in range(5))
        )
        # "E:pass", "S:2C": a history entry as information-state strings write it.
        self._token = tuple(
            tuple(f"{name}:{_TEXT[a]}" for a in range(NUM_ACTIONS)) for name in self.seat_names
        )

    @property
    def num_players(self) -> int:
        """The number of players (deciding seats)."""
        return len(self.players)

    def player_of_seat(self, seat: int) -> int:
        """Return the player who decides for ``seat`` (the lone player for the dummy)."""
        return self._player[seat]

    def new_state(self, hands: Sequence[CardMask], cachette: CardMask = 0) -> Any:
        """Return the engine's state for a dealt hand (Quinto: with its cachette).

        Raises:
            ValueError: the cards are not a deal of this game.
        """
        if isinstance(self.rules, QuintoRules):
            return QuintoState.new(
                self.rules, self.dealer, hands, cachette, self.start_score, self.lone_seat
            )
        return QuintusState.new(self.rules, self.dealer, hands)

    def deal(self, rng: random.Random) -> Any:
        """Return the engine's state for a hand dealt at random with ``rng``."""
        if self.game == "quinto":
            hands, cachette = quinto_deal(rng)
            return self.new_state(hands, cachette)
        return self.new_state(quintus_deal(rng))

    def deal_slot(self, step: int) -> int:
        """Return where the ``step``-th card of a deal goes: a seat, or 4 for Quinto's cachette.

        Cards go round the seats one at a time (seat 0 first); Quinto's last five form
        the cachette.
        """
        if self.game == "quinto" and step >= 48:
            return 4
        return step % self.num_seats

    @property
    def deal_size(self) -> int:
        """The number of cards dealt: 53 or 40."""
        return len(self.deck)

    def history_token(self, seat: int, action: Action) -> str:
        """Return ``E:pass``: one history entry as information-state strings write it."""
        return self._token[seat][action]

    def header(self, seat: int) -> str:
        """Return the first line of a player's strings: game, variant, dealer, seat."""
        names = self.seat_names
        text = f"{self.game} {self.variant}, dealer {names[self.dealer]}"
        if self.lone_seat is not None:
            text += f", lone {names[self.lone_seat]}"
        return text + f", seat {names[seat]}"

    def __repr__(self) -> str:
        return f"<TableSpec {self.game} {self.variant} dealer {self.dealer}>"


def table_spec(game: str = "quinto", variant: str | None = None, **options: Any) -> TableSpec:
    """Return the spec of one hand of ``game`` with rules ``options``.

    Quinto options: ``dealer`` [0], ``lone_seat`` [0, dummy variant only], ``target``
    [250], ``joker_eleventh_trick`` [False], ``dummy_double_view`` [``own``], and the game
    score before the hand ``score_ns``, ``score_ew`` [0] (a hand stops when a side reaches
    the target). Match options (``rubber_bonus``, ``dummy_handicap``: give it as the
    score; Quintus ``hands``) do not apply to one hand. Quintus options: ``dealer`` [0].

    Raises:
        InvalidOptionError: unknown game, variant or option, or a value of the wrong type.
        ValueError: a dealer or lone seat out of range, or a dummy seat that would deal.
    """
    if game not in GAMES:
        raise InvalidOptionError(f"unknown game {game!r} (known: {', '.join(GAMES)})")
    known = _QUINTO_OPTIONS if game == "quinto" else _QUINTUS_OPTIONS
    for name in options:
        if name not in known:
            raise InvalidOptionError(
                f"unknown {game} option {name!r} (known: {', '.join(sorted(known))})"
            )
    dealer = _int_option(options, "dealer", 0)
    if game == "quintus":
        qrules = QuintusRules(variant=variant or "base")
        spec = TableSpec("quintus", qrules, dealer)
    else:
        rules_options: dict[str, Any] = {
            k: options[k]
            for k in ("target", "joker_eleventh_trick", "dummy_double_view")
            if k in options
        }
        rules = QuintoRules.from_options(variant or "partnership", rules_options)
        lone = _int_option(options, "lone_seat", 0) if rules.variant == "dummy" else None
        if lone is None and options.get("lone_seat") is not None:
            raise InvalidOptionError("option lone_seat is for the dummy variant only")
        score = (_int_option(options, "score_ns", 0), _int_option(options, "score_ew", 0))
        spec = TableSpec("quinto", rules, dealer, lone, score)
    spec.deal(random.Random(0))  # the engine checks the dealer and the lone seat
    return spec


def _int_option(options: Mapping[str, Any], name: str, default: int) -> int:
    value = options.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidOptionError(f"option {name} must be an integer, not {value!r}")
    return value


# --------------------------------------------------------------------------- encoding


def _pieces(
    spec: TableSpec, perfect_recall: bool, private: bool
) -> list[tuple[str, tuple[int, ...]]]:
    s, c, t = spec.num_seats, len(spec.deck), spec.num_tricks
    quinto = spec.game == "quinto"
    out: list[tuple[str, tuple[int, ...]]] = [("viewer", (s,)), ("dealer", (s,))]
    if quinto:
        out.append(("lone", (s,)))
    if private:
        out.append(("hands", (s, c)))
    out.append(("current_player", (s,)))
    if perfect_recall:
        if quinto:
            out += [("doubling", (s, 3)), ("cachette", (c,))]
        else:
            out += [
                ("bids", (s, NUM_BIDS)),
                ("passes", (s, NUM_BIDS + 1)),
                ("quintus", (s,)),
                ("trump", (5,)),
                ("nil", (3,)),
                ("melds", (t, 2)),
            ]
        out += [("plays", (t, s, c)), ("leaders", (t, s))]
        return out
    out += [("trick", (s, c)), ("played", (s, c))]
    if quinto:
        out += [
            ("phase", (3,)),
            ("multiplier", (3,)),
            ("doubled_by", (2,)),
            ("tricks_won", (2,)),
            ("points", (2,)),
            ("cachette", (c,)),
        ]
    else:
        out += [
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
    return out


_QUINTO_PHASES: Final = ("doubling", "play", "over")
_QUINTUS_PHASES: Final = ("auction", "trump", "nil", "play", "meld", "over")


class Encoder:
    """A player's observation as a string and as a float32 tensor in [0, 1].

    ``perfect_recall`` chooses the *information state* (every public action in order and
    the cards the player may see: what OpenSpiel calls the information state) or the
    *observation* (the table now: hands, the trick, the cards each seat has played, the
    score). ``private`` False leaves out the hands (a public observation).

    ``tensor`` is one flat array, rewritten by every :meth:`set_from`; ``dict`` holds
    named views of its parts (their shapes are in ``shapes``), as OpenSpiel's observers
    have them.
    """

    def __init__(self, spec: TableSpec, perfect_recall: bool, private: bool = True) -> None:
        self.spec = spec
        self.perfect_recall = perfect_recall
        self.private = private
        pieces = _pieces(spec, perfect_recall, private)
        self.shapes: dict[str, tuple[int, ...]] = dict(pieces)
        size = sum(int(np.prod(shape)) for _, shape in pieces)
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        # Where each part starts in the flat tensor: set_from collects the positions of
        # its ones in a list and writes them with one numpy call (per-item writes into
        # the views cost a microsecond each).
        self._at: dict[str, int] = {}
        i = 0
        for name, shape in pieces:
            n = int(np.prod(shape))
            self.dict[name] = self.tensor[i : i + n].reshape(shape)
            self._at[name] = i
            i += n
        self._cards = len(spec.deck)
        # hand row offsets per seat, and each card's column
        self._index = spec.card_index

    @property
    def size(self) -> int:
        """The tensor's length."""
        return int(self.tensor.size)

    # -------------------------------------------------------------------- tensors

    def set_from(self, obs: Observation | None, seat: int) -> np.ndarray:
        """Write ``seat``'s observation into :attr:`tensor` and return it.

        ``obs`` None stands for a hand still being dealt (nothing seen yet).
        """
        spec = self.spec
        at = self._at
        t = self.tensor
        t.fill(0.0)
        ones = [at["viewer"] + seat, at["dealer"] + spec.dealer]
        if spec.lone_seat is not None:
            ones.append(at["lone"] + spec.lone_seat)
        if obs is not None:
            if self.private:
                self._cards_of(ones, at["hands"], obs.hands)
            if obs.current_player >= 0:
                ones.append(at["current_player"] + obs.current_player)
            if self.perfect_recall:
                self._history(ones, obs)
            elif spec.game == "quinto":
                self._quinto_table(ones, obs)
            else:
                self._quintus_table(ones, obs)
        t[ones] = 1.0
        return t

    def _cards_of(self, ones: list[int], base: int, masks: Sequence[CardMask | None]) -> None:
        """Add the positions of each row's cards (rows of ``_cards`` from ``base``)."""
        index = self._index
        n = self._cards
        for row, m in enumerate(masks):
            if m:
                b = base + row * n
                ones.extend([b + index[c] for c in mask_cards(m)])

    def _history(self, ones: list[int], obs: Any) -> None:
        spec = self.spec
        at = self._at
        index = self._index
        n = spec.num_seats
        c = self._cards
        plays, leaders = at["plays"], at["leaders"]
        quinto = spec.game == "quinto"
        played = 0
        level = 0  # Quintus auction: 0 before any bid, else the high bid's index + 1
        for seat, a in obs.history:
            if a <= JOKER:
                trick = played // n
                if played % n == 0:
                    ones.append(leaders + trick * n + seat)
                ones.append(plays + (trick * n + seat) * c + index[a])
                played += 1
            elif quinto:
                ones.append(at["doubling"] + seat * 3 + a - PASS)
            elif a == PASS:
                ones.append(at["passes"] + seat * (NUM_BIDS + 1) + level)
            elif is_bid(a):
                ones.append(at["bids"] + seat * NUM_BIDS + a - BID_BASE)
                level = a - BID_BASE + 1
            elif a in (MELD_COURT, MELD_STRAIGHT, DECLINE):
                ones.append(at["melds"] + (played // n - 1) * 2 + (a == DECLINE))
        if quinto:
            if obs.cachette is not None:
                self._cards_of(ones, at["cachette"], (obs.cachette,))
            return
        if obs.quintus is not None:
            ones.append(at["quintus"] + obs.quintus)
        if obs.trump is not None:
            ones.append(at["trump"] + TRUMP_NAMES.index(obs.trump))
        if obs.nil is not None:
            ones.append(at["nil"] + NIL_NAMES.index(obs.nil))

    def _table(self, ones: list[int], obs: Any) -> None:
        """The parts both games' observations share: the trick and the cards played."""
        at = self._at
        index = self._index
        c = self._cards
        played = at["played"]
        ones.extend([played + seat * c + index[a] for seat, a in obs.history if a <= JOKER])
        trick = at["trick"]
        ones.extend([trick + seat * c + index[card] for seat, card in obs.trick])

    def _quinto_table(self, ones: list[int], obs: Any) -> None:
        at = self._at
        self._table(ones, obs)
        ones.append(at["phase"] + _QUINTO_PHASES.index(obs.phase))
        ones.append(at["multiplier"] + obs.multiplier.bit_length() - 1)
        if obs.doubled_by is not None:
            ones.append(at["doubled_by"] + obs.doubled_by)
        if obs.cachette is not None:
            self._cards_of(ones, at["cachette"], (obs.cachette,))
        d = self.dict
        for side in (0, 1):
            d["tricks_won"][side] = obs.tricks_won[side] / 13
            d["points"][side] = (obs.score[side] - obs.start_score[side]) / _QUINTO_MAX

    def _quintus_table(self, ones: list[int], obs: Any) -> None:
        at = self._at
        self._table(ones, obs)
        ones.append(at["phase"] + _QUINTUS_PHASES.index(obs.phase))
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
        self._cards_of(ones, at["taken"], obs.taken)
        span = _QUINTUS_MAX - _QUINTUS_MIN
        points = self.dict["points"]
        for i, p in enumerate(obs.points):
            points[i] = min(1.0, max(0.0, (p - _QUINTUS_MIN) / span))

    # -------------------------------------------------------------------- strings

    def string_from(self, obs: Observation | None, seat: int, dealt: int = 0) -> str:
        """Return ``seat``'s observation as text (None: a hand still being dealt).

        ``dealt`` is the number of cards dealt so far while ``obs`` is None.

        The information state is the header, the hands the player sees and every action
        so far (``history: E:pass S:2C ...``); the observation is the table now.
        """
        spec = self.spec
        head = spec.header(seat)
        if obs is None:
            return f"{head}\ndealing: {dealt} cards dealt"
        lines = [head]
        if self.private:
            names = spec.seat_names
            lines.extend(
                f"{names[s]}: {cards_str(m) or '-'}"
                for s, m in enumerate(obs.hands)
                if m is not None
            )
        if self.perfect_recall:
            token = spec._token
            lines.append("history: " + " ".join([token[s][a] for s, a in obs.history]))
            return "\n".join(lines)
        lines.append(_quinto_line(spec, obs) if spec.game == "quinto" else _quintus_line(spec, obs))
        return "\n".join(lines)


def _trick_text(spec: TableSpec, obs: Any) -> str:
    names = spec.seat_names
    return " ".join(f"{names[s]}:{_TEXT[c]}" for s, c in obs.trick) or "-"


def _quinto_line(spec: TableSpec, obs: Any) -> str:
    names = spec.seat_names
    turn = names[obs.current_player] if obs.current_player >= 0 else "-"
    hp = (obs.score[0] - obs.start_score[0], obs.score[1] - obs.start_score[1])
    doubled = "" if obs.doubled_by is None else f" by {('N-S', 'E-W')[obs.doubled_by]}"
    cachette = "-" if obs.cachette is None else cards_str(obs.cachette)
    return (
        f"{obs.phase}, to act {turn}; trick {obs.tricks_played + 1}: {_trick_text(spec, obs)}; "
        f"tricks {obs.tricks_won[0]}-{obs.tricks_won[1]}; points {hp[0]}-{hp[1]}; "
        f"x{obs.multiplier}{doubled}; score {obs.score[0]}-{obs.score[1]}; cachette {cachette}"
    )


def _quintus_line(spec: TableSpec, obs: Any) -> str:
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


def action_mask(legal: Sequence[Action], size: int) -> np.ndarray:
    """Return an int8 vector of ``size`` with 1 at each legal action."""
    mask = np.zeros(size, np.int8)
    mask[list(legal)] = 1
    return mask


def main_actions(actions: Sequence[Action]) -> list[Action]:
    """Return ``actions`` without the signals (never in an adapter's action set)."""
    return [a for a in actions if not is_signal(a)]


__all__ = [
    "GAMES",
    "QUINTO_ACTIONS",
    "QUINTUS_ACTIONS",
    "Encoder",
    "TableSpec",
    "action_mask",
    "main_actions",
    "table_spec",
]
