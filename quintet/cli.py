"""The ``quintet`` command."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import sys
from collections.abc import Iterator
from typing import Any

import click

from quintet.errors import RecordError
from quintet.games import GAMES, game_of
from quintet.record import Record, example_text, read_record, replay, score
from quintet.sheets import sheet

EXAMPLES = ("quinto-partnership", "quinto-dummy", "quintus-base", "quintus-bidding")

# What each extra of pyproject.toml installs that its commands import. The base install
# has only click and tqdm, so a command needing an extra checks these first and names the
# extra in one line, instead of failing with a traceback deep in an import.
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "solver": ("numpy",),  # numba too, but without it the kernels run as plain Python
    "play": ("textual", "numpy"),
    "serve": (
        "fastapi",
        "uvicorn",
        "sqlalchemy",
        "alembic",
        "platformdirs",
        "numpy",
        "segno",
    ),
    "plot": ("matplotlib",),
}


def need_extra(extra: str, what: str) -> None:
    """Stop with one line naming ``extra`` when a module it installs is missing."""
    if any(importlib.util.find_spec(m) is None for m in EXTRA_MODULES[extra]):
        raise click.ClickException(
            f"{what} needs the '{extra}' extra: pip install 'quintet-cards[{extra}]'"
        )


def _read(path: str) -> Record:
    """Read a record from a path or ``-`` (standard input)."""
    try:
        if path == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                text = f.read()
    except OSError as e:
        raise RecordError("unreadable", f"cannot read {path}: {e.strerror}") from None
    return read_record(text)


def _load(path: str | None, example: str | None) -> Record:
    if example:
        return read_record(example_text(example))
    if path is None:
        raise click.UsageError("give a record FILE (or - for standard input) or --example")
    return _read(path)


@click.group()
@click.version_option(package_name="quintet-cards")
def main() -> None:
    """Quinto and Quintus: rules engines, records and tools."""


@main.command("score")
@click.argument("file")
def score_cmd(file: str) -> None:
    """Replay and score a game record (FILE, or - for standard input).

    Prints one JSON object; exit status 0, or 2 with an error object when the
    record is unreadable, invalid or holds an illegal action.
    """
    try:
        out = score(_read(file))
    except RecordError as e:
        click.echo(json.dumps(e.to_json()))
        sys.exit(2)
    click.echo(json.dumps(out))


@main.command("sheet")
@click.argument("file", required=False)
@click.option("--example", type=click.Choice(EXAMPLES), help="Use a bundled example record.")
def sheet_cmd(file: str | None, example: str | None) -> None:
    """Print the score sheet of a record, as players keep it on paper."""
    try:
        match = replay(_load(file, example))
    except RecordError as e:
        raise click.ClickException(str(e)) from None
    click.echo(sheet(match))


@main.command("show")
@click.argument("file", required=False)
@click.option("--example", type=click.Choice(EXAMPLES), help="Use a bundled example record.")
@click.option("--hand", "hand", type=int, default=None, help="Hand index (default: the last).")
@click.option("--at", "at", type=int, default=None, help="Show before this action of the hand.")
@click.option("--seat", type=click.IntRange(0, 4), default=None, help="Only what SEAT may see.")
@click.option("--events", is_flag=True, help="List the hand's public events too.")
def show_cmd(
    file: str | None,
    example: str | None,
    hand: int | None,
    at: int | None,
    seat: int | None,
    events: bool,
) -> None:
    """Print the table at a point of a record (by default where it ends)."""
    try:
        record = _load(file, example)
        if not record.hands:
            raise click.ClickException("the record has no hands")
        h = len(record.hands) - 1 if hand is None else hand
        if not 0 <= h < len(record.hands):
            raise click.ClickException(
                f"hand {h} is not in the record (0..{len(record.hands) - 1})"
            )
        n = len(record.hands[h].actions)
        k = n if at is None else at
        if not 0 <= k <= n:
            raise click.ClickException(f"--at must be 0..{n} for hand {h}")
        match = replay(record, upto=(h, k))
    except RecordError as e:
        raise click.ClickException(str(e)) from None
    state = match.hands[h]
    if seat is not None and seat >= state.num_seats:
        raise click.BadParameter(
            f"{record.game} has seats 0..{state.num_seats - 1}", param_hint="--seat"
        )
    click.echo(state.render(viewer=seat))
    if events:
        for ev in state.events():
            if ev.kind != "action":
                click.echo(f"  {ev.text}")


# --------------------------------------------------------------------- solve, analyze


def _card_value_line(card: int, value: int, best: int) -> str:
    from quintet.cards import card_str

    mark = "  best" if value == best else ""
    return f"  {card_str(card):<3} {value:>6}{mark}"


@main.command("solve")
@click.argument("file")
@click.option("--hand", "hand", type=int, default=None, help="Hand index (default: the last).")
@click.option("--at", "at", type=int, default=None, help="Before this action of the hand.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def solve_cmd(file: str, hand: int | None, at: int | None, as_json: bool) -> None:
    """Print the double-dummy value of each legal card at a point of a record.

    Values are Quinto's points for the side to move minus the other side's from there
    to the end of the hand, or Quintus's points the quintus still takes.
    """
    need_extra("solver", "quintet solve")
    from quintet.analysis import AnalysisError, solve_state, state_at
    from quintet.cards import card_str

    try:
        state = state_at(_read(file), hand, at)
        values = solve_state(state)
    except (RecordError, AnalysisError) as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps({"values": {card_str(c): v for c, v in sorted(values.items())}}))
        return
    solver = game_of(state).solver_class
    click.echo(solver.caption(state))
    sign = solver.sign(state)
    best = sign * max(sign * v for v in values.values())
    for c in sorted(values, key=lambda c: (-sign * values[c], c)):
        click.echo(_card_value_line(c, values[c], best))


@main.command("warm-up")
def warm_up_cmd() -> None:
    """Compile the double-dummy solver now, so that the first solve starts at once.

    numba compiles the solver's kernels on their first use (tens of seconds) and caches
    them on disk (next to the kernels when writable, else its user cache directory;
    NUMBA_CACHE_DIR overrides). `make` runs this after installing; run it after
    installing with pip, or after changing the kernels. With a warm cache it only loads.
    """
    need_extra("solver", "quintet warm-up")
    from quintet.solver.warmup import warm_up

    click.echo("quintet: compiling the double-dummy solver (numba caches it on disk)...", nl=False)
    seconds = warm_up()
    click.echo(f" {seconds:.1f} s")


@main.command("analyze")
@click.argument("file")
@click.option(
    "--tricks",
    type=click.IntRange(1, 12),
    default=None,
    help="Solve only the plays of the last N tricks of each hand (default: every trick).",
)
@click.option(
    "--max-nodes",
    type=click.IntRange(0),
    default=None,
    help="Leave a position unsolved past this many nodes (default 100,000,000, about"
    " 10-20 CPU seconds; 0: no limit).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def analyze_cmd(file: str, tricks: int | None, max_nodes: int | None, as_json: bool) -> None:
    """Annotate every card play of the finished hands with its cost against the best.

    Every card of every hand is solved, each hand from its last card back; a position
    too big for the node limit is shown as not solved.
    """
    need_extra("solver", "quintet analyze")
    from quintet.analysis import DEFAULT_MAX_NODES, analyze_record, summary
    from quintet.cards import card_str

    try:
        record = _read(file)
        nodes = DEFAULT_MAX_NODES if max_nodes is None else max_nodes
        notes = analyze_record(record, tricks, nodes)
    except RecordError as e:
        raise click.ClickException(str(e)) from None
    per_seat = summary(notes, game_of(record).num_seats)
    if as_json:
        out = {"plays": [n.to_json() for n in notes], "seats": per_seat}
        click.echo(json.dumps(out))
        return
    current = -1
    for n in notes:
        if n.hand != current:
            current = n.hand
            click.echo(f"hand {n.hand}")
        if n.cost is None:
            why = "gave up at the node limit" if n.gave_up else "not solved"
            click.echo(f"  trick {n.trick:>2}  seat {n.seat}  {card_str(n.card):<3}  ({why})")
            continue
        flag = "" if n.cost == 0 else f"  costs {n.cost}"
        best = " ".join(card_str(c) for c in n.best_cards)
        click.echo(
            f"  trick {n.trick:>2}  seat {n.seat}  {card_str(n.card):<3}  value {n.value:>5}"
            f"  best {n.best:>5} ({best}){flag}"
        )
    click.echo("per seat: cards analysed, cards that cost points, total cost")
    for seat, row in enumerate(per_seat):
        click.echo(f"  seat {seat}: {row['analysed']:>3} {row['errors']:>3} {row['cost']:>6}")


# ----------------------------------------------------------------------------- arena


@main.command("arena")
@click.option("--game", type=click.Choice(list(GAMES)), default="quinto")
@click.option("--variant", default=None, help="partnership|dummy, base|bidding (default: first).")
@click.option("--bots", default="random,heuristic", show_default=True, help="Bots A,B[,C...].")
@click.option("--deals", type=click.IntRange(min=1), default=100, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Processes (all cores).")
@click.option("--budget", type=float, default=None, help="CPU seconds per bot decision.")
@click.option("--iterations", type=click.IntRange(min=1), default=None, help="Search budget.")
@click.option(
    "--rubbers",
    type=click.IntRange(min=0),
    default=None,
    help="Quinto duplicate rubbers (dummy: games) per pair; default deals // 8, 0 skips.",
)
@click.option("--out", "out", default=None, help="Write results and records as JSON.")
@click.option("--plot", "plot", default=None, help="Write a PNG of the running difference.")
@click.option("--option", "options", multiple=True, help="Rules option name=value.")
@click.option("--no-records", is_flag=True, help="Leave the hands' records out of --out.")
@click.option(
    "--backend",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="Run the deals in a local process pool, or on a Ray cluster (extra 'ray').",
)
@click.option("--address", default=None, help="Ray cluster address (default: a local Ray).")
@click.option(
    "--ladder",
    is_flag=True,
    help="Play every pair of --levels and fit one rating per level (Bradley–Terry, Elo scale).",
)
@click.option(
    "--levels",
    default=None,
    help="The ladder's levels a,b,c (default: every bot level); --deals is per pair.",
)
@click.option(
    "--merge",
    is_flag=True,
    help="Report the runs RUNS (--out files of other seeds) as one; --out writes it.",
)
@click.argument("runs", nargs=-1, type=click.Path(dir_okay=False))
def arena_cmd(
    game: str,
    variant: str | None,
    bots: str,
    deals: int,
    seed: int,
    jobs: int | None,
    budget: float | None,
    iterations: int | None,
    rubbers: int | None,
    out: str | None,
    plot: str | None,
    options: tuple[str, ...],
    no_records: bool,
    backend: str,
    address: str | None,
    ladder: bool,
    levels: str | None,
    merge: bool,
    runs: tuple[str, ...],
) -> None:
    """Play bots against each other over duplicate deals and report points per deal.

    Every deal is replayed with the bots' seats exchanged (Quintus: in the 6 ways of giving
    the quintus's seat and the two teams' seats to two bots), on --jobs processes. Prints
    each pair's points per deal with a 95% confidence interval, per-bot mean scores, and
    (Quinto) games and rubbers won in --rubbers duplicate rubbers. The same --seed gives
    the same results whatever --jobs is, and with --backend ray. A bot may be an external
    program speaking the bot protocol: "cmd:node examples/quintet-bot.js" (see
    docs/bot-protocol.md). See quintet/arena/.

    With --ladder, plays every pair of --levels (default: every bot level) over --deals
    duplicate deals each and prints one rating per level, strongest first: Bradley–Terry
    on the duplicate deals won, tied and lost, on the Elo scale with random at 0, with 95%
    bootstrap intervals, and each pair's points per deal (see quintet/arena/ratings.py).

    With --merge RUN.json RUN.json ..., reports the runs those --out files hold as one:
    runs of the same bots, budget, game, variant and options with different seeds (made
    on several machines or days), their deals pooled (see quintet/arena/merge.py).
    """
    from quintet import arena
    from quintet.errors import InvalidOptionError

    if merge or runs:
        ctx = click.get_current_context()
        given = {
            f"--{name.replace('_', '-')}"
            for name in ctx.params
            if name not in ("merge", "runs", "out")
            and ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT
        }
        if not merge:
            raise click.UsageError(f"files to merge need --merge: {' '.join(runs)}")
        if given:
            raise click.UsageError(
                f"--merge takes files and --out, and no {', '.join(sorted(given))}"
            )
        from quintet.arena.merge import merge_runs

        try:
            merged = merge_runs(runs)
        except InvalidOptionError as e:
            raise click.UsageError(str(e)) from None
        click.echo(merged.table())
        if out is not None:
            merged.write_json(out)
            click.echo(f"\nwrote {out}")
        return

    if ladder or levels is not None:
        ctx = click.get_current_context()
        given = {
            f"--{name.replace('_', '-')}"
            for name in ("bots", "rubbers", "plot", "no_records")
            if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT
        }
        if not ladder:
            raise click.UsageError("--levels is for --ladder (an arena takes --bots)")
        if given:
            raise click.UsageError(f"--ladder takes --levels, and no {', '.join(sorted(given))}")
        from quintet.arena.ladder import ladder_levels

        names = ladder_levels() if levels is None else tuple(levels.split(","))
        if any(x.strip().split(":")[0] == "pimc" for x in names):
            need_extra("solver", "the pimc bot")
        try:
            cfg = arena.ArenaConfig(
                game=game,
                variant=variant,
                bots=tuple(x.strip() for x in names),
                deals=deals,
                seed=seed,
                jobs=jobs,
                budget=budget,
                iterations=iterations,
                rubbers=0,
                options=arena.parse_options(options),
                records=False,
                progress=True,
                backend=backend,
                address=address,
            ).resolved()
            ladder_result = arena.run_ladder(cfg)
        except InvalidOptionError as e:
            raise click.UsageError(str(e)) from None
        click.echo(ladder_result.table())
        if out is not None:
            ladder_result.write_json(out)
            click.echo(f"\nwrote {out}")
        return
    if plot is not None:
        need_extra("plot", "quintet arena --plot")
    if any(b.strip().split(":")[0] == "pimc" for b in bots.split(",")):
        need_extra("solver", "the pimc bot")
    try:
        config = arena.ArenaConfig(
            game=game,
            variant=variant,
            bots=tuple(b.strip() for b in bots.split(",")),
            deals=deals,
            seed=seed,
            jobs=jobs,
            budget=budget,
            iterations=iterations,
            rubbers=rubbers,
            options=arena.parse_options(options),
            records=out is not None and not no_records,
            progress=True,
            backend=backend,
            address=address,
        ).resolved()
        result = arena.run_arena(config)
    except InvalidOptionError as e:
        raise click.UsageError(str(e)) from None
    click.echo(result.table())
    if out is not None:
        result.write_json(out)
        click.echo(f"\nwrote {out}")
    if plot is not None:
        result.plot(plot)
        click.echo(f"wrote {plot}")


# ----------------------------------------------------------------------------- serve


@main.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option(
    "--db",
    "db_url",
    default=None,
    help="Database URL (default: sqlite:///<user data dir>/quintet.db; PostgreSQL: "
    "postgresql+psycopg://user@host:5432/name).",
)
@click.option(
    "--bot-delay",
    type=click.FloatRange(min=0),
    default=0.8,
    show_default=True,
    help="Seconds a bot waits before it acts, so people can follow.",
)
@click.option("--hint-level", default="pimc", show_default=True, help="Bot giving hints.")
@click.option(
    "--hint-seconds",
    type=click.FloatRange(min=0.01),
    default=None,
    help="CPU seconds a pimc or ismcts hint thinks (default: --bot-seconds).",
)
@click.option("--no-access-log", is_flag=True, help="Do not log each HTTP request.")
@click.option("--log-level", default="info", show_default=True)
@click.option(
    "--bot-command",
    "bot_commands",
    multiple=True,
    help="Let tables seat this external bot program (bot level cmd:COMMAND; repeatable).",
)
@click.option(
    "--bot-level",
    "bot_levels",
    multiple=True,
    metavar="NAME=SPEC",
    help="Offer another bot level: strong=pimc:samples=40:seconds=3 (repeatable).",
)
@click.option(
    "--bot-seconds",
    type=click.FloatRange(min=0.01),
    default=1.0,
    show_default=True,
    help="CPU seconds the pimc and ismcts levels think per decision.",
)
@click.option(
    "--search-limit",
    type=click.FloatRange(min=0.1),
    default=10.0,
    show_default=True,
    help="Hard limit of one bot search in wall seconds, at least 5 x the CPU budgets: "
    "past it the worker is killed and the heuristic decides.",
)
@click.option(
    "--search-workers",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes for bot searches (default: the cores less one).",
)
@click.option(
    "--allow-origin",
    "allow_origins",
    multiple=True,
    help="Another site allowed to post to the API and open the websocket (repeatable).",
)
@click.option(
    "--create-rate",
    type=click.FloatRange(min=0.01),
    default=10.0,
    show_default=True,
    help="Tables one client may create per minute.",
)
@click.option(
    "--max-tables",
    type=click.IntRange(min=1),
    default=5000,
    show_default=True,
    help="Tables in play at once.",
)
@click.option(
    "--tables-per-client",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Tables in play one client (address or browser) may have created.",
)
@click.option(
    "--max-connections",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    help="Websockets open at once from one client address.",
)
@click.option(
    "--abandon-after",
    type=click.FloatRange(min=1),
    default=24 * 3600.0,
    show_default=True,
    help="Seconds without a person connected or an action after which a table is closed.",
)
@click.option(
    "--analysis-nodes",
    type=click.IntRange(min=1000),
    default=20_000_000,
    show_default=True,
    help="The analysis's node limit per position (about 3 CPU seconds); a position needing "
    "more is left unsolved.",
)
@click.option(
    "--set",
    "set_items",
    multiple=True,
    metavar="NAME=VALUE",
    help="Any other limit of docs/server.md's settings: chat_length=300, chat_rate=0.5, "
    "turn_seconds_min=10, turn_seconds_max=600, claim_nodes=300000, lobby_idle_after=900... "
    "(repeatable).",
)
@click.option(
    "--redis",
    "redis_url",
    default=None,
    metavar="URL",
    help="Run as one of several server processes sharing this Redis (redis://host:6379/0) "
    "and the --db PostgreSQL database; see docs/server.md, Deployment.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Server processes to start on this one port (more than 1 needs --redis).",
)
@click.option("--log-json", is_flag=True, help="Write each log line as a JSON object.")
@click.option("--sweep-every", type=click.FloatRange(min=0.05), default=60.0, hidden=True)
@click.option("--allow-seed", is_flag=True, hidden=True, help="Tests: tables may set a seed.")
@click.option(
    "--echo",
    is_flag=True,
    hidden=True,
    help="Benchmarks: a websocket echo at /bench/echo, a fan-out at /bench/fanout/GROUP.",
)
def serve_cmd(
    host: str,
    port: int,
    db_url: str | None,
    bot_delay: float,
    hint_level: str,
    hint_seconds: float | None,
    no_access_log: bool,
    log_level: str,
    bot_commands: tuple[str, ...],
    bot_levels: tuple[str, ...],
    bot_seconds: float,
    search_limit: float,
    search_workers: int | None,
    allow_origins: tuple[str, ...],
    create_rate: float,
    max_tables: int,
    tables_per_client: int,
    max_connections: int,
    abandon_after: float,
    analysis_nodes: int,
    set_items: tuple[str, ...],
    redis_url: str | None,
    workers: int,
    log_json: bool,
    sweep_every: float,
    allow_seed: bool,
    echo: bool,
) -> None:
    """Run the web server: open tables in the browser, invite friends, play with bots.

    Tables, seats and every action are stored (the schema is created or upgraded at
    start) and unfinished tables resume where they were. Clients choose among the named
    bot levels only; their budgets and every limit are set here. With --redis, several
    processes (--workers, or on other ports and machines) serve one site. See
    docs/server.md.
    """
    need_extra("serve", "quintet serve")
    from quintet.errors import InvalidOptionError
    from quintet.server import Settings, run
    from quintet.server.db import default_db_url
    from quintet.server.settings import apply_settings, parse_level

    try:
        levels = dict(parse_level(t) for t in bot_levels)
        settings = Settings(
            db_url=db_url or default_db_url(),
            bot_delay=bot_delay,
            hint_level=hint_level,
            hint_seconds=hint_seconds,
            allow_seed=allow_seed,
            echo=echo,
            bot_seconds=bot_seconds,
            search_limit=search_limit,
            levels=levels,
            bot_commands=bot_commands,
            allow_origins=allow_origins,
            create_rate=create_rate,
            max_tables=max_tables,
            max_tables_per_client=tables_per_client,
            max_connections=max_connections,
            abandon_after=abandon_after,
            analysis_nodes=analysis_nodes,
            sweep_every=sweep_every,
            redis_url=redis_url,
        )
        if search_workers is not None:
            settings.search_workers = search_workers
        apply_settings(settings, set_items)
        if workers > 1 and redis_url is None:
            raise InvalidOptionError(
                "--workers needs --redis (and a PostgreSQL --db): the processes share the "
                "tables through them"
            )
        settings.check()
    except InvalidOptionError as e:
        raise click.UsageError(str(e)) from None
    url = settings.db_url
    shown = url.split("@")[-1] if "@" in url else url
    several = f", {workers} processes" if workers > 1 else ""
    if redis_url is not None:
        several += f", Redis {redis_url.split('@')[-1]}"
    click.echo(f"quintet serve: http://{host}:{port}/  (database {shown}{several})")
    run(
        settings,
        host=host,
        port=port,
        access_log=not no_access_log,
        log_level=log_level,
        workers=workers,
        log_json=log_json,
    )


# ------------------------------------------------------------------- play, replay (TUI)


@main.command("play")
@click.argument("game", required=False, type=click.Choice(list(GAMES)))
@click.option("--variant", default=None, help="partnership|dummy, base|bidding (default: first).")
@click.option("--seat", type=click.IntRange(0, 4), default=None, help="Your seat (default 0).")
@click.option("--lone", type=click.IntRange(0, 3), default=None, help="Dummy variant: lone seat.")
@click.option(
    "--bots",
    default="heuristic",
    show_default=True,
    help="One bot level for every other player, or one per other player: L1,L2,...",
)
@click.option("--seed", type=int, default=None, help="Dealing seed (default: random).")
@click.option("--hands", type=click.IntRange(min=1), default=None, help="Quintus session length.")
@click.option("--option", "options", multiple=True, help="Rules option name=value.")
@click.option(
    "--pace",
    type=click.FloatRange(min=0),
    default=0.4,
    show_default=True,
    help="Seconds between bot actions.",
)
@click.option("--hint-level", default="pimc", show_default=True, help="Bot giving hints.")
@click.option("--save", "save_path", default=None, help="Default file to save to (s).")
@click.option("--resume", "resume", default=None, help="Continue a saved game record.")
def play_cmd(
    game: str | None,
    variant: str | None,
    seat: int | None,
    lone: int | None,
    bots: str,
    seed: int | None,
    hands: int | None,
    options: tuple[str, ...],
    pace: float,
    hint_level: str,
    save_path: str | None,
    resume: str | None,
) -> None:
    """Play Quinto or Quintus in the terminal against bots.

    GAME is quinto or quintus (not needed with --resume). Keys: a card's letter or the
    arrows and Enter to play, 1-9 for the other choices, h hint, u undo, l last trick,
    t score sheet, s save, ? help, q quit; the mouse clicks cards and buttons.
    """
    need_extra("play", "quintet play")
    import random

    from quintet.arena import parse_options
    from quintet.errors import InvalidOptionError
    from quintet.tui.play import new_table, resume_table, run_play

    try:
        if resume is not None:
            table, person = resume_table(_read(resume), seat)
            save_path = save_path or resume
        else:
            if game is None:
                raise click.UsageError("give the game (quinto or quintus) or --resume FILE")
            table, person = new_table(
                game,
                variant,
                seat=0 if seat is None else seat,
                bots=bots,
                seed=random.randrange(1 << 31) if seed is None else seed,
                hands=hands,
                lone=lone,
                options=parse_options(options),
            )
    except RecordError as e:
        raise click.ClickException(str(e)) from None
    except InvalidOptionError as e:
        raise click.UsageError(str(e)) from None
    run_play(table, person, pace=pace, hint_level=hint_level, save_path=save_path)


@main.command("replay")
@click.argument("file")
@click.option("--hand", "hand", type=click.IntRange(min=0), default=0, help="Start at this hand.")
@click.option("--no-analysis", is_flag=True, help="Do not run the double-dummy solver.")
@click.option(
    "--max-nodes",
    type=click.IntRange(min=1),
    default=40_000_000,
    show_default=True,
    help="The solver gives up on a position after this many nodes (about 5 CPU seconds).",
)
def replay_cmd(file: str, hand: int, no_analysis: bool, max_nodes: int) -> None:
    """Step through a game record with every hand visible, and double-dummy values.

    Keys: ← → one action, ↑ ↓ one trick, [ ] one hand, a analyse, t score sheet, q quit.
    """
    need_extra("play", "quintet replay")
    from quintet.tui.replay import ReplayApp

    try:
        record = _read(file)
        app = ReplayApp(record, analysis=not no_analysis, max_nodes=max_nodes, hand=hand)
    except RecordError as e:
        raise click.ClickException(str(e)) from None
    app.run()


@main.command("pad")
@click.argument("game", required=False)
@click.option("--variant", default=None, help="partnership or dummy; base or bidding.")
@click.option("--file", "path", default=None, help="The pad's JSON file: resumed if it exists.")
@click.option("--option", "options", multiple=True, help="Rules option name=value.")
@click.option("--hands", type=click.IntRange(min=1), default=None, help="Quintus session length.")
@click.option("--dealer", type=int, default=0, show_default=True, help="The first dealer's seat.")
@click.option("--lone", type=int, default=None, help="Dummy game: the lone player's seat.")
@click.option("--players", default=None, help="The players' names, by seat: Ann,Bob,...")
@click.option("--from-record", "from_record", default=None, help="Start from a game record.")
@click.option(
    "--export",
    "export_format",
    type=click.Choice(["json", "csv", "text"]),
    default=None,
    help="Print the pad in this format and exit (no terminal pad).",
)
def pad_cmd(
    game: str | None,
    variant: str | None,
    path: str | None,
    options: tuple[str, ...],
    hands: int | None,
    dealer: int,
    lone: int | None,
    players: str | None,
    from_record: str | None,
    export_format: str | None,
) -> None:
    """Keep the score of a game played with real cards (Quinto or Quintus).

    GAME is quinto or quintus (not needed to resume --file). Entries are typed hand by
    hand and checked as they are entered; ? shows the entry language. With --file the
    pad is saved after every entry and resumed from the file next time.
    """
    import os

    from quintet.arena import parse_options
    from quintet.errors import InvalidOptionError
    from quintet.pad import PadError, new_pad, read_pad
    from quintet.pad.fromrecord import pad_entries
    from quintet.pad.sheets import export

    try:
        if path is not None and os.path.exists(path):
            with open(path, "rb") as f:
                pad = read_pad(f.read())
        else:
            record = _read(from_record) if from_record else None
            if record is not None:
                game, variant = record.game, record.variant
                opts = dict(record.options or {})
                dealer = record.hands[0].dealer if record.hands else dealer
                lone = record.lone_seat
            else:
                opts = parse_options(options)
                if hands is not None:
                    opts["hands"] = hands
            if game is None:
                raise click.UsageError("give the game (quinto or quintus), or --file to resume")
            names = [n.strip() for n in players.split(",")] if players else None
            pad = new_pad(game, variant, opts, first_dealer=dealer, lone_seat=lone, players=names)
            if record is not None:
                pad.set_entries(pad_entries(record))
    except RecordError as e:
        raise click.ClickException(str(e)) from None
    except (PadError, InvalidOptionError) as e:
        raise click.UsageError(str(e)) from None
    except OSError as e:
        raise click.ClickException(f"cannot read {path}: {e.strerror}") from None
    if export_format is not None:
        click.echo(export(pad, export_format), nl=False)
        return
    need_extra("play", "quintet pad")
    from quintet.tui.pad import run_pad

    run_pad(pad, path)


# ----------------------------------------------------------------------------- admin


def _db_option(f: Any) -> Any:
    return click.option(
        "--db",
        "db_url",
        default=None,
        help="The server's database URL (default: quintet serve's, "
        "sqlite:///<user data dir>/quintet.db).",
    )(f)


@contextlib.contextmanager
def _admin_db(db_url: str | None) -> Iterator[Any]:
    """Open the server's database, upgraded to the newest schema, in one transaction."""
    need_extra("serve", "quintet admin")
    from quintet.server import db

    url = db_url or db.default_db_url()
    shown = url.split("@")[-1] if "@" in url else url
    engine = db.make_engine(url)
    try:
        try:
            db.migrate(engine)
        except Exception as e:
            raise click.ClickException(f"cannot open the database {shown}: {e}") from None
        with engine.begin() as conn:
            yield conn
    finally:
        engine.dispose()


