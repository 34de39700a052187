"""Conformance of lay_out to the diagram rules: geometry, repairs, fallbacks, showcase, overrides."""

from __future__ import annotations

import copy
import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit.diagram import import_text, lay_out
from layoutkit.diagram.findings import composition_findings
from layoutkit.errors import DiagramError
from tests.refusal import refused


def _inside(b: dict, f: dict) -> bool:
    return (
        b["x"] >= f["x"] - 0.01
        and b["y"] >= f["y"] - 0.01
        and b["x"] + b["w"] <= f["x"] + f["w"] + 0.01
        and b["y"] + b["h"] <= f["y"] + f["h"] + 0.01
    )


def _orthogonal(points: list[list[float]]) -> bool:
    return all(a[0] == b[0] or a[1] == b[1] for a, b in itertools.pairwise(points))


GROUPED = {
    "title": "Checkout",
    "dir": "TD",
    "nodes": [{"id": "web", "title": "Web"}],
    "groups": [
        {
            "id": "core",
            "title": "Core services",
            "nodes": [
                {
                    "id": "api",
                    "title": "API",
                    "type": "endpoint",
                    "method": "POST",
                    "path": "/orders",
                    "codes": [201, 409],
                }
            ],
            "groups": [
                {
                    "id": "data",
                    "title": "Data",
                    "nodes": [
                        {
                            "id": "db",
                            "title": "Orders",
                            "type": "entity",
                            "columns": [{"name": "id", "type": "uuid", "pk": True}],
                        }
                    ],
                }
            ],
        }
    ],
    "edges": [
        {"from": "web", "to": "api", "label": "submit"},
        {"from": "api", "to": "db"},
        {"from": "web", "to": "data"},
    ],
}


def test_geo_has_every_box_and_orthogonal_routes() -> None:
    out = lay_out(GROUPED)
    geo = out["geo"]
    assert set(geo["nodes"]) == {"web", "api", "db"}
    assert set(geo["groups"]) == {"core", "data"}
    assert geo["width"] > 0 and geo["height"] > 0
    assert all(_orthogonal(e["points"]) for e in geo["edges"])
    assert composition_findings(geo) == []
    assert {"crossings", "bends", "area"} <= set(out["metrics"])


def test_groups_nest_and_contain_their_members() -> None:
    geo = lay_out(GROUPED)["geo"]
    assert _inside(geo["nodes"]["api"], geo["groups"]["core"])
    assert _inside(geo["nodes"]["db"], geo["groups"]["data"])
    assert _inside(geo["groups"]["data"], geo["groups"]["core"])
    assert not _inside(geo["nodes"]["web"], geo["groups"]["core"])


def test_edge_to_a_group_ends_on_its_frame() -> None:
    geo = lay_out(GROUPED)["geo"]
    edge = next(e for e in geo["edges"] if e["to"] == "data")
    f = geo["groups"]["data"]
    x, y = edge["points"][-1]
    on_x = f["x"] - 0.01 <= x <= f["x"] + f["w"] + 0.01
    on_y = f["y"] - 0.01 <= y <= f["y"] + f["h"] + 0.01
    assert on_x and on_y
    assert x in (f["x"], f["x"] + f["w"]) or y in (f["y"], f["y"] + f["h"])


def test_content_sizes_nodes() -> None:
    geo = lay_out(GROUPED)["geo"]
    plain = lay_out({"title": "t", "nodes": [{"id": "api", "title": "API"}], "edges": []})["geo"]
    assert geo["nodes"]["api"]["h"] > plain["nodes"]["api"]["h"]


def test_lanes_are_bands_holding_their_members() -> None:
    payload = {
        "title": "Flow",
        "lanes": [
            {"label": "Client", "nodes": [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}]},
            {"label": "Server", "nodes": [{"id": "c", "title": "C"}]},
        ],
        "edges": [{"from": "a", "to": "c"}, {"from": "c", "to": "b"}],
    }
    geo = lay_out(payload)["geo"]
    client, server = geo["lanes"]
    assert client["label"] == "Client"
    assert _inside(geo["nodes"]["a"], client) and _inside(geo["nodes"]["b"], client)
    assert _inside(geo["nodes"]["c"], server)
    assert client["x"] + client["w"] <= server["x"]


