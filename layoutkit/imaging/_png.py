"""PNG read band by band, so a picture larger than the decode cap never lies whole in memory.

A PNG's pixels are one zlib stream of scanlines, each filtered against the one
above it, so no row can be read without unfiltering every row before it; Pillow
(like libpng's simple API) decodes all of them into one image. Here the stream
is inflated a block of rows at a time and each block is unfiltered by Pillow's
own PNG decoder, handed a small PNG of its own: the block's rows, led by the
previous block's last row already unfiltered (filter type 0, so the first row of
the block is unfiltered against the right row). The block is read as an 8-bit
picture with as many bytes per pixel as the file's (1 to 4), so the decoder
gives back the unfiltered bytes exactly; a second small PNG with the file's own
header, palette and transparency, every row unfiltered, turns them into pixels
where they are not already 8-bit grey, grey-alpha, RGB or RGBA.

Three cases stay out of the band reader: 16-bit RGB and RGBA (6 and 8 bytes a
pixel: no 8-bit picture has that many, and Pillow keeps only 8 bits of each
channel), which the caller decodes whole when they fit its cap and refuses
otherwise; and interlaced files, whose first Adam7 pass (every eighth pixel of
every eighth row) is stored first and is read alone as a picture an eighth of the
size (:func:`first_pass`).
"""

from __future__ import annotations

import io
import math
import struct
import zlib
from collections.abc import Iterator

import attrs
import numpy as np
from PIL import Image

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
#: Bytes per pixel → the 8-bit PNG colour type and Pillow mode with as many.
_PSEUDO = {1: (0, "L"), 2: (4, "LA"), 3: (2, "RGB"), 4: (6, "RGBA")}
#: 8-bit colour types whose unfiltered bytes are already Pillow pixels.
_DIRECT = {0: "L", 2: "RGB", 4: "LA", 6: "RGBA"}
#: Inflated bytes asked of zlib at once: bounds what one call can make of a tiny input.
_INFLATE_STEP = 1 << 20
#: Pixels of one block of rows (at least one row): a few MiB of work at a time.
BLOCK_PIXELS = 1 << 20


class Broken(ValueError):
    """The file stops or breaks before the rows asked for."""


