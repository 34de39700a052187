"""One block model for markdown on cards: the sizer and the face read the same plan.

:func:`plan` parses markdown with the project's parser (the parse rules live
here so the layout engine can use them without the HTML renderer) and lays
its blocks out at a width: every heading, paragraph, list item, quote, code
fence, display formula, table row and image gets its wrapped lines and its
place (``x`` indent, ``y`` top, ``h``). :func:`layoutkit.layout.sizing.markdown_height`
is the plan's height, and the face (``layoutkit.render._face_text``) draws the
plan's blocks as they are. Because both sides read one plan, a face cannot
drop a line its box was sized for, nor leave a band the sizer counted for
content it does not draw.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import attrs
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

from layoutkit.icons import FALLBACK, ICONS
from layoutkit.layout import text as _text

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
TABLE_SIZE = 13.0
TABLE_ROW = 32.0
TABLE_CELL_PAD = 8.0
MATH_BLOCK = 40.0
IMAGE_MAX_H = 240.0

_ICON = re.compile(r":([a-z][a-z0-9-]{0,39}):")
_NUMBER = re.compile(r"^[-+−]?[$€£¥]?\d[\d,_ ]*(\.\d+)?\s?[%kKmMbB×x]?$")


# ------------------------------------------------------------------ parse rules
def _mark_rule(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if not src.startswith("==", pos) or state.env.get("_in_mark"):
        return False
    end = src.find("==", pos + 2)
    if end < 0 or end == pos + 2 or src[pos + 2].isspace() or src[end - 1].isspace():
        return False
    if not silent:
        state.push("mark_open", "mark", 1)
        old_pos, old_max = state.pos, state.posMax
        state.pos, state.posMax = pos + 2, end
        state.env["_in_mark"] = True
        state.md.inline.tokenize(state)
        state.env["_in_mark"] = False
        state.pos, state.posMax = old_pos, old_max
        state.push("mark_close", "mark", -1)
    state.pos = end + 2
    return True


def _icon_rule(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if src[pos] != ":" or (pos > 0 and src[pos - 1].isalnum()):
        return False
    match = _ICON.match(src, pos)
    if not match or match.end() > state.posMax:
        return False
    after = match.end()
    if after < len(src) and src[after].isalnum():
        return False
    if not silent:
        token = state.push("icon", "span", 0)
        token.content = match.group(1)
    state.pos = after
    return True


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if not src.startswith("[[", pos):
        return False
    end = src.find("]]", pos + 2)
    if end < 0 or end > state.posMax:
        return False
    inner = src[pos + 2 : end]
    if not inner.strip() or "\n" in inner or "[" in inner:
        return False
    if not silent:
        target, _, label = inner.partition("|")
        token = state.push("wikilink", "a", 0)
        token.content = (label or target).strip()
        token.meta = {"target": target.strip()}
    state.pos = end + 2
    return True


def _house_style(state: StateCore) -> None:
    """Give the plugins' tokens the shape the HTML, the CSS and the SVG faces read.

    Task items become ``ul.task-list > li.task[.done]`` with a bare disabled
    checkbox followed by the item's text; display math loses the newlines that
    frame it between the ``$$`` lines.
    """
    for i, token in enumerate(state.tokens):
        if token.type == "math_block":
            token.content = token.content.strip()
        elif token.type == "list_item_open" and token.attrGet("class") == "task-list-item":
            box, *rest = state.tokens[i + 2].children or [Token("html_inline", "", 0)]
            checked = 'checked="checked"' in box.content
            token.attrSet("class", "task done" if checked else "task")
            box.content = '<input type="checkbox" disabled' + (" checked> " if checked else "> ")
            if rest and rest[0].type == "text":
                rest[0].content = rest[0].content.lstrip()
        elif token.attrGet("class") == "contains-task-list":
            token.attrSet("class", "task-list")


def configure(md: MarkdownIt) -> MarkdownIt:
    """Switch on the project's markdown extensions (tables, math, tasks, marks, icons, links)."""
    md.enable(["table", "strikethrough"])
    # No space inside the dollars and no digit after the closing one: "$5 and $6" is money.
    md.use(
        dollarmath_plugin,
        allow_labels=False,
        allow_space=False,
        allow_digits=False,
        allow_blank_lines=True,
        double_inline=True,
    )
    md.use(tasklists_plugin)
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.inline.ruler.before("emphasis", "mark", _mark_rule)
    md.inline.ruler.before("text", "icon", _icon_rule)
    md.core.ruler.after("github-tasklists", "house_style", _house_style)
    # The strikethrough rule asks for this option on every inline run; markdown-it's
    # options mapping answers a missing key by raising and catching KeyError, which
    # was a tenth of drawing a board's text faces. Set, it is a plain lookup.
    md.options["strikethrough_single_tilde"] = False
    return md


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return configure(
        MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    )


