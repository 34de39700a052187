"""Kind ``component``: a reusable group of cards, saved from a selection on a board.

``create`` kind component keeps the selected cards (with the cards inside the
selected sections and clusters), their layout relative to the selection's top
left corner, and the wires between them. ``slots`` turns text of the cards
into ``{slot}`` placeholders; placeholders already written in the cards are
slots too. ``compose_board {template: <name>, params: {<slot>: value}}``
instantiates the newest version like a built-in template
(:mod:`layoutkit.service.boards.templates`): the cards in the saved reading
order, the saved row, column or grid, the wires, each slot filled (an
unfilled one renders literally).

A component belongs to the workspace, as templates do: a project transfer
leaves it where it is. Every write of a name is its next version.
"""

from __future__ import annotations

from typing import Any

from layoutkit.errors import ServiceError, did_you_mean
from layoutkit.service.boards.content_prep import prepare_card
from layoutkit.service.boards.templates import TEMPLATES, slots_in
from layoutkit.service.road.generic import kind_handler
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import ID, SLUG
from layoutkit.storage import CardRecord, ComponentRecord

#: Cards one component keeps at most (a compose batch takes more; a reusable
#: group is a handful of cards).
MAX_COMPONENT_CARDS = 100
_NAME: dict[str, Any] = {
    "type": "string",
    "pattern": "^[a-z][a-z0-9-]{0,59}$",
    "description": "the component's name, which compose_board's template takes",
}
_EDGE_KEYS = ("rel", "label", "from_region", "to_region")


def _replace(value: Any, texts: dict[str, str]) -> Any:
    """``value`` with each text of ``texts`` (text -> slot) written as its ``{slot}``."""
    if isinstance(value, str):
        for text, slot in texts.items():
            value = value.replace(text, "{" + slot + "}")
        return value
    if isinstance(value, dict):
        return {k: _replace(v, texts) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace(v, texts) for v in value]
    return value


def _selection(call: Call, cards: dict[int, CardRecord]) -> list[CardRecord]:
    """The named cards and every card inside them, in reading order (top, then left)."""
    wanted: list[int] = []
    for i, card_id in enumerate(call.params["cardIds"]):
        if card_id not in cards:
            raise ServiceError(
                404,
                "unknown_card",
                f"no card {card_id} on board {call.board.slug!r}",
                field=f"cardIds[{i}]",
                id=card_id,
            )
        wanted.append(card_id)
    chosen: set[int] = set()
    stack = list(wanted)
    while stack:
        card_id = stack.pop()
        if card_id in chosen:
            continue
        chosen.add(card_id)
        stack += [c for c in cards[card_id].children or [] if c in cards]
    return sorted((cards[c] for c in chosen), key=lambda c: (c.y, c.x, c.id))


def _layout(tops: list[CardRecord]) -> str:
    """The arrangement the saved top-level cards show: one row, one column, or a grid."""
    if len(tops) < 2:
        return "column"
    if max(c.y for c in tops) - min(c.y for c in tops) < min(c.h for c in tops):
        return "row"
    if max(c.x for c in tops) - min(c.x for c in tops) < min(c.w for c in tops):
        return "column"
    return "grid"


