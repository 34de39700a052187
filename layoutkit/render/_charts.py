"""Charts as inline SVG for documents: one function per ``viz``.

Every chart is a self-contained ``<svg>`` sized by its viewBox and styled by
classes the document CSS defines (series colours ``s0``…``s7``, tones), so a
chart follows the page's light/dark scheme and accent. Text is escaped; label
gutters are measured with the bundled font metrics.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from layoutkit.elements.vocab import ITEM_TONES
from layoutkit.formatting import as_number, date_labels, fmt_num, fmt_value, parse_when
from layoutkit.layout.text import text_width
from layoutkit.render._chart_parts import (
    HEAT_LEVELS,
    Axis,
    Legend,
    Scale,
    axis_break,
    bar_spans,
    bar_width,
    compact,
    donut_centre,
    heat_level,
    label_spot,
    lifted,
    pie_entry,
    ranked_shares,
    ref_label_spots,
    series_points,
    spread_labels,
    stack_sums,
    stacks,
    value_axis,
    worse_tone,
    x_domain,
    x_ticks,
)
from layoutkit.render._safe import esc

W = 640.0
FONT = 12.0
TONES = ITEM_TONES


def _svg(width: float, height: float, body: list[str], label: str) -> str:
    return (
        f'<svg class="chart-svg" viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
        f'aria-label="{esc(label)}" preserveAspectRatio="xMinYMin meet" '
        f'xmlns="http://www.w3.org/2000/svg">{"".join(body)}</svg>'
    )


def _text(x: float, y: float, text: Any, cls: str = "lbl", anchor: str = "start") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" class="{cls}" text-anchor="{anchor}">{esc(text)}</text>'


def _tone(tone: Any) -> str:
    return f"tone-{tone}" if tone in TONES else ""


def _series_points(series: dict) -> list[tuple[float, float]]:
    return series_points(series, keep_missing_x=True)


def _ref_values(refs: list, xs: list[float]) -> list[tuple[str, list[tuple[float, float]]]]:
    out = []
    for ref in refs or []:
        if not isinstance(ref, dict):
            continue
        label = str(ref.get("label") or "")
        value = as_number(ref.get("value"))
        if value is not None and xs:
            out.append((label, [(min(xs), value), (max(xs), value)]))
        elif ref.get("points"):
            pts = _series_points({"points": ref["points"]})
            if pts:
                out.append((label, pts))
    return out


def _legend(labels: list[str], y: float) -> list[str]:
    body = []
    for entry in Legend(tuple(labels), FONT, 14, 16).place(56.0):
        body.append(
            f'<rect x="{entry.x:.1f}" y="{y - 9:.1f}" width="10" height="10" class="s{entry.index % 8}"/>'
        )
        body.append(_text(entry.x + 14, y, entry.label))
    return body


@dataclass(frozen=True)
class _Plot:
    """One x/y chart's data and the scales it is drawn with."""

    viz: Any
    series: list[list[tuple[float, float]]]
    refs: list[tuple[str, list[tuple[float, float]]]]
    stack: bool
    axis: Axis
    sx: Scale
    sy: Scale

    def polyline(self, pts: list[tuple[float, float]]) -> str:
        return " ".join(f"{self.sx(x):.1f},{self.sy(y):.1f}" for x, y in pts)


_TOP, _PLOT_H = 12.0, 220.0


def _plot(viz: Any, data: dict) -> _Plot:
    series = [_series_points(s) for s in data.get("series") or [] if isinstance(s, dict)]
    xs = [x for pts in series for x, _ in pts]
    refs = _ref_values(data.get("refs") or [], xs)
    stack = stacks(viz, data)
    ys = [y for pts in series for _, y in pts] + [y for _, pts in refs for _, y in pts]
    if stack and series:
        ys += list(stack_sums(series).values())
    axis = value_axis(viz, ys, data)
    gutter = axis.gutter(FONT, 12)
    right = W - 16
    xmin, xmax = (min(xs), max(xs)) if xs and viz == "bars" else x_domain(viz, xs)
    if xmax == xmin:
        xmax = xmin + 1
    sx = Scale(xmin, xmax, gutter, right - gutter, band=viz == "bars")
    sy = Scale(axis.lo, axis.hi, _TOP, _PLOT_H, flip=True)
    return _Plot(viz, series, refs, stack, axis, sx, sy)


