"""The plan of a table element's face: column widths and each row's wrapped lines.

The card sizer and the face both read this plan, so the height a table card is
given is the height its face draws. Columns get the width their widest cell
needs; when the table is wider than the face, the widest columns give way and
their text wraps (up to :data:`CELL_LINES` lines a cell, the last one ending in
an ellipsis) instead of being cut to one line. Only when even wrapped columns
cannot share the width (each keeps at least its header's longest word, its
numbers and its footer, see :func:`least_width`) are the last columns left out, and the face says
"+N columns".
"""

from __future__ import annotations

from typing import Any

import attrs

from layoutkit.formatting import fmt_num, fmt_when, number_format, number_in
from layoutkit.layout import text as _text
from layoutkit.layout.blocks import plain_inline
from layoutkit.layout.cuts import clipped, left_out

TEXT_SIZE = 11.0
HEAD_SIZE = 10.0
FOOT_SIZE = 10.5
#: A column is never left narrower than this (its text would wrap a letter a line).
MIN_COL = 32.0
#: A cell wraps onto at most this many lines; the rest is shown by an ellipsis.
CELL_LINES = 3
#: A header wraps onto at most this many lines.
HEAD_LINES = 2
#: Space between columns (the text of a cell is this much narrower than its column).
PAD = 6.0
#: Rows whose lines are worked out; later rows (never drawn on a face of sane
#: height) count one line each, so a 100,000-row table is sized in bounded time.
PLANNED_ROWS = 400
ROW_PAD = 3.0


def line_height() -> float:
    return _text.line_height(TEXT_SIZE)


def head_height() -> float:
    """Height of the header row (and of a one-line body row)."""
    return line_height() + ROW_PAD


@attrs.frozen(slots=True)
class TableFace:
    cols: tuple[dict[str, Any], ...]
    heads: tuple[str, ...]
    numeric: tuple[bool, ...]
    widths: tuple[float, ...]
    #: Lines of each cell of each planned row.
    rows: tuple[tuple[tuple[str, ...], ...], ...]
    #: Rows counted but not planned (one line each).
    unplanned: int
    #: The footer of each column ("sum 1,200"), empty where the column has none.
    foot: tuple[str, ...]
    #: Each header's lines: a header wider than its column wraps (up to two lines).
    head_lines: tuple[tuple[str, ...], ...] = ()

    @property
    def header_height(self) -> float:
        n = max((len(lines) for lines in self.head_lines), default=1)
        return head_height() + (n - 1) * _text.line_height(HEAD_SIZE)

    def row_height(self, i: int) -> float:
        if i >= len(self.rows):
            return head_height()
        return max((len(cell) for cell in self.rows[i]), default=1) * line_height() + ROW_PAD

    @property
    def count(self) -> int:
        return len(self.rows) + self.unplanned

    @property
    def body_height(self) -> float:
        planned = sum(self.row_height(i) for i in range(len(self.rows)))
        return planned + self.unplanned * head_height()


def columns(p: dict[str, Any], w: float) -> list[dict[str, Any]]:
    """The columns a face ``w`` wide shows: as many as fit at their least width."""
    cols = _all_columns(p)
    if not cols:
        return []
    least = _least_widths(p, cols)
    shown, used = 0, 0.0
    for n in least:
        if shown and used + n > w + 0.01:
            break
        shown, used = shown + 1, used + n
    return cols[:shown]


def hidden_columns(p: dict[str, Any], w: float) -> int:
    """Columns a face ``w`` wide leaves out (and says so)."""
    return len(_all_columns(p)) - len(columns(p, w))


def more_columns_text(p: dict[str, Any], w: float) -> str:
    """The line a face with left-out columns shows, or "" when it shows them all."""
    n = hidden_columns(p, w)
    return f"+{n} column{'s' if n > 1 else ''}" if n else ""


def natural_width(p: dict[str, Any]) -> float:
    """The width at which every column gets the width its widest cell needs."""
    cols = _all_columns(p)
    if not cols:
        return 0.0
    heads, shown, _, foot = _texts(p, cols)
    return sum(_needs(cols, heads, shown, foot))


def least_width(p: dict[str, Any]) -> float:
    """The narrowest face that shows every column (their text wrapped)."""
    return sum(_least_widths(p, _all_columns(p)))


