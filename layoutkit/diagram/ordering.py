"""Crossing minimisation for a layered hierarchy (the ordering phase).

Several deterministic starts (depth-first from the sources, depth-first from
the sinks, seeded shuffles) are each improved by alternating layer sweeps
(median, then barycenter) followed by adjacent-exchange transposition until
no exchange helps. The order with the lowest exact crossing count wins.

Containers (lanes, groups) stay contiguous: every layer is sorted by a key
that puts the container path before the item's own value, and transposition
only exchanges neighbours that share their container path.
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections import defaultdict
from typing import Any

from layoutkit.diagram.hierarchy import Hierarchy
from layoutkit.diagram.options import OPTIONS, LayoutOptions


def bilayer_crossings(pairs: list[tuple[int, int]]) -> int:
    """Crossings between two layers from (upper pos, lower pos) pairs.

    Counts inversions of the lower positions in upper order; pairs that share
    an end never count.
    """
    if len(pairs) < 2:
        return 0
    pairs.sort()
    seen: list[int] = []
    total = 0
    for _, lo in pairs:
        k = bisect.bisect_right(seen, lo)
        total += len(seen) - k
        seen.insert(k, lo)
    return total


def layer_crossings(layers: list[list[int]], pos: list[int], down: list[list[int]]) -> int:
    """Exact number of crossings between consecutive layers for the given positions."""
    total = 0
    for L in range(len(layers) - 1):
        pairs = [(pos[a], pos[b]) for a in layers[L] for b in down[a]]
        total += bilayer_crossings(pairs)
    return total


def hierarchy_crossings(h: Hierarchy, layers: list[list[int]]) -> int:
    """Crossings between the segments of ``h`` in the order ``layers`` (each gap counted
    alone, pairs that share an end never), as the ordering counts them."""
    pos = [0] * len(h.items)
    for layer in layers:
        for p, i in enumerate(layer):
            pos[i] = p
    gaps: list[list[tuple[int, int]]] = [[] for _ in layers]
    for a, b, _ in h.segments:
        gaps[h.items[a].layer].append((pos[a], pos[b]))
    return sum(bilayer_crossings(pairs) for pairs in gaps)


def _forced_crossings(gaps: list[list[tuple[int, int]]]) -> int:
    """Crossings no order avoids: every two items of a layer that both have edges to
    the same two items of the next cross once among those four edges, whichever way
    each pair is ordered (and no two such quadruples share a crossing pair). When a
    start reaches this count, ordering stops: nothing strictly better exists, so the
    winner is the one a longer search would keep."""
    total = 0
    for segs in gaps:
        if len(segs) - len({b for _, b in segs}) < 2:
            continue  # no two lower items with two segments each: nothing is shared
        uppers: dict[int, set[int]] = defaultdict(set)
        for a, b in segs:
            uppers[b].add(a)
        shared_by = [us for us in uppers.values() if len(us) > 1]
        if len(shared_by) < 2:
            continue
        shared: dict[tuple[int, int], int] = defaultdict(int)
        for us in shared_by:
            for pair in itertools.combinations(sorted(us), 2):
                shared[pair] += 1
        total += sum(k * (k - 1) // 2 for k in shared.values())
    return total


def _median(ps: list[float]) -> float:
    ps.sort()
    m = len(ps)
    half = m // 2
    if m % 2:
        return ps[half]
    if m == 2:
        return (ps[0] + ps[1]) / 2
    left = ps[half - 1] - ps[0]
    right = ps[-1] - ps[half]
    if left + right == 0:
        return (ps[half - 1] + ps[half]) / 2
    return (ps[half - 1] * right + ps[half] * left) / (left + right)


def _exchange_counts(
    pos: list[int], uu: list[int], vu: list[int], ud: list[int], vd: list[int]
) -> tuple[int, int]:
    """Crossings between the edges of neighbours u (left) and v, as they stand and if
    exchanged, from their upper (``uu``, ``vu``) and lower (``ud``, ``vd``) neighbours."""
    before = after = 0
    for a in uu:
        pa = pos[a]
        for b in vu:
            pb = pos[b]
            if pa > pb:
                before += 1
            elif pa < pb:
                after += 1
    for a in ud:
        pa = pos[a]
        for b in vd:
            pb = pos[b]
            if pa > pb:
                before += 1
            elif pa < pb:
                after += 1
    return before, after


#: Search nodes the proof of ``_fewer_exist`` may visit before it gives up: enough for
#: the small hierarchies whose ordering runs every start (a few hundred), little
#: against those starts' sweeps where it gives up.
PROOF_NODES = 1500
#: The proof is tried once, after this many starts (most hierarchies reach their floor
#: within them), on hierarchies of at most ``PROOF_ITEMS`` items and ``PROOF_LAYER``
#: items a layer, where each node of the search stays cheap.
PROOF_AFTER = 2
PROOF_ITEMS = 30
PROOF_LAYER = 6


class _OutOfNodes(Exception):
    """The proof's search used its whole budget of nodes without an answer."""


