"""A project to transfer, and two workspaces of one database on each backend."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from layoutkit import Workspace

POSTGRES_URL = os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL")
BACKENDS = ["memory", "sqlite", "postgres"]


def backend_url(kind: str, tmp_path: Path) -> str | None:
    if kind == "memory":
        return None
    if kind == "sqlite":
        return f"sqlite:///{tmp_path / 'deploy.db'}"
    if not POSTGRES_URL:
        pytest.skip("LAYOUTKIT_TEST_POSTGRES_URL is not set; PostgreSQL tests need a server")
    return POSTGRES_URL


@contextmanager
def two_workspaces(
    kind: str, tmp_path: Path, *, multi: bool = True
) -> Iterator[tuple[Workspace, Workspace]]:
    """``(source, destination)``: two workspaces sharing one store."""
    tag = uuid.uuid4().hex[:8]
    src = Workspace.open(backend_url(kind, tmp_path), name=f"alpha{tag}", multi_workspace=multi)
    dst = Workspace(src.store, name=f"beta{tag}", multi_workspace=multi)
    try:
        yield src, dst
    finally:
        # One store under both: the destination stops its jobs, the source closes the store.
        dst.jobs.shutdown()
        dst.drawing.shutdown()
        src.close()


def text(md: str, ref: str) -> dict[str, Any]:
    return {"kind": "text", "ref": ref, "payload": {"md": md}}


def build_project(ws: Workspace, project: str = "shop") -> dict[str, Any]:
    """A small project with every kind of content a transfer carries."""
    ws.call("create", {"kind": "board", "slug": "home", "project": project, "tags": ["Q3"]})
    ws.call(
        "compose_board",
        {
            "board": "home",
            "cards": [text("first", "a"), text("second", "b")],
            "edges": [{"from": "a", "to": "b", "label": "then"}],
        },
    )
    ws.call("ask_board", {"board": "home", "prompt": "Which store?", "options": ["SQLite", "PG"]})
    ws.call("create", {"kind": "board", "slug": "docs", "project": project})
    pushed = ws.call(
        "push_doc",
        {
            "board": "docs",
            "doc": {
                "kind": "doc",
                "payload": {
                    "title": "Notes",
                    "elements": [{"kind": "prose", "payload": {"md": "x"}}],
                },
            },
        },
    )
    milestone = ws.call("create", {"kind": "milestone", "key": "next", "project": project})
    epic = ws.call(
        "create",
        {
            "kind": "task",
            "title": "Checkout",
            "type": "epic",
            "project": project,
            "key": "SHOP-1",
            "milestoneId": milestone["milestone"]["id"],
            "labels": ["payments"],
        },
    )["task"]
    child = ws.call(
        "create", {"kind": "task", "title": "Card form", "project": project, "parentId": epic["id"]}
    )["task"]
    ws.call("upload_task_file", {"id": child["id"], "filename": "notes.md", "content": "hello"})
    ws.call("add_task_ref", {"id": child["id"], "kind": "board", "ref": "home"})
    return {"epic": epic, "child": child, "set": pushed}


def counts(ws: Workspace, project: str = "shop") -> dict[str, int]:
    """Rows of the workspace's project as the operations see them."""
    with ws.store.read() as tx:
        found = tx.project_by_slug(ws.workspace_id, project)
        if found is None:
            return {"boards": 0, "cards": 0, "tasks": 0}
        boards = [b for b in tx.boards(ws.workspace_id) if b.project_id == found.id]
        cards = sum(len(tx.cards(b.id)) for b in boards)
        tasks = len(tx.tasks(ws.workspace_id, project_id=found.id))
    return {"boards": len(boards), "cards": cards, "tasks": tasks}
