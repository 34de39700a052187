"""Read-only views of stored content: board pictures and card refresh."""

from __future__ import annotations

import base64
import functools
import hashlib
import math
from typing import Any

from layoutkit import diagram, render
from layoutkit.elements.vocab import FRAME_KINDS
from layoutkit.errors import ServiceError
from layoutkit.formatting import an
from layoutkit.service.boards.content_prep import Outcome, attempt, authored_patch, prepare_card
from layoutkit.service.pictures import pictures
from layoutkit.service.pictures.warm_pictures import WarmPictures
from layoutkit.service.road import offload
from layoutkit.service.road.reach import card_board, workspace_card
from layoutkit.service.road.registry import REGISTRY, TEXT_FIELD
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import ID, SLUG
from layoutkit.service.uploads import renditions
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


#: Longest side, in PNG pixels, of a picture that comes back whole; a larger one comes
#: back as an overview of that size plus tiles.
PICTURE_MAX = 1600
#: Side of a tile, in PNG pixels (vision models read about this much at full detail).
TILE_PX = 1200
#: Tiles drawn in one answer; the regions of further tiles are listed for later calls.
MAX_TILES = 12
#: Regions of further tiles listed at most.
MAX_LISTED = 48
#: Scale of tiles when the caller names none: a card's text at the size it was set.
READABLE_SCALE = 1.0
#: A picture drawn smaller than this shows 14 px text under 7 px, which no one reads:
#: without a scale of the caller's, tiles come with it.
LEGIBLE_SCALE = 0.5
#: Board pixels around the cards that tiles cover (the margin a picture has).
TILE_MARGIN = 24.0

Box = tuple[float, float, float, float]


@REGISTRY.operation(
    "render_board",
    "Draw a board (or one section of it, or one region of it) as SVG text or PNG: frames "
    "with titles, wires, and every card's face, pictures included. Agents: ask for format "
    "png, which comes back as image content (image: {mime, data, width, height, scale}). "
    "scale is PNG pixels per board pixel (1 shows card text at its real size); without it "
    "the picture fits 1600 px. A picture over 1600 px, or one that fitting would make "
    "unreadable (under scale 0.5), comes back as an overview plus readable tiles: "
    "1200 x 1200 px each at the scale asked (default 1), over the cards' extent in reading "
    "order, only where cards are, at most 12 drawn (tiles[] with their board regions); "
    "further tiles are listed in moreTiles for later calls with region and scale. cards "
    "counts the cards drawn, total those on the board; extent is the box around the whole "
    "board's cards, so a viewer can size its canvas and ask for the region in view; stamp "
    "changes whenever the board does, so a viewer can poll it cheaply with board_stamp.",
    {
        "required": ["board"],
        "properties": {
            "board": SLUG,
            "format": {"enum": ["svg", "png"]},
            "section": {"type": "string", "minLength": 1},
            "region": _REGION,
            "scale": {
                "type": "number",
                "minimum": 0.05,
                "maximum": 4,
                "description": "PNG pixels per board pixel (png only); 1 reads like the board",
            },
        },
        "additionalProperties": False,
    },
    board="board",
    share=("view", "annotate"),
    finish=lambda call, read: draw_board_picture(call, read),
)
def render_board(call: Call) -> dict[str, Any]:
    """Read what the picture shows; :func:`draw_board_picture` draws it once the transaction
    is closed."""
    return read_board_picture(call, call.params)