def _grid(plot: _Plot, data: dict) -> list[str]:
    """Grid lines with their value labels, a break mark at the foot of an axis
    that starts above zero, and the x axis: tick marks and labels thinned so
    none overlaps or leaves the chart."""
    body: list[str] = []
    gutter, right, sy, sx = plot.sx.start, W - 16, plot.sy, plot.sx
    for t, label in zip(plot.axis.ticks, plot.axis.labels, strict=True):
        body.append(
            f'<line x1="{gutter:.1f}" x2="{right:.1f}" y1="{sy(t):.1f}" y2="{sy(t):.1f}" class="grid"/>'
        )
        body.append(_text(gutter - 6, sy(t) + 4, label, "axis", "end"))
    foot = _TOP + _PLOT_H
    if plot.axis.cut:
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in axis_break(gutter, sy(sy.floor())))
        body.append(f'<polyline points="{pts}" class="axis-break" fill="none"/>')
    ticks = x_ticks(plot.viz, data, plot.series, sx.lo, sx.hi)
    spots = [(sx(v), text_width(t, 11)) for v, t in ticks]
    for i, lx, anchor in spread_labels(spots, 0.0, W):
        tx = spots[i][0]
        body.append(
            f'<line x1="{tx:.1f}" x2="{tx:.1f}" y1="{foot:.1f}" y2="{foot + 4:.1f}" class="grid"/>'
        )
        body.append(_text(lx, foot + 16, ticks[i][1], "axis", anchor))
    return body


def _bar_marks(plot: _Plot) -> list[str]:
    sx, sy = plot.sx, plot.sy
    base = sy(sy.floor())
    slot = sx.slot
    bar_w = bar_width(slot, len(plot.series), plot.stack)
    body: list[str] = []
    for si, spans in enumerate(bar_spans(plot.series, plot.stack)):
        for x, y0, y1 in spans:
            if plot.stack:
                y_top, y_bottom = sy(y1), sy(y0)
                bx = sx(x) - bar_w / 2
            else:
                y_top, y_bottom = min(sy(y1), base), max(sy(y1), base)
                bx = sx(x) - slot * 0.35 + si * bar_w
            body.append(
                f'<rect x="{bx:.1f}" y="{y_top:.1f}" width="{max(bar_w - 1, 1):.1f}" '
                f'height="{max(abs(y_bottom - y_top), 0.5):.1f}" class="s{si % 8}"/>'
            )
    return body


def _line_marks(plot: _Plot) -> list[str]:
    body: list[str] = []
    for si, (pts, under) in enumerate(lifted(plot.series, plot.stack, plot.sy.floor())):
        if not pts:
            continue
        line = plot.polyline(pts)
        if plot.viz == "area":
            back = plot.polyline(list(reversed(under)))
            body.append(f'<polygon points="{line} {back}" class="s{si % 8} area"/>')
        body.append(f'<polyline points="{line}" class="ln{si % 8}" fill="none"/>')
    return body


def _point_marks(plot: _Plot) -> list[str]:
    return [
        f'<circle cx="{plot.sx(x):.1f}" cy="{plot.sy(y):.1f}" r="4" class="s{si % 8}"/>'
        for si, pts in enumerate(plot.series)
        for x, y in pts
    ]


_MARKS: dict[Any, Callable[[_Plot], list[str]]] = {
    "bars": _bar_marks,
    "line": _line_marks,
    "area": _line_marks,
}


def _ref_marks(plot: _Plot) -> list[str]:
    sx, sy = plot.sx, plot.sy
    drawn = [[(sx(x), sy(y)) for x, y in pts] for pts in plot.series]
    body: list[str] = []
    for label, pts in plot.refs:
        body.append(f'<polyline points="{plot.polyline(pts)}" class="ref" fill="none"/>')
        if label:
            lw = text_width(label, FONT)
            ends = [(sx(pts[0][0]), sy(pts[0][1])), (sx(pts[-1][0]), sy(pts[-1][1]))]
            spots = ref_label_spots(ends, lw, 5, 14)
            _, base, tx, anchor = label_spot(spots, lw, FONT, drawn)
            body.append(_text(tx, base, label, "ref-lbl", anchor))
    return body


