"""The server-owned ``target`` of ref elements: a summary of the card a ref points at.

The contract makes ``target`` server-owned. Every write replaces what was sent
with the summary of the card the ref names (:func:`stamp_ref_targets`), and a
change to a card rewrites the targets of the refs that point at it on its board
(:func:`refresh_ref_targets`), so a reader (the doc renderer, an agent reading
the board) shows the target's current title without looking it up.

Refs by ``page`` or ``section`` name no card, so they carry no target.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.principal import Principal
from layoutkit.service.road.reach import may_reach
from layoutkit.storage import BoardRecord, CardRecord, Tx

#: Card kinds whose payload can hold a ref: the ref card and the element containers.
REF_HOLDERS = frozenset({"ref", "doc", "section", "columns", "compare"})
#: Payload fields that name a card, most telling first.
_TITLE_KEYS = ("title", "md", "text", "label", "name", "url")
_SUMMARY_KEYS = ("summary", "subtitle", "caption", "note")
TITLE_LENGTH = 80


def _first_line(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    for line in value.strip().splitlines():
        # A markdown heading's marks are syntax, not part of the title.
        text = line.strip().lstrip("#").strip()
        if text:
            return text[:TITLE_LENGTH]
    return None


def card_title(payload: dict[str, Any]) -> str | None:
    """A card's title for lists and chips: the first line of its most telling text field."""
    for key in _TITLE_KEYS:
        text = _first_line(payload.get(key))
        if text:
            return text
    return None


def target_summary(card: CardRecord, board: BoardRecord) -> dict[str, Any]:
    """The ``target`` of a ref to ``card``: id, kind, board slug, title and summary when
    the card has them, and ``trashed`` while it is in the trash."""
    out: dict[str, Any] = {"id": card.id, "kind": card.kind, "board": board.slug}
    title = card_title(card.payload)
    if title:
        out["title"] = title
    summary = next(
        (s for s in (_first_line(card.payload.get(k)) for k in _SUMMARY_KEYS) if s), None
    )
    if summary:
        out["summary"] = summary
    if card.deleted:
        out["trashed"] = True
    return out


def ref_payloads(kind: str, payload: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every ref payload held by a card of ``kind``, with its path from ``payload``."""
    if kind == "ref":
        yield "payload", payload
        return
    if kind not in REF_HOLDERS:
        return
    stack: list[tuple[Any, str]] = [(payload, "payload")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            if node.get("kind") == "ref" and isinstance(node.get("payload"), dict):
                yield f"{path}.payload", node["payload"]
                continue
            stack.extend((v, f"{path}.{k}") for k, v in node.items() if isinstance(v, dict | list))
        elif isinstance(node, list):
            stack.extend(
                (v, f"{path}[{i}]") for i, v in enumerate(node) if isinstance(v, dict | list)
            )


def _summaries(
    tx: Tx, workspace_id: int, card_ids: Iterable[int], reader: Principal | None = None
) -> dict[int, dict[str, Any]]:
    """Summaries of the named cards that live in the workspace (trashed ones included)
    and, with a ``reader``, on boards that reader may reach (not others' personal ones)."""
    boards: dict[int, BoardRecord | None] = {}
    out: dict[int, dict[str, Any]] = {}
    for card in tx.cards_by_id(card_ids):
        if card.board_id not in boards:
            boards[card.board_id] = tx.board(card.board_id)
        board = boards[card.board_id]
        if (
            board is not None
            and board.workspace_id == workspace_id
            and (reader is None or may_reach(reader, board))
        ):
            out[card.id] = target_summary(card, board)
    return out


def stamp_ref_targets(
    tx: Tx,
    workspace_id: int,
    cards: Iterable[tuple[int, str, dict[str, Any]]],
    where: str,
    author: Principal | None = None,
) -> None:
    """Write the ``target`` of every ref in ``cards``, in place.

    ``cards`` are (index, kind, payload) triples; ``where`` names the list the
    index points into (``cards``, ``patch``) for the error's field; ``author``, the
    caller, may only point at cards on boards it may reach. An authored
    target is overwritten; a ref by page or section loses it. Raises 400
    ``unknown_card`` (with ``index`` and ``field``) for a ref to a card that is
    not in the workspace.
    """
    refs = [
        (i, path, ref) for i, kind, payload in cards for path, ref in ref_payloads(kind, payload)
    ]
    if not refs:
        return
    summaries = _summaries(tx, workspace_id, (r["card"] for _, _, r in refs if "card" in r), author)
    for i, path, ref in refs:
        ref.pop("target", None)
        if "card" not in ref:
            continue
        summary = summaries.get(ref["card"])
        if summary is None:
            field = f"{where}[{i}].{path}.card"
            raise ServiceError(
                400,
                "unknown_card",
                f"{field}: no card {ref['card']} in this workspace",
                index=i,
                field=field,
            )
        ref["target"] = summary


def refresh_ref_targets(tx: Tx, board: BoardRecord, changed: Iterable[int]) -> list[int]:
    """Rewrite the targets of the refs on ``board`` that point at a ``changed`` card.

    Call it after the changes are written, in the same transaction. Only holders
    whose payload actually changes are written. Returns their ids.
    """
    changed = set(changed)
    if not changed:
        return []
    holders = [b.id for b in tx.card_boxes(board.id, kinds=REF_HOLDERS)]
    summaries = _summaries(tx, board.workspace_id, changed)
    updates = []
    for holder in tx.cards_by_id(holders):
        touched = False
        for _, ref in ref_payloads(holder.kind, holder.payload):
            if ref.get("card") in changed:
                summary = summaries.get(ref["card"])
                if summary is not None and ref.get("target") != summary:
                    ref["target"] = summary
                    touched = True
        if touched:
            updates.append({"id": holder.id, "payload": holder.payload})
    if updates:
        tx.update_cards(updates)
    return [u["id"] for u in updates]