def parse(md: str) -> list[Token]:
    """Block tokens of ``md`` as the faces and the sizer read them."""
    return _parser().parse(md or "", {"sources": None})


# --------------------------------------------------------------------- the plan
@attrs.frozen(slots=True)
class Block:
    """One placed block; ``x`` and ``y`` are offsets from the text box's top left.

    kinds: ``text`` (wrapped ``lines`` in ``font`` at ``size``; ``muted`` inside
    quotes), ``marker`` (a list bullet or number, right-aligned at ``x``),
    ``code`` (a fenced listing), ``math`` (a display formula), ``rule``, ``row``
    (a table row: ``cells`` of wrapped lines, ``aligns``, ``head``), ``image``
    (``lines`` holds the alt text, ``src`` the target) and ``quote`` (the bar
    beside a quote).
    """

    kind: str
    x: float
    y: float
    w: float
    h: float
    lines: tuple[str, ...] = ()
    size: float = BODY
    font: _text.FontName = "sans"
    muted: bool = False
    cells: tuple[tuple[str, ...], ...] = ()
    aligns: tuple[str, ...] = ()
    head: bool = False
    src: str = ""

    @property
    def bottom(self) -> float:
        return self.y + self.h

    @property
    def line_height(self) -> float:
        return _text.line_height(self.size)


@attrs.frozen(slots=True)
class Plan:
    blocks: tuple[Block, ...]
    height: float
    widest: float


def inline_text(token: Any) -> str:
    """The text a reader sees in an inline token (markers dropped, icons as glyphs)."""
    parts: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline", "math_inline", "math_inline_double", "wikilink"):
            parts.append(child.content)
        elif child.type == "softbreak":
            parts.append(" ")
        elif child.type == "hardbreak":
            parts.append("\n")
        elif child.type == "image":
            parts.append(f"[{child.content or 'image'}]")
        elif child.type == "icon":
            parts.append(ICONS.get((child.content or "").lower(), FALLBACK))
    return "".join(parts)


def plain_inline(text: str) -> str:
    """Inline markdown reduced to the text a reader sees (markers dropped)."""
    tokens = _parser().parseInline(str(text or ""), {"sources": None})
    return "".join(inline_text(t) for t in tokens) if tokens else ""


def is_number(cell: str) -> bool:
    """True for a cell a table aligns right (an amount, a percentage, a count)."""
    return bool(_NUMBER.match(cell.strip())) if cell.strip() else False


def plan(md: str, width: float, size: float = BODY) -> Plan:
    """Lay ``md`` out at ``width``: the blocks, their total height and the widest line."""
    return _plan(md or "", round(max(width, 40.0), 3), size)


