"""Diagram payload -> a normalised model: node boxes sized from content, containers, edges, repairs."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Literal

import attrs

from layoutkit.diagram.labels import (
    ICON_W,
    MAX_TEXT,
    balanced_label,
    label,
    outer_size,
)
from layoutkit.elements.vocab import (
    DIAGRAM_TONE_DEFAULT,
    DIAGRAM_TONES,
    EDGE_STYLE_DEFAULT,
    EDGE_STYLES,
    NODE_SHAPE_DEFAULT,
    NODE_SHAPES,
    NODE_TYPES,
)
from layoutkit.errors import did_you_mean
from layoutkit.layout.text import line_height, text_width

TITLE_SIZE = 14.0
BODY_SIZE = 12.0
ROW = 20.0


@attrs.define
class Node:
    id: str
    w: float
    h: float
    shape: str
    ports: dict[str, tuple[str, float]]  # port id -> (side, fraction along the side)
    path: tuple[tuple[str, Any], ...]
    order: int


@attrs.define
class Model:
    dir: str
    nodes: dict[str, Node]
    groups: dict[str, dict[str, Any]]  # id -> {"title", "path", "parent"}
    lanes: list[dict[str, Any]]
    edges: list[dict[str, Any]]  # {"index", "from", "to", "from_port", "to_port", "label", "style"}
    repairs: list[dict[str, Any]]
    diagnostics: list[dict[str, Any]]


Holder = Literal["diagram", "group", "lane"]


def containers(payload: dict[str, Any]) -> Iterator[tuple[Holder, dict[str, Any]]]:
    """Everything in a diagram payload that holds nodes, in document order.

    The payload itself, its groups depth first (a group before the groups nested
    in it), then each lane followed by its groups depth first. Entries that are
    not objects are skipped: this is a walk over what an author wrote, before or
    after normalization.
    """

    def groups(raw: Any) -> Iterator[tuple[Holder, dict[str, Any]]]:
        for group in raw or []:
            if isinstance(group, dict):
                yield "group", group
                yield from groups(group.get("groups"))

    yield "diagram", payload
    yield from groups(payload.get("groups"))
    for lane in payload.get("lanes") or []:
        if isinstance(lane, dict):
            yield "lane", lane
            yield from groups(lane.get("groups"))


def _warn(diags: list[dict[str, Any]], path: str, code: str, message: str, fix: str | None) -> None:
    entry: dict[str, Any] = {"level": "warning", "code": code, "path": path, "message": message}
    if fix:
        entry["fix"] = fix
    diags.append(entry)


def _open_vocab(
    value: Any, allowed: tuple[str, ...], default: str, path: str, what: str, diags: list
) -> str:
    if value is None:
        return default
    if isinstance(value, str) and value in allowed:
        return value
    hits = did_you_mean(str(value), allowed)
    fix = f"use {hits[0]!r}" if hits else f"use one of {', '.join(allowed)}"
    _warn(diags, path, f"unknown_{what}", f"unknown {what} {value!r}, drawn as {default!r}", fix)
    return default


def size_node(node: dict[str, Any], shape: str) -> tuple[float, float]:
    """Width and height of a node box from its content, with the layout engine's font metrics.

    The title and body come from :func:`layoutkit.diagram.labels.balanced_label`,
    the same lines the drawing writes, and the shape's box is sized around them
    (:func:`layoutkit.diagram.labels.outer_size`).
    """
    kind = node.get("type") or "box"
    lab = balanced_label(node, shape) if kind == "box" else label(node)
    widths = [lab.width]
    height = lab.height
    if kind == "entity":
        for col in node.get("columns") or []:
            if not isinstance(col, dict):
                continue
            flags = " ".join(f for f in ("pk", "fk", "unique") if col.get(f))
            row = f"{col.get('name', '')}  {col.get('type', '')}  {flags}".strip()
            widths.append(text_width(row, BODY_SIZE, "mono"))
            height += ROW
    elif kind == "endpoint":
        line = f"{node.get('method', '')} {node.get('path', '')}".strip()
        if line:
            widths.append(text_width(line, 13, "mono"))
            height += line_height(13)
        codes = node.get("codes") or []
        if codes:
            widths.append(text_width("  ".join(str(c) for c in codes), BODY_SIZE, "mono"))
            height += ROW
    elif kind == "service":
        if node.get("replicas"):
            widths.append(text_width(f"× {node['replicas']} replicas", BODY_SIZE))
            height += ROW
        for mp in node.get("mappings") or []:
            if isinstance(mp, dict):
                widths.append(
                    text_width(
                        f"{mp.get('host')}:{mp.get('cont')}/{mp.get('proto', 'tcp')}",
                        BODY_SIZE,
                        "mono",
                    )
                )
                height += ROW
    chips = [c for c in node.get("chips") or [] if isinstance(c, dict)]
    if chips:
        row = sum(text_width(str(c.get("text", "")), 11) + 16 for c in chips) + 6 * (len(chips) - 1)
        widths.append(min(row, MAX_TEXT + 60))
        height += 24 * max(1, int(row // (MAX_TEXT + 60)) + 1)
    if node.get("tag"):
        widths.append(text_width(str(node["tag"]), 11) + 12)
        height += 18
    if node.get("image") and not lab.icon:
        widths[0] += ICON_W
    w, h = outer_size(shape, max(widths), height)
    ports = [p for p in node.get("ports") or [] if isinstance(p, dict)]
    if ports:
        per_side: dict[str, int] = {}
        for p in ports:
            per_side[p.get("side") or "bottom"] = per_side.get(p.get("side") or "bottom", 0) + 1
        w = max(w, 28.0 * (max(per_side.get("top", 0), per_side.get("bottom", 0)) + 1))
        h = max(h, 22.0 * (max(per_side.get("left", 0), per_side.get("right", 0)) + 1))
    return w, h


def build_model(
    payload: dict[str, Any], node_sizes: Mapping[str, tuple[float, float]] | None = None
) -> Model:
    """Collect nodes from loose, group and lane members; resolve edges; note every repair.

    ``node_sizes`` gives fixed (width, height) boxes by node id; other nodes are
    sized from their content.
    """
    repairs: list[dict[str, Any]] = []
    diags: list[dict[str, Any]] = [
        d
        for d in payload.get("diagnostics") or []
        if isinstance(d, dict) and d.get("phase") == "import"
    ]
    direction = payload.get("dir") or "TD"
    if direction not in ("TD", "LR"):
        repairs.append(
            {"path": "dir", "action": "defaulted", "message": f"dir {direction!r} read as TD"}
        )
        direction = "TD"
    nodes: dict[str, Node] = {}
    groups: dict[str, dict[str, Any]] = {}
    counter = [0]

    def add_node(raw: Any, path: tuple, where: str) -> None:
        if not isinstance(raw, dict):
            repairs.append({"path": where, "action": "dropped", "message": "node is not an object"})
            return
        nid = raw.get("id")
        if not isinstance(nid, str) or not nid:
            nid = f"n{counter[0] + 1}"
            repairs.append(
                {
                    "path": where,
                    "action": "id_assigned",
                    "message": f"node without id named {nid!r}",
                }
            )
        if nid in nodes:
            repairs.append(
                {"path": where, "action": "dropped", "message": f"duplicate node id {nid!r}"}
            )
            return
        if raw.get("type") is not None and raw.get("type") not in NODE_TYPES:
            repairs.append(
                {
                    "path": f"{where}.type",
                    "action": "defaulted",
                    "message": f"type {raw.get('type')!r} read as box",
                }
            )
        shape = _open_vocab(
            raw.get("shape"), NODE_SHAPES, NODE_SHAPE_DEFAULT, f"{where}.shape", "shape", diags
        )
        _open_vocab(
            raw.get("tone"), DIAGRAM_TONES, DIAGRAM_TONE_DEFAULT, f"{where}.tone", "tone", diags
        )
        fixed = node_sizes.get(nid) if node_sizes else None
        w, h = (float(fixed[0]), float(fixed[1])) if fixed else size_node(raw, shape)
        if shape == "fork" and direction == "LR" and not fixed:
            # A fork or join bar lies across the flow.
            w, h = h, w
        ports: dict[str, tuple[str, float]] = {}
        plist = [p for p in raw.get("ports") or [] if isinstance(p, dict) and p.get("id")]
        by_side: dict[str, list[dict[str, Any]]] = {}
        for k, p in enumerate(plist):
            side = (
                p.get("side") if p.get("side") in ("top", "bottom", "left", "right") else "bottom"
            )
            by_side.setdefault(side, []).append({**p, "_k": k})
        for side, plist_side in by_side.items():
            plist_side.sort(
                key=lambda p: (
                    p.get("order") if isinstance(p.get("order"), (int, float)) else 1e9,
                    p["_k"],
                )
            )
            for j, p in enumerate(plist_side):
                ports[str(p["id"])] = (side, (j + 1) / (len(plist_side) + 1))
        nodes[nid] = Node(nid, w, h, shape, ports, path, counter[0])
        counter[0] += 1

    def add_group(raw: Any, path: tuple, where: str) -> None:
        if not isinstance(raw, dict):
            repairs.append(
                {"path": where, "action": "dropped", "message": "group is not an object"}
            )
            return
        gid = raw.get("id")
        if not isinstance(gid, str) or not gid or gid in groups or gid in nodes:
            gid = f"group{len(groups) + 1}"
        _open_vocab(
            raw.get("tone"), DIAGRAM_TONES, DIAGRAM_TONE_DEFAULT, f"{where}.tone", "tone", diags
        )
        gpath = (*path, ("group", gid))
        groups[gid] = {"title": str(raw.get("title") or ""), "path": gpath}
        for k, n in enumerate(raw.get("nodes") or []):
            add_node(n, gpath, f"{where}.nodes[{k}]")
        for k, g in enumerate(raw.get("groups") or []):
            add_group(g, gpath, f"{where}.groups[{k}]")

    for k, n in enumerate(payload.get("nodes") or []):
        add_node(n, (), f"nodes[{k}]")
    for k, g in enumerate(payload.get("groups") or []):
        add_group(g, (), f"groups[{k}]")
    lanes = []
    for li, lane in enumerate(payload.get("lanes") or []):
        if not isinstance(lane, dict):
            repairs.append(
                {"path": f"lanes[{li}]", "action": "dropped", "message": "lane is not an object"}
            )
            continue
        lpath = (("lane", len(lanes)),)
        lanes.append(
            {"label": str(lane.get("label") or ""), "note": lane.get("note"), "path": lpath}
        )
        for k, n in enumerate(lane.get("nodes") or []):
            add_node(n, lpath, f"lanes[{li}].nodes[{k}]")
        for k, g in enumerate(lane.get("groups") or []):
            add_group(g, lpath, f"lanes[{li}].groups[{k}]")
    if lanes:
        # Loose nodes of a laned diagram get a lane of their own after the others.
        loose = [n for n in nodes.values() if not n.path or n.path[0][0] != "lane"]
        loose_groups = [g for g in groups.values() if g["path"][0][0] != "lane"]
        if loose or loose_groups:
            extra = (("lane", len(lanes)),)
            lanes.append({"label": "", "note": None, "path": extra})
            for n in loose:
                n.path = extra + n.path
            for g in loose_groups:
                g["path"] = extra + g["path"]
            repairs.append(
                {
                    "path": "nodes",
                    "action": "lane_added",
                    "message": "nodes outside every lane placed in an unlabelled lane",
                }
            )
    edges = []
    for k, e in enumerate(payload.get("edges") or []):
        where = f"edges[{k}]"
        if not isinstance(e, dict):
            repairs.append({"path": where, "action": "dropped", "message": "edge is not an object"})
            continue
        ends = []
        for side in ("from", "to"):
            ref = e.get(side)
            ref = ref if isinstance(ref, str) else ""
            target, port = ref, None
            if ref not in nodes and ref not in groups and "." in ref:
                target, _, port = ref.partition(".")
            if target not in nodes and target not in groups:
                ends = None
                hits = did_you_mean(ref, list(nodes) + list(groups))
                msg = f"edge {side} {ref!r} names no node or group; edge dropped"
                rep = {"path": f"{where}.{side}", "action": "dropped", "message": msg}
                if hits:
                    rep["didYouMean"] = hits
                repairs.append(rep)
                break
            if port is not None and (target not in nodes or port not in nodes[target].ports):
                repairs.append(
                    {
                        "path": f"{where}.{side}",
                        "action": "port_ignored",
                        "message": f"no port {port!r} on {target!r}; edge attached to the node",
                    }
                )
                port = None
            ends.append((target, port))
        if ends is None:
            continue
        (a, pa), (b, pb) = ends
        if (a in groups and b in nodes and groups[a]["path"] and ("group", a) in nodes[b].path) or (
            b in groups and a in nodes and ("group", b) in nodes[a].path
        ):
            repairs.append(
                {
                    "path": where,
                    "action": "dropped",
                    "message": "edge between a group and its own member dropped",
                }
            )
            continue
        style = _open_vocab(
            e.get("style"), EDGE_STYLES, EDGE_STYLE_DEFAULT, f"{where}.style", "edge_style", diags
        )
        label = e.get("label")
        edges.append(
            {
                "index": k,
                "from": a,
                "to": b,
                "from_port": pa,
                "to_port": pb,
                "label": str(label) if label not in (None, "") else None,
                "style": style,
                "ref_from": e.get("from"),
                "ref_to": e.get("to"),
            }
        )
    return Model(direction, nodes, groups, lanes, edges, repairs, diags)
