"""State diagrams drawn as Mermaid draws them (issue 31): notes beside their state, a
two-state cycle as two apart wires, start markers over their target, composites in a
column, a composite's self-loop clear of other wires."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from layoutkit.diagram import lay_out
from tests.diagram.test_mermaid_corpus import CORPUS


def _geo(text: str) -> dict[str, Any]:
    return lay_out({"diagram_text": text})["geo"]


def _corpus(name: str) -> str:
    path = CORPUS / "state" / f"{name}.mmd"
    if not path.is_file():
        pytest.skip("shared Mermaid corpus not found next to the repo")
    return Path(path).read_text("utf-8")


def _mid(b: dict[str, float], axis: int) -> float:
    return b["x"] + b["w"] / 2 if axis == 0 else b["y"] + b["h"] / 2


NOTES = (
    "stateDiagram-v2\nState1: The state with a note\nnote right of State1\n"
    "  Important information! You can write\n  notes.\nend note\nState1 --> State2\n"
    "note left of State2 : This is the note to the left."
)


@pytest.mark.parametrize("text", [NOTES, "corpus"], ids=["small", "docs-0014"])
def test_a_note_sits_beside_its_state_on_the_side_it_names(text: str) -> None:
    geo = _geo(_corpus("docs-0014") if text == "corpus" else text)
    nodes = geo["nodes"]
    for note, state, side in (
        ("State1----note-0", "State1", "right"),
        ("State2----note-1", "State2", "left"),
    ):
        n, s = nodes[note], nodes[state]
        if side == "right":
            assert n["x"] >= s["x"] + s["w"]
        else:
            assert n["x"] + n["w"] <= s["x"]
        # Beside, not above or below: the two boxes share rows.
        assert n["y"] < s["y"] + s["h"] and s["y"] < n["y"] + n["h"]
    # The dotted tie runs level between the two boxes.
    ties = [e for e in geo["edges"] if "----note-" in e["from"] + e["to"]]
    assert len(ties) == 2
    for e in ties:
        assert len(e["points"]) == 2 and e["points"][0][1] == e["points"][1][1]


@pytest.mark.parametrize("end", ["", "B --> [*]\n"], ids=["alone", "beside-an-end-marker"])
def test_a_note_in_a_left_right_diagram_is_beside_its_state_too(end: str) -> None:
    text = "stateDiagram-v2\ndirection LR\nA --> B\n" + end
    geo = _geo(text + "note left of A : why\nnote right of B : how")
    nodes = geo["nodes"]
    left, a = nodes["A----note-0"], nodes["A"]
    right, b = nodes["B----note-1"], nodes["B"]
    assert left["x"] + left["w"] <= a["x"]
    assert right["x"] >= b["x"] + b["w"]
    for n, s in ((left, a), (right, b)):
        assert n["y"] < s["y"] + s["h"] and s["y"] < n["y"] + n["h"]


def _pieces(points: list[list[float]]) -> list[tuple[list[float], list[float]]]:
    return list(itertools.pairwise(points))


def _cross(p: tuple[list[float], list[float]], q: tuple[list[float], list[float]]) -> bool:
    """Whether two axis-parallel pieces meet (touching counts)."""
    (ax, ay), (bx, by) = p
    (cx, cy), (dx, dy) = q
    return max(min(ax, bx), min(cx, dx)) <= min(max(ax, bx), max(cx, dx)) and max(
        min(ay, by), min(cy, dy)
    ) <= min(max(ay, by), max(cy, dy))


def _gap(p: tuple[list[float], list[float]], q: tuple[list[float], list[float]]) -> float:
    """Least distance between two axis-parallel pieces (0 when they meet)."""
    (ax, ay), (bx, by) = p
    (cx, cy), (dx, dy) = q
    gx = max(0.0, max(min(ax, bx), min(cx, dx)) - min(max(ax, bx), max(cx, dx)))
    gy = max(0.0, max(min(ay, by), min(cy, dy)) - min(max(ay, by), max(cy, dy)))
    return (gx * gx + gy * gy) ** 0.5


CYCLE = "stateDiagram-v2\n[*] --> Still\nStill --> [*]\nStill --> Moving\nMoving --> Still\n"


@pytest.mark.parametrize("name", ["small", "docs-0001", "docs-0002", "ex-0001"])
def test_a_two_state_cycle_is_two_wires_apart(name: str) -> None:
    geo = _geo(CYCLE if name == "small" else _corpus(name))
    there = next(e for e in geo["edges"] if (e["from"], e["to"]) == ("Still", "Moving"))
    back = next(e for e in geo["edges"] if (e["from"], e["to"]) == ("Moving", "Still"))
    gaps = [_gap(p, q) for p in _pieces(there["points"]) for q in _pieces(back["points"])]
    assert min(gaps) >= 8.0


@pytest.mark.parametrize("direction", ["TB", "LR"])
@pytest.mark.parametrize("name", ["docs-0001", "docs-0017", "docs-0018", "ex-0001"])
def test_a_two_state_cycle_is_two_straight_wires_each_way(name: str, direction: str) -> None:
    text = _corpus(name)
    if direction == "LR":
        text = text.replace("stateDiagram", "stateDiagram\ndirection LR", 1).replace(
            "direction TB", ""
        )
    geo = _geo(text)
    nodes = geo["nodes"]
    there = next(e for e in geo["edges"] if (e["from"], e["to"]) == ("Still", "Moving"))
    back = next(e for e in geo["edges"] if (e["from"], e["to"]) == ("Moving", "Still"))
    # one straight run each, across the width the two states share, in opposite senses
    assert len(there["points"]) == len(back["points"]) == 2
    across = 0 if direction == "TB" else 1  # the axis the wires stand apart on
    along = 1 - across
    lo = max(nodes[k][("x", "y")[across]] for k in ("Still", "Moving"))
    hi = min(
        nodes[k][("x", "y")[across]] + nodes[k][("w", "h")[across]] for k in ("Still", "Moving")
    )
    for wire in (there, back):
        (a, b) = wire["points"]
        assert a[across] == b[across] and lo < a[across] < hi
    assert abs(there["points"][0][across] - back["points"][0][across]) >= 10.0
    assert there["points"][1][along] > there["points"][0][along]
    assert back["points"][1][along] < back["points"][0][along]


@pytest.mark.parametrize("direction", ["TB", "LR"])
def test_arrowheads_into_the_end_marker_stand_apart(direction: str) -> None:
    text = _corpus("docs-0001")
    if direction == "LR":
        text = text.replace("stateDiagram-v2", "stateDiagram-v2\ndirection LR", 1)
    geo = _geo(text)
    into = [e["points"] for e in geo["edges"] if e["to"] == "root_end"]
    assert len(into) == 2
    (a0, a1), (b0, b1) = (p[-2:] for p in into)

    def heading(p: list[float], q: list[float]) -> tuple[int, int]:
        return (q[0] > p[0]) - (q[0] < p[0]), (q[1] > p[1]) - (q[1] < p[1])

    # from two sides of the marker, or from one side well apart
    far = abs(a1[0] - b1[0]) + abs(a1[1] - b1[1])
    assert heading(a0, a1) != heading(b0, b1) or far >= 16.0


START = (
    "stateDiagram-v2\n[*] --> Wide\nWide : a state with a long description\nWide --> B\n"
    "state B {\n  [*] --> inner_state_with_a_long_name\n  inner_state_with_a_long_name --> x\n}\n"
    "B --> [*]"
)


@pytest.mark.parametrize("name", ["small", "docs-0001", "docs-0009", "docs-0010", "docs-0011"])
def test_a_start_marker_sits_over_what_it_points_to(name: str) -> None:
    payload = lay_out({"diagram_text": START if name == "small" else _corpus(name)})
    geo = payload["geo"]
    checked = 0
    for e in geo["edges"]:
        if not e["from"].endswith("_start") or e["to"] in geo["groups"]:
            continue
        start, target = geo["nodes"][e["from"]], geo["nodes"][e["to"]]
        assert abs(_mid(start, 0) - _mid(target, 0)) <= 1.5, e
        checked += 1
    assert checked


LOOP = (
    "stateDiagram-v2\n[*] --> State1\nState1 --> State2\nState2 --> State3\n"
    "state State3 {\n  [*] --> inner1\n  inner1 --> inner2\n  inner2 --> [*]\n}\n"
    "State3 --> State3 : again\nState3 --> State4\nState4 --> State1\nState4 --> [*]"
)


FREE_RIGHT = (
    "stateDiagram-v2\n[*] --> State1\nState1 --> State2\nState1 --> State3\n"
    "state State3 {\n  [*] --> sub\n  sub --> [*]\n}\nState3 --> State3 : loop\n"
    "State3 --> State4\nState2 --> State4\nState4 --> State1"
)


@pytest.mark.parametrize("text", [LOOP, FREE_RIGHT], ids=["back-edge-right", "free-right"])
def test_a_composite_self_loop_keeps_clear_of_every_other_wire(text: str) -> None:
    geo = _geo(text)
    (loop,) = [e for e in geo["edges"] if e.get("loop")]
    frame = geo["groups"]["State3"]
    others = [e for e in geo["edges"] if not e.get("loop")]
    for e in others:
        for p in _pieces(loop["points"]):
            for q in _pieces(e["points"]):
                assert _gap(p, q) >= 8.0, (e["from"], e["to"])
    # Its label too stays off the other wires and the nodes.
    lab = loop["label"]
    box = ([lab["x"], lab["y"]], [lab["x"] + lab["w"], lab["y"] + lab["h"]])
    for e in others:
        for q in _pieces(e["points"]):
            assert not _cross(box, q)
    for b in geo["nodes"].values():
        assert not _cross(box, ([b["x"], b["y"]], [b["x"] + b["w"], b["y"] + b["h"]]))
    # Both ends sit on one side of the frame.
    xs = {loop["points"][0][0], loop["points"][-1][0]}
    assert xs in ({frame["x"]}, {frame["x"] + frame["w"]})


STACK = (
    "stateDiagram-v2\n[*] --> A\nstate A {\n  [*] --> a1\n  a1 --> a2\n}\nA --> B\n"
    "state B {\n  [*] --> b1\n  b1 --> b2\n  b2 --> b3\n}\nB --> C\n"
    "state C {\n  [*] --> c1\n}\nC --> [*]"
)


UNEVEN = (
    "stateDiagram-v2\n[*] --> Idle\nIdle --> A\nstate A {\n  [*] --> Reading\n"
    "  Reading --> Parsing\n  Reading --> Failing\n  Parsing --> [*]\n}\nA --> B\n"
    "state B {\n  [*] --> Working\n  Working --> Working2\n}\nB --> Done\nDone --> [*]"
)


SUBGRAPHS = (
    "flowchart TD\n  subgraph A\n    a1-->a2\n    a1-->a3\n  end\n  subgraph B\n    b1-->b2\n"
    "  end\n  subgraph C\n    c1\n  end\n  A-->B\n  B-->C\n  x-->A"
)


@pytest.mark.parametrize(
    ("text", "chain"),
    [(STACK, "ABC"), (UNEVEN, "AB"), (SUBGRAPHS, "ABC")],
    ids=["even", "uneven", "flowchart-subgraphs"],
)
def test_composites_in_a_chain_stack_in_one_column(text: str, chain: str) -> None:
    geo = _geo(text)
    frames = [geo["groups"][g] for g in chain]
    for f, g in itertools.pairwise(frames):
        assert f["y"] + f["h"] < g["y"]
        assert abs(_mid(f, 0) - _mid(g, 0)) <= 1.5
    # The wire between two frames leaves the upper one's bottom for the lower one's top.
    for e in geo["edges"]:
        if e["from"] in geo["groups"] and e["to"] in geo["groups"]:
            up, down = geo["groups"][e["from"]], geo["groups"][e["to"]]
            assert e["points"][0][1] == pytest.approx(up["y"] + up["h"])
            assert e["points"][-1][1] == pytest.approx(down["y"])


def test_edges_between_composites_leave_the_side_facing_their_target() -> None:
    geo = _geo(_corpus("docs-0011"))
    first = geo["groups"]["First"]
    for target in ("Second", "Third"):
        e = next(e for e in geo["edges"] if (e["from"], e["to"]) == ("First", target))
        assert e["points"][0][1] == pytest.approx(first["y"] + first["h"])
        assert first["x"] <= e["points"][0][0] <= first["x"] + first["w"]
        assert e["points"][-1][1] == pytest.approx(geo["groups"][target]["y"])


@pytest.mark.parametrize(
    ("text", "hub", "ends", "axis"),
    [
        ("flowchart TD\n A-->B\n A-->C\n B-->D\n C-->D", "A", ("B", "C"), 0),
        ("flowchart TD\n A-->B\n A-->C\n B-->D\n C-->D", "D", ("B", "C"), 0),
        ("flowchart LR\n P-->X\n P-->Y\n P-->Z", "P", ("X", "Y", "Z"), 1),
    ],
)
def test_a_fan_sits_over_the_middle_of_its_branches(
    text: str, hub: str, ends: tuple[str, ...], axis: int
) -> None:
    """Any spot between two children costs the edges the same; the tie goes to the
    middle (dot's balance), not to the first child with a long elbow to the second."""
    nodes = _geo(text)["nodes"]
    middle = sum(_mid(nodes[e], axis) for e in ends) / len(ends)
    assert abs(_mid(nodes[hub], axis) - middle) <= 2.0


def test_a_fork_and_its_join_are_centred_over_their_branches() -> None:
    nodes = _geo(_corpus("docs-0013"))["nodes"]
    branches = (_mid(nodes["State2"], 0) + _mid(nodes["State3"], 0)) / 2
    for bar in ("fork_state", "join_state"):
        assert abs(_mid(nodes[bar], 0) - branches) <= 2.0, bar


@pytest.mark.parametrize(
    ("name", "hub", "ends"),
    [
        ("docs-0012", "if_state", ("False", "True")),
        ("docs-0020", "YetAnotherState", ("yswsii", "SomeOtherState")),
    ],
)
def test_a_corpus_fan_sits_over_the_middle_of_its_states(
    name: str, hub: str, ends: tuple[str, str]
) -> None:
    """The choice over two labelled transitions centres on the states they reach, not
    on their labels; a state entered from two sides sits under their middle."""
    nodes = _geo(_corpus(name))["nodes"]
    middle = sum(_mid(nodes[e], 0) for e in ends) / len(ends)
    assert abs(_mid(nodes[hub], 0) - middle) <= 2.0


def test_a_branch_label_sits_over_the_state_it_leads_to() -> None:
    """Where anywhere between the choice and the state costs the wire the same, the
    label goes over the state and the wire bends once, above it, as Mermaid draws."""
    geo = _geo(_corpus("docs-0012"))
    for e in geo["edges"]:
        if e["from"] == "if_state":
            label, target = e["label"], geo["nodes"][e["to"]]
            assert abs(_mid(label, 0) - _mid(target, 0)) <= 2.0, e["to"]
            assert len(e["points"]) == 4, e["to"]
