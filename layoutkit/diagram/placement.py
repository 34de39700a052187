"""Coordinate assignment and orthogonal routing for an ordered hierarchy (top-down frame)."""

from __future__ import annotations

import itertools
import math
import operator
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import attrs
import numpy as np

from layoutkit.diagram import _lp
from layoutkit.diagram.hierarchy import Hierarchy, Item
from layoutkit.diagram.options import OPTIONS, LayoutOptions

STUB = 12.0
STIFF = 10.0


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
    fixed: frozenset[str] = frozenset(),
) -> tuple[dict[int, float], dict[int, float]]:
    """Spread the edge ends over the bottom (out) and top (in) sides, ordered by the far end.

    A node too narrow for its ends is widened, except the ``fixed`` ones (markers such
    as a choice diamond, whose edges meet at a point as in Mermaid).

    ``ports[edge]`` may pin an end: ``{"src": (side, t), "dst": (side, t)}`` in the
    top-down frame, with ``t`` the fraction along the side.
    """
    pos = {i: p for layer in layers for p, i in enumerate(layer)}
    items, segments = h.items, h.segments
    outs: dict[int, list[int]] = defaultdict(list)
    ins: dict[int, list[int]] = defaultdict(list)
    for s, (a, b, _k) in enumerate(segments):
        outs[a].append(s)
        ins[b].append(s)
    out_pins, in_pins = _end_pins(h, ports)
    _widen_for_ends(items, ((outs, out_pins), (ins, in_pins)), fixed)
    out_off: dict[int, float] = {}
    in_off: dict[int, float] = {}
    port_step = opts.port_step
    # ``far``: the index, in a segment, of the end that orders a side's ends.
    for table, groups, pins, upper, far in (
        (out_off, outs, out_pins, True, 1),
        (in_off, ins, in_pins, False, 0),
    ):
        for i, segs in groups.items():
            it = items[i]
            if it.kind != "node":
                off = _line_offset(it)
                for s in segs:
                    table[s] = off
                continue
            free = _place_pinned(table, segs, pins, it.w, upper) if pins else segs
            n = len(free)
            if n == 1:  # a lone end in the middle (the spread below gives it 0.0 too)
                table[free[0]] = 0.0
            elif n:
                free = sorted(free, key=lambda s: (pos[segments[s][far]], segments[s][2]))
                step = min(port_step, it.w / (n + 1))
                mid = (n - 1) / 2
                for j, s in enumerate(free):
                    table[s] = (j - mid) * step
    return out_off, in_off


def _end_pins(
    h: Hierarchy, ports: dict[int, dict[str, Any]]
) -> tuple[dict[int, tuple[str, float]], dict[int, tuple[str, float]]]:
    """The pinned (side, t) per segment of its upper ends and of its lower ends, read
    once; most diagrams pin none, and then every end is free."""
    out_pins: dict[int, tuple[str, float]] = {}
    in_pins: dict[int, tuple[str, float]] = {}
    if ports:
        for s in range(len(h.segments)):
            if (pin := _pin(h, ports, s, True)) is not None:
                out_pins[s] = pin
            if (pin := _pin(h, ports, s, False)) is not None:
                in_pins[s] = pin
    return out_pins, in_pins


def _place_pinned(
    table: dict[int, float],
    segs: list[int],
    pins: dict[int, tuple[str, float]],
    w: float,
    upper: bool,
) -> list[int]:
    """Offsets of one side's pinned ends into ``table``; the free ends, in their order."""
    free = []
    for s in segs:
        pin = pins.get(s)
        if pin is None:
            free.append(s)
        else:
            table[s] = _pin_offset(pin, w, upper)
    return free


def slide_ends(
    h: Hierarchy,
    placed: Placed,
    ports: dict[int, dict[str, Any]],
    fixed: frozenset[str] = frozenset(),
    opts: LayoutOptions = OPTIONS,
) -> Placed:
    """Above ``opts.exact_items`` items: each free edge end slides along its node's side
    toward the other end, so a jogging edge leaves and meets its nodes nearer each other,
    as dot's clipped splines do, and one whose ends come within reach drops straight.

    The ends of one side keep their order (that of their far ends, from
    ``port_offsets``) and their spacing, and stay that spacing from the corners. Sides
    with a pinned end (``ports``, as ``port_offsets`` reads them) and ``fixed`` markers keep theirs.
    Placement is not redone: the centres stay, only the attachment points move, so a
    route gets no longer (its ends move toward each other) unless crowding holds one back.
    """
    if len(h.items) <= opts.exact_items:
        return placed
    items, x = h.items, placed.x
    out_off, in_off = dict(placed.out_off), dict(placed.in_off)
    free = [it.kind == "node" and it.name not in fixed for it in items]
    sides: dict[tuple[int, bool], list[int]] = defaultdict(list)
    for s, (a, b, _k) in enumerate(h.segments):
        if free[a]:
            sides[(a, True)].append(s)
        if free[b]:
            sides[(b, False)].append(s)
    reach: dict[tuple[int, bool], tuple[float, float]] = {}  # side -> (half span, step)
    for (i, upper), segs in sides.items():
        it = items[i]
        if ports and any(_pin(h, ports, s, upper) for s in segs):
            continue
        step = min(opts.port_step, it.w / (len(segs) + 1))
        reach[(i, upper)] = (it.w / 2 - step, step)

    def span(i: int, upper: bool, s: int) -> tuple[float, float]:
        got = reach.get((i, upper))
        if got is None:
            at = x[i] + (out_off if upper else in_off).get(s, 0.0)
            return at, at
        return x[i] - got[0], x[i] + got[0]

    want: dict[tuple[int, bool], float] = {}  # (segment, upper end) -> wanted x
    for s, (a, b, _k) in enumerate(h.segments):
        if (a, True) not in reach and (b, False) not in reach:
            continue  # no end of it slides (between two dummies, say)
        (a0, a1), (b0, b1) = span(a, True, s), span(b, False, s)
        if max(a0, b0) <= min(a1, b1):  # within reach of each other: one vertical
            now = (x[a] + out_off.get(s, 0.0) + x[b] + in_off.get(s, 0.0)) / 2
            want[(s, True)] = want[(s, False)] = min(max(now, a0, b0), a1, b1)
        else:
            want[(s, True)] = min(max(b0, a0), a1)
            want[(s, False)] = min(max(a0, b0), b1)
    for (i, upper), (half, step) in reach.items():
        table = out_off if upper else in_off
        segs = sorted(sides[(i, upper)], key=lambda s: table.get(s, 0.0))
        wanted = [want[(s, upper)] - x[i] for s in segs]
        table.update(zip(segs, _side_offsets(wanted, half, step), strict=True))
    return Placed(x, placed.frames_x, out_off, in_off)


