"""Boards and documents as PDF pages (the writer is :mod:`layoutkit.render._pdf`).

A board prints landscape, either whole on one page (``fit``) or in tiles at print size
(``tile``: a board pixel is :data:`~layoutkit.render._pdf.PT_PER_PX` points, so card
text reads as it does on screen), each tile page numbered with its row and column.
A document prints portrait as one column: its head, then each element's face at the
column's width, cut into pages between lines and pictures, never through them; its
title, section titles and markdown headings are the PDF outline.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

import attrs

from layoutkit.layout.blocks import plain_inline
from layoutkit.limits import LIMITS, check_limit
from layoutkit.render._board import HEADER, PAD, board_scene, card_rect
from layoutkit.render._board import _frame as frame_size
from layoutkit.render._face_elements import chip_row, element_face
from layoutkit.render._palette import ACCENT, BOARD, FG, MUTED
from layoutkit.render._paper import PAGINGS, PAPERS, Printed, PrintError
from layoutkit.render._pdf import (
    FOOTER,
    MARGIN,
    PT_PER_PX,
    Painter,
    footer,
    item_bounds,
    new_document,
    text_lines,
)
from layoutkit.render._safe import element_parts
from layoutkit.render._scene import Box, Ellipse, Item, Path, Placed, Text, text_run
from layoutkit.render._scene import _rgba as rgba

Rect = tuple[float, float, float, float]


def _paper(paper: str, *, landscape: bool) -> tuple[float, float]:
    if paper not in PAPERS:
        raise PrintError(
            "unknown_paper", f"paper must be one of {', '.join(PAPERS)}", field="paper"
        )
    w, h = PAPERS[paper]
    return (h, w) if landscape else (w, h)


# ------------------------------------------------------------------ boards


def board_pdf(board: dict, *, pages: str = "fit", paper: str = "a4") -> Printed:
    """A board (as ``scrape_board`` returns it, with ``images`` for its pictures) as
    landscape PDF pages: ``fit`` draws it whole on one page (never above print size),
    ``tile`` cuts it into pages at print size, leaving out pages nothing is drawn on.

    Raises :class:`PrintError` for an unknown ``pages`` or ``paper``, and
    :class:`~layoutkit.limits.LimitExceeded` (``exportPages``, field ``pages``) for a
    tiling of more pages than one export writes.
    """
    if pages not in PAGINGS:
        raise PrintError("unknown_paging", "pages must be fit or tile", field="pages")
    width, height = _paper(paper, landscape=True)
    tile_w = (width - 2 * MARGIN) / PT_PER_PX
    tile_h = (height - 2 * MARGIN - FOOTER) / PT_PER_PX
    if pages == "tile":
        # Counted from the cards' boxes before any face is drawn: a board too large to
        # tile costs its refusal only.
        check_limit("exportPages", _card_tiles(board, tile_w, tile_h), field="pages")
    # Faces as items at full detail: a picture drawn at scale 1 never shows glances.
    scene = board_scene(board, max_dim=1, scale=1.0)
    meta = board.get("board") if isinstance(board.get("board"), dict) else {}
    title = str(meta.get("title") or meta.get("slug") or "board")
    pdf = new_document(title)
    painter = Painter(pdf, scene.images)
    room_w = width - 2 * MARGIN
    if pages == "fit":
        room_h = height - 2 * MARGIN
        s = min(room_w / scene.width, room_h / scene.height, PT_PER_PX)
        ox = MARGIN + (room_w - scene.width * s) / 2
        oy = MARGIN + (room_h - scene.height * s) / 2
        pdf.add_page(format=(width, height))
        _background(pdf, scene.background, ox, oy, scene.width * s, scene.height * s)
        painter.draw(scene.items, s, ox, oy)
        return Printed(bytes(pdf.output()), 1, s)
    s = PT_PER_PX
    cols, rows = math.ceil(scene.width / tile_w), math.ceil(scene.height / tile_h)
    cache: dict[int, Rect | None] = {}
    placed = [(item, item_bounds(item, cache)) for item in scene.items]
    tiles = _reached(placed, cols, rows, tile_w, tile_h)
    check_limit("exportPages", len(tiles), field="pages")
    for n, (r, c) in enumerate(tiles, start=1):
        x0, y0 = c * tile_w, r * tile_h
        w, h = min(tile_w, scene.width - x0), min(tile_h, scene.height - y0)
        pdf.add_page(format=(width, height))
        _background(pdf, scene.background, MARGIN, MARGIN, w * s, h * s)
        shown = [i for i, b in placed if b is not None and _meets(b, (x0, y0, x0 + w, y0 + h))]
        with pdf.rect_clip(MARGIN, MARGIN, w * s, h * s):
            painter.draw(shown, s, MARGIN - x0 * s, MARGIN - y0 * s)
        footer(
            pdf,
            f"{title} · page {n} of {len(tiles)} · row {r + 1} of {rows}, column {c + 1} of {cols}",
            width,
            height,
        )
    return Printed(bytes(pdf.output()), len(tiles), s)


def _card_tiles(board: dict, tile_w: float, tile_h: float) -> int:
    """How many tiles the board's cards (and its title band) reach, placed as
    :func:`~layoutkit.render._board.board_scene` places them."""
    cards = [c for c in board.get("cards") or [] if isinstance(c, dict)]
    rects = {i: card_rect(c) for i, c in enumerate(cards)}
    (x0, y0), _ = frame_size(rects)
    dx, dy = PAD - x0, PAD + HEADER - y0
    boxes = [(0.0, 0.0, 1.0, 1.0)] + [
        (x + dx, y + dy, x + dx + w, y + dy + h) for x, y, w, h in rects.values()
    ]
    found: set[tuple[int, int]] = set()
    for b in boxes:
        rows = range(int(b[1] // tile_h), int(b[3] // tile_h) + 1)
        cols = range(int(b[0] // tile_w), int(b[2] // tile_w) + 1)
        if len(rows) * len(cols) > LIMITS["exportPages"]:
            return len(rows) * len(cols)  # one card past the cap: no need to list its tiles
        found.update((r, c) for r in rows for c in cols)
    return len(found)


def _reached(
    placed: list[tuple[Item, Rect | None]], cols: int, rows: int, tile_w: float, tile_h: float
) -> list[tuple[int, int]]:
    """The (row, column) of every tile some item draws into, in reading order."""
    found: set[tuple[int, int]] = set()
    for _, b in placed:
        if b is None:
            continue
        c0, c1 = max(int(b[0] // tile_w), 0), min(int(b[2] // tile_w), cols - 1)
        r0, r1 = max(int(b[1] // tile_h), 0), min(int(b[3] // tile_h), rows - 1)
        found.update((r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1))
    return sorted(found) or [(0, 0)]


def _meets(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _background(pdf: Any, color: str, x: float, y: float, w: float, h: float) -> None:
    fill = rgba(color or BOARD)
    if fill is not None:
        pdf.set_fill_color(*fill[:3])
        pdf.rect(x, y, w, h, "F")


# ------------------------------------------------------------------ documents

#: A document's margins (18 mm): its column is 657 board pixels wide on A4.
DOC_MARGIN = 51.0
#: Space between two elements of the column (board pixels).
GAP = 16.0
#: A face is given this much height: a document's column has no bottom.
_UNBOUNDED = 10_000_000.0
#: A page break looks this far up (a share of the page) for a gap between lines;
#: past it the page is cut where it ends (a picture or table taller than a page).
_BREAK_REACH = 0.4
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


#: Element kinds a page may end inside (between two of their lines or rows); any
#: other element shorter than a page starts on the next page rather than being cut.
_FLOWING = frozenset(("prose", "page", "text", "code", "table", "list", "timeline"))
#: Rows under a heading kept on its page: a heading never ends a page alone.
_WITH_NEXT = 40.0


@attrs.frozen
class _Heading:
    title: str
    level: int
    y: float


@attrs.define
class _Column:
    """What laying the column out collects: items, headings, and the spans of rows
    (y0, y1) a page break must not fall inside."""

    items: list[Item] = attrs.field(factory=list)
    headings: list[_Heading] = attrs.field(factory=list)
    keeps: list[tuple[float, float]] = attrs.field(factory=list)


def doc_pdf(doc: dict, *, paper: str = "a4", images: Mapping[str, bytes] | None = None) -> Printed:
    """A doc element (or its bare payload) as portrait pages of one column, numbered,
    with its headings as the outline: the title, each section's (and nested doc's)
    title, and the markdown headings of its prose, nested as they are.

    ``images`` are the blob bytes of its pictures. Raises :class:`PrintError` for an
    unknown ``paper`` and :class:`~layoutkit.limits.LimitExceeded` (``exportPages``)
    for a document longer than one export writes.
    """
    width, height = _paper(paper, landscape=False)
    _, payload = element_parts(doc)
    s = PT_PER_PX
    column = (width - 2 * DOC_MARGIN) / s
    laid = _doc_column(payload, column)
    atoms = _atoms(laid.items)
    page_h = (height - 2 * DOC_MARGIN - FOOTER) / s
    cuts = _page_cuts(atoms, laid.keeps, page_h)
    check_limit("exportPages", len(cuts), field="card")
    title = str(payload.get("title") or "Document")
    pdf = new_document(title)
    painter = Painter(pdf, images or {})
    outline: list[tuple[str, int, int]] = []
    pending = list(zip(laid.headings, _nesting(laid.headings), strict=True))
    for n, (top, bottom) in enumerate(cuts, start=1):
        pdf.add_page(format=(width, height))
        last = n == len(cuts)
        while pending and (last or pending[0][0].y < bottom):
            heading, level = pending.pop(0)
            pdf.set_y(DOC_MARGIN + max(heading.y - top, 0.0) * s)
            pdf.start_section(heading.title, level)
            outline.append((heading.title, level, n))
        shown = [a.item for a in atoms if a.y0 < bottom and a.y1 > top]
        with pdf.rect_clip(DOC_MARGIN, DOC_MARGIN, column * s, (bottom - top) * s):
            painter.draw(shown, s, DOC_MARGIN, DOC_MARGIN - top * s)
        footer(pdf, f"{title} · page {n} of {len(cuts)}", width, height)
    return Printed(bytes(pdf.output()), len(cuts), s, tuple(outline))


def _nesting(headings: list[_Heading]) -> list[int]:
    """Each heading's depth in the outline: the number of headings before it of a
    higher rank (a lower level) that it sits under, so a level never skips one and a
    ``#`` after a ``##`` climbs back out."""
    above: list[int] = []
    out = []
    for heading in headings:
        while above and above[-1] >= heading.level:
            above.pop()
        out.append(len(above))
        above.append(heading.level)
    return out


