"""What the person's screen shows, computed from what the person may see.

:func:`build_view` draws everything from ``state.observation(person)``, the hand's
public events and public facts of the match (scores, seats, games won): never from the
full state, so the table cannot show a card the person may not see.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from rich.text import Text

from quintet.actions import (
    DECLINE,
    DOUBLE,
    MELD_COURT,
    MELD_STRAIGHT,
    NIL_CLOSED,
    NIL_NONE,
    NIL_OPEN,
    PASS,
    REDOUBLE,
    SIGNAL_ASK,
    SIGNAL_DOWN,
    SIGNAL_UP,
    TRUMP_BASE,
    TRUMP_NT,
    Action,
    action_type,
    bid,
    bid_amount,
    is_bid,
    is_play,
)
from quintet.cards import Card
from quintet.game import Event, GameState, Observation
from quintet.games import find_game
from quintet.quinto import QuintoMatch, QuintoObservation
from quintet.quinto.rules import SIDE_NAMES
from quintet.quintus import QuintusMatch, QuintusObservation
from quintet.tui.render import (
    action_label,
    action_phrase,
    card_text,
    cards_text,
    event_line,
    hand_order,
    seat_label,
    trump_label,
)

#: Where each seat sits on the screen, by its distance clockwise from the person.
SLOTS: Final = {
    4: ("bottom", "left", "top", "right"),
    5: ("bottom", "lower-left", "upper-left", "upper-right", "lower-right"),
}
TRUMPS: Final = tuple(range(TRUMP_BASE, TRUMP_NT + 1))
NILS: Final = (NIL_NONE, NIL_CLOSED, NIL_OPEN)
SIGNALS: Final = (SIGNAL_UP, SIGNAL_DOWN, SIGNAL_ASK)
DOUBLING: Final = (PASS, DOUBLE, REDOUBLE)


@dataclass
class SeatView:
    """One seat around the table."""

    seat: int
    name: str
    player: str
    tags: list[str]
    cards: int
    hand: int | None
    played: Card | None
    wins: bool
    note: str
    to_act: bool
    slot: str


@dataclass
class HandView:
    """A hand the person plays from (his own, and the dummy's for the lone player)."""

    seat: int
    title: str
    cards: list[Card]
    hidden: bool
    active: bool


@dataclass
class ChoiceView:
    """A decision button: ``kind`` is ``act`` (take ``action``), ``down`` or ``up`` (bid)."""

    label: str
    action: Action
    legal: bool
    kind: str = "act"


@dataclass
class TrickView:
    """A finished trick: who played what in order, and who won it."""

    number: int
    plays: list[tuple[int, Card]]
    winner: int | None


@dataclass
class TableView:
    """Everything the table screen draws at one moment."""

    game: str
    variant: str
    person: int
    title: str
    phase: str
    seats: list[SeatView]
    trick: list[tuple[int, Card]]
    trick_title: str
    hands: list[HandView]
    legal: dict[int, set[Action]]
    decision: int | None
    choices: list[ChoiceView]
    choice_seat: int
    prompt: str
    info: Text
    log: list[Text]
    tricks: list[TrickView]
    hand_over: bool
    match_over: bool
    key: tuple[int, int, int, str]
    shown_score: tuple[int, ...]
    names: list[str] = field(default_factory=list)

    def legal_for(self, seat: int, action: Action) -> bool:
        """Return whether the person may take ``action`` for ``seat`` now."""
        return action in self.legal.get(seat, set())


def seat_names(game: str, obs: Observation) -> list[str]:
    """Return each seat's name as the log writes it (the dummy marked)."""
    info = find_game(game)
    names = [seat_label(game, s) for s in range(info.num_seats)]
    dummy = info.dummy_of(getattr(obs, "lone_seat", None))
    if dummy is not None:
        names[dummy] += " (dummy)"
    return names


def finished_tricks(
    game: str, history: tuple[tuple[int, Action], ...], events: list[Event]
) -> list[TrickView]:
    """Return the finished tricks of a hand from its public history and events."""
    size = find_game(game).num_seats
    winners = [e.seat for e in events if e.kind == "trick"]
    out: list[TrickView] = []
    cur: list[tuple[int, Card]] = []
    for seat, a in history:
        if not is_play(a):
            continue
        cur.append((seat, a))
        if len(cur) == size:
            i = len(out)
            out.append(TrickView(i + 1, cur, winners[i] if i < len(winners) else None))
            cur = []
    return out


def build_view(table: Any, person: int, bid_amount_wanted: int | None = None) -> TableView:
    """Return what the person at seat ``person`` sees of ``table`` now."""
    state: GameState = table.state
    game = table.game
    obs = state.observation(person)
    events: list[Event] = state.events()
    names = seat_names(game, obs)
    n = table.num_seats
    turn = obs.current_player
    over = turn < 0
    decision = turn if not over and table.player_of(turn) == person else None
    legal: dict[int, set[Action]] = {}
    for seat, a in obs.legal_actions:
        legal.setdefault(seat, set()).add(a)
    history = obs.history
    tricks = finished_tricks(game, history, events)
    phase = obs.phase

    # The trick on the table: the one in play, else the last one finished (with its winner).
    trick = list(obs.trick)
    winner: int | None = None
    if trick:
        trick_title = f"Trick {obs.tricks_played + 1}"
    elif tricks and phase in ("play", "meld", "over"):
        trick = list(tricks[-1].plays)
        winner = tricks[-1].winner
        wname = names[winner] if winner is not None else "?"
        trick_title = f"Trick {tricks[-1].number} → {wname}"
    else:
        trick_title = _phase_title(game, phase)
    played = dict(trick)

    controlled = [s for s in range(n) if table.player_of(s) == person]
    rows: list[HandView] = []
    trump_suit = _trump_suit(obs)
    for s in sorted(controlled, key=lambda s: s == person):  # the dummy's row on top
        mask = obs.hands[s]
        title = f"Your hand · {names[s]}" if s == person else f"Dummy · {names[s]} · you play it"
        active = decision == s or (decision is None and s == person)
        rows.append(
            HandView(
                seat=s,
                title=title,
                cards=hand_order(mask, trump_suit) if mask is not None else [],
                hidden=mask is None,
                active=active,
            )
        )

    seats = []
    notes = _notes(game, obs, history)
    slots = SLOTS[n]
    for s in range(n):
        seats.append(
            SeatView(
                seat=s,
                name=names[s].replace(" (dummy)", ""),
                player=_player(table, obs, s, person),
                tags=_tags(game, obs, s),
                cards=obs.hand_sizes[s],
                hand=obs.hands[s] if s not in controlled else None,
                played=played.get(s),
                wins=winner == s,
                note=notes.get(s, ""),
                to_act=s == turn,
                slot=slots[(s - person) % n],
            )
        )

    choices = _choices(game, obs, decision, person, legal, bid_amount_wanted)
    choice_seat = decision if decision is not None else person
    info, shown = _info(table, obs, events, tricks)
    log = [event_line(game, e, names) for e in events]
    hand_no = len(table.match.hands)
    log.insert(0, Text(f"Hand {hand_no} · dealer {names[obs.dealer]}", style="bold underline"))
    return TableView(
        game=game,
        variant=table.variant,
        person=person,
        title=_title(table, obs),
        phase=phase,
        seats=seats,
        trick=trick,
        trick_title=trick_title,
        hands=rows,
        legal=legal,
        decision=decision,
        choices=choices,
        choice_seat=choice_seat,
        prompt=_prompt(table, obs, decision, person, names),
        info=info,
        log=log,
        tricks=tricks,
        hand_over=over,
        match_over=table.match_over(),
        key=(hand_no, len(history), -1 if decision is None else decision, phase),
        shown_score=shown,
        names=names,
    )


def _phase_title(game: str, phase: str) -> str:
    return {
        "doubling": "Doubling round",
        "auction": "Auction",
        "trump": "Trump",
        "nil": "Nil",
        "play": "First lead",
        "over": "Hand over",
    }.get(phase, phase.capitalize())


def _trump_suit(obs: Observation) -> int | None:
    trump = getattr(obs, "trump", None)
    return "SCDH".index(trump) if trump in ("S", "C", "D", "H") else None


def _title(table: Any, obs: Observation) -> str:
    return _TITLES[type(table.match)](table, obs)


def _quinto_title(table: Any, obs: QuintoObservation) -> str:
    match = table.match
    if obs.lone_seat is not None:
        kind = "three-hand game"
    else:
        kind = f"rubber · game {match.game_of_hand[-1] + 1}"
    return f"Quinto {table.variant} · {kind} · hand {len(match.hands)}"


def _quintus_title(table: Any, obs: QuintusObservation) -> str:
    match = table.match
    done = match.hands_played()
    now = done + (0 if match.hands[-1].is_terminal() else 1)
    return f"Quintus {table.variant} · hand {max(now, 1)} of {match.rules.hands}"


def _player(table: Any, obs: Observation, seat: int, person: int) -> str:
    ctrl = table.player_of(seat)
    if ctrl != seat:
        return "dummy, yours" if ctrl == person else f"dummy of {seat_label('quinto', ctrl)}"
    if seat == person:
        return "you"
    return table.seats[seat] or "person"


def _tags(game: str, obs: Observation, seat: int) -> list[str]:
    """Return a seat's role tags: dealer, then its side (Quinto) or team (Quintus)."""
    info = find_game(game)
    tags = []
    if seat == obs.dealer:
        tags.append("dealer")
    if info.partnerships is not None:
        lone = getattr(obs, "lone_seat", None)
        if lone is not None:
            if seat == lone:
                tags.append("lone")
            elif seat == info.dummy_of(lone):
                tags.append("dummy")
        tags.append(SIDE_NAMES[seat & 1])
    else:
        q = getattr(obs, "quintus", None)
        teams = info.teams_of(q)
        if q is not None and seat == q:
            tags.append("quintus")
        elif teams is not None:
            team = next(t for t in teams if seat in t)
            tags.append(f"with {team[0] if team[1] == seat else team[1]}")
    return tags


# _notes, _choices and _prompt serve both games: a field only one game's observation has
# (Quintus's meld, high_bid) is read by name, in the phase that game alone has.
def _notes(game: str, obs: Observation, history: tuple[tuple[int, Action], ...]) -> dict[int, str]:
    notes: dict[int, str] = {}
    phase = obs.phase
    if phase in ("doubling", "auction"):
        for seat, a in history:
            if a in (PASS, DOUBLE, REDOUBLE) or is_bid(a):
                notes[seat] = action_phrase(game, a)
    for seat, name in getattr(obs, "signals", ()):
        arrow = {"up": "↑", "down": "↓", "ask": "?"}[name]
        notes[seat] = f"signals {name} {arrow}"
    if phase == "meld" and obs.current_player >= 0:
        notes[obs.current_player] = f"meld or decline the {getattr(obs, 'meld', None)}?"
    return notes


def _choices(
    game: str,
    obs: Observation,
    decision: int | None,
    person: int,
    legal: dict[int, set[Action]],
    wanted: int | None,
) -> list[ChoiceView]:
    phase = obs.phase
    mine = legal.get(decision, set()) if decision is not None else set()
    if phase == "doubling" and decision is not None:
        # Only what the seat may do: no Redouble button when nobody can redouble.
        return [ChoiceView(action_label(a), a, True) for a in DOUBLING if a in mine]
    if phase == "auction" and decision is not None:
        low = max(30, (getattr(obs, "high_bid", None) or 0) + 2)
        amount = min(max(wanted if wanted is not None else low, 30), 120)
        b = bid(amount)
        return [
            ChoiceView("Pass", PASS, PASS in mine),
            ChoiceView(f"Bid {amount}", b, b in mine),
            ChoiceView("−2", b, amount > 30, kind="down"),
            ChoiceView("+2", b, amount < 120, kind="up"),
        ]
    if phase == "trump" and decision is not None:
        return [ChoiceView(action_label(a), a, a in mine) for a in TRUMPS]
    if phase == "nil" and decision is not None:
        return [ChoiceView(action_label(a), a, a in mine) for a in NILS]
    if phase == "meld" and decision is not None:
        m = MELD_COURT if getattr(obs, "meld", None) == "court" else MELD_STRAIGHT
        return [
            ChoiceView(action_label(m), m, m in mine),
            ChoiceView("Decline", DECLINE, DECLINE in mine),
        ]
    if _may_signal(game, obs, person):
        sig = legal.get(person, set())
        return [ChoiceView(action_label(a), a, a in sig) for a in SIGNALS]
    return []


def _prompt(
    table: Any, obs: Observation, decision: int | None, person: int, names: list[str]
) -> str:
    phase = obs.phase
    game = table.game
    if decision is None:
        if phase == "over":
            if table.match_over():
                return "The match is over: t for the score sheet, s to save, q to quit."
            return "Hand over: Enter deals the next hand."
        turn = obs.current_player
        who = names[turn]
        extra = ""
        if _may_signal(game, obs, person):
            extra = "  You may signal (1-3) before you play to this trick."
        return f"Waiting for {who}…{extra}"
    you = "You" if decision == person else f"You, for the {names[decision]},"
    if phase == "doubling":
        mine = table.legal(decision)
        kinds = ("pass", "double", "redouble")
        words = [w for a, w in zip(DOUBLING, kinds, strict=True) if a in mine]
        what = " or ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)
        return f"{you} speak in the doubling round: {what} (1-{len(words)} and Enter, or click)."
    if phase == "auction":
        high = getattr(obs, "high_bid", None)
        now = f"high bid {high}" if high else "no bid yet"
        return f"{you} bid or pass ({now}): −/+ set the bid, 1-2 and Enter."
    if phase == "trump":
        return f"{you} are the quintus: name trump or sans atout (1-5, Enter)."
    if phase == "nil":
        return f"{you} declare nil: none, closed or open (1-3, Enter)."
    if phase == "meld":
        what = (
            "court (J Q K of one suit, +10)"
            if getattr(obs, "meld", None) == "court"
            else "straight (5-9 of one suit, +25)"
        )
        return f"{you} won a trick holding a {what}: meld it or decline (1-2, Enter)."
    lead = "lead" if not obs.trick else "play"
    sig = "  1-3 signal." if _may_signal(game, obs, person) else ""
    return f"{you} {lead} to trick {obs.tricks_played + 1}: letter or ←/→, then Enter.{sig}"


def _may_signal(game: str, obs: Observation, person: int) -> bool:
    """Return whether the person's seat may signal in this phase (a Quintus defender)."""
    return (
        "signal" in find_game(game).action_kinds
        and obs.phase == "play"
        and getattr(obs, "quintus", None) not in (None, person)
    )


def _info(
    table: Any, obs: Observation, events: list[Event], tricks: list[TrickView]
) -> tuple[Text, tuple[int, ...]]:
    return _INFOS[type(table.match)](table, obs, events, tricks)


def _row(label: str, a: object, b: object, style: str = "") -> Text:
    return Text(f"{label:<11}{a!s:>6}{b!s:>6}\n", style=style)


def _quinto_info(
    table: Any, obs: QuintoObservation, events: list[Event]
) -> tuple[Text, tuple[int, ...]]:
    out = Text()
    quints = [0, 0]
    for e in events:
        if e.kind == "trick" and e.seat is not None:
            quints[e.seat & 1] += e.points
        elif e.kind == "cachette" and e.seat is not None:
            quints[e.seat] += e.points
    start = obs.start_score
    score = obs.score
    if obs.lone_seat is not None:
        lone = obs.lone_seat
        out.append(
            f"Lone {seat_label(table.game, lone)}, "
            f"dummy {seat_label(table.game, find_game(table.game).dummy_of(lone) or 0)}\n"
        )
    out.append_text(_row("", SIDE_NAMES[0], SIDE_NAMES[1], "bold"))
    out.append_text(_row("Score", score[0], score[1], "bold"))
    out.append_text(_row("This hand", f"{score[0] - start[0]:+d}", f"{score[1] - start[1]:+d}"))
    out.append_text(_row("Tricks", obs.tricks_won[0], obs.tricks_won[1]))
    out.append_text(_row("Quints", quints[0], quints[1]))
    if obs.lone_seat is None:
        won = table.match.games_won()
        out.append_text(_row("Games won", won[0], won[1]))
    out.append(f"Target {obs.target}\n")
    m = obs.multiplier
    if m == 1:
        out.append("Not doubled: tricks 5 each\n")
    else:
        word = "Doubled" if m == 2 else "Redoubled"
        by = SIDE_NAMES[obs.doubled_by] if obs.doubled_by is not None else "?"
        out.append(f"{word} by {by}: ×{m}, tricks {5 * m}\n", style="bold yellow")
    if obs.cachette is not None:
        out.append("Cachette: ")
        out.append_text(cards_text(obs.cachette))
        out.append("\n")
    if obs.game_winner is not None:
        out.append(f"Game to {SIDE_NAMES[obs.game_winner]}\n", style="bold green")
    rs = table.match.rubber_score() if obs.lone_seat is None else None
    if rs is not None:
        out.append(
            f"Rubber: {SIDE_NAMES[0]} {rs[0]}, {SIDE_NAMES[1]} {rs[1]}\n", style="bold green"
        )
    return out, (score[0], score[1])


def _quintus_info(
    table: Any, obs: QuintusObservation, tricks: list[TrickView]
) -> tuple[Text, tuple[int, ...]]:
    out = Text()
    q = obs.quintus
    out.append(f"Dealer Seat {obs.dealer}")
    out.append(f" · quintus Seat {q}\n" if q is not None else "\n")
    if obs.variant == "bidding":
        if obs.contract is not None:
            out.append(f"Contract {obs.contract}\n", style="bold")
        elif obs.phase == "auction":
            high = f"high bid {obs.high_bid}" if obs.high_bid else "no bid yet"
            passed = ", ".join(str(s) for s in obs.passed) or "none"
            out.append(f"Auction: {high}; passed: {passed}\n")
    out.append("Trump ")
    out.append_text(trump_label(obs.trump))
    nil = obs.nil
    if nil is not None:
        style = "bold magenta" if nil != "none" else ""
        out.append(f" · nil {nil}", style=style)
    out.append("\n")
    if q is not None and not obs.void:
        qp, ta, tb = obs.points
        a = ((q + 1) % 5, (q + 3) % 5)
        b = ((q + 2) % 5, (q + 4) % 5)
        won = [0] * 5
        for t in tricks:
            if t.winner is not None:
                won[t.winner] += 1
        out.append(f"{'':<19}{'points':>7}{'tricks':>8}\n", style="bold")
        rows = [
            (f"quintus, Seat {q}", qp, won[q]),
            (f"Seats {a[0]} and {a[1]}", ta, won[a[0]] + won[a[1]]),
            (f"Seats {b[0]} and {b[1]}", tb, won[b[0]] + won[b[1]]),
        ]
        for label, pts, n in rows:
            out.append(f"  {label:<17}{pts:>7}{n:>8}\n")
    if obs.void:
        out.append("All five passed: the hand is void\n", style="bold yellow")
    totals = table.match.totals()
    out.append("Session totals\n", style="bold")
    out.append("  " + "".join(f"{'S' + str(s):>6}" for s in range(5)) + "\n")
    out.append("  " + "".join(f"{t:>6}" for t in totals) + "\n")
    if table.match_over():
        best = table.match.winners()
        out.append("Won by " + " and ".join(f"Seat {s}" for s in best) + "\n", style="bold green")
    return out, tuple(totals)


def describe_action(game: str, a: Action) -> Text:
    """Return an action for the status line: a coloured card or the action's words."""
    if is_play(a):
        t = Text("play ")
        t.append_text(card_text(a))
        return t
    return Text(action_label(a))


def bid_of(action: Action) -> int | None:
    """Return the amount of a bid action, else None."""
    return bid_amount(action) if action_type(action) == "bid" else None


#: Each game's title line and score panel, by its match class.
_TITLES: Final[dict[type, Callable[[Any, Any], str]]] = {
    QuintoMatch: _quinto_title,
    QuintusMatch: _quintus_title,
}
_INFOS: Final[dict[type, Callable[..., tuple[Text, tuple[int, ...]]]]] = {
    QuintoMatch: lambda table, obs, events, tricks: _quinto_info(table, obs, events),
    QuintusMatch: lambda table, obs, events, tricks: _quintus_info(table, obs, tricks),
}
