"""Tasks through the generic verbs: fields, the human rule, ids, f.text and the event log."""

from __future__ import annotations

import pytest

from layoutkit import ServiceError, Workspace
from layoutkit.principal import Principal
from tests.service.helpers import join

AGENT = Principal.agent("claude")


def _task(ws: Workspace, who: Principal | None = None, **fields: object) -> dict:
    return ws.call("create", {"kind": "task", "title": "A task", **fields}, who)["task"]


def _refused(ws: Workspace, op: str, params: dict, who: Principal | None = None) -> ServiceError:
    with pytest.raises(ServiceError) as exc:
        ws.call(op, params, who)
    return exc.value


def test_a_new_task_has_the_defaults_and_every_field_it_was_given(any_ws: Workspace) -> None:
    plain = _task(any_ws)
    assert (plain["status"], plain["type"], plain["priority"], plain["project"]) == (
        "backlog",
        "task",
        "",
        None,
    )
    sprint = any_ws.call("create", {"kind": "sprint", "key": "s1", "project": "core"})["sprint"]
    full = _task(
        any_ws,
        key="CORE-1",
        body="Body text",
        project="core",
        state="doing",
        status="todo",
        type="bug",
        priority="high",
        assignee="ana",
        assigneeId=7,
        sprintId=sprint["id"],
        parentId=plain["id"],
        dueAt="2026-12-01",
        estimate=3,
        labels=["ui", "ui", "api"],
        gates=[{"title": "QA sign-off", "kind": "human", "evidence": "ran the suite"}],
        nextAction="ship it",
        outcome="works",
        decisions="use sqlite",
        branch="tk-2-fix",
        fields={"area": "layout"},
    )
    got = any_ws.call("get", {"kind": "task", "id": full["id"]})
    assert got["task"] == full
    assert full["labels"] == ["ui", "api"]
    assert (full["sprintId"], full["parentId"], full["estimate"]) == (sprint["id"], plain["id"], 3)
    assert got["parent"]["id"] == plain["id"]
    # States, labels and field keys became the project's vocabulary on first use.
    words = {
        kind: [i["key"] for i in any_ws.call("list", {"kind": kind, "project": "core"})["items"]]
        for kind in ("state", "label", "field")
    }
    assert words == {"state": ["doing"], "label": ["ui", "api"], "field": ["area"]}


@pytest.mark.parametrize(
    ("kind", "who", "human"),
    [
        ("epic", AGENT, True),
        ("epic", None, True),
        ("story", None, True),  # a story a person asked for
        ("story", Principal.user("ana"), True),
        ("story", AGENT, False),  # a story an agent filed rolls up as progress
        ("bug", None, False),
        ("task", None, False),
    ],
)
def test_human_follows_the_type_rule(ws: Workspace, kind: str, who, human: bool) -> None:
    task = _task(ws, who, type=kind)
    assert (task["human"], task["humanByRule"]) == (human, True)


def test_human_set_wins_over_the_rule_and_null_returns_to_it(ws: Workspace) -> None:
    epic = _task(ws, type="epic", human=False)
    assert (epic["human"], epic["humanByRule"]) == (False, False)
    back = ws.call("update", {"kind": "task", "id": epic["id"], "human": None})["task"]
    assert (back["human"], back["humanByRule"]) == (True, True)
    # The rule follows the type as it changes.
    bug = ws.call("update", {"kind": "task", "id": epic["id"], "type": "bug"})["task"]
    assert bug["human"] is False


def test_update_reports_and_logs_what_changed(ws: Workspace) -> None:
    task = _task(ws)
    out = ws.call(
        "update", {"kind": "task", "id": task["id"], "status": "in_progress", "title": "A task"}
    )
    assert out["changed"] == ["status"]
    events = ws.call("get", {"kind": "task", "id": task["id"]})["events"]
    assert [e["action"] for e in events] == ["task.create", "task.update"]
    assert events[1]["detail"] == {"status": {"from": "backlog", "to": "in_progress"}}


def test_refusals_name_the_field(ws: Workspace) -> None:
    a = _task(ws)
    b = _task(ws, parentId=a["id"])
    cycle = _refused(ws, "update", {"kind": "task", "id": a["id"], "parentId": b["id"]})
    assert (cycle.status, cycle.code, cycle.body["field"]) == (400, "parent_cycle", "parentId")
    sprint = _refused(ws, "update", {"kind": "task", "id": a["id"], "sprintId": 999})
    assert (sprint.status, sprint.code) == (422, "unknown_sprint")
    project = _refused(ws, "update", {"kind": "task", "id": a["id"], "project": "nowhere"})
    assert (project.status, project.code) == (422, "unknown_project")
    due = _refused(ws, "create", {"kind": "task", "title": "x", "dueAt": "next week"})
    assert (due.status, due.body["field"]) == (400, "dueAt")
    _task(ws, key="K-1")
    taken = _refused(ws, "create", {"kind": "task", "title": "x", "key": "K-1"})
    assert (taken.status, taken.code) == (409, "key_taken")
    status = _refused(ws, "create", {"kind": "task", "title": "x", "status": "doing"})
    assert (status.status, status.code) == (400, "invalid_params")


