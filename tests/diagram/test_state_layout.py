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


def test_a_note_in_a_left_right_diagram_is_beside_its_state_too() -> None:
    geo = _geo("stateDiagram-v2\ndirection LR\nA --> B\nnote left of B : why\nnote right of A : how")
    nodes = geo["nodes"]
    left, b = nodes["B----note-0"], nodes["B"]
    right, a = nodes["A----note-1"], nodes["A"]
    assert left["x"] + left["w"] <= b["x"]
    assert right["x"] >= a["x"] + a["w"]
