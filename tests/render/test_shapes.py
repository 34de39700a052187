"""Node shapes (render/_shapes.py): outlines stay in their box, unknown shapes are boxes,
and the module the diagram and sequence faces share imports neither face."""

from __future__ import annotations

import ast
import re
from pathlib import Path as FilePath

import pytest

from layoutkit.render import _face_diagram, _face_sequence, _shapes
from layoutkit.render._scene import Box, Ellipse, Path

RENDER = FilePath(_shapes.__file__).parent


@pytest.mark.parametrize("shape", sorted(_shapes._OUTLINES))
def test_every_outline_stays_in_its_box(shape: str) -> None:
    x, y, w, h = 10.0, 20.0, 120.0, 60.0
    pts = _shapes.outline(shape, x, y, w, h, 1.0)
    assert pts is not None and len(pts) >= 3
    for px, py in pts:
        assert x - 1e-6 <= px <= x + w + 1e-6
        assert y - 1e-6 <= py <= y + h + 1e-6


def test_boxes_rounds_and_figures_have_no_outline() -> None:
    for shape in ("rect", "round", "circle", "cylinder", "bolt", "no-such-shape"):
        assert _shapes.outline(shape, 0, 0, 10, 10, 1.0) is None


def test_an_unknown_shape_is_a_box() -> None:
    items = _shapes.shape_items("no-such-shape", 0, 0, 80, 40, "#fff", "#000", 2.0)
    assert items == [Box(0, 0, 80, 40, fill="#fff", stroke="#000", width=2.4, radius=6.0)]


def test_an_outlined_shape_is_one_closed_path_plus_its_marks() -> None:
    plain = _shapes.shape_items("document", 0, 0, 80, 40, "#fff", "#000", 1.0)
    lined = _shapes.shape_items("lined-document", 0, 0, 80, 40, "#fff", "#000", 1.0)
    assert len(plain) == 1 and isinstance(plain[0], Path) and plain[0].closed
    assert lined[0] == plain[0] and len(lined) == 2


def test_round_shapes_are_ellipses() -> None:
    end = _shapes.shape_items("end", 0, 0, 20, 20, "#fff", "#000", 1.0)
    assert [type(i) for i in end] == [Ellipse, Ellipse]
    assert end[1].fill == "#000"  # the inner dot of an end state is solid


def test_the_faces_share_one_shape_drawer() -> None:
    assert _face_diagram._shape_items is _shapes.shape_items
    assert _face_sequence.shape_items is _shapes.shape_items


def _imported_modules(path: FilePath) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_no_import_circle_between_the_diagram_and_sequence_faces() -> None:
    assert "layoutkit.render._face_diagram" not in _imported_modules(RENDER / "_face_sequence.py")
    shapes_imports = _imported_modules(RENDER / "_shapes.py")
    assert "layoutkit.render._face_diagram" not in shapes_imports
    assert "layoutkit.render._face_sequence" not in shapes_imports


def test_style_classdef_and_linkstyle_colours_are_drawn_where_readable() -> None:
    from layoutkit.diagram import lay_out
    from layoutkit.render._face_diagram import diagram_scene
    from layoutkit.render._scene import to_svg

    text = (
        "flowchart LR\nA[Start] --> B[Middle] --> C[End]\n"
        "style A fill:#f9f,stroke:#333,stroke-width:4px\n"
        "classDef hot fill:#b00020,color:#ffffff\nclass B hot\n"
        "style C fill:#fff,color:#fefefe\n"
        "linkStyle 0 stroke:#ff3,stroke-width:4px\nlinkStyle 1 stroke:#0a7,stroke-width:3px\n"
    )
    payload = lay_out({"diagram_text": text})
    svg = to_svg(diagram_scene(payload))
    for colour in ("#ff99ff", "#333333", "#b00020", "#ffffff", "#00aa77"):
        assert colour in svg, colour
    assert 'stroke-width="4' in svg and 'stroke-width="3' in svg
    # near-white text on white and a pale yellow line on the card cannot be read: not drawn
    assert "#fefefe" not in svg and "#ffff33" not in svg