def _side_offsets(want: list[float], half: float, step: float) -> list[float]:
    """Offsets of one side's ends, in their order, nearest ``want``: ``step`` apart and
    within ``half`` of the middle (the projection, then each pushed in from the corners)."""
    n = len(want)
    if n == 1:  # what the projection gives one end, without its numpy
        return [min(max(want[0], -half), half)]
    got = _project(want, [1.0] * n, [step] * (n - 1))
    return [min(max(got[p], -half + p * step), half - (n - 1 - p) * step) for p in range(n)]


def _pin(
    h: Hierarchy, ports: dict[int, dict[str, Any]], s: int, upper: bool
) -> tuple[str, float] | None:
    """The pinned (side, t) of segment ``s``'s upper or lower end, if its edge pins it."""
    k = h.segments[s][2]
    spec = ports.get(k)
    if not spec:
        return None
    rev = k in h.reversed
    end = ("dst" if rev else "src") if upper else ("src" if rev else "dst")
    return spec.get(end)


#: Least distance between two edge ends on one side: an arrowhead's width and a gap, so
#: neither two heads nor two wires leaving side by side run into each other.
END_STEP = 12.0


def _widen_for_ends(
    items: list[Any],
    sides: tuple[tuple[dict[int, list[int]], dict[int, Any]], ...],
    fixed: frozenset[str],
) -> None:
    """Widen a node whose side is too short for its free edge ends at ``END_STEP``: each
    side is the segments per item and the pins among them (a pinned end is not free)."""
    for groups, pins in sides:
        for i, segs in groups.items():
            it = items[i]
            if it.kind != "node" or len(segs) < 2 or it.name in fixed:
                continue
            n = len(segs) - sum(1 for s in segs if s in pins) if pins else len(segs)
            if n > 1:
                it.w = max(it.w, (n + 1) * END_STEP)


def _line_offset(it: Any) -> float:
    # A label holder carries its edge through its middle: the label sits on its own
    # edge (its backing box breaks the line), so two parallel edges never share one.
    return 0.0


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
    bands: dict[tuple, float] | None = None,
    weights: Mapping[int, float] | None = None,
    pulls: Sequence[tuple[int | tuple, int | tuple, float]] = (),
) -> Placed:
    """Horizontal centres that keep edges straight and short (LP, like network-simplex placement).

    Containers (lanes, groups) get left/right variables so their members stay
    inside and everybody else stays outside in every layer they span.
    ``weights`` scales how hard an edge (by index) holds its line. Each of
    ``pulls`` (end, end, weight) draws two centres together, an end being an item
    or a container key (the frame's middle): an edge to or from a group lines the
    frame up with the other end, so composites linked in a chain stack in a column.
    Large hierarchies (placed by sweeps) leave the pulls out.

    Above ``opts.placement_items`` items the LP (whose solve time grows much faster
    than the hierarchy) gives way to ``_place_by_sweeps``, which meets the same
    separation constraints with median sweeps and per-layer projections.
    """
    items = h.items
    n = len(items)
    sep = _Separations(h, layers, titles, opts, bands or {})
    nc = len(sep.keys)
    if n > opts.placement_items:
        return _place_by_sweeps(h, layers, out_off, in_off, sep, weights=weights or {})
    m = len(h.segments)
    pulls = [p for p in pulls if all(isinstance(e, int) or e in sep.keys for e in p[:2])]
    fans = _fans(h)
    nv = n + 2 * nc + m + len(pulls) + len(fans)
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    rhs: list[float] = []
    program = (rows, cols, vals, rhs)
    # Every item leans left a little, so an untied drawing has one answer.
    # A list while it is filled in (a numpy array's item assignment costs more).
    cost = [1e-3] * n + [0.0] * (nv - n)
    for ci in sep.keys.values():
        cost[n + 2 * ci] = -0.05
        cost[n + 2 * ci + 1] = 0.05
    first = n + 2 * nc
    if weights:
        for s, (a, b, k) in enumerate(h.segments):
            cost[first + s] = _segment_weight(items[a].kind, items[b].kind) * weights.get(k, 1.0)
    else:  # every edge at weight 1.0, which leaves each cost as it is
        for s, (a, b, _k) in enumerate(h.segments):
            cost[first + s] = _segment_weight(items[a].kind, items[b].kind)
    _segment_rows(h.segments, first, out_off, in_off, program)
    for j, (ea, eb, weight) in enumerate(pulls):
        t = n + 2 * nc + m + j
        cost[t] = weight
        # A pulled frame hugs its members harder than the pull, so it moves them
        # rather than widening one side to shift its middle.
        for end in (ea, eb):
            if not isinstance(end, int):
                cost[sep.left(end)] = min(cost[sep.left(end)], -weight)
                cost[sep.right(end)] = max(cost[sep.right(end)], weight)
        terms = [(c, v) for c, v in _centre(sep, ea)] + [(c, -v) for c, v in _centre(sep, eb)]
        _abs_rows([c for c, _v in terms], [v for _c, v in terms], t, program)
    _balance_fans(fans, n + 2 * nc + m + len(pulls), cost, program)
    for r, (p, q, gap) in enumerate(sep.rows, len(rhs)):
        rows += (r, r)
        cols += (p, q)
        vals += (1.0, -1.0)
        rhs.append(-gap)
    if nv == 0:  # a diagram with nothing in it: there is nothing to place
        return Placed([], {}, out_off, in_off)
    sol = _lp.minimise(cost, rows, cols, vals, rhs)
    if sol is None:
        sol = _lp.minimise(cost, rows, cols, vals, rhs, simplex=False)
    sol = sol.round(3) if sol is not None else np.zeros(nv)
    x = sol[:n].tolist()  # Python floats, as float() of each gives
    frames = {key: (float(sol[sep.left(key)]), float(sol[sep.right(key)])) for key in sep.keys}
    return Placed(x, frames, out_off, in_off)


def _segment_rows(
    segments: list[tuple[int, int, int]],
    first: int,
    out_off: dict[int, float],
    in_off: dict[int, float],
    program: tuple[list[int], list[int], list[float], list[float]],
) -> None:
    """``|x[a] + out - x[b] - in| <= t`` for each segment, ``t`` numbered from ``first``:
    two rows of three terms each, appended to the triplets and bounds of ``program``."""
    rows, cols, vals, rhs = program
    for s, (a, b, _k) in enumerate(segments):
        t = first + s
        oa, ob = out_off.get(s, 0.0), in_off.get(s, 0.0)
        r = len(rhs)
        rows += (r, r, r, r + 1, r + 1, r + 1)
        cols += (a, b, t, a, b, t)
        vals += (1.0, -1.0, -1.0, -1.0, 1.0, -1.0)
        rhs += (ob - oa, oa - ob)


