"""Coordinate assignment and orthogonal routing for an ordered hierarchy (top-down frame)."""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Any

import attrs
import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix

from layoutkit.diagram.layered import Hierarchy
from layoutkit.diagram.options import OPTIONS, LayoutOptions

STUB = 12.0


@attrs.define
class Placed:
    x: list[float]  # item centres
    frames_x: dict[tuple, tuple[float, float]]  # container key -> (left, right)
    out_off: dict[int, float]  # segment index -> exit offset at its upper item
    in_off: dict[int, float]  # segment index -> entry offset at its lower item


def port_offsets(
    h: Hierarchy,
    layers: list[list[int]],
    ports: dict[int, dict[str, Any]],
    opts: LayoutOptions = OPTIONS,
) -> tuple[dict[int, float], dict[int, float]]:
    """Spread the edge ends over the bottom (out) and top (in) sides, ordered by the far end.

    ``ports[edge]`` may pin an end: ``{"src": (side, t), "dst": (side, t)}`` in the
    top-down frame, with ``t`` the fraction along the side.
    """
    pos: dict[int, int] = {}
    for layer in layers:
        for p, i in enumerate(layer):
            pos[i] = p
    items = h.items
    outs: dict[int, list[int]] = defaultdict(list)
    ins: dict[int, list[int]] = defaultdict(list)
    for s, (a, b, _k) in enumerate(h.segments):
        outs[a].append(s)
        ins[b].append(s)
    out_off: dict[int, float] = {}
    in_off: dict[int, float] = {}

    def pinned(s: int, upper: bool) -> tuple[str, float] | None:
        k = h.segments[s][2]
        spec = ports.get(k)
        if not spec:
            return None
        rev = k in h.reversed
        end = ("dst" if rev else "src") if upper else ("src" if rev else "dst")
        return spec.get(end)

    for table, groups, upper in ((out_off, outs, True), (in_off, ins, False)):
        for i, segs in groups.items():
            it = items[i]
            if it.kind != "node":
                for s in segs:
                    table[s] = _line_offset(it)
                continue
            free = []
            for s in segs:
                pin = pinned(s, upper)
                if pin is None:
                    free.append(s)
                else:
                    table[s] = _pin_offset(pin, it.w, upper)
            far = (
                (lambda s: (pos[h.segments[s][1]], h.segments[s][2]))
                if upper
                else (lambda s: (pos[h.segments[s][0]], h.segments[s][2]))
            )
            free.sort(key=far)
            n = len(free)
            step = min(opts.port_step, it.w / (n + 1)) if n else 0
            for j, s in enumerate(free):
                table[s] = (j - (n - 1) / 2) * step
    return out_off, in_off


def _line_offset(it: Any) -> float:
    # A label holder carries its edge along its left side, the label to the right.
    return -it.w / 2 if it.kind == "label" else 0.0


def _pin_offset(pin: tuple[str, float], w: float, upper: bool) -> float:
    side, t = pin
    if side == ("bottom" if upper else "top"):
        return (t - 0.5) * w
    if side == "left":
        return -w / 2 - STUB
    # right, or the far side: step out and go round on the right
    return w / 2 + STUB