def test_style_and_classdef_italics_slant_the_node_title() -> None:
    import re

    from layoutkit.diagram import import_text, lay_out
    from layoutkit.render._face_diagram import diagram_scene
    from layoutkit.render._scene import to_svg

    text = (
        "flowchart LR\nA[Start] --> B[Middle] --> C[End]\nstyle A font-style:italic,color:#c00\n"
        "classDef em font-style:oblique\nclass B em\nlinkStyle 0 font-style:italic\n"
    )
    imported = import_text(text)
    slant = {n["id"]: n.get("paint", {}).get("fontStyle") for n in imported["nodes"]}
    assert slant == {"A": "italic", "B": "italic", "C": None}
    assert all("fontStyle" not in e.get("paint", {}) for e in imported["edges"])
    svg = to_svg(diagram_scene(lay_out(imported)))
    styled = {
        m.group(2): "font-style" in m.group(1)
        for m in re.finditer(r"<text([^>]*)><tspan[^>]*>([^<]*)</tspan>", svg)
    }
    assert styled["Start"] and styled["Middle"] and not styled["End"]


def test_an_italic_line_is_slanted_in_the_png_too() -> None:
    import io

    import numpy as np
    from PIL import Image as PILImage

    from layoutkit.render._scene import Scene, Text, to_png

    def ink(italic: bool) -> np.ndarray:
        line = Text(10, 10, ("Italic",), 40.0, "sans-bold", "#000000", italic=italic)
        png = to_png(Scene(220, 80, [line]), max_dim=220)
        grey = np.asarray(PILImage.open(io.BytesIO(png)).convert("L"))
        return grey < 128

    upright, slanted = ink(False), ink(True)
    rows = np.nonzero(upright.any(axis=1))[0]
    top, bottom = rows[0], rows[-1]

    def left(mask: np.ndarray, row: int) -> int:
        return int(np.nonzero(mask[row])[0][0])

    # The same amount of ink, but its top leans right of its foot.
    assert abs(int(slanted.sum()) - int(upright.sum())) < 0.15 * upright.sum()
    lean = left(slanted, top + 2) - left(slanted, bottom - 2)
    assert lean > left(upright, top + 2) - left(upright, bottom - 2) + 3


@pytest.mark.parametrize(("mark", "kind"), [("circle", Ellipse), ("cross", Path)])
def test_a_circle_or_cross_end_stands_whole_outside_its_node(mark: str, kind: type) -> None:
    # A wire from the left into a node whose left border is at x = 100.
    drawn = _face_diagram._end_mark(mark, (40.0, 50.0), (100.0, 50.0), "#333", 1.0)
    assert drawn and all(isinstance(item, kind) for item in drawn)
    xs = [
        x
        for item in drawn
        for x in (
            (item.x, item.x + item.w) if isinstance(item, Ellipse) else [p[0] for p in item.points]
        )
    ]
    assert max(xs) <= 100.0 and min(xs) >= 88.0, "outside the border, close to it"


def test_stroke_dasharray_from_style_classdef_and_edge_classes_is_read() -> None:
    from layoutkit.diagram import import_text

    text = (
        "flowchart LR\nA e1@--> B\nB --> C\nC --> D\n"
        "style A stroke:#f66,stroke-dasharray: 5 5\n"
        "classDef dashy stroke-dasharray: 9,5,stroke-dashoffset: 900\nclass B,e1 dashy\n"
        "linkStyle 1 stroke-dasharray: 3px 2px\nstyle D stroke-dasharray: none\n"
    )
    imported = import_text(text)
    dashes = {n["id"]: n.get("paint", {}).get("strokeDasharray") for n in imported["nodes"]}
    assert dashes == {"A": [5.0, 5.0], "B": [9.0, 5.0], "C": None, "D": None}
    edges = [e.get("paint", {}).get("strokeDasharray") for e in imported["edges"]]
    assert edges == [[9.0, 5.0], [3.0, 2.0], None]
    state = import_text("stateDiagram-v2\nclassDef d stroke-dasharray: 4 2\nA --> B\nclass A d\n")
    assert state["nodes"][0]["paint"] == {"strokeDasharray": [4.0, 2.0]}