def _xy_chart(payload: dict, data: dict) -> tuple[str, float]:
    viz = payload.get("viz")
    plot = _plot(viz, data)
    body = _grid(plot, data) + _MARKS.get(viz, _point_marks)(plot) + _ref_marks(plot)
    height = _TOP + _PLOT_H + 26
    names = [str(s.get("label") or "") for s in data.get("series") or [] if isinstance(s, dict)]
    if any(names):
        body += _legend(names, height + 6)
        height += 20
    return _svg(W, height, body, payload.get("title") or str(viz)), height


def _unit_groups(rows: list[tuple[dict, str | None]], key: Callable[[dict], list[float]]) -> dict:
    scale: dict[str | None, float] = {}
    for item, unit in rows:
        scale[unit] = max([scale.get(unit, 0.0), *[abs(v) for v in key(item)]])
    return scale


def _item_bars(payload: dict, data: dict) -> str:
    items = [i for i in data.get("items") or [] if isinstance(i, dict)]
    rank = as_number(data.get("rank"))
    share = bool(rank)
    if share:
        items = ranked_shares(items, rank, data.get("unit"))
    unit = data.get("unit")
    rows = [(i, i.get("unit") or unit) for i in items]
    scale = _unit_groups(rows, lambda i: [as_number(i.get("value")) or 0.0])
    label_w = min(
        220.0, 12 + max([text_width(str(i.get("label") or ""), FONT) for i in items] or [0])
    )
    value_w = 90.0
    bar_w = W - label_w - value_w - 16
    body: list[str] = []
    y = 8.0
    for index, (item, u) in enumerate(rows):
        value = as_number(item.get("value")) or 0.0
        top = scale.get(u) or 1.0
        width = (value / top) * bar_w if share is False else (value / max(scale.values())) * bar_w
        body.append(_text(label_w - 8, y + 14, item.get("label") or "", "lbl", "end"))
        cls = _tone(item.get("tone")) or f"s{0 if not share else index % 8}"
        body.append(
            f'<rect x="{label_w:.1f}" y="{y + 3:.1f}" width="{max(abs(width), 1):.1f}" height="16" rx="2" class="{cls}"/>'
        )
        shown = item.get("display") or fmt_value(item.get("value"), u)
        body.append(_text(label_w + max(abs(width), 1) + 6, y + 15, shown, "val"))
        y += 26
    return _svg(W, y + 6, body, payload.get("title") or "bars")


def _arc(cx: float, cy: float, r: float, a0: float, a1: float, inner: float) -> str:
    large = 1 if a1 - a0 > math.pi else 0
    x0, y0 = cx + r * math.sin(a0), cy - r * math.cos(a0)
    x1, y1 = cx + r * math.sin(a1), cy - r * math.cos(a1)
    if inner <= 0:
        return f"M{cx:.1f},{cy:.1f} L{x0:.1f},{y0:.1f} A{r},{r} 0 {large} 1 {x1:.1f},{y1:.1f} Z"
    ix0, iy0 = cx + inner * math.sin(a1), cy - inner * math.cos(a1)
    ix1, iy1 = cx + inner * math.sin(a0), cy - inner * math.cos(a0)
    return (
        f"M{x0:.1f},{y0:.1f} A{r},{r} 0 {large} 1 {x1:.1f},{y1:.1f} "
        f"L{ix0:.1f},{iy0:.1f} A{inner},{inner} 0 {large} 0 {ix1:.1f},{iy1:.1f} Z"
    )


