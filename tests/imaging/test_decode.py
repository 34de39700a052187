"""The bounded decode road: no picture is held whole past the decodePixels cap, a PNG read
band by band gives Pillow's own pixels, a region of a huge PNG is its natural pixels,
renditions answer what they can, and what cannot be bounded is refused."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from PIL import Image

from layoutkit import imaging, limits
from layoutkit.errors import EngineError
from layoutkit.limits import LimitExceeded
from layoutkit.review import sheets
from tests import pngs

CAP = limits.DECODE_PIXELS


def _largest(sizes: list[tuple[int, int]]) -> int:
    return max((w * h for w, h in sizes), default=0)


def _array(img: Image.Image) -> np.ndarray:
    return np.asarray(img).astype(np.int16)


def _pillow(data: bytes) -> Image.Image:
    """What Pillow makes of ``data`` decoded whole, as the road gives it (RGB or RGBA)."""
    img = Image.open(io.BytesIO(data))
    img.load()
    return imaging._normal(img)


# ------------------------------------------------------------------ the huge picture


def test_a_huge_png_is_never_held_whole(huge: bytes, held: list[tuple[int, int]]) -> None:
    got = sheets.card_image(huge)
    assert (got.width, got.height, got.image_width, got.image_height) == (1600, 1600, 9400, 9400)
    assert held and _largest(held) <= CAP
    img = Image.open(io.BytesIO(got.png)).convert("RGB")
    x, y, w, _ = pngs.SQUARE
    centre = round((x + w / 2) * 1600 / 9400), round((y + w / 2) * 1600 / 9400)
    assert img.getpixel(centre) == pngs.RED and img.getpixel((100, 100)) == pngs.FLAT


def test_a_huge_png_asked_whole_at_its_size_is_its_stored_bytes(
    huge: bytes, held: list[tuple[int, int]]
) -> None:
    got = sheets.card_image(huge, max_dim=10_000)
    assert got.png == huge and (got.width, got.height) == (9400, 9400)
    assert held == []  # nothing decoded
    # Any other drawing of it has at most decodePixels pixels.
    scaled = sheets.card_image(huge, max_dim=9000)
    assert (scaled.width, scaled.height) == (4096, 4096)


def test_a_region_of_a_huge_png_is_its_natural_pixels(
    huge: bytes, held: list[tuple[int, int]]
) -> None:
    x, y, w, h = pngs.SQUARE
    got = imaging.decode(huge, box=(x - 10, y - 10, w + 20, h + 20))
    assert got.read == "bands" and got.image.size == (w + 20, h + 20)
    pixels = np.asarray(got.image)
    assert (pixels[10 : 10 + h, 10 : 10 + w] == pngs.RED).all()
    assert (pixels[:10] == pngs.FLAT).all() and (pixels[10 + h :] == pngs.FLAT).all()
    assert (pixels[:, :10] == pngs.FLAT).all() and (pixels[:, 10 + w :] == pngs.FLAT).all()
    # The same through a card image: cut at natural coordinates, reported in them.
    crop = sheets.card_image(huge, region={"x": x, "y": y, "w": w, "h": h})
    assert (crop.width, crop.height, crop.region, crop.image_width) == (w, h, (x, y, w, h), 9400)
    assert Image.open(io.BytesIO(crop.png)).convert("RGB").getcolors() == [(w * h, pngs.RED)]
    assert _largest(held) <= CAP


def test_a_large_region_is_reduced_to_the_cap(huge: bytes, held: list[tuple[int, int]]) -> None:
    got = imaging.decode(huge, box=(0, 0, 9000, 9000))
    assert got.image.width * got.image.height <= CAP
    assert got.image.width == got.image.height  # its aspect kept
    assert _largest(held) <= CAP


def test_a_rendition_answers_what_it_has_pixels_for(huge: bytes) -> None:
    made = imaging.rendition(huge)
    assert made is not None and made.startswith(pngs.SIGNATURE)
    assert imaging.header(made).size == (2048, 2048)
    picture = imaging.Picture(huge, made)
    assert imaging.decode(picture, size=(1600, 1600)).read == "rendition"
    assert imaging.decode(picture, size=(2048, 2048)).read == "rendition"
    # A region near its natural size needs the original's pixels.
    x, y, w, h = pngs.SQUARE
    near = imaging.decode(picture, box=(x, y, w, h))
    assert near.read == "bands" and near.image.getcolors() == [(w * h, pngs.RED)]
    # A rendition that does not read is passed over.
    assert imaging.decode(imaging.Picture(huge, b"junk"), size=(64, 64)).read == "bands"


def test_a_photograph_s_rendition_is_a_jpeg_and_a_small_picture_has_none() -> None:
    noise = np.random.default_rng(5).integers(0, 256, (300, 2100, 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(noise).save(out, format="PNG")
    made = imaging.rendition(out.getvalue())
    assert made is not None and made.startswith(b"\xff\xd8")  # a JPEG: the PNG passed 1 MiB
    assert imaging.header(made).size == (2048, 293)
    small = io.BytesIO()
    Image.new("RGB", (2048, 1000)).save(small, format="PNG")
    assert imaging.rendition(small.getvalue()) is None


# ------------------------------------------------------------------ the band reader

_PALETTE = bytes(range(48))
_KINDS = [
    pytest.param(8, 0, None, None, id="grey"),
    pytest.param(8, 2, None, None, id="rgb"),
    pytest.param(8, 4, None, None, id="grey-alpha"),
    pytest.param(8, 6, None, None, id="rgba"),
    pytest.param(16, 0, None, None, id="grey16"),
    pytest.param(16, 4, None, None, id="grey-alpha16"),
    pytest.param(1, 0, None, None, id="grey1"),
    pytest.param(2, 0, None, None, id="grey2"),
    pytest.param(4, 0, None, None, id="grey4"),
    pytest.param(8, 3, _PALETTE, None, id="palette"),
    pytest.param(4, 3, _PALETTE, bytes([0, 128, 255]), id="palette4-trns"),
    pytest.param(1, 3, bytes(6), None, id="palette1"),
    pytest.param(8, 0, None, b"\x00\x10", id="grey-trns"),
    pytest.param(8, 2, None, b"\x00\x10\x00\x20\x00\x30", id="rgb-trns"),
]


@pytest.mark.parametrize(("depth", "colour", "plte", "trns"), _KINDS)
def test_bands_give_pillows_own_pixels(
    monkeypatch: pytest.MonkeyPatch,
    depth: int,
    colour: int,
    plte: bytes | None,
    trns: bytes | None,
) -> None:
    monkeypatch.setitem(limits.LIMITS, "decodePixels", 500)
    for width, height in ((37, 23), (130, 9)):
        data = pngs.varied_png(width, height, depth=depth, colour=colour, plte=plte, trns=trns)
        whole = _pillow(data)
        for box in (
            (0, 0, min(width, 20), min(height, 20)),
            (3, 2, 17, 7),
            (width - 5, height - 4, 5, 4),
        ):
            got = imaging.decode(data, box=box)
            assert got.read == "bands"
            x, y, w, h = box
            expected = whole.crop((x, y, x + w, y + h))
            assert got.image.mode == expected.mode
            assert np.array_equal(np.asarray(got.image), np.asarray(expected)), box


def test_bands_reduce_as_pillow_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(limits.LIMITS, "decodePixels", 400)
    data = pngs.varied_png(64, 48, colour=6)
    got = imaging.decode(data, size=(16, 12))
    assert got.read == "bands" and got.image.size == (16, 12)
    assert np.array_equal(np.asarray(got.image), np.asarray(_pillow(data).reduce(4)))


def test_the_first_pass_of_an_interlaced_png(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    rgb = rng.integers(0, 256, (45, 70, 3), dtype=np.uint8)
    data = pngs.interlaced_png(rgb)
    assert np.array_equal(np.asarray(_pillow(data)), rgb)
    monkeypatch.setitem(limits.LIMITS, "decodePixels", 1000)
    got = imaging.decode(data, size=(9, 6))
    assert got.read == "first pass" and got.image.size == (9, 6)
    assert np.array_equal(np.asarray(got.image), rgb[::8, ::8])


def test_a_large_jpeg_is_dct_reduced(
    monkeypatch: pytest.MonkeyPatch, held: list[tuple[int, int]]
) -> None:
    out = io.BytesIO()
    Image.new("RGB", (800, 600), (20, 120, 220)).save(out, format="JPEG", quality=95)
    held.clear()  # the picture this test made to write the file
    monkeypatch.setitem(limits.LIMITS, "decodePixels", 40_000)
    got = imaging.decode(out.getvalue(), box=(400, 300, 100, 100))
    assert got.read == "dct" and got.image.size == (100, 100)
    assert _largest(held) <= 40_000
    r, g, b = got.image.getpixel((50, 50))
    assert abs(r - 20) < 6 and abs(g - 120) < 6 and abs(b - 220) < 6


def test_what_cannot_be_read_reduced_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(limits.LIMITS, "decodePixels", 100)
    rgb16 = pngs.varied_png(20, 20, depth=16, colour=2)
    gif = io.BytesIO()
    Image.new("P", (20, 20)).save(gif, format="GIF")
    for data in (rgb16, gif.getvalue()):
        with pytest.raises(LimitExceeded) as refused:
            imaging.decode(data, size=(5, 5), field="tiles[0].image")
        fields = refused.value.fields
        assert (refused.value.code, fields["limit"], fields["value"]) == (
            "limit_exceeded",
            "decodePixels",
            400,
        )
        assert fields["field"] == "tiles[0].image"


def test_a_broken_large_png_is_undecodable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(limits.LIMITS, "decodePixels", 100)
    data = pngs.varied_png(40, 40)
    cut = data[: len(data) // 2]
    garbled = bytearray(data)
    at = data.index(b"IDAT") + 40
    garbled[at : at + 8] = b"\xff" * 8
    for bad in (cut, bytes(garbled)):
        with pytest.raises(EngineError) as broken:
            imaging.decode(bad, box=(0, 30, 10, 10))
        assert broken.value.code == "image_undecodable"


def test_sizes_are_kept_within_the_cap() -> None:
    assert imaging.within((9400, 9400), CAP) == (4096, 4096)
    w, h = imaging.within((20000, 300), 1_000_000)
    assert w * h <= 1_000_000 and abs(w / h - 20000 / 300) < 0.5
    assert imaging.within((10, 10), 50) == (7, 7)
    assert imaging.fit(9400, 4700, 2048) == (2048, 1024)
    assert math.prod(imaging.within((3, 100_000), 1000)) <= 1000
