"""Comments: threads a person pins to a point of the board or to a region of a card.

A comment thread is an annotation of kind ``comment`` (docs/annotations.md, "Comment
threads"): the same row, the same thread of replies (``reply`` posts on both, through
:func:`~layoutkit.service.review.annotations.append_reply`), the same ``get_annotation``.
What differs is who files it and its lifecycle: a person (or an annotate share link)
opens it with ``add_comment`` and it is ``open`` at once, with nothing to accept; anyone
who may write on the board resolves and reopens it; its author edits or deletes their
own messages. A finding's moves (set_status, attach_after, retriage, withdraw) refuse a
comment thread, and the comment moves refuse a finding.

Where it is pinned: ``at`` {x, y}, a point of the board, or ``cardId`` with ``region``
{nx, ny, nw?, nh?}, fractions of the card's box (a point without nw and nh), so the pin
moves and scales with its card. Agents read open threads in ``scrape_board`` and get a
person's new message as a ``wait_for_work`` item (``comment:<id>.<n>``).
"""

from __future__ import annotations

import uuid
from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.service.review.annotation_views import (
    COMMENT_STATES,
    annotation_view,
    latest_person_message,
)
from layoutkit.service.review.annotations import (
    REPLY_BYTES,
    _annotation_board,
    _load,
    check_message,
    identity,
)
from layoutkit.service.road.generic import kind_handler
from layoutkit.service.road.registry import PEOPLE, REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import ID, SLUG
from layoutkit.service.shared.signals import signal_work
from layoutkit.storage import AnnotationRecord

#: Comment threads one board holds (open and resolved): every viewer reads them all.
MAX_THREADS = 500

#: Who opens, resolves and reopens threads: people, and annotate share links.
_PEOPLE_AND_LINKS: dict[str, Any] = {"principals": PEOPLE, "share": ("annotate",)}
#: Who edits and deletes their own messages: anyone who may post one (agents reply).
_AUTHORS: dict[str, Any] = {"principals": (*PEOPLE, "agent"), "share": ("annotate",)}

_COORD = {"type": "number", "minimum": -1e7, "maximum": 1e7}
_FRACTION = {"type": "number", "minimum": 0, "maximum": 1}
_TEXT = {
    "type": "string",
    "minLength": 1,
    "maxLength": REPLY_BYTES,
    "description": f"the message (at most {REPLY_BYTES} bytes)",
}
_ID_PARAMS = {"id": {**ID, "description": "the comment thread (an annotation id)"}}
_N = {
    "type": "integer",
    "minimum": 0,
    "maximum": 100000,
    "description": "which message: 0 (the default) the comment that opened the thread, "
    "n its nth reply",
}


def _where(call: Call) -> tuple[int | None, int | None, dict[str, Any]]:
    """Where the new thread is pinned: (card id, card version, stored region)."""
    p, tx = call.params, call.tx
    if "at" in p and "cardId" in p:
        raise ServiceError(
            400,
            "exclusive_params",
            "pin a comment at a board point (at) or on a card (cardId), not both",
            field="cardId",
        )
    if "at" in p:
        if "region" in p:
            raise ServiceError(
                400,
                "invalid_region",
                "region places a comment on a card: send it with cardId",
                field="region",
            )
        return None, None, {"at": {"x": float(p["at"]["x"]), "y": float(p["at"]["y"])}}
    if "cardId" not in p:
        raise ServiceError(
            400,
            "missing_param",
            "say where the comment goes: at {x, y} on the board, or cardId (and region)",
            field="at",
        )
    card = tx.card(p["cardId"])
    if card is None or card.board_id != call.board.id or card.deleted:
        raise ServiceError(
            404,
            "unknown_card",
            f"no card {p['cardId']} on board {call.board.slug!r}",
            field="cardId",
            cardId=p["cardId"],
        )
    sent = dict(p.get("region") or {"nx": 0.0, "ny": 0.0, "nw": 1.0, "nh": 1.0})
    for start, size in (("nx", "nw"), ("ny", "nh")):
        if sent[start] + sent.get(size, 0.0) > 1.0 + 1e-9:
            raise ServiceError(
                400,
                "invalid_region",
                f"region.{start} + region.{size} is past the card's edge (1)",
                field=f"region.{size}",
            )
    normalized = {k: float(sent.get(k, 0.0)) for k in ("nx", "ny", "nw", "nh")}
    return card.id, card.version, {"normalized": normalized, "form": "normalized", "sent": sent}