def _pie(payload: dict, data: dict) -> str:
    items = [i for i in data.get("items") or [] if isinstance(i, dict)]
    values = [max(as_number(i.get("value")) or 0.0, 0.0) for i in items]
    total = sum(values) or 1.0
    cx, cy, r = 130.0, 120.0, 100.0
    inner = 58.0 if payload.get("viz") == "donut" else 0.0
    body: list[str] = []
    angle = 0.0
    for i, value in enumerate(values):
        sweep = value / total * 2 * math.pi
        if sweep >= 2 * math.pi - 1e-9:
            sweep = 2 * math.pi - 1e-4
        if sweep > 0:
            cls = _tone(items[i].get("tone")) or f"s{i % 8}"
            body.append(
                f'<path d="{_arc(cx, cy, r, angle, angle + sweep, inner)}" class="{cls} slice"/>'
            )
        angle += sweep
    centre = donut_centre(sum(values), data.get("unit"), items) if inner else None
    if centre:
        body.append(_text(cx, cy + 6, centre, "big", "middle"))
    y = 30.0
    for i, item in enumerate(items):
        cls = _tone(item.get("tone")) or f"s{i % 8}"
        body.append(f'<rect x="270" y="{y - 10:.1f}" width="12" height="12" class="{cls}"/>')
        shown = item.get("display") or fmt_value(
            item.get("value"), item.get("unit") or data.get("unit")
        )
        body.append(
            _text(290, y, pie_entry(item.get("label"), str(shown), values[i] / total * 100))
        )
        y += 22
    return _svg(W, max(250.0, y), body, payload.get("title") or "pie")


def _heat_class(value: float, lo: float, hi: float) -> str:
    return f"heat{heat_level(value, lo, hi)}"


def _heat_legend(x: float, y: float, lo: float, hi: float, unit: Any) -> list[str]:
    """The colour scale: its lowest value, one swatch per step, its highest."""
    low = compact(lo)
    body = [_text(x, y + 10, low, "axis")]
    sx = x + text_width(low, 11) + 6
    for level in range(HEAT_LEVELS):
        body.append(
            f'<rect x="{sx + level * 19:.1f}" y="{y:.1f}" width="18" height="12" rx="2" class="heat{level}"/>'
        )
    body.append(_text(sx + HEAT_LEVELS * 19 + 5, y + 10, compact(hi, unit), "axis"))
    return body


def _calendar(payload: dict, calendar: dict, data_unit: Any = None) -> str:
    """Days as cells in week columns, Monday on top, month names over their first week."""
    parsed = parse_when(calendar.get("from"))
    start = parsed.date() if parsed else date(2000, 1, 3)
    values = [as_number(v) or 0.0 for v in calendar["values"]]
    lo, hi = min(values, default=0.0), max(values, default=1.0)
    offset = start.weekday()
    cols = -(-(len(values) + offset) // 7)
    # week columns share the width; a long range keeps 12 px columns and widens the chart
    cell_w = max(12.0, (W - 44) / max(cols, 1) - 2)
    cell = min(cell_w, 20.0)
    body: list[str] = []
    for d, label in enumerate(("Mon", "", "Wed", "", "Fri", "", "")):
        if label:
            body.append(_text(30, 28 + d * (cell + 2) + cell / 2 + 4, label, "axis", "end"))
    last_month = None
    for i, value in enumerate(values):
        day = start + timedelta(days=i)
        col, row = (i + offset) // 7, (i + offset) % 7
        x, y = 36 + col * (cell_w + 2), 28 + row * (cell + 2)
        if day.month != last_month and row <= 1:
            body.append(_text(x, 18, day.strftime("%b"), "axis"))
            last_month = day.month
        body.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell_w:.1f}" height="{cell:.1f}" rx="2" '
            f'class="{_heat_class(value, lo, hi)}"><title>{day.isoformat()}: {esc(fmt_num(value))}</title></rect>'
        )
    grid_bottom = 28 + 7 * (cell + 2)
    body += _heat_legend(36, grid_bottom + 6, lo, hi, data_unit)
    return _svg(
        max(W, 40 + cols * (cell_w + 2)),
        grid_bottom + 28,
        body,
        payload.get("title") or "calendar",
    )


