"""A diagram payload as Mermaid text (``layoutkit.travel.to_mermaid``): every corpus text
the import takes comes back from its own export as the same nodes, edges, groups and
labels; generated hand-written payloads go out as flowcharts that read back the same;
labels with Mermaid's syntax characters survive; edits made after an import show."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit.diagram.mermaid import import_text
from layoutkit.errors import EngineError
from layoutkit.travel import TravelError, to_mermaid
from layoutkit.travel.mermaid import flowchart_link

# The shared corpus sits next to the repository; LAYOUTKIT_MERMAID_CORPUS points elsewhere.
CORPUS = Path(
    os.environ.get("LAYOUTKIT_MERMAID_CORPUS")
    or Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "mermaid"
)
FAMILIES = ("flowchart", "sequence", "state")
#: At most this many texts of one family (the corpus is small; the cap keeps it so).
CAP = 200


def _texts() -> list[tuple[str, str, str]]:
    root = CORPUS
    if not (root / "flowchart").is_dir():
        return []
    out = []
    for family in FAMILIES:
        for path in sorted((root / family).glob("*.mmd"))[:CAP]:
            out.append((family, path.stem, path.read_text(encoding="utf-8")))
    return out


def facts(payload: dict[str, Any], *, ordered: bool = True) -> dict[str, Any]:
    """What the round trip must keep: each node's title, shape, type and container;
    each group's title, container and direction; each edge's ends, label and arrows;
    a sequence's messages, blocks and notes."""
    nodes: dict[str, Any] = {}
    groups: dict[str, Any] = {}
    paints: dict[str, Any] = {}

    def walk(holder: dict[str, Any], parent: str | None) -> None:
        for n in holder.get("nodes") or []:
            nodes[n["id"]] = (n.get("title"), n.get("shape"), n.get("type"), parent)
            if n.get("paint") or n.get("tone"):
                paints[n["id"]] = (n.get("tone"), n.get("paint"))
        for g in holder.get("groups") or []:
            groups[g["id"]] = (g.get("title"), parent, g.get("dir"))
            walk(g, g["id"])
        for lane in holder.get("lanes") or []:
            walk(lane, f"lane:{lane.get('label')}")

    walk(payload, None)
    edges = [
        tuple(
            repr(e.get(k))
            for k in ("from", "to", "label", "style", "head", "tail", "paint", "tone")
        )
        for e in payload.get("edges") or []
    ]
    seq = payload.get("sequence") or {}
    return {
        "dir": payload.get("dir"),
        "nodes": nodes,
        "groups": groups,
        "paints": paints,
        "edges": edges if ordered else sorted(edges, key=repr),
        "sequence": {k: seq.get(k) for k in ("participants", "messages", "blocks", "notes")},
    }


TEXTS = _texts()


@pytest.mark.skipif(not TEXTS, reason="the Mermaid corpus is not on this machine")
def test_every_corpus_text_comes_back_from_its_export_as_the_same_facts() -> None:
    tried = {f: 0 for f in FAMILIES}
    for family, name, text in TEXTS:
        try:
            first = import_text(text)
        except EngineError:
            continue  # a text the import refuses has no payload to export
        out = to_mermaid(first)
        again = import_text(out.text)
        # A state diagram's transitions are written in the block of their [*] marker,
        # so their order may change; everything else keeps its order.
        ordered = out.family != "state"
        assert facts(again, ordered=ordered) == facts(first, ordered=ordered), (
            f"{family}/{name}:\n{out.text}"
        )
        assert out.nodes >= 1
        tried[family] += 1
    # Each family was tried, and each came out as its own family where it can be told.
    assert all(tried.values()), tried


@pytest.mark.skipif(not TEXTS, reason="the Mermaid corpus is not on this machine")
def test_imports_go_out_as_their_own_family() -> None:
    families: dict[str, set[str]] = {f: set() for f in FAMILIES}
    for family, _, text in TEXTS:
        try:
            payload = import_text(text)
        except EngineError:
            continue
        families[family].add(to_mermaid(payload).family)
    assert families["flowchart"] == {"flowchart"}
    assert families["sequence"] == {"sequence"}
    # A state text with neither [*] nor a note has nothing a flowchart lacks: it goes
    # out as one (and reads back the same).
    assert families["state"] == {"state", "flowchart"}


