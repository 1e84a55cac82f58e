"""The table's look, layouts and pace in a real headless Chromium (Debian's, as in
``test_browser.py``, whose fixtures and rules this file shares).

Phones (390 x 844 portrait, 844 x 390 landscape), a tablet (820 x 1180) and a desktop
(1280 x 800): no horizontal scrolling in any phase of any variant, every seat on the
screen, cards at least 44 px wide, a whole hand played by taps on a phone; at 1280 x 800
the decisions and the last trick inside the window. Pace: cards fly to the trick and to
its winner (not with ``prefers-reduced-motion``), a finished trick stays until the next
card or a click and names its winner and its quints, the bot speed setting, sounds off
by default. The small things: the log's lines, Quintus's teams named by their members,
the bidding settlement explained, the replay's trick table, "sans atout", the
terminal's suit order, the grammar of a lone winner, the dummy game's form, the
open-nil hand's size and the Rules links. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from test_browser import (
    ARTIFACTS,
    WAIT_MS,
    browser,
    finished_game,
)

from quintet.cards import parse_card
from quintet.server.testing import ServerProcess
from quintet.tui.render import hand_order

__all__ = ["browser"]  # the shared Chromium fixture (test_browser's), used by name

try:
    from playwright.sync_api import Browser, Page, ViewportSize, sync_playwright
except ImportError:  # pragma: no cover - the dev extra installs it
    sync_playwright = None  # type: ignore[assignment]

PHONE: ViewportSize = {"width": 390, "height": 844}
LANDSCAPE: ViewportSize = {"width": 844, "height": 390}
TABLET: ViewportSize = {"width": 820, "height": 1180}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
VARIANTS = [
    ("quinto", "partnership"),
    ("quinto", "dummy"),
    ("quintus", "base"),
    ("quintus", "bidding"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    d = tmp_path_factory.mktemp("layout")
    ARTIFACTS.mkdir(exist_ok=True)
    srv = ServerProcess(
        f"sqlite:///{d / 'l.db'}",
        bot_delay=0.05,
        extra=["--hint-seconds", "0.2"],
        log_path=str(ARTIFACTS / "browser-layout-server.log"),
    )
    with srv:
        yield srv


class Pages:
    """The browser contexts a test opens; any JavaScript error fails the test."""

    def __init__(self, browser: Browser, server: ServerProcess) -> None:
        self.browser = browser
        self.server = server
        self.contexts: list[Any] = []
        self.errors: list[str] = []

    def open(self, viewport: ViewportSize, *, touch: bool = False, reduced: bool = False) -> Page:
        ctx = self.browser.new_context(
            viewport=viewport,
            has_touch=touch,
            is_mobile=touch,
            reduced_motion="reduce" if reduced else "no-preference",
        )
        self.contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(WAIT_MS)
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        page.on(
            "console",
            lambda m: self.errors.append(f"console: {m.text}") if m.type == "error" else None,
        )
        page.goto(self.server.http + "/")  # the person cookie
        return page

    def close(self) -> None:
        for c in self.contexts:
            c.close()
        assert not self.errors, self.errors


@pytest.fixture
def pages(browser: Browser, server: ServerProcess) -> Iterator[Pages]:
    p = Pages(browser, server)
    yield p
    p.close()


def shot(page: Page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def new_table(
    page: Page,
    game: str,
    variant: str,
    *,
    seat: int | None = 0,
    seed: int = 11,
    options: dict[str, Any] | None = None,
    bots: str = "heuristic",
    lone: int | None = None,
) -> str:
    """Create a table through the API from the page (bots in the other seats), open it."""
    n = 4 if game == "quinto" else 5
    opts = (
        options if options is not None else ({"target": 1000} if game == "quinto" else {"hands": 1})
    )
    body: dict[str, Any] = {
        "game": game,
        "variant": variant,
        "options": opts,
        "seed": seed,
        "seats": ["open" if s == seat else bots for s in range(n)],
    }
    if variant == "dummy":
        body["lone_seat"] = 0 if lone is None else lone
    if seat is not None:
        body["join"] = {"seat": seat, "name": "Ann"}
    out = page.evaluate(
        """async (body) => {
          const r = await fetch('/api/tables', {method: 'POST',
            headers: {'content-type': 'application/json'}, body: JSON.stringify(body)});
          const out = await r.json();
          if (out.token) localStorage.setItem('quintet:token:' + out.id, out.token);
          localStorage.setItem('quintet:invites:' + out.id, JSON.stringify(out.seats));
          return out;
        }""",
        body,
    )
    page.goto(f"{page.url.split('/', 3)[0]}//{page.url.split('/', 3)[2]}{out['url']}")
    page.wait_for_selector("#conn[data-state=open]")
    return str(out["id"])


MY_MOVE = (
    "() => !!document.querySelector('#turnline.mine') || !document.querySelector('#summary').hidden"
)
LEGAL_CARDS = "button.card.legal:not([disabled])"
DECISIONS = "#actions .group:not(.signals) button[data-n]:not([disabled])"


def seq(page: Page) -> str:
    return str(page.evaluate("document.body.dataset.seq || ''"))


def no_horizontal_scroll(page: Page) -> None:
    width, inner = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
    assert width <= inner, (width, inner)


def inside_width(page: Page, selector: str) -> None:
    """Each element matched lies within the window's width (visible without sideways scroll)."""
    inner = page.evaluate("innerWidth")
    for box in page.locator(selector).evaluate_all(
        "es => es.map(e => { const r = e.getBoundingClientRect();"
        " return [r.left, r.right, r.width, e.dataset.seat || e.dataset.card || e.textContent]; })"
    ):
        assert box[0] >= -0.5 and box[1] <= inner + 0.5 and box[2] > 0, (selector, box, inner)


