"""Boards and cards: every card kind's face, frames, wires, diagrams, PNG sizing,
and one geometry behind both outputs."""

from __future__ import annotations

import io
import math
import re
from xml.etree import ElementTree

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage

from layoutkit.layout.text import text_width
from layoutkit.render import render_board, render_card
from layoutkit.render._board import card_scene
from layoutkit.render._scene import Box, Ellipse, Path, Text, to_svg
from tests.render.gallery import (
    ALL_VIZ,
    CARD_KINDS,
    DIAGRAM,
    EVERY_CARD,
    EVERY_CARD_BOARD,
    EVERY_ELEMENT,
    SMALL_BOARD,
)

SPEC_CARD_KINDS = [
    "text",
    "note",
    "shape",
    "callout",
    "checklist",
    "cluster",
    "section",
    "step",
    "compare",
    "doc",
    "link",
    "board",
    "diagram",
    "api",
    "page",
    "artifact",
    "chat",
    "file",
]
SVG_NS = "{http://www.w3.org/2000/svg}"


def svg_text(svg: str) -> str:
    root = ElementTree.fromstring(svg)
    return " ".join("".join(node.itertext()) for node in root.iter(f"{SVG_NS}text"))


def png_size(data: bytes) -> tuple[int, int]:
    return PILImage.open(io.BytesIO(data)).size


def test_gallery_covers_every_card_kind() -> None:
    assert set(SPEC_CARD_KINDS) <= set(CARD_KINDS)


@pytest.mark.parametrize("card", EVERY_CARD, ids=lambda c: f"{c['id']}-{c['kind']}")
def test_every_card_kind_renders_both_formats(card: dict) -> None:
    svg = render_card(card)
    root = ElementTree.fromstring(svg)
    assert root.get("width") == str(int(card["w"])) and root.get("height") == str(int(card["h"]))
    png = render_card(card, format="png")
    assert png_size(png) == (int(card["w"]), int(card["h"]))


@pytest.mark.parametrize(
    "element", [e for e in EVERY_ELEMENT if e["kind"] != "section"][:40], ids=lambda e: e["kind"]
)
def test_element_kinds_render_as_cards(element: dict) -> None:
    card = {
        "id": 1,
        "kind": element["kind"],
        "payload": element["payload"],
        "x": 0,
        "y": 0,
        "w": 420,
        "h": 300,
    }
    ElementTree.fromstring(render_card(card))


def test_png_honours_max_dim_on_the_longest_side() -> None:
    wide = {"id": 1, "kind": "note", "payload": {"md": "wide"}, "w": 3200, "h": 800}
    assert png_size(render_card(wide, format="png", max_dim=800)) == (800, 200)
    assert png_size(render_card(wide, format="png")) == (1600, 400)
    small = {"id": 2, "kind": "note", "payload": {"md": "small"}, "w": 200, "h": 100}
    assert png_size(render_card(small, format="png", max_dim=800)) == (200, 100)
    board_png = render_board(EVERY_CARD_BOARD, format="png")
    assert max(png_size(board_png)) == 1600
    with pytest.raises(ValueError):
        render_card(small, format="gif")
    with pytest.raises(ValueError):
        render_card(small, format="png", max_dim=0)


def test_board_frames_titles_and_wires() -> None:
    svg = render_board(EVERY_CARD_BOARD)
    text = svg_text(svg)
    for title in (
        "Every card kind",
        "Journey",
        "Sign-up flow, iteration 2",
        "Ideas",
        "feeds",
        "documents",
    ):
        assert title in text
    # each wire is a line plus a filled arrowhead triangle
    arrowheads = re.findall(r'<polygon points="[^"]+" fill="#6b7a90"', svg)
    assert len(arrowheads) == len(EVERY_CARD_BOARD["edges"])
    assert 'stroke-dasharray="6 4"' in svg  # rel "relates" draws dashed


