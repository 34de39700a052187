"""All-or-nothing batches under injected faults, and concurrent composers.

Runs on every backend of ``any_ws`` (in-memory, SQLite file, PostgreSQL when
``LAYOUTKIT_TEST_POSTGRES_URL`` is set) and, for the two-process test, on the
backends that more than one process can open.
"""

from __future__ import annotations

import multiprocessing
import os
import uuid
from pathlib import Path
from typing import Any

import pytest

from layoutkit import Principal, Workspace, elements
from layoutkit.storage import SqlTx
from layoutkit.storage._blobs import FileBlobStore
from tests.conftest import POSTGRES_URL
from tests.service.helpers import board_cards, geometry_problems

AGENT = Principal.agent("fault")


class InjectedFault(RuntimeError):
    """Raised between the writes of a batch to prove nothing of it is kept."""


def _snapshot(ws: Workspace, slug: str) -> dict[str, Any]:
    """Everything a compose batch can write for one board."""
    with ws.store.read() as tx:
        board = tx.board_by_slug(ws.workspace_id, slug)
        assert board is not None
        return {
            "board": (board.flow, board.meta, board.updated_at),
            "cards": sorted(
                (
                    c.id,
                    c.x,
                    c.y,
                    c.w,
                    c.h,
                    c.version,
                    c.parent_id,
                    tuple(c.children or ()),
                    c.deleted,
                )
                for c in tx.cards(board.id, include_deleted=True)
            ),
            "edges": [e.id for e in tx.edges(board.id, include_trashed_ends=True)],
            "questions": [q.id for q in tx.questions(board.id)],
            "events": [e.id for e in tx.events(board_id=board.id)],
            "key": tx.request_key(f"{ws.workspace_id}:{AGENT.label}", "fault-key"),
        }


def _seed(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "f"})
    ws.call(
        "compose_board",
        {
            "board": "f",
            "cards": [{"kind": "text", "payload": {"md": f"seed {i}"}} for i in range(4)],
        },
        AGENT,
    )
    ws.call(
        "compose_board",
        {"board": "f", "section": "Kept", "cards": [{"kind": "note", "payload": {"md": "in"}}]},
        AGENT,
    )


def _batch(nonce: str) -> dict[str, Any]:
    rows = [{"n": i, "run": nonce} for i in range(260)]  # spilled to a blob
    return {
        "board": "f",
        "requestKey": "fault-key",
        "section": "Kept",
        "cards": [
            {"kind": "text", "ref": "a", "payload": {"md": "new a"}},
            {"kind": "text", "ref": "b", "payload": {"md": "new b"}},
            {
                "kind": "doc",
                "payload": {
                    "title": "T",
                    "elements": [
                        {
                            "kind": "table",
                            "payload": {"cols": [{"key": "n"}, {"key": "run"}], "rows": rows},
                        }
                    ],
                },
            },
        ],
        "edges": [{"from": "a", "to": "b"}],
        "questions": [{"prompt": "ok?", "options": ["yes"], "cardRef": "a"}],
    }


