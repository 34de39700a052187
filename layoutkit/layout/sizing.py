"""Card sizes derived from content.

Every size here is a pure function of the kind and the payload, measured
with the bundled font metrics (:mod:`layoutkit.layout.text`), so the same
card gets the same box on every machine.

Defaults where the contract leaves the number open (all in board pixels):

=============  ==========================================================
kind           size
=============  ==========================================================
text           wrapped at 360 (heading role 560, caption 320), shrinks to
               the text down to 120 wide; 16 padding
note           wrapped at 240; callout at 400; checklist 320 wide
shape          160 x 160 (payload w/h honoured)
compare        640 x 400
doc            720 wide, height from its elements (no cap)
page           720 wide, height from the markdown, capped at 1200 (preview)
diagram        payload.geo width/height, scaled to at most 1600 wide, + 16
               padding + 48 band (its top padding included) + what a
               hand-placed geo's face draws around it; without geo 640 x 420
step           screen image 360 wide (narrower for tall screens so the image
               stays under 640 tall) at its true aspect + 40 number band;
               aspect from natW/natH, width/height or imageWidth/imageHeight,
               else 16:10
media, figure  natural aspect at up to 480 wide; PDF media A4 (420 x 594);
               audio 360 x 64; other files a 280 x 64 chip; pictures uploaded
               together share one height (:func:`batch_picture_sizes`)
html           pinned width/height, else natW 1:1 up to 1600 then scaled
               down; without natural size 800 x 600
link           preview 480 x 300 (16:10), phone 300 x 620, widget 360 x 72,
               live 800 x 500; mode from payload.display or payload.mode
board          portal 400 x 260
api            640 x 720
artifact       640 x 480 (payload width/height honoured)
chat           420 x 560
file           PDF 420 x 594 (A4), other files 280 x 64
cluster        empty 240 x 120; section empty 480 x 240 (then from children)
element kinds  laid out as a one-element document 480 wide
=============  ==========================================================
"""

from __future__ import annotations

import math
import re
from datetime import date
from typing import Any

from layoutkit.elements.vocab import FRAME_KINDS
from layoutkit.layout import blocks as _blocks
from layoutkit.layout import stat_face, table_face
from layoutkit.layout import text as _text
from layoutkit.layout.cuts import clipped, left_out, more

Size = tuple[float, float]

PAD = 16.0
BODY = 14.0
MAX_WIDE = 1600.0

TEXT_WIDTH = {"heading": 560.0, "caption": 320.0}
TEXT_DEFAULT_WIDTH = 360.0
NOTE_WIDTH = 240.0
CALLOUT_WIDTH = 400.0
CHECKLIST_WIDTH = 320.0
MIN_TEXT_WIDTH = 120.0
DOC_WIDTH = 720.0
ELEMENT_CARD_WIDTH = 480.0
#: A table card whose width no one set grows past ELEMENT_CARD_WIDTH to fit its
#: columns, up to this; past it cells wrap, then the last columns are left out.
TABLE_MAX_WIDTH = 960.0
PAGE_MAX_HEIGHT = 1200.0
DIAGRAM_DEFAULT: Size = (640.0, 420.0)
DIAGRAM_BAND = 48.0
STEP_IMAGE_WIDTH = 360.0
STEP_IMAGE_MAX_HEIGHT = 640.0
STEP_BAND = 40.0
MEDIA_WIDTH = 480.0
BATCH_MAX_HEIGHT = 640.0
BATCH_MIN_HEIGHT = 160.0
A4: Size = (420.0, 594.0)
CHIP: Size = (280.0, 64.0)
FIXED: dict[str, Size] = {
    "shape": (160.0, 160.0),
    "compare": (640.0, 400.0),
    "board": (400.0, 260.0),
    "api": (640.0, 720.0),
    "artifact": (640.0, 480.0),
    "chat": (420.0, 560.0),
    "cluster": (240.0, 120.0),
    "section": (480.0, 240.0),
}
LINK_SIZES: dict[str, Size] = {
    "preview": (480.0, 300.0),
    "phone": (300.0, 620.0),
    "widget": (360.0, 72.0),
    "live": (800.0, 500.0),
}
HTML_DEFAULT: Size = (800.0, 600.0)


def size_card(kind: str, payload: dict[str, Any] | None, width: float | None = None) -> Size:
    """The (w, h) a card of ``kind`` with ``payload`` takes on a board.

    ``width`` pins the width of text-like cards (they re-wrap to it); other
    kinds ignore it. Unknown kinds are measured as document elements and fall
    back to a small default, so this never raises.
    """
    p = payload if isinstance(payload, dict) else {}
    fn = _CARD_SIZERS.get(kind)
    if fn is not None:
        w, h = fn(p, width)
    elif kind in FIXED:
        w, h = _pinned(p, FIXED[kind])
    else:
        cw = (width or ELEMENT_CARD_WIDTH) - 2 * PAD
        w, h = cw + 2 * PAD, element_height(kind, p, cw) + 2 * PAD
    if kind == "diagram":
        # rounding down would draw the geo a hair under scale 1
        return (math.ceil(w - 1e-9), math.ceil(h - 1e-9))
    if fn is None or kind in ("doc", "stat", "table"):
        # element faces stop drawing at the box's edge: never round their height down
        return (round(w), math.ceil(h - 1e-9))
    return (round(w), round(h))


def is_content_sized(kind: str) -> bool:
    """True when a payload change re-sizes this kind (frames follow their children)."""
    return kind not in FRAME_KINDS


# ------------------------------------------------------------------ text-like
_ATX = re.compile(r"^\s{0,3}#{1,6}(\s+|$)")


