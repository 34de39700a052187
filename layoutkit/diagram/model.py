"""Diagram payload -> a normalised model: node boxes sized from content, containers, edges, repairs."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Literal

import attrs

from layoutkit.diagram.labels import (
    ICON_W,
    MAX_TEXT,
    balanced_label,
    display_text,
    label,
    outer_size,
    picture_block,
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
    value: Any,
    allowed: tuple[str, ...],
    default: str,
    where: str,
    field: str,
    what: str,
    diags: list,
) -> str:
    """``value`` if ``allowed``, else ``default`` (with a warning at ``where``.``field``
    unless the value is missing)."""
    if value is None:
        return default
    if isinstance(value, str) and value in allowed:
        return value
    hits = did_you_mean(str(value), allowed)
    fix = f"use {hits[0]!r}" if hits else f"use one of {', '.join(allowed)}"
    msg = f"unknown {what} {value!r}, drawn as {default!r}"
    _warn(diags, f"{where}.{field}", f"unknown_{what}", msg, fix)
    return default


def size_node(node: dict[str, Any], shape: str) -> tuple[float, float]:
    """Width and height of a node box from its content, with the layout engine's font metrics.

    The title and body come from :func:`layoutkit.diagram.labels.balanced_label`,
    the same lines the drawing writes, and the shape's box is sized around them
    (:func:`layoutkit.diagram.labels.outer_size`).
    """
    kind = node.get("type") or "box"
    pic = picture_block(node) if kind == "box" else None
    if pic is not None:
        return pic.width, pic.height
    lab = balanced_label(node, shape) if kind == "box" else label(node)
    widths = [lab.width]
    height = lab.height
    rows = _KIND_ROWS.get(kind, _no_rows)(node) + _chip_rows(node) + _tag_rows(node)
    for row_w, row_h in rows:
        widths.append(row_w)
        height += row_h
    # A service node without an icon of its own is drawn with the service glyph
    # (render._face_diagram._heading): its title needs the glyph's room beside it.
    if not lab.icon and (node.get("image") or kind == "service"):
        widths[0] += ICON_W
    w, h = outer_size(shape, max(widths), height)
    return _room_for_ports(node, w, h)


# A row under a node's label: (width, height) it adds to the box.
_Row = tuple[float, float]


def _no_rows(node: dict[str, Any]) -> list[_Row]:
    return []


def _entity_rows(node: dict[str, Any]) -> list[_Row]:
    rows = []
    for col in node.get("columns") or []:
        if not isinstance(col, dict):
            continue
        flags = " ".join(f for f in ("pk", "fk", "unique") if col.get(f))
        row = f"{col.get('name', '')}  {col.get('type', '')}  {flags}".strip()
        rows.append((text_width(row, BODY_SIZE, "mono"), ROW))
    return rows


def _endpoint_rows(node: dict[str, Any]) -> list[_Row]:
    rows = []
    line = f"{node.get('method', '')} {node.get('path', '')}".strip()
    if line:
        rows.append((text_width(line, 13, "mono"), line_height(13)))
    codes = node.get("codes") or []
    if codes:
        rows.append((text_width("  ".join(str(c) for c in codes), BODY_SIZE, "mono"), ROW))
    return rows


def _service_rows(node: dict[str, Any]) -> list[_Row]:
    rows = []
    if node.get("replicas"):
        rows.append((text_width(f"× {node['replicas']} replicas", BODY_SIZE), ROW))
    for mp in node.get("mappings") or []:
        if isinstance(mp, dict):
            text = f"{mp.get('host')}:{mp.get('cont')}/{mp.get('proto', 'tcp')}"
            rows.append((text_width(text, BODY_SIZE, "mono"), ROW))
    return rows


_KIND_ROWS = {"entity": _entity_rows, "endpoint": _endpoint_rows, "service": _service_rows}


def _chip_rows(node: dict[str, Any]) -> list[_Row]:
    chips = [c for c in node.get("chips") or [] if isinstance(c, dict)]
    if not chips:
        return []
    row = sum(text_width(str(c.get("text", "")), 11) + 16 for c in chips) + 6 * (len(chips) - 1)
    return [(min(row, MAX_TEXT + 60), 24 * max(1, int(row // (MAX_TEXT + 60)) + 1))]


def _tag_rows(node: dict[str, Any]) -> list[_Row]:
    if not node.get("tag"):
        return []
    return [(text_width(str(node["tag"]), 11) + 12, 18)]


def _room_for_ports(node: dict[str, Any], w: float, h: float) -> tuple[float, float]:
    """Grow the box so every side has room for its ports."""
    ports = [p for p in node.get("ports") or [] if isinstance(p, dict)]
    if not ports:
        return w, h
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

    Phases, each its own function: read the direction, read the nodes and groups
    of every container (sizing nodes and resolving their ports), give loose nodes
    of a laned diagram a lane, then read and resolve the edges.
    """
    diags: list[dict[str, Any]] = [
        d
        for d in payload.get("diagnostics") or []
        if isinstance(d, dict) and d.get("phase") == "import"
    ]
    repairs: list[dict[str, Any]] = []
    direction = _read_direction(payload, repairs)
    reader = _Reader(direction, node_sizes, repairs, diags)
    reader.read_members(payload, (), "")
    lanes = _read_lanes(payload, reader)
    edges = _read_edges(payload, reader)
    return Model(direction, reader.nodes, reader.groups, lanes, edges, repairs, diags)


