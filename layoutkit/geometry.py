"""Geometry value types shared by every engine part.

Board units are CSS pixels at 1x with the origin at the top left and y
growing downwards.
"""

from __future__ import annotations

import attrs


@attrs.frozen(slots=True)
class Point:
    x: float
    y: float


@attrs.frozen(slots=True)
class Rect:
    """An axis-aligned box; ``x``/``y`` is the top-left corner."""

    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    @property
    def center(self) -> Point:
        return Point(self.x + self.w / 2, self.y + self.h / 2)

    @property
    def area(self) -> float:
        return self.w * self.h

    def overlaps(self, other: Rect, eps: float = 1e-6) -> bool:
        """True when the interiors intersect; touching edges do not count."""
        return (
            self.x < other.right - eps
            and other.x < self.right - eps
            and self.y < other.bottom - eps
            and other.y < self.bottom - eps
        )

    def contains(self, other: Rect, eps: float = 1e-6) -> bool:
        return (
            other.x >= self.x - eps
            and other.y >= self.y - eps
            and other.right <= self.right + eps
            and other.bottom <= self.bottom + eps
        )

    def moved(self, dx: float, dy: float) -> Rect:
        return Rect(self.x + dx, self.y + dy, self.w, self.h)

    def inflated(self, margin: float) -> Rect:
        return Rect(self.x - margin, self.y - margin, self.w + 2 * margin, self.h + 2 * margin)

    def union(self, other: Rect) -> Rect:
        x = min(self.x, other.x)
        y = min(self.y, other.y)
        return Rect(x, y, max(self.right, other.right) - x, max(self.bottom, other.bottom) - y)

    def as_dict(self) -> dict[str, float]:
        return {"x": self.x, "y": self.y, "w": self.w, "h": self.h}


def bounding(rects: list[Rect]) -> Rect | None:
    """The smallest box holding every rect, or None for an empty list."""
    if not rects:
        return None
    x = min(r.x for r in rects)
    y = min(r.y for r in rects)
    return Rect(x, y, max(r.right for r in rects) - x, max(r.bottom for r in rects) - y)
