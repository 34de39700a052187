"""upload_files and push_doc bench on a SQLite file workspace.

Run: ``python benches/uploads_bench.py [--rounds N]``. Each round is one full
``Workspace.call``: base64 decode, image header read / PDF page count, blob
writes (files next to the database), placement and commit.

Every round sends new bytes (blobs are content-addressed, so a repeat would
only find them stored). Shapes: 20 PNG screenshots (1280x800) in one upload; one 40-page PDF; a doc
set with 20 shots referenced by figures, pushed as the next version each
round (so the version scan covers a growing board).
"""

from __future__ import annotations

import argparse
import base64
import io
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image
from PIL.PngImagePlugin import PngInfo

from layoutkit import Workspace


def _png(i: int, round_: int) -> bytes:
    # A text chunk makes every round's bytes new, so blob writes are measured, not dedup.
    info = PngInfo()
    info.add_text("round", str(round_))
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


def _time(fn: Callable[[int], Any], rounds: int) -> tuple[float, float]:
    fn(-1)  # warm-up
    samples = []
    for i in range(rounds):
        start = time.perf_counter()
        fn(i)
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[max(0, int(len(samples) * 0.95) - 1)]


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
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace.open(f"sqlite:///{Path(tmp) / 'bench.db'}")
        ws.call("create", {"kind": "board", "slug": "bench"})
        rows = [
            (
                "upload 20 PNG 1280x800",
                _time(
                    lambda r: ws.call("upload_files", {"board": "bench", "files": sets[r]}),
                    args.rounds,
                ),
            ),
            (
                "upload 1 PDF, 40 pages",
                _time(
                    lambda _: ws.call("upload_files", {"board": "bench", "files": pdf}), args.rounds
                ),
            ),
            (
                "push_doc, 20 shots",
                _time(
                    lambda _: ws.call(
                        "push_doc",
                        {
                            "board": "bench",
                            "doc": doc,
                            "files": shots,
                            "shots": [s["name"] for s in shots],
                        },
                    ),
                    args.rounds,
                ),
            ),
        ]
        size = sum(len(base64.b64decode(s["data"])) for s in shots)
        print(f"20 screenshots = {size / 1024:.0f} KiB; rounds = {args.rounds}")
        print(f"{'shape':<26} {'median ms':>10} {'p95 ms':>10}")
        for name, (median, p95) in rows:
            print(f"{name:<26} {median:>10.1f} {p95:>10.1f}")
        ws.close()


if __name__ == "__main__":
    main()
