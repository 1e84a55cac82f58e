"""The manager's messages to a bot, each built from what the bot's player may see.

Every message is a function of the player's observation (hands it may see, public
history) and of the public events of a state consistent with it (the view's *shadow*
state, whose hidden cards are not the true ones); :func:`_check_visible` refuses any
message holding a card the player may not see. What only one game's messages carry
(Quinto's lone seat and game score; the Quintus quintus, points and contract) is one
small function per engine, chosen by the game's ``state_class`` (:data:`_GAME_PARTS`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Final, Protocol

from quintet.actions import Action, action_str, action_to_json, is_play
from quintet.bots.base import BotView
from quintet.cards import CardMask, card_str, mask_cards
from quintet.errors import InvalidOptionError
from quintet.game import GameState, Observation
from quintet.games import GameInfo, game_of
from quintet.quinto import QuintoObservation, QuintoState
from quintet.quintus import QuintusObservation, QuintusState

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

JSON = dict[str, Any]


class MessageState(GameState, Protocol):
    """The game protocol and the two things of a state the messages read besides.

    ``rules`` (a dataclass: its fields are the ``options`` of ``new_hand``) and
    ``visible_seats(viewer)`` (the seats whose hands the player of ``viewer`` sees).
    Both engines have them.
    """

    @property
    def rules(self) -> DataclassInstance:
        """The hand's rules."""
        ...

    def visible_seats(self, viewer: int) -> tuple[int, ...]:
        """Return the seats whose hands the player deciding for ``viewer`` sees."""
        ...


def cards_json(mask: CardMask) -> list[str]:
    """Return the codes of a set of cards, in card order: ``["2S", "AS", "JK"]``."""
    return [card_str(c) for c in mask_cards(mask)]


def _played_by(history: Iterable[tuple[int, Action]], seats: int) -> list[CardMask]:
    played = [0] * seats
    for seat, a in history:
        if is_play(a):
            played[seat] |= 1 << a
    return played


def visible_mask(obs: Observation) -> CardMask:
    """Return every card the player of ``obs`` may know the place of.

    That is the cards of the hands it sees (as they are now and as they were dealt), the
    cards played so far and, in Quinto, the cachette once taken.
    """
    m = 0
    for h in obs.hands:
        if h is not None:
            m |= h
    for _, a in obs.history:
        if is_play(a):
            m |= 1 << a
    cachette = getattr(obs, "cachette", None)
    if cachette:
        m |= cachette
    return m


def _cards_in(message: Any) -> Iterable[str]:
    """Yield every card code a message holds (in ``cards``, ``hands``, ``hand``, ``card``)."""
    if isinstance(message, dict):
        for key, value in message.items():
            if key in ("cards", "hand") and isinstance(value, list):
                yield from (c for c in value if isinstance(c, str))
            elif key == "hands" and isinstance(value, list):
                for h in value:
                    if isinstance(h, list):
                        yield from h
            elif key == "card" and isinstance(value, str):
                yield value
            elif isinstance(value, dict | list):
                yield from _cards_in(value)
    elif isinstance(message, list):
        for item in message:
            yield from _cards_in(item)


def _check_visible(messages: Sequence[JSON], obs: Observation) -> None:
    """Raise RuntimeError if a message holds a card the player may not see (a bug)."""
    allowed = {card_str(c) for c in mask_cards(visible_mask(obs))}
    for message in messages:
        for code in _cards_in(message):
            if code not in allowed:
                raise RuntimeError(f"refusing to send hidden card {code} to seat {obs.viewer}")


def _options(state: MessageState) -> JSON:
    rules = state.rules
    return {f.name: getattr(rules, f.name) for f in fields(rules) if f.name != "variant"}


def _controls(state: GameState, viewer: int) -> list[int]:
    return [s for s in range(state.num_seats) if state.controller(s) == viewer]


def new_hand_message(state: MessageState, viewer: int) -> JSON:
    """Return the ``new_hand`` message for the player at seat ``viewer`` of ``state``.

    ``hands[s]`` is seat ``s``'s hand as dealt for every seat the player could see when
    the hand began (else null): the events later ``reveal`` the others it comes to see.
    ``state`` may be any state consistent with the player's observation.
    """
    obs = state.observation(viewer)
    n = state.num_seats
    played = _played_by(obs.history, n)
    snap = state.snapshot()
    seen = snap.visible_seats(viewer)
    hands = [
        cards_json(h | played[s]) if h is not None and s in seen else None
        for s, h in enumerate(obs.hands)
    ]
    out: JSON = {
        "type": "new_hand",
        "game": state.game,
        "variant": obs.variant,
        "options": _options(state),
        "seat": obs.viewer,
        "controls": _controls(state, obs.viewer),
        "dealer": obs.dealer,
        "hands": hands,
        "hand_sizes": [m.bit_count() for m in snap.hands],
    }
    out.update(_parts_of(game_of(state)).new_hand(obs, snap))
    return out


def _event_json(ev: Any, number: int) -> JSON | None:
    """Return the protocol event for an engine event (None: not sent)."""
    out: JSON = {"type": "event", "event": ev.kind}
    if ev.kind == "action":
        out.update(seat=ev.seat, action=action_to_json(ev.action, ev.seat))
        out["text"] = action_str(ev.action)
        return out
    if ev.kind == "trick":
        out.update(winner=ev.seat, number=number, cards=cards_json(ev.cards), points=ev.points)
    elif ev.kind == "cachette":
        out.update(side=ev.seat, cards=cards_json(ev.cards), points=ev.points)
    elif ev.kind == "tricks":
        out.update(event="trick_points", values=list(ev.values))
    elif ev.kind == "game":
        out.update(winner=ev.seat, score=list(ev.values))
    elif ev.kind == "nil":
        out.update(event="nil_failed", seat=ev.seat)
    elif ev.kind == "premium":
        out.update(seat=ev.seat, combo=action_str(ev.action).split()[-1], points=ev.points)
    elif ev.kind == "hand":
        return None  # the Quintus hand result: end_hand carries it
    else:  # pragma: no cover - a kind added to an engine later
        out.update(seat=ev.seat, cards=cards_json(ev.cards), points=ev.points)
        out["values"] = list(ev.values)
    out["text"] = ev.text
    return out


