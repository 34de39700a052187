"""Every Mermaid corpus example converts to the facts Mermaid's own parser extracts."""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path
from typing import Any

import pytest

from layoutkit.diagram import import_text, lay_out
from layoutkit.diagram._mermaid_common import clean_label
from layoutkit.diagram._sequence import block_prefix
from layoutkit.diagram.findings import composition_findings
from layoutkit.errors import DiagramError
from tests.refusal import refused

# The shared corpus sits next to the repository; LAYOUTKIT_MERMAID_CORPUS points elsewhere.
CORPUS = Path(
    os.environ.get("LAYOUTKIT_MERMAID_CORPUS")
    or Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "mermaid"
)
_SKIP = pytest.mark.skipif(
    not CORPUS.is_dir(), reason="shared Mermaid corpus not found next to the repo"
)


def _examples(kind: str) -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted((CORPUS / kind).glob("*.mmd"))


def _walk(payload: dict[str, Any]) -> tuple[dict[str, str], dict[str, set[str]]]:
    """All nodes (id -> title) and groups (id -> member ids, nested group ids included)."""
    nodes: dict[str, str] = {}
    groups: dict[str, set[str]] = {}

    def visit(container: dict[str, Any], gid: str | None) -> None:
        for n in container.get("nodes") or []:
            nodes[n["id"]] = n["title"]
            if gid is not None:
                groups[gid].add(n["id"])
        for g in container.get("groups") or []:
            groups[g["id"]] = set()
            if gid is not None:
                groups[gid].add(g["id"])
            visit(g, g["id"])

    visit(payload, None)
    for lane in payload.get("lanes") or []:
        visit(lane, None)
    return nodes, groups


def _edges(payload: dict[str, Any]) -> list[tuple[str, str, str]]:
    return sorted((e["from"], e["to"], e.get("label", "")) for e in payload["edges"])


def _load(path: Path) -> tuple[str, dict[str, Any]]:
    expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text("utf-8"))
    return path.read_text("utf-8"), expected


@_SKIP
@pytest.mark.parametrize("path", _examples("flowchart"), ids=lambda p: p.stem)
def test_flowchart_example(path: Path) -> None:
    text, expected = _load(path)
    payload = import_text(text)
    facts = expected["facts"]
    sub_ids = {s["id"] for s in facts["subgraphs"]}
    nodes, groups = _walk(payload)
    assert nodes == {
        v["id"]: clean_label(v["label"]) for v in facts["vertices"] if v["id"] not in sub_ids
    }
    assert groups == {s["id"]: set(s["members"]) for s in facts["subgraphs"]}
    assert _edges(payload) == sorted(
        (e["from"], e["to"], clean_label(e["label"])) for e in facts["edges"]
    )
    assert payload["dir"] == {"TB": "TD", "BT": "TD", "RL": "LR"}.get(
        facts["direction"], facts["direction"]
    )
    assert payload.get("title") == expected["title"]


@_SKIP
@pytest.mark.parametrize("path", _examples("sequence"), ids=lambda p: p.stem)
def test_sequence_example(path: Path) -> None:
    text, expected = _load(path)
    payload = import_text(text)
    facts = expected["facts"]
    assert len(payload["lanes"]) == 1
    lane_ids = [n["id"] for n in payload["lanes"][0]["nodes"]]
    assert lane_ids == [p["id"] for p in facts["participants"]]
    nodes, _ = _walk(payload)
    assert nodes == {p["id"]: clean_label(p["label"]) for p in facts["participants"]}
    # Mermaid numbers messages when drawing, so its facts do not flag ``autonumber``.
    numbered = any(line.strip() == "autonumber" for line in text.splitlines())
    want = []
    for k, m in enumerate(facts["messages"], start=1):
        label = " ".join(
            x for x in (block_prefix(m.get("blocks", [])), clean_label(m["text"])) if x
        )
        if numbered:
            label = f"{k}. {label}"
        want.append((m["from"], m["to"], label))
    assert [(e["from"], e["to"], e.get("label", "")) for e in payload["edges"]] == want


@_SKIP
@pytest.mark.parametrize("path", _examples("state"), ids=lambda p: p.stem)
def test_state_example(path: Path) -> None:
    text, expected = _load(path)
    payload = import_text(text)
    facts = expected["facts"]
    notes = _state_notes(payload)
    assert notes == sorted(
        (n["id"].split("----note-")[0], n["position"].split()[0], clean_label(n["text"]))
        for n in facts.get("notes", [])
    )
    nodes, groups = _walk(payload)
    nodes = {k: v for k, v in nodes.items() if "----note-" not in k}
    groups = {g: {m for m in ms if "----note-" not in m} for g, ms in groups.items()}
    plain = {"start": "Start", "end": "End"}
    assert nodes == {
        s["id"]: plain.get(s["kind"], clean_label(s["label"]))
        for s in facts["states"]
        if s["kind"] not in ("composite", "region")
    }
    assert groups == {c["id"]: set(c["members"]) for c in facts["composites"]}
    ties = [e for e in payload["edges"] if "----note-" in e["from"] + e["to"]]
    payload = {**payload, "edges": [e for e in payload["edges"] if e not in ties]}
    assert _edges(payload) == sorted(
        (t["from"], t["to"], clean_label(t["label"])) for t in facts["transitions"]
    )
    assert payload.get("title") == expected["title"]


