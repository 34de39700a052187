"""bulk_update_tasks: one patch, up to 200 tasks, one transaction, vocabulary remapped by key."""

from __future__ import annotations

import pytest

from layoutkit import ServiceError, Workspace


def _task(ws: Workspace, **fields: object) -> int:
    return ws.call("create", {"kind": "task", "title": "T", **fields})["task"]["id"]


def _get(ws: Workspace, task: int) -> dict:
    return ws.call("get", {"kind": "task", "id": task})["task"]


def test_one_patch_changes_every_task(any_ws: Workspace) -> None:
    ids = [_task(any_ws) for _ in range(3)]
    out = any_ws.call(
        "bulk_update_tasks", {"ids": ids, "patch": {"status": "todo", "priority": "low"}}
    )
    assert out["count"] == 3
    assert all(sorted(t["changed"]) == ["priority", "status"] for t in out["tasks"])
    assert {_get(any_ws, t)["status"] for t in ids} == {"todo"}


def test_all_or_nothing(any_ws: Workspace) -> None:
    good = _task(any_ws)
    with pytest.raises(ServiceError) as exc:
        any_ws.call("bulk_update_tasks", {"ids": [good, 9999], "patch": {"status": "done"}})
    assert (exc.value.status, exc.value.body["index"], exc.value.body["id"]) == (404, 1, 9999)
    assert _get(any_ws, good)["status"] == "backlog"  # the first task's change rolled back


def test_at_most_200_tasks(ws: Workspace) -> None:
    with pytest.raises(ServiceError) as exc:
        ws.call("bulk_update_tasks", {"ids": list(range(1, 202)), "patch": {"status": "todo"}})
    assert (exc.value.status, exc.value.code) == (400, "invalid_params")


def test_moving_to_an_unknown_project_is_422(ws: Workspace) -> None:
    task = _task(ws, project="a")
    with pytest.raises(ServiceError) as exc:
        ws.call("bulk_update_tasks", {"ids": [task], "patch": {"project": "nowhere"}})
    assert (exc.value.status, exc.value.code) == (422, "unknown_project")


def test_a_project_move_takes_subtrees_and_remaps_vocabulary_by_key(any_ws: Workspace) -> None:
    ws = any_ws
    ws.call("create", {"kind": "field", "key": "area", "project": "b"})  # b exists
    sprint = ws.call("create", {"kind": "sprint", "key": "s1", "project": "a"})["sprint"]["id"]
    milestone = ws.call("create", {"kind": "milestone", "key": "m1", "project": "a"})
    root = _task(
        ws,
        project="a",
        state="doing",
        labels=["ui"],
        fields={"area": "x", "team": "core"},
        sprintId=sprint,
        milestoneId=milestone["milestone"]["id"],
    )
    child = _task(ws, project="a", parentId=root, sprintId=sprint)
    ws.call("bulk_update_tasks", {"ids": [root], "patch": {"project": "b"}})
    moved_root, moved_child = _get(ws, root), _get(ws, child)
    assert (moved_root["project"], moved_child["project"]) == ("b", "b")
    sprints = ws.call("list", {"kind": "sprint", "project": "b"})["items"]
    assert [s["key"] for s in sprints] == ["s1"]
    assert moved_root["sprintId"] == moved_child["sprintId"] == sprints[0]["id"] != sprint
    assert moved_root["milestoneId"] != milestone["milestone"]["id"]
    words = {
        kind: [i["key"] for i in ws.call("list", {"kind": kind, "project": "b"})["items"]]
        for kind in ("state", "label", "field")
    }
    assert words == {"state": ["doing"], "label": ["ui"], "field": ["area", "team"]}