def test_untitled_cluster_draws_no_chrome() -> None:
    scene = card_scene({"id": 1, "kind": "cluster", "payload": {}, "w": 300, "h": 200})
    assert scene.items == []
    titled = card_scene(
        {
            "id": 1,
            "kind": "cluster",
            "payload": {"title": "Todo", "role": "kanban", "children": [1, 2]},
            "w": 300,
            "h": 200,
        }
    )
    assert any(isinstance(i, Text) and i.lines == ("2",) for i in titled.items)


def test_diagram_face_from_geo() -> None:
    card = {"id": 1, "kind": "diagram", "payload": DIAGRAM, "w": 900, "h": 560}
    text = svg_text(render_card(card))
    for expected in (
        "Checkout",
        "ARCHITECTURE",
        "POST",
        "/orders",
        "201",
        "409",
        "×3 replicas",
        "8080→80/tcp",
        "PK id",
        "FK user_id",
        "uuid",
        "EDGE",
        "CORE",
        "Services",
        "HTTPS",
        "jobs",
        "writes",
        "async",
        "99.9%",
        "SLO",
        "Drawn from geo",
        "Idempotent",
        "fifo",
    ):
        assert expected in text, expected


def test_diagram_from_the_diagram_engine() -> None:
    layout = pytest.importorskip("layoutkit.diagram")
    payload = layout.lay_out(
        {
            "title": "Flow",
            "nodes": [{"id": "a", "title": "Start"}, {"id": "b", "title": "End"}],
            "edges": [{"from": "a", "to": "b", "label": "go"}],
        }
    )
    assert payload["geo"]["nodes"]
    text = svg_text(
        render_card({"id": 1, "kind": "diagram", "payload": payload, "w": 500, "h": 400})
    )
    assert "Start" in text and "End" in text and "go" in text


def test_api_summary_and_file_chips() -> None:
    by_kind = {c["kind"]: c for c in EVERY_CARD}
    api = svg_text(render_card(by_kind["api"]))
    assert (
        "Orders API" in api
        and "4 endpoints · 2 groups" in api
        and "DELETE" in api
        and "/orders/{id}" in api
    )
    pdf = next(c for c in EVERY_CARD if c["payload"].get("mime") == "application/pdf")
    assert "PDF · 12 pages" in svg_text(render_card(pdf))
    csv = next(c for c in EVERY_CARD if c["payload"].get("mime") == "text/csv")
    assert "report.csv" in svg_text(render_card(csv))


def test_text_card_markdown_structure() -> None:
    card = {
        "id": 1,
        "kind": "text",
        "payload": {"md": "# Title\n\n- [x] done\n- [ ] todo\n\n1. one\n\n`x` :check:"},
        "w": 300,
        "h": 260,
    }
    text = svg_text(render_card(card))
    assert (
        "Title" in text
        and "☑ done" in text
        and "☐ todo" in text
        and "1. one" in text
        and "✓" in text
    )


def test_svg_and_png_share_geometry() -> None:
    """A callout's tone rail sits at x 0-5 in both outputs; text baselines match the metrics."""
    card = {
        "id": 1,
        "kind": "callout",
        "payload": {"tone": "bad", "title": "Stop", "md": "now"},
        "w": 300,
        "h": 120,
    }
    scene = card_scene(card)
    rail = next(i for i in scene.items if isinstance(i, Box) and i.w == 5)
    image = PILImage.open(io.BytesIO(render_card(card, format="png"))).convert("RGB")
    assert image.getpixel((2, 60)) == (0xC9, 0x2A, 0x2A)
    assert image.getpixel((rail.w + 40, 110)) != (0xC9, 0x2A, 0x2A)
    svg = to_svg(scene)
    for item in scene.items:
        if isinstance(item, Text) and item.lines[0]:
            assert f'y="{round(item.baseline(0), 1):g}"' in svg.replace('.0"', '"')


