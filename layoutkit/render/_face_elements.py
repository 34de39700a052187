"""Simplified faces of document elements, for doc cards and element cards on boards.

A face keeps what identifies the element at a glance (titles, headline
numbers, bars, rows, states) and draws it in a column of a given width; the
caller passes a height budget and gets back the height used.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from layoutkit.elements.vocab import FINDING_STATUS_READING
from layoutkit.formatting import (
    as_number,
    date_labels,
    fmt_num,
    fmt_value,
    fmt_when,
    parse_when,
)
from layoutkit.layout import stat_face, table_face
from layoutkit.layout.blocks import plain_inline
from layoutkit.layout.cuts import left_out, more
from layoutkit.layout.sizing import (
    CHART_GAP,
    CHART_STAT_H,
    CHIP_H,
    COMPARE_LEGEND_H,
    FACE_TITLE_SIZE,
    FINDING_BULLET,
    FINDING_HEAD_H,
    FINDING_HEAD_SIZE,
    FINDING_INSET,
    FINDING_TEXT_SIZE,
    FINDING_TITLE_SIZE,
    FINDING_WHERE_SIZE,
    HEAT_LABEL_SIZE,
    PIE_LEGEND_SIZE,
    PIE_ROW_H,
    POINTS_DATE_SIZE,
    SERIES_AXIS_SIZE,
    STAT_ROW_H,
    STAT_TILE_H,
    TIMELINE_DETAIL_H,
    TIMELINE_DETAIL_SIZE,
    TIMELINE_ROW_H,
    VERDICT_REASON_SIZE,
    WEEKDAY_LABELS,
    calendar_offset,
    chart_area_height,
    finding_block_height,
    finding_blocks,
    finding_head,
    heat_geometry,
    pie_diameter,
    ref_chip_width,
    ref_label,
    series_bands,
    table_views,
    timeline_detail,
    verdict_lines,
)
from layoutkit.layout.text import FontName, line_height, text_width
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
    pie_tail,
    ranked_shares,
    ref_label_spots,
    series_points,
    spread_labels,
    stacks,
    value_axis,
    worse_tone,
    x_domain,
    x_ticks,
)
from layoutkit.render._charts import compare_delta, delta_text
from layoutkit.render._face_text import markdown_face
from layoutkit.render._images import Fit, image_href, missing_label
from layoutkit.render._palette import ACCENT, CARD, FG, LINE, MUTED, SOFT, tone
from layoutkit.render._safe import element_parts
from layoutkit.render._scene import Box, Ellipse, Image, Item, Path, Text, fit_line, text_run

Face = Callable[[dict, float, float, float, float], tuple[list[Item], float]]
SERIES = ("#1c6ae4", "#e8590c", "#2f9e44", "#ae3ec9", "#1098ad", "#f08c00", "#868e96", "#d6336c")


def _title(
    text: Any, x: float, y: float, w: float, size: float = FACE_TITLE_SIZE
) -> tuple[list[Item], float]:
    if not text:
        return [], 0.0
    return [
        Text(x, y, (fit_line(str(text), w, size, "sans-bold"),), size, "sans-bold", FG)
    ], line_height(size) + 2


def _lines(
    texts: list[str],
    x: float,
    y: float,
    w: float,
    budget: float,
    size: float = 12.0,
    fill: str = FG,
) -> tuple[list[Item], float]:
    items: list[Item] = []
    lh = line_height(size)
    # a hair of tolerance: the sizer sums the same line heights in another order
    fit = int((budget + 0.01) // lh)
    shown = texts if len(texts) <= fit else texts[: max(fit - 1, 0)]
    cy = y
    for text in shown:
        items.append(Text(x, cy, (fit_line(text, w, size),), size, "sans", fill))
        cy += lh
    if len(shown) < len(texts) and fit:
        left = len(texts) - len(shown)
        marker = left_out(f"{left} of {len(texts)} items", f"+{left} more")
        items.append(Text(x, cy, (marker,), size, "sans", MUTED))
        cy += lh
    return items, cy - y


def _prose(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    # body size as the sizer measures it (markdown_height), so the face fills its box
    return markdown_face(str(p.get("md") or p.get("text") or ""), x, y, w, budget)


Area = tuple[float, float, float, float]


def _unit_peaks(rows: list[dict], unit: Any, keys: tuple[str, ...]) -> dict[Any, float]:
    """Largest magnitude per unit: bars share a scale only within one unit."""
    peaks: dict[Any, float] = {}
    for row in rows:
        u = row.get("unit") or unit
        for key in keys:
            peaks[u] = max(peaks.get(u, 0.0), abs(as_number(row.get(key)) or 0.0))
    return peaks


def _series_pts(series: dict) -> list[tuple[float, float]]:
    return series_points(series, keep_missing_x=False)


def _legend_row(
    labels: list[str], x: float, y: float, w: float, inks: tuple[str, ...] = SERIES
) -> list[Item]:
    """Swatches and names on one row, as the HTML legend shows them; the
    swatches take ``inks`` in turn (the series colours unless told)."""

    def fit(label: str, lx: float) -> str | None:
        room = x + w - lx - 14
        return fit_line(label, room, SERIES_AXIS_SIZE) if room >= 24 else None

    items: list[Item] = []
    for entry in Legend(tuple(labels), SERIES_AXIS_SIZE, 13, 14).place(x, fit):
        ink = inks[entry.index % len(inks)]
        items.append(Box(entry.x, y + 3, 9, 9, fill=ink, radius=1))
        items.append(Text(entry.x + 13, y, (entry.label,), SERIES_AXIS_SIZE, "sans", FG))
    return items


def _axis_text(x: float, y: float, text: str, anchor: str) -> Text:
    return Text(x, y, (text,), SERIES_AXIS_SIZE, "sans", MUTED, 0.0, anchor)


@dataclass(frozen=True)
class _SeriesPlot:
    """A series face's data, the card area it fills and the scales it is drawn with."""

    viz: Any
    data: dict
    series: list[list[tuple[float, float]]]
    stack: bool
    area: Area
    xlabel_h: float
    legend_h: float
    axis: Axis
    sx: Scale
    sy: Scale

    def line(self, pts: list[tuple[float, float]]) -> tuple[tuple[float, float], ...]:
        return tuple((self.sx(px), self.sy(py)) for px, py in pts)


def _ref_ys(refs: list) -> list[float | None]:
    ys = [as_number(r.get("value")) for r in refs if isinstance(r, dict)]
    ys += [
        py
        for r in refs
        if isinstance(r, dict) and r.get("value") is None
        for _, py in _series_pts({"points": r.get("points")})
    ]
    return ys


def _series_plot(viz: Any, data: dict, a: Area) -> _SeriesPlot | None:
    x, top, w, h = a
    series = [_series_pts(s) for s in data.get("series") or [] if isinstance(s, dict)]
    flat = [p for pts in series for p in pts]
    if not flat:
        return None
    _, xlabel_h, legend_h = series_bands(data, w)
    plot_h = max(h - xlabel_h - legend_h, 20.0)
    stack = stacks(viz, data)
    xs = sorted({p[0] for p in flat})
    ys = [p[1] for p in flat]
    if stack:
        sums = {px: sum(py for pts in series for qx, py in pts if qx == px) for px in xs}
        ys += list(sums.values())
    ys += [v for v in _ref_ys(data.get("refs") or []) if v is not None]
    axis = value_axis(viz, ys, data, 4)
    gutter = axis.gutter(SERIES_AXIS_SIZE, 6)
    half = line_height(SERIES_AXIS_SIZE) / 2
    # tick labels are centred on their lines: keep half a label free above and below
    sy = Scale(axis.lo, axis.hi, top + legend_h + half, max(plot_h - 2 * half, 20.0), flip=True)
    x_lo, x_hi = (xs[0], xs[-1]) if viz == "bars" else x_domain(viz, xs)
    sx = Scale(x_lo, x_hi, x + gutter, max(w - gutter, 20.0), band=viz == "bars")
    return _SeriesPlot(viz, data, series, stack, a, xlabel_h, legend_h, axis, sx, sy)


