"""Pages built on the server: the rules (docs/rules.md as HTML) and invite QR codes.

The rules page is the project's ``docs/rules.md``, reached through the symlink
``quintet/server/static/rules.md`` (an installed copy holds the file itself), rendered
with markdown-it-py once: its raw HTML is not passed through, so the page is the
Markdown's text only, under the site's header.
"""

from __future__ import annotations

import functools
import html
import io
from importlib import resources

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>quintet — rules</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/style.css">
<link rel="stylesheet" href="/static/social.css">
</head>
<body data-page="rules">
<header class="top">
  <h1><a href="/">quintet</a></h1><span class="sub">{title}</span>
  <span class="spacer"></span>
  <a class="pad-link" href="/pad">Score pad</a>
  <a class="back" href="/" id="back">← back to the tables</a>
</header>
<main class="rules-page">
{body}
<p><a href="/">← back to the tables</a></p>
</main>
</body>
</html>
"""


def rules_text() -> str:
    """Return docs/rules.md as shipped with the package."""
    return (resources.files("quintet.server") / "static" / "rules.md").read_text("utf-8")


@functools.cache
def rules_html() -> str:
    """Return the rules page (rendered once)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    text = rules_text()
    title = "Rules"  # the first heading, without its code marks
    for line in text.splitlines():
        if line.startswith("# "):
            title = line[2:].strip().replace("`", "")
            break
    return _PAGE.format(title=html.escape(title), body=md.render(text))


def qr_svg(text: str) -> bytes:
    """Return a QR code of ``text`` as an SVG image (segno, error correction M)."""
    import segno

    buf = io.BytesIO()
    segno.make(text, error="m").save(
        buf, kind="svg", scale=6, border=2, xmldecl=False, title="invite link", dark="#000"
    )
    return buf.getvalue()


__all__ = ["qr_svg", "rules_html", "rules_text"]
