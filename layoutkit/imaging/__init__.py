"""Decoding stored pictures within a bound: the one road from encoded bytes to pixels.

Every picture a request draws from its bytes (a card image, the tiles of a contact
sheet, the pictures on a board PNG, the screens a review compares) is decoded by
:func:`decode`, which never holds more than the ``decodePixels`` limit of one
picture's pixels at a time (:mod:`layoutkit.limits`: 16,777,216, 64 MiB as RGBA).
A 9,400 x 9,400 PNG, just under the ``imagePixels`` limit an upload may have, held
1.1 GB while Pillow decoded it whole and scaled it down.

How a picture is read, by what it is:

=================================  ================================================
at most ``decodePixels`` pixels     whole, by Pillow (a JPEG at the largest DCT
                                    reduction, 1/2 to 1/8, that still gives the size
                                    asked)
a larger PNG                        band by band (:mod:`layoutkit.imaging._png`),
                                    reduced by a whole factor as the bands come: a
                                    region asked at its natural size is read at its
                                    natural pixels (when the region itself fits the
                                    cap), however large the picture is
a larger interlaced PNG             its first Adam7 pass, an eighth of each side
a larger JPEG                       DCT-reduced by 2, 4 or 8 until it fits
anything else larger, 16-bit RGB    refused: :class:`~layoutkit.limits.LimitExceeded`
or RGBA PNGs, and PNGs wider than   ``decodePixels`` (413)
1,048,576 px
=================================  ================================================

A region of a large JPEG or interlaced PNG comes from the reduced picture and is
scaled up to the size asked: the only answers that are not the picture's natural
pixels where they were asked for.

Renditions: a picture longer than :data:`RENDITION_SIDE` on a side has a copy
fitted into it (:func:`rendition`, made by the same bounded road), which the service
keeps beside the original. A :class:`Picture` carries both, and :func:`decode` reads
the rendition whenever it holds as many pixels as the answer needs, which is every
answer but a region read close to natural size: that is what keeps repeated
drawings of a large picture cheap in time as well as memory.
"""

from __future__ import annotations

import io
import math
import re
import warnings

import attrs
from PIL import Image

from layoutkit.errors import EngineError
from layoutkit.imaging import _png
from layoutkit.limits import IMAGE_PIXELS, LIMITS, LimitExceeded, check_limit

#: The longest side of a rendition: a board PNG draws no picture larger (its cards are
#: at most a few thousand pixels), get_card_image answers 1600 px unless asked for
#: more, and a contact sheet is at most 1568 px.
RENDITION_SIDE = 2048
#: A rendition is a PNG unless that would pass this size; then, when nothing in it is
#: transparent, a JPEG (quality 90): a photograph as PNG at 2048 px is 5 to 10 MiB.
RENDITION_PNG_BYTES = 1024 * 1024

Box = tuple[int, int, int, int]
Size = tuple[int, int]
_ALPHA_MODES = ("RGBA", "LA", "PA", "RGBa", "La")
#: Pillow's names of the formats its JPEG decoder reads (MPO: a camera's JPEG with more
#: pictures after the first), which it can decode at 1/2 to 1/8 of their size.
_JPEG = ("JPEG", "MPO")


def decode_cap() -> int:
    """The ``decodePixels`` limit, read when asked (tests lower it)."""
    return int(LIMITS["decodePixels"])


@attrs.frozen
class Header:
    """What a picture's header says: its size and Pillow's name of its format."""

    width: int
    height: int
    format: str

    @property
    def size(self) -> Size:
        return (self.width, self.height)

    @property
    def pixels(self) -> int:
        return self.width * self.height


def _undecodable(field: str, exc: Exception) -> EngineError:
    return EngineError("image_undecodable", f"{field}: not a decodable image ({exc})", field=field)


def _open(data: bytes, field: str) -> Image.Image:
    """``data`` opened by Pillow (its header read, no pixels), within ``imagePixels``."""
    try:
        with warnings.catch_warnings():
            # The pixel limit is checked here, on the header, before anything decodes.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:
        # Pillow refuses twice its threshold before telling the size; its message has it.
        found = re.search(r"\((\d+) pixels\)", str(exc))
        pixels = int(found.group(1)) if found else IMAGE_PIXELS + 1
        raise LimitExceeded("imagePixels", pixels, field=field) from exc
    except Exception as exc:  # Pillow raises many types for bytes that are not an image
        raise _undecodable(field, exc) from exc
    if not (img.width and img.height):
        raise _undecodable(field, ValueError("no pixels"))
    check_limit("imagePixels", img.width * img.height, field=field)
    return img


def header(data: bytes, *, field: str = "image") -> Header:
    """The size and format of the picture in ``data``, from its header only.

    Raises :class:`EngineError` ``image_undecodable`` for bytes that are not a
    picture and :class:`LimitExceeded` ``imagePixels`` for one over that limit.
    """
    img = _open(data, field)
    return Header(img.width, img.height, img.format or "")


