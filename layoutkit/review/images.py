"""Decoding screenshots for review: RGBA words for the image diff.

Screenshots are 8-bit RGB or RGBA PNGs almost always; those go through libspng
(``imagecodecs``: its SIMD unfiltering decodes a 1440×900 screenshot in about
half of Pillow's time). The image diff's decodes, given a work buffer, are
faster still: libdeflate inflates the image data and libspng reads it stored (see
:func:`_restored`). Every other file, and every file when ``imagecodecs`` is not
installed, goes through :func:`layoutkit.imaging.decode`.
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
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from layoutkit import imaging
from layoutkit.errors import EngineError
from layoutkit.limits import check_limit
from layoutkit.review._scratch import scratch

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
    libspng, in about half of Pillow's time for a 1440×900 screenshot. ``None``
    for any other file, which Pillow reads. ``out``: an ``(h, w, 4)`` uint8
    buffer to decode into, used when it fits (then the image data is inflated
    by libdeflate first, see :func:`_restored`)."""
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
    if out is not None:
        # The diff's decodes: inflated by libdeflate into work buffers (see _restored).
        data = _restored(data, width, height, 4 if colour == 6 else 3) or data
    try:
        if out is None:
            rgb = spng(data)
        else:
            rgb = spng(data, out=out if colour == 6 else scratch.get("png.rgb", (height, width, 3)))
    except Exception as exc:  # imagecodecs raises its own error types for broken files
        raise EngineError(
            "image_undecodable", f"{field}: not a decodable image ({exc})", field=field
        ) from exc
    if rgb.shape[:2] != (height, width) or rgb.ndim != 3 or rgb.dtype != np.uint8:
        return None
    if rgb.shape[2] == 4:
        return Pixels.from_rgba(rgb)
    rgba = np.empty((height, width, 4), dtype=np.uint8) if out is None else out
    _opaque_words(rgb, rgba)
    return Pixels.from_rgba(rgba)


_ALPHA = np.uint32(0xFF000000)


def _opaque_words(rgb: npt.NDArray[np.uint8], rgba: npt.NDArray[np.uint8]) -> None:
    """``rgb`` pixels (contiguous, ``(h, w, 3)``) into ``rgba`` (``(h, w, 4)``) with
    alpha 255. Each pixel is read as the little-endian word of its three bytes and
    the next one (3 bytes apart, unaligned), whose top byte the alpha then
    overwrites: one pass over words, where assigning the channels through
    strided byte views costs twenty times as much (10 ms for a screenshot). The
    last pixel has no byte after it and is set on its own."""
    n = rgb.shape[0] * rgb.shape[1]
    if n == 0:
        return
    flat = np.ascontiguousarray(rgb).reshape(-1)
    words = rgba.reshape(-1).view("<u4")
    if n > 1:
        near = np.ndarray((n - 1,), dtype="<u4", buffer=flat, strides=(3,))
        np.bitwise_or(near, _ALPHA, out=words[:-1])
    last = rgba.reshape(-1)[-4:]
    last[:3] = flat[-3:]
    last[3] = 255


_CRITICAL = (b"IHDR", b"PLTE", b"IDAT", b"IEND")


@functools.cache
def _zlibng() -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., int]] | None:
    try:
        import imagecodecs
        from imagecodecs import zlibng_crc32, zlibng_decode, zlibng_encode
    except ImportError:  # an imagecodecs built without zlib-ng
        return None
    # libdeflate inflates a screenshot's image data (into a buffer of its known
    # size, checking the Adler-32) in four fifths of zlib-ng's time.
    inflate = imagecodecs.deflate_decode if imagecodecs.DEFLATE.available else zlibng_decode
    return inflate, zlibng_encode, zlibng_crc32


def _restored(data: bytes, width: int, height: int, channels: int) -> memoryview | None:
    """The same 8-bit, non-interlaced PNG with its image data inflated by libdeflate and
    stored again uncompressed (deflate's stored blocks), in work buffers; ``None``
    for anything else, or anything unusual, which libspng then reads as it is.

    libspng inflates with the stock zlib, two thirds of its decode of a
    screenshot; libdeflate (zlib-ng where it is missing) inflates the same stream
    in a sixth of that time, and a stored stream costs libspng a copy and its
    stock checksums. Every other chunk stays as it was and
    libspng still unfilters, so the pixels and the refusals are its own; each
    chunk's CRC and the stream's Adler-32 are checked first, as libspng would."""
    codec = _zlibng()
    if codec is None or data[26] != 0 or data[27] != 0 or data[28] != 0:  # methods, interlace
        return None
    inflate, deflate, crc32 = codec
    size = height * (1 + width * channels)  # each row: its filter byte, then its samples
    view = memoryview(data)
    parts = []
    first = after = 0  # where the image data's chunks begin and end
    pos = 8
    try:
        while True:
            length = int.from_bytes(data[pos : pos + 4], "big")
            kind = data[pos + 4 : pos + 8]
            end = pos + 8 + length
            if end + 4 > len(data):
                return None
            if crc32(view[pos + 4 : end]) != int.from_bytes(data[end : end + 4], "big"):
                return None
            if kind == b"IDAT":
                if parts and after != pos:
                    return None  # image data split by other chunks: libspng's to refuse
                first = first or pos
                parts.append(view[pos + 8 : end])
                after = end + 4
            elif kind[0] < 0x61 and kind not in _CRITICAL:  # an unknown critical chunk
                return None
            pos = end + 4
            if kind == b"IEND":
                break
        if not parts:
            return None
        raw = inflate(b"".join(parts), out=scratch.get("png.raw", (size,)))
        if len(raw) != size:
            return None
        # The chunks before and after as in the file; between them one IDAT of
        # stored blocks.
        start = first + 8
        tail = len(data) - after
        room = start + size + 5 * (size // 65535 + 1) + 6 + 4 + tail
        out = scratch.get("png.stored", (room,))
        stored = len(deflate(raw, level=0, out=out[start:]))
        out[:first] = np.frombuffer(data, np.uint8, first)
        out[first : first + 4] = np.frombuffer(stored.to_bytes(4, "big"), np.uint8)
        out[first + 4 : start] = np.frombuffer(b"IDAT", np.uint8)
        end = start + stored
        out[end : end + 4] = np.frombuffer(crc32(out[first + 4 : end]).to_bytes(4, "big"), np.uint8)
        out[end + 4 : end + 4 + tail] = np.frombuffer(data, np.uint8, tail, after)
        return memoryview(out[: end + 4 + tail])
    except Exception:  # a broken stream: libspng reads the file and names the error
        return None


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
