"""export_board and import_board through Workspace.call: round trips keep kinds, text,
boxes and wires; real files land as cards, frames and wires; foreign attributes survive a
re-export; a batch onto a board with cards goes into free space; bad files are refused
whole, with the path of the bad field."""

from __future__ import annotations

import base64
import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from layoutkit import ServiceError, Workspace
from layoutkit.limits import ARRANGE_CARDS
from layoutkit.principal import Principal

FIXTURES = Path(__file__).resolve().parents[2] / "travel" / "fixtures"
FORMATS = ("canvas", "excalidraw")


def _png(w: int = 8, h: int = 6, color: str = "#1971c2") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (w, h), color).save(out, format="PNG")
    return out.getvalue()


def _fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def _cards(ws: Workspace, board: str) -> list[dict[str, Any]]:
    return ws.call("scrape_board", {"board": board})["cards"]


def _stored(ws: Workspace, board: str) -> tuple[dict[int, Any], list[Any]]:
    with ws.store.transaction() as tx:
        record = tx.board_by_slug(ws.workspace_id, board)
        assert record is not None
        return {c.id: c for c in tx.cards(record.id)}, tx.edges(record.id)


def _overlap(a: Any, b: Any) -> bool:
    return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h


# ---------------------------------------------------------------- round trips

_MD = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=40
)
_CARD = st.one_of(
    st.builds(lambda md: {"kind": "text", "payload": {"md": md}}, _MD),
    st.builds(
        lambda md, color: {"kind": "note", "payload": {"md": md, "color": color}},
        _MD,
        st.sampled_from(["yellow", "pink", "blue", "green", "purple", "gray"]),
    ),
    st.builds(
        lambda n: {"kind": "link", "payload": {"url": f"https://example.com/{n}"}},
        st.integers(0, 999),
    ),
    st.builds(
        lambda k, v: {"kind": "chips", "payload": {"items": [{"k": k, "v": v}]}},
        st.sampled_from(["owner", "state"]),
        st.sampled_from(["ana", "done"]),
    ),
    st.builds(
        lambda t: {"kind": "callout", "payload": {"md": t, "tone": "warn"}},
        _MD,
    ),
)


@st.composite
def _boards(draw: st.DrawFn) -> dict[str, Any]:
    free = draw(st.lists(_CARD, min_size=1, max_size=6))
    inner = draw(st.lists(_CARD, min_size=0, max_size=3))
    cards = [{**c, "ref": f"c{i}"} for i, c in enumerate(free)]
    if inner:
        kids = [{**c, "ref": f"k{i}"} for i, c in enumerate(inner)]
        cards.append(
            {
                "kind": "section",
                "ref": "s",
                "payload": {"title": draw(st.sampled_from(["Plan", "Später"]))},
                "children": [k["ref"] for k in kids],
            }
        )
        cards += kids
    refs = [c["ref"] for c in cards]
    pairs = draw(
        st.lists(
            st.tuples(st.sampled_from(refs), st.sampled_from(refs), st.one_of(st.none(), _MD)),
            max_size=5,
        )
    )
    edges = [
        {"from": a, "to": b, **({"label": label} if label else {})}
        for a, b, label in pairs
        if a != b
    ]
    return {"cards": cards, "edges": edges}


