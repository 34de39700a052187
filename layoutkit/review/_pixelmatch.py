"""pixelmatch 7's colour distance and anti-aliasing test, vectorised with numpy.

This is a port of mapbox/pixelmatch 7 (``index.js``), computed only where it
matters: the YIQ delta at pixels whose RGBA words differ, the anti-aliasing
test only at pixels whose delta is over the threshold. Each step keeps the
JavaScript's arithmetic order in float64, so the count equals pixelmatch's.

For opaque pairs where most pixels differ, :func:`mismatch_masks` gives the
same classification from whole-image masks, its anti-aliasing test on exact
integer lumas (:func:`luma_key`).

Semi-transparent pixels are blended with white (pixelmatch 7.0's rule, and 7.2's
with ``checkerboard: false``). Images are flat little-endian ``uint32`` RGBA
words, row-major, ``width * height`` long.
"""

from __future__ import annotations

import abc
import functools

import attrs
import numpy as np
import numpy.typing as npt

from layoutkit.review._scratch import scratch

#: The largest value the YIQ delta can take (pixelmatch's ``35215``).
MAX_YIQ_DELTA = 35215

Words = npt.NDArray[np.uint32]
Index = npt.NDArray[np.intp]


# The 8 neighbours in pixelmatch's visiting order (x outer, y inner): the order
# decides which of equally dark (or bright) neighbours is "the darkest".
_NEIGHBOURS = tuple((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy)


def max_delta(threshold: float) -> float:
    """The squared YIQ distance over which two colours differ at ``threshold`` (0..1)."""
    return MAX_YIQ_DELTA * threshold * threshold


_DX = np.array([d[0] for d in _NEIGHBOURS])
_DY = np.array([d[1] for d in _NEIGHBOURS])
_OPAQUE = np.uint32(0xFF000000)


def _diffs(wa: Words, wb: Words) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-channel differences of two arrays of colours (broadcast), blended with white.

    pixelmatch blends only when an alpha is under 255; with both opaque its
    formula gives ``255 * (c1 - c2) / 255``, which float64 returns as exactly
    ``c1 - c2``, so the blend may run on any pair and the integer difference is
    only the fast path for opaque images.
    """
    wa, wb = np.ascontiguousarray(wa), np.ascontiguousarray(wb)
    pa = wa.view(np.uint8).reshape(*wa.shape, 4)
    pb = wb.view(np.uint8).reshape(*wb.shape, 4)
    if (wa >= _OPAQUE).all() and (wb >= _OPAQUE).all():
        pa, pb = pa.astype(np.int16), pb.astype(np.int16)
        return pa[..., 0] - pb[..., 0], pa[..., 1] - pb[..., 1], pa[..., 2] - pb[..., 2]
    fa, fb = pa.astype(np.float64), pb.astype(np.float64)
    a1, a2 = fa[..., 3], fb[..., 3]
    da = a1 - a2
    return tuple(  # type: ignore[return-value]
        (fa[..., c] * a1 - fb[..., c] * a2 - 255.0 * da) / 255.0 for c in range(3)
    )


def _brightness(dr: np.ndarray, dg: np.ndarray, db: np.ndarray) -> np.ndarray:
    return dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223


def colour_delta(wa: Words, wb: Words) -> np.ndarray:
    """pixelmatch's ``colorDelta``: the squared YIQ distance of each pair of colours,
    negative where the second colour is lighter (``y > 0``)."""
    dr, dg, db = _diffs(wa, wb)
    y = _brightness(dr, dg, db)
    i = dr * 0.59597799 - dg * 0.27417610 - db * 0.32180189
    q = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694
    delta = 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q
    return np.where(y > 0, -delta, delta)


def brightness_delta(wa: Words, wb: Words) -> np.ndarray:
    """pixelmatch's ``brightnessDelta``: the Y (luma) part of the distance, signed."""
    return _brightness(*_diffs(wa, wb))


class Hood(abc.ABC):
    """The 8 neighbours of a set of pixels, in pixelmatch's visiting order.

    ``near(img)`` is ``(8, n)``; ``inside`` marks neighbours inside the image
    (``None`` when all are) and ``edge`` is 1 for a pixel on the image's edge
    (pixelmatch counts the missing outside as one equal neighbour).
    """

    n: int
    inside: np.ndarray | None
    edge: np.ndarray | int

    @abc.abstractmethod
    def centre(self, img: Words) -> Words:
        """The pixels themselves, ``(n,)``."""

    @abc.abstractmethod
    def near(self, img: Words) -> Words:
        """Their 8 neighbours, ``(8, n)``."""

    @abc.abstractmethod
    def many_siblings(self, img: Words, k: Index, rows: Index) -> np.ndarray:
        """``has_many_siblings`` at neighbour ``k[i]`` of pixel ``rows[i]``."""

    def count(self, mask: np.ndarray) -> np.ndarray:
        """Per pixel: ``edge`` plus the neighbours inside the image where ``mask`` holds."""
        if self.inside is not None:
            mask &= self.inside
        return self.edge + mask.sum(axis=0)


class SparseHood(Hood):
    """Scattered pixels (flat indices): neighbours are gathered one by one."""

    def __init__(self, idx: Index, width: int, height: int) -> None:
        self.idx, self.width, self.height, self.n = idx, width, height, idx.size
        y, x = np.divmod(idx, width)
        self.flat = idx + (_DY * width + _DX)[:, None]
        on_edge = (x == 0) | (x == width - 1) | (y == 0) | (y == height - 1)
        border = np.flatnonzero(on_edge)
        self.inside, self.edge = None, 0
        if border.size:
            xs, ys = x[border] + _DX[:, None], y[border] + _DY[:, None]
            self.inside = np.ones(self.flat.shape, dtype=bool)
            self.inside[:, border] = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
            self.flat[:, border] = np.clip(ys, 0, height - 1) * width + np.clip(xs, 0, width - 1)
            self.edge = on_edge.astype(np.int64)

    def centre(self, img: Words) -> Words:
        return img[self.idx]

    def near(self, img: Words) -> Words:
        return img[self.flat]

    def many_siblings(self, img: Words, k: Index, rows: Index) -> np.ndarray:
        return has_many_siblings(img, self.flat[k, rows], self.width, self.height)


class WindowHood(Hood):
    """Every pixel of a rectangle: neighbours come from shifted slices, which costs far
    less per pixel than gathering when the pixels of interest are dense."""

    def __init__(self, y0: int, y1: int, x0: int, x1: int, width: int, height: int) -> None:
        self.y0, self.y1, self.x0, self.x1 = y0, y1, x0, x1
        self.width, self.height = width, height
        self.h, self.w = y1 - y0, x1 - x0
        self.n = self.h * self.w
        self._siblings: dict[int, np.ndarray] = {}
        self._ring_hood: WindowHood | None = None
        self._touches = y0 == 0 or x0 == 0 or y1 == height or x1 == width

    def _edge_grid(self) -> np.ndarray:
        """``(h, w)``: the pixels on the image's outermost rows and columns."""
        edge = np.zeros((self.h, self.w), dtype=bool)
        edge[0, :] |= self.y0 == 0
        edge[-1, :] |= self.y1 == self.height
        edge[:, 0] |= self.x0 == 0
        edge[:, -1] |= self.x1 == self.width
        return edge

    # Built only when asked for: the window's own work reads slices, not masks.
    @functools.cached_property
    def edge(self) -> np.ndarray | int:  # type: ignore[override]
        return self._edge_grid().reshape(-1).astype(np.int64) if self._touches else 0

    @functools.cached_property
    def inside(self) -> np.ndarray | None:  # type: ignore[override]
        if not self._touches:
            return None
        inside = np.ones((8, self.h, self.w), dtype=bool)
        # Only the image's outermost rows and columns miss neighbours.
        for k, (dx, dy) in enumerate(_NEIGHBOURS):
            if self.y0 == 0 and dy < 0:
                inside[k, 0, :] = False
            if self.y1 == self.height and dy > 0:
                inside[k, -1, :] = False
            if self.x0 == 0 and dx < 0:
                inside[k, :, 0] = False
            if self.x1 == self.width and dx > 0:
                inside[k, :, -1] = False
        return inside.reshape(8, -1)

    def _grid(self, img: Words) -> Words:
        return img.reshape(self.height, self.width)

    def centre(self, img: Words) -> Words:
        return self._grid(img)[self.y0 : self.y1, self.x0 : self.x1].ravel()

    def near(self, img: Words) -> Words:
        grid = self._grid(img)
        top, left = max(self.y0 - 1, 0), max(self.x0 - 1, 0)
        part = grid[top : min(self.y1 + 1, self.height), left : min(self.x1 + 1, self.width)]
        before_y, before_x = 1 - (self.y0 - top), 1 - (self.x0 - left)
        pad = np.pad(
            part,
            (
                (before_y, self.h + 2 - part.shape[0] - before_y),
                (before_x, self.w + 2 - part.shape[1] - before_x),
            ),
            # Outside the image: masked by ``inside``; opaque white keeps the
            # integer fast path of opaque images.
            constant_values=0xFFFFFFFF,
        )
        out = np.empty((8, self.n), dtype=img.dtype)
        for k, (dx, dy) in enumerate(_NEIGHBOURS):
            out[k].reshape(self.h, self.w)[...] = pad[
                1 + dy : 1 + dy + self.h, 1 + dx : 1 + dx + self.w
            ]
        return out

    def _ring(self) -> WindowHood:
        if self._ring_hood is None:
            self._ring_hood = WindowHood(
                max(self.y0 - 1, 0),
                min(self.y1 + 1, self.height),
                max(self.x0 - 1, 0),
                min(self.x1 + 1, self.width),
                self.width,
                self.height,
            )
        return self._ring_hood

    def _many(self, img: Words) -> tuple[WindowHood, np.ndarray]:
        """``has_many_siblings`` over this window and a ring of one pixel around it."""
        ring = self._ring()
        key = id(img)
        if key not in self._siblings:
            self._siblings[key] = ring.equal_neighbours(img).reshape(-1) > 2
        return ring, self._siblings[key]

    def equal_neighbours(self, img: Words) -> np.ndarray:
        """Per pixel of the window, ``(h, w)``: neighbours holding the same word, the
        outside of the image counting as one (``hasManySiblings``'s count), from
        slices of the image: no ``(8, n)`` copy.

        Equality is symmetric, so each of the 4 directions right, down, down-right
        and down-left is compared once over the window and its one-pixel ring and
        credited to both pixels of the pair: half the word compares of 8 passes."""
        if self.x0 == 0 and self.x1 == self.width:
            return self._equal_neighbours_rows(img)
        grid = self._grid(img)
        top, left = max(self.y0 - 1, 0), max(self.x0 - 1, 0)
        around = grid[top : min(self.y1 + 1, self.height), left : min(self.x1 + 1, self.width)]
        h, w = around.shape
        count = np.zeros((h, w), dtype=np.uint8)
        for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
            first = (slice(0, h - dy), slice(max(0, -dx), w - max(0, dx)))
            second = (slice(dy, h), slice(max(0, dx), w - max(0, -dx)))
            same = around[first] == around[second]
            count[first] += same
            count[second] += same
        # The ring's own counts miss neighbours beyond it; only the window's are kept.
        count = count[
            self.y0 - top : self.y0 - top + self.h, self.x0 - left : self.x0 - left + self.w
        ]
        if self._touches:
            count += self._edge_grid()
        return count

    def _equal_neighbours_rows(self, img: Words) -> np.ndarray:
        """:meth:`equal_neighbours` of a window of whole rows. The rows and one above
        and below are one run of words, so each direction is one compare over the
        run, with the pairs that wrap from a row's end to the next row's start
        struck out: passes over a run cost a third of those over 2-D slices. The
        counts are a work buffer, good until the next call."""
        width = self.width
        top, bottom = max(self.y0 - 1, 0), min(self.y1 + 1, self.height)
        run = img[top * width : bottom * width]
        # Work buffers: the counts are read (``> 2``) before the next window's.
        count = scratch.get("rows.count", (run.size,))
        compared = scratch.get("rows.same", (run.size,), bool)
        begun = False  # the first direction writes the counts instead of adding to zeros
        # (step to the neighbour, first column whose pair wraps, or None)
        for step, wraps in ((1, width - 1), (width, None), (width + 1, width - 1), (width - 1, 0)):
            if step == 0 or step >= run.size:
                continue
            same = np.equal(run[:-step], run[step:], out=compared[:-step])
            if wraps is not None:
                same[wraps::width] = False
            add = same.view(np.uint8)
            if begun:
                np.add(count[:-step], add, out=count[:-step])
            else:
                np.copyto(count[:-step], add)
                count[-step:] = 0
                begun = True
            np.add(count[step:], add, out=count[step:])
        if not begun:
            count[...] = 0
        grid = count.reshape(bottom - top, width)[self.y0 - top : self.y0 - top + self.h]
        # The outside of the image counts as one neighbour on its outermost pixels.
        grid[:, 0] += 1
        if width > 1:
            grid[:, -1] += 1
        if self.y0 == 0:
            grid[0, 1 : width - 1] += 1
        if self.y1 == self.height and not (self.y0 == 0 and self.h == 1):
            grid[-1, 1 : width - 1] += 1
        return grid

    def many_siblings(self, img: Words, k: Index, rows: Index) -> np.ndarray:
        ring, many = self._many(img)
        yy, xx = np.divmod(rows, self.w)
        yy = yy + (self.y0 - ring.y0) + _DY[k]
        xx = xx + (self.x0 - ring.x0) + _DX[k]
        return many[yy * ring.w + xx]

    def flat_index(self, rows: Index) -> Index:
        """Flat image indices of window pixels ``rows``."""
        yy, xx = np.divmod(rows, self.w)
        return (yy + self.y0) * self.width + (xx + self.x0)

    def many_here(self, img: Words) -> np.ndarray:
        """``has_many_siblings`` at each pixel of the window (from the ring's map)."""
        ring, many = self._many(img)
        top, left = self.y0 - ring.y0, self.x0 - ring.x0
        grid = many.reshape(ring.h, ring.w)[top : top + self.h, left : left + self.w]
        return grid.reshape(-1)

    def any_sibling_rich(self, a32: Words, b32: Words) -> np.ndarray:
        """Per pixel: some neighbour has 3+ identical siblings in both images, which
        the anti-aliasing test needs; integer work that spares the float work
        where it cannot succeed (inside photos, gradients)."""
        ring, many_a = self._many(a32)
        _, many_b = self._many(b32)
        both = (many_a & many_b).reshape(ring.h, ring.w)
        top, left = self.y0 - ring.y0, self.x0 - ring.x0
        out = np.zeros((self.h, self.w), dtype=bool)
        for dx, dy in _NEIGHBOURS:
            # Neighbours outside the image fall outside the ring: clip the slices.
            sy0, sx0 = top + dy, left + dx
            ty0, tx0 = max(0, -sy0), max(0, -sx0)
            ty1 = min(self.h, ring.h - sy0)
            tx1 = min(self.w, ring.w - sx0)
            out[ty0:ty1, tx0:tx1] |= both[sy0 + ty0 : sy0 + ty1, sx0 + tx0 : sx0 + tx1]
        return out.ravel()


def has_many_siblings(img: Words, idx: Index, width: int, height: int) -> np.ndarray:
    """pixelmatch's ``hasManySiblings``: 3 or more of the 8 neighbours (the outside of
    the image counting as one) hold the very same RGBA word."""
    hood = SparseHood(idx, width, height)
    return hood.count(hood.near(img) == hood.centre(img)) > 2


def _subset(hood: Hood, keep: Index) -> tuple[np.ndarray | None, np.ndarray | int]:
    inside = None if hood.inside is None else hood.inside[:, keep]
    edge = hood.edge if isinstance(hood.edge, int) else hood.edge[keep]
    return inside, edge


def antialiased(
    img: Words, a32: Words, b32: Words, hood: Hood, only: Index | None = None
) -> np.ndarray:
    """pixelmatch's ``antialiased`` for the pixels ``only`` of ``hood`` (all when
    ``None``), seen in ``img``; the result has one entry per pixel of the hood.

    A pixel looks anti-aliased when at most 2 neighbours share its brightness,
    it has both darker and brighter neighbours, and the darkest or the brightest
    of them has 3+ identical siblings in both ``a32`` and ``b32``.
    """
    result = np.zeros(hood.n, dtype=bool)
    # An identical word has zero brightness delta: 3+ of them rule anti-aliasing
    # out before any arithmetic (most pixels of flat areas stop here).
    if isinstance(hood, WindowHood):
        # The same test as has_many_siblings, whose maps the window keeps anyway;
        # the few pixels left are gathered.
        possible = ~hood.many_here(img) & hood.any_sibling_rich(a32, b32)
        keep = np.flatnonzero(possible) if only is None else only[possible[only]]
        if keep.size == 0:
            return result
        few = SparseHood(hood.flat_index(keep), hood.width, hood.height)
        centre, near, inside, edge = few.centre(img), few.near(img), few.inside, few.edge
    else:
        centre, near = hood.centre(img), hood.near(img)
        possible = hood.count(near == centre) <= 2
        keep = np.flatnonzero(possible) if only is None else only[possible[only]]
        if keep.size == 0:
            return result
        inside, edge = _subset(hood, keep)
        centre, near = centre[keep], near[:, keep]
    delta = brightness_delta(centre, near)
    # pixelmatch visits the neighbours in order with a strict "<" (">") against a
    # darkest (brightest) that starts at 0, so the one it keeps is the first of the
    # most negative (positive) deltas: argmin's (argmax's) choice. Neighbours
    # outside the image are skipped; a delta of 0 in their place is never chosen
    # where one below (above) 0 exists, and decides nothing where none does.
    inside_delta = delta if inside is None else np.where(inside, delta, 0.0)
    zero = delta == 0
    if inside is not None:
        zero &= inside
    zeroes = edge + zero.sum(axis=0)
    dark_at, bright_at = inside_delta.argmin(axis=0), inside_delta.argmax(axis=0)
    darkest = np.take_along_axis(inside_delta, dark_at[None], axis=0)[0]
    brightest = np.take_along_axis(inside_delta, bright_at[None], axis=0)[0]
    todo = np.flatnonzero((zeroes <= 2) & (darkest < 0) & (brightest > 0))
    if todo.size == 0:
        return result
    rows = keep[todo]
    # The darkest and the brightest neighbours asked together: one gather per image
    # instead of two (each costs its own neighbourhood of a few hundred pixels).
    at = np.concatenate((dark_at[todo], bright_at[todo]))
    both_rows = np.concatenate((rows, rows))
    many = hood.many_siblings(a32, at, both_rows)
    ask = np.flatnonzero(many)
    many[ask] = hood.many_siblings(b32, at[ask], both_rows[ask])
    result[rows] = many[: todo.size] | many[todo.size :]
    return result


#: Cells of this many pixels group candidates into clusters; a cluster whose
#: candidates fill at least 1/_DENSE of its rectangle is handled as a window.
_CELL = 32
_DENSE = 6
#: Fewer pixels than this are always gathered: clustering them costs more than it saves.
_FEW = 2048
#: Pixels in one band of a window.
_BAND = 1 << 17


def _bands(
    y0: int, y1: int, x0: int, x1: int, which: Index | None, idx: Index, width: int, height: int
) -> list[tuple[Hood, Index, Index]]:
    """A window cut into bands of rows, each small enough for the CPU's caches: the
    work per pixel is a few dozen passes, far cheaper when they stay in cache."""
    w = x1 - x0
    rows = max(8, _BAND // w)
    out: list[tuple[Hood, Index, Index]] = []
    # Ascending, so each band is a run. ``which`` None is all of ``idx`` (a change
    # over the whole screen): no million-entry gather of it.
    flat = idx if which is None else idx[which]
    for top in range(y0, y1, rows):
        bottom = min(top + rows, y1)
        lo, hi = np.searchsorted(flat, [top * width, bottom * width])
        if lo == hi:
            continue
        part = np.arange(lo, hi) if which is None else which[lo:hi]
        here = flat[lo:hi] - top * width
        if w == width:
            at = here
        else:
            yy, xx = np.divmod(here, width)
            at = yy * w + (xx - x0)
        out.append((WindowHood(top, bottom, x0, x1, width, height), part, at))
    return out


def hoods(idx: Index, width: int, height: int) -> list[tuple[Hood, Index, Index]]:
    """Split the pixels ``idx`` (ascending) into neighbourhoods to compute on: dense
    clusters as windows (in bands), the rest as one sparse set. Each entry is
    ``(hood, which, at)``: the positions in ``idx`` it serves and where those
    pixels sit in the hood."""
    from scipy import ndimage

    if idx.size == 0:
        return []
    if idx.size < _FEW:
        return [(SparseHood(idx, width, height), np.arange(idx.size), np.arange(idx.size))]
    if idx.size * _DENSE >= width * height:  # dense over the whole screen
        return _bands(0, height, 0, width, None, idx, width, height)
    y, x = np.divmod(idx, width)
    gh, gw = -(-height // _CELL), -(-width // _CELL)
    cell = (y // _CELL) * gw + x // _CELL
    grid = np.zeros(gh * gw, dtype=bool)
    grid[cell] = True
    labels, count = ndimage.label(grid.reshape(gh, gw), structure=np.ones((3, 3)))
    per_label = labels.ravel()[cell]
    out: list[tuple[Hood, Index, Index]] = []
    sparse = np.ones(idx.size, dtype=bool)
    sizes = np.bincount(per_label, minlength=count + 1)
    # The candidates grouped by cluster, each group still ascending: one sort
    # instead of a scan of all candidates per cluster (a scrolled page has
    # dozens of clusters).
    by_label = np.argsort(per_label, kind="stable")
    starts = np.concatenate(([0], np.cumsum(sizes)))
    for label, box in enumerate(ndimage.find_objects(labels), start=1):
        if box is None:
            continue
        y0, y1 = box[0].start * _CELL, min(box[0].stop * _CELL, height)
        x0, x1 = box[1].start * _CELL, min(box[1].stop * _CELL, width)
        if sizes[label] * _DENSE < (y1 - y0) * (x1 - x0):
            continue
        which = by_label[starts[label] : starts[label + 1]]
        sparse[which] = False
        out += _bands(y0, y1, x0, x1, which, idx, width, height)
    which = np.flatnonzero(sparse)
    if which.size:
        out.append((SparseHood(idx[which], width, height), which, np.arange(which.size)))
    return out


#: No opaque pair whose channels each differ by at most m has a YIQ delta over
#: this times m² (the sum of each row's absolute weights, squared and weighted:
#: 1.14391...), so integer work can set aside the pairs that cannot count.
_DELTA_PER_STEP = 1.1440
#: The YIQ delta is a positive definite quadratic form of the channel steps; its
#: smallest eigenvalue (0.044815...) rounded down. Every pair whose largest
#: channel step is m has a delta of at least this times m², so a step long enough
#: counts without float work (most pixels of a theme change). The rounding
#: margin (3e-4 relative) dwarfs float64's error.
_DELTA_PER_SQUARE = 0.0448
_RGB_HIGH = np.uint32(0x00808080)
_RGB_LOW = np.uint32(0x007F7F7F)


def _some_byte_over(step: Words, least: int) -> np.ndarray:
    """Per word of byte-wise steps: some RGB byte is over ``least`` (0..127), with one
    addition: (d & 0x7F) + (127 - least) carries into bit 7 exactly when d > least,
    and never into the next byte."""
    low = (step & _RGB_LOW) + np.uint32((127 - least) * 0x010101)
    return ((step & _RGB_HIGH) | low) & _RGB_HIGH != 0


def _over(
    wa: Words, wb: Words, where: Index, limit: float, pretest: bool = True
) -> tuple[Index, bool]:
    """The positions ``where`` whose colour delta is over ``limit``, and whether the
    integer pre-test paid (decided at least half of them without float work; the
    bench and tests look at it)."""
    if not (pretest and (wa >= _OPAQUE).all() and (wb >= _OPAQUE).all()):
        return where[np.abs(colour_delta(wa, wb)) > limit], False
    ba, bb = wa.view(np.uint8), wb.view(np.uint8)
    step = (np.maximum(ba, bb) - np.minimum(ba, bb)).view(np.uint32)
    least = int(np.sqrt(limit / _DELTA_PER_STEP))  # a step up to this cannot count
    sure = int(np.sqrt(limit / _DELTA_PER_SQUARE))  # a step over this always counts
    maybe = np.flatnonzero(_some_byte_over(step, least)) if least < 128 else np.arange(wa.size)
    # Only the pairs that may count are asked the second question: after a
    # re-sampling (anti-aliasing noise), almost none.
    counts = _some_byte_over(step[maybe], sure) if sure < 128 else np.zeros(maybe.size, bool)
    unsure = np.flatnonzero(~counts)
    at = maybe[unsure]
    counts[unsure] = np.abs(colour_delta(wa[at], wb[at])) > limit
    return where[maybe[counts]], 2 * unsure.size <= wa.size


#: Words of each image compared at a time when the differing ones are not known yet.
_RUN = 1 << 18


def _differing_over(a32: Words, b32: Words, limit: float) -> tuple[Index, Index]:
    """The words that differ at all and those over ``limit``, a run of both images at
    a time: each run is compared, gathered and pre-tested while it is in the CPU's
    caches (a re-sampled page differs in a tenth of its pixels, and comparing the
    whole images first, then gathering, read them from memory twice)."""
    differ: list[Index] = []
    over: list[Index] = []
    for start in range(0, a32.size, _RUN):
        ca, cb = a32[start : start + _RUN], b32[start : start + _RUN]
        here = np.flatnonzero(ca != cb)
        if here.size == 0:
            continue
        where = here + start if start else here
        differ.append(where)
        over.append(_over(ca[here], cb[here], where, limit)[0])
    if not differ:
        empty = np.empty(0, dtype=np.intp)
        return empty, empty
    return np.concatenate(differ), np.concatenate(over)


#: pixelmatch's luma weights times 10⁸: integers, so a pixel's luma is exact in int64.
_LUMA = (29889531, 58662247, 11448223)


def luma_key(words: Words, *, out: npt.NDArray[np.int64] | None = None) -> npt.NDArray[np.int64]:
    """An exact integer luma per opaque colour, for comparing brightness deltas.

    pixelmatch's ``brightnessDelta`` of opaque colours is ``dr·0.29889531 +
    dg·0.58662247 + db·0.11448223``. With ``luma_key`` the same sum over the
    weights times 10⁸ is an exact integer difference, and it orders pairs as
    the float sum does: no two different colours share a key (no nonzero
    channel steps within ±510 weigh to 0), and the float sum's rounding
    (≈10⁻¹³) never reaches a step of one key (10⁻⁸); the tests check both
    over every step. So a neighbour's delta is zero, negative or positive, and
    one neighbour is darker than another, exactly when their keys say so.
    """
    channels = words.view(np.uint8).reshape(*words.shape, 4)
    if out is None:
        return (
            channels[..., 0] * np.int64(_LUMA[0])
            + channels[..., 1] * np.int64(_LUMA[1])
            + channels[..., 2] * np.int64(_LUMA[2])
        )
    # The same sum into ``out`` (``words``' shape), one product buffer reused.
    part = scratch.get("luma.part", out.shape, np.int64)
    np.multiply(channels[..., 0], np.int64(_LUMA[0]), out=out)
    for c in (1, 2):
        np.multiply(channels[..., c], np.int64(_LUMA[c]), out=part)
        out += part
    return out


def opaque(a32: Words, b32: Words) -> bool:
    """Both images are fully opaque (every alpha 255)."""
    return bool(a32.size == 0 or (a32.min() >= _OPAQUE and b32.min() >= _OPAQUE))


def _over_mask(a32: Words, b32: Words, limit: float) -> tuple[int, np.ndarray]:
    """Opaque images: how many words differ, and the flat mask of pixels whose colour
    delta is over ``limit``, from whole-image byte passes (no index lists); the
    integer pre-test of :func:`_over` per byte, float work only where it cannot decide.
    The mask is a work buffer, good until the next call."""
    ba, bb = a32.view(np.uint8), b32.view(np.uint8)
    step = scratch.get("over.step", ba.shape)
    low = scratch.get("over.low", ba.shape)
    np.maximum(ba, bb, out=step)
    np.minimum(ba, bb, out=low)
    step -= low
    # Both alphas are 255: the alpha byte of every step is 0, so "some byte over"
    # is "some RGB byte over", and a word differs exactly when its step is not 0.
    words = step.view(np.uint32)
    differing = int(np.count_nonzero(words))
    least = int(np.sqrt(limit / _DELTA_PER_STEP))
    sure = int(np.sqrt(limit / _DELTA_PER_SQUARE))
    bytes_over = scratch.get("over.bytes", ba.shape, bool)
    over = scratch.get("over.over", a32.shape, bool)
    maybe = scratch.get("over.maybe", a32.shape, bool)
    np.greater(step, min(sure, 255), out=bytes_over)
    np.not_equal(bytes_over.view(np.uint32), 0, out=over)
    np.greater(step, min(least, 255), out=bytes_over)
    np.not_equal(bytes_over.view(np.uint32), 0, out=maybe)
    np.greater(maybe, over, out=maybe)  # may count, not sure to
    unsure = np.flatnonzero(maybe)
    # In runs: the float work's temporaries stay small enough for the allocator
    # to recycle (a larger array is fresh pages each time).
    for start in range(0, unsure.size, _FLOAT_RUN):
        part = unsure[start : start + _FLOAT_RUN]
        over[part] = _opaque_delta(a32[part], b32[part]) > limit
    return differing, over


#: Colours whose float delta is worked out at a time (64 KB per float64 temporary).
_FLOAT_RUN = 8192


def _opaque_delta(wa: Words, wb: Words) -> np.ndarray:
    """The size of :func:`colour_delta` (its absolute value) for opaque colours, in
    the same float64 operations and order, without the checks and the sign. The
    result is a work buffer, good until the next call.

    The channel steps are made float64 once (exactly: they are small integers)
    and every operation writes into work buffers: numpy's mixed int16 and float64
    operations convert on the fly, and each fresh temporary costs an allocation."""
    n = wa.size
    diff = scratch.get("delta.diff", (n, 4), np.int16)
    np.copyto(diff, wa.view(np.uint8).reshape(n, 4))
    diff -= wb.view(np.uint8).reshape(n, 4)
    steps = scratch.get("delta.steps", (3, n), np.float64)
    np.copyto(steps, diff[:, :3].T)
    dr, dg, db = steps
    y, i, q, t = scratch.get("delta.yiqt", (4, n), np.float64)
    # y = dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223, left to right
    np.multiply(dr, 0.29889531, out=y)
    y += np.multiply(dg, 0.58662247, out=t)
    y += np.multiply(db, 0.11448223, out=t)
    # i = dr * 0.59597799 - dg * 0.27417610 - db * 0.32180189
    np.multiply(dr, 0.59597799, out=i)
    i -= np.multiply(dg, 0.27417610, out=t)
    i -= np.multiply(db, 0.32180189, out=t)
    # q = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694
    np.multiply(dr, 0.21147017, out=q)
    q -= np.multiply(dg, 0.52261711, out=t)
    q += np.multiply(db, 0.31114694, out=t)
    # 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q, left to right
    np.multiply(y, 0.5053, out=t)
    t *= y
    t += np.multiply(np.multiply(i, 0.299, out=dr), i, out=dr)  # the steps are spent
    t += np.multiply(np.multiply(q, 0.1957, out=dg), q, out=dg)
    return t


def _dilate(mask: np.ndarray) -> np.ndarray:
    """Each pixel of a ``(h, w)`` mask or'ed with its 8 neighbours (a row pass, then a
    column pass). The row pass runs over the rows as one run, then sets each
    row's first and last pixel right (the run carried them across rows). Each
    pass writes its first neighbour's or straight into its result. The result is
    a work buffer, good until the next call."""
    rows = scratch.get("dilate.rows", mask.shape, bool)
    if mask.shape[1] > 1:
        run, flat = rows.reshape(-1), mask.reshape(-1)
        np.logical_or(flat[1:], flat[:-1], out=run[1:])
        run[0] = flat[0]
        run[:-1] |= flat[1:]
        rows[:, 0] = mask[:, 0] | mask[:, 1]
        rows[:, -1] = mask[:, -1] | mask[:, -2]
    else:
        rows[...] = mask
    out = scratch.get("dilate.out", mask.shape, bool)
    if mask.shape[0] > 1:
        np.logical_or(rows[1:], rows[:-1], out=out[1:])
        out[0] = rows[0]
        out[:-1] |= rows[1:]
    else:
        out[...] = rows
    return out


def _antialiased_inner(img: Words, idx: Index, both: np.ndarray, width: int) -> np.ndarray:
    """``antialiased`` at pixels ``idx`` of an opaque ``img``, none on the image's edge,
    each with at most 2 neighbours of its own colour (the caller's mask says so);
    ``both`` (flat) marks the pixels with 3+ identical siblings in both images.

    With exact luma keys (:func:`luma_key`) the darkest neighbour is the first
    of the largest keys and the brightest the first of the smallest, in
    pixelmatch's visiting order: ``argmax`` and ``argmin`` return the first."""
    offsets = _DY * width + _DX
    # The (8, n) gathers go into work buffers: a theme change asks this of
    # thousands of pixels per band, and fresh arrays of that size page-fault.
    n = idx.size
    at = scratch.get("aa.at", (8, n), np.intp)
    np.add(idx, offsets[:, None], out=at)
    words = scratch.get("aa.words", (8, n), np.uint32)
    np.take(img, at, out=words, mode="clip")  # in range; "raise" would buffer the output
    near = luma_key(words, out=scratch.get("aa.luma", (8, n), np.int64))
    # Each key times 8 plus a tie-break in its low 3 bits (keys are under 2³⁵):
    # 7 - k makes the max the first of the largest, then k the min the first of
    # the smallest. One max and one min then stand for max, argmax, min and
    # argmin (numpy's arg-reductions down an (8, n) array's columns are slow).
    near <<= 3
    near += _FIRST_MAX
    hi = near.max(axis=0)
    near += _FIRST_MIN - _FIRST_MAX
    lo = near.min(axis=0)
    centre = luma_key(img[idx]) << 3
    # A larger key than the centre's, and a smaller one.
    todo = np.flatnonzero((hi > centre + 7) & (lo < centre))
    result = np.zeros(n, dtype=bool)
    if todo.size == 0:
        return result
    rows = idx[todo]
    darkest = rows + offsets[7 - (hi[todo] & 7)]
    brightest = rows + offsets[lo[todo] & 7]
    result[todo] = both[darkest] | both[brightest]
    return result


_FIRST_MAX = (7 - np.arange(8, dtype=np.int64))[:, None]
_FIRST_MIN = np.arange(8, dtype=np.int64)[:, None]


def edge_mask(height: int, width: int) -> np.ndarray:
    """``(h, w)``: the image's outermost rows and columns."""
    edge = np.zeros((height, width), dtype=bool)
    edge[[0, -1], :] = True
    edge[:, [0, -1]] = True
    return edge


@attrs.frozen
class MaskMismatch:
    """:class:`Mismatch` as ``(h, w)`` masks, for pairs where many pixels differ."""

    differing: int  #: RGBA words that differ at all
    counted: np.ndarray  #: colour delta over the threshold and not anti-aliasing
    antialiased: np.ndarray  #: over the threshold but anti-aliasing (not counted)


#: The smallest image the mask path takes: its edge handling wants an inside.
_MASK_MIN_SIDE = 3
#: Pixels in one band of rows of the mask way. Whole-image byte temporaries
#: (5 MB at 1440×900) come fresh from the kernel on every call, a page fault per
#: 4 KB, which cost as much as the arithmetic on them; a band's temporaries
#: (a few hundred KB) are recycled by the allocator and stay in the CPU's caches.
MASK_BAND = 1 << 18
#: Rows read around a band: the anti-aliasing test looks two pixels away (a
#: neighbour's siblings).
_HALO = 2


def band_rows(width: int) -> int:
    """Rows in one band of the mask way for images ``width`` pixels wide."""
    return max(1, MASK_BAND // max(width, 1))


def edge_mask_rows(y0: int, y1: int, width: int, height: int) -> np.ndarray:
    """``(y1 - y0, width)``: which pixels of rows ``y0..y1`` lie on the image's edge."""
    edge = np.zeros((y1 - y0, width), dtype=bool)
    edge[:, 0] = edge[:, -1] = True
    if y0 == 0:
        edge[0] = True
    if y1 == height:
        edge[-1] = True
    return edge


def mismatch_masks(
    a32: Words,
    b32: Words,
    width: int,
    height: int,
    threshold: float = 0.1,
    include_aa: bool = False,
    out: tuple[np.ndarray, np.ndarray] | None = None,
    *,
    opaque_known: bool = False,
) -> MaskMismatch:
    """:func:`mismatch` for two opaque images of at least 3×3, computed over
    whole-image masks: where most of a screen differs (a theme change) gathering
    a million positions costs more than passing over every pixel.

    Opaque pixels differ in brightness exactly when their words differ, so the
    anti-aliasing test's "at most 2 equal neighbours" is the word count that
    :meth:`WindowHood.equal_neighbours` makes for the whole image; what is left
    (pixels near an edge of colour) is asked with exact integer lumas. The work
    goes a band of :data:`MASK_BAND` pixels at a time, each band reading two
    rows around it. ``out``: the ``(h, w)`` boolean arrays to fill as the counted
    and anti-aliased masks (work buffers of the caller's); ``opaque_known``: the
    caller has checked that both images are opaque (two passes fewer).
    """
    if not (opaque_known or opaque(a32, b32)) or min(width, height) < _MASK_MIN_SIDE:
        raise ValueError("mismatch_masks takes opaque images of at least 3×3")
    limit = max_delta(threshold)
    if out is None:
        out = (np.empty((height, width), dtype=bool), np.empty((height, width), dtype=bool))
    counted, aa = out
    differing = 0
    rim: list[Index] = []
    rows = band_rows(width)
    for y0 in range(0, height, rows):
        y1 = min(y0 + rows, height)
        differing += _mask_band(
            a32,
            b32,
            width,
            height,
            (y0, y1),
            limit,
            include_aa,
            counted[y0:y1],
            aa[y0:y1],
            rim,
        )
    if rim:
        _rim_antialiased(a32, b32, width, height, np.unique(np.concatenate(rim)), counted, aa)
    return MaskMismatch(differing, counted, aa)


def _rim_antialiased(
    a32: Words,
    b32: Words,
    width: int,
    height: int,
    rim: Index,
    counted: np.ndarray,
    aa: np.ndarray,
) -> None:
    """The anti-aliasing test at the candidates ``rim`` (flat, ascending) on the image's
    outermost rows and columns, which the bands leave counted: all at once, over
    the whole image, where asked band by band they cost a dozen small calls."""
    if rim.size == 0:
        return
    flat_counted = counted.reshape(-1)
    hood = SparseHood(rim, width, height)
    # As pixelmatch: the second image is asked only where the first said no.
    found = antialiased(a32, a32, b32, hood)
    rest = np.flatnonzero(~found)
    if rest.size:
        found[rest] = antialiased(b32, a32, b32, hood, rest)[rest]
    hit = rim[found]
    flat_counted[hit] = False
    aa.reshape(-1)[hit] = True


def _mask_band(
    a32: Words,
    b32: Words,
    width: int,
    height: int,
    band: tuple[int, int],
    limit: float,
    include_aa: bool,
    counted: np.ndarray,
    aa: np.ndarray,
    rim: list[Index],
) -> int:
    """:func:`mismatch_masks` for rows ``band`` (y0, y1): fills that band's ``counted``
    and ``aa`` masks and returns how many of its words differ. The candidates of
    the anti-aliasing test on the image's outermost pixels are left counted and
    added to ``rim`` (flat indices), for :func:`_rim_antialiased`.

    The band is read with :data:`_HALO` rows around it (fewer at the image's top
    and bottom). The rows of that context count their own outer row as the
    image's edge, which is wrong only two rows away from the band: no answer in
    the band reads it."""
    y0, y1 = band
    aa[...] = False
    part = slice(y0 * width, y1 * width)
    differing, over_flat = _over_mask(a32[part], b32[part], limit)
    over = over_flat.reshape(y1 - y0, width)
    if include_aa or differing == 0:
        counted[...] = over
        return differing
    lo, hi = max(y0 - _HALO, 0), min(y1 + _HALO, height)
    ha, hb = a32[lo * width : hi * width], b32[lo * width : hi * width]
    h = hi - lo
    whole = WindowHood(0, h, 0, width, width, h)
    # Band-sized masks live in work buffers (see _scratch): fresh ones page-fault.
    many_a = np.greater(
        whole.equal_neighbours(ha), 2, out=scratch.get("band.many_a", (h, width), bool)
    )
    many_b = np.greater(
        whole.equal_neighbours(hb), 2, out=scratch.get("band.many_b", (h, width), bool)
    )
    both = np.logical_and(many_a, many_b, out=scratch.get("band.both", (h, width), bool))
    # A candidate is not "many" itself, so it is not in ``both``: the 3×3
    # dilation, centre included, is exactly "some neighbour is in both".
    inner = slice(y0 - lo, y1 - lo)
    rich = _dilate(both)[inner]
    maybe = np.logical_and(over, rich, out=scratch.get("band.maybe", over.shape, bool))
    # Neither image is asked where the pixel has 3+ equal neighbours in both (after
    # a theme change, 93% of the candidates so far).
    np.greater(maybe, both[inner], out=maybe)
    # The image's outermost pixels are left to _rim_antialiased (they miss neighbours).
    rim.append((y0 + np.flatnonzero(maybe[:, 0])) * width)
    rim.append((y0 + np.flatnonzero(maybe[:, -1])) * width + (width - 1))
    maybe[:, 0] = maybe[:, -1] = False
    if y0 == 0:
        rim.append(np.flatnonzero(maybe[0]))
        maybe[0] = False
    if y1 == height:
        rim.append((height - 1) * width + np.flatnonzero(maybe[-1]))
        maybe[-1] = False
    # The candidates as a list, each image's map read at them: they are a few
    # percent of the band, where whole-band passes per image cost more.
    here = np.flatnonzero(maybe)
    if here.size:
        at = here + (y0 - lo) * width  # in the rows read
        both_flat = both.reshape(-1)
        # As pixelmatch: the second image is asked only where the first said no,
        # and neither where the pixel has 3+ equal neighbours of its own.
        found = np.zeros(here.size, dtype=bool)
        ask = np.flatnonzero(~many_a.reshape(-1)[at])
        found[ask] = _antialiased_inner(ha, at[ask], both_flat, width)
        ask = np.flatnonzero(~(found | many_b.reshape(-1)[at]))
        found[ask] = _antialiased_inner(hb, at[ask], both_flat, width)
        aa.reshape(-1)[here[found]] = True
    np.greater(over, aa, out=counted)  # over and not anti-aliased
    return differing


@attrs.frozen
class Mismatch:
    """Where two equally sized images differ, in pixelmatch's terms (flat indices)."""

    differing: Index  #: RGBA words that differ at all
    counted: Index  #: colour delta over the threshold and not anti-aliasing
    antialiased: Index  #: over the threshold but anti-aliasing (not counted)


def mismatch(
    a32: Words,
    b32: Words,
    width: int,
    height: int,
    threshold: float = 0.1,
    include_aa: bool = False,
    differing: Index | None = None,
) -> Mismatch:
    """Classify every differing pixel as pixelmatch 7 does; ``len(counted)`` is its return
    value. ``differing`` may be given when the caller already found it."""
    limit = max_delta(threshold)
    # In runs that stay in the CPU's caches: a dozen float passes per pixel. The
    # integer pre-test always runs: it costs a fifth of the float work, and a
    # change that defeats it in one band (a header's subtle tint) often does not
    # in the next (the page's dark-on-light text turned light-on-dark).
    if differing is None:
        differing, over = _differing_over(a32, b32, limit)
    else:
        runs = [
            _over(a32[part], b32[part], part, limit)[0]
            for part in np.split(differing, range(_BAND, differing.size, _BAND))
        ]
        over = np.concatenate(runs)
    if include_aa or over.size == 0:
        return Mismatch(differing, over, over[:0])
    aa = np.zeros(over.size, dtype=bool)
    for hood, which, at in hoods(over, width, height):
        # As pixelmatch: the second image is asked only where the first said no.
        first = antialiased(a32, a32, b32, hood, at)[at]
        rest = np.flatnonzero(~first)
        first[rest] = antialiased(b32, b32, a32, hood, at[rest])[at[rest]]
        aa[which] = first
    return Mismatch(differing, over[~aa], over[aa])
