"""Shared pieces of the reliability suite: backends, trial counts and database checks.

Every test here carries the ``reliability`` marker. Trial counts come from
environment variables so CI runs a bounded suite and a longer soak is one
variable away (see ``count``); the defaults are what CI runs.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, settings
from sqlalchemy import text

from layoutkit import Workspace
from tests.conftest import POSTGRES_URL, pg_schema

PG_SKIP = "LAYOUTKIT_TEST_POSTGRES_URL is not set; PostgreSQL tests need a server"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.reliability)


def count(name: str, default: int) -> int:
    """A trial count: ``LAYOUTKIT_RELIABILITY_<NAME>`` if set, else ``default``."""
    return int(os.environ.get(f"LAYOUTKIT_RELIABILITY_{name.upper()}", default))


def stateful_settings(examples: int, steps: int, **more: Any) -> settings:
    """Hypothesis settings of the stateful runs: bounded, and the same examples on
    every run unless ``LAYOUTKIT_RELIABILITY_RANDOM`` is set."""
    return settings(
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,
        derandomize=os.environ.get("LAYOUTKIT_RELIABILITY_RANDOM") is None,
        suppress_health_check=list(HealthCheck),
        **more,
    )


@attrs.frozen
class Backend:
    """Where a test's workspace lives: a URL several processes can open, and its name."""

    kind: str
    url: str
    name: str
    sqlite_path: Path | None = None

    def open(self) -> Workspace:
        return Workspace.open(self.url, name=self.name)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """A fresh workspace on a SQLite file or on PostgreSQL (a workspace of its own)."""
    name = f"rel-{uuid.uuid4().hex[:12]}"
    if request.param == "sqlite":
        path = tmp_path / "rel.db"
        yield Backend("sqlite", f"sqlite:///{path}", name, path)
        return
    if not POSTGRES_URL:
        pytest.skip(PG_SKIP)
    with pg_schema() as url:
        yield Backend("postgres", url, name)


# Rows of one workspace that break the store's own rules. Every query returns
# offending rows; an empty result is a consistent workspace. They are plain SQL
# so one list serves SQLite and PostgreSQL.
_CONSISTENCY = {
    "card whose parent is on another board": """
        SELECT c.id FROM cards c JOIN cards p ON p.id = c.parent_id
        JOIN boards b ON b.id = c.board_id
        WHERE b.workspace_id = :ws AND p.board_id <> c.board_id""",
    "edge whose ends are on another board": """
        SELECT e.id FROM edges e JOIN boards b ON b.id = e.board_id
        JOIN cards f ON f.id = e.from_card JOIN cards t ON t.id = e.to_card
        WHERE b.workspace_id = :ws AND (f.board_id <> e.board_id OR t.board_id <> e.board_id)""",
    "two cards with one ordinal": """
        SELECT c.board_id, c.ordinal FROM cards c JOIN boards b ON b.id = c.board_id
        WHERE b.workspace_id = :ws GROUP BY c.board_id, c.ordinal HAVING count(*) > 1""",
    "card ordinal beyond the board's sequence": """
        SELECT c.id FROM cards c JOIN boards b ON b.id = c.board_id
        WHERE b.workspace_id = :ws AND c.ordinal > b.card_seq""",
    "question naming a card of another board": """
        SELECT q.id FROM questions q JOIN cards c ON c.id = q.card_id
        JOIN boards b ON b.id = q.board_id
        WHERE b.workspace_id = :ws AND q.board_id <> c.board_id""",
}


def consistency_problems(
    backend: Backend, ws: Workspace, boards: Sequence[str] | None = None
) -> list[str]:
    """What is wrong with the database after a crash: SQLite's own integrity and
    foreign-key checks (whole file), then the store's rules (frames and their
    children agree, nothing points across boards, ordinals are unique) on
    ``boards`` (slugs), or on the whole workspace."""
    problems: list[str] = []
    if backend.sqlite_path is not None:
        raw = sqlite3.connect(backend.sqlite_path)
        try:
            integrity = [r[0] for r in raw.execute("PRAGMA integrity_check")]
            if integrity != ["ok"]:
                problems.append(f"integrity_check: {integrity[:5]}")
            fk = raw.execute("PRAGMA foreign_key_check").fetchall()
            if fk:
                problems.append(f"foreign_key_check: {fk[:5]}")
        finally:
            raw.close()
    where, args = "b.workspace_id = :ws", {"ws": ws.workspace_id}
    if boards is not None:
        where += " AND b.slug IN ({})".format(", ".join(f":s{i}" for i in range(len(boards))))
        args |= {f"s{i}": slug for i, slug in enumerate(boards)}
    with ws.store.read() as tx:
        for what, sql in _CONSISTENCY.items():
            rows = tx.conn.execute(text(sql.replace("b.workspace_id = :ws", where)), args)
            found = rows.fetchall()
            if found:
                problems.append(f"{what}: {[tuple(r) for r in found[:5]]}")
        rows = tx.conn.execute(
            text(
                "SELECT c.id, c.parent_id, c.children, c.deleted_at FROM cards c "
                f"JOIN boards b ON b.id = c.board_id WHERE {where}"
            ),
            args,
        ).fetchall()
    problems += _frame_problems(rows)
    return problems


def _frame_problems(rows: list[Any]) -> list[str]:
    """A frame's children list and its children's parent ids must agree (live cards)."""
    import json

    live = {r[0]: r for r in rows if r[3] is None}
    problems: list[str] = []
    for cid, row in live.items():
        children = row[2]
        if isinstance(children, str):
            children = json.loads(children)
        for child in children or ():
            if child in live and live[child][1] != cid:
                problems.append(f"frame {cid} lists {child}, whose parent is {live[child][1]}")
        parent = row[1]
        if parent in live:
            kids = live[parent][2]
            if isinstance(kids, str):
                kids = json.loads(kids)
            if cid not in (kids or ()):
                problems.append(f"card {cid} names parent {parent}, which does not list it")
    return problems
