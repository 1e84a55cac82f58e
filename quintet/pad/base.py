"""What every score pad shares: the JSON document, checked entries, corrections.

A pad is a JSON document (``to_json``): the game, variant, options, first dealer, lone
seat, the players' names and a list of *entries*, each a JSON object with a ``type``.
Every operation takes and returns JSON-able data; the pad's figures are recomputed from
its entries each time, so correcting or deleting an entry recomputes everything after
it. An entry that does not fit is refused with a :class:`PadError` and the pad is left
as it was.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final, Generic, TypeVar

from quintet.errors import InvalidOptionError
from quintet.pad.errors import ImpossibleEntryError, InvalidEntryError, InvalidPadError, PadError

FORMAT: Final = "quintet-pad"
VERSION: Final = 1
#: The most entries a pad holds (a long rubber has about 150).
MAX_ENTRIES: Final = 5000
#: The longest player name.
MAX_NAME: Final = 40

JSON = dict[str, Any]
C = TypeVar("C")


def field(
    entry: Mapping[str, Any],
    name: str,
    kind: type | tuple[type, ...],
    *,
    choices: Sequence[Any] | None = None,
    default: Any = ...,
) -> Any:
    """Return ``entry[name]`` checked against a type and choices (``default`` if absent).

    Raises:
        InvalidEntryError: missing (with no default), of the wrong type, not a choice.
    """
    what = entry.get("type", "entry")
    if name not in entry or entry[name] is None:
        if default is ...:
            raise InvalidEntryError(f"a {what} entry needs '{name}'")
        return default
    value = entry[name]
    bad_bool = isinstance(value, bool) and bool not in (
        kind if isinstance(kind, tuple) else (kind,)
    )
    if bad_bool or not isinstance(value, kind):
        raise InvalidEntryError(f"'{name}' of a {what} entry cannot be {value!r}")
    if choices is not None and value not in choices:
        shown = ", ".join(str(c) for c in choices)
        raise InvalidEntryError(f"'{name}' of a {what} entry is {value!r}, not one of {shown}")
    return value


def only_fields(entry: Mapping[str, Any], names: Sequence[str]) -> None:
    """Refuse fields a kind of entry does not have (a typo would otherwise be ignored).

    Raises:
        InvalidEntryError: an unknown field.
    """
    extra = sorted(set(entry) - {"type", "note", *names})
    if extra:
        raise InvalidEntryError(
            f"a {entry.get('type')} entry has no field {', '.join(map(repr, extra))} "
            f"(fields: {', '.join(names)})"
        )


def side_field(entry: Mapping[str, Any], name: str = "side") -> int:
    """Return a side (0 or 1) from ``entry[name]``.

    Raises:
        InvalidEntryError: missing or not 0 or 1.
    """
    side: int = field(entry, name, int, choices=(0, 1))
    return side


class Pad(ABC, Generic[C]):
    """A score pad of one game: its rules, seats, players and entries (see the module).

    ``C`` is what replaying the entries computes (each game's own sheet of figures).
    """

    game: ClassVar[str]
    SEATS: ClassVar[int]
    ENTRY_TYPES: ClassVar[tuple[str, ...]]

    def __init__(
        self,
        rules: Any,
        first_dealer: int = 0,
        lone_seat: int | None = None,
        players: Sequence[str] | None = None,
    ) -> None:
        self.rules = rules
        self.first_dealer = first_dealer
        self.lone_seat = lone_seat
        self.players = self._check_players(players)
        self._check_seats()
        self._entries: list[JSON] = []
        self._computed: C = self._replay([])[1]

    # ----------------------------------------------------------------- document

    @property
    def variant(self) -> str:
        """The variant's name."""
        variant: str = self.rules.variant
        return variant

    @property
    def entries(self) -> list[JSON]:
        """A copy of the entries, as checked and written (canonical codes)."""
        return [dict(e) for e in self._entries]

    @property
    def computed(self) -> C:
        """What the entries come to (read only: change the pad through its methods)."""
        return self._computed

    def to_json(self) -> JSON:
        """Return the pad as a JSON document (what a file or a server stores)."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "variant": self.variant,
            "options": self.rules.options(),
            "first_dealer": self.first_dealer,
            "lone_seat": self.lone_seat,
            "players": list(self.players) if self.players else None,
            "entries": self.entries,
        }

    @classmethod
    def from_document(cls, data: Mapping[str, Any]) -> Pad[Any]:
        """Return the pad of a JSON document of this game, every entry checked.

        Raises:
            InvalidPadError: the document's own fields are wrong.
            InvalidEntryError, ImpossibleEntryError: an entry (``entry`` names it).
        """
        try:
            rules = cls.rules_class().from_options(
                data.get("variant") or cls.default_variant(), data.get("options")
            )
        except InvalidOptionError as e:
            raise InvalidPadError(str(e)) from None
        first = data.get("first_dealer", 0)
        lone = data.get("lone_seat")
        for name, value in (("first_dealer", first), ("lone_seat", lone)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise InvalidPadError(f"'{name}' must be a seat number, not {value!r}")
        entries = data.get("entries") or []
        if not isinstance(entries, list):
            raise InvalidPadError("'entries' must be a list")
        pad = cls(rules, 0 if first is None else first, lone, data.get("players"))
        pad.set_entries(entries)
        return pad

    @classmethod
    @abstractmethod
    def rules_class(cls) -> Any:
        """Return the engine's rules class."""

    @classmethod
    @abstractmethod
    def default_variant(cls) -> str:
        """Return the variant a document without one is played in."""

    def _check_players(self, players: object) -> tuple[str, ...] | None:
        if players is None:
            return None
        if not isinstance(players, list | tuple) or len(players) != self.SEATS:
            raise InvalidPadError(f"'players' must be a list of {self.SEATS} names")
        out = []
        for name in players:
            if not isinstance(name, str) or not 0 < len(name.strip()) <= MAX_NAME:
                raise InvalidPadError(
                    f"a player's name must be 1 to {MAX_NAME} characters, not {name!r}"
                )
            out.append(name.strip())
        return tuple(out)

    @abstractmethod
    def _check_seats(self) -> None:
        """Check the first dealer and lone seat (raise InvalidPadError)."""

    # ---------------------------------------------------------------- entries

    def add(self, entry: Mapping[str, Any]) -> JSON:
        """Check and add an entry at the end; return it as written.

        Raises:
            InvalidEntryError, ImpossibleEntryError: it does not fit (nothing changes).
        """
        if len(self._entries) >= MAX_ENTRIES:
            raise ImpossibleEntryError(f"a pad holds at most {MAX_ENTRIES} entries")
        self._set([*self._entries, self._plain(entry, len(self._entries))], len(self._entries))
        return dict(self._entries[-1])

    def replace(self, index: int, entry: Mapping[str, Any]) -> JSON:
        """Correct entry ``index`` and recompute everything after it; return it as written.

        Raises:
            IndexError: no such entry.
            InvalidEntryError, ImpossibleEntryError: the new entry, or a later one that no
                longer fits after it (nothing changes).
        """
        self._index(index)
        entries = list(self._entries)
        entries[index] = self._plain(entry, index)
        self._set(entries, index)
        return dict(self._entries[index])

    def delete(self, index: int) -> None:
        """Delete entry ``index`` and recompute everything after it.

        Raises:
            IndexError: no such entry.
            ImpossibleEntryError: a later entry no longer fits without it (nothing changes).
        """
        self._index(index)
        self._set(self._entries[:index] + self._entries[index + 1 :], index)

    def undo(self) -> JSON:
        """Delete the last entry and return it.

        Raises:
            IndexError: the pad has no entries.
        """
        if not self._entries:
            raise IndexError("the pad has no entries")
        last = self._entries[-1]
        self._set(self._entries[:-1], len(self._entries) - 1)
        return dict(last)

    def set_entries(self, entries: Sequence[Mapping[str, Any]]) -> None:
        """Replace every entry at once (loading a document).

        Raises:
            InvalidEntryError, ImpossibleEntryError: an entry does not fit (nothing changes).
        """
        if len(entries) > MAX_ENTRIES:
            raise ImpossibleEntryError(f"a pad holds at most {MAX_ENTRIES} entries")
        self._set([self._plain(e, i) for i, e in enumerate(entries)], None)

    def _index(self, index: int) -> None:
        if isinstance(index, bool) or not isinstance(index, int):
            raise IndexError(f"an entry index is a number, not {index!r}")
        if not 0 <= index < len(self._entries):
            raise IndexError(f"no entry {index}: the pad has {len(self._entries)}")

    def _plain(self, entry: object, index: int | None = None) -> JSON:
        if not isinstance(entry, Mapping):
            raise InvalidEntryError(f"an entry is a JSON object, not {entry!r}", index)
        kind = entry.get("type")
        if kind not in self.ENTRY_TYPES:
            raise InvalidEntryError(
                f"unknown entry type {kind!r} (a {self.game} pad has: "
                f"{', '.join(self.ENTRY_TYPES)})",
                index,
            )
        return dict(entry)

    def _set(self, entries: list[JSON], changed: int | None) -> None:
        try:
            written, computed = self._replay(entries)
        except PadError as e:
            if changed is not None and e.entry is not None and e.entry > changed:
                raise type(e)(
                    f"entry {e.entry} would no longer fit: {e.detail} (delete or correct it first)",
                    e.entry,
                ) from None
            raise
        self._entries = written
        self._computed = computed

    @abstractmethod
    def _replay(self, entries: list[JSON]) -> tuple[list[JSON], C]:
        """Check every entry in order; return them as written and what they come to.

        Raises:
            PadError: the first entry that does not fit (``entry`` set).
        """

    # ----------------------------------------------------------------- reading

    def seat_label(self, seat: int) -> str:
        """Return a seat's player name, or its seat name."""
        if self.players:
            return self.players[seat]
        return self.seat_names()[seat]

    @abstractmethod
    def seat_names(self) -> tuple[str, ...]:
        """Return the seats' own names."""

    @abstractmethod
    def view(self) -> JSON:
        """Return everything a front end shows: figures, what may come next, the status."""

    @abstractmethod
    def score_summary(self) -> JSON:
        """Return the pad's scores in the scorer's shape (``quintet score``)."""

    @abstractmethod
    def hand_groups(self) -> list[tuple[str, list[int]]]:
        """Return each hand's heading and the indices of its entries, in order."""

    @abstractmethod
    def status(self) -> str:
        """Return one line: where the pad stands and what is entered next."""
