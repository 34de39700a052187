"""Time to first answer of ``layoutkit serve --example``: the quick start's first minute.

Starts the real server as a user does (a child process, port 0 on 127.0.0.1,
the processes' default of one worker per core) several times, and measures
from the moment the process is started until it answers ``GET /api/v1/health``
and, separately, the example board's page (``/boards/welcome`` with the owner
token: a person's first click). Each start is on a fresh database (the example
is composed, the schema made) and then on the database it left (the example and
schema already there). The target, 2 s on a quiet machine, is printed beside
each figure; the load average is printed too, since a busy machine measures
its neighbours as much as the server. So is the CPU time the serve process had
spent when it first answered the health check (user + system, from /proc): it
moves far less with the load than the wall time does, and on a quiet machine
the wall time is close to it.

Bytecode caching is left on for the server (``PYTHONDONTWRITEBYTECODE`` is
dropped from its environment, and one unmeasured start writes the cache): a
``pip install`` compiles it, so that is what a user's start runs with.

    python benches/serve_start_bench.py [--rounds 5] [--workers N]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

TARGET_S = 2.0
DEADLINE_S = 120.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds process ``pid`` has spent (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_once(db: Path, workers: int | None) -> tuple[float, float, float, float]:
    """Seconds from start to the printed address, to the first health answer and to
    the first answer of the example board's page, and the serve process's CPU
    seconds at the health answer; the server is stopped after."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["LAYOUTKIT_FETCH"] = "off"
    command = [sys.executable, "-m", "layoutkit.adapters.cli", "serve", "--example"]
    command += ["--port", "0", "--db", f"sqlite:///{db}", "--new-token"]
    if workers is not None:
        command += ["--workers", str(workers)]
    began = time.perf_counter()
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        assert proc.stdout is not None
        url = token = None
        printed = 0.0
        while time.perf_counter() - began < DEADLINE_S:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"serve exited: {proc.wait()}")
            if line.startswith("layoutkit serving on "):
                url = line.split()[3]
                printed = time.perf_counter() - began
            elif line.startswith("owner token (keep it private): "):
                token = line.rsplit(" ", 1)[1].strip()
            elif line.startswith("API: "):
                break
        if url is None or token is None:
            raise RuntimeError("serve printed no address or token")
        health = _first_answer(f"{url}/api/v1/health", {}, began)
        cpu = cpu_seconds(proc.pid)
        board = _first_answer(f"{url}/boards/welcome", {"token": token}, began)
        return printed, health, board, cpu
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


def _first_answer(url: str, params: dict[str, str], began: float) -> float:
    """Seconds from ``began`` until ``url`` first answers 200 (a refused or reset
    connection means not yet; the loop ends at the deadline)."""
    with httpx.Client(timeout=30) as client:
        while time.perf_counter() - began < DEADLINE_S:
            try:
                status = client.get(url, params=params, follow_redirects=True).status_code
            except httpx.TransportError:
                status = None  # not listening yet
            if status == 200:
                return time.perf_counter() - began
            time.sleep(0.005)
    raise RuntimeError(f"{url} never answered")


def _row(label: str, values: list[float]) -> str:
    median, worst = statistics.median(values), max(values)
    verdict = "within" if median <= TARGET_S else "over"
    return (
        f"| {label} | {median:.2f} | {min(values):.2f} | {worst:.2f} | {TARGET_S:.1f} ({verdict}) |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=None, help="default: serve's own")
    args = parser.parse_args()
    print(f"layoutkit serve --example, {args.rounds} starts each, wall seconds (caller waits)")
    print(f"cores {os.cpu_count()}, load average before {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as folder:
        start_once(Path(folder) / "warm.db", args.workers)  # writes the bytecode cache
        fresh: list[tuple[float, float, float, float]] = []
        existing: list[tuple[float, float, float, float]] = []
        for i in range(args.rounds):
            db = Path(folder) / f"round{i}.db"
            fresh.append(start_once(db, args.workers))
            existing.append(start_once(db, args.workers))
    print(f"load average after {os.getloadavg()[0]:.2f}")
    print()
    print("| database, first answer of | median s | best s | worst s | target s |")
    print("| --- | --- | --- | --- | --- |")
    for name, runs in (("fresh", fresh), ("existing", existing)):
        print(_row(f"{name}: address printed", [r[0] for r in runs]))
        print(_row(f"{name}: GET /api/v1/health", [r[1] for r in runs]))
        print(_row(f"{name}: example board page", [r[2] for r in runs]))
        print(_row(f"{name}: CPU s of serve at health", [r[3] for r in runs]))


if __name__ == "__main__":
    main()
