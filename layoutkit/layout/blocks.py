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
from collections.abc import Callable
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


@lru_cache(maxsize=1024)
def parse(md: str) -> tuple[Token, ...]:
    """Block tokens of ``md`` as the faces and the sizer read them. Kept: one text is
    planned at several widths (sized, then drawn), and the walk only reads them."""
    return tuple(_parser().parse(md or "", {"sources": None}))


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
    planner = _Planner(width, size)
    for token in parse(md):
        planner.feed(token)
    return planner.result()


# Top-level tokens that open a block: one gap sits between two of them.
_BLOCK_STARTERS = ("fence", "code_block", "math_block", "hr")
# Blocks drawn flush against the next one (a fence or a $$ block keeps its own padding).
_NO_GAP_AFTER = ("fence", "math_block")


class _Planner:
    """The walk over one document's block tokens: a cursor (``cy``), the open lists,
    quotes and table row, and the blocks placed so far."""

    def __init__(self, width: float, size: float) -> None:
        self.width = width
        self.size = size
        self.out: list[Block] = []
        self.cy = 0.0
        self.widest = 0.0
        self.lists: list[list[Any]] = []  # [ordered, next number]
        self.indent = 0.0
        self.quotes: list[tuple[float, float]] = []  # (top, indent) of each open quote
        self.prefix = ""
        self.heading: str | None = None
        self.row: list[str] | None = None
        self.aligns: list[str] = []
        self.in_head = False
        self.started = False
        self.after_fence = False

    def feed(self, token: Token) -> None:
        t = token.type
        if (t.endswith("_open") or t in _BLOCK_STARTERS) and token.level == 0:
            self._gap(t)
        handler = _HANDLERS.get(t)
        if handler is not None:
            handler(self, token)

    def result(self) -> Plan:
        height = max(self.cy, _text.line_height(self.size))
        return Plan(tuple(self.out), height, self.widest)

    def _gap(self, t: str) -> None:
        # one gap between top-level blocks, none after a fence or a $$ block
        if self.started and not self.after_fence:
            self.cy += BLOCK_GAP
        self.started = True
        self.after_fence = t in _NO_GAP_AFTER

    @property
    def avail(self) -> float:
        return self.width - self.indent

    def _place(self, block: Block, advance: float) -> None:
        self.out.append(block)
        self.cy += advance

    def _text_block(self, s: str, sz: float, font: _text.FontName, muted: bool) -> Block:
        avail = max(self.width - self.indent, sz)
        lines = tuple(_text.wrap(s, avail, sz, font)) if s else ("",)
        line_w = max(_text.text_width(ln, sz, font) for ln in lines)
        self.widest = max(self.widest, self.indent + line_w)
        h = len(lines) * _text.line_height(sz)
        return Block("text", self.indent, self.cy, avail, h, lines, sz, font, muted)

    def _widen_to_mono(self, line: str) -> None:
        code_w = _text.text_width(line, CODE_SIZE, "mono") + 24
        self.widest = max(self.widest, min(self.width, code_w))

    # ---------------------------------------------------------------- headings
    def heading_open(self, token: Token) -> None:
        self.heading = token.tag

    def heading_close(self, token: Token) -> None:
        self.heading = None

    # ------------------------------------------------------------------- lists
    def list_open(self, token: Token) -> None:
        ordered = token.type == "ordered_list_open"
        self.lists.append([ordered, int(token.attrGet("start") or 1)])
        self.indent += LIST_INDENT if len(self.lists) == 1 else NESTED_INDENT

    def list_close(self, token: Token) -> None:
        self.indent -= LIST_INDENT if len(self.lists) == 1 else NESTED_INDENT
        self.lists.pop()

    def list_item_open(self, token: Token) -> None:
        cls = str(token.attrGet("class") or "")
        if "task" in cls:
            self.prefix = "☑" if "done" in cls else "☐"
        elif self.lists and self.lists[-1][0]:
            self.prefix = f"{self.lists[-1][1]}."
            self.lists[-1][1] += 1
        else:
            self.prefix = "•"

    # ------------------------------------------------------------------ quotes
    def blockquote_open(self, token: Token) -> None:
        self.quotes.append((self.cy, self.indent))
        self.indent += QUOTE_INDENT

    def blockquote_close(self, token: Token) -> None:
        top, at = self.quotes.pop()
        self.indent = at
        self.out.append(Block("quote", at, top, 3, max(self.cy - top, 4)))

    # ------------------------------------------------------- rules, math, code
    def hr(self, token: Token) -> None:
        self._place(Block("rule", 0, self.cy, self.width, RULE_H), RULE_H)

    def math_block(self, token: Token) -> None:
        formula = token.content.replace("\n", " ")
        self._widen_to_mono(formula)
        block = Block(
            "math", self.indent, self.cy, self.avail, MATH_BLOCK, (formula,), CODE_SIZE, "mono"
        )
        self._place(block, MATH_BLOCK)

    def code(self, token: Token) -> None:
        lines = tuple(token.content.rstrip("\n").split("\n"))
        for line in lines:
            self._widen_to_mono(line)
        h = len(lines) * _text.line_height(CODE_SIZE) + 2 * FENCE_PAD
        self._place(Block("code", self.indent, self.cy, self.avail, h, lines, CODE_SIZE, "mono"), h)

    # ------------------------------------------------------------------ tables
    def table_open(self, token: Token) -> None:
        self.aligns = []

    def thead_open(self, token: Token) -> None:
        self.in_head = True

    def thead_close(self, token: Token) -> None:
        self.in_head = False

    def tr_open(self, token: Token) -> None:
        self.row = []

    def cell_open(self, token: Token) -> None:
        # the header row's cells carry the column alignment for the whole table
        if self.row is None or not self.in_head:
            return
        style = str(token.attrGet("style") or "")
        self.aligns.append("right" if "right" in style else "center" if "center" in style else "")

    def tr_close(self, token: Token) -> None:
        if self.row is None:
            return
        block = _row(self.row, self.aligns, self.in_head, self.indent, self.cy, self.avail)
        self._place(block, block.h)
        self.widest = self.width
        self.row = None

    # ------------------------------------------------------------ inline runs
    def inline(self, token: Token) -> None:
        s = inline_text(token)
        if self.row is not None:
            self.row.append(s)
        elif _only_pictures(token) and not self.heading:
            self._pictures(token)
        elif self.heading:
            self._heading_text(s, self.heading)
        else:
            self._body_text(s)

    def _pictures(self, token: Token) -> None:
        for picture in token.children or []:
            if picture.type != "image":
                continue
            ph = min(IMAGE_MAX_H, self.avail / 1.6)
            alt = picture.content or "image"
            src = str(picture.attrGet("src") or "")
            self._place(Block("image", self.indent, self.cy, self.avail, ph, (alt,), src=src), ph)
        self.widest = self.width

    def _heading_text(self, s: str, heading: str) -> None:
        sz = HEADING_SIZES.get(heading, self.size)
        block = self._text_block(s, sz, "sans-bold", False)
        self._place(block, block.h + HEADING_GAP)

    def _body_text(self, s: str) -> None:
        if self.prefix:
            marker_h = _text.line_height(self.size)
            self.out.append(Block("marker", self.indent - 4, self.cy, 0, marker_h, (self.prefix,)))
        block = self._text_block(s, self.size, "sans", bool(self.quotes))
        self._place(block, block.h + (ITEM_GAP if self.prefix else 0.0))
        self.prefix = ""


