"""API tokens: mint, list, revoke, and the owner token ``layoutkit serve`` keeps.

Only a token's hash is stored, so a plain token is shown once, when minted.
Listing shows what identifies a token without being it: id, kind, name,
creation time and whether it is revoked. Each function works inside the
transaction ``Workspace`` opened for it.
"""

from __future__ import annotations

from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.storage import ApiTokenRecord, Tx

TOKEN_KINDS = ("owner", "user", "agent", "service")
#: ``purpose`` of the owner token ``serve`` mints once per database and reuses.
SERVE = "serve"
#: The principal name the serve token stands for (as before it was kept).
SERVE_NAME = "local"


def describe(token: ApiTokenRecord) -> dict[str, Any]:
    """A token as JSON: everything about it except the secret (which is not kept)."""
    return {
        "id": token.id,
        "kind": token.kind,
        "name": token.name,
        "created": token.created_at.isoformat(),
        "revoked": None if token.revoked_at is None else token.revoked_at.isoformat(),
        "purpose": token.purpose,
    }


ROLES = ("owner", "admin", "member")


def create_token(tx: Tx, workspace_id: int, kind: str, name: str, role: str | None = None) -> str:
    """Mint a token that is a member of workspace ``workspace_id`` and return it in
    plain (the only time it is seen). ``role`` defaults to owner for owner tokens and
    member for the rest."""
    if kind not in TOKEN_KINDS:
        raise ServiceError(400, "invalid_token_kind", "token kind is owner, user, agent or service")
    if role is not None and role not in ROLES:
        raise ServiceError(400, "invalid_role", "role is owner, admin or member", allowed=ROLES)
    made, token = tx.create_api_token(kind, name, workspace_id=workspace_id, role=role)  # type: ignore[arg-type]
    tx.record_event(
        "token.create",
        f"{kind}:{name}",
        detail={"kind": kind, "role": tx.membership(workspace_id, made.id)},
    )
    return token


def list_tokens(tx: Tx, workspace_id: int) -> list[dict[str, Any]]:
    """Every token that is a member of the workspace, revoked ones included, oldest first."""
    return [describe(t) for t in tx.api_tokens(workspace_id)]


def revoke_token(tx: Tx, workspace_id: int, ref: str) -> dict[str, Any]:
    """Revoke the live token whose id or name is ``ref``; returns it as revoked.

    Raises :class:`ServiceError` 404 ``unknown_token`` when no live token
    matches and 409 ``ambiguous_token`` when several live tokens share the
    name (the body's ``ids`` lists them; revoke by id instead).
    """
    live = [t for t in tx.api_tokens(workspace_id) if t.revoked_at is None]
    matches = [t for t in live if str(t.id) == ref] or [t for t in live if t.name == ref]
    if not matches:
        raise ServiceError(
            404,
            "unknown_token",
            f"no live token has id or name {ref!r}",
            didYouMean=sorted({t.name for t in live}),
        )
    if len(matches) > 1:
        ids = [t.id for t in matches]
        raise ServiceError(
            409, "ambiguous_token", f"{len(ids)} live tokens are called {ref!r}", ids=ids
        )
    (token,) = matches
    tx.revoke_api_token(token.id)
    tx.record_event("token.revoke", f"{token.kind}:{token.name}", detail={"id": token.id})
    revoked = next(t for t in tx.api_tokens() if t.id == token.id)
    return describe(revoked)


def serve_token(
    tx: Tx, workspace_id: int, *, new: bool = False
) -> tuple[str | None, dict[str, Any]]:
    """The owner token ``serve`` keeps for this workspace: ``(plain, token)``.

    The first time (or with ``new``) one is minted, any earlier serve token is
    revoked, and the plain token is returned; otherwise the live one is
    returned without its plain form (``None``), which was shown when it was minted.
    """
    kept = [t for t in tx.api_tokens(workspace_id) if t.purpose == SERVE and t.revoked_at is None]
    if kept and not new:
        return None, describe(kept[-1])
    for old in kept:
        tx.revoke_api_token(old.id)
    record, plain = tx.create_api_token(
        "owner", SERVE_NAME, purpose=SERVE, workspace_id=workspace_id
    )
    tx.record_event(
        "token.create",
        f"owner:{SERVE_NAME}",
        detail={"kind": "owner", "purpose": SERVE, "replaced": [t.id for t in kept]},
    )
    return plain, describe(record)