def _repair(path: str, action: str, message: str) -> dict[str, Any]:
    return {"path": path, "action": action, "message": message}


def _read_direction(payload: dict[str, Any], repairs: list[dict[str, Any]]) -> str:
    direction = payload.get("dir") or "TD"
    if direction in ("TD", "LR"):
        return direction
    repairs.append(_repair("dir", "defaulted", f"dir {direction!r} read as TD"))
    return "TD"


@attrs.define
class _Reader:
    """What reading the containers accumulates: nodes and groups by id, repairs, diagnostics."""

    direction: str
    node_sizes: Mapping[str, tuple[float, float]] | None
    repairs: list[dict[str, Any]]
    diags: list[dict[str, Any]]
    nodes: dict[str, Node] = attrs.field(factory=dict)
    groups: dict[str, dict[str, Any]] = attrs.field(factory=dict)

    def read_members(self, holder: dict[str, Any], path: tuple, where: str) -> None:
        """The nodes, then the groups, of one container (``where`` prefixes their paths)."""
        for k, n in enumerate(holder.get("nodes") or []):
            self.add_node(n, path, f"{where}nodes[{k}]")
        for k, g in enumerate(holder.get("groups") or []):
            self.add_group(g, path, f"{where}groups[{k}]")

    def add_node(self, raw: Any, path: tuple, where: str) -> None:
        if not isinstance(raw, dict):
            self.repairs.append(_repair(where, "dropped", "node is not an object"))
            return
        nid = raw.get("id")
        if not isinstance(nid, str) or not nid:
            nid = f"n{len(self.nodes) + 1}"
            self.repairs.append(_repair(where, "id_assigned", f"node without id named {nid!r}"))
        if nid in self.nodes:
            self.repairs.append(_repair(where, "dropped", f"duplicate node id {nid!r}"))
            return
        if raw.get("type") is not None and raw.get("type") not in NODE_TYPES:
            self.repairs.append(
                _repair(f"{where}.type", "defaulted", f"type {raw.get('type')!r} read as box")
            )
        shape = _open_vocab(
            raw.get("shape"), NODE_SHAPES, NODE_SHAPE_DEFAULT, where, "shape", "shape", self.diags
        )
        _open_vocab(
            raw.get("tone"), DIAGRAM_TONES, DIAGRAM_TONE_DEFAULT, where, "tone", "tone", self.diags
        )
        w, h = self._box(nid, raw, shape)
        ports = _node_ports(raw)
        self.nodes[nid] = Node(nid, w, h, shape, ports, path, len(self.nodes))

    def _box(self, nid: str, raw: dict[str, Any], shape: str) -> tuple[float, float]:
        fixed = self.node_sizes.get(nid) if self.node_sizes else None
        if fixed:
            return float(fixed[0]), float(fixed[1])
        w, h = size_node(raw, shape)
        if shape == "fork" and self.direction == "LR":
            # A fork or join bar lies across the flow.
            return h, w
        return w, h

    def add_group(self, raw: Any, path: tuple, where: str) -> None:
        if not isinstance(raw, dict):
            self.repairs.append(_repair(where, "dropped", "group is not an object"))
            return
        gid = raw.get("id")
        if not isinstance(gid, str) or not gid or gid in self.groups or gid in self.nodes:
            gid = f"group{len(self.groups) + 1}"
        _open_vocab(
            raw.get("tone"), DIAGRAM_TONES, DIAGRAM_TONE_DEFAULT, where, "tone", "tone", self.diags
        )
        gpath = (*path, ("group", gid))
        # The title as drawn (markdown markers dropped), so its measure matches.
        title = display_text(str(raw.get("title") or ""))[0]
        self.groups[gid] = {"title": title, "path": gpath}
        self.read_members(raw, gpath, f"{where}.")


_SIDES = ("top", "bottom", "left", "right")


