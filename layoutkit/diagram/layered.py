"""Layered (Sugiyama) layout phases over a plain graph, top-down frame.

Every phase is a function from plain values to plain values so each can be
inspected and tested on its own:

``break_cycles`` -> ``assign_layers`` -> ``insert_dummies`` -> ``order_layers``
(crossing minimisation, in ``ordering``) -> ``port_offsets`` -> ``assign_x`` ->
``straighten`` -> ``plan_tracks`` (in ``placement``) -> layer heights, shelf
packing of components and drawing (in ``engine``).

The caller (``engine``) maps a diagram payload onto a ``LayoutGraph`` in the
top-down frame (left-right diagrams are transposed before and after).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Any

import attrs
import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix

from layoutkit.diagram import ordering
from layoutkit.diagram.options import OPTIONS


@attrs.define
class LayoutGraph:
    """Input of the layered layout, already in the top-down frame.

    ``path[v]`` is the chain of enclosing containers, outermost first; a
    container is ``("lane", index)`` or ``("group", id)``.
    """

    nodes: list[str]
    w: dict[str, float]
    h: dict[str, float]
    edges: list[tuple[str, str]]
    edge_labels: dict[int, tuple[float, float]] = attrs.field(factory=dict)
    path: dict[str, tuple[tuple[str, Any], ...]] = attrs.field(factory=dict)
    lane_count: int = 0
    loop_room: dict[str, float] = attrs.field(factory=dict)
    ports: dict[int, dict[str, float]] = attrs.field(factory=dict)


@attrs.define
class Item:
    """A node, a dummy on a long edge, a label holder or a group placeholder in one layer."""

    kind: str  # node | dummy | label | hold
    name: str
    layer: int
    w: float
    h: float
    path: tuple[tuple[str, Any], ...]
    comp: int = 0
    extra_right: float = 0.0


@attrs.define
class Hierarchy:
    items: list[Item]
    layers: list[list[int]]
    segments: list[tuple[int, int, int]]  # (upper item, lower item, edge index)
    chains: dict[int, list[int]]  # edge index -> items from its (layout) source to target
    reversed: set[int]


# -- cycle breaking -----------------------------------------------------------


def break_cycles(nodes: list[str], edges: list[tuple[str, str]]) -> set[int]:
    """Edges to reverse so the graph becomes acyclic (depth-first back edges, source order)."""
    out: dict[str, list[tuple[str, int]]] = defaultdict(list)
    indeg: dict[str, int] = defaultdict(int)
    for k, (a, b) in enumerate(edges):
        if a != b:
            out[a].append((b, k))
            indeg[b] += 1
    state: dict[str, int] = {}
    rev: set[int] = set()
    roots = [v for v in nodes if indeg[v] == 0] + list(nodes)
    for root in roots:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(out[root]))]
        while stack:
            v, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[v] = 2
                stack.pop()
                continue
            w, k = nxt
            s = state.get(w)
            if s == 1:
                rev.add(k)
            elif s is None:
                state[w] = 1
                stack.append((w, iter(out[w])))
    return rev


# -- layering -------------------------------------------------------------------


def assign_layers(nodes: list[str], arcs: list[tuple[str, str, int]]) -> dict[str, int]:
    """Layer per node minimising the total edge span (the network-simplex LP, solved exactly).

    ``arcs`` are acyclic ``(u, v, minlen)``. The constraint matrix is a network
    matrix, so the simplex vertex solution is integral.
    """
    index = {v: i for i, v in enumerate(nodes)}
    n = len(nodes)
    if not arcs:
        return dict.fromkeys(nodes, 0)
    rows, cols, vals, rhs = [], [], [], []
    cost = np.full(n, 1e-3)
    for r, (u, v, minlen) in enumerate(arcs):
        iu, iv = index[u], index[v]
        rows += [r, r]
        cols += [iu, iv]
        vals += [1.0, -1.0]
        rhs.append(-float(minlen))
        cost[iv] += 1.0
        cost[iu] -= 1.0
    a = coo_matrix((vals, (rows, cols)), shape=(len(arcs), n)).tocsr()
    res = linprog(cost, A_ub=a, b_ub=np.array(rhs), bounds=(0, None), method="highs-ds")
    if not res.success:
        return _longest_path(nodes, arcs)
    y = np.rint(res.x).astype(int)
    base = int(y.min()) if n else 0
    return {v: int(y[index[v]]) - base for v in nodes}


def _longest_path(nodes: list[str], arcs: list[tuple[str, str, int]]) -> dict[str, int]:
    layer = dict.fromkeys(nodes, 0)
    for _ in range(len(nodes)):
        changed = False
        for u, v, m in arcs:
            if layer[v] < layer[u] + m:
                layer[v] = layer[u] + m
                changed = True
        if not changed:
            break
    return layer


# -- dummies --------------------------------------------------------------------


def _common(a: tuple, b: tuple) -> tuple:
    k = 0
    while k < len(a) and k < len(b) and a[k] == b[k]:
        k += 1
    return a[:k]


def insert_dummies(
    g: LayoutGraph, layer: dict[str, int], rev: set[int], comp: dict[str, int]
) -> Hierarchy:
    """Split edges spanning several layers into chains; label holders sit mid-chain."""
    items: list[Item] = []
    idx: dict[str, int] = {}
    for v in g.nodes:
        idx[v] = len(items)
        items.append(
            Item(
                "node",
                v,
                layer[v],
                g.w[v],
                g.h[v],
                g.path.get(v, ()),
                comp[v],
                g.loop_room.get(v, 0.0),
            )
        )
    segments: list[tuple[int, int, int]] = []
    chains: dict[int, list[int]] = {}
    lab_gap = OPTIONS.label_gap
    for k, (a, b) in enumerate(g.edges):
        if a == b:
            continue
        u, v = (b, a) if k in rev else (a, b)
        lu, lv = layer[u], layer[v]
        pu, pv = g.path.get(u, ()), g.path.get(v, ())
        common = _common(pu, pv)
        chain = [idx[u]]
        label = g.edge_labels.get(k)
        mid = (lu + lv) // 2
        for L in range(lu + 1, lv):
            # Dummies keep the lane of the nearer end so lanes stay contiguous.
            side = pu if mid >= L else pv
            dpath = common
            if side[:1] and side[0][0] == "lane" and common[:1] != side[:1]:
                dpath = side[:1]
            if label is not None and mid == L:
                lw, lh = label
                it = Item("label", f"{k}", L, lw + lab_gap, lh, dpath, comp[u])
            else:
                it = Item("dummy", f"{k}", L, OPTIONS.dummy_width, 0.0, dpath, comp[u])
            chain.append(len(items))
            items.append(it)
        chain.append(idx[v])
        for x, y in itertools.pairwise(chain):
            segments.append((x, y, k))
        chains[k] = chain
    nlayers = max((it.layer for it in items), default=0) + 1
    # Placeholders keep every group present in each layer it spans, so frames stay clear.
    span: dict[tuple, list[int]] = {}
    for it in items:
        for d in range(1, len(it.path) + 1):
            key = it.path[:d]
            if key[-1][0] != "group":
                continue
            lo_hi = span.setdefault(key, [it.layer, it.layer, it.comp])
            lo_hi[0] = min(lo_hi[0], it.layer)
            lo_hi[1] = max(lo_hi[1], it.layer)
    present = {(it.path[:d], it.layer) for it in items for d in range(1, len(it.path) + 1)}
    for key, (lo, hi, c) in sorted(span.items(), key=lambda kv: str(kv[0])):
        for L in range(lo, hi + 1):
            if (key, L) not in present:
                items.append(Item("hold", str(key[-1][1]), L, 0.0, 0.0, key, c))
                for d in range(1, len(key) + 1):
                    present.add((key[:d], L))
    layers: list[list[int]] = [[] for _ in range(nlayers)]
    for i, it in enumerate(items):
        layers[it.layer].append(i)
    return Hierarchy(items, layers, segments, chains, rev)


# -- crossing minimisation ------------------------------------------------------


def count_crossings(h: Hierarchy, pos: list[int], down: list[list[int]]) -> int:
    """Exact crossings between consecutive layers of ``h`` for item positions ``pos``."""
    return ordering.layer_crossings(h.layers, pos, down)


def order_layers(h: Hierarchy, seed_order: dict[str, int]) -> list[list[int]]:
    """Order each layer (see ``ordering``): restarts, sweeps, transposition, best by exact count."""
    return ordering.order_layers(h, seed_order)
