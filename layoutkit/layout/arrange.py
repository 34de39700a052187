"""The arrange operation: re-lay out a scope of cards by mode."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from layoutkit.errors import LayoutError
from layoutkit.layout import frames, modes, sections
from layoutkit.layout.frames import BLOCK_GAP, CARD_GAP
from layoutkit.layout.model import Board, Card, CardId
from layoutkit.layout.place import Changes, changes_from_journal
from layoutkit.layout.reading import reading_order
from layoutkit.limits import check_limit

ARRANGE_MODES = (
    "column",
    "row",
    "grid",
    "flow",
    "lanes",
    "masonry",
    "timeline",
    "timeaxis",
    "compare",
    "journey",
    "graph",
    "align-left",
    "align-top",
    "distribute-h",
    "distribute-v",
)
UNSAVABLE = ("journey", "graph")
#: Kinds the graph mode lays out as a tree (other cards in scope stay put).
GRAPH_KINDS = frozenset({"doc", "page"})


@attrs.frozen(slots=True)
class ArrangeResult:
    """Changes to write, the layouts to store on sections (``[{section, layout}]``) and
    the arranged cards in their new order."""

    changes: Changes
    saved: tuple[dict[str, Any], ...]
    arranged: tuple[CardId, ...]


def arrange(
    board: Board,
    mode: str,
    *,
    gap: float | None = None,
    padding: float | None = None,
    scope: str | Sequence[CardId] = "ai",
    save: bool = False,
    sections_: Sequence[str] | None = None,
    cols: int | str | None = None,
    sort: str = "reading",
) -> ArrangeResult:
    """Arrange the cards in ``scope`` by ``mode`` and reflow around them.

    ``scope``: "ai" (top-level AI-layer cards), "all", "section:<Name>" (that
    section's children) or a list of card ids sharing one container.
    ``sections_`` (the ``sections`` parameter): two names for compare, else one
    name meaning the same as scope section:<Name>. ``save`` with a section
    scope stores the layout on the section (returned in ``saved``; the
    section's payload on the board is updated too). Raises :class:`LayoutError`
    ``unknown_mode`` (with ``allowed``), ``not_persistable`` (save with journey
    or graph), ``invalid_sections``, ``invalid_scope``, ``invalid_sort``,
    ``unknown_section``/``unknown_card``. Unchanged board on error.
    """
    if mode not in ARRANGE_MODES:
        raise LayoutError(
            "unknown_mode", f"unknown arrange mode {mode!r}", allowed=list(ARRANGE_MODES)
        )
    if save and mode in UNSAVABLE:
        raise LayoutError("not_persistable", f"{mode} layouts cannot be saved")
    if sort not in ("reading", "oldest"):
        raise LayoutError(
            "invalid_sort", "sort is reading or oldest", allowed=["reading", "oldest"]
        )
    n_cols: int | None
    if cols is None:
        n_cols = 3
    elif cols == "auto":
        n_cols = 0
    elif isinstance(cols, int) and not isinstance(cols, bool) and cols >= 1:
        n_cols = cols
    else:
        raise LayoutError("invalid_cols", "cols is a number from 1 or 'auto'")
    g = CARD_GAP if gap is None else float(gap)
    board.begin()
    try:
        if mode == "compare":
            result = _compare(board, sections_, scope, g, padding, save)
        else:
            result = _arrange(board, mode, g, padding, scope, save, sections_, n_cols, cols, sort)
    except BaseException:
        board.rollback()
        raise
    saved, arranged = result
    return ArrangeResult(changes_from_journal(board, *board.commit()), saved, arranged)


def arrange_reads(
    board: Board,
    mode: str,
    scope: str | Sequence[CardId] = "ai",
    sections_: Sequence[str] | None = None,
) -> list[CardId]:
    """The cards whose payloads :func:`arrange` reads (lanes, dates and trees come
    from content): those it places; compare places by geometry alone. A board
    model needs only these payloads beside its frames'. Raises as arrange does
    for a scope it cannot resolve."""
    if mode == "compare":
        return []
    _, cards = _scope(board, scope, sections_)
    return [c.id for c in cards]


def _scope(
    board: Board, scope: str | Sequence[CardId], names: Sequence[str] | None
) -> tuple[CardId | None, list[Card]]:
    if names:
        if len(names) != 1:
            raise LayoutError("invalid_sections", "name one section (two only with compare)")
        if scope not in ("ai", None):
            raise LayoutError("invalid_sections", "sections cannot be combined with another scope")
        scope = f"section:{names[0]}"
    if isinstance(scope, str):
        if scope.startswith("section:"):
            sec = sections.require_section(board, scope[len("section:") :])
            return sec.id, [board.cards[k] for k in sec.children]
        if scope == "all":
            return None, board.top_level()
        if scope == "ai":
            return None, [c for c in board.top_level() if c.layer == "ai"]
        raise LayoutError("invalid_scope", "scope is ai, all, section:<Name> or a list of ids")
    cards = []
    for k in scope:
        if k not in board.cards:
            raise LayoutError("unknown_card", f"no card {k!r} on this board", id=k)
        cards.append(board.cards[k])
    parents = {c.parent for c in cards}
    if len(parents) > 1:
        raise LayoutError("invalid_scope", "the ids must share one container")
    return (parents.pop() if parents else None), cards


def _created(card: Card) -> int:
    return card.created


def _ordered(cards: Sequence[Card], sort: str) -> list[Card]:
    if sort == "oldest":
        return sorted(cards, key=lambda c: (c.created, str(c.id)))
    return reading_order(cards, tie=_created)


def _arrange(
    board: Board,
    mode: str,
    gap: float,
    padding: float | None,
    scope: str | Sequence[CardId],
    save: bool,
    names: Sequence[str] | None,
    n_cols: int | None,
    raw_cols: Any,
    sort: str,
) -> tuple[tuple[dict[str, Any], ...], tuple[CardId, ...]]:
    container, cards = _scope(board, scope, names)
    check_limit("arrangeCards", len(cards), field="scope")
    if mode == "graph":
        cards = [c for c in cards if c.kind in GRAPH_KINDS]
    if not cards:
        return (), ()
    ordered = _ordered(cards, sort)
    keys = [c.id for c in ordered]
    ox, oy = _origin(board, container, ordered, padding)
    items = frames.items_of(board, keys, ox, oy)
    wires: tuple = ()
    if mode in ("journey", "graph"):
        wires = frames.tree_wires(board, keys, "ref" if mode == "graph" else None)
    pos, _, _ = modes.lay_out(mode, items, modes.Opts(gap=gap, cols=n_cols, wires=wires))
    for it, (px, py) in zip(items, pos, strict=True):
        board.move_tree(it.key, ox + px - (it.x + ox), oy + py - (it.y + oy))
    saved: list[dict[str, Any]] = []
    keep: list[CardId] = []
    dirty: list[CardId] = []
    if container is not None:
        _reorder_children(board, container, keys, mode)
        if save and board.cards[container].kind == "section":
            saved.append(_save_layout(board, container, mode, gap, padding, n_cols, raw_cols))
            dirty.append(container)
        else:
            keep.append(container)
    frames.settle(board, keys, pinned=keys, dirty=dirty, keep=keep)
    return tuple(saved), tuple(keys)


def _origin(
    board: Board, container: CardId | None, ordered: Sequence[Card], padding: float | None
) -> tuple[float, float]:
    """Where the arranged cards start: a section's content corner (moved in or out to
    ``padding``), else the top left of the cards themselves."""
    if container is None or board.cards[container].kind != "section":
        return min(c.x for c in ordered), min(c.y for c in ordered)
    frame = board.cards[container]
    ox, oy = frames.content_origin(frame)
    if padding is not None:
        pad, _ = frames.chrome(frame)
        ox, oy = ox - pad + padding, oy - pad + padding
    return ox, oy


#: Modes that line cards up without setting an order among them.
_ALIGN_MODES = ("align-left", "align-top", "distribute-h", "distribute-v")


def _reorder_children(board: Board, container: CardId, keys: list[CardId], mode: str) -> None:
    """A mode that sets an order gives the frame its children in that order (when the
    arranged cards are all of them)."""
    children = board.cards[container].children
    if mode not in _ALIGN_MODES and children != keys and set(keys) == set(children):
        board.set_children(container, keys)


def _save_layout(
    board: Board,
    container: CardId,
    mode: str,
    gap: float,
    padding: float | None,
    n_cols: int | None,
    raw_cols: Any,
) -> dict[str, Any]:
    """Store the arrangement in the section's payload so later cards follow it."""
    layout: dict[str, Any] = {"mode": mode, "gap": gap}
    if mode in ("grid", "masonry"):
        layout["cols"] = "auto" if raw_cols == "auto" else (n_cols or 3)
    if padding is not None:
        layout["padding"] = padding
    frame = board.cards[container]
    board.set_payload(container, {**frame.payload, "layout": layout})
    return {"section": container, "layout": layout}


def _compare(
    board: Board,
    names: Sequence[str] | None,
    scope: Any,
    gap: float,
    padding: float | None,
    save: bool,
) -> tuple[tuple[dict[str, Any], ...], tuple[CardId, ...]]:
    """Two sections side by side, their children in one column each with rows aligned so
    the n-th cards of both sides face each other."""
    if not names or len(names) != 2:
        raise LayoutError("invalid_sections", "compare needs exactly two section names")
    a = sections.require_section(board, names[0])
    b = sections.require_section(board, names[1])
    if a.id == b.id:
        raise LayoutError("invalid_sections", "compare needs two different sections")
    left = reading_order([board.cards[k] for k in a.children], tie=_created)
    right = reading_order([board.cards[k] for k in b.children], tie=_created)
    check_limit("arrangeCards", len(left) + len(right), field="sections")
    rows = max(len(left), len(right))
    heights = [
        max(
            left[i].h if i < len(left) else 0.0,
            right[i].h if i < len(right) else 0.0,
        )
        for i in range(rows)
    ]
    saved: list[dict[str, Any]] = []
    for frame, kids in ((a, left), (b, right)):
        ox, oy = frames.content_origin(frame)
        y = oy
        for i, c in enumerate(kids):
            board.move_tree(c.id, ox - c.x, y - c.y)
            y += heights[i] + gap
        board.set_children(frame.id, [c.id for c in kids])
        if save:
            layout = {"mode": "column", "gap": gap}
            if padding is not None:
                layout["padding"] = padding
            board.set_payload(frame.id, {**frame.payload, "layout": layout})
            saved.append({"section": frame.id, "layout": layout})
    keep = [] if save else [a.id, b.id]
    # Fit both frames first so B can be put right of A's final box.
    frames.settle(board, [], dirty=[a.id], keep=keep)
    a_card = board.cards[a.id]
    b_card = board.cards[b.id]
    if b_card.parent == a_card.parent:
        board.move_tree(b.id, a_card.x + a_card.w + BLOCK_GAP - b_card.x, a_card.y - b_card.y)
    frames.settle(board, [b.id], pinned=[a.id, b.id], dirty=[b.id], keep=keep)
    return tuple(saved), (a.id, b.id)