def _doc_column(payload: dict, w: float) -> _Column:
    """The document as one column ``w`` wide from y 0."""
    col = _Column()
    y = 0.0
    if payload.get("kicker"):
        col.items.append(Text(0, y, (str(payload["kicker"]).upper(),), 12, "sans-bold", ACCENT))
        y += 20
    if payload.get("title"):
        col.headings.append(_Heading(str(payload["title"]), 0, y))
        run = text_run(0, y, str(payload["title"]), w, size=28, font="sans-bold")
        col.items.append(run)
        y += run.height + 8
    if payload.get("intro"):
        run = text_run(0, y, plain_inline(str(payload["intro"])), w, size=16, fill=MUTED)
        col.items.append(run)
        y += run.height + 8
    chips = [
        (str(c.get("k") or ""), str(c.get("v") or ""))
        for c in payload.get("chips") or []
        if isinstance(c, dict)
    ]
    if chips:
        more, used = chip_row(chips, 0, y, w)
        col.items.extend(more)
        y += used + 8
    if y:
        y += GAP
    _elements(payload.get("elements"), 0, y, w, 1, col)
    return col


def _elements(elements: Any, x: float, y: float, w: float, depth: int, col: _Column) -> float:
    """Lay ``elements`` out from ``y`` down; returns the y under the last one."""
    for element in elements or ():
        if not isinstance(element, dict):
            continue
        kind, p = element_parts(element)
        if kind in ("section", "doc"):
            y = _container(kind, p, x, y, w, depth, col)
        elif kind in ("prose", "page", "text"):
            for level, title, chunk in _md_chunks(str(p.get("md") or p.get("text") or "")):
                if title:
                    col.headings.append(_Heading(title, depth + level - 1, y))
                    col.keeps.append((y, y + _WITH_NEXT))
                prose = {"kind": "prose", "payload": {"md": chunk}}
                drawn, used = element_face(prose, x, y, w, _UNBOUNDED)
                col.items.extend(drawn)
                y += used + GAP
        else:
            drawn, used = element_face(element, x, y, w, _UNBOUNDED)
            col.items.extend(drawn)
            if kind not in _FLOWING:
                col.keeps.append((y, y + used))
            y += used + GAP
    return y


