"""The project's exceptions. Every one is a ``ValueError``: bad input, never a bug."""

from __future__ import annotations

from typing import Any


class QuintetError(ValueError):
    """Base class of all errors raised for bad input."""


class InvalidCardError(QuintetError):
    """A card code or card number that does not name a card."""


class InvalidActionError(QuintetError):
    """An action that cannot be parsed, or that no seat of this game could ever take."""


class IllegalActionError(QuintetError):
    """A well-formed action the rules do not allow at this point of the game."""


class InvalidOptionError(QuintetError):
    """An unknown rules option, variant or game, or an option value of the wrong type."""


class RecordError(QuintetError):
    """A game record that cannot be read, has the wrong shape, or does not replay.

    ``kind`` is ``unreadable``, ``invalid`` or ``illegal action`` (record-format.md);
    ``hand`` and ``action`` are 0-based indices or ``None``.
    """

    def __init__(
        self, kind: str, detail: str, hand: int | None = None, action: int | None = None
    ) -> None:
        self.kind = kind
        self.detail = detail
        self.hand = hand
        self.action = action
        where = ""
        if hand is not None:
            where = f" (hand {hand}" + (f", action {action})" if action is not None else ")")
        super().__init__(f"{kind}{where}: {detail}")

    def to_json(self) -> dict[str, Any]:
        """Return the error object that ``quintet score`` prints."""
        out: dict[str, Any] = {"error": self.kind}
        if self.hand is not None:
            out["hand"] = self.hand
        if self.action is not None:
            out["action"] = self.action
        out["detail"] = self.detail
        return out