def check_screen(page: Page, *, cards: bool = True) -> None:
    """No sideways scrolling; every seat, card and decision within the window's width."""
    no_horizontal_scroll(page)
    n = page.evaluate("window.quintet.G.n")
    assert page.locator("#felt .seat").count() == n
    inside_width(page, "#felt .seat")
    inside_width(page, "#actions button")
    if cards:
        inside_width(page, "#myhand .card, #felt .seat .hand button.card")


def card_widths(page: Page, selector: str) -> list[float]:
    return [
        float(w)
        for w in page.locator(selector).evaluate_all(
            "es => es.map(e => e.getBoundingClientRect().width)"
        )
    ]


def advance(page: Page, until: str, max_moves: int = 60) -> None:
    """Take the first legal card or decision on each turn until ``until`` (JS) holds."""
    for _ in range(max_moves):
        page.wait_for_function(f"() => ({until})() || ({MY_MOVE})()")
        if page.evaluate(until):
            return
        before = seq(page)
        target = page.locator(LEGAL_CARDS)
        (target.first if target.count() else page.locator(DECISIONS).first).click()
        page.wait_for_function("s => (document.body.dataset.seq || '') !== s", arg=before)
    raise AssertionError(f"not reached in {max_moves} moves: {until}")


def play_hand(
    page: Page,
    *,
    tap: bool = False,
    on_turn: Any = None,
    max_moves: int = 200,
) -> dict[str, Any]:
    """Play the first legal card or decision on each turn until the hand's summary opens.

    Returns the phases seen on the player's turns and the moves made.
    """
    seen: dict[str, Any] = {"phases": [], "moves": 0}
    for _ in range(max_moves):
        page.wait_for_function(MY_MOVE)
        if page.locator("#summary").is_visible():
            return seen
        phase = page.evaluate("window.quintet.state.hand.phase")
        if phase not in seen["phases"]:
            seen["phases"].append(phase)
        if on_turn is not None:
            on_turn(page, phase)
            if page.locator("#summary").is_visible():
                return seen
        before = seq(page)
        cards = page.locator(LEGAL_CARDS)
        decisions = page.locator(DECISIONS)
        target = cards.first if cards.count() else decisions.first if decisions.count() else None
        if target is None:
            page.wait_for_timeout(50)
            continue
        if tap:
            target.tap()
        else:
            target.click()
        seen["moves"] += 1
        page.wait_for_function("s => (document.body.dataset.seq || '') !== s", arg=before)
    raise AssertionError(f"the hand did not end in {max_moves} moves")


# ------------------------------------------------------------------- phones


