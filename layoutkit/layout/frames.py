"""Frames (cluster, section): chrome, managed layouts, and reflow.

A frame is *managed* when it has a layout (sections default to a 2-column
grid, clusters to a row, kanban clusters to a column): its children sit where
the layout puts them, in ``children`` order. A section with ``layout: null``
is unmanaged: children stay where they were put and the frame only grows.

:func:`settle` is the one reflow routine. Given the cards whose box just
changed, it works from the deepest frame outwards: re-lays out managed frames,
pushes overlapping siblings away (right or down, whichever is the shorter
move) inside unmanaged ones and at the top level, and grows every frame to
hold its children plus padding and title band. Afterwards no two cards
overlap unless one contains the other.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

from layoutkit.geometry import Rect
from layoutkit.layout import modes, sizing
from layoutkit.layout.model import Board, Card, CardId

#: Space between cards inside a block or frame.
CARD_GAP = 24.0
#: Space between unrelated blocks on the board (free placement, passes).
BLOCK_GAP = 64.0
#: Inner padding of titled frames (sections, titled clusters).
FRAME_PAD = 24.0
CLUSTER_PAD = 16.0
#: Title band of a titled section / titled cluster, and the extra line for a description.
SECTION_BAND = 48.0
UNTITLED_SECTION_BAND = 16.0
CLUSTER_BAND = 40.0
DESCRIPTION_BAND = 24.0

SECTION_DEFAULT_LAYOUT: dict[str, Any] = {"mode": "grid", "cols": 2}
#: Modes a frame can keep as its saved layout (tree modes need wires and are never saved).
FRAME_MODES = frozenset(modes.MODES) - {"journey", "graph"}

#: Moves one card may take during a single settle before it is sent below its level.
_PUSH_LIMIT = 64


def chrome(card: Card) -> tuple[float, float]:
    """(padding, title band) of a frame; untitled clusters have neither."""
    lay = card.payload.get("layout")
    custom = lay.get("padding") if isinstance(lay, dict) else None
    if card.kind == "cluster":
        if card.title is None:
            return (float(custom) if isinstance(custom, int | float) else 0.0, 0.0)
        pad = CLUSTER_PAD
        band = CLUSTER_BAND
    else:
        pad = FRAME_PAD
        band = SECTION_BAND if card.title is not None else UNTITLED_SECTION_BAND
        desc = card.payload.get("description")
        if isinstance(desc, str) and desc.strip():
            band += DESCRIPTION_BAND
    if isinstance(custom, int | float) and not isinstance(custom, bool) and custom >= 0:
        pad = float(custom)
    return pad, band


def frame_layout(card: Card) -> dict[str, Any] | None:
    """The frame's effective layout ``{mode, cols?, gap?}``, or None when unmanaged."""
    p = card.payload
    if "layout" in p:
        lay = p["layout"]
        if lay is None:
            return None
        if isinstance(lay, dict) and lay.get("mode") in FRAME_MODES:
            return lay
        if isinstance(lay, str) and lay in FRAME_MODES:
            return {"mode": lay}
    if card.kind == "section":
        return SECTION_DEFAULT_LAYOUT
    if p.get("role") == "kanban" and card.title is not None:
        return {"mode": "column"}
    return {"mode": "row"}


def layout_opts(lay: dict[str, Any], default_cols: int = 3) -> modes.Opts:
    cols = lay.get("cols")
    if cols == "auto":
        cols = 0
    gap = lay.get("gap")
    return modes.Opts(
        gap=float(gap) if isinstance(gap, int | float) and gap >= 0 else CARD_GAP,
        cols=int(cols)
        if isinstance(cols, int | float) and not isinstance(cols, bool)
        else default_cols,
    )


def content_origin(card: Card) -> tuple[float, float]:
    pad, band = chrome(card)
    return card.x + pad, card.y + band + pad


def frame_size(
    card: Card, content_w: float, content_h: float, has_children: bool
) -> tuple[float, float]:
    """Box of a frame around content of the given size."""
    pad, band = chrome(card)
    if not has_children:
        return sizing.FIXED[card.kind]
    min_w, min_h = min_frame_size(card)
    return max(content_w + 2 * pad, min_w), max(content_h + band + 2 * pad, min_h)


def min_frame_size(card: Card) -> tuple[float, float]:
    """Smallest box a frame may have whatever its content: room for the title band,
    padding and one short row (nothing for an untitled cluster, which draws no chrome)."""
    if card.kind == "cluster" and card.title is None:
        return 0.0, 0.0
    pad, band = chrome(card)
    return 240.0, band + 2 * pad + 40.0


def items_of(
    board: Board, keys: Iterable[CardId], ox: float = 0.0, oy: float = 0.0
) -> list[modes.Item]:
    out = []
    for k in keys:
        c = board.cards[k]
        out.append(modes.Item(k, c.w, c.h, c.x - ox, c.y - oy, c.kind, c.payload, c.created))
    return out


def tree_wires(board: Board, keys: Iterable[CardId], rel: str | None = None) -> tuple:
    keyset = set(keys)
    return tuple(
        (w.src, w.dst)
        for w in board.wires
        if w.src in keyset and w.dst in keyset and (rel is None or w.rel == rel)
    )


def relayout(board: Board, fid: CardId) -> None:
    """Place a managed frame's children by its layout and size the frame around them."""
    card = board.cards[fid]
    lay = frame_layout(card)
    if lay is None:
        fit(board, fid)
        return
    ox, oy = content_origin(card)
    items = items_of(board, card.children, ox, oy)
    opts = layout_opts(lay, default_cols=2 if card.kind == "section" else 3)
    pos, w, h = modes.lay_out(lay["mode"], items, opts)
    for it, (px, py) in zip(items, pos, strict=True):
        board.move_tree(it.key, ox + px - (it.x + ox), oy + py - (it.y + oy))
    fw, fh = frame_size(card, w, h, bool(items))
    board.set_rect(fid, card.x, card.y, fw, fh)


