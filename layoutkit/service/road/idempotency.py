"""requestKey: an unchanged retry returns the first receipt; changed input conflicts.

Keys are scoped to the workspace and the calling principal and kept at least
24 hours (older ones are purged when a workspace opens). The road
(``Workspace.call``) saves the receipt in the same transaction as the writes
it describes, so a key never points at work that was rolled back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from layoutkit.errors import ServiceError
from layoutkit.storage import ConflictError, RequestKeyRecord, Tx, input_hash

if TYPE_CHECKING:
    from layoutkit.service.road.workspace import Call

__all__ = ["ConflictError", "Replay"]


def canonical(value: Any) -> Any:
    """``value`` with every number in one spelling, so equal JSON hashes alike.

    JSON does not tell ``2`` from ``2.0`` (nor ``-0`` from ``0``); a client's
    serializer may write either on a retry. As in RFC 8785, a float with an
    integral value is written as that integer. Booleans stay booleans.
    """
    if type(value) is float and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    return value


class Replay:
    """One call's request key: where it is kept and the digest of the input it stands for."""

    def __init__(self, call: Call, operation: str, key: str) -> None:
        self.key = key
        self.operation = operation
        self.scope = f"{call.workspace_id}:{call.principal.label}"
        self.digest = input_hash(
            operation, canonical({k: v for k, v in call.params.items() if k != "requestKey"})
        )

    def lookup(self, tx: Tx) -> dict[str, Any] | None:
        """The first receipt for this key, None for a new key; 409 for changed input."""
        record = tx.request_key(self.scope, self.key)
        return None if record is None else self._replay(record)

    def record(self, tx: Tx, receipt: dict[str, Any]) -> None:
        tx.save_request_key(
            self.scope,
            self.key,
            operation=self.operation,
            input_hash=self.digest,
            receipt=receipt,
        )

    def _replay(self, record: RequestKeyRecord) -> dict[str, Any]:
        if record.input_hash != self.digest:
            raise ServiceError(
                409,
                "request_key_conflict",
                f"requestKey {self.key!r} was used with different input; use a new key",
            )
        return record.receipt
