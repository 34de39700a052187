"""The result shapes of the boards family's most used operations (see shared/outputs)."""

from __future__ import annotations

from typing import Any

from layoutkit.service.shared.outputs import (
    BOOL,
    BOX,
    INT,
    NULLABLE_INT,
    NULLABLE_STR,
    STR,
    WARNINGS,
    arr,
    obj,
)

_EDGE = obj({"id": INT, "from": INT, "to": INT}, "id", "from", "to")

COMPOSE_BOARD: dict[str, Any] = obj(
    {
        "board": STR,
        "cards": arr(
            obj(
                {
                    "ref": STR,
                    "id": INT,
                    "kind": STR,
                    **BOX,
                    "placedAs": STR,
                    "container": NULLABLE_INT,
                },
                "id",
                "kind",
                "x",
                "y",
                "w",
                "h",
                "placedAs",
            )
        ),
        "sections": arr(obj({"id": INT, "title": NULLABLE_STR, **BOX}, "id")),
        "moved": arr(INT),
        "edges": arr(_EDGE),
        "questions": arr(obj({"id": INT, "state": STR}, "id", "state")),
        "warnings": WARNINGS,
    },
    "board",
    "cards",
    "sections",
    "moved",
    "edges",
    "questions",
    "warnings",
)

_CARD_BOX = obj({"id": INT, "kind": STR, **BOX, "version": INT}, "id", "kind", "version")

UPDATE_CARDS: dict[str, Any] = obj(
    {
        "board": STR,
        "cards": arr(_CARD_BOX),
        "removed": arr(INT),
        "restored": arr(_CARD_BOX),
        "warnings": WARNINGS,
    },
    "board",
    "cards",
    "removed",
    "restored",
    "warnings",
)

VALIDATE: dict[str, Any] = obj(
    {
        "ok": BOOL,
        "findings": arr(
            obj(
                {"path": STR, "severity": STR, "code": STR, "message": STR},
                "path",
                "severity",
                "code",
                "message",
            )
        ),
        "normalized": {"description": "the payload with every default filled in"},
    },
    "ok",
    "findings",
)

#: Without a topic the index of topics; with one, that topic's page as markdown.
DOCS: dict[str, Any] = obj(
    {
        "topics": arr(obj({"topic": STR, "summary": STR}, "topic", "summary")),
        "topic": STR,
        "text": STR,
    },
    anyOf=[{"required": ["topics"]}, {"required": ["topic", "text"]}],
)
