"""Timing shared by the benches: wall and CPU time per round, and where a caller waits.

Every bench prints wall time beside CPU time (``time.process_time``, this
process only: a PostgreSQL server's work is wall time here, not CPU), and
labels each figure as what a caller waits for through ``Workspace.call`` (or
HTTP) or as the engine alone on in-memory data.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs

from layoutkit import Workspace

CALLER = "caller waits (Workspace.call)"
HTTP = "caller waits (HTTP)"
ENGINE = "engine only"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@attrs.frozen
class Timing:
    """Wall and CPU milliseconds of each round."""

    wall: list[float]
    cpu: list[float]

    @property
    def wall_median(self) -> float:
        return statistics.median(self.wall)

    @property
    def wall_p95(self) -> float:
        return percentile(self.wall, 0.95)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)

    @property
    def cpu_p95(self) -> float:
        return percentile(self.cpu, 0.95)

    def cells(self, digits: int = 1) -> list[str]:
        """Wall median, wall p95, CPU median, CPU p95, as table cells."""
        values = (self.wall_median, self.wall_p95, self.cpu_median, self.cpu_p95)
        return [f"{v:.{digits}f}" for v in values]


TIMING_HEADER = ["wall med ms", "wall p95 ms", "cpu med ms", "cpu p95 ms"]


def measure(
    fn: Callable[[int], Any],
    rounds: int,
    warmup: int = 1,
    before: Callable[[], Any] | None = None,
) -> Timing:
    """Run ``fn(round)`` ``warmup`` times untimed (with negative rounds), then ``rounds`` times;
    ``before()`` runs untimed ahead of each timed round."""
    for w in range(warmup):
        fn(-1 - w)
    wall, cpu = [], []
    for r in range(rounds):
        if before is not None:
            before()
        w0, c0 = time.perf_counter(), time.process_time()
        fn(r)
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
    return Timing(wall, cpu)


def once(fn: Callable[[], Any]) -> tuple[Any, Timing]:
    """One timed run: its result and its timing."""
    box: list[Any] = []
    timing = measure(lambda _: box.append(fn()), 1, warmup=0)
    return box[0], timing


def machine_load() -> str:
    """The 1-, 5- and 15-minute load averages and the core count, to print beside figures
    taken on a shared machine."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} / {five:.2f} / {fifteen:.2f} on {os.cpu_count()} cores"


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    """A left-aligned plain-text table under ``title``."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print(f"\n{title}")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))


def workspaces(**open_kw: Any) -> Iterator[tuple[str, Workspace]]:
    """Workspaces to time a caller's wait in: a SQLite file, and PostgreSQL when
    LAYOUTKIT_TEST_POSTGRES_URL is set (a workspace of its own per run, so runs
    never meet). Each is closed before the next one opens; ``open_kw`` go to
    ``Workspace.open`` (e.g. an unfurler)."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        Workspace.open(f"sqlite:///{Path(tmp) / 'bench.db'}", **open_kw) as ws,
    ):
        yield "sqlite", ws
    url = os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL")
    if not url:
        print("(postgresql skipped: set LAYOUTKIT_TEST_POSTGRES_URL to include it)")
        return
    with Workspace.open(url, name=f"bench-{uuid.uuid4().hex[:10]}", **open_kw) as ws:
        yield "postgresql", ws


def seed_board(ws: Workspace, slug: str, cards: list[tuple[str, dict[str, Any], tuple]]) -> float:
    """Create board ``slug`` holding ``cards`` ((kind, payload, (x, y, w, h)) each) with
    direct storage inserts, as a board grown over time; returns the seconds it took."""
    from layoutkit.storage import NewCard

    start = time.perf_counter()
    ws.call("create", {"kind": "board", "slug": slug})
    with ws.store.transaction() as tx:
        board = tx.board_by_slug(ws.workspace_id, slug)
        assert board is not None
        tx.insert_cards(
            board.id,
            [
                NewCard(kind, payload, *box, "ai", "agent:bench", sized_by="content")
                for kind, payload, box in cards
            ],
        )
    return time.perf_counter() - start