def _node_ports(raw: dict[str, Any]) -> dict[str, tuple[str, float]]:
    """Port id -> (side, fraction along the side): each side's ports spread evenly, in
    their ``order`` (then as written); an unknown side reads as bottom."""
    if not raw.get("ports"):
        return {}
    by_side: dict[str, list[tuple[float, int, str]]] = {}
    plist = [p for p in raw["ports"] if isinstance(p, dict) and p.get("id")]
    for k, p in enumerate(plist):
        side = p.get("side") if p.get("side") in _SIDES else "bottom"
        order = p.get("order") if isinstance(p.get("order"), (int, float)) else 1e9
        by_side.setdefault(side, []).append((order, k, str(p["id"])))
    ports: dict[str, tuple[str, float]] = {}
    for side, entries in by_side.items():
        entries.sort(key=lambda e: (e[0], e[1]))
        for j, (_, _, pid) in enumerate(entries):
            ports[pid] = (side, (j + 1) / (len(entries) + 1))
    return ports


def _read_lanes(payload: dict[str, Any], reader: _Reader) -> list[dict[str, Any]]:
    lanes: list[dict[str, Any]] = []
    for li, lane in enumerate(payload.get("lanes") or []):
        if not isinstance(lane, dict):
            reader.repairs.append(_repair(f"lanes[{li}]", "dropped", "lane is not an object"))
            continue
        lpath = (("lane", len(lanes)),)
        lanes.append(
            {"label": str(lane.get("label") or ""), "note": lane.get("note"), "path": lpath}
        )
        reader.read_members(lane, lpath, f"lanes[{li}].")
    if lanes:
        _lane_for_loose(reader, lanes)
    return lanes


def _lane_for_loose(reader: _Reader, lanes: list[dict[str, Any]]) -> None:
    """Loose nodes of a laned diagram get a lane of their own after the others."""
    loose = [n for n in reader.nodes.values() if not n.path or n.path[0][0] != "lane"]
    loose_groups = [g for g in reader.groups.values() if g["path"][0][0] != "lane"]
    if not (loose or loose_groups):
        return
    extra = (("lane", len(lanes)),)
    lanes.append({"label": "", "note": None, "path": extra})
    for n in loose:
        n.path = extra + n.path
    for g in loose_groups:
        g["path"] = extra + g["path"]
    reader.repairs.append(
        _repair("nodes", "lane_added", "nodes outside every lane placed in an unlabelled lane")
    )


def _read_edges(payload: dict[str, Any], reader: _Reader) -> list[dict[str, Any]]:
    edges = []
    for k, e in enumerate(payload.get("edges") or []):
        where = f"edges[{k}]"
        if not isinstance(e, dict):
            reader.repairs.append(_repair(where, "dropped", "edge is not an object"))
            continue
        src = _resolve_end(e, "from", where, reader)
        dst = _resolve_end(e, "to", where, reader) if src is not None else None
        if src is None or dst is None:
            continue
        if reader.groups and _joins_group_and_member(src[0], dst[0], reader):
            reader.repairs.append(
                _repair(where, "dropped", "edge between a group and its own member dropped")
            )
            continue
        style = _open_vocab(
            e.get("style"),
            EDGE_STYLES,
            EDGE_STYLE_DEFAULT,
            where,
            "style",
            "edge_style",
            reader.diags,
        )
        text = e.get("label")
        edges.append(
            {
                "index": k,
                "from": src[0],
                "to": dst[0],
                "from_port": src[1],
                "to_port": dst[1],
                "label": str(text) if text not in (None, "") else None,
                "style": style,
                "ref_from": e.get("from"),
                "ref_to": e.get("to"),
            }
        )
    return edges


def _resolve_end(
    e: dict[str, Any], side: str, where: str, reader: _Reader
) -> tuple[str, str | None] | None:
    """The node or group an edge end names and the port if any; None, with a repair, if
    it names none.

    ``node.port`` names a port; an unknown port is dropped and the edge ends on the node.
    """
    nodes, groups = reader.nodes, reader.groups
    ref = e.get(side)
    if not isinstance(ref, str):
        ref = ""
    elif ref in nodes or ref in groups:
        return ref, None
    target, port = ref, None
    if ref not in nodes and ref not in groups and "." in ref:
        target, _, port = ref.partition(".")
    if target not in nodes and target not in groups:
        hits = did_you_mean(ref, list(nodes) + list(groups))
        msg = f"edge {side} {ref!r} names no node or group; edge dropped"
        rep = _repair(f"{where}.{side}", "dropped", msg)
        if hits:
            rep["didYouMean"] = hits
        reader.repairs.append(rep)
        return None
    if port is not None and (target not in nodes or port not in nodes[target].ports):
        reader.repairs.append(
            _repair(
                f"{where}.{side}",
                "port_ignored",
                f"no port {port!r} on {target!r}; edge attached to the node",
            )
        )
        port = None
    return target, port


def _joins_group_and_member(a: str, b: str, reader: _Reader) -> bool:
    nodes, groups = reader.nodes, reader.groups
    return bool(
        (a in groups and b in nodes and groups[a]["path"] and ("group", a) in nodes[b].path)
        or (b in groups and a in nodes and ("group", b) in nodes[a].path)
    )
