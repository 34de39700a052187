"""The display list: boxes, ellipses, text runs, paths and images in board pixels.

Faces are laid out once into a :class:`Scene`; :func:`to_svg` and
:func:`to_png` write the same items, so both outputs share one geometry. Text
runs carry their lines already wrapped with the bundled font metrics, and both
writers place line ``i`` of a run at the same baseline::

    baseline = y + i * line_height + (line_height - size) / 2 + ascent(size)

Arrowheads are ordinary closed paths, so no writer needs SVG markers.
"""

from __future__ import annotations

import io
import itertools
import math
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Literal

import attrs
from PIL import Image as PILImage
from PIL import ImageDraw, ImageFont

from layoutkit.layout.cuts import clipped, left_out, more
from layoutkit.layout.text import (
    FontName,
    ascent,
    fit_prefix,
    font_path,
    line_height,
    text_width,
    wrap,
)
from layoutkit.render._images import BLOB_MARK, PIXELS, Fit, data_of, place_blobs, source_key
from layoutkit.render._safe import esc, safe_url

Anchor = Literal["start", "middle", "end"]


@attrs.frozen(slots=True)
class Box:
    x: float
    y: float
    w: float
    h: float
    fill: str | None = None
    stroke: str | None = None
    width: float = 1.0
    radius: float = 0.0
    dash: tuple[float, ...] | None = None
    opacity: float = 1.0


@attrs.frozen(slots=True)
class Ellipse:
    x: float
    y: float
    w: float
    h: float
    fill: str | None = None
    stroke: str | None = None
    width: float = 1.0
    dash: tuple[float, ...] | None = None


@attrs.frozen(slots=True)
class Text:
    x: float
    y: float  # top of the first line box
    lines: tuple[str, ...]
    size: float = 14.0
    font: FontName = "sans"
    fill: str = "#1d2230"
    line_height: float = 0.0  # 0 means line_height(size)
    anchor: Anchor = "start"
    # Slanted glyphs: SVG asks for the font's italic, the PNG writer shears the upright font
    # (no italic face is bundled; the advances stay those of the upright one).
    italic: bool = False

    @property
    def lh(self) -> float:
        return self.line_height or line_height(self.size)

    @property
    def height(self) -> float:
        return self.lh * len(self.lines)

    def baseline(self, index: int) -> float:
        return self.y + index * self.lh + (self.lh - self.size) / 2 + ascent(self.size, self.font)


@attrs.frozen(slots=True)
class Path:
    points: tuple[tuple[float, float], ...]
    stroke: str | None = "#5f6878"
    width: float = 1.5
    dash: tuple[float, ...] | None = None
    closed: bool = False
    fill: str | None = None


@attrs.frozen(slots=True)
class Image:
    """A picture by address: ``cover`` fills the box (cropping at the centre),
    ``contain`` shows all of it inside the box. A PNG draws it from the
    scene's ``images`` (blobs) or a ``data:`` URL, and a placeholder saying it
    cannot be shown when it is missing or undecodable; an SVG links it."""

    x: float
    y: float
    w: float
    h: float
    href: str
    fit: Fit = "cover"
    #: What the picture is (its alt text or file name): a broken one says which it was.
    label: str = ""


@attrs.frozen(slots=True)
class Mark:
    """An invisible box naming the card drawn under it (SVG only; PNG skips it).

    Viewers and tests find cards by it: ``data-card-id`` and ``data-kind``.
    """

    x: float
    y: float
    w: float
    h: float
    card_id: str
    kind: str


@attrs.frozen(slots=True)
class WireMark:
    """An invisible trace of a wire over its drawing (SVG only; PNG skips it): its
    route and its label's box, so a viewer finds the wire under a pointer
    (``data-edge-id``)."""

    points: tuple[tuple[float, float], ...]
    edge_id: str
    label: tuple[float, float, float, float] | None = None


@attrs.frozen(slots=True)
class NodeMark:
    """An invisible box over a diagram node (SVG only; PNG skips it): a viewer finds
    the node under a pointer by it (``data-node-id``) to move or relabel it."""

    x: float
    y: float
    w: float
    h: float
    node_id: str


