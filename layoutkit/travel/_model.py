"""The values the format mappings take and give: a board read for export, a file read for import."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from layoutkit.errors import EngineError

#: Where a card's own kind and payload ride in a file, so a round trip keeps what the
#: format cannot say (a JSON Canvas node attribute, an Excalidraw element's customData key).
OWN_KEY = "layoutkit"


class TravelError(EngineError):
    """A file the mappings refuse: ``code``, a message and ``field``, the JSON path of the
    bad value inside the file (``nodes[3].x``, ``elements[0].points``)."""


Box = tuple[float, float, float, float]


def card_box(card: Mapping[str, Any]) -> Box:
    """The box of a card view (``x``, ``y``, ``w``, ``h``), in floats."""
    return (float(card["x"]), float(card["y"]), float(card["w"]), float(card["h"]))


@attrs.frozen(slots=True)
class FileOut:
    """A blob an export names: written at ``path`` beside the canvas (a zip entry)."""

    path: str
    key: str
    mime: str


@attrs.frozen(slots=True)
class Exported:
    """An export: the document (the canvas or scene JSON) and the blobs it names."""

    document: dict[str, Any]
    files: tuple[FileOut, ...] = ()
    #: Cards whose blob was not handed in (over the export budget, or gone).
    missing: tuple[int, ...] = ()


@attrs.frozen(slots=True)
class DrawnCard:
    """One card read from a file, at the box the file gives it.

    ``children`` are refs of the cards whose boxes lie inside this frame's;
    ``foreign`` are the file's attributes no card field holds (kept for a
    re-export); ``path`` is where the node sits in the file. ``file`` is the
    path of an attachment the caller must supply (a canvas file node);
    ``blob`` is the attachment the file carried itself (an Excalidraw image).
    """

    ref: str
    kind: str
    payload: dict[str, Any]
    box: Box
    path: str
    children: tuple[str, ...] = ()
    foreign: dict[str, Any] = attrs.field(factory=dict)
    file: str | None = None
    blob: tuple[bytes, str] | None = None
    #: The card came back with its own kind and payload (the file was one of ours).
    restored: bool = False


@attrs.frozen(slots=True)
class DrawnWire:
    """One wire read from a file: its ends (card refs), label, relation and kept attributes."""

    from_ref: str
    to_ref: str
    path: str
    label: str | None = None
    rel: str | None = None
    regions: dict[str, Any] = attrs.field(factory=dict)
    foreign: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen(slots=True)
class Drawn:
    """A file read for import: cards (frames before what they hold), wires, and what was
    left out (``skipped``: one line each, such as an unbound arrow)."""

    cards: tuple[DrawnCard, ...]
    wires: tuple[DrawnWire, ...]
    skipped: tuple[str, ...] = ()
