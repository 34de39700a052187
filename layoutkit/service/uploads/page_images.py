"""PDF page images: an uploaded PDF's first pages as pictures, after the upload.

An upload answers with its receipt at once; a background job then rasterises
the PDF's first :data:`~layoutkit.service.uploads.pdf_pages.PAGE_IMAGES` pages (pdfium
in a capped child process, :func:`~layoutkit.service.uploads.pdf_pages.rasterise`),
stores each page as a blob and lands ``payload.pageImages`` (``[{ref, w, h}]``)
on the card in its own short transaction. That bumps the card's version, so
``board_stamp`` changes and a viewer redraws the card with its first page. A
PDF that cannot be rasterised gets ``payload.pagesError`` with the reason
instead (and the pages it did get, when it ran out of time part way).

``render_pages`` (``POST /api/v1/cards/{id}/pages``) rasterises the card's PDF
again on request, outside the write transaction. Without pypdfium2 installed
there is nothing to rasterise with: uploads keep the plain PDF face and the
route answers 501.

The job never clobbers: it re-reads the card when it lands and drops its
result when the card was removed or names another file meanwhile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from layoutkit.errors import ServiceError
from layoutkit.service.road import hooks
from layoutkit.service.road.reach import card_board, workspace_card
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.shared.common import ID
from layoutkit.service.uploads import pdf_pages
from layoutkit.storage import BoardRecord, CardRecord, Tx

if TYPE_CHECKING:
    from layoutkit.service.road.workspace import Call, Workspace

PDF = "application/pdf"
#: The payload fields this module writes (server-owned on file cards).
FIELDS = ("pageImages", "pagesError")


def pdf_ref(card: CardRecord) -> str | None:
    """The blob key of the PDF a file card holds, else None."""
    p = card.payload
    ref = p.get("ref")
    if card.kind != "file" or not isinstance(ref, str):
        return None
    name = str(p.get("name") or "").lower()
    return ref if p.get("mime") == PDF or name.endswith(".pdf") else None


def schedule(call: Call, board: BoardRecord, cards: list[tuple[int, str]]) -> None:
    """Rasterise ``(card id, blob key)`` PDFs once the call's transaction has committed."""
    ws = call.workspace
    if cards and pdf_pages.can_rasterise():
        call.after.append(lambda: queue(ws, [(board.id, c, r) for c, r in cards]))


def queue(ws: Workspace, cards: list[tuple[int, int, str]]) -> None:
    """A job per ``(board id, card id, blob key)``.

    A job refused (a full queue) or dropped (the process stopped first) leaves the
    card as it was, with neither field: the next server start queues it again
    (:func:`resume`), and ``render_pages`` does it on request.
    """
    for board_id, card_id, ref in cards:
        ws.jobs.submit(lambda b=board_id, c=card_id, r=ref: rasterise_and_land(ws, b, c, r))


def rasterise_and_land(ws: Workspace, board_id: int, card_id: int, ref: str) -> bool:
    """Rasterise the PDF ``ref`` (outside any transaction), then land it; False if dropped."""
    data = ws.cache_read(lambda tx: tx.blobs.get(ref))
    if data is None:
        return False
    raster = pdf_pages.rasterise(data)
    landed = ws.background_write(board_id, lambda tx, board: land(tx, board, card_id, ref, raster))
    return bool(landed)


def land(
    tx: Tx, board: BoardRecord, card_id: int, ref: str, raster: pdf_pages.Raster
) -> CardRecord | None:
    """Store the pages and write them on the card, if it still holds ``ref``."""
    card = tx.card(card_id)
    if card is None or card.deleted or card.board_id != board.id or pdf_ref(card) != ref:
        return None
    payload = {k: v for k, v in card.payload.items() if k not in FIELDS}
    if raster.pages:
        payload["pageImages"] = [
            {"ref": tx.blobs.put(page.data), "w": page.width, "h": page.height}
            for page in raster.pages
        ]
    if raster.count is not None:
        payload["pages"] = raster.count
    if raster.error:
        payload["pagesError"] = raster.error
    (updated,) = tx.update_cards([{"id": card_id, "payload": payload}])
    tx.record_event(
        "card.pages",
        "layoutkit",
        board_id=board.id,
        detail={"card": card_id, "pages": len(raster.pages), "ok": raster.error is None},
    )
    return updated


