"""Fixtures shared by the service tests that stand two server processes on one database."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from layoutkit import Workspace
from tests.conftest import POSTGRES_URL, pg_schema


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database URL of each backend; PostgreSQL skips without a test server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ws.db'}"
    if not POSTGRES_URL:
        pytest.skip("LAYOUTKIT_TEST_POSTGRES_URL is not set; PostgreSQL tests need a server")
    return POSTGRES_URL


@pytest.fixture
def pair(store_url: str) -> Iterator[tuple[Workspace, Workspace]]:
    """Two workspaces on one database, as two server processes see it."""
    name = f"pair-{uuid.uuid4().hex[:10]}"
    with Workspace.open(store_url, name=name) as one, Workspace.open(store_url, name=name) as two:
        yield one, two


@pytest.fixture
def own_store_url(store_url: str) -> Iterator[str]:
    """``store_url`` whose PostgreSQL tables are this test's alone: for a test that
    purges trash, which empties every workspace's trash of the database, so a card
    another test trashed and is about to restore stays there."""
    if store_url != POSTGRES_URL:
        yield store_url
        return
    with pg_schema() as url:
        yield url


@pytest.fixture
def own_pair(own_store_url: str) -> Iterator[tuple[Workspace, Workspace]]:
    """``pair`` on ``own_store_url``."""
    name = f"pair-{uuid.uuid4().hex[:10]}"
    with (
        Workspace.open(own_store_url, name=name) as one,
        Workspace.open(own_store_url, name=name) as two,
    ):
        yield one, two