def _no_account(name: str) -> click.ClickException:
    return click.ClickException(f"no account is named {name!r} (see quintet admin accounts list)")


@main.group("admin")
def admin_cmd() -> None:
    """Look after a server's database (the one quintet serve uses): its accounts."""


@admin_cmd.group("accounts")
def accounts_cmd() -> None:
    """List, disable, enable, delete and export accounts (docs/server.md, "Accounts")."""


@accounts_cmd.command("list")
@_db_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON list.")
def accounts_list_cmd(db_url: str | None, as_json: bool) -> None:
    """List the accounts by name: when made and last seen (UTC), live sessions, status."""
    from quintet.server.accounts import list_accounts

    with _admin_db(db_url) as conn:
        rows = list_accounts(conn)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        click.echo("no accounts")
        return

    def day(t: str | None) -> str:
        return "-" if t is None else t[:16].replace("T", " ")

    click.echo(f"{'name':20}  {'created':16}  {'last seen':16}  sessions  status")
    for r in rows:
        status = "disabled" if r["disabled"] else "active"
        click.echo(
            f"{r['name']:20}  {day(r['created_at']):16}  {day(r['last_seen_at']):16}  "
            f"{r['sessions']:8}  {status}"
        )


@accounts_cmd.command("disable")
@click.argument("name")
@_db_option
def accounts_disable_cmd(name: str, db_url: str | None) -> None:
    """Disable the account NAME: it cannot log in, and its sessions end.

    A running server notices within its session_cache_seconds (30 s).
    """
    from quintet.server.accounts import set_disabled

    with _admin_db(db_url) as conn:
        done = set_disabled(conn, name, True)
    if done is None:
        raise _no_account(name)
    account, ended = done
    click.echo(f"disabled {account.name} ({ended} sessions ended)")


