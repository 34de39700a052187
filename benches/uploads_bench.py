"""upload_files and push_doc bench: what a caller waits for through ``Workspace.call``.

Run: ``python benches/uploads_bench.py [--rounds N]``. Each round is one full
``Workspace.call``: base64 decode, image header read / PDF page count, blob
writes, placement and commit. SQLite (blobs are files next to the database)
always; PostgreSQL when LAYOUTKIT_TEST_POSTGRES_URL is set. Wall and CPU
time side by side; CPU is this process only.

Every round sends new bytes (blobs are content-addressed, so a repeat would
only find them stored). Shapes: 20 PNG screenshots (1280x800) in one upload; one 40-page PDF; a doc
set with 20 shots referenced by figures, pushed as the next version each
round (so the version scan covers a growing board).
"""

from __future__ import annotations

import argparse
import base64
import io
import uuid
from typing import Any

from _timing import CALLER, TIMING_HEADER, measure, table, workspaces
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from layoutkit import Workspace

# Blobs are content-addressed: bytes new to this run, so a PostgreSQL database
# kept between runs does not find them stored already.
RUN = uuid.uuid4().hex


def _png(i: int, round_: int) -> bytes:
    # A text chunk makes every round's bytes new, so blob writes are measured, not dedup.
    info = PngInfo()
    info.add_text("round", f"{RUN}-{round_}")
    buf = io.BytesIO()
    Image.new("RGB", (1280, 800), (i * 7 % 256, 90, 140)).save(buf, "PNG", pnginfo=info)
    return buf.getvalue()


def _pdf(pages: int) -> bytes:
    sheets = [Image.new("RGB", (120, 170), "white") for _ in range(pages)]
    buf = io.BytesIO()
    sheets[0].save(buf, "PDF", save_all=True, append_images=sheets[1:])
    return buf.getvalue()


def _entry(name: str, data: bytes) -> dict[str, Any]:
    return {"name": name, "data": base64.b64encode(data).decode("ascii")}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    sets = {
        r: [_entry(f"shot-{i}.png", _png(i, r)) for i in range(20)]
        for r in range(-1, 2 * args.rounds)
    }
    shots = sets[-1]
    pdf = [_entry("spec.pdf", _pdf(40))]
    doc = {
        "kind": "doc",
        "payload": {
            "title": "Screens",
            "elements": [
                {"kind": "figure", "payload": {"shot": i, "alt": f"screen {i}"}} for i in range(20)
            ],
        },
    }
    size = sum(len(base64.b64decode(s["data"])) for s in shots)
    print(f"20 screenshots = {size / 1024:.0f} KiB; rounds = {args.rounds}")
    rows = []
    for backend, ws in workspaces():
        rows += [[backend, *row] for row in _rows(ws, sets, pdf, doc, shots, args.rounds)]
    table(
        f"{CALLER}, CPU is this process only",
        ["backend", "shape", *TIMING_HEADER],
        rows,
    )


def _rows(
    ws: Workspace,
    sets: dict[int, list[dict[str, Any]]],
    pdf: list[dict[str, Any]],
    doc: dict[str, Any],
    shots: list[dict[str, Any]],
    rounds: int,
) -> list[list[str]]:
    ws.call("create", {"kind": "board", "slug": "bench"})
    push = {"board": "bench", "doc": doc, "files": shots, "shots": [s["name"] for s in shots]}
    shapes = [
        (
            "upload 20 PNG 1280x800",
            lambda r: ws.call("upload_files", {"board": "bench", "files": sets[r]}),
        ),
        (
            "upload 1 PDF, 40 pages",
            lambda _: ws.call("upload_files", {"board": "bench", "files": pdf}),
        ),
        ("push_doc, 20 shots", lambda _: ws.call("push_doc", push)),
    ]
    return [[name, *measure(fn, rounds).cells()] for name, fn in shapes]


if __name__ == "__main__":
    main()