def test_ports_attach_on_their_side_in_order() -> None:
    payload = {
        "title": "Ports",
        "nodes": [
            {
                "id": "s",
                "title": "Switch",
                "ports": [
                    {"id": "p2", "side": "bottom", "order": 2},
                    {"id": "p1", "side": "bottom", "order": 1},
                ],
            },
            {"id": "x", "title": "X"},
            {"id": "y", "title": "Y"},
        ],
        "edges": [{"from": "s.p1", "to": "x"}, {"from": "s.p2", "to": "y"}],
    }
    geo = lay_out(payload)["geo"]
    ports = geo["ports"]["s"]
    assert ports["p1"]["x"] < ports["p2"]["x"]
    assert ports["p1"]["y"] == geo["nodes"]["s"]["y"] + geo["nodes"]["s"]["h"]
    first = {e["from"]: e["points"][0] for e in geo["edges"]}
    assert first["s.p1"] == [ports["p1"]["x"], ports["p1"]["y"]]


def test_self_loops_and_parallel_edges_are_distinct() -> None:
    payload = {
        "title": "Loops",
        "nodes": [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}],
        "edges": [{"from": "a", "to": "b"}, {"from": "a", "to": "b"}, {"from": "a", "to": "a"}],
    }
    geo = lay_out(payload)["geo"]
    routes = [e["points"] for e in geo["edges"]]
    assert routes[0] != routes[1]
    loop = geo["edges"][2]["points"]
    a = geo["nodes"]["a"]
    assert loop[0][0] == a["x"] + a["w"] and len(loop) == 4


def test_disconnected_components_are_apart() -> None:
    payload = {
        "title": "Two",
        "nodes": [{"id": k, "title": k} for k in "abcd"],
        "edges": [{"from": "a", "to": "b"}, {"from": "c", "to": "d"}],
    }
    geo = lay_out(payload)["geo"]
    left = max(geo["nodes"][k]["x"] + geo["nodes"][k]["w"] for k in "ab")
    right = min(geo["nodes"][k]["x"] for k in "cd")
    assert left < right


def test_lr_flows_left_to_right() -> None:
    geo = lay_out(
        {
            "title": "lr",
            "dir": "LR",
            "nodes": [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}],
            "edges": [{"from": "a", "to": "b"}],
        }
    )["geo"]
    assert geo["nodes"]["a"]["x"] + geo["nodes"]["a"]["w"] <= geo["nodes"]["b"]["x"]


def test_unknown_edge_end_is_dropped_and_repaired() -> None:
    out = lay_out(
        {
            "title": "t",
            "nodes": [{"id": "api", "title": "API"}],
            "edges": [{"from": "api", "to": "apj"}],
        }
    )
    assert out["geo"]["edges"] == []
    assert out["repairs"][0]["action"] == "dropped"
    assert out["repairs"][0]["didYouMean"] == ["api"]


def test_open_vocabulary_falls_back_with_a_fix() -> None:
    out = lay_out(
        {
            "title": "t",
            "nodes": [{"id": "a", "title": "A", "tone": "gren", "shape": "diamnd"}],
            "edges": [{"from": "a", "to": "a", "style": "dashd"}],
        }
    )
    codes = {d["code"]: d for d in out["diagnostics"]}
    assert codes["unknown_tone"]["fix"] == "use 'green'"
    assert codes["unknown_shape"]["fix"] == "use 'diamond'"
    assert codes["unknown_edge_style"]["fix"] == "use 'dashed'"


def test_showcase_fails_on_composition_findings() -> None:
    payload = {
        "title": "t",
        "quality": "showcase",
        "nodes": [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}],
        "edges": [],
        "overrides": {"b": {"x": 0, "y": 0}, "a": {"x": 0, "y": 0}},
    }
    with refused(DiagramError) as info:
        lay_out(payload)
    assert info.value.status == 422
    assert info.value.code == "composition_findings"
    assert info.value.body["findings"][0]["code"] == "node_overlap"
    ok = lay_out({**payload, "overrides": {}})
    assert "quality" not in ok