def heading_text(md: str) -> str:
    """What a heading card shows: its lines without the ``#`` marks and inline markers
    (a "**Stakes:** high" line under the title reads "Stakes: high")."""
    lines = (_blocks.plain_inline(_ATX.sub("", line).strip()) for line in md.splitlines())
    return "\n".join(line for line in lines if line.strip())


def _text_card(p: dict[str, Any], width: float | None) -> Size:
    role = p.get("role")
    default = TEXT_WIDTH.get(role, TEXT_DEFAULT_WIDTH) if isinstance(role, str) else 360.0
    md = _str(p.get("md")) or _str(p.get("text")) or _str(p.get("title"))
    if role == "heading":
        level = p.get("level") if p.get("level") in (1, 2, 3) else 1
        size = {1: 28.0, 2: 22.0, 3: 18.0}[level]
        return _shrink_wrap(heading_text(md), width or default, size, "sans-bold")
    if role == "caption":
        return _shrink_wrap(md, width or default, 12.0, "sans")
    return _markdown_box(md, width, default)


def _note(p: dict[str, Any], width: float | None) -> Size:
    md = _str(p.get("md")) or _str(p.get("text")) or _str(p.get("title"))
    return _markdown_box(md, width, NOTE_WIDTH, min_h=80.0)


def _callout(p: dict[str, Any], width: float | None) -> Size:
    md = _str(p.get("md")) or _str(p.get("text")) or _str(p.get("body"))
    title = _str(p.get("title"))
    w, h = _markdown_box(md, width, CALLOUT_WIDTH)
    if title:
        h += _text.measure(title, w - 2 * PAD, 16.0, "sans-bold").height + 4
    return (w, h)


def _checklist(p: dict[str, Any], width: float | None) -> Size:
    w = width or CHECKLIST_WIDTH
    cw = w - 2 * PAD - 24
    h = 2 * PAD
    title = _str(p.get("title"))
    if title:
        h += _text.measure(title, cw + 24, 16.0, "sans-bold").height + 8
    items = p.get("items") if isinstance(p.get("items"), list) else []
    for item in items:
        label = (
            item
            if isinstance(item, str)
            else _str((item or {}).get("text"))
            if isinstance(item, dict)
            else ""
        )
        if isinstance(item, dict) and not label:
            label = _str(item.get("label")) or _str(item.get("title"))
        h += max(28.0, _text.measure(label, cw, BODY).height + 8)
    return (w, max(h, 64.0))


def _shrink_wrap(s: str, width: float, size: float, font: _text.FontName) -> Size:
    block = _text.measure(s, width - 2 * PAD, size, font)
    w = max(MIN_TEXT_WIDTH, min(width, block.width + 2 * PAD + 1))
    return (w, block.height + 2 * PAD)


def _markdown_box(md: str, width: float | None, default: float, min_h: float = 0.0) -> Size:
    w = width or _word_room(md, default)
    h, widest = markdown_height(md, w - 2 * PAD)
    if width is None:
        w = max(MIN_TEXT_WIDTH, min(w, widest + 2 * PAD + 1))
    return (w, max(min_h, h + 2 * PAD))


#: An unpinned text-like card widens up to this factor of its default width so its
#: longest word (a path, a URL, an identifier) fits on one line without a cut.
WORD_WIDEN = 1.5


def _word_room(md: str, default: float) -> float:
    """``default``, or wider (up to ``WORD_WIDEN`` times) when a word of ``md`` needs it."""
    if _no_word_needs_room(md, default):
        return default
    words = _blocks.plain_inline(md).split()
    longest = max((_text.text_width(w, BODY) for w in words), default=0.0)
    return max(default, min(default * WORD_WIDEN, longest + 2 * PAD + 1))


def _no_word_needs_room(md: str, default: float) -> bool:
    """True when no word of ``md`` can need more than ``default``, known without
    parsing it: most texts, and the parse was a tenth of sizing a compose.

    Reading inline markdown only drops characters from a word (markers, link
    targets, escapes) or splits it (breaks), and widths add up per character;
    so no read word is wider than the widest raw one. Entities (``&``), icons (``:name:``)
    and images without alt text (``![``) put in characters of their own: texts
    with those are read.
    """
    if "&" in md or ":" in md or "![" in md:
        return False
    longest = max((_text.text_width(w, BODY) for w in md.split()), default=0.0)
    return longest + 2 * PAD + 1 <= default


def markdown_height(md: str, width: float) -> tuple[float, float]:
    """Height of ``md`` laid out at ``width`` and the width of its widest line.

    Both come from the block plan the face draws (:func:`layoutkit.layout.blocks.plan`).
    """
    laid = _blocks.plan(md, width)
    return (laid.height, laid.widest)


# ------------------------------------------------------------------ documents
def _doc(p: dict[str, Any], width: float | None) -> Size:
    w = width or DOC_WIDTH
    cw = w - 4 * PAD
    return (w, doc_height(p, cw) + 4 * PAD)


def doc_height(p: dict[str, Any], cw: float) -> float:
    """Height of a doc element's content at content width ``cw``."""
    h = 0.0
    if _str(p.get("kicker")):
        h += 20.0
    if _str(p.get("title")):
        h += _text.measure(_str(p.get("title")), cw, 28.0, "sans-bold").height + 8
    if _str(p.get("intro")):
        h += _text.measure(_str(p.get("intro")), cw, 16.0).height + 8
    if isinstance(p.get("chips"), list) and p["chips"]:
        labels = [lb for lb in (chip_label(c) for c in p["chips"]) if lb is not None]
        h += chip_rows(labels, cw) * CHIP_ROW_H + 8 if labels else 0.0
    h += elements_height(p.get("elements"), cw)
    return max(h, 40.0)


