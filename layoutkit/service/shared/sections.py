"""Sections of a board read from its cards: titles, members and the section each card sits in."""

from __future__ import annotations

from typing import Any

from layoutkit.errors import ServiceError, did_you_mean
from layoutkit.folding import fold
from layoutkit.storage import CardRecord


def section_title(card: CardRecord) -> str:
    """A section's title, or ``section <id>`` for one without."""
    title = card.payload.get("title")
    return title if isinstance(title, str) and title else f"section {card.id}"


def section_summary(card: CardRecord, **counts: int) -> dict[str, Any]:
    """A section frame as scrape_board and ``list`` kind section report it: box, title,
    ``counts``, saved layout and journey."""
    out: dict[str, Any] = {
        "id": card.id,
        "title": section_title(card),
        "x": card.x,
        "y": card.y,
        "w": card.w,
        "h": card.h,
        **counts,
    }
    if "layout" in card.payload:
        out["layout"] = card.payload["layout"]
    if "journey" in card.payload:
        out["journey"] = card.payload["journey"]
        out["pass"] = card.payload.get("pass")
    return out


def containing_sections(cards: dict[int, CardRecord]) -> dict[int, int | None]:
    """For every card, the nearest enclosing section frame (by parent links)."""
    out: dict[int, int | None] = {}
    for card in cards.values():
        parent = card.parent_id
        found = None
        seen = 0
        while parent is not None and parent in cards and seen < 16:
            if cards[parent].kind == "section":
                found = parent
                break
            parent = cards[parent].parent_id
            seen += 1
        out[card.id] = found
    return out


def members(cards: dict[int, CardRecord], frame: int) -> list[int]:
    """Every card inside ``frame``, depth first in child order."""
    out: list[int] = []
    stack = list(reversed(cards[frame].children or []))
    while stack:
        cid = stack.pop()
        if cid in cards:
            out.append(cid)
            stack.extend(reversed(cards[cid].children or []))
    return out


def find_section(cards: dict[int, CardRecord], name: str) -> CardRecord:
    """The section titled ``name`` (exactly, else folded); 404 ``unknown_section`` with close titles."""
    sections = [c for c in cards.values() if c.kind == "section"]
    for card in sections:
        if section_title(card) == name:
            return card
    folded = fold(name)
    for card in sections:
        if fold(section_title(card)) == folded:
            return card
    raise ServiceError(
        404,
        "unknown_section",
        f"no section {name!r} on this board",
        didYouMean=did_you_mean(name, [section_title(c) for c in sections]),
    )
