"""PNG files for tests, written here rather than by Pillow: huge ones without holding their
pixels (a 9,400 x 9,400 picture costs a few MiB to write), and small ones whose rows use
every PNG filter, in every colour type and bit depth, interlaced or not."""

from __future__ import annotations

import random
import struct
import zlib
from collections.abc import Callable

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
#: The huge test picture: its side, its flat colour, and a red square at natural pixels.
SIDE = 9400
FLAT = (240, 240, 240)
RED = (200, 30, 30)
SQUARE = (9000, 8000, 100, 100)  # x, y, w, h


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_file(
    width: int,
    height: int,
    idat: bytes,
    *,
    depth: int = 8,
    colour: int = 2,
    interlace: int = 0,
    plte: bytes | None = None,
    trns: bytes | None = None,
    parts: int = 1,
) -> bytes:
    """A PNG of compressed pixel data ``idat``, split over ``parts`` IDAT chunks."""
    out = [
        SIGNATURE,
        chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace)),
    ]
    if plte is not None:
        out.append(chunk(b"PLTE", plte))
    if trns is not None:
        out.append(chunk(b"tRNS", trns))
    step = max(1, -(-len(idat) // parts))
    out += [chunk(b"IDAT", idat[i : i + step]) for i in range(0, len(idat), step)]
    out.append(chunk(b"IEND", b""))
    return b"".join(out)


def huge_png(side: int = SIDE, row: Callable[[int], bytes] | None = None) -> bytes:
    """A ``side`` x ``side`` RGB PNG, flat :data:`FLAT` with a :data:`RED` square at
    :data:`SQUARE` (when ``side`` reaches it), written a row at a time."""
    flat = bytes(FLAT) * side
    x, y, w, h = SQUARE
    marked = bytearray(flat)
    if x + w <= side:
        marked[3 * x : 3 * (x + w)] = bytes(RED) * w
    square = bytes(marked)
    pack = zlib.compressobj(6)
    body = []
    for r in range(side):
        data = row(r) if row is not None else (square if y <= r < y + h else flat)
        body.append(pack.compress(b"\x00" + data))
    body.append(pack.flush())
    return png_file(side, side, b"".join(body))


def _paeth(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


def filtered(raw: np.ndarray, bpp: int, rng: random.Random) -> bytes:
    """Rows of ``raw`` (unfiltered bytes, one row each) each under a random PNG filter."""
    out = []
    prior = np.zeros(raw.shape[1], np.int32)
    for row in raw.astype(np.int32):
        left = np.concatenate([np.zeros(bpp, np.int32), row[:-bpp]])
        upper_left = np.concatenate([np.zeros(bpp, np.int32), prior[:-bpp]])
        kind = rng.randrange(5)
        predicted = (0, left, prior, (left + prior) // 2, _paeth(left, prior, upper_left))[kind]
        out.append(bytes([kind]) + ((row - predicted) % 256).astype(np.uint8).tobytes())
        prior = row
    return b"".join(out)


def varied_png(
    width: int,
    height: int,
    *,
    depth: int = 8,
    colour: int = 2,
    plte: bytes | None = None,
    trns: bytes | None = None,
    seed: int = 7,
) -> bytes:
    """A small non-interlaced PNG of noisy rows (runs in the left half), every row under
    a random filter, its data split over three IDAT chunks."""
    rng = random.Random(seed)
    rowbytes = (width * CHANNELS[colour] * depth + 7) // 8
    raw = np.frombuffer(rng.randbytes(height * rowbytes), np.uint8).reshape(height, rowbytes).copy()
    raw[:, : rowbytes // 2] = raw[:, :1]
    if colour == 3 and depth == 8:
        raw %= len(plte or b"\0\0\0") // 3
    bpp = max(1, CHANNELS[colour] * depth // 8)
    data = zlib.compress(filtered(raw, bpp, rng), 6)
    return png_file(width, height, data, depth=depth, colour=colour, plte=plte, trns=trns, parts=3)


def interlaced_png(rgb: np.ndarray) -> bytes:
    """``rgb`` (height, width, 3 uint8) as an Adam7-interlaced PNG (Pillow writes none)."""
    passes = (
        (0, 0, 8, 8),
        (4, 0, 8, 8),
        (0, 4, 4, 8),
        (2, 0, 4, 4),
        (0, 2, 2, 4),
        (1, 0, 2, 2),
        (0, 1, 1, 2),
    )
    body = b""
    for x0, y0, dx, dy in passes:
        sub = rgb[y0::dy, x0::dx]
        if sub.size:
            body += b"".join(b"\x00" + row.tobytes() for row in sub)
    height, width = rgb.shape[:2]
    return png_file(width, height, zlib.compress(body, 6), interlace=1)
