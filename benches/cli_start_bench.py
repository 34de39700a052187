"""How long the command line takes before it does anything.

Run: ``python benches/cli_start_bench.py [--rounds N]``. Each row is a whole process,
started fresh, timed from spawn to exit (wall milliseconds, median and p95 of N).
The anchor is ``python -c "import click"``: what any click program pays to start.
Limits: ``--help`` and ``--version`` within 250 ms, and a command run on a server
(--url) within 400 ms of its own, on a quiet machine. A remote command's own share is
its time less a bare ``httpx`` script making the same request to the same server
(which pays the server's answer and the connection, as the command does).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from _timing import percentile

HELP_LIMIT_MS = 250
REMOTE_OWN_LIMIT_MS = 400


def _command() -> list[str]:
    # What pip's console script runs, without the script file: a version manager's
    # shim in front of it (pyenv's is a bash script) would be timed as ours.
    return [sys.executable, "-c", "import sys; from layoutkit.adapters.cli import main; main()"]


def _time(argv: list[str], rounds: int, env: dict[str, str]) -> list[float]:
    subprocess.run(argv, env=env, capture_output=True, check=True)  # warm the file cache
    out = []
    for _ in range(rounds):
        start = time.perf_counter()
        subprocess.run(argv, env=env, capture_output=True, check=True)
        out.append((time.perf_counter() - start) * 1000)
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(folder: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], str, str]:
    port = _free_port()
    db = f"sqlite:///{folder / 'bench.db'}"
    proc = subprocess.Popen(
        [*_command(), "serve", "--db", db, "--port", str(port), "--workers", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    token = ""
    deadline = time.monotonic() + 120
    while not token and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line.startswith("owner token (keep it private): "):
            token = line.split(": ", 1)[1].strip()
    url = f"http://127.0.0.1:{port}"
    while time.monotonic() < deadline:
        try:
            httpx.get(f"{url}/api/v1/health", timeout=2)
            break
        except httpx.TransportError:
            time.sleep(0.1)
    return proc, url, token


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=10)
    rounds = parser.parse_args().rounds
    env = {**os.environ, "LAYOUTKIT_FETCH": "off"}
    cli = _command()
    rows: list[tuple[str, list[float], str]] = []
    anchor = _time([sys.executable, "-c", "import click"], rounds, env)
    rows.append(('python -c "import click" (anchor)', anchor, ""))
    rows.append(("layoutkit --help", _time([*cli, "--help"], rounds, env), f"{HELP_LIMIT_MS}"))
    rows.append(("layoutkit --version", _time([*cli, "--version"], rounds, env), ""))
    with tempfile.TemporaryDirectory() as folder:
        local_db = f"sqlite:///{Path(folder) / 'local.db'}"
        rows.append(
            (
                "layoutkit whoami (local database)",
                _time([*cli, "whoami", "--db", local_db], rounds, env),
                "",
            )
        )
        proc, url, token = _serve(Path(folder), env)
        try:
            bare = (
                "import httpx; httpx.post("
                f"'{url}/api/v1/ops/whoami', json={{}}, "
                f"headers={{'authorization': 'Bearer {token}'}}).raise_for_status()"
            )
            raw = _time([sys.executable, "-c", bare], rounds, env)
            remote = _time([*cli, "whoami", "--url", url, "--token", token], rounds, env)
            rows.append(("bare httpx script, same request", raw, ""))
            rows.append(("layoutkit whoami --url (server)", remote, ""))
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    base = statistics.median(anchor)
    print(f"{'command':<40} {'med ms':>8} {'p95 ms':>8} {'x click':>8} {'limit ms':>9}")
    for label, times, limit in rows:
        med = statistics.median(times)
        print(
            f"{label:<40} {med:>8.0f} {percentile(times, 0.95):>8.0f} {med / base:>8.2f} {limit:>9}"
        )
    own = statistics.median(remote) - statistics.median(raw)
    print(
        f"\nremote command's own share: {own:.0f} ms (limit {REMOTE_OWN_LIMIT_MS} ms); "
        f"--help {statistics.median(rows[1][1]):.0f} ms (limit {HELP_LIMIT_MS} ms)"
    )


if __name__ == "__main__":
    main()
