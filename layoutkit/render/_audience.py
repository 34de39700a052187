"""Audience visibility of elements: who may see what, and the export filter.

An element with no ``audience`` is visible to everyone. A container (doc,
section, columns, compare, gallery, table rows) shows to an audience only when
at least one of its children does.
"""

from __future__ import annotations

from typing import Any

AUDIENCES: frozenset[str] = frozenset({"public", "technical", "internal"})


def own_audience(node: Any) -> frozenset[str]:
    tags = node.get("audience") if isinstance(node, dict) else None
    if isinstance(tags, list) and tags:
        return frozenset(t for t in tags if t in AUDIENCES) or AUDIENCES
    return AUDIENCES


def element_parts(element: dict) -> tuple[str, dict]:
    """(kind, payload) of an element envelope; a bare payload is read as a doc."""
    if isinstance(element.get("payload"), dict) and isinstance(element.get("kind"), str):
        return element["kind"], element["payload"]
    return "doc", element


def _children(kind: str, payload: dict) -> list[list[dict]] | None:
    """Child element lists of a container kind, or None for leaf kinds."""
    if kind in ("doc", "section"):
        return [_elements(payload.get("elements"))]
    if kind == "columns":
        return [
            _elements(col.get("elements"))
            for col in payload.get("cols") or []
            if isinstance(col, dict)
        ]
    if kind == "compare":
        return [
            _elements(side.get("elements"))
            for side in (payload.get("a"), payload.get("b"))
            if isinstance(side, dict)
        ]
    return None


def _elements(value: Any) -> list[dict]:
    return [e for e in value or [] if isinstance(e, dict)]


def visible_to(element: dict) -> frozenset[str]:
    """Audiences that will see ``element`` once empty containers vanish."""
    kind, payload = element_parts(element)
    own = own_audience(element)
    groups = _children(kind, payload)
    if groups is not None:
        seen: frozenset[str] = frozenset()
        for group in groups:
            for child in group:
                seen |= visible_to(child)
        # An empty section still renders its heading (the validator warns).
        if kind == "section" and not any(groups):
            return own
        return own & seen
    if kind == "gallery":
        items = [i for i in payload.get("items") or [] if isinstance(i, dict)]
        return own & frozenset().union(*(own_audience(i) for i in items)) if items else own
    if kind == "table":
        rows = [r for r in payload.get("rows") or [] if isinstance(r, dict)]
        if rows:
            return own & frozenset().union(
                *(own_audience(r) if "cells" in r else AUDIENCES for r in rows)
            )
    return own


def filter_element(element: dict, audience: str) -> dict | None:
    """A copy of ``element`` holding only what ``audience`` may see; None when nothing is left."""
    if audience not in visible_to(element):
        return None
    kind, payload = element_parts(element)
    payload = dict(payload)
    if kind in ("doc", "section"):
        payload["elements"] = _kept(payload.get("elements"), audience)
    elif kind == "columns":
        cols = []
        for col in payload.get("cols") or []:
            kept = _kept(col.get("elements"), audience) if isinstance(col, dict) else []
            if kept:
                cols.append({**col, "elements": kept})
        payload["cols"] = cols
    elif kind == "compare":
        for side in ("a", "b"):
            if isinstance(payload.get(side), dict):
                payload[side] = {
                    **payload[side],
                    "elements": _kept(payload[side].get("elements"), audience),
                }
    elif kind == "gallery":
        payload["items"] = [
            i
            for i in payload.get("items") or []
            if isinstance(i, dict) and audience in own_audience(i)
        ]
    elif kind == "table" and payload.get("rows"):
        payload["rows"] = [
            r
            for r in payload["rows"]
            if not (isinstance(r, dict) and "cells" in r) or audience in own_audience(r)
        ]
    if element.get("kind") == kind and isinstance(element.get("payload"), dict):
        return {**element, "payload": payload}
    return payload


def _kept(elements: Any, audience: str) -> list[dict]:
    out = []
    for child in _elements(elements):
        kept = filter_element(child, audience)
        if kept is not None:
            out.append(kept)
    return out


def filter_doc(doc: dict, audience: str) -> dict | None:
    """Export filter: prefer the contract's own ``filter_audience`` when it exists."""
    if not (isinstance(doc.get("payload"), dict) and isinstance(doc.get("kind"), str)):
        doc = {"kind": "doc", "payload": doc}
    try:
        from layoutkit.elements import filter_audience
    except ImportError:  # pragma: no cover - the contract package predates this module
        return filter_element(doc, audience)
    return filter_audience(doc, audience)
