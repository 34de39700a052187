"""The diff on the shared screenshot corpus: pixelmatch's counts, and the boxes a
reviewer needs (see shared/corpus/screens/README.md for what each variant is)."""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from layoutkit.review import _pixelmatch as pm
from layoutkit.review import diff as rd
from layoutkit.review.diff import CROP_SHARE, DiffResult, crop_for, decode, diff_png
from tests.review.corpus import COUNTS, SCREEN_NAMES, VARIANTS, needs_corpus, read

pytestmark = needs_corpus

PAIRS = [(s, v) for s in SCREEN_NAMES for v in VARIANTS]


@functools.cache
def result(screen: str, variant: str) -> DiffResult:
    return diff_png(read(screen, "base"), read(screen, variant))


def test_every_variant_in_the_corpus_is_covered() -> None:
    from tests.review.corpus import SCREENS

    found = {p.stem for p in SCREENS.glob("*__*.png")} - {f"{s}__base" for s in SCREEN_NAMES}
    assert found == {f"{s}__{v}" for s, v in PAIRS}
    assert set(COUNTS["counts"]) | set(COUNTS["sizes"]) == found


@pytest.mark.parametrize(("screen", "variant"), PAIRS)
def test_the_changed_pixel_count_is_pixelmatch_7s(screen: str, variant: str) -> None:
    # The counts were recorded by running pixelmatch 7.2.0 itself (node, see the
    # "how" field of pixelmatch_counts.json and benches/anchors/pixelmatch_anchor.mjs).
    key = f"{screen}__{variant}"
    got = result(screen, variant)
    if key in COUNTS["sizes"]:
        assert got.tier == "size"
        assert [list(got.size_a), list(got.size_b)] == COUNTS["sizes"][key]
    else:
        assert got.changed_pixels == COUNTS["counts"][key]


@pytest.mark.parametrize("screen", SCREEN_NAMES)
def test_identical_and_reencoded_screens_stop_early(screen: str) -> None:
    assert result(screen, "identical").tier == "bytes"
    assert result(screen, "reencode").tier == "pixels"
    assert crop_for(result(screen, "reencode")).reason == "identical"


@pytest.mark.parametrize("screen", SCREEN_NAMES)
@pytest.mark.parametrize("variant", ["aa_mild", "aa_subpx", "shift1px", "reencode"])
def test_anti_aliasing_and_one_pixel_shifts_box_at_most_a_tenth(screen: str, variant: str) -> None:
    got = result(screen, variant)
    width, height = got.size_b
    assert sum(b.area for b in got.boxes) <= 0.10 * width * height
    assert got.share <= 0.10 and not got.whole_tile


# Where each real change is (x0, y0, x1, y1): the bounding box of the RGBA words
# that differ in each region, read off the corpus images. The boxes over it
# must match it to within the 2-pixel fringe of anti-aliased edges, which
# pixelmatch does not count.
REAL_CHANGES = {
    ("desk", "label"): [(1337, 99, 1375, 110)],
    ("desk", "photo5"): [(1068, 342, 1388, 542)],
    ("desk", "table20"): [(292, 632, 1271, 900)],
    ("phone", "label"): [(55, 257, 119, 271)],
    ("phone", "photo5"): [(230, 160, 358, 288)],
    ("phone", "table20"): [(29, 327, 358, 468)],
}


@pytest.mark.parametrize(("screen", "variant"), sorted(REAL_CHANGES))
def test_each_real_change_gets_a_box_and_a_crop(screen: str, variant: str) -> None:
    got = result(screen, variant)
    assert got.boxes and got.changed and not got.whole_tile
    for x0, y0, x1, y1 in REAL_CHANGES[screen, variant]:
        inside = [b for b in got.boxes if b.x < x1 and x0 < b.right and b.y < y1 and y0 < b.bottom]
        assert inside, f"no box over {(x0, y0, x1, y1)}"
        left, top = min(b.x for b in inside), min(b.y for b in inside)
        right, bottom = max(b.right for b in inside), max(b.bottom for b in inside)
        found = (left, top, right, bottom)
        assert max(abs(f - e) for f, e in zip(found, (x0, y0, x1, y1), strict=True)) <= 2, found
    crop = crop_for(got)
    assert crop.reason == "crop" and crop.rect is not None


@pytest.mark.parametrize("screen", SCREEN_NAMES)
def test_a_size_change_is_its_own_tile(screen: str) -> None:
    got = result(screen, "size")
    assert got.tier == "size" and not got.same_size and got.whole_tile


@pytest.mark.parametrize("screen", SCREEN_NAMES)
@pytest.mark.parametrize("variant", ["theme", "scroll40"])
def test_theme_and_scroll_changes_are_over_35_percent(screen: str, variant: str) -> None:
    got = result(screen, variant)
    assert got.share > CROP_SHARE and got.over_threshold and got.whole_tile
    assert crop_for(got).reason == "over_threshold"


@pytest.mark.parametrize("variant", ["label", "photo5", "table20"])
def test_change_boxes_snapshot(variant: str, snapshot) -> None:
    assert [b.as_dict() for b in result("phone", variant).boxes] == snapshot


def test_decoding_gives_rgba_words_of_the_screen() -> None:
    pixels = decode(read("desk", "reencode"))  # an RGB file
    assert pixels.size == (1440, 900) and pixels.words.size == 1440 * 900
    assert (pixels.rgba()[..., 3] == 255).all()


