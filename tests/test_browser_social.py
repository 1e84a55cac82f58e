"""The table's social side in a real headless Chromium (Debian's, driven by Playwright).

The lobby trap (Quintus, "Your seat" 4), the Invite button with its QR code, two people
chatting (markup stays text) and playing at one table, a take-back refused and one
accepted, a guaranteed claim accepted, a rematch, a dummy series of three games with the
lone seat moving left, the turn clock, the draw, the signals' meanings and the rules
page, at the desktop (1280x800) and phone (390x844) sizes. Screenshots are saved in
``test-artifacts/social-*.png``. Fixtures and helpers are tests/test_browser.py's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from test_browser import (
    ARTIFACTS,
    MY_MOVE,
    WAIT_MS,
    browser,
    create_table,
    play,
    seq,
    wait_changed,
)

from quintet.actions import action_from_json
from quintet.server.claims import check_claim, claimable
from quintet.server.testing import ServerProcess, person_cookie
from quintet.table import Table

__all__ = ["browser"]  # the shared Chromium fixture (test_browser's), used by name

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError:  # pragma: no cover - the browser fixture says why it skips
    sync_playwright = None  # type: ignore[assignment]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    d = tmp_path_factory.mktemp("social")
    ARTIFACTS.mkdir(exist_ok=True)
    srv = ServerProcess(
        f"sqlite:///{d / 'b.db'}",
        bot_delay=0.05,
        extra=["--hint-seconds", "0.2"],
        log_path=str(ARTIFACTS / "browser-social-server.log"),
    )
    with srv:
        yield srv


class Tab:
    """A browser context of a given size; any JavaScript error fails the test."""

    def __init__(self, browser: Browser, viewport: dict[str, int]) -> None:
        small = viewport["width"] < 500
        self.context = browser.new_context(viewport=viewport, has_touch=small)  # type: ignore[arg-type]
        self.page: Page = self.context.new_page()
        self.page.set_default_timeout(WAIT_MS)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.on(
            "console",
            lambda m: self.errors.append(f"console: {m.text}") if m.type == "error" else None,
        )

    def close(self) -> None:
        self.context.close()
        assert not self.errors, self.errors


@pytest.fixture
def open_tab(browser: Browser) -> Iterator[Any]:
    tabs: list[Tab] = []

    def make(viewport: dict[str, int] = DESKTOP) -> Page:
        t = Tab(browser, viewport)
        tabs.append(t)
        return t.page

    yield make
    for t in tabs:
        t.close()


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"social-{name}.png"), full_page=True)


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"] + 1, width  # type: ignore[index]


def social_fits(page: Page) -> None:
    """The social section has no sideways overflow of its own.

    (Whether the table page fits a phone is its layout's business, issue 14 item 1.)
    """
    box = page.evaluate(
        "(() => { const s = document.querySelector('#social');"
        " return [s.scrollWidth, s.clientWidth]; })()"
    )
    assert box[0] <= box[1] + 1, box


def notices(page: Page) -> list[str]:
    return [
        str(x)
        for x in page.evaluate(
            "window.quintet.log.filter(e => e.kind === 'notice').map(e => e.text)"
        )
    ]


def wait_notice(page: Page, text: str) -> None:
    page.wait_for_function(
        "t => window.quintet.log.some(e => e.kind === 'notice' && e.text.includes(t))", arg=text
    )


def my_turn(page: Page) -> None:
    page.wait_for_function("() => !!document.querySelector('#turnline.mine')")


def click_first(page: Page) -> None:
    """Make the first decision the page offers: a legal card or a decision button."""
    before = seq(page)
    cards = page.locator("button.card.legal:not([disabled])")
    decisions = page.locator("#actions .group:not(.signals) button[data-n]:not([disabled])")
    for _ in range(100):
        if cards.count():
            cards.first.click()
            break
        if decisions.count():
            decisions.first.click()
            break
        page.wait_for_timeout(50)
    wait_changed(page, before)


# ---------------------------------------------------------------- the lobby


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_lobby_trap_quintus_seat_4_plays_at_once(
    browser: Browser, server: ServerProcess, open_tab: Any, size: str
) -> None:
    page = open_tab(DESKTOP if size == "desktop" else PHONE)
    page.goto(server.http + "/")
    page.select_option("#game", "quintus")
    page.select_option("#myseat", "4")
    # Your seat shows "you"; seat 0 is a bot, not an open seat nobody was invited to.
    assert page.locator("select[name=seat4]").input_value() == "you"
    assert page.locator("select[name=seat0]").input_value() == "heuristic"
    assert page.locator("#open-note").inner_text() == ""
    page.fill("input[name=name]", "Ann")
    shot(page, f"lobby-trap-form-{size}")
    page.click("#create-btn")
    page.wait_for_url(re.compile(r"/table/[^/?]+$"))
    page.wait_for_function(
        "() => window.quintet.state && window.quintet.state.status === 'playing'"
    )
    assert page.evaluate("window.quintet.me.seat") == 4
    assert page.evaluate("window.quintet.seats.filter(s => s.kind === 'open').length") == 0
    # The lobby says who is quintus first (seat 4 deals... the seat to the dealer's right).
    page.goto(server.http + "/")
    page.wait_for_selector("#tables .meta.first")
    assert "is quintus first" in page.locator("#tables li").first.inner_text()
    assert page.locator("#rules-link").count() == 1
    shot(page, f"lobby-{size}")
    no_sideways_scroll(page)


def test_the_rules_page_from_the_lobby(
    browser: Browser, server: ServerProcess, open_tab: Any
) -> None:
    for size, vp in (("desktop", DESKTOP), ("phone", PHONE)):
        page = open_tab(vp)
        page.goto(server.http + "/")
        page.click("#rules-link")
        page.wait_for_url(re.compile(r"/rules$"))
        assert page.locator("h1").first.inner_text() == "quintet"
        assert "Rules of Quinto and Quintus" in page.locator("main h1").first.inner_text()
        assert page.locator("main table").count() > 5
        shot(page, f"rules-{size}")
        no_sideways_scroll(page)
        page.click("#back")
        page.wait_for_url(server.http + "/")


# ---------------------------------------------------- two people at one table


def test_two_people_invite_chat_take_back_and_play(
    browser: Browser, server: ServerProcess, open_tab: Any
) -> None:
    ann = open_tab(DESKTOP)
    ann.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.http)
    ann.goto(server.http + "/")
    ann.select_option("#game", "quinto")
    ann.select_option("#myseat", "1")  # East: first to act after North's deal
    ann.select_option("select[name=seat0]", "open")
    assert "1 seat for people" in ann.locator("#open-note").inner_text()
    ann.fill("input[name=name]", "Ann")
    ann.click("#create-btn")
    ann.wait_for_url(re.compile(r"/table/[^/?]+$"))
    ann.wait_for_selector("#invite-btn.primary")
    assert "Invite a friend (1 open seat)" in ann.locator("#invite-btn").inner_text()
    shot(ann, "invite-waiting-desktop")
    ann.click("#invite-btn")
    ann.wait_for_selector("#invite-qr")
    ann.wait_for_function("() => document.querySelector('#invite-qr').naturalWidth > 0")
    url = ann.locator("#invite-url").input_value()
    assert re.search(r"/table/[^?]+\?seat=0&invite=", url), url
    ann.wait_for_selector(".copied:has-text('Link copied')")
    assert ann.evaluate("navigator.clipboard.readText()") == url
    shot(ann, "invite-qr-desktop")

    # Bea opens the link on her phone and sits down.
    bea = open_tab(PHONE)
    bea.goto(url)
    bea.wait_for_selector("#joinbox:not([hidden])")
    bea.fill("#join-name", "Bea")
    bea.click("#join-btn")
    bea.wait_for_function("() => window.quintet.me.seat === 0")
    ann.wait_for_function("() => window.quintet.state.status === 'playing'")

    # They chat; markup is shown as text and never runs.
    evil = '<img src=x onerror="window.pwned=1">hello'
    ann.fill("#chat-input", evil)
    ann.click("#chat-send")
    bea.wait_for_selector("#chat-log li .chat-text")
    assert bea.locator("#chat-log li .chat-text").first.inner_text() == evil
    assert bea.locator("#chat-log img").count() == 0 and ann.locator("#chat-log img").count() == 0
    assert bea.evaluate("window.pwned") is None
    bea.fill("#chat-input", "good luck, Ann")
    bea.press("#chat-input", "Enter")
    ann.wait_for_selector("#chat-log li:nth-child(2)")
    assert "Bea (North)" in ann.locator("#chat-log li").nth(1).inner_text()
    shot(ann, "chat-desktop")
    shot(bea, "chat-phone")
    social_fits(bea)

    # Ann decides (East), the bots go, then Bea (North) is to decide: Ann asks to take
    # back; Bea refuses; Ann asks again and Bea accepts: Ann decides again.
    my_turn(ann)
    click_first(ann)
    my_turn(bea)
    ann.click("#takeback-btn")
    bea.wait_for_selector("#question #q-refuse")
    assert "asks to take back" in bea.locator("#question").inner_text()
    shot(bea, "takeback-question-phone")
    bea.click("#q-refuse")
    wait_notice(ann, "take-back is refused (North refuses)")
    bea.wait_for_selector("#question", state="hidden")
    ann.click("#takeback-btn")
    bea.wait_for_selector("#question #q-accept")
    bea.click("#q-accept")
    wait_notice(ann, "East takes back")
    my_turn(ann)
    shot(ann, "takeback-accepted-desktop")
    # And they play on: whoever is to play, a dozen decisions.
    moves = 0
    while moves < 12:
        for p in (ann, bea):
            if p.locator("#turnline.mine").count():
                click_first(p)
                moves += 1
        ann.wait_for_timeout(30)
    social_fits(bea)


# ------------------------------------------------------------------- claims


def _oracle(page: Page, seed: int) -> Any:
    """The hand as the server has it: dealt from the seed, the page's log replayed."""
    hand = page.evaluate("window.quintet.state.hand.number")
    t = Table.new("quinto", seats=[None] * 4, seed=seed, options={"target": 1000}, deal=False)
    for _ in range(hand + 1):
        st = t.deal()
        if _ < hand:  # pragma: no cover - the claim is looked for in the first hand
            raise AssertionError("only the first hand is replayed")
    for e in page.evaluate(
        "window.quintet.log.filter(e => e.kind === 'action').map(e => e.action)"
    ):
        seat, a = action_from_json(e, 4)
        st.act(a, seat)
    return st


def test_a_guaranteed_claim_is_accepted(
    browser: Browser, server: ServerProcess, open_tab: Any
) -> None:
    cookie = person_cookie(server.http)
    for seed in range(1, 30):
        body = {
            "game": "quinto",
            "seats": ["open"] + ["heuristic"] * 3,
            "seed": seed,
            "options": {"target": 1000},
            "join": {"seat": 0, "name": "Ann"},
        }
        r = httpx.post(server.http + "/api/tables", json=body, cookies={"quintet_person": cookie})
        assert r.status_code == 201, r.text
        t = r.json()
        page = open_tab(DESKTOP)
        page.context.add_cookies([{"name": "quintet_person", "value": cookie, "url": server.http}])
        page.goto(server.http + "/")
        page.evaluate(
            "([k, v]) => localStorage.setItem(k, v)", [f"quintet:token:{t['id']}", t["token"]]
        )
        page.goto(server.http + f"/table/{t['id']}")
        while True:
            page.wait_for_function(MY_MOVE)
            if page.evaluate("window.quintet.state.status") != "playing":
                break
            st = _oracle(page, seed)
            if (
                claimable(st)
                and st.tricks_played >= 7
                and check_claim(st, [0, 2], 50_000)["guaranteed"]
            ):
                shot(page, "claim-before-desktop")
                page.click("#claim-btn")
                page.wait_for_selector("#social-note:has-text('accepted')")
                page.wait_for_function("() => window.quintet.state.status !== 'playing'")
                wait_notice(page, "claims the rest of the hand for North and South")
                shot(page, "claim-accepted-desktop")
                return
            click_first(page)
    raise AssertionError("no guaranteed claim came up")


# --------------------------------------------------------- rematch and series


def test_a_rematch_of_quintus(browser: Browser, server: ServerProcess, open_tab: Any) -> None:
    page = open_tab(DESKTOP)
    tid = create_table(page, server.http, "quintus", "base", seat=2, hands=1)
    page.wait_for_selector("#signals dl")
    assert "strong or high-value cards" in page.locator("#signals").inner_text()
    play(page)
    page.wait_for_selector("#summary #rematch-end")
    shot(page, "rematch-end-desktop")
    page.click("#rematch-end")
    page.wait_for_selector("#summary a#rematch-end")
    page.click("#rematch-end")
    page.wait_for_url(re.compile(r"/table/[^/?]+$"))
    assert not page.url.endswith(tid)
    page.wait_for_function(
        "() => window.quintet.state && window.quintet.state.status === 'playing'"
    )
    assert page.evaluate("window.quintet.me.seat") == 2
    assert page.evaluate("window.quintet.config.series.number") == 2
    assert page.evaluate("window.quintet.state.hand.dealer") == 1  # the deal passed on
    shot(page, "rematch-new-desktop")


def test_a_dummy_series_of_three_games_moves_the_lone_seat(
    browser: Browser, server: ServerProcess, open_tab: Any
) -> None:
    page = open_tab(DESKTOP)
    page.goto(server.http + "/")
    page.select_option("#game", "quinto")
    page.select_option("#variant", "dummy")
    page.fill("input[name=target]", "30")
    page.fill("input[name=dummy_handicap]", "0")
    page.select_option("#lone", "0")
    page.select_option("#myseat", "0")
    page.fill("input[name=name]", "Ann")
    page.click("#create-btn")
    page.wait_for_url(re.compile(r"/table/[^/?]+$"))
    lones, mine = [], []
    for game in range(3):
        page.wait_for_function("() => window.quintet.config && window.quintet.state")
        lones.append(page.evaluate("window.quintet.config.lone_seat"))
        mine.append(page.evaluate("window.quintet.me.seat"))
        play(page)
        page.wait_for_selector("#summary #rematch-end")
        shot(page, f"series-game{game + 1}-desktop")
        social_fits(page)
        page.click("#rematch-end")
        page.wait_for_selector("#summary a#rematch-end")
        page.click("#rematch-end")
        page.wait_for_url(re.compile(r"/table/[^/?]+$"))
        page.wait_for_function(
            "() => window.quintet.state && window.quintet.state.status !== 'waiting'"
        )
    assert lones == [0, 1, 2]
    assert mine == [0, 0, 3]  # Ann keeps her seat until it is the dummy's
    page.wait_for_selector("#series li:nth-child(3)")
    assert "Game 4 of a series" in page.locator("#series").inner_text()
    shot(page, "series-standing-desktop")


# ---------------------------------------------------------- clock and draw


def test_the_turn_clock_and_the_draw(
    browser: Browser, server: ServerProcess, open_tab: Any
) -> None:
    page = open_tab(DESKTOP)
    page.goto(server.http + "/")
    page.select_option("#game", "quinto")
    page.select_option("#variant", "partnership")
    page.fill("#turn-seconds", "10")
    page.check("#draw")
    page.select_option("#myseat", "0")
    page.fill("input[name=name]", "Ann")
    page.click("#create-btn")
    page.wait_for_url(re.compile(r"/table/[^/?]+$"))
    page.wait_for_selector("#drawn:not([hidden])")
    assert "The draw for partners" in page.locator("#drawn").inner_text()
    wait_notice(page, "The draw: ")
    my_turn(page)
    page.wait_for_selector("#clock:not([hidden])")
    assert "s left" in page.locator("#clock").inner_text()
    shot(page, "clock-desktop")
    wait_notice(page, "ran out: the heuristic bot played for")
    assert any("10 s ran out" in n for n in notices(page))