def _heatmap(payload: dict, data: dict) -> str:
    calendar = data.get("calendar")
    if isinstance(calendar, dict) and isinstance(calendar.get("values"), list):
        return _calendar(payload, calendar, data.get("unit"))
    body: list[str] = []
    xs, ys = data.get("x") or [], data.get("y") or []
    grid = [
        [as_number(v) for v in row] if isinstance(row, list) else []
        for row in data.get("values") or []
    ]
    flat = [v for row in grid for v in row if v is not None]
    lo, hi = min(flat, default=0.0), max(flat, default=1.0)
    gutter = 12 + max([text_width(str(y), FONT) for y in ys] or [0])
    cols = max([len(xs), *[len(r) for r in grid]])
    cell_w = (W - gutter - 8) / max(cols, 1)
    cell_h = 24.0
    for i, label in enumerate(xs):
        body.append(_text(gutter + i * cell_w + cell_w / 2, 14, label, "axis", "middle"))
    for r, row in enumerate(grid):
        y = 22 + r * cell_h
        if r < len(ys):
            body.append(_text(gutter - 6, y + 16, ys[r], "axis", "end"))
        for c, value in enumerate(row):
            if value is None:
                continue
            x = gutter + c * cell_w
            body.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell_w - 2:.1f}" height="{cell_h - 2}" '
                f'class="{_heat_class(value, lo, hi)}"><title>{esc(fmt_num(value))}</title></rect>'
            )
    grid_bottom = 22 + len(grid) * cell_h
    body += _heat_legend(gutter, grid_bottom + 6, lo, hi, data.get("unit"))
    return _svg(W, grid_bottom + 28, body, payload.get("title") or "heatmap")


def _spark(values: list, x: float, y: float, w: float, h: float, cls: str = "ln0") -> str:
    nums = [v for v in (as_number(v) for v in values or []) if v is not None]
    if len(nums) < 2:
        return ""
    lo, hi = min(nums), max(nums)
    span = hi - lo or 1.0
    pts = " ".join(
        f"{x + i / (len(nums) - 1) * w:.1f},{y + h - (v - lo) / span * h:.1f}"
        for i, v in enumerate(nums)
    )
    return f'<polyline points="{pts}" class="{cls} spark" fill="none"/>'


def _stat(payload: dict, data: dict) -> str:
    items = [i for i in data.get("items") or [] if isinstance(i, dict)] or [{}]
    item = items[0]
    body = [
        _text(16, 30, item.get("label") or "", "lbl"),
        _text(
            16,
            86,
            item.get("display")
            or fmt_value(item.get("value"), item.get("unit") or data.get("unit")),
            "hero",
        ),
    ]
    if item.get("delta") is not None:
        body.append(
            _text(
                16,
                116,
                fmt_num(item["delta"]) if not isinstance(item["delta"], str) else item["delta"],
                f"delta {_tone(item.get('tone'))}",
            )
        )
    if item.get("spark"):
        body.append(_spark(item["spark"], 360, 40, 260, 70))
    return _svg(W, 130, body, payload.get("title") or "stat")


def _matrix(payload: dict, data: dict) -> str:
    items = [i for i in data.get("items") or [] if isinstance(i, dict)]
    pts = [(as_number(i.get("x")), as_number(i.get("y"))) for i in items]
    xs = [p[0] for p in pts if p[0] is not None] or [0.0, 1.0]
    ys = [p[1] for p in pts if p[1] is not None] or [0.0, 1.0]
    x0, x1 = min([0.0, *xs]), max([1.0, *xs])
    y0, y1 = min([0.0, *ys]), max([1.0, *ys])
    left, top, size_w, size_h = 40.0, 12.0, W - 60, 300.0
    labels_x, labels_y = data.get("x") or [], data.get("y") or []
    body = [
        f'<rect x="{left}" y="{top}" width="{size_w}" height="{size_h}" class="frame" fill="none"/>',
        f'<line x1="{left + size_w / 2}" x2="{left + size_w / 2}" y1="{top}" y2="{top + size_h}" class="grid"/>',
        f'<line x1="{left}" x2="{left + size_w}" y1="{top + size_h / 2}" y2="{top + size_h / 2}" class="grid"/>',
    ]
    if labels_x:
        body.append(
            _text(
                left + size_w / 2,
                top + size_h + 18,
                " → ".join(map(str, labels_x[:2])),
                "axis",
                "middle",
            )
        )
    if labels_y:
        body.append(
            _text(left - 8, top + size_h / 2, " / ".join(map(str, labels_y[:2])), "axis", "end")
        )
    for item, (px, py) in zip(items, pts, strict=True):
        if px is None or py is None:
            continue
        cx = left + (px - x0) / ((x1 - x0) or 1) * size_w
        cy = top + size_h - (py - y0) / ((y1 - y0) or 1) * size_h
        cls = _tone(item.get("tone")) or "s0"
        body.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="6" class="{cls}"/>')
        # a point in the right half is labelled on its left, so the label stays in the chart
        right = cx > left + size_w / 2
        tx, anchor = (cx - 9, "end") if right else (cx + 9, "start")
        body.append(_text(tx, cy + 4, item.get("label") or "", "lbl", anchor))
    return _svg(W, top + size_h + 26, body, payload.get("title") or "matrix")


