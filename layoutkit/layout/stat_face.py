"""The plan of a stat strip's face: each tile's value text and how many tiles share a row.

The card sizer and the face read the same plan, so a headline number is never cut: a
board card widens until every tile holds its value (and delta chip) whole, and a strip
that would pass :data:`MAX_WIDTH`, or a stat inside a document of fixed width, puts its
tiles on more rows instead.
"""

from __future__ import annotations

import math
from typing import Any

from layoutkit.formatting import fmt_num
from layoutkit.layout import text as _text

VALUE_SIZE = 17.0
LABEL_SIZE = 10.0
DELTA_SIZE = 10.0
#: Left inset of the value plus the tile's right margin and gap.
TILE_INSET = 14.0
#: A label takes at most this much of a tile's width into account; longer ones are cut.
LABEL_ROOM = 150.0
#: A board card grows to this width before its tiles wrap onto a second row.
MAX_WIDTH = 960.0


def items(p: dict[str, Any]) -> list[dict[str, Any]]:
    """The tiles a stat payload draws, in order."""
    return [i for i in p.get("items") or [] if isinstance(i, dict)]


def value_text(stat: dict[str, Any]) -> str:
    raw = stat.get("value")
    value = stat.get("display") or (raw if isinstance(raw, str) else fmt_num(raw))
    if stat.get("unit") and not stat.get("display"):
        value = f"{value} {stat['unit']}"
    return str(value)


def delta_text(delta: Any) -> str:
    return delta if isinstance(delta, str) else fmt_num(delta)


def delta_room(stat: dict[str, Any]) -> float:
    """Width the delta chip takes at the tile's top right (the value stays clear of it)."""
    if stat.get("delta") is None:
        return 0.0
    return _text.text_width(delta_text(stat["delta"]), DELTA_SIZE, "sans-bold") + 6


def tile_need(stat: dict[str, Any]) -> float:
    """The narrowest tile that shows ``stat``'s value and delta whole."""
    value = _text.text_width(value_text(stat), VALUE_SIZE, "sans-bold") + delta_room(stat)
    label = " · ".join(str(stat[k]) for k in ("label", "note") if stat.get(k))
    return TILE_INSET + 1 + max(value, min(LABEL_ROOM, _text.text_width(label, LABEL_SIZE)))


def columns(stats: list[dict[str, Any]], cw: float) -> int:
    """Tiles a row holds at content width ``cw`` so that every value fits (at least one)."""
    if not stats:
        return 1
    need = max(tile_need(s) for s in stats)
    return max(1, min(len(stats), math.floor(cw / need)))


def rows(stats: list[dict[str, Any]], cw: float) -> int:
    return math.ceil(len(stats) / columns(stats, cw)) if stats else 0


def card_width(stats: list[dict[str, Any]], default: float) -> float:
    """Content width of a board card: ``default``, or wider so every tile fits in one row,
    but never past :data:`MAX_WIDTH` (then the tiles wrap)."""
    need = max((tile_need(s) for s in stats), default=0.0) * len(stats)
    return max(default, min(MAX_WIDTH, need))
