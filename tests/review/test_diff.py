"""layoutkit.review.diff: the tiers, the shift filter, change boxes, the 35% share, crops."""

from __future__ import annotations

import io
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from layoutkit.errors import EngineError
from layoutkit.review import _pixelmatch as pm
from layoutkit.review import diff as rd
from layoutkit.review import images
from layoutkit.review.diff import Box, Pixels, crop_for, decode, diff_pixels, diff_png

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

WHITE = (255, 255, 255, 255)
INK = (20, 30, 40, 255)


def screen(width: int = 200, height: int = 100, colour: tuple = WHITE) -> np.ndarray:
    img = np.empty((height, width, 4), dtype=np.uint8)
    img[...] = colour
    return img


def png(img: np.ndarray, **save: object) -> bytes:
    out = io.BytesIO()
    Image.fromarray(img, "RGBA").save(out, "PNG", **save)
    return out.getvalue()


def text_like(seed: int = 1, width: int = 200, height: int = 100) -> np.ndarray:
    """Strokes of ink with grey edges, like rendered text."""
    rng = np.random.default_rng(seed)
    img = screen(width, height)
    for _ in range(40):
        x, y = int(rng.integers(2, width - 12)), int(rng.integers(2, height - 12))
        w, h = int(rng.integers(1, 3)), int(rng.integers(4, 10))
        img[y - 1 : y + h + 1, x - 1 : x + w + 1, :3] = 160
        img[y : y + h, x : x + w] = INK
    return img


# --- tiers ------------------------------------------------------------------


def test_identical_bytes_answer_before_decoding() -> None:
    data = png(text_like())
    result = diff_png(data, data)
    assert result.tier == "bytes" and result.identical and result.same_size
    assert result.size_a == (200, 100) and not result.changed and not result.boxes


def test_same_pixels_in_other_bytes_are_identical_pixels() -> None:
    img = text_like()
    a, b = png(img, compress_level=1), png(img, compress_level=9)
    assert a != b
    result = diff_png(a, b)
    assert result.tier == "pixels" and result.identical and result.share == 0


def test_an_rgb_file_equals_its_opaque_rgba_twin() -> None:
    img = text_like()
    out = io.BytesIO()
    Image.fromarray(img[..., :3], "RGB").save(out, "PNG")
    assert diff_png(png(img), out.getvalue()).tier == "pixels"


def test_a_size_change_is_reported_without_a_pixel_diff() -> None:
    result = diff_png(png(screen(200, 100)), png(screen(200, 120)))
    assert result.tier == "size" and not result.same_size
    assert (result.size_a, result.size_b) == ((200, 100), (200, 120))
    assert result.changed and result.whole_tile and result.changed_pixels == 0
    assert crop_for(result).reason == "size" and crop_for(result).whole


def test_bytes_that_are_no_image_are_refused_with_a_code() -> None:
    with pytest.raises(EngineError) as err:
        diff_png(b"not a png", png(screen()))
    assert err.value.code == "image_undecodable"
    assert err.value.fields["field"] == "a"


def test_an_image_over_the_pixel_limit_is_refused_before_decoding(monkeypatch) -> None:
    from layoutkit import limits

    monkeypatch.setitem(limits.LIMITS, "imagePixels", 100)
    with pytest.raises(EngineError) as err:
        diff_png(png(screen(20, 20)), png(screen(20, 10)))
    assert err.value.code == "limit_exceeded" and err.value.fields["limit"] == "imagePixels"


def test_threshold_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(EngineError) as err:
        diff_pixels(screen(), screen(), threshold=1.5)
    assert err.value.code == "invalid_number"


def test_decoded_arrays_and_pixels_give_the_same_result() -> None:
    a, b = text_like(1), text_like(2)
    assert diff_pixels(a, b) == diff_pixels(Pixels.from_rgba(a), Pixels.from_rgba(b))
    assert diff_pixels(a, b) == diff_png(png(a), png(b))


# --- colour tier: counts and boxes ----------------------------------------------


def test_the_count_is_pixelmatchs() -> None:
    a, b = text_like(1), text_like(2)
    result = diff_pixels(a, b)
    words = (a.reshape(-1).view("<u4"), b.reshape(-1).view("<u4"))
    expected = pm.mismatch(*words, 200, 100)
    assert result.tier == "colour"
    assert result.changed_pixels == expected.counted.size
    assert result.antialiased_pixels == expected.antialiased.size
    assert result.differing_pixels == np.count_nonzero(words[0] != words[1])