def _room(call: Call) -> None:
    held = call.tx.count_annotations([call.board.id], COMMENT_STATES, kind="comment")
    n = held.get(call.board.id, 0)
    if n >= MAX_THREADS:
        raise ServiceError(
            413,
            "limit_exceeded",
            f"board {call.board.slug!r} holds {n} comment threads, the most a board takes: "
            "delete some first",
            field="board",
            limit="commentThreads",
            max=MAX_THREADS,
            value=n + 1,
        )


@REGISTRY.operation(
    "add_comment",
    "Pin a comment thread on a board (people and annotate share links): at {x, y} a point "
    "of the board, or cardId with region {nx, ny, nw?, nh?} in fractions of the card's box "
    "(the whole card without region). The thread is open at once; reply posts on it, "
    "resolve_comment and reopen_comment move it, edit_comment and delete_comment change "
    f"the author's own messages. At most {MAX_THREADS} threads a board.",
    {
        "required": ["board", "text"],
        "properties": {
            "board": SLUG,
            "text": _TEXT,
            "at": {
                "type": "object",
                "required": ["x", "y"],
                "properties": {"x": _COORD, "y": _COORD},
                "additionalProperties": False,
                "description": "a point of the board (board pixels)",
            },
            "cardId": {**ID, "description": "the card the comment is on"},
            "region": {
                "type": "object",
                "required": ["nx", "ny"],
                "properties": {"nx": _FRACTION, "ny": _FRACTION, "nw": _FRACTION, "nh": _FRACTION},
                "additionalProperties": False,
                "description": "where on the card, in fractions of its box: a point "
                "{nx, ny} or a rectangle with nw and nh",
            },
        },
        "additionalProperties": False,
    },
    board="board",
    writes=True,
    **_PEOPLE_AND_LINKS,
)
def add_comment(call: Call) -> dict[str, Any]:
    text = call.params["text"]
    check_message(text)
    card_id, version, region = _where(call)
    _room(call)
    who = identity(call, required=False)
    a = call.tx.insert_annotation(
        board_id=call.board.id,
        kind="comment",
        card_id=card_id,
        card_version=version,
        filed_version=version,
        key=f"comment-{uuid.uuid4().hex}",
        region=region,
        prompt={"summary": text},
        intent="comment",
        severity=None,
        category=None,
        related=None,
        state="open",
        author=who.author,
        principal=who.principal,
        run_id=None,
        replies=[],
        deck={},
        attention=latest_person_message(who.author, who.principal, []),
    )
    # A person's new comment is work for agents waiting on the board.
    signal_work(call)
    return annotation_view(call.workspace, a, call.board.slug)


def _thread(call: Call) -> AnnotationRecord:
    a = _load(call)
    if a.kind != "comment":
        raise ServiceError(
            409,
            "not_a_comment",
            f"annotation {a.id} is an agent's finding: its lifecycle is set_status and the "
            "board's verdicts",
            field="id",
            id=a.id,
        )
    return a


def _move(call: Call, to: str) -> dict[str, Any]:
    a = _thread(call)
    if a.state != to:
        deck = dict(a.deck)
        if to == "resolved":
            who = identity(call, required=False)
            deck["resolved"] = {"by": who.author, "at": call.tx.now().isoformat()}
        else:
            deck.pop("resolved", None)
        a = call.tx.update_annotation(a.id, state=to, deck=deck)
        if to == "open":
            # Reopened: a person's message not yet acknowledged is work again.
            signal_work(call)
    return annotation_view(call.workspace, a, call.board.slug)


@REGISTRY.operation(
    "resolve_comment",
    "Resolve a comment thread (people and annotate share links): it leaves agents' work "
    "and scrape_board, and the board shows it behind its resolved toggle. Resolving a "
    "resolved thread changes nothing.",
    {"required": ["id"], "properties": _ID_PARAMS, "additionalProperties": False},
    board=_annotation_board,
    writes=True,
    **_PEOPLE_AND_LINKS,
)
def resolve_comment(call: Call) -> dict[str, Any]:
    return _move(call, "resolved")


@REGISTRY.operation(
    "reopen_comment",
    "Reopen a resolved comment thread (people and annotate share links). Reopening an open "
    "thread changes nothing.",
    {"required": ["id"], "properties": _ID_PARAMS, "additionalProperties": False},
    board=_annotation_board,
    writes=True,
    **_PEOPLE_AND_LINKS,
)
def reopen_comment(call: Call) -> dict[str, Any]:
    return _move(call, "open")


