"""Drafts: proposals with verdicts, out of lists until accepted, accept and decline rules."""

from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from layoutkit import ServiceError, Workspace
from layoutkit.principal import Principal

AGENT = Principal.agent("scout")


def _propose(ws: Workspace, drafts: list[dict], **more: object) -> list[dict]:
    return ws.call("propose_tasks", {"drafts": drafts, **more}, AGENT)["drafts"]


def _listed(ws: Workspace) -> set[int]:
    return {t["id"] for t in ws.call("list", {"kind": "task", "limit": 500})["tasks"]}


def test_drafts_carry_verdicts_against_open_tasks(ws: Workspace) -> None:
    open_task = ws.call("create", {"kind": "task", "title": "Fix the login page"})["task"]["id"]
    done = ws.call("create", {"kind": "task", "title": "Old work", "status": "done"})["task"]["id"]
    out = _propose(
        ws,
        [
            {"title": "fix the LOGIN page"},
            {"title": "Fix the login pages"},
            {"title": "Old work"},  # closed tasks are no duplicates
            {"title": "Brand new"},
            {"title": "brand new"},  # a duplicate of the draft before it
        ],
        source={"kind": "meeting", "ref": "standup", "url": "https://notes.example/1"},
    )
    assert [d["verdict"] for d in out] == ["duplicate", "similar", "new", "new", "duplicate"]
    assert out[0]["of"]["id"] == open_task and "id" not in out[0]
    assert out[1]["of"]["id"] == open_task and "id" in out[1]
    assert out[2]["id"] != done
    got = ws.call("get", {"kind": "task", "id": out[3]["id"]})["task"]
    assert (got["draft"], got["source"]["ref"]) == ("pending", "standup")


def test_parent_keys_link_drafts_in_any_order(ws: Workspace) -> None:
    out = _propose(
        ws,
        [{"title": "Child", "parentKey": "epic"}, {"key": "epic", "title": "Epic", "type": "epic"}],
    )
    child = ws.call("get", {"kind": "task", "id": out[0]["id"]})["task"]
    assert child["parentId"] == out[1]["id"]
    with pytest.raises(ServiceError) as exc:
        _propose(ws, [{"title": "Orphan", "parentKey": "nope"}])
    assert (exc.value.status, exc.value.body["field"]) == (400, "drafts[0].parentKey")


def test_drafts_stay_out_of_lists_until_accepted(ws: Workspace) -> None:
    (draft,) = _propose(ws, [{"title": "Maybe"}])
    assert draft["id"] not in _listed(ws)
    drafts = ws.call("list", {"kind": "task", "f": {"draft": True}})["tasks"]
    assert [t["id"] for t in drafts] == [draft["id"]]
    assert ws.call("accept_tasks", {"ids": [draft["id"]]}) == {"accepted": [draft["id"]]}
    assert draft["id"] in _listed(ws)
    assert "draft" not in ws.call("get", {"kind": "task", "id": draft["id"]})["task"]


def test_accepting_a_child_accepts_its_pending_parent_first(ws: Workspace) -> None:
    out = _propose(
        ws,
        [
            {"key": "a", "title": "Grandparent"},
            {"key": "b", "title": "Parent", "parentKey": "a"},
            {"title": "Child", "parentKey": "b"},
        ],
    )
    ids = [d["id"] for d in out]
    assert ws.call("accept_tasks", {"ids": [ids[2]]})["accepted"] == ids
    assert set(ids) <= _listed(ws)


def test_declining_a_parent_declines_its_pending_children(ws: Workspace) -> None:
    out = _propose(
        ws,
        [
            {"key": "p", "title": "Parent"},
            {"title": "Kid one", "parentKey": "p"},
            {"title": "Kid two", "parentKey": "p"},
        ],
    )
    ids = [d["id"] for d in out]
    ws.call("accept_tasks", {"ids": [ids[2]]})  # accepts the parent too
    (other,) = _propose(ws, [{"title": "Kid three", "parentId": ids[0]}])
    declined = ws.call("decline_tasks", {"ids": [ids[1]]})["declined"]
    assert declined == [ids[1]]
    (root,) = _propose(ws, [{"key": "r", "title": "Root"}])
    (leaf,) = _propose(ws, [{"title": "Leaf", "parentId": root["id"]}])
    assert sorted(ws.call("decline_tasks", {"ids": [root["id"]]})["declined"]) == [
        root["id"],
        leaf["id"],
    ]
    assert other["id"] not in _listed(ws)
    with pytest.raises(ServiceError) as exc:
        _propose(ws, [{"title": "Under a no", "parentId": root["id"]}])
    assert (exc.value.status, exc.value.code) == (409, "parent_declined")


def test_only_people_accept_or_decline(ws: Workspace) -> None:
    (draft,) = _propose(ws, [{"title": "Maybe"}])
    for op in ("accept_tasks", "decline_tasks"):
        with pytest.raises(ServiceError) as exc:
            ws.call(op, {"ids": [draft["id"]]}, AGENT)
        assert exc.value.status == 403
    task = ws.call("create", {"kind": "task", "title": "Real"})["task"]["id"]
    with pytest.raises(ServiceError) as exc:
        ws.call("accept_tasks", {"ids": [task]})
    assert (exc.value.status, exc.value.code) == (409, "not_a_draft")


class Drafts(RuleBasedStateMachine):
    """Any sequence of proposals, accepts and declines keeps the draft rules."""

    def __init__(self) -> None:
        super().__init__()
        self.ws = Workspace.open()
        self.ids: list[int] = []
        self.n = 0

    def teardown(self) -> None:
        self.ws.close()

    def _task(self, task_id: int) -> dict:
        return self.ws.call("get", {"kind": "task", "id": task_id})["task"]

    @rule(parent=st.integers(min_value=0, max_value=30), with_parent=st.booleans())
    def propose(self, parent: int, with_parent: bool) -> None:
        self.n += 1
        draft: dict = {"title": f"Draft number {self.n} of {self.n * 7919}"}
        if with_parent and self.ids:
            draft["parentId"] = self.ids[parent % len(self.ids)]
        try:
            (out,) = _propose(self.ws, [draft])
        except ServiceError as exc:
            assert exc.code == "parent_declined"
            return
        if "id" in out:
            self.ids.append(out["id"])

    @precondition(lambda self: bool(self.ids))
    @rule(pick=st.integers(min_value=0, max_value=30), accept=st.booleans())
    def decide(self, pick: int, accept: bool) -> None:
        task_id = self.ids[pick % len(self.ids)]
        if self._task(task_id).get("draft") != "pending":
            return
        self.ws.call("accept_tasks" if accept else "decline_tasks", {"ids": [task_id]})

    @invariant()
    def accepted_tasks_never_hang_under_a_pending_draft(self) -> None:
        for task_id in self.ids:
            task = self._task(task_id)
            if "draft" not in task and task["parentId"] is not None:
                assert self._task(task["parentId"]).get("draft") != "pending"

    @invariant()
    def declined_drafts_have_no_pending_children(self) -> None:
        for task_id in self.ids:
            task = self._task(task_id)
            if task.get("draft") == "pending" and task["parentId"] is not None:
                assert self._task(task["parentId"]).get("draft") != "declined"

    @invariant()
    def lists_show_accepted_tasks_only(self) -> None:
        listed = _listed(self.ws)
        assert listed == {t for t in self.ids if "draft" not in self._task(t)}


TestDraftRules = Drafts.TestCase
TestDraftRules.settings = settings(max_examples=25, stateful_step_count=12, deadline=None)
