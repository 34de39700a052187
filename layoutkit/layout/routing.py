"""Wire routing: orthogonal paths between cards that go around the other cards.

The approach follows libavoid's orthogonal router in a smaller form. Every card a
wire must avoid is an obstacle padded by a margin; the wire's path runs on the
lines through the padded obstacles' edges (the Hanan grid of those edges), so it
can take every channel between cards, and the shortest path with a penalty per
bend is found by A* over (grid node, heading) states.

Which cards a wire avoids: every card except its two ends and the frames holding
either end. A wire between two cards inside a section crosses that section's
frame freely, never another card. A frame that is an obstacle stands for its
whole content, so its children are not tested again.

Each end attaches to the side of its card that faces the other end; several wires
on one side are spread along it in the order of their other ends, so they leave
without crossing each other. A label sits on its wire's longest stretch that has
room for it clear of every card (and of the labels placed before it).

Routes are derived from the boxes at draw time: a wire is re-routed whenever a
card moves, with nothing stored to go stale. A route depends only on the cards in
the region it was searched in, so :class:`RouteCache` keeps routes by their ends
and checks, on a hit, that the obstacles of that region are still the same boxes.

The search is confined to a region that grows only when it has no path: first two
L-shaped corridors between the ends (a wire usually runs along one of them), then
the box around both ends with room to go round, then the whole board with a ring
around it (a path around everything always exists there). The grid of a corridor
holds few lines, since its long arm adds coordinates along one axis only.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
import threading
from collections.abc import Hashable, Mapping, Sequence

import attrs
import numpy as np

from layoutkit.layout.spatial import GridIndex

Box = tuple[float, float, float, float]  # x, y, w, h (a card as stored)
Edges = tuple[float, float, float, float]  # x0, y0, x1, y1
Pt = tuple[float, float]

#: Space kept between a wire and any card it passes: half the gap between cards in a
#: frame, so a wire can run down the middle of that gap.
MARGIN = 12.0
#: Cost of one bend, in board pixels of length: a wire takes a detour of up to this
#: length to save a bend, which keeps paths to few, long segments.
BEND = 60.0
#: Half width of the corridors tried first, and the room around both ends tried next.
CORRIDOR = 240.0
#: Room between a label box and a card: small enough that a label (19 px high) fits
#: on a wire running down the middle of the gap between two cards.
LABEL_CLEARANCE = 2.0
SIDES = ("right", "bottom", "left", "top")
#: Heading of each side's outward normal: 0 east (+x), 1 south (+y), 2 west, 3 north.
_OUT = {"right": 0, "bottom": 1, "left": 2, "top": 3}
_STEP = ((1, 0), (0, 1), (-1, 0), (0, -1))


@attrs.frozen(slots=True)
class WireSpec:
    """One wire to route: its two cards and the size (w, h) of its label, if any."""

    src: Hashable
    dst: Hashable
    label: tuple[float, float] | None = None


@attrs.frozen(slots=True)
class Route:
    """A routed wire: points from the source side to the target side (board pixels),
    the sides it attaches to, its label box (x, y, w, h; None without a label or when
    nothing near the wire has room for it), whether the path is clear of cards (False
    only when an end is boxed in by cards overlapping it), and, for a label that found
    no room on the wire itself, the short straight leader from the wire to the label."""

    points: tuple[Pt, ...]
    src_side: str
    dst_side: str
    label: Box | None = None
    clear: bool = True
    leader: tuple[Pt, Pt] | None = None


@attrs.define
class RouteCache:
    """Routes kept by their ends and search settings, each with the region it was
    found in and the obstacles there: a hit is taken only while those obstacles are
    the same boxes. Bounded; the oldest entry goes first."""

    size: int = 8192
    entries: dict[tuple, tuple[tuple[Edges, ...], tuple, tuple[Pt, ...], bool]] = attrs.field(
        factory=dict
    )
    hits: int = 0
    misses: int = 0
    # Pictures are drawn on request threads and on the drawing thread at once.
    _lock: threading.Lock = attrs.field(factory=threading.Lock, repr=False)

    def get(
        self, key: tuple, world: _World, excluded: _Excluded
    ) -> tuple[tuple[Pt, ...], bool] | None:
        with self._lock:
            got = self.entries.get(key)
        if got is not None:
            region, obstacles, path, clear = got
            if world.obstacles(region, excluded) == obstacles:
                self.hits += 1
                return path, clear
        self.misses += 1
        return None

    def put(
        self,
        key: tuple,
        region: tuple[Edges, ...],
        obstacles: tuple,
        path: tuple[Pt, ...],
        clear: bool,
    ) -> None:
        with self._lock:
            if len(self.entries) >= self.size:
                self.entries.pop(next(iter(self.entries)))
            self.entries[key] = (region, obstacles, path, clear)


#: Routes of the boards this process drew (a board drawn again routes only what moved).
ROUTES = RouteCache()


def facing_side(a: Box, b: Box) -> str:
    """The side of box ``a`` that faces box ``b``: along the axis where the two are
    further apart (the gap between them, or the distance between centres when they
    overlap on both axes)."""
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    gap_x = max(bx - (ax + aw), ax - (bx + bw))
    gap_y = max(by - (ay + ah), ay - (by + bh))
    dx = (bx + bw / 2) - (ax + aw / 2)
    dy = (by + bh / 2) - (ay + ah / 2)
    if gap_x < 0 and gap_y < 0:
        horizontal = abs(dx) / max(aw + bw, 1.0) >= abs(dy) / max(ah + bh, 1.0)
    else:
        horizontal = gap_x >= gap_y
    if horizontal:
        return "right" if dx >= 0 else "left"
    return "bottom" if dy >= 0 else "top"


def nearest_side(outer: Box, inner: Box) -> str:
    """The side of frame ``outer`` nearest to ``inner``, a card inside it."""
    ox, oy, ow, oh = outer
    ix, iy, iw, ih = inner
    room = {
        "left": ix - ox,
        "right": (ox + ow) - (ix + iw),
        "top": iy - oy,
        "bottom": (oy + oh) - (iy + ih),
    }
    return min(SIDES, key=lambda s: (room[s], SIDES.index(s)))


class _Excluded:
    """The cards one wire may cross or touch: its ends' enclosing frames; and the
    frames whose content counts as obstacles only through the frame itself."""

    __slots__ = ("inside", "skip")

    def __init__(self, skip: frozenset, inside: frozenset) -> None:
        self.skip = skip  # never obstacles (the frames around an end)
        self.inside = inside  # parents whose children are obstacles (None: the board)


class _World:
    """The boxes of a board and a spatial index over them."""

    def __init__(self, boxes: Mapping[Hashable, Box], parents: Mapping[Hashable, Hashable]):
        self.boxes = boxes
        # A parent not among the boxes (a picture of part of a board) counts as the board.
        self.parents = {k: (p if p in boxes else None) for k, p in parents.items() if k in boxes}
        self.index = GridIndex()
        self.index.insert_many((k, *b) for k, b in boxes.items())
        if boxes:
            self.extent: Edges = (
                min(b[0] for b in boxes.values()),
                min(b[1] for b in boxes.values()),
                max(b[0] + b[2] for b in boxes.values()),
                max(b[1] + b[3] for b in boxes.values()),
            )
        else:
            self.extent = (0.0, 0.0, 0.0, 0.0)

    def ancestors(self, key: Hashable) -> list[Hashable]:
        out: list[Hashable] = []
        p = self.parents.get(key)
        while p is not None and p in self.boxes and p not in out and len(out) < 16:
            out.append(p)
            p = self.parents.get(p)
        return out

    def excluded(self, src: Hashable, dst: Hashable) -> _Excluded:
        anc = set(self.ancestors(src)) | set(self.ancestors(dst))
        # The ends are obstacles themselves (a wire never runs through its own cards),
        # unless one end holds the other.
        skip = set(anc)
        inside: set[Hashable | None] = {None, *anc}
        return _Excluded(frozenset(skip), frozenset(inside))

    def keys_in(
        self, region: Sequence[Edges], excluded: _Excluded, pad: float = MARGIN
    ) -> list[Hashable]:
        """The cards a wire avoids that reach within ``pad`` of ``region``."""
        seen: set[Hashable] = set()
        out: list[Hashable] = []
        for x0, y0, x1, y1 in region:
            for k in self.index.query(x0 - pad, y0 - pad, x1 - x0 + 2 * pad, y1 - y0 + 2 * pad):
                if k in seen:
                    continue
                seen.add(k)
                if k in excluded.skip or self.parents.get(k) not in excluded.inside:
                    continue
                out.append(k)
        return out

    def obstacles(self, region: Sequence[Edges], excluded: _Excluded) -> tuple:
        return tuple(sorted(self.boxes[k] for k in self.keys_in(region, excluded)))


def _edges(b: Box, pad: float = 0.0) -> Edges:
    return (b[0] - pad, b[1] - pad, b[0] + b[2] + pad, b[1] + b[3] + pad)


def route_wires(
    boxes: Mapping[Hashable, Box],
    parents: Mapping[Hashable, Hashable],
    wires: Sequence[WireSpec],
    *,
    margin: float = MARGIN,
    bend: float = BEND,
    cache: RouteCache | None = ROUTES,
) -> list[Route | None]:
    """Route every wire around the cards of a board.

    ``boxes`` maps card ids to (x, y, w, h); ``parents`` maps card ids to the frame
    holding them (missing or None: top level). Returns one :class:`Route` per wire, in
    order; None for a wire whose ends are missing or the same card.
    """
    world = _World(boxes, parents)
    ends: list[tuple[str, str] | None] = []
    for w in wires:
        if w.src not in boxes or w.dst not in boxes or w.src == w.dst:
            ends.append(None)
            continue
        if w.dst in world.ancestors(w.src) or w.src in world.ancestors(w.dst):
            # A frame and a card inside it: both ends on the frame's side nearest the card.
            outer, inner = (w.dst, w.src) if w.dst in world.ancestors(w.src) else (w.src, w.dst)
            side = nearest_side(boxes[outer], boxes[inner])
            ends.append((side, side))
            continue
        ends.append(
            (facing_side(boxes[w.src], boxes[w.dst]), facing_side(boxes[w.dst], boxes[w.src]))
        )
    ports = _ports(boxes, wires, ends)
    found: list[tuple[list[Pt], bool, _Excluded] | None] = []
    for n, w in enumerate(wires):
        sides = ends[n]
        if sides is None:
            found.append(None)
            continue
        excluded = world.excluded(w.src, w.dst)
        p0, p1 = ports[n]
        path, clear = _route_one(
            world,
            excluded,
            p0,
            sides[0],
            p1,
            sides[1],
            margin,
            bend,
            cache,
            # an end that holds the other (a frame and its own card) is left inwards
            inward=(w.src in excluded.skip, w.dst in excluded.skip),
        )
        found.append((list(path), clear, excluded))
    _nudge(world, found, margin)
    routes: list[Route | None] = []
    labels = GridIndex(256.0)
    for n, w in enumerate(wires):
        got, sides = found[n], ends[n]
        if got is None or sides is None:
            routes.append(None)
            continue
        path, clear, excluded = got
        label = leader = None
        if w.label is not None:
            label = _place_label(world, excluded, path, w.label, labels)
            if label is None:
                label, leader = _place_beside(world, excluded, path, w.label, labels)
            if label is not None:
                labels.insert(n, *label)
        routes.append(Route(tuple(path), sides[0], sides[1], label, clear, leader))
    return routes


#: Space between wires that share a stretch of one line, and the farthest one is moved
#: off that line (less than the margin, so a moved wire still keeps clear of cards).
NUDGE_STEP = 6.0


_Found = list[tuple[list[Pt], bool, _Excluded] | None]
#: (line coordinate, start, end, wire, segment) of one inner stretch of a wire.
_Seg = tuple[float, float, float, int, int]
#: Per wire, the (segment, axis, offset) moves spreading gives it.
_Moves = dict[int, list[tuple[int, int, float]]]


def _nudge(world: _World, found: _Found, margin: float) -> None:
    """Spread wires that run along the same line over the same stretch side by side, as
    libavoid's nudging does, so each can be followed; ends stay on their ports. A wire
    whose moved path would touch a card keeps its path."""
    segs = _inner_stretches(found)
    reach = max(margin - NUDGE_STEP, 0.0)
    moves: _Moves = {}
    for axis in (0, 1):
        for line in _shared_lines(segs[axis]):
            _spread_line(line, axis, reach, moves)
    _apply_moves(world, found, moves)


def _inner_stretches(found: _Found) -> tuple[list[_Seg], list[_Seg]]:
    """Every inner stretch of every wire, horizontal ones first, vertical ones second."""
    segs: tuple[list[_Seg], list[_Seg]] = ([], [])
    for n, got in enumerate(found):
        if got is None:
            continue
        path = got[0]
        for k in range(1, len(path) - 2):  # the first and last stretches hold the ports
            (ax, ay), (bx, by) = path[k], path[k + 1]
            if abs(ay - by) < 1e-9:
                segs[0].append((ay, min(ax, bx), max(ax, bx), n, k))
            else:
                segs[1].append((ax, min(ay, by), max(ay, by), n, k))
    return segs


def _shared_lines(segs: list[_Seg]) -> list[list[_Seg]]:
    """The stretches grouped by line, only lines holding two or more of them."""
    # Lines nearer each other than a step read as one line (the middles of a gap seen
    # from either side differ by a pixel or two), so they are spread as one.
    lines: list[list[_Seg]] = []
    for seg in sorted(segs):
        if lines and seg[0] - lines[-1][-1][0] < NUDGE_STEP:
            lines[-1].append(seg)
        else:
            lines.append([seg])
    return [line for line in lines if len(line) >= 2]


def _spread_line(line: list[_Seg], axis: int, reach: float, moves: _Moves) -> None:
    """Spread each run of overlapping stretches on one line that belongs to more than
    one wire, centred on where they were."""
    line.sort(key=lambda g: (g[1], g[0]))
    group: list[_Seg] = []
    end = -math.inf
    for seg in [*line, (0.0, math.inf, math.inf, -1, -1)]:
        if seg[1] >= end - 1e-9 and group:
            if len({g[3] for g in group}) > 1:
                _spread_group(group, axis, reach, moves)
            group, end = [], -math.inf
        group.append(seg)
        end = max(end, seg[2])


def _spread_group(group: list[_Seg], axis: int, reach: float, moves: _Moves) -> None:
    group.sort(key=lambda g: (g[0], g[1], g[3]))
    centre = sum(g[0] for g in group) / len(group)
    m = len(group)
    for i, (at, _, _, n, k) in enumerate(group):
        want = centre + (i - (m - 1) / 2) * NUDGE_STEP - at
        moves.setdefault(n, []).append((k, axis, max(-reach, min(reach, want))))


def _apply_moves(world: _World, found: _Found, moves: _Moves) -> None:
    for n, shifts in moves.items():
        got = found[n]
        assert got is not None
        path, clear, excluded = got
        moved = list(path)
        for k, axis, off in shifts:
            for at in (k, k + 1):
                x, y = moved[at]
                moved[at] = (x, y + off) if axis == 0 else (x + off, y)
        if _keeps_clear(world, excluded, moved):
            found[n] = (_simplify(moved), clear, excluded)


#: Room a spread wire keeps from every card, and the shortest stub it leaves at a port.
_NUDGE_ROOM = 2.0


def _keeps_clear(world: _World, excluded: _Excluded, path: Sequence[Pt]) -> bool:
    """Whether a spread path still leaves its ports square to their sides and keeps
    :data:`_NUDGE_ROOM` from every card (its stubs may only touch their own cards)."""
    last = len(path) - 2
    for k, (a, b) in enumerate(itertools.pairwise(path)):
        stub = k == 0 or k == last
        if stub and abs(a[0] - b[0]) + abs(a[1] - b[1]) < _NUDGE_ROOM:
            return False
        line = (min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1]))
        if world.keys_in([line], excluded, pad=0.0 if stub else _NUDGE_ROOM):
            return False
    return True


def _ports(
    boxes: Mapping[Hashable, Box],
    wires: Sequence[WireSpec],
    ends: Sequence[tuple[str, str] | None],
) -> list[tuple[Pt, Pt]]:
    """Where each wire leaves its source and enters its target: spread along the side
    in the order of the other ends, or, for a side with one wire, in the middle of the
    stretch both cards share along that side (a straight wire when there is one)."""
    groups: dict[tuple[Hashable, str], list[tuple[float, int, int]]] = {}
    for n, (w, sides) in enumerate(zip(wires, ends, strict=True)):
        if sides is None:
            continue
        for end, (card, other, side) in enumerate(
            ((w.src, w.dst, sides[0]), (w.dst, w.src, sides[1]))
        ):
            ob = boxes[other]
            along = ob[1] + ob[3] / 2 if side in ("left", "right") else ob[0] + ob[2] / 2
            groups.setdefault((card, side), []).append((along, n, end))
    out: dict[tuple[int, int], Pt] = {}
    for (card, side), members in groups.items():
        x, y, w, h = boxes[card]
        vertical = side in ("left", "right")
        lo, hi = (y, y + h) if vertical else (x, x + w)
        inset = min(16.0, (hi - lo) / 4)
        members.sort()
        if len(members) == 1:
            _, n, end = members[0]
            wire = wires[n]
            ob = boxes[wire.dst if end == 0 else wire.src]
            olo, ohi = (ob[1], ob[1] + ob[3]) if vertical else (ob[0], ob[0] + ob[2])
            a, b = max(lo + inset, olo + inset), min(hi - inset, ohi - inset)
            spots = [(a + b) / 2 if a <= b else (lo + hi) / 2]
        else:
            step = (hi - lo - 2 * inset) / (len(members) + 1)
            spots = [lo + inset + step * (i + 1) for i in range(len(members))]
        fixed = {"right": x + w, "left": x, "bottom": y + h, "top": y}[side]
        for spot, (_, n, end) in zip(spots, members, strict=True):
            out[(n, end)] = (fixed, spot) if vertical else (spot, fixed)
    return [
        (out[(n, 0)], out[(n, 1)]) if (n, 0) in out else ((0.0, 0.0), (0.0, 0.0))
        for n in range(len(wires))
    ]


def _corridors(a: Pt, b: Pt, room: float) -> list[Edges]:
    """Two L-shaped strips between ``a`` and ``b`` (across first, and down first), each
    ``room`` either side of its centre line."""
    (ax, ay), (bx, by) = a, b
    x0, x1 = min(ax, bx), max(ax, bx)
    y0, y1 = min(ay, by), max(ay, by)
    return [
        (x0 - room, ay - room, x1 + room, ay + room),
        (bx - room, y0 - room, bx + room, y1 + room),
        (ax - room, y0 - room, ax + room, y1 + room),
        (x0 - room, by - room, x1 + room, by + room),
    ]


def _route_one(
    world: _World,
    excluded: _Excluded,
    port_s: Pt,
    side_s: str,
    port_t: Pt,
    side_t: str,
    margin: float,
    bend: float,
    cache: RouteCache | None,
    *,
    inward: tuple[bool, bool] = (False, False),
) -> tuple[tuple[Pt, ...], bool]:
    ds = _OUT[side_s] if not inward[0] else (_OUT[side_s] + 2) % 4
    dt = _OUT[side_t] if not inward[1] else (_OUT[side_t] + 2) % 4
    key = (port_s, ds, port_t, dt, margin, bend)
    if cache is not None:
        got = cache.get(key, world, excluded)
        if got is not None:
            return got
    widest: tuple[Edges, ...] = ()
    # Cards placed by hand nearer each other than twice the margin can close every
    # channel around an end: then the wire keeps less room (at worst it runs along a
    # card's edge, never through it).
    tries = (margin, margin / 2, 1.0)
    for m in tries:
        es = (port_s[0] + _STEP[ds][0] * m, port_s[1] + _STEP[ds][1] * m)
        et = (port_t[0] + _STEP[dt][0] * m, port_t[1] + _STEP[dt][1] * m)
        for n, region in enumerate(_stages(world, es, et, m)):
            if n == 2 or not widest:
                widest = region
            obstacles = world.obstacles(region, excluded)
            padded = _padded(obstacles, m, es, et, lenient=m == tries[-1])
            if padded is None:
                break
            grid = _search(es, ds, et, (dt + 2) % 4, padded, region, bend)
            if grid is not None:
                path = _full(port_s, grid, port_t)
                if cache is not None:
                    # A route found after wider searches failed depends on all they saw.
                    cache.put(key, widest, world.obstacles(widest, excluded), path, True)
                return path, True
    # An end boxed in by overlapping cards: a plain elbow, reported as not clear.
    es = (port_s[0] + _STEP[ds][0] * margin, port_s[1] + _STEP[ds][1] * margin)
    et = (port_t[0] + _STEP[dt][0] * margin, port_t[1] + _STEP[dt][1] * margin)
    mid = (es[0], et[1]) if ds % 2 == 0 else (et[0], es[1])
    return _full(port_s, [es, mid, et], port_t), False


def _stages(world: _World, es: Pt, et: Pt, margin: float) -> list[tuple[Edges, ...]]:
    """The regions searched in turn: the two corridors, the box around both ends with
    room to go round, the whole board with a ring around it."""
    ex0, ey0, ex1, ey1 = world.extent
    ring = 4 * margin + 8
    x0, x1 = min(es[0], et[0]), max(es[0], et[0])
    y0, y1 = min(es[1], et[1]), max(es[1], et[1])
    room = 3 * CORRIDOR
    return [
        tuple(_corridors(es, et, CORRIDOR)),
        ((x0 - room, y0 - room, x1 + room, y1 + room),),
        ((min(ex0, x0) - ring, min(ey0, y0) - ring, max(ex1, x1) + ring, max(ey1, y1) + ring),),
    ]


def _full(port_s: Pt, grid: Sequence[Pt], port_t: Pt) -> tuple[Pt, ...]:
    return tuple(_simplify([port_s, *grid, port_t]))


def _simplify(points: Sequence[Pt]) -> list[Pt]:
    """Drop repeated points and the middle of three collinear ones."""
    out: list[Pt] = []
    for p in points:
        if out and abs(out[-1][0] - p[0]) < 1e-9 and abs(out[-1][1] - p[1]) < 1e-9:
            continue
        if len(out) >= 2:
            a, b = out[-2], out[-1]
            if (abs(a[0] - b[0]) < 1e-9 and abs(b[0] - p[0]) < 1e-9) or (
                abs(a[1] - b[1]) < 1e-9 and abs(b[1] - p[1]) < 1e-9
            ):
                out[-1] = p
                continue
        out.append(p)
    return out


def _padded(
    obstacles: Sequence[Box], margin: float, es: Pt, et: Pt, lenient: bool
) -> list[Edges] | None:
    """Obstacles padded by ``margin``, or by less for a card closer than that to an
    end's exit point, so both exit points stay outside every obstacle. None when an exit
    point lies on or in a card (the exit must come nearer its own card); ``lenient``
    (the last try) leaves such a card out instead: it overlaps the wire's end."""
    out = []
    for b in obstacles:
        x0, y0, x1, y1 = _edges(b)
        room = min(
            max(x0 - p[0], p[0] - x1, y0 - p[1], p[1] - y1) for p in (es, et)
        )  # how far the nearer exit point is outside the bare box
        if room <= 0:
            if not lenient:
                return None
            continue
        pad = min(margin, room)
        out.append((x0 - pad, y0 - pad, x1 + pad, y1 + pad))
    return out


