"""transfer_project: what is copied, dry run, re-runs, conflicts, merge, archive, who may."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit import Principal, Workspace
from layoutkit.service.workspaces.transfer import COPIED, SKIPPED
from layoutkit.storage._schema import metadata
from tests.service.helpers import err, join
from tests.service.transfer_fixtures import (
    BACKENDS,
    build_project,
    counts,
    two_workspaces,
)


@pytest.fixture(params=BACKENDS)
def pair(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    with two_workspaces(request.param, tmp_path) as both:
        yield both


def move(src: Workspace, dst: Workspace, **params: object) -> dict:
    return src.call("transfer_project", {"project": "shop", "to": dst.name, **params})


def settled(report: dict) -> dict:
    """The report without drawn faces: they land in the background, whenever a lull
    comes, so their count is the one figure a run cannot fix in advance."""
    return {
        **report,
        "tables": {k: v for k, v in report["tables"].items() if k != "card_faces"},
    }


def test_every_table_is_copied_or_deliberately_left() -> None:
    # A new table fails here until the transfer says what becomes of it.
    assert not set(COPIED) & set(SKIPPED)
    assert set(COPIED) | set(SKIPPED) == set(metadata.tables)


def test_copy_carries_boards_cards_wires_questions_tasks_and_blobs(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    build_project(src)
    before = counts(src)
    report = move(src, dst)
    assert counts(dst) == before == {"boards": 2, "cards": 3, "tasks": 2}
    assert counts(src) == before  # a copy leaves the source as it was
    assert report["boardsMoved"] == 2 and report["renamed"] == []
    assert report["sets"] == [{"board": "docs", "branch": "main", "version": 1}]
    assert report["blobs"]["count"] == 1 and report["blobs"]["bytes"] == len("hello")
    assert report["tables"]["edges"] == {"copied": 1, "skipped": 0, "merged": 0}
    assert report["tables"]["questions"]["copied"] == 1
    assert report["tables"]["task_vocab"]["copied"] >= 1
    home = dst.call("scrape_board", {"board": "home"})
    assert [e["label"] for e in home["edges"]] == ["then"]
    ids = {c["id"] for c in home["cards"]}
    assert {home["edges"][0]["from"], home["edges"][0]["to"]} <= ids
    board = dst.call("get", {"kind": "board", "board": "home"})["board"]
    assert board["tags"] == ["q3"] or board["tags"] == ["Q3"]
    tasks = dst.call("list", {"kind": "task", "f": {"project": "shop"}})["tasks"]
    by_title = {t["title"]: t for t in tasks}
    epic, child = by_title["Checkout"], by_title["Card form"]
    assert child["parentId"] == epic["id"] and epic["key"] == "SHOP-1"
    milestones = dst.call("list", {"kind": "milestone", "project": "shop"})["items"]
    assert epic["milestoneId"] == milestones[0]["id"]
    read = dst.call("read_task_ref", {"id": child["id"], "kind": "file", "ref": "notes.md"})
    assert "hello" in str(read)


def test_the_copy_is_searchable_in_the_destination_and_trashed_tasks_leave_search(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    build_project(src)

    def titles(ws: Workspace, q: str, group: str) -> list[str]:
        return [h["title"] for h in ws.call("search", {"q": q})["groups"][group]]

    assert titles(dst, "card form", "tasks") == []
    move(src, dst, archiveSource=True)
    # written in the copy's own transaction, so the index holds it when it commits
    assert titles(dst, "card form", "tasks") == ["Card form"]
    assert "home" in [h["title"] for h in dst.call("search", {"q": "home"})["groups"]["boards"]]
    # the source's live tasks were trashed: search no longer finds them there
    assert titles(src, "card form", "tasks") == []


def test_dry_run_reports_the_same_and_writes_nothing(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    build_project(src)
    dry = move(src, dst, dryRun=True)
    assert counts(dst) == {"boards": 0, "cards": 0, "tasks": 0}
    real = move(src, dst)
    assert dry["dryRun"] and not real["dryRun"]
    assert {k: v for k, v in settled(dry).items() if k != "dryRun"} == {
        k: v for k, v in settled(real).items() if k != "dryRun"
    }


def test_rerun_skips_every_row_and_copies_only_what_is_new(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    build_project(src)
    first = move(src, dst)
    again = move(src, dst)
    for table, tally in settled(again)["tables"].items():
        assert tally["copied"] == 0, table
        assert tally["skipped"] == first["tables"][table]["copied"], table
    assert counts(dst) == counts(src)
    src.call(
        "compose_board", {"board": "home", "cards": [{"kind": "text", "payload": {"md": "new"}}]}
    )
    third = move(src, dst)
    assert third["tables"]["cards"]["copied"] == 1
    assert counts(dst)["cards"] == 4


def test_a_clash_without_merge_is_409_naming_the_board_and_its_sets(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    build_project(src)
    dst.call("create", {"kind": "board", "slug": "docs"})
    e = err(src, "transfer_project", {"project": "shop", "to": dst.name})
    assert (e.status, e.code) == (409, "transfer_conflict")
    assert e.body["boards"] == ["docs"] and e.body["sets"] == ["docs/main@1"]
    assert "'docs'" in e.message
    assert counts(dst) == {"boards": 0, "cards": 0, "tasks": 0}


def test_an_existing_project_without_merge_is_409(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    build_project(src)
    dst.call("create", {"kind": "board", "slug": "elsewhere", "project": "shop"})
    e = err(src, "transfer_project", {"project": "shop", "to": dst.name})
    assert (e.status, e.code, e.body["project"]) == (409, "transfer_conflict", "shop")


def test_merge_renames_clashing_boards_and_resolves_vocabulary_by_key(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    build_project(src)
    src.call(
        "compose_board",
        {"board": "docs", "cards": [{"kind": "board", "payload": {"board": "home"}}]},
    )
    dst.call("create", {"kind": "board", "slug": "home", "project": "shop"})
    dst.call(
        "create",
        {
            "kind": "task",
            "title": "Theirs",
            "project": "shop",
            "key": "SHOP-1",
            "labels": ["payments"],
        },
    )
    report = move(src, dst, merge=True)
    renamed = f"home-from-{src.name}"
    assert {"table": "boards", "from": "home", "to": renamed} in report["renamed"]
    assert {"table": "tasks", "from": "SHOP-1", "to": f"SHOP-1-from-{src.name}"} in report[
        "renamed"
    ]
    assert report["tables"]["projects"] == {"copied": 0, "skipped": 0, "merged": 1}
    assert report["tables"]["task_vocab"]["merged"] >= 1
    assert len(dst.call("scrape_board", {"board": renamed})["cards"]) == 2
    portals = [
        c for c in dst.call("scrape_board", {"board": "docs"})["cards"] if c["kind"] == "board"
    ]
    assert [p["payload"]["board"] for p in portals] == [renamed]
    assert dst.call("scrape_board", {"board": "home"})["cards"] == []
    labels = dst.call("list", {"kind": "label", "project": "shop"})["items"]
    assert [i["key"] for i in labels].count("payments") == 1
    refs = {
        r["ref"]
        for t in dst.call("list", {"kind": "task", "f": {"project": "shop"}})["tasks"]
        for r in dst.call("get", {"kind": "task", "id": t["id"]})["refs"]
        if r["kind"] == "board"
    }
    assert refs == {renamed}  # a board ref follows its board's new slug


RULE = """---
id: tone
family: copy
check: judgment
severity: {severity}
---
Buttons say what they do.

