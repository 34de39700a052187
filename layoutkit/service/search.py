"""Workspace search over boards and cards; ``mode: resolve`` reads a task reference.

Words are folded (case and diacritics never matter) and every word of ``q``
must occur in a hit. Tasks join this search when the task engine lands.
"""

from __future__ import annotations

import re
from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.folding import fold
from layoutkit.service._common import may_reach
from layoutkit.service.generic import kind_handler
from layoutkit.service.resolve import MAX_CANDIDATES, resolve_reference
from layoutkit.service.workspace import Call
from layoutkit.storage import BoardRecord

MAX_HITS = 50
_TEXT_KEYS = ("title", "md", "text", "label", "caption", "state", "url", "name", "body", "summary")


def words(q: str) -> list[str]:
    return [w for w in re.split(r"\s+", fold(q).strip()) if w]


def _card_text(payload: dict[str, Any]) -> str:
    parts: list[str] = []
    stack: list[Any] = [payload]
    while stack and len(parts) < 2000:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in _TEXT_KEYS and isinstance(value, str):
                    parts.append(value)
                elif isinstance(value, dict | list) and key not in ("geo", "data", "rows"):
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    return fold(" ".join(parts))


def _board_text(board: BoardRecord) -> str:
    title = board.meta.get("title") if isinstance(board.meta.get("title"), str) else ""
    return fold(" ".join([board.slug, title, *board.tags]))


_SEARCH_PARAMS = {
    "q": {"type": "string", "minLength": 1, "maxLength": 500},
    "mode": {
        "enum": ["words", "resolve"],
        "description": "resolve: read q as one task reference and answer with a verdict, "
        "candidates and the next call",
    },
    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_HITS},
}


def _search(call: Call, kinds: tuple[str, ...]) -> dict[str, Any]:
    q = call.params["q"]
    if call.params.get("mode") == "resolve":
        return _resolve(call, q)
    wanted = words(q)
    limit = call.params.get("limit", MAX_HITS)
    hits: list[dict[str, Any]] = []
    tx = call.tx
    boards = [b for b in tx.boards(call.workspace_id) if may_reach(call.principal, b)]
    if "board" in kinds:
        for board in boards:
            text = _board_text(board)
            if all(w in text for w in wanted):
                hits.append({"kind": "board", "board": board.slug, "url": f"/boards/{board.slug}"})
    if "card" in kinds:
        for board in boards:
            for card in tx.cards(board.id):
                text = _card_text(card.payload)
                if all(w in text for w in wanted):
                    hits.append(
                        {
                            "kind": "card",
                            "id": card.id,
                            "cardKind": card.kind,
                            "board": board.slug,
                        }
                    )
                    if len(hits) >= limit:
                        break
            if len(hits) >= limit:
                break
    return {"q": q, "hits": hits[:limit]}


def _resolve(call: Call, q: str) -> dict[str, Any]:
    """Read ``q`` as one task reference (search rule 5, :mod:`layoutkit.service.resolve`)."""
    if call.params.get("kind", "any") != "any":
        # A reference names a task: narrowing to another group of hits means nothing to it.
        raise ServiceError(
            400,
            "unsupported_facet",
            f"mode resolve reads a task reference; kind {call.params['kind']!r} is a group",
            field="kind",
            facet="group",
        )
    return resolve_reference(call, q, limit=call.params.get("limit", MAX_CANDIDATES))


@kind_handler("search", "any", {**_SEARCH_PARAMS}, required=("q",))
def search_any(call: Call) -> dict[str, Any]:
    return _search(call, ("board", "card"))


@kind_handler("search", "board", {**_SEARCH_PARAMS}, required=("q",))
def search_boards(call: Call) -> dict[str, Any]:
    return _search(call, ("board",))


@kind_handler("search", "card", {**_SEARCH_PARAMS}, required=("q",))
def search_cards(call: Call) -> dict[str, Any]:
    return _search(call, ("card",))