def elements_height(elements: Any, cw: float) -> float:
    """Stacked height of a list of elements with 16 px between them."""
    if not isinstance(elements, list) or not elements:
        return 0.0
    parts = [
        element_height(_str(e.get("kind")), e.get("payload") or {}, cw)
        for e in elements
        if isinstance(e, dict)
    ]
    return sum(parts) + 16.0 * max(0, len(parts) - 1)


def element_height(kind: str, p: Any, cw: float) -> float:
    """Estimated height of one element of ``kind`` at content width ``cw``."""
    if not isinstance(p, dict):
        p = {}
    fn = _ELEMENT_SIZERS.get(kind)
    return fn(p, cw) if fn else 48.0


def _titled(p: dict[str, Any], cw: float) -> float:
    t = _str(p.get("title"))
    return _text.measure(t, cw, 17.0, "sans-bold").height + 6 if t else 0.0


def _caption(p: dict[str, Any], cw: float) -> float:
    c = _str(p.get("caption"))
    return _text.measure(c, cw, 12.0).height + 6 if c else 0.0


def _el_code(p: dict[str, Any], cw: float) -> float:
    lines = _str(p.get("source")).count("\n") + 1
    return lines * 13.0 * 1.4 + 24 + _caption(p, cw)


def _el_columns(p: dict[str, Any], cw: float) -> float:
    cols = p.get("cols") if isinstance(p.get("cols"), list) else []
    if not cols:
        return 20.0
    ratio = _str(p.get("ratio")) or ":".join(["1"] * len(cols))
    try:
        parts = [float(x) for x in ratio.split(":")]
    except ValueError:
        parts = []
    if len(parts) != len(cols):
        parts = [1.0] * len(cols)
    avail = cw - 24.0 * (len(cols) - 1)
    return max(
        elements_height(
            (c or {}).get("elements") if isinstance(c, dict) else None, avail * f / sum(parts)
        )
        for c, f in zip(cols, parts, strict=True)
    )


def _el_compare(p: dict[str, Any], cw: float) -> float:
    half = (cw - 24.0) / 2
    sides = [p.get("a"), p.get("b")]
    inner = (
        max(
            (elements_height(s.get("elements"), half) + (22.0 if s.get("label") else 0.0))
            for s in sides
            if isinstance(s, dict)
        )
        if any(isinstance(s, dict) for s in sides)
        else 20.0
    )
    return _titled(p, cw) + inner


def _el_section(p: dict[str, Any], cw: float) -> float:
    h = 18.0 if _str(p.get("label")) else 0.0
    if _str(p.get("title")):
        h += _text.measure(_str(p.get("title")), cw, 21.0, "sans-bold").height + 6
    if _str(p.get("note")):
        h += _text.measure(_str(p.get("note")), cw, 13.0).height + 4
    return h + elements_height(p.get("elements"), cw)


def _el_diagram(p: dict[str, Any], cw: float) -> float:
    geo = p.get("geo") if isinstance(p.get("geo"), dict) else {}
    gw, gh = _num(geo.get("width")), _num(geo.get("height"))
    body = gh * min(1.0, cw / gw) if gw and gh else cw * 0.6
    return _titled(p, cw) + body + _caption(p, cw)


# ---------------------------------------------------------- element faces
# Element kinds drawn as cards (and inside doc cards) get simplified faces in
# layoutkit.render; these are the metrics those faces draw with, so the box
# the engine gives such a card is the height its face fills.
FACE_TITLE_SIZE = 13.0
STAT_TILE_H = 52.0
STAT_ROW_H = 58.0
CHART_STAT_H = 62.0
CHART_GAP = 4.0
BAR_ROW_H = 26.0
COMPARE_ROW_H = 34.0
COMPARE_LEGEND_H = 18.0
PIE_DIAMETER = 120.0
PIE_ROW_H = 18.0
PIE_LEGEND_SIZE = 11.0
SERIES_PLOT_MAX = 200.0
SERIES_AXIS_SIZE = 10.0
SERIES_XLABEL_H = 16.0
SERIES_LEGEND_H = 18.0
POINTS_AXIS_H = 64.0
#: A timeline whose items carry dates prints each under (or over) its label.
POINTS_DATE_H = 24.0
POINTS_DATE_SIZE = 9.0
HEAT_CELL_MAX = 28.0
METER_ROW_H = 30.0
LIST_TEXT_SIZE = 12.0
CHIP_H = 18.0
CHIP_ROW_H = 22.0
CHIP_TEXT_SIZE = 10.5
CHIP_GAP = 5.0
TIMELINE_ROW_H = 20.0
TIMELINE_DETAIL_SIZE = 10.5
TIMELINE_DETAIL_H = 15.0
VERDICT_REASON_SIZE = 11.5
VERDICT_REASON_LINES = 4
VERDICT_SIZE = 13.0
VERDICT_MAX_LINES = 3
FINDING_TITLE_SIZE = 12.5


def face_title_height(title: Any) -> float:
    """Height of an element face's one-line title band (0 without a title)."""
    return _text.line_height(FACE_TITLE_SIZE) + 2 if title else 0.0


def table_row_height() -> float:
    """Height of the header row (and of a one-line row) in a table face."""
    return table_face.head_height()


def chip_rows(labels: list[str], w: float) -> int:
    """How many rows of pills a chip face wraps ``labels`` into at width ``w``."""
    if not labels:
        return 0
    rows, cx = 1, 0.0
    for label in labels:
        pill = min(_text.text_width(label, CHIP_TEXT_SIZE) + 14, w)
        if cx + pill > w and cx > 0:
            rows, cx = rows + 1, 0.0
        cx += pill + CHIP_GAP
    return rows


