"""Composition findings over a finished ``geo``: overlaps, label collisions, edges through nodes."""

from __future__ import annotations

import bisect
from collections import defaultdict
from typing import Any

import numpy as np
import shapely

EPS = 1.0


def _rect(b: dict[str, float]) -> tuple[float, float, float, float]:
    return b["x"], b["y"], b["x"] + b["w"], b["y"] + b["h"]


def _overlap(a: tuple, b: tuple, eps: float = 0.5) -> bool:
    return a[0] < b[2] - eps and b[0] < a[2] - eps and a[1] < b[3] - eps and b[1] < a[3] - eps


def _edges_through_nodes(
    edges: list[dict[str, Any]], rects: list[tuple[str, tuple]], by_x: list[int]
) -> list[dict[str, Any]]:
    """Each edge whose route enters a node it does not end on, edges in order and nodes
    left to right.

    "Enters" means the route reaches the node's interior shrunk by ``EPS``: running
    along a border or stopping on it does not count. Routes are polylines, so in
    shapely's terms that is "intersects and does not only touch", asked of an
    STRtree over the shrunk boxes for all routes at once.
    """
    inner = [
        (j, (r[0] + EPS, r[1] + EPS, r[2] - EPS, r[3] - EPS))
        for j, (_, r) in enumerate(rects)
        if r[2] - EPS > r[0] + EPS and r[3] - EPS > r[1] + EPS
    ]
    routed = [e for e in edges if len(e["points"]) >= 2]
    if not inner or not routed:
        return []
    boxes = shapely.box(*np.array([b for _, b in inner], dtype=float).T)
    lines = shapely.linestrings(
        np.array([p for e in routed for p in e["points"]], dtype=float),
        indices=np.repeat(np.arange(len(routed)), [len(e["points"]) for e in routed]),
    )
    line_at, box_at = shapely.STRtree(boxes).query(lines, predicate="intersects")
    enters = ~shapely.touches(lines[line_at], boxes[box_at])
    rank = {j: k for k, j in enumerate(by_x)}
    hits: dict[int, list[int]] = defaultdict(list)
    for k, b in zip(line_at[enters].tolist(), box_at[enters].tolist(), strict=True):
        hits[k].append(inner[b][0])
    out: list[dict[str, Any]] = []
    for k in sorted(hits):
        e = routed[k]
        ends = {str(e["from"]).split(".")[0], str(e["to"]).split(".")[0], e["from"], e["to"]}
        for j in sorted(hits[k], key=rank.__getitem__):
            nid = rects[j][0]
            if nid not in ends:
                out.append(
                    {
                        "code": "edge_through_node",
                        "message": f"edge {e['from']!r} -> {e['to']!r} passes through node {nid!r}",
                        "edge": e["index"],
                        "node": nid,
                    }
                )
    return out


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
    out += _edges_through_nodes(geo["edges"], rects, by_x)
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
