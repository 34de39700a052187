"""Composition findings over a finished ``geo``: overlaps, label collisions, edges through nodes."""

from __future__ import annotations

import bisect
import itertools
from collections import defaultdict
from typing import Any

import numpy as np
import shapely

EPS = 1.0


def _rect(b: dict[str, float]) -> tuple[float, float, float, float]:
    return b["x"], b["y"], b["x"] + b["w"], b["y"] + b["h"]


def _overlap(a: tuple, b: tuple, eps: float = 0.5) -> bool:
    return a[0] < b[2] - eps and b[0] < a[2] - eps and a[1] < b[3] - eps and b[1] < a[3] - eps


#: Up to this many (route, node) pairs, and for routes of horizontal and vertical
#: pieces only, findings test each pair directly instead of building shapely
#: geometries and an STRtree, whose per-call costs outweigh the pairs there.
SMALL_PAIRS = 400


def _axis_aligned_extents(
    routed: list[dict[str, Any]],
) -> list[tuple[float, float, float, float]] | None:
    """Each route's least x and y, greatest x and y, when every piece of every route is
    horizontal or vertical, and not a point; else None. One loop does both (builtin
    min and max cost several times as much on a few points)."""
    extents = []
    for e in routed:
        pts = e["points"]
        left = right = pts[0][0]
        top = bottom = pts[0][1]
        for p, q in itertools.pairwise(pts):
            x, y = q
            if (p[0] == x) == (p[1] == y):
                return None
            if x < left:
                left = x
            elif x > right:
                right = x
            if y < top:
                top = y
            elif y > bottom:
                bottom = y
        extents.append((left, top, right, bottom))
    return extents


def _piece_enters(p: Any, q: Any, box: tuple[float, float, float, float]) -> bool:
    """A horizontal or vertical piece reaches the open box: shapely's "intersects and
    does not only touch" for such a piece (the line's interior meets the box's)."""
    x0, y0, x1, y1 = box
    # "The nearer end before the far side, the further end past the near one", said
    # end by end: min() and max() of two cost more than the piece's whole test.
    if p[1] == q[1]:
        return y0 < p[1] < y1 and (p[0] < x1 or q[0] < x1) and (p[0] > x0 or q[0] > x0)
    return x0 < p[0] < x1 and (p[1] < y1 or q[1] < y1) and (p[1] > y0 or q[1] > y0)


def _pairwise_hits(
    routed: list[dict[str, Any]],
    extents: list[tuple[float, float, float, float]],
    inner: list[tuple[int, tuple[float, float, float, float]]],
) -> dict[int, list[int]]:
    """The boxes (``inner`` positions' j) each route (by position) enters, tested pair by
    pair; routes of horizontal and vertical pieces only, with their ``extents``.
    ``inner`` is in left-to-right order (of its boxes' left sides)."""
    hits: dict[int, list[int]] = defaultdict(list)
    for k, e in enumerate(routed):
        pts = e["points"]
        left, top, right, bottom = extents[k]
        pieces = None
        for j, box in inner:
            if right <= box[0]:
                break  # this box, and every one after it, starts past the route's right end
            # A route whose extent stays off the open box has no piece in it.
            if left >= box[2] or bottom <= box[1] or top >= box[3]:
                continue
            if pieces is None:
                pieces = list(itertools.pairwise(pts))
            for p, q in pieces:
                if _piece_enters(p, q, box):
                    hits[k].append(j)
                    break
    return hits


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
    # Left to right, for ``_pairwise_hits`` (a node's hits are put in that order anyway).
    inner = [
        (j, (r[0] + EPS, r[1] + EPS, r[2] - EPS, r[3] - EPS))
        for j in by_x
        if (r := rects[j][1])[2] - EPS > r[0] + EPS and r[3] - EPS > r[1] + EPS
    ]
    routed = [e for e in edges if len(e["points"]) >= 2]
    if not inner or not routed:
        return []
    hits: dict[int, list[int]]
    extents = _axis_aligned_extents(routed) if len(routed) * len(inner) <= SMALL_PAIRS else None
    if extents is not None:
        hits = _pairwise_hits(routed, extents, inner)
    else:
        hits = defaultdict(list)
        boxes = shapely.box(*np.array([b for _, b in inner], dtype=float).T)
        lines = shapely.linestrings(
            np.array([p for e in routed for p in e["points"]], dtype=float),
            indices=np.repeat(np.arange(len(routed)), [len(e["points"]) for e in routed]),
        )
        line_at, box_at = shapely.STRtree(boxes).query(lines, predicate="intersects")
        enters = ~shapely.touches(lines[line_at], boxes[box_at])
        for k, b in zip(line_at[enters].tolist(), box_at[enters].tolist(), strict=True):
            hits[k].append(inner[b][0])
    out: list[dict[str, Any]] = []
    if not hits:
        return out
    rank = {j: k for k, j in enumerate(by_x)}
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


