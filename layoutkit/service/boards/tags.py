"""The generic kind ``tag``: the workspace's tag vocabulary.

A tag exists once a board carries it; ``create`` kind tag also names one ahead
of any board and gives it a colour and a description. Names are folded as board
tags are (:func:`layoutkit.storage.fold_tag`), so ``Design``, ``design`` and
``désign`` are one tag, and the folded form is the tag's id everywhere: on
boards, in ``list`` kind board's tag filter, in search and in the tag page
(``/?tag=<tag>``).

The vocabulary is kept in the workspace's meta under :data:`VOCABULARY_KEY`
(one small map per workspace; boards keep their own tag rows).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import quote

from layoutkit.errors import ServiceError, did_you_mean
from layoutkit.service.boards.boards import board_url
from layoutkit.service.road.generic import kind_handler
from layoutkit.service.road.reach import may_reach
from layoutkit.service.road.workspace import Call, Workspace
from layoutkit.storage import fold_tag

#: The workspace meta key holding the vocabulary: folded tag -> its entry.
VOCABULARY_KEY = "tags"
#: The boards a tag's ``get`` lists at most (the tag page shows the same).
MAX_TAG_BOARDS = 200

_NAME = {
    "type": "string",
    "minLength": 1,
    "maxLength": 80,
    "description": "a tag as written; case and diacritics fold away",
}
_COLOUR = {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$", "description": "#rrggbb"}
_DESCRIPTION = {"type": "string", "maxLength": 500}


def tag_url(ws: Workspace, tag: str) -> str:
    """The page listing the boards that carry ``tag`` (the board index, filtered); search's
    tag hits link to it too."""
    return ws.link(f"/?tag={quote(tag)}")


def _vocabulary(call: Call) -> dict[str, dict[str, Any]]:
    record = call.tx.workspace(call.workspace_id)
    assert record is not None  # the road found the workspace
    return dict(record.meta.get(VOCABULARY_KEY) or {})


def _counts(call: Call) -> dict[str, int]:
    return dict(call.tx.tags(call.workspace_id))


def _view(tag: str, entry: dict[str, Any] | None, count: int) -> dict[str, Any]:
    out: dict[str, Any] = {"tag": tag, "count": count}
    for key in ("name", "colour", "description", "createdBy", "createdAt"):
        if entry and key in entry:
            out[key] = entry[key]
    return out


def _folded(name: str, field: str) -> str:
    folded = fold_tag(name)
    if not folded:
        raise ServiceError(400, "invalid_tag", f"tag {name[:120]!r} folds to nothing", field=field)
    return folded


def _known(call: Call, name: str) -> tuple[str, dict[str, Any] | None, int]:
    """A tag that exists (in the vocabulary or on a board): folded, entry, board count."""
    tag = _folded(name, "tag")
    vocabulary, counts = _vocabulary(call), _counts(call)
    if tag not in vocabulary and tag not in counts:
        raise ServiceError(
            404,
            "unknown_tag",
            f"no tag {tag!r} in this workspace",
            field="tag",
            didYouMean=did_you_mean(tag, sorted({*vocabulary, *counts})),
        )
    return tag, vocabulary.get(tag), counts.get(tag, 0)


@kind_handler("list", "tag", {})
def list_tags(call: Call) -> dict[str, Any]:
    """Every tag of the workspace, on boards or in the vocabulary, with its board count."""
    vocabulary, counts = _vocabulary(call), _counts(call)
    return {
        "tags": [
            _view(tag, vocabulary.get(tag), counts.get(tag, 0))
            for tag in sorted({*vocabulary, *counts})
        ]
    }


@kind_handler(
    "create",
    "tag",
    {"name": _NAME, "colour": _COLOUR, "description": _DESCRIPTION},
    required=("name",),
    writes=True,
)
def create_tag(call: Call) -> dict[str, Any]:
    """Name a tag; the same create again answers the same receipt, other settings 409."""
    p = call.params
    tag = _folded(p["name"], "name")
    vocabulary = _vocabulary(call)
    wanted = {k: p[k] for k in ("colour", "description") if k in p}
    entry = vocabulary.get(tag)
    if entry is not None:
        if {k: entry.get(k) for k in ("colour", "description") if k in entry} != wanted:
            raise ServiceError(
                409,
                "tag_exists",
                f"tag {tag!r} exists with another colour or description; change it with "
                "update kind tag",
                field="name",
            )
    else:
        entry = {
            "name": p["name"],
            **wanted,
            "createdBy": call.principal.label,
            "createdAt": _now(call),
        }
        call.tx.set_workspace_meta_item(call.workspace_id, VOCABULARY_KEY, tag, entry)
        call.tx.record_event("tag.create", call.principal.label, detail={"tag": tag})
    return {
        "tag": _view(tag, entry, _counts(call).get(tag, 0)),
        "url": tag_url(call.workspace, tag),
    }


@kind_handler(
    "get",
    "tag",
    {"tag": _NAME},
    required=("tag",),
)
def get_tag(call: Call) -> dict[str, Any]:
    """A tag with the boards the caller can reach that carry it (not archived)."""
    tag, entry, count = _known(call, call.params["tag"])
    boards = [
        b
        for b in call.tx.boards(call.workspace_id, all_tags=[tag], archived=False)
        if may_reach(call.principal, b)
    ]
    return {
        "tag": _view(tag, entry, count),
        "url": tag_url(call.workspace, tag),
        "boards": [
            {
                "slug": b.slug,
                "title": b.meta.get("title") if isinstance(b.meta.get("title"), str) else None,
                "subgroup": b.subgroup,
                "url": board_url(call.workspace, b.slug),
            }
            for b in boards[:MAX_TAG_BOARDS]
        ],
        "truncated": len(boards) > MAX_TAG_BOARDS,
    }


@kind_handler(
    "update",
    "tag",
    {
        "tag": _NAME,
        # An empty string clears the field.
        "colour": {"anyOf": [_COLOUR, {"const": ""}]},
        "description": _DESCRIPTION,
    },
    required=("tag",),
    writes=True,
)
def update_tag(call: Call) -> dict[str, Any]:
    """Change a tag's colour or description; a tag only boards carried joins the vocabulary."""
    p = call.params
    tag, entry, count = _known(call, p["tag"])
    entry = dict(
        entry or {"name": p["tag"], "createdBy": call.principal.label, "createdAt": _now(call)}
    )
    for key in ("colour", "description"):
        if key in p:
            if p[key]:
                entry[key] = p[key]
            else:
                entry.pop(key, None)
    call.tx.set_workspace_meta_item(call.workspace_id, VOCABULARY_KEY, tag, entry)
    call.tx.record_event("tag.update", call.principal.label, detail={"tag": tag})
    return {"tag": _view(tag, entry, count), "url": tag_url(call.workspace, tag)}


def _now(call: Call) -> str:
    now: datetime = call.tx.now()
    return now.isoformat()
