"""Last touches on routed wires, where the layered routing leaves a knot a person would not draw.

Each pass works on the written geo (a top-down view of it: a left-right diagram is
read with x and y swapped) and only ever replaces a wire by a simpler one that
crosses no node box and meets no other wire's end:

- two states that lead to each other (``A --> B``, ``B --> A``) on neighbouring
  layers get two straight, parallel wires across their shared width, one each way,
  instead of two interlocked elbows that share a run;
- a wire with a small jog between two boxes stacked over each other runs straight;
- of several wires that reach a start or end marker from above, those that come down
  beside it turn into its side, so their arrowheads stand apart;
- two wires between the same two layers that jog past each other in opposite senses
  (``A & B --> C & D``) would run as a ladder of parallel legs no one can follow: each
  is marked ``slant``, which the drawing draws as one straight line to just above its
  target and a short run in, so they cross once, in an X;
- a wire that starts or ends on a frame (``one --> two`` between subgraphs) and bends
  on its way runs straight between the sides the two boxes turn to each other, in the
  middle of the width (or height) they share, rather than leaving a frame's far side
  at a height the routing picked for the frame's first member.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from layoutkit.limits import DIAGRAM_NODES

Box = dict[str, float]
Point = list[float]

#: Least shared width for two straight wires between a pair of states (px).
PAIR_ROOM = 20.0
#: Gap between the two wires of a pair, at most (px).
PAIR_GAP = 24.0
#: Largest sideways jog straightened away (px).
JOG = 12.0
#: Wire ends closer than this on one side of a box would put arrowheads side by side (px).
CLEAR = 16.0
#: The short run into its target a slanted wire keeps, for an upright arrowhead (px).
SLANT_STUB = 10.0
#: Shortest straight wire between a frame and its neighbour: room for an arrowhead (px).
FRAME_GAP = 16.0
#: Markers: the small round start and end states (and junctions).
MARKERS = frozenset({"start", "end", "filled-circle"})


def tidy_wires(geo: dict[str, Any], shapes: dict[str, str], lr: bool) -> None:
    """Apply the passes to ``geo`` in place; ``shapes`` gives each node's shape.

    Graphs over the diagram node cap (the bench lifts it) are left as routed: each
    pass looks at every box for each wire it may change.
    """
    if len(geo["nodes"]) > DIAGRAM_NODES:
        return
    view = _View(geo, lr)
    _straight_pairs(view)
    _crossing_pairs(view)
    _marker_sides(view, shapes)
    _straight_jogs(view, shapes)
    _frame_facing(view)
    view.write_back()


class _View:
    """The geo's node boxes and wires read top-down (x and y swapped for LR)."""

    def __init__(self, geo: dict[str, Any], lr: bool) -> None:
        self.geo, self.lr = geo, lr
        # No pass changes a box or a point in place (a changed wire gets new points),
        # so a top-down diagram's boxes and point lists are read as they are in geo.
        if lr:
            self.boxes: dict[str, Box] = {k: self._box(b) for k, b in geo["nodes"].items()}
            self.groups: dict[str, Box] = {k: self._box(b) for k, b in geo["groups"].items()}
        else:
            self.boxes, self.groups = geo["nodes"], geo["groups"]
        self.frames: list[Box] = list(self.groups.values())
        self.wires: list[dict[str, Any]] = []
        # A pass never makes a wire plain or not (it only gives it two points or more).
        self.plain_wires: list[dict[str, Any]] = []
        # Plain wires of four points as routed: a wire a pass changes is marked, and the
        # passes that look for four points take unchanged wires only.
        self.quads: list[dict[str, Any]] = []
        for e in geo["edges"]:
            pts = [[p[1], p[0]] for p in e["points"]] if lr else e["points"]
            w = {"edge": e, "points": pts, "changed": False}
            self.wires.append(w)
            if self._is_plain(w):
                self.plain_wires.append(w)
                if len(pts) == 4:
                    self.quads.append(w)
        # Wire ends by their rounded y, for :meth:`ends_near`; made when first asked (most
        # diagrams have no wire a pass may change).
        self.ends: dict[int, list[tuple[float, int]]] | None = None

    def _index(self, ends: dict[int, list[tuple[float, int]]], i: int, w: dict[str, Any]) -> None:
        if w["points"]:
            for x, y in (w["points"][0], w["points"][-1]):
                ends.setdefault(round(y), []).append((x, i))

    def _ends(self) -> dict[int, list[tuple[float, int]]]:
        if self.ends is None:
            self.ends = {}
            for i, w in enumerate(self.wires):
                self._index(self.ends, i, w)
        return self.ends

    def _box(self, b: dict[str, Any]) -> Box:
        if self.lr:
            return {"x": b["y"], "y": b["x"], "w": b["h"], "h": b["w"]}
        return {"x": b["x"], "y": b["y"], "w": b["w"], "h": b["h"]}

    def _pt(self, p: list[float]) -> Point:
        return [p[1], p[0]] if self.lr else [p[0], p[1]]

    def _is_plain(self, w: dict[str, Any]) -> bool:
        e = w["edge"]
        if e.get("loop") or "label" in e or len(w["points"]) < 2:
            return False
        return e["from"] in self.boxes and e["to"] in self.boxes and e["from"] != e["to"]

    def plain(self) -> list[dict[str, Any]]:
        """Wires between two node boxes (not a frame, a port or a loop), without a label."""
        return self.plain_wires

    def set(self, wire: dict[str, Any], points: list[Point]) -> None:
        old = wire["points"]
        wire["points"] = [[round(x, 2), round(y, 2)] for x, y in points]
        wire["changed"] = True
        if self.ends is not None:
            # Which ends sit where is all the index says: its order does not matter.
            ends = self.ends
            i = next(k for k, w in enumerate(self.wires) if w is wire)
            for key in {round(old[0][1]), round(old[-1][1])}:
                ends[key] = [(x, j) for x, j in ends.get(key, []) if j != i]
            self._index(ends, i, wire)

    def clear(self, x: float, y0: float, y1: float, skip: set[str]) -> bool:
        """True when the upright run at ``x`` from ``y0`` to ``y1`` crosses no node box
        (but those in ``skip``) and no frame edge."""
        lo, hi = min(y0, y1), max(y0, y1)
        for nid, b in self.boxes.items():
            if nid in skip:
                continue
            if b["x"] - 1 < x < b["x"] + b["w"] + 1 and b["y"] < hi and lo < b["y"] + b["h"]:
                return False
        for f in self.frames:
            inside_x = f["x"] < x < f["x"] + f["w"]
            for edge_y in (f["y"], f["y"] + f["h"]):
                if inside_x and lo < edge_y < hi:
                    return False
            for edge_x in (f["x"], f["x"] + f["w"]):
                if abs(x - edge_x) < 1 and f["y"] < hi and lo < f["y"] + f["h"]:
                    return False
        return True

    def open_line(self, p: tuple[float, float], q: tuple[float, float], skip: set[str]) -> bool:
        """True when the straight line from ``p`` to ``q`` passes through no node box (but
        those in ``skip``) and crosses no frame's edge."""
        lo_x, hi_x = min(p[0], q[0]), max(p[0], q[0])
        lo_y, hi_y = min(p[1], q[1]), max(p[1], q[1])
        for nid, b in self.boxes.items():
            if nid in skip or b["x"] >= hi_x or b["x"] + b["w"] <= lo_x:
                continue
            if b["y"] < hi_y and lo_y < b["y"] + b["h"] and _clips(p, q, b):
                return False
        for f in self.frames:
            inside = [_holds(f, pt) for pt in (p, q)]
            if inside[0] != inside[1] or (not any(inside) and _clips(p, q, f)):
                return False
        return True

    def ends_near(self, x: float, y: float, skip: list[dict[str, Any]]) -> bool:
        """True when another wire starts or ends within :data:`CLEAR` of (x, y)."""
        ids = {id(s) for s in skip}
        ends = self._ends()
        for key in (round(y) - 1, round(y), round(y) + 1):
            for ex, i in ends.get(key, []):
                w = self.wires[i]
                if id(w) in ids:
                    continue
                for px, py in (w["points"][0], w["points"][-1]):
                    if abs(py - y) < 1 and abs(px - x) < CLEAR and ex == px:
                        return True
        return False

    def write_back(self) -> None:
        for w in self.wires:
            if w["changed"]:
                w["edge"]["points"] = [self._pt(p) for p in w["points"]]


