"""The search index moves with the writes in their transaction, and a migration fills it
from the rows a database already holds."""

from __future__ import annotations

import random
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import bindparam, select, text
from sqlalchemy.exc import DBAPIError

from layoutkit.search_text import tokens
from layoutkit.storage import NewCard, SqlStore, SqlTx, TaskTitleQuery, _migrations
from layoutkit.storage import _schema as s
from layoutkit.storage._sql._base import DriverSql
from layoutkit.storage._sql.search import _pg_title_query
from tests.storage.conftest import Location, undo_token_homes


def _note(md: str) -> NewCard:
    return NewCard("note", {"md": md}, 0, 0, 200, 100, "ai", "agent:claude")


def _index(tx: SqlTx) -> tuple[list[Any], list[Any]]:
    d, w = s.search_docs.c, s.search_words.c
    docs = tx.conn.execute(
        select(d.workspace_id, d.kind, d.subject, d.grp, d.board_id, d.title, d.body).order_by(
            d.workspace_id, d.kind, d.subject
        )
    ).all()
    words = tx.conn.execute(
        select(w.workspace_id, w.word, w.first, w.length, w.docs).order_by(w.workspace_id, w.word)
    ).all()
    return [tuple(r) for r in docs], [tuple(r) for r in words]


def _words(tx: SqlTx, ws: int) -> list[str]:
    return sorted(tx.vocabulary_near(ws, "p", 0, 40))


_TEXT = st.lists(st.sampled_from(["pear", "plum", "peach", "papaya", "pomelo", "x1"]), max_size=3)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(st.tuples(st.sampled_from(["add", "edit", "drop", "tag", "task"]), _TEXT)))
def test_writes_leave_the_index_as_a_rebuild_would(store: SqlStore, steps: list[Any]) -> None:
    with store.transaction() as tx:
        ws = tx.create_workspace(f"w-{uuid.uuid4().hex[:10]}").id
        board = tx.create_board(ws, "fruit").id
        task = tx.insert_task(ws, title="fruit", created_by="ana", asked_by="user").id
    cards: list[int] = []
    for op, words in steps:
        said = " ".join(words)
        with store.transaction() as tx:
            if op == "add" or not cards:
                cards += [c.id for c in tx.insert_cards(board, [_note(said)])]
            elif op == "edit":
                tx.update_cards([{"id": cards[-1], "payload": {"md": said}}])
            elif op == "drop":
                tx.remove_cards([cards.pop()], by="ana")
            elif op == "tag":
                tx.set_board_tags(board, words)
            else:
                tx.update_task(task, body=said)
    with store.transaction() as tx:
        kept = _index(tx)
        tx.rebuild_search_index()
        assert _index(tx) == kept


def test_a_rolled_back_write_leaves_the_index_alone(store: SqlStore) -> None:
    with store.transaction() as tx:
        ws = tx.ensure_workspace("w").id
        board = tx.create_board(ws, "b").id
        tx.insert_cards(board, [_note("pear")])
    with pytest.raises(KeyError), store.transaction() as tx:
        tx.insert_cards(board, [_note("plum")])
        tx.flush_search_index()
        raise KeyError("abandon")
    with store.read() as tx:
        assert _words(tx, ws) == ["pear"]
        assert [
            h.kind for h in tx.search_index(ws, [[("plum", True)]], groups=["cards"], per_group=5)
        ] == []


def test_deleting_a_board_takes_its_words_out_of_the_vocabulary(store: SqlStore) -> None:
    with store.transaction() as tx:
        ws = tx.ensure_workspace("w").id
        board = tx.create_board(ws, "b", tags=["pomelo"]).id
        tx.insert_cards(board, [_note("papaya pear")])
        tx.create_board(ws, "keep")
    with store.transaction() as tx:
        assert _words(tx, ws) == ["papaya", "pear", "pomelo"]
        tx.delete_board(board)
    with store.read() as tx:
        assert _words(tx, ws) == []
        assert [r[1] for r in _index(tx)[0]] == ["board"]


