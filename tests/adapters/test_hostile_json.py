"""JSON text no request may carry answers a coded 4xx on every adapter, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from layoutkit.limits import JSON_DEPTH

from .conftest import Api

DEEP = "[" * 10_000 + "]" * 10_000
#: Raw bodies as a hostile client sends them, and what each must answer.
BODIES = [
    ("nested 10,000 deep", '{"board": "b", "meta": {"k": ' + DEEP + "}}", 413, "limit_exceeded"),
    ("integer of 5,000 digits", '{"board": "b", "meta": {"k": ' + "7" * 5000 + "}}", 400,
     "invalid_number"),
    ("lone surrogate escape", '{"board": "b", "meta": {"k": "\\ud800"}}', 400, "invalid_text"),
    ("NaN", '{"board": "b", "meta": {"k": NaN}}', 400, "invalid_number"),
    ("Infinity", '{"board": "b", "meta": {"k": -Infinity}}', 400, "invalid_number"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "body", "status", "code"), BODIES, ids=[b[0] for b in BODIES])
def test_http_refuses_hostile_json_with_a_code(
    api: Api, name: str, body: str, status: int, code: str
) -> None:
    api.ws.call("create", {"kind": "board", "slug": "b"})
    res = api.client.post(
        "/api/v1/ops/set_board_meta", content=body, headers={"content-type": "application/json"}
    )
    assert res.status_code == status, res.text
    assert res.json()["code"] == code
    if code == "limit_exceeded":
        assert res.json()["limit"] == "jsonDepth"
        assert res.json()["max"] == JSON_DEPTH
    # Nothing was written, and the board still reads as strict JSON.
    got = api.op("get", {"kind": "board", "board": "b"})
    assert got.status_code == 200
    assert "k" not in got.json()["board"].get("meta", {})


def test_http_named_route_refuses_nan_too(api: Api) -> None:
    api.ws.call("create", {"kind": "board", "slug": "b"})
    res = api.client.post(
        "/api/v1/boards/b/compose",
        content='{"cards": [{"kind": "note", "payload": {"md": "x"}}], "gap": NaN}',
        headers={"content-type": "application/json"},
    )
    assert res.status_code == 400
    assert res.json()["code"] == "invalid_number"
    assert api.op("scrape_board", {"board": "b"}).json()["cards"] == []


@pytest.mark.parametrize(("name", "body", "status", "code"), BODIES, ids=[b[0] for b in BODIES])
def test_cli_call_treats_hostile_json_as_a_usage_error(
    tmp_path: Path, name: str, body: str, status: int, code: str
) -> None:
    db = f"sqlite:///{tmp_path / 'ws.db'}"
    with Workspace.open(db) as ws:
        ws.call("create", {"kind": "board", "slug": "b"})
    path = tmp_path / "params.json"
    path.write_text(body, encoding="utf-8")
    res = CliRunner().invoke(main, ["call", "set_board_meta", f"@{path}", "--db", db])
    # A lone surrogate escape parses; the door refuses it (exit 1, a refusal).
    assert res.exit_code == (1 if code == "invalid_text" else 2), res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    with Workspace.open(db) as ws:
        assert "k" not in ws.call("get", {"kind": "board", "board": "b"})["board"].get("meta", {})


def test_mcp_tool_calls_meet_the_same_door() -> None:
    import math

    from layoutkit.adapters.mcp import call_tool

    with Workspace.open() as ws:
        ws.call("create", {"kind": "board", "slug": "b"})
        for meta, code in (
            ({"k": math.nan}, "invalid_number"),
            ({"k": "\udc00"}, "invalid_text"),
            ({"k": 10**30}, "invalid_number"),
        ):
            result = call_tool(ws, "set_board_meta", {"board": "b", "meta": meta})
            assert result.is_error
            assert result.structured_content is not None
            content = result.structured_content
            assert (content["status"], content["code"]) == (
                400,
                code,
            )
        assert "k" not in ws.call("get", {"kind": "board", "board": "b"})["board"].get("meta", {})