def _own(call: Call, a: AnnotationRecord, n: int) -> dict[str, Any] | None:
    """Message ``n`` of thread ``a`` when the caller wrote it (None for the opening
    comment); 404 for no such message, 409 for one deleted, 403 for someone else's."""
    mine = call.principal.label
    if n == 0:
        if a.principal != mine:
            raise ServiceError(
                403, "not_author", "only its author changes a comment", field="id", id=a.id
            )
        return None
    found = next((r for r in a.replies if r.get("n") == n), None)
    if found is None:
        raise ServiceError(
            404,
            "unknown_reply",
            f"thread {a.id} has no reply {n} (it has {len(a.replies)})",
            field="n",
            n=n,
        )
    if found.get("deleted"):
        raise ServiceError(409, "deleted", f"reply {n} was deleted", field="n", n=n)
    if found.get("principal") != mine:
        raise ServiceError(403, "not_author", "only its author changes a reply", field="n", n=n)
    return found


@REGISTRY.operation(
    "edit_comment",
    "Change the text of your own message in a comment thread: n 0 (the default) the "
    "comment that opened it, n the nth reply. Someone else's answers 403 not_author.",
    {
        "required": ["id", "text"],
        "properties": {**_ID_PARAMS, "n": _N, "text": _TEXT},
        "additionalProperties": False,
    },
    board=_annotation_board,
    writes=True,
    **_AUTHORS,
)
def edit_comment(call: Call) -> dict[str, Any]:
    p, tx = call.params, call.tx
    a = _thread(call)
    n = p.get("n", 0)
    reply = _own(call, a, n)
    check_message(p["text"])
    now = tx.now().isoformat()
    if reply is None:
        a = tx.update_annotation(a.id, prompt={"summary": p["text"], "editedAt": now})
    else:
        replies = [
            {**r, "text": p["text"], "editedAt": now} if r is reply else r for r in a.replies
        ]
        a = tx.update_annotation(a.id, replies=replies)
    return annotation_view(call.workspace, a, call.board.slug)


@REGISTRY.operation(
    "delete_comment",
    "Delete your own message in a comment thread: n 0 (the default) deletes the whole "
    "thread you opened, replies included; n deletes your nth reply (the thread shows it "
    "as deleted, so the numbers of the others stay). Answers {id, n, deleted, thread} "
    "(thread null once the whole thread is gone).",
    {
        "required": ["id"],
        "properties": {**_ID_PARAMS, "n": _N},
        "additionalProperties": False,
    },
    board=_annotation_board,
    writes=True,
    destroys=True,
    **_AUTHORS,
)
def delete_comment(call: Call) -> dict[str, Any]:
    tx = call.tx
    a = _thread(call)
    n = call.params.get("n", 0)
    reply = _own(call, a, n)
    if reply is None:
        tx.delete_annotation(a.id)
        return {"id": a.id, "n": 0, "deleted": True, "thread": None}
    replies = [
        {**r, "text": "", "deleted": True, "deletedAt": tx.now().isoformat()} if r is reply else r
        for r in a.replies
    ]
    # A person's deleted reply is no work any more: the newest one left is.
    attention = latest_person_message(a.author, a.principal, replies)
    a = tx.update_annotation(a.id, replies=replies, attention=attention)
    return {
        "id": a.id,
        "n": n,
        "deleted": True,
        "thread": annotation_view(call.workspace, a, call.board.slug),
    }


@kind_handler(
    "get",
    "comments",
    {
        "board": SLUG,
        "states": {
            "type": "array",
            "items": {"enum": list(COMMENT_STATES)},
            "minItems": 1,
            "maxItems": len(COMMENT_STATES),
            "uniqueItems": True,
            "description": "the states to list; open when left out",
        },
        "cardId": {**ID, "description": "only the threads on this card"},
    },
    required=("board",),
    board="board",
    share=("view", "annotate"),
)
def get_comments(call: Call) -> dict[str, Any]:
    """A board's comment threads, oldest first, each whole (its replies too)."""
    p = call.params
    records = call.tx.annotations(
        call.board.id,
        states=p.get("states", ("open",)),
        card_id=p.get("cardId"),
        kind="comment",
    )
    return {
        "board": call.board.slug,
        "comments": [annotation_view(call.workspace, a, call.board.slug) for a in records],
    }
