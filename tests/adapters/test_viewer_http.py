"""The viewer's HTTP side: the change stream (server-sent events), share-link deep links and
readable error pages, over a real server on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import queue
import re
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from click.testing import CliRunner
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from layoutkit import Workspace
from layoutkit.adapters import viewer
from layoutkit.adapters.cli import main
from layoutkit.adapters.http import CALLS_AT_ONCE, create_app
from layoutkit.elements import SPILL_THRESHOLD_ROWS
from layoutkit.principal import Principal
from tests.adapters.conftest import Api, LiveServer
from tests.conftest import POSTGRES_URL

AGENT = Principal.agent("claude")


class Stream:
    """One open event stream, read by a thread into a queue of (event, data, id)."""

    def __init__(
        self, api: Api, slug: str, *, headers: dict[str, str] | None = None, **query: Any
    ) -> None:
        self.events: queue.Queue[tuple[str, Any, str | None] | None] = queue.Queue()
        self.client = httpx.Client(base_url=api.url, timeout=httpx.Timeout(30, read=60))
        self.request = self.client.build_request(
            "GET",
            f"/api/v1/boards/{slug}/events",
            params=query,
            headers={"authorization": f"Bearer {api.token}", **(headers or {})},
        )
        self.response = self.client.send(self.request, stream=True)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        name, data, ident = "message", "", None
        # The stream ends by the server closing it or the test closing the client;
        # either way the reader reports the end (None) below.
        with contextlib.suppress(httpx.HTTPError):
            for line in self.response.iter_lines():
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    data = line[6:]
                elif line.startswith("id: "):
                    ident = line[4:]
                elif line == "" and data:
                    self.events.put((name, json.loads(data), ident))
                    name, data, ident = "message", "", None
        self.events.put(None)

    def next(self, timeout: float = 10) -> tuple[str, Any, str | None] | None:
        return self.events.get(timeout=timeout)

    def close(self) -> None:
        self.response.close()
        self.client.close()


@pytest.fixture
def board(api: Api) -> str:
    api.op("create", {"kind": "board", "slug": "live"})
    api.op("compose_board", {"board": "live", "cards": [{"kind": "note", "payload": {"md": "a"}}]})
    return "live"


def test_the_stream_pushes_each_change_with_its_rev(api: Api, board: str) -> None:
    start = api.op("board_outline", {"board": board}).json()
    stream = Stream(api, board, since=start["rev"], q=start["questions"], look=start["look"])
    try:
        assert stream.response.status_code == 200
        assert stream.response.headers["content-type"].startswith("text/event-stream")
        assert stream.response.headers["cache-control"] == "no-store"
        # Nothing changed since the page's rev: the stream stays quiet.
        with pytest.raises(queue.Empty):
            stream.next(timeout=1.5)
        out = api.ws.call(
            "compose_board",
            {"board": board, "cards": [{"kind": "note", "payload": {"md": "b"}}]},
            AGENT,
        )
        event = stream.next()
        assert event is not None
        name, data, ident = event
        assert name == "change" and ident == str(data["rev"]) and data["rev"] > start["rev"]
        assert [c["id"] for c in data["cards"]] == [out["cards"][0]["id"]]
        # A question asked shows as a new questions stamp, cards unchanged.
        api.ws.call("ask_board", {"board": board, "prompt": "Ok?", "options": ["yes"]}, AGENT)
        event = stream.next()
        assert event is not None and event[1]["questions"] != start["questions"]
        assert event[1]["cards"] == []
    finally:
        stream.close()


def test_a_reconnect_resumes_from_the_last_event_id(api: Api, board: str) -> None:
    start = api.op("board_outline", {"board": board}).json()
    api.ws.call(
        "compose_board", {"board": board, "cards": [{"kind": "note", "payload": {"md": "c"}}]}
    )
    # The browser sends the id of the last event it saw; what came after it arrives at once.
    stream = Stream(
        api,
        board,
        headers={"last-event-id": str(start["rev"])},
        since=0,
        q=start["questions"],
        look=start["look"],
    )
    try:
        event = stream.next()
        assert (
            event is not None and event[1]["since"] == start["rev"] and len(event[1]["cards"]) == 1
        )
    finally:
        stream.close()


def test_a_stream_ends_with_the_reason_when_its_link_is_revoked(api: Api, board: str) -> None:
    link = api.op("share_board", {"board": board}).json()
    token = link["url"].rsplit("/", 1)[-1]
    with (
        httpx.Client(base_url=api.url, timeout=30) as client,
        client.stream(
            "GET", f"/api/v1/boards/{board}/events", headers={"authorization": f"Bearer {token}"}
        ) as response,
    ):
        assert response.status_code == 200
        lines = response.iter_lines()
        assert any(line.startswith("event: change") for line in _until(lines, "data: "))
        api.op("revoke_share_link", {"board": board, "id": link["id"]})
        rest = list(lines)
    assert "event: gone" in rest
    gone = json.loads(next(line for line in rest if line.startswith("data: "))[6:])
    assert (gone["status"], gone["code"]) == (401, "unauthenticated")


def _until(lines: Iterator[str], prefix: str) -> list[str]:
    seen = []
    for line in lines:
        seen.append(line)
        if line.startswith(prefix):
            return seen
    return seen


def test_a_stream_is_refused_like_any_call(api: Api, board: str) -> None:
    bare = httpx.get(f"{api.url}/api/v1/boards/{board}/events", timeout=10)
    assert (bare.status_code, bare.json()["code"]) == (401, "unauthenticated")
    missing = api.client.get("/api/v1/boards/nowhere/events")
    assert (missing.status_code, missing.json()["code"]) == (404, "unknown_board")
    other = api.op("share_board", {"board": board}).json()["url"].rsplit("/", 1)[-1]
    api.op("create", {"kind": "board", "slug": "elsewhere"})
    refused = httpx.get(
        f"{api.url}/api/v1/boards/elsewhere/events",
        headers={"authorization": f"Bearer {other}"},
        timeout=10,
    )
    assert refused.status_code == 403


def test_a_stream_ends_after_its_time_and_the_browser_reconnects(
    api: Api, board: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(viewer, "STREAM_S", 1.0)
    # A stream that never ended would run into the client's read timeout instead.
    with httpx.Client(base_url=api.url, timeout=60) as client:
        res = client.get(
            f"/api/v1/boards/{board}/events", headers={"authorization": f"Bearer {api.token}"}
        )
    assert res.text.startswith(f"retry: {viewer.RETRY_MS}\n\n")


@pytest.fixture
def pg_api() -> Iterator[Api]:
    if not POSTGRES_URL:
        pytest.skip("LAYOUTKIT_TEST_POSTGRES_URL is not set; PostgreSQL tests need a server")
    ws = Workspace.open(POSTGRES_URL, name=f"test-{uuid.uuid4().hex[:12]}")
    try:
        with LiveServer(create_app(ws)) as server:
            api = Api(ws, server)
            try:
                yield api
            finally:
                api.client.close()
    finally:
        ws.close()


def test_waiting_streams_hold_no_connection_and_no_turn(
    monkeypatch: pytest.MonkeyPatch, pg_api: Api
) -> None:
    """More open streams than the server runs calls at once, and than the pool has
    connections: between checks they hold neither, so calls still answer at once."""
    api = pg_api
    # Long enough that no stream ends on its own however loaded the machine is: the
    # test closes them, and the server ends a stream at its next check after that.
    monkeypatch.setattr(viewer, "STREAM_S", 120.0)
    api.op("create", {"kind": "board", "slug": "many"})
    start = api.op("board_outline", {"board": "many"}).json()
    streams = [
        Stream(api, "many", since=start["rev"], q=start["questions"], look=start["look"])
        for _ in range(CALLS_AT_ONCE + 4)
    ]
    try:
        # Every stream is open (its headers came back), so each is in its loop of checks.
        engine = api.ws.store.engine  # type: ignore[attr-defined]
        held = []
        for _ in range(20):
            held.append(engine.pool.checkedout())
            time.sleep(0.05)
        # A check holds its connection for a few milliseconds: most samples see none.
        assert sorted(held)[len(held) // 2] <= 1, held
        # Were the waiting streams holding turns or connections, this call would wait
        # for them to end (STREAM_S): it must answer well before.
        made = api.client.post(
            "/api/v1/ops/compose_board",
            json={"board": "many", "cards": [{"kind": "note", "payload": {"md": "x"}}]},
            timeout=60,
        )
        assert made.status_code == 200, made.text
        for stream in streams:
            event = stream.next(timeout=60)
            assert event is not None and len(event[1]["cards"]) == 1
    finally:
        for stream in streams:
            stream.close()


def test_a_stopping_server_ends_its_event_streams_and_long_polls_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stop (Ctrl-C) used to wait for every open viewer's stream to run its course
    (25 s) and every long poll to time out. Here neither would end for an hour."""
    monkeypatch.setattr(viewer, "STREAM_S", 3600.0)
    ws = Workspace.open()
    server = LiveServer(create_app(ws))
    try:
        with server:
            api = Api(ws, server)
            api.op("create", {"kind": "board", "slug": "open"})
            stream = Stream(api, "open", since=0)
            assert stream.next(timeout=30) is not None  # the stream is open and sent
            polled: list[httpx.Response] = []
            poll = threading.Thread(
                target=lambda: polled.append(
                    api.op("wait_for_work", {"board": "open", "timeout": 60})
                )
            )
            poll.start()
            # The same long poll as an MCP tool (JSON answers, no session needed).
            asked = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "wait_for_work", "arguments": {"board": "open", "timeout": 60}},
            }
            mcp_polled: list[httpx.Response] = []
            mcp_poll = threading.Thread(
                target=lambda: mcp_polled.append(
                    api.client.post(
                        "/mcp/x/work",
                        json=asked,
                        headers={"accept": "application/json, text/event-stream"},
                        timeout=90,
                    )
                )
            )
            mcp_poll.start()
            # Both long polls are waiting on the store's wake-ups (not in a look).
            deadline = time.monotonic() + 30
            while ws.store.waker._waiting < 2:  # type: ignore[attr-defined]
                assert time.monotonic() < deadline, "the long poll never started waiting"
                time.sleep(0.01)
        # The server has stopped: its thread is done, not waiting out the hour.
        assert not server.thread.is_alive()
        poll.join(timeout=30)
        assert polled and polled[0].status_code == 200, polled and polled[0].text
        assert "idle" in polled[0].json()
        mcp_poll.join(timeout=30)
        assert mcp_polled and mcp_polled[0].status_code == 200, mcp_polled
        assert mcp_polled[0].json()["result"]["structuredContent"]["idle"] is True
        # The stream ended quietly: no "gone" event, the page simply reconnects.
        left = []
        while (event := stream.next(timeout=30)) is not None:
            left.append(event[0])
        assert "gone" not in left
        stream.close()
        api.client.close()
    finally:
        ws.close()


