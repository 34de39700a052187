"""``get_card_image``: a card's picture at one of its versions, or a contact sheet of cards.

What a card's picture is: an image card (:func:`stored_image_ref`) draws its stored
image from the blob its payload names; any other card draws its face as the renderer
draws it, from the kind, payload and size it had at that version (kept in
``card_versions``), at one board pixel per image pixel, by today's renderer.

A stored image larger than 2048 px on a side is read with its rendition
(:mod:`layoutkit.service.uploads.renditions`), which answers every drawing that needs no more
pixels than it has; one without a rendition yet is drawn from the original within
the ``decodePixels`` cap, and its rendition is queued.

The operation reads in its transaction and draws after it has closed (``finish``), in a
worker process when the server runs them, so the connection and the event loop are
never held by pixel work.

Run sheets (review runs, wired by the plan's operations) use :func:`read_tiles` inside
their transaction and :func:`draw_sheet` after it: tiles named by card (and version,
crop, comparison card, prior findings and lint), drawn as one contact sheet with the
text block of :func:`layoutkit.review.sheets.sheet_text` beside it.
"""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from layoutkit import imaging, render
from layoutkit.errors import ServiceError, show_ids
from layoutkit.review import sheets
from layoutkit.service.review import outputs, review_runs
from layoutkit.service.road import offload
from layoutkit.service.road.registry import IMAGE_FIELD, REGISTRY, TEXT_FIELD
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import ID, SLUG
from layoutkit.service.uploads import renditions
from layoutkit.storage import CardRecord, Tx

_BLOB_KEY = re.compile(r"^sha256:[0-9a-f]{64}$")
#: The longest side a card face is drawn at for its picture (board pixels beyond it
#: are scaled down, and the picture's size says so).
FACE_MAX = 4096
PNG = "image/png"

_REGION = {
    "type": "object",
    "required": ["x", "y", "w", "h"],
    # Bounded as board coordinates are: edges stay finite and exact to well under a pixel.
    "properties": {
        "x": {"type": "number", "minimum": -1e7, "maximum": 1e7},
        "y": {"type": "number", "minimum": -1e7, "maximum": 1e7},
        "w": {"type": "number", "exclusiveMinimum": 0, "maximum": 1e7},
        "h": {"type": "number", "exclusiveMinimum": 0, "maximum": 1e7},
    },
    "additionalProperties": False,
    "description": "the part to draw, in the card image's own pixels; clamped to the image",
}


def stored_image_ref(kind: str, payload: Mapping[str, Any]) -> str | None:
    """The blob key of the picture an image card shows, else None.

    media, figure and step cards show ``payload.ref`` (a media card only when its
    ``mime``, if given, is an image); a link card shows its desktop screenshot.
    """
    ref: Any = None
    if kind in ("media", "figure", "step"):
        mime = payload.get("mime")
        if kind != "media" or not isinstance(mime, str) or mime.startswith("image/"):
            ref = payload.get("ref")
    elif kind == "link":
        shots = payload.get("shots")
        desktop = shots.get("desktop") if isinstance(shots, dict) else None
        ref = desktop.get("ref") if isinstance(desktop, dict) else None
    return ref if isinstance(ref, str) and _BLOB_KEY.match(ref) else None


@attrs.frozen
class Source:
    """What one card's picture is drawn from: the stored image's bytes (``data``, with
    its ``rendition`` when it has one) or the card to draw a face of (``face``: kind,
    payload, w, h, and its pictures' bytes). ``lacking`` names the blobs that should
    have a rendition and have none yet."""

    card_id: int
    board: str
    version: int
    kind: str
    data: bytes | None = attrs.field(default=None, repr=False)
    face: dict[str, Any] | None = attrs.field(default=None, repr=False)
    rendition: bytes | None = attrs.field(default=None, repr=False)
    lacking: frozenset[str] = frozenset()

    @property
    def source(self) -> str:
        return "image" if self.data is not None else "face"


def _unknown_card(card_id: int, board: str) -> ServiceError:
    return ServiceError(404, "unknown_card", f"no card {card_id} on board {board!r}", id=card_id)


