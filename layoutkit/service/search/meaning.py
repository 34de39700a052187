"""Search rule 4: ranking tasks by meaning beside the words, and the index behind it.

When the workspace has an embedder (``Workspace.embedder``, see
``layoutkit.meaning``) and no task holds every word of a query, the query is
embedded and compared (cosine) with the vectors of the most recently updated
tasks within the search's facets, at most :data:`~layoutkit.limits.MEANING_WINDOW`
of them. The meaning ranking and the lexical one are fused by reciprocal rank
fusion, and the reply says ``mode: hybrid``; tasks only the meaning ranking
found are marked ``matchedIn: meaning``. Without a usable embedder the reply
says ``mode: lexical`` and why (``modeReason``); when the words alone answered
there is no ``mode`` at all.

The index is the ``task_embeddings`` table: one vector per task with the
embedder's name, a digest of the text embedded and the task's ``updated_at``
when it was read, so every process of a deployment shares it and a vector is
current exactly while the task has not changed. It fills lazily and off the
request path: a search that meets tasks without a current vector embeds up to
:data:`INLINE` of them itself (so a task written a moment ago is found at
once) and queues the rest on the workspace's background jobs, which embed
:data:`BATCH` tasks at a time; until they are done ``modeReason`` says the index
is building, and the tasks not yet embedded rank by words only.

The search operation calls :func:`meaning_rerank` where it has its lexical task
ranking, and :func:`fused_rows` to lay its task rows out in the fused order;
:func:`fuse` is the fusion itself.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
import weakref
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np

from layoutkit.limits import MEANING_WINDOW
from layoutkit.meaning import Embedder, EmbedError
from layoutkit.storage import TaskEmbeddingStamp, TaskRecord, Tx

if TYPE_CHECKING:
    from layoutkit.service.road.workspace import Call, Workspace

log = logging.getLogger("layoutkit.meaning")

#: The k of reciprocal rank fusion: a row at rank r of a ranking scores 1/(k + r).
#: 60 is the value of the paper that introduced the method (Cormack, Clarke and
#: Büttcher, 2009): large enough that the first few places of one ranking do not
#: drown the other ranking.
RRF_K = 60
#: Tasks without a current vector that one search embeds itself; more are left
#: to the background build and the search says the index is building.
INLINE = 16
#: Tasks the background build embeds per round (one embedder call, one short write).
BATCH = 32
#: Characters of task text embedded: more than the models read (512 tokens).
TEXT_CHARS = 4000
#: Vectors a process keeps in memory per workspace, so a search reads from the
#: database only the vectors that changed since the last one.
CACHE_VECTORS = 4 * MEANING_WINDOW
#: Seconds searches stay lexical after the embedder failed, before one asks again:
#: an endpoint that hangs would otherwise cost every search its whole timeout.
RETRY_S = 30.0
#: What ``matchedIn`` says of a task found only by meaning.
MATCHED_BY_MEANING = "meaning"


@attrs.frozen(slots=True)
class MeaningResult:
    """What meaning search made of one query's task ranking.

    ``ids`` is the final task ranking (the lexical one untouched unless ``mode``
    is ``hybrid``); ``meaning_only`` the tasks in it that no word found;
    ``similarity`` the cosine of each task the meaning ranking kept. ``read`` of
    ``total`` tasks within the facets were compared, ``indexed`` of them with a
    vector current at the time.
    """

    ids: list[int]
    mode: str | None = None
    mode_reason: str | None = None
    meaning_only: frozenset[int] = frozenset()
    similarity: Mapping[int, float] = attrs.field(factory=dict)
    read: int = 0
    total: int = 0
    indexed: int = 0

    def reply_fields(self) -> dict[str, Any]:
        """``mode`` and ``modeReason`` as the search reply carries them (none when absent)."""
        out: dict[str, Any] = {}
        if self.mode is not None:
            out["mode"] = self.mode
        if self.mode_reason is not None:
            out["modeReason"] = self.mode_reason
        return out


def fuse(rankings: Sequence[Sequence[int]], *, k: int = RRF_K) -> list[int]:
    """Reciprocal rank fusion: each id scores the sum of 1/(k + rank) over the
    rankings it is in (rank 1 first); best score first.

    Ties (an id at the same ranks as another, mirrored) go to the one ranked
    higher by the earlier ranking, so the lexical ranking, passed first, decides
    between equals; then the lower id.
    """
    scores: dict[int, float] = {}
    places: dict[int, list[float]] = {}
    for n, ranking in enumerate(rankings):
        for rank, item in enumerate(ranking, start=1):
            place = places.setdefault(item, [float("inf")] * len(rankings))
            if place[n] != float("inf"):
                continue  # an id twice in one ranking counts at its first place
            place[n] = rank
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda item: (-scores[item], *places[item], item))


def task_text(task: TaskRecord) -> str:
    """What a task's vector is made from: title, body and every text field.

    Refs and comments stay out: they are addresses and chatter, and the words
    search reads them already.
    """
    parts = [task.title, task.body]
    parts += [
        " ".join(str(g.get(key, "")) for key in ("title", "evidence") if g.get(key))
        for g in task.gates
    ]
    parts += [task.next_action, task.outcome, task.decisions, task.branch]
    parts += [value for value in task.fields.values() if isinstance(value, str)]
    return "\n".join(p for p in parts if p)[:TEXT_CHARS]


def text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


# ------------------------------------------------------------------ the index


@attrs.define
class _Index:
    """One workspace's meaning state in this process: cached vectors, the build flag."""

    lock: threading.Lock = attrs.field(factory=threading.Lock)
    #: task id -> (model, digest of the text embedded, the vector)
    vectors: dict[int, tuple[str, str, np.ndarray]] = attrs.field(factory=dict)
    #: Bumped whenever ``vectors`` changes, so ``packed`` knows when it is stale.
    version: int = 0
    #: The last search's window stacked into one matrix: (version, ids, matrix).
    #: Searches in a row mostly read the same window; stacking it again would cost
    #: more than the ranking itself.
    packed: tuple[int, tuple[int, ...], np.ndarray] | None = None
    building: bool = False
    #: Why the embedder failed last, and until when (monotonic seconds) searches
    #: take that answer as they find it instead of asking again.
    failure: tuple[str, float] | None = None


