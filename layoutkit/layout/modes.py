"""Layout modes: where a list of boxes goes, relative to an origin at (0, 0).

Every mode has the same shape, ``mode(items, opts) -> list[(x, y)]`` with
one position per item in input order, so compose (batch layouts), frames
(managed section and cluster layouts) and ``arrange`` share one registry.
Modes never produce overlapping boxes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from datetime import date, datetime
from typing import Any

import attrs

Pos = tuple[float, float]


@attrs.frozen(slots=True)
class Item:
    """One box to lay out; ``x``/``y`` (relative to the origin) matter only to the
    alignment modes, ``payload``/``kind``/``created`` to lanes, time and tree modes."""

    key: Hashable
    w: float
    h: float
    x: float = 0.0
    y: float = 0.0
    kind: str = ""
    payload: dict[str, Any] = attrs.field(factory=dict)
    created: int = 0


@attrs.frozen(slots=True)
class Opts:
    gap: float = 24.0
    cols: int | None = None  # None: the mode's default; 0: "auto"
    aspect: float = 1.6
    wires: tuple[tuple[Hashable, Hashable], ...] = ()


ModeFn = Callable[[Sequence[Item], Opts], list[Pos]]


def column(items: Sequence[Item], o: Opts) -> list[Pos]:
    out, y = [], 0.0
    for it in items:
        out.append((0.0, y))
        y += it.h + o.gap
    return out


def row(items: Sequence[Item], o: Opts) -> list[Pos]:
    out, x = [], 0.0
    for it in items:
        out.append((x, 0.0))
        x += it.w + o.gap
    return out


def resolve_cols(n: int, cols: int | None, default: int = 3) -> int:
    """Column count: explicit, ``0`` for auto (near-square grid), else ``default``."""
    if cols is None:
        cols = default
    if cols <= 0:
        cols = max(1, round(math.sqrt(n * 1.6))) if n else 1
    return max(1, min(cols, max(n, 1)))


#: A card is wide, in grid and masonry, when it is wider than this many typical cards
#: (the median width) side by side: it would otherwise set a column's width for every
#: card in that column and leave the others far apart.
WIDE = 1.5
#: Aspect (w/h) ``cols: auto`` aims the block at, as compose's default aspect does.
AUTO_ASPECT = 1.6


def is_heading(it: Item) -> bool:
    """A heading card: it belongs with the cards that follow it in reading order."""
    return it.kind == "text" and it.payload.get("role") == "heading"


def _wide_limit(items: Sequence[Item], gap: float) -> float:
    ws = sorted(it.w for it in items)
    median = ws[len(ws) // 2] if ws else 0.0
    return WIDE * median + gap * (WIDE - 1)


def _auto(
    items: Sequence[Item], o: Opts, fn: Callable[[Sequence[Item], Opts, int], list[Pos]]
) -> list[Pos]:
    """``fn`` laid out with the column count whose block comes closest to
    :data:`AUTO_ASPECT`, wasting the least area on ties."""
    n = len(items)
    guess = resolve_cols(n, 0)
    best: tuple[tuple[float, float], list[Pos]] | None = None
    for c in sorted({*range(1, min(n, 2 * guess + 2) + 1)}):
        pos = fn(items, o, c)
        w = max(p[0] + it.w for p, it in zip(pos, items, strict=True))
        h = max(p[1] + it.h for p, it in zip(pos, items, strict=True))
        if w and h:
            fill = sum(it.w * it.h for it in items) / (w * h)
            score = (round(_shelf_score(abs(math.log((w / h) / AUTO_ASPECT)), fill), 9), w * h)
        else:
            score = (0.0, 0.0)
        if best is None or score < best[0]:
            best = (score, pos)
    return best[1] if best is not None else []


def grid(items: Sequence[Item], o: Opts) -> list[Pos]:
    """Rows of ``cols`` cards; each column as wide as its widest card, each row as tall as
    its tallest. A wide card (wider than :data:`WIDE` typical cards) spans as many
    columns as its width needs and sets no column's width (the card after it on its row
    starts at the gap after it); a heading starts a row, so the cards after it follow it
    on its row. ``cols: auto`` takes the count whose block is nearest the aspect 1.6."""
    if not items:
        return []
    if o.cols is not None and o.cols <= 0:
        return _auto(items, o, _grid)
    return _grid(items, o, resolve_cols(len(items), o.cols))


def _grid(items: Sequence[Item], o: Opts, cols: int) -> list[Pos]:
    limit = _wide_limit(items, o.gap)
    unit = max((it.w for it in items if it.w <= limit), default=0.0) + o.gap
    # Each card's row, first column and span: a wide card spans the columns its width
    # needs (all of them at most) and sets no column's width.
    cells: list[tuple[int, int, int]] = []
    r = c = 0
    for it in items:
        span = 1 if it.w <= limit else min(cols, math.ceil(it.w / unit - 1e-9))
        if c > 0 and (c + span > cols or is_heading(it)):
            r, c = r + 1, 0
        cells.append((r, c, span))
        c += span
        if c >= cols:
            r, c = r + 1, 0
    rows = r + (1 if c else 0)
    widths = [0.0] * cols
    heights = [0.0] * rows
    for it, (ri, ci, span) in zip(items, cells, strict=True):
        if span == 1:
            widths[ci] = max(widths[ci], it.w)
        heights[ri] = max(heights[ri], it.h)
    xs = _offsets(widths, o.gap)
    ys = _offsets(heights, o.gap)
    out: list[Pos] = []
    right, row = -math.inf, -1
    for it, (ri, ci, _) in zip(items, cells, strict=True):
        if ri != row:
            right, row = -math.inf, ri
        # A wide card can reach past the columns it spans: the next one on its row
        # then starts after it, at the gap.
        x = max(xs[ci], right + o.gap)
        out.append((x, ys[ri]))
        right = x + it.w
    return out


def _offsets(sizes: list[float], gap: float) -> list[float]:
    out, acc = [], 0.0
    for s in sizes:
        out.append(acc)
        acc += s + gap
    return out


#: A card may stack under a sub-column up to this many times the sub-column's width
#: (the sub-column widens); wider cards start a sub-column of their own.
SHELF_WIDEN = 3.0
#: Weight of wasted area against distance from the target aspect when choosing the width.
SHELF_FILL_WEIGHT = 2.0
#: Off-aspect tolerated before it costs much more (log of 1.25: a quarter off target).
SHELF_ASPECT_SLACK = math.log(1.25)
_EPS = 1e-9


#: Where the outcome of one packing holds: ``[lo_e, hi_e, lo, hi]`` such that any row
#: width ``limit`` with ``lo_e <= limit + _EPS < hi_e`` and ``lo <= limit < hi`` takes
#: every branch this one took, so it packs exactly alike.
Bounds = list[float]


def _shelf_row(
    ws: Sequence[float],
    hs: Sequence[float],
    start: int,
    cap: float,
    gap: float,
    limit: float,
    bounds: Bounds,
) -> tuple[list[Pos], int, float, float, int | None]:
    """One row from card ``start`` on (widths ``ws``, heights ``hs``) within ``cap`` high.

    Cards go into sub-columns left to right; a card drops under the current sub-column
    when it fits there below ``cap``, and a card narrow enough sits beside the one above
    it on that sub-column's current line. Returns positions relative to the row's top
    left, the index after the row, the row's width and height, and the index of a card
    that would fit only if the row were taller (None when the row ended on width).
    Narrows ``bounds`` to the widths that compare with ``limit`` as this one did."""
    out: list[Pos] = []
    x = height = 0.0
    col_x = col_w = 0.0  # current sub-column
    line_x = line_y = line_h = 0.0  # current line inside it
    lines = 0
    cap_e = cap + _EPS
    limit_e = limit + _EPS
    j, n = start, len(ws)
    while j < n:
        w, h = ws[j], hs[j]
        if lines and h <= cap_e:
            if lines > 1 and line_x + w <= col_x + col_w + _EPS and line_y + h <= cap_e:
                out.append((line_x, line_y))
                line_x += w + gap
                if h > line_h:
                    line_h = h
                    if line_y + h > height:
                        height = line_y + h
                j += 1
                continue
            below = line_y + line_h + gap
            wide = w if w > col_w else col_w
            if (
                below + h <= cap_e
                and w <= col_w * SHELF_WIDEN
                and _within(col_x + wide, limit_e, bounds, 0)
            ):
                out.append((col_x, below))
                col_w = wide
                x = col_x + wide + gap
                line_x, line_y, line_h, lines = col_x + w + gap, below, h, lines + 1
                if below + h > height:
                    height = below + h
                j += 1
                continue
        if h > cap_e:
            return out, j, max(x - gap, 0.0), height, j
        if lines and not _within(x + w, limit_e, bounds, 0):
            return out, j, x - gap, height, None
        out.append((x, 0.0))
        col_x, col_w = x, w
        line_x, line_y, line_h, lines = x + w + gap, 0.0, h, 1
        x += w + gap
        if h > height:
            height = h
        j += 1
    return out, j, x - gap, height, None


def _shelf_rows(
    ws: Sequence[float], hs: Sequence[float], gap: float, limit: float, bounds: Bounds
) -> tuple[list[Pos], float, float]:
    pos: list[Pos] = []
    y = width = 0.0
    i, n = 0, len(ws)
    while i < n:
        cap = hs[i]
        row = _shelf_row(ws, hs, i, cap, gap, limit, bounds)
        while True:
            # A taller card just after the row (the one that stopped it, or the tallest
            # within a row's width ahead) may fit if the row were as tall as it, since
            # the cards before it could then stack. Keep that row only if the tall card
            # makes it in; every kept row ends later, so this stops.
            k = (
                row[4]
                if row[4] is not None
                else _taller_ahead(ws, hs, row[1], cap, gap, limit, bounds)
            )
            if k is None:
                break
            taller = _shelf_row(ws, hs, i, hs[k], gap, limit, bounds)
            if taller[1] <= k:
                break
            row, cap = taller, hs[k]
        out, i, w, h, _ = row
        if y:
            pos.extend([(px, y + py) for px, py in out])
        else:
            pos.extend(out)
        if w > width:
            width = w
        y += h + gap
    return pos, width, max(y - gap, 0.0)


def _taller_ahead(
    ws: Sequence[float],
    hs: Sequence[float],
    j: int,
    cap: float,
    gap: float,
    limit: float,
    bounds: Bounds,
) -> int | None:
    """The tallest card taller than ``cap`` among those from ``j`` on that would fill one
    row's width, or None."""
    best: int | None = None
    tallest = cap
    span = 0.0
    n = len(ws)
    while j < n and _within(span, limit, bounds, 2):
        if hs[j] > tallest + _EPS:
            best, tallest = j, hs[j]
        span += ws[j] + gap
        j += 1
    return best


