"""Card versions kept on every backend: what is written when, how a version is found,
and that rows go with their card."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select, text

from layoutkit.storage import NewCard, SqlStore, _migrations
from layoutkit.storage import _schema as s
from tests.storage.conftest import FakeClock, Location, undo_token_homes
from tests.storage.test_resources import new_board

REF = "sha256:" + "ab" * 32


def _media(x: float = 0) -> NewCard:
    payload = {"ref": REF, "mime": "image/png", "natW": 1440, "natH": 900}
    return NewCard("media", payload, x, 0, 360, 225, "ai", "agent:claude")


def _count(store: SqlStore) -> int:
    with store.read() as tx:
        return int(tx.conn.execute(select(func.count()).select_from(s.card_versions)).scalar_one())


def test_a_new_card_keeps_its_first_version(store: SqlStore) -> None:
    with store.transaction() as tx:
        board = new_board(tx)
        a, b = tx.insert_cards(board, [_media(), _media(400)])
    with store.read() as tx:
        (kept,) = tx.card_versions(a.id)
        assert (kept.version, kept.kind, kept.payload, kept.w, kept.h) == (
            1,
            "media",
            a.payload,
            360,
            225,
        )
        assert kept.created_at == a.created_at
        assert tx.card_version(b.id, 1) is not None
        assert tx.card_version(a.id, 0) is None


def test_a_move_sending_its_size_is_judged_by_its_own_versions(store: SqlStore) -> None:
    # Another card with more kept versions must not make a plain move look like a resize.
    with store.transaction() as tx:
        board = new_board(tx)
        mover, other = tx.insert_cards(board, [_media(), _media(400)])
    for size in (300.0, 320.0, 340.0):
        with store.transaction() as tx:
            tx.update_cards([{"id": other.id, "w": size, "h": 200.0}])
    with store.transaction() as tx:
        tx.update_cards([{"id": mover.id, "x": 90.0, "y": 0.0, "w": 360.0, "h": 225.0}])
    with store.read() as tx:
        assert [v.version for v in tx.card_versions(mover.id)] == [1]
        assert [v.version for v in tx.card_versions(other.id)] == [1, 2, 3, 4]


def test_drawn_changes_keep_a_version_and_moves_do_not(store: SqlStore, clock: FakeClock) -> None:
    with store.transaction() as tx:
        board = new_board(tx)
        (card,) = tx.insert_cards(board, [_media()])
    changes: list[dict] = [
        {"payload": {"ref": REF, "alt": "home"}},  # v2 kept
        {"x": 50.0, "y": 10.0},  # v3: a move
        {"x": 60.0, "y": 10.0, "w": 360.0, "h": 225.0},  # v4: a move that sends the size
        {"w": 400.0, "h": 250.0},  # v5 kept: resized
        {"layer": "human"},  # v6
        {"kind": "figure"},  # v7 kept
    ]
    for patch in changes:
        clock.advance(seconds=1)
        with store.transaction() as tx:
            tx.update_cards([{"id": card.id, **patch}])
    with store.transaction() as tx:
        tx.remove_cards([card.id], by="agent:claude")  # v8
        tx.restore_cards([card.id])  # v9
    with store.read() as tx:
        assert tx.card(card.id).version == 9  # type: ignore[union-attr]
        assert [v.version for v in tx.card_versions(card.id)] == [1, 2, 5, 7]
        drawn = {
            v: (r.kind, r.payload.get("alt"), r.w, r.h, r.version)
            for v in range(1, 10)
            if (r := tx.card_version(card.id, v)) is not None
        }
    assert drawn == {
        1: ("media", None, 360, 225, 1),
        2: ("media", "home", 360, 225, 2),
        3: ("media", "home", 360, 225, 2),
        4: ("media", "home", 360, 225, 2),
        5: ("media", "home", 400, 250, 5),
        6: ("media", "home", 400, 250, 5),
        7: ("figure", "home", 400, 250, 7),
        8: ("figure", "home", 400, 250, 7),
        9: ("figure", "home", 400, 250, 7),
    }


def test_one_update_of_many_cards_keeps_one_row_each(store: SqlStore) -> None:
    with store.transaction() as tx:
        board = new_board(tx)
        cards = tx.insert_cards(board, [_media(i * 400) for i in range(30)])
    with store.transaction() as tx:
        tx.update_cards([{"id": c.id, "payload": {"ref": REF, "n": c.id}} for c in cards])
        tx.update_cards([{"id": c.id, "x": c.x + 1, "y": 0.0, "w": c.w, "h": c.h} for c in cards])
    assert _count(store) == 60
    with store.read() as tx:
        assert all(tx.card_version(c.id, 3).payload["n"] == c.id for c in cards)  # type: ignore[union-attr]


def test_versions_go_with_their_card(store: SqlStore, clock: FakeClock) -> None:
    with store.transaction() as tx:
        board = new_board(tx)
        other = new_board(tx, "other")
        (gone,) = tx.insert_cards(board, [_media()])
        (kept,) = tx.insert_cards(other, [_media()])
        tx.update_cards([{"id": gone.id, "payload": {"ref": REF}}])
        tx.remove_cards([gone.id], by="agent:claude")
    clock.advance(days=31)
    with store.transaction() as tx:
        assert tx.purge_deleted_cards(timedelta(days=30)) == 1
        assert tx.card_versions(gone.id) == []
        assert len(tx.card_versions(kept.id)) == 1
        tx.delete_board(other)
    assert _count(store) == 0


def test_a_database_from_before_versions_keeps_each_cards_current_one(
    location: Location,
) -> None:
    store = location.open()
    try:
        with store.transaction() as tx:
            board = new_board(tx)
            cards = tx.insert_cards(board, [_media(), _media(400)])
            tx.update_cards([{"id": cards[0].id, "payload": {"ref": REF, "alt": "v2"}}])
        with store.transaction() as tx:
            # As a database at revision 0006 had them: no versions kept (and no
            # tables of later revisions).
            tx.conn.execute(text("DROP TABLE IF EXISTS search_fts"))
            for table in (
                s.memberships,
                s.transfer_map,
                s.task_trash,
                s.search_words,
                s.search_docs,
                s.work_claims,
                s.work_asks,
                s.work_signals,
                s.annotations,
                s.task_embeddings,
                s.task_events,
                s.task_refs,
                s.tasks,
                s.task_vocab,
                s.review_runs,
            ):
                table.drop(tx.conn)
            s.card_versions.drop(tx.conn)
            undo_token_homes(tx.conn)
            tx.conn.execute(text("UPDATE alembic_version SET version_num = '0006'"))
        with store.transaction() as tx:
            assert _migrations.upgrade(tx.conn)[0] == "0007"
        with store.read() as tx:
            first = tx.card_versions(cards[0].id)
            assert [(v.version, v.payload.get("alt")) for v in first] == [(2, "v2")]
            assert tx.card_version(cards[0].id, 1) is None
            assert [v.version for v in tx.card_versions(cards[1].id)] == [1]
    finally:
        store.close()
