"""Mermaid grammar families, one line each: a small text and the facts Mermaid's parser
extracts from it (nodes as id -> title, edges as (from, to, label), groups as id -> members).

The shared corpus (``test_mermaid_corpus.py``) holds whole documentation examples; this
table pins each grammar family on its own, so a new family is one more entry.
"""

from __future__ import annotations

from typing import Any

import pytest

from layoutkit.diagram import import_text, lay_out
from layoutkit.diagram.findings import composition_findings
from tests.diagram.test_mermaid_corpus import _edges, _walk

AB = {"A": "A", "B": "B"}
FLOW = "flowchart LR\n"
STATE = "stateDiagram-v2\n"

# name, text, facts; facts may also give "ends": the payload style keys of each edge.
FAMILIES: list[tuple[str, str, dict[str, Any]]] = [
    ("header-semicolons", "graph TD;A-->B;B-->C;", {"nodes": {**AB, "C": "C"}, "edges": [("A", "B", ""), ("B", "C", "")]}),
    ("entity-before-arrow", FLOW + "A[Say #quot;hi#quot;]-->B[#9829; love];", {"nodes": {"A": 'Say "hi"', "B": "♥ love"}, "edges": [("A", "B", "")]}),
    ("markdown-before-arrow", FLOW + 'A["`**bold** text`"]-->B("`two\nlines`")', {"nodes": {"A": "**bold** text", "B": "two\nlines"}, "edges": [("A", "B", "")]}),
    ("node-meta-multiline", FLOW + 'A@{\n  shape: diamond\n  label: "Is it\n   ok?"\n}\nA --> B', {"nodes": {"A": "Is it\nok?", "B": "B"}, "edges": [("A", "B", "")]}),
    ("node-meta-after-shape", FLOW + 'A["x"]@{ shape: hex } --> B@{ shape: cyl, label: "db" }', {"nodes": {"A": "x", "B": "db"}, "edges": [("A", "B", "")]}),
    ("edge-meta-multiline", FLOW + "A e1@--> B\ne1@{\n  animate: true\n}", {"nodes": AB, "edges": [("A", "B", "")]}),
    ("edge-text-no-spaces", FLOW + "A--text-->B==thick==>C-.dots.->D", {"nodes": {**AB, "C": "C", "D": "D"}, "edges": [("A", "B", "text"), ("B", "C", "thick"), ("C", "D", "dots")]}),
    ("edge-text-quoted-dashes", FLOW + 'A-- "a -- b" -->B', {"nodes": AB, "edges": [("A", "B", "a -- b")]}),
    ("edge-pipe-text", FLOW + "A-->|yes; no|B", {"nodes": AB, "edges": [("A", "B", "yes; no")]}),
    ("dotted-short-forms", FLOW + "A .-> B\nB <.-> C", {"nodes": {**AB, "C": "C"}, "edges": [("A", "B", ""), ("B", "C", "")], "ends": [{"style": "dotted"}, {"style": "dotted", "tail": "arrow"}]}),
    ("circle-cross-heads", FLOW + "A -.-o B\nB ==x C\nC o==o D\nD x--x E\nE --o F", {"nodes": {**AB, **{c: c for c in "CDEF"}}, "edges": [("A", "B", ""), ("B", "C", ""), ("C", "D", ""), ("D", "E", ""), ("E", "F", "")], "ends": [{"style": "dotted", "head": "circle"}, {"style": "thick", "head": "cross"}, {"style": "thick", "head": "circle", "tail": "circle"}, {"style": "cross", "tail": "cross"}, {"style": "circle"}]}),
    ("subgraph-quoted-title", "flowchart TB\nsubgraph \"My title\"\nA\nend\nsubgraph \"One\"\nB\nend", {"nodes": AB, "groups": {"subGraph0": {"A"}, "One": {"B"}}, "edges": []}),
    ("subgraph-padded-title", "flowchart TB\nsubgraph one \nA\nend\nsubgraph  two\nB\nend", {"nodes": AB, "groups": {"subGraph0": {"A"}, "subGraph1": {"B"}}, "edges": []}),
    ("subgraph-numbered-on-close", "flowchart TB\nsubgraph outer x\nsubgraph inner y\nA\nend\nB\nend", {"nodes": AB, "groups": {"subGraph1": {"subGraph0", "B"}, "subGraph0": {"A"}}, "edges": []}),
    ("style-undeclared-node", FLOW + "A-->B\nstyle C fill:#f9f,stroke:#333;", {"nodes": {**AB, "C": "C"}, "edges": [("A", "B", "")]}),
    ("acc-multiline", FLOW + "accTitle: a; b\naccDescr {\n  two\n  lines\n}\nA-->B", {"nodes": AB, "edges": [("A", "B", "")]}),
    ("ellipse", FLOW + "A(-oval-)-->B", {"nodes": {"A": "oval", "B": "B"}, "edges": [("A", "B", "")]}),
    ("node-id-leading-dash", "graph TD;A_end-->-end-B(((double)));", {"nodes": {"A_end": "A_end", "-end-B": "double"}, "edges": [("A_end", "-end-B", "")]}),
    ("node-property-rect", "graph TD;A-->B[|borders:lt|Has a property];", {"nodes": {"A": "A", "B": "Has a property"}, "edges": [("A", "B", "")]}),
    ("cross-head-then-id", "graph TD;A--xv(my text);", {"nodes": {"A": "A", "v": "my text"}, "edges": [("A", "v", "")], "ends": [{"style": "cross"}]}),
    ("directive-over-lines", '%%{\n  init: {"theme": "dark"}\n}%%\nflowchart LR\nA-->B', {"nodes": AB, "edges": [("A", "B", "")]}),
    ("state-scale", STATE + "scale 350 width\n[*] --> A", {"nodes": {"root_start": "Start", "A": "A"}, "edges": [("root_start", "A", "")]}),
    ("state-escaped-fork", STATE + "state f &lt;&lt;fork&gt;&gt;\n[*] --> f", {"nodes": {"root_start": "Start", "f": "f"}, "edges": [("root_start", "f", "")]}),
    ("state-floating-note", STATE + 'note "floating text" as N1\nA --> B', {"nodes": AB, "edges": [("A", "B", "")]}),
    ("state-brace-next-line", STATE + "state Comp\n{\n  [*] --> x\n}", {"nodes": {"Comp_start": "Start", "x": "x"}, "groups": {"Comp": {"Comp_start", "x"}}, "edges": [("Comp_start", "x", "")]}),
    ("state-as-with-description", STATE + 'state "Long name" as L: more\nL --> B', {"nodes": {"L": "Long name\nmore", "B": "B"}, "edges": [("L", "B", "")]}),
    ("state-percent-in-text", STATE + "A --> B : 50% done\nB : 100%", {"nodes": {"A": "A", "B": "100%"}, "edges": [("A", "B", "50% done")]}),
    ("state-hide-empty-description", STATE + "hide empty description\nA --> B", {"nodes": AB, "edges": [("A", "B", "")]}),
    ("state-bracket-kinds", STATE + "state c [[choice]]\nstate j [[join]]\nA --> c\nc --> j: yes", {"nodes": {"c": "c", "j": "j", "A": "A"}, "edges": [("A", "c", ""), ("c", "j", "yes")]}),
    ("state-class-after-transition", STATE + "classDef bad fill:#f00\nA --> B\nclass A bad\nB --> C:::bad", {"nodes": {**AB, "C": "C"}, "edges": [("A", "B", ""), ("B", "C", "")]}),
    ("state-header-line", "stateDiagram-v2 A --> B", {"nodes": AB, "edges": [("A", "B", "")]}),
    ("state-statements-share-a-line", STATE + "A --> B C --> D", {"nodes": {**AB, "C": "C", "D": "D"}, "edges": [("A", "B", ""), ("C", "D", "")]}),
    ("state-empty-composite-is-a-state", STATE + "state L1 {\n  state L2 {\n  }\n}", {"nodes": {"L2": "L2"}, "groups": {"L1": {"L2"}}, "edges": []}),
    ("state-transition-back-to-its-composite", STATE + "state Outer {\n  state Inner {\n    leaf\n  }\n  Inner --> Outer: back\n}", {"nodes": {"leaf": "leaf"}, "groups": {"Outer": {"Inner"}, "Inner": {"leaf"}}, "edges": [("Inner", "Outer", "back")]}),
    ("state-named-as", STATE + 'state "as" as as\nassemble\nstate assemble', {"nodes": {"as": "as", "assemble": "assemble"}, "edges": []}),
    ("state-comment-hash", STATE + "A --> B # not a label\n%% whole line", {"nodes": AB, "edges": [("A", "B", "")]}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "facts"), FAMILIES, ids=[f[0] for f in FAMILIES])
def test_family_converts_to_mermaid_facts(name: str, text: str, facts: dict[str, Any]) -> None:
    payload = import_text(text)
    nodes, groups = _walk(payload)
    assert nodes == facts["nodes"]
    assert groups == facts.get("groups", {})
    assert _edges(payload) == sorted(facts["edges"])
    if "ends" in facts:
        keys = ("style", "head", "tail")
        assert [{k: e[k] for k in keys if k in e} for e in payload["edges"]] == facts["ends"]


@pytest.mark.parametrize(("name", "text", "facts"), FAMILIES, ids=[f[0] for f in FAMILIES])
def test_family_lays_out_cleanly(name: str, text: str, facts: dict[str, Any]) -> None:
    geo = lay_out({"diagram_text": text})["geo"]
    assert composition_findings(geo) == []
    assert set(geo["nodes"]) == set(facts["nodes"])
