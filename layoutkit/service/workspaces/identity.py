"""Who the caller is, as the workspace sees them: the answer behind ``layoutkit
whoami`` and ``layoutkit login``'s check that a token works."""

from __future__ import annotations

from typing import Any

from layoutkit.service.road import tokens as api_tokens
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call


@REGISTRY.operation(
    "whoami",
    "Who this call runs as: kind (owner, user, agent, service or share), name, label "
    "(kind:name, as authorship shows it), role in this workspace, the workspace, the id "
    "and home workspace of the API token it signed in with (null in the same process), "
    "and for a share link its board and mode.",
    {"properties": {}, "additionalProperties": False},
    share=("view", "annotate"),
    output={
        "type": "object",
        "required": ["kind", "name", "label", "role", "workspace", "token", "home"],
        "properties": {
            "kind": {"enum": ["owner", "user", "agent", "service", "share"]},
            "name": {"type": "string"},
            "label": {"type": "string"},
            "role": {"enum": [*api_tokens.ROLES, None]},
            "workspace": {"type": "string"},
            "token": {"type": ["integer", "null"]},
            "home": {"type": ["string", "null"]},
            "board": {"type": "string"},
            "mode": {"enum": ["view", "annotate"]},
        },
    },
)
def whoami(call: Call) -> dict[str, Any]:
    who, tx = call.principal, call.tx
    home = None
    if who.token is not None:
        token = tx.api_token(who.token)
        if token is not None:
            home = api_tokens.home_of(token, api_tokens.home_names(tx))
    out: dict[str, Any] = {
        "kind": who.kind,
        "name": who.name,
        "label": who.label,
        # A share link holds no role: it grants one board in one mode.
        "role": None if who.kind == "share" else who.workspace_role,
        "workspace": call.workspace.name,
        "token": who.token,
        "home": home,
    }
    if who.kind == "share":
        out["board"], out["mode"] = who.board, who.mode
    return out
