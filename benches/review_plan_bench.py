"""review_plan at its caps beside the requests over them, which are refused before any work.

A plan names at most 50 boards (``MAX_BOARDS``), each once. This times what a
caller waits for through ``Workspace.call`` (SQLite, and PostgreSQL when
LAYOUTKIT_TEST_POSTGRES_URL is set), and over HTTP (uvicorn on 127.0.0.1 in a
thread of this process, serving the same workspace):

- a plan of 50 boards of one project holding one screen each (the board cap),
  and of 50 boards holding ``--screens`` screens each (50 × 12 = 600 is also
  the screen cap: the plan decodes every screen);
- 51 boards, and 20,000 copies of one slug (the request that held a worker for
  13 s before the cap), both refused with 400 ``invalid_params``.

Screens are distinct 1440×900 PNGs. Wall and CPU time side by side (CPU of this
process, the HTTP server's thread included). Prints a table; asserts nothing.

    python benches/review_plan_bench.py [--rounds 5] [--screens 12]
"""

from __future__ import annotations

import argparse
import io
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from PIL import Image, ImageDraw

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import CALLER, HTTP, TIMING_HEADER, Timing, measure, table, workspaces

from layoutkit import Principal, ServiceError, Workspace
from layoutkit.adapters.http import create_app
from layoutkit.service.review.review_runs import MAX_BOARDS
from layoutkit.storage import NewCard

AGENT = Principal.agent("bench")
COPIES = 20_000


def screen(seed: int) -> bytes:
    """An app-like 1440×900 screen whose rows name ``seed`` (so no two are alike)."""
    img = Image.new("RGB", (1440, 900), (250, 250, 252))
    draw = ImageDraw.Draw(img)
    draw.rectangle([0, 0, 1440, 64], fill=(60, 90, 200))
    draw.text((24, 20), f"Orders {seed}", fill=(255, 255, 255))
    for i in range(8):
        y = 100 + i * 60
        draw.rectangle([24, y, 1416, y + 48], outline=(30, 34, 44))
        draw.text((40, y + 16), f"Row {i} of screen {seed}", fill=(30, 34, 44))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def boards(ws: Workspace, prefix: str, per_board: int) -> list[str]:
    """``MAX_BOARDS`` boards of one project, each with ``per_board`` media cards."""
    slugs = [f"{prefix}-{i}" for i in range(MAX_BOARDS)]
    for b, slug in enumerate(slugs):
        ws.call("create", {"kind": "board", "slug": slug, "project": "shop"})
        with ws.store.transaction() as tx:
            found = tx.board_by_slug(ws.workspace_id, slug)
            assert found is not None
            cards = []
            for i in range(per_board):
                ref = tx.blobs.put(screen(b * 1000 + i))
                payload = {"ref": ref, "mime": "image/png"}
                cards.append(
                    NewCard("media", payload, i * 500.0, 0.0, 480.0, 300.0, "ai", AGENT.label)
                )
            tx.insert_cards(found.id, cards)
    return slugs


def refused(fn: Callable[[], Any]) -> Callable[[int], None]:
    def run(_: int) -> None:
        try:
            fn()
        except ServiceError as err:
            assert err.code == "invalid_params", err
        else:
            raise AssertionError("not refused")

    return run


@contextmanager
def served(ws: Workspace) -> Iterator[httpx.Client]:
    """``ws`` over HTTP on 127.0.0.1, and a client holding an owner token."""
    sock = socket.socket()
    # As layoutkit serve does: without it each answer waits for the client's
    # delayed ACK (about 45 ms), and asyncio sets it only on sockets it made.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(create_app(ws, mcp=False), log_level="warning"))
    started = threading.Event()
    original = server.startup

    async def startup(sockets: Any = None) -> None:
        await original(sockets)
        started.set()

    server.startup = startup  # type: ignore[method-assign]
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]})
    thread.start()
    started.wait(30)
    token = ws.create_token("owner", "bench")
    port = sock.getsockname()[1]
    try:
        with httpx.Client(
            base_url=f"http://127.0.0.1:{port}",
            headers={"authorization": f"Bearer {token}"},
            timeout=120,
        ) as client:
            yield client
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


def post(client: httpx.Client, body: dict[str, Any], status: int) -> Callable[[int], None]:
    def run(_: int) -> None:
        res = client.post("/api/v1/review/plan", json=body)
        assert res.status_code == status, res.text

    return run


def rows_for(backend: str, ws: Workspace, rounds: int, per_board: int) -> list[list[str]]:
    one = boards(ws, "one", 1)
    full = boards(ws, "full", per_board)
    over = [*one, "one-extra"]
    copies = [one[0]] * COPIES
    cases: list[tuple[str, str, Timing]] = [
        (
            f"{MAX_BOARDS} boards × 1 screen",
            CALLER,
            measure(lambda _: ws.call("review_plan", {"boards": one}, AGENT), rounds),
        ),
        (
            f"{MAX_BOARDS} boards × {per_board} screens",
            CALLER,
            measure(
                lambda _: ws.call("review_plan", {"boards": full, "full": True}, AGENT),
                max(1, rounds // 5),
            ),
        ),
        (
            f"{MAX_BOARDS + 1} boards: refused",
            CALLER,
            measure(refused(lambda: ws.call("review_plan", {"boards": over}, AGENT)), rounds),
        ),
        (
            f"{COPIES:,} copies of one slug: refused",
            CALLER,
            measure(refused(lambda: ws.call("review_plan", {"boards": copies}, AGENT)), rounds),
        ),
    ]
    with served(ws) as client:
        cases += [
            (
                f"{MAX_BOARDS} boards × 1 screen",
                HTTP,
                measure(post(client, {"boards": one}, 200), rounds),
            ),
            (
                f"{MAX_BOARDS + 1} boards: refused",
                HTTP,
                measure(post(client, {"boards": over}, 400), rounds),
            ),
            (
                f"{COPIES:,} copies of one slug: refused",
                HTTP,
                measure(post(client, {"boards": copies}, 400), rounds),
            ),
        ]
    return [[what, where, backend, *t.cells(2)] for what, where, t in cases]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--screens", type=int, default=12, help="screens per board of the cap row")
    args = parser.parse_args()
    rows: list[list[str]] = []
    for backend, ws in workspaces():
        rows += rows_for(backend, ws, args.rounds, args.screens)
    table(
        f"review_plan at the caps and over them ({args.rounds} rounds; "
        f"the {args.screens}-screen row {max(1, args.rounds // 5)})",
        ["request", "measured", "backend", *TIMING_HEADER],
        rows,
    )


if __name__ == "__main__":
    main()