def _fewer_exist(
    layers: list[list[int]], up: list[list[int]], floors: list[int], target: int, budget: int
) -> bool | None:
    """Whether some order of the layers (each item anywhere in its layer) has fewer than
    ``target`` crossings, counted as ``_Orderer.count`` does: True or False, or None when
    the search visited ``budget`` nodes without an answer (see ``_Proof``)."""
    try:
        return _Proof(layers, up, floors, target, budget).layer(0, 0, ())
    except _OutOfNodes:
        return None


class _Proof:
    """Branch and bound over the orders of a hierarchy, layer by layer from the top,
    item by item from the left. An item placed right of others adds the crossings
    between their edges up; what the rest of the layer adds is at least, for each pair
    left to place, the cheaper of its two orders; each gap below adds at least its
    ``floors`` entry (its forced crossings). Every order and its mirror image cross
    alike, so the first layer of two or more items is only tried with its first item
    before its last."""

    def __init__(
        self,
        layers: list[list[int]],
        up: list[list[int]],
        floors: list[int],
        target: int,
        budget: int,
    ) -> None:
        self.layers, self.up, self.target, self.budget = layers, up, target, budget
        depth = len(layers)
        self.below = [0] * (depth + 1)  # forced crossings of the gaps under each layer
        for d in range(depth - 1, -1, -1):
            self.below[d] = self.below[d + 1] + (floors[d] if d < len(floors) else 0)
        self.mirror = next((d for d, layer in enumerate(layers) if len(layer) > 1), -1)
        self.pos = {i: 0 for layer in layers for i in layer}
        self.nodes = 0
        # What lies under a layer depends on the order above it alone: an order met
        # again (under another order higher up) needs no second search for what it was
        # shown to need at least.
        self.shown: dict[tuple[int, tuple[int, ...]], int] = {}

    def layer(self, d: int, acc: int, above: tuple[int, ...]) -> bool:
        """Whether layers ``d`` on, under the order ``above`` of layer ``d - 1``, can add
        fewer than ``target - acc`` crossings."""
        if d == len(self.layers):
            return True
        need = self.target - acc
        if self.shown.get((d, above), -1) >= need:
            return False
        items = self.layers[d]
        if d == 0:
            cost = [[0] * len(items) for _ in items]
        else:
            pos, up, left_of = self.pos, self.up, bisect.bisect_left
            ups = [
                [pos[ns[0]]] if len(ns) == 1 else sorted([pos[a] for a in ns])
                for ns in (up[i] for i in items)
            ]
            # x left of y: each edge of x crosses the edges of y that reach further left.
            cost = [
                [left_of(uy, ux[0]) for uy in ups]
                if len(ux) == 1
                else [sum([left_of(uy, pa) for pa in ux]) for uy in ups]
                for ux in ups
            ]
        search = _LayerSearch(self, d, items, cost)
        found = search.place(acc, search.fixed)
        if not found:
            self.shown[(d, above)] = need
        return found


