"""Card images and review sheets: one card's picture cropped and scaled, contact sheets of
many, the text block that maps a sheet's tiles, and what a picture costs a model to read.

Pure: encoded image bytes in (PNG or JPEG, as stored or as a card face was drawn, or a
:class:`~layoutkit.imaging.Picture` with its rendition), PNG bytes and plain values out.
Nothing here reads storage or knows a card. Every picture is decoded through
:func:`layoutkit.imaging.decode`, at the size it is drawn at: no step holds more of
one picture than the ``decodePixels`` limit, and a sheet decodes its tiles one at a
time.

One card's picture (:func:`card_image`)
    ``region`` ``{x, y, w, h}`` is in the source's own pixels. Its edges are rounded
    outwards to whole pixels and clamped to the picture; a region with nothing left
    inside the picture is refused (``region_outside``). The result says whether it is
    cropped (a region smaller than the whole picture was drawn) and which region was
    drawn. ``max_dim`` bounds the longest side of the PNG (default 1600); a picture is
    only ever scaled down, and a drawn PNG has at most ``decodePixels`` pixels (scaled
    further down when ``max_dim`` allows more). A PNG asked for whole and small enough
    is returned as stored, byte for byte, without decoding it.

Contact sheets (:func:`contact_sheet`, :func:`plan_sheet`)
    Tiles sit in a grid, left to right, top to bottom, each with its label under it.
    A whole tile is scaled to fit its cell and never up; a crop tile shows one rectangle
    of its source and may be drawn up to :data:`CROP_ZOOM` times its size, so a small
    change stays readable. A sheet holds at most :data:`MAX_WHOLE` whole tiles or
    :data:`MAX_CROPS` crops; mixed, a whole tile counts as two crops.

    How the size is chosen: a sheet is at most :data:`SHEET_SIDE` pixels on its longest
    side and :data:`SHEET_PIXELS` in area, which is what a model reads without scaling
    it down first (see :func:`image_tokens`). Every column count and every width of
    :data:`SHEET_WIDTHS` is tried (the height being what the area leaves, at most the
    side); each tile takes the largest scale its cell allows, and the grid that shows
    the most tile area wins (a tie goes to the smaller sheet). Columns and rows then
    shrink to what their tiles and labels use, so a sheet of small pictures is small.

    Labels are set in the bundled DejaVu Sans Bold at :data:`LABEL_PX` pixels, wrapped
    to the width of their cell (a word longer than the cell breaks between letters), so
    no label is ever cut; tiles and labels never overlap. A sight code, when given, is
    printed in a band across the top, as pixels only: it is in no returned value.

The text block (:func:`sheet_text`)
    One header line, then one line per tile::

        sheet 1 of 2, run rv-7: 2 tiles (at: x,y,w,h on this sheet; crop: x,y,w,h of the card image)
        T1 cardId=412 board=home cardVersion=7 width=1440 height=900 at=16,16,700,438
        T2 cardId=415 board=home cardVersion=2 width=1440 height=900 at=732,16,600,300 crop=120,80,600,300 vs=412
          prior: spacing open; copy resolved
          lint: none

    ``width`` and ``height`` are the card image's own size (what regions of findings
    are measured in); ``at`` is where the tile's pixels are on the sheet; ``crop`` and
    ``vs`` (the card a crop is compared with) appear on crop tiles only; ``prior`` and
    ``lint`` lines appear when the tile carries them (``none`` when empty).

Image tokens (:func:`image_tokens`)
    The common rule for vision models: a picture whose long side is over 1568 pixels
    is first scaled down to 1568, then it costs ``width * height / 750`` tokens
    (rounded up), and at most 1600 (a larger one is scaled down to about 1.2
    megapixels). A 1440 × 900 screenshot costs 1600 (before the cap, 1728); a sheet
    of :data:`SHEET_PIXELS` about 1534.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import attrs
from PIL import Image, ImageDraw, ImageFont

from layoutkit import imaging
from layoutkit.errors import EngineError
from layoutkit.layout.text import font_path

#: Whole screens one sheet holds.
MAX_WHOLE = 12
#: Crops one sheet holds.
MAX_CROPS = 24
#: Card ids one survey (contact sheet) takes.
MAX_SURVEY = 12
#: The longest side of a card image unless the caller asks for another.
DEFAULT_MAX_DIM = 1600

#: What a model reads without scaling it down (see :func:`image_tokens`).
SHEET_SIDE = 1568
SHEET_PIXELS = 1_150_000
#: Sheet widths tried; each one's height is what SHEET_PIXELS leaves (at most SHEET_SIDE).
SHEET_WIDTHS = (1568, 1400, 1250, 1072, 950, 850, 733)
#: Space around and between tiles.
PAD = 16
#: Label text: size, line height and the gap between a tile and its label.
LABEL_PX = 15
LABEL_LINE = 19
LABEL_GAP = 4
#: A cell narrower than this is not tried (a label would wrap a letter a line).
MIN_CELL = 72
#: How many times its size a crop may be drawn.
CROP_ZOOM = 2.0
#: The sight band across the top of a sheet.
SIGHT_PX = 26
SIGHT_BAND = 48

#: Image tokens: pixels per token, the long side a picture is scaled to, the cap.
TOKEN_PIXELS = 750
TOKEN_SIDE = 1568
TOKEN_CAP = 1600

_BACKGROUND = (255, 255, 255)
_FRAME = (150, 156, 163)
_INK = (33, 37, 41)
_SIGHT_FILL = (33, 37, 41)
_SIGHT_INK = (255, 255, 255)

Box = tuple[int, int, int, int]


def _box(value: Box) -> dict[str, int]:
    x, y, w, h = value
    return {"x": x, "y": y, "w": w, "h": h}


# ------------------------------------------------------------------ decoding


def _rgb(img: Image.Image) -> Image.Image:
    """The picture as RGB, transparent parts shown over white."""
    if img.mode == "RGB":
        return img
    if img.mode in ("RGBA", "LA", "P", "PA") or "transparency" in img.info:
        rgba = img.convert("RGBA")
        flat = Image.new("RGB", rgba.size, _BACKGROUND)
        flat.paste(rgba, mask=rgba.getchannel("A"))
        return flat
    return img.convert("RGB")


def _png(img: Image.Image) -> bytes:
    out = io.BytesIO()
    # The fastest zlib level, as board pictures use: a third less time for a larger file.
    img.save(out, format="PNG", optimize=False, compress_level=1)
    return out.getvalue()


# ------------------------------------------------------------------ one card's picture


def clamp_region(region: Mapping[str, float], width: int, height: int) -> Box:
    """``region`` ``{x, y, w, h}`` in source pixels, rounded outwards and clamped to a
    ``width`` × ``height`` picture, as (x, y, w, h).

    Raises :class:`EngineError` ``region_outside`` (field ``region``) when nothing of it
    lies inside the picture.
    """
    x0 = math.floor(region["x"])
    y0 = math.floor(region["y"])
    x1 = math.ceil(region["x"] + region["w"])
    y1 = math.ceil(region["y"] + region["h"])
    cx0, cy0 = max(0, x0), max(0, y0)
    cx1, cy1 = min(width, x1), min(height, y1)
    if cx1 <= cx0 or cy1 <= cy0:
        raise EngineError(
            "region_outside",
            f"region {x0},{y0},{x1 - x0}x{y1 - y0} lies outside the {width}x{height} picture",
            field="region",
            imageWidth=width,
            imageHeight=height,
        )
    return (cx0, cy0, cx1 - cx0, cy1 - cy0)


def fit(width: int, height: int, max_dim: int) -> tuple[int, int]:
    """The size of a ``width`` × ``height`` picture whose longest side is at most
    ``max_dim`` (never larger than it is)."""
    s = min(1.0, max_dim / max(width, height, 1))
    return max(1, round(width * s)), max(1, round(height * s))


@attrs.frozen
class CardImage:
    """A card's picture as a PNG: its size, the size of the picture it was cut from,
    whether it is cropped and the region drawn (None when no region was asked)."""

    png: bytes
    width: int
    height: int
    image_width: int
    image_height: int
    cropped: bool
    region: Box | None

    def describe(self) -> dict[str, Any]:
        """The reply fields: width, height, imageWidth, imageHeight, cropped, region?"""
        out: dict[str, Any] = {
            "width": self.width,
            "height": self.height,
            "imageWidth": self.image_width,
            "imageHeight": self.image_height,
            "cropped": self.cropped,
        }
        if self.region is not None:
            out["region"] = _box(self.region)
        return out


def card_image(
    data: bytes | imaging.Picture,
    *,
    region: Mapping[str, float] | None = None,
    max_dim: int = DEFAULT_MAX_DIM,
) -> CardImage:
    """The picture in ``data`` (a stored image, or a card face drawn as PNG), cut to
    ``region`` and scaled so its longest side is at most ``max_dim``.

    Raises :class:`EngineError` ``image_undecodable``, ``region_outside`` (field
    ``region``) or ``limit_exceeded``; ``ValueError`` for a ``max_dim`` below 1.
    """
    if max_dim < 1:
        raise ValueError("max_dim must be a positive number of pixels")
    picture = data if isinstance(data, imaging.Picture) else imaging.Picture(data)
    head = imaging.header(picture.data)
    width, height = head.size
    box = clamp_region(region, width, height) if region is not None else (0, 0, width, height)
    cropped = box != (0, 0, width, height)
    size = fit(box[2], box[3], max_dim)
    if not cropped and size == (width, height) and head.format == "PNG":
        # Asked whole and small enough: the stored bytes are the answer, never decoded.
        png = picture.data
    else:
        size = imaging.within(size, imaging.decode_cap())
        drawn = imaging.decode(picture, box=box, size=size, reducing_gap=2.0)
        png = _png(_rgb(drawn.image))
    return CardImage(
        png, size[0], size[1], width, height, cropped, box if region is not None else None
    )


# ------------------------------------------------------------------ sheets


@attrs.frozen
class Tile:
    """One tile of a sheet: an encoded picture, its label, and for a crop tile the
    rectangle of the picture to show (x, y, w, h in its pixels; clamped to it)."""

    image: bytes | imaging.Picture
    label: str
    crop: Mapping[str, float] | None = None


@attrs.frozen
class TileBox:
    """Where a tile landed: ``at`` its pixels on the sheet, ``label_at`` its label's
    box, ``lines`` the label as set; ``source`` the picture's own size; ``crop`` the
    rectangle shown (crop tiles); ``scale`` sheet pixels per source pixel."""

    index: int
    label: str
    at: Box
    label_at: Box
    lines: tuple[str, ...]
    source: tuple[int, int]
    crop: Box | None
    scale: float

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "label": self.label,
            "at": _box(self.at),
            "width": self.source[0],
            "height": self.source[1],
        }
        if self.crop is not None:
            out["crop"] = _box(self.crop)
        return out


@attrs.frozen
class SheetLayout:
    """A sheet's size, its tiles' places and the top band (0 without a sight code)."""

    width: int
    height: int
    band: int
    tiles: tuple[TileBox, ...]


@attrs.frozen
class Sheet:
    """A drawn sheet: the PNG and where each tile is on it."""

    png: bytes
    width: int
    height: int
    tiles: tuple[TileBox, ...]


def check_tiles(whole: int, crops: int) -> None:
    """Refuse a sheet of more than :data:`MAX_WHOLE` whole tiles or :data:`MAX_CROPS`
    crops (mixed, a whole tile counts as two crops): :class:`EngineError`
    ``too_many_tiles`` with the limits and the counts."""
    if whole * 2 + crops > MAX_CROPS or whole + crops == 0:
        raise EngineError(
            "too_many_tiles" if whole + crops else "no_tiles",
            f"a sheet holds 1 to {MAX_WHOLE} whole tiles or {MAX_CROPS} crops "
            f"(a whole tile counts as two crops); got {whole} whole and {crops} crops",
            maxWhole=MAX_WHOLE,
            maxCrops=MAX_CROPS,
            whole=whole,
            crops=crops,
        )


@lru_cache(maxsize=4)
def _font(px: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(font_path("sans-bold"), size=px)


@lru_cache(maxsize=4096)  # the grid search measures the same labels at every width
def label_width(text: str) -> float:
    """How wide ``text`` is set as a label (the measure wrapping uses)."""
    return float(_font(LABEL_PX).getlength(text))


def wrap_label(text: str, width: float) -> tuple[str, ...]:
    """``text`` in lines no wider than ``width`` as labels are set: words greedily,
    a word wider than the line broken between letters. Never fewer than one line."""
    words = " ".join(text.split()).split(" ") if text.strip() else [""]
    lines: list[str] = []
    line = ""
    for word in words:
        candidate = f"{line} {word}" if line else word
        if label_width(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
            line = ""
        while label_width(word) > width and len(word) > 1:
            cut = 1
            while cut < len(word) and label_width(word[: cut + 1]) <= width:
                cut += 1
            lines.append(word[:cut])
            word = word[cut:]
        line = word
    lines.append(line)
    return tuple(lines)


def plan_sheet(
    sizes: Sequence[tuple[int, int]],
    labels: Sequence[str],
    crops: Sequence[bool],
    *,
    sight: bool = False,
) -> SheetLayout:
    """Where each tile of a sheet goes (see the module notes on how the size is chosen).

    ``sizes`` are the pictures' sizes (of the crop rectangle for a crop tile), ``crops``
    says which tiles are crops; ``sight`` reserves the top band. Raises
    :class:`EngineError` ``too_many_tiles`` past the limits.
    """
    n = len(sizes)
    if not (len(labels) == len(crops) == n):
        raise ValueError("sizes, labels and crops must be of one length")
    check_tiles(n - sum(crops), sum(crops))
    band = SIGHT_BAND if sight else 0
    caps = [CROP_ZOOM if crop else 1.0 for crop in crops]
    best: tuple[float, int, Any] | None = None
    for sheet_w in SHEET_WIDTHS:
        sheet_h = min(SHEET_SIDE, SHEET_PIXELS // sheet_w)
        for cols in range(1, n + 1):
            cell_w = (sheet_w - PAD * (cols + 1)) / cols
            if cell_w < MIN_CELL:
                break
            rows = math.ceil(n / cols)
            wrapped = [wrap_label(label, cell_w) for label in labels]
            label_h = [
                max(len(wrapped[i]) for i in range(r * cols, min(n, (r + 1) * cols))) * LABEL_LINE
                + LABEL_GAP
                for r in range(rows)
            ]
            cell_h = (sheet_h - band - PAD * (rows + 1) - sum(label_h)) / rows
            if cell_h < 1:
                continue
            scales = [
                min(cap, cell_w / w, cell_h / h) for (w, h), cap in zip(sizes, caps, strict=True)
            ]
            shown = sum(s * s * w * h for s, (w, h) in zip(scales, sizes, strict=True))
            key = (shown, -sheet_w * sheet_h)
            if best is None or key > best[:2]:
                best = (shown, -sheet_w * sheet_h, (cols, scales, wrapped, label_h))
    if best is None:  # only a sheet of impossible tiles gets here; every cell is too small
        raise ValueError("no grid fits these tiles")
    cols, scales, wrapped, label_h = best[2]
    return _compact(sizes, labels, crops, cols, scales, wrapped, label_h, band)


def _compact(
    sizes: Sequence[tuple[int, int]],
    labels: Sequence[str],
    crops: Sequence[bool],
    cols: int,
    scales: list[float],
    wrapped: list[tuple[str, ...]],
    label_h: list[int],
    band: int,
) -> SheetLayout:
    n = len(sizes)
    rows = math.ceil(n / cols)
    drawn = [
        (max(1, math.floor(w * s)), max(1, math.floor(h * s)))
        for (w, h), s in zip(sizes, scales, strict=True)
    ]
    col_w = [0] * cols
    row_h = [0] * rows
    for i, (w, h) in enumerate(drawn):
        r, c = divmod(i, cols)
        text_w = max(math.ceil(label_width(line)) for line in wrapped[i])
        col_w[c] = max(col_w[c], w, text_w)
        row_h[r] = max(row_h[r], h)
    xs = [PAD + sum(col_w[:c]) + PAD * c for c in range(cols)]
    ys = [band + PAD + sum(row_h[:r]) + sum(label_h[:r]) + PAD * r for r in range(rows)]
    boxes = []
    for i, (w, h) in enumerate(drawn):
        r, c = divmod(i, cols)
        lines = wrapped[i]
        boxes.append(
            TileBox(
                index=i,
                label=labels[i],
                at=(xs[c], ys[r], w, h),
                label_at=(xs[c], ys[r] + h + LABEL_GAP, col_w[c], len(lines) * LABEL_LINE),
                lines=lines,
                source=sizes[i],
                crop=None,
                scale=w / sizes[i][0],
            )
        )
    width = max(x + w for x, w in zip(xs, col_w, strict=True)) + PAD
    height = ys[-1] + row_h[-1] + label_h[-1] + PAD
    return SheetLayout(width, height, band, tuple(boxes))


def contact_sheet(tiles: Sequence[Tile], *, sight_code: str | None = None) -> Sheet:
    """One PNG of ``tiles`` in a grid, each labelled, and where each tile is on it.

    ``sight_code`` is printed across the top as ``sight: <code>`` (pixels only).
    Raises :class:`EngineError` ``too_many_tiles``, ``image_undecodable``,
    ``region_outside`` (field ``tiles[<i>].crop``) or ``limit_exceeded``.
    """
    check_tiles(sum(t.crop is None for t in tiles), sum(t.crop is not None for t in tiles))
    # Sizes first, from the headers: each tile is then decoded at the size it is drawn at.
    pictures: list[imaging.Picture] = []
    boxes: list[Box | None] = []
    sources: list[tuple[int, int]] = []
    for i, tile in enumerate(tiles):
        picture = (
            tile.image if isinstance(tile.image, imaging.Picture) else imaging.Picture(tile.image)
        )
        head = imaging.header(picture.data, field=f"tiles[{i}].image")
        sources.append(head.size)
        box = None
        if tile.crop is not None:
            try:
                box = clamp_region(tile.crop, head.width, head.height)
            except EngineError as err:
                fields = {**err.fields, "field": f"tiles[{i}].crop"}
                raise EngineError(err.code, err.message, **fields) from err
        pictures.append(picture)
        boxes.append(box)
    layout = plan_sheet(
        [(b[2], b[3]) if b is not None else size for b, size in zip(boxes, sources, strict=True)],
        [t.label for t in tiles],
        [b is not None for b in boxes],
        sight=sight_code is not None,
    )
    sheet = Image.new("RGB", (layout.width, layout.height), _BACKGROUND)
    draw = ImageDraw.Draw(sheet)
    font = _font(LABEL_PX)
    if sight_code is not None:
        draw.rectangle([0, 0, layout.width, layout.band - 1], fill=_SIGHT_FILL)
        draw.text(
            (PAD, layout.band // 2),
            f"sight: {sight_code}",
            font=_font(SIGHT_PX),
            fill=_SIGHT_INK,
            anchor="lm",
        )
    placed = []
    for picture, box, tb in zip(pictures, boxes, layout.tiles, strict=True):
        x, y, w, h = tb.at
        whole = (0, 0, *sources[tb.index])
        shown = box or whole
        # A sheet's tiles shrink with Hamming, in half Lanczos's time: at a quarter of
        # their size the sharper filter shows nothing more.
        shrinking = w < shown[2]
        drawn = imaging.decode(
            picture,
            box=shown,
            size=(w, h),
            resample=Image.Resampling.HAMMING if shrinking else Image.Resampling.LANCZOS,
            reducing_gap=2.0,
            field=f"tiles[{tb.index}].image",
        )
        sheet.paste(_rgb(drawn.image), (x, y))
        del drawn
        draw.rectangle([x - 1, y - 1, x + w, y + h], outline=_FRAME)
        lx, ly, _, _ = tb.label_at
        for k, line in enumerate(tb.lines):
            draw.text((lx, ly + k * LABEL_LINE), line, font=font, fill=_INK, anchor="la")
        placed.append(attrs.evolve(tb, source=sources[tb.index], crop=box))
    return Sheet(_png(sheet), layout.width, layout.height, tuple(placed))


# ------------------------------------------------------------------ text block


def _flat(value: Any) -> str:
    if isinstance(value, list | tuple):
        parts = [_flat(v) for v in value]
        return "; ".join(p for p in parts if p) or "none"
    text = " ".join(str(value).split()) if value is not None else ""
    return text or "none"


def _rect(value: Mapping[str, Any]) -> str:
    return ",".join(str(value[k]) for k in ("x", "y", "w", "h"))


def sheet_text(
    tiles: Sequence[Mapping[str, Any]],
    *,
    run: str | None = None,
    sheet: int | None = None,
    sheets: int | None = None,
) -> str:
    """The text block of a sheet (format in the module notes).

    Each tile is a plain dict: ``label``, ``cardId``, ``board``, ``cardVersion``,
    ``width``, ``height``, ``at`` ``{x, y, w, h}``; for a crop ``crop`` ``{x, y, w, h}``
    and ``vs``; optionally ``prior`` and ``lint`` (a string or a list of strings).
    """
    head = "sheet"
    if sheet is not None:
        head += f" {sheet}" + (f" of {sheets}" if sheets is not None else "")
    if run is not None:
        head += f", run {run}"
    count = len(tiles)
    head += (
        f": {count} tile{'s' if count != 1 else ''} "
        "(at: x,y,w,h on this sheet; crop: x,y,w,h of the card image)"
    )
    lines = [head]
    for tile in tiles:
        words = [
            str(tile["label"]),
            f"cardId={tile['cardId']}",
            f"board={tile['board']}",
            f"cardVersion={tile['cardVersion']}",
            f"width={tile['width']}",
            f"height={tile['height']}",
            f"at={_rect(tile['at'])}",
        ]
        if tile.get("crop") is not None:
            words.append(f"crop={_rect(tile['crop'])}")
            if tile.get("vs") is not None:
                words.append(f"vs={tile['vs']}")
        lines.append(" ".join(words))
        for key in ("prior", "lint"):
            if key in tile:
                lines.append(f"  {key}: {_flat(tile[key])}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ tokens


def image_tokens(width: int, height: int) -> int:
    """Tokens a model spends reading a ``width`` × ``height`` picture (the rule in the
    module notes: long side to at most 1568, then pixels / 750 rounded up, at most 1600)."""
    if width <= 0 or height <= 0:
        return 0
    s = min(1.0, TOKEN_SIDE / max(width, height))
    w, h = max(1, round(width * s)), max(1, round(height * s))
    return min(TOKEN_CAP, math.ceil(w * h / TOKEN_PIXELS))