@pytest.mark.parametrize(("game", "variant"), VARIANTS)
def test_a_whole_hand_by_taps_on_a_phone(pages: Pages, game: str, variant: str) -> None:
    """390 x 844, touch: every phase fits the width, every seat shows, every card is a
    tap target 44 px wide or more, and the whole hand is played by taps."""
    page = pages.open(PHONE, touch=True)
    new_table(page, game, variant)
    shots: set[str] = set()

    def look(page: Page, phase: str) -> None:
        check_screen(page)
        legal = card_widths(page, LEGAL_CARDS)
        mine = card_widths(page, "#myhand button.card")
        assert mine and min(mine) >= 44, mine
        if legal:
            assert min(legal) >= 44, legal
        buttons = page.locator("#actions button").evaluate_all(
            "bs => bs.map(b => [b.getBoundingClientRect().height, b.getBoundingClientRect().width])"
        )
        assert all(h >= 40 and w >= 40 for h, w in buttons), buttons
        if phase not in shots:
            shots.add(phase)
            shot(page, f"phone-{game}-{variant}-{phase}.png")

    seen = play_hand(page, tap=True, on_turn=look)
    assert "play" in seen["phases"] and seen["moves"] >= 8, seen
    page.wait_for_selector("#summary:not([hidden]) .summary")
    no_horizontal_scroll(page)
    shot(page, f"phone-{game}-{variant}-summary.png")
    # The page below the felt (scores, sheet, log) fits the width too.
    # Quick taps never zoomed the page (a double tap on a card would).
    assert page.evaluate("visualViewport.scale") == 1
    page.click("#summary-close")
    for box in ("#playersbox", "#sheetbox"):
        page.evaluate(f"document.querySelector('{box}').open = true")
    no_horizontal_scroll(page)
    shot(page, f"phone-{game}-{variant}-side.png")


@pytest.mark.parametrize(
    ("name", "viewport"), [("landscape", LANDSCAPE), ("tablet", TABLET), ("desktop", DESKTOP)]
)
@pytest.mark.parametrize(("game", "variant"), VARIANTS)
def test_layouts_fit_every_screen(
    pages: Pages, game: str, variant: str, name: str, viewport: ViewportSize
) -> None:
    """A landscape phone, a tablet and a desktop: no sideways scrolling, every seat and
    card within the width, in the first decision and in the play."""
    page = pages.open(viewport, touch=name != "desktop")
    new_table(page, game, variant, seed=23)
    page.wait_for_function(MY_MOVE)
    check_screen(page)
    shot(page, f"{name}-{game}-{variant}-start.png")
    for _ in range(40):  # on to the first card of the play
        page.wait_for_function(MY_MOVE)
        if page.locator(LEGAL_CARDS).count():
            break
        before = seq(page)
        page.locator(DECISIONS).first.click()
        page.wait_for_function("s => (document.body.dataset.seq || '') !== s", arg=before)
    page.wait_for_selector(LEGAL_CARDS)
    check_screen(page)
    assert min(card_widths(page, "#myhand button.card")) >= 44
    shot(page, f"{name}-{game}-{variant}-play.png")


def in_window(page: Page, selector: str) -> None:
    """The element is wholly inside the window, the page not scrolled."""
    assert page.evaluate("scrollY") == 0
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= size["width"], (selector, box)
    assert box["y"] + box["height"] <= size["height"], (selector, box)


def test_desktop_decisions_and_last_trick_in_the_window(pages: Pages) -> None:
    """1280 x 800: Pass and Double, and the Last-trick panel, wholly visible unscrolled."""
    page = pages.open(DESKTOP)
    new_table(page, "quinto", "partnership", seed=5)
    page.wait_for_selector("#actions button[data-act=pass]:not([disabled])")
    for act in ("pass", "double"):
        in_window(page, f"#actions button[data-act={act}]")
    shot(page, "desktop-quinto-doubling.png")
    # Play on until a trick is over, then open the last trick.
    for _ in range(30):
        page.wait_for_function(MY_MOVE)
        if page.evaluate("window.quintet.state.hand.tricks_played") > 0:
            break
        before = seq(page)
        target = page.locator(LEGAL_CARDS)
        (target.first if target.count() else page.locator(DECISIONS).first).click()
        page.wait_for_function("s => (document.body.dataset.seq || '') !== s", arg=before)
    page.evaluate("scrollTo(0, 0)")
    page.click("#lastbtn")
    page.wait_for_selector("#lasttrick:not([hidden]) h2")
    in_window(page, "#lasttrick")
    in_window(page, "#lastbtn")
    in_window(page, "#myhand .hand")
    shot(page, "desktop-quinto-last-trick.png")
    page.keyboard.press("Escape")
    assert page.locator("#lasttrick").is_hidden()


# --------------------------------------------------------------------- pace

