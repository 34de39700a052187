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

import heapq
import itertools
from typing import Any

import attrs
import numpy as np

from layoutkit.diagram import _lp, ordering
from layoutkit.diagram.hierarchy import Hierarchy, Item
from layoutkit.diagram.options import OPTIONS, LayoutOptions


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


# -- cycle breaking -----------------------------------------------------------

#: The share of edges a depth-first search may reverse and still be kept on a graph
#: whose hierarchy is over ``exact_items``: dense random graphs reverse a third and
#: more (the greedy order fewer), sparse flows with loops a few percent.
DFS_SHARE = 0.1


def break_cycles(
    nodes: list[str], edges: list[tuple[str, str]], opts: LayoutOptions = OPTIONS
) -> set[int]:
    """Edges to reverse so the graph becomes acyclic.

    The back edges of a depth-first search (``_dfs_back_edges``) keep small
    graphs as they always were. Depth-first trees of dense graphs are deep, so
    their layering can need hundreds of layers and tens of thousands of dummies;
    when the depth-first choice would give a hierarchy of more than
    ``opts.exact_items`` items, the greedy order of Eades, Lin and Smyth
    (``_greedy_back_edges``, ELK's default) is tried too and the choice with the
    smaller hierarchy (estimated by longest-path layering) is kept. When the
    depth-first choice loses that way but stays worth laying out,
    ``cycle_choices`` offers both, and the layout keeps the one that orders with
    fewer crossings.
    """
    back = _dfs_back_edges(nodes, edges)
    if not back or _bounded(nodes, edges, opts.exact_items):
        return back
    dfs_size = _hierarchy_estimate(nodes, edges, back)
    if dfs_size <= opts.exact_items:
        return back
    greedy = _greedy_back_edges(nodes, edges)
    return greedy if _hierarchy_estimate(nodes, edges, greedy) < dfs_size else back


def cycle_choices(
    nodes: list[str], edges: list[tuple[str, str]], opts: LayoutOptions = OPTIONS
) -> list[set[int]]:
    """``break_cycles``'s choice first, then the depth-first one where it lost but is
    worth ordering too: it reverses at most ``DFS_SHARE`` of the edges (a sparse flow
    with a few loops, not a dense tangle) and its hierarchy stays within
    ``opts.dfs_items`` items (estimated). Why: the smaller hierarchy is not always
    the one that crosses less; on the bench's sparse 500-node graphs with loops the
    depth-first layering (dot's) ordered with up to half the crossings of the
    greedy one, and on 200-node ones with fewer."""
    back = _dfs_back_edges(nodes, edges)
    if not back or _bounded(nodes, edges, opts.exact_items):
        return [back]
    dfs_size = _hierarchy_estimate(nodes, edges, back)
    if dfs_size <= opts.exact_items:
        return [back]
    greedy = _greedy_back_edges(nodes, edges)
    if _hierarchy_estimate(nodes, edges, greedy) >= dfs_size:
        return [back]
    if len(back) <= DFS_SHARE * len(edges) and dfs_size <= opts.dfs_items:
        return [greedy, back]
    return [greedy]


def _dfs_back_edges(nodes: list[str], edges: list[tuple[str, str]]) -> set[int]:
    """The back edges of a depth-first search that starts from the sources (nodes with
    no incoming edge), then from every other node, each in ``nodes`` order, and follows
    edges in their order.

    Every parallel copy of a back edge is reversed too (self-loops never are)."""
    # The order networkx's dfs_labeled_edges took when this ran through it (and the
    # tests hold it to): starts in node order with the sources first, each node's
    # successors in the order their first edge appears, parallel edges once.
    targets = {b for a, b in edges if a != b}
    order = dict.fromkeys([*(v for v in nodes if v not in targets), *nodes])
    succ: dict[str, dict[str, None]] = {v: {} for v in order}
    for a, b in edges:
        if a != b:
            if a not in succ:
                succ[a] = {}
            if b not in succ:
                succ[b] = {}
            succ[a][b] = None
    # True while a node is on the current depth-first path, False once it is done.
    state: dict[str, bool] = {}
    back: set[tuple[str, str]] = set()
    for start in succ:
        if start in state:
            continue
        state[start] = True
        stack = [(start, iter(succ[start]))]
        while stack:
            parent, children = stack[-1]
            for child in children:
                seen = state.get(child)
                if seen is None:
                    state[child] = True
                    stack.append((child, iter(succ[child])))
                    break
                if seen:
                    back.add((parent, child))
            else:
                stack.pop()
                state[parent] = False
    if not back:
        return set()
    return {k for k, pair in enumerate(edges) if pair in back}


