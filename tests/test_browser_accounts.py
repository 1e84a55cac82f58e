"""Accounts and friends in the lobby, in a real headless Chromium (Debian's, Playwright).

At the desktop (1280x800) and phone (390x844, touch) sizes: signing up (an error shown
next to its field first), the account's name in the header, changing the password from
the account menu, logging out and in again; two browsers becoming friends, each seeing
the other online (in the lobby, then at a table), one inviting the other to a seat from
the table's invite dialog and the other taking it from the lobby's invitation; and
signing up to play a rated game against bots to its end. No page scrolls sideways.
Screenshots are saved in ``test-artifacts/accounts-*.png``. The Chromium fixture is
tests/test_browser.py's.
"""

from __future__ import annotations

import contextlib
import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from test_browser import ARTIFACTS, WAIT_MS, browser, play

from quintet.server.testing import ServerProcess

__all__ = ["browser"]  # the shared Chromium fixture (test_browser's), used by name

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SIZES = {"desktop": DESKTOP, "phone": PHONE}
PASSWORD = "correct horse"
NEW_PASSWORD = "battery staple"

with contextlib.suppress(ImportError):  # the browser fixture says why it skips
    from playwright.sync_api import Browser, Page


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    d = tmp_path_factory.mktemp("accounts")
    ARTIFACTS.mkdir(exist_ok=True)
    cheap = [  # argon2id at its cheapest; sign-ups from one address; a quick lobby
        "password_time_cost=1",
        "password_memory_kib=8",
        "password_parallelism=1",
        "signups_per_hour=10000",
        "friends_poll_seconds=0.5",
    ]
    srv = ServerProcess(
        f"sqlite:///{d / 'b.db'}",
        bot_delay=0.05,
        extra=[x for item in cheap for x in ("--set", item)],
        log_path=str(ARTIFACTS / "browser-accounts-server.log"),
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
            lambda m: self.errors.append(f"console: {m.text}") if self._counts(m) else None,
        )

    @staticmethod
    def _counts(m: Any) -> bool:
        # A refused request (the 4xx the test asks for) is logged by Chromium as an
        # error "Failed to load resource": it is the page's answer, not a page error.
        return bool(m.type == "error" and "Failed to load resource" not in m.text)

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
    page.screenshot(path=str(ARTIFACTS / f"accounts-{name}.png"), full_page=True)


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"] + 1, width  # type: ignore[index]


def inside(page: Page, selector: str) -> None:
    """The element is wholly on the screen, not cut at either side."""
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    width = page.viewport_size["width"]  # type: ignore[index]
    assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, (selector, box)


def new_name(prefix: str) -> str:
    """A user name of its own (the server is the module's)."""
    return f"{prefix}{secrets.token_hex(3)}"


def sign_up(page: Page, base: str, name: str) -> None:
    page.goto(base + "/")
    page.wait_for_selector("#signin:visible")
    page.fill("#acc-name", name)
    page.fill("#acc-password", PASSWORD)
    page.click("#signup-btn")
    page.wait_for_selector("#account-menu:visible")
    assert page.locator("#account-name").inner_text() == name


def open_menu(page: Page) -> None:
    if not page.locator("#account-menu[open]").count():
        page.click("#account-menu > summary")
    page.wait_for_selector("#logout-btn:visible")


def friend_row(page: Page, name: str, where: str = "#friend-list") -> Any:
    return page.locator(f"{where} li[data-name='{name}']")


# ------------------------------------------------------------------ accounts


@pytest.mark.parametrize("size", SIZES)
def test_sign_up_log_out_and_log_in_again(
    browser: Browser, server: ServerProcess, open_tab: Any, size: str
) -> None:
    page = open_tab(SIZES[size])
    page.goto(server.http + "/")
    page.wait_for_selector("#signin:visible")
    assert page.locator("#friends-panel").is_hidden()
    assert page.locator("#rated-row").is_hidden()  # a guest's tables are not rated
    # A name the server refuses: its words next to the name field.
    page.fill("#acc-name", "a b")
    page.fill("#acc-password", PASSWORD)
    page.click("#signup-btn")
    page.wait_for_selector("#acc-name-error:not(:empty)")
    assert page.locator("#acc-name[aria-invalid=true]").count() == 1
    assert page.locator("#acc-name-error").inner_text()
    shot(page, f"signup-error-{size}")
    name = new_name("Ann")
    page.fill("#acc-name", name)
    page.click("#signup-btn")
    page.wait_for_selector("#account-menu:visible")
    assert page.locator("#account-name").inner_text() == name
    assert page.locator("#signin").is_hidden() and page.locator("#friends-panel").is_visible()
    assert page.locator("#rated-row").is_visible()
    assert page.locator("input[name=name]").input_value() == name  # "Your name" at a table
    no_sideways_scroll(page)
    shot(page, f"signed-in-{size}")
    # A reload keeps the session.
    page.reload()
    page.wait_for_selector("#account-menu:visible")
    open_menu(page)
    assert page.locator("#profile-link").get_attribute("href") == f"/players/{name}"
    inside(page, "#account-body")
    no_sideways_scroll(page)
    shot(page, f"menu-{size}")
    # The password is changed from the menu (the old one is asked first).
    page.fill("#pw-old", "not it at all")
    page.fill("#pw-new", NEW_PASSWORD)
    page.click("#pw-btn")
    page.wait_for_selector("#pw-old-error:not(:empty)")
    page.fill("#pw-old", PASSWORD)
    page.fill("#pw-new", NEW_PASSWORD)
    page.click("#pw-btn")
    page.wait_for_selector("#pw-error:has-text('Password changed')")
    assert page.locator("#pw-old-error").inner_text() == ""
    page.click("#logout-btn")
    page.wait_for_selector("#signin:visible")
    assert page.locator("#account-menu").is_hidden()
    # A wrong password is refused; the right one signs in again.
    page.fill("#acc-name", name.lower())
    page.fill("#acc-password", "wrong password")
    page.click("#signin-btn")
    page.wait_for_selector("#signin-error:not(:empty)")
    assert "wrong user name or password" in page.locator("#signin-error").inner_text()
    page.fill("#acc-password", NEW_PASSWORD)
    page.click("#signin-btn")
    page.wait_for_selector("#account-menu:visible")
    assert page.locator("#account-name").inner_text() == name
    no_sideways_scroll(page)