def _series_axes(plot: _SeriesPlot) -> list[Item]:
    """Grid lines with their tick labels, the baseline and the y axis. An axis
    that starts above zero says so: its foot carries a break mark instead of
    the solid line a zero baseline gets, and the bottom tick is labelled."""
    sx, sy = plot.sx, plot.sy
    px0, pw = sx.start, sx.length
    half = line_height(SERIES_AXIS_SIZE) / 2
    items: list[Item] = []
    for t, label in zip(plot.axis.ticks, plot.axis.labels, strict=True):
        items.append(Path(((px0, sy(t)), (px0 + pw, sy(t))), stroke=SOFT, width=1))
        items.append(_axis_text(px0 - 5, sy(t) - half, label, "end"))
    foot = sy(sy.floor())
    items.append(Path(((px0, foot), (px0 + pw, foot)), stroke=MUTED, width=1))
    items.append(Path(((px0, sy.start), (px0, sy.start + sy.length)), stroke=LINE, width=1))
    if plot.axis.cut:
        items.append(Path(axis_break(px0, foot), stroke=MUTED, width=1.2))
    return items


def _series_xlabels(plot: _SeriesPlot) -> list[Item]:
    """Tick marks and labels under the plot: the ``x`` names (dates read as
    dates) or, for numeric x, round values; thinned so none overlaps and the
    last one stays inside the card."""
    x, _, w, _ = plot.area
    if not plot.xlabel_h:
        return []
    sx, sy = plot.sx, plot.sy
    ticks = [
        (v, fit_line(t, 120, SERIES_AXIS_SIZE))
        for v, t in x_ticks(plot.viz, plot.data, plot.series, sx.lo, sx.hi)
    ]
    spots = [(sx(v), text_width(t, SERIES_AXIS_SIZE)) for v, t in ticks]
    foot = sy.start + sy.length
    items: list[Item] = []
    for i, lx, anchor in spread_labels(spots, x, x + w):
        tx = spots[i][0]
        items.append(Path(((tx, foot), (tx, foot + 3)), stroke=MUTED, width=1))
        items.append(_axis_text(lx, foot + 3, ticks[i][1], anchor))
    return items


def _series_bars(plot: _SeriesPlot) -> list[Item]:
    sx, sy = plot.sx, plot.sy
    slot = sx.slot
    bar = bar_width(slot, len(plot.series), plot.stack)
    items: list[Item] = []
    for si, spans in enumerate(bar_spans(plot.series, plot.stack)):
        for px, y0, y1 in spans:
            left = sx(px) - slot * 0.35 + (0 if plot.stack else si * bar)
            # negative values hang below the zero line
            y_top, y_bottom = sy(y1), sy(y0)
            items.append(
                Box(
                    left,
                    min(y_top, y_bottom),
                    max(bar - 1, 1),
                    max(abs(y_bottom - y_top), 0.5),
                    fill=SERIES[si % 8],
                )
            )
    return items


#: An area's fill over its series colour: light enough that the lines, the grid and
#: a second area beneath stay readable (the doc renderer's ``.area`` opacity).
AREA_ALPHA = "40"


def _series_areas(plot: _SeriesPlot) -> list[Item]:
    """Each area series filled down to the series under it (stacked) or to the
    axis floor, all drawn before any line so no fill covers a line."""
    floor = plot.sy.floor()
    items: list[Item] = []
    for si, (pts, under) in enumerate(lifted(plot.series, plot.stack, floor)):
        if len(pts) >= 2:
            outline = plot.line(pts) + plot.line(list(reversed(under)))
            fill = SERIES[si % 8] + AREA_ALPHA
            items.append(Path(outline, stroke=None, width=0, closed=True, fill=fill))
    return items


def _series_lines(plot: _SeriesPlot) -> list[Item]:
    items: list[Item] = _series_areas(plot) if plot.viz == "area" else []
    for si, (pts, _) in enumerate(lifted(plot.series, plot.stack, 0.0)):
        color = SERIES[si % 8]
        if plot.viz == "scatter":
            items.extend(Ellipse(plot.sx(px) - 3, plot.sy(py) - 3, 6, 6, color) for px, py in pts)
        elif len(pts) >= 2:
            items.append(Path(plot.line(pts), stroke=color, width=2))
    return items


def _ref_points(ref: dict, plot: _SeriesPlot) -> list[tuple[float, float]]:
    """A reference line's points inside the plot, clamped to the value axis."""
    x0, x1 = plot.sx.lo, plot.sx.hi
    value = as_number(ref.get("value"))
    if value is not None:
        pts = [(x0, value), (x1, value)]
    else:
        pts = [p for p in _series_pts({"points": ref.get("points")}) if x0 <= p[0] <= x1]
    lo, hi = plot.axis.lo, plot.axis.hi
    return [(px, min(max(py, lo), hi)) for px, py in pts]


def _series_refs(plot: _SeriesPlot) -> list[Item]:
    """Dashed reference lines, each label where it covers no series line."""
    lines = [list(plot.line(pts)) for pts in plot.series]
    lh = line_height(SERIES_AXIS_SIZE)
    items: list[Item] = []
    for ref in plot.data.get("refs") or []:
        if not isinstance(ref, dict):
            continue
        pts = _ref_points(ref, plot)
        if len(pts) < 2:
            continue
        ref_line = plot.line(pts)
        items.append(Path(ref_line, stroke=MUTED, width=1, dash=(4.0, 3.0)))
        if ref.get("label"):
            label = fit_line(str(ref["label"]), plot.sx.length / 2, SERIES_AXIS_SIZE)
            lw = text_width(label, SERIES_AXIS_SIZE)
            spots = ref_label_spots(ref_line, lw, 3, 3, lh)
            _, base, tx, anchor = label_spot(spots, lw, SERIES_AXIS_SIZE, lines)
            items.append(_axis_text(tx, base - lh, label, anchor))
    return items


def _series_legend(plot: _SeriesPlot) -> list[Item]:
    if not plot.legend_h:
        return []
    x, top, w, _ = plot.area
    raw = [s for s in plot.data.get("series") or [] if isinstance(s, dict)]
    names = [str(s.get("label") or s.get("name") or "") for s in raw]
    return _legend_row(names, x, top, w)


def _series_face(viz: Any, data: dict, a: Area) -> list[Item]:
    """Axes with ticks and labels, a zero baseline, the series, refs and a legend."""
    plot = _series_plot(viz, data, a)
    if plot is None:
        return []
    marks = _series_bars if viz == "bars" else _series_lines
    return (
        _series_legend(plot)
        + _series_axes(plot)
        + _series_xlabels(plot)
        + marks(plot)
        + _series_refs(plot)
    )


def _bars_face(viz: Any, data: dict, a: Area, rows: list[dict]) -> list[Item]:
    """Label, bar and the bar's value (with its unit) just past its end: the
    value column is as wide as the widest value, the bars take the rest."""
    x, top, w, h = a
    rank = as_number(data.get("rank"))
    if viz == "bars" and rank:
        rows = ranked_shares(rows, rank, data.get("unit"))
    unit = data.get("unit")
    peaks = _unit_peaks(rows, unit, ("value",))
    row_h = max(16.0, min(26.0, h / max(len(rows), 1)))
    shown = [
        fit_line(
            str(r.get("display") or fmt_value(r.get("value"), r.get("unit") or unit)), w * 0.4, 10
        )
        for r in rows
    ]
    value_w = max([text_width(t, 10) for t in shown] or [0.0]) + 6
    bar_x = x + w * 0.32
    bar_room = max(x + w - value_w - bar_x, 10.0)
    items: list[Item] = []
    for i, row in enumerate(rows):
        ry = top + i * row_h
        if ry + 14 > top + h:
            break
        value = as_number(row.get("value"))
        items.append(
            Text(x, ry, (fit_line(str(row.get("label") or ""), w * 0.3, 11),), 11, "sans", FG)
        )
        bar = 0.0
        if value is not None:
            peak = peaks.get(row.get("unit") or unit) or 1.0
            color = (
                tone(row["tone"])[0] if row.get("tone") else SERIES[i % 8 if viz == "flow" else 0]
            )
            bar = max(abs(value) / peak * bar_room, 1)
            items.append(Box(bar_x, ry + 2, bar, min(row_h - 6, 12), fill=color, radius=2))
        items.append(Text(bar_x + bar + 6, ry + 1, (shown[i],), 10, "sans", FG))
    return items


_BEFORE_INK = "#adb5bd"