Verify:
- every button label is a verb
"""


def test_merge_keeps_the_destinations_review_rule_of_the_same_id(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    build_project(src)
    src.call("put_review_rule", {"project": "shop", "source": RULE.format(severity="low")})
    src.call("put_review_rule", {"project": "shop", "source": RULE.format(severity="medium")})
    dst.call("create", {"kind": "board", "slug": "elsewhere", "project": "shop"})
    dst.call("put_review_rule", {"project": "shop", "source": RULE.format(severity="high")})
    first = move(src, dst, merge=True)
    assert first["tables"]["review_rules"] == {"copied": 0, "skipped": 0, "merged": 2}
    rule = dst.call("get_review_rule", {"project": "shop", "id": "tone"})["rule"]
    assert rule["severity"] == "high"
    again = move(src, dst, merge=True)
    assert again["tables"]["review_rules"] == {"copied": 0, "skipped": 2, "merged": 0}


def test_review_rules_of_the_project_travel_with_it(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    build_project(src)
    src.call("put_review_rule", {"project": "shop", "source": RULE.format(severity="low")})
    assert move(src, dst)["tables"]["review_rules"]["copied"] == 1
    rule = dst.call("get_review_rule", {"project": "shop", "id": "tone"})["rule"]
    assert rule["severity"] == "low"


def _memory(ws: Workspace, key: str, text: str, **extra: str) -> None:
    ws.call(
        "create", {"kind": "project_memory", "project": "shop", "key": key, "text": text, **extra}
    )


def test_project_memory_travels_with_every_version(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    build_project(src)
    _memory(src, "deploy", "Old way.", load="first")
    _memory(src, "deploy", "New way.")
    _memory(src, "tone", "Plain words.")
    report = move(src, dst)
    assert report["tables"]["project_memories"] == {"copied": 3, "skipped": 0, "merged": 0}
    got = dst.call("get", {"kind": "project_memory", "project": "shop", "key": "deploy"})
    assert got["memory"]["text"] == "New way." and got["memory"]["load"] == "first"
    assert [v["version"] for v in got["versions"]] == [1, 2]
    # The destination's tasks of the project pick the notes up.
    task = dst.call("list", {"kind": "task", "f": {"project": "shop"}})["tasks"][0]
    rail = dst.call("pickup_task", {"id": task["id"]})["rail"]
    assert ("memory", "deploy") in [(e["kind"], e["ref"]) for e in rail]
    again = move(src, dst)
    assert again["tables"]["project_memories"] == {"copied": 0, "skipped": 3, "merged": 0}


def test_merge_keeps_the_destinations_memory_of_the_same_key(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    build_project(src)
    _memory(src, "deploy", "Source way.")
    _memory(src, "tone", "Plain words.")
    dst.call("create", {"kind": "board", "slug": "elsewhere", "project": "shop"})
    _memory(dst, "deploy", "Destination way.")
    report = move(src, dst, merge=True)
    assert report["tables"]["project_memories"] == {"copied": 1, "skipped": 0, "merged": 1}
    listed = dst.call("list", {"kind": "project_memory", "project": "shop"})["items"]
    assert [(n["key"], n["summary"]) for n in listed] == [
        ("deploy", "Destination way."),
        ("tone", "Plain words."),
    ]


def test_merge_refuses_two_next_releases(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    build_project(src)
    dst.call("create", {"kind": "milestone", "key": "next", "project": "shop"})
    e = err(src, "transfer_project", {"project": "shop", "to": dst.name, "merge": True})
    assert (e.status, e.code, e.body["releases"]) == (409, "transfer_conflict", ["next"])


def test_archive_source_after_the_copy(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    build_project(src)
    report = move(src, dst, archiveSource=True)
    assert (report["archived"], report["trashed"]) == (2, 2)
    board = src.call("get", {"kind": "board", "board": "home"})["board"]
    assert board["archived"] is True
    assert board["meta"]["movedTo"] == {"workspace": dst.name, "board": "home"}
    assert src.call("list", {"kind": "task", "f": {"project": "shop"}})["tasks"] == []
    with src.store.transaction() as tx:
        ledger = tx.trashed_tasks(src.workspace_id)
        assert len(ledger) == 2 and {r["reason"] for r in ledger} == {"transferred"}
        project = tx.project_by_slug(src.workspace_id, "shop")
        assert project is not None and project.archived
        assert project.meta["movedTo"]["workspace"] == dst.name
    back = src.call("restore_task", {"id": ledger[0]["task_id"]})["task"]
    assert back["id"] == ledger[0]["task_id"]
    assert len(src.call("list", {"kind": "task", "f": {"project": "shop"}})["tasks"]) == 1
    e = err(src, "restore_task", {"id": ledger[0]["task_id"]})
    assert (e.status, e.code) == (409, "not_trashed")
    assert err(dst, "restore_task", {"id": ledger[1]["task_id"]}).code == "unknown_task"
    assert counts(dst)["tasks"] == 2


def test_single_tenant_answers_501(tmp_path: Path) -> None:
    with two_workspaces("memory", tmp_path, multi=False) as (src, dst):
        build_project(src)
        e = err(src, "transfer_project", {"project": "shop", "to": dst.name})
        assert (e.status, e.code) == (501, "single_tenant")


def test_the_environment_declares_a_multi_workspace_deployment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LAYOUTKIT_MULTI_WORKSPACE", "1")
    with Workspace.open() as ws:
        assert ws.multi_workspace
    monkeypatch.setenv("LAYOUTKIT_MULTI_WORKSPACE", "0")
    with Workspace.open() as ws:
        assert not ws.multi_workspace


def test_agents_services_and_non_owners_are_refused(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    build_project(src)
    params = {"project": "shop", "to": dst.name}
    for who in (Principal.agent("claude"), Principal.service("ci")):
        e = err(src, "transfer_project", params, who)
        assert (e.status, e.code) == (403, "forbidden")
    admin = src.authenticate(src.create_token("user", "ana", role="admin"))
    assert admin is not None
    assert err(src, "transfer_project", params, admin).status == 403
    owner_here = src.authenticate(src.create_token("user", "bo", role="owner"))
    assert owner_here is not None
    # Not a member of the destination: that workspace is not there for this caller.
    assert err(src, "transfer_project", params, owner_here).code == "unknown_workspace"
    join(dst, owner_here, "member", via=src)
    e = err(src, "transfer_project", params, owner_here)
    assert (e.status, e.code) == (403, "forbidden")
    dst.call("set_member", {"token": owner_here.token, "role": "owner"})
    assert src.call("transfer_project", params, owner_here)["boardsMoved"] == 2


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    boards=st.lists(st.integers(0, 4), min_size=1, max_size=4),
    taken=st.sets(st.integers(0, 3), max_size=3),
    tasks=st.lists(st.one_of(st.none(), st.integers(0, 5)), max_size=6),
)
def test_merge_carries_every_row_once_and_renames_each_clash(
    boards: list[int], taken: set[int], tasks: list[int | None], tmp_path_factory
) -> None:  # type: ignore[no-untyped-def]
    with two_workspaces("memory", tmp_path_factory.mktemp("t")) as (src, dst):
        for n, cards in enumerate(boards):
            src.call("create", {"kind": "board", "slug": f"b{n}", "project": "shop"})
            if cards:
                cards_in = [{"kind": "text", "payload": {"md": f"{n}.{i}"}} for i in range(cards)]
                src.call("compose_board", {"board": f"b{n}", "cards": cards_in})
        made: list[int] = []
        children = 0
        for parent in tasks:
            under = made[parent] if parent is not None and parent < len(made) else None
            fields = {"parentId": under} if under is not None else {}
            children += under is not None
            made.append(
                src.call("create", {"kind": "task", "title": "t", "project": "shop", **fields})[
                    "task"
                ]["id"]
            )
        for n in taken:
            dst.call("create", {"kind": "board", "slug": f"b{n}", "project": "shop"})
        report = move(src, dst, merge=True)
        clashes = {f"b{n}" for n in taken if n < len(boards)}
        assert {r["from"] for r in report["renamed"] if r["table"] == "boards"} == clashes
        assert report["tables"]["cards"]["copied"] == sum(boards)
        assert report["tables"]["tasks"]["copied"] == len(tasks)
        got = dst.call("list", {"kind": "task", "f": {"project": "shop"}})["tasks"]
        assert sum(1 for t in got if t["parentId"] is not None) == children
        assert {t["parentId"] for t in got} - {None} <= {t["id"] for t in got}
        again = move(src, dst, merge=True)
        assert all(t["copied"] == 0 for t in again["tables"].values())
        assert counts(dst)["cards"] == sum(boards)


def test_the_report_of_a_merge_keeps_its_shape(snapshot: Any) -> None:
    src = Workspace.open(name="alpha", multi_workspace=True)
    dst = Workspace(src.store, name="beta", multi_workspace=True)
    try:
        build_project(src)
        dst.call("create", {"kind": "board", "slug": "home", "project": "shop"})
        assert settled(move(src, dst, merge=True)) == snapshot
    finally:
        dst.jobs.shutdown()
        dst.drawing.shutdown()
        src.close()
