"""Annotation regions: the three forms, the small-overshoot clamp, text matching, the
duplicate overlap and the image basis (pure engine: layoutkit.review.regions)."""

from __future__ import annotations

import io
import math

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from layoutkit import render
from layoutkit.review import regions
from layoutkit.review.regions import Rect, TextIndex

SIZES = st.integers(min_value=1, max_value=5000)
FRACTION = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
SHARE = st.floats(min_value=1e-6, max_value=1.0, allow_nan=False)


@given(SIZES, SIZES, FRACTION, FRACTION, SHARE, SHARE)
def test_normalized_and_pixels_round_trip(
    width: int, height: int, nx: float, ny: float, nw: float, nh: float
) -> None:
    rect = regions.to_pixels(nx, ny, nw, nh, width, height)
    back = regions.to_normalized(rect, width, height)
    assert back == pytest.approx({"nx": nx, "ny": ny, "nw": nw, "nh": nh}, rel=1e-9, abs=1e-12)
    again = regions.to_pixels(*back.values(), width, height)
    assert (again.x, again.y, again.w, again.h) == pytest.approx(
        (rect.x, rect.y, rect.w, rect.h), rel=1e-9, abs=1e-9
    )


COORD = st.floats(min_value=-3000, max_value=3000, allow_nan=False)
EXTENT = st.floats(min_value=0.5, max_value=3000, allow_nan=False)


@settings(max_examples=300)
@given(st.integers(1, 2000), st.integers(1, 2000), COORD, COORD, EXTENT, EXTENT)
def test_clamping_keeps_regions_mostly_inside_and_refuses_the_rest(
    width: int, height: int, x: float, y: float, w: float, h: float
) -> None:
    got = regions.clamp(Rect(x, y, w, h), width, height)
    inside = max(0.0, min(x + w, width) - max(x, 0)) * max(0.0, min(y + h, height) - max(y, 0))
    share_out = 1 - inside / (w * h)
    assert got.outside == pytest.approx(max(share_out, 0.0), abs=1e-9)
    if got.status == "out_of_bounds":
        assert share_out > regions.SMALL_OVERSHOOT - 1e-9
        assert got.error is not None and got.error["code"] == "out_of_bounds"
        return
    assert got.status == "ok" and got.rect is not None
    assert share_out <= regions.SMALL_OVERSHOOT + 1e-9
    r = got.rect
    assert r.x >= 0 and r.y >= 0 and r.x + r.w <= width + 1e-9 and r.y + r.h <= height + 1e-9
    # Clamping only cuts away what lay outside: the part inside is kept whole.
    assert r.area == pytest.approx(inside, rel=1e-9, abs=1e-9)
    assert got.clamped == (x < 0 or y < 0 or x + w > width or y + h > height)


@pytest.mark.parametrize(
    ("rect", "edge"),
    [
        (Rect(-50, 10, 100, 20), "left"),
        (Rect(150, 10, 100, 20), "right"),
        (Rect(10, -10, 100, 20), "top"),
        (Rect(10, 90, 100, 20), "bottom"),
    ],
)
def test_the_small_overshoot_edge_is_half_the_area(rect: Rect, edge: str) -> None:
    """A 200x100 picture: exactly half of the region outside is still clamped; a
    hundredth of a pixel more is mostly outside."""
    at_edge = regions.clamp(rect, 200, 100)
    assert (at_edge.status, at_edge.clamped, at_edge.outside) == ("ok", True, 0.5), edge
    assert at_edge.rect is not None and at_edge.rect.area == rect.area / 2
    dx = {"left": -0.01, "right": 0.01, "top": 0, "bottom": 0}[edge]
    dy = {"left": 0, "right": 0, "top": -0.01, "bottom": 0.01}[edge]
    past = regions.clamp(attrs.evolve(rect, x=rect.x + dx, y=rect.y + dy), 200, 100)
    assert past.status == "out_of_bounds", edge
    assert past.error is not None and past.error["outside"] > 0.5


def test_a_region_wholly_outside_is_out_of_bounds() -> None:
    got = regions.resolve({"x": 500, "y": 500, "w": 10, "h": 10}, 200, 100)
    assert got.status == "out_of_bounds" and got.outside == 1.0


