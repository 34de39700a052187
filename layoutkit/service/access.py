"""Revoking what grants access: share links of a board, and API tokens.

A revoked share link or token stops authenticating at once (the HTTP API
answers 401 to it). Listing shows what identifies a credential, never the
credential itself (only hashes are kept).
"""

from __future__ import annotations

from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.principal import Principal
from layoutkit.service import tokens as api_tokens
from layoutkit.service._common import SLUG
from layoutkit.service.registry import REGISTRY
from layoutkit.service.workspace import Call
from layoutkit.storage import ShareLinkRecord

_LINK_ID = {"type": "string", "pattern": "^sh_[A-Za-z0-9_-]{1,80}$", "description": "share link id"}


def _link_view(link: ShareLinkRecord) -> dict[str, Any]:
    return {
        "id": link.id,
        "mode": link.mode,
        "cardId": link.card_id,
        "createdBy": link.created_by,
        "created": link.created_at.isoformat(),
        "revoked": None if link.revoked_at is None else link.revoked_at.isoformat(),
    }


@REGISTRY.operation(
    "list_share_links",
    "List a board's share links, revoked ones included: id, mode, cardId, who minted it and "
    "when, and when it was revoked. The link URLs are not kept and never shown.",
    {"required": ["board"], "properties": {"board": SLUG}, "additionalProperties": False},
    board="board",
)
def list_share_links(call: Call) -> dict[str, Any]:
    links = call.tx.share_links(call.board.id)
    return {"board": call.board.slug, "links": [_link_view(link) for link in links]}


@REGISTRY.operation(
    "revoke_share_link",
    "Revoke one share link of a board (by the id share_board returned): its URL stops "
    "working at once. Revoking a revoked link answers 404.",
    {
        "required": ["board", "id"],
        "properties": {"board": SLUG, "id": _LINK_ID},
        "additionalProperties": False,
    },
    board="board",
    writes=True,
)
def revoke_share_link(call: Call) -> dict[str, Any]:
    tx, board = call.tx, call.board
    link = tx.share_link(call.params["id"])
    if link is None or link.board_id != board.id or link.revoked_at is not None:
        raise ServiceError(
            404,
            "unknown_share_link",
            f"board {board.slug!r} has no live share link {call.params['id']!r}",
            field="id",
        )
    tx.revoke_share_link(link.id)
    tx.record_event(
        "board.unshare", call.principal.label, board_id=board.id, detail={"id": link.id}
    )
    revoked = tx.share_link(link.id)
    assert revoked is not None
    return {"board": board.slug, "link": _link_view(revoked)}


def _own_token(principal: Principal, token: dict[str, Any]) -> bool:
    """The workspace owner manages every token; anyone else only tokens in their own name."""
    return principal.at_least("owner") or f"{token['kind']}:{token['name']}" == principal.label


def _owned_workspaces(tx: Any, principal: Principal) -> set[int] | None:
    """The workspaces the caller's token is an owner of; None for a caller in the same
    process, which is the deployment itself and owns every workspace."""
    if principal.token is None:
        return None
    return {w for w, _, role in tx.memberships(token_id=principal.token) if role == "owner"}


def _may_name_token(tx: Any, principal: Principal, token_id: int) -> bool:
    """Whether the caller may name token ``token_id`` to make it a member here: their own
    token, or one that is a member of a workspace they own (list_tokens there shows it).
    A token of a workspace the caller does not own is as unknown as one that never was:
    token ids are small numbers, and naming one must not pull it (its kind, its name,
    the power to revoke it) into another workspace."""
    owned = _owned_workspaces(tx, principal)
    if owned is None or token_id == principal.token:
        return True
    return any(w in owned for w, _, _ in tx.memberships(token_id=token_id))


@REGISTRY.operation(
    "list_tokens",
    "List API tokens (id, kind, name, created, revoked, purpose; live true leaves out "
    "revoked ones); never the tokens "
    "themselves, whose hashes alone are kept. The owner sees every token, anyone else "
    "the tokens in their own name.",
    {
        "properties": {
            "live": {"type": "boolean", "description": "only tokens not revoked (default false)"}
        },
        "additionalProperties": False,
    },
)
def list_tokens(call: Call) -> dict[str, Any]:
    rows = api_tokens.list_tokens(call.tx, call.workspace_id)
    live = call.params.get("live", False)
    return {
        "tokens": [
            t
            for t in rows
            if _own_token(call.principal, t) and not (live and t["revoked"] is not None)
        ]
    }


@REGISTRY.operation(
    "revoke_token",
    "Revoke an API token by id or name: it answers 401 from then on. The owner revokes any "
    "token, anyone else only tokens in their own name. A name several live tokens share "
    "answers 409 with their ids; revoke by id.",
    {
        "required": ["token"],
        "properties": {
            "token": {
                "type": "string",
                "minLength": 1,
                "maxLength": 200,
                "description": "the token's id or name (see list_tokens)",
            }
        },
        "additionalProperties": False,
    },
    writes=True,
)
def revoke_token(call: Call) -> dict[str, Any]:
    ref = call.params["token"]
    live = [
        t
        for t in api_tokens.list_tokens(call.tx, call.workspace_id)
        if t["revoked"] is None and _own_token(call.principal, t)
    ]
    matches = [t for t in live if str(t["id"]) == ref] or [t for t in live if t["name"] == ref]
    if not matches:
        # Someone else's token is as unknown to the caller as one that never was.
        raise ServiceError(
            404,
            "unknown_token",
            f"no live token of yours has id or name {ref!r}",
            didYouMean=sorted({t["name"] for t in live}),
        )
    if len(matches) > 1:
        ids = [t["id"] for t in matches]
        raise ServiceError(
            409, "ambiguous_token", f"{len(ids)} live tokens are called {ref!r}", ids=ids
        )
    (token,) = matches
    _check_revocable(call, token)
    return api_tokens.revoke_token(call.tx, call.workspace_id, str(token["id"]))


