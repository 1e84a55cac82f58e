"""The ``quintet`` command: ``score`` (the binding contract of record-format.md), ``sheet``
and ``show``."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from quintet.cards import card_display, hand_display, mask_cards
from quintet.cli import main
from quintet.quinto import QuintoMatch, QuintoRules
from quintet.record import dumps, example_text, read_record, record_from_match, replay, score

JSON = dict[str, Any]
ROOT = Path(__file__).resolve().parents[1]
SPEC_EXAMPLES = Path("/work/shared/spec/examples")
QUINTO_EXAMPLES = ["quinto-partnership", "quinto-dummy"]


def example_file(name: str) -> Path:
    """The spec's example file (or the bundled copy when the spec tree is absent)."""
    path = SPEC_EXAMPLES / name
    if path.exists():
        return path
    return ROOT / "quintet" / "data" / "examples" / name


def run(*args: str, input: str | bytes | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input)


def one_json_object(text: str) -> JSON:
    """Parse stdout that must hold exactly one JSON object and nothing else."""
    obj, end = json.JSONDecoder().raw_decode(text.lstrip())
    assert text.lstrip()[end:].strip() == "", text
    assert isinstance(obj, dict), text
    out: JSON = obj
    return out


def score_ok(*args: str, input: str | bytes | None = None) -> JSON:
    result = run("score", *args, input=input)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return one_json_object(result.stdout)


def score_error(*args: str, input: str | bytes | None = None) -> JSON:
    result = run("score", *args, input=input)
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    err = one_json_object(result.stdout)
    assert err["error"] in ("unreadable", "invalid", "illegal action"), err
    assert set(err) <= {"error", "hand", "action", "detail"}, err
    assert isinstance(err["detail"], str) and err["detail"]
    return err


def random_record(seed: int, rules: QuintoRules | None = None, hands: int = 2) -> JSON:
    """A partnership record: ``hands`` hands played out, then 10 actions of the next one."""
    rng = random.Random(seed)
    match = QuintoMatch(rules or QuintoRules(), first_dealer=seed % 4)
    for k in range(hands + 1):
        if match.is_over():
            break
        state = match.start_hand(rng=random.Random(rng.randrange(1 << 30)))
        n = 0
        while not state.is_terminal() and (k < hands or n < 10):
            state.apply_action(rng.choice(state.legal_actions()))
            n += 1
    data: JSON = json.loads(dumps(record_from_match(match)))
    return data


# ------------------------------------------------------------------ score


@pytest.mark.parametrize("name", QUINTO_EXAMPLES)
def test_score_spec_examples(name: str) -> None:
    want = json.loads(example_file(name + ".score.json").read_text())
    assert score_ok(str(example_file(name + ".json"))) == want


@pytest.mark.parametrize("name", QUINTO_EXAMPLES)
def test_score_reads_standard_input(name: str) -> None:
    want = json.loads(example_file(name + ".score.json").read_text())
    assert score_ok("-", input=example_file(name + ".json").read_bytes()) == want
    assert score_ok("-", input=example_file(name + ".json").read_text()) == want


@pytest.mark.parametrize(
    "name", ["quinto-partnership", "quinto-dummy", "quintus-base", "quintus-bidding"]
)
def test_bundled_examples_are_the_spec_examples(name: str) -> None:
    """The examples shipped in the package are the spec's, record and scorer output."""
    if not SPEC_EXAMPLES.exists():
        pytest.skip(f"the spec's examples are not at {SPEC_EXAMPLES} on this machine")
    for suffix in (".json", ".score.json"):
        bundled = json.loads(example_text(name + suffix.removesuffix(".json")))
        assert bundled == json.loads((SPEC_EXAMPLES / (name + suffix)).read_text())


def test_score_prints_exactly_the_scorer_object(tmp_path: Path) -> None:
    for seed in range(4):
        data = random_record(seed, QuintoRules(target=60), hands=4)
        path = tmp_path / f"r{seed}.json"
        path.write_text(json.dumps(data))
        out = score_ok(str(path))
        assert set(out) == {"game", "complete", "games", "rubber"}
        assert out == score(read_record(json.dumps(data)))


def test_score_record_with_no_hands(tmp_path: Path) -> None:
    data = {"format": "quintet-record", "version": 1, "game": "quinto", "variant": "partnership"}
    out = score_ok("-", input=json.dumps({**data, "hands": []}))
    assert out == {
        "game": "quinto",
        "complete": False,
        "games": [],
        "rubber": {"winner": None, "score": None},
    }


def test_missing_file_is_unreadable(tmp_path: Path) -> None:
    err = score_error(str(tmp_path / "no-such-record.json"))
    assert err["error"] == "unreadable"
    assert "hand" not in err and "action" not in err


def test_directory_is_unreadable(tmp_path: Path) -> None:
    err = score_error(str(tmp_path))
    assert err["error"] == "unreadable"