def _overlapping_pairs(rects: list[tuple[str, tuple]], by_x: list[int]) -> list[tuple[int, int]]:
    """Pairs of overlapping boxes, ordered by the left-to-right rank of the first box,
    then of the second.

    An STRtree finds the candidate pairs (boxes that meet at all), so a tall stack of
    boxes at one x costs no more than a row of them."""
    if len(rects) < 2:
        return []
    if len(rects) ** 2 <= SMALL_PAIRS:
        # In left-to-right rank order, as the sort below leaves the STRtree's pairs.
        pairs_small = []
        for a, i in enumerate(by_x):
            ri = rects[i][1]
            for j in by_x[a + 1 :]:
                rj = rects[j][1]
                # Boxes further right start at or past this one's left: once one
                # starts past its right end (less the overlap slack), so do the rest.
                if rj[0] >= ri[2] - 0.5:
                    break
                if _overlap(ri, rj):
                    pairs_small.append((i, j))
        return pairs_small
    boxes = shapely.box(*np.array([r for _, r in rects], dtype=float).T)
    first, second = shapely.STRtree(boxes).query(boxes, predicate="intersects")
    rank = {j: k for k, j in enumerate(by_x)}
    pairs = []
    for i, j in zip(first.tolist(), second.tolist(), strict=True):
        if rank[i] < rank[j] and _overlap(rects[i][1], rects[j][1]):
            pairs.append((rank[i], rank[j], i, j))
    pairs.sort()
    return [(i, j) for _, _, i, j in pairs]


def composition_findings(geo: dict[str, Any]) -> list[dict[str, Any]]:
    """Every node overlap, edge through a node and label collision, in a stable order."""
    out: list[dict[str, Any]] = []
    nodes = sorted(geo["nodes"].items())
    rects = [(nid, _rect(b)) for nid, b in nodes]
    by_x = sorted(range(len(rects)), key=[r[0] for _, r in rects].__getitem__)
    for i, j in _overlapping_pairs(rects, by_x):
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


#: Drawings with at most this many route points have their crossings counted by a
#: plain loop over pairs of pieces (``_count_crossings_small``): numpy's and the
#: STRtree's per-call costs outweigh the pairs there. Both count the same.
SMALL_DRAWING_POINTS = 120


def _first(t: tuple) -> Any:
    return t[0]


def _count_crossings_small(edges: list[dict[str, Any]], ends: list[tuple[int, int]]) -> int:
    """``count_crossings_orth`` pair by pair: a horizontal and a vertical piece meet when
    each spans the other's line (ends included); one meeting per edge pair and rounded
    point counts once."""
    flats: list[tuple[float, float, float, int]] = []
    talls: list[tuple[float, float, float, int]] = []
    for k, e in enumerate(edges):
        for (x0, y0), (x1, y1) in itertools.pairwise(e["points"]):
            dx, dy = x0 - x1, y0 - y1
            # Comparisons, not ``min``/``max`` or ``abs``: a builtin call costs more than
            # the test. Flat: |dy| < 1e-9 < |dx|; tall: |dx| < 1e-9 < |dy|.
            if -1e-9 < dy < 1e-9:
                if dx > 1e-9 or dx < -1e-9:
                    flats.append((x0, x1, y0, k) if x0 < x1 else (x1, x0, y0, k))
            elif -1e-9 < dx < 1e-9 and (dy > 1e-9 or dy < -1e-9):
                talls.append((x0, y0, y1, k) if y0 < y1 else (x0, y1, y0, k))
    found = set()
    # Vertical pieces by x: each horizontal one reads only those within its span.
    talls.sort(key=_first)
    xs = [t[0] for t in talls]
    for hx0, hx1, hy, hk in flats:
        ha, hb = ends[hk]
        for vx, vy0, vy1, vk in talls[bisect.bisect_left(xs, hx0) : bisect.bisect_right(xs, hx1)]:
            if vy0 <= hy <= vy1 and vk != hk:
                va, vb = ends[vk]
                if ha != va and ha != vb and hb != va and hb != vb:
                    found.add((min(hk, vk), max(hk, vk), round(vx), round(hy)))
    return len(found)


