"""Colours of board and diagram faces (light scheme), one table for SVG and PNG."""

from __future__ import annotations

import re

FG = "#1d2230"
MUTED = "#5f6878"
FAINT = "#9aa3b2"
LINE = "#d5dae3"
SOFT = "#f1f3f7"
CARD = "#ffffff"
BOARD = "#f7f8fa"
ACCENT = "#1c6ae4"

#: tone -> (ink: strokes and text, wash: fills)
TONES: dict[str, tuple[str, str]] = {
    "good": ("#1f8a4c", "#e6f4ea"),
    "green": ("#2b8a3e", "#e9f7ec"),
    "warn": ("#b7791f", "#fdf3e1"),
    "amber": ("#b7791f", "#fff4db"),
    "bad": ("#c92a2a", "#fdeaea"),
    "red": ("#c92a2a", "#fdecec"),
    "neutral": ("#4b5563", "#ffffff"),
    "gray": ("#6b7280", "#f1f3f5"),
    "muted": ("#868e96", "#f8f9fa"),
    "info": ("#1c6ae4", "#e7f0fd"),
    "blue": ("#1c6ae4", "#e8f1fd"),
    "accent": ("#6741d9", "#efeafd"),
    "violet": ("#6741d9", "#f1edfd"),
    "teal": ("#0c7c74", "#e3f6f4"),
}

NAMED_FILLS: dict[str, str] = {
    "yellow": "#fff3bf",
    "blue": "#d0e4ff",
    "green": "#d3f9d8",
    "red": "#ffe3e3",
    "pink": "#ffdeeb",
    "purple": "#e5dbff",
    "violet": "#e5dbff",
    "orange": "#ffe8cc",
    "gray": "#e9ecef",
    "grey": "#e9ecef",
    "teal": "#c3fae8",
    "white": "#ffffff",
}

ROLE_STYLE: dict[str, tuple[str, str]] = {
    "idea": ("#b7791f", "#fff9db"),
    "note": ("#4b5563", "#ffffff"),
    "pro": ("#1f8a4c", "#ebfbee"),
    "con": ("#c92a2a", "#fff5f5"),
    "risk": ("#d9480f", "#fff4e6"),
    "heading": (FG, "#00000000"),
    "caption": (MUTED, "#00000000"),
}

METHOD_COLORS: dict[str, str] = {
    "GET": "#2b8a3e",
    "POST": "#1c6ae4",
    "PUT": "#b7791f",
    "PATCH": "#6741d9",
    "DELETE": "#c92a2a",
    "HEAD": "#5f6878",
    "OPTIONS": "#5f6878",
}

_HEX = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")


def tone(name: object, default: str = "neutral") -> tuple[str, str]:
    """(ink, wash) for a tone; unknown tones use ``default``."""
    return TONES.get(str(name), TONES[default])


def fill_color(value: object, default: str) -> str:
    """A safe fill: a #hex colour, a named fill or tone, else ``default``."""
    if isinstance(value, str):
        if _HEX.match(value):
            return value
        if value.lower() in NAMED_FILLS:
            return NAMED_FILLS[value.lower()]
        if value in TONES:
            return TONES[value][1]
    return default
