"""Diagram layout bench: layoutkit over the shared graph corpus, beside the layout anchors.

usage: python benches/diagram_bench.py [--anchors PATH/TO/results/rows.jsonl] [--reps 5] [--filter REGEX]

Scoring follows the anchors harness (tools/layout-anchors/metrics.py): its
``compute`` is imported from the harness folder when present next to the
corpus (../shared/tools/layout-anchors), so both columns are scored alike.
A second synthetic set (groups, lanes, ports, labels) checks containment
and label collisions.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(REPO))

from layoutkit.diagram import lay_out  # noqa: E402
from layoutkit.diagram.findings import composition_findings  # noqa: E402

BUCKETS = (10, 50, 100, 200, 500)
TARGET_MS = {10: 20, 50: 60, 100: 120, 200: 300, 500: 1200}


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


def layout_graph(g: dict) -> dict:
    """The harness's engine shape: layoutkit with the corpus node sizes."""
    import layoutkit.diagram.model as model

    sizes = {n["id"]: (n["w"], n["h"]) for n in g["nodes"]}
    original = model.size_node

    def fixed(node, shape):  # the corpus fixes every node's box
        return sizes[node["id"]]

    model.size_node = fixed
    try:
        out = lay_out(to_payload(g))
    finally:
        model.size_node = original
    geo = out["geo"]
    nodes = [{"id": k, **v} for k, v in geo["nodes"].items()]
    edges = [{"from": e["from"], "to": e["to"], "points": e["points"]} for e in geo["edges"]]
    return {"nodes": nodes, "edges": edges}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--anchors", help="results/rows.jsonl written by the layout-anchors harness")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    harness = SHARED / "tools" / "layout-anchors"
    if not (harness / "metrics.py").exists():
        sys.exit(
            "layout-anchors harness not found next to the repo (../shared/tools/layout-anchors)"
        )
    sys.path.insert(0, str(harness))
    import metrics  # the harness scoring, unchanged

    files = sorted((SHARED / "corpus" / "graphs").glob("*/*.json"))
    files = [f for f in files if re.search(a.filter, f.name)]
    rows = []
    for f in files:
        g = json.loads(f.read_text())
        lay = layout_graph(g)
        times = []
        cpu = []
        for _ in range(a.reps):
            t0, c0 = time.perf_counter(), time.process_time()
            layout_graph(g)
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
        row = {
            "graph": g["name"],
            "bucket": bucket(len(g["nodes"])),
            "engine": "layoutkit",
            "ok": True,
        }
        row.update(metrics.compute(g, lay))
        row["t_layout_warm_ms"] = statistics.median(times)
        row["cpu_ms"] = statistics.median(cpu)
        row["non_orthogonal"] = non_orthogonal(lay)
        rows.append(row)
        print(
            f"{g['name']:28s} {row['t_layout_warm_ms']:8.1f}ms cross={row['crossings']} ovl={row['node_overlaps']} etn={row['edge_through_node']} det={row['detached_ends']}",
            file=sys.stderr,
        )
    anchors = []
    if a.anchors:
        anchors = [
            json.loads(line) for line in Path(a.anchors).read_text().splitlines() if line.strip()
        ]
    names = {r["graph"] for r in rows}
    table(rows, [r for r in anchors if r.get("ok") and r["graph"] in names])
    synthetic_set()
    components_set(files)


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
            "ms": statistics.median(
                r["t_layout_warm_ms"] for r in rs if r.get("t_layout_warm_ms") is not None
            ),
            "cpu": statistics.median(r["cpu_ms"] for r in rs) if "cpu_ms" in rs[0] else None,
            "nonorth": sum(r["non_orthogonal"] for r in rs) if "non_orthogonal" in rs[0] else None,
        }
    return out


def table(rows: list[dict], anchors: list[dict]) -> None:
    engines = {"layoutkit": rows}
    for r in anchors:
        engines.setdefault(r["engine"], []).append(r)
    aggs = {e: agg(rs) for e, rs in engines.items()}
    print(
        "| bucket | engine | graphs | overlaps | through | detached | non-orthogonal | crossings | edge length | area | median warm ms | median cpu ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for b in BUCKETS:
        for e in ["layoutkit", *sorted(k for k in aggs if k != "layoutkit")]:
            s = aggs[e].get(b)
            if not s:
                continue
            nonorth = "-" if s["nonorth"] is None else s["nonorth"]
            cpu = "-" if s["cpu"] is None else f"{s['cpu']:.1f}"
            print(
                f"| {b} | {e} | {s['graphs']} | {s['overlaps']} | {s['through']} | {s['detached']} | {nonorth} | {s['crossings']} | {s['length']:.0f} | {s['area']:.3g} | {s['ms']:.1f} | {cpu} |"
            )
    if "elk" in aggs:
        print()
        print(
            "| bucket | crossings / ELK (<= 0.8) | crossings / dot | length / ELK (<= 1) | length / dot | area / ELK (<= 1.15) | area / dot | warm ms (target) | cpu ms | ELK ms | dot ms |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for b in BUCKETS:
            s, e = aggs["layoutkit"].get(b), aggs["elk"].get(b)
            if not s or not e:
                continue
            d = aggs.get("dot", {}).get(b)

            def vs_dot(key: str, s=s, d=d) -> str:
                return f"{s[key] / max(1, d[key]):.2f}" if d else "-"

            vs_dot_ms = f"{d['ms']:.1f}" if d else "-"
            print(
                f"| {b} | {s['crossings'] / max(1, e['crossings']):.2f} | {vs_dot('crossings')} | {s['length'] / e['length']:.2f} | {vs_dot('length')} | {s['area'] / e['area']:.2f} | {vs_dot('area')} | {s['ms']:.1f} ({TARGET_MS[b]}) | {s['cpu']:.1f} | {e['ms']:.1f} | {vs_dot_ms} |"
            )
    print()


def synthetic_set(count: int = 12) -> None:
    """Diagrams with groups, lanes, ports and labels: containment and label collisions."""
    rng = random.Random(7)
    bad_frames = bad_lanes = collisions = others = 0
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
        out = lay_out(payload)
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
        f"outside lane {bad_lanes}, label collisions {collisions}, other findings {others}"
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
