"""Labels in full and true shapes: the layout and the drawing measure the same lines.

Node titles and bodies and edge labels are wrapped by one module
(``layoutkit.diagram.labels``); these tests hold the layout's boxes against the
lines the drawing writes into them, for every shape.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from layoutkit.diagram import import_text, lay_out
from layoutkit.diagram.labels import (
    NO_TEXT,
    edge_label_lines,
    edge_label_size,
    outer_size,
    text_box,
)
from layoutkit.elements.vocab import NODE_SHAPES
from layoutkit.layout.text import text_width
from layoutkit.render._face_diagram import diagram_scene
from layoutkit.render._scene import Path as Line
from layoutkit.render._scene import Text
from tests.diagram.test_mermaid_corpus import _examples

TEXT_SHAPES = [s for s in NODE_SHAPES if s not in NO_TEXT and s != "person"]

words = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789", min_size=1, max_size=14)
texts = st.lists(
    st.tuples(words, st.sampled_from([" ", " ", " ", "\n"])), min_size=1, max_size=24
).map(lambda parts: "".join(w + sep for w, sep in parts).strip())


def _drawn(payload: dict[str, Any]) -> list[Text]:
    return [i for i in diagram_scene(lay_out(payload)).items if isinstance(i, Text)]


@settings(max_examples=60, deadline=None)
@given(title=texts, body=st.one_of(st.none(), texts), shape=st.sampled_from(TEXT_SHAPES))
@example(title="Diamond with\nline break", body=None, shape="diamond")
@example(title="Inner circle and some odd special characters", body=None, shape="circle")
def test_every_label_fits_the_box_the_layout_sized(
    title: str, body: str | None, shape: str
) -> None:
    node: dict[str, Any] = {"id": "n", "title": title, "shape": shape}
    if body:
        node["body"] = body
    geo = lay_out({"title": "t", "nodes": [node], "edges": []})["geo"]
    box = geo["nodes"]["n"]
    lab, (dx, dy, bw, bh) = text_box(node, shape, box["w"], box["h"])
    # Every word is written, in order, and none is cut short.
    assert " ".join(lab.title).split() == title.split()
    assert " ".join(lab.body).split() == (body or "").split()
    # The block lies inside the shape's inner box, which lies inside the node box.
    need_w, need_h = outer_size(shape, lab.width, lab.height)
    assert need_w <= box["w"] + 0.5 and need_h <= box["h"] + 0.5
    assert dx >= -0.01 and dy >= -0.01
    assert dx + bw <= box["w"] + 0.01 and dy + bh <= box["h"] + 0.01


@settings(max_examples=40, deadline=None)
@given(text=texts)
def test_edge_labels_are_drawn_on_the_lines_their_box_was_sized_for(text: str) -> None:
    out = lay_out(
        {"title": "t", "nodes": [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}],
         "edges": [{"from": "a", "to": "b", "label": text}]}
    )  # fmt: skip
    box = out["geo"]["edges"][0]["label"]
    assert (box["w"], box["h"]) == pytest.approx(edge_label_size(text), abs=0.02)
    lines = edge_label_lines(text, box["w"] - 8 + 0.5)
    assert lines == edge_label_lines(text)
    assert " ".join(lines).split() == text.split()
    drawn = [t for t in _drawn(out) if t.size == 12.0 and t.lines == tuple(lines)]
    assert drawn, "the label is written with the layout's lines"


def test_breaks_are_kept_and_nothing_is_cut_with_an_ellipsis() -> None:
    text = (
        'flowchart LR\nA["First line<br>second line<br/>third"] -- a fairly long edge '
        "label that needs two lines --> B(A rounded node with a title long enough to wrap)"
    )
    items = _drawn({"title": "t", "diagram_text": text})
    lines = [line for t in items for line in t.lines]
    assert [x for x in lines if x in ("First line", "second line", "third")] == [
        "First line",
        "second line",
        "third",
    ]
    assert not any("…" in line for line in lines)
    assert "that needs two lines" in " ".join(lines)
    assert "wrap" in " ".join(lines)


def test_font_awesome_prefixes_are_never_printed() -> None:
    items = _drawn(
        {"title": "t", "diagram_text": "flowchart LR\nA[fa:fa-user User] --> B[fab:fa-github Code]"}
    )
    joined = " ".join(line for t in items for line in t.lines)
    assert "fa:" not in joined and "fab:" not in joined and "fa-" not in joined
    assert "User" in joined and "Code" in joined
    # The prefix becomes the node's icon: a glyph left of the title.
    assert any(t.lines == ("☺",) for t in items)


@pytest.mark.parametrize("shape", ["circle", "diamond", "double-circle"])
def test_round_shapes_are_sized_to_their_wrapped_label(shape: str) -> None:
    title = "a decision with a label long enough to need several lines of text"
    geo = lay_out({"title": "t", "nodes": [{"id": "n", "title": title, "shape": shape}]})["geo"]
    box = geo["nodes"]["n"]
    lab, _ = text_box({"title": title}, shape, box["w"], box["h"])
    assert len(lab.title) >= 3
    # One long line would need a shape about twice as wide.
    assert box["w"] < 260


def test_every_mermaid_shape_name_is_drawn_as_a_known_shape() -> None:
    from layoutkit.diagram._flowchart import SHAPES

    assert set(SHAPES.values()) <= set(NODE_SHAPES)
    for name in ("notch-rect", "lin-cyl", "win-pane", "tri", "flip-tri", "bow-rect", "brace-r"):
        payload = import_text(f'flowchart LR\nA@{{ shape: {name}, label: "x" }}')
        assert payload["nodes"][0]["shape"] == SHAPES[name]
        assert not any(d["code"] == "shape_fallback" for d in payload.get("diagnostics", []))


STATES = """stateDiagram-v2
[*] --> Active
state Active {
  [*] --> Off
  Off --> On : press
  --
  [*] --> CapsOff
  CapsOff --> CapsOn : caps
}
state fork_state <<fork>>
Active --> fork_state
fork_state --> S2
fork_state --> S3
state join_state <<join>>
S2 --> join_state
S3 --> join_state
state if_state <<choice>>
join_state --> if_state
if_state --> Low: if n < 0
if_state --> High : if n >= 0
"""


def test_state_fork_join_bars_and_choice_diamond() -> None:
    for direction, tall in (("", False), ("direction LR\n", True)):
        text = STATES.replace("stateDiagram-v2\n", "stateDiagram-v2\n" + direction)
        geo = lay_out({"title": "t", "diagram_text": text})["geo"]
        for bar in ("fork_state", "join_state"):
            b = geo["nodes"][bar]
            assert (b["h"] > b["w"] * 4) if tall else (b["w"] > b["h"] * 4)
        choice = geo["nodes"]["if_state"]
        assert choice["w"] == choice["h"] <= 30
    scene = diagram_scene(lay_out({"title": "t", "diagram_text": STATES}))
    texts = " ".join(line for i in scene.items if isinstance(i, Text) for line in i.lines)
    # Regions are never titled with their internal ids, and choice shows no text.
    assert "divider-id" not in texts and "region-" not in texts and "if_state" not in texts


def test_concurrency_regions_are_split_by_a_dashed_divider() -> None:
    out = lay_out({"title": "t", "diagram_text": STATES})
    geo = out["geo"]
    regions = [g for g in geo["groups"] if g != "Active"]
    assert len(regions) == 2
    a, b = sorted((geo["groups"][r] for r in regions), key=lambda r: r["x"])
    scene = diagram_scene(out)
    dashed = [
        i
        for i in scene.items
        if isinstance(i, Line)
        and i.dash
        and len(i.points) == 2
        and i.points[0][0] == i.points[1][0]
    ]
    assert dashed, "a vertical dashed divider between the side-by-side regions"
    assert a["x"] + a["w"] <= b["x"]


def test_start_marker_never_sits_on_a_frame_title() -> None:
    text = (
        "stateDiagram-v2\n[*] --> First\nstate First {\n  [*] --> second\n  second --> [*]\n}\n"
        "state Second {\n  direction LR\n  [*] --> a\n  a --> [*]\n}\nFirst --> Second"
    )
    geo = lay_out({"title": "t", "diagram_text": text})["geo"]
    for gid, start in (("First", "First_start"), ("Second", "Second_start")):
        frame, marker = geo["groups"][gid], geo["nodes"][start]
        # The title line (12 px type) is drawn 5 px below the frame's top.
        assert marker["y"] >= frame["y"] + 5 + 12 * 1.35 - 0.01


@pytest.mark.parametrize(
    "name,text",
    [
        ("state-regions-fork-choice", STATES),
        (
            "state-nested-composites",
            "stateDiagram-v2\n[*] --> First\nstate First {\n [*] --> Second\n state Second {\n"
            "  [*] --> second\n  second --> Third\n  state Third {\n   [*] --> third\n"
            "   third --> [*]\n  }\n }\n}",
        ),
        (
            "flowchart-shapes-and-labels",
            "flowchart LR\nA[fa:fa-user Customer] -->|places an order with a long note| B{Stock?}\n"
            "B -->|yes| C[(Orders DB)]\nB -->|no| D>Backorder]\nC -.-> E((Done))\nD ==> E",
        ),
    ],
    ids=lambda v: v if "\n" not in v else "",
)
def test_geometry_snapshots(name: str, text: str, snapshot) -> None:
    assert lay_out({"title": name, "diagram_text": text})["geo"] == snapshot


def test_edges_meet_round_and_pointed_shapes_at_their_outline() -> None:
    out = lay_out({"title": "t", "diagram_text": "flowchart LR\nA --> B{Stock?} --> C((Done))"})
    geo = out["geo"]
    drawn = [
        i
        for i in diagram_scene(out).items
        if isinstance(i, Line) and not i.closed and len(i.points) >= 2 and i.stroke
    ]
    b, c = geo["nodes"]["B"], geo["nodes"]["C"]
    ends = [p for path in drawn for p in (path.points[0], path.points[-1])]

    def on_diamond(p: tuple[float, float]) -> bool:
        cx, cy = b["x"] + b["w"] / 2, b["y"] + b["h"] / 2
        return abs(abs(p[0] - cx) / (b["w"] / 2) + abs(p[1] - cy) / (b["h"] / 2) - 1) < 0.02

    def on_circle(p: tuple[float, float]) -> bool:
        cx, cy, r = c["x"] + c["w"] / 2, c["y"] + c["h"] / 2, c["w"] / 2
        return abs(((p[0] - cx) ** 2 + (p[1] - cy) ** 2) ** 0.5 - r) < 0.5

    # A diagram rendered on its own is drawn 1:1 at the geo's coordinates.
    assert sum(on_diamond(p) for p in ends) == 2
    assert any(on_circle(p) for p in ends)


def _written_lines(payload: dict[str, Any]) -> list[tuple[float, float, float, float]]:
    """Boxes of every written line below the header, from the font metrics the drawing uses."""
    out = []
    for it in diagram_scene(payload).items:
        if not isinstance(it, Text) or it.y < 45:
            continue
        for i, line in enumerate(it.lines):
            if not line.strip():
                continue
            w = text_width(line, it.size, it.font)
            x0 = it.x - {"middle": w / 2, "end": w}.get(it.anchor, 0.0)
            y0 = it.y + i * it.lh + (it.lh - it.size) / 2
            out.append((x0, y0, x0 + w, y0 + it.size))
    return out


@pytest.mark.parametrize(
    "path",
    _examples("flowchart") + _examples("state") + _examples("sequence"),
    ids=lambda p: f"{p.parent.name}-{p.stem}",
)
def test_no_two_written_lines_overlap_in_a_corpus_drawing(path: Path) -> None:
    expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text("utf-8"))
    if not expected.get("ok", True):
        pytest.skip("Mermaid itself refuses this example")
    boxes = _written_lines(lay_out({"title": "t", "diagram_text": path.read_text("utf-8")}))
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert min(a[2], b[2]) - max(a[0], b[0]) <= 1 or min(a[3], b[3]) - max(a[1], b[1]) <= 1


@pytest.mark.parametrize("direction", ["TD", "LR"])
def test_frame_titles_have_their_band_and_their_width(direction: str) -> None:
    text = (
        f"flowchart {direction}\nsubgraph s1 [A rather long subgraph title here]\nA-->B\nend\n"
        "subgraph s3 [Another quite long title for one node]\nD\n"
        "subgraph inner [Inner title]\n[*]\nE\nend\nend\nB-->D"
    ).replace("[*]\n", "")
    out = lay_out({"title": "t", "diagram_text": text})
    geo = out["geo"]
    titles = {"s1": "A rather long subgraph title here", "s3": "Another quite long title for one node", "inner": "Inner title"}  # fmt: skip
    members = {"s1": ["A", "B"], "s3": ["D", "inner"], "inner": ["E"]}
    for gid, title in titles.items():
        frame = geo["groups"][gid]
        assert frame["w"] >= text_width(title, 12, "sans-bold") + 20
        for m in members[gid]:
            box = geo["nodes"].get(m) or geo["groups"][m]
            # Members start below the title line (drawn 5 px under the frame's top).
            assert box["y"] >= frame["y"] + 5 + 12 * 1.35 - 0.01
    written = [line for i in diagram_scene(out).items if isinstance(i, Text) for line in i.lines]
    assert all(t in written for t in titles.values())


def _svg_lines(payload: dict[str, Any]) -> list[str]:
    """Every written line of a rendered diagram card, from its SVG ``tspan``s."""
    import html
    import re

    from layoutkit.render import render_card

    card = {"id": "c", "kind": "diagram", "x": 0, "y": 0, "w": 900, "h": 700, "payload": payload}
    svg = str(render_card(card, format="svg"))
    return [html.unescape(t) for t in re.findall(r"<tspan[^>]*>([^<]*)</tspan>", svg)]


def test_long_identifiers_break_at_their_boundaries_never_mid_word() -> None:
    from layoutkit.diagram.labels import wrap_lines

    words = [
        "com.example.billing.FMESummaryAggregatorService",
        "SharedDbInstanceForEveryTenantInTheCluster",
        "root\\Users\\someone\\AppData\\Local\\Programs",
        "very_long_snake_case_identifier_for_a_state_name",
    ]
    for word in words:
        lines = wrap_lines(word, 120, 14, "sans-bold")
        assert "".join(lines) == word and len(lines) > 1
        for a, b in itertools.pairwise(lines):
            # A cut falls after a separator or at a camelCase step, never inside a word.
            assert a[-1] in "._-/\\" or ((a[-1].islower() or a[-1].isdigit()) and b[0].isupper())
    text = "stateDiagram-v2\n" + "\n".join(f"s{k} : {w}" for k, w in enumerate(words))
    written = _svg_lines(lay_out({"title": "t", "diagram_text": text + "\ns0 --> s1"}))
    joined = "".join(written)
    for word in words:
        assert word in joined, word
    for a, b in itertools.pairwise(written):
        if a and b and any(a + b in w for w in words):
            assert not (a[-1].isalpha() and b[0].islower()), (a, b)


def test_underscores_that_are_not_emphasis_are_kept() -> None:
    payload = import_text("stateDiagram-v2\nTransition1_____ --> snake__case__x\nA : __bold__")
    written = _svg_lines(lay_out({"title": "t", **payload}))
    assert "Transition1_____" in written
    assert "snake__case__x" in written
    assert "bold" in written


def test_state_notes_are_drawn_as_note_shapes_beside_their_state() -> None:
    text = (
        "stateDiagram-v2\nState1 --> State2\nnote right of State1\n  Important\n  text\n"
        "end note\nnote left of State2 : left note"
    )
    out = lay_out({"title": "t", "diagram_text": text})
    assert [d for d in out["diagnostics"] if d.get("code") == "unknown_endpoint"] == []
    geo = out["geo"]
    notes = [nid for nid in geo["nodes"] if "----note-" in nid]
    assert len(notes) == 2
    written = _svg_lines(out)
    assert {"Important", "text", "left note"} <= set(written)
    from layoutkit.render import render_card

    card = {"id": "c", "kind": "diagram", "x": 0, "y": 0, "w": 700, "h": 600, "payload": out}
    svg = str(render_card(card, format="svg"))
    # The folded-corner note paper, once per note.
    assert svg.count("#fff6cc") == 2


@pytest.mark.parametrize("shape", ["diamond", "circle"])
def test_round_and_pointed_shapes_grow_before_a_third_line(shape: str) -> None:
    from layoutkit.diagram.labels import balanced_label

    lab = balanced_label({"title": "Is the payment authorised by the bank?"}, shape)
    assert len(lab.title) <= 2
    out = lay_out(
        {
            "title": "t",
            "nodes": [
                {"id": "q", "title": "Is the payment authorised by the bank?", "shape": shape}
            ],
        }
    )
    written = _svg_lines(out)
    assert [w for w in written if w in lab.title] == list(lab.title)


def test_flowchart_markdown_strings_drop_their_markers_and_keep_other_underscores() -> None:
    text = (
        'flowchart LR\nA["`**bold** _it_ and *em*`"] --> B[Transition1_____]\n'
        "B --> C[snake_case_name a * b * c]"
    )
    payload = lay_out({"title": "t", **import_text(text)})
    written = _svg_lines(payload)
    # A markdown title is drawn as runs of one face each: join those inside A's box.
    a = payload["geo"]["nodes"]["A"]
    runs = [
        t
        for t in _drawn(payload)
        if a["x"] <= t.x <= a["x"] + a["w"] and a["y"] <= t.y <= a["y"] + a["h"] and t.lines
    ]
    assert "".join(t.lines[0] for t in sorted(runs, key=lambda t: t.x)) == "bold it and em"
    assert "Transition1_____" in written
    assert "snake_case_name a * b * c" in written


@pytest.mark.parametrize("shape", ["diamond", "circle"])
@pytest.mark.parametrize("words", [3, 6, 9, 12, 18, 30])
def test_round_and_pointed_shapes_fit_their_text_up_to_the_cap(shape: str, words: int) -> None:
    from layoutkit.diagram.labels import MAX_TEXT, balanced_label, label, outer_size

    title = " ".join(["payment", "authorised", "bank"][k % 3] for k in range(words))
    lab = balanced_label({"title": title}, shape)
    # Two lines while the widest wrap holds the text in two; wider never than the cap.
    if len(label({"title": title}).title) <= 2:
        assert len(lab.title) <= 2
    assert lab.width <= MAX_TEXT
    out = lay_out({"title": "t", "nodes": [{"id": "q", "title": title, "shape": shape}]})
    box = out["geo"]["nodes"]["q"]
    need = outer_size(shape, lab.width, lab.height)
    assert box["w"] >= need[0] - 0.01 and box["h"] >= need[1] - 0.01
    assert [w for w in _svg_lines(out) if w in lab.title] == list(lab.title)


def test_a_markdown_subgraph_title_is_drawn_without_its_markers() -> None:
    text = 'flowchart LR\nsubgraph "`**Two** _parts_`"\n  c --> d\nend'
    written = _svg_lines(lay_out({"title": "t", **import_text(text)}))
    assert "Two parts" in written
    assert not any("**" in w for w in written)


@pytest.mark.parametrize(
    ("text", "shown", "icon"),
    [
        ("fa:fa-ban forbidden", "forbidden", "ban"),
        ("A fa:fa-camera-retro perhaps?", "A perhaps?", "camera"),
        ("fa:fa-envelope Mail", "Mail", "mail"),
        ("fa:fa-car Car", "Car", "car"),
        ("fa:fa-spinner", "", "spinner"),
        # Icons nobody draws drop without a trace; alone, the node names them.
        ("fa:fa-twitter for peace", "for peace", None),
        ("fab:fa-truck-bold a custom icon", "a custom icon", None),
        ("fa:fa-no-such-thing", "no such thing", None),
    ],
)
def test_font_awesome_tokens_become_an_icon_or_drop_cleanly(
    text: str, shown: str, icon: str | None
) -> None:
    from layoutkit.diagram.labels import display_text

    assert display_text(text) == (shown, icon)


def test_font_awesome_icons_are_drawn_and_an_icon_alone_sits_in_the_middle() -> None:
    from layoutkit.render._scene import Box, Ellipse, to_svg

    text = (
        'flowchart TD\nB["fa:fa-twitter for peace"]\nB-->C[fa:fa-ban forbidden]\n'
        "B-->D(fa:fa-spinner)\nB-->E(A fa:fa-camera-retro perhaps?)\n"
    )
    payload = lay_out({"title": "t", "diagram_text": text})
    scene = diagram_scene(payload)
    words = [line for t in scene.items if isinstance(t, Text) for line in t.lines]
    # No stray dot for the icon nobody draws, no Font Awesome name printed.
    assert "•" not in words and not any("fa" in w.split("-")[0] for w in words if ":" in w)
    assert {"for peace", "forbidden", "A perhaps?"} <= set(words)
    svg = to_svg(scene)
    assert svg.count("<ellipse") >= 8 + 2  # spinner dots, the ban ring, the camera lens
    # The spinner-only node: the one box holding eight dots, centred in it.
    boxes = [i for i in scene.items if isinstance(i, Box) and i.stroke and i.radius]
    dots = [i for i in scene.items if isinstance(i, Ellipse)]

    def inside(e: Ellipse, b: Box) -> bool:
        return b.x <= e.x and e.x + e.w <= b.x + b.w and b.y <= e.y and e.y + e.h <= b.y + b.h

    held = [(b, [e for e in dots if inside(e, b)]) for b in boxes]
    box, spinner = next((b, es) for b, es in held if len(es) == 8)
    cx = sum(e.x + e.w / 2 for e in spinner) / 8
    cy = sum(e.y + e.h / 2 for e in spinner) / 8
    assert abs(cx - (box.x + box.w / 2)) < 2.5 and abs(cy - (box.y + box.h / 2)) < 2.5


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab _*\n\t", max_size=16))
def test_styled_text_keeps_exactly_the_displayed_text(text: str) -> None:
    from layoutkit.diagram.labels import display_text, styled_text

    shown, faces, icon = styled_text(text)
    assert (shown, icon) == display_text(text)
    assert len(faces) == len(shown)


def test_markdown_bold_and_emphasis_in_a_title_are_drawn_as_such() -> None:
    from layoutkit.render._scene import to_svg

    text = 'flowchart LR\nmarkdown["`This **is** _Markdown_`"] --> plain["Plain title"]'
    payload = lay_out({"title": "t", "diagram_text": text})
    scene = diagram_scene(payload)
    runs = {t.lines[0]: t for t in scene.items if isinstance(t, Text) and t.lines}
    assert runs["This "].font == "sans" and not runs["This "].italic
    assert runs["is"].font == "sans-bold" and not runs["is"].italic
    assert runs["Markdown"].font == "sans" and runs["Markdown"].italic
    # one line, left to right, inside the node the layout sized
    box = payload["geo"]["nodes"]["markdown"]
    xs = [runs[k].x for k in ("This ", "is", "Markdown")]
    assert xs == sorted(xs) and len({runs[k].y for k in ("This ", "is", "Markdown")}) == 1
    right = runs["Markdown"].x + text_width("Markdown", runs["Markdown"].size, "sans")
    assert box["x"] <= xs[0] and right <= box["x"] + box["w"]
    # a title without markdown stays one bold item
    assert runs["Plain title"].font == "sans-bold"
    assert 'font-style="italic"' in to_svg(scene)


def test_markdown_bold_in_an_edge_label_is_drawn_bold_inside_its_box() -> None:
    text = 'flowchart LR\na -- "`Bold **edge label**`" --> b'
    payload = lay_out({"title": "t", "diagram_text": text})
    box = payload["geo"]["edges"][0]["label"]
    assert (box["w"], box["h"]) == pytest.approx(edge_label_size("Bold **edge label**"), abs=0.02)
    runs = {t.lines[0]: t for t in _drawn(payload) if t.size == 12.0 and t.lines}
    assert runs["Bold "].font == "sans" and runs["edge label"].font == "sans-bold"
    right = runs["edge label"].x + text_width("edge label", 12.0, "sans-bold")
    assert box["x"] < runs["Bold "].x and right < box["x"] + box["w"]
    # measured bold: wider than the same words in one regular face
    plain = edge_label_size("Bold edge label")
    assert box["w"] > plain[0]
