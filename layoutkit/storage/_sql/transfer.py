"""Rows as rows, for copying a project between workspaces of one database.

A transfer reads the source project table by table in bounded batches and
inserts each batch into the destination with fresh ids; ``transfer_map``
remembers what each source row became, so a re-run skips it. These methods
know tables and columns but nothing of what a project is: the service's
``transfer`` module decides which rows go and how their references are renamed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import and_, bindparam, func, insert, select, update

from layoutkit.storage import _schema as s
from layoutkit.storage._blobs import FileBlobStore
from layoutkit.storage._sql._base import TxBase

#: Rows per batch read or written, and parent ids per ``IN`` list: what a transfer
#: holds in memory at once is one batch, whatever the project's size.
BATCH = 500


def _table(name: str) -> Any:
    return s.metadata.tables[name]


#: Tables whose rows have a search document of their own (``_sql/search.py``).
_SEARCHED = {"tasks": "task", "boards": "board", "cards": "card", "annotations": "annotation"}


class TransferRows(TxBase):
    def stream_rows(
        self, table: str, column: str, values: Sequence[Any], *, batch: int = BATCH
    ) -> Iterator[list[dict[str, Any]]]:
        t = _table(table)
        has_id = "id" in t.c and t.c.id.primary_key
        for start in range(0, len(values), batch):
            chunk = list(values[start : start + batch])
            if not has_id:
                # Rows without an id of their own go with a parent (a board's tags, a
                # card's versions): one parent chunk is one batch.
                query = select(t).where(t.c[column].in_(chunk))
                rows = [dict(m) for m in self.conn.execute(query).mappings()]
                if rows:
                    yield rows
                continue
            # Ids first (an index read), then whole rows a batch at a time by id:
            # paging with a sort over the whole chunk would read every row's JSON
            # again for each page.
            ids = [
                i
                for (i,) in self.conn.execute(
                    select(t.c.id).where(t.c[column].in_(chunk)).order_by(t.c.id)
                )
            ]
            for at in range(0, len(ids), batch):
                query = select(t).where(t.c.id.in_(ids[at : at + batch])).order_by(t.c.id)
                yield [dict(m) for m in self.conn.execute(query).mappings()]

    def count_rows(self, table: str, column: str, values: Sequence[Any]) -> int:
        t = _table(table)
        total = 0
        for start in range(0, len(values), BATCH):
            chunk = list(values[start : start + BATCH])
            total += int(
                self.conn.execute(
                    select(func.count()).select_from(t).where(t.c[column].in_(chunk))
                ).scalar_one()
            )
        return total

    def column_values(self, table: str, column: str, where: Mapping[str, Any]) -> list[Any]:
        t = _table(table)
        query = select(t.c[column]).where(and_(*(t.c[k] == v for k, v in where.items())))
        return [v for (v,) in self.conn.execute(query.order_by(t.c[column]))]

    def insert_rows(self, table: str, rows: Sequence[Mapping[str, Any]]) -> list[int]:
        self._write()
        if not rows:
            return []
        t = _table(table)
        if "id" in t.c and t.c.id.primary_key:
            stmt = insert(t).returning(t.c.id, sort_by_parameter_order=True)
            ids = [int(i) for (i,) in self.conn.execute(stmt, list(rows))]
        else:
            self.conn.execute(insert(t), list(rows))
            ids = []
        self._index_copied(table, rows, ids)
        return ids

    def _index_copied(
        self, table: str, rows: Sequence[Mapping[str, Any]], ids: Sequence[int]
    ) -> None:
        # Rows written here skip the family methods that mark search documents: mark
        # them, so the destination's search index holds the copy when it commits.
        kind = _SEARCHED.get(table)
        if kind is not None:
            for i in ids or [int(r["id"]) for r in rows if "id" in r]:
                self._touch_search(kind, i)
        elif table in ("task_refs", "task_events"):
            for task_id in {int(r["task_id"]) for r in rows}:
                self._touch_search("task", task_id)
        elif table == "board_tags" and rows:
            b = s.boards.c
            board = int(rows[0]["board_id"])
            ws = self.conn.execute(select(b.workspace_id).where(b.id == board)).scalar_one()
            self._touch_search("tags", ws)

    def update_rows(self, table: str, rows: Sequence[Mapping[str, Any]]) -> None:
        self._write()
        if not rows:
            return
        t = _table(table)
        names = [k for k in rows[0] if k != "id"]
        stmt = (
            update(t)
            .where(t.c.id == bindparam("_id"))
            .values({k: bindparam(f"_{k}") for k in names})
        )
        self.conn.execute(stmt, [{f"_{k}": v for k, v in r.items()} for r in rows])
        self._index_copied(table, rows, [])

    def transfer_map(
        self, source_ws: int, dest_ws: int, table: str, source_ids: Sequence[int]
    ) -> dict[int, tuple[int, bool]]:
        m = s.transfer_map.c
        found: dict[int, tuple[int, bool]] = {}
        keys = sorted(int(i) for i in source_ids)
        for start in range(0, len(keys), BATCH):
            part = keys[start : start + BATCH]
            # The range bounds the index scan whatever the planner thinks of the IN list
            # (its statistics lag behind a table this transaction is filling).
            rows = self.conn.execute(
                select(m.source_id, m.dest_id, m.merged).where(
                    m.source_workspace_id == source_ws,
                    m.dest_workspace_id == dest_ws,
                    m.tbl == table,
                    m.source_id.between(part[0], part[-1]),
                    m.source_id.in_(part),
                )
            )
            found.update({int(src): (int(dst), bool(merged)) for src, dst, merged in rows})
        return found

    def add_transfer_map(
        self, source_ws: int, dest_ws: int, table: str, pairs: Sequence[tuple[int, int, bool]]
    ) -> None:
        self._write()
        if not pairs:
            return
        self.conn.execute(
            insert(s.transfer_map),
            [
                {
                    "source_workspace_id": source_ws,
                    "dest_workspace_id": dest_ws,
                    "tbl": table,
                    "source_id": int(src),
                    "dest_id": int(dst),
                    "merged": merged,
                }
                for src, dst, merged in pairs
            ],
        )

    def blob_size(self, key: str) -> int | None:
        blobs = self.store.blobs
        if isinstance(blobs, FileBlobStore):
            digest = key.removeprefix("sha256:")
            path = Path(blobs.root) / digest[:2] / digest
            try:
                return os.stat(path).st_size
            except (FileNotFoundError, NotADirectoryError):
                return None
        found = self.conn.execute(select(s.blobs.c.size).where(s.blobs.c.key == key)).scalar()
        return None if found is None else int(found)

    def trash_task(self, task_id: int, *, reason: str, detail: Mapping[str, Any], by: str) -> bool:
        self._write()
        now = self.now()
        t = s.tasks.c
        row = self.conn.execute(
            update(s.tasks)
            .where(t.id == task_id, t.deleted_at.is_(None))
            .values(deleted_at=now)
            .returning(t.workspace_id)
        ).first()
        if row is None:
            return False
        self.conn.execute(
            insert(s.task_trash).values(
                workspace_id=row[0],
                task_id=task_id,
                reason=reason,
                detail=dict(detail),
                deleted_by=by,
                deleted_at=now,
            )
        )
        self._touch_search("task", task_id)
        return True

    def restore_task(self, task_id: int) -> bool:
        self._write()
        t, tr = s.tasks.c, s.task_trash.c
        done = self.conn.execute(
            update(s.tasks)
            .where(t.id == task_id, t.deleted_at.is_not(None))
            .values(deleted_at=None)
        )
        if done.rowcount == 0:
            return False
        self.conn.execute(
            update(s.task_trash)
            .where(tr.task_id == task_id, tr.restored_at.is_(None))
            .values(restored_at=self.now())
        )
        self._touch_search("task", task_id)
        return True

    def trashed_tasks(self, workspace_id: int) -> list[dict[str, Any]]:
        tr = s.task_trash.c
        rows = self.conn.execute(
            select(s.task_trash)
            .where(tr.workspace_id == workspace_id, tr.restored_at.is_(None))
            .order_by(tr.id)
        )
        return [dict(r._mapping) for r in rows]
