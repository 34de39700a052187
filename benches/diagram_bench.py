"""Diagram layout bench: layoutkit over the shared graph corpus, beside the layout anchors.

usage: python benches/diagram_bench.py [--anchors PATH/TO/results/rows.jsonl] [--reps 5]
       [--filter REGEX] [--shared PATH/TO/shared] [--sets corpus,caller,synthetic,...]
       [--labelled-anchors ROWS.jsonl] [--dense-anchors ROWS.jsonl]

Scoring follows the anchors harness (tools/layout-anchors/metrics.py): its
``compute`` is imported from the harness folder next to the corpus
(``--shared``, default ../shared beside the repo), so both columns are scored alike.
The corpus run lays out with the corpus node sizes and the anchors' spacing
(60 px between layers, 40 px between nodes, as the ELK and dot runs), through
the public ``lay_out(..., options=, node_sizes=)``. Its times are the engine
alone; a second table times what a caller waits for through
``Workspace.call("compose_board")`` with one diagram card of a graph per bucket
(SQLite; PostgreSQL when LAYOUTKIT_TEST_POSTGRES_URL is set) beside the engine
alone on the same payload. Wall and CPU time side by side.
A synthetic set (groups, lanes, ports, labels) checks containment
and label collisions.

The small set (first) times the 10-node bucket beside Graphviz dot in this process
(libgvc's ``gvLayout``, CPU and wall, rounds interleaved, machine load printed), and
a fresh ``dot -Tjson`` against a fresh ``python -c`` laying the same graph out.

Two corpora of this folder (``benches/corpus``, written by ``make_corpora.py``)
sit beside ELK and dot from the same harness, run on those folders (their rows
files by ``--labelled-anchors`` / ``--dense-anchors``):

- ``labelled``: 48 graphs of 10 to 300 nodes with 1 to 6 lines of text per node
  and a fifth of the edges labelled; ratios per bucket against ELK given the same
  node and label boxes.
- ``large``: the corpus's 500-node graphs and six of 1,000 nodes from the harness's
  own generator (``corpus/large``), beside dot and ELK (``--large-anchors``: the
  harness's rows on both), crossings and edge length against each.
- ``dense``: 3 to 5 edges per node up to 2,000 nodes / 4,000 edges and a
  5,000-node chain, plus a 10,000-line Mermaid chain. These are over the diagram
  caps (layoutkit.limits), which this bench lifts for them alone; each row says
  whether the hierarchy stayed exact or took the large-graph path (more than
  ``LayoutOptions.exact_items`` items: greedy cycle breaking, bounded ordering,
  sweep placement; see docs/diagram-layout.md).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import re
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _timing import (  # noqa: E402
    CALLER,
    ENGINE,
    TIMING_HEADER,
    machine_load,
    measure,
    once,
    table,
    workspaces,
)

from layoutkit import limits  # noqa: E402
from layoutkit.diagram import LayoutOptions, lay_out, layered  # noqa: E402
from layoutkit.diagram.findings import composition_findings  # noqa: E402
from layoutkit.limits import DIAGRAM_EDGES, DIAGRAM_NODES  # noqa: E402

BUCKETS = (10, 50, 100, 200, 500)
TARGET_MS = {10: 20, 50: 60, 100: 120, 200: 300, 500: 1200}
# The anchors harness runs ELK and dot with 60 px between layers and 40 px
# between nodes (runners/elk.js, runners/dot_runner.py); layoutkit's node gap
# is 40 px already, its default layer gap 36 px.
ANCHOR_OPTIONS = LayoutOptions(layer_gap=60.0, node_gap=40.0)
# Rows of the anchors file that name this bench's own engine are a separate,
# earlier run (no CPU time, other options): they get a column of their own.
FILE_LAYOUTKIT = "layoutkit (rows file)"


def bucket(n: int) -> int:
    for b, hi in ((10, 20), (50, 75), (100, 150), (200, 350)):
        if n <= hi:
            return b
    return 500


def to_payload(g: dict) -> dict:
    return {
        "title": g["name"],
        "dir": g["dir"],
        "nodes": [{"id": n["id"], "title": ""} for n in g["nodes"]],
        "edges": [{"from": e["from"], "to": e["to"]} for e in g["edges"]],
    }


def layout_graph(g: dict, options: LayoutOptions = ANCHOR_OPTIONS) -> dict:
    """The harness's engine shape: layoutkit with the corpus node sizes and the anchors' spacing."""
    sizes = {n["id"]: (n["w"], n["h"]) for n in g["nodes"]}
    out = lay_out(to_payload(g), options=options, node_sizes=sizes)
    geo = out["geo"]
    nodes = [{"id": k, **v} for k, v in geo["nodes"].items()]
    edges = [{"from": e["from"], "to": e["to"], "points": e["points"]} for e in geo["edges"]]
    return {"nodes": nodes, "edges": edges}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--anchors", help="results/rows.jsonl written by the layout-anchors harness")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--filter", default="")
    ap.add_argument("--shared", default=str(REPO.parent / "shared"), help="folder of the corpus")
    ap.add_argument("--caller-reps", type=int, default=5)
    ap.add_argument(
        "--sets",
        default="small,corpus,caller,synthetic,components,labelled,dense,large",
        help="comma-separated: small, corpus, caller, synthetic, components, labelled, dense, "
        "large",
    )
    ap.add_argument("--labelled-anchors", help="rows.jsonl of the harness on corpus/labelled")
    ap.add_argument("--dense-anchors", help="rows.jsonl of the harness on corpus/dense")
    ap.add_argument(
        "--large-anchors",
        help="rows.jsonl of the harness on the 500-node corpus graphs and corpus/large",
    )
    a = ap.parse_args()
    sets = set(a.sets.split(","))
    shared = Path(a.shared)
    harness = shared / "tools" / "layout-anchors"
    if not (harness / "metrics.py").exists():
        sys.exit(f"layout-anchors harness not found in {harness} (see --shared)")
    sys.path.insert(0, str(harness))
    import metrics  # the harness scoring, unchanged

    files = sorted((shared / "corpus" / "graphs").glob("*/*.json"))
    files = [f for f in files if re.search(a.filter, f.name)]
    if "small" in sets:
        small_set(files, harness, max(a.reps, 20))
    if "corpus" not in sets:
        files = []
    rows = []
    graphs = []
    over_caps = []
    for f in files:
        g = json.loads(f.read_text())
        if len(g["nodes"]) > DIAGRAM_NODES or len(g["edges"]) > DIAGRAM_EDGES:
            # lay_out refuses a diagram over the caps (LimitExceeded), as a request would be.
            over_caps.append(g["name"])
            continue
        graphs.append(g)
        lay = layout_graph(g)
        timing = measure(lambda _, g=g: layout_graph(g), a.reps, warmup=0)
        row = {
            "graph": g["name"],
            "bucket": bucket(len(g["nodes"])),
            "engine": "layoutkit",
            "ok": True,
        }
        row.update(metrics.compute(g, lay))
        row["t_layout_warm_ms"] = timing.wall_median
        row["cpu_ms"] = timing.cpu_median
        row["non_orthogonal"] = non_orthogonal(lay)
        rows.append(row)
        print(
            f"{g['name']:28s} wall {timing.wall_median:8.1f} ms cpu {timing.cpu_median:8.1f} ms "
            f"cross={row['crossings']} ovl={row['node_overlaps']} etn={row['edge_through_node']} det={row['detached_ends']}",
            file=sys.stderr,
        )
    anchors = []
    if a.anchors:
        anchors = [
            json.loads(line) for line in Path(a.anchors).read_text().splitlines() if line.strip()
        ]
    names = {r["graph"] for r in rows}
    if over_caps:
        print(
            f"skipped {len(over_caps)} graphs over the diagram caps ({DIAGRAM_NODES} nodes, "
            f"{DIAGRAM_EDGES} edges), left out of every engine's rows: {', '.join(over_caps)}\n"
        )
    if rows:
        anchor_table(rows, [r for r in anchors if r.get("ok") and r["graph"] in names])
    if "caller" in sets:
        caller_set(graphs, a.caller_reps)
    if "synthetic" in sets:
        synthetic_set()
    if "components" in sets:
        components_set(files)
    if "labelled" in sets:
        labelled_set(metrics, _rows(a.labelled_anchors), a.reps)
    if "dense" in sets:
        dense_set(metrics, _rows(a.dense_anchors), a.caller_reps)
    if "large" in sets:
        large_set(metrics, shared, _rows(a.large_anchors), a.caller_reps)


HERE = Path(__file__).resolve().parent


def small_set(files: list[Path], harness: Path, rounds: int) -> None:
    """The 10-node bucket beside Graphviz dot, both timed in this process, rounds interleaved.

    dot runs through libgvc (``gvLayout``, as the harness's dot runner times it) on
    the harness's DOT text of the same graph (same node boxes and spacing), so its
    CPU and ours are ``time.process_time`` of one process, a round of each in turn,
    and load moves both alike. A second table times a fresh process each: the
    ``dot -Tjson`` CLI against ``python -c`` importing layoutkit and laying the same
    graph out, CPU from the children's resource usage.
    """
    import ctypes
    import ctypes.util
    import os
    import resource
    import shutil
    import subprocess
    import time

    gvc_name, cg_name = ctypes.util.find_library("gvc"), ctypes.util.find_library("cgraph")
    if not gvc_name or not cg_name or not shutil.which("dot"):
        print("small set skipped: Graphviz (libgvc and dot) not installed\n")
        return
    sys.path.insert(0, str(harness / "runners"))
    from dot_runner import to_dot  # the harness's DOT text: spacing, boxes, no labels

    gvc_lib, cg = ctypes.CDLL(gvc_name), ctypes.CDLL(cg_name)
    gvc_lib.gvContext.restype = ctypes.c_void_p
    cg.agmemread.restype = ctypes.c_void_p
    cg.agmemread.argtypes = [ctypes.c_char_p]
    cg.agclose.argtypes = [ctypes.c_void_p]
    gvc_lib.gvLayout.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p]
    gvc_lib.gvFreeLayout.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    gvc = gvc_lib.gvContext()

    def dot_round(src: bytes) -> tuple[float, float]:
        graph = cg.agmemread(src)
        w0, c0 = time.perf_counter(), time.process_time()
        if gvc_lib.gvLayout(gvc, graph, b"dot") != 0:
            raise RuntimeError("gvLayout failed")
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        gvc_lib.gvFreeLayout(gvc, graph)
        cg.agclose(graph)
        return wall * 1000, cpu * 1000

    def ours_round(g: dict) -> tuple[float, float]:
        w0, c0 = time.perf_counter(), time.process_time()
        layout_graph(g)
        return (time.perf_counter() - w0) * 1000, (time.process_time() - c0) * 1000

    graphs = [json.loads(f.read_text()) for f in files]
    graphs = [g for g in graphs if bucket(len(g["nodes"])) == 10]
    if not graphs:
        return
    load_before = machine_load()
    rows = []
    ratios_cpu, ratios_wall = [], []
    for g in graphs:
        src = to_dot(g).encode()
        dot_round(src), ours_round(g)  # warm both: libraries loaded, first-call caches
        dw, dc, ow, oc = [], [], [], []
        for _ in range(rounds):
            w, c = dot_round(src)
            dw.append(w)
            dc.append(c)
            w, c = ours_round(g)
            ow.append(w)
            oc.append(c)
        med = [statistics.median(v) for v in (ow, oc, dw, dc)]
        ratios_wall.append(med[0] / med[2])
        ratios_cpu.append(med[1] / max(med[3], 1e-3))
        rows.append(
            [
                g["name"],
                str(len(g["nodes"])),
                str(len(g["edges"])),
                *(f"{v:.2f}" for v in med[:2]),
                *(f"{v:.3f}" for v in med[2:]),
                f"{ratios_cpu[-1]:.1f}",
                f"{ratios_wall[-1]:.1f}",
            ]
        )
    table(
        f"Small diagrams (corpus bucket 10: {len(graphs)} graphs of 10-20 nodes), {ENGINE}: "
        f"layoutkit lay_out vs Graphviz dot's gvLayout, both in this process, {rounds} "
        f"interleaved rounds, medians; target ours / dot CPU <= 5. {load_before} before, "
        f"{machine_load()} after",
        [
            "graph",
            "nodes",
            "edges",
            "lk wall ms",
            "lk cpu ms",
            "dot wall ms",
            "dot cpu ms",
            "lk/dot cpu",
            "lk/dot wall",
        ],
        rows,
    )
    print(
        f"median over graphs: ours / dot CPU {statistics.median(ratios_cpu):.1f}x "
        f"(range {min(ratios_cpu):.1f}-{max(ratios_cpu):.1f}), wall "
        f"{statistics.median(ratios_wall):.1f}x"
    )

    # A fresh process each: what a one-shot command costs, imports included.
    g = sorted(graphs, key=lambda g: len(g["nodes"]))[len(graphs) // 2]
    with tempfile.TemporaryDirectory() as tmp:
        gv = Path(tmp) / "g.gv"
        gv.write_text(to_dot(g))
        gj = Path(tmp) / "g.json"
        gj.write_text(json.dumps(g))
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        # The engine's own imports only (this bench's module pulls in the service).
        script = (
            "import json, sys\n"
            "from layoutkit.diagram import LayoutOptions, lay_out\n"
            "g = json.load(open(sys.argv[1]))\n"
            "sizes = {n['id']: (n['w'], n['h']) for n in g['nodes']}\n"
            "payload = {'title': g['name'], 'dir': g['dir'], "
            "'nodes': [{'id': n['id'], 'title': ''} for n in g['nodes']], "
            "'edges': [{'from': e['from'], 'to': e['to']} for e in g['edges']]}\n"
            "lay_out(payload, options=LayoutOptions(layer_gap=60.0, node_gap=40.0), "
            "node_sizes=sizes)\n"
        )
        commands = {
            "dot -Tjson": ["dot", "-Tjson", str(gv)],
            "python -c lay_out": [sys.executable, "-c", script, str(gj)],
        }
        fresh: dict[str, list[tuple[float, float]]] = {k: [] for k in commands}
        for _ in range(max(3, rounds // 4)):
            for name, argv in commands.items():
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                w0 = time.perf_counter()
                subprocess.run(argv, capture_output=True, check=True, env=env)
                wall = (time.perf_counter() - w0) * 1000
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
                fresh[name].append((wall, cpu))
    med = {k: [statistics.median(x[i] for x in v) for i in (0, 1)] for k, v in fresh.items()}
    lk, dt = med["python -c lay_out"], med["dot -Tjson"]
    table(
        f"Fresh process per layout ({g['name']}, {len(g['nodes'])} nodes): interpreter, "
        f"imports and one layout against the dot CLI; {machine_load()}",
        ["command", "wall med ms", "cpu med ms"],
        [[k, f"{v[0]:.1f}", f"{v[1]:.1f}"] for k, v in med.items()]
        + [["ours / dot", f"{lk[0] / dt[0]:.1f}x", f"{lk[1] / max(dt[1], 1e-3):.1f}x"]],
    )
    print()


def _rows(path: str | None) -> list[dict]:
    if not path:
        return []
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


@contextlib.contextmanager
def caps_lifted() -> contextlib.Iterator[None]:
    """Lift the diagram caps for the dense set only (a request could not send these)."""
    keys = ("diagramNodes", "diagramEdges", "diagramLines")
    saved = {k: limits.LIMITS[k] for k in keys}
    limits.LIMITS.update(dict.fromkeys(keys, 10**9))
    try:
        yield
    finally:
        limits.LIMITS.update(saved)


@contextlib.contextmanager
def hierarchy_size(box: list[int]) -> contextlib.Iterator[None]:
    """Record the item count of each hierarchy built (to say exact or large-graph path)."""
    real = layered.insert_dummies

    def spy(*args, **kw):
        h = real(*args, **kw)
        box.append(len(h.items))
        return h

    layered.insert_dummies = spy
    try:
        yield
    finally:
        layered.insert_dummies = real


@contextlib.contextmanager
def placed_size(box: list[int]) -> contextlib.Iterator[None]:
    """Record the item count of each hierarchy placed (the one a layout kept)."""
    from layoutkit.diagram import placement

    real = placement.assign_x

    def spy(h, *args, **kw):
        box.append(len(h.items))
        return real(h, *args, **kw)

    placement.assign_x = spy
    try:
        yield
    finally:
        placement.assign_x = real


def labelled_payload(g: dict) -> dict:
    """A labelled corpus graph as a caller would send it: titled nodes, labelled edges."""
    return {
        "title": g["name"],
        "dir": g["dir"],
        "nodes": [{"id": n["id"], "title": n.get("text", "")} for n in g["nodes"]],
        "edges": [
            {
                "from": e["from"],
                "to": e["to"],
                **({"label": e["label"]["text"]} if "label" in e else {}),
            }
            for e in g["edges"]
        ],
    }


def lay_labelled(g: dict, options: LayoutOptions = ANCHOR_OPTIONS) -> dict:
    sizes = {n["id"]: (n["w"], n["h"]) for n in g["nodes"]}
    out = lay_out(labelled_payload(g), options=options, node_sizes=sizes)
    geo = out["geo"]
    return {
        "nodes": [{"id": k, **v} for k, v in geo["nodes"].items()],
        "edges": [{"from": e["from"], "to": e["to"], "points": e["points"]} for e in geo["edges"]],
    }


def labelled_set(metrics, anchors: list[dict], reps: int) -> None:
    """The labelled corpus beside ELK given the same node and label boxes, per bucket."""
    files = sorted((HERE / "corpus" / "labelled").glob("*.json"))
    if not files:
        print("labelled corpus missing: run benches/make_corpora.py")
        return
    elk = {r["graph"]: r for r in anchors if r.get("ok") and r["engine"] == "elk"}
    rows = []
    for f in files:
        g = json.loads(f.read_text())
        lay = lay_labelled(g)
        timing = measure(lambda _, g=g: lay_labelled(g), max(1, reps // 2), warmup=0)
        row = {"graph": g["name"], "bucket": bucket(len(g["nodes"])), **metrics.compute(g, lay)}
        row["ms"], row["cpu"] = timing.wall_median, timing.cpu_median
        rows.append(row)
    print(
        f"\nLabelled corpus ({len(rows)} graphs, 1-6 text lines per node, 20% of edges labelled, "
        f"TD and LR): layoutkit {ENGINE} (lay_out with the file's node boxes, label boxes "
        "from the same text metrics) vs ELK given the same boxes; sums per bucket over the "
        "graphs both engines laid out. Targets: crossings <= ELK (<= 0.8x where ELK's are "
        "not 0), length <= 1.0x, area <= 1.15x, >= 3x faster. ELK's times come from the "
        "harness run (wall only, another moment's load): on a shared machine compare "
        "ELK's wall with layoutkit's CPU as well"
    )
    print(
        "| bucket | graphs | crossings lk / ELK | ratio | length ratio | area ratio | "
        "overlaps lk | through lk | lk median wall ms | lk median cpu ms | ELK median wall ms | "
        "ELK wall / lk wall | ELK wall / lk cpu |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for b in BUCKETS:
        rs = [r for r in rows if r["bucket"] == b and (r["graph"] in elk or not elk)]
        if not rs:
            continue
        es = [elk[r["graph"]] for r in rs if r["graph"] in elk]
        lk_ms = statistics.median(r["ms"] for r in rs)
        lk_cpu = statistics.median(r["cpu"] for r in rs)
        if es:
            ec = sum(e["crossings"] for e in es)
            lc = sum(r["crossings"] for r in rs)
            e_ms = statistics.median(e["t_layout_warm_ms"] for e in es)
            cells = [
                f"{lc} / {ec}",
                f"{lc / ec:.2f}" if ec else ("0 = 0" if lc == 0 else "ELK 0"),
                f"{sum(r['edge_length'] for r in rs) / sum(e['edge_length'] for e in es):.2f}",
                f"{sum(r['area'] for r in rs) / sum(e['area'] for e in es):.2f}",
            ]
            tail = [f"{e_ms:.1f}", f"{e_ms / lk_ms:.1f}x", f"{e_ms / lk_cpu:.1f}x"]
        else:
            cells = [f"{sum(r['crossings'] for r in rs)} / -", "-", "-", "-"]
            tail = ["-", "-", "-"]
        print(
            f"| {b} | {len(rs)} | {' | '.join(cells)} | {sum(r['node_overlaps'] for r in rs)} | "
            f"{sum(r['edge_through_node'] for r in rs)} | {lk_ms:.1f} | {lk_cpu:.1f} | {' | '.join(tail)} |"
        )
    print()


def mermaid_chain(lines: int) -> str:
    return "flowchart TD\n" + "\n".join(f"  n{i} --> n{i + 1}" for i in range(lines - 1))


def dense_set(metrics, anchors: list[dict], caller_reps: int) -> None:
    """Dense graphs and long chains, engine alone (caps lifted) beside ELK and dot."""
    files = sorted((HERE / "corpus" / "dense").glob("*.json"))
    if not files:
        print("dense corpus missing: run benches/make_corpora.py")
        return
    by = {(r["engine"], r["graph"]): r for r in anchors}
    limit = ANCHOR_OPTIONS.exact_items
    print(
        f"\nDense graphs and chains: layoutkit {ENGINE} (one run each, caps lifted for this set) "
        f"beside ELK and dot from the harness; 'path' is exact (hierarchy <= {limit} items) or "
        "large (greedy cycle breaking, bounded ordering, sweep placement). Targets: 200/1,000 "
        "<= 2 s, 2,000/4,000 <= 10 s"
    )
    print(
        "| graph | nodes | edges | items | path | lk wall ms | lk cpu ms | crossings lk / ELK / dot "
        "| length lk / ELK | area lk / ELK | ELK wall ms | dot wall ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    with caps_lifted():
        for f in sorted(files, key=lambda f: len(f.read_text())):
            g = json.loads(f.read_text())
            box: list[int] = []
            with hierarchy_size(box):
                lay, timing = once(lambda g=g: layout_graph(g))
            m = metrics.compute(g, lay)
            e, d = by.get(("elk", g["name"])), by.get(("dot", g["name"]))

            def fig(r: dict | None, key: str) -> str:
                if not r:
                    return "-"
                if not r.get("ok"):
                    return "failed" if "timeout" not in str(r.get("error")) else "timeout"
                return f"{r[key]:.0f}" if isinstance(r[key], float) else str(r[key])

            def ratio(key: str, e: dict | None = e, m: dict = m) -> str:
                return f"{m[key] / e[key]:.2f}" if e and e.get("ok") and e[key] else "-"

            items = max(box) if box else 0
            print(
                f"| {g['name']} | {len(g['nodes'])} | {len(g['edges'])} | {items} | "
                f"{'large' if items > limit else 'exact'} | {timing.wall_median:.0f} | "
                f"{timing.cpu_median:.0f} | {m['crossings']} / {fig(e, 'crossings')} / "
                f"{fig(d, 'crossings')} | {ratio('edge_length')} | {ratio('area')} | "
                f"{fig(e, 't_layout_warm_ms')} | {fig(d, 't_layout_warm_ms')} |"
            )
        text = mermaid_chain(10_000)
        box = []
        with hierarchy_size(box):
            _, timing = once(lambda: lay_out({"title": "chain", "diagram_text": text}))
        print(
            f"| mermaid chain, 10,000 lines | 10000 | 9999 | {max(box)} | "
            f"{'large' if max(box) > limit else 'exact'} | {timing.wall_median:.0f} | "
            f"{timing.cpu_median:.0f} | - | - | - | - | - |"
        )
    # What a caller waits for: the densest graph a request may carry (at the caps).
    capped = [json.loads(f.read_text()) for f in files if f.stem.startswith("dense_")]
    capped = [
        g
        for g in capped
        if len(g["nodes"]) <= limits.DIAGRAM_NODES and len(g["edges"]) <= limits.DIAGRAM_EDGES
    ]
    rows = []
    for g in capped:
        payload = to_payload(g)
        engine = measure(lambda _, p=payload: lay_out(p), caller_reps)
        rows.append([g["name"], ENGINE, "-", *engine.cells()])
        for backend, ws in workspaces():
            ws.call("create", {"kind": "board", "slug": "dense"})
            card = {"kind": "diagram", "payload": payload}

            def compose(_: int, card: dict = card, ws=ws) -> None:
                ws.call("compose_board", {"board": "dense", "cards": [card]})

            rows.append([g["name"], CALLER, backend, *measure(compose, caller_reps).cells()])
    if rows:
        table(
            f"Dense graphs within the caps: {CALLER} for compose_board vs {ENGINE}; "
            f"{caller_reps} rounds, content-sized nodes, default options",
            ["graph", "figure", "backend", *TIMING_HEADER],
            rows,
        )
        print()


def large_set(metrics, shared: Path, anchors: list[dict], reps: int) -> None:
    """The corpus's 500-node graphs and this folder's 1,000-node ones beside dot and ELK:
    crossings and edge length against each, per graph and summed per size."""
    files = sorted((shared / "corpus" / "graphs").glob("*/syn_*_n500_*.json"))
    files += sorted((HERE / "corpus" / "large").glob("*.json"))
    if not files:
        print("large corpus missing: run benches/make_corpora.py")
        return
    by = {(r["engine"], r["graph"]): r for r in anchors if r.get("ok")}
    print(
        f"\nLarge graphs (500 and 1,000 nodes): layoutkit {ENGINE} (caps lifted; median of "
        f"{reps} rounds, CPU beside wall) beside dot and ELK from the harness rows (their "
        "warm wall times, another moment's load: compare ELK's wall with our CPU too). "
        "Placement: exact LP up to placement_items items, sweeps above. Targets: crossings <= "
        f"dot, length <= 1.1x dot, faster than ELK. {machine_load()} before"
    )
    print(
        "| graph | items (placed / other) | placement | lk wall ms | lk cpu ms | "
        "crossings lk / dot / ELK | "
        "length / dot | length / ELK | dot wall ms | ELK wall ms | ELK wall / lk cpu |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    sums: dict[int, list[float]] = {}
    with caps_lifted():
        for f in files:
            g = json.loads(f.read_text())
            box: list[int] = []
            kept: list[int] = []
            with hierarchy_size(box), placed_size(kept):
                lay = layout_graph(g)
            timing = measure(lambda _, g=g: layout_graph(g), reps, warmup=0)
            m = metrics.compute(g, lay)
            d, e = by.get(("dot", g["name"])), by.get(("elk", g["name"]))
            size = len(g["nodes"])
            # Every hierarchy built (two where both cycle choices were ordered), the
            # placed one first; its size says which placement it took.
            items = " / ".join(map(str, [kept[0], *(b for b in box if b != kept[0])]))
            path = "large" if kept[0] > ANCHOR_OPTIONS.placement_items else "exact"
            if d and e:
                acc = sums.setdefault(size, [0.0] * 7)
                for k, v in enumerate(
                    (
                        m["crossings"],
                        d["crossings"],
                        e["crossings"],
                        m["edge_length"],
                        d["edge_length"],
                        e["edge_length"],
                    )
                ):
                    acc[k] += v
                acc[6] += 1
                cells = [
                    f"{m['crossings']} / {d['crossings']} / {e['crossings']}",
                    f"{m['edge_length'] / d['edge_length']:.2f}",
                    f"{m['edge_length'] / e['edge_length']:.2f}",
                    f"{d['t_layout_warm_ms']:.0f}",
                    f"{e['t_layout_warm_ms']:.0f}",
                    f"{e['t_layout_warm_ms'] / timing.cpu_median:.1f}x",
                ]
            else:
                cells = [f"{m['crossings']} / - / -", "-", "-", "-", "-", "-"]
            print(
                f"| {g['name']} | {items} | {path} | {timing.wall_median:.0f} | "
                f"{timing.cpu_median:.0f} | {' | '.join(cells)} |"
            )
    for size, acc in sorted(sums.items()):
        print(
            f"\n{size} nodes ({acc[6]:.0f} graphs, sums): crossings {acc[0] / acc[1]:.2f}x dot, "
            f"{acc[0] / acc[2]:.2f}x ELK; edge length {acc[3] / acc[4]:.2f}x dot, "
            f"{acc[3] / acc[5]:.2f}x ELK"
        )
    print(f"{machine_load()} after\n")


def non_orthogonal(lay: dict) -> int:
    """Route pieces that are neither horizontal nor vertical (0.01 px tolerance)."""
    return sum(
        1
        for e in lay["edges"]
        for p, q in zip(e["points"], e["points"][1:], strict=False)
        if abs(p[0] - q[0]) > 0.01 and abs(p[1] - q[1]) > 0.01
    )


def agg(rows: list[dict]) -> dict:
    out = {}
    for b in BUCKETS:
        rs = [r for r in rows if r["bucket"] == b]
        if not rs:
            continue
        out[b] = {
            "graphs": len(rs),
            "overlaps": sum(r["node_overlaps"] for r in rs),
            "through": sum(r["edge_through_node"] for r in rs),
            "detached": sum(r["detached_ends"] for r in rs),
            "crossings": sum(r["crossings"] for r in rs),
            "length": sum(r["edge_length"] for r in rs),
            "area": sum(r["area"] for r in rs),
            "ms": _median([r.get("t_layout_warm_ms") for r in rs]),
            "cpu": _median([r.get("cpu_ms") for r in rs]),
            "nonorth": (
                sum(r["non_orthogonal"] for r in rs)
                if all("non_orthogonal" in r for r in rs)
                else None
            ),
        }
    return out


def _median(values: list[float | None]) -> float | None:
    """Median of the values present; None when a file's rows carry none."""
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def _ms(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}"


def anchor_table(rows: list[dict], anchors: list[dict]) -> None:
    engines = {"layoutkit": rows}
    for r in anchors:
        name = FILE_LAYOUTKIT if r["engine"] == "layoutkit" else r["engine"]
        engines.setdefault(name, []).append(r)
    aggs = {e: agg(rs) for e, rs in engines.items()}
    print(
        f"layoutkit: corpus node sizes, layer gap {ANCHOR_OPTIONS.layer_gap:.0f} px, node gap "
        f"{ANCHOR_OPTIONS.node_gap:.0f} px (the ELK and dot runs' spacing), so areas compare; "
        f"times are {ENGINE} (lay_out in this process), wall and CPU"
    )
    print()
    print(
        "| bucket | engine | graphs | overlaps | through | detached | non-orthogonal | crossings | edge length | area | median warm ms (wall) | median cpu ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for b in BUCKETS:
        for e in ["layoutkit", *sorted(k for k in aggs if k != "layoutkit")]:
            s = aggs[e].get(b)
            if not s:
                continue
            nonorth = "-" if s["nonorth"] is None else s["nonorth"]
            print(
                f"| {b} | {e} | {s['graphs']} | {s['overlaps']} | {s['through']} | {s['detached']} | {nonorth} | {s['crossings']} | {s['length']:.0f} | {s['area']:.3g} | {_ms(s['ms'])} | {_ms(s['cpu'])} |"
            )
    if "elk" in aggs:
        print()
        print(
            "| bucket | crossings / ELK (<= 0.8) | crossings / dot | length / ELK (<= 1) | length / dot | area / ELK (<= 1.15, both 60 px layer gap) | area / dot (both 60 px) | warm wall ms (target) | cpu ms | ELK wall ms | dot wall ms |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        # Ratios sum both engines over the same graphs: an anchor may lack a graph
        # (a failed or unfinished run), and layoutkit's rows must then leave it out too.
        same = {
            other: agg([r for r in rows if r["graph"] in {x["graph"] for x in engines[other]}])
            for other in ("elk", "dot")
            if other in engines
        }
        for b in BUCKETS:
            s, e = aggs["layoutkit"].get(b), aggs["elk"].get(b)
            se, sd = same["elk"].get(b), same.get("dot", {}).get(b)
            if not s or not e or not se:
                continue
            d = aggs.get("dot", {}).get(b)

            def vs_dot(key: str, sd=sd, d=d) -> str:
                return f"{sd[key] / max(1, d[key]):.2f}" if d and sd else "-"

            vs_dot_ms = _ms(d["ms"]) if d else "-"
            print(
                f"| {b} | {se['crossings'] / max(1, e['crossings']):.2f} | {vs_dot('crossings')} | {se['length'] / e['length']:.2f} | {vs_dot('length')} | {se['area'] / e['area']:.2f} | {vs_dot('area')} | {_ms(s['ms'])} ({TARGET_MS[b]}) | {_ms(s['cpu'])} | {_ms(e['ms'])} | {vs_dot_ms} |"
            )
    print()


def caller_set(graphs: list[dict], reps: int) -> None:
    """Per bucket one graph (its median size) as a caller sends it: a diagram card through
    ``compose_board``, beside ``lay_out`` alone on the same payload (content-sized nodes,
    default options, as compose lays it out)."""
    picks = []
    for b in BUCKETS:
        gs = sorted(
            (g for g in graphs if bucket(len(g["nodes"])) == b), key=lambda g: len(g["nodes"])
        )
        if gs:
            picks.append((b, gs[len(gs) // 2]))
    if not picks:
        return
    rows = []
    for b, g in picks:
        payload = to_payload(g)
        engine = measure(lambda _, p=payload: lay_out(p), reps)
        rows.append([str(b), g["name"], str(len(g["nodes"])), ENGINE, "-", *engine.cells()])
    for backend, ws in workspaces():
        ws.call("create", {"kind": "board", "slug": "diagrams"})
        for b, g in picks:
            card = {"kind": "diagram", "payload": to_payload(g)}

            def compose(_: int, card: dict = card, ws=ws) -> None:
                ws.call("compose_board", {"board": "diagrams", "cards": [card]})

            caller = measure(compose, reps)
            rows.append([str(b), g["name"], str(len(g["nodes"])), CALLER, backend, *caller.cells()])
    rows.sort(key=lambda r: int(r[0]))
    table(
        f"One diagram card per bucket: {CALLER} for compose_board (params, contract, layout, "
        f"writes, commit) vs {ENGINE} (lay_out of the same payload); {reps} rounds, "
        "CPU is this process only",
        ["bucket", "graph", "nodes", "figure", "backend", *TIMING_HEADER],
        rows,
    )
    print()


def synthetic_set(count: int = 12) -> None:
    """Diagrams with groups, lanes, ports and labels: containment and label collisions."""
    rng = random.Random(7)
    bad_frames = bad_lanes = collisions = others = 0
    wall = cpu = 0.0
    for case in range(count):
        n = rng.randint(8, 30)
        ids = [f"v{i}" for i in range(n)]
        lanes = [
            {"label": f"Lane {k}", "nodes": [], "groups": []} for k in range(rng.randint(2, 3))
        ]
        groups = {}
        for v in ids:
            lane = lanes[rng.randrange(len(lanes))]
            node = {
                "id": v,
                "title": f"Node {v}",
                "ports": [{"id": "p", "side": "bottom"}, {"id": "q", "side": "top"}],
            }
            if rng.random() < 0.5:
                key = id(lane)
                if key not in groups:
                    groups[key] = {"id": f"g{case}_{len(groups)}", "title": "Group", "nodes": []}
                    lane["groups"].append(groups[key])
                groups[key]["nodes"].append(node)
            else:
                lane["nodes"].append(node)
        edges = []
        for _ in range(int(n * 1.3)):
            a, b = rng.sample(ids, 2)
            e = {"from": a, "to": b}
            if rng.random() < 0.3:
                e["label"] = rng.choice(["calls", "reads from", "writes", "emits event"])
            if rng.random() < 0.2:
                e["from"] = a + ".p"
            edges.append(e)
        payload = {
            "title": f"case {case}",
            "dir": rng.choice(["TD", "LR"]),
            "lanes": lanes,
            "edges": edges,
        }
        out, timing = once(lambda payload=payload: lay_out(payload))
        wall += timing.wall_median
        cpu += timing.cpu_median
        geo = out["geo"]
        for lane_in, lane_geo in zip(lanes, geo["lanes"], strict=False):
            members = [x["id"] for x in lane_in["nodes"]] + [
                x["id"] for g in lane_in["groups"] for x in g["nodes"]
            ]
            for m in members:
                if not inside(geo["nodes"][m], lane_geo):
                    bad_lanes += 1
            for g in lane_in["groups"]:
                for x in g["nodes"]:
                    if not inside(geo["nodes"][x["id"]], geo["groups"][g["id"]]):
                        bad_frames += 1
        for f in composition_findings(geo):
            if f["code"] == "label_collision":
                collisions += 1
            else:
                others += 1
    print(
        f"synthetic groups/lanes/ports/labels set: {count} diagrams, nodes outside frame {bad_frames}, "
        f"outside lane {bad_lanes}, label collisions {collisions}, other findings {others}; "
        f"{ENGINE}: lay_out of all {count} took {wall:.0f} ms wall, {cpu:.0f} ms CPU"
    )


def _extent(lay: dict) -> tuple[float, float]:
    xs = [n["x"] for n in lay["nodes"]] + [n["x"] + n["w"] for n in lay["nodes"]]
    ys = [n["y"] for n in lay["nodes"]] + [n["y"] + n["h"] for n in lay["nodes"]]
    for e in lay["edges"]:
        xs += [p[0] for p in e["points"]]
        ys += [p[1] for p in e["points"]]
    return max(xs) - min(xs), max(ys) - min(ys)


def components_set(files: list[Path], per_case: int = 6) -> None:
    """Corpus graphs merged into disconnected diagrams: packed area against one long row."""
    small = [json.loads(f.read_text()) for f in files]
    small = [g for g in small if len(g["nodes"]) <= 60 and g["dir"] == "TD"]
    if len(small) < per_case:
        return
    print("| case | components | packed area / side-by-side area | packed aspect (w/h) |")
    print("|---|---|---|---|")
    for case in range(0, len(small) - per_case + 1, per_case):
        parts = small[case : case + per_case]
        merged = {"name": f"merged{case}", "dir": "TD", "nodes": [], "edges": []}
        row_w, row_h = 0.0, 0.0
        for k, g in enumerate(parts):
            w, h = _extent(layout_graph(g))
            row_w += w + (60 if k else 0)
            row_h = max(row_h, h)
            merged["nodes"] += [{**n, "id": f"c{k}_{n['id']}"} for n in g["nodes"]]
            merged["edges"] += [
                {"from": f"c{k}_{e['from']}", "to": f"c{k}_{e['to']}"} for e in g["edges"]
            ]
        if len(merged["edges"]) > DIAGRAM_EDGES:
            print(f"| {case // per_case} | {len(parts)} | over the {DIAGRAM_EDGES}-edge cap | - |")
            continue
        w, h = _extent(layout_graph(merged))
        print(
            f"| {case // per_case} | {len(parts)} | {w * h / (row_w * row_h):.2f} | {w / h:.2f} |"
        )
    print()


def inside(b: dict, f: dict) -> bool:
    return (
        b["x"] >= f["x"] - 0.01
        and b["y"] >= f["y"] - 0.01
        and b["x"] + b["w"] <= f["x"] + f["w"] + 0.01
        and b["y"] + b["h"] <= f["y"] + f["h"] + 0.01
    )


if __name__ == "__main__":
    main()
