"""The display list as PDF pages: the third writer of the scene SVG and PNG share.

Shapes stay vector paths and text stays text, set in the bundled DejaVu fonts (embedded
as subsets), so a page zooms without blur and its words can be selected and searched.
Every coordinate is a board pixel drawn at ``origin + px * scale`` points: the same
geometry, wrapping and baselines as the other writers (:mod:`layoutkit.render._scene`).

Pictures come from the scene's blob bytes or ``data:`` URLs, decoded as the PNG writer
decodes them (at most :data:`~layoutkit.render._images.DECODE_MAX` px a side, which
prints a full-page picture at 170 dpi); one that cannot be decoded is drawn as a
placeholder saying so, and one named by a site's address keeps the face's own
placeholder (nothing is fetched).
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Iterable, Mapping
from typing import Any

from fontTools.ttLib import TTFont
from fpdf import FPDF
from PIL import Image as PILImage

from layoutkit.layout.text import font_path, text_width
from layoutkit.render._images import BLOB_MARK, data_of, source_key
from layoutkit.render._images import _decode as decode_picture
from layoutkit.render._scene import (
    ITALIC_SLANT,
    Box,
    Ellipse,
    Group,
    Image,
    Item,
    Path,
    Placed,
    Text,
    fit_line,
)
from layoutkit.render._scene import _rgba as rgba

#: Points per board pixel at print size: CSS's own pixel (1/96 inch), so a card's 14 px
#: text prints at 10.5 pt, as a browser prints a page at 100 %.
PT_PER_PX = 0.75
#: Space around the drawing on every page: 10 mm.
MARGIN = 28.35
#: Height of the line under the drawing that numbers a page.
FOOTER = 16.0
_FOOT_SIZE = 7.5
_FOOT_INK = "#5f6878"
_FAMILIES: dict[str, tuple[str, str]] = {
    "sans": ("dejavu", ""),
    "sans-bold": ("dejavu", "B"),
    "mono": ("dejavu-mono", ""),
}
#: A synthetic italic leans as the PNG writer's does (about 12 degrees).
_SKEW_DEGREES = math.degrees(math.atan(ITALIC_SLANT))

Rect = tuple[float, float, float, float]

# fpdf2 logs every glyph the font lacks at WARNING; the PNG writer draws those as boxes
# without a word, and so does this one.
logging.getLogger("fpdf").setLevel(logging.ERROR)
logging.getLogger("fontTools").setLevel(logging.ERROR)


def new_document(title: str) -> FPDF:
    """An empty PDF in points with the bundled fonts, no automatic page breaks."""
    pdf = FPDF(unit="pt")
    pdf.set_auto_page_break(False)
    pdf.set_margins(0, 0, 0)
    for name, (family, style) in _FAMILIES.items():
        pdf.add_font(family, style, font_path(name))  # type: ignore[arg-type]
    pdf.set_title(title)
    pdf.set_creator("layoutkit")
    return pdf


class Painter:
    """Draws scene items on the current page of ``pdf``: board pixel (x, y) at
    (``ox`` + x * ``s``, ``oy`` + y * ``s``) points."""

    def __init__(self, pdf: FPDF, images: Mapping[str, bytes]) -> None:
        self.pdf = pdf
        self.images = images
        self._decoded: dict[tuple[str, str, int, int], PILImage.Image | None] = {}

    def draw(self, items: Iterable[Item], s: float, ox: float, oy: float) -> None:
        with self.pdf.local_context(stroke_join_style="round", stroke_cap_style="round"):
            self._items(items, s, ox, oy)

    def _items(self, items: Iterable[Item], s: float, ox: float, oy: float) -> None:
        for item in items:
            if isinstance(item, Placed):
                if item.face.items is None:
                    raise ValueError("a face read back as SVG text has no items to draw as PDF")
                self._items(item.face.items, s, ox + item.dx * s, oy + item.dy * s)
            elif isinstance(item, Group):
                self._items(item.items or (), s, ox, oy)
            elif isinstance(item, Box):
                self._box(item, s, ox, oy)
            elif isinstance(item, Ellipse):
                self._ellipse(item, s, ox, oy)
            elif isinstance(item, Text):
                self._text(item, s, ox, oy)
            elif isinstance(item, Path):
                self._path(item, s, ox, oy)
            elif isinstance(item, Image):
                self._image(item, s, ox, oy)
            # a Mark names a card for viewers: nothing to print

    def _paint(
        self,
        fill: str | None,
        stroke: str | None,
        width: float,
        dash: tuple[float, ...] | None,
        s: float,
        opacity: float = 1.0,
    ) -> tuple[str | None, dict[str, Any]]:
        """The fpdf2 style ("F", "D", "DF" or None when nothing shows) with the colours
        set, and the local context the item needs (opacity, dashes)."""
        f, d = rgba(fill, opacity), rgba(stroke, opacity)
        d = d if width > 0 else None
        context: dict[str, Any] = {}
        if f is not None:
            self.pdf.set_fill_color(*f[:3])
            if f[3] < 255:
                context["fill_opacity"] = f[3] / 255
        if d is not None:
            self.pdf.set_draw_color(*d[:3])
            self.pdf.set_line_width(max(width * s, 0.1))
            if d[3] < 255:
                context["stroke_opacity"] = d[3] / 255
            if dash:
                on = dash[0] * s
                off = (dash[1] if len(dash) > 1 else dash[0]) * s
                context["dash_pattern"] = {"dash": on, "gap": off, "phase": 0}
        style = ("F" if f is not None else "") + ("D" if d is not None else "")
        return ("DF" if style == "FD" else style) or None, context

    def _box(self, item: Box, s: float, ox: float, oy: float) -> None:
        style, context = self._paint(item.fill, item.stroke, item.width, item.dash, s, item.opacity)
        if style is None:
            return
        w, h = max(item.w, 0.0) * s, max(item.h, 0.0) * s
        r = min(item.radius * s, w / 2, h / 2)
        with self.pdf.local_context(**context):
            self.pdf.rect(
                ox + item.x * s,
                oy + item.y * s,
                w,
                h,
                style,
                round_corners=r > 0.05,
                corner_radius=r,
            )

    def _ellipse(self, item: Ellipse, s: float, ox: float, oy: float) -> None:
        style, context = self._paint(item.fill, item.stroke, item.width, item.dash, s)
        if style is None:
            return
        with self.pdf.local_context(**context):
            self.pdf.ellipse(ox + item.x * s, oy + item.y * s, item.w * s, item.h * s, style)

    def _path(self, item: Path, s: float, ox: float, oy: float) -> None:
        if len(item.points) < 2:
            return
        pts = [(ox + x * s, oy + y * s) for x, y in item.points]
        style, context = self._paint(
            item.fill if item.closed else None, item.stroke, item.width, item.dash, s
        )
        if style is None:
            return
        with self.pdf.local_context(**context):
            if item.closed and len(pts) > 2:
                self.pdf.polygon(pts, style=style)
            else:
                self.pdf.polyline(pts, style="D")

    def _text(self, item: Text, s: float, ox: float, oy: float) -> None:
        ink = rgba(item.fill)
        if ink is None or not any(item.lines):
            return
        family, style = _FAMILIES[item.font]
        self.pdf.set_font(family, style, item.size * s)
        self.pdf.set_text_color(*ink[:3])
        context = {"fill_opacity": ink[3] / 255} if ink[3] < 255 else {}
        with self.pdf.local_context(**context):
            for i, line in enumerate(item.lines):
                if not line:
                    continue
                # The layout's own advance widths place an anchored line, as in the SVG.
                w = text_width(line, item.size, item.font) * s
                x = (
                    ox
                    + item.x * s
                    - (w if item.anchor == "end" else w / 2 if item.anchor == "middle" else 0)
                )
                base = oy + item.baseline(i) * s
                if item.italic:
                    with self.pdf.skew(ax=_SKEW_DEGREES, x=x, y=base):
                        self._line(line, item, s, x, base)
                else:
                    self._line(line, item, s, x, base)

    def _line(self, line: str, item: Text, s: float, x: float, base: float) -> None:
        """One line at its baseline. A character the font lacks (CJK, emoji) would be
        dropped by the PDF font, closing the gap: it is drawn as an empty box of the
        width the layout gave it, as the PNG writer's font draws it, and the characters
        around it keep their places."""
        covered = _covered(item.font)
        if all(ord(ch) in covered for ch in line):
            self.pdf.text(x, base, line)
            return
        size = item.size * s
        start = 0
        for end in range(len(line) + 1):
            if end < len(line) and ord(line[end]) in covered:
                continue
            left = x + text_width(line[:start], item.size, item.font) * s
            if end > start:
                self.pdf.text(left, base, line[start:end])
            if end < len(line):
                at = x + text_width(line[:end], item.size, item.font) * s
                advance = text_width(line[end], item.size, item.font) * s
                if advance >= 0.5 and not line[end].isspace():
                    with self.pdf.local_context(line_width=max(size / 16, 0.1)):
                        self.pdf.set_draw_color(*self.pdf.text_color.colors255)
                        self.pdf.rect(
                            at + advance * 0.12, base - size * 0.72, advance * 0.76, size * 0.8
                        )
            start = end + 1

    def _image(self, item: Image, s: float, ox: float, oy: float) -> None:
        x, y, w, h = ox + item.x * s, oy + item.y * s, item.w * s, item.h * s
        if w < 0.5 or h < 0.5:
            return
        key = source_key(item.href)
        if key is None:
            return  # an address only a browser could fetch: the face's placeholder stays
        if item.href.startswith(BLOB_MARK) and key not in self.images:
            return  # not handed in (over the answer's budget): the placeholder stays
        picture = self._picture(item, key)
        if picture is None:
            self._broken(x, y, w, h, item.label)
            return
        if item.fit == "contain":
            k = min(w / picture.width, h / picture.height)
            pw, ph = picture.width * k, picture.height * k
            self.pdf.image(picture, x + (w - pw) / 2, y + (h - ph) / 2, pw, ph)
        else:
            self.pdf.image(picture, x, y, w, h)

    def _picture(self, item: Image, key: str) -> PILImage.Image | None:
        """The decoded picture, cropped at the centre to the box's shape for ``cover``."""
        aspect = (round(item.w), round(item.h)) if item.fit == "cover" else (0, 0)
        found = (key, item.fit, *aspect)
        if found not in self._decoded:
            data = data_of(item.href, self.images)
            picture = None if data is None else decode_picture(data)
            if picture is not None and item.fit == "cover":
                picture = _cover(picture, item.w / item.h)
            self._decoded[found] = picture
        return self._decoded[found]

    def _broken(self, x: float, y: float, w: float, h: float, label: str) -> None:
        """A picture that cannot be shown: a crossed frame saying so and which it was."""
        pdf = self.pdf
        pdf.set_fill_color(253, 236, 234)
        pdf.set_draw_color(179, 38, 30)
        pdf.set_line_width(0.75)
        pdf.rect(x, y, w, h, "DF")
        pdf.line(x, y, x + w, y + h)
        pdf.line(x, y + h, x + w, y)
        size = min(9.0, w / 14)
        if size >= 3:
            said = fit_line("image cannot be shown", (w - 6) / size * 12, 12)
            if label:
                said += " · " + label
            said = fit_line(said, (w - 6) / size * 12, 12)
            pdf.set_font("dejavu", "", size)
            pdf.set_text_color(179, 38, 30)
            width = text_width(said, size)
            pdf.text(x + (w - width) / 2, y + h / 2 + size / 3, said)


