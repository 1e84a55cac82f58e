"""No layer above the engines branches on a game's name: they ask quintet.games.

Each module of :data:`COVERED` is parsed (not imported) and searched for a comparison with
a game's name (``game == "quinto"``, ``name in ("quinto", "quintus")``, a ``case
"quintus":``) and for ``isinstance``/``issubclass`` against an engine's class
(``QuintoRules``, ``QuintusState``...). What truly differs between the games is chosen
from quintet.games' data instead (a table keyed by the game's ``state_class``, say).
Extend :data:`COVERED` as more layers are made to ask quintet.games.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest

from quintet.games import games

ROOT = Path(__file__).resolve().parent.parent

#: Modules and packages (dotted names, every module of a package), or scripts (paths
#: from the repository's root), that must not branch on a game's name.
COVERED: tuple[str, ...] = (
    "quintet.arena",
    "quintet.botproto",
    "quintet.integrations",
    "bench/integrations.py",
    "bench/ladder.py",
    "bench/vs_openspiel.py",
    "bench/endgames.py",
    "bench/alphamu_agreement.py",
    "quintet.record",
    "quintet.table",
    "quintet.analysis",
    "quintet.solver",
    "quintet.bots",
    "quintet.cli",
    "quintet.server",
    "quintet.tui",
    "quintet.sheets",
    "quintet.pad",
)

#: Every game's name.
GAME_NAMES = frozenset(info.name for info in games())


def _engine_classes() -> frozenset[str]:
    """Return the names of every class an engine's package exports (rules, states,
    matches, observations...)."""
    names: set[str] = set()
    for info in games():
        package = importlib.import_module(info.state_class.__module__.rpartition(".")[0])
        for name in getattr(package, "__all__", ()):
            if inspect.isclass(getattr(package, name, None)):
                names.add(name)
    return frozenset(names)


ENGINE_CLASSES = _engine_classes()


def _files(target: str) -> list[Path]:
    """Return the source files of a module, a package (recursively) or a script."""
    if target.endswith(".py"):
        return [ROOT / target]
    spec = importlib.util.find_spec(target)
    assert spec is not None and spec.origin is not None, f"no module {target}"
    origin = Path(spec.origin)
    if spec.submodule_search_locations:  # a package
        return sorted(origin.parent.rglob("*.py"))
    return [origin]


def _names_a_game(node: ast.AST) -> bool:
    """Whether ``node`` is a game's name, or a literal tuple, list or set holding one."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in GAME_NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_names_a_game(e) for e in node.elts)
    return False


def _engine_class_named(node: ast.AST) -> str | None:
    """The engine class ``node`` names (``QuintoRules``, ``quinto.QuintoRules``, or in a
    tuple), or None."""
    if isinstance(node, ast.Name) and node.id in ENGINE_CLASSES:
        return node.id
    if isinstance(node, ast.Attribute) and node.attr in ENGINE_CLASSES:
        return node.attr
    if isinstance(node, ast.Tuple):
        for e in node.elts:
            found = _engine_class_named(e)
            if found:
                return found
    if isinstance(node, ast.BinOp):  # isinstance(x, A | B)
        return _engine_class_named(node.left) or _engine_class_named(node.right)
    return None


def game_branches(source: str) -> Iterator[tuple[int, str]]:
    """Yield ``(line, what)`` for every branch on a game's name or engine class."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            if any(_names_a_game(x) for x in (node.left, *node.comparators)):
                yield node.lineno, f"compares with a game's name: {ast.unparse(node)}"
        elif isinstance(node, ast.MatchValue) and _names_a_game(node.value):
            yield node.lineno, f"matches a game's name: case {ast.unparse(node.value)}"
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("isinstance", "issubclass")
            and len(node.args) == 2
        ):
            cls = _engine_class_named(node.args[1])
            if cls:
                yield node.lineno, f"checks the engine class {cls}: {ast.unparse(node)}"


@pytest.mark.parametrize("target", COVERED)
def test_no_branch_on_a_games_name(target: str) -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {what}"
        for path in _files(target)
        for line, what in game_branches(path.read_text(encoding="utf-8"))
    ]
    assert not found, "ask quintet.games instead:\n" + "\n".join(found)


def test_the_search_finds_every_kind_of_branch() -> None:
    source = """
if game == "quinto": pass
n = 4 if spec.game == "quinto" else 5
if "quintus" != name: pass
if name in ("quinto", "quintus"): pass
ok = isinstance(rules, QuintoRules)
ok = isinstance(state, (int, quintus.QuintusState))
ok = issubclass(cls, QuintoMatch | QuintusMatch)
match game:
    case "quintus":
        pass
"""
    lines = [line for line, _ in game_branches(source)]
    assert sorted(lines) == [2, 3, 4, 5, 6, 7, 8, 10]
    harmless = """
TABLE = {"quinto": 1, "quintus": 2}
x = TABLE[info.name]
load_game("quinto")
ok = isinstance(value, str) and value == "all"
"""
    assert list(game_branches(harmless)) == []
    assert {"QuintoRules", "QuintusState", "QuintoMatch", "QuintoObservation"} <= ENGINE_CLASSES
