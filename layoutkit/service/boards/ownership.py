"""Who may change a card: one rule for update_cards and for what get cards tells a viewer."""

from __future__ import annotations

from typing import Any

from layoutkit.principal import Principal
from layoutkit.storage import CardRecord

_GEOMETRY = frozenset({"id", "x", "y", "w", "h", "version"})


def may_patch(principal: Principal, card: CardRecord, patch: dict[str, Any]) -> bool:
    """Agents and services patch their own AI-layer cards; people their own cards;
    anyone may patch section frames; the owner may patch everything.

    A person may move and resize any card by hand (no payload): the card is
    where they drag it, and an agent composing around it places its next batch
    around it.
    """
    if principal.kind == "owner" or card.kind == "section":
        return True
    if principal.layer == "human" and set(patch) <= _GEOMETRY:
        return True
    if card.author != principal.label:
        return False
    return card.layer == "ai" or principal.layer == "human"