def _check_revocable(call: Call, token: dict[str, Any]) -> None:
    """A token revoked stops working in every workspace it is a member of: an owner of
    this one revokes it only when they own each of the others too (else they end its
    membership here). The token the caller signed in with is theirs to revoke."""
    owned = _owned_workspaces(call.tx, call.principal)
    if owned is None or token["id"] == call.principal.token:
        return
    elsewhere = {
        w for w, _, _ in call.tx.memberships(token_id=token["id"]) if w != call.workspace_id
    }
    if not elsewhere <= owned:
        raise ServiceError(
            403,
            "member_elsewhere",
            f"token {token['id']} is also a member of workspaces you do not own; end its "
            "membership here with set_member remove",
            id=token["id"],
        )


# ---------------------------------------------------------------- memberships


def _role_view(tx: Any, workspace_id: int, token_id: int, role: str) -> dict[str, Any]:
    token = next((t for t in tx.api_tokens(workspace_id) if t.id == token_id), None)
    return {
        "token": token_id,
        "kind": None if token is None else token.kind,
        "name": None if token is None else token.name,
        "role": role,
        "revoked": token is not None and token.revoked_at is not None,
    }


@REGISTRY.operation(
    "list_workspaces",
    "The workspaces the caller belongs to, each with the caller's role there (owner, "
    "admin or member) and whether it is the one this call runs in. A token sees only "
    "the workspaces it is a member of; role keeps those where the caller has that role.",
    {
        "properties": {
            "role": {
                "enum": list(api_tokens.ROLES),
                "description": "only rows with this role",
            }
        },
        "additionalProperties": False,
    },
)
def list_workspaces(call: Call) -> dict[str, Any]:
    tx, who = call.tx, call.principal
    if who.token is None:
        # A caller in the same process is the deployment itself: it reaches every
        # workspace of the database, as their owner.
        roles = {w.id: "owner" for w in tx.workspaces()}
    else:
        roles = {w: role for w, _, role in tx.memberships(token_id=who.token)}
    if "role" in call.params:
        roles = {w: role for w, role in roles.items() if role == call.params["role"]}
    return {
        "workspaces": [
            {"name": w.name, "role": roles[w.id], "current": w.id == call.workspace_id}
            for w in tx.workspaces()
            if w.id in roles
        ],
        "multiWorkspace": call.workspace.multi_workspace,
    }


@REGISTRY.operation(
    "list_members",
    "The tokens that are members of this workspace with their roles. Owners and admins "
    "see every member; anyone else sees their own membership. role keeps that role only.",
    {
        "properties": {
            "role": {
                "enum": list(api_tokens.ROLES),
                "description": "only rows with this role",
            }
        },
        "additionalProperties": False,
    },
)
def list_members(call: Call) -> dict[str, Any]:
    tx, who = call.tx, call.principal
    rows = tx.memberships(workspace_id=call.workspace_id)
    if not who.at_least("admin"):
        rows = [r for r in rows if r[1] == who.token]
    if "role" in call.params:
        rows = [r for r in rows if r[2] == call.params["role"]]
    return {"members": [_role_view(tx, call.workspace_id, t, role) for _, t, role in rows]}


@REGISTRY.operation(
    "set_member",
    "Make a token a member of this workspace with a role (owner, admin or member), change "
    "its role, or end its membership with remove true. The token is named by id (see "
    "list_tokens in the workspace that minted it). Owners only.",
    {
        "required": ["token"],
        "properties": {
            "token": {"type": "integer", "minimum": 1, "description": "the token's id"},
            "role": {"enum": list(api_tokens.ROLES)},
            "remove": {"type": "boolean"},
        },
        "additionalProperties": False,
    },
    writes=True,
    principals=("owner", "user"),
)
def set_member(call: Call) -> dict[str, Any]:
    tx, p, who = call.tx, call.params, call.principal
    if not who.at_least("owner"):
        raise ServiceError(
            403,
            "forbidden",
            "only an owner of this workspace changes its members",
            required="owner",
        )
    if not any(t.id == p["token"] for t in tx.api_tokens()) or not _may_name_token(
        tx, who, p["token"]
    ):
        raise ServiceError(404, "unknown_token", f"no token has id {p['token']}", field="token")
    if p.get("remove"):
        removed = tx.remove_membership(call.workspace_id, p["token"])
        tx.record_event("member.remove", who.label, detail={"token": p["token"]})
        return {"token": p["token"], "removed": removed}
    if "role" not in p:
        raise ServiceError(400, "invalid_params", "send role, or remove true", field="role")
    tx.set_membership(call.workspace_id, p["token"], p["role"])
    tx.record_event("member.set", who.label, detail={"token": p["token"], "role": p["role"]})
    return {"member": _role_view(tx, call.workspace_id, p["token"], p["role"])}
