"""Review rules end to end: HTTP routes of a running server, an MCP client session, the CLI."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx
import httpx2
from click.testing import CliRunner
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.adapters.http import create_app
from layoutkit.review import rules
from tests.adapters.conftest import Api, LiveServer

SOURCE = """---
id: tone
family: copy
check: judgment
severity: medium
---

Words on the screen are kind.

Verify:

- no blame in error messages
"""


# ---------------------------------------------------------------- HTTP


def test_project_rule_routes(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "home", "project": "shop"})
    base = "/api/v1/projects/shop/review"
    listed = api.client.get(f"{base}/rules")
    assert listed.status_code == 200
    assert [r["id"] for r in listed.json()["rules"]] == list(rules.BUILTIN_IDS)

    put = api.client.put(f"{base}/rules/tone", json={"source": SOURCE})
    assert put.status_code == 200, put.text
    assert (put.json()["layer"], put.json()["version"]) == ("project", 1)
    patch = api.client.put(f"{base}/rules/copy", json={"enabled": False})
    assert patch.json()["rule"]["enabled"] is False

    got = api.client.get(f"{base}/rules/tone", params={"history": "true", "version": "1"})
    assert got.status_code == 200, got.text
    assert got.json()["source"] == SOURCE
    assert [h["version"] for h in got.json()["history"]] == [1]

    brief = api.client.get(f"{base}/brief", params={"persona": "a shop owner"})
    assert brief.status_code == 200
    text = brief.json()["brief"]
    assert "[tone, web+mobile, medium] Words on the screen are kind." in text
    assert "[copy," not in text and text.rstrip().endswith("review as a shop owner.")

    deleted = api.client.delete(f"{base}/rules/copy")
    assert deleted.status_code == 200 and deleted.json()["now"]["layer"] == "builtin"
    cleared = api.client.delete(f"{base}/rules")
    assert [d["id"] for d in cleared.json()["deleted"]] == ["tone"]
    missing = api.client.get(f"{base}/rules/tone")
    assert (missing.status_code, missing.json()["code"]) == (404, "unknown_rule")


def test_workspace_rule_routes_and_put_without_id(api: Api) -> None:
    put = api.client.put("/api/v1/review/rules", json={"source": SOURCE})
    assert put.status_code == 200 and put.json()["layer"] == "workspace"
    got = api.client.get("/api/v1/review/rules/tone").json()
    assert (got["rule"]["layer"], got["rule"]["version"]) == ("workspace", 1)
    assert api.client.delete("/api/v1/review/rules/tone").status_code == 200


def test_http_refusals_carry_status_code_and_field(api: Api) -> None:
    base = "/api/v1/review/rules"
    bad = api.client.put(f"{base}/tone", json={"source": SOURCE.replace("medium", "loud")})
    assert (bad.status_code, bad.json()["code"], bad.json()["field"]) == (
        422,
        "invalid_rule",
        "source",
    )
    assert bad.json()["findings"][0]["code"] == "invalid-severity"
    mismatch = api.client.put(f"{base}/other", json={"source": SOURCE})
    assert (mismatch.status_code, mismatch.json()["code"]) == (400, "id_mismatch")
    agent = api.ws.create_token("agent", "claude")
    refused = httpx.put(
        f"{api.url}{base}/tone",
        json={"source": SOURCE},
        headers={"authorization": f"Bearer {agent}"},
    )
    assert (refused.status_code, refused.json()["code"]) == (403, "forbidden")
    read = httpx.get(f"{api.url}{base}", headers={"authorization": f"Bearer {agent}"})
    assert read.status_code == 200


# ---------------------------------------------------------------- MCP


def test_mcp_session_requests_a_review_and_writes_rules() -> None:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "home", "project": "shop"})
    owner = ws.create_token("owner", "mcp")
    agent = ws.create_token("agent", "claude")

    async def session_as(token: str, server: LiveServer, script):  # type: ignore[no-untyped-def]
        async with (
            httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=30) as client,
            streamable_http_client(f"{server.url}/mcp/x/review/", http_client=client) as (
                read,
                write,
            ),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await script(session)

    async def as_owner(session: ClientSession):  # type: ignore[no-untyped-def]
        put = await session.call_tool("put_review_rule", {"project": "shop", "source": SOURCE})
        lint = await session.call_tool(
            "lint_review_rule", {"source": SOURCE.replace("severity: medium", "severity: Hgh")}
        )
        return put, lint

    async def as_agent(session: ClientSession):  # type: ignore[no-untyped-def]
        brief = await session.call_tool("review_brief", {"project": "shop"})
        plain = await session.call_tool("request_review", {"project": "shop"})
        told = await session.call_tool(
            "request_review", {"project": "shop", "instructions": "Only the header."}
        )
        refused = await session.call_tool("delete_review_rule", {"project": "shop", "id": "tone"})
        return brief, plain, told, refused

    async def main_():  # type: ignore[no-untyped-def]
        with LiveServer(create_app(ws)) as server:
            first = await session_as(owner, server, as_owner)
            second = await session_as(agent, server, as_agent)
            return first, second

    (put, lint), (brief, plain, told, refused) = anyio.run(main_)
    ws.close()
    assert put.is_error is False and put.structured_content["version"] == 1
    assert lint.structured_content["findings"][0]["didYouMean"] == ["high"]
    assert "[tone, web+mobile, medium]" in brief.structured_content["brief"]
    assert plain.structured_content["sent"] == brief.structured_content["brief"]
    assert told.structured_content["sent"] == "Only the header."
    assert refused.is_error is True
    assert (refused.structured_content["status"], refused.structured_content["code"]) == (
        403,
        "forbidden",
    )


# ---------------------------------------------------------------- CLI


def _run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_cli_review_rules(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'ws.db'}"
    path = tmp_path / "tone.md"
    path.write_text(SOURCE, encoding="utf-8")
    listed = _run("review", "rules", "list", "--db", db)
    assert listed.exit_code == 0 and listed.stdout.splitlines()[1].startswith("broken ")

    put = _run("review", "rules", "put", str(path), "--project", "shop", "--db", db)
    assert put.exit_code == 0, put.output
    assert "tone: project layer, version 1" in put.stdout
    both = _run("review", "rules", "put", str(path), "--db", db)
    assert both.exit_code == 2
    ws_put = _run("review", "rules", "put", str(path), "--workspace", "--db", db, "--json")
    assert '"layer": "workspace"' in ws_put.stdout

    got = _run("review", "rules", "get", "tone", "--project", "shop", "--db", db)
    assert got.exit_code == 0 and got.stdout == SOURCE
    brief = _run("review", "brief", "--project", "shop", "--persona", "a buyer", "--db", db)
    assert "[tone, web+mobile, medium]" in brief.stdout
    assert brief.stdout.rstrip().endswith("Persona: review as a buyer.")
    unknown = _run("review", "rules", "get", "tonne", "--db", db)
    assert unknown.exit_code == 1 and "unknown_rule" in unknown.stderr


def test_cli_lint_and_fix(tmp_path: Path) -> None:
    path = tmp_path / "Calm Tone.md"
    broken = "\ufeff" + SOURCE.replace("id: tone\n", "").replace("check: judgment\n", "")
    path.write_text(broken, encoding="utf-8")
    res = _run("review", "rules", "lint", str(path))
    assert res.exit_code == 1
    assert "[missing-id]" in res.stdout and "(fixable)" in res.stdout
    assert path.read_text(encoding="utf-8") == broken  # lint alone writes nothing

    fixed = _run("review", "rules", "lint", str(path), "--fix")
    assert fixed.exit_code == 0, fixed.stdout
    assert "fixed [byte-order-mark]" in fixed.stdout and "ok" in fixed.stdout
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\nid: calm-tone\nfamily: copy\ncheck: judgment\n")
    assert _run("review", "rules", "lint", str(path)).exit_code == 0