def test_a_solid_change_is_boxed_exactly() -> None:
    a = screen()
    b = a.copy()
    b[10:30, 40:90] = INK
    result = diff_pixels(a, b)
    assert result.boxes == (Box(40, 10, 50, 20, 1000),)
    assert result.share == pytest.approx(1000 / 20000)


def test_distant_changes_get_boxes_of_their_own_and_near_ones_merge() -> None:
    a = screen(400, 200)
    b = a.copy()
    b[10:20, 10:20] = INK
    b[10:20, 30:40] = INK  # 10 px away from the first: one box
    b[150:160, 300:330] = INK  # far away: a box of its own
    result = diff_pixels(a, b)
    assert [(x.x, x.y, x.width, x.height) for x in result.boxes] == [
        (10, 10, 30, 10),
        (300, 150, 30, 10),
    ]


def test_a_one_pixel_shift_of_the_same_content_is_no_change() -> None:
    a = text_like(3)
    for dx, dy in [(1, 0), (0, 1), (1, 1), (-1, 0), (0, -1)]:
        b = np.roll(a, (dy, dx), axis=(0, 1))
        result = diff_pixels(a, b)
        assert result.changed_pixels > 0  # pixelmatch sees it...
        assert result.boxes == () and result.shifted_pixels == result.changed_pixels  # ...we do not
        assert crop_for(result).reason == "unchanged"


def test_a_two_pixel_shift_is_a_change() -> None:
    a = text_like(3)
    assert diff_pixels(a, np.roll(a, 2, axis=1)).boxes


def test_a_speck_of_fewer_than_four_pixels_is_dropped() -> None:
    a = screen()
    b = a.copy()
    b[50, 50] = INK
    b[51, 50] = INK
    result = diff_pixels(a, b)
    assert result.changed_pixels == 2 and result.boxes == ()
    b[50:52, 51] = INK
    assert diff_pixels(a, b).boxes == (Box(50, 50, 2, 2, 4),)


@pytest.mark.parametrize("scan", [False, True])
def test_a_box_grows_over_counted_pixels_near_it(scan: bool) -> None:
    counted = np.array([12 * 100 + 25, 90 * 100 + 90])
    with mock.patch.object(rd, "_SCAN_ABOVE", 0 if scan else 10**9):
        boxes = rd.grow_boxes((Box(10, 10, 5, 5, 25),), counted, 100)
    assert boxes == (Box(10, 10, 16, 5, 25),)  # (25, 12) joins; (90, 90) is too far


@SETTINGS
@given(
    x=st.integers(0, 190),
    y=st.integers(0, 90),
    w=st.integers(2, 60),
    h=st.integers(2, 40),
    seed=st.integers(0, 5),
)
def test_the_count_is_symmetric_and_boxes_cover_every_real_change(
    x: int, y: int, w: int, h: int, seed: int
) -> None:
    a = text_like(seed)
    b = a.copy()
    b[y : y + h, x : x + w] = (200, 40, 40, 255)
    ab, ba = diff_pixels(a, b), diff_pixels(b, a)
    assert ab.changed_pixels == ba.changed_pixels
    words = (a.reshape(-1).view("<u4"), b.reshape(-1).view("<u4"))
    counted = pm.mismatch(*words, 200, 100).counted
    real = counted[~rd.shifted_pixels(*words, counted, 200, 100)]
    ry, rx = np.divmod(real, 200)
    covered = np.zeros(real.size, dtype=bool)
    for box in ab.boxes:
        covered |= (rx >= box.x) & (rx < box.right) & (ry >= box.y) & (ry < box.bottom)
    # What no box covers belongs to a speck: a group under MIN_PIXELS.
    specks = [g for g in rd.change_boxes(real, 200, 100, min_pixels=1) if g.pixels < rd.MIN_PIXELS]
    for px, py in zip(rx[~covered], ry[~covered], strict=True):
        assert any(g.x <= px < g.right and g.y <= py < g.bottom for g in specks)


@SETTINGS
@given(seed=st.integers(0, 50))
def test_an_image_against_itself_is_identical_and_empty(seed: int) -> None:
    a = text_like(seed)
    result = diff_pixels(a, a.copy())
    assert result.identical and result.tier == "pixels"
    assert result.boxes == () and result.share == 0 and not result.changed


