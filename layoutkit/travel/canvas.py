"""JSON Canvas 1.0 (jsoncanvas.org): a board as a canvas, and a canvas as cards to place."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from layoutkit.layout.model import FRAME_KINDS
from layoutkit.travel import _kinds as k
from layoutkit.travel._model import (
    OWN_KEY,
    Drawn,
    DrawnCard,
    DrawnWire,
    Exported,
    FileOut,
    TravelError,
    card_box,
)

NODE_TYPES = ("text", "file", "link", "group")
SIDES = ("top", "right", "bottom", "left")
ENDS = ("none", "arrow")
ENDS_KEYS = ("fromEnd", "toEnd")
#: Attributes the mapping reads or writes itself; any other a node carries is kept.
_NODE_OWN = frozenset({"id", "type", "x", "y", "width", "height", "text", "file", "url", "label"})
_EDGE_OWN = frozenset(
    {"id", "fromNode", "toNode", "fromSide", "toSide", "fromEnd", "toEnd", "label"}
)
#: Folder of a canvas export that holds the blobs its file nodes name.
FILES_DIR = "files"


def to_canvas(
    cards: Sequence[Mapping[str, Any]],
    edges: Sequence[Mapping[str, Any]],
    foreign: Mapping[str, Mapping[str, Any]] | None = None,
) -> Exported:
    """The canvas of ``cards`` (as card views: id, kind, payload, x, y, w, h) and
    ``edges`` (edge views between them). ``foreign`` holds attributes an import kept,
    by ``card:<id>`` / ``edge:<id>``, written back under the mapping's own."""
    kept = foreign or {}
    nodes: list[dict[str, Any]] = []
    files: list[FileOut] = []
    names: set[str] = set()
    # Groups first: a canvas draws later nodes on top, and a frame lies under its cards.
    ordered = sorted(cards, key=lambda c: (c["kind"] not in FRAME_KINDS, c["y"], c["x"]))
    for card in ordered:
        kind, payload = card["kind"], card["payload"]
        node: dict[str, Any] = dict(kept.get(f"card:{card['id']}", {}))
        node.update(id=f"card-{card['id']}")
        blob = k.blob_of(kind, payload)
        if kind in FRAME_KINDS:
            node["type"] = "group"
            label = k.frame_label(payload)
            if label is not None:
                node["label"] = label
        elif kind == "link" and k.is_http(payload.get("url")):
            node.update(type="link", url=payload["url"])
        elif blob is not None:
            key, mime, name = blob
            path = _unique(f"{FILES_DIR}/{name}", names)
            node.update(type="file", file=path)
            files.append(FileOut(path, key, mime))
        elif kind in ("media", "figure") and k.is_http(payload.get("src")):
            node.update(type="link", url=payload["src"])
        else:
            node.update(type="text", text=k.readable_text(kind, payload, (card["w"], card["h"])))
        x, y, w, h = card_box(card)
        node.update(x=round(x), y=round(y), width=max(1, round(w)), height=max(1, round(h)))
        color = k.canvas_color(kind, payload)
        if color is not None:
            node["color"] = color
        node[OWN_KEY] = k.own_value(kind, payload, node.get("text"))
        nodes.append(node)
    boxes = {c["id"]: card_box(c) for c in cards}
    out_edges = []
    for e in edges:
        if e["from"] not in boxes or e["to"] not in boxes:
            continue
        from_side, to_side = k.side_pair(boxes[e["from"]], boxes[e["to"]])
        edge: dict[str, Any] = dict(kept.get(f"edge:{e['id']}", {}))
        edge.update(
            id=f"edge-{e['id']}",
            fromNode=f"card-{e['from']}",
            fromSide=from_side,
            fromEnd="none",
            toNode=f"card-{e['to']}",
            toSide=to_side,
            toEnd="arrow",
        )
        # Ends an import kept (both arrows, or none) win over the plain arrow.
        edge.update(
            {key: v for key, v in kept.get(f"edge:{e['id']}", {}).items() if key in ENDS_KEYS}
        )
        if e.get("label"):
            edge["label"] = e["label"]
        own = {key: e[key] for key in ("rel", "fromRegion", "toRegion") if e.get(key) is not None}
        if own:
            edge[OWN_KEY] = own
        out_edges.append(edge)
    return Exported({"nodes": nodes, "edges": out_edges}, tuple(files))


def _unique(path: str, taken: set[str]) -> str:
    stem, dot, ext = path.rpartition(".")
    if not dot or "/" in ext:
        stem, ext = path, ""
    candidate, n = path, 2
    while candidate in taken:
        candidate = f"{stem}-{n}.{ext}" if ext else f"{stem}-{n}"
        n += 1
    taken.add(candidate)
    return candidate


def read_canvas(doc: Any) -> Drawn:
    """The cards and wires of a JSON Canvas document, at the canvas's coordinates.

    Raises :class:`TravelError` (``invalid_file``, ``duplicate_id``,
    ``unknown_node``, ``nesting_too_deep``) whose ``field`` is the JSON path of
    the bad value.
    """
    if not isinstance(doc, dict):
        raise TravelError("invalid_file", "a canvas is a JSON object {nodes, edges}", field="")
    seen: dict[str, str] = {}
    cards: list[DrawnCard] = []
    for i, node in enumerate(k.object_list(doc, "nodes")):
        cards.append(_read_node(node, f"nodes[{i}]", seen))
    refs = {c.ref for c in cards}
    wires = []
    edge_ids: dict[str, str] = {}
    for i, edge in enumerate(k.object_list(doc, "edges")):
        wires.append(_read_edge(edge, f"edges[{i}]", refs, edge_ids))
    nested = k.nest(cards, {c.ref: c.path for c in cards})
    return Drawn(tuple(nested), tuple(wires))


