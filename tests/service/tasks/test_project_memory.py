"""Project memory (kind project_memory): a project's durable notes for agents,
versioned by key, listed by task pickup per load hint (operations.md, generic
operations; docs/tasks.md, Project memory)."""

from __future__ import annotations

from layoutkit import Principal, Workspace
from tests.service.helpers import err

AGENT = Principal.agent("claude")


def _note(ws: Workspace, key: str, text: str, **extra: str) -> dict:
    project = extra.get("project", "app")
    if not ws.call("list", {"kind": "task", "f": {"project": project}})["total"]:
        # A note names a project that exists: a task makes it.
        ws.call("create", {"kind": "task", "title": f"{project} work", "project": project})
    params = {"kind": "project_memory", "project": "app", "key": key, "text": text, **extra}
    return ws.call("create", params, AGENT)["memory"]


def test_create_versions_a_key_and_get_reads_any_version(any_ws: Workspace) -> None:
    first = _note(any_ws, "conventions", "Use attrs.\nNever dataclasses.", load="first")
    assert first["version"] == 1 and first["writtenBy"] == "agent:claude"
    assert first["load"] == "first" and first["text"].startswith("Use attrs.")
    # The same key writes the next version; a load not named stays as it was.
    second = _note(any_ws, "conventions", "Use attrs everywhere.")
    assert (second["version"], second["load"]) == (2, "first")
    newest = any_ws.call("get", {"kind": "project_memory", "project": "app", "key": "conventions"})
    assert newest["memory"]["text"] == "Use attrs everywhere."
    assert [v["version"] for v in newest["versions"]] == [1, 2]
    old = any_ws.call(
        "get", {"kind": "project_memory", "project": "app", "key": "conventions", "version": 1}
    )
    assert old["memory"]["text"] == "Use attrs.\nNever dataclasses."


def test_update_keeps_what_it_does_not_name(any_ws: Workspace) -> None:
    _note(any_ws, "deploy", "Deploy with make ship.")
    same = any_ws.call(
        "update", {"kind": "project_memory", "project": "app", "key": "deploy", "load": "on-demand"}
    )
    assert same["changed"] is False and same["memory"]["version"] == 1
    moved = any_ws.call(
        "update", {"kind": "project_memory", "project": "app", "key": "deploy", "load": "never"}
    )
    assert moved["changed"] is True
    assert (moved["memory"]["version"], moved["memory"]["load"]) == (2, "never")
    assert moved["memory"]["text"] == "Deploy with make ship."


def test_list_shows_the_newest_of_each_key_without_text(any_ws: Workspace) -> None:
    _note(any_ws, "b-note", "Second key.", load="never")
    _note(any_ws, "a-note", "First line\nmore")
    _note(any_ws, "a-note", "Changed line\nmore")
    listed = any_ws.call("list", {"kind": "project_memory", "project": "app"})["items"]
    assert [(n["key"], n["version"]) for n in listed] == [("a-note", 2), ("b-note", 1)]
    assert listed[0]["summary"] == "Changed line" and "text" not in listed[0]
    never = any_ws.call("list", {"kind": "project_memory", "project": "app", "load": "never"})
    assert [n["key"] for n in never["items"]] == ["b-note"]


def test_pickup_lists_notes_by_their_load_hint(any_ws: Workspace) -> None:
    _note(any_ws, "conventions", "Use attrs.", load="first")
    _note(any_ws, "deploy", "Deploy with make ship.")
    _note(any_ws, "old", "Stale.", load="never")
    _note(any_ws, "x", "Another project's.", load="first", project="other")
    task = any_ws.call("create", {"kind": "task", "title": "Fix it", "project": "app"})["task"]
    any_ws.call("upload_task_file", {"id": task["id"], "filename": "a.md", "content": "a"})
    picked = any_ws.call("pickup_task", {"id": task["id"], "cap": 0}, AGENT)
    assert [(e["kind"], e["ref"]) for e in picked["rail"]] == [("memory", "conventions")]
    assert picked["more"] == 1
    assert [(e["kind"], e["ref"]) for e in picked["onDemand"]] == [("memory", "deploy")]
    read = picked["onDemand"][0]["read"]
    assert read == {
        "operation": "get",
        "params": {"kind": "project_memory", "project": "app", "key": "deploy"},
    }
    # The named call is what an agent runs to read the note.
    assert any_ws.call(read["operation"], read["params"], AGENT)["memory"]["text"] == (
        "Deploy with make ship."
    )
    assert "memory conventions: Use attrs." in picked["text"]
    assert "old" not in [e["ref"] for e in picked["rail"] + picked["onDemand"]]
    assert "Stale." not in picked["text"]
    # A task outside any project has no notes to show.
    bare = any_ws.call("create", {"kind": "task", "title": "Loose"})["task"]
    assert any_ws.call("pickup_task", {"id": bare["id"]})["rail"] == []


def test_refusals(any_ws: Workspace) -> None:
    _note(any_ws, "deploy", "Deploy.")
    missing = err(any_ws, "get", {"kind": "project_memory", "project": "app", "key": "deplyo"})
    assert (missing.status, missing.code, missing.body["field"]) == (404, "unknown_memory", "key")
    assert missing.body["didYouMean"] == ["deploy"]
    nowhere = err(any_ws, "list", {"kind": "project_memory", "project": "nope"})
    assert (nowhere.status, nowhere.code, nowhere.body["field"]) == (
        404,
        "unknown_project",
        "project",
    )
    loose = err(
        any_ws, "create", {"kind": "project_memory", "project": "apq", "key": "k", "text": "t"}
    )
    assert (loose.status, loose.code, loose.body["field"]) == (404, "unknown_project", "project")
    assert loose.body["didYouMean"] == ["app"]
    version = err(
        any_ws, "get", {"kind": "project_memory", "project": "app", "key": "deploy", "version": 9}
    )
    assert (version.status, version.code, version.body["field"]) == (
        404,
        "unknown_version",
        "version",
    )
    bad = err(
        any_ws,
        "create",
        {"kind": "project_memory", "project": "app", "key": "k", "text": "t", "load": "later"},
    )
    assert (bad.status, bad.code, bad.body["field"]) == (400, "invalid_params", "load")
    empty = err(any_ws, "update", {"kind": "project_memory", "project": "app", "key": "deploy"})
    assert (empty.status, empty.code, empty.body["field"]) == (400, "invalid_params", "text")
    unknown = err(
        any_ws, "update", {"kind": "project_memory", "project": "app", "key": "nope", "text": "t"}
    )
    assert (unknown.status, unknown.code) == (404, "unknown_memory")
    share = err(any_ws, "list", {"kind": "project_memory", "project": "app"}, Principal.share("b"))
    assert share.status in (403, 404)