def _round_trip(fmt: str, batch: dict[str, Any]) -> None:
    with Workspace.open() as ws:
        ws.call("create", {"kind": "board", "slug": "src"})
        ws.call("create", {"kind": "board", "slug": "dst"})
        ws.call("compose_board", {"board": "src", **batch})
        out = ws.call("export_board", {"board": "src", "format": fmt})
        got = ws.call("import_board", {"board": "dst", "document": out["document"]})
        before, wires_before = _stored(ws, "src")
        after, wires_after = _stored(ws, "dst")
        new_id = {int(c["ref"].removeprefix("card-")): c["id"] for c in got["cards"]}
        assert set(new_id) == set(before)
        for old, card in before.items():
            twin = after[new_id[old]]
            assert (twin.kind, twin.payload) == (card.kind, card.payload)
            assert twin.layer == "human"
            box = (card.x, card.y, card.w, card.h)
            back = (twin.x, twin.y, twin.w, twin.h)
            if fmt == "canvas":  # the spec's integers: to the pixel
                assert back == tuple(float(round(v)) for v in box)
            else:
                assert back == box
            assert (twin.parent_id is None) == (card.parent_id is None)
            if card.parent_id is not None:
                assert twin.parent_id == new_id[card.parent_id]
        ends = sorted((new_id[e.from_card], new_id[e.to_card], e.label or "") for e in wires_before)
        assert sorted((e.from_card, e.to_card, e.label or "") for e in wires_after) == ends


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=_boards())
def test_a_board_round_trips_through_the_file(fmt: str, batch: dict[str, Any]) -> None:
    _round_trip(fmt, batch)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_board_with_every_common_kind_round_trips(fmt: str) -> None:
    _round_trip(
        fmt,
        {
            "cards": [
                {"kind": "section", "ref": "s", "payload": {"title": "Plan"}, "children": ["a"]},
                {"kind": "note", "ref": "a", "payload": {"md": "**bold** idea", "color": "pink"}},
                {"kind": "text", "ref": "b", "payload": {"md": "# Heading\n\n- one\n- two"}},
                {"kind": "link", "ref": "c", "payload": {"url": "https://jsoncanvas.org"}},
                {"kind": "checklist", "ref": "d", "payload": {"items": [{"text": "ship"}]}},
                {"kind": "cluster", "ref": "e", "payload": {"title": "Odds"}, "children": ["f"]},
                {"kind": "shape", "ref": "f", "payload": {"shape": "diamond", "label": "?"}},
                # Frames inside frames come back nested (by what lies inside what).
                {"kind": "section", "ref": "g", "payload": {"title": "Outer"}, "children": ["h"]},
                {"kind": "cluster", "ref": "h", "payload": {"title": "Inner"}, "children": ["i"]},
                {"kind": "note", "ref": "i", "payload": {"md": "deep", "color": "green"}},
            ],
            "edges": [
                {"from": "a", "to": "b", "label": "then"},
                {"from": "b", "to": "c", "rel": "depends-on"},
                {"from": "d", "to": "e"},
            ],
        },
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_image_round_trips_with_its_bytes(fmt: str, ws: Workspace) -> None:
    data = _png()
    ws.call("create", {"kind": "board", "slug": "pics"})
    ws.call("create", {"kind": "board", "slug": "copy"})
    files = [{"name": "chart.png", "data": base64.b64encode(data).decode()}]
    (card,) = ws.call("upload_files", {"board": "pics", "files": files})["cards"]
    out = ws.call("export_board", {"board": "pics", "format": fmt})
    params: dict[str, Any] = {"board": "copy", "document": out["document"]}
    if fmt == "canvas":
        (entry,) = out["files"]
        assert base64.b64decode(entry["data"]) == data
        assert out["document"]["nodes"][0]["file"] == entry["path"] == "files/chart.png"
        params["files"] = {entry["path"]: entry["data"]}
    else:
        (picture,) = out["document"]["files"].values()
        assert picture["dataURL"] == "data:image/png;base64," + base64.b64encode(data).decode()
    (made,) = ws.call("import_board", params)["cards"]
    stored, _ = _stored(ws, "copy")
    twin = stored[made["id"]]
    original, _ = _stored(ws, "pics")
    assert (twin.kind, twin.payload) == ("media", original[card["id"]].payload)
    with ws.store.transaction() as tx:
        assert tx.blobs.get(twin.payload["ref"]) == data


# ---------------------------------------------------------------- real files


def test_an_obsidian_canvas_lands_as_frames_cards_and_wires(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "vault"})
    got = ws.call(
        "import_board", {"board": "vault", "document": _fixture("obsidian-sample.canvas")}
    )
    assert got["format"] == "canvas"
    by_ref = {c["ref"]: c for c in got["cards"]}
    group = by_ref["754a8ef995f366bc"]
    assert (group["kind"], group["x"], group["y"], group["w"], group["h"]) == (
        "section",
        -300,
        -460,
        610,
        200,
    )
    assert by_ref["59e896bc8da20699"]["container"] == group["id"]
    assert by_ref["8132d4d894c80022"]["container"] is None
    assert {c["kind"] for c in got["cards"]} == {"section", "file", "text", "link", "note"}
    assert len(got["edges"]) == 3
    stored, edges = _stored(ws, "vault")
    labels = {(e.from_card, e.to_card): e.label for e in edges}
    assert labels[(by_ref["0ba565e7f30e0652"]["id"], by_ref["c0ffee0000000001"]["id"])] == "read it"
    assert all(c.layer == "human" for c in stored.values())


