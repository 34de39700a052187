"""Work one request may ask for is bounded: over a limit it answers 413 naming the limit."""

from __future__ import annotations

from typing import Any

import pytest

from layoutkit import Workspace
from layoutkit import limits as limits_module
from layoutkit.limits import (
    DIAGRAM_EDGES,
    DIAGRAM_LINES,
    DIAGRAM_NODES,
    MARKDOWN_CHARS,
    TABLE_ROWS,
)

from ..helpers import err


@pytest.fixture
def ws() -> Workspace:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "w"})
    ws.call("compose_board", {"board": "w", "cards": [{"kind": "note", "payload": {"md": "keep"}}]})
    return ws


def _refused(ws: Workspace, card: dict[str, Any], limit: str, value: int, maximum: int) -> None:
    before = ws.call("scrape_board", {"board": "w"})["cards"]
    ok = {"kind": "note", "payload": {"md": "fine"}}
    e = err(ws, "compose_board", {"board": "w", "cards": [ok, card]})
    assert (e.status, e.code) == (413, "limit_exceeded")
    assert (e.body["limit"], e.body["max"], e.body["value"]) == (limit, maximum, value)
    assert e.body["index"] == 1
    assert ws.call("scrape_board", {"board": "w"})["cards"] == before


def _diagram(nodes: int, edges: int) -> dict[str, Any]:
    return {
        "kind": "diagram",
        "payload": {
            "title": "big",
            "nodes": [{"id": f"n{i}", "title": f"N{i}"} for i in range(nodes)],
            "edges": [{"from": f"n{i % nodes}", "to": f"n{(i + 1) % nodes}"} for i in range(edges)],
        },
    }


def test_diagram_node_cap(ws: Workspace) -> None:
    _refused(ws, _diagram(DIAGRAM_NODES + 1, 10), "diagramNodes", DIAGRAM_NODES + 1, DIAGRAM_NODES)


def test_diagram_edge_cap(ws: Workspace) -> None:
    _refused(ws, _diagram(50, DIAGRAM_EDGES + 1), "diagramEdges", DIAGRAM_EDGES + 1, DIAGRAM_EDGES)


def test_diagram_text_line_cap(ws: Workspace) -> None:
    text = "flowchart TD\n" + "\n".join(f"a{i} --> a{i + 1}" for i in range(DIAGRAM_LINES))
    card = {"kind": "diagram", "payload": {"title": "t", "diagram_text": text}}
    _refused(ws, card, "diagramLines", DIAGRAM_LINES + 1, DIAGRAM_LINES)


def test_diagram_text_over_the_node_cap_is_refused_after_import(ws: Workspace) -> None:
    text = "flowchart TD\n" + "\n".join(f"a{i}" for i in range(DIAGRAM_NODES + 1))
    card = {"kind": "diagram", "payload": {"title": "t", "diagram_text": text}}
    _refused(ws, card, "diagramNodes", DIAGRAM_NODES + 1, DIAGRAM_NODES)


def test_a_diagram_at_the_caps_is_laid_out(ws: Workspace) -> None:
    r = ws.call("compose_board", {"board": "w", "cards": [_diagram(100, DIAGRAM_EDGES)]})
    assert r["cards"][0]["kind"] == "diagram"


def test_table_row_cap(ws: Workspace) -> None:
    rows = [{"a": i} for i in range(TABLE_ROWS + 1)]
    card = {"kind": "table", "payload": {"columns": [{"key": "a", "label": "A"}], "rows": rows}}
    _refused(ws, card, "tableRows", TABLE_ROWS + 1, TABLE_ROWS)


def test_markdown_cap(ws: Workspace) -> None:
    card = {"kind": "note", "payload": {"md": "x" * (MARKDOWN_CHARS + 1)}}
    _refused(ws, card, "markdownChars", MARKDOWN_CHARS + 1, MARKDOWN_CHARS)


def test_markdown_cap_holds_on_update_cards_too(ws: Workspace) -> None:
    (card,) = ws.call("scrape_board", {"board": "w"})["cards"]
    e = err(
        ws,
        "update_cards",
        {
            "patch": [{"id": card["id"], "payload": {"md": "y" * (MARKDOWN_CHARS + 1)}}],
        },
    )
    assert (e.status, e.code, e.body["limit"]) == (413, "limit_exceeded", "markdownChars")


def test_arrange_card_cap(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    # The cap (5,000) is read when arrange runs; a small one keeps the board small.
    monkeypatch.setitem(limits_module.LIMITS, "arrangeCards", 3)
    ws.call(
        "compose_board",
        {"board": "w", "cards": [{"kind": "note", "payload": {"md": f"c{i}"}} for i in range(3)]},
    )
    before = ws.call("scrape_board", {"board": "w"})["cards"]
    e = err(ws, "arrange", {"board": "w", "mode": "grid", "scope": "all"})
    assert (e.status, e.code, e.body["limit"], e.body["value"]) == (
        413,
        "limit_exceeded",
        "arrangeCards",
        4,
    )
    assert ws.call("scrape_board", {"board": "w"})["cards"] == before
    ws.call("arrange", {"board": "w", "mode": "grid", "scope": [c["id"] for c in before[:3]]})
