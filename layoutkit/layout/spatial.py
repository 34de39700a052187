"""A uniform-grid spatial index over card boxes.

A hash grid beats an R-tree here because the board changes one card at a
time: inserting, moving or removing a box touches only the few cells it
covers, while an STRtree has to be rebuilt from scratch after every change.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from math import floor

Box = tuple[float, float, float, float]  # x0, y0, x1, y1

#: Side of one grid cell in board pixels; about one typical card.
CELL = 512.0


class GridIndex:
    """Boxes keyed by id, answering "which boxes overlap this one?" in time
    proportional to the boxes nearby, not to the size of the board."""

    __slots__ = ("_boxes", "_cell", "_cells")

    def __init__(self, cell: float = CELL) -> None:
        self._cell = cell
        self._cells: dict[tuple[int, int], set[Hashable]] = {}
        self._boxes: dict[Hashable, Box] = {}

    def __len__(self) -> int:
        return len(self._boxes)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._boxes

    def _span(self, box: Box) -> Iterator[tuple[int, int]]:
        c = self._cell
        x0, y0, x1, y1 = box
        # Touching edges are not overlaps, so a box ending exactly on a cell
        # border does not need the next cell.
        i0, i1 = floor(x0 / c), floor((x1 - 1e-9) / c) if x1 > x0 else floor(x0 / c)
        j0, j1 = floor(y0 / c), floor((y1 - 1e-9) / c) if y1 > y0 else floor(y0 / c)
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                yield i, j

    def insert(self, key: Hashable, x: float, y: float, w: float, h: float) -> None:
        """Add ``key`` with the given box, replacing any previous box of that key."""
        if key in self._boxes:
            self.remove(key)
        box = (x, y, x + w, y + h)
        self._boxes[key] = box
        cells = self._cells
        for cell in self._span(box):
            bucket = cells.get(cell)
            if bucket is None:
                cells[cell] = {key}
            else:
                bucket.add(key)

    def insert_many(self, entries: Iterable[tuple[Hashable, float, float, float, float]]) -> None:
        """Add many ``(key, x, y, w, h)`` boxes at once (a board load); same result as
        calling :meth:`insert` for each, with the cell arithmetic done inline."""
        boxes = self._boxes
        cells = self._cells
        c = self._cell
        for key, x, y, w, h in entries:
            if key in boxes:
                self.insert(key, x, y, w, h)
                continue
            x1, y1 = x + w, y + h
            boxes[key] = (x, y, x1, y1)
            i0 = floor(x / c)
            j0 = floor(y / c)
            i1 = floor((x1 - 1e-9) / c) if x1 > x else i0
            j1 = floor((y1 - 1e-9) / c) if y1 > y else j0
            if i0 == i1 and j0 == j1:
                # Most cards sit inside one cell; skip the span loops for them.
                bucket = cells.get((i0, j0))
                if bucket is None:
                    cells[(i0, j0)] = {key}
                else:
                    bucket.add(key)
                continue
            for i in range(i0, i1 + 1):
                for j in range(j0, j1 + 1):
                    bucket = cells.get((i, j))
                    if bucket is None:
                        cells[(i, j)] = {key}
                    else:
                        bucket.add(key)

    def remove(self, key: Hashable) -> None:
        """Forget ``key``; unknown keys are ignored."""
        box = self._boxes.pop(key, None)
        if box is None:
            return
        for cell in self._span(box):
            bucket = self._cells.get(cell)
            if bucket is not None:
                bucket.discard(key)
                if not bucket:
                    del self._cells[cell]

    def box(self, key: Hashable) -> Box | None:
        return self._boxes.get(key)

    def query(self, x: float, y: float, w: float, h: float, eps: float = 1e-6) -> list[Hashable]:
        """Keys whose box interior intersects the given box (touching does not count)."""
        qx0, qy0, qx1, qy1 = x, y, x + w, y + h
        seen: set[Hashable] = set()
        out: list[Hashable] = []
        boxes = self._boxes
        cells = self._cells
        for cell in self._span((qx0, qy0, qx1, qy1)):
            bucket = cells.get(cell)
            if not bucket:
                continue
            for key in bucket:
                if key in seen:
                    continue
                seen.add(key)
                bx0, by0, bx1, by1 = boxes[key]
                if bx0 < qx1 - eps and qx0 < bx1 - eps and by0 < qy1 - eps and qy0 < by1 - eps:
                    out.append(key)
        # Set order depends on string hashing, which varies per process; sort
        # so every caller sees the same order on every run.
        out.sort(key=key_order)
        return out


def key_order(key: Hashable) -> tuple[int, int | str]:
    """A total order over mixed int/str card keys: stored ids first, then provisional keys."""
    if isinstance(key, int):
        return (0, key)
    return (1, str(key))
