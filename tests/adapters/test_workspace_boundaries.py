"""A task id written with another workspace's name, through HTTP and MCP (a real
server, real clients): a token of one workspace never reads nor writes another's
task, whatever the form of the id, and learns nothing from the answer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest

from layoutkit import Workspace
from layoutkit.adapters.http import create_app
from tests.adapters.conftest import LiveServer, mcp_session
from tests.service.helpers import join


class Stores:
    def __init__(self, tmp_path: Path) -> None:
        url = f"sqlite:///{tmp_path / 'ws.db'}"
        self.home = Workspace.open(url, name="default", multi_workspace=True)
        self.victim = Workspace.open(url, name="victim", multi_workspace=True)
        made = self.victim.call(
            "spot", {"title": "secret plan", "body": "CONFIDENTIAL", "project": "vp"}
        )
        self.task: int = made["task"]["id"]
        self.token = self.home.create_token("user", "mallory")

    def victim_task(self) -> dict:
        return self.victim.call("get", {"kind": "task", "id": self.task})["task"]


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[Stores]:
    found = Stores(tmp_path)
    try:
        yield found
    finally:
        found.victim.close()
        found.home.close()


def _forms(task: int) -> list[str]:
    return [
        f"victim/{task}",
        f"/victim/vp/tasks/{task}",
        f"https://lk.test/victim/tasks/{task}",
        f"tk-{task}",
        f"#{task}",
        str(task),
    ]


def test_http_never_crosses_into_a_workspace_the_token_is_no_member_of(stores: Stores) -> None:
    before = stores.victim_task()
    with (
        LiveServer(create_app(stores.home)) as server,
        httpx.Client(
            base_url=server.url, headers={"authorization": f"Bearer {stores.token}"}, timeout=30
        ) as client,
    ):

        def op(name: str, params: dict) -> httpx.Response:
            return client.post(f"/api/v1/ops/{name}", json=params)

        for written in _forms(stores.task):
            for name, params in [
                ("get", {"kind": "task", "id": written}),
                ("update", {"kind": "task", "id": written, "title": "owned"}),
                ("bulk_update_tasks", {"ids": [written], "patch": {"status": "done"}}),
                ("hand_back", {"id": written, "summary": "done here"}),
                ("add_task_ref", {"id": written, "kind": "pr", "ref": "a/b#1"}),
                ("read_task_ref", {"id": written, "ref": "x"}),
                ("pickup_task", {"id": written}),
                ("compose_brief", {"id": written}),
                ("decline_tasks", {"ids": [written]}),
                ("upload_task_file", {"id": written, "filename": "a.md", "content": "x"}),
            ]:
                res = op(name, params)
                assert (res.status_code, res.json()["code"]) == (404, "unknown_task"), (
                    name,
                    written,
                    res.text,
                )
                assert "CONFIDENTIAL" not in res.text and "secret plan" not in res.text
            for mode in ("words", "resolve"):
                found = op("search", {"q": written, **({"mode": mode} if mode != "words" else {})})
                assert found.status_code == 200, found.text
                assert "secret plan" not in found.text, (written, mode)
        # A workspace that does not exist answers exactly as the victim's does.
        ghost = op("get", {"kind": "task", "id": f"nowhere/{stores.task}"}).json()
        real = op("get", {"kind": "task", "id": f"victim/{stores.task}"}).json()
        assert {k for k in ghost if k not in ("message", "id")} == {
            k for k in real if k not in ("message", "id")
        }
        assert ghost["code"] == real["code"] == "unknown_task"
    assert stores.victim_task() == before


def test_mcp_never_crosses_into_a_workspace_the_token_is_no_member_of(stores: Stores) -> None:
    before = stores.victim_task()

    async def script() -> list:
        with LiveServer(create_app(stores.home)) as server:
            async with mcp_session(server.url, stores.token) as session:
                return [
                    await session.call_tool("get", {"kind": "task", "id": f"victim/{stores.task}"}),
                    await session.call_tool(
                        "update",
                        {"kind": "task", "id": f"/victim/vp/tasks/{stores.task}", "title": "x"},
                    ),
                    await session.call_tool("search", {"q": f"victim/{stores.task}"}),
                ]

    got, updated, searched = anyio.run(script)
    for refused in (got, updated):
        assert refused.is_error is True
        assert refused.structured_content["code"] == "unknown_task"
    assert searched.is_error is False
    assert searched.structured_content["groups"]["tasks"] == []
    assert stores.victim_task() == before


def test_a_member_of_the_other_workspace_reaches_its_task_over_http(stores: Stores) -> None:
    member = stores.home.authenticate(stores.token)
    assert member is not None
    join(stores.victim, member, "member", via=stores.home)
    with (
        LiveServer(create_app(stores.home)) as server,
        httpx.Client(
            base_url=server.url, headers={"authorization": f"Bearer {stores.token}"}, timeout=30
        ) as client,
    ):
        res = client.post("/api/v1/ops/get", json={"kind": "task", "id": f"victim/{stores.task}"})
    assert res.status_code == 200, res.text
    assert res.json()["task"]["body"] == "CONFIDENTIAL"