# --------------------------------------------------------------------------- links and pages


def test_a_share_link_made_for_a_card_redirects_to_it(api: Api, board: str) -> None:
    card = api.op("board_outline", {"board": board}).json()["cards"][0][0]
    url = api.op("share_board", {"board": board, "cardId": card}).json()["url"]
    res = httpx.get(f"{api.url}{url}", follow_redirects=False)
    assert res.status_code == 303
    assert res.headers["location"] == f"/boards/{board}?card={card}"
    plain = api.op("share_board", {"board": board}).json()["url"]
    assert httpx.get(f"{api.url}{plain}").headers["location"] == f"/boards/{board}"


def test_pages_a_person_meets_are_readable_html_and_the_api_answers_json(api: Api) -> None:
    page = httpx.get(f"{api.url}/no/such/page")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert "Page not found" in page.text and "/boards/" in page.text
    wrong = httpx.post(f"{api.url}/boards/x")
    assert wrong.status_code == 405 and "Not allowed here" in wrong.text
    api_missing = api.client.get("/api/v1/no-such-route")
    assert api_missing.status_code == 404
    assert api_missing.json() == {"code": "not_found", "message": "Not Found"}
    revoked = httpx.get(f"{api.url}/s/lks_not-a-real-token")
    assert revoked.status_code == 404 and "Ask whoever shared the board" in revoked.text
    bad_token = httpx.get(f"{api.url}/boards/x?token=nope")
    assert bad_token.status_code == 401 and "layoutkit token create" in bad_token.text
    assert "Bearer" not in bad_token.text


