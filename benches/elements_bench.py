"""Validate + normalize a ~5 MB document of ~20,000 mixed elements, against json.loads.

Run: ``python benches/elements_bench.py [--rounds N]``. Both engine timings
come from the same run on the same bytes; the figure to watch is the ratio
(target: at most 3x). Then what a caller waits for with the same document
through ``Workspace.call``: ``validate`` (no storage) and ``push_doc`` onto a
board (SQLite; PostgreSQL when LAYOUTKIT_TEST_POSTGRES_URL is set). Wall and
CPU time side by side.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import time
from typing import Any

from _timing import CALLER, ENGINE, TIMING_HEADER, measure, table, workspaces

from layoutkit import Workspace
from layoutkit.elements import ELEMENT_KINDS, validate_element

WORDS = [
    "layout",
    "board",
    "card",
    "frame",
    "section",
    "anchor",
    "render",
    "chart",
    "table",
    "review",
    "queue",
    "latency",
    "deploy",
    "budget",
    "sprint",
    "owner",
    "region",
    "cache",
    "index",
    "shard",
    "replica",
    "token",
    "cursor",
    "batch",
]


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def leaf(rng: random.Random, kind: str, i: int) -> dict[str, Any]:
    """One realistic element of ``kind``."""
    w = lambda n: words(rng, n)  # noqa: E731
    p: dict[str, Any]
    if kind == "prose":
        p = {"md": w(rng.randint(10, 30))}
    elif kind == "chart":
        if i % 3 == 0:
            p = {
                "viz": "line",
                "title": w(3),
                "data": {
                    "series": [
                        {"label": w(1), "points": [round(rng.random() * 100, 2) for _ in range(24)]}
                        for _ in range(3)
                    ],
                    "unit": "ms",
                },
            }
        elif i % 3 == 1:
            p = {
                "viz": "bars",
                "data": {
                    "items": [
                        {"label": w(2), "value": rng.randint(1, 500), "tone": "good"}
                        for _ in range(8)
                    ]
                },
            }
        else:
            p = {
                "viz": "compare",
                "data": {
                    "better": "lower",
                    "items": [
                        {"label": w(2), "before": rng.randint(50, 90), "after": rng.randint(10, 60)}
                        for _ in range(4)
                    ],
                },
            }
    elif kind == "table":
        n = 260 if i % 80 == 0 else rng.randint(3, 10)
        cols = [
            {"key": "name", "label": "Name"},
            {"key": "owner", "type": "text"},
            {"key": "p50", "type": "number"},
            {"key": "ok", "type": "check"},
            {"key": "when", "type": "date"},
        ]
        rows = [
            {
                "name": w(2),
                "owner": rng.choice(WORDS),
                "p50": round(rng.random() * 300, 1),
                "ok": rng.random() > 0.3,
                "when": "2024-05-0" + str(rng.randint(1, 9)),
            }
            for _ in range(n)
        ]
        p = {"title": w(3), "cols": cols, "rows": rows, "aggregates": {"p50": "avg"}}
    elif kind == "stat":
        p = {
            "items": [
                {"label": w(2), "value": rng.randint(1, 999), "delta": "+3%", "tone": "good"}
                for _ in range(4)
            ]
        }
    elif kind == "list":
        p = {"items": [w(6) for _ in range(5)]}
    elif kind == "chips":
        p = {"items": [{"k": w(1), "v": w(1)} for _ in range(4)]}
    elif kind == "code":
        p = {"source": "def f(x):\n    return x * 2\n" * 4, "lang": "python"}
    elif kind == "finding":
        p = {
            "sev": "medium",
            "status": "open",
            "title": w(5),
            "where": "app/x.py:12",
            "body": w(30),
            "evidence": [w(6), w(6)],
        }
    elif kind == "timeline":
        p = {
            "items": [{"when": f"2024-0{k + 1}-01", "title": w(3), "text": w(10)} for k in range(5)]
        }
    elif kind == "meter":
        p = {"items": [{"label": w(2), "value": rng.randint(0, 90), "max": 100} for _ in range(3)]}
    elif kind == "gallery":
        p = {"items": [{"src": f"https://img.example/{k}.png", "alt": w(3)} for k in range(4)]}
    elif kind == "diagram":
        nodes = [{"id": f"n{k}", "title": w(2), "shape": "round"} for k in range(8)]
        edges = [{"from": f"n{k}", "to": f"n{k + 1}", "label": w(1)} for k in range(7)]
        p = {"title": w(3), "nodes": nodes, "edges": edges}
    elif kind == "verdict":
        p = {"state": w(5), "text": w(20), "tone": "good"}
    elif kind == "epic":
        p = {"title": w(3), "phase": "built", "done": 3, "total": 8, "who": ["ann", "bo"]}
    elif kind == "goal":
        p = {"title": w(3), "status": "running", "percent": 40, "ends": "2024-09-30"}
    elif kind == "release":
        p = {"title": "v1." + str(i), "prs": 12, "at": "2024-05-01T10:00:00Z"}
    elif kind == "milestone":
        p = {"title": w(3), "due": "2024-06-01"}
    elif kind == "deploy":
        p = {"env": "prod", "sha": "a1b2c3d", "at": "2024-05-01T10:00:00Z", "live": True}
    elif kind == "figure":
        p = {"src": "https://img.example/a.png", "alt": w(4), "caption": w(6)}
    elif kind == "media":
        p = {"src": "https://files.example/a.pdf", "mime": "application/pdf"}
    elif kind == "html":
        p = {"src": "<!doctype html><p>" + w(10) + "</p>", "title": w(2)}
    elif kind == "mockup":
        p = {
            "frames": [
                {
                    "name": "home",
                    "w": 390,
                    "tree": [
                        {"t": "header", "label": w(2)},
                        {"t": "list", "n": 4, "children": [{"t": "row", "label": w(2)}]},
                        {"t": "button", "label": "Go", "primary": True},
                    ],
                }
            ]
        }
    elif kind == "page":
        p = {"md": "# " + w(3) + "\n\n" + w(40)}
    elif kind == "ref":
        p = {"card": 1000 + i, "mode": "preview"}
    else:
        raise ValueError(kind)
    out: dict[str, Any] = {"kind": kind, "payload": p}
    if i % 17 == 0:
        out["audience"] = ["technical", "internal"]
    return out


LEAVES = [k for k in ELEMENT_KINDS if k not in ("doc", "section", "columns", "compare")]
# Prose, tables and charts dominate real reports; the other kinds appear a few times each.
WEIGHTS = {"prose": 12, "table": 2, "chart": 3, "stat": 3, "list": 3}


def build(n_elements: int = 20_000, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    pool = [k for k in LEAVES for _ in range(WEIGHTS.get(k, 1))]
    count = 0
    sections = []
    s = 0
    while count < n_elements:
        body: list[dict[str, Any]] = []
        for _ in range(40):
            body.append(leaf(rng, rng.choice(pool), count))
            count += 1
        body.append(
            {
                "kind": "columns",
                "payload": {
                    "cols": [
                        {"elements": [leaf(rng, "prose", count)]},
                        {"elements": [leaf(rng, "stat", count + 1)]},
                    ]
                },
            }
        )
        body.append(
            {
                "kind": "compare",
                "payload": {
                    "a": {"label": "Before", "elements": [leaf(rng, "prose", count + 2)]},
                    "b": {"label": "After", "elements": [leaf(rng, "prose", count + 3)]},
                },
            }
        )
        body.append({"kind": "ref", "payload": {"section": f"part-{s}"}})
        count += 7
        sections.append(
            {
                "kind": "section",
                "payload": {"label": f"Part {s}", "title": words(rng, 4), "elements": body},
            }
        )
        s += 1
    return {
        "kind": "doc",
        "payload": {"title": "Quarterly report", "accentColor": "teal", "elements": sections},
    }


def count_elements(el: Any) -> int:
    n = 1
    p = el["payload"]
    for child in p.get("elements", ()):
        n += count_elements(child)
    if el["kind"] == "columns":
        for col in p["cols"]:
            for child in col["elements"]:
                n += count_elements(child)
    if el["kind"] == "compare":
        for side in ("a", "b"):
            for child in p[side]["elements"]:
                n += count_elements(child)
    return n


def best_pair(a: Any, b: Any, repeat: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """Best (wall, CPU) seconds of each, measured alternately so load on the machine hits
    both alike."""
    ta: list[tuple[float, float]] = []
    tb: list[tuple[float, float]] = []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        a()
        w1, c1 = time.perf_counter(), time.process_time()
        b()
        w2, c2 = time.perf_counter(), time.process_time()
        ta.append((w1 - w0, c1 - c0))
        tb.append((w2 - w1, c2 - c1))
    return (min(w for w, _ in ta), min(c for _, c in ta)), (
        min(w for w, _ in tb),
        min(c for _, c in tb),
    )


def without_card_refs(el: Any) -> Any:
    """``el`` with its references to board cards made prose: push_doc refuses a reference to a
    card the board does not hold, and the bench board holds none."""
    if isinstance(el, list):
        return [without_card_refs(x) for x in el]
    if not isinstance(el, dict):
        return el
    if el.get("kind") == "ref" and "card" in el.get("payload", {}):
        return {"kind": "prose", "payload": {"md": "See the card beside."}}
    return {k: without_card_refs(v) for k, v in el.items()}


def caller_rows(doc: dict[str, Any], rounds: int) -> list[list[str]]:
    """The same document as a caller sends it, one ``Workspace.call`` per round."""
    rows = []
    doc = without_card_refs(doc)
    with Workspace.open() as ws:
        check = measure(lambda _: ws.call("validate", {"element": doc}), rounds)
        rows.append(["validate (no storage)", "memory", *check.cells()])
    for backend, ws in workspaces():
        ws.call("create", {"kind": "board", "slug": "report"})
        push = measure(
            lambda _, ws=ws: ws.call("push_doc", {"board": "report", "doc": doc}), rounds
        )
        rows.append(["push_doc onto a board", backend, *push.cells()])
    return rows


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    doc = build()
    raw = json.dumps(doc).encode()
    parsed = json.loads(raw)
    result = validate_element(parsed)
    assert result.ok, [f.as_dict() for f in result.findings if f.severity == "error"][:5]
    repeat = 7
    n = count_elements(doc)
    print(f"document: {len(raw) / 1e6:.2f} MB, {n} elements, {len(result.spilled)} spilled blobs")
    print(f"\n{ENGINE}: best of {repeat}, json.loads beside validate_element")
    print(
        f"{'GC':<10}{'json.loads wall':>17}{'cpu':>10}{'validate+norm wall':>20}{'cpu':>10}"
        f"{'ratio wall':>12}{'cpu':>8}"
    )
    # Like timeit, the main figure runs with the cyclic GC paused: a collection
    # walks the whole 5 MB heap and lands on whichever step allocates next.
    for label, paused in (("paused", True), ("enabled", False)):
        if paused:
            gc.collect()
            gc.disable()
        try:
            (lw, lc), (vw, vc) = best_pair(
                lambda: json.loads(raw), lambda: validate_element(parsed), repeat
            )
        finally:
            gc.enable()
        print(
            f"{label:<10}{lw * 1000:>14.1f} ms{lc * 1000:>7.1f} ms{vw * 1000:>17.1f} ms"
            f"{vc * 1000:>7.1f} ms{vw / lw:>11.2f}x{vc / lc:>7.2f}x"
        )
    print("target: ratio <= 3.00x")
    table(
        f"The same document through Workspace.call ({CALLER}; {rounds} rounds, GC enabled, "
        "CPU is this process only)",
        ["operation (card refs made prose)", "backend", *TIMING_HEADER],
        caller_rows(parsed, rounds),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
