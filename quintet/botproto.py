"""The quintet bot protocol: computer players as programs speaking JSON lines.

An *external bot* is any program that reads one JSON object per line on its standard
input and writes one per line on its standard output (UTF-8), in the spirit of UCI for
chess engines and the Blue Chip protocol for bridge robots. ``docs/bot-protocol.md``
is the full specification with an example session; in short (version 1)::

    manager -> bot                                     bot -> manager
    {"type":"hello","protocol":"quintet-bot","version":1}
                                                       {"type":"ready","name":"my bot"}
    {"type":"new_hand","game":"quinto",...,"seat":0,"hands":[[...],null,null,null],...}
    {"type":"event","event":"action","seat":1,"action":{...},"text":"pass"}
    {"type":"decide","seat":0,"legal":["pass","double"],"time_ms":5000,...}
                                                       {"type":"action","action":"double"}
    {"type":"signal?","seat":2,"legal":["signal up",...],"time_ms":5000,...}
                                                       {"type":"pass"}
    {"type":"end_hand","scores":[...],...}
    {"type":"quit"}

The table-manager side is :class:`ExternalBot`, a :class:`~quintet.bots.Bot` like the
others: ``make_bot("cmd:node examples/quintet-bot.js")`` seats one anywhere a level name
is accepted (the arena, :class:`~quintet.table.Table`). It starts the program when it
first has to decide, tells it only what its player may see (every message is built from
the view's observation and the public event log of the view's *shadow* state, whose
hidden cards are not the true ones, and is checked against the observation before it is
sent), and sends the events incrementally. When the program crashes, does not answer in
time, answers something that is not an action, or an illegal action, a fallback bot
(``heuristic``) decides instead, and the event is logged and kept in
:attr:`ExternalBot.incidents`.

The bot side, for bots written in Python, is :func:`serve` (with :class:`BotHand`, what
the bot knows of the hand)::

    from quintet.botproto import serve
    serve(lambda hand, request: request["legal"][0], name="first legal")
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import random
import signal as signals
import subprocess
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from typing import IO, Any, Final

from quintet.actions import (
    Action,
    action_from_json,
    action_str,
    action_to_json,
    is_play,
    parse_action,
)
from quintet.bots.base import Bot, BotView
from quintet.cards import CardMask, card_str, mask_cards
from quintet.errors import InvalidActionError, InvalidOptionError

JSON = dict[str, Any]

PROTOCOL: Final = "quintet-bot"
VERSION: Final = 1
#: Prefix of a bot level naming an external command: ``cmd:node examples/quintet-bot.js``.
PREFIX: Final = "cmd:"
#: Seconds a bot has per decision when the view's budget sets none.
DEFAULT_TIMEOUT: Final = 5.0
#: Seconds a bot has to answer ``hello``.
STARTUP_TIMEOUT: Final = 10.0
#: Seconds allowed on top of ``time_ms`` for the pipes and the process's scheduling.
MARGIN: Final = 0.5
#: Seconds a bot has to exit after ``quit`` before it is killed.
GRACE: Final = 1.0
#: Longest line read from a bot, in bytes.
MAX_LINE: Final = 1 << 20

log = logging.getLogger(__name__)


def is_external(level: str) -> bool:
    """Return whether a bot level names an external command (``cmd:...``)."""
    return level.strip().startswith(PREFIX)


def command_of(level: str) -> str:
    """Return the command of a ``cmd:`` level (everything after the prefix).

    Raises:
        InvalidOptionError: the level names no command.
    """
    command = level.strip()[len(PREFIX) :].strip()
    if not command:
        raise InvalidOptionError("a cmd: bot needs a command, e.g. 'cmd:node examples/bot.js'")
    return command


def encode(message: JSON) -> bytes:
    """Return a message as one protocol line (compact JSON, UTF-8, newline-terminated)."""
    return (json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


# --------------------------------------------------------------------------- messages
#
# Every message is a function of what the bot's player may see: its observation (hands
# it may see, public history) and the public events of a state consistent with it.


def cards_json(mask: CardMask) -> list[str]:
    """Return the codes of a set of cards, in card order: ``["2S", "AS", "JK"]``."""
    return [card_str(c) for c in mask_cards(mask)]


def _played_by(history: Iterable[tuple[int, Action]], seats: int) -> list[CardMask]:
    played = [0] * seats
    for seat, a in history:
        if is_play(a):
            played[seat] |= 1 << a
    return played


def visible_mask(obs: Any) -> CardMask:
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


def _check_visible(messages: Sequence[JSON], obs: Any) -> None:
    """Raise RuntimeError if a message holds a card the player may not see (a bug)."""
    allowed = {card_str(c) for c in mask_cards(visible_mask(obs))}
    for message in messages:
        for code in _cards_in(message):
            if code not in allowed:
                raise RuntimeError(f"refusing to send hidden card {code} to seat {obs.viewer}")


def _options(state: Any) -> JSON:
    rules = state.rules
    return {f.name: getattr(rules, f.name) for f in fields(rules) if f.name != "variant"}


def _controls(state: Any, viewer: int) -> list[int]:
    return [s for s in range(state.num_seats) if state.controller(s) == viewer]


def new_hand_message(state: Any, viewer: int) -> JSON:
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
    if state.game == "quinto":
        out["lone_seat"] = obs.lone_seat
        out["score"] = list(obs.start_score)
    else:
        out["quintus"] = snap.quintus if snap.quintus >= 0 else None
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


def hand_events(state: Any, viewer: int, known: Iterable[int] = ()) -> list[JSON]:
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
    quintus_known = getattr(replay, "quintus", 0) >= 0
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
            if not quintus_known and replay.quintus >= 0:
                quintus_known = True
                after.append(
                    {"type": "event", "event": "quintus", "seat": replay.quintus}
                    | {"contract": replay.contract}
                )
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


def end_hand_message(state: Any) -> JSON:
    """Return the ``end_hand`` message of a finished hand (all public by then)."""
    out: JSON = {"type": "end_hand"}
    if state.game == "quinto":
        hp = state.hand_points()
        out["scores"] = [hp[s & 1] for s in range(4)]
        out["hand_points"] = list(hp)
        out["score"] = list(state.score)
        out["game_winner"] = state.game_winner
    else:
        out["scores"] = list(state.scores())
        out["points"] = list(state.points())
        out["void"] = state.void
        out["made"] = state.made()
    return out


# --------------------------------------------------------------------------- processes


class _Failure(Exception):
    """Why a bot could not decide: ``kind`` names the incident; ``drop`` ends the process."""

    def __init__(self, kind: str, detail: str, drop: bool = False) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.drop = drop


class _Gone(Exception):
    """The bot is no longer asked (it quit, or was given up): the fallback decides."""


def _read_lines(stream: IO[bytes], lines: queue.Queue[str | None]) -> None:
    try:
        while raw := stream.readline(MAX_LINE):
            if not raw.endswith(b"\n") and len(raw) >= MAX_LINE:
                while (rest := stream.readline(MAX_LINE)) and not rest.endswith(b"\n"):
                    pass
                lines.put("\0line too long")
                continue
            lines.put(raw.decode("utf-8", "replace").strip())
    except (OSError, ValueError):
        pass
    finally:
        lines.put(None)
        with contextlib.suppress(OSError):
            stream.close()


def _read_errors(stream: IO[bytes], tail: deque[str], label: str) -> None:
    try:
        while raw := stream.readline(MAX_LINE):
            text = raw.decode("utf-8", "replace").rstrip()
            tail.append(text)
            log.debug("%s: stderr: %s", label, text)
    except (OSError, ValueError):
        pass
    finally:
        with contextlib.suppress(OSError):
            stream.close()


def _write_lines(stream: IO[bytes], outbox: queue.Queue[bytes | None]) -> None:
    try:
        while (item := outbox.get()) is not None:
            stream.write(item)
            stream.flush()
    except (OSError, ValueError):
        pass
    finally:
        with contextlib.suppress(OSError, ValueError):
            stream.close()


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signals.SIGKILL)  # the shell and what it started
        except (AttributeError, OSError):
            with contextlib.suppress(OSError):
                proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(GRACE)


def _stop(proc: subprocess.Popen[bytes], outbox: queue.Queue[bytes | None], grace: float) -> None:
    """Ask a bot to quit (``quit``, then end of input), wait ``grace`` seconds, then kill."""
    if proc.poll() is None and grace > 0:
        outbox.put(encode({"type": "quit"}))
        outbox.put(None)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(grace)
    outbox.put(None)
    _kill(proc)


class _Process:
    """A running bot: its pipes read and written by threads, so every wait has a timeout."""

    def __init__(
        self,
        command: str | Sequence[str],
        cwd: str | None,
        env: dict[str, str] | None,
        label: str,
    ) -> None:
        argv = ["/bin/sh", "-c", command] if isinstance(command, str) else list(command)
        self.label = label
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.errors: deque[str] = deque(maxlen=20)
        self._outbox: queue.Queue[bytes | None] = queue.Queue()
        for target, args in (
            (_read_lines, (self.proc.stdout, self.lines)),
            (_read_errors, (self.proc.stderr, self.errors, label)),
            (_write_lines, (self.proc.stdin, self._outbox)),
        ):
            threading.Thread(target=target, args=args, daemon=True, name=label).start()
        # Stops the process when this object goes away, at the latest at exit.
        self._finalizer = weakref.finalize(self, _stop, self.proc, self._outbox, GRACE)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def why_dead(self) -> str:
        """Describe how the process ended (waiting a little for its status)."""
        try:
            code = self.proc.wait(0.5)
        except subprocess.TimeoutExpired:
            what = "closed its output"
        else:
            what = f"killed by signal {-code}" if code < 0 else f"exited with status {code}"
        time.sleep(0.01)  # let the stderr reader catch the last lines
        tail = [t for t in self.errors if t.strip()][-3:]
        return what + (": " + " | ".join(tail) if tail else "")

    def send(self, message: JSON) -> None:
        if not self.alive():
            raise _Failure("crash", self.why_dead(), drop=True)
        self._outbox.put(encode(message))

    def receive(self, deadline: float, what: str) -> Any:
        """Return the next message (parsed), skipping ``log`` messages.

        Raises:
            _Failure: timeout, crash or a line that is not JSON.
        """
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise _Failure("timeout", f"no answer to {what} in time", drop=True) from None
            if line is None:
                self.lines.put(None)
                raise _Failure("crash", self.why_dead(), drop=True)
            if not line:
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                raise _Failure("garbage", f"not a JSON line: {line[:200]!r}") from None
            if isinstance(obj, dict) and obj.get("type") == "log":
                log.info("%s: %s", self.label, str(obj.get("message", ""))[:1000])
                continue
            return obj

    def drain(self) -> None:
        """Drop lines the bot wrote without being asked (logging them)."""
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self.lines.put(None)
                return
            with contextlib.suppress(ValueError):
                obj = json.loads(line)
                if isinstance(obj, dict) and obj.get("type") == "log":
                    log.info("%s: %s", self.label, str(obj.get("message", ""))[:1000])
                    continue
            if line:
                log.warning("%s: ignored a line nobody asked for: %r", self.label, line[:200])

    def close(self, grace: float = GRACE) -> None:
        """Stop the process: ``quit``, end of input, ``grace`` seconds, then kill."""
        if self._finalizer.detach() is not None:
            _stop(self.proc, self._outbox, grace)


def _handshake(proc: _Process, timeout: float) -> JSON:
    """Send ``hello`` and return the bot's ``ready``.

    Raises:
        _Failure: (``start``) no ``ready`` in time, a crash, or another protocol.
    """
    try:
        proc.send({"type": "hello", "protocol": PROTOCOL, "version": VERSION})
        ready = proc.receive(time.monotonic() + timeout, "hello")
    except _Failure as f:
        raise _Failure("start", f"{f.kind}: {f.detail}", drop=True) from None
    if not isinstance(ready, dict) or ready.get("type") != "ready":
        raise _Failure("start", f"answered hello with {json.dumps(ready)[:200]}", drop=True)
    protocol, version = ready.get("protocol", PROTOCOL), ready.get("version", VERSION)
    if protocol != PROTOCOL or version != VERSION:
        raise _Failure(
            "start",
            f"speaks {protocol} version {version}, not {PROTOCOL} version {VERSION}",
            drop=True,
        )
    return ready


def probe(
    command: str | Sequence[str], timeout: float = STARTUP_TIMEOUT, cwd: str | None = None
) -> str:
    """Start a bot, check it answers ``hello``, stop it; return the name it gives.

    Raises:
        InvalidOptionError: the command does not start or does not speak the protocol.
    """
    try:
        proc = _Process(command, cwd, None, f"bot {command!r}")
    except OSError as e:
        raise InvalidOptionError(f"bot command {command!r} does not start: {e}") from None
    try:
        ready = _handshake(proc, timeout)
    except _Failure as f:
        raise InvalidOptionError(f"bot command {command!r} does not start: {f.detail}") from None
    finally:
        proc.close()
    return str(ready.get("name", ""))


# --------------------------------------------------------------------------- the bot


@dataclass(frozen=True)
class Incident:
    """A decision the external bot did not make: ``kind`` says why, ``fallback`` what the
    fallback bot chose instead (an action's text form; None for no signal).

    Kinds: ``start`` (no ``ready``), ``crash`` (the process ended), ``timeout`` (no
    answer in time: the process is stopped), ``garbage`` (not an action), ``illegal``
    (an action not legal now), ``quit`` (the bot quit) and ``gave_up`` (it failed to
    start too often: the fallback decides for it for the rest of the hand).
    """

    kind: str
    seat: int
    request: str
    detail: str
    fallback: str | None
    bot: str

    def to_json(self) -> JSON:
        """Return the incident as JSON."""
        return {
            "kind": self.kind,
            "seat": self.seat,
            "request": self.request,
            "detail": self.detail,
            "fallback": self.fallback,
            "bot": self.bot,
        }


@dataclass
class _Session:
    """One player's process and what it has been told about the hand."""

    viewer: int
    process: _Process | None = None
    name: str = ""
    signals: bool = True
    hand: tuple[Any, ...] | None = None  # identity of the hand in play
    known: frozenset[int] = frozenset()  # seats whose hands it knows from the start
    dealt: dict[int, CardMask] = field(default_factory=dict)  # those hands as dealt
    told: bool = False  # whether the process has had new_hand for this hand
    history: tuple[tuple[int, Action], ...] = ()  # the history it was told
    sent: int = 0  # event messages of the hand sent
    starts: int = 0  # processes started during this hand
    gone: str | None = None  # why it is no longer asked


def _identity(obs: Any) -> tuple[Any, ...]:
    return (obs.game, obs.variant, obs.viewer, obs.dealer, getattr(obs, "start_score", None))


def _dealt(obs: Any, seats: Iterable[int]) -> dict[int, CardMask]:
    played = _played_by(obs.history, len(obs.hands))
    return {s: (obs.hands[s] or 0) | played[s] for s in seats}


class ExternalBot:
    """A bot that is a program speaking the quintet bot protocol (``docs/bot-protocol.md``).

    ``command`` is a shell command (or an argument list run without a shell). One process
    is started per player the bot decides for (normally one: arena and table make a bot
    per seat), when it first has to decide; it is stopped by :meth:`close`, when the bot
    object goes away, or at exit. Each decision waits ``time_ms`` (the view's budget in
    seconds, else ``timeout``) plus :data:`MARGIN`; ``fallback`` (default ``heuristic``)
    decides whenever the program cannot, and each such event is logged (logger
    ``quintet.botproto``) and kept in :attr:`incidents`. A process that crashed or timed
    out is started again at the next decision, at most ``max_restarts`` times per hand.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        fallback: Bot | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        startup_timeout: float = STARTUP_TIMEOUT,
        max_restarts: int = 3,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        name: str | None = None,
    ) -> None:
        if fallback is None:
            from quintet.bots.heuristic import HeuristicBot

            fallback = HeuristicBot()
        self.command = command
        self.name = name or PREFIX + (command if isinstance(command, str) else " ".join(command))
        self.fallback = fallback
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.max_restarts = max_restarts
        self.cwd = cwd
        self.env = env
        #: Every decision the program did not make, in order.
        self.incidents: list[Incident] = []
        #: How many decisions the fallback made (incidents, and decisions after giving up).
        self.fallbacks = 0
        self._sessions: dict[int, _Session] = {}

    # ------------------------------------------------------------------ the Bot API

    def act(self, view: BotView) -> Action:
        """Return the program's action for ``view.seat`` (or the fallback's)."""
        action = self._ask(view, "decide")
        assert action is not None
        return action

    def signal(self, view: BotView) -> Action | None:
        """Return the program's out-of-turn signal, or None (or the fallback's choice)."""
        if not view.signals():
            return None
        return self._ask(view, "signal")

    def end_hand(self, state: Any) -> None:
        """Tell the program the hand is over: the events it has not seen, then ``end_hand``.

        ``state`` is the finished hand; only what each player may see of it is sent.
        Nothing is started for a player the bot was not asked to decide for.
        """
        for viewer, sess in self._sessions.items():
            proc = sess.process
            if proc is None or not proc.alive() or not sess.told or sess.gone:
                continue
            shadow = state.resample_from_infostate(viewer, random.Random(0))
            obs = shadow.observation(viewer)
            if not self._same_hand(sess, obs):
                continue
            events = hand_events(shadow, viewer, sess.known)[sess.sent :]
            end = end_hand_message(shadow)
            try:
                _check_visible([*events, end], obs)
                for message in [*events, end]:
                    proc.send(message)
            except _Failure as f:
                log.info("%s: could not send the end of the hand: %s", self.name, f.detail)
            sess.sent += len(events)
            sess.history = obs.history

    def close(self) -> None:
        """Stop every process of this bot (``quit``, then a kill after a grace period)."""
        for sess in self._sessions.values():
            if sess.process is not None:
                sess.process.close()
                sess.process = None

    def __enter__(self) -> ExternalBot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ internals

    def _ask(self, view: BotView, kind: str) -> Action | None:
        viewer = view.obs.viewer
        sess = self._sessions.get(viewer)
        if sess is None:
            sess = self._sessions[viewer] = _Session(viewer)
        try:
            self._sync(sess, view, kind)
            if kind == "signal" and not sess.signals:
                return None
            proc = sess.process
            assert proc is not None
            seconds = view.budget.seconds or self.timeout
            time_ms = max(1, round(seconds * 1000))
            request = request_message(view, kind, time_ms)
            _check_visible([request], view.obs)
            proc.drain()
            proc.send(request)
            answer = proc.receive(time.monotonic() + seconds + MARGIN, self._request(kind))
            return self._read_action(answer, view, kind)
        except _Gone:
            return self._fallback(view, kind)
        except _Failure as f:
            if f.drop and sess.process is not None:
                sess.process.close(GRACE if f.kind == "quit" else 0.0)
                sess.process, sess.told = None, False
            if f.kind == "quit":
                sess.gone = "the bot quit"
            choice = self._fallback(view, kind)
            self._report(f.kind, view, kind, f.detail, choice)
            return choice

    @staticmethod
    def _request(kind: str) -> str:
        return "decide" if kind == "decide" else "signal?"

    def _fallback(self, view: BotView, kind: str) -> Action | None:
        self.fallbacks += 1
        return self.fallback.act(view) if kind == "decide" else self.fallback.signal(view)

    def _report(
        self, what: str, view: BotView, kind: str, detail: str, choice: Action | None
    ) -> None:
        text = None if choice is None else action_str(choice)
        incident = Incident(what, view.seat, self._request(kind), detail, text, self.name)
        self.incidents.append(incident)
        log.warning(
            "external bot %s, seat %d, %s: %s (%s); the fallback %s chose %s",
            self.name,
            view.seat,
            incident.request,
            what,
            detail,
            self.fallback.name,
            text or "no signal",
        )

    def _same_hand(self, sess: _Session, obs: Any) -> bool:
        if sess.hand != _identity(obs) or obs.history[: len(sess.history)] != sess.history:
            return False
        return _dealt(obs, sess.known) == sess.dealt

    def _sync(self, sess: _Session, view: BotView, kind: str) -> None:
        """Start the process if needed and tell it what happened since it was last told.

        Raises:
            _Gone: the bot is no longer asked.
            _Failure: the process does not start or died.
        """
        obs = view.obs
        if not self._same_hand(sess, obs):
            sess.hand, sess.history, sess.told, sess.starts = _identity(obs), (), False, 0
            sess.known = frozenset(s for s, h in enumerate(obs.hands) if h is not None)
            sess.dealt = _dealt(obs, sess.known)
            if sess.gone != "the bot quit":
                sess.gone = None
        if sess.gone:
            raise _Gone(sess.gone)
        proc = sess.process
        if proc is not None and not proc.alive():
            # It died between two decisions: say so, and start it again below.
            detail = proc.why_dead() + " (between decisions; started again)"
            self._report("crash", view, kind, detail, None)
            proc.close(0.0)
            proc = sess.process = None
            sess.told = False
        if proc is None:
            if sess.starts > self.max_restarts:
                sess.gone = f"gave up after {sess.starts} starts in this hand"
                raise _Failure("gave_up", sess.gone)
            sess.starts += 1
            label = f"bot {self.name} (player {sess.viewer})"
            try:
                proc = _Process(self.command, self.cwd, self.env, label)
            except OSError as e:
                raise _Failure("start", f"cannot run the command: {e}") from None
            sess.process = proc
            ready = _handshake(proc, self.startup_timeout)
            sess.name = str(ready.get("name", ""))
            sess.signals = ready.get("signals", True) is not False
            sess.told = False
        if not sess.told:
            state = view.state()
            start = new_hand_message(state, sess.viewer)
            known = frozenset(s for s, h in enumerate(start["hands"]) if h is not None)
            events = hand_events(state, sess.viewer, known)
            _check_visible([start, *events], obs)
            proc.send(start)
            for message in events:
                proc.send(message)
            sess.told, sess.history, sess.sent = True, obs.history, len(events)
            sess.known, sess.dealt = known, _dealt(obs, known)
        elif obs.history != sess.history:
            events = hand_events(view.state(), sess.viewer, sess.known)[sess.sent :]
            _check_visible(events, obs)
            for message in events:
                proc.send(message)
            sess.sent += len(events)
            sess.history = obs.history

    def _read_action(self, answer: Any, view: BotView, kind: str) -> Action | None:
        """Return the action an answer names.

        Raises:
            _Failure: garbage, an illegal action, or ``quit``.
        """
        legal = view.legal if kind == "decide" else view.signals()
        kinds = ("pass", "none", "no_signal")
        if kind == "signal" and (
            answer is None
            or (isinstance(answer, dict) and answer.get("type") in kinds)
            or (isinstance(answer, dict) and "action" in answer and answer["action"] is None)
        ):
            return None
        if not isinstance(answer, dict):
            raise _Failure("garbage", f"not an object: {json.dumps(answer)[:200]}")
        what = answer.get("type")
        if what == "quit":
            raise _Failure("quit", "the bot quit", drop=True)
        if what == "pass" and kind == "decide":
            answer = {"type": "action", "action": "pass"}
        elif what != "action":
            raise _Failure("garbage", f"expected an action, got {json.dumps(answer)[:200]}")
        raw = answer.get("action")
        try:
            if isinstance(raw, str):
                action = parse_action(raw)
            elif isinstance(raw, dict):
                seat = raw.get("seat", view.seat)
                if seat != view.seat:
                    raise _Failure("illegal", f"an action for seat {seat}, not {view.seat}")
                _, action = action_from_json({**raw, "seat": seat}, len(view.obs.hands))
            else:
                raise _Failure("garbage", f"no action in {json.dumps(answer)[:200]}")
        except InvalidActionError as e:
            raise _Failure("garbage", str(e)) from None
        if action not in legal:
            options = " ".join(action_str(a) for a in legal)
            raise _Failure("illegal", f"{action_str(action)} is not legal now (legal: {options})")
        return action


def finish_hand(bots: Sequence[Any], state: Any, close: bool = True) -> list[Incident]:
    """Tell the external bots among ``bots`` how the hand ended; stop them if ``close``.

    Returns their incidents. Other bots are left alone, so a table can call this after
    every hand whatever sits at it.
    """
    out: list[Incident] = []
    seen: set[int] = set()
    for bot in bots:
        if not isinstance(bot, ExternalBot) or id(bot) in seen:
            continue
        seen.add(id(bot))
        if state is not None and state.is_terminal():
            bot.end_hand(state)
        if close:
            bot.close()
        out += bot.incidents
    return out


def close_bots(bots: Iterable[Any]) -> None:
    """Stop the processes of the external bots among ``bots``."""
    for bot in bots:
        if isinstance(bot, ExternalBot):
            bot.close()


# --------------------------------------------------------------------------- bot side


class BotHand:
    """What a bot knows of the hand in play, kept from the manager's messages (bot side).

    ``hands[s]`` is seat ``s``'s current hand (card codes) if the bot may see it, else
    None; ``actions`` every action so far as ``(seat, text)``; ``events`` every event
    message; ``start`` the ``new_hand`` message and ``end`` the ``end_hand`` one.
    """

    def __init__(self, start: JSON) -> None:
        self.start = start
        self.game: str = start["game"]
        self.variant: str = start["variant"]
        self.options: JSON = dict(start.get("options", {}))
        self.seat: int = start["seat"]
        self.controls: list[int] = list(start.get("controls", [self.seat]))
        self.dealer: int = start["dealer"]
        self.hands: list[list[str] | None] = [
            None if h is None else list(h) for h in start["hands"]
        ]
        self.actions: list[tuple[int, str]] = []
        self.events: list[JSON] = []
        self.end: JSON | None = None

    def apply(self, event: JSON) -> None:
        """Update the hand with an ``event`` message."""
        self.events.append(event)
        kind = event.get("event")
        if kind == "action":
            seat, text = event["seat"], event["text"]
            self.actions.append((seat, text))
            hand = self.hands[seat]
            if event["action"].get("type") == "play" and hand is not None and text in hand:
                hand.remove(text)
        elif kind == "reveal":
            self.hands[event["seat"]] = list(event["cards"])


#: A bot-side decision: (the hand, the request) -> an action's text (or record object);
#: for ``signal?`` None gives no signal.
Chooser = Callable[[BotHand | None, JSON], str | JSON | None]


def serve(
    decide: Chooser,
    signal: Chooser | None = None,
    *,
    name: str = "python bot",
    infile: IO[str] | None = None,
    outfile: IO[str] | None = None,
) -> None:
    """Run a bot on standard input and output until ``quit`` or end of input (bot side).

    ``decide(hand, request)`` answers every ``decide`` with one of ``request["legal"]``;
    ``signal(hand, request)`` answers ``signal?`` (None: no signal). Without ``signal``
    the bot says in ``ready`` that it never signals, and is not asked.
    """
    inp = infile or sys.stdin
    out = outfile or sys.stdout

    def send(message: JSON) -> None:
        out.write(json.dumps(message, separators=(",", ":")) + "\n")
        out.flush()

    hand: BotHand | None = None
    for line in inp:
        if not line.strip():
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            ready: JSON = {"type": "ready", "name": name, "protocol": PROTOCOL}
            ready["version"] = VERSION
            if signal is None:
                ready["signals"] = False
            send(ready)
        elif kind == "new_hand":
            hand = BotHand(msg)
        elif kind == "event" and hand is not None:
            hand.apply(msg)
        elif kind == "end_hand" and hand is not None:
            hand.end = msg
        elif kind == "decide":
            send({"type": "action", "action": decide(hand, msg)})
        elif kind == "signal?":
            choice = signal(hand, msg) if signal is not None else None
            send({"type": "pass"} if choice is None else {"type": "action", "action": choice})
        elif kind == "quit":
            return


__all__ = [
    "DEFAULT_TIMEOUT",
    "PREFIX",
    "PROTOCOL",
    "VERSION",
    "BotHand",
    "ExternalBot",
    "Incident",
    "cards_json",
    "close_bots",
    "command_of",
    "end_hand_message",
    "finish_hand",
    "hand_events",
    "is_external",
    "new_hand_message",
    "probe",
    "request_message",
    "serve",
    "visible_mask",
]
