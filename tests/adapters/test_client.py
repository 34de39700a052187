"""layoutkit.Client and AsyncClient against a live server on SQLite (a file) and PostgreSQL,
and their retry policy against scripted transports (httpx.MockTransport)."""

from __future__ import annotations

import ast
import base64
import io
import json
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from PIL import Image

import layoutkit
from layoutkit import AsyncClient, Client, ServiceError, Workspace
from layoutkit import client as client_module
from layoutkit.adapters.http import create_app
from tests.adapters.conftest import LiveServer
from tests.conftest import POSTGRES_URL


class Served:
    """A workspace on one backend behind a live server, with an owner token."""

    def __init__(self, ws: Workspace, server: LiveServer) -> None:
        self.ws, self.server, self.url = ws, server, server.url
        self.token = ws.create_token("owner", "tests")

    def client(self, **kwargs: Any) -> Client:
        return Client(self.url, self.token, **kwargs)


@pytest.fixture(params=["sqlite", "postgres"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Served]:
    if request.param == "sqlite":
        ws = Workspace.open(f"sqlite:///{tmp_path / 'ws.db'}")
    else:
        if not POSTGRES_URL:
            pytest.skip("LAYOUTKIT_TEST_POSTGRES_URL is not set; PostgreSQL tests need a server")
        ws = Workspace.open(POSTGRES_URL, name=f"client-{uuid.uuid4().hex[:10]}")
    try:
        with LiveServer(create_app(ws)) as server:
            yield Served(ws, server)
    finally:
        ws.close()


def _png(w: int = 64, h: int = 40) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (w, h), (200, 80, 30)).save(out, format="PNG")
    return out.getvalue()


def _err(fn: Callable[[], Any]) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        fn()
    return caught.value


# ---------------------------------------------------------------- live server


def test_operations_and_calls_match_the_workspace(served: Served) -> None:
    with served.client() as client:
        assert client.operations() == served.ws.operations()
        made = client.call("create", {"kind": "board", "slug": "home", "project": "p"})
        assert made["board"]["slug"] == "home"
        client.call(
            "compose_board", {"board": "home", "cards": [{"kind": "note", "payload": {"md": "a"}}]}
        )
        assert client.call("get", {"kind": "board", "board": "home"}) == served.ws.call(
            "get", {"kind": "board", "board": "home"}
        )


def test_errors_carry_the_servers_status_code_and_body(served: Served) -> None:
    served.ws.call("create", {"kind": "board", "slug": "roadmap"})
    local = _err(lambda: served.ws.call("get", {"kind": "board", "board": "roadmap2"}))
    with served.client() as client:
        remote = _err(lambda: client.call("get", {"kind": "board", "board": "roadmap2"}))
        assert (remote.status, remote.code, remote.body) == (local.status, local.code, local.body)
        assert "roadmap" in remote.body["didYouMean"]
        invalid = _err(lambda: client.call("compose_board", {"board": "roadmap", "cards": 5}))
        assert (invalid.status, invalid.code) == (400, "invalid_params")
        unknown = _err(lambda: client.call("no_such_op", {}))
        assert unknown.status == 404 and unknown.body["code"] == unknown.code
    with Client(served.url, "not-a-token") as stranger:
        refused = _err(stranger.operations)
        assert (refused.status, refused.code) == (401, "unauthenticated")
        assert _err(lambda: stranger.call("list", {"kind": "board"})).status == 401


def test_raw_requests_answer_any_status_as_it_is(served: Served) -> None:
    with served.client() as client:
        assert client.request("GET", "/api/v1/health").json() == {"ok": True}
        listed = client.request("GET", "/api/v1/ops")
        assert {op["name"] for op in listed.json()["operations"]} >= {"create", "wait_for_work"}
        missing = client.request("POST", "/api/v1/ops/get", json={"kind": "board", "board": "x"})
        assert missing.status_code == 404 and missing.json()["code"]
    assert httpx.get(f"{served.url}/api/v1/ops").status_code == 401


