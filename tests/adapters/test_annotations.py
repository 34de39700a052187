"""Annotations through the adapters: the batch and verdict routes and the crop URL over a
real HTTP server, and annotate as an MCP tool in a client session with an agent token."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import anyio
import httpx
from click.testing import CliRunner
from mcp.client.session import ClientSession
from PIL import Image

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.adapters.http import create_app
from tests.adapters.conftest import Api, LiveServer, mcp_session


def _png(w: int, h: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (w, h), (30, 140, 200)).save(out, format="PNG")
    return out.getvalue()


def _cards(api: Api) -> tuple[int, int]:
    api.op("create", {"kind": "board", "slug": "rev"}).raise_for_status()
    shot = api.op(
        "upload_files",
        {
            "board": "rev",
            "files": [{"name": "s.png", "data": base64.b64encode(_png(640, 400)).decode()}],
        },
    ).json()["cards"][0]["id"]
    cards = [{"kind": "checklist", "payload": {"items": [{"text": "Pay now"}, {"text": "Later"}]}}]
    face = api.op("compose_board", {"board": "rev", "cards": cards}).json()["cards"][0]["id"]
    return shot, face


def test_the_batch_route_files_and_the_crop_url_serves_a_png(api: Api) -> None:
    shot, face = _cards(api)
    items = [
        {
            "key": "a",
            "cardId": shot,
            "cardVersion": 1,
            "region": {"x": 100.5, "y": 50, "w": 120, "h": 60},
            "image": {"width": 640, "height": 400},
            "prompt": {"summary": "Low contrast", "detail": "The button text is grey on blue"},
            "category": "contrast",
        },
        {
            "key": "b",
            "cardId": face,
            "cardVersion": 1,
            "region": {"text": "Pay now"},
            "prompt": "x",
        },
        {
            "key": "c",
            "cardId": face,
            "cardVersion": 1,
            "region": {"text": "pay now"},
            "prompt": "x",
        },
    ]
    dry = api.client.post(
        "/api/v1/boards/rev/annotations/batch",
        json={"agent": "claude", "items": items, "dryRun": True},
    )
    assert dry.status_code == 200, dry.text
    a, b, c = dry.json()["results"]
    assert [a["status"], b["status"], c["status"]] == ["created", "created", "unresolved"]
    crop = api.client.get(a["crop"])
    assert crop.status_code == 200 and crop.headers["content-type"] == "image/png"
    assert Image.open(io.BytesIO(crop.content)).size == (121, 60)  # rounded outwards
    face_crop = api.client.get(b["crop"])
    assert face_crop.status_code == 200
    w, h = Image.open(io.BytesIO(face_crop.content)).size
    assert abs(w - b["region"]["rect"]["w"]) <= 2 and abs(h - b["region"]["rect"]["h"]) <= 2
    # The crop URL asks for credentials like every API route.
    assert httpx.get(api.url + a["crop"]).status_code == 401
    assert api.op("scrape_board", {"board": "rev"}).json()["annotations"] == []

    filed = api.client.post(
        "/api/v1/boards/rev/annotations/batch", json={"agent": "claude", "items": items}
    )
    body = filed.json()
    assert filed.status_code == 200 and (body["created"], body["refused"]) == (2, 1)
    assert body["via"] == "via tests"
    again = api.client.post(
        "/api/v1/boards/rev/annotations/batch", json={"agent": "claude", "items": items[:1]}
    )
    assert again.json()["results"][0]["status"] == "existing"
    empty = api.client.post(
        "/api/v1/boards/rev/annotations/batch", json={"agent": "", "items": items}
    )
    assert empty.status_code == 422 and empty.json()["code"] == "invalid_agent"
    too_many = api.client.post(
        "/api/v1/boards/rev/annotations/batch",
        json={"agent": "claude", "items": [items[0]] * 101},
    )
    assert too_many.status_code == 413 and too_many.json()["limit"] == "annotationItems"


def test_the_verdict_route_is_for_people(api: Api) -> None:
    shot, _ = _cards(api)
    items = [
        {
            "key": f"k{i}",
            "cardId": shot,
            "cardVersion": 1,
            "region": {"nx": 0.1 * i, "ny": 0, "nw": 0.05, "nh": 0.05},
            "prompt": "x",
        }
        for i in range(3)
    ]
    agent = api.ws.create_token("agent", "claude")
    as_agent = {"authorization": f"Bearer {agent}"}
    filed = api.client.post(
        "/api/v1/boards/rev/annotations/batch", json={"items": items}, headers=as_agent
    )
    assert filed.status_code == 200 and filed.json()["author"] == "agent:claude"
    ids = [r["id"] for r in filed.json()["results"]]
    refused = api.client.post(
        "/api/v1/boards/rev/annotations/agent-verdict", json={"action": "accept"}, headers=as_agent
    )
    assert refused.status_code == 403
    one = api.client.post(
        "/api/v1/boards/rev/annotations/agent-verdict", json={"action": "dismiss", "ids": [ids[0]]}
    )
    assert one.status_code == 200 and [c["state"] for c in one.json()["changed"]] == ["cancelled"]
    rest = api.client.post(
        "/api/v1/boards/rev/annotations/agent-verdict", json={"action": "accept"}
    )
    assert [c["id"] for c in rest.json()["changed"]] == ids[1:]
    listed = api.op("scrape_board", {"board": "rev"}).json()["annotations"]
    assert [(a["id"], a["state"]) for a in listed] == [(ids[1], "open"), (ids[2], "open")]
    paths = api.client.get("/api/v1/openapi.json").json()["paths"]
    assert "post" in paths["/api/v1/boards/{slug}/annotations/batch"]
    assert "post" in paths["/api/v1/boards/{slug}/annotations/agent-verdict"]
    assert "get" in paths["/api/v1/boards/{slug}/cards/{id}/image"]


def test_annotate_as_an_mcp_tool_with_an_agent_token() -> None:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "rev"})
    cards = [
        {"kind": "checklist", "payload": {"items": [{"text": "Pay now"}, {"text": "Pay now"}]}}
    ]
    face = ws.call("compose_board", {"board": "rev", "cards": cards})["cards"][0]["id"]
    token = ws.create_token("agent", "claude")
    item = {
        "key": "a",
        "cardId": face,
        "cardVersion": 1,
        "region": {"text": "Pay now"},
        "prompt": "x",
    }

    async def script(session: ClientSession):  # type: ignore[no-untyped-def]
        tools = {t.name for t in (await session.list_tools()).tools}
        ambiguous = await session.call_tool("annotate", {"board": "rev", "items": [item]})
        pinned = await session.call_tool(
            "annotate",
            {"board": "rev", "items": [{**item, "region": {"text": "Pay now", "nth": 1}}]},
        )
        verdict = await session.call_tool("agent_verdict", {"board": "rev", "action": "accept"})
        fid = pinned.structured_content["results"][0]["id"]
        status = await session.call_tool("set_status", {"id": fid, "status": "working"})
        reply = await session.call_tool("reply", {"id": fid, "text": "On it"})
        return tools, ambiguous, pinned, verdict, status, reply

    async def main():  # type: ignore[no-untyped-def]
        with LiveServer(create_app(ws)) as server:
            async with mcp_session(server.url, token) as session:
                return await script(session)

    tools, ambiguous, pinned, verdict, status, reply = anyio.run(main)
    ws.close()
    assert {"annotate", "set_status", "attach_after", "reply"} <= tools
    assert "agent_verdict" not in tools
    assert ambiguous.is_error is False
    (r,) = ambiguous.structured_content["results"]
    assert r["status"] == "unresolved" and r["error"]["count"] == 2
    assert pinned.structured_content["results"][0]["status"] == "created"
    assert pinned.structured_content["author"] == "agent:claude"
    assert verdict.is_error is True and verdict.structured_content["code"] == "unknown_operation"
    # Still staged: an agent cannot accept its own findings, so it cannot start work.
    assert status.is_error is True and status.structured_content["code"] == "not_accepted"
    assert reply.is_error is False
    assert reply.structured_content["replies"][0]["author"] == "agent:claude"


def test_the_cli_files_and_gives_the_verdict_through_the_generic_call(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'ws.db'}"
    with Workspace.open(db) as ws:
        ws.call("create", {"kind": "board", "slug": "rev"})
        cards = [{"kind": "checklist", "payload": {"items": [{"text": "Pay now"}]}}]
        face = ws.call("compose_board", {"board": "rev", "cards": cards})["cards"][0]["id"]
    item = {
        "key": "a",
        "cardId": face,
        "cardVersion": 1,
        "region": {"text": "Pay now"},
        "prompt": "x",
    }
    runner = CliRunner()
    params = json.dumps({"board": "rev", "items": [item]})
    missing = runner.invoke(main, ["call", "annotate", params, "--db", db])
    assert missing.exit_code == 1 and json.loads(missing.output)["code"] == "missing_param"
    params = json.dumps({"board": "rev", "agent": "claude", "items": [item]})
    filed = runner.invoke(main, ["call", "annotate", params, "--db", db])
    assert filed.exit_code == 0, filed.output
    out = json.loads(filed.output)
    assert out["results"][0]["status"] == "created" and out["author"] == "agent:claude"
    verdict = runner.invoke(
        main,
        ["call", "agent_verdict", json.dumps({"board": "rev", "action": "accept"}), "--db", db],
    )
    assert verdict.exit_code == 0, verdict.output
    assert [c["state"] for c in json.loads(verdict.output)["changed"]] == ["open"]
