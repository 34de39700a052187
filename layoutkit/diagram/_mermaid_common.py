"""Pieces shared by the Mermaid dialect readers: errors, labels, front matter."""

from __future__ import annotations

import html
import re
from typing import Any

from layoutkit.errors import DiagramError

SUPPORTED_TYPES = ("flowchart", "graph", "sequenceDiagram", "stateDiagram", "stateDiagram-v2")

_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)
_ENTITY = re.compile(r"(?<!&)#(\w+);")


def clean_label(text: str) -> str:
    """Turn a Mermaid label into payload text: line breaks as newlines, entities decoded.

    Mermaid writes entities as ``#quot;`` / ``#9829;``; HTML ones (``&lt;``) pass too.
    Markdown strings keep their inline markup but lose the backtick fence.
    """
    text = text.strip()
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        text = text[1:-1]
    if len(text) >= 2 and text[0] == "`" and text[-1] == "`":
        text = text[1:-1]
    text = _ENTITY.sub(lambda m: _entity(m.group(1)), text)
    text = html.unescape(text)
    text = _BR.sub("\n", text)
    return "\n".join(line.strip() for line in text.split("\n")).strip()


def _entity(name: str) -> str:
    if name.isdigit():
        return chr(int(name))
    decoded = html.unescape(f"&{name};")
    return decoded if decoded != f"&{name};" else f"#{name};"


def broken(message: str, findings: list[dict[str, Any]]) -> DiagramError:
    return DiagramError("diagram_text_invalid", message, findings=findings)


def finding(line: int, message: str) -> dict[str, Any]:
    return {"path": "diagram_text", "line": line, "severity": "error", "message": message}


def note(code: str, message: str, line: int | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"level": "info", "phase": "import", "code": code, "message": message}
    if line is not None:
        entry["line"] = line
    return entry


def strip_comment(line: str) -> str:
    """Drop a ``%%`` comment that is not inside a quoted string."""
    if "%%" not in line:
        return line
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif not quoted and line.startswith("%%", i):
            return line[:i]
    return line


_DIRECTIVE = re.compile(r"%%\{.*?\}%%", re.DOTALL)


def split_front_matter(text: str) -> tuple[dict[str, str], list[tuple[int, str]]]:
    """Separate a ``---`` front matter block; return its flat keys and numbered body lines."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # Mermaid drops directives (``%%{init: ...}%%``, which may span lines) before
    # parsing; blank them out but keep their lines so findings keep their numbers.
    text = _DIRECTIVE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    lines = text.split("\n")
    meta: dict[str, str] = {}
    start = 0
    first = next((i for i, raw in enumerate(lines) if raw.strip()), None)
    if first is not None and lines[first].strip() == "---":
        for j in range(first + 1, len(lines)):
            if lines[j].strip() == "---":
                for raw in lines[first + 1 : j]:
                    if raw[:1] not in (" ", "\t") and ":" in raw:
                        key, _, value = raw.partition(":")
                        meta[key.strip()] = value.strip().strip('"').strip("'")
                start = j + 1
                break
    numbered = [(i + 1, raw) for i, raw in enumerate(lines) if i >= start]
    return meta, numbered


_HEX = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})\b")
# Colour words a style may name instead of a hex value, and the tone each stands for.
_NAMED_TONES: dict[str, str | None] = {
    "white": None,
    "black": "gray",
    "gray": "gray",
    "grey": "gray",
}
_HUE_TONES = ((15, "red"), (65, "amber"), (165, "green"), (200, "teal"), (255, "blue"))


def tone_for_style(props: list[str]) -> str | None:
    """Pick the diagram tone closest to a CSS fill (or stroke) colour, if there is one."""
    colour = _style_colour(props)
    if colour is None:
        return None
    if colour in _NAMED_TONES:
        return _NAMED_TONES[colour]
    return _hex_tone(colour)


def _style_colour(props: list[str]) -> str | None:
    """The hex digits or colour word of the first ``fill`` (else ``stroke``) that has one.

    A fill that names neither is passed over; a named colour word ends the search.
    """
    for key in ("fill", "stroke"):
        for prop in props:
            name, _, value = prop.partition(":")
            if name.strip() != key:
                continue
            m = _HEX.search(value)
            if m:
                return m.group(1)
            if value.strip() in _NAMED_TONES:
                return value.strip()
    return None


def _hex_tone(colour: str) -> str:
    if len(colour) == 3:
        colour = "".join(c * 2 for c in colour)
    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (0, 2, 4))
    hi, lo = max(r, g, b), min(r, g, b)
    if hi - lo < 0.12:
        return "gray"
    if hi == r:
        hue = (60 * ((g - b) / (hi - lo))) % 360
    elif hi == g:
        hue = 60 * ((b - r) / (hi - lo)) + 120
    else:
        hue = 60 * ((r - g) / (hi - lo)) + 240
    for limit, tone in _HUE_TONES:
        if hue < limit:
            return tone
    return "violet" if hue < 335 else "red"


# Mermaid style property -> payload paint key.
_PAINT_KEYS = {
    "fill": "fill",
    "stroke": "stroke",
    "color": "color",
    "stroke-width": "strokeWidth",
    "font-style": "fontStyle",
    "stroke-dasharray": "strokeDasharray",
}
#: At most this many dash and gap lengths are kept (CSS repeats a list; longer ones add nothing
#: a reader sees).
MAX_DASHES = 8
_DASH_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:px)?$")


def style_paint(props: list[str]) -> dict[str, Any]:
    """The colours and line width of ``style``/``classDef``/``linkStyle`` properties, the
    last one of a name winning as in CSS; the drawing judges whether each can be read."""
    out: dict[str, Any] = {}
    last = None
    for prop in props:
        name, colon, value = prop.partition(":")
        if not colon and last == "strokeDasharray" and _DASH_NUMBER.match(name.strip()):
            # The statement's commas split ``stroke-dasharray: 9,5``: its later
            # numbers come as properties of their own.
            out[last] = _dashes([*out.get(last, []), name])
            continue
        key = _PAINT_KEYS.get(name.strip().lower())
        last = key
        value = value.strip().removesuffix("!important").strip()
        if key is None or not value:
            continue
        if key == "strokeDasharray":
            dashes = _dashes(re.split(r"[\s,]+", value))
            if dashes:
                out[key] = dashes
            else:
                # ``none``, ``0`` or nothing readable: a solid line, as CSS draws it.
                out.pop(key, None)
        elif key == "strokeWidth":
            m = re.match(r"(\d+(?:\.\d+)?)(px)?$", value)
            if m:
                out[key] = float(m.group(1))
        elif key == "fontStyle":
            # CSS oblique is drawn as italic: the drawing has one slanted face.
            slant = value.lower().split()[0]
            out[key] = "italic" if slant in ("italic", "oblique") else "normal"
        else:
            out[key] = value
    return out


def _dashes(parts: list[Any]) -> list[float]:
    """The dash and gap lengths (px) of a CSS ``stroke-dasharray``, or none for a solid line.

    Lengths that are not plain numbers (or px) and lists adding up to nothing
    (``0``, ``none``) give a solid line, as a browser draws them.
    """
    out: list[float] = []
    for part in parts:
        text = str(part).strip()
        if not text:
            continue
        if isinstance(part, float):
            out.append(part)
            continue
        if not _DASH_NUMBER.match(text):
            return []
        out.append(float(text.removesuffix("px")))
    if sum(out) <= 0:
        return []
    return out[:MAX_DASHES]