@attrs.define(eq=False)
class Group:
    """Items drawn together, as one card's face: kept whole by a cache of faces, which
    also keeps the SVG text of the items once :func:`to_svg` wrote it.

    A face read back from storage comes as its SVG text alone (``items`` None):
    enough for SVG; a PNG draws the face again.
    """

    items: tuple[Box | Ellipse | Text | Path | Image | Mark | WireMark | NodeMark, ...] | None
    svg: str | None = None


@attrs.frozen(slots=True)
class Placed:
    """A face drawn at the origin, shown at (dx, dy): the face stays the same, and
    so does its cached SVG, wherever the card moves."""

    face: Group
    dx: float
    dy: float
    #: The card the face belongs to: its blob images are linked through it.
    card: str | None = None


Item = Box | Ellipse | Text | Path | Image | Mark | WireMark | NodeMark | Group | Placed


@attrs.define
class Scene:
    width: float
    height: float
    items: list[Item] = attrs.field(factory=list)
    background: str = "#f7f8fa"
    #: Blob bytes by key, for the pictures a PNG draws (an SVG links them instead).
    images: Mapping[str, bytes] = attrs.field(factory=dict)

    def add(self, *items: Item) -> None:
        self.items.extend(items)


def text_run(
    x: float,
    y: float,
    text: str,
    max_width: float,
    *,
    size: float = 14.0,
    font: FontName = "sans",
    fill: str = "#1d2230",
    max_lines: int | None = None,
    anchor: Anchor = "start",
) -> Text:
    """A wrapped text run; lines beyond ``max_lines`` are cut and the last one ends in '…'."""
    lines = wrap(str(text), max(max_width, size), size, font) if text else [""]
    if max_lines is not None and len(lines) > max_lines:
        left = len(lines) - max(max_lines, 1)
        lines = lines[: max(max_lines, 1)]
        marker = left_out(f"{more(left, 'line')} of {clipped(text)[11:]}", "…")
        lines[-1] = fit_prefix(lines[-1], max_width, size, font, "…").rstrip() + marker
    return Text(x, y, tuple(lines), size, font, fill, 0.0, anchor)


def fit_line(text: str, max_width: float, size: float, font: FontName = "sans") -> str:
    """``text`` cut to one line of ``max_width`` with an ellipsis when it overflows."""
    text = " ".join(str(text).split())
    if text_width(text, size, font) <= max_width:
        return text
    return fit_prefix(text, max_width, size, font, "…").rstrip() + left_out(clipped(text), "…")


def arrowhead(
    tail: tuple[float, float], tip: tuple[float, float], color: str, size: float = 9.0
) -> Path:
    """A filled triangle at ``tip`` pointing away from ``tail``."""
    dx, dy = tip[0] - tail[0], tip[1] - tail[1]
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    bx, by = tip[0] - ux * size, tip[1] - uy * size
    half = size * 0.5
    return Path(
        ((tip[0], tip[1]), (bx - uy * half, by + ux * half), (bx + uy * half, by - ux * half)),
        stroke=None,
        width=0,
        closed=True,
        fill=color,
    )


# ------------------------------------------------------------------ SVG writer

_FAMILY = {
    "sans": "DejaVu Sans, Verdana, sans-serif",
    "sans-bold": "DejaVu Sans, Verdana, sans-serif",
    "mono": "DejaVu Sans Mono, Menlo, monospace",
}


@lru_cache(maxsize=1 << 16)
def _n(v: float) -> str:
    # Called for every coordinate of an SVG (a quarter of a million for 5,000 cards,
    # a tenth of them distinct): a cached value is looked up in a third of the time.
    i = int(v)
    if v == i:
        return str(i)
    s = f"{v:.1f}"
    return s[:-2] if s.endswith(".0") else s


@lru_cache(maxsize=1024)
def _color(value: str) -> str:
    # A board uses a few dozen colours, escaped once each instead of per item.
    return esc(value)


def _paint(
    fill: str | None, stroke: str | None, width: float, dash: tuple[float, ...] | None
) -> str:
    out = f' fill="{_color(fill)}"' if fill else ' fill="none"'
    if stroke and width > 0:
        out += f' stroke="{_color(stroke)}" stroke-width="{_n(width)}"'
        if dash:
            out += f' stroke-dasharray="{" ".join(_n(d) for d in dash)}"'
    return out


