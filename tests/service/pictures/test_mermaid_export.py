"""export_board format mermaid through Workspace.call: a diagram card's text reads back as
the card (imported or hand-written, and after an edit), and the refusals name the card."""

from __future__ import annotations

from typing import Any

import pytest

from layoutkit import ServiceError, Workspace
from layoutkit.diagram.mermaid import import_text

_STATE = "stateDiagram-v2\n  [*] --> Idle\n  Idle --> Busy : job\n  Busy --> [*]\n"
_SEQ = "sequenceDiagram\n  actor U as User\n  U->>S: ask\n  S-->>U: answer\n"


@pytest.fixture
def ws() -> Any:
    with Workspace.open("sqlite:///:memory:") as space:
        space.call("create", {"kind": "board", "slug": "b"})
        yield space


def _compose(ws: Workspace, *payloads: dict[str, Any]) -> list[int]:
    cards = [{"kind": "diagram", "payload": p} for p in payloads]
    cards.append({"kind": "text", "payload": {"md": "words"}})
    return [c["id"] for c in ws.call("compose_board", {"board": "b", "cards": cards})["cards"]]


def _export(ws: Workspace, card: int) -> dict[str, Any]:
    return ws.call("export_board", {"board": "b", "format": "mermaid", "card": card})


def test_each_family_goes_out_as_itself_and_reads_back_as_the_card(ws: Workspace) -> None:
    flow, state, seq, _ = _compose(
        ws,
        {"title": "Flow", "diagram_text": "graph TD\n  A[One] --> B((Two))"},
        {"title": "Machine", "diagram_text": _STATE},
        {"title": "Talk", "diagram_text": _SEQ},
    )
    stored = {c["id"]: c["payload"] for c in ws.call("scrape_board", {"board": "b"})["cards"]}
    for card, family in ((flow, "flowchart"), (state, "state"), (seq, "sequence")):
        out = _export(ws, card)
        assert (out["family"], out["format"], out["files"]) == (family, "mermaid", [])
        assert out["name"] == f"b-{card}.mmd"
        back = import_text(out["document"])
        payload = stored[card]
        assert back.get("title") == payload["title"]
        assert [e["from"] for e in back["edges"]] == [e["from"] for e in payload["edges"]]
        assert [e.get("label") for e in back["edges"]] == [e.get("label") for e in payload["edges"]]
    assert "actor U as User" in _export(ws, seq)["document"]
    assert "Idle --> Busy : job" in _export(ws, state)["document"]


def test_a_hand_written_diagram_and_an_edit_show_in_the_text(ws: Workspace) -> None:
    payload = {
        "title": "Hand",
        "dir": "LR",
        "nodes": [{"id": "api", "title": "API", "shape": "hexagon"}],
        "groups": [{"id": "data", "title": "Data", "nodes": [{"id": "db", "title": "DB"}]}],
        "edges": [{"from": "api", "to": "db", "label": "reads", "style": "dotted"}],
    }
    (card, _) = _compose(ws, payload)
    text = _export(ws, card)["document"]
    assert text.startswith('---\ntitle: "Hand"\n---\nflowchart LR\n')
    assert 'api{{"API"}}' in text and 'api -.->|"reads"| db' in text
    edited = {**payload, "nodes": [{"id": "api", "title": "Gateway", "shape": "round"}]}
    ws.call("update_cards", {"patch": [{"id": card, "payload": edited}]})
    text = _export(ws, card)["document"]
    assert 'api("Gateway")' in text


def test_refusals_name_the_card(ws: Workspace) -> None:
    (diagram, text) = _compose(ws, {"title": "F", "diagram_text": "graph TD\n  A-->B"})
    cases = [
        ({"card": text}, 400, "not_a_diagram", "card"),
        ({}, 400, "missing_param", "card"),
        ({"card": 10**6}, 404, "unknown_card", "card"),
        ({"card": diagram, "cards": [diagram]}, 400, "exclusive_params", "cards"),
        ({"card": diagram, "section": "S"}, 400, "exclusive_params", "section"),
    ]
    for extra, status, code, field in cases:
        with pytest.raises(ServiceError) as err:
            ws.call("export_board", {"board": "b", "format": "mermaid", **extra})
        assert (err.value.status, err.value.body["code"], err.value.body["field"]) == (
            status,
            code,
            field,
        ), extra
    with pytest.raises(ServiceError) as err:
        ws.call("export_board", {"board": "b", "format": "canvas", "card": diagram})
    assert (err.value.body["code"], err.value.body["field"]) == ("exclusive_params", "card")


def test_a_diagram_without_nodes_is_refused_as_empty(ws: Workspace) -> None:
    (card, _) = _compose(ws, {"title": "Nothing yet"})
    with pytest.raises(ServiceError) as err:
        _export(ws, card)
    body = err.value.body
    assert (err.value.status, body["code"], body["field"], body["detail"]) == (
        400,
        "empty_diagram",
        "card",
        "payload.nodes",
    )