@pytest.mark.parametrize(
    "fault_at",
    ["insert_edges", "insert_questions", "record_event", "save_request_key", "update_cards"],
)
def test_a_fault_between_writes_leaves_nothing_behind(
    any_ws: Workspace, monkeypatch: pytest.MonkeyPatch, fault_at: str
) -> None:
    _seed(any_ws)
    nonce = uuid.uuid4().hex  # blobs are shared by content; keep this batch's own
    before = _snapshot(any_ws, "f")
    calls: list[str] = []
    original_insert = SqlTx.insert_cards
    original = getattr(SqlTx, fault_at)

    def insert_cards(self: SqlTx, *args: Any, **kwargs: Any) -> Any:
        calls.append("insert_cards")
        return original_insert(self, *args, **kwargs)

    def boom(self: SqlTx, *args: Any, **kwargs: Any) -> Any:
        if "insert_cards" in calls:  # only once the batch's cards are written
            raise InjectedFault(fault_at)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(SqlTx, "insert_cards", insert_cards)
    monkeypatch.setattr(SqlTx, fault_at, boom)
    with pytest.raises(InjectedFault):
        any_ws.call("compose_board", _batch(nonce), AGENT)
    assert calls, "the fault must come after cards were inserted"
    monkeypatch.undo()
    assert _snapshot(any_ws, "f") == before
    if not isinstance(any_ws.store.blobs, FileBlobStore):
        # Table blobs share the transaction; files are content-addressed and an
        # orphan file is never referenced, so only the table must stay clean.
        (spilled,) = elements.validate_card(_batch(nonce)["cards"][2]).spilled
        with any_ws.store.read() as tx:
            assert not tx.blobs.has(spilled)
    # The key was not burnt: the same request now goes through once.
    first = any_ws.call("compose_board", _batch(nonce), AGENT)
    assert any_ws.call("compose_board", _batch(nonce), AGENT) == first
    assert not geometry_problems(board_cards(any_ws, "f"))


def test_a_fault_in_update_cards_leaves_nothing_behind(
    any_ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    _seed(any_ws)
    ids = [c["id"] for c in board_cards(any_ws, "f") if c["kind"] == "text"]
    before = _snapshot(any_ws, "f")
    monkeypatch.setattr(
        SqlTx, "record_event", lambda *a, **k: (_ for _ in ()).throw(InjectedFault())
    )
    with pytest.raises(InjectedFault):
        any_ws.call(
            "update_cards",
            {
                "patch": [{"id": ids[0], "x": 900, "payload": {"md": "changed " * 30}}],
                "remove": [ids[1]],
            },
            AGENT,
        )
    monkeypatch.undo()
    assert _snapshot(any_ws, "f") == before


# --------------------------------------------------------------------- two processes

ROUNDS = 10
PER_BATCH = 3


def _composer(url: str, name: str, who: str, out: Any) -> None:
    try:
        with Workspace.open(url, name=name) as ws:
            for i in range(ROUNDS):
                cards = [
                    {"kind": "note", "payload": {"md": f"{who} {i}.{j}"}} for j in range(PER_BATCH)
                ]
                params: dict[str, Any] = {"board": "shared", "cards": cards}
                if i % 3 == 1:
                    params["section"] = "Common"
                ws.call("compose_board", params, Principal.agent(who))
        out.put((who, "ok"))
    except BaseException as exc:  # reported to the parent, which fails the test
        out.put((who, repr(exc)))


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_two_processes_composing_lose_nothing_and_never_overlap(
    tmp_path: Path, backend: str
) -> None:
    if backend == "postgres" and not POSTGRES_URL:
        pytest.skip("LAYOUTKIT_TEST_POSTGRES_URL is not set; PostgreSQL tests need a server")
    url = f"sqlite:///{tmp_path / 'shared.db'}" if backend == "sqlite" else str(POSTGRES_URL)
    name = f"race-{uuid.uuid4().hex[:10]}"
    with Workspace.open(url, name=name) as ws:
        ws.call("create", {"kind": "board", "slug": "shared"})
    ctx = multiprocessing.get_context("spawn" if os.name == "nt" else "fork")
    out = ctx.Queue()
    procs = [ctx.Process(target=_composer, args=(url, name, f"p{n}", out)) for n in range(2)]
    for p in procs:
        p.start()
    results = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert sorted(results) == [("p0", "ok"), ("p1", "ok")]
    with Workspace.open(url, name=name) as ws:
        cards = board_cards(ws, "shared")
        notes = sorted(c["payload"]["md"] for c in cards if c["kind"] == "note")
        expected = sorted(
            f"p{n} {i}.{j}" for n in range(2) for i in range(ROUNDS) for j in range(PER_BATCH)
        )
        assert notes == expected
        assert [c["kind"] for c in cards].count("section") == 1
        problems = geometry_problems(cards)
        assert not problems, problems