def _all_columns(p: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in p.get("cols") or [] if isinstance(c, dict) and c.get("key")]


def _rows(p: dict[str, Any]) -> list[dict[str, Any]]:
    raw = p.get("rows") if isinstance(p.get("rows"), list) else []
    return [cells for cells in (row_cells(r) for r in raw) if cells is not None]


def _texts(
    p: dict[str, Any], cols: list[dict[str, Any]]
) -> tuple[tuple[str, ...], list[list[str]], tuple[bool, ...], tuple[str, ...]]:
    """Headers, the shown text of the planned rows' cells, numeric flags and footers."""
    rows = _rows(p)
    heads = tuple(str(c.get("label") or c["key"]).upper() for c in cols)
    planned = rows[:PLANNED_ROWS]
    shown = [[cell_text(c, r.get(c["key"])) for c in cols] for r in planned]
    numeric = tuple(is_numeric(c, [r.get(c["key"]) for r in planned]) for c in cols)
    how = p.get("aggregates") if isinstance(p.get("aggregates"), dict) else {}
    foot = tuple(
        f"{how[c['key']]} {aggregate(rows, c['key'], how[c['key']])}"
        if how.get(c["key"]) in ("sum", "avg", "count")
        else ""
        for c in cols
    )
    return heads, shown, numeric, foot


def _needs(
    cols: list[dict[str, Any]],
    heads: tuple[str, ...],
    shown: list[list[str]],
    foot: tuple[str, ...],
) -> list[float]:
    return [
        max(
            [_text.text_width(heads[i], HEAD_SIZE, "sans-bold")]
            + [_text.text_width(foot[i], FOOT_SIZE, "sans-bold")]
            + [_text.text_width(row[i], TEXT_SIZE) for row in shown[:50]]
        )
        + 2 * PAD
        for i in range(len(cols))
    ]


def _number_widths(shown: list[list[str]], numeric: tuple[bool, ...]) -> list[float]:
    """The width of each numeric column's widest number (0 for text columns): numbers
    never wrap."""
    return [
        max((_text.text_width(row[i], TEXT_SIZE) for row in shown[:50]), default=0.0) + 2 * PAD
        if numeric[i]
        else 0.0
        for i in range(len(numeric))
    ]


def _least_widths(p: dict[str, Any], cols: list[dict[str, Any]]) -> list[float]:
    """Each column's least width, plus padding: the longest word of its header (at
    least :data:`MIN_COL`), as cells wrap and a long word breaks; a numeric column
    its widest number and a footer its whole line, as neither wraps."""
    heads, shown, numeric, foot = _texts(p, cols)
    numbers = _number_widths(shown, numeric)
    return [
        max(
            MIN_COL + 2 * PAD,
            max(
                (_text.text_width(word, HEAD_SIZE, "sans-bold") for word in heads[i].split()),
                default=0.0,
            )
            + 2 * PAD,
            _text.text_width(foot[i], FOOT_SIZE, "sans-bold") + 2 * PAD,
            numbers[i],
        )
        for i in range(len(cols))
    ]


def row_cells(row: Any) -> dict[str, Any] | None:
    """A row's cells: ``{"cells": {...}}`` or the mapping itself; None for anything else."""
    if isinstance(row, dict) and isinstance(row.get("cells"), dict):
        return row["cells"]
    return row if isinstance(row, dict) else None


def cell_value(cell: Any) -> Any:
    """A cell's value: ``{"v": ...}`` (with a tone or a link beside it) or the bare value."""
    return cell.get("v") if isinstance(cell, dict) else cell


def aggregate(rows: list[dict[str, Any]], key: str, how: str) -> str:
    """The footer of column ``key``: its sum, average or count of filled cells.

    A sum or an average is written in the column's number format (its cells'
    prefix, suffix and decimals, :func:`layoutkit.formatting.number_format`); a
    count is a plain count.
    """
    values = [cell_value(r.get(key)) for r in rows]
    if how == "count":
        return fmt_num(sum(1 for v in values if v not in (None, "")))
    nums = [n for n in (number_in(v) for v in values if not isinstance(v, bool)) if n is not None]
    if not nums:
        return "—"
    total = sum(nums)
    if how == "sum":
        return number_format(values)(total)
    return number_format(values)(total / len(nums), finer=True)


