"""The HTTP adapter: an ASGI app (Starlette) under ``/api/v1``.

Every registered operation is reachable as ``POST /api/v1/ops/{operation}``;
the spec's named routes are a table that maps a path onto an operation and
its params. No rule lives here: requests become ``Workspace.call`` and
``ServiceError`` becomes a JSON error with its status.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import gc
import json
import logging
import os
import re
import signal
import threading
import urllib.parse
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import attrs
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import Message, Receive

from layoutkit import ServiceError, Workspace
from layoutkit.adapters import _workers
from layoutkit.adapters._serving import uvicorn_server
from layoutkit.adapters.viewer import (
    VIEWER_JS,
    VIEWER_JS_VERSION,
    board_index_page,
    change_stream,
    message_page,
    viewer_page,
)
from layoutkit.examples import seed_example
from layoutkit.principal import Principal
from layoutkit.service.delivery.work import LONG_POLLS
from layoutkit.service.pictures import travel
from layoutkit.service.road import offload
from layoutkit.service.road.errors import parse_request_json
from layoutkit.service.uploads import uploads

API = "/api/v1"
#: Operations one server process runs at once; more wait their turn on the event
#: loop. Threads share one interpreter lock: with 16 running at once (32 clients
#: on two processes) each PostgreSQL request spent 8.1 ms of CPU against 7.4 at
#: most 6, and two workers served 154 against 196 requests/s. Heavy work (diagram
#: layout, drawing) runs in engine processes, so a turn mostly waits there.
CALLS_AT_ONCE = 8

log = logging.getLogger(__name__)

#: Worker processes ``layoutkit serve`` starts for diagram layout (see service.offload).
ENGINE_WORKERS = 2
#: Where ``layoutkit serve --workers N`` hands its settings to the worker processes
#: uvicorn starts (they are spawned: they share the database, not this process).
WORKER_SETTINGS_ENV = "LAYOUTKIT_SERVE_WORKER"
#: compose_board bodies may be up to 8 MiB; no route takes more JSON than that.
MAX_JSON_BODY = 8 * 1024 * 1024


@attrs.frozen
class NamedRoute:
    """A spec route: ``method path`` → operation, with path and query params folded in."""

    method: str
    path: str
    operation: str
    path_params: dict[str, str] = attrs.field(factory=dict)  # path name -> param name
    query_params: tuple[str, ...] = ()
    summary: str = ""
    #: The status of a success: 201 where the route creates what it answers with.
    status: int = 200


NAMED_ROUTES: tuple[NamedRoute, ...] = (
    NamedRoute("POST", "/work/wait", "wait_for_work", summary="Wait for work (long poll)"),
    NamedRoute("POST", "/asks/{id}/answer", "answer_ask", {"id": "id"}, summary="Answer an ask"),
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
    *(
        NamedRoute(method, prefix + path, op, {**params, **extra}, query, summary)
        for prefix, params in (
            ("/projects/{project}/review/rules", {"project": "project"}),
            # The workspace layer's rules: the spec names no path; this one mirrors
            # the project path without the project.
            ("/review/rules", {}),
        )
        for method, path, op, extra, query, summary in (
            ("GET", "", "list_review_rules", {}, (), "Review rules in force"),
            ("PUT", "", "put_review_rule", {}, (), "Write a review rule (id from the source)"),
            ("DELETE", "", "clear_review_rules", {}, (), "Delete every rule of the layer"),
            ("GET", "/{id}", "get_review_rule", {"id": "id"}, ("history", "version"), "A rule"),
            ("PUT", "/{id}", "put_review_rule", {"id": "id"}, (), "Write a review rule"),
            ("DELETE", "/{id}", "delete_review_rule", {"id": "id"}, (), "Delete a review rule"),
        )
    ),
    NamedRoute("POST", "/review/plan", "review_plan", summary="Plan a review run"),
    NamedRoute(
        "POST", "/tasks/{id}/brief", "compose_brief", {"id": "id"}, summary="Compose a brief"
    ),
)


#: Multipart upload routes: path → operation, with the path param's name in the op.
UPLOAD_ROUTES: tuple[NamedRoute, ...] = (
    NamedRoute(
        "POST",
        "/boards/{slug}/upload",
        "upload_files",
        {"slug": "board"},
        summary="Upload files",
        status=201,
    ),
    NamedRoute(
        "POST",
        "/tasks/{id}/upload",
        "attach_task_files",
        {"id": "id"},
        summary="Attach a file",
        status=201,
    ),
)


#: Stored files shown in the browser as they are; anything else is downloaded (an
#: uploaded HTML or SVG file must never run as a page of this origin).
INLINE_FILE_TYPES = frozenset(
    {"application/pdf", "image/png", "image/jpeg", "image/gif", "image/webp", "text/plain"}
)


def _decimal_id(text: str) -> Any:
    # A card id the query spells out; anything else goes on as text, for the params
    # check to refuse with the path of the bad entry.
    return int(text) if text.isdecimal() else text


def _attachment(name: str) -> str:
    return f"attachment; filename*=UTF-8''{urllib.parse.quote(name, safe='')}"


#: Caching of a blob answer: its address names its content, so it never goes stale;
#: private because who may read it depends on the caller.
BLOB_CACHE = "private, max-age=31536000, immutable"


def _etags(header: str) -> set[str]:
    """The entity tags of an If-None-Match header, weak ones compared as strong
    (RFC 9110 compares weakly for If-None-Match); ``*`` matches any."""
    return {t.strip().removeprefix("W/") for t in header.split(",") if t.strip()}


def error_response(err: ServiceError) -> JSONResponse:
    retry = err.body.get("retryAfter")
    headers = {"Retry-After": str(retry)} if isinstance(retry, int) else None
    return JSONResponse(err.body, status_code=err.status, headers=headers)


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise ServiceError(413, "payload_too_large", f"request body over {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ServiceError(413, "payload_too_large", f"request body over {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def _json_bytes(request: Request) -> bytes:
    return await _read_body(request, MAX_JSON_BODY)


def _json_object(raw: bytes) -> dict[str, Any]:
    """A request body as the params object (parsed off the event loop: bodies reach 8 MiB)."""
    if not raw.strip():
        return {}
    body = parse_request_json(raw)
    if not isinstance(body, dict):
        raise ServiceError(400, "invalid_params", "request body must be a JSON object", field="")
    return body


def _coerce(value: str, schema: Any) -> Any:
    """A path or query value (always text) as the operation's param declares it.

    Only a param declared as a number becomes one: a slug or a query made of
    digits (``/boards/2024/compose``, ``?q=2024``) stays the text it is; a
    boolean param takes ``true`` or ``false``.
    """
    declared = schema.get("type") if isinstance(schema, dict) else None
    types = declared if isinstance(declared, list) else [declared]
    numeric = ("integer" in types or "number" in types) and "string" not in types
    # isdigit() alone accepts characters such as '²' that int() refuses.
    if numeric and value.isascii() and value.isdigit():
        return int(value)
    if "boolean" in types and "string" not in types and value in ("true", "false"):
        return value == "true"
    return value


_DECIMAL = re.compile(r"^-?[0-9]{1,12}(\.[0-9]{1,12})?$")


def _decimal(value: str) -> Any:
    """A query value written as a plain decimal number as that number; anything else
    stays text, for the operation's params check to refuse."""
    return float(value) if _DECIMAL.match(value) else value