def _live_card(tx: Tx, board_id: int, slug: str, card_id: int) -> CardRecord:
    card = tx.card(card_id)
    if card is None or card.deleted or card.board_id != board_id:
        raise _unknown_card(card_id, slug)
    return card


def read_source(
    tx: Tx, card: CardRecord, slug: str, version: int | None = None, field: str = "version"
) -> Source:
    """The picture source of ``card`` at ``version`` (its current one when None).

    Raises 404 ``unknown_version`` with the current version and the versions kept.
    """
    want = card.version if version is None else version
    kept = tx.card_version(card.id, want) if want <= card.version else None
    if kept is None and want == card.version:
        # A card written before versions were kept still draws as it is now.
        kind, payload, w, h = card.kind, card.payload, card.w, card.h
    elif kept is None:
        versions = [v.version for v in tx.card_versions(card.id)]
        raise ServiceError(
            404,
            "unknown_version",
            f"card {card.id} has no version {want}: it is at version {card.version}"
            + (f", drawable from version {versions[0]}" if versions else ""),
            field=field,
            id=card.id,
            current=card.version,
            kept=versions,
        )
    else:
        kind, payload, w, h = kept.kind, kept.payload, kept.w, kept.h
    ref = stored_image_ref(kind, payload)
    data = tx.blobs.get(ref) if ref is not None else None
    lacking: set[str] = set()
    if ref is not None and data is not None:
        stored = renditions.picture(tx, ref, data, lacking)
        return Source(
            card.id,
            slug,
            want,
            kind,
            data=data,
            rendition=stored.rendition,
            lacking=frozenset(lacking),
        )
    face = {"id": card.id, "kind": kind, "payload": payload, "x": 0, "y": 0, "w": w, "h": h}
    # The pictures on the face (a PDF's first page, a document's figures) as pixels: a face
    # is drawn at most FACE_MAX, so a rendition, where there is one, is all it needs.
    face["images"] = {}
    for key in sorted(render.image_keys(kind, payload)):
        found = tx.blobs.get(key)
        if found is not None:
            shown = renditions.picture(tx, key, found, lacking)
            face["images"][key] = shown.rendition or found
    return Source(card.id, slug, want, kind, face=face, lacking=frozenset(lacking))


def picture(source: Source) -> imaging.Picture:
    """The picture of ``source``: the stored image (and its rendition), or its face drawn
    as PNG at one board pixel per pixel (at most :data:`FACE_MAX` on its longest side)."""
    if source.data is not None:
        return imaging.Picture(source.data, source.rendition)
    assert source.face is not None
    longest = max(float(source.face["w"]), float(source.face["h"]), 1.0)
    drawn = render.render_card(source.face, format="png", max_dim=min(FACE_MAX, math.ceil(longest)))
    assert isinstance(drawn, bytes)
    return imaging.Picture(drawn)


def _draw_single(
    source: Source, region: Mapping[str, float] | None, max_dim: int
) -> sheets.CardImage:
    return sheets.card_image(picture(source), region=region, max_dim=max_dim)


def _draw_survey(sources: Sequence[Source]) -> sheets.Sheet:
    tiles = [sheets.Tile(picture(s), f"#{s.card_id}") for s in sources]
    return sheets.contact_sheet(tiles)


def _image(png: bytes) -> dict[str, str]:
    return {"mime": PNG, "data": base64.b64encode(png).decode("ascii")}


# ------------------------------------------------------------------ the operation


_RUN_PARAMS: dict[str, Any] = {
    "run": {"type": "string", "minLength": 1, "maxLength": 40, "description": "a review run"},
    "sheet": {"type": "integer", "minimum": 1, "description": "the run's sheet (from 1)"},
    "sight": {
        "type": "string",
        "minLength": 1,
        "maxLength": 16,
        "description": "the sight code printed on sheet 1 (needed from sheet 2 on)",
    },
}