def _container(kind: str, p: dict, x: float, y: float, w: float, depth: int, col: _Column) -> float:
    """A section or nested doc: its head as a heading of the outline, then its elements
    under it (on the page, not in a box: a page is the frame)."""
    title = plain_inline(str(p.get("title") or ""))
    label = str(p.get("label") or "")
    top = y
    if label:
        col.items.append(Text(x, y, (label.upper(),), 11, "sans-bold", ACCENT))
        y += 18
    if title or label:
        col.headings.append(_Heading(title or label, depth, top))
    if title:
        size = 22 if kind == "doc" else 20
        run = text_run(x, y, title, w, size=size, font="sans-bold", fill=FG)
        col.items.append(run)
        y += run.height + 6
    note = p.get("note") or p.get("intro")
    if note:
        run = text_run(x, y, plain_inline(str(note)), w, size=14, fill=MUTED)
        col.items.append(run)
        y += run.height + 6
    if y > top:
        y += GAP / 2
        col.keeps.append((top, y + _WITH_NEXT))
    return _elements(p.get("elements"), x, y, w, depth + 1, col)


def _md_chunks(md: str) -> list[tuple[int, str, str]]:
    """``md`` cut before each ATX heading outside code fences: (level, heading text,
    chunk) with level 0 and no text for what comes before the first heading."""
    chunks: list[tuple[int, str, list[str]]] = [(0, "", [])]
    fence: str | None = None
    for line in md.splitlines():
        opened = _FENCE.match(line)
        if opened and (fence is None or opened.group(1)[0] == fence[0]):
            fence = None if fence is not None else opened.group(1)
        found = _HEADING.match(line) if fence is None else None
        if found:
            chunks.append((len(found.group(1)), plain_inline(found.group(2)).strip(), []))
        chunks[-1][2].append(line)
    return [
        (level, title, "\n".join(lines))
        for level, title, lines in chunks
        if title or "\n".join(lines).strip()
    ]