@attrs.frozen
class Picture:
    """A stored picture: its bytes and, when it has one, its rendition (the picture
    fitted into :data:`RENDITION_SIDE`; its own header says its size)."""

    data: bytes = attrs.field(repr=False)
    rendition: bytes | None = attrs.field(default=None, repr=False)


@attrs.frozen
class Decoded:
    """Pixels of ``box`` (in the picture's natural pixels) of a ``natural``-sized picture,
    RGB or RGBA; ``read`` says how (``whole``, ``bands``, ``first pass``, ``dct``,
    ``rendition``)."""

    image: Image.Image = attrs.field(eq=False, repr=False)
    box: Box
    natural: Size
    read: str


def fit(width: int, height: int, longest: int) -> Size:
    """``width`` x ``height`` scaled down (never up) so its longest side is at most ``longest``."""
    s = min(1.0, longest / max(width, height, 1))
    return max(1, round(width * s)), max(1, round(height * s))


def within(size: Size, pixels: int) -> Size:
    """``size`` scaled down (never up) to at most ``pixels`` pixels, its aspect kept."""
    w, h = size
    if w * h <= pixels:
        return size
    s = math.sqrt(pixels / (w * h))
    w2, h2 = max(1, math.floor(w * s)), max(1, math.floor(h * s))
    while w2 * h2 > pixels:  # rounding: one pixel off the longer side until it fits
        w2, h2 = (w2 - 1, h2) if w2 >= h2 else (w2, h2 - 1)
    return w2, h2


def _factor(box: Box, size: Size, cap: int) -> int:
    """The whole factor a box may be reduced by while decoding: no more than the size
    asked allows, and at least what keeps it within ``cap`` pixels."""
    bw, bh = box[2], box[3]
    scale = max(size[0] / bw, size[1] / bh)
    factor = max(1, math.floor(1 / scale + 1e-9))
    factor = max(factor, math.ceil(math.sqrt(bw * bh / cap)))
    while math.ceil(bw / factor) * math.ceil(bh / factor) > cap:
        factor += 1
    return factor


def _normal(img: Image.Image) -> Image.Image:
    """``img`` as RGB, or RGBA when anything in it can be transparent."""
    alpha = img.mode in _ALPHA_MODES or "transparency" in img.info
    want = "RGBA" if alpha else "RGB"
    return img if img.mode == want else img.convert(want)


def _finish(
    img: Image.Image,
    scale: tuple[float, float],
    box: Box,
    size: Size,
    resample: Image.Resampling,
    reducing_gap: float | None,
) -> Image.Image:
    """``box`` (natural pixels) of the picture ``img`` holds at ``scale`` of its natural
    size, resized to ``size`` (its fraction of a pixel kept: Pillow resizes from a box)."""
    sx, sy = scale
    x0, y0 = box[0] * sx, box[1] * sy
    x1, y1 = min(img.width, (box[0] + box[2]) * sx), min(img.height, (box[1] + box[3]) * sy)
    cut = (math.floor(x0), math.floor(y0), math.ceil(x1), math.ceil(y1))
    if cut != (0, 0, img.width, img.height):
        img = img.crop(cut)
    img = _normal(img)
    within_cut = (x0 - cut[0], y0 - cut[1], x1 - cut[0], y1 - cut[1])
    if img.size == size and within_cut == (0, 0, size[0], size[1]):
        return img
    return img.resize(size, resample, box=within_cut, reducing_gap=reducing_gap)


def _load(img: Image.Image, field: str) -> Image.Image:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img.load()
    except Exception as exc:  # truncated or broken pixel data
        raise _undecodable(field, exc) from exc
    return img


