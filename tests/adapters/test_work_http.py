"""wait_for_work over HTTP, MCP and the CLI: the long poll waits on the event loop."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import httpx
from click.testing import CliRunner
from mcp.client.session import ClientSession

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.adapters.http import CALLS_AT_ONCE
from tests.adapters.conftest import Api
from tests.adapters.test_mcp_http import _session


def _shop(api: Api) -> None:
    assert api.op("create", {"kind": "board", "slug": "rev", "project": "shop"}).status_code == 200


def test_waits_hold_no_worker_thread_and_one_wakes_per_item(api: Api) -> None:
    _shop(api)
    waiters = CALLS_AT_ONCE + 4  # more than the worker threads calls may hold at once
    tokens = [api.ws.create_token("agent", f"a{i}") for i in range(waiters)]

    def wait(token: str) -> httpx.Response:
        return httpx.post(
            f"{api.url}/api/v1/work/wait",
            json={"project": "shop", "timeout": 3},
            headers={"authorization": f"Bearer {token}"},
            timeout=30,
        )

    with ThreadPoolExecutor(waiters) as pool:
        pending = [pool.submit(wait, t) for t in tokens]
        time.sleep(0.5)
        started = time.monotonic()
        posted = api.op("post_ask", {"project": "shop", "question": "Which cache?"})
        assert posted.status_code == 200
        assert time.monotonic() - started < 1.0  # answered while every waiter waits
        answers = [p.result(timeout=30) for p in pending]
    assert {r.status_code for r in answers} == {200}
    got = [r.json() for r in answers if "idle" not in r.json()]
    assert len(got) == 1 and got[0]["asks"][0]["question"] == "Which cache?"


def test_http_refusals_are_plain_errors(api: Api) -> None:
    res = api.client.post("/api/v1/work/wait", json={"timeout": 0})
    assert (res.status_code, res.json()["code"]) == (400, "invalid_scope")
    res = api.client.post("/api/v1/work/wait", json={"board": "none", "timeout": 0})
    assert (res.status_code, res.json()["code"]) == (404, "unknown_board")


def test_answer_ask_route(api: Api) -> None:
    _shop(api)
    ask = api.op("post_ask", {"project": "shop", "question": "Why?"}).json()["ask"]
    found = api.op("wait_for_work", {"project": "shop", "timeout": 0}).json()
    assert found["asks"][0]["id"] == ask["id"]
    res = api.client.post(f"/api/v1/asks/{ask['id']}/answer", json={"answer": "Because"})
    assert res.status_code == 200 and res.json()["ask"]["answer"] == "Because"


def test_the_mcp_tool_waits_and_wakes(api: Api) -> None:
    _shop(api)
    agent = api.ws.create_token("agent", "claude")

    async def script(session: ClientSession):  # type: ignore[no-untyped-def]
        idle = await session.call_tool("wait_for_work", {"project": "shop", "timeout": 0.2})
        result: dict = {}

        async def waiter() -> None:
            result["found"] = await session.call_tool(
                "wait_for_work", {"project": "shop", "timeout": 10}
            )

        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            await anyio.sleep(0.5)
            await anyio.to_thread.run_sync(
                lambda: api.op("post_ask", {"project": "shop", "question": "Ping?"})
            )
        refused = await session.call_tool("wait_for_work", {"project": "nowhere"})
        return idle, result["found"], refused

    idle, found, refused = _session(api, agent, script, path="/mcp/x/work/")
    assert idle.structured_content["idle"] is True
    assert found.structured_content["agent"] == "agent:claude"
    assert found.structured_content["asks"][0]["question"] == "Ping?"
    assert refused.is_error and refused.structured_content["code"] == "unknown_project"


def test_the_cli_calls_wait_for_work(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'ws.db'}"
    with Workspace.open(db) as ws:
        ws.call("create", {"kind": "board", "slug": "rev", "project": "shop"})
        ws.call("post_ask", {"project": "shop", "question": "CLI?"})
    params = json.dumps({"project": "shop", "agent": "cli", "timeout": 0})
    out = CliRunner().invoke(main, ["call", "wait_for_work", params, "--db", db])
    assert out.exit_code == 0, out.output
    found = json.loads(out.output)
    assert found["agent"] == "agent:cli" and found["asks"][0]["question"] == "CLI?"
