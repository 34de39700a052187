"""hand_back: the checklist it files, asks, gates, the attachment, status rules and runs."""

from __future__ import annotations

import pytest

from layoutkit import ServiceError, Workspace
from layoutkit.service.tasks.hand_back import strip_ask


def _task(ws: Workspace, **fields: object) -> int:
    return ws.call("create", {"kind": "task", "title": "Fix login", **fields})["task"]["id"]


def _refused(ws: Workspace, params: dict) -> ServiceError:
    with pytest.raises(ServiceError) as exc:
        ws.call("hand_back", params)
    return exc.value


def test_next_items_become_the_checklist_with_their_kinds(ws: Workspace) -> None:
    task = _task(ws)
    out = ws.call(
        "hand_back",
        {
            "id": task,
            "summary": "Form done.",
            "next": [
                {"title": "Write tests"},
                {"title": "Approve copy", "who": "ana", "ask": "Is the wording kind?"},
                {"title": "Launch", "kind": "date", "at": "2026-12-01"},
                {"title": "Clean up", "kind": "action", "verb": "review"},
            ],
        },
    )
    kinds = [(i["title"], i["kind"], i["done"]) for i in out["items"]]
    assert kinds == [
        ("Write tests", "step", False),
        ("Approve copy", "human", False),  # a who without a kind
        ("Launch", "date", False),
        ("Clean up", "action", False),
    ]
    assert out["open"] == ["Approve copy", "Launch"]  # only human and date gates block
    assert out["warnings"] == []
    assert [g["title"] for g in out["task"]["gates"]] == [t for t, _, _ in kinds]
    assert "- [ ] HUMAN Approve copy (ana): Is the wording kind?" in out["text"]
    assert out["text"].startswith(f"# Hand-back: task {task} Fix login")


def test_a_gate_written_without_a_kind_reads_as_a_step(ws: Workspace) -> None:
    # create and update store gates as given; a hand-back must render them all the same.
    task = _task(ws, gates=[{"title": "Old checklist line", "done": True}])
    out = ws.call(
        "hand_back", {"id": task, "summary": "Kept going.", "next": [{"title": "Write tests"}]}
    )
    assert [i["title"] for i in out["items"]] == ["Write tests"]
    assert "- [x] Old checklist line" in out["text"]
    assert "- [ ] Write tests" in out["text"]
    assert out["open"] == []


def test_a_step_refiled_by_name_keeps_its_tick(ws: Workspace) -> None:
    task = _task(ws)
    first = ws.call("hand_back", {"id": task, "summary": "one", "next": [{"title": "Tests"}]})
    gates = first["task"]["gates"]
    gates[0]["done"] = True
    ws.call("update", {"kind": "task", "id": task, "gates": gates})
    again = ws.call(
        "hand_back",
        {"id": task, "summary": "two", "next": [{"title": "Tests"}, {"title": "Docs"}]},
    )
    assert [(i["id"], i["done"]) for i in again["items"]] == [("i1", True), ("i2", False)]


def test_asks_come_back_stripped_and_a_bare_human_gate_warns(ws: Workspace) -> None:
    task = _task(ws)
    out = ws.call(
        "hand_back",
        {
            "id": task,
            "summary": "s",
            "sessionId": "sess-42",
            "next": [
                {"title": "Copy", "who": "ana", "ask": "Is /login ok after sess-42 and #12?"},
                {"title": "Sign-off", "kind": "human", "who": "bo"},
            ],
        },
    )
    assert out["items"][0]["ask"] == "Is ok after and?"
    assert len(out["warnings"]) == 2
    assert "without an ask" in out["warnings"][1]
    too_long = _refused(
        ws, {"id": task, "summary": "s", "next": [{"title": "x", "who": "a", "ask": "y" * 91}]}
    )
    assert (too_long.status, too_long.body["field"]) == (400, "next[0].ask")


@pytest.mark.parametrize(
    ("ask", "kept"),
    [
        ("Ship tk-12 or CORE-7?", "Ship or?"),
        ("See https://example.com/a now", "See now"),
        ("Edit src/app/main.py?", "Edit?"),
        ("Keep and/or here?", "Keep and/or here?"),
        ("Run 3f2a9c1e-1111-2222-3333-444455556666 again?", "Run again?"),
    ],
)
def test_strip_ask(ask: str, kept: str) -> None:
    assert strip_ask(ask, None) == kept


