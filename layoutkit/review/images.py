"""Decoding pictures for review: one place that turns stored bytes into pixels.

Screenshots are 8-bit RGB or RGBA PNGs almost always; those go through libspng
(``imagecodecs``: zlib-ng's inflate and SIMD unfiltering decode a 1440×900
screenshot in about half of Pillow's time). Every other file, and every file
when ``imagecodecs`` is not installed, goes through Pillow. Either way a
picture over the ``imagePixels`` limit is refused before its pixels are
inflated (413 ``limit_exceeded``), and bytes that are not a picture raise
``image_undecodable`` naming the field they came in.

:func:`decode` gives RGBA words for the image diff; :func:`decode_picture` a
Pillow image for sheets and crops; :func:`open_picture` reads only a header
when the pixels may not be needed.
"""

from __future__ import annotations

import functools
import io
import warnings
from collections.abc import Callable

import attrs
import numpy as np
import numpy.typing as npt
from PIL import Image

from layoutkit.errors import EngineError
from layoutkit.limits import check_limit

Words = npt.NDArray[np.uint32]


@attrs.frozen
class Pixels:
    """A decoded image: ``words`` holds ``width * height`` little-endian RGBA words."""

    width: int
    height: int
    words: Words = attrs.field(eq=False, repr=False)

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


@functools.cache
def _spng_decoder() -> Callable[[bytes], npt.NDArray[np.uint8]] | None:
    # Imported on the first decode, not with the module: it adds ~10 ms to the
    # start of every process that merely imports the engine.
    try:
        from imagecodecs import spng_decode
    except ImportError:  # without imagecodecs every file goes through Pillow
        return None
    return spng_decode


def _decode_spng(data: bytes, field: str) -> Pixels | None:
    """8-bit RGBA and RGB PNGs (every screenshot tool writes one of them) through
    libspng: zlib-ng's inflate plus SIMD unfiltering decode a 1440×900 screenshot
    in about half of Pillow's time. ``None`` for any other file, which Pillow reads."""
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
    try:
        rgb = spng(data)
    except Exception as exc:  # imagecodecs raises its own error types for broken files
        raise EngineError(
            "image_undecodable", f"{field}: not a decodable image ({exc})", field=field
        ) from exc
    if rgb.shape[:2] != (height, width) or rgb.ndim != 3 or rgb.dtype != np.uint8:
        return None
    if rgb.shape[2] == 4:
        return Pixels.from_rgba(rgb)
    rgba = np.empty((height, width, 4), dtype=np.uint8)
    rgba[..., :3] = rgb
    rgba[..., 3] = 255
    return Pixels.from_rgba(rgba)


def decode(data: bytes, *, field: str = "image") -> Pixels:
    """Decode an image file (PNG, or any format Pillow reads) into RGBA words.

    Refuses more pixels than the ``imagePixels`` limit (413 ``limit_exceeded``)
    and bytes that are not an image (``image_undecodable``).
    """
    fast = _decode_spng(data, field)
    if fast is not None:
        return fast
    img = open_picture(data, field=field)
    if img.mode != "RGBA":
        img = img.convert("RGBA")
    words = np.frombuffer(img.tobytes(), dtype="<u4")
    return Pixels(img.width, img.height, words)


def open_picture(data: bytes, *, field: str = "image", load: bool = True) -> Image.Image:
    """The picture in ``data`` as Pillow opens it (PNG, JPEG, anything Pillow reads);
    with ``load`` False only its header is read (size and format)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
            check_limit("imagePixels", img.width * img.height, field=field)
            if load:
                img.load()
    except EngineError:
        raise
    except Exception as exc:  # Pillow raises many types for bytes that are not an image
        raise EngineError(
            "image_undecodable", f"{field}: not a decodable image ({exc})", field=field
        ) from exc
    return img


def decode_picture(data: bytes, *, field: str = "image") -> Image.Image:
    """The picture in ``data`` with its pixels loaded, as a Pillow image: RGBA when it
    came through libspng, the file's own mode otherwise."""
    fast = _decode_spng(data, field)
    if fast is None:
        return open_picture(data, field=field)
    return Image.frombuffer("RGBA", fast.size, fast.words, "raw", "RGBA", 0, 1)