def test_an_unreachable_server_is_503_unreachable_with_its_url(served: Served) -> None:
    url = served.url
    served.server.__exit__()
    with Client(url, "t", retries=1, backoff=0.01) as client:
        err = _err(lambda: client.call("list", {"kind": "board"}))
    assert (err.status, err.code) == (503, client_module.UNREACHABLE)
    assert url in err.message and err.body["message"] == err.message


class LoseFirstAnswer(httpx.BaseTransport):
    """Sends every request to the server, but drops the answer to the first call of
    ``op`` after the server made it: the write happened, the caller never heard."""

    def __init__(self, op: str) -> None:
        self.inner = httpx.HTTPTransport()
        self.op = op
        self.bodies: list[dict[str, Any]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if request.url.path.endswith(f"/ops/{self.op}"):
            self.bodies.append(json.loads(request.content))
            if len(self.bodies) == 1:
                response.read()
                response.close()
                raise httpx.ReadError("connection reset after the request was sent")
        return response


def test_a_write_whose_answer_was_lost_is_replayed_not_done_twice(served: Served) -> None:
    served.ws.call("create", {"kind": "board", "slug": "home"})
    lossy = LoseFirstAnswer("compose_board")
    cards = [{"kind": "note", "payload": {"md": "once"}}] * 2
    with served.client(transport=lossy, backoff=0.01) as client:
        receipt = client.call("compose_board", {"board": "home", "cards": cards})
    assert len(lossy.bodies) == 2
    first, retry = lossy.bodies
    assert first["requestKey"] and first == retry
    assert len(receipt["cards"]) == 2
    assert served.ws.call("get", {"kind": "board", "board": "home"})["board"]["cards"] == 2


def test_a_callers_own_request_key_is_kept(served: Served) -> None:
    served.ws.call("create", {"kind": "board", "slug": "home"})
    params = {
        "board": "home",
        "cards": [{"kind": "note", "payload": {"md": "a"}}],
        "requestKey": "mine-1",
    }
    with served.client() as client:
        assert client.call("compose_board", params) == client.call("compose_board", params)
    assert served.ws.call("get", {"kind": "board", "board": "home"})["board"]["cards"] == 1


def test_a_raw_post_whose_answer_was_lost_is_not_sent_again(served: Served) -> None:
    served.ws.call("create", {"kind": "board", "slug": "home"})
    lossy = LoseFirstAnswer("compose_board")
    with served.client(transport=lossy, backoff=0.01) as client:
        body = {"board": "home", "cards": [{"kind": "note", "payload": {"md": "a"}}]}
        err = _err(lambda: client.request("POST", "/api/v1/ops/compose_board", json=body))
    assert (err.status, err.code, len(lossy.bodies)) == (503, "unreachable", 1)


def test_uploads_files_and_card_images_as_bytes(served: Served, tmp_path: Path) -> None:
    png = _png()
    path = tmp_path / "shot.png"
    path.write_bytes(png)
    served.ws.call("create", {"kind": "board", "slug": "home"})
    with served.client() as client:
        receipt = client.upload_files("home", [path, ("notes.txt", b"plain words")])
        ids = [c["id"] for c in receipt["cards"]]
        assert [f["name"] for f in receipt["files"]] == ["shot.png", "notes.txt"]
        assert client.card_file(ids[0]) == png
        image = client.card_image("home", ids[0], region={"x": 0, "y": 0, "w": 32, "h": 20})
        assert image.startswith(b"\x89PNG")
        assert Image.open(io.BytesIO(image)).size[0] <= Image.open(io.BytesIO(png)).size[0]
        missing = _err(lambda: client.card_image("home", 999999))
        assert missing.status == 404 and missing.code
        written = client.render_to_file("home", tmp_path / "board.png")
        assert written[0].read_bytes().startswith(b"\x89PNG")
        task = client.call("create", {"kind": "task", "title": "Files"})["task"]["id"]
        attached = client.upload_task_files(task, [("plan.md", b"# Plan\n")], kind="plan")
        assert [u["filename"] for u in attached["uploaded"]] == ["plan.md"]
        # Uploads travel as multipart: a file whose base64 would pass the JSON body's
        # 8 MiB goes through whole, under a section, and a retry key of its own.
        big = bytes(range(256)) * (9 * 1024 * 4)  # 9 MiB
        landed = client.upload_files("home", [("dump.bin", big)], section="Logs")
        assert landed["files"][0]["size"] == len(big)
        assert client.card_file(landed["cards"][0]["id"]) == big


def _post_ask(ws: Workspace, text: str) -> None:
    ws.call("post_ask", {"question": text, "project": "shop"})


def test_wait_for_work_blocks_until_work_comes_and_iterates(served: Served) -> None:
    served.ws.call("create", {"kind": "board", "slug": "rev", "project": "shop"})
    with served.client() as client:
        assert client.wait_for_work(0, project="shop")["idle"] is True
        got: list[dict[str, Any]] = []
        waiter = threading.Thread(
            target=lambda: got.append(client.wait_for_work(30, project="shop"))
        )
        waiter.start()
        _post_ask(served.ws, "Which colour?")
        waiter.join(timeout=60)
        assert [a["question"] for a in got[0]["asks"]] == ["Which colour?"]

        seen: list[dict[str, Any]] = []

        def follow() -> None:
            # Short polls: idle answers are polled again until work comes.
            for found in client.iter_work(0.5, project="shop"):
                seen.append(found)
                return

        follower = threading.Thread(target=follow)
        follower.start()
        _post_ask(served.ws, "Which size?")
        follower.join(timeout=60)
        assert not follower.is_alive()
        assert "Which size?" in [a["question"] for a in seen[0]["asks"]]


def test_the_async_twin_does_what_the_client_does(served: Served, tmp_path: Path) -> None:
    served.ws.call("create", {"kind": "board", "slug": "rev", "project": "shop"})
    _post_ask(served.ws, "Async?")

    async def main() -> dict[str, Any]:
        async with AsyncClient(served.url, served.token) as client:
            out: dict[str, Any] = {"ops": await client.operations()}
            out["missing"] = await _async_err(client.call("get", {"kind": "board", "board": "x"}))
            receipt = await client.upload_files("rev", [("a.png", _png())])
            card = receipt["cards"][0]["id"]
            out["image"] = await client.card_image("rev", card)
            out["file"] = await client.card_file(card)
            out["work"] = await client.wait_for_work(5, project="shop")
            # New work for the second agent: the first ask is leased to the first one
            # until its lease runs out, a minute the iterator would otherwise wait.
            _post_ask(served.ws, "Async again?")
            async for found in client.iter_work(0, project="shop", agent="second"):
                out["iterated"] = found
                break
            out["health"] = (await client.request("GET", "/api/v1/health")).json()
            out["rendered"] = await client.render_to_file("rev", tmp_path / "a.png")
            return out

    async def _async_err(pending: Any) -> ServiceError:
        try:
            await pending
        except ServiceError as err:
            return err
        raise AssertionError("no ServiceError")

    out = anyio.run(main)
    assert out["ops"] == served.ws.operations()
    assert (out["missing"].status, out["missing"].code) == (404, "unknown_board")
    assert out["image"].startswith(b"\x89PNG") and out["file"] == _png()
    assert [a["question"] for a in out["work"]["asks"]] == ["Async?"]
    assert out["health"] == {"ok": True}
    assert out["rendered"][0].exists()
    assert [a["question"] for a in out["iterated"]["asks"]] == ["Async again?"]


# ---------------------------------------------------------------- scripted transports

OPS = [
    {
        "name": "compose_board",
        "description": "",
        "params_schema": {"properties": {"board": {}, "requestKey": {}}},
    },
    {"name": "get", "description": "", "params_schema": {"properties": {"kind": {}}}},
    {"name": "wait_for_work", "description": "", "params_schema": {"properties": {"timeout": {}}}},
]


class Script:
    """A server answering from a list: each entry a response, or an exception to raise."""

    def __init__(self, *answers: httpx.Response | Exception) -> None:
        self.answers = list(answers)
        self.calls: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v1/ops":
            return httpx.Response(200, json={"operations": OPS})
        self.calls.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def _busy() -> httpx.Response:
    body = {"code": "busy", "message": "busy", "retryAfter": 1}
    return httpx.Response(503, json=body, headers={"retry-after": "1"})


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The client's waits between attempts, recorded instead of slept."""
    waited: list[float] = []
    monkeypatch.setattr(client_module.time, "sleep", waited.append)
    return waited


def _scripted(script: Script, **kwargs: Any) -> Client:
    return Client("http://lk.test", "tok", transport=httpx.MockTransport(script), **kwargs)


def test_busy_is_retried_after_retry_after_with_the_same_key(sleeps: list[float]) -> None:
    script = Script(_busy(), _busy(), httpx.Response(200, json={"ok": 1}))
    with _scripted(script) as client:
        assert client.call("compose_board", {"board": "b"}) == {"ok": 1}
    keys = {json.loads(r.content)["requestKey"] for r in script.calls}
    assert len(script.calls) == 3 and len(keys) == 1
    assert len(sleeps) == 2 and all(s >= 1 for s in sleeps)


def test_a_stopping_server_is_retried_as_busy_is(sleeps: list[float]) -> None:
    # A server process that is closing ran nothing: another may answer the next try.
    stopping = httpx.Response(
        503, json={"code": "shutting_down", "message": "the workspace is closing"}
    )
    script = Script(stopping, httpx.Response(200, json={"ok": 1}))
    with _scripted(script) as client:
        assert client.call("compose_board", {"board": "b"}) == {"ok": 1}
    keys = {json.loads(r.content)["requestKey"] for r in script.calls}
    assert len(script.calls) == 2 and len(keys) == 1 and len(sleeps) == 1


def test_busy_past_the_retries_raises_busy(sleeps: list[float]) -> None:
    script = Script(_busy(), _busy(), _busy())
    with _scripted(script, retries=2) as client:
        err = _err(lambda: client.call("get", {"kind": "board"}))
    assert (err.status, err.code, err.body["retryAfter"]) == (503, "busy", 1)
    assert len(script.calls) == 3


@pytest.mark.parametrize("status", [400, 401, 404, 409, 413, 500, 502])
def test_other_errors_are_never_retried(status: int, sleeps: list[float]) -> None:
    body = {"code": f"c{status}", "message": "no", "field": "x"}
    script = Script(httpx.Response(status, json=body), httpx.Response(200, json={}))
    with _scripted(script) as client:
        err = _err(lambda: client.call("get", {"kind": "board"}))
    assert (err.status, err.body) == (status, body)
    assert len(script.calls) == 1 and sleeps == []


def test_a_503_that_is_not_busy_and_a_body_that_is_not_json(sleeps: list[float]) -> None:
    script = Script(httpx.Response(503, text="<html>gateway</html>"))
    with _scripted(script) as client:
        err = _err(lambda: client.call("get", {}))
    assert (err.status, err.code, len(script.calls)) == (503, "http_error", 1)
    assert "gateway" in err.message


def test_connect_failures_are_retried_even_for_writes(sleeps: list[float]) -> None:
    refused = httpx.ConnectError("refused")
    script = Script(refused, refused, httpx.Response(200, json={"ok": 1}))
    with _scripted(script) as client:
        assert client.request("POST", "/api/v1/anything").json() == {"ok": 1}
    assert len(script.calls) == 3 and len(sleeps) == 2


def test_lost_answers_are_retried_for_reads_and_keyed_writes(sleeps: list[float]) -> None:
    lost = httpx.RemoteProtocolError("server hung up")
    script = Script(lost, httpx.Response(200, json={"read": 1}), lost, httpx.Response(200, json={}))
    with _scripted(script) as client:
        assert client.call("get", {"kind": "board"}) == {"read": 1}
        assert client.call("compose_board", {"board": "b"}) == {}
    assert len(script.calls) == 4


def test_a_read_timeout_is_504_and_not_retried(sleeps: list[float]) -> None:
    script = Script(httpx.ReadTimeout("slow"), httpx.Response(200, json={}))
    with _scripted(script) as client:
        err = _err(lambda: client.call("get", {}))
    assert (err.status, err.code, len(script.calls)) == (504, client_module.TIMEOUT, 1)


def test_long_polls_outlast_their_wait_and_workspace_goes_in_a_header() -> None:
    script = Script(httpx.Response(200, json={"idle": True}), httpx.Response(200, json={}))
    with _scripted(script, workspace="team-b", timeout=10) as client:
        client.wait_for_work(50, project="p")
        client.call("get", {})
    poll, plain = script.calls
    assert poll.extensions["timeout"]["read"] > 50
    assert plain.extensions["timeout"]["read"] == 10
    assert all(r.headers["x-layoutkit-workspace"] == "team-b" for r in script.calls)
    assert all(r.headers["authorization"] == "Bearer tok" for r in script.calls)
    assert "requestKey" not in json.loads(poll.content)


def test_the_async_twin_retries_the_same_way(monkeypatch: pytest.MonkeyPatch) -> None:
    waited: list[float] = []

    async def no_sleep(seconds: float) -> None:
        waited.append(seconds)

    monkeypatch.setattr(anyio, "sleep", no_sleep)
    script = Script(_busy(), httpx.ConnectError("refused"), httpx.Response(200, json={"ok": 2}))
    failing = Script(httpx.Response(409, json={"code": "conflict", "message": "taken"}))

    async def main() -> tuple[dict[str, Any], ServiceError]:
        transport = httpx.MockTransport(script)
        async with AsyncClient("http://lk.test", transport=transport) as client:
            ok = await client.call("compose_board", {"board": "b"})
        async with AsyncClient("http://lk.test", transport=httpx.MockTransport(failing)) as c:
            try:
                await c.call("get", {})
            except ServiceError as err:
                return ok, err
        raise AssertionError("no ServiceError")

    ok, err = anyio.run(main)
    assert ok == {"ok": 2} and len(script.calls) == 3 and len(waited) == 2
    assert (err.status, err.code, len(failing.calls)) == (409, "conflict", 1)


# ---------------------------------------------------------------- packaging


def test_the_client_module_imports_only_httpx_the_stdlib_and_two_small_modules() -> None:
    import sys

    tree = ast.parse(Path(client_module.__file__).read_text())
    roots = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            roots |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            roots.add(node.module)
    foreign = {
        r
        for r in roots
        if r.split(".")[0] not in sys.stdlib_module_names
        and r not in ("httpx", "layoutkit.errors", "layoutkit.files")
    }
    assert foreign == set()
    assert layoutkit.Client is Client and layoutkit.AsyncClient is AsyncClient


def test_request_keys_fit_the_registrys_schema() -> None:
    from layoutkit.service.road.registry import REQUEST_KEY

    key = client_module.new_request_key()
    assert REQUEST_KEY["minLength"] <= len(key) <= REQUEST_KEY["maxLength"]
    assert key != client_module.new_request_key()
    encoded = client_module.encode_files([("a.png", b"\x89PNG"), ("b.bin", b"x", "x/y")])
    assert encoded[0] == {
        "name": "a.png",
        "data": base64.b64encode(b"\x89PNG").decode(),
        "mime": "image/png",
    }
    assert encoded[1]["mime"] == "x/y"
