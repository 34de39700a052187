"""Where a card's face draws its text: one box per line of every text run.

The boxes come from the same scene items the PNG and SVG writers draw (a face
taken from the face cache when it was drawn before), measured with the same font
metrics and scaled the same way as :func:`to_png`, so a box lands on the pixels
of the picture ``render_card`` makes of that card.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import attrs

from layoutkit.elements.vocab import FRAME_KINDS
from layoutkit.layout.text import text_width
from layoutkit.render._faces import frame_items
from layoutkit.render._glance import FACES
from layoutkit.render._scene import Group, Item, Placed, Text, png_scale


@attrs.frozen(slots=True)
class TextLine:
    """One drawn line of text: ``run`` counts the face's text runs in drawing order,
    ``line`` the line within its run; the box is in picture pixels."""

    run: int
    line: int
    text: str
    x: float
    y: float
    w: float
    h: float


def _walk(
    items: Iterable[Item], ox: float, oy: float, out: list[tuple[Text, float, float]]
) -> None:
    for item in items:
        if isinstance(item, Text):
            out.append((item, ox, oy))
        elif isinstance(item, Placed):
            _walk(item.face.items or (), ox + item.dx, oy + item.dy, out)
        elif isinstance(item, Group):
            _walk(item.items or (), ox, oy, out)


def text_lines(kind: str, payload: object, w: float, h: float, max_dim: int) -> list[TextLine]:
    """Every line of text the face of a ``w`` x ``h`` card draws, in picture pixels of
    its PNG drawn with longest side at most ``max_dim``."""
    if kind in FRAME_KINDS:
        items: Iterable[Item] = frame_items(kind, payload, (0.0, 0.0, w, h), 0)
    else:
        items = FACES.face(kind, payload, w, h).items or ()
    found: list[tuple[Text, float, float]] = []
    _walk(items, 0.0, 0.0, found)
    s = png_scale(w, h, max_dim)
    out: list[TextLine] = []
    run = 0
    for text, ox, oy in found:
        if not any(text.lines):
            continue
        lh = text.lh
        for i, line in enumerate(text.lines):
            if not line:
                continue
            width = text_width(line, text.size, text.font)
            x = text.x + ox
            if text.anchor == "end":
                x -= width
            elif text.anchor == "middle":
                x -= width / 2
            y = text.y + oy + i * lh
            out.append(TextLine(run, i, line, x * s, y * s, width * s, lh * s))
        run += 1
    return out


def png_size(w: float, h: float, max_dim: int) -> tuple[int, int]:
    """The pixel size of a ``w`` x ``h`` scene written as PNG (see :func:`to_png`)."""
    s = png_scale(w, h, max_dim)
    return max(1, round(w * s)), max(1, round(h * s))


def face_max_dim(w: float, h: float, cap: int) -> int:
    """The ``max_dim`` a card's picture is drawn at: one pixel per board pixel, at
    most ``cap`` on its longest side."""
    return min(cap, math.ceil(max(w, h, 1.0)))
