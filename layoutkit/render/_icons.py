"""Icon names to glyphs, shared by markdown icon tokens and diagram/card faces.

Icons are drawn from characters the bundled DejaVu fonts carry, so the SVG and
PNG outputs need no image assets. An unknown name still renders: a neutral dot
whose tooltip names the icon.
"""

from __future__ import annotations

from layoutkit.icons import FALLBACK, ICONS
from layoutkit.render._safe import esc


def icon_glyph(name: str | None) -> str:
    """The glyph drawn for icon ``name`` (a neutral dot when unknown)."""
    return ICONS.get((name or "").lower(), FALLBACK)


def icon_html(name: str) -> str:
    known = name in ICONS
    cls = "icon" if known else "icon icon-unknown"
    return (
        f'<span class="{cls}" data-icon="{esc(name)}" title="{esc(name)}" role="img" '
        f'aria-label="{esc(name)}">{esc(icon_glyph(name))}</span>'
    )
