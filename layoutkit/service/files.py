"""``card_file``: the stored file behind a file or media card, for its document URL.

scrape_board gives each file card the address of its document under
``artifact`` (:func:`file_url`); the HTTP adapter serves that address by
calling this operation, so who may read the file is decided here, as for the
board the card sits on (share links included).
"""

from __future__ import annotations

import base64
import re
from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.service._common import ID, card_board
from layoutkit.service.registry import REGISTRY
from layoutkit.service.workspace import Call
from layoutkit.storage import CardRecord

#: Card kinds whose payload names a stored file by its blob key.
FILE_KINDS = ("file", "media")
_BLOB_KEY = re.compile(r"^sha256:[0-9a-f]{64}$")
OCTET = "application/octet-stream"


def file_url(card: CardRecord) -> str | None:
    """The document URL of a card that holds a stored file, else None."""
    if card.kind in FILE_KINDS and _stored_ref(card) is not None:
        return f"/api/v1/cards/{card.id}/file"
    return None


def _stored_ref(card: CardRecord) -> str | None:
    ref = card.payload.get("ref")
    return ref if isinstance(ref, str) and _BLOB_KEY.match(ref) else None


@REGISTRY.operation(
    "card_file",
    "The stored file of a file or media card: name, mime, size and the bytes in base64. "
    "Over HTTP, GET /api/v1/cards/{id}/file serves the bytes themselves (the artifact "
    "URL scrape_board gives file cards).",
    {"required": ["id"], "properties": {"id": ID}, "additionalProperties": False},
    board=lambda tx, call: card_board(tx, call.workspace_id, call.params["id"]),
    share=("view", "annotate"),
)
def card_file(call: Call) -> dict[str, Any]:
    card = call.tx.card(call.params["id"])
    assert card is not None  # the road found its board
    ref = _stored_ref(card)
    data = call.tx.blobs.get(ref) if ref is not None else None
    if data is None:
        raise ServiceError(
            404, "no_file", f"card {card.id} ({card.kind}) holds no stored file", id=card.id
        )
    name = card.payload.get("name") or card.payload.get("alt") or f"card-{card.id}"
    mime = card.payload.get("mime")
    return {
        "id": card.id,
        "name": name if isinstance(name, str) else f"card-{card.id}",
        "mime": mime if isinstance(mime, str) and mime else OCTET,
        "size": len(data),
        "data": base64.b64encode(data).decode("ascii"),
    }
