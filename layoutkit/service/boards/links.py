"""Link cards: the server-owned fields of an unfurl, and the job that fills them in.

A link card is written with its URL only; the write's receipt goes back at
once. With an unfurler configured, a background job then fetches the page
(``layoutkit.net``: public addresses only) and lands ``meta``, ``icon``,
``framable`` and ``shots`` (or the refusal's reason in ``error``) in its own
short transaction, which bumps the card's version, so ``board_stamp`` changes
and a viewer redraws. Without an unfurler the card is stamped with the reason
in the same write.

The job never clobbers: it re-reads the card when it lands and drops its
result when the card was removed or its URL changed meanwhile (the change
queued a job of its own); other edits made meanwhile are kept, as only the
server-owned fields are replaced.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

from layoutkit import elements
from layoutkit.service.road import hooks
from layoutkit.storage import BoardRecord, Tx

if TYPE_CHECKING:
    from layoutkit.net import Shot
    from layoutkit.service.boards.content_prep import Prepared
    from layoutkit.service.road.workspace import Call, Workspace

#: The link card fields only the server writes: authored values never survive a write.
SERVER_FIELDS = tuple(sorted(elements.server_fields("link")))
#: The reason an air-gapped install gives on every link card.
OFFLINE = "not fetched: this install does not fetch links (network access is off)"
BUSY = "not fetched: too many links were waiting to be fetched; send the URL again later"
STOPPED = "not fetched: the server stopped before fetching this link; send the URL again"


def stamp_new(workspace: Workspace, prepared: list[Prepared]) -> None:
    """Clear authored server fields of new link cards; say why when nothing will fetch them."""
    for p in prepared:
        if p.kind == "link":
            _clear(p.payload)
            if workspace.unfurler is None:
                p.payload["error"] = OFFLINE


def stamp_patch(
    workspace: Workspace, before: dict[str, Any], authored: dict[str, Any], merged: dict[str, Any]
) -> bool:
    """Settle the server fields of a patched link card; True when it needs fetching again.

    An unchanged URL keeps what the last unfurl stored (authored values were
    dropped before the merge). A new URL, or the same URL sent again to a card
    that could not be fetched, clears it: fetched again, or, air-gapped, the
    reason is written.
    """
    retry = "url" in authored and "error" in before
    if merged.get("url") == before.get("url") and not retry:
        return False
    _clear(merged)
    if workspace.unfurler is None:
        merged["error"] = OFFLINE
        return False
    return True


def _clear(payload: dict[str, Any]) -> None:
    for key in SERVER_FIELDS:
        payload.pop(key, None)


def schedule(call: Call, board: BoardRecord, cards: list[tuple[int, str]]) -> None:
    """Fetch ``(card id, url)`` pairs once the call's transaction has committed."""
    ws = call.workspace
    if ws.unfurler is None or not cards:
        return
    call.after.append(lambda: queue(ws, [(board.id, c, u) for c, u in cards]))


def queue(ws: Workspace, cards: list[tuple[int, int, str]]) -> None:
    """Start a fetch job for each ``(board id, card id, url)``; a full queue says so on the card."""
    for board_id, card_id, url in cards:
        if not ws.jobs.submit(
            lambda b=board_id, c=card_id, u=url: fetch_and_land(ws, b, c, u),
            on_drop=lambda b=board_id, c=card_id, u=url: _note(ws, b, c, u, STOPPED),
        ):
            _note(ws, board_id, card_id, url, BUSY)


def unfinished(tx: Tx, workspace_id: int) -> list[tuple[int, int, str]]:
    """Live link cards with neither an unfurl nor a reason: their fetch never landed
    (the server stopped mid-fetch). ``(board id, card id, url)``, board by board."""
    out = []
    for board in tx.boards(workspace_id):
        for card in tx.cards(board.id):
            p = card.payload
            if card.kind == "link" and not any(k in p for k in SERVER_FIELDS) and p.get("url"):
                out.append((board.id, card.id, p["url"]))
    return out


def fetch_and_land(ws: Workspace, board_id: int, card_id: int, url: str) -> bool:
    """Unfurl ``url`` (outside any transaction), then land it on the card; False if dropped."""
    assert ws.unfurler is not None
    result = ws.unfurler.unfurl(url)
    landed = ws.background_write(
        board_id, lambda tx, board: _land(tx, board, card_id, url, result.fields, result.shots)
    )
    return bool(landed)


def _current(tx: Tx, board: BoardRecord, card_id: int, url: str) -> Any:
    card = tx.card(card_id)
    if card is None or card.deleted or card.board_id != board.id or card.kind != "link":
        return None
    return card if card.payload.get("url") == url else None


def _land(
    tx: Tx,
    board: BoardRecord,
    card_id: int,
    url: str,
    fields: dict[str, Any],
    shots: dict[str, Shot],
) -> bool:
    card = _current(tx, board, card_id, url)
    if card is None:
        return False
    fields = dict(fields)
    if shots:
        fields["shots"] = {
            view: {
                "ref": tx.blobs.put(shot.png),
                "w": shot.width,
                "h": shot.height,
                "thumb": tx.blobs.put(shot.thumb),
            }
            for view, shot in sorted(shots.items())
        }
    payload = {k: v for k, v in card.payload.items() if k not in SERVER_FIELDS}
    tx.update_cards([{"id": card_id, "payload": {**payload, **fields}}])
    tx.record_event(
        "card.unfurl",
        "layoutkit",
        board_id=board.id,
        detail={"card": card_id, "ok": "error" not in fields},
    )
    return True


def _note(ws: Workspace, board_id: int, card_id: int, url: str, reason: str) -> None:
    """Say on the card why its link was not fetched (when the card still shows that URL)."""
    ws.background_write(
        board_id, lambda tx, board: _land(tx, board, card_id, url, {"error": reason}, {})
    )


def inline_shots(tx: Tx, scraped: dict[str, Any]) -> None:
    """Give each stored screenshot of the scraped link cards a ``src``: its thumbnail as a
    ``data:`` URL, so a board picture shows it without a blob route (the stored payloads
    are not touched)."""
    for card in scraped.get("cards", []):
        shots = card.get("payload", {}).get("shots") if card.get("kind") == "link" else None
        if not isinstance(shots, dict):
            continue
        inlined = {}
        for view, shot in shots.items():
            thumb = shot.get("thumb") if isinstance(shot, dict) else None
            data = tx.blobs.get(thumb) if isinstance(thumb, str) else None
            if data and data.startswith(b"\xff\xd8"):  # a JPEG, as the capture made it
                shot = {**shot, "src": "data:image/jpeg;base64," + base64.b64encode(data).decode()}
            inlined[view] = shot
        card["payload"] = {**card["payload"], "shots": inlined}


def resume(ws: Workspace) -> int:
    """Fetch again every link card whose fetch never landed (a server stopped
    mid-fetch, or crashed); the number queued. Nothing without an unfurler."""
    if ws.unfurler is None:
        return 0
    cards = ws.cache_read(lambda tx: unfinished(tx, ws.workspace_id))
    queue(ws, cards)
    return len(cards)


hooks.resumer("links", resume)
