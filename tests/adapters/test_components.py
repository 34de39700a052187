"""Kind component through every road: saved over HTTP, MCP and the CLI, and
instantiated by compose_board on each, with the same refusals."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
from click.testing import CliRunner

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.adapters.http import create_app
from tests.adapters.conftest import Api, LiveServer, mcp_session

CARDS = {
    "board": "src",
    "cards": [
        {"kind": "text", "ref": "a", "payload": {"md": "Open Checkout"}},
        {"kind": "note", "ref": "b", "payload": {"md": "Then pay"}},
    ],
    "edges": [{"from": "a", "to": "b"}],
}


def _save(ids: list[int]) -> dict:
    return {
        "kind": "component",
        "board": "src",
        "name": "pair",
        "cardIds": ids,
        "slots": {"feature": "Checkout"},
    }


def test_components_over_http(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "src"})
    api.op("create", {"kind": "board", "slug": "dst"})
    ids = [c["id"] for c in api.op("compose_board", CARDS).json()["cards"]]
    made = api.op("create", _save(ids))
    assert made.status_code == 200, made.text
    assert made.json()["component"]["slots"] == ["feature"]
    listed = api.op("list", {"kind": "component"}).json()["items"]
    assert [c["name"] for c in listed] == ["pair"]
    got = api.op("get", {"kind": "component", "name": "pair"}).json()["component"]
    assert len(got["definition"]["edges"]) == 1
    composed = api.op(
        "compose_board", {"board": "dst", "template": "pair", "params": {"feature": "Search"}}
    )
    assert composed.status_code == 200, composed.text
    assert len(composed.json()["edges"]) == 1
    missing = api.op("get", {"kind": "component", "name": "piar"})
    body = missing.json()
    assert (missing.status_code, body["code"], body["field"]) == (404, "unknown_component", "name")


def test_components_over_mcp() -> None:
    ws = Workspace.open()
    token = ws.create_token("agent", "claude")
    ws.call("create", {"kind": "board", "slug": "src"})
    ws.call("create", {"kind": "board", "slug": "dst"})
    ids = [c["id"] for c in ws.call("compose_board", CARDS)["cards"]]

    async def script() -> tuple:
        with LiveServer(create_app(ws)) as server:
            async with mcp_session(server.url, token) as session:
                made = await session.call_tool("create", _save(ids))
                composed = await session.call_tool(
                    "compose_board", {"board": "dst", "template": "pair"}
                )
                refused = await session.call_tool(
                    "compose_board",
                    {"board": "dst", "template": "pair", "params": {"feat": "x"}},
                )
                return made, composed, refused

    made, composed, refused = anyio.run(script)
    cards = ws.call("scrape_board", {"board": "dst"})["cards"]
    ws.close()
    assert made.is_error is False
    assert made.structured_content["component"]["writtenBy"] == "agent:claude"
    assert composed.is_error is False
    # No params: the slot renders literally.
    assert [c["payload"]["md"] for c in cards] == ["Open {feature}", "Then pay"]
    assert refused.is_error is True
    assert (refused.structured_content["status"], refused.structured_content["code"]) == (
        400,
        "unknown_slot",
    )


def test_components_over_the_cli(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    runner = CliRunner()

    def call(op: str, params: dict) -> tuple[int, dict]:
        res = runner.invoke(main, ["call", op, json.dumps(params), "--db", db])
        return res.exit_code, json.loads(res.output)

    call("create", {"kind": "board", "slug": "src"})
    ids = [c["id"] for c in call("compose_board", CARDS)[1]["cards"]]
    code, made = call("create", _save(ids))
    assert code == 0 and made["component"]["cards"] == 2
    code, got = call("get", {"kind": "component", "name": "pair"})
    assert code == 0 and got["component"]["layout"] in ("row", "column", "grid")
    code, refused = call("create", {**_save([ids[0], 999])})
    assert (code, refused["code"], refused["field"]) == (1, "unknown_card", "cardIds[1]")
