"""Boards that travel: JSON Canvas 1.0 and Excalidraw scenes out of a board and onto one,
and a diagram card out as Mermaid text (:func:`to_mermaid`).

Pure mappings (no storage): a board read as card and edge views becomes a
document plus the blobs it names; a document becomes :class:`Drawn` cards and
wires at the file's coordinates, which the service places and stores. The
per-kind table is :data:`CANVAS_TABLE` / :data:`EXCALIDRAW_TABLE`.
"""

from __future__ import annotations

from typing import Any

from layoutkit.travel._kinds import CANVAS_TABLE, EXCALIDRAW_TABLE, blob_of
from layoutkit.travel._model import (
    OWN_KEY,
    Drawn,
    DrawnCard,
    DrawnWire,
    Exported,
    FileOut,
    TravelError,
)
from layoutkit.travel.canvas import read_canvas, to_canvas
from layoutkit.travel.excalidraw import read_excalidraw, to_excalidraw
from layoutkit.travel.mermaid import MermaidText, to_mermaid

FORMATS = ("canvas", "excalidraw")


def sniff(doc: Any) -> str:
    """The format of a parsed file: an Excalidraw scene says so in ``type``; else a canvas."""
    return "excalidraw" if isinstance(doc, dict) and doc.get("type") == "excalidraw" else "canvas"


def read_document(fmt: str, doc: Any) -> Drawn:
    """:func:`read_canvas` or :func:`read_excalidraw` by ``fmt``."""
    return read_excalidraw(doc) if fmt == "excalidraw" else read_canvas(doc)


__all__ = [
    "CANVAS_TABLE",
    "EXCALIDRAW_TABLE",
    "FORMATS",
    "OWN_KEY",
    "Drawn",
    "DrawnCard",
    "DrawnWire",
    "Exported",
    "FileOut",
    "MermaidText",
    "TravelError",
    "blob_of",
    "read_canvas",
    "read_document",
    "read_excalidraw",
    "sniff",
    "to_canvas",
    "to_excalidraw",
    "to_mermaid",
]