@attrs.define(slots=True)
class _Grid:
    """The Hanan grid of one search: its line coordinates and which nodes and unit
    stretches lie inside the region and outside every obstacle."""

    xl: list[float]
    yl: list[float]
    node: np.ndarray  # inside the region, outside every obstacle
    hl: list[list[bool]]  # stretch (i, j)-(i+1, j) is free
    vl: list[list[bool]]  # stretch (i, j)-(i, j+1) is free

    def at(self, p: Pt) -> tuple[int, int]:
        return bisect.bisect_left(self.xl, p[0]), bisect.bisect_left(self.yl, p[1])

    def step(self, i: int, j: int, nd: int) -> tuple[int, int, float] | None:
        """The neighbour of (i, j) heading ``nd`` and the length to it; None when the
        stretch there is blocked or leaves the grid."""
        xl, yl = self.xl, self.yl
        if nd == 0:
            if i + 1 >= len(xl) or not self.hl[i][j]:
                return None
            return i + 1, j, xl[i + 1] - xl[i]
        if nd == 2:
            if i == 0 or not self.hl[i - 1][j]:
                return None
            return i - 1, j, xl[i] - xl[i - 1]
        if nd == 1:
            if j + 1 >= len(yl) or not self.vl[i][j]:
                return None
            return i, j + 1, yl[j + 1] - yl[j]
        if j == 0 or not self.vl[i][j - 1]:
            return None
        return i, j - 1, yl[j] - yl[j - 1]