def test_a_flowchart_carries_ids_shapes_groups_directions_and_arrows() -> None:
    text = (
        "flowchart LR\n"
        '  a(["Start here"]) -->|"yes"| b{Decide}\n'
        "  subgraph g1 [Inner group]\n"
        "    direction TB\n"
        "    c[(Store)]\n"
        "    d@{ shape: doc, label: Report }\n"
        "  end\n"
        "  b -.-> c\n  b ==> d\n  c --o d\n  a <--> d\n  a --- b\n  c ~~~ d\n"
    )
    out = to_mermaid(import_text(text))
    assert out.family == "flowchart"
    assert out.text.startswith("flowchart LR\n")
    assert '    subgraph g1 ["Inner group"]\n        direction TB\n' in out.text
    assert 'a(["Start here"])' in out.text and 'd@{ shape: doc, label: "Report" }' in out.text
    for line in ('a -->|"yes"| b', "b -.-> c", "b ==> d", "c --o d", "a <--> d", "a --- b"):
        assert line in out.text
    assert "c ~~~ d" in out.text


@pytest.mark.parametrize(
    ("edge", "token"),
    [
        ({}, "-->"),
        ({"style": "plain"}, "---"),
        ({"style": "both"}, "<-->"),
        ({"style": "circle", "tail": "circle"}, "o--o"),
        ({"style": "cross"}, "--x"),
        ({"style": "dotted", "head": "none"}, "-.-"),
        ({"style": "dashed"}, "-.->"),
        ({"style": "thick", "head": "cross", "tail": "cross"}, "x==x"),
        ({"style": "thick", "head": "none"}, "==="),
        # Mermaid draws a start mark only like the end mark: another tail is left out.
        ({"style": "solid", "tail": "circle"}, "-->"),
        ({"style": "invisible", "label": "x"}, "~~~"),
    ],
)
def test_edge_styles_map_to_mermaid_links(edge: dict[str, Any], token: str) -> None:
    assert flowchart_link(edge) == token


def test_labels_with_mermaid_syntax_survive_in_every_family() -> None:
    # (A literal ``<br>`` is the one text that cannot come back: the import decodes
    # entities before it reads line breaks.)
    nasty = 'a "quoted" [b] {c} |pipe| #35; &amp; <b> `tick` ;semi: colon\nsecond'
    flow = {
        "title": "T",
        "nodes": [{"id": "A", "title": nasty}, {"id": "B", "title": "b"}],
        "groups": [{"id": "G", "title": nasty, "nodes": [{"id": "C", "title": "c"}]}],
        "edges": [{"from": "A", "to": "B", "label": nasty}],
    }
    back = import_text(to_mermaid(flow).text)
    assert back["nodes"][0]["title"] == nasty
    assert import_text(to_mermaid({**flow, "title": 'The "big" one: #1'}).text)["title"] == (
        'The "big" one: #1'
    )
    assert back["groups"][0]["title"] == nasty
    assert back["edges"][0]["label"] == nasty
    # Where ``;`` ends a statement (sequence, state) an ``&`` goes as ``#38;``, which the
    # import decodes before HTML entities: a literal entity name after it cannot come back.
    nasty = nasty.replace("&amp;", "& b")
    seq = import_text("sequenceDiagram\n  participant A as Al\n  A->>B: hi\n  note over A: n")
    seq["lanes"][0]["nodes"][0]["title"] = nasty
    seq["sequence"]["messages"][0]["text"] = nasty
    seq["sequence"]["notes"][0]["text"] = nasty
    out = to_mermaid(seq)
    assert out.family == "sequence"
    again = import_text(out.text)
    assert again["lanes"][0]["nodes"][0]["title"] == nasty
    assert again["sequence"]["messages"][0]["text"] == nasty
    assert again["sequence"]["notes"][0]["text"] == nasty
    state = import_text("stateDiagram-v2\n  [*] --> S\n  S --> T : go")
    state["edges"][1]["label"] = nasty
    state["nodes"][1]["title"] = nasty
    out = to_mermaid(state)
    assert out.family == "state"
    again = import_text(out.text)
    assert again["edges"][1]["label"] == state["edges"][1]["label"]
    assert next(n for n in again["nodes"] if n["id"] == "S")["title"] == nasty


def test_the_export_is_the_card_as_it_is_now() -> None:
    payload = import_text("sequenceDiagram\n  A->>B: hello\n  B-->>A: back")
    payload["lanes"][0]["nodes"][0]["title"] = "Alice"
    out = to_mermaid(payload)
    assert "participant A as Alice" in out.text
    # A message added by hand no longer matches the sequence record: the card is drawn
    # as a graph, and goes out as a flowchart with the new edge.
    payload["edges"].append({"from": "B", "to": "A", "label": "added"})
    out = to_mermaid(payload)
    assert out.family == "flowchart"
    assert 'B -->|"added"| A' in out.text
    state = import_text("stateDiagram-v2\n  [*] --> S\n  S --> [*]")
    state["nodes"].append({"id": "X", "title": "x", "shape": "hexagon"})
    assert to_mermaid(state).family == "flowchart"


