"""Chat, take-backs, claims, the turn clock, the draw, rematches and series, the rules
page, invite QR codes and the lobby's housekeeping, through the real protocol.

Each test drives the in-process server (FastAPI's test client) with websocket players;
where it needs the truth (every card) it reads the server's own table, as an oracle.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from quintet.games import find_game
from quintet.record import read_record, score
from quintet.server import Settings, create_app, db
from quintet.server.claims import check_claim, claimable
from quintet.server.db import Store, schema_revision
from quintet.server.protocol import ERRORS, PROTOCOL_VERSION
from quintet.server.security import new_cookie
from quintet.server.social import arrange, draw_cards
from quintet.server.testing import follow

JSON = dict[str, Any]


def make_client(path: Path, **more: Any) -> TestClient:
    settings = Settings(
        db_url=f"sqlite:///{path}",
        bot_delay=0.0,
        allow_seed=True,
        search_workers=1,
        **more,
    )
    return TestClient(create_app(settings))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path / "s.db") as c:
        yield c


class P:
    """A websocket player (a browser with a cookie of its own) that keeps what it was sent."""

    def __init__(self, client: TestClient, stack: ExitStack, cookie: str | None = None) -> None:
        self.cookie = cookie or new_cookie()
        self.ws = stack.enter_context(
            client.websocket_connect("/ws", headers={"cookie": f"quintet_person={self.cookie}"})
        )
        self.state: JSON = {}
        self.log: list[JSON] = []
        self.chat: list[JSON] = []
        self.got: list[JSON] = []

    def send(self, msg: JSON) -> None:
        self.ws.send_text(json.dumps(msg))

    def recv(self) -> JSON:
        raw: JSON = self.ws.receive_json()
        self.got.append(raw)
        m = follow(self, raw)  # a state or update: the whole table after it
        if m["type"] == "state":
            if m["log"] is not None:
                self.log = m["log"]["events"]
            self.state = m
        elif m["type"] == "chat":
            self.chat.extend(m["lines"])
        return m

    def until(self, pred: Callable[[JSON], bool], limit: int = 20000) -> JSON:
        for _ in range(limit):
            m = self.recv()
            if pred(m):
                return m
        raise AssertionError("never came")

    def kind(self, kind: str) -> JSON:
        return self.until(lambda m: m["type"] == kind)

    def when(self, pred: Callable[[JSON], bool]) -> JSON:
        """Return the first state message (from now, or the last one) that fits."""
        if self.state and pred(self.state):
            return self.state
        return self.until(lambda m: m["type"] == "state" and pred(m))

    def hello(self, table: str, token: str | None = None, **more: Any) -> JSON:
        self.send(
            {
                "type": "hello",
                "v": PROTOCOL_VERSION,
                "table": table,
                **({"token": token} if token else {}),
                **more,
            }
        )
        assert self.kind("welcome")
        return self.kind("state")

    def join(self, seat: int, name: str) -> str:
        self.send({"type": "join", "seat": seat, "name": name})
        token: str = self.kind("joined")["token"]
        return token

    def refused(self, msg: JSON, code: str) -> JSON:
        self.send({**msg, "id": "r"})
        m = self.until(lambda m: m["type"] == "error" or m.get("ref") == "r")
        assert m["type"] == "error" and m["code"] == code, m
        assert m["code"] in ERRORS
        return m

    def my_turn(self, m: JSON) -> bool:
        return any(a["type"] != "signal" for a in m.get("legal", []))

    def play_first(self) -> None:
        """Make the first legal decision that is not a signal."""
        st = self.state
        a = next(a for a in st["legal"] if a["type"] != "signal")
        self.send({"type": "act", "action": a, "expect": st["seq"]})


def moved_on(seq: int, or_ready: bool = False, or_error: bool = False) -> Callable[[JSON], bool]:
    """Return a test of a message: a state past ``seq`` (or with someone ready, or an error)."""

    def test(x: JSON) -> bool:
        if x["type"] == "error":
            return or_error
        return x["type"] == "state" and (x["seq"] != seq or (or_ready and bool(x["ready"])))

    return test


def at_seq_my_turn(p: P, seq: int) -> Callable[[JSON], bool]:
    """Return a test of a state: at ``seq`` and ``p`` to decide."""
    return lambda x: x["seq"] == seq and p.my_turn(x)


def has_ref(ref: str) -> Callable[[JSON], bool]:
    """Return a test of a message: the answer to the message ``ref``."""
    return lambda x: x.get("ref") == ref


def create(client: TestClient, cookie: str | None = None, **body: Any) -> JSON:
    r = client.post(
        "/api/tables",
        json=body,
        headers={"cookie": f"quintet_person={cookie}"} if cookie else {},
    )
    assert r.status_code == 201, r.text
    out: JSON = r.json()
    return out


def live(client: TestClient, table: str) -> Any:
    return client.app.state.hub.tables[table]  # type: ignore[attr-defined]


def notices(p: P) -> list[str]:
    return [e["text"] for e in p.log if e["kind"] == "notice"]


def play_to(p: P, done: Callable[[JSON], bool], next_hand: bool = True) -> JSON:
    """Play first-legal for ``p`` (and send next) until ``done(state)``."""
    while True:
        m = p.when(lambda m: done(m) or p.my_turn(m) or m["status"] == "hand_over")
        if done(m):
            return m
        if m["status"] == "hand_over":
            seq = m["seq"]
            if not next_hand or p.state["you"]["seat"] in m["ready"]:
                p.until(moved_on(seq))
                continue
            p.send({"type": "next"})
            p.until(moved_on(seq, or_ready=True))
            continue
        p.play_first()
        seq = m["seq"]
        p.until(moved_on(seq, or_error=True))


# ------------------------------------------------------------------------- chat


def test_chat_reaches_players_and_spectators_as_plain_text_and_is_kept_in_the_record(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.db"
    evil = '<img src=x onerror="alert(1)"> & <b>bold</b>'
    with make_client(path) as client, ExitStack() as stack:
        ann, bea, eve = (P(client, stack) for _ in range(3))
        t = create(
            client, game="quintus", seats=["open", "open"] + ["heuristic"] * 3, options={"hands": 1}
        )
        tid = t["id"]
        for p in (ann, bea, eve):
            p.hello(tid)
        ann.join(0, "Ann")
        bea.join(1, "Bea")
        ann.send({"type": "chat", "text": "  good   luck  "})
        ann.send({"type": "chat", "text": evil})
        for p in (ann, bea, eve):
            p.until(lambda m: m["type"] == "chat" and m["lines"][-1]["n"] == 1)
            assert [x["text"] for x in p.chat] == ["good luck", evil]
            assert p.chat[0]["seat"] == 0 and p.chat[0]["name"] == "Ann"
        # A spectator does not chat; nor does a line longer than the server allows, or
        # an empty one; a refused line changes nothing.
        eve.refused({"type": "chat", "text": "hi"}, "not_player")
        bea.refused({"type": "chat", "text": "x" * 301}, "chat_too_long")
        bea.refused({"type": "chat", "text": "   "}, "bad_message")
        bea.refused({"type": "chat", "text": "a\u0007b"}, "bad_message")
        assert len(live(client, tid).chat) == 2
        # The rate: 5 at once, then about one line every 2 s.
        for i in range(5):
            bea.send({"type": "chat", "text": f"line {i}"})
        bea.refused({"type": "chat", "text": "one too many"}, "rate_limited")
        ann.until(lambda m: m["type"] == "chat" and m["lines"][-1]["text"] == "line 4")
        # A newcomer gets the chat so far.
        late = P(client, stack)
        late.send({"type": "hello", "v": PROTOCOL_VERSION, "table": tid})
        late.kind("chat")
        assert [x["text"] for x in late.chat][:2] == ["good luck", evil]
        assert late.state["social"]["chat_lines"] == 7
        bea.send({"type": "leave"})
        bea.kind("left")
        ann.send({"type": "replace", "seat": 1})
        play_to(ann, lambda m: m["status"] == "finished")
        r = client.get(f"/api/games/{tid}/record")
        assert r.status_code == 200
        rec = read_record(r.text)
        assert [x["text"] for x in rec.extra["chat"]][:2] == ["good luck", evil]
        assert score(rec)["complete"] is True
    # Stored: a new server has it.
    with make_client(path) as client, ExitStack() as stack:
        again = P(client, stack)
        again.send({"type": "hello", "v": PROTOCOL_VERSION, "table": tid})
        again.kind("chat")
        assert again.chat[1]["text"] == evil


# -------------------------------------------------------------------- take-backs


def test_a_take_back_against_bots_only_is_granted_at_once_as_the_terminals_undo(
    client: TestClient,
) -> None:
    from quintet.table import Table

    with ExitStack() as stack:
        ann = P(client, stack)
        t = create(
            client,
            cookie=ann.cookie,
            game="quinto",
            seats=["open"] + ["heuristic"] * 3,
            join={"seat": 0, "name": "Ann"},
            seed=11,
        )
        ann.hello(t["id"], t["token"])
        ann.refused({"type": "takeback"}, "nothing_to_take_back") if not any(
            e["kind"] == "action" and e["seat"] == 0 for e in ann.log
        ) else None
        for _ in range(3):  # three decisions of Ann's
            m = ann.when(ann.my_turn)
            ann.play_first()
            ann.until(moved_on(m["seq"]))
        m = ann.when(ann.my_turn)
        lt = live(client, t["id"])
        before = list(lt.table.state.history())
        # The terminal's rule on a copy of the same match:
        copy = Table.from_record(lt.table.record(), seats=[None] * 4)
        n = copy.undo(0)
        assert n > 0
        ann.send({"type": "takeback"})
        back = ann.when(
            lambda x: x["seq"] > m["seq"] and any("takes back" in s for s in notices(ann))
        )
        assert any(f"North takes back {n} action" in s for s in notices(ann))
        assert len(lt.table.state.history()) in (len(before) - n, len(before) - n + 1)
        assert list(lt.table.state.history())[: len(before) - n] == before[: len(before) - n]
        assert back["seq"] > m["seq"]


def _two_people(client: TestClient, stack: ExitStack, **body: Any) -> tuple[P, P, str]:
    ann, bea = P(client, stack), P(client, stack)
    base: JSON = {"game": "quinto", "seats": ["open", "open", "heuristic", "heuristic"], "seed": 3}
    t = create(client, **(base | body))
    for p in (ann, bea):
        p.hello(t["id"])
    ann.join(1, "Ann")  # East: the first to act after North's deal
    bea.join(0, "Bea")
    return ann, bea, t["id"]


def ann_to_act(ann: P, bea: P, stop: Callable[[JSON], bool] = lambda m: False) -> JSON:
    """Let Bea (North) play her turns until Ann (East) is to act, or ``stop``."""
    while True:
        m = ann.when(
            lambda x: (
                x["status"] != "waiting"
                and (ann.my_turn(x) or x["status"] != "playing" or x["hand"]["turn"] == 0)
            )
        )
        if ann.my_turn(m) or m["status"] != "playing" or stop(m):
            return m
        bea.when(at_seq_my_turn(bea, m["seq"]))
        bea.play_first()
        ann.until(moved_on(m["seq"]))


def test_a_take_back_is_put_to_the_other_person_who_refuses_or_accepts(client: TestClient) -> None:
    with ExitStack() as stack:
        ann, bea, tid = _two_people(client, stack)
        lt = live(client, tid)
        # Ann decides once, then asks (while Bea, North, is to decide).
        m = ann.when(ann.my_turn)
        ann.play_first()
        ann.until(lambda x: x["type"] == "state" and x["seq"] != m["seq"])
        bea.when(bea.my_turn)
        hist = list(lt.table.state.history())
        seq = lt.seq
        ann.send({"type": "takeback"})
        q = bea.when(lambda x: x["social"]["question"] is not None)["social"]["question"]
        assert q["kind"] == "takeback" and q["by"] == 1 and q["waiting"] == [0]
        # Play waits: nobody may act meanwhile.
        if bea.my_turn(bea.state):
            bea.refused({"type": "act", "action": bea.state["legal"][0]}, "question_pending")
        ann.refused({"type": "answer", "question": q["n"], "accept": True}, "no_question")
        ann.refused({"type": "takeback"}, "question_pending")
        bea.send({"type": "answer", "question": q["n"], "accept": False})
        bea.when(lambda x: x["social"]["question"] is None)
        assert list(lt.table.state.history()) == hist and lt.seq == seq
        assert any("take-back is refused (North refuses)" in s for s in notices(bea))
        # Asked again and accepted: the decision is Ann's again.
        ann.send({"type": "takeback"})
        q = bea.when(lambda x: x["social"]["question"] is not None)["social"]["question"]
        bea.send({"type": "answer", "question": q["n"], "accept": True})
        bea.when(lambda x: x["social"]["question"] is None and x["seq"] > seq)
        cut = max(i for i, (s, _) in enumerate(hist) if s == 1)
        assert list(lt.table.state.history()) == hist[:cut]  # Ann (East) decides again
        n = len(hist) - cut
        assert any(
            f"East takes back {n} actions (everyone asked accepts)" in s for s in notices(bea)
        )
        # At most takebacks_per_hand (3) requests a hand.
        ann.when(ann.my_turn)
        ann.play_first()
        bea.when(bea.my_turn)
        ann.send({"type": "takeback"})
        q = bea.when(lambda x: x["social"]["question"] is not None)["social"]["question"]
        bea.send({"type": "answer", "question": q["n"], "accept": False})
        bea.when(lambda x: x["social"]["question"] is None)
        ann.when(lambda x: x["social"]["question"] is None)
        ann.refused({"type": "takeback"}, "too_many_requests")


def test_a_take_back_survives_a_restart_with_seq_going_on(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    with make_client(path) as client, ExitStack() as stack:
        ann = P(client, stack)
        t = create(
            client,
            cookie=ann.cookie,
            game="quinto",
            seats=["open"] + ["heuristic"] * 3,
            join={"seat": 0, "name": "Ann"},
            seed=5,
        )
        ann.hello(t["id"], t["token"])
        for _ in range(2):
            m = ann.when(ann.my_turn)
            ann.play_first()
            ann.until(moved_on(m["seq"]))
        ann.when(ann.my_turn)
        ann.send({"type": "takeback"})
        ann.when(lambda x: any("takes back" in s for s in notices(ann)) and ann.my_turn(x))
        lt = live(client, t["id"])
        seq, hist = lt.seq, list(lt.table.state.history())
    with make_client(path) as client:
        lt2 = live(client, t["id"])
        assert lt2.seq == seq
        assert list(lt2.table.state.history()) == hist


# ------------------------------------------------------------------------ claims


def _claim_state(client: TestClient, tid: str, side: list[int], want: str) -> bool:
    st = live(client, tid).table.state
    if not claimable(st) or st.tricks_played < 7:  # earlier, the searches are long
        return False
    found = check_claim(st, side, 50_000)
    if want == "guaranteed":
        return bool(found["guaranteed"])
    if want == "offered":
        return bool(found["possible"] and not found["guaranteed"])
    return not found["possible"] and not found["gave_up"]


def test_a_guaranteed_claim_is_played_out_at_once_and_the_record_scores(client: TestClient) -> None:
    seen = {"impossible": False, "offered": False}
    for seed in range(1, 30):
        with ExitStack() as stack:
            if _guaranteed_claim(client, stack, seed, seen):
                break
    else:
        raise AssertionError("no guaranteed claim came up in 29 hands")
    assert seen["impossible"] and seen["offered"]


def _guaranteed_claim(
    client: TestClient, stack: ExitStack, seed: int, seen: dict[str, bool]
) -> bool:
    if True:
        ann = P(client, stack)
        t = create(
            client,
            cookie=ann.cookie,
            game="quinto",
            seats=["open"] + ["heuristic"] * 3,
            join={"seat": 0, "name": "Ann"},
            seed=seed,
            options={"target": 1000},
        )
        tid = t["id"]
        ann.hello(tid, t["token"])
        while True:
            m = ann.when(lambda x: ann.my_turn(x) or x["status"] != "playing")
            if m["status"] != "playing":
                return False
            if _claim_state(client, tid, [0, 2], "guaranteed"):
                break
            for want in ("impossible", "offered"):
                if not seen[want] and _claim_state(client, tid, [0, 2], want):
                    seen[want] = True
                    seq = m["seq"]
                    ann.send({"type": "claim", "id": want})
                    r = ann.until(has_ref(want))
                    if want == "impossible":
                        assert r["type"] == "error" and r["code"] == "no_claim"
                        assert (
                            "no play of the cards gives North and South every trick" in r["message"]
                        )
                    else:  # the opponents are bots: they refuse a claim the cards do not make
                        assert r["type"] == "claim_result" and r["outcome"] == "refused"
                    assert live(client, tid).seq == seq
            ann.play_first()
            ann.until(moved_on(m["seq"]))
        done = live(client, tid).table.state.tricks_played
        ann.send({"type": "claim", "id": "c"})
        r = ann.until(lambda x: x.get("ref") == "c")
        assert r["type"] == "claim_result" and r["outcome"] == "accepted", r
        ann.when(lambda x: x["status"] == "hand_over")
        st = live(client, tid).table.match.hands[0]
        won = [e.seat for e in st.events() if e.kind == "trick"][done:]
        assert won and set(won) <= {0, 2}
        assert any("claims the rest of the hand" in s for s in notices(ann))
        # The hand as played out is a complete hand of a record.
        rec = live(client, tid).record()
        assert rec.hands[0].actions and score(rec)
        return True


def test_a_claim_that_is_not_guaranteed_is_put_to_the_opponent(client: TestClient) -> None:
    for seed in range(1, 30):
        with ExitStack() as stack:
            if _offered_claim(client, stack, seed):
                return
    raise AssertionError("no claim to offer came up in 29 hands")


def _offered_claim(client: TestClient, stack: ExitStack, seed: int) -> bool:
    if True:
        ann, bea, tid = _two_people(client, stack, seed=seed, options={"target": 1000})
        while True:
            m = ann_to_act(ann, bea)
            if m["status"] != "playing":
                return False
            if _claim_state(client, tid, [1, 3], "offered"):
                break
            ann.play_first()
            ann.until(moved_on(m["seq"]))
        ann.send({"type": "claim", "id": "c"})
        r = ann.until(lambda x: x.get("ref") == "c")
        assert r["type"] == "claim_result" and r["outcome"] == "offered"
        q = bea.when(lambda x: x["social"]["question"] is not None)["social"]["question"]
        assert q["kind"] == "claim" and q["waiting"] == [0]
        assert "line" not in q  # the line would show cards
        bea.send({"type": "answer", "question": q["n"], "accept": True})
        end = bea.when(lambda x: x["status"] != "playing")
        assert end["status"] in ("hand_over", "finished")
        assert any("claim of the rest of the hand is accepted" in s for s in notices(bea))
        st = live(client, tid).table.state
        ev = [e for e in st.events() if e.kind == "trick"]
        assert ev[-1].seat in (1, 3)
        return True


# -------------------------------------------------------------------- the clock


def test_a_turn_clock_lets_the_bot_play_when_it_runs_out(tmp_path: Path) -> None:
    with make_client(tmp_path / "k.db", turn_seconds_min=1) as client, ExitStack() as stack:
        r = client.post("/api/tables", json={"game": "quinto", "turn_seconds": 0})
        assert r.status_code == 422 and r.json()["error"]["field"] == "turn_seconds"
        r = client.post("/api/tables", json={"game": "quinto", "turn_seconds": 601})
        assert r.status_code == 422
        ann = P(client, stack)
        t = create(
            client,
            cookie=ann.cookie,
            game="quinto",
            seats=["open"] + ["heuristic"] * 3,
            join={"seat": 0, "name": "Ann"},
            turn_seconds=1,
            seed=2,
        )
        st = ann.hello(t["id"], t["token"])
        assert st["social"] is not None
        m = ann.when(ann.my_turn)
        assert m["social"]["clock"]["seat"] == 0 and m["social"]["clock"]["seconds"] == 1
        t0 = time.monotonic()
        ann.when(lambda x: any("ran out" in s for s in notices(ann)))
        assert time.monotonic() - t0 >= 0.8
        assert any(
            "North's 1 s ran out: the heuristic bot played for North" in s for s in notices(ann)
        )
        assert any(e["kind"] == "action" and e["seat"] == 0 for e in ann.log)


# -------------------------------------------------------------------- the draw


def test_the_draw_seats_the_partners_and_the_first_dealer(client: TestClient) -> None:
    with ExitStack() as stack:
        ann = P(client, stack)
        r = client.post("/api/tables", json={"game": "quintus", "draw": True})
        assert r.status_code == 422 and r.json()["error"]["field"] == "draw"
        t = create(
            client,
            cookie=ann.cookie,
            game="quinto",
            seats=["random", "open", "heuristic", "random"],
            join={"seat": 1, "name": "Ann"},
            draw=True,
            seed=77,
        )
        st = ann.hello(t["id"], t["token"])
        lt = live(client, t["id"])
        drawn = draw_cards(77, [0, 1, 2, 3], find_game("quinto"))
        place, dealer = arrange(drawn, None, None, 4)
        order = sorted(drawn, key=lambda s: drawn[s], reverse=True)
        assert {place[order[0]], place[order[1]]} in ({0, 2}, {1, 3})  # the two highest partners
        assert dealer == place[order[0]]
        assert lt.table.match.hands[0].dealer == dealer
        assert lt.seats[place[1]].name == "Ann" and st["you"]["seat"] == place[1]
        assert [d["card"] for d in st["social"]["drawn"]]
        assert any(s.startswith("The draw: ") for s in notices(ann))
        # The token still opens Ann's (new) seat.
        again = P(client, stack)
        st2 = again.hello(t["id"], t["token"])
        assert st2["you"]["seat"] == place[1]


def test_the_dummy_draw_puts_the_lowest_card_alone() -> None:
    drawn = {0: 40, 1: 3, 3: 20}
    place, dealer = arrange(drawn, 0, 2, 4)
    assert place[1] == 0 and dealer == 0 and sorted(place.values()) == [0, 1, 3]


# ------------------------------------------------------------ rematch and series


def test_a_rematch_seats_the_same_people_and_passes_the_deal(client: TestClient) -> None:
    with ExitStack() as stack:
        ann = P(client, stack)
        t = create(
            client,
            cookie=ann.cookie,
            game="quintus",
            seats=["heuristic"] * 3 + ["open", "heuristic"],
            join={"seat": 3, "name": "Ann"},
            options={"hands": 1},
            seed=9,
            signals={"up": "I hold the ace"},
        )
        st = ann.hello(t["id"], t["token"])
        assert st["you"]["seat"] == 3
        ann.refused({"type": "rematch"}, "not_over")
        play_to(ann, lambda m: m["status"] == "finished")
        last_dealer = live(client, t["id"]).table.state.dealer
        ann.send({"type": "rematch", "id": "rm"})
        r = ann.kind("rematch")
        assert r["seat"] == 3 and r["token"]
        new = live(client, r["table"])
        assert new.table.match.hands[0].dealer == (last_dealer + 1) % 5
        assert new.seats[3].name == "Ann" and [s.kind for s in new.seats].count("bot") == 4
        assert new.social["signals"] == {"up": "I hold the ace"}
        assert new.social["series"]["number"] == 2
        assert (
            ann.when(lambda x: x["social"]["rematch"] is not None)["social"]["rematch"]["id"]
            == r["table"]
        )
        there = P(client, stack, cookie=ann.cookie)
        st2 = there.hello(r["table"], r["token"])
        assert st2["you"]["seat"] == 3 and st2["status"] == "playing"
        # Asked again (a reload): the same table, a fresh token.
        ann.send({"type": "rematch", "id": "again"})
        r2 = ann.until(lambda x: x.get("ref") == "again")
        assert r2["table"] == r["table"] and r2["token"] != r["token"]


def test_a_dummy_series_moves_the_lone_player_to_the_left(client: TestClient) -> None:
    with ExitStack() as stack:
        ann = P(client, stack)
        t = create(
            client,
            cookie=ann.cookie,
            game="quinto",
            variant="dummy",
            lone_seat=0,
            seats=["open", "heuristic", "heuristic", "heuristic"],
            join={"seat": 0, "name": "Ann"},
            options={"target": 40, "dummy_handicap": 0},
        )
        tid, token = t["id"], t["token"]
        lones, ann_seats, results = [], [], []
        for _game in range(3):
            p = P(client, stack, cookie=ann.cookie)
            st = p.hello(tid, token)
            lt = live(client, tid)
            lones.append(lt.lone_seat)
            ann_seats.append(st["you"]["seat"])
            assert lt.seats[lt.dummy_seat].kind == "dummy"
            play_to(p, lambda m: m["status"] == "finished")
            results.append(lt.result)
            p.send({"type": "rematch"})
            r = p.kind("rematch")
            tid, token = r["table"], r["token"]
        assert lones == [0, 1, 2]
        # Ann keeps her seat until it becomes the dummy's: then she takes the old dummy's.
        assert ann_seats == [0, 0, 3]
        series = live(client, tid).social["series"]
        assert series["number"] == 4 and len(series["games"]) == 3
        assert [g["lone_seat"] for g in series["games"]] == [0, 1, 2]
        assert all(r is not None for r in results)


# --------------------------------------------------------- lobby, rules, QR


def test_the_lobby_trap_seat_4_of_quintus_with_bots_starts_at_once(client: TestClient) -> None:
    with ExitStack() as stack:
        ann = P(client, stack)
        t = create(
            client,
            cookie=ann.cookie,
            game="quintus",
            seats=[{"kind": "bot", "level": "heuristic"}] * 4 + [{"kind": "open"}],
            join={"seat": 4, "name": "Ann"},
        )
        st = ann.hello(t["id"], t["token"])
        assert st["status"] == "playing" and st["you"]["seat"] == 4
        lobby = client.get("/api/tables").json()["tables"]
        line = next(x for x in lobby if x["id"] == t["id"])
        assert (
            line["open_seats"] == []
            and line["first"]["quintus"] == 4
            and line["first"]["dealer"] == 0
        )


def test_the_lobby_says_who_is_quintus_first_and_drops_idle_and_abandoned_tables(
    tmp_path: Path,
) -> None:
    with make_client(tmp_path / "l.db", lobby_idle_after=60) as client:
        t = create(client, game="quintus", seats=["open"] * 5)
        b = create(client, game="quintus", variant="bidding", seats=["open"] * 5)
        lines = {x["id"]: x for x in client.get("/api/tables").json()["tables"]}
        assert lines[t["id"]]["first"] == {"dealer": 0, "quintus": 4, "decided": True}
        assert lines[b["id"]]["first"]["quintus"] is None  # the auction decides
        hub = client.app.state.hub  # type: ignore[attr-defined]
        lt = hub.tables[t["id"]]
        lt.last_active -= 120  # nobody here for two minutes: out of the lobby
        ids = [x["id"] for x in client.get("/api/tables").json()["tables"]]
        assert t["id"] not in ids and b["id"] in ids
        assert client.get(f"/api/tables/{t['id']}").status_code == 200  # still open by link
        closed = client.portal.call(hub.sweep, time.time() + 2 * 86400)  # type: ignore[union-attr]
        assert t["id"] in closed and b["id"] in closed
        assert client.get("/api/tables").json()["tables"] == []
        assert client.get(f"/api/tables/{t['id']}").json()["status"] == "abandoned"


def test_the_rules_page_is_docs_rules_md_under_the_sites_header(client: TestClient) -> None:
    r = client.get("/rules")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    page = r.text
    assert '<a href="/">quintet</a>' in page and 'href="/" id="back"' in page
    assert "<h1>Rules of Quinto and Quintus" in page and "<table>" in page
    assert "<script" not in page and "style=" not in page
    text = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text()
    assert "Drawing for partners" in text or "Draw for partners" in text
    assert "Draw for partners (four players)" in page
    assert "default-src 'self'" in r.headers["content-security-policy"]


def test_the_invite_qr_code_is_an_svg_for_the_tables_players_only(client: TestClient) -> None:
    ann = new_cookie()
    t = create(
        client,
        cookie=ann,
        game="quinto",
        public=False,
        seats=["open", "open", "random", "random"],
        join={"seat": 0, "name": "Ann"},
    )
    r = client.get(
        f"/api/tables/{t['id']}/qr.svg?seat=1", headers={"cookie": f"quintet_person={ann}"}
    )
    assert r.status_code == 200 and r.headers["content-type"] == "image/svg+xml"
    assert r.content.startswith(b"<svg") and b"<script" not in r.content
    other = new_cookie()
    r = client.get(
        f"/api/tables/{t['id']}/qr.svg?seat=1", headers={"cookie": f"quintet_person={other}"}
    )
    assert r.status_code == 404  # a private table does not exist for others
    inv = t["seats"][1]["invite"]
    r = client.get(
        f"/api/tables/{t['id']}/qr.svg?seat=1&invite={inv}",
        headers={"cookie": f"quintet_person={other}"},
    )
    assert r.status_code == 403
    r = client.get(
        f"/api/tables/{t['id']}/qr.svg?seat=9", headers={"cookie": f"quintet_person={ann}"}
    )
    assert r.status_code == 404
    info = client.get("/api/info").json()
    assert info["chat_length"] == 300 and info["turn_seconds"] == [10, 600]


def test_signal_meanings_are_the_rulebooks_unless_agreed_otherwise(client: TestClient) -> None:
    r = client.post("/api/tables", json={"game": "quinto", "signals": {"up": "x"}})
    assert r.status_code == 422 and r.json()["error"]["field"] == "signals"
    r = client.post("/api/tables", json={"game": "quintus", "signals": {"sideways": "x"}})
    assert r.status_code == 422 and r.json()["error"]["field"] == "signals.sideways"
    t = create(client, game="quintus", signals={"ask": "lead your best suit"})
    info = client.get(f"/api/tables/{t['id']}").json()
    assert info["signals"]["ask"] == "lead your best suit"
    assert info["signals"]["up"] == "strong or high-value cards"


# ----------------------------------------------------------------- storage


def test_the_migration_to_0003_keeps_older_tables(tmp_path: Path) -> None:
    from alembic import command
    from alembic.config import Config

    url = f"sqlite:///{tmp_path / 'm.db'}"
    store = Store(url)
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(db.__file__).with_name("migrations")))
    with store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0002")
    t = db.now()
    with store.engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO quintet_tables (id, game, variant, options, seed, public, title,"
                " status, hands_dealt, created_at, updated_at, view_key) VALUES ('old', 'quinto',"
                " 'partnership', '{}', 7, true, 'kept', 'playing', 1, :t, :t, 'k')"
            ),
            {"t": t},
        )
        for s in range(4):
            conn.execute(
                sa.text(
                    "INSERT INTO quintet_seats (table_id, seat, kind, level, name, invite)"
                    " VALUES ('old', :s, 'bot', 'random', 'random bot', :i)"
                ),
                {"s": s, "i": f"inv{s}"},
            )
    store.migrate()
    assert schema_revision(store.engine) == db.HEAD_REVISION
    row = store.run_sync(lambda conn: db.load_table(conn, "old"))
    assert row is not None and row.first_dealer == 0 and row.social == {} and row.chat == []
    store.close()