def test_the_migration_fills_the_index_from_stored_rows(location: Location) -> None:
    store = location.open()
    try:
        with store.transaction() as tx:
            ws = tx.ensure_workspace("w").id
            board = tx.create_board(ws, "garden", tags=["Herbs"]).id
            tx.insert_cards(board, [_note("Basil and thyme")])
            tx.insert_task(ws, title="Water the basil", created_by="ana", asked_by="user")
        with store.transaction() as tx:
            before = _index(tx)
            # As a database at revision 0013 had it: no search tables (nor what came after).
            undo_token_homes(tx.conn)
            tx.conn.execute(text("DROP TABLE IF EXISTS search_fts"))
            s.search_words.drop(tx.conn)
            s.search_docs.drop(tx.conn)
            tx.conn.execute(text("UPDATE alembic_version SET version_num = '0013'"))
        with store.transaction() as tx:
            assert _migrations.upgrade(tx.conn) == [f"{n:04}" for n in range(14, 23)]
        with store.read() as tx:
            assert _index(tx) == before
            hits = tx.search_index(ws, [[("basil", True)]], groups=["cards", "tasks"], per_group=5)
            assert sorted(h.group for h in hits) == ["cards", "tasks"]
    finally:
        store.close()


def test_the_text_match_is_the_outer_loop_of_a_title_lookup(tmp_path: Any) -> None:
    """SQLite picked the task documents as the outer loop and ran the text match once
    per document (2.7 s at 20k tasks); the plan must start from the match, and reach
    the tasks by their key."""
    from sqlalchemy import event

    from layoutkit import Workspace
    from layoutkit.storage import TaskTitleQuery

    with Workspace.open(f"sqlite:///{tmp_path / 'plan.db'}") as ws:
        for title in ("Fix checkout totals", "Add login page", "Fix login timeout"):
            ws.call("create", {"kind": "task", "title": title})
        seen: list[tuple[str, Any]] = []

        def keep(conn: Any, cursor: Any, statement: str, params: Any, *_: Any) -> None:
            if "search_fts MATCH" in statement:
                seen.append((statement, params))

        event.listen(ws.store.engine, "before_cursor_execute", keep)
        query = TaskTitleQuery(terms=(("fix",), ("login",)), assignees=("nobody",))
        with ws.store.read() as tx:
            assert tx.task_titles(ws.workspace_id, query, limit=1, ordered=False) == []
            everyone = TaskTitleQuery(terms=(("fix",), ("login",)))
            (row,) = tx.task_titles(ws.workspace_id, everyone, limit=5)
            assert row.title == "Fix login timeout"
            event.remove(ws.store.engine, "before_cursor_execute", keep)
            plans = [
                [step[3] for step in tx.conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, p)]
                for sql, p in seen
            ]
    assert plans and all("search_fts" in plan[0] for plan in plans), plans
    # Then each matching title's task by its key: reached by the workspace's index, every
    # task of the workspace was read once per matching title (minutes at 100k tasks).
    tasks = [step for plan in plans for step in plan if step.split()[1:2] == ["tasks"]]
    assert tasks and all("USING INTEGER PRIMARY KEY" in step for step in tasks), plans