#: The cost of a unit of imbalance of a fan (a node over its children, or under its
#: parents): above the leftward pull every item carries (1e-3), far below an edge's.
BALANCE = 0.02


def _abs_rows(
    terms: list[int],
    coefs: list[float],
    t: int,
    program: tuple[list[int], list[int], list[float], list[float]],
) -> None:
    """``|sum of coefs * x[terms]| <= x[t]``: the sum less ``x[t]`` at most 0, and its
    negation less ``x[t]`` at most 0, two rows appended to the triplets and bounds of
    ``program``."""
    rows, cols, vals, rhs = program
    r = len(rhs)
    k = len(terms) + 1
    rows += [r] * k
    rows += [r + 1] * k
    cols += terms
    cols.append(t)
    cols += terms
    cols.append(t)
    vals += coefs
    vals.append(-1.0)
    vals += map(operator.neg, coefs)
    vals.append(-1.0)
    rhs += (0.0, 0.0)


def _balance_fans(
    fans: list[tuple[int, list[int]]],
    first: int,
    cost: list[float],
    program: tuple[list[int], list[int], list[float], list[float]],
) -> None:
    """Where the edges leave a tie (any spot between two children costs the same), the
    hub sits over the middle of its children (under that of its parents), as dot's
    balancing does; the weight is far below an edge's, so it only breaks ties. Each fan
    takes one variable from ``first`` on, its distance from that middle."""
    for j, (hub, ends) in enumerate(fans):
        t = first + j
        cost[t] = BALANCE
        share = 1.0 / len(ends)
        _abs_rows([hub, *ends], [1.0] + [-share] * len(ends), t, program)


def _fans(h: Hierarchy) -> list[tuple[int, list[int]]]:
    """Each item with edges to two or more items below it, and each with edges from two
    or more above it, with those items. A label holder is looked past to the item its
    edge reaches, so a hub over two labelled edges sits over the middle of the states,
    not of the labels (which a tie may leave anywhere between hub and state); where
    that leaves one end (a two-state cycle, labelled both ways) the labels are the ends."""
    items = h.items
    below: dict[int, list[list[int]]] = defaultdict(list)  # hub -> chains leaving it
    above: dict[int, list[list[int]]] = defaultdict(list)  # hub -> chains reaching it
    for chain in h.chains.values():
        below[chain[0]].append(chain)
        above[chain[-1]].append(chain)
    fans: list[tuple[int, list[int]]] = []
    for upper, by_hub in ((True, below), (False, above)):
        for hub in sorted(by_hub):
            chains = by_hub[hub]
            if len(chains) < 2:
                continue  # one end however it is read
            near: set[int] = set()
            past: set[int] = set()
            for chain in chains:
                first = chain[1] if upper else chain[-2]
                near.add(first)
                if items[first].kind == "label":
                    first = _past_labels(items, chain, upper)
                past.add(first)
            ends = past if len(past) >= 2 else near
            if len(ends) >= 2:
                fans.append((hub, sorted(ends)))
    return fans


def _past_labels(items: list[Item], chain: list[int], upper: bool) -> int:
    """The first item of ``chain`` after (before) its hub, ``upper`` (not), that is no
    label holder; the last label holder if all are."""
    rest = chain[1:] if upper else chain[-2::-1]
    return next((i for i in rest if items[i].kind != "label"), rest[-1])


def _centre(sep: _Separations, end: int | tuple) -> list[tuple[int, float]]:
    """An item's x, or a container's middle, as LP terms."""
    if isinstance(end, int):
        return [(end, 1.0)]
    return [(sep.left(end), 0.5), (sep.right(end), 0.5)]


#: How much more a unit of shift costs below a label holder than above it.
LABEL_LEAN = 0.01


def _segment_weight(kind_a: str, kind_b: str) -> float:
    """How much a unit of sideways shift costs on a segment: long edges (dummy to
    dummy) most, so they stay straight verticals."""
    ka, kb = kind_a != "node", kind_b != "node"
    if ka and kb:
        return 8.0
    # A hair more below a label than above it: where the two tie, the label sits
    # over the item its edge reaches and the wire bends above it, as Mermaid draws.
    return 2.0 + LABEL_LEAN * (kind_a == "label") if ka or kb else 1.0


