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
from layoutkit.files import OCTET
from layoutkit.service.road.reach import card_board
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import ID
from layoutkit.storage import CardRecord

#: Card kinds whose payload names a stored file by its blob key.
FILE_KINDS = ("file", "media")
_BLOB_KEY = re.compile(r"^sha256:[0-9a-f]{64}$")


def file_url(card: CardRecord) -> str | None:
    """The document URL of a card that holds a stored file, else None."""
    if card.kind in FILE_KINDS and _stored_ref(card) is not None:
        return f"/api/v1/cards/{card.id}/file"
    return None


def is_blob_key(value: object) -> bool:
    """Whether ``value`` is a blob key, ``sha256:<64 hex>``."""
    return isinstance(value, str) and bool(_BLOB_KEY.match(value))


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


#: Leading bytes of the types a blob is served as (the bytes decide, not a name).
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
)


def sniff_mime(data: bytes) -> str | None:
    """The type the bytes themselves announce (raster images and PDF), else None."""
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def blob_keys(value: Any) -> set[str]:
    """Every blob key a payload names, at any depth (a file's ref, its page images,
    a link's screenshots, the figures of a pushed document)."""
    found: set[str] = set()
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if len(node) == 71 and _BLOB_KEY.match(node):
                found.add(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


@REGISTRY.operation(
    "card_blob",
    "One stored blob a card names (its file, page images, screenshots, or a figure of its "
    "document), by its content key: mime (read from the bytes), size and the bytes in "
    "base64. Only keys the card's payload names are served, so a share link reaches its "
    "own board's blobs alone. data false checks access and presence without the bytes. "
    "Over HTTP, GET /api/v1/cards/{id}/blobs/{key} serves the bytes with an ETag and "
    "year-long immutable caching (the key is the hash of the content).",
    {
        "required": ["id", "key"],
        "properties": {
            "id": ID,
            "key": {"type": "string", "pattern": _BLOB_KEY.pattern, "description": "sha256:<hex>"},
            "data": {"type": "boolean", "description": "send the bytes (default true)"},
        },
        "additionalProperties": False,
    },
    board=lambda tx, call: card_board(tx, call.workspace_id, call.params["id"]),
    share=("view", "annotate"),
)
def card_blob(call: Call) -> dict[str, Any]:
    card = call.tx.card(call.params["id"])
    assert card is not None  # the road found its board
    key = call.params["key"]
    # A key the card does not name is unknown here even when stored: a reader reaches
    # a blob only through a card they may read. A hash is not a credential on its own
    # (it is known only to someone who could see the content behind it).
    present = key in blob_keys(card.payload)
    if present and not call.params.get("data", True):
        present = call.tx.blobs.has(key)
        data = None
    else:
        data = call.tx.blobs.get(key) if present else None
        present = data is not None
    if not present:
        raise ServiceError(
            404, "unknown_blob", f"card {card.id} names no stored blob {key}", id=card.id, key=key
        )
    out: dict[str, Any] = {"id": card.id, "key": key}
    if data is not None:
        declared = card.payload.get("mime") if card.payload.get("ref") == key else None
        mime = sniff_mime(data) or (declared if isinstance(declared, str) and declared else OCTET)
        out.update(mime=mime, size=len(data), data=base64.b64encode(data).decode("ascii"))
    return out
