"""Tasks through every road: HTTP (a real server), the CLI (click's runner) and MCP."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
from click.testing import CliRunner

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.adapters.http import create_app, openapi_document
from layoutkit.service.tasks.task_refs import MAX_UPLOAD_BYTES
from tests.adapters.conftest import Api, LiveServer, mcp_session


def _new_task(api: Api, **fields: object) -> int:
    res = api.op("create", {"kind": "task", "title": "Over HTTP", **fields})
    assert res.status_code == 200, res.text
    return res.json()["task"]["id"]


def test_multipart_upload_attaches_files_and_versions_them(api: Api) -> None:
    task = _new_task(api)
    res = api.client.post(
        f"/api/v1/tasks/{task}/upload",
        files=[
            ("files", ("plan.md", b"# Plan\nstep one\n", "text/markdown")),
            ("files", ("data.csv", b"a,b\n1,2\n", "text/csv")),
        ],
        data={"hint": "read before coding", "load": "first"},
    )
    assert res.status_code == 201, res.text
    body = res.json()
    assert set(body) == {"task", "refs", "uploaded"}
    assert [(u["ref"], u["version"]) for u in body["uploaded"]] == [("plan.md", 1), ("data.csv", 1)]
    assert all(r["meta"]["hint"] == "read before coding" for r in body["refs"])
    again = api.client.post(
        f"/api/v1/tasks/{task}/upload",
        files=[("files", ("plan.md", b"# Plan\nstep two\n", "text/markdown"))],
    )
    assert again.status_code == 201, again.text
    (uploaded,) = again.json()["uploaded"]
    assert uploaded["version"] == 2
    # The url a ref carries serves that version's bytes, never as a page of this origin.
    served = api.client.get(uploaded["url"])
    assert served.status_code == 200
    assert served.content == b"# Plan\nstep two\n"
    assert served.headers["content-security-policy"] == "sandbox"
    assert served.headers["x-content-type-options"] == "nosniff"
    read = api.op("read_task_ref", {"id": task, "ref": "plan.md", "version": 1}).json()
    assert read["content"] == "# Plan\nstep one\n"


#: The smallest PNG there is: one transparent pixel.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100ff5fd7a60000000049454e44ae426082"
)


def test_a_screenshot_uploaded_over_http_is_kept_as_a_file_ref(api: Api) -> None:
    task = _new_task(api)
    res = api.client.post(
        f"/api/v1/tasks/{task}/upload",
        files=[
            ("files", ("login.png", PNG, "image/png")),
            ("files", ("notes.md", b"# Notes\n", "text/markdown")),
        ],
    )
    assert res.status_code == 201, res.text
    shot, notes = res.json()["uploaded"]
    assert (shot["kind"], shot["ref"], shot["mime"], shot["size"]) == (
        "file",
        "login.png",
        "image/png",
        len(PNG),
    )
    assert "tokens" not in shot and notes["tokens"] == 2
    served = api.client.get(shot["url"])
    assert served.status_code == 200 and served.content == PNG
    assert served.headers["content-type"] == "image/png"
    # It is a picture, not text an agent reads within a budget.
    read = api.op("read_task_ref", {"id": task, "ref": "login.png"})
    assert (read.status_code, read.json()["code"]) == (422, "not_readable")
    assert shot["url"] in read.json()["message"]
    # upload_task_file (the tool) stays text-only, as the contract says.
    text_only = api.op(
        "upload_task_file", {"id": task, "files": [{"name": "b.png", "data": "iVBORw0KGgo="}]}
    )
    assert (text_only.status_code, text_only.json()["code"]) == (415, "unsupported_file")


def test_upload_refusals_over_http(api: Api) -> None:
    task = _new_task(api)
    big = api.client.post(
        f"/api/v1/tasks/{task}/upload",
        files=[("files", ("big.txt", b"x" * (MAX_UPLOAD_BYTES + 1), "text/plain"))],
    )
    assert (big.status_code, big.json()["code"]) == (413, "payload_too_large")
    brief = api.client.post(
        f"/api/v1/tasks/{task}/upload",
        files=[("files", ("a.png", PNG, "image/png"))],
        data={"kind": "brief"},
    )
    assert (brief.status_code, brief.json()["code"]) == (415, "unsupported_file")
    unknown = api.client.post(
        "/api/v1/tasks/999/upload", files=[("files", ("a.md", b"x", "text/markdown"))]
    )
    assert (unknown.status_code, unknown.json()["code"]) == (404, "unknown_task")
    word = api.client.post(
        "/api/v1/tasks/fix-login/upload", files=[("files", ("a.md", b"x", "text/markdown"))]
    )
    assert (word.status_code, word.json()["code"]) == (400, "task_reference")


def test_null_human_over_http_returns_to_the_type_rule(api: Api) -> None:
    task = _new_task(api, type="epic", human=False)
    res = api.op("update", {"kind": "task", "id": task, "human": None})
    assert res.status_code == 200, res.text
    assert (res.json()["task"]["human"], res.json()["task"]["humanByRule"]) == (True, True)


def test_ask_task_over_http_is_501_without_a_backend(api: Api) -> None:
    task = _new_task(api)
    res = api.op("ask_task", {"id": task, "question": "what is left?"})
    assert res.status_code == 501
    assert (res.json()["code"], res.json()["retry"]) == ("no_ai_backend", False)


def test_the_openapi_document_tells_which_fields_go_with_which_kind() -> None:
    doc = openapi_document(Workspace.open())
    body = doc["paths"]["/api/v1/ops/create"]["post"]["requestBody"]["content"]
    schema = body["application/json"]["schema"]
    kinds = {v["properties"]["kind"]["const"]: v for v in schema["oneOf"]}
    assert {"board", "task"} <= set(kinds)
    assert "slug" in kinds["board"]["required"] and "title" in kinds["task"]["required"]
    assert "sprintId" not in kinds["board"]["properties"]
    form = doc["paths"]["/api/v1/tasks/{id}/upload"]["post"]["requestBody"]["content"]
    fields = form["multipart/form-data"]["schema"]["properties"]
    assert {"files", "kind", "hint", "load", "versionOf"} <= set(fields)
    assert "anchor" not in fields


def test_cli_task_upload(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    runner = CliRunner()
    made = runner.invoke(main, ["call", "create", '{"kind": "task", "title": "CLI"}', "--db", db])
    assert made.exit_code == 0, made.output
    task = json.loads(made.output)["task"]["id"]
    notes = tmp_path / "notes.md"
    notes.write_text("first\n", encoding="utf-8")
    log = tmp_path / "run.log"
    log.write_text("ok\n", encoding="utf-8")
    res = runner.invoke(
        main, ["task", "upload", str(task), str(notes), str(log), "--hint", "skim", "--db", db]
    )
    assert res.exit_code == 0, res.output
    assert "2 file(s) on task" in res.output
    assert "notes.md" in res.output and "run.log" in res.output
    notes.write_text("second\n", encoding="utf-8")
    res = runner.invoke(main, ["task", "upload", str(task), str(notes), "--json", "--db", db])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["uploaded"][0]["version"] == 2
    # A screenshot is kept as it is, as from the HTTP route; a brief must be text.
    picture = tmp_path / "shot.png"
    picture.write_bytes(PNG)
    res = runner.invoke(main, ["task", "upload", str(task), str(picture), "--json", "--db", db])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["uploaded"][0]["mime"] == "image/png"
    args = ["task", "upload", str(task), str(picture), "--kind", "brief", "--db", db]
    res = runner.invoke(main, args)
    assert res.exit_code == 1
    assert "unsupported_file" in res.output


def test_tasks_over_mcp() -> None:
    ws = Workspace.open()
    token = ws.create_token("owner", "mcp")

    async def session_script() -> tuple:
        with LiveServer(create_app(ws)) as server:
            async with mcp_session(server.url, token) as session:
                made = await session.call_tool("create", {"kind": "task", "title": "Via MCP"})
                task = made.structured_content["task"]["id"]
                await session.call_tool(
                    "upload_task_file", {"id": task, "filename": "a.txt", "content": "hello"}
                )
                read = await session.call_tool("read_task_ref", {"id": task, "ref": "a.txt"})
                ask = await session.call_tool("ask_task", {"id": task, "question": "?"})
                return read, ask

    read, ask = anyio.run(session_script)
    ws.close()
    assert read.is_error is False
    assert read.structured_content["content"] == "hello"
    assert ask.is_error is True
    assert (ask.structured_content["status"], ask.structured_content["code"]) == (
        501,
        "no_ai_backend",
    )