def _read_node(node: dict[str, Any], path: str, seen: dict[str, str]) -> DrawnCard:
    ref = k.unique_id(node, path, seen)
    kind_of = k.string_at(node, "type", path)
    if kind_of not in NODE_TYPES:
        where = f"{path}.type"
        raise TravelError(
            "invalid_file",
            f"{where}: {kind_of!r} is not a node type; one of {', '.join(NODE_TYPES)}",
            field=where,
            allowed=list(NODE_TYPES),
        )
    box = (
        k.number_at(node, "x", path),
        k.number_at(node, "y", path),
        k.number_at(node, "width", path, positive=True),
        k.number_at(node, "height", path, positive=True),
    )
    color = node.get("color")
    if color is not None and not isinstance(color, str):
        where = f"{path}.color"
        raise TravelError("invalid_file", f"{where}: expected a string", field=where)
    own = k.own_card(node.get(OWN_KEY), f"{path}.{OWN_KEY}")
    foreign = {key: v for key, v in node.items() if key not in _NODE_OWN and key != OWN_KEY}
    kind, payload, restored = _NODE_READERS[kind_of](node, path, own)
    if restored:
        foreign.pop("color", None)  # the card's own colour is what an export writes
    file = k.string_at(node, "file", path) if kind_of == "file" else None
    return DrawnCard(ref, kind, payload, box, path, foreign=foreign, file=file, restored=restored)


Own = tuple[str, dict[str, Any]] | None
Read = tuple[str, dict[str, Any], bool]


def _text_node(node: dict[str, Any], path: str, own: Own) -> Read:
    shown = k.own_text(node.get(OWN_KEY))
    kind, payload = _text_card(k.string_at(node, "text", path), node.get("color"), own, shown)
    return kind, payload, own is not None and kind == own[0]


def _link_node(node: dict[str, Any], path: str, own: Own) -> Read:
    url = k.string_at(node, "url", path)
    if own is not None and own[0] in ("link", "media", "figure"):
        kind, payload = own
        payload["url" if kind == "link" else "src"] = url
        return kind, payload, True
    if k.is_http(url):
        return "link", {"url": url}, False
    return "text", {"md": url}, False  # an address a link card cannot fetch stays readable


def _file_node(node: dict[str, Any], path: str, own: Own) -> Read:
    file = k.string_at(node, "file", path)
    if own is not None and own[0] in k.BLOB_KINDS:
        return own[0], own[1], True
    return "file", {"name": file.rsplit("/", 1)[-1] or file}, False


def _group_node(node: dict[str, Any], path: str, own: Own) -> Read:
    label = k.string_at(node, "label", path, required=False)
    if own is not None and own[0] in FRAME_KINDS:
        kind, payload = own
        if label is not None:
            payload["title"] = label
        else:
            payload.pop("title", None)
        return kind, payload, True
    if label:
        # Membership comes from the canvas's geometry: the frame keeps it as drawn.
        return "section", {"title": label, "layout": None}, False
    return "cluster", {"layout": None}, False


_NODE_READERS = {"text": _text_node, "link": _link_node, "file": _file_node, "group": _group_node}


def _text_card(
    text: str, color: Any, own: tuple[str, dict[str, Any]] | None, shown: str | None
) -> tuple[str, dict[str, Any]]:
    if own is not None:
        kind, payload = own
        if kind in k.MARKDOWN_KINDS:
            return kind, {**payload, "md": text}
        if shown == text:
            return kind, payload
    note = k.note_color_of_canvas(color)
    if own is None and note is not None:
        return "note", {"md": text, "color": note}
    return "text", {"md": text}


def _read_edge(edge: dict[str, Any], path: str, refs: set[str], seen: dict[str, str]) -> DrawnWire:
    k.unique_id(edge, path, seen)
    ends = []
    for key in ("fromNode", "toNode"):
        ref = k.string_at(edge, key, path)
        if ref not in refs:
            where = f"{path}.{key}"
            raise TravelError("unknown_node", f"{where}: no node has id {ref!r}", field=where)
        ends.append(ref)
    for key, allowed in (
        ("fromSide", SIDES),
        ("toSide", SIDES),
        ("fromEnd", ENDS),
        ("toEnd", ENDS),
    ):
        value = edge.get(key)
        if value is not None and value not in allowed:
            where = f"{path}.{key}"
            raise TravelError(
                "invalid_file",
                f"{where}: {value!r} is not one of {', '.join(allowed)}",
                field=where,
                allowed=list(allowed),
            )
    label = k.string_at(edge, "label", path, required=False)
    own = edge.get(OWN_KEY)
    own = own if isinstance(own, dict) else {}
    foreign = {key: v for key, v in edge.items() if key not in _EDGE_OWN and key != OWN_KEY}
    # A wire points at its end: an edge drawn with its arrow at the start only runs backwards.
    if edge.get("fromEnd") == "arrow" and edge.get("toEnd", "arrow") == "none":
        ends.reverse()
    elif edge.get("fromEnd") == "arrow" or edge.get("toEnd") == "none":
        foreign.update({key: edge[key] for key in ("fromEnd", "toEnd") if key in edge})
    rel = own.get("rel") if isinstance(own.get("rel"), str) else None
    regions = {
        key: own[key] for key in ("fromRegion", "toRegion") if isinstance(own.get(key), dict)
    }
    return DrawnWire(ends[0], ends[1], path, label or None, rel, regions, foreign)