def _dct(img: Image.Image, head: Header, reduce: int) -> None:
    """Ask a JPEG to decode at 1/``reduce`` of its size (a power of two up to 8)."""
    img.draft(
        "RGB" if img.mode == "RGB" else None,
        (max(1, head.width // reduce), max(1, head.height // reduce)),
    )


def _power_of_two_at_most(n: int) -> int:
    return 1 << min(3, max(0, n.bit_length() - 1))


def decode(
    picture: Picture | bytes,
    *,
    box: Box | None = None,
    size: Size | None = None,
    resample: Image.Resampling = Image.Resampling.LANCZOS,
    reducing_gap: float | None = None,
    field: str = "image",
) -> Decoded:
    """The pixels of ``box`` (x, y, w, h in the picture's natural pixels, inside it; the
    whole picture when None) at ``size`` (default the box's own), RGB or RGBA.

    ``size`` is lowered, its aspect kept, to at most ``decodePixels`` pixels, and no
    step holds more than that many of the picture's pixels (see the module notes for
    how each kind of file is read). ``resample`` and ``reducing_gap`` go to Pillow's
    final resize. Raises :class:`EngineError` ``image_undecodable`` and
    :class:`LimitExceeded` (``imagePixels``, ``decodePixels``); ``ValueError`` for a box
    that is not inside the picture (callers clamp regions first).
    """
    pic = picture if isinstance(picture, Picture) else Picture(picture)
    img = _open(pic.data, field)
    head = Header(img.width, img.height, img.format or "")
    natural = head.size
    box = (0, 0, *natural) if box is None else box
    x, y, bw, bh = box
    if bw < 1 or bh < 1 or x < 0 or y < 0 or x + bw > head.width or y + bh > head.height:
        raise ValueError(f"box {box} is not inside the {head.width}x{head.height} picture")
    cap = decode_cap()
    size = within(size or (bw, bh), cap)
    factor = _factor(box, size, cap)
    out = _from_rendition(pic, head, box, size, cap, resample, reducing_gap)
    if out is not None:
        return Decoded(out, box, natural, "rendition")
    if head.pixels <= cap:
        if head.format in _JPEG and factor > 1:
            _dct(img, head, _power_of_two_at_most(factor))
        _load(img, field)
        scale = (img.width / head.width, img.height / head.height)
        read = "whole" if img.size == natural else "dct"
        return Decoded(_finish(img, scale, box, size, resample, reducing_gap), box, natural, read)
    png = _png.parse(pic.data) if head.format == "PNG" else None
    try:
        # A row wider than a band's worth of pixels would make every band that large.
        if png is not None and png.banded and head.width <= _png.BLOCK_PIXELS:
            return Decoded(
                _bands(png, pic.data, box, size, factor, resample), box, natural, "bands"
            )
        if png is not None and png.interlaced:
            first = _png.first_pass(png, pic.data)
            scale = (first.width / head.width, first.height / head.height)
            done = _finish(first, scale, box, size, resample, reducing_gap)
            return Decoded(done, box, natural, "first pass")
    except _png.Broken as exc:
        raise _undecodable(field, exc) from exc
    except EngineError:
        raise
    except Exception as exc:  # a band Pillow cannot read: the file is broken there
        raise _undecodable(field, exc) from exc
    if head.format in _JPEG:
        reduce = _power_of_two_at_most(factor)
        while reduce < 8 and math.ceil(head.width / reduce) * math.ceil(head.height / reduce) > cap:
            reduce *= 2
        _dct(img, head, reduce)
        if img.width * img.height <= cap:
            _load(img, field)
            scale = (img.width / head.width, img.height / head.height)
            return Decoded(
                _finish(img, scale, box, size, resample, reducing_gap), box, natural, "dct"
            )
    raise LimitExceeded("decodePixels", head.pixels, field=field)


def _from_rendition(
    pic: Picture,
    head: Header,
    box: Box,
    size: Size,
    cap: int,
    resample: Image.Resampling,
    reducing_gap: float | None,
) -> Image.Image | None:
    """``box`` at ``size`` from the rendition, when it has pixels enough for it (within
    1%), else None. A rendition that does not read is passed over: the original stays."""
    if pic.rendition is None:
        return None
    try:
        img = _open(pic.rendition, "rendition")
        sx, sy = img.width / head.width, img.height / head.height
        enough = box[2] * sx >= 0.99 * size[0] and box[3] * sy >= 0.99 * size[1]
        if not enough or img.width * img.height > cap:
            return None
        _load(img, "rendition")
    except EngineError:
        return None
    return _finish(img, (sx, sy), box, size, resample, reducing_gap)


def _bands(
    png: _png.Png, data: bytes, box: Box, size: Size, factor: int, resample: Image.Resampling
) -> Image.Image:
    """``box`` of a large PNG read band by band, each reduced by ``factor`` as it comes."""
    x, y, bw, bh = box
    mode = "RGBA" if png.alpha else "RGB"
    reduced = Image.new(mode, (math.ceil(bw / factor), math.ceil(bh / factor)))
    step = max(1, _png.BLOCK_PIXELS // png.width) // factor * factor or factor
    for top, band in _png.bands(png, data, y, y + bh, step):
        if band.mode != mode:
            band = band.convert(mode)
        part = (x, 0, x + bw, band.height)
        piece = band.reduce(factor, part) if factor > 1 else band.crop(part)
        reduced.paste(piece, (0, (top - y) // factor))
    if reduced.size == size and bw % factor == 0 and bh % factor == 0:
        return reduced
    return reduced.resize(size, resample, box=(0, 0, bw / factor, bh / factor))


def rendition(data: bytes, *, field: str = "image") -> bytes | None:
    """The rendition of a picture longer than :data:`RENDITION_SIDE`: fitted into it, as
    PNG, or JPEG when the PNG would pass :data:`RENDITION_PNG_BYTES` and nothing is
    transparent. None for a picture no longer than that. Made by :func:`decode`, so
    within the same cap; raises as it does."""
    head = header(data, field=field)
    if max(head.width, head.height) <= RENDITION_SIDE:
        return None
    img = decode(data, size=fit(head.width, head.height, RENDITION_SIDE), field=field).image
    out = io.BytesIO()
    img.save(out, format="PNG", compress_level=6)
    if out.tell() > RENDITION_PNG_BYTES and img.mode == "RGB":
        out = io.BytesIO()
        img.save(out, format="JPEG", quality=90)
    return out.getvalue()
