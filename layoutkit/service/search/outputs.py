"""The result shape of search (see shared/outputs)."""

from __future__ import annotations

from typing import Any

from layoutkit.service.shared.outputs import INT, OBJ, STR, arr, obj

#: Hits by group; with mode resolve, the reading of one task reference instead.
SEARCH: dict[str, Any] = obj(
    {
        "q": STR,
        "groups": {"type": "object", "additionalProperties": arr(OBJ)},
        "corrections": arr(OBJ),
        "mode": STR,
        "verdict": STR,
        "candidates": arr(obj({"id": INT, "title": STR}, "id")),
        "next": obj({"operation": STR, "params": OBJ}, "operation"),
    },
    anyOf=[{"required": ["q", "groups"]}, {"required": ["verdict", "candidates"]}],
)
