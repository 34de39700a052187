"""requestKey: an unchanged retry returns the first receipt; changed input conflicts.

Keys are scoped to the workspace and the calling principal and kept at least
24 hours (older ones are purged when a workspace opens). The receipt is saved
in the same transaction as the writes it describes, so a key never points at
work that was rolled back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.service.workspace import Call
from layoutkit.storage import ConflictError, RequestKeyRecord, Tx, input_hash


def _scope(call: Call) -> str:
    return f"{call.workspace.workspace_id}:{call.principal.label}"


def _replay(record: RequestKeyRecord, digest: str, key: str) -> dict[str, Any]:
    if record.input_hash != digest:
        raise ServiceError(
            409,
            "request_key_conflict",
            f"requestKey {key!r} was used with different input; use a new key",
        )
    return record.receipt


def run_once(call: Call, operation: str, write: Callable[[Tx], dict[str, Any]]) -> dict[str, Any]:
    """Run ``write`` in one transaction, honouring ``call.params['requestKey']``."""
    store = call.workspace.store
    key = call.params.get("requestKey")
    if key is None:
        with store.transaction() as tx:
            return write(tx)
    scope = _scope(call)
    digest = input_hash(operation, {k: v for k, v in call.params.items() if k != "requestKey"})
    with store.read() as tx:
        record = tx.request_key(scope, key)
    if record is not None:
        return _replay(record, digest, key)
    try:
        with store.transaction() as tx:
            receipt = write(tx)
            tx.save_request_key(scope, key, operation=operation, input_hash=digest, receipt=receipt)
        return receipt
    except ConflictError:
        # Another caller committed the same key first: answer as a retry would.
        with store.read() as tx:
            record = tx.request_key(scope, key)
        if record is None:
            raise
        return _replay(record, digest, key)