def _greedy_back_edges(nodes: list[str], edges: list[tuple[str, str]]) -> set[int]:
    """Eades-Lin-Smyth: peel sinks to the right and sources to the left, else move the
    node with the largest out-degree minus in-degree left; edges pointing leftwards in
    the resulting sequence are reversed. Ties go to the earlier node, so the result
    is deterministic; parallel copies count with their multiplicity."""
    index = {v: i for i, v in enumerate(nodes)}
    n = len(nodes)
    succ: list[dict[int, int]] = [{} for _ in range(n)]
    pred: list[dict[int, int]] = [{} for _ in range(n)]
    for a, b in edges:
        if a == b:
            continue
        ia, ib = index[a], index[b]
        succ[ia][ib] = succ[ia].get(ib, 0) + 1
        pred[ib][ia] = pred[ib].get(ia, 0) + 1
    outd = [sum(s.values()) for s in succ]
    ind = [sum(p.values()) for p in pred]
    alive = [True] * n
    sinks = [v for v in range(n) if outd[v] == 0]
    sources = [v for v in range(n) if ind[v] == 0 and outd[v] > 0]
    heap = [(ind[v] - outd[v], v) for v in range(n)]
    heapq.heapify(heap)
    left: list[int] = []
    right: list[int] = []

    def remove(v: int) -> None:
        alive[v] = False
        for w, k in succ[v].items():
            if alive[w]:
                ind[w] -= k
                if ind[w] == 0:
                    sources.append(w)
                heapq.heappush(heap, (ind[w] - outd[w], w))
        for u, k in pred[v].items():
            if alive[u]:
                outd[u] -= k
                if outd[u] == 0:
                    sinks.append(u)
                heapq.heappush(heap, (ind[u] - outd[u], u))

    while len(left) + len(right) < n:
        # Sinks first, then sources; only when neither is left does the heap choose.
        pending = sinks or sources
        if pending:
            v, side = pending.pop(), right if pending is sinks else left
            ok = alive[v]
        else:
            key, v = heapq.heappop(heap)
            side, ok = left, alive[v] and key == ind[v] - outd[v]
        if ok:
            side.append(v)
            remove(v)
    seq = {v: p for p, v in enumerate(left + right[::-1])}
    return {k for k, (a, b) in enumerate(edges) if a != b and seq[index[a]] > seq[index[b]]}


def _bounded(nodes: list[str], edges: list[tuple[str, str]], limit: int) -> bool:
    """Whether ``_hierarchy_estimate`` stays within ``limit`` whatever is reversed: no
    edge spans more than ``len(nodes) - 1`` layers, so a small graph skips the estimate."""
    return len(nodes) + len(edges) * max(0, len(nodes) - 1) <= limit


def _hierarchy_estimate(nodes: list[str], edges: list[tuple[str, str]], rev: set[int]) -> int:
    """Nodes plus layer gaps crossed by the edges under longest-path layering: about the
    items and segments the hierarchy will hold (the exact layering only shortens edges)."""
    index = {v: i for i, v in enumerate(nodes)}
    n = len(nodes)
    succ: list[list[int]] = [[] for _ in range(n)]
    ind = [0] * n
    for k, (a, b) in enumerate(edges):
        if a == b:
            continue
        u, v = (index[b], index[a]) if k in rev else (index[a], index[b])
        succ[u].append(v)
        ind[v] += 1
    layer = [0] * n
    todo = [v for v in range(n) if ind[v] == 0]
    while todo:
        u = todo.pop()
        for v in succ[u]:
            layer[v] = max(layer[v], layer[u] + 1)
            ind[v] -= 1
            if ind[v] == 0:
                todo.append(v)
    return n + sum(layer[v] - layer[u] for u in range(n) for v in succ[u])


# -- layering -------------------------------------------------------------------


def assign_layers(nodes: list[str], arcs: list[tuple[str, str, int]]) -> dict[str, int]:
    """Layer per node minimising the total edge span, then the sum of layers (an LP).

    ``arcs`` are acyclic ``(u, v, minlen)``. Up to ``SIMPLEX_NODES`` nodes the
    network simplex (``_NetworkSimplex``) solves it; larger graphs go to HiGHS, whose
    simplex vertex is integral too (the constraint matrix is a network matrix). Below
    ``SPAN`` nodes the optimum is unique, so both give the same layers.
    """
    if not arcs:
        return dict.fromkeys(nodes, 0)
    if len(nodes) <= SIMPLEX_NODES:
        found = _NetworkSimplex(nodes, arcs).solve()
        if found is not None:
            return dict(zip(nodes, found, strict=True))
    return _lp_layers(nodes, arcs)


