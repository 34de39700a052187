"""``X-Layoutkit-Workspace``: a request chooses its workspace in a multi-workspace
deployment, reaching it only as a member there; other workspaces answer as if they
did not exist."""

from __future__ import annotations

import base64
import io
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from PIL import Image

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


def _png_b64(w: int = 40, h: int = 30) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), "#3b82f6").save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


def test_file_image_and_blob_addresses_follow_the_header(multi: Served) -> None:
    ana = multi.ws.create_token("user", "ana", role="owner")
    beta = f"beta{uuid.uuid4().hex[:8]}"
    assert multi.op("create_workspace", {"name": beta}, ana).status_code == 200
    assert multi.op("create", {"kind": "board", "slug": "shots"}, ana, beta).status_code == 200
    files = {"board": "shots", "files": [{"name": "a.png", "data": _png_b64()}]}
    up = multi.op("upload_files", files, ana, beta)
    assert up.status_code == 200, up.text
    card = up.json()["cards"][0]["id"]
    scraped = multi.op("scrape_board", {"board": "shots"}, ana, beta).json()
    (shown,) = [c for c in scraped["cards"] if c["id"] == card]
    headers = {"authorization": f"Bearer {ana}", WORKSPACE_HEADER: beta}
    addresses = [
        shown["image"],
        f"{multi.url}/api/v1/boards/shots/cards/{card}/image",
    ]
    for address in addresses:
        url = address if address.startswith("http") else multi.url + address
        there = httpx.get(url, headers=headers, timeout=30)
        assert (there.status_code, there.headers["content-type"]) == (200, "image/png")
        # Without the header the same address is looked up in the server's own
        # workspace, where no such card or board exists.
        home = httpx.get(url, headers={"authorization": f"Bearer {ana}"}, timeout=30)
        assert home.status_code == 404, home.text


def test_an_mcp_session_works_in_the_workspace_its_header_names(tmp_path: Path) -> None:
    name = f"alpha{uuid.uuid4().hex[:8]}"
    ws = Workspace.open(backend_url("sqlite", tmp_path), name=name, multi_workspace=True)
    ana = ws.create_token("user", "ana", role="owner")
    beta = f"beta{uuid.uuid4().hex[:8]}"

    async def boards(workspace: str | None) -> Any:
        headers = {"authorization": f"Bearer {ana}"}
        if workspace is not None:
            headers[WORKSPACE_HEADER] = workspace
        async with (
            httpx.AsyncClient(headers=headers, timeout=30) as client,
            streamable_http_client(f"{server.url}/mcp", http_client=client) as (r, w),
            ClientSession(r, w) as session,
        ):
            await session.initialize()
            got = await session.call_tool("list", {"kind": "board"})
            return got.structured_content

    try:
        with LiveServer(create_app(ws)) as server:
            served = Served(ws, server.url)
            assert served.op("create_workspace", {"name": beta}, ana).status_code == 200
            made = served.op("create", {"kind": "board", "slug": "over-there"}, ana, beta)
            assert made.status_code == 200, made.text
            named = anyio.run(boards, beta)
            assert [b["slug"] for b in named["boards"]] == ["over-there"]
            home = anyio.run(boards, None)
            assert "over-there" not in [b["slug"] for b in home["boards"]]
            # A workspace the token is not a member of is refused before a session.
            stranger = httpx.post(
                f"{server.url}/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                headers={
                    "authorization": f"Bearer {ana}",
                    WORKSPACE_HEADER: "nowhere",
                    "accept": "application/json, text/event-stream",
                },
                timeout=30,
            )
            assert (stranger.status_code, stranger.json()["code"]) == (404, "unknown_workspace")
    finally:
        ws.close()