@attrs.frozen
class _Atom:
    """One item of the column and the rows it covers; a ``hard`` one is never cut."""

    item: Item
    y0: float
    y1: float
    hard: bool


def _atoms(items: list[Item]) -> list[_Atom]:
    """The column's items one line of text each, with the rows they cover. Boxes and
    rules taller than a few lines are backgrounds and frames a page may cut; text,
    pictures and small shapes are not."""
    out: list[_Atom] = []
    cache: dict[int, Rect | None] = {}
    for item in items:
        for part in text_lines(item) if isinstance(item, Text) else (item,):
            b = item_bounds(part, cache)
            if b is None:
                continue
            soft = isinstance(part, Box | Ellipse | Path | Placed) and b[3] - b[1] > 120
            out.append(_Atom(part, b[1], b[3], not soft))
    return out


def _page_cuts(
    atoms: list[_Atom], keeps: list[tuple[float, float]], page_h: float
) -> list[tuple[float, float]]:
    """Where pages begin and end (column rows): each as far down as it can go without
    cutting through a line, a picture or an element kept whole (``keeps`` shorter than
    a page), but at least :data:`_BREAK_REACH` of a page."""
    end = max((a.y1 for a in atoms), default=0.0)
    spans = sorted(
        [(a.y0, a.y1) for a in atoms if a.hard]
        + [k for k in keeps if k[1] - k[0] < page_h * (1 - _BREAK_REACH)]
    )
    cuts: list[tuple[float, float]] = []
    top = 0.0
    while True:
        bottom = top + page_h
        if bottom >= end:
            cuts.append((top, max(end, top + 1)))
            return cuts
        while True:
            crossing = [y0 for y0, y1 in spans if y0 < bottom - 0.01 and y1 > bottom + 0.01]
            if not crossing:
                break
            higher = min(crossing)
            if higher <= top + page_h * _BREAK_REACH:
                bottom = top + page_h  # nothing to break at: cut where the page ends
                break
            bottom = higher
        cuts.append((top, bottom))
        # what starts at the cut begins the next page (a line cut through starts it again)
        top = bottom


__all__ = ["PAGINGS", "PrintError", "Printed", "board_pdf", "doc_pdf"]
