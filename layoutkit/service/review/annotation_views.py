"""How annotations read back: the one view every operation (and scrape_board) answers
with, the lifecycle's states and the addresses a finding is reached by; and the
rules comment threads (annotations of kind ``comment``) are read by: whose message
counts as a person's, which message is new work for agents, and the digest
scrape_board shows.

Kept apart from :mod:`layoutkit.service.review.annotations` so board reads import it without
the filing machinery.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from layoutkit.storage import AnnotationRecord

if TYPE_CHECKING:
    from layoutkit.service.road.workspace import Workspace

#: Every state of the lifecycle, in the order a finding moves through them.
STATES = ("staged", "open", "working", "in_review", "resolved", "cancelled")
#: States of a finding still live (not yet resolved or cancelled): scrape_board lists
#: them, lanes count them, and a new finding restating one of them is a duplicate.
OPEN_STATES = ("staged", "open", "working", "in_review")
#: The states of a person's comment thread: open until someone resolves it, and open
#: again when reopened. A deleted thread is gone (its row is removed).
COMMENT_STATES = ("open", "resolved")
#: What scrape_board shows of comment threads: the newest open ones, each message's
#: text cut to this many characters, and the last few replies of each (the thread in
#: full is get_annotation's).
SCRAPE_THREADS = 50
SCRAPE_TEXT = 500
SCRAPE_REPLIES = 3


def annotation_url(ws: Workspace, slug: str, annotation_id: int) -> str:
    """Where a person sees the finding: its board, opened on it (absolute under the
    server's public address when it has one)."""
    return ws.link(f"/boards/{slug}?annotation={annotation_id}")


def thread_url(ws: Workspace, slug: str, a: AnnotationRecord) -> str:
    """Where a person sees annotation ``a``: a finding's region, or a comment thread's
    pin with its popover showing."""
    if a.kind == "comment":
        return ws.link(f"/boards/{slug}?comment={a.id}")
    return annotation_url(ws, slug, a.id)


def _linked_deck(ws: Workspace, deck: dict[str, Any]) -> dict[str, Any]:
    """``deck`` with its crop address absolute: rows keep it relative to the server, so
    a deployment that moves keeps working links."""
    before = deck.get("before")
    if not isinstance(before, dict) or not isinstance(before.get("url"), str):
        return deck
    return {**deck, "before": {**before, "url": ws.link(before["url"])}}


def crop_url(slug: str, card_id: int, version: int, rect: Mapping[str, float]) -> str:
    """A version-pinned address of the picture of ``rect`` (picture pixels) of card
    ``card_id`` at ``version``: the HTTP adapter serves it as PNG (get_card_image)."""
    query = urllib.parse.urlencode(
        {"version": version, **{k: f"{float(rect[k]):g}" for k in ("x", "y", "w", "h")}}
    )
    return f"/api/v1/boards/{slug}/cards/{card_id}/image?{query}"


def via(principal: str) -> str:
    """How the verified principal is shown: ``via <name>`` (``user:ana`` -> ``via ana``)."""
    return "via " + principal.split(":", 1)[1] if ":" in principal else f"via {principal}"


def annotation_view(ws: Workspace, a: AnnotationRecord, slug: str) -> dict[str, Any]:
    """A finding as operations answer with it."""
    out: dict[str, Any] = {
        "id": a.id,
        "key": a.key,
        "board": slug,
        "cardId": a.card_id,
        "cardVersion": a.card_version,
        "state": a.state,
        "region": a.region,
        "prompt": a.prompt,
        "intent": a.intent,
        "severity": a.severity,
        "category": a.category,
        "related": a.related,
        "author": a.author,
        "principal": a.principal,
        "via": via(a.principal),
        "run": a.run_id,
        "replies": a.replies,
        "deck": _linked_deck(ws, a.deck),
        "url": thread_url(ws, slug, a),
        "createdAt": a.created_at.isoformat(),
        "updatedAt": a.updated_at.isoformat(),
        "kind": a.kind,
    }
    if a.kind == "comment":
        out.update(_comment_fields(a))
    elif (
        a.filed_version is not None
        and a.card_version is not None
        and (a.filed_version > a.card_version)
    ):
        # Filed with pinStale against a version the card had moved on from.
        out["versionBadge"] = {
            "version": a.card_version,
            "current": a.filed_version,
            "label": f"v{a.card_version} (card was at v{a.filed_version})",
        }
    return out


# ------------------------------------------------------------------ comment threads


def by_person(author: str, principal: str) -> bool:
    """Whether a message was a person's: neither written as an agent's runtime
    (``agent:<runtime>``) nor by an agent's or a service's token. A person's message on
    an open comment thread is work for agents; an agent's own reply is not."""
    kind = principal.split(":", 1)[0]
    return not author.startswith("agent:") and kind not in ("agent", "service")


def latest_person_message(author: str, principal: str, replies: list[dict[str, Any]]) -> int | None:
    """The number of the newest message of a comment thread opened by ``author``
    (``principal``) a person wrote: 0 the comment that opened it, n its nth reply
    (deleted ones do not count); None when no person wrote one. Stored as the thread's
    ``attention``: agents get ``comment:<id>.<attention>`` as work while it is open, so
    a person's new reply is a new item and one acknowledged is never delivered again."""
    for reply in reversed(replies):
        if not reply.get("deleted") and by_person(reply["author"], reply["principal"]):
            return int(reply["n"])
    return 0 if by_person(author, principal) else None


def _comment_fields(a: AnnotationRecord) -> dict[str, Any]:
    region = a.region or {}
    return {
        "text": a.prompt.get("summary", ""),
        "editedAt": a.prompt.get("editedAt"),
        "at": region.get("at"),
        "resolved": a.deck.get("resolved"),
    }


def _cut(text: str) -> str:
    return text if len(text) <= SCRAPE_TEXT else text[: SCRAPE_TEXT - 1] + "…"


def comment_digest(a: AnnotationRecord) -> dict[str, Any]:
    """An open comment thread as scrape_board lists it: where it is pinned, the opening
    text and the last few replies, each cut short (get_annotation reads it whole)."""
    shown = [r for r in a.replies if not r.get("deleted")]
    return {
        "id": a.id,
        "cardId": a.card_id,
        "at": (a.region or {}).get("at"),
        "region": (a.region or {}).get("normalized"),
        "author": a.author,
        "text": _cut(a.prompt.get("summary", "")),
        "replyCount": len(shown),
        "lastReplies": [
            {"n": r["n"], "author": r["author"], "text": _cut(r["text"]), "at": r["at"]}
            for r in shown[-SCRAPE_REPLIES:]
        ],
        "updatedAt": a.updated_at.isoformat(),
    }
