"""The sheet engine: one card's picture (region, clamp, maxDim), contact sheets (limits,
labels never cut, tiles never overlapping, the sight band in pixels only), the text
block and the image token estimate."""

from __future__ import annotations

import io
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from syrupy.assertion import SnapshotAssertion

from layoutkit.errors import EngineError
from layoutkit.review import sheets


def encoded(
    w: int, h: int, color: tuple[int, int, int] = (200, 120, 40), fmt: str = "PNG"
) -> bytes:
    img = Image.new("RGB", (w, h), color)
    # A mark in the top-left corner tells where a crop came from.
    img.paste((0, 0, 255), (0, 0, min(w, 10), min(h, 10)))
    out = io.BytesIO()
    img.save(out, format=fmt)
    return out.getvalue()


def pixels(png: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG"
    return img.convert("RGB")


# ------------------------------------------------------------------ card_image


def test_a_whole_stored_png_is_returned_as_stored() -> None:
    data = encoded(640, 400)
    done = sheets.card_image(data)
    assert done.png == data
    assert done.describe() == {
        "width": 640,
        "height": 400,
        "imageWidth": 640,
        "imageHeight": 400,
        "cropped": False,
    }


def test_a_jpeg_comes_back_as_png_of_its_pixels() -> None:
    done = sheets.card_image(encoded(300, 200, fmt="JPEG"))
    assert pixels(done.png).size == (300, 200)


def test_max_dim_bounds_the_longest_side_and_never_scales_up() -> None:
    tall = sheets.card_image(encoded(900, 3000), max_dim=1600)
    assert (tall.width, tall.height) == (480, 1600)
    assert pixels(tall.png).size == (480, 1600)
    assert (tall.image_width, tall.image_height) == (900, 3000)
    small = sheets.card_image(encoded(200, 100), max_dim=5000)
    assert (small.width, small.height) == (200, 100)
    assert sheets.card_image(encoded(1440, 900)).width == 1440  # default 1600


def test_a_region_crops_in_source_pixels() -> None:
    done = sheets.card_image(encoded(1440, 900), region={"x": 0, "y": 0, "w": 20, "h": 10})
    assert done.cropped is True
    assert done.region == (0, 0, 20, 10)
    img = pixels(done.png)
    assert img.size == (20, 10)
    assert img.getpixel((5, 5)) == (0, 0, 255) and img.getpixel((15, 5)) != (0, 0, 255)


def test_a_region_is_rounded_outwards_and_clamped() -> None:
    done = sheets.card_image(
        encoded(1440, 900), region={"x": 1400.5, "y": -30, "w": 100, "h": 40.2}
    )
    assert done.region == (1400, 0, 40, 11)
    assert done.cropped is True
    assert (done.width, done.height) == (40, 11)
    whole = sheets.card_image(encoded(100, 80), region={"x": -5, "y": -5, "w": 200, "h": 200})
    assert whole.region == (0, 0, 100, 80) and whole.cropped is False


def test_a_region_is_scaled_by_max_dim_too() -> None:
    done = sheets.card_image(
        encoded(1440, 900), region={"x": 0, "y": 0, "w": 1000, "h": 500}, max_dim=500
    )
    assert (done.width, done.height) == (500, 250)


@pytest.mark.parametrize(
    "region",
    [
        {"x": 1440, "y": 0, "w": 10, "h": 10},
        {"x": -20, "y": 0, "w": 20, "h": 10},
        {"x": 0, "y": 900, "w": 10, "h": 1},
    ],
)
def test_a_region_wholly_outside_is_refused(region: dict[str, float]) -> None:
    with pytest.raises(EngineError) as exc:
        sheets.card_image(encoded(1440, 900), region=region)
    assert exc.value.code == "region_outside"
    assert exc.value.fields["field"] == "region"
    assert (exc.value.fields["imageWidth"], exc.value.fields["imageHeight"]) == (1440, 900)


def test_bytes_that_are_no_picture_are_refused() -> None:
    with pytest.raises(EngineError) as exc:
        sheets.card_image(b"not a picture")
    assert exc.value.code == "image_undecodable"


# ------------------------------------------------------------------ sheets


def _overlap(a: sheets.Box, b: sheets.Box) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def layout_problems(layout: sheets.SheetLayout) -> list[str]:
    """Overlaps, boxes off the sheet, labels wider or taller than their box."""
    found = []
    boxes = [(f"tile {t.index}", t.at) for t in layout.tiles]
    boxes += [(f"label {t.index}", t.label_at) for t in layout.tiles]
    for name, (x, y, w, h) in boxes:
        if x < 0 or y < layout.band or x + w > layout.width or y + h > layout.height:
            found.append(f"{name} leaves the sheet")
        if w < 1 or h < 1:
            found.append(f"{name} is empty")
    for i, (a_name, a) in enumerate(boxes):
        for b_name, b in boxes[i + 1 :]:
            if _overlap(a, b):
                found.append(f"{a_name} overlaps {b_name}")
    for t in layout.tiles:
        if "".join("".join(t.lines).split()) != "".join(t.label.split()):
            found.append(f"label {t.index} lost text")
        if len(t.lines) * sheets.LABEL_LINE > t.label_at[3]:
            found.append(f"label {t.index} is taller than its box")
        for line in t.lines:
            if sheets.label_width(line) > t.label_at[2]:
                found.append(f"label {t.index} line {line!r} is wider than its box")
    return found


sizes = st.tuples(st.integers(1, 6000), st.integers(1, 6000))
labels = st.text(
    st.characters(codec="latin-1", categories=("L", "N", "P", "Zs")), min_size=0, max_size=60
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(sizes, labels, st.booleans()), min_size=1, max_size=24).filter(
        lambda ts: 2 * sum(not c for _, _, c in ts) + sum(c for _, _, c in ts) <= 24
    ),
    st.booleans(),
)
def test_tiles_and_labels_never_overlap_nor_leave_the_sheet(
    tiles: list[tuple[tuple[int, int], str, bool]], sight: bool
) -> None:
    layout = sheets.plan_sheet(
        [t[0] for t in tiles], [t[1] for t in tiles], [t[2] for t in tiles], sight=sight
    )
    assert layout_problems(layout) == []
    assert layout.width <= sheets.SHEET_SIDE and layout.height <= sheets.SHEET_SIDE
    assert layout.width * layout.height <= sheets.SHEET_PIXELS
    for t, ((w, h), _, crop) in zip(layout.tiles, tiles, strict=True):
        cap = sheets.CROP_ZOOM if crop else 1.0
        # Never drawn larger than allowed (floor of the scaled size, at least a pixel).
        assert t.at[2] <= max(1, w * cap) + 1e-9 and t.at[3] <= max(1, h * cap) + 1e-9
        # One scale for both sides: each within a pixel of it.
        scale = t.at[2] / w if w >= h else t.at[3] / h  # the longer side's
        assert abs(t.at[2] - w * scale) <= 1 and abs(t.at[3] - h * scale) <= 1


