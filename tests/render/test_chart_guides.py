"""Charts a reader can read off: every rule checked on the SVG a chart card (and a
document chart) draws: axes with labels, dates as dates, no data above the top tick,
a marked axis foot above zero, colour scales, legends, values with their units, and
no text leaving its card."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import pytest

from layoutkit.formatting import as_number
from layoutkit.layout.sizing import size_card
from layoutkit.layout.text import text_width
from layoutkit.render import render_card, render_doc
from layoutkit.render._charts import chart_svg
from tests.render.gallery import CHART_VIZ, DASHBOARD_VIZ

NS = "{http://www.w3.org/2000/svg}"
CHIP_INK = {"good", "bad"}


@dataclass(frozen=True)
class Label:
    text: str
    x: float
    y: float
    size: float
    anchor: str
    bold: bool
    fill: str

    @property
    def span(self) -> tuple[float, float]:
        w = text_width(self.text, self.size, "sans-bold" if self.bold else "sans")
        left = {"start": self.x, "middle": self.x - w / 2, "end": self.x - w}[self.anchor]
        return left, left + w


@dataclass(frozen=True)
class Face:
    w: float
    h: float
    labels: list[Label]
    lines: list[tuple[str, list[tuple[float, float]], str]]
    boxes: list[dict[str, str]]

    def texts(self) -> list[str]:
        return [label.text for label in self.labels]

    def label(self, text: str) -> Label:
        return next(lb for lb in self.labels if lb.text == text)


def _points(raw: str) -> list[tuple[float, float]]:
    return [(float(a), float(b)) for a, b in (p.split(",") for p in raw.split())]


def face(payload: dict, w: float = 420) -> Face:
    h = size_card("chart", payload, w)[1]
    svg = render_card({"id": 1, "kind": "chart", "payload": payload, "w": w, "h": h})
    assert isinstance(svg, str)
    root = ET.fromstring(svg)
    labels = []
    for text in root.iter(f"{NS}text"):
        for span in text.iter(f"{NS}tspan"):
            labels.append(
                Label(
                    # a thin space before a unit reads as a space
                    (span.text or "").replace("\u2009", " "),
                    float(span.get("x") or 0),
                    float(span.get("y") or 0),
                    float(text.get("font-size") or 12),
                    text.get("text-anchor") or "start",
                    text.get("font-weight") == "bold",
                    text.get("fill") or "",
                )
            )
    lines = [
        (p.get("stroke") or "", _points(p.get("points") or ""), p.get("stroke-width") or "")
        for p in root.iter(f"{NS}polyline")
    ]
    boxes = [dict(r.attrib) for r in root.iter(f"{NS}rect")][3:]  # past the page and card
    return Face(w, h, labels, lines, boxes)


def viz(title: str) -> dict:
    return next(p for p in CHART_VIZ if p.get("title") == title)


GRID = "#f1f3f7"


def _tick_values(f: Face, unit: str) -> list[float]:
    out = []
    for label in f.labels:
        if label.anchor == "end" and label.text.endswith(unit):
            value = as_number(label.text[: -len(unit)].strip().replace(" ", ""))
            if value is not None:
                out.append(value)
    return out


# ---------------------------------------------------------------- line and area


def test_a_line_of_days_labels_its_x_axis_with_dates_and_tick_marks() -> None:
    f = face(viz("Daily signups"))
    assert "Mar 10" in f.texts() and "Mar 2" in f.texts()
    assert not any(re.match(r"\d{4}-\d{2}", t) for t in f.texts())
    ticks = [pts for stroke, pts, _ in f.lines if len(pts) == 2 and pts[0][0] == pts[1][0]]
    assert len(ticks) >= 3, "tick marks under the labels"


def test_an_area_of_months_names_the_months_and_the_year_once() -> None:
    f = face(viz("Monthly revenue"))
    assert "Oct 2025" in f.texts() and "Jan 2026" in f.texts() and "Nov" in f.texts()


def _areas(payload: dict, w: float = 420) -> tuple[list[list[tuple[float, float]]], str]:
    h = size_card("chart", payload, w)[1]
    svg = render_card({"id": 1, "kind": "chart", "payload": payload, "w": w, "h": h})
    assert isinstance(svg, str)
    shapes = re.findall(r"<(polygon|polyline) points=\"([^\"]+)\"([^>]*)>", svg)
    return [_points(pts) for tag, pts, rest in shapes if tag == "polygon"], svg


def test_an_area_is_filled_down_to_its_axis_under_its_line() -> None:
    payload = viz("Monthly revenue")
    polygons, svg = _areas(payload)
    series = payload["data"]["series"]
    assert len(polygons) == len(series), "one filled area per series"
    f = face(payload)
    lines = [pts for _, pts, w in f.lines if w == "2"]
    foot = max(pts[0][1] for stroke, pts, _ in f.lines if stroke == GRID)
    for area, line in zip(polygons, lines, strict=True):
        top, bottom = area[: len(line)], area[len(line) :]
        assert top == line, "the area's upper edge is its line"
        assert all(abs(y - foot) < 0.6 for _, y in bottom), "filled down to the axis foot"
    # every fill is drawn before (under) the first line, and lets the grid show through
    assert svg.rindex("<polygon") < svg.index('stroke-width="2"')
    assert re.search(r'<polygon[^>]+fill="#[0-9a-f]{6}40"', svg)


def test_a_line_is_never_filled() -> None:
    assert _areas(viz("Latency"))[0] == []


@pytest.mark.parametrize(("title", "unit"), [("Latency", "ms"), ("Monthly revenue", "EUR")])
def test_the_top_tick_is_at_or_above_every_value(title: str, unit: str) -> None:
    payload = viz(title)
    f = face(payload)
    values = [
        v for s in payload["data"]["series"] for v in s["points"] if isinstance(v, (int, float))
    ]
    assert max(_tick_values(f, unit)) >= max(values)
    grid_top = min(pts[0][1] for stroke, pts, _ in f.lines if stroke == GRID)
    data_top = min(y for stroke, pts, w in f.lines if w == "2" for _, y in pts)
    assert data_top >= grid_top - 0.5, "no data drawn above the top grid line"


def test_an_axis_above_zero_labels_its_foot_and_marks_the_break() -> None:
    f = face(viz("Daily signups"))
    ticks = _tick_values(f, "users")
    assert min(ticks) == 180 and 0 not in ticks
    breaks = [pts for _, pts, w in f.lines if w == "1.2" and len(pts) == 4]
    assert len(breaks) == 1, "a zigzag on the y axis says the scale is cut"


def test_an_axis_from_zero_has_no_break_mark() -> None:
    f = face(viz("Monthly revenue"))
    assert 0 in _tick_values(f, "EUR")
    assert not [pts for _, pts, w in f.lines if w == "1.2" and len(pts) == 4]


def test_x_labels_never_overlap() -> None:
    many = {
        "viz": "line",
        "data": {
            "x": [f"2026-01-{d:02d}" for d in range(1, 32)],
            "series": [{"points": list(range(31))}],
        },
    }
    f = face(many, 300)
    foot = [lb for lb in f.labels if re.match(r"[A-Z][a-z]{2} \d", lb.text)]
    spans = sorted(lb.span for lb in foot)
    assert len(spans) >= 3 and foot[-1].text == "Jan 31"
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))


def test_a_scatter_labels_its_numeric_x_axis() -> None:
    f = face(next(p for p in CHART_VIZ if p["viz"] == "scatter"))
    assert {"1", "2", "3"} <= set(f.texts())


# ---------------------------------------------------------------- heatmaps


@pytest.mark.parametrize("title", [None, "Commits"])
def test_a_heatmap_has_a_colour_scale_with_its_values_and_fills_its_card(
    title: str | None,
) -> None:
    payload = next(p for p in CHART_VIZ if p["viz"] == "heatmap" and p.get("title") == title)
    f = face(payload)
    data = payload["data"]
    values = (
        data["calendar"]["values"]
        if "calendar" in data
        else [v for row in data["values"] for v in row]
    )
    assert {str(min(values)), str(max(values))} <= set(f.texts())
    swatches = [b for b in f.boxes if b.get("width") == "16" and b.get("height") == "9"]
    assert len(swatches) == 5
    right = max(float(b["x"]) + float(b["width"]) for b in f.boxes)
    assert right >= f.w - 16 - 2, "the grid reaches the card's right padding"


# ---------------------------------------------------------------- compare


def test_compare_names_before_and_after_and_gives_every_value_its_unit() -> None:
    f = face(viz("Before/after"))
    assert {"v1", "v2"} <= set(f.texts())
    for text in ("120 ms", "48 ms", "900 ms", "950 ms", "3.1 MB"):
        assert text in f.texts()


def test_compare_tints_a_regressed_bar_as_its_chip() -> None:
    f = face(viz("Before/after"))
    chip = f.label("+5.6% · 1.06×")
    row = f.label("950 ms")
    bar = next(
        b
        for b in f.boxes
        if abs(float(b["y"]) - (row.y - 8)) < 6 and float(b["x"]) + float(b["width"]) < row.x
    )
    assert bar["fill"] == chip.fill
    improved = f.label("48 ms")
    after = next(b for b in f.boxes if abs(float(b["y"]) - (improved.y - 8)) < 6)
    assert after["fill"] != f.label("-60.0% · 0.40×").fill


# ---------------------------------------------------------------- bars, donut


def test_ranked_bars_give_the_value_with_its_unit_beside_the_share() -> None:
    f = face(viz("Revenue by region"))
    assert "412k EUR · 29%" in f.texts()
    assert "210k EUR · 15%" in f.texts()


def test_item_bars_print_each_value_at_the_end_of_its_bar() -> None:
    f = face(viz("Cards by kind"))
    bars = sorted((b for b in f.boxes if b.get("height") == "12"), key=lambda b: float(b["y"]))
    for bar, value in zip(bars, ("12", "7", "3", "2"), strict=True):
        label = f.label(value)
        end = float(bar["x"]) + float(bar["width"])
        assert end < label.x <= end + 8


def test_a_donut_of_shares_leaves_its_centre_empty_and_its_legend_unrepeated() -> None:
    f = face(next(p for p in CHART_VIZ if p["viz"] == "donut" and p["data"]["unit"] == "%"))
    assert "100%" not in f.texts()
    assert "a — 70%" in f.texts() and not any("(70%)" in t for t in f.texts())


def test_a_donut_of_money_shows_its_total_with_the_unit() -> None:
    f = face(viz("Spend"))
    assert "63k EUR" in f.texts()
    assert "infra — 12,000 EUR (19%)" in f.texts()


def test_a_narrow_pie_legend_gives_way_with_its_share_before_its_name() -> None:
    texts = face(viz("Spend"), 260).texts()
    assert "infra — 12k EUR" in texts and "people — 48k EUR" in texts


def test_a_narrow_compare_keeps_its_chips_whole() -> None:
    texts = face(viz("Before/after"), 260).texts()
    assert "+100.0% · 2.00×" in texts or "+100.0%" in texts
    assert not any(t.endswith("…") for t in texts if "%" in t)


# ---------------------------------------------------------------- every face


@pytest.mark.parametrize("w", [260, 300, 420])
@pytest.mark.parametrize("index", range(len(CHART_VIZ)))
def test_no_chart_text_leaves_its_card_or_is_cut(index: int, w: float) -> None:
    f = face(CHART_VIZ[index], w)
    for label in f.labels:
        left, right = label.span
        assert left >= -0.5 and right <= f.w + 0.5, f"{label.text!r} leaves the card"
        assert label.y <= f.h, f"{label.text!r} under the card"
        assert not re.search(r"[\d.,]…", label.text), f"a number is cut: {label.text!r}"


# ---------------------------------------------------------------- documents


def _doc_texts(payload: dict) -> list[str]:
    root = ET.fromstring(chart_svg(payload))
    return [(t.text or "").replace("\u2009", " ") for t in root.iter(f"{NS}text")]


def test_document_charts_read_the_same_guides() -> None:
    assert "Mar 10" in _doc_texts(viz("Daily signups"))
    assert "Jan 2026" in _doc_texts(viz("Monthly revenue"))
    assert "412k EUR · 29%" in _doc_texts(viz("Revenue by region"))
    assert "63k EUR" in _doc_texts(viz("Spend"))
    shares = _doc_texts(next(p for p in CHART_VIZ if p["viz"] == "donut"))
    assert "100%" not in shares and "a — 70%" in shares
    heat = _doc_texts(next(p for p in CHART_VIZ if p["viz"] == "heatmap"))
    assert {"0", "9"} <= set(heat)
    assert 'class="axis-break"' in chart_svg(viz("Daily signups"))
    assert 'class="tone-bad"' in chart_svg(viz("Before/after"))


def test_document_top_tick_covers_the_data() -> None:
    svg = chart_svg(viz("Latency")).replace("\u2009", " ")
    ticks = [as_number(t.split(" ")[0]) for t in re.findall(r">([\d,.]+ ms)<", svg)]
    assert max(t for t in ticks if t is not None) >= 310


def test_dashboard_payloads_are_charts() -> None:
    assert all(p["viz"] for p in DASHBOARD_VIZ)


DOC_SIZES = {"axis": 11.0, "small": 10.5, "big": 20.0, "hero": 54.0, "delta": 16.0}


@pytest.mark.parametrize("index", range(len(CHART_VIZ)))
def test_no_document_chart_text_leaves_its_chart(index: int) -> None:
    root = ET.fromstring(chart_svg(CHART_VIZ[index]))
    width = float((root.get("viewBox") or "0 0 0 0").split()[2])
    for t in root.iter(f"{NS}text"):
        classes = (t.get("class") or "").split()
        size = next((DOC_SIZES[c] for c in reversed(classes) if c in DOC_SIZES), 12.0)
        bold = "big" in classes or "hero" in classes or "chip-txt" in classes
        label = Label(
            t.text or "",
            float(t.get("x") or 0),
            0.0,
            size,
            t.get("text-anchor") or "start",
            bold,
            "",
        )
        left, right = label.span
        assert left >= -0.5 and right <= width + 0.5, f"{label.text!r} leaves the chart"


# ---------------------------------------------------------------- timelines


def test_a_timeline_chart_prints_each_date_as_a_date_inside_its_card() -> None:
    payload = next(p for p in CHART_VIZ if p.get("viz") == "timeline")
    f = face(payload, 300)
    assert {"Jan 10 2026", "Mar 2", "Jun 1"} <= set(f.texts())
    for label in f.labels:
        left, right = label.span
        assert left >= 0 and right <= f.w, label


def test_a_document_timeline_reads_its_dates_as_dates() -> None:
    items = [{"when": "2026-03-01", "title": "a"}, {"when": "2026-04-02T09:30:00Z", "title": "b"}]
    timeline = {"kind": "timeline", "payload": {"items": items}}
    html = render_doc({"title": "t", "elements": [timeline]})
    assert 'class="when">Mar 1 2026<' in html and 'class="when">Apr 2 09:30<' in html
