"""Who reaches a workspace: share links of a board, API tokens, memberships and
invitations.

A revoked share link or token stops authenticating at once (the HTTP API
answers 401 to it). Listing shows what identifies a credential, never the
credential itself (only hashes are kept). A token has a home, the workspace that
minted it; it joins any other workspace only by accepting an invitation, and
only its home revokes it (docs/workspaces.md).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.principal import Principal
from layoutkit.service.road import tokens as api_tokens
from layoutkit.service.road.reach import reachable_workspace
from layoutkit.service.road.registry import PEOPLE, REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import SLUG
from layoutkit.service.workspaces.admin import workspace_view
from layoutkit.storage import InvitationRecord, ShareLinkRecord

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
    destroys=True,
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


@REGISTRY.operation(
    "list_tokens",
    "List the API tokens of this workspace: its members and the tokens it minted (id, "
    "kind, name, created, revoked, purpose, home: the workspace that minted the token; "
    "live true leaves out revoked ones); never the tokens themselves, whose hashes alone "
    "are kept. The owner sees every token, anyone else the tokens in their own name.",
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
    "Revoke an API token by id or name. A token this workspace minted (its home) is revoked "
    "everywhere and answers 401 from then on; a member token minted by another workspace "
    "only stops being a member here (membershipEnded true) and keeps working in its home. "
    "The owner revokes any token, anyone else only tokens in their own name. A name several "
    "live tokens share answers 409 with their ids; revoke by id. The last live owner token "
    "of a workspace is not revoked (409 last_owner).",
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
    destroys=True,
)
def revoke_token(call: Call) -> dict[str, Any]:
    ref = call.params["token"]
    # Members and the tokens this workspace minted: a token of another workspace
    # that is no member here is as unknown as one that never was.
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
    return api_tokens.revoke_token(
        call.tx, call.workspace_id, matches[0]["id"], call.principal.label
    )


# ---------------------------------------------------------------- memberships


def _role_view(tx: Any, workspace_id: int, token_id: int, role: str) -> dict[str, Any]:
    token = tx.api_token(token_id)
    return {
        "token": token_id,
        "kind": None if token is None else token.kind,
        "name": None if token is None else token.name,
        "role": role,
        "revoked": token is not None and token.revoked_at is not None,
        "home": None if token is None else api_tokens.home_of(token, api_tokens.home_names(tx)),
    }


@REGISTRY.operation(
    "list_workspaces",
    "The workspaces the caller may work in, each with the caller's role there (owner, "
    "admin or member) and whether it is the one this call runs in: this one, and in a "
    "multi-workspace deployment every other one the caller's token is a member of. role "
    "keeps those where the caller has that role. Archived workspaces (archived: when) are "
    "left out, the current one aside, unless archived is true.",
    {
        "properties": {
            "role": {
                "enum": list(api_tokens.ROLES),
                "description": "only rows with this role",
            },
            "archived": {
                "type": "boolean",
                "description": "list archived workspaces too (default false)",
            },
        },
        "additionalProperties": False,
    },
)
def list_workspaces(call: Call) -> dict[str, Any]:
    tx, who = call.tx, call.principal
    # The workspaces a call of the caller's could work in: the same rule the road
    # applies to a task id naming another workspace.
    roles = {}
    for space in tx.workspaces():
        reach = reachable_workspace(
            tx, call.workspace_id, who, space.name, multi_workspace=call.workspace.multi_workspace
        )
        if reach is not None:
            roles[space.id] = reach[1]
    if "role" in call.params:
        roles = {w: role for w, role in roles.items() if role == call.params["role"]}
    every = call.params.get("archived", False)
    return {
        "workspaces": [
            workspace_view(w, roles[w.id], current=w.id == call.workspace_id)
            for w in tx.workspaces()
            if w.id in roles and (every or w.archived_at is None or w.id == call.workspace_id)
        ],
        "multiWorkspace": call.workspace.multi_workspace,
    }


@REGISTRY.operation(
    "list_members",
    "The tokens that are members of this workspace with their roles and homes (the "
    "workspace that minted each). Owners and admins see every member; anyone else sees "
    "their own membership. role keeps that role only.",
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
    "Change the role (owner, admin or member) of a token that is a member of this "
    "workspace, end its membership with remove true, or make a token this workspace "
    "minted a member again. A token of another workspace joins only by accepting an "
    "invitation (invite_member); named here, it is as unknown as a token that never was. "
    "The token is named by id (see list_tokens). The last live owner token is never "
    "removed nor demoted (409 last_owner). Owners only.",
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
    principals=PEOPLE,
    role="owner",
)
def set_member(call: Call) -> dict[str, Any]:
    tx, p, who = call.tx, call.params, call.principal
    if "role" in p and "remove" in p:
        raise ServiceError(
            400,
            "invalid_params",
            "send role to set a role or remove true to end the membership, not both",
            field="remove",
        )
    if not p.get("remove") and "role" not in p:
        raise ServiceError(400, "invalid_params", "send role, or remove true", field="role")
    token = tx.api_token(p["token"])
    held = None if token is None else tx.membership(call.workspace_id, token.id)
    if token is None or (held is None and token.home_workspace_id != call.workspace_id):
        # The same answer as for an id no token has, so another workspace's token ids
        # cannot be probed, nor its tokens pulled in without their consent.
        raise ServiceError(404, "unknown_token", f"no token has id {p['token']}", field="token")
    if p.get("remove"):
        if held == "owner":
            api_tokens.keep_an_owner(tx, call.workspace_id, token.id)
        removed = tx.remove_membership(call.workspace_id, token.id)
        tx.record_event("member.remove", who.label, detail={"token": token.id})
        return {"token": token.id, "removed": removed}
    if held == "owner" and p["role"] != "owner":
        api_tokens.keep_an_owner(tx, call.workspace_id, token.id)
    tx.set_membership(call.workspace_id, token.id, p["role"])
    tx.record_event("member.set", who.label, detail={"token": token.id, "role": p["role"]})
    return {"member": _role_view(tx, call.workspace_id, token.id, p["role"])}


# ---------------------------------------------------------------- invitations

#: How long an invitation stays open unless the inviter says otherwise.
INVITATION_DAYS = 7
_INVITATION = {
    "type": "string",
    "minLength": 1,
    "maxLength": 200,
    "description": "the invitation secret invite_member returned (lki_...)",
}


def _unknown_invitation() -> ServiceError:
    # Used, expired, withdrawn and unknown invitations answer alike: the answer says
    # nothing about which secrets ever existed.
    return ServiceError(
        404, "unknown_invitation", "no open invitation has this secret", field="invitation"
    )


@REGISTRY.operation(
    "invite_member",
    "Invite a token of any workspace to become a member of this one with role (owner, "
    "admin or member). Returns the invitation secret (lki_..., shown once; only its hash "
    "is kept): give it to the token's holder, who calls accept_invitation with it. It "
    "works once and lapses after expiresInDays (default 7), or when the inviting owner "
    "token is revoked or stops being an owner here. With a requestKey, a retry returns the "
    "same invitation (its receipt keeps the secret for the replay window, as share_board's "
    "does its link). Owners only.",
    {
        "required": ["role"],
        "properties": {
            "role": {"enum": list(api_tokens.ROLES)},
            "expiresInDays": {
                "type": "integer",
                "minimum": 1,
                "maximum": 90,
                "description": f"days the invitation stays open (default {INVITATION_DAYS})",
            },
        },
        "additionalProperties": False,
    },
    writes=True,
    principals=PEOPLE,
    role="owner",
)
def invite_member(call: Call) -> dict[str, Any]:
    tx, p, who = call.tx, call.params, call.principal
    days = p.get("expiresInDays", INVITATION_DAYS)
    invitation, secret = tx.create_invitation(
        call.workspace_id,
        p["role"],
        invited_by=who.label,
        inviter_token_id=who.token,
        expires_at=tx.now() + timedelta(days=days),
    )
    expires = invitation.expires_at.isoformat()
    tx.record_event(
        "member.invite",
        who.label,
        detail={"invitation": invitation.id, "role": invitation.role, "expires": expires},
    )
    return {
        "invitation": secret,
        "id": invitation.id,
        "workspace": call.workspace.name,
        "role": invitation.role,
        "expires": expires,
    }


def _open_invitation(tx: Any, invitation: InvitationRecord) -> bool:
    if invitation.used_at is not None:
        return False
    if invitation.expires_at <= tx.now():
        return False
    inviter = invitation.inviter_token_id
    if inviter is None:
        # Made in the same process, by the deployment itself.
        return True
    token = tx.api_token(inviter)
    # An owner token that is revoked, or no longer an owner there, takes its
    # invitations with it.
    return (
        token is not None
        and token.revoked_at is None
        and tx.membership(invitation.workspace_id, inviter) == "owner"
    )


@REGISTRY.operation(
    "accept_invitation",
    "Accept an invitation (the secret invite_member returned): the token this call is "
    "signed in with becomes a member of the inviting workspace with the invited role. "
    "Call it through a workspace where the token already works, such as the one that "
    "minted it. Used, expired and unknown invitations answer alike (404 "
    "unknown_invitation).",
    {
        "required": ["invitation"],
        "properties": {"invitation": _INVITATION},
        "additionalProperties": False,
    },
    writes=True,
)
def accept_invitation(call: Call) -> dict[str, Any]:
    tx, who = call.tx, call.principal
    if who.token is None:
        raise ServiceError(
            400,
            "token_required",
            "accept_invitation makes the caller's API token a member; a caller without "
            "one (in the same process) has nothing to make a member",
        )
    invitation = tx.invitation(call.params["invitation"])
    if invitation is None or not _open_invitation(tx, invitation):
        raise _unknown_invitation()
    where = tx.workspace(invitation.workspace_id)
    if where is None:
        raise _unknown_invitation()
    held = tx.membership(invitation.workspace_id, who.token)
    if held is not None:
        # Left open: the role there is for that workspace's owners to change.
        raise ServiceError(
            409,
            "already_member",
            f"this token is a member of {where.name!r} already, as {held}",
            workspace=where.name,
            role=held,
        )
    if not tx.use_invitation(invitation.id, who.token):
        raise _unknown_invitation()
    tx.set_membership(invitation.workspace_id, who.token, invitation.role)
    tx.record_event(
        "member.accept",
        who.label,
        detail={
            "invitation": invitation.id,
            "workspace": where.name,
            "token": who.token,
            "role": invitation.role,
        },
    )
    return {"workspace": where.name, "token": who.token, "role": invitation.role}
