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
    "(validate, docs); diagrams are cards of this toolset (compose_board)",
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
    # Comment threads are annotations: one toolset holds the thread operations.
    "review.comments": "annotations",
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


def render(registry: Registry) -> str:
    """``docs/mcp-toolsets.md``: how to select toolsets, and each one's tools with their
    hints (R read-only, D destructive, I idempotent, W open world)."""
    from layoutkit.service.road.tool_hints import hints

    ops = {op.name: op for op in registry.tools()}
    out = [*_PAGE_HEAD.splitlines(), ""]
    for name, tools in members(registry).items():
        chosen = " (default)" if name in DEFAULT else ""
        out += [
            f"## `{name}`{chosen}",
            "",
            TOOLSETS[name][0].upper() + TOOLSETS[name][1:] + ".",
            "",
        ]
        out += ["| tool | hints |", "|---|---|"]
        for tool in tools:
            found = hints(ops[tool])
            flags = "".join(
                flag
                for flag, on in zip(
                    "RDIW",
                    (found.read_only, found.destructive, found.idempotent, found.open_world),
                    strict=True,
                )
                if on
            )
            out.append(f"| `{tool}` | {flags or '-'} |")
        out.append("")
    return "\n".join(out)


_PAGE_HEAD = f"""# MCP toolsets

<!-- Generated: python -m layoutkit.service.road.toolsets > docs/mcp-toolsets.md -->

An MCP server of layoutkit offers the tools of a selection of toolsets, so an agent
is shown the definitions it needs and no more. Without a selection it offers
{" and ".join(f"`{n}`" for n in DEFAULT)}: composing, reading and searching boards.

## Choosing toolsets

Name toolsets separated by commas; `all` names every toolset and `default` the
default ones (`default,tasks` adds one). A name that is no toolset is refused with
the list of names (400 `unknown_toolset` over HTTP, a usage error on the command line).

| where | how |
|---|---|
| stdio | `layoutkit mcp --toolsets boards,tasks` (or `--toolsets all`) |
| environment | `{ENV}=boards,tasks` for `layoutkit mcp`; for `layoutkit serve` it sets what `/mcp` offers when a request names nothing |
| HTTP, URL path | `POST /mcp/x/boards,tasks` (the path wins over the header) |
| HTTP, header | `X-MCP-Toolsets: boards,tasks` on requests to `/mcp` |

The path form follows the GitHub MCP server's `/mcp/x/<toolset>`. A tool outside
the selection is not listed; calling it answers a tool error (404
`tool_not_selected`) that names the toolset holding it and how to add it.

## Where a tool's toolset comes from

The registry decides (`layoutkit/service/road/toolsets.py`): an operation's
declared `toolset=`, else the module its handler lives in, else its service
family (`boards` and `pictures` go to `boards`, `uploads` to `documents`,
`review` to `review` except its annotations (`annotations`) and reading a board
back (`scrape_board`, in `boards`), `tasks` to `tasks`, `delivery` to `work`,
`workspaces` to `admin`). The generic verbs `create`, `update`, `list`, `get`
serve `boards`; `search` declares its own toolset. A test checks that every
operation lands in exactly one toolset and that the default covers the board
basics. Diagrams have no toolset of their own: they are cards, composed with
`compose_board`.

## Titles and hints

Every tool carries a title (its name as words unless the operation declares
`title=`) and the four MCP hints, derived from the declarations in
`layoutkit/service/road/tool_hints.py`:

- `readOnlyHint`: the operation writes nothing: not `writes`, and not `changes`
  (a pure operation writing through transactions of its own, like
  `wait_for_work`, which leases what it answers). A generic verb is read-only
  when none of its kinds writes.
- `destructiveHint`: it writes and either takes a `remove` param or declares
  `destroys=True` (deletes, revokes, clears, withdraws, archives a source).
- `idempotentHint`: it reads, or every write it does honours `requestKey`: a
  retry carrying the same key answers the first receipt and writes nothing more.
  Send a `requestKey` to make a retry safe.
- `openWorldHint`: it declares `fetches=True`: it fetches URLs (link cards are
  unfurled by `compose_board` and `update_cards`) or asks an AI model.

In the tables below: R read-only, D destructive, I idempotent, W open world.
"""


if __name__ == "__main__":
    from layoutkit.service.road.registry import REGISTRY

    # Run as ``python -m``, the parent packages are imported first: every family
    # has registered its operations by now.
    print(render(REGISTRY), end="")
