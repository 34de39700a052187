"""The table element: typed columns, toned and linked cells, views, aggregates.

Views are computed here (filter, sort, group) and each is emitted as its own
table body behind radio tabs, so switching views needs no script and a
printed page shows the first view.
"""

from __future__ import annotations

from typing import Any

from layoutkit.formatting import as_number, fmt_num, fmt_when, parse_when
from layoutkit.layout.table_face import aggregate, cell_value
from layoutkit.render._safe import esc

TONES = ("good", "warn", "bad", "neutral")


def _cells(row: Any) -> dict:
    if isinstance(row, dict) and isinstance(row.get("cells"), dict):
        return row["cells"]
    return row if isinstance(row, dict) else {}


def _cell_html(ctx: Any, col: dict, cell: Any) -> tuple[str, str]:
    """(td class, inner html) of one cell."""
    ctype = col.get("type") or "text"
    value = cell_value(cell)
    classes = []
    if isinstance(cell, dict) and cell.get("tone") in TONES:
        classes.append(f"t-{cell['tone']}")
    if ctype == "number":
        classes.append("num")
        inner = (
            esc(fmt_num(value))
            if isinstance(value, (int, float))
            else esc(value if value is not None else "")
        )
    elif ctype == "date":
        inner = esc(fmt_when(value)) if value is not None else ""
    elif ctype == "check":
        inner = ("✓" if value else "✗") if value is not None else ""
        inner = f'<span aria-label="{"yes" if value else "no"}">{inner}</span>' if inner else ""
    elif ctype == "select":
        inner = f'<span class="badge">{esc(value)}</span>' if value not in (None, "") else ""
    elif isinstance(value, str):
        inner = ctx.inline(value)
    else:
        inner = esc(fmt_num(value)) if value is not None else ""
    href = cell.get("href") if isinstance(cell, dict) else None
    if ctype == "link" and href is None and isinstance(value, str):
        href = value
    if href is not None:
        safe = ctx.url(href)
        if safe is not None:
            rel = ' rel="noopener noreferrer"' if safe.startswith(("http:", "https:", "//")) else ""
            shown = inner if inner else esc(href)
            inner = f'<a href="{esc(safe)}"{rel}>{shown}</a>'
    return " ".join(classes), inner


def _compare_key(value: Any) -> tuple[int, Any]:
    num = as_number(value) if not isinstance(value, str) or as_number(value) is not None else None
    if num is not None:
        return (0, num)
    when = parse_when(value)
    if when is not None:
        return (1, when.timestamp())
    if value is None or value == "":
        return (3, "")
    return (2, str(value).lower())


def _matches(value: Any, op: str, target: Any) -> bool:
    if op == "empty":
        return value in (None, "")
    if op == "nonempty":
        return value not in (None, "")
    if op == "contains":
        return str(target).lower() in str(value if value is not None else "").lower()
    left, right = _compare_key(value), _compare_key(target)
    if op == "eq":
        return left == right or str(value) == str(target)
    if op == "ne":
        return not (left == right or str(value) == str(target))
    if left[0] != right[0]:
        return False
    if op == "lt":
        return left[1] < right[1]
    if op == "gt":
        return left[1] > right[1]
    return True


def apply_view(rows: list[dict], view: dict) -> list[tuple[str | None, list[dict]]]:
    """Rows of a view as (group label, rows) pairs; one unnamed group without grouping."""
    kept = rows
    for rule in view.get("filter") or []:
        if isinstance(rule, dict) and rule.get("col"):
            kept = [
                r
                for r in kept
                if _matches(
                    cell_value(r.get(rule["col"])), str(rule.get("op") or "eq"), rule.get("value")
                )
            ]
    for rule in reversed(
        [s for s in view.get("sort") or [] if isinstance(s, dict) and s.get("col")]
    ):
        desc = rule.get("dir") == "desc"
        present = [r for r in kept if cell_value(r.get(rule["col"])) not in (None, "")]
        missing = [r for r in kept if cell_value(r.get(rule["col"])) in (None, "")]
        present.sort(key=lambda r, c=rule["col"]: _compare_key(cell_value(r.get(c))), reverse=desc)
        kept = present + missing
    group = view.get("group")
    if not group:
        return [(None, kept)]
    groups: dict[str, list[dict]] = {}
    for row in kept:
        value = cell_value(row.get(group))
        groups.setdefault("—" if value in (None, "") else str(value), []).append(row)
    return list(groups.items())


def _table(
    ctx: Any, cols: list[dict], groups: list[tuple[str | None, list[dict]]], aggregates: dict
) -> str:
    head = "".join(
        f'<th class="{"num" if c.get("type") == "number" else ""}"'
        + (f' style="width:{as_number(c["width"]):.0f}px"' if as_number(c.get("width")) else "")
        + f">{esc(c.get('label') or c.get('key'))}</th>"
        for c in cols
    )
    body = ""
    all_rows: list[dict] = []
    for label, rows in groups:
        if label is not None:
            body += f'<tr class="group"><td colspan="{len(cols)}">{esc(label)} <span class="badge">{len(rows)}</span></td></tr>'
        for row in rows:
            all_rows.append(row)
            tds = ""
            for col in cols:
                cls, inner = _cell_html(ctx, col, row.get(col.get("key")))
                tds += f'<td class="{cls}">{inner}</td>' if cls else f"<td>{inner}</td>"
            body += f"<tr>{tds}</tr>"
    foot = ""
    if isinstance(aggregates, dict) and aggregates:
        cells = []
        for i, col in enumerate(cols):
            how = aggregates.get(col.get("key"))
            if how in ("sum", "avg", "count"):
                cells.append(
                    f'<td class="num" title="{how}">{esc(how)} {esc(aggregate(all_rows, col["key"], how))}</td>'
                )
            else:
                cells.append("<td></td>" if i else '<td class="muted"></td>')
        foot = f"<tfoot><tr>{''.join(cells)}</tr></tfoot>"
    return f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody>{foot}</table></div>'


def table_html(ctx: Any, p: dict) -> str:
    cols = [c for c in p.get("cols") or [] if isinstance(c, dict) and c.get("key")]
    rows = [_cells(r) for r in p.get("rows") or []]
    aggregates = p.get("aggregates") if isinstance(p.get("aggregates"), dict) else {}
    title = f'<div class="chart-title">{esc(p["title"])}</div>' if p.get("title") else ""
    caption = f'<div class="caption">{ctx.inline(p["caption"])}</div>' if p.get("caption") else ""
    views = [v for v in p.get("views") or [] if isinstance(v, dict)]
    if not views:
        return title + _table(ctx, cols, [(None, rows)], aggregates) + caption
    group_name = ctx.next_id("views")
    tabs, panes = "", ""
    for i, view in enumerate(views):
        vid = f"{group_name}-{i}"
        checked = " checked" if i == 0 else ""
        tabs += (
            f'<input type="radio" name="{group_name}" id="{vid}"{checked}>'
            f'<label for="{vid}">{esc(view.get("name") or f"View {i + 1}")}</label>'
        )
        panes += f'<div class="view">{_table(ctx, cols, apply_view(rows, view), aggregates)}</div>'
    ctx.views = max(ctx.views, len(views))
    return f'{title}<div class="views">{tabs}{panes}</div>{caption}'