def test_overrides_survive_a_relayout() -> None:
    first = lay_out(
        {
            "title": "t",
            "nodes": [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}],
            "edges": [{"from": "a", "to": "b"}],
        }
    )
    moved = {**first, "overrides": {"b": {"x": 400, "y": 300}}}
    again = lay_out(moved)
    assert again["geo"]["nodes"]["b"]["x"] == 400 and again["geo"]["nodes"]["b"]["y"] == 300
    assert again["overrides"] == {"b": {"x": 400, "y": 300}}
    edge = again["geo"]["edges"][0]
    assert edge["points"][-1][1] == 300
    assert lay_out(again)["geo"] == again["geo"]


def test_diagram_text_is_imported_when_there_are_no_nodes() -> None:
    out = lay_out({"diagram_text": "flowchart LR\n  A[Start] --> B{Ok?}\n  B -->|yes| C"})
    assert set(out["geo"]["nodes"]) == {"A", "B", "C"}
    assert out["geo"]["edges"][1]["label"]["text"] == "yes"


def test_broken_text_reports_line_numbers() -> None:
    with refused(DiagramError) as info:
        import_text("flowchart TD\n  A --> B\n  subgraph x\n  C --> D")
    assert info.value.code == "diagram_text_invalid"
    assert info.value.body["findings"][0]["line"] == 3


def test_style_maps_to_tone() -> None:
    payload = import_text("flowchart LR\n  a --> b\n  style a fill:#f66\n  linkStyle 0 stroke:#f00")
    assert payload["nodes"][0]["tone"] == "red"
    # linkStyle colours map to the nearest tone, as node styles do.
    assert payload["edges"][0]["tone"] == "red"


def test_sequence_blocks_prefix_labels() -> None:
    payload = import_text(
        "sequenceDiagram\n  participant A as Alice\n  loop Every day\n    A->>B: hi\n  end"
    )
    assert payload["lanes"][0]["nodes"][0] == {"id": "A", "title": "Alice"}
    assert payload["edges"][0]["label"] == "[loop Every day] hi"


def test_state_markers_and_composites() -> None:
    payload = import_text(
        "stateDiagram-v2\n  [*] --> Idle\n  state Busy {\n    [*] --> Work\n  }\n  Idle --> Busy"
    )
    assert {n["id"]: n["title"] for n in payload["nodes"]} == {
        "root_start": "Start",
        "Idle": "Idle",
    }
    assert payload["groups"][0]["id"] == "Busy"


@st.composite
def graphs(draw: st.DrawFn) -> dict:
    n = draw(st.integers(2, 14))
    ids = [f"n{i}" for i in range(n)]
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=2 * n))
    grouped = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    labels = draw(st.booleans())
    nodes = [{"id": v, "title": f"Node {v}" * (1 + i % 2)} for i, v in enumerate(ids)]
    members = [nd for nd, g in zip(nodes, grouped, strict=True) if g]
    loose = [nd for nd, g in zip(nodes, grouped, strict=True) if not g]
    edges = [
        {"from": ids[a], "to": ids[b], **({"label": "uses"} if labels and (a + b) % 3 == 0 else {})}
        for a, b in pairs
    ]
    payload = {
        "title": "random",
        "dir": draw(st.sampled_from(["TD", "LR"])),
        "nodes": loose,
        "edges": edges,
    }
    group = {"id": "g", "title": "Group", "nodes": members}
    inner_dir = draw(st.sampled_from([None, "TD", "LR"]))
    if inner_dir:
        group["dir"] = inner_dir
    payload["groups"] = [group] if members else []
    return payload


@settings(max_examples=40, deadline=None)
@given(graphs())
def test_random_graphs_have_clean_deterministic_layouts(payload: dict) -> None:
    out = lay_out(payload)
    geo = out["geo"]
    findings = [
        f for f in composition_findings(geo) if f["code"] in ("node_overlap", "edge_through_node")
    ]
    assert findings == []
    if geo["groups"]:
        for nd in payload["groups"][0]["nodes"]:
            assert _inside(geo["nodes"][nd["id"]], geo["groups"]["g"])
        for nd in payload["nodes"]:
            assert not _inside(geo["nodes"][nd["id"]], geo["groups"]["g"])
    assert all(_orthogonal(e["points"]) for e in geo["edges"])
    # No sub-pixel jogs: every drawn piece of a route is at least a pixel long.
    for e in geo["edges"]:
        for p, q in itertools.pairwise(e["points"]):
            assert abs(p[0] - q[0]) + abs(p[1] - q[1]) >= 1.0, e
    assert json.dumps(lay_out(payload), sort_keys=True) == json.dumps(out, sort_keys=True)


