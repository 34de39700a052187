"""Decoding screenshots for review: RGBA words for the image diff.

Screenshots are 8-bit RGB or RGBA PNGs almost always; those go through libspng
(``imagecodecs``: zlib-ng's inflate and SIMD unfiltering decode a 1440×900
screenshot in about half of Pillow's time). Every other file, and every file
when ``imagecodecs`` is not installed, goes through :func:`layoutkit.imaging.decode`.
A picture over the ``imagePixels`` limit is refused before its pixels are
inflated (413 ``limit_exceeded``), and bytes that are not a picture raise
``image_undecodable`` naming the field they came in.

A screenshot of more than ``decodePixels`` pixels (a full-page capture at twice
the density, say) is decoded reduced by the smallest whole factor that brings it
within that limit: its :class:`Pixels` say so (``factor``, ``natural``), and a
diff of two of them, which have one natural size and so one factor, is a diff
at that reduced size.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import attrs
import numpy as np
import numpy.typing as npt

from layoutkit import imaging
from layoutkit.errors import EngineError
from layoutkit.limits import check_limit

Words = npt.NDArray[np.uint32]


@attrs.frozen
class Pixels:
    """A decoded image: ``words`` holds ``width * height`` little-endian RGBA words.

    ``factor`` above 1: the picture was decoded reduced by that whole factor from its
    ``natural`` size (see the module notes); ``natural`` is None when it was not.
    """

    width: int
    height: int
    words: Words = attrs.field(eq=False, repr=False)
    factor: int = 1
    natural: tuple[int, int] | None = None

    @classmethod
    def from_rgba(cls, rgba: npt.NDArray[np.uint8]) -> Pixels:
        """From an ``(height, width, 4)`` uint8 array (no copy when it is contiguous)."""
        if rgba.ndim != 3 or rgba.shape[2] != 4 or rgba.dtype != np.uint8:
            raise ValueError(
                f"expected (height, width, 4) uint8 RGBA, got {rgba.shape} {rgba.dtype}"
            )
        height, width = rgba.shape[:2]
        words = np.ascontiguousarray(rgba).view("<u4").reshape(-1)
        return cls(width, height, words)

    @property
    def size(self) -> tuple[int, int]:
        return (self.width, self.height)

    @property
    def natural_size(self) -> tuple[int, int]:
        """The size of the picture these pixels were decoded from."""
        return self.natural or self.size

    def rgba(self) -> npt.NDArray[np.uint8]:
        """The pixels as an ``(height, width, 4)`` uint8 array (a view)."""
        return self.words.view(np.uint8).reshape(self.height, self.width, 4)


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_header(data: bytes) -> tuple[int, int, int, int] | None:
    """Width, height, bit depth and colour type from a PNG's IHDR, or ``None``."""
    if len(data) < 33 or not data.startswith(_PNG_SIGNATURE) or data[12:16] != b"IHDR":
        return None
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return width, height, data[24], data[25]


def png_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG's header, or ``None`` when ``data`` is no PNG."""
    header = _png_header(data)
    return None if header is None else header[:2]


@functools.cache
def _spng_decoder() -> Callable[[bytes], npt.NDArray[np.uint8]] | None:
    # Imported on the first decode, not with the module: it adds ~10 ms to the
    # start of every process that merely imports the engine.
    try:
        from imagecodecs import spng_decode
    except ImportError:  # without imagecodecs every file goes through Pillow
        return None
    return spng_decode


def _decode_spng(
    data: bytes, field: str, out: npt.NDArray[np.uint8] | None = None
) -> Pixels | None:
    """8-bit RGBA and RGB PNGs (every screenshot tool writes one of them) through
    libspng: zlib-ng's inflate plus SIMD unfiltering decode a 1440×900 screenshot
    in about half of Pillow's time. ``None`` for any other file, which Pillow reads.
    ``out``: an ``(h, w, 4)`` uint8 buffer to decode into, used when it fits."""
    spng = _spng_decoder()
    if spng is None:
        return None
    header = _png_header(data)
    if header is None:
        return None
    width, height, depth, colour = header
    # Colour type 6 is RGBA, 2 is RGB. An RGB file with a tRNS chunk has a
    # transparent colour that Pillow's RGBA conversion honours: leave it to Pillow.
    if depth != 8 or colour not in (2, 6) or (colour == 2 and b"tRNS" in data):
        return None
    check_limit("imagePixels", width * height, field=field)
    if out is not None and (out.shape != (height, width, 4) or out.dtype != np.uint8):
        out = None
    try:
        rgb = spng(data, out=out) if colour == 6 and out is not None else spng(data)
    except Exception as exc:  # imagecodecs raises its own error types for broken files
        raise EngineError(
            "image_undecodable", f"{field}: not a decodable image ({exc})", field=field
        ) from exc
    if rgb.shape[:2] != (height, width) or rgb.ndim != 3 or rgb.dtype != np.uint8:
        return None
    if rgb.shape[2] == 4:
        return Pixels.from_rgba(rgb)
    rgba = np.empty((height, width, 4), dtype=np.uint8) if out is None else out
    rgba[..., :3] = rgb
    rgba[..., 3] = 255
    return Pixels.from_rgba(rgba)


def decode(
    data: bytes, *, field: str = "image", out: npt.NDArray[np.uint8] | None = None
) -> Pixels:
    """Decode an image file (PNG, or any format Pillow reads) into RGBA words; one of more
    than ``decodePixels`` pixels reduced by a whole factor (see the module notes).
    ``out``: an ``(h, w, 4)`` uint8 buffer the pixels may be decoded into (8-bit
    RGB and RGBA PNGs of that size are); the result may then be a view of it.

    Refuses more pixels than the ``imagePixels`` limit (413 ``limit_exceeded``)
    and bytes that are not an image (``image_undecodable``).
    """
    head = imaging.header(data, field=field)
    cap = imaging.decode_cap()
    if head.pixels <= cap:
        fast = _decode_spng(data, field, out)
        if fast is not None:
            return fast
        img = imaging.decode(data, field=field).image.convert("RGBA")
        return Pixels(img.width, img.height, np.frombuffer(img.tobytes(), dtype="<u4"))
    factor = math.ceil(math.sqrt(head.pixels / cap))
    while math.ceil(head.width / factor) * math.ceil(head.height / factor) > cap:
        factor += 1
    size = (math.ceil(head.width / factor), math.ceil(head.height / factor))
    img = imaging.decode(data, size=size, field=field).image.convert("RGBA")
    words = np.frombuffer(img.tobytes(), dtype="<u4")
    return Pixels(img.width, img.height, words, factor, head.size)
