"""``X-Layoutkit-Workspace``: a request chooses its workspace in a multi-workspace
deployment, reaching it only as a member there; other workspaces answer as if they
did not exist."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from layoutkit import Workspace
from layoutkit.adapters.http import WORKSPACE_HEADER, create_app
from tests.adapters.conftest import LiveServer
from tests.service.transfer_fixtures import backend_url


class Served:
    def __init__(self, ws: Workspace, url: str) -> None:
        self.ws = ws
        self.url = url

    def post(
        self, path: str, body: dict[str, Any], token: str, workspace: str | None = None
    ) -> httpx.Response:
        headers = {"authorization": f"Bearer {token}"}
        if workspace is not None:
            headers[WORKSPACE_HEADER] = workspace
        return httpx.post(f"{self.url}/api/v1{path}", json=body, headers=headers, timeout=30)

    def op(
        self, op: str, body: dict[str, Any], token: str, workspace: str | None = None
    ) -> httpx.Response:
        return self.post(f"/ops/{op}", body, token, workspace)


def _serve(kind: str, tmp_path: Path, *, multi: bool) -> Iterator[Served]:
    name = f"alpha{uuid.uuid4().hex[:8]}"
    ws = Workspace.open(backend_url(kind, tmp_path), name=name, multi_workspace=multi)
    try:
        with LiveServer(create_app(ws, mcp=False)) as server:
            yield Served(ws, server.url)
    finally:
        ws.close()


@pytest.fixture(params=["sqlite", "postgres"])
def multi(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Served]:
    yield from _serve(request.param, tmp_path, multi=True)


@pytest.fixture
def single(tmp_path: Path) -> Iterator[Served]:
    yield from _serve("sqlite", tmp_path, multi=False)


def test_the_header_runs_a_request_in_the_workspace_it_names(multi: Served) -> None:
    ana = multi.ws.create_token("user", "ana", role="owner")
    beta = f"beta{uuid.uuid4().hex[:8]}"
    made = multi.op("create_workspace", {"name": beta}, ana)
    assert made.status_code == 200, made.text
    assert multi.op("create", {"kind": "board", "slug": "plan"}, ana, beta).status_code == 200
    cards = {"cards": [{"kind": "text", "payload": {"md": "hello"}}]}
    # A named route takes the header as the generic one does.
    assert multi.post("/boards/plan/compose", cards, ana, beta).status_code == 200
    home = multi.post("/boards/plan/compose", cards, ana)
    assert (home.status_code, home.json()["code"]) == (404, "unknown_board")
    listed = multi.op("list_workspaces", {}, ana, beta).json()["workspaces"]
    assert [w["name"] for w in listed if w["current"]] == [beta]
    # A token minted there works there only, with the header.
    minted = multi.op("create_token", {"kind": "agent", "name": "claude"}, ana, beta).json()
    assert minted["home"] == beta
    bot = minted["token"]
    assert multi.op("list_members", {}, bot, beta).status_code == 200
    assert multi.op("list_members", {}, bot).status_code == 401


def test_a_workspace_the_token_does_not_reach_answers_as_none_would(multi: Served) -> None:
    ana = multi.ws.create_token("user", "ana", role="owner")
    bob = multi.ws.create_token("user", "bob", role="owner")
    beta = f"beta{uuid.uuid4().hex[:8]}"
    assert multi.op("create_workspace", {"name": beta}, ana).status_code == 200
    theirs = multi.op("list_members", {}, bob, beta)
    missing = multi.op("list_members", {}, bob, "no-such-workspace")
    assert (theirs.status_code, theirs.json()["code"]) == (404, "unknown_workspace")
    assert (missing.status_code, missing.json()["code"]) == (404, "unknown_workspace")
    assert theirs.json()["message"].replace(beta, "X") == missing.json()["message"].replace(
        "no-such-workspace", "X"
    )
    # Nor is anything there changed through it.
    for op, params in (
        ("archive_workspace", {}),
        ("rename_workspace", {"name": "taken-over"}),
        ("create_token", {"kind": "user", "name": "mole", "role": "owner"}),
    ):
        refused = multi.op(op, params, bob, beta)
        assert (refused.status_code, refused.json()["code"]) == (404, "unknown_workspace"), op
    there = multi.ws.at(beta)
    assert there is not None and there.name == beta
    assert [m["name"] for m in there.call("list_members", {})["members"]] == ["ana"]
    # Without a valid token the answer is 401 whatever the header names.
    for name in (beta, "no-such-workspace"):
        assert multi.op("list_members", {}, "lkt_nope", name).status_code == 401


def test_an_archived_workspace_refuses_writes_over_the_header(multi: Served) -> None:
    ana = multi.ws.create_token("user", "ana", role="owner")
    beta = f"beta{uuid.uuid4().hex[:8]}"
    multi.op("create_workspace", {"name": beta}, ana)
    assert multi.op("archive_workspace", {}, ana, beta).status_code == 200
    refused = multi.op("create", {"kind": "board", "slug": "x"}, ana, beta)
    assert (refused.status_code, refused.json()["code"]) == (409, "workspace_archived")
    assert multi.op("list_members", {}, ana, beta).status_code == 200
    assert multi.op("archive_workspace", {"archived": False}, ana, beta).status_code == 200
    assert multi.op("create", {"kind": "board", "slug": "x"}, ana, beta).status_code == 200


def test_a_single_tenant_server_refuses_a_header_naming_another_workspace(
    single: Served,
) -> None:
    owner = single.ws.create_token("owner", "bo")
    refused = single.op("list_members", {}, owner, "elsewhere")
    assert (refused.status_code, refused.json()["code"]) == (400, "single_tenant")
    assert single.op("list_members", {}, owner, single.ws.name).status_code == 200
    made = single.op("create_workspace", {"name": "elsewhere"}, owner)
    assert (made.status_code, made.json()["code"]) == (400, "single_tenant")
