"""What a board picture reads, and the faces it keeps for the next one.

``render_board`` does not draw from a whole ``scrape_board`` read: a picture
needs each card's box, frame links and face, not the questions digest, flow
chains or timestamps. It reads :class:`~layoutkit.storage.CardPicture` rows
instead: a card whose stored face is current for its row and for the
renderer's code comes with that face (SVG text) and without its payload, so a
board drawn before, by any process, costs reading it and writing the SVG.

The faces a drawing makes are kept after the reply, by a background job on the workspace's drawing thread
(:func:`keep_faces`): a failure there costs a later drawing, never a picture.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from layoutkit import render
from layoutkit.elements.vocab import FRAME_KINDS
from layoutkit.service.boards import links
from layoutkit.service.pictures.warm_pictures import WarmPictures
from layoutkit.service.road import hooks, offload
from layoutkit.service.road.workspace import Workspace
from layoutkit.service.shared.common import board_view, edge_view
from layoutkit.service.shared.sections import (
    containing_sections,
    find_section,
    members,
    section_title,
)
from layoutkit.service.uploads import renditions
from layoutkit.storage import BoardRecord, CardPicture, FaceRow, Tx

log = logging.getLogger("layoutkit.pictures")

Rect = tuple[float, float, float, float]


def read_picture(
    tx: Tx,
    board: BoardRecord,
    *,
    section: str | None = None,
    region: Rect | None = None,
    faces: bool = True,
    warm: WarmPictures | None = None,
) -> tuple[dict[str, Any], dict[str, str], dict[int, int]]:
    """The board as :func:`layoutkit.render.board_svg` draws it, the stale faces it may
    still use (by face key) and each card's row rev (to keep new faces against).

    ``region`` is (x0, y0, x1, y1): only the cards reaching into it, their frames
    and the far ends of their wires. ``faces`` False reads every payload and no
    face (a PNG draws its faces itself). ``warm`` keeps the reads of whole boards
    drawn as glances between calls.
    """
    code = render.code_digest() if faces else None
    # A whole board in a PNG is mostly drawn as glances, which need a few fields.
    glances = not faces and region is None
    if glances and warm is not None:
        cards, edges = _in_section(tx, *warm.cards_of(tx, board), section)
    else:
        keys = render.GLANCE_KEYS if glances else None
        cards, edges = _cards(tx, board, section, region, code, keys)
    shown, stale = _shown(cards)
    if glances and not render.png_glances({"cards": shown}):
        cards, edges = _cards(tx, board, section, region, code, None)
        shown, stale = _shown(cards)
    out: dict[str, Any] = {"board": board_view(tx, board)}
    out["board"]["meta"] = {k: v for k, v in board.meta.items() if k != "createdWith"}
    out["cards"] = shown
    out["edges"] = [edge_view(e) for e in edges if e.from_card in cards and e.to_card in cards]
    # Stored link screenshots travel inline: an SVG shows them, a PNG pastes their pixels
    # (a glance picture's payloads hold no shots, so it reads none).
    links.inline_shots(tx, out)
    return out, stale, {c.id: c.rev for c in cards.values()}


#: Blob bytes one PNG picture reads for the pictures on its faces; past it the rest
#: keep their placeholders (a board of hundreds of photos is drawn, just not all
#: of them as pixels).
IMAGE_BYTES = 64 * 1024 * 1024


def read_images(
    tx: Tx,
    cards: list[dict[str, Any]],
    budget: int = IMAGE_BYTES,
    pool: dict[str, bytes] | None = None,
    lacking: set[str] | None = None,
) -> dict[str, bytes]:
    """The blob bytes the faces of ``cards`` show as pictures (a PNG has no browser to
    fetch them), by key, in drawing order: a large picture's rendition in its place
    when it has one (a board draws no picture larger), else the picture, its key added
    to ``lacking`` when it should have one. ``pool`` holds what was read for the same
    answer (taken from it at no cost, and added to); ``budget`` bounds the bytes in the
    pool, so the pictures of one answer (an overview and its tiles) hold at most that
    much however many of them there are."""
    keys = [
        key
        for card in cards
        for key in sorted(render.image_keys(str(card.get("kind") or ""), card.get("payload")))
    ]
    return read_keys(tx, keys, budget, pool, lacking)


def read_keys(
    tx: Tx,
    keys: list[str],
    budget: int = IMAGE_BYTES,
    pool: dict[str, bytes] | None = None,
    lacking: set[str] | None = None,
) -> dict[str, bytes]:
    """:func:`read_images` for blob keys already known, in their order."""
    pool = {} if pool is None else pool
    total = sum(map(len, pool.values()))
    out: dict[str, bytes] = {}
    for key in keys:
        if key in out:
            continue
        data = pool.get(key)
        if data is None:
            data = tx.blobs.get(key)
            if data is not None:
                data = renditions.picture(tx, key, data, lacking).rendition or data
            if data is None or total + len(data) > budget:
                continue
            pool[key] = data
            total += len(data)
        out[key] = data
    return out


def _cards(
    tx: Tx,
    board: BoardRecord,
    section: str | None,
    region: Rect | None,
    code: str | None,
    keys: tuple[str, ...] | None,
) -> tuple[dict[int, CardPicture], list[Any]]:
    if region is not None:
        return _region(tx, board, region, code)
    read = tx.card_pictures(board.id, code=code, keys=keys, whole=FRAME_KINDS)
    return _in_section(tx, {c.id: c for c in read}, tx.edges(board.id), section)


def _in_section(
    tx: Tx, cards: dict[int, CardPicture], edges: list[Any], section: str | None
) -> tuple[dict[int, CardPicture], list[Any]]:
    if section is not None:
        frame = find_section(cards, section)  # type: ignore[arg-type]
        kept = {frame.id, *members(cards, frame.id)}  # type: ignore[arg-type]
        cards = {i: c for i, c in cards.items() if i in kept}
    return cards, edges


def _shown(cards: dict[int, CardPicture]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The cards as the renderer takes them, and the stale faces by key."""
    section_of = containing_sections(cards)  # type: ignore[arg-type]
    titles = {i: section_title(c) for i, c in cards.items() if c.kind == "section"}  # type: ignore[arg-type]
    shown = []
    stale: dict[str, str] = {}
    for card in sorted(cards.values(), key=lambda c: (c.ordinal, c.id)):
        within = section_of.get(card.id)
        view: dict[str, Any] = {
            "id": card.id,
            "kind": card.kind,
            "x": card.x,
            "y": card.y,
            "w": card.w,
            "h": card.h,
            "layer": card.layer,
            "version": card.version,
            "parent": card.parent_id,
            "section": titles.get(within) if within else None,
        }
        if card.face is not None:
            view["face"] = card.face
        else:
            view["payload"] = card.payload or {}
        if card.stored is not None and card.face_key is not None:
            stale[card.face_key] = card.stored
        shown.append(view)
    return shown, stale