def test_moving_a_task_to_another_project_takes_its_subtree(ws: Workspace) -> None:
    ws.call("create", {"kind": "field", "key": "area", "project": "two"})
    root = _task(ws, project="one")
    child = _task(ws, project="one", parentId=root["id"])
    grandchild = _task(ws, project="one", parentId=child["id"])
    ws.call("update", {"kind": "task", "id": root["id"], "project": "two"})
    for task in (child, grandchild):
        assert ws.call("get", {"kind": "task", "id": task["id"]})["task"]["project"] == "two"


def test_a_task_is_named_by_number_or_workspace_and_number(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'ws.db'}"
    with (
        Workspace.open(url, name="home", multi_workspace=True) as home,
        Workspace.open(url, name="away", multi_workspace=True) as away,
    ):
        mine = _task(home)
        theirs = _task(away, title="Away task")
        assert home.call("get", {"kind": "task", "id": str(mine["id"])})["task"]["id"] == mine["id"]
        assert home.call("get", {"kind": "task", "id": f"home/{mine['id']}"})["task"] == mine
        # The deployment itself (no token) works in every workspace of the database.
        got = home.call("get", {"kind": "task", "id": f"away/{theirs['id']}"})["task"]
        assert got["title"] == "Away task"
        # A bare number names a task of this workspace only.
        missing = _refused(home, "get", {"kind": "task", "id": theirs["id"]})
        assert (missing.status, missing.code) == (404, "unknown_task")
        # No such workspace answers as no such task: names cannot be probed.
        nowhere = _refused(home, "get", {"kind": "task", "id": "mars/1"})
        assert (nowhere.status, nowhere.code, nowhere.body["field"]) == (404, "unknown_task", "id")


def test_a_member_of_both_workspaces_works_there_with_its_role_there(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'ws.db'}"
    with (
        Workspace.open(url, name="home", multi_workspace=True) as home,
        Workspace.open(url, name="away", multi_workspace=True) as away,
    ):
        theirs = _task(away, title="Away task")
        ana = home.authenticate(home.create_token("user", "ana"))
        assert ana is not None
        # Not a member of away: the same answer as for a task that does not exist.
        for written in (f"away/{theirs['id']}", f"/away/tasks/{theirs['id']}"):
            err = _refused(home, "get", {"kind": "task", "id": written}, ana)
            ghost = _refused(
                home, "get", {"kind": "task", "id": written.replace("away", "mars")}, ana
            )
            assert (err.status, err.code) == (ghost.status, ghost.code) == (404, "unknown_task")
            assert {**err.body, "message": "", "id": ""} == {**ghost.body, "message": "", "id": ""}
        join(away, ana, "member", via=home)
        got = home.call("get", {"kind": "task", "id": f"away/{theirs['id']}"}, principal=ana)
        assert got["task"]["title"] == "Away task"
        home.call(
            "update",
            {"kind": "task", "id": f"away/{theirs['id']}", "title": "Moved"},
            principal=ana,
        )
        assert away.call("get", {"kind": "task", "id": theirs["id"]})["task"]["title"] == "Moved"


def test_one_call_works_in_one_workspace(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'ws.db'}"
    with (
        Workspace.open(url, name="home", multi_workspace=True) as home,
        Workspace.open(url, name="away", multi_workspace=True) as away,
        Workspace.open(url, name="far", multi_workspace=True) as far,
    ):
        mine = _task(home)
        there = _task(away, title="Away task")
        further = _task(far, title="Far task")
        patch = {"status": "done"}
        ids = [f"away/{there['id']}", f"far/{further['id']}"]
        mixed = _refused(home, "bulk_update_tasks", {"ids": ids, "patch": patch})
        assert (mixed.status, mixed.code, mixed.body["field"]) == (
            400,
            "mixed_workspaces",
            "ids[1]",
        )
        # Moved into away, the call's own workspace's id names no task there.
        ids = [f"away/{there['id']}", f"home/{mine['id']}"]
        home_there = _refused(home, "bulk_update_tasks", {"ids": ids, "patch": patch})
        assert (home_there.status, home_there.code) == (404, "unknown_task")
        assert away.call("get", {"kind": "task", "id": there["id"]})["task"]["status"] != "done"
        assert home.call("get", {"kind": "task", "id": mine["id"]})["task"]["status"] != "done"


def test_a_single_tenant_deployment_answers_another_workspaces_id_not_at_all(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'ws.db'}"
    with Workspace.open(url, name="home") as home, Workspace.open(url, name="away") as away:
        mine = _task(home)
        theirs = _task(away, title="Away task")
        assert home.call("get", {"kind": "task", "id": f"home/{mine['id']}"})["task"] == mine
        err = _refused(home, "get", {"kind": "task", "id": f"away/{theirs['id']}"})
        assert (err.status, err.code) == (404, "unknown_task")


