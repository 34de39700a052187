"""``compose_board``: validate a batch, place it, and store it in one transaction."""

from __future__ import annotations

import copy
import json
from typing import Any

from layoutkit import elements, layout
from layoutkit.errors import ServiceError
from layoutkit.service._common import ID, REQUEST_KEY, SLUG, check_board_access, find_board
from layoutkit.service.board_model import load_board, write_changes
from layoutkit.service.boards import new_question
from layoutkit.service.content_prep import Prepared, prepare_card, store_spilled
from layoutkit.service.idempotency import run_once
from layoutkit.service.questions import QUESTION_SCHEMA, normalize_question
from layoutkit.service.registry import REGISTRY
from layoutkit.service.templates import expand
from layoutkit.service.workspace import Call
from layoutkit.storage import BoardRecord, NewCard, NewEdge, Tx

MAX_BODY = 8 * 1024 * 1024

_ANCHOR = {
    "type": "object",
    "properties": {
        "cardId": ID,
        "ref": {"type": "string"},
        "relation": {"enum": ["after", "before", "under", "beside", "into"]},
    },
    "additionalProperties": False,
}
_END = {
    "anyOf": [{"type": "string", "minLength": 1}, ID],
    "description": "batch ref or existing card id",
}
_REGION = {
    "type": "object",
    "required": ["x", "y", "w", "h"],
    "properties": {k: {"type": "number"} for k in ("x", "y", "w", "h")},
}
EDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["from", "to"],
    "properties": {
        "from": _END,
        "to": _END,
        "rel": {"type": "string", "maxLength": 80},
        "label": {"type": "string", "maxLength": 500},
        "fromRegion": _REGION,
        "toRegion": _REGION,
    },
    "additionalProperties": False,
}

COMPOSE_SCHEMA: dict[str, Any] = {
    "required": ["board"],
    "properties": {
        "board": SLUG,
        "requestKey": REQUEST_KEY,
        "cards": {
            "type": "array",
            "items": {
                # Kind and payload are checked against the content contract, which
                # answers with the batch index and the allowed kinds.
                "type": "object",
                "required": ["kind"],
                "properties": {
                    "kind": {"type": "string"},
                    "payload": {"type": "object"},
                    "ref": {"type": "string", "minLength": 1, "maxLength": 200},
                    "children": {"type": "array", "items": {"type": "string"}},
                    "anchor": _ANCHOR,
                },
                "additionalProperties": False,
            },
        },
        "edges": {"type": "array", "items": EDGE_SCHEMA},
        "questions": {"type": "array", "items": QUESTION_SCHEMA},
        "layout": {"enum": ["column", "row", "grid"]},
        "aspect": {"type": "number", "minimum": 0, "maximum": 1000},
        "flow": {"enum": ["document"]},
        "anchor": _ANCHOR,
        "anchorCardId": ID,
        "section": {"type": "string", "minLength": 1, "maxLength": 200},
        "createSection": {"type": "boolean"},
        "journey": {"type": "string", "minLength": 1, "maxLength": 200},
        "pass": {"anyOf": [{"const": "next"}, {"type": "integer", "minimum": 1}]},
        "template": {"type": "string"},
        "params": {"type": "object"},
    },
    "additionalProperties": False,
}


def _shown_schema() -> dict[str, Any]:
    """COMPOSE_SCHEMA with each card's payload shape spelled out per kind.

    Only shown: the check leaves kind and payload to the content contract,
    whose refusal names the batch index, the allowed kinds and every finding.
    """
    shown = copy.deepcopy(COMPOSE_SCHEMA)
    item = shown["properties"]["cards"]["items"]
    item["properties"]["kind"] = {"enum": list(elements.BOARD_VOCABULARY)}
    item["properties"]["payload"]["description"] = "Shape depends on the kind."
    item["oneOf"] = elements.card_variants()
    shown["$defs"] = elements.schema_defs()
    return shown