def test_attributes_no_card_holds_survive_a_re_export(any_ws: Workspace) -> None:
    ws = any_ws
    ws.call("create", {"kind": "board", "slug": "vault"})
    got = ws.call(
        "import_board", {"board": "vault", "document": _fixture("obsidian-sample.canvas")}
    )
    out = ws.call("export_board", {"board": "vault", "format": "canvas"})
    by_id = {c["ref"]: f"card-{c['id']}" for c in got["cards"]}
    nodes = {n["id"]: n for n in out["document"]["nodes"]}
    idea = nodes[by_id["c0ffee0000000001"]]
    assert idea["styleAttributes"] == {"shape": "pill"} and idea["color"] == "3"
    assert nodes[by_id["8132d4d894c80022"]]["color"] == "6"
    (colored,) = [e for e in out["document"]["edges"] if e.get("label") == "read it"]
    assert colored["color"] == "4"
    # The wire that ran backwards in the file keeps running into the note.
    assert any(
        (e["fromNode"], e["toNode"]) == (by_id["8132d4d894c80022"], by_id["c0ffee0000000001"])
        for e in out["document"]["edges"]
    )


def test_excalidraws_example_scene_lands_with_its_image_frame_and_bound_arrow(
    any_ws: Workspace,
) -> None:
    ws = any_ws
    ws.call("create", {"kind": "board", "slug": "sketch"})
    scene = _fixture("initial-data.excalidraw")
    got = ws.call("import_board", {"board": "sketch", "document": scene})
    assert got["format"] == "excalidraw"
    assert got["skipped"] == ["elements[8]: a line element has no card kind"]
    by_ref = {c["ref"]: c for c in got["cards"]}
    assert by_ref["frame-1"]["kind"] == "section"
    assert by_ref["1"]["container"] == by_ref["2"]["container"] == by_ref["frame-1"]["id"]
    stored, edges = _stored(ws, "sketch")
    image = stored[by_ref["image-1"]["id"]]
    assert image.kind == "media"
    assert (image.payload["natW"], image.payload["natH"], image.payload["mime"]) == (
        4,
        3,
        "image/png",
    )
    assert (image.x, image.w) == (606.1042326312408, 230)
    (edge,) = edges
    assert (edge.from_card, edge.to_card, edge.label) == (
        by_ref["1"]["id"],
        by_ref["ellipse-1"]["id"],
        "HELLO WORLD!!",
    )
    # Exported again, the scene keeps the author's stroke colour and font on the diamond.
    out = ws.call("export_board", {"board": "sketch", "format": "excalidraw"})
    els = {e["id"]: e for e in out["document"]["elements"]}
    diamond_text = els[f"card-{by_ref['2']['id']}-text"]
    assert (diamond_text["strokeColor"], diamond_text["fontSize"]) == ("#099268", 30)
    assert els[f"card-{by_ref['image-1']['id']}"]["type"] == "image"


# ---------------------------------------------------------------- placement