def test_a_reference_instead_of_an_id_gets_the_verdict_and_the_exact_call(ws: Workspace) -> None:
    task = _task(ws, title="Fix login")
    err = _refused(ws, "update", {"kind": "task", "id": "fix login", "status": "done"})
    assert (err.status, err.code, err.body["field"]) == (400, "task_reference", "id")
    assert err.body["verdict"] == "exact"
    assert [c["id"] for c in err.body["candidates"]] == [task["id"]]
    assert err.body["next"] == {
        "operation": "update",
        "params": {"kind": "task", "id": task["id"], "status": "done"},
    }
    # The operation acted on nothing.
    assert ws.call("get", {"kind": "task", "id": task["id"]})["task"]["status"] == "backlog"


def test_an_unclear_reference_gets_the_resolvers_own_next_call(ws: Workspace) -> None:
    _task(ws, title="Login page")
    _task(ws, title="Login form")
    err = _refused(ws, "get", {"kind": "task", "id": "login"})
    assert (err.code, err.body["verdict"]) == ("task_reference", "ambiguous")
    assert err.body["next"] == {
        "operation": "list",
        "params": {"kind": "task", "f": {"text": "login"}},
    }
    nothing = _refused(ws, "get", {"kind": "task", "id": "quarterly invoices"})
    assert nothing.body["verdict"] == "none"
    assert nothing.body["next"] == {"operation": "search", "params": {"q": "quarterly invoices"}}


def test_a_pin_that_is_the_whole_id_names_the_task(ws: Workspace) -> None:
    task = _task(ws, title="Fix login")
    for spelling in (f"#{task['id']}", f"tk-{task['id']}", f"TK-{task['id']}", task["url"]):
        assert ws.call("get", {"kind": "task", "id": spelling})["task"]["id"] == task["id"]
    tagged = _refused(ws, "get", {"kind": "task", "id": "#design"})
    assert (tagged.code, tagged.body["field"], tagged.body["facet"]) == (
        "unsupported_facet",
        "id",
        "tag",
    )


def test_f_text_matches_every_searchable_field_folded_never_corrected(ws: Workspace) -> None:
    login = _task(ws, title="Fix the Login page")
    _task(ws, title="Other", body="Café menu")
    gated = _task(ws, title="Gated", gates=[{"title": "QA", "evidence": "screenshot attached"}])
    branch = _task(ws, title="Branchy", branch="tk-9-speedup", fields={"area": "renderer"})
    ws.call("add_task_ref", {"id": gated["id"], "kind": "pr", "ref": "acme/web#42"})

    def found(text: str, **f: object) -> list[int]:
        return [
            t["id"] for t in ws.call("list", {"kind": "task", "f": {"text": text, **f}})["tasks"]
        ]

    assert found("login FIX") == [login["id"]]
    assert found("cafe") != []
    assert found("screenshot") == [gated["id"]]
    assert found("acme/web#42") == [gated["id"]]
    assert found("speedup renderer") == [branch["id"]]
    assert found("login other") == []  # every word, in one task
    assert found("logn") == []  # no typo correction
    hit = ws.call("list", {"kind": "task", "f": {"text": "renderer"}})["tasks"][0]
    assert hit["matchedIn"] == ["field:area"]


def test_list_filters_and_limits(ws: Workspace) -> None:
    for status in ("todo", "done", "todo"):
        _task(ws, status=status, project="p")
    _task(ws, status="todo")
    assert ws.call("list", {"kind": "task", "f": {"project": "p", "status": "todo"}})["total"] == 2
    live = ws.call("list", {"kind": "task", "f": {"live": True}})
    assert live["total"] == 3
    assert len(ws.call("list", {"kind": "task", "limit": 2})["tasks"]) == 2
    assert ws.call("list", {"kind": "task", "f": {"project": "none"}}) == {"tasks": [], "total": 0}


@pytest.mark.parametrize("kind", ["field", "sprint", "milestone", "view", "rule"])
def test_vocabulary_words_are_made_once_and_listed_by_project(ws: Workspace, kind: str) -> None:
    made = ws.call("create", {"kind": kind, "key": "weekly", "name": "Weekly", "project": "core"})
    again = ws.call("create", {"kind": kind, "key": "weekly", "project": "core"})
    assert (made["created"], again["created"]) == (True, False)
    assert again[kind]["id"] == made[kind]["id"]
    assert made[kind] == {"id": made[kind]["id"], "kind": kind, "key": "weekly", "name": "Weekly"}
    listed = ws.call("list", {"kind": kind, "project": "core"})["items"]
    assert [w["key"] for w in listed] == ["weekly"]
    assert ws.call("list", {"kind": kind, "project": "elsewhere"})["items"] == []
