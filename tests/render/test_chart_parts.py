"""The shared parts x/y charts are assembled from (layoutkit.render._chart_parts)."""

from __future__ import annotations

import itertools

import pytest

from layoutkit.formatting import date_labels
from layoutkit.render._chart_parts import (
    Legend,
    Scale,
    bar_spans,
    bar_width,
    compact,
    donut_centre,
    heat_level,
    lifted,
    nice_ticks,
    pie_entry,
    ranked_shares,
    ref_label_spots,
    series_points,
    spread_labels,
    stack_sums,
    value_axis,
    worse_tone,
    x_labels,
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


@pytest.mark.parametrize(
    ("lo", "hi"), [(0.0, 310.0), (41000.0, 61234.0), (180.0, 241.0), (2.0, 3.5), (0.0, 0.3)]
)
def test_ticks_reach_past_the_data(lo: float, hi: float) -> None:
    ticks = nice_ticks(lo, hi, 4)
    assert ticks[0] <= lo and ticks[-1] >= hi


def test_iso_days_and_months_read_as_dates() -> None:
    assert x_labels(["2026-03-04", "2026-03-05"]) == ["Mar 4", "Mar 5"]
    assert x_labels(["2025-12-31", "2026-01-01"]) == ["Dec 31", "Jan 1 2026"]
    assert x_labels(["2025-12", "2026-01", "2026-02"]) == ["Dec 2025", "Jan 2026", "Feb"]
    assert x_labels(["Q1", "2026-01"]) == ["Q1", "2026-01"]


def test_a_run_of_dates_names_its_year_first_and_where_it_changes() -> None:
    whens = ["2025-12-30", "2026-01-02T14:30:00Z", "week 3", "2026-01-09T00:00:00Z", None]
    assert date_labels(whens) == ["Dec 30 2025", "Jan 2 2026 14:30", "week 3", "Jan 9", ""]
    assert date_labels(["2026-03-04"], first_year=False) == ["Mar 4"]
    assert date_labels(["2026-03-04T09:05"], times=False) == ["Mar 4 2026"]
    assert date_labels(["2026-13-01", "2026-02"]) == ["2026-13-01", "Feb 2026"]


def test_spread_labels_keep_the_last_and_never_overlap() -> None:
    spots = [(float(i * 20), 40.0) for i in range(12)]
    shown = spread_labels(spots, 0.0, 220.0)
    assert shown[-1][0] == 11 and shown[-1][2] == "end"
    assert shown[0][2] == "start" or shown[0][1] - 20 >= 0
    lefts = [x - {"start": 0, "middle": 20, "end": 40}[a] for _, x, a in shown]
    assert all(b - a >= 40 for a, b in itertools.pairwise(lefts))


def test_compact_values_keep_their_unit() -> None:
    assert compact(412000, "EUR") == "412k\u2009EUR"
    assert compact(1_250_000) == "1.25M"
    assert compact(999) == "999"


def test_ranked_shares_show_value_and_share() -> None:
    rows = ranked_shares(
        [{"label": "a", "value": 412000}, {"label": "b", "value": 1008000}], 1, "EUR"
    )
    assert rows[0]["display"] == "1.01M\u2009EUR · 71%"
    assert rows[1]["label"] == "other (1)" and rows[1]["display"] == "412k\u2009EUR · 29%"


def test_donut_centre_and_pie_legend_do_not_repeat_shares() -> None:
    assert donut_centre(100.0, "%") is None
    assert donut_centre(63000.0, "EUR") == "63k\u2009EUR"
    assert donut_centre(100.0, None, [{"unit": "%"}, {"unit": "%"}]) is None
    assert donut_centre(5.0, None, [{"unit": "ms"}, {"unit": "MB"}]) is None
    assert donut_centre(12.0, None, [{}, {}]) == "12"
    assert pie_entry("a", "70%", 70.0) == "a — 70%"
    assert pie_entry("a", "12 EUR", 19.4) == "a — 12 EUR (19%)"


def test_heat_levels_split_the_range_evenly() -> None:
    assert [heat_level(v, 0.0, 10.0) for v in (0, 1.9, 2, 5, 9.9, 10)] == [0, 0, 1, 2, 4, 4]
    assert heat_level(3.0, 3.0, 3.0) == 4 and heat_level(0.0, 0.0, 0.0) == 0


def test_only_a_regressed_after_bar_wears_the_chip_tone() -> None:
    assert worse_tone(100, 120, "lower", "bad") == "bad"
    assert worse_tone(100, 80, "lower", "good") is None
    assert worse_tone(1, 2, "lower", "good") == "good"
    assert worse_tone(1, 2, None, "neutral") is None


def test_an_author_max_below_the_data_does_not_hide_it() -> None:
    axis = value_axis("line", [120.0, 310.0], {"min": 0, "max": 250})
    assert axis.lo == 0.0 and axis.ticks[-1] >= 310.0
    assert value_axis("line", [120.0, 180.0], {"max": 400}).hi == 400.0
