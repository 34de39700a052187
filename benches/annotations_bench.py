"""Annotations: a 100-item batch of text regions on a card whose face draws 2,000 text runs.

Run: ``python benches/annotations_bench.py [--rounds N]``. The card is a checklist of 1,998
items under a title (the face also draws its done count): 2,000 runs, a face 56,000 board
pixels tall, drawn scaled to 4,096 pixels. Engine rows time the parts on their own: the
face's text lines taken from a face drawn before (warm) and drawn from nothing (cold), the
text index, and resolving 100 text regions. Caller rows time ``annotate`` with 100 text
items, as a dry run and as a filing batch (a category of its own each round, so nothing
restates an earlier round's findings), with the face cache warm and cold. SQLite, and
PostgreSQL when LAYOUTKIT_TEST_POSTGRES_URL is set; wall and CPU time side by side.
"""

from __future__ import annotations

import argparse
import functools
import math
from typing import Any

from _timing import CALLER, ENGINE, TIMING_HEADER, measure, table, workspaces

from layoutkit import Workspace, render
from layoutkit.render._glance import FACES
from layoutkit.review import regions

ITEMS = 1998
BATCH = 100


@functools.cache
def _labels() -> list[str]:
    return [f"Item {i:04d} of the release list" for i in range(ITEMS)]


def _card(ws: Workspace) -> dict[str, Any]:
    ws.call("create", {"kind": "board", "slug": "long"})
    payload = {"title": "Release", "items": [{"text": t} for t in _labels()]}
    ws.call(
        "compose_board", {"board": "long", "cards": [{"kind": "checklist", "payload": payload}]}
    )
    (card,) = ws.call("scrape_board", {"board": "long"})["cards"]
    return dict(card)


def _items(card: int, r: int) -> list[dict[str, Any]]:
    step = ITEMS // BATCH
    return [
        {
            "key": f"r{r}-{i}",
            "cardId": card,
            "cardVersion": 1,
            "region": {"text": _labels()[i * step]},
            "prompt": "This row reads badly",
            "category": f"round-{r}",
        }
        for i in range(BATCH)
    ]


def _engine_rows(face: dict[str, Any], rounds: int) -> list[list[str]]:
    max_dim = min(4096, math.ceil(max(face["w"], face["h"])))
    lines = render.card_text_lines(face, max_dim=max_dim)
    assert len({ln.run for ln in lines}) == ITEMS + 2, len({ln.run for ln in lines})
    index = regions.TextIndex.of(lines)
    width, height = render.card_png_size(face, max_dim=max_dim)
    wanted = [{"text": t} for t in _labels()[:: ITEMS // BATCH][:BATCH]]

    def resolve(_: int) -> None:
        for region in wanted:
            assert regions.resolve(region, width, height, index).status == "ok"

    cases = [
        ("text lines, face drawn before", lambda _: render.card_text_lines(face, max_dim=max_dim)),
        ("text index of 2,000 runs", lambda _: regions.TextIndex.of(lines)),
        ("resolve 100 text regions", resolve),
    ]
    rows = [[name, ENGINE, "-", *measure(fn, rounds).cells(1)] for name, fn in cases]
    cold = measure(
        lambda _: render.card_text_lines(face, max_dim=max_dim),
        max(3, rounds // 4),
        before=FACES.clear,
    )
    rows.append(["text lines, face drawn now (cold)", ENGINE, "-", *cold.cells(1)])
    return rows


def _caller_rows(
    backend: str, ws: Workspace, rounds: int
) -> tuple[dict[str, Any], list[list[str]]]:
    card = _card(ws)

    def run(r: int, dry: bool) -> None:
        out = ws.call(
            "annotate",
            {"board": "long", "agent": "bench", "items": _items(card["id"], r), "dryRun": dry},
        )
        assert out["created"] == BATCH, [x for x in out["results"] if x["status"] != "created"][:1]

    dry = measure(lambda r: run(r, True), rounds)
    filing = measure(lambda r: run(r, False), rounds)
    few = max(3, rounds // 4)
    cold = measure(lambda r: run(10_000 + r, True), few, before=FACES.clear)
    rows = [
        ["annotate 100 text items, dry run", CALLER, backend, *dry.cells(1)],
        ["annotate 100 text items, filed", CALLER, backend, *filing.cells(1)],
        ["annotate 100 text items, dry run, cold face", CALLER, backend, *cold.cells(1)],
    ]
    return card, rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    rounds = parser.parse_args().rounds
    rows: list[list[str]] = []
    face: dict[str, Any] | None = None
    for backend, ws in workspaces():
        card, got = _caller_rows(backend, ws, rounds)
        rows.extend(got)
        face = face or {k: card[k] for k in ("kind", "payload", "w", "h")}
    assert face is not None
    rows = _engine_rows(face, rounds) + rows
    table(
        f"annotations ({rounds} rounds; checklist of {ITEMS} items: 2,000 text runs, "
        f"{face['w']:.0f}x{face['h']:.0f} board px)",
        ["what", "measured", "backend", *TIMING_HEADER],
        rows,
    )


if __name__ == "__main__":
    main()
