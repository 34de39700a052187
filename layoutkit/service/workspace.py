"""``Workspace``: the single entry point every adapter goes through."""

from __future__ import annotations

from typing import Any

import attrs

from layoutkit.errors import ServiceError
from layoutkit.principal import Principal
from layoutkit.service.registry import REGISTRY, Registry


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

    def __init__(self, url: str | None = None, *, registry: Registry = REGISTRY) -> None:
        self.url = url
        self.registry = registry

    @classmethod
    def open(cls, url: str | None = None) -> Workspace:
        """Open a workspace; with no URL it lives in memory."""
        if url is not None:
            raise ServiceError(
                400,
                "unsupported_url",
                f"no storage backend for {url!r}; only the in-memory workspace exists so far",
            )
        return cls(url)

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
