"""A person's adjustments to a diagram (``payload.overrides``), kept apart from its semantics.

``overrides`` maps a node id to ``{x?, y?, title?}``: ``x`` and ``y`` (both) put the
node's top-left corner there, ``title`` is the label a person typed over the one the
semantics (or the living source) give. They live beside the nodes, never in them, so
a refresh that brings new semantics keeps them, and taking one away brings the
source's own label or place back. An override of a node the semantics no longer have
is dropped (the node went, and a node of that id coming back later is another one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from layoutkit.limits import DIAGRAM_LABEL_CHARS


def clean(raw: Any, repairs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The usable overrides of ``raw``: each entry with a numeric ``x`` and ``y``
    pair and/or a label; every entry or part left out is a repair."""
    out: dict[str, dict[str, Any]] = {}
    if not isinstance(raw, dict):
        return out
    for nid, entry in raw.items():
        path = f"overrides.{nid}"
        if not isinstance(entry, dict):
            repairs.append(
                {"path": path, "action": "dropped", "message": "override is not an object"}
            )
            continue
        kept: dict[str, Any] = {}
        if "x" in entry or "y" in entry:
            x, y = entry.get("x"), entry.get("y")
            if _number(x) and _number(y):
                kept["x"], kept["y"] = x, y
            else:
                repairs.append(
                    {"path": path, "action": "ignored", "message": "override needs numeric x and y"}
                )
        if "title" in entry:
            title = entry["title"]
            if isinstance(title, str) and title.strip() and len(title) <= DIAGRAM_LABEL_CHARS:
                kept["title"] = title
            else:
                repairs.append(
                    {
                        "path": f"{path}.title",
                        "action": "ignored",
                        "message": f"a label override is text of 1 to {DIAGRAM_LABEL_CHARS} characters",
                    }
                )
        if kept:
            out[nid] = kept
    return out


def of_nodes(
    overrides: dict[str, dict[str, Any]], known: set[str], repairs: list[dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """The overrides of the ``known`` node ids; each other one is dropped as a repair."""
    for nid in overrides.keys() - known:
        repairs.append(
            {
                "path": f"overrides.{nid}",
                "action": "dropped",
                "message": "override of a node the diagram no longer has dropped",
            }
        )
    return {nid: e for nid, e in overrides.items() if nid in known}


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and abs(v) < 1e7


def positions(overrides: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The moves among cleaned overrides ({node id: {x, y}})."""
    return {
        nid: {"x": e["x"], "y": e["y"]}
        for nid, e in overrides.items()
        if isinstance(e, dict) and "x" in e
    }


def relabelled(payload: dict[str, Any], overrides: Any) -> dict[str, Any]:
    """``payload`` with each overridden node's title in place of its own (a shallow
    copy along the way to each changed node; ``payload`` itself is left alone)."""
    titles = {
        nid: e["title"]
        for nid, e in (overrides.items() if isinstance(overrides, dict) else ())
        if isinstance(e, dict) and isinstance(e.get("title"), str) and e["title"].strip()
    }
    if not titles:
        return payload

    def holder(h: dict[str, Any]) -> dict[str, Any]:
        out = dict(h)
        if isinstance(h.get("nodes"), list):
            out["nodes"] = [
                {**n, "title": titles[n["id"]]}
                if isinstance(n, dict) and n.get("id") in titles
                else n
                for n in h["nodes"]
            ]
        for key in ("groups", "lanes"):
            if isinstance(h.get(key), list):
                out[key] = [holder(g) if isinstance(g, dict) else g for g in h[key]]
        return out

    return holder(payload)
