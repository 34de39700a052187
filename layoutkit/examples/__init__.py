"""Bundled examples: the welcome board of ``layoutkit serve --example`` and the report of ``layoutkit demo``.

The board's bundled pictures (``uploads``) are uploaded as a person would, so the
board shows a picture card. The board's figures are counted when it is composed (operations from the
registry, kinds from the contract, cards by kind from the example itself), so
they stay true as the project grows.
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from importlib import resources
from typing import TYPE_CHECKING, Any

from layoutkit import elements

if TYPE_CHECKING:
    from layoutkit.service import Workspace

#: Batch refs of the cards whose figures are filled in at compose time.
FIGURES_REF = "figures"
KINDS_REF = "kinds"


def load(name: str) -> Any:
    """A bundled example file (``board.json``, ``report.json``) parsed."""
    return json.loads(resources.files(__name__).joinpath(name).read_text("utf-8"))


def example_board(operations: int) -> dict[str, Any]:
    """The welcome board (``board`` params and compose ``batches``) with its figures counted.

    ``operations`` is how many operations the serving workspace registers.
    """
    example = load("board.json")
    cards = [card for batch in example["batches"] for card in batch.get("cards", [])]
    by_ref = {card["ref"]: card for card in cards if "ref" in card}
    by_ref[FIGURES_REF]["payload"]["items"] = [
        {"label": "Operations", "value": operations},
        {"label": "Card kinds", "value": len(elements.CARD_KINDS)},
        {"label": "Element kinds", "value": len(elements.ELEMENT_KINDS)},
    ]
    counts = Counter(card["kind"] for card in cards)
    # Bundled pictures are uploaded, and an uploaded picture becomes a media card.
    counts.update("media" for _ in example.get("uploads", ()))
    by_ref[KINDS_REF]["payload"]["data"]["items"] = [
        {"label": kind, "value": n} for kind, n in counts.most_common()
    ]
    return example


def seed_example(ws: Workspace) -> str:
    """Compose the welcome board in ``ws`` unless it exists; returns its slug."""
    example = example_board(len(ws.operations()))
    slug = example["board"]["slug"]
    existing = ws.call("list", {"kind": "board"})["boards"]
    if any(b["slug"] == slug for b in existing):
        return slug
    ws.call("create", {"kind": "board", **example["board"]})
    for batch in example["batches"]:
        ws.call("compose_board", {"board": slug, **batch})
    for upload in example.get("uploads", ()):
        data = resources.files(__name__).joinpath(upload["file"]).read_bytes()
        files = [{"name": upload["file"], "data": base64.b64encode(data).decode("ascii")}]
        ws.call("upload_files", {"board": slug, "section": upload["section"], "files": files})
    return slug
