"""Cards (versioned, soft-deleted, purged after retention) and the wires between them."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any

import attrs
from sqlalchemy import (
    and_,
    bindparam,
    case,
    delete,
    exists,
    false,
    func,
    insert,
    null,
    select,
    type_coerce,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite

from layoutkit.errors import show_ids
from layoutkit.storage import _schema as s
from layoutkit.storage._errors import NotFoundError
from layoutkit.storage._records import (
    CardBox,
    CardPicture,
    CardRecord,
    CardVersionRecord,
    EdgeRecord,
    FaceRow,
    NewCard,
    NewEdge,
)
from layoutkit.storage._retention import CARD_RETENTION
from layoutkit.storage._sql._base import (
    JsonRows,
    TxBase,
    check_fields,
    columns,
    in_list,
    record,
    utc,
)

_CARD_PATCH_FIELDS = frozenset(
    {"kind", "payload", "x", "y", "w", "h", "layer", "parent_id", "children", "sized_by"}
)
_EDGE_FIELDS = frozenset({"rel", "label", "from_region", "to_region"})
#: Ids per IN list: well under SQLite's bound-parameter limit.
_IN_CHUNK = 900
#: The longest text a picture read takes of one payload field (``keys``).
FIELD_CHARS = 400
#: Patch fields that change how a card is drawn: a patch of any keeps the new version
#: (of w or h alone, only when the size differs from the latest kept one).
_DRAWN_FIELDS = frozenset({"kind", "payload", "w", "h"})
_VERSION_COLUMNS = ["card_id", "version", "kind", "payload", "w", "h", "created_at"]
#: The card columns a kept version copies, in the order of _VERSION_COLUMNS.
_VERSION_SOURCE = ["id", "version", "kind", "payload", "w", "h", "updated_at"]


def _card(row: Any) -> CardRecord:
    # Positional unpacking, not the name-based ``record``: boards of thousands
    # of cards make per-field lookups on rows the hot spot. The column order
    # is pinned below.
    *head, created_at, updated_at, deleted_at, deleted_by, rev = row
    return CardRecord(*head, utc(created_at), utc(updated_at), utc(deleted_at), deleted_by, rev)


#: A changed card row takes its board's rev, which the same statement's
#: transaction has just bumped (see ``CardRows._bump``).
_BOARD_REV = select(s.boards.c.rev).where(s.boards.c.id == s.cards.c.board_id).scalar_subquery()


def _boards_of_cards(ids: list[int]) -> Any:
    return select(s.cards.c.board_id).where(s.cards.c.id.in_(ids))


def _boards_of_edges(ids: list[int]) -> Any:
    return select(s.edges.c.board_id).where(s.edges.c.id.in_(ids))


_PICTURE_HEAD = [s.cards.c[f.name] for f in attrs.fields(CardPicture)[:12]]

if [c.name for c in s.cards.c] != [f.name for f in attrs.fields(CardRecord)]:
    raise RuntimeError("cards table columns and CardRecord fields must stay in the same order")


def _versions_of(which: Any, *, sized_only: bool = False) -> Any:
    """The insert that copies the drawn fields of the cards ``which`` selects, at their
    current version, into ``card_versions`` (see :meth:`CardRows._keep_versions`)."""
    c = s.cards.c
    query = select(*(c[k] for k in _VERSION_SOURCE)).where(which)
    if sized_only:
        kept, newer = s.card_versions.alias("kept"), s.card_versions.alias("newer")
        # Correlated by hand: nested two levels down, SQLAlchemy would otherwise
        # list ``cards`` in the subquery's own FROM and take the maximum over
        # every card of the database.
        latest = select(func.max(newer.c.version)).where(newer.c.card_id == c.id).correlate(s.cards)
        query = query.where(
            ~exists().where(
                kept.c.card_id == c.id,
                kept.c.version == latest.scalar_subquery(),
                kept.c.w == c.w,
                kept.c.h == c.h,
            )
        )
    return insert(s.card_versions).from_select(_VERSION_COLUMNS, query)


# The statements of every compose, built once (see _base): the ordinals a batch takes
# (bumping the board's sequence hands them out and, on PostgreSQL, takes the board
# row's write lock), its rows, their first versions, and a warm model's catch-up.
@functools.cache
def _take_ordinals() -> Any:
    b = s.boards.c
    return (
        update(s.boards)
        .where(b.id == bindparam("board"))
        .values(
            card_seq=b.card_seq + bindparam("count"),
            rev=b.rev + 1,
            updated_at=bindparam("now", type_=b.updated_at.type),
        )
        .returning(b.card_seq, b.rev)
    )


@functools.cache
def _cards_by_id(pg: bool) -> Any:
    # Search reads the cards of every page of hits with it (through the driver).
    return select(s.cards).where(in_list(s.cards.c.id, pg))


#: The columns a new card's row is written with (its id comes from the database).
_NEW_CARD_COLUMNS = tuple(c.name for c in s.cards.c if c.name != "id")


@functools.cache
def _insert_cards() -> Any:
    return insert(s.cards)


#: PostgreSQL's insert of a batch's rows, all in one statement (see JsonRows): it keeps
#: their first versions as _keep_new_versions does and hands back what _new_card_ids
#: reads, two round trips less.
_INSERT_CARDS_BATCH = JsonRows(
    "cards",
    _NEW_CARD_COLUMNS,
    returning=("id", "ordinal"),
    then=f"INSERT INTO card_versions ({', '.join(_VERSION_COLUMNS)}) "
    f"SELECT {', '.join(_VERSION_SOURCE)} FROM new",
)


@functools.cache
def _new_card_ids() -> Any:
    # The ordinals first..last were handed out to this batch alone (as for
    # _keep_new_versions): they name its rows.
    c = s.cards.c
    ordinals = c.ordinal.between(bindparam("first"), bindparam("last"))
    return select(c.id, c.ordinal).where(c.board_id == bindparam("board"), ordinals)


@functools.cache
def _keep_new_versions() -> Any:
    c = s.cards.c
    ordinals = c.ordinal.between(bindparam("first"), bindparam("last"))
    return _versions_of(and_(c.board_id == bindparam("board"), ordinals))


@functools.cache
def _card_changes() -> Any:
    c = s.cards.c
    return (
        select(s.cards)
        .where(c.board_id == bindparam("board"), c.rev > bindparam("since"))
        .order_by(c.ordinal, c.id)
    )


@functools.cache
def _live_card_ids(pg: bool) -> Any:
    return select(s.cards.c.id).where(in_list(s.cards.c.id, pg))


#: The columns of a stored face, in the order of :class:`FaceRow`'s fields.
_FACE_COLUMNS = tuple(f.name for f in attrs.fields(FaceRow))
#: What a newer face of a card replaces.
_FACE_UPDATED = ("rev", "code", "key", "svg")


@functools.cache
def _store_faces(pg: bool) -> Any:
    stmt = (postgresql if pg else sqlite).insert(s.card_faces)
    return stmt.on_conflict_do_update(
        index_elements=["card_id"],
        set_={k: stmt.excluded[k] for k in _FACE_UPDATED},
    )


#: PostgreSQL's upsert of a batch of faces in one statement (see JsonRows).
_STORE_FACES_BATCH = JsonRows(
    "card_faces",
    _FACE_COLUMNS,
    "ON CONFLICT (card_id) DO UPDATE SET "
    + ", ".join(f"{k} = excluded.{k}" for k in _FACE_UPDATED),
)


class CardRows(TxBase):
    def _bump(self, boards: Any, *, edges: bool = False, purged: bool = False) -> None:
        """Bump the rev of the boards selected by ``boards`` (an id or a subquery of ids)."""
        b = s.boards.c
        where = b.id == boards if isinstance(boards, int) else b.id.in_(boards)
        values: dict[str, Any] = {"rev": b.rev + 1}
        if edges:
            values["edges_rev"] = b.rev + 1
        if purged:
            values["purged_rev"] = b.rev + 1
        self.conn.execute(update(s.boards).where(where).values(**values))

    def _keep_versions(self, which: Any, *, sized_only: bool = False) -> None:
        """Copy the drawn fields of the cards ``which`` selects, at their current
        version, into ``card_versions``: on the server, so payloads are not sent twice.

        ``sized_only`` (a patch of w or h alone) skips the cards whose latest kept row
        has their size already: moves carry the size too, and most keep it.
        """
        self.conn.execute(_versions_of(which, sized_only=sized_only))

    def insert_cards(self, board_id: int, cards: Sequence[NewCard]) -> list[CardRecord]:
        self._write()
        if not cards:
            return []
        now = self.now()
        # Bumping the board's sequence hands out the ordinals and, on
        # PostgreSQL, takes the board row's write lock.
        # The three statements of every compose go through the driver (see
        # TxBase.driver_execute): SQLAlchemy's handling of them cost more than
        # the database took to run them.
        found = self.driver_execute(
            _take_ordinals(), {"board": board_id, "count": len(cards), "now": now}
        )
        if not found:
            raise NotFoundError(f"board {board_id}")
        ((last, rev),) = found
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
                "rev": rev,
            }
            for i, c in enumerate(cards)
        ]
        returned = self.driver_insert(_insert_cards(), rows, _NEW_CARD_COLUMNS, _INSERT_CARDS_BATCH)
        span = {"board": board_id, "first": first, "last": last}
        # Each row's ordinal is its own, so ids are matched by ordinal: as PostgreSQL's
        # batch hands them back, having kept the first versions too, or read after it.
        if returned is None:
            returned = self.driver_execute(_new_card_ids(), span)
            self.driver_execute(_keep_new_versions(), span)
        id_of = {ordinal: card_id for card_id, ordinal in returned}
        out = [
            CardRecord(id=id_of[row["ordinal"]], **row)  # type: ignore[arg-type]
            for row in rows
        ]
        for card in out:
            self._touch_search("card", card.id)
        return out

    def card(self, card_id: int) -> CardRecord | None:
        row = self.conn.execute(select(s.cards).where(s.cards.c.id == card_id)).first()
        return None if row is None else _card(row)

    def card_version(self, card_id: int, version: int) -> CardVersionRecord | None:
        v = s.card_versions.c
        row = self.conn.execute(
            select(s.card_versions)
            .where(v.card_id == card_id, v.version <= version)
            .order_by(v.version.desc())
            .limit(1)
        ).first()
        return None if row is None else record(row, CardVersionRecord)

    def card_versions(self, card_id: int, *, newest: int | None = None) -> list[CardVersionRecord]:
        v = s.card_versions.c
        query = select(s.card_versions).where(v.card_id == card_id)
        if newest is None:
            rows = list(self.conn.execute(query.order_by(v.version)))
        else:
            rows = list(self.conn.execute(query.order_by(v.version.desc()).limit(newest)))[::-1]
        return [record(r, CardVersionRecord) for r in rows]

    def cards_by_id(self, card_ids: Iterable[int]) -> list[CardRecord]:
        ids = list(dict.fromkeys(card_ids))
        if not ids:
            return []
        rows = self.driver_execute(_cards_by_id(self._pg), {"values": self.driver_list(ids)})
        found = {card.id: card for card in map(_card, rows)}
        return [found[i] for i in ids if i in found]

    def cards(self, board_id: int, *, include_deleted: bool = False) -> list[CardRecord]:
        query = select(s.cards).where(s.cards.c.board_id == board_id)
        if not include_deleted:
            query = query.where(s.cards.c.deleted_at.is_(None))
        rows = self.conn.execute(query.order_by(s.cards.c.ordinal, s.cards.c.id))
        return [_card(r) for r in rows]

    def card_boxes(
        self,
        board_id: int,
        *,
        kinds: Iterable[str] | None = None,
        within: tuple[float, float, float, float] | None = None,
    ) -> list[CardBox]:
        c = s.cards.c
        query = select(*(c[f.name] for f in attrs.fields(CardBox))).where(
            c.board_id == board_id, c.deleted_at.is_(None)
        )
        if kinds is not None:
            query = query.where(c.kind.in_(sorted(kinds)))
        if within is not None:
            x0, y0, x1, y1 = within
            query = query.where(c.x < x1, c.x + c.w > x0, c.y < y1, c.y + c.h > y0)
        rows = self.conn.execute(query.order_by(c.ordinal, c.id))
        return [CardBox(*r) for r in rows]

    def card_outline(
        self, board_id: int, *, within: tuple[float, float, float, float] | None = None
    ) -> list[tuple[int, str, float, float, float, float, int | None]]:
        c = s.cards.c
        query = select(c.id, c.kind, c.x, c.y, c.w, c.h, c.parent_id).where(
            c.board_id == board_id, c.deleted_at.is_(None)
        )
        if within is not None:
            x0, y0, x1, y1 = within
            query = query.where(c.x < x1, c.x + c.w > x0, c.y < y1, c.y + c.h > y0)
        # Plain tuples: a 50,000-card outline is read in a fraction of what records cost.
        return [tuple(r) for r in self.conn.execute(query.order_by(c.ordinal, c.id))]

    def card_extent(self, board_id: int) -> tuple[float, float, float, float] | None:
        c = s.cards.c
        row = self.conn.execute(
            select(func.min(c.x), func.min(c.y), func.max(c.x + c.w), func.max(c.y + c.h)).where(
                c.board_id == board_id, c.deleted_at.is_(None), c.parent_id.is_(None)
            )
        ).first()
        if row is None or row[0] is None:
            return None
        return (float(row[0]), float(row[1]), float(row[2]), float(row[3]))

    def card_pictures(
        self,
        board_id: int,
        *,
        code: str | None = None,
        card_ids: Iterable[int] | None = None,
        keys: Sequence[str] | None = None,
        whole: Iterable[str] = (),
        since: int | None = None,
    ) -> list[CardPicture]:
        c, f = s.cards.c, s.card_faces.c
        current = and_(f.rev == c.rev, f.code == code) if code is not None else false()
        # A current face stands in for the payload: the payload is not even read.
        payload: list[Any] = [type_coerce(case((current, None), else_=c.payload), s.Json)]
        if keys is not None:
            # The database takes the few fields out: decoding whole payloads was most
            # of the time of a picture of small cards.
            whole_kinds = c.kind.in_(sorted(whole))
            payload = [type_coerce(case((whole_kinds, c.payload), else_=None), s.Json)]
            payload += [func.substr(c.payload[k].as_string(), 1, FIELD_CHARS) for k in keys]
        if code is None:
            # No renderer code, no face to hand back: a PNG draws its faces itself, and
            # the stored SVG text would be most of what the rows carry.
            faces: list[Any] = [null(), null(), null()]
            source: Any = s.cards
        else:
            faces = [case((current, f.svg), else_=None), f.key, case((current, None), else_=f.svg)]
            source = s.cards.outerjoin(s.card_faces, f.card_id == c.id)
        query = (
            select(*_PICTURE_HEAD, *payload, *faces)
            .select_from(source)
            .where(c.board_id == board_id, c.deleted_at.is_(None))
            .order_by(c.ordinal, c.id)
        )
        if since is not None:
            query = query.where(c.rev > since)
        head = len(_PICTURE_HEAD)

        def picture(row: Any) -> CardPicture:
            if keys is None:
                return CardPicture(*row)
            fields = row[head + 1 : head + 1 + len(keys)]
            found = row[head]
            if found is None:
                found = {k: v for k, v in zip(keys, fields, strict=True) if v is not None}
            return CardPicture(*row[:head], found, *row[head + 1 + len(keys) :])

        if card_ids is None:
            # all(): one fetch of every row; iterating the result fetched them one by one.
            return [picture(row) for row in self.conn.execute(query).all()]
        ids = sorted(set(card_ids))
        out: list[CardPicture] = []
        for at in range(0, len(ids), _IN_CHUNK):
            chunk = query.where(c.id.in_(ids[at : at + _IN_CHUNK]))
            out.extend(picture(row) for row in self.conn.execute(chunk))
        return sorted(out, key=lambda p: (p.ordinal, p.id))

    def store_faces(self, faces: Sequence[FaceRow]) -> int:
        self._write()
        # Through the driver (see TxBase.driver_execute), the ids as one bind: every
        # write's faces are kept in the background, and on PostgreSQL SQLAlchemy's
        # handling of an IN list of a bind per card and of the upsert cost ten times
        # what it did on SQLite (0.65 against 0.05 ms a compose at 8 clients).
        wanted = sorted({face.card_id for face in faces})
        live = {
            card_id
            for (card_id,) in self.driver_execute(
                _live_card_ids(self._pg), {"values": self.driver_list(wanted)}
            )
        }
        rows = [attrs.asdict(face) for face in faces if face.card_id in live]
        # One statement may not upsert a row twice: faces naming a card twice go one
        # by one, the last one kept.
        once = len({row["card_id"] for row in rows}) == len(rows)
        if rows:
            self.driver_insert(
                _store_faces(self._pg), rows, _FACE_COLUMNS, _STORE_FACES_BATCH if once else None
            )
        return len(rows)

    def card_changes(self, board_id: int, since: int) -> list[CardRecord]:
        # Every write reads the cards the previous one wrote (see BoardModels):
        # through the driver.
        rows = self.driver_execute(_card_changes(), {"board": board_id, "since": since})
        return [_card(r) for r in rows]

    def count_cards(self, board_id: int, *, include_deleted: bool = False) -> int:
        query = select(func.count()).select_from(s.cards).where(s.cards.c.board_id == board_id)
        if not include_deleted:
            query = query.where(s.cards.c.deleted_at.is_(None))
        return int(self.conn.execute(query).scalar_one())

    def update_cards(self, patches: Sequence[Mapping[str, Any]]) -> list[CardRecord]:
        self._write()
        # Patches with the same field set go out as one executemany.
        groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for patch in patches:
            fields = {k: v for k, v in patch.items() if k != "id"}
            check_fields(fields, _CARD_PATCH_FIELDS, "card")
            key = tuple(sorted(fields))
            groups.setdefault(key, []).append({"_id": patch["id"], **fields})
            if "payload" in fields or "kind" in fields:
                self._touch_search("card", patch["id"])
        now = self.now()
        if patches:
            self._bump(_boards_of_cards([p["id"] for p in patches]))
        for key, rows in groups.items():
            stmt = (
                update(s.cards)
                .where(s.cards.c.id == bindparam("_id"))
                .values(
                    version=s.cards.c.version + 1,
                    rev=_BOARD_REV,
                    updated_at=now,
                    **{name: bindparam(f"_{name}") for name in key},
                )
            )
            self.conn.execute(
                stmt, [{"_id": r["_id"], **{f"_{k}": r[k] for k in key}} for r in rows]
            )
            if _DRAWN_FIELDS.intersection(key):
                drawn = sorted({r["_id"] for r in rows})
                sized_only = not {"kind", "payload"}.intersection(key)
                for at in range(0, len(drawn), _IN_CHUNK):
                    chunk = s.cards.c.id.in_(drawn[at : at + _IN_CHUNK])
                    self._keep_versions(chunk, sized_only=sized_only)
        ids = [p["id"] for p in patches]
        found = self.cards_by_id(ids)
        if len(found) != len(set(ids)):
            missing = sorted(set(ids) - {c.id for c in found})
            raise NotFoundError(f"cards {show_ids(missing)}")
        return found

    def link_new_cards(self, links: Sequence[Mapping[str, Any]]) -> None:
        # Frames and their members are inserted in one batch before their ids
        # are known; wiring them up is part of creating them, so no version bump.
        self._write()
        if not links:
            return
        self._bump(_boards_of_cards([link["id"] for link in links]))
        stmt = (
            update(s.cards)
            .where(s.cards.c.id == bindparam("_id"))
            .values(
                parent_id=bindparam("_parent_id"), children=bindparam("_children"), rev=_BOARD_REV
            )
        )
        self.conn.execute(
            stmt,
            [
                {"_id": link["id"], "_parent_id": link["parent_id"], "_children": link["children"]}
                for link in links
            ],
        )

    def remove_cards(self, card_ids: Iterable[int], *, by: str) -> list[int]:
        self._write()
        ids = list(dict.fromkeys(card_ids))
        if not ids:
            return []
        self._bump(_boards_of_cards(ids))
        trashed = self.conn.execute(
            update(s.cards)
            .where(s.cards.c.id.in_(ids), s.cards.c.deleted_at.is_(None))
            .values(
                deleted_at=self.now(),
                deleted_by=by,
                rev=_BOARD_REV,
                version=s.cards.c.version + 1,
                updated_at=self.now(),
            )
            .returning(s.cards.c.id)
        ).scalars()
        out = sorted(trashed)
        for card_id in out:
            self._touch_search("card", card_id)
        return out

    def restore_cards(self, card_ids: Iterable[int]) -> list[int]:
        self._write()
        ids = list(dict.fromkeys(card_ids))
        if not ids:
            return []
        self._bump(_boards_of_cards(ids))
        restored = self.conn.execute(
            update(s.cards)
            .where(s.cards.c.id.in_(ids), s.cards.c.deleted_at.is_not(None))
            .values(
                deleted_at=None,
                deleted_by=None,
                rev=_BOARD_REV,
                version=s.cards.c.version + 1,
                updated_at=self.now(),
            )
            .returning(s.cards.c.id)
        ).scalars()
        out = sorted(restored)
        for card_id in out:
            self._touch_search("card", card_id)
        return out

    def trash(self, board_id: int, *, deleted_by: str | None = None) -> list[CardRecord]:
        query = select(s.cards).where(
            s.cards.c.board_id == board_id, s.cards.c.deleted_at.is_not(None)
        )
        if deleted_by is not None:
            query = query.where(s.cards.c.deleted_by == deleted_by)
        rows = self.conn.execute(query.order_by(s.cards.c.deleted_at.desc(), s.cards.c.id))
        return [_card(r) for r in rows]

    def purge_deleted_cards(self, retention: timedelta = CARD_RETENTION) -> int:
        self._write()
        cutoff = self.now() - retention
        expired = (s.cards.c.deleted_at.is_not(None), s.cards.c.deleted_at < cutoff)
        # A purged row leaves nothing for a warm model to read, and its edges
        # go with it: models of these boards reload.
        self._bump(select(s.cards.c.board_id).where(*expired), edges=True, purged=True)
        result = self.conn.execute(delete(s.cards).where(*expired))
        return result.rowcount

    def insert_edges(self, board_id: int, new_edges: Sequence[NewEdge]) -> list[EdgeRecord]:
        self._write()
        if not new_edges:
            return []
        self._bump(board_id, edges=True)
        now = self.now()
        rows = [columns(e, board_id=board_id, created_at=now) for e in new_edges]
        ids = self.conn.execute(
            insert(s.edges).returning(s.edges.c.id, sort_by_parameter_order=True), rows
        ).scalars()
        return [EdgeRecord(id=i, **r) for i, r in zip(ids, rows, strict=True)]

    def edges(self, board_id: int, *, include_trashed_ends: bool = False) -> list[EdgeRecord]:
        e = s.edges
        query = select(e).where(e.c.board_id == board_id)
        if not include_trashed_ends:
            live = select(s.cards.c.id).where(s.cards.c.deleted_at.is_(None))
            query = query.where(e.c.from_card.in_(live), e.c.to_card.in_(live))
        return [record(r, EdgeRecord) for r in self.conn.execute(query.order_by(e.c.id))]

    def update_edge(self, edge_id: int, **fields: Any) -> EdgeRecord:
        self._write()
        check_fields(fields, _EDGE_FIELDS, "edge")
        self._bump(_boards_of_edges([edge_id]), edges=True)
        row = self.conn.execute(
            update(s.edges).where(s.edges.c.id == edge_id).values(**fields).returning(*s.edges.c)
        ).first()
        if row is None:
            raise NotFoundError(f"edge {edge_id}")
        return record(row, EdgeRecord)

    def delete_edges(self, edge_ids: Iterable[int]) -> int:
        self._write()
        ids = list(edge_ids)
        if not ids:
            return 0
        self._bump(_boards_of_edges(ids), edges=True)
        return self.conn.execute(delete(s.edges).where(s.edges.c.id.in_(ids))).rowcount