def count_crossings_orth(edges: list[dict[str, Any]]) -> int:
    """Crossings between axis-aligned segments of edges that share no end.

    The meeting pairs come from an STRtree over the vertical pieces (work follows
    the crossings found rather than all pairs); filtering and deduplication are
    numpy."""
    end_ids: dict[str, int] = {}
    ends: list[tuple[int, int]] = []
    count = 0  # route points, all edges
    for e in edges:
        a = end_ids.setdefault(str(e["from"]).partition(".")[0], len(end_ids))
        b = end_ids.setdefault(str(e["to"]).partition(".")[0], len(end_ids))
        ends.append((a, b))
        count += len(e["points"])
    if count < 2:
        return 0
    if count <= SMALL_DRAWING_POINTS:
        return _count_crossings_small(edges, ends)
    pts: list[list[float]] = []
    owner: list[int] = []
    for k, e in enumerate(edges):
        pts += e["points"]
        owner += [k] * len(e["points"])
    p_all = np.array(pts, dtype=float)
    own = np.array(owner, dtype=np.int64)
    p, q = p_all[:-1], p_all[1:]
    same = own[:-1] == own[1:]  # consecutive points of one edge form a piece
    dx, dy = np.abs(p[:, 0] - q[:, 0]), np.abs(p[:, 1] - q[:, 1])
    flat = same & (dy < 1e-9) & (dx > 1e-9)
    tall = same & (dx < 1e-9) & (dy > 1e-9)
    if not flat.any() or not tall.any():
        return 0
    h_y = p[flat, 1]
    h_x0 = np.minimum(p[flat, 0], q[flat, 0])
    h_x1 = np.maximum(p[flat, 0], q[flat, 0])
    hk = own[:-1][flat]
    v = np.stack(
        [
            p[tall, 0],
            np.minimum(p[tall, 1], q[tall, 1]),
            np.maximum(p[tall, 1], q[tall, 1]),
            own[:-1][tall].astype(float),
        ],
        axis=1,
    )
    v = v[np.lexsort(v.T[::-1])]  # by x, then y0, y1, edge
    vx, vy0, vy1, vk = v[:, 0], v[:, 1], v[:, 2], v[:, 3].astype(np.int64)
    end = np.array(ends, dtype=np.int64)
    # For axis-aligned pieces the bounding boxes meet exactly when the pieces do,
    # so an STRtree's envelope query lists the touching pairs, in C.
    tall_lines = shapely.linestrings(np.stack([np.stack([vx, vy0], 1), np.stack([vx, vy1], 1)], 1))
    flat_lines = shapely.linestrings(
        np.stack([np.stack([h_x0, h_y], 1), np.stack([h_x1, h_y], 1)], 1)
    )
    hi, vi = shapely.STRtree(tall_lines).query(flat_lines)
    k, k2 = hk[hi], vk[vi]
    ea, eb = end[k], end[k2]
    ok = k2 != k
    ok &= (ea[:, 0] != eb[:, 0]) & (ea[:, 0] != eb[:, 1])
    ok &= (ea[:, 1] != eb[:, 0]) & (ea[:, 1] != eb[:, 1])
    if not ok.any():
        return 0
    found = np.stack(
        [
            np.minimum(k, k2)[ok],
            np.maximum(k, k2)[ok],
            np.round(vx[vi][ok]).astype(np.int64),
            np.round(h_y[hi][ok]).astype(np.int64),
        ],
        axis=1,
    )
    return len(np.unique(found, axis=0))
