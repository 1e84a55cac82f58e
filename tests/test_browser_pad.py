"""The Score pad page in Debian's Chromium, on a phone (390 x 844, touch).

A whole Quinto rubber and a Quintus bidding session are kept by taps, from what a
person would have written down from random complete records (``pad_entries``); a
refusal shows the model's message and changes nothing; an entry is corrected; a
second phone reading the shared link sees each change; the final sheet shows the
model's totals. Screenshots: ``test-artifacts/pad-*.png``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_browser import WAIT_MS, browser, shot
from test_pad import pad_of, quinto_record, quintus_record

from quintet.pad import PadError, new_pad
from quintet.pad.fromrecord import pad_entries
from quintet.server import Settings, create_app
from quintet.server.testing import free_port

__all__ = ["browser"]  # the shared Chromium fixture (test_browser's), used by name

try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError:  # pragma: no cover - the dev extra installs it
    sync_playwright = None  # type: ignore[assignment]

PHONE = {"width": 390, "height": 844}
JSON = dict[str, Any]


@pytest.fixture(scope="module")
def pad_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server in this process (its pad settings are the test's: polling each second)."""
    import uvicorn

    d = tmp_path_factory.mktemp("padweb")
    settings = Settings(
        db_url=f"sqlite:///{d / 'pads.db'}",
        bot_delay=0.0,
        search_workers=1,
        pad_poll_seconds=1.0,
        pad_rate=200.0,
        pad_burst=1000.0,
    )
    port = free_port()
    config = uvicorn.Config(
        create_app(settings), host="127.0.0.1", port=port, log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    end = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < end, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


class Phone:
    """A phone's browser context and page, failing the test on any JavaScript error."""

    def __init__(self, browser: Browser) -> None:
        self.context = browser.new_context(
            viewport=PHONE,  # type: ignore[arg-type]
            has_touch=True,
            is_mobile=True,
            device_scale_factor=1,
        )
        self.page: Page = self.context.new_page()
        self.page.set_default_timeout(WAIT_MS)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.on("console", self._console)

    def _console(self, m: Any) -> None:
        # A refused entry is a 422 (the page shows its message): the browser logs it.
        if m.type == "error" and "status of 422" not in m.text:
            self.errors.append(f"console {m.type}: {m.text}")

    def close(self) -> None:
        self.context.close()
        assert not self.errors, self.errors


@pytest.fixture
def phones(browser: Browser) -> Iterator[Any]:
    opened: list[Phone] = []

    def make() -> Page:
        p = Phone(browser)
        opened.append(p)
        return p.page

    yield make
    for p in opened:
        p.close()


def tap(page: Page, selector: str) -> None:
    page.locator(selector).first.tap()


def entries_shown(page: Page) -> int:
    return page.locator("#entries li[data-entry]").count()


def wait_entries(page: Page, n: int) -> None:
    page.wait_for_function(
        "n => document.querySelectorAll('#entries li[data-entry]').length === n", arg=n
    )


def no_sideways_scroll(page: Page) -> None:
    # Measured once the fonts are in and two frames are drawn: under load the first
    # layout was once read a pixel wide, before the page's own layout had settled.
    width = page.evaluate(
        """async () => {
            await document.fonts.ready;
            for (let i = 0; i < 2; i++) await new Promise(r => requestAnimationFrame(r));
            return document.documentElement.scrollWidth;
        }"""
    )
    assert width <= PHONE["width"], f"the page scrolls sideways: {width} px"


def small_targets(page: Page) -> list[str]:
    """The visible buttons of the entry panel under 44 px high."""
    found: list[str] = page.evaluate(
        """() => [...document.querySelectorAll('#entry button, #entries button')]
            .filter(b => b.offsetParent !== null)
            .filter(b => b.getBoundingClientRect().height < 44)
            .map(b => b.textContent)"""
    )
    return found


def start_pad(page: Page, base: str, game: str, variant: str, names: list[str], **opts: Any) -> str:
    page.goto(base + "/")
    page.get_by_role("link", name="Score pad").tap()
    page.wait_for_selector("#np-start")
    tap(page, f'#np-game button[data-game="{game}"]')
    tap(page, f'#np-variant button[data-variant="{variant}"]')
    for name, value in opts.get("options", {}).items():
        page.fill(f"#np-options [name={name}]", str(value))
    for s, name in enumerate(names):
        page.fill(f"#np-players [name=player{s}]", name)
    page.select_option("#np-dealer", str(opts.get("first_dealer", 0)))
    page.fill("#np-title", opts.get("title", ""))
    shot(page, f"pad-{game}-new.png")
    tap(page, "#np-start")
    page.wait_for_url("**/pad/*")
    page.wait_for_selector("#status:not(:empty)")
    return page.url.rsplit("/", 1)[1]


def enter_quinto(page: Page, e: JSON) -> None:
    kind = e["type"]
    if kind == "doubling":
        by = "" if e.get("by") is None else str(e["by"])
        tap(page, f'#doubling button[data-level="{e["level"]}"][data-by="{by}"]')
    elif kind == "broken":
        if page.locator("#broken").get_attribute("open") is None:
            page.locator("#broken summary").tap()
        tap(page, f'#broken button[data-pair="{e["pair"]}"]')
    elif kind in ("quint", "cachette"):
        for q in e["quints"]:
            tap(page, f'#quints button[data-quint="{q}"]')
        where = "#quint-sides" if kind == "quint" else "#cachette"
        tap(page, f'{where} button[data-side="{e["side"]}"]')
    elif kind == "tricks":
        tap(page, f'#tricks button[data-ns="{e["tricks"][0]}"]')
    else:  # pragma: no cover
        raise AssertionError(e)


def test_a_whole_quinto_rubber_on_a_phone(pad_server: str, phones: Any) -> None:
    record = quinto_record(2, False, 60, 100, 25)
    model = pad_of(record)
    entries = pad_entries(record, True)
    names = ["Ann", "Bob", "Cid", "Dan"]
    page = phones()
    pid = start_pad(
        page,
        pad_server,
        "quinto",
        "partnership",
        names,
        options={"target": 60, "rubber_bonus": 100},
        first_dealer=model.first_dealer,
        title="Rubber at Ann's",
    )
    no_sideways_scroll(page)
    assert not small_targets(page)
    shot(page, "pad-quinto-start.png")
    # The table's other phone reads the pad by its read-only link.
    link = page.locator("#view-link").get_attribute("href")
    assert link and "key=" in link
    reader = phones()
    reader.goto(pad_server + link)
    reader.wait_for_selector("#status:not(:empty)")
    assert reader.locator("#entry").is_hidden()
    assert reader.locator("#entries button").count() == 0

    refused = False
    shots = 0
    for i, e in enumerate(entries):
        if e["type"] == "tricks" and not refused:
            # A refusal first (a side given fewer tricks than its quints took, when the
            # rules rule that out): the model's words, and nothing changes.
            probe = new_pad("quinto", options={"target": 60}, first_dealer=model.first_dealer)
            probe.set_entries(entries[:i])
            for wrong in ([0, 13], [13, 0]):
                try:
                    probe.add({"type": "tricks", "tricks": wrong})
                except PadError as err:
                    tap(page, f'#tricks button[data-ns="{wrong[0]}"]')
                    page.wait_for_selector("#message:not(:empty)")
                    assert str(err) in page.inner_text("#message")
                    assert entries_shown(page) == i
                    shot(page, "pad-quinto-refused.png")
                    refused = True
                    break
                probe.undo()
        enter_quinto(page, e)
        wait_entries(page, i + 1)
        assert page.inner_text("#message") == ""
        if e["type"] == "tricks" and shots < 2:
            shots += 1
            no_sideways_scroll(page)
            shot(page, f"pad-quinto-hand-{shots}.png")
    assert refused, "no hand of this record let the test show a refusal"
    # The last entry deleted (the rubber is open again) and entered again.
    over = model.view()["status"]
    assert page.inner_text("#status") == over
    last = len(entries) - 1
    page.locator(f'#entries li[data-entry="{last}"] button.delete').tap()
    wait_entries(page, last)
    assert page.inner_text("#status") != over
    enter_quinto(page, entries[last])
    wait_entries(page, last + 1)
    # A correction of the first entry through the panel (the same entry again).
    page.locator('#entries li[data-entry="0"] button.correct').tap()
    page.wait_for_selector("#entry .correcting")
    shot(page, "pad-quinto-correcting.png")
    first = dict(entries[0])
    if first["type"] in ("quint", "cachette"):
        first["quints"] = []  # the panel shows the entry's quints already tapped
    enter_quinto(page, first)
    page.wait_for_selector("#entry .correcting", state="detached")
    assert page.inner_text("#message") == ""

    view = model.view()
    rubber = view["rubber"]
    assert rubber["winner"] is not None
    page.wait_for_selector("#rubber")
    for s in (0, 1):
        assert page.inner_text(f'#rubber [data-rubber="{s}"]') == str(rubber["score"][s])
        assert page.inner_text(f'#rubber [data-won="{s}"]') == str(rubber["games_won"][s])
    for g in view["games"]:
        for s in (0, 1):
            cell = page.locator(f'table[data-game="{g["index"]}"] [data-score="{s}"]')
            assert cell.inner_text() == str(g["score"][s])
    assert page.inner_text("#status") == view["status"]
    assert page.locator("#cribbage svg circle[data-peg]").count() >= 2
    shot(page, "pad-quinto-final.png")
    # The reader's phone has caught up by itself.
    reader.wait_for_function(
        "n => document.querySelectorAll('#entries li[data-entry]').length === n",
        arg=len(entries),
    )
    assert reader.inner_text('#rubber [data-rubber="0"]') == str(rubber["score"][0])
    shot(reader, "pad-quinto-reader.png")
    # Printing keeps the sheet and drops the entry panel.
    page.emulate_media(media="print")
    assert page.locator("#entry").is_hidden() and page.locator("#rubber").is_visible()
    page.emulate_media(media="screen")
    with page.expect_download() as dl:
        page.locator('#exports a[data-export="csv"]').tap()
    path = dl.value.path()
    assert path is not None and Path(path).read_text().startswith("game,hand")
    assert pid


def enter_quintus(page: Page, e: JSON) -> None:
    if e["type"] == "void":
        tap(page, "#void")
        return
    page.select_option("#bid-select", str(e["bid"]))
    tap(page, f'#bidder button[data-seat="{e["bidder"]}"]')
    tap(page, f'#trump button[data-trump="{e["trump"]}"]')
    tap(page, f'#nil button[data-nil="{e["nil"]}"]')
    if "cards" in e:
        tap(page, '#mode button[data-mode="cards"]')
        tap(page, '[data-rest="2"]')
        for pile in (0, 1):
            tap(page, f'#pile button[data-pile="{pile}"]')
            for c in e["cards"][pile]:
                tap(page, f'#cards button[data-card="{c}"]')
    else:
        tap(page, '#mode button[data-mode="points"]')
        for s, x in enumerate(e["points"]):
            box = page.locator(f'[data-points="{s}"] input')
            box.fill("" if x is None else str(x))
            box.dispatch_event("change")
        if e["nil"] != "none":
            tap(page, f'#nil-result button[data-failed="{str(e["nil_failed"]).lower()}"]')
    set_premiums(page, e.get("premiums"))
    tap(page, "#enter-hand")


def set_premiums(page: Page, premiums: JSON | None) -> None:
    """Step each premium count to the entry's (the panel may show some already)."""
    want = premiums or {"court": [0, 0, 0], "straight": [0, 0, 0]}
    if page.locator("#premiums").get_attribute("open") is None:
        page.locator("#premiums summary").tap()
    for kind in ("court", "straight"):
        for s, n in enumerate(want[kind]):
            row = page.locator(f'[data-premium="{kind}-{s}"]')
            while (now := int(row.locator("output").inner_text())) != n:
                row.locator("button").nth(1 if now < n else 0).tap()


def test_a_quintus_bidding_session_on_a_phone(pad_server: str, phones: Any) -> None:
    record = quintus_record(3, True, 4)
    by_cards = pad_entries(record, True)
    by_points = pad_entries(record, False)
    # The first hand by tapping the cards won, the others by card points.
    entries = [by_cards[0], *by_points[1:]]
    model = pad_of(record)
    names = ["Ann", "Bob", "Cid", "Dan", "Eve"]
    page = phones()
    start_pad(
        page,
        pad_server,
        "quintus",
        "bidding",
        names,
        options={"hands": 4},
        first_dealer=model.first_dealer,
    )
    no_sideways_scroll(page)
    shot(page, "pad-quintus-start.png")
    # A refusal: card points no deal gives, in the model's words.
    wrong = dict(by_points[0]) | {"points": [7, 7, 7]}
    try:
        new_pad("quintus", "bidding", {"hands": 4}, first_dealer=model.first_dealer).add(wrong)
    except PadError as err:
        message = str(err)
    else:  # pragma: no cover
        raise AssertionError("the model accepted impossible points")
    enter_quintus(page, wrong)
    page.wait_for_selector("#message:not(:empty)")
    assert message in page.inner_text("#message") and entries_shown(page) == 0
    shot(page, "pad-quintus-refused.png")
    for i, e in enumerate(entries):
        if "cards" in e:
            _cards_hand(page, e)
        else:
            enter_quintus(page, e)
        wait_entries(page, i + 1)
        assert page.inner_text("#message") == ""
        if i < 2:
            no_sideways_scroll(page)
            shot(page, f"pad-quintus-hand-{i + 1}.png")
    # A correction of hand 2 (another trump) and back: each time the model's ledger.
    page.locator('#entries li[data-entry="1"] button.correct').tap()
    page.wait_for_selector("#entry .correcting")
    enter_quintus(page, entries[1])
    page.wait_for_selector("#entry .correcting", state="detached")
    assert page.inner_text("#message") == ""
    view = model.view()
    assert view["offers"]["over"]
    for s, total in enumerate(view["totals"]):
        assert page.inner_text(f'#totals [data-total="{s}"]') == str(total)
    assert view["totals"] == model.score_summary()["totals"]
    for h in view["hands"]:
        if h["settlement"]:
            shown = page.inner_text(f'[data-settlement="{h["number"]}"]')
            assert all(line in shown for line in h["settlement"]["formula"])
    shot(page, "pad-quintus-final.png")


def _cards_hand(page: Page, e: JSON) -> None:
    """Enter a hand by tapping the cards each side won (a screenshot half way)."""
    enter = dict(e)
    premiums = enter.pop("premiums", None)
    page.select_option("#bid-select", str(e["bid"]))
    tap(page, f'#bidder button[data-seat="{e["bidder"]}"]')
    tap(page, f'#trump button[data-trump="{e["trump"]}"]')
    tap(page, f'#nil button[data-nil="{e["nil"]}"]')
    tap(page, '#mode button[data-mode="cards"]')
    tap(page, '[data-rest="2"]')
    for pile in (0, 1):
        tap(page, f'#pile button[data-pile="{pile}"]')
        for c in e["cards"][pile]:
            tap(page, f'#cards button[data-card="{c}"]')
    assert not small_targets(page)
    no_sideways_scroll(page)
    shot(page, "pad-quintus-cards.png")
    set_premiums(page, premiums)
    tap(page, "#enter-hand")