# Every state shown (body[data-seq] set) with the time and what the trick showed.
RECORD = """() => {
  window.__shown = [];
  new MutationObserver(() => {
    const st = window.quintet.state;
    const msg = document.querySelector('#trickmsg');
    window.__shown.push({t: performance.now(), seq: st.seq,
      trick: st.hand ? st.hand.trick.length : 0, played: st.hand ? st.hand.tricks_played : 0,
      turn: st.hand ? st.hand.turn : null,
      flash: !!window.quintet.flash, msg: msg ? msg.textContent : null});
  }).observe(document.body, {attributes: true, attributeFilter: ['data-seq']});
}"""


# The most cards seen at once on their way from the felt to a trick's winner.
GOING = """() => {
  window.__going = 0;
  const gone = document.querySelector('#trickgone');
  new MutationObserver(() => {
    const n = gone.querySelectorAll('.played.going').length;
    window.__going = Math.max(window.__going, n);
  }).observe(gone, {childList: true});
}"""


def test_a_finished_trick_stays_until_the_next_card_or_a_click(pages: Pages) -> None:
    """The trick won stays, its winner and quints named on it; a click clears it and its
    cards go to the winner; the summary lists the tricks that held quints."""
    page = pages.open(DESKTOP)
    new_table(page, "quinto", "partnership", seed=3)
    page.evaluate(RECORD)
    cleared = {"done": False}

    def on_turn(page: Page, phase: str) -> None:
        st = page.evaluate("window.quintet.state.hand")
        if cleared["done"] or phase != "play" or st["trick"] or not st["tricks_played"]:
            return
        # Our lead after a trick: the finished trick lies there, named, and stays.
        assert page.locator("#trick.flash .played").count() == 4
        assert page.locator("#trick .played.winner").count() == 1
        text = page.locator("#trickmsg").inner_text()
        assert "wins the trick" in text, text
        page.wait_for_timeout(1200)
        assert page.locator("#trick.flash .played").count() == 4
        shot(page, "pace-trick-stays.png")
        # The cards on their way are gone 600 ms after the click: counted as they come
        # (a loaded machine can take longer than that to ask after the click).
        page.evaluate(GOING)
        page.click("#trick")
        assert page.locator("#trick .played").count() == 0
        assert page.locator("#trickmsg").inner_text() == ""
        assert page.evaluate("window.__going") == 4  # on their way to the winner
        page.wait_for_function("() => !document.querySelector('#trickgone .played')")
        cleared["done"] = True

    play_hand(page, on_turn=on_turn)
    assert cleared["done"], "no lead of ours after a finished trick"
    shown = page.evaluate("window.__shown")
    log = page.evaluate("window.quintet.log")
    quint_tricks = [e for e in log if e["kind"] == "trick" and e.get("points")]
    assert quint_tricks, "this deal has no quint: choose another seed"
    # Every finished trick was named on the felt, with its quints when it had some.
    messages = [s["msg"] for s in shown if s["msg"]]
    assert any("quints" in m and "points" in m for m in messages), messages
    # Every next card came after the finished trick was shown (no trick went unseen).
    for a, b in itertools.pairwise(shown):
        if a["flash"] and b["trick"] == 1:
            assert b["seq"] > a["seq"]
    # The summary names the tricks that held quints.
    items = page.locator("#summary [data-scored=quints] li")
    tricks = [e for e in log if e["kind"] == "trick"]
    want = [tricks.index(e) + 1 for e in quint_tricks]
    got = [
        int(x) for x in items.evaluate_all("ls => ls.map(l => l.dataset.trick)") if x != "cachette"
    ]
    assert got == want, (got, want)
    assert "quints" in items.first.inner_text()
    shot(page, "pace-summary-quints.png")


def gaps_after(shown: list[dict[str, Any]], me: int = 0) -> tuple[list[float], list[float]]:
    """The seconds before each bot card shown: after a card, after a finished trick."""
    cards: list[float] = []
    tricks: list[float] = []
    for a, b in itertools.pairwise(shown):
        bot_card = b["trick"] == a["trick"] + 1 or (b["played"] == a["played"] + 1)
        if not bot_card or a["turn"] == me or a["turn"] is None:
            continue
        (tricks if a["flash"] else cards).append((b["t"] - a["t"]) / 1000)
    return cards, tricks