def fit(board: Board, fid: CardId) -> None:
    """Grow an unmanaged frame until it holds its children plus chrome (it never shrinks)."""
    card = board.cards[fid]
    if not card.children:
        if card.w <= 0 or card.h <= 0:
            w, h = sizing.FIXED[card.kind]
            board.set_rect(fid, card.x, card.y, w, h)
        return
    pad, band = chrome(card)
    kids = [board.cards[k].rect for k in card.children]
    x0 = min(r.x for r in kids) - pad
    y0 = min(r.y for r in kids) - pad - band
    x1 = max(r.right for r in kids) + pad
    y1 = max(r.bottom for r in kids) + pad
    need = Rect(x0, y0, x1 - x0, y1 - y0)
    box = card.rect.union(need) if card.w > 0 and card.h > 0 else need
    board.set_rect(fid, box.x, box.y, box.w, box.h)


def hold(board: Board, fid: CardId) -> None:
    """Grow a frame whose box was set from outside (a w/h patch) back to what its content
    needs: its children where they are plus padding and title band, and never below
    :func:`min_frame_size`. A box larger than that is kept; children never move."""
    fit(board, fid)
    card = board.cards[fid]
    min_w, min_h = min_frame_size(card)
    if card.w < min_w or card.h < min_h:
        board.set_rect(fid, card.x, card.y, max(card.w, min_w), max(card.h, min_h))


def at_level(board: Board, key: CardId, level: CardId | None) -> CardId | None:
    """The ancestor-or-self of ``key`` whose parent is ``level`` (None if there is none)."""
    cards = board.cards
    k = key
    while True:
        p = cards[k].parent
        if p == level:
            return k
        if p is None:
            return None
        k = p


def _depth(board: Board, key: CardId | None) -> int:
    return -1 if key is None else len(board.ancestors(key))


def settle(
    board: Board,
    changed: Iterable[CardId],
    *,
    pinned: Iterable[CardId] = (),
    prefer: str | None = None,
    dirty: Iterable[CardId] = (),
    keep: Iterable[CardId] = (),
) -> None:
    """Reflow after the boxes of ``changed`` cards were set.

    ``pinned`` cards are never pushed (others move away from them);
    ``prefer`` ("right" or "down") forces the push direction, as an insertion
    into a row wants; ``dirty`` frames are re-laid out even without a changed
    child (a child left, the layout changed); ``keep`` frames are only grown,
    not re-laid out, for this call (an unsaved arrange inside a managed frame).
    """
    pin = set(pinned)
    keep_set = set(keep)
    pending: dict[CardId | None, list[CardId]] = {}
    for k in changed:
        if k in board.cards:
            pending.setdefault(board.cards[k].parent, []).append(k)
    for f in dirty:
        if f in board.cards:
            pending.setdefault(f, [])
    while pending:
        level = max(pending, key=lambda c: (_depth(board, c), c is not None))
        movers = pending.pop(level)
        if level is not None and level not in board.cards:
            continue
        before = board.cards[level].geometry if level is not None else None
        managed = (
            level is not None
            and level not in keep_set
            and frame_layout(board.cards[level]) is not None
        )
        if managed:
            relayout(board, level)
        else:
            push_away(board, level, movers, pin, prefer)
            if level is not None:
                fit(board, level)
        if level is not None and board.cards[level].geometry != before:
            pending.setdefault(board.cards[level].parent, []).append(level)


def push_away(
    board: Board,
    level: CardId | None,
    movers: Iterable[CardId],
    pinned: set[CardId],
    prefer: str | None = None,
) -> None:
    """Move cards at ``level`` (children of that frame, or top-level cards) until none of
    them overlaps another; every move is the shortest shift right or down."""
    cards = board.cards
    queue = deque(dict.fromkeys(m for m in movers if m in cards))
    count: dict[CardId, int] = {}
    while queue:
        a = queue.popleft()
        if a not in cards:
            continue
        again = True
        while again:
            again = False
            ca = cards[a]
            for hit in board.index.query(ca.x, ca.y, ca.w, ca.h):
                b = at_level(board, hit, level)
                if b is None or b == a:
                    continue
                cb = cards[b]
                if not ca.rect.overlaps(cb.rect):
                    continue
                if b in pinned and a not in pinned:
                    mover, fixed = ca, cb
                else:
                    mover, fixed = cb, ca
                _shift(board, level, mover, fixed, prefer, count)
                if mover is ca:
                    again = True
                    break
                queue.append(mover.id)


def _shift(
    board: Board,
    level: CardId | None,
    mover: Card,
    fixed: Card,
    prefer: str | None,
    count: dict[CardId, int],
) -> None:
    n = count.get(mover.id, 0) + 1
    count[mover.id] = n
    if n > _PUSH_LIMIT:
        # A long cascade: drop the card below everything at its level instead.
        peers = (
            [c for c in board.cards.values() if c.parent is None]
            if level is None
            else [board.cards[k] for k in board.cards[level].children]
        )
        bottom = max(c.y + c.h for c in peers if c is not mover)
        board.move_tree(mover.id, 0.0, bottom + CARD_GAP - mover.y)
        return
    dx = fixed.x + fixed.w + CARD_GAP - mover.x
    dy = fixed.y + fixed.h + CARD_GAP - mover.y
    if prefer == "right" or (prefer is None and dx < dy):
        board.move_tree(mover.id, dx, 0.0)
    else:
        board.move_tree(mover.id, 0.0, dy)