def test_dashed_nodes_and_edges_are_dashed_in_the_svg() -> None:
    from layoutkit.diagram import lay_out
    from layoutkit.render._face_diagram import diagram_scene
    from layoutkit.render._scene import to_svg

    text = (
        "flowchart LR\nA(Round) e1@--> B((Circle)) --> C{Pointed}\n"
        "classDef dashy stroke:#f66,stroke-dasharray: 5 5\nclass A,B,C dashy\n"
        "classDef wire stroke-dasharray: 9,5\nclass e1 wire\n"
    )
    svg = to_svg(diagram_scene(lay_out({"diagram_text": text})))
    # the rounded box, the circle and the diamond's outline, each drawn at the face's scale
    assert {"rect", "ellipse", "polygon"} <= {
        m.group(1) for m in re.finditer(r"<(\w+)[^>]*stroke-dasharray=\"5 5\"", svg)
    }
    assert svg.count('stroke-dasharray="9 5"') == 1
    assert svg.count("<polyline") >= 2  # the second wire stays solid
    solid = [
        m.group(0) for m in re.finditer(r"<polyline[^>]*>", svg) if "dasharray" not in m.group(0)
    ]
    assert solid


@pytest.mark.parametrize("kind", ["box", "rounded", "ellipse", "polygon", "line"])
def test_a_dashed_outline_is_dashed_in_the_png(kind: str) -> None:
    import io

    import numpy as np
    from PIL import Image as PILImage

    from layoutkit.render._scene import Scene, to_png

    dash = (6.0, 6.0)
    item = {
        "box": Box(20, 20, 160, 60, fill="#ffffff", stroke="#000000", width=2, dash=dash),
        "rounded": Box(
            20, 20, 160, 60, fill="#ffffff", stroke="#000000", width=2, radius=12, dash=dash
        ),
        "ellipse": Ellipse(20, 20, 160, 60, "#ffffff", "#000000", 2, dash),
        "polygon": Path(
            ((20, 20), (180, 20), (180, 80), (20, 80)),
            stroke="#000000",
            width=2,
            closed=True,
            fill="#ffffff",
            dash=dash,
        ),
        "line": Path(((20, 20), (180, 20)), stroke="#000000", width=2, dash=dash),
    }[kind]
    png = to_png(Scene(200, 100, [item]), max_dim=200)
    grey = np.asarray(PILImage.open(io.BytesIO(png)).convert("L")) < 128
    # The topmost inked row: its ink comes in runs with gaps between them, not one line.
    top = int(np.nonzero(grey.any(axis=1))[0][0])
    row = grey[top : top + 2].any(axis=0).astype(int)
    runs = int(np.count_nonzero(np.diff(row) == 1))
    assert runs >= 5, runs


def test_a_closed_outline_keeps_its_width_in_the_png() -> None:
    import io

    import numpy as np
    from PIL import Image as PILImage

    from layoutkit.render._scene import Scene, to_png

    def inked_rows(width: float) -> int:
        diamond = Path(
            ((100, 10), (190, 50), (100, 90), (10, 50)),
            stroke="#000000",
            width=width,
            closed=True,
            fill="#ffffff",
        )
        png = to_png(Scene(200, 100, [diamond]), max_dim=200)
        grey = np.asarray(PILImage.open(io.BytesIO(png)).convert("L")) < 128
        # Down the middle column: the ink of the top and bottom corners' outline.
        return int(np.count_nonzero(grey[:, 100]))

    # A 4 px outline (a Mermaid style's stroke-width) is thicker than a 1 px one.
    assert inked_rows(4) >= 2 * inked_rows(1)


# Mermaid 11.17's shape names (short name and aliases) that are no plain box, by payload shape.
NEWER_SHAPES = {
    "datastore": ("datastore", "data-store"),
    "folder": ("folder", "directory"),
    "cloud": ("cloud",),
    "person": ("person",),
    "bang": ("bang",),
    "console": ("console",),
    "browser": ("browser",),
    "bucket": ("bucket",),
}