def _param_schema(ws: Workspace, operation: str, param: str) -> Any:
    """The declared schema of one param of ``operation`` (None when it declares none)."""
    try:
        op = ws.registry.get(operation)
    except ServiceError:
        return None
    return op.params_schema.get("properties", {}).get(param)


#: The cookie a viewer page trades a ``?token=`` (or a share link) for. It is sent
#: only to the API (the viewer's own calls), never readable by scripts, never
#: sent by another site.
TOKEN_COOKIE = "lk_token"


def bearer_token(request: Request) -> str | None:
    """The credential of a request: ``Authorization: Bearer``, else the viewer's cookie.

    A token in the query string is not taken on API routes: it would end up in
    logs and browser histories. Only the viewer pages take one, and trade it
    for the cookie (:meth:`HttpAdapter.viewer_endpoint`).
    """
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return request.cookies.get(TOKEN_COOKIE) or None


def _cookie_redirect(request: Request, location: str, token: str) -> Response:
    """A redirect to ``location`` that leaves ``token`` behind in the viewer's cookie."""
    response = RedirectResponse(location, status_code=303)
    response.set_cookie(
        TOKEN_COOKIE,
        token,
        path=API,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    # The address that carried the token is not passed on to anyone.
    response.headers["referrer-policy"] = "no-referrer"
    response.headers["cache-control"] = "no-store"
    return response


def _invalid_token_page() -> Response:
    return HTMLResponse(
        message_page(
            "This link is not valid",
            "The token in it is unknown or has been revoked, so it no longer opens anything.",
            "Ask whoever gave you the link for a new one. If you run this server, make a token "
            "with `layoutkit token create <your name> --kind user` and add it to the board's "
            "address as ?token=<the token>.",
        ),
        status_code=401,
        headers={"referrer-policy": "no-referrer", "cache-control": "no-store"},
    )


#: The request header that names the workspace a call works in (multi-workspace
#: deployments); without it, the server's own.
WORKSPACE_HEADER = "X-Layoutkit-Workspace"


class HttpAdapter:
    """Holds the workspace and builds the Starlette routes; no rules live here."""

    def __init__(self, ws: Workspace, *, require_auth: bool = True) -> None:
        self.ws = ws
        self.require_auth = require_auth
        #: Set as the server starts to stop: event streams and long polls end at once.
        self.stopping = threading.Event()
        # One limiter per event loop (a test client runs one of its own each time).
        self._turns: weakref.WeakKeyDictionary[Any, anyio.CapacityLimiter] = (
            weakref.WeakKeyDictionary()
        )

    async def in_thread(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in a worker thread, at most :data:`CALLS_AT_ONCE` at a time."""
        loop = asyncio.get_running_loop()
        turns = self._turns.get(loop)
        if turns is None:
            turns = self._turns[loop] = anyio.CapacityLimiter(CALLS_AT_ONCE)
        return await anyio.to_thread.run_sync(fn, *args, limiter=turns)

    def coerce(self, operation: str, param: str, value: str) -> Any:
        return _coerce(value, _param_schema(self.ws, operation, param))

    def principal(self, request: Request) -> Principal | None:
        token = bearer_token(request)
        if token is None:
            if not self.require_auth:
                return None
            raise ServiceError(401, "unauthenticated", "send Authorization: Bearer <token>")
        principal = self.ws.authenticate(token)
        if principal is None:
            raise ServiceError(401, "unauthenticated", "the token is unknown or revoked")
        return principal

    def placed(self, request: Request) -> tuple[Workspace, Principal | None]:
        """The workspace a request works in and its caller there: the server's own, or
        the one the :data:`WORKSPACE_HEADER` names, where the token must be a member (the
        road's rule); one it does not reach answers as one that does not exist."""
        name = request.headers.get(WORKSPACE_HEADER)
        if not name or name == self.ws.name:
            return self.ws, self.principal(request)
        target = self.ws.at(name)
        token = bearer_token(request)
        if token is None and not self.require_auth and target is not None:
            return target, None
        principal = None if target is None or token is None else target.authenticate(token)
        if principal is not None:
            return target, principal  # type: ignore[return-value]
        # Unauthenticated callers learn nothing about which workspaces exist.
        self.principal(request)
        raise ServiceError(
            404,
            "unknown_workspace",
            f"no workspace {name!r} that this token reaches",
            field=WORKSPACE_HEADER,
        )

    def call_placed(self, request: Request, op: str, params: dict[str, Any]) -> dict[str, Any]:
        """Run ``op`` in the request's workspace (:meth:`placed`) as its caller there."""
        ws, principal = self.placed(request)
        return ws.call(op, params, principal)

    async def run(
        self,
        request: Request,
        op: str,
        params: dict[str, Any] | Callable[[], dict[str, Any]],
        status: int = 200,
    ) -> Response:
        """Answer ``op`` with ``params`` (or what the callable makes of the body).

        Parsing, the token check, the call and encoding the answer all run in
        one worker thread: none of it is I/O the event loop could overlap, and
        large bodies and answers would hold up every other request there.
        """

        long_poll = LONG_POLLS.get(op)
        if long_poll is not None:
            return await self.run_long_poll(request, long_poll, op, params)

        def answer() -> Response:
            try:
                checked = params() if callable(params) else params
                ws, principal = self.placed(request)
                result = ws.call(op, checked, principal)
            except ServiceError as err:
                return error_response(err)
            return JSONResponse(result, status_code=status)

        return await self.in_thread(answer)

    async def run_long_poll(
        self,
        request: Request,
        long_poll: Callable[..., Awaitable[dict[str, Any]]],
        op: str,
        params: dict[str, Any] | Callable[[], dict[str, Any]],
    ) -> Response:
        """Answer a long poll (``wait_for_work``): its short looks run in worker
        threads, and between them it waits on the event loop, holding no thread
        and no database connection."""
        try:
            checked = params() if callable(params) else params
            ws, principal = await self.in_thread(self.placed, request)
            result = await long_poll(
                ws, checked, principal, self.in_thread, stopping=self.stopping.is_set
            )
        except ServiceError as err:
            return error_response(err)
        return JSONResponse(result)

    async def op_endpoint(self, request: Request) -> Response:
        try:
            raw = await _json_bytes(request)
        except ServiceError as err:
            return error_response(err)
        return await self.run(request, request.path_params["operation"], lambda: _json_object(raw))

    def named_endpoint(self, route: NamedRoute) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                raw = await _json_bytes(request) if route.method != "GET" else b""
            except ServiceError as err:
                return error_response(err)

            def params() -> dict[str, Any]:
                params = _json_object(raw)
                for name, param in route.path_params.items():
                    params[param] = self.coerce(route.operation, param, request.path_params[name])
                for name in route.query_params:
                    if name in request.query_params:
                        value = request.query_params[name]
                        params[name] = self.coerce(route.operation, name, value)
                return params

            return await self.run(request, route.operation, params)

        return endpoint

    def upload_endpoint(self, route: NamedRoute) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                params = await _multipart_params(request)
            except ServiceError as err:
                return error_response(err)
            for name, param in route.path_params.items():
                params[param] = self.coerce(route.operation, param, request.path_params[name])
            return await self.run(request, route.operation, params, route.status)

        return endpoint

    async def file_endpoint(self, request: Request) -> Response:
        """A card's stored file as bytes: the artifact URL scrape_board hands out."""
        return await self._file_bytes(request, "card_file", {"id": request.path_params["id"]})

    async def task_file_endpoint(self, request: Request) -> Response:
        """One version of a task's uploaded file as bytes: the url its ref carries."""
        raw = {"id": request.path_params["id"], "refId": request.path_params["ref"]}
        return await self._file_bytes(request, "task_file", raw)

    async def _file_bytes(self, request: Request, op: str, raw: dict[str, str]) -> Response:
        def answer() -> Response:
            # In a worker thread: decoding a 25 MiB file would hold up the event loop.
            try:
                params = {k: self.coerce(op, k, v) for k, v in raw.items()}
                out = self.call_placed(request, op, params)
            except ServiceError as err:
                return error_response(err)
            mime = out["mime"]
            inline = mime in INLINE_FILE_TYPES
            disposition = "inline" if inline else "attachment"
            quoted = urllib.parse.quote(out["name"], safe="")
            sandbox = {} if mime == "application/pdf" else {"content-security-policy": "sandbox"}
            return Response(
                base64.b64decode(out["data"]),
                media_type=mime if inline else "application/octet-stream",
                headers={
                    "content-disposition": f"{disposition}; filename*=UTF-8''{quoted}",
                    # Uploaded bytes are never run as a page of this origin.
                    "x-content-type-options": "nosniff",
                    **sandbox,
                },
            )

        return await self.in_thread(answer)

    async def image_endpoint(self, request: Request) -> Response:
        """A card's picture as PNG bytes, at a version and cut to a region: the crop URL
        annotate hands out. The query maps onto get_card_image's params one to one."""
        slug, raw, query = (
            request.path_params["slug"],
            request.path_params["id"],
            request.query_params,
        )

        def answer() -> Response:
            try:
                params: dict[str, Any] = {
                    "board": slug,
                    "cardId": self.coerce("get_card_image", "cardId", raw),
                }
                for name in ("version", "maxDim"):
                    if name in query:
                        params[name] = self.coerce("get_card_image", name, query[name])
                edges = {k: query[k] for k in ("x", "y", "w", "h") if k in query}
                if edges:
                    params["region"] = {k: _decimal(v) for k, v in edges.items()}
                out = self.call_placed(request, "get_card_image", params)
            except ServiceError as err:
                return error_response(err)
            return Response(
                base64.b64decode(out["image"]["data"]),
                media_type=out["image"]["mime"],
                headers={"x-content-type-options": "nosniff", "cache-control": "private"},
            )

        return await self.in_thread(answer)

    async def blob_endpoint(self, request: Request) -> Response:
        """A blob a card names, by its content key: the address board pictures link images to.

        The key is the hash of the bytes, so the answer never changes: it carries
        the key as its ETag (a matching If-None-Match answers 304 without the
        bytes) and may be kept for a year. It is private: the caller's access to
        the card's board decides, so shared caches must not keep it.
        """
        raw_id, key = request.path_params["id"], request.path_params["key"]
        etag = f'"{key}"'
        sent = _etags(request.headers.get("if-none-match", ""))
        fresh = etag in sent or "*" in sent

        def answer() -> Response:
            try:
                params: dict[str, Any] = {"id": self.coerce("card_blob", "id", raw_id), "key": key}
                if fresh:
                    params["data"] = False
                out = self.call_placed(request, "card_blob", params)
            except ServiceError as err:
                return error_response(err)
            headers = {
                "etag": etag,
                "cache-control": BLOB_CACHE,
                "x-content-type-options": "nosniff",
            }
            if fresh:
                return Response(status_code=304, headers=headers)
            mime = out["mime"]
            if mime not in INLINE_FILE_TYPES:
                # Not a type a browser shows as it is: a download that never runs here.
                mime = "application/octet-stream"
                headers["content-disposition"] = "attachment"
            if mime != "application/pdf":
                headers["content-security-policy"] = "sandbox"
            return Response(base64.b64decode(out["data"]), media_type=mime, headers=headers)

        return await self.in_thread(answer)

    async def export_endpoint(self, request: Request) -> Response:
        """A board as a file download: ``?format=canvas|excalidraw`` (and ``section`` or
        ``card`` ids), answered as the file's JSON, or as a zip when a canvas names files;
        ``?format=mermaid&card=<id>`` answers one diagram card's Mermaid text;
        ``?format=pdf|svg|png`` the board's picture (``pages``, ``paper``, ``scale``;
        a pdf with one ``card`` prints that doc card, with several just those cards)."""
        slug, query = request.path_params["slug"], request.query_params

        def answer() -> Response:
            try:
                params: dict[str, Any] = {"board": slug, "format": query.get("format", "canvas")}
                for name in ("section", "pages", "paper"):
                    if name in query:
                        params[name] = query[name]
                if "scale" in query:
                    params["scale"] = _decimal(query["scale"])
                cards = query.getlist("card")
                if params["format"] in ("mermaid", "pdf") and len(cards) == 1:
                    params["card"] = _decimal_id(cards[0])
                elif cards:
                    params["cards"] = [_decimal_id(c) for c in cards]
                ws, principal = self.placed(request)
                out = ws.call("export_board", params, principal)
            except ServiceError as err:
                return error_response(err)
            headers = {"x-content-type-options": "nosniff", "cache-control": "private"}
            if out["format"] in ("mermaid", "svg"):
                headers["content-disposition"] = _attachment(out["name"])
                if out["format"] == "svg":
                    # a file to keep, never a page that runs here
                    headers["content-security-policy"] = "sandbox"
                return Response(
                    out["document"].encode("utf-8"), media_type=out["mime"], headers=headers
                )
            if out["format"] in ("pdf", "png"):
                headers["content-disposition"] = _attachment(out["name"])
                data = out["data"] if out["format"] == "pdf" else out["image"]["data"]
                return Response(base64.b64decode(data), media_type=out["mime"], headers=headers)
            if out["files"]:
                name = out["name"].rsplit(".", 1)[0] + ".zip"
                headers["content-disposition"] = _attachment(name)
                return Response(
                    travel.export_zip(out), media_type="application/zip", headers=headers
                )
            headers["content-disposition"] = _attachment(out["name"])
            body = json.dumps(out["document"], indent=2, ensure_ascii=False).encode("utf-8")
            return Response(body, media_type="application/json", headers=headers)

        return await self.in_thread(answer)

    async def openapi_endpoint(self, request: Request) -> Response:
        return JSONResponse(openapi_document(self.ws, require_auth=self.require_auth))

    async def health_endpoint(self, request: Request) -> Response:
        return JSONResponse({"ok": True})

    async def ops_list_endpoint(self, request: Request) -> Response:
        """Every operation as ``Workspace.operations()`` lists it: what a remote client
        reads to learn which calls write (they take a ``requestKey``)."""
        try:
            await self.in_thread(self.principal, request)
        except ServiceError as err:
            return error_response(err)
        return JSONResponse({"operations": self.ws.operations()})

    async def _trade_token(self, request: Request) -> Response | None:
        """A page opened with ``?token=``: trade the token for the cookie and show the
        clean address; None when the address carries no token."""
        token = request.query_params.get("token")
        if token is None:
            return None
        if await self.in_thread(self.ws.authenticate, token) is None:
            return _invalid_token_page()
        rest = urllib.parse.urlencode(
            [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
        )
        return _cookie_redirect(request, request.url.path + (f"?{rest}" if rest else ""), token)

    async def index_endpoint(self, request: Request) -> Response:
        """The board index; ``?tag=`` narrows it to the boards carrying that tag (search's
        tag hits link here). The page reads the boards itself, with the cookie."""
        traded = await self._trade_token(request)
        if traded is not None:
            return traded
        tag = request.query_params.get("tag")
        return HTMLResponse(board_index_page(tag or None))

    async def viewer_endpoint(self, request: Request) -> Response:
        slug = request.path_params["slug"]
        traded = await self._trade_token(request)
        if traded is not None:
            return traded
        # The page itself is served without a credential (its API calls carry the
        # cookie), so the workspace answers whether the board exists; the visitor
        # learns only that about the name they typed, never a board's content.
        try:
            await self.in_thread(self.ws.call, "board_stamp", {"board": slug})
        except ServiceError as err:
            if err.status == 403:  # it exists, but is not for everyone: the API decides
                return HTMLResponse(viewer_page(slug))
            if err.status not in (400, 404):  # 400: not even a well-formed slug
                raise
            return HTMLResponse(
                message_page(
                    "No such board",
                    f"There is no board called “{slug}” here. Check the address, or create "
                    "the board first (create with kind board).",
                ),
                status_code=404,
            )
        return HTMLResponse(viewer_page(slug))

    async def viewer_js_endpoint(self, request: Request) -> Response:
        """The viewer's script, public like the page: a browser keeps the version the
        page names for good, and asks again for any other address."""
        current = request.query_params.get("v") == VIEWER_JS_VERSION
        cache = "public, max-age=31536000, immutable" if current else "no-cache"
        return Response(
            VIEWER_JS,
            media_type="text/javascript; charset=utf-8",
            headers={"cache-control": cache},
        )

    async def share_endpoint(self, request: Request) -> Response:
        token = request.path_params["token"]
        principal = await self.in_thread(self.ws.authenticate, token)
        if principal is None or principal.kind != "share" or principal.board is None:
            return HTMLResponse(
                message_page(
                    "This link is not valid",
                    "The share link is unknown or has been revoked, so it no longer opens the "
                    "board.",
                    "Ask whoever shared the board with you for a new link.",
                ),
                status_code=404,
                headers={"referrer-policy": "no-referrer"},
            )
        # A link minted with cardId opens on that card (the page reads ?card=).
        where = f"/boards/{principal.board}"
        if principal.card is not None:
            where += f"?card={principal.card}"
        return _cookie_redirect(request, where, token)

    async def events_endpoint(self, request: Request) -> Response:
        """Server-sent events for one board: a ``change`` event whenever its change
        counter, its questions, its findings or the board itself moved on, and a
        ``presence`` event whenever who else is on it moved (see :mod:`viewer`'s
        stream; ``people=1`` asks for the first list at once, ``page`` names the
        caller's own page). Between checks the stream waits on the event loop: it
        holds no database connection and no worker thread."""
        slug = request.path_params["slug"]
        raw = request.headers.get("last-event-id") or request.query_params.get("since", "")
        since = int(raw) if raw.isascii() and raw.isdigit() else None
        known = (
            request.query_params.get("q"),
            request.query_params.get("look"),
            request.query_params.get("a"),
        )
        # The page's own name for itself: its own presence is not sent back to it.
        page = request.query_params.get("page")
        mine = {"page": page} if page else {}

        def check(rev: int) -> dict[str, Any]:
            # The credential is checked at every check: a revoked link stops the stream.
            return self.call_placed(request, "board_changes", {"board": slug, "since": rev, **mine})

        try:
            first = await self.in_thread(check, since if since is not None else 0)
        except ServiceError as err:
            return error_response(err)
        return StreamingResponse(
            change_stream(
                request,
                first,
                since,
                known,
                lambda rev: self.in_thread(check, rev),
                people=request.query_params.get("people") == "1",
                stopping=lambda: self.ws.closing or self.stopping.is_set(),
            ),
            media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no"},
        )

    def routes(self) -> list[BaseRoute]:
        routes: list[BaseRoute] = [
            Route(f"{API}/openapi.json", self.openapi_endpoint, methods=["GET"]),
            Route(f"{API}/health", self.health_endpoint, methods=["GET"]),
            Route(f"{API}/ops", self.ops_list_endpoint, methods=["GET"]),
            Route(f"{API}/ops/{{operation}}", self.op_endpoint, methods=["POST"]),
            Route("/", self.index_endpoint, methods=["GET"]),
            Route("/boards/{slug}", self.viewer_endpoint, methods=["GET"]),
            Route("/viewer.js", self.viewer_js_endpoint, methods=["GET"]),
            Route("/s/{token}", self.share_endpoint, methods=["GET"]),
            Route(f"{API}/boards/{{slug}}/events", self.events_endpoint, methods=["GET"]),
            Route(f"{API}/cards/{{id}}/file", self.file_endpoint, methods=["GET"]),
            Route(
                f"{API}/boards/{{slug}}/cards/{{id}}/image", self.image_endpoint, methods=["GET"]
            ),
            Route(f"{API}/cards/{{id}}/blobs/{{key}}", self.blob_endpoint, methods=["GET"]),
            Route(f"{API}/boards/{{slug}}/export", self.export_endpoint, methods=["GET"]),
            Route(f"{API}/tasks/{{id}}/files/{{ref}}", self.task_file_endpoint, methods=["GET"]),
        ]
        for named in NAMED_ROUTES:
            routes.append(
                Route(API + named.path, self.named_endpoint(named), methods=[named.method])
            )
        for upload in UPLOAD_ROUTES:
            routes.append(Route(API + upload.path, self.upload_endpoint(upload), methods=["POST"]))
        return routes


#: Room for multipart boundaries, part headers and plain fields beside the files.
_FORM_SLACK = 1024 * 1024


def _capped_receive(request: Request, limit: int) -> Receive:
    """``request``'s ASGI receive, refusing (413) once the body passes ``limit`` bytes."""
    receive = request.receive
    seen = 0

    async def capped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise ServiceError(
                    413,
                    "payload_too_large",
                    f"uploads are at most {uploads.MAX_CALL_BYTES} bytes",
                    limit=uploads.MAX_CALL_BYTES,
                )
        return message

    return capped


async def _multipart_params(request: Request) -> dict[str, Any]:
    """Turn a multipart upload (files plus plain fields) into operation params."""
    declared = request.headers.get("content-length")
    # The upload operation's own caps (read at call time, so there is one value), checked
    # here before the body is read into memory.
    if (
        declared is not None
        and declared.isascii()
        and declared.isdigit()
        and int(declared) > uploads.MAX_CALL_BYTES
    ):
        raise ServiceError(
            413, "payload_too_large", f"uploads are at most {uploads.MAX_CALL_BYTES} bytes"
        )
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise ServiceError(400, "invalid_upload", "send multipart/form-data with one or more files")
    # A chunked body declares no length: count while it streams and stop at the cap,
    # so a body of any size costs no more than the cap to refuse.
    request = Request(request.scope, _capped_receive(request, uploads.MAX_CALL_BYTES + _FORM_SLACK))
    try:
        form = await request.form(
            max_files=uploads.MAX_FILES, max_fields=50, max_part_size=uploads.MAX_FILE_BYTES
        )
    except ServiceError:
        raise
    except Exception as exc:  # the multipart parser raises its own error types
        status = 413 if "size" in str(exc).lower() else 400
        code = "payload_too_large" if status == 413 else "invalid_upload"
        raise ServiceError(status, code, f"cannot read the upload: {exc}") from exc
    params: dict[str, Any] = {}
    files: list[dict[str, Any]] = []
    try:
        for key, value in form.multi_items():
            if isinstance(value, UploadFile):
                data = await value.read()
                entry: dict[str, Any] = {
                    "name": value.filename or key,
                    "data": base64.b64encode(data).decode("ascii"),
                }
                if value.content_type:
                    entry["mime"] = value.content_type
                files.append(entry)
            elif key in ("createSection",):
                params[key] = value.lower() in ("1", "true", "yes", "on")
            elif key == "anchor" and value.isascii() and value.isdigit():
                params[key] = int(value)
            else:
                params[key] = value
    finally:
        await form.close()
    params["files"] = files
    return params


class _LaterMcp:
    """The MCP endpoint, built in a thread once the app's lifespan starts.

    The protocol's package defines hundreds of pydantic models on import (over a
    second on a quiet machine): the API and the viewer answer meanwhile, and an
    MCP request that comes first waits for the endpoint.
    """

    def __init__(
        self, ws: Workspace, placed_of: Any, stateful: bool, stopping: Callable[[], bool]
    ) -> None:
        self.ws, self.placed_of, self.stateful = ws, placed_of, stateful
        self.stopping = stopping
        self._endpoint: Any = None
        self._failure: BaseException | None = None
        self._ready: anyio.Event | None = None

    def _build(self) -> tuple[Any, Callable[[Any], Any]]:
        from layoutkit.adapters.mcp import streamable_http_app

        return streamable_http_app(
            self.ws, self.placed_of, stateful=self.stateful, stopping=self.stopping
        )

    async def _run(self, app: Any, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        ready = self._ready = anyio.Event()
        task_status.started()
        try:
            endpoint, lifespan = await anyio.to_thread.run_sync(self._build)
        except Exception as exc:
            log.exception("the MCP endpoint could not be built")
            self._failure = exc
            ready.set()
            return
        async with lifespan(app):
            self._endpoint = endpoint
            ready.set()
            await anyio.sleep_forever()

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Any) -> Any:
        async with anyio.create_task_group() as group:
            await group.start(self._run, app)
            yield
            group.cancel_scope.cancel()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if self._ready is None:
            raise RuntimeError("the MCP endpoint runs inside the app's lifespan")
        await self._ready.wait()
        if self._endpoint is None:
            raise RuntimeError("the MCP endpoint could not be built") from self._failure
        await self._endpoint(scope, receive, send)


def create_app(
    ws: Workspace,
    *,
    require_auth: bool = True,
    mcp: bool = True,
    engine_workers: int = 0,
    mcp_stateful: bool = False,
) -> Starlette:
    """The ASGI app serving ``ws``: the API under ``/api/v1``, the board viewer and MCP.

    Every request needs a credential (a bearer token or a share link's token)
    unless ``require_auth`` is False, which embedding code may choose for a
    private loopback server. ``engine_workers`` above 0 starts that many
    worker processes for CPU-heavy engine work (diagram layout), so a long
    request does not slow the others down (``layoutkit serve`` starts two).
    ``mcp_stateful`` keeps an MCP session per client, which resource
    subscriptions need; sessions live in this process, so one server process only.
    """
    offload.start(engine_workers)
    adapter = HttpAdapter(ws, require_auth=require_auth)
    routes = adapter.routes()
    lifespan = None
    if mcp:
        endpoint = _LaterMcp(ws, adapter.placed, mcp_stateful, adapter.stopping.is_set)
        lifespan = endpoint.lifespan
        # /mcp is the advertised address; the mount keeps /mcp/ working too.
        routes.append(Route("/mcp", endpoint))
        routes.append(Mount("/mcp", app=endpoint))
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={HTTPException: _http_error, 500: _server_error},
    )
    # What a stopping server (adapters._serving.stop_waits) tells and wakes.
    app.state.stopping = adapter.stopping
    app.state.workspace = ws
    return app


def _for_people(request: Request) -> bool:
    """Whether an error answers a person's page (HTML) rather than an API client (JSON)."""
    path = request.url.path
    return not (path.startswith(API) or path.startswith("/mcp"))


_HTTP_ERRORS = {
    404: (
        "Page not found",
        "There is nothing at this address. Check it, or open a board at /boards/<name>.",
    ),
    405: ("Not allowed here", "This address does not take that kind of request."),
}


async def _http_error(request: Request, exc: Exception) -> Response:
    """Routing errors (no such address, wrong method): a readable page for people, the
    API's error body for API clients."""
    assert isinstance(exc, HTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    if not _for_people(request):
        return JSONResponse(
            {"code": code, "message": str(exc.detail)},
            status_code=exc.status_code,
            headers=exc.headers,
        )
    title, text = _HTTP_ERRORS.get(exc.status_code, ("Something went wrong", str(exc.detail)))
    return HTMLResponse(message_page(title, text), status_code=exc.status_code, headers=exc.headers)


async def _server_error(request: Request, exc: Exception) -> Response:
    """An unexpected failure: the same readable page or error body, never a bare trace."""
    if not _for_people(request):
        return JSONResponse(
            {
                "code": "internal_error",
                "message": "the server failed; nothing is known to be written",
            },
            status_code=500,
        )
    return HTMLResponse(
        message_page(
            "Something went wrong",
            "The server could not show this page. Reload it in a moment; if it keeps failing, "
            "tell whoever runs this server.",
        ),
        status_code=500,
    )


def run_server(
    ws: Workspace,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    example: bool = False,
    new_token: bool = False,
    echo: Callable[[str], None] = print,
    workers: int = 1,
    db: str | None = None,
    fetch: bool = False,
    capture: str | None = None,
    public_url: str | None = None,
) -> None:
    """Serve ``ws`` with uvicorn until interrupted (SIGINT or SIGTERM).

    With ``example`` an example board is composed first (once). The first
    start on a database mints an owner token and prints it, so a new user can
    call the API and open the viewer straight away; later starts reuse it
    (only its hash is kept, so it is not printed again). ``new_token`` mints
    a fresh one and revokes the previous serve token.

    ``public_url`` is the address people reach the server at (behind a proxy,
    say); share links and viewer addresses are made absolute under it. It
    defaults to the address the server listens on.

    ``workers`` above 1 serves from that many processes: this one, with ``ws``,
    and spawned ones that each open the database ``db`` (the URL ``ws`` was
    opened from) with the same link settings (``fetch``, ``capture``). They
    start once this process answers, so the first answer does not wait for them.

    The port is taken before anything is printed: when another process
    listens on it, :class:`~layoutkit.adapters._workers.CannotListen` is
    raised and no token is minted or shown.
    """
    # The port first: a server that cannot have it alone says so before it
    # mints or prints a token (see _workers.owned_sockets).
    shared = workers > 1 and _workers.can_share_port()
    sockets = _workers.owned_sockets(host, port, workers if shared else 1, deferred=True)
    previous = _workers.stopping_on_sigterm()
    try:
        with contextlib.suppress(KeyboardInterrupt):
            _serve_on(
                ws, sockets, example, new_token, echo, workers, db, fetch, capture, public_url
            )
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        for sock in sockets:
            sock.close()


def listening_url(host: str, port: int) -> str:
    """The ``http://`` address of ``host:port`` (an IPv6 host in brackets)."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _serve_on(
    ws: Workspace,
    sockets: list[Any],
    example: bool,
    new_token: bool,
    echo: Callable[[str], None],
    workers: int,
    db: str | None,
    fetch: bool,
    capture: str | None,
    public_url: str | None,
) -> None:
    import uvicorn

    base = listening_url(sockets[0].getsockname()[0], sockets[0].getsockname()[1])
    ws.public_url = public_url or base
    plain, kept = ws.serve_token(new=new_token)
    echo(f"layoutkit serving on {base}" + (f" ({workers} worker processes)" if workers > 1 else ""))
    if ws.public_url != base:
        echo(f"public address: {ws.public_url}")
    if plain is not None:
        echo(f"owner token (keep it private): {plain}")
    else:
        echo(
            f"owner token: the one printed when this database was first served "
            f"(token {kept['id']}, created {kept['created']}); "
            "'layoutkit serve --new-token' mints a new one and revokes it"
        )
    echo(f"API: {ws.link(API + '/openapi.json')}   MCP (streamable HTTP): {ws.link('/mcp')}")
    board = _ExampleBoard(ws, plain, echo) if example else None
    # Each process has engine processes of its own: together about one per core.
    engines = max(1, ENGINE_WORKERS // workers)
    children = None
    if workers > 1:
        if db is None:
            raise ValueError("serving from several workers needs the database URL (db)")
        settings = {
            "db": db,
            "fetch": fetch,
            "capture": capture,
            "engines": engines,
            "public_url": ws.public_url,
        }
        os.environ[WORKER_SETTINGS_ENV] = json.dumps(settings)
        app = f"{__name__}:worker_app"
        if len(sockets) == 1:
            if board:  # this process serves no request here: the example comes first
                board.start()
                board.wait()
            _serve_shared_socket(app, sockets, workers)
            return
        children = _workers.Supervisor(
            sockets[1:], {"app": app, "factory": True, "log_level": "warning"}
        )
    server = uvicorn_server(
        uvicorn.Config(create_app(ws, engine_workers=engines), log_level="warning"),
        children,
        board.start if board else None,
    )
    try:
        server.run(sockets=sockets[:1])
    finally:
        if board:
            board.wait()
        if children:
            children.stop()
        offload.stop()
    if children and children.broken:
        raise SystemExit(1)
    if not server.started:
        # As uvicorn.run does: an app whose startup failed exits non-zero.
        raise SystemExit(3)


def _serve_shared_socket(app: str, sockets: list[Any], workers: int) -> None:
    """Without SO_REUSEPORT the workers share one socket (and the kernel decides,
    unevenly, which one takes each connection): uvicorn's own supervisor."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    config = uvicorn.Config(app, factory=True, workers=workers, log_level="warning")
    Multiprocess(config, sockets=sockets).run()


class _ExampleBoard:
    """Composes the example board once the server listens.

    Composing it lays out a diagram, which imports the optimizer (about half a
    second) and the diagram engine: done before listening, a first start would
    answer its first request only after them. Its address is printed once the
    board is there, so the address a person sees always opens it; a server
    stopped meanwhile waits for it (:meth:`wait`), so no half-made example is
    left behind for the next start to skip.
    """

    def __init__(self, ws: Workspace, plain: str | None, echo: Callable[[str], None]) -> None:
        self._ws = ws
        self._plain = plain
        self._echo = echo
        self._thread = threading.Thread(target=self._compose, name="layoutkit-example")

    def start(self) -> None:
        self._thread.start()

    def wait(self) -> None:
        if self._thread.is_alive():
            self._thread.join()

    def _compose(self) -> None:
        try:
            slug = seed_example(self._ws)
        except Exception as err:
            log.exception("the example board could not be composed")
            self._echo(f"the example board could not be composed: {err}")
            return
        token = self._plain or "<owner token>"
        self._echo(f"open the example board: {self._ws.link(f'/boards/{slug}')}?token={token}")


def worker_app() -> Starlette:
    """The app of one worker process of ``layoutkit serve --workers N`` (a uvicorn factory).

    It opens the database named in :data:`WORKER_SETTINGS_ENV` as a workspace of
    its own: the database (and, on PostgreSQL, the blobs in it) is what the
    workers share; tokens, share links, confirm tokens and board locks live there.
    """
    from layoutkit.meaning import embedder_from_env
    from layoutkit.net import unfurler_for
    from layoutkit.service.road.ai import backend_from_env

    settings = json.loads(os.environ[WORKER_SETTINGS_ENV])
    unfurler = unfurler_for(settings["fetch"], settings.get("capture"))
    ws = Workspace.open(
        settings["db"], unfurler=unfurler, ai=backend_from_env(), embedder=embedder_from_env()
    )
    ws.public_url = settings["public_url"]
    app = create_app(ws, engine_workers=settings["engines"])
    # Modules, schemas and the registry live as long as the worker: out of the
    # collector's sight, each full collection skips them.
    gc.freeze()
    return app


_ERROR_SCHEMA = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
    "additionalProperties": True,
}


_DEFS = "#/$defs/"
_COMPONENTS = "#/components/schemas/"


def _hoisted(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with its ``$defs`` moved into the OpenAPI components.

    Inside an OpenAPI document a ``#/...`` reference resolves against the
    document, not against the operation's schema, so the definitions move to
    ``components/schemas`` and the references follow them.
    """

    def rewrite(node: Any) -> Any:
        if isinstance(node, dict):
            out = {k: rewrite(v) for k, v in node.items() if k != "$defs"}
            ref = out.get("$ref")
            if isinstance(ref, str) and ref.startswith(_DEFS):
                out["$ref"] = _COMPONENTS + ref[len(_DEFS) :]
            return out
        if isinstance(node, list):
            return [rewrite(v) for v in node]
        return node

    for name, definition in schema.get("$defs", {}).items():
        moved = rewrite(definition)
        if components.setdefault(name, moved) != moved:
            raise ValueError(f"two operations define the schema {name!r} differently")
    return rewrite(schema)


#: How a request names its caller (see :func:`bearer_token`). Share-link tokens
#: travel the same ways, so they need no scheme of their own.
SECURITY_SCHEMES: dict[str, Any] = {
    "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "An API token from `layoutkit token create` (or the one `serve` prints), "
        "or a share link's token, which grants its one board.",
    },
    "viewerCookie": {
        "type": "apiKey",
        "in": "cookie",
        "name": TOKEN_COOKIE,
        "description": "The cookie a viewer page sets when opened with ?token= or through a "
        "share link (HttpOnly, SameSite=Strict, path /api/v1). API routes never take a token "
        "in the query string.",
    },
}


def _without(schema: dict[str, Any], names: set[str]) -> dict[str, Any]:
    """An operation's params schema as a route body: the params its path carries are gone."""
    return {
        **schema,
        "properties": {k: v for k, v in schema.get("properties", {}).items() if k not in names},
        "required": [r for r in schema.get("required", []) if r not in names],
    }


#: Operations that take the slug of a board as ``board``: what a created or written board
#: links to.
_BOARD_READERS_AND_WRITERS = (
    "compose_board",
    "scrape_board",
    "render_board",
    "board_stamp",
    "board_outline",
    "share_board",
    "set_board_meta",
    "ask_board",
    "arrange",
    "push_doc",
    "upload_files",
    "send_answers",
)
#: Operations that take one card id, and where in their body it goes.
_CARD_TAKERS: dict[str, Callable[[str], dict[str, Any]]] = {
    "update_cards": lambda card: {"patch": [{"id": card}]},
    "refresh_card": lambda card: {"id": card},
}

#: OpenAPI links: which value of a success answer the next call takes (a client,
#: or schemathesis's stateful phase, follows them from one operation to the next).
#: Each is (link name, target operation, request body with runtime expressions).
_NOTE = {"kind": "note", "payload": {"md": "a note"}}
_LINKS: dict[str, list[tuple[str, str, dict[str, Any]]]] = {
    "create": [
        *(
            (f"board_to_{op}", op, {"board": "$response.body#/board/slug"})
            for op in _BOARD_READERS_AND_WRITERS
        ),
        # The usual next calls, written out in full.
        (
            "compose_a_note",
            "compose_board",
            {"board": "$response.body#/board/slug", "cards": [_NOTE]},
        ),
        (
            "ask_a_question",
            "ask_board",
            {"board": "$response.body#/board/slug", "prompt": "Ship it?", "options": ["yes", "no"]},
        ),
    ],
    "compose_board": [
        *(
            (f"board_to_{op}", op, {"board": "$response.body#/board"})
            for op in _BOARD_READERS_AND_WRITERS
        ),
        *(
            (f"card_to_{op}", op, body("$response.body#/cards/0/id"))
            for op, body in _CARD_TAKERS.items()
        ),
        ("remove_card", "update_cards", {"remove": ["$response.body#/cards/0/id"]}),
        (
            "move_card",
            "update_cards",
            {"patch": [{"id": "$response.body#/cards/0/id", "x": 640, "y": 480}]},
        ),
        (
            "wire_to_card",
            "compose_board",
            {
                "board": "$response.body#/board",
                "cards": [{**_NOTE, "ref": "n"}],
                "edges": [{"from": "n", "to": "$response.body#/cards/0/id"}],
            },
        ),
        (
            "share_card",
            "share_board",
            {"board": "$response.body#/board", "cardId": "$response.body#/cards/0/id"},
        ),
    ],
    "push_doc": [
        ("board_to_scrape_board", "scrape_board", {"board": "$response.body#/board"}),
        *((f"card_to_{op}", op, body("$response.body#/card")) for op, body in _CARD_TAKERS.items()),
    ],
    "upload_files": [
        ("board_to_scrape_board", "scrape_board", {"board": "$response.body#/board"}),
        *(
            (f"card_to_{op}", op, body("$response.body#/cards/0/id"))
            for op, body in _CARD_TAKERS.items()
        ),
    ],
    "ask_board": [
        ("answer", "answer_question", {"id": "$response.body#/question/id"}),
    ],
    "update_cards": [
        ("restore_removed", "update_cards", {"restore": "$response.body#/removed"}),
    ],
}


def _links(name: str, ops: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI links of operation ``name``'s success answer (to operations that exist)."""
    return {
        link: {"operationId": target, "requestBody": body}
        for link, target, body in _LINKS.get(name, ())
        if target in ops
    }


#: The plain fields of each multipart route besides ``files`` (all travel as text).
_FORM_FIELDS: dict[str, dict[str, Any]] = {
    "upload_files": {
        "section": {"type": "string"},
        "anchor": {"type": "string", "description": "card id"},
        "side": {"enum": ["right", "below"]},
        "createSection": {"type": "string", "description": "true or false"},
    },
    "attach_task_files": {
        "kind": {"type": "string", "description": "document kind; default file"},
        "hint": {"type": "string", "description": "one line: when to load it"},
        "load": {"enum": ["first", "on-demand", "never"]},
        "versionOf": {"type": "string", "description": "the lineage to continue"},
    },
}


def _request_schema(ws: Workspace, name: str, op: dict[str, Any]) -> dict[str, Any]:
    """The body schema of ``POST /ops/<name>``: the params hosts are shown, and for a
    generic verb also ``oneOf`` its kinds' own schemas.

    A verb's shown params are every field of every kind in one object (tool hosts
    refuse a top-level ``oneOf``), so a body drawn from them alone mostly mixes
    the fields of two kinds and is refused. HTTP clients have no such limit, so
    the document says exactly which fields go with which kind; a body valid by
    the ``oneOf`` is valid by the flat object too, so the two never disagree.
    """
    variants = ws.registry.get(name).variants
    shown: dict[str, Any] = op["params_schema"]
    if not variants:
        return shown
    return {**shown, "oneOf": [dict(v) for v in variants]}


def openapi_document(ws: Workspace, *, require_auth: bool = True) -> dict[str, Any]:
    """OpenAPI 3.1 for every registered operation and every named route that has one.

    ``require_auth`` False (a private loopback server) makes the credential optional.
    """
    paths: dict[str, Any] = {}
    components: dict[str, Any] = {"Error": _ERROR_SCHEMA}
    security: list[dict[str, list[str]]] = [{name: []} for name in SECURITY_SCHEMES]
    if not require_auth:
        security.append({})
    errors = {
        str(code): {
            "description": text,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
        for code, text in (
            (400, "Bad request"),
            (401, "No credential, or an unknown or revoked one"),
            (403, "The credential does not grant this"),
            (404, "Not found"),
            (409, "Conflict"),
            (413, "Over a limit: the body names the limit, its max and the value"),
            (503, "Busy: nothing was written; retry after the Retry-After seconds"),
        )
    }
    ops = {op["name"]: op for op in ws.operations()}
    paths[f"{API}/ops"] = {
        "get": {
            "operationId": "list_operations_route",
            "summary": "Every operation with its description and params schema",
            "security": security,
            "responses": {
                "200": {
                    "description": "{operations: [{name, description, params_schema}]}",
                    "content": {"application/json": {"schema": {"type": "object"}}},
                },
                **errors,
            },
        }
    }
    for name, op in ops.items():
        paths[f"{API}/ops/{name}"] = {
            "post": {
                "operationId": name,
                "summary": op["description"].split(". ")[0][:120],
                "description": op["description"],
                "security": security,
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": _hoisted(_request_schema(ws, name, op), components)
                        }
                    },
                },
                "responses": {
                    "200": {
                        "description": "Result",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                        **({"links": links} if (links := _links(name, ops)) else {}),
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
            "security": security,
            "parameters": parameters,
            "responses": {str(route.status): {"description": "Result"}, **errors},
        }
        if route.method != "GET":
            body = _without(op["params_schema"], set(route.path_params.values()))
            entry["requestBody"] = {
                "content": {"application/json": {"schema": _hoisted(body, components)}}
            }
        paths.setdefault(API + route.path, {})[route.method.lower()] = entry
    for route in UPLOAD_ROUTES:
        if route.operation not in ops:
            continue
        fields = {
            "files": {"type": "array", "items": {"type": "string", "format": "binary"}},
            **_FORM_FIELDS.get(route.operation, {}),
        }
        paths.setdefault(API + route.path, {})["post"] = {
            "operationId": f"{route.operation}_multipart_route",
            "summary": route.summary,
            "security": security,
            "parameters": [
                {"name": n, "in": "path", "required": True, "schema": {"type": "string"}}
                for n in route.path_params
            ],
            "requestBody": {
                "required": True,
                "content": {
                    "multipart/form-data": {
                        "schema": {"type": "object", "required": ["files"], "properties": fields}
                    }
                },
            },
            "responses": {
                str(route.status): {
                    "description": "Created: the receipt lists the new cards and the files",
                    "content": {"application/json": {"schema": {"type": "object"}}},
                },
                **errors,
            },
        }
    if "task_file" in ops:
        paths[f"{API}/tasks/{{id}}/files/{{ref}}"] = {
            "get": {
                "operationId": "task_file_get_route",
                "summary": "Download one version of a task's uploaded file",
                "security": security,
                "parameters": [
                    {"name": n, "in": "path", "required": True, "schema": {"type": "string"}}
                    for n in ("id", "ref")
                ],
                "responses": {
                    "200": {
                        "description": "The file's bytes",
                        "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}},
                    },
                    **errors,
                },
            }
        }
    if "card_file" in ops:
        paths[f"{API}/cards/{{id}}/file"] = {
            "get": {
                "operationId": "card_file_get_route",
                "summary": "Download a card's stored file",
                "security": security,
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {
                    "200": {
                        "description": "The file's bytes (PDFs and plain images inline)",
                        "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}},
                    },
                    **errors,
                },
            }
        }
    if "get_card_image" in ops:
        paths[f"{API}/boards/{{slug}}/cards/{{id}}/image"] = {
            "get": {
                "operationId": "get_card_image_png_route",
                "summary": "A card's picture as PNG, at a version, cut to a region",
                "security": security,
                "parameters": [
                    {"name": n, "in": "path", "required": True, "schema": {"type": "string"}}
                    for n in ("slug", "id")
                ]
                + [
                    {"name": n, "in": "query", "required": False, "schema": {"type": t}}
                    for n, t in (
                        ("version", "integer"),
                        ("maxDim", "integer"),
                        ("x", "number"),
                        ("y", "number"),
                        ("w", "number"),
                        ("h", "number"),
                    )
                ],
                "responses": {
                    "200": {
                        "description": "The PNG",
                        "content": {
                            "image/png": {"schema": {"type": "string", "format": "binary"}}
                        },
                    },
                    **errors,
                },
            }
        }
    if "card_blob" in ops:
        paths[f"{API}/cards/{{id}}/blobs/{{key}}"] = {
            "get": {
                "operationId": "card_blob_get_route",
                "summary": "A blob a card names, by its content key",
                "security": security,
                "parameters": [
                    {"name": n, "in": "path", "required": True, "schema": {"type": "string"}}
                    for n in ("id", "key")
                ]
                + [
                    {
                        "name": "If-None-Match",
                        "in": "header",
                        "required": False,
                        "schema": {"type": "string"},
                    }
                ],
                "responses": {
                    "200": {
                        "description": "The blob's bytes; ETag is the quoted key and the "
                        "answer may be cached for a year (private, immutable)",
                        "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}},
                    },
                    "304": {"description": "Not modified: the ETag sent still names it"},
                    **errors,
                },
            }
        }
    if "export_board" in ops:
        paths[f"{API}/boards/{{slug}}/export"] = {
            "get": {
                "operationId": "export_board_download_route",
                "summary": "Download a board as a JSON Canvas or Excalidraw file, a PDF, "
                "SVG or PNG picture, a diagram card as Mermaid text or a doc card as a PDF",
                "security": security,
                "parameters": [
                    {"name": "slug", "in": "path", "required": True, "schema": {"type": "string"}},
                    {
                        "name": "format",
                        "in": "query",
                        "required": False,
                        "schema": {
                            "enum": ["canvas", "excalidraw", "mermaid", "pdf", "svg", "png"]
                        },
                    },
                    {
                        "name": "pages",
                        "in": "query",
                        "required": False,
                        "schema": {"enum": ["fit", "tile"]},
                    },
                    {
                        "name": "paper",
                        "in": "query",
                        "required": False,
                        "schema": {"enum": ["a4", "letter"]},
                    },
                    {
                        "name": "scale",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "number", "minimum": 0.05, "maximum": 4},
                    },
                    {
                        "name": "section",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "string"},
                    },
                    {
                        "name": "card",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "array", "items": {"type": "integer"}},
                    },
                ],
                "responses": {
                    "200": {
                        "description": "The file (attachment): its JSON, a zip of a canvas "
                        "and the files it names, Mermaid text, or the picture's bytes",
                        "content": {
                            "application/json": {"schema": {"type": "object"}},
                            "application/zip": {"schema": {"type": "string", "format": "binary"}},
                            "text/plain": {"schema": {"type": "string"}},
                            "application/pdf": {"schema": {"type": "string", "format": "binary"}},
                            "image/svg+xml": {"schema": {"type": "string"}},
                            "image/png": {"schema": {"type": "string", "format": "binary"}},
                        },
                    },
                    **errors,
                },
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {"title": "layoutkit", "version": "0.1.0"},
        "paths": paths,
        "security": security,
        "components": {"schemas": components, "securitySchemes": SECURITY_SCHEMES},
    }
