"""What an agent pays before its first call: the size of the MCP tool list.

Run: ``python benches/mcp_tools_bench.py [--top N]``. An MCP client session (the
official SDK, in memory) asks a default server for ``tools/list``; each tool is
measured as the compact JSON the client received (name, title, description,
input and output schema, annotations: whatever the server sends). Tokens are an
estimate, characters / 4, not a tokenizer's count.

Groups: by toolset when the registry declares one (``Operation.toolset``), else
by the operation's service family (``op.handler.__module__.split('.')[2]``).
"""

from __future__ import annotations

import argparse
import collections
import json
from typing import Any

import anyio
from mcp.client._memory import InMemoryTransport
from mcp.client.session import ClientSession

from layoutkit import Workspace
from layoutkit.adapters.mcp import build_server
from layoutkit.service.road import toolsets

#: The issue's limits: the whole default list, and any one tool.
LIST_LIMIT = 64_000
TOOL_LIMIT = 12_000


def listed_tools(ws: Workspace, selection: str = "all") -> list[dict[str, Any]]:
    """The tools a client session offered the ``selection`` toolsets receives, each
    as the JSON object sent."""

    async def main() -> list[dict[str, Any]]:
        async with (
            InMemoryTransport(build_server(ws, selected=toolsets.parse(selection))) as (
                read,
                write,
            ),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            listed = await session.list_tools()
        return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]

    return anyio.run(main)


def chars(tool: dict[str, Any]) -> int:
    return len(json.dumps(tool, separators=(",", ":"), ensure_ascii=False))


def group_of(ws: Workspace, name: str) -> str:
    return toolsets.toolset_of(ws.registry.get(name))


def _row(label: str, n: int, count: int | str = "") -> str:
    return f"| {label} | {count} | {n:,} | {n // 4:,} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args()
    ws = Workspace.open()
    tools = listed_tools(ws)
    sizes = {t["name"]: chars(t) for t in tools}
    total = sum(sizes.values())
    groups: dict[str, list[str]] = collections.defaultdict(list)
    for name in sizes:
        groups[group_of(ws, name)].append(name)
    print("tokens ~ characters / 4 (an estimate)\n")
    print("| list | tools | characters | ~tokens |\n|---|---|---|---|")
    default = listed_tools(ws, "default")
    print(_row(f"default (limit {LIST_LIMIT:,})", sum(map(chars, default)), len(default)))
    print(_row("all", total, len(tools)))
    for group, names in sorted(groups.items(), key=lambda g: -sum(sizes[n] for n in g[1])):
        print(_row(f"toolset {group}", sum(sizes[n] for n in names), len(names)))
    print(f"\n| largest tools (limit {TOOL_LIMIT:,} each) | characters | ~tokens |")
    print("|---|---|---|")
    for name, n in sorted(sizes.items(), key=lambda s: -s[1])[: args.top]:
        print(f"| {name} | {n:,} | {n // 4:,} |")


if __name__ == "__main__":
    main()