@SETTINGS
@given(
    idx=st.lists(st.integers(0, 99 * 80 - 1), min_size=1, max_size=300, unique=True),
    scan=st.booleans(),
)
def test_change_boxes_cover_every_pixel_given(idx: list[int], scan: bool) -> None:
    flat = np.array(sorted(idx))
    # Both ways of bounding groups: scattered reductions, or one scan of a label image.
    with mock.patch.object(rd, "_SCAN_ABOVE", 0 if scan else 10**9):
        boxes = rd.change_boxes(flat, 99, 80, min_pixels=1)
    y, x = np.divmod(flat, 99)
    for px, py in zip(x, y, strict=True):
        assert any(b.x <= px < b.right and b.y <= py < b.bottom for b in boxes)
    assert sum(b.pixels for b in boxes) == len(idx)
    for i, one in enumerate(boxes):  # merged: no two boxes within the gap
        for other in boxes[i + 1 :]:
            assert not rd._near(one, other, rd.MERGE_GAP)


@SETTINGS
@given(
    idx=st.lists(st.integers(0, 96 * 80 - 1), min_size=1, max_size=400, unique=True),
    width=st.sampled_from([96, 99]),
)
def test_both_ways_of_bounding_groups_give_the_same_boxes(idx: list[int], width: int) -> None:
    # 96 is a whole number of cells (the scan skips a division), 99 is not.
    flat = np.array(sorted(idx))
    found = []
    for scan_above in (0, 10**9):
        with mock.patch.object(rd, "_SCAN_ABOVE", scan_above):
            found.append(rd.change_boxes(flat, width, -(-(96 * 80) // width), min_pixels=1))
    assert found[0] == found[1]


# --- the 35% share ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("columns", "over"),
    [(69, False), (70, False), (71, True)],  # 34.5%, exactly 35% (not over), 35.5%
)
def test_the_crop_threshold_is_a_share_over_35_percent_of_the_screen(
    columns: int, over: bool
) -> None:
    a = screen(200, 100)
    b = a.copy()
    b[:, 50 : 50 + columns] = INK
    result = diff_pixels(a, b)
    assert result.share == pytest.approx(columns / 200)
    assert result.over_threshold is over and result.whole_tile is over
    crop = crop_for(result)
    assert crop.whole is over
    assert crop.reason == ("over_threshold" if over else "crop")


def test_the_share_is_box_area_not_changed_pixels() -> None:
    # Thin strokes over the whole screen: few pixels, but a crop would show it all.
    a = screen(200, 100)
    b = a.copy()
    b[::6, :, :3] = 0
    result = diff_pixels(a, b)
    assert result.changed_pixels / 20000 < 0.2
    assert result.share > 0.9 and result.whole_tile


def test_overlapping_boxes_count_once_in_the_share() -> None:
    boxes = [Box(0, 0, 10, 10), Box(5, 5, 10, 10)]
    assert rd.union_area(boxes, 100, 100) == 175


# --- crops -----------------------------------------------------------------------


def test_the_crop_is_the_padded_union_of_the_boxes_on_screen() -> None:
    a = screen(400, 200)
    b = a.copy()
    b[5:15, 10:20] = INK
    b[100:120, 300:350] = INK
    result = diff_pixels(a, b)
    crop = crop_for(result)
    assert crop.reason == "crop" and not crop.whole
    assert crop.rect == Box(0, 0, 366, 136, 1100)  # padded by 16, clipped at the top left
    assert crop_for(result, pad=0).rect == Box(10, 5, 340, 115, 1100)


def test_identical_screens_need_no_crop() -> None:
    a = text_like()
    assert crop_for(diff_pixels(a, a.copy())) == rd.Crop(False, None, 0.0, "identical")


def test_result_as_dict_carries_the_decisions() -> None:
    a = screen()
    b = a.copy()
    b[10:30, 40:90] = INK
    out = diff_pixels(a, b).as_dict()
    assert out["boxes"] == [{"x": 40, "y": 10, "width": 50, "height": 20, "pixels": 1000}]
    assert out["tier"] == "colour" and out["size_a"] == [200, 100]
    assert out["changed"] and not out["over_threshold"] and not out["whole_tile"]


@pytest.mark.parametrize("mode", ["RGBA", "RGB", "L", "LA", "P", "I;16"])
def test_every_png_mode_decodes_to_pillows_rgba(mode: str) -> None:
    # RGB and RGBA take the libspng path, the other modes (and an RGB file with
    # a transparent colour) Pillow's; both must give the same words.
    rng = np.random.default_rng(7)
    img = Image.fromarray(rng.integers(0, 256, (9, 13, 4), dtype=np.uint8), "RGBA").convert(mode)
    buf = io.BytesIO()
    img.save(buf, "PNG")
    expected = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGBA"))
    assert np.array_equal(decode(buf.getvalue()).rgba(), expected)


def test_an_rgb_png_with_a_transparent_colour_keeps_it_transparent() -> None:
    rgb = np.zeros((4, 4, 3), dtype=np.uint8)
    rgb[0, 0] = (10, 20, 30)
    buf = io.BytesIO()
    Image.fromarray(rgb, "RGB").save(buf, "PNG", transparency=(10, 20, 30))
    assert decode(buf.getvalue()).rgba()[0, 0, 3] == 0


def test_a_truncated_png_is_refused_with_a_code() -> None:
    data = png(screen())
    with pytest.raises(EngineError) as err:
        diff_png(data[: len(data) // 2], data)
    assert err.value.code == "image_undecodable"


def _decoded_or_code(data: bytes, out: np.ndarray | None) -> object:
    try:
        return decode(data, out=out).words.tobytes()
    except EngineError as err:
        return err.code


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    width=st.integers(1, 300),
    height=st.integers(1, 120),
    mode=st.sampled_from(["RGBA", "RGB"]),
    save=st.sampled_from(
        [{}, {"compress_level": 0}, {"compress_level": 9}, {"optimize": True}, {"gamma": 0.5}]
    ),
    damage=st.one_of(st.none(), st.tuples(st.floats(0, 1), st.integers(1, 255))),
)
def test_decoding_into_work_buffers_gives_libspngs_pixels_or_its_error(
    seed: int, width: int, height: int, mode: str, save: dict, damage: tuple | None
) -> None:
    # The diff's decodes inflate with libdeflate and hand libspng a stored stream;
    # the pixels, and the refusal of a damaged file, must be libspng's own.
    rng = np.random.default_rng(seed)
    pixels = rng.integers(0, 4, (height, width, 4), dtype=np.uint8) * 60  # compressible
    img = Image.fromarray(pixels, "RGBA").convert(mode)
    buf = io.BytesIO()
    if "gamma" in save:
        from PIL import PngImagePlugin

        info = PngImagePlugin.PngInfo()
        info.add(b"gAMA", (50000).to_bytes(4, "big"))
        img.save(buf, "PNG", pnginfo=info)
    else:
        img.save(buf, "PNG", **save)
    data = bytearray(buf.getvalue())
    if damage is not None:
        at, flip = damage
        data[min(33 + int(at * (len(data) - 33)), len(data) - 1)] ^= flip
    data = bytes(data)
    out = np.empty((height, width, 4), dtype=np.uint8)
    assert _decoded_or_code(data, out) == _decoded_or_code(data, None)


def test_a_screenshot_in_many_image_chunks_decodes_the_same_into_work_buffers() -> None:
    import zlib

    pixels = text_like(5, 300, 200)
    data = png(pixels)
    # The same image data cut into IDAT chunks of 100 bytes (PNG writers cut theirs).
    start = data.index(b"IDAT") - 4
    length = int.from_bytes(data[start : start + 4], "big")
    stream = data[start + 8 : start + 8 + length]
    chunks = b"".join(
        len(part).to_bytes(4, "big")
        + b"IDAT"
        + part
        + zlib.crc32(b"IDAT" + part).to_bytes(4, "big")
        for part in (stream[i : i + 100] for i in range(0, len(stream), 100))
    )
    cut = data[:start] + chunks + data[start + 12 + length :]
    assert cut.count(b"IDAT") > 3
    assert images._restored(cut, 300, 200, 4) is not None
    out = np.empty((200, 300, 4), dtype=np.uint8)
    assert np.array_equal(decode(cut, out=out).rgba(), pixels)
    assert np.array_equal(decode(cut).rgba(), pixels)


def test_zlib_ng_restores_the_stream_libdeflate_restores(monkeypatch) -> None:
    # Where imagecodecs has no libdeflate, zlib-ng inflates instead.
    from imagecodecs import zlibng_crc32, zlibng_decode, zlibng_encode

    data = png(text_like(3, 300, 200))
    expected = bytes(images._restored(data, 300, 200, 4) or b"")
    assert expected
    monkeypatch.setattr(images, "_zlibng", lambda: (zlibng_decode, zlibng_encode, zlibng_crc32))
    assert bytes(images._restored(data, 300, 200, 4) or b"") == expected


def test_without_imagecodecs_pillow_decodes_everything(monkeypatch) -> None:
    data = png(screen())
    expected = decode(data).rgba().copy()
    monkeypatch.setattr(images, "_spng_decoder", lambda: None)
    assert np.array_equal(decode(data).rgba(), expected)


# --- the mask way: the same answers as the index way ------------------------------


def both_ways(a: np.ndarray, b: np.ndarray, **kw: object) -> tuple[rd.DiffResult, rd.DiffResult]:
    """``diff_pixels`` forced down the index way, then the mask way."""
    found = []
    for share in (2.0, 0.0):
        with mock.patch.object(rd, "MASK_SHARE", share):
            found.append(diff_pixels(a, b, **kw))
    return found[0], found[1]


@SETTINGS
@given(
    seed=st.integers(0, 30),
    rects=st.lists(
        st.tuples(st.integers(0, 199), st.integers(0, 99), st.integers(1, 80), st.integers(1, 50)),
        max_size=4,
    ),
    colour=st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)),
    shift=st.sampled_from([(0, 0), (0, 1), (1, 0), (1, 1), (0, 2)]),
    threshold=st.sampled_from([0.0, 0.1, 0.3]),
)
def test_the_mask_way_gives_the_index_ways_result(
    seed: int, rects: list, colour: tuple, shift: tuple, threshold: float
) -> None:
    a = text_like(seed)
    b = np.roll(text_like(seed + 1) if seed % 5 == 0 else a, shift, axis=(0, 1))
    for x, y, w, h in rects:
        b[y : y + h, x : x + w, :3] = colour
    index_way, mask_way = both_ways(a, b, threshold=threshold)
    assert mask_way == index_way
    index_way, mask_way = both_ways(a, b, include_aa=True)
    assert mask_way == index_way


@SETTINGS
@given(
    seed=st.integers(0, 30),
    shift=st.sampled_from([(0, 0), (0, 1), (1, 1)]),
    band=st.sampled_from([1, 200, 3000]),
)
def test_the_mask_way_in_bands_gives_the_index_ways_result(
    seed: int, shift: tuple, band: int
) -> None:
    a = text_like(seed)
    b = np.roll(a, shift, axis=(0, 1))
    b[20:60, 30:120, :3] = 200 - b[20:60, 30:120, :3]
    b[0, :, :3] = 90  # the top and left edges too
    b[:, 0, :3] = 90
    with mock.patch.object(pm, "MASK_BAND", band):
        index_way, mask_way = both_ways(a, b)
    assert mask_way == index_way


def test_work_buffers_serve_screens_of_any_size_one_after_another() -> None:
    # The mask way and both decodes write into per-thread buffers; screens of
    # another size, and a result held across later diffs, must not notice.
    first = diff_png(png(text_like(3)), png(np.roll(text_like(3), 1, axis=1)))
    small = text_like(4)[:50, :90]
    b = small.copy()
    b[:, :30, :3] = 90
    second = diff_png(png(np.ascontiguousarray(small)), png(b))
    again = diff_png(png(text_like(3)), png(np.roll(text_like(3), 1, axis=1)))
    assert first == again and first.changed_pixels > 0
    index_way, _ = both_ways(np.ascontiguousarray(small), b)
    assert second == index_way


def test_diffs_in_many_threads_at_once_give_each_its_own_answer() -> None:
    from concurrent.futures import ThreadPoolExecutor

    pairs = []
    for seed in range(6):
        a = text_like(seed)
        b = a.copy()
        b[:, : 40 + 10 * seed, :3] = 90
        pairs.append((png(a), png(b)))
    alone = [diff_png(a, b) for a, b in pairs]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda ab: diff_png(*ab), pairs * 4))
    assert together == alone * 4