def test_normalized_regions_that_are_no_fractions_are_unresolved() -> None:
    assert regions.resolve({"nx": 0.1, "ny": 0.1, "nw": 0.2, "nh": 0.2}, 200, 100).rect == Rect(
        20, 10, 40, 20
    )
    for bad in (
        {"nx": 1.5, "ny": 0, "nw": 0.1, "nh": 0.1},
        {"nx": 0, "ny": -0.1, "nw": 0.1, "nh": 0.1},
        {"nx": 0, "ny": 0, "nw": 0, "nh": 0.1},
        {"nx": 0, "ny": 0, "nw": 0.1, "nh": 1.2},
    ):
        got = regions.resolve(bad, 200, 100)
        assert got.status == "unresolved" and got.error["code"] == "not_a_fraction", bad
    # A fraction running past the far edge follows the clamp rule like pixels do.
    over = regions.resolve({"nx": 0.8, "ny": 0, "nw": 0.3, "nh": 0.5}, 200, 100)
    assert over.status == "ok" and over.clamped and over.rect == Rect(160, 0, 40, 50)
    unknown = regions.resolve({"nx": 0, "ny": 0, "nw": 0.1, "nh": 0.1}, None, None)
    assert unknown.status == "unresolved" and unknown.error["code"] == "unknown_size"


def test_a_region_is_exactly_one_form() -> None:
    with pytest.raises(regions.RegionError) as err:
        regions.region_form({"x": 1, "y": 1, "w": 2, "h": 2, "text": "a"})
    assert err.value.code == "invalid_region"
    with pytest.raises(regions.RegionError) as err:
        regions.region_form({"x": 1, "y": 1})
    assert err.value.fields["missing"] == ["h", "w"]
    with pytest.raises(regions.RegionError):
        regions.region_form({"nth": 1})
    assert regions.region_form({"text": "a", "nth": 0}) == "text"


@attrs.frozen
class Line:
    run: int
    line: int
    text: str
    x: float
    y: float
    w: float
    h: float


def test_text_matches_exactly_and_duplicates_need_nth_in_reading_order() -> None:
    index = TextIndex.of(
        [
            Line(0, 0, "Save", 300, 10, 40, 20),
            Line(1, 0, "Save", 10, 10, 40, 20),  # same row, further left: nth 0
            Line(2, 0, "Cancel", 10, 50, 60, 20),
            Line(3, 0, "Terms of", 10, 90, 70, 20),
            Line(3, 1, "service", 10, 110, 60, 20),
        ]
    )
    ambiguous = index.find("Save", None)
    assert ambiguous.status == "unresolved" and ambiguous.error["code"] == "ambiguous_text"
    assert [m["x"] for m in ambiguous.error["matches"]] == [10, 300]
    assert index.find("Save", 0).rect == Rect(10, 10, 40, 20)
    assert index.find("Save", 1).rect == Rect(300, 10, 40, 20)
    beyond = index.find("Save", 2)
    assert beyond.error["code"] == "nth_out_of_range" and beyond.error["count"] == 2
    assert index.find("Cancel", None).rect == Rect(10, 50, 60, 20)
    # A run wrapped on two lines reads as its lines joined by a space, boxed whole;
    # each of its lines is a text of its own.
    assert index.find("Terms of service", None).rect == Rect(10, 90, 70, 40)
    assert index.find("service", None).rect == Rect(10, 110, 60, 20)
    case = index.find("cancel", None)
    assert case.status == "unresolved" and case.error["didYouMean"] == ["Cancel"]
    assert index.find("Cancel ", None).error["code"] == "text_not_found"
    assert index.find("Canc", None).status == "unresolved"  # no substring matches


def test_text_regions_need_text_boxes() -> None:
    got = regions.resolve({"text": "Save"}, 200, 100, None)
    assert got.status == "unresolved" and got.error["code"] == "no_text_boxes"


def test_restating_is_overlap_by_half_the_smaller_region() -> None:
    big = Rect(0, 0, 100, 100)
    assert regions.restates(big, Rect(90, 0, 20, 10))  # half of the small one inside
    assert not regions.restates(big, Rect(90.01, 0, 20, 10))
    assert regions.overlap_share(Rect(0, 0, 10, 10), Rect(20, 20, 5, 5)) == 0.0


