"""The web pages in a real headless Chromium, driven by Playwright.

Debian's ``chromium`` (``/usr/bin/chromium``; ``make test`` installs it when missing,
never a downloaded browser) opens the lobby of a real ``quintet serve`` (an ephemeral
port, a temporary SQLite database, bots acting after 0.05 s). For each game and variant
a table is created through the lobby's form with bots in the other seats, a seat is
taken with a name, and the match (a whole hand, or the few short hands the small target
needs) is played through clicks and keys on the legal cards and decision buttons the
page offers, as a person would. The record downloaded through the page's link is scored
by :func:`quintet.record.score` and compared with the score the page shows. A reload in
the middle of a hand comes back to the same seat; a spectator sees a signal and never
the dummy; a finished game is replayed step by step with the double-dummy notes.
Screenshots are saved in ``test-artifacts/`` (git-ignored).

Without chromium (or the ``playwright`` package) the tests are skipped with the reason,
except under CI (``CI`` or ``QUINTET_REQUIRE_BROWSER`` set, as ``.ci/run`` does), where
they fail: CI must run them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from quintet.record import read_record, score
from quintet.server.testing import ServerProcess

CHROMIUM = os.environ.get("QUINTET_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
# Without the background-networking flags Chromium keeps calling home (and floods a
# closed network with retries).
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 30_000


def _unavailable(why: str) -> None:
    if os.environ.get("CI") or os.environ.get("QUINTET_REQUIRE_BROWSER"):
        pytest.fail(f"{why} - CI must run the browser tests (make test installs chromium)")
    pytest.skip(why)


try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError:  # pragma: no cover - the dev extra installs it
    sync_playwright = None  # type: ignore[assignment]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if sync_playwright is None:
        _unavailable("the playwright package is not installed (pip install -e '.[dev]')")
    if not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)):
        _unavailable(
            f"Debian's chromium is not at {CHROMIUM}: make test installs it with apt-get "
            "when it can (as root or with sudo); here it could not"
        )
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    d = tmp_path_factory.mktemp("browser")
    ARTIFACTS.mkdir(exist_ok=True)
    # The hints are taken, not judged, here: a short hint budget keeps a loaded machine
    # from making the hint tests wait. The server's log is kept with the screenshots.
    srv = ServerProcess(
        f"sqlite:///{d / 'b.db'}",
        bot_delay=0.05,
        extra=["--hint-seconds", "0.2"],
        log_path=str(ARTIFACTS / "browser-server.log"),
    )
    with srv:
        yield srv


class Tab:
    """One browser context and page, failing the test on any JavaScript error."""

    def __init__(self, browser: Browser, base: str) -> None:
        self.base = base
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        self.page: Page = self.context.new_page()
        self.page.set_default_timeout(WAIT_MS)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.on(
            "console",
            lambda m: (
                self.errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None
            ),
        )

    def close(self) -> None:
        self.context.close()
        assert not self.errors, self.errors


@pytest.fixture
def tabs(browser: Browser, server: ServerProcess) -> Iterator[list[Tab]]:
    opened: list[Tab] = []
    yield opened
    for t in opened:
        t.close()


def open_tab(tabs: list[Tab], browser: Browser, server: ServerProcess) -> Page:
    t = Tab(browser, server.http)
    tabs.append(t)
    return t.page


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


# ------------------------------------------------------------------ the pages


def create_table(
    page: Page,
    base: str,
    game: str,
    variant: str,
    *,
    seat: int | None,
    name: str = "Ann",
    target: int | None = None,
    hands: int | None = None,
    lone: int | None = None,
) -> str:
    """Fill the lobby's form (bots everywhere else) and return the new table's id."""
    page.goto(base + "/")
    page.select_option("#game", game)
    page.select_option("#variant", variant)
    if target is not None:
        page.fill("input[name=target]", str(target))
    if hands is not None:
        page.fill("input[name=hands]", str(hands))
    if lone is not None:
        page.select_option("#lone", str(lone))
    page.select_option("#myseat", "watch" if seat is None else str(seat))
    page.fill("input[name=name]", name)
    page.click("#create-btn")
    page.wait_for_url(re.compile(r"/table/[^/?]+$"))
    page.wait_for_selector("#conn[data-state=open]")
    return page.url.rsplit("/", 1)[1]


def seq(page: Page) -> str:
    return str(page.evaluate("document.body.dataset.seq || ''"))


def wait_changed(page: Page, before: str) -> None:
    page.wait_for_function("s => (document.body.dataset.seq || '') !== s", arg=before)


def my_hand(page: Page) -> list[str]:
    return [
        str(c)
        for c in page.locator("#myhand button.card").evaluate_all(
            "bs => bs.map(b => b.dataset.card)"
        )
    ]


MY_MOVE = (
    "() => !!document.querySelector('#turnline.mine') || !document.querySelector('#summary').hidden"
)


def play(
    page: Page,
    *,
    keyboard: bool = False,
    hint: bool = False,
    on_turn: Any = None,
    max_moves: int = 600,
) -> dict[str, int]:
    """Play through the page until the match is over; return what was done.

    On its turn the player clicks the first legal card (or, with ``keyboard``, picks it
    with the arrow keys and plays it with Enter every other time) or the first decision
    button; with ``hint`` it asks for the hint (key h) and takes it (Enter). After each
    hand it presses the summary's Next button.
    """
    done = {"moves": 0, "keys": 0, "hints": 0, "hands": 0, "cards": 0, "decisions": 0}
    for _ in range(max_moves):
        page.wait_for_function(MY_MOVE)
        before = seq(page)
        if page.locator("#summary").is_visible():
            if page.locator("#final .final-score").count():
                done["hands"] += 1
                return done
            number = page.evaluate("window.quintet.state.hand.number")
            page.click("#summary-next")
            done["hands"] += 1
            page.wait_for_function(
                "n => { const s = window.quintet.state;"
                " return s.status === 'finished' || (s.hand && s.hand.number > n); }",
                arg=number,
            )
            continue
        if on_turn is not None:
            on_turn(page)
            before = seq(page)
        cards = page.locator("button.card.legal:not([disabled])")
        decisions = page.locator("#actions .group:not(.signals) button[data-n]:not([disabled])")
        if hint:
            page.keyboard.press("h")
            # The hint says why: "Hint: play the Q♠ (Enter) — <the bot's reason>." Read
            # as it is shown: a Quintus "no signal now" hint goes with the next update
            # (a bot's signal), which can come before a second look at the page.
            shown = page.wait_for_function(
                "() => { const t = document.querySelector('#hinttext').innerText;"
                " return t.includes('Hint') ? t : null; }"
            ).json_value()
            assert " — " in shown
            page.keyboard.press("Enter")
            done["hints"] += 1
        elif cards.count():
            if keyboard and done["cards"] % 2 == 0:
                page.keyboard.press("ArrowRight")
                page.wait_for_selector("button.card.legal.selected")
                page.keyboard.press("Enter")
                done["keys"] += 1
            else:
                cards.first.click()
            done["cards"] += 1
        elif decisions.count():
            decisions.first.click()
            done["decisions"] += 1
        else:  # the page is between two states: look again
            page.wait_for_timeout(50)
            continue
        done["moves"] += 1
        wait_changed(page, before)
    raise AssertionError(f"the match did not end in {max_moves} moves: {done}")


def check_record(page: Page, game: str) -> dict[str, Any]:
    """Download the record through the page; its score must be the one the page shows."""
    page.wait_for_selector("#final .final-score")
    with page.expect_download() as info:
        page.click("#record-link")
    path = info.value.path()
    record = read_record(Path(path).read_bytes())
    result = score(record)
    assert result["complete"] is True
    table = page.locator("#final .final-score")
    if game == "quintus":
        shown = [int(x) for x in table.locator("td.score").all_inner_texts()]
        assert shown == result["totals"], (shown, result)
    else:
        rows = table.locator("tr[data-game]")
        shown_games = [
            [int(x) for x in rows.nth(i).locator("td.score").all_inner_texts()]
            for i in range(rows.count())
        ]
        assert shown_games == [g["score"] for g in result["games"]], (shown_games, result)
        if result["rubber"] is not None:
            rubber = [int(x) for x in table.locator("tr[data-rubber] td.score").all_inner_texts()]
            assert rubber == result["rubber"]["score"], (rubber, result)
    return result


# ---------------------------------------------------------------------- tests


def test_quinto_partnership(browser: Browser, server: ServerProcess, tabs: list[Tab]) -> None:
    """Watch a new table, sit down by name, play with mouse and keys, reload mid-hand."""
    page = open_tab(tabs, browser, server)
    tid = create_table(page, server.http, "quinto", "partnership", seat=None, target=100)
    # A spectator: the open seat offers itself; taking it deals the first hand.
    page.click(".seat[data-seat='0'] button[data-sit]")
    page.fill("#join-name", "Ann")
    page.click("#join-btn")
    page.wait_for_selector("#myhand button.card")
    assert page.locator(".seat.me[data-seat='0'] .name").inner_text() == "Ann"
    page.wait_for_selector(".seat[data-seat='1'] .badge.bot")

    state: dict[str, Any] = {"turns": 0, "reloaded": False}

    def reload_once(page: Page) -> None:
        state["turns"] += 1
        if state["turns"] != 4 or state["reloaded"]:
            return
        hand = my_hand(page)
        shot(page, "table-quinto-partnership.png")
        page.reload()
        page.wait_for_selector("#conn[data-state=open]")
        page.wait_for_selector("#myhand button.card")
        page.wait_for_function(MY_MOVE)
        assert my_hand(page) == hand  # the same seat, the same cards
        assert page.locator(".seat.me[data-seat='0'] .badge:text-is('you')").count() == 1
        # A dropped connection comes back by itself, to the same seat.
        page.evaluate("window.quintet.ws.close()")
        page.wait_for_selector("#conn[data-state=retry]")
        page.wait_for_selector("#conn[data-state=open]")
        page.wait_for_function(MY_MOVE)
        assert my_hand(page) == hand
        state["reloaded"] = True

    done = play(page, keyboard=True, on_turn=reload_once)
    assert state["reloaded"] and done["keys"] > 0 and done["hands"] >= 2
    shot(page, "summary-quinto-partnership.png")
    result = check_record(page, "quinto")
    assert result["rubber"]["winner"] in (0, 1)
    # The finished game is in the lobby's list with its result.
    page.goto(server.http + "/")
    page.wait_for_selector(f"#games li[data-game='{tid}'] .result")
    assert "won the rubber" in page.locator(f"#games li[data-game='{tid}'] .result").inner_text()


def test_quinto_dummy(browser: Browser, server: ServerProcess, tabs: list[Tab]) -> None:
    """The lone player plays both hands; a spectator never sees the dummy."""
    page = open_tab(tabs, browser, server)
    tid = create_table(page, server.http, "quinto", "dummy", seat=0, lone=0, target=100)
    watcher = open_tab(tabs, browser, server)
    watcher.goto(f"{server.http}/table/{tid}")
    watcher.wait_for_selector("#conn[data-state=open]")
    seen = {"dummy": 0}

    def check_dummy(page: Page) -> None:
        phase = page.evaluate("window.quintet.state.hand.phase")
        if phase == "play" and not seen["dummy"]:
            # The lone player sees the dummy (South) face up; the spectator does not.
            page.wait_for_selector(".seat[data-seat='2'] .hand button.card")
            assert watcher.locator(".seat[data-seat='2'] .hand.backs").count() == 1
            assert watcher.locator(".seat[data-seat='2'] [data-card]").count() == 0
            assert watcher.locator("#myhand [data-card]").count() == 0
            shot(page, "table-quinto-dummy.png")
            seen["dummy"] += 1
        if page.locator(".seat[data-seat='2'] button.card.legal").count():
            seen["dummy"] += 1

    play(page, on_turn=check_dummy)
    assert seen["dummy"] >= 2  # shown, and played from
    check_record(page, "quinto")


def test_quintus_base(browser: Browser, server: ServerProcess, tabs: list[Tab]) -> None:
    """A signal shows by the signaller's seat for everyone; then replay the game."""
    page = open_tab(tabs, browser, server)
    tid = create_table(page, server.http, "quintus", "base", seat=0, hands=1)
    watcher = open_tab(tabs, browser, server)
    watcher.goto(f"{server.http}/table/{tid}")
    watcher.wait_for_selector("#conn[data-state=open]")
    signalled = {"done": False}

    def signal_once(page: Page) -> None:
        up = page.locator("#actions .signals button[data-act='signal up']:not([disabled])")
        if signalled["done"] or not up.count():
            return
        before = seq(page)
        up.click()
        wait_changed(page, before)
        page.wait_for_selector(".seat[data-seat='0'] .signal-ind[data-signal=up]")
        watcher.wait_for_selector(".seat[data-seat='0'] .signal-ind[data-signal=up]")
        shot(page, "table-quintus-base.png")
        signalled["done"] = True

    play(page, on_turn=signal_once)
    assert signalled["done"]
    check_record(page, "quintus")

    # The replay: every hand shown, step by step, the double-dummy note of each card.
    page.goto(f"{server.http}/replay/{tid}")
    page.wait_for_selector("#felt .seat")
    assert page.locator("#felt .seat .hand [data-card]").count() == 40
    for _ in range(12):
        page.keyboard.press("ArrowRight")
    page.click("#fwd")
    assert "step 13" in page.locator("#stepinfo").inner_text()
    page.click("#last")
    page.wait_for_selector("#summary-inline:not([hidden]) .summary")
    page.wait_for_selector("#plays .ok, #plays .cost", timeout=90_000)
    page.click("#plays tr:last-child button.pc")
    note = page.locator("#note").inner_text()
    assert "double-dummy value" in note, note
    shot(page, "replay-quintus-base.png")
    assert page.locator("#download").get_attribute("href") == f"/api/games/{tid}/record"