def _bounds(item: object) -> tuple[float, float, float, float] | None:
    if isinstance(item, (Box, Ellipse)):
        return item.x, item.y, item.x + item.w, item.y + item.h
    if isinstance(item, Text):
        widest = max(text_width(line, item.size, item.font) for line in item.lines)
        left = item.x - (
            widest if item.anchor == "end" else widest / 2 if item.anchor == "middle" else 0
        )
        return left, item.y, left + widest, item.y + item.height
    if isinstance(item, Path):
        xs = [p[0] for p in item.points]
        ys = [p[1] for p in item.points]
        return min(xs), min(ys), max(xs), max(ys)
    return None


markdown_text = st.lists(
    st.sampled_from(
        [
            "# Heading",
            "## Sub",
            "plain words that go on for a while",
            "- item",
            "- [ ] task",
            "- [x] done",
            "> quote",
            "```\ncode line\n```",
            "| a | b |\n|---|---|\n| 1 | 2 |",
            "---",
            "Averyveryverylongwordwithoutanyspaces" * 2,
            "$x^2$",
            "![diagram](https://example.com/d.png)",
        ]
    ),
    min_size=0,
    max_size=14,
).map("\n\n".join)


@settings(max_examples=60, deadline=None)
@given(
    md=markdown_text,
    w=st.integers(120, 600),
    h=st.integers(80, 500),
    kind=st.sampled_from(["text", "note", "callout", "page"]),
)
def test_faces_stay_inside_their_card(md: str, w: int, h: int, kind: str) -> None:
    scene = card_scene(
        {"id": 1, "kind": kind, "payload": {"md": md, "title": "T", "tone": "info"}, "w": w, "h": h}
    )
    for item in scene.items:
        box = _bounds(item)
        if box is None or (isinstance(item, Box) and item.opacity < 1):
            continue  # the drop shadow is allowed to fall outside
        x0, y0, x1, y1 = box
        assert x0 >= -0.5 and y0 >= -0.5, item
        assert x1 <= w + 0.5 and y1 <= h + 0.5, item


@settings(max_examples=30, deadline=None)
@given(viz=st.sampled_from([c for c in ALL_VIZ]), w=st.integers(200, 700), h=st.integers(120, 500))
def test_chart_cards_render_at_any_size(viz: dict, w: int, h: int) -> None:
    ElementTree.fromstring(render_card({"id": 1, "kind": "chart", "payload": viz, "w": w, "h": h}))


def test_small_board_is_deterministic() -> None:
    assert render_board(SMALL_BOARD) == render_board(SMALL_BOARD)
    assert render_board(SMALL_BOARD, format="png") == render_board(SMALL_BOARD, format="png")


def test_empty_board_renders() -> None:
    svg = render_board({"board": {"slug": "empty"}, "cards": [], "edges": []})
    assert "0 cards" in svg_text(svg)


def test_engine_geo_places_header_footer_and_ports() -> None:
    layout = pytest.importorskip("layoutkit.diagram")
    sizing = pytest.importorskip("layoutkit.layout.sizing")
    payload = {k: v for k, v in DIAGRAM.items() if k != "geo"}
    payload["caption"] = "A *short* caption"
    web = {
        "id": "web",
        "title": "Web",
        "ports": [{"id": "out", "label": "egress", "side": "right"}],
    }
    payload["lanes"] = [{**payload["lanes"][0], "nodes": [web]}, payload["lanes"][1]]
    payload["edges"] = [{**payload["edges"][0], "from": "web.out"}, *payload["edges"][1:]]
    laid = layout.lay_out(payload)
    geo = laid["geo"]
    w, h = sizing.size_card("diagram", laid)
    # The sizer frames the geo with 16 px padding under a 48 px band (top padding
    # included), rounding up.
    assert (w, h) == (math.ceil(geo["width"] + 32), math.ceil(geo["height"] + 16 + 48))
    scene = card_scene({"id": 1, "kind": "diagram", "payload": laid, "w": w, "h": h})
    k = min((w - 32) / geo["width"], (h - 64) / geo["height"])
    ox, oy = 16.0 + (w - 32 - geo["width"] * k) / 2, 48.0
    texts = {line: item for item in scene.items if isinstance(item, Text) for line in item.lines}
    title_box = next(p for p in geo["header"]["parts"] if p["key"] == "title")
    assert k == pytest.approx(1.0, abs=0.01)
    assert texts["Checkout"].y == pytest.approx(oy + title_box["y"] * k)
    assert texts["Checkout"].size == pytest.approx(20 * k)
    assert texts["A short caption"].y == pytest.approx(oy + geo["caption"]["y"] * k)
    assert texts["Drawn from geo"].y == pytest.approx(oy + geo["footer"]["y"] * k)
    assert texts["99.9%"].y == pytest.approx(oy + (geo["stats"]["y"] + 4) * k)
    assert "writes" in texts and "egress" in texts and "HTTPS" in texts
    port = geo["ports"]["web"]["out"]
    dots = [i for i in scene.items if isinstance(i, Ellipse)]
    assert any(
        i.x + i.w / 2 == pytest.approx(ox + port["x"] * k)
        and i.y + i.h / 2 == pytest.approx(oy + port["y"] * k)
        for i in dots
    )