def test_onto_a_board_with_cards_the_drawing_moves_as_one_block_into_free_space(
    ws: Workspace,
) -> None:
    ws.call("create", {"kind": "board", "slug": "busy"})
    notes = [{"kind": "note", "payload": {"md": f"n{i}"}} for i in range(5)]
    ws.call("compose_board", {"board": "busy", "cards": notes})
    before, _ = _stored(ws, "busy")
    doc = _fixture("obsidian-sample.canvas")
    got = ws.call("import_board", {"board": "busy", "document": doc})
    after, _ = _stored(ws, "busy")
    new = [after[c["id"]] for c in got["cards"]]
    assert not any(_overlap(a, b) for a in new for b in before.values())
    # Every node moved by the same offset: the drawing is kept as drawn.
    nodes = {n["id"]: n for n in doc["nodes"]}
    shifts = {
        (after[c["id"]].x - nodes[c["ref"]]["x"], after[c["id"]].y - nodes[c["ref"]]["y"])
        for c in got["cards"]
    }
    assert len(shifts) == 1 and shifts != {(0.0, 0.0)}
    assert all(c.x == before[c.id].x and c.y == before[c.id].y for c in before.values())


def test_layout_auto_lets_the_engine_place_everything_afresh(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "auto"})
    doc = _fixture("obsidian-sample.canvas")
    got = ws.call("import_board", {"board": "auto", "document": doc, "layout": "auto"})
    assert {c["placedAs"] for c in got["cards"]} <= {"free", "child"}
    stored, _ = _stored(ws, "auto")
    top = [c for c in stored.values() if c.parent_id is None]
    assert not any(_overlap(a, b) for a in top for b in top if a.id < b.id)
    assert len(got["edges"]) == 3


def test_an_agents_import_lands_on_the_human_layer(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "agent"})
    agent = ws.authenticate(ws.create_token("agent", "bot"))
    assert agent is not None and agent.layer == "ai"
    ws.call(
        "import_board", {"board": "agent", "document": _fixture("obsidian-sample.canvas")}, agent
    )
    stored, _ = _stored(ws, "agent")
    assert {c.layer for c in stored.values()} == {"human"}


# ---------------------------------------------------------------- refusals


def _refused(ws: Workspace, params: dict[str, Any]) -> ServiceError:
    with pytest.raises(ServiceError) as refused:
        ws.call("import_board", params)
    return refused.value


def test_a_malformed_file_is_refused_whole_with_the_path_of_the_bad_field(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "strict"})
    doc = _fixture("obsidian-sample.canvas")
    doc["nodes"][4]["y"] = "high"
    err = _refused(ws, {"board": "strict", "document": doc})
    assert (err.status, err.code, err.body["field"]) == (400, "invalid_file", "document.nodes[4].y")
    scene = _fixture("initial-data.excalidraw")
    scene["elements"][4]["endBinding"] = {"elementId": 12}
    err = _refused(ws, {"board": "strict", "document": scene})
    assert err.body["field"] == "document.elements[4].endBinding.elementId"
    assert _cards(ws, "strict") == []


def test_a_card_the_contract_refuses_names_its_node_and_nothing_is_written(
    ws: Workspace,
) -> None:
    ws.call("create", {"kind": "board", "slug": "strict"})
    doc = _fixture("obsidian-sample.canvas")
    last = copy.deepcopy(doc["nodes"][2])
    own = {"kind": "checklist", "payload": {"items": "x"}, "text": last["text"]}
    last.update(id="late", x=2000, layoutkit=own)
    doc["nodes"].append(last)
    err = _refused(ws, {"board": "strict", "document": doc})
    assert (err.status, err.body["field"]) == (400, "document.nodes[6]")
    assert "checklist" in err.message
    assert _cards(ws, "strict") == []


