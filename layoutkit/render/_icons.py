"""Icon names to glyphs, shared by markdown icon tokens and diagram/card faces.

Icons are drawn from characters the bundled DejaVu fonts carry, so the SVG and
PNG outputs need no image assets. An unknown name still renders: a neutral dot
whose tooltip names the icon.
"""

from __future__ import annotations

import math

from layoutkit.icons import FALLBACK, FIGURES, ICONS, icon_key
from layoutkit.render._safe import esc
from layoutkit.render._scene import Box, Ellipse, Item, Path


def icon_glyph(name: str | None) -> str:
    """The glyph drawn for icon ``name`` (a neutral dot when unknown)."""
    return ICONS.get(icon_key(name) or (name or "").lower(), FALLBACK)


def pictogram(
    name: str | None, x: float, y: float, size: float, ink: str, paper: str
) -> list[Item] | None:
    """Icon ``name`` as a small figure in ``ink`` on ``paper`` in the ``size`` square at
    (x, y), for the icons no bundled character stands for (``icons.FIGURES``); None for
    the others."""
    key = icon_key(name)
    if key not in FIGURES:
        return None
    u = size / 16  # the figures are drawn on a 16-unit grid
    sw = 1.3 * u
    if key == "car":
        body = (
            (x + 1 * u, y + 12 * u),
            (x + 1 * u, y + 8.5 * u),
            (x + 3.5 * u, y + 8 * u),
            (x + 5.5 * u, y + 4.5 * u),
            (x + 11 * u, y + 4.5 * u),
            (x + 13 * u, y + 8 * u),
            (x + 15 * u, y + 8.5 * u),
            (x + 15 * u, y + 12 * u),
        )
        return [
            Path(body, stroke=ink, width=sw, closed=True, fill=ink),
            Ellipse(x + 2.5 * u, y + 10 * u, 4 * u, 4 * u, paper, ink, sw),
            Ellipse(x + 9.5 * u, y + 10 * u, 4 * u, 4 * u, paper, ink, sw),
        ]
    if key == "ban":
        d = 4.6 * u  # half the slash, at 45 degrees: it meets the ring
        return [
            Ellipse(x + 1.5 * u, y + 1.5 * u, 13 * u, 13 * u, None, ink, 2 * u),
            Path(((x + 8 * u - d, y + 8 * u - d), (x + 8 * u + d, y + 8 * u + d)), ink, 2 * u),
        ]
    if key == "spinner":
        # Eight dots round a ring, fading round the turn as a spinner's still frame.
        out: list[Item] = []
        for i in range(8):
            a = math.tau * i / 8
            r = (1.0 + 0.9 * (8 - i) / 8) * u
            cx, cy = x + 8 * u + 5.5 * u * math.cos(a), y + 8 * u + 5.5 * u * math.sin(a)
            out.append(Ellipse(cx - r, cy - r, 2 * r, 2 * r, ink, None, 0.0))
        return out
    # camera
    return [
        Box(x + 5 * u, y + 2.5 * u, 6 * u, 3 * u, fill=ink, stroke=None, radius=1 * u),
        Box(x + 1 * u, y + 4.5 * u, 14 * u, 9.5 * u, fill=ink, stroke=None, radius=1.5 * u),
        Ellipse(x + 5 * u, y + 6 * u, 6 * u, 6 * u, paper, None, 0.0),
        Ellipse(x + 6.5 * u, y + 7.5 * u, 3 * u, 3 * u, ink, None, 0.0),
    ]


def icon_html(name: str) -> str:
    known = name in ICONS
    cls = "icon" if known else "icon icon-unknown"
    return (
        f'<span class="{cls}" data-icon="{esc(name)}" title="{esc(name)}" role="img" '
        f'aria-label="{esc(name)}">{esc(icon_glyph(name))}</span>'
    )