@pytest.mark.parametrize(
    "name,payload",
    [
        ("grouped", GROUPED),
        (
            "flowchart",
            {
                "diagram_text": "flowchart TD\n  A[Start] --> B{Is it?}\n  B -->|Yes| C[OK]\n  C --> D[Rethink]\n  D --> B\n  B ---->|No| E[End]"
            },
        ),
        (
            "sequence",
            {
                "diagram_text": "sequenceDiagram\n  Alice->>John: Hello\n  John-->>Alice: Great!\n  Alice-)John: See you"
            },
        ),
        (
            "state",
            {
                "diagram_text": "stateDiagram-v2\n  [*] --> Still\n  Still --> [*]\n  Still --> Moving\n  Moving --> Still\n  Moving --> Crash\n  Crash --> [*]"
            },
        ),
    ],
)
def test_geo_snapshots(name: str, payload: dict, snapshot) -> None:
    assert lay_out(payload)["geo"] == snapshot


_PIPELINE = """flowchart TD
  A[Start] --> S
  subgraph S [Pipeline]
    direction LR
    p1[Parse] --> p2[Check] --> p3[Emit]
  end
  S --> Z[Done]
"""


def test_group_with_its_own_direction_is_laid_out_as_a_block() -> None:
    out = lay_out({"diagram_text": _PIPELINE})
    geo = out["geo"]
    p1, p2, p3 = (geo["nodes"][k] for k in ("p1", "p2", "p3"))
    assert p1["y"] == p2["y"] == p3["y"]
    assert p1["x"] < p2["x"] < p3["x"]
    frame = geo["groups"]["S"]
    assert all(_inside(geo["nodes"][k], frame) for k in ("p1", "p2", "p3"))
    assert geo["nodes"]["A"]["y"] + geo["nodes"]["A"]["h"] <= frame["y"]
    assert frame["y"] + frame["h"] <= geo["nodes"]["Z"]["y"]
    assert composition_findings(geo) == []
    assert all(_orthogonal(e["points"]) for e in geo["edges"])
    assert [e["index"] for e in geo["edges"]] == sorted(e["index"] for e in geo["edges"])
    assert out["metrics"]["edges"] == 4


def test_group_direction_yields_to_edges_leaving_the_group() -> None:
    out = lay_out({"diagram_text": _PIPELINE.replace("S --> Z[Done]", "p3 --> Z[Done]")})
    geo = out["geo"]
    ys = [geo["nodes"][k]["y"] for k in ("p1", "p2", "p3")]
    assert ys == sorted(ys) and len(set(ys)) == 3
    assert any(d.get("code") == "group_dir_ignored" for d in out["diagnostics"])


def test_nested_group_directions_alternate() -> None:
    payload = {
        "title": "nested",
        "dir": "LR",
        "nodes": [{"id": "in", "title": "In"}],
        "groups": [
            {
                "id": "outer",
                "title": "Outer",
                "dir": "TD",
                "nodes": [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}],
                "groups": [
                    {
                        "id": "row",
                        "title": "Row",
                        "dir": "LR",
                        "nodes": [{"id": "c", "title": "C"}, {"id": "d", "title": "D"}],
                    }
                ],
            }
        ],
        "edges": [
            {"from": "in", "to": "outer"},
            {"from": "a", "to": "b"},
            {"from": "b", "to": "row"},
            {"from": "c", "to": "d"},
        ],
    }
    geo = lay_out(payload)["geo"]
    n = geo["nodes"]
    assert n["in"]["x"] + n["in"]["w"] <= geo["groups"]["outer"]["x"]
    assert n["a"]["y"] < n["b"]["y"] < n["c"]["y"]
    assert n["c"]["y"] == n["d"]["y"] and n["c"]["x"] < n["d"]["x"]
    assert _inside(geo["groups"]["row"], geo["groups"]["outer"])
    assert composition_findings(geo) == []


