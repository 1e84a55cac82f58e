"""The ``quintet`` command."""

from __future__ import annotations

import json
import sys

import click

from quintet.errors import RecordError
from quintet.record import Record, example_text, read_record, replay, score
from quintet.sheets import sheet

EXAMPLES = ("quinto-partnership", "quinto-dummy", "quintus-base", "quintus-bidding")


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


if __name__ == "__main__":  # pragma: no cover
    main()