def test_a_write_finds_the_documents_it_rewrites_through_the_index(tmp_path: Any) -> None:
    """The flush before a commit looked its documents up by kind and subject alone, which
    the unique index (workspace, kind, subject) cannot serve: SQLite read every
    document of the database on every write. The plan must search the index."""
    from layoutkit import Workspace
    from layoutkit.storage._sql._base import TxBase

    with Workspace.open(f"sqlite:///{tmp_path / 'plan.db'}") as ws:
        ws.call("create", {"kind": "board", "slug": "b"})
        seen: list[tuple[str, Any]] = []
        sent = TxBase._driver_call

        def keep(self: TxBase, statement: str, params: Any, send: Any) -> Any:
            # The lookup goes straight to the driver (TxBase.driver_rows).
            if statement.startswith("SELECT search_docs.id") and "subject IN" in statement:
                seen.append((statement, params))
            return sent(self, statement, params, send)

        TxBase._driver_call = keep  # type: ignore[method-assign]
        try:
            first = ws.call(
                "compose_board",
                {"board": "b", "cards": [{"kind": "note", "payload": {"md": "pear"}}]},
            )
            card = first["cards"][0]["id"]
            ws.call("update_cards", {"patch": [{"id": card, "payload": {"md": "plum"}}]})
        finally:
            TxBase._driver_call = sent  # type: ignore[method-assign]
        with ws.store.read() as tx:
            plans = [
                [step[3] for step in tx.conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, p)]
                for sql, p in seen
            ]
            (doc,) = tx.conn.execute(
                text("SELECT body FROM search_docs WHERE kind = 'card' AND subject = :s"),
                {"s": str(card)},
            ).all()
    assert doc.body == "plum"  # the patch found its document and rewrote it
    assert plans and all(
        any(step.startswith("SEARCH search_docs USING") for step in plan) for plan in plans
    ), plans


def _fts(tx: SqlTx, word: str) -> list[tuple[Any, ...]]:
    """What the SQLite FTS table matches, by document (rowids change on a rebuild)."""
    return [
        tuple(r)
        for r in tx.conn.execute(
            text(
                "SELECT d.workspace_id, d.kind, d.subject FROM search_fts "
                "CROSS JOIN search_docs d ON d.id = search_fts.rowid "
                "WHERE search_fts MATCH :q ORDER BY 1, 2, 3"
            ),
            {"q": f'"{word}"*'},
        )
    ]


def test_a_bulk_rebuild_refills_the_full_text_table_and_keeps_its_triggers(
    tmp_path: Any,
) -> None:
    from layoutkit.storage import open_store

    store = open_store(f"sqlite:///{tmp_path / 'fts.db'}")
    triggers = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
    with store.transaction() as tx:
        spaces = [tx.create_workspace(f"w{i}").id for i in range(10)]
        for ws in spaces:
            board = tx.create_board(ws, "fruit").id
            tx.insert_cards(board, [_note(f"apple pear {ws}"), _note("plum")])
            tx.insert_task(ws, title=f"apple tart {ws}", created_by="ana", asked_by="user")
    with store.transaction() as tx:
        before = {w: _fts(tx, w) for w in ("apple", "plum", "tart")}
        kept = tx.conn.execute(text(triggers)).all()
        tx.rebuild_search_index()  # everything: the FTS table is refilled in one pass
        assert {w: _fts(tx, w) for w in before} == before
        tx.rebuild_search_index(spaces[0])  # a tenth of the index: row by row
        assert {w: _fts(tx, w) for w in before} == before
        assert tx.conn.execute(text(triggers)).all() == kept
    with store.transaction() as tx:  # the triggers put back keep the table in step
        tx.insert_task(spaces[1], title="quince", created_by="ana", asked_by="user")
        tx.flush_search_index()
        assert [r[0] for r in _fts(tx, "quince")] == [spaces[1]]
    store.close()


def test_vocabulary_counts_and_boards_by_id_read_many_at_once(store: SqlStore) -> None:
    with store.transaction() as tx:
        ws = tx.ensure_workspace("w").id
        other = tx.ensure_workspace("other").id
        board = tx.create_board(ws, "b", tags=["pomelo"]).id
        tx.insert_cards(board, [_note("papaya pear"), _note("pear")])
        theirs = tx.create_board(other, "b").id
        tx.insert_cards(theirs, [_note("quince")])
    with store.read() as tx:
        # Each word the vocabulary holds, with its documents; a prefix or a word only
        # another workspace holds is not a vocabulary word of this one.
        assert tx.vocabulary_counts(ws, ["pear", "papaya", "pea", "quince", "pear"]) == {
            "pear": 2,
            "papaya": 1,
        }
        assert tx.vocabulary_counts(ws, []) == {}
        found = tx.boards_by_id([board, theirs, 10**9])
        assert set(found) == {board, theirs}
        assert found[board].tags == ("pomelo",) and found[board].slug == "b"
        assert tx.boards_by_id([]) == {}


