"""API tokens: mint, list, revoke, and the owner token ``layoutkit serve`` keeps.

Only a token's hash is stored, so a plain token is shown once, when minted.
Listing shows what identifies a token without being it: id, kind, name,
creation time, whether it is revoked and its home (the workspace that minted
it, the only one that may revoke it; see docs/workspaces.md). Each function
works inside the transaction ``Workspace`` opened for it.
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


def describe(token: ApiTokenRecord, home: str | None = None) -> dict[str, Any]:
    """A token as JSON: everything about it except the secret (which is not kept), with
    ``home``, the name of the workspace that minted it."""
    return {
        "id": token.id,
        "kind": token.kind,
        "name": token.name,
        "created": token.created_at.isoformat(),
        "revoked": None if token.revoked_at is None else token.revoked_at.isoformat(),
        "purpose": token.purpose,
        "home": home,
    }


def home_names(tx: Tx) -> dict[int, str]:
    """Workspace names by id, to name tokens' homes."""
    return {w.id: w.name for w in tx.workspaces()}


def home_of(token: ApiTokenRecord, names: dict[int, str]) -> str | None:
    """The name of the token's home workspace (None for a token that has none)."""
    return None if token.home_workspace_id is None else names.get(token.home_workspace_id)


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
    """Every token that is a member of the workspace or whose home it is, revoked ones
    included, oldest first."""
    names = home_names(tx)
    return [describe(t, home_of(t, names)) for t in tx.api_tokens(workspace_id)]


def live_owners(tx: Tx, workspace_id: int) -> set[int]:
    """The ids of the live (unrevoked) tokens that are owners of the workspace. A caller
    in the same process is the deployment, not a member, and never counts."""
    live = {t.id for t in tx.api_tokens(workspace_id) if t.revoked_at is None}
    return {
        token
        for _, token, role in tx.memberships(workspace_id=workspace_id)
        if role == "owner" and token in live
    }


def keep_an_owner(tx: Tx, workspace_id: int, token_id: int, *, here: bool = True) -> None:
    """Refuse (409 ``last_owner``) to take away the owner role of ``token_id`` in
    workspace ``workspace_id`` when it is that workspace's last live owner token.

    ``here`` says whether the workspace is the one the call runs in; another one is
    not named, as the caller may not be a member of it.
    """
    # Counted under the lock: two owners demoting each other at once must not both
    # see the other still there.
    tx.lock_memberships(workspace_id)
    if live_owners(tx, workspace_id) != {token_id}:
        return
    where = "this workspace" if here else "another workspace it is an owner of"
    raise ServiceError(
        409,
        "last_owner",
        f"token {token_id} is the last live owner token of {where}: make another token "
        "an owner there first",
        token=token_id,
    )


def revoke_token(tx: Tx, workspace_id: int, token_id: int, actor: str) -> dict[str, Any]:
    """Take the live token ``token_id`` away from workspace ``workspace_id``.

    A token whose home is this workspace is revoked (everywhere: it stops
    authenticating); a member token whose home is elsewhere only stops being a
    member here, and its home keeps it. Returns the token's row with
    ``membershipEnded`` telling the two apart. Raises 409 ``last_owner`` rather
    than leave a workspace without a live owner token. ``actor`` is who asks, as
    the events record it. The caller has checked that the token is one this
    workspace may touch.
    """
    token = tx.api_token(token_id)
    if token is None:
        raise ServiceError(404, "unknown_token", f"no live token has id or name '{token_id}'")
    names = home_names(tx)
    if token.home_workspace_id == workspace_id:
        for where, _, role in tx.memberships(token_id=token.id):
            if role == "owner":
                keep_an_owner(tx, where, token.id, here=where == workspace_id)
        tx.revoke_api_token(token.id)
        tx.record_event("token.revoke", f"{token.kind}:{token.name}", detail={"id": token.id})
        revoked = tx.api_token(token.id)
        assert revoked is not None
        return {**describe(revoked, names.get(workspace_id)), "membershipEnded": False}
    if tx.membership(workspace_id, token.id) == "owner":
        keep_an_owner(tx, workspace_id, token.id)
    tx.remove_membership(workspace_id, token.id)
    tx.record_event("member.remove", actor, detail={"token": token.id, "via": "revoke_token"})
    return {**describe(token, home_of(token, names)), "membershipEnded": True}


def serve_token(
    tx: Tx, workspace_id: int, *, new: bool = False
) -> tuple[str | None, dict[str, Any]]:
    """The owner token ``serve`` keeps for this workspace: ``(plain, token)``.

    The first time (or with ``new``) one is minted, any earlier serve token is
    revoked, and the plain token is returned; otherwise the live one is
    returned without its plain form (``None``), which was shown when it was minted.
    """
    # Only this workspace's own: a serve token of another workspace may be a member here.
    kept = [
        t
        for t in tx.api_tokens(workspace_id)
        if t.purpose == SERVE and t.revoked_at is None and t.home_workspace_id == workspace_id
    ]
    names = home_names(tx)
    if kept and not new:
        return None, describe(kept[-1], names.get(workspace_id))
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
    return plain, describe(record, names.get(workspace_id))
