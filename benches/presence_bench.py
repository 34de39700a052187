"""Presence bench: what a cursor move costs, and how soon another person's page hears it.

Run: ``python benches/presence_bench.py [--moves 60] [--postgres URL]``. On SQLite
(a file, as ``layoutkit serve`` uses) and, with ``--postgres``, on PostgreSQL:

- the calls themselves through ``Workspace.call``: ``board_presence`` (a cursor move:
  a read of the board and a write of one row) and ``board_changes`` on a board where
  nothing changed (what each event stream runs per check), wall and CPU ms;
- end to end over HTTP on a real server: person A posts ``board_presence`` with a new
  cursor, person B's open event stream delivers the ``presence`` event carrying it;
  the time from A's POST to B's event (p50, p95, max), with the stream's check
  interval as it ships (:data:`viewer.PRESENCE_CHECK_S` while someone else is on the
  board) and, as the anchor, at the board-change interval :data:`viewer.CHECK_S`.

Wall time; the machine's load is printed, since a shared machine's figures move.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _timing import CALLER, HTTP, TIMING_HEADER, measure, percentile  # noqa: E402

from layoutkit import Workspace  # noqa: E402
from layoutkit.adapters import viewer  # noqa: E402
from layoutkit.adapters.http import create_app  # noqa: E402
from layoutkit.principal import Principal  # noqa: E402
from tests.adapters.conftest import LiveServer  # noqa: E402

SLUG = "presence-bench"


def _board(ws: Workspace, cards: int) -> None:
    ws.call("create", {"kind": "board", "slug": SLUG})
    notes = [{"kind": "note", "payload": {"md": f"Note {i}"}} for i in range(cards)]
    ws.call("compose_board", {"board": SLUG, "cards": notes}, Principal.agent("bench"))


def _calls(ws: Workspace, rounds: int) -> list[list[str]]:
    ana, bo = Principal.user("ana"), Principal.user("bo")
    ws.call("board_presence", {"board": SLUG, "cursor": {"x": 0, "y": 0}}, bo)
    rev = ws.call("board_outline", {"board": SLUG}, ana)["rev"]
    move = measure(
        lambda r: ws.call("board_presence", {"board": SLUG, "cursor": {"x": r, "y": r}}, ana),
        rounds,
    )
    check = measure(lambda r: ws.call("board_changes", {"board": SLUG, "since": rev}, ana), rounds)
    return [
        ["board_presence (a cursor move)", CALLER, *move.cells(2)],
        ["board_changes, nothing changed (one stream check)", CALLER, *check.cells(2)],
    ]


def _latency(ws: Workspace, moves: int, interval: float) -> list[float]:
    """Milliseconds from A's board_presence POST to B's stream event carrying it."""
    saved = viewer.PRESENCE_CHECK_S
    viewer.PRESENCE_CHECK_S = interval
    a_token = ws.create_token("user", "ana")
    b_token = ws.create_token("user", "bo")
    heard: queue.Queue[tuple[float, float]] = queue.Queue()
    try:
        with (
            LiveServer(create_app(ws)) as server,
            httpx.Client(base_url=server.url, timeout=30) as a,
            httpx.Client(base_url=server.url, timeout=httpx.Timeout(30, read=60)) as b,
        ):
            post = a.post
            auth = {"authorization": f"Bearer {a_token}"}
            post(
                "/api/v1/ops/board_presence",
                json={"board": SLUG, "cursor": {"x": -1, "y": 0}},
                headers=auth,
            )
            stop = threading.Event()

            def listen() -> None:
                # The client closes under the reader when the bench is done.
                with contextlib.suppress(httpx.HTTPError):
                    _listen()

            def _listen() -> None:
                while not stop.is_set():  # a stream ends after STREAM_S: open another
                    with b.stream(
                        "GET",
                        f"/api/v1/boards/{SLUG}/events",
                        params={"page": "b"},
                        headers={"authorization": f"Bearer {b_token}"},
                    ) as res:
                        for line in res.iter_lines():
                            if stop.is_set():
                                return
                            if line.startswith("data: ") and '"presence"' in line:
                                data = json.loads(line[6:])
                                for p in data.get("presence", []):
                                    if p["cursor"]:
                                        heard.put((p["cursor"]["x"], time.perf_counter()))

            reader = threading.Thread(target=listen, daemon=True)
            reader.start()
            out = []
            for i in range(moves):
                t0 = time.perf_counter()
                post(
                    "/api/v1/ops/board_presence",
                    json={"board": SLUG, "cursor": {"x": i, "y": 0}},
                    headers=auth,
                )
                while True:
                    x, t1 = heard.get(timeout=10)
                    if x == i:
                        out.append((t1 - t0) * 1000)
                        break
                # A person moves the pointer at most ten times a second.
                time.sleep(0.1)
            stop.set()
            return out
    finally:
        viewer.PRESENCE_CHECK_S = saved


def _row(label: str, values: list[float]) -> list[str]:
    return [
        label,
        HTTP,
        f"{percentile(values, 0.5):.0f}",
        f"{percentile(values, 0.95):.0f}",
        f"{max(values):.0f}",
    ]


def _table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    print()


def run(url: str, label: str, args: argparse.Namespace) -> None:
    name = f"bench-{uuid.uuid4().hex[:8]}"
    with Workspace.open(url, name=name) as ws:
        _board(ws, args.cards)
        print(f"## {label}: a board of {args.cards} cards; load {os.getloadavg()[0]:.2f}\n")
        _table(["call", "what", *TIMING_HEADER], _calls(ws, args.rounds))
        shipped = _latency(ws, args.moves, viewer.PRESENCE_CHECK_S)
        anchor = _latency(ws, args.moves, viewer.CHECK_S)
        rows = [
            _row(f"stream checks every {viewer.PRESENCE_CHECK_S} s (shipped)", shipped),
            _row(f"stream checks every {viewer.CHECK_S} s (anchor)", anchor),
        ]
        _table(["A's cursor move to B's event", "what", "p50 ms", "p95 ms", "max ms"], rows)
        ratio = percentile(anchor, 0.5) / max(percentile(shipped, 0.5), 1e-9)
        print(f"median latency, anchor / shipped: {ratio:.1f}x\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--postgres", default=os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run(f"sqlite:///{Path(tmp) / 'bench.db'}", "SQLite", args)
    if args.postgres:
        run(args.postgres, "PostgreSQL", args)


if __name__ == "__main__":
    main()