def test_the_viewer_page_names_the_operations_it_uses(api: Api, board: str) -> None:
    page = httpx.get(f"{api.url}/boards/{board}")
    assert page.status_code == 200
    # The script is one file for every board, served without a credential, kept by
    # the browser under the address the page names and asked again under any other.
    (src,) = re.findall(r'<script src="(/viewer\.js\?v=[0-9a-f]+)"', page.text)
    script = httpx.get(f"{api.url}{src}")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert "immutable" in script.headers["cache-control"]
    assert httpx.get(f"{api.url}/viewer.js?v=old").headers["cache-control"] == "no-cache"
    for name in (
        "board_outline",
        "render_board",
        "board_changes",
        "tick_checklist",
        "answer_question",
        "send_answers",
        "update_cards",
        "/events",
    ):
        assert name in script.text, name
    # The board's name reaches the script as data, never as script text.
    assert json.loads(re.findall(r'id="viewer-config"[^>]*>(.*?)</script>', page.text)[0]) == {
        "slug": board,
        "poll": viewer.POLL_MS,
        # The table editor stops where the server would keep a table's rows apart.
        "inlineRows": SPILL_THRESHOLD_ROWS,
    }
    ops = {op["name"] for op in api.ws.operations()}
    assert {"board_outline", "board_changes", "tick_checklist"} <= ops


# --------------------------------------------------------------------------- the other roads


