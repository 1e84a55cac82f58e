"""Installs that fit the user: what the base install and each extra give.

``pip install quintet-cards`` has only click and tqdm, so the engines, records, scorer
and the base commands must not import an extra's package, and a command needing an
extra must say which in one line. The subprocesses below stand in for an install
without the extras by putting ``None`` in ``sys.modules`` for their packages: an import
of one then fails as if it were not installed, and ``find_spec`` finds nothing.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from quintet.cli import EXTRA_MODULES, main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "quintet" / "data" / "examples"

# Top-level modules of every package the extras and the test tools install (and scipy,
# which none should). The base install must work with all of them missing.
EXTRAS_PACKAGES = (
    "numpy",
    "numba",
    "llvmlite",
    "fastapi",
    "starlette",
    "pydantic",
    "uvicorn",
    "websockets",
    "sqlalchemy",
    "alembic",
    "platformdirs",
    "psycopg",
    "textual",
    "rich",
    "matplotlib",
    "ray",
    "pyspiel",
    "open_spiel",
    "pettingzoo",
    "gymnasium",
    "scipy",
    "httpx",
    "playwright",
    "hypothesis",
    "mypy",
)

# The modules of the base install: the engines, records, scorer, bots and the command.
BASE_MODULES = (
    "quintet.cli",
    "quintet.cards",
    "quintet.actions",
    "quintet.game",
    "quintet.quinto",
    "quintet.quintus",
    "quintet.record",
    "quintet.sheets",
    "quintet.sampling",
    "quintet.table",
    "quintet.bots",
    "quintet.bots.ismcts",
    "quintet.botproto",
    "quintet.arena",
)


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def _without(packages: tuple[str, ...], code: str) -> str:
    """``code`` run after making ``packages`` unimportable."""
    return f"import sys\nfor m in {packages!r}:\n    sys.modules[m] = None\n{code}"


# --------------------------------------------------------------------- the base install


def test_base_modules_import_no_package_of_an_extra() -> None:
    code = (
        "import importlib, json, sys\n"
        f"for m in {BASE_MODULES!r}:\n"
        "    importlib.import_module(m)\n"
        f"print(json.dumps(sorted(m for m in {EXTRAS_PACKAGES!r} if m in sys.modules)))\n"
    )
    proc = _python(code)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


def _main(*args: str) -> str:
    """Run ``quintet ARGS`` in a process where no extra's package can be imported."""
    code = f"from quintet.cli import main\nmain({list(args)!r})"
    return _without(EXTRAS_PACKAGES, code)


@pytest.mark.parametrize(
    ("args", "expect"),
    [
        (("score", str(EXAMPLES / "quintus-bidding.json")), r'^\{"game": "quintus"'),
        (("sheet", "--example", "quinto-partnership"), r"Game 1"),
        (("show", "--example", "quinto-dummy", "--hand", "0", "--at", "5"), r"dummy"),
        (
            (
                "arena",
                "--deals",
                "2",
                "--jobs",
                "1",
                "--bots",
                "random,heuristic,ismcts:iterations=20",
            ),
            r"points per duplicate match",
        ),
    ],
    ids=["score", "sheet", "show", "arena"],
)
def test_base_commands_work_without_any_extra(args: tuple[str, ...], expect: str) -> None:
    proc = _python(_main(*args))
    assert proc.returncode == 0, proc.stderr
    assert re.search(expect, proc.stdout, re.MULTILINE), proc.stdout


def test_the_solver_bot_is_missing_without_numpy_and_the_others_are_there() -> None:
    code = "from quintet.bots import levels\nprint(','.join(levels()))"
    proc = _python(_without(("numpy",), code))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["random,heuristic,ismcts"]


def test_asking_for_the_solver_bot_without_its_extra_names_the_extra() -> None:
    code = (
        "from quintet.bots import make_bot\n"
        "try:\n    make_bot('pimc')\nexcept ValueError as e:\n    print(e)"
    )
    proc = _python(_without(("numpy",), code))
    assert proc.returncode == 0, proc.stderr
    assert "bot level 'pimc' needs the 'solver' extra" in proc.stdout, proc.stdout


# ------------------------------------------------------------- commands needing an extra


# Each command's arguments are wrong past the check (a bad option, a missing file, one
# deal), so that a broken check fails the test at once instead of serving or drawing.
MISSING = str(EXAMPLES / "no-such-record.json")


@pytest.mark.parametrize(
    ("args", "extra", "what"),
    [
        (["serve", "--search-limit", "0.1"], "serve", "quintet serve"),
        (["play", "quinto", "--variant", "no-such-variant"], "play", "quintet play"),
        (["replay", MISSING], "play", "quintet replay"),
        (["solve", MISSING], "solver", "quintet solve"),
        (["analyze", MISSING], "solver", "quintet analyze"),
        (["warm-up"], "solver", "quintet warm-up"),
        (
            ["arena", "--deals", "1", "--jobs", "1", "--bots", "pimc:samples=1,random"],
            "solver",
            "the pimc bot",
        ),
        (
            ["arena", "--deals", "1", "--jobs", "1", "--plot", MISSING],
            "plot",
            "quintet arena --plot",
        ),
    ],
)
@pytest.mark.parametrize("missing", ["first", "last"])
def test_a_command_needing_a_missing_extra_names_it_in_one_line(
    monkeypatch: pytest.MonkeyPatch, args: list[str], extra: str, what: str, missing: str
) -> None:
    modules = EXTRA_MODULES[extra]
    monkeypatch.setitem(sys.modules, modules[0] if missing == "first" else modules[-1], None)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert result.output == (
        f"Error: {what} needs the '{extra}' extra: pip install 'quintet-cards[{extra}]'\n"
    )


