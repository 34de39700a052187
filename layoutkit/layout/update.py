"""Reflow after cards change: patches (update_cards), removals and restores."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from layoutkit.errors import LayoutError
from layoutkit.geometry import Rect
from layoutkit.layout import frames, sizing
from layoutkit.layout.model import MAX_FRAME_DEPTH, Board, CardId
from layoutkit.layout.place import Changes, changes_from_journal


@attrs.frozen(slots=True)
class CardPatch:
    """One update_cards patch. ``payload`` is the card's whole new payload (the caller
    has already merged and normalized it); geometry fields are optional."""

    id: CardId
    payload: dict[str, Any] | None = None
    x: float | None = None
    y: float | None = None
    w: float | None = None
    h: float | None = None


def apply_patches(
    board: Board, patches: Sequence[CardPatch], *, by_person: bool = False
) -> Changes:
    """Apply ``patches`` and reflow; returns what changed on the board.

    A payload patch re-sizes a content-sized card unless the same patch sets
    ``h`` or the card was sized by a person (a given ``w`` re-wraps text at that
    width). Setting ``w``/``h`` with ``by_person`` marks the card person-sized.
    A frame given a box smaller than its content needs keeps its children where they
    are and is clamped back to hold them (see :func:`frames.hold`); a larger box stays.
    Moving a card (x/y) makes it a member of the innermost frame under its
    centre. Raises :class:`LayoutError` ``unknown_card``; the board is unchanged when it raises.
    """
    board.begin()
    try:
        changed: list[CardId] = []
        moved: list[CardId] = []
        dirty: list[CardId] = []
        for p in patches:
            if p.id not in board.cards:
                raise LayoutError("unknown_card", f"no card {p.id!r} on this board", id=p.id)
            _apply_one(board, p, by_person, changed, moved, dirty)
        frames.settle(board, changed, pinned=moved, dirty=dirty)
    except BaseException:
        board.rollback()
        raise
    return changes_from_journal(board, *board.commit())


def _apply_one(
    board: Board,
    p: CardPatch,
    by_person: bool,
    changed: list[CardId],
    moved: list[CardId],
    dirty: list[CardId],
) -> None:
    card = board.cards[p.id]
    if p.payload is not None:
        board.set_payload(p.id, dict(p.payload))
        if card.is_frame:
            dirty.append(p.id)
    w, h = card.w, card.h
    resize = (
        p.payload is not None
        and p.h is None
        and card.sized_by == "content"
        and sizing.is_content_sized(card.kind)
    )
    if resize:
        w, h = sizing.size_card(card.kind, card.payload, width=p.w)
        if p.w is not None:
            w = p.w
    else:
        w = p.w if p.w is not None else w
        h = p.h if p.h is not None else h
    if (p.w is not None or p.h is not None) and by_person and not card.is_frame:
        board.set_sized_by(p.id, "person")
    x = p.x if p.x is not None else card.x
    y = p.y if p.y is not None else card.y
    if (x, y) != (card.x, card.y):
        board.move_tree(p.id, x - card.x, y - card.y)
        moved.append(p.id)
    if (w, h) != (card.w, card.h):
        board.set_rect(p.id, card.x, card.y, w, h)
    if card.is_frame and (p.w is not None or p.h is not None):
        # A frame is never smaller than its content: settle only looks at the level
        # above the patched frame, so clamp the frame itself here.
        frames.hold(board, p.id)
    changed.append(p.id)
    if p.x is not None or p.y is not None:
        _rehome(board, p.id, dirty)


def _rehome(board: Board, key: CardId, dirty: list[CardId]) -> None:
    """Frame membership is spatial: a moved card joins the innermost frame under its centre."""
    card = board.cards[key]
    cx, cy = card.x + card.w / 2, card.y + card.h / 2
    inside = set(board.descendants(key)) | {key}
    best: CardId | None = None
    best_depth = -1
    for k in board.overlapping(Rect(cx - 0.5, cy - 0.5, 1.0, 1.0)):
        c = board.cards[k]
        if not c.is_frame or k in inside:
            continue
        depth = len(board.ancestors(k))
        if depth > best_depth and depth + 1 + board.subtree_height(key) <= MAX_FRAME_DEPTH:
            best, best_depth = k, depth
    if best == card.parent:
        return
    old = card.parent
    at = None
    if best is not None:
        # Keep reading order so a managed frame re-lays the card where it was dropped.
        kids = board.cards[best].children
        at = sum(1 for k in kids if (board.cards[k].y, board.cards[k].x) < (card.y, card.x))
    board.set_parent(key, best, at)
    for f in (old, best):
        if f is not None:
            dirty.append(f)


def remove_cards(board: Board, ids: Iterable[CardId]) -> Changes:
    """Take cards off the board (soft delete is the caller's business) and reflow.

    Children of a removed frame stay where they are and move up to the removed
    frame's container. Raises :class:`LayoutError` ``unknown_card``; unchanged board on error.
    """
    board.begin()
    try:
        dirty: list[CardId] = []
        for key in ids:
            if key not in board.cards:
                raise LayoutError("unknown_card", f"no card {key!r} on this board", id=key)
            card = board.cards[key]
            for child in list(card.children):
                board.set_parent(child, card.parent)
            parent = card.parent
            if parent is not None:
                board.set_parent(key, None)
                dirty.append(parent)
            board.remove(key)
        frames.settle(board, [], dirty=[d for d in dirty if d in board.cards])
    except BaseException:
        board.rollback()
        raise
    return changes_from_journal(board, *board.commit())


def reflow(
    board: Board, ids: Iterable[CardId] = (), *, frames_to_relayout: Iterable[CardId] = ()
) -> Changes:
    """Settle the board after the caller changed ``ids`` directly (a restored card put
    back, a layout saved on a section listed in ``frames_to_relayout``): frames grow,
    managed frames re-lay out, overlapping cards are pushed away."""
    board.begin()
    try:
        keys = [k for k in ids if k in board.cards]
        frames.settle(board, keys, pinned=keys, dirty=list(frames_to_relayout))
    except BaseException:
        board.rollback()
        raise
    return changes_from_journal(board, *board.commit())