class _Separations:
    """The difference constraints of placement: ``x[q] >= x[p] + gap`` per row.

    Variables are the items, then a left and a right variable per container.
    ``pair_gap[(j, i)]`` is the least distance between the centres of the
    neighbours ``j``, ``i`` of one layer along the chain of constraints between
    them (closing and opening frames included).
    """

    def __init__(
        self,
        h: Hierarchy,
        layers: list[list[int]],
        titles: dict[tuple, float],
        opts: LayoutOptions,
        bands: dict[tuple, float] | None = None,
    ) -> None:
        # ``bands``: extra room on a container's left side (a left-right diagram's
        # frame title, which the turn puts on top).
        self.band = bands or {}
        self.opts = opts
        self.items = h.items
        self.n = len(h.items)
        self.keys: dict[tuple, int] = {}
        items = self.items
        for it in items:
            if it.path:
                for d in range(1, len(it.path) + 1):
                    self.keys.setdefault(it.path[:d], len(self.keys))
        self.rows: list[tuple[int, int, float]] = []
        self.pair_gap: dict[tuple[int, int], float] = {}
        for layer in layers:
            j = -1  # the left neighbour, none yet
            for i in layer:
                if items[i].path:
                    self._inside_rows(i)
                if j >= 0:
                    self._neighbour_rows(j, i)
                j = i
        self._container_rows(titles)

    def left(self, key: tuple) -> int:
        return self.n + 2 * self.keys[key]

    def right(self, key: tuple) -> int:
        return self.n + 2 * self.keys[key] + 1

    def _inside_rows(self, i: int) -> None:
        """Item ``i`` inside its innermost container (it has one)."""
        it = self.items[i]
        pad = self.opts.group_pad
        inner = it.path
        self.rows.append((self.left(inner), i, it.w / 2 + pad + self.band.get(inner, 0.0)))
        self.rows.append((i, self.right(inner), it.w / 2 + it.extra_right + pad))

    def _neighbour_rows(self, j: int, i: int) -> None:
        """Item ``i`` right of its left neighbour ``j``, past the frames that close after
        ``j`` and open before ``i``."""
        it, jt = self.items[i], self.items[j]
        if jt.path == it.path:  # no frame closes or opens between them: one row
            gap = jt.w / 2 + jt.extra_right + it.w / 2 + self._between_items(jt, it)
            self.rows.append((j, i, gap))
            self.pair_gap[(j, i)] = gap
            return
        rows, pad, band = self.rows, self.opts.group_pad, self.band
        common = 0
        while (
            common < len(jt.path) and common < len(it.path) and jt.path[common] == it.path[common]
        ):
            common += 1
        closing = [jt.path[:d] for d in range(len(jt.path), common, -1)]
        opening = [it.path[:d] for d in range(common + 1, len(it.path) + 1)]
        prev_var, prev_off = j, jt.w / 2 + jt.extra_right
        total = 0.0
        for c in closing:
            rows.append((prev_var, self.right(c), prev_off + pad))
            total += prev_off + pad
            prev_var, prev_off = self.right(c), 0.0
        between = self._between(closing, opening, jt, it)
        for c in opening:
            rows.append((prev_var, self.left(c), prev_off + between))
            total += prev_off + between
            prev_var, prev_off, between = self.left(c), 0.0, pad + band.get(c, 0.0)
        rows.append((prev_var, i, prev_off + it.w / 2 + between))
        self.pair_gap[(j, i)] = total + prev_off + it.w / 2 + between

    def _between(self, closing: list[tuple], opening: list[tuple], jt: Item, it: Item) -> float:
        """The gap at the first boundary between neighbours ``jt`` and ``it``."""
        opts = self.opts
        if closing or opening:
            boundary = opening[0] if opening else closing[-1]
            return opts.lane_gap if boundary[-1][0] == "lane" else opts.node_gap / 2
        return self._between_items(jt, it)

    def _between_items(self, jt: Item, it: Item) -> float:
        """The gap between neighbours ``jt`` and ``it`` with no frame boundary between."""
        opts = self.opts
        if jt.kind == "node" and it.kind == "node":
            return opts.node_gap
        if jt.kind == "hold" or it.kind == "hold":
            return 0.0
        return opts.dummy_gap

    def _container_rows(self, titles: dict[tuple, float]) -> None:
        """Containers nested in their parents, wide enough for their titles, lanes in order."""
        rows, pad, band = self.rows, self.opts.group_pad, self.band
        L, R = self.left, self.right
        for key in self.keys:
            if len(key) > 1:
                parent = key[:-1]
                rows.append((L(parent), L(key), pad + band.get(parent, 0.0)))
                rows.append((R(key), R(parent), pad))
            tw = titles.get(key, 0.0)
            if tw:
                rows.append((L(key), R(key), tw + 2 * pad))
        lanes = sorted(
            (k for k in self.keys if len(k) == 1 and k[0][0] == "lane"), key=lambda k: k[0][1]
        )
        for a, b in itertools.pairwise(lanes):
            rows.append((R(a), L(b), self.opts.lane_gap))


def _place_by_sweeps(
    h: Hierarchy,
    layers: list[list[int]],
    out_off: dict[int, float],
    in_off: dict[int, float],
    sep: _Separations,
    rounds: int = 8,
    weights: Mapping[int, float] | None = None,
) -> Placed:
    """Placement for large hierarchies in time linear in their size per round.

    Starts from the leftmost packing, then ``rounds`` sweeps (alternately down
    and up, the last two looking both ways) move every item toward the weighted
    mean of where its neighbours' edges would make its segments vertical; each
    layer is projected back onto its separations by pool-adjacent-violators
    (least squares under minimum gaps). Two passes over all constraints then
    make containers enclose their members and keep everybody else out, with
    each frame's left side as far right as its members allow.
    """
    n = sep.n
    nv = n + 2 * len(sep.keys)
    if nv == 0:
        return Placed([], {}, out_off, in_off)
    cons = _ConstraintGraph(sep.rows, nv)
    x = [0.0] * nv
    cons.push(x)
    sweeps = _Sweeps(h, layers, out_off, in_off, sep, weights or {})
    x[:n] = _settle(layers, sweeps, sep, sweeps.run(np.array(x[:n]), rounds).tolist())
    # Frames: lower bounds first, then each left side as far right as its contents allow.
    for key in sep.keys:
        x[sep.left(key)] = -math.inf
        x[sep.right(key)] = -math.inf
    cons.push(x)
    rank = {v: p for p, v in enumerate(cons.topo)}
    lefts = sorted((sep.left(k) for k in sep.keys), key=rank.__getitem__, reverse=True)
    for v in lefts:
        x[v] = min((x[q] - gap for q, gap in cons.succ[v]), default=x[v])
    cons.push(x)
    base = min(x)
    x = [round(v - base, 3) for v in x]
    frames = {key: (x[sep.left(key)], x[sep.right(key)]) for key in sep.keys}
    return Placed(x[:n], frames, out_off, in_off)


class _ConstraintGraph:
    """The separation rows as a graph over the variables, in Kahn's order."""

    def __init__(self, rows: list[tuple[int, int, float]], nv: int) -> None:
        self.nv = nv
        self.succ: list[list[tuple[int, float]]] = [[] for _ in range(nv)]
        indeg = [0] * nv
        for p, q, gap in rows:
            self.succ[p].append((q, gap))
            indeg[q] += 1
        topo = [v for v in range(nv) if indeg[v] == 0]
        for v in topo:  # Kahn's order; the list grows while it is walked
            for q, _gap in self.succ[v]:
                indeg[q] -= 1
                if indeg[q] == 0:
                    topo.append(q)
        if len(topo) < nv:  # contradictory constraints: place the rest in index order
            seen = set(topo)
            topo += [v for v in range(nv) if v not in seen]
        self.topo = topo
        self.lows = [-math.inf] * nv

    def push(self, x: list[float]) -> None:
        """Move each variable right until every constraint into it holds."""
        lows, succ = self.lows, self.succ
        for v in range(self.nv):
            lows[v] = -math.inf
        for v in self.topo:
            if lows[v] > x[v]:
                x[v] = lows[v]
            xv = x[v]
            for q, gap in succ[v]:
                if xv + gap > lows[q]:
                    lows[q] = xv + gap


