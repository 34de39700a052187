"""Image memory bench: what requests on a huge picture cost in memory, now and at a baseline.

Run: ``python benches/image_memory_bench.py [--baseline REV] [--threads 6]``. The picture
is a 9,400 x 9,400 PNG (343 KB, just under the ``imagePixels`` cap: flat colour with a
red square), uploaded to a board in a SQLite file. Each row is measured in a process of
its own (``resource.getrusage``'s ``ru_maxrss``, the peak resident size), so no row
inherits another's peak:

- ``6 x get_card_image``: six threads ask for the card image at once (maxDim 1600),
- ``6 x region 100 px``: six threads ask for a 100 x 100 region at natural pixels,
- ``render_board png``: one board picture.

``grown MiB`` is the peak after the requests less the peak before them (the upload and
the imports), ``peak MiB`` the process's own; CPU is this process's (every thread),
wall the requests' alone. The work runs in the calling process (no engine workers;
``layoutkit serve`` would spread the same memory over its worker processes).

Each row runs twice on this tree: ``no rendition`` (the rendition job switched off: a
picture stored before renditions existed, the worst case) and ``rendition kept`` (the
job ran after the upload). ``--baseline REV`` also runs the rows on that commit of the
repository (exported with ``git archive`` into a temporary directory), which had no
renditions: the figures before this change, on this machine, now.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _timing import table

REPO = Path(__file__).resolve().parents[1]

SCENARIOS = ("get_card_image", "region", "render_board")
LABELS = {
    "get_card_image": "{n} x get_card_image",
    "region": "{n} x region 100 px",
    "render_board": "render_board png",
}

# Runs in a child process with the tree under test first on sys.path. It may be an
# older tree, so it needs nothing of this one: its own PNG writer, renditions optional.
_CHILD = r"""
import base64, json, resource, struct, sys, threading, time, zlib

scenario, keep, threads = sys.argv[1], sys.argv[2] == "keep", int(sys.argv[3])
from layoutkit import Workspace
try:
    from layoutkit.service import renditions
except ImportError:  # a tree from before renditions
    renditions = None
if renditions is not None and not keep:
    renditions.schedule = lambda workspace, keys: None


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def huge(side=9400):
    flat = bytes((240, 240, 240)) * side
    square = bytearray(flat)
    square[3 * 9000 : 3 * 9100] = bytes((200, 30, 30)) * 100
    pack = zlib.compressobj(9)
    rows = [pack.compress(b"\0" + (bytes(square) if 8000 <= y < 8100 else flat)) for y in range(side)]
    head = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    idat = b"".join(rows) + pack.flush()
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


data = huge()
with Workspace.open(sys.argv[4]) as ws:
    ws.call("create", {"kind": "board", "slug": "b"})
    files = [{"name": "huge.png", "data": base64.b64encode(data).decode()}]
    card = ws.call("upload_files", {"board": "b", "files": files})["cards"][0]["id"]
    if keep:
        ws.drawing.drain()
    if scenario == "get_card_image":
        params = {"board": "b", "cardId": card}
    elif scenario == "region":
        params = {"board": "b", "cardId": card, "region": {"x": 9000, "y": 8000, "w": 100, "h": 100}}
    else:
        params = {"board": "b", "format": "png"}
    op = "render_board" if scenario == "render_board" else "get_card_image"
    count = 1 if scenario == "render_board" else threads
    before, cpu0, wall0 = peak(), time.process_time(), time.perf_counter()
    go = threading.Barrier(count)
    errors = []

    def ask():
        go.wait()
        try:
            ws.call(op, params)
        except Exception as exc:
            errors.append(repr(exc))

    workers = [threading.Thread(target=ask) for _ in range(count)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    print(json.dumps({"before": before, "after": peak(), "cpu": cpu, "wall": wall, "errors": errors}))
"""


def _measure(tree: Path, scenario: str, keep: bool, threads: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        args = [scenario, "keep" if keep else "none", str(threads), url]
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, *args],
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _export(rev: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", rev], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", help="a commit to measure too, e.g. HEAD~3")
    parser.add_argument("--threads", type=int, default=6)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        trees = [("this tree", REPO, (False, True))]
        if args.baseline:
            old = _export(args.baseline, Path(tmp))
            trees.insert(0, (f"baseline {args.baseline}", old, (False,)))
        for name, tree, keeps in trees:
            for scenario in SCENARIOS:
                for keep in keeps:
                    got = _measure(tree, scenario, keep, args.threads)
                    rows.append(
                        [
                            LABELS[scenario].format(n=args.threads),
                            name,
                            "rendition kept" if keep else "no rendition",
                            f"{got['after'] - got['before']:.0f}",
                            f"{got['after']:.0f}",
                            f"{got['cpu']:.2f}",
                            f"{got['wall']:.2f}",
                            "; ".join(got["errors"]) or "-",
                        ]
                    )
                    print(" ".join(rows[-1]), flush=True)
    table(
        "peak resident memory of requests on a 9,400 x 9,400 PNG (one process per row)",
        ["requests", "code", "picture", "grown MiB", "peak MiB", "cpu s", "wall s", "errors"],
        rows,
    )


if __name__ == "__main__":
    main()
