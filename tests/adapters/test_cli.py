"""The CLI through click's runner: output, exit codes, JSON mode."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from layoutkit.adapters.cli import main

GOOD = {
    "kind": "doc",
    "payload": {"title": "T", "elements": [{"kind": "prose", "payload": {"md": "x"}}]},
}
BAD = {
    "kind": "doc",
    "payload": {"title": "T", "elements": [{"kind": "chart", "payload": {"viz": "sparkle"}}]},
}


def _write(tmp_path: Path, value: object) -> str:
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(value), encoding="utf-8")
    return str(path)


def test_validate_ok_exits_0(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["validate", _write(tmp_path, GOOD)])
    assert res.exit_code == 0, res.output
    assert "ok: 0 error(s)" in res.output


def test_validate_errors_exit_1_with_paths(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["validate", _write(tmp_path, BAD)])
    assert res.exit_code == 1
    assert "payload.elements[0].payload.viz" in res.output
    assert res.output.splitlines()[-1].startswith("invalid:")


def test_validate_json_mode(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["validate", "--json", _write(tmp_path, BAD)])
    assert res.exit_code == 1
    out = json.loads(res.output)
    assert out["ok"] is False
    assert any(f["path"] == "payload.elements[0].payload.viz" for f in out["findings"])


def test_validate_card_vocabulary(tmp_path: Path) -> None:
    res = CliRunner().invoke(
        main, ["validate", "--card", _write(tmp_path, {"kind": "viz", "payload": {}})]
    )
    assert res.exit_code == 1
    assert "chart" in res.output  # the retired name points at its replacement


def test_validate_not_json_is_usage_error(tmp_path: Path) -> None:
    # The README promises exit 2 for usage errors; 1 is kept for findings.
    path = tmp_path / "broken.json"
    path.write_text('{"kind": "doc",\n nope', encoding="utf-8")
    res = CliRunner().invoke(main, ["validate", str(path)])
    assert res.exit_code == 2
    assert "broken.json is not JSON" in res.output
    assert "line 2 column 2" in res.output
    assert "Traceback" not in res.output


def test_validate_binary_file_is_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "shot.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    res = CliRunner().invoke(main, ["validate", str(path)])
    assert res.exit_code == 2
    assert "shot.png is not UTF-8 text" in res.output


def test_validate_missing_file_is_usage_error() -> None:
    res = CliRunner().invoke(main, ["validate", "no-such-file.json"])
    assert res.exit_code == 2
    assert "no-such-file.json" in res.output and "No such file" in res.output


def test_validate_reads_stdin() -> None:
    res = CliRunner().invoke(main, ["validate", "-"], input=json.dumps(GOOD))
    assert res.exit_code == 0, res.output


def test_docs_index_and_topic() -> None:
    runner = CliRunner()
    index = runner.invoke(main, ["docs"])
    assert index.exit_code == 0
    assert "chart" in index.output and "envelope" in index.output
    topic = runner.invoke(main, ["docs", "chart"])
    assert topic.exit_code == 0
    assert "viz" in topic.output


def test_docs_unknown_topic_suggests() -> None:
    res = CliRunner().invoke(main, ["docs", "chrat"])
    assert res.exit_code == 1
    assert "unknown_topic" in res.output
    assert "chart" in res.output


def test_call_runs_any_operation(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'ws.db'}"
    res = CliRunner().invoke(main, ["call", "docs", '{"topic": "limits"}', "--db", db])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["topic"] == "limits"


def test_call_reports_coded_errors_as_json(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["call", "nope", "--db", f"sqlite:///{tmp_path / 'ws.db'}"])
    assert res.exit_code == 1
    body = json.loads(res.output)
    assert (body["status"], body["code"]) == (404, "unknown_operation")


def test_call_bad_json_argument_is_usage_error(tmp_path: Path) -> None:
    res = CliRunner().invoke(
        main, ["call", "docs", "{oops", "--db", f"sqlite:///{tmp_path / 'w.db'}"]
    )
    assert res.exit_code == 2


def test_demo_summarises_the_bundled_example() -> None:
    res = CliRunner().invoke(main, ["demo"])
    assert res.exit_code == 0, res.output
    assert "valid: True" in res.output
