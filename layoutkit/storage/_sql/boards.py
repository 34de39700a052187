"""Boards and their tags (stored folded, in the order given)."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from sqlalchemy import Row, bindparam, delete, func, insert, select, update
from sqlalchemy.dialects.postgresql import aggregate_order_by

from layoutkit.storage import _schema as s
from layoutkit.storage._errors import ConflictError, NotFoundError
from layoutkit.storage._records import BoardRecord, BoardRevs, fold_tags
from layoutkit.storage._sql._base import TxBase, check_fields, in_list, record, utc

_BOARD_FIELDS = frozenset(
    {
        "slug",
        "project_id",
        "subgroup",
        "theme",
        "archived",
        "meta",
        "lanes",
        "parent_board_id",
        "section",
        "flow",
    }
)


@functools.cache
def _select_board(pg: bool) -> Any:
    """The board row with its tags in one read, in their order (one round trip
    fewer on every write, which reads its board first)."""
    t = s.board_tags.c
    if pg:
        tags = select(func.json_agg(aggregate_order_by(t.tag, t.position)))
        tags = tags.where(t.board_id == s.boards.c.id)
    else:
        ordered = (
            select(t.tag)
            .where(t.board_id == s.boards.c.id)
            .order_by(t.position)
            .correlate(s.boards)
            .subquery()
        )
        tags = select(func.json_group_array(ordered.c.tag))
    return select(s.boards, tags.scalar_subquery().label("tag_list"))


def _locked(query: Any, pg: bool, lock: bool) -> Any:
    # On SQLite the write transaction (BEGIN IMMEDIATE) already excludes every
    # other writer, so only PostgreSQL needs the row lock.
    return query.with_for_update() if lock and pg else query


@functools.cache
def _board_by_id(pg: bool, lock: bool) -> Any:
    return _locked(_select_board(pg).where(s.boards.c.id == bindparam("id")), pg, lock)


@functools.cache
def _boards_by_id(pg: bool) -> Any:
    # Search reads the boards of every page of hits with it (through the driver).
    return _select_board(pg).where(in_list(s.boards.c.id, pg))


@functools.cache
def _board_by_slug(pg: bool, lock: bool) -> Any:
    b = s.boards.c
    query = _select_board(pg).where(b.workspace_id == bindparam("ws"), b.slug == bindparam("slug"))
    return _locked(query, pg, lock)


@functools.cache
def _board_revs() -> Any:
    b = s.boards.c
    return select(b.created_at, b.card_seq, b.rev, b.edges_rev, b.purged_rev, b.flow).where(
        b.id == bindparam("id")
    )


class BoardRows(TxBase):
    def _tags_of(self, board_ids: Sequence[int]) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {b: [] for b in board_ids}
        if not board_ids:
            return out
        rows = self.conn.execute(
            select(s.board_tags.c.board_id, s.board_tags.c.tag)
            .where(s.board_tags.c.board_id.in_(board_ids))
            .order_by(s.board_tags.c.board_id, s.board_tags.c.position)
        )
        for board_id, tag in rows:
            out[board_id].append(tag)
        return out

    def _write_tags(self, board_id: int, tags: Sequence[str], start: int = 0) -> None:
        if tags:
            self.conn.execute(
                insert(s.board_tags),
                [
                    {"board_id": board_id, "tag": t, "position": start + i}
                    for i, t in enumerate(tags)
                ],
            )

    def _board(self, row: Row[Any] | None) -> BoardRecord | None:
        if row is None:
            return None
        return record(row, BoardRecord, tags=self._tags_of([row.id])[row.id])

    def _select_board(self) -> Any:
        return _select_board(self._pg)

    def _board_with_tags(self, row: Row[Any] | Mapping[str, Any] | None) -> BoardRecord | None:
        if row is None:
            return None
        found = getattr(row, "_mapping", row)["tag_list"]
        tags = json.loads(found) if isinstance(found, str) else found
        return record(row, BoardRecord, tags=tuple(tags or ()))

    def create_board(
        self,
        workspace_id: int,
        slug: str,
        *,
        project_id: int | None = None,
        subgroup: str | None = None,
        tags: Iterable[str] = (),
        theme: str | None = None,
        archived: bool = False,
        meta: Mapping[str, Any] | None = None,
        lanes: Sequence[Any] | None = None,
        parent_board_id: int | None = None,
        section: str | None = None,
        flow: str | None = None,
        created_by: str | None = None,
    ) -> BoardRecord:
        self._write()
        now = self.now()
        stmt = self._insert_ignoring_conflict(s.boards).values(
            workspace_id=workspace_id,
            slug=slug,
            project_id=project_id,
            subgroup=subgroup,
            theme=theme,
            archived=archived,
            meta=dict(meta or {}),
            lanes=list(lanes or []),
            parent_board_id=parent_board_id,
            section=section,
            flow=flow,
            created_by=created_by,
            card_seq=0,
            created_at=now,
            updated_at=now,
        )
        row = self.conn.execute(stmt.returning(*s.boards.c)).first()
        if row is None:
            raise ConflictError(f"board {slug!r} exists")
        folded = fold_tags(tags)
        self._write_tags(row.id, folded)
        self._touch_search("board", row.id)
        if folded:
            self._touch_search("tags", workspace_id)
        return record(row, BoardRecord, tags=folded)

    def board(self, board_id: int) -> BoardRecord | None:
        query = _board_by_id(self._pg, False)
        return self._board_with_tags(self.conn.execute(query, {"id": board_id}).first())

    def boards_by_id(self, board_ids: Iterable[int]) -> dict[int, BoardRecord]:
        ids = sorted(set(board_ids))
        if not ids:
            return {}
        rows = self.driver_mappings(_boards_by_id(self._pg), {"values": self.driver_list(ids)})
        return {b.id: b for b in map(self._board_with_tags, rows) if b is not None}

    def board_by_slug(
        self, workspace_id: int, slug: str, *, lock: bool = False
    ) -> BoardRecord | None:
        if lock:
            self._write()
        # Every call on a board finds it by its slug: through the driver.
        query = _board_by_slug(self._pg, lock)
        found = self.driver_mappings(query, {"ws": workspace_id, "slug": slug})
        return self._board_with_tags(found[0] if found else None)

    def board_revs(self, board_id: int) -> BoardRevs | None:
        found = self.driver_execute(_board_revs(), {"id": board_id})
        return BoardRevs(utc(found[0][0]), *found[0][1:]) if found else None

    def lock_board(self, board_id: int) -> BoardRecord:
        self._write()
        query = _board_by_id(self._pg, True)
        board = self._board_with_tags(self.conn.execute(query, {"id": board_id}).first())
        if board is None:
            raise NotFoundError(f"board {board_id}")
        return board

    def boards(
        self,
        workspace_id: int,
        *,
        project_id: int | None = None,
        all_tags: Iterable[str] = (),
        any_tags: Iterable[str] = (),
        without_tags: Iterable[str] = (),
        archived: bool | None = None,
        parent_board_id: int | None = None,
    ) -> list[BoardRecord]:
        t = s.board_tags
        query = select(s.boards).where(s.boards.c.workspace_id == workspace_id)
        if project_id is not None:
            query = query.where(s.boards.c.project_id == project_id)
        if archived is not None:
            query = query.where(s.boards.c.archived == archived)
        if parent_board_id is not None:
            query = query.where(s.boards.c.parent_board_id == parent_board_id)
        for tag in fold_tags(all_tags):
            query = query.where(
                select(t.c.board_id).where(t.c.board_id == s.boards.c.id, t.c.tag == tag).exists()
            )
        wanted = fold_tags(any_tags)
        if wanted:
            query = query.where(
                select(t.c.board_id)
                .where(t.c.board_id == s.boards.c.id, t.c.tag.in_(wanted))
                .exists()
            )
        unwanted = fold_tags(without_tags)
        if unwanted:
            query = query.where(
                ~select(t.c.board_id)
                .where(t.c.board_id == s.boards.c.id, t.c.tag.in_(unwanted))
                .exists()
            )
        rows = self.conn.execute(query.order_by(s.boards.c.slug)).all()
        tags = self._tags_of([r.id for r in rows])
        return [record(r, BoardRecord, tags=tags[r.id]) for r in rows]

    def board_slugs(self, workspace_id: int) -> list[str]:
        return list(
            self.conn.execute(
                select(s.boards.c.slug)
                .where(s.boards.c.workspace_id == workspace_id)
                .order_by(s.boards.c.slug)
            ).scalars()
        )

    def update_board(self, board_id: int, **fields: Any) -> BoardRecord:
        self._write()
        check_fields(fields, _BOARD_FIELDS, "board")
        if "slug" in fields:
            current = self.board(board_id)
            if current is None:
                raise NotFoundError(f"board {board_id}")
            other = self.board_by_slug(current.workspace_id, fields["slug"])
            if other is not None and other.id != board_id:
                raise ConflictError(f"board {fields['slug']!r} exists")
        board = self._board(
            self.conn.execute(
                update(s.boards)
                .where(s.boards.c.id == board_id)
                .values(**fields, updated_at=self.now())
                .returning(*s.boards.c)
            ).first()
        )
        if board is None:
            raise NotFoundError(f"board {board_id}")
        self._touch_search("board", board_id)
        return board

    def set_board_tags(
        self, board_id: int, tags: Iterable[str], mode: Literal["add", "set"] = "set"
    ) -> tuple[str, ...]:
        self._write()
        if (
            self.conn.execute(select(s.boards.c.id).where(s.boards.c.id == board_id)).first()
            is None
        ):
            raise NotFoundError(f"board {board_id}")
        current = self._tags_of([board_id])[board_id]
        folded = fold_tags(tags)
        if mode == "set":
            self.conn.execute(delete(s.board_tags).where(s.board_tags.c.board_id == board_id))
            self._write_tags(board_id, folded)
            result = folded
        elif mode == "add":
            extra = [t for t in folded if t not in current]
            self._write_tags(board_id, extra, start=len(current))
            result = current + extra
        else:
            raise ValueError(f"tags mode must be 'add' or 'set', not {mode!r}")
        self.conn.execute(
            update(s.boards).where(s.boards.c.id == board_id).values(updated_at=self.now())
        )
        self._touch_search("board", board_id)
        self._touch_tags_of(board_id)  # type: ignore[attr-defined]
        return tuple(result)

    def tags(self, workspace_id: int) -> list[tuple[str, int]]:
        rows = self.conn.execute(
            select(s.board_tags.c.tag, func.count())
            .join(s.boards, s.boards.c.id == s.board_tags.c.board_id)
            .where(s.boards.c.workspace_id == workspace_id)
            .group_by(s.board_tags.c.tag)
            .order_by(s.board_tags.c.tag)
        )
        return [(tag, int(n)) for tag, n in rows]

    def delete_board(self, board_id: int) -> bool:
        self._write()
        self._drop_board_from_search(board_id)  # type: ignore[attr-defined]
        result = self.conn.execute(delete(s.boards).where(s.boards.c.id == board_id))
        return result.rowcount > 0
