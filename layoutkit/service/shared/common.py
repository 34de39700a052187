"""Pieces every operation family shares: board lookup, views of records, schema bits."""

from __future__ import annotations

from typing import Any

from layoutkit.storage import (
    BoardRecord,
    CardRecord,
    EdgeRecord,
    QuestionRecord,
    Tx,
)

SLUG_PATTERN = "^[a-z0-9][a-z0-9-]{0,79}$"
SLUG = {"type": "string", "pattern": SLUG_PATTERN, "description": "board slug"}
#: Stored ids are positive and fit every backend's 64-bit integer (and JSON's safe range).
ID: dict = {"type": "integer", "minimum": 1, "maximum": 2**53 - 1}


def board_view(tx: Tx, board: BoardRecord) -> dict[str, Any]:
    project = tx.project(board.project_id) if board.project_id is not None else None
    parent = tx.board(board.parent_board_id) if board.parent_board_id is not None else None
    title = board.meta.get("title")
    return {
        "slug": board.slug,
        "title": title if isinstance(title, str) else None,
        "project": project.slug if project else None,
        "subgroup": board.subgroup,
        "tags": list(board.tags),
        "theme": board.theme,
        "archived": board.archived,
        "meta": board.meta,
        "lanes": board.lanes,
        "parentBoard": parent.slug if parent else None,
        "section": board.section,
        "flow": board.flow,
        "createdAt": board.created_at.isoformat(),
        "updatedAt": board.updated_at.isoformat(),
    }


def card_view(card: CardRecord, section: str | None = None) -> dict[str, Any]:
    return {
        "id": card.id,
        "kind": card.kind,
        "payload": card.payload,
        "x": card.x,
        "y": card.y,
        "w": card.w,
        "h": card.h,
        "layer": card.layer,
        "version": card.version,
        "parent": card.parent_id,
        "section": section,
    }


def edge_view(edge: EdgeRecord) -> dict[str, Any]:
    out: dict[str, Any] = {"id": edge.id, "from": edge.from_card, "to": edge.to_card}
    for key, value in (
        ("rel", edge.rel),
        ("label", edge.label),
        ("fromRegion", edge.from_region),
        ("toRegion", edge.to_region),
    ):
        if value is not None:
            out[key] = value
    return out


def question_view(q: QuestionRecord, *, staged_answers: bool = False) -> dict[str, Any]:
    """A question as callers see it. Answers show once released; ``staged_answers`` also
    shows an answer not yet sent (to the people who answer, never to agents)."""
    shown = q.state == "released" or (staged_answers and q.state == "answered")
    return {
        "id": q.id,
        "prompt": q.prompt,
        "stakes": q.stakes,
        "options": q.options,
        "multiSelect": q.multi_select,
        "kind": q.kind,
        "pivot": q.pivot,
        "cardId": q.card_id,
        "state": q.state,
        "answers": q.answers if shown else None,
    }
