"""Markdown drawn into scene items (text cards, notes, pages, prose inside doc cards).

Faces show the text's structure (headings, lists, task boxes, code, quotes,
tables, rules, math) in plain runs; inline emphasis is not styled in pixels.
Drawing stops at the height budget and marks the cut with an ellipsis line.
"""

from __future__ import annotations

from layoutkit.render._icons import icon_glyph
from layoutkit.render._markdown import parse_blocks
from layoutkit.render._palette import FG, LINE, MUTED, SOFT
from layoutkit.render._scene import Box, Item, Path, Text, text_run

HEADING_SIZES = {"h1": 22.0, "h2": 18.0, "h3": 16.0}


def _inline_text(token) -> str:
    parts: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline", "math_inline", "math_inline_double", "wikilink"):
            parts.append(child.content)
        elif child.type in ("softbreak",):
            parts.append(" ")
        elif child.type == "hardbreak":
            parts.append("\n")
        elif child.type == "image":
            parts.append(f"[{child.content or 'image'}]")
        elif child.type == "icon":
            parts.append(icon_glyph(child.content))
    return "".join(parts)


def markdown_face(
    md: str,
    x: float,
    y: float,
    w: float,
    max_h: float,
    *,
    size: float = 14.0,
    color: str = FG,
) -> tuple[list[Item], float]:
    """Items drawing ``md`` in the box (x, y, w, max_h), and the height used."""
    items: list[Item] = []
    tokens = parse_blocks(md)
    cy = y
    bottom = y + max_h
    lists: list[list] = []  # stack of [ordered, counter]
    indent = 0.0
    quote_starts: list[float] = []
    prefix = ""
    heading: str | None = None
    table_row: list[str] | None = None
    in_head = False
    cut = False

    def put(text: str, *, font="sans", sz=size, fill=color, gap=4.0, pad=0.0) -> bool:
        nonlocal cy, cut
        if cut:
            return False
        left = x + indent + pad
        run = text_run(left, cy, text, w - indent - pad, size=sz, font=font, fill=fill)
        if cy + run.height > bottom:
            room = int((bottom - cy) // run.lh)
            if room >= 1:
                run = text_run(
                    left, cy, text, w - indent - pad, size=sz, font=font, fill=fill, max_lines=room
                )
                items.append(run)
            cy = bottom
            cut = True
            return False
        items.append(run)
        cy += run.height + gap
        return True

    for token in tokens:
        if cut:
            break
        t = token.type
        if t == "heading_open":
            heading = token.tag
        elif t == "heading_close":
            heading = None
        elif t in ("bullet_list_open", "ordered_list_open"):
            lists.append([t == "ordered_list_open", int(token.attrGet("start") or 1)])
            indent += 16
        elif t in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
            indent -= 16
        elif t == "list_item_open":
            cls = str(token.attrGet("class") or "")
            if "task" in cls:
                prefix = "☑ " if "done" in cls else "☐ "
            elif lists and lists[-1][0]:
                prefix = f"{lists[-1][1]}. "
                lists[-1][1] += 1
            else:
                prefix = "• "
        elif t == "blockquote_open":
            quote_starts.append(cy)
            indent += 12
        elif t == "blockquote_close":
            indent -= 12
            start = quote_starts.pop()
            items.append(Box(x + indent, start, 3, max(cy - start - 4, 4), fill=LINE))
        elif t == "hr":
            if cy + 10 <= bottom:
                items.append(Path(((x, cy + 4), (x + w, cy + 4)), stroke=LINE, width=1))
                cy += 12
        elif t in ("fence", "code_block", "math_block"):
            mono = token.content.rstrip("\n")
            font = "mono"
            run = text_run(
                x + indent + 8, cy + 6, mono, w - indent - 16, size=size - 2, font=font, fill=FG
            )
            lines = run.lines
            room = int(max(bottom - cy - 12, 0) // run.lh)
            if room < len(lines):
                lines = lines[:room]
                cut = True
            if lines:
                h = len(lines) * run.lh + 12
                items.append(Box(x + indent, cy, w - indent, h, fill=SOFT, radius=4))
                items.append(Text(run.x, run.y, tuple(lines), run.size, font, FG))
                cy += h + 6
        elif t == "tr_open":
            table_row = []
        elif t == "thead_open":
            in_head = True
        elif t == "thead_close":
            in_head = False
        elif t == "tr_close" and table_row is not None:
            put(
                "  │  ".join(table_row), font="sans-bold" if in_head else "sans", sz=size - 2, gap=2
            )
            if in_head and not cut:
                items.append(Path(((x, cy - 1), (x + w, cy - 1)), stroke=LINE, width=1))
            table_row = None
        elif t == "table_close":
            cy += 4
        elif t == "inline":
            text = _inline_text(token)
            if table_row is not None:
                table_row.append(text)
            elif heading:
                put(text, font="sans-bold", sz=HEADING_SIZES.get(heading, size + 1), gap=6)
            else:
                fill = MUTED if quote_starts else color
                put(prefix + text, fill=fill)
                prefix = ""
        elif t == "paragraph_close" and not lists:
            cy += 4
    if cut and items:
        last = items[-1]
        if isinstance(last, Text) and last.lines and not last.lines[-1].endswith("…"):
            items[-1] = Text(
                last.x,
                last.y,
                (*last.lines[:-1], last.lines[-1] + " …"),
                last.size,
                last.font,
                last.fill,
            )
    return items, min(cy, bottom) - y


def plain_inline(text: str) -> str:
    """Inline markdown reduced to the text a reader sees (markers dropped)."""
    from layoutkit.render._markdown import _MD

    tokens = _MD.parseInline(str(text or ""), {})
    return "".join(_inline_text(t) for t in tokens) if tokens else ""
