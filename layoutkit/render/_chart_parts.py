"""Parts every chart is assembled from, whatever it is drawn into.

The document SVG (``_charts``) and the card faces (``_face_elements``) draw the
same charts with different ink: both take their scales, value and x axes (tick
labels, dates read as dates, labels thinned to fit), legends, colour scales,
value labels and mark geometry from here, so a change to how a chart is
measured or labelled is made once and every viz gets its guides by
construction. Nothing here draws: each renderer turns these values into its own
output.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from layoutkit.formatting import as_number, date_labels, fmt_num, fmt_value, is_iso_date
from layoutkit.layout.text import text_width

Point = tuple[float, float]
Spot = tuple[float, float, float, str]

# ---------------------------------------------------------------- data


def series_points(series: dict, *, keep_missing_x: bool) -> list[Point]:
    """A series' (x, y) points from its ``points`` (or else ``values``): a plain
    number stands at its index. A pair without a usable x stands at its index
    when ``keep_missing_x`` (the document chart) and is dropped otherwise (the
    card face)."""
    raw = series.get("points") if series.get("points") is not None else series.get("values")
    out: list[Point] = []
    for i, point in enumerate(raw or []):
        if isinstance(point, (list, tuple)) and len(point) >= 2:
            x, y = as_number(point[0]), as_number(point[1])
            if x is None and keep_missing_x:
                x = float(i)
        else:
            x, y = float(i), as_number(point)
        if x is not None and y is not None:
            out.append((x, y))
    return out


def ranked_shares(items: list[dict], rank: float, unit: str | None = None) -> list[dict]:
    """The ``rank`` largest items, the rest summed into one 'other' row, each
    displayed as its value with its unit and its share of the whole: a share
    alone hides how large the whole is."""
    ordered = sorted(items, key=lambda i: -(as_number(i.get("value")) or 0.0))
    keep, rest = ordered[: int(rank)], ordered[int(rank) :]
    total = sum(as_number(i.get("value")) or 0.0 for i in ordered) or 1.0
    if rest:
        other = sum(as_number(i.get("value")) or 0.0 for i in rest)
        keep = [*keep, {"label": f"other ({len(rest)})", "value": other, "tone": "neutral"}]
    out = []
    for i in keep:
        value = as_number(i.get("value")) or 0.0
        share = f"{value / total * 100:.0f}%"
        out.append({**i, "display": f"{compact(value, i.get('unit') or unit)} · {share}"})
    return out


def compact(value: Any, unit: str | None = None) -> str:
    """A number short enough for a tick or a bar end: 412k, 1.25M, with its unit."""
    v = as_number(value)
    if v is None:
        return fmt_value(value, unit)
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= size:
            scaled = v / size
            # three significant digits, as chart libraries print them: 412k, 61.2k, 1.25M
            digits = 0 if abs(scaled) >= 100 else 1 if abs(scaled) >= 10 else 2
            text = f"{scaled:.{digits}f}"
            text = text.rstrip("0").rstrip(".") if "." in text else text
            return fmt_value(text + suffix, unit)
    return fmt_value(v, unit)


# ---------------------------------------------------------------- x labels


def x_labels(raw: Sequence[Any]) -> list[str]:
    """Category labels as a reader reads them: when every label is an ISO day or
    month, they read as :func:`~layoutkit.formatting.date_labels` says (days "Mar 4",
    months "Mar", the year on the first and wherever it changes); any other labels
    are kept as written."""
    if not raw or not all(is_iso_date(label) for label in raw):
        return [str(label) for label in raw]
    return date_labels(raw, times=False, first_year=False)


def x_domain(viz: Any, xs: Sequence[float]) -> tuple[float, float]:
    """The x range of a series chart: its data, with a margin for scatter dots."""
    lo, hi = (min(xs), max(xs)) if xs else (0.0, 1.0)
    if viz == "scatter":
        pad = (hi - lo) / 20 or 0.5
        lo, hi = lo - pad, hi + pad
    return (lo, hi) if hi > lo else (lo, lo + 1)


def x_ticks(
    viz: Any, data: dict, series: Sequence[Sequence[Point]], lo: float, hi: float
) -> list[tuple[float, str]]:
    """The x axis's (value, label) ticks: the ``x`` names (dates read as dates),
    else, when points come as pairs, each bar's x or round values of a numeric x;
    plain values without names have no x to label."""
    raw = data.get("x") if isinstance(data.get("x"), list) else []
    if raw:
        return [(lo + i, name) for i, name in enumerate(x_labels(raw[: int(hi - lo) + 1]))]
    pairs = any(
        isinstance(p, (list, tuple))
        for s in data.get("series") or []
        if isinstance(s, dict)
        for p in s.get("points") or []
    )
    if not pairs:
        return []
    if viz == "bars":
        return sorted({(x, fmt_num(x)) for pts in series for x, _ in pts})
    return x_number_labels(lo, hi)


def x_number_labels(lo: float, hi: float, count: int = 5) -> list[tuple[float, str]]:
    """Ticks for a numeric x (points given as pairs, no ``x`` names)."""
    return [(t, fmt_num(t)) for t in nice_ticks(lo, hi, count) if lo - 1e-9 <= t <= hi + 1e-9]


def spread_labels(
    spots: Sequence[tuple[float, float]], left: float, right: float, gap: float = 6.0
) -> list[tuple[int, float, str]]:
    """Which of the labels (centre x, width) to show, and where, so none overlaps
    the next or leaves [left, right]: every k-th label for the smallest k that
    fits, always ending on the last. Returns (index, anchor x, anchor)."""
    if not spots:
        return []

    def placed(i: int) -> tuple[float, float, float, str]:
        cx, w = spots[i]
        if cx - w / 2 < left:
            return left, left + w, left, "start"
        if cx + w / 2 > right:
            return right - w, right, right, "end"
        return cx - w / 2, cx + w / 2, cx, "middle"

    n = len(spots)
    for every in range(1, n + 1):
        picks = list(range((n - 1) % every, n, every))
        boxes = [placed(i) for i in picks]
        if all(a[1] + gap <= b[0] for a, b in itertools.pairwise(boxes)):
            return [(i, box[2], box[3]) for i, box in zip(picks, boxes, strict=True)]
    return [(n - 1, *placed(n - 1)[2:])]


# ---------------------------------------------------------------- scales


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / max(count, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step + 1e-9) * step
    ticks = []
    value = start
    # the last tick is at or above the data: nothing is drawn above the top of the scale
    while len(ticks) < 2 or (ticks[-1] < hi - 1e-9 and len(ticks) < 14):
        ticks.append(round(value, 10))
        value += step
    return ticks


def y_range(viz: Any, ys: list[float], data: dict) -> tuple[float, float]:
    """The y-range of a series chart before its ticks round it out.

    ``min``/``max`` widen it but never cut data off: a value beyond them
    would be drawn outside the scale. Bars and areas stand on zero; a line or a
    scatter fits its data (a latency between 180 and 220 ms is not squashed
    against a zero nobody asked for), and an author who wants zero sets ``min: 0``.
    """
    lo_set, hi_set = as_number(data.get("min")), as_number(data.get("max"))
    fits = viz in ("line", "scatter") and bool(ys)
    lo = lo_set if lo_set is not None else (min(ys) if fits else min([0.0, *ys]))
    hi = hi_set if hi_set is not None else max([lo, *ys])
    if viz == "scatter" and ys:
        # dots are not drawn on the frame: a margin of a twentieth of the spread
        pad = (max(ys) - min(ys)) / 20 or 0.5
        lo = lo if lo_set is not None else lo - pad
        hi = hi if hi_set is not None else hi + pad
    if ys:
        lo, hi = min([lo, *ys]), max([hi, *ys])
    if hi <= lo:
        hi = lo + 1
    return lo, hi


@dataclass(frozen=True)
class Scale:
    """Maps data values in [lo, hi] onto ``length`` pixels from ``start``.

    A band scale gives each whole value a slot and puts the value in its middle
    (bars need room on both sides of the first and last x); a flipped scale
    grows upwards, as a y axis does on screen.
    """

    lo: float
    hi: float
    start: float
    length: float
    band: bool = False
    flip: bool = False

    def __call__(self, v: float) -> float:
        if self.flip:
            return (
                self.start + self.length - (v - self.lo) / ((self.hi - self.lo) or 1) * self.length
            )
        if self.band:
            return self.start + (v - self.lo + 0.5) / ((self.hi - self.lo) + 1) * self.length
        return self.start + (v - self.lo) / ((self.hi - self.lo) or 1) * self.length

    @property
    def slot(self) -> float:
        """The width one whole value owns on a band scale."""
        return self.length / ((self.hi - self.lo) + 1)

    def floor(self) -> float:
        """Zero, or the domain end nearest to it: where bars and areas stand."""
        return max(self.lo, min(0.0, self.hi))


# ---------------------------------------------------------------- axes


@dataclass(frozen=True)
class Axis:
    """A value axis: the domain its ticks round out, the ticks and their labels."""

    lo: float
    hi: float
    ticks: tuple[float, ...]
    labels: tuple[str, ...]

    def gutter(self, size: float, pad: float) -> float:
        """Room left of the plot for the widest tick label."""
        return pad + max(text_width(label, size) for label in self.labels)

    @property
    def cut(self) -> bool:
        """The axis starts above zero: its foot is marked as a break, not a zero line."""
        return self.lo > 0


def value_axis(viz: Any, ys: list[float], data: dict, count: int = 5) -> Axis:
    """The y axis of a series chart: its data range widened to whole ticks."""
    lo, hi = y_range(viz, ys, data)
    ticks = nice_ticks(lo, hi, count)
    unit = data.get("unit")
    return Axis(
        min(lo, ticks[0]),
        max(hi, ticks[-1]),
        tuple(ticks),
        tuple(fmt_value(t, unit) for t in ticks),
    )


def axis_break(x: float, y: float) -> tuple[Point, ...]:
    """A zigzag across a y axis at (x, y): the scale below it is left out."""
    return ((x - 4, y - 1), (x - 1.5, y - 5), (x + 1.5, y + 1), (x + 4, y - 3))


def stack_sums(series: Sequence[Sequence[Point]]) -> dict[float, float]:
    """The height of each x when the series stand on each other."""
    sums: dict[float, float] = {}
    for pts in series:
        for x, y in pts:
            sums[x] = sums.get(x, 0.0) + y
    return sums


def stacks(viz: Any, data: dict) -> bool:
    return bool(data.get("stack")) and viz in ("bars", "area")


# ---------------------------------------------------------------- legends


@dataclass(frozen=True)
class LegendEntry:
    index: int
    label: str
    x: float


@dataclass(frozen=True)
class Legend:
    """Series names on one row, each after a swatch: ``swatch`` is the room from
    the swatch's left to its name, ``spacing`` the gap after the name."""

    labels: tuple[str, ...]
    size: float
    swatch: float
    spacing: float

    def place(
        self, x: float, fit: Callable[[str, float], str | None] | None = None
    ) -> list[LegendEntry]:
        """Entries left to right from x; ``fit`` shortens a name to the room left
        at its x, or says (None) that the row is full."""
        entries: list[LegendEntry] = []
        lx = x
        for i, label in enumerate(self.labels):
            if not label:
                continue
            shown = label if fit is None else fit(label, lx)
            if shown is None:
                break
            entries.append(LegendEntry(i, shown, lx))
            lx += self.swatch + text_width(shown, self.size) + self.spacing
        return entries