def _flow(payload: dict, data: dict) -> str:
    items = [i for i in data.get("items") or [] if isinstance(i, dict)]
    values = [as_number(i.get("value")) for i in items]
    top = max([v for v in values if v is not None] or [1.0]) or 1.0
    body: list[str] = []
    y = 8.0
    for i, item in enumerate(items):
        value = values[i]
        width = (value / top * (W - 40)) if value is not None else W - 40
        x = (W - width) / 2
        cls = _tone(item.get("tone")) or "s0"
        body.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(width, 2):.1f}" height="30" rx="4" class="{cls} stage"/>'
        )
        shown = item.get("display") or fmt_value(
            item.get("value"), item.get("unit") or data.get("unit")
        )
        text = f"{item.get('label') or ''}  {shown}".strip()
        if i > 0 and values[i] is not None and values[i - 1]:
            text += f"  ({values[i] / values[i - 1] * 100:.0f}%)"
        body.append(_text(W / 2, y + 20, text, "stage-lbl", "middle"))
        y += 30
        if i < len(items) - 1:
            body.append(
                f'<path d="M{W / 2 - 6:.1f},{y + 2:.1f} L{W / 2 + 6:.1f},{y + 2:.1f} L{W / 2:.1f},{y + 10:.1f} Z" class="muted-fill"/>'
            )
            y += 14
    return _svg(W, y + 8, body, payload.get("title") or "flow")


def _timeline(payload: dict, data: dict) -> str:
    items = [i for i in data.get("items") or [] if isinstance(i, dict)]
    whens = [parse_when(i.get("when")) for i in items]
    body = [f'<line x1="20" x2="{W - 20}" y1="60" y2="60" class="axis-line"/>']
    if items and all(whens):
        t0 = min(w.timestamp() for w in whens if w)
        t1 = max(w.timestamp() for w in whens if w)
        span = (t1 - t0) or 1.0
        xs = [20 + ((w.timestamp() - t0) / span) * (W - 40) if w else 20 for w in whens]
    else:
        xs = [20 + (i + 0.5) / max(len(items), 1) * (W - 40) for i in range(len(items))]
    dates = date_labels([i.get("when") for i in items])
    for i, (item, x, when) in enumerate(zip(items, xs, dates, strict=True)):
        cls = _tone(item.get("tone")) or "s0"
        body.append(f'<circle cx="{x:.1f}" cy="60" r="6" class="{cls}"/>')
        up = i % 2 == 0
        label = str(item.get("label") or "")
        # the end labels read inwards, so none leaves the chart
        half = max(text_width(label, FONT), text_width(when, 11)) / 2
        anchor, tx = (
            ("start", x - 6)
            if x - half < 4
            else ("end", x + 6)
            if x + half > W - 4
            else ("middle", x)
        )
        body.append(_text(tx, 40 if up else 86, label, "lbl", anchor))
        if when:
            body.append(_text(tx, 24 if up else 102, when, "axis", anchor))
    return _svg(W, 112, body, payload.get("title") or "timeline")


def compare_delta(before: float, after: float, better: str | None) -> dict[str, Any]:
    """Percent change, ratio and tone of one before/after pair."""
    pct = None if before == 0 else (after - before) / abs(before) * 100
    ratio = None if before == 0 or after == 0 else after / before
    if after == before:
        tone = "neutral"
    elif better == "lower":
        tone = "good" if after < before else "bad"
    elif better == "higher":
        tone = "good" if after > before else "bad"
    else:
        tone = "neutral"
    return {"pct": pct, "ratio": ratio, "tone": tone}


