"""Bounded work per request: heavy requests beside light ones, and the costs at the limits.

Starts ``uvicorn`` in a child process on 127.0.0.1 over a fresh SQLite file and
measures how much one heavy request (a diagram at the node and edge caps, a
5,000-node diagram the caps refuse, a board render) delays small composes sent
alongside it (what a caller waits for over HTTP, with the server's CPU time
over the same span); first it times text fitting and diagram layout at the
caps in this process (engine only), and the same diagrams composed through
``Workspace.call`` (what a caller of the library waits for; SQLite, and
PostgreSQL when LAYOUTKIT_TEST_POSTGRES_URL is set). Wall and CPU time side
by side. Prints tables; asserts nothing.

    python benches/bounds_bench.py [--probes 40]
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _timing import CALLER, ENGINE, HTTP, TIMING_HEADER, measure, once, workspaces  # noqa: E402

from layoutkit.diagram import lay_out  # noqa: E402
from layoutkit.layout.text import text_width  # noqa: E402
from layoutkit.limits import DIAGRAM_EDGES, DIAGRAM_NODES  # noqa: E402
from layoutkit.render._scene import fit_line  # noqa: E402

DIAGRAMS = ((100, DIAGRAM_EDGES), (DIAGRAM_NODES, DIAGRAM_EDGES), (35, 595))

SERVER = textwrap.dedent(
    """
    import sys, uvicorn
    from layoutkit import Workspace
    from layoutkit.adapters.http import ENGINE_WORKERS, create_app
    ws = Workspace.open(sys.argv[1])
    token = ws.create_token("owner", "bench")
    print(token, flush=True)
    workers = ENGINE_WORKERS if sys.argv[3] == "pool" else 0
    app = create_app(ws, mcp=False, engine_workers=workers)
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
    """
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def dense(nodes: int, edges: int, seed: int = 1) -> dict[str, Any]:
    """A diagram of random forward edges (the costly kind for layered layout)."""
    rng = random.Random(seed)
    pairs = [sorted(rng.sample(range(nodes), 2)) for _ in range(edges)]
    return {
        "title": f"{nodes} nodes",
        "nodes": [{"id": f"n{i}", "title": f"Node {i}"} for i in range(nodes)],
        "edges": [{"from": f"n{a}", "to": f"n{b}"} for a, b in pairs],
    }


def probe_latencies(http: httpx.Client, stop: threading.Event, out: list[float]) -> None:
    """Small composes one after another until ``stop``; their latencies in ms."""
    i = 0
    while not stop.is_set():
        t0 = time.perf_counter()
        r = http.post(
            "/api/v1/boards/light/compose",
            json={"cards": [{"kind": "note", "payload": {"md": f"probe {i}"}}]},
        )
        out.append((time.perf_counter() - t0) * 1000)
        assert r.status_code == 200, r.text
        i += 1
        time.sleep(0.02)


def tree_cpu_ms(pid: int) -> float | None:
    """CPU milliseconds (user + system) of process ``pid`` and its live descendants, from
    /proc; None where there is no /proc. The engine pool's processes are children of the
    server, so their work counts."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    todo = [pid]
    try:
        while todo:
            p = todo.pop()
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) * 1000 / tick
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
    except (OSError, ValueError, IndexError):
        return None
    return total