# ---------------------------------------------------------------- marks


Span = tuple[float, float, float]


def bar_spans(series: Sequence[Sequence[Point]], stack: bool) -> list[list[Span]]:
    """(x, from, to) of each bar; stacked bars start where the one below ended."""
    acc: dict[float, float] = {}
    out: list[list[Span]] = []
    for pts in series:
        spans = []
        for x, y in pts:
            y0 = acc.get(x, 0.0) if stack else 0.0
            acc[x] = y0 + y
            spans.append((x, y0, y0 + y))
        out.append(spans)
    return out


def bar_width(slot: float, count: int, stack: bool) -> float:
    """Bars fill 70% of a slot, shared by the series unless they stack."""
    return slot * 0.7 / (1 if stack else max(count, 1))


def lifted(
    series: Sequence[Sequence[Point]], stack: bool, floor: float
) -> list[tuple[list[Point], list[Point]]]:
    """Each series' line and the line under it (what an area is filled down to)."""
    acc: dict[float, float] = {}
    out = []
    for pts in series:
        if stack:
            top = [(x, acc.get(x, 0.0) + y) for x, y in pts]
            under = [(x, acc.get(x, 0.0)) for x, _ in pts]
            acc.update(dict(top))
        else:
            top = list(pts)
            under = [(x, floor) for x, _ in pts]
        out.append((top, under))
    return out


