"""Transfer bench: copy one large project into another workspace of the same database.

Run: ``python benches/transfer_bench.py [--scale F] [--boards N] [--cards N]
[--tasks N] [--blob-mb N]``. The default project is the issue's: 200 boards,
20,000 cards, 10,000 tasks (each with one event and one ref) and 200 MB of
blobs (1 MiB each, referenced by the first cards); ``--scale 0.05`` runs a
twentieth of everything. SQLite always runs (a file in a temporary directory,
blobs as files beside it); PostgreSQL runs when LAYOUTKIT_TEST_POSTGRES_URL is
set (blobs in its table; workspaces of their own per run).

The project is written straight through the storage rows: the bench is about
the transfer, not about composing. Each transfer runs in a child process, so
the peak memory is the transfer's own: the child's ``ru_maxrss`` and the Python
heap peak (``tracemalloc``) during the call. The first run copies; the re-run
finds every row in the transfer map and copies nothing. Times are what a
caller of ``Workspace.call`` waits for.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid
from pathlib import Path
from typing import Any

from _timing import CALLER, table

from layoutkit import Workspace

MIB = 1024 * 1024


def build(ws: Workspace, boards: int, cards: int, tasks: int, blob_mb: int) -> None:
    """The project ``big``: boards with cards spread evenly, tasks, blobs."""
    with ws.store.transaction() as tx:
        now = tx.now()
        project = tx.create_project(ws.workspace_id, "big")
        keys = [tx.blobs.put(os.urandom(MIB)) for _ in range(blob_mb)]
        board_ids = tx.insert_rows(
            "boards",
            [
                {
                    "workspace_id": ws.workspace_id,
                    "slug": f"b{i}",
                    "project_id": project.id,
                    "archived": False,
                    "meta": {},
                    "lanes": [],
                    "card_seq": 0,
                    "created_at": now,
                    "updated_at": now,
                }
                for i in range(boards)
            ],
        )
        for start in range(0, cards, 1000):
            rows = []
            for n in range(start, min(cards, start + 1000)):
                payload: dict[str, Any] = {"md": f"card {n} " + "words " * 20}
                if n < len(keys):
                    payload["ref"] = keys[n]
                rows.append(
                    {
                        "board_id": board_ids[n % boards],
                        "ordinal": n,
                        "kind": "text",
                        "payload": payload,
                        "x": 0.0,
                        "y": float(n),
                        "w": 200.0,
                        "h": 80.0,
                        "layer": "ai",
                        "version": 1,
                        "author": "agent:bench",
                        "created_at": now,
                        "updated_at": now,
                    }
                )
            ids = tx.insert_rows("cards", rows)
            tx.insert_rows(
                "card_versions",
                [
                    {
                        "card_id": i,
                        "version": 1,
                        "kind": "text",
                        "payload": r["payload"],
                        "w": 200.0,
                        "h": 80.0,
                        "created_at": now,
                    }
                    for i, r in zip(ids, rows, strict=True)
                ],
            )
        for start in range(0, tasks, 1000):
            ids = tx.insert_rows(
                "tasks",
                [
                    {
                        "workspace_id": ws.workspace_id,
                        "project_id": project.id,
                        "title": f"task {n}",
                        "body": "do the thing " * 10,
                        "status": "todo",
                        "type": "task",
                        "priority": "",
                        "asked_by": "user",
                        "labels": [],
                        "gates": [],
                        "next_action": "",
                        "outcome": "",
                        "decisions": "",
                        "branch": "",
                        "fields": {},
                        "created_by": "user:bench",
                        "created_at": now,
                        "updated_at": now,
                    }
                    for n in range(start, min(tasks, start + 1000))
                ],
            )
            tx.insert_rows(
                "task_events",
                [
                    {"task_id": i, "at": now, "principal": "user:bench", "action": "task.create"}
                    | {"detail": {}}
                    for i in ids
                ],
            )
            tx.insert_rows(
                "task_refs",
                [
                    {
                        "task_id": i,
                        "kind": "board",
                        "ref": f"b{i % boards}",
                        "version": 1,
                        "meta": {},
                        "author": "user:bench",
                        "created_at": now,
                        "updated_at": now,
                    }
                    for i in ids
                ],
            )


def child(url: str, source: str, dest: str) -> None:
    """One transfer, measured in this process; prints its figures as JSON."""
    ws = Workspace.open(url, name=source, multi_workspace=True)
    tracemalloc.start()
    started = time.perf_counter()
    report = ws.call("transfer_project", {"project": "big", "to": dest})
    seconds = time.perf_counter() - started
    _, heap_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    ws.close()
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    copied = sum(t["copied"] for t in report["tables"].values())
    skipped = sum(t["skipped"] for t in report["tables"].values())
    print(
        json.dumps(
            {
                "seconds": seconds,
                "heap": heap_peak,
                "rss": rss_kib * 1024,
                "copied": copied,
                "skipped": skipped,
                "blobs": report["blobs"],
            }
        )
    )


def run_child(url: str, source: str, dest: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", url, source, dest],
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def bench(label: str, url: str, args: argparse.Namespace) -> list[list[str]]:
    tag = uuid.uuid4().hex[:8]
    source, dest = f"bench-src-{tag}", f"bench-dst-{tag}"
    with Workspace.open(url, name=source) as ws:
        Workspace(ws.store, name=dest).jobs.shutdown()
        started = time.perf_counter()
        build(ws, args.boards, args.cards, args.tasks, args.blob_mb)
        built = time.perf_counter() - started
    print(f"{label}: project written in {built:.1f} s", file=sys.stderr)
    rows = []
    for run in ("first", "re-run"):
        got = run_child(url, source, dest)
        rows.append(
            [
                label,
                run,
                f"{got['seconds']:.2f}",
                str(got["copied"]),
                str(got["skipped"]),
                f"{got['blobs']['count']} / {got['blobs']['bytes'] / MIB:.0f} MiB",
                f"{got['heap'] / MIB:.1f}",
                f"{got['rss'] / MIB:.0f}",
            ]
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--cards", type=int, default=20_000)
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--blob-mb", type=int, default=200)
    parser.add_argument("--child", nargs=3, metavar=("URL", "SOURCE", "DEST"))
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    for name in ("boards", "cards", "tasks", "blob_mb"):
        setattr(args, name, max(1, round(getattr(args, name) * args.scale)))
    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        rows += bench("sqlite", f"sqlite:///{Path(tmp) / 'bench.db'}", args)
    pg = os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL")
    if pg:
        rows += bench("postgresql", pg, args)
    table(
        f"transfer of {args.boards} boards, {args.cards} cards, {args.tasks} tasks, "
        f"{args.blob_mb} MiB of blobs ({CALLER}; memory of the transferring process)",
        [
            "backend",
            "run",
            "seconds",
            "rows copied",
            "rows skipped",
            "blobs",
            "heap MiB",
            "rss MiB",
        ],
        rows,
    )


if __name__ == "__main__":
    main()
