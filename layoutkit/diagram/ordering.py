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
        uppers: dict[int, set[int]] = defaultdict(set)
        for a, b in segs:
            uppers[b].add(a)
        shared: dict[tuple[int, int], int] = defaultdict(int)
        for us in uppers.values():
            if len(us) > 1:
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
            ups = [sorted(self.pos[a] for a in self.up[i]) for i in items]
            # x left of y: each edge of x crosses the edges of y that reach further left.
            cost = [[sum(bisect.bisect_left(uy, pa) for pa in ux) for uy in ups] for ux in ups]
        found = _LayerSearch(self, d, items, cost).place(acc)
        if not found:
            self.shown[(d, above)] = need
        return found


class _LayerSearch:
    """The items of one layer placed left to right (``_Proof``)."""

    def __init__(self, proof: _Proof, d: int, items: list[int], cost: list[list[int]]) -> None:
        s = len(items)
        self.proof, self.d, self.items, self.cost = proof, d, items, cost
        self.least = [[min(cost[x][y], cost[y][x]) for y in range(s)] for x in range(s)]
        self.left = [0] * s  # crossings with the placed items, were x placed next
        self.placed: list[int] = []
        self.rest = list(range(s))
        self.pairs = sum(self.least[x][y] for x in range(s) for y in range(x + 1, s))

    def place(self, cur: int) -> bool:
        proof, rest, placed, left = self.proof, self.rest, self.placed, self.left
        proof.nodes += 1
        if proof.nodes > proof.budget:
            raise _OutOfNodes
        if not rest:
            items = self.items
            if self.d == proof.mirror and items[placed[0]] > items[placed[-1]]:
                return False
            for p, x in enumerate(placed):
                proof.pos[items[x]] = p
            return proof.layer(self.d + 1, cur, tuple(items[x] for x in placed))
        fixed = sum(left[x] for x in rest)
        bound = proof.target - proof.below[self.d]
        pairs = self.pairs
        for v in list(rest):
            row, lv = self.cost[v], self.least[v]
            after = pairs
            ahead = fixed - left[v]
            for x in rest:
                if x != v:
                    after -= lv[x]
                    ahead += row[x]
            now = cur + left[v]
            if now + ahead + after >= bound:
                continue
            rest.remove(v)
            placed.append(v)
            for x in rest:
                left[x] += row[x]
            self.pairs = after
            found = self.place(now)
            self.pairs = pairs
            for x in rest:
                left[x] -= row[x]
            placed.pop()
            rest.insert(bisect.bisect_left(rest, v), v)
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
        self.items = h.items
        n = len(h.items)
        self.up: list[list[int]] = [[] for _ in range(n)]
        self.down: list[list[int]] = [[] for _ in range(n)]
        for a, b, _ in h.segments:
            self.down[a].append(b)
            self.up[b].append(a)
        self.seed_order = seed_order
        # Items with exactly one edge above and one below (dummies of long edges, most
        # items of a dense hierarchy): transposition counts their exchanges inline.
        self.chain = [len(self.up[i]) == 1 and len(self.down[i]) == 1 for i in range(n)]
        # Segments per layer gap, for the exact count.
        self.gaps: list[list[tuple[int, int]]] = [[] for _ in h.layers]
        for a, b, _ in h.segments:
            self.gaps[h.items[a].layer].append((a, b))
        # Small gaps are counted pair by pair (fewer steps than sorting for a handful
        # of segments), larger ones by ``bilayer_crossings``; the counts are the same.
        self.big_gaps = [segs for segs in self.gaps if len(segs) > PAIRWISE_SEGMENTS]
        self.gap_pairs = [
            (a, b, c, d)
            for segs in self.gaps
            if len(segs) <= PAIRWISE_SEGMENTS
            for k, (a, b) in enumerate(segs)
            for c, d in segs[k + 1 :]
        ]
        self.static = [float(it.comp) for it in h.items]
        self.paths = [it.path for it in h.items]
        self.nested = any(it.path for it in h.items)
        # Neighbours may be exchanged when they share container path and component.
        classes: dict[tuple, int] = {}
        self.cls = [classes.setdefault((it.path, it.comp), len(classes)) for it in h.items]
        self.one_class = len(classes) <= 1
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

    # -- starts -------------------------------------------------------------------

    def dfs_start(self, from_top: bool) -> list[list[int]]:
        items = self.items
        nbr = self.down if from_top else self.up
        rank = [0] * len(items)
        seen = [False] * len(items)
        counter = 0
        sign = 1 if from_top else -1
        starts = sorted(
            range(len(items)),
            key=lambda i: (sign * items[i].layer, self.seed_order.get(items[i].name, 0), i),
        )
        for s in starts:
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
        return [sorted(layer, key=lambda i: rank[i]) for layer in self.h.layers]

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

    def count(self, pos: list[int]) -> int:
        total = 0
        for segs in self.big_gaps:
            total += bilayer_crossings([(pos[a], pos[b]) for a, b in segs])
        for a, b, c, d in self.gap_pairs:
            # Two segments cross when their ends are in opposite orders; a shared end
            # makes the product zero, as it never counts.
            if (pos[a] - pos[c]) * (pos[b] - pos[d]) < 0:
                total += 1
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
        step = -1 if downward else 1
        span = range(1, len(layers)) if downward else range(len(layers) - 2, -1, -1)
        for L in span:
            layer = layers[L]
            n = len(layer)
            if n < 2:
                continue
            m = max(1, len(layers[L + step]))
            value: dict[int, float] = {}
            for p, i in enumerate(layer):
                ns = nbrs[i]
                k = len(ns)
                if k == 1:
                    value[i] = (pos[ns[0]] + 0.5) / m
                elif not k:
                    value[i] = (p + 0.5) / n
                elif use_median:
                    value[i] = (_median([pos[j] for j in ns]) + 0.5) / m
                else:
                    value[i] = (sum(pos[j] for j in ns) / k + 0.5) / m
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
    ) -> None:
        """Exchange neighbours while that lowers crossings (ties too when ``equal_swaps``),
        at most ``passes`` times over the layers that changed."""
        nl = len(layers)
        dirty = [True] * nl
        for _ in range(passes):
            any_swap = False
            next_dirty = [False] * nl
            for L in range(nl):
                if not dirty[L] or len(layers[L]) < 2:
                    continue
                swapped, improved = self._transpose_layer(layers[L], pos, equal_swaps)
                any_swap = any_swap or improved
                if swapped:
                    # A layer's exchanges change the counts of its neighbours too.
                    next_dirty[L] = True
                    if L > 0:
                        next_dirty[L - 1] = True
                    if nl > L + 1:
                        next_dirty[L + 1] = True
            if not any_swap:
                break
            dirty = next_dirty

    def _transpose_layer(
        self, layer: list[int], pos: list[int], equal_swaps: bool
    ) -> tuple[bool, bool]:
        """One pass of neighbour exchanges over a layer: (any exchange, any that lowered
        the crossings)."""
        up, down, cls, chain = self.up, self.down, self.cls, self.chain
        check = not self.one_class
        swapped = improved = False
        for k in range(len(layer) - 1):
            u, v = layer[k], layer[k + 1]
            if check and cls[u] != cls[v]:
                continue
            if chain[u] and chain[v]:
                # The common case inline: two items with one edge above and one below.
                pa, pb, pc, pd = pos[up[u][0]], pos[up[v][0]], pos[down[u][0]], pos[down[v][0]]
                before = (pa > pb) + (pc > pd)
                after = (pa < pb) + (pc < pd)
            else:
                before, after = _exchange_counts(pos, up[u], up[v], down[u], down[v])
            if after < before or (equal_swaps and after == before and before > 0):
                layer[k], layer[k + 1] = v, u
                pos[u], pos[v] = k + 1, k
                swapped = True
                improved = improved or after < before
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
        best_c = self.count(pos)
        spent = 1
        stale = 0
        it = 0
        state = tuple(map(tuple, layers))
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
                    stale_lists = False
                step = self._step(state, layers, pos, it)
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
    ) -> tuple[tuple, int]:
        """Sweep ``it`` and its transposition on ``layers`` (which hold ``state``; ``pos``
        is set from them): the order it leaves and that order's crossings, remembered
        in ``steps``."""
        key = (state, it % 4)
        for layer in layers:
            for p, i in enumerate(layer):
                pos[i] = p
        self.sweep(layers, pos, it % 2 == 1, (it // 2) % 2 == 0)
        self.transpose(layers, pos, equal_swaps=it % 4 == 3, passes=1 if self.large else 32)
        step = (tuple(map(tuple, layers)), self.count(pos))
        if not self.large:
            self.steps[key] = step
        return step

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
