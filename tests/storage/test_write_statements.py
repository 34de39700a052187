"""Writes that send one statement for many rows still hand back each row's own record."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from layoutkit.storage import NewCard, SqlStore
from layoutkit.storage._sql._base import TxBase, token_hash


@contextmanager
def statements(store: SqlStore) -> Iterator[list[str]]:
    """Every statement sent while open: through SQLAlchemy, and straight to the
    driver (``TxBase._driver_call``: an executemany counts once, as it is one
    prepared statement the driver sends for all its rows)."""
    seen: list[str] = []

    def count(*args: Any) -> None:
        seen.append(args[2])  # (conn, cursor, statement, parameters, context, executemany)

    sent = TxBase._driver_call

    def driver_call(self: TxBase, query: str, values: Any, send: Any) -> Any:
        seen.append(query)
        return sent(self, query, values, send)

    event.listen(store.engine, "before_cursor_execute", count)
    TxBase._driver_call = driver_call  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        TxBase._driver_call = sent  # type: ignore[method-assign]
        event.remove(store.engine, "before_cursor_execute", count)


def test_a_batch_of_cards_goes_in_one_insert_and_each_record_is_its_rows(
    store: SqlStore,
) -> None:
    with store.transaction() as tx:
        ws = tx.create_workspace(f"w-{uuid.uuid4().hex[:10]}").id
        board = tx.create_board(ws, "b").id
        tx.insert_cards(board, [NewCard("note", {"md": "before"}, 0, 0, 10, 10, "ai", "a")])
    new = [
        NewCard("note", {"md": f"card {i}"}, i * 10, i, 100 + i, 50 + i, "ai", "a")
        for i in range(12)
    ]
    with store.transaction() as tx, statements(store) as seen:
        made = tx.insert_cards(board, new)
    assert sum(1 for sql in seen if sql.lstrip().upper().startswith("INSERT INTO CARDS")) == 1
    assert [c.payload for c in made] == [c.payload for c in new]
    assert len({c.id for c in made}) == len(new)
    with store.read() as tx:
        for record in made:
            stored = tx.card(record.id)
            assert stored is not None
            assert (stored.ordinal, stored.payload, stored.x, stored.w, stored.h) == (
                record.ordinal,
                record.payload,
                record.x,
                record.w,
                record.h,
            )


def test_statements_sent_through_the_driver_read_what_sqlalchemy_reads(store: SqlStore) -> None:
    # TxBase.driver_execute converts values and rows with SQLAlchemy's own column
    # types: each statement sent that way must read exactly what SQLAlchemy does.
    from layoutkit.storage._sql import access, boards, cards, tasks, webhooks, workspaces

    with store.transaction() as tx:
        ws = tx.create_workspace(f"w-{uuid.uuid4().hex[:10]}").id
        board = tx.create_board(ws, "b", tags=["alpha", "beta"]).id
        made_cards = tx.insert_cards(
            board, [NewCard("note", {"md": "é ✓"}, 1.5, 2, 10, 10, "ai", "a")]
        )
        tx.create_webhook(ws, url="https://example.com/h", events=["*"], secret="s", created_by="o")
        tx.record_event("compose", "owner", board_id=board, detail={"n": 1})
        made, token = tx.create_api_token("agent", "a", workspace_id=ws, role="member")
        epic = tx.insert_task(ws, title="Épic", created_by="ana", asked_by="user", type="epic")
        kids = [
            tx.insert_task(ws, title=f"kid {i}", created_by="ana", asked_by="user", **extra)
            for i, extra in enumerate([{"parent_id": epic.id}, {"parent_id": epic.id}, {}])
        ]
        tx.insert_task(
            ws, title="draft", created_by="ana", asked_by="user", parent_id=epic.id, draft="d"
        )
    task_ids = [epic.id, *(k.id for k in kids)]
    pg = store.dialect == "postgresql"
    with store.read() as tx:
        cases = [
            (workspaces._workspace_by_id(), {"id": ws}),
            (boards._board_by_slug(pg, False), {"ws": ws, "slug": "b"}),
            (boards._board_revs(), {"id": board}),
            (cards._card_changes(), {"board": board, "since": -1}),
            (webhooks._webhooks(True), {"ws": ws, "active": True}),
            (access._live_token(), {"hash": token_hash(token)}),
            (access._role(), {"ws": ws, "token": made.id}),
            (boards._boards_by_id(pg), {"values": tx.driver_list([board])}),
            (cards._cards_by_id(pg), {"values": tx.driver_list(c.id for c in made_cards)}),
            (tasks._titles_by_id(pg), {"values": tx.driver_list(task_ids)}),
            (tasks._child_counts(pg), {"values": tx.driver_list(task_ids)}),
        ]
        for stmt, params in cases:
            expected = [tuple(r) for r in tx.conn.execute(stmt, params)]
            assert expected, stmt
            assert tx.driver_execute(stmt, params) == expected, stmt


def test_title_rows_built_by_position_are_the_records_cattrs_builds(store: SqlStore) -> None:
    # TaskRows reads a resolve's rows of titles by position (_title_row), not through
    # cattrs: each must equal the record made from the same row by name.
    from sqlalchemy import select

    from layoutkit.storage import _schema as s
    from layoutkit.storage._records import TaskTitleQuery, TaskTitleRow
    from layoutkit.storage._sql._base import record
    from layoutkit.storage._sql.tasks import _TITLE_COLUMNS

    with store.transaction() as tx:
        ws = tx.create_workspace(f"w-{uuid.uuid4().hex[:10]}").id
        epic = tx.insert_task(ws, title="Épic plan", created_by="ana", asked_by="user")
        kid = tx.insert_task(
            ws, title="plan kid", created_by="ana", asked_by="user", parent_id=epic.id, state="Done"
        )
        draft = tx.insert_task(ws, title="plan draft", created_by="ana", asked_by="user", draft="d")
    ids = [epic.id, kid.id, draft.id]
    with store.read() as tx:
        by_name = {
            r.id: record(r, TaskTitleRow)
            for r in tx.conn.execute(select(*_TITLE_COLUMNS).where(s.tasks.c.id.in_(ids)))
        }
        assert len(by_name) == 3
        assert by_name[epic.id].updated_at.tzinfo is not None
        assert tx.task_titles_by_id([*ids, 10**9]) == by_name
        assert tx.task_titles_by_id([]) == {}
        query = TaskTitleQuery(terms=(("plan",),), drafts=True)
        found = tx.task_titles(ws, query, limit=10)
        assert sorted(found, key=lambda r: r.id) == [by_name[i] for i in sorted(ids)]
        assert tx.task_child_counts([epic.id, kid.id]) == {epic.id: 1, kid.id: 0}