def _grid_lines(
    start: Pt, goal: Pt, obstacles: Sequence[Edges], region: Sequence[Edges]
) -> tuple[np.ndarray, np.ndarray]:
    """The sorted x and y lines of the grid: the ends' and every box edge inside the
    region's bounds."""
    xs = {start[0], goal[0]}
    ys = {start[1], goal[1]}
    for r in (*region, *obstacles):
        xs.update((r[0], r[2]))
        ys.update((r[1], r[3]))
    bx0 = min(r[0] for r in region)
    bx1 = max(r[2] for r in region)
    by0 = min(r[1] for r in region)
    by1 = max(r[3] for r in region)
    X = np.array(sorted(x for x in xs if bx0 <= x <= bx1))
    Y = np.array(sorted(y for y in ys if by0 <= y <= by1))
    return X, Y


def _hanan_grid(start: Pt, goal: Pt, obstacles: Sequence[Edges], region: Sequence[Edges]) -> _Grid:
    X, Y = _grid_lines(start, goal, obstacles, region)
    nx, ny = len(X), len(Y)
    node = np.zeros((nx, ny), dtype=bool)
    h_ok = np.zeros((max(nx - 1, 0), ny), dtype=bool)
    v_ok = np.zeros((nx, max(ny - 1, 0)), dtype=bool)
    ss = np.searchsorted
    for rx0, ry0, rx1, ry1 in region:
        i0, i1 = ss(X, rx0, "left"), ss(X, rx1, "right")
        j0, j1 = ss(Y, ry0, "left"), ss(Y, ry1, "right")
        node[i0:i1, j0:j1] = True
        h_ok[i0 : i1 - 1, j0:j1] = True
        v_ok[i0:i1, j0 : j1 - 1] = True
    for ox0, oy0, ox1, oy1 in obstacles:
        ii0, ii1 = ss(X, ox0, "right"), ss(X, ox1, "left")  # strictly inside
        jj0, jj1 = ss(Y, oy0, "right"), ss(Y, oy1, "left")
        a, b = ss(X, ox0, "left"), ss(X, ox1, "right")  # segments within [ox0, ox1]
        c, d = ss(Y, oy0, "left"), ss(Y, oy1, "right")
        node[ii0:ii1, jj0:jj1] = False
        h_ok[a : b - 1, jj0:jj1] = False
        v_ok[ii0:ii1, c : d - 1] = False
    return _Grid(X.tolist(), Y.tolist(), node, h_ok.tolist(), v_ok.tolist())


