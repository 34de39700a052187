"""The shared parts x/y charts are assembled from (layoutkit.render._chart_parts)."""

from __future__ import annotations

import pytest

from layoutkit.render._chart_parts import (
    Legend,
    Scale,
    bar_spans,
    bar_width,
    lifted,
    ref_label_spots,
    series_points,
    stack_sums,
    value_axis,
)


def test_linear_scale_maps_the_domain_onto_its_pixels() -> None:
    s = Scale(0.0, 10.0, 100.0, 200.0)
    assert (s(0.0), s(5.0), s(10.0)) == (100.0, 200.0, 300.0)


def test_a_flat_domain_does_not_divide_by_zero() -> None:
    assert Scale(3.0, 3.0, 10.0, 50.0)(3.0) == 10.0


def test_band_scale_centres_each_value_in_its_slot() -> None:
    s = Scale(0.0, 3.0, 0.0, 400.0, band=True)
    assert s.slot == 100.0
    assert [s(v) for v in (0.0, 1.0, 3.0)] == [50.0, 150.0, 350.0]


def test_flipped_scale_grows_upwards_and_stands_on_zero() -> None:
    s = Scale(-10.0, 30.0, 12.0, 200.0, flip=True)
    assert s(-10.0) == 212.0 and s(30.0) == 12.0
    assert s.floor() == 0.0
    assert Scale(5.0, 9.0, 0.0, 1.0, flip=True).floor() == 5.0


def test_value_axis_widens_the_range_to_whole_ticks_with_unit_labels() -> None:
    axis = value_axis("bars", [3.0, 97.0], {"unit": "ms"})
    assert axis.lo == 0.0 and axis.hi == 100.0
    assert axis.ticks[0] == 0.0 and axis.ticks[-1] == 100.0
    assert len(axis.labels) == len(axis.ticks) and all("ms" in s for s in axis.labels)
    assert axis.gutter(12.0, 6) > 6


def test_lines_fit_their_data_but_bars_stand_on_zero() -> None:
    assert value_axis("line", [180.0, 220.0], {}).lo > 0
    assert value_axis("bars", [180.0, 220.0], {}).lo == 0.0


def test_legend_skips_empty_names_and_stops_when_the_row_is_full() -> None:
    legend = Legend(("a", "", "b", "c"), 12.0, 14, 16)
    entries = legend.place(10.0)
    assert [(e.index, e.label) for e in entries] == [(0, "a"), (2, "b"), (3, "c")]
    assert entries[0].x == 10.0 and entries[1].x > entries[0].x
    full = legend.place(10.0, lambda label, x: None if x > 10.0 else label)
    assert [e.label for e in full] == ["a"]


def test_stacked_bars_start_where_the_one_below_ended() -> None:
    series = [[(0.0, 2.0), (1.0, 3.0)], [(0.0, 5.0)]]
    assert bar_spans(series, True) == [[(0.0, 0.0, 2.0), (1.0, 0.0, 3.0)], [(0.0, 2.0, 7.0)]]
    assert bar_spans(series, False)[1] == [(0.0, 0.0, 5.0)]
    assert stack_sums(series) == {0.0: 7.0, 1.0: 3.0}
    assert bar_width(10.0, 2, False) == pytest.approx(3.5)
    assert bar_width(10.0, 2, True) == pytest.approx(7.0)


def test_lifted_areas_rest_on_the_series_below() -> None:
    (a, under_a), (b, under_b) = lifted([[(0.0, 1.0)], [(0.0, 2.0)]], True, 0.0)
    assert (a, under_a, b, under_b) == ([(0.0, 1.0)], [(0.0, 0.0)], [(0.0, 3.0)], [(0.0, 1.0)])
    assert lifted([[(0.0, 1.0)]], False, -4.0) == [([(0.0, 1.0)], [(0.0, -4.0)])]


def test_series_points_read_pairs_and_plain_numbers() -> None:
    s = {"points": [[2, 5], 7, ["x", 1], [None, "n/a"]]}
    assert series_points(s, keep_missing_x=True) == [(2.0, 5.0), (1.0, 7.0), (2.0, 1.0)]
    assert series_points(s, keep_missing_x=False) == [(2.0, 5.0), (1.0, 7.0)]
    assert series_points({"values": [1, None, 3]}, keep_missing_x=False) == [(0.0, 1.0), (2.0, 3.0)]


def test_ref_label_spots_sit_inside_either_end() -> None:
    spots = ref_label_spots([(0.0, 50.0), (100.0, 50.0)], 20.0, 5, 14)
    assert spots[0] == (76.0, 45.0, 96.0, "end")
    assert spots[3] == (4.0, 64.0, 4.0, "start")