def _seg_y(line: list[Point], x: float) -> float | None:
    for (ax, ay), (bx, by) in itertools.pairwise(line):
        if min(ax, bx) <= x <= max(ax, bx):
            return ay if bx == ax else ay + (by - ay) * (x - ax) / (bx - ax)
    return None


def label_spot(
    spots: list[Spot],
    width: float,
    size: float,
    lines: list[list[Point]],
) -> Spot:
    """Of the spots (left, baseline, anchor x, anchor), the one whose label box is
    farthest from every data line (the first on a tie): a label never sits on a
    line when it has somewhere else to go."""

    def clearance(spot: Spot) -> float:
        left, base = spot[0], spot[1]
        top, bottom = base - size, base + 3
        best = float("inf")
        for line in lines:
            for i in range(9):
                y = _seg_y(line, left + width * i / 8)
                if y is None:
                    continue
                if top <= y <= bottom:
                    return 0.0
                best = min(best, top - y if y < top else y - bottom)
        return best

    return max(spots, key=clearance)


def ref_label_spots(
    line: Sequence[Point], width: float, above: float, below: float, below_extra: float = 0.0
) -> list[Spot]:
    """Where a reference line's label may go: above or below either end of it,
    reading inwards."""
    (lx, ly), (rx, ry) = line[0], line[-1]
    return [
        (rx - 4 - width, ry - above, rx - 4, "end"),
        (rx - 4 - width, ry + below + below_extra, rx - 4, "end"),
        (lx + 4, ly - above, lx + 4, "start"),
        (lx + 4, ly + below + below_extra, lx + 4, "start"),
    ]


