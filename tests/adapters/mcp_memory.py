"""An MCP client session (the official SDK) against a server in the same process."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
from mcp.client._memory import InMemoryTransport
from mcp.client.session import ClientSession

from layoutkit import Principal, Workspace
from layoutkit.adapters.mcp import build_server
from layoutkit.service.road.toolsets import parse

T = TypeVar("T")


def in_memory(
    ws: Workspace,
    script: Callable[[ClientSession], Awaitable[T]],
    principal: Principal | None = None,
    toolsets: str = "all",
) -> T:
    """Run ``script`` in an initialized client session with ``ws``'s MCP server,
    every call made as ``principal``, offering the ``toolsets`` named (every one by
    default; ``"default"`` for what a server offers unasked)."""

    async def main() -> Any:
        async with (
            InMemoryTransport(build_server(ws, principal, selected=parse(toolsets))) as (
                read,
                write,
            ),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await script(session)

    return anyio.run(main)