def chip_label(item: Any) -> str | None:
    """The text of one chip (``k  v``), or None for an entry a chip face skips."""
    if not isinstance(item, dict):
        return None
    return f"{item.get('k') or ''}  {item.get('v') or ''}".strip()


def chart_rows(viz: Any, data: dict[str, Any]) -> int:
    """Rows a row-based chart face draws (ranked bars fold the rest into one row)."""
    rows = [i for i in data.get("items") or [] if isinstance(i, dict)]
    rank = data.get("rank")
    if viz == "bars" and _num(rank):
        keep = int(_num(rank))
        return min(keep, len(rows)) + (1 if len(rows) > keep else 0)
    return len(rows)


def chart_area_height(viz: Any, data: Any, w: float) -> float:
    """Height of a chart face's plot area at width ``w`` (title and stat excluded)."""
    data = data if isinstance(data, dict) else {}
    n = chart_rows(viz, data)
    if viz == "compare":
        return COMPARE_LEGEND_H + COMPARE_ROW_H * n if n else 0.0
    if data.get("series") and viz in ("line", "area", "bars", "scatter"):
        plot, xlabels, legend = series_bands(data, w)
        return plot + xlabels + legend
    if viz in ("pie", "donut"):
        return max(pie_diameter(w), n * PIE_ROW_H) if n else 0.0
    if viz == "heatmap":
        return _heat_height(data, w)
    if viz == "matrix":
        return max(90.0, w * 0.5)
    if viz == "timeline":
        dated = any(isinstance(r, dict) and r.get("when") for r in data.get("items") or [])
        return POINTS_AXIS_H + (POINTS_DATE_H if dated else 0.0) if n else 0.0
    return BAR_ROW_H * n


def pie_diameter(w: float) -> float:
    """Diameter of a pie or donut face at width ``w`` (its legend sits to the right)."""
    return min(PIE_DIAMETER, w * 0.4)


def series_bands(data: dict[str, Any], w: float) -> tuple[float, float, float]:
    """(plot, x-label band, legend band) heights of a series chart face at width ``w``."""
    plot = min(max(90.0, w * 0.35), SERIES_PLOT_MAX)
    # an x axis is labelled by its names or, when points come as pairs, by their x values
    pairs = any(
        isinstance(p, (list, tuple))
        for s in data.get("series") or []
        if isinstance(s, dict)
        for p in (s.get("points") or [])
    )
    named_x = isinstance(data.get("x"), list) and data["x"]
    xlabels = SERIES_XLABEL_H if named_x or pairs else 0.0
    named = any(
        isinstance(s, dict) and (s.get("label") or s.get("name")) for s in data.get("series") or []
    )
    return plot, xlabels, SERIES_LEGEND_H if named else 0.0


HEAT_LABEL_SIZE = 10.0
HEAT_BAND_H = 14.0
HEAT_LEGEND_H = 18.0
WEEKDAY_LABELS = ("Mon", "", "Wed", "", "Fri", "", "")


def calendar_offset(calendar: dict[str, Any]) -> int:
    """Weekday (Monday 0) of a calendar heatmap's first day; its first column starts there."""
    raw = calendar.get("from")
    try:
        return date.fromisoformat(str(raw)[:10]).weekday() if raw else 0
    except ValueError:
        return 0