def test_statements_sent_to_the_driver_read_as_through_sqlalchemy(store: SqlStore) -> None:
    # Search's reads skip SQLAlchemy (DriverSql): the same binds for both drivers, and
    # a failing statement raises the error SQLAlchemy would, which the store maps.
    sql = DriverSql.named("SELECT 'simple'::regconfig, :q, 5 % 2 WHERE a = :ws")
    assert sql.postgresql == "SELECT 'simple'::regconfig, %(q)s, 5 %% 2 WHERE a = %(ws)s"
    with store.transaction() as tx:
        ws = tx.ensure_workspace("w").id
        tx.insert_task(ws, title="pear tart", created_by="ana", asked_by="user")
        tx.insert_task(ws, title="plum tart", created_by="ana", asked_by="user")
    with store.read() as tx:
        assert tx.vocabulary_counts(ws, ["tart", "pear", "fig"]) == {"tart": 2, "pear": 1}
        assert tx.vocabulary_word(ws, "tart") == 2 and tx.vocabulary_word(ws, "tar") == 0
        assert tx.vocabulary_word(ws, "fig") is None
        with pytest.raises(DBAPIError):
            tx.driver_rows(DriverSql.named("SELECT nothing FROM no_such_table"), {})


def test_a_rebuild_writes_documents_in_the_order_of_their_rows(store: SqlStore) -> None:
    # Equal scores rank by document id, so a rebuild must write each kind's documents
    # in the order of their rows' ids, as it always has.
    with store.transaction() as tx:
        ws = tx.ensure_workspace("w").id
        board = tx.create_board(ws, "fruit").id
        tx.insert_cards(board, [_note(f"pear {i}") for i in range(30)])
        for i in range(30):
            tx.insert_task(ws, title=f"pear {i}", created_by="ana", asked_by="user")
    with store.transaction() as tx:
        tx.rebuild_search_index(ws)
        d = s.search_docs.c
        rows = tx.conn.execute(select(d.kind, d.subject).order_by(d.id)).all()
    for kind in ("task", "card"):
        subjects = [int(subject) for k, subject in rows if k == kind]
        assert len(subjects) == 30 and subjects == sorted(subjects)


#: search_index's query on SQLite as it was, the window picking each group's best rows
#: in SQL: the reference its pick in Python is held to.
_WINDOWED = (
    "SELECT id, kind, subject, grp, board_id, score FROM ("
    "SELECT m.*, ROW_NUMBER() OVER (PARTITION BY grp ORDER BY score DESC, id) AS n FROM ("
    "SELECT d.id, d.kind, d.subject, d.grp, d.board_id, "
    "-bm25(search_fts, 10.0, 1.0) AS score "
    "FROM search_fts CROSS JOIN search_docs d ON d.id = search_fts.rowid "
    "WHERE search_fts MATCH :q AND d.workspace_id = :ws AND d.grp IN ({names})) m) ranked "
    "WHERE n <= :per ORDER BY grp, n"
)