def assign_x(
    h: Hierarchy,
    layers: list[list[int]],
    out_off: dict[int, float],
    in_off: dict[int, float],
    titles: dict[tuple, float],
    opts: LayoutOptions = OPTIONS,
) -> Placed:
    """Horizontal centres that keep edges straight and short (LP, like network-simplex placement).

    Containers (lanes, groups) get left/right variables so their members stay
    inside and everybody else stays outside in every layer they span.
    """
    items = h.items
    n = len(items)
    keys: dict[tuple, int] = {}
    for it in items:
        for d in range(1, len(it.path) + 1):
            keys.setdefault(it.path[:d], len(keys))
    nc = len(keys)
    m = len(h.segments)
    nv = n + 2 * nc + m
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    rhs: list[float] = []
    r = 0

    def le(terms: list[tuple[int, float]], bound: float) -> None:
        nonlocal r
        for c, v in terms:
            rows.append(r)
            cols.append(c)
            vals.append(v)
        rhs.append(bound)
        r += 1

    def L(key: tuple) -> int:
        return n + 2 * keys[key]

    def R(key: tuple) -> int:
        return n + 2 * keys[key] + 1

    pad = opts.group_pad
    cost = np.zeros(nv)
    cost[:n] = 1e-3
    for ci in keys.values():
        cost[n + 2 * ci] = -0.05
        cost[n + 2 * ci + 1] = 0.05
    for s, (a, b, _k) in enumerate(h.segments):
        t = n + 2 * nc + s
        ka, kb = items[a].kind != "node", items[b].kind != "node"
        cost[t] = 8.0 if ka and kb else 2.0 if ka or kb else 1.0
        oa, ob = out_off.get(s, 0.0), in_off.get(s, 0.0)
        le([(a, 1.0), (b, -1.0), (t, -1.0)], ob - oa)
        le([(a, -1.0), (b, 1.0), (t, -1.0)], oa - ob)

    def gap_between(ia: Any, ib: Any) -> float:
        if ia.kind == "node" and ib.kind == "node":
            return opts.node_gap
        if ia.kind == "hold" or ib.kind == "hold":
            return 0.0
        return opts.dummy_gap

    for layer in layers:
        for p, i in enumerate(layer):
            it = items[i]
            half_r = it.w / 2 + it.extra_right
            if it.path:
                inner = it.path
                le([(L(inner), 1.0), (i, -1.0)], -(it.w / 2 + pad))
                le([(i, 1.0), (R(inner), -1.0)], -(half_r + pad))
            if p == 0:
                continue
            j = layer[p - 1]
            jt = items[j]
            common = 0
            while (
                common < len(jt.path)
                and common < len(it.path)
                and jt.path[common] == it.path[common]
            ):
                common += 1
            closing = [jt.path[:d] for d in range(len(jt.path), common, -1)]
            opening = [it.path[:d] for d in range(common + 1, len(it.path) + 1)]
            prev_var, prev_off = j, jt.w / 2 + jt.extra_right
            for c in closing:
                le([(prev_var, 1.0), (R(c), -1.0)], -(prev_off + pad))
                prev_var, prev_off = R(c), 0.0
            if closing or opening:
                boundary = opening[0] if opening else closing[-1]
                between = opts.lane_gap if boundary[-1][0] == "lane" else opts.node_gap / 2
            else:
                between = gap_between(jt, it)
            for c in opening:
                le([(prev_var, 1.0), (L(c), -1.0)], -(prev_off + between))
                prev_var, prev_off, between = L(c), 0.0, pad
            le([(prev_var, 1.0), (i, -1.0)], -(prev_off + it.w / 2 + between))
    for key in keys:
        if len(key) > 1:
            parent = key[:-1]
            le([(L(parent), 1.0), (L(key), -1.0)], -pad)
            le([(R(key), 1.0), (R(parent), -1.0)], -pad)
        tw = titles.get(key, 0.0)
        if tw:
            le([(L(key), 1.0), (R(key), -1.0)], -(tw + 2 * pad))
    lanes = sorted((k for k in keys if len(k) == 1 and k[0][0] == "lane"), key=lambda k: k[0][1])
    for a, b in itertools.pairwise(lanes):
        le([(R(a), 1.0), (L(b), -1.0)], -opts.lane_gap)
    if nv == 0:  # a diagram with nothing in it: there is nothing to place
        return Placed([], {}, out_off, in_off)
    a_ub = coo_matrix((vals, (rows, cols)), shape=(r, nv)).tocsr()
    res = linprog(cost, A_ub=a_ub, b_ub=np.array(rhs), bounds=(0, None), method="highs-ds")
    if not res.success:
        res = linprog(cost, A_ub=a_ub, b_ub=np.array(rhs), bounds=(0, None), method="highs")
    sol = np.round(res.x, 3) if res.success else np.zeros(nv)
    x = [float(v) for v in sol[:n]]
    frames = {key: (float(sol[L(key)]), float(sol[R(key)])) for key in keys}
    return Placed(x, frames, out_off, in_off)