def _svg_item(item: Item) -> str:
    if isinstance(item, Box):
        rx = f' rx="{_n(item.radius)}"' if item.radius else ""
        op = f' opacity="{item.opacity:.2f}"' if item.opacity < 1 else ""
        return (
            f'<rect x="{_n(item.x)}" y="{_n(item.y)}" width="{_n(max(item.w, 0))}" '
            f'height="{_n(max(item.h, 0))}"{rx}{_paint(item.fill, item.stroke, item.width, item.dash)}{op}/>'
        )
    if isinstance(item, Ellipse):
        return (
            f'<ellipse cx="{_n(item.x + item.w / 2)}" cy="{_n(item.y + item.h / 2)}" '
            f'rx="{_n(item.w / 2)}" ry="{_n(item.h / 2)}"{_paint(item.fill, item.stroke, item.width, item.dash)}/>'
        )
    if isinstance(item, Text):
        if not any(item.lines):
            return ""
        weight = ' font-weight="bold"' if item.font == "sans-bold" else ""
        weight += ' font-style="italic"' if item.italic else ""
        anchor = f' text-anchor="{item.anchor}"' if item.anchor != "start" else ""
        spans = "".join(
            f'<tspan x="{_n(item.x)}" y="{_n(item.baseline(i))}">{esc(line)}</tspan>'
            for i, line in enumerate(item.lines)
            if line
        )
        return (
            f'<text font-family="{_FAMILY[item.font]}" font-size="{_n(item.size)}"{weight} '
            f'fill="{_color(item.fill)}"{anchor} xml:space="preserve">{spans}</text>'
        )
    if isinstance(item, Path):
        pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in item.points)
        tag = "polygon" if item.closed else "polyline"
        paint = _paint(item.fill if item.closed else None, item.stroke, item.width, item.dash)
        return f'<{tag} points="{pts}"{paint} stroke-linejoin="round" stroke-linecap="round"/>'
    if isinstance(item, Image):
        href = safe_url(item.href, image=True)
        if not href:
            return ""
        ratio = "slice" if item.fit == "cover" else "meet"
        return (
            f'<image x="{_n(item.x)}" y="{_n(item.y)}" width="{_n(item.w)}" height="{_n(item.h)}" '
            f'href="{esc(href)}" preserveAspectRatio="xMidYMid {ratio}"'
            # the label names the picture to screen readers and on hover
            + (f"><title>{esc(item.label)}</title></image>" if item.label else "/>")
        )
    if isinstance(item, Placed):
        face = group_svg(item.face)
        if item.card is not None:
            face = place_blobs(face, item.card)
        return f'<g transform="translate({_n(item.dx)},{_n(item.dy)})">{face}</g>'
    if isinstance(item, Group):
        return group_svg(item)
    if isinstance(item, Mark | WireMark | NodeMark):
        return _mark_svg(item)
    raise TypeError(f"not a scene item: {item!r}")


def _mark_svg(item: Mark | WireMark | NodeMark) -> str:
    """The invisible marks a viewer finds cards, wires and diagram nodes by."""
    if isinstance(item, NodeMark):
        return (
            f'<rect class="dnode" data-node-id="{esc(item.node_id)}" x="{_n(item.x)}" '
            f'y="{_n(item.y)}" width="{_n(max(item.w, 0))}" height="{_n(max(item.h, 0))}" '
            'fill="none" pointer-events="none"/>'
        )
    if isinstance(item, Mark):
        return (
            f'<rect class="card" data-card-id="{esc(item.card_id)}" data-kind="{esc(item.kind)}" '
            f'x="{_n(item.x)}" y="{_n(item.y)}" width="{_n(max(item.w, 0))}" '
            f'height="{_n(max(item.h, 0))}" fill="none" pointer-events="all"/>'
        )
    pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in item.points)
    label = ""
    if item.label is not None:
        lx, ly, lw, lh = item.label
        label = f'<rect x="{_n(lx)}" y="{_n(ly)}" width="{_n(lw)}" height="{_n(lh)}"/>'
    return (
        f'<g class="wire" data-edge-id="{esc(item.edge_id)}" fill="none" stroke="none" '
        f'pointer-events="none"><polyline points="{pts}"/>{label}</g>'
    )