def _state_notes(payload: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(state, side, text) of each note node, read back from its tie edge."""
    titles = {
        n["id"]: n["title"]
        for holder in _all_holders(payload)
        for n in holder.get("nodes") or []
        if n.get("type") == "note"
    }
    out = []
    for e in payload["edges"]:
        if e["from"] in titles:
            out.append((e["to"], "left", titles[e["from"]]))
        elif e["to"] in titles:
            out.append((e["from"], "right", titles[e["to"]]))
    assert len(out) == len(titles), "every note is tied to its state by one edge"
    return sorted(out)


def _all_holders(payload: dict[str, Any]) -> list[dict[str, Any]]:
    holders = [payload]
    k = 0
    while k < len(holders):
        holders += holders[k].get("groups") or []
        k += 1
    return holders


@_SKIP
@pytest.mark.parametrize(
    "path",
    _examples("flowchart") + _examples("sequence") + _examples("state"),
    ids=lambda p: f"{p.parent.name}-{p.stem}",
)
def test_every_text_mermaid_accepts_is_accepted(path: Path) -> None:
    """What Mermaid's parser reads (``ok: true``) imports and lays out, with no
    ``diagram_text_*`` refusal and no edge dropped for naming nothing."""
    text, expected = _load(path)
    if not expected.get("ok", True):
        pytest.skip("Mermaid itself refuses this example")
    out = lay_out({"diagram_text": text})
    assert not [r for r in out["repairs"] if "names no node" in r.get("message", "")]


@_SKIP
@pytest.mark.parametrize("path", _examples("refuse"), ids=lambda p: p.stem)
def test_other_types_are_refused(path: Path) -> None:
    with refused(DiagramError) as info:
        import_text(path.read_text("utf-8"))
    err = info.value
    assert err.status == 400
    assert err.code == "diagram_text_unsupported"
    assert set(err.body["supported"]) == {
        "flowchart",
        "graph",
        "sequenceDiagram",
        "stateDiagram",
        "stateDiagram-v2",
    }
    assert err.body["findings"][0]["line"] >= 1


@_SKIP
@pytest.mark.parametrize(
    "path",
    _examples("flowchart") + _examples("sequence") + _examples("state"),
    ids=lambda p: f"{p.parent.name}-{p.stem}",
)
def test_example_lays_out_without_composition_findings(path: Path) -> None:
    expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text("utf-8"))
    if not expected.get("ok", True):
        pytest.skip("Mermaid itself refuses this example")
    geo = lay_out({"diagram_text": path.read_text("utf-8")})["geo"]
    assert composition_findings(geo) == []
    for e in geo["edges"]:
        assert all(p[0] == q[0] or p[1] == q[1] for p, q in itertools.pairwise(e["points"]))
        lb = e.get("label")
        if isinstance(lb, dict):
            # No edge label is cut at the drawing's edge.
            assert lb["x"] >= -0.01 and lb["x"] + lb["w"] <= geo["width"] + 0.01, lb
            assert lb["y"] >= -0.01 and lb["y"] + lb["h"] <= geo["height"] + 0.01, lb


_PLACEMENT = {"LEFTOF": "left", "RIGHTOF": "right", "OVER": "over"}


@_SKIP
@pytest.mark.parametrize("path", _examples("sequence"), ids=lambda p: p.stem)
def test_sequence_structure_matches_mermaid(path: Path) -> None:
    """The server-owned ``sequence`` record holds the notes, blocks, activations,
    boxes and create/destroy points Mermaid's parser finds, in its order."""
    text, expected = _load(path)
    seq = import_text(text)["sequence"]
    facts = expected["facts"]
    assert [m["text"] for m in seq["messages"]] == [
        clean_label(m["text"]) for m in facts["messages"]
    ]
    assert [
        (_PLACEMENT[n["placement"]], n["actors"], clean_label(n["text"])) for n in facts["notes"]
    ] == [(n["placement"], list(dict.fromkeys(n["actors"])), n["text"]) for n in seq["notes"]]
    assert [
        (
            b["type"],
            clean_label(b["label"]),
            [(r["kind"], clean_label(r["label"])) for r in b["branches"]],
        )
        for b in facts["blocks"]
    ] == [
        (
            "par" if b["type"] == "par_over" else b["type"],
            b["label"],
            [(r["kind"], r["label"]) for r in b["branches"]],
        )
        for b in seq["blocks"]
    ]
    switched = [
        (e["actor"], e["event"] == "activate")
        for e in seq["events"]
        if e["event"] in ("activate", "deactivate")
    ]
    assert switched == [(a["actor"], a["on"]) for a in facts["activations"]]
    assert [(b["label"], b["members"]) for b in seq["boxes"]] == [
        (clean_label(b["name"]), b["members"]) for b in facts["boxes"]
    ]
    people = {p["id"]: p for p in seq["participants"]}
    assert {pid: p["created"] for pid, p in people.items() if "created" in p} == facts["created"]
    assert {pid: p["destroyed"] for pid, p in people.items() if "destroyed" in p} == facts[
        "destroyed"
    ]
    assert [p["kind"] for p in seq["participants"]] == [p["kind"] for p in facts["participants"]]