# -- routing -------------------------------------------------------------------------


def straighten(
    h: Hierarchy, pl: Placed, opts: LayoutOptions = OPTIONS
) -> dict[int, tuple[float, float]]:
    """Drawn x of both ends of every segment, with sub-pixel jogs snapped away.

    Walks each edge chain from its upper end; a lower end closer than ``opts.snap``
    to the line arriving from above takes that line's x, so the chain stays one
    straight vertical instead of jogging by a fraction of a pixel.
    """
    seg_of: dict[tuple[int, int], int] = {}
    for s, (a, _b, k) in enumerate(h.segments):
        seg_of[(k, a)] = s
    ends: dict[int, tuple[float, float]] = {}
    for k, chain in h.chains.items():
        carried: float | None = None
        for a in chain[:-1]:
            s = seg_of[(k, a)]
            b = h.segments[s][1]
            xa = pl.x[a] + pl.out_off.get(s, 0.0)
            if carried is not None and abs(carried - xa) < opts.snap:
                xa = carried
            xb = pl.x[b] + pl.in_off.get(s, 0.0)
            if abs(xa - xb) < opts.snap:
                xb = xa
            ends[s] = (xa, xb)
            # Through dummies and label holders the line keeps its x.
            carried = xb
    _unswap(h, ends, seg_of, opts)
    return ends


def _unswap(
    h: Hierarchy,
    ends: dict[int, tuple[float, float]],
    seg_of: dict[tuple[int, int], int],
    opts: LayoutOptions,
) -> None:
    """Give two lines that trade columns in one gap a clean single crossing.

    When segment s runs x1 -> x2 and t runs x2 -> x1, their verticals share
    both columns and any track order makes them touch twice. Shifting one of
    the four column ends sideways by ``opts.unswap`` leaves one crossing.
    Only a straight run of dummies bounded by jogs on both sides is shifted,
    so no new jog appears and no node end moves.
    """
    items = h.items
    place: dict[int, tuple[int, int]] = {}  # segment -> (edge, position in its chain)
    for k, chain in h.chains.items():
        for j, a in enumerate(chain[:-1]):
            place[seg_of[(k, a)]] = (k, j)
    touch = opts.touch
    per_gap: dict[int, list[int]] = defaultdict(list)
    for s, (a, _b, _k) in enumerate(h.segments):
        if ends[s][0] != ends[s][1]:
            per_gap[items[a].layer].append(s)

    def run_of(k: int, first: int, step: int) -> list[int] | None:
        """Chain positions of the straight dummy run starting at ``first``, walking ``step``."""
        chain = h.chains[k]
        run = []
        p = first
        while 0 < p < len(chain) - 1 and items[chain[p]].kind == "dummy":
            run.append(p)
            nxt = p + step
            seg = seg_of[(k, chain[min(p, nxt)])]
            if ends[seg][0] != ends[seg][1]:
                return run  # bounded by a jog
            p = nxt
        return None  # reaches a node or label holder

    def shift(k: int, run: list[int], dx: float) -> bool:
        chain = h.chains[k]
        lo, hi = min(run), max(run)
        enter = seg_of[(k, chain[lo - 1])]
        leave = seg_of[(k, chain[hi])]
        x = ends[enter][1] + dx
        if abs(ends[enter][0] - x) < opts.snap or abs(ends[leave][1] - x) < opts.snap:
            return False
        ends[enter] = (ends[enter][0], x)
        for p in range(lo, hi):
            ends[seg_of[(k, chain[p])]] = (x, x)
        ends[leave] = (x, ends[leave][1])
        return True

    for gap in sorted(per_gap):
        segs = sorted(per_gap[gap])
        by_top: dict[int, list[int]] = defaultdict(list)
        for t in segs:
            by_top[round(ends[t][0])].append(t)
        for s in segs:
            xa, xb = ends[s]
            for t in by_top.get(round(xb), []):
                ta, tb = ends[t]
                if t == s or abs(ta - xb) > touch or abs(tb - xa) > touch:
                    continue
                (ks, js), (kt, jt) = place[s], place[t]
                # Try the four column ends: below s, above s, below t, above t.
                for k, first, step in (
                    (ks, js + 1, 1),
                    (ks, js, -1),
                    (kt, jt + 1, 1),
                    (kt, jt, -1),
                ):
                    run = run_of(k, first, step)
                    if run and shift(k, run, opts.unswap):
                        break


