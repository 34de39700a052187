"""Who may change a card or a wire: one rule for update_cards and update_edges and for
what get cards and get edges tell a viewer."""

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
    around it. Likewise a person may adjust any diagram by hand (a payload of
    ``overrides`` alone: a node moved, a label typed over): the adjustments are
    theirs, kept beside the semantics, which stay the author's.
    """
    if principal.kind == "owner" or card.kind == "section":
        return True
    if principal.layer == "human" and set(patch) <= _GEOMETRY:
        return True
    if principal.layer == "human" and card.kind == "diagram" and _adjusts(patch):
        return True
    if card.author != principal.label:
        return False
    return card.layer == "ai" or principal.layer == "human"


def _adjusts(patch: dict[str, Any]) -> bool:
    """Whether a patch changes a diagram's human overrides and nothing else of its content."""
    payload = patch.get("payload")
    return (
        set(patch) <= _GEOMETRY | {"payload"}
        and isinstance(payload, dict)
        and set(payload) == {"overrides"}
    )


def may_change_wire(principal: Principal, author: str | None) -> bool:
    """Who may change a wire's label and relation: the one who drew it, or the owner.

    Anyone who may write the board may remove a wire; removing one drawn by
    someone else asks for confirmation first (as removing their cards does).
    """
    return principal.kind == "owner" or (author is not None and author == principal.label)
