"""Data-heavy element kinds (chart, table) and the spill of their bulk data into a dataRef."""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any

from layoutkit.elements._core import BAD, Ctx, format_path, show
from layoutkit.elements._fields import (
    INT_LIMIT,
    LIST_BOUND,
    STR_OR_NUMBER_SCHEMA,
    Spec,
    _bad_number,
    _check_str_or_number,
    boolean,
    check_list_items,
    check_object,
    custom,
    enum,
    enum_check,
    is_number,
    list_check,
    map_check,
    number,
    numbers,
    numbers_ok,
    obj,
    objects,
    scalar,
    string,
    strings,
    text_block,
)
from layoutkit.elements._kind import Kind, check_audience
from layoutkit.elements.vocab import ITEM_TONES
from layoutkit.formatting import an
from layoutkit.limits import TABLE_ROWS, check_limit

#: A table whose inline rows outnumber this is stored with its rows behind a dataRef.
SPILL_THRESHOLD_ROWS = 200
#: A chart whose data holds more numbers than this is stored with its data behind a dataRef.
SPILL_THRESHOLD_VALUES = 2000
SPILL_THRESHOLD = {"table_rows": SPILL_THRESHOLD_ROWS, "chart_values": SPILL_THRESHOLD_VALUES}

_isfinite = math.isfinite

# ---------------------------------------------------------------- chart

VIZ = (
    "line",
    "area",
    "bars",
    "scatter",
    "pie",
    "donut",
    "heatmap",
    "stat",
    "matrix",
    "flow",
    "timeline",
    "compare",
)
_SERIES_VIZ = frozenset(("line", "area", "bars", "scatter"))
_ITEMS_VIZ = frozenset(("pie", "donut", "bars", "stat", "timeline", "flow", "matrix", "compare"))


