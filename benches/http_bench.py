"""HTTP compose throughput: 10-card batches at 1, 8 and 32 concurrent clients on loopback.

Runs ``layoutkit serve`` itself in a child process on 127.0.0.1 (as a user
starts it), once with one worker process and once with one per core, over a
fresh SQLite file and, when a PostgreSQL URL is given (``--postgres`` or
``LAYOUTKIT_TEST_POSTGRES_URL``), over a fresh PostgreSQL database made for the
run and dropped after it. Prints what the clients wait for (requests/s and
latency percentiles, wall time) per backend, worker count and concurrency,
the CPU time the server's processes and the bench's clients spent per
request, and the ratio of N workers to one.

    python benches/http_bench.py [--requests-per-client 15] [--rounds 3] [--postgres URL]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def batch(i: int) -> dict:
    return {
        "cards": [
            {
                "kind": "text",
                "payload": {"md": f"# Card {i}.{k}\nSome words to wrap here and there."},
            }
            for k in range(10)
        ]
    }


async def client(base: str, token: str, board: str, n: int, latencies: list[float]) -> None:
    """One keep-alive connection sending ``n`` composes one after another.

    Plain HTTP/1.1 on asyncio streams rather than an HTTP library: the clients
    share the machine's cores with the server, and a lean client leaves them
    to the server (a full client library spends about as much CPU per request
    as the server's own HTTP layer).
    """
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        for i in range(n):
            body = json.dumps(batch(i)).encode()
            head = (
                f"POST /api/v1/boards/{board}/compose HTTP/1.1\r\n"
                f"Host: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
            )
            t0 = time.perf_counter()
            writer.write(head.encode() + body)
            await writer.drain()
            status = await reader.readline()
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            answer = await reader.readexactly(length)
            latencies.append(time.perf_counter() - t0)
            if b" 200 " not in status:
                raise RuntimeError(f"{status!r}: {answer[:300]!r}")
    finally:
        writer.close()


async def level(
    base: str, token: str, clients: int, per_client: int, tag: str
) -> tuple[float, list[float]]:
    async with httpx.AsyncClient(
        base_url=base, headers={"authorization": f"Bearer {token}"}
    ) as http:
        for c in range(clients):
            await http.post("/api/v1/ops/create", json={"kind": "board", "slug": f"{tag}-{c}"})
    latencies: list[float] = []
    t0 = time.perf_counter()
    await asyncio.gather(
        *(client(base, token, f"{tag}-{c}", per_client, latencies) for c in range(clients))
    )
    return time.perf_counter() - t0, latencies


@contextlib.contextmanager
def serving(db: str, workers: int) -> Iterator[tuple[str, str, int]]:
    """``layoutkit serve`` on ``db`` with ``workers`` processes: (base URL, owner token, pid)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from layoutkit import Workspace

    # A token of its own: serve prints the owner token only on a database's first start.
    with Workspace.open(db) as ws:
        token = ws.create_token("owner", f"http-bench-{workers}-{time.time_ns()}")
    port = free_port()
    command = ["serve", "--db", db, "--port", str(port), "--workers", str(workers), "--no-fetch"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "layoutkit.adapters.cli", *command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/api/v1/health", timeout=1)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield base, token, proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@contextlib.contextmanager
def fresh_postgres(url: str) -> Iterator[str]:
    """A new empty database on the server of ``url``, dropped afterwards."""
    import psycopg

    name = f"lk_http_bench_{os.getpid()}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield url.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of process ``pid`` and its live descendants, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    total, stack = 0.0, [pid]
    while stack:
        p = stack.pop()
        try:
            stat = Path(f"/proc/{p}/stat").read_text()
            fields = stat.rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
            for task in Path(f"/proc/{p}/task").iterdir():
                stack += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def machine_cpu_seconds() -> float:
    """Busy CPU time of the whole machine (every core, every process), from /proc/stat:
    the server, its engines, the database server and these clients together."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def run_levels(
    db: str, workers: int, per_client: int, rounds: int
) -> dict[int, tuple[int, float, str, float, float, float, float, float]]:
    """clients -> (requests, req/s (median of the rounds), the rounds' range, median ms,
    p95 ms, and CPU ms a request: server, bench clients, whole machine).

    Each round opens new connections: with one socket per worker the kernel
    spreads connections by a hash of their addresses, so a round of 8 may
    land 4 and 4 or 6 and 2, and a single round would report that luck.
    """
    out = {}
    with serving(db, workers) as (base, token, pid):
        for clients in (1, 8, 32):
            server0, client0, machine0 = (
                cpu_seconds(pid),
                time.process_time(),
                machine_cpu_seconds(),
            )
            rates: list[float] = []
            lat: list[float] = []
            for r in range(rounds):
                elapsed, got = asyncio.run(
                    level(base, token, clients, per_client, f"w{workers}c{clients}r{r}")
                )
                rates.append(len(got) / elapsed)
                lat += got
            server = (cpu_seconds(pid) - server0) / len(lat) * 1000
            bench = (time.process_time() - client0) / len(lat) * 1000
            machine = (machine_cpu_seconds() - machine0) / len(lat) * 1000
            lat.sort()
            p95 = lat[max(0, int(len(lat) * 0.95) - 1)]
            out[clients] = (
                len(lat),
                statistics.median(rates),
                f"{min(rates):.0f}-{max(rates):.0f}",
                statistics.median(lat) * 1000,
                p95 * 1000,
                server,
                bench,
                machine,
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests-per-client", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of new connections")
    parser.add_argument("--postgres", default=os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL"))
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    print(
        f"compose_board over HTTP, 10 cards a request, layoutkit serve with 1 and {cores} workers"
    )
    print("(what the clients wait for, end to end on loopback)")
    print()
    print(
        "| backend | workers | clients | requests | req/s | req/s of rounds | median ms | p95 ms "
        "| server CPU ms/req | client CPU ms/req | machine CPU ms/req | req/s vs 1 worker |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    backends: list[tuple[str, contextlib.AbstractContextManager[str]]] = []
    tmp = tempfile.TemporaryDirectory()
    backends.append(("sqlite", contextlib.nullcontext(f"sqlite:///{Path(tmp.name) / 'b.db'}")))
    if args.postgres:
        backends.append(("postgresql", fresh_postgres(args.postgres)))
    else:
        print("| postgresql | skipped: no --postgres URL or LAYOUTKIT_TEST_POSTGRES_URL |")
    with tmp:
        for name, opened in backends:
            with opened as db:
                one = run_levels(db, 1, args.requests_per_client, args.rounds)
                many = (
                    run_levels(db, cores, args.requests_per_client, args.rounds)
                    if cores > 1
                    else {}
                )
            for workers, rows in ((1, one), (cores, many)):
                for clients, row in rows.items():
                    n, rps, spread, median, p95, server, bench, machine = row
                    ratio = rps / one[clients][1]
                    print(
                        f"| {name} | {workers} | {clients} | {n} | {rps:.1f} | {spread} | "
                        f"{median:.1f} | {p95:.1f} | {server:.1f} | {bench:.1f} | "
                        f"{machine:.1f} | {ratio:.2f}x |"
                    )


if __name__ == "__main__":
    main()
