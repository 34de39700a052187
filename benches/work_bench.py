"""Work bench: how soon a waiting ``wait_for_work`` in one process sees a write
made in another.

Run: ``python benches/work_bench.py [--rounds N]``. SQLite always runs (a file
in a temporary directory); PostgreSQL runs when LAYOUTKIT_TEST_POSTGRES_URL is
set (a workspace of its own per run).

A child process opens the same database and waits (``Workspace.call``, a
blocking wait); this process writes one ask (``post_ask``) once the child is
inside its wait. The figure is the wall time from just before the write call
to the moment the child's call returned with the ask: the write and its
commit, the wake-up (NOTIFY on PostgreSQL, the change counter on SQLite),
and the child's look that claims and reads the ask. Median and p95 over the
rounds, in milliseconds.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from _timing import percentile, table

from layoutkit import Workspace
from layoutkit.principal import Principal

CTX = multiprocessing.get_context("spawn")


def _waiter(url: str, name: str, rounds: int, out: Any) -> None:
    with Workspace.open(url, name=name) as ws:
        who = Principal.agent("bench")
        for _ in range(rounds):
            out.put(("ready", time.time()))
            found = ws.call("wait_for_work", {"project": "bench", "timeout": 20}, who)
            out.put(("got", time.time()))
            done = [c["item"] for c in found.get("asks", [])]
            ws.call("heartbeat_work", {"done": done}, who)


def _latencies(url: str, rounds: int) -> list[float]:
    name = f"work-bench-{uuid.uuid4().hex[:10]}"
    with Workspace.open(url, name=name) as ws:
        ws.call("create", {"kind": "board", "slug": "bench", "project": "bench"})
        out = CTX.Queue()
        child = CTX.Process(target=_waiter, args=(url, name, rounds, out), daemon=True)
        child.start()
        took = []
        for i in range(rounds):
            assert out.get(timeout=60)[0] == "ready"
            time.sleep(0.15)  # the child is inside its wait
            written = time.time()
            ws.call("post_ask", {"project": "bench", "question": f"ping {i}"})
            kind, at = out.get(timeout=60)
            assert kind == "got"
            took.append((at - written) * 1000)
        child.join(timeout=60)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        backends = [("sqlite", f"sqlite:///{Path(tmp) / 'bench.db'}")]
        pg = os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL")
        if pg:
            backends.append(("postgresql", pg))
        else:
            print("(postgresql skipped: set LAYOUTKIT_TEST_POSTGRES_URL to include it)")
        for backend, url in backends:
            took = _latencies(url, args.rounds)
            rows.append(
                [
                    backend,
                    str(args.rounds),
                    f"{statistics.median(took):.1f}",
                    f"{percentile(took, 0.95):.1f}",
                    f"{max(took):.1f}",
                ]
            )
    table(
        "wake-up: write in one process -> waiting wait_for_work in another (caller waits)",
        ["backend", "rounds", "median ms", "p95 ms", "max ms"],
        rows,
    )


if __name__ == "__main__":
    main()