_REVERSED = """flowchart LR
  subgraph TOP
    direction TB
    subgraph B1
        direction RL
        i1 -->f1
    end
    subgraph B2
        direction BT
        i2 -->f2
    end
  end
  A --> TOP --> B
  B1 --> B2
"""


def _runs(points: list[list[float]], axis: int) -> float:
    """How far a wire goes along ``axis`` from its start to its end."""
    return points[-1][axis] - points[0][axis]


def test_subgraph_directions_rl_and_bt_point_their_arrows_back() -> None:
    payload = import_text(_REVERSED)
    groups = {g["id"]: g for g in payload["groups"][0]["groups"]}
    assert (payload["groups"][0]["dir"], groups["B1"]["dir"], groups["B2"]["dir"]) == (
        "TD",
        "RL",
        "BT",
    )
    geo = lay_out(payload)["geo"]
    n, g = geo["nodes"], geo["groups"]
    assert n["f1"]["x"] + n["f1"]["w"] <= n["i1"]["x"] and n["f1"]["y"] == n["i1"]["y"]
    assert n["f2"]["y"] + n["f2"]["h"] <= n["i2"]["y"] and n["f2"]["x"] == n["i2"]["x"]
    wires = {(e["from"], e["to"]): e["points"] for e in geo["edges"]}
    assert _runs(wires[("i1", "f1")], 0) < 0 and _runs(wires[("i2", "f2")], 1) < 0
    band = 24.0
    for gid, members in (("B1", ("i1", "f1")), ("B2", ("i2", "f2"))):
        frame = {**g[gid], "y": g[gid]["y"] + band, "h": g[gid]["h"] - band}
        assert all(_inside(n[m], frame) for m in members), gid
    assert composition_findings(geo) == []
    assert all(_orthogonal(e["points"]) for e in geo["edges"])


@pytest.mark.parametrize("direction", ["BT", "RL"])
def test_a_reversed_group_keeps_nested_titles_above_their_members(direction: str) -> None:
    text = (
        f"flowchart TD\n  subgraph O [Outer]\n    direction {direction}\n    a --> b\n"
        "    subgraph N [Nested]\n      c --> d\n    end\n    b --> N\n  end\n  S --> O\n"
    )
    out = lay_out({"diagram_text": text})
    geo = out["geo"]
    n, g = geo["nodes"], geo["groups"]
    band = 24.0
    for gid, members in (("O", ("a", "b", "c", "d")), ("N", ("c", "d"))):
        frame = {**g[gid], "y": g[gid]["y"] + band, "h": g[gid]["h"] - band}
        assert all(_inside(n[m], frame) for m in members), gid
    assert _inside(g["N"], g["O"])
    at = "y" if direction == "BT" else "x"
    # a -> b and b -> the nested group run against the flow, up or leftwards.
    assert n["b"][at] < n["a"][at]
    assert g["N"][at] < n["b"][at]
    assert composition_findings(geo) == []
    assert not any(d.get("code") == "group_dir_ignored" for d in out["diagnostics"])


def test_moving_a_member_of_a_block_grows_its_frame() -> None:
    frame = lay_out({"diagram_text": _PIPELINE})["geo"]["groups"]["S"]
    moved = {"p3": {"x": frame["x"] + frame["w"] + 50, "y": frame["y"] + 40}}
    geo = lay_out({"diagram_text": _PIPELINE, "overrides": moved})["geo"]
    assert _inside(geo["nodes"]["p3"], geo["groups"]["S"])


def _box(x: float, y: float, w: float = 100, h: float = 100) -> dict:
    return {"x": x, "y": y, "w": w, "h": h}


def test_edge_through_node_counts_entering_not_grazing() -> None:
    nodes = {"a": _box(-300, 0), "b": _box(300, 0), "c": _box(0, 0), "d": _box(0, 300)}
    routes = [
        ("a", "b", [[-200, 50], [300, 50]]),  # straight through c
        ("a", "b", [[-200, 0], [300, 0]]),  # along c's top border
        ("a", "c.p", [[-200, 150], [50, 150], [50, 100]]),  # ends on c through a port
        ("a", "b", [[-200, 250], [50, 250], [50, 300]]),  # stops on d's border
        ("c", "b", [[50, 50], [350, 50]]),  # leaves its own node
    ]
    geo = {
        "nodes": nodes,
        "edges": [
            {"from": a, "to": b, "index": k, "points": pts} for k, (a, b, pts) in enumerate(routes)
        ],
    }
    assert [(f["edge"], f["node"]) for f in composition_findings(geo)] == [(0, "c")]


