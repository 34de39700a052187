"""``card_history``: the contents a card has had, newest first, each with the patch that
brings it back (a person restores one from the viewer's inspector, an agent the same way
through update_cards)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from layoutkit import elements
from layoutkit.errors import ServiceError
from layoutkit.search_text import card_parts
from layoutkit.service.boards.ref_targets import card_title
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import ID, SLUG
from layoutkit.service.shared.merge_patch import patch_between

#: Contents one answer lists, at most (the newest); ``more`` says when there are others.
MAX_VERSIONS = 100
DEFAULT_VERSIONS = 20
#: Characters of a version's readable text in the answer.
TEXT_CHARS = 200


@REGISTRY.operation(
    "card_history",
    "The contents a card of the board has had, newest first: each distinct content (kind, "
    "payload and size) with the versions it spans, when it was made, its title and text, and "
    "restore, the payload patch that brings it back through update_cards (name the card's "
    "current version). Moves alone make no entry.",
    {
        "required": ["board", "id"],
        "properties": {
            "board": SLUG,
            "id": ID,
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_VERSIONS},
        },
        "additionalProperties": False,
    },
    board="board",
)
def card_history(call: Call) -> dict[str, Any]:
    p, tx, board = call.params, call.tx, call.board
    card = tx.card(p["id"])
    if card is None or card.board_id != board.id:
        raise ServiceError(404, "unknown_card", f"no card {p['id']} on this board", field="id")
    limit = p.get("limit", DEFAULT_VERSIONS)
    # Kept versions differ from the one before them, so limit + 1 rows hold the entries
    # shown and tell whether there are more: a card's long history is not read whole.
    kept = tx.card_versions(card.id, newest=limit + 1)
    states = [(v.version, v.kind, v.payload, v.w, v.h, v.created_at) for v in kept]
    states = [s for s in states if s[0] < card.version]
    states.append((card.version, card.kind, card.payload, card.w, card.h, card.updated_at))
    # Runs of versions that draw the same (moves, restores) make one entry.
    runs: list[dict[str, Any]] = []
    for version, kind, payload, w, h, at in states:
        last = runs[-1] if runs else None
        if last and (last["kind"], last["payload"], last["w"], last["h"]) == (kind, payload, w, h):
            last["through"] = version
            continue
        runs.append(
            {
                "version": version,
                "through": version,
                "at": at,
                "kind": kind,
                "payload": payload,
                "w": w,
                "h": h,
            }
        )
    # A version kept no row when it changed nothing drawn (a move): a content stands
    # until the next one begins.
    for run, after in pairwise(runs):
        run["through"] = after["version"] - 1
    runs[-1]["through"] = card.version
    owned = set(elements.server_fields(card.kind))
    now = {k: v for k, v in card.payload.items() if k not in owned}
    shown = runs[::-1][:limit]
    entries = []
    for run in shown:
        text = " ".join(card_parts(run["payload"]))
        entry = {
            "version": run["version"],
            "through": run["through"],
            "at": run["at"].isoformat(),
            "kind": run["kind"],
            "w": run["w"],
            "h": run["h"],
            "title": card_title(run["payload"]),
            "text": text[:TEXT_CHARS] + ("…" if len(text) > TEXT_CHARS else ""),
            "current": run["through"] == card.version,
        }
        if not entry["current"] and run["kind"] == card.kind:
            then = {k: v for k, v in run["payload"].items() if k not in owned}
            entry["restore"] = patch_between(now, then)
        entries.append(entry)
    return {
        "board": board.slug,
        "id": card.id,
        "version": card.version,
        "versions": entries,
        "more": len(runs) > len(shown),
    }