# ---------------------------------------------------------------- guides of item charts


def pie_entry(label: Any, shown: str, share: float) -> str:
    """A pie legend row: label, value and share, the share left out when the
    value already is one."""
    return f"{label or ''}{pie_tail(shown, share)}"


def pie_tail(shown: str, share: float) -> str:
    """What follows a pie legend's label: its value, then its share unless the
    value already is one."""
    tail = f" — {shown}"
    return tail if shown.rstrip().endswith("%") else f"{tail} ({share:.0f}%)"


def donut_centre(total: float, unit: str | None, items: Sequence[dict] = ()) -> str | None:
    """What a donut's hole says: the total with its unit; nothing when the
    slices are percentages (their total is 100% by construction and says
    nothing) or carry different units (their sum means nothing)."""
    units = {i.get("unit") or unit for i in items} or {unit}
    if len(units) > 1:
        return None
    shared = units.pop()
    if shared and str(shared).startswith("%"):
        return None
    return compact(total, shared)


HEAT_LEVELS = 5


def heat_level(value: float, lo: float, hi: float, levels: int = HEAT_LEVELS) -> int:
    """The step of the colour scale a value falls in: lo..hi in equal steps."""
    if hi <= lo:
        return levels - 1 if value > 0 else 0
    return max(0, min(levels - 1, int((value - lo) / (hi - lo) * levels)))


def worse_tone(before: float, after: float, better: Any, tone: str) -> str | None:
    """The tone a compare row's after bar wears: the chip's, when the after
    value is the worse one (a regression reads red on the bar as on the chip);
    None when it improved, did not move or no direction is declared."""
    worse = (better == "lower" and after > before) or (better == "higher" and after < before)
    return tone if worse and tone in ("good", "warn", "bad") else None