class _Sweeps:
    """The median-like sweeps of ``_place_by_sweeps`` over the item centres."""

    def __init__(
        self,
        h: Hierarchy,
        layers: list[list[int]],
        out_off: dict[int, float],
        in_off: dict[int, float],
        sep: _Separations,
        weights: Mapping[int, float] | None = None,
    ) -> None:
        items = h.items
        self.layers = layers
        self.nl = len(layers)
        # Per layer and look direction, the segments pulling its items: the weighted
        # mean of where the neighbours would put an item is two bincounts.
        seg = h.segments
        self.a_idx = np.array([a for a, _, _ in seg], dtype=np.int64)
        self.b_idx = np.array([b for _, b, _ in seg], dtype=np.int64)
        self.wts = np.array(
            [
                _segment_weight(items[a].kind, items[b].kind) * (weights or {}).get(k, 1.0)
                for a, b, k in seg
            ]
        )
        # b sits straight below a's exit when x[b] = x[a] + shift.
        self.shift = np.array([out_off.get(s, 0.0) - in_off.get(s, 0.0) for s in range(len(seg))])
        self.layer_of = np.array([it.layer for it in items], dtype=np.int64)
        self.row_in_layer = np.zeros(sep.n, dtype=np.int64)
        for layer in layers:
            for p, i in enumerate(layer):
                self.row_in_layer[i] = p
        self.tables: dict[str, list[tuple[np.ndarray, ...]]] = {}
        # Edge lines hold their column harder than nodes, so long edges stay straight
        # and nodes move to them (what the LP's weights achieve).
        self.stiff = np.array([1.0 if it.kind == "node" else STIFF for it in items])
        self.offsets = [
            np.concatenate(
                (
                    [0.0],
                    np.cumsum([sep.pair_gap.get(pair, 0.0) for pair in itertools.pairwise(layer)]),
                )
            )
            for layer in layers
        ]

    def pull(self, looks: tuple[str, ...]) -> list[tuple[np.ndarray, ...]]:
        """Per layer: (row, other item, weight, weighted offset, total weight per row)."""
        parts = []
        for look in looks:
            if look == "up":
                me, other, sign = self.b_idx, self.a_idx, 1.0
            else:
                me, other, sign = self.a_idx, self.b_idx, -1.0
            parts.append((me, other, self.wts, self.wts * self.shift * sign))
        me = np.concatenate([p[0] for p in parts])
        other = np.concatenate([p[1] for p in parts])
        w = np.concatenate([p[2] for p in parts])
        off = np.concatenate([p[3] for p in parts])
        by = np.argsort(self.layer_of[me], kind="stable")
        me, other, w, off = me[by], other[by], w[by], off[by]
        cut = np.searchsorted(self.layer_of[me], np.arange(self.nl + 1))
        out = []
        for L in range(self.nl):
            sl = slice(cut[L], cut[L + 1])
            rows = self.row_in_layer[me[sl]]
            k = len(self.layers[L])
            total = np.bincount(rows, weights=w[sl], minlength=k)
            const = np.bincount(rows, weights=off[sl], minlength=k)
            out.append((rows, other[sl], w[sl], const, total))
        return out

    def table(self, look: str) -> list[tuple[np.ndarray, ...]]:
        if look not in self.tables:
            self.tables[look] = self.pull(("up", "down") if look == "both" else (look,))
        return self.tables[look]

    def run(self, xs: np.ndarray, rounds: int) -> np.ndarray:
        """``rounds`` sweeps, alternately down and up, the last two looking both ways."""
        nl = self.nl
        r = 0
        while r < rounds:
            down = r % 2 == 0
            look = "both" if r >= rounds - 2 else "up" if down else "down"
            table = self.table(look)
            moved = 0.0
            for L in range(nl) if down else range(nl - 1, -1, -1):
                if self.layers[L]:
                    moved = max(moved, self.move_layer(L, table[L], xs))
            # Settled: go straight to the two-sided rounds, or stop after one of them.
            if moved < 0.5:
                if r >= rounds - 2:
                    break
                r = rounds - 2
            else:
                r += 1
        return xs

    def move_layer(self, L: int, pulls: tuple[np.ndarray, ...], xs: np.ndarray) -> float:
        """Move layer ``L``'s items toward their pull, then back onto their separations;
        the largest move."""
        layer = self.layers[L]
        rows, other, w, const, total = pulls
        idx = np.array(layer, dtype=np.int64)
        k = len(layer)
        lonely = total == 0
        pulled = np.bincount(rows, weights=w * xs[other], minlength=k) + const
        want = np.where(lonely, xs[idx], pulled / np.where(lonely, 1.0, total))
        weight = np.where(lonely, 1e-3, total) * self.stiff[idx]
        off = self.offsets[L]
        new = _pav((want - off).tolist(), weight.tolist()) + off
        moved = float(np.abs(new - xs[idx]).max())
        xs[idx] = new
        return moved


#: Rounds of ``_settle`` at most; each pass over the items moves fewer of them.
SETTLE_ROUNDS = 6
#: A shift below this does not count as a jog in ``_settle`` (``straighten`` snaps it).
SNAP_JOG = 1.0


def settle_inputs(
    layers: list[list[int]], sweeps: _Sweeps, sep: _Separations, items: int
) -> tuple[list[list[tuple[int, float, float]]], list[list[float]]]:
    """What ``_settle`` reads: each item's segments as (other end, weight, shift that
    puts it straight), and each layer's gaps between neighbours."""
    up: list[list[tuple[int, float, float]]] = [[] for _ in range(items)]
    down: list[list[tuple[int, float, float]]] = [[] for _ in range(items)]
    # Straight when x[b] = x[a] + shift: for b the target is x[a] + shift, for a x[b] - shift.
    for a, b, w, d in zip(
        sweeps.a_idx.tolist(),
        sweeps.b_idx.tolist(),
        sweeps.wts.tolist(),
        sweeps.shift.tolist(),
        strict=True,
    ):
        up[b].append((a, w, d))
        down[a].append((b, w, -d))
    links = [u + dn for u, dn in zip(up, down, strict=True)]
    gaps = [[sep.pair_gap.get(pair, 0.0) for pair in itertools.pairwise(layer)] for layer in layers]
    return links, gaps


def _settle(
    layers: list[list[int]], sweeps: _Sweeps, sep: _Separations, x: list[float]
) -> list[float]:
    """Item by item, move each centre to where its segments cost least (the LP's
    weighted shifts), among the spots that put one of its segments straight, within
    its neighbours' gaps; on equal cost, the spot with fewer jogs.

    The sweeps move each item to the weighted mean of its neighbours, so a dummy
    between two columns of a long edge sits halfway and its edge jogs twice, by a
    few pixels each time; every jog takes a routing track and a bend. Moving it to
    either column costs the same shift and leaves one jog. Moves are made only when
    they lower (cost, jogs), so the pass stops; orders and gaps are kept.
    """
    links, gaps = settle_inputs(layers, sweeps, sep, len(x))

    # An item is looked at again only once something it reads (the other ends of its
    # segments, its neighbours in the layer) has moved since: otherwise it would stay.
    stale = [bool(ls) for ls in links]
    for r in range(SETTLE_ROUNDS):
        moved = False
        for L in range(len(layers)) if r % 2 == 0 else range(len(layers) - 1, -1, -1):
            layer = layers[L]
            for p, i in enumerate(layer):
                if not stale[i]:
                    continue
                stale[i] = False
                lo = x[layer[p - 1]] + gaps[L][p - 1] if p else -math.inf
                hi = x[layer[p + 1]] - gaps[L][p] if p + 1 < len(layer) else math.inf
                spot = _best_spot(links[i], x, x[i], lo, hi)
                if spot != x[i]:
                    x[i] = spot
                    moved = True
                    near = [o for o, _w, _d in links[i]] + layer[max(p - 1, 0) : p + 2]
                    for o in near:
                        stale[o] = o != i and bool(links[o])
        if not moved:
            break
    return x


