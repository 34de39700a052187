"""A client of a layoutkit server: ``Client`` (blocking) and ``AsyncClient`` (asyncio/anyio).

Both speak the HTTP API (``POST /api/v1/ops/{op}``) and behave like
:class:`~layoutkit.Workspace` for a caller: ``.call(op, params)`` answers the
operation's result or raises the same :class:`~layoutkit.ServiceError` the server
raised (its status, code and body). On top of the raw calls they add what a remote
caller needs: a ``requestKey`` on every write (so a retried write is replayed, not
done twice), retries with backoff on ``503 busy`` and lost connections, timeouts
that fit long polls, and helpers for bytes (uploads, card images, renders).

This module imports only httpx, the standard library and :mod:`layoutkit.errors`:
a remote caller never loads the engines.

What is shared between the two clients lives in :class:`_Core` (request building,
the retry decision, error mapping, answers of the helpers); the clients only do the
I/O (send, sleep) the sync or async way.
"""

from __future__ import annotations

import base64
import random
import time
import uuid
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from layoutkit.errors import ServiceError
from layoutkit.files import guess_mime

__all__ = ["TIMEOUT", "UNREACHABLE", "AsyncClient", "Client", "FileInput"]

API = "/api/v1"
#: The header that picks a workspace of a multi-workspace deployment.
WORKSPACE_HEADER = "X-Layoutkit-Workspace"
#: Code of the ServiceError (status 503) raised when the server cannot be reached
#: (refused, reset, name not resolved) after the retries.
UNREACHABLE = "unreachable"
#: Code of the ServiceError (status 504) raised when the server took longer than
#: the read timeout to answer. Not retried: a slow server is not helped by more load.
TIMEOUT = "timeout"
#: Default timeouts in seconds: connecting, and waiting for an answer.
CONNECT_TIMEOUT_S = 5.0
READ_TIMEOUT_S = 60.0
#: Retries after the first attempt, and the backoff's first and longest delay.
RETRIES = 3
BACKOFF_S = 0.25
MAX_BACKOFF_S = 8.0
#: Operations that hold the request open up to their ``timeout`` param (seconds,
#: at most 60 on the server); the client's read timeout outlasts it by this margin.
LONG_POLLS = frozenset({"wait_for_work"})
LONG_POLL_MAX_S = 60.0
LONG_POLL_MARGIN_S = 15.0
#: HTTP methods a raw request may repeat after a lost answer (RFC 9110 idempotent).
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})

#: A file to upload: a path, or ``(name, bytes)``, or ``(name, bytes, mime)``.
FileInput = str | Path | tuple[str, bytes] | tuple[str, bytes, str]


def new_request_key() -> str:
    """A fresh idempotency key (fits the registry's REQUEST_KEY schema: 1..200 chars)."""
    return f"lkc-{uuid.uuid4().hex}"


def read_files(files: Iterable[FileInput]) -> list[tuple[str, bytes, str]]:
    """Files as ``(name, bytes, mime)``: a path is read, a MIME type left out is guessed
    from the name."""
    out: list[tuple[str, bytes, str]] = []
    for item in files:
        if isinstance(item, (str, Path)):
            path = Path(item)
            name, data, mime = path.name, path.read_bytes(), None
        else:
            name, data = item[0], item[1]
            mime = item[2] if len(item) > 2 else None  # type: ignore[misc]
        out.append((name, data, mime or guess_mime(name)))
    return out


def encode_files(files: Iterable[FileInput]) -> list[dict[str, Any]]:
    """Files as the ``{name, data, mime}`` entries upload operations take (base64 data)."""
    return [
        {"name": name, "data": base64.b64encode(data).decode("ascii"), "mime": mime}
        for name, data, mime in read_files(files)
    ]


def _form_value(value: Any) -> str:
    """A plain field of a multipart upload: the server reads text (true/false, digits)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def error_from_response(response: httpx.Response) -> ServiceError:
    """The ServiceError a non-2xx answer carries: rebuilt from its JSON ``{code, message,
    ...}`` body, or a ``http_error`` naming the status when the body is not one (a proxy's
    page, say)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if (
        isinstance(body, dict)
        and isinstance(body.get("code"), str)
        and isinstance(body.get("message"), str)
    ):
        rest = {k: v for k, v in body.items() if k not in ("code", "message")}
        return ServiceError(response.status_code, body["code"], body["message"], **rest)
    text = response.text.strip()[:200]
    return ServiceError(
        response.status_code,
        "http_error",
        f"HTTP {response.status_code} {response.reason_phrase} from {response.request.url}"
        + (f": {text}" if text else ""),
    )


