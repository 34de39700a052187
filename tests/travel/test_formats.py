"""The pure format mappings (layoutkit.travel): what each kind becomes, sides from geometry,
real files read, and malformed files refused with the JSON path of the bad value."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from layoutkit import travel
from layoutkit.travel import TravelError

FIXTURES = Path(__file__).parent / "fixtures"
SCHEMA = json.loads((FIXTURES / "jsoncanvas.schema.json").read_text(encoding="utf-8"))
PNG_KEY = "sha256:" + "ab" * 32


def _card(i: int, kind: str, payload: dict[str, Any], box: tuple, parent: int | None = None):
    x, y, w, h = box
    return {
        "id": i,
        "kind": kind,
        "payload": payload,
        "x": x,
        "y": y,
        "w": w,
        "h": h,
        "parent": parent,
    }


BOARD = [
    _card(1, "section", {"title": "Plan", "layout": None}, (0, 0, 600, 300)),
    _card(2, "note", {"md": "buy milk", "color": "pink"}, (24, 72, 200.4, 99.6), 1),
    _card(3, "text", {"md": "# Title"}, (800, 80, 240, 120)),
    _card(4, "link", {"url": "https://example.com/a"}, (800, 400, 320, 200)),
    _card(5, "media", {"ref": PNG_KEY, "mime": "image/png", "alt": "shot"}, (300, 72, 200, 150), 1),
    _card(6, "chips", {"items": [{"k": "owner", "v": "ana"}]}, (0, 500, 300, 60)),
    _card(7, "cluster", {"title": "Odds"}, (-400, 0, 300, 300)),
]
EDGES = [
    {"id": 10, "from": 2, "to": 3, "label": "then"},
    {"id": 11, "from": 3, "to": 4, "rel": "depends-on"},
    {"id": 12, "from": 4, "to": 6},
    {"id": 13, "from": 6, "to": 7, "rel": "relates"},
]


def test_each_kind_becomes_the_node_the_table_names() -> None:
    out = travel.to_canvas(BOARD, EDGES)
    nodes = {n["id"]: n for n in out.document["nodes"]}
    assert {k: n["type"] for k, n in nodes.items()} == {
        "card-1": "group",
        "card-2": "text",
        "card-3": "text",
        "card-4": "link",
        "card-5": "file",
        "card-6": "text",
        "card-7": "group",
    }
    assert nodes["card-1"]["label"] == "Plan" and nodes["card-7"]["label"] == "Odds"
    assert nodes["card-2"]["text"] == "buy milk" and nodes["card-2"]["color"] == "1"
    assert nodes["card-4"]["url"] == "https://example.com/a"
    assert nodes["card-6"]["text"] == "owner ana"  # the text its face shows
    assert nodes["card-5"]["file"] == "files/shot.png"
    assert out.files == (travel.FileOut("files/shot.png", PNG_KEY, "image/png"),)
    # Boxes to the pixel, as the spec's integers; groups come first (drawn below).
    assert (nodes["card-2"]["x"], nodes["card-2"]["width"], nodes["card-2"]["height"]) == (
        24,
        200,
        100,
    )
    assert [n["type"] for n in out.document["nodes"][:2]] == ["group", "group"]


def test_the_canvas_export_is_valid_json_canvas() -> None:
    doc = travel.to_canvas(BOARD, EDGES).document
    errors = list(Draft202012Validator(SCHEMA).iter_errors(doc))
    assert errors == []
    fixture = json.loads((FIXTURES / "obsidian-sample.canvas").read_text(encoding="utf-8"))
    assert list(Draft202012Validator(SCHEMA).iter_errors(fixture)) == []


def test_sides_follow_the_geometry_and_the_arrow_points_at_the_end() -> None:
    edges = {e["id"]: e for e in travel.to_canvas(BOARD, EDGES).document["edges"]}
    # note (left, in the section) -> text to its right; text -> link below it.
    assert (edges["edge-10"]["fromSide"], edges["edge-10"]["toSide"]) == ("right", "left")
    assert (edges["edge-11"]["fromSide"], edges["edge-11"]["toSide"]) == ("bottom", "top")
    assert (edges["edge-12"]["fromSide"], edges["edge-12"]["toSide"]) == ("left", "right")
    assert all((e["fromEnd"], e["toEnd"]) == ("none", "arrow") for e in edges.values())
    assert edges["edge-10"]["label"] == "then"
    assert edges["edge-11"][travel.OWN_KEY] == {"rel": "depends-on"}


def test_a_canvas_export_reads_back_to_the_same_cards_and_wires() -> None:
    drawn = travel.read_canvas(travel.to_canvas(BOARD, EDGES).document)
    by_ref = {c.ref: c for c in drawn.cards}
    for card in BOARD:
        got = by_ref[f"card-{card['id']}"]
        assert (got.kind, got.payload) == (card["kind"], card["payload"])
        assert got.box == tuple(
            float(round(v)) for v in (card["x"], card["y"], card["w"], card["h"])
        )
    assert by_ref["card-1"].children == ("card-2", "card-5")
    wires = [(w.from_ref, w.to_ref, w.label, w.rel) for w in drawn.wires]
    assert wires == [
        ("card-2", "card-3", "then", None),
        ("card-3", "card-4", None, "depends-on"),
        ("card-4", "card-6", None, None),
        ("card-6", "card-7", None, "relates"),
    ]


def test_an_edited_text_wins_over_the_kind_a_canvas_carried() -> None:
    doc = travel.to_canvas(BOARD, EDGES).document
    for node in doc["nodes"]:
        if node["id"] == "card-2":
            node["text"] = "buy oat milk"
        if node["id"] == "card-6":
            node["text"] = "rewritten in Obsidian"
    by_ref = {c.ref: c for c in travel.read_canvas(doc).cards}
    assert (by_ref["card-2"].kind, by_ref["card-2"].payload) == (
        "note",
        {"md": "buy oat milk", "color": "pink"},
    )
    assert (by_ref["card-6"].kind, by_ref["card-6"].payload) == (
        "text",
        {"md": "rewritten in Obsidian"},
    )


def test_an_obsidian_canvas_reads_as_frames_cards_and_wires() -> None:
    doc = json.loads((FIXTURES / "obsidian-sample.canvas").read_text(encoding="utf-8"))
    drawn = travel.read_canvas(doc)
    by_ref = {c.ref: c for c in drawn.cards}
    group = by_ref["754a8ef995f366bc"]
    assert (group.kind, group.payload) == ("section", {"title": "JSON Canvas", "layout": None})
    # What lies inside the group is its child; the tall file node below it is not.
    assert group.children == ("7efdbbe0c4742315", "59e896bc8da20699")
    assert drawn.cards[0] is group  # frames come before what they hold
    logo = by_ref["7efdbbe0c4742315"]
    assert (logo.kind, logo.payload, logo.file) == ("file", {"name": "logo.svg"}, "_site/logo.svg")
    assert by_ref["0ba565e7f30e0652"].payload == {"url": "https://jsoncanvas.org/spec/1.0/"}
    idea = by_ref["c0ffee0000000001"]
    assert (idea.kind, idea.payload) == ("note", {"md": "A yellow idea", "color": "yellow"})
    assert idea.foreign == {"color": "3", "styleAttributes": {"shape": "pill"}}
    assert by_ref["8132d4d894c80022"].foreign == {"color": "6"}
    wires = [(w.from_ref, w.to_ref, w.label) for w in drawn.wires]
    assert wires == [
        ("7efdbbe0c4742315", "59e896bc8da20699", None),
        ("0ba565e7f30e0652", "c0ffee0000000001", "read it"),
        # The arrow sat at the start: the wire runs backwards.
        ("8132d4d894c80022", "c0ffee0000000001", None),
    ]
    assert drawn.wires[1].foreign == {"color": "4"}


def test_an_excalidraw_example_scene_reads_as_cards_frames_and_a_bound_arrow() -> None:
    doc = json.loads((FIXTURES / "initial-data.excalidraw").read_text(encoding="utf-8"))
    drawn = travel.read_excalidraw(doc)
    by_ref = {c.ref: c for c in drawn.cards}
    assert set(by_ref) == {"frame-1", "1", "2", "ellipse-1", "image-1", "free-1"}
    assert by_ref["frame-1"].payload == {"title": "My frame", "layout": None}
    assert by_ref["frame-1"].children == ("1", "2")
    assert by_ref["2"].payload == {"shape": "diamond", "label": "HELLO EXCALIDRAW"}
    assert by_ref["2"].foreign["text"]["strokeColor"] == "#099268"
    assert by_ref["1"].payload == {"shape": "rect"}
    assert by_ref["free-1"].payload == {"md": "A note to self"}
    image = by_ref["image-1"]
    assert image.kind == "media" and image.blob is not None
    assert image.blob[1] == "image/png" and image.blob[0].startswith(b"\x89PNG")
    assert image.box == (606.1042326312408, 153.57729779411773, 230.0, 230.0)
    (wire,) = drawn.wires
    assert (wire.from_ref, wire.to_ref, wire.label) == ("1", "ellipse-1", "HELLO WORLD!!")
    assert drawn.skipped == ("elements[8]: a line element has no card kind",)


def test_the_excalidraw_export_binds_arrows_and_text_on_both_ends() -> None:
    out = travel.to_excalidraw(BOARD, EDGES, blobs={PNG_KEY: b"\x89PNG fake"})
    els = {e["id"]: e for e in out.document["elements"]}
    assert out.document["type"] == "excalidraw" and out.document["version"] == 2
    arrow = els["edge-10"]
    assert arrow["startBinding"]["elementId"] == "card-2"
    assert arrow["endBinding"]["elementId"] == "card-3"
    assert {"id": "edge-10", "type": "arrow"} in els["card-2"]["boundElements"]
    assert {"id": "edge-10", "type": "arrow"} in els["card-3"]["boundElements"]
    label = els["edge-10-label"]
    assert (label["containerId"], label["text"]) == ("edge-10", "then")
    assert arrow["boundElements"] == [{"id": "edge-10-label", "type": "text"}]
    # The arrow runs from the note's right side to the text's left side.
    sx, sy = arrow["x"], arrow["y"]
    ex, ey = sx + arrow["points"][1][0], sy + arrow["points"][1][1]
    assert (sx, sy) == (24 + 200.4, 72 + 99.6 / 2) and (ex, ey) == (800, 80 + 60)
    text = els["card-2-text"]
    assert (text["containerId"], text["text"]) == ("card-2", "buy milk")
    assert {"id": "card-2-text", "type": "text"} in els["card-2"]["boundElements"]
    assert els["card-2"]["frameId"] == "card-1" and els["card-1"]["type"] == "frame"
    assert els["card-1"]["name"] == "Plan"
    image = els["card-5"]
    assert image["type"] == "image" and image["frameId"] == "card-1"
    assert out.document["files"][image["fileId"]]["dataURL"].startswith("data:image/png;base64,")
    # A loose relation is dashed, as the board draws it; a flow is solid.
    assert (els["edge-13"]["strokeStyle"], arrow["strokeStyle"]) == ("dashed", "solid")
    # Frames come after what they hold.
    order = [e["id"] for e in out.document["elements"]]
    assert order.index("card-1") > order.index("card-2")


def test_an_excalidraw_export_reads_back_to_the_same_cards_and_wires() -> None:
    out = travel.to_excalidraw(BOARD, EDGES, blobs={PNG_KEY: b"\x89PNG fake"})
    drawn = travel.read_excalidraw(out.document)
    by_ref = {c.ref: c for c in drawn.cards}
    for card in BOARD:
        got = by_ref[f"card-{card['id']}"]
        assert (got.kind, got.payload) == (card["kind"], card["payload"])
        assert got.box == (card["x"], card["y"], card["w"], card["h"])
        assert got.foreign == {}
    wires = [(w.from_ref, w.to_ref, w.label, w.rel) for w in drawn.wires]
    assert wires == [
        ("card-2", "card-3", "then", None),
        ("card-3", "card-4", None, "depends-on"),
        ("card-4", "card-6", None, None),
        ("card-6", "card-7", None, "relates"),
    ]


def _canvas(**changes: Any) -> dict[str, Any]:
    doc = json.loads((FIXTURES / "obsidian-sample.canvas").read_text(encoding="utf-8"))
    for path, value in changes.items():
        holder: Any = doc
        parts = path.split("__")
        for part in parts[:-1]:
            holder = holder[int(part)] if part.isdigit() else holder[part]
        last = parts[-1]
        if value is None:
            del holder[int(last) if last.isdigit() else last]
        else:
            holder[int(last) if last.isdigit() else last] = value
    return doc


@pytest.mark.parametrize(
    ("doc", "code", "field"),
    [
        ([], "invalid_file", ""),
        ({"nodes": {}}, "invalid_file", "nodes"),
        (_canvas(nodes__2__x="40"), "invalid_file", "nodes[2].x"),
        (_canvas(nodes__2__width=0), "invalid_file", "nodes[2].width"),
        (_canvas(nodes__3__type="video"), "invalid_file", "nodes[3].type"),
        (_canvas(nodes__2__text=None), "invalid_file", "nodes[2].text"),
        (_canvas(nodes__4__id="754a8ef995f366bc"), "duplicate_id", "nodes[4].id"),
        (_canvas(edges__1__toNode="nowhere"), "unknown_node", "edges[1].toNode"),
        (_canvas(edges__0__fromSide="middle"), "invalid_file", "edges[0].fromSide"),
        (_canvas(nodes__1__layoutkit="text"), "invalid_file", "nodes[1].layoutkit"),
    ],
)
def test_a_malformed_canvas_is_refused_with_the_path_of_the_bad_value(
    doc: Any, code: str, field: str
) -> None:
    with pytest.raises(TravelError) as refused:
        travel.read_canvas(doc)
    assert (refused.value.code, refused.value.fields["field"]) == (code, field)


def test_frames_nested_past_the_board_limit_are_refused_at_the_innermost() -> None:
    nodes = [
        {
            "id": f"g{i}",
            "type": "group",
            "x": i * 10,
            "y": i * 10,
            "width": 1000 - 20 * i,
            "height": 1000 - 20 * i,
            "label": f"level {i}",
        }
        for i in range(6)
    ]
    with pytest.raises(TravelError) as refused:
        travel.read_canvas({"nodes": nodes})
    assert refused.value.code == "nesting_too_deep"
    assert refused.value.fields["field"] == "nodes[5]"
    travel.read_canvas({"nodes": nodes[:5]})  # five levels are fine


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(type="scene"), "type"),
        (lambda d: d["elements"][0].update(x=None), "elements[0].x"),
        (lambda d: d["elements"][3].update(id="1"), "elements[3].id"),
        (lambda d: d["files"].pop("rocket"), "files.rocket"),
        (
            lambda d: d["files"]["rocket"].update(dataURL="http://x/y.png"),
            "files.rocket.dataURL",
        ),
        (
            lambda d: d["elements"][4]["startBinding"].update(elementId=7),
            "elements[4].startBinding.elementId",
        ),
    ],
)
def test_a_malformed_scene_is_refused_with_the_path_of_the_bad_value(
    change: Any, field: str
) -> None:
    doc = json.loads((FIXTURES / "initial-data.excalidraw").read_text(encoding="utf-8"))
    bad = copy.deepcopy(doc)
    change(bad)
    with pytest.raises(TravelError) as refused:
        travel.read_excalidraw(bad)
    assert refused.value.fields["field"] == field


def test_the_docs_page_shows_the_per_kind_tables() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "formats.md").read_text("utf-8")
    for kinds, becomes in (*travel.CANVAS_TABLE, *travel.EXCALIDRAW_TABLE):
        assert f"| {kinds} | {becomes} |" in page


_KINDS = st.sampled_from(
    [
        ("text", {"md": "plain *words*"}),
        ("note", {"md": "a note", "color": "blue"}),
        ("link", {"url": "https://example.org/x"}),
        ("chips", {"items": [{"k": "a", "v": "b"}]}),
        ("checklist", {"items": [{"text": "ship", "done": True}]}),
    ]
)
_BOX = st.tuples(
    st.floats(-5000, 5000, allow_nan=False),
    st.floats(-5000, 5000, allow_nan=False),
    st.floats(1, 900, allow_nan=False),
    st.floats(1, 900, allow_nan=False),
)


@settings(max_examples=40, deadline=None)
@given(
    cards=st.lists(st.tuples(_KINDS, _BOX), min_size=1, max_size=8),
    wires=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7), st.text(max_size=12))),
)
def test_any_frameless_board_reads_back_from_both_formats(
    cards: list[tuple[tuple[str, dict[str, Any]], tuple[float, ...]]],
    wires: list[tuple[int, int, str]],
) -> None:
    views = [_card(i + 1, kind, payload, box) for i, ((kind, payload), box) in enumerate(cards)]
    edges = [
        {"id": 100 + n, "from": a + 1, "to": b + 1, **({"label": label} if label else {})}
        for n, (a, b, label) in enumerate(wires)
        if a < len(cards) and b < len(cards) and a != b
    ]
    for fmt, write, read in (
        ("canvas", travel.to_canvas, travel.read_canvas),
        ("excalidraw", travel.to_excalidraw, travel.read_excalidraw),
    ):
        drawn = read(write(views, edges).document)
        by_ref = {c.ref: c for c in drawn.cards}
        for card in views:
            got = by_ref[f"card-{card['id']}"]
            assert (got.kind, got.payload) == (card["kind"], card["payload"]), fmt
            box = (card["x"], card["y"], card["w"], card["h"])
            if fmt == "canvas":
                box = (round(box[0]), round(box[1]), max(1, round(box[2])), max(1, round(box[3])))
            assert got.box == tuple(float(v) for v in box), fmt
        expected = [(f"card-{e['from']}", f"card-{e['to']}", e.get("label")) for e in edges]
        assert [(w.from_ref, w.to_ref, w.label) for w in drawn.wires] == expected, fmt