def _best_spot(
    links: list[tuple[int, float, float]], x: list[float], now: float, lo: float, hi: float
) -> float:
    """``_settle``'s move of one item: among its spot and those in [lo, hi] that put one of
    its segments (other end, weight, shift) straight, the first with the least (cost, jogs)."""

    def score(at: float) -> tuple[float, int]:
        cost = 0.0
        jogs = 0
        for o, w, d in links:
            off = abs(at - x[o] - d)
            cost += w * off
            jogs += off >= SNAP_JOG
        return round(cost, 6), jogs

    best = score(now)
    spot = now
    for o, _w, d in links:
        at = x[o] + d
        if lo <= at <= hi and at != spot:
            got = score(at)
            if got < best:
                best, spot = got, at
    return spot


def _project(want: list[float], weight: list[float], gaps: list[float]) -> list[float]:
    """Closest positions (weighted least squares) to ``want`` with ``pos[p] - pos[p-1] >=
    gaps[p-1]``: pool-adjacent-violators on the positions less their cumulative gaps."""
    offset = np.concatenate(([0.0], np.cumsum(gaps)))
    return (_pav((np.array(want) - offset).tolist(), weight) + offset).tolist()


def _pav(target: list[float], weight: list[float]) -> np.ndarray:
    """Weighted least-squares non-decreasing fit of ``target`` (pool adjacent violators)."""
    sums: list[float] = []
    wts: list[float] = []
    cnts: list[int] = []
    for t, w in zip(target, weight, strict=True):
        s = t * w
        c = 1
        # pool while the previous block's mean is not below this one's (weights > 0)
        while sums and sums[-1] * w >= s * wts[-1]:
            s += sums.pop()
            w += wts.pop()
            c += cnts.pop()
        sums.append(s)
        wts.append(w)
        cnts.append(c)
    return np.repeat(np.array(sums) / np.array(wts), cnts)


# -- routing -------------------------------------------------------------------------


def straighten(
    h: Hierarchy, pl: Placed, opts: LayoutOptions = OPTIONS
) -> dict[int, tuple[float, float]]:
    """Drawn x of both ends of every segment, with sub-pixel jogs snapped away.

    Walks each edge chain from its upper end; a lower end closer than ``opts.snap``
    to the line arriving from above takes that line's x, so the chain stays one
    straight vertical instead of jogging by a fraction of a pixel.
    """
    segments = h.segments
    m = len(segments)
    x, out_off, in_off, snap = pl.x, pl.out_off, pl.in_off, opts.snap
    ends: dict[int, tuple[float, float]] = {}
    seg_of: dict[tuple[int, int], int] | None = None
    s = -1
    for k, chain in h.chains.items():
        carried: float | None = None
        for a in chain[:-1]:
            # ``insert_dummies`` lists the segments chain by chain, each in its order:
            # the one after the last is tried first, the index built only if it is not.
            s += 1
            if not (s < m and segments[s][0] == a and segments[s][2] == k):
                if seg_of is None:
                    seg_of = _segment_index(segments)
                s = seg_of[(k, a)]
            b = segments[s][1]
            xa = x[a] + out_off.get(s, 0.0)
            if carried is not None and abs(carried - xa) < snap:
                xa = carried
            xb = x[b] + in_off.get(s, 0.0)
            if abs(xa - xb) < snap:
                xb = xa
            ends[s] = (xa, xb)
            # Through dummies and label holders the line keeps its x.
            carried = xb
    _unswap(h, ends, opts)
    return ends


def _segment_index(segments: list[tuple[int, int, int]]) -> dict[tuple[int, int], int]:
    """Each segment's index by (edge, upper item)."""
    return {(k, a): s for s, (a, _b, k) in enumerate(segments)}


def _unswap(h: Hierarchy, ends: dict[int, tuple[float, float]], opts: LayoutOptions) -> None:
    """Give two lines that trade columns in one gap a clean single crossing.

    When segment s runs x1 -> x2 and t runs x2 -> x1, their verticals share
    both columns and any track order makes them touch twice. Shifting one of
    the four column ends sideways by ``opts.unswap`` leaves one crossing.
    Only a straight run of dummies bounded by jogs on both sides is shifted,
    so no new jog appears and no node end moves.
    """
    items = h.items
    per_gap: dict[int, list[int]] = defaultdict(list)  # each in index order
    for s, (a, _b, _k) in enumerate(h.segments):
        xa, xb = ends[s]
        if xa != xb:
            per_gap[items[a].layer].append(s)
    # Read only once a pair is found: most drawings have none.
    runs: _DummyRuns | None = None
    place: dict[int, tuple[int, int]] = {}  # segment -> (edge, position in its chain)
    for gap in sorted(per_gap):
        segs = per_gap[gap]
        if len(segs) < 2:
            continue  # a pair needs two
        for s, t in _swapped_pairs(segs, ends, opts.touch):
            if runs is None:
                seg_of = _segment_index(h.segments)
                runs = _DummyRuns(h, ends, seg_of, opts)
                for k, chain in h.chains.items():
                    for j, a in enumerate(chain[:-1]):
                        place[seg_of[(k, a)]] = (k, j)
            (ks, js), (kt, jt) = place[s], place[t]
            # Try the four column ends: below s, above s, below t, above t.
            for k, first, step in ((ks, js + 1, 1), (ks, js, -1), (kt, jt + 1, 1), (kt, jt, -1)):
                run = runs.run_of(k, first, step)
                if run and runs.shift(k, run, opts.unswap):
                    break


def _swapped_pairs(
    segs: list[int], ends: dict[int, tuple[float, float]], touch: float
) -> Iterator[tuple[int, int]]:
    """Pairs (s, t) of one gap's bending segments where t runs back from s's end to its
    start. Read lazily: shifting one pair's run moves the ends later pairs are found by."""
    by_top: dict[int, list[int]] = defaultdict(list)
    for t in segs:
        by_top[round(ends[t][0])].append(t)
    for s in segs:
        xa, xb = ends[s]
        for t in by_top.get(round(xb), []):
            ta, tb = ends[t]
            if not (t == s or abs(ta - xb) > touch or abs(tb - xa) > touch):
                yield s, t


