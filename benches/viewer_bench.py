"""Viewer bench: how long a person waits for a 50,000-card board in a real browser.

Run: ``python benches/viewer_bench.py [--cards 50000] [--reps 5]`` (needs Debian's
chromium and the ``playwright`` package; PostgreSQL too when
LAYOUTKIT_TEST_POSTGRES_URL is set). A server on 127.0.0.1 serves a board of
``--cards`` notes stored by direct inserts; headless Chromium opens the viewer
and the bench times, per backend:

- ``opens fitted``: from reload to the page marking itself ready, zoomed to
  fit, which on this board is the outline of every card (``board_outline``);
- ``opens on a card``: the same for a deep link ``?card=<id>`` to a card in
  the middle of the board, where the faces around it are drawn too;
- ``outline call``: ``board_outline`` alone through ``Workspace.call``.

Every figure is wall time a caller waits; the page's own work (parsing the
outline, drawing it) is inside the first two.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _timing import seed_board  # noqa: E402

from layoutkit import Workspace  # noqa: E402
from layoutkit.adapters.http import create_app  # noqa: E402
from tests.adapters.conftest import LiveServer  # noqa: E402
from tests.browser import CHROMIUM  # noqa: E402


def _grid(n: int, cols: int = 200) -> list[tuple[str, dict, tuple]]:
    return [
        ("note", {"md": f"Note {i}"}, ((i % cols) * 240.0, (i // cols) * 140.0, 216.0, 116.0))
        for i in range(n)
    ]


def run(backend: str, url: str, cards: int, reps: int) -> list[tuple[str, str, list[float]]]:
    from playwright.sync_api import sync_playwright

    rows = []
    with Workspace.open(url, name=f"bench-{uuid.uuid4().hex[:10]}") as ws:
        seed_board(ws, "huge", _grid(cards))
        token = ws.create_token("owner", "bench")
        with ws.store.read() as tx:
            board = tx.board_by_slug(ws.workspace_id, "huge")
            assert board is not None
            middle = tx.card_outline(board.id)[cards // 2][0]
        walls = []
        for _ in range(reps):
            start = time.perf_counter()
            ws.call("board_outline", {"board": "huge"})
            walls.append((time.perf_counter() - start) * 1000)
        rows.append((backend, "outline call", walls))
        with LiveServer(create_app(ws)) as server, sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM))
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            for name, path in (("opens fitted", ""), ("opens on a card", f"?card={middle}")):
                page.goto(f"{server.url}/boards/huge?token={token}")
                page.wait_for_selector("body[data-ready='1']", timeout=60_000)
                walls = []
                for _ in range(reps):
                    start = time.perf_counter()
                    page.goto(f"{server.url}/boards/huge{path}")
                    page.wait_for_selector("body[data-ready='1']", timeout=60_000)
                    walls.append((time.perf_counter() - start) * 1000)
                rows.append((backend, name, walls))
            browser.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=50_000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    if CHROMIUM is None:
        sys.exit("chromium is not installed")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        rows += run("sqlite", f"sqlite:///{Path(tmp) / 'bench.db'}", args.cards, args.reps)
    pg = os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL")
    if pg:
        rows += run("postgresql", pg, args.cards, args.reps)
    else:
        print("postgresql: skipped (LAYOUTKIT_TEST_POSTGRES_URL is not set)", file=sys.stderr)
    print(f"{args.cards:,} cards; wall ms a caller waits; {args.reps} reps")
    print(f"{'backend':<12}{'scenario':<18}{'median':>8}{'min':>8}{'max':>8}")
    for backend, name, walls in rows:
        print(
            f"{backend:<12}{name:<18}{statistics.median(walls):>8.0f}"
            f"{min(walls):>8.0f}{max(walls):>8.0f}"
        )


if __name__ == "__main__":
    main()
