"""The vectorised port counts what pixelmatch 7 counts.

Checked against ``reference.py`` (index.js transliterated into loops) on
generated images, through both ways the port computes neighbourhoods: gathered
pixel by pixel (sparse) and sliced from windows (dense).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit.review import _pixelmatch as pm
from tests.review import reference

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# A few flat colours make the equal siblings the anti-aliasing test looks for;
# greys between them make edges that look anti-aliased; some are see-through.
PALETTE = [
    (255, 255, 255, 255),
    (0, 0, 0, 255),
    (30, 90, 200, 255),
    (128, 128, 128, 255),
    (200, 200, 200, 255),
    (60, 60, 60, 255),
    (255, 0, 0, 128),
    (0, 0, 0, 0),
]


@contextmanager
def mode(name: str) -> Iterator[None]:
    """Force every neighbourhood to be gathered (sparse) or sliced from a window (dense)."""
    if name == "sparse":
        with mock.patch.object(pm, "_FEW", 10**9):
            yield
    else:
        with mock.patch.object(pm, "_FEW", 0), mock.patch.object(pm, "_DENSE", 10**9):
            yield


@st.composite
def image_pairs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    width = draw(st.integers(1, 14))
    height = draw(st.integers(1, 10))
    colour = st.sampled_from(PALETTE) | st.tuples(
        st.integers(0, 255), st.integers(0, 255), st.integers(0, 255), st.just(255)
    )
    base = draw(st.sampled_from(PALETTE[:3]))
    a = np.empty((height, width, 4), dtype=np.uint8)
    a[...] = base
    for _ in range(draw(st.integers(0, 6))):  # rectangles of flat colour
        x, y = draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1))
        a[y : y + draw(st.integers(1, 5)), x : x + draw(st.integers(1, 5))] = draw(colour)
    b = a.copy()
    for _ in range(draw(st.integers(0, 12))):  # scattered pixel changes
        x, y = draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1))
        b[y, x] = draw(colour)
    if draw(st.booleans()):  # and perhaps a shifted copy of a region
        b[1:, 1:] = a[:-1, :-1]
    return a, b


def count(a: np.ndarray, b: np.ndarray, **kw: object) -> int:
    h, w = a.shape[:2]
    a32 = a.reshape(-1).view("<u4")
    b32 = b.reshape(-1).view("<u4")
    return int(pm.mismatch(a32, b32, w, h, **kw).counted.size)  # type: ignore[arg-type]


@pytest.mark.parametrize("how", ["sparse", "dense"])
@SETTINGS
@given(pair=image_pairs(), threshold=st.sampled_from([0.0, 0.05, 0.1, 0.3]))
def test_count_equals_the_reference(how: str, pair: tuple, threshold: float) -> None:
    a, b = pair
    h, w = a.shape[:2]
    expected = reference.pixelmatch(a.tobytes(), b.tobytes(), w, h, threshold)
    with mode(how):
        assert count(a, b, threshold=threshold) == expected


@SETTINGS
@given(pair=image_pairs())
def test_count_with_anti_aliasing_included_equals_the_reference(pair: tuple) -> None:
    a, b = pair
    h, w = a.shape[:2]
    expected = reference.pixelmatch(a.tobytes(), b.tobytes(), w, h, include_aa=True)
    assert count(a, b, include_aa=True) == expected


@SETTINGS
@given(pair=image_pairs())
def test_count_is_symmetric(pair: tuple) -> None:
    a, b = pair
    assert count(a, b) == count(b, a)


def test_colour_delta_matches_the_reference_on_every_palette_pair() -> None:
    colours = np.array(PALETTE, dtype=np.uint8)
    words = colours.reshape(-1).view("<u4")
    for i, ci in enumerate(colours):
        for j, cj in enumerate(colours):
            got = pm.colour_delta(words[i : i + 1], words[j : j + 1])[0]
            assert got == reference.colour_delta(ci.tobytes(), cj.tobytes(), 0, 0)


def test_the_largest_delta_stays_under_pixelmatchs_maximum() -> None:
    # 35215 bounds the YIQ delta over all colours; the extremes sit at the cube's corners.
    corners = np.array(
        [(r, g, b, 255) for r in (0, 255) for g in (0, 255) for b in (0, 255)], dtype=np.uint8
    )
    words = corners.reshape(-1).view("<u4")
    deltas = np.abs(pm.colour_delta(np.repeat(words, 8), np.tile(words, 8)))
    assert 35000 < deltas.max() <= pm.MAX_YIQ_DELTA


def test_threshold_sets_the_largest_equal_delta() -> None:
    assert pm.max_delta(0.1) == pytest.approx(352.15)
    a = np.full((1, 1, 4), 200, dtype=np.uint8)
    a[..., 3] = 255
    b = a.copy()
    b[0, 0, :3] = 180  # a grey step: delta 0.5053 * 20² ≈ 202
    assert count(a, b, threshold=0.1) == 0
    assert count(a, b, threshold=0.07) == 1


def test_transparent_pixels_blend_with_white() -> None:
    clear = np.zeros((1, 1, 4), dtype=np.uint8)
    white = np.full((1, 1, 4), 255, dtype=np.uint8)
    black = np.array([[[0, 0, 0, 255]]], dtype=np.uint8)
    assert count(clear, white) == 0
    assert count(clear, black) == 1


def test_an_anti_aliased_edge_pixel_is_not_counted_unless_asked() -> None:
    # A black block on white; in b one edge pixel turns grey, as a renderer's
    # anti-aliasing would draw it: both darker and brighter flat neighbours.
    a = np.full((7, 7, 4), 255, dtype=np.uint8)
    a[:, 4:, :3] = 0
    b = a.copy()
    b[3, 3, :3] = 128
    assert count(a, b) == 0
    assert count(a, b, include_aa=True) == 1


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    spread=st.integers(1, 255),
    threshold=st.sampled_from([0.0, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0]),
)
def test_the_integer_pre_test_sets_aside_only_pairs_that_cannot_count(
    seed: int, spread: int, threshold: float
) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 256, (4000, 4), dtype=np.int64)
    b = np.clip(a + rng.integers(-spread, spread + 1, a.shape), 0, 255)
    a[:, 3] = b[:, 3] = 255
    wa = a.astype(np.uint8).reshape(-1).view("<u4")
    wb = b.astype(np.uint8).reshape(-1).view("<u4")
    where = np.arange(wa.size)
    limit = pm.max_delta(threshold)
    expected = where[np.abs(pm.colour_delta(wa, wb)) > limit]
    assert np.array_equal(pm._over(wa, wb, where, limit)[0], expected)
    assert np.array_equal(pm._over(wa, wb, where, limit, pretest=False)[0], expected)


@pytest.mark.parametrize("threshold", [0.0, 0.05, 0.1, 0.2])
def test_the_integer_bounds_agree_with_the_float_delta_on_every_step_near_them(
    threshold: float,
) -> None:
    # Every opaque step (dr, dg, db) in a cube around the two integer bounds
    # (nothing can count at or below one, everything counts above the other):
    # the pre-test's answer is the float delta's on each of them.
    span = np.arange(-100, 101, dtype=np.int64)
    dr, dg, db = (g.ravel() for g in np.meshgrid(span, span, span, indexing="ij"))
    a = np.full((dr.size, 4), 255, dtype=np.int64)
    a[:, :3] = 127
    b = a.copy()
    b[:, 0] += dr
    b[:, 1] += dg
    b[:, 2] += db
    wa = a.astype(np.uint8).reshape(-1).view("<u4")
    wb = b.astype(np.uint8).reshape(-1).view("<u4")
    where = np.arange(wa.size)
    limit = pm.max_delta(threshold)
    expected = where[np.abs(pm.colour_delta(wa, wb)) > limit]
    assert np.array_equal(pm._over(wa, wb, where, limit)[0], expected)


# --- the mask way (opaque pairs where much differs) -------------------------------


def opaque_pair(pair: tuple) -> tuple[np.ndarray, np.ndarray] | None:
    """The pair with every alpha set to 255, or None when it is under 3×3 (which the
    mask way does not take)."""
    a, b = (img.copy() for img in pair)
    if min(a.shape[:2]) < 3:
        return None
    a[..., 3] = b[..., 3] = 255
    return a, b


@SETTINGS
@given(
    pair=image_pairs(),
    threshold=st.sampled_from([0.0, 0.05, 0.1, 0.3, 1.0]),
    band=st.sampled_from([1, 14, 28, 42, pm.MASK_BAND]),
)
def test_the_mask_way_equals_the_reference_and_the_index_way(
    pair: tuple, threshold: float, band: int
) -> None:
    # ``band`` pixels per band: 1 is a band per row; the default is one band here.
    found = opaque_pair(pair)
    if found is None:
        return
    a, b = found
    h, w = a.shape[:2]
    a32, b32 = a.reshape(-1).view("<u4"), b.reshape(-1).view("<u4")
    with mock.patch.object(pm, "MASK_BAND", band):
        masks = pm.mismatch_masks(a32, b32, w, h, threshold)
    indices = pm.mismatch(a32, b32, w, h, threshold)
    assert int(masks.counted.sum()) == reference.pixelmatch(
        a.tobytes(), b.tobytes(), w, h, threshold
    )
    assert masks.differing == indices.differing.size
    assert np.array_equal(np.flatnonzero(masks.counted), indices.counted)
    assert np.array_equal(np.flatnonzero(masks.antialiased), indices.antialiased)
    with mock.patch.object(pm, "MASK_BAND", band):
        with_aa = pm.mismatch_masks(a32, b32, w, h, threshold, include_aa=True)
    assert np.array_equal(
        np.flatnonzero(with_aa.counted), np.union1d(indices.counted, indices.antialiased)
    )


@settings(max_examples=300, deadline=None)
@given(
    width=st.integers(1, 9),
    height=st.integers(1, 9),
    rows=st.data(),
    seed=st.integers(0, 2**32 - 1),
)
def test_equal_neighbours_of_whole_rows_count_as_pixelmatch_does(
    width: int, height: int, rows: st.DataObject, seed: int
) -> None:
    # Few colours, so that equal neighbours are common.
    img = np.random.default_rng(seed).integers(0, 2, width * height).astype(np.uint32)
    y0 = rows.draw(st.integers(0, height - 1))
    y1 = rows.draw(st.integers(y0 + 1, height))
    got = pm.WindowHood(y0, y1, 0, width, width, height).equal_neighbours(img)
    grid = img.reshape(height, width)
    for y in range(y0, y1):
        for x in range(width):
            near = [
                grid[y + dy, x + dx] == grid[y, x]
                for dx, dy in pm._NEIGHBOURS
                if 0 <= y + dy < height and 0 <= x + dx < width
            ]
            outside = x in (0, width - 1) or y in (0, height - 1)
            assert got[y - y0, x] == sum(near) + outside


def test_the_mask_way_refuses_what_it_cannot_take() -> None:
    a = np.full((4, 4, 4), 255, dtype=np.uint8)
    b = a.copy()
    b[0, 0, 3] = 128
    words = a.reshape(-1).view("<u4"), b.reshape(-1).view("<u4")
    with pytest.raises(ValueError):
        pm.mismatch_masks(*words, 4, 4)  # see-through
    with pytest.raises(ValueError):
        pm.mismatch_masks(words[0][:8], words[0][:8], 4, 2)  # under 3×3


def test_luma_keys_order_brightness_deltas_exactly_as_pixelmatchs_floats() -> None:
    # No two colours share a key: no nonzero channel steps within ±510 weigh to 0.
    weights = np.array(pm._LUMA, dtype=np.int64)
    steps = np.arange(-510, 511, dtype=np.int64)
    r, g = np.meshgrid(steps, steps, indexing="ij")
    partial = weights[0] * r + weights[1] * g
    b = np.rint(-partial / weights[2]).astype(np.int64)
    zero = (np.abs(b) <= 510) & (partial + weights[2] * b == 0) & ((r != 0) | (g != 0))
    assert not zero.any()
    # And the float delta has the sign of the key step for every step within ±255
    # (so it is 0 exactly when the colours are equal); orders follow, as a key step
    # of 1 weighs 10⁻⁸ and the float sum errs by under 10⁻¹³.
    half = np.arange(-255, 256, dtype=np.int64)
    g2, b2 = np.meshgrid(half, half, indexing="ij")
    for dr in range(-255, 256):
        floats = pm._brightness(np.float64(dr), g2.astype(np.float64), b2.astype(np.float64))
        keys = weights[0] * dr + weights[1] * g2 + weights[2] * b2
        assert np.array_equal(np.sign(floats), np.sign(keys))


def test_luma_key_is_the_weighted_sum_of_each_words_channels() -> None:
    colours = np.array(PALETTE, dtype=np.uint8)
    keys = pm.luma_key(colours.reshape(-1).view("<u4"))
    expected = [
        sum(w * int(c) for w, c in zip(pm._LUMA, colour[:3], strict=True)) for colour in colours
    ]
    assert keys.tolist() == expected


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.sampled_from([1, 5, 4096, pm._FLOAT_RUN]),
    spread=st.sampled_from([3, 40, 255]),
)
def test_the_opaque_delta_is_the_colour_deltas_size_bit_for_bit(
    seed: int, n: int, spread: int
) -> None:
    # The mask way's float work (in work buffers, steps made float64 once) must
    # round exactly as colour_delta does: a count hangs on its last bit at the
    # threshold. ``spread``: how far the second colour's channels stray.
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 256, (n, 4), dtype=np.int16)
    b = np.clip(a + rng.integers(-spread, spread + 1, (n, 4)), 0, 255)
    a[:, 3] = b[:, 3] = 255
    wa = a.astype(np.uint8).reshape(-1).view("<u4")
    wb = b.astype(np.uint8).reshape(-1).view("<u4")
    expected = np.abs(pm.colour_delta(wa, wb))
    assert pm._opaque_delta(wa, wb).view(np.int64).tolist() == expected.view(np.int64).tolist()


@SETTINGS
@given(
    height=st.integers(1, 8),
    width=st.integers(1, 8),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_dilation_is_the_or_of_each_clamped_3x3_neighbourhood(
    height: int, width: int, seed: int
) -> None:
    mask = np.random.default_rng(seed).random((height, width)) < 0.2
    got = pm._dilate(mask)
    for y in range(height):
        for x in range(width):
            assert got[y, x] == mask[max(y - 1, 0) : y + 2, max(x - 1, 0) : x + 2].any()
