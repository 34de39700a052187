"""HTTP compose throughput: 10-card batches at 1, 8 and 32 concurrent clients on loopback.

Starts ``uvicorn`` in a child process on 127.0.0.1 over a fresh SQLite file, so
the clients and the server do not share one interpreter, then prints
requests/s and latency percentiles per concurrency level.

    python benches/http_bench.py [--requests-per-client 15]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import httpx

SERVER = textwrap.dedent(
    """
    import sys, uvicorn
    from layoutkit import Workspace
    from layoutkit.adapters.http import create_app
    ws = Workspace.open(sys.argv[1])
    token = ws.create_token("owner", "bench")
    print(token, flush=True)
    uvicorn.run(create_app(ws, mcp=False), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
    """
)


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
    headers = {"authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=120) as http:
        for i in range(n):
            t0 = time.perf_counter()
            res = await http.post(f"/api/v1/boards/{board}/compose", json=batch(i))
            latencies.append(time.perf_counter() - t0)
            if res.status_code != 200:
                raise RuntimeError(f"{res.status_code}: {res.text[:300]}")


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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests-per-client", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        db = f"sqlite:///{Path(tmp) / 'bench.db'}"
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, db, str(port)],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ},
        )
        try:
            token = proc.stdout.readline().strip()  # type: ignore[union-attr]
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 20
            while True:
                try:
                    httpx.get(f"{base}/api/v1/health", timeout=1)
                    break
                except httpx.HTTPError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
            print("| clients | requests | req/s | median ms | p95 ms |")
            print("|---|---|---|---|---|")
            for clients in (1, 8, 32):
                elapsed, lat = asyncio.run(
                    level(base, token, clients, args.requests_per_client, f"c{clients}")
                )
                lat.sort()
                p95 = lat[max(0, int(len(lat) * 0.95) - 1)]
                print(
                    f"| {clients} | {len(lat)} | {len(lat) / elapsed:.1f} | "
                    f"{statistics.median(lat) * 1000:.1f} | {p95 * 1000:.1f} |"
                )
        finally:
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