def _lp_layers(nodes: list[str], arcs: list[tuple[str, str, int]]) -> dict[str, int]:
    """``assign_layers``'s LP handed to HiGHS (longest paths should it fail)."""
    index = {v: i for i, v in enumerate(nodes)}
    n = len(nodes)
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
    x = _lp.minimise(cost, rows, cols, vals, rhs)
    if x is None:
        return _longest_path(nodes, arcs)
    y = np.rint(x).astype(int)
    base = int(y.min()) if n else 0
    return {v: int(y[index[v]]) - base for v in nodes}


#: A unit of edge span weighs as much as this many units of height in
#: ``_NetworkSimplex``: the layering LP's costs (1 per unit of span, 1e-3 per
#: layer) times 1000, so cut values are integers. A tree arc's cut value is then
#: ``SPAN * k - s`` for a subtree of ``s`` nodes (every node hangs from the root by
#: one arc of weight 1), never zero while a graph has fewer than ``SPAN`` nodes.
SPAN = 1000

#: Largest graph (nodes) the network simplex ranks before the LP solver takes over;
#: a choice by size, never by the clock. Each pivot here costs O(nodes + arcs), and
#: HiGHS is the faster of the two from about a hundred nodes on.
SIMPLEX_NODES = 100


class _NetworkSimplex:
    """The layering LP solved by Gansner et al.'s network simplex (dot's ranking).

    A virtual root (index ``n``) sits above every node with an arc of weight 1 and
    length 0 to each, which brings the LP's bounds (layers from 0 down) and its pull
    of every node towards the top into the network. At the end every tree arc's cut
    value (the objective's slope as that arc is stretched) is positive, so every
    other feasible layering costs strictly more: the optimum is the only one, and the
    LP solver, which finds an optimum, finds exactly this layering.
    """

    def __init__(self, nodes: list[str], arcs: list[tuple[str, str, int]]) -> None:
        n = self.n = len(nodes)
        m = len(arcs)
        index = {v: i for i, v in enumerate(nodes)}
        tail = self.tail = [index[u] for u, _, _ in arcs]
        head = self.head = [index[v] for _, v, _ in arcs]
        self.length = [k for _, _, k in arcs] + [0] * n
        # The root's arcs (weight 1) come after the graph's, arc m + v to node v.
        # Each node's arcs out (the only ones the longest paths and the sources follow).
        out: list[list[int]] = [[] for _ in range(n)]
        out.append(list(range(m, m + n)))
        net = [-1] * n + [n]  # weight leaving a node minus weight entering it
        for a, (u, v) in enumerate(zip(tail, head, strict=True)):
            out[u].append(a)
            net[u] += SPAN
            net[v] -= SPAN
        tail += [n] * n
        head += range(n)
        self.out = out
        self.net = net
        self.y = [0] * (n + 1)
        self.tree = [False] * len(tail)
        # Each node's tree arcs, so walks of the tree skip the arcs outside it.
        self.tree_inc: list[list[int]] = [[] for _ in range(n + 1)]

    def solve(self) -> list[int] | None:
        """Each node's layer, or None if the arcs close a cycle, a tie shows (only
        possible from ``SPAN`` nodes on) or the pivots run past their bound."""
        if not self._rank():
            return None
        n = self.n
        start = 0
        for _ in range(20 * len(self.tail) + 100):
            parent, cut = self._cut_values()
            # The first node from ``start`` on, wrapping round, whose tree arc cuts below zero.
            leave = next((u for u in range(start, n) if cut[u] < 0), -1)
            if leave < 0:
                leave = next((u for u in range(start) if cut[u] < 0), -1)
            if leave < 0:
                if n and min(cut) == 0:
                    return None
                base = min(self.y[:n])
                return [v - base for v in self.y[:n]]
            start = leave + 1
            self._pivot(leave, parent)
        return None

    def _rank(self) -> bool:
        """Longest paths from the root (a feasible layering), sources then pulled down
        to their nearest child, and a spanning tree of tight arcs (Gansner's
        feasible_tree) with them: each node hangs from the arc that set its layer, a
        node left at layer 0 from its root arc. Which tight tree the pivots start from
        does not change the answer, the optimum being unique. False on a cycle."""
        head, length, out, y = self.head, self.length, self.out, self.y
        n = self.n
        m = len(self.tail) - n
        indeg = [0] * (n + 1)
        for v in head:
            indeg[v] += 1
        up = [-1] * n  # the arc that set each node's layer
        todo, done = [n], 0
        while todo:
            u = todo.pop()
            done += 1
            yu = y[u]
            for a in out[u]:
                v = head[a]
                if yu + length[a] > y[v]:
                    y[v] = yu + length[a]
                    up[v] = a
                indeg[v] -= 1
                if not indeg[v]:
                    todo.append(v)
        if done != n + 1:
            return False
        self._pull_sources(up)
        tail, tree, tree_inc = self.tail, self.tree, self.tree_inc
        for v in range(n):
            a = up[v] if up[v] >= 0 else m + v
            tree[a] = True
            tree_inc[tail[a]].append(a)
            tree_inc[head[a]].append(a)
        return True

    def _pull_sources(self, up: list[int]) -> None:
        """Each source (``up`` -1) as low as its nearest child allows, hung from that
        child's arc, which is then tight. Moved down, it shortens every edge out of it:
        the pivots would move it there anyway (each edge weighs ``SPAN`` times a layer),
        so starting there saves them. No node hangs from a source that moves, or its
        child would be that near already."""
        head, length, out, y = self.head, self.length, self.out, self.y
        for v in range(self.n):
            if up[v] < 0:
                low, arc = 0, -1
                for a in out[v]:
                    room = y[head[a]] - length[a]
                    if arc < 0 or room < low:
                        low, arc = room, a
                if low > 0:
                    y[v] = low
                    up[v] = arc

    def _cut_values(self) -> tuple[list[int], list[int]]:
        """Each node's tree arc towards the root, and that arc's cut value: the sum of
        ``net`` over the node's subtree (arcs inside it add and take the same weight),
        signed by which way the arc points."""
        tail, head, tree_inc = self.tail, self.head, self.tree_inc
        n = self.n
        parent = [-1] * (n + 1)
        order = [n]
        for u in order:
            up = parent[u]
            for a in tree_inc[u]:
                if a != up:
                    w = head[a] if tail[a] == u else tail[a]
                    parent[w] = a
                    order.append(w)
        sub = self.net[:]
        for u in reversed(order[1:]):
            a = parent[u]
            sub[head[a] if tail[a] == u else tail[a]] += sub[u]
        cut = [sub[u] if tail[parent[u]] == u else -sub[u] for u in range(n)]
        return parent, cut

    def _pivot(self, leave: int, parent: list[int]) -> None:
        """Drop the tree arc above ``leave`` (negative cut value): its subtree moves as
        one, away across the cut, until the tightest arc back across closes the gap;
        that arc joins the tree."""
        tail, head, length, y, tree, tree_inc = (
            self.tail,
            self.head,
            self.length,
            self.y,
            self.tree,
            self.tree_inc,
        )
        inside = [False] * (self.n + 1)
        inside[leave] = True
        below = [leave]
        for u in below:
            up = parent[u]
            for a in tree_inc[u]:
                if a != up:
                    w = head[a] if tail[a] == u else tail[a]
                    inside[w] = True
                    below.append(w)
        is_tail = tail[parent[leave]] == leave
        # The first non-tree arc of least slack from outside the subtree into it
        # (``leave`` hangs by an arc it is the tail of), or out of it.
        enter, least = -1, 0
        for a in range(len(tail)):
            if not tree[a] and inside[head[a]] == is_tail and inside[tail[a]] != is_tail:
                slack = y[head[a]] - y[tail[a]] - length[a]
                if enter < 0 or slack < least:
                    enter, least = a, slack
        shift = -least if is_tail else least
        for u in below:
            y[u] += shift
        out = parent[leave]
        tree[out] = False
        tree_inc[tail[out]].remove(out)
        tree_inc[head[out]].remove(out)
        tree[enter] = True
        tree_inc[tail[enter]].append(enter)
        tree_inc[head[enter]].append(enter)