def with_heavy(
    base: str, token: str, name: str, heavy: Any, probes: int, server_pid: int
) -> dict[str, Any]:
    headers = {"authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, headers=headers, timeout=300) as http:
        # Alone first: the probes' own latency.
        alone: list[float] = []
        for i in range(probes):
            t0 = time.perf_counter()
            http.post(
                "/api/v1/boards/light/compose",
                json={"cards": [{"kind": "note", "payload": {"md": f"alone {i}"}}]},
            )
            alone.append((time.perf_counter() - t0) * 1000)
        stop = threading.Event()
        beside: list[float] = []
        prober = threading.Thread(target=probe_latencies, args=(http, stop, beside))
        with httpx.Client(base_url=base, headers=headers, timeout=300) as heavy_http:
            prober.start()
            time.sleep(0.2)
            c0 = tree_cpu_ms(server_pid)
            t0 = time.perf_counter()
            status = heavy(heavy_http)
            heavy_ms = (time.perf_counter() - t0) * 1000
            c1 = tree_cpu_ms(server_pid)
            stop.set()
            prober.join()
    p50 = statistics.median(alone)
    return {
        "heavy request": name,
        "status": status,
        "heavy wall ms": round(heavy_ms),
        "server cpu ms (heavy + probes)": "-" if c0 is None or c1 is None else round(c1 - c0),
        "probes": len(beside),
        "alone p50": round(p50, 1),
        "beside p50": round(statistics.median(beside), 1),
        "beside max": round(max(beside), 1),
        "worst delay": round(max(beside) - p50, 1),
    }


def table(rows: list[dict[str, Any]]) -> None:
    keys = list(rows[0])
    widths = [max(len(k), *(len(str(r[k])) for r in rows)) for k in keys]
    print("  ".join(k.ljust(w) for k, w in zip(keys, widths, strict=True)))
    for r in rows:
        print("  ".join(str(r[k]).ljust(w) for k, w in zip(keys, widths, strict=True)))
    print()


def server_rows(probes: int, mode: str) -> list[dict[str, Any]]:
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{Path(tmp) / 'bench.db'}"
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, db, str(port), mode],
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        )
        try:
            assert proc.stdout is not None
            token = proc.stdout.readline().strip()
            base = f"http://127.0.0.1:{port}"
            for _ in range(100):
                try:
                    httpx.get(f"{base}/api/v1/health", timeout=1)
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            headers = {"authorization": f"Bearer {token}"}
            for slug in ("light", "heavy"):
                httpx.post(
                    f"{base}/api/v1/ops/create",
                    json={"kind": "board", "slug": slug},
                    headers=headers,
                )

            def compose(payload: dict[str, Any]) -> Any:
                def send(http: httpx.Client) -> int:
                    card = {"kind": "diagram", "payload": payload}
                    return http.post(
                        "/api/v1/boards/heavy/compose", json={"cards": [card]}
                    ).status_code

                return send

            def render(http: httpx.Client) -> int:
                return http.post("/api/v1/ops/render_board", json={"board": "heavy"}).status_code

            cases = [
                ("nothing (sleep 2 s)", lambda http: time.sleep(2) or 0),
                (
                    f"diagram at the caps ({100} nodes, {DIAGRAM_EDGES} edges)",
                    compose(dense(100, DIAGRAM_EDGES)),
                ),
                (
                    f"diagram at the caps ({DIAGRAM_NODES} nodes, {DIAGRAM_EDGES} edges)",
                    compose(dense(DIAGRAM_NODES, DIAGRAM_EDGES)),
                ),
                ("5,000-node diagram (refused)", compose(dense(5000, 7500))),
                ("render_board of the heavy board", render),
            ]
            return [with_heavy(base, token, name, fn, probes, proc.pid) for name, fn in cases]
        finally:
            proc.terminate()
            proc.wait(10)


def engine_rows() -> list[dict[str, Any]]:
    rows = []
    for n in (10_000, 40_000, 1_000_000):
        title = ("A long board title " * (n // 19 + 1))[:n]
        line, t = once(lambda title=title: fit_line(title, 900, 22, "sans-bold"))
        rows.append(
            {
                "work": f"fit a {n:,}-character title to one line",
                "wall ms": round(t.wall_median, 1),
                "cpu ms": round(t.cpu_median, 1),
                "note": f"{len(line)} characters kept, {text_width(line, 22, 'sans-bold'):.0f} px",
            }
        )
    for nodes, edges in DIAGRAMS:
        _, t = once(lambda nodes=nodes, edges=edges: lay_out(dense(nodes, edges)))
        rows.append(
            {
                "work": f"lay out {nodes} nodes, {edges} random edges",
                "wall ms": round(t.wall_median),
                "cpu ms": round(t.cpu_median),
                "note": "at the caps" if edges == DIAGRAM_EDGES else "dense, under the caps",
            }
        )
    return rows


def caller_rows(rounds: int) -> list[dict[str, Any]]:
    """The diagrams above as one compose_board call each, through Workspace.call."""
    rows = []
    for backend, ws in workspaces():
        ws.call("create", {"kind": "board", "slug": "heavy"})
        for nodes, edges in DIAGRAMS:
            card = {"kind": "diagram", "payload": dense(nodes, edges)}

            def compose(_: int, ws=ws, card=card) -> None:
                ws.call("compose_board", {"board": "heavy", "cards": [card]})

            t = measure(compose, rounds, warmup=0)
            rows.append(
                {
                    "backend": backend,
                    "work": f"compose_board: one diagram, {nodes} nodes, {edges} edges",
                    **dict(zip(TIMING_HEADER, t.cells(0), strict=True)),
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--probes", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=2, help="rounds of each Workspace.call")
    args = parser.parse_args()
    print(f"Engine work at the limits ({ENGINE}, this process)\n")
    table(engine_rows())
    print(
        f"The same diagrams through Workspace.call ({CALLER}; {args.rounds} rounds; "
        "CPU is this process only)\n"
    )
    table(caller_rows(args.rounds))
    for mode, what in (("inline", "engine work in the request's thread"), ("pool", "as served")):
        print(
            f"Small composes (one note) beside one heavy request, {HTTP}, {what} (ms); "
            "server CPU is the server process and its engine pool over the heavy request\n"
        )
        table(server_rows(args.probes, mode))


if __name__ == "__main__":
    main()
