"""A database made by release 0.1.0 opens, upgrades in place and is used like a new one.

The fixtures are dumps of databases that release's own code made (see their
first lines): the example board, an owner and an agent token, and the
``schema_version`` table of the hand-written migrations it had then.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect

from layoutkit import Workspace
from layoutkit.storage import StorageError, _migrations
from tests.storage.conftest import DURABLE_BACKENDS, PG_URL, Location, _location, schema_drift

FIXTURES = Path(__file__).with_name("fixtures")


def _load_release_0_1(location: Location) -> None:
    if location.backend == "sqlite_file":
        dump = (FIXTURES / "release-0.1.sqlite.sql").read_text()
        assert location.url is not None
        with closing(sqlite3.connect(location.url.removeprefix("sqlite:///"))) as db:
            db.executescript(dump)
        return
    assert PG_URL is not None and location.schema is not None
    dump = (FIXTURES / "release-0.1.postgresql.sql").read_text()
    engine = create_engine(PG_URL.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as conn:
        conn.exec_driver_sql(dump.replace("release_schema", location.schema))
    engine.dispose()


@pytest.fixture(params=DURABLE_BACKENDS)
def release_0_1(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Location]:
    for location in _location(request.param, tmp_path):
        _load_release_0_1(location)
        yield location


def test_the_old_database_is_stamped_then_upgraded(release_0_1: Location) -> None:
    store = release_0_1.open()
    try:
        assert store.schema_version() == _migrations.head()
        with store.read() as tx:
            assert "schema_version" not in inspect(tx.conn).get_table_names()
            assert schema_drift(tx.conn) == []
            assert [(t.kind, t.name, t.purpose) for t in tx.api_tokens()] == [
                ("owner", "local", None),
                ("agent", "claude", None),
            ]
            # Tokens made before memberships reach every workspace that existed (0012),
            # owner tokens as owners.
            workspaces = {w.id for w in tx.workspaces()}
            roles = {(t, r) for w, t, r in tx.memberships() if w in workspaces}
            kinds = {t.id: t.kind for t in tx.api_tokens()}
            assert workspaces and len(tx.memberships()) == len(workspaces) * len(kinds)
            assert {(kinds[t], r) for t, r in roles} == {("owner", "owner"), ("agent", "member")}
            # Each has a home (0015): the lowest workspace, as all were members at once.
            assert {t.home_workspace_id for t in tx.api_tokens()} == {min(workspaces)}
    finally:
        store.close()


def test_the_upgraded_database_reads_and_composes(release_0_1: Location) -> None:
    with Workspace(release_0_1.open()) as ws:
        before = ws.call("scrape_board", {"board": "welcome"})
        assert len(before["cards"]) == 11
        # Each card keeps the version it had (migration 0007), drawable as it is.
        with ws.store.read() as tx:
            kept = {c["id"]: tx.card_versions(c["id"]) for c in before["cards"]}
        assert all([v.version for v in kept[c["id"]]] == [c["version"]] for c in before["cards"])
        first = before["cards"][0]
        image = ws.call("get_card_image", {"board": "welcome", "cardId": first["id"]})
        assert image["cardVersion"] == first["version"]
        ws.call(
            "compose_board",
            {
                "board": "welcome",
                "cards": [{"kind": "note", "payload": {"md": "after the upgrade"}}],
            },
        )
        ws.call("create", {"kind": "board", "slug": "new-after-upgrade"})
    # Reopening finds nothing left to migrate and keeps what was written.
    with Workspace(release_0_1.open()) as ws:
        after = ws.call("scrape_board", {"board": "welcome"})
        assert len(after["cards"]) == 12
        assert {c["id"] for c in before["cards"]} < {c["id"] for c in after["cards"]}
        slugs = {b["slug"] for b in ws.call("list", {"kind": "board"})["boards"]}
        assert slugs == {"welcome", "new-after-upgrade"}


def test_a_schema_version_no_release_made_is_refused(tmp_path: Path) -> None:
    location = Location("sqlite_file", f"sqlite:///{tmp_path / 'odd.db'}")
    _load_release_0_1(location)
    with closing(sqlite3.connect(tmp_path / "odd.db")) as db, db:
        db.execute("UPDATE schema_version SET version = 2")
    with pytest.raises(StorageError, match="schema_version 2"):
        location.open()