def plan_tracks(
    h: Hierarchy,
    layers: list[list[int]],
    ends: dict[int, tuple[float, float]],
    opts: LayoutOptions = OPTIONS,
) -> tuple[dict[int, int], list[int]]:
    """Track index per bending segment and the track count per layer gap.

    In each gap the bending segments are ordered top to bottom so that the
    drawn polylines cross (or touch) as little as possible, counting only pairs
    of edges that share no end node, then packed onto as few tracks as the
    ordering allows.
    """
    per_gap: dict[int, list[int]] = defaultdict(list)
    for s, (a, _b, _k) in enumerate(h.segments):
        xa, xb = ends[s]
        if xa != xb:
            per_gap[h.items[a].layer].append(s)
    end_nodes: dict[int, tuple[int, int]] = {k: (c[0], c[-1]) for k, c in h.chains.items()}
    track: dict[int, int] = {}
    counts = [0] * max(1, len(layers))
    margin = opts.track_gap / 2
    for gap in sorted(per_gap):
        segs = sorted(per_gap[gap], key=lambda s: (min(ends[s]), s))
        order = _order_tracks(segs, ends, [end_nodes[h.segments[s][2]] for s in segs], opts.touch)
        placed: list[tuple[float, float, int]] = []
        for s in order:
            xa, xb = ends[s]
            lo, hi = min(xa, xb) - margin, max(xa, xb) + margin
            t = 0
            for plo, phi, pt in placed:
                if plo < hi and lo < phi and pt + 1 > t:
                    t = pt + 1
            track[s] = t
            placed.append((lo, hi, t))
            counts[gap] = max(counts[gap], t + 1)
    return track, counts


def _order_tracks(
    segs: list[int],
    ends: dict[int, tuple[float, float]],
    nodes: list[tuple[int, int]],
    touch: float = OPTIONS.touch,
) -> list[int]:
    """Top-to-bottom order of one gap's bending segments with few crossings (sifting)."""
    n = len(segs)
    if n < 2:
        return list(segs)
    a = np.array([ends[s][0] for s in segs])
    b = np.array([ends[s][1] for s in segs])
    lo = np.minimum(a, b) - touch
    hi = np.maximum(a, b) + touch
    # cost[i, j]: points where i and j meet when i runs on a track above j. The
    # upper vertical of j meets i's track; the lower vertical of i meets j's track.
    cost = ((lo[:, None] <= a[None, :]) & (a[None, :] <= hi[:, None])).astype(np.int32)
    cost += (lo[None, :] <= b[:, None]) & (b[:, None] <= hi[None, :])
    u = np.array([p[0] for p in nodes])
    v = np.array([p[1] for p in nodes])
    shared = (u[:, None] == u[None, :]) | (u[:, None] == v[None, :])
    shared |= (v[:, None] == u[None, :]) | (v[:, None] == v[None, :])
    cost[shared] = 0
    order = list(range(n))
    for _ in range(8):
        moved = False
        for e in range(n):
            q = order.index(e)
            del order[q]
            idx = np.array(order, dtype=np.intp)
            above = np.concatenate(([0], np.cumsum(cost[idx, e])))  # the others above e
            below = np.concatenate(([0], np.cumsum(cost[e, idx])))
            total = above + (below[-1] - below)
            p = int(np.argmin(total))
            if total[p] < total[q]:
                order.insert(p, e)
                moved = True
            else:
                order.insert(q, e)
        if not moved:
            break
    return [segs[i] for i in order]
