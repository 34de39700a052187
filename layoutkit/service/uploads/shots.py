"""Kind ``shot``: the screenshots of a pushed set (``push_doc``'s ``shots``).

A shot is one image of one version of a set: its name, device, theme, the set's
board, branch and version, and the blob of its bytes. It is addressed the way
``attach_after`` names an after-shot, ``{board, branch, version, name}``: the
name is the set file the shot was pushed as (or the ``name`` its metadata gave,
else ``shot-<n>``), and ``attach_after {file}`` takes that name; a ``step`` card whose ``image`` is the
shot's blob key (``get``'s ``step``) puts it before ``review_plan``. ``list`` kind
shot lists a set version's shots (the latest on the branch unless ``version``
says), ``get`` kind shot reads one with its image's URL, the blob route of the
set's doc card (``GET /api/v1/cards/{card}/blobs/{key}``).

Sets pushed before shots kept their metadata still list: their shots are named
by the set file of the same bytes, else by position.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from layoutkit.errors import ServiceError, did_you_mean
from layoutkit.limits import LimitExceeded
from layoutkit.review.plan import DEVICES
from layoutkit.service.road.generic import kind_handler
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import SLUG
from layoutkit.service.uploads.uploads import image_size
from layoutkit.storage import BoardRecord, CardRecord, Tx

DEFAULT_BRANCH = "main"
THEMES = ("light", "dark")
_BRANCH: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": 100,
    "description": "the set's branch (default main)",
}
_VERSION: dict[str, Any] = {
    "type": "integer",
    "minimum": 1,
    "maximum": 2**31 - 1,
    "description": "the set version (default: the latest on the branch)",
}


def shot_meta(raw: list[dict[str, Any]], files: dict[str, str]) -> list[dict[str, Any]]:
    """What a set keeps of each shot besides its blob: a name unique in the set, and
    its device and theme when the metadata names ones the review plan knows."""
    out: list[dict[str, Any]] = []
    taken: set[str] = set()
    for n, meta in enumerate(raw, start=1):
        name = meta.get("file") or meta.get("image") or meta.get("name") or f"shot-{n}"
        name = str(name)
        if name in taken:
            # The same file shown twice stays two shots: the second by its position.
            name = f"{name}#{n}"
        taken.add(name)
        kept: dict[str, Any] = {"name": name}
        if meta.get("device") in DEVICES:
            kept["device"] = meta["device"]
        if meta.get("theme") in THEMES:
            kept["theme"] = meta["theme"]
        out.append(kept)
    return out


def set_versions(tx: Tx, board_id: int, branch: str) -> dict[int, CardRecord]:
    """The pushed set versions of ``branch`` on the board, each with its doc card
    (removed cards too: a version's number and after-shots outlive its card)."""
    sets: dict[int, CardRecord] = {}
    for card in tx.cards(board_id, include_deleted=True):
        stamp = card.payload.get("set") if card.kind == "doc" else None
        if isinstance(stamp, dict) and stamp.get("branch") == branch:
            version = stamp.get("version")
            if isinstance(version, int):
                sets.setdefault(version, card)
    return sets


def set_version(tx: Tx, board: BoardRecord, branch: str, version: int | None) -> CardRecord:
    """The doc card of set ``version`` (the latest live one when None), or 404."""
    sets = set_versions(tx, board.id, branch)
    if version is None:
        live = [v for v, card in sets.items() if not card.deleted]
        if live:
            return sets[max(live)]
    elif version in sets:
        return sets[version]
    raise ServiceError(
        404,
        "unknown_set_version",
        f"board {board.slug!r} holds no pushed set"
        + (f" version {version}" if version is not None else "")
        + f" on branch {branch!r}",
        field="version",
        versions=sorted(sets),
    )


def set_shots(card: CardRecord) -> list[dict[str, Any]]:
    """The shots of a set's doc card: ``{index, name, ref, device?, theme?}``."""
    stamp = card.payload.get("set") or {}
    refs = [r for r in stamp.get("shots") or [] if isinstance(r, str)]
    metas = stamp.get("shotMeta")
    if not isinstance(metas, list) or len(metas) != len(refs):
        by_ref = {ref: name for name, ref in (stamp.get("files") or {}).items()}
        metas = shot_meta([{"name": by_ref.get(ref)} for ref in refs], {})
    return [
        {"index": i, **meta, "ref": ref}
        for i, (ref, meta) in enumerate(zip(refs, metas, strict=True))
    ]


def blob_url(card_id: int, key: str) -> str:
    """Where the HTTP adapter serves a blob the card names."""
    return f"/api/v1/cards/{card_id}/blobs/{key}"


def _view(
    link: Callable[[str], str], board: str, card: CardRecord, shot: dict[str, Any]
) -> dict[str, Any]:
    stamp = card.payload["set"]
    return {
        "board": board,
        "branch": stamp["branch"],
        "version": stamp["version"],
        "name": shot["name"],
        "device": shot.get("device"),
        "theme": shot.get("theme"),
        "ref": shot["ref"],
        "card": card.id,
        "imageUrl": link(blob_url(card.id, shot["ref"])),
    }


@kind_handler(
    "list",
    "shot",
    {
        "board": SLUG,
        "branch": _BRANCH,
        "version": _VERSION,
        "device": {"enum": list(DEVICES)},
        "theme": {"enum": list(THEMES)},
    },
    required=("board",),
    board="board",
    share=("view", "annotate"),
)
def list_shots(call: Call) -> dict[str, Any]:
    p, board = call.params, call.board
    card = set_version(call.tx, board, p.get("branch", DEFAULT_BRANCH), p.get("version"))
    shots = [
        _view(call.workspace.link, board.slug, card, s)
        for s in set_shots(card)
        if all(p.get(k) is None or s.get(k) == p[k] for k in ("device", "theme"))
    ]
    stamp = card.payload["set"]
    return {
        "board": board.slug,
        "branch": stamp["branch"],
        "version": stamp["version"],
        "shots": shots,
    }


@kind_handler(
    "get",
    "shot",
    {
        "board": SLUG,
        "name": {
            "type": "string",
            "minLength": 1,
            "maxLength": 500,
            "description": "the shot's name in its set (the set file it was pushed as)",
        },
        "branch": _BRANCH,
        "version": _VERSION,
    },
    required=("board", "name"),
    board="board",
    share=("view", "annotate"),
)
def get_shot(call: Call) -> dict[str, Any]:
    p, board, tx = call.params, call.board, call.tx
    card = set_version(tx, board, p.get("branch", DEFAULT_BRANCH), p.get("version"))
    shots = set_shots(card)
    found = [s for s in shots if s["name"] == p["name"]]
    if not found:
        raise ServiceError(
            404,
            "unknown_shot",
            f"set version {card.payload['set']['version']} has no shot {p['name']!r}",
            field="name",
            didYouMean=did_you_mean(p["name"], [s["name"] for s in shots]),
        )
    out = _view(call.workspace.link, board.slug, card, found[0])
    data = tx.blobs.get(found[0]["ref"])
    try:
        head = image_size(data) if data is not None else None
    except (
        ServiceError,
        LimitExceeded,
    ):  # stored before the pixel limit: still a shot, size unknown
        head = None
    out.update(
        size=len(data) if data is not None else None,
        width=head[0] if head else None,
        height=head[1] if head else None,
        mime=head[2] if head else None,
        # A step card reads a screen by its blob key, so the review plan judges it.
        step={"kind": "step", "payload": {"image": out["ref"], "title": out["name"]}},
        # The after-shot of a fix is named exactly so (annotations.md, attach_after).
        attachAfter={
            "setBoard": board.slug,
            "branch": out["branch"],
            "version": out["version"],
            "file": out["name"],
        },
    )
    return {"shot": out}
