"""How annotations read back: the one view every operation (and scrape_board) answers
with, the lifecycle's states and the addresses a finding is reached by.

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


def annotation_url(ws: Workspace, slug: str, annotation_id: int) -> str:
    """Where a person sees the finding: its board, opened on it (absolute under the
    server's public address when it has one)."""
    return ws.link(f"/boards/{slug}?annotation={annotation_id}")


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
        "url": annotation_url(ws, slug, a.id),
        "createdAt": a.created_at.isoformat(),
        "updatedAt": a.updated_at.isoformat(),
    }
    if a.filed_version > a.card_version:
        # Filed with pinStale against a version the card had moved on from.
        out["versionBadge"] = {
            "version": a.card_version,
            "current": a.filed_version,
            "label": f"v{a.card_version} (card was at v{a.filed_version})",
        }
    return out
