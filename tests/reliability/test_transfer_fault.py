"""A transfer killed halfway: the destination has all of it or none, the source is
untouched, and running it again completes. On SQLite and PostgreSQL, with a real
process killed by SIGKILL in the middle of its one destination transaction."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from layoutkit.service.workspaces.transfer import PAUSE_ENV
from layoutkit.storage import _schema as s
from tests.service.transfer_fixtures import backend_url, build_project, counts, two_workspaces

CHILD = """
import sys
from layoutkit import Workspace
ws = Workspace.open(sys.argv[1], name=sys.argv[2], multi_workspace=True)
ws.call("transfer_project", {"project": "shop", "to": sys.argv[3]})
print("finished")
"""


def _mapped_rows(ws) -> int:  # type: ignore[no-untyped-def]
    with ws.store.read() as tx:
        m = s.transfer_map.c
        rows = tx.conn.execute(
            s.transfer_map.select().where(m.source_workspace_id == ws.workspace_id)
        ).all()
    return len(rows)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_transfer_killed_midway_leaves_all_or_nothing(kind: str, tmp_path: Path) -> None:
    url = backend_url(kind, tmp_path)
    assert url is not None
    with two_workspaces(kind, tmp_path) as (src, dst):
        build_project(src)
        for n in range(3):
            src.call("create", {"kind": "board", "slug": f"extra-{n}", "project": "shop"})
        before = counts(src)
        marker = tmp_path / "paused"
        env = {**os.environ, PAUSE_ENV: f"12:{marker}"}
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, url, src.name, dst.name],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + 120
            while not marker.exists():
                assert child.poll() is None, child.stderr.read().decode() if child.stderr else ""
                assert time.monotonic() < deadline, "the transfer never reached its pause"
                time.sleep(0.05)
            assert int(marker.read_text()) >= 12  # rows were written inside the transaction
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=30)
        assert child.returncode == -signal.SIGKILL
        # None of it landed, nothing of the source changed, and no row is remembered.
        assert counts(dst) == {"boards": 0, "cards": 0, "tasks": 0}
        assert counts(src) == before
        assert _mapped_rows(src) == 0
        report = src.call("transfer_project", {"project": "shop", "to": dst.name})
        assert all(t["skipped"] == 0 for t in report["tables"].values())
        assert counts(dst) == before
