"""The first-hand lesson (issue 14, learning): each decision explained as it comes.

The lobby's "Learn" buttons make a private table with the player at seat 0 and heuristic
bots in the other seats, opened with ``?learn=1``; the box under the decisions then says
what the rules allow and why (static/guide.json's words, learn.js's choice). Played by
taps on the phone viewport, as a newcomer would. Screenshots: test-artifacts/learn-*.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from test_browser_layout import (  # the fixtures: a server, Chromium, pages that fail on JS errors
    PHONE,
    Pages,
    browser,
    no_horizontal_scroll,
    pages,
    play_hand,
    server,
    shot,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

__all__ = ["browser", "pages", "server"]  # pytest fixtures, used by name

GUIDE = json.loads(
    (Path(__file__).resolve().parent.parent / "quintet/server/static/guide.json").read_text()
)

# Every lesson text shown, in order (the box is rewritten in place).
WATCH = """() => {
  window.__lessons = [];
  const box = document.querySelector('#lesson');
  const keep = () => { const t = box.hidden ? '' : box.textContent;
    if (t && window.__lessons[window.__lessons.length - 1] !== t) window.__lessons.push(t); };
  new MutationObserver(keep).observe(box, {childList: true, characterData: true, subtree: true,
    attributes: true});
  keep();
}"""


def start_lesson(pages: Pages, title: str) -> Page:
    page = pages.open(PHONE, touch=True)
    page.locator(f"#lessons button[data-lesson]:has-text('Learn {title}')").tap()
    page.wait_for_url("**/table/**learn=1**")
    page.wait_for_selector("#conn[data-state=open]")
    page.evaluate(WATCH)
    return page


def test_a_quinto_lesson_explains_the_doubling_the_play_and_the_quints(pages: Pages) -> None:
    page = start_lesson(pages, "Quinto")
    g = GUIDE["quinto"]

    def on_turn(p: Page, phase: str) -> None:
        page.wait_for_selector("#lesson:not([hidden])")
        # A trick that just scored is explained first, then the decision now.
        text = page.locator("#lesson").inner_text().split("\n")[-1]
        if phase == "doubling":
            assert text == g["phases"]["doubling"]
            shot(page, "learn-quinto-doubling.png")
        elif phase == "play":
            st = page.evaluate("window.quintet.state.hand")
            mine = st["hands"][st["turn"]]
            if not st["trick"]:
                assert text in (g["phases"]["lead"], g["phases"]["joker_lead"]), text
            else:
                led = st["trick"][0]["card"][-1]
                has = any(c != "JK" and c[-1] == led for c in mine)
                # Why only some cards are playable: the suit led must be followed.
                assert text.startswith("You must follow" if has else "You hold no"), text
                if has:
                    shot(page, "learn-quinto-follow.png")
        no_horizontal_scroll(page)

    play_hand(page, tap=True, on_turn=on_turn)
    shown: list[str] = page.evaluate("window.__lessons")
    log = page.evaluate("window.quintet.log")
    quint_tricks = [e for e in log if e["kind"] == "trick" and e.get("points")]
    if quint_tricks:  # a trick that held a quint was explained as it finished
        assert any(t.startswith("A quint (") for t in shown), shown
        assert any("your side" in t or "the side of" in t for t in shown), shown
    assert any("The hand is over" in t for t in shown), shown
    shot(page, "learn-quinto-end.png")


def test_a_quintus_lesson_explains_the_play(pages: Pages) -> None:
    page = start_lesson(pages, "Quintus")
    g = GUIDE["quintus"]
    seen: set[str] = set()

    def on_turn(p: Page, phase: str) -> None:
        page.wait_for_selector("#lesson:not([hidden])")
        text = page.locator("#lesson").inner_text().split("\n")[-1]
        if phase in g["phases"] and phase != "play":
            assert text == g["phases"][phase]
        elif phase == "play":
            assert text.startswith(("You lead", "You must follow", "You hold no")), text
            seen.add(text.split(":")[0].split(",")[0])
        no_horizontal_scroll(page)

    play_hand(page, tap=True, on_turn=on_turn)
    assert seen, "no card decision was explained"
    shot(page, "learn-quintus-end.png")


def test_the_lobby_offers_a_lesson_per_game_and_the_rules(pages: Pages) -> None:
    page = pages.open(PHONE, touch=True)
    page.wait_for_selector("#lessons button[data-lesson]")
    assert page.locator("#lessons button[data-lesson]").count() == 2
    assert page.locator(".lessons-panel a[href='/rules']").count() == 1
    no_horizontal_scroll(page)
    shot(page, "learn-lobby.png")
