"""The table page follows the table by updates, in a real headless Chromium (Debian's, as
in ``test_browser.py``, whose fixtures and rules this file shares).

The page is sent a whole ``state`` on connecting, then ``update``s of what changed: the
table it keeps (``window.quintet.state``, its log ``window.quintet.log``) must be the
whole state the server sends when asked for one, after bots and the player have
played; and an update that does not continue what the page holds (a gap in the log)
makes the page ask for the whole state and show it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from test_browser import MY_MOVE, Tab, browser, create_table, open_tab, server, tabs

from quintet.server.testing import ServerProcess

__all__ = ["browser", "server", "tabs"]  # test_browser's fixtures, used by name

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

#: Ask the server for the whole state on the page's own websocket and resolve with it
#: (the page, which shows it too, is then at the same point).
ASK = """() => new Promise((resolve) => {
  const ws = window.quintet.ws;
  const seen = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "state") { ws.removeEventListener("message", seen); resolve(m); }
  };
  ws.addEventListener("message", seen);
  ws.send(JSON.stringify({ type: "state" }));
})"""

#: The table the page keeps (its log apart), once it has shown every message it got.
KEPT = """() => {
  const T = window.quintet;
  if (T.queue.length) return null;
  const { log, ...rest } = T.state;
  return { table: rest, log: T.log, logHand: T.logHand };
}"""


def kept(page: Page) -> dict[str, Any]:
    """Return the page's table once nothing waits to be shown."""
    page.wait_for_function(f"({KEPT})() !== null")
    out: dict[str, Any] = page.evaluate(KEPT)
    return out


def same_as_asked(page: Page) -> None:
    """Assert the page's table, on its player's turn (nothing changes then in Quinto),
    is the whole state the server sends when asked."""
    page.wait_for_function(MY_MOVE)
    mine = kept(page)
    whole = page.evaluate(ASK)
    log = whole.pop("log")
    assert mine["table"] == whole
    assert mine["log"] == log["events"] and mine["logHand"] == log["hand"]


def move(page: Page) -> None:
    """Make the player's first legal decision (or go on to the next hand)."""
    page.wait_for_function(MY_MOVE)
    before = page.evaluate("window.quintet.state.seq")
    if page.locator("#summary").is_visible():
        page.click("#summary-next")
    else:
        cards = page.locator("button.card.legal:not([disabled])")
        decisions = page.locator("#actions .group:not(.signals) button[data-n]:not([disabled])")
        (cards if cards.count() else decisions).first.click()
    page.wait_for_function("s => window.quintet.state.seq > s", arg=before)


def test_the_page_keeps_the_whole_state_from_updates(
    browser: Browser, server: ServerProcess, tabs: list[Tab]
) -> None:
    page = open_tab(tabs, browser, server)
    create_table(page, server.http, "quinto", "partnership", seat=0)
    for _ in range(8):  # the doubling round and tricks, bots playing between
        same_as_asked(page)
        move(page)
    same_as_asked(page)
    assert page.evaluate("window.quintet.log.length") > 8


def test_an_update_with_a_gap_makes_the_page_ask_for_the_state(
    browser: Browser, server: ServerProcess, tabs: list[Tab]
) -> None:
    page = open_tab(tabs, browser, server)
    create_table(page, server.http, "quinto", "dummy", seat=0)
    move(page)
    page.wait_for_function(MY_MOVE)
    kept(page)
    sent = page.evaluate(
        """() => new Promise((resolve) => {
          const T = window.quintet, ws = T.ws, out = [];
          const send = ws.send.bind(ws);
          ws.send = (text) => { out.push(JSON.parse(text).type); send(text); };
          ws.addEventListener("message", (ev) => {
            if (JSON.parse(ev.data).type === "state") setTimeout(() => resolve(out), 50);
          });
          const gap = { type: "update", table: T.config.id, seq: T.state.seq,
                        log: { hand: T.logHand, from: T.log.length + 5, events: [] } };
          ws.onmessage({ data: JSON.stringify(gap) });
        })"""
    )
    assert sent == ["state"]
    same_as_asked(page)