def test_edge_through_node_is_exact_for_a_slanted_route() -> None:
    # The slanted route cuts the corner of c for under 3 px of its 4,500: a check
    # that samples points along the route misses it.
    geo = {
        "nodes": {"a": _box(-2000, -2000, 40, 40), "b": _box(1700, 1600, 40, 40), "c": _box(0, 0)},
        "edges": [{"from": "a", "to": "b", "index": 0, "points": [[-1552, -1648], [1648, 1552]]}],
    }
    assert [(f["code"], f["node"]) for f in composition_findings(geo)] == [
        ("edge_through_node", "c")
    ]


def test_an_empty_diagram_lays_out_and_is_as_wide_as_its_title() -> None:
    """No nodes at all used to crash the placement step (a 500 from compose_board)."""
    out = lay_out({"title": "Nothing drawn yet", "nodes": [], "edges": []})
    geo = out["geo"]
    assert geo["nodes"] == {} and geo["edges"] == []
    title = geo["header"]["parts"][0]
    assert geo["width"] >= title["x"] + title["w"] + 16


def test_a_title_wider_than_the_graph_widens_the_diagram() -> None:
    geo = lay_out(
        {"title": "A diagram whose title is far wider than its one node", "nodes": [{"id": "a"}]}
    )["geo"]
    for part in geo["header"]["parts"]:
        assert part["x"] + part["w"] <= geo["width"] - 16


def test_a_composite_self_transition_loops_on_its_frame() -> None:
    text = "stateDiagram-v2\n[*] --> S\nstate S {\n  a --> b\n}\nS --> S : again\nS --> [*]"
    geo = lay_out({"diagram_text": text})["geo"]
    (loop,) = [e for e in geo["edges"] if e.get("loop")]
    frame = geo["groups"]["S"]
    right = frame["x"] + frame["w"]
    # Both ends sit on the frame's right side, and the loop stays outside the frame.
    assert loop["points"][0][0] == pytest.approx(right)
    assert loop["points"][-1][0] == pytest.approx(right)
    assert all(p[0] >= right - 0.01 for p in loop["points"])
    for nid in ("a", "b"):
        b = geo["nodes"][nid]
        assert all(not (b["x"] <= p[0] <= b["x"] + b["w"]) for p in loop["points"])


def test_edges_arriving_on_one_side_spread_wider_than_an_arrowhead() -> None:
    from layoutkit.diagram import import_text
    from layoutkit.diagram.placement import END_STEP

    text = "flowchart TD\n" + "\n".join(f"S{i}[s{i}] --> T[t]" for i in range(8))
    geo = lay_out(import_text(text) | {"title": "t"})["geo"]
    box = geo["nodes"]["T"]
    ends = sorted(e["points"][-1][0] for e in geo["edges"])
    # an arrowhead is 8 px wide: no two heads closer than END_STEP, all on the side
    assert all(b - a >= END_STEP - 0.01 for a, b in itertools.pairwise(ends))
    assert box["x"] < ends[0] and ends[-1] < box["x"] + box["w"]
    # the last upright run into the node: parallel wires keep the same gap
    runs = sorted(e["points"][-2][0] for e in geo["edges"])
    assert all(b - a >= END_STEP - 0.01 for a, b in itertools.pairwise(runs))


def test_disconnected_parts_keep_their_source_order() -> None:
    from layoutkit.diagram import import_text

    text = "flowchart TD\nA1 --> A2\nB1 --> B2\nB2 --> B3\nB3 --> B4\nC1 --> C2"
    geo = lay_out(import_text(text) | {"title": "t"})["geo"]
    xs = [geo["nodes"][f"{p}1"]["x"] for p in "ABC"]
    assert xs == sorted(xs)


def _within_drawing(box: dict, geo: dict) -> bool:
    return _inside(box, {"x": 0.0, "y": 0.0, "w": geo["width"], "h": geo["height"]})


