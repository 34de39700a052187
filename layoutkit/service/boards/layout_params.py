"""Request parameters (camelCase JSON) turned into the layout engine's placement values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.layout import Anchor, Batch, BatchCard

#: ``at``: a board point a person put a batch at by hand (compose_board, upload_files).
#: People only: the road answers agents 403 people_only, so few words.
AT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "people only: the board point of the batch's top-left, put by "
    "hand (may overlap); not with other placement params",
    "required": ["x", "y"],
    "properties": {k: {"type": "number", "minimum": -1e7, "maximum": 1e7} for k in ("x", "y")},
    "additionalProperties": False,
}


def batch_from_params(params: Mapping[str, Any]) -> Batch:
    """Build a :class:`~layoutkit.layout.Batch` from compose_board parameters (``cards``,
    ``layout``, ``aspect``, ``flow``, ``anchor``, ``anchorCardId``, ``section``,
    ``createSection``, ``journey``, ``pass``, ``at``, ``layer``).

    Raises :class:`ServiceError` 400 ``exclusive_params`` for anchor with anchorCardId.
    Values are passed on unchecked: the engine refuses what it cannot place.
    """
    cards = []
    for raw in params.get("cards") or []:
        kids = raw.get("children")
        cards.append(
            BatchCard(
                kind=raw.get("kind", ""),
                payload=dict(raw.get("payload") or {}),
                ref=raw.get("ref"),
                children=tuple(kids) if kids is not None else None,
                anchor=_anchor(raw.get("anchor")),
                size=tuple(raw["size"]) if raw.get("size") else None,
            )
        )
    anchor = _anchor(params.get("anchor"))
    if params.get("anchorCardId") is not None:
        if anchor is not None:
            raise ServiceError(400, "exclusive_params", "send anchor or anchorCardId, not both")
        anchor = Anchor("beside", card_id=params["anchorCardId"])
    return Batch(
        cards=tuple(cards),
        layout=params.get("layout"),
        aspect=params.get("aspect"),
        flow=params.get("flow"),
        anchor=anchor,
        section=params.get("section"),
        create_section=bool(params.get("createSection")),
        journey=params.get("journey"),
        pass_=params.get("pass"),
        layer=params.get("layer", "ai"),
        at=(float(params["at"]["x"]), float(params["at"]["y"])) if params.get("at") else None,
    )


def _anchor(raw: Any) -> Anchor | None:
    # Anything but an object is no anchor; a missing relation means beside.
    if not isinstance(raw, Mapping):
        return None
    return Anchor(raw.get("relation") or "beside", card_id=raw.get("cardId"), ref=raw.get("ref"))
