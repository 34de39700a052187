"""Read-only views of stored content: board pictures and card refresh."""

from __future__ import annotations

import base64
import functools
import hashlib
from typing import Any

from layoutkit import diagram, render
from layoutkit.errors import ServiceError
from layoutkit.service import offload, pictures
from layoutkit.service._common import ID, SLUG, card_board
from layoutkit.service.content_prep import Outcome, attempt
from layoutkit.service.registry import REGISTRY
from layoutkit.service.workspace import Call
from layoutkit.storage import CardRecord, Tx

#: The largest side of a region render_board draws (board pixels).
MAX_REGION = 20_000

_REGION = {
    "type": "object",
    "required": ["x", "y", "w", "h"],
    "properties": {
        "x": {"type": "number"},
        "y": {"type": "number"},
        "w": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_REGION},
        "h": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_REGION},
    },
    "additionalProperties": False,
    "description": "draw only this window of the board (board coordinates), at full size and "
    "without the title band; reads only the cards that reach into it",
}


@REGISTRY.operation(
    "render_board",
    "Draw a board (or one section of it, or one region of it) as SVG text or PNG (base64, "
    "longest side at most 1600 px): frames with titles, wires, and every card's face. "
    "cards counts the cards drawn, total those on the board; extent is the box around the "
    "whole board's cards, so a viewer can size its canvas and ask for the region in view; stamp changes whenever the board does, so a viewer can "
    "poll it cheaply with board_stamp.",
    {
        "required": ["board"],
        "properties": {
            "board": SLUG,
            "format": {"enum": ["svg", "png"]},
            "section": {"type": "string", "minLength": 1},
            "region": _REGION,
        },
        "additionalProperties": False,
    },
    board="board",
    share=("view", "annotate"),
    finish=lambda call, read: _draw(call, read),
)
def render_board(call: Call) -> dict[str, Any]:
    """Read what the picture shows; :func:`_draw` draws it once the transaction is closed."""
    p, tx, board = call.params, call.tx, call.board
    if "section" in p and "region" in p:
        raise ServiceError(
            400, "exclusive_params", "send section or region, not both", field="region"
        )
    region = p.get("region")
    window = (region["x"], region["y"], region["w"], region["h"]) if region else None
    fmt = p.get("format", "svg")
    picture, stale, revs = pictures.read_picture(
        tx,
        board,
        section=p.get("section"),
        region=None
        if window is None
        else (window[0], window[1], window[0] + window[2], window[1] + window[3]),
        faces=fmt == "svg",
        warm=call.workspace.pictures,
    )
    if fmt == "png":
        picture["images"] = pictures.read_images(tx, picture["cards"])
    extent = tx.card_extent(board.id)
    return {
        "board": p["board"],
        "format": fmt,
        "total": tx.count_cards(board.id),
        "window": window,
        "picture": picture,
        "stale": stale,
        "revs": revs,
        "extent": None
        if extent is None
        else {
            "x": extent[0],
            "y": extent[1],
            "w": extent[2] - extent[0],
            "h": extent[3] - extent[1],
        },
    }


def _draw(call: Call, read: dict[str, Any]) -> dict[str, Any]:
    picture, fmt = read["picture"], read["format"]
    # Drawing a large board is long CPU work: in a worker process when the server runs them.
    if fmt == "svg":
        drawing = functools.partial(render.board_svg, region=read["window"], stored=read["stale"])
        done = offload.run(drawing, picture)
        out: str | bytes = done.svg
        pictures.keep_faces(call.workspace, done.faces, read["revs"])
    else:
        out = offload.run(functools.partial(render.render_board, format=fmt), picture)
    result: dict[str, Any] = {
        "board": read["board"],
        "format": fmt,
        "cards": len(picture["cards"]),
        "total": read["total"],
        "extent": read["extent"],
    }
    if fmt == "svg":
        result["svg"] = out
    else:
        result["png"] = base64.b64encode(out).decode("ascii")  # type: ignore[arg-type]
    return result


@REGISTRY.operation(
    "board_stamp",
    "A short value that changes whenever a board's cards or wires change; viewers poll it "
    "to know when to redraw.",
    {"required": ["board"], "properties": {"board": SLUG}, "additionalProperties": False},
    board="board",
    share=("view", "annotate"),
)
def board_stamp(call: Call) -> dict[str, Any]:
    board = call.board
    # Every change to the board's cards or edges bumps its rev, so the stamp
    # costs the same on a board of fifty cards or fifty thousand.
    digest = hashlib.sha256(f"{board.id}:{board.rev}:{board.updated_at.isoformat()}".encode())
    return {"board": board.slug, "stamp": digest.hexdigest()[:16]}


def _refresh_snapshot(tx: Tx, call: Call) -> CardRecord | None:
    return tx.card(call.params["id"])


def _refresh_prepare(call: Call) -> Outcome | None:
    card: CardRecord | None = call.snapshot
    if card is None or card.kind != "diagram" or card.payload.get("source"):
        return None
    return attempt(lambda: offload.run(diagram.lay_out, card.payload))


@REGISTRY.operation(
    "refresh_card",
    "Lay a diagram card out again from its semantic payload; moved nodes (overrides) "
    "survive. A card with a living source needs a repository connection, which this "
    "deployment does not have (501).",
    {"required": ["id"], "properties": {"id": ID}, "additionalProperties": False},
    board=lambda tx, call: card_board(tx, call.workspace_id, call.params["id"]),
    writes=True,
    snapshot=_refresh_snapshot,
    prepare=_refresh_prepare,
)
def refresh_card(call: Call) -> dict[str, Any]:
    tx = call.tx
    card = tx.card(call.params["id"])
    assert card is not None  # the road found its board
    if card.kind != "diagram":
        raise ServiceError(400, "not_refreshable", f"a {card.kind} card has nothing to refresh")
    if card.payload.get("source"):
        raise ServiceError(
            501,
            "source_unavailable",
            "refreshing from a living source needs a repository connection; none is configured",
        )
    before: CardRecord | None = call.snapshot
    if call.prepared is not None and before is not None and before.payload == card.payload:
        laid = call.prepared.get()
    else:
        # The payload changed between the snapshot and the lock: lay the stored one out.
        laid = offload.run(diagram.lay_out, card.payload)
    (updated,) = tx.update_cards([{"id": card.id, "payload": laid}])
    return {"id": updated.id, "version": updated.version, "metrics": laid.get("metrics", {})}