def hand_events(state: MessageState, viewer: int, known: Iterable[int] = ()) -> list[JSON]:
    """Return the ``event`` messages of ``state``'s hand so far, as seat ``viewer`` sees them.

    These are the engine's public events (:meth:`~quintet.game.GameState.events`) in
    order, and, right after the action that causes it, ``reveal`` when a hand becomes
    visible to the player (the dummy to the lone player, an open-nil hand) unless its
    seat is in ``known`` (given in ``new_hand``: those visible when the hand began), and
    ``quintus`` when an auction picks the quintus. The list only grows as the hand goes
    on: a manager sends its new tail.
    """
    history = state.history()
    replay = state.snapshot()
    seen = set(known) | set(replay.visible_seats(viewer))
    chosen = _parts_of(game_of(state)).chosen
    quintus_known = chosen(replay) is not None
    out: list[JSON] = []
    after: list[JSON] = []
    i = 0
    tricks = 0
    for ev in state.events():
        if ev.kind == "action":
            out += after
            after = []
            seat, a = history[i]
            i += 1
            replay.apply_action(a, seat)
            for s in replay.visible_seats(viewer):
                if s not in seen:
                    seen.add(s)
                    after.append(
                        {"type": "event", "event": "reveal", "seat": s}
                        | {"cards": cards_json(replay.hands[s])}
                    )
            if not quintus_known:
                named = chosen(replay)
                if named is not None:
                    quintus_known = True
                    after.append(named)
        if ev.kind == "trick":
            tricks += 1
        msg = _event_json(ev, tricks)
        if msg is not None:
            out.append(msg)
    return out + after


def request_message(view: BotView, kind: str, time_ms: int) -> JSON:
    """Return the ``decide`` (``kind`` "decide") or ``signal?`` message for ``view``."""
    obs = view.obs
    legal = view.legal if kind == "decide" else view.signals()
    hand = obs.hands[view.seat]
    out: JSON = {
        "type": "decide" if kind == "decide" else "signal?",
        "seat": view.seat,
        "legal": [action_str(a) for a in legal],
        "time_ms": time_ms,
        "phase": getattr(obs, "phase", None),
        "hand": None if hand is None else cards_json(hand),
        "trick": [{"seat": s, "card": card_str(c)} for s, c in getattr(obs, "trick", ())],
    }
    if view.budget.iterations is not None:
        out["iterations"] = view.budget.iterations
    return out


def end_hand_message(state: GameState) -> JSON:
    """Return the ``end_hand`` message of a finished hand (all public by then)."""
    info = game_of(state)
    return {"type": "end_hand", **_parts_of(info).end_hand(info, state)}


# ------------------------------------------------------------ each game's own parts


def _quinto_new_hand(obs: QuintoObservation, snap: QuintoState) -> JSON:
    return {"lone_seat": obs.lone_seat, "score": list(obs.start_score)}


def _quinto_end_hand(info: GameInfo, state: QuintoState) -> JSON:
    hp = state.hand_points()
    side = _side_of(info)
    return {
        "scores": [hp[side[s]] for s in range(info.num_seats)],  # each seat: its side's
        "hand_points": list(hp),
        "score": list(state.score),
        "game_winner": state.game_winner,
    }


def _quintus_new_hand(obs: QuintusObservation, snap: QuintusState) -> JSON:
    return {"quintus": snap.quintus_seat}


def _quintus_end_hand(info: GameInfo, state: QuintusState) -> JSON:
    return {
        "scores": list(state.scores()),
        "points": list(state.points()),
        "void": state.void,
        "made": state.made(),
    }


def _quinto_chosen(state: QuintoState) -> JSON | None:
    return None  # Quinto has no quintus


def _quintus_chosen(state: QuintusState) -> JSON | None:
    q = state.quintus_seat
    if q is None:
        return None
    return {"type": "event", "event": "quintus", "seat": q, "contract": state.contract}


def _side_of(info: GameInfo) -> dict[int, int]:
    """Return each seat's side (its partnership's index)."""
    return {s: i for i, pair in enumerate(info.partnerships or ()) for s in pair}


@dataclass(frozen=True, slots=True)
class _Parts:
    """What one game adds to ``new_hand`` (from the observation and the hand's start) and
    to ``end_hand`` (from the finished hand); ``chosen`` is the ``quintus`` event once a
    state's quintus is known (None until then, and in a game without one)."""

    new_hand: Callable[[Any, Any], JSON]
    end_hand: Callable[[GameInfo, Any], JSON]
    chosen: Callable[[Any], JSON | None]


#: Per engine, by the game's ``state_class``.
_GAME_PARTS: Final[Mapping[type, _Parts]] = {
    QuintoState: _Parts(_quinto_new_hand, _quinto_end_hand, _quinto_chosen),
    QuintusState: _Parts(_quintus_new_hand, _quintus_end_hand, _quintus_chosen),
}


def _parts_of(info: GameInfo) -> _Parts:
    try:
        return _GAME_PARTS[info.state_class]
    except KeyError:
        raise InvalidOptionError(f"the bot protocol has no messages for {info.title}") from None


__all__ = [
    "MessageState",
    "cards_json",
    "end_hand_message",
    "hand_events",
    "new_hand_message",
    "request_message",
    "visible_mask",
]
