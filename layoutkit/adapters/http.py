"""The HTTP adapter: an ASGI app (Starlette) under ``/api/v1``.

Every registered operation is reachable as ``POST /api/v1/ops/{operation}``;
the spec's named routes are a table that maps a path onto an operation and
its params. No rule lives here: requests become ``Workspace.call`` and
``ServiceError`` becomes a JSON error with its status.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import attrs
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from layoutkit import ServiceError, Workspace
from layoutkit.principal import Principal

API = "/api/v1"
#: compose_board bodies may be up to 8 MiB; no route takes more JSON than that.
MAX_JSON_BODY = 8 * 1024 * 1024

Authenticate = Callable[[Request], Principal | None]


@attrs.frozen
class NamedRoute:
    """A spec route: ``method path`` → operation, with path and query params folded in."""

    method: str
    path: str
    operation: str
    path_params: dict[str, str] = attrs.field(factory=dict)  # path name -> param name
    query_params: tuple[str, ...] = ()
    summary: str = ""


NAMED_ROUTES: tuple[NamedRoute, ...] = (
    NamedRoute(
        "POST",
        "/boards/{slug}/compose",
        "compose_board",
        {"slug": "board"},
        summary="Compose cards onto a board",
    ),
    NamedRoute(
        "GET", "/search", "search", query_params=("q", "mode", "kind", "limit"), summary="Search"
    ),
    NamedRoute(
        "POST",
        "/cards/{id}/refresh",
        "refresh_card",
        {"id": "id"},
        summary="Refresh a living source",
    ),
    NamedRoute(
        "POST", "/cards/{id}/pages", "render_pages", {"id": "id"}, summary="Re-render page images"
    ),
    NamedRoute(
        "POST",
        "/boards/{slug}/annotations/batch",
        "annotate",
        {"slug": "board"},
        summary="File a batch of annotations",
    ),
    NamedRoute(
        "POST",
        "/boards/{slug}/annotations/agent-verdict",
        "agent_verdict",
        {"slug": "board"},
        summary="Accept or dismiss staged annotations",
    ),
    NamedRoute(
        "POST",
        "/projects/{project}/transfer",
        "transfer_project",
        {"project": "project"},
        summary="Copy, merge or move a project",
    ),
    NamedRoute(
        "GET",
        "/projects/{project}/review/brief",
        "review_brief",
        {"project": "project"},
        query_params=("persona",),
        summary="Review brief",
    ),
    NamedRoute("POST", "/review/plan", "review_plan", summary="Plan a review run"),
    NamedRoute(
        "POST", "/tasks/{id}/brief", "compose_brief", {"id": "id"}, summary="Compose a brief"
    ),
)


def error_response(err: ServiceError) -> JSONResponse:
    return JSONResponse(err.body, status_code=err.status)


async def _json_body(request: Request) -> dict[str, Any]:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_JSON_BODY:
        raise ServiceError(413, "payload_too_large", f"request body over {MAX_JSON_BODY} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_JSON_BODY:
            raise ServiceError(413, "payload_too_large", f"request body over {MAX_JSON_BODY} bytes")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ServiceError(400, "invalid_json", f"request body is not JSON: {exc}") from exc
    if not isinstance(body, dict):
        raise ServiceError(400, "invalid_params", "request body must be a JSON object", field="")
    return body


def _coerce(value: str) -> Any:
    """Path and query values are text; ids and numbers arrive as numbers."""
    if value.isdigit():
        return int(value)
    return value


class HttpAdapter:
    """Holds the workspace and the authenticator; builds the Starlette routes."""

    def __init__(self, ws: Workspace, authenticate: Authenticate | None = None) -> None:
        self.ws = ws
        self.authenticate = authenticate

    def principal(self, request: Request) -> Principal | None:
        if self.authenticate is None:
            return None
        principal = self.authenticate(request)
        if principal is None:
            raise ServiceError(401, "unauthenticated", "send Authorization: Bearer <token>")
        return principal

    async def run(self, request: Request, op: str, params: dict[str, Any]) -> Response:
        try:
            principal = self.principal(request)
            result = await anyio.to_thread.run_sync(self.ws.call, op, params, principal)
        except ServiceError as err:
            return error_response(err)
        return JSONResponse(result)

    async def op_endpoint(self, request: Request) -> Response:
        try:
            params = await _json_body(request)
        except ServiceError as err:
            return error_response(err)
        return await self.run(request, request.path_params["operation"], params)

    def named_endpoint(self, route: NamedRoute) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                params = await _json_body(request) if route.method != "GET" else {}
            except ServiceError as err:
                return error_response(err)
            for name, param in route.path_params.items():
                params[param] = _coerce(request.path_params[name])
            for name in route.query_params:
                if name in request.query_params:
                    params[name] = _coerce(request.query_params[name])
            return await self.run(request, route.operation, params)

        return endpoint

    async def openapi_endpoint(self, request: Request) -> Response:
        return JSONResponse(openapi_document(self.ws))

    def routes(self) -> list[BaseRoute]:
        routes: list[BaseRoute] = [
            Route(f"{API}/openapi.json", self.openapi_endpoint, methods=["GET"]),
            Route(f"{API}/ops/{{operation}}", self.op_endpoint, methods=["POST"]),
        ]
        for named in NAMED_ROUTES:
            routes.append(
                Route(API + named.path, self.named_endpoint(named), methods=[named.method])
            )
        return routes


def create_app(ws: Workspace, authenticate: Authenticate | None = None) -> Starlette:
    """The ASGI app serving ``ws``; ``authenticate`` maps a request to a principal (None → 401)."""
    adapter = HttpAdapter(ws, authenticate)
    return Starlette(routes=adapter.routes())


_ERROR_SCHEMA = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
    "additionalProperties": True,
}


def openapi_document(ws: Workspace) -> dict[str, Any]:
    """OpenAPI 3.1 for every registered operation and every named route that has one."""
    paths: dict[str, Any] = {}
    errors = {
        str(code): {
            "description": text,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
        for code, text in ((400, "Bad request"), (404, "Not found"), (409, "Conflict"))
    }
    ops = {op["name"]: op for op in ws.operations()}
    for name, op in ops.items():
        paths[f"{API}/ops/{name}"] = {
            "post": {
                "operationId": name,
                "summary": op["description"].split(". ")[0][:120],
                "description": op["description"],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": op["params_schema"]}},
                },
                "responses": {
                    "200": {
                        "description": "Result",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    },
                    **errors,
                },
            }
        }
    for route in NAMED_ROUTES:
        op = ops.get(route.operation)
        if op is None:
            continue
        parameters = [
            {"name": n, "in": "path", "required": True, "schema": {"type": "string"}}
            for n in route.path_params
        ] + [
            {"name": n, "in": "query", "required": False, "schema": {"type": "string"}}
            for n in route.query_params
        ]
        entry: dict[str, Any] = {
            "operationId": f"{route.operation}_{route.method.lower()}_route",
            "summary": route.summary,
            "parameters": parameters,
            "responses": {"200": {"description": "Result"}, **errors},
        }
        if route.method != "GET":
            entry["requestBody"] = {"content": {"application/json": {"schema": {"type": "object"}}}}
        paths.setdefault(API + route.path, {})[route.method.lower()] = entry
    return {
        "openapi": "3.1.0",
        "info": {"title": "layoutkit", "version": "0.1.0"},
        "paths": paths,
        "components": {"schemas": {"Error": _ERROR_SCHEMA}},
    }