@functools.cache
def _covered(font: str) -> frozenset[int]:
    """The code points the bundled font ``font`` has glyphs for."""
    with TTFont(font_path(font), lazy=True) as ttf:  # type: ignore[arg-type]
        return frozenset(ttf.getBestCmap())


def _cover(picture: PILImage.Image, aspect: float) -> PILImage.Image:
    """``picture`` cropped at its centre to width / height ``aspect``."""
    w, h = picture.size
    if w / h > aspect:
        keep = max(1, round(h * aspect))
        return picture.crop(((w - keep) // 2, 0, (w - keep) // 2 + keep, h))
    keep = max(1, round(w / aspect))
    return picture.crop((0, (h - keep) // 2, w, (h - keep) // 2 + keep))


def footer(pdf: FPDF, text: str, width: float, height: float) -> None:
    """One muted line under the drawing, centred: a page's number and place."""
    pdf.set_font("dejavu", "", _FOOT_SIZE)
    pdf.set_text_color(*rgba(_FOOT_INK)[:3])  # type: ignore[index]
    said = fit_line(text, (width - 2 * MARGIN) / _FOOT_SIZE * 12, 12)
    w = text_width(said, _FOOT_SIZE)
    pdf.text((width - w) / 2, height - MARGIN + _FOOT_SIZE, said)


# ------------------------------------------------------------------ extents


def item_bounds(item: Item, cache: dict[int, Rect | None]) -> Rect | None:
    """The box (x0, y0, x1, y1, board pixels) an item draws into, strokes included;
    None for one that draws nothing. ``cache`` keeps each face's box by identity (a
    face drawn for many cards is one object)."""
    if isinstance(item, Placed):
        inner = _group_bounds(item.face, cache)
        if inner is None:
            return None
        return inner[0] + item.dx, inner[1] + item.dy, inner[2] + item.dx, inner[3] + item.dy
    if isinstance(item, Group):
        return _group_bounds(item, cache)
    if isinstance(item, Box | Ellipse | Image):
        pad = getattr(item, "width", 0.0)
        return item.x - pad, item.y - pad, item.x + item.w + pad, item.y + item.h + pad
    if isinstance(item, Text):
        if not any(item.lines):
            return None
        w = max(text_width(line, item.size, item.font) for line in item.lines)
        x0 = item.x - (w if item.anchor == "end" else w / 2 if item.anchor == "middle" else 0)
        # an italic leans past its advance by about a fifth of its size
        return x0 - 1, item.y, x0 + w + item.size * 0.25, item.y + item.height
    if isinstance(item, Path):
        if not item.points:
            return None
        xs = [p[0] for p in item.points]
        ys = [p[1] for p in item.points]
        pad = item.width
        return min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad
    return None


def _group_bounds(group: Group, cache: dict[int, Rect | None]) -> Rect | None:
    key = id(group)
    if key not in cache:
        boxes = [b for b in (item_bounds(i, cache) for i in group.items or ()) if b is not None]
        cache[key] = (
            None
            if not boxes
            else (
                min(b[0] for b in boxes),
                min(b[1] for b in boxes),
                max(b[2] for b in boxes),
                max(b[3] for b in boxes),
            )
        )
    return cache[key]


def text_lines(item: Text) -> list[Text]:
    """A run of text as one run per line (each keeps its baseline): a page may end
    between two lines of a paragraph."""
    if len(item.lines) < 2:
        return [item]
    lh = item.lh
    return [
        Text(
            item.x,
            item.y + i * lh,
            (line,),
            item.size,
            item.font,
            item.fill,
            item.line_height,
            item.anchor,
            item.italic,
        )
        for i, line in enumerate(item.lines)
    ]