def test_the_bot_speed_setting_paces_bot_cards(pages: Pages) -> None:
    """Kept in localStorage; "fast" shows a bot's card 0.3 s after the last change at the
    least, and a bot's lead 1 s after a finished trick."""
    page = pages.open(DESKTOP)
    new_table(page, "quinto", "partnership", seed=8)
    assert page.locator("#pace").input_value() == "table"
    page.click("#settings summary")
    page.select_option("#pace", "fast")
    shot(page, "pace-settings.png")
    assert page.evaluate("localStorage.getItem('quintet:pace')") == "fast"
    page.reload()
    page.wait_for_selector("#conn[data-state=open]")
    assert page.locator("#pace").input_value() == "fast"
    page.evaluate(RECORD)
    play_hand(page)
    cards, tricks = gaps_after(page.evaluate("window.__shown"))
    assert len(cards) >= 10 and len(tricks) >= 2, (cards, tricks)
    assert min(cards) >= 0.28, cards
    assert min(tricks) >= 0.95, tricks


def test_cards_move_unless_reduced_motion_is_asked(pages: Pages) -> None:
    """Cards fly in (a CSS animation) and go to the winner (transitions); with
    prefers-reduced-motion neither."""
    for reduced in (False, True):
        page = pages.open(DESKTOP, reduced=reduced)
        new_table(page, "quinto", "partnership", seed=3)
        advance(page, "() => !!document.querySelector('#trick .played')")
        anim = page.locator("#trick .played").first.evaluate(
            "e => getComputedStyle(e).animationName"
        )
        assert anim == ("none" if reduced else "fly-in"), anim
        card = page.locator("#myhand button.card").first.evaluate(
            "e => getComputedStyle(e).transitionDuration"
        )
        assert (card == "0s") == reduced, card


def test_sounds_are_off_by_default_and_beep_when_on(pages: Pages) -> None:
    """No AudioContext unless the player turns sounds on; then a card and a turn beep."""
    page = pages.open(DESKTOP)
    page.add_init_script(
        "window.__audio = 0; const A = window.AudioContext; window.AudioContext ="
        " class extends A { constructor(...a) { super(...a); window.__audio++; } };"
    )
    new_table(page, "quinto", "partnership", seed=3)
    play_some = 6
    for _ in range(play_some):
        page.wait_for_function(MY_MOVE)
        before = seq(page)
        target = page.locator(LEGAL_CARDS)
        (target.first if target.count() else page.locator(DECISIONS).first).click()
        page.wait_for_function("s => (document.body.dataset.seq || '') !== s", arg=before)
    assert page.evaluate("window.__audio") == 0
    assert page.evaluate("window.quintet.beeps") == []
    page.click("#settings summary")
    page.check("#sounds")
    assert page.evaluate("localStorage.getItem('quintet:sounds')") == "1"
    for _ in range(play_some):
        page.wait_for_function(MY_MOVE)
        before = seq(page)
        target = page.locator(LEGAL_CARDS)
        if not target.count():
            break
        target.first.click()
        page.wait_for_function("s => (document.body.dataset.seq || '') !== s", arg=before)
    page.wait_for_function(MY_MOVE)
    beeps = page.evaluate("window.quintet.beeps")
    assert page.evaluate("window.__audio") == 1
    assert "card" in beeps and "turn" in beeps, beeps


# ----------------------------------------------------------- small things


def test_log_lines_are_one_line_high(pages: Pages) -> None:
    """The log's li.trick is a line of text, not the felt's trick (once 240 px tall)."""
    page = pages.open(DESKTOP)
    new_table(page, "quinto", "partnership", seed=3)
    for _ in range(60):
        page.wait_for_function(MY_MOVE)
        if page.evaluate("window.quintet.state.hand.tricks_played") >= 2:
            break
        before = seq(page)
        target = page.locator(LEGAL_CARDS)
        (target.first if target.count() else page.locator(DECISIONS).first).click()
        page.wait_for_function("s => (document.body.dataset.seq || '') !== s", arg=before)
    page.click("details:has(#log) > summary")
    # Each trick line is as high as its text (one line, two when it names quints).
    rows = page.locator("#log li.trick").evaluate_all(
        """ls => ls.map(l => { const r = document.createRange(); r.selectNodeContents(l);
             return [parseFloat(getComputedStyle(l).height), r.getBoundingClientRect().height,
                     parseFloat(getComputedStyle(l).lineHeight)]; })"""
    )
    assert len(rows) >= 2, rows
    for height, text, line in rows:
        assert height <= text + line and height < 2.5 * line, rows
    line = page.locator("#log li.action").first.evaluate("l => l.getBoundingClientRect().height")
    assert min(r[0] for r in rows) <= line + 1, (rows, line)
    shot(page, "log-lines.png")