def _only_pictures(token: Token) -> bool:
    """True for a paragraph of images alone (line breaks between them allowed)."""
    children = token.children or []
    has_picture = any(c.type == "image" for c in children)
    return has_picture and all(c.type in ("image", "softbreak") for c in children)


_HANDLERS: dict[str, Callable[[_Planner, Token], None]] = {
    "heading_open": _Planner.heading_open,
    "heading_close": _Planner.heading_close,
    "bullet_list_open": _Planner.list_open,
    "ordered_list_open": _Planner.list_open,
    "bullet_list_close": _Planner.list_close,
    "ordered_list_close": _Planner.list_close,
    "list_item_open": _Planner.list_item_open,
    "blockquote_open": _Planner.blockquote_open,
    "blockquote_close": _Planner.blockquote_close,
    "hr": _Planner.hr,
    "math_block": _Planner.math_block,
    "fence": _Planner.code,
    "code_block": _Planner.code,
    "table_open": _Planner.table_open,
    "thead_open": _Planner.thead_open,
    "thead_close": _Planner.thead_close,
    "tr_open": _Planner.tr_open,
    "th_open": _Planner.cell_open,
    "td_open": _Planner.cell_open,
    "tr_close": _Planner.tr_close,
    "inline": _Planner.inline,
}


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
