"""``Workspace``: the single entry point every adapter goes through."""

from __future__ import annotations

from typing import Any

import attrs

from layoutkit.errors import ServiceError
from layoutkit.principal import Principal
from layoutkit.service.registry import REGISTRY, Registry
from layoutkit.storage import StorageError, Store, open_store


@attrs.frozen(slots=True)
class Call:
    """What a handler receives: the workspace, who is calling and the checked params."""

    workspace: Workspace
    principal: Principal
    params: dict[str, Any]


class Workspace:
    """A workspace of boards, documents and their operations.

    Open one with :meth:`open`, then run operations by name with :meth:`call`.
    """

    def __init__(
        self, store: Store, *, name: str = "default", registry: Registry = REGISTRY
    ) -> None:
        self.store = store
        self.registry = registry
        with store.transaction() as tx:
            self.workspace_id: int = tx.ensure_workspace(name).id

    @classmethod
    def open(cls, url: str | None = None, *, name: str = "default") -> Workspace:
        """Open a workspace stored at ``url``.

        No URL keeps everything in memory; ``sqlite:///path.db`` is a file next
        to which blobs are kept; ``postgresql://...`` shares one database between
        processes. Migrations run on open. Raises :class:`ServiceError` (400
        ``unsupported_url``) for a URL no backend understands.
        """
        try:
            store = open_store(url)
        except StorageError as exc:
            raise ServiceError(400, "unsupported_url", str(exc)) from exc
        return cls(store, name=name)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(
        self, op: str, params: dict[str, Any] | None = None, principal: Principal | None = None
    ) -> dict[str, Any]:
        """Run operation ``op`` and return its JSON-able result.

        Raises :class:`ServiceError` for an unknown operation (404
        ``unknown_operation``), params that do not fit the operation's schema
        (400 ``invalid_params``) or any refusal of the operation itself.
        """
        operation = self.registry.get(op)
        checked = operation.check_params({} if params is None else params)
        return operation.handler(Call(self, principal or Principal.owner(), checked))

    def operations(self) -> list[dict[str, Any]]:
        """Every registered operation as ``{name, description, params_schema}``."""
        return [op.describe() for op in self.registry]
