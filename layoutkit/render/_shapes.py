"""Node shapes as scene items, and the outlines edges meet them at.

The diagram face draws its nodes with these, the sequence face its database
heads and shape cards their frames. They live apart from both faces so the
diagram and sequence faces can each draw a shape without importing the other.
Slants follow ``labels.inner_box``, so a label laid out for a shape fits in it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

from layoutkit.diagram.labels import FIGURE, SLANTS
from layoutkit.render._scene import Box, Ellipse, Item, Path

Point = tuple[float, float]


def arc(
    cx: float, cy: float, rx: float, ry: float, a0: float, a1: float, n: int = 10
) -> list[Point]:
    """Points along an elliptic arc from angle ``a0`` to ``a1`` (degrees, y down)."""
    out = []
    for i in range(n + 1):
        t = math.radians(a0 + (a1 - a0) * i / n)
        out.append((cx + rx * math.cos(t), cy + ry * math.sin(t)))
    return out


def wave(x0: float, x1: float, y: float, amp: float, n: int = 16) -> list[Point]:
    """One sine period from ``x0`` to ``x1`` around ``y`` (a document's lower edge)."""
    return [(x0 + (x1 - x0) * i / n, y + amp * math.sin(2 * math.pi * i / n)) for i in range(n + 1)]


# --------------------------------------------------------------------------- outlines


class _Bounds(NamedTuple):
    """The box an outline is drawn in, with its right and bottom edges at hand."""

    x: float
    y: float
    w: float
    h: float
    r: float
    b: float
    k: float
    slant: float


def _diamond(o: _Bounds) -> list[Point]:
    x, y, w, h = o.x, o.y, o.w, o.h
    return [(x + w / 2, y), (o.r, y + h / 2), (x + w / 2, o.b), (x, y + h / 2)]


def _hexagon(o: _Bounds) -> list[Point]:
    x, y, r, b, s = o.x, o.y, o.r, o.b, o.slant
    mid = y + o.h / 2
    return [(x + s, y), (r - s, y), (r, mid), (r - s, b), (x + s, b), (x, mid)]


def _parallelogram(o: _Bounds) -> list[Point]:
    return [(o.x + o.slant, o.y), (o.r, o.y), (o.r - o.slant, o.b), (o.x, o.b)]


def _parallelogram_alt(o: _Bounds) -> list[Point]:
    return [(o.x, o.y), (o.r - o.slant, o.y), (o.r, o.b), (o.x + o.slant, o.b)]


def _trapezoid(o: _Bounds) -> list[Point]:
    return [(o.x + o.slant, o.y), (o.r - o.slant, o.y), (o.r, o.b), (o.x, o.b)]


def _trapezoid_alt(o: _Bounds) -> list[Point]:
    return [(o.x, o.y), (o.r, o.y), (o.r - o.slant, o.b), (o.x + o.slant, o.b)]


def _notched_pentagon(o: _Bounds) -> list[Point]:
    x, y, r, b, s = o.x, o.y, o.r, o.b, o.slant
    return [(x + s, y), (r - s, y), (r, y + s), (r, b), (x, b), (x, y + s)]


def _asymmetric(o: _Bounds) -> list[Point]:
    x, y, r, b = o.x, o.y, o.r, o.b
    return [(x, y), (r, y), (r, b), (x, b), (x + o.slant, y + o.h / 2)]


def _notched_rect(o: _Bounds) -> list[Point]:
    x, y, r, b = o.x, o.y, o.r, o.b
    n = 12 * o.k
    return [(x + n, y), (r, y), (r, b), (x, b), (x, y + n)]


def _triangle(o: _Bounds) -> list[Point]:
    return [(o.x + o.w / 2, o.y), (o.r, o.b), (o.x, o.b)]


def _flipped_triangle(o: _Bounds) -> list[Point]:
    return [(o.x, o.y), (o.r, o.y), (o.x + o.w / 2, o.b)]


def _sloped_rect(o: _Bounds) -> list[Point]:
    return [(o.x, o.y + 12 * o.k), (o.r, o.y), (o.r, o.b), (o.x, o.b)]


def _wave_amp(o: _Bounds) -> float:
    return min(o.h * 0.08, 5 * o.k)


def _document(o: _Bounds) -> list[Point]:
    amp = _wave_amp(o)
    return [(o.x, o.y), (o.r, o.y), *reversed(wave(o.x, o.r, o.b - amp, amp))]


def _flag(o: _Bounds) -> list[Point]:
    amp = _wave_amp(o)
    return [*wave(o.x, o.r, o.y + amp, amp), *reversed(wave(o.x, o.r, o.b - amp, amp))]


def _delay(o: _Bounds) -> list[Point]:
    x, y, r, b = o.x, o.y, o.r, o.b
    rad = o.h / 2
    return [(x, y), (r - rad, y), *arc(r - rad, y + rad, rad, rad, -90, 90), (x, b)]


def _curved_trapezoid(o: _Bounds) -> list[Point]:
    x, y, r, b, s = o.x, o.y, o.r, o.b, o.slant
    rad = o.h / 2
    return [
        (x + s, y),
        (r - rad, y),
        *arc(r - rad, y + rad, rad, rad, -90, 90),
        (x + s, b),
        (x, y + o.h / 2),
    ]


def _bow_rect(o: _Bounds) -> list[Point]:
    x, y, r, b, h = o.x, o.y, o.r, o.b, o.h
    c = 10 * o.k
    return [
        (x, y),
        (r, y),
        *arc(r, y + h / 2, c, h / 2, -90, -270, 12),
        (x, b),
        *arc(x, y + h / 2, c, h / 2, 90, -90, 12),
    ]


def _folder(o: _Bounds) -> list[Point]:
    """A box with a tab on its top left (the tab is the 10 px ``labels`` adds on top)."""
    x, y, r, b = o.x, o.y, o.r, o.b
    t = 10 * o.k
    tab = min(o.w * 0.35, 44 * o.k)
    return [(x, y), (x + tab, y), (x + tab + t * 0.6, y + t), (r, y + t), (r, b), (x, b)]


def _rim(o: _Bounds, inset: float, radius: float, step: float) -> list[tuple[Point, Point]]:
    """Points about ``step`` apart round a box inset by ``inset`` with corners of
    ``radius``, clockwise from the top left, each with its outward unit normal."""
    x0, y0, x1, y1 = o.x + inset, o.y + inset, o.r - inset, o.b - inset
    r = max(min(radius, (x1 - x0) / 2, (y1 - y0) / 2), 0.0)
    # Straight runs and quarter arcs in turn: (start, end, normal) or (centre, start angle).
    parts: list[tuple[str, tuple[float, ...]]] = [
        ("line", (x0 + r, y0, x1 - r, y0, 0.0, -1.0)),
        ("arc", (x1 - r, y0 + r, -90.0)),
        ("line", (x1, y0 + r, x1, y1 - r, 1.0, 0.0)),
        ("arc", (x1 - r, y1 - r, 0.0)),
        ("line", (x1 - r, y1, x0 + r, y1, 0.0, 1.0)),
        ("arc", (x0 + r, y1 - r, 90.0)),
        ("line", (x0, y1 - r, x0, y0 + r, -1.0, 0.0)),
        ("arc", (x0 + r, y0 + r, 180.0)),
    ]
    out: list[tuple[Point, Point]] = []
    for kind, v in parts:
        if kind == "line":
            ax, ay, bx, by, nx, ny = v
            n = max(1, math.ceil(math.hypot(bx - ax, by - ay) / step))
            out.extend(
                ((ax + (bx - ax) * i / n, ay + (by - ay) * i / n), (nx, ny)) for i in range(n)
            )
        else:
            cx, cy, a0 = v
            n = max(1, math.ceil(r * math.pi / 2 / step))
            for i in range(n):
                t = math.radians(a0 + 90.0 * i / n)
                out.append(
                    ((cx + r * math.cos(t), cy + r * math.sin(t)), (math.cos(t), math.sin(t)))
                )
    return out


def _lumps(o: _Bounds, depth: float, radius: float, width: float, spiky: bool) -> list[Point]:
    """A rounded box inset by ``depth`` whose rim bulges out to the box edge every
    ``width`` px: round lumps (a cloud) or straight spikes (a bang)."""
    rim = _rim(o, depth, radius, 1.5 * o.k)
    count = max(5, round(len(rim) * 1.5 * o.k / width))
    out = []
    for i, ((px, py), (nx, ny)) in enumerate(rim):
        f = (i * count / len(rim)) % 1.0
        lift = 1 - abs(2 * f - 1) if spiky else math.sin(math.pi * f)
        out.append((px + nx * depth * lift, py + ny * depth * lift))
    return out


def _cloud(o: _Bounds) -> list[Point]:
    # The text keeps 16 px in from the sides and 8 from top and bottom (labels' cloud
    # room): a rim 5 px in with corners of up to 20 px stays clear of it.
    return _lumps(o, 5 * o.k, min(20 * o.k, o.h / 2), 26 * o.k, spiky=False)


def _bang(o: _Bounds) -> list[Point]:
    return _lumps(o, 9 * o.k, min(16 * o.k, o.h / 2), 20 * o.k, spiky=True)


_OUTLINES: dict[str, Callable[[_Bounds], list[Point]]] = {
    "diamond": _diamond,
    "choice": _diamond,
    "hexagon": _hexagon,
    "parallelogram": _parallelogram,
    "parallelogram-alt": _parallelogram_alt,
    "trapezoid": _trapezoid,
    "trapezoid-alt": _trapezoid_alt,
    "notched-pentagon": _notched_pentagon,
    "asymmetric": _asymmetric,
    "notched-rect": _notched_rect,
    "triangle": _triangle,
    "flipped-triangle": _flipped_triangle,
    "sloped-rect": _sloped_rect,
    "document": _document,
    "tagged-document": _document,
    "lined-document": _document,
    "flag": _flag,
    "delay": _delay,
    "curved-trapezoid": _curved_trapezoid,
    "bow-rect": _bow_rect,
    "folder": _folder,
    "cloud": _cloud,
    "bang": _bang,
}


def outline(shape: str, x: float, y: float, w: float, h: float, k: float) -> list[Point] | None:
    """The closed outline of a polygon-like shape, or None for boxes, rounds and figures."""
    make = _OUTLINES.get(shape)
    if make is None:
        return None
    return make(_Bounds(x, y, w, h, x + w, y + h, k, SLANTS.get(shape, 0.0) * h))


# --------------------------------------------------------------------------- shapes


class _Pen(NamedTuple):
    """One shape to draw: its name, box, colours and the unit scale ``k``."""

    shape: str
    x: float
    y: float
    w: float
    h: float
    fill: str
    stroke: str
    k: float

    @property
    def r(self) -> float:
        return self.x + self.w

    @property
    def b(self) -> float:
        return self.y + self.h

    @property
    def sw(self) -> float:
        return max(1.2 * self.k, 0.5)

    def line(self, *pts: Point) -> Path:
        return Path(pts, stroke=self.stroke, width=self.sw)


def _fork(p: _Pen) -> list[Item]:
    # Fork and join bars are solid.
    return [Box(p.x, p.y, p.w, p.h, fill=p.stroke, stroke=None, radius=2 * p.k)]


def _dot(p: _Pen) -> list[Item]:
    return [Ellipse(p.x, p.y, p.w, p.h, p.stroke, p.stroke, p.sw)]


def _round(p: _Pen) -> list[Item]:
    out: list[Item] = [Ellipse(p.x, p.y, p.w, p.h, p.fill, p.stroke, p.sw)]
    if p.shape in ("double-circle", "end"):
        inset = 4 * p.k
        inner_fill = p.stroke if p.shape == "end" else None
        out.append(
            Ellipse(
                p.x + inset,
                p.y + inset,
                p.w - 2 * inset,
                p.h - 2 * inset,
                inner_fill,
                p.stroke,
                p.sw,
            )
        )
    return out


def _no_shape(p: _Pen) -> list[Item]:
    return []


def _figure_box(p: _Pen) -> tuple[float, float, float]:
    """(x, y, size) of the small figure these shapes draw above their label."""
    f = FIGURE * p.k
    return p.x + (p.w - f) / 2, p.y, f


def _hourglass(p: _Pen) -> list[Item]:
    fx, fy, f = _figure_box(p)
    pts = ((fx, fy), (fx + f, fy), (fx, fy + f), (fx + f, fy + f))
    return [Path(pts, stroke=p.stroke, width=p.sw, closed=True, fill=p.fill)]


def _bolt(p: _Pen) -> list[Item]:
    fx, fy, f = _figure_box(p)
    pts = (
        (fx + f * 0.55, fy),
        (fx + f * 0.2, fy + f * 0.55),
        (fx + f * 0.5, fy + f * 0.55),
        (fx + f * 0.35, fy + f),
        (fx + f * 0.85, fy + f * 0.4),
        (fx + f * 0.55, fy + f * 0.4),
    )
    return [Path(pts, stroke=p.stroke, width=p.sw, closed=True, fill=p.fill)]


def _crossed_circle(p: _Pen) -> list[Item]:
    fx, fy, f = _figure_box(p)
    d = f / (2 * math.sqrt(2))
    cx, cy = fx + f / 2, fy + f / 2
    return [
        Ellipse(fx, fy, f, f, p.fill, p.stroke, p.sw),
        p.line((cx - d, cy - d), (cx + d, cy + d)),
        p.line((cx - d, cy + d), (cx + d, cy - d)),
    ]


def _brace(p: _Pen, edge: float, dx: float, c: float) -> Path:
    """A curly brace with its point at ``edge``, its arms ``dx`` inwards, ``c`` tall."""
    y, h, b = p.y, p.h, p.b
    return p.line(
        (edge + 2 * dx, y),
        (edge + dx, y + c),
        (edge + dx, y + h / 2 - c),
        (edge, y + h / 2),
        (edge + dx, y + h / 2 + c),
        (edge + dx, b - c),
        (edge + 2 * dx, b),
    )


def _braces(p: _Pen) -> list[Item]:
    out: list[Item] = []
    c = 6 * p.k
    if p.shape in ("brace-left", "braces"):
        out.append(_brace(p, p.x, c, c))
    if p.shape in ("brace-right", "braces"):
        out.append(_brace(p, p.r, -c, c))
    return out


def _stacked(p: _Pen) -> list[Item]:
    off = 4 * p.k
    base = "rect" if p.shape == "stacked-rect" else "document"
    w, h = p.w - 2 * off, p.h - 2 * off
    out: list[Item] = []
    for i in (2, 1):
        out.extend(
            shape_items(base, p.x + off * i, p.y + off * (2 - i), w, h, p.fill, p.stroke, p.k)
        )
    out.extend(shape_items(base, p.x, p.y + 2 * off, w, h, p.fill, p.stroke, p.k))
    return out


def _cylinder(p: _Pen) -> list[Item]:
    x, y, w, h, r, b = p.x, p.y, p.w, p.h, p.r, p.b
    cap = min(h * 0.25, 14 * p.k)
    out: list[Item] = [
        Box(x, y + cap / 2, w, h - cap, fill=p.fill, stroke=None),
        p.line((x, y + cap / 2), (x, b - cap / 2)),
        p.line((r, y + cap / 2), (r, b - cap / 2)),
        p.line(*arc(x + w / 2, b - cap / 2, w / 2, cap / 2, 0, 180)),
        Ellipse(x, y, w, cap, p.fill, p.stroke, p.sw),
    ]
    if p.shape == "lined-cylinder":
        out.append(p.line(*arc(x + w / 2, y + cap, w / 2, cap / 2, 0, 180)))
    return out


def _h_cylinder(p: _Pen) -> list[Item]:
    x, y, w, h, r, b = p.x, p.y, p.w, p.h, p.r, p.b
    cap = min(w * 0.2, 12 * p.k)
    return [
        Box(x + cap / 2, y, w - cap, h, fill=p.fill, stroke=None),
        p.line((x + cap / 2, y), (r - cap / 2, y)),
        p.line((x + cap / 2, b), (r - cap / 2, b)),
        p.line(*arc(x + cap / 2, y + h / 2, cap / 2, h / 2, 90, 270)),
        Ellipse(r - cap, y, cap, h, p.fill, p.stroke, p.sw),
    ]


def _datastore(p: _Pen) -> list[Item]:
    """Filled, with lines along the top and the bottom and open sides (Mermaid's data store)."""
    return [
        Box(p.x, p.y, p.w, p.h, fill=p.fill, stroke=None),
        p.line((p.x, p.y), (p.r, p.y)),
        p.line((p.x, p.b), (p.r, p.b)),
    ]


def _person(p: _Pen) -> list[Item]:
    """A round head over a rounded body; the body, drawn last, hides the head's chin."""
    head = 24 * p.k
    cx = p.x + p.w / 2
    return [
        Ellipse(cx - head / 2, p.y, head, head, p.fill, p.stroke, p.sw),
        Box(
            p.x,
            p.y + head * 0.8,
            p.w,
            p.h - head * 0.8,
            fill=p.fill,
            stroke=p.stroke,
            width=p.sw,
            radius=10 * p.k,
        ),
    ]


def _console(p: _Pen) -> list[Item]:
    """A terminal window: a rounded box with a prompt (``>_``) in its top left."""
    k = p.k
    px, py = p.x + 8 * k, p.y + 5 * k
    return [
        Box(p.x, p.y, p.w, p.h, fill=p.fill, stroke=p.stroke, width=p.sw, radius=6 * k),
        p.line((px, py), (px + 4 * k, py + 3.5 * k), (px, py + 7 * k)),
        p.line((px + 6 * k, py + 7 * k), (px + 12 * k, py + 7 * k)),
    ]


def _browser(p: _Pen) -> list[Item]:
    """A browser window: three dots and an address bar along its top."""
    k = p.k
    dot = 4 * k
    out: list[Item] = [
        Box(p.x, p.y, p.w, p.h, fill=p.fill, stroke=p.stroke, width=p.sw, radius=4 * k)
    ]
    out.extend(
        Ellipse(p.x + (7 + 6 * i) * k, p.y + 6 * k, dot, dot, p.stroke, None, 0.0) for i in range(3)
    )
    bar_x = p.x + 30 * k
    if p.r - 6 * k - bar_x > 12 * k:
        out.append(
            Box(
                bar_x,
                p.y + 4.5 * k,
                min(p.r - 6 * k - bar_x, 60 * k),
                7 * k,
                fill=None,
                stroke=p.stroke,
                width=p.sw * 0.8,
                radius=3.5 * k,
            )
        )
    return out


def _bucket(p: _Pen) -> list[Item]:
    """A pail: an open rim on top, sides narrowing to a rounded bottom."""
    x, y, w, r, b = p.x, p.y, p.w, p.r, p.b
    cap = min(p.h * 0.25, 12 * p.k)
    s = 8 * p.k
    bottom = arc(x + w / 2, b - cap / 2, w / 2 - s, cap / 2, 0, 180)
    # The bottom arc runs right to left: reversed, it joins the left side to the right one.
    body = [(x, y + cap / 2), *reversed(bottom), (r, y + cap / 2)]
    return [
        Path(tuple(body), stroke=p.stroke, width=p.sw, closed=True, fill=p.fill),
        Ellipse(x, y, w, cap, p.fill, p.stroke, p.sw),
    ]


_DRAWERS: dict[str, Callable[[_Pen], list[Item]]] = {
    "fork": _fork,
    "start": _dot,
    "filled-circle": _dot,
    "circle": _round,
    "double-circle": _round,
    "end": _round,
    "ellipse": _round,
    "text": _no_shape,
    "hourglass": _hourglass,
    "bolt": _bolt,
    "crossed-circle": _crossed_circle,
    "brace-left": _braces,
    "brace-right": _braces,
    "braces": _braces,
    "stacked-rect": _stacked,
    "stacked-document": _stacked,
    "cylinder": _cylinder,
    "lined-cylinder": _cylinder,
    "h-cylinder": _h_cylinder,
    "datastore": _datastore,
    "person": _person,
    "console": _console,
    "browser": _browser,
    "bucket": _bucket,
}


def _lined_document(p: _Pen) -> list[Item]:
    return [p.line((p.x + 10 * p.k, p.y), (p.x + 10 * p.k, p.b - 4 * p.k))]


def _tagged_document(p: _Pen) -> list[Item]:
    t = min(p.w, p.h) * 0.25
    return [p.line((p.r - t, p.b - 2 * p.k), (p.r, p.b - t - 2 * p.k))]


_OUTLINE_MARKS: dict[str, Callable[[_Pen], list[Item]]] = {
    "lined-document": _lined_document,
    "tagged-document": _tagged_document,
}


def _outlined(p: _Pen, pts: list[Point]) -> list[Item]:
    out: list[Item] = [Path(tuple(pts), stroke=p.stroke, width=p.sw, closed=True, fill=p.fill)]
    marks = _OUTLINE_MARKS.get(p.shape)
    if marks is not None:
        out.extend(marks(p))
    return out


def _box_radius(p: _Pen) -> float:
    return {
        "round": 10 * p.k,
        "stadium": p.h / 2,
        "subroutine": 2 * p.k,
        "cloud": p.h / 2.5,
        "person": p.h / 3,
        "rect": 2 * p.k,
    }.get(p.shape, 3 * p.k)


def _subroutine(p: _Pen) -> list[Item]:
    i = 8 * p.k
    return [p.line((p.x + i, p.y), (p.x + i, p.b)), p.line((p.r - i, p.y), (p.r - i, p.b))]


def _lined_rect(p: _Pen) -> list[Item]:
    return [p.line((p.x + 8 * p.k, p.y), (p.x + 8 * p.k, p.b))]


def _divided_rect(p: _Pen) -> list[Item]:
    return [p.line((p.x, p.y + 10 * p.k), (p.r, p.y + 10 * p.k))]


def _window_pane(p: _Pen) -> list[Item]:
    return [*_divided_rect(p), p.line((p.x + 10 * p.k, p.y), (p.x + 10 * p.k, p.b))]


def _tagged_rect(p: _Pen) -> list[Item]:
    t = min(p.w, p.h) * 0.25
    return [p.line((p.r - t, p.b), (p.r, p.b - t))]


_BOX_MARKS: dict[str, Callable[[_Pen], list[Item]]] = {
    "subroutine": _subroutine,
    "lined-rect": _lined_rect,
    "divided-rect": _divided_rect,
    "window-pane": _window_pane,
    "tagged-rect": _tagged_rect,
}


def _boxed(p: _Pen) -> list[Item]:
    box = Box(p.x, p.y, p.w, p.h, fill=p.fill, stroke=p.stroke, width=p.sw, radius=_box_radius(p))
    out: list[Item] = [box]
    marks = _BOX_MARKS.get(p.shape)
    if marks is not None:
        out.extend(marks(p))
    return out


def shape_items(
    shape: str, x: float, y: float, w: float, h: float, fill: str, stroke: str, k: float
) -> list[Item]:
    """The items of node ``shape`` in the box (x, y, w, h); any unknown shape is a box."""
    pen = _Pen(shape, x, y, w, h, fill, stroke, k)
    drawer = _DRAWERS.get(shape)
    if drawer is not None:
        return drawer(pen)
    pts = outline(shape, x, y, w, h, k)
    if pts is not None:
        return _outlined(pen, pts)
    return _boxed(pen)
