"""Markdown drawn into scene items (text cards, notes, pages, prose inside doc cards).

The face draws the block plan of :mod:`layoutkit.layout.blocks`, the same plan
the card sizer measured, so what fits the box is what the sizer counted.
Faces show the text's structure (headings, lists, task boxes, code, quotes,
tables, rules, math) in plain runs; inline emphasis is not styled in pixels.
When the box is shorter than the plan (a capped page, a pinned size), drawing
stops at the last line that fits, that line ends in an ellipsis, and a muted
"+N more lines" line says how many lines were left out when there is room for it.
"""

from __future__ import annotations

import attrs

from layoutkit.layout import blocks as _blocks
from layoutkit.layout.blocks import Block, is_number
from layoutkit.layout.cuts import left_out, more
from layoutkit.layout.text import fit_prefix, line_height, text_width
from layoutkit.render._palette import FG, LINE, MUTED, SOFT
from layoutkit.render._safe import safe_url
from layoutkit.render._scene import Box, Image, Item, Path, Text, fit_line

BODY = _blocks.BODY
MORE_SIZE = 11.0


def markdown_face(
    md: str,
    x: float,
    y: float,
    w: float,
    max_h: float,
    *,
    size: float = BODY,
    color: str = FG,
) -> tuple[list[Item], float]:
    """Items drawing ``md`` in the box (x, y, w, max_h), and the height used."""
    laid = _blocks.plan(md, w, size)
    room = max_h + 0.5  # the sizer rounds the box to whole pixels
    items, used, cut = _fill(laid.blocks, x, y, w, room, color)
    if not cut:
        return items, min(laid.height, max_h)
    more_h = line_height(MORE_SIZE)
    if room - more_h >= more_h:
        # draw again with a line kept free to say what was left out
        items, used, _ = _fill(laid.blocks, x, y, w, room - more_h, color)
    _ellipsis(items, x, w)
    left = lines_left(laid.blocks, used)
    if left and used + more_h <= room:
        marker = left_out(more(left, "line"), f"+{more(left, 'more line', 'more lines')}")
        items.append(Text(x, y + used, (marker,), MORE_SIZE, "sans", MUTED))
        used += more_h
    else:
        # no room for the count: the closing ellipsis is the face's word for the cut
        left_out(more(left, "line") if left else "the end of its text", "…")
    return items, min(used, max_h)


def lines_left(blocks: tuple[Block, ...], used: float) -> int:
    """Lines of the plan below ``used``: the reader's measure of what a cut face left out.

    A wrapped paragraph counts its lines (those of a paragraph cut part way too),
    a listing its lines, a table row, a formula or a picture one each.
    """
    left = 0
    for b in blocks:
        if b.kind in ("marker", "quote", "rule"):
            continue
        if b.kind == "text":
            left += sum(1 for i in range(len(b.lines)) if b.y + i * b.line_height >= used - 0.01)
        elif b.y >= used - 0.01:
            left += max(len(b.lines), 1) if b.kind == "code" else 1
    return left


