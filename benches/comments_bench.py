"""Comments bench: what open comment threads cost an agent's idle look for work and a
board read back.

Run: ``python benches/comments_bench.py [--rounds N] [--threads N]``. SQLite (a file in
a temporary directory) always; PostgreSQL when LAYOUTKIT_TEST_POSTGRES_URL is set.

A project of 20 boards; then ``--threads`` open comment threads (default 500, the most
one board takes) spread over them, each with a person's reply, every item already
acknowledged by the agent, so each look still reads them all and finds nothing. The
anchor is the same look on the same project before any comment: the ratio is what
the threads add. On PostgreSQL the tables are analyzed first, as autovacuum would. ``scrape_board`` of one board holding 500 threads against the same
board without them shows what the digest adds to a read back (at most 50 digests).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import uuid
from pathlib import Path

from _timing import CALLER, TIMING_HEADER, measure, table
from sqlalchemy import text

from layoutkit import Workspace
from layoutkit.principal import Principal

AGENT = Principal.agent("bench")
ANA = Principal.user("ana")
BOARDS = 20


def _look(ws: Workspace) -> None:
    found = ws.call("wait_for_work", {"project": "bench", "timeout": 0}, AGENT)
    assert found.get("idle"), found


def _acknowledge(ws: Workspace) -> None:
    while True:
        found = ws.call("wait_for_work", {"project": "bench", "timeout": 0, "lease": 600}, AGENT)
        if found.get("idle"):
            return
        items = [
            c["item"] for g in ("annotations", "comments", "choices", "asks") for c in found[g]
        ]
        ws.call("heartbeat_work", {"done": items}, AGENT)


def _run(url: str, rounds: int, threads: int) -> list[list[str]]:
    rows = []
    with Workspace.open(url, name=f"comments-bench-{uuid.uuid4().hex[:10]}") as ws:
        for b in range(BOARDS):
            ws.call("create", {"kind": "board", "slug": f"b{b}", "project": "bench"})
        note = {"kind": "note", "payload": {"md": "A note to comment on"}}
        card = ws.call("compose_board", {"board": "b0", "cards": [note]})["cards"][0]["id"]
        bare_look = measure(lambda _: _look(ws), rounds)
        bare_scrape = measure(lambda _: ws.call("scrape_board", {"board": "b0"}, AGENT), rounds)
        for i in range(threads):
            board = "b0" if i % 2 == 0 else f"b{i % BOARDS}"
            params = {"board": board, "text": f"Comment {i}: is this the right place?"}
            params |= {"cardId": card} if board == "b0" else {"at": {"x": i, "y": -i}}
            thread = ws.call("add_comment", params, ANA)["id"]
            ws.call("reply", {"id": thread, "text": "And one more thing"}, ANA)
        _acknowledge(ws)
        if url.startswith("postgresql"):
            # Statistics as autovacuum keeps them: on tables filled a moment ago the
            # planner reads every claim per thread (47 ms) instead of one by its key.
            with ws.store.transaction() as tx:
                tx.conn.execute(text("ANALYZE annotations, work_claims"))
        look = measure(lambda _: _look(ws), rounds)
        scrape = measure(lambda _: ws.call("scrape_board", {"board": "b0"}, AGENT), rounds)
        on_b0 = len(ws.call("get", {"kind": "comments", "board": "b0"}, ANA)["comments"])
        for what, anchor, timing in (
            (f"idle look, {threads} acknowledged threads", bare_look, look),
            (f"scrape_board, {on_b0} threads on the board", bare_scrape, scrape),
        ):
            rows.append(
                [
                    what,
                    *anchor.cells(),
                    *timing.cells(),
                    f"{timing.wall_median / anchor.wall_median:.2f}",
                ]
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--threads", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        backends = [("sqlite", f"sqlite:///{Path(tmp) / 'bench.db'}")]
        pg = os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL")
        if pg:
            backends.append(("postgresql", pg))
        else:
            print("(postgresql skipped: set LAYOUTKIT_TEST_POSTGRES_URL to include it)")
        for backend, url in backends:
            rows = _run(url, args.rounds, args.threads)
            anchor_head = [f"anchor {h}" for h in TIMING_HEADER[:2]]
            table(
                f"{backend}: {CALLER}; anchor = the same call without comments",
                ["call", *anchor_head, "anchor cpu med", "anchor cpu p95", *TIMING_HEADER, "ratio"],
                rows,
            )


if __name__ == "__main__":
    main()