_INDEXES: weakref.WeakKeyDictionary[Workspace, _Index] = weakref.WeakKeyDictionary()
_INDEXES_LOCK = threading.Lock()


def _index(workspace: Workspace) -> _Index:
    with _INDEXES_LOCK:
        index = _INDEXES.get(workspace)
        if index is None:
            index = _INDEXES[workspace] = _Index()
        return index


def _as_bytes(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def _from_bytes(data: bytes) -> np.ndarray:
    return np.frombuffer(data, dtype="<f4").astype(np.float32)


def _current_vectors(
    tx: Tx, index: _Index, model: str, stamps: Sequence[TaskEmbeddingStamp]
) -> dict[int, np.ndarray]:
    """The vectors of these tasks (each current), from the cache or the database."""
    out: dict[int, np.ndarray] = {}
    missing: list[int] = []
    with index.lock:
        for stamp in stamps:
            cached = index.vectors.get(stamp.task_id)
            if cached is not None and cached[0] == model and cached[1] == stamp.text_hash:
                out[stamp.task_id] = cached[2]
            else:
                missing.append(stamp.task_id)
    if missing:
        wanted = {s.task_id: s.text_hash for s in stamps}
        rows = tx.task_embeddings(missing)
        with index.lock:
            for task_id, row in rows.items():
                # The row may have moved on since the window was read; the digest decides.
                if row.model == model and row.text_hash == wanted[task_id]:
                    vector = _from_bytes(row.vector)
                    out[task_id] = vector
                    index.vectors[task_id] = (model, row.text_hash, vector)
                    index.version += 1
            if len(index.vectors) > CACHE_VECTORS:
                index.vectors = {i: v for i, v in index.vectors.items() if i in wanted}
    return out


def _store(
    workspace: Workspace, model: str, rows: Sequence[tuple[int, str, datetime, np.ndarray]]
) -> int:
    """Write vectors ``(task id, text hash, task stamp, vector)``; how many were kept."""

    def put(tx: Tx) -> int:
        return sum(
            tx.put_task_embedding(
                task_id,
                model=model,
                dim=int(vector.shape[0]),
                text_hash=digest,
                task_updated_at=stamp,
                vector=_as_bytes(vector),
            )
            for task_id, digest, stamp, vector in rows
        )

    # Vectors are derived and checked against the task's stamp before use.
    kept = workspace.cache_write(put)
    index = _index(workspace)
    with index.lock:
        for task_id, digest, _stamp, vector in rows:
            index.vectors[task_id] = (model, digest, vector)
        index.version += 1
    return kept


#: Where a build stands: the (updated_at, id) of the last task it read.
Cursor = tuple[datetime, int]


def index_batch(
    workspace: Workspace, *, limit: int = BATCH, before: Cursor | None = None
) -> tuple[int, Cursor | None]:
    """Embed up to ``limit`` tasks without a current vector, most recently updated
    first (after ``before``, when given); how many were stored, and where the next
    batch starts (None when no task is left).

    A task whose text did not change since its vector was made (only its state
    moved, say) keeps the vector under its new stamp without asking the
    embedder. Raises :class:`EmbedError` when the embedder fails.
    """
    embedder = workspace.embedder
    if embedder is None:
        return 0, None
    model = embedder.name

    def look(tx: Tx) -> tuple[list[tuple[TaskRecord, str]], dict[int, Any], int]:
        todo = tx.tasks_to_embed(workspace.workspace_id, model, limit=limit, before=before)
        same = [(task, text_hash(task_text(task))) for task, _ in todo]
        unchanged = {
            task.id for (task, digest), (_, old) in zip(same, todo, strict=True) if digest == old
        }
        return same, (tx.task_embeddings(sorted(unchanged)) if unchanged else {}), len(todo)

    same, old_vectors, found = workspace.cache_read(look)
    rows: list[tuple[int, str, datetime, np.ndarray]] = []
    fresh: list[tuple[TaskRecord, str]] = []
    for task, digest in same:
        if task.id in old_vectors:
            rows.append(
                (task.id, digest, task.updated_at, _from_bytes(old_vectors[task.id].vector))
            )
        else:
            fresh.append((task, digest))
    if fresh:
        # Outside any transaction: an embedder may take seconds.
        vectors = embedder.embed([task_text(task) for task, _ in fresh])
        rows += [
            (task.id, digest, task.updated_at, vectors[i]) for i, (task, digest) in enumerate(fresh)
        ]
    stored = _store(workspace, model, rows) if rows else 0
    last = same[-1][0] if found == limit else None
    return stored, (last.updated_at, last.id) if last is not None else None


def build_index(workspace: Workspace) -> int:
    """Embed every task without a current vector, batch by batch; how many were stored.

    Each batch goes on from where the last one stopped, so a build reads each
    task once however large the workspace. A task changed during the build moves
    ahead of it and is left to the next search, which embeds it or starts another
    build. Stops early when the workspace closes. Raises :class:`EmbedError` when
    the embedder fails.
    """
    total, cursor = 0, None
    while not workspace.closing:
        stored, cursor = index_batch(workspace, before=cursor)
        total += stored
        if cursor is None:
            break
    return total


def start_build(workspace: Workspace) -> bool:
    """Queue :func:`build_index` on the workspace's background jobs unless one is
    queued or running already; True when this call queued it."""
    index = _index(workspace)
    with index.lock:
        if index.building:
            return False
        index.building = True

    def run() -> None:
        try:
            build_index(workspace)
        except EmbedError as exc:
            # Searches say lexical with the reason meanwhile; the next one retries.
            log.warning("meaning index build stopped: %s", exc)
        finally:
            with index.lock:
                index.building = False

    def dropped() -> None:
        with index.lock:
            index.building = False

    if not workspace.jobs.submit(run, on_drop=dropped):
        dropped()
        return False
    return True


# ------------------------------------------------------------------ ranking


def _lexical(ids: Sequence[int], reason: str | None) -> MeaningResult:
    if reason is None:
        return MeaningResult(ids=list(ids))
    return MeaningResult(ids=list(ids), mode="lexical", mode_reason=reason)


def meaning_rerank(
    call: Call,
    q: str,
    lexical_task_ids: Sequence[int],
    facets: Mapping[str, Collection[Any]] | None = None,
    *,
    every_word_held: bool = False,
    limit: int = 50,
) -> MeaningResult:
    """The task ranking of a search, with meaning fused in when rule 4 calls for it.

    ``lexical_task_ids`` is the words' ranking, best first; ``every_word_held``
    says whether some task in it holds every word of ``q`` (then the words
    answered and nothing changes). ``facets`` narrows the tasks compared, by
    column: ``id``, ``project_id``, ``type``, ``state``, ``status`` each map to the
    values allowed. At most ``limit`` tasks come from the meaning ranking, those
    with a cosine above 0.
    """
    if every_word_held:
        return _lexical(lexical_task_ids, None)
    workspace = call.workspace
    embedder: Embedder | None = workspace.embedder
    if embedder is None:
        return _lexical(lexical_task_ids, "no embedding sidecar is configured")
    index = _index(workspace)
    with index.lock:
        failure = index.failure
    if failure is not None and time.monotonic() < failure[1]:
        return _lexical(lexical_task_ids, f"meaning search is unavailable: {failure[0]}")
    try:
        query = embedder.embed([q], query=True)[0]
    except EmbedError as exc:
        with index.lock:
            index.failure = (str(exc), time.monotonic() + RETRY_S)
        return _lexical(lexical_task_ids, f"meaning search is unavailable: {exc}")
    with index.lock:
        index.failure = None
    model = embedder.name
    stamps, total = call.tx.task_embedding_window(
        call.workspace_id, model, filters=dict(facets or {}), limit=MEANING_WINDOW
    )
    current = [s for s in stamps if s.current]
    stale = [s for s in stamps if not s.current]
    vectors = _current_vectors(call.tx, index, model, current)
    # A vector can vanish between the two reads (another process re-embedding).
    stale += [s for s in current if s.task_id not in vectors]
    building = bool(stale) and not (
        len(stale) <= INLINE and _embed_inline(call, embedder, stale, vectors)
    )
    if building:
        start_build(workspace)
    ids, matrix = _matrix(index, vectors, reuse=not stale)
    ranked, similarity = _by_meaning(ids, matrix, query, limit)
    fused = fuse([list(lexical_task_ids), ranked])
    reasons = []
    if total > len(stamps):
        reasons.append(f"read the {len(stamps)} most recently updated of {total} tasks")
    if building:
        reasons.append(
            f"the meaning index is building: {len(vectors)} of {len(stamps)} tasks indexed"
        )
    lexical = set(lexical_task_ids)
    return MeaningResult(
        ids=fused,
        mode="hybrid",
        mode_reason="; ".join(reasons) or None,
        meaning_only=frozenset(i for i in ranked if i not in lexical),
        similarity=similarity,
        read=len(stamps),
        total=total,
        indexed=len(vectors),
    )


def fused_rows(
    call: Call,
    result: MeaningResult,
    lexical_rows: Mapping[int, dict[str, Any]],
    row_of: Callable[[TaskRecord], dict[str, Any]],
) -> list[dict[str, Any]]:
    """The task group's rows in ``result``'s order: the lexical rows as they are
    (by task id), and for each task only meaning found, ``row_of(task)`` with
    ``matchedIn: ["meaning"]`` (a list, as every ``matchedIn`` is)."""
    extra = [i for i in result.ids if i not in lexical_rows]
    tasks = {t.id: t for t in call.tx.tasks(call.workspace_id, ids=extra)} if extra else {}
    rows = []
    for task_id in result.ids:
        if task_id in lexical_rows:
            rows.append(lexical_rows[task_id])
        elif task_id in tasks:
            rows.append({**row_of(tasks[task_id]), "matchedIn": [MATCHED_BY_MEANING]})
    return rows


def _embed_inline(
    call: Call,
    embedder: Embedder,
    stale: Sequence[TaskEmbeddingStamp],
    vectors: dict[int, np.ndarray],
) -> bool:
    """Embed these few tasks for this search, adding to ``vectors``, and queue
    storing them; False when the embedder failed (they rank by words only)."""
    tasks = call.tx.tasks(call.workspace_id, ids=[s.task_id for s in stale])
    texts = [task_text(task) for task in tasks]
    try:
        made = embedder.embed(texts) if texts else np.zeros((0, 0), dtype=np.float32)
    except EmbedError as exc:
        log.warning("meaning search embedded no new task: %s", exc)
        return False
    rows = []
    for i, task in enumerate(tasks):
        vectors[task.id] = made[i]
        rows.append((task.id, text_hash(texts[i]), task.updated_at, made[i]))
    workspace, model = call.workspace, embedder.name
    if rows:
        # The search reads; its vectors are written in a transaction of their own.
        workspace.jobs.submit(lambda: _store(workspace, model, rows))
    return True


def _matrix(
    index: _Index, vectors: Mapping[int, np.ndarray], *, reuse: bool
) -> tuple[tuple[int, ...], np.ndarray]:
    """The ids of ``vectors`` and their rows stacked, reusing the last search's
    stack when it holds the same ids and no vector changed since (``reuse`` is
    False when this search made vectors the cache does not hold yet)."""
    ids = tuple(vectors)
    with index.lock:
        packed, version = index.packed, index.version
    if reuse and packed is not None and packed[0] == version and packed[1] == ids:
        return ids, packed[2]
    matrix = np.stack(list(vectors.values())) if ids else np.zeros((0, 0), dtype=np.float32)
    if reuse:
        with index.lock:
            index.packed = (version, ids, matrix)
    return ids, matrix


def _by_meaning(
    ids: Sequence[int], matrix: np.ndarray, query: np.ndarray, limit: int
) -> tuple[list[int], dict[int, float]]:
    """The ``limit`` task ids closest to ``query`` (cosine above 0), closest first."""
    if not ids or matrix.shape[1] != query.shape[0]:
        return [], {}
    # Rows and query are unit vectors, so the product is the cosine.
    scores = matrix @ query
    top = min(limit, len(ids))
    best = np.argpartition(-scores, top - 1)[:top]
    order = sorted(best.tolist(), key=lambda i: (-scores[i], ids[i]))
    kept = [i for i in order if scores[i] > 0]
    return [ids[i] for i in kept], {ids[i]: float(scores[i]) for i in kept}