@pytest.mark.parametrize(
    "text", ["", "   ", "not json", "{", '{"a": 1,}', "{'format': 1}", "\xff".encode("latin-1")]
)
def test_not_json_is_unreadable(text: str | bytes) -> None:
    err = score_error("-", input=text)
    assert err == {"error": "unreadable", "detail": err["detail"]}


def test_unreadable_file_with_bad_bytes(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(b'{"format": "quintet-record", "game": "\xc3\x28"}')
    assert score_error(str(path))["error"] == "unreadable"


def test_invalid_record_exits_2() -> None:
    base = json.loads(example_text("quinto-partnership"))
    cases: list[tuple[object, int | None, int | None]] = [
        ([], None, None),
        ({**base, "version": 2}, None, None),
        ({**base, "options": {"target": "250"}}, None, None),
        ({**base, "lone_seat": 1}, None, None),
    ]
    bad_deal = json.loads(json.dumps(base))
    bad_deal["hands"][1]["deal"]["cachette"][0] = "XX"
    cases.append((bad_deal, 1, None))
    bad_dealer = json.loads(json.dumps(base))
    bad_dealer["hands"][1]["dealer"] = 0
    cases.append((bad_dealer, 1, None))
    bad_type = json.loads(json.dumps(base))
    bad_type["hands"][0]["actions"][2] = {"seat": 1, "type": "bid", "amount": 40}
    cases.append((bad_type, 0, 2))
    for data, hand, action in cases:
        err = score_error("-", input=json.dumps(data))
        assert err["error"] == "invalid", err
        assert err.get("hand") == hand and ("hand" in err) == (hand is not None), err
        assert err.get("action") == action and ("action" in err) == (action is not None), err


def test_illegal_action_exits_2(tmp_path: Path) -> None:
    data = json.loads(example_text("quinto-partnership"))
    acts = data["hands"][1]["actions"]
    # Action 5 is the second card of the first trick; play the leader's card again.
    acts[5] = {**acts[5], "card": acts[4]["card"]}
    path = tmp_path / "illegal.json"
    path.write_text(json.dumps(data))
    err = score_error(str(path))
    assert err["error"] == "illegal action"
    assert err["hand"] == 1 and err["action"] == 5


def test_game_of_wrong_type_exits_2_with_an_error_object() -> None:
    # Regression (fixed): `"game": []` raises TypeError (unhashable type) inside record_from_json:
    # `quintet score` prints a traceback and exits 1 instead of an `invalid` error.
    data = json.loads(example_text("quinto-partnership"))
    data["game"] = ["quinto"]
    err = score_error("-", input=json.dumps(data))
    assert err["error"] == "invalid"


def test_deeply_nested_json_exits_2_with_an_error_object() -> None:
    # Regression (fixed): json.loads raises RecursionError on deep nesting; it is not caught, so
    # `quintet score` crashes (exit 1) instead of printing an error object (exit 2).
    err = score_error("-", input="[" * 100_000 + "]" * 100_000)
    assert err["error"] in ("unreadable", "invalid")


def test_score_needs_a_file_argument() -> None:
    result = run("score")
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit)
    assert "Missing argument 'FILE'" in result.output


def quintet_exe() -> Path:
    exe = ROOT / ".venv" / "bin" / "quintet"
    if not exe.exists():
        exe = Path(sys.executable).parent / "quintet"
    return exe


