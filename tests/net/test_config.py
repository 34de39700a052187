"""Where link fetching is switched on: serve and mcp by default, one-shot commands not,
``--fetch/--no-fetch`` and ``LAYOUTKIT_FETCH`` over both; ``--capture`` picks a sidecar."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from layoutkit import Workspace
from layoutkit.adapters import http
from layoutkit.adapters.cli import main
from layoutkit.net import ChromiumCapture, SidecarCapture, Unfurler
from layoutkit.service.boards.links import OFFLINE
from tests.browser import CHROMIUM


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def fake_run_server(ws: Workspace, **kw: Any) -> None:
        seen["unfurler"] = ws.unfurler

    monkeypatch.setattr(http, "run_server", fake_run_server)
    return seen


def _serve(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    db = f"sqlite:///{tmp_path / 'ws.db'}"
    return CliRunner().invoke(main, ["serve", "--db", db, *args], env=env)


def test_a_workspace_opened_from_python_fetches_nothing() -> None:
    with Workspace.open() as ws:
        assert ws.unfurler is None


def test_serve_fetches_links_unless_told_not_to(
    tmp_path: Path, served: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LAYOUTKIT_FETCH", raising=False)
    assert _serve(tmp_path).exit_code == 0
    unfurler = served["unfurler"]
    assert isinstance(unfurler, Unfurler) and unfurler.capture is None
    assert _serve(tmp_path, "--no-fetch").exit_code == 0
    assert served["unfurler"] is None
    assert _serve(tmp_path, env={"LAYOUTKIT_FETCH": "off"}).exit_code == 0
    assert served["unfurler"] is None
    assert _serve(tmp_path, "--fetch", env={"LAYOUTKIT_FETCH": "off"}).exit_code == 0
    assert isinstance(served["unfurler"], Unfurler)


def test_a_fetch_setting_that_is_neither_on_nor_off_is_a_usage_error(
    tmp_path: Path, served: dict[str, Any]
) -> None:
    result = _serve(tmp_path, env={"LAYOUTKIT_FETCH": "sometimes"})
    assert result.exit_code == 2 and "LAYOUTKIT_FETCH" in result.output


def test_capture_takes_a_service_url_or_chromium(tmp_path: Path, served: dict[str, Any]) -> None:
    assert _serve(tmp_path, "--fetch", "--capture", "http://127.0.0.1:7/shoot").exit_code == 0
    assert isinstance(served["unfurler"].capture, SidecarCapture)
    if CHROMIUM is not None:
        assert _serve(tmp_path, "--fetch", "--capture", f"chromium:{CHROMIUM}").exit_code == 0
        assert isinstance(served["unfurler"].capture, ChromiumCapture)
    bad = _serve(tmp_path, "--fetch", "--capture", "ftp://x")
    assert bad.exit_code == 2 and "--capture" in bad.output


def test_a_one_shot_command_keeps_the_bare_url_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LAYOUTKIT_FETCH", raising=False)
    db = f"sqlite:///{tmp_path / 'ws.db'}"
    runner = CliRunner()
    assert (
        runner.invoke(main, ["call", "--db", db, "create", '{"kind":"board","slug":"b"}']).exit_code
        == 0
    )
    composed = runner.invoke(
        main,
        [
            "call",
            "--db",
            db,
            "compose_board",
            '{"board":"b","cards":[{"kind":"link","payload":{"url":"https://example.org/"}}]}',
        ],
    )
    assert composed.exit_code == 0, composed.output
    with Workspace.open(db) as ws:
        card = ws.call("scrape_board", {"board": "b"})["cards"][0]
    assert card["payload"]["error"] == OFFLINE