def test_an_agent_ticks_and_reads_the_outline_over_mcp(api: Api, board: str) -> None:

    card = api.op(
        "compose_board",
        {"board": board, "cards": [{"kind": "checklist", "payload": {"items": [{"text": "a"}]}}]},
    ).json()["cards"][0]["id"]
    agent = api.ws.create_token("agent", "claude")

    async def main() -> tuple[Any, Any]:
        http = httpx2.AsyncClient(headers={"authorization": f"Bearer {agent}"}, timeout=30)
        async with (
            http,
            streamable_http_client(f"{api.url}/mcp/", http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            ticked = await session.call_tool(
                "tick_checklist", {"id": card, "item": 0, "done": True}
            )
            outline = await session.call_tool("board_outline", {"board": board})
            return ticked, outline

    ticked, outline = anyio.run(main)
    assert ticked.is_error is False and ticked.structured_content["changed"] is True
    assert card in [row[0] for row in outline.structured_content["cards"]]
    with api.ws.store.read() as tx:
        record = tx.card(card)
        assert record is not None and record.payload["items"][0]["done"] is True


def test_the_cli_ticks_through_call(tmp_path: Any) -> None:

    db = f"sqlite:///{tmp_path / 'ws.db'}"
    with Workspace.open(db) as ws:
        ws.call("create", {"kind": "board", "slug": "cli"})
        card = ws.call(
            "compose_board",
            {
                "board": "cli",
                "cards": [{"kind": "checklist", "payload": {"items": [{"text": "a"}]}}],
            },
        )["cards"][0]["id"]
    params = json.dumps({"id": card, "item": 0, "done": True})
    res = CliRunner().invoke(main, ["call", "tick_checklist", params, "--db", db])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["items"] == [{"text": "a", "done": True}]
    res = CliRunner().invoke(
        main, ["call", "tick_checklist", '{"id": 999999, "item": 0, "done": true}', "--db", db]
    )
    assert res.exit_code == 1 and "unknown_card" in res.output


def test_the_stream_pushes_who_else_is_on_the_board_and_when_they_leave(
    api: Api, board: str
) -> None:
    start = api.op("board_outline", {"board": board}).json()
    card = start["cards"][0][0]
    ana = Principal.user("ana")
    # A page that follows people hears the list at once, empty while it is alone.
    stream = Stream(
        api, board, since=start["rev"], q=start["questions"], look=start["look"], people=1
    )
    try:
        event = stream.next()
        assert event is not None and event[0] == "presence" and event[1] == {"presence": []}
        api.ws.call("board_presence", {"board": board, "cursor": {"x": 5, "y": 6}}, ana)
        event = stream.next()
        assert event is not None and event[0] == "presence"
        (seen,) = event[1]["presence"]
        assert (seen["who"], seen["cursor"]) == ({"kind": "user", "name": "ana"}, {"x": 5, "y": 6})
        # Each move is pushed; a heartbeat that moves nothing is not.
        api.ws.call("board_presence", {"board": board, "selection": [card]}, ana)
        event = stream.next()
        assert event is not None and event[1]["presence"][0]["selection"] == [card]
        api.ws.call("board_presence", {"board": board, "selection": [card]}, ana)
        with pytest.raises(queue.Empty):
            stream.next(timeout=1.0)
        # A page that leaves is gone from the next list; the board never changed.
        api.ws.call("board_presence", {"board": board, "leave": True}, ana)
        event = stream.next()
        assert event is not None and event[0] == "presence" and event[1]["presence"] == []
        with pytest.raises(queue.Empty):
            stream.next(timeout=0.6)
    finally:
        stream.close()


def test_a_guest_stream_leaves_out_its_own_page_and_a_bad_page_is_refused(
    api: Api, board: str
) -> None:
    token = api.op("share_board", {"board": board}).json()["url"].rsplit("/", 1)[-1]
    guest = {"authorization": f"Bearer {token}"}
    for page in ("g1", "g2"):
        res = api.client.post(
            "/api/v1/ops/board_presence",
            json={"board": board, "page": page, "cursor": {"x": 1, "y": 1}},
            headers=guest,
        )
        assert res.status_code == 200, res.text
    stream = Stream(api, board, headers=guest, page="g1", people=1)
    try:
        event = stream.next()
        while event is not None and event[0] != "presence":
            event = stream.next()
        assert event is not None
        assert [p["who"]["name"] for p in event[1]["presence"]] == ["Guest"]
    finally:
        stream.close()
    bad = api.client.get(f"/api/v1/boards/{board}/events", params={"page": "no spaces"})
    assert (bad.status_code, bad.json()["code"], bad.json()["field"]) == (
        400,
        "invalid_params",
        "page",
    )
