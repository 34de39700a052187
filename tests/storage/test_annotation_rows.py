"""The annotations table on every backend: one finding per key and board, the fields that
change, counts per board, card heads, and the cascade of a purged card."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from layoutkit.storage import ConflictError, NewCard, NotFoundError, SqlStore
from tests.storage.conftest import FakeClock


def _fields(board: int, card: int, key: str, state: str = "staged") -> dict[str, Any]:
    return {
        "board_id": board,
        "card_id": card,
        "card_version": 1,
        "filed_version": 1,
        "key": key,
        "region": {"rect": {"x": 1, "y": 2, "w": 3, "h": 4}},
        "prompt": {"summary": "Låg kontrast"},
        "intent": "fix",
        "severity": "high",
        "category": "contrast",
        "related": ["other", 3],
        "state": state,
        "author": "agent:claude",
        "principal": "user:ana",
        "run_id": None,
        "replies": [],
        "deck": {"before": {"cardId": card}, "attempts": []},
    }


def test_annotation_rows(store: SqlStore, clock: FakeClock) -> None:
    with store.transaction() as tx:
        ws = tx.ensure_workspace()
        a = tx.create_board(ws.id, "a").id
        b = tx.create_board(ws.id, "b").id
        card, gone = tx.insert_cards(
            a, [NewCard("note", {"text": t}, 0, 0, 200, 80, "ai", "agent:x") for t in ("1", "2")]
        )
        first = tx.insert_annotation(**_fields(a, card.id, "k1"))
        with pytest.raises(ConflictError):
            tx.insert_annotation(**_fields(a, card.id, "k1"))
        # The key is the board's: another board may use it.
        other_card = tx.insert_cards(b, [NewCard("note", {}, 0, 0, 200, 80, "ai", "agent:x")])[0]
        tx.insert_annotation(**_fields(b, other_card.id, "k1"))
        tx.insert_annotation(**_fields(a, gone.id, "k2", state="cancelled"))
    with store.transaction() as tx:
        got = tx.annotation(first.id)
        assert (
            got == first and got.related == ["other", 3] and got.prompt["summary"] == "Låg kontrast"
        )
        clock.advance(seconds=5)
        moved = tx.update_annotation(first.id, state="open", replies=[{"n": 1, "text": "hi"}])
        assert moved.state == "open" and moved.replies == [{"n": 1, "text": "hi"}]
        assert moved.updated_at > moved.created_at
        with pytest.raises(ValueError):
            tx.update_annotation(first.id, key="other")
        with pytest.raises(NotFoundError):
            tx.update_annotation(999_999, state="open")
        assert [x.key for x in tx.annotations(a)] == ["k1", "k2"]
        assert [x.key for x in tx.annotations(a, states=["open"])] == ["k1"]
        assert [x.key for x in tx.annotations(a, keys=["k2", "nope"])] == ["k2"]
        assert [x.key for x in tx.annotations(a, card_id=gone.id)] == ["k2"]
        assert tx.count_annotations([a, b], ["open", "staged"]) == {a: 1, b: 1}
        assert tx.card_heads([card.id, gone.id, 424242]) == {card.id: (a, 1), gone.id: (a, 1)}
        tx.remove_cards([gone.id], by="agent:x")
        assert tx.card_heads([gone.id]) == {}
    # Purging a trashed card takes its findings with it.
    clock.advance(days=31)
    with store.transaction() as tx:
        assert tx.purge_deleted_cards(timedelta(days=30)) == 1
        assert [x.key for x in tx.annotations(a)] == ["k1"]
