"""The SQL store: SQLite (file or in-memory) and PostgreSQL on SQLAlchemy Core.

Concurrency model:

- SQLite file: WAL journal, so readers never block the writer. A write
  transaction starts with ``BEGIN IMMEDIATE``, taking the database's single
  write lock up front; concurrent writers (threads or processes) queue on
  the busy timeout instead of failing halfway. That exclusivity is what
  serialises writers to a board, so ``lock_board`` only re-reads the row.
- In-memory SQLite: one shared connection for the store's whole life; a
  process-local lock lets one transaction use it at a time.
- PostgreSQL: a pooled psycopg 3 engine; write transactions run at READ
  COMMITTED and ``lock_board`` takes ``SELECT ... FOR UPDATE`` on the board
  row, so every read after the lock sees the other writers' commits. Read
  transactions run at REPEATABLE READ for one consistent snapshot.

Transactions do not nest: opening a second one on the same thread while one
is open raises :class:`StorageError` (pass the open ``tx`` along instead).
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import attrs
from sqlalchemy import (
    Connection,
    Engine,
    bindparam,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool

from layoutkit.storage import _migrations
from layoutkit.storage import _schema as s
from layoutkit.storage._blobs import BlobStore, FileBlobStore, TableBlobStore
from layoutkit.storage._errors import ConflictError, NotFoundError, StorageError
from layoutkit.storage._records import (
    ApiTokenRecord,
    AuditEventRecord,
    BoardRecord,
    CardBox,
    CardRecord,
    EdgeRecord,
    NewCard,
    NewEdge,
    NewQuestion,
    ProjectRecord,
    QuestionRecord,
    RequestKeyRecord,
    ShareLinkRecord,
    TokenKind,
    WorkspaceRecord,
    fold_tags,
)

Clock = Callable[[], datetime]

CARD_RETENTION = timedelta(days=30)
REQUEST_KEY_RETENTION = timedelta(hours=24)
SQLITE_BUSY_TIMEOUT_S = 30.0


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _utc(value: datetime | None) -> datetime | None:
    # SQLite hands back naive datetimes; we only ever write UTC.
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _token_hash(token: str) -> str:
    import hashlib

    # Tokens carry 256 random bits, so a plain digest is enough: there is no
    # dictionary to attack, and lookups stay a single indexed equality.
    return hashlib.sha256(token.encode()).hexdigest()


_CARD_PATCH_FIELDS = frozenset(
    {"kind", "payload", "x", "y", "w", "h", "layer", "parent_id", "children", "sized_by"}
)
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
_PROJECT_FIELDS = frozenset({"slug", "name", "meta", "archived"})
_EDGE_FIELDS = frozenset({"rel", "label", "from_region", "to_region"})


def _workspace(row: Any) -> WorkspaceRecord:
    return WorkspaceRecord(row.id, row.name, row.meta or {}, _utc(row.created_at))


def _project(row: Any) -> ProjectRecord:
    return ProjectRecord(
        id=row.id,
        workspace_id=row.workspace_id,
        slug=row.slug,
        name=row.name,
        meta=row.meta or {},
        archived=bool(row.archived),
        created_at=_utc(row.created_at),
        updated_at=_utc(row.updated_at),
    )


def _board(row: Any, tags: Sequence[str]) -> BoardRecord:
    return BoardRecord(
        id=row.id,
        workspace_id=row.workspace_id,
        slug=row.slug,
        project_id=row.project_id,
        subgroup=row.subgroup,
        tags=tuple(tags),
        theme=row.theme,
        archived=bool(row.archived),
        meta=row.meta or {},
        lanes=row.lanes or [],
        parent_board_id=row.parent_board_id,
        section=row.section,
        flow=row.flow,
        created_by=row.created_by,
        created_at=_utc(row.created_at),
        updated_at=_utc(row.updated_at),
    )


def _card(row: Any) -> CardRecord:
    # Positional unpacking: boards of thousands of cards make attribute
    # lookups on rows the hot spot. The column order is pinned below.
    *head, created_at, updated_at, deleted_at, deleted_by = row
    return CardRecord(*head, _utc(created_at), _utc(updated_at), _utc(deleted_at), deleted_by)


if [c.name for c in s.cards.c] != [f.name for f in attrs.fields(CardRecord)]:
    raise RuntimeError("cards table columns and CardRecord fields must stay in the same order")


def _edge(row: Any) -> EdgeRecord:
    return EdgeRecord(
        id=row.id,
        board_id=row.board_id,
        from_card=row.from_card,
        to_card=row.to_card,
        rel=row.rel,
        label=row.label,
        from_region=row.from_region,
        to_region=row.to_region,
        author=row.author,
        created_at=_utc(row.created_at),
    )


def _question(row: Any) -> QuestionRecord:
    return QuestionRecord(
        id=row.id,
        board_id=row.board_id,
        prompt=row.prompt,
        stakes=row.stakes,
        options=row.options or [],
        multi_select=bool(row.multi_select),
        kind=row.kind,
        pivot=bool(row.pivot),
        card_id=row.card_id,
        state=row.state,
        answers=row.answers,
        author=row.author,
        created_at=_utc(row.created_at),
        released_at=_utc(row.released_at),
        answered_at=_utc(row.answered_at),
    )


def _share_link(row: Any) -> ShareLinkRecord:
    return ShareLinkRecord(
        id=row.id,
        board_id=row.board_id,
        mode=row.mode,
        card_id=row.card_id,
        created_by=row.created_by,
        created_at=_utc(row.created_at),
        revoked_at=_utc(row.revoked_at),
    )


def _api_token(row: Any) -> ApiTokenRecord:
    return ApiTokenRecord(row.id, row.kind, row.name, _utc(row.created_at), _utc(row.revoked_at))


def _request_key(row: Any) -> RequestKeyRecord:
    return RequestKeyRecord(
        row.principal, row.key, row.operation, row.input_hash, row.receipt, _utc(row.created_at)
    )


def _audit(row: Any) -> AuditEventRecord:
    return AuditEventRecord(
        row.id, _utc(row.at), row.principal, row.action, row.board_id, row.detail or {}
    )


def _check_fields(fields: Mapping[str, Any], allowed: frozenset[str], what: str) -> None:
    unknown = set(fields) - allowed
    if unknown:
        raise ValueError(f"cannot change {sorted(unknown)} of a {what}; allowed: {sorted(allowed)}")


class SqlTx:
    """One open transaction (or read snapshot) of a :class:`SqlStore`.

    Every method reads or writes on the same connection; nothing is visible
    to others until the ``with store.transaction()`` block exits normally,
    and nothing is kept when it raises. Write methods raise
    :class:`StorageError` inside ``store.read()``.

    ``conn`` is the open SQLAlchemy connection, for later storage modules
    (tasks, annotations, reviews) that add their own tables and queries
    to the same transaction.
    """

    def __init__(self, store: SqlStore, conn: Connection, *, writable: bool) -> None:
        self.store = store
        self.conn = conn
        self.writable = writable
        self._pg = store.dialect == "postgresql"
        self._blobs: BlobStore | None = None

    # -- plumbing ---------------------------------------------------------

    def now(self) -> datetime:
        """The store clock's current time (UTC)."""
        return self.store.clock()

    def _write(self) -> None:
        if not self.writable:
            raise StorageError("this is a read-only transaction; use store.transaction()")

    def _insert_ignoring_conflict(self, table: Any) -> Any:
        # ON CONFLICT DO NOTHING instead of catching IntegrityError: on
        # PostgreSQL a failed statement aborts the whole transaction.
        dialect = postgresql if self._pg else sqlite
        return dialect.insert(table).on_conflict_do_nothing()

    @property
    def blobs(self) -> BlobStore:
        """The blob store bound to this transaction (table blobs roll back with it)."""
        if self._blobs is None:
            if isinstance(self.store.blobs, FileBlobStore):
                self._blobs = self.store.blobs
            else:
                self._blobs = TableBlobStore(
                    lambda: nullcontext(self.conn), self.store.clock, writable=self.writable
                )
        return self._blobs

    # -- workspaces -------------------------------------------------------

    def create_workspace(self, name: str, meta: Mapping[str, Any] | None = None) -> WorkspaceRecord:
        """Create a workspace; raises :class:`ConflictError` when ``name`` is taken."""
        self._write()
        stmt = self._insert_ignoring_conflict(s.workspaces).values(
            name=name, meta=dict(meta or {}), created_at=self.now()
        )
        row = self.conn.execute(stmt.returning(*s.workspaces.c)).first()
        if row is None:
            raise ConflictError(f"workspace {name!r} exists")
        return _workspace(row)

    def ensure_workspace(self, name: str = "default") -> WorkspaceRecord:
        """The workspace called ``name``, created if missing (race-safe)."""
        found = self.workspace_by_name(name)
        if found is not None:
            return found
        self._write()
        stmt = self._insert_ignoring_conflict(s.workspaces).values(
            name=name, meta={}, created_at=self.now()
        )
        self.conn.execute(stmt)
        found = self.workspace_by_name(name)
        assert found is not None
        return found

    def workspace(self, workspace_id: int) -> WorkspaceRecord | None:
        row = self.conn.execute(
            select(s.workspaces).where(s.workspaces.c.id == workspace_id)
        ).first()
        return None if row is None else _workspace(row)

    def workspace_by_name(self, name: str) -> WorkspaceRecord | None:
        row = self.conn.execute(select(s.workspaces).where(s.workspaces.c.name == name)).first()
        return None if row is None else _workspace(row)

    def workspaces(self) -> list[WorkspaceRecord]:
        rows = self.conn.execute(select(s.workspaces).order_by(s.workspaces.c.id))
        return [_workspace(r) for r in rows]

    # -- projects ---------------------------------------------------------

    def create_project(
        self,
        workspace_id: int,
        slug: str,
        *,
        name: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> ProjectRecord:
        """Create a project; raises :class:`ConflictError` when the slug is taken."""
        self._write()
        now = self.now()
        stmt = self._insert_ignoring_conflict(s.projects).values(
            workspace_id=workspace_id,
            slug=slug,
            name=name,
            meta=dict(meta or {}),
            archived=False,
            created_at=now,
            updated_at=now,
        )
        row = self.conn.execute(stmt.returning(*s.projects.c)).first()
        if row is None:
            raise ConflictError(f"project {slug!r} exists")
        return _project(row)

    def project(self, project_id: int) -> ProjectRecord | None:
        row = self.conn.execute(select(s.projects).where(s.projects.c.id == project_id)).first()
        return None if row is None else _project(row)

    def project_by_slug(self, workspace_id: int, slug: str) -> ProjectRecord | None:
        row = self.conn.execute(
            select(s.projects).where(
                s.projects.c.workspace_id == workspace_id, s.projects.c.slug == slug
            )
        ).first()
        return None if row is None else _project(row)

    def projects(self, workspace_id: int) -> list[ProjectRecord]:
        rows = self.conn.execute(
            select(s.projects)
            .where(s.projects.c.workspace_id == workspace_id)
            .order_by(s.projects.c.slug)
        )
        return [_project(r) for r in rows]

    def update_project(self, project_id: int, **fields: Any) -> ProjectRecord:
        """Change ``slug``, ``name``, ``meta`` (replaced whole) or ``archived``.

        Raises :class:`NotFoundError`, :class:`ConflictError` (slug taken) or
        ``ValueError`` (unknown field).
        """
        self._write()
        _check_fields(fields, _PROJECT_FIELDS, "project")
        if "slug" in fields:
            current = self.project(project_id)
            if current is None:
                raise NotFoundError(f"project {project_id}")
            other = self.project_by_slug(current.workspace_id, fields["slug"])
            if other is not None and other.id != project_id:
                raise ConflictError(f"project {fields['slug']!r} exists")
        row = self.conn.execute(
            update(s.projects)
            .where(s.projects.c.id == project_id)
            .values(**fields, updated_at=self.now())
            .returning(*s.projects.c)
        ).first()
        if row is None:
            raise NotFoundError(f"project {project_id}")
        return _project(row)

    def delete_project(self, project_id: int) -> bool:
        """Delete a project (its boards stay, unfiled). Returns whether it existed."""
        self._write()
        result = self.conn.execute(delete(s.projects).where(s.projects.c.id == project_id))
        return result.rowcount > 0

    # -- boards -----------------------------------------------------------

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
        """Create a board; tags are stored folded.

        Raises :class:`ConflictError` when the slug exists in the workspace.
        """
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
        return _board(row, folded)

    def board(self, board_id: int) -> BoardRecord | None:
        row = self.conn.execute(select(s.boards).where(s.boards.c.id == board_id)).first()
        return None if row is None else _board(row, self._tags_of([row.id])[row.id])

    def board_by_slug(self, workspace_id: int, slug: str) -> BoardRecord | None:
        row = self.conn.execute(
            select(s.boards).where(s.boards.c.workspace_id == workspace_id, s.boards.c.slug == slug)
        ).first()
        return None if row is None else _board(row, self._tags_of([row.id])[row.id])

    def lock_board(self, board_id: int) -> BoardRecord:
        """Serialise writers to this board until the transaction ends; returns it fresh.

        PostgreSQL takes the board row's lock (``FOR UPDATE``); on SQLite the
        write transaction already excludes every other writer. Raises
        :class:`NotFoundError` and, in a read transaction, :class:`StorageError`.
        """
        self._write()
        query = select(s.boards).where(s.boards.c.id == board_id)
        if self._pg:
            query = query.with_for_update()
        row = self.conn.execute(query).first()
        if row is None:
            raise NotFoundError(f"board {board_id}")
        return _board(row, self._tags_of([row.id])[row.id])

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
        """Boards of a workspace ordered by slug, filtered.

        A board must carry every tag of ``all_tags``, at least one of
        ``any_tags`` (when given) and none of ``without_tags``; tags are
        folded before matching. ``archived`` None means both.
        """
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
        return [_board(r, tags[r.id]) for r in rows]

    def board_slugs(self, workspace_id: int) -> list[str]:
        """Every board slug of a workspace (for did-you-mean suggestions)."""
        return list(
            self.conn.execute(
                select(s.boards.c.slug)
                .where(s.boards.c.workspace_id == workspace_id)
                .order_by(s.boards.c.slug)
            ).scalars()
        )

    def update_board(self, board_id: int, **fields: Any) -> BoardRecord:
        """Change board fields: slug, project_id, subgroup, theme, archived, meta,
        lanes, parent_board_id, section, flow (JSON fields are replaced whole;
        merge-patching is the caller's rule). Tags go through :meth:`set_board_tags`.

        Raises :class:`NotFoundError`, :class:`ConflictError` (slug taken) or
        ``ValueError`` (unknown field).
        """
        self._write()
        _check_fields(fields, _BOARD_FIELDS, "board")
        if "slug" in fields:
            current = self.board(board_id)
            if current is None:
                raise NotFoundError(f"board {board_id}")
            other = self.board_by_slug(current.workspace_id, fields["slug"])
            if other is not None and other.id != board_id:
                raise ConflictError(f"board {fields['slug']!r} exists")
        row = self.conn.execute(
            update(s.boards)
            .where(s.boards.c.id == board_id)
            .values(**fields, updated_at=self.now())
            .returning(*s.boards.c)
        ).first()
        if row is None:
            raise NotFoundError(f"board {board_id}")
        return _board(row, self._tags_of([row.id])[row.id])

    def set_board_tags(
        self, board_id: int, tags: Iterable[str], mode: Literal["add", "set"] = "set"
    ) -> tuple[str, ...]:
        """Replace (``set``) or extend (``add``) a board's tags; returns them folded, in order."""
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
        return tuple(result)

    def tags(self, workspace_id: int) -> list[tuple[str, int]]:
        """Every folded tag in the workspace with its number of boards, by tag."""
        rows = self.conn.execute(
            select(s.board_tags.c.tag, func.count())
            .join(s.boards, s.boards.c.id == s.board_tags.c.board_id)
            .where(s.boards.c.workspace_id == workspace_id)
            .group_by(s.board_tags.c.tag)
            .order_by(s.board_tags.c.tag)
        )
        return [(tag, int(n)) for tag, n in rows]

    def delete_board(self, board_id: int) -> bool:
        """Delete a board with everything on it. Returns whether it existed."""
        self._write()
        result = self.conn.execute(delete(s.boards).where(s.boards.c.id == board_id))
        return result.rowcount > 0

    # -- cards ------------------------------------------------------------

    def insert_cards(self, board_id: int, cards: Sequence[NewCard]) -> list[CardRecord]:
        """Insert cards in order (one multi-row statement); returns them with ids.

        Each gets the board's next ordinal (compose order), version 1 and the
        clock's time. Raises :class:`NotFoundError` for an unknown board.
        """
        self._write()
        if not cards:
            return []
        now = self.now()
        last = self.conn.execute(
            update(s.boards)
            .where(s.boards.c.id == board_id)
            .values(card_seq=s.boards.c.card_seq + len(cards), updated_at=now)
            .returning(s.boards.c.card_seq)
        ).scalar()
        if last is None:
            raise NotFoundError(f"board {board_id}")
        first = last - len(cards) + 1
        rows = [
            {
                "board_id": board_id,
                "ordinal": first + i,
                "kind": c.kind,
                "payload": c.payload,
                "x": float(c.x),
                "y": float(c.y),
                "w": float(c.w),
                "h": float(c.h),
                "layer": c.layer,
                "version": 1,
                "parent_id": c.parent_id,
                "children": c.children,
                "author": c.author,
                "sized_by": c.sized_by,
                "created_at": now,
                "updated_at": now,
                "deleted_at": None,
                "deleted_by": None,
            }
            for i, c in enumerate(cards)
        ]
        ids = self.conn.execute(
            insert(s.cards).returning(s.cards.c.id, sort_by_parameter_order=True), rows
        ).scalars()
        return [
            CardRecord(id=card_id, **row)  # type: ignore[arg-type]
            for card_id, row in zip(ids, rows, strict=True)
        ]

    def card(self, card_id: int) -> CardRecord | None:
        """One card by id, trashed or not."""
        row = self.conn.execute(select(s.cards).where(s.cards.c.id == card_id)).first()
        return None if row is None else _card(row)

    def cards_by_id(self, card_ids: Iterable[int]) -> list[CardRecord]:
        """The named cards that exist (trashed included), in the order of ``card_ids``."""
        ids = list(dict.fromkeys(card_ids))
        if not ids:
            return []
        found = {
            r.id: _card(r) for r in self.conn.execute(select(s.cards).where(s.cards.c.id.in_(ids)))
        }
        return [found[i] for i in ids if i in found]

    def cards(self, board_id: int, *, include_deleted: bool = False) -> list[CardRecord]:
        """A board's cards in created order; trashed ones only when asked."""
        query = select(s.cards).where(s.cards.c.board_id == board_id)
        if not include_deleted:
            query = query.where(s.cards.c.deleted_at.is_(None))
        rows = self.conn.execute(query.order_by(s.cards.c.ordinal, s.cards.c.id))
        return [_card(r) for r in rows]

    def card_boxes(self, board_id: int) -> list[CardBox]:
        """A board's live cards without payloads, in created order (cheaper than :meth:`cards`)."""
        c = s.cards.c
        rows = self.conn.execute(
            select(
                c.id,
                c.ordinal,
                c.kind,
                c.x,
                c.y,
                c.w,
                c.h,
                c.layer,
                c.version,
                c.parent_id,
                c.children,
                c.author,
                c.sized_by,
            )
            .where(c.board_id == board_id, c.deleted_at.is_(None))
            .order_by(c.ordinal, c.id)
        )
        return [CardBox(*r) for r in rows]

    def count_cards(self, board_id: int, *, include_deleted: bool = False) -> int:
        query = select(func.count()).select_from(s.cards).where(s.cards.c.board_id == board_id)
        if not include_deleted:
            query = query.where(s.cards.c.deleted_at.is_(None))
        return int(self.conn.execute(query).scalar_one())

    def update_cards(self, patches: Sequence[Mapping[str, Any]]) -> list[CardRecord]:
        """Apply patches ``{"id": n, <field>: value, ...}``; every patched card's
        version goes up by one. Fields: kind, payload (replaced whole), x, y, w,
        h, layer, parent_id, children, sized_by.

        Patches with the same field set go out as one executemany. Returns the
        updated cards in patch order. Raises ``ValueError`` for an unknown
        field and :class:`NotFoundError` for an unknown id (the caller's
        transaction then rolls back).
        """
        self._write()
        groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for patch in patches:
            fields = {k: v for k, v in patch.items() if k != "id"}
            _check_fields(fields, _CARD_PATCH_FIELDS, "card")
            key = tuple(sorted(fields))
            groups.setdefault(key, []).append({"_id": patch["id"], **fields})
        now = self.now()
        for key, rows in groups.items():
            stmt = (
                update(s.cards)
                .where(s.cards.c.id == bindparam("_id"))
                .values(
                    version=s.cards.c.version + 1,
                    updated_at=now,
                    **{name: bindparam(f"_{name}") for name in key},
                )
            )
            self.conn.execute(
                stmt, [{"_id": r["_id"], **{f"_{k}": r[k] for k in key}} for r in rows]
            )
        ids = [p["id"] for p in patches]
        found = self.cards_by_id(ids)
        if len(found) != len(set(ids)):
            missing = sorted(set(ids) - {c.id for c in found})
            raise NotFoundError(f"cards {missing}")
        return found

    def link_new_cards(self, links: Sequence[Mapping[str, Any]]) -> None:
        """Set ``parent_id`` and ``children`` of cards created in this transaction.

        Frames and their members are inserted in one batch before their ids
        are known; wiring them up afterwards is part of creating them, so the
        version stays at 1. Each link is ``{"id", "parent_id", "children"}``.
        """
        self._write()
        if not links:
            return
        stmt = (
            update(s.cards)
            .where(s.cards.c.id == bindparam("_id"))
            .values(parent_id=bindparam("_parent_id"), children=bindparam("_children"))
        )
        self.conn.execute(
            stmt,
            [
                {"_id": link["id"], "_parent_id": link["parent_id"], "_children": link["children"]}
                for link in links
            ],
        )

    def remove_cards(self, card_ids: Iterable[int], *, by: str) -> list[int]:
        """Soft-delete live cards (version +1, ``deleted_at`` now, ``deleted_by`` ``by``).

        Returns the ids actually trashed; already-trashed or unknown ids are skipped.
        """
        self._write()
        ids = list(dict.fromkeys(card_ids))
        if not ids:
            return []
        trashed = self.conn.execute(
            update(s.cards)
            .where(s.cards.c.id.in_(ids), s.cards.c.deleted_at.is_(None))
            .values(
                deleted_at=self.now(),
                deleted_by=by,
                version=s.cards.c.version + 1,
                updated_at=self.now(),
            )
            .returning(s.cards.c.id)
        ).scalars()
        return sorted(trashed)

    def restore_cards(self, card_ids: Iterable[int]) -> list[int]:
        """Bring trashed cards back (version +1). Returns the ids restored."""
        self._write()
        ids = list(dict.fromkeys(card_ids))
        if not ids:
            return []
        restored = self.conn.execute(
            update(s.cards)
            .where(s.cards.c.id.in_(ids), s.cards.c.deleted_at.is_not(None))
            .values(
                deleted_at=None,
                deleted_by=None,
                version=s.cards.c.version + 1,
                updated_at=self.now(),
            )
            .returning(s.cards.c.id)
        ).scalars()
        return sorted(restored)

    def trash(self, board_id: int, *, deleted_by: str | None = None) -> list[CardRecord]:
        """A board's trashed cards still within retention, newest first."""
        query = select(s.cards).where(
            s.cards.c.board_id == board_id, s.cards.c.deleted_at.is_not(None)
        )
        if deleted_by is not None:
            query = query.where(s.cards.c.deleted_by == deleted_by)
        rows = self.conn.execute(query.order_by(s.cards.c.deleted_at.desc(), s.cards.c.id))
        return [_card(r) for r in rows]

    def purge_deleted_cards(self, retention: timedelta = CARD_RETENTION) -> int:
        """Delete for good every card trashed longer than ``retention`` (30 days) ago.

        Their edges go with them; children and questions pointing at them
        lose the reference. Returns the number of cards purged.
        """
        self._write()
        cutoff = self.now() - retention
        result = self.conn.execute(
            delete(s.cards).where(s.cards.c.deleted_at.is_not(None), s.cards.c.deleted_at < cutoff)
        )
        return result.rowcount

    # -- edges ------------------------------------------------------------

    def insert_edges(self, board_id: int, new_edges: Sequence[NewEdge]) -> list[EdgeRecord]:
        """Insert wires in order; returns them with ids."""
        self._write()
        if not new_edges:
            return []
        now = self.now()
        rows = [
            {
                "board_id": board_id,
                "from_card": e.from_card,
                "to_card": e.to_card,
                "rel": e.rel,
                "label": e.label,
                "from_region": e.from_region,
                "to_region": e.to_region,
                "author": e.author,
                "created_at": now,
            }
            for e in new_edges
        ]
        ids = self.conn.execute(
            insert(s.edges).returning(s.edges.c.id, sort_by_parameter_order=True), rows
        ).scalars()
        return [EdgeRecord(id=i, **r) for i, r in zip(ids, rows, strict=True)]

    def edges(self, board_id: int, *, include_trashed_ends: bool = False) -> list[EdgeRecord]:
        """A board's wires in created order; by default only those whose two cards are live."""
        e = s.edges
        query = select(e).where(e.c.board_id == board_id)
        if not include_trashed_ends:
            live = select(s.cards.c.id).where(s.cards.c.deleted_at.is_(None))
            query = query.where(e.c.from_card.in_(live), e.c.to_card.in_(live))
        return [_edge(r) for r in self.conn.execute(query.order_by(e.c.id))]

    def update_edge(self, edge_id: int, **fields: Any) -> EdgeRecord:
        """Change rel, label, from_region or to_region. Raises :class:`NotFoundError`."""
        self._write()
        _check_fields(fields, _EDGE_FIELDS, "edge")
        row = self.conn.execute(
            update(s.edges).where(s.edges.c.id == edge_id).values(**fields).returning(*s.edges.c)
        ).first()
        if row is None:
            raise NotFoundError(f"edge {edge_id}")
        return _edge(row)

    def delete_edges(self, edge_ids: Iterable[int]) -> int:
        """Delete wires; returns how many existed."""
        self._write()
        ids = list(edge_ids)
        if not ids:
            return 0
        return self.conn.execute(delete(s.edges).where(s.edges.c.id.in_(ids))).rowcount

    # -- questions --------------------------------------------------------

    def insert_questions(
        self, board_id: int, new_questions: Sequence[NewQuestion]
    ) -> list[QuestionRecord]:
        """Stage questions on a board; returns them with ids, state ``staged``."""
        self._write()
        if not new_questions:
            return []
        now = self.now()
        rows = [
            {
                "board_id": board_id,
                "prompt": q.prompt,
                "stakes": q.stakes,
                "options": list(q.options),
                "multi_select": q.multi_select,
                "kind": q.kind,
                "pivot": q.pivot,
                "card_id": q.card_id,
                "state": "staged",
                "answers": None,
                "author": q.author,
                "created_at": now,
                "released_at": None,
                "answered_at": None,
            }
            for q in new_questions
        ]
        ids = self.conn.execute(
            insert(s.questions).returning(s.questions.c.id, sort_by_parameter_order=True), rows
        ).scalars()
        return [QuestionRecord(id=i, **r) for i, r in zip(ids, rows, strict=True)]

    def question(self, question_id: int) -> QuestionRecord | None:
        row = self.conn.execute(select(s.questions).where(s.questions.c.id == question_id)).first()
        return None if row is None else _question(row)

    def questions(self, board_id: int, *, state: str | None = None) -> list[QuestionRecord]:
        """A board's questions in asked order, optionally of one state."""
        query = select(s.questions).where(s.questions.c.board_id == board_id)
        if state is not None:
            query = query.where(s.questions.c.state == state)
        return [_question(r) for r in self.conn.execute(query.order_by(s.questions.c.id))]

    def answer_question(self, question_id: int, answers: Any) -> QuestionRecord:
        """Record an answer (state ``answered``; held until released). Raises :class:`NotFoundError`."""
        self._write()
        row = self.conn.execute(
            update(s.questions)
            .where(s.questions.c.id == question_id)
            .values(answers=answers, state="answered", answered_at=self.now())
            .returning(*s.questions.c)
        ).first()
        if row is None:
            raise NotFoundError(f"question {question_id}")
        return _question(row)

    def release_questions(self, board_id: int) -> list[QuestionRecord]:
        """Release every answered question of a board at once (the operator's Send).

        Returns the released questions in asked order.
        """
        self._write()
        ids = self.conn.execute(
            update(s.questions)
            .where(s.questions.c.board_id == board_id, s.questions.c.state == "answered")
            .values(state="released", released_at=self.now())
            .returning(s.questions.c.id)
        ).scalars()
        wanted = sorted(ids)
        if not wanted:
            return []
        rows = self.conn.execute(
            select(s.questions).where(s.questions.c.id.in_(wanted)).order_by(s.questions.c.id)
        )
        return [_question(r) for r in rows]

    def delete_questions(self, question_ids: Iterable[int]) -> int:
        self._write()
        ids = list(question_ids)
        if not ids:
            return 0
        return self.conn.execute(delete(s.questions).where(s.questions.c.id.in_(ids))).rowcount

    # -- share links ------------------------------------------------------

    def create_share_link(
        self,
        board_id: int,
        mode: Literal["view", "annotate"] = "view",
        *,
        card_id: int | None = None,
        created_by: str | None = None,
    ) -> tuple[ShareLinkRecord, str]:
        """Mint a share link; returns the record and its secret token (shown once).

        Only the token's hash is stored. Raises ``ValueError`` for a bad mode.
        """
        self._write()
        if mode not in ("view", "annotate"):
            raise ValueError(f"share mode must be view or annotate, not {mode!r}")
        token = "lks_" + secrets.token_urlsafe(32)
        values = {
            "id": "sh_" + secrets.token_hex(8),
            "board_id": board_id,
            "mode": mode,
            "card_id": card_id,
            "token_hash": _token_hash(token),
            "created_by": created_by,
            "created_at": self.now(),
            "revoked_at": None,
        }
        self.conn.execute(insert(s.share_links).values(**values))
        del values["token_hash"]
        return ShareLinkRecord(**values), token

    def share_link(self, link_id: str) -> ShareLinkRecord | None:
        row = self.conn.execute(select(s.share_links).where(s.share_links.c.id == link_id)).first()
        return None if row is None else _share_link(row)

    def share_links(self, board_id: int) -> list[ShareLinkRecord]:
        rows = self.conn.execute(
            select(s.share_links)
            .where(s.share_links.c.board_id == board_id)
            .order_by(s.share_links.c.created_at, s.share_links.c.id)
        )
        return [_share_link(r) for r in rows]

    def verify_share_token(self, token: str) -> ShareLinkRecord | None:
        """The live (unrevoked) link this token opens, or None."""
        row = self.conn.execute(
            select(s.share_links).where(
                s.share_links.c.token_hash == _token_hash(token),
                s.share_links.c.revoked_at.is_(None),
            )
        ).first()
        return None if row is None else _share_link(row)

    def revoke_share_link(self, link_id: str) -> bool:
        """Revoke a link; returns whether a live link was revoked."""
        self._write()
        result = self.conn.execute(
            update(s.share_links)
            .where(s.share_links.c.id == link_id, s.share_links.c.revoked_at.is_(None))
            .values(revoked_at=self.now())
        )
        return result.rowcount > 0

    # -- API tokens -------------------------------------------------------

    def create_api_token(self, kind: TokenKind, name: str) -> tuple[ApiTokenRecord, str]:
        """Issue a token for the owner, a user, an agent or a service; returns the record and the
        plain token (shown once; only its hash is kept). Raises ``ValueError`` for a bad kind.
        """
        self._write()
        if kind not in ("owner", "user", "agent", "service"):
            raise ValueError(f"token kind must be owner, user, agent or service, not {kind!r}")
        token = "lkt_" + secrets.token_urlsafe(32)
        now = self.now()
        token_id = self.conn.execute(
            insert(s.api_tokens)
            .values(kind=kind, name=name, token_hash=_token_hash(token), created_at=now)
            .returning(s.api_tokens.c.id)
        ).scalar_one()
        return ApiTokenRecord(token_id, kind, name, now, None), token

    def verify_api_token(self, token: str) -> ApiTokenRecord | None:
        """The live token record matching ``token``, or None."""
        row = self.conn.execute(
            select(s.api_tokens).where(
                s.api_tokens.c.token_hash == _token_hash(token),
                s.api_tokens.c.revoked_at.is_(None),
            )
        ).first()
        return None if row is None else _api_token(row)

    def api_tokens(self) -> list[ApiTokenRecord]:
        rows = self.conn.execute(select(s.api_tokens).order_by(s.api_tokens.c.id))
        return [_api_token(r) for r in rows]

    def revoke_api_token(self, token_id: int) -> bool:
        self._write()
        result = self.conn.execute(
            update(s.api_tokens)
            .where(s.api_tokens.c.id == token_id, s.api_tokens.c.revoked_at.is_(None))
            .values(revoked_at=self.now())
        )
        return result.rowcount > 0

    # -- request keys -----------------------------------------------------

    def request_key(self, principal: str, key: str) -> RequestKeyRecord | None:
        """The stored outcome of ``key`` for this principal, or None."""
        row = self.conn.execute(
            select(s.request_keys).where(
                s.request_keys.c.principal == principal, s.request_keys.c.key == key
            )
        ).first()
        return None if row is None else _request_key(row)

    def save_request_key(
        self,
        principal: str,
        key: str,
        *,
        operation: str,
        input_hash: str,
        receipt: Mapping[str, Any],
    ) -> RequestKeyRecord:
        """Remember an operation's receipt under ``key``.

        Raises :class:`ConflictError` when the principal already used the key
        (the transaction stays usable).
        """
        self._write()
        now = self.now()
        values = {
            "principal": principal,
            "key": key,
            "operation": operation,
            "input_hash": input_hash,
            "receipt": dict(receipt),
            "created_at": now,
        }
        stmt = self._insert_ignoring_conflict(s.request_keys).values(**values)
        if self.conn.execute(stmt.returning(s.request_keys.c.key)).first() is None:
            raise ConflictError(f"request key {key!r} already used")
        return RequestKeyRecord(**values)

    def purge_request_keys(self, keep: timedelta = REQUEST_KEY_RETENTION) -> int:
        """Forget request keys older than ``keep`` (24 hours); returns how many."""
        self._write()
        cutoff = self.now() - keep
        return self.conn.execute(
            delete(s.request_keys).where(s.request_keys.c.created_at < cutoff)
        ).rowcount

    # -- audit ------------------------------------------------------------

    def record_event(
        self,
        action: str,
        principal: str,
        *,
        board_id: int | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> AuditEventRecord:
        """Append an audit event stamped with the clock's time."""
        self._write()
        at = self.now()
        event_id = self.conn.execute(
            insert(s.audit_events)
            .values(
                at=at,
                principal=principal,
                action=action,
                board_id=board_id,
                detail=dict(detail or {}),
            )
            .returning(s.audit_events.c.id)
        ).scalar_one()
        return AuditEventRecord(event_id, at, principal, action, board_id, dict(detail or {}))

    def events(
        self,
        *,
        board_id: int | None = None,
        action: str | None = None,
        since: datetime | None = None,
        limit: int | None = None,
    ) -> list[AuditEventRecord]:
        """Audit events oldest first, filtered; ``limit`` keeps the newest ones."""
        a = s.audit_events
        query = select(a)
        if board_id is not None:
            query = query.where(a.c.board_id == board_id)
        if action is not None:
            query = query.where(a.c.action == action)
        if since is not None:
            query = query.where(a.c.at >= since)
        query = query.order_by(a.c.id.desc())
        if limit is not None:
            query = query.limit(limit)
        return [_audit(r) for r in reversed(self.conn.execute(query).all())]


class SqlStore:
    """A workspace store on one SQL database. Create it with :func:`open_store`."""

    def __init__(
        self,
        engine: Engine,
        *,
        url: str | None,
        clock: Clock,
        blobs_dir: Path | None,
        schema: str | None = None,
    ) -> None:
        self.engine = engine
        self.url = url
        self.clock = clock
        self.schema = schema
        self.dialect = engine.dialect.name
        self.memory = self.dialect == "sqlite" and blobs_dir is None
        # The in-memory database is one connection; only one transaction may
        # use it at a time.
        self._guard: threading.RLock | None = threading.RLock() if self.memory else None
        # SQLite lets one writer in at a time and makes the others poll with
        # growing sleeps; queueing this process's writers on a lock instead
        # keeps their wait short and fair (other processes still poll).
        self._writer: threading.Lock | None = (
            threading.Lock() if self.dialect == "sqlite" and not self.memory else None
        )
        self._local = threading.local()
        self.blobs: BlobStore = (
            FileBlobStore(blobs_dir)
            if blobs_dir is not None
            else TableBlobStore(self._short_write, clock)
        )

    def __repr__(self) -> str:
        return f"SqlStore({self.dialect}, {'memory' if self.memory else self.url!r})"

    @contextmanager
    def _open(self, *, writable: bool) -> Iterator[SqlTx]:
        if getattr(self._local, "open", False):
            raise StorageError("a transaction is already open on this thread; pass its tx along")
        self._local.open = True
        try:
            writer = self._writer if writable else None
            with (
                self._guard or nullcontext(),
                writer or nullcontext(),
                self.engine.connect() as conn,
            ):
                if self.dialect == "sqlite":
                    conn.execution_options(layoutkit_begin="IMMEDIATE" if writable else "DEFERRED")
                elif not writable:
                    conn.execution_options(isolation_level="REPEATABLE READ")
                conn.begin()
                tx = SqlTx(self, conn, writable=writable)
                try:
                    yield tx
                except BaseException:
                    conn.rollback()
                    raise
                if writable:
                    conn.commit()
                else:
                    conn.rollback()
        finally:
            self._local.open = False

    def transaction(self) -> AbstractContextManager[SqlTx]:
        """A write transaction: ``with store.transaction() as tx: ...``.

        Commits when the block ends normally; rolls everything back when it
        raises. Raises :class:`StorageError` when one is already open on this thread.
        """
        return self._open(writable=True)

    def read(self) -> AbstractContextManager[SqlTx]:
        """A read-only snapshot with the same ``tx`` read methods; never writes."""
        return self._open(writable=False)

    @contextmanager
    def _short_write(self) -> Iterator[Connection]:
        with self.transaction() as tx:
            yield tx.conn

    def schema_version(self) -> int:
        """The highest migration version applied to the database."""
        with self.read() as tx:
            return max(tx.conn.execute(select(s.schema_version.c.version)).scalars(), default=0)

    def close(self) -> None:
        """Release every pooled connection (an in-memory database is gone afterwards)."""
        self.engine.dispose()


def _sqlite_events(engine: Engine, *, wal: bool) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Hand transaction control to us (the driver's implicit BEGIN cannot
        # do BEGIN IMMEDIATE), then set per-connection pragmas.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
        if wal:
            cur.execute("PRAGMA journal_mode=WAL")
            # Durable at every checkpoint and safe against corruption in WAL
            # mode; skips an fsync per commit.
            cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        mode = conn.get_execution_options().get("layoutkit_begin", "DEFERRED")
        conn.exec_driver_sql(f"BEGIN {mode}")


def _migrate(engine: Engine, clock: Clock, schema: str | None) -> None:
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn.execution_options(layoutkit_begin="IMMEDIATE")
        with conn.begin():
            if engine.dialect.name == "postgresql":
                _migrations.lock_postgres(conn, schema or "public")
                if schema is not None:
                    conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))
            _migrations.apply(conn, clock())


def open_store(
    url: str | None = None,
    *,
    clock: Clock | None = None,
    schema: str | None = None,
    pool_size: int = 5,
) -> SqlStore:
    """Open (creating and migrating as needed) the store at ``url``.

    - ``None``, ``"sqlite://"`` or ``"sqlite:///:memory:"``: a private
      in-memory SQLite that lives as long as the store.
    - ``"sqlite:///path.db"``: a SQLite file in WAL mode; blobs go to
      ``path.db.blobs/``.
    - ``"postgresql://..."`` (or ``postgresql+psycopg://``): PostgreSQL via
      psycopg 3 with a connection pool of ``pool_size``; ``schema`` puts
      every table in that schema (created if missing).

    ``clock`` returns the current UTC time (tests inject one). Raises
    :class:`StorageError` for an unsupported URL.
    """
    clock = clock or _utc_now
    if url is None or url in ("sqlite://", "sqlite:///:memory:"):
        engine = create_engine(
            "sqlite://",
            poolclass=StaticPool,
            connect_args={"check_same_thread": False},
        )
        _sqlite_events(engine, wal=False)
        _migrate(engine, clock, None)
        return SqlStore(engine, url=None, clock=clock, blobs_dir=None)

    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if parsed.get_driver_name() not in ("pysqlite", ""):
            raise StorageError(f"unsupported SQLite driver in {url!r}; use sqlite:///path.db")
        path = Path(parsed.database or "")
        if not parsed.database:
            raise StorageError(f"no database file in {url!r}")
        path.parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            parsed.set(drivername="sqlite+pysqlite"),
            connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_S},
        )
        _sqlite_events(engine, wal=True)
        _migrate(engine, clock, None)
        return SqlStore(
            engine, url=url, clock=clock, blobs_dir=path.with_name(path.name + ".blobs")
        )
    if backend in ("postgresql", "postgres"):
        connect_args: dict[str, Any] = {}
        if schema is not None:
            if not schema.replace("_", "").isalnum():
                raise StorageError(f"schema name {schema!r} must be letters, digits and _")
            connect_args["options"] = f"-c search_path={schema}"
        engine = create_engine(
            parsed.set(drivername="postgresql+psycopg"),
            pool_size=pool_size,
            max_overflow=pool_size * 2,
            pool_pre_ping=True,
            connect_args=connect_args,
        )
        _migrate(engine, clock, schema)
        return SqlStore(engine, url=url, clock=clock, blobs_dir=None, schema=schema)
    raise StorageError(f"no storage backend for {url!r}; use sqlite:///path.db or postgresql://...")
