"""The result shape of wait_for_work (see shared/outputs)."""

from __future__ import annotations

from typing import Any

from layoutkit.service.shared.outputs import BOOL, NUM, OBJ, STR, arr, obj

#: Each delivered item names itself (``item``, e.g. ``ask:3``); those held under a
#: lease say until when.
_CAPSULES = arr(
    obj(
        {
            "item": STR,
            "lease": obj({"until": STR, "deliveries": NUM}, "until", "deliveries"),
            # the call that finishes the item: heartbeat_work {done: [item]}
            "ack": obj({"operation": STR, "params": OBJ}, "operation", "params"),
        },
        "item",
    )
)

#: Either idle (nothing to do before the timeout) or the groups of work taken.
WAIT_FOR_WORK: dict[str, Any] = obj(
    {
        "idle": BOOL,
        "annotations": _CAPSULES,
        "comments": _CAPSULES,
        "choices": _CAPSULES,
        "asks": _CAPSULES,
        "sessions": _CAPSULES,
        "agent": STR,
        "scope": OBJ,
        "leaseSeconds": NUM,
        # the earliest lease end among the items delivered
        "leaseUntil": STR,
    },
    "agent",
    "scope",
    "leaseSeconds",
    anyOf=[
        {"required": ["idle"], "properties": {"idle": {"const": True}}},
        {"required": ["annotations", "comments", "choices", "asks", "sessions"]},
    ],
)
