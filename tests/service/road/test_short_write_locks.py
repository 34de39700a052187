"""Engine work runs before the write transaction; a lock not granted in time is 503 busy."""

from __future__ import annotations

import os
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from layoutkit import Workspace, diagram
from layoutkit.service.boards import content_prep
from layoutkit.storage._sql import store as sql_store

from ..helpers import err

POSTGRES_URL = os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL")

DIAGRAM = {
    "kind": "diagram",
    "payload": {
        "title": "flow",
        "nodes": [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}],
        "edges": [{"from": "a", "to": "b"}],
    },
}


@pytest.fixture
def two(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Workspace, Workspace]]:
    """Two workspaces on one SQLite file, as two server processes would be, that give up
    waiting for the write lock after a fifth of a second."""
    monkeypatch.setattr(sql_store, "SQLITE_BUSY_TIMEOUT_S", 0.2)
    url = f"sqlite:///{tmp_path / 'ws.db'}"
    with Workspace.open(url) as first, Workspace.open(url) as second:
        first.call("create", {"kind": "board", "slug": "b"})
        yield first, second


def _while_laying_out(monkeypatch: pytest.MonkeyPatch, during: Any) -> list[Any]:
    """Run ``during`` in the middle of every diagram layout; collect what it returned."""
    seen: list[Any] = []
    real = diagram.lay_out

    def lay_out(payload: dict[str, Any]) -> dict[str, Any]:
        seen.append(during())
        return real(payload)

    monkeypatch.setattr(diagram, "lay_out", lay_out)
    return seen


def _other_write(other: Workspace) -> Any:
    def write() -> Any:
        try:
            return other.call("set_board_meta", {"board": "b", "meta": {"n": uuid.uuid4().hex}})
        except Exception as exc:  # what a writer elsewhere would have met
            return exc

    return write


def test_refresh_card_lays_out_before_taking_the_write_lock(
    two: tuple[Workspace, Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = two
    card = first.call("compose_board", {"board": "b", "cards": [DIAGRAM]})["cards"][0]
    seen = _while_laying_out(monkeypatch, _other_write(second))
    out = first.call("refresh_card", {"id": card["id"]})
    assert out["version"] > 1
    # The other process wrote while the diagram was being laid out: no lock was held.
    assert seen and all(isinstance(r, dict) for r in seen), seen


def test_a_diagram_payload_patch_lays_out_before_taking_the_write_lock(
    two: tuple[Workspace, Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = two
    card = first.call("compose_board", {"board": "b", "cards": [DIAGRAM]})["cards"][0]
    seen = _while_laying_out(monkeypatch, _other_write(second))
    patch = {"id": card["id"], "payload": {"title": "renamed"}}
    first.call("update_cards", {"patch": [patch]})
    assert seen and all(isinstance(r, dict) for r in seen), seen
    (stored,) = first.call("scrape_board", {"board": "b"})["cards"]
    assert stored["payload"]["title"] == "renamed"


def test_a_patch_prepared_on_a_payload_that_changed_is_checked_again(
    two: tuple[Workspace, Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another writer changes the card between the snapshot and the lock: the patch
    # merges onto what is stored then, not onto what was read before.
    first, second = two
    card = first.call("compose_board", {"board": "b", "cards": [DIAGRAM]})["cards"][0]
    done: list[bool] = []
    real = content_prep.prepare_card

    def prepare_card(card_in: dict[str, Any], index: int | None = None, **how: Any) -> Any:
        if not done:
            done.append(True)
            second.call("update_cards", {"patch": [{"id": card["id"], "payload": {"kicker": "K"}}]})
        return real(card_in, index, **how)

    monkeypatch.setattr("layoutkit.service.boards.cards.prepare_card", prepare_card)
    first.call("update_cards", {"patch": [{"id": card["id"], "payload": {"title": "T2"}}]})
    (stored,) = first.call("scrape_board", {"board": "b"})["cards"]
    assert (stored["payload"]["title"], stored["payload"]["kicker"]) == ("T2", "K")


def test_refusals_of_early_work_wait_for_the_access_checks(
    two: tuple[Workspace, Workspace],
) -> None:
    first, _ = two
    e = err(first, "refresh_card", {"id": 987654})
    assert (e.status, e.code) == (404, "unknown_card")


def test_a_write_that_waits_too_long_for_sqlites_lock_is_503_busy(
    two: tuple[Workspace, Workspace], tmp_path: Path
) -> None:
    first, _ = two
    holder = sqlite3.connect(tmp_path / "ws.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        e = err(first, "compose_board", {"board": "b", "cards": [DIAGRAM]})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert (e.status, e.code, e.body["retryAfter"]) == (503, "busy", 1)
    assert first.call("scrape_board", {"board": "b"})["cards"] == []
    first.call("compose_board", {"board": "b", "cards": [DIAGRAM]})


@pytest.mark.skipif(not POSTGRES_URL, reason="LAYOUTKIT_TEST_POSTGRES_URL is not set")
def test_a_write_that_waits_too_long_for_a_postgres_row_lock_is_503_busy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sql_store, "PG_LOCK_TIMEOUT_S", 0.2)
    name = f"test-{uuid.uuid4().hex[:12]}"
    assert POSTGRES_URL is not None
    with (
        Workspace.open(POSTGRES_URL, name=name) as first,
        Workspace.open(POSTGRES_URL, name=name) as second,
    ):
        first.call("create", {"kind": "board", "slug": "b"})
        locked, release = threading.Event(), threading.Event()

        def hold() -> None:
            with second.store.transaction() as tx:
                board = tx.board_by_slug(second.workspace_id, "b")
                assert board is not None
                tx.lock_board(board.id)
                locked.set()
                release.wait(10)

        holder = threading.Thread(target=hold)
        holder.start()
        try:
            assert locked.wait(10)
            e = err(first, "compose_board", {"board": "b", "cards": [DIAGRAM]})
        finally:
            release.set()
            holder.join()
        assert (e.status, e.code, e.body["retryAfter"]) == (503, "busy", 1)
        assert first.call("scrape_board", {"board": "b"})["cards"] == []