class _LayerSearch:
    """The items of one layer placed left to right (``_Proof``)."""

    def __init__(self, proof: _Proof, d: int, items: list[int], cost: list[list[int]]) -> None:
        s = len(items)
        self.proof, self.d, self.items, self.cost = proof, d, items, cost
        # least[x][y]: the cheaper of x left of y and y left of x.
        self.least = least = [
            [c if c < r else r for c, r in zip(row, col, strict=True)]
            for row, col in zip(cost, zip(*cost, strict=True), strict=True)
        ]
        self.left = [0] * s  # crossings with the placed items, were x placed next
        self.placed: list[int] = []
        self.rest = list(range(s))
        # Row sums over the other items left to place, kept as items are placed and
        # taken back, so that a node's bound for each candidate is a few look-ups
        # rather than a walk over the rest.
        self.cost_rest = [sum(row) - row[x] for x, row in enumerate(cost)]
        self.least_rest = [sum(row) - row[x] for x, row in enumerate(least)]
        # Each pair's cheaper order, once: ``least`` is symmetric.
        self.pairs = sum(self.least_rest) // 2
        self.fixed = 0  # what ``left`` adds up to over the rest, before any item is placed
        self.bound = proof.target - proof.below[d]

    def place(self, cur: int, fixed: int) -> bool:
        """Whether the rest of the layer, placed after the items placed so far (which
        cross ``cur`` times, ``fixed`` more with the rest's edges), can keep the whole
        hierarchy below the proof's target."""
        proof, rest, placed, left = self.proof, self.rest, self.placed, self.left
        proof.nodes += 1
        if proof.nodes > proof.budget:
            raise _OutOfNodes
        if not rest:
            items = self.items
            if self.d == proof.mirror and items[placed[0]] > items[placed[-1]]:
                return False
            order = tuple([items[x] for x in placed])
            pos = proof.pos
            for p, i in enumerate(order):
                pos[i] = p
            return proof.layer(self.d + 1, cur, order)
        cost, least, cost_rest, least_rest = self.cost, self.least, self.cost_rest, self.least_rest
        bound = self.bound
        pairs = self.pairs
        for k in range(len(rest)):
            v = rest[k]
            # The pairs of the rest but v, at their cheaper order; and what v's edges
            # and the edges of the items placed so far add with the rest but v.
            after = pairs - least_rest[v]
            ahead = fixed - left[v] + cost_rest[v]
            now = cur + left[v]
            if now + ahead + after >= bound:
                continue
            row, lv = cost[v], least[v]
            del rest[k]
            placed.append(v)
            for x in rest:
                left[x] += row[x]
                cost_rest[x] -= cost[x][v]
                least_rest[x] -= lv[x]
            self.pairs = after
            found = self.place(now, ahead)
            self.pairs = pairs
            for x in rest:
                left[x] -= row[x]
                cost_rest[x] += cost[x][v]
                least_rest[x] += lv[x]
            placed.pop()
            rest.insert(k, v)
            if found:
                return True
        return False


#: Gaps with at most this many segments have their crossings counted pair by pair.
PAIRWISE_SEGMENTS = 6