# ------------------------------------------------------------------- friends


def test_friends_see_each_other_online_and_one_invites_the_other(
    browser: Browser, server: ServerProcess, open_tab: Any
) -> None:
    base = server.http
    ann_name, bob_name = new_name("Ann"), new_name("Bob")
    ann = open_tab(DESKTOP)
    bob = open_tab(PHONE)
    sign_up(ann, base, ann_name)
    sign_up(bob, base, bob_name)

    # Ann asks Bob by name; Bob accepts in his lobby.
    ann.fill("#friend-name", "nobody-here")
    ann.click("#add-friend-btn")
    ann.wait_for_selector("#friend-error.bad:not(:empty)")
    ann.fill("#friend-name", bob_name.upper())  # any case
    ann.click("#add-friend-btn")
    ann.wait_for_selector(f"#friend-error:has-text('Asked {bob_name}')")
    friend_row(ann, bob_name, "#friend-asked").wait_for()
    friend_row(bob, ann_name, "#friend-requests").wait_for()
    shot(bob, "request-phone")
    friend_row(bob, ann_name, "#friend-requests").locator("button.accept").click()
    # Each sees the other online, in the lobby.
    friend_row(bob, ann_name).locator(".where:has-text('in the lobby')").wait_for()
    friend_row(ann, bob_name).locator(".where:has-text('in the lobby')").wait_for()
    assert "online" in (friend_row(ann, bob_name).get_attribute("class") or "")
    no_sideways_scroll(bob)
    shot(ann, "friends-desktop")

    # Ann makes a table with an open seat and sits at it; Bob sees her playing there.
    ann.select_option("#game", "quinto")
    ann.select_option("#myseat", "0")
    ann.select_option("select[name=seat1]", "open")
    ann.fill("input[name=name]", ann_name)
    ann.fill("input[name=title]", "Friends' table")
    ann.click("#create-btn")
    ann.wait_for_url(re.compile(r"/table/[^/?]+$"))
    tid = ann.url.rsplit("/", 1)[1]
    ann.wait_for_selector("#conn[data-state=open]")
    friend_row(bob, ann_name).locator(".where:has-text('playing at')").wait_for()
    link = friend_row(bob, ann_name).locator(".where a")
    assert link.inner_text() == "Friends' table" and link.get_attribute("href") == f"/table/{tid}"

    # From the table's invite dialog Ann invites Bob to the open seat.
    ann.click("#invite-btn")
    ann.wait_for_selector("#friend-invite #invite-friend")
    ann.select_option("#invite-friend", bob_name)
    ann.select_option("#invite-seat", "1")
    ann.click("#invite-friend-btn")
    ann.wait_for_selector(f"#invite-friend-note:has-text('{bob_name} is invited')")
    shot(ann, "invite-friend-desktop")

    # Bob's lobby shows the invitation; Join takes him to the seat.
    invite = bob.locator(f"#invitations li[data-from='{ann_name}']")
    invite.wait_for()
    assert "Friends' table" in invite.inner_text()
    no_sideways_scroll(bob)
    shot(bob, "invitation-phone")
    invite.locator("a.join-invite").click()
    bob.wait_for_url(re.compile(rf"/table/{tid}"))
    bob.wait_for_selector("#joinbox:not([hidden])")
    assert bob.locator("#join-name").input_value() == bob_name
    bob.click("#join-btn")
    bob.wait_for_function("() => window.quintet.me && window.quintet.me.seat === 1")
    ann.wait_for_function("() => window.quintet.state.status === 'playing'")
    names = ann.evaluate("window.quintet.seats.map(s => s.name)")
    assert names[:2] == [ann_name, bob_name], names


# ---------------------------------------------------------------------- rated


def test_sign_up_and_play_a_rated_game_against_bots(
    browser: Browser, server: ServerProcess, open_tab: Any
) -> None:
    page = open_tab(DESKTOP)
    name = new_name("Rae")
    sign_up(page, server.http, name)
    page.select_option("#game", "quintus")
    page.fill("input[name=hands]", "1")
    page.select_option("#myseat", "0")
    page.fill("input[name=name]", name)
    page.check("#rated")
    page.click("#create-btn")
    page.wait_for_url(re.compile(r"/table/[^/?]+$"))
    tid = page.url.rsplit("/", 1)[1]
    page.wait_for_selector("#conn[data-state=open]")
    assert page.evaluate("window.quintet.config.rated") is True
    assert page.locator("#title").inner_text().endswith("· rated")  # agreed before the start
    lobby = page.context.new_page()
    lobby.goto(f"{server.http}/")
    row = lobby.locator(f"#tables li[data-table='{tid}']")
    assert row.locator(".tag.rated").inner_text() == "rated"  # the lobby says so too
    lobby.close()
    play(page)
    page.wait_for_function("() => window.quintet.state.status === 'finished'")
    shot(page, "rated-finished")
    r = page.request.get(f"{server.http}/api/players/{name}")
    assert r.ok, r.text()
    assert tid in r.text()
