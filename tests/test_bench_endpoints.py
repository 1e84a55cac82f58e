"""The benchmarks' websocket endpoints (``quintet serve --echo``): the echo and the
fan-out floor ``bench/server_load.py`` measures beside the tables."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from quintet.server.app import create_app
from quintet.server.settings import Settings


def make_client(path: Path, echo: bool) -> TestClient:
    settings = Settings(db_url=f"sqlite:///{path}", search_workers=1, echo=echo)
    return TestClient(create_app(settings))


def test_a_fanout_sends_each_text_to_every_member_of_its_group(tmp_path: Path) -> None:
    with make_client(tmp_path / "s.db", echo=True) as client, ExitStack() as stack:
        group = [
            stack.enter_context(client.websocket_connect("/bench/fanout/g1")) for _ in range(4)
        ]
        other = stack.enter_context(client.websocket_connect("/bench/fanout/g2"))
        for i, sender in enumerate(group):
            text = f'{{"n":{i}}}'
            sender.send_text(text)
            assert [ws.receive_text() for ws in group] == [text] * 4
        other.send_text("alone")
        assert other.receive_text() == "alone"  # only its own group: itself


def test_a_fanout_group_holds_four_members_at_most(tmp_path: Path) -> None:
    with make_client(tmp_path / "s.db", echo=True) as client, ExitStack() as stack:
        for _ in range(4):
            stack.enter_context(client.websocket_connect("/bench/fanout/g"))
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            client.websocket_connect("/bench/fanout/g") as fifth,
        ):
            fifth.receive_text()
        assert refused.value.code == 1008


def test_the_bench_endpoints_exist_only_with_echo(tmp_path: Path) -> None:
    with make_client(tmp_path / "s.db", echo=False) as client:
        for path in ("/bench/echo", "/bench/fanout/g"):
            with pytest.raises(WebSocketDisconnect), client.websocket_connect(path) as ws:
                ws.receive_text()
    with (
        make_client(tmp_path / "t.db", echo=True) as client,
        client.websocket_connect("/bench/echo") as ws,
    ):
        ws.send_text("ping")
        assert ws.receive_text() == "ping"