def _compare_face(data: dict, a: Area, rows: list[dict]) -> list[Item]:
    """A legend naming before and after, then per row: label (and note), the
    two bars on their unit's scale with their values, and the delta chip. An
    after bar that got worse wears the chip's colour."""
    x, top, w, h = a
    unit = data.get("unit")
    better = data.get("better")
    peaks = _unit_peaks(rows, unit, ("before", "after"))
    names = (str(data.get("before") or "Before"), str(data.get("after") or "After"))
    items = _legend_row(list(names), x + w * 0.28, top, w * 0.72, (_BEFORE_INK, ACCENT))
    top += COMPARE_LEGEND_H
    h -= COMPARE_LEGEND_H
    row_h = max(22.0, min(34.0, h / max(len(rows), 1)))
    pairs = [
        (as_number(r.get("before")) or 0.0, as_number(r.get("after")) or 0.0, r.get("unit") or unit)
        for r in rows
    ]
    texts = [(fmt_value(b, u), fmt_value(af, u)) for b, af, u in pairs]
    deltas = [compare_delta(b, af, better) for b, af, _ in pairs]
    chips = [_chip_text(d, w * 0.4) for d in deltas]
    chip_w = max([text_width(c, 10, "sans-bold") for c in chips] or [0.0]) + 8
    value_w = max([text_width(t, 9) for pair in texts for t in pair] or [0.0]) + 6
    bar_x = x + w * 0.28
    bar_room = max(x + w - chip_w - value_w - bar_x, 10.0)
    for i, item in enumerate(rows):
        ry = top + i * row_h
        if ry + 20 > top + h:
            break
        before, after, u = pairs[i]
        ink_tone = item.get("tone") if item.get("tone") else deltas[i]["tone"]
        peak = peaks.get(u) or 1.0
        items.append(
            Text(x, ry + 2, (fit_line(str(item.get("label") or ""), w * 0.26, 11),), 11, "sans", FG)
        )
        worse = worse_tone(before, after, better, ink_tone)
        inks = (_BEFORE_INK, tone(worse)[0] if worse else ACCENT)
        for k, value in enumerate((before, after)):
            bw = max(abs(value) / peak * bar_room, 1)
            by = ry + 2 + k * 11
            items.append(Box(bar_x, by, bw, 9, fill=inks[k], radius=1))
            items.append(Text(bar_x + bw + 4, by - 1.5, (texts[i][k],), 9, "sans", MUTED))
        if item.get("note"):
            note = fit_line(str(item["note"]), w * 0.26, 9.5)
            items.append(Text(x, ry + 17, (note,), 9.5, "sans", MUTED))
        ink = tone(ink_tone)[0]
        items.append(Text(x + w, ry + 5, (chips[i],), 10, "sans-bold", ink, 0.0, "end"))
    return items


def _chip_text(delta: dict, room: float) -> str:
    """A delta chip's text whole: percent and ratio, the percent alone when both
    do not fit, cut only when even that does not."""
    full = delta_text(delta["pct"], delta["ratio"])
    if text_width(full, 10, "sans-bold") <= room:
        return full
    return fit_line(delta_text(delta["pct"], None), room, 10, "sans-bold")


def _wedge(
    cx: float, cy: float, r: float, a0: float, a1: float, inner: float
) -> tuple[tuple[float, float], ...]:
    """A pie slice (or a donut's ring segment) as a polygon, clockwise from 12 o'clock."""
    steps = max(2, int((a1 - a0) / (math.pi / 36)) + 1)
    angles = [a0 + (a1 - a0) * i / steps for i in range(steps + 1)]
    outer = [(cx + r * math.sin(t), cy - r * math.cos(t)) for t in angles]
    if inner <= 0:
        return ((cx, cy), *outer)
    ring = [(cx + inner * math.sin(t), cy - inner * math.cos(t)) for t in reversed(angles)]
    return (*outer, *ring)


def _slice_color(rows: list[dict], i: int) -> str:
    return tone(rows[i]["tone"])[0] if rows[i].get("tone") else SERIES[i % 8]


def _pie_wedges(
    values: list[float], total: float, rows: list[dict], disc: tuple[float, float, float, float]
) -> list[Item]:
    """One slice per value, clockwise from 12 o'clock; disc is (cx, cy, r, inner)."""
    cx, cy, r, inner = disc
    items: list[Item] = []
    angle = 0.0
    for i, value in enumerate(values):
        sweep = min(value / total * 2 * math.pi, 2 * math.pi - 1e-4)
        if sweep <= 0:
            continue
        wedge = _wedge(cx, cy, r, angle, angle + sweep, inner)
        items.append(Path(wedge, stroke=CARD, width=1, closed=True, fill=_slice_color(rows, i)))
        angle += sweep
    return items


def _pie_legend(
    values: list[float], total: float, data: dict, rows: list[dict], lx: float, a: Area
) -> list[Item]:
    """Swatch, label, value and share of each slice, as many rows as fit."""
    x, top, w, h = a
    items: list[Item] = []
    for i, row in enumerate(rows):
        ry = top + i * PIE_ROW_H
        if ry + PIE_ROW_H > top + h + 0.01:
            break
        unit = row.get("unit") or data.get("unit")
        room = x + w - lx - 15
        share = values[i] / total * 100
        label = pie_entry(
            row.get("label"), str(row.get("display") or fmt_value(row.get("value"), unit)), share
        )
        if text_width(label, PIE_LEGEND_SIZE) > room:
            label = _short_pie_entry(row, unit, share, room)
        items.append(Box(lx, ry + 3, 10, 10, fill=_slice_color(rows, i), radius=2))
        items.append(Text(lx + 15, ry, (fit_line(label, room, PIE_LEGEND_SIZE),), PIE_LEGEND_SIZE))
    return items


def _short_pie_entry(row: dict, unit: Any, share: float, room: float) -> str:
    """A legend row that keeps its numbers whole in a narrow card: a shorter
    value, then no share, and only then a shortened name."""
    name = str(row.get("label") or "")
    value = str(row.get("display") or compact(row.get("value"), unit))
    tails = (pie_tail(value, share), f" — {value}")
    for tail in tails:
        if text_width(name + tail, PIE_LEGEND_SIZE) <= room:
            return name + tail
    name_room = room - text_width(tails[-1], PIE_LEGEND_SIZE)
    return (fit_line(name, name_room, PIE_LEGEND_SIZE) if name_room > 12 else "") + tails[-1]


def _pie_face(viz: Any, data: dict, a: Area, rows: list[dict]) -> list[Item]:
    """A pie or donut with a swatch legend (label, value, share) to its right."""
    x, top, w, _ = a
    values = [max(as_number(r.get("value")) or 0.0, 0.0) for r in rows]
    total = sum(values) or 1.0
    d = pie_diameter(w)
    r = d / 2
    cx, cy = x + r, top + r
    inner = r * 0.58 if viz == "donut" else 0.0
    items = _pie_wedges(values, total, rows, (cx, cy, r, inner))
    centre = donut_centre(sum(values), data.get("unit"), rows) if inner else None
    # the hole says the total whole or nothing: a cut-off number is worse than none
    size = next(
        (z for z in (12.0, 10.0, 8.5) if text_width(centre or "", z, "sans-bold") <= inner * 1.7),
        None,
    )
    if centre and size:
        items.append(
            Text(cx, cy - line_height(size) / 2, (centre,), size, "sans-bold", FG, 0.0, "middle")
        )
    return items + _pie_legend(values, total, data, rows, x + d + 16, a)


HeatCell = tuple[float, float, float]


@dataclass(frozen=True)
class _HeatGrid:
    """Where a heatmap's cells start and how large they are; labels sit in the
    gutter at the left and the band on top, the colour scale under the grid."""

    top: float
    left: float
    grid_top: float
    cw: float
    ch: float
    gutter: float

    def label(self, tx: float, ty: float, text: str, anchor: Any = "start") -> Text:
        shown = fit_line(text, max(self.gutter - 6, self.cw * 3), HEAT_LABEL_SIZE)
        return Text(tx, ty, (shown,), HEAT_LABEL_SIZE, "sans", MUTED, 0.0, anchor)

    def row_label(self, r: int, text: str) -> Text:
        ly = self.grid_top + r * self.ch + (self.ch - line_height(HEAT_LABEL_SIZE)) / 2
        return self.label(self.left - 6, ly, text, "end")


