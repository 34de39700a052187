"""``frame_cards`` and ``unframe_cards``: a section frame drawn around cards already on
a board, and taken away again, the cards staying where they are both times.

A person picks a few cards and groups them: the frame is an unmanaged section
(``layout: null``, so nothing inside it reflows) sized over the cards' box with its
padding and title band, and the cards become its children in place. Undoing that is
``unframe_cards``: the frame goes to the trash and its cards are lifted back to its
level, unmoved. That removal loses nothing but the frame's own chrome, so it skips
update_cards' confirm handshake, which guards content (someone else's cards, a large
share of a board); it is therefore only for the frame's author (or the owner). A
restore of the frame (update_cards restore) takes its cards back in, as a redo.
"""

from __future__ import annotations

from typing import Any

from layoutkit import layout
from layoutkit.errors import ServiceError
from layoutkit.layout import frames
from layoutkit.layout.place import changes_from_journal
from layoutkit.layout.reading import reading_order
from layoutkit.limits import ARRANGE_CARDS
from layoutkit.service.boards.board_model import BoardModels, layout_card, write_changes
from layoutkit.service.boards.cards import card_box
from layoutkit.service.boards.content_prep import prepare_card
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import ID, SLUG
from layoutkit.storage import CardRecord, NewCard, Tx

_FRAME_BOX = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "kind": {"type": "string"},
        "x": {"type": "number"},
        "y": {"type": "number"},
        "w": {"type": "number"},
        "h": {"type": "number"},
        "version": {"type": "integer"},
    },
    "required": ["id", "kind", "version"],
}


def _on_board(tx: Tx, call: Call, ids: list[int]) -> dict[int, CardRecord]:
    """The live cards of ``ids`` on the call's board; 404 ``unknown_card`` for the first
    that is not (another board's or another workspace's card is as unknown as none)."""
    found = {r.id: r for r in tx.cards_by_id(ids) if r.board_id == call.board.id and not r.deleted}
    for i in ids:
        if i not in found:
            raise ServiceError(404, "unknown_card", f"no card {i} on this board", id=i)
    return found


#: The least padding a frame drawn around cards keeps inside on a side it narrows.
MIN_SIDE_PAD = 8.0


def _side_pads(
    model: Any,
    level: int | None,
    picked: set[int],
    box: tuple[float, float, float, float],
    pad: float,
) -> tuple[float, float, float]:
    """The frame's left, right and bottom padding around the cards' box (x0, top, x1, y1).

    Cards on a board stand a gap apart, less than a frame's padding: at full padding
    the frame would end flush against a neighbour beside or below the picked cards
    (touching is no overlap, so nothing moves away). On such a side the padding
    shrinks to split the gap, so the frame stands clear on both sides; where even
    that leaves less than :data:`MIN_SIDE_PAD`, full padding stays and the
    neighbour is pushed away as for any overlap."""
    x0, top, x1, y1 = box
    peers = (
        model.get(level).children
        if level is not None
        else [k for k, c in model.cards.items() if c.parent is None]
    )
    room = {"left": float("inf"), "right": float("inf"), "bottom": float("inf")}
    for k in peers:
        if k in picked:
            continue
        c = model.get(k)
        beside = c.y < y1 + pad and c.y + c.h > top
        if beside and c.x + c.w <= x0:
            room["left"] = min(room["left"], x0 - (c.x + c.w))
        elif beside and c.x >= x1:
            room["right"] = min(room["right"], c.x - x1)
        elif c.x < x1 + pad and c.x + c.w > x0 - pad and c.y >= y1:
            room["bottom"] = min(room["bottom"], c.y - y1)
    half = frames.CARD_GAP / 2

    def side(space: float) -> float:
        fits = space - half
        return min(pad, fits) if fits >= MIN_SIDE_PAD else pad

    return side(room["left"]), side(room["right"]), side(room["bottom"])


