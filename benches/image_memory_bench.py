"""Image memory bench: what requests on a huge picture cost in memory, now and at a baseline.

Run: ``python benches/image_memory_bench.py [--baseline REV] [--threads 6] [--only ROW...]``.
The picture is a 9,400 x 9,400 PNG (343 KB, just under the ``imagePixels`` cap: flat
colour with a red square), uploaded to a board in a SQLite file. Each row is measured
in a process of its own (``resource.getrusage``'s ``ru_maxrss``, the peak resident
size), so no row inherits another's peak:

- ``6 x get_card_image``: six threads ask for the card image at once (maxDim 1600),
- ``6 x region 100 px``: six threads ask for a 100 x 100 region at natural pixels,
- ``render_board png``: one board picture,
- ``review_plan``: a plan of ``--screens`` (100) distinct 1440 x 900 screens on one
  board (stored PNGs of about 20 KB, not the huge picture), made ``--rounds`` times
  (CPU and wall are the median round's). ``review_plan 1 page``: every screen is
  one page with other text (one group of near-duplicates); ``review_plan 10 pages``:
  ten pages in turn (page 1, 2, ... 10, 1, 2, ...), ten groups whose members come
  ten screens apart.

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

SCENARIOS = ("get_card_image", "region", "render_board", "plan_one", "plan_pages")
LABELS = {
    "get_card_image": "{n} x get_card_image",
    "region": "{n} x region 100 px",
    "render_board": "render_board png",
    "plan_one": "review_plan 1 page",
    "plan_pages": "review_plan 10 pages",
}
PLANS = ("plan_one", "plan_pages")

# Runs in a child process with the tree under test first on sys.path. It may be an
# older tree, so it needs nothing of this one: its own PNG writer, renditions optional.
_CHILD = r"""
import base64, json, resource, struct, sys, threading, time, zlib

scenario, keep, threads = sys.argv[1], sys.argv[2] == "keep", int(sys.argv[3])
screens, rounds = int(sys.argv[5]), int(sys.argv[6])
from layoutkit import Principal, Workspace
try:
    from layoutkit.service.uploads import renditions
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


def screen(page, seed):
    # A 1440 x 900 app screen: page's layout (no two pages are near-duplicates), its
    # text naming seed.
    import io
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (1440, 900), (250, 250, 252))
    draw = ImageDraw.Draw(img)
    draw.rectangle([0, 0, 1440, 64], fill=(60, 90, 200))
    draw.text((24, 20), f"Page {page}: orders {seed}", fill=(255, 255, 255))
    side = 120 + 90 * (page % 5)
    draw.rectangle([0, 64, side, 900], fill=(228, 230, 236) if page % 2 else (40, 44, 56))
    rows = 3 + page
    step = 760 // rows
    for i in range(rows):
        y = 90 + i * step
        fill = (250 - 20 * (i % 2), 250, 252)
        draw.rectangle([side + 24, y, 1416, y + step - 12], outline=(30, 34, 44), width=2, fill=fill)
        draw.text((side + 40, y + 8), f"Row {i} of {seed}", fill=(30, 34, 44))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def plan(pages):
    from layoutkit.storage import NewCard

    agent = Principal.agent("bench")
    with Workspace.open(sys.argv[4]) as ws:
        ws.call("create", {"kind": "board", "slug": "b", "project": "shop"})
        with ws.store.transaction() as tx:
            board = tx.board_by_slug(ws.workspace_id, "b")
            cards = []
            for i in range(screens):
                ref = tx.blobs.put(screen(i % pages, i))
                payload = {"ref": ref, "mime": "image/png"}
                cards.append(NewCard("media", payload, i * 500.0, 0.0, 480.0, 300.0, "ai", "bench"))
            tx.insert_cards(board.id, cards)
        before, cpus, walls, errors = peak(), [], [], []
        for _ in range(rounds):
            cpu0, wall0 = time.process_time(), time.perf_counter()
            try:
                ws.call("review_plan", {"boards": ["b"], "full": True}, agent)
            except Exception as exc:
                errors.append(repr(exc))
            walls.append(time.perf_counter() - wall0)
            cpus.append(time.process_time() - cpu0)
    middle = sorted(range(rounds), key=lambda i: cpus[i])[rounds // 2]
    print(json.dumps({"before": before, "after": peak(), "cpu": cpus[middle], "wall": walls[middle], "errors": errors}))


if scenario in ("plan_one", "plan_pages"):
    plan(1 if scenario == "plan_one" else 10)
    sys.exit(0)

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


def _measure(
    tree: Path, scenario: str, keep: bool, threads: int, screens: int, rounds: int
) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        args = [scenario, "keep" if keep else "none", str(threads), url, str(screens), str(rounds)]
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
    parser.add_argument("--screens", type=int, default=100, help="screens of a review_plan row")
    parser.add_argument("--rounds", type=int, default=3, help="plans made in a review_plan row")
    parser.add_argument("--only", nargs="+", choices=SCENARIOS, help="these rows alone")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        trees = [("this tree", REPO, (False, True))]
        if args.baseline:
            old = _export(args.baseline, Path(tmp))
            trees.insert(0, (f"baseline {args.baseline}", old, (False,)))
        for name, tree, keeps in trees:
            for scenario in args.only or SCENARIOS:
                # A plan's screens are small: no rendition is ever made of them.
                for keep in (False,) if scenario in PLANS else keeps:
                    got = _measure(tree, scenario, keep, args.threads, args.screens, args.rounds)
                    picture = "rendition kept" if keep else "no rendition"
                    rows.append(
                        [
                            LABELS[scenario].format(n=args.threads),
                            name,
                            f"{args.screens} x 1440 x 900" if scenario in PLANS else picture,
                            f"{got['after'] - got['before']:.0f}",
                            f"{got['after']:.0f}",
                            f"{got['cpu']:.2f}",
                            f"{got['wall']:.2f}",
                            "; ".join(got["errors"]) or "-",
                        ]
                    )
                    print(" ".join(rows[-1]), flush=True)
    table(
        "peak resident memory of requests on a 9,400 x 9,400 PNG, and of review plans "
        "(one process per row)",
        ["requests", "code", "picture", "grown MiB", "peak MiB", "cpu s", "wall s", "errors"],
        rows,
    )


if __name__ == "__main__":
    main()