@REGISTRY.operation(
    "get_card_image",
    "A card's picture as PNG, to look at. Single: {board, cardId, version?, region?, "
    "maxDim?} draws that card at that version (default its current one): an image card "
    "its stored image, any other card its face; region {x, y, w, h} in the image's own "
    "pixels crops it (clamped; wholly outside answers 400), maxDim bounds the longest "
    f"side (default {sheets.DEFAULT_MAX_DIM}, never scaled up). Reply: width, height, "
    "cardVersion, cropped, imageWidth, imageHeight, region (the part drawn), source "
    f"(image or face) and the PNG under image. Survey: {{board, cardIds}} (at most "
    f"{sheets.MAX_SURVEY}) draws one contact sheet, each tile labelled #<card id>, and "
    "gives each tile's rectangle on the sheet (at). Run sheets: {run, sheet, sight} draws "
    "sheet n of a review run (review_plan) with a text block mapping each tile to its card; "
    "sheet 1 prints the run's sight code in its pixels, later sheets need it echoed as sight.",
    {
        "properties": {
            "board": SLUG,
            "cardId": ID,
            "version": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
            "region": _REGION,
            "maxDim": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
            "cardIds": {"type": "array", "items": ID, "minItems": 1, "maxItems": 1000},
            **_RUN_PARAMS,
        },
        "additionalProperties": False,
    },
    shown={
        "properties": {
            "board": {**SLUG, "description": "the board of the card(s); not with run"},
            "cardId": {**ID, "description": "one card (single read)"},
            "version": {
                "type": "integer",
                "minimum": 1,
                "description": "the card version to draw (cardVersion); default its current one",
            },
            "region": _REGION,
            "maxDim": {
                "type": "integer",
                "minimum": 1,
                "description": "longest side of the PNG in pixels "
                f"(default {sheets.DEFAULT_MAX_DIM})",
            },
            "cardIds": {
                "type": "array",
                "items": ID,
                "minItems": 1,
                "maxItems": sheets.MAX_SURVEY,
                "description": "several cards on one contact sheet (survey)",
            },
            **_RUN_PARAMS,
        },
        "additionalProperties": False,
    },
    board="board",
    share=("view", "annotate"),
    finish=lambda call, read: _draw(call, read),
    output=outputs.GET_CARD_IMAGE,
)
def get_card_image(call: Call) -> dict[str, Any]:
    """Read the sources; :func:`_draw` draws them once the transaction has closed."""
    p, tx, board = call.params, call.tx, call.board
    if "run" in p:
        return {"run": _read_run_sheet(call)}
    if "sheet" in p or "sight" in p:
        field = "sheet" if "sheet" in p else "sight"
        raise ServiceError(400, "invalid_params", f"{field} is for run sheets (run)", field=field)
    if board is None:
        raise ServiceError(
            400, "invalid_params", "send board with cardId or cardIds, or run", field="board"
        )
    if "cardId" in p and "cardIds" in p:
        raise ServiceError(
            400, "exclusive_params", "send cardId or cardIds, not both", field="cardIds"
        )
    if "cardIds" in p:
        extra = next((k for k in ("version", "region", "maxDim") if k in p), None)
        if extra is not None:
            raise ServiceError(
                400, "exclusive_params", f"{extra} is for one card (cardId)", field=extra
            )
        ids = list(dict.fromkeys(p["cardIds"]))
        if len(ids) > sheets.MAX_SURVEY:
            raise ServiceError(
                400,
                "too_many_cards",
                f"a contact sheet takes at most {sheets.MAX_SURVEY} cards; got {len(ids)}",
                field="cardIds",
                limit=sheets.MAX_SURVEY,
                count=len(ids),
            )
        found = {c.id: c for c in tx.cards_by_id(ids)}
        missing = [i for i in ids if i not in found or found[i].board_id != board.id]
        missing += [i for i in ids if i in found and found[i].deleted and i not in missing]
        if missing:
            raise ServiceError(
                404,
                "unknown_card",
                f"no card {show_ids(missing)} on board {board.slug!r}",
                field="cardIds",
                ids=missing,
            )
        return {"survey": [read_source(tx, found[i], board.slug) for i in ids]}
    if "cardId" not in p:
        raise ServiceError(
            400, "invalid_params", "send cardId (one card) or cardIds (a survey)", field="cardId"
        )
    card = _live_card(tx, board.id, board.slug, p["cardId"])
    return {"single": read_source(tx, card, board.slug, p.get("version"))}


