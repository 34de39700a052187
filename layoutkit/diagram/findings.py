"""Composition findings over a finished ``geo``: overlaps, label collisions, edges through nodes."""

from __future__ import annotations

import bisect
import itertools
from typing import Any

EPS = 1.0


def _rect(b: dict[str, float]) -> tuple[float, float, float, float]:
    return b["x"], b["y"], b["x"] + b["w"], b["y"] + b["h"]


def _overlap(a: tuple, b: tuple, eps: float = 0.5) -> bool:
    return a[0] < b[2] - eps and b[0] < a[2] - eps and a[1] < b[3] - eps and b[1] < a[3] - eps


def _seg_enters(p: list[float], q: list[float], r: tuple, tol: float = EPS) -> bool:
    x0, y0, x1, y1 = r[0] + tol, r[1] + tol, r[2] - tol, r[3] - tol
    if x1 <= x0 or y1 <= y0:
        return False
    if abs(p[0] - q[0]) < 1e-9:
        lo, hi = sorted((p[1], q[1]))
        return x0 < p[0] < x1 and lo < y1 and hi > y0
    if abs(p[1] - q[1]) < 1e-9:
        lo, hi = sorted((p[0], q[0]))
        return y0 < p[1] < y1 and lo < x1 and hi > x0
    # Not axis-aligned (moved nodes only ever give orthogonal routes): sample.
    steps = 32
    for k in range(1, steps):
        t = k / steps
        x, y = p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t
        if x0 < x < x1 and y0 < y < y1:
            return True
    return False


def composition_findings(geo: dict[str, Any]) -> list[dict[str, Any]]:
    """Every node overlap, edge through a node and label collision, in a stable order."""
    out: list[dict[str, Any]] = []
    nodes = sorted(geo["nodes"].items())
    rects = [(nid, _rect(b)) for nid, b in nodes]
    by_x = sorted(range(len(rects)), key=lambda i: rects[i][1][0])
    xs = [rects[i][1][0] for i in by_x]
    for ii, i in enumerate(by_x):
        ri = rects[i][1]
        for jj in range(ii + 1, len(by_x)):
            j = by_x[jj]
            if xs[jj] >= ri[2]:
                break
            if _overlap(ri, rects[j][1]):
                a, b = sorted((rects[i][0], rects[j][0]))
                out.append(
                    {
                        "code": "node_overlap",
                        "message": f"nodes {a!r} and {b!r} overlap",
                        "nodes": [a, b],
                    }
                )
    for e in geo["edges"]:
        ends = {str(e["from"]).split(".")[0], str(e["to"]).split(".")[0], e["from"], e["to"]}
        pts = e["points"]
        if len(pts) < 2:
            continue
        ex0 = min(p[0] for p in pts)
        ex1 = max(p[0] for p in pts)
        lo = bisect.bisect_left(xs, ex0 - 2000)
        for jj in range(lo, len(by_x)):
            j = by_x[jj]
            nid, r = rects[j]
            if r[0] > ex1:
                break
            if nid in ends or r[2] < ex0:
                continue
            if any(_seg_enters(p, q, r) for p, q in itertools.pairwise(pts)):
                out.append(
                    {
                        "code": "edge_through_node",
                        "message": f"edge {e['from']!r} -> {e['to']!r} passes through node {nid!r}",
                        "edge": e["index"],
                        "node": nid,
                    }
                )
    labels = [(e["index"], _rect(e["label"])) for e in geo["edges"] if e.get("label")]
    for k, (idx, lr) in enumerate(labels):
        for nid, r in rects:
            if _overlap(lr, r):
                out.append(
                    {
                        "code": "label_collision",
                        "message": f"label of edge {idx} overlaps node {nid!r}",
                        "edge": idx,
                        "node": nid,
                    }
                )
        for idx2, lr2 in labels[k + 1 :]:
            if _overlap(lr, lr2):
                out.append(
                    {
                        "code": "label_collision",
                        "message": f"labels of edges {idx} and {idx2} overlap",
                        "edge": idx,
                        "other": idx2,
                    }
                )
    return out


def count_crossings_orth(edges: list[dict[str, Any]]) -> int:
    """Crossings between axis-aligned segments of edges that share no end."""
    hs: list[tuple[float, float, float, int]] = []
    vs: list[tuple[float, float, float, int]] = []
    ends = []
    for k, e in enumerate(edges):
        ends.append({str(e["from"]).split(".")[0], str(e["to"]).split(".")[0]})
        for p, q in zip(e["points"], e["points"][1:], strict=False):
            if abs(p[1] - q[1]) < 1e-9 and abs(p[0] - q[0]) > 1e-9:
                hs.append((p[1], min(p[0], q[0]), max(p[0], q[0]), k))
            elif abs(p[0] - q[0]) < 1e-9 and abs(p[1] - q[1]) > 1e-9:
                vs.append((p[0], min(p[1], q[1]), max(p[1], q[1]), k))
    vs.sort()
    vx = [v[0] for v in vs]
    seen: set[tuple[int, int, int, int]] = set()
    for y, x0, x1, k in hs:
        for j in range(bisect.bisect_left(vx, x0), bisect.bisect_right(vx, x1)):
            x, y0, y1, k2 = vs[j]
            if k2 != k and y0 <= y <= y1 and not (ends[k] & ends[k2]):
                seen.add((min(k, k2), max(k, k2), round(x), round(y)))
    return len(seen)