def test_the_best_rows_of_each_group_are_those_the_window_picked(store: SqlStore) -> None:
    if store.dialect != "sqlite":
        pytest.skip("PostgreSQL's query keeps its window")
    rng = random.Random(34)
    fruit = ["pear", "plum", "peach", "papaya", "pomelo", "quince"]
    with store.transaction() as tx:
        ws = tx.ensure_workspace("w").id
        other = tx.ensure_workspace("other").id
        for n in range(4):
            board = tx.create_board(ws, f"{fruit[n]}-{n}", tags=[fruit[n + 1]]).id
            # Many equal texts: equal scores, ranked by document id.
            notes = [" ".join(rng.choices(fruit, k=rng.randint(1, 4))) for _ in range(30)]
            tx.insert_cards(board, [_note(md) for md in notes + ["pear plum"] * 8])
        for _ in range(60):
            title = " ".join(rng.choices(fruit, k=rng.randint(1, 3)))
            tx.insert_task(ws, title=title, body=rng.choice(fruit), created_by="a", asked_by="user")
        tx.insert_cards(tx.create_board(other, "pear").id, [_note("pear plum")] * 5)
        for _ in range(6):
            # Drafts match too: a query for every group but drafts must leave them out.
            title = "pear plum quince peach"
            tx.insert_task(ws, title=title, created_by="a", asked_by="user", draft="pending")
    # A few groups (filtered in SQL), and every group but drafts (filtered in Python).
    every = ["tasks", "boards", "pages", "cards", "sessions", "shots", "tags", "annotations"]
    for groups in (["tasks", "boards", "cards", "tags"], every, ["drafts"]):
        names = ", ".join(f":g{i}" for i in range(len(groups)))
        with store.read() as tx:
            for q in ["pear", "pl", "pear plum", "p", "quince pear", "peach OR plum", "none"]:
                words = [[(w, True)] for w in q.split() if w != "OR"]
                match = " AND ".join(f'("{w}"*)' for w in q.split() if w != "OR")
                for per in (1, 3, 7, 40):
                    got = tx.search_index(ws, words, groups=groups, per_group=per)
                    params = {"q": match, "ws": ws, "per": per}
                    params.update((f"g{i}", g) for i, g in enumerate(groups))
                    want = tx.conn.execute(text(_WINDOWED.format(names=names)), params).all()
                    assert [tuple(h) for h in got] == [tuple(r) for r in want], (q, per)
                    assert len(got) > 0 or q == "none"


#: Titles beside bodies that all hold ``history``: the tasks a title match must find
#: are those whose title holds the words, never those whose body alone does.
_TITLES = [
    "Fix billing history in Ilntamtam",
    "Billing history export",
    "History of Korvali payments",
    "Ilntamtam onboarding checklist",
    "Update invoices for Ilnatamtam",
    "Sign-in history on mobile",
    "Sign in to the history page",
    "Refactor login page",
    "Histogram of upload sizes",
]
_TITLE_QUERIES = [
    # A typo beside a common word, as the resolver's loose reading asks it.
    ((("ilntamtam", "ilnatamtam"), ("history",)), "all"),
    ((("ilntamtam", "ilnatamtam"), ("history",)), "any"),
    ((("ilnt",), ("hist",)), "all"),
    ((("ilnt",), ("hist",)), "any"),
    ((("sign-in",), ("history",)), "all"),
    ((("sign-in", "signin"), ("page",)), "any"),
    ((("history",),), "all"),
    ((("page",), ("korvali",)), "all"),
    ((("korvali", "korvaly"), ("page",), ("billing",)), "any"),
    ((("zzzz",), ("history",)), "all"),
]


def _title_holds(title: str, terms: Any, match: str) -> bool:
    words = tokens(title)

    def spelled(word: str) -> bool:
        return all(any(w.startswith(t) for w in words) for t in tokens(word))

    held = [any(spelled(word) for word in group) for group in terms]
    return all(held) if match == "all" else any(held)


def test_a_title_match_reads_the_titles_alone(store: SqlStore) -> None:
    """The tasks a title lookup finds are those whose title holds the words (each the
    start of a title word), whatever the bodies hold: PostgreSQL scans an index of the
    task titles alone (migration 0022) and checks the whole query on what it finds, and
    the rows and their scores are those the index of title and body gave."""
    with store.transaction() as tx:
        ws = tx.ensure_workspace(f"w-{uuid.uuid4().hex[:10]}").id
        board = tx.create_board(ws, "history", meta={"title": "History board"}).id
        tx.insert_cards(board, [_note("# Billing history\n\nHistory of payments")])
        titles: dict[int, str] = {}
        drafts: set[int] = set()
        # Many more bodies holding the common word than titles holding the rare ones,
        # so that PostgreSQL scans the rare words alone and checks the rest on the rows.
        every = _TITLES + [f"Update the weekly report {n}" for n in range(100)]
        for n, title in enumerate(every):
            draft = "pending" if n % 7 == 3 else None
            task = tx.insert_task(
                ws,
                title=title,
                body=f"Billing history, the history page and more history {n}",
                created_by="ana",
                asked_by="user",
                draft=draft,
            )
            titles[task.id] = title
            if draft:
                drafts.add(task.id)
    with store.read() as tx:
        for terms, match in _TITLE_QUERIES:
            for with_drafts in (False, True):
                query = TaskTitleQuery(terms=terms, match=match, drafts=with_drafts)
                found = [row.id for row in tx.task_titles(ws, query, limit=1000)]
                expected = {
                    i
                    for i, title in titles.items()
                    if _title_holds(title, terms, match) and (with_drafts or i not in drafts)
                }
                assert len(found) == len(set(found))
                assert set(found) == expected, (terms, match, with_drafts)
                if tx._pg:
                    assert _pg_title_rows(tx, ws, terms, match, with_drafts) == _pg_stored_rows(
                        tx, ws, terms, match, with_drafts
                    ), (terms, match, with_drafts)


