"""The search index: one document per indexed row, rewritten by the write that changed it.

Writers mark what they changed (:meth:`SearchRows._touch_search`); the
transaction rewrites those documents and the vocabulary counts just before
it commits (:meth:`SearchRows.flush_search_index`), so the index is current
in the same transaction as the write and a rolled-back write leaves it as it
was. Reading a row once per transaction, however many writes touched it,
keeps a compose of a hundred cards at a hundred document writes.

Full text: SQLite FTS5 ``search_fts`` over ``search_docs`` (triggers keep it
in step with the rows), PostgreSQL a GIN index over the stored :data:`PG_TSVECTOR`
and one over the titles of task documents alone (:data:`PG_TITLE_TSVECTOR`).
Both read the same already-folded words (``layoutkit/search_text.py``), and
every query word matches as a prefix of an indexed word.
"""

from __future__ import annotations

import functools
import json
import math
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import chain
from typing import Any, NamedTuple

from sqlalchemy import (
    Float,
    Integer,
    bindparam,
    case,
    delete,
    func,
    literal,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import aggregate_order_by

from layoutkit.search_text import (
    CARD_GROUPS,
    COMMENT_ACTION,
    SESSION_SUBGROUP,
    annotation_parts,
    board_parts,
    card_parts,
    index_text,
    is_vocabulary_word,
    task_document,
    task_parts,
    tokens,
)
from layoutkit.storage import _schema as s
from layoutkit.storage._records import SearchDocHit, SearchTaskRef, SearchTaskRow
from layoutkit.storage._sql._base import DriverSql, JsonRows, TxBase, in_list

#: The weighted tsvector PostgreSQL indexes and ranks: migration 0014 stores it as the
#: generated column ``search_docs.search_tsv`` and puts the GIN index on that column.
PG_TSVECTOR = (
    "(setweight(to_tsvector('simple'::regconfig, title), 'A') || "
    "setweight(to_tsvector('simple'::regconfig, body), 'D'))"
)
#: The unweighted tsvector of a document's title alone. Migration 0022 puts a GIN index
#: (``_schema.TASK_TITLE_INDEX``) on it for task documents, which the resolver's title
#: matches scan: the index of :data:`PG_TSVECTOR` holds bodies too, so a common word
#: brought every document whose body holds it into the scan. A query must spell the
#: expression exactly so (``title`` unqualified) for the planner to take the index.
PG_TITLE_TSVECTOR = "to_tsvector('simple'::regconfig, title)"
#: Every group a search document is indexed in (the document builders below).
_INDEXED_GROUPS = frozenset(
    {"tasks", "drafts", "boards", "sessions", "cards", *CARD_GROUPS.values(), "tags", "annotations"}
)
#: Groups few documents are in: a query that leaves out only these reads their rows too.
_FEW_ROWS_GROUPS = frozenset({"drafts"})
#: bm25 column weights on SQLite: a word in the title counts ten times one in the body.
_BM25 = "bm25(search_fts, 10.0, 1.0)"
_IN_CHUNK = 500
#: A title match's index scan takes the rarest group of words and those at most this
#: many times as common: a row the scan brings costs the whole query's check on it,
#: about as much as twenty document ids of a common word in the index.
_RARE_SPREAD = 20


class _Doc(NamedTuple):
    """A document as ``search_docs`` stores it, its fields in the table's column order:
    a new one is inserted as it is."""

    workspace_id: int
    kind: str
    subject: str
    grp: str
    board_id: int | None
    title: str
    body: str


def _chunks(values: Sequence[Any]) -> Iterable[Sequence[Any]]:
    for at in range(0, len(values), _IN_CHUNK):
        yield values[at : at + _IN_CHUNK]


_WORD_COLUMNS = ("workspace_id", "word", "first", "length", "docs")
#: A word already counted adds the new documents to its count.
_ADD_WORD_COUNTS = (
    "ON CONFLICT (workspace_id, word) DO UPDATE SET docs = search_words.docs + excluded.docs"
)
#: The vocabulary's count upsert, positional binds, through the driver on both
#: backends (SQLAlchemy's handling of it cost more than the database took); on
#: PostgreSQL a flush's words go in one statement (see JsonRows).
_UPSERT_WORDS = DriverSql(
    *(
        f"INSERT INTO search_words ({', '.join(_WORD_COLUMNS)}) "
        f"VALUES ({', '.join([bind] * 5)}) {_ADD_WORD_COUNTS}"
        for bind in ("?", "%s")
    )
)
_UPSERT_WORDS_BATCH = JsonRows("search_words", _WORD_COLUMNS, _ADD_WORD_COUNTS)


# What every flush of a card write reads: built once (see _base).
@functools.cache
def _doc_ids() -> DriverSql:
    d = s.search_docs.c
    query = [
        select(d.id).where(
            # Every document's workspace exists (the foreign key): naming them all
            # changes no answer, and lets the unique index (workspace, kind, subject)
            # find the rows. Without it the lookup read the whole index, every
            # workspace's documents, on every write.
            d.workspace_id.in_(select(s.workspaces.c.id)),
            d.kind == bindparam("kind"),
            in_list(d.subject, pg),
        )
        for pg in (False, True)
    ]
    return DriverSql.core(*query)


#: A new document's row from its :class:`_Doc` (positional binds, in its field order),
#: through the driver on both backends (SQLAlchemy's per-row parameter handling was a
#: fifth of an index build on SQLite); on PostgreSQL a flush's documents go in one
#: statement (see JsonRows).
_INSERT_DOCS = DriverSql(
    f"INSERT INTO search_docs ({', '.join(_Doc._fields)}) VALUES ({', '.join('?' * 7)})",
    f"INSERT INTO search_docs ({', '.join(_Doc._fields)}) VALUES ({', '.join(['%s'] * 7)})",
)
_INSERT_DOCS_BATCH = JsonRows("search_docs", _Doc._fields)


@functools.cache
def _card_rows() -> DriverSql:
    c, b = s.cards.c, s.boards.c
    query = [
        select(c.id, c.kind, c.payload, c.board_id, b.workspace_id)
        .join(s.boards, b.id == c.board_id)
        .where(in_list(c.id, pg), c.deleted_at.is_(None))
        .order_by(c.id)
        for pg in (False, True)
    ]
    return DriverSql.core(*query)


@functools.cache
def _task_doc_rows() -> DriverSql:
    """The live tasks among ``values`` with the columns their documents are made of
    (the others hold JSON whose decoding was a fifth of an index build)."""
    t = s.tasks.c
    query = [
        select(*(t[name] for name in _TASK_COLUMNS))
        .where(in_list(t.id, pg), t.deleted_at.is_(None))
        .order_by(t.id)
        for pg in (False, True)
    ]
    return DriverSql.core(*query)


@functools.cache
def _task_doc_refs() -> DriverSql:
    r = s.task_refs.c
    query = [
        select(r.task_id, r.kind, r.ref, r.meta).where(in_list(r.task_id, pg)).order_by(r.id)
        for pg in (False, True)
    ]
    return DriverSql.core(*query)


# What every search query sends, built once per dialect (see _base): building the
# statements anew, and the key SQLAlchemy finds their compiled form by, cost more
# than SQLite took to run them.


@functools.cache
def _search_query(pg: bool, groups: int) -> DriverSql:
    """The grouped full-text query of :meth:`SearchRows.search_index` for ``groups``
    groups, each group name its own plain bind: on PostgreSQL the best ``:per`` rows
    of each group, best first, groups in order; on SQLite every matching row, in no
    order (:func:`_best_per_group` picks the same rows in the same order), and with
    ``groups`` 0 the rows of every group (:func:`_best_per_group` keeps those asked for)."""
    names = ", ".join(f":g{i}" for i in range(groups))
    if not pg:
        # A window over the rows cost SQLite more than reading them all and picking the
        # best in Python, even for a query of hundreds of rows (20k tasks, two words:
        # 0.40 -> 0.29 ms at the median, 2.6 -> 2.4 ms above 200 rows).
        return DriverSql.named(
            f"SELECT d.id, d.kind, d.subject, d.grp, d.board_id, -{_BM25} AS score "
            # the text match stays the outer loop (see _task_title_matches)
            "FROM search_fts CROSS JOIN search_docs d ON d.id = search_fts.rowid "
            "WHERE search_fts MATCH :q AND d.workspace_id = :ws"
            + (f" AND d.grp IN ({names})" if groups else "")
        )
    inner = (
        "SELECT d.id, d.kind, d.subject, d.grp, d.board_id, "
        "ts_rank(d.search_tsv, q) AS score "
        "FROM search_docs d, to_tsquery('simple'::regconfig, :q) q "
        f"WHERE d.workspace_id = :ws AND d.grp IN ({names}) AND d.search_tsv @@ q"
    )
    return DriverSql.named(
        "SELECT id, kind, subject, grp, board_id, score FROM ("
        "SELECT m.*, ROW_NUMBER() OVER (PARTITION BY grp ORDER BY score DESC, id) AS n "
        f"FROM ({inner}) m) ranked WHERE n <= :per ORDER BY grp, n"
    )


@functools.cache
def _group_binds(groups: tuple[str, ...]) -> dict[str, str]:
    """The binds ``g0``, ``g1``... of :func:`_search_query` naming ``groups`` (a few
    sets of groups, asked for on every search)."""
    return {f"g{i}": group for i, group in enumerate(groups)}


def _rank(row: tuple[Any, ...]) -> tuple[float, int]:
    # A hit row is (id, kind, subject, grp, board_id, score): score descending, then id.
    return (-row[5], row[0])


def _best_per_group(
    rows: Iterable[tuple[Any, ...]], per: int, groups: Collection[str]
) -> list[tuple[Any, ...]]:
    """The best ``per`` of ``rows`` in each of ``groups``, groups in order, best first
    (score descending, then id): what the window of PostgreSQL's query keeps, in its order."""
    by_group: dict[str, list[tuple[Any, ...]]] = {}
    for row in rows:
        group = row[3]
        if group in by_group:
            by_group[group].append(row)
        else:
            by_group[group] = [row]
    out: list[tuple[Any, ...]] = []
    for group in sorted(by_group):
        if group not in groups:
            continue
        found = by_group[group]
        # Sorted whole: heapq.nsmallest took longer for the few hundred rows of a group.
        found.sort(key=_rank)
        out += found[:per]
    return out


@functools.cache
def _vocabulary_counts() -> DriverSql:
    w = s.search_words.c
    query = [
        select(w.word, w.docs).where(w.workspace_id == bindparam("ws"), in_list(w.word, pg))
        for pg in (False, True)
    ]
    return DriverSql.core(*query)


@functools.cache
def _vocabulary_word() -> DriverSql:
    w = s.search_words.c
    query = select(w.docs).where(w.workspace_id == bindparam("ws"), w.word == bindparam("word"))
    return DriverSql.core(query, query)


@functools.cache
def _vocabulary_longer() -> DriverSql:
    w = s.search_words.c
    query = (
        select(w.word)
        .where(
            w.workspace_id == bindparam("ws"),
            w.first == bindparam("first"),
            w.length > bindparam("length"),
            w.word.like(bindparam("like")),
        )
        .limit(1)
    )
    return DriverSql.core(query, query)


@functools.cache
def _vocabulary_near() -> DriverSql:
    w = s.search_words.c
    query = select(w.word, w.docs).where(
        w.workspace_id == bindparam("ws"),
        w.first == bindparam("first"),
        w.length.between(bindparam("shortest"), bindparam("longest")),
        w.docs >= bindparam("min_docs"),
    )
    return DriverSql.core(query, query)


@functools.cache
def _prefix_docs() -> DriverSql:
    """PostgreSQL: how many documents hold a vocabulary word each token begins
    (summed over the words, so a document holding two counts twice)."""
    return DriverSql.named(
        "SELECT p.token, COALESCE(SUM(w.docs), 0) "
        "FROM unnest(CAST(:values AS TEXT[])) AS p(token) LEFT JOIN search_words w "
        "ON w.workspace_id = :ws AND w.first = left(p.token, 1) "
        "AND w.length >= length(p.token) AND left(w.word, length(p.token)) = p.token "
        "GROUP BY p.token"
    )


def _pg_title_query(
    groups: Sequence[Sequence[Sequence[str]]], match: str, weight: str = "A"
) -> str:
    """The tsquery of a title match: a word of every group (``all``) or of some
    group (``any``), each spelling all its tokens, each token a title word's start.
    ``weight`` ``A`` reads the title's words in :data:`PG_TSVECTOR`; empty, every
    word of :data:`PG_TITLE_TSVECTOR` (the title alone)."""
    join = " & " if match == "all" else " | "
    return join.join(
        "(" + " | ".join("(" + " & ".join(f"{t}:*{weight}" for t in sp) + ")" for sp in group) + ")"
        for group in groups
    )


@functools.cache
def _task_hit_rows(live: bool) -> DriverSql:
    """Tasks by id with what their hits show: the text columns, the project's slug,
    every ref version and every comment's detail, oldest first, aggregated per task
    (one read for a page of hits, where a read per table took four)."""
    return DriverSql.core(_task_hit_query(False, live), _task_hit_query(True, live))


def _task_hit_query(pg: bool, live: bool) -> Any:
    t, r, e, p = s.tasks.c, s.task_refs.c, s.task_events.c, s.projects.c
    project = select(p.slug).where(p.id == t.project_id).scalar_subquery()
    if pg:
        refs = select(
            func.json_agg(aggregate_order_by(func.json_build_array(r.kind, r.ref, r.meta), r.id))
        ).where(r.task_id == t.id)
        said = select(func.json_agg(aggregate_order_by(e.detail, e.id))).where(
            e.task_id == t.id, e.action == COMMENT_ACTION
        )
    else:
        # An ordered subquery feeds json_group_array in that order (as the board's tags).
        versions = (
            select(r.id, r.kind, r.ref, r.meta)
            .where(r.task_id == t.id)
            .order_by(r.id)
            .correlate(s.tasks)
            .subquery()
        )
        refs = select(
            func.json_group_array(
                func.json_array(versions.c.kind, versions.c.ref, func.json(versions.c.meta))
            )
        )
        comments = (
            select(e.id, e.detail)
            .where(e.task_id == t.id, e.action == COMMENT_ACTION)
            .order_by(e.id)
            .correlate(s.tasks)
            .subquery()
        )
        said = select(func.json_group_array(func.json(comments.c.detail)))
        # Most tasks have no refs and no comments: a seek on the index says so, where
        # the aggregate's ordered subquery (a sorter for the refs) was set up for
        # every task (a page of ten hits: 0.048 -> 0.044 ms). None aggregate to '[]'.
        refs = case(
            (select(r.id).where(r.task_id == t.id).exists(), refs.scalar_subquery()),
            else_=literal("[]"),
        )
        said = case(
            (
                select(e.id).where(e.task_id == t.id, e.action == COMMENT_ACTION).exists(),
                said.scalar_subquery(),
            ),
            else_=literal("[]"),
        )
    query = select(
        t.id,
        t.workspace_id,
        t.key,
        t.title,
        t.body,
        t.type,
        t.status,
        t.state,
        project.label("project"),
        t.gates,
        t.next_action,
        t.outcome,
        t.decisions,
        t.branch,
        t.fields,
        (refs.scalar_subquery() if pg else refs).label("refs"),
        (said.scalar_subquery() if pg else said).label("said"),
    ).where(
        # By primary key: the workspace as a filter, not an index (see TaskRows.tasks).
        in_list(t.id, pg),
        (t.workspace_id + 0) == bindparam("ws"),
    )
    return query.where(t.deleted_at.is_(None)) if live else query


def _aggregated(value: Any) -> list[Any]:
    """A JSON array a query aggregated: text on SQLite, decoded on PostgreSQL (where
    no rows aggregate to NULL)."""
    if value is None or value == "[]":  # most tasks have no refs, most no comments
        return []
    return json.loads(value) if isinstance(value, str) else list(value)


def _json(value: Any, pg: bool) -> Any:
    """A JSON column as the driver gives it: decoded on PostgreSQL (a JSON string
    included), text to decode on SQLite."""
    if pg or value is None:
        return value
    if value == "[]":  # most tasks have no gates and no custom fields
        return []
    if value == "{}":
        return {}
    return json.loads(value)


def _task_hit_row(row: tuple[Any, ...], pg: bool) -> SearchTaskRow:
    # The row's columns are SearchTaskRow's fields in order: made from it positionally,
    # JSON decoded where needed (a search makes one for every task hit it shows).
    said_all, refs = row[16], row[15]
    comments = []
    for detail in _aggregated(said_all):
        # As TaskRows.task_comments reads what was said.
        said = (detail or {}).get("text")
        if isinstance(said, str):
            comments.append(said)
    return SearchTaskRow(
        *row[:9],
        _json(row[9], pg),
        *row[10:14],
        _json(row[14], pg),
        tuple(SearchTaskRef(k, ref, meta) for k, ref, meta in _aggregated(refs)),
        tuple(comments),
    )


class SearchRows(TxBase):
    # ------------------------------------------------------------- marking

    def _touch_tags_of(self, board_id: int) -> None:
        ws = self.conn.execute(
            select(s.boards.c.workspace_id).where(s.boards.c.id == board_id)
        ).scalar()
        if ws is not None:
            self._touch_search("tags", ws)

    def _drop_board_from_search(self, board_id: int) -> None:
        """Before a board is deleted: drop its documents (the board, its cards and
        findings) through the vocabulary, which a cascade would leave counting them."""
        ids = self.conn.execute(
            select(s.search_docs.c.id).where(s.search_docs.c.board_id == board_id)
        ).scalars()
        self._replace_docs(list(ids), [])
        self._touch_tags_of(board_id)

    # ------------------------------------------------------------- writing

    def flush_search_index(self) -> None:
        """Rewrite the documents of every row marked since the last flush."""
        dirty = self._search_dirty
        if not dirty:
            return
        self._search_dirty = set()
        by_kind: dict[str, list[str]] = {}
        for kind, subject in sorted(dirty):
            by_kind.setdefault(kind, []).append(subject)
        for kind, subjects in by_kind.items():
            if kind == "tags":
                for ws in subjects:
                    self._flush_tags(int(ws))
                continue
            ids = [int(x) for x in subjects]
            for chunk in _chunks(ids):
                docs = _READERS[kind](self, chunk)
                old = self._doc_ids(kind, [str(i) for i in chunk])
                self._replace_docs(old, docs)

    def rebuild_search_index(self, workspace_id: int | None = None) -> int:
        """Read every indexed row again (one workspace, or all) and rewrite the
        index and vocabulary from them; returns the number of documents."""
        self._write()
        d = s.search_docs.c
        where_ws = [] if workspace_id is None else [d.workspace_id == workspace_id]
        if not self._pg and self._most_of_the_index(workspace_id):
            with self._fts_rebuilt_after():
                return self._rebuild_docs(workspace_id, where_ws)
        return self._rebuild_docs(workspace_id, where_ws)

    def _most_of_the_index(self, workspace_id: int | None) -> bool:
        """Whether a rebuild rewrites enough of the index that refilling the whole
        FTS table once beats keeping it in step row by row (about one eighth)."""
        if workspace_id is None:
            return True
        d = s.search_docs.c
        total = self.conn.execute(select(func.count()).select_from(s.search_docs)).scalar_one()
        mine = self.conn.execute(
            select(func.count()).where(d.workspace_id == workspace_id)
        ).scalar_one()
        return total < 8 * max(mine, 1)

    @contextmanager
    def _fts_rebuilt_after(self) -> Iterator[None]:
        """SQLite's triggers keep ``search_fts`` in step one row at a time, which is
        most of a rebuild's time; for a bulk rewrite they are set aside and the FTS
        table refilled from ``search_docs`` in one pass, then put back exactly as
        they were. All in the rebuild's write transaction: no writer sees them gone."""
        triggers = self.conn.execute(
            text(
                "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'search_docs'"
            )
        ).all()
        if not triggers:  # no FTS table to keep in step
            yield
            return
        for name, _ in triggers:
            self.conn.execute(text(f'DROP TRIGGER "{name}"'))
        yield
        self.conn.execute(text("INSERT INTO search_fts(search_fts) VALUES ('rebuild')"))
        for _, sql in triggers:
            self.conn.execute(text(sql))

    def _rebuild_docs(self, workspace_id: int | None, where_ws: list[Any]) -> int:
        self.conn.execute(delete(s.search_docs).where(*where_ws))
        self.conn.execute(
            delete(s.search_words).where(
                *([] if workspace_id is None else [s.search_words.c.workspace_id == workspace_id])
            )
        )
        sources = {
            "task": select(s.tasks.c.id).where(
                *([] if workspace_id is None else [s.tasks.c.workspace_id == workspace_id])
            ),
            "board": select(s.boards.c.id).where(
                *([] if workspace_id is None else [s.boards.c.workspace_id == workspace_id])
            ),
            "card": select(s.cards.c.id)
            .join(s.boards, s.boards.c.id == s.cards.c.board_id)
            .where(
                s.cards.c.deleted_at.is_(None),
                *([] if workspace_id is None else [s.boards.c.workspace_id == workspace_id]),
            ),
            "annotation": select(s.annotations.c.id)
            .join(s.boards, s.boards.c.id == s.annotations.c.board_id)
            .where(*([] if workspace_id is None else [s.boards.c.workspace_id == workspace_id])),
        }
        total = 0
        # One count of the vocabulary for the whole build: chunk by chunk, the same
        # common words were written again for every 500 documents.
        delta: _Delta = {}
        for kind, query in sources.items():
            ids = list(self.conn.execute(query).scalars())
            for chunk in _chunks(ids):
                docs = _READERS[kind](self, chunk)
                self._replace_docs([], docs, delta)
                total += len(docs)
        self._count_words(delta)
        spaces = (
            [workspace_id]
            if workspace_id is not None
            else list(self.conn.execute(select(s.workspaces.c.id)).scalars())
        )
        for ws in spaces:
            total += self._flush_tags(ws)
        self._search_dirty = set()
        if self._pg:
            # Fresh statistics after a bulk write: without them the planner reads a
            # GIN match as a scan and a query takes ten times as long until autovacuum.
            self.conn.execute(text("ANALYZE search_docs, search_words"))
            # The rows written wait in the GIN indexes' pending lists (fast update),
            # which every text match reads through whole until autovacuum merges
            # them: 10 ms of a 3 ms match after 100k tasks were indexed. Only an
            # index's owner may merge it (as ANALYZE, which others only skip).
            names = f"to_regclass('ix_search_docs_text'), to_regclass('{s.TASK_TITLE_INDEX}')"
            self.conn.execute(
                text(
                    "SELECT gin_clean_pending_list(c.oid) FROM pg_class c "
                    f"WHERE c.oid IN ({names}) "
                    "AND pg_has_role(c.relowner, 'USAGE') "
                    "AND has_function_privilege('gin_clean_pending_list(regclass)', 'EXECUTE')"
                )
            )
        return total

    def _doc_ids(self, kind: str, subjects: Sequence[str]) -> list[int]:
        found = self.driver_rows(_doc_ids(), {"kind": kind, "values": self.driver_list(subjects)})
        return [doc_id for (doc_id,) in found]

    def _replace_docs(
        self,
        old_ids: Sequence[int],
        docs: Sequence[_Doc],
        delta: _Delta | None = None,
    ) -> None:
        """Swap the documents ``old_ids`` for ``docs``, keeping the vocabulary counts;
        with ``delta`` the word counts are added there for the caller to write."""
        d = s.search_docs.c
        own = delta is None
        delta = {} if delta is None else delta
        old = self._docs_by_key(old_ids)
        inserts, updates = _doc_changes(docs, old, delta)
        gone = list(old.values())
        self.search_docs_written += len(inserts) + len(updates) + len(gone)
        for row in gone:
            _count_doc(delta, row.workspace_id, row.title, row.body, -1)
        for chunk in _chunks([r.id for r in gone]):
            self.conn.execute(delete(s.search_docs).where(d.id.in_(list(chunk))))
        if updates:
            updates.sort(key=lambda u: u["_id"])
            self.conn.execute(
                update(s.search_docs)
                .where(d.id == bindparam("_id"))
                .values({k: bindparam(f"_{k}") for k in _DOC_FIELDS}),
                updates,
            )
        if inserts:
            self.driver_executemany(_INSERT_DOCS, inserts, _INSERT_DOCS_BATCH)
        if own:
            self._count_words(delta)

    def _docs_by_key(self, ids: Sequence[int]) -> dict[tuple[int, str, str], Any]:
        """The stored rows of documents ``ids``, by (workspace, kind, subject)."""
        d = s.search_docs.c
        old: dict[tuple[int, str, str], Any] = {}
        for chunk in _chunks(list(ids)):
            for row in self.conn.execute(
                select(
                    d.id, d.workspace_id, d.kind, d.subject, d.grp, d.board_id, d.title, d.body
                ).where(d.id.in_(list(chunk)))
            ):
                old[(row.workspace_id, row.kind, row.subject)] = row
        return old

    def _count_words(self, delta: _Delta) -> None:
        # In one order for every writer: two PostgreSQL transactions counting the same
        # words in different orders would each wait for the other's row lock.
        changes = sorted(
            (ws, w, w[0], len(w), n)
            for ws, counts in delta.items()
            for w, n in counts.items()
            if n and is_vocabulary_word(w)
        )
        if not changes:
            return
        self.driver_executemany(_UPSERT_WORDS, changes, _UPSERT_WORDS_BATCH)
        if all(c[4] > 0 for c in changes):
            # Counts only grew: no word can have reached zero (one that did was
            # deleted by the flush that took it there).
            return
        spaces = sorted({c[0] for c in changes})
        self.conn.execute(
            delete(s.search_words).where(
                s.search_words.c.workspace_id.in_(spaces), s.search_words.c.docs <= 0
            )
        )

    def _flush_tags(self, workspace_id: int) -> int:
        d = s.search_docs.c
        now = {tag for tag, _ in self.tags(workspace_id)}  # type: ignore[attr-defined]
        old = dict(
            self.conn.execute(
                select(d.subject, d.id).where(d.workspace_id == workspace_id, d.kind == "tag")
            ).all()
        )
        docs = [
            _Doc(workspace_id, "tag", tag, "tags", None, index_text(tag), "")
            for tag in sorted(now)
            if tag not in old
        ]
        self._replace_docs([i for tag, i in old.items() if tag not in now], docs)
        return len(now)

    # ------------------------------------------------------------- reading rows

    def _task_docs(self, ids: Sequence[int]) -> list[_Doc]:
        # Read through the driver: SQLAlchemy's rows and JSON processing were a third
        # of an index build.
        values = {"values": self.driver_list(ids)}
        refs: dict[int, dict[tuple[str, str], dict[str, Any]]] = {}
        for task_id, kind, ref, meta in self.driver_rows(_task_doc_refs(), values):
            # Versions only grow; the newest one's meta is the ref's address.
            refs.setdefault(task_id, {})[(kind, ref)] = {
                "kind": kind,
                "ref": ref,
                "meta": _json(meta, self._pg),
            }
        comments = self.task_comments(ids)  # type: ignore[attr-defined]
        docs = []
        # a trashed task leaves the index (its document is dropped) until it is restored
        for row in self.driver_rows(_task_doc_rows(), values):
            task = dict(zip(_TASK_COLUMNS, row, strict=True))
            task["gates"] = _json(task["gates"], self._pg)
            task["fields"] = _json(task["fields"], self._pg)
            task_id = task["id"]
            parts = task_parts(task, refs.get(task_id, {}).values(), comments.get(task_id, []))
            title, body = task_document(parts)
            group = "tasks" if task["draft"] is None else "drafts"
            docs.append(_Doc(task["workspace_id"], "task", str(task_id), group, None, title, body))
        return docs

    def _board_docs(self, ids: Sequence[int]) -> list[_Doc]:
        b = s.boards.c
        tags = self._tags_of(list(ids))  # type: ignore[attr-defined]
        docs = []
        for row in self.conn.execute(
            select(b.id, b.workspace_id, b.slug, b.meta, b.subgroup, b.section).where(b.id.in_(ids))
        ):
            title, body = board_parts(row.slug, row.meta or {}, tags.get(row.id, []))
            group = "sessions" if row.subgroup == SESSION_SUBGROUP else "boards"
            docs.append(
                _Doc(
                    row.workspace_id,
                    "board",
                    str(row.id),
                    group,
                    row.id,
                    index_text(title),
                    index_text(f"{body} {row.section or ''}"),
                )
            )
        return docs

    def _card_docs(self, ids: Sequence[int]) -> list[_Doc]:
        docs = []
        rows = self.driver_rows(_card_rows(), {"values": self.driver_list(ids)})
        for card_id, kind, payload, board_id, workspace_id in rows:
            payload = _json(payload, self._pg)
            payload = payload if isinstance(payload, dict) else {}
            title = payload.get("title")
            docs.append(
                _Doc(
                    workspace_id,
                    "card",
                    str(card_id),
                    CARD_GROUPS.get(kind, "cards"),
                    board_id,
                    index_text(title if isinstance(title, str) else ""),
                    index_text(" ".join(card_parts(payload))),
                )
            )
        return docs

    def _annotation_docs(self, ids: Sequence[int]) -> list[_Doc]:
        a, b = s.annotations.c, s.boards.c
        docs = []
        for row in self.conn.execute(
            select(a.id, a.board_id, a.key, a.prompt, a.category, a.replies, b.workspace_id)
            .join(s.boards, b.id == a.board_id)
            .where(a.id.in_(ids))
        ):
            title, body = annotation_parts(row._mapping)
            docs.append(
                _Doc(
                    row.workspace_id,
                    "annotation",
                    str(row.id),
                    "annotations",
                    row.board_id,
                    index_text(title),
                    index_text(body),
                )
            )
        return docs

    # ------------------------------------------------------------- querying

    def search_index(
        self,
        workspace_id: int,
        terms: Sequence[Sequence[tuple[str, bool]]],
        *,
        groups: Sequence[str],
        per_group: int,
    ) -> list[SearchDocHit]:
        """Documents of the workspace holding every term, best first within each group.

        ``terms`` is one list per query word of its alternatives, each
        ``(word, prefix)``: the word itself (matched as a prefix) and the
        corrections tried for it (matched whole). Words are index tokens
        (letters and digits only). At most ``per_group`` rows per group.
        """
        if not terms or not groups:
            return []
        if self._pg:
            query = " & ".join(
                "(" + " | ".join(f"{w}:*" if p else w for w, p in alts) + ")" for alts in terms
            )
        else:
            query = " AND ".join(
                "(" + " OR ".join(f'"{w}"*' if p else f'"{w}"' for w, p in alts) + ")"
                for alts in terms
            )
        wanted = frozenset(groups)
        # SQLite: when a query wants nearly every group (search of any kind: all but
        # drafts, a few rows), the groups are checked in Python, not per row in SQL
        # (20k tasks, two words: the statement 0.265 -> 0.253 ms).
        unfiltered = not self._pg and _INDEXED_GROUPS - wanted <= _FEW_ROWS_GROUPS
        params = {"q": query, "ws": workspace_id, "per": per_group}
        if not unfiltered:
            params.update(_group_binds(tuple(groups)))
        rows = self.driver_rows(_search_query(self._pg, 0 if unfiltered else len(groups)), params)
        if not self._pg:
            rows = _best_per_group(rows, per_group, wanted)
        # Rows already in a hit's field order, the score a float on both drivers (bm25
        # and ts_rank are REAL): made as they are, without a call per row.
        return list(map(SearchDocHit._make, rows))

    def search_task_rows(
        self, workspace_id: int, ids: Sequence[int], *, live: bool = True
    ) -> dict[int, SearchTaskRow]:
        """The live tasks of the workspace among ``ids`` as search shows them, by id
        (one read, refs and comments included); ``live`` False reads trashed ones too."""
        if not ids:
            return {}
        rows = self.driver_rows(
            _task_hit_rows(live), {"values": self.driver_list(ids), "ws": workspace_id}
        )
        return {row[0]: _task_hit_row(row, self._pg) for row in rows}

    def _task_title_matches(
        self,
        workspace_id: int,
        terms: Sequence[Sequence[str]],
        *,
        match: str,
        drafts: bool,
    ) -> Any:
        """The tasks whose indexed title holds the terms, as a subquery of ``id`` and
        ``score`` (higher is better): with ``match`` ``all`` a word of every group,
        with ``any`` of some group. Each word matches as the start of a title word;
        a word of several index tokens (``sign-in``) needs all of them.
        None when no term has a token."""
        groups = []
        for group in terms:
            spellings = [sp for sp in dict.fromkeys(" ".join(tokens(w)) for w in group) if sp]
            if spellings:
                groups.append([spelling.split() for spelling in spellings])
        if not groups:
            return None
        if self._search_dirty:
            # A write earlier in this transaction is read as the commit will index it.
            self.flush_search_index()
        kinds = ["tasks", "drafts"] if drafts else ["tasks"]
        scan = None
        if self._pg:
            query = _pg_title_query(groups, match)
            rare = self._rarest_groups(workspace_id, groups) if match == "all" else groups
            # The index of task titles alone finds the documents whose title holds
            # the words: the index of title and body brought every document whose
            # body holds a common word into the scan (a typo beside `history`:
            # 5,800 rows for 800 titles at 20k tasks). The title's words unweighted
            # are the stored vector's words of weight A, so the rows are the same.
            # A common title word still brings every title holding it: when one
            # word is much rarer, the scan takes the rarest alone and the whole
            # query is checked on those rows (ts_match_vq is @@ where the planner
            # cannot take it to an index).
            scan = _pg_title_query(rare, match, weight="")
            sql = (
                "SELECT CAST(d.subject AS BIGINT) AS id, ts_rank(d.search_tsv, q) AS score "
                "FROM search_docs d, to_tsquery('simple'::regconfig, :q) q, "
                "to_tsquery('simple'::regconfig, :scan) n "
                "WHERE d.workspace_id = :ws AND d.kind = 'task' AND d.grp IN :grps AND "
                f"{PG_TITLE_TSVECTOR} @@ n"
                + ("" if len(rare) == len(groups) else " AND ts_match_vq(d.search_tsv, q)")
            )
        else:
            join = " AND " if match == "all" else " OR "
            query = (
                "title : ("
                + join.join(
                    "("
                    + " OR ".join("(" + " AND ".join(f'"{t}"*' for t in sp) + ")" for sp in group)
                    + ")"
                    for group in groups
                )
                + ")"
            )
            sql = (
                f"SELECT CAST(d.subject AS INTEGER) AS id, -{_BM25} AS score "
                # CROSS JOIN keeps the text match the outer loop: with a plain JOIN
                # SQLite may walk every task document of the workspace and run the
                # match once per document (seconds at 20k tasks, not milliseconds).
                "FROM search_fts CROSS JOIN search_docs d ON d.id = search_fts.rowid "
                "WHERE search_fts MATCH :q AND d.workspace_id = :ws AND d.kind = 'task' "
                "AND d.grp IN :grps"
            )
        binds: dict[str, Any] = {"q": query, "ws": workspace_id, "grps": kinds}
        if scan is not None:
            binds["scan"] = scan
        matches = (
            text(sql)
            .bindparams(bindparam("grps", expanding=True), **binds)
            .columns(id=Integer, score=Float)
        )
        if self._pg:
            # Read once: the planner, knowing nothing of the cast ids, otherwise ran the
            # text match again for every task row in a nested loop (seconds, not ms).
            return matches.cte("title_match").prefix_with("MATERIALIZED")
        return matches.subquery("title_match")

    def _rarest_groups(
        self, workspace_id: int, groups: Sequence[Sequence[Sequence[str]]]
    ) -> list[Sequence[Sequence[str]]]:
        """The groups of a title match (each spellings, each tokens) an index scan
        needs: by the vocabulary's counts of the documents holding words a token
        begins, the rarest group and those at most :data:`_RARE_SPREAD` times as
        common. A token the vocabulary does not keep (short, or not letters) counts
        as common; with no group counted, every group."""
        wanted = sorted({t for g in groups for sp in g for t in sp if is_vocabulary_word(t)})
        if len(groups) < 2 or not wanted:
            return list(groups)
        held = dict(
            self.driver_rows(
                _prefix_docs(), {"ws": workspace_id, "values": self.driver_list(wanted)}
            )
        )

        def docs(group: Sequence[Sequence[str]]) -> float:
            # A spelling's documents hold all its tokens: at most its rarest token's.
            return sum(min(held.get(t, math.inf) for t in sp) for sp in group)

        counted = [docs(g) for g in groups]
        rarest = min(counted)
        if rarest == math.inf:
            return list(groups)
        return [
            g for g, n in zip(groups, counted, strict=True) if n <= _RARE_SPREAD * max(rarest, 1)
        ]

    def vocabulary_word(self, workspace_id: int, start: str) -> int | None:
        """How many documents hold the vocabulary word ``start``: 0 when only longer
        words begin with it, None when no vocabulary word does."""
        # The word itself first, a seek on the key: the usual case, a word that is
        # in the index. Only a word that is not looks for longer words it begins,
        # which scans every word of its first letter.
        found = self.driver_rows(_vocabulary_word(), {"ws": workspace_id, "word": start})
        if found:
            return int(found[0][0])
        longer = self.driver_rows(
            _vocabulary_longer(),
            {"ws": workspace_id, "first": start[0], "length": len(start), "like": f"{start}%"},
        )
        return 0 if longer else None

    def vocabulary_counts(self, workspace_id: int, words: Iterable[str]) -> dict[str, int]:
        """How many documents hold each of ``words`` the vocabulary has, in one read;
        a word it lacks is left out."""
        wanted = sorted(set(words))
        if not wanted:
            return {}
        rows = self.driver_rows(
            _vocabulary_counts(), {"ws": workspace_id, "values": self.driver_list(wanted)}
        )
        return {word: int(docs) for word, docs in rows}

    def vocabulary_near(
        self, workspace_id: int, first: str, shortest: int, longest: int, *, min_docs: int = 1
    ) -> dict[str, int]:
        """Vocabulary words starting with ``first`` of a length in the range and held
        by at least ``min_docs`` documents, with the number of documents holding each."""
        rows = self.driver_rows(
            _vocabulary_near(),
            {
                "ws": workspace_id,
                "first": first,
                "shortest": shortest,
                "longest": longest,
                "min_docs": min_docs,
            },
        )
        return {word: int(docs) for word, docs in rows}


_READERS: Mapping[str, Any] = {
    "task": SearchRows._task_docs,
    "board": SearchRows._board_docs,
    "card": SearchRows._card_docs,
    "annotation": SearchRows._annotation_docs,
}


#: The task columns a task's document is made of (:func:`task_parts`), and its place.
_TASK_COLUMNS = (
    "id",
    "workspace_id",
    "draft",
    "title",
    "body",
    "gates",
    "next_action",
    "outcome",
    "decisions",
    "branch",
    "fields",
)

#: The columns of a search document that a new version of it can change.
_DOC_FIELDS = ("grp", "board_id", "title", "body")


#: Word count changes by workspace: in how many more (or fewer) documents each word is.
_Delta = dict[int, Counter[str]]


def _count_doc(delta: _Delta, workspace_id: int, title: str, body: str, sign: int) -> None:
    # Every distinct token, counted in Counter's own loop (C): a build counts every
    # word of every document. Which of them are vocabulary words is decided once per
    # distinct word when the counts are written (_count_words). Keyed by the word
    # alone (a string keeps its hash), one Counter per workspace.
    words = set(title.split())
    words.update(body.split())
    counts = delta.get(workspace_id)
    if counts is None:
        counts = delta[workspace_id] = Counter()
    if sign > 0:
        counts.update(words)
    else:
        counts.subtract(words)


def _doc_changes(
    docs: Sequence[_Doc],
    old: dict[tuple[int, str, str], Any],
    delta: _Delta,
) -> tuple[list[_Doc], list[dict[str, Any]]]:
    """The documents to insert and the rows to update for ``docs``, counting their
    words in ``delta``.

    The stored rows the docs replace are popped from ``old``; what is left there is gone.
    """
    inserts: list[_Doc] = []
    updates: list[dict[str, Any]] = []
    counted: list[_Doc] = []
    for doc in docs:
        before = old.pop((doc.workspace_id, doc.kind, doc.subject), None) if old else None
        if before is not None:
            if (before.grp, before.board_id, before.title, before.body) == doc[3:]:
                continue
            _count_doc(delta, doc.workspace_id, before.title, before.body, -1)
            updates.append(
                {
                    "_id": before.id,
                    **{f"_{k}": getattr(doc, k) for k in _DOC_FIELDS},
                }
            )
        else:
            inserts.append(doc)
        counted.append(doc)
    for workspace_id in {doc.workspace_id for doc in counted}:
        texts = [f"{d.title} {d.body}" for d in counted if d.workspace_id == workspace_id]
        # Each document's distinct words, all counted in C loops: a build counts
        # every word of every document, and a call per document cost a third more.
        words = chain.from_iterable(map(set, map(str.split, texts)))
        delta.setdefault(workspace_id, Counter()).update(words)
    return inserts, updates
