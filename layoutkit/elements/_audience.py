"""What one audience sees of an element tree: the export filter and the viewer switch.

:func:`filter_audience` is the rule; :func:`visible_to` asks it, so the viewer's
audience switch hides exactly what an export for that audience drops.
"""

from __future__ import annotations

from typing import Any

from layoutkit.elements.vocab import AUDIENCES

_MAX_DEPTH = 64


def _visible(item: dict[Any, Any], audience: str) -> bool:
    tags = item.get("audience")
    return type(tags) is not list or audience in tags


def filter_audience(element: Any, audience: str) -> dict[str, Any] | None:
    """The part of a normalized element (usually a doc) that readers of ``audience`` see.

    Untagged content is visible to everyone. A container whose children are all
    filtered out vanishes, as do a gallery without visible items and a table
    without a visible row (a table whose rows sit behind a dataRef is kept).
    Returns None when nothing remains. The input is not modified; the result
    shares unchanged parts with it.
    """
    kept = _filter(element, audience, 0, splice=False)
    return kept[0] if kept else None


def visible_to(element: Any) -> frozenset[str]:
    """The audiences for which :func:`filter_audience` keeps ``element``."""
    return frozenset(a for a in AUDIENCES if filter_audience(element, a) is not None)


def _filter_list(items: Any, audience: str, depth: int) -> list[Any]:
    out: list[Any] = []
    if type(items) is not list:
        return out
    for el in items:
        out.extend(_filter(el, audience, depth + 1, splice=True))
    return out


def _filter(el: Any, audience: str, depth: int, *, splice: bool) -> list[Any]:
    if type(el) is not dict or not _visible(el, audience):
        return []
    payload = el.get("payload")
    if type(payload) is not dict or depth > _MAX_DEPTH:
        return [el]
    kind = el.get("kind")
    # an unchecked kind may be unhashable: it is simply not a container
    by_kind = _BY_KIND.get(kind) if type(kind) is str else None
    return [el] if by_kind is None else by_kind(el, payload, audience, depth, splice)


def _container(
    el: dict[str, Any], payload: dict[str, Any], audience: str, depth: int, splice: bool
) -> list[Any]:
    children = payload.get("elements")
    if type(children) is not list or not children:
        return [el]
    kept = _filter_list(children, audience, depth)
    return [{**el, "payload": {**payload, "elements": kept}}] if kept else []


def _compare(
    el: dict[str, Any], payload: dict[str, Any], audience: str, depth: int, splice: bool
) -> list[Any]:
    sides = {}
    had = False
    for name in ("a", "b"):
        side = payload.get(name)
        if type(side) is dict and type(side.get("elements")) is list:
            had = had or bool(side["elements"])
            sides[name] = {**side, "elements": _filter_list(side["elements"], audience, depth)}
    # Sides that had content and lost all of it leave nothing to compare.
    if had and not any(s["elements"] for s in sides.values()):
        return []
    return [{**el, "payload": {**payload, **sides}}]


def _gallery(
    el: dict[str, Any], payload: dict[str, Any], audience: str, depth: int, splice: bool
) -> list[Any]:
    items = payload.get("items")
    if type(items) is not list:
        return [el]
    seen = [i for i in items if type(i) is dict and _visible(i, audience)]
    return [{**el, "payload": {**payload, "items": seen}}] if seen else []


def _table(
    el: dict[str, Any], payload: dict[str, Any], audience: str, depth: int, splice: bool
) -> list[Any]:
    rows = payload.get("rows")
    if type(rows) is not list:
        return [el] if "dataRef" in el else []
    seen = [r for r in rows if type(r) is dict and _visible_row(r, audience)]
    return [{**el, "payload": {**payload, "rows": seen}}] if seen else []


def _visible_row(row: dict[Any, Any], audience: str) -> bool:
    if type(row.get("cells")) is dict and "audience" in row:
        return _visible(row, audience)
    return True


def _columns(
    el: dict[str, Any], payload: dict[str, Any], audience: str, depth: int, splice: bool
) -> list[Any]:
    cols = payload.get("cols")
    if type(cols) is not list:
        return [el]
    kept = []
    for c in cols:
        if type(c) is not dict:
            continue
        children = _filter_list(c.get("elements"), audience, depth)
        if children:
            kept.append({**c, "elements": children})
    if not kept:
        return []
    if len(kept) == len(cols):
        return [{**el, "payload": {**payload, "cols": kept}}]
    if len(kept) == 1 and splice:
        # One surviving column reads as plain content in the parent.
        return kept[0]["elements"]
    new_payload = {**payload, "cols": kept}
    if len(kept) == 2:
        new_payload["ratio"] = "1:1"
    else:
        new_payload.pop("ratio", None)
    return [{**el, "payload": new_payload}]


_BY_KIND = {
    "doc": _container,
    "section": _container,
    "columns": _columns,
    "compare": _compare,
    "gallery": _gallery,
    "table": _table,
}