@lru_cache(maxsize=4096)
def _plan(md: str, width: float, size: float) -> Plan:
    out: list[Block] = []
    cy = 0.0
    widest = 0.0
    lists: list[list[Any]] = []  # [ordered, next number]
    indent = 0.0
    quotes: list[tuple[float, float]] = []  # (top, indent) of each open quote
    prefix = ""
    heading: str | None = None
    row: list[str] | None = None
    aligns: list[str] = []
    in_head = False
    started = False
    after_fence = False

    def text_block(s: str, sz: float, font: _text.FontName, muted: bool) -> Block:
        nonlocal widest
        avail = max(width - indent, sz)
        lines = tuple(_text.wrap(s, avail, sz, font)) if s else ("",)
        widest = max(widest, indent + max(_text.text_width(ln, sz, font) for ln in lines))
        return Block(
            "text", indent, cy, avail, len(lines) * _text.line_height(sz), lines, sz, font, muted
        )

    for token in parse(md):
        t = token.type
        if (t.endswith("_open") or t in ("fence", "code_block", "math_block", "hr")) and (
            token.level == 0
        ):
            # one gap between top-level blocks, none after a fence or a $$ block
            if started and not after_fence:
                cy += BLOCK_GAP
            started = True
            after_fence = t in ("fence", "math_block")
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
                prefix = "☑" if "done" in cls else "☐"
            elif lists and lists[-1][0]:
                prefix = f"{lists[-1][1]}."
                lists[-1][1] += 1
            else:
                prefix = "•"
        elif t == "blockquote_open":
            quotes.append((cy, indent))
            indent += QUOTE_INDENT
        elif t == "blockquote_close":
            top, at = quotes.pop()
            indent = at
            out.append(Block("quote", at, top, 3, max(cy - top, 4)))
        elif t == "hr":
            out.append(Block("rule", 0, cy, width, RULE_H))
            cy += RULE_H
        elif t == "math_block":
            formula = token.content.replace("\n", " ")
            widest = max(widest, min(width, _text.text_width(formula, CODE_SIZE, "mono") + 24))
            out.append(
                Block("math", indent, cy, width - indent, MATH_BLOCK, (formula,), CODE_SIZE, "mono")
            )
            cy += MATH_BLOCK
        elif t in ("fence", "code_block"):
            lines = tuple(token.content.rstrip("\n").split("\n"))
            for line in lines:
                widest = max(widest, min(width, _text.text_width(line, CODE_SIZE, "mono") + 24))
            h = len(lines) * _text.line_height(CODE_SIZE) + 2 * FENCE_PAD
            out.append(Block("code", indent, cy, width - indent, h, lines, CODE_SIZE, "mono"))
            cy += h
        elif t == "table_open":
            aligns = []
        elif t == "thead_open":
            in_head = True
        elif t == "thead_close":
            in_head = False
        elif t == "tr_open":
            row = []
        elif t in ("th_open", "td_open") and row is not None and in_head:
            style = str(token.attrGet("style") or "")
            aligns.append("right" if "right" in style else "center" if "center" in style else "")
        elif t == "tr_close" and row is not None:
            block = _row(row, aligns, in_head, indent, cy, width - indent)
            out.append(block)
            cy += block.h
            widest = width
            row = None
        elif t == "inline":
            s = inline_text(token)
            children = token.children or []
            pictures = [c for c in children if c.type == "image"]
            if row is not None:
                row.append(s)
                continue
            if pictures and not heading and all(c.type in ("image", "softbreak") for c in children):
                for picture in pictures:
                    ph = min(IMAGE_MAX_H, (width - indent) / 1.6)
                    alt = picture.content or "image"
                    src = str(picture.attrGet("src") or "")
                    out.append(Block("image", indent, cy, width - indent, ph, (alt,), src=src))
                    cy += ph
                widest = width
                continue
            if heading:
                sz = HEADING_SIZES.get(heading, size)
                block = text_block(s, sz, "sans-bold", False)
                out.append(block)
                cy += block.h + HEADING_GAP
                continue
            if prefix:
                out.append(Block("marker", indent - 4, cy, 0, _text.line_height(size), (prefix,)))
            block = text_block(s, size, "sans", bool(quotes))
            out.append(block)
            cy += block.h + (ITEM_GAP if prefix else 0.0)
            prefix = ""
    height = max(cy, _text.line_height(size))
    return Plan(tuple(out), height, widest)


def _row(cells: list[str], aligns: list[str], head: bool, x: float, y: float, w: float) -> Block:
    """A table row whose cells wrap inside equal columns (at least one 32 px line tall)."""
    n = max(len(cells), 1)
    cw = w / n
    font: _text.FontName = "sans-bold" if head else "sans"
    wrapped = tuple(
        tuple(_text.wrap(c, max(cw - 2 * TABLE_CELL_PAD, TABLE_SIZE), TABLE_SIZE, font)) or ("",)
        for c in cells
    )
    lines = max((len(c) for c in wrapped), default=1)
    lh = _text.line_height(TABLE_SIZE)
    h = max(TABLE_ROW, lines * lh + (TABLE_ROW - lh))
    return Block(
        "row",
        x,
        y,
        w,
        h,
        size=TABLE_SIZE,
        font=font,
        cells=wrapped,
        aligns=tuple(aligns[i] if i < len(aligns) else "" for i in range(n)),
        head=head,
    )