def _within(value: float, edge: float, bounds: Bounds, at: int) -> bool:
    """``value <= edge``, narrowing ``bounds[at]`` (the least edge) or ``bounds[at + 1]``
    (the first edge past it) to the edges that answer alike."""
    if value <= edge:
        if value > bounds[at]:
            bounds[at] = value
        return True
    if value < bounds[at + 1]:
        bounds[at + 1] = value
    return False


def _unbounded() -> Bounds:
    return [-math.inf, math.inf, -math.inf, math.inf]


def shelf_rows(items: Sequence[Item], gap: float, limit: float) -> tuple[list[Pos], float, float]:
    """Rows no wider than ``limit`` (or the widest card), in order; returns positions and
    the block's width and height.

    A row is as tall as its tallest card, and shorter cards stack in sub-columns inside
    it, so the reading order is: rows top to bottom, sub-columns left to right, cards in
    a sub-column top to bottom (side by side on one line when two fit its width)."""
    return _shelf_rows([it.w for it in items], [it.h for it in items], gap, limit, _unbounded())


def shelf(items: Sequence[Item], o: Opts) -> list[Pos]:
    """Shelf rows in compose order whose block comes closest to ``o.aspect`` (w/h)."""
    return shelf_pack(items, o.gap, o.aspect)[0]


