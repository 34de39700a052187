"""Toolsets: the named groups of operations an agent chooses to be offered.

An agent pays for every tool definition it is shown, so a tool-protocol server
offers a selection of toolsets (the :data:`DEFAULT` ones unless told otherwise).
Each operation belongs to exactly one toolset, read off the registry: its own
``toolset`` when it declares one, else the module its handler lives in (the most
specific entry of :data:`_BY_MODULE`), else its family. Nothing here is a list of
operations, so a new operation lands in its family's toolset without an edit.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from layoutkit.errors import ServiceError, did_you_mean
from layoutkit.service.road.registry import Operation, Registry

#: Every toolset, in the order documents list them, with what it is for.
TOOLSETS: dict[str, str] = {
    "boards": "compose, update, arrange and read boards and cards; questions; pictures of "
    "boards; the generic verbs (create, update, list, get); the content contract "
    "(validate, docs). Diagrams are cards of this toolset (compose_board).",
    "search": "search boards, cards and tasks by words or meaning",
    "documents": "upload files, push documents and screenshots, PDF pages and blobs",
    "review": "review rules, review requests and plans, card images for a review",
    "annotations": "annotate boards and follow annotations up (status, replies, after-shots)",
    "tasks": "the task engine: refs, gates, drafts, briefs, pickup, spots and hand-backs",
    "work": "work delivered to agents (wait_for_work, heartbeats) and their asks",
    "admin": "workspace administration: members, tokens, invitations, share links, transfers",
}

#: Offered when nothing is selected: composing and reading boards.
DEFAULT: tuple[str, ...] = ("boards", "search")
ALL = "all"
DEFAULT_NAME = "default"
#: The environment variable a server reads its selection from.
ENV = "LAYOUTKIT_TOOLSETS"
#: The HTTP header a client names its selection in (the URL path wins over it).
HEADER = "x-mcp-toolsets"

#: Module (under ``layoutkit.service``) -> toolset; the longest matching prefix wins.
_BY_MODULE: dict[str, str] = {
    "boards": "boards",
    "pictures": "boards",
    "road.generic": "boards",
    "search": "search",
    "uploads": "documents",
    "review": "review",
    # Reading a board back is the other half of composing it.
    "review.scrape": "boards",
    "review.annotations": "annotations",
    "tasks": "tasks",
    "delivery": "work",
    "workspaces": "admin",
}
_PREFIX = "layoutkit.service."


def toolset_of(op: Operation) -> str:
    """The one toolset ``op`` belongs to."""
    if op.toolset is not None:
        return op.toolset
    module = op.handler.__module__.removeprefix(_PREFIX)
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        found = _BY_MODULE.get(".".join(parts[:end]))
        if found is not None:
            return found
    raise LookupError(f"{op.name}: no toolset for module {op.handler.__module__}")


def members(registry: Registry) -> dict[str, list[str]]:
    """Toolset -> the names of its tools, in registration order."""
    out: dict[str, list[str]] = {name: [] for name in TOOLSETS}
    for op in registry.tools():
        out[toolset_of(op)].append(op.name)
    return out


def parse(text: str | Iterable[str] | None) -> frozenset[str]:
    """The toolsets named by ``text`` (comma separated, or ``all``, or ``default``);
    nothing named means the default. Raises 400 ``unknown_toolset`` naming the allowed."""
    names = text.split(",") if isinstance(text, str) else list(text or ())
    wanted = {n.strip().lower() for n in names if n.strip()}
    if not wanted:
        return frozenset(DEFAULT)
    chosen: set[str] = set()
    for name in sorted(wanted):
        if name == ALL:
            chosen |= set(TOOLSETS)
        elif name == DEFAULT_NAME:
            chosen |= set(DEFAULT)
        elif name in TOOLSETS:
            chosen.add(name)
        else:
            allowed = [*TOOLSETS, ALL, DEFAULT_NAME]
            raise ServiceError(
                400,
                "unknown_toolset",
                f"no toolset named {name!r}; toolsets: {', '.join(allowed)}",
                allowed=allowed,
                didYouMean=did_you_mean(name, allowed),
            )
    return frozenset(chosen)


def from_env() -> frozenset[str]:
    """The selection a server starts with: :data:`ENV`, else the default."""
    return parse(os.environ.get(ENV))


def check_selected(op: Operation, selection: frozenset[str]) -> None:
    """Raise 404 ``tool_not_selected`` naming the toolset to select when ``op``
    is outside ``selection``."""
    toolset = toolset_of(op)
    if toolset in selection:
        return
    raise ServiceError(
        404,
        "tool_not_selected",
        f"{op.name} is in toolset {toolset!r}, which this session did not select "
        f"(selected: {', '.join(sorted(selection))}); add it with --toolsets, "
        f"{ENV}, the URL path /mcp/x/{toolset} or the X-MCP-Toolsets header",
        toolset=toolset,
        selected=sorted(selection),
    )
