"""The browser client's files, read as text (no browser needed).

The pages load one ES module (``app.js``) that imports the others, all from
``quintet/server/static``; no script asks which game a table plays by the game's name
(``=== "quinto"``, ``"quintus" ? 5 : 4``, a table keyed by game names) or counts seats by
a literal (``(lone + 2) % 4``): every game fact comes from ``/api/info``'s ``games``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parent.parent / "quintet" / "server" / "static"
SCRIPTS = sorted(STATIC.glob("*.js"))
GAMES = ("quinto", "quintus")


def split_js(src: str) -> tuple[str, list[str]]:
    """Return the code with its comments and strings blanked, and the strings' texts.

    A template literal's text between its ``${...}`` parts counts as strings, the parts
    as code. (Enough for these files: their regular expressions hold no quote.)
    """
    code: list[str] = []
    strings: list[str] = []
    stack: list[int] = []  # the brace depth of each open ${...}
    depth = 0
    i, n = 0, len(src)

    def template(i: int) -> int:
        """Read a template's text from i (after ` or }) to its end or its next ${."""
        text = []
        while i < n:
            c = src[i]
            if c == "\\":
                text.append(src[i : i + 2])
                i += 2
            elif c == "`":
                strings.append("".join(text))
                return i + 1
            elif src.startswith("${", i):
                strings.append("".join(text))
                stack.append(depth)
                return i + 2
            else:
                text.append(c)
                i += 1
        raise AssertionError("an unclosed template literal")

    while i < n:
        c = src[i]
        if src.startswith("//", i):
            i = src.find("\n", i) if "\n" in src[i:] else n
        elif src.startswith("/*", i):
            i = src.index("*/", i) + 2
        elif c in "\"'":
            j = i + 1
            while src[j] != c:
                j += 2 if src[j] == "\\" else 1
            strings.append(src[i + 1 : j])
            code.append(" ")
            i = j + 1
        elif c == "`":
            code.append(" ")
            i = template(i + 1)
        elif c == "{":
            depth += 1
            code.append(c)
            i += 1
        elif c == "}" and stack and stack[-1] == depth:
            stack.pop()
            code.append(" ")
            i = template(i + 1)
        else:
            if c == "}":
                depth -= 1
            code.append(c)
            i += 1
    assert not stack and depth == 0, "unbalanced braces: the scan went wrong"
    return "".join(code), strings


def test_the_scanner_tells_code_from_strings() -> None:
    code, strings = split_js("a === \"quinto\" ? `x ${b ? 'c' : `d${e}`} y` : f; // g\n")
    assert "quinto" not in code and "g" not in code and "e" in code
    assert strings == ["quinto", "x ", "c", "d", "", " y"]


def test_the_client_is_split_into_modules() -> None:
    names = {p.name for p in SCRIPTS}
    assert {"app.js", "dom.js", "cards.js", "game.js", "felt.js", "sheet.js"} <= names
    assert {"lobby.js", "table.js", "replay.js"} <= names
    for page in ("index.html", "table.html", "replay.html"):
        html = (STATIC / page).read_text()
        tags = re.findall(r"<script\b[^>]*>", html)
        assert tags == ['<script type="module" src="/static/app.js">'], (page, tags)
    for p in SCRIPTS:
        for target in re.findall(r'^import .* from "\./([^"]+)";$', p.read_text(), re.M):
            assert (STATIC / target).is_file(), (p.name, target)


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_no_script_branches_on_a_game_name(path: Path) -> None:
    code, strings = split_js(path.read_text())
    # A game's name as a whole string is a comparison, a key or a default.
    named = [s for s in strings if s in GAMES]
    assert not named, (path.name, named)
    # Nor a name in the code: G.quinto, QUINTO_LABELS, { quintus: [...] }; the field of
    # the seat that is the quintus (hand.quintus) is data.
    words = re.findall(r"(?<![.\w])quint(?:o|us)\w*|\w*quinto\w*", code, re.I)
    assert not words, (path.name, words)
    # Nor seats counted by a literal: (lone + 2) % 4, (q + 1) % 5.
    mods = re.findall(r"%\s*\d+", code)
    assert not mods, (path.name, mods)