def _pg_title_rows(tx: SqlTx, ws: int, terms: Any, match: str, drafts: bool) -> set[Any]:
    matched = tx._task_title_matches(ws, terms, match=match, drafts=drafts)
    if matched is None:
        return set()
    return {
        (i, round(score, 6)) for i, score in tx.conn.execute(select(matched.c.id, matched.c.score))
    }


def _pg_stored_rows(tx: SqlTx, ws: int, terms: Any, match: str, drafts: bool) -> set[Any]:
    """What the title match read before 0022: the index of title and body, the title's
    words by their weight ``A``."""
    groups = [[tokens(word) for word in group] for group in terms]
    groups = [[sp for sp in group if sp] for group in groups]
    groups = [group for group in groups if group]
    rows = tx.conn.execute(
        text(
            "SELECT CAST(d.subject AS BIGINT), ts_rank(d.search_tsv, q) "
            "FROM search_docs d, to_tsquery('simple'::regconfig, :q) q "
            "WHERE d.workspace_id = :ws AND d.kind = 'task' AND d.grp IN :grps "
            "AND d.search_tsv @@ q"
        ).bindparams(bindparam("grps", expanding=True)),
        {
            "q": _pg_title_query(groups, match),
            "ws": ws,
            "grps": ["tasks", "drafts"] if drafts else ["tasks"],
        },
    )
    return {(i, round(score, 6)) for i, score in rows}


@pytest.mark.postgres
def test_a_title_match_on_postgresql_scans_the_index_of_task_titles(store: SqlStore) -> None:
    """The index of title and body brought every document whose body holds a common word
    into a title match's scan (60-110 ms at 20k tasks for a typo beside ``history``);
    the plan must read the index of task titles, which a query reaches only by spelling
    its expression as migration 0022 did."""
    from sqlalchemy import event

    if store.engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL's index")
    with store.transaction() as tx:
        ws = tx.ensure_workspace(f"w-{uuid.uuid4().hex[:10]}").id
        for n in range(300):
            tx.insert_task(
                ws,
                title="Fix billing history in Ilntamtam" if n == 7 else f"Update report {n}",
                body=f"Billing history, the history page {n}",
                created_by="ana",
                asked_by="user",
            )
        tx.rebuild_search_index(ws)
    seen: list[tuple[str, Any]] = []

    def keep(conn: Any, cursor: Any, statement: str, params: Any, *_: Any) -> None:
        if "WITH title_match" in statement:
            seen.append((statement, params))

    event.listen(store.engine, "before_cursor_execute", keep)
    try:
        with store.read() as tx:
            for match in ("all", "any"):
                query = TaskTitleQuery(terms=(("ilntamtam",), ("history",)), match=match)
                assert tx.task_titles(ws, query, limit=500)
    finally:
        event.remove(store.engine, "before_cursor_execute", keep)
    with store.read() as tx:
        plans = [
            "\n".join(row[0] for row in tx.conn.exec_driver_sql("EXPLAIN " + sql, p))
            for sql, p in seen
        ]
    assert len(plans) == 2 and all(s.TASK_TITLE_INDEX in plan for plan in plans), plans
    assert not any("ix_search_docs_text" in plan for plan in plans), plans