def _search(
    start: Pt,
    d0: int,
    goal: Pt,
    d_in: int,
    obstacles: Sequence[Edges],
    region: Sequence[Edges],
    bend: float,
) -> list[Pt] | None:
    """A* over the Hanan grid of the obstacles' edges inside ``region``, from ``start``
    heading ``d0`` to ``goal`` arriving heading ``d_in``; the grid points of the path,
    or None when the region holds no path."""
    grid = _hanan_grid(start, goal, obstacles, region)
    (si, sj), (gi, gj) = grid.at(start), grid.at(goal)
    if not (grid.node[si, sj] and grid.node[gi, gj]):
        return None
    return _astar(grid, (si, sj, d0), (gi, gj), d_in, bend)


def _astar(
    grid: _Grid, first: tuple[int, int, int], goal: tuple[int, int], d_in: int, bend: float
) -> list[Pt] | None:
    xl, yl = grid.xl, grid.yl
    gi, gj = goal
    gx, gy = xl[gi], yl[gj]

    def h(i: int, j: int) -> float:
        dx, dy = abs(xl[i] - gx), abs(yl[j] - gy)
        return dx + dy + (bend if dx > 1e-9 and dy > 1e-9 else 0.0)

    si, sj, d0 = first
    best: dict[tuple[int, int, int], float] = {first: 0.0}
    came: dict[tuple[int, int, int], tuple[int, int, int] | None] = {first: None}
    # Entries (f, h, g, ...): among equal f the state nearest the goal goes first. A
    # board's grid has many paths of one length, and breaking ties towards the goal
    # follows one of them instead of widening over all of them.
    h0 = h(si, sj)
    heap: list[tuple[float, float, float, int, int, int, int]] = [(h0, h0, 0.0, si, sj, d0, 0)]
    push, pop = heapq.heappush, heapq.heappop
    while heap:
        _, _, g, i, j, d, done = pop(heap)
        state = (i, j, d)
        if done:
            return _walk(came, state, xl, yl)
        if g > best.get(state, math.inf):
            continue
        if i == gi and j == gj:
            turn = 0.0 if d == d_in else (2 * bend if d == (d_in + 2) % 4 else bend)
            push(heap, (g + turn, 0.0, g + turn, i, j, d, 1))
            continue
        for nd in _TURNS[d]:
            nxt = grid.step(i, j, nd)
            if nxt is None:
                continue
            ni, nj, length = nxt
            ng = g + length + (bend if nd != d else 0.0)
            nstate = (ni, nj, nd)
            if ng < best.get(nstate, math.inf) - 1e-9:
                best[nstate] = ng
                came[nstate] = state
                hn = h(ni, nj)
                push(heap, (ng + hn, hn, ng, ni, nj, nd, 0))
    return None