def group_svg(group: Group) -> str:
    """The SVG text of a group's items, written once and kept on the group."""
    if group.svg is None:
        group.svg = "".join(_svg_item(i) for i in group.items or ())
    return group.svg


def to_svg(scene: Scene, *, title: str | None = None) -> str:
    """The scene as a standalone SVG document (no scripts, no external fonts)."""
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(scene.width)}" height="{_n(scene.height)}" '
        f'viewBox="0 0 {_n(scene.width)} {_n(scene.height)}">'
    )
    if title:
        head += f"<title>{esc(title)}</title>"
    body = (
        [f'<rect width="100%" height="100%" fill="{esc(scene.background)}"/>']
        if scene.background
        else []
    )
    body.extend(_svg_item(item) for item in scene.items)
    return head + "".join(body) + "</svg>"


def to_svg_fragment(scene: Scene, label: str) -> str:
    """The scene as inline SVG for HTML: scales to its container by viewBox."""
    inner = "".join(_svg_item(item) for item in scene.items)
    bg = (
        f'<rect width="100%" height="100%" fill="{esc(scene.background)}"/>'
        if scene.background
        else ""
    )
    return (
        f'<svg viewBox="0 0 {_n(scene.width)} {_n(scene.height)}" role="img" aria-label="{esc(label)}" '
        f'xmlns="http://www.w3.org/2000/svg" style="max-width:{_n(scene.width)}px">{bg}{inner}</svg>'
    )


# ------------------------------------------------------------------ PNG writer


@lru_cache(maxsize=128)
def _font(font: str, px: float) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(font_path(font), size=max(px, 1.0))  # type: ignore[arg-type]


@lru_cache(maxsize=1024)  # a board uses few colours; parsed once each, not per item
def _rgba(color: str | None, opacity: float = 1.0) -> tuple[int, int, int, int] | None:
    if not color or color == "none":
        return None
    c = color.lstrip("#")
    if len(c) == 3:
        c = "".join(ch * 2 for ch in c)
    try:
        r, g, b = int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)
        a = int(c[6:8], 16) if len(c) >= 8 else 255
    except (ValueError, IndexError):
        return (128, 128, 128, int(255 * opacity))
    return (r, g, b, int(a * opacity))


def _px(dash: tuple[float, ...], s: float) -> tuple[float, ...]:
    return tuple(d * s for d in dash)


