"""Reading order: the one order in which people read cards laid out on a board."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar


class Boxed(Protocol):
    """Anything with a top-left corner and a height: layout cards and stored records alike."""

    @property
    def x(self) -> float: ...

    @property
    def y(self) -> float: ...

    @property
    def h(self) -> float: ...


B = TypeVar("B", bound=Boxed)


def reading_order(items: Iterable[B], *, tie: Callable[[B], Any]) -> list[B]:
    """Rows top to bottom, each row left to right; ``tie`` orders cards at the same spot.

    A card joins the current row when its top is above the middle of every card
    already in the row, so cards of different heights that a reader sees side by
    side read as one row, however far apart their tops are in pixels.
    """
    rows: list[list[B]] = []
    limit = 0.0
    for item in sorted(items, key=lambda c: (c.y, c.x, tie(c))):
        if rows and item.y < limit:
            rows[-1].append(item)
            limit = min(limit, item.y + item.h / 2)
        else:
            rows.append([item])
            limit = item.y + item.h / 2
    return [item for row in rows for item in sorted(row, key=lambda c: (c.x, c.y, tie(c)))]