def test_the_server_imports_only_what_the_serve_extra_installs() -> None:
    # Everything but the serve extra's packages (numpy, numba, FastAPI, uvicorn, ...).
    serve = {"numpy", "numba", "llvmlite", "fastapi", "starlette", "pydantic", "uvicorn"}
    serve |= {"websockets", "sqlalchemy", "alembic", "platformdirs"}
    others = tuple(m for m in EXTRAS_PACKAGES if m not in serve)
    code = (
        "import importlib, pkgutil, quintet.server\n"
        "for m in pkgutil.walk_packages(quintet.server.__path__, 'quintet.server.'):\n"
        "    if m.name != 'quintet.server.testing' and '.migrations' not in m.name:\n"
        "        importlib.import_module(m.name)\n"
        "import quintet.analysis\n"
        "from quintet.bots import make_bot\n"
        "print(make_bot('pimc').name)\n"
    )
    proc = _python(_without(others, code))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["pimc"]


# ------------------------------------------------------------------ pyproject's extras


def _project() -> dict[str, object]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        project: dict[str, object] = tomllib.load(f)["project"]
    return project


def _name(requirement: str) -> str:
    """The distribution a requirement names, normalized, with its extras: ``a[b]``."""
    m = re.match(r"\s*([A-Za-z0-9._-]+)\s*(\[[^\]]*\])?", requirement)
    assert m, requirement
    return re.sub(r"[-_.]+", "-", m.group(1)).lower() + (m.group(2) or "").replace(" ", "")


def _installs(extra: str | None) -> set[str]:
    """The distributions ``pip install 'quintet-cards[extra]'`` asks for (no extra: base)."""
    project = _project()
    extras: dict[str, list[str]] = project["optional-dependencies"]  # type: ignore[assignment]
    base: list[str] = project["dependencies"]  # type: ignore[assignment]
    out = {_name(r) for r in base}
    todo = [] if extra is None else [extra]
    seen: set[str] = set()
    while todo:
        e = todo.pop()
        if e in seen:
            continue
        seen.add(e)
        for r in extras[e]:
            n = _name(r)
            if n.startswith("quintet-cards["):
                todo.extend(x.strip() for x in n[len("quintet-cards[") : -1].split(","))
            else:
                out.add(n.split("[")[0])
    return out


def test_the_base_install_is_click_and_tqdm() -> None:
    assert _installs(None) == {"click", "tqdm"}


def test_each_extra_installs_what_its_commands_check_for() -> None:
    # The modules need_extra checks are the distributions of the same name here.
    for extra, modules in EXTRA_MODULES.items():
        assert set(modules) <= _installs(extra), extra


def test_the_extras_hold_what_the_issue_asks_for() -> None:
    assert {"numpy", "numba"} <= _installs("solver")
    assert {"textual", "numpy", "numba"} <= _installs("play")
    serve = _installs("serve")
    assert {"fastapi", "uvicorn", "websockets", "sqlalchemy", "alembic", "numba"} <= serve
    # make run installs serve: none of the TUI, plots, research stack or test tools
    others = {"textual", "matplotlib", "ray", "open-spiel", "pettingzoo", "gymnasium"}
    others |= {"psycopg", "playwright", "pytest", "mypy", "scipy"}
    assert not serve & others
    assert {"open-spiel", "pettingzoo", "gymnasium", "ray"} <= _installs("research")
    assert "psycopg" in _installs("postgres")
    assert "matplotlib" in _installs("plot")
    assert {"open-spiel", "endplay"} <= _installs("bench")


def test_dev_installs_every_extra_but_bench() -> None:
    extras: dict[str, list[str]] = _project()["optional-dependencies"]  # type: ignore[assignment]
    dev = _installs("dev")
    for extra in extras:
        if extra not in ("dev", "bench"):
            assert _installs(extra) <= dev, extra
    assert {"pytest", "mypy", "ruff", "playwright", "httpx"} <= dev


# -------------------------------------------------------------------------- the Makefile


def _make_n(target: str, tmp_path: Path) -> str:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    proc = subprocess.run(
        ["make", "--no-print-directory", "-n", target, f"VENV={tmp_path / 'venv'}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_make_run_installs_only_the_serve_extra_and_says_how_to_reach_quintet(
    tmp_path: Path,
) -> None:
    out = _make_n("run", tmp_path)
    installs = re.findall(r"pip install --quiet -e '\.\[(\w+)\]'", out)
    assert installs == ["serve"], out
    assert f'export PATH="{tmp_path / "venv" / "bin"}:$PATH"' in out
    assert out.rstrip().endswith(f"{tmp_path / 'venv' / 'bin'}/quintet serve")


def test_make_play_installs_the_play_extra_and_plays_in_the_terminal(tmp_path: Path) -> None:
    """The README's terminal game: `make play` works after `make run` (issue 14, item 7)."""
    out = _make_n("play", tmp_path)
    assert re.findall(r"pip install --quiet -e '\.\[(\w+)\]'", out) == ["play"], out
    assert out.rstrip().endswith(f"{tmp_path / 'venv' / 'bin'}/quintet play quinto")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make play" in readme and 'export PATH="$PWD/.venv/bin:$PATH"' in readme


def test_make_test_installs_everything(tmp_path: Path) -> None:
    out = _make_n("test", tmp_path)
    assert re.findall(r"pip install --quiet -e '\.\[(\w+)\]'", out) == ["dev"], out
