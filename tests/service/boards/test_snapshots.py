"""Compose receipts of representative batches (geometry is deterministic).

Review intended changes with ``pytest tests/service --snapshot-update``.
"""

from __future__ import annotations

from typing import Any

import pytest

from layoutkit import Principal, Workspace

AGENT = Principal.agent("snap")


def _text(md: str, ref: str | None = None) -> dict[str, Any]:
    return {"kind": "text", "payload": {"md": md}, **({"ref": ref} if ref else {})}


BATCHES: dict[str, list[dict[str, Any]]] = {
    "shelf": [
        {
            "cards": [
                _text("Goal: ship the workspace core"),
                {"kind": "note", "payload": {"md": "remember the bench"}},
                {"kind": "shape", "payload": {"label": "box", "shape": "diamond"}},
                _text("A longer idea " * 8),
            ]
        },
    ],
    "sections-and-anchors": [
        {
            "section": "Ideas",
            "cards": [_text("first idea"), _text("second idea, a little longer than the first")],
        },
        {"section": "Risks", "layout": "column", "cards": [_text("storage"), _text("concurrency")]},
        {
            "anchorCardId": 1,
            "cards": [{"kind": "note", "payload": {"md": "beside the first section"}}],
        },
    ],
    "journey": [
        {
            "journey": "signup",
            "cards": [{"kind": "step", "payload": {"title": "Form", "image": "form.png"}}],
        },
        {
            "journey": "signup",
            "pass": "next",
            "cards": [
                {"kind": "step", "payload": {"title": "Form", "image": "form.png"}},
                {"kind": "step", "payload": {"title": "Done", "image": "done.png"}},
            ],
        },
    ],
    "frames-edges-questions": [
        {
            "cards": [
                {
                    "kind": "cluster",
                    "ref": "g",
                    "payload": {"title": "Options", "layout": {"mode": "grid", "cols": 2}},
                    "children": ["a", "b", "c"],
                },
                _text("SQLite", "a"),
                _text("PostgreSQL", "b"),
                _text("Both", "c"),
                _text("Decision", "d"),
            ],
            "edges": [
                {"from": "a", "to": "d"},
                {"from": "b", "to": "d", "rel": "alternative", "label": "or"},
            ],
            "questions": [
                {"prompt": "Which store?", "options": ["SQLite", "PostgreSQL"], "cardRef": "d"}
            ],
        },
    ],
    "document-flow": [
        {"flow": "document", "cards": [_text("# Title"), _text("Intro paragraph " * 10)]},
        {"cards": [_text("Appendix")]},
    ],
    "decision-map": [
        {
            "template": "decision-map",
            "params": {
                "title": "Choices",
                "context": "Why we decide",
                "decisions": [
                    {"key": "db", "title": "Database", "stakes": "cost", "options": ["a", "b"]}
                ],
            },
        },
    ],
}


@pytest.mark.parametrize("name", sorted(BATCHES))
def test_compose_receipts(name: str, snapshot: Any) -> None:
    with Workspace.open() as ws:
        ws.call("create", {"kind": "board", "slug": "snap"})
        receipts = [
            ws.call("compose_board", {"board": "snap", **batch}, AGENT) for batch in BATCHES[name]
        ]
    assert receipts == snapshot
