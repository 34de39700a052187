"""The example board of ``serve --example``: its figures are counted, never typed."""

from __future__ import annotations

from collections import Counter

from layoutkit import Workspace, elements
from layoutkit.adapters.http import seed_example
from layoutkit.examples import FIGURES_REF, example_board


def _payload(example: dict, ref: str) -> dict:
    cards = [c for batch in example["batches"] for c in batch.get("cards", [])]
    return next(c["payload"] for c in cards if c.get("ref") == ref)


def test_the_figures_follow_the_registry_and_the_contract() -> None:
    stat = _payload(example_board(operations=7), FIGURES_REF)
    values = {item["label"]: item["value"] for item in stat["items"]}
    assert values == {
        "Operations": 7,
        "Card kinds": len(elements.CARD_KINDS),
        "Element kinds": len(elements.ELEMENT_KINDS),
    }


def test_the_seeded_board_shows_this_workspaces_figures(ws: Workspace) -> None:
    slug = seed_example(ws)
    assert seed_example(ws) == slug  # composed once
    cards = ws.call("scrape_board", {"board": slug})["cards"]
    stat = next(c["payload"] for c in cards if c["kind"] == "stat")
    assert {"label": "Operations", "value": len(ws.operations())} in stat["items"]
    chart = next(c["payload"] for c in cards if c["kind"] == "chart")
    counted = {item["label"]: item["value"] for item in chart["data"]["items"]}
    # Frames the placement made (the section and the journey) are not example cards.
    authored = Counter(c["kind"] for c in cards if c["kind"] != "section")
    assert counted == dict(authored)
