"""Regenerate ``layoutkit/fonts/metrics.json`` from the bundled TTF files.

Sizing reads advance widths from the JSON table so that measuring text needs
no font library at run time and gives the same numbers on every machine. Run
this only when the bundled fonts change: ``python scripts/build_font_metrics.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

from fontTools.ttLib import TTFont

FONTS = {
    "sans": "DejaVuSans.ttf",
    "sans-bold": "DejaVuSans-Bold.ttf",
    "mono": "DejaVuSansMono.ttf",
}


def extract(path: Path) -> dict:
    font = TTFont(path)
    upm = font["head"].unitsPerEm
    hmtx = font["hmtx"]
    cmap = font.getBestCmap()
    advances = {str(cp): hmtx[glyph][0] for cp, glyph in sorted(cmap.items()) if cp <= 0xFFFF}
    hhea = font["hhea"]
    return {
        "unitsPerEm": upm,
        "ascender": hhea.ascent,
        "descender": hhea.descent,
        "lineGap": hhea.lineGap,
        "fallback": hmtx[cmap.get(ord("0"), ".notdef")][0],
        "advances": advances,
    }


def main() -> None:
    root = Path(__file__).resolve().parent.parent / "layoutkit" / "fonts"
    table = {name: extract(root / file) for name, file in FONTS.items()}
    (root / "metrics.json").write_text(json.dumps(table, separators=(",", ":")), encoding="utf-8")


if __name__ == "__main__":
    main()