def _holds(b: Box, pt: tuple[float, float]) -> bool:
    return b["x"] <= pt[0] <= b["x"] + b["w"] and b["y"] <= pt[1] <= b["y"] + b["h"]


def _clips(p: tuple[float, float], q: tuple[float, float], b: Box) -> bool:
    """Whether the segment from ``p`` to ``q`` passes through the inside of box ``b``
    (Liang-Barsky clipping; touching an edge does not count)."""
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for step, room in (
        (-dx, p[0] - b["x"]),
        (dx, b["x"] + b["w"] - p[0]),
        (-dy, p[1] - b["y"]),
        (dy, b["y"] + b["h"] - p[1]),
    ):
        if step == 0:
            if room <= 0:
                return False
            continue
        t = room / step
        if step < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 >= t1:
            return False
    return True


def _span(a: Box, b: Box) -> tuple[float, float]:
    return max(a["x"], b["x"]), min(a["x"] + a["w"], b["x"] + b["w"])


def _straight_pairs(view: _View) -> None:
    plain = view.plain()
    # The first plain wire from each node to each other: a lookup, not a scan per wire.
    first: dict[tuple[str, str], dict[str, Any]] = {}
    for w in plain:
        first.setdefault((w["edge"]["from"], w["edge"]["to"]), w)
    if not any((b, a) in first for a, b in first):
        return  # no two states lead to each other (the common case): nothing to count
    count = Counter(frozenset((w["edge"]["from"], w["edge"]["to"])) for w in view.wires)
    for down in plain:
        a, b = down["edge"]["from"], down["edge"]["to"]
        up = first.get((b, a))
        if up is None or count[frozenset((a, b))] != 2:
            continue
        top, low = view.boxes[a], view.boxes[b]
        y0, y1 = top["y"] + top["h"], low["y"]
        if y1 <= y0:
            continue  # the upper one's pair is handled from the other wire
        lo, hi = _span(top, low)
        if hi - lo < PAIR_ROOM:
            continue
        spot = _pair_spot(view, [down, up], lo, hi, y0, y1, {a, b})
        if spot is not None:
            view.set(down, [[spot[0], y0], [spot[0], y1]])
            view.set(up, [[spot[1], y1], [spot[1], y0]])