def _check_point(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    t = type(v)
    if (t is int or t is float) and is_number(v):
        return v
    if t is list and len(v) == 2 and (type(v[0]) is str or is_number(v[0])) and is_number(v[1]):
        return v[:]
    ctx.wrong_type(parent, key, "a finite number or an [x, y] pair", v)
    return BAD


_check_points = list_check(_check_point, "points", all_ok=numbers_ok)
_check_axis = list_check(_check_str_or_number, "strings or numbers")


def _check_matrix(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is not list:
        ctx.wrong_type(parent, key, "an array of number arrays", v)
        return BAD
    check_list_items(v, parent, key)
    path = (parent, key)
    out = []
    for i, row in enumerate(v):
        if type(row) is list:
            check_list_items(row, path, i)
        if type(row) is list and numbers_ok(row):
            out.append(row[:])
        elif type(row) is list:
            out.append(_NUMBERS(row, ctx, path, i))
        else:
            ctx.wrong_type(path, i, "an array of numbers", row)
    return out


_NUMBERS = numbers("").check


SERIES = Spec(
    "series",
    [
        string("label"),
        custom(
            "points",
            "array of number or [x, y]",
            _check_points,
            "Scatter takes pairs only.",
            schema={
                "type": "array",
                **LIST_BOUND,
                "items": {
                    "anyOf": [
                        {"type": "number"},
                        {
                            "type": "array",
                            "prefixItems": [STR_OR_NUMBER_SCHEMA, {"type": "number"}],
                            "minItems": 2,
                            "maxItems": 2,
                        },
                    ]
                },
            },
        ),
        numbers("values"),
    ],
)
CHART_ITEM = Spec(
    "chart item",
    [
        string("label"),
        scalar("value"),
        string("display"),
        scalar("delta"),
        string("unit", "Overrides data.unit for this row."),
        enum("tone", ITEM_TONES, "Stated meaning; never inferred."),
        string("when"),
        custom(
            "x",
            "string or number",
            lambda v, c, p, k: _axis_value(v, c, p, k),
            schema=STR_OR_NUMBER_SCHEMA,
        ),
        custom(
            "y",
            "string or number",
            lambda v, c, p, k: _axis_value(v, c, p, k),
            schema=STR_OR_NUMBER_SCHEMA,
        ),
        numbers("spark"),
        number("before"),
        number("after"),
        string("note"),
    ],
)


def _axis_value(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is str or is_number(v):
        return v
    ctx.wrong_type(parent, key, "a string or a number", v)
    return BAD


REF_LINE = Spec(
    "reference line",
    [string("label"), number("value"), numbers("points", "One value per x.")],
)
CALENDAR = Spec(
    "calendar",
    [string("from", "First day.", required=True), numbers("values", required=True)],
)
_AXIS = {"type": "array", "items": STR_OR_NUMBER_SCHEMA, **LIST_BOUND}
CHART_DATA = Spec(
    "chart data",
    [
        objects("series", SERIES, "line, area, bars, scatter."),
        objects("items", CHART_ITEM, "pie, donut, bars, stat, timeline, flow, matrix, compare."),
        custom("x", "array of string or number", _check_axis, "Heatmap columns.", schema=_AXIS),
        custom("y", "array of string or number", _check_axis, "Heatmap rows.", schema=_AXIS),
        custom(
            "values",
            "array of number arrays",
            _check_matrix,
            "Heatmap cells, one row per y.",
            schema={
                "type": "array",
                "items": {"type": "array", "items": {"type": "number"}, **LIST_BOUND},
                **LIST_BOUND,
            },
        ),
        number("min"),
        number("max"),
        boolean("stack"),
        string("unit"),
        objects("refs", REF_LINE, "Reference lines over line, area, bars, scatter."),
        obj("calendar", CALENDAR, "Turns a heatmap into a calendar of days."),
        number("rank", "Ranked share bars with an 'other' row (bars).", minimum=0),
        enum("better", ("lower", "higher"), "Required for viz compare."),
        string("before", "Series name; default Before."),
        string("after", "Series name; default After."),
    ],
)


def _heatmap_slots(data: dict[str, Any], ctx: Ctx, dpath: Any) -> None:
    if "calendar" in data:
        return
    for slot in ("x", "y", "values"):
        if slot not in data:
            ctx.error(dpath, slot, "missing_data", f"viz heatmap needs data.{slot}")
    grid = data.get("values")
    if grid is not None and "x" in data and "y" in data:
        nx, ny = len(data["x"]), len(data["y"])
        if len(grid) != ny or any(len(row) != nx for row in grid):
            ctx.warn(
                dpath,
                "values",
                "shape_mismatch",
                f"values should be {ny} rows (one per y) of {nx} cells (one per x)",
            )


def _required_slots(viz: Any, data: dict[str, Any], ctx: Ctx, dpath: Any) -> None:
    """The data slot each viz draws from must be there."""
    if viz == "heatmap":
        _heatmap_slots(data, ctx, dpath)
    elif viz == "bars":
        if "series" not in data and "items" not in data:
            ctx.error(dpath, "series", "missing_data", "viz bars needs data.series or data.items")
    elif viz in _SERIES_VIZ:
        if "series" not in data:
            ctx.error(dpath, "series", "missing_data", f"viz {viz} needs data.series")
    elif "items" not in data:
        ctx.error(dpath, "items", "missing_data", f"viz {viz} needs data.items")


def _scatter_pairs(data: dict[str, Any], ctx: Ctx, dpath: Any) -> None:
    for i, s in enumerate(data.get("series", ())):
        spath = ((dpath, "series"), i)
        if "values" in s:
            ctx.error(spath, "values", "scatter_pairs", "scatter series take [x, y] points")
            del s["values"]
        pts = s.get("points")
        if pts and any(type(p) is not list for p in pts):
            ctx.error(
                spath,
                "points",
                "scatter_pairs",
                "scatter takes [x, y] pairs only, not plain numbers",
            )
            s["points"] = [p for p in pts if type(p) is list]


def _compare_fields(data: dict[str, Any], ctx: Ctx, dpath: Any) -> None:
    if "better" not in data:
        ctx.error(
            dpath,
            "better",
            "missing_field",
            "viz compare needs data.better: lower or higher",
            "add better: 'lower' when smaller numbers are an improvement",
        )
    for i, item in enumerate(data.get("items", ())):
        for name in ("label", "before", "after"):
            if name not in item:
                ctx.error(
                    ((dpath, "items"), i),
                    name,
                    "missing_field",
                    f"a compare item needs {name}",
                )


_VIZ_CHECKS = {"scatter": _scatter_pairs, "compare": _compare_fields}


def _ignored_slots(viz: Any, data: dict[str, Any], ctx: Ctx, dpath: Any) -> None:
    """Slots another viz reads are kept but warned about."""
    if "refs" in data and viz not in _SERIES_VIZ:
        ctx.warn(dpath, "refs", "ignored_field", "refs only draw on line, area, bars, scatter")
    if "calendar" in data and viz != "heatmap":
        ctx.warn(dpath, "calendar", "ignored_field", "calendar only applies to heatmap")
    if "rank" in data and viz != "bars":
        ctx.warn(dpath, "rank", "ignored_field", "rank only applies to bars")


def _chart_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    viz = out.get("viz")
    data = out.get("data")
    if viz is None:
        return
    if data is None:
        if not ctx.data_ref:
            ctx.error(path, "data", "missing_data", f"viz {viz} needs data (or a dataRef)")
        return
    dpath = (path, "data")
    _required_slots(viz, data, ctx, dpath)
    check = _VIZ_CHECKS.get(viz)
    if check is not None:
        check(data, ctx, dpath)
    _ignored_slots(viz, data, ctx, dpath)


CHART = Kind(
    "chart",
    "A chart: viz picks the picture, data holds the numbers (or a dataRef does).",
    Spec(
        "chart payload",
        [
            enum("viz", VIZ, "Decides which data slot is required.", required=True),
            string("title"),
            text_block("caption"),
            obj("data", CHART_DATA, "Replaced wholesale by the envelope's dataRef."),
        ],
        _chart_post,
    ),
    "Required data slot by viz: series for line, area and scatter; series or items for "
    "bars; items for pie, donut, stat, timeline, flow, matrix and compare; x, y and values "
    "(or calendar) for heatmap.\n\n"
    "Scatter points are [x, y] pairs; other series take plain numbers or pairs. Tone is "
    "what the author says it is: the renderer never derives it from a sign.\n\n"
    "viz compare draws before/after bars on one scale per unit with a delta chip. "
    "data.better (lower or higher) is required; each item needs label, before and after. "
    "An item's tone wins; otherwise moving the better way is good, the other way bad.\n\n"
    "viz stat is a single big number; the stat kind is the headline strip.\n\n"
    f"Data with more than {SPILL_THRESHOLD_VALUES} numbers is moved behind a dataRef when "
    "normalized (see the limits topic).",
)

# ---------------------------------------------------------------- table

COL_TYPES = ("text", "number", "date", "select", "check", "link")
_col_type = enum_check(COL_TYPES, "column type")


def _check_col_type(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if v == "formula":
        ctx.error(
            parent,
            key,
            "reserved_type",
            "the column type formula is reserved and cannot be written",
            "compute the values and use type number",
        )
        return BAD
    return _col_type(v, ctx, parent, key)


COLUMN = Spec(
    "column",
    [
        string("key", "Cell key in rows.", required=True),
        string("label", "Header text; default the key."),
        custom(
            "type",
            "one of " + ", ".join(COL_TYPES),
            _check_col_type,
            "formula is reserved.",
            schema={"enum": list(COL_TYPES)},
        ),
        strings("options", "Choices of a select column."),
        number("width", positive=True),
    ],
)
FILTER = Spec(
    "view filter",
    [
        string("col", required=True),
        enum("op", ("eq", "ne", "lt", "gt", "contains", "empty", "nonempty"), required=True),
        scalar("value", "Not used by empty and nonempty."),
    ],
)
SORT = Spec(
    "view sort",
    [string("col", required=True), enum("dir", ("asc", "desc"), default="asc")],
)
VIEW = Spec(
    "view",
    [
        string("name"),
        objects("filter", FILTER),
        objects("sort", SORT),
        string("group", "Column key to group by."),
    ],
)
CELL = Spec(
    "cell",
    [
        scalar("v", "Cell value.", required=True),
        string("href", "https, mailto, #section-id, a path or a sources alias."),
        enum("tone", ITEM_TONES),
    ],
)

_SCALARS = frozenset((str, int, float, bool, type(None)))
_UNSAFE_SCHEME = re.compile(r"^\s*(javascript|data|vbscript|file):", re.IGNORECASE)


def _cell_ok(x: Any) -> bool:
    t = type(x)
    if t is float:
        return _isfinite(x)
    if t is int:
        return -INT_LIMIT <= x <= INT_LIMIT
    return True


def _rows_shape(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    # Rows are checked against the columns in the table's cross-field rule.
    if type(v) is list:
        check_limit("tableRows", len(v), field=format_path(parent, key))
        return v
    ctx.wrong_type(parent, key, "an array of rows", v)
    return BAD


def _plain_cells(cells: dict[Any, Any], colkeys: frozenset[str]) -> dict[Any, Any] | None:
    """A copy of cells that need no checking (known keys, in-range scalars), else None.

    Most rows are like this, so they skip the per-cell walk."""
    if not cells.keys() <= colkeys:
        return None
    ts = set(map(type, cells.values()))
    if not ts <= _SCALARS:
        return None
    if float not in ts and int not in ts:
        return dict(cells)
    for x in cells.values():
        t = type(x)
        # x - x is 0.0 for a finite float and NaN (truthy) otherwise.
        if (t is float and x - x) or (t is int and not -INT_LIMIT <= x <= INT_LIMIT):
            return None
    return dict(cells)


def _rich_cell(x: dict[Any, Any], ctx: Ctx, path: Any, k: Any) -> Any:
    y = check_object(CELL, x, ctx, path, k)
    if y is BAD:
        return BAD
    href = y.get("href")
    if href is not None and _UNSAFE_SCHEME.match(href):
        ctx.error((path, k), "href", "unsafe_href", "this link scheme is not allowed")
        del y["href"]
    elif href is not None and href[:1] == "#" and ctx.track_sections:
        ctx.anchor_refs.append((href[1:], (path, k), "href"))
    return y


def _cell(x: Any, ctx: Ctx, path: Any, k: Any) -> Any:
    """The checked value of one cell, or BAD when it is left out."""
    t = type(x)
    if t is dict:
        return _rich_cell(x, ctx, path, k)
    if t in _SCALARS and _cell_ok(x):
        return x
    if t is float or t is int:
        _bad_number(x, ctx, path, k)
    else:
        ctx.wrong_type(path, k, "a scalar or {v, href?, tone?}", x)
    return BAD


def _cells(cells: dict[Any, Any], colkeys: frozenset[str], ctx: Ctx, parent: Any, key: Any) -> Any:
    plain = _plain_cells(cells, colkeys)
    if plain is not None:
        return plain
    path = (parent, key)
    out = {}
    for k, x in cells.items():
        if k not in colkeys:
            ctx.warn(
                path,
                k if type(k) is str else None,
                "unknown_column",
                f"no column has key {show(k)}; the cell is left out",
            )
            continue
        y = _cell(x, ctx, path, k)
        if y is not BAD:
            out[k] = y
    return out


def _duplicate_cols(colkeys_list: list[str], ctx: Ctx, path: Any) -> None:
    seen: set[str] = set()
    for i, k in enumerate(colkeys_list):
        if k in seen:
            ctx.error(((path, "cols"), i), "key", "duplicate_column", f"column {k!r} twice")
        seen.add(k)


def _row(row: Any, colkeys: frozenset[str], ctx: Ctx, rpath: Any, i: int) -> Any:
    """One checked row: its cells, or BAD when it is no row object.

    A row may wrap its cells to carry an audience, unless a column is itself
    called cells."""
    if type(row) is not dict:
        ctx.wrong_type(rpath, i, "a row object", row)
        return BAD
    cells = row.get("cells")
    if not (type(cells) is dict and row.keys() <= _WRAPPED and "cells" not in colkeys):
        return _cells(row, colkeys, ctx, rpath, i)
    wrapped: dict[str, Any] = {"cells": _cells(cells, colkeys, ctx, (rpath, i), "cells")}
    if "audience" in row:
        aud = check_audience(row["audience"], ctx, (rpath, i), "audience")
        if aud is not BAD:
            wrapped["audience"] = aud
    return wrapped


def _rows(rows: list[Any], colkeys: frozenset[str], ctx: Ctx, path: Any) -> list[Any]:
    rpath = (path, "rows")
    checked = (_row(row, colkeys, ctx, rpath, i) for i, row in enumerate(rows))
    return [row for row in checked if row is not BAD]


def _view_filter(f: dict[str, Any], colkeys: frozenset[str], ctx: Ctx, fpath: Any) -> None:
    _col_ref(f.get("col"), colkeys, ctx, fpath)
    op = f.get("op")
    if op in ("empty", "nonempty"):
        if "value" in f:
            ctx.warn(fpath, "value", "ignored_field", f"{op} takes no value")
            del f["value"]
    elif op is not None and "value" not in f:
        ctx.error(fpath, "value", "missing_field", f"op {op} needs a value")


def _view(view: dict[str, Any], colkeys: frozenset[str], ctx: Ctx, vpath: Any) -> None:
    for j, f in enumerate(view.get("filter", ())):
        _view_filter(f, colkeys, ctx, ((vpath, "filter"), j))
    for j, s in enumerate(view.get("sort", ())):
        _col_ref(s.get("col"), colkeys, ctx, ((vpath, "sort"), j))
    if "group" in view and view["group"] not in colkeys:
        ctx.error(vpath, "group", "unknown_column", f"no column has key {view['group']!r}")
        del view["group"]


def _aggregates(
    aggs: dict[str, Any], cols: Any, colkeys: frozenset[str], ctx: Ctx, path: Any
) -> None:
    types = {c["key"]: c.get("type", "text") for c in cols if "key" in c}
    for k in list(aggs):
        if k not in colkeys:
            ctx.error((path, "aggregates"), k, "unknown_column", f"no column has key {k!r}")
            del aggs[k]
        elif aggs[k] in ("sum", "avg") and types[k] != "number":
            ctx.warn(
                (path, "aggregates"),
                k,
                "aggregate_type",
                f"{aggs[k]} over {an(types[k])} column",
                "give the column type number",
            )


def _table_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    cols = out.get("cols", ())
    colkeys_list = [c["key"] for c in cols if "key" in c]
    colkeys = frozenset(colkeys_list)
    if len(colkeys) != len(colkeys_list):
        _duplicate_cols(colkeys_list, ctx, path)
    rows = out.get("rows")
    if rows is not None:
        out["rows"] = _rows(rows, colkeys, ctx, path)
    for i, view in enumerate(out.get("views", ())):
        _view(view, colkeys, ctx, ((path, "views"), i))
    if rows is not None:
        _check_options(cols, out["rows"], ctx, path)
    aggs = out.get("aggregates")
    if aggs:
        _aggregates(aggs, cols, colkeys, ctx, path)


_WRAPPED = frozenset(("cells", "audience"))


def _check_options(cols: Any, rows: list[Any], ctx: Ctx, path: Any) -> None:
    """Warn about select cells whose value is not one of the column's options."""
    selects = [
        (c["key"], frozenset(c["options"]))
        for c in cols
        if c.get("type") == "select" and "options" in c and "key" in c
    ]
    for key, options in selects:
        for i, row in enumerate(rows):
            cells = row["cells"] if type(row.get("cells")) is dict and len(row) <= 2 else row
            value = cells.get(key)
            if type(value) is dict:
                value = value.get("v")
            if type(value) is str and value and value not in options:
                ctx.warn(
                    ((path, "rows"), i),
                    key,
                    "unknown_option",
                    f"{show(value)} is not an option of select column {key!r}",
                )


def _col_ref(col: Any, colkeys: frozenset[str], ctx: Ctx, path: Any) -> None:
    if col is not None and col not in colkeys:
        ctx.error(path, "col", "unknown_column", f"no column has key {col!r}")


_AGG = enum_check(("sum", "avg", "count"), "aggregate")
# Cells under a key no column has are dropped with a warning whatever they hold, and
# the column keys are the payload's own, so a row's members cannot be typed here.
_ROW = {
    "type": "object",
    "description": "Column key to cell (a scalar or a cell object), or {cells, audience}.",
}

TABLE = Kind(
    "table",
    "A data table with typed columns, saved views and footer aggregates.",
    Spec(
        "table payload",
        [
            string("title"),
            text_block("caption"),
            objects("cols", COLUMN, required=True, min_items=1),
            custom(
                "rows",
                "array of row",
                _rows_shape,
                "A row maps column keys to cells, or is {cells, audience}. A cell is a "
                "scalar or {v, href?, tone?}. Sparse rows are fine.",
                schema={"type": "array", "items": _ROW, "maxItems": TABLE_ROWS},
                members=CELL,
            ),
            objects("views", VIEW),
            custom(
                "aggregates",
                "map of column key to sum, avg or count",
                map_check(_AGG, "aggregates"),
                "Shown in the footer.",
                schema={
                    "type": "object",
                    "additionalProperties": {"enum": ["sum", "avg", "count"]},
                },
            ),
        ],
        _table_post,
    ),
    "String cells render inline markdown. A link in a cell may be https, mailto, a "
    "#section-id, a path or a doc sources alias; script, data and file schemes are refused. "
    "Views filter with eq, ne, lt, gt, contains, empty and nonempty and sort asc or desc; "
    "every column they name must exist. A select cell outside its column's options, and "
    "a #section-id link to an id no section carries, warn.\n\n"
    f"More than {SPILL_THRESHOLD_ROWS} inline rows are moved behind a dataRef when "
    "normalized, unless some row carries an audience (filtering needs them inline).",
)

# ---------------------------------------------------------------- spill


def canonical_json(value: Any) -> bytes:
    """The bytes a dataRef is computed over: sorted keys, no spaces, UTF-8."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode()


def data_ref(value: Any) -> str:
    """Content address of ``value``: ``sha256:<hex of canonical JSON>``."""
    return "sha256:" + hashlib.sha256(canonical_json(value)).hexdigest()


def chart_size(data: dict[str, Any]) -> int:
    """How many numbers a chart's data carries (the spill measure)."""
    n = len(data.get("items", ()))
    for s in data.get("series", ()):
        n += len(s.get("points", ())) + len(s.get("values", ()))
    for row in data.get("values", ()):
        n += len(row)
    cal = data.get("calendar")
    if cal:
        n += len(cal.get("values", ()))
    return n


def spill(kind: str, payload: dict[str, Any], ctx: Ctx) -> str | None:
    """Move bulk data out of a normalized chart/table payload; returns the dataRef or None."""
    if kind == "chart":
        data = payload.get("data")
        if data is None or chart_size(data) <= SPILL_THRESHOLD_VALUES:
            return None
        bulk, slot = data, "data"
    else:
        rows = payload.get("rows")
        if rows is None or len(rows) <= SPILL_THRESHOLD_ROWS:
            return None
        if any("audience" in r and type(r.get("cells")) is dict for r in rows):
            return None
        bulk, slot = rows, "rows"
    try:
        ref = data_ref(bulk)
    except (TypeError, ValueError, RecursionError):
        return None
    ctx.spilled[ref] = bulk
    del payload[slot]
    return ref


__all__ = [
    "CHART",
    "SPILL_THRESHOLD",
    "SPILL_THRESHOLD_ROWS",
    "SPILL_THRESHOLD_VALUES",
    "TABLE",
    "data_ref",
    "spill",
]