def _calendar_cells(calendar: dict, g: _HeatGrid) -> tuple[list[HeatCell], list[Item]]:
    """A calendar's days in week columns, weekday names at the left, months on top."""
    values = [as_number(v) or 0.0 for v in calendar["values"]]
    offset = calendar_offset(calendar)
    cells = [((i + offset) // 7, (i + offset) % 7, v) for i, v in enumerate(values)]
    items: list[Item] = [g.row_label(d, name) for d, name in enumerate(WEEKDAY_LABELS) if name]
    when = parse_when(calendar.get("from"))
    last = None
    last_x = -1e9
    for i in range(len(values)):
        day = (when + timedelta(days=i)) if when else None
        col, row = (i + offset) // 7, (i + offset) % 7
        # a month is named over its first week column, unless the last name is in the way
        if day and day.month != last and row <= 1 and g.left + col * g.cw >= last_x:
            items.append(g.label(g.left + col * g.cw, g.top, day.strftime("%b")))
            last = day.month
            last_x = g.left + col * g.cw + text_width(day.strftime("%b"), HEAT_LABEL_SIZE) + 4
    return cells, items


def _matrix_cells(data: dict, g: _HeatGrid, rows: int) -> tuple[list[HeatCell], list[Item]]:
    """A value grid's cells, y names at the left and (thinned) x names on top."""
    cells = [
        (c, r, as_number(v) or 0.0)
        for r, row in enumerate(data.get("values") or [])
        if isinstance(row, list)
        for c, v in enumerate(row)
    ]
    ys = data.get("y") if isinstance(data.get("y"), list) else []
    items: list[Item] = [g.row_label(r, str(name)) for r, name in enumerate(ys[:rows])]
    xs = data.get("x") if isinstance(data.get("x"), list) else []
    every = max(1, math.ceil(24 / g.cw)) if g.cw < 24 else 1
    for c, name in enumerate(xs):
        if c % every == 0:
            items.append(g.label(g.left + c * g.cw + g.cw / 2, g.top, str(name), "middle"))
    return cells, items


def _heat_ink(level: int) -> str:
    """The accent, more opaque at each step of the colour scale."""
    alpha = int(30 + 225 * level / (HEAT_LEVELS - 1))
    return f"#1c6ae4{alpha:02x}"


def _heat_boxes(cells: list[HeatCell], g: _HeatGrid, lo: float, hi: float) -> list[Item]:
    """One box per cell in the ink of its step of the colour scale."""
    return [
        Box(
            g.left + c * g.cw,
            g.grid_top + r * g.ch,
            g.cw - 1,
            g.ch - 1,
            fill=_heat_ink(heat_level(v, lo, hi)),
            radius=1.5,
        )
        for c, r, v in cells
    ]


def _heat_legend(g: _HeatGrid, y: float, lo: float, hi: float, unit: Any) -> list[Item]:
    """The colour scale under the grid: its lowest value, one swatch per step, its highest."""
    low, high = compact(lo), compact(hi, unit)
    items: list[Item] = [g.label(g.left, y, low)]
    sx = g.left + text_width(low, HEAT_LABEL_SIZE) + 5
    for level in range(HEAT_LEVELS):
        items.append(Box(sx + level * 17, y + 2, 16, 9, fill=_heat_ink(level), radius=1.5))
    items.append(g.label(sx + HEAT_LEVELS * 17 + 4, y, high))
    return items


def _heat_face(data: dict, a: Area) -> list[Item]:
    """Cells with their row labels at the left, column (or month) labels on top
    and the colour scale with its values underneath."""
    x, top, w, _ = a
    gutter, band, cw, ch, _, rows = heat_geometry(data, w)
    if not rows:
        return []
    g = _HeatGrid(top, x + gutter, top + band, cw, ch, gutter)
    calendar = data.get("calendar") if isinstance(data.get("calendar"), dict) else None
    if calendar and isinstance(calendar.get("values"), list):
        cells, items = _calendar_cells(calendar, g)
    else:
        cells, items = _matrix_cells(data, g, rows)
    if not cells:
        return items
    lo, hi = min(v for _, _, v in cells), max(v for _, _, v in cells)
    legend_y = g.grid_top + rows * ch + 4
    return (
        items + _heat_boxes(cells, g, lo, hi) + _heat_legend(g, legend_y, lo, hi, data.get("unit"))
    )


def _matrix_points(rows: list[dict], field: Area) -> list[Item]:
    """Each item with x and y as a dot on the field, its label beside it."""
    fx, top, fw, fh = field
    pts = [(as_number(r.get("x")), as_number(r.get("y"))) for r in rows]
    xs = [p[0] for p in pts if p[0] is not None] or [0.0, 1.0]
    ys = [p[1] for p in pts if p[1] is not None] or [0.0, 1.0]
    x0, x1, y0, y1 = min(0.0, *xs), max(1.0, *xs), min(0.0, *ys), max(1.0, *ys)
    items: list[Item] = []
    for row, (px, py) in zip(rows, pts, strict=True):
        if px is None or py is None:
            continue
        cx = fx + 8 + (px - x0) / ((x1 - x0) or 1) * (fw - 16)
        cy = top + fh - 8 - (py - y0) / ((y1 - y0) or 1) * (fh - 16)
        ink = tone(row["tone"])[0] if row.get("tone") else ACCENT
        items.append(Ellipse(cx - 4, cy - 4, 8, 8, ink))
        label = fit_line(str(row.get("label") or ""), fw / 3, 10)
        # a point in the right half is labelled on its left, so the label stays in the field
        right = cx > fx + fw / 2
        tx, anchor = (cx - 7, "end") if right else (cx + 7, "start")
        items.append(Text(tx, cy - line_height(10) / 2, (label,), 10, "sans", FG, 0.0, anchor))
    return items


def _matrix_face(data: dict, a: Area, rows: list[dict]) -> list[Item]:
    """Items on a 2x2 field, with the HTML's axis captions (x under it, y at its left)."""
    x, top, w, h = a
    labels_x = [str(v) for v in (data.get("x") or [])[:2]]
    labels_y = [str(v) for v in (data.get("y") or [])[:2]]
    ycap = " / ".join(labels_y)
    gutter = text_width(ycap, 10) + 8 if ycap else 0.0
    band = line_height(10) + 2 if labels_x else 0.0
    fx, fw, fh = x + gutter, max(w - gutter, 20.0), max(h - band, 20.0)
    items: list[Item] = [
        Box(fx, top, fw, fh, stroke=LINE, width=1),
        Path(((fx + fw / 2, top), (fx + fw / 2, top + fh)), stroke=LINE, width=1),
        Path(((fx, top + fh / 2), (fx + fw, top + fh / 2)), stroke=LINE, width=1),
    ]
    if labels_x:
        cap = fit_line(" → ".join(labels_x), fw, 10)
        items.append(Text(fx + fw / 2, top + fh + 2, (cap,), 10, "sans", MUTED, 0.0, "middle"))
    if ycap:
        y_mid = top + fh / 2 - line_height(10) / 2
        items.append(Text(x + gutter - 8, y_mid, (ycap,), 10, "sans", MUTED, 0.0, "end"))
    return items + _matrix_points(rows, (fx, top, fw, fh))


def _points_face(viz: Any, a: Area, rows: list[dict]) -> list[Item]:
    """timeline: items on one axis."""
    x, top, w, h = a
    items: list[Item] = []
    whens = [parse_when(r.get("when")) for r in rows]
    mid = top + min(h / 2, 40)
    items.append(Path(((x, mid), (x + w, mid)), stroke=LINE, width=2))
    if rows and all(whens):
        t0 = min(t.timestamp() for t in whens if t)
        span = (max(t.timestamp() for t in whens if t) - t0) or 1.0
        xs = [x + 6 + ((t.timestamp() - t0) / span) * (w - 12) for t in whens if t]
    else:
        xs = [x + (i + 0.5) / max(len(rows), 1) * w for i in range(len(rows))]
    dates = date_labels([r.get("when") for r in rows])
    for i, (row, px, when) in enumerate(zip(rows, xs, dates, strict=False)):
        ink = tone(row["tone"])[0] if row.get("tone") else ACCENT
        items.append(Ellipse(px - 5, mid - 5, 10, 10, ink))
        up = i % 2 == 0
        ly = mid - 22 if up else mid + 8
        lines = [(ly, fit_line(str(row.get("label") or ""), w / 3, 10), 10.0, FG)]
        if when:
            dy = ly - POINTS_DATE_SIZE - 4 if up else ly + 14
            lines.append((dy, fit_line(when, w / 3, POINTS_DATE_SIZE), POINTS_DATE_SIZE, MUTED))
        for ty, text, size, ink_ in lines:
            # the end labels read inwards, so none leaves the card
            half = text_width(text, size) / 2
            tx, anchor = (
                (max(px - 6, x), "start")
                if px - half < x
                else (min(px + 6, x + w), "end")
                if px + half > x + w
                else (px, "middle")
            )
            items.append(Text(tx, ty, (text,), size, "sans", ink_, 0.0, anchor))
    return items


def _stat_number(data: dict, item: dict, x: float, top: float, w: float) -> list[Item]:
    """A chart of viz stat: its one number, large, over its label."""
    value = str(
        item.get("display") or fmt_value(item.get("value"), item.get("unit") or data.get("unit"))
    )
    return [
        Text(x, top, (fit_line(value, w, 30, "sans-bold"),), 30, "sans-bold", FG),
        Text(x, top + 44, (fit_line(str(item.get("label") or ""), w, 11),), 11, "sans", MUTED),
    ]


ChartBody = Callable[[Any, dict, Area, list[dict]], list[Item]]

# a viz not named here (bars, flow, and series charts without series) draws as item bars
_CHART_BODIES: dict[str, ChartBody] = {
    "compare": lambda viz, data, a, rows: _compare_face(data, a, rows),
    "pie": _pie_face,
    "donut": _pie_face,
    "heatmap": lambda viz, data, a, rows: _heat_face(data, a),
    "matrix": lambda viz, data, a, rows: _matrix_face(data, a, rows),
    "timeline": lambda viz, data, a, rows: _points_face(viz, a, rows),
}
_SERIES_VIZ = ("line", "area", "bars", "scatter")


def _chart_body(viz: Any, data: dict, a: Area, rows: list[dict]) -> list[Item]:
    if data.get("series") and viz in _SERIES_VIZ:
        return _series_face(viz, data, a)
    body = _CHART_BODIES.get(viz) if isinstance(viz, str) else None
    return (body or _bars_face)(viz, data, a, rows)


def _chart(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    items, cy = _title(p.get("title"), x, y, w)
    data = p.get("data") if isinstance(p.get("data"), dict) else {}
    viz = p.get("viz")
    rows = [i for i in data.get("items") or [] if isinstance(i, dict)]
    if viz == "stat" and rows:
        return items + _stat_number(data, rows[0], x, y + cy, w), cy + CHART_STAT_H
    # The sizer gives the card this much plot area; a doc face may have less left.
    area_h = min(budget - cy - CHART_GAP, chart_area_height(viz, data, w))
    if area_h < 20:
        return items, cy
    drawn = _chart_body(viz, data, (x, y + cy, w, area_h), rows)
    return items + drawn, cy + area_h + CHART_GAP


def _stat_value(stat: dict, sx: float, top: float, cw: float) -> Text:
    # the strip is sized so the value fits; fit_line only guards a pinned, too narrow card
    room = cw - stat_face.TILE_INSET - stat_face.delta_room(stat)
    return Text(
        sx + 6,
        top + 4,
        (fit_line(stat_face.value_text(stat), room, 17, "sans-bold"),),
        17,
        "sans-bold",
        tone(stat["tone"])[0] if stat.get("tone") else FG,
    )


def _stat_delta(stat: dict, sx: float, top: float, cw: float) -> list[Item]:
    """The delta chip at the tile's top right."""
    if stat.get("delta") is None:
        return []
    delta = stat_face.delta_text(stat["delta"])
    # tone is the author's meaning, never read from the delta's sign
    ink = tone(stat["tone"])[0] if stat.get("tone") else MUTED
    chip = fit_line(delta, cw * 0.4, 10, "sans-bold")
    return [Text(sx + cw - 10, top + 5, (chip,), 10, "sans-bold", ink, 0.0, "end")]


def _stat_spark(spark: list[float], left: float, base: float, spark_w: float) -> Path:
    """The trend line at the tile's bottom right, 14 px high."""
    lo, hi = min(spark), max(spark)
    span = (hi - lo) or 1.0
    step = spark_w / (len(spark) - 1)
    pts = tuple((left + i * step, base - (v - lo) / span * 14) for i, v in enumerate(spark))
    return Path(pts, stroke=ACCENT, width=1.5)


def _stat_tile(stat: dict, sx: float, top: float, cw: float) -> list[Item]:
    """One headline number: value, delta chip, label line and spark on a soft tile."""
    items: list[Item] = [
        Box(sx, top, cw - 4, STAT_TILE_H, fill=SOFT, radius=6),
        _stat_value(stat, sx, top, cw),
    ]
    spark = [v for v in (as_number(v) for v in stat.get("spark") or []) if v is not None]
    spark_w = min(cw * 0.3, 60.0) if len(spark) >= 2 else 0.0
    label = " · ".join(str(stat[k]) for k in ("label", "note") if stat.get(k))
    items.append(
        Text(sx + 6, top + 30, (fit_line(label, cw - 14 - spark_w, 10),), 10, "sans", MUTED)
    )
    items += _stat_delta(stat, sx, top, cw)
    if spark_w:
        items.append(_stat_spark(spark, sx + cw - 10 - spark_w, top + STAT_TILE_H - 8, spark_w))
    return items


def _stat(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    items, cy = _title(p.get("title"), x, y, w)
    stats = stat_face.items(p)
    if not stats:
        return items, cy
    # tiles that do not fit side by side go on further rows, never cut
    cols = stat_face.columns(stats, w)
    cw = w / cols
    for i, stat in enumerate(stats):
        row, col = divmod(i, cols)
        items += _stat_tile(stat, x + col * cw, y + cy + row * STAT_ROW_H, cw)
    return items, cy + STAT_ROW_H * stat_face.rows(stats, w)


def _meter(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    items, cy = _title(p.get("title"), x, y, w)
    for item in p.get("items") or []:
        if not isinstance(item, dict) or cy + 30 > budget:
            continue
        value, top = as_number(item.get("value")) or 0.0, as_number(item.get("max")) or 1.0
        label = " · ".join(str(item[k]) for k in ("label", "note") if item.get(k))
        items.append(Text(x, y + cy, (fit_line(label, w * 0.6, 11),), 11, "sans", FG))
        items.append(
            Text(
                x + w,
                y + cy,
                (f"{fmt_value(value, item.get('unit'))} / {fmt_value(top, item.get('unit'))}",),
                11,
                "sans",
                MUTED,
                0.0,
                "end",
            )
        )
        items.append(Box(x, y + cy + 17, w, 7, fill=SOFT, radius=3))
        items.append(
            Box(
                x,
                y + cy + 17,
                max(min(value / top, 1.0), 0.0) * w,
                7,
                fill=tone(item["tone"])[0] if item.get("tone") else ACCENT,
                radius=3,
            )
        )
        threshold = as_number(item.get("threshold"))
        if threshold is not None:
            tx = x + max(min(threshold / top, 1.0), 0.0) * w
            items.append(Path(((tx, y + cy + 14), (tx, y + cy + 27)), stroke=FG, width=1.5))
        cy += 30
    return items, cy


def chip_row(
    pairs: list[tuple[str, str]], x: float, y: float, w: float
) -> tuple[list[Item], float]:
    items: list[Item] = []
    cx, cy = x, y
    for k, v in pairs:
        label = f"{k}  {v}".strip()
        cw = min(text_width(label, 10.5) + 14, w)
        if cx + cw > x + w and cx > x:
            cx, cy = x, cy + 22
        items.append(Box(cx, cy, cw, 18, fill=SOFT, stroke=LINE, width=0.8, radius=9))
        items.append(
            Text(
                cx + 7,
                cy + (18 - line_height(10.5)) / 2,
                (fit_line(label, cw - 12, 10.5),),
                10.5,
                "sans",
                FG,
            )
        )
        cx += cw + 5
    return items, (cy - y + 22) if pairs else 0.0


def _chips(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    pairs = [
        (str(i.get("k") or ""), str(i.get("v") or ""))
        for i in p.get("items") or []
        if isinstance(i, dict)
    ]
    return chip_row(pairs, x, y, w)


def _caption(p: dict, x: float, y: float, w: float) -> tuple[list[Item], float]:
    """The element's caption under it, as the sizer's ``_caption`` measures it."""
    if not isinstance(p.get("caption"), str) or not p["caption"]:
        return [], 0.0
    run = text_run(x, y + 4, str(p["caption"]), w, size=12, fill=MUTED)
    plain = text_run(x, y + 4, plain_inline(p["caption"]), w, size=12, fill=MUTED)
    # markers dropped can only shorten the text: draw the plain lines in the raw one's room
    return [plain], run.height + 6


def _code(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    fence = "```\n" + str(p.get("source") or "") + "\n```"
    items, used = markdown_face(fence, x, y, w, budget, size=12.0)
    more, h = _caption(p, x, y + used, w)
    return items + more, used + h


def _ink(cell: Any) -> str:
    return tone(cell["tone"])[0] if isinstance(cell, dict) and cell.get("tone") else FG


def _table_title(p: dict, x: float, y: float, w: float) -> tuple[list[Item], float]:
    """The title band; a table with saved views lists them at its right."""
    views = table_views(p)
    if not views:
        return _title(p.get("title"), x, y, w)
    items, cy = _title(p.get("title") or " ", x, y, w)
    listed = fit_line(" · ".join(views), w * 0.6, 10)
    items.append(Text(x + w, y + 2, (listed,), 10, "sans", MUTED, 0.0, "end"))
    return items, cy


@dataclass(frozen=True)
class _TableCols:
    """Where a table face's columns sit: each cell is placed by its column."""

    face: table_face.TableFace
    lefts: list[float]

    def put(
        self, i: int, top: float, lines: tuple[str, ...], size: float, font: Any, ink: str
    ) -> Text:
        widths = self.face.widths
        # numbers sit flush right, under a header that is flush right too
        if self.face.numeric[i]:
            tx, anchor = self.lefts[i] + widths[i] - table_face.PAD, "end"
        else:
            tx, anchor = self.lefts[i], "start"
        return Text(tx, top, lines, size, font, ink, 0.0, anchor)

    def bold(self, i: int, top: float, text: str, size: float) -> Text:
        cw = self.face.widths[i] - table_face.PAD
        return self.put(i, top, (fit_line(text, cw, size, "sans-bold"),), size, "sans-bold", MUTED)


def _rule(x: float, y: float, w: float) -> Path:
    return Path(((x, y), (x + w, y)), stroke=LINE, width=1)


def _table_body(
    p: dict, cols: _TableCols, x: float, y: float, cy: float, budget: float
) -> tuple[list[Item], float]:
    """As many rows as fit; when some are left out, the last line says how many."""
    face = cols.face
    rows = [r for r in (table_face.row_cells(r) for r in p.get("rows") or []) if r is not None]
    head_h = table_face.head_height()
    items: list[Item] = []
    for n, lines in enumerate(face.rows):
        left = face.count - n
        row_h = face.row_height(n)
        if cy + row_h > budget + 0.01:
            break
        if left > 1 and cy + row_h + head_h > budget + 0.01:
            marker = left_out(f"{left} of {face.count} rows", f"+{left} more rows")
            items.append(Text(x, y + cy, (marker,), 10, "sans", MUTED))
            cy += head_h
            break
        for i, cell in enumerate(lines):
            items.append(
                cols.put(i, y + cy, cell, 11, "sans", _ink(rows[n].get(face.cols[i]["key"])))
            )
        cy += row_h
    return items, cy


def _table_foot(cols: _TableCols, x: float, y: float, w: float, cy: float) -> list[Item]:
    """The totals row under a rule."""
    items: list[Item] = [_rule(x, y + cy - 2, w)]
    for i, total in enumerate(cols.face.foot):
        if total:
            items.append(cols.bold(i, y + cy, total, table_face.FOOT_SIZE))
    return items


def _table(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    items, cy = _table_title(p, x, y, w)
    face = table_face.plan(p, w)
    if face is None:
        return items, cy
    cols = _TableCols(face, [x + sum(face.widths[:i]) for i in range(len(face.cols))])
    head_h = table_face.head_height()
    items += [
        cols.put(i, y + cy, lines, table_face.HEAD_SIZE, "sans-bold", MUTED)
        for i, lines in enumerate(face.head_lines)
    ]
    cy += face.header_height
    items.append(_rule(x, y + cy - 2, w))
    body, cy = _table_body(p, cols, x, y, cy, budget)
    items += body
    if any(face.foot) and cy + head_h <= budget + 0.01:
        items += _table_foot(cols, x, y, w, cy)
        cy += head_h
    hidden = table_face.more_columns_text(p, w)
    if hidden and cy + head_h <= budget + 0.01:
        # columns that do not fit even wrapped are announced, never dropped without a word
        total = len(face.cols) + table_face.hidden_columns(p, w)
        hidden = left_out(f"{total - len(face.cols)} of {total} columns", hidden)
        items.append(Text(x + w, y + cy + 2, (hidden,), 10, "sans-bold", MUTED, 0.0, "end"))
        cy += head_h
    more, h = _caption(p, x, y + cy, w)
    return items + more, cy + h


_STATUS_TONE = {"done": "good", "good": "good", "fixed": "good", "warn": "warn", "bad": "bad"}


def _timeline(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    """Entries on a rail: when and title, the status in its tone, then the detail line."""
    items, cy = _title(p.get("title"), x, y, w)
    start = cy
    entries = [item for item in p.get("items") or [] if isinstance(item, dict)]
    whens = date_labels([item.get("when") for item in entries])
    for drawn, (item, when) in enumerate(zip(entries, whens, strict=True)):
        rest = len(entries) - drawn
        tall = TIMELINE_ROW_H + (TIMELINE_DETAIL_H if timeline_detail(item) else 0.0)
        # the last row that fits says how many entries are left, when some are
        if cy + TIMELINE_ROW_H > budget + 0.01 or (
            rest > 1 and cy + tall + TIMELINE_ROW_H > budget + 0.01
        ):
            if cy + TIMELINE_ROW_H <= budget + 0.01:
                marker = left_out(f"{rest} of {len(entries)} entries", f"+{rest} more")
                items.append(Text(x + 16, y + cy, (marker,), 11.5, "sans", MUTED))
                cy += TIMELINE_ROW_H
            break
        status = str(item.get("status") or "")
        ink = tone(_STATUS_TONE.get(status, "info" if status else "accent"))[0]
        items.append(Ellipse(x + 1, y + cy + 5, 8, 8, ink if status else ACCENT))
        label = " · ".join(str(v) for v in (when, item.get("title") or item.get("summary")) if v)
        room = w - 16
        if status:
            sw = text_width(status, 10, "sans-bold")
            items.append(Text(x + w, y + cy + 1, (status,), 10, "sans-bold", ink, 0.0, "end"))
            room -= sw + 8
        items.append(Text(x + 16, y + cy, (fit_line(label, room, 11.5),), 11.5, "sans", FG))
        cy += TIMELINE_ROW_H
        detail = timeline_detail(item)
        if detail:
            if cy + TIMELINE_DETAIL_H > budget + 0.01:
                left_out(more(len(entries) - drawn, "detail line"), "…")
                break
            items.append(
                Text(
                    x + 16,
                    y + cy - 3,
                    (fit_line(detail, w - 16, TIMELINE_DETAIL_SIZE),),
                    TIMELINE_DETAIL_SIZE,
                    "sans",
                    MUTED,
                )
            )
            cy += TIMELINE_DETAIL_H
    if cy > start:
        items.insert(0, Path(((x + 5, y + start + 6), (x + 5, y + cy - 8)), stroke=LINE, width=2))
    return items, cy


def _finding_head(
    head: str, chip_text: str, ink: str, tx: float, tw: float, top: float
) -> list[Item]:
    """The head band: the kind of finding in capitals, its status chip at the right."""
    items: list[Item] = []
    text_y = top + (CHIP_H - line_height(FINDING_HEAD_SIZE)) / 2
    chip_w = 0.0
    if chip_text:
        reading = FINDING_STATUS_READING.get(chip_text, "")
        c_ink, c_wash = tone(_READING_TONE.get(reading, "gray"))
        chip_w = min(text_width(chip_text, FINDING_HEAD_SIZE) + 14, tw)
        cx = tx + tw - chip_w
        chip = fit_line(chip_text, chip_w - 12, FINDING_HEAD_SIZE)
        items.append(Box(cx, top, chip_w, CHIP_H, fill=c_wash, stroke=c_ink, width=0.8, radius=9))
        items.append(Text(cx + 7, text_y, (chip,), FINDING_HEAD_SIZE, "sans", c_ink))
    if head:
        shown = fit_line(head.upper(), tw - chip_w - 6, FINDING_HEAD_SIZE, "sans-bold")
        items.append(Text(tx, text_y, (shown,), FINDING_HEAD_SIZE, "sans-bold", ink))
    return items


# size, font and ink of a finding's text blocks; a role not named is plain body text
_FINDING_STYLES: dict[str, tuple[float, FontName, str]] = {
    "where": (FINDING_WHERE_SIZE, "mono", MUTED),
    "summary": (FINDING_TEXT_SIZE, "sans-bold", FG),
    "cause": (FINDING_TEXT_SIZE, "sans", MUTED),
    "more": (FINDING_TEXT_SIZE, "sans", MUTED),
}


def _finding_block(
    role: str, lines: tuple[str, ...], refuted: bool, tx: float, tw: float, top: float
) -> list[Item]:
    """One text block of a finding; where and fix are single lines cut to the width."""
    if role == "title":
        # a refuted finding's title is greyed out
        size, font, fill = FINDING_TITLE_SIZE, "sans-bold", MUTED if refuted else FG
    else:
        size, font, fill = _FINDING_STYLES.get(role, (FINDING_TEXT_SIZE, "sans", FG))
    if role in ("where", "fix"):
        lines = (fit_line(lines[0], tw, size, font),)
    if role != "evidence":
        return [Text(tx, top, lines, size, font, fill)]
    return [
        Text(tx, top, ("•",), size, "sans", MUTED),
        Text(tx + FINDING_BULLET, top, lines, size, font, fill),
    ]


def _finding(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    sev = {"high": "bad", "medium": "warn", "low": "info"}.get(str(p.get("sev")), "gray")
    ink = tone(sev)[0]
    items: list[Item] = []
    tx, tw = x + FINDING_INSET, w - FINDING_INSET - 2
    head, status = finding_head(p)
    cy = 4.0
    if head or status:
        items += _finding_head(head, status, ink, tx, tw, y + cy)
        cy += FINDING_HEAD_H
    refuted = FINDING_STATUS_READING.get(status) == "refuted"
    blocks = finding_blocks(p, w)
    for n, (role, lines, gap) in enumerate(blocks):
        h = finding_block_height(role, lines)
        # the sizer sums the same heights; stop at a pinned box's edge
        if cy + gap + h > budget + 0.01:
            left = len(blocks) - n
            marker = left_out(more(left, "part") + " of the finding", "…")
            items.append(Text(tx, y + cy, (marker,), FINDING_TEXT_SIZE, "sans", MUTED))
            break
        cy += gap
        items += _finding_block(role, lines, refuted, tx, tw, y + cy)
        cy += h
    # the severity bar runs down the left edge, as tall as what was drawn
    items.insert(0, Box(x, y, 4, cy + 4, fill=ink, radius=2))
    return items, cy + 6


_READING_TONE = {"resolved": "good", "pending": "warn", "refuted": "muted", "wont-fix": "neutral"}


def _verdict(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    """The state in bold, then the reasoning the HTML shows under it."""
    ink, wash = tone(p.get("tone") or "info")
    head, body = verdict_lines(p, w)
    run = Text(x + 12, y + 8, head, 13, "sans-bold", FG)
    items: list[Item] = [run]
    h = run.height + 16
    if body:
        items.append(Text(x + 12, y + 8 + run.height + 2, body, VERDICT_REASON_SIZE, "sans", FG))
        h += 2 + len(body) * line_height(VERDICT_REASON_SIZE)
    return [Box(x, y, w, h, fill=wash, radius=6), Box(x, y, 4, h, fill=ink), *items], h + 4


def _mock_labels(tree: Any, depth: int = 0) -> list[str]:
    """The labels of a mockup's nodes in reading order (what its HTML prints)."""
    out: list[str] = []
    for node in tree if isinstance(tree, list) else []:
        if not isinstance(node, dict) or depth > 12:
            continue
        if node.get("label"):
            out.append(str(node["label"]))
        out += _mock_labels(node.get("children"), depth + 1)
    return out


def _tile(title_key: str, meta: Callable[[dict], list[str]]) -> Face:
    def face(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
        items: list[Item] = [Box(x, y, w, 46, fill=CARD, stroke=LINE, radius=6)]
        items.append(
            Text(
                x + 8,
                y + 5,
                (fit_line(str(p.get(title_key) or ""), w - 16, 12.5, "sans-bold"),),
                12.5,
                "sans-bold",
                FG,
            )
        )
        items.append(
            Text(
                x + 8,
                y + 25,
                (fit_line(" · ".join(m for m in meta(p) if m), w - 16, 10.5),),
                10.5,
                "sans",
                MUTED,
            )
        )
        done, total = as_number(p.get("done")), as_number(p.get("total"))
        pct = as_number(p.get("percent"))
        if pct is None and done is not None and total:
            pct = done / total * 100
        if pct is not None:
            items.append(Box(x + 8, y + 41, (w - 16), 3, fill=SOFT))
            items.append(
                Box(x + 8, y + 41, (w - 16) * max(min(pct, 100.0), 0.0) / 100, 3, fill=ACCENT)
            )
        return items, 52

    return face


def _section(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    """Label, title, note and elements at the metrics the sizer's ``_el_section`` adds up."""
    items: list[Item] = []
    cy = 0.0
    if p.get("label"):
        label = fit_line(str(p["label"]).upper(), w, 10, "sans-bold")
        items.append(Text(x, y, (label,), 10, "sans-bold", ACCENT))
        cy += 18
    if isinstance(p.get("title"), str) and p["title"]:
        # the sizer measures the raw title; markers dropped only shorten it
        lines = len(text_run(x, 0, p["title"], w, size=21, font="sans-bold").lines)
        run = text_run(
            x, y + cy, plain_inline(p["title"]), w, size=21, font="sans-bold", max_lines=lines
        )
        items.append(run)
        cy += lines * line_height(21) + 6
    if isinstance(p.get("note"), str) and p["note"]:
        run = text_run(x, y + cy, p["note"], w, size=13, fill=MUTED)
        items.append(run)
        cy += run.height + 4
    sub, used = elements_face(p.get("elements") or [], x, y + cy, w, budget - cy, gap=16)
    return items + sub, cy + used


def _nested_doc(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    """A doc inside a doc: its head at the sizer's ``doc_height`` metrics, then its elements."""
    items: list[Item] = []
    cy = 0.0
    if p.get("kicker"):
        kicker = fit_line(str(p["kicker"]).upper(), w, 12, "sans-bold")
        items.append(Text(x, y, (kicker,), 12, "sans-bold", ACCENT))
        cy += 20
    if p.get("title"):
        run = text_run(x, y + cy, str(p["title"]), w, size=28, font="sans-bold")
        items.append(run)
        cy += run.height + 8
    if p.get("intro"):
        lines = len(text_run(x, 0, str(p["intro"]), w, size=16).lines)
        run = text_run(x, y + cy, plain_inline(str(p["intro"])), w, size=16, fill=MUTED)
        items.append(run)
        cy += lines * line_height(16) + 8
    chips = [
        (str(c.get("k") or ""), str(c.get("v") or ""))
        for c in p.get("chips") or []
        if isinstance(c, dict)
    ]
    if chips:
        more, used = chip_row(chips, x, y + cy, w)
        items += more
        cy += used + 8
    sub, used = elements_face(p.get("elements") or [], x, y + cy, w, budget - cy, gap=16)
    return items + sub, max(cy + used, 40.0)


def _columns(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    cols = [c for c in p.get("cols") or [] if isinstance(c, dict)]
    if not cols:
        return [], 0.0
    cw = (w - 10 * (len(cols) - 1)) / len(cols)
    items: list[Item] = []
    tallest = 0.0
    for i, col in enumerate(cols):
        sub, used = elements_face(col.get("elements") or [], x + i * (cw + 10), y, cw, budget)
        items += sub
        tallest = max(tallest, used)
    return items, tallest


def _compare(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    items, cy = _title(p.get("title"), x, y, w)
    sides = [p.get("a") or {}, p.get("b") or {}]
    cw = (w - 10) / 2
    tallest = 0.0
    for i, side in enumerate(sides):
        if not isinstance(side, dict):
            continue
        sx = x + i * (cw + 10)
        sub, h = _title(side.get("label"), sx, y + cy, cw, 11)
        more, used = elements_face(side.get("elements") or [], sx, y + cy + h, cw, budget - cy - h)
        items += sub + more
        tallest = max(tallest, h + used)
    return items, cy + tallest


def _gallery(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    listed = [i for i in p.get("items") or [] if isinstance(i, dict)]
    # six tiles at most; past six, the sixth slot counts the tiles left out
    tiles = listed[:6] if len(listed) <= 6 else listed[:5]
    cols = 3
    tw = (w - 6 * (cols - 1)) / cols
    th = tw * 10 / 16
    items: list[Item] = []
    if len(listed) > 6:
        left = len(listed) - 5
        marker = left_out(f"{left} of {len(listed)} pictures", f"+{left} more")
        tx, ty = x + 2 * (tw + 6), y + th + 6
        items.append(Box(tx, ty, tw, th, fill=SOFT, stroke=LINE, radius=4))
        mid = ty + (th - line_height(13)) / 2
        items.append(Text(tx + tw / 2, mid, (marker,), 13, "sans-bold", MUTED, 0.0, "middle"))
    for i, tile in enumerate(tiles):
        tx, ty = x + (i % cols) * (tw + 6), y + (i // cols) * (th + 6)
        if ty + th - y > budget:
            break
        items += _picture(tile, tx, ty, tw, th, "cover", 10)
        if tile.get("caption"):
            # the tile's own caption on a strip along its bottom, over the picture
            strip = line_height(9.5) + 2
            items.append(Box(tx, ty + th - strip, tw, strip, fill=CARD, opacity=0.85))
            cap = fit_line(plain_inline(str(tile["caption"])), tw - 8, 9.5)
            items.append(Text(tx + 4, ty + th - strip + 1, (cap,), 9.5, "sans", FG))
    rows = (min(len(listed), 6) + cols - 1) // cols
    grid = rows * (th + 6) if rows else 20.0
    more, used = _caption(p, x, y + grid, w)
    return items + more, grid + used


def _picture(
    item: dict, x: float, y: float, w: float, h: float, fit: Fit, size: float
) -> list[Item]:
    """A picture in a soft frame, or, when there is none to show, what the HTML shows in
    its place: the alt text over the ref (or shot) that could not be resolved."""
    items: list[Item] = [Box(x, y, w, h, fill=SOFT, stroke=LINE, radius=4)]
    alt = str(item.get("alt") or item.get("caption") or "")
    href = image_href(item)
    if href is not None:
        # no label under the picture: a transparent picture would show it through
        items.append(Image(x, y, w, h, href, fit, alt or missing_label(item)))
        return items
    lines = [fit_line(t, w - 12, size) for t in (alt, missing_label(item)) if t]
    top = y + (h - len(lines) * line_height(size)) / 2
    items.append(Text(x + w / 2, top, (lines[0],), size, "sans", MUTED, 0.0, "middle"))
    if len(lines) > 1:
        low = top + line_height(size)
        items.append(Text(x + w / 2, low, (lines[1],), size - 1, "mono", MUTED, 0.0, "middle"))
    return items


def _figure(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    h = min(w * 10 / 16, budget)
    items = _picture(p, x, y, w, h, "contain", 11)
    more, used = _caption(p, x, y + h + 4, w)
    return items + more, h + 4 + used


def _list(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    mark = {"check": "✓ ", "number": ""}.get(str(p.get("style")), "• ")
    texts = [
        (f"{i + 1}. " if p.get("style") == "number" else mark) + str(t)
        for i, t in enumerate(p.get("items") or [])
    ]
    return _lines(texts, x, y, w, budget)


def _diagram(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    from layoutkit.render._face_diagram import diagram_scene_items

    return diagram_scene_items(p, x - 12, y - 12, w + 24, min(budget, w * 0.75))


def _ref(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    label = ref_label(p)
    width = min(ref_chip_width(p), w)
    items: list[Item] = [Box(x, y, width, 26, fill=CARD, stroke=LINE, radius=13)]
    items.append(
        Text(
            x + 10,
            y + (26 - line_height(12)) / 2,
            (fit_line("↗ " + label, width - 16, 12),),
            12,
            "sans",
            ACCENT,
        )
    )
    return items, 28.0


def _generic(kind: str) -> Face:
    def face(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
        label = p.get("title") or p.get("name") or p.get("state") or ""
        items: list[Item] = [Box(x, y, w, 26, fill=SOFT, radius=4)]
        items.append(
            Text(
                x + 8,
                y + 4,
                (fit_line(f"{kind}  {label}".strip(), w - 16, 11.5),),
                11.5,
                "sans",
                MUTED,
            )
        )
        return items, 30

    return face


ELEMENT_FACES: dict[str, Face] = {
    "prose": _prose,
    "page": _prose,
    "text": _prose,
    "chart": _chart,
    "stat": _stat,
    "meter": _meter,
    "chips": _chips,
    "code": _code,
    "table": _table,
    "timeline": _timeline,
    "finding": _finding,
    "verdict": _verdict,
    "list": _list,
    "figure": _figure,
    "gallery": _gallery,
    "columns": _columns,
    "compare": _compare,
    "section": _section,
    "doc": _nested_doc,
    "diagram": _diagram,
    "epic": _tile(
        "title",
        lambda p: [
            f"#{p['id']}" if p.get("id") is not None else "",
            str(p.get("phase") or "planned"),
            str(p.get("mark") or ""),
            str(p.get("type") or ""),
            ", ".join(map(str, p.get("who") or [])),
        ],
    ),
    "goal": _tile(
        "title",
        lambda p: [
            str(p.get("status") or "planned"),
            plain_inline(p["outcome"]) if isinstance(p.get("outcome"), str) else "",
            " → ".join(fmt_when(p[k]) for k in ("starts", "ends") if p.get(k)),
        ],
    ),
    "milestone": _tile(
        "title",
        lambda p: [
            "reached" if p.get("reached") else "open",
            "due " + fmt_when(p["due"]) if p.get("due") else "",
            "reached " + fmt_when(p["reached"]) if p.get("reached") else "",
        ],
    ),
    "release": _tile(
        "title",
        lambda p: [
            str(p.get("status") or "cut"),
            f"{fmt_num(p['prs'])} PRs" if p.get("prs") is not None else "",
        ],
    ),
    "deploy": _tile(
        "env",
        lambda p: [
            str(p.get("sha") or "")[:12],
            fmt_when(p.get("at")),
            f"{fmt_num(p['count'])} deploys" if p.get("count") is not None else "",
            "live" if p.get("live") else "",
        ],
    ),
    "ref": _ref,
    "media": _tile(
        "caption", lambda p: [str(p.get("mime") or ""), str(p.get("src") or p.get("ref") or "")]
    ),
    "html": _tile("title", lambda p: ["HTML (sandboxed)"]),
    "mockup": _tile(
        "title",
        lambda p: [
            " · ".join(
                str(f.get("name") or "") + (": " + ", ".join(_mock_labels(f.get("tree"))))
                for f in p.get("frames") or []
                if isinstance(f, dict)
            )
        ],
    ),
}


def element_face(
    element: dict, x: float, y: float, w: float, budget: float
) -> tuple[list[Item], float]:
    kind, payload = element_parts(element)
    face = ELEMENT_FACES.get(kind) or _generic(kind)
    return face(payload, x, y, w, budget)


def elements_face(
    elements: list, x: float, y: float, w: float, budget: float, *, gap: float = 10.0
) -> tuple[list[Item], float]:
    """Elements stacked top to bottom until the budget runs out."""
    items: list[Item] = []
    cy = 0.0
    listed = [e for e in elements if isinstance(e, dict)]
    for n, element in enumerate(listed):
        if cy + 14 > budget:
            left = len(listed) - n
            # no line is left under the last element: the mark sits at its bottom right
            marker = left_out(f"{left} of {len(listed)} elements", "…")
            top = y + max(cy - gap, 0.0) - line_height(12)
            items.append(Text(x + w, top, (marker,), 12, "sans-bold", MUTED, 0.0, "end"))
            break
        sub, used = element_face(element, x, y + cy, w, budget - cy)
        items += sub
        cy += used + gap
    return items, max(cy - gap, 0.0)
