"""Meaning bench: embedding throughput, index build, and the meaning rerank of a
search over a window of 5,000 tasks.

Run: ``python benches/meaning_bench.py [--tasks N] [--rounds N]``. SQLite always
runs (a file in a temporary directory); PostgreSQL runs when
LAYOUTKIT_TEST_POSTGRES_URL is set.

- Throughput: task texts per second through each embedder at hand: the
  word-hashing one always, the local model (multilingual-e5-small, 4-bit) when
  the ``meaning`` extra is installed. Engine only.
- Index: the build of vectors for every task (``build_index``) with the
  word-hashing embedder at 384 dimensions (the local model's length), so the
  figure is the storage side; the local model's build time is its throughput
  times the task count.
- Rerank: ``meaning_rerank`` over the full window, as a search calls it inside
  its read transaction (the query's embedding included): the first search of a
  process (vectors read from the database) and the later ones (vectors kept in
  memory, only the window's stamps read).
"""

from __future__ import annotations

import argparse
import random
import time

from _timing import CALLER, ENGINE, TIMING_HEADER, measure, once, table, workspaces

from layoutkit import Workspace
from layoutkit.limits import MEANING_WINDOW
from layoutkit.meaning import Embedder, HashingEmbedder, LocalEmbedder
from layoutkit.principal import Principal
from layoutkit.service.road.workspace import Call
from layoutkit.service.search import meaning

WORDS = [
    "login",
    "signup",
    "password",
    "reset",
    "email",
    "export",
    "pdf",
    "png",
    "board",
    "card",
    "render",
    "slow",
    "crash",
    "upload",
    "image",
    "theme",
    "dark",
    "settings",
    "sync",
    "offline",
    "search",
    "filter",
    "sort",
    "table",
    "chart",
    "mobile",
    "layout",
    "drag",
    "drop",
    "resize",
    "font",
    "colour",
    "cache",
    "database",
    "migration",
    "timeout",
    "webhook",
    "invite",
    "share",
    "permission",
    "token",
    "api",
    "review",
    "comment",
    "attach",
    "file",
    "preview",
]


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _seed(ws: Workspace, count: int) -> None:
    rng = random.Random(7)
    with ws.store.transaction() as tx:
        for _ in range(count):
            tx.insert_task(
                ws.workspace_id,
                title=_text(rng, 6).capitalize(),
                body=_text(rng, 40),
                created_by="bench",
                asked_by="agent",
            )


def _throughput(embedder: Embedder, texts: list[str]) -> list[str]:
    embedder.embed(texts[:4])  # loads a model, warms caches
    start, cpu = time.perf_counter(), time.process_time()
    embedder.embed(texts)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return [embedder.name, str(len(texts)), f"{len(texts) / wall:.0f}", f"{cpu * 1000:.0f}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=MEANING_WINDOW)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    rng = random.Random(3)
    texts = [f"{_text(rng, 6)}\n{_text(rng, 40)}" for _ in range(256)]
    rows = [_throughput(HashingEmbedder(384), texts)]
    if LocalEmbedder.installed():
        rows.append(_throughput(LocalEmbedder(), texts))
    else:
        print("(local model skipped: pip install 'layoutkit[meaning]' to include it)")
    table(
        f"embedding throughput, {ENGINE}",
        ["embedder", "texts", "texts/s (wall)", "cpu ms"],
        rows,
    )

    build_rows, rerank_rows = [], []
    for backend, ws in workspaces(embedder=HashingEmbedder(384)):
        _seed(ws, args.tasks)
        stored, timing = once(lambda ws=ws: meaning.build_index(ws))
        build_rows.append([backend, str(stored), f"{timing.wall[0] / 1000:.2f}"])
        queries = [_text(rng, 2) for _ in range(args.rounds + 1)]

        def rerank(i: int, ws: Workspace = ws, queries: list[str] = queries) -> None:
            with ws.store.read() as tx:
                call = Call(ws, Principal.owner(), {}, tx=tx)
                result = meaning.meaning_rerank(call, queries[i], [])
            assert result.mode == "hybrid" and result.read == min(args.tasks, MEANING_WINDOW)

        meaning._INDEXES.pop(ws, None)
        cold = measure(rerank, 1, warmup=0)
        warm = measure(rerank, args.rounds)
        rerank_rows.append([backend, "first search", *cold.cells()])
        rerank_rows.append([backend, "later searches", *warm.cells()])
    table(
        f"index build of {args.tasks} tasks (hashing embedder, 384 dims)",
        ["backend", "stored", "seconds"],
        build_rows,
    )
    table(
        f"meaning_rerank over {min(args.tasks, MEANING_WINDOW)} tasks, {CALLER}",
        ["backend", "search", *TIMING_HEADER],
        rerank_rows,
    )


if __name__ == "__main__":
    main()