def delta_text(pct: float | None, ratio: float | None) -> str:
    parts = []
    if pct is not None:
        parts.append(f"{pct:+.1f}%")
    if ratio is not None:
        parts.append(f"{ratio:.2f}×" if ratio < 10 else f"{ratio:.0f}×")
    return " · ".join(parts) or "n/a"


def _compare(payload: dict, data: dict) -> str:
    items = [i for i in data.get("items") or [] if isinstance(i, dict)]
    unit = data.get("unit")
    better = data.get("better")
    rows = [(i, i.get("unit") or unit) for i in items]
    scale = _unit_groups(
        rows, lambda i: [as_number(i.get("before")) or 0.0, as_number(i.get("after")) or 0.0]
    )
    name_before = data.get("before") or "Before"
    name_after = data.get("after") or "After"
    label_w = min(
        200.0, 12 + max([text_width(str(i.get("label") or ""), FONT) for i in items] or [0])
    )
    chip_w = 150.0
    bar_w = W - label_w - chip_w - 70
    body = [
        f'<rect x="{label_w:.1f}" y="4" width="10" height="10" class="before"/>',
        _text(label_w + 14, 13, name_before, "axis"),
        f'<rect x="{label_w + 24 + text_width(str(name_before), FONT):.1f}" y="4" width="10" height="10" class="after"/>',
        _text(label_w + 38 + text_width(str(name_before), FONT), 13, name_after, "axis"),
    ]
    y = 24.0
    for item, u in rows:
        before = as_number(item.get("before")) or 0.0
        after = as_number(item.get("after")) or 0.0
        top = scale.get(u) or 1.0
        delta = compare_delta(before, after, better)
        tone = item.get("tone") if item.get("tone") in TONES else delta["tone"]
        worse = worse_tone(before, after, better, tone)
        body.append(_text(label_w - 8, y + 20, item.get("label") or "", "lbl", "end"))
        after_cls = f"tone-{worse}" if worse else "after"
        for k, (value, cls) in enumerate(((before, "before"), (after, after_cls))):
            width = max(abs(value) / top * bar_w, 1)
            by = y + 3 + k * 16
            body.append(
                f'<rect x="{label_w:.1f}" y="{by:.1f}" width="{width:.1f}" height="13" rx="2" class="{cls}"/>'
            )
            body.append(_text(label_w + width + 5, by + 11, fmt_value(value, u), "val small"))
        chip = delta_text(delta["pct"], delta["ratio"])
        cx = W - chip_w
        body.append(
            f'<rect x="{cx:.1f}" y="{y + 8:.1f}" width="{chip_w - 8:.1f}" height="20" rx="10" class="chip-bg tone-{tone}"/>'
        )
        body.append(
            _text(cx + (chip_w - 8) / 2, y + 22, chip, f"chip-txt tone-{tone}-txt", "middle")
        )
        if item.get("note"):
            body.append(_text(label_w, y + 48, item["note"], "axis"))
            y += 14
        y += 44
    return _svg(W, y + 4, body, payload.get("title") or "compare")


def chart_svg(payload: dict) -> str:
    """Inline SVG for a chart payload; an unknown or empty viz draws an empty frame."""
    data = payload.get("data") if isinstance(payload.get("data"), dict) else {}
    viz = payload.get("viz")
    if viz in ("line", "area", "scatter") or (viz == "bars" and data.get("series")):
        return _xy_chart(payload, data)[0]
    drawer = {
        "bars": _item_bars,
        "pie": _pie,
        "donut": _pie,
        "heatmap": _heatmap,
        "stat": _stat,
        "matrix": _matrix,
        "flow": _flow,
        "timeline": _timeline,
        "compare": _compare,
    }.get(str(viz))
    if drawer is None:
        return _svg(W, 40, [_text(16, 24, f"no data for {viz}", "axis")], "chart")
    return drawer(payload, data)
