"""A person's diagram overrides (a node moved, a label typed over): merged by node on
a payload patch, kept through a refresh of the diagram's living source, dropped with
the node the source no longer has."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from layoutkit import Principal, ServiceError, Workspace

PERSON = Principal.user("ana")
SOURCE = {"kind": "repo", "ref": "docs/flow.mmd"}


def _semantics(*ids: str, titles: dict[str, str] | None = None) -> dict[str, Any]:
    titles = titles or {}
    return {
        "nodes": [{"id": i, "title": titles.get(i, i.upper())} for i in ids],
        "edges": [{"from": a, "to": b} for a, b in itertools.pairwise(ids)],
    }


@pytest.fixture
def living(ws: Workspace) -> tuple[Workspace, dict[str, Any], int]:
    """A board with one diagram fed by a living source the test rewrites."""
    source: dict[str, Any] = {"now": _semantics("a", "b", "c")}
    asked: list[dict[str, Any]] = []

    def read(pointer: dict[str, Any]) -> dict[str, Any]:
        asked.append(pointer)
        return source["now"]

    ws.diagram_sources = read
    ws.call("create", {"kind": "board", "slug": "d"})
    payload = {"title": "Flow", "source": SOURCE, **source["now"]}
    (card,) = ws.call(
        "compose_board", {"board": "d", "cards": [{"kind": "diagram", "payload": payload}]}, PERSON
    )["cards"]
    source["asked"] = asked
    return ws, source, card["id"]


def _stored(ws: Workspace, card_id: int) -> dict[str, Any]:
    (card,) = ws.call("get", {"kind": "cards", "board": "d", "ids": [card_id]})["cards"]
    return card


def _patch(ws: Workspace, card_id: int, overrides: dict[str, Any], who: Principal = PERSON) -> Any:
    return ws.call(
        "update_cards", {"patch": [{"id": card_id, "payload": {"overrides": overrides}}]}, who
    )


def test_overrides_merge_by_node_and_null_takes_one_back(living: Any) -> None:
    ws, _, card_id = living
    _patch(ws, card_id, {"b": {"x": 400, "y": 300}})
    _patch(ws, card_id, {"c": {"title": "Checkout"}})
    _patch(ws, card_id, {"b": {"title": "Basket"}})
    payload = _stored(ws, card_id)["payload"]
    assert payload["overrides"] == {
        "b": {"x": 400, "y": 300, "title": "Basket"},
        "c": {"title": "Checkout"},
    }
    # The node is where the person put it and carries the label typed over it; the
    # semantics keep the node's own title.
    assert (payload["geo"]["nodes"]["b"]["x"], payload["geo"]["nodes"]["b"]["y"]) == (400, 300)
    assert [n["title"] for n in payload["nodes"]] == ["A", "B", "C"]
    svg = ws.call("render_board", {"board": "d", "format": "svg"})["svg"]
    assert "Basket" in svg and "Checkout" in svg and 'data-node-id="b"' in svg
    # An undo sends back what was there: null parts and entries go.
    _patch(ws, card_id, {"b": {"title": None}, "c": None})
    assert _stored(ws, card_id)["payload"]["overrides"] == {"b": {"x": 400, "y": 300}}
    _patch(ws, card_id, {"b": {"x": None, "y": None}})
    payload = _stored(ws, card_id)["payload"]
    assert "overrides" not in payload and payload["geo"]["nodes"]["b"]["x"] != 400


def test_a_moved_nodes_wires_leave_by_the_side_facing_the_other_end(living: Any) -> None:
    ws, _, card_id = living
    # b goes far left of a and c, level with a: its wires run sideways, not through a.
    geo = _stored(ws, card_id)["payload"]["geo"]
    a = geo["nodes"]["a"]
    _patch(ws, card_id, {"b": {"x": a["x"] + a["w"] + 200, "y": a["y"]}})
    geo = _stored(ws, card_id)["payload"]["geo"]
    b = geo["nodes"]["b"]
    (into_b,) = [e for e in geo["edges"] if e["to"] == "b"]
    assert into_b["points"][0][0] == a["x"] + a["w"]  # out of a's right side
    assert into_b["points"][-1][0] == b["x"]  # into b's left side


def test_overrides_survive_a_living_source_refresh(living: Any) -> None:
    ws, source, card_id = living
    _patch(ws, card_id, {"b": {"x": 420, "y": 260, "title": "Basket"}})
    version = _stored(ws, card_id)["version"]
    # The source changes: a new node, and b's own title changes there.
    source["now"] = _semantics("a", "b", "c", "d", titles={"b": "Cart"})
    out = ws.call("refresh_card", {"id": card_id}, PERSON)
    assert out["version"] == version + 1
    assert source["asked"][-1] == SOURCE
    payload = _stored(ws, card_id)["payload"]
    assert [n["id"] for n in payload["nodes"]] == ["a", "b", "c", "d"]
    assert payload["nodes"][1]["title"] == "Cart"  # the source's own, kept beside
    assert payload["overrides"] == {"b": {"x": 420, "y": 260, "title": "Basket"}}
    box = payload["geo"]["nodes"]["b"]
    assert (box["x"], box["y"]) == (420, 260)
    assert "d" in payload["geo"]["nodes"]
    svg = ws.call("render_board", {"board": "d", "format": "svg"})["svg"]
    assert "Basket" in svg and "Cart" not in svg


def test_a_node_the_source_drops_takes_its_override_with_it(living: Any) -> None:
    ws, source, card_id = living
    _patch(ws, card_id, {"b": {"x": 420, "y": 260}, "c": {"title": "Pay"}})
    source["now"] = _semantics("a", "c")
    ws.call("refresh_card", {"id": card_id}, PERSON)
    payload = _stored(ws, card_id)["payload"]
    assert payload["overrides"] == {"c": {"title": "Pay"}}
    assert set(payload["geo"]["nodes"]) == {"a", "c"}
    assert any(r["path"] == "overrides.b" and r["action"] == "dropped" for r in payload["repairs"])
    # A node of that id coming back later is another node: it is laid out afresh.
    source["now"] = _semantics("a", "b", "c")
    ws.call("refresh_card", {"id": card_id}, PERSON)
    payload = _stored(ws, card_id)["payload"]
    assert "b" not in payload["overrides"] and payload["geo"]["nodes"]["b"]["x"] != 420


def test_without_a_repository_connection_a_living_source_is_501(living: Any) -> None:
    ws, _, card_id = living
    ws.diagram_sources = None
    version = _stored(ws, card_id)["version"]
    with pytest.raises(ServiceError) as exc:
        ws.call("refresh_card", {"id": card_id}, PERSON)
    assert (exc.value.status, exc.value.code) == (501, "source_unavailable")
    assert _stored(ws, card_id)["version"] == version


def test_a_source_that_fails_changes_nothing(living: Any) -> None:
    ws, _, card_id = living

    def broken(pointer: dict[str, Any]) -> dict[str, Any]:
        raise OSError("connection reset")

    ws.diagram_sources = broken
    version = _stored(ws, card_id)["version"]
    with pytest.raises(ServiceError) as exc:
        ws.call("refresh_card", {"id": card_id}, PERSON)
    assert (exc.value.status, exc.value.code) == (502, "source_unreadable")
    assert exc.value.body.get("path") == "source" or exc.value.body.get("field") == "source"
    assert _stored(ws, card_id)["version"] == version


def test_anyone_may_adjust_a_diagram_by_hand_but_agents_never_set_overrides(living: Any) -> None:
    ws, _, _card_id = living
    # An agent's own diagram: a person adjusts it (its semantics stay the agent's).
    bot = Principal.agent("bot")
    (mine,) = ws.call(
        "compose_board",
        {
            "board": "d",
            "cards": [{"kind": "diagram", "payload": {"title": "T", **_semantics("p", "q")}}],
        },
        bot,
    )["cards"]
    _patch(ws, mine["id"], {"q": {"title": "Queue"}})
    assert _stored(ws, mine["id"])["payload"]["overrides"] == {"q": {"title": "Queue"}}
    with pytest.raises(ServiceError) as exc:
        ws.call(
            "update_cards",
            {"patch": [{"id": mine["id"], "payload": {"title": "Mine now", "overrides": {}}}]},
            PERSON,
        )
    assert (exc.value.status, exc.value.code) == (403, "not_your_card")
    # The agent patching its own diagram's overrides: dropped with a warning.
    out = _patch(ws, mine["id"], {"p": {"x": 5, "y": 5}}, bot)
    assert any(w["code"] == "server_owned" for w in out["warnings"])
    assert _stored(ws, mine["id"])["payload"]["overrides"] == {"q": {"title": "Queue"}}


def test_a_label_override_is_bounded(living: Any) -> None:
    ws, _, card_id = living
    _patch(ws, card_id, {"b": {"title": "x" * 501}})
    payload = _stored(ws, card_id)["payload"]
    assert "overrides" not in payload
    assert any(r["path"] == "overrides.b.title" for r in payload["repairs"])