def test_quintus_teams_named_by_their_members(pages: Pages) -> None:
    """Seats by /api/info's labels, the quintus shown from the deal, the teams by their
    members (never "team A/B"); the base game's scoring said in the summary."""
    page = pages.open(DESKTOP)
    new_table(page, "quintus", "base", seed=4)
    page.wait_for_function("() => window.quintet.state && window.quintet.state.hand")
    labels = page.evaluate(
        "fetch('/api/info').then(r => r.json()).then(i => i.games.quintus.seat_labels)"
    )
    h = page.evaluate("window.quintet.state.hand")
    q = h["quintus"]
    assert q is not None and h["phase"] in ("trump", "nil", "play")
    page.wait_for_selector(f".seat[data-seat='{q}'] .badge.quintus")
    assert "★ quintus" in page.locator("#contract").inner_text()
    for s in range(5):
        who = page.locator(f".seat[data-seat='{s}'] .who").inner_text()
        assert "Ann" in who if s == 0 else labels[s] in who, (s, who)
    teams = page.evaluate(f"window.quintet.G.teamsOf({q})")
    names = {0: "Ann"} | {s: labels[s] for s in range(1, 5)}
    for team in teams:
        for s in team:
            mate = next(x for x in team if x != s)
            badge = page.locator(f".seat[data-seat='{s}'] .badge.team").inner_text()
            assert names[mate] in badge, (s, badge)
        chip = " & ".join(names[s] for s in sorted(team))
        assert chip in page.locator("#contract").inner_text()
    shot(page, "quintus-teams.png")
    play_hand(page)
    body = page.locator("body").inner_text()
    assert "team A" not in body and "team B" not in body
    assert "scores his own card points" in page.locator("#summary .settlement").inner_text()
    shot(page, "quintus-base-summary.png")


SETTLE = """async ([sm, seats]) => {
  const { Game } = await import('/static/game.js');
  const { summaryNode } = await import('/static/sheet.js');
  const info = await (await fetch('/api/info')).json();
  const G = Game({game: 'quintus', variant: 'bidding', num_seats: 5}, info.games.quintus);
  return summaryNode(G, sm, seats, null, []).querySelector('.settlement').textContent;
}"""


def test_the_bidding_settlement_says_who_pays_whom(pages: Pages) -> None:
    """The rulebook's example (docs/rules.md, Settlement): bid 40, team A 8 and team B 13
    card points: made, each B player pays 8 and each A player 12."""
    page = pages.open(DESKTOP)
    seats = [{"seat": s, "kind": "bot", "level": "heuristic"} for s in range(5)]
    deal = {"hands": [["5S"]] * 5}
    made = {"deal": deal, "dealer": 4, "void": False, "quintus": 0, "contract": 40,
            "trump": "H", "nil": "none", "nil_failed": False, "points": [45, 8, 13],
            "made": True, "scores": [40, -12, -8, -12, -8]}  # fmt: skip
    text = page.evaluate(SETTLE, [made, seats])
    assert "Contract 40 made" in text and "wins 40" in text, text
    assert "seat 2 & seat 4, with more card points, pay the smaller share: 8 each" in text, text
    assert "seat 1 & seat 3 pay the rest: 12 each" in text, text
    failed = made | {"made": False, "points": [20, 8, 13], "scores": [-40, 12, 8, 12, 8]}
    text = page.evaluate(SETTLE, [failed, seats])
    assert "not made" in text and "loses 40" in text, text
    assert "receive the smaller share: 8 each" in text and "receive the rest: 12 each" in text


def test_the_hand_is_sorted_as_the_terminal_sorts_it(pages: Pages) -> None:
    """Hearts, clubs, diamonds, spades, high cards first, trump first (quintet.tui)."""
    page = pages.open(DESKTOP)
    new_table(page, "quintus", "base", seed=4)
    page.wait_for_selector("#myhand button.card")
    page.wait_for_function("() => window.quintet.state.hand.trump !== null", timeout=WAIT_MS)
    trump = page.evaluate("window.quintet.state.hand.trump")
    shown = page.locator("#myhand button.card").evaluate_all("bs => bs.map(b => b.dataset.card)")
    mask = sum(1 << parse_card(c) for c in shown)
    first = "SCDH".index(trump) if trump in ("S", "C", "D", "H") else None
    from quintet.cards import card_str

    assert shown == [card_str(c) for c in hand_order(mask, first)], (shown, trump)