def _shelf_score(off: float, fill: float) -> float:
    """Lower is better: distance from the target aspect (log ratio), steeply more once
    it passes :data:`SHELF_ASPECT_SLACK`, plus the weighted share of wasted area."""
    over = max(0.0, off - SHELF_ASPECT_SLACK)
    return off + 4.0 * over + SHELF_FILL_WEIGHT * (1.0 - fill)


def shelf_pack(items: Sequence[Item], gap: float, aspect: float) -> tuple[list[Pos], float, float]:
    """The packing of :func:`shelf` with the block's width and height.

    Tries row widths from the widest card to one single row (a geometric sweep, then a
    finer sweep around the best) and keeps the one whose block is closest to ``aspect``
    while wasting the least area; ties go to the narrower block."""
    if not items:
        return [], 0.0, 0.0
    widest = max(it.w for it in items)
    total = sum(it.w for it in items) + gap * (len(items) - 1)
    area = sum(it.w * it.h for it in items)
    guess = math.sqrt(max(area, 1.0) * aspect)
    ws = [it.w for it in items]
    hs = [it.h for it in items]
    tried: dict[float, tuple[tuple[float, float], tuple[list[Pos], float, float]]] = {}
    # Most widths of the sweep pack exactly like one already tried: each packing keeps
    # the widths that take every branch it took (its bounds), and a width inside them
    # reuses it. Nearly five packings in six of a 10-card batch were such repeats.
    packed: list[tuple[Bounds, tuple[tuple[float, float], tuple[list[Pos], float, float]]]] = []

    def attempt(limit: float) -> None:
        limit = max(limit, widest)
        if limit in tried:
            return
        limit_e = limit + _EPS
        for (lo_e, hi_e, lo, hi), done in packed:
            if lo_e <= limit_e < hi_e and lo <= limit < hi:
                tried[limit] = done
                return
        bounds = _unbounded()
        pos, w, h = _shelf_rows(ws, hs, gap, limit, bounds)
        fill = area / (w * h) if w and h else 1.0
        off = abs(math.log((w / h) / aspect)) if w and h else 0.0
        tried[limit] = ((round(_shelf_score(off, fill), 9), w), (pos, w, h))
        packed.append((bounds, tried[limit]))

    # Large blocks average out the jumps between nearby widths; a coarser sweep keeps
    # arranging thousands of cards well under a second.
    steps, fine = (40, 16) if len(items) <= 500 else (16, 8)
    ratio = total / widest if total > widest else 1.0
    sweep = sorted({widest * ratio ** (i / steps) for i in range(steps + 1)} | {total})
    for limit in (*sweep, guess, guess * 1.1, guess * 0.9):
        attempt(limit)
    best = min(tried, key=lambda k: tried[k][0])
    # Row breaks change in jumps between sweep points; look closer around the best.
    lo = max((s for s in sweep if s < best), default=best)
    hi = min((s for s in sweep if s > best), default=best)
    for i in range(1, fine):
        attempt(lo + (hi - lo) * i / fine)
    best = min(tried, key=lambda k: tried[k][0])
    return tried[best][1]