@REGISTRY.operation(
    "frame_cards",
    "Draw a section frame around cards already on the board: the frame (unmanaged, "
    "layout null) is sized over their box with its padding and title band, and the cards "
    "become its children where they are. Cards inside another picked card come along "
    "with it; the picked cards must share one container (the board, or a frame without a "
    "layout: in a laid-out frame they would move, 400 managed_container). "
    "title is optional (an untitled frame). unframe_cards takes the frame away again.",
    {
        "required": ["board", "ids"],
        "properties": {
            "board": SLUG,
            "ids": {"type": "array", "items": ID, "minItems": 1, "maxItems": ARRANGE_CARDS},
            "title": {"type": "string", "minLength": 1, "maxLength": 200},
        },
        "additionalProperties": False,
    },
    board="board",
    writes=True,
    output={
        "type": "object",
        "properties": {
            "board": {"type": "string"},
            "frame": _FRAME_BOX,
            "cards": {"type": "array", "items": _FRAME_BOX},
        },
        "required": ["board", "frame", "cards"],
    },
)
def frame_cards(call: Call) -> dict[str, Any]:
    tx, board = call.tx, call.board
    ids = list(dict.fromkeys(call.params["ids"]))
    _on_board(tx, call, ids)
    model = call.workspace.extension(BoardModels).load(tx, board)
    picked = set(ids)
    # A card inside another picked card moves with it: only the outermost are taken in.
    tops = [i for i in ids if not picked & set(model.ancestors(i))]
    levels = {model.get(i).parent for i in tops}
    if len(levels) > 1:
        raise ServiceError(
            400,
            "mixed_containers",
            "the cards sit in different frames; pick cards of one container",
            field="ids",
        )
    level = levels.pop()
    if level is not None and frames.frame_layout(model.get(level)) is not None:
        # A frame laid out by its layout would place the new frame, and the cards
        # with it, where its layout says: they would jump. Framed in place only.
        raise ServiceError(
            400,
            "managed_container",
            f"the cards are placed by the layout of frame {level}; a frame among them would "
            "move them: frame them on the board or in a frame without a layout",
            field="ids",
        )
    # The frame sits one level below ``level``, and the cards one below the frame.
    depth = len(model.ancestors(level)) + 1 if level is not None else 0
    if depth + 1 + max(model.subtree_height(i) for i in tops) > layout.MAX_FRAME_DEPTH:
        raise ServiceError(
            400, "too_deep", "a frame there would nest deeper than frames may", field="ids"
        )
    title = call.params.get("title")
    prepared = prepare_card(
        {"kind": "section", "payload": {**({"title": title} if title else {}), "layout": None}}
    )
    payload = prepared.payload
    cards = [model.get(i) for i in tops]
    x0, y0 = min(c.x for c in cards), min(c.y for c in cards)
    x1, y1 = max(c.x + c.w for c in cards), max(c.y + c.h for c in cards)
    (record,) = tx.insert_cards(
        board.id,
        [
            NewCard(
                "section",
                payload,
                0.0,
                0.0,
                1.0,
                1.0,
                call.principal.layer,
                call.principal.label,
                sized_by="frame",
            )
        ],
    )
    model.begin()
    card = layout_card(record, payload, linked=False)
    model.add(card)
    pad, band = frames.chrome(card)
    left, right, bottom = _side_pads(model, level, picked, (x0, y0 - band - pad, x1, y1), pad)
    min_w, min_h = frames.min_frame_size(card)
    w, h = max(x1 - x0 + left + right, min_w), max(y1 - y0 + band + pad + bottom, min_h)
    model.set_rect(record.id, x0 - left, y0 - band - pad, w, h)
    if level is not None:
        siblings = [model.get(k) for k in model.get(level).children if k not in picked]
        order = reading_order([*siblings, model.get(record.id)], tie=lambda c: c.created)
        model.set_parent(record.id, level, order.index(model.get(record.id)))
    for c in sorted(cards, key=lambda c: (c.y, c.x)):
        model.set_parent(c.id, record.id)
    journal, added = model.commit()
    write_changes(tx, changes_from_journal(model, journal, added))
    frame = model.get(record.id)
    tx.update_cards(
        [
            {
                "id": record.id,
                "x": frame.x,
                "y": frame.y,
                "w": frame.w,
                "h": frame.h,
                "parent_id": level,
                "children": list(frame.children),
            },
            *({"id": c.id, "parent_id": record.id} for c in cards),
        ]
    )
    # The frame is pinned where it was drawn: what it now overlaps moves out of its way.
    write_changes(tx, layout.reflow(model, [record.id]))
    tx.record_event(
        "cards.frame",
        call.principal.label,
        board_id=board.id,
        detail={"frame": record.id, "cards": tops},
    )
    final = {r.id: r for r in tx.cards_by_id([record.id, *tops])}
    return {
        "board": board.slug,
        "frame": card_box(final[record.id]),
        "cards": [card_box(final[i]) for i in tops],
    }


@REGISTRY.operation(
    "unframe_cards",
    "Take a frame (section or cluster) away, keeping its cards where they are: they move "
    "up to the frame's own container and the frame goes to the trash (update_cards "
    "restore brings it back around them). Only the frame's author or the owner may: "
    "nothing but the frame itself goes, so no confirmation is asked; anyone else removes "
    "a frame with update_cards and its confirm handshake.",
    {
        "required": ["board", "id"],
        "properties": {"board": SLUG, "id": ID},
        "additionalProperties": False,
    },
    board="board",
    writes=True,
    output={
        "type": "object",
        "properties": {
            "board": {"type": "string"},
            "removed": {"type": "array", "items": {"type": "integer"}},
            "cards": {"type": "array", "items": _FRAME_BOX},
        },
        "required": ["board", "removed", "cards"],
    },
)
def unframe_cards(call: Call) -> dict[str, Any]:
    tx, board, frame_id = call.tx, call.board, call.params["id"]
    record = _on_board(tx, call, [frame_id])[frame_id]
    if record.kind not in layout.FRAME_KINDS:
        raise ServiceError(
            400, "not_a_frame", f"card {frame_id} is a {record.kind} card, not a frame", field="id"
        )
    if call.principal.kind != "owner" and record.author != call.principal.label:
        raise ServiceError(
            403,
            "not_your_card",
            f"frame {frame_id} is not yours to take away; remove it with update_cards",
            id=frame_id,
        )
    model = call.workspace.extension(BoardModels).load(tx, board)
    kids = list(model.get(frame_id).children)
    tx.remove_cards([frame_id], by=call.principal.label)
    write_changes(tx, layout.remove_cards(model, [frame_id]))
    tx.record_event(
        "cards.unframe",
        call.principal.label,
        board_id=board.id,
        detail={"frame": frame_id, "cards": kids},
    )
    return {
        "board": board.slug,
        "removed": [frame_id],
        "cards": [card_box(r) for r in tx.cards_by_id(kids)],
    }