def cell_text(col: dict[str, Any], cell: Any) -> str:
    """The text a cell shows, formatted as the HTML table formats it."""
    value = cell_value(cell)
    if col.get("type") == "check" and value is not None:
        return "✓" if value else "✗"
    if col.get("type") == "date":
        return fmt_when(value)
    if not isinstance(value, str) and value is not None:
        return fmt_num(value)
    return plain_inline(value or "")


def is_numeric(col: dict[str, Any], values: list[Any]) -> bool:
    if col.get("type") == "number":
        return True
    raw = [cell_value(v) for v in values]
    raw = [v for v in raw if v is not None and v != ""]
    return bool(raw) and all(isinstance(v, int | float) and not isinstance(v, bool) for v in raw)


def col_widths(needs: list[float], w: float, floors: list[float] | None = None) -> list[float]:
    """Columns get the width their widest cell needs; spare width is shared, a shortfall
    is taken from the widest columns first, none going under its floor (its least width:
    a number or a footer that does not wrap) while the floors fit."""
    total = sum(needs)
    if total <= w:
        spare = (w - total) / len(needs)
        return [n + spare for n in needs]
    lows = [min(f, n) for f, n in zip(floors or [0.0] * len(needs), needs, strict=True)]
    if sum(lows) > w:
        lows = [0.0] * len(needs)
    # Water-fill: every column is capped at one level, the highest at which the
    # columns fit, so only the columns wider than that level give way (and wrap).
    low, high = 0.0, max(needs)
    for _ in range(40):
        level = (low + high) / 2
        if sum(max(f, min(n, level)) for f, n in zip(lows, needs, strict=True)) > w:
            high = level
        else:
            low = level
    return [max(f, min(n, low)) for f, n in zip(lows, needs, strict=True)]


def _cell_lines(text: str, width: float, numeric: bool) -> tuple[str, ...]:
    if numeric or _text.text_width(text, TEXT_SIZE) <= width:
        return (_fit(text, width),)
    lines = _text.wrap(" ".join(text.split()), width, TEXT_SIZE)
    if len(lines) > CELL_LINES:
        lines = [*lines[: CELL_LINES - 1], _fit(" ".join(lines[CELL_LINES - 1 :]), width)]
    return tuple(lines)


def _fit(text: str, width: float) -> str:
    text = " ".join(text.split())
    if _text.text_width(text, TEXT_SIZE) <= width:
        return text
    return _text.fit_prefix(text, width, TEXT_SIZE, tail="…").rstrip() + left_out(
        clipped(text), "…"
    )


def plan(p: dict[str, Any], w: float) -> TableFace | None:
    """The face plan of table payload ``p`` at width ``w``; None without columns."""
    cols = columns(p, w)
    if not cols:
        return None
    rows = _rows(p)
    heads, shown, numeric, foot = _texts(p, cols)
    needs = _needs(cols, heads, shown, foot)
    floors = [
        _text.text_width(foot[i], FOOT_SIZE, "sans-bold") + 2 * PAD
        if not numeric[i]
        else max(n, _text.text_width(foot[i], FOOT_SIZE, "sans-bold") + 2 * PAD)
        for i, n in enumerate(_number_widths(shown, numeric))
    ]
    widths = tuple(col_widths(needs, w, floors))
    lines = tuple(
        tuple(_cell_lines(row[i], widths[i] - PAD, numeric[i]) for i in range(len(cols)))
        for row in shown
    )
    unplanned = len(rows) - len(shown)
    head_lines = tuple(_head_lines(heads[i], widths[i] - PAD) for i in range(len(cols)))
    return TableFace(tuple(cols), heads, numeric, widths, lines, unplanned, foot, head_lines)


def _head_lines(text: str, width: float) -> tuple[str, ...]:
    if _text.text_width(text, HEAD_SIZE, "sans-bold") <= width:
        return (text,)
    lines = _text.wrap(text, width, HEAD_SIZE, "sans-bold")
    if len(lines) > HEAD_LINES:
        lines = [*lines[: HEAD_LINES - 1], " ".join(lines[HEAD_LINES - 1 :])]
    return tuple(
        line
        if _text.text_width(line, HEAD_SIZE, "sans-bold") <= width
        else _text.fit_prefix(line, width, HEAD_SIZE, "sans-bold", tail="…").rstrip() + "…"
        for line in lines
    )