def _rounded_outline(
    x0: float, y0: float, x1: float, y1: float, r: float
) -> list[tuple[float, float]]:
    """The closed outline of a box with corners of radius ``r``, as points (for dashes)."""
    if r < 1:
        return [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
    pts: list[tuple[float, float]] = []
    steps = max(3, math.ceil(r / 2))
    # Corner centres clockwise from the top right, each arc a quarter turn on from the last.
    for k, (cx, cy) in enumerate(
        ((x1 - r, y0 + r), (x1 - r, y1 - r), (x0 + r, y1 - r), (x0 + r, y0 + r))
    ):
        a0 = -math.pi / 2 + k * math.pi / 2
        pts.extend(
            (
                cx + r * math.cos(a0 + math.pi / 2 * i / steps),
                cy + r * math.sin(a0 + math.pi / 2 * i / steps),
            )
            for i in range(steps + 1)
        )
    pts.append(pts[0])
    return pts


def _dashed(
    draw: ImageDraw.ImageDraw,
    pts: list[tuple[float, float]],
    color: tuple,
    width: int,
    dash: tuple[float, ...],
) -> None:
    pattern = [max(d, 0.5) for d in dash] or [4.0]
    idx, left, on = 0, pattern[0], True
    for (x0, y0), (x1, y1) in itertools.pairwise(pts):
        seg = math.hypot(x1 - x0, y1 - y0)
        pos = 0.0
        while pos < seg:
            step = min(left, seg - pos)
            if on:
                t0, t1 = pos / seg, (pos + step) / seg
                draw.line(
                    [
                        (x0 + (x1 - x0) * t0, y0 + (y1 - y0) * t0),
                        (x0 + (x1 - x0) * t1, y0 + (y1 - y0) * t1),
                    ],
                    fill=color,
                    width=width,
                )
            pos += step
            left -= step
            if left <= 1e-9:
                idx = (idx + 1) % len(pattern)
                left, on = pattern[idx], not on


def png_scale(width: float, height: float, max_dim: int, scale: float | None = None) -> float:
    """Picture pixels per board pixel of a ``width`` x ``height`` scene: ``scale`` when
    given (capped so the longest side stays within :data:`PNG_HARD_MAX`), else the
    longest side at most ``max_dim`` (never scaled up)."""
    longest = max(width, height, 1.0)
    if scale is not None and scale > 0:
        return min(scale, PNG_HARD_MAX / longest)
    return min(1.0, max_dim / longest)


#: The longest side of any PNG, whatever scale is asked: 8192 px of RGB is 200 MB.
PNG_HARD_MAX = 8192


def to_png(scene: Scene, *, max_dim: int = 1600, scale: float | None = None) -> bytes:
    """Rasterise the scene; the longest side is at most ``max_dim`` pixels (never upscaled),
    or, with ``scale``, ``scale`` pixels per board pixel (at most :data:`PNG_HARD_MAX`).

    Text smaller than 3 device pixels is drawn as a grey bar of its measured
    width (greeking): glyphs that small are unreadable and slow to set.
    """
    s = png_scale(scene.width, scene.height, max_dim, scale)
    size = (max(1, round(scene.width * s)), max(1, round(scene.height * s)))
    img = PILImage.new("RGB", size, _rgba(scene.background or "#ffffff")[:3])  # type: ignore[index]
    draw = ImageDraw.Draw(img, "RGBA")
    _draw(draw, scene.items, s, pictures=_Pictures(img, scene.images))
    out = io.BytesIO()
    # The fastest zlib level: on a 5,000-card board picture it took two thirds of the
    # default level's time (56 ms against 84) for a file half again as large.
    img.save(out, format="PNG", optimize=False, compress_level=1)
    return out.getvalue()


@attrs.frozen
class _Pictures:
    """What a PNG pastes pictures onto, and the blob bytes it may decode."""

    canvas: PILImage.Image
    images: Mapping[str, bytes]

    def paste(self, draw: ImageDraw.ImageDraw, item: Image, s: float, ox: float, oy: float) -> None:
        x0, y0 = round((item.x + ox) * s), round((item.y + oy) * s)
        w, h = round(item.w * s), round(item.h * s)
        if w < 1 or h < 1:
            return
        href = safe_url(item.href, image=True) or ""
        source = source_key(href) if href else None
        if source is None:
            return  # an address only a browser could fetch: the placeholder under it stays
        fitted = PIXELS.fitted(source, lambda: data_of(href, self.images), w, h, item.fit)
        if fitted is None:
            if href.startswith(BLOB_MARK) and href[len(BLOB_MARK) :] not in self.images:
                return  # not handed in (over the picture's budget): the placeholder stays
            _broken(draw, x0, y0, w, h, s, item.label)
            return
        px, py = x0 + (w - fitted.width) // 2, y0 + (h - fitted.height) // 2
        mask = fitted if fitted.mode == "RGBA" else None
        self.canvas.paste(fitted, (px, py), mask)


def _broken(
    draw: ImageDraw.ImageDraw, x: int, y: int, w: int, h: int, s: float, label: str = ""
) -> None:
    """A picture that cannot be shown: a crossed frame, a line saying so and which it was."""
    ink = (179, 38, 30, 255)
    draw.rectangle([x, y, x + w - 1, y + h - 1], fill=(253, 236, 234, 255), outline=ink)
    draw.line([(x, y), (x + w - 1, y + h - 1)], fill=(179, 38, 30, 90), width=1)
    draw.line([(x, y + h - 1), (x + w - 1, y)], fill=(179, 38, 30, 90), width=1)
    px = 12 * max(s, 0.25)
    if px >= 3 and w > 40:
        font = _font("sans", px)
        said = fit_line("image cannot be shown", (w - 8) / s, 12)
        below = h > 3 * px and bool(label)
        middle = y + h / 2 - (px * 0.7 if below else 0)
        draw.text((x + w / 2, middle), said, font=font, fill=ink, anchor="mm")
        if below:
            name = fit_line(label, (w - 8) / s, 12)
            draw.text((x + w / 2, middle + px * 1.4), name, font=font, fill=ink, anchor="mm")


def _draw(
    draw: ImageDraw.ImageDraw,
    items: Iterable[Item],
    s: float,
    ox: float = 0.0,
    oy: float = 0.0,
    *,
    pictures: _Pictures | None = None,
) -> None:
    """Draw ``items`` at scale ``s``, moved by (ox, oy) board units (a placed face)."""
    for item in items:
        for kind, drawer in _DRAWERS:
            if isinstance(item, kind):
                drawer(draw, item, s, ox, oy, pictures)
                break


def _draw_placed(
    draw: ImageDraw.ImageDraw,
    item: Placed,
    s: float,
    ox: float,
    oy: float,
    pictures: _Pictures | None,
) -> None:
    if item.face.items is None:
        raise ValueError("a face read back as SVG text has no items to draw as PNG")
    _draw(draw, item.face.items, s, ox + item.dx, oy + item.dy, pictures=pictures)


def _draw_group(
    draw: ImageDraw.ImageDraw,
    item: Group,
    s: float,
    ox: float,
    oy: float,
    pictures: _Pictures | None,
) -> None:
    _draw(draw, item.items or (), s, ox, oy, pictures=pictures)


def _draw_image(
    draw: ImageDraw.ImageDraw,
    item: Image,
    s: float,
    ox: float,
    oy: float,
    pictures: _Pictures | None,
) -> None:
    # A picture only a browser could fetch (an http address) is never fetched
    # here (no I/O): its placeholder stays.
    if pictures is not None:
        pictures.paste(draw, item, s, ox, oy)


def _draw_box(
    draw: ImageDraw.ImageDraw,
    item: Box,
    s: float,
    ox: float,
    oy: float,
    pictures: _Pictures | None,
) -> None:
    x0, y0 = (item.x + ox) * s, (item.y + oy) * s
    x1, y1 = x0 + max(item.w * s, 0.5), y0 + max(item.h * s, 0.5)
    fill = _rgba(item.fill, item.opacity)
    stroke = _rgba(item.stroke, item.opacity)
    width = max(1, round(item.width * s)) if stroke else 0
    r = min(item.radius * s, (x1 - x0) / 2, (y1 - y0) / 2)
    if item.dash and stroke:
        if fill and r >= 1:
            draw.rounded_rectangle([x0, y0, x1, y1], radius=r, fill=fill)
        elif fill:
            draw.rectangle([x0, y0, x1, y1], fill=fill)
        _dashed(draw, _rounded_outline(x0, y0, x1, y1, r), stroke, width, _px(item.dash, s))
    elif item.radius * s >= 1 and x1 - x0 > 2 and y1 - y0 > 2:
        draw.rounded_rectangle([x0, y0, x1, y1], radius=r, fill=fill, outline=stroke, width=width)
    else:
        draw.rectangle([x0, y0, x1, y1], fill=fill, outline=stroke, width=width)


def _draw_ellipse(
    draw: ImageDraw.ImageDraw,
    item: Ellipse,
    s: float,
    ox: float,
    oy: float,
    pictures: _Pictures | None,
) -> None:
    stroke = _rgba(item.stroke)
    box = [
        (item.x + ox) * s,
        (item.y + oy) * s,
        (item.x + ox + item.w) * s,
        (item.y + oy + item.h) * s,
    ]
    width = max(1, round(item.width * s)) if stroke else 0
    if item.dash and stroke:
        draw.ellipse(box, fill=_rgba(item.fill))
        rx, ry = (box[2] - box[0]) / 2, (box[3] - box[1]) / 2
        cx, cy = box[0] + rx, box[1] + ry
        # Enough points that each chord is under two pixels: the dashes follow the curve.
        n = max(16, math.ceil(math.pi * (rx + ry) / 2))
        ring = [
            (cx + rx * math.cos(2 * math.pi * i / n), cy + ry * math.sin(2 * math.pi * i / n))
            for i in range(n + 1)
        ]
        _dashed(draw, ring, stroke, width, _px(item.dash, s))
        return
    draw.ellipse(box, fill=_rgba(item.fill), outline=stroke, width=width)


def _draw_text(
    draw: ImageDraw.ImageDraw,
    item: Text,
    s: float,
    ox: float,
    oy: float,
    pictures: _Pictures | None,
) -> None:
    color = _rgba(item.fill)
    px = item.size * s
    for i, line in enumerate(item.lines):
        if not line:
            continue
        base = (item.baseline(i) + oy) * s
        w = text_width(line, item.size, item.font) * s
        x = (item.x + ox) * s - (
            w if item.anchor == "end" else w / 2 if item.anchor == "middle" else 0
        )
        if px < 3:
            # Too small to read: a grey bar keeps the line's place and weight.
            grey = (*color[:3], 90) if color else (128, 128, 128, 90)
            draw.rectangle([x, base - px * 0.7, x + w, base], fill=grey)
        elif item.italic and pictures is not None:
            _slanted_line(pictures.canvas, (x, base), line, _font(item.font, px), color)
        else:
            draw.text((x, base), line, font=_font(item.font, px), fill=color, anchor="ls")


#: Horizontal lean of synthetic italics per unit of height (about 12 degrees, as
#: DejaVu Sans Oblique leans).
ITALIC_SLANT = 0.21


def _slanted_line(
    canvas: PILImage.Image,
    at: tuple[float, float],
    line: str,
    font: ImageFont.FreeTypeFont,
    color: tuple[int, ...] | None,
) -> None:
    """One line set upright into a mask, sheared about its baseline and pasted at ``at``."""
    ascent, descent = font.getmetrics()
    width = math.ceil(font.getlength(line)) + 2
    lean = math.ceil(ITALIC_SLANT * ascent) + 1
    mask = PILImage.new("L", (width + 2 * lean, ascent + descent + 2), 0)
    ImageDraw.Draw(mask).text((lean, ascent + 1), line, font=font, fill=255, anchor="ls")
    # Output (u, v) reads input (u - slant * (baseline - v), v): rows above the baseline
    # move right, those under it left, so the baseline stays put.
    base = ascent + 1
    sheared = mask.transform(
        mask.size,
        PILImage.Transform.AFFINE,
        (1.0, ITALIC_SLANT, -ITALIC_SLANT * base, 0.0, 1.0, 0.0),
        resample=PILImage.Resampling.BILINEAR,
    )
    rgba = color or (0, 0, 0, 255)
    ink = PILImage.new("RGB", mask.size, rgba[:3])
    if len(rgba) > 3 and rgba[3] < 255:
        sheared = sheared.point(lambda v: v * rgba[3] // 255)
    canvas.paste(ink, (round(at[0] - lean), round(at[1] - base)), sheared)


def _draw_path(
    draw: ImageDraw.ImageDraw,
    item: Path,
    s: float,
    ox: float,
    oy: float,
    pictures: _Pictures | None,
) -> None:
    pts = [((x + ox) * s, (y + oy) * s) for x, y in item.points]
    if len(pts) < 2:
        return
    stroke = _rgba(item.stroke)
    width = max(1, round(item.width * s))
    if item.closed and item.dash and stroke:
        draw.polygon(pts, fill=_rgba(item.fill))
        _dashed(draw, [*pts, pts[0]], stroke, width, _px(item.dash, s))
    elif item.closed:
        draw.polygon(pts, fill=_rgba(item.fill), outline=stroke, width=width if stroke else 1)
    elif stroke:
        if item.dash:
            _dashed(draw, pts, stroke, width, _px(item.dash, s))
        else:
            draw.line(pts, fill=stroke, width=width, joint="curve")


# Checked in order with isinstance, as the one if/elif chain was; kinds not
# listed (a Mark) draw nothing in a PNG.
_DRAWERS: tuple[tuple[type, Callable[..., None]], ...] = (
    (Placed, _draw_placed),
    (Group, _draw_group),
    (Image, _draw_image),
    (Box, _draw_box),
    (Ellipse, _draw_ellipse),
    (Text, _draw_text),
    (Path, _draw_path),
)