@REGISTRY.operation(
    "compose_board",
    "Add cards, wires and staged questions to a board in one all-or-nothing batch. Send "
    "semantic payloads and placement intent (layout, aspect, flow, anchor, section, "
    "journey/pass, template); the server sizes and places every card. The receipt lists "
    "each entry's id, box, placedAs and container.",
    COMPOSE_SCHEMA,
    shown=_shown_schema(),
)
def compose_board(call: Call) -> dict[str, Any]:
    params = call.params
    # Measured as the UTF-8 JSON a client sends; ASCII escapes (\uXXXX) would
    # count a non-Latin character up to three times over.
    body = json.dumps(params, separators=(",", ":"), ensure_ascii=False, default=str)
    if len(body.encode("utf-8")) > MAX_BODY:
        raise ServiceError(
            413, "payload_too_large", f"compose_board bodies are at most {MAX_BODY} bytes"
        )
    cards = list(params.get("cards") or [])
    edges = list(params.get("edges") or [])
    questions = list(params.get("questions") or [])
    section = params.get("section")
    layout_mode = params.get("layout")
    extend_section = None
    if "template" in params:
        expansion = expand(params["template"], params.get("params") or {})
        cards = expansion.cards + cards
        edges = expansion.edges + edges
        questions = expansion.questions + questions
        layout_mode = layout_mode or expansion.layout
        extend_section = expansion.section
    if not cards and not edges and not questions:
        raise ServiceError(
            400, "empty_batch", "send at least one card, edge or question", field="cards"
        )

    prepared = [_without_stamps(prepare_card(card, i)) for i, card in enumerate(cards)]
    staged = [normalize_question(q, f"questions[{i}]") for i, q in enumerate(questions)]
    batch_params = {
        **{
            k: params[k]
            for k in (
                "aspect",
                "flow",
                "anchor",
                "anchorCardId",
                "createSection",
                "journey",
                "pass",
            )
            if k in params
        },
        "layout": layout_mode,
        "section": extend_section or section,
        "layer": call.principal.layer,
        "cards": [
            {
                "kind": p.kind,
                "payload": p.payload,
                "ref": card.get("ref"),
                "children": card.get("children"),
                "anchor": card.get("anchor"),
            }
            for p, card in zip(prepared, cards, strict=True)
        ],
    }
    batch = layout.batch_from_params(batch_params)

    def write(tx: Tx) -> dict[str, Any]:
        board = find_board(tx, call.workspace.workspace_id, params["board"])
        check_board_access(call.principal, board, write=True)
        board = tx.lock_board(board.id)
        if extend_section is not None:
            _require_section(tx, board, extend_section)
        _check_portals(tx, board, prepared)
        return store_batch(call, tx, board, batch, prepared, cards, edges, questions, staged)

    return run_once(call, "compose_board", write)


#: Payload fields only the server writes on a compose: a doc's push-set stamp.
SERVER_STAMPS = {"doc": ("set",)}


def _without_stamps(prepared: Prepared) -> Prepared:
    """Drop stamps an author may not forge (push_doc sets them after preparing)."""
    for key in SERVER_STAMPS.get(prepared.kind, ()):
        prepared.payload.pop(key, None)
    return prepared


def _require_section(tx: Tx, board: BoardRecord, title: str) -> None:
    section_ids = [c.id for c in tx.card_boxes(board.id) if c.kind == "section"]
    if any(c.payload.get("title") == title for c in tx.cards_by_id(section_ids)):
        return
    raise ServiceError(
        404, "unknown_section", f"no section {title!r} on board {board.slug!r} to extend"
    )


def _check_portals(tx: Tx, board: BoardRecord, prepared: list[Prepared]) -> None:
    for i, p in enumerate(prepared):
        if p.kind != "board":
            continue
        target = p.payload.get("board")
        if target == board.slug:
            raise ServiceError(400, "portal_to_self", "a portal cannot show its own board", index=i)
        if tx.board_by_slug(board.workspace_id, target) is None:
            raise ServiceError(
                400,
                "unknown_portal_board",
                f"portal target board {target!r} does not exist",
                index=i,
            )