def test_ids_mermaid_cannot_read_are_renamed_and_edges_follow() -> None:
    payload = {
        "title": "t",
        "dir": "LR",
        "nodes": [
            {"id": "two words", "title": "A"},
            {"id": "end", "title": "B"},
            {"title": "untitled id"},
            {"id": "ok-1.x", "title": "C"},
            {"id": "P", "title": "P", "ports": [{"id": "in", "side": "left"}]},
        ],
        "lanes": [],
        "edges": [
            {"from": "two words", "to": "end"},
            {"from": "untitled id", "to": "ok-1.x"},
            # A port is drawing detail Mermaid has no word for: the edge ends on P.
            {"from": "P.in", "to": "end"},
        ],
    }
    out = to_mermaid(payload)
    assert out.ids["two words"] != "two words" and out.ids["end"] != "end"
    assert out.ids["ok-1.x"] == "ok-1.x"
    back = import_text(out.text)
    ids = [n["id"] for n in back["nodes"]]
    assert ids == [out.ids["two words"], out.ids["end"], ids[2], "ok-1.x", "P"]
    assert [(e["from"], e["to"]) for e in back["edges"]] == [
        (out.ids["two words"], out.ids["end"]),
        (ids[2], "ok-1.x"),
        ("P", out.ids["end"]),
    ]


def test_a_payload_without_nodes_is_refused() -> None:
    with pytest.raises(TravelError) as err:
        to_mermaid({"title": "empty", "edges": []})
    assert (err.value.code, err.value.fields["field"]) == ("empty_diagram", "payload.nodes")


# ---------------------------------------------------------------- generated payloads

_ID = st.one_of(
    st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,6}", fullmatch=True),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=8),
)
# Labels as the import leaves them: no blank at a line's ends, no empty line.
_LINE = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")),
    min_size=1,
    max_size=12,
)
# A literal <br> reads back as a line break (the import decodes entities first).
_LABEL = (
    st.lists(_LINE, min_size=1, max_size=3).map("\n".join).filter(lambda s: "<br" not in s.lower())
)
_SHAPES = st.sampled_from(
    ["rect", "round", "stadium", "cylinder", "diamond", "hexagon", "circle", "document", "fork"]
)
_STYLES = st.sampled_from(["solid", "plain", "both", "circle", "cross", "dotted", "thick"])


@st.composite
def _payloads(draw: st.DrawFn) -> dict[str, Any]:
    ids = draw(st.lists(_ID, min_size=1, max_size=8, unique=True))
    nodes = [{"id": i, "title": draw(_LABEL), "shape": draw(_SHAPES)} for i in ids]
    loose, grouped = nodes[: len(nodes) // 2 + 1], nodes[len(nodes) // 2 + 1 :]
    groups = []
    if grouped:
        groups.append(
            {
                "id": "grp",
                "title": draw(_LABEL),
                "dir": draw(st.sampled_from(["TD", "LR", "BT", "RL"])),
                "nodes": grouped,
            }
        )
    edges = []
    for _ in range(draw(st.integers(0, 8))):
        edge: dict[str, Any] = {
            "from": draw(st.sampled_from(ids)),
            "to": draw(st.sampled_from(ids)),
        }
        style = draw(_STYLES)
        if style != "solid":
            edge["style"] = style
        if draw(st.booleans()):
            edge["label"] = draw(_LABEL)
        edges.append(edge)
    taken = {n["id"] for n in nodes}
    return {
        "title": "generated",
        "dir": draw(st.sampled_from(["TD", "LR"])),
        "nodes": loose,
        "groups": [g for g in groups if g["id"] not in taken],
        "edges": edges,
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_payloads())
def test_hand_written_payloads_go_out_as_flowcharts_that_read_back_the_same(
    payload: dict[str, Any],
) -> None:
    out = to_mermaid(payload)
    assert out.family == "flowchart"
    back = import_text(out.text)
    rename = out.ids
    want = facts(payload)
    got = facts(back)
    assert got["dir"] == want["dir"]
    assert got["nodes"] == {
        rename[i]: (t, None if s == "rect" else s, ty, rename.get(p, p) if p else None)
        for i, (t, s, ty, p) in want["nodes"].items()
    }
    assert got["groups"] == {rename.get(g, g): v for g, v in want["groups"].items()}
    expected_edges = []
    for e in payload["edges"]:
        mapped = {**e, "from": rename[e["from"]], "to": rename[e["to"]]}
        expected_edges.append(_as_imported(mapped))
    assert got["edges"] == expected_edges


def _as_imported(edge: dict[str, Any]) -> tuple[Any, ...]:
    """An edge as the flowchart import reads back the link the export chose for it (in
    the form :func:`facts` gives): the default style is left out, the generated styles
    come back as they went."""
    style = edge.get("style", "solid")
    values = (edge["from"], edge["to"], edge.get("label"), None if style == "solid" else style)
    return tuple(repr(v) for v in (*values, None, None, None, None))
