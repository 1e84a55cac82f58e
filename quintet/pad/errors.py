"""The score pad's errors: each says what is wrong and leaves the pad unchanged."""

from __future__ import annotations

from typing import Any


class PadError(ValueError):
    """A score pad refused a document or an entry; ``entry`` is the 0-based entry index."""

    kind = "pad"

    def __init__(self, detail: str, entry: int | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.entry = entry

    def at(self, entry: int) -> PadError:
        """Return the same error naming ``entry`` (when it did not name one already)."""
        if self.entry is not None:
            return self
        return type(self)(self.detail, entry)

    def to_json(self) -> dict[str, Any]:
        """Return the error as a JSON object: ``error`` (its kind), ``entry``, ``detail``."""
        return {"error": self.kind, "entry": self.entry, "detail": self.detail}


class InvalidPadError(PadError):
    """The pad document has the wrong shape (format, game, options, seats, players)."""

    kind = "invalid pad"


class InvalidEntryError(PadError):
    """An entry has the wrong shape: unknown type, a missing or ill-typed field."""

    kind = "invalid entry"


class ImpossibleEntryError(PadError):
    """An entry is well formed but the rules or the entries before it rule it out."""

    kind = "impossible entry"
