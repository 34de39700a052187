"""Loading a stored board into the layout engine's model and writing changes back."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from layoutkit import layout
from layoutkit.layout import Board, Card, Wire
from layoutkit.storage import BoardRecord, CardBox, CardRecord, Tx


def load_board(
    tx: Tx, board: BoardRecord, *, payloads: str = "frames", also: Iterable[int] = ()
) -> Board:
    """The live cards of ``board`` as a layout :class:`Board`.

    ``payloads="frames"`` reads payloads only for frames (the engine needs
    their layout and titles; geometry is enough for everything else) and for
    the cards named in ``also``, which keeps work on a large board cheap;
    ``"all"`` reads every payload (arrange sorts and groups by content).
    """
    if payloads == "all":
        records: list[Any] = tx.cards(board.id)
        bodies = {r.id: r.payload for r in records}
    else:
        records = tx.card_boxes(board.id)
        wanted = {r.id for r in records if r.kind in layout.FRAME_KINDS} | set(also)
        bodies = {r.id: r.payload for r in tx.cards_by_id(sorted(wanted))} if wanted else {}
    cards = [layout_card(r, bodies.get(r.id, {})) for r in records]
    wires = [Wire(e.from_card, e.to_card, e.rel) for e in tx.edges(board.id)]
    return Board(cards, wires, flow=board.flow)


def layout_card(
    record: CardRecord | CardBox, payload: dict[str, Any], *, linked: bool = True
) -> Card:
    """The layout engine's :class:`Card` for a stored card.

    A card stored before ``sized_by`` was recorded is sized by its frame when it
    is a frame and by its content otherwise. ``linked=False`` leaves out the
    stored parent and children, for a caller that re-links the card itself
    (its old frame may no longer be on the board).
    """
    return Card(
        record.id,
        record.kind,
        payload,
        record.x,
        record.y,
        record.w,
        record.h,
        parent=record.parent_id if linked else None,
        children=list(record.children or []) if linked else [],
        layer=record.layer,
        created=record.ordinal,
        sized_by=record.sized_by or ("frame" if record.kind in layout.FRAME_KINDS else "content"),
    )


def write_changes(tx: Tx, changes: layout.Changes, ids: dict[Any, int] | None = None) -> int:
    """Store what the engine changed on existing cards; returns how many were touched.

    ``ids`` maps provisional keys to stored ids for parents and children that
    were created in the same call.
    """
    ids = ids or {}

    def real(key: Any) -> Any:
        return ids.get(key, key)

    patches: dict[int, dict[str, Any]] = {}
    for key, (x, y, w, h) in changes.moves.items():
        patches.setdefault(key, {}).update(x=x, y=y, w=w, h=h)
    for key, kids in changes.children.items():
        if isinstance(key, int):
            patches.setdefault(key, {})["children"] = [real(k) for k in kids]
    for key, parent in changes.parents.items():
        patches.setdefault(key, {})["parent_id"] = real(parent) if parent is not None else None
    for key, payload in changes.payloads.items():
        patches.setdefault(key, {})["payload"] = payload
    for key, sized_by in changes.sized_by.items():
        patches.setdefault(key, {})["sized_by"] = sized_by
    rows = [{"id": key, **fields} for key, fields in patches.items() if isinstance(key, int)]
    if rows:
        tx.update_cards(rows)
    return len(rows)
