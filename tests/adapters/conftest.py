from __future__ import annotations

import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import httpx2
import pytest
import uvicorn
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from layoutkit import Workspace
from layoutkit.adapters._serving import uvicorn_server
from layoutkit.adapters.http import create_app
from tests.browser import playwright_browser


class LiveServer:
    """uvicorn on 127.0.0.1 in a background thread, stopped by the fixture."""

    def __init__(self, app: object) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", lifespan="on")
        # The server `layoutkit serve` runs: a stop ends its event streams and long polls.
        self.server = uvicorn_server(config, None)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]})

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start within 10 s")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


class Api:
    """A workspace served over HTTP, with an owner token and a client that sends it."""

    def __init__(self, ws: Workspace, server: LiveServer) -> None:
        self.ws = ws
        self.server = server
        self.url = server.url
        self.token = ws.create_token("owner", "tests")
        self.client = httpx.Client(
            base_url=server.url, headers={"authorization": f"Bearer {self.token}"}, timeout=30
        )

    def op(self, name: str, params: dict | None = None) -> httpx.Response:
        return self.client.post(f"/api/v1/ops/{name}", json=params or {})


@pytest.fixture
def api() -> Iterator[Api]:
    ws = Workspace.open()
    with LiveServer(create_app(ws)) as server:
        api = Api(ws, server)
        try:
            yield api
        finally:
            api.client.close()
            ws.close()


@asynccontextmanager
async def mcp_session(url: str, token: str) -> AsyncIterator[ClientSession]:
    """An initialized MCP client session with ``token`` on the server at ``url``
    (streamable HTTP at ``/mcp/``)."""
    async with (
        httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=30) as client,
        streamable_http_client(f"{url}/mcp/x/all/", http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


# ---------------------------------------------------------------- the viewer by hand
#: The window the viewer's hands-on browser tests open pages in unless told otherwise.
VIEWPORT = {"width": 1440, "height": 900}


class Pages:
    """Browser contexts of one test; each page's script errors fail the test."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.contexts: list[Any] = []
        self.errors: list[str] = []

    def new(self, viewport: dict[str, int] | None = None) -> Any:
        context = self.browser.new_context(viewport=viewport or VIEWPORT)
        self.contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        return page


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module (a module of its own may define another)."""
    yield from playwright_browser()


@pytest.fixture
def pages(browser: Any) -> Iterator[Pages]:
    """The test's browser contexts, closed after it; a script error on a page fails it."""
    made = Pages(browser)
    yield made
    for context in made.contexts:
        context.close()
    assert not made.errors, made.errors