@pytest.mark.parametrize("name", ["base", *VARIANTS])
@pytest.mark.parametrize("screen", SCREEN_NAMES)
def test_the_fast_png_decoder_gives_pillows_pixels(screen: str, name: str) -> None:
    # decode() takes 8-bit RGB and RGBA PNGs through libspng; the words must be
    # exactly those of Pillow's RGBA conversion, the reference every count rests on.
    import io

    import numpy as np
    from PIL import Image

    data = read(screen, name)
    expected = np.asarray(Image.open(io.BytesIO(data)).convert("RGBA"))
    assert np.array_equal(decode(data).rgba(), expected)


@pytest.mark.parametrize(
    ("screen", "variant"), [p for p in PAIRS if p[1] not in ("size", "identical")]
)
def test_the_mask_way_and_the_index_way_agree_on_the_corpus(screen: str, variant: str) -> None:
    # diff_pixels picks a way by how much differs; both must give one answer.
    from unittest import mock

    from layoutkit.review import diff as rd

    a, b = decode(read(screen, "base")), decode(read(screen, variant))
    found = []
    for share in (2.0, 0.0):
        with mock.patch.object(rd, "MASK_SHARE", share):
            found.append(rd.diff_pixels(a, b))
    assert found[0] == found[1]
    assert found[1].changed_pixels == COUNTS["counts"][f"{screen}__{variant}"]


# --- the answers do not move when the diff gets faster ----------------------

ANSWERS = json.loads(Path(__file__).with_name("diff_answers.json").read_text("utf-8"))


def _sha1(values: np.ndarray) -> str:
    return hashlib.sha1(values.tobytes()).hexdigest()


@pytest.mark.parametrize(("screen", "variant"), PAIRS)
def test_results_and_crops_are_those_recorded_before_the_speed_work(
    screen: str, variant: str
) -> None:
    # diff_answers.json holds what main computed before the diff was banded and
    # given work buffers (its "how" says how): every field of the result, the
    # crop, and the index way's counted and shifted pixels.
    key = f"{screen}__{variant}"
    expected = dict(ANSWERS["results"][key])
    got = result(screen, variant)
    crop = crop_for(got)
    found = got.as_dict()
    found["crop"] = {
        "whole": crop.whole,
        "rect": crop.rect.as_dict() if crop.rect else None,
        "reason": crop.reason,
    }
    hashes = {k: expected.pop(k) for k in ("counted_sha1", "shifted_sha1") if k in expected}
    assert json.loads(json.dumps(found)) == expected
    if hashes:
        a, b = decode(read(screen, "base")), decode(read(screen, variant))
        width, height = a.size
        counted = pm.mismatch(a.words, b.words, width, height).counted
        shifted = counted[rd.shifted_pixels(a.words, b.words, counted, width, height)]
        assert _sha1(counted.astype("<i8")) == hashes["counted_sha1"]
        assert _sha1(shifted.astype("<i8")) == hashes["shifted_sha1"]


@pytest.mark.parametrize("threshold", [0.1, 0.05])
@pytest.mark.parametrize(("screen", "variant"), PAIRS)
def test_the_mask_ways_masks_are_those_recorded_before_the_speed_work(
    screen: str, variant: str, threshold: float
) -> None:
    key = f"{screen}__{variant}@{threshold}"
    if key not in ANSWERS["masks"]:
        pytest.skip("a size change has no masks")
    a, b = decode(read(screen, "base")), decode(read(screen, variant))
    width, height = a.size
    found = pm.mismatch_masks(a.words, b.words, width, height, threshold)
    shifted = rd.shifted_mask(a.words, b.words, found.counted)
    packed = [np.packbits(m) for m in (found.counted, found.antialiased, shifted)]
    assert [found.differing, *map(_sha1, packed), int(shifted.sum())] == ANSWERS["masks"][key]


@pytest.mark.parametrize("variant", ["shift1px", "scroll40", "theme", "table20"])
@pytest.mark.parametrize("screen", SCREEN_NAMES)
def test_the_shift_search_gives_one_answer_however_it_asks_the_offsets(
    screen: str, variant: str
) -> None:
    # The shift search asks the nine offsets one at a time when one of them
    # explains most of a sample (a move), else all at once (a theme change): the
    # shifted pixels must not depend on which, nor on the red test that sets most
    # of a dense band aside first (``_GATHER_SHARE``).
    from unittest import mock

    a, b = decode(read(screen, "base")), decode(read(screen, variant))
    width, height = a.size
    counted = pm.mismatch_masks(a.words, b.words, width, height).counted.copy()
    found = []
    for one_by_one, gather in ((rd._ONE_BY_ONE, rd._GATHER_SHARE), (0.0, 0), (2.0, 10**9)):
        with (
            mock.patch.object(rd, "_ONE_BY_ONE", one_by_one),
            mock.patch.object(rd, "_GATHER_SHARE", gather),
        ):
            found.append(np.flatnonzero(rd.shifted_mask(a.words, b.words, counted)))
    index = np.flatnonzero(counted)
    expected = index[rd.shifted_pixels(a.words, b.words, index, width, height)]
    for got in found:
        assert np.array_equal(got, expected)
