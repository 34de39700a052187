"""What a PDF print is asked with and answers, without the PDF writer: a server and a
CLI import these at start (the operation's schema names the pagings and papers), while
fpdf2 and fontTools load on the first print (a third of a second of every start)."""

from __future__ import annotations

import attrs

from layoutkit.errors import EngineError

#: How a board fills its pages.
PAGINGS = ("fit", "tile")
#: Page sizes in points, portrait (width, height); a board prints landscape.
PAPERS: dict[str, tuple[float, float]] = {"a4": (595.28, 841.89), "letter": (612.0, 792.0)}


class PrintError(EngineError):
    """A print request the engine refuses (an unknown paper or paging)."""


@attrs.frozen
class Printed:
    """A PDF and what it holds: pages, the points per board pixel it was drawn at, and
    its outline as (title, level, page) in reading order."""

    pdf: bytes
    pages: int
    scale: float
    outline: tuple[tuple[str, int, int], ...] = ()