@attrs.frozen
class Png:
    """What the band reader needs of a PNG: its header, palette, transparency and
    where its compressed pixels are (``idat``: (start, end) offsets in the file)."""

    width: int
    height: int
    depth: int
    colour: int
    interlaced: bool
    plte: bytes | None
    trns: bytes | None
    idat: tuple[tuple[int, int], ...]

    @property
    def channels(self) -> int:
        return _CHANNELS[self.colour]

    @property
    def rowbytes(self) -> int:
        return (self.width * self.channels * self.depth + 7) // 8

    @property
    def bpp(self) -> int:
        """Bytes per pixel as PNG filters count them (at least 1)."""
        return max(1, self.channels * self.depth // 8)

    @property
    def alpha(self) -> bool:
        return self.colour in (4, 6) or self.trns is not None

    @property
    def banded(self) -> bool:
        """Whether :func:`bands` reads it (see the module notes for the others)."""
        return not self.interlaced and self.bpp in _PSEUDO


def parse(data: bytes) -> Png | None:
    """The PNG in ``data``, or None for anything the band reader should leave to Pillow
    (not a PNG, a header it would not accept). A file cut short keeps the pixel data
    it has: reading past it raises :class:`Broken`, as a broken stream does."""
    if not data.startswith(SIGNATURE):
        return None
    pos, header, plte, trns, idat = 8, None, None, None, []
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        start, end = pos + 8, pos + 8 + length
        if end + 4 > len(data):
            if kind == b"IDAT":
                idat.append((start, min(end, len(data))))
            break
        if kind == b"IHDR" and length == 13:
            header = struct.unpack(">IIBBBBB", data[start:end])
        elif kind == b"PLTE":
            plte = bytes(data[start:end])
        elif kind == b"tRNS":
            trns = bytes(data[start:end])
        elif kind == b"IDAT":
            idat.append((start, end))
        elif kind == b"IEND":
            break
        pos = end + 4
    if header is None or not idat:
        return None
    width, height, depth, colour, compression, filtering, interlace = header
    if (
        not (width and height)
        or colour not in _DEPTHS
        or depth not in _DEPTHS[colour]
        or compression
        or filtering
        or interlace not in (0, 1)
        or (colour == 3 and plte is None)
    ):
        return None
    return Png(width, height, depth, colour, bool(interlace), plte, trns, tuple(idat))


def _chunk(kind: bytes, body: bytes | memoryview) -> bytes:
    crc = zlib.crc32(body, zlib.crc32(kind)) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + bytes(body) + struct.pack(">I", crc)


def stored_zlib(payload: bytes | memoryview) -> bytes:
    """``payload`` as a zlib stream of stored (uncompressed) blocks: a copy and a
    checksum, where compressing it to hand it to a decoder would cost far more."""
    view = memoryview(payload).cast("B")
    parts = [b"\x78\x01"]
    size = len(view)
    for at in range(0, max(size, 1), 0xFFFF):
        block = view[at : at + 0xFFFF]
        last = at + 0xFFFF >= size
        parts.append(struct.pack("<BHH", int(last), len(block), len(block) ^ 0xFFFF))
        parts.append(block)  # type: ignore[arg-type]
    parts.append(struct.pack(">I", zlib.adler32(view) & 0xFFFFFFFF))
    return b"".join(parts)


def _inflate(png: Png, data: bytes) -> Iterator[bytes]:
    """The file's pixel stream, inflated a bounded piece at a time."""
    inflater = zlib.decompressobj()
    view = memoryview(data)
    for start, end in png.idat:
        rest: bytes | memoryview = view[start:end]
        while rest:
            try:
                out = inflater.decompress(rest, _INFLATE_STEP)
            except zlib.error as exc:
                raise Broken(f"broken pixel data ({exc})") from exc
            rest = inflater.unconsumed_tail
            if out:
                yield out
            if inflater.eof:
                return
    while not inflater.eof:
        # What zlib still holds back once the input is all in.
        out = inflater.decompress(b"", _INFLATE_STEP)
        if not out:
            return
        yield out


def _unfilter(png: Png, prior: bytes | None, rows: bytes | memoryview, count: int) -> bytes:
    """The unfiltered bytes of ``count`` filtered rows, ``prior`` the unfiltered row above
    them (None above the first row, where PNG filters read zeros)."""
    _, mode = _PSEUDO[png.bpp]
    size = (png.rowbytes // png.bpp, count + (prior is not None))
    payload = rows if prior is None else b"".join((b"\x00", prior, rows))
    image = Image.frombytes(mode, size, stored_zlib(payload), "zip", mode)
    raw = image.tobytes()
    return raw if prior is None else raw[png.rowbytes :]


def _mini(png: Png, width: int, height: int, rows: bytes | memoryview) -> Image.Image:
    """A picture of ``height`` rows with the file's header, palette and transparency,
    from its filtered rows (of ``width`` pixels each), decoded by Pillow."""
    header = struct.pack(">IIBBBBB", width, height, png.depth, png.colour, 0, 0, 0)
    parts = [SIGNATURE, _chunk(b"IHDR", header)]
    if png.plte is not None:
        parts.append(_chunk(b"PLTE", png.plte))
    if png.trns is not None:
        parts.append(_chunk(b"tRNS", png.trns))
    parts += [_chunk(b"IDAT", stored_zlib(rows)), _chunk(b"IEND", b"")]
    image = Image.open(io.BytesIO(b"".join(parts)))
    image.load()
    return image


def _pixels(png: Png, raw: bytes, count: int) -> Image.Image:
    """``count`` unfiltered rows as a Pillow picture."""
    if png.depth == 8 and png.trns is None and png.colour in _DIRECT:
        return Image.frombytes(_DIRECT[png.colour], (png.width, count), raw)
    framed = np.zeros((count, png.rowbytes + 1), dtype=np.uint8)
    framed[:, 1:] = np.frombuffer(raw, dtype=np.uint8).reshape(count, png.rowbytes)
    return _mini(png, png.width, count, framed.data)


def bands(
    png: Png, data: bytes, top: int, bottom: int, step: int
) -> Iterator[tuple[int, Image.Image]]:
    """Rows ``top`` to ``bottom`` (exclusive) as pictures of ``step`` rows (the last may
    be shorter), with the row each starts at. Rows above ``top`` are unfiltered and
    dropped; nothing below ``bottom`` is inflated.

    Raises :class:`Broken` when the file ends or breaks first.
    """
    rowlen = png.rowbytes + 1
    skip = max(1, BLOCK_PIXELS // png.width)
    pending = bytearray()
    prior: bytes | None = None
    y = 0
    stream = _inflate(png, data)
    while y < bottom:
        want = min(top - y, skip) if y < top else min(step, bottom - y)
        while len(pending) < want * rowlen:
            piece = next(stream, None)
            if piece is None:
                raise Broken(f"the pixel data stops at row {y + len(pending) // rowlen}")
            pending += piece
        raw = _unfilter(png, prior, bytes(pending[: want * rowlen]), want)
        del pending[: want * rowlen]
        prior = raw[-png.rowbytes :]
        if y >= top:
            yield y, _pixels(png, raw, want)
        y += want


def first_pass(png: Png, data: bytes) -> Image.Image:
    """The first Adam7 pass of an interlaced PNG: pixel (i, j) is the file's (8i, 8j)."""
    width, height = math.ceil(png.width / 8), math.ceil(png.height / 8)
    rowbytes = (width * png.channels * png.depth + 7) // 8
    need = height * (rowbytes + 1)
    pending = bytearray()
    for piece in _inflate(png, data):
        pending += piece
        if len(pending) >= need:
            return _mini(png, width, height, bytes(pending[:need]))
    raise Broken("the pixel data stops inside its first pass")
