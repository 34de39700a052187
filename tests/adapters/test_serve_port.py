"""`layoutkit serve` owns its port: it refuses one that another process listens on.

Workers share their port through SO_REUSEPORT, which the kernel would as gladly
let a second server join: the clients of the first then meet the second's
database half the time (random 401s). A second `serve` on a taken port must
exit non-zero with a message, before it mints or prints a token and before it
says it is serving. The servers run as real child processes on 127.0.0.1.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from layoutkit import Workspace
from layoutkit.adapters import _workers

from .test_serve_workers import Served, start_served, stop_served


@pytest.fixture(params=[1, 2], ids=["first-1-worker", "first-2-workers"])
def first(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Served]:
    served = start_served(f"sqlite:///{tmp_path / 'first.db'}", request.param)
    try:
        yield served
    finally:
        stop_served(served)


def second_serve(db: str, port: int, workers: int) -> tuple[int, str, str]:
    """`layoutkit serve` on ``port``: its exit status, stdout and stderr.

    A server that took the port anyway is stopped as soon as it says it serves
    (it would never exit by itself), and its status is then not 0 either, so
    the caller's checks of the output tell the two apart."""
    command = ["serve", "--db", db, "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "layoutkit.adapters.cli", *command, "--workers", str(workers)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "LAYOUTKIT_FETCH": "off"},
    )
    assert proc.stdout is not None
    out = []
    for line in proc.stdout:
        out.append(line)
        if "serving on" in line:
            proc.send_signal(signal.SIGINT)
            break
    rest, err = proc.communicate(timeout=60)
    return proc.returncode, "".join(out) + rest, err


def assert_refused(tmp_path: Path, port: int, workers: int) -> None:
    # A database never served before: a server that got that far would mint and print a token.
    db = f"sqlite:///{tmp_path / f'second-{workers}.db'}"
    status, out, err = second_serve(db, port, workers)
    assert "serving on" not in out, out
    assert "owner token" not in out and "lkt_" not in out + err, out
    assert status != 0
    assert f"port {port} on 127.0.0.1 is in use by another process" in err, err
    with Workspace.open(db) as ws:
        assert ws.tokens() == []


@pytest.mark.parametrize("workers", [1, 2])
def test_a_second_server_on_the_port_of_a_running_one_is_refused(
    first: Served, tmp_path: Path, workers: int
) -> None:
    port = int(first.url.rsplit(":", 1)[1])
    assert_refused(tmp_path, port, workers)
    # The first one still answers, with its own token, on every worker.
    for _ in range(4):
        assert first.post("list", {"kind": "board"}).status_code == 200


@pytest.mark.parametrize("reuse_port", [False, True], ids=["plain", "so-reuseport"])
def test_a_port_another_program_listens_on_is_refused(tmp_path: Path, reuse_port: bool) -> None:
    with socket.socket() as holder:
        if reuse_port:
            # Even one that would share: its clients are not ours to take.
            holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        for workers in (1, 2):
            assert_refused(tmp_path, port, workers)


def test_owned_sockets_share_one_port_and_refuse_a_taken_one() -> None:
    shared = _workers.owned_sockets("127.0.0.1", 0, 3)
    try:
        ports = {s.getsockname()[1] for s in shared}
        assert len(ports) == 1 and 0 not in ports
        with pytest.raises(_workers.CannotListen) as err:
            _workers.owned_sockets("127.0.0.1", ports.pop(), 2)
        assert err.value.in_use
    finally:
        for s in shared:
            s.close()
    alone = _workers.owned_sockets("127.0.0.1", 0, 1)
    with alone[0]:
        assert not alone[0].getsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT)
        # Not even sockets that would share it may join.
        with pytest.raises(OSError, match="in use"):
            _workers.listening_sockets("127.0.0.1", alone[0].getsockname()[1], 1)
