"""``lay_out``: a diagram payload in, the payload with ``geo``/``metrics``/``repairs``/``diagnostics`` out."""

from __future__ import annotations

import copy
import itertools
import marshal
import operator
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from layoutkit.diagram import layered, ordering, placement, sequence_layout
from layoutkit.diagram import overrides as human_edits
from layoutkit.diagram.findings import composition_findings, count_crossings_orth
from layoutkit.diagram.labels import NO_TEXT, edge_label_size
from layoutkit.diagram.mermaid import import_text
from layoutkit.diagram.model import Model, Node, build_model, containers
from layoutkit.diagram.options import OPTIONS, LayoutOptions
from layoutkit.diagram.tidy import tidy_wires
from layoutkit.errors import DiagramError
from layoutkit.layout.modes import Item as PackItem
from layoutkit.layout.modes import shelf_pack
from layoutkit.layout.text import measure, text_width
from layoutkit.limits import check_limit

SERVER_OWNED = ("geo", "render", "metrics", "repairs", "diagnostics")
LABEL_SIZE = 12.0
LABEL_MAX = 160.0
# Real side -> side in the top-down frame, for left-right diagrams.
_LR_SIDE = {"right": "bottom", "left": "top", "top": "left", "bottom": "right"}


def _r(v: float) -> float:
    x = float(v)
    if (x * 4.0).is_integer():
        # A multiple of a quarter (nearly every coordinate: whole and half pixels) has
        # at most two decimals, so ``round`` (exact decimal rounding, a few times
        # dearer) would give it back unchanged.
        return x + 0.0
    return round(x, 2) + 0.0


_ATOMS = (str, int, float, bool, type(None))


def _deep_copy(value: Any, memo: dict[int, Any]) -> Any:
    """``copy.deepcopy`` with the JSON shapes a payload is made of done inline: plain
    dicts and lists copied (a list or dict met twice is copied once, as deepcopy
    does), strings and numbers shared; anything else goes to deepcopy with the same
    memo. A 10-node payload's copy took a tenth of a millisecond in deepcopy."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is not dict and kind is not list:
        return copy.deepcopy(value, memo)
    seen = memo.get(id(value))
    if seen is not None:
        return seen
    # Atoms inside are taken as they are here, without a call each (most of a payload).
    if kind is dict:
        out: dict[Any, Any] = {}
        memo[id(value)] = out
        for k, v in value.items():
            if type(k) not in _ATOMS:
                k = _deep_copy(k, memo)
            out[k] = v if type(v) in _ATOMS else _deep_copy(v, memo)
        return out
    copied: list[Any] = []
    memo[id(value)] = copied
    for v in value:
        copied.append(v if type(v) in _ATOMS else _deep_copy(v, memo))
    return copied


def _copy_value(value: Any) -> Any:
    """A deep copy of one payload value. Plain data (exactly dicts, lists, strings,
    numbers and the like; a part met twice copied once, as deepcopy does) goes through
    marshal and back, in C, in under half ``_deep_copy``'s time; marshal refuses
    anything else (subclasses included), which ``_deep_copy`` takes."""
    if type(value) in _ATOMS:
        return value
    try:
        return marshal.loads(marshal.dumps(value))
    except ValueError:
        return _deep_copy(value, {})


def lay_out(
    payload: dict[str, Any],
    *,
    options: LayoutOptions | None = None,
    node_sizes: Mapping[str, tuple[float, float]] | None = None,
) -> dict[str, Any]:
    """Compute all geometry of a diagram payload.

    Returns a new dict: the payload with ``geo`` (nodes, groups, lanes, edges,
    ports, header/legend/stats/footer boxes, width, height), ``metrics``
    (crossings, bends, edgeLength, area, ...), ``repairs`` and ``diagnostics``.
    ``diagram_text`` is imported first when the payload has no nodes, groups
    or lanes. ``overrides`` ({node id: {x?, y?, title?}}: a top-left corner, a
    label; see :mod:`layoutkit.diagram.overrides`) are applied, and kept but for
    those of nodes no longer there. Raises :class:`DiagramError` ``diagram_text_*`` for bad text and
    ``composition_findings`` when ``quality`` is ``showcase`` and the
    result has overlaps, label collisions or edges through nodes.

    ``options`` sets spacing and effort for this call only (default:
    ``LayoutOptions()``). ``node_sizes`` ({node id: (width, height)}) fixes
    the box of the nodes it names instead of sizing them from their content,
    e.g. to lay out a graph whose node sizes another engine was given.
    """
    opts = OPTIONS if options is None else options
    out = {k: _copy_value(v) for k, v in payload.items() if k not in SERVER_OWNED}
    quality = out.pop("quality", None)
    if not (out.get("nodes") or out.get("groups") or out.get("lanes")) and isinstance(
        out.get("diagram_text"), str
    ):
        imported = import_text(out["diagram_text"])
        for key, value in imported.items():
            if key == "title" and out.get("title"):
                continue
            out[key] = value
        out.setdefault("band", False)
    # A person's overrides stay beside the semantics: only those of nodes still
    # there are kept, and labels typed over the nodes' own are laid out as drawn.
    kept: dict[str, Any] = {}
    dropped: list[dict[str, Any]] = []
    if "overrides" in out:
        kept = human_edits.clean(out.pop("overrides"), dropped)
    # Most payloads carry none: nothing to relabel, keep or move then.
    model = build_model(human_edits.relabelled(out, kept) if kept else out, node_sizes)
    if kept:
        kept = human_edits.of_nodes(kept, set(model.nodes), dropped)
    model.repairs.extend(dropped)
    if kept:
        out["overrides"] = kept
    # Layout time grows faster than linearly with the graph: bound it before starting.
    check_limit("diagramNodes", len(model.nodes), field="nodes")
    check_limit("diagramEdges", len(model.edges), field="edges")
    moves = human_edits.positions(kept) if kept else {}
    seq = sequence_layout.usable(out, model)
    if seq is not None:
        geo, metrics = _layout_sequence(model, out, seq)
    else:
        if isinstance(out.get("sequence"), dict) and out["sequence"].get("participants"):
            model.diagnostics.append(
                {
                    "level": "info",
                    "code": "sequence_ignored",
                    "path": "sequence",
                    "message": "the participants or messages changed since the text was "
                    "imported, so the diagram is drawn as a graph",
                }
            )
        geo, metrics = _layout(model, out, opts, node_sizes)
        if moves:
            _apply_overrides(geo, moves, model, opts)
            metrics.update(_measure(geo))
    findings = composition_findings(geo)
    diagnostics = list(model.diagnostics)
    for f in findings:
        diagnostics.append({"level": "warning", **f})
    out["geo"] = geo
    out["metrics"] = metrics
    out["repairs"] = model.repairs
    out["diagnostics"] = diagnostics
    out.pop("diagram_text", None) if out.get("nodes") is None else None
    if quality == "showcase" and findings:
        raise DiagramError(
            "composition_findings",
            f"{len(findings)} composition finding(s) in a showcase diagram",
            findings=findings,
        )
    return out


def _layout_sequence(
    model: Model, payload: dict[str, Any], seq: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A sequence diagram drawn as one (:mod:`layoutkit.diagram.sequence_layout`)."""
    moves = human_edits.positions(payload.get("overrides") or {}) or None
    # The header wraps to the body's width, and the body sits below the header.
    _, body_w, _ = sequence_layout.lay_out_sequence(model, payload, seq, None)
    header = _header(payload, body_w)
    top = header["h"] if header else 0.0
    geo, body_w, body_h = sequence_layout.lay_out_sequence(model, payload, seq, moves, top)
    header = _header(payload, body_w)
    _footer(geo, payload, header, body_w, body_h)
    metrics = _measure(geo)
    metrics["messages"] = len(seq["messages"])
    return geo, metrics


def _label_size(text: str) -> tuple[float, float]:
    # The drawing wraps the label with the same call (labels.edge_label_lines).
    return edge_label_size(text)


def _first_leaf(model: Model, gid: str) -> str | None:
    key = model.groups[gid]["path"]
    best = None
    for n in model.nodes.values():
        if n.path[: len(key)] == key and (best is None or n.order < best.order):
            best = n
    return best.id if best else None


class _GroupExits:
    """Where edges leaving a group start (``leaf``), built once per layout.

    An edge from a group starts from the last (in the author's order) of its leaves
    with no edge on to another leaf of the group, so the wire leaves the frame after
    the group's flow ends (a state composite's end marker), on the side that faces the
    target, not through the frame beside its start marker. When the target leads back
    to that leaf other than through the group's entry (an edge straight to a member),
    starting there would close a cycle: the first leaf it is, as before.
    """

    def __init__(self, model: Model) -> None:
        self.model = model
        self.leaves = {gid: _leaves(model, gid) for gid in model.groups}
        # Edges as laid out (a group's tail: all its leaves, its head: its first leaf),
        # each marked with the groups it enters, so the walk can skip a group's entry.
        import networkx as nx  # only diagrams with edges into groups come here

        self.graph = nx.DiGraph()
        for e in model.edges:
            a, b = e["from"], e["to"]
            tails = self.leaves[a] if a in model.groups else [a]
            head = _first_leaf(model, b) if b in model.groups else b
            if head is None:
                continue
            for t in tails:
                if not self.graph.has_edge(t, head):
                    self.graph.add_edge(t, head, into=set())
                self.graph[t][head]["into"].add(b if b in model.groups else None)

    def leaf(self, gid: str, target: str) -> str | None:
        model = self.model
        inside = set(self.leaves[gid])
        if not inside:
            return None
        onward = {e["from"] for e in model.edges if e["from"] in inside and e["to"] in inside}
        ends = [v for v in inside if v not in onward] or list(inside)
        leaf = max(ends, key=lambda v: model.nodes[v].order)
        import networkx as nx

        walk = nx.subgraph_view(
            self.graph, filter_edge=lambda u, v: self.graph[u][v]["into"] != {gid}
        )
        starts = self.leaves[target] if target in model.groups else [target]
        if leaf in walk and any(v in walk and nx.has_path(walk, v, leaf) for v in starts):
            return _first_leaf(model, gid)
        return leaf


