"""Text measurement with the metrics of the fonts bundled in the package.

Widths come from the advance-width table in ``layoutkit/fonts/metrics.json``
(generated from the shipped DejaVu fonts by ``scripts/build_font_metrics.py``),
so a string measures the same on every machine and the renderer, which draws
with the same TTF files, produces text of exactly the measured size. Kerning
is ignored on both sides for that reason.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from itertools import pairwise
from typing import Literal

import attrs

FontName = Literal["sans", "sans-bold", "mono"]

#: CSS-like line height factor used for every block of text.
LINE_HEIGHT = 1.4

FONT_FILES: dict[str, str] = {
    "sans": "DejaVuSans.ttf",
    "sans-bold": "DejaVuSans-Bold.ttf",
    "mono": "DejaVuSansMono.ttf",
}


@attrs.frozen(slots=True)
class _FontTable:
    advances: dict[str, float]  # character -> advance in em
    fallback: float
    ascender: float
    descender: float


@lru_cache(maxsize=1)
def _tables() -> dict[str, _FontTable]:
    raw = json.loads(resources.files("layoutkit.fonts").joinpath("metrics.json").read_text("utf-8"))
    out: dict[str, _FontTable] = {}
    for name, spec in raw.items():
        upm = float(spec["unitsPerEm"])
        out[name] = _FontTable(
            advances={chr(int(cp)): adv / upm for cp, adv in spec["advances"].items()},
            fallback=spec["fallback"] / upm,
            ascender=spec["ascender"] / upm,
            descender=-spec["descender"] / upm,
        )
    return out


def font_path(font: FontName = "sans") -> str:
    """Filesystem path of a bundled TTF, for renderers that rasterise text."""
    return str(resources.files("layoutkit.fonts").joinpath(FONT_FILES[font]))


@lru_cache(maxsize=65536)
def _em_width(text: str, font: str) -> float:
    table = _tables()[font]
    adv = table.advances
    fb = table.fallback
    return sum(adv.get(ch, fb) for ch in text)


def text_width(text: str, size: float = 14, font: FontName = "sans") -> float:
    """Width in pixels of ``text`` set on one line at ``size`` px."""
    if len(text) > 64:
        # Long strings are rarely repeated; skip the cache to keep it useful.
        table = _tables()[font]
        adv, fb = table.advances, table.fallback
        return sum(adv.get(ch, fb) for ch in text) * size
    return _em_width(text, font) * size


def fit_prefix(
    text: str, max_width: float, size: float = 14, font: FontName = "sans", tail: str = ""
) -> str:
    """The longest prefix of ``text`` that, followed by ``tail``, is at most ``max_width`` wide.

    The widths are summed left to right, as :func:`text_width` sums them, and the
    walk stops at the first character that does not fit: fitting costs the
    prefix kept, not the text (cutting one character at a time and measuring
    again was quadratic: a 40,000-character title took 45 s).
    """
    table = _tables()[font]
    adv, fb = table.advances, table.fallback
    tail_em = sum(adv.get(ch, fb) for ch in tail)
    total = 0.0
    for i, ch in enumerate(text):
        total += adv.get(ch, fb)
        if (total + tail_em) * size > max_width:
            return text[:i]
    return text


def line_height(size: float = 14, factor: float = LINE_HEIGHT) -> float:
    return size * factor


def ascent(size: float = 14, font: FontName = "sans") -> float:
    """Distance from the top of the em box to the baseline, in pixels."""
    return _tables()[font].ascender * size


def wrap(text: str, max_width: float, size: float = 14, font: FontName = "sans") -> list[str]:
    """Greedy word wrap into lines no wider than ``max_width``.

    Hard line breaks are kept; a word always moves to the next line whole, and
    only a word wider than the whole line is cut (after ``/``, ``.``, ``-``, ``_``
    and the like, or at a camelCase boundary where possible, else between
    characters). An empty string gives one empty line, so blank paragraphs still
    take up height.
    """
    lines: list[str] = []
    space = text_width(" ", size, font)
    for para in text.split("\n"):
        words = para.split()
        if not words:
            lines.append("")
            continue
        current = ""
        current_w = 0.0
        for word in words:
            ww = text_width(word, size, font)
            if ww > max_width:
                if current:
                    lines.append(current)
                pieces = _break_word(word, max_width, size, font)
                lines.extend(pieces[:-1])
                current = pieces[-1]
                current_w = text_width(current, size, font)
                continue
            if not current:
                current, current_w = word, ww
            elif current_w + space + ww <= max_width:
                current += " " + word
                current_w += space + ww
            else:
                lines.append(current)
                current, current_w = word, ww
        lines.append(current)
    return lines


# A long identifier is cut after one of these (never inside a run of them) or
# before a capital that follows a lower-case letter or digit, so "/api/v1/boards/",
# "SharedDb" or "Transition1_____" stay readable pieces. Card text and diagram
# labels both wrap through here.
_SOFT_BREAK = re.compile(r"(?<=[/\\._\-?&=:,;])(?=[^/\\._\-?&=:,;])|(?<=[a-z0-9])(?=[A-Z])")


def _break_word(word: str, max_width: float, size: float, font: FontName) -> list[str]:
    """Pieces of a word wider than the line: at soft breaks where they fit, else by character."""
    cuts = [0, *(m.start() for m in _SOFT_BREAK.finditer(word)), len(word)]
    segments = [word[a:b] for a, b in pairwise(cuts) if b > a]
    pieces: list[str] = []
    current = ""
    for seg in segments:
        if current and text_width(current + seg, size, font) <= max_width:
            current += seg
            continue
        if current:
            pieces.append(current)
        current = ""
        if text_width(seg, size, font) <= max_width:
            current = seg
            continue
        # A segment wider than the line on its own: only then cut between characters.
        for ch in seg:
            if current and text_width(current + ch, size, font) > max_width:
                pieces.append(current)
                current = ch
            else:
                current += ch
    pieces.append(current)
    return pieces


@attrs.frozen(slots=True)
class TextBlock:
    """A measured block: its wrapped lines and the box they need."""

    lines: tuple[str, ...]
    width: float
    height: float
    size: float
    font: str
    line_height: float


def measure(
    text: str,
    max_width: float,
    size: float = 14,
    font: FontName = "sans",
    factor: float = LINE_HEIGHT,
) -> TextBlock:
    """Wrap ``text`` at ``max_width`` and return the lines with their box."""
    lines = wrap(text, max_width, size, font)
    width = max((text_width(line, size, font) for line in lines), default=0.0)
    lh = line_height(size, factor)
    return TextBlock(tuple(lines), width, lh * len(lines), size, font, lh)
