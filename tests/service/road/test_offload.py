"""Diagram layout in worker processes gives the same answers, refusals included."""

from __future__ import annotations

import pickle
from collections.abc import Iterator

import pytest

from layoutkit import Workspace
from layoutkit.errors import DiagramError, EngineError
from layoutkit.limits import DIAGRAM_NODES, LimitExceeded
from layoutkit.service.road import offload

from ..helpers import err


def test_engine_refusals_pickle_whole() -> None:
    for original in (
        LimitExceeded("diagramNodes", 501, field="nodes"),
        DiagramError("diagram_text_invalid", "line 3: ?", findings=[{"line": 3}]),
        EngineError("x", "y", index=2),
    ):
        copy = pickle.loads(pickle.dumps(original))
        assert type(copy) is type(original)
        assert (copy.code, copy.message, copy.fields) == (
            original.code,
            original.message,
            original.fields,
        )
        assert str(copy) == str(original)


@pytest.fixture
def pooled() -> Iterator[Workspace]:
    offload.start(1)
    try:
        with Workspace.open() as ws:
            ws.call("create", {"kind": "board", "slug": "p"})
            yield ws
    finally:
        offload.stop()


def _diagram(nodes: int) -> dict:
    return {
        "kind": "diagram",
        "payload": {
            "title": "d",
            "nodes": [{"id": f"n{i}", "title": f"N{i}"} for i in range(nodes)],
            "edges": [{"from": f"n{i}", "to": f"n{i + 1}"} for i in range(nodes - 1)],
        },
    }


def test_a_pooled_layout_matches_the_inline_one(pooled: Workspace) -> None:
    assert offload.running()
    with Workspace.open() as inline_ws:
        inline_ws.call("create", {"kind": "board", "slug": "p"})
        offload_card = pooled.call("compose_board", {"board": "p", "cards": [_diagram(6)]})
        pool_payload = pooled.call("scrape_board", {"board": "p"})["cards"][0]["payload"]
        offload.stop()
        inline_ws.call("compose_board", {"board": "p", "cards": [_diagram(6)]})
        inline_payload = inline_ws.call("scrape_board", {"board": "p"})["cards"][0]["payload"]
    assert offload_card["cards"][0]["kind"] == "diagram"
    assert pool_payload["geo"] == inline_payload["geo"]


def test_a_refusal_raised_in_a_worker_answers_as_here(pooled: Workspace) -> None:
    # Over the node cap the worker raises LimitExceeded; the caller gets the same 413.
    card = _diagram(DIAGRAM_NODES + 1)
    e = err(pooled, "compose_board", {"board": "p", "cards": [card]})
    assert (e.status, e.code, e.body["limit"], e.body["value"], e.body["index"]) == (
        413,
        "limit_exceeded",
        "diagramNodes",
        DIAGRAM_NODES + 1,
        0,
    )