def capture(call: Call) -> dict[str, Any]:
    """The definition of a component made of ``call.params['cardIds']`` on the board."""
    tx, board = call.tx, call.board
    cards = {c.id: c for c in tx.cards(board.id)}
    picked = _selection(call, cards)
    if len(picked) > MAX_COMPONENT_CARDS:
        raise ServiceError(
            413,
            "limit_exceeded",
            f"a component keeps at most {MAX_COMPONENT_CARDS} cards; the selection holds "
            f"{len(picked)} with the cards inside it",
            field="cardIds",
        )
    refs = {c.id: str(n) for n, c in enumerate(picked, start=1)}
    texts = {text: slot for slot, text in (call.params.get("slots") or {}).items()}
    left, top = min(c.x for c in picked), min(c.y for c in picked)
    out_cards = []
    for i, card in enumerate(picked):
        payload = _replace(card.payload, texts)
        try:
            # What compose will be sent must pass the contract; a slot written into a
            # field that takes no free text (a number, a colour) does not.
            prepare_card({"kind": card.kind, "payload": payload})
        except ServiceError as err:
            raise ServiceError(
                422,
                "not_reusable",
                f"card {card.id} would not compose again: {err.message}",
                field=f"cardIds[{i}]" if card.id in call.params["cardIds"] else "slots",
                id=card.id,
            ) from err
        entry: dict[str, Any] = {
            "ref": refs[card.id],
            "kind": card.kind,
            "payload": payload,
            "at": {"x": card.x - left, "y": card.y - top, "w": card.w, "h": card.h},
        }
        inside = [refs[c] for c in card.children or [] if c in refs]
        if inside:
            entry["children"] = inside
        out_cards.append(entry)
    edges = []
    for edge in tx.edges(board.id):
        if edge.from_card in refs and edge.to_card in refs:
            wire: dict[str, Any] = {"from": refs[edge.from_card], "to": refs[edge.to_card]}
            for key in _EDGE_KEYS:
                value = getattr(edge, key)
                if value is not None:
                    camel = key.replace("_region", "Region")
                    wire[camel] = _replace(value, texts)
            edges.append(wire)
    tops = [c for c in picked if c.parent_id not in refs]
    definition = {
        "cards": out_cards,
        "edges": edges,
        "layout": _layout(tops),
        "board": board.slug,
    }
    definition["slots"] = slots_in([out_cards, edges], [])
    return definition


def component_view(rec: ComponentRecord, *, full: bool) -> dict[str, Any]:
    """A component as the operations answer it; ``full`` adds its cards and wires."""
    d = rec.definition
    out: dict[str, Any] = {
        "name": rec.name,
        "version": rec.version,
        "description": rec.description,
        "slots": d.get("slots") or [],
        "cards": len(d["cards"]),
        "edges": len(d.get("edges") or []),
        "layout": d.get("layout"),
        "from": d.get("board"),
        "writtenBy": rec.author,
        "writtenAt": rec.created_at.isoformat(),
        "compose": {"template": rec.name, "params": {s: "…" for s in d.get("slots") or []}},
    }
    if full:
        out["definition"] = {k: d[k] for k in ("cards", "edges") if k in d}
    return out


@kind_handler(
    "create",
    "component",
    {
        "board": SLUG,
        "name": _NAME,
        "cardIds": {
            "type": "array",
            "items": ID,
            "minItems": 1,
            "maxItems": MAX_COMPONENT_CARDS,
            "uniqueItems": True,
            "description": "the selection: these cards and the cards inside them",
        },
        "slots": {
            "type": "object",
            "maxProperties": 40,
            "propertyNames": {"pattern": "^[a-zA-Z][a-zA-Z0-9_]{0,39}$"},
            "additionalProperties": {"type": "string", "minLength": 1, "maxLength": 500},
            "description": "slot name -> text of the cards that becomes {slot}",
        },
        "description": {"type": "string", "maxLength": 2000},
    },
    required=("board", "name", "cardIds"),
    board="board",
    writes=True,
)
def create_component(call: Call) -> dict[str, Any]:
    p = call.params
    if p["name"] in TEMPLATES:
        raise ServiceError(
            409,
            "template_name",
            f"{p['name']!r} is a built-in template's name: compose_board would never reach "
            "the component",
            field="name",
        )
    definition = capture(call)
    missing = [s for s in p.get("slots") or {} if s not in definition["slots"]]
    if missing:
        raise ServiceError(
            422,
            "slot_not_found",
            f"slots.{missing[0]}: its text is in none of the selected cards",
            field=f"slots.{missing[0]}",
        )
    rec = call.tx.write_component(
        call.workspace_id,
        p["name"],
        definition=definition,
        description=p.get("description"),
        author=call.principal.label,
    )
    return {"component": component_view(rec, full=False)}


@kind_handler("list", "component", {})
def list_components(call: Call) -> dict[str, Any]:
    return {"items": [component_view(c, full=False) for c in call.tx.components(call.workspace_id)]}


@kind_handler("get", "component", {"name": _NAME}, required=("name",))
def get_component(call: Call) -> dict[str, Any]:
    rec = call.tx.component(call.workspace_id, call.params["name"])
    if rec is None:
        names = [c.name for c in call.tx.components(call.workspace_id)]
        raise ServiceError(
            404,
            "unknown_component",
            f"no component {call.params['name']!r} in this workspace",
            field="name",
            didYouMean=did_you_mean(call.params["name"], names),
        )
    return {"component": component_view(rec, full=True)}