def test_sans_atout_and_an_open_nil_hand_readable(pages: Pages) -> None:
    """The quintus (the seat before the first dealer) names sans atout and declares an
    open nil: "sans atout" everywhere, never "no trump"; a spectator, on a desktop and a
    phone, sees the open hand in cards 44 px wide or more."""
    page = pages.open(DESKTOP)
    tid = new_table(page, "quintus", "base", seat=4, seed=6)
    page.wait_for_selector("#actions button[data-act='trump NT']")
    assert page.locator("#actions button[data-act='trump NT']").inner_text().endswith("Sans atout")
    page.click("#actions button[data-act='trump NT']")
    page.wait_for_selector("#actions button[data-act='nil open']")
    assert "sans atout" in page.locator("#contract").inner_text()
    page.click("#actions button[data-act='nil open']")
    page.wait_for_selector(LEGAL_CARDS)
    for viewport, name in ((DESKTOP, "desktop"), (PHONE, "phone")):
        watcher = pages.open(viewport, touch=name == "phone")
        watcher.goto(f"{pages.server.http}/table/{tid}")
        watcher.wait_for_selector(".seat[data-seat='4'] .hand [data-card]")
        widths = card_widths(watcher, ".seat[data-seat='4'] .hand [data-card]")
        assert len(widths) == 8 and min(widths) >= 44, widths
        no_horizontal_scroll(watcher)
        shot(watcher, f"open-nil-{name}.png")
    play_hand(page)
    for p in (page, *[c.pages[0] for c in pages.contexts[1:]]):
        assert "no trump" not in p.locator("body").inner_text().lower()
    assert "sans atout" in page.locator("#summary").inner_text()


def test_doubling_words_follow_the_legal_choices(pages: Pages) -> None:
    """ "pass or double" when nobody doubled (no redouble offered), as the buttons."""
    page = pages.open(DESKTOP)
    new_table(page, "quinto", "partnership", seed=5)
    page.wait_for_selector("#actions button[data-act=pass]:not([disabled])")
    legal = page.evaluate("window.quintet.state.legal.map(a => a.type)")
    text = page.locator("#turnline").inner_text()
    if "redouble" in legal:
        assert "redouble" in text
    else:
        assert text == "Your turn: pass or double", text
        assert page.locator("#actions button[data-act=redouble]").count() == 0


GRAMMAR = """async ([sm, sheet, variant, lone]) => {
  const { Game } = await import('/static/game.js');
  const { summaryNode, finalResult } = await import('/static/sheet.js');
  const info = await (await fetch('/api/info')).json();
  const G = Game({game: 'quinto', variant, num_seats: 4, lone_seat: lone}, info.games.quinto);
  return [summaryNode(G, sm, null, sheet, []).querySelector('.headline').textContent,
          finalResult(G, sheet, null).querySelector('.headline').textContent];
}"""


def test_a_lone_winner_wins_and_sides_win(pages: Pages) -> None:
    """ "lone North wins the game"; "N-S win the rubber"."""
    page = pages.open(DESKTOP)
    sm = {"deal": {"hands": [[], [], [], []], "cachette": []}, "dealer": 0, "multiplier": 1,
          "quints": [0, 0], "tricks": [30, 20], "won": [6, 4], "hand_points": [30, 20],
          "score": [130, 45], "game_winner": 0, "tied": False, "cachette_side": None}  # fmt: skip
    game = {"number": 1, "hands": [], "winner": 0, "score": [130, 45]}
    dummy = {"kind": "game", "sides": ["lone North", "opponents"], "games": [game],
             "games_won": [1, 0], "winner": 0, "rubber_score": None, "rubber_bonus": 100,
             "over": True}  # fmt: skip
    head, final = page.evaluate(GRAMMAR, [sm, dummy, "dummy", 0])
    assert head == "lone North wins the game" and final == "Match over: lone North wins the game"
    rubber = dummy | {"kind": "rubber", "sides": ["N-S", "E-W"], "games": [game, game],
                      "games_won": [2, 0], "rubber_score": [360, 90]}  # fmt: skip
    head, final = page.evaluate(GRAMMAR, [sm, rubber, "partnership", None])
    assert head == "N-S win the game" and final == "Match over: N-S win the rubber"


