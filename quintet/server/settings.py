"""What a server is run with: the operator's settings (``quintet serve`` options).

Everything that bounds what a client can make the server do is here, set by the
operator and never by a request: which bot levels exist and their budgets, the hard
time limit of a search, how many tables a client may create, message rates, how long an
abandoned table is kept open. docs/server.md ("Security") describes each.

A bot's budget is CPU seconds of the thread that decides (``bot_seconds``,
``hint_seconds``: :class:`quintet.bots.Budget`), so that bots play as well on a busy
server as on an idle one; the search limit is wall time, the safety net that kills a
worker whatever it does. On a loaded machine a CPU second can take several seconds of
wall time (a 1 s budget once bought 0.22 s of CPU a wall second), so the limit must be
at least :data:`LIMIT_PER_BUDGET` times the largest budget of the base search levels.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields

from quintet.errors import InvalidOptionError

#: The bot levels every server offers; their budgets come from :class:`Settings`.
BASE_LEVELS = ("random", "heuristic", "pimc", "ismcts")
#: Levels whose decisions are searches, run in the worker processes.
SEARCH_LEVELS = ("pimc", "ismcts")
#: The search limit (wall seconds) is at least this many times the CPU budgets.
LIMIT_PER_BUDGET = 5.0

_LEVEL_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")


def _default_workers() -> int:
    # One core is left to the event loop (and the database).
    return max(1, (os.cpu_count() or 2) - 1)


@dataclass
class Settings:
    """What a server is run with (``quintet serve`` options); see docs/server.md."""

    db_url: str = ""
    bot_delay: float = 0.8
    hint_level: str = "pimc"  # the level whose suggestion a hint is
    hint_seconds: float | None = None  # the hint's CPU budget (pimc, ismcts); None: bot_seconds
    allow_seed: bool = False
    echo: bool = False
    # Websocket connections.
    rate: float = 50.0  # messages per second per connection (sustained)
    burst: float = 200.0  # messages a connection may send at once
    outbox_limit: int = 2000  # queued messages before a connection is dropped as too slow
    outbox_bytes: int = 4 << 20  # queued bytes before a connection is dropped as too slow
    max_connections: int = 50  # websockets open at once from one client address
    max_spectators: int = 200  # spectators of one table
    # Bots: named levels only; the operator sets their budgets.
    bot_seconds: float = 1.0  # the search levels' budget per decision, in CPU seconds
    # Hard limit of one search in wall seconds (its worker is killed after it): a safety
    # net at least LIMIT_PER_BUDGET times the CPU budgets.
    search_limit: float = 10.0
    search_workers: int = field(default_factory=_default_workers)
    levels: dict[str, str] = field(default_factory=dict)  # extra levels: name -> spec
    bot_commands: tuple[str, ...] = ()  # external bot programs (levels cmd:COMMAND)
    analysis_limit: float = 900.0  # hard limit of one game's analysis
    # The analysis's node limit per position: a position needing more (early in a hand,
    # about 3 CPU seconds) is left unsolved, so a game's analysis fits its hard limit.
    analysis_nodes: int = 20_000_000
    analysis_queue: int = 20  # analyses waiting at most (then 503)
    # HTTP.
    allow_origins: tuple[str, ...] = ()  # other origins allowed to post and to open /ws
    create_rate: float = 10.0  # tables a client may create per minute (sustained)
    create_burst: float = 5.0  # tables a client may create at once
    max_tables: int = 5000  # tables in play at once on this server
    max_tables_per_client: int = 20  # tables in play one client (address or person) created
    max_body: int = 16384  # bytes of an HTTP request body
    lobby_limit: int = 50  # tables per lobby page (a client may ask for fewer)
    #: The largest value of each numeric rules option a table may have: a match must end.
    option_limits: dict[str, int] = field(
        default_factory=lambda: {
            "target": 5000,
            "rubber_bonus": 5000,
            "dummy_handicap": 5000,
            "hands": 100,
        }
    )
    analyses_per_client: int = 2  # analyses one client may have waiting or running
    # Tables nobody plays: no person connected and no action for this long.
    abandon_after: float = 24 * 3600.0
    sweep_every: float = 60.0
    # A table in play with no person connected leaves the lobby after this long (it stays
    # open to its links until abandon_after closes it).
    lobby_idle_after: float = 15 * 60.0
    # The table chat: characters a line, lines a second per connection (sustained and at
    # once), lines kept per table (then the chat is full), lines sent to a newcomer.
    chat_length: int = 300
    chat_rate: float = 0.5
    chat_burst: float = 5.0
    chat_max: int = 2000
    chat_history: int = 200
    # The turn clock a table may choose at create (seconds a person has for a decision).
    turn_seconds_min: int = 10
    turn_seconds_max: int = 600
    # Take-backs and claims: requests a seat may make per hand, how long the others have
    # to answer (then it is refused), and the claim check's node limit (in a worker).
    takebacks_per_hand: int = 3
    claims_per_hand: int = 3
    question_seconds: float = 60.0
    claim_nodes: int = 300_000
    # A rematch or series: the results of the earlier games a table keeps.
    series_keep: int = 20
    # Score pads (docs/pad.md, "The web pad"): the largest stored document (characters
    # of its JSON), entries a pad holds, pads one person owns, changes a second per
    # person and per address (sustained and at once), pads one address may create a
    # minute (and at once), and how often the page asks whether a pad changed.
    pad_max_chars: int = 200_000
    pad_max_entries: int = 2000
    pads_per_person: int = 200
    pad_rate: float = 5.0
    pad_burst: float = 100.0
    pad_create_rate: float = 10.0
    pad_create_burst: float = 5.0
    pad_poll_seconds: float = 3.0
    # Accounts (docs/server.md, "Accounts"): a session lasts session_days from log-in and
    # ends after session_idle_days unused; a name or an address gets login_failures wrong
    # passwords per login_window seconds (then 429 until the window passes); passwords
    # are password_min to password_max characters; sign-ups per address per hour.
    accounts: bool = True
    session_days: float = 30.0
    session_idle_days: float = 7.0
    login_failures: int = 5
    login_window: float = 300.0
    password_min: int = 8
    password_max: int = 200
    signups_per_hour: float = 10.0
    # A resolved session is trusted from memory this long (a log-out or password change
    # here drops it at once; a `quintet admin` change in another process takes this
    # long); the newest sessions an account keeps (older ones end at log-in); argon2id's
    # parameters (RFC 9106's second recommendation; a stored hash made with others is
    # redone at the next log-in) and how many hashes run at once (each holds its memory).
    session_cache_seconds: float = 30.0
    sessions_per_account: int = 20
    password_time_cost: int = 3
    password_memory_kib: int = 65536
    password_parallelism: int = 4
    password_hashes_at_once: int = 2
    # Friends: friendships (asked or made) an account may have; friend invites a minute.
    max_friends: int = 200
    friend_invite_rate: float = 10.0
    # Invitations to a seat one account may have waiting, how long one lasts (seconds),
    # and how often the lobby asks for friends and invitations (seconds).
    friend_invites_max: int = 20
    friend_invite_seconds: float = 600.0
    friends_poll_seconds: float = 5.0
    # Ratings: whether tables may be rated; games shown on a leaderboard page at most.
    rated_tables: bool = True
    leaderboard_limit: int = 100
    # History: games on a page of a player's history at most; tables finished before
    # results were kept whose results one profile request fills in at most.
    history_limit: int = 50
    results_fill: int = 100
    # Several server processes (docs/server.md, "Deployment"): Redis (None: one process),
    # its keys' prefix, a table's lease and how often its owner renews it, how often each
    # process looks for unfinished tables nobody owns (see quintet/server/cluster.py).
    redis_url: str | None = None
    redis_prefix: str = "quintet"
    lease_seconds: float = 3.0
    renew_seconds: float = 1.0
    takeover_seconds: float = 1.0

    def offered_levels(self) -> dict[str, str]:
        """Return every bot level this server offers: its name -> the bot it makes."""
        secs = f"{self.bot_seconds:g}"
        out = {
            "random": "random",
            "heuristic": "heuristic",
            "pimc": f"pimc:seconds={secs}",
            "ismcts": f"ismcts:seconds={secs}",
        }
        out.update(self.levels)
        for command in self.bot_commands:
            out[f"cmd:{command}"] = f"cmd:{command}"
        return out

    def hint_budget(self) -> float:
        """Return the CPU seconds a hint of a base search level thinks."""
        return self.bot_seconds if self.hint_seconds is None else self.hint_seconds

    def hint_spec(self) -> str:
        """Return the bot a hint asks: the hint level's, with the hint budget.

        The base search levels (``pimc``, ``ismcts``) think :meth:`hint_budget` CPU
        seconds; any other level (one of the operator's ``levels`` too) is its own spec.
        """
        level = self.hint_level
        if level in SEARCH_LEVELS and level not in self.levels:
            return f"{level}:seconds={self.hint_budget():g}"
        return self.offered_levels()[level]

    def check(self) -> None:
        """Check the settings (levels name real bots, limits are positive).

        Raises:
            InvalidOptionError: naming the setting that is wrong.
        """
        from quintet.bots import allow_commands, make_bot

        allow_commands(*self.bot_commands)
        for name, spec in self.levels.items():
            if not _LEVEL_NAME.fullmatch(name):
                raise InvalidOptionError(
                    f"bot level name {name!r}: lower-case letters, digits, - and _ (up to 32)"
                )
            make_bot(spec)  # raises InvalidOptionError naming the parameter
        for name in (
            "bot_seconds",
            "search_limit",
            "analysis_limit",
            "create_rate",
            "chat_length",
            "chat_rate",
            "chat_burst",
            "question_seconds",
            "claim_nodes",
            "turn_seconds_min",
            "pad_max_chars",
            "pad_max_entries",
            "pads_per_person",
            "pad_rate",
            "pad_burst",
            "pad_create_rate",
            "pad_create_burst",
            "pad_poll_seconds",
            "session_days",
            "session_idle_days",
            "login_failures",
            "login_window",
            "password_min",
            "signups_per_hour",
            "session_cache_seconds",
            "sessions_per_account",
            "password_time_cost",
            "password_parallelism",
            "password_hashes_at_once",
            "max_friends",
            "friend_invite_rate",
            "friend_invites_max",
            "friend_invite_seconds",
            "friends_poll_seconds",
            "leaderboard_limit",
            "history_limit",
            "results_fill",
        ):
            if not getattr(self, name) > 0:
                raise InvalidOptionError(f"{name} must be positive")
        if self.password_max < self.password_min:
            raise InvalidOptionError("password_max must be at least password_min")
        if self.password_memory_kib < 8 * self.password_parallelism:
            raise InvalidOptionError(
                "password_memory_kib must be at least 8 times password_parallelism (argon2)"
            )
        if not self.hint_budget() > 0:
            raise InvalidOptionError("hint_seconds must be positive")
        budget = max(self.bot_seconds, self.hint_budget())
        if self.search_limit < LIMIT_PER_BUDGET * budget:
            raise InvalidOptionError(
                f"search_limit ({self.search_limit:g} wall seconds) must be at least "
                f"{LIMIT_PER_BUDGET:g} times the bots' budget ({budget:g} CPU seconds): "
                "under load a CPU second takes several seconds of wall time"
            )
        if self.turn_seconds_max < self.turn_seconds_min:
            raise InvalidOptionError("turn_seconds_max must be at least turn_seconds_min")
        if self.search_workers < 1:
            raise InvalidOptionError("search_workers must be at least 1")
        if self.hint_level not in self.offered_levels():
            raise InvalidOptionError(f"hint level {self.hint_level!r} is not an offered level")
        if self.redis_url is not None:
            from quintet.server.cluster import check_settings

            check_settings(self)


def apply_settings(settings: Settings, items: tuple[str, ...]) -> None:
    """Set ``NAME=VALUE`` items (``quintet serve --set``) on ``settings``, each read as
    its field's type (int, float, bool, text).

    Raises:
        InvalidOptionError: an unknown name, a field that is not a number, flag or text,
            or a value that is not of the field's type.
    """
    kinds = {f.name: f.type for f in fields(settings)}
    for item in items:
        name, sep, raw = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name:
            raise InvalidOptionError(f"--set {item!r}: give NAME=VALUE")
        kind = kinds.get(name)
        if kind is None:
            raise InvalidOptionError(f"--set {item!r}: no setting {name!r}")
        kind = str(kind)
        if kind not in ("bool", "int", "float", "str"):
            raise InvalidOptionError(f"--set {item!r}: {name} is set by its own option")
        value: object
        try:
            if kind == "bool":
                if raw.lower() not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError(raw)
                value = raw.lower() in ("true", "1", "yes")
            elif kind == "int":
                value = int(raw)
            elif kind == "float":
                value = float(raw)
            else:
                value = raw
        except ValueError:
            what = {"bool": "true or false", "int": "a whole number", "float": "a number"}[kind]
            raise InvalidOptionError(f"--set {item!r}: {name} takes {what}, not {raw!r}") from None
        setattr(settings, name, value)


def parse_level(text: str) -> tuple[str, str]:
    """Return ``(name, spec)`` from a ``--bot-level NAME=SPEC`` option.

    Raises:
        InvalidOptionError: not NAME=SPEC.
    """
    name, sep, spec = text.partition("=")
    if not sep or not name.strip() or not spec.strip():
        raise InvalidOptionError(f"--bot-level {text!r}: give NAME=SPEC (strong=pimc:samples=40)")
    return name.strip(), spec.strip()
