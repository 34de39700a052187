from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from hypothesis import settings

from layoutkit import Workspace
from tests.through_client import through  # noqa: F401 (a fixture for every module)

# Hypothesis' per-example deadline is a timing assert: on a loaded machine (CI
# shares its cores) a correct example that reads the database can take longer.
settings.register_profile("layoutkit", deadline=None)
settings.load_profile("layoutkit")

POSTGRES_URL = os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL")
# The suite never fetches links from the real network: servers the tests start
# (serve, mcp in subprocesses) inherit this, and tests/net wires its fetchers to
# a stub resolver and loopback servers.
os.environ["LAYOUTKIT_FETCH"] = "off"
# Every warm board model a write uses is compared with one built from the
# database (service/boards/board_model.py); a stale model fails the test that used it.
os.environ.setdefault("LAYOUTKIT_VERIFY_MODELS", "1")


@contextmanager
def pg_schema() -> Iterator[str]:
    """A URL of the test PostgreSQL database whose tables live in a schema of their own,
    dropped afterwards. Some writes reach every workspace of a database (retention
    purges trash by the store's clock): a test that makes them, or moves the clock,
    keeps its data away from tests running beside it, in every process opening the URL."""
    assert POSTGRES_URL is not None
    schema = f"lk_own_{uuid.uuid4().hex[:12]}"
    libpq = POSTGRES_URL.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(libpq, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    sep = "&" if "?" in POSTGRES_URL else "?"
    try:
        yield f"{POSTGRES_URL}{sep}options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(libpq, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def ws() -> Iterator[Workspace]:
    with Workspace.open() as workspace:
        yield workspace


def _open_backend(kind: str, tmp_path: Path) -> Workspace:
    if kind == "memory":
        return Workspace.open()
    if kind == "sqlite":
        return Workspace.open(f"sqlite:///{tmp_path / 'ws.db'}")
    if not POSTGRES_URL:
        pytest.skip("LAYOUTKIT_TEST_POSTGRES_URL is not set; PostgreSQL tests need a server")
    # A workspace of its own per test keeps runs apart in one shared database.
    return Workspace.open(POSTGRES_URL, name=f"test-{uuid.uuid4().hex[:12]}")


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def any_ws(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Workspace]:
    """The same workspace behaviour on every storage backend."""
    workspace = _open_backend(request.param, tmp_path)
    try:
        yield workspace
    finally:
        workspace.close()