def unfinished(tx: Tx, workspace_id: int) -> list[tuple[int, int, str]]:
    """Live PDF cards with neither page images nor a reason: their job never landed
    (the server stopped first). ``(board id, card id, blob key)``, board by board."""
    out = []
    for board in tx.boards(workspace_id):
        for card in tx.cards(board.id):
            ref = pdf_ref(card)
            if ref is not None and not any(k in card.payload for k in FIELDS):
                out.append((board.id, card.id, ref))
    return out


def resume(ws: Workspace) -> int:
    """Queue again every PDF whose pages never landed; the number queued."""
    if not pdf_pages.can_rasterise():
        return 0
    cards = ws.cache_read(lambda tx: unfinished(tx, ws.workspace_id))
    queue(ws, cards)
    return len(cards)


# ------------------------------------------------------------------ the operation


def _snapshot(tx: Tx, call: Call) -> tuple[CardRecord, bytes] | None:
    card = workspace_card(tx, call.workspace_id, call.params["id"])
    ref = pdf_ref(card) if card is not None else None
    data = tx.blobs.get(ref) if ref is not None else None
    return None if card is None or data is None else (card, data)


def _prepare(call: Call) -> pdf_pages.Raster | None:
    # Rasterising takes seconds: before the write transaction, never inside it.
    if call.snapshot is None or not pdf_pages.can_rasterise():
        return None
    return pdf_pages.rasterise(call.snapshot[1])


@REGISTRY.operation(
    "render_pages",
    "Rasterise a PDF card's pages again: its first 24 pages become page images "
    "(payload.pageImages, each {ref, w, h}; the card shows the first). Uploads do this "
    "by themselves in the background; call this to redo it. Answers {id, version, pages, "
    "pageImages}; 422 pdf_unreadable (nothing written) for a PDF that cannot be "
    "rasterised, 501 when this install has no rasteriser (pypdfium2).",
    {"required": ["id"], "properties": {"id": ID}, "additionalProperties": False},
    board=lambda tx, call: card_board(tx, call.workspace_id, call.params["id"]),
    writes=True,
    snapshot=_snapshot,
    prepare=_prepare,
)
def render_pages(call: Call) -> dict[str, Any]:
    tx, board = call.tx, call.board
    card = tx.card(call.params["id"])
    assert card is not None  # the road found its board
    ref = pdf_ref(card)
    if ref is None:
        raise ServiceError(
            400, "not_a_pdf", f"card {card.id} ({card.kind}) holds no PDF", id=card.id
        )
    if not pdf_pages.can_rasterise():
        raise ServiceError(
            501,
            "no_rasterizer",
            "rasterising PDF pages needs pypdfium2, which this install lacks (do not retry)",
        )
    raster: pdf_pages.Raster | None = call.prepared
    if raster is None or call.snapshot[0].payload.get("ref") != ref:
        # The card names another PDF than when it was read: rasterise the stored one.
        data = tx.blobs.get(ref)
        raster = pdf_pages.rasterise(data) if data is not None else None
    if raster is None or not raster.pages:
        reason = raster.error if raster is not None else "the PDF is not stored"
        raise ServiceError(
            422, "pdf_unreadable", f"card {card.id}: {reason}", id=card.id, reason=reason
        )
    updated = land(tx, board, card.id, ref, raster)
    assert updated is not None
    out: dict[str, Any] = {
        "id": updated.id,
        "version": updated.version,
        "pages": updated.payload.get("pages"),
        "pageImages": updated.payload["pageImages"],
    }
    if raster.error:
        out["pagesError"] = raster.error
    return out


hooks.resumer("pages", resume)