def _longest_path(nodes: list[str], arcs: list[tuple[str, str, int]]) -> dict[str, int]:
    """Each node as low as its longest chain of ``minlen`` steps from a source allows."""
    import networkx as nx  # only when the LP fails: a diagram need not pay its import

    graph = nx.DiGraph()
    graph.add_nodes_from(nodes)
    for u, v, m in arcs:
        if graph.has_edge(u, v):
            m = max(m, graph[u][v]["minlen"])
        graph.add_edge(u, v, minlen=m)
    layer = dict.fromkeys(nodes, 0)
    for u in nx.topological_sort(graph):
        for v, data in graph.succ[u].items():
            layer[v] = max(layer[v], layer[u] + data["minlen"])
    return layer


# -- dummies --------------------------------------------------------------------


def _common(a: tuple, b: tuple) -> tuple:
    k = 0
    while k < len(a) and k < len(b) and a[k] == b[k]:
        k += 1
    return a[:k]


def insert_dummies(
    g: LayoutGraph,
    layer: dict[str, int],
    rev: set[int],
    comp: dict[str, int],
    opts: LayoutOptions = OPTIONS,
) -> Hierarchy:
    """Split edges spanning several layers into chains; label holders sit mid-chain."""
    w, h, path, room = g.w, g.h, g.path, g.loop_room
    items = [
        Item("node", v, layer[v], w[v], h[v], path.get(v, ()), comp[v], room.get(v, 0.0))
        for v in g.nodes
    ]
    idx = {v: i for i, v in enumerate(g.nodes)}
    segments: list[tuple[int, int, int]] = []
    chains: dict[int, list[int]] = {}
    for k, (a, b) in enumerate(g.edges):
        if a == b:
            continue
        u, v = (b, a) if k in rev else (a, b)
        if layer[v] - layer[u] <= 1:
            # No layer between the ends (most edges): one segment, no dummies.
            chains[k] = [idx[u], idx[v]]
            segments.append((idx[u], idx[v], k))
            continue
        chain = [idx[u], *_chain_dummies(g, k, u, v, layer, comp[u], items, opts), idx[v]]
        for x, y in itertools.pairwise(chain):
            segments.append((x, y, k))
        chains[k] = chain
    nlayers = max([it.layer for it in items], default=0) + 1
    _add_group_holders(items)
    layers: list[list[int]] = [[] for _ in range(nlayers)]
    for i, it in enumerate(items):
        layers[it.layer].append(i)
    return Hierarchy(items, layers, segments, chains, rev)


