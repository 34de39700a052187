"""Task rows on every backend: tasks, vocabulary, versioned refs and the event log."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import IntegrityError

from layoutkit.storage import NotFoundError, SqlStore


def test_a_task_keeps_every_field_it_was_given(store: SqlStore) -> None:
    with store.transaction() as tx:
        ws = tx.ensure_workspace()
        project = tx.create_project(ws.id, "core")
        sprint, created = tx.ensure_task_vocab(ws.id, "sprint", "s1", project_id=project.id)
        assert created
        epic = tx.insert_task(ws.id, title="Epic", created_by="owner", asked_by="owner")
        task = tx.insert_task(
            ws.id,
            title="Fix it",
            created_by="agent:x",
            asked_by="agent",
            project_id=project.id,
            key="CORE-1",
            status="todo",
            type="bug",
            priority="high",
            assignee="ana",
            assignee_id=7,
            sprint_id=sprint.id,
            parent_id=epic.id,
            due_at="2026-12-01",
            estimate=2.5,
            labels=["ui"],
            gates=[{"title": "QA", "evidence": "ran it"}],
            next_action="ship",
            branch="tk-2-fix",
            fields={"area": "layout"},
        )
    with store.read() as tx:
        again = tx.task(task.id)
        assert again == task
        assert (again.estimate, again.human, again.labels) == (2.5, None, ["ui"])
        assert tx.task_by_key(ws.id, "CORE-1") == task
        assert [t.id for t in tx.tasks(ws.id, parent_id=epic.id)] == [task.id]
        assert [t.id for t in tx.tasks(ws.id, project_id=project.id)] == [task.id]


def test_update_sets_columns_and_refuses_unknown_ones(store: SqlStore, clock) -> None:
    with store.transaction() as tx:
        ws = tx.ensure_workspace()
        task = tx.insert_task(ws.id, title="t", created_by="o", asked_by="owner")
        clock.advance(seconds=5)
        changed = tx.update_task(task.id, status="done", human=True)
        assert (changed.status, changed.human) == ("done", True)
        assert changed.updated_at > task.updated_at
        with pytest.raises(ValueError, match="cannot change"):
            tx.update_task(task.id, colour="red")
        with pytest.raises(NotFoundError):
            tx.update_task(task.id + 99, status="todo")


def test_task_keys_are_unique_in_a_workspace(store: SqlStore) -> None:
    with pytest.raises(IntegrityError), store.transaction() as tx:
        ws = tx.ensure_workspace()
        tx.insert_task(ws.id, title="a", created_by="o", asked_by="owner", key="K-1")
        tx.insert_task(ws.id, title="b", created_by="o", asked_by="owner", key="K-1")


def test_vocabulary_is_kept_per_scope_and_made_once(store: SqlStore) -> None:
    with store.transaction() as tx:
        ws = tx.ensure_workspace()
        project = tx.create_project(ws.id, "core")
        a, made_a = tx.ensure_task_vocab(ws.id, "state", "doing")
        b, made_b = tx.ensure_task_vocab(ws.id, "state", "doing")
        c, made_c = tx.ensure_task_vocab(ws.id, "state", "doing", project_id=project.id)
        assert (made_a, made_b, made_c) == (True, False, True)
        assert a == b and c.id != a.id
        tx.ensure_task_vocab(ws.id, "state", "done")
        assert [v.key for v in tx.task_vocab(ws.id, "state")] == ["doing", "done"]
        assert tx.task_vocab_item(c.id) == c
        with pytest.raises(ValueError):
            tx.ensure_task_vocab(ws.id, "colour", "red")


def test_ref_versions_only_grow_and_meta_changes_in_place(store: SqlStore) -> None:
    with store.transaction() as tx:
        ws = tx.ensure_workspace()
        task = tx.insert_task(ws.id, title="t", created_by="o", asked_by="owner")
        one = tx.add_task_ref_version(task.id, "file", "notes.md", meta={}, author="o", size=3)
        two = tx.add_task_ref_version(task.id, "file", "notes.md", meta={"a": 1}, author="o")
        other = tx.add_task_ref_version(task.id, "pr", "o/r#1", meta={}, author="o")
        assert (one.version, two.version, other.version) == (1, 2, 1)
        tx.set_task_ref_meta(two.id, {"a": 2})
        assert [(r.ref, r.version, r.meta) for r in tx.task_refs(task.id)] == [
            ("notes.md", 1, {}),
            ("notes.md", 2, {"a": 2}),
            ("o/r#1", 1, {}),
        ]


def test_the_event_log_is_oldest_first_and_limit_keeps_the_newest(store: SqlStore) -> None:
    with store.transaction() as tx:
        ws = tx.ensure_workspace()
        task = tx.insert_task(ws.id, title="t", created_by="o", asked_by="owner")
        for n in range(4):
            tx.record_task_event(task.id, "task.update", "o", {"n": n})
        assert [e.detail["n"] for e in tx.task_events(task.id)] == [0, 1, 2, 3]
        assert [e.detail["n"] for e in tx.task_events(task.id, limit=2)] == [2, 3]


def test_task_titles_reads_titles_within_facets_shortest_first(store: SqlStore, clock) -> None:
    from layoutkit.storage import TaskTitleQuery

    with store.transaction() as tx:
        ws = tx.ensure_workspace()
        web = tx.create_project(ws.id, "web")

        def add(title: str, **values: object) -> int:
            clock.advance(seconds=1)
            return tx.insert_task(
                ws.id, title=title, created_by="agent:x", asked_by="agent", **values
            ).id

        epic = add("Payments", type="epic")
        child = add("Card form 100% done_ish", parent_id=epic, project_id=web.id, type="bug")
        grandchild = add("Card FORM errors", parent_id=child, status="done", state="Ready")
        loose = add("Card form errors and more", assignee="ana")
        add("Card form draft", draft="pending")
        counts = tx.task_child_counts([epic, child, loose])

    def ids(limit: int = 10, ordered: bool = True, **query: object) -> list[int]:
        with store.read() as tx:
            rows = tx.task_titles(ws.id, TaskTitleQuery(**query), limit=limit, ordered=ordered)
        return [r.id for r in rows]

    assert counts == {epic: 1, child: 1, loose: 0}
    # Every group held as the start of a title word, case aside, shortest first;
    # drafts only when asked for.
    assert ids(terms=(("card",), ("form",))) == [grandchild, child, loose]
    assert len(ids(terms=(("card",),), drafts=True)) == 4
    assert ids(terms=(("errors", "nothing"),)) == [grandchild, loose]
    # Titles are read from the search index: % and _ cut words, never wildcards.
    assert ids(terms=(("100%",),)) == [child] and ids(terms=(("d_ne",),)) == []
    assert ids(types=("bug",)) == [child]
    assert ids(statuses=("done",)) == [grandchild]
    assert ids(state="ready") == [grandchild]
    assert ids(project_id=web.id) == [child]
    assert sorted(ids(under=epic)) == sorted([child, grandchild])
    assert ids(assignees=("ana",), creators=("nobody",)) == [loose]
    assert ids(creators=("agent:x",), terms=(("errors",),)) == [grandchild, loose]
    assert ids(ids=(loose, epic), terms=(("card",),)) == [loose]
    # Any group: the titles holding the most terms first.
    assert ids(terms=(("errors",), ("more",)), match="any") == [loose, grandchild]
    assert len(ids(limit=1, ordered=False, terms=(("card",),))) == 1


def test_task_titles_under_a_task_with_words_reads_what_its_descendants_hold(
    store: SqlStore, clock
) -> None:
    """On PostgreSQL, with title words the matching tasks walk up their parent chains;
    without, the root's descendants are read down from it (SQLite reads them down
    both times): the readings name the same tasks, at every depth, beside tasks of
    other trees, drafts and a cycle of parents."""
    from layoutkit.storage import TaskTitleQuery

    with store.transaction() as tx:
        ws = tx.ensure_workspace()

        def add(title: str, **values: object) -> int:
            clock.advance(seconds=1)
            return tx.insert_task(
                ws.id, title=title, created_by="agent:x", asked_by="agent", **values
            ).id

        epic = add("Checkout epic", type="epic")
        other = add("Checkout totals epic", type="epic")
        child = add("Checkout totals", parent_id=epic)
        grandchild = add("Checkout totals in Zorbex", parent_id=child)
        add("Checkout totals draft", parent_id=grandchild, draft="pending")
        deep = add("Zorbex checkout totals again", parent_id=grandchild)
        add("Checkout totals in Zorbex", parent_id=other)
        add("Checkout totals loose")
        ring_a = add("Checkout ring a")
        ring_b = add("Checkout ring b", parent_id=ring_a)
        tx.update_task(ring_a, parent_id=ring_b)
        roots = [epic, other, child, grandchild, deep, ring_a, ring_b]

    def ids(**query: object) -> list[int]:
        with store.read() as tx:
            rows = tx.task_titles(ws.id, TaskTitleQuery(**query), limit=100)
        return [r.id for r in rows]

    for terms in ((("checkout",),), (("checkout",), ("totals",)), (("zorbex", "ring"),)):
        for root in roots:
            below = set(ids(under=root))
            expected = [i for i in ids(terms=terms) if i in below]
            assert ids(terms=terms, under=root) == expected, (terms, root)
    assert ids(terms=(("totals",),), under=epic) == [child, grandchild, deep]
    assert sorted(ids(under=epic)) == [child, grandchild, deep]
    assert sorted(ids(under=ring_b)) == [ring_a, ring_b]
    assert ids(under=deep) == []
    assert sorted(ids(terms=(("ring",),), under=ring_a)) == [ring_a, ring_b]


def test_task_titles_with_a_rare_word_check_every_word_in_the_title(store: SqlStore) -> None:
    """PostgreSQL's index scan takes the rarest words only (the vocabulary's counts)
    and the rows it finds are checked against every word: a common word held only
    in a body, or by no title the rare word is in, still leaves the task out."""
    from layoutkit.storage import TaskTitleQuery

    with store.transaction() as tx:
        ws = tx.ensure_workspace()

        def add(title: str, body: str = "") -> int:
            return tx.insert_task(
                ws.id, title=title, body=body, created_by="agent:x", asked_by="agent"
            ).id

        for n in range(90):
            add(f"Fix checkout totals {n}", "The checkout page of the sign-in form.")
        both = add("Zorbex checkout")
        prefixes = add("Zorbexa checkouts sign-in")
        add("Zorbex totals", "The checkout page: checkout, checkout.")
        add("Zorbex page")
        spelled = add("Zorbeks in checkout")

    def ids(*terms: tuple[str, ...]) -> list[int]:
        with store.read() as tx:
            rows = tx.task_titles(ws.id, TaskTitleQuery(terms=terms), limit=100)
        return sorted(r.id for r in rows)

    if store.dialect == "postgresql":
        with store.read() as tx:
            groups = [[["zorbex"]], [["checkout"]]]
            assert tx._rarest_groups(ws.id, groups) == [[["zorbex"]]]
    assert ids(("zorbex",), ("checkout",)) == [both, prefixes]
    assert ids(("zorbex", "zorbeks"), ("checkout",)) == [both, prefixes, spelled]
    assert ids(("zorbex",), ("checkout",), ("sign-in",)) == [prefixes]
    assert ids(("zorbex",), ("the",)) == []
    assert len(ids(("checkout",), ("totals",))) == 90
