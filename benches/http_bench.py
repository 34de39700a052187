"""HTTP compose throughput: 10-card batches at 1, 8 and 32 concurrent clients on loopback.

Runs ``layoutkit serve`` itself in a child process on 127.0.0.1 (as a user
starts it), once with one worker process and once with one per core, over a
fresh SQLite file and, when a PostgreSQL URL is given (``--postgres`` or
``LAYOUTKIT_TEST_POSTGRES_URL``), over a fresh PostgreSQL database made for the
run and dropped after it. Prints what the clients wait for (requests/s and
latency percentiles, wall time) per backend, worker count and concurrency,
the CPU time the server's processes and the bench's clients spent per
request, and the ratio of N workers to one.

Two anchors in the same run:

- ``echo``: the same server answering ``GET /api/v1/health`` to as many
  clients, what its HTTP stack alone costs a request;
- ``--against REV``: the same levels served by the code of git revision REV
  (exported beside this checkout), each round of it run right before ours on
  the same machine, with ours ÷ its figures.

Server CPU is counted twice: during the round, and with the background work
the round's composes left (drawing the new cards' faces) once it settled, so a
change that only moves work out of the request shows as such.

    python benches/http_bench.py [--requests-per-client 15] [--rounds 3] [--postgres URL]
        [--clients 1,8,32] [--workers 1,N] [--against REV]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import attrs
import httpx

#: The checkout this bench belongs to: its package is the code measured.
HERE = Path(__file__).resolve().parents[1]


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


async def client(base: str, token: str, board: str | None, n: int, latencies: list[float]) -> None:
    """One keep-alive connection sending ``n`` composes to ``board`` one after another
    (``GET /api/v1/health`` when ``board`` is None: the echo anchor).

    Plain HTTP/1.1 on asyncio streams rather than an HTTP library: the clients
    share the machine's cores with the server, and a lean client leaves them
    to the server (a full client library spends about as much CPU per request
    as the server's own HTTP layer).
    """
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        for i in range(n):
            if board is None:
                body = b""
                head = f"GET /api/v1/health HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n"
            else:
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
    base: str, token: str, clients: int, per_client: int, tag: str | None
) -> tuple[float, list[float]]:
    """``clients`` connections at once, each on a board of its own named after ``tag``
    (made first), or asking for the health answer when ``tag`` is None."""
    if tag is not None:
        async with httpx.AsyncClient(
            base_url=base, headers={"authorization": f"Bearer {token}"}
        ) as http:
            for c in range(clients):
                await http.post("/api/v1/ops/create", json={"kind": "board", "slug": f"{tag}-{c}"})
    latencies: list[float] = []
    t0 = time.perf_counter()
    await asyncio.gather(
        *(
            client(base, token, None if tag is None else f"{tag}-{c}", per_client, latencies)
            for c in range(clients)
        )
    )
    return time.perf_counter() - t0, latencies


_MINT = (
    "import sys, time\n"
    "from layoutkit import Workspace\n"
    "with Workspace.open(sys.argv[1]) as ws:\n"
    "    print(ws.create_token('owner', f'http-bench-{time.time_ns()}'))\n"
)


def _env(src: Path) -> dict[str, str]:
    """The environment of a child process that runs the code under ``src``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(src), *filter(None, [os.environ.get("PYTHONPATH")])])
    return env


