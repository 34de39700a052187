"""``upload_files``: store files as blobs and place one card per file on a board.

What each file becomes:

- an image Pillow can read: a ``media`` card ``{ref, mime, alt, natW, natH}``
  (the natural size lets the layout engine keep the picture's aspect; the
  pictures of one call share one height, see
  :func:`layoutkit.layout.sizing.batch_picture_sizes`);
- a PDF: a ``file`` card ``{name, mime, size, ref, pages}`` drawn as an A4 sheet;
- anything else: a ``file`` card ``{name, mime, size, ref}`` drawn as a download chip.

Limits: at most :data:`MAX_FILE_BYTES` (25 MiB) per file and
:data:`MAX_CALL_BYTES` (100 MiB) per call, counted on the decoded bytes;
more answers 413 ``payload_too_large``. At most :data:`MAX_FILES` files per call.

Placement goes through the layout engine like ``compose_board``: without
placement options the batch lands in free space; ``section`` fills that frame
(created on demand); ``anchor`` with ``side`` ``right`` joins the anchor's row
right after it (relation ``after``), ``below`` opens a row under it (``under``).
Blobs, cards and moved neighbours are written in one transaction.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import attrs
from PIL import Image

from layoutkit import imaging
from layoutkit.errors import EngineError, ServiceError
from layoutkit.files import MAX_FILE_BYTES, guess_mime
from layoutkit.layout import sizing
from layoutkit.limits import LimitExceeded
from layoutkit.service.boards.board_model import BoardModels
from layoutkit.service.boards.content_prep import prepare_card
from layoutkit.service.boards.layout_params import AT_SCHEMA
from layoutkit.service.boards.placing import place_cards
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import SLUG
from layoutkit.service.uploads import page_images, renditions
from layoutkit.service.uploads.pdf_pages import pdf_page_counts

MAX_CALL_BYTES = 100 * 1024 * 1024
MAX_FILES = 200
#: Files the params check takes. Over MAX_FILES the handler answers
#: too_many_files naming that limit; this bound only keeps the check's own work
#: (one schema check per file) finite.
FILES_CHECKED = 1000
PDF_MIME = "application/pdf"

#: ``side`` of an upload anchor → the compose relation it stands for.
SIDE_RELATION = {"right": "after", "below": "under"}

FILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "data"],
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 255},
        "data": {"type": "string", "description": "file bytes, base64"},
        "mime": {"type": "string", "maxLength": 200},
    },
    "additionalProperties": False,
}

UPLOAD_SCHEMA: dict[str, Any] = {
    "required": ["board", "files"],
    "properties": {
        "board": SLUG,
        "files": {
            "type": "array",
            "minItems": 1,
            "maxItems": FILES_CHECKED,
            "items": FILE_SCHEMA,
        },
        "section": {"type": "string", "minLength": 1, "maxLength": 200},
        "createSection": {"type": "boolean"},
        "anchor": {"type": "integer", "description": "card id the files are placed next to"},
        "side": {"enum": ["right", "below"], "description": "where, next to anchor; default right"},
        "at": AT_SCHEMA,
    },
    "additionalProperties": False,
}


@attrs.frozen
class Decoded:
    """One uploaded file: its name, bytes and declared (or guessed) type."""

    name: str
    data: bytes
    mime: str


def decode_files(files: list[dict[str, Any]], field: str = "files") -> list[Decoded]:
    """Decode base64 file entries and enforce the size limits.

    Raises 413 ``payload_too_large`` over :data:`MAX_FILE_BYTES` per file or
    :data:`MAX_CALL_BYTES` in all, 400 ``too_many_files`` over
    :data:`MAX_FILES`, 400 ``invalid_base64`` (with ``index``) for data that
    is not base64.
    """
    if len(files) > MAX_FILES:
        raise ServiceError(
            400, "too_many_files", f"at most {MAX_FILES} files per call", field=field
        )
    total = 0
    out = []
    for i, entry in enumerate(files):
        text = entry["data"]
        # Cheap bound before decoding: base64 is 4 characters per 3 bytes.
        if len(text) // 4 * 3 > MAX_FILE_BYTES + 3:
            raise _too_large(entry["name"], i, field)
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ServiceError(
                400,
                "invalid_base64",
                f"{field}[{i}].data: {entry['name']} is not valid base64",
                index=i,
                field=f"{field}[{i}].data",
            ) from exc
        if len(data) > MAX_FILE_BYTES:
            raise _too_large(entry["name"], i, field)
        total += len(data)
        if total > MAX_CALL_BYTES:
            raise ServiceError(
                413,
                "payload_too_large",
                f"files of one call are at most {MAX_CALL_BYTES} bytes together",
                index=i,
                field=field,
                limit=MAX_CALL_BYTES,
            )
        out.append(Decoded(entry["name"], data, entry.get("mime") or guess_mime(entry["name"])))
    return out


def _too_large(name: str, index: int, field: str) -> ServiceError:
    return ServiceError(
        413,
        "payload_too_large",
        f"{name} is over the {MAX_FILE_BYTES}-byte limit per file",
        index=index,
        field=f"{field}[{index}].data",
        limit=MAX_FILE_BYTES,
    )


def image_size(data: bytes, index: int = 0, field: str = "files") -> tuple[int, int, str] | None:
    """(width, height, MIME) of an image Pillow reads, else None.

    Only the header is read. An image of more than
    :data:`~layoutkit.limits.IMAGE_PIXELS` pixels is refused (413
    ``limit_exceeded`` ``imagePixels``): it is a decompression bomb to anything
    that later decodes it (thumbnails, contact sheets), not a file to keep.
    """
    try:
        head = imaging.header(data, field=f"{field}[{index}].data")
    except LimitExceeded:
        raise
    except EngineError:  # not a picture: a file card
        return None
    fmt = head.format
    mime = Image.MIME.get(fmt, "") or f"image/{(fmt or 'octet-stream').lower()}"
    return head.width, head.height, mime


@attrs.frozen
class Inspected:
    """What a file's bytes told before the transaction: its picture size or its pages."""

    image: tuple[int, int, str] | None
    pages: int | None


