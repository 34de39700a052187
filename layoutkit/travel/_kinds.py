"""What each card kind becomes in a file and back: the one table both formats follow."""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Mapping, Sequence
from typing import Any

from layoutkit.layout.model import FRAME_KINDS, MAX_FRAME_DEPTH
from layoutkit.render import card_text_lines
from layoutkit.search_text import card_title
from layoutkit.travel._model import Box, DrawnCard, TravelError

#: Kinds whose markdown is the node's text, as it is.
MARKDOWN_KINDS = ("text", "note")
#: Kinds whose picture or file is a blob the export writes beside the canvas.
BLOB_KINDS = ("media", "figure", "file")

#: Per card kind, what a JSON Canvas export makes of it (the docs page shows this table).
CANVAS_TABLE: tuple[tuple[str, str], ...] = (
    ("text, note", "text node holding the card's markdown (a note's colour as a canvas colour)"),
    ("link", "link node with the URL"),
    ("media, figure, file with a stored blob", "file node; the blob is written beside the canvas"),
    ("media, figure with only a URL", "link node with that URL"),
    ("section, cluster", "group node labelled with the frame's title"),
    ("any other kind", "text node holding the card's readable text"),
)
#: The same for an Excalidraw scene.
EXCALIDRAW_TABLE: tuple[tuple[str, str], ...] = (
    ("text, note", "rectangle with the markdown as its bound text (a note's colour as its fill)"),
    ("link", "rectangle with the URL as its text and as the element's link"),
    ("media, figure, file holding an image blob", "image element; the bytes ride in `files`"),
    ("section, cluster", "frame named with the frame's title; its cards carry its frameId"),
    ("any other kind", "rectangle with the card's readable text bound to it"),
)

#: Note colours and the canvas presets ("1" red ... "6" purple) nearest them.
_NOTE_TO_CANVAS = {"pink": "1", "yellow": "3", "green": "4", "blue": "5", "purple": "6"}
_CANVAS_TO_NOTE = {
    "1": "pink",
    "2": "yellow",
    "3": "yellow",
    "4": "green",
    "5": "blue",
    "6": "purple",
}
_TONE_TO_CANVAS = {"bad": "1", "warn": "2", "good": "4", "info": "5"}
#: Excalidraw's own palette (its light fills) for the same colours.
_NOTE_TO_FILL = {
    "yellow": "#ffec99",
    "pink": "#ffc9c9",
    "blue": "#a5d8ff",
    "green": "#b2f2bb",
    "purple": "#d0bfff",
    "gray": "#e9ecef",
}
_FILL_TO_NOTE = {v: k for k, v in _NOTE_TO_FILL.items()}

_HTTP = re.compile(r"^https?://[^\s/?#]+", re.IGNORECASE)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def is_http(url: Any) -> bool:
    return isinstance(url, str) and bool(_HTTP.match(url))


def readable_text(kind: str, payload: Mapping[str, Any], size: tuple[float, float]) -> str:
    """The text a node shows for a card: its markdown, its URL, else the lines its face
    draws at ``size`` (a wrapped run of text joined back into one line per run)."""
    md = payload.get("md")
    if kind in MARKDOWN_KINDS and isinstance(md, str):
        return md
    if kind == "link" and isinstance(payload.get("url"), str):
        return str(payload["url"])
    card = {"kind": kind, "payload": payload, "x": 0, "y": 0, "w": size[0], "h": size[1]}
    runs: dict[int, list[str]] = {}
    for line in card_text_lines(card):
        runs.setdefault(line.run, []).append(line.text)
    text = "\n".join(" ".join(lines) for _, lines in sorted(runs.items())).strip()
    return text or card_title(kind, payload)


def frame_label(payload: Mapping[str, Any]) -> str | None:
    title = payload.get("title")
    return title if isinstance(title, str) and title else None


def canvas_color(kind: str, payload: Mapping[str, Any]) -> str | None:
    """The canvas preset of a card's colour or tone, or None."""
    if kind == "note":
        return _NOTE_TO_CANVAS.get(str(payload.get("color", "yellow")))
    tone = payload.get("tone")
    return _TONE_TO_CANVAS.get(tone) if isinstance(tone, str) else None


def note_color_of_canvas(color: Any) -> str | None:
    return _CANVAS_TO_NOTE.get(color) if isinstance(color, str) else None


def fill_of(kind: str, payload: Mapping[str, Any]) -> str:
    if kind == "note":
        return _NOTE_TO_FILL.get(str(payload.get("color", "yellow")), "#ffec99")
    return "transparent"


def note_color_of_fill(fill: Any) -> str | None:
    return _FILL_TO_NOTE.get(fill.lower()) if isinstance(fill, str) else None