def _retry_after(response: httpx.Response) -> float | None:
    raw = response.headers.get("retry-after", "")
    try:
        return max(0.0, float(raw))
    except ValueError:
        return None


class _Core:
    """What the sync and async clients share: settings, request building, the retry
    decision, error mapping and the helpers' params and answers. No I/O here."""

    def __init__(
        self,
        url: str,
        token: str | None,
        *,
        workspace: str | None,
        timeout: float | httpx.Timeout | None,
        retries: int,
        backoff: float,
    ) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.workspace = workspace
        if timeout is None:
            timeout = httpx.Timeout(READ_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
        elif not isinstance(timeout, httpx.Timeout):
            timeout = httpx.Timeout(timeout)
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        #: name -> description of every operation, read from the server once.
        self._ops: dict[str, dict[str, Any]] | None = None

    def headers(self) -> dict[str, str]:
        headers = {"user-agent": "layoutkit-client", "accept": "application/json"}
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        if self.workspace:
            headers[WORKSPACE_HEADER] = self.workspace
        return headers

    # -- operations

    def remember_ops(self, response: httpx.Response) -> list[dict[str, Any]]:
        if response.status_code >= 400:
            raise error_from_response(response)
        ops: list[dict[str, Any]] = response.json()["operations"]
        self._ops = {op["name"]: op for op in ops}
        return ops

    def keyed(self, op: str) -> bool:
        """Whether ``op`` writes: the registry gives every writing operation a
        ``requestKey`` param, and no read one."""
        assert self._ops is not None
        described = self._ops.get(op)
        props = (described or {}).get("params_schema", {}).get("properties", {})
        return "requestKey" in props

    def prepare_call(self, op: str, params: Mapping[str, Any] | None) -> _Prepared:
        """The request of ``call(op, params)``, a write given a requestKey of its own
        when the caller sent none, so that a retry after a lost answer replays it."""
        assert self._ops is not None
        body = dict(params or {})
        known = op in self._ops
        writes = self.keyed(op)
        if writes and "requestKey" not in body:
            body["requestKey"] = new_request_key()
        timeout = self.timeout
        if op in LONG_POLLS:
            wait = body.get("timeout", LONG_POLL_MAX_S)
            wait = wait if isinstance(wait, (int, float)) else LONG_POLL_MAX_S
            read = max(timeout.read or 0.0, float(wait) + LONG_POLL_MARGIN_S)
            timeout = httpx.Timeout(
                timeout.connect, read=read, write=timeout.write, pool=timeout.pool
            )
        # A read may be sent again; a write only under its requestKey. An operation the
        # server does not list is refused there, so its retry does not matter.
        replayable = known and (not writes or "requestKey" in body)
        return _Prepared("POST", f"{API}/ops/{op}", body, timeout, replayable)

    # -- retries

    def delay(
        self, attempt: int, outcome: httpx.Response | Exception, replayable: bool
    ) -> float | None:
        """Seconds to wait before attempt ``attempt + 1``, or None when the outcome stands
        (an answer to hand back, or an error to raise)."""
        if attempt >= self.retries:
            return None
        if isinstance(outcome, httpx.Response):
            if outcome.status_code != 503 or not _is_busy(outcome):
                return None
            told = _retry_after(outcome)
            jitter = self._jittered(attempt)
            return jitter if told is None else told + jitter / 4
        if isinstance(outcome, httpx.TimeoutException) and not isinstance(
            outcome, httpx.ConnectTimeout
        ):
            return None
        if isinstance(outcome, (httpx.ConnectError, httpx.ConnectTimeout)) or (
            replayable and isinstance(outcome, httpx.TransportError)
        ):
            # A connect failure sent nothing; a later one may have been done, so it is
            # repeated only when a repeat cannot do it twice.
            return self._jittered(attempt)
        return None

    def _jittered(self, attempt: int) -> float:
        # Full jitter: callers refused together do not come back together.
        ceiling = min(MAX_BACKOFF_S, self.backoff * 2**attempt)
        return random.uniform(ceiling / 2, ceiling)

    def failure(self, exc: Exception, request: httpx.Request) -> ServiceError:
        """The ServiceError of a request that got no answer."""
        where = f"{request.method} {request.url}"
        if isinstance(exc, httpx.TimeoutException) and not isinstance(exc, httpx.ConnectTimeout):
            return ServiceError(504, TIMEOUT, f"no answer from {where} in time: {exc}")
        reason = str(exc) or type(exc).__name__
        return ServiceError(503, UNREACHABLE, f"cannot reach {self.url} ({where}): {reason}")

    # -- helpers' params and answers

    @staticmethod
    def image_query(
        version: int | None, max_dim: int | None, region: Mapping[str, float] | None
    ) -> dict[str, Any]:
        query: dict[str, Any] = {}
        if version is not None:
            query["version"] = version
        if max_dim is not None:
            query["maxDim"] = max_dim
        for edge in ("x", "y", "w", "h"):
            if region and edge in region:
                query[edge] = region[edge]
        return query

    @staticmethod
    def bytes_of(response: httpx.Response) -> bytes:
        if response.status_code >= 400:
            raise error_from_response(response)
        return response.content

    @staticmethod
    def write_render(result: dict[str, Any], out: str | Path) -> list[Path]:
        """Write a ``render_board`` PNG answer to ``out`` and its tiles beside it
        (``NAME-tile-N.png``, as ``layoutkit board render`` names them)."""
        target = Path(out)
        target.write_bytes(base64.b64decode(result["image"]["data"]))
        written = [target]
        for i, tile in enumerate(result.get("tiles", ()), start=1):
            path = target.with_name(f"{target.stem}-tile-{i}{target.suffix or '.png'}")
            path.write_bytes(base64.b64decode(tile["data"]))
            written.append(path)
        return written


class _Prepared:
    """One request to make, with how long to wait and whether a repeat is harmless."""

    __slots__ = ("body", "method", "path", "replayable", "timeout")

    def __init__(
        self, method: str, path: str, body: Any, timeout: httpx.Timeout, replayable: bool
    ) -> None:
        self.method, self.path, self.body = method, path, body
        self.timeout, self.replayable = timeout, replayable


def _is_busy(response: httpx.Response) -> bool:
    try:
        body = response.json()
    except ValueError:
        return False
    # Both say nothing was done: a lock not granted, or a server process stopping
    # (another may answer the next try).
    return isinstance(body, dict) and body.get("code") in ("busy", "shutting_down")


def _answer(response: httpx.Response) -> dict[str, Any]:
    if response.status_code >= 400:
        raise error_from_response(response)
    result: dict[str, Any] = response.json()
    return result


def _work_params(scope: Mapping[str, Any], timeout: float | None) -> dict[str, Any]:
    params = dict(scope)
    if timeout is not None:
        params["timeout"] = timeout
    return params


class _Base:
    """What both clients hold: the shared :class:`_Core` and an httpx client of their
    kind, and the requests they send (built here, sent by each its own way)."""

    #: The httpx client each kind sends with.
    _HTTP: type[httpx.Client] | type[httpx.AsyncClient]

    def __init__(
        self,
        url: str,
        token: str | None = None,
        *,
        workspace: str | None = None,
        timeout: float | httpx.Timeout | None = None,
        retries: int = RETRIES,
        backoff: float = BACKOFF_S,
        transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._core = _Core(
            url, token, workspace=workspace, timeout=timeout, retries=retries, backoff=backoff
        )
        self._http: Any = self._HTTP(**self._http_settings(transport))

    def _http_settings(self, transport: Any) -> dict[str, Any]:
        core = self._core
        return {
            "base_url": core.url,
            "headers": core.headers(),
            "timeout": core.timeout,
            "transport": transport,
        }

    @property
    def url(self) -> str:
        return self._core.url

    def _raw(
        self,
        method: str,
        path: str,
        json: Any,
        params: Mapping[str, Any] | None,
        content: bytes | str | None,
        headers: Mapping[str, str] | None,
        timeout: float | httpx.Timeout | None,
    ) -> tuple[httpx.Request, bool]:
        method = method.upper()
        request = self._http.build_request(
            method,
            path,
            json=json,
            params=params,
            content=content,
            headers=headers,
            timeout=timeout if timeout is not None else self._core.timeout,
        )
        return request, method in IDEMPOTENT_METHODS

    def _multipart(
        self, path: str, files: Iterable[FileInput], fields: Mapping[str, Any]
    ) -> tuple[httpx.Request, bool]:
        """An upload as multipart/form-data to ``path`` (the upload routes): files travel
        as raw bytes, so a file up to the upload limit (25 MiB) fits, where base64 in a
        JSON body would pass the body's 8 MiB. A requestKey of its own makes it
        replayable."""
        data = {name: _form_value(value) for name, value in fields.items()}
        data.setdefault("requestKey", new_request_key())
        parts = [("files", part) for part in read_files(files)]
        request = self._http.build_request(
            "POST", path, files=parts, data=data, timeout=self._core.timeout
        )
        return request, True

    def _op(self, op: str, params: Mapping[str, Any] | None) -> tuple[httpx.Request, bool]:
        prep = self._core.prepare_call(op, params)
        request = self._http.build_request(
            prep.method, prep.path, json=prep.body, timeout=prep.timeout
        )
        return request, prep.replayable


def _image_path(board: str, card: int) -> str:
    return f"{API}/boards/{board}/cards/{card}/image"


def _board_upload_path(board: str) -> str:
    return f"{API}/boards/{quote(board, safe='')}/upload"


def _task_upload_path(task: str) -> str:
    return f"{API}/tasks/{quote(str(task), safe='')}/upload"


def _render(board: str, params: Mapping[str, Any]) -> dict[str, Any]:
    return {**params, "board": board, "format": "png"}


class Client(_Base):
    """A blocking client of a layoutkit server at ``url`` (``http://host:port``).

    ``token`` is sent as a bearer credential; ``workspace`` picks a workspace of a
    multi-workspace deployment. ``timeout`` is seconds or an ``httpx.Timeout``
    (default: 5 s to connect, 60 s to answer; long polls get longer). ``retries``
    bounds repeats after ``503 busy`` and lost connections, ``backoff`` is the first
    wait in seconds (doubling). ``transport`` replaces httpx's (tests, proxies, an
    ASGI app in-process).
    """

    _HTTP = httpx.Client

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _send(self, request: httpx.Request, replayable: bool) -> httpx.Response:
        attempt = 0
        while True:
            try:
                outcome: httpx.Response | Exception = self._http.send(request)
            except httpx.TransportError as exc:
                outcome = exc
            wait = self._core.delay(attempt, outcome, replayable)
            if wait is None:
                if isinstance(outcome, Exception):
                    raise self._core.failure(outcome, request) from outcome
                return outcome
            if isinstance(outcome, httpx.Response):
                outcome.close()
            time.sleep(wait)
            attempt += 1

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        content: bytes | str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | httpx.Timeout | None = None,
    ) -> httpx.Response:
        """A raw request to ``path`` under the server (``/api/v1/health``), with the
        client's credential, retries and timeouts. Any status is answered as it is;
        only a server that cannot be reached raises (503 ``unreachable``)."""
        return self._send(*self._raw(method, path, json, params, content, headers, timeout))

    def operations(self) -> list[dict[str, Any]]:
        """Every operation as ``Workspace.operations()`` lists it: name, description,
        params_schema."""
        return self._core.remember_ops(self.request("GET", f"{API}/ops"))

    def call(self, op: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Run ``op`` on the server and answer its result, or raise its ServiceError."""
        if self._core._ops is None:
            self.operations()
        return _answer(self._send(*self._op(op, params)))

    # -- helpers

    def upload_files(
        self, board: str, files: Iterable[FileInput], **options: Any
    ) -> dict[str, Any]:
        """Upload files (paths or ``(name, bytes[, mime])``) onto ``board``; ``options``
        are upload_files' other params (section, anchor, side, createSection...)."""
        return _answer(self._send(*self._multipart(_board_upload_path(board), files, options)))

    def upload_task_files(
        self, task: str, files: Iterable[FileInput], **options: Any
    ) -> dict[str, Any]:
        """Attach files to task ``task`` (text, and any other file kept as it is);
        ``options`` are attach_task_files' other params
        (kind, hint, load, versionOf...)."""
        return _answer(self._send(*self._multipart(_task_upload_path(task), files, options)))

    def card_image(
        self,
        board: str,
        card: int,
        *,
        version: int | None = None,
        max_dim: int | None = None,
        region: Mapping[str, float] | None = None,
    ) -> bytes:
        """A card's picture as PNG bytes (at ``version``, cut to ``region`` {x, y, w, h})."""
        query = _Core.image_query(version, max_dim, region)
        return _Core.bytes_of(self.request("GET", _image_path(board, card), params=query))

    def card_file(self, card: int) -> bytes:
        """A card's stored file as bytes (an uploaded PDF, image or document)."""
        return _Core.bytes_of(self.request("GET", f"{API}/cards/{card}/file"))

    def render_to_file(self, board: str, out: str | Path, **params: Any) -> list[Path]:
        """Draw ``board`` as PNG into ``out`` (tiles beside it); answers the files written.
        ``params`` are render_board's (scale, section, region...)."""
        return _Core.write_render(self.call("render_board", _render(board, params)), out)

    def wait_for_work(self, timeout: float | None = None, **scope: Any) -> dict[str, Any]:
        """One long poll: capsules of work in ``scope`` (project, branch or board, agent),
        or ``{idle: true}`` when ``timeout`` seconds pass with nothing."""
        return self.call("wait_for_work", _work_params(scope, timeout))

    def iter_work(self, timeout: float | None = None, **scope: Any) -> Iterator[dict[str, Any]]:
        """Poll for work without end, yielding each answer that carries some (idle
        answers are polled again). Stop by leaving the loop."""
        while True:
            found = self.wait_for_work(timeout, **scope)
            if not found.get("idle"):
                yield found


class AsyncClient(_Base):
    """The async twin of :class:`Client` (on httpx.AsyncClient, asyncio or trio): the
    same constructor and methods, awaited; ``iter_work`` is an async iterator."""

    _HTTP = httpx.AsyncClient

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._http.aclose()

    async def _send(self, request: httpx.Request, replayable: bool) -> httpx.Response:
        import anyio  # httpx's own dependency; loaded only by async callers

        attempt = 0
        while True:
            try:
                outcome: httpx.Response | Exception = await self._http.send(request)
            except httpx.TransportError as exc:
                outcome = exc
            wait = self._core.delay(attempt, outcome, replayable)
            if wait is None:
                if isinstance(outcome, Exception):
                    raise self._core.failure(outcome, request) from outcome
                return outcome
            if isinstance(outcome, httpx.Response):
                await outcome.aclose()
            await anyio.sleep(wait)
            attempt += 1

    async def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        content: bytes | str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | httpx.Timeout | None = None,
    ) -> httpx.Response:
        """See :meth:`Client.request`."""
        return await self._send(*self._raw(method, path, json, params, content, headers, timeout))

    async def operations(self) -> list[dict[str, Any]]:
        """See :meth:`Client.operations`."""
        return self._core.remember_ops(await self.request("GET", f"{API}/ops"))

    async def call(self, op: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """See :meth:`Client.call`."""
        if self._core._ops is None:
            await self.operations()
        return _answer(await self._send(*self._op(op, params)))

    async def upload_files(
        self, board: str, files: Iterable[FileInput], **options: Any
    ) -> dict[str, Any]:
        """See :meth:`Client.upload_files`."""
        request = self._multipart(_board_upload_path(board), files, options)
        return _answer(await self._send(*request))

    async def upload_task_files(
        self, task: str, files: Iterable[FileInput], **options: Any
    ) -> dict[str, Any]:
        """See :meth:`Client.upload_task_files`."""
        request = self._multipart(_task_upload_path(task), files, options)
        return _answer(await self._send(*request))

    async def card_image(
        self,
        board: str,
        card: int,
        *,
        version: int | None = None,
        max_dim: int | None = None,
        region: Mapping[str, float] | None = None,
    ) -> bytes:
        """See :meth:`Client.card_image`."""
        query = _Core.image_query(version, max_dim, region)
        return _Core.bytes_of(await self.request("GET", _image_path(board, card), params=query))

    async def card_file(self, card: int) -> bytes:
        """See :meth:`Client.card_file`."""
        return _Core.bytes_of(await self.request("GET", f"{API}/cards/{card}/file"))

    async def render_to_file(self, board: str, out: str | Path, **params: Any) -> list[Path]:
        """See :meth:`Client.render_to_file`."""
        return _Core.write_render(await self.call("render_board", _render(board, params)), out)

    async def wait_for_work(self, timeout: float | None = None, **scope: Any) -> dict[str, Any]:
        """See :meth:`Client.wait_for_work`."""
        return await self.call("wait_for_work", _work_params(scope, timeout))

    async def iter_work(
        self, timeout: float | None = None, **scope: Any
    ) -> AsyncIterator[dict[str, Any]]:
        """See :meth:`Client.iter_work`."""
        while True:
            found = await self.wait_for_work(timeout, **scope)
            if not found.get("idle"):
                yield found