def store_batch(
    call: Call,
    tx: Tx,
    board: BoardRecord,
    batch: layout.Batch,
    prepared: list[Prepared],
    raw_cards: list[dict[str, Any]],
    raw_edges: list[dict[str, Any]],
    raw_questions: list[dict[str, Any]],
    staged: list[dict[str, Any]],
) -> dict[str, Any]:
    model = load_board(tx, board)
    result = layout.place_batch(model, batch)
    author = call.principal.label
    layer = call.principal.layer

    for p in prepared:
        store_spilled(tx, p)

    # Ids are assigned on insert; parent and children links follow in link_new_cards.
    new_rows: list[tuple[str, NewCard]] = [
        (s.key, NewCard("section", s.payload, s.x, s.y, s.w, s.h, layer, author, sized_by="frame"))
        for s in result.sections
    ]
    for pl in result.placements:
        card = model.get(pl.key)
        sized_by = "frame" if card.is_frame else card.sized_by
        new_rows.append(
            (
                pl.key,
                NewCard(
                    pl.kind, card.payload, pl.x, pl.y, pl.w, pl.h, layer, author, sized_by=sized_by
                ),
            )
        )
    records = tx.insert_cards(board.id, [row[1] for row in new_rows])
    ids: dict[Any, int] = {row[0]: rec.id for row, rec in zip(new_rows, records, strict=True)}

    def real(key: Any) -> Any:
        return ids.get(key, key)

    links = []
    for key, _ in new_rows:
        card = model.get(key)
        parent = card.parent
        kids = list(card.children)
        if parent is not None or kids:
            links.append(
                {
                    "id": ids[key],
                    "parent_id": real(parent),
                    "children": [real(k) for k in kids] or None,
                }
            )
    tx.link_new_cards(links)
    write_changes(tx, result.changes, ids)
    if result.flow_changed:
        tx.update_board(board.id, flow=result.flow)

    refs = {
        c["ref"]: ids[pl.key]
        for c, pl in zip(raw_cards, result.placements, strict=True)
        if c.get("ref")
    }
    edge_records = tx.insert_edges(
        board.id, [_edge(tx, board, e, i, refs, author) for i, e in enumerate(raw_edges)]
    )
    question_records = tx.insert_questions(
        board.id,
        [
            new_question(q, _question_card(tx, board, raw, i, refs), call)
            for i, (q, raw) in enumerate(zip(staged, raw_questions, strict=True))
        ],
    )
    model.rekey(ids)
    tx.record_event(
        "board.compose",
        author,
        board_id=board.id,
        detail={"cards": len(records), "edges": len(edge_records)},
    )
    warnings = [{**w, "index": i} for i, p in enumerate(prepared) for w in p.warnings]
    return {
        "board": board.slug,
        "cards": [
            {
                **({"ref": raw["ref"]} if raw.get("ref") else {}),
                "id": ids[pl.key],
                "kind": pl.kind,
                "x": pl.x,
                "y": pl.y,
                "w": pl.w,
                "h": pl.h,
                "placedAs": pl.placed_as,
                "container": real(pl.container),
            }
            for pl, raw in zip(result.placements, raw_cards, strict=True)
        ],
        "sections": [
            {
                "id": ids[s.key],
                "title": s.payload.get("title"),
                "x": s.x,
                "y": s.y,
                "w": s.w,
                "h": s.h,
            }
            for s in result.sections
        ],
        "moved": sorted(k for k in result.changes.moves if isinstance(k, int)),
        "edges": [{"id": e.id, "from": e.from_card, "to": e.to_card} for e in edge_records],
        "questions": [{"id": q.id, "state": q.state} for q in question_records],
        "warnings": warnings,
    }


def _resolve_end(
    tx: Tx, board: BoardRecord, end: Any, refs: dict[str, int], where: str, index: int
) -> int:
    if isinstance(end, str):
        if end in refs:
            return refs[end]
        raise ServiceError(
            400,
            "unknown_ref",
            f"{where}: no card with ref {end!r} in this batch",
            index=index,
            field=where,
        )
    card = tx.card(end)
    if card is None or card.board_id != board.id or card.deleted:
        raise ServiceError(
            400, "unknown_card", f"{where}: no card {end} on this board", index=index, field=where
        )
    return card.id


def _edge(
    tx: Tx, board: BoardRecord, raw: dict[str, Any], i: int, refs: dict[str, int], author: str
) -> NewEdge:
    return NewEdge(
        _resolve_end(tx, board, raw["from"], refs, f"edges[{i}].from", i),
        _resolve_end(tx, board, raw["to"], refs, f"edges[{i}].to", i),
        rel=raw.get("rel"),
        label=raw.get("label"),
        from_region=raw.get("fromRegion"),
        to_region=raw.get("toRegion"),
        author=author,
    )


def _question_card(
    tx: Tx, board: BoardRecord, raw: dict[str, Any], i: int, refs: dict[str, int]
) -> int | None:
    if "cardRef" in raw:
        return _resolve_end(tx, board, raw["cardRef"], refs, f"questions[{i}].cardRef", i)
    if "cardId" in raw:
        return _resolve_end(tx, board, raw["cardId"], refs, f"questions[{i}].cardId", i)
    return None