def read_board_picture(call: Call, p: dict[str, Any]) -> dict[str, Any]:
    """What a board picture of ``p`` (render_board's params: format, section, region,
    scale) shows, read in the call's transaction; export_board draws the same."""
    tx, board = call.tx, call.board
    if "section" in p and "region" in p:
        raise ServiceError(
            400, "exclusive_params", "send section or region, not both", field="region"
        )
    fmt = p.get("format", "svg")
    if "scale" in p and fmt != "png":
        raise ServiceError(
            400, "scale_needs_png", "scale sets the pixels of a PNG: send format png", field="scale"
        )
    region = p.get("region")
    window = (region["x"], region["y"], region["w"], region["h"]) if region else None
    picture, stale, revs = pictures.read_picture(
        tx,
        board,
        section=p.get("section"),
        region=None if window is None else _corners(window),
        faces=fmt == "svg",
        warm=call.workspace.extension(WarmPictures),
    )
    extent = tx.card_extent(board.id)
    read: dict[str, Any] = {
        "board": p["board"],
        "format": fmt,
        "scaled": "scale" in p,
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
    if fmt == "png":
        pool: dict[str, bytes] = {}  # every picture of the answer, within one budget
        lacking: set[str] = set()  # large pictures without their rendition yet
        picture["images"] = pictures.read_images(tx, picture["cards"], pool=pool, lacking=lacking)
        read.update(_plan_tiles(tx, board, picture, window, p.get("scale"), pool, lacking))
        read["lacking"] = lacking
    return read


def _corners(window: Box) -> Box:
    return window[0], window[1], window[0] + window[2], window[1] + window[3]


def _plan_tiles(
    tx: Tx,
    board: Any,
    picture: dict[str, Any],
    window: Box | None,
    scale: float | None,
    pool: dict[str, bytes],
    lacking: set[str],
) -> dict[str, Any]:
    """How a PNG is drawn: whole at one scale, or an overview plus tiles, whose pictures
    are read here (the transaction is still open)."""
    width, height = render.picture_size(picture, window)
    fit = min(1.0, PICTURE_MAX / max(width, height, 1.0))
    whole = scale if scale is not None else fit
    if max(width, height) * whole <= PICTURE_MAX + 0.5 and (
        scale is not None or fit >= LEGIBLE_SCALE
    ):
        return {"scale": whole, "tiling": None}
    tile_scale = scale if scale is not None else READABLE_SCALE
    regions = _tile_regions(picture, window, tile_scale)
    drawn = []
    for tile in regions[:MAX_TILES]:
        tile_picture, _, _ = pictures.read_picture(tx, board, region=_corners(tile), faces=False)
        tile_picture["images"] = pictures.read_images(
            tx, tile_picture["cards"], pool=pool, lacking=lacking
        )
        drawn.append((tile, tile_picture))
    return {
        "scale": fit,
        "tiling": {"scale": tile_scale, "drawn": drawn, "more": regions[MAX_TILES:]},
    }


def _tile_regions(picture: dict[str, Any], window: Box | None, scale: float) -> list[Box]:
    """Square tiles of :data:`TILE_PX` pixels at ``scale`` over the cards (or ``window``),
    in reading order, keeping those some card (not a frame alone) reaches into."""
    cards = [c for c in picture["cards"] if c.get("kind") not in FRAME_KINDS] or picture["cards"]
    if window is not None:
        x0, y0, x1, y1 = _corners(window)
    elif cards:
        x0 = min(c["x"] for c in cards) - TILE_MARGIN
        y0 = min(c["y"] for c in cards) - TILE_MARGIN
        x1 = max(c["x"] + c["w"] for c in cards) + TILE_MARGIN
        y1 = max(c["y"] + c["h"] for c in cards) + TILE_MARGIN
    else:
        return []
    side = TILE_PX / scale
    cols, rows = math.ceil((x1 - x0) / side), math.ceil((y1 - y0) / side)
    reached: set[tuple[int, int]] = set()
    for c in cards:
        c0 = max(int((c["x"] - x0) // side), 0)
        c1 = min(int((c["x"] + c["w"] - x0) // side), cols - 1)
        r0 = max(int((c["y"] - y0) // side), 0)
        r1 = min(int((c["y"] + c["h"] - y0) // side), rows - 1)
        reached.update((r, k) for r in range(r0, r1 + 1) for k in range(c0, c1 + 1))
    return [
        (x0 + k * side, y0 + r * side, min(side, x1 - x0 - k * side), min(side, y1 - y0 - r * side))
        for r, k in sorted(reached)
    ]


def _png_size(png: bytes) -> tuple[int, int]:
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def _region_view(box: Box) -> dict[str, float]:
    return {
        "x": round(box[0], 1),
        "y": round(box[1], 1),
        "w": round(box[2], 1),
        "h": round(box[3], 1),
    }


def _png_image(png: bytes, scale: float, region: Box | None) -> dict[str, Any]:
    width, height = _png_size(png)
    out: dict[str, Any] = {
        "mime": "image/png",
        "data": base64.b64encode(png).decode("ascii"),
        "width": width,
        "height": height,
        "scale": round(scale, 4),
    }
    if region is not None:
        out["region"] = _region_view(region)
    return out


def draw_board_picture(call: Call, read: dict[str, Any]) -> dict[str, Any]:
    """The picture :func:`read_board_picture` read, drawn as render_board answers it."""
    picture, fmt = read["picture"], read["format"]
    result: dict[str, Any] = {
        "board": read["board"],
        "format": fmt,
        "cards": len(picture["cards"]),
        "total": read["total"],
        "extent": read["extent"],
    }
    # Drawing a large board is long CPU work: in a worker process when the server runs them.
    if fmt == "svg":
        drawing = functools.partial(render.board_svg, region=read["window"], stored=read["stale"])
        done = offload.run(drawing, picture)
        pictures.keep_faces(call.workspace, done.faces, read["revs"])
        result["svg"] = done.svg
        return result
    tiling = read["tiling"]
    window = read["window"]
    # The picture's own scale when a caller's fits; a fitted overview otherwise.
    scale = read["scale"] if tiling is None and read["scaled"] else None
    drawing = functools.partial(render.render_board, format="png", region=window, scale=scale)
    png = offload.run(drawing, picture)
    assert isinstance(png, bytes)
    # Large pictures drawn from their originals get renditions for the next drawing.
    renditions.schedule(call.workspace, read["lacking"])
    result["image"] = _png_image(png, read["scale"], window)
    if tiling is None:
        return result
    tiles = []
    for box, tile_picture in tiling["drawn"]:
        tile = functools.partial(
            render.render_board, format="png", region=box, scale=tiling["scale"]
        )
        drawn = offload.run(tile, tile_picture)
        assert isinstance(drawn, bytes)
        tiles.append(_png_image(drawn, tiling["scale"], box))
    result["tiles"] = tiles
    more = tiling["more"]
    result["tilesTotal"] = len(tiles) + len(more)
    if more:
        result["moreTiles"] = [_region_view(b) for b in more[:MAX_LISTED]]
    result[TEXT_FIELD] = _tiles_text(result, tiling["scale"])
    return result


def _tiles_text(result: dict[str, Any], scale: float) -> str:
    """What an agent reads beside the pictures: which board region each tile shows."""
    image = result["image"]
    lines = [
        f"Board {result['board']}: {result['cards']} cards drawn of {result['total']}. "
        f"Image 1 is an overview ({image['width']} x {image['height']} px, scale "
        f"{image['scale']:g}); the next {len(result['tiles'])} are tiles at scale {scale:g} "
        "(board region x, y, w, h), in reading order:"
    ]
    for i, tile in enumerate(result["tiles"], start=2):
        r = tile["region"]
        lines.append(f"  image {i}: x {r['x']:g}, y {r['y']:g}, w {r['w']:g}, h {r['h']:g}")
    more = result.get("moreTiles") or []
    if more:
        lines.append(
            f"{result['tilesTotal'] - len(result['tiles'])} more tiles are not drawn; ask for "
            f"one with render_board {{board, format: png, region, scale: {scale:g}}} using a "
            "region from moreTiles."
        )
    return "\n".join(lines)


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
    return workspace_card(tx, call.workspace_id, call.params["id"])


#: What a living source supplies: the diagram's semantics, each replaced whole (one
#: the source leaves out goes); the title and direction only when the source has them.
_SOURCE_CONTENT = ("nodes", "groups", "lanes", "edges", "diagram_text")
_SOURCE_OPTIONAL = ("title", "dir")


def _relaid(call: Call, payload: dict[str, Any]) -> dict[str, Any]:
    """The diagram laid out again: from its own semantics, or from what its living
    source says now. A person's overrides are kept (but for nodes the source no
    longer has: the engine drops those)."""
    source = payload.get("source")
    if not source:
        return offload.run(diagram.lay_out, payload)
    source_reader = call.workspace.diagram_sources
    if source_reader is None:
        raise ServiceError(
            501,
            "source_unavailable",
            "refreshing from a living source needs a repository connection; none is configured",
        )
    try:
        fresh = source_reader(dict(source))
    except ServiceError:
        raise
    except Exception as err:  # a source that cannot be read changes nothing
        raise ServiceError(
            502, "source_unreadable", f"the living source could not be read: {err}", field="source"
        ) from err
    if not isinstance(fresh, dict):
        raise ServiceError(
            502, "source_unreadable", "the living source gave no diagram", field="source"
        )
    patch: dict[str, Any] = {k: fresh.get(k) for k in _SOURCE_CONTENT}
    patch.update({k: fresh[k] for k in _SOURCE_OPTIONAL if fresh.get(k) is not None})
    merged = authored_patch("diagram", payload, patch)
    # The stored payload's server-owned fields (the overrides among them) carry over.
    return prepare_card({"kind": "diagram", "payload": merged}, stored=payload).payload


def _refresh_prepare(call: Call) -> Outcome | None:
    card: CardRecord | None = call.snapshot
    if card is None or card.kind != "diagram":
        return None
    return attempt(lambda: _relaid(call, card.payload))


@REGISTRY.operation(
    "refresh_card",
    "Lay a diagram card out again from its semantic payload, or from its living source "
    "(payload.source) read anew; a person's overrides (moved nodes, labels typed over "
    "the nodes' own) survive, but for nodes the diagram no longer has. A living source "
    "needs a repository connection: without one the answer is 501 source_unavailable.",
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
        raise ServiceError(400, "not_refreshable", f"{an(card.kind)} card has nothing to refresh")
    before: CardRecord | None = call.snapshot
    if call.prepared is not None and before is not None and before.payload == card.payload:
        laid = call.prepared.get()
    else:
        # The payload changed between the snapshot and the lock: lay the stored one out.
        laid = _relaid(call, card.payload)
    (updated,) = tx.update_cards([{"id": card.id, "payload": laid}])
    return {"id": updated.id, "version": updated.version, "metrics": laid.get("metrics", {})}
