"""The kinds tag, section and questions over HTTP, MCP and the CLI, and the tag page
that search's tag hits link to."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
from click.testing import CliRunner

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.adapters.http import create_app
from tests.adapters.conftest import Api, LiveServer, mcp_session


def test_kinds_over_http(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "plan", "tags": ["Design"]})
    made = api.op("create", {"kind": "tag", "name": "design", "colour": "#cc3366"})
    assert made.status_code == 200, made.text
    assert made.json()["tag"]["count"] == 1
    clash = api.op("create", {"kind": "tag", "name": "DESIGN", "colour": "#000000"})
    assert clash.status_code == 409
    assert (clash.json()["code"], clash.json()["field"]) == ("tag_exists", "name")
    tags = api.op("list", {"kind": "tag"}).json()["tags"]
    assert [(t["tag"], t["colour"]) for t in tags] == [("design", "#cc3366")]
    got = api.op("get", {"kind": "tag", "tag": "Design"}).json()
    assert [b["slug"] for b in got["boards"]] == ["plan"]
    updated = api.op("update", {"kind": "tag", "tag": "design", "description": "UI work"})
    assert updated.json()["tag"]["description"] == "UI work"

    section = api.op("create", {"kind": "section", "board": "plan", "title": "Intro"})
    assert section.status_code == 200, section.text
    listed = api.op("list", {"kind": "section", "board": "plan"}).json()["sections"]
    assert [s["title"] for s in listed] == ["Intro"]
    near = api.op("create", {"kind": "section", "board": "plan", "title": "intro?"})
    assert (near.status_code, near.json()["code"], near.json()["field"]) == (
        409,
        "section_near_match",
        "title",
    )

    api.op("ask_board", {"board": "plan", "prompt": "Ship?", "options": ["yes", "no"]})
    questions = api.op("list", {"kind": "questions", "board": "plan"}).json()
    assert questions["counts"] == {"staged": 1, "answered": 0, "released": 0}
    bad = api.op("list", {"kind": "questions", "board": "plan", "state": "sent"})
    assert (bad.status_code, bad.json()["field"]) == (400, "state")


def test_tag_page_serves_search_tag_links(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "plan", "tags": ["ux"]})
    hit = api.op("search", {"q": "ux"}).json()["groups"]["tags"][0]
    path = hit["url"].removeprefix(api.url)
    assert path == "/?tag=ux"
    page = api.client.get(path)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert 'const TAG = "ux";' in page.text
    assert "Boards tagged “ux”" in page.text
    # What the page reads is get kind tag, with the cookie it got from ?token=.
    traded = api.client.get(f"/?tag=ux&token={api.token}", follow_redirects=False)
    assert traded.status_code == 303
    assert traded.headers["location"] == "/?tag=ux"
    assert "lk_token" in traded.headers["set-cookie"]
    assert "/api/v1/ops/" in page.text and '"get", {kind: "tag", tag: TAG}' in page.text
    index = api.client.get("/")
    assert index.status_code == 200 and "const TAG = null;" in index.text
    # A name cannot break out of the script it is written into.
    hostile = api.client.get("/", params={"tag": "</script><b>x"})
    assert "</script><b>" not in hostile.text
    bad = api.client.get("/?token=nope")
    assert bad.status_code in (401, 404)


def test_kinds_over_mcp() -> None:
    ws = Workspace.open()
    token = ws.create_token("owner", "kinds")

    async def run() -> None:
        with LiveServer(create_app(ws)) as server:
            async with mcp_session(server.url, token) as session:
                await session.call_tool("create", {"kind": "board", "slug": "plan"})
                tag = await session.call_tool("create", {"kind": "tag", "name": "Ops"})
                assert tag.is_error is False, tag.structured_content
                assert tag.structured_content["tag"]["tag"] == "ops"
                got = await session.call_tool("get", {"kind": "tag", "tag": "OPS"})
                assert got.structured_content["tag"]["name"] == "Ops"
                changed = await session.call_tool(
                    "update", {"kind": "tag", "tag": "ops", "colour": "#00aa00"}
                )
                assert changed.structured_content["tag"]["colour"] == "#00aa00"
                listed = await session.call_tool("list", {"kind": "tag"})
                assert [t["tag"] for t in listed.structured_content["tags"]] == ["ops"]
                made = await session.call_tool(
                    "create", {"kind": "section", "board": "plan", "title": "Findings"}
                )
                assert made.structured_content["created"] is True
                sections = await session.call_tool("list", {"kind": "section", "board": "plan"})
                assert [s["title"] for s in sections.structured_content["sections"]] == ["Findings"]
                await session.call_tool(
                    "ask_board", {"board": "plan", "prompt": "Ship?", "options": ["yes", "no"]}
                )
                qs = await session.call_tool("list", {"kind": "questions", "board": "plan"})
                assert [q["state"] for q in qs.structured_content["questions"]] == ["staged"]
                refused = await session.call_tool("get", {"kind": "tag", "tag": "nope"})
                assert refused.is_error is True

    try:
        anyio.run(run)
    finally:
        ws.close()


def _cli(db: str, op: str, params: dict) -> tuple[int, dict]:
    res = CliRunner().invoke(main, ["call", op, json.dumps(params), "--db", db])
    return res.exit_code, json.loads(res.output)


def test_kinds_over_the_cli(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'ws.db'}"
    assert _cli(db, "create", {"kind": "board", "slug": "plan", "tags": ["web"]})[0] == 0
    code, out = _cli(db, "create", {"kind": "tag", "name": "Wéb", "description": "site"})
    assert code == 0 and out["tag"] == {**out["tag"], "tag": "web", "count": 1}
    code, out = _cli(db, "list", {"kind": "tag"})
    assert [t["description"] for t in out["tags"]] == ["site"]
    code, out = _cli(db, "create", {"kind": "section", "board": "plan", "title": "Intro"})
    assert code == 0 and out["section"]["title"] == "Intro"
    code, out = _cli(db, "list", {"kind": "questions", "board": "plan"})
    assert code == 0 and out == {
        "questions": [],
        "counts": {"staged": 0, "answered": 0, "released": 0},
    }
    code, out = _cli(db, "get", {"kind": "tag", "tag": "nope"})
    assert code != 0 and (out["code"], out["field"]) == ("unknown_tag", "tag")
