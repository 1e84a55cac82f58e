"""The table-manager side: :class:`ExternalBot`, a :class:`~quintet.bots.Bot` that is a
program speaking the protocol, with its fallback and its incidents."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from quintet.actions import Action, action_from_json, action_str, parse_action
from quintet.botproto.messages import (
    MessageState,
    _check_visible,
    _played_by,
    end_hand_message,
    hand_events,
    new_hand_message,
    request_message,
)
from quintet.botproto.process import _Failure, _Gone, _handshake, _Process
from quintet.botproto.protocol import (
    DEFAULT_TIMEOUT,
    GRACE,
    JSON,
    MARGIN,
    PREFIX,
    STARTUP_TIMEOUT,
    WALL_PER_CPU,
    log,
)
from quintet.bots.base import Bot, BotView
from quintet.cards import CardMask
from quintet.errors import InvalidActionError
from quintet.game import Observation


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


def _identity(obs: Observation) -> tuple[Any, ...]:
    return (obs.game, obs.variant, obs.viewer, obs.dealer, getattr(obs, "start_score", None))


def _dealt(obs: Observation, seats: Iterable[int]) -> dict[int, CardMask]:
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

    def end_hand(self, state: MessageState) -> None:
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
            # A budget is CPU seconds of the bot's processes, as for the project's bots;
            # wall time only bounds it from above. Without /proc: wall time, as before.
            cpu = proc.cpu_seconds() is not None
            wall = seconds * WALL_PER_CPU + MARGIN if cpu else seconds + MARGIN
            answer = proc.receive(
                time.monotonic() + wall,
                self._request(kind),
                cpu_limit=seconds + MARGIN if cpu else None,
            )
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

    def _same_hand(self, sess: _Session, obs: Observation) -> bool:
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


def finish_hand(
    bots: Sequence[Any], state: MessageState | None, close: bool = True
) -> list[Incident]:
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


__all__ = ["ExternalBot", "Incident", "close_bots", "finish_hand"]
