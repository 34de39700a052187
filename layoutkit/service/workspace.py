"""``Workspace``: the single entry point every adapter goes through."""

from __future__ import annotations

from typing import Any

import attrs

from layoutkit.errors import EngineError, ServiceError
from layoutkit.principal import Principal
from layoutkit.service.errors import to_service_error
from layoutkit.service.registry import REGISTRY, Registry
from layoutkit.storage import StorageError, Store, open_store

#: What a share link may do: read its board; annotate links may also annotate it.
_READ_OPERATIONS = frozenset(
    {"scrape_board", "get", "docs", "validate", "render_board", "board_stamp"}
)
SHARE_OPERATIONS: dict[str, frozenset[str]] = {
    "view": _READ_OPERATIONS,
    "annotate": _READ_OPERATIONS | {"annotate", "reply"},
}


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
            # Retention is enforced when a workspace opens: trashed cards go
            # after 30 days, request keys after their 24-hour replay window.
            tx.purge_deleted_cards()
            tx.purge_request_keys()

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

    def create_token(self, kind: str, name: str) -> str:
        """Mint an API token for ``kind`` (owner, user, agent, service) called ``name``.

        The plain token is returned once; only its hash is stored. Raises
        :class:`ServiceError` 400 ``invalid_token_kind`` for another kind.
        """
        if kind not in ("owner", "user", "agent", "service"):
            raise ServiceError(
                400, "invalid_token_kind", "token kind is owner, user, agent or service"
            )
        with self.store.transaction() as tx:
            _, token = tx.create_api_token(kind, name)  # type: ignore[arg-type]
            tx.record_event("token.create", f"{kind}:{name}", detail={"kind": kind})
        return token

    def authenticate(self, token: str) -> Principal | None:
        """The principal a bearer token or share-link token stands for, or None."""
        with self.store.read() as tx:
            if token.startswith("lks_"):
                link = tx.verify_share_token(token)
                board = tx.board(link.board_id) if link is not None else None
                if link is None or board is None or board.workspace_id != self.workspace_id:
                    return None
                return Principal.share(board.slug, link.mode)
            record = tx.verify_api_token(token)
        if record is None:
            return None
        if record.kind == "owner":
            return Principal.owner(record.name)
        return Principal(record.kind, record.name)

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
        who = principal or Principal.owner()
        if who.kind == "share" and op not in SHARE_OPERATIONS[who.mode or "view"]:
            raise ServiceError(
                403, "forbidden", f"a {who.mode} share link cannot call {op}", operation=op
            )
        checked = operation.check_params({} if params is None else params)
        try:
            return operation.handler(Call(self, who, checked))
        except EngineError as err:
            # Engines speak in codes; statuses are given here, once, for every operation.
            raise to_service_error(err) from err

    def operations(self) -> list[dict[str, Any]]:
        """Every registered operation as ``{name, description, params_schema}``."""
        return [op.describe() for op in self.registry]