def test_quintus_bidding(browser: Browser, server: ServerProcess, tabs: list[Tab]) -> None:
    """Every decision taken from the hint button, through the keyboard."""
    page = open_tab(tabs, browser, server)
    create_table(page, server.http, "quintus", "bidding", seat=0, hands=1)
    shots = {"auction": False}

    def snap(page: Page) -> None:
        if not shots["auction"] and page.locator("#actions button[data-act^='bid']").count():
            shot(page, "table-quintus-bidding.png")
            shots["auction"] = True

    done = play(page, hint=True, on_turn=snap)
    assert done["hints"] >= 8
    check_record(page, "quintus")


def finished_game(server: ServerProcess, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Create a table of random bots through the API; return its id and replay once over.

    The analysis is run to the end first, so that the replay page finds it done and asks
    for none (a client may have only two analyses waiting).
    """
    import time

    import httpx

    tid = httpx.post(server.http + "/api/tables", json=body, timeout=30).json()["id"]
    for _ in range(900):
        if httpx.get(f"{server.http}/api/tables/{tid}", timeout=30).json()["status"] == "finished":
            break
        time.sleep(0.1)
    r = httpx.post(f"{server.http}/api/games/{tid}/analysis", json={}, timeout=30)
    for _ in range(900):
        if r.status_code == 200:
            break
        time.sleep(0.1)
        r = httpx.get(f"{server.http}/api/games/{tid}/analysis", timeout=30)
    assert r.status_code == 200, r.text
    replay = httpx.get(f"{server.http}/api/games/{tid}/replay", timeout=30).json()
    assert replay["analysis"] is not None
    return tid, replay


def no_overflow(page: Page) -> None:
    """Nothing is wider than the window: no horizontal scrolling."""
    width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, (width, inner)


@pytest.mark.parametrize(
    ("game", "variant", "extra"),
    [("quinto", "partnership", {}), ("quinto", "dummy", {"lone_seat": 1}), ("quintus", "base", {})],
)
def test_replay_shows_each_finished_trick_and_its_winner(
    browser: Browser,
    server: ServerProcess,
    tabs: list[Tab],
    game: str,
    variant: str,
    extra: dict[str, Any],
) -> None:
    """The last card of a trick shows the whole trick and who won it; the next lead clears it.

    Stepped with the keys and the buttons, wide and on a phone's 375 pixels.
    """
    n = 4 if game == "quinto" else 5
    # Quints cannot reach 100 in one trick (65 at most), so hand 0 has two tricks or more.
    options = {"target": 100} if game == "quinto" else {"hands": 1}
    body = {"game": game, "variant": variant, "options": options, "seats": ["random"] * n}
    tid, data = finished_game(server, body | extra)
    steps = data["hands"][0]["steps"]
    # The first trick followed by a lead (in Quintus a signal may come between).
    k = next(
        i
        for i, st in enumerate(steps[:-1])
        if "completed_trick" in st and steps[i + 1]["action"]["type"] == "play"
    )
    done = steps[k]["completed_trick"]
    labels = (
        ["North", "East", "South", "West"] if game == "quinto" else [f"seat {s}" for s in range(5)]
    )
    players = data["players"]

    def name(s: int) -> str:
        return f"dummy ({labels[s]})" if players[s]["kind"] == "dummy" else f"{labels[s]} (bot)"

    def trick_on_table() -> list[dict[str, Any]]:
        return [
            {
                "seat": int(str(p.get_attribute("data-seat"))),
                "card": p.locator(".card").get_attribute("data-card"),
            }
            for p in page.locator("#trick .played").all()
        ]

    page = open_tab(tabs, browser, server)
    page.goto(f"{server.http}/replay/{tid}")
    page.wait_for_selector("#felt .seat")
    for _ in range(k - 1):
        page.keyboard.press("ArrowRight")
    assert f"step {k - 1} of" in page.locator("#stepinfo").inner_text()
    assert len(trick_on_table()) == n - 1  # the trick before its last card
    assert page.locator("#trick .played.winner").count() == 0
    assert page.locator("#trickwon").is_hidden()

    page.click("#fwd")  # the last card of the trick
    assert f"step {k} of" in page.locator("#stepinfo").inner_text()
    assert trick_on_table() == done["cards"] and len(done["cards"]) == n
    winner = page.locator("#trick .played.winner")
    assert winner.count() == 1 and winner.get_attribute("data-seat") == str(done["winner"])
    caption = page.locator("#trickwon")
    assert caption.is_visible()
    assert f"won by {name(done['winner'])}" in caption.inner_text()
    shot(page, f"replay-trick-{game}-{variant}.png")

    page.set_viewport_size({"width": 375, "height": 800})  # a phone
    no_overflow(page)
    assert caption.is_visible()
    for p in page.locator("#trick .played").all():
        box = p.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375, box
    shot(page, f"replay-trick-{game}-{variant}-375.png")

    page.keyboard.press("ArrowRight")  # the next lead: a new trick
    assert f"step {k + 1} of" in page.locator("#stepinfo").inner_text()
    assert trick_on_table() == [
        {"seat": steps[k + 1]["action"]["seat"], "card": steps[k + 1]["action"]["card"]}
    ]
    assert page.locator("#trick .played.winner").count() == 0
    assert caption.is_hidden()
    no_overflow(page)

    page.keyboard.press("ArrowLeft")  # back: the whole trick again
    assert trick_on_table() == done["cards"]
    page.click("#last")  # the hand's last card ends its last trick
    page.wait_for_selector("#summary-inline:not([hidden]) .summary")
    last = steps[-1].get("completed_trick")
    if last is not None:
        assert trick_on_table() == last["cards"]
        assert f"won by {name(last['winner'])}" in caption.inner_text()
    no_overflow(page)


def test_a_private_table_opens_only_through_its_link(
    browser: Browser, server: ServerProcess, tabs: list[Tab]
) -> None:
    """A stranger's browser finds nothing; the spectate link (its view key) shows it all."""
    import time

    import httpx

    body = {
        "game": "quinto",
        "options": {"target": 30},
        "seats": ["random"] * 4,
        "public": False,
        "title": "private",
    }
    made = httpx.post(server.http + "/api/tables", json=body, timeout=30).json()
    tid, link = made["id"], made["spectate"]
    assert "key=" in link
    for _ in range(600):
        r = httpx.get(f"{server.http}/api/tables/{tid}{link[link.index('?') :]}", timeout=30)
        if r.json()["status"] == "finished":
            break
        time.sleep(0.1)
    page = open_tab(tabs, browser, server)
    page.goto(f"{server.http}/table/{tid}")
    page.wait_for_selector("#error:has-text('no table')")
    page.goto(server.http + link)
    page.wait_for_selector("#record-link")
    href = page.locator("#record-link").get_attribute("href")
    assert href is not None and "key=" in href
    page.goto(f"{server.http}/replay/{tid}")
    page.wait_for_selector("#note:has-text('no table')")
    tab = tabs[-1]
    assert all("404" in e for e in tab.errors), tab.errors  # the refused fetch, logged
    tab.errors.clear()
    page.goto(f"{server.http}/replay/{tid}{link[link.index('?') :]}")
    page.wait_for_selector("#hand option", state="attached")
    assert "key=" in (page.locator("#download").get_attribute("href") or "")


# The first state after the click: every mutation of the page until then, by section
# (a seat by its number), and whether the nodes kept before are still the page's.
WATCH = """() => {
  const sections = ['#sheet', '#scoreboard', '#contract', '#players', '#log', '#trick', '#myhand'];
  const kept = {
    sheet: document.querySelector('#sheet').firstElementChild,
    scoreboard: document.querySelector('#scoreboard').firstElementChild,
    contract: [...document.querySelector('#contract').children],
    log: [...document.querySelectorAll('#log li')],
    trick: [...document.querySelectorAll('#trick .played')],
    seats: Object.fromEntries([...document.querySelectorAll('#felt .seat')].map(
      (s) => [s.dataset.seat, [s, ...s.querySelectorAll('*')]])),
  };
  const seen = { done: false, turn: null, by: {} };
  const where = (node) => {
    const e = node.nodeType === 1 ? node : node.parentElement;
    const seat = e && e.closest('#felt .seat');
    if (seat) return `seat ${seat.dataset.seat}`;
    return (e && sections.find((s) => e.closest(s))) || 'elsewhere';
  };
  const count = (w, what, n) => {
    const row = seen.by[w] || (seen.by[w] = { added: 0, removed: 0, attributes: 0, text: 0 });
    row[what] += n;
  };
  const obs = new MutationObserver((records) => {
    let state = false;
    for (const r of records) {
      if (r.target === document.body && r.attributeName === 'data-seq') state = true;
      const w = where(r.target);
      if (r.type === 'childList') {
        count(w, 'added', r.addedNodes.length);
        count(w, 'removed', r.removedNodes.length);
      } else count(w, r.type === 'attributes' ? 'attributes' : 'text', 1);
    }
    if (state) {
      obs.disconnect();
      seen.turn = window.quintet.state.hand.turn;
      const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
      seen.kept = {
        sheet: document.querySelector('#sheet').firstElementChild === kept.sheet,
        scoreboard: document.querySelector('#scoreboard').firstElementChild === kept.scoreboard,
        contract: same([...document.querySelector('#contract').children], kept.contract),
        log: kept.log.every((li) => li.isConnected) &&
          same([...document.querySelectorAll('#log li')].slice(0, kept.log.length), kept.log),
        trick: kept.trick.every((p) => p.isConnected),
        seats: Object.fromEntries(Object.entries(kept.seats).map(
          ([s, nodes]) => [s, nodes.every((n) => n.isConnected)])),
      };
      seen.done = true;
    }
  });
  const all = { subtree: true, childList: true, attributes: true, characterData: true };
  obs.observe(document.body, all);
  window.__seen = seen;
}"""


def test_the_table_page_touches_only_what_changed(
    browser: Browser, server: ServerProcess, tabs: list[Tab]
) -> None:
    """A card played in the middle of a trick changes the trick, the two seats, the hand,
    the turn and the log's last line: the sheet, the scores, the contract, the players,
    the other seats and the earlier log lines are the same nodes, untouched."""
    page = open_tab(tabs, browser, server)
    create_table(page, server.http, "quinto", "partnership", seat=0, target=1000)
    cards = page.locator("#myhand button.card.legal:not([disabled])")
    decisions = page.locator("#actions .group:not(.signals) button[data-n]:not([disabled])")
    for _ in range(60):
        page.wait_for_function(MY_MOVE)
        # The turn line can show the move a moment before its buttons are drawn.
        cards.or_(decisions).first.wait_for()
        hand = page.evaluate("window.quintet.state.hand")
        before = seq(page)
        if hand["phase"] == "play" and cards.count():
            # Neither a lead (the bidding's bubbles or the last trick would go) nor a
            # trick's last card.
            if 1 <= len(hand["trick"]) < 3:
                break
            cards.first.click()
        else:
            decisions.first.click()
        wait_changed(page, before)
    else:
        raise AssertionError("no card to play in the middle of a trick")
    assert page.locator("#log li").count() > 0 and page.locator("#sheet table").count() == 1
    page.evaluate(WATCH)
    card = cards.first.get_attribute("data-card")
    cards.first.click()
    page.wait_for_function("() => window.__seen.done")
    seen = page.evaluate("() => window.__seen")
    by = seen["by"]
    for section in ("#sheet", "#scoreboard", "#contract", "#players"):
        assert section not in by, (section, by)
    assert by["#log"] == {"added": 1, "removed": 0, "attributes": 0, "text": 0}, by
    assert by["#trick"]["removed"] == 0 and by["#trick"]["added"] == 1, by
    assert page.locator(f"#trick .played .card[data-card='{card}']").count() == 1
    turn = seen["turn"]
    assert turn not in (0, None)
    for s in range(4):
        if s not in (0, turn):
            assert f"seat {s}" not in by, (s, by)
            assert seen["kept"]["seats"][str(s)], s
    kept = seen["kept"]
    assert kept["sheet"] and kept["scoreboard"] and kept["contract"], kept
    assert kept["log"] and kept["trick"], kept


# What the lobby's form posts, for each game and variant (as the page always has).
LOBBY_BODIES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    (
        {"game": "quinto", "variant": "partnership", "seat": "0", "target": "300"},
        {
            "game": "quinto",
            "variant": "partnership",
            "options": {"target": 300, "rubber_bonus": 100, "joker_eleventh_trick": True},
            "seats": [{"kind": "open"}] + [{"kind": "bot", "level": "heuristic"}] * 3,
            "public": True,
            "title": "",
            "join": {"seat": 0, "name": "Ann"},
        },
    ),
    (
        {"game": "quinto", "variant": "dummy", "seat": "watch", "lone": "1", "target": "120"},
        {
            "game": "quinto",
            "variant": "dummy",
            "options": {  # no rubber bonus: the dummy game has no rubbers (issue 14)
                "target": 120,
                "joker_eleventh_trick": True,
                "dummy_handicap": 30,
                "dummy_double_view": "leading",
            },
            "seats": [
                {"kind": "open"},
                {"kind": "bot", "level": "heuristic"},
                {"kind": "bot", "level": "heuristic"},
                {"kind": "open"},
            ],
            "public": True,
            "title": "",
            "lone_seat": 1,
        },
    ),
    (
        {"game": "quintus", "variant": "base", "seat": "2", "hands": "3"},
        {
            "game": "quintus",
            "variant": "base",
            "options": {"hands": 3},
            # Only the seat taken is open: the old form left seat 0 open too, waiting for a
            # player nobody was invited to (issue 14's lobby trap).
            "seats": [
                {"kind": "bot", "level": "heuristic"},
                {"kind": "bot", "level": "heuristic"},
                {"kind": "open"},
                {"kind": "bot", "level": "heuristic"},
                {"kind": "bot", "level": "heuristic"},
            ],
            "public": True,
            "title": "",
            "join": {"seat": 2, "name": "Ann"},
        },
    ),
    (
        {"game": "quintus", "variant": "bidding", "seat": "watch", "hands": "7"},
        {
            "game": "quintus",
            "variant": "bidding",
            "options": {"hands": 7},
            # Watching after choosing seat 2: the seat left is the one open.
            "seats": [{"kind": "bot", "level": "heuristic"}] * 2
            + [{"kind": "open"}]
            + [{"kind": "bot", "level": "heuristic"}] * 2,
            "public": True,
            "title": "",
        },
    ),
]


