"""A player's observation as a string and as a flat float32 tensor with named parts.

Everything is computed from the engine's observation
(:meth:`quintet.game.GameState.observation`), so no hidden card can reach a string or a
tensor. The parts every game shares are laid out here; each game's own parts are its
:class:`~quintet.integrations.layouts.Layout`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from quintet.actions import Action, is_signal
from quintet.cards import CardMask, cards_str, mask_cards
from quintet.game import Observation
from quintet.integrations.layouts import Layout, Piece, layout_of
from quintet.integrations.spec import TableSpec


def _pieces(spec: TableSpec, layout: Layout, perfect_recall: bool, private: bool) -> list[Piece]:
    s, c, t = spec.num_seats, len(spec.deck), spec.num_tricks
    out: list[Piece] = [("viewer", (s,)), ("dealer", (s,))]
    if any(v.lone_seat for v in spec.info.variants.values()):
        out.append(("lone", (s,)))
    if private:
        out.append(("hands", (s, c)))
    out.append(("current_player", (s,)))
    if perfect_recall:
        out += layout.recall_pieces(spec)
        out += [("plays", (t, s, c)), ("leaders", (t, s))]
        return out
    out += [("trick", (s, c)), ("played", (s, c))]
    out += layout.table_pieces(spec)
    return out


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
        self._layout = layout_of(spec.info)
        pieces = _pieces(spec, self._layout, perfect_recall, private)
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
                self._layout.history(self, ones, obs)
            else:
                self._layout.table(self, ones, obs)
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
        lines.append(self._layout.line(spec, obs))
        return "\n".join(lines)


def action_mask(legal: Sequence[Action], size: int) -> np.ndarray:
    """Return an int8 vector of ``size`` with 1 at each legal action."""
    mask = np.zeros(size, np.int8)
    mask[list(legal)] = 1
    return mask


def main_actions(actions: Sequence[Action]) -> list[Action]:
    """Return ``actions`` without the signals (never in an adapter's action set)."""
    return [a for a in actions if not is_signal(a)]


__all__ = ["Encoder", "action_mask", "main_actions"]
