"""get {kind: annotations} and the findings' stamp through the adapters: HTTP on a real
server (with the event stream waking a page on a verdict), an MCP client session and
the CLI's generic call."""

from __future__ import annotations

import json
import queue
from pathlib import Path
from typing import Any

import anyio
from click.testing import CliRunner

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.adapters.http import create_app
from layoutkit.principal import Principal
from tests.adapters.conftest import Api, LiveServer, mcp_session
from tests.adapters.test_viewer_http import Stream

AGENT = Principal.agent("claude")


def _seed(ws: Workspace) -> tuple[int, int]:
    ws.call("create", {"kind": "board", "slug": "rev"})
    cards = [{"kind": "note", "payload": {"md": "Pay now"}}]
    card = ws.call("compose_board", {"board": "rev", "cards": cards}, AGENT)["cards"][0]["id"]
    item = {
        "key": "k1",
        "cardId": card,
        "cardVersion": 1,
        "region": {"nx": 0.1, "ny": 0.1, "nw": 0.3, "nh": 0.3},
        "prompt": {"summary": "Low contrast", "detail": "2.1:1"},
        "severity": "high",
    }
    out = ws.call("annotate", {"board": "rev", "items": [item]}, AGENT)
    return card, out["results"][0]["id"]


def test_http_lists_findings_and_the_stream_wakes_a_page_on_a_verdict(api: Api) -> None:
    card, fid = _seed(api.ws)
    listed = api.op("get", {"kind": "annotations", "board": "rev"})
    assert listed.status_code == 200
    (one,) = listed.json()["annotations"]
    assert (one["id"], one["cardId"], one["state"], one["prompt"]["detail"]) == (
        fid,
        card,
        "staged",
        "2.1:1",
    )
    bad = api.op("get", {"kind": "annotations", "board": "rev", "states": ["later"]})
    assert bad.status_code == 400
    start = api.op("board_outline", {"board": "rev"}).json()
    stream = Stream(
        api,
        "rev",
        since=start["rev"],
        q=start["questions"],
        look=start["look"],
        a=start["annotations"],
    )
    try:
        # Nothing new: quiet. A person's verdict elsewhere: one change with the new stamp.
        try:
            got = stream.next(timeout=1.5)
        except queue.Empty:
            got = None
        assert got is None
        verdict = api.client.post(
            "/api/v1/boards/rev/annotations/agent-verdict", json={"action": "accept"}
        )
        assert verdict.status_code == 200
        event = stream.next()
        assert event is not None
        name, data, _ = event
        assert name == "change" and data["annotations"] != start["annotations"]
        assert data["rev"] == start["rev"] and data["cards"] == []
    finally:
        stream.close()
    assert [
        a["state"]
        for a in api.op("get", {"kind": "annotations", "board": "rev"}).json()["annotations"]
    ] == ["open"]


def test_an_mcp_client_reads_the_findings_with_the_generic_get() -> None:
    ws = Workspace.open()
    _, fid = _seed(ws)
    token = ws.create_token("agent", "claude")

    async def run() -> Any:
        with LiveServer(create_app(ws)) as server:
            async with mcp_session(server.url, token) as session:
                tool = next(t for t in (await session.list_tools()).tools if t.name == "get")
                got = await session.call_tool("get", {"kind": "annotations", "board": "rev"})
                return tool, got

    tool, got = anyio.run(run)
    ws.close()
    assert "annotations" in tool.input_schema["properties"]["kind"]["enum"]
    assert "states" in tool.input_schema["properties"]
    assert got.is_error is False
    assert [a["id"] for a in got.structured_content["annotations"]] == [fid]


def test_the_cli_reads_the_findings_with_the_generic_call(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'ws.db'}"
    with Workspace.open(db) as ws:
        _, fid = _seed(ws)
    runner = CliRunner()
    params = json.dumps({"kind": "annotations", "board": "rev", "states": ["staged"]})
    out = runner.invoke(main, ["call", "get", params, "--db", db])
    assert out.exit_code == 0, out.output
    assert [a["id"] for a in json.loads(out.output)["annotations"]] == [fid]