def _leaves(model: Model, gid: str) -> list[str]:
    key = model.groups[gid]["path"]
    return [n.id for n in model.nodes.values() if n.path[: len(key)] == key]


_GROUP_DIR = {"TD": "TD", "TB": "TD", "BT": "TD", "LR": "LR", "RL": "LR"}
#: Group directions laid out as their forward one, then mirrored along this axis.
_MIRRORED = {"BT": "y", "RL": "x"}


def _raw_groups(payload: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Group dicts of the payload by id (first one wins), nested ones included."""
    found: dict[str, dict[str, Any]] = {}
    for holder, group in containers(payload):
        if holder == "group" and isinstance(group.get("id"), str):
            found.setdefault(group["id"], group)
    return found


def _block_groups(model: Model, payload: dict[str, Any]) -> list[tuple[str, str, list[int]]]:
    """Groups laid out on their own in their inner direction: (id, dir, inner edge positions).

    As in Mermaid, a group's own direction counts only while no edge links
    something inside it to something outside; an edge to the group itself
    is fine (it ends on the frame). Outermost such groups only; nested ones
    are handled when their block is laid out.
    """
    raw = _raw_groups(payload)
    out: list[tuple[str, str, list[int]]] = []
    taken: list[tuple] = []
    for gid, grp in sorted(model.groups.items(), key=lambda kv: len(kv[1]["path"])):
        stated = str((raw.get(gid) or {}).get("dir", "")).upper()
        want = _GROUP_DIR.get(stated)
        key = grp["path"]
        # A reversed direction (BT, RL) needs a block of its own even along the flow.
        same = want == model.dir and stated not in _MIRRORED
        if want is None or same or any(key[: len(t)] == t for t in taken):
            continue
        if not any(n.path[: len(key)] == key for n in model.nodes.values()):
            continue

        def inside(ref: str, key: tuple = key, gid: str = gid) -> bool:
            if ref in model.nodes:
                return model.nodes[ref].path[: len(key)] == key
            if ref == gid:
                return False
            return model.groups[ref]["path"][: len(key)] == key

        inner: list[int] = []
        crossing = False
        for j, e in enumerate(model.edges):
            ia, ib = inside(e["from"]), inside(e["to"])
            if ia and ib:
                inner.append(j)
            elif ia or ib:
                crossing = True
                break
        if crossing:
            model.diagnostics.append(
                {
                    "level": "info",
                    "code": "group_dir_ignored",
                    "path": f"groups.{gid}",
                    "message": f"group {gid!r} is drawn {model.dir}: an edge links one of its "
                    f"members to something outside it, so its own dir {stated} does not apply",
                }
            )
            continue
        taken.append(key)
        out.append((gid, want, inner))
    return out


def _layout(
    model: Model,
    payload: dict[str, Any],
    opts: LayoutOptions,
    node_sizes: Mapping[str, tuple[float, float]] | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Lay out the model; groups with their own direction are laid out first as blocks."""
    blocks = _block_groups(model, payload)
    if not blocks:
        return _layout_flat(model, payload, opts)
    raw = _raw_groups(payload)
    # Work on a shallow copy: the caller's model keeps every node and group
    # (overrides grow block frames too); repairs and diagnostics stay shared.
    model = attrs.evolve(
        model, nodes=dict(model.nodes), groups=dict(model.groups), edges=list(model.edges)
    )
    inner: dict[str, tuple[dict[str, Any], list[int], float]] = {}
    # Block edge positions index the edges as they were before any block took its own.
    every = list(model.edges)
    for gid, direction, inner_edges in blocks:
        grp = raw[gid]
        key = model.groups[gid]["path"]
        sub = {
            "dir": direction,
            "nodes": grp.get("nodes") or [],
            "groups": grp.get("groups") or [],
            "edges": [payload["edges"][every[j]["index"]] for j in inner_edges],
        }
        sub_model = build_model(sub, node_sizes)
        sub_geo, _ = _layout(sub_model, sub, opts, node_sizes)
        axis = _MIRRORED.get(str(grp.get("dir", "")).upper())
        if axis is not None:
            _mirror(sub_geo, sub_model, axis, opts)
        band = opts.group_title if model.groups[gid]["title"] else 0.0
        members = [n for n in model.nodes.values() if n.path[: len(key)] == key]
        for n in members:
            del model.nodes[n.id]
        for other in [g for g, v in model.groups.items() if v["path"][: len(key)] == key]:
            del model.groups[other]
        model.nodes[gid] = Node(
            gid,
            sub_geo["width"],
            sub_geo["height"] + band,
            "rect",
            {},
            key[:-1],
            min(n.order for n in members),
        )
        indices = [every[j]["index"] for j in inner_edges]
        inner[gid] = (sub_geo, indices, band)
        drop = {id(every[j]) for j in inner_edges}
        model.edges = [e for e in model.edges if id(e) not in drop]
    geo, metrics = _layout_flat(model, payload, opts)
    for gid, (sub_geo, indices, band) in inner.items():
        box = geo["nodes"].pop(gid)
        geo["groups"][gid] = box
        dx, dy = box["x"], box["y"] + band
        for nid, b in sub_geo["nodes"].items():
            geo["nodes"][nid] = _shift_box(b, dx, dy)
        for sid, b in sub_geo["groups"].items():
            geo["groups"][sid] = _shift_box(b, dx, dy)
        for nid, ports in sub_geo.get("ports", {}).items():
            geo["ports"][nid] = {
                pid: {**pt, "x": _r(pt["x"] + dx), "y": _r(pt["y"] + dy)}
                for pid, pt in ports.items()
            }
        for e in sub_geo["edges"]:
            moved = {**e, "index": indices[e["index"]]}
            moved["points"] = [[_r(x + dx), _r(y + dy)] for x, y in e["points"]]
            if "label" in e:
                moved["label"] = {**e["label"], **_shift_box(e["label"], dx, dy)}
            geo["edges"].append(moved)
    geo["edges"].sort(key=lambda e: e["index"])
    metrics.update(_measure(geo))
    return geo, metrics


def _mirror(geo: dict[str, Any], model: Model, axis: str, opts: LayoutOptions) -> None:
    """Turn a block laid out forward (TD, LR) into its reverse (BT, RL), in place.

    Everything is reflected across the block's middle, so its arrows point the other
    way. Nested groups keep their title band on top: reflected top to bottom, their
    members would sit where the band was, so each group's insides move down by its band.
    A block whose nodes have ports is left as laid out: its ports keep the sides their
    author gave them.
    """
    if any(n.ports for n in model.nodes.values()):
        return
    size = geo["width"] if axis == "x" else geo["height"]
    pos, span = ("x", "w") if axis == "x" else ("y", "h")

    def flip_box(b: dict[str, Any]) -> None:
        b[pos] = _r(size - b[pos] - b[span])

    for box in [*geo["nodes"].values(), *geo["groups"].values()]:
        flip_box(box)
    k = 0 if axis == "x" else 1
    for e in geo["edges"]:
        e["points"] = [
            [_r(size - p[0]), p[1]] if k == 0 else [p[0], _r(size - p[1])] for p in e["points"]
        ]
        if "label" in e:
            e["label"] = dict(e["label"])
            flip_box(e["label"])
    if axis == "y":
        _band_back_on_top(geo, model, opts)


def _band_back_on_top(geo: dict[str, Any], model: Model, opts: LayoutOptions) -> None:
    """After a top-to-bottom reflection, move each titled group's insides below its band."""
    for gid, grp in sorted(model.groups.items(), key=lambda kv: len(kv[1]["path"])):
        if not grp["title"] or gid not in geo["groups"]:
            continue
        key = grp["path"]

        def inside(ref: str, key: tuple = key) -> bool:
            if ref in model.nodes:
                return model.nodes[ref].path[: len(key)] == key
            held = model.groups.get(ref)
            return held is not None and held["path"][: len(key)] == key and held["path"] != key

        band = opts.group_title
        for nid in model.nodes:
            if inside(nid):
                geo["nodes"][nid]["y"] = _r(geo["nodes"][nid]["y"] + band)
        for other in model.groups:
            if inside(other) and other in geo["groups"]:
                geo["groups"][other]["y"] = _r(geo["groups"][other]["y"] + band)
        for e in geo["edges"]:
            if inside(str(e["from"]).split(".")[0]) and inside(str(e["to"]).split(".")[0]):
                e["points"] = [[p[0], _r(p[1] + band)] for p in e["points"]]
                if "label" in e:
                    e["label"]["y"] = _r(e["label"]["y"] + band)


def _shift_box(b: dict[str, Any], dx: float, dy: float) -> dict[str, Any]:
    return {"x": _r(b["x"] + dx), "y": _r(b["y"] + dy), "w": b["w"], "h": b["h"]}


@attrs.define
class _FlatEdges:
    """The model's edges as the layered layout takes them: group ends moved to a leaf.

    ``pairs[k]`` (from, to) and ``meta[k]`` (the model edge plus ``cut_a``/``cut_b``,
    the group an end stops at) are one kept edge; ``extra_arcs`` (k, x, y) keep
    the rest of a group end's members in layer order; self-loops are apart.
    """

    pairs: list[tuple[str, str]] = attrs.field(factory=list)
    meta: list[dict[str, Any]] = attrs.field(factory=list)
    loops: dict[str, list[dict[str, Any]]] = attrs.field(factory=lambda: defaultdict(list))
    extra_arcs: list[tuple[int, str, str]] = attrs.field(factory=list)


@attrs.frozen
class _Laid:
    """The layered layout of a flat model (top-down frame), ready to draw."""

    h: layered.Hierarchy
    order: list[list[int]]
    placed: placement.Placed
    ends: dict[int, tuple[float, float]]
    track: dict[int, int]
    frame: dict[str, Any]
    beside: dict[int, tuple[str, str, str]] = attrs.field(factory=dict)


def _layout_flat(
    model: Model, payload: dict[str, Any], opts: LayoutOptions
) -> tuple[dict[str, Any], dict[str, Any]]:
    lr = model.dir == "LR"
    ids = list(model.nodes)
    flat = _flat_edges(model)
    notes = _note_ids(model, payload)
    beside = {} if lr else _side_notes(model, notes, flat)
    # Side-note ties sit last in ``flat``; the layered layout never sees them.
    kept = len(flat.pairs) - len(beside)
    core = _FlatEdges(flat.pairs[:kept], flat.meta[:kept], flat.loops, flat.extra_arcs)
    flat_all, flat = flat, core
    labels = _edge_label_boxes(flat, lr)
    ports = _edge_ports(model, flat, lr)
    loop_room, loop_span = _loop_rooms(flat.loops, lr, opts)
    g = layered.LayoutGraph(
        nodes=ids,
        w={v: (model.nodes[v].h if lr else model.nodes[v].w) for v in ids},
        h={v: (model.nodes[v].w if lr else model.nodes[v].h) for v in ids},
        edges=flat.pairs,
        edge_labels=labels,
        path={v: model.nodes[v].path for v in ids},
        lane_count=len(model.lanes),
        loop_room=loop_room,
        ports=ports,
    )
    comp = _components(ids, flat_all.pairs, model)
    seed = {v: model.nodes[v].order for v in ids}
    best: tuple[int, layered.Hierarchy, list[list[int]]] | None = None
    # Usually one choice of edges to reverse; where two are worth it, each is layered
    # and ordered, and the first with the fewest crossings is kept.
    choices = layered.cycle_choices(ids, flat.pairs, opts)
    for rev in choices:
        layer = _layering(ids, flat, labels, opts, rev)
        for note, state, _side in beside.values():
            layer[note] = layer[state]
        layer = _own_layers(layer, comp)
        hier = layered.insert_dummies(g, layer, rev, comp, opts)
        order = layered.order_layers(hier, seed, opts)
        if len(choices) > 1:
            count = ordering.hierarchy_crossings(hier, order)
            if best is None or count < best[0]:
                best = (count, hier, order)
    if best is not None:
        _, hier, order = best
    _put_notes_beside(hier, order, beside)
    markers = frozenset(v for v in ids if model.nodes[v].shape in NO_TEXT)
    out_off, in_off = placement.port_offsets(hier, order, ports, opts, markers)
    titles, bands = _frame_titles(model, lr, opts)
    placed = placement.assign_x(
        hier,
        order,
        out_off,
        in_off,
        titles,
        opts,
        bands,
        _edge_weights(model, flat, notes),
        _frame_pulls(model, flat),
    )
    placed = placement.slide_ends(hier, placed, ports, markers, opts)
    ends = placement.straighten(hier, placed, opts)
    track, counts = placement.plan_tracks(hier, order, ends, opts)
    frame = _assign_y(hier, order, counts, model, lr, loop_span, opts)
    laid = _Laid(hier, order, placed, ends, track, frame, beside)
    return _emit(model, payload, laid, flat_all, lr, opts)


#: How much harder an edge out of a start marker holds its line, and how much softer an
#: edge from one group to another (whose frames are pulled instead, see ``_frame_pulls``).
LEAD, CUT, NOTE = 4.0, 0.5, 2.0


def _edge_weights(model: Model, flat: _FlatEdges, notes: set[str]) -> dict[int, float]:
    """Placement weight per edge: a start marker lines up with the state it points to,
    a note (in a left-right diagram, where it is a layer before or after its state)
    with its state unless a start marker needs the place; an edge between two groups
    holds loosely the leaves it is laid out from, so the flow inside each frame stays
    straight while the frames line up."""
    weights: dict[int, float] = {}
    for k, (a, b) in enumerate(flat.pairs):
        m = flat.meta[k]
        if m["cut_a"] and m["cut_b"]:
            weights[k] = CUT
        elif a in notes or b in notes:
            weights[k] = NOTE
        elif model.nodes[a].shape == "start" and not m["cut_b"]:
            # One pointing at a composite meets its frame: the inner flow need not line up.
            weights[k] = LEAD
    return weights


#: How hard an edge between two groups pulls their frames' middles in line.
FRAME_PULL = 2.0


def _frame_pulls(model: Model, flat: _FlatEdges) -> list[tuple[int | tuple, int | tuple, float]]:
    """Centre pulls for edges from one group to another: the frames, not the leaves the
    edge is laid out from, line up (Mermaid lays a composite out as one box), so
    composites in a chain stack in a column. An edge between a node and a group keeps
    its wire straight to the leaf instead."""
    pulls: list[tuple[int | tuple, int | tuple, float]] = []
    for m in flat.meta:
        if m["cut_a"] and m["cut_b"]:
            ea, eb = model.groups[m["cut_a"]]["path"], model.groups[m["cut_b"]]["path"]
            pulls.append((ea, eb, FRAME_PULL))
    return pulls


def _note_ids(model: Model, payload: dict[str, Any]) -> set[str]:
    """The nodes of ``type: note``."""
    return {
        n["id"]
        for _holder, c in containers(payload)
        for n in c.get("nodes") or []
        if isinstance(n, dict) and n.get("type") == "note" and n.get("id") in model.nodes
    }


def _side_notes(model: Model, notes: set[str], flat: _FlatEdges) -> dict[int, tuple[str, str, str]]:
    """Notes drawn beside their state, as Mermaid does, in a top-down diagram:
    {edge k: (note, state, "left"/"right")}. A note qualifies when its one edge ties it to
    a node (not a group) in the same container; the tie's direction names the side
    (see ``_state.note_tie``). Moves those ties to the end of ``flat`` (k follows);
    ``notes`` are the note ids (``_note_ids``)."""
    if not notes:
        return {}
    degree: dict[str, int] = defaultdict(int)
    for a, b in flat.pairs:
        degree[a] += 1
        degree[b] += 1
    for v, ls in flat.loops.items():
        degree[v] += len(ls)
    ties = []
    for k, (a, b) in enumerate(flat.pairs):
        m = flat.meta[k]
        if m["cut_a"] or m["cut_b"]:
            continue
        for note, state, side in ((a, b, "left"), (b, a, "right")):
            if (
                note in notes
                and state not in notes
                and degree[note] == 1
                and model.nodes[note].path == model.nodes[state].path
            ):
                ties.append((k, (note, state, side)))
                break
    moved = {k for k, _ in ties}
    keep = [k for k in range(len(flat.pairs)) if k not in moved]
    new_k = {k: j for j, k in enumerate(keep + [k for k, _ in ties])}
    flat.pairs = [flat.pairs[k] for k in new_k]
    flat.meta = [flat.meta[k] for k in new_k]
    flat.extra_arcs = [(new_k[k], x, y) for k, x, y in flat.extra_arcs]
    return {new_k[k]: tie for k, tie in ties}


def _put_notes_beside(
    h: layered.Hierarchy, order: list[list[int]], beside: dict[int, tuple[str, str, str]]
) -> None:
    """Each side note next to its state in their shared layer, on the side it names."""
    index = {it.name: i for i, it in enumerate(h.items) if it.kind == "node"}
    for note, state, side in beside.values():
        i, j = index[note], index[state]
        layer = order[h.items[j].layer]
        layer.remove(i)
        p = layer.index(j)
        layer.insert(p if side == "left" else p + 1, i)


def _flat_edges(model: Model) -> _FlatEdges:
    """Edges to a group end at its first leaf, edges from one start where its flow ends
    (``_GroupExits``); edges to an empty group are dropped."""
    flat = _FlatEdges()
    exits: _GroupExits | None = None
    for e in model.edges:
        a, b = e["from"], e["to"]
        cut_a = a if a in model.groups else None
        cut_b = b if b in model.groups else None
        if cut_a and cut_a == cut_b:
            a = b = _first_leaf(model, cut_a)
        else:
            if cut_a:
                exits = exits or _GroupExits(model)
                a = exits.leaf(cut_a, e["to"])
            b = _first_leaf(model, cut_b) if cut_b else b
        if a is None or b is None:
            model.repairs.append(
                {
                    "path": f"edges[{e['index']}]",
                    "action": "dropped",
                    "message": "edge to an empty group dropped",
                }
            )
            continue
        if a == b:
            # A group's own self-transition loops on its frame, not on its first leaf
            # (the leaf only says which component the loop moves with).
            flat.loops[a].append({**e, "frame": cut_a} if cut_a and cut_a == cut_b else e)
            continue
        k = len(flat.pairs)
        flat.pairs.append((a, b))
        flat.meta.append({**e, "cut_a": cut_a, "cut_b": cut_b})
        if not (cut_a or cut_b):
            continue  # a node-to-node edge is its pair alone
        for x in _leaves(model, cut_a) if cut_a else [a]:
            for y in _leaves(model, cut_b) if cut_b else [b]:
                if x != y and (x, y) != (a, b):
                    flat.extra_arcs.append((k, x, y))
    return flat


def _edge_label_boxes(flat: _FlatEdges, lr: bool) -> dict[int, tuple[float, float]]:
    """Top-down-frame (w, h) of each labelled edge's label."""
    labels: dict[int, tuple[float, float]] = {}
    for k, m in enumerate(flat.meta):
        if m["label"]:
            lw, lh = _label_size(m["label"])
            labels[k] = (lh, lw) if lr else (lw, lh)
    return labels


def _edge_ports(
    model: Model, flat: _FlatEdges, lr: bool
) -> dict[int, dict[str, tuple[str, float]]]:
    """Pinned ends per edge that has any: {"src"/"dst": (side, t)} in the top-down frame."""
    ports: dict[int, dict[str, tuple[str, float]]] = {}
    for k, m in enumerate(flat.meta):
        if not (m["from_port"] or m["to_port"]):
            continue  # nothing pinned
        spec = _pins_for(model, m, flat.pairs[k], lr)
        if spec:
            ports[k] = spec
    return ports


def _loop_rooms(
    loops: dict[str, list[dict[str, Any]]], lr: bool, opts: LayoutOptions
) -> tuple[dict[str, float], dict[str, float]]:
    """Room right of each looped node, and the height its loop labels need.

    Loop labels sit side by side right of the outermost loop: their widths add
    up beside the node, and the tallest sets how tall the node's layer must be.
    """
    loop_room: dict[str, float] = {}
    loop_span: dict[str, float] = {}
    for v, all_ls in loops.items():
        ls = [e for e in all_ls if not e.get("frame")]
        if not ls:
            continue
        sizes = _loop_label_sizes(ls, lr)
        loop_room[v] = opts.loop_room + 10 * (len(ls) - 1) + sum(sw + 4 for sw, _ in sizes)
        loop_span[v] = max((sh for _, sh in sizes), default=0.0)
    return loop_room, loop_span


def _layering(
    ids: list[str],
    flat: _FlatEdges,
    labels: dict[int, tuple[float, float]],
    opts: LayoutOptions,
    rev: set[int],
) -> dict[str, int]:
    """The layer of every node, the edges ``rev`` reversed."""
    edges = flat.pairs
    # A labelled edge spans two layers so its label holder gets the layer between
    # (ELK's label dummies); unlabelled edges keep the shortest span.
    minlen = [2 if k in labels else 1 for k in range(len(edges))] if labels else [1] * len(edges)
    arcs = [
        ((b, a, minlen[k]) if k in rev else (a, b, minlen[k])) for k, (a, b) in enumerate(edges)
    ]
    if flat.extra_arcs:
        arcs += [
            ((y, x, minlen[k]) if k in rev else (x, y, minlen[k])) for k, x, y in flat.extra_arcs
        ]
        # ``rev`` (a ``cycle_choices`` choice on the pairs) leaves the pairs acyclic,
        # and they hold no self-loop: only these arcs can close a cycle.
        arcs = _acyclic(ids, arcs, opts)
    return layered.assign_layers(ids, arcs)


def _frame_titles(
    model: Model, lr: bool, opts: LayoutOptions
) -> tuple[dict[tuple, float], dict[tuple, float]]:
    """Title widths frames must fit across, and the extra left band of left-right frames."""
    titles = {}
    for _gid, grp in model.groups.items():
        if grp["title"]:
            tw = text_width(grp["title"], 13, "sans-bold")
            titles[grp["path"]] = tw if not lr else 0.0
    for lane in model.lanes:
        if lane["label"]:
            titles[lane["path"]] = text_width(lane["label"], 13, "sans-bold") if not lr else 0.0
    # Left-right frames carry their title on top, which is the left side before the turn.
    bands = (
        {grp["path"]: opts.group_title for grp in model.groups.values() if grp["title"]}
        if lr
        else {}
    )
    return titles, bands


def _acyclic(
    ids: list[str], arcs: list[tuple[str, str, int]], opts: LayoutOptions
) -> list[tuple[str, str, int]]:
    """Group-edge expansion can add cycles; drop the arcs that close one."""
    pairs = [(a, b) for a, b, _ in arcs]
    rev = layered.break_cycles(ids, pairs, opts)
    return [arc for k, arc in enumerate(arcs) if k not in rev and arc[0] != arc[1]]


def _components(ids: list[str], edges: list[tuple[str, str]], model: Model) -> dict[str, int]:
    """Connected component number of each node, in the order of each component's
    earliest node, so disconnected parts are drawn in the order the author wrote them."""
    if model.lanes:
        # Lanes already separate the drawing into bands; components stay inside them.
        return dict.fromkeys(ids, 0)
    # A walk over the links: networkx (a tenth of a second to import) is not needed here.
    links: dict[str, list[str]] = {v: [] for v in ids}

    def join(pairs: Any) -> None:
        for a, b in pairs:
            links[a].append(b)
            links[b].append(a)

    join(edges)
    # Nodes sharing a group stay in one component so frames are not torn apart.
    for grp in model.groups.values():
        members = [n.id for n in model.nodes.values() if n.path[: len(grp["path"])] == grp["path"]]
        join(itertools.pairwise(members))
    order = {v: model.nodes[v].order for v in ids}
    # Walked from the earliest node not yet reached, the parts come out numbered in
    # the order of their earliest nodes.
    number: dict[str, int] = {}
    parts = 0
    for first in sorted(ids, key=order.__getitem__):
        if first in number:
            continue
        number[first] = parts
        todo = [first]
        while todo:
            for w in links[todo.pop()]:
                if w not in number:
                    number[w] = parts
                    todo.append(w)
        parts += 1
    return {v: number[v] for v in ids}


def _own_layers(layer: dict[str, int], comp: dict[str, int]) -> dict[str, int]:
    """Layers numbered one component after another, so no two components share a layer.

    A layer is as high as its tallest item: shared, a short part cut out for packing
    kept the gaps a tall neighbour's rows left in it. Each part is packed as its own
    block anyway, so stacking them here costs nothing.
    """
    if not any(comp.values()):
        # One component (numbered 0), usually already starting at layer 0.
        low = min(layer.values(), default=0)
        return layer if low == 0 else {v: rank - low for v, rank in layer.items()}
    out: dict[str, int] = {}
    parts: dict[int, list[str]] = {}
    for v in layer:
        parts.setdefault(comp[v], []).append(v)
    start = 0
    for c in sorted(parts):
        members = parts[c]
        ranks = [layer[v] for v in members]
        low = min(ranks)
        for v, rank in zip(members, ranks, strict=True):
            out[v] = rank - low + start
        start += max(ranks) - low + 1
    return out


def _loop_label_sizes(ls: list[dict[str, Any]], lr: bool) -> list[tuple[float, float]]:
    """Top-down-frame (w, h) of each self-loop's label, in loop order; labelled loops only."""
    sizes = []
    for e in ls:
        if e["label"]:
            lw, lh = _label_size(e["label"])
            sizes.append((lh, lw) if lr else (lw, lh))
    return sizes


def _assign_y(
    h: layered.Hierarchy,
    order: list[list[int]],
    counts: list[int],
    model: Model,
    lr: bool,
    loop_span: dict[str, float],
    opts: LayoutOptions,
) -> dict[str, Any]:
    items = h.items
    layer_h = _layer_heights(items, order, loop_span)
    span: dict[tuple, list[int]] = {}
    for it in items:
        if not it.path:
            continue
        for d in range(1, len(it.path) + 1):
            key = it.path[:d]
            if key[-1][0] != "group":
                continue
            s = span.setdefault(key, [it.layer, it.layer])
            s[0] = min(s[0], it.layer)
            s[1] = max(s[1], it.layer)
    titled = {grp["path"] for grp in model.groups.values() if grp["title"]}
    # Left-right frames take their width from the layers they span; one too narrow
    # for its title is widened after its last layer, so the title is never cut.
    title_w = {
        grp["path"]: text_width(grp["title"], 13, "sans-bold") + 2 * opts.group_pad
        for grp in model.groups.values()
        if grp["title"] and lr
    }
    widen: dict[tuple, float] = {}
    for _ in range(4):
        frame = _frame_rows(span, titled, widen, layer_h, counts, model, lr, opts)
        if not title_w:
            break  # no title to make room for
        short = {
            key: need - (frame["frames_y"][key][1] - frame["frames_y"][key][0])
            for key, need in title_w.items()
            if key in span
        }
        short = {key: gap for key, gap in short.items() if gap > 0.5}
        if not short:
            break
        for key, gap in short.items():
            widen[key] = widen.get(key, 0.0) + gap
    return frame


def _layer_heights(
    items: list[layered.Item], order: list[list[int]], loop_span: dict[str, float]
) -> list[float]:
    """Each layer's tallest item (the first of equals, as max() gives), a node with a
    self-loop as tall as the loop's span; 0 for an empty layer."""
    layer_h: list[float] = []
    for layer in order:
        tallest = None
        for i in layer:
            it = items[i]
            high = it.h
            if loop_span and it.kind == "node":
                span_h = loop_span.get(it.name, 0.0)
                if span_h > high:
                    high = span_h
            if tallest is None or high > tallest:
                tallest = high
        layer_h.append(0.0 if tallest is None else tallest)
    return layer_h


def _frame_rows(
    span: dict[tuple, list[int]],
    titled: set,
    widen: dict[tuple, float],
    layer_h: list[float],
    counts: list[int],
    model: Model,
    lr: bool,
    opts: LayoutOptions,
) -> dict[str, Any]:
    """Layer tops, track rows and frame extents for given layer heights and frame pads."""
    nl = len(layer_h)
    ext_top: dict[tuple, float] = {}
    ext_bot: dict[tuple, float] = {}
    for key in sorted(span, key=lambda k: (-len(k), str(k))):
        inner_t = max(
            (ext_top[c] for c in ext_top if c[:-1] == key and span[c][0] == span[key][0]),
            default=0.0,
        )
        inner_b = max(
            (ext_bot[c] for c in ext_bot if c[:-1] == key and span[c][1] == span[key][1]),
            default=0.0,
        )
        band = opts.group_title if key in titled and not lr else 0.0
        ext_top[key] = opts.group_pad + band + inner_t
        ext_bot[key] = opts.group_pad + inner_b + widen.get(key, 0.0)
    top_ext = [0.0] * nl
    bot_ext = [0.0] * nl
    for key, (lo, hi) in span.items():
        top_ext[lo] = max(top_ext[lo], ext_top[key])
        bot_ext[hi] = max(bot_ext[hi], ext_bot[key])
    lane_band = opts.lane_header if model.lanes else 0.0
    y = lane_band + top_ext[0] + (opts.group_pad if model.lanes else 0.0)
    layer_top = [0.0] * nl
    track_y0 = [0.0] * nl
    for L in range(nl):
        layer_top[L] = y
        y += layer_h[L]
        if nl - 1 == L:
            break
        y += bot_ext[L]
        n = counts[L] if len(counts) > L else 0
        need = (n + 1) * opts.track_gap
        room = max(opts.layer_gap, need)
        track_y0[L] = y + (room - (n - 1) * opts.track_gap) / 2 if n else y + room / 2
        y += room + top_ext[L + 1]
    y += (bot_ext[nl - 1] if nl else 0.0) + (opts.group_pad if model.lanes else 0.0)
    frames_y = {}
    for key, (lo, hi) in span.items():
        frames_y[key] = (layer_top[lo] - ext_top[key], layer_top[hi] + layer_h[hi] + ext_bot[key])
    return {
        "layer_top": layer_top,
        "layer_h": layer_h,
        "track_y0": track_y0,
        "height": y,
        "frames_y": frames_y,
    }


def _kept_points(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The route without repeated points and without middle points of straight runs,
    unrounded (``_Placer.route`` rounds them as it places them).

    One pass: a point within 1e-6 of the last one kept is dropped; otherwise, when the
    last two kept and it share an x (or a y), it takes the last one's place."""
    out: list[tuple[float, float]] = []
    # (ax, ay) and (bx, by): the last two points kept, once there are that many.
    ax = ay = bx = by = 0.0
    for p in points:
        px, py = p
        if out:
            same_x, same_y = -1e-6 < bx - px < 1e-6, -1e-6 < by - py < 1e-6
            if same_x and same_y:
                continue
            if len(out) >= 2 and (
                (same_x and -1e-6 < ax - bx < 1e-6) or (same_y and -1e-6 < ay - by < 1e-6)
            ):
                out[-1] = p
                bx, by = px, py
                continue
            ax, ay = bx, by
        out.append(p)
        bx, by = px, py
    return out


Box = tuple[float, float, float, float]
LoopRoute = tuple[dict[str, Any], list[tuple[float, float]], Box | None]


@attrs.define
class _Scene:
    """Everything drawn, in the top-down frame before the margin: node boxes, edge routes
    and label boxes by edge, self-loops, frames by container key, lanes, body height."""

    boxes: dict[str, Box]
    routes: dict[int, list[tuple[float, float]]]
    label_boxes: dict[int, Box]
    loop_routes: list[LoopRoute]
    frames: dict[tuple, Box]
    height: float
    lane_rects: list[Box] = attrs.field(factory=list)


def _emit(
    model: Model,
    payload: dict[str, Any],
    laid: _Laid,
    flat: _FlatEdges,
    lr: bool,
    opts: LayoutOptions,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Draw the layout (nodes, edge routes, loops, frames, lanes) then write it out as geo."""
    scene = _draw(model, laid, flat, lr, opts)
    return _write_geo(model, payload, laid, flat, scene, lr)


def _draw(model: Model, laid: _Laid, flat: _FlatEdges, lr: bool, opts: LayoutOptions) -> _Scene:
    boxes = _node_boxes(laid)
    routes, label_boxes = _ChainRouter(model, laid, flat, boxes, lr, opts).route_all()
    for k, (note, state, side) in laid.beside.items():
        # A side note and its state share a layer and its middle: the tie is level.
        sx, sy, sw, sh = boxes[state]
        nx_, _ny, nw, _nh = boxes[note]
        y = sy + sh / 2
        a, b = (sx, nx_ + nw) if side == "left" else (sx + sw, nx_)
        ends = [(a, y), (b, y)]
        routes[k] = ends if flat.pairs[k][0] == state else ends[::-1]
    frames = _frame_rects(laid)
    loop_routes: list[LoopRoute] = []
    if flat.loops:
        around = {gid: frames[g["path"]] for gid, g in model.groups.items() if g["path"] in frames}
        loop_routes = _route_loops(flat.loops, {**boxes, **around}, lr, (routes, boxes))
    scene = _Scene(boxes, routes, label_boxes, loop_routes, frames, laid.frame["height"])
    if not model.lanes:
        packed_h = _pack_components(laid.h, scene, flat, lr, opts)
        if packed_h is not None:
            scene.height = packed_h
    scene.lane_rects = _lane_rects(model, laid.placed.frames_x, scene.height, opts)
    _cut_at_frames(model, flat, scene)
    return scene


def _layer_middle(laid: _Laid, i: int) -> float:
    layer = laid.h.items[i].layer
    return laid.frame["layer_top"][layer] + laid.frame["layer_h"][layer] / 2


def _node_boxes(laid: _Laid) -> dict[str, Box]:
    x = laid.placed.x
    boxes: dict[str, Box] = {}
    for i, it in enumerate(laid.h.items):
        if it.kind == "node":
            boxes[it.name] = (x[i] - it.w / 2, _layer_middle(laid, i) - it.h / 2, it.w, it.h)
    return boxes


@attrs.frozen
class _ChainRouter:
    """Orthogonal routes along the edge chains: out of the upper node, along the tracks
    of each bending segment, into the lower node; label boxes where the chain has one."""

    model: Model
    laid: _Laid
    flat: _FlatEdges
    boxes: dict[str, Box]
    lr: bool
    opts: LayoutOptions
    seg_of: dict[tuple[int, int], int] = attrs.field(init=False)

    @seg_of.default
    def _seg_of(self) -> dict[tuple[int, int], int]:
        return {(k, a): s for s, (a, _b, k) in enumerate(self.laid.h.segments)}

    def route_all(self) -> tuple[dict[int, list[tuple[float, float]]], dict[int, Box]]:
        """Each chain's route and, where the chain has a label, its box (by edge)."""
        h, items, ends, track = self.laid.h, self.laid.h.items, self.laid.ends, self.laid.track
        seg_of, track_y0, gap = self.seg_of, self.laid.frame["track_y0"], self.opts.track_gap
        boxes, meta = self.boxes, self.flat.meta
        routes: dict[int, list[tuple[float, float]]] = {}
        label_boxes: dict[int, Box] = {}
        for k, chain in h.chains.items():
            middle: list[tuple[float, float]] = []
            for a in chain[:-1]:
                s = seg_of[(k, a)]
                if s in track:
                    # The segment bends: it runs across its gap on its track.
                    xa, xb = ends[s]
                    ty = track_y0[items[a].layer] + track[s] * gap
                    middle += ((xa, ty), (xb, ty))
                b = h.segments[s][1]
                if items[b].kind == "label":
                    label_boxes[k] = self._label_box(b)
            # Out where the first segment leaves, in where the last one (``s``) arrives.
            exit_x, entry_x = ends[seg_of[(k, chain[0])]][0], ends[s][1]
            upper, lower = boxes[items[chain[0]].name], boxes[items[chain[-1]].name]
            rev = k in h.reversed
            m = meta[k]
            if m["from_port"] or m["to_port"]:
                pins = _pins_for(self.model, m, self.flat.pairs[k], self.lr)
                pts = _end_path(*upper, exit_x, pins.get("dst" if rev else "src"), upper=True)
                pts += middle
                pts += reversed(
                    _end_path(*lower, entry_x, pins.get("src" if rev else "dst"), upper=False)
                )
            else:
                # No pins: out of the upper box's bottom, into the lower box's top, as
                # ``_end_path`` has it.
                pts = [(exit_x, upper[1] + upper[3]), *middle, (entry_x, lower[1])]
            if rev:
                pts.reverse()
            routes[k] = pts
        return routes, label_boxes

    def _label_box(self, b: int) -> Box:
        it = self.laid.h.items[b]
        gap = self.opts.label_gap
        return (
            self.laid.placed.x[b] - (it.w - gap) / 2,
            _layer_middle(self.laid, b) - it.h / 2,
            it.w - gap,
            it.h,
        )


def _route_loops(
    loops: dict[str, list[dict[str, Any]]],
    boxes: dict[str, Box],
    lr: bool,
    drawn: tuple[Mapping[int, list[tuple[float, float]]], Mapping[str, Box]] | None = None,
) -> list[LoopRoute]:
    """Self-loops on the right side (top-down frame), one inside the other.

    A node's loops have room reserved on its right; a frame's loops have none, so
    they take the side (right, else left) where fewer other wires and nodes (``drawn``:
    routes and node boxes) sit beside the frame.
    """
    loop_routes: list[LoopRoute] = []
    by_box: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for nid, ls in loops.items():
        for e in ls:
            by_box[e.get("frame") or nid].append(e)
    for nid, ls in by_box.items():
        bx, by, bw, bh = boxes[nid]
        sizes = [_loop_label_sizes([e], lr)[0] if e["label"] else (0.0, 0.0) for e in ls]
        reach_all = 14 + 10 * (len(ls) - 1) + 4 + sum(sw + 4 for sw, _ in sizes)
        sign = 1.0
        if any(e.get("frame") for e in ls) and drawn:
            sign = min((1.0, -1.0), key=lambda d: _beside(drawn, boxes[nid], d, reach_all))
        side = bx + bw if sign > 0 else bx
        label_x = side + sign * (14 + 10 * (len(ls) - 1) + 4)
        for j, e in enumerate(ls):
            reach = sign * (14 + 10 * j)
            y1 = by + bh * 0.3 - 4 * j
            y2 = by + bh * 0.7 + 4 * j
            pts = [(side, y1), (side + reach, y1), (side + reach, y2), (side, y2)]
            lab = None
            if e["label"]:
                lw, lhh = sizes[j]
                lab = (label_x if sign > 0 else label_x - lw, (y1 + y2) / 2 - lhh / 2, lw, lhh)
                label_x += sign * (lw + 4)
            loop_routes.append((e, pts, lab))
    return loop_routes


def _beside(
    drawn: tuple[Mapping[int, list[tuple[float, float]]], Mapping[str, Box]],
    box: Box,
    sign: float,
    reach: float,
) -> int:
    """How many wire pieces and nodes lie in the band ``reach`` wide right (``sign`` 1)
    or left (-1) of ``box`` over its height."""
    routes, nodes = drawn
    bx, by, bw, bh = box
    x0, x1 = (bx + bw, bx + bw + reach) if sign > 0 else (bx - reach, bx)
    hits = sum(
        1
        for nx0, ny0, nw, nh in nodes.values()
        if nx0 < x1 and x0 < nx0 + nw and ny0 < by + bh and by < ny0 + nh
    )
    for pts in routes.values():
        for (ax, ay), (cx, cy) in itertools.pairwise(pts):
            if max(ax, cx) > x0 and min(ax, cx) < x1 and max(ay, cy) > by and min(ay, cy) < by + bh:
                hits += 1
    return hits


def _frame_rects(laid: _Laid) -> dict[tuple, Box]:
    frames_x = laid.placed.frames_x
    frames: dict[tuple, Box] = {}
    for key, (fy0, fy1) in laid.frame["frames_y"].items():
        fx0, fx1 = frames_x.get(key, (0.0, 0.0))
        frames[key] = (fx0, fy0, fx1 - fx0, fy1 - fy0)
    return frames


def _lane_rects(
    model: Model, frames_x: dict[tuple, tuple[float, float]], height: float, opts: LayoutOptions
) -> list[Box]:
    """Each lane's band; a lane with nothing in it gets a narrow one after the others."""
    lane_rects: list[Box] = []
    for lane in model.lanes:
        fx0, fx1 = frames_x.get(lane["path"], (None, None))
        if fx0 is None:
            right = max((r[0] + r[2] for r in lane_rects), default=0.0)
            fx0, fx1 = right + opts.lane_gap, right + opts.lane_gap + 120
        lane_rects.append((fx0 - opts.lane_gap / 2 + opts.lane_gap / 2, 0.0, fx1 - fx0, height))
    return lane_rects


def _cut_at_frames(model: Model, flat: _FlatEdges, scene: _Scene) -> None:
    """Edges that end at a group stop at its frame."""
    if not model.groups:
        return  # no group to end at
    routes, frames = scene.routes, scene.frames
    for k, m in enumerate(flat.meta):
        if k not in routes:
            continue
        if m["cut_b"]:
            routes[k] = _cut(routes[k], frames[model.groups[m["cut_b"]]["path"]], at_end=True)
        if m["cut_a"]:
            routes[k] = _cut(routes[k], frames[model.groups[m["cut_a"]]["path"]], at_end=False)


def _extent(scene: _Scene) -> tuple[float, float, float, float]:
    """Left, right, top and bottom of everything drawn, edge labels included (the
    scene's frame, 0 to its height, always is): a label wider than the nodes around it
    would otherwise be cut at the drawing's edge."""
    left = right = top = 0.0
    bottom = scene.height
    # Loops of comparisons: lists of every side to hand to ``min`` and ``max`` cost more.
    # (Which of two equal zeros is kept does not matter: the margin is added to each.)
    for rects in (
        scene.boxes.values(),
        scene.frames.values(),
        scene.lane_rects,
        scene.label_boxes.values(),
        [lab for _, _, lab in scene.loop_routes if lab],
    ):
        for x, y, w, h in rects:
            if x < left:
                left = x
            if x + w > right:
                right = x + w
            if y < top:
                top = y
            if y + h > bottom:
                bottom = y + h
    for points in (*scene.routes.values(), *(pts for _, pts, _ in scene.loop_routes)):
        for x, y in points:
            if x < left:
                left = x
            elif x > right:
                right = x
            if y < top:
                top = y
            elif y > bottom:
                bottom = y
    return left, right, top, bottom


@attrs.frozen
class _Placer:
    """From the scene's top-down frame to geo: margin, header offset, turn for left-right."""

    dx: float
    margin: float
    off_y: float
    lr: bool
    # Whether every shift is a whole number of quarter pixels. Then a coordinate that is
    # one too (nearly all are) moves by sums that are quarters again, which ``_r`` gives
    # back unchanged: the rounding can be skipped for it.
    quarters: bool = attrs.field(init=False)

    @quarters.default
    def _quarters(self) -> bool:
        return (
            (self.dx * 4.0).is_integer()
            and (self.margin * 4.0).is_integer()
            and (self.off_y * 4.0).is_integer()
        )

    def point(self, px: float, py: float) -> list[float]:
        a, b = px + self.dx, py + self.margin
        if self.lr:
            a, b = b, a
        return [_r(a), _r(b + self.off_y)]

    def points(self, pts: Sequence[Sequence[float]]) -> list[list[float]]:
        """``point`` of each (the same sums in the same order)."""
        dx, my, oy, lr, quarters = self.dx, self.margin, self.off_y, self.lr, self.quarters
        out = []
        for px, py in pts:
            if quarters and (px * 4.0).is_integer() and (py * 4.0).is_integer():
                # Sums of quarters: ``_r`` would change nothing (and each sum is past the
                # margin, so never a negative zero).
                out.append([py + my, px + dx + oy] if lr else [px + dx, py + my + oy])
            else:
                out.append(self.point(px, py))
        return out

    def route(self, pts: Sequence[Sequence[float]]) -> list[list[float]]:
        """``points`` of each point's ``_r``: a routed edge's points are rounded in the
        scene's frame before they are placed. A quarter multiple (nearly every point)
        ``_r`` gives back as it is, so only the others are rounded first."""
        return self.points(
            [
                p
                if (p[0] * 4.0).is_integer() and (p[1] * 4.0).is_integer()
                else (_r(p[0]), _r(p[1]))
                for p in pts
            ]
        )

    def box(self, b: Box) -> dict[str, float]:
        bx, by, bw, bh = b
        x, y = bx + self.dx, by + self.margin
        if self.lr:
            x, y, bw, bh = y, x, bh, bw
        y += self.off_y
        if (
            self.quarters
            and (bx * 4.0).is_integer()
            and (by * 4.0).is_integer()
            and (bw * 4.0).is_integer()
            and (bh * 4.0).is_integer()
        ):
            # As in ``points``: quarters all, so ``_r`` would change nothing.
            return {"x": x, "y": y, "w": bw + 0.0, "h": bh + 0.0}
        return {"x": _r(x), "y": _r(y), "w": _r(bw), "h": _r(bh)}


def _write_geo(
    model: Model,
    payload: dict[str, Any],
    laid: _Laid,
    flat: _FlatEdges,
    scene: _Scene,
    lr: bool,
) -> tuple[dict[str, Any], dict[str, Any]]:
    min_x, max_x, min_y, max_y = _extent(scene)
    margin = 16.0
    body_w, body_h = (max_x - min_x + 2 * margin), max_y - min_y + 2 * margin
    if lr:
        body_w, body_h = body_h, body_w
    header = _header(payload, body_w)
    put = _Placer(margin - min_x, margin - min_y, header["h"] if header else 0.0, lr)
    geo: dict[str, Any] = {"dir": model.dir}
    geo["nodes"] = {nid: put.box(scene.boxes[nid]) for nid in model.nodes}
    geo["groups"] = {
        gid: put.box(scene.frames[grp["path"]])
        for gid, grp in model.groups.items()
        if grp["path"] in scene.frames
    }
    geo["lanes"] = [
        {"label": lane["label"], **put.box(rect)}
        for lane, rect in zip(model.lanes, scene.lane_rects, strict=False)
    ]
    geo["edges"] = _write_edges(flat, scene, put)
    tidy_wires(geo, {nid: n.shape for nid, n in model.nodes.items()}, lr)
    geo["ports"] = _write_ports(model, geo["nodes"])
    _footer(geo, payload, header, body_w, body_h)
    metrics = _measure(geo)
    metrics["layers"] = len(laid.order)
    metrics["reversedEdges"] = len(laid.h.reversed)
    return geo, metrics


def _write_edges(flat: _FlatEdges, scene: _Scene, put: _Placer) -> list[dict[str, Any]]:
    """Routed edges, then self-loops, in payload order."""
    geo_edges = []
    routes, label_boxes = scene.routes, scene.label_boxes
    for k, m in enumerate(flat.meta):
        if k in routes:
            pts = put.route(_kept_points(routes[k]))
            geo_edges.append(_edge_entry(m, pts, label_boxes.get(k), put))
    for e, route, lab in scene.loop_routes:
        geo_edges.append(_edge_entry(e, put.points(route), lab, put, loop=True))
    geo_edges.sort(key=operator.itemgetter("index"))
    return geo_edges


def _edge_entry(
    e: dict[str, Any],
    pts: list[list[float]],
    lab: Box | None,
    put: _Placer,
    loop: bool = False,
) -> dict[str, Any]:
    """One geo edge: ``pts`` already placed, ``lab`` (a label box) in the scene's frame."""
    entry: dict[str, Any] = {
        "from": e["ref_from"],
        "to": e["ref_to"],
        "index": e["index"],
        "style": e["style"],
    }
    if loop:
        entry["loop"] = True
    entry["points"] = pts
    if lab:
        entry["label"] = {**put.box(lab), "text": e["label"]}
    return entry


def _write_ports(model: Model, geo_nodes: dict[str, Any]) -> dict[str, Any]:
    ports = {}
    for nid, node in model.nodes.items():
        if node.ports:
            b = geo_nodes[nid]
            ports[nid] = {pid: _port_point(b, side, t) for pid, (side, t) in node.ports.items()}
    return ports


@attrs.frozen
class _Components:
    """Which component each drawn thing belongs to: nodes by name, self-loops by the
    identity of their edge dict, frames by container key."""

    node: dict[str, int]
    loop: dict[int, int]
    frame: dict[tuple, int]


def _pack_components(
    h: layered.Hierarchy, scene: _Scene, flat: _FlatEdges, lr: bool, opts: LayoutOptions
) -> float | None:
    """Shelf-pack the connected components (in place, top-down frame).

    Components are cut out of the joint layout as rigid blocks (boxes,
    routes, labels, frames) and packed tallest first by the board's shelf
    packer (:func:`layoutkit.layout.modes.shelf_pack`), aiming at
    ``opts.pack_aspect``. Returns the new body height, or None when there
    is a single component.
    """
    comp = {it.name: it.comp for it in h.items if it.kind == "node"}
    if len(set(comp.values())) < 2:
        return None
    frame_comp: dict[tuple, int] = {}
    for it in h.items:
        if it.kind == "node":
            for d in range(1, len(it.path) + 1):
                frame_comp.setdefault(it.path[:d], it.comp)
    of = _Components(
        comp, {id(e): comp[nid] for nid, ls in flat.loops.items() for e in ls}, frame_comp
    )
    bbox = _component_bboxes(scene, flat, of)
    shift = _packed_shifts(bbox, lr, opts)
    _shift_components(scene, flat, of, shift)
    return max(b[3] + shift[c][1] for c, b in bbox.items())


def _component_bboxes(scene: _Scene, flat: _FlatEdges, of: _Components) -> dict[int, list[float]]:
    """[x0, y0, x1, y1] of each component's boxes, routes, labels, loops and frames."""
    inf = float("inf")
    bbox: dict[int, list[float]] = {}

    def grow(c: int, x0: float, y0: float, x1: float, y1: float) -> None:
        b = bbox.setdefault(c, [inf, inf, -inf, -inf])
        b[0], b[1] = min(b[0], x0), min(b[1], y0)
        b[2], b[3] = max(b[2], x1), max(b[3], y1)

    for name, (x, y, w, hh) in scene.boxes.items():
        grow(of.node[name], x, y, x + w, y + hh)
    for k, pts in scene.routes.items():
        c = of.node[flat.pairs[k][0]]
        for px, py in pts:
            grow(c, px, py, px, py)
        if k in scene.label_boxes:
            x, y, w, hh = scene.label_boxes[k]
            grow(c, x, y, x + w, y + hh)
    for e, pts, lab in scene.loop_routes:
        c = of.loop[id(e)]
        for px, py in pts:
            grow(c, px, py, px, py)
        if lab:
            grow(c, lab[0], lab[1], lab[0] + lab[2], lab[1] + lab[3])
    for key, (x, y, w, hh) in scene.frames.items():
        if key in of.frame:
            grow(of.frame[key], x, y, x + w, y + hh)
    return bbox


def _packed_shifts(
    bbox: dict[int, list[float]], lr: bool, opts: LayoutOptions
) -> dict[int, tuple[float, float]]:
    """How far each component moves to its place in the shelf packing."""
    top = min(b[1] for b in bbox.values())
    left = min(b[0] for b in bbox.values())
    # Components are numbered in source order: the reader meets them as written.
    ranked = sorted(bbox)
    blocks = [PackItem(c, bbox[c][2] - bbox[c][0], bbox[c][3] - bbox[c][1]) for c in ranked]
    aim = 1 / opts.pack_aspect if lr else opts.pack_aspect
    at, _, _ = shelf_pack(blocks, opts.component_gap, aim)
    return {
        c: (left + x - bbox[c][0], top + y - bbox[c][1])
        for c, (x, y) in zip(ranked, at, strict=True)
    }


def _shift_components(
    scene: _Scene, flat: _FlatEdges, of: _Components, shift: dict[int, tuple[float, float]]
) -> None:
    boxes, routes, label_boxes = scene.boxes, scene.routes, scene.label_boxes
    for name, (bx, by, w, hh) in list(boxes.items()):
        dx, dy = shift[of.node[name]]
        boxes[name] = (bx + dx, by + dy, w, hh)
    for k, pts in routes.items():
        dx, dy = shift[of.node[flat.pairs[k][0]]]
        routes[k] = [(px + dx, py + dy) for px, py in pts]
        if k in label_boxes:
            lx, ly, w, hh = label_boxes[k]
            label_boxes[k] = (lx + dx, ly + dy, w, hh)
    for j, (e, pts, lab) in enumerate(scene.loop_routes):
        dx, dy = shift[of.loop[id(e)]]
        moved = [(px + dx, py + dy) for px, py in pts]
        lab2 = (lab[0] + dx, lab[1] + dy, lab[2], lab[3]) if lab else None
        scene.loop_routes[j] = (e, moved, lab2)
    for key, (fx, fy, w, hh) in list(scene.frames.items()):
        if key in of.frame:
            dx, dy = shift[of.frame[key]]
            scene.frames[key] = (fx + dx, fy + dy, w, hh)


def _port_point(b: dict[str, float], side: str, t: float) -> dict[str, float]:
    if side == "top":
        return {"x": _r(b["x"] + t * b["w"]), "y": b["y"], "side": side}  # type: ignore[dict-item]
    if side == "bottom":
        return {"x": _r(b["x"] + t * b["w"]), "y": _r(b["y"] + b["h"]), "side": side}  # type: ignore[dict-item]
    if side == "left":
        return {"x": b["x"], "y": _r(b["y"] + t * b["h"]), "side": side}  # type: ignore[dict-item]
    return {"x": _r(b["x"] + b["w"]), "y": _r(b["y"] + t * b["h"]), "side": side}  # type: ignore[dict-item]


def _pins_for(
    model: Model, m: dict[str, Any], pair: tuple[str, str], lr: bool
) -> dict[str, tuple[str, float]]:
    pins = {}
    for end, nid, port in (("src", pair[0], m["from_port"]), ("dst", pair[1], m["to_port"])):
        if port:
            side, t = model.nodes[nid].ports[port]
            pins[end] = (_LR_SIDE[side] if lr else side, t)
    return pins


def _end_path(bx, by, bw, bh, exit_x, pin, upper: bool) -> list[tuple[float, float]]:
    """Points from an edge end on the node to where it leaves on the natural side (in order)."""
    out_y = by + bh if upper else by
    if pin is None:
        return [(exit_x, out_y)]
    side, t = pin
    natural = "bottom" if upper else "top"
    if side == natural:
        return [(exit_x, out_y)]
    if side in ("left", "right"):
        py = by + t * bh
        wall = bx if side == "left" else bx + bw
        return [(wall, py), (exit_x, py)]
    far_y = by if upper else by + bh
    px = bx + t * bw
    step = -placement.STUB if upper else placement.STUB
    return [(px, far_y), (px, far_y + step), (exit_x, far_y + step)]


def _cut(
    pts: list[tuple[float, float]], rect: tuple[float, float, float, float], at_end: bool
) -> list[tuple[float, float]]:
    x0, y0, w, h = rect
    x1, y1 = x0 + w, y0 + h

    def inside(p: tuple[float, float]) -> bool:
        return x0 < p[0] < x1 and y0 < p[1] < y1

    seq = pts if at_end else list(reversed(pts))
    for j in range(1, len(seq)):
        if inside(seq[j]) and not inside(seq[j - 1]):
            (ax, ay), (bx, _by) = seq[j - 1], seq[j]
            if abs(ax - bx) < 1e-9:
                cyv = y0 if ay < y0 else y1
                hit = (ax, cyv)
            else:
                cxv = x0 if ax < x0 else x1
                hit = (cxv, ay)
            res = [*seq[:j], hit]
            return res if at_end else list(reversed(res))
    return pts


def _header(payload: dict[str, Any], width: float) -> dict[str, Any] | None:
    parts = []
    y = 16.0
    for key, size, font in (
        ("kicker", 12, "sans-bold"),
        ("title", 20, "sans-bold"),
        ("subtitle", 14, "sans"),
    ):
        text = payload.get(key)
        if key == "title" and payload.get("showTitle") is False:
            continue
        if isinstance(text, str) and text:
            block = measure(text, max(200.0, width - 32), size, font)  # type: ignore[arg-type]
            parts.append(
                {"key": key, "x": 16.0, "y": _r(y), "w": _r(block.width), "h": _r(block.height)}
            )
            y += block.height + 4
    if not parts:
        return None
    return {"x": 0.0, "y": 0.0, "w": _r(width), "h": _r(y + 8), "parts": parts}


def _footer(
    geo: dict[str, Any], payload: dict[str, Any], header: dict | None, body_w: float, body_h: float
) -> None:
    y = (header["h"] if header else 0.0) + body_h
    width = body_w
    if header:
        geo["header"] = header
    legend = [x for x in payload.get("legend") or [] if isinstance(x, dict)]
    if legend:
        row = sum(text_width(str(x.get("label", "")), 12) + 60 for x in legend)
        lines = max(1, int(row // max(200.0, width - 32)) + 1)
        geo["legend"] = {
            "x": 16.0,
            "y": _r(y),
            "w": _r(min(row, width - 32)),
            "h": _r(22.0 * lines),
        }
        y += 22.0 * lines + 8
    stats = [x for x in payload.get("stats") or [] if isinstance(x, dict)]
    if stats:
        cell = (
            max(
                max(
                    text_width(str(s.get("value", "")), 20, "sans-bold"),
                    text_width(str(s.get("label", "")), 12),
                )
                for s in stats
            )
            + 24
        )
        geo["stats"] = {
            "x": 16.0,
            "y": _r(y),
            "w": _r(cell * len(stats)),
            "h": 56.0,
            "cell": _r(cell),
        }
        width = max(width, cell * len(stats) + 32)
        y += 64.0
    for key in ("caption", "footer"):
        text = payload.get(key)
        if isinstance(text, str) and text:
            block = measure(text, max(200.0, width - 32), 12)
            geo[key] = {"x": 16.0, "y": _r(y), "w": _r(block.width), "h": _r(block.height)}
            y += block.height + 6
    # Text wraps at no less than 200 px, so a small diagram (or an empty one) is
    # widened to its title and captions rather than letting them run off the card.
    texts = [
        *(header["parts"] if header else []),
        *(geo[k] for k in ("caption", "footer") if k in geo),
    ]
    width = max([width, *(t["x"] + t["w"] + 16.0 for t in texts)])
    if header:
        header["w"] = _r(width)
    geo["width"] = _r(width)
    geo["height"] = _r(y)


def _measure(geo: dict[str, Any]) -> dict[str, Any]:
    bends = 0
    length = 0.0
    for e in geo["edges"]:
        pts = e["points"]
        if len(pts) > 2:  # (a test, not ``max(0, ...)``: cheaper per edge)
            bends += len(pts) - 2
        length += sum(
            [abs(ax - bx) + abs(ay - by) for (ax, ay), (bx, by) in itertools.pairwise(pts)]
        )
    return {
        "crossings": count_crossings_orth(geo["edges"]),
        "bends": bends,
        "edgeLength": _r(length),
        "area": _r(geo["width"] * geo["height"]),
        "width": geo["width"],
        "height": geo["height"],
        "nodes": len(geo["nodes"]),
        "edges": len(geo["edges"]),
    }


def _apply_overrides(
    geo: dict[str, Any], overrides: dict[str, Any], model: Model, opts: LayoutOptions
) -> None:
    """Move overridden nodes to their top-left corner, re-route their edges, grow frames."""
    moved = _move_overridden(geo, overrides, model)
    if not moved:
        return
    for e in geo["edges"]:
        _reroute_if_moved(e, geo["nodes"], moved, model.dir == "LR")
    _grow_frames(geo, model, opts)
    right = max([b["x"] + b["w"] for b in geo["nodes"].values()] + [geo["width"]])
    bottom = max([b["y"] + b["h"] for b in geo["nodes"].values()] + [geo["height"]])
    geo["width"], geo["height"] = _r(right + 16), _r(bottom + 16)
    geo["overridden"] = sorted(moved)


def _override_ignored(model: Model, nid: str, message: str) -> None:
    model.repairs.append({"path": f"overrides.{nid}", "action": "ignored", "message": message})


def _move_overridden(geo: dict[str, Any], overrides: dict[str, Any], model: Model) -> set[str]:
    """Put each overridden node at its corner; the ids of those moved.

    A node is kept clear of the header and of the left and top edges: dropped over
    the title, it would hide it (and a face draws nothing above or left of the geo).
    """
    moved = set()
    head = geo.get("header") if isinstance(geo.get("header"), dict) else None
    top = head["y"] + head["h"] + 8 if head else 0.0
    for nid, pos in overrides.items():
        box = geo["nodes"].get(nid)
        if box is None or not isinstance(pos, dict):
            _override_ignored(model, nid, "override of an unknown node ignored")
            continue
        try:
            box["x"], box["y"] = _r(max(pos["x"], 0.0)), _r(max(pos["y"], top))
        except (KeyError, TypeError, ValueError):
            _override_ignored(model, nid, "override needs numeric x and y")
            continue
        moved.add(nid)
    return moved


def _reroute_if_moved(e: dict[str, Any], nodes: dict[str, Any], moved: set[str], lr: bool) -> None:
    """A plain route for an edge with a moved end (``node.port`` ends count as the node)."""
    a = str(e["from"]).split(".")[0] if e["from"] not in nodes else e["from"]
    b = str(e["to"]).split(".")[0] if e["to"] not in nodes else e["to"]
    if a not in moved and b not in moved:
        return
    ba, bb = nodes.get(a), nodes.get(b)
    if ba is None or bb is None:
        return
    e.pop("slant", None)  # the mark was for the route the layout drew
    if a == b:
        r = ba["x"] + ba["w"]
        e["points"] = [
            [r, ba["y"] + ba["h"] * 0.3],
            [r + 14, ba["y"] + ba["h"] * 0.3],
            [r + 14, ba["y"] + ba["h"] * 0.7],
            [r, ba["y"] + ba["h"] * 0.7],
        ]
        return
    others = [box for nid, box in nodes.items() if nid not in (a, b)]
    e["points"] = _elbow(ba, bb, lr, others)
    if "label" in e:
        pts = e["points"]
        e["label"]["x"] = _r((pts[1][0] + pts[2][0]) / 2 + 6)
        e["label"]["y"] = _r((pts[1][1] + pts[2][1]) / 2 + 4)


def _elbow(
    ba: dict[str, Any], bb: dict[str, Any], lr: bool, others: list[dict[str, Any]] | None = None
) -> list[list[float]]:
    """Out of a side of ``ba``, across at the middle, into the facing side of ``bb``.

    A moved node may sit anywhere, above or left of the other end too: the route
    leaves by the side facing the other node, across or along the flow, whichever
    passes through fewer of the ``others`` (then the one along the flow), so wires
    go round the nodes rather than through them.
    """
    options = [_across(ba, bb, horizontal=lr), _across(ba, bb, horizontal=not lr)]
    facing = [_gap(ba, bb, horizontal=lr) >= 0, _gap(ba, bb, horizontal=not lr) >= 0]
    best = min(
        range(2), key=lambda i: (_through(options[i], [*(others or []), ba, bb]), not facing[i], i)
    )
    return options[best]


def _gap(ba: dict[str, Any], bb: dict[str, Any], *, horizontal: bool) -> float:
    """Room between the two boxes along one axis (negative when they overlap on it)."""
    x, w = ("x", "w") if horizontal else ("y", "h")
    return max(bb[x] - (ba[x] + ba[w]), ba[x] - (bb[x] + bb[w]))


def _across(ba: dict[str, Any], bb: dict[str, Any], *, horizontal: bool) -> list[list[float]]:
    """An elbow between the facing sides of the boxes along one axis."""
    x, w, y, h = ("x", "w", "y", "h") if horizontal else ("y", "h", "x", "w")
    forward = bb[x] + bb[w] / 2 >= ba[x] + ba[w] / 2
    s0 = ba[x] + ba[w] if forward else ba[x]
    t0 = bb[x] if forward else bb[x] + bb[w]
    s1, t1 = ba[y] + ba[h] / 2, bb[y] + bb[h] / 2
    m = _r((s0 + t0) / 2)
    pts = [[_r(s0), _r(s1)], [m, _r(s1)], [m, _r(t1)], [_r(t0), _r(t1)]]
    return pts if horizontal else [[q, p] for p, q in pts]


def _through(points: list[list[float]], boxes: list[dict[str, Any]]) -> int:
    """How many boxes the route's segments pass through (touching a side is not through)."""
    hits = 0
    for box in boxes:
        x0, y0, x1, y1 = (
            box["x"] + 1,
            box["y"] + 1,
            box["x"] + box["w"] - 1,
            box["y"] + box["h"] - 1,
        )
        for (ax, ay), (bx, by) in itertools.pairwise(points):
            if max(ax, bx) > x0 and min(ax, bx) < x1 and max(ay, by) > y0 and min(ay, by) < y1:
                hits += 1
                break
    return hits


def _grow_frames(geo: dict[str, Any], model: Model, opts: LayoutOptions) -> None:
    """Grow every group frame, innermost first, around its members' boxes."""
    for gid, grp in sorted(model.groups.items(), key=lambda kv: -len(kv[1]["path"])):
        frame = geo["groups"].get(gid)
        if frame is None:
            continue
        members = [
            geo["nodes"][n.id]
            for n in model.nodes.values()
            if n.path[: len(grp["path"])] == grp["path"]
        ]
        members += [
            geo["groups"][c]
            for c, cg in model.groups.items()
            if cg["path"][:-1] == grp["path"] and c in geo["groups"]
        ]
        for b in members:
            x0 = min(frame["x"], b["x"] - opts.group_pad)
            y0 = min(frame["y"], b["y"] - opts.group_pad - opts.group_title)
            x1 = max(frame["x"] + frame["w"], b["x"] + b["w"] + opts.group_pad)
            y1 = max(frame["y"] + frame["h"], b["y"] + b["h"] + opts.group_pad)
            frame.update(x=_r(x0), y=_r(y0), w=_r(x1 - x0), h=_r(y1 - y0))