@accounts_cmd.command("enable")
@click.argument("name")
@_db_option
def accounts_enable_cmd(name: str, db_url: str | None) -> None:
    """Enable the account NAME again (it logs in anew)."""
    from quintet.server.accounts import set_disabled

    with _admin_db(db_url) as conn:
        done = set_disabled(conn, name, False)
    if done is None:
        raise _no_account(name)
    click.echo(f"enabled {done[0].name}")


@accounts_cmd.command("delete")
@click.argument("name")
@_db_option
@click.option("--yes", is_flag=True, help="Do not ask first.")
def accounts_delete_cmd(name: str, db_url: str | None, yes: bool) -> None:
    """Delete the account NAME with its sessions, ratings, friendships, results and pads.

    The tables it played stay (other people played them too), its seats' names as they
    were typed.
    """
    from quintet.server.accounts import delete_account, export_account

    with _admin_db(db_url) as conn:
        if export_account(conn, name) is None:
            raise _no_account(name)
    if not yes:
        click.confirm(f"Delete the account {name} and everything stored of it?", abort=True)
    with _admin_db(db_url) as conn:
        gone = delete_account(conn, name)
    if gone is None:
        raise _no_account(name)
    counts = ", ".join(f"{n} {what}" for what, n in gone.items())
    click.echo(f"deleted {name} ({counts}); the tables it played stay")


@accounts_cmd.command("export")
@click.argument("name")
@_db_option
@click.option(
    "-o", "--output", "output", default=None, help="Write to this file (default: stdout)."
)
def accounts_export_cmd(name: str, db_url: str | None, output: str | None) -> None:
    """Print everything stored about the account NAME as JSON (never a password hash).

    The account, its sessions' dates, ratings, results, friends, the tables it played
    (seat, name, result) and its score pads.
    """
    from quintet.server.accounts import export_account

    with _admin_db(db_url) as conn:
        data = export_account(conn, name)
    if data is None:
        raise _no_account(name)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise click.ClickException(f"cannot write {output}: {e.strerror}") from None
    click.echo(f"wrote {output}")


if __name__ == "__main__":  # pragma: no cover
    main()
