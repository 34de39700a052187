"""Mermaid grammar families, one line each: a small text and the facts Mermaid's parser
extracts from it (nodes as id -> title, edges as (from, to, label), groups as id -> members).

The shared corpus (``test_mermaid_corpus.py``) holds whole documentation examples; this
table pins each grammar family on its own, so a new family is one more entry.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    ("edge-pipe-quoted-pipe", FLOW + 'A-->|"a | b"|B', {"nodes": AB, "edges": [("A", "B", "a | b")]}),
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
    ("state-style-lines", STATE + "A --> B\nstyle A fill:#f00,stroke:#333\nstyle A,B color:white", {"nodes": AB, "edges": [("A", "B", "")]}),
    ("state-classdef-default-and-bare", STATE + "classDef default fill:#eee\nclassDef empty\nA --> B\nclass A empty\nclass B", {"nodes": AB, "edges": [("A", "B", "")]}),
    ("state-click", STATE + 'A --> B\nclick A href "https://example.com"\nclick B "https://example.com" "tip"', {"nodes": AB, "edges": [("A", "B", "")]}),
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


# --- generated flowcharts: any mix of the link and node forms reads back its facts -------

_IDS = ["A", "b1", "node_x", "N-2", "v", "end2", "ö3"]
_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwyz0123456789", min_size=1, max_size=8)
_TEXT = st.lists(_WORDS, min_size=1, max_size=4).map(" ".join)
_SHAPES = [
    ("[", "]"), ("(", ")"), ("{", "}"), ("([", "])"), ("[[", "]]"), ("[(", ")]"),
    ("((", "))"), ("{{", "}}"), (">", "]"), ("[/", "/]"), ("[\\", "\\]"), ("[/", "\\]"),
    ("[\\", "/]"), ("(((", ")))"), ('["', '"]'), ("(-", "-)"),
]  # fmt: skip
# stroke -> (whole link body before the end mark, inline opening, inline closing body)
_STROKES = {
    "normal": ("--", "--", "--"),
    "thick": ("==", "==", "=="),
    "dotted": ("-.-", "-.", ".-"),
}
_OPEN_END = {"normal": "-", "thick": "=", "dotted": ""}


@st.composite
def _flowcharts(draw: Any) -> tuple[str, dict[str, str], list[tuple[str, str, str]], list[dict]]:
    titles: dict[str, str] = {}
    edges: list[tuple[str, str, str]] = []
    ends: list[dict] = []
    statements = []

    def node() -> str:
        vid = draw(st.sampled_from(_IDS))
        if vid in titles or draw(st.booleans()):
            titles.setdefault(vid, vid)
            return vid
        text = draw(_TEXT)
        opener, closer = draw(st.sampled_from(_SHAPES))
        titles[vid] = text
        return f"{vid}{opener}{text}{closer}"

    for _ in range(draw(st.integers(1, 6))):
        a_src = node()
        stroke = draw(st.sampled_from(sorted(_STROKES)))
        head = draw(st.sampled_from([">", None, "x", "o"]))
        tail = draw(st.booleans()) and head is not None
        mark = {">": "<"}.get(head, head) if tail else ""
        label = draw(st.one_of(st.just(""), _TEXT))
        form = draw(st.sampled_from(["pipe", "inline"])) if label else "none"
        whole, opening, closing = _STROKES[stroke]
        end = head or _OPEN_END[stroke]
        if form == "inline":
            link = f" {mark}{opening} {label} {closing}{end} "
        else:
            link = f" {mark}{whole}{end}" + (f"|{label}|" if form == "pipe" else "") + " "
        b_src = node()
        a, b = (s.split("[")[0].split("(")[0].split("{")[0].split(">")[0] for s in (a_src, b_src))
        statements.append(f"{a_src}{link}{b_src}")
        edges.append((a, b, label))
        style = _expected_ends(stroke, head, mark)
        ends.append(style)
    sep = draw(st.sampled_from([";", "\n", ";\n", " ;\n"]))
    header = draw(st.sampled_from(["flowchart LR\n", "graph TD;", "flowchart TB;\n"]))
    return header + sep.join(statements), titles, edges, ends


def _expected_ends(stroke: str, head: str | None, mark: str) -> dict:
    names = {">": "arrow", "<": "arrow", "o": "circle", "x": "cross", None: "none"}
    if stroke in ("dotted", "thick"):
        out = {"style": stroke}
        if head != ">":
            out["head"] = names[head]
        if mark:
            out["tail"] = names[mark]
        return out
    if mark and head == ">":
        return {"style": "both"}
    out = {"style": {">": "solid", "o": "circle", "x": "cross"}.get(head or "", "plain")}
    if mark:
        out["tail"] = names[mark]
    return out


@settings(max_examples=150, deadline=None)
@given(case=_flowcharts())
def test_generated_flowcharts_read_back_their_facts(case: tuple) -> None:
    text, titles, edges, ends = case
    payload = import_text(text)
    nodes, _ = _walk(payload)
    assert nodes == titles
    assert [(e["from"], e["to"], e.get("label", "")) for e in payload["edges"]] == edges
    keys = ("style", "head", "tail")
    got = [{k: e.get(k, "solid" if k == "style" else None) for k in keys} for e in payload["edges"]]
    assert [{k: v for k, v in g.items() if v is not None} for g in got] == ends


@st.composite
def _state_texts(draw: Any) -> tuple[str, dict[str, str], list[tuple[str, str, str]]]:
    nodes: dict[str, str] = {}
    edges: list[tuple[str, str, str]] = []

    def end(parent: str, start: bool) -> str:
        if draw(st.integers(0, 3)) == 0:
            sid = f"{parent}_{'start' if start else 'end'}"
            nodes[sid] = "Start" if start else "End"
            return "[*]", sid
        sid = draw(st.sampled_from(["Idle", "Run_1", "s2", "Done", "x.y"]))
        nodes.setdefault(sid, sid)
        return sid + draw(st.sampled_from(["", ":::hot"])), sid

    def transitions(parent: str, indent: str) -> list[str]:
        lines = []
        for _ in range(draw(st.integers(1, 4))):
            a_src, a = end(parent, True)
            b_src, b = end(parent, False)
            label = draw(st.one_of(st.just(""), _TEXT))
            arrow = draw(st.sampled_from(["-->", " --> ", "--> "]))
            tail = f"{draw(st.sampled_from([':', ' : ', ': ']))}{label}" if label else ""
            lines.append(f"{indent}{a_src}{arrow}{b_src}{tail}")
            edges.append((a, b, label))
        return lines

    body = transitions("root", "  ")
    if draw(st.booleans()):
        brace = draw(st.sampled_from([" {", "\n  {"]))
        # A composite keeps at least one state of its own (an empty one is a plain state).
        nodes["Comp_start"], nodes["Inner"] = "Start", "Inner"
        edges.append(("Comp_start", "Inner", ""))
        inner = ["    [*] --> Inner", *transitions("Comp", "    ")]
        body += [f"  state Comp{brace}", *inner, "  }"]
    extras = draw(
        st.lists(
            st.sampled_from(
                [
                    "  scale 200 width",
                    "  %% note",
                    "  hide empty description",
                    "  classDef hot fill:#f00",
                ]
            ),
            max_size=2,
        )
    )
    return "stateDiagram-v2\n" + "\n".join(extras + body), nodes, edges


@settings(max_examples=100, deadline=None)
@given(case=_state_texts())
def test_generated_state_diagrams_read_back_their_facts(case: tuple) -> None:
    text, nodes, edges = case
    payload = import_text(text)
    got, _ = _walk(payload)
    assert got == nodes
    assert _edges(payload) == sorted(edges)


def test_state_classes_map_to_the_nearest_tone() -> None:
    payload = import_text(
        STATE + "classDef bad fill:#f00,color:white\nclassDef ok fill:#0a0\nA --> B\n"
        "class A bad\nB --> C:::ok\nclassDef plain fill:white\nclass B plain"
    )
    tones = {n["id"]: n.get("tone") for n in payload["nodes"]}
    assert tones == {"A": "red", "B": None, "C": "green"}


def test_state_classes_and_styles_keep_the_authors_paint() -> None:
    """As in flowcharts: the author's fill, stroke, text colour and slant travel as
    paint (the drawing keeps them where they stay readable), beside the nearest tone."""
    payload = import_text(
        STATE + "classDef bad fill:#f00,color:white,stroke-width:2px,stroke:yellow\n"
        "classDef moving font-style:italic\nA --> B:::moving\nclass A bad\nstyle B fill:#eef"
    )
    paints = {n["id"]: n.get("paint") for n in payload["nodes"]}
    assert paints["A"] == {"fill": "#f00", "color": "white", "strokeWidth": 2.0, "stroke": "yellow"}
    assert paints["B"] == {"fontStyle": "italic", "fill": "#eef"}


def test_state_style_lines_win_over_classes() -> None:
    payload = import_text(
        STATE + "classDef ok fill:#0a0\nA --> B:::ok\nstyle B fill:#f00\nstyle A,C stroke:#00f"
    )
    tones = {n["id"]: n.get("tone") for n in payload["nodes"]}
    assert tones == {"A": "blue", "B": "red"}


def test_state_notes_become_note_nodes_tied_to_their_state() -> None:
    payload = import_text(
        STATE + "A --> B\nnote right of A : one line\nnote left of B\n  first\n"
        "  send note is text\nend note\nstate C {\n  x --> y\n  note left of y : inside\n}"
    )
    notes = {n["id"]: n for n in payload["nodes"] if n.get("type") == "note"}
    assert [n["title"] for n in notes.values()] == ["one line", "first\nsend note is text"]
    inner = [n for n in payload["groups"][0]["nodes"] if n.get("type") == "note"]
    assert [n["title"] for n in inner] == ["inside"]
    ties = [e for e in payload["edges"] if e.get("style") == "dotted"]
    assert [(e["from"], e["to"], e["head"]) for e in ties] == [
        ("A", "A----note-0", "none"),
        ("B----note-1", "B", "none"),
        ("y----note-2", "y", "none"),
    ]