def _lacking(sources: Sequence[Source]) -> set[str]:
    return {key for s in sources for key in s.lacking}


def _draw(call: Call, read: dict[str, Any]) -> dict[str, Any]:
    if "run" in read:
        sources = [t.source for t in read["run"]["tiles"]]
    else:
        sources = [read["single"]] if "single" in read else read["survey"]
    try:
        return _drawn(call, read)
    finally:
        # After this answer's own drawing, so the job does not decode beside it.
        renditions.schedule(call.workspace, _lacking(sources))


def _drawn(call: Call, read: dict[str, Any]) -> dict[str, Any]:
    p = call.params
    if "run" in read:
        return _draw_run_sheet(call, read["run"])
    if "single" in read:
        source: Source = read["single"]
        done = offload.run(
            _draw_single, source, p.get("region"), p.get("maxDim", sheets.DEFAULT_MAX_DIM)
        )
        return {
            "board": source.board,
            "cardId": source.card_id,
            "cardVersion": source.version,
            "kind": source.kind,
            "source": source.source,
            **done.describe(),
            IMAGE_FIELD: _image(done.png),
        }
    survey: list[Source] = read["survey"]
    sheet = offload.run(_draw_survey, survey)
    return {
        "board": survey[0].board,
        "width": sheet.width,
        "height": sheet.height,
        "tiles": [
            {
                "cardId": s.card_id,
                "cardVersion": s.version,
                "kind": s.kind,
                "source": s.source,
                **tile.describe(),
            }
            for s, tile in zip(survey, sheet.tiles, strict=True)
        ],
        IMAGE_FIELD: _image(sheet.png),
    }


# ------------------------------------------------------------------ run sheets


def _read_run_sheet(call: Call) -> dict[str, Any]:
    p = call.params
    extra = next((k for k in ("board", "cardId", "cardIds", "version", "region") if k in p), None)
    if extra is not None:
        raise ServiceError(400, "exclusive_params", f"{extra} is not for run sheets", field=extra)
    if call.principal.kind == "share":
        raise ServiceError(403, "forbidden", "a share link reaches one board, not review runs")
    run = review_runs.load_run(call.tx, call.workspace_id, p["run"])
    sheet = p.get("sheet", 1)
    total = review_runs.sheet_count(run, sheet)
    specs = [
        {
            "cardId": t["cardId"],
            "version": t["cardVersion"],
            "crop": t.get("crop"),
            "vs": t.get("vs"),
        }
        for t in run.plan["sheets"][sheet - 1]
    ]
    return {
        "id": run.id,
        "sheet": sheet,
        "total": total,
        "tiles": read_tiles(call.tx, call.workspace_id, specs),
    }


def _draw_run_sheet(call: Call, read: dict[str, Any]) -> dict[str, Any]:
    # The sight check and the served mark are one short write after the read: a wrong
    # code is counted (and locks the run at the third) even though the call is refused.
    workspace_id = call.workspace_id
    p = call.params
    served = call.workspace.cache_write(
        lambda tx: review_runs.serve_sheet(
            tx, workspace_id, read["id"], read["sheet"], p.get("sight")
        )
    )
    if isinstance(served, ServiceError):
        raise served
    drawn = draw_sheet(
        read["tiles"],
        sight=served.sight if read["sheet"] == 1 else None,
        run=read["id"],
        sheet=read["sheet"],
        sheets_total=read["total"],
    )
    return {
        "run": read["id"],
        "sheet": read["sheet"],
        "sheets": read["total"],
        "state": served.state,
        **drawn.reply(),
    }


@attrs.frozen
class RunTile:
    """One tile of a run sheet as read: its picture source, label, crop and notes."""

    source: Source
    label: str
    crop: Mapping[str, float] | None = None
    vs: int | None = None
    prior: Any = None
    lint: Any = None


