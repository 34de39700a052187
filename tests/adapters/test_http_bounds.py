"""Over HTTP: the upload cap holds while a body streams; a busy workspace says when to retry."""

from __future__ import annotations

import json
import select
import socket
import sqlite3
from pathlib import Path

import pytest

from layoutkit import Workspace
from layoutkit.adapters.http import create_app
from layoutkit.service.uploads import uploads
from layoutkit.storage._sql import store as sql_store

from .conftest import Api, LiveServer

BOUNDARY = "lkboundary"
CHUNK = 64 * 1024
#: How much the client offers before giving up: far more than the cap under test.
BUDGET = 64 * 1024 * 1024


def _response(sock: socket.socket) -> bytes:
    data = b""
    sock.settimeout(10)
    while b"\r\n\r\n" not in data or not data.rstrip().endswith(b"}"):
        part = sock.recv(65536)
        if not part:
            break
        data += part
    return data


def test_a_chunked_upload_over_the_cap_is_refused_while_it_streams(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(uploads, "MAX_CALL_BYTES", 100_000)
    api.op("create", {"kind": "board", "slug": "up"})
    head = (
        "POST /api/v1/boards/up/upload HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{api.server.port}\r\n"
        f"Authorization: Bearer {api.token}\r\n"
        f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()
    part = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="files"; '
        'filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n'
    ).encode()
    sent = 0
    answered = b""
    with socket.create_connection(("127.0.0.1", api.server.port)) as sock:
        sock.sendall(head + f"{len(part):x}\r\n".encode() + part + b"\r\n")
        payload = f"{CHUNK:x}\r\n".encode() + b"\0" * CHUNK + b"\r\n"
        while sent < BUDGET:
            readable, writable, _ = select.select([sock], [sock], [], 5)
            if readable:
                answered = _response(sock)
                break
            if not writable:
                continue
            try:
                sock.sendall(payload)
            except (BrokenPipeError, ConnectionResetError):
                answered = _response(sock)
                break
            sent += CHUNK
        else:
            # Never terminated: a server that reads the whole body has not answered yet.
            sock.settimeout(3)
            try:
                answered = _response(sock)
            except TimeoutError:
                answered = b""
    assert answered.startswith(b"HTTP/1.1 413"), (sent, answered[:200])
    body = json.loads(answered.split(b"\r\n\r\n", 1)[1])
    assert body["code"] == "payload_too_large"
    assert body["limit"] == 100_000
    # Refused after about the cap (plus what the sockets buffer), not the whole body.
    assert sent < BUDGET // 2
    assert api.op("scrape_board", {"board": "up"}).json()["cards"] == []


def test_a_busy_workspace_answers_503_with_retry_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sql_store, "SQLITE_BUSY_TIMEOUT_S", 0.2)
    db = tmp_path / "ws.db"
    ws = Workspace.open(f"sqlite:///{db}")
    ws.call("create", {"kind": "board", "slug": "b"})
    with LiveServer(create_app(ws)) as server:
        api = Api(ws, server)
        holder = sqlite3.connect(db, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            res = api.op("set_board_meta", {"board": "b", "meta": {"k": 1}})
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert res.status_code == 503
        assert res.headers["retry-after"] == "1"
        assert (res.json()["code"], res.json()["retryAfter"]) == ("busy", 1)
        assert api.op("set_board_meta", {"board": "b", "meta": {"k": 1}}).status_code == 200
        api.client.close()
    ws.close()