@pytest.mark.parametrize(
    "text",
    [
        # A label wider than both nodes, on a straight edge: centred, it overhung the left.
        "flowchart TD\nA-->|an extremely long label that is wider than anything around it|B",
        "flowchart LR\nA-->|a label wider than anything around it in the picture|B\nA-->|and another|C",
        "flowchart TD\nsubgraph S\nA\nend\nA-->|a label leaving the frame far out|B\n"
        "B-->|back up into the group label|A",
        "flowchart TD\nA-->|a long self loop label on the node|A\nA-->B",
    ],
    ids=["wide-td", "wide-lr", "frame", "loop"],
)
def test_every_edge_label_is_inside_the_drawing(text: str) -> None:
    geo = lay_out(import_text(text) | {"title": "t"})["geo"]
    labels = [e["label"] for e in geo["edges"] if isinstance(e.get("label"), dict)]
    assert labels
    assert all(_within_drawing(lb, geo) for lb in labels), labels
    assert all(_within_drawing(n, geo) for n in geo["nodes"].values())


def test_disconnected_parts_are_packed_in_source_order_without_a_big_empty_band() -> None:
    # A tall part first, then short ones: they read left to right and top to bottom in the
    # order written, and the short ones stack beside the tall one instead of leaving a
    # band as high as it under themselves.
    tall = "\n".join(f"T{i} --> T{i + 1}" for i in range(6))
    short = "\n".join(f"S{i}a --> S{i}b" for i in range(5))
    geo = lay_out(import_text(f"flowchart TD\n{tall}\n{short}") | {"title": "t"})["geo"]
    nodes = geo["nodes"]
    firsts = [nodes["T0"]] + [nodes[f"S{i}a"] for i in range(5)]
    # Reading order: a later part starts right of an earlier one, or below it.
    for a, b in itertools.pairwise(firsts):
        assert b["x"] > a["x"] + a["w"] or b["y"] > a["y"] + a["h"], (a, b)
    used = sum(n["w"] * n["h"] for n in nodes.values())
    # One row of six parts would cover about a tenth of the drawing; packed, near a quarter.
    assert used / (geo["width"] * geo["height"]) > 0.2
    assert geo["height"] <= nodes["T6"]["y"] + nodes["T6"]["h"] + 40


def test_a_short_part_keeps_its_own_row_heights_beside_a_tall_one() -> None:
    # Parts shared layers: a short part beside a tall diamond kept the diamond's row
    # height as a gap between its own two nodes.
    def gap(text: str) -> float:
        nodes = lay_out(import_text(text) | {"title": "t"})["geo"]["nodes"]
        return nodes["G"]["y"] - (nodes["F"]["y"] + nodes["F"]["h"])

    alone = gap("flowchart TD\nF[Audit] --> G[Log]")
    tall = "A --> B{Is the payment authorised by the bank and the card issuer?} --> C"
    assert gap(f"flowchart TD\n{tall}\nF[Audit] --> G[Log]") == pytest.approx(alone)


@pytest.mark.parametrize(
    "text",
    ["flowchart TB\n    A & B--> C & D", "flowchart TB\nA --> C\nA --> D\nB --> C\nB --> D"],
    ids=["docs-0084", "docs-0085"],
)
def test_two_wires_passing_each_other_are_drawn_crossing_once_as_an_x(text: str) -> None:
    from layoutkit.render._face_diagram import diagram_scene
    from layoutkit.render._scene import Path

    payload = lay_out({"diagram_text": text})
    geo = payload["geo"]
    edges = {(e["from"], e["to"]): e for e in geo["edges"]}
    # The routes stay orthogonal; the two that would pass as a ladder are marked slant.
    assert all(_orthogonal(e["points"]) for e in geo["edges"])
    slanted = {k for k, e in edges.items() if e.get("slant")}
    assert slanted == {("A", "D"), ("B", "C")}
    # Drawn: each slanted wire is a straight line then its last run into the target.
    wires = [
        i.points
        for i in diagram_scene(payload).items
        if isinstance(i, Path) and not i.closed and len(i.points) == 3
    ]
    assert len(wires) == 2
    (p0, p1, _), (q0, q1, _) = wires
    assert p0[0] != p1[0] and q0[0] != q1[0]  # slanted
    # the two slanted pieces cross once
    den = (p1[0] - p0[0]) * (q1[1] - q0[1]) - (p1[1] - p0[1]) * (q1[0] - q0[0])
    t = ((q0[0] - p0[0]) * (q1[1] - q0[1]) - (q0[1] - p0[1]) * (q1[0] - q0[0])) / den
    u = ((q0[0] - p0[0]) * (p1[1] - p0[1]) - (q0[1] - p0[1]) * (p1[0] - p0[0])) / den
    assert 0 < t < 1 and 0 < u < 1
    assert composition_findings(geo) == []