def _fill(
    blocks: tuple[Block, ...], x: float, y: float, w: float, room: float, color: str
) -> tuple[list[Item], float, bool]:
    """Draw the blocks that fit in ``room``: (items, height used, whether it cut)."""
    items: list[Item] = []
    used = 0.0
    cut = False
    for block in blocks:
        if block.kind == "quote":
            if block.y < room:
                h = min(block.h, used - block.y) if cut else block.h
                items.append(Box(x + block.x, y + block.y, 3, max(h, 4), fill=LINE))
            continue
        if cut:
            continue
        if block.bottom <= room:
            items += _draw(block, x, y, w, color)
            used = max(used, block.bottom)
            continue
        if block.kind == "text":
            fits = int((room - block.y) // block.line_height)
            if fits >= 1:
                part = attrs_lines(block, block.lines[:fits])
                items += _draw(part, x, y, w, color)
                used = part.bottom
        cut = True
    return items, used, cut


def attrs_lines(block: Block, lines: tuple[str, ...]) -> Block:
    return attrs.evolve(block, lines=lines, h=len(lines) * block.line_height)


def _draw(b: Block, x: float, y: float, w: float, color: str) -> list[Item]:
    left, top = x + b.x, y + b.y
    if b.kind == "text":
        return [Text(left, top, b.lines, b.size, b.font, MUTED if b.muted else color)]
    if b.kind == "marker":
        return [Text(left, top, b.lines, b.size, "sans", MUTED, 0.0, "end")]
    if b.kind == "rule":
        mid = top + b.h / 2
        return [Path(((x, mid), (x + w, mid)), stroke=LINE, width=1)]
    if b.kind == "math":
        line = fit_line(b.lines[0], b.w - 16, b.size, "mono")
        return [
            Box(left, top + 2, b.w, b.h - 4, fill=SOFT, radius=4),
            Text(
                left + b.w / 2,
                top + (b.h - line_height(b.size)) / 2,
                (line,),
                b.size,
                "mono",
                FG,
                0.0,
                "middle",
            ),
        ]
    if b.kind == "code":
        shown = tuple(_fit_code(line, b.w - 16, b.size) for line in b.lines)
        return [
            Box(left, top + 2, b.w, b.h - 4, fill=SOFT, radius=4),
            Text(left + 8, top + _blocks.FENCE_PAD, shown, b.size, "mono", FG),
        ]
    if b.kind == "row":
        return _row(b, left, top)
    if b.kind == "image":
        out: list[Item] = [
            Box(left, top, b.w, b.h, fill=SOFT, stroke=LINE, width=0.8, radius=4),
            Text(
                left + b.w / 2,
                top + b.h / 2 - 8,
                (fit_line(b.lines[0], b.w - 16, 11),),
                11,
                "sans",
                MUTED,
                0.0,
                "middle",
            ),
        ]
        src = safe_url(b.src, image=True)
        if src:
            out.append(Image(left, top, b.w, b.h, src))
        return out
    return []


def _fit_code(line: str, w: float, size: float) -> str:
    """A code line cut to ``w`` with its indentation kept (fit_line would collapse it)."""
    line = line.rstrip().replace("\t", "    ")
    if text_width(line, size, "mono") <= w:
        return line
    return fit_prefix(line, w, size, "mono", "…").rstrip() + "…"


def _row(b: Block, left: float, top: float) -> list[Item]:
    """A table row: wrapped cells, numbers (and right-aligned columns) flush right."""
    n = max(len(b.cells), 1)
    cw = b.w / n
    lh = line_height(b.size)
    pad = _blocks.TABLE_CELL_PAD
    out: list[Item] = []
    for i, lines in enumerate(b.cells):
        align = b.aligns[i] if i < len(b.aligns) else ""
        right = align == "right" or (not b.head and len(lines) == 1 and is_number(lines[0]))
        cx = left + i * cw
        ty = top + (_blocks.TABLE_ROW - lh) / 2
        if right:
            out.append(Text(cx + cw - pad, ty, lines, b.size, b.font, FG, 0.0, "end"))
        elif align == "center":
            out.append(Text(cx + cw / 2, ty, lines, b.size, b.font, FG, 0.0, "middle"))
        else:
            out.append(Text(cx + (pad if i else 0), ty, lines, b.size, b.font, FG))
    out.append(Path(((left, top + b.h), (left + b.w, top + b.h)), stroke=LINE, width=1))
    return out


def _ellipsis(items: list[Item], x: float, w: float) -> None:
    """End the last drawn text line in '…' so a cut never looks like the end."""
    for i in range(len(items) - 1, -1, -1):
        last = items[i]
        if isinstance(last, Text) and last.lines and last.anchor == "start":
            if last.lines[-1].endswith("…"):
                return
            avail = max(w - (last.x - x), 8)
            tail = last.lines[-1] + " …"
            if text_width(tail, last.size, last.font) > avail:
                tail = fit_line(last.lines[-1] + " …", avail, last.size, last.font)
            items[i] = Text(
                last.x,
                last.y,
                (*last.lines[:-1], tail),
                last.size,
                last.font,
                last.fill,
                last.line_height,
                last.anchor,
            )
            return
