"""The one table of work limits: how much one request may ask of the server.

Every limit here bounds the time or memory a single request can take, so
that one caller cannot pin a worker for minutes or exhaust the server's
memory. A request over a limit is refused before the work starts with
:class:`LimitExceeded` (code ``limit_exceeded``, HTTP 413), whose fields name
the limit, its maximum and the value sent. The spec's own limits (compose
body 8 MiB, frame depth 5...) live where they are enforced; this table holds
the ones this project chose where the spec is silent, and the docs'
"Limits" table repeats it (a test keeps the two in step).

The module also holds the rule for the values a request may carry at all
(:func:`check_json_value`): finite numbers, integers that fit 64 bits, text
that is valid Unicode, nesting no deeper than :data:`JSON_DEPTH`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from layoutkit.errors import EngineError

#: Deepest nesting of objects and arrays in one request's params (the contract's
#: deepest shapes, doc nesting of 6 levels, stay well under 40).
JSON_DEPTH = 64
#: Integers are ids, counts and coordinates: they fit a signed 64-bit column.
MAX_INT = 2**63 - 1
#: Characters of a board title (it is drawn on one line of the board header).
TITLE_CHARS = 200
#: Nodes of one diagram (every node of every group) and its edges. Layout time
#: grows with edges per node: at these caps the worst graphs measured lay out in
#: about 2 s (100 nodes with 600 edges); 1,000 edges on 100 nodes took 10 s.
DIAGRAM_NODES = 500
DIAGRAM_EDGES = 600
#: Lines of diagram text (enough for a diagram at the node and edge caps).
DIAGRAM_LINES = 2000
#: Largest side of a diagram node's picture frame (px).
DIAGRAM_PICTURE = 400
#: Characters of a node label a person types over a diagram's own (overrides.<id>.title).
DIAGRAM_LABEL_CHARS = 500
#: Cards one arrange call may move.
ARRANGE_CARDS = 5000
#: Rows of a table card's inline data.
TABLE_ROWS = 5000
#: Entries of any other array in a card or element payload (a list's lines, a
#: chart's values, a doc's blocks, a diagram's nodes before the diagram caps):
#: a card is drawn whole, so each array's length is work; the 8 MiB compose body
#: alone would let one array hold a million entries.
LIST_ITEMS = 5000
#: Characters of one markdown text (a note's md, a doc block). A card grows to show all
#: of its text, so drawing it is linear in the text: 200,000 characters draw in about 1 s.
MARKDOWN_CHARS = 200_000
#: Pixels of an uploaded image, read from its header before anything decodes it
#: (Pillow's own decompression-bomb threshold).
IMAGE_PIXELS = 89_478_485
#: Pixels of one picture that a request may hold decoded at once (64 MiB as RGBA): a
#: larger picture is read reduced (a PNG band by band, a JPEG by DCT scaling) or from
#: its stored rendition, and one that cannot be is refused (see layoutkit.imaging).
#: Decoded whole, a picture at the imagePixels cap held 1.1 GB for one answer.
DECODE_PIXELS = 16_777_216
#: Bytes, indirect objects and pages pypdf may read to count a PDF's pages, and
#: the wall time the count may take. A larger or slower file has no count; one over
#: the object or page cap is refused (see layoutkit.service.uploads.pdf_pages).
PDF_BYTES = 25 * 1024 * 1024
PDF_OBJECTS = 200_000
PDF_PAGES = 100_000
PDF_SECONDS = 2.0
#: Pages one PDF export writes (a board's tiles, a document's pages): every page is
#: drawn in the request, and a board of 5,000 cards tiled at print size would be about
#: 800. Past it the export is refused, and fit (one page) or a section is what to ask.
EXPORT_PAGES = 200

#: Tasks meaning search compares with a query: the most recently updated within the
#: search's facets. Not a refusal: a search over a larger workspace reads this many
#: and says so in ``modeReason`` (service/search/meaning.py). Ranking 5,000 vectors of 384
#: values is one matrix product of about 2 ms.
MEANING_WINDOW = 5000

#: Name → maximum, as the error bodies and the docs name them.
LIMITS: dict[str, int | float] = {
    "jsonDepth": JSON_DEPTH,
    "titleChars": TITLE_CHARS,
    "diagramNodes": DIAGRAM_NODES,
    "diagramEdges": DIAGRAM_EDGES,
    "diagramLines": DIAGRAM_LINES,
    "arrangeCards": ARRANGE_CARDS,
    "tableRows": TABLE_ROWS,
    "listItems": LIST_ITEMS,
    "markdownChars": MARKDOWN_CHARS,
    "imagePixels": IMAGE_PIXELS,
    "decodePixels": DECODE_PIXELS,
    "pdfBytes": PDF_BYTES,
    "pdfObjects": PDF_OBJECTS,
    "pdfPages": PDF_PAGES,
    "pdfSeconds": PDF_SECONDS,
    "exportPages": EXPORT_PAGES,
}


class LimitExceeded(EngineError):
    """A request over one of :data:`LIMITS`: names the limit, its maximum and the value."""

    def __init__(self, limit: str, value: int | float, *, field: str | None = None) -> None:
        maximum = LIMITS[limit]
        where = f"{field}: " if field else ""
        extra: dict[str, Any] = {"field": field} if field is not None else {}
        super().__init__(
            "limit_exceeded",
            f"{where}{value} is over the {limit} limit of {maximum}",
            limit=limit,
            max=maximum,
            value=value,
            **extra,
        )


def check_limit(limit: str, value: int | float, *, field: str | None = None) -> None:
    """Raise :class:`LimitExceeded` when ``value`` is over the limit named ``limit``."""
    if value > LIMITS[limit]:
        raise LimitExceeded(limit, value, field=field)


class InvalidValue(EngineError):
    """A value no request may carry: a non-finite number, a 64-bit overflow, broken Unicode."""


def _path(parts: tuple[str | int, ...]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _bad_text(text: str) -> str | None:
    """What is wrong with ``text`` for storage, or None."""
    # A lone surrogate cannot be encoded; the common case costs one C-level encode.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "a lone surrogate"
    # PostgreSQL keeps no U+0000 in text or JSON; refused on every backend alike.
    if "\x00" in text:
        return "a NUL character (U+0000)"
    return None


def check_json_value(value: Any, *, depth: int = JSON_DEPTH) -> bool:
    """Refuse what no request may carry, anywhere in ``value``.

    Numbers are finite and integers fit 64 bits (``invalid_number``); text,
    keys included, is valid Unicode without U+0000 (``invalid_text``: a lone
    surrogate cannot be stored or sent back, and PostgreSQL keeps no NUL); objects and arrays nest at most ``depth`` deep
    (:class:`LimitExceeded` ``jsonDepth``). The walk is iterative, so a value
    nested far deeper than the interpreter's recursion limit is refused too.

    Returns whether ``value`` holds a float with a whole value (``2.0``): JSON
    Schema counts it as an integer and the params check does not, so the walk
    that sees every number says so.
    """
    whole_floats = False
    stack: list[_Node] = [(value, ())]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict | list):
            _open_container(node, where, depth, stack)
        else:
            _check_scalar(node, where)
            if isinstance(node, float) and node.is_integer():
                whole_floats = True
    return whole_floats


#: A value met in the walk and the path to it.
_Node = tuple[Any, tuple[str | int, ...]]


def _open_container(
    node: dict | list, where: tuple[str | int, ...], depth: int, stack: list[_Node]
) -> None:
    """Check a dict's or list's depth and keys, and queue its children for the walk."""
    if len(where) >= depth:
        raise LimitExceeded("jsonDepth", len(where) + 1, field=_path(where))
    if isinstance(node, list):
        stack.extend((child, (*where, i)) for i, child in enumerate(node))
        return
    for key, child in node.items():
        bad = _bad_text(key) if isinstance(key, str) else "no text"
        if bad:
            raise InvalidValue(
                "invalid_text",
                f"{_path(where) or 'params'}: a key holds {bad}",
                field=_path(where),
            )
        stack.append((child, (*where, key)))


def _check_scalar(node: Any, where: tuple[str | int, ...]) -> None:
    """Refuse a number JSON cannot carry or text storage cannot keep."""
    # bool is an int: it is checked first so True and False pass as they are.
    if isinstance(node, bool) or node is None:
        return
    if isinstance(node, int):
        if not -MAX_INT - 1 <= node <= MAX_INT:
            raise InvalidValue(
                "invalid_number",
                f"{_path(where) or 'params'}: integers fit 64 bits",
                field=_path(where),
            )
    elif isinstance(node, float):
        if not math.isfinite(node):
            raise InvalidValue(
                "invalid_number",
                f"{_path(where) or 'params'}: {node} is not a number JSON can carry",
                field=_path(where),
            )
    elif isinstance(node, str) and (bad := _bad_text(node)):
        raise InvalidValue(
            "invalid_text",
            f"{_path(where) or 'params'}: text holds {bad}",
            field=_path(where),
        )


def _refuse_constant(name: str) -> Any:
    raise InvalidValue("invalid_number", f"{name} is not a number JSON can carry")


def _bounded_int(text: str) -> int:
    # Parse at most 20 digits: a longer integer is over MAX_INT anyway, and
    # converting thousands of digits is quadratic in the interpreter.
    if len(text.lstrip("-")) > 20:
        raise InvalidValue(
            "invalid_number", f"an integer of {len(text)} digits does not fit 64 bits"
        )
    return int(text)


def json_loads(text: str | bytes, loads: Callable[..., Any]) -> Any:
    """Parse request JSON with the value rules applied while parsing.

    ``loads`` is :func:`json.loads` (passed in so callers keep their own error
    handling of syntax errors). NaN and Infinity and overlong integers raise
    :class:`InvalidValue`; nesting deeper than the interpreter can parse raises
    :class:`LimitExceeded` ``jsonDepth``. The parsed value still goes through
    :func:`check_json_value` at the door.
    """
    try:
        return loads(text, parse_constant=_refuse_constant, parse_int=_bounded_int)
    except RecursionError:
        raise LimitExceeded("jsonDepth", JSON_DEPTH + 1) from None
