"""The tool-protocol (MCP) adapter: one tool per registered operation.

Names, descriptions and input schemas come straight from the operation
registry; every call goes through ``Workspace.call``. A refused operation is
returned as a tool error whose structured content is the error body plus its
HTTP-style status, so a model can read the code and correct itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import attrs
import mcp_types as types
from mcp.server.lowlevel.server import Server
from starlette.types import ASGIApp

from layoutkit import ServiceError, Workspace
from layoutkit.adapters import mcp_prompts, mcp_resources
from layoutkit.principal import Principal
from layoutkit.service.delivery.work import LONG_POLLS
from layoutkit.service.road import tool_hints, toolsets
from layoutkit.service.road.hints import hint_for
from layoutkit.service.road.lean import tool_schema
from layoutkit.service.road.registry import TEXT_FIELD, split_image

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

SERVER_NAME = "layoutkit"


def _tools(ws: Workspace, selection: frozenset[str] | None = None) -> list[types.Tool]:
    """The tools of the ``selection``'s toolsets (every tool when None)."""
    return [
        types.Tool(
            name=op.name,
            title=tool_hints.title(op),
            description=op.description,
            input_schema=tool_schema(op),
            annotations=types.ToolAnnotations.model_validate(tool_hints.annotations(op)),
            output_schema=op.output,
        )
        for op in ws.registry.tools()
        if selection is None or toolsets.toolset_of(op) in selection
    ]


#: ``/mcp/x/<toolsets>``: the toolsets a client names in the URL path.
_PATH_TOOLSETS = re.compile(r"/x/([^/]+)/?$")


def selection_of(request: Any, default: frozenset[str]) -> frozenset[str]:
    """The toolsets an HTTP request selects: the URL path, else the ``X-MCP-Toolsets``
    header, else ``default``. Raises 400 unknown_toolset for a name no toolset has."""
    if request is None:
        return default
    found = _PATH_TOOLSETS.search(request.url.path)
    if found is not None:
        return toolsets.parse(found.group(1))
    header = request.headers.get(toolsets.HEADER)
    return default if header is None else toolsets.parse(header)


def _check_selected(ws: Workspace, name: str, selection: frozenset[str]) -> None:
    if name in ws.registry.names():
        toolsets.check_selected(ws.registry.get(name), selection)


def _result(payload: dict[str, Any], *, error: bool) -> types.CallToolResult:
    # A result carrying pictures (the registry's result-shape rule) shows the first as
    # image content, its text block as text, any further ones (a board's tiles) as image
    # content after it, and the rest as JSON, without the pictures' bytes.
    images, text, rest = split_image(payload)
    content: list[types.ContentBlock] = [
        types.ImageContent(type="image", data=image["data"], mime_type=image["mime"])
        for image in images[:1]
    ]
    if text is not None:
        content.append(types.TextContent(type="text", text=text))
    content += [
        types.ImageContent(type="image", data=image["data"], mime_type=image["mime"])
        for image in images[1:]
    ]
    content.append(types.TextContent(type="text", text=json.dumps(rest, ensure_ascii=False)))
    structured = rest if text is None else {**rest, TEXT_FIELD: text}
    return types.CallToolResult(content=content, structured_content=structured, is_error=error)


def call_tool(
    ws: Workspace, name: str, arguments: dict[str, Any] | None, principal: Principal | None = None
) -> types.CallToolResult:
    """Run one tool call against ``ws``: a result, or a tool error carrying status and code."""
    try:
        if name in ws.registry.names() and not ws.registry.get(name).tool:
            # A board-UI route for people: reachable over HTTP, never as a tool.
            raise ServiceError(
                404, "unknown_operation", f"{name} is a route of the board UI, not a tool"
            )
        return _result(ws.call(name, arguments or {}, principal), error=False)
    except ServiceError as err:
        found = hint_for(name, arguments, err.body)
        hint = {} if found is None else {"hint": found}
        return _result({"status": err.status, **err.body, **hint}, error=True)


#: Where an HTTP request works and as whom: the server's own workspace or the one
#: its ``X-Layoutkit-Workspace`` header names, and the caller there.
PlacedOf = Callable[[Any], tuple[Workspace, Principal | None]]