def test_the_mask_way_is_taken_for_opaque_screens_that_mostly_differ() -> None:
    a = text_like(2)
    b = a.copy()
    b[:, :40, :3] = 90  # 20% of the screen
    with mock.patch.object(rd, "_diff_masks", wraps=rd._diff_masks) as masks:
        diff_pixels(a, b)
        assert masks.call_count == 1
        diff_pixels(a, a.copy())  # identical: nothing differs
        c = b.copy()
        c[0, 0, 3] = 200  # see-through: pixelmatch's blend, the index way
        diff_pixels(a, c)
        small = a.copy()
        small[50:60, 50:60, :3] = 90  # 0.5%
        diff_pixels(a, small)
        assert masks.call_count == 1
    assert diff_pixels(a, c) == both_ways(a, c)[0]


@SETTINGS
@given(
    seed=st.integers(0, 30),
    shift=st.sampled_from([(0, 1), (1, 0), (1, 1), (-1, -1), (0, 2)]),
    dims=st.sampled_from([(200, 100), (3, 3), (7, 40), (41, 5)]),
    band=st.sampled_from([1, 200, 1000, pm.MASK_BAND]),
    gather=st.sampled_from([0, rd._GATHER_SHARE, 10**9]),
    one_by_one=st.sampled_from([0.0, rd._ONE_BY_ONE, 2.0]),
)
def test_the_shift_test_over_masks_equals_the_one_over_indices(
    seed: int, shift: tuple, dims: tuple, band: int, gather: int, one_by_one: float
) -> None:
    # In bands of ``band`` pixels; ``gather`` 0 gathers both ways at the counted
    # pixels of every band, 10**9 sends every band through the red channel first;
    # ``one_by_one`` 0 always asks the nine offsets one at a time, 2 never.
    width, height = dims
    a = np.ascontiguousarray(text_like(seed)[:height, :width])
    b = np.roll(a, shift, axis=(0, 1))
    b[: height // 3, : width // 2, :3] = 200 - b[: height // 3, : width // 2, :3]
    words = a.reshape(-1).view("<u4"), b.reshape(-1).view("<u4")
    counted = pm.mismatch(*words, width, height).counted
    mask = np.zeros((height, width), dtype=bool)
    mask.reshape(-1)[counted] = True
    expected = counted[rd.shifted_pixels(*words, counted, width, height)]
    with (
        mock.patch.object(pm, "MASK_BAND", band),
        mock.patch.object(rd, "_GATHER_SHARE", gather),
        mock.patch.object(rd, "_ONE_BY_ONE", one_by_one),
    ):
        assert np.array_equal(np.flatnonzero(rd.shifted_mask(*words, mask)), expected)


@SETTINGS
@given(
    idx=st.lists(st.integers(0, 99 * 80 - 1), min_size=0, max_size=400, unique=True),
    width=st.sampled_from([96, 99]),
)
def test_boxes_of_a_mask_equal_boxes_of_its_indices(idx: list[int], width: int) -> None:
    height = -(-(99 * 80) // width)
    flat = np.array(sorted(idx), dtype=np.intp)
    mask = np.zeros((height, width), dtype=bool)
    mask.reshape(-1)[flat] = True
    boxes = rd.change_boxes(flat, width, height, min_pixels=1)
    assert rd.change_boxes_mask(mask, min_pixels=1) == boxes
    assert rd._grow_in_mask(boxes, mask) == rd.grow_boxes(boxes, flat, width)


@SETTINGS
@given(
    height=st.integers(1, 9),
    width=st.integers(1, 9),
    seed=st.integers(0, 1000),
)
def test_the_3x3_range_is_the_min_and_max_of_each_clamped_neighbourhood(
    height: int, width: int, seed: int
) -> None:
    pixels = np.random.default_rng(seed).integers(0, 256, (height, width, 4), dtype=np.uint8)
    low, high = rd._range3(pixels)
    for y in range(height):
        for x in range(width):
            near = pixels[max(y - 1, 0) : y + 2, max(x - 1, 0) : x + 2].reshape(-1, 4)
            assert (low[y, x] == near.min(axis=0)).all() and (high[y, x] == near.max(axis=0)).all()


@SETTINGS
@given(
    width=st.integers(1, 40),
    height=st.integers(1, 12),
    seed=st.integers(0, 2**32 - 1),
    buffer=st.booleans(),
)
def test_an_rgb_png_decodes_to_pillows_rgba_words(
    width: int, height: int, seed: int, buffer: bool
) -> None:
    # RGB files are widened to RGBA by reading each pixel as an unaligned word and
    # setting its top byte; the last pixel, which has no byte after it, on its own.
    rgb = np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(rgb, "RGB").save(out, "PNG")
    data = out.getvalue()
    expected = np.asarray(Image.open(io.BytesIO(data)).convert("RGBA"))
    into = np.empty((height, width, 4), dtype=np.uint8) if buffer else None
    assert np.array_equal(decode(data, out=into).rgba(), expected)