@contextlib.contextmanager
def serving(db: str, workers: int, src: Path = HERE) -> Iterator[tuple[str, str, int]]:
    """``layoutkit serve`` of the code under ``src`` on ``db`` with ``workers``
    processes: (base URL, owner token, pid)."""
    # A token of its own, minted by the code that serves (it opens and, on a first
    # start, migrates the database): serve prints the owner token only once.
    token = subprocess.run(
        [sys.executable, "-c", _MINT, db],
        env=_env(src),
        cwd=src,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    port = free_port()
    command = ["serve", "--db", db, "--port", str(port), "--workers", str(workers), "--no-fetch"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "layoutkit.adapters.cli", *command],
        env=_env(src),
        # python -m puts the working directory first on the path: the code of src.
        cwd=src,
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
def exported(rev: str) -> Iterator[Path]:
    """The package as of git revision ``rev``, exported to a temporary directory."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "-C", str(HERE), "archive", "--format=tar", rev, "layoutkit"],
            check=True,
            capture_output=True,
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        yield Path(tmp)


@contextlib.contextmanager
def fresh_postgres(url: str, tag: str = "") -> Iterator[str]:
    """A new empty database on the server of ``url``, dropped afterwards."""
    import psycopg

    name = f"lk_http_bench_{os.getpid()}{tag}"
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


def settled(pid: int, window: float = 0.5, limit: float = 30.0) -> None:
    """Wait until the server's processes spent no CPU for two windows in a row: the
    background work a round left (faces drawn once requests pause) is done."""
    deadline = time.monotonic() + limit
    last, quiet = cpu_seconds(pid), 0
    while quiet < 2 and time.monotonic() < deadline:
        time.sleep(window)
        now = cpu_seconds(pid)
        quiet = quiet + 1 if now - last < 0.02 else 0
        last = now


@attrs.define
class Level:
    """The rounds of one server at one concurrency."""

    rates: list[float] = attrs.Factory(list)
    latencies: list[float] = attrs.Factory(list)
    server: float = 0.0  # CPU seconds during the rounds
    settled: float = 0.0  # ... and until the background work they left was done
    bench: float = 0.0
    machine: float = 0.0

    def cells(self) -> list[str]:
        n = len(self.latencies)
        lat = sorted(self.latencies)
        p95 = lat[max(0, int(n * 0.95) - 1)]
        per = 1000 / n
        return [
            str(n),
            f"{statistics.median(self.rates):.1f}",
            f"{min(self.rates):.0f}-{max(self.rates):.0f}",
            f"{statistics.median(lat) * 1000:.1f}",
            f"{p95 * 1000:.1f}",
            f"{self.server * per:.2f}",
            f"{self.settled * per:.2f}",
            f"{self.bench * per:.2f}",
            f"{self.machine * per:.1f}",
        ]

    @property
    def rate(self) -> float:
        return statistics.median(self.rates)

    @property
    def cpu(self) -> float:
        return self.settled / len(self.latencies) * 1000


def run_round(
    served: tuple[str, str, int], clients: int, per_client: int, tag: str | None, into: Level
) -> None:
    base, token, pid = served
    settled(pid)
    server0, client0, machine0 = cpu_seconds(pid), time.process_time(), machine_cpu_seconds()
    elapsed, got = asyncio.run(level(base, token, clients, per_client, tag))
    server1, client1, machine1 = cpu_seconds(pid), time.process_time(), machine_cpu_seconds()
    settled(pid)
    into.rates.append(len(got) / elapsed)
    into.latencies += got
    into.server += server1 - server0
    into.settled += cpu_seconds(pid) - server0
    into.bench += client1 - client0
    into.machine += machine1 - machine0


#: Echo requests per compose request of a client: a health answer is ~50 times cheaper.
ECHO_FACTOR = 10


def run_levels(
    servers: dict[str, tuple[str, str, int]],
    workers: int,
    levels: list[int],
    per_client: int,
    rounds: int,
) -> dict[tuple[str, int], Level]:
    """(code or ``echo <code>``, clients) -> its rounds, over servers of each code.

    Each round opens new connections: with one socket per worker the kernel
    spreads connections by a hash of their addresses, so a round of 8 may
    land 4 and 4 or 6 and 2, and a single round would report that luck. The
    codes take turns round by round, so a busy spell of the shared machine
    falls on all of them.
    """
    out: dict[tuple[str, int], Level] = {}
    for served in servers.values():
        # Untimed: the first composes import the engines and start the processes that
        # draw faces, a second or two of CPU that no later request pays.
        run_round(served, 2, per_client, f"w{workers}warm", Level())
    for clients in levels:
        for r in range(rounds):
            for code, served in servers.items():
                tag = f"w{workers}c{clients}r{r}"
                run_round(
                    served, clients, per_client, tag, out.setdefault((code, clients), Level())
                )
                run_round(
                    served,
                    clients,
                    per_client * ECHO_FACTOR,
                    None,
                    out.setdefault((f"echo {code}", clients), Level()),
                )
    return out


@contextlib.contextmanager
def database(name: str, postgres: str | None, tag: str) -> Iterator[str]:
    if name == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            yield f"sqlite:///{Path(tmp) / 'b.db'}"
    else:
        assert postgres is not None
        with fresh_postgres(postgres, tag) as url:
            yield url


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests-per-client", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of new connections")
    parser.add_argument("--postgres", default=os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL"))
    parser.add_argument("--clients", default="1,8,32", help="concurrent clients, comma-separated")
    parser.add_argument("--workers", default=None, help="server processes (default: 1 and cores)")
    parser.add_argument("--against", default=None, help="git revision served beside this code")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    worker_counts = (
        [int(w) for w in args.workers.split(",")] if args.workers else sorted({1, cores})
    )
    levels = [int(c) for c in args.clients.split(",")]
    ours = "this checkout"
    print(
        f"compose_board over HTTP, 10 cards a request, layoutkit serve with "
        f"{' and '.join(map(str, worker_counts))} workers; machine load {os.getloadavg()[0]:.2f}"
    )
    print(
        "(what the clients wait for, end to end on loopback; echo: GET /api/v1/health on "
        "the same server; server CPU with background: until the work the round left is done)"
    )
    print()
    vs = f" | ours ÷ {args.against}: req/s, server CPU" if args.against else ""
    print(
        "| code | backend | workers | clients | requests | req/s | req/s of rounds | median ms "
        "| p95 ms | server CPU ms/req | with background | client CPU ms/req "
        f"| machine CPU ms/req | req/s vs 1 worker{vs} |"
    )
    print("|---" * (15 if args.against else 14) + "|")
    backends = ["sqlite"]
    if args.postgres:
        backends.append("postgresql")
    else:
        print("| postgresql | skipped: no --postgres URL or LAYOUTKIT_TEST_POSTGRES_URL |")
    with contextlib.ExitStack() as sources:
        codes = {ours: HERE}
        if args.against:
            codes = {args.against: sources.enter_context(exported(args.against)), **codes}
        for name in backends:
            results: dict[int, dict[tuple[str, int], Level]] = {}
            for workers in worker_counts:
                with contextlib.ExitStack() as running:
                    servers = {
                        code: running.enter_context(
                            serving(
                                running.enter_context(database(name, args.postgres, f"{i}")),
                                workers,
                                src,
                            )
                        )
                        for i, (code, src) in enumerate(codes.items())
                    }
                    results[workers] = run_levels(
                        servers, workers, levels, args.requests_per_client, args.rounds
                    )
            for workers, rows in results.items():
                for (code, clients), row in rows.items():
                    one = results[worker_counts[0]][(code, clients)]
                    cells = [code, name, str(workers), str(clients), *row.cells()]
                    cells.append(f"{row.rate / one.rate:.2f}x")
                    if args.against:
                        if code in (ours, f"echo {ours}"):
                            theirs = rows[(code.replace(ours, args.against), clients)]
                            cells.append(
                                f"{row.rate / theirs.rate:.2f}x, {row.cpu / theirs.cpu:.2f}x"
                            )
                        else:
                            cells.append("")
                    print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