def build_server(
    ws: Workspace,
    principal: Principal | None = None,
    placed_of: PlacedOf | None = None,
    selected: frozenset[str] | None = None,
    *,
    subscriptions: bool | None = None,
    stopping: Callable[[], bool] | None = None,
) -> Server[Any]:
    """An MCP server exposing the operations of ``ws`` in the ``selected`` toolsets
    (the default ones when None) as tools.

    Over stdio every call runs in ``ws`` as ``principal``; over HTTP
    ``placed_of`` reads the workspace and the caller from the HTTP request the
    transport attaches to the request context, and the request's path or header
    may select other toolsets. ``subscriptions`` (default: only without
    ``placed_of``, that is a stateful stdio session) serves ``resources/subscribe``.
    ``stopping`` says the HTTP server is stopping: a long poll then answers at once.
    """
    default = frozenset(toolsets.DEFAULT) if selected is None else selected

    def selection(ctx: Any) -> frozenset[str]:
        return selection_of(getattr(ctx, "request", None), default)

    def place(ctx: Any) -> tuple[Workspace, Principal | None]:
        if placed_of is None:
            return ws, principal
        return placed_of(getattr(ctx, "request", None))

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=_tools(ws, selection(ctx)))

    def run_sync(ctx: Any, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        try:
            there, who = place(ctx)
        except ServiceError as err:
            return _result({"status": err.status, **err.body}, error=True)
        return call_tool(there, name, arguments, who)

    async def run_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        try:
            _check_selected(ws, params.name, selection(ctx))
        except ServiceError as err:
            return _result({"status": err.status, **err.body}, error=True)
        long_poll = LONG_POLLS.get(params.name)
        if long_poll is not None:
            return await run_long_poll(ctx, long_poll, params.name, arguments)
        # Operations are synchronous engine + store work; keep the event loop free.
        return await anyio.to_thread.run_sync(run_sync, ctx, params.name, arguments)

    async def run_long_poll(
        ctx: Any, long_poll: Any, name: str, arguments: dict[str, Any]
    ) -> types.CallToolResult:
        # A long poll waits on the event loop between its short looks, so a
        # waiting agent holds neither a worker thread nor a database connection.
        try:
            # The token check reads the database: in a worker thread too.
            there, who = await anyio.to_thread.run_sync(place, ctx)
            found = await long_poll(
                there,
                arguments,
                who,
                anyio.to_thread.run_sync,
                stopping=stopping or (lambda: False),
            )
        except ServiceError as err:
            return _result({"status": err.status, **err.body}, error=True)
        return _result(found, error=False)

    return Server(
        SERVER_NAME,
        version="0.1.0",
        instructions="Compose boards and documents: send semantic content and placement "
        "intent; layoutkit validates, sizes, places and stores it. Read the contract with "
        "the docs tool.",
        on_list_tools=list_tools,
        on_call_tool=run_tool,
        **mcp_resources.handlers(
            place, subscriptions=placed_of is None if subscriptions is None else subscriptions
        ),
        **mcp_prompts.handlers(ws),
    )


def streamable_http_app(
    ws: Workspace,
    placed_of: PlacedOf,
    selected: frozenset[str] | None = None,
    *,
    stateful: bool = False,
    stopping: Callable[[], bool] | None = None,
) -> tuple[ASGIApp, Callable[[Any], AbstractAsyncContextManager[None]]]:
    """The streamable-HTTP MCP endpoint and the lifespan that runs its session manager.

    ``placed_of`` maps the HTTP request to its workspace and caller (raising a 401
    ServiceError when it carries no valid credential, a 404 for a workspace the
    token does not reach). ``selected`` toolsets are
    offered when a request names none (``LAYOUTKIT_TOOLSETS``, else the default).
    ``stateful`` keeps a session per client (in this process's memory, so one
    server process only), which is what resource subscriptions need.
    """
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    selected = toolsets.from_env() if selected is None else selected
    server = build_server(
        ws, placed_of=placed_of, selected=selected, subscriptions=stateful, stopping=stopping
    )
    manager = StreamableHTTPSessionManager(app=server, stateless=not stateful, json_response=True)

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with manager.run():
            yield

    return _Endpoint(manager, placed_of, selected), lifespan


@attrs.frozen
class _Endpoint:
    """The ASGI app of the MCP endpoint: checks the credential, then hands over to MCP.

    A class rather than a function so that Starlette's ``Route`` serves it as
    a raw ASGI app at ``/mcp`` itself (a ``Mount`` alone answers ``/mcp`` with a
    redirect to ``/mcp/``, which MCP clients do not all follow for a POST).
    """

    manager: StreamableHTTPSessionManager
    placed_of: PlacedOf
    selected: frozenset[str]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from starlette.requests import Request
        from starlette.responses import JSONResponse

        try:
            request = Request(scope)
            self.placed_of(request)
            # A name no toolset has is answered before a session starts.
            selection_of(request, self.selected)
        except ServiceError as err:
            await JSONResponse(err.body, status_code=err.status)(scope, receive, send)
            return
        await self.manager.handle_request(scope, receive, send)


def run_stdio(
    ws: Workspace, principal: Principal | None = None, selected: frozenset[str] | None = None
) -> None:
    """Serve ``ws``'s ``selected`` toolsets over standard input and output until the
    client hangs up."""
    from mcp.server.stdio import stdio_server

    server = build_server(ws, principal, selected=selected)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
