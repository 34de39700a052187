"""``update_edges`` and ``get edges``: the wires already on a board, read, relabelled
and removed.

A wire is made by compose_board (``edges``); afterwards its label and relation
change here, and it is removed here. Wires carry no version of their own: a
write names the board's wire counter (``edgesRev``) it started from, the
counter every wire write of the board moves.
"""

from __future__ import annotations

from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.limits import ARRANGE_CARDS
from layoutkit.service.boards.cards import MAX_QUIET_REMOVALS, confirm_removal
from layoutkit.service.boards.compose import LABEL_SCHEMA, REL_SCHEMA
from layoutkit.service.boards.ownership import may_change_wire
from layoutkit.service.road.generic import kind_handler
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call, admits
from layoutkit.service.shared.common import ID, SLUG, edge_view
from layoutkit.storage import EdgeRecord

#: Wires one call changes or removes: as many as one compose_board draws.
MAX_EDGE_IDS = ARRANGE_CARDS


def _view(edge: EdgeRecord) -> dict[str, Any]:
    return {**edge_view(edge), **({"author": edge.author} if edge.author else {})}


def _on_board(edges: dict[int, EdgeRecord], ids: list[int], where: str) -> list[EdgeRecord]:
    """The named wires of the board; 404 ``unknown_edge`` naming the first one that is not
    (another board's, another workspace's, or one whose card is in the trash)."""
    for i, edge_id in enumerate(ids):
        if edge_id not in edges:
            field = where.format(i)
            raise ServiceError(
                404,
                "unknown_edge",
                f"{field}: no wire {edge_id} on this board",
                field=field,
                id=edge_id,
            )
    return [edges[i] for i in ids]


def _check_unique(sets: list[dict[str, Any]], remove: list[int]) -> None:
    seen: set[int] = set()
    for field, edge_id in [(f"set[{i}].id", s["id"]) for i, s in enumerate(sets)] + [
        (f"remove[{i}]", r) for i, r in enumerate(remove)
    ]:
        if edge_id in seen:
            raise ServiceError(
                400,
                "duplicate_edge",
                f"{field}: wire {edge_id} is named twice; change or remove each wire once",
                field=field,
                id=edge_id,
            )
        seen.add(edge_id)


@REGISTRY.operation(
    "update_edges",
    "Change the label or relation (rel) of wires already on a board (set: [{id, label?, "
    "rel?}], an empty string clears one), or remove wires (remove: [ids]). The wire's "
    "author or the workspace owner may change its label and relation; anyone who may write "
    "the board may remove wires, but removing someone else's wire or more than 25 answers "
    "409 needs_confirm with a token and a preview: repeat the same ids within 10 minutes, "
    "as the same caller, with confirm set to that token and a reason of 20-1000 characters. "
    "edgesRev, when sent, is the board's wire counter the change started from (board_outline, "
    "get kind edges): if any wire of the board changed since, nothing is written and the "
    "answer is 409 stale_edges with the named wires as they are now. Wire ids come from "
    "compose_board, scrape_board and get kind edges.",
    {
        "required": ["board"],
        "properties": {
            "board": SLUG,
            "set": {
                "type": "array",
                "maxItems": MAX_EDGE_IDS,
                "items": {
                    "type": "object",
                    "required": ["id"],
                    "properties": {"id": ID, "label": LABEL_SCHEMA, "rel": REL_SCHEMA},
                    "additionalProperties": False,
                },
            },
            "remove": {"type": "array", "items": ID, "maxItems": MAX_EDGE_IDS},
            # The board's wire counter the change started from (optimistic concurrency).
            "edgesRev": {"type": "integer", "minimum": 0},
            "reason": {"type": "string", "maxLength": 1000},
            "confirm": {"type": "string"},
        },
        "additionalProperties": False,
    },
    board="board",
    writes=True,
)
def update_edges(call: Call) -> dict[str, Any]:
    p, tx, board = call.params, call.tx, call.board
    sets: list[dict[str, Any]] = p.get("set") or []
    remove: list[int] = p.get("remove") or []
    if not sets and not remove:
        raise ServiceError(400, "empty_update", "send set or remove", field="set")
    _check_unique(sets, remove)
    edges = {e.id: e for e in tx.edges(board.id)}
    changing = _on_board(edges, [s["id"] for s in sets], "set[{}].id")
    removing = _on_board(edges, remove, "remove[{}]")
    since = p.get("edgesRev")
    if since is not None and board.edges_rev != since:
        raise ServiceError(
            409,
            "stale_edges",
            f"the board's wires changed since edgesRev {since} (it is at {board.edges_rev}); "
            "nothing was written, read them again",
            field="edgesRev",
            edgesRev=board.edges_rev,
            edges=[_view(e) for e in changing + removing],
        )
    for i, edge in enumerate(changing):
        if not may_change_wire(call.principal, edge.author):
            raise ServiceError(
                403,
                "not_your_wire",
                f"wire {edge.id} was drawn by {edge.author or 'someone else'}; only they (or "
                "the owner) change its label and relation, and anyone may remove it",
                field=f"set[{i}].id",
                id=edge.id,
            )
    if removing:
        foreign = [e for e in removing if e.author != call.principal.label]
        reasons = []
        if foreign and call.principal.kind != "owner":
            reasons.append(f"{len(foreign)} wire(s) belong to someone else")
        if len(removing) > MAX_QUIET_REMOVALS:
            reasons.append(f"more than {MAX_QUIET_REMOVALS} wires")
        confirm_removal(call, "wires", remove, reasons, [_view(e) for e in removing])
    changed = []
    for s in sets:
        fields = {k: s[k] or None for k in ("label", "rel") if k in s}
        edge = edges[s["id"]]
        if fields and any(getattr(edge, k) != v for k, v in fields.items()):
            edge = tx.update_edge(edge.id, **fields)
        changed.append(edge)
    if remove:
        tx.delete_edges(remove)
    tx.record_event(
        "edges.update",
        call.principal.label,
        board_id=board.id,
        detail={"set": [s["id"] for s in sets], "removed": remove, "reason": p.get("reason")},
    )
    now = tx.board(board.id)
    assert now is not None
    return {
        "board": board.slug,
        "edgesRev": now.edges_rev,
        "edges": [_view(e) for e in changed],
        "removed": remove,
    }


@kind_handler(
    "get",
    "edges",
    {"board": SLUG, "ids": {"type": "array", "items": ID, "minItems": 1, "maxItems": MAX_EDGE_IDS}},
    required=("board",),
    board="board",
    share=("view", "annotate"),
)
def get_edges(call: Call) -> dict[str, Any]:
    """The wires of a board (or those of ``ids``; the others listed as missing) with who
    drew each and whether the caller may change its label and relation, and the board's
    wire counter to name in update_edges."""
    edges = call.tx.edges(call.board.id)
    wanted = call.params.get("ids")
    if wanted is not None:
        by_id = {e.id: e for e in edges}
        edges = [by_id[i] for i in dict.fromkeys(wanted) if i in by_id]
    registry = call.workspace.registry
    writer = "update_edges" in registry.names() and admits(
        registry.get("update_edges"), call.principal
    )
    out: dict[str, Any] = {
        "board": call.board.slug,
        "edgesRev": call.board.edges_rev,
        "edges": [
            {**_view(e), "mayChange": writer and may_change_wire(call.principal, e.author)}
            for e in edges
        ],
    }
    if wanted is not None:
        found = {e.id for e in edges}
        out["missing"] = [i for i in dict.fromkeys(wanted) if i not in found]
    return out
