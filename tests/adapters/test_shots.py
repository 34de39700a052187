"""Kind shot through every road: HTTP (a real server, whose image URL serves the
shot's bytes), MCP and the CLI list and read the same shots and refuse alike."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import anyio
from click.testing import CliRunner
from PIL import Image

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.adapters.http import create_app
from tests.adapters.conftest import Api, LiveServer, mcp_session


def _png(w: int, h: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), "navy").save(buf, "PNG")
    return buf.getvalue()


SHOT = _png(390, 844)
PUSH = {
    "board": "docs",
    "doc": {"kind": "doc", "payload": {"title": "Set", "elements": []}},
    "files": [{"name": "cart.png", "data": base64.b64encode(SHOT).decode("ascii")}],
    "shots": [{"file": "cart.png", "device": "phone", "theme": "dark"}],
}


def test_shots_over_http(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "docs"})
    assert api.op("push_doc", PUSH).status_code == 200
    listed = api.op("list", {"kind": "shot", "board": "docs", "device": "phone"}).json()
    assert [(s["name"], s["theme"]) for s in listed["shots"]] == [("cart.png", "dark")]
    got = api.op("get", {"kind": "shot", "board": "docs", "name": "cart.png"})
    shot = got.json()["shot"]
    assert (shot["width"], shot["height"]) == (390, 844)
    image = api.client.get(shot["imageUrl"])
    assert image.status_code == 200 and image.content == SHOT
    assert image.headers["content-type"] == "image/png"
    missing = api.op("get", {"kind": "shot", "board": "docs", "name": "cart.pgn"})
    body = missing.json()
    assert (missing.status_code, body["code"], body["field"]) == (404, "unknown_shot", "name")


def test_shots_over_mcp() -> None:
    ws = Workspace.open()
    token = ws.create_token("agent", "claude")
    ws.call("create", {"kind": "board", "slug": "docs"})
    ws.call("push_doc", PUSH)

    async def script() -> tuple:
        with LiveServer(create_app(ws)) as server:
            async with mcp_session(server.url, token) as session:
                listed = await session.call_tool("list", {"kind": "shot", "board": "docs"})
                got = await session.call_tool(
                    "get", {"kind": "shot", "board": "docs", "name": "cart.png"}
                )
                refused = await session.call_tool(
                    "list", {"kind": "shot", "board": "docs", "version": 9}
                )
                return listed, got, refused

    listed, got, refused = anyio.run(script)
    ws.close()
    assert [s["name"] for s in listed.structured_content["shots"]] == ["cart.png"]
    assert got.structured_content["shot"]["attachAfter"] == {
        "setBoard": "docs",
        "branch": "main",
        "version": 1,
        "file": "cart.png",
    }
    assert refused.is_error is True
    assert (refused.structured_content["status"], refused.structured_content["code"]) == (
        404,
        "unknown_set_version",
    )


def test_shots_over_the_cli(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    runner = CliRunner()

    def call(op: str, params: dict) -> tuple[int, dict]:
        res = runner.invoke(main, ["call", op, json.dumps(params), "--db", db])
        return res.exit_code, json.loads(res.output)

    assert call("create", {"kind": "board", "slug": "docs"})[0] == 0
    assert call("push_doc", PUSH)[0] == 0
    code, got = call("get", {"kind": "shot", "board": "docs", "name": "cart.png"})
    assert code == 0 and got["shot"]["device"] == "phone"
    code, refused = call("get", {"kind": "shot", "board": "docs", "name": "nope.png"})
    assert (code, refused["code"], refused["field"]) == (1, "unknown_shot", "name")
