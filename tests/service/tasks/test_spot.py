"""spot: one follow-up task under a bound task or the project's rolling epic."""

from __future__ import annotations

import pytest

from layoutkit import ServiceError, Workspace


def _task(ws: Workspace, **fields: object) -> int:
    return ws.call("create", {"kind": "task", "title": "Parent", **fields})["task"]["id"]


def test_a_spot_under_a_bound_task_joins_its_project(ws: Workspace) -> None:
    parent = _task(ws, project="web")
    out = ws.call(
        "spot",
        {
            "parentId": parent,
            "title": "Flaky test",
            "type": "bug",
            "refs": [{"kind": "pr", "ref": "a/b#3"}],
        },
    )
    task = out["task"]
    assert (task["parentId"], task["project"], task["type"]) == (parent, "web", "bug")
    assert out["url"] == f"/tasks/{task['id']}"
    assert out["refs"] == [{"kind": "pr", "ref": "a/b#3", "version": 1}]


def test_without_a_parent_spots_gather_under_the_rolling_epic(ws: Workspace) -> None:
    one = ws.call("spot", {"title": "First", "project": "web"})
    two = ws.call("spot", {"title": "Second", "project": "web"})
    other = ws.call("spot", {"title": "Elsewhere", "project": "api"})
    assert one["parent"]["id"] == two["parent"]["id"] != other["parent"]["id"]
    epic = ws.call("get", {"kind": "task", "id": one["parent"]["id"]})["task"]
    assert (epic["type"], epic["title"], epic["project"]) == ("epic", "Follow-ups", "web")


def test_from_step_moves_a_step_to_the_child(ws: Workspace) -> None:
    parent = _task(ws)
    ws.call(
        "hand_back",
        {"id": parent, "summary": "s", "next": [{"title": "Tidy CSS"}, {"title": "Docs"}]},
    )
    by_name = ws.call("spot", {"parentId": parent, "fromStep": "Tidy CSS"})
    assert by_name["task"]["title"] == "Tidy CSS"
    by_id = ws.call("spot", {"parentId": parent, "fromStep": "i2", "title": "Write the docs"})
    assert by_id["task"]["title"] == "Write the docs"
    assert ws.call("get", {"kind": "task", "id": parent})["task"]["gates"] == []


def test_from_step_refusals(ws: Workspace) -> None:
    parent = _task(ws)
    ws.call("hand_back", {"id": parent, "summary": "s", "next": [{"title": "Tidy CSS"}]})
    for params in (
        {"parentId": parent, "fromStep": "tidy css"},  # exact name only
        {"fromStep": "Tidy CSS", "title": "x"},  # no parentId
    ):
        with pytest.raises(ServiceError) as exc:
            ws.call("spot", params)
        assert (exc.value.status, exc.value.body["field"]) == (400, "fromStep")