def _pair_spot(
    view: _View,
    pair: list[dict[str, Any]],
    lo: float,
    hi: float,
    y0: float,
    y1: float,
    skip: set[str],
) -> tuple[float, float] | None:
    """Where the two wires of a pair run (down, up): centred in the shared width
    ``lo``..``hi`` if nothing is in the way, else nudged aside or drawn closer."""
    mid = (lo + hi) / 2
    for gap in (min(PAIR_GAP, (hi - lo) / 2), 12.0):
        for off in (0.0, 4.0, -4.0, 8.0, -8.0, 12.0, -12.0):
            xs = (mid + off - gap / 2, mid + off + gap / 2)
            if xs[0] < lo + 4 or xs[1] > hi - 4:
                continue
            if not all(view.clear(x, y0, y1, skip) for x in xs):
                continue
            if any(view.ends_near(x, y, pair) for x in xs for y in (y0, y1)):
                continue
            return xs
    return None


def _zig(w: dict[str, Any]) -> tuple[float, float, float, float] | None:
    """(x start, y start, x end, y end) of a downward wire that runs down, across, down."""
    pts = w["points"]
    if len(pts) != 4 or w["changed"]:
        return None
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = pts
    if not (ax == bx and by == cy and cx == dx) or ax == dx or dy <= ay:
        return None
    return ax, ay, dx, dy


def _crossing_pairs(view: _View) -> None:
    zigs = [(w, z) for w in view.quads if (z := _zig(w)) is not None]
    # Every pair once, in order; the first test drops most (they jog between other layers).
    for i, (w1, (a1, t1, b1, e1)) in enumerate(zigs):
        for w2, (a2, t2, b2, e2) in zigs[i + 1 :]:
            # (Chained comparisons: ``abs`` calls cost more than the test, pair by pair.)
            if not (-0.5 <= t1 - t2 <= 0.5 and -0.5 <= e1 - e2 <= 0.5):
                continue
            if w1["changed"] or w2["changed"]:
                continue
            if (b1 - a1) * (b2 - a2) >= 0:
                continue  # they jog the same way: no crossing to untangle
            # Their runs across share some width: they would pass each other in the gap.
            if max(min(a1, b1), min(a2, b2)) >= min(max(a1, b1), max(a2, b2)):
                continue
            # Drawn slanted, each runs straight from its start to just above its target
            # (render's SLANT_STUB); the route stays orthogonal: crossings and metrics count it.
            lines = (
                (w1, (a1, t1), (b1, max(e1 - SLANT_STUB, t1))),
                (w2, (a2, t2), (b2, max(e2 - SLANT_STUB, t2))),
            )
            if all(view.open_line(p, q, {w["edge"]["from"], w["edge"]["to"]}) for w, p, q in lines):
                for w, _p, _q in lines:
                    w["edge"]["slant"] = True
                    w["changed"] = True