def _region(
    tx: Tx, board: BoardRecord, region: Rect, code: str | None
) -> tuple[dict[int, CardPicture], list[Any]]:
    wanted = {b.id for b in tx.card_boxes(board.id, within=region)}
    edges = tx.edges(board.id)
    ends = {
        end
        for e in edges
        if e.from_card in wanted or e.to_card in wanted
        for end in (e.from_card, e.to_card)
    }
    cards = {c.id: c for c in tx.card_pictures(board.id, code=code, card_ids=wanted | ends)}
    for _ in range(16):  # frames nest at most five deep; the bound only guards bad data
        frames = {c.parent_id for c in cards.values() if c.parent_id is not None} - set(cards)
        if not frames:
            break
        cards.update((c.id, c) for c in tx.card_pictures(board.id, code=code, card_ids=frames))
    return cards, edges


#: How long no operation must have run before faces are drawn behind writes or kept
#: after a picture: that work only saves later work, so it yields to requests (each
#: drawing holds the interpreter lock and the SQLite write lock).
LULL_S = 0.25
#: The longest a job waits for a lull; then it runs anyway.
LULL_WAIT_S = 10.0


def _lull(workspace: Workspace) -> bool:
    """Wait for a lull; False when the workspace is closing (the work is dropped: it
    only saved later work, and a one-shot command should not wait for it)."""
    deadline = time.monotonic() + LULL_WAIT_S
    while not workspace.idle_for(LULL_S) and time.monotonic() < deadline:
        if workspace.closing:
            return False
        time.sleep(LULL_S / 5)
    return not workspace.closing


class _Behind:
    """The boards with a drawing queued behind their writes, each with the earliest rev
    it must draw from: a write while one waits widens it instead of queueing another."""

    def __init__(self, workspace: Workspace) -> None:
        self.since: dict[int, int] = {}
        self.lock = threading.Lock()


hooks.extension(_Behind, _Behind)


def draw_behind(workspace: Workspace, board_id: int, since: int) -> None:
    """Draw and keep, in a background job, the faces of the board's cards changed
    after rev ``since``: the next picture of the board, in any process, reads them.

    A board written through the operations is thus never drawn whole cold; only
    one stored otherwise (or drawn last by older renderer code) is. The writes
    to a board while its drawing waits for a lull join that drawing: one job
    reads the board's changed rows once, where a job per write read every later
    write's rows again (and the faces the first job had just drawn).
    """
    code = render.code_digest()
    queued = workspace.extension(_Behind)
    with queued.lock:
        waiting = queued.since.get(board_id)
        queued.since[board_id] = since if waiting is None else min(waiting, since)
    if waiting is not None:
        return

    def draw() -> None:
        if not _lull(workspace):
            with queued.lock:
                queued.since.pop(board_id, None)
            return
        with queued.lock:
            start = queued.since.pop(board_id)

        def read(tx: Tx) -> list[CardPicture]:
            return tx.card_pictures(board_id, code=code, since=start)

        try:
            changed = [c for c in workspace.cache_read(read) if c.face is None]
            if not changed:
                return
            cards, stale = _shown({c.id: c for c in changed})
            if render.faces_at_hand(cards):
                # The write's own request drew them (to find their cuts): writing
                # them out here costs a fifth of drawing them in an engine process.
                drawn = render.card_faces(cards, stale)
            else:
                drawn = offload.run(render.card_faces, cards, stale)
            rows = [FaceRow(c.id, c.rev, code, *drawn[c.id]) for c in changed if c.id in drawn]
            if rows:
                workspace.cache_write(lambda tx: tx.store_faces(rows))
        except Exception:
            log.warning("drawing the faces of board %d failed", board_id, exc_info=True)

    if not workspace.drawing.submit(draw):
        with queued.lock:
            queued.since.pop(board_id, None)


hooks.on_board_written(draw_behind)


def keep_faces(
    workspace: Workspace, drawn: dict[Any, tuple[str, str]], revs: dict[int, int]
) -> None:
    """Store the faces a drawing made (``drawn``: card id → (face key, SVG)), each
    against the row rev it was drawn from, in a background job."""
    code = render.code_digest()
    rows = [
        FaceRow(cid, revs[cid], code, key, svg) for cid, (key, svg) in drawn.items() if cid in revs
    ]
    if not rows:
        return

    def keep() -> None:
        if not _lull(workspace):
            return
        try:
            workspace.cache_write(lambda tx: tx.store_faces(rows))
        except Exception:
            log.warning("keeping %d drawn faces failed", len(rows), exc_info=True)

    workspace.drawing.submit(keep)