def masonry(items: Sequence[Item], o: Opts) -> list[Pos]:
    """Columns as wide as the widest card that is not wide, packed at the gap; each card
    drops into the shortest column, a wide card across as many columns as it needs (at
    the lowest place they offer); a heading takes the card after it into its own column,
    right below it. ``cols: auto`` takes the count whose block is nearest the aspect 1.6."""
    if not items:
        return []
    if o.cols is not None and o.cols <= 0:
        return _auto(items, o, _masonry)
    return _masonry(items, o, resolve_cols(len(items), o.cols))


def _masonry(items: Sequence[Item], o: Opts, cols: int) -> list[Pos]:
    limit = _wide_limit(items, o.gap)
    unit = max((it.w for it in items if it.w <= limit), default=0.0)
    step = unit + o.gap
    tops = [0.0] * cols
    out: list[Pos] = []
    follow: int | None = None  # the column a heading asked its next card into
    for it in items:
        span = min(cols, max(1, math.ceil((it.w + o.gap) / step - 1e-9))) if step else 1
        if follow is not None:
            k = min(follow, cols - span)
        else:
            k = min(range(cols - span + 1), key=lambda i: (max(tops[i : i + span]), i))
        y = max(tops[k : k + span])
        out.append((k * step, y))
        for i in range(k, k + span):
            tops[i] = y + it.h + o.gap
        follow = k if is_heading(it) else None
    return out


def lane_key(it: Item) -> str:
    p = it.payload
    for k in ("lane", "status", "role"):
        v = p.get(k)
        if isinstance(v, str) and v:
            return v
    return it.kind or "card"


def lanes(items: Sequence[Item], o: Opts) -> list[Pos]:
    """One row per lane (payload lane, status or role, else kind), lanes in first-seen order."""
    order: dict[str, list[int]] = {}
    for i, it in enumerate(items):
        order.setdefault(lane_key(it), []).append(i)
    out: list[Pos] = [(0.0, 0.0)] * len(items)
    y = 0.0
    for members in order.values():
        x, h = 0.0, 0.0
        for i in members:
            out[i] = (x, y)
            x += items[i].w + o.gap
            h = max(h, items[i].h)
        y += h + o.gap
    return out


_TIME_KEYS = ("at", "when", "due", "starts", "reached", "date", "time", "ends")


def item_time(it: Item) -> float | None:
    """Seconds since the epoch of the first parseable time field of the payload."""
    for k in _TIME_KEYS:
        v = it.payload.get(k)
        if isinstance(v, str) and v:
            t = _parse_time(v)
            if t is not None:
                return t
    return None