def heat_geometry(data: dict[str, Any], w: float) -> tuple[float, float, float, float, int, int]:
    """(label gutter, label band, cell width, cell height, columns, rows) of a
    heatmap face at width ``w``: the columns share the whole width (the grid
    fills its card), rows are as tall as a cell is wide, up to a cap.

    A calendar runs weeks as columns and weekdays as rows, labelled Mon/Wed/Fri at
    the left and by month on top, as the HTML draws it; a grid takes its ``y``
    labels at the left and its ``x`` labels on top.
    """
    calendar = data.get("calendar") if isinstance(data.get("calendar"), dict) else None
    if calendar and isinstance(calendar.get("values"), list):
        count = len(calendar["values"])
        if not count:
            return (0.0, 0.0, 0.0, 0.0, 0, 0)
        gutter = max(_text.text_width(d, HEAT_LABEL_SIZE) for d in WEEKDAY_LABELS) + 6
        # as many week columns as the days reach into, no empty one after them
        cols, rows, band = -(-(count + calendar_offset(calendar)) // 7), 7, HEAT_BAND_H
    else:
        grid = [r for r in data.get("values") or [] if isinstance(r, list)]
        widths = [len(r) for r in grid]
        if not any(widths):
            return (0.0, 0.0, 0.0, 0.0, 0, 0)
        rows = max(i for i, n in enumerate(widths) if n) + 1
        xs = data.get("x") if isinstance(data.get("x"), list) else []
        ys = data.get("y") if isinstance(data.get("y"), list) else []
        cols = max([*widths, len(xs)])
        labels = [str(v) for v in ys[:rows]]
        gutter = max(_text.text_width(v, HEAT_LABEL_SIZE) for v in labels) + 6 if labels else 0.0
        band = HEAT_BAND_H if xs else 0.0
    cell_w = max((w - gutter) / cols, 2.0)
    return (gutter, band, cell_w, max(min(HEAT_CELL_MAX, cell_w), 2.0), cols, rows)


def _heat_height(data: dict[str, Any], w: float) -> float:
    _, band, _, cell_h, _, rows = heat_geometry(data, w)
    return band + cell_h * rows + HEAT_LEGEND_H if rows else 0.0


def _face_chart(p: dict[str, Any], cw: float) -> float:
    h = face_title_height(p.get("title"))
    data = p.get("data") if isinstance(p.get("data"), dict) else {}
    viz = p.get("viz")
    if viz == "stat" and any(isinstance(i, dict) for i in data.get("items") or []):
        return h + CHART_STAT_H
    area = chart_area_height(viz, data, cw)
    return h + area + CHART_GAP if area >= 20 else h


def _face_stat(p: dict[str, Any], cw: float) -> float:
    h = face_title_height(p.get("title"))
    stats = stat_face.items(p)
    return h + STAT_ROW_H * stat_face.rows(stats, cw) if stats else max(h, 20.0)


def _stat_card(p: dict[str, Any], width: float | None) -> Size:
    stats = stat_face.items(p)
    # whole pixels, so the face's content width is not a hair under what the tiles need
    cw = (
        width - 2 * PAD
        if width
        else math.ceil(stat_face.card_width(stats, ELEMENT_CARD_WIDTH - 2 * PAD))
    )
    return (cw + 2 * PAD, _face_stat(p, cw) + 2 * PAD)


def _face_meter(p: dict[str, Any], cw: float) -> float:
    items = p.get("items") if isinstance(p.get("items"), list) else []
    n = sum(1 for i in items if isinstance(i, dict))
    return face_title_height(p.get("title")) + METER_ROW_H * n or 20.0


def _face_list(p: dict[str, Any], cw: float) -> float:
    items = p.get("items") if isinstance(p.get("items"), list) else []
    return len(items) * _text.line_height(LIST_TEXT_SIZE) or 20.0


def _face_chips(p: dict[str, Any], cw: float) -> float:
    items = p.get("items") if isinstance(p.get("items"), list) else []
    labels = [lb for lb in (chip_label(i) for i in items) if lb is not None]
    return chip_rows(labels, cw) * CHIP_ROW_H or 20.0


def table_views(p: dict[str, Any]) -> list[str]:
    """Names of a table's saved views (the HTML's tabs; a face lists them on its title row)."""
    return [str(v["name"]) for v in p.get("views") or [] if isinstance(v, dict) and v.get("name")]


def _face_table(p: dict[str, Any], cw: float) -> float:
    h = face_title_height(p.get("title") or table_views(p))
    face = table_face.plan(p, cw)
    if face is None:
        return max(h, 20.0)
    # rows kept out of the payload (dataRef) are not drawn; size for a page of them
    body = face.body_height if isinstance(p.get("rows"), list) else 10 * table_row_height()
    foot = table_row_height() if any(face.foot) else 0.0
    more = table_row_height() if table_face.hidden_columns(p, cw) else 0.0
    return h + face.header_height + body + foot + more + _caption(p, cw)


def _table_card(p: dict[str, Any], width: float | None) -> Size:
    """A set width is kept; otherwise the width its columns' widest cells need,
    between the element card width and :data:`TABLE_MAX_WIDTH` (past it, cells
    wrap, and columns that do not fit even wrapped are left out and counted)."""
    if width:
        cw = width - 2 * PAD
    else:
        least = ELEMENT_CARD_WIDTH - 2 * PAD
        most = TABLE_MAX_WIDTH - 2 * PAD
        cw = math.ceil(min(max(table_face.natural_width(p), least), most))
    return (cw + 2 * PAD, _face_table(p, cw) + 2 * PAD)


def timeline_detail(item: dict[str, Any]) -> str:
    """The second line of a timeline face entry: summary (under a title), text, evidence."""
    parts = []
    if item.get("title") and item.get("summary"):
        parts.append(_flat(item["summary"]))
    if _str(item.get("text")):
        parts.append(_flat(item["text"]))
    evidence = item.get("evidence")
    listed = [_flat(e) for e in (evidence if isinstance(evidence, list) else [evidence])]
    if any(listed):
        parts.append("evidence: " + ", ".join(e for e in listed if e))
    return " · ".join(p for p in parts if p)


def _face_timeline(p: dict[str, Any], cw: float) -> float:
    items = [i for i in (p.get("items") or []) if isinstance(i, dict)]
    rows = sum(TIMELINE_ROW_H + (TIMELINE_DETAIL_H if timeline_detail(i) else 0.0) for i in items)
    return face_title_height(p.get("title")) + rows or 20.0


def verdict_lines(p: dict[str, Any], cw: float) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(state lines, reasoning lines) a verdict face draws at content width ``cw``."""
    w = max(cw - 20, VERDICT_SIZE)
    state = _flat(p.get("state")) or _flat(p.get("text"))
    reason = " ".join(_flat(p.get("text")).split()) if _str(p.get("state")) else ""
    head = _cut(state, w, VERDICT_SIZE, "sans-bold", VERDICT_MAX_LINES)
    body = _cut(reason, w, VERDICT_REASON_SIZE, "sans", VERDICT_REASON_LINES) if reason else ()
    return head, body


def _face_verdict(p: dict[str, Any], cw: float) -> float:
    head, body = verdict_lines(p, cw)
    h = len(head) * _text.line_height(VERDICT_SIZE)
    if body:
        h += 2 + len(body) * _text.line_height(VERDICT_REASON_SIZE)
    return h + 16 + 4


FINDING_INSET = 10.0  # text starts right of the severity rail
FINDING_HEAD_SIZE = 10.0
FINDING_HEAD_H = 18.0  # the head row holds the status chip (CHIP_H) beside sev/tag
FINDING_WHERE_SIZE = 10.5
FINDING_TEXT_SIZE = 11.5
FINDING_GAP = 4.0  # above summary, each body paragraph, cause, fix and evidence
FINDING_TITLE_LINES = 2
FINDING_BODY_LINES = 12  # a face, not the document: long bodies end in an ellipsis
FINDING_EVIDENCE_MAX = 4
FINDING_EVIDENCE_LINES = 2
FINDING_BULLET = 12.0

FindingBlock = tuple[str, tuple[str, ...], float]


def finding_blocks(p: dict[str, Any], cw: float) -> list[FindingBlock]:
    """The text blocks a finding face draws at content width ``cw``, top to bottom.

    Each block is ``(role, lines, gap above)``; roles are title, where,
    summary, body, cause, fix, evidence and more (the count of evidence items
    left out). The sizer and the face both read this plan, so they agree.
    """
    w = max(cw - FINDING_INSET - 2, FINDING_TEXT_SIZE)
    out: list[FindingBlock] = []

    def add(role: str, lines: tuple[str, ...], gap: bool = True) -> None:
        out.append((role, lines, FINDING_GAP if gap and out else 0.0))

    title = _str(p.get("title")) or ("" if _str(p.get("summary")) else "finding")
    if title:
        add("title", _cut(title, w, FINDING_TITLE_SIZE, "sans-bold", FINDING_TITLE_LINES))
    if p.get("where"):
        add("where", (" ".join(str(p["where"]).split()),), gap=False)
    if _str(p.get("summary")):
        add("summary", tuple(_text.wrap(_flat(p["summary"]), w, FINDING_TEXT_SIZE, "sans-bold")))
    left = FINDING_BODY_LINES
    for para in re.split(r"\n\s*\n", _str(p.get("body"))):
        if not para.strip() or left <= 0:
            continue
        lines = _cut(_flat(para), w, FINDING_TEXT_SIZE, "sans", left)
        left -= len(lines)
        add("body", lines)
    if _str(p.get("cause")):
        add("cause", tuple(_text.wrap("Cause: " + _flat(p["cause"]), w, FINDING_TEXT_SIZE)))
    if _str(p.get("cost")):
        add("cause", tuple(_text.wrap("Cost: " + _flat(p["cost"]), w, FINDING_TEXT_SIZE)))
    if _str(p.get("fix")):
        add("fix", ("Fix: " + _flat(p["fix"]),))
    trace = p.get("trace") if isinstance(p.get("trace"), dict) else {}
    steps = [
        f"{side}: " + ", ".join(f"{k} {v}" for k, v in trace[side].items() if _flat(str(v)))
        for side in ("before", "after")
        if isinstance(trace.get(side), dict)
    ]
    if steps:
        add("cause", tuple(_text.wrap(" → ".join(steps), w, FINDING_TEXT_SIZE)))
    evidence = p.get("evidence")
    listed = [_flat(e) for e in (evidence if isinstance(evidence, list) else [evidence])]
    listed = [e for e in listed if e]
    for i, item in enumerate(listed[:FINDING_EVIDENCE_MAX]):
        lines = _cut(item, w - FINDING_BULLET, FINDING_TEXT_SIZE, "sans", FINDING_EVIDENCE_LINES)
        add("evidence", lines, gap=i == 0)
    if len(listed) > FINDING_EVIDENCE_MAX:
        left = len(listed) - FINDING_EVIDENCE_MAX
        marker = left_out(f"{left} of {len(listed)} evidence items", f"+{left} more")
        add("more", (marker,), gap=False)
    return out


def finding_block_height(role: str, lines: tuple[str, ...]) -> float:
    """Height of one block of :func:`finding_blocks` (its gap excluded)."""
    size = {"title": FINDING_TITLE_SIZE, "where": FINDING_WHERE_SIZE}.get(role, FINDING_TEXT_SIZE)
    return len(lines) * _text.line_height(size)


def finding_head(p: dict[str, Any]) -> tuple[str, str]:
    """(``sev · tag`` label, status word) of a finding's head row; either may be empty."""
    head = " · ".join(str(p[k]) for k in ("sev", "tag") if p.get(k))
    return head, str(p.get("status") or "")


def _flat(v: Any) -> str:
    return " ".join(v.split()) if isinstance(v, str) else ""


def _cut(s: str, w: float, size: float, font: _text.FontName, most: int) -> tuple[str, ...]:
    lines = _text.wrap(s, w, size, font) or [""]
    if len(lines) > most:
        marker = left_out(f"{more(len(lines) - most, 'line')} of {clipped(s)[11:]}", "…")
        lines = lines[:most]
        lines[-1] = _text.fit_prefix(lines[-1], w, size, font, "…").rstrip() + marker
    return tuple(lines)


def _face_finding(p: dict[str, Any], cw: float) -> float:
    h = 4.0 + (FINDING_HEAD_H if any(finding_head(p)) else 0.0)
    for role, lines, gap in finding_blocks(p, cw):
        h += gap + finding_block_height(role, lines)
    return h + 6


TILE_H = 52.0
REF_H = 28.0
REF_SIZE = 12.0


def ref_label(p: dict[str, Any]) -> str:
    """The words of a ref chip: its label, else its target's title, else where it points."""
    target = p.get("target") if isinstance(p.get("target"), dict) else {}
    where = (
        p.get("section")
        or p.get("page")
        or (f"card {p['card']}" if p.get("card") is not None else "")
    )
    label = str(p.get("label") or target.get("title") or where or "reference")
    if target.get("summary"):
        label += " — " + str(target["summary"])
    return label


def ref_chip_width(p: dict[str, Any]) -> float:
    """Width of a ref chip: the arrow, the label and the chip's rounded ends."""
    return _text.text_width(ref_label(p), REF_SIZE) + 34


def _ref_card(p: dict[str, Any], width: float | None) -> Size:
    # a ref card is its chip: sized to it, not to the 480 px of other element cards
    w = min(width or ELEMENT_CARD_WIDTH, max(MIN_TEXT_WIDTH, ref_chip_width(p) + 2 * PAD))
    return (w, REF_H + 2 * PAD)


GALLERY_COLS = 3
GALLERY_MAX = 6
GALLERY_GAP = 6.0


def _face_prose(p: dict[str, Any], cw: float) -> float:
    return markdown_height(_str(p.get("md")) or _str(p.get("text")), cw)[0]


def _face_figure(p: dict[str, Any], cw: float) -> float:
    return cw * 10 / 16 + 4 + _caption(p, cw)


def _face_gallery(p: dict[str, Any], cw: float) -> float:
    items = p.get("items") if isinstance(p.get("items"), list) else []
    n = min(sum(1 for i in items if isinstance(i, dict)), GALLERY_MAX)
    tile = (cw - GALLERY_GAP * (GALLERY_COLS - 1)) / GALLERY_COLS * 10 / 16
    grid = (n + GALLERY_COLS - 1) // GALLERY_COLS * (tile + GALLERY_GAP) or 20.0
    return grid + _caption(p, cw)


_ELEMENT_SIZERS: dict[str, Any] = {
    "prose": _face_prose,
    "page": _face_prose,
    "text": _face_prose,
    "chart": _face_chart,
    "table": _face_table,
    "list": _face_list,
    "code": _el_code,
    "columns": _el_columns,
    "compare": _el_compare,
    "section": _el_section,
    "gallery": _face_gallery,
    "figure": _face_figure,
    "media": lambda p, cw: TILE_H,
    "diagram": _el_diagram,
    "timeline": _face_timeline,
    "chips": _face_chips,
    "stat": _face_stat,
    "meter": _face_meter,
    "mockup": lambda p, cw: TILE_H,
    "html": lambda p, cw: TILE_H,
    "ref": lambda p, cw: REF_H,
    "doc": doc_height,
    "finding": _face_finding,
    "verdict": _face_verdict,
    "epic": lambda p, cw: TILE_H,
    "goal": lambda p, cw: TILE_H,
    "release": lambda p, cw: TILE_H,
    "milestone": lambda p, cw: TILE_H,
    "deploy": lambda p, cw: TILE_H,
}


# ------------------------------------------------------------- images & embeds
def natural_aspect(p: dict[str, Any]) -> float | None:
    """w/h of the payload's natural image size, when the payload carries one."""
    for wk, hk in (
        ("natW", "natH"),
        ("naturalWidth", "naturalHeight"),
        ("imageWidth", "imageHeight"),
        ("width", "height"),
        ("w", "h"),
    ):
        w, h = _num(p.get(wk)), _num(p.get(hk))
        if w and h:
            return w / h
    return None


def _natural_size(p: dict[str, Any]) -> Size | None:
    for wk, hk in (("natW", "natH"), ("naturalWidth", "naturalHeight"), ("width", "height")):
        w, h = _num(p.get(wk)), _num(p.get(hk))
        if w and h:
            return (w, h)
    return None


def _step(p: dict[str, Any], width: float | None) -> Size:
    aspect = natural_aspect(p) or 1.6
    iw = min(STEP_IMAGE_WIDTH, STEP_IMAGE_MAX_HEIGHT * aspect)
    return (iw, iw / aspect + STEP_BAND)


def _media(p: dict[str, Any], width: float | None) -> Size:
    mime = _str(p.get("mime")).lower()
    src = (_str(p.get("src")) or _str(p.get("ref"))).lower()
    if mime == "application/pdf" or src.endswith(".pdf"):
        return A4
    if mime.startswith("audio/"):
        return (360.0, 64.0)
    is_visual = not mime or mime.startswith("image/") or mime.startswith("video/")
    if not is_visual:
        return CHIP
    return _figure(p, width)


def _figure(p: dict[str, Any], width: float | None) -> Size:
    aspect = natural_aspect(p) or 1.6
    nat = _natural_size(p)
    w = min(MEDIA_WIDTH, nat[0]) if nat else MEDIA_WIDTH
    h = w / aspect
    caption = _str(p.get("caption"))
    if caption:
        h += _text.measure(caption, w - 2 * PAD, 12.0).height + 12
    return (w, h)


def batch_picture_sizes(payloads: list[dict[str, Any]]) -> list[Size | None]:
    """Sizes of pictures placed together (one upload): one height for the whole batch.

    Sized alone, every picture is 480 wide, so a phone screenshot stood twice as
    tall as the desktop one beside it. Together they share the height at which
    the widest picture is 480 wide (at most 640, at least 160 so a panorama in
    the batch does not shrink the rest out of reading); a picture shorter than
    that keeps its natural size (never drawn larger than its pixels), and one
    that would pass 480 wide at the floor is 480 wide. ``None`` for a payload
    that is not a picture with a natural size, and for all when fewer than two
    are: one picture keeps its own size.
    """
    nats = [_natural_size(p) if _is_picture(p) else None for p in payloads]
    known = [n for n in nats if n is not None]
    if len(known) < 2:
        return [None] * len(payloads)
    height = min(BATCH_MAX_HEIGHT, *(MEDIA_WIDTH * h / w for w, h in known))
    height = max(BATCH_MIN_HEIGHT, height)
    out: list[Size | None] = []
    for n in nats:
        if n is None:
            out.append(None)
            continue
        w, h = n
        dh = min(height, h)
        dw = dh * w / h
        if dw > MEDIA_WIDTH:
            dw, dh = MEDIA_WIDTH, MEDIA_WIDTH * h / w
        out.append((dw, dh))
    return out


def _is_picture(p: dict[str, Any]) -> bool:
    return _str(p.get("mime")).lower().startswith("image/")


def _html(p: dict[str, Any], width: float | None) -> Size:
    pw, ph = _num(p.get("width")), _num(p.get("height"))
    if pw and ph:
        return (pw, ph)
    nw, nh = _num(p.get("natW")), _num(p.get("natH"))
    if not (nw and nh):
        return (pw or HTML_DEFAULT[0], ph or HTML_DEFAULT[1])
    scale = min(1.0, MAX_WIDE / nw)
    return (nw * scale, nh * scale)


def _link(p: dict[str, Any], width: float | None) -> Size:
    mode = p.get("display") or p.get("mode") or "preview"
    return LINK_SIZES.get(mode, LINK_SIZES["preview"])


def _file(p: dict[str, Any], width: float | None) -> Size:
    mime = _str(p.get("mime")).lower()
    name = (_str(p.get("name")) or _str(p.get("filename")) or _str(p.get("src"))).lower()
    if mime == "application/pdf" or name.endswith(".pdf") or p.get("pages"):
        return A4
    return CHIP


def _diagram(p: dict[str, Any], width: float | None) -> Size:
    geo = p.get("geo") if isinstance(p.get("geo"), dict) else {}
    gw, gh = _num(geo.get("width")), _num(geo.get("height"))
    if not (gw and gh):
        return DIAGRAM_DEFAULT
    scale = min(1.0, (MAX_WIDE - 2 * PAD) / gw)
    w = gw * scale + 2 * PAD
    # Without its counts band (imported text) the card's top is plain padding.
    top = PAD if p.get("band") is False else DIAGRAM_BAND
    return (w, top + diagram_body_height(p, w - 2 * PAD, gh * scale) + PAD)


#: geo boxes that show the engine placed the whole face, header to footer
DIAGRAM_ENGINE_BOXES = ("header", "legend", "stats", "caption", "footer")
DIAGRAM_OUTSIDE = ("kicker", "title", "subtitle", "stats", "legend", "footer", "caption")
DIAGRAM_INSET = 12.0  # a hand-placed geo's face pads its header and footer this much
DIAGRAM_STATS_H = 60.0
DIAGRAM_LEGEND_H = 22.0
DIAGRAM_TITLE_SIZE = 18.0
DIAGRAM_SUBTITLE_SIZE = 13.0
DIAGRAM_NOTE_SIZE = 11.0  # kicker and footer
DIAGRAM_CAPTION_SIZE = 12.0


def diagram_title(p: dict[str, Any]) -> str:
    """The diagram's title as drawn: none when the payload keeps it but hides it
    (``showTitle: false``, a type name given to imported text)."""
    return "" if p.get("showTitle") is False else _str(p.get("title"))


def diagram_engine_made(p: dict[str, Any]) -> bool:
    """True when the diagram's geo holds its whole face (drawn as placed, nothing around it)."""
    geo = p.get("geo") if isinstance(p.get("geo"), dict) else {}
    outside = (diagram_title(p) if k == "title" else p.get(k) for k in DIAGRAM_OUTSIDE)
    return any(k in geo for k in DIAGRAM_ENGINE_BOXES) or not any(outside)


def diagram_caption_height(caption: str, inner: float) -> float:
    """Height of a diagram face's caption (at most two lines) at width ``inner``."""
    if not caption:
        return 0.0
    lines = len(_text.wrap(caption, max(inner, DIAGRAM_CAPTION_SIZE), DIAGRAM_CAPTION_SIZE))
    return min(max(lines, 1), 2) * _text.line_height(DIAGRAM_CAPTION_SIZE)


def diagram_body_height(p: dict[str, Any], inner: float, geo_h: float) -> float:
    """Height of a diagram face whose geo is drawn ``geo_h`` tall at content width ``inner``.

    An engine-made geo is the whole face; a hand-placed one gets the header,
    stats, legend, footer and caption the face draws around it.
    """
    if diagram_engine_made(p):
        return geo_h
    h = 8.0  # the face's gap above the geo
    if p.get("kicker"):
        h += _text.line_height(DIAGRAM_NOTE_SIZE)
    for text, size, font in (
        (diagram_title(p), DIAGRAM_TITLE_SIZE, "sans-bold"),
        (_str(p.get("subtitle")), DIAGRAM_SUBTITLE_SIZE, "sans"),
    ):
        if text:
            lines = len(_text.wrap(text, max(inner, size), size, font))  # type: ignore[arg-type]
            h += min(max(lines, 1), 2) * _text.line_height(size)
    if any(isinstance(s, dict) for s in p.get("stats") or []):
        h += DIAGRAM_STATS_H
    if any(isinstance(e, dict) for e in p.get("legend") or []):
        h += DIAGRAM_LEGEND_H
    if p.get("footer"):
        h += _text.line_height(DIAGRAM_NOTE_SIZE)
    # the face shows the caption without its markdown markers, never wider than this
    return h + geo_h + diagram_caption_height(_str(p.get("caption")), inner)


def _page(p: dict[str, Any], width: float | None) -> Size:
    w = width or DOC_WIDTH
    h, _ = markdown_height(_str(p.get("md")), w - 4 * PAD)
    return (w, min(PAGE_MAX_HEIGHT, h + 4 * PAD))


def _pinned(p: dict[str, Any], default: Size) -> Size:
    w, h = _num(p.get("width")) or _num(p.get("w")), _num(p.get("height")) or _num(p.get("h"))
    return (w or default[0], h or default[1])


_CARD_SIZERS: dict[str, Any] = {
    "text": _text_card,
    "note": _note,
    "callout": _callout,
    "checklist": _checklist,
    "doc": _doc,
    "page": _page,
    "diagram": _diagram,
    "step": _step,
    "media": _media,
    "figure": _figure,
    "html": _html,
    "link": _link,
    "file": _file,
    "ref": _ref_card,
    "stat": _stat_card,
    "table": _table_card,
}


def _str(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _num(v: Any) -> float:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) and v > 0 else 0.0
