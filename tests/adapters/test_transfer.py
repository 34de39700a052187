"""Project transfer end to end: HTTP route, MCP tool and the CLI command, on SQLite
and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx
import pytest
from click.testing import CliRunner

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.adapters.http import create_app
from tests.adapters.conftest import LiveServer, mcp_session
from tests.service.helpers import join
from tests.service.transfer_fixtures import (
    backend_url,
    build_project,
    counts,
    two_workspaces,
)

BACKENDS = ["sqlite", "postgres"]


def _owner_of_both(src: Workspace, dst: Workspace) -> str:
    token = src.create_token("owner", "mover")
    signed = src.authenticate(token)
    assert signed is not None
    join(dst, signed, "owner", via=src)
    return token


@pytest.mark.parametrize("kind", BACKENDS)
def test_transfer_over_http(kind: str, tmp_path: Path) -> None:
    with two_workspaces(kind, tmp_path) as (src, dst), LiveServer(create_app(src)) as server:
        build_project(src)
        owner = _owner_of_both(src, dst)
        agent = src.create_token("agent", "claude")
        url = f"{server.url}/api/v1/projects/shop/transfer"

        def post(token: str, **body: object) -> httpx.Response:
            return httpx.post(
                url,
                json={"to": dst.name, **body},
                headers={"authorization": f"Bearer {token}"},
                timeout=60,
            )

        refused = post(agent)
        assert (refused.status_code, refused.json()["code"]) == (403, "forbidden")
        dry = post(owner, dryRun=True)
        assert dry.status_code == 200 and dry.json()["dryRun"] is True
        assert counts(dst)["boards"] == 0
        done = post(owner, archiveSource=True)
        assert done.status_code == 200
        body = done.json()
        assert (body["boardsMoved"], body["archived"], body["trashed"]) == (2, 2, 2)
        assert counts(dst) == {"boards": 2, "cards": 3, "tasks": 2}
        dst.call("create", {"kind": "board", "slug": "loose"})
        src.call("create", {"kind": "board", "slug": "loose", "project": "shop"})
        clash = post(owner)
        assert (clash.status_code, clash.json()["code"]) == (409, "transfer_conflict")
        assert clash.json()["boards"] == ["loose"]


def test_single_tenant_server_answers_501(tmp_path: Path) -> None:
    with (
        two_workspaces("sqlite", tmp_path, multi=False) as (src, dst),
        LiveServer(create_app(src)) as server,
    ):
        build_project(src)
        token = src.create_token("owner", "mover")
        answer = httpx.post(
            f"{server.url}/api/v1/projects/shop/transfer",
            json={"to": dst.name},
            headers={"authorization": f"Bearer {token}"},
            timeout=30,
        )
        assert (answer.status_code, answer.json()["code"]) == (501, "single_tenant")


@pytest.mark.parametrize("kind", BACKENDS)
def test_transfer_as_an_mcp_tool(kind: str, tmp_path: Path) -> None:
    with two_workspaces(kind, tmp_path) as (src, dst), LiveServer(create_app(src)) as server:
        build_project(src)
        owner = _owner_of_both(src, dst)

        async def script():  # type: ignore[no-untyped-def]
            async with mcp_session(server.url, owner) as session:
                return await session.call_tool(
                    "transfer_project", {"project": "shop", "to": dst.name, "dryRun": True}
                )

        result = anyio.run(script)
        assert result.is_error is False
        report = result.structured_content
        assert report["dryRun"] is True and report["boardsMoved"] == 2
        assert report["tables"]["cards"]["copied"] == 3
        assert counts(dst)["cards"] == 0


@pytest.mark.parametrize("kind", BACKENDS)
def test_transfer_from_the_cli(kind: str, tmp_path: Path) -> None:
    url = backend_url(kind, tmp_path)
    assert url is not None
    with two_workspaces(kind, tmp_path) as (src, dst):
        build_project(src)
        env = {"LAYOUTKIT_MULTI_WORKSPACE": "1"}
        base = ["project", "transfer", "shop", "--to", dst.name, "--workspace", src.name]
        runner = CliRunner()
        dry = runner.invoke(main, [*base, "--db", url, "--dry-run"], env=env)
        assert dry.exit_code == 0, dry.output
        assert "would copy 2 boards" in dry.output
        assert counts(dst)["boards"] == 0
        res = runner.invoke(main, [*base, "--db", url, "--archive-source"], env=env)
        assert res.exit_code == 0, res.output
        lines = res.output.splitlines()
        assert any(line.split()[:2] == ["cards", "3"] for line in lines)
        assert "source: 2 boards archived, 2 tasks trashed" in res.output
        again = runner.invoke(main, [*base, "--db", url, "--json"], env=env)
        assert again.exit_code == 0, again.output
        report = json.loads(again.output[again.output.index("{") :])
        assert report["tables"]["cards"] == {"copied": 0, "skipped": 3, "merged": 0}
        single = runner.invoke(main, [*base, "--db", url], env={"LAYOUTKIT_MULTI_WORKSPACE": "0"})
        assert single.exit_code == 1 and "single_tenant" in single.output
