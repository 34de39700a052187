"""The result shapes of the review family's most used operations (see shared/outputs)."""

from __future__ import annotations

from typing import Any

from layoutkit.service.shared.outputs import (
    BOOL,
    BOX,
    INT,
    NULLABLE_STR,
    NUM,
    OBJ,
    PICTURE,
    STR,
    arr,
    obj,
)

_COUNTS: dict[str, Any] = {"type": "object", "additionalProperties": INT}

SCRAPE_BOARD: dict[str, Any] = obj(
    {
        "board": obj({"slug": STR, "title": NULLABLE_STR, "project": NULLABLE_STR}, "slug"),
        "cards": arr(
            obj(
                {"id": INT, "kind": STR, "payload": OBJ, **BOX, "layer": STR, "version": INT},
                "id",
                "kind",
                "payload",
                "x",
                "y",
                "w",
                "h",
            )
        ),
        "edges": arr(obj({"id": INT, "from": INT, "to": INT}, "from", "to")),
        "notes": arr(obj({"id": INT, "text": STR}, "id", "text")),
        "flows": arr(arr(INT)),
        "questions": obj({"items": arr(OBJ)}, "items"),
        "sections": arr(OBJ),
        "journeys": {"type": "object", "additionalProperties": arr(OBJ)},
        "annotations": arr(OBJ),
        "comments": obj({"open": INT, "resolved": INT, "items": arr(OBJ)}, "items"),
        "diff": OBJ,
    },
    "board",
    description="cards, edges, notes, flows, questions, sections, journeys, annotations "
    "and open comment threads; "
    "with diff, the board and the diff only",
)

_SHOT = {"cardId": INT, "cardVersion": INT, "kind": STR, "source": STR}

#: One card (cardId); several on one contact sheet (tiles: where each card sits); or
#: sheet n of a review run, with its text block mapping each tile to its card.
GET_CARD_IMAGE: dict[str, Any] = obj(
    {
        "board": STR,
        **_SHOT,
        "width": INT,
        "height": INT,
        "cropped": BOOL,
        "region": obj(BOX),
        "run": STR,
        "sheet": INT,
        "sheets": INT,
        "state": STR,
        "tiles": arr(obj({**_SHOT, "label": STR, "at": obj(BOX)}, "cardId", "at")),
        "text": STR,
        "image": PICTURE,
    },
    "width",
    "height",
    "image",
    anyOf=[
        {"required": ["board", "cardId", "cardVersion"]},
        {"required": ["board", "tiles"]},
        {"required": ["run", "sheet", "tiles", "text"]},
    ],
)


ANNOTATE: dict[str, Any] = obj(
    {
        "board": STR,
        "run": NULLABLE_STR,
        "dryRun": BOOL,
        "author": STR,
        "results": arr(
            obj({"key": STR, "status": STR, "id": INT, "url": STR, "region": OBJ}, "status")
        ),
        "created": INT,
        "existing": INT,
        "refused": INT,
    },
    "board",
    "dryRun",
    "results",
    "created",
    "existing",
    "refused",
)

REVIEW_PLAN: dict[str, Any] = obj(
    {
        "run": STR,
        "state": STR,
        "boards": arr(STR),
        "sheets": INT,
        "served": arr(INT),
        "tiles": obj({"whole": INT, "crop": INT}, "whole", "crop"),
        "planned": _COUNTS,
        "gaps": arr(OBJ),
        "prior": arr(OBJ),
        "tokens": obj({"baseline": NUM, "plan": NUM, "saved": NUM}),
        "receipts": arr(obj({"cardId": INT, "state": STR}, "cardId", "state")),
    },
    "run",
    "state",
    "boards",
    "sheets",
    "served",
    "tiles",
    "planned",
    "receipts",
)
