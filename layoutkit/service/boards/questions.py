"""Staged questions: the shape check shared by ``ask_board`` and ``compose_board``."""

from __future__ import annotations

from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.service.shared.common import ID

MAX_OPTIONS = 12
#: Options the params check takes: over MAX_OPTIONS the question check answers
#: invalid_question naming the spec's 1 to 12.
OPTIONS_CHECKED = 100
MAX_HINT = 300
MAX_DETAIL = 4000
#: Appended to every choice question so a reader can always answer outside the list.
OTHER_OPTION = {"label": "Other", "other": True}

QUESTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["prompt"],
    "properties": {
        "prompt": {"type": "string", "minLength": 1, "maxLength": 2000},
        "stakes": {"type": "string", "maxLength": 2000},
        "options": {
            "type": "array",
            "items": {"type": ["string", "object"]},
            "maxItems": OPTIONS_CHECKED,
            "description": f"1 to {MAX_OPTIONS} options for a choice question",
        },
        "multiSelect": {"type": "boolean"},
        "kind": {"enum": ["choice", "text"]},
        "pivot": {"type": "boolean"},
        "cardRef": {"type": "string"},
        "cardId": ID,
    },
    "additionalProperties": False,
}


def _bad(path: str, message: str) -> ServiceError:
    return ServiceError(400, "invalid_question", f"{path}: {message}", field=path)


def normalize_question(q: dict[str, Any], path: str = "question") -> dict[str, Any]:
    """Check a question (already schema-shaped) and return its stored form.

    Choice questions need 1 to 12 options; each option is a label or
    ``{label, hint?, detail?, recommended?, cardId?, pivot?}``. The Other
    escape is added here, so authors pass only real options. Raises 400
    ``invalid_question`` naming the field.
    """
    kind = q.get("kind", "choice")
    raw = q.get("options") or []
    if kind == "text":
        if raw:
            raise _bad(f"{path}.options", "a text question takes no options")
        options: list[dict[str, Any]] = []
    else:
        if not 1 <= len(raw) <= MAX_OPTIONS:
            raise _bad(f"{path}.options", f"a choice question needs 1 to {MAX_OPTIONS} options")
        options = [_option(o, f"{path}.options[{i}]") for i, o in enumerate(raw)]
        if any(o["label"].strip().lower() == "other" for o in options):
            raise _bad(
                f"{path}.options", "'Other' is appended automatically; pass only real options"
            )
        options.append(dict(OTHER_OPTION))
    return {
        "prompt": q["prompt"],
        "stakes": q.get("stakes"),
        "options": options,
        "multiSelect": bool(q.get("multiSelect", False)),
        "kind": kind,
        "pivot": bool(q.get("pivot", False)),
    }


def _option(raw: Any, path: str) -> dict[str, Any]:
    if isinstance(raw, str):
        raw = {"label": raw}
    label = raw.get("label")
    if not isinstance(label, str) or not label.strip():
        raise _bad(f"{path}.label", "an option needs a label")
    out: dict[str, Any] = {"label": label}
    for key, limit in (("hint", MAX_HINT), ("detail", MAX_DETAIL)):
        value = raw.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or len(value) > limit:
            raise _bad(f"{path}.{key}", f"must be text of at most {limit} characters")
        out[key] = value
    for key in ("recommended", "pivot"):
        if key in raw:
            if not isinstance(raw[key], bool):
                raise _bad(f"{path}.{key}", "must be true or false")
            out[key] = raw[key]
    if "cardId" in raw:
        if not isinstance(raw["cardId"], int) or isinstance(raw["cardId"], bool):
            raise _bad(f"{path}.cardId", "must be a card id")
        out["cardId"] = raw["cardId"]
    unknown = set(raw) - {"label", "hint", "detail", "recommended", "cardId", "pivot"}
    if unknown:
        raise _bad(f"{path}.{sorted(unknown)[0]}", "unknown option field")
    return out