@pytest.mark.parametrize("shape", sorted(NEWER_SHAPES))
def test_mermaid_shapes_added_in_11_are_read_and_drawn_as_their_figure(shape: str) -> None:
    from layoutkit.diagram import import_text

    for name in NEWER_SHAPES[shape]:
        payload = import_text(f'flowchart LR\nA@{{ shape: {name}, label: "Name" }}')
        assert payload["nodes"][0]["shape"] == shape
        assert "diagnostics" not in payload  # no shape_fallback note
    box = _shapes.shape_items("rect", 0, 0, 120, 60, "#fff", "#000", 1.0)
    assert _shapes.shape_items(shape, 0, 0, 120, 60, "#fff", "#000", 1.0) != box


def test_a_datastore_has_lines_above_and_below_and_open_sides() -> None:
    items = _shapes.shape_items("datastore", 0, 0, 120, 60, "#fff", "#000", 1.0)
    fill, *lines = items
    assert isinstance(fill, Box) and fill.stroke is None and fill.fill == "#fff"
    assert [(line.points[0], line.points[-1]) for line in lines] == [
        ((0, 0), (120, 0)),
        ((0, 60), (120, 60)),
    ]


def _inside(pt: tuple[float, float], poly: list[tuple[float, float]]) -> bool:
    x, y = pt
    hit = False
    for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1], strict=True):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            hit = not hit
    return hit


@pytest.mark.parametrize("shape", ["cloud", "bang", "folder"])
@pytest.mark.parametrize(
    "text", [(10.0, 17.0), (47.0, 17.0), (60.0, 34.0), (300.0, 17.0), (120.0, 120.0), (95.0, 51.0)]
)
def test_text_in_a_lumpy_shape_stays_inside_its_outline(
    shape: str, text: tuple[float, float]
) -> None:
    from layoutkit.diagram.labels import inner_box, outer_size

    w, h = outer_size(shape, *text)
    pts = _shapes.outline(shape, 0, 0, w, h, 1.0)
    assert pts is not None
    dx, dy, iw, ih = inner_box(shape, w, h)
    # The text block centred in the inner box: each of its corners is inside the figure.
    left, top = dx + (iw - text[0]) / 2, dy + (ih - text[1]) / 2
    for cx, cy in ((0, 0), (1, 0), (0, 1), (1, 1)):
        assert _inside((left + cx * text[0], top + cy * text[1]), pts)


def test_per_edge_curves_are_read_and_drawn() -> None:
    from layoutkit.diagram import import_text, lay_out
    from layoutkit.render._face_diagram import diagram_scene

    text = (
        "flowchart LR\nA e1@==> B\nA e2@--> C\nA e3@--> D\nA e4@--> E\n"
        "e1@{ curve: linear }\ne2@{ curve: natural }\ne3@{ curve: stepAfter }\n"
        "e4@{ animate: true }\n"
    )
    imported = import_text(text)
    curves = [e.get("curve") for e in imported["edges"]]
    assert curves == ["straight", "smooth", None, None]
    # only the animation is noted as ignored
    assert [d["code"] for d in imported["diagnostics"]] == ["ignored_edge_meta"]
    payload = lay_out(imported)
    routed = {(e["from"], e["to"]): e["points"] for e in payload["geo"]["edges"]}
    scene = diagram_scene(payload)
    wires = [i for i in scene.items if isinstance(i, Path) and not i.closed and len(i.points) > 1]

    def drawn(a: str, b: str) -> tuple[tuple[float, float], ...]:
        # the wire whose first point is where the layout starts this edge
        x0, y0 = routed[(a, b)][0]
        x1, y1 = routed[(a, b)][-1]
        ends = [
            w
            for w in wires
            if abs(w.points[-1][0] - w.points[0][0] - (x1 - x0)) < 0.5
            and abs(w.points[-1][1] - w.points[0][1] - (y1 - y0)) < 0.5
        ]
        assert ends, (a, b)
        return ends[0].points

    assert len(routed[("A", "B")]) >= 3  # B and C sit off A's line: the wires bend
    straight, smooth = drawn("A", "B"), drawn("A", "C")
    assert len(straight) == len(routed[("A", "B")]) - 1  # one corner cut away
    assert len(smooth) > 2 * len(routed[("A", "C")])  # a sampled curve
    # the curve leaves along its first run and meets the target along its last one
    (sx, sy), (tx, ty) = smooth[-2], smooth[-1]
    assert abs(sy - ty) < 0.5 and sx < tx