def test_sheet_limits() -> None:
    sheets.check_tiles(12, 0)
    sheets.check_tiles(0, 24)
    sheets.check_tiles(6, 12)
    for whole, crops in ((13, 0), (0, 25), (7, 11)):
        with pytest.raises(EngineError) as exc:
            sheets.check_tiles(whole, crops)
        assert exc.value.code == "too_many_tiles"
        assert (exc.value.fields["maxWhole"], exc.value.fields["maxCrops"]) == (12, 24)
    with pytest.raises(EngineError) as empty:
        sheets.contact_sheet([])
    assert empty.value.code == "no_tiles"
    assert (sheets.MAX_WHOLE, sheets.MAX_CROPS, sheets.MAX_SURVEY) == (12, 24, 12)


def test_a_sheet_draws_every_tile_where_it_says() -> None:
    colors = [(220, 40, 40), (40, 160, 40), (40, 40, 220)]
    tiles = [sheets.Tile(encoded(1440, 900, c), f"#{i + 1}") for i, c in enumerate(colors)]
    tiles.append(sheets.Tile(encoded(1440, 900), "T4", crop={"x": 0, "y": 0, "w": 40, "h": 20}))
    sheet = sheets.contact_sheet(tiles)
    img = pixels(sheet.png)
    assert img.size == (sheet.width, sheet.height)
    for tile, color in zip(sheet.tiles[:3], colors, strict=True):
        x, y, w, h = tile.at
        assert img.getpixel((x + w // 2, y + h // 2)) == color
        assert tile.source == (1440, 900) and tile.crop is None
    crop = sheet.tiles[3]
    assert crop.crop == (0, 0, 40, 20) and crop.source == (1440, 900)
    # A crop is drawn larger than its source (up to twice), the mark in its left half.
    assert crop.at[2] == 80 and crop.scale == 2.0
    assert img.getpixel((crop.at[0] + 5, crop.at[1] + 5)) == (0, 0, 255)


def test_the_sight_code_is_only_pixels() -> None:
    tiles = [sheets.Tile(encoded(800, 500), "#1")]
    plain = sheets.contact_sheet(tiles)
    sighted = sheets.contact_sheet(tiles, sight_code="7K4Q")
    assert sighted.height == plain.height + sheets.SIGHT_BAND
    assert sighted.tiles[0].at[1] == plain.tiles[0].at[1] + sheets.SIGHT_BAND
    band = pixels(sighted.png).crop((0, 0, sighted.width, sheets.SIGHT_BAND))
    assert len(band.getcolors(10_000) or []) > 2  # the code's letters, antialiased
    assert "7K4Q" not in repr(sighted.tiles)


def test_sheet_text_and_tile_rectangles(snapshot: SnapshotAssertion) -> None:
    tiles = [
        sheets.Tile(encoded(1440, 900), "T1"),
        sheets.Tile(encoded(390, 844), "T2"),
        sheets.Tile(encoded(1440, 900), "T3", crop={"x": 120, "y": 80, "w": 600, "h": 300}),
    ]
    sheet = sheets.contact_sheet(tiles, sight_code="AB12")
    entries: list[dict[str, Any]] = []
    for i, tile in enumerate(sheet.tiles):
        entry = {"cardId": 400 + i, "board": "home", "cardVersion": i + 1, **tile.describe()}
        if tile.crop is not None:
            entry["vs"] = 400
        entries.append(entry)
    entries[0]["prior"] = ["spacing open", "copy\nresolved"]
    entries[1]["lint"] = []
    text = sheets.sheet_text(entries, run="rv-7", sheet=1, sheets=2)
    assert {"size": [sheet.width, sheet.height], "tiles": entries, "text": text} == snapshot


def test_image_tokens() -> None:
    assert sheets.image_tokens(750, 1) == 1
    assert sheets.image_tokens(1000, 1000) == 1334
    assert sheets.image_tokens(1440, 900) == 1600  # capped (1728 before the cap)
    assert sheets.image_tokens(800, 500) == 534
    assert sheets.image_tokens(3136, 200) == 210  # long side scaled to 1568 first
    assert sheets.image_tokens(0, 10) == 0