@attrs.frozen
class RunSheet:
    """A drawn run sheet: the PNG, its size, the text block and each tile's entry
    (the dicts the text block was written from)."""

    png: bytes
    width: int
    height: int
    text: str
    tiles: tuple[dict[str, Any], ...]

    def reply(self) -> dict[str, Any]:
        """The sheet as an operation replies with it: image and text block beside."""
        return {
            "width": self.width,
            "height": self.height,
            "tiles": list(self.tiles),
            TEXT_FIELD: self.text,
            IMAGE_FIELD: _image(self.png),
        }


def read_tiles(tx: Tx, workspace_id: int, specs: Sequence[Mapping[str, Any]]) -> list[RunTile]:
    """Read the tiles of a run sheet inside a transaction.

    Each spec is ``{cardId, version?, crop?, vs?, prior?, lint?, label?}`` (label
    defaults to ``T<n>``, counted from 1). The card may be on any board of the
    workspace; a card that is gone or another workspace's answers 404 ``unknown_card``
    (field ``tiles[<i>].cardId``), a version not kept 404 ``unknown_version``.
    """
    out = []
    boards: dict[int, str] = {}
    for i, spec in enumerate(specs):
        card = tx.card(spec["cardId"])
        board = tx.board(card.board_id) if card is not None and not card.deleted else None
        if card is None or board is None or board.workspace_id != workspace_id:
            raise ServiceError(
                404,
                "unknown_card",
                f"no card {spec['cardId']}",
                field=f"tiles[{i}].cardId",
                id=spec["cardId"],
            )
        slug = boards.setdefault(board.id, board.slug)
        source = read_source(tx, card, slug, spec.get("version"), field=f"tiles[{i}].version")
        out.append(
            RunTile(
                source,
                str(spec.get("label") or f"T{i + 1}"),
                spec.get("crop"),
                spec.get("vs"),
                spec.get("prior"),
                spec.get("lint"),
            )
        )
    return out


def _run_sheet(
    tiles: Sequence[RunTile],
    sight: str | None,
    run: str | None,
    sheet: int | None,
    sheets_total: int | None,
) -> RunSheet:
    drawn = sheets.contact_sheet(
        [sheets.Tile(picture(t.source), t.label, t.crop) for t in tiles], sight_code=sight
    )
    entries = []
    for tile, box in zip(tiles, drawn.tiles, strict=True):
        entry: dict[str, Any] = {
            "label": tile.label,
            "cardId": tile.source.card_id,
            "board": tile.source.board,
            "cardVersion": tile.source.version,
            **box.describe(),
        }
        if box.crop is not None and tile.vs is not None:
            entry["vs"] = tile.vs
        if tile.prior is not None:
            entry["prior"] = tile.prior
        if tile.lint is not None:
            entry["lint"] = tile.lint
        entries.append(entry)
    text = sheets.sheet_text(entries, run=run, sheet=sheet, sheets=sheets_total)
    return RunSheet(drawn.png, drawn.width, drawn.height, text, tuple(entries))


def draw_sheet(
    tiles: Sequence[RunTile],
    *,
    sight: str | None = None,
    run: str | None = None,
    sheet: int | None = None,
    sheets_total: int | None = None,
) -> RunSheet:
    """Draw a run sheet from :func:`read_tiles` (after the transaction; in a worker
    process when the server runs them). ``sight`` prints the sight code across the
    top (sheet 1 only, by the sight rule; the caller decides); it is nowhere else."""
    return offload.run(_run_sheet, tiles, sight, run, sheet, sheets_total)


def sheet_for(
    tx: Tx,
    workspace_id: int,
    specs: Sequence[Mapping[str, Any]],
    *,
    sight: str | None = None,
    run: str | None = None,
    sheet: int | None = None,
    sheets_total: int | None = None,
) -> RunSheet:
    """:func:`read_tiles` then :func:`draw_sheet`, for callers that draw inside their
    transaction (tests, scripts); operations split the two around it."""
    return draw_sheet(
        read_tiles(tx, workspace_id, specs),
        sight=sight,
        run=run,
        sheet=sheet,
        sheets_total=sheets_total,
    )