def test_an_import_is_bounded_like_a_compose(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "big"})
    nodes = [
        {"id": f"n{i}", "type": "text", "text": "x", "x": i, "y": 0, "width": 1, "height": 1}
        for i in range(ARRANGE_CARDS + 1)
    ]
    err = _refused(ws, {"board": "big", "document": {"nodes": nodes}})
    assert (err.status, err.code, err.body["limit"]) == (413, "limit_exceeded", "arrangeCards")
    text = {"id": "t", "type": "text", "text": "x" * (9 * 1024 * 1024), "x": 0, "y": 0,
            "width": 9, "height": 9}  # fmt: skip
    err = _refused(ws, {"board": "big", "document": {"nodes": [text]}})
    assert (err.status, err.code) == (413, "payload_too_large")
    assert _cards(ws, "big") == []


def test_an_empty_file_and_bad_attachments_are_refused(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "empty"})
    err = _refused(ws, {"board": "empty", "document": {"nodes": []}})
    assert (err.code, err.body["field"]) == ("invalid_file", "document.nodes")
    doc = {"nodes": [{"id": "f", "type": "file", "file": "a.png", "x": 0, "y": 0, "width": 9,
                      "height": 9}]}  # fmt: skip
    err = _refused(ws, {"board": "empty", "document": doc, "files": {"a.png": "%%%"}})
    assert (err.code, err.body["field"]) == ("invalid_base64", "files.a.png")


# ---------------------------------------------------------------- export scope


def test_an_export_takes_a_section_or_a_list_of_cards(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "parts"})
    made = ws.call(
        "compose_board",
        {
            "board": "parts",
            "cards": [
                {"kind": "section", "ref": "s", "payload": {"title": "Plan"}, "children": ["a"]},
                {"kind": "note", "ref": "a", "payload": {"md": "inside"}},
                {"kind": "note", "ref": "b", "payload": {"md": "outside"}},
            ],
            "edges": [{"from": "a", "to": "b"}],
        },
    )["cards"]
    ids = {c["ref"]: c["id"] for c in made}
    part = ws.call("export_board", {"board": "parts", "format": "canvas", "section": "Plan"})
    assert sorted(n["id"] for n in part["document"]["nodes"]) == sorted(
        [f"card-{ids['s']}", f"card-{ids['a']}"]
    )
    assert part["document"]["edges"] == []  # the wire leaves the section
    picked = ws.call(
        "export_board", {"board": "parts", "format": "excalidraw", "cards": [ids["a"], ids["b"]]}
    )
    assert picked["cards"] == 2 and picked["edges"] == 1
    with pytest.raises(ServiceError) as refused:
        ws.call("export_board", {"board": "parts", "format": "canvas", "cards": [999]})
    assert (refused.value.status, refused.value.body["field"]) == (404, "cards[0]")
    with pytest.raises(ServiceError) as refused:
        ws.call(
            "export_board", {"board": "parts", "format": "canvas", "section": "Plan", "cards": [1]}
        )
    assert refused.value.code == "exclusive_params"


def test_a_share_link_may_export_its_board(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "shown"})
    ws.call(
        "compose_board", {"board": "shown", "cards": [{"kind": "note", "payload": {"md": "x"}}]}
    )
    link = ws.call("share_board", {"board": "shown"})["url"].rsplit("/", 1)[-1]
    viewer = ws.authenticate(link)
    assert isinstance(viewer, Principal)
    out = ws.call("export_board", {"board": "shown", "format": "canvas"}, viewer)
    assert out["cards"] == 1
    with pytest.raises(ServiceError) as refused:
        ws.call("import_board", {"board": "shown", "document": {"nodes": []}}, viewer)
    assert refused.value.status == 403


def test_an_import_retried_under_its_request_key_lands_once(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "once"})
    params = {"board": "once", "document": _fixture("obsidian-sample.canvas"), "requestKey": "k1"}
    first = ws.call("import_board", params)
    again = ws.call("import_board", params)
    assert again == first
    assert len(_cards(ws, "once")) == len(first["cards"])
    changed = {**params, "layout": "auto"}
    with pytest.raises(ServiceError) as refused:
        ws.call("import_board", changed)
    assert refused.value.status == 409