def _parse_time(s: str) -> float | None:
    try:
        dt = datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        try:
            d = date.fromisoformat(s[:10])
        except ValueError:
            return None
        dt = datetime(d.year, d.month, d.day)
    if dt.tzinfo is None:
        return (dt - datetime(1970, 1, 1)).total_seconds()
    return dt.timestamp()


def timeline(items: Sequence[Item], o: Opts) -> list[Pos]:
    """One row in time order (cards without a time keep their order, after the timed ones)."""
    keyed = sorted(
        range(len(items)),
        key=lambda i: (
            (0, item_time(items[i]), i) if item_time(items[i]) is not None else (1, 0.0, i)
        ),
    )
    out: list[Pos] = [(0.0, 0.0)] * len(items)
    x = 0.0
    for i in keyed:
        out[i] = (x, 0.0)
        x += items[i].w + o.gap
    return out


def timeaxis(items: Sequence[Item], o: Opts) -> list[Pos]:
    """x proportional to time on one axis; cards that would collide drop to the next row.
    Cards without a time form a last row."""
    timed = [(item_time(it), i) for i, it in enumerate(items)]
    with_t = sorted((t, i) for t, i in timed if t is not None)
    without = [i for t, i in timed if t is None]
    out: list[Pos] = [(0.0, 0.0)] * len(items)
    rows_right: list[float] = []
    rows_h: list[float] = []
    placed: list[tuple[int, int, float]] = []
    if with_t:
        t0, t1 = with_t[0][0], with_t[-1][0]
        length = sum(items[i].w for _, i in with_t) + o.gap * (len(with_t) - 1)
        for t, i in with_t:
            x = 0.0 if t1 == t0 else (t - t0) / (t1 - t0) * length
            r = next((k for k, right in enumerate(rows_right) if right <= x), None)
            if r is None:
                rows_right.append(0.0)
                rows_h.append(0.0)
                r = len(rows_right) - 1
            rows_right[r] = x + items[i].w + o.gap
            rows_h[r] = max(rows_h[r], items[i].h)
            placed.append((i, r, x))
    ys = _offsets(rows_h, o.gap)
    for i, r, x in placed:
        out[i] = (x, ys[r])
    y = (ys[-1] + rows_h[-1] + o.gap) if rows_h else 0.0
    x = 0.0
    for i in without:
        out[i] = (x, y)
        x += items[i].w + o.gap
    return out


def _forest(items: Sequence[Item], wires: Sequence[tuple[Hashable, Hashable]]):
    idx = {it.key: i for i, it in enumerate(items)}
    kids: list[list[int]] = [[] for _ in items]
    indeg = [0] * len(items)
    for a, b in wires:
        if a in idx and b in idx and a != b:
            kids[idx[a]].append(idx[b])
            indeg[idx[b]] += 1
    seen = [False] * len(items)
    tree: list[list[int]] = [[] for _ in items]
    roots: list[int] = []

    def grow(root: int) -> None:
        seen[root] = True
        stack = [root]
        while stack:
            n = stack.pop()
            for k in kids[n]:
                if not seen[k]:
                    seen[k] = True
                    tree[n].append(k)
                    stack.append(k)

    for i in range(len(items)):
        if indeg[i] == 0 and not seen[i]:
            roots.append(i)
            grow(i)
    for i in range(len(items)):  # cycles with no entry point
        if not seen[i]:
            roots.append(i)
            grow(i)
    return roots, tree


def _tree(items: Sequence[Item], o: Opts, across: bool) -> list[Pos]:
    """Tidy tree: depth along one axis, disjoint bands per subtree along the other.
    ``across`` True grows left to right (journey), False top down (graph)."""
    roots, tree = _forest(items, o.wires)
    depth = [0] * len(items)
    order: list[int] = []
    stack = list(reversed(roots))
    while stack:
        n = stack.pop()
        order.append(n)
        for k in reversed(tree[n]):
            depth[k] = depth[n] + 1
            stack.append(k)

    def main(i: int) -> float:  # size along the depth axis
        return items[i].w if across else items[i].h

    def cross(i: int) -> float:
        return items[i].h if across else items[i].w

    levels = max(depth, default=0) + 1
    level_size = [0.0] * levels
    for i in range(len(items)):
        level_size[depth[i]] = max(level_size[depth[i]], main(i))
    level_at = _offsets(level_size, o.gap * 2)
    band_of: dict[int, float] = {}
    span: dict[int, float] = {}
    for n in reversed(order):  # children before parents
        kid_span = sum(span[k] for k in tree[n]) + o.gap * max(0, len(tree[n]) - 1)
        span[n] = max(cross(n), kid_span)
    out: list[Pos] = [(0.0, 0.0)] * len(items)
    at = 0.0
    for r in roots:
        band_of[r] = at
        at += span[r] + o.gap
    for n in order:
        start = band_of[n]
        kid_span = sum(span[k] for k in tree[n]) + o.gap * max(0, len(tree[n]) - 1)
        offset = max(0.0, (span[n] - kid_span) / 2)
        c = start + offset
        for k in tree[n]:
            band_of[k] = c
            c += span[k] + o.gap
        pos_cross = start + (span[n] - cross(n)) / 2
        pos_main = level_at[depth[n]]
        out[n] = (pos_main, pos_cross) if across else (pos_cross, pos_main)
    return out


