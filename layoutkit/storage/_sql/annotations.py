"""Annotations: findings on card versions and people's comment threads (``kind``); only
their state, intent, thread and deck (and a comment's own text) change after they are
filed, and only a comment thread is ever deleted."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import bindparam, delete, func, select, update

from layoutkit.storage import _schema as s
from layoutkit.storage._errors import ConflictError, NotFoundError
from layoutkit.storage._records import AnnotationRecord
from layoutkit.storage._sql._base import TxBase, check_fields, record

_CHANGEABLE = frozenset({"state", "intent", "replies", "deck", "prompt", "attention"})


@functools.cache
def _annotations_by_id() -> Any:
    # Search reads the findings of a page of hits with it.
    return select(s.annotations).where(s.annotations.c.id.in_(bindparam("ids", expanding=True)))


class AnnotationRows(TxBase):
    def insert_annotation(self, **fields: Any) -> AnnotationRecord:
        made = self.insert_annotations([fields])
        if not made:
            raise ConflictError(f"annotation key {fields.get('key')!r} exists on this board")
        return made[0]

    def insert_annotations(self, rows: Sequence[Mapping[str, Any]]) -> list[AnnotationRecord]:
        self._write()
        if not rows:
            return []
        now = self.now()
        values = [{**row, "created_at": now, "updated_at": now} for row in rows]
        # One statement for the batch (a round trip per finding was most of a 100-item
        # batch on PostgreSQL). The key is unique per board: a row whose key another
        # writer took first is left out (ON CONFLICT keeps PostgreSQL's transaction usable).
        stmt = self._insert_ignoring_conflict(s.annotations).values(values)
        made = [
            record(row, AnnotationRecord)
            for row in self.conn.execute(stmt.returning(*s.annotations.c))
        ]
        for found in made:
            self._touch_search("annotation", found.id)
        order = {(row["board_id"], row["key"]): i for i, row in enumerate(rows)}
        return sorted(made, key=lambda a: order[a.board_id, a.key])

    def annotation(self, annotation_id: int) -> AnnotationRecord | None:
        a = s.annotations.c
        row = self.conn.execute(select(s.annotations).where(a.id == annotation_id)).first()
        return None if row is None else record(row, AnnotationRecord)

    def annotations_by_id(self, annotation_ids: Iterable[int]) -> dict[int, AnnotationRecord]:
        ids = sorted(set(annotation_ids))
        if not ids:
            return {}
        rows = self.conn.execute(_annotations_by_id(), {"ids": ids})
        return {row.id: record(row, AnnotationRecord) for row in rows}

    def annotations(
        self,
        board_id: int,
        *,
        states: Iterable[str] | None = None,
        card_id: int | None = None,
        keys: Iterable[str] | None = None,
        ids: Iterable[int] | None = None,
        kind: str | None = None,
    ) -> list[AnnotationRecord]:
        a = s.annotations.c
        query = select(s.annotations).where(a.board_id == board_id)
        if kind is not None:
            query = query.where(a.kind == kind)
        if states is not None:
            query = query.where(a.state.in_(list(states)))
        if card_id is not None:
            query = query.where(a.card_id == card_id)
        if keys is not None:
            query = query.where(a.key.in_(list(keys)))
        if ids is not None:
            query = query.where(a.id.in_(list(ids)))
        rows = self.conn.execute(query.order_by(a.id))
        return [record(row, AnnotationRecord) for row in rows]

    def update_annotation(self, annotation_id: int, **fields: Any) -> AnnotationRecord:
        self._write()
        check_fields(fields, _CHANGEABLE, "annotation")
        a = s.annotations.c
        stmt = (
            update(s.annotations)
            .where(a.id == annotation_id)
            .values(**fields, updated_at=self.now())
            .returning(*s.annotations.c)
        )
        row = self.conn.execute(stmt).first()
        if row is None:
            raise NotFoundError(f"no annotation {annotation_id}")
        self._touch_search("annotation", annotation_id)
        return record(row, AnnotationRecord)

    def delete_annotation(self, annotation_id: int) -> None:
        self._write()
        a = s.annotations.c
        gone = self.conn.execute(delete(s.annotations).where(a.id == annotation_id)).rowcount
        if not gone:
            raise NotFoundError(f"no annotation {annotation_id}")
        # The search document goes with it (a touched id that is gone is dropped).
        self._touch_search("annotation", annotation_id)

    def card_heads(self, card_ids: Iterable[int]) -> dict[int, tuple[int, int]]:
        c = s.cards.c
        ids = list(card_ids)
        if not ids:
            return {}
        query = select(c.id, c.board_id, c.version).where(c.id.in_(ids), c.deleted_at.is_(None))
        return {
            card_id: (board_id, version) for card_id, board_id, version in self.conn.execute(query)
        }

    def count_annotations(
        self, board_ids: Iterable[int], states: Iterable[str], *, kind: str = "finding"
    ) -> dict[int, int]:
        a = s.annotations.c
        boards = list(board_ids)
        if not boards:
            return {}
        query = (
            select(a.board_id, func.count())
            .where(a.board_id.in_(boards), a.state.in_(list(states)), a.kind == kind)
            .group_by(a.board_id)
        )
        return {board_id: n for board_id, n in self.conn.execute(query)}

    def annotation_tally(self, board_id: int) -> list[tuple[str, str, int, Any]]:
        a = s.annotations.c
        query = (
            select(a.state, a.intent, func.count(), func.max(a.updated_at))
            .where(a.board_id == board_id)
            .group_by(a.state, a.intent)
            .order_by(a.state, a.intent)
        )
        return [(state, intent, n, last) for state, intent, n, last in self.conn.execute(query)]