def test_a_date_gate_needs_its_date(ws: Workspace) -> None:
    task = _task(ws)
    for at in (None, "next week", "2026-1-5"):
        item = {"title": "Launch", "kind": "date", **({"at": at} if at else {})}
        err = _refused(ws, {"id": task, "summary": "s", "next": [item]})
        assert (err.status, err.body["field"]) == (400, "next[0].at")


def test_each_summary_is_the_next_version_of_the_hand_back_attachment(ws: Workspace) -> None:
    task = _task(ws)
    ws.call("add_task_ref", {"id": task, "kind": "run", "ref": "r1", "meta": {"live": True}})
    one = ws.call("hand_back", {"id": task, "summary": "first"})
    two = ws.call("hand_back", {"id": task, "summary": "second"})
    assert (one["handBack"]["version"], two["handBack"]["version"]) == (1, 2)
    read = ws.call("read_task_ref", {"id": task, "ref": "hand-back"})
    assert "second" in read["content"] and read["version"] == 2
    run = next(r for r in two["refs"] if r["kind"] == "run")
    assert run["meta"]["live"] is False  # the session's live run ended


def test_status_as_sent_or_by_rule(ws: Workspace) -> None:
    task = _task(ws, status="todo")
    opened = ws.call(
        "hand_back", {"id": task, "summary": "s", "refs": [{"kind": "pr", "ref": "a/b#1"}]}
    )
    assert opened["task"]["status"] == "in_review"
    merged = ws.call(
        "hand_back",
        {
            "id": task,
            "summary": "s",
            "refs": [{"kind": "pr", "ref": "a/b#1", "meta": {"merged": True}}],
        },
    )
    assert merged["task"]["status"] == "done"
    sent = ws.call("hand_back", {"id": _task(ws), "summary": "s", "status": "in_progress"})
    assert sent["task"]["status"] == "in_progress"
    run = ws.call(
        "hand_back",
        {
            "id": _task(ws),
            "summary": "s",
            "run": {"island": "i", "repo": "acme/web", "branch": "main", "commit": "abcdef1"},
        },
    )
    assert run["task"]["status"] == "in_progress"  # starting a run starts the task


def test_open_gates_block_completion(ws: Workspace) -> None:
    task = _task(ws)
    ws.call(
        "hand_back",
        {"id": task, "summary": "s", "next": [{"title": "Sign-off", "who": "ana", "ask": "OK?"}]},
    )
    err = _refused(ws, {"id": task, "summary": "s", "status": "done"})
    assert (err.status, err.code, err.body["gates"]) == (409, "open_gates", ["Sign-off"])
    # A merged PR waits in review while the gate is open.
    out = ws.call(
        "add_task_ref", {"id": task, "kind": "pr", "ref": "a/b#2", "meta": {"merged": True}}
    )
    assert out["task"]["status"] == "in_review"


def test_a_run_hand_back_versions_the_run_ref_and_refuses_moved_kinds(ws: Workspace) -> None:
    task = _task(ws)
    run = {"island": "isle", "repo": "acme/web", "branch": "fix", "commit": "abcdef1"}
    out = ws.call("hand_back", {"id": task, "summary": "first run", "run": run})
    assert out["handBack"] == {"kind": "run", "ref": "isle:acme/web@fix", "version": 1}
    again = ws.call("hand_back", {"id": task, "summary": "second run", "run": run})
    assert again["handBack"]["version"] == 2
    kinds = {r["kind"] for r in again["refs"]}
    assert "handoff" not in kinds  # no attachment file
    ref = next(r for r in again["refs"] if r["kind"] == "run")
    assert ref["meta"]["handBack"]["summary"] == "second run"
    err = _refused(
        ws,
        {"id": task, "summary": "s", "run": run, "refs": [{"kind": "plan", "ref": "https://x/p"}]},
    )
    assert (err.status, err.code, err.body["refused"]) == (400, "moved_ref_kind", ["plan"])


def test_prerequisites_move_the_parent_epic_to_waiting(ws: Workspace) -> None:
    epic = _task(ws, type="epic", title="Epic")
    task = _task(ws, parentId=epic)
    ws.call("hand_back", {"id": task, "summary": "s", "prerequisites": ["design sign-off"]})
    assert ws.call("get", {"kind": "task", "id": epic})["task"]["state"] == "waiting"


def test_summary_limit(ws: Workspace) -> None:
    task = _task(ws)
    ws.call("hand_back", {"id": task, "summary": "x" * 4000})
    err = _refused(ws, {"id": task, "summary": "x" * 4001})
    assert (err.status, err.code) == (400, "invalid_params")