def _straight_jogs(view: _View, shapes: dict[str, str]) -> None:
    for w in view.quads:
        pts = w["points"]
        if len(pts) != 4 or w["changed"]:
            continue
        (ax, ay), (bx, by), (cx, cy), (dx, dy) = pts
        if not (ax == bx and by == cy and cx == dx) or abs(ax - dx) > JOG or dy <= ay:
            continue
        src, dst = view.boxes[w["edge"]["from"]], view.boxes[w["edge"]["to"]]
        lo, hi = _span(src, dst)
        centre = dst["x"] + dst["w"] / 2
        # A marker is met in its middle; otherwise keep the end that already sits well.
        picks = [centre] if shapes.get(w["edge"]["to"]) in MARKERS else []
        picks += [ax, dx]
        skip = {w["edge"]["from"], w["edge"]["to"]}
        for x in picks:
            if not lo + 4 <= x <= hi - 4:
                continue
            if not view.clear(x, ay, dy, skip):
                continue
            if view.ends_near(x, ay, [w]) or view.ends_near(x, dy, [w]):
                continue
            view.set(w, [[x, ay], [x, dy]])
            break


def _marker_sides(view: _View, shapes: dict[str, str]) -> None:
    for nid, box in view.boxes.items():
        if shapes.get(nid) not in MARKERS:
            continue
        top, cy = box["y"], box["y"] + box["h"] / 2
        left, right = box["x"], box["x"] + box["w"]
        arriving = [
            w
            for w in view.plain()
            if w["edge"]["to"] == nid and abs(w["points"][-1][1] - top) < 0.5
        ]
        if len(arriving) < 2:
            continue
        arriving.sort(key=lambda w: w["points"][-1][0])
        # The outermost wires that come down beside the marker turn into its sides.
        for w, side in ((arriving[-1], right), (arriving[0], left)):
            pts = w["points"]
            if len(pts) < 4:
                continue
            (xv, _), (xh, yh), (xe, _), _ = pts[-4:]
            beside = xv > right if side == right else xv < left
            if not (xv == xh and yh == pts[-2][1] and xe == pts[-1][0] and beside):
                continue
            if not view.clear(xv, yh, cy, {w["edge"]["from"], nid}):
                continue
            view.set(w, [*pts[:-3], [xv, cy], [side, cy]])
            arriving = [a for a in arriving if a is not w]
            if len(arriving) < 2:
                break


def _frame_facing(view: _View) -> None:
    if not view.groups:
        return  # only wires to or from a frame are looked at
    for w in view.wires:
        e = w["edge"]
        if w["changed"] or e.get("loop") or "label" in e or len(w["points"]) < 3:
            continue
        a, b = e["from"], e["to"]
        if a not in view.groups and b not in view.groups:
            continue
        src = view.groups.get(a) or view.boxes.get(a)
        dst = view.groups.get(b) or view.boxes.get(b)
        if src is None or dst is None or a == b:
            continue
        straight = _facing_line(view, w, src, dst, {a, b})
        if straight is not None:
            view.set(w, straight)


def _facing_line(
    view: _View, w: dict[str, Any], src: Box, dst: Box, skip: set[str]
) -> list[Point] | None:
    """A straight wire from ``src`` to ``dst`` across the gap between the sides they
    face each other with, or None when they do not face each other over a gap or
    something stands in it."""
    for axis in ("y", "x"):
        other = "x" if axis == "y" else "y"
        size, across = ("h", "w") if axis == "y" else ("w", "h")
        if src[axis] + src[size] + FRAME_GAP <= dst[axis]:
            start, end = src[axis] + src[size], dst[axis]
        elif dst[axis] + dst[size] + FRAME_GAP <= src[axis]:
            start, end = src[axis], dst[axis] + dst[size]
        else:
            continue
        lo = max(src[other], dst[other])
        hi = min(src[other] + src[across], dst[other] + dst[across])
        if hi - lo < PAIR_ROOM:
            continue
        mid = (lo + hi) / 2
        for off in (0.0, 8.0, -8.0, 16.0, -16.0):
            at = mid + off
            if not lo + 4 <= at <= hi - 4:
                continue
            p, q = ((at, start), (at, end)) if axis == "y" else ((start, at), (end, at))
            if not _gap_open(view, p, q, skip):
                continue
            if view.ends_near(p[0], p[1], [w]) or view.ends_near(q[0], q[1], [w]):
                continue
            return [list(p), list(q)]
    return None


def _gap_open(view: _View, p: tuple[float, float], q: tuple[float, float], skip: set[str]) -> bool:
    """Whether the straight run from ``p`` to ``q`` (each on the side of one end's box)
    meets no node box and crosses no frame's edge but those of its own ends."""
    for nid, b in view.boxes.items():
        if nid not in skip and _clips(p, q, b):
            return False
    for gid, f in view.groups.items():
        if gid in skip:
            continue
        if _holds(f, p) != _holds(f, q) or (not _holds(f, p) and _clips(p, q, f)):
            return False
    return True