def test_no_rubber_bonus_in_the_dummy_game_and_rules_links(pages: Pages) -> None:
    """The dummy game has no rubbers (its option's variants in /api/info); every page's
    header links the Rules page."""
    page = pages.open(DESKTOP)
    schema = page.evaluate(
        "fetch('/api/info').then(r => r.json()).then(i => i.games.quinto.option_schema)"
    )
    bonus = next(o for o in schema if o["name"] == "rubber_bonus")
    page.wait_for_selector("#game option", state="attached")
    for variant in ("partnership", "dummy"):
        page.select_option("#game", "quinto")
        page.select_option("#variant", variant)
        assert page.locator("input[name=rubber_bonus]").is_visible() == (
            variant in bonus["variants"]
        )
    shot(page, "lobby-dummy-form.png")
    assert page.locator("header.top a[href='/rules']").count() == 1
    tid = new_table(page, "quinto", "dummy", seed=2)
    assert page.locator("header.top a[href='/rules']").count() == 1
    page.goto(f"{pages.server.http}/replay/{tid}")  # still in play: 409, the header stays
    page.wait_for_function("() => document.querySelector('#note').textContent !== ''")
    assert page.locator("header.top a[href='/rules']").count() == 1
    pages.errors = [e for e in pages.errors if "409" not in e]


# ------------------------------------------------------------------- replay


def test_the_replay_trick_table_has_a_column_per_seat(pages: Pages, server: ServerProcess) -> None:
    """Columns are the seats, each trick's winner marked; the slider keeps its width."""
    body = {"game": "quintus", "variant": "base", "options": {"hands": 1}, "seats": ["random"] * 5}
    tid, data = finished_game(server, body)
    info = json.loads(pages.open(DESKTOP).evaluate("fetch('/api/info').then(r => r.text())"))[
        "games"
    ]["quintus"]
    page = pages.open(DESKTOP)
    page.goto(f"{server.http}/replay/{tid}")
    page.wait_for_selector("#plays table")
    heads = page.locator("#plays tr:first-child th").all_inner_texts()
    assert heads == ["trick", *info["seat_labels"]], heads
    winners = [
        st["completed_trick"]["winner"]
        for st in data["hands"][0]["steps"]
        if "completed_trick" in st
    ]
    marked = page.locator("#plays td.won").evaluate_all("ts => ts.map(t => Number(t.dataset.seat))")
    assert marked == winners, (marked, winners)
    # Each card in its seat's column.
    plays = [
        st["action"]
        for st in data["hands"][0]["steps"]
        if st.get("action", {}) and st["action"]["type"] == "play"
    ]
    cells = page.locator("#plays td[data-seat] button.pc").evaluate_all(
        "bs => bs.map(b => [Number(b.closest('td').dataset.seat), b.title])"
    )
    assert len(cells) == len(plays)
    for seat, title in cells:
        assert title.startswith(info["seat_labels"][seat]), (seat, title)
    widths = set()
    for _ in range(12):
        page.keyboard.press("ArrowRight")
        widths.add(round(page.locator("#step").bounding_box()["width"]))  # type: ignore[index]
    assert len(widths) == 1, widths
    shot(page, "replay-trick-table.png")
    phone = pages.open(PHONE)
    phone.goto(f"{server.http}/replay/{tid}")
    phone.wait_for_selector("#plays table")
    no_horizontal_scroll(phone)
    shot(phone, "replay-trick-table-phone.png")


def test_the_summary_names_the_premiums_on_the_table_and_the_replay(
    pages: Pages, server: ServerProcess
) -> None:
    """A Quintus hand of heuristic bots (seed 2) whose tricks held two courts, melded:
    the table's summary and the replay's name both tricks."""
    body = {
        "game": "quintus",
        "variant": "base",
        "options": {"hands": 1},
        "seats": ["heuristic"] * 5,
        "seed": 2,
    }
    tid, data = finished_game(server, body)
    steps = data["hands"][0]["steps"]
    melds, tricks = [], 0
    for st in steps:
        tricks += "completed_trick" in st
        if st.get("action") and st["action"]["type"] == "meld":
            melds.append(str(tricks))
    assert len(melds) == 2, "this deal no longer has two melds: choose another seed"
    page = pages.open(DESKTOP)
    page.goto(f"{server.http}/table/{tid}")
    page.wait_for_selector("#summary:not([hidden]) [data-scored=premiums]")
    items = page.locator("#summary [data-scored=premiums] li")
    assert items.evaluate_all("ls => ls.map(l => l.dataset.trick)") == melds
    assert "meld court — 10 points" in items.first.inner_text()
    shot(page, "summary-quintus-premiums.png")
    page.goto(f"{server.http}/replay/{tid}")
    page.wait_for_selector("#felt .seat")
    page.click("#last")
    items = page.locator("#summary-inline [data-scored=premiums] li")
    assert items.evaluate_all("ls => ls.map(l => l.dataset.trick)") == melds
    assert "10 points" in items.first.inner_text()