def blob_of(kind: str, payload: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """(blob key, mime, file name) of a card whose face is a stored blob, else None."""
    if kind not in BLOB_KINDS:
        return None
    ref = payload.get("ref")
    if not isinstance(ref, str) or not ref.startswith("sha256:"):
        return None
    mime = payload.get("mime")
    mime = mime if isinstance(mime, str) and mime else "application/octet-stream"
    return ref, mime, file_name(payload, ref, mime)


def file_name(payload: Mapping[str, Any], ref: str, mime: str) -> str:
    """A file name for a blob: the card's own name when it has one, else the key's start
    with the extension its type suggests."""
    named = payload.get("name") or payload.get("alt")
    stem = _UNSAFE.sub("-", named).strip("-.") if isinstance(named, str) else ""
    if not stem:
        stem = ref.split(":", 1)[-1][:16]
    ext = mimetypes.guess_extension(mime, strict=False) or ""
    return stem if not ext or stem.lower().endswith(ext) else stem + ext


def side_pair(a: Box, b: Box) -> tuple[str, str]:
    """The sides a wire from box ``a`` to box ``b`` leaves and enters by: the axis along
    which the boxes lie further apart (measured in their own sizes) decides."""
    ax, ay = a[0] + a[2] / 2, a[1] + a[3] / 2
    bx, by = b[0] + b[2] / 2, b[1] + b[3] / 2
    dx, dy = bx - ax, by - ay
    if abs(dx) / max(a[2] + b[2], 1.0) >= abs(dy) / max(a[3] + b[3], 1.0):
        return ("right", "left") if dx >= 0 else ("left", "right")
    return ("bottom", "top") if dy >= 0 else ("top", "bottom")


def side_point(box: Box, side: str) -> tuple[float, float]:
    x, y, w, h = box
    return {
        "top": (x + w / 2, y),
        "bottom": (x + w / 2, y + h),
        "left": (x, y + h / 2),
        "right": (x + w, y + h / 2),
    }[side]


def own_value(kind: str, payload: Mapping[str, Any], shown: str | None) -> dict[str, Any]:
    """What a node carries of its card: kind and payload, and the text it was written with
    (an import that finds that text unchanged restores the card; an edit makes a text card)."""
    out: dict[str, Any] = {"kind": kind, "payload": payload}
    if shown is not None and kind not in MARKDOWN_KINDS:
        out["text"] = shown
    return out


def own_text(value: Any) -> str | None:
    """The text a node was written with (see :func:`own_value`), if it says."""
    text = value.get("text") if isinstance(value, dict) else None
    return text if isinstance(text, str) else None


def own_card(value: Any, path: str) -> tuple[str, dict[str, Any]] | None:
    """The kind and payload an export stored on a node, when they are well formed."""
    if value is None:
        return None
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("kind"), str)
        or not isinstance(value.get("payload"), dict)
    ):
        raise TravelError(
            "invalid_file", f"{path}: expected {{kind, payload}} as an export writes it", field=path
        )
    return value["kind"], dict(value["payload"])


def nest(cards: Sequence[DrawnCard], frame_paths: Mapping[str, str]) -> list[DrawnCard]:
    """``cards`` with each frame's children set to what lies inside it (the smallest frame
    holding a card's box is its parent), frames ordered before what they hold.

    Raises :class:`TravelError` ``nesting_too_deep`` past the board's frame depth.
    """
    frames = [c for c in cards if c.kind in FRAME_KINDS]
    parent: dict[str, str] = {}
    for c in cards:
        holders = [f for f in frames if f.ref != c.ref and _inside(c.box, f.box)]
        # A frame never holds a frame that holds it (two equal boxes): the later one is inner.
        holders = [f for f in holders if not (f.box == c.box and cards.index(f) > cards.index(c))]
        if holders:
            parent[c.ref] = min(holders, key=lambda f: f.box[2] * f.box[3]).ref
    kids: dict[str, list[str]] = {}
    for c in cards:
        if c.ref in parent:
            kids.setdefault(parent[c.ref], []).append(c.ref)

    def depth(ref: str) -> int:
        n = 0
        while ref in parent:
            ref, n = parent[ref], n + 1
        return n

    for f in frames:
        levels = depth(f.ref) + 1
        if levels > MAX_FRAME_DEPTH:
            where = frame_paths.get(f.ref, f.path)
            raise TravelError(
                "nesting_too_deep",
                f"{where}: frames would nest {levels} deep; the limit is {MAX_FRAME_DEPTH}",
                field=where,
            )
    out = [
        DrawnCard(
            c.ref,
            c.kind,
            c.payload,
            c.box,
            c.path,
            tuple(kids.get(c.ref, ())),
            c.foreign,
            c.file,
            c.blob,
            c.restored,
        )
        for c in cards
    ]
    # Outer frames first, then the rest in file order: a frame is stored before its cards.
    return sorted(out, key=lambda c: (0, depth(c.ref)) if c.kind in FRAME_KINDS else (1, 0))


def _inside(inner: Box, outer: Box) -> bool:
    return (
        inner[0] >= outer[0]
        and inner[1] >= outer[1]
        and inner[0] + inner[2] <= outer[0] + outer[2]
        and inner[1] + inner[3] <= outer[1] + outer[3]
    )


def number_at(holder: Mapping[str, Any], key: str, path: str, *, positive: bool = False) -> float:
    value = holder.get(key)
    where = f"{path}.{key}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TravelError("invalid_file", f"{where}: expected a number", field=where)
    if positive and value <= 0:
        raise TravelError("invalid_file", f"{where}: expected a number above 0", field=where)
    return float(value)


def string_at(holder: Mapping[str, Any], key: str, path: str, *, required: bool = True) -> Any:
    value = holder.get(key)
    where = f"{path}.{key}"
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise TravelError("invalid_file", f"{where}: expected a string", field=where)
    return value


def object_list(doc: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    value = doc.get(key, [])
    if value is None:
        return []
    if not isinstance(value, list):
        raise TravelError("invalid_file", f"{key}: expected an array", field=key)
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            where = f"{key}[{i}]"
            raise TravelError("invalid_file", f"{where}: expected an object", field=where)
    return value


def unique_id(item: Mapping[str, Any], path: str, seen: dict[str, str]) -> str:
    ident = string_at(item, "id", path)
    if ident in seen:
        where = f"{path}.id"
        raise TravelError(
            "duplicate_id", f"{where}: {ident!r} is also the id of {seen[ident]}", field=where
        )
    seen[ident] = path
    return str(ident)
