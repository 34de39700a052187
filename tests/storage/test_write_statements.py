"""Writes that send one statement for many rows still hand back each row's own record."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event

from layoutkit.storage import NewCard, SqlStore
from layoutkit.storage._sql._base import TxBase, token_hash, utc


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


def _new_board(tx: TxBase) -> int:
    """A board in a new workspace of its own (tests share the PostgreSQL store)."""
    ws = tx.create_workspace(f"w-{uuid.uuid4().hex[:10]}").id
    return tx.create_board(ws, "b").id


def test_a_batch_of_cards_goes_in_one_insert_and_each_record_is_its_rows(
    store: SqlStore,
) -> None:
    with store.transaction() as tx:
        board = _new_board(tx)
        tx.insert_cards(board, [NewCard("note", {"md": "before"}, 0, 0, 10, 10, "ai", "a")])
    new = [
        NewCard("note", {"md": f"card {i}"}, i * 10, i, 100 + i, 50 + i, "ai", "a")
        for i in range(12)
    ]
    with store.transaction() as tx, statements(store) as seen:
        made = tx.insert_cards(board, new)
    assert sum(1 for sql in seen if re.search(r"INSERT INTO cards\b", sql, re.IGNORECASE)) == 1
    # PostgreSQL's insert hands the new ids back; SQLite reads them after it.
    id_reads = sum(1 for sql in seen if sql.startswith("SELECT cards.id, cards.ordinal"))
    assert id_reads == (0 if store.dialect == "postgresql" else 1)
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


def test_a_statement_without_rows_sends_none_back_and_one_with_returning_does(
    store: SqlStore,
) -> None:
    # driver_execute tells the two apart by the statement's own columns, not by asking
    # the driver's cursor (which psycopg builds anew on every read of it).
    from layoutkit.storage._sql import cards

    with store.transaction() as tx:
        board = _new_board(tx)
        taken = tx.driver_execute(
            cards._take_ordinals(), {"board": board, "count": 2, "now": tx.now()}
        )
        assert [last for last, _rev in taken] == [2]
        span = {"board": board, "first": 1, "last": 2}
        assert tx.driver_execute(cards._keep_new_versions(), span) == []
        assert tx.driver_execute(cards._new_card_ids(), span) == []


# Values a batch's JSON must carry exactly: floats that are not short decimals, a
# negative zero, times with microseconds, text JSON escapes, nested JSON with floats.
_FLOATS = [0.1, 1e-7, 123456.789, -0.0, 2.0**53 + 2, 1 / 3, 5e-324, 1.7976931348623157e308]
_TEXTS = ["plain", 'quote " and \\ back', "é ✓ 😀", "line\nbreak\ttab\u2028", ""]


def _card_rows(board: int, first: int, now: Any) -> list[dict[str, Any]]:
    from datetime import timedelta

    return [
        {
            "board_id": board,
            "ordinal": first + i,
            "kind": "note",
            "payload": {"md": _TEXTS[i % len(_TEXTS)], "f": [_FLOATS[i], 7, None, True]},
            "x": _FLOATS[i],
            "y": -_FLOATS[i],
            "w": 100.25 + i,
            "h": 1e-3 * (i + 1),
            "layer": i,
            "version": 1,
            "parent_id": None,
            "children": [1, 2] if i % 2 else None,
            "author": _TEXTS[i % len(_TEXTS)],
            "sized_by": None if i % 2 else "auto",
            "created_at": now + timedelta(microseconds=i * 7919),
            "updated_at": now + timedelta(seconds=i, microseconds=1),
            "deleted_at": None,
            "deleted_by": None,
            "rev": 1,
        }
        for i in range(len(_FLOATS))
    ]


def _stored(tx: Any, table: Any, where: Any, order: Any, leave: set[str]) -> list[dict[str, Any]]:
    from sqlalchemy import select

    rows = tx.conn.execute(select(table).where(where).order_by(order)).mappings()
    return [{k: v for k, v in row.items() if k not in leave} for row in rows]


def test_a_batch_sent_as_one_statement_stores_what_sqlalchemy_stores(store: SqlStore) -> None:
    # On PostgreSQL a batch of new cards, search documents and word counts goes as one
    # JSON array (JsonRows); SQLite sends each row. Either way the stored rows must be
    # those SQLAlchemy's own insert of the same values stores.
    from sqlalchemy import insert

    from layoutkit.storage import _schema as s
    from layoutkit.storage._sql import cards, search

    pg = store.dialect == "postgresql"
    with store.transaction() as tx:
        ws, other = (tx.create_workspace(f"w-{uuid.uuid4().hex[:10]}").id for _ in range(2))
        board = tx.create_board(ws, "b").id
    now = store.clock()
    docs = [
        search._Doc(ws, "card", f"s{i}", "cards", board if i % 2 else None, t, t * 2)
        for i, t in enumerate(_TEXTS)
    ]
    words = [(ws, f"word{i}", "w", 5, i + 1) for i in range(6)]
    with store.transaction() as tx, statements(store) as seen:
        batch = _card_rows(board, 1, now)
        tx.driver_insert(
            cards._insert_cards(), batch, cards._NEW_CARD_COLUMNS, cards._INSERT_CARDS_BATCH
        )
        tx.conn.execute(insert(s.cards), _card_rows(board, 101, now))
        tx.driver_executemany(search._INSERT_DOCS, docs, search._INSERT_DOCS_BATCH)
        tx.conn.execute(
            insert(s.search_docs),
            [{**d._asdict(), "workspace_id": other} for d in docs],
        )
        # Twice: the second time through the conflict clause, adding to the counts.
        for _ in range(2):
            tx.driver_executemany(search._UPSERT_WORDS, words, search._UPSERT_WORDS_BATCH)
        tx.conn.execute(
            insert(s.search_words),
            [
                dict(zip(search._WORD_COLUMNS, (other, w, f, n, d * 2), strict=True))
                for _, w, f, n, d in words
            ],
        )
    batched = [sql for sql in seen if "jsonb_populate_recordset" in sql]
    assert len(batched) == (4 if pg else 0)
    c, d, w = s.cards.c, s.search_docs.c, s.search_words.c
    with store.read() as tx:
        mine = _stored(tx, s.cards, c.ordinal < 100, c.ordinal, {"id", "ordinal"})
        theirs = _stored(tx, s.cards, c.ordinal > 100, c.ordinal, {"id", "ordinal"})
        assert len(mine) == len(_FLOATS)
        assert mine == theirs
        assert [r["x"] for r in mine] == _FLOATS
        assert [utc(r["created_at"]) for r in mine] == [r["created_at"] for r in batch]
        mine = _stored(
            tx,
            s.search_docs,
            (d.workspace_id == ws) & (d.kind == "card"),
            d.subject,
            {"id", "workspace_id"},
        )
        theirs = _stored(
            tx,
            s.search_docs,
            (d.workspace_id == other) & (d.kind == "card"),
            d.subject,
            {"id", "workspace_id"},
        )
        assert len(mine) == len(docs)
        assert mine == theirs
        mine = _stored(tx, s.search_words, w.workspace_id == ws, w.word, {"workspace_id"})
        theirs = _stored(tx, s.search_words, w.workspace_id == other, w.word, {"workspace_id"})
        assert [r["docs"] for r in mine] == [2 * n for *_, n in words]
        assert mine == theirs


def test_rows_json_cannot_carry_exactly_go_one_by_one() -> None:
    from datetime import UTC, date, datetime
    from decimal import Decimal

    from layoutkit.storage._sql._base import json_rows

    stamp = datetime(2025, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)
    assert json_rows([{"a": 0.1, "t": stamp, "j": {"k": [1, None]}}]) == (
        '[{"a":0.1,"t":"2025-03-01T12:00:00.123456+00:00","j":{"k":[1,null]}}]'
    )
    for value in (float("nan"), float("inf"), Decimal("1.5"), date(2025, 3, 1), b"x"):
        assert json_rows([{"a": value}]) is None


def test_a_batch_json_cannot_carry_is_stored_row_by_row(store: SqlStore) -> None:
    # A float that is not finite has no JSON form: such a batch goes by executemany,
    # and PostgreSQL stores it as it is (SQLite has no such value to store).
    from sqlalchemy import select

    from layoutkit.storage import _schema as s
    from layoutkit.storage._sql import cards

    if store.dialect != "postgresql":
        pytest.skip("only PostgreSQL sends a batch as JSON")
    with store.transaction() as tx:
        board = tx.create_board(tx.create_workspace("w").id, "b").id
        rows = _card_rows(board, 1, store.clock())[:2]
        rows[1]["x"] = float("inf")
        with statements(store) as seen:
            tx.driver_insert(
                cards._insert_cards(), rows, cards._NEW_CARD_COLUMNS, cards._INSERT_CARDS_BATCH
            )
        assert not any("jsonb_populate_recordset" in sql for sql in seen)
        xs = tx.conn.execute(select(s.cards.c.x).order_by(s.cards.c.ordinal)).scalars()
        assert list(xs) == [_FLOATS[0], float("inf")]


def test_stored_faces_are_the_faces_of_live_cards_as_given(store: SqlStore) -> None:
    # store_faces reads the live ids and upserts the faces through the driver, on
    # PostgreSQL in one statement unless the batch names a card twice.
    from sqlalchemy import select

    from layoutkit.storage import FaceRow
    from layoutkit.storage import _schema as s

    with store.transaction() as tx:
        board = tx.create_board(tx.create_workspace(f"w-{uuid.uuid4().hex[:10]}").id, "b").id
        made = tx.insert_cards(
            board, [NewCard("note", {"md": f"{i}"}, 0, 0, 10, 10, "ai", "a") for i in range(3)]
        )
    ids = [c.id for c in made]
    first = [FaceRow(i, 1, "c" * 16, f"k{i}", f'<g a="{i}">é\n</g>') for i in [*ids, 10**9]]
    again = [FaceRow(ids[1], 2, "d" * 16, "k", "<g>new</g>")]
    twice = [FaceRow(ids[2], 3, "e" * 16, "k", "<g>1</g>"), FaceRow(ids[2], 4, "f" * 16, "k", "2")]
    batched = []
    for faces, count in ((first, 3), (again, 1), (twice, 2)):
        with store.transaction() as tx, statements(store) as seen:
            assert tx.store_faces(faces) == count
        batched.append(any("jsonb_populate_recordset" in sql for sql in seen))
    pg = store.dialect == "postgresql"
    assert batched == [pg, pg, False]
    f = s.card_faces.c
    with store.read() as tx:
        rows = tx.conn.execute(select(s.card_faces).order_by(f.card_id)).all()
    assert [FaceRow(*row) for row in rows] == [first[0], again[0], twice[1]]


def test_a_batch_keeps_the_first_version_of_each_new_card(store: SqlStore) -> None:
    # PostgreSQL keeps a batch's first versions in the insert's own statement; SQLite
    # copies them after it. Either way each new card has one, its own drawn fields.
    from sqlalchemy import select

    from layoutkit.storage import _schema as s
    from layoutkit.storage._sql import cards

    with store.transaction() as tx:
        board = tx.create_board(tx.create_workspace(f"w-{uuid.uuid4().hex[:10]}").id, "b").id
        tx.insert_cards(board, [NewCard("note", {"md": "before"}, 0, 0, 10, 10, "ai", "a")])
    new = [
        NewCard("note", {"md": f"card {i}", "n": i / 3}, i, i, 100 + i / 7, 50, "ai", "a")
        for i in range(5)
    ]
    with store.transaction() as tx, statements(store) as seen:
        made = tx.insert_cards(board, new)
    copies = sum(1 for sql in seen if sql.startswith("INSERT INTO card_versions"))
    assert copies == (0 if store.dialect == "postgresql" else 1)
    c, v = s.cards.c, s.card_versions.c
    ids = [card.id for card in made]
    with store.read() as tx:
        kept = tx.conn.execute(
            select(*(v[k] for k in cards._VERSION_COLUMNS))
            .where(v.card_id.in_(ids))
            .order_by(v.card_id)
        ).all()
        expected = tx.conn.execute(
            select(*(c[k] for k in cards._VERSION_SOURCE)).where(c.id.in_(ids)).order_by(c.id)
        ).all()
    assert len(kept) == len(new)
    assert kept == expected
    assert [row.payload for row in kept] == [card.payload for card in made]