def test_wires_from_frames_run_straight_between_the_sides_that_face() -> None:
    # Mermaid's docs-0099: ``three --> two`` left three's far side at the height of its
    # first member and ran three elbows past c1 -> a2; ``one --> two`` jogged sideways.
    text = (
        "flowchart TB\n c1-->a2\n subgraph one\n a1-->a2\n end\n subgraph two\n b1-->b2\n end\n"
        " subgraph three\n c1-->c2\n end\n one --> two\n three --> two\n two --> c2\n"
    )
    payload = lay_out(import_text(text) | {"title": "t"})
    geo = payload["geo"]
    groups = geo["groups"]
    wires = {(e["from"], e["to"]): e["points"] for e in geo["edges"]}
    one, two, three = groups["one"], groups["two"], groups["three"]
    (ax, ay), (bx, by) = wires[("one", "two")]
    assert ax == bx and ay == one["y"] + one["h"] and by == two["y"]
    (ax, ay), (bx, by) = wires[("three", "two")]
    assert ay == by and ax == three["x"] and bx == two["x"] + two["w"]
    assert max(one["y"], two["y"]) < ay < two["y"] + two["h"]
    assert payload["metrics"]["crossings"] == 0
    assert composition_findings(geo) == []


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(_json, _json)
def test_payload_copy_is_deepcopys(a: object, b: object) -> None:
    from layoutkit.diagram.engine import _deep_copy

    shared = [a, b]
    value = {"x": shared, "y": shared, "z": (a, shared), "w": [shared, {"k": shared}]}
    copied = _deep_copy(value, {})
    expected = copy.deepcopy(value)
    assert copied == expected
    # The same aliasing: a list met twice is one list in both copies.
    assert (copied["x"] is copied["y"]) == (expected["x"] is expected["y"]) is True
    assert copied["w"][1]["k"] is copied["x"] and copied["z"][1] is copied["x"]
    assert copied["x"] is not shared


@settings(max_examples=200, deadline=None)
@given(_json, _json)
def test_a_payload_value_is_copied_as_deepcopy_copies_it(a: object, b: object) -> None:
    """lay_out copies each payload value through marshal (plain data), or ``_deep_copy``."""
    from collections import OrderedDict

    from layoutkit.diagram.engine import _copy_value

    shared = [a, b]
    for value in (
        {"x": shared, "y": shared, "z": (a, shared), "w": [shared, {"k": shared}]},
        # marshal takes no subclass: the whole value goes to _deep_copy.
        {"x": shared, "y": shared, "z": (a, shared), "w": [shared, OrderedDict(k=shared)]},
    ):
        copied = _copy_value(value)
        expected = copy.deepcopy(value)
        assert copied == expected
        assert type(copied["w"][1]) is type(value["w"][1])
        assert copied["x"] is copied["y"] and copied["x"] is not shared
        assert copied["w"][1]["k"] is copied["x"] and copied["z"][1] is copied["x"]


def test_a_node_dropped_over_the_header_stays_below_it() -> None:
    payload = {
        "title": "Checkout flow",
        "nodes": [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}],
        "edges": [{"from": "a", "to": "b"}],
        "overrides": {"b": {"x": -30, "y": -20, "title": "Basket"}},
    }
    out = lay_out(payload)
    head, b = out["geo"]["header"], out["geo"]["nodes"]["b"]
    assert b["x"] == 0 and b["y"] >= head["y"] + head["h"]
    # The override is kept as the person sent it; only the drawing is held clear.
    assert out["overrides"] == {"b": {"x": -30, "y": -20, "title": "Basket"}}