#: Headings a wire may take next from each heading, in the order tried: all but back.
_TURNS = tuple(tuple(nd for nd in range(4) if nd != (d + 2) % 4) for d in range(4))


def _walk(
    came: Mapping[tuple[int, int, int], tuple[int, int, int] | None],
    state: tuple[int, int, int],
    xl: Sequence[float],
    yl: Sequence[float],
) -> list[Pt]:
    out: list[Pt] = []
    cur: tuple[int, int, int] | None = state
    while cur is not None:
        out.append((xl[cur[0]], yl[cur[1]]))
        cur = came[cur]
    out.reverse()
    return _simplify(out)


def _place_label(
    world: _World,
    excluded: _Excluded,
    path: Sequence[Pt],
    size: tuple[float, float],
    placed: GridIndex,
) -> Box | None:
    """The label box centred on the wire: on its longest stretch first, as near that
    stretch's middle as a spot clear of cards and earlier labels allows; None when no
    stretch has room."""
    lw, lh = size
    for a, b in _segments(path, lw):
        length = abs(b[0] - a[0]) + abs(b[1] - a[1])
        steps = max(1, int(length // 12))
        # from the middle outwards, both ways
        for s in sorted(range(steps + 1), key=lambda s: (abs(s - steps / 2), s)):
            t = s / steps
            cx, cy = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
            box = (cx - lw / 2, cy - lh / 2, lw, lh)
            if _clear(world, excluded, box, placed):
                return box
    return None


def _segments(path: Sequence[Pt], width: float = 0.0) -> list[tuple[Pt, Pt]]:
    """The path's segments, longest first; with a label ``width``, the level ones long
    enough to hold it come before the upright ones (a label is wider than the gap
    between two cards, where upright stretches mostly run)."""
    segs = sorted(
        (
            (
                not (abs(b[1] - a[1]) < 1e-9 and abs(b[0] - a[0]) >= width),
                -(abs(b[0] - a[0]) + abs(b[1] - a[1])),
                k,
                a,
                b,
            )
            for k, (a, b) in enumerate(itertools.pairwise(path))
        ),
    )
    return [(a, b) for _, neg, _, a, b in segs if neg <= -1]


def _clear(world: _World, excluded: _Excluded, box: Box, placed: GridIndex) -> bool:
    """Whether a label box keeps its clearance from the cards and the labels placed."""
    c = LABEL_CLEARANCE
    if placed.query(box[0] - c, box[1] - c, box[2] + 2 * c, box[3] + 2 * c):
        return False
    return not world.keys_in([_edges(box)], excluded, pad=c)


#: How far from its wire a label that found no room on it may sit.
LEADER_REACH = 200.0


def _place_beside(
    world: _World,
    excluded: _Excluded,
    path: Sequence[Pt],
    size: tuple[float, float],
    placed: GridIndex,
) -> tuple[Box | None, tuple[Pt, Pt] | None]:
    """A label that has no room on its wire (a short wire between two close cards):
    the nearest clear spot straight out from a point of the wire, tied to it by a
    leader that itself crosses no card."""
    lw, lh = size
    best: tuple[float, Box, tuple[Pt, Pt]] | None = None
    for a, b in _segments(path):
        length = abs(b[0] - a[0]) + abs(b[1] - a[1])
        steps = min(8, max(1, int(length // 12)))
        for s in range(steps + 1):
            t = s / steps
            px, py = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
            for nx, ny in ((0.0, -1.0), (0.0, 1.0), (-1.0, 0.0), (1.0, 0.0)):
                reach = 8.0
                while reach <= LEADER_REACH and (best is None or reach < best[0]):
                    ex, ey = px + nx * reach, py + ny * reach  # the leader's far end
                    line = (min(px, ex), min(py, ey), max(px, ex), max(py, ey))
                    if world.keys_in([line], excluded, pad=0.0):
                        break  # the leader would cross a card: farther is no better
                    cx = ex + nx * lw / 2
                    cy = ey + ny * lh / 2
                    box = (cx - lw / 2, cy - lh / 2, lw, lh)
                    if _clear(world, excluded, box, placed):
                        best = (reach, box, ((px, py), (ex, ey)))
                        break
                    reach += 8.0
    if best is None:
        return None, None
    return best[1], best[2]


def crossings(
    routes: Sequence[Route | None],
    wires: Sequence[WireSpec],
    boxes: Mapping[Hashable, Box],
    parents: Mapping[Hashable, Hashable],
) -> tuple[int, int]:
    """(wires whose path passes through the inside of a card they should avoid, labels
    whose box overlaps such a card or either end card), measured with shapely; what the
    tests and the bench hold at zero."""
    import shapely

    world = _World(boxes, parents)
    bad_wires = bad_labels = 0
    for route, wire in zip(routes, wires, strict=True):
        if route is None:
            continue
        ex = world.excluded(wire.src, wire.dst)
        keys = [k for k in world.index.query(*_bounds(route.points)) if k not in ex.skip]
        line = shapely.LineString(route.points)
        polys = [shapely.box(*_edges(boxes[k])) for k in keys]
        if polys and any(shapely.relate_pattern(polys, line, "T********")):
            bad_wires += 1
        if route.label is not None:
            lx, ly, lw, lh = route.label
            near = [k for k in world.index.query(lx, ly, lw, lh) if k not in ex.skip]
            if near:
                bad_labels += 1
    return bad_wires, bad_labels


def _bounds(points: Sequence[Pt]) -> Box:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return min(xs), min(ys), max(max(xs) - min(xs), 1e-3), max(max(ys) - min(ys), 1e-3)