def test_the_lobby_posts_each_game_and_variant_as_before(
    browser: Browser, server: ServerProcess, tabs: list[Tab]
) -> None:
    """The form built from /api/info sends the body the page always sent (no table is made)."""
    import json

    page = open_tab(tabs, browser, server)
    posted: list[Any] = []

    def refuse(route: Any) -> None:
        if route.request.method != "POST":
            route.fallback()
            return
        posted.append(route.request.post_data_json)
        error = {"error": {"code": "test", "message": "refused by the test", "field": None}}
        route.fulfill(status=422, content_type="application/json", body=json.dumps(error))

    page.route("**/api/tables", refuse)
    page.goto(server.http + "/")
    for fill, want in LOBBY_BODIES:
        page.select_option("#game", fill["game"])
        page.select_option("#variant", fill["variant"])
        if "target" in fill:
            page.fill("input[name=target]", fill["target"])
        if "hands" in fill:
            page.fill("input[name=hands]", fill["hands"])
        if "lone" in fill:
            page.select_option("#lone", fill["lone"])
            page.fill("input[name=dummy_handicap]", "30")
            page.select_option("select[name=dummy_double_view]", "leading")
        if fill["game"] == "quinto":
            page.check("input[name=joker_eleventh_trick]")
        page.select_option("#myseat", fill["seat"])
        page.fill("input[name=name]", "Ann")
        page.click("#create-btn")
        page.wait_for_selector("#create-error:has-text('refused by the test')")
        assert posted[-1] == want, (posted[-1], want)
        page.evaluate("document.querySelector('#create-error').textContent = ''")
    assert len(posted) == len(LOBBY_BODIES)
    tabs[-1].errors = [e for e in tabs[-1].errors if "422" not in e]  # the refused posts


