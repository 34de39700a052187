"""Markdown drawn into scene items (text cards, notes, pages, prose inside doc cards).

Faces show the text's structure (headings, lists, task boxes, code, quotes,
tables, rules, math) in plain runs; inline emphasis is not styled in pixels.
Drawing stops at the height budget and marks the cut with an ellipsis line.
"""

from __future__ import annotations

from layoutkit.layout.text import line_height
from layoutkit.render._icons import icon_glyph
from layoutkit.render._markdown import parse_blocks
from layoutkit.render._palette import FG, LINE, MUTED, SOFT
from layoutkit.render._safe import safe_url
from layoutkit.render._scene import Box, Image, Item, Path, Text, fit_line, text_run

#: Block metrics shared with the card sizer (layoutkit.layout.sizing), so a
#: text card's face fills the height the layout engine gave it.
HEADING_SIZES = {"h1": 26.0, "h2": 21.0, "h3": 18.0, "h4": 16.0, "h5": 14.0, "h6": 14.0}
BODY = 14.0
BLOCK_GAP = 8.0
HEADING_GAP = 6.0
ITEM_GAP = 2.0
LIST_INDENT = 20.0
NESTED_INDENT = 16.0
QUOTE_INDENT = 16.0
CODE_SIZE = 13.0
FENCE_PAD = 12.0
RULE_H = 16.0
TABLE_ROW = 32.0
MATH_BLOCK = 40.0
IMAGE_MAX_H = 240.0


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
    size: float = BODY,
    color: str = FG,
) -> tuple[list[Item], float]:
    """Items drawing ``md`` in the box (x, y, w, max_h), and the height used.

    Drawing stops at the bottom of the box; the last line drawn then ends in
    an ellipsis.
    """
    items: list[Item] = []
    tokens = parse_blocks(md)
    cy = y
    bottom = y + max_h + 0.5
    lists: list[list] = []  # stack of [ordered, next number]
    indent = 0.0
    quote_starts: list[float] = []
    prefix = ""
    heading: str | None = None
    table_row: list[str] | None = None
    in_head = False
    cut = False
    started = False

    after_fence = False

    def block_start(token) -> None:
        # The sizer counts one gap per blank line that follows text; blank lines
        # right after a fence or a $$ block add nothing, so neither do we.
        nonlocal cy, started, after_fence
        if token.level == 0:
            if started and not after_fence:
                cy += BLOCK_GAP
            started = True
            after_fence = token.type in ("fence", "math_block")

    def put(text: str, *, font="sans", sz=size, fill=color, gap=0.0) -> None:
        nonlocal cy, cut
        if cut:
            return
        left = x + indent
        run = text_run(left, cy, text, w - indent, size=sz, font=font, fill=fill)
        if cy + run.height > bottom:
            room = int((bottom - cy) // run.lh)
            if room >= 1:
                items.append(
                    text_run(
                        left, cy, text, w - indent, size=sz, font=font, fill=fill, max_lines=room
                    )
                )
            cy = bottom
            cut = True
            return
        items.append(run)
        cy += run.height + gap

    for token in tokens:
        if cut:
            break
        t = token.type
        if t.endswith("_open") or t in ("fence", "code_block", "math_block", "hr"):
            block_start(token)
        if t == "heading_open":
            heading = token.tag
        elif t == "heading_close":
            heading = None
        elif t in ("bullet_list_open", "ordered_list_open"):
            lists.append([t == "ordered_list_open", int(token.attrGet("start") or 1)])
            indent += LIST_INDENT if len(lists) == 1 else NESTED_INDENT
        elif t in ("bullet_list_close", "ordered_list_close"):
            indent -= LIST_INDENT if len(lists) == 1 else NESTED_INDENT
            lists.pop()
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
            indent += QUOTE_INDENT
        elif t == "blockquote_close":
            indent -= QUOTE_INDENT
            start = quote_starts.pop()
            items.append(Box(x + indent, start, 3, max(cy - start, 4), fill=LINE))
        elif t == "hr":
            if cy + RULE_H <= bottom:
                items.append(
                    Path(((x, cy + RULE_H / 2), (x + w, cy + RULE_H / 2)), stroke=LINE, width=1)
                )
                cy += RULE_H
        elif t == "math_block":
            if cy + MATH_BLOCK <= bottom:
                items.append(
                    Box(x + indent, cy + 2, w - indent, MATH_BLOCK - 4, fill=SOFT, radius=4)
                )
                line = fit_line(
                    token.content.replace("\n", " "), w - indent - 16, CODE_SIZE, "mono"
                )
                items.append(
                    Text(
                        x + w / 2 + indent / 2,
                        cy + (MATH_BLOCK - line_height(CODE_SIZE)) / 2,
                        (line,),
                        CODE_SIZE,
                        "mono",
                        FG,
                        0.0,
                        "middle",
                    )
                )
                cy += MATH_BLOCK
            else:
                cut = True
        elif t in ("fence", "code_block"):
            lines = token.content.rstrip("\n").split("\n")
            lh = line_height(CODE_SIZE)
            room = int(max(bottom - cy - 2 * FENCE_PAD, 0) // lh)
            if room < len(lines):
                lines = lines[:room]
                cut = True
            if lines:
                h = len(lines) * lh + 2 * FENCE_PAD
                items.append(Box(x + indent, cy + 2, w - indent, h - 4, fill=SOFT, radius=4))
                shown = tuple(fit_line(line, w - indent - 16, CODE_SIZE, "mono") for line in lines)
                items.append(Text(x + indent + 8, cy + FENCE_PAD, shown, CODE_SIZE, "mono", FG))
                cy += h
        elif t == "tr_open":
            table_row = []
        elif t == "thead_open":
            in_head = True
        elif t == "thead_close":
            in_head = False
        elif t == "tr_close" and table_row is not None:
            if cy + TABLE_ROW > bottom:
                cut = True
            else:
                cells = len(table_row) or 1
                cw = (w - indent) / cells
                font = "sans-bold" if in_head else "sans"
                for i, cell in enumerate(table_row):
                    items.append(
                        Text(
                            x + indent + i * cw,
                            cy + (TABLE_ROW - line_height(13)) / 2,
                            (fit_line(cell, cw - 8, 13, font),),
                            13,
                            font,
                            FG,
                        )
                    )  # type: ignore[arg-type]
                items.append(
                    Path(
                        ((x + indent, cy + TABLE_ROW), (x + w, cy + TABLE_ROW)),
                        stroke=LINE,
                        width=1,
                    )
                )
                cy += TABLE_ROW
            table_row = None
        elif t == "inline":
            text = _inline_text(token)
            pictures = [c for c in token.children or [] if c.type == "image"]
            alone = all(c.type in ("image", "softbreak") for c in token.children or [])
            if pictures and alone and table_row is None and not heading:
                # An image paragraph takes the sizer's image height.
                for picture in pictures:
                    ph = min(IMAGE_MAX_H, (w - indent) / 1.6)
                    if cy + ph > bottom:
                        cut = True
                        break
                    items.append(
                        Box(
                            x + indent,
                            cy,
                            w - indent,
                            ph,
                            fill=SOFT,
                            stroke=LINE,
                            width=0.8,
                            radius=4,
                        )
                    )
                    label = fit_line(picture.content or "image", w - indent - 16, 11)
                    items.append(
                        Text(
                            x + indent + (w - indent) / 2,
                            cy + ph / 2 - 8,
                            (label,),
                            11,
                            "sans",
                            MUTED,
                            0.0,
                            "middle",
                        )
                    )
                    src = safe_url(str(picture.attrGet("src") or ""), image=True)
                    if src:
                        items.append(Image(x + indent, cy, w - indent, ph, src))
                    cy += ph
                continue
            if table_row is not None:
                table_row.append(text)
            elif heading:
                put(text, font="sans-bold", sz=HEADING_SIZES.get(heading, size), gap=HEADING_GAP)
            else:
                fill = MUTED if quote_starts else color
                if prefix and not cut and cy + line_height(size) <= bottom:
                    # The marker sits in the list indent, as the sizer assumes.
                    items.append(
                        Text(x + indent - 4, cy, (prefix.strip(),), size, "sans", MUTED, 0.0, "end")
                    )
                put(text, fill=fill, gap=ITEM_GAP if prefix else 0.0)
                prefix = ""
    if cut and items:
        last = items[-1]
        if isinstance(last, Text) and last.lines and not last.lines[-1].endswith("…"):
            tail = fit_line(last.lines[-1] + " …", max(w - (last.x - x), 8), last.size, last.font)
            items[-1] = Text(
                last.x,
                last.y,
                (*last.lines[:-1], tail),
                last.size,
                last.font,
                last.fill,
                last.line_height,
                last.anchor,
            )
    return items, min(cy, y + max_h) - y


def plain_inline(text: str) -> str:
    """Inline markdown reduced to the text a reader sees (markers dropped)."""
    from layoutkit.render._markdown import _MD

    tokens = _MD.parseInline(str(text or ""), {})
    return "".join(_inline_text(t) for t in tokens) if tokens else ""