def inspect_files(files: list[Decoded], field: str = "files") -> list[Inspected]:
    """Read every file's header (images) or page tree (PDFs), outside any transaction.

    Raises 413 ``limit_exceeded`` for an image over the pixel limit and a PDF
    over the page or object limit.
    """
    images = [image_size(f.data, i, field) for i, f in enumerate(files)]
    pdfs = [
        i
        for i, f in enumerate(files)
        if images[i] is None and (f.data.startswith(b"%PDF-") or f.mime == PDF_MIME)
    ]
    counts = dict(zip(pdfs, pdf_page_counts([files[i].data for i in pdfs], field), strict=True))
    return [Inspected(images[i], counts.get(i)) for i in range(len(files))]


def card_for(file: Decoded, ref: str, seen: Inspected) -> dict[str, Any]:
    """The card a stored file becomes: media for images, file for PDFs and the rest."""
    if seen.image is not None:
        width, height, mime = seen.image
        return {
            "kind": "media",
            "payload": {"ref": ref, "mime": mime, "alt": file.name, "natW": width, "natH": height},
        }
    payload: dict[str, Any] = {"name": file.name, "mime": file.mime, "size": len(file.data)}
    if file.data.startswith(b"%PDF-") or file.mime == PDF_MIME:
        payload["mime"] = PDF_MIME
        if seen.pages is not None:
            payload["pages"] = seen.pages
    payload["ref"] = ref
    return {"kind": "file", "payload": payload}


def placement_params(params: dict[str, Any]) -> dict[str, Any]:
    """Compose placement from upload params (``section``, ``anchor`` + ``side``)."""
    if "side" in params and "anchor" not in params:
        raise ServiceError(400, "invalid_params", "side needs an anchor card id", field="side")
    if "at" in params:
        sent = next((k for k in ("section", "createSection", "anchor") if k in params), None)
        if sent is not None:
            raise ServiceError(
                400,
                "exclusive_params",
                f"at puts the files where a person dropped them; {sent} asks the server to "
                "place them: send one or the other",
                field=sent,
            )
        return {"at": params["at"]}
    out: dict[str, Any] = {}
    if "section" in params:
        out["section"] = params["section"]
    if params.get("createSection"):
        out["createSection"] = True
    if "anchor" in params:
        relation = SIDE_RELATION[params.get("side", "right")]
        out["anchor"] = {"cardId": params["anchor"], "relation": relation}
    return out


def _prepare(params: dict[str, Any]) -> tuple[dict[str, Any], list[Decoded], list[Inspected]]:
    # Decoding, image headers and PDF page trees are read before the write
    # transaction opens, so a slow file never holds the database's write lock.
    placement = placement_params(params)
    files = decode_files(params["files"])
    return placement, files, inspect_files(files)


@REGISTRY.operation(
    "upload_files",
    "Upload files (base64) onto a board: images become media cards with their natural "
    "size, PDFs A4 file cards with a page count, other files download chips. Without "
    "placement the batch lands in free space; section fills that frame (created on "
    "demand); anchor with side right or below places the files next to a card; at (people "
    "only) puts them where a person dropped or pasted them. At most "
    "25 MiB per file and 100 MiB per call (413 beyond).",
    UPLOAD_SCHEMA,
    board="board",
    writes=True,
    prepare=lambda call: _prepare(call.params),
    people_params=("at",),
)
def upload_files(call: Call) -> dict[str, Any]:
    placement, files, seen = call.prepared
    tx, board = call.tx, call.board
    refs = [tx.blobs.put(f.data) for f in files]
    cards = [card_for(f, ref, s) for f, ref, s in zip(files, refs, seen, strict=True)]
    # Upload cards are made by the server: their measured sizes and page counts stand.
    prepared = [prepare_card(c, i, authored=False) for i, c in enumerate(cards)]
    receipt = place_cards(
        call.principal,
        tx,
        board,
        prepared,
        placement,
        models=call.workspace.extension(BoardModels),
        sizes=sizing.batch_picture_sizes(
            [c["payload"] if c["kind"] == "media" else {} for c in cards]
        ),
    )
    receipt["files"] = [
        {
            "name": f.name,
            "card": placed["id"],
            "kind": card["kind"],
            "ref": ref,
            "size": len(f.data),
            "mime": card["payload"]["mime"],
            **{k: card["payload"][k] for k in ("natW", "natH", "pages") if k in card["payload"]},
        }
        for f, ref, card, placed in zip(files, refs, cards, receipt["cards"], strict=True)
    ]
    # Large pictures get their renditions after the commit, off the answer's path.
    large = [
        ref
        for ref, s in zip(refs, seen, strict=True)
        if s.image is not None and max(s.image[0], s.image[1]) > imaging.RENDITION_SIDE
    ]
    if large:
        workspace = call.workspace
        call.after.append(lambda: renditions.schedule(workspace, large))
    page_images.schedule(
        call,
        board,
        [
            (placed["id"], ref)
            for ref, card, placed in zip(refs, cards, receipt["cards"], strict=True)
            if card["kind"] == "file" and card["payload"]["mime"] == PDF_MIME
        ],
    )
    tx.record_event(
        "board.upload",
        call.principal.label,
        board_id=board.id,
        detail={"files": len(files), "bytes": sum(len(f.data) for f in files)},
    )
    return receipt