@attrs.frozen
class _DummyRuns:
    """Straight runs of dummies along edge chains, and shifting one sideways."""

    h: Hierarchy
    ends: dict[int, tuple[float, float]]
    seg_of: dict[tuple[int, int], int]
    opts: LayoutOptions

    def run_of(self, k: int, first: int, step: int) -> list[int] | None:
        """Chain positions of the straight dummy run starting at ``first``, walking ``step``."""
        chain = self.h.chains[k]
        items, ends, seg_of = self.h.items, self.ends, self.seg_of
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

    def shift(self, k: int, run: list[int], dx: float) -> bool:
        chain = self.h.chains[k]
        ends, seg_of = self.ends, self.seg_of
        lo, hi = min(run), max(run)
        enter = seg_of[(k, chain[lo - 1])]
        leave = seg_of[(k, chain[hi])]
        x = ends[enter][1] + dx
        if abs(ends[enter][0] - x) < self.opts.snap or abs(ends[leave][1] - x) < self.opts.snap:
            return False
        ends[enter] = (ends[enter][0], x)
        for p in range(lo, hi):
            ends[seg_of[(k, chain[p])]] = (x, x)
        ends[leave] = (x, ends[leave][1])
        return True


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
    ordering allows. Above ``opts.placement_items`` items a gap's order comes from a
    sort key instead of up to eight sifting rounds (each costs the square of the
    gap's segments); on dense graphs the key order crosses less, at the price of
    a few more tracks.
    """
    items, segments = h.items, h.segments
    rounds = 0 if len(items) > opts.placement_items else 8
    per_gap: dict[int, list[int]] = defaultdict(list)
    for s, (a, _b, _k) in enumerate(segments):
        xa, xb = ends[s]
        if xa != xb:
            per_gap[items[a].layer].append(s)
    end_nodes: dict[int, tuple[int, int]] = {k: (c[0], c[-1]) for k, c in h.chains.items()}
    track: dict[int, int] = {}
    counts = [0] * max(1, len(layers))
    margin = opts.track_gap / 2
    large = len(items) > opts.exact_items
    for gap in sorted(per_gap):
        segs = per_gap[gap]
        if len(segs) == 1:  # nothing to order: one track
            track[segs[0]] = 0
            counts[gap] = 1
            continue
        # Stable, and a gap's segments are listed in index order: ties go by index.
        segs = sorted(segs, key=lambda s: min(ends[s]))
        nodes = [end_nodes[segments[s][2]] for s in segs]
        order = _order_tracks(segs, ends, nodes, opts.touch, rounds)
        if large and len(order) > 1:
            at = {s: p for p, s in enumerate(segs)}
            nodes = [nodes[at[s]] for s in order]
            counts[gap] = _pack_by_meets(order, ends, nodes, margin, opts.touch, track)
            continue
        # Each segment takes the track below the lowest one it overlaps among those
        # placed before it (numpy over the placed ones: a dense gap has hundreds).
        k = len(order)
        if k <= SMALL_GAP:
            counts[gap] = _pack_small(order, ends, margin, track)
            continue
        los = np.empty(k)
        his = np.empty(k)
        tracks = np.empty(k, dtype=np.int64)
        for p, s in enumerate(order):
            xa, xb = ends[s]
            lo, hi = min(xa, xb) - margin, max(xa, xb) + margin
            if p:
                hit = (los[:p] < hi) & (lo < his[:p])
                t = int(tracks[:p][hit].max()) + 1 if hit.any() else 0
            else:
                t = 0
            los[p], his[p], tracks[p] = lo, hi, t
            track[s] = t
            counts[gap] = max(counts[gap], t + 1)
    return track, counts


#: Gaps with at most this many bending segments are ordered and packed in plain
#: Python (``_order_small_gap``, ``_pack_small``): numpy's per-call cost outweighs
#: its loops there. Both ways give the same order and tracks.
SMALL_GAP = 12


def _pack_small(
    order: list[int], ends: dict[int, tuple[float, float]], margin: float, track: dict[int, int]
) -> int:
    """``plan_tracks``'s packing of one small gap in lists: each segment takes the track
    below the lowest one it overlaps among those placed before it. Returns the count."""
    placed: list[tuple[float, float, int]] = []
    count = 0
    for s in order:
        xa, xb = ends[s]
        lo, hi = min(xa, xb) - margin, max(xa, xb) + margin
        t = 0
        for plo, phi, pt in placed:
            if pt >= t and plo < hi and lo < phi:
                t = pt + 1
        placed.append((lo, hi, t))
        track[s] = t
        if t >= count:
            count = t + 1
    return count


def _pack_by_meets(
    order: list[int],
    ends: dict[int, tuple[float, float]],
    nodes: list[tuple[int, int]],
    margin: float,
    touch: float,
    track: dict[int, int],
) -> int:
    """Tracks for one gap of a large hierarchy: each segment, in ``order``, takes the
    track where it meets the segments placed before it least (edges sharing no end node
    first, then the others), the topmost such track on a tie.

    Packing each below every overlapping segment placed before it, as smaller gaps are
    packed, gives the order's own meets but stacks a gap as deep as its longest chain of
    overlaps; where the order of two overlapping segments makes no difference (one's
    span holds the other's), the lower one may rise onto a free track above. Taking the
    track below all of them is always a choice, so no gap meets more than that packing
    would, and gaps grow only where the meets demand it. Returns the track count.
    """
    k = len(order)
    a = np.array([ends[s][0] for s in order])
    b = np.array([ends[s][1] for s in order])
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    u = np.array([p[0] for p in nodes])
    v = np.array([p[1] for p in nodes])
    tracks = np.empty(k, dtype=np.int64)
    heavy = k * k + 1
    count = 0
    for p in range(k):
        hit = np.flatnonzero(
            (lo[:p] - margin < hi[p] + margin) & (lo[p] - margin < hi[:p] + margin)
        )
        if not len(hit):
            t = 0
        else:
            # Meets of a placed segment q above p: q's lower vertical crosses p's
            # track, p's upper vertical crosses q's track; and the same with p above q.
            lq, hq = lo[hit] - touch, hi[hit] + touch
            lp, hp = lo[p] - touch, hi[p] + touch
            q_above = ((lp <= b[hit]) & (b[hit] <= hp)).astype(np.int64)
            q_above += (lq <= a[p]) & (a[p] <= hq)
            p_above = ((lq <= b[p]) & (b[p] <= hq)).astype(np.int64)
            p_above += (lp <= a[hit]) & (a[hit] <= hp)
            apart = ~((u[hit] == u[p]) | (u[hit] == v[p]) | (v[hit] == u[p]) | (v[hit] == v[p]))
            q_above = np.where(apart, q_above * heavy, q_above)
            p_above = np.where(apart, p_above * heavy, p_above)
            taken = tracks[hit]
            top = int(taken.max()) + 2
            # cost[t] = meets of q above p for placed tracks below t, plus p above q
            # for placed tracks above t.
            above = np.concatenate(([0], np.cumsum(np.bincount(taken, q_above, top))))[:top]
            rest = np.bincount(taken, p_above, top)
            below = rest.sum() - np.cumsum(rest)
            cost = above + below
            cost[taken] = np.inf
            t = int(np.argmin(cost))
        tracks[p] = t
        track[order[p]] = t
        count = max(count, t + 1)
    return count


def _order_small_gap(
    segs: list[int],
    ends: dict[int, tuple[float, float]],
    nodes: list[tuple[int, int]],
    touch: float,
    rounds: int,
) -> list[int]:
    """``_order_tracks`` for a handful of segments, step for step in lists."""
    n = len(segs)
    if n == 2 and rounds:
        # Sifting two segments ends in the cheaper of their two orders, the given
        # one on a tie: the second goes on top only when that costs strictly less.
        # Sharing an end node or not scales both orders' meets alike: they decide.
        (a0, b0), (a1, b1) = ends[segs[0]], ends[segs[1]]
        lo0, hi0 = min(a0, b0) - touch, max(a0, b0) + touch
        lo1, hi1 = min(a1, b1) - touch, max(a1, b1) + touch
        second_on_top = (lo1 <= a0 <= hi1) + (lo0 <= b1 <= hi0)
        first_on_top = (lo0 <= a1 <= hi0) + (lo1 <= b0 <= hi1)
        return [segs[1], segs[0]] if second_on_top < first_on_top else [segs[0], segs[1]]
    a: list[float] = []
    b: list[float] = []
    spans: list[tuple[float, float, float]] = []  # (upper end, low, high), ``touch`` out
    for s in segs:
        xa, xb = ends[s]
        a.append(xa)
        b.append(xb)
        spans.append((xa, min(xa, xb) - touch, max(xa, xb) + touch))
    heavy = n * n + 1
    cost = [[0] * n for _ in range(n)]
    for i, (_a_i, lo_i, hi_i) in enumerate(spans):
        ui, vi = nodes[i]
        b_i, row = b[i], cost[i]
        for j, (a_j, lo_j, hi_j) in enumerate(spans):
            c = (lo_i <= a_j <= hi_i) + (lo_j <= b_i <= hi_j)
            if c and j != i:
                uj, vj = nodes[j]
                row[j] = c if ui in (uj, vj) or vi in (uj, vj) else c * heavy

    def totals(rest: list[int], e: int) -> list[int]:
        # Below all of ``rest`` first; each step down moves one of them from below e
        # to above it (integer costs: the same sums in any order).
        row = cost[e]
        total = sum([row[i] for i in rest])
        got = [total]
        for i in rest:
            total += cost[i][e] - row[i]
            got.append(total)
        return got

    return [segs[i] for i in _sift(_start_order(a, b, rounds), rounds, totals)]


def _start_order(a: Sequence[float], b: Sequence[float], rounds: int) -> list[int]:
    """Where sifting starts: the given order; without sifting, the sort key alone:
    rightward pieces on top, the one starting furthest right highest, then leftward
    ones, the one starting furthest left highest (such pieces then cross only where
    their spans force it)."""
    n = len(a)
    if rounds:
        return list(range(n))
    return sorted(range(n), key=lambda i: (0, -a[i], i) if b[i] > a[i] else (1, a[i], i))


def _sift(
    order: list[int], rounds: int, totals: Callable[[list[int], int], list[int]]
) -> list[int]:
    """Sifting (Matuszewski et al.): each segment in turn is taken out and put back
    where it meets the others least, for up to ``rounds`` rounds or until one moves
    nothing. ``totals(rest, e)`` reads the cost of ``e`` at each position among
    ``rest`` (0 above all of them, ``len(rest)`` below all); the first least wins,
    and ``e`` moves only when that beats where it was. Both track orderings (plain
    lists for small gaps, numpy for larger ones) read their costs through it, so
    they give the same order."""
    for _ in range(rounds):
        moved = False
        for e in range(len(order)):
            q = order.index(e)
            del order[q]
            total = totals(order, e)
            best = min(total)
            if best < total[q]:
                order.insert(total.index(best), e)
                moved = True
            else:
                order.insert(q, e)
        if not moved:
            break
    return order


def _order_tracks(
    segs: list[int],
    ends: dict[int, tuple[float, float]],
    nodes: list[tuple[int, int]],
    touch: float = OPTIONS.touch,
    rounds: int = 8,
) -> list[int]:
    """Top-to-bottom order of one gap's bending segments with few crossings (sifting)."""
    n = len(segs)
    if n < 2:
        return list(segs)
    if not rounds:  # the sort key alone: no costs to read
        return [
            segs[i] for i in _start_order([ends[s][0] for s in segs], [ends[s][1] for s in segs], 0)
        ]
    if n <= SMALL_GAP:
        return _order_small_gap(segs, ends, nodes, touch, rounds)
    a = np.array([ends[s][0] for s in segs])
    b = np.array([ends[s][1] for s in segs])
    lo = np.minimum(a, b) - touch
    hi = np.maximum(a, b) + touch
    # cost[i, j]: points where i and j meet when i runs on a track above j. The
    # upper vertical of j meets i's track; the lower vertical of i meets j's track.
    cost = ((lo[:, None] <= a[None, :]) & (a[None, :] <= hi[:, None])).astype(np.int64)
    cost += (lo[None, :] <= b[:, None]) & (b[:, None] <= hi[None, :])
    u = np.array([p[0] for p in nodes])
    v = np.array([p[1] for p in nodes])
    shared = (u[:, None] == u[None, :]) | (u[:, None] == v[None, :])
    shared |= (v[:, None] == u[None, :]) | (v[:, None] == v[None, :])
    # Edges that share an end meet at that node anyway, so their meets only break ties
    # between orders equal on the others: then a two-state cycle's pair of wires jogging
    # the same way takes the order in which they do not cross.
    cost *= n * n + 1
    cost[shared] //= n * n + 1
    np.fill_diagonal(cost, 0)

    def totals(rest: list[int], e: int) -> list[int]:
        idx = np.array(rest, dtype=np.intp)
        above = np.concatenate(([0], np.cumsum(cost[idx, e])))  # the others above e
        below = np.concatenate(([0], np.cumsum(cost[e, idx])))
        return (above + (below[-1] - below)).tolist()

    return [segs[i] for i in _sift(_start_order(a.tolist(), b.tolist(), rounds), rounds, totals)]