def test_real_process_score_from_stdin() -> None:
    name = "quinto-partnership"
    proc = subprocess.run(
        [str(quintet_exe()), "score", "-"],
        input=example_file(name + ".json").read_bytes(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = one_json_object(proc.stdout.decode())
    assert out == json.loads(example_file(name + ".score.json").read_text())


def test_real_process_error_from_stdin() -> None:
    proc = subprocess.run(
        [str(quintet_exe()), "score", "-"],
        input=b"this is not a record",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    err = one_json_object(proc.stdout.decode())
    assert err["error"] == "unreadable"


# --------------------------------------------------------------- sheet, show


def test_sheet_example() -> None:
    result = run("sheet", "--example", "quinto-partnership")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Quinto rubber" in out
    assert "240" in out and "195" in out  # the score the spec's example ends with


def test_sheet_of_a_file(tmp_path: Path) -> None:
    path = tmp_path / "dummy.json"
    path.write_bytes(example_file("quinto-dummy.json").read_bytes())
    result = run("sheet", str(path))
    assert result.exit_code == 0, result.output
    assert "90" in result.stdout and "145" in result.stdout


def test_sheet_of_a_finished_rubber(tmp_path: Path) -> None:
    data = random_record(3, QuintoRules(target=60), hands=10)
    path = tmp_path / "rubber.json"
    path.write_text(json.dumps(data))
    result = run("sheet", str(path))
    assert result.exit_code == 0, result.output
    assert "Rubber to" in result.stdout


def test_sheet_of_an_invalid_record_fails(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("[]")
    result = run("sheet", str(path))
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "invalid: a record is a JSON object, not list" in result.output


@pytest.mark.parametrize("name", QUINTO_EXAMPLES)
def test_show_example(name: str) -> None:
    result = run("show", "--example", name)
    assert result.exit_code == 0, result.output
    assert "Quinto" in result.stdout
    result = run("show", "--example", name, "--hand", "0", "--at", "0", "--events")
    assert result.exit_code == 0, result.output
    assert "Doubling round" in result.stdout


def test_show_file_and_stdin(tmp_path: Path) -> None:
    path = example_file("quinto-partnership.json")
    a = run("show", str(path))
    b = run("show", "-", input=path.read_text())
    assert a.exit_code == b.exit_code == 0
    assert a.stdout == b.stdout


def _table(name: str, hand: int, at: int) -> list[int]:
    """The card masks of each seat at a point of an example record."""
    match = replay(read_record(example_text(name)), upto=(hand, at))
    assert isinstance(match, QuintoMatch)
    hands: list[int] = list(match.hands[hand].hands)
    return hands


def _assert_hidden(out: str, hands: list[int], visible: set[int]) -> None:
    for s in range(4):
        if s in visible:
            assert hand_display(hands[s]) in out, (s, out)
        else:
            assert hands[s], s
            assert hand_display(hands[s]) not in out, (s, out)
            for c in mask_cards(hands[s]):
                assert card_display(c) not in out, (s, card_display(c), out)


@pytest.mark.parametrize(("hand", "at"), [(0, 0), (0, 4), (1, 6), (1, 25), (1, 40)])
def test_show_seat_hides_the_other_hands(hand: int, at: int) -> None:
    name = "quinto-partnership"
    hands = _table(name, hand, at)
    full = run("show", "--example", name, "--hand", str(hand), "--at", str(at))
    assert full.exit_code == 0, full.output
    for s in range(4):
        if hands[s]:
            assert hand_display(hands[s]) in full.stdout
    result = run("show", "--example", name, "--hand", str(hand), "--at", str(at), "--seat", "1")
    assert result.exit_code == 0, result.output
    _assert_hidden(result.stdout, hands, {1})
    # With the public events listed too, still no hidden card is printed.
    result = run(
        "show", "--example", name, "--hand", str(hand), "--at", str(at), "--seat", "1", "--events"
    )
    assert result.exit_code == 0, result.output
    _assert_hidden(result.stdout, hands, {1})


def test_show_seat_in_a_dummy_game() -> None:
    # Lone player South (2), dummy North (0). In the doubling round the lone player sees
    # his own hand only (dummy_double_view "own"); once play begins, the dummy's too.
    # The opponents never see the dummy.
    name = "quinto-dummy"
    hands = _table(name, 0, 0)
    out = run("show", "--example", name, "--hand", "0", "--at", "0", "--seat", "2").stdout
    _assert_hidden(out, hands, {2})
    hands = _table(name, 0, 5)
    out = run("show", "--example", name, "--hand", "0", "--at", "5", "--seat", "2").stdout
    _assert_hidden(out, hands, {0, 2})
    for opponent in (1, 3):
        res = run("show", "--example", name, "--hand", "0", "--at", "5", "--seat", str(opponent))
        _assert_hidden(res.stdout, hands, {opponent})


@pytest.mark.parametrize(
    "args", [["--hand", "5"], ["--hand", "-1"], ["--hand", "0", "--at", "999"], ["--seat", "5"]]
)
def test_show_bad_arguments_fail_cleanly(args: list[str]) -> None:
    result = run("show", "--example", QUINTO_EXAMPLES[0], *args)
    assert result.exit_code != 0
    assert isinstance(result.exception, SystemExit), result.exception


def test_show_seat_4_of_a_quinto_record_fails() -> None:
    # Regression (fixed): (minor) `--seat` accepts 0..4 for both games; for a Quinto record seat 4
    # does not exist, yet `show --seat 4` exits 0 and prints a table with every hand hidden.
    result = run("show", "--example", "quinto-partnership", "--seat", "4")
    assert result.exit_code != 0
    assert isinstance(result.exception, SystemExit), result.exception


def test_show_needs_a_record() -> None:
    result = run("show")
    assert result.exit_code != 0
    assert isinstance(result.exception, SystemExit)


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout.strip()


def test_serve_sets_any_limit_by_name_and_refuses_a_bad_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`quintet serve --set NAME=VALUE`: the operator sets the chat, clock and claim
    limits (every limit is the operator's, never a client's); a bad name or value is a
    usage error naming it, and nothing starts."""
    import quintet.server as server

    started: list[Any] = []
    monkeypatch.setattr(server, "run", lambda settings, **kw: started.append(settings))
    args = ["serve", "--db", "sqlite://", "--set", "chat_length=120", "--set", "claim-nodes=5000"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert started[0].chat_length == 120 and started[0].claim_nodes == 5000
    for bad, message in (
        ("chat_length=long", "chat_length takes a whole number, not 'long'"),
        ("no_such=1", "no setting 'no_such'"),
        ("levels=x", "levels is set by its own option"),
    ):
        result = CliRunner().invoke(main, ["serve", "--db", "sqlite://", "--set", bad])
        assert result.exit_code == 2 and message in result.output, result.output
    assert len(started) == 1
