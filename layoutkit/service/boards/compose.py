"""``compose_board``: validate a batch, place it, and store it in one transaction."""

from __future__ import annotations

import copy
import json
from typing import Any

import attrs

from layoutkit import elements, layout
from layoutkit.errors import ServiceError
from layoutkit.limits import ARRANGE_CARDS
from layoutkit.service.boards import links, outputs
from layoutkit.service.boards.board_model import BoardModels
from layoutkit.service.boards.content_prep import (
    Prepared,
    check_portals,
    prepare_card,
)
from layoutkit.service.boards.layout_params import AT_SCHEMA, batch_from_params
from layoutkit.service.boards.placing import store_batch
from layoutkit.service.boards.questions import QUESTION_SCHEMA, normalize_question
from layoutkit.service.boards.templates import TEMPLATES, expand
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import ID, SLUG
from layoutkit.storage import BoardRecord, Tx

MAX_BODY = 8 * 1024 * 1024
#: Cards, and wires, of one batch: as many as one arrange moves. The body alone
#: would let a batch of tiny cards run to hundreds of thousands, minutes of
#: placing under the board's write lock.
MAX_CARDS = ARRANGE_CARDS
#: Staged questions of one batch.
MAX_QUESTIONS = 100

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
#: A wire's relation and label, as compose_board and update_edges take them (the
#: relation's length is what the edges table stores).
REL_SCHEMA: dict[str, Any] = {
    "type": "string",
    "maxLength": 60,
    "description": "the kind of relation (such as depends-on); without one the wire "
    "is a plain flow arrow, and scrape_board's flows follow runs of those",
}
LABEL_SCHEMA: dict[str, Any] = {
    "type": "string",
    "maxLength": 500,
    "description": "text on the wire",
}
#: A wire between two cards of one board; also the source of the ``edge`` docs topic.
EDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "edge",
    "description": "A wire from one card to another on the same board, drawn as an arrow.",
    "required": ["from", "to"],
    "properties": {
        "from": {**_END, "description": "where the wire starts: a batch ref or a card id"},
        "to": {**_END, "description": "where the wire ends: a batch ref or a card id"},
        "rel": REL_SCHEMA,
        "label": LABEL_SCHEMA,
        "fromRegion": {
            **_REGION,
            "description": "the part of the start card the wire leaves from, in the card's "
            "own coordinates (a crop of a screenshot, say)",
        },
        "toRegion": {
            **_REGION,
            "description": "the part of the end card the wire points at, in its coordinates",
        },
    },
    "additionalProperties": False,
}