def _chain_dummies(
    g: LayoutGraph,
    k: int,
    u: str,
    v: str,
    layer: dict[str, int],
    c: int,
    items: list[Item],
    opts: LayoutOptions,
) -> list[int]:
    """Append the dummies (a label holder mid-way if edge ``k`` has a label) of the edge
    from ``u`` down to ``v`` to ``items``; their indices, top to bottom."""
    lu, lv = layer[u], layer[v]
    pu, pv = g.path.get(u, ()), g.path.get(v, ())
    common = _common(pu, pv)
    label = g.edge_labels.get(k)
    mid = (lu + lv) // 2
    name = str(k)
    out = []
    for L in range(lu + 1, lv):
        # Dummies keep the lane of the nearer end so lanes stay contiguous.
        side = pu if mid >= L else pv
        dpath = common
        if side[:1] and side[0][0] == "lane" and common[:1] != side[:1]:
            dpath = side[:1]
        if label is not None and mid == L:
            lw, lh = label
            it = Item("label", name, L, lw + opts.label_gap, lh, dpath, c)
        else:
            it = Item("dummy", name, L, opts.dummy_width, 0.0, dpath, c)
        out.append(len(items))
        items.append(it)
    return out


def _add_group_holders(items: list[Item]) -> None:
    """Placeholders keep every group present in each layer it spans, so frames stay clear."""
    span: dict[tuple, list[int]] = {}
    for it in items:
        if not it.path:
            continue  # in no container
        for d in range(1, len(it.path) + 1):
            key = it.path[:d]
            if key[-1][0] != "group":
                continue
            lo_hi = span.setdefault(key, [it.layer, it.layer, it.comp])
            lo_hi[0] = min(lo_hi[0], it.layer)
            lo_hi[1] = max(lo_hi[1], it.layer)
    if not span:
        return
    present = {(it.path[:d], it.layer) for it in items for d in range(1, len(it.path) + 1)}
    for key, (lo, hi, c) in sorted(span.items(), key=lambda kv: str(kv[0])):
        for L in range(lo, hi + 1):
            if (key, L) not in present:
                items.append(Item("hold", str(key[-1][1]), L, 0.0, 0.0, key, c))
                for d in range(1, len(key) + 1):
                    present.add((key[:d], L))


# -- crossing minimisation ------------------------------------------------------


def count_crossings(h: Hierarchy, pos: list[int], down: list[list[int]]) -> int:
    """Exact crossings between consecutive layers of ``h`` for item positions ``pos``."""
    return ordering.layer_crossings(h.layers, pos, down)


def order_layers(
    h: Hierarchy, seed_order: dict[str, int], opts: LayoutOptions = OPTIONS
) -> list[list[int]]:
    """Order each layer (see ``ordering``): restarts, sweeps, transposition, best by exact count."""
    return ordering.order_layers(h, seed_order, opts)
