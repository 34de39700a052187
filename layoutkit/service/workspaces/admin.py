"""Workspace administration: making, renaming and archiving workspaces, and minting
API tokens, as operations every adapter offers (docs/workspaces.md).

Making, renaming and archiving are for multi-workspace deployments: a
single-tenant one keeps its one workspace as it is (400 ``single_tenant``). A new
workspace is never ownerless when a token makes it: that token becomes its
owner member, its home staying where it was minted.
"""

from __future__ import annotations

from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.formatting import an
from layoutkit.principal import Principal
from layoutkit.service.road import tokens as api_tokens
from layoutkit.service.road.registry import PEOPLE, REGISTRY
from layoutkit.service.road.workspace import Call

#: Names people type in a header, a task id (``<workspace>/<n>``) and a URL path.
WORKSPACE_NAME = {
    "type": "string",
    "pattern": "^[a-z0-9][a-z0-9_-]{0,62}$",
    "description": "lower-case letters, digits, - and _ (at most 63, starting with a "
    "letter or digit)",
}


def _multi_only(call: Call, what: str) -> None:
    if not call.workspace.multi_workspace:
        raise ServiceError(
            400,
            "single_tenant",
            f"this deployment keeps one workspace; {what} needs a multi-workspace "
            "deployment (LAYOUTKIT_MULTI_WORKSPACE=1)",
        )


#: What create_workspace and rename_workspace take: the name to give.
_NAME_PARAMS = {
    "required": ["name"],
    "properties": {"name": WORKSPACE_NAME},
    "additionalProperties": False,
}


def _free(tx: Any, name: str) -> None:
    """Refuse ``name`` when a workspace of the deployment has it (names are unique)."""
    if tx.workspace_by_name(name) is not None:
        raise ServiceError(
            409, "workspace_exists", f"a workspace is called {name!r} already", field="name"
        )


def workspace_view(space: Any, role: str | None, *, current: bool) -> dict[str, Any]:
    """A workspace as the workspace operations answer with it."""
    archived = space.archived_at
    return {
        "name": space.name,
        "role": role,
        "current": current,
        "archived": None if archived is None else archived.isoformat(),
    }


@REGISTRY.operation(
    "create_workspace",
    "Make a new workspace in this deployment (multi-workspace deployments only). The "
    "caller's token becomes its owner member, so it is never without an owner; the "
    "token's home stays where it was minted. Reach the new workspace with the "
    "X-Layoutkit-Workspace header (HTTP) or --workspace (CLI). 409 workspace_exists for a "
    "taken name. Owners of this workspace only.",
    _NAME_PARAMS,
    writes=True,
    principals=PEOPLE,
    role="owner",
)
def create_workspace(call: Call) -> dict[str, Any]:
    tx, who, name = call.tx, call.principal, call.params["name"]
    _multi_only(call, "making a workspace")
    _free(tx, name)
    space = tx.create_workspace(name)
    if who.token is not None:
        tx.set_membership(space.id, who.token, "owner")
    tx.record_event("workspace.create", who.label, detail={"workspace": name})
    return {
        "workspace": workspace_view(space, "owner", current=False),
        "owner": who.token,
    }


@REGISTRY.operation(
    "rename_workspace",
    "Rename the workspace this call runs in (multi-workspace deployments only). Names are "
    "unique: 409 workspace_exists for a taken one. Task ids and headers that spelled the "
    "old name stop reaching it. Owners only.",
    _NAME_PARAMS,
    writes=True,
    principals=PEOPLE,
    role="owner",
)
def rename_workspace(call: Call) -> dict[str, Any]:
    tx, who, name = call.tx, call.principal, call.params["name"]
    _multi_only(call, "renaming a workspace")
    before = tx.workspace(call.workspace_id)
    assert before is not None
    if before.name != name:
        _free(tx, name)
        tx.rename_workspace(call.workspace_id, name)
        tx.record_event("workspace.rename", who.label, detail={"from": before.name, "to": name})
    space = tx.workspace(call.workspace_id)
    assert space is not None
    workspace = call.workspace
    if workspace.workspace_id == call.workspace_id:
        # This process's object follows the new name once the rename has committed.
        call.after.append(lambda: setattr(workspace, "name", name))
    return {
        "workspace": workspace_view(space, who.workspace_role, current=True),
        "was": before.name,
    }


@REGISTRY.operation(
    "archive_workspace",
    "Archive the workspace this call runs in (multi-workspace deployments only), or bring "
    "it back with archived false. An archived workspace answers reads as before, refuses "
    "every write but this one (409 workspace_archived) and is left out of list_workspaces "
    "unless archived true is asked for. Owners only.",
    {
        "properties": {
            "archived": {
                "type": "boolean",
                "description": "true archives (the default), false brings it back",
            }
        },
        "additionalProperties": False,
    },
    writes=True,
    principals=PEOPLE,
    role="owner",
    destroys=True,
)
def archive_workspace(call: Call) -> dict[str, Any]:
    tx, who = call.tx, call.principal
    _multi_only(call, "archiving a workspace")
    archived = call.params.get("archived", True)
    before = tx.workspace(call.workspace_id)
    assert before is not None
    space = before
    if (before.archived_at is not None) != archived:
        space = tx.set_workspace_archived(call.workspace_id, archived)
        tx.record_event(
            "workspace.archive" if archived else "workspace.unarchive",
            who.label,
            detail={"workspace": space.name},
        )
    return {"workspace": workspace_view(space, who.workspace_role, current=True)}


def may_mint(who: Principal, kind: str, role: str) -> None:
    """Refuse (403 ``forbidden``) a token the caller may not mint here.

    Owners mint any token with any role; admins mint agent and service tokens with the
    member role. Minting never widens what the caller's own kind may do: only an
    owner token (or the deployment) mints owner tokens.
    """
    if kind == "owner" and who.kind != "owner":
        raise ServiceError(
            403, "forbidden", f"{an(who.kind)} token cannot mint owner tokens", field="kind"
        )
    if who.at_least("owner"):
        return
    if kind not in ("agent", "service") or role != "member":
        raise ServiceError(
            403,
            "forbidden",
            "admins mint agent and service tokens with the member role; owners mint the rest",
            field="kind" if kind not in ("agent", "service") else "role",
            role=who.workspace_role,
            required="owner",
        )


@REGISTRY.operation(
    "create_token",
    "Mint an API token of this workspace (its home) for kind (owner, user, agent or "
    "service) called name, a member here with role (default owner for an owner token, "
    "member for the rest). The plain token is returned once; only its hash is kept. "
    "Owners mint any token; admins mint agent and service tokens with the member role; "
    "only an owner token mints owner tokens.",
    {
        "required": ["kind", "name"],
        "properties": {
            "kind": {"enum": list(api_tokens.TOKEN_KINDS)},
            "name": {
                "type": "string",
                "minLength": 1,
                "maxLength": 200,
                "description": "who holds it (an agent token's name is its runtime)",
            },
            "role": {"enum": list(api_tokens.ROLES)},
        },
        "additionalProperties": False,
    },
    writes=True,
    principals=PEOPLE,
    role="admin",
)
def create_token(call: Call) -> dict[str, Any]:
    tx, p = call.tx, call.params
    kind, name = p["kind"], p["name"]
    role = p.get("role", "owner" if kind == "owner" else "member")
    may_mint(call.principal, kind, role)
    plain = api_tokens.create_token(tx, call.workspace_id, kind, name, role)
    made = tx.verify_api_token(plain)
    assert made is not None
    return {
        **api_tokens.describe(made, call.workspace_name),
        "role": role,
        "token": plain,
    }
