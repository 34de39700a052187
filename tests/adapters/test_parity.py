"""One registry, three roads: the same compose gives the same receipt everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx2
from click.testing import CliRunner
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.adapters.http import create_app, openapi_document
from layoutkit.adapters.mcp import _tools
from tests.adapters.conftest import Api, LiveServer

BATCH = {
    "board": "parity",
    "section": "Plan",
    "cards": [
        {"kind": "text", "ref": "a", "payload": {"md": "# Goal\nShip the engine"}},
        {"kind": "note", "ref": "b", "payload": {"md": "Remember the fonts"}},
        {
            "kind": "chart",
            "payload": {"viz": "pie", "data": {"items": [{"label": "x", "value": 2}]}},
        },
    ],
    "edges": [{"from": "a", "to": "b", "label": "then"}],
    "questions": [{"prompt": "Ship?", "options": ["yes", "no"], "cardRef": "a"}],
}


def _embedded() -> dict:
    with Workspace.open() as ws:
        ws.call("create", {"kind": "board", "slug": "parity"})
        return ws.call("compose_board", BATCH)


def _over_http() -> dict:
    ws = Workspace.open()
    with LiveServer(create_app(ws)) as server:
        api = Api(ws, server)
        api.op("create", {"kind": "board", "slug": "parity"})
        receipt = api.client.post(
            "/api/v1/boards/parity/compose", json={k: v for k, v in BATCH.items() if k != "board"}
        )
        api.client.close()
    ws.close()
    assert receipt.status_code == 200, receipt.text
    return receipt.json()


def _over_mcp() -> dict:
    ws = Workspace.open()
    token = ws.create_token("owner", "parity")

    async def main_() -> dict:
        with LiveServer(create_app(ws)) as server:
            async with (
                httpx2.AsyncClient(
                    headers={"authorization": f"Bearer {token}"}, timeout=30
                ) as client,
                streamable_http_client(f"{server.url}/mcp/", http_client=client) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                await session.call_tool("create", {"kind": "board", "slug": "parity"})
                result = await session.call_tool("compose_board", BATCH)
                assert result.is_error is False, result.structured_content
                return result.structured_content

    out = anyio.run(main_)
    ws.close()
    return out


def test_same_receipt_through_every_road() -> None:
    embedded = _embedded()
    assert embedded["cards"] and embedded["questions"]
    assert _over_http() == embedded
    assert _over_mcp() == embedded


def _conformance_sources() -> str:
    root = Path(__file__).resolve().parent.parent
    texts = []
    for path in sorted(root.rglob("test_*.py")):
        if path.name != Path(__file__).name:
            texts.append(path.read_text(encoding="utf-8"))
    return "\n".join(texts)


def test_every_operation_is_offered_everywhere_documented_and_tested(tmp_path: Path) -> None:
    ws = Workspace.open()
    names = [op["name"] for op in ws.operations()]
    tools = {t.name for t in _tools(ws)}
    openapi = {m["operationId"] for p in openapi_document(ws)["paths"].values() for m in p.values()}
    topics = {t["topic"] for t in ws.call("docs", {})["topics"]}
    tests = _conformance_sources()
    runner = CliRunner()
    missing: list[str] = []
    for name in names:
        if name not in tools:
            missing.append(f"{name}: no MCP tool")
        if name not in openapi:
            missing.append(f"{name}: not in the OpenAPI document")
        if f"op:{name}" not in topics:
            missing.append(f"{name}: no docs topic")
        if f'"{name}"' not in tests:
            missing.append(f"{name}: no conformance test mentions it")
        with runner.isolated_filesystem(temp_dir=tmp_path):
            res = runner.invoke(main, ["call", name, "{}"])
        if res.exit_code not in (0, 1):
            missing.append(f"{name}: layoutkit call exits {res.exit_code}")
        elif res.exit_code == 1 and json.loads(res.output).get("code") == "unknown_operation":
            missing.append(f"{name}: layoutkit call does not know it")
    assert not missing, "\n".join(missing)
