"""Run a suite written against ``Workspace.call`` through ``layoutkit.Client`` as well.

The ``through`` fixture is parametrized ``in-process`` / ``client``: a test module's
workspace fixture hands its workspace to ``through(ws)`` and uses what comes back.
In-process that is the workspace itself; through the client it is a
:class:`RemoteWorkspace`: a live server on that same workspace, and a ``call`` that
goes over HTTP with a token of the principal the test names. Everything else
(``store``, ``authenticate``, ``create_token``...) is the workspace's own, so the
test's setup and checks stay as written, and any answer or refusal that differs
between the two roads fails the same test.
"""

from __future__ import annotations

import contextlib
import urllib.parse
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from layoutkit import Client, Principal, Workspace

#: What ``through`` gives: wraps a workspace for the length of a ``with``.
Through = Callable[[Workspace], contextlib.AbstractContextManager[Any]]


class RemoteWorkspace:
    """A workspace whose ``call`` goes through ``Client`` to a server on that workspace."""

    def __init__(self, ws: Workspace, url: str) -> None:
        self.ws = ws
        self.url = url
        self.clients: dict[tuple[Any, ...], Client] = {}
        self.tokens: dict[tuple[Any, ...], str] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.ws, name)

    def authenticate(self, token: str) -> Principal | None:
        """The workspace's answer, and the token kept: a later call as that principal
        sends this very token (a share link the test revokes, say)."""
        principal = self.ws.authenticate(token)
        if principal is not None:
            self.tokens[_key(principal)] = token
        return principal

    def call(
        self, op: str, params: dict[str, Any] | None = None, principal: Principal | None = None
    ) -> dict[str, Any]:
        return self.client(principal).call(op, params)

    def client(self, principal: Principal | None) -> Client:
        """A client holding a token that stands for ``principal`` (an owner token for
        none: the embedding caller a workspace trusts like its owner)."""
        who = principal or Principal.owner("embedder")
        key = _key(who)
        if key not in self.clients:
            self.clients[key] = Client(self.url, self._token(who), retries=0)
        return self.clients[key]

    def _token(self, who: Principal) -> str:
        if _key(who) in self.tokens:
            return self.tokens[_key(who)]
        if who.kind != "share":
            return self.ws.create_token(who.kind, who.name)
        params: dict[str, Any] = {"board": who.board, "mode": who.mode}
        if who.card is not None:
            params["cardId"] = who.card
        url = self.ws.call("share_board", params)["url"]
        return urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1]

    def close(self) -> None:
        for client in self.clients.values():
            client.close()


def _key(who: Principal) -> tuple[Any, ...]:
    return (who.kind, who.name, who.board, who.mode, who.card)


@pytest.fixture(params=["in-process", "client"])
def through(request: pytest.FixtureRequest) -> Through:
    """``with through(ws) as ws:`` — the workspace, or the same one behind a live server
    and ``Client`` (the ``client`` variant)."""

    @contextlib.contextmanager
    def wrap(ws: Workspace) -> Iterator[Any]:
        if request.param == "in-process":
            yield ws
            return
        # Loaded here: the root conftest registers this fixture for every test module.
        from layoutkit.adapters.http import create_app
        from tests.adapters.conftest import LiveServer

        with LiveServer(create_app(ws)) as server:
            remote = RemoteWorkspace(ws, server.url)
            try:
                yield remote
            finally:
                remote.close()

    return wrap
