"""Card images and sheets: the engine's crops, scales and contact sheets, and what a caller
waits for get_card_image and for card writes that keep versions.

Run: ``python benches/card_images_bench.py [--rounds N]``. The screens are the example
board drawn as a 1440 × 900 PNG (text, boxes and wires, as a screenshot has). Engine rows
time :mod:`layoutkit.review.sheets` on those bytes; caller rows time ``get_card_image``
(a stored screen, a text card's face, a survey of 12 screens) and ``update_cards`` of 200
cards, payload patches (each keeps a version row) beside moves (which keep none), on
SQLite, and on PostgreSQL when LAYOUTKIT_TEST_POSTGRES_URL is set. Wall and CPU time side
by side.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
from importlib import resources

from _timing import CALLER, ENGINE, TIMING_HEADER, measure, table, workspaces
from PIL import Image

from layoutkit import Workspace
from layoutkit.review import sheets


def _screen() -> bytes:
    example = json.loads(resources.files("layoutkit.examples").joinpath("board.json").read_text())
    with Workspace.open() as ws:
        ws.call("create", {"kind": "board", "slug": "welcome"})
        for batch in example["batches"]:
            ws.call("compose_board", {"board": "welcome", **batch})
        drawn = base64.b64decode(
            ws.call("render_board", {"board": "welcome", "format": "png"})["image"]["data"]
        )
    img = Image.open(io.BytesIO(drawn)).convert("RGB").resize((1440, 900))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def _engine_rows(screen: bytes, rounds: int) -> list[list[str]]:
    region = {"x": 200, "y": 150, "w": 600, "h": 400}
    whole = [sheets.Tile(screen, f"#{i}") for i in range(sheets.MAX_WHOLE)]
    crops = [sheets.Tile(screen, f"T{i}", crop=region) for i in range(sheets.MAX_CROPS)]
    sizes = [(1440, 900)] * sheets.MAX_WHOLE
    labels = [f"#{i}" for i in range(sheets.MAX_WHOLE)]
    cases = [
        ("card_image, stored PNG whole", lambda _: sheets.card_image(screen)),
        ("card_image, 600x400 region", lambda _: sheets.card_image(screen, region=region)),
        ("card_image, scaled to 800", lambda _: sheets.card_image(screen, max_dim=800)),
        ("plan_sheet, 12 whole", lambda _: sheets.plan_sheet(sizes, labels, [False] * 12)),
        ("contact_sheet, 12 whole", lambda _: sheets.contact_sheet(whole, sight_code="7K4Q")),
        ("contact_sheet, 24 crops", lambda _: sheets.contact_sheet(crops)),
    ]
    return [[name, ENGINE, "-", *measure(fn, rounds).cells(1)] for name, fn in cases]


def _caller_rows(backend: str, ws: Workspace, screen: bytes, rounds: int) -> list[list[str]]:
    ws.call("create", {"kind": "board", "slug": "shots"})
    files = [{"name": f"s{i}.png", "data": base64.b64encode(screen).decode()} for i in range(12)]
    ids = [c["id"] for c in ws.call("upload_files", {"board": "shots", "files": files})["cards"]]
    note = ws.call(
        "compose_board",
        {"board": "shots", "cards": [{"kind": "text", "payload": {"md": "# Notes\n\n" * 3}}]},
    )["cards"][0]["id"]
    one = measure(lambda _: ws.call("get_card_image", {"board": "shots", "cardId": ids[0]}), rounds)
    face = measure(lambda _: ws.call("get_card_image", {"board": "shots", "cardId": note}), rounds)
    survey = measure(
        lambda _: ws.call("get_card_image", {"board": "shots", "cardIds": ids}), rounds
    )
    ws.call("create", {"kind": "board", "slug": "notes"})
    cards = [{"kind": "text", "payload": {"md": f"note {i}"}} for i in range(200)]
    made = ws.call("compose_board", {"board": "notes", "cards": cards})["cards"]
    with ws.store.read() as tx:
        boxes = {c.id: c for c in tx.cards(tx.board_by_slug(ws.workspace_id, "notes").id)}  # type: ignore[union-attr]

    def patch(r: int) -> None:
        with ws.store.transaction() as tx:
            tx.update_cards([{"id": c["id"], "payload": {"md": f"note {r}"}} for c in made])

    def move(r: int) -> None:
        with ws.store.transaction() as tx:
            tx.update_cards(
                [
                    {"id": i, "x": b.x + r % 7, "y": b.y, "w": b.w, "h": b.h}
                    for i, b in boxes.items()
                ]
            )

    few = max(3, rounds // 4)
    return [
        ["get_card_image, stored screen", CALLER, backend, *one.cells(1)],
        ["get_card_image, text face", CALLER, backend, *face.cells(1)],
        ["get_card_image, survey of 12", CALLER, backend, *survey.cells(1)],
        ["200 payload patches (kept)", "one transaction", backend, *measure(patch, few).cells(1)],
        ["200 moves (none kept)", "one transaction", backend, *measure(move, few).cells(1)],
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    rounds = parser.parse_args().rounds
    screen = _screen()
    rows = _engine_rows(screen, rounds)
    for backend, ws in workspaces():
        rows.extend(_caller_rows(backend, ws, screen, rounds))
    table(
        f"card images and sheets ({rounds} rounds; screens 1440x900 PNG, "
        f"{len(screen) // 1024} KiB)",
        ["what", "measured", "backend", *TIMING_HEADER],
        rows,
    )


if __name__ == "__main__":
    main()
