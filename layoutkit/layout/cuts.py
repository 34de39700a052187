"""What a face leaves out, reported as data where it draws its marker.

A face that cannot show all of its content draws a marker saying so ("+3 more
rows", "+2 columns", a closing "…"). It draws that marker through
:func:`left_out`, which also records the cut while :func:`collecting` is on, so
the one place that decides to cut is the one that reports it. The service turns
the report into the compose receipt's ``truncated`` warnings.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import attrs


@attrs.frozen(slots=True)
class Cut:
    """One thing a face left out: ``what`` in words ("12 of 40 rows"), and the
    ``marker`` the face shows for it."""

    what: str
    marker: str


_SINK: ContextVar[list[Cut] | None] = ContextVar("layoutkit_face_cuts", default=None)


def left_out(what: str, marker: str) -> str:
    """Record that the face being drawn left ``what`` out; returns ``marker``, the
    text the face draws to say so."""
    sink = _SINK.get()
    if sink is not None:
        sink.append(Cut(what, marker))
    return marker


def told(cuts: tuple[Cut, ...] | list[Cut]) -> None:
    """Record ``cuts`` a face made earlier (kept with it by a cache of drawn faces)
    as if it were drawn now."""
    sink = _SINK.get()
    if sink is not None:
        sink.extend(cuts)


def more(n: int, one: str, many: str | None = None) -> str:
    """``n`` things in words: "1 row", "3 rows"."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def clipped(text: str) -> str:
    """Words for the end of ``text`` cut off by an ellipsis."""
    text = " ".join(str(text).split())
    return f"the end of {text[:32] + '…' if len(text) > 32 else text!r}"


@contextmanager
def collecting() -> Iterator[list[Cut]]:
    """Collect the cuts of the faces drawn inside the block."""
    sink: list[Cut] = []
    token = _SINK.set(sink)
    try:
        yield sink
    finally:
        _SINK.reset(token)
