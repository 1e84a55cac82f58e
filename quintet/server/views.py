"""JSON views of a table, built per recipient from that seat's observation.

Nothing here reads a hand from the full state: a player's hands, legal actions and
table come from ``state.observation(seat)``; a spectator's view keeps only what every
seat's observation shows (an open-nil hand) until the hand is over. The event log,
the last trick, the score sheets and the end-of-hand summary are public: they hold
played cards, the cachette once taken, and (once the hand is over) the deal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from quintet.actions import MELD_COURT, MELD_STRAIGHT, action_str, action_to_json, is_play
from quintet.cards import JOKER, CardMask, card_str, mask_cards
from quintet.game import Event, GameState, Observation
from quintet.games import find_game
from quintet.hand import HandState
from quintet.quinto import QuintoMatch, QuintoObservation, QuintoState
from quintet.quinto.match import games_won, match_winner, rubber_total
from quintet.quinto.rules import SEAT_NAMES, SIDE_NAMES
from quintet.quintus import QuintusMatch, QuintusObservation, QuintusState
from quintet.server.protocol import dumps
from quintet.sheets import hand_summary

JSON = dict[str, Any]


def cards_json(mask: CardMask | None) -> list[str] | None:
    """Return a mask as card codes (ascending), or None."""
    return None if mask is None else [card_str(c) for c in mask_cards(mask)]


def seat_label(game: str, seat: int) -> str:
    """Return how a seat is named to people: ``North`` or ``seat 3``."""
    return find_game(game).seat_label(seat)


# ----------------------------------------------------------------- the hand


def hand_json(obs: Observation, hands: Sequence[CardMask | None], number: int) -> JSON:
    """Return the table of the hand in play as one observer sees it.

    ``hands`` are the hands this recipient may see (None for the others): a player's
    come from ``obs.hands``, a spectator's from :func:`public_hands`.
    """
    out = public_hand_json(obs, number)
    out["hands"] = hands_json(hands)
    return out


def public_hand_json(obs: Observation, number: int) -> JSON:
    """Return the hand in play without its hands: what every seat's observation shows.

    Everything here is public (the same from any seat's observation), so a live table
    builds it once per change from one observation and sends each recipient only what
    changed in it; the hands each recipient may see come apart (:func:`hands_json`).
    """
    return _HAND_PARTS[type(obs)](obs, number)


def hands_json(hands: Sequence[CardMask | None]) -> list[list[str] | None]:
    """Return the hands a recipient may see as card codes (None for the others)."""
    return [cards_json(m) for m in hands]


#: Each card's code as JSON text (``"AS"``, quoted; the codes need no escaping).
_CARD_TEXT: Final = tuple(f'"{card_str(c)}"' for c in range(JOKER + 1))


def hands_text(hands: Sequence[CardMask | None]) -> str:
    """Return :func:`hands_json` encoded as JSON text (the same text, without building
    the lists: a live table sends a seat's hands at each of its plays)."""
    texts = _CARD_TEXT
    parts = [
        "null" if m is None else "[" + ",".join([texts[c] for c in mask_cards(m)]) + "]"
        for m in hands
    ]
    return "[" + ",".join(parts) + "]"


#: A trick's entry ``{"seat", "card"}`` is made from these (seat, then card code).
_CODES: Final = tuple(card_str(c) for c in range(JOKER + 1))


def _trick_json(trick: Sequence[tuple[int, int]]) -> list[JSON]:
    codes = _CODES
    return [{"seat": s, "card": codes[c]} for s, c in trick]


def _common_hand(obs: Observation, number: int) -> JSON:
    """Return the fields of a hand in play every game has (each read directly: a live
    table builds the hand at every change)."""
    turn = obs.current_player
    return {
        "number": number,
        "actions": len(obs.history),
        "phase": obs.phase,
        "dealer": obs.dealer,
        "turn": turn if turn >= 0 else None,
        "hand_sizes": list(obs.hand_sizes),
        "trick": _trick_json(obs.trick) if obs.trick else [],
        "tricks_played": obs.tricks_played,
    }


def _quinto_hand(obs: QuintoObservation, number: int) -> JSON:
    """Return a Quinto hand in play without its hands."""
    out = _common_hand(obs, number)
    lone = obs.lone_seat
    cachette = obs.cachette
    out.update(
        lone_seat=lone,
        dummy_seat=find_game(obs.game).dummy_of(lone),
        multiplier=obs.multiplier,
        doubled_by=obs.doubled_by,
        tricks_won=list(obs.tricks_won),
        score=list(obs.score),
        start_score=list(obs.start_score),
        target=obs.target,
        cachette=None if cachette is None else cards_json(cachette),
        game_winner=obs.game_winner,
    )
    return out


def _quintus_hand(obs: QuintusObservation, number: int) -> JSON:
    """Return a Quintus hand in play without its hands."""
    out = _common_hand(obs, number)
    out.update(
        quintus=obs.quintus,
        contract=obs.contract,
        high_bid=obs.high_bid,
        passed=list(obs.passed),
        trump=obs.trump,
        nil=obs.nil,
        signals=[{"seat": s, "signal": n} for s, n in obs.signals],
        meld=obs.meld,
        points=list(obs.points),
        taken=[m.bit_count() for m in obs.taken],
        void=obs.void,
    )
    return out


def public_hands(shown: Sequence[Sequence[CardMask | None]]) -> list[CardMask | None]:
    """Return the hands every player is shown (an open-nil hand), else None.

    ``shown`` holds each player's hands as its observation has them (``obs.hands``).
    """
    n = len(shown[0])
    out: list[CardMask | None] = []
    for s in range(n):
        masks = [hands[s] for hands in shown]
        out.append(masks[0] if all(m is not None for m in masks) else None)
    return out


def legal_json(obs: Observation) -> list[JSON]:
    """Return the observer's legal actions as record action objects."""
    return actions_json(obs.legal_actions)


def actions_json(actions: Sequence[tuple[int, int]]) -> list[JSON]:
    """Return ``(seat, action)`` pairs as record action objects."""
    return [action_to_json(a, s) for s, a in actions]


# ------------------------------------------------------------- public parts


def event_json(game: str, e: Event) -> JSON:
    """Return one public event as JSON."""
    out: JSON = {"kind": e.kind, "seat": e.seat, "text": e.text}
    if e.action is not None:
        out["action"] = action_to_json(e.action, e.seat if e.seat is not None else 0)
    if e.cards:
        out["cards"] = cards_json(e.cards)
    if e.points:
        out["points"] = e.points
    if e.values:
        out["values"] = list(e.values)
    return out


def public_log(state: GameState) -> tuple[list[JSON], JSON | None]:
    """Return the hand's public events and its last completed trick (or None)."""
    log = PublicLog(state.game)
    log.add(state.events())
    return log.json, log.last


class PublicLog:
    """A hand's public log as it grows: its events (the engine's, as JSON and encoded),
    the last completed trick.

    A live table adds each action's events as it is made (:func:`step_events`), so
    the log is never replayed from the deal; :func:`public_log` is the same read from
    a whole hand at once.
    """

    def __init__(self, game: str) -> None:
        self.game = game
        self.per_trick = find_game(game).num_seats
        #: The engine's events (the score sheet reads them).
        self.events: list[Event] = []
        #: Every entry of the log as JSON: the events, and whatever else is added.
        self.json: list[JSON] = []
        #: Every entry of the log encoded (the JSON text of each entry of ``json``).
        self.texts: list[str] = []
        #: The last completed trick: ``{"winner", "cards", "points"}``, or None.
        self.last: JSON | None = None
        self._plays: list[JSON] = []

    def add(self, events: Sequence[Event]) -> list[str]:
        """Add events at the end; return them encoded."""
        out = []
        game = self.game
        for e in events:
            if e.kind == "action":
                j, text = _action_entry(game, e)
                if e.action is not None and is_play(e.action):
                    self._plays.append({"seat": e.seat, "card": _CODES[e.action]})
                    if len(self._plays) > self.per_trick:
                        del self._plays[0]
            else:
                j = event_json(game, e)
                text = dumps(j)
                if e.kind == "trick":
                    self.last = {"winner": e.seat, "cards": self._plays, "points": e.points}
                    self._plays = []
            self.json.append(j)
            out.append(text)
        self.events.extend(events)
        self.texts.extend(out)
        return out

    def note(self, entry: JSON) -> str:
        """Add an entry of the table's own at the end (a notice: no engine event); return
        it encoded."""
        text = dumps(entry)
        self.json.append(entry)
        self.texts.append(text)
        return text


#: Each action event's log entry, by (game, seat, action, text): its JSON and its text
#: (the same every time, so made once: nine in ten of a hand's entries are actions).
_ACTION_ENTRIES: dict[tuple[str, int | None, int | None, str], tuple[JSON, str]] = {}


def _action_entry(game: str, e: Event) -> tuple[JSON, str]:
    """Return an action event's log entry as JSON and encoded (kept; never change it)."""
    key = (game, e.seat, e.action, e.text)
    hit = _ACTION_ENTRIES.get(key)
    if hit is None:
        j = event_json(game, e)
        hit = _ACTION_ENTRIES[key] = (j, dumps(j))
    return hit


#: The event of each action that brings nothing but itself, by (game, seat, action).
_PLAIN_EVENTS: dict[tuple[str, int, int], Event] = {}


def step_events(
    before: GameState, seat: int, action: int, after: GameState | None = None
) -> list[Event]:
    """Return the public events ``seat``'s ``action`` brings in the state ``before`` it.

    They are exactly the events :meth:`~quintet.game.GameState.events` adds for it.
    An action that ends no trick and no hand and melds nothing (``after`` shows it)
    brings only itself; any other is played from a position that begins at ``before``
    (:meth:`quintet.hand.HandState.position`): the action alone is replayed, not the
    hand.
    """
    if (
        after is not None
        and after.tricks_played == before.tricks_played
        and not after.is_terminal()
        and action not in (MELD_COURT, MELD_STRAIGHT)
    ):
        key = (before.game, seat, action)
        e = _PLAIN_EVENTS.get(key)
        if e is None:
            text = f"{find_game(before.game).seat_label(seat)}: {action_str(action)}"
            e = _PLAIN_EVENTS[key] = Event("action", seat, action, text=text)
        return [e]
    if isinstance(before, HandState):
        pos = before.position()
        pos.apply_action(action, seat)
        return pos.events()
    after = before.clone()  # pragma: no cover - every engine here is a HandState
    after.apply_action(action, seat)
    return after.events()[len(before.events()) :]


def quinto_sheet(
    match: QuintoMatch, rows: list[JSON], events: Sequence[Event] | None = None
) -> JSON:
    """Return the rubber sheet (dummy: the game sheet) as JSON.

    ``rows`` caches the rows of finished hands between calls (it is extended in place);
    ``events`` are the last hand's public events when the caller keeps them (else that
    hand is replayed).
    """
    lone = match.lone_seat
    games: list[JSON] = []
    last = len(match.hands) - 1
    for i, (st, g) in enumerate(zip(match.hands, match.game_of_hand, strict=True)):
        if i < len(rows):
            row = rows[i]
        else:
            summary = hand_summary(st, events if i == last else None)
            row = {
                "hand": i,
                "game": g,
                "dealer": st.dealer,
                "multiplier": st.multiplier,
                "start_score": list(st.start_score),
                "quints": list(summary["quints"]),
                "tricks": list(summary["tricks"]),
                "won": list(summary["won"]),
                "score": [st.score[0], st.score[1]],
                "in_progress": not st.is_terminal(),
                "ended_on_quint": st.is_terminal() and summary["tricks"] == (0, 0),
                "game_winner": st.game_winner,
                "tied": st.tied,
            }
            if st.is_terminal():
                rows.append(row)
        while len(games) <= g:
            games.append({"number": len(games) + 1, "hands": [], "winner": None, "score": [0, 0]})
        games[g]["hands"].append(row)
        games[g]["score"] = list(row["score"])
        games[g]["winner"] = row["game_winner"]
    results = match.games()  # once: the standing below is worked out from it
    winner = match_winner(results, lone is not None)
    bonus = match.rules.rubber_bonus
    rubber = rubber_total(results, winner, bonus) if winner is not None and lone is None else None
    return {
        "kind": "game" if lone is not None else "rubber",
        "sides": list(SIDE_NAMES) if lone is None else _dummy_sides(lone),
        "games": games,
        "games_won": list(games_won(results)),
        "winner": winner,
        "rubber_score": list(rubber) if rubber else None,
        "rubber_bonus": bonus,
        "over": winner is not None,
    }


def _dummy_sides(lone: int) -> list[str]:
    names = ["", ""]
    names[lone % 2] = f"lone {SEAT_NAMES[lone]}"
    names[1 - lone % 2] = "opponents"
    return names


def quintus_ledger(match: QuintusMatch) -> JSON:
    """Return the Quintus ledger as JSON: each hand's scores and the running totals."""
    rows: list[JSON] = []
    totals = [0] * 5
    for i, st in enumerate(match.hands):
        row: JSON = {
            "hand": i,
            "dealer": st.dealer,
            "void": st.void,
            "quintus": st.quintus_seat,
            "trump": st.trump_name(),
            "nil": st.nil_name(),
            "nil_failed": st.nil_failed,
            "contract": st.contract,
            "made": st.made(),
            "in_progress": not st.is_terminal(),
            "scores": None,
            "totals": None,
        }
        if st.is_terminal() and not st.void:
            sc = st.scores()
            totals = [t + x for t, x in zip(totals, sc, strict=True)]
            row["scores"] = sc
            row["totals"] = list(totals)
        rows.append(row)
    over = match.is_over()
    return {
        "kind": "ledger",
        "hands_to_play": match.rules.hands,
        "hands_played": match.hands_played(),
        "hands": rows,
        "totals": match.totals(),
        "winners": match.winners() if over else None,
        "over": over,
    }


def hand_result(state: GameState, events: Sequence[Event] | None = None) -> JSON:
    """Return the end-of-hand summary: the deal (all hands as dealt) and the result.

    Only for a finished hand: the deal is shown to everyone once the hand is over.
    ``events`` are the hand's public events if the caller keeps them (else replayed).
    """
    deal: JSON = {"hands": [cards_json(m) for m in state.initial_hands()]}
    out: JSON = {"deal": deal, "dealer": state.dealer}
    out.update(_RESULT_PARTS[type(state)](state, deal, events))
    return out


def _quinto_result(state: QuintoState, deal: JSON, events: Sequence[Event] | None) -> JSON:
    """Return a finished Quinto hand's result (and put its cachette in the deal)."""
    deal["cachette"] = cards_json(state.initial_cachette())
    s = hand_summary(state, events)
    return {
        "multiplier": state.multiplier,
        "quints": list(s["quints"]),
        "tricks": list(s["tricks"]),
        "won": list(s["won"]),
        "hand_points": list(state.hand_points()),
        "score": list(state.score),
        "game_winner": state.game_winner,
        "tied": state.tied,
        "cachette_side": state.cachette_side,
    }


def _quintus_result(state: QuintusState, deal: JSON, events: Sequence[Event] | None) -> JSON:
    """Return a finished Quintus hand's result."""
    return {
        "void": state.void,
        "quintus": state.quintus_seat,
        "contract": state.contract,
        "trump": state.trump_name(),
        "nil": state.nil_name(),
        "nil_failed": state.nil_failed,
        "points": list(state.points()) if state.quintus_seat is not None else None,
        "made": state.made(),
        "scores": state.scores(),
    }


def action_text(seat: int, action: int) -> JSON:
    """Return ``{"action": {...}, "text": "AS"}`` for a hint or a log line."""
    return {"action": action_to_json(action, seat), "text": action_str(action)}


#: Each game's hand in play without its hands (by observation class) and its own fields
#: of a finished hand's result (by state class).
_HAND_PARTS: Final[dict[type, Callable[[Any, int], JSON]]] = {
    QuintoObservation: _quinto_hand,
    QuintusObservation: _quintus_hand,
}
_RESULT_PARTS: Final[dict[type, Callable[[Any, JSON, Sequence[Event] | None], JSON]]] = {
    QuintoState: _quinto_result,
    QuintusState: _quintus_result,
}


def sheet_json(
    match: QuintoMatch | QuintusMatch, rows: list[JSON], events: Sequence[Event] | None = None
) -> JSON:
    """Return the match's score sheet as JSON, its game's kind (``rows``: Quinto's cache,
    ``events``: the last hand's public events if kept)."""
    return _SHEETS[type(match)](match, rows, events)


def sheet_key(state: GameState | None) -> Any:
    """Return what the in-progress hand's row of the score sheet depends on: the sheet
    is built again only when it changes (Quinto: tricks, the phase, doubling; Quintus:
    tricks, the phase, the auction, trump, nil and a void hand)."""
    if state is None:
        return None
    return _SHEET_KEYS[type(state)](state)


_SHEETS: Final[dict[type, Callable[[Any, list[JSON], Sequence[Event] | None], JSON]]] = {
    QuintoMatch: quinto_sheet,
    QuintusMatch: lambda match, rows, events: quintus_ledger(match),
}
#: What a game's in-progress sheet row shows, read from its state (the phase says
#: whether the hand is over).
_SHEET_KEYS: Final[dict[type, Callable[[Any], tuple[Any, ...]]]] = {
    QuintoState: lambda st: (st.tricks_played, st.phase, st.multiplier),
    QuintusState: lambda st: (
        st.tricks_played,
        st.phase,
        st.quintus,
        st.contract,
        st.trump,
        st.nil,
        st.void,
    ),
}
