"""Content-addressed blobs: files next to SQLite, a table elsewhere."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from layoutkit.storage import BlobStore, FileBlobStore, SqlStore, TableBlobStore, blob_key
from tests.storage.conftest import Location


def test_key_is_the_sha256_of_the_content() -> None:
    assert blob_key(b"abc") == "sha256:" + hashlib.sha256(b"abc").hexdigest()


def test_store_picks_the_variant_for_its_backend(store: SqlStore, location: Location) -> None:
    assert isinstance(store.blobs, BlobStore)
    if location.backend == "sqlite_file":
        assert isinstance(store.blobs, FileBlobStore)
        assert store.blobs.root.name == "store.db.blobs"
    else:
        assert isinstance(store.blobs, TableBlobStore)


@pytest.mark.parametrize("size", [0, 1, 3 * 1024 * 1024])
def test_put_get_has_round_trip(store: SqlStore, size: int) -> None:
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    key = store.blobs.put(data)
    assert key == blob_key(data)
    assert store.blobs.put(data) == key
    assert store.blobs.has(key)
    assert store.blobs.get(key) == data


def test_absent_and_malformed_keys(store: SqlStore) -> None:
    missing = blob_key(b"never stored")
    for key in (missing, "sha256:../../etc/passwd", "md5:abc", "", "sha256:" + "A" * 64):
        assert store.blobs.get(key) is None
        assert store.blobs.has(key) is False


def test_blob_put_in_a_transaction_is_visible_inside_it(store: SqlStore) -> None:
    with store.transaction() as tx:
        key = tx.blobs.put(b"chart rows")
        assert tx.blobs.get(key) == b"chart rows"
        assert tx.blobs.has(key)
    assert store.blobs.get(key) == b"chart rows"


def test_rollback_and_blobs(store: SqlStore) -> None:
    data = b"spilled table rows"
    with pytest.raises(RuntimeError), store.transaction() as tx:
        key = tx.blobs.put(data)
        raise RuntimeError("abort the batch")
    if isinstance(store.blobs, FileBlobStore):
        # The file outlives the rollback; being named by its content, it is
        # harmless and a later put of the same bytes reuses it.
        assert store.blobs.get(key) == data
    else:
        assert store.blobs.has(key) is False


def test_file_blobs_are_written_whole(tmp_path: Path) -> None:
    blobs = FileBlobStore(tmp_path / "b")
    keys = {blobs.put(f"blob {i}".encode() * 1000) for i in range(20)}
    files = [p for p in (tmp_path / "b").rglob("*") if p.is_file()]
    assert len(files) == 20
    # No temporary files are left behind and every file holds what its name says.
    for path in files:
        assert "sha256:" + path.name in keys
        assert hashlib.sha256(path.read_bytes()).hexdigest() == path.name
        assert path.parent.name == path.name[:2]