def test_api_info_describes_each_game_for_the_client(server: ServerProcess) -> None:
    """The client's every game fact: /api/info's games (the fields the modules read)."""
    import httpx

    games = httpx.get(server.http + "/api/info", timeout=30).json()["games"]
    assert set(games) == {"quinto", "quintus"}
    for name, d in games.items():
        assert d["name"] == name and d["title"] and d["seats"] == len(d["seat_labels"])
        assert d["variants"] == list(d["variant_info"])
        for v in d["variant_info"].values():
            assert isinstance(v["title"], str) and isinstance(v["lone_seat"], bool)
        assert isinstance(d["options"], dict) and d["sides"] in ("partnerships", "quintus")
        n = d["seats"]
        if d["sides"] == "partnerships":
            assert sorted(s for p in d["partnerships"] for s in p) == list(range(n))
            assert d["teams_of"] is None
            if any(v["lone_seat"] for v in d["variant_info"].values()):
                dummy_of = d["dummy_of"]
                assert len(dummy_of) == n
                for lone, dummy in enumerate(dummy_of):  # the lone player's partner
                    assert any({lone, dummy} == set(p) for p in d["partnerships"])
        else:
            assert d["partnerships"] is None and d["dummy_of"] is None
            for q, teams in enumerate(d["teams_of"]):
                assert sorted([q, *teams[0], *teams[1]]) == list(range(n))
    assert games["quintus"]["teams_of"][0] == [[1, 3], [2, 4]]
    assert games["quinto"]["dummy_of"] == [2, 3, 0, 1]