def test_basis_mismatch_names_both_sizes_and_the_ratio() -> None:
    assert regions.basis_mismatch({"width": 640, "height": 400}, 640, 400) is None
    scaled = regions.basis_mismatch({"width": 800, "height": 500}, 1600, 1000)
    assert scaled is not None
    assert scaled["declared"] == {"width": 800, "height": 500}
    assert scaled["actual"] == {"width": 1600, "height": 1000}
    assert scaled["ratio"] == {"x": 2.0, "y": 2.0} and scaled["uniform"] is True
    skewed = regions.basis_mismatch({"width": 100, "height": 100}, 150, 50)
    assert skewed is not None and skewed["ratio"] == {"x": 1.5, "y": 0.5}
    assert skewed["uniform"] is False


def _ink(png: bytes, rect: dict[str, float]) -> float:
    """The darkest pixel's darkness (0 to 255) inside ``rect`` of a picture."""
    img = np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=np.int32)
    x0, y0 = int(rect["x"]), int(rect["y"])
    x1, y1 = int(rect["x"] + rect["w"] + 0.999), int(rect["y"] + rect["h"] + 0.999)
    return float(255 - img[y0:y1, x0:x1].min()) if x1 > x0 and y1 > y0 else 0.0


@pytest.mark.parametrize("height", [200.0, 6000.0])  # drawn at 1:1, and scaled down
def test_text_boxes_land_on_the_drawn_text(height: float) -> None:
    """Each line box of a face covers ink of the PNG render_card draws, and the strip
    of the face right of it (past the longest line) has none."""
    card = {
        "kind": "checklist",
        "payload": {"title": "Release", "items": [{"text": "Ship it"}, {"text": "Tell them"}]},
        "w": 320.0,
        "h": height,
    }
    max_dim = min(4096, int(max(320.0, height)))
    png = render.render_card(card, format="png", max_dim=max_dim)
    assert isinstance(png, bytes)
    size = Image.open(io.BytesIO(png)).size
    assert render.card_png_size(card, max_dim=max_dim) == size
    lines = {ln.text: ln for ln in render.card_text_lines(card, max_dim=max_dim)}
    assert {"Release", "Ship it", "Tell them"} <= set(lines)
    for text in ("Release", "Ship it", "Tell them"):
        box = lines[text]
        rect = {"x": box.x, "y": box.y, "w": box.w, "h": box.h}
        assert _ink(png, rect) > 120, text
        right = {"x": box.x + box.w + 4 * box.h, "y": box.y, "w": box.h, "h": box.h}
        assert _ink(png, right) < 60, text


@pytest.mark.parametrize("size", [(320.5, 200.4), (4999.7, 120.0), (90.0, 8000.2), (1.0, 1.0)])
def test_the_picture_size_is_known_without_drawing(size: tuple[float, float]) -> None:
    """What annotate measures regions against is the size get_card_image draws."""
    w, h = size
    card = {"kind": "text", "payload": {"md": "Hello"}, "w": w, "h": h}
    max_dim = min(4096, math.ceil(max(w, h)))
    png = render.render_card(card, format="png", max_dim=max_dim)
    assert isinstance(png, bytes)
    assert render.card_png_size(card, max_dim=max_dim) == Image.open(io.BytesIO(png)).size


LABELS = st.lists(st.sampled_from(["Save", "Cancel", "Sign in", "Sign out", "OK"]), max_size=8)


@settings(max_examples=40, deadline=None)
@given(LABELS)
def test_every_drawn_label_resolves_and_repeats_need_nth_in_row_order(labels: list[str]) -> None:
    """On a checklist face, a label drawn n times resolves only with nth, and nth 0..n-1
    walk down the rows that draw it."""
    card = {
        "kind": "checklist",
        "payload": {"title": "Steps", "items": [{"text": t} for t in labels]},
        "w": 320.0,
        "h": 80.0 + 28.0 * len(labels),
    }
    index = TextIndex.of(render.card_text_lines(card, max_dim=4096))
    for label in set(labels):
        n = labels.count(label)
        alone = index.find(label, None)
        if n == 1:
            assert alone.status == "ok"
        else:
            assert alone.status == "unresolved" and alone.error is not None
            assert alone.error["count"] == n
        rows = [index.find(label, k).rect for k in range(n)]
        assert all(r is not None for r in rows)
        ys = [r.y for r in rows if r is not None]
        assert ys == sorted(ys) and len(set(ys)) == n
        assert index.find(label, n).status == "unresolved"