@settings(max_examples=80, deadline=None)
@given(
    md=markdown_text,
    width=st.one_of(st.none(), st.integers(160, 720)),
    kind=st.sampled_from(["text", "note", "callout", "page"]),
)
def test_faces_fill_the_size_the_layout_engine_gives(md: str, width: int | None, kind: str) -> None:
    """Sized by layoutkit.layout.sizing, a face draws all its text without cutting it."""
    sizing = pytest.importorskip("layoutkit.layout.sizing")
    payload = {"md": md, "title": "Heads up", "tone": "warn"}
    w, h = sizing.size_card(kind, payload, width)
    if kind == "page" and h >= sizing.PAGE_MAX_HEIGHT:
        return  # pages preview at a capped height
    scene = card_scene({"id": 1, "kind": kind, "payload": payload, "w": w, "h": h})
    cut = [i for i in scene.items if isinstance(i, Text) and i.lines and i.lines[-1].endswith("…")]
    assert cut == []
    for item in scene.items:
        box = _bounds(item)
        if box is not None and not (isinstance(item, Box) and item.opacity < 1):
            assert box[3] <= h + 0.5, item


@settings(max_examples=40, deadline=None)
@given(
    items=st.lists(
        st.one_of(
            st.text(alphabet="abc def ghij klmnop", min_size=1, max_size=80),
            st.fixed_dictionaries(
                {
                    "text": st.text(alphabet="xyz uvw", min_size=1, max_size=60),
                    "done": st.booleans(),
                }
            ),
        ),
        max_size=8,
    ),
    title=st.sampled_from(
        ["", "Launch", "A much longer checklist title that wraps over two lines"]
    ),
)
def test_checklist_fills_its_sized_card(items: list, title: str) -> None:
    sizing = pytest.importorskip("layoutkit.layout.sizing")
    payload = {"title": title, "items": items}
    w, h = sizing.size_card("checklist", payload)
    scene = card_scene({"id": 1, "kind": "checklist", "payload": payload, "w": w, "h": h})
    drawn = [i for i in scene.items if isinstance(i, Text) and i.font == "sans" and i.size == 14]
    assert len(drawn) == len(items)


def test_chart_card_bars_scale_per_unit() -> None:
    mixed = next(v for v in ALL_VIZ if v.get("title") == "Mixed units")
    scene = card_scene({"id": 1, "kind": "chart", "payload": mixed, "w": 480, "h": 230})
    bars = [i for i in scene.items if isinstance(i, Box) and i.h == 12 and i.radius == 2]
    cold, warm, bundle = (b.w for b in bars)
    assert cold == pytest.approx(bundle)  # each unit's largest value spans the full bar
    assert warm == pytest.approx(cold * 40 / 820, rel=0.01)
