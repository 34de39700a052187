"""`layoutkit serve --workers N`: several processes serve one database.

The server runs as a real child process (as a user starts it); the tests talk
to it over HTTP and MCP on loopback, and stop it with SIGINT.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from layoutkit import Workspace


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    def __init__(self, proc: subprocess.Popen[str], url: str, token: str, db: str) -> None:
        self.proc, self.url, self.token, self.db = proc, url, token, db

    def post(self, op: str, body: dict[str, Any]) -> httpx.Response:
        headers = {"authorization": f"Bearer {self.token}"}
        return httpx.post(f"{self.url}/api/v1/ops/{op}", json=body, headers=headers, timeout=30)


def start_served(db: str, workers: int, *options: str, token: str | None = None) -> Served:
    """``layoutkit serve`` on ``db`` as a user starts it, once it answers on loopback;
    with the owner token it prints, or ``token`` (minted by the caller) when given."""
    port = _free_port()
    env = {**os.environ, "LAYOUTKIT_FETCH": "off"}
    command = ["serve", "--db", db, "--port", str(port), "--workers", str(workers), *options]
    proc = subprocess.Popen(
        [sys.executable, "-m", "layoutkit.adapters.cli", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    printed, deadline = None, time.monotonic() + 60
    while printed is None and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("owner token (keep it private): "):
            printed = line.split(": ", 1)[1].strip()
        elif line.startswith("API: "):
            break  # past the token line: none was printed
    token = token or printed
    assert token, "serve printed no owner token"
    url = f"http://127.0.0.1:{port}"
    while time.monotonic() < deadline:
        try:
            httpx.get(f"{url}/api/v1/openapi.json", timeout=2)
            break
        except httpx.TransportError:
            time.sleep(0.2)
    return Served(proc, url, token, db)


def stop_served(s: Served) -> None:
    """Stop the server as a user does (SIGINT), killing it if it hangs."""
    s.proc.send_signal(signal.SIGINT)
    try:
        s.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        s.proc.kill()
        s.proc.wait()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    s = start_served(f"sqlite:///{tmp_path / 'served.db'}", 2)
    try:
        yield s
    finally:
        stop_served(s)


def _listening_inodes(port: int) -> set[str]:
    """The inodes of the sockets listening on ``port`` (state 0A in /proc/net/tcp)."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == "0A":
            found.add(fields[9])
    return found


def _workers(s: Served) -> list[int]:
    """The processes serving requests: the serve process itself (it answers first)
    and each of its children that listens on the port (not the engine pools nor
    the resource tracker)."""
    port = int(s.url.rsplit(":", 1)[1])
    inodes = _listening_inodes(port)

    def listens(pid: int) -> bool:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                return True
        return False

    children = [
        int(pid)
        for task in Path(f"/proc/{s.proc.pid}/task").iterdir()
        for pid in (task / "children").read_text().split()
    ]
    return [s.proc.pid, *(pid for pid in children if listens(pid))]


def _wait_for_workers(s: Served, count: int) -> list[int]:
    """The serving processes once ``count`` of them listen (the workers start after
    the parent answers)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = _workers(s)
        if len(found) >= count:
            return found
        time.sleep(0.1)
    return _workers(s)


def test_several_workers_serve_one_database(served: Served) -> None:
    assert len(_wait_for_workers(served, 2)) == 2
    assert served.post("create", {"kind": "board", "slug": "w"}).status_code == 200

    def compose(i: int) -> int:
        card = {"kind": "text", "payload": {"md": f"note {i}"}}
        return served.post("compose_board", {"board": "w", "cards": [card]}).status_code

    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(compose, range(48)))
    assert statuses == [200] * 48
    cards = served.post("scrape_board", {"board": "w"}).json()["cards"]
    assert sorted(c["payload"]["md"] for c in cards) == sorted(f"note {i}" for i in range(48))
    boxes = [(c["x"], c["y"], c["x"] + c["w"], c["y"] + c["h"]) for c in cards]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)


def _cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def test_kept_alive_connections_spread_over_the_workers(served: Served) -> None:
    """Each worker listens on a socket of its own (SO_REUSEPORT): sixteen clients,
    each on one kept-alive connection, reach both workers, not the last one to wait."""
    workers = _wait_for_workers(served, 2)
    served.post("create", {"kind": "board", "slug": "spread"})
    before = {pid: _cpu_ticks(pid) for pid in workers}
    headers = {"authorization": f"Bearer {served.token}"}

    def client(i: int) -> None:
        with httpx.Client(base_url=served.url, headers=headers, timeout=30) as http:
            for j in range(6):
                card = {"kind": "text", "payload": {"md": f"client {i} card {j}"}}
                body = {"board": "spread", "cards": [card]}
                assert http.post("/api/v1/ops/compose_board", json=body).status_code == 200

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(client, range(16)))
    spent = {pid: _cpu_ticks(pid) - before[pid] for pid in workers}
    assert all(ticks > 0 for ticks in spent.values()), spent


def test_mcp_and_the_viewer_answer_on_every_worker(served: Served) -> None:
    async def calls() -> list[Any]:
        headers = {"authorization": f"Bearer {served.token}"}
        out = []
        async with httpx2.AsyncClient(headers=headers, timeout=30) as client:
            # Stateless sessions: each request may reach another worker.
            for i in range(6):
                async with (
                    streamable_http_client(f"{served.url}/mcp", http_client=client) as (r, w),
                    ClientSession(r, w) as session,
                ):
                    await session.initialize()
                    slug = f"m{i}"
                    await session.call_tool("create", {"kind": "board", "slug": slug})
                    got = await session.call_tool("scrape_board", {"board": slug})
                    out.append(got.structured_content["board"]["slug"])
        return out

    assert anyio.run(calls) == [f"m{i}" for i in range(6)]
    with httpx.Client(base_url=served.url) as browser:
        for _ in range(4):
            page = browser.get("/boards/m0", params={"token": served.token}, follow_redirects=True)
            assert page.status_code == 200 and "m0" in page.text


def test_the_parent_prepares_the_database_once(served: Served) -> None:
    # One owner token was minted for the database, not one per worker.
    served.proc.send_signal(signal.SIGINT)
    served.proc.wait(timeout=30)
    ws = Workspace.open(served.db)
    try:
        assert [t["purpose"] for t in ws.tokens()].count("serve") == 1
    finally:
        ws.close()