COMPOSE_SCHEMA: dict[str, Any] = {
    "required": ["board"],
    "properties": {
        "board": SLUG,
        "cards": {
            "type": "array",
            "maxItems": MAX_CARDS,
            "items": {
                # Kind and payload are checked against the content contract, which
                # answers with the batch index and the allowed kinds.
                "type": "object",
                "required": ["kind"],
                "properties": {
                    "kind": {"type": "string"},
                    "payload": {"type": "object"},
                    "ref": {"type": "string", "minLength": 1, "maxLength": 200},
                    "children": {
                        "type": "array",
                        "items": {"type": "string"},
                        "maxItems": MAX_CARDS,
                    },
                    "anchor": _ANCHOR,
                },
                "additionalProperties": False,
            },
        },
        "edges": {"type": "array", "items": EDGE_SCHEMA, "maxItems": MAX_CARDS},
        "questions": {"type": "array", "items": QUESTION_SCHEMA, "maxItems": MAX_QUESTIONS},
        "layout": {"enum": ["column", "row", "grid"]},
        # Any number is taken and clamped to [1, 3.2] by the placement engine
        # (the limit says clamped, not refused); 0 means the default 1.6.
        "aspect": {
            "type": "number",
            "description": "target block aspect w/h; 0 or omitted means 1.6; clamped to [1, 3.2]",
        },
        "flow": {"enum": ["document"]},
        "at": AT_SCHEMA,
        "anchor": _ANCHOR,
        "anchorCardId": ID,
        "section": {"type": "string", "minLength": 1, "maxLength": 200},
        "createSection": {"type": "boolean"},
        "journey": {"type": "string", "minLength": 1, "maxLength": 200},
        "pass": {"anyOf": [{"const": "next"}, {"type": "integer", "minimum": 1}]},
        "template": {
            "type": "string",
            "description": "a built-in template (decision-map) or the name of a workspace "
            "component (create kind component); its entries come first",
        },
        "params": {"type": "object", "description": "the template's slot values"},
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


@attrs.frozen(slots=True)
class _Batch:
    """A compose request after every check that needs no board: what the handler stores."""

    batch: layout.Batch
    prepared: list[Prepared]
    cards: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    questions: list[dict[str, Any]]
    staged: list[dict[str, Any]]
    extend_section: str | None


def _names_component(params: dict[str, Any]) -> bool:
    """Whether a compose's ``template`` is a workspace component's name rather than a
    built-in template's: only then is there anything to read before placing."""
    name = params.get("template")
    return isinstance(name, str) and name not in TEMPLATES


def _template_snapshot(tx: Tx, call: Call) -> dict[str, Any] | None:
    """The workspace's component a ``template`` names (none for a built-in one)."""
    if not _names_component(call.params):
        return None
    name = call.params["template"]
    return {
        "component": tx.component(call.workspace_id, name),
        "names": [c.name for c in tx.components(call.workspace_id)],
    }


def _prepare(call: Call) -> _Batch:
    """Expand the template, check the contract and lay out diagrams, before any lock."""
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
        found = call.snapshot or {}
        expansion = expand(
            params["template"],
            params.get("params") or {},
            found.get("component"),
            found.get("names"),
        )
        cards = expansion.cards + cards
        edges = expansion.edges + edges
        questions = expansion.questions + questions
        layout_mode = layout_mode or expansion.layout
        extend_section = expansion.section
    if not cards and not edges and not questions:
        raise ServiceError(
            400, "empty_batch", "send at least one card, edge or question", field="cards"
        )

    if "at" in params:
        _check_at(params, cards, extend_section)
    prepared = [prepare_card(card, i) for i, card in enumerate(cards)]
    links.stamp_new(call.workspace, prepared)
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
                "at",
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
    batch = batch_from_params(batch_params)
    return _Batch(batch, prepared, cards, edges, questions, staged, extend_section)


#: Placement intents a batch put by hand (``at``) leaves out: the person chose the spot.
_NOT_WITH_AT = ("anchor", "anchorCardId", "section", "createSection", "journey", "pass", "flow")


def _check_at(params: dict[str, Any], cards: list[dict[str, Any]], section: str | None) -> None:
    """400 ``exclusive_params`` naming the first placement intent sent beside ``at``."""
    sent = next((k for k in _NOT_WITH_AT if k in params), None)
    field = sent
    if field is None and section is not None:
        field = "template"
    if field is None:
        field = next((f"cards[{i}].anchor" for i, c in enumerate(cards) if "anchor" in c), None)
    if field is not None:
        raise ServiceError(
            400,
            "exclusive_params",
            f"at puts the batch where a person chose; {field} asks the server to place it: "
            "send one or the other",
            field=field,
        )


@REGISTRY.operation(
    "compose_board",
    "Add cards, wires and staged questions to a board in one all-or-nothing batch. Send "
    "semantic payloads and placement intent (layout, aspect, flow, anchor, section, "
    "journey/pass, template); the server sizes and places every card. The receipt lists "
    "each entry's id, box, placedAs and container.",
    COMPOSE_SCHEMA,
    board="board",
    writes=True,
    prepare=_prepare,
    snapshot=lambda tx, call: _template_snapshot(tx, call),
    snapshot_when=_names_component,
    shown=_shown_schema(),
    fetches=True,
    output=outputs.COMPOSE_BOARD,
    people_params=("at",),
)
def compose_board(call: Call) -> dict[str, Any]:
    b: _Batch = call.prepared
    if b.extend_section is not None:
        _require_section(call.tx, call.board, b.extend_section)
    check_portals(
        call.tx,
        call.board,
        call.principal,
        ((i, p.kind, p.payload) for i, p in enumerate(b.prepared)),
    )
    receipt = store_batch(
        call.principal,
        call.tx,
        call.board,
        b.batch,
        b.prepared,
        b.cards,
        b.edges,
        b.questions,
        b.staged,
        models=call.workspace.extension(BoardModels),
    )
    fetch_links(call, receipt)
    return receipt


def fetch_links(call: Call, receipt: dict[str, Any]) -> None:
    """Fetch the link cards a batch just wrote, once its transaction commits."""
    ids = [c["id"] for c in receipt["cards"] if c.get("kind") == "link"]
    if ids and call.workspace.unfurler is not None:
        stored = call.tx.cards_by_id(ids)
        links.schedule(call, call.board, [(r.id, r.payload["url"]) for r in stored])


def _require_section(tx: Tx, board: BoardRecord, title: str) -> None:
    section_ids = [c.id for c in tx.card_boxes(board.id, kinds=["section"])]
    if any(c.payload.get("title") == title for c in tx.cards_by_id(section_ids)):
        return
    raise ServiceError(
        404, "unknown_section", f"no section {title!r} on board {board.slug!r} to extend"
    )