def journey(items: Sequence[Item], o: Opts) -> list[Pos]:
    return _tree(items, o, across=True)


def graph(items: Sequence[Item], o: Opts) -> list[Pos]:
    return _tree(items, o, across=False)


def _resolve(items: Sequence[Item], pos: list[Pos], o: Opts, axis: int) -> list[Pos]:
    """Push boxes along ``axis`` (0: x, 1: y) until none overlap, keeping their order."""
    order = sorted(range(len(items)), key=lambda i: (pos[i][axis], pos[i][1 - axis], i))
    out = list(pos)
    done: list[int] = []
    for i in order:
        x, y = out[i]
        moved = True
        while moved:
            moved = False
            for j in done:
                jx, jy = out[j]
                if (
                    x < jx + items[j].w
                    and jx < x + items[i].w
                    and y < jy + items[j].h
                    and jy < y + items[i].h
                ):
                    if axis == 1:
                        y = jy + items[j].h + o.gap
                    else:
                        x = jx + items[j].w + o.gap
                    moved = True
        out[i] = (x, y)
        done.append(i)
    return out


def align_left(items: Sequence[Item], o: Opts) -> list[Pos]:
    left = min((it.x for it in items), default=0.0)
    return _resolve(items, [(left, it.y) for it in items], o, axis=1)


def align_top(items: Sequence[Item], o: Opts) -> list[Pos]:
    top = min((it.y for it in items), default=0.0)
    return _resolve(items, [(it.x, top) for it in items], o, axis=0)


def _distribute(items: Sequence[Item], o: Opts, axis: int) -> list[Pos]:
    if not items:
        return []
    size = (lambda it: it.w) if axis == 0 else (lambda it: it.h)
    at = (lambda it: it.x) if axis == 0 else (lambda it: it.y)
    order = sorted(range(len(items)), key=lambda i: (at(items[i]), i))
    first, last = items[order[0]], items[order[-1]]
    span = at(last) + size(last) - at(first)
    total = sum(size(it) for it in items)
    gap = max(o.gap, (span - total) / (len(items) - 1)) if len(items) > 1 else 0.0
    out: list[Pos] = [(0.0, 0.0)] * len(items)
    c = at(first)
    for i in order:
        it = items[i]
        out[i] = (c, it.y) if axis == 0 else (it.x, c)
        c += size(it) + gap
    return out


def distribute_h(items: Sequence[Item], o: Opts) -> list[Pos]:
    return _distribute(items, o, 0)


def distribute_v(items: Sequence[Item], o: Opts) -> list[Pos]:
    return _distribute(items, o, 1)


MODES: dict[str, ModeFn] = {
    "column": column,
    "row": row,
    "grid": grid,
    "flow": shelf,
    "shelf": shelf,
    "lanes": lanes,
    "masonry": masonry,
    "timeline": timeline,
    "timeaxis": timeaxis,
    "journey": journey,
    "graph": graph,
    "align-left": align_left,
    "align-top": align_top,
    "distribute-h": distribute_h,
    "distribute-v": distribute_v,
}


def lay_out(mode: str, items: Sequence[Item], o: Opts) -> tuple[list[Pos], float, float]:
    """Positions for ``items`` under ``mode`` plus the block's width and height.

    Raises KeyError for an unknown mode (callers turn that into their own error).
    """
    pos = MODES[mode](items, o)
    w = max((p[0] + it.w for p, it in zip(pos, items, strict=True)), default=0.0)
    h = max((p[1] + it.h for p, it in zip(pos, items, strict=True)), default=0.0)
    return pos, w, h
