"""A transfer killed halfway: the destination has all of it or none, the source is
untouched, and running it again completes. On SQLite and PostgreSQL, with a real
process killed by SIGKILL in the middle of its one destination transaction."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy

from layoutkit import Principal, ServiceError, Workspace
from layoutkit.service.workspaces.transfer import PAUSE_ENV, transfer_project
from layoutkit.storage import _schema as s
from tests.service.transfer_fixtures import backend_url, build_project, counts, two_workspaces

CHILD = """
import sys
from layoutkit import Workspace
ws = Workspace.open(sys.argv[1], name=sys.argv[2], multi_workspace=True)
ws.call("transfer_project", {"project": "shop", "to": sys.argv[3]})
print("finished")
"""


def _mapped_rows(ws, dest: Workspace | None = None) -> int:  # type: ignore[no-untyped-def]
    """Rows of the transfer map from ``ws`` (into ``dest`` only, when given)."""
    with ws.store.read() as tx:
        m = s.transfer_map.c
        where = [m.source_workspace_id == ws.workspace_id]
        if dest is not None:
            where.append(m.dest_workspace_id == dest.workspace_id)
        rows = tx.conn.execute(s.transfer_map.select().where(*where)).all()
    return len(rows)


def _batch_ends(src: Workspace, to: str) -> list[int]:
    """The rows written when each batch of the copy has landed, read off a dry run."""
    ends: list[int] = []

    def note(table: str, rows: int) -> None:
        ends.append((ends[-1] if ends else 0) + rows)

    transfer_project(src, Principal.owner(), {"project": "shop", "to": to, "dryRun": True}, note)
    return sorted(set(ends))


def _kill_at(url: str, src: Workspace, to: str, rows: int, marker: Path) -> None:
    """Run the transfer in a child process and kill it once ``rows`` rows are written."""
    env = {**os.environ, PAUSE_ENV: f"{rows}:{marker}"}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, url, src.name, to],
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
        assert int(marker.read_text()) >= rows  # rows were written inside the transaction
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_transfer_killed_after_each_batch_leaves_all_or_nothing(
    kind: str, tmp_path: Path
) -> None:
    # Killed after each batch of the copy in turn (every point of the one destination
    # transaction where rows have landed), not at a moment picked by timing.
    url = backend_url(kind, tmp_path)
    assert url is not None
    with two_workspaces(kind, tmp_path) as (src, dst):
        build_project(src)
        for n in range(3):
            src.call("create", {"kind": "board", "slug": f"extra-{n}", "project": "shop"})
        before = counts(src)
        ends = _batch_ends(src, dst.name)
        assert len(ends) >= 5, ends
        for i, rows in enumerate(ends):
            to = f"{dst.name}-{i}"
            with src.store.transaction() as tx:
                tx.ensure_workspace(to)
            here = Workspace(src.store, name=to, multi_workspace=True)
            try:
                _kill_at(url, src, to, rows, tmp_path / f"paused-{i}")
                # None of it landed, nothing of the source changed, no row is remembered.
                assert counts(here) == {"boards": 0, "cards": 0, "tasks": 0}, rows
                assert counts(src) == before
                assert _mapped_rows(src, here) == 0
                report = src.call("transfer_project", {"project": "shop", "to": to})
                assert all(t["skipped"] == 0 for t in report["tables"].values())
                assert counts(here) == before
                assert _mapped_rows(src, here) > 0
            finally:
                here.jobs.shutdown()
                here.drawing.shutdown()


def _waiting_on_a_project_row(url: str) -> bool:
    """Whether a transaction of this database waits for a lock to insert a project."""
    engine = sqlalchemy.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with engine.connect() as conn:
            waiting = conn.execute(
                sqlalchemy.text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    " AND wait_event_type = 'Lock' AND query ILIKE 'INSERT INTO projects%'"
                )
            ).scalar()
    finally:
        engine.dispose()
    return bool(waiting)


def test_a_retry_that_meets_the_first_runs_commit_completes_exactly_once(tmp_path: Path) -> None:
    # The caller that never saw a receipt retries while the first run's commit is still
    # landing (PostgreSQL finishes a commit a killed client sent): the retry read no
    # transfer map, then meets the first run's project row. Two write transactions run
    # at once only on PostgreSQL; SQLite serialises writers, so the race cannot arise.
    url = backend_url("postgres", tmp_path)
    assert url is not None
    with two_workspaces("postgres", tmp_path) as (src, dst):
        build_project(src)
        before = counts(src)
        inside, release = threading.Event(), threading.Event()

        def hold(table: str, rows: int) -> None:
            # The first run stops inside its transaction, its project row written.
            if not inside.is_set():
                inside.set()
                assert release.wait(120)

        params = {"project": "shop", "to": dst.name}
        reports: dict[str, Any] = {}

        def first() -> None:
            reports["first"] = transfer_project(src, Principal.owner(), params, progress=hold)

        def retry() -> None:
            try:
                reports["retry"] = src.call("transfer_project", params)
            except ServiceError as err:
                reports["retry"] = err

        runs = [threading.Thread(target=first)]
        runs[0].start()
        try:
            assert inside.wait(120), "the first run never wrote its project row"
            runs.append(threading.Thread(target=retry))
            runs[1].start()
            deadline = time.monotonic() + 120
            while not _waiting_on_a_project_row(url):
                assert runs[1].is_alive(), reports
                assert time.monotonic() < deadline, "the retry never met the first run's row"
                time.sleep(0.05)
        finally:
            release.set()
            for run in runs:
                run.join(120)
        retried = reports["retry"]
        assert not isinstance(retried, ServiceError), retried.body
        assert all(t["copied"] == 0 for t in retried["tables"].values()), retried["tables"]
        assert any(t["copied"] > 0 for t in reports["first"]["tables"].values())
        assert counts(dst) == before