class _Orderer:
    def __init__(
        self, h: Hierarchy, seed_order: dict[str, int], opts: LayoutOptions = OPTIONS
    ) -> None:
        self.opts = opts
        self.h = h
        items = self.items = h.items
        n = len(items)
        layer_of = [it.layer for it in items]
        self.up: list[list[int]] = [[] for _ in range(n)]
        self.down: list[list[int]] = [[] for _ in range(n)]
        # Segments per layer gap, for the exact count.
        self.gaps: list[list[tuple[int, int]]] = [[] for _ in h.layers]
        for a, b, _ in h.segments:
            self.down[a].append(b)
            self.up[b].append(a)
            self.gaps[layer_of[a]].append((a, b))
        self.seed_order = seed_order
        self.start_keys = [
            (layer, seed_order.get(it.name, 0)) for layer, it in zip(layer_of, items, strict=True)
        ]
        # The one neighbour above (below) of an item that has exactly one, else -1:
        # most items of a sparse hierarchy, whose sweep value is that neighbour's
        # position.
        self.one_up = [ns[0] if len(ns) == 1 else -1 for ns in self.up]
        self.one_down = [ns[0] if len(ns) == 1 else -1 for ns in self.down]
        # The same for items with exactly one edge above and one below (dummies of long
        # edges, most items of a dense hierarchy), else -1: transposition counts their
        # exchanges inline.
        self.chain_up = [
            a if a >= 0 and b >= 0 else -1 for a, b in zip(self.one_up, self.one_down, strict=True)
        ]
        self.chain_down = [
            b if a >= 0 and b >= 0 else -1 for a, b in zip(self.one_up, self.one_down, strict=True)
        ]
        self.value = [0.0] * n  # sweep values, by item, rewritten for each layer sorted
        # Small gaps are counted pair by pair (fewer steps than sorting for a handful
        # of segments), larger ones by ``bilayer_crossings``; the counts are the same.
        # Gaps of fewer than two segments never cross and are left out, as are pairs
        # of segments that share an end.
        self.counted_gaps = [
            (
                L,
                segs,
                None
                if len(segs) > PAIRWISE_SEGMENTS
                else [
                    (a, b, c, d)
                    for k, (a, b) in enumerate(segs)
                    for c, d in segs[k + 1 :]
                    if a != c and b != d
                ],
            )
            for L, segs in enumerate(self.gaps)
            if len(segs) > 1
        ]
        # A gap's crossings depend on the orders of its two layers alone, and the
        # starts run into the same pairs of orders again and again: each pair is
        # counted once (not for large hierarchies, whose orders seldom repeat).
        self.gap_counts: list[dict[tuple, int]] = [{} for _ in self.gaps]
        self.static = [float(it.comp) for it in items]
        self.paths = [it.path for it in items]
        self.nested = any(self.paths)
        # Neighbours may be exchanged when they share container path and component
        # (outside containers, when they share component).
        if self.nested:
            classes: dict[tuple, int] = {}
            self.cls = [classes.setdefault((it.path, it.comp), len(classes)) for it in items]
            self.one_class = len(classes) <= 1
        else:
            self.cls = [it.comp for it in items]
            self.one_class = len(set(self.cls)) <= 1
        self.gap_floors = [_forced_crossings([segs]) for segs in self.gaps]
        self.floor = sum(self.gap_floors)
        self.provable = n <= min(PROOF_ITEMS, opts.order_items) and all(
            len(layer) <= PROOF_LAYER for layer in h.layers
        )
        # Past this size a sweep costs more than its gain: see ``run``.
        self.large = n > opts.order_items
        # One sweep-and-transpose step is a function of the order and of the step's
        # phase (direction, median or mean, ties exchanged or not) alone, and starts
        # often run into orders earlier starts went through: their steps are looked
        # up, not redone. The same orders and counts come out, so the same winner.
        self.steps: dict[tuple, tuple[tuple, int]] = {}
        # Likewise transposition is a function of the order it starts from and of
        # whether ties are exchanged, and sweeps from different orders often meet in
        # one order (a start that has settled sweeps back to it in each phase): its
        # transposition, and the crossings after, are looked up too.
        self.transposed: dict[tuple, tuple[tuple, int]] = {}

    # -- starts -------------------------------------------------------------------

    def dfs_start(self, from_top: bool) -> list[list[int]]:
        n = len(self.items)
        nbr = self.down if from_top else self.up
        rank = [0] * n
        seen = [False] * n
        counter = 0
        # Roots by layer (from the top or from the bottom), seed order, then index.
        if from_top:
            keys = [(layer, seed, i) for i, (layer, seed) in enumerate(self.start_keys)]
        else:
            keys = [(-layer, seed, i) for i, (layer, seed) in enumerate(self.start_keys)]
        keys.sort()
        for _, _, s in keys:
            if seen[s]:
                continue
            stack = [s]
            while stack:
                v = stack.pop()
                if seen[v]:
                    continue
                seen[v] = True
                rank[v] = counter
                counter += 1
                stack.extend(reversed(nbr[v]))
        return [sorted(layer, key=rank.__getitem__) for layer in self.h.layers]

    def shuffled_start(self, seed: int) -> list[list[int]]:
        rng = random.Random(seed)
        out = []
        for layer in self.h.layers:
            layer = sorted(layer)
            rng.shuffle(layer)
            out.append(layer)
        return out

    # -- sweeps -------------------------------------------------------------------

    def container_keys(self, layers: list[list[int]]) -> dict[tuple, float]:
        acc: dict[tuple, list[float]] = defaultdict(lambda: [0.0, 0.0])
        for layer in layers:
            n = len(layer)
            for p, i in enumerate(layer):
                path = self.paths[i]
                for d in range(1, len(path) + 1):
                    a = acc[path[:d]]
                    a[0] += (p + 0.5) / n
                    a[1] += 1
        return {k: s / c for k, (s, c) in acc.items()}

    def sort_layer(
        self,
        layers: list[list[int]],
        pos: list[int],
        L: int,
        nbrs: list[list[int]],
        other: int,
        use_median: bool,
        ck: dict[tuple, float],
    ) -> None:
        layer = layers[L]
        n = len(layer)
        m = max(1, len(layers[other]))
        value: dict[int, float] = {}
        for p, i in enumerate(layer):
            ns = nbrs[i]
            if len(ns) == 1:  # dummies: the common case
                value[i] = (pos[ns[0]] + 0.5) / m
            elif not ns:
                value[i] = (p + 0.5) / n
            elif use_median:
                value[i] = (_median([pos[j] for j in ns]) + 0.5) / m
            else:
                value[i] = (sum(pos[j] for j in ns) / len(ns) + 0.5) / m
        static = self.static
        if self.one_class:
            layer.sort(key=value.__getitem__)
        elif not self.nested:
            layer.sort(key=lambda i: (static[i], value[i]))
        else:
            paths = self.paths

            def key(i: int) -> tuple:
                path = paths[i]
                parts: list[Any] = [(static[i], "")]
                for d in range(1, len(path) + 1):
                    c = path[:d]
                    if c[-1][0] == "lane":
                        parts.append((float(c[-1][1]), ""))
                    else:
                        parts.append((ck.get(c, 0.5), str(c[-1][1])))
                parts.append((value[i], ""))
                parts.append((pos[i],))
                return tuple(parts)

            layer.sort(key=key)
        for p, i in enumerate(layer):
            pos[i] = p

    def count(self, state: tuple, pos: list[int]) -> int:
        """Crossings of the order ``state`` (one tuple per layer), whose positions ``pos`` holds."""
        total = 0
        remember = not self.large
        gap_counts = self.gap_counts
        for L, segs, pairs in self.counted_gaps:
            if remember:
                known = gap_counts[L]
                orders = (state[L], state[L + 1])
                c = known.get(orders)
                if c is not None:
                    total += c
                    continue
            if pairs is None:
                c = bilayer_crossings([(pos[a], pos[b]) for a, b in segs])
            else:
                # Two segments cross when their ends are in opposite orders.
                c = 0
                for a, b, e, f in pairs:
                    if (pos[a] - pos[e]) * (pos[b] - pos[f]) < 0:
                        c += 1
            if remember:
                known[orders] = c
            total += c
        return total

    def sweep(
        self, layers: list[list[int]], pos: list[int], downward: bool, use_median: bool
    ) -> None:
        if self.one_class:
            self._plain_sweep(layers, pos, downward, use_median)
            return
        ck = self.container_keys(layers) if self.nested else {}
        if downward:
            for L in range(1, len(layers)):
                self.sort_layer(layers, pos, L, self.up, L - 1, use_median, ck)
        else:
            for L in range(len(layers) - 2, -1, -1):
                self.sort_layer(layers, pos, L, self.down, L + 1, use_median, ck)

    def _plain_sweep(
        self, layers: list[list[int]], pos: list[int], downward: bool, use_median: bool
    ) -> None:
        """``sweep`` where every item may go anywhere in its layer (one class): the same
        values and the same stable sort as ``sort_layer``'s, without a call per layer.
        A layer of one item stays as it is, and two items are exchanged only when the
        right one's value is strictly lower, as the stable sort does."""
        nbrs = self.up if downward else self.down
        single = self.one_up if downward else self.one_down
        value = self.value
        step = -1 if downward else 1
        span = range(1, len(layers)) if downward else range(len(layers) - 2, -1, -1)
        for L in span:
            layer = layers[L]
            n = len(layer)
            if n < 2:
                continue
            m = max(1, len(layers[L + step]))
            for p, i in enumerate(layer):
                j = single[i]
                if j >= 0:
                    value[i] = (pos[j] + 0.5) / m
                    continue
                ns = nbrs[i]
                if not ns:
                    value[i] = (p + 0.5) / n
                elif use_median:
                    value[i] = (_median([pos[j] for j in ns]) + 0.5) / m
                else:
                    value[i] = (sum([pos[j] for j in ns]) / len(ns) + 0.5) / m
            if n == 2:
                a, b = layer
                if value[b] < value[a]:
                    layer[0], layer[1] = b, a
                    pos[a], pos[b] = 1, 0
                continue
            layer.sort(key=value.__getitem__)
            for p, i in enumerate(layer):
                pos[i] = p

    def transpose(
        self, layers: list[list[int]], pos: list[int], equal_swaps: bool, passes: int = 32
    ) -> bool:
        """Exchange neighbours while that lowers crossings (ties too when ``equal_swaps``),
        at most ``passes`` times over the layers that changed. Returns whether the order
        left has no exchange to make (by the same rule): the last pass made none, and
        every layer it skipped made none at its last walk, beside neighbours that have
        not moved since."""
        nl = len(layers)
        dirty = [True] * nl
        for _ in range(passes):
            any_swap = False
            moved = False
            next_dirty = [False] * nl
            for L in range(nl):
                if not dirty[L] or len(layers[L]) < 2:
                    continue
                swapped, improved = self._transpose_layer(layers[L], pos, equal_swaps)
                any_swap = any_swap or improved
                if swapped:
                    moved = True
                    # A layer's exchanges change the counts of its neighbours too.
                    next_dirty[L] = True
                    if L > 0:
                        next_dirty[L - 1] = True
                    if nl > L + 1:
                        next_dirty[L + 1] = True
            if not any_swap:
                return not moved
            dirty = next_dirty
        return False

    def _transpose_layer(
        self, layer: list[int], pos: list[int], equal_swaps: bool
    ) -> tuple[bool, bool]:
        """One pass of neighbour exchanges over a layer: (any exchange, any that lowered
        the crossings)."""
        up, down, cls = self.up, self.down, self.cls
        chain_up, chain_down = self.chain_up, self.chain_down
        check = not self.one_class
        swapped = improved = False
        # The left item ``u`` of each neighbour pair and, for chain items, the positions
        # of its neighbours above and below (fixed during the pass, as only this layer
        # moves); ``u`` stays when exchanged with ``v``, else ``v`` takes its place.
        u = layer[0]
        ua = chain_up[u]
        uc = ud = vc = vd = 0
        if ua >= 0:
            uc, ud = pos[ua], pos[chain_down[u]]
        for k in range(1, len(layer)):
            v = layer[k]
            va = chain_up[v]
            if va >= 0:
                vc, vd = pos[va], pos[chain_down[v]]
            if check and cls[u] != cls[v]:
                u, ua, uc, ud = v, va, vc, vd
                continue
            if ua >= 0 and va >= 0:
                # The common case inline: two items with one edge above and one below.
                before = (uc > vc) + (ud > vd)
                after = (uc < vc) + (ud < vd)
            else:
                before, after = _exchange_counts(pos, up[u], up[v], down[u], down[v])
            if after < before or (equal_swaps and after == before and before > 0):
                layer[k - 1], layer[k] = v, u
                pos[u], pos[v] = k, k - 1
                swapped = True
                improved = improved or after < before
            else:
                u, ua, uc, ud = v, va, vc, vd
        return swapped, improved

    # -- driver -------------------------------------------------------------------

    def improve(self, layers: list[list[int]], budget: int) -> tuple[list[list[int]], int, int]:
        """Sweep from one start; returns the best order, its crossing count and sweeps spent."""
        pos = [0] * len(self.items)
        for layer in layers:
            for p, i in enumerate(layer):
                pos[i] = p
        # A first downward pass puts every layer in container order.
        ck = self.container_keys(layers) if self.nested else {}
        if len(layers) > 1:
            self.sort_layer(layers, pos, 0, self.down, 1, False, ck)
        else:
            self.sort_layer(layers, pos, 0, self.up, 0, False, ck)
        self.sweep(layers, pos, True, False)
        best = [list(layer) for layer in layers]
        state = tuple(map(tuple, layers))
        best_c = self.count(state, pos)
        spent = 1
        stale = 0
        it = 0
        stale_lists = False  # ``layers`` and ``pos`` lag behind ``state`` after memo hits
        while (
            best_c > self.floor
            and spent < budget
            and it < self.opts.order_sweeps
            and stale < self.opts.order_patience
        ):
            step = self.steps.get((state, it % 4))
            if step is None:
                if stale_lists:
                    layers = [list(layer) for layer in state]
                    for layer in layers:
                        for p, i in enumerate(layer):
                            pos[i] = p
                step, stale_lists = self._step(state, layers, pos, it)
            else:
                stale_lists = True
            state, c = step
            spent += 1
            it += 1
            if c < best_c:
                best_c = c
                best = [list(layer) for layer in state]
                stale = 0
            else:
                stale += 1
        return best, best_c, spent

    def _step(
        self, state: tuple, layers: list[list[int]], pos: list[int], it: int
    ) -> tuple[tuple[tuple, int], bool]:
        """Sweep ``it`` and its transposition on ``layers`` (which hold ``state``, their
        positions in ``pos``): the order it leaves and that order's crossings,
        remembered in ``steps``; and whether ``layers`` and ``pos`` stayed behind that
        order (the swept order's transposition was known)."""
        self.sweep(layers, pos, it % 2 == 1, (it // 2) % 2 == 0)
        equal_swaps = it % 4 == 3
        if self.large:
            self.transpose(layers, pos, equal_swaps, passes=1)
            after = tuple(map(tuple, layers))
            return (after, self.count(after, pos)), False
        swept = (tuple(map(tuple, layers)), equal_swaps)
        step = self.transposed.get(swept)
        behind = step is not None
        if step is None:
            settled = self.transpose(layers, pos, equal_swaps)
            after = tuple(map(tuple, layers))
            step = self.transposed[swept] = (after, self.count(after, pos))
            if settled:
                # Transposing the order left again leaves it as it is, and so does
                # transposing it without ties when no tie was left either.
                self.transposed.setdefault((after, equal_swaps), step)
                self.transposed.setdefault((after, False), step)
        self.steps[(state, it % 4)] = step
        return step, behind

    def run(self) -> list[list[int]]:
        size = len(self.items) + len(self.h.segments)
        # Even the largest graphs give both depth-first starts a few sweeps each;
        # above ``order_items`` items only those two starts run, with
        # ``order_large_sweeps`` sweeps in all and one transposition pass per sweep,
        # so ordering time stays linear in the hierarchy.
        sweeps_total = max(8, int(self.opts.order_work / max(1, size) ** 0.5))
        if self.large:
            sweeps_total = self.opts.order_large_sweeps
        best: list[list[int]] | None = None
        best_c = -1
        spent = 0
        k = 0
        while True:
            if k < 2:
                # The depth-first starts, from the top then from the bottom; the second
                # is built only when the first leaves crossings to remove.
                start = self.dfs_start(k == 0)
            elif k < self.opts.order_starts and spent < sweeps_total and not self.large:
                start = self.shuffled_start(k)
            else:
                break
            left = max(self.opts.order_sweeps // 2, sweeps_total - spent)
            if self.large:
                left = max(2, sweeps_total // 2)
            order, c, used = self.improve(start, left)
            spent += used
            k += 1
            if best is None or c < best_c:
                best, best_c = order, c
            if k == PROOF_AFTER and best_c > self.floor and self.provable:
                # The forced crossings are a loose floor; where the first starts stop
                # above it, a bounded search may show that no order crosses less, and
                # the later starts (which could only tie, and a tie keeps the first)
                # are skipped. Where it finds a better order or runs out of nodes,
                # nothing changes: the starts go on as before.
                found = _fewer_exist(self.h.layers, self.up, self.gap_floors, best_c, PROOF_NODES)
                if found is False:
                    self.floor = best_c
            if best_c <= self.floor:
                break  # no order crosses less: later starts could only tie
        assert best is not None
        return best


def order_layers(
    h: Hierarchy, seed_order: dict[str, int], opts: LayoutOptions = OPTIONS
) -> list[list[int]]:
    """Order every layer to keep crossings low; containers stay contiguous.

    Returns one list of item indices per layer, left to right. Deterministic
    for a given hierarchy and seed order.
    """
    return _Orderer(h, seed_order, opts).run()
