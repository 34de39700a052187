"""Diagrams drawn from their server-owned ``geo``.

The header (kicker, title, subtitle), the stats strip, the legend, the footer
and the caption wrap the geo area; the geo area is scaled to fit the card, or
drawn 1:1 when the diagram is rendered on its own. A diagram stored through the
service always has its geo; one written by hand and rendered directly is laid
out here first (:func:`with_geo`).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import attrs

from layoutkit import diagram
from layoutkit.diagram.labels import (
    BODY_GAP,
    BODY_SIZE,
    EDGE_LABEL_PAD_X,
    EDGE_LABEL_SIZE,
    ICON_W,
    NO_TEXT,
    PAD_Y,
    PICTURE_GAP,
    PICTURE_NAME_SIZE,
    TITLE_SIZE,
    Label,
    PictureBlock,
    display_text,
    edge_label_lines,
    edge_label_size,
    picture_block,
    runs_width,
    text_box,
    text_runs,
    title_runs,
)
from layoutkit.diagram.model import containers
from layoutkit.diagram.overrides import relabelled
from layoutkit.diagram.tidy import SLANT_STUB
from layoutkit.formatting import as_number
from layoutkit.layout.blocks import plain_inline
from layoutkit.layout.sizing import (
    DIAGRAM_ENGINE_BOXES,
    DIAGRAM_INSET,
    DIAGRAM_LEGEND_H,
    diagram_caption_height,
    diagram_engine_made,
    diagram_title,
)
from layoutkit.layout.text import line_height, text_width
from layoutkit.render._face_sequence import css_colour, sequence_items
from layoutkit.render._icons import icon_glyph, pictogram
from layoutkit.render._images import image_href
from layoutkit.render._palette import CARD, FG, LINE, METHOD_COLORS, MUTED, SOFT, tone
from layoutkit.render._scene import (
    Box,
    Ellipse,
    Image,
    Item,
    NodeMark,
    Path,
    Scene,
    Text,
    arrowhead,
    fit_line,
    text_run,
)
from layoutkit.render._shapes import outline, shape_items

EDGE_COLOR = "#5f6878"

# The old name of the shape drawer, which ``_faces.shape_outline`` still imports from here.
_shape_items = shape_items


_CONTENT = ("nodes", "groups", "lanes")


def with_geo(payload: dict) -> dict:
    """``payload`` itself when it has a ``geo``, else the diagram engine's layout of it.

    Without this a diagram that never went through the write path (a document
    rendered straight from its JSON) would draw as an empty box. The quality
    tier is a write-time gate, not a drawing concern, so it is left out. Raises
    the diagram engine's error for diagram text it cannot read.
    """
    if isinstance(payload.get("geo"), dict):
        return payload
    has_text = isinstance(payload.get("diagram_text"), str)
    if not has_text and not any(payload.get(key) for key in _CONTENT):
        return payload
    return diagram.lay_out({k: v for k, v in payload.items() if k != "quality"})


def _collect_nodes(payload: dict) -> dict[str, dict]:
    """The node specs by id, with the labels a person typed over them (overrides)."""
    found: dict[str, dict] = {}
    for _, holder in containers(relabelled(payload, payload.get("overrides"))):
        for node in holder.get("nodes") or []:
            if isinstance(node, dict):
                key = str(node.get("id") or node.get("title") or "")
                if key:
                    found.setdefault(key, node)
    return found


def _collect_groups(payload: dict) -> dict[str, dict]:
    found: dict[str, dict] = {}
    for holder, group in containers(payload):
        if holder == "group":
            key = str(group.get("id") or group.get("title") or "")
            if key:
                found.setdefault(key, group)
    return found


def _box(rect: Any) -> tuple[float, float, float, float] | None:
    if not isinstance(rect, dict):
        return None
    vals = [as_number(rect.get(k)) for k in ("x", "y", "w", "h")]
    if any(v is None for v in vals):
        return None
    return vals[0], vals[1], vals[2], vals[3]  # type: ignore[return-value]


class _Frame:
    """Maps geo coordinates into the scene: offset plus uniform scale."""

    def __init__(self, ox: float, oy: float, k: float) -> None:
        self.ox, self.oy, self.k = ox, oy, k

    def pt(self, x: float, y: float) -> tuple[float, float]:
        return self.ox + x * self.k, self.oy + y * self.k

    def rect(self, r: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        x, y = self.pt(r[0], r[1])
        return x, y, r[2] * self.k, r[3] * self.k


@attrs.frozen
class _Node:
    """One node to draw: its spec, its box in the scene, the scale and its tone."""

    spec: dict
    kind: Any
    x: float
    y: float
    w: float
    h: float
    k: float
    ink: str
    wash: str
    text: str = FG
    stroke_width: float | None = None
    italic: bool = False

    @property
    def pad(self) -> float:
        return 8 * self.k

    @property
    def title(self) -> str:
        return str(self.spec.get("title") or self.spec.get("id") or "")


def _node_items(node: dict, rect: tuple[float, float, float, float], k: float) -> list[Item]:
    ink, wash = tone(node.get("tone"))
    kind = node.get("type") or "box"
    paint = node.get("paint") if isinstance(node.get("paint"), dict) else {}
    wash = _own_colour(paint.get("fill"), None, 1.0) or wash
    ink = _own_colour(paint.get("stroke"), wash, 1.5) or ink
    text = _own_colour(paint.get("color"), wash, 3.0) or _readable_on(wash)
    width = as_number(paint.get("strokeWidth"))
    italic = paint.get("fontStyle") == "italic"
    n = _Node(node, kind, *rect, k, ink, wash, text, width, italic)
    pic = picture_block(node) if kind == "box" else None
    # A malformed (unhashable) type is drawn like any unknown one: as its shape.
    draw = _NODE_KINDS.get(kind) if isinstance(kind, str) else None
    items = _picture_node(n, pic) if pic is not None else (draw or _shaped_node)(n)
    dash = paint_dash(paint, k)
    if width is not None or dash:
        # The author's outline width and dashes, on the parts drawn in the outline colour.
        own = {"width": min(width, 8.0) * k} if width is not None else {}
        if dash:
            own["dash"] = dash
        items = [
            attrs.evolve(i, **own)
            if getattr(i, "stroke", None) == ink and hasattr(i, "dash")
            else i
            for i in items
        ]
    return items


#: The longest dash or gap drawn, in px: a longer one would leave a side of a node blank.
MAX_DASH = 40.0


def paint_dash(paint: dict, k: float) -> tuple[float, ...] | None:
    """The author's ``strokeDasharray`` at scale ``k``, or None for a solid line.

    Each length is held to 0.5..``MAX_DASH`` px; a list that is not numbers draws solid.
    """
    raw = paint.get("strokeDasharray")
    if not isinstance(raw, list) or not raw:
        return None
    lengths = [as_number(v) for v in raw[:8]]
    read = [v for v in lengths if v is not None and v >= 0]
    if len(read) < len(lengths) or not sum(read):
        return None
    return tuple(min(max(v, 0.5), MAX_DASH) * k for v in read)


def _luminance(hex_colour: str) -> float:
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def _contrast(a: str, b: str) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _own_colour(value: Any, against: str | None, minimum: float) -> str | None:
    """An author's CSS colour as #rrggbb, or None when there is none, it is faint or it
    would not stand out from ``against`` by the ``minimum`` contrast ratio (then the
    palette's colour is drawn instead)."""
    got = css_colour(value) if isinstance(value, str) else None
    if got is None or got[1] < 0.5:
        return None
    colour = got[0]
    if against is not None and _contrast(colour, against) < minimum:
        return None
    return colour


def _readable_on(fill: str) -> str:
    """The palette's text colour, or white on a fill too dark for it."""
    return FG if _contrast(FG, fill) >= 3.0 else CARD


def _note_node(n: _Node) -> list[Item]:
    x, y, w, h, k, pad = n.x, n.y, n.w, n.h, n.k, n.pad
    fold = min(12 * k, h / 3)
    pts = ((x, y), (x + w - fold, y), (x + w, y + fold), (x + w, y + h), (x, y + h))
    body = "\n" + str(n.spec["body"]) if n.spec.get("body") else ""
    return [
        Path(pts, stroke="#d9b84a", width=1.0 * k, closed=True, fill="#fff6cc"),
        text_run(
            x + pad,
            y + pad,
            n.title + body,
            w - 2 * pad,
            size=12 * k,
            fill=FG,
            max_lines=max(int((h - pad) // line_height(12 * k)), 1),
        ),
    ]


def _entity_node(n: _Node) -> list[Item]:
    """A table: a title band over one row per column (name left, type right)."""
    x, y, w, k, pad = n.x, n.y, n.w, n.k, n.pad
    fs = 13 * k
    band = 26 * k
    band_fill = n.wash if n.spec.get("tone") else "#eef2f8"
    items: list[Item] = [
        Box(x, y, w, n.h, fill=CARD, stroke=n.ink, width=1.2 * k, radius=4 * k),
        Box(x, y, w, band, fill=band_fill, stroke=n.ink, width=1.2 * k, radius=4 * k),
        Text(
            x + pad,
            y + (band - line_height(fs)) / 2,
            (fit_line(n.title, w - 2 * pad, fs, "sans-bold"),),
            fs,
            "sans-bold",
            FG,
        ),
    ]
    row_h = line_height(12 * k) + 2 * k
    cy = y + band + 2 * k
    for col in n.spec.get("columns") or []:
        # Rows that would spill out of the box are left out.
        if not isinstance(col, dict) or cy + row_h > y + n.h + 0.5:
            continue
        items.extend(_column_items(n, col, cy))
        cy += row_h
    return items


def _column_items(n: _Node, col: dict, cy: float) -> list[Item]:
    k, pad = n.k, n.pad
    mark = "PK " if col.get("pk") else "FK " if col.get("fk") else ""
    name = f"{mark}{col.get('name', '')}" + ("?" if col.get("nullable") else "")
    kind = str(col.get("type") or "")
    # The engine sizes the box to hold name and type whole (diagram.model.size_node), so
    # each takes the width it needs; only a box narrower than that (a pinned size)
    # shares its room in proportion and cuts both.
    name_w = text_width(name, 12 * k, "mono")
    type_w = text_width(kind, 11 * k, "mono") if kind else 0.0
    room = n.w - 2 * pad - (8 * k if kind else 0.0)
    share = min(1.0, room / (name_w + type_w)) if name_w + type_w > 0 else 1.0
    name_fit = fit_line(name, name_w * share + 0.5, 12 * k, "mono")
    items: list[Item] = [Text(n.x + pad, cy, (name_fit,), 12 * k, "mono", n.ink if mark else FG)]
    if kind:
        type_fit = fit_line(kind, type_w * share + 0.5, 11 * k, "mono")
        items.append(Text(n.x + n.w - pad, cy, (type_fit,), 11 * k, "mono", MUTED, 0.0, "end"))
    return items


def _service_node(n: _Node) -> list[Item]:
    """Up to two offset copies behind the box stand for the service's replicas."""
    k = n.k
    replicas = int(as_number(n.spec.get("replicas")) or 1)
    shadows: list[Item] = [
        Box(
            n.x + 4 * k * r,
            n.y - 4 * k * r,
            n.w,
            n.h,
            fill=CARD,
            stroke=n.ink,
            width=0.8 * k,
            radius=6 * k,
        )
        for r in range(min(max(replicas - 1, 0), 2), 0, -1)
    ]
    return shadows + _shaped_node(n)


def _shaped_node(n: _Node) -> list[Item]:
    shape = str(n.spec.get("shape") or "rect")
    items = shape_items(shape, n.x, n.y, n.w, n.h, n.wash, n.ink, n.k)
    if shape in NO_TEXT:
        return items
    if n.kind == "endpoint":
        return items + _endpoint_text(n)
    return items + _label_items(n, shape)


_NODE_KINDS = {
    "note": _note_node,
    "entity": _entity_node,
    "service": _service_node,
}


# --------------------------------------------------------------------------- endpoint nodes


def _endpoint_text(n: _Node) -> list[Item]:
    """Method badge and path, the title under them when it differs, then the status codes."""
    k, pad, title = n.k, n.pad, n.title
    cy = n.y + pad
    left = n.x + pad
    items, path_x = _method_badge(n, left, cy)
    path = str(n.spec.get("path") or title)
    path_fit = fit_line(path, n.x + n.w - pad - path_x, 12 * k, "mono")
    items.append(Text(path_x, cy, (path_fit,), 12 * k, "mono", FG))
    cy += 22 * k
    if n.spec.get("path") and title and title != path:
        items.append(
            Text(left, cy, (fit_line(title, n.w - 2 * pad, 11 * k),), 11 * k, "sans", MUTED)
        )
        cy += line_height(11 * k)
    return items + _status_codes(n, left, cy)


def _method_badge(n: _Node, left: float, cy: float) -> tuple[list[Item], float]:
    """The HTTP method's badge at ``left``, and where the path goes after it."""
    k = n.k
    method = str(n.spec.get("method") or "").upper()
    if not method:
        return [], left
    mw = text_width(method, 11 * k, "sans-bold") + 10 * k
    badge = Box(left, cy, mw, 18 * k, fill=METHOD_COLORS.get(method, MUTED), radius=3 * k)
    label = Text(
        left + 5 * k,
        cy + (18 * k - line_height(11 * k)) / 2,
        (method,),
        11 * k,
        "sans-bold",
        "#ffffff",
    )
    return [badge, label], left + mw + 6 * k


def _status_codes(n: _Node, left: float, cy: float) -> list[Item]:
    """Up to eight status-code pills in a row, coloured by class, as many as fit."""
    k = n.k
    items: list[Item] = []
    codes = [c for c in n.spec.get("codes") or [] if isinstance(c, (int, float))]
    cx = left
    for code in codes[:8]:
        label = str(int(code))
        cw = text_width(label, 10 * k, "mono") + 8 * k
        color = "#1f8a4c" if code < 300 else "#b7791f" if code < 500 else "#c92a2a"
        if cx + cw > n.x + n.w - n.pad:
            break
        items.append(Box(cx, cy, cw, 15 * k, fill=None, stroke=color, width=0.8 * k, radius=7 * k))
        items.append(
            Text(
                cx + 4 * k,
                cy + (15 * k - line_height(10 * k)) / 2,
                (label,),
                10 * k,
                "mono",
                color,
            )
        )
        cx += cw + 4 * k
    return items


# --------------------------------------------------------------------------- node labels


@attrs.frozen
class _LabelSpot:
    """Where a node's label block goes: its left edge, width and whether it is centred.

    Rows under the text (service facts, chips) need the block at the top and
    left-aligned; otherwise it is centred where the layout put it.
    """

    left: float
    top: float
    width: float
    centred: bool


def _label_spot(n: _Node, block: tuple[float, float, float, float]) -> _LabelSpot:
    bx, by, bw, _bh = block
    extras = n.kind == "service" or n.spec.get("tag") or n.spec.get("chips")
    if extras:
        by = PAD_Y
    return _LabelSpot(n.x + bx * n.k, n.y + by * n.k, bw * n.k, not extras)


def _label_items(n: _Node, shape: str) -> list[Item]:
    """Icon and title, service facts, tag, body and chips, top to bottom."""
    lab, block = text_box(n.spec, shape, n.w / n.k, n.h / n.k)
    spot = _label_spot(n, block)
    items, cy = _heading(n, lab, spot)
    if n.kind == "service":
        facts, cy = _service_facts(n, cy)
        items += facts
    items += _tag(n)
    body, cy = _body(n, lab, spot, cy)
    return items + body + _chips(n, cy)


def _body(n: _Node, lab: Label, spot: _LabelSpot, cy: float) -> tuple[list[Item], float]:
    if not lab.body:
        return [], cy
    cy += BODY_GAP * n.k
    text = Text(
        spot.left + spot.width / 2 if spot.centred else spot.left,
        cy,
        lab.body,
        BODY_SIZE * n.k,
        "sans",
        MUTED,
        0.0,
        "middle" if spot.centred else "start",
    )
    return [text], cy + lab.body_h * n.k


def _picture_node(n: _Node, pic: PictureBlock) -> list[Item]:
    """A picture node: a box holding its title over or under a soft frame (Mermaid's
    image node), outlined so wires meet what they point at. A stored or inline picture is
    drawn in the frame; a site's is never fetched: the frame shows a landscape sign and
    the site's name under it."""
    k = n.k
    gap, fw, fh = PICTURE_GAP * k, pic.frame_w * k, pic.frame_h * k
    lab_h = pic.label.height * k
    if pic.top:
        label_y, frame_y = n.y + gap, n.y + 2 * gap + lab_h
    else:
        frame_y = n.y + gap
        label_y = frame_y + fh + pic.name_h * k + gap
    fx = n.x + (n.w - fw) / 2
    items = shape_items("rect", n.x, n.y, n.w, n.h, n.wash, n.ink, k)
    items.append(Box(fx, frame_y, fw, fh, fill=SOFT, stroke=LINE, width=k, radius=4 * k))
    src = str(n.spec["picture"]["src"])
    href = image_href({"src": src, "ref": src})
    if href is not None:
        items.append(Image(fx, frame_y, fw, fh, href, "contain", n.title))
    else:
        items += _landscape(fx, frame_y, fw, fh)
    if pic.name:
        size = PICTURE_NAME_SIZE * k
        line = fit_line(pic.name, n.w, size, "mono")
        items.append(Text(n.x + n.w / 2, frame_y + fh, (line,), size, "mono", MUTED, 0.0, "middle"))
    width = pic.label.width * k
    spot = _LabelSpot(n.x + (n.w - width) / 2, label_y, width, True)
    items_title, cy = _heading(n, pic.label, spot)
    return items + items_title + _body(n, pic.label, spot, cy)[0]


def _landscape(x: float, y: float, w: float, h: float) -> list[Item]:
    """A hill under a sun, centred in the frame: the sign for a picture not shown."""
    side = min(w, h) * 0.5
    left, top = x + (w - side) / 2, y + (h - side) / 2
    hill = (
        (left, top + side),
        (left + side * 0.38, top + side * 0.42),
        (left + side * 0.62, top + side * 0.72),
        (left + side * 0.78, top + side * 0.55),
        (left + side, top + side),
    )
    sun = side * 0.26
    return [
        Path(hill, stroke=MUTED, width=max(side / 20, 0.8), closed=True, fill=LINE),
        Ellipse(left + side * 0.62, top + side * 0.05, sun, sun, LINE, MUTED, max(side / 24, 0.6)),
    ]


def _heading(n: _Node, lab: Label, spot: _LabelSpot) -> tuple[list[Item], float]:
    """The icon and the title lines, and the y below them."""
    k = n.k
    tx, cy = spot.left, spot.top
    items: list[Item] = []
    icon = lab.icon or ("service" if n.kind == "service" else None)
    if icon:
        # A figure fills the glyph's em square, set on the title's first line.
        size = 15 * k
        top = cy + (line_height(TITLE_SIZE * k) - size) / 2
        # An icon alone is centred in the block, which holds its room beside a title.
        ix = tx + (spot.width - size) / 2 if spot.centred and not lab.title else tx + 1 * k
        glyph = Text(ix - 1 * k, cy, (icon_glyph(str(icon)),), size, "sans", n.ink)
        items += pictogram(str(icon), ix, top, size, n.ink, n.wash) or [glyph]
    title_x = tx + (ICON_W * k if icon else 0.0)
    title_w = spot.width - (title_x - tx)
    runs = title_runs(n.spec, lab.title) if lab.title else None
    if runs:
        items += _styled_title(n, runs, title_x, title_w, cy, spot.centred)
    elif lab.title:
        items.append(
            Text(
                title_x + title_w / 2 if spot.centred else title_x,
                cy,
                lab.title,
                TITLE_SIZE * k,
                "sans-bold",
                n.text,
                0.0,
                "middle" if spot.centred else "start",
                n.italic,
            )
        )
    cy += lab.title_h * k
    return items, cy


def _styled_title(
    n: _Node,
    runs: list[list[tuple[str, tuple[bool, bool]]]],
    left: float,
    width: float,
    top: float,
    centred: bool,
) -> list[Item]:
    """A markdown title, one text item per run: as in Mermaid, its plain words are
    regular and its ``**bold**`` ones bold (the layout measured every word bold, so the
    lines fit), ``_emphasis_`` slanted."""
    size = TITLE_SIZE * n.k
    if centred:
        return _run_lines(runs, left + width / 2, top, size, n.text, n.italic)
    # Left-aligned: each line starts at ``left``, as wide as its runs make it.
    items: list[Item] = []
    for i, line in enumerate(runs):
        mid = left + runs_width(line, size) / 2
        items += _run_lines([line], mid, top + i * line_height(size), size, n.text, n.italic)
    return items


def _service_facts(n: _Node, cy: float) -> tuple[list[Item], float]:
    """One mono line of replicas, image and port mappings, and the y below it."""
    node, k = n.spec, n.k
    meta = []
    if node.get("replicas") is not None:
        meta.append(f"×{int(as_number(node['replicas']) or 1)} replicas")
    if node.get("image"):
        meta.append(str(node["image"]))
    for m in node.get("mappings") or []:
        if isinstance(m, dict):
            proto = f"/{m['proto']}" if m.get("proto") else ""
            meta.append(f"{m.get('host')}→{m.get('cont')}" + proto)
    if not meta:
        return [], cy
    line = fit_line(" · ".join(meta), n.w - 2 * n.pad, 11 * k, "mono")
    return [Text(n.x + n.pad, cy, (line,), 11 * k, "mono", MUTED)], cy + line_height(11 * k)


def _tag(n: _Node) -> list[Item]:
    if not n.spec.get("tag"):
        return []
    k = n.k
    tag = fit_line(str(n.spec["tag"]), n.w / 2, 10 * k)
    return [Text(n.x + n.w - n.pad, n.y + n.pad, (tag,), 10 * k, "sans", MUTED, 0.0, "end")]


def _chips(n: _Node, cy: float) -> list[Item]:
    """Toned pills in a row from the left, as many as fit in the box."""
    k = n.k
    items: list[Item] = []
    chips = [c for c in n.spec.get("chips") or [] if isinstance(c, dict)]
    cx = n.x + n.pad
    for chip in chips:
        label = str(chip.get("text") or "")
        c_ink, c_wash = tone(chip.get("tone"), "gray")
        cw = text_width(label, 10 * k) + 10 * k
        if cx + cw > n.x + n.w - n.pad or cy + 16 * k > n.y + n.h:
            break
        items.append(
            Box(cx, cy + 2 * k, cw, 16 * k, fill=c_wash, stroke=c_ink, width=0.6 * k, radius=8 * k)
        )
        items.append(
            Text(
                cx + 5 * k,
                cy + 2 * k + (16 * k - line_height(10 * k)) / 2,
                (label,),
                10 * k,
                "sans",
                c_ink,
            )
        )
        cx += cw + 4 * k
    return items


EDGE_DASH = {"dashed": (6.0, 4.0), "dotted": (1.5, 3.5)}

Pt = tuple[float, float]


def _curved(pts: list[Pt], curve: Any) -> list[Pt]:
    """The routed points as the edge's ``curve`` draws them (``orthogonal`` as routed).

    ``straight`` cuts across the corners: from the start to the middle of each inner
    run, then the last run whole, so the arrowhead keeps its heading. ``smooth`` is the
    uniform B-spline of the points (d3's basis curve, Mermaid's default), which leaves
    the start and meets the end along their runs.
    """
    if len(pts) < 3 or curve not in ("straight", "smooth"):
        return pts
    if curve == "straight":
        if len(pts) == 3:
            return [pts[0], pts[2]]
        mids = [_between(pts[i], pts[i + 1], 0.5) for i in range(1, len(pts) - 3)]
        return [pts[0], *mids, pts[-2], pts[-1]]
    # d3's curveBasis: a line to a sixth of the first run, a cubic per inner point, and
    # the last point repeated so the curve ends on it.
    ctrl = [pts[0], *pts, pts[-1]]
    out: list[Pt] = [pts[0]]
    for i in range(len(ctrl) - 3):
        p0, p1, p2, p3 = ctrl[i : i + 4]
        for step in range(1, 9):
            t = step / 8
            a, b, c = (
                (1 - t) ** 3 / 6,
                (3 * t**3 - 6 * t**2 + 4) / 6,
                (-3 * t**3 + 3 * t**2 + 3 * t + 1) / 6,
            )
            d = t**3 / 6
            out.append(
                (
                    a * p0[0] + b * p1[0] + c * p2[0] + d * p3[0],
                    a * p0[1] + b * p1[1] + c * p2[1] + d * p3[1],
                )
            )
    out.append(pts[-1])
    return out


def _slanted(pts: list[Pt], k: float) -> list[Pt]:
    """A wire the layout marked ``slant`` (one of two that would pass as a ladder): one
    straight line from its start to just before its target, then a short run in along
    its last leg, so two such wires cross once, in an X, and keep upright arrowheads."""
    (x0, y0), (x1, y1) = pts[-2], pts[-1]
    run = math.hypot(x1 - x0, y1 - y0)
    if len(pts) < 3 or run <= 0:
        return pts
    stub = min(SLANT_STUB * k, run)
    return [pts[0], _between(pts[-1], pts[-2], stub / run), pts[-1]]


def _between(a: Pt, b: Pt, t: float) -> Pt:
    return a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t


def _on_outline(
    p: tuple[float, float],
    q: tuple[float, float],
    box: tuple[float, float, float, float],
    shape: str,
) -> tuple[float, float]:
    """``p`` (on the box of ``shape``) moved on along the segment from ``q`` to the outline."""
    x, y, w, h = box
    length = math.hypot(p[0] - q[0], p[1] - q[1])
    if length < 1e-9 or w <= 0 or h <= 0:
        return p
    ux, uy = (p[0] - q[0]) / length, (p[1] - q[1]) / length
    if shape in ("circle", "double-circle", "ellipse", "start", "end", "filled-circle"):
        # Solve |(p + t u - c) / (a, b)| = 1 for the nearer t >= 0.
        a, b = w / 2, h / 2
        px, py = (p[0] - x - a) / a, (p[1] - y - b) / b
        vx, vy = ux / a, uy / b
        qa, qb, qc = vx * vx + vy * vy, 2 * (px * vx + py * vy), px * px + py * py - 1
        disc = qb * qb - 4 * qa * qc
        if disc < 0:
            return p
        t = (-qb - math.sqrt(disc)) / (2 * qa)
        return (p[0] + ux * t, p[1] + uy * t) if t >= 0 else p
    pts = outline(shape, x, y, w, h, 1.0)
    if not pts:
        return p
    best = None
    for (ax, ay), (bx, by) in itertools.pairwise([*pts, pts[0]]):
        ex, ey = bx - ax, by - ay
        den = ux * ey - uy * ex
        if abs(den) < 1e-12:
            continue
        t = ((ax - p[0]) * ey - (ay - p[1]) * ex) / den
        s = ((ax - p[0]) * uy - (ay - p[1]) * ux) / den
        if t >= -1e-6 and -1e-9 <= s <= 1 + 1e-9 and (best is None or t < best):
            best = t
    if best is None or best <= 0:
        return p
    return p[0] + ux * best, p[1] + uy * best


def _edge_ends(style: str, spec: dict) -> tuple[str, str]:
    """(head, tail) marks of an edge: its style's own ends unless ``head``/``tail`` say."""
    head = {"plain": "none", "circle": "circle", "cross": "cross"}.get(style, "arrow")
    tail = "arrow" if style == "both" else "none"
    if spec.get("head") in ("arrow", "none", "circle", "cross"):
        head = spec["head"]
    if spec.get("tail") in ("arrow", "none", "circle", "cross"):
        tail = spec["tail"]
    return head, tail


def _end_mark(
    mark: str, before: tuple[float, float], at: tuple[float, float], color: str, k: float
) -> list[Item]:
    ex, ey = at
    # A circle or a cross stands just outside the node, its whole shape on the wire:
    # centred on the border, half of it was hidden and read as a stub.
    length = math.hypot(ex - before[0], ey - before[1]) or 1.0
    ux, uy = (ex - before[0]) / length, (ey - before[1]) / length
    if mark == "circle":
        r = 4.5 * k
        cx, cy = ex - ux * r, ey - uy * r
        return [Ellipse(cx - r, cy - r, 2 * r, 2 * r, CARD, color, 1.6 * k)]
    if mark == "cross":
        d = 4.5 * k
        cx, cy = ex - ux * (d + 1.5 * k), ey - uy * (d + 1.5 * k)
        return [
            Path(((cx - d, cy - d), (cx + d, cy + d)), stroke=color, width=1.8 * k),
            Path(((cx - d, cy + d), (cx + d, cy - d)), stroke=color, width=1.8 * k),
        ]
    if mark == "arrow":
        return [arrowhead(before, at, color, 8 * k)]
    return []


def _edge_items(
    edge: dict,
    spec: dict,
    frame: _Frame,
    outlines: dict[str, tuple[tuple[float, float, float, float], str]] | None = None,
) -> list[Item]:
    raw = [
        (float(p[0]), float(p[1]))
        for p in edge.get("points") or []
        if isinstance(p, (list, tuple)) and len(p) >= 2
    ]
    if outlines and len(raw) >= 2:
        # Routes end on the node's box; round and pointed shapes are met at their outline.
        for key, end, nxt in (("from", 0, 1), ("to", -1, -2)):
            hit = outlines.get(str(edge.get(key)))
            if hit is not None:
                raw[end] = _on_outline(raw[end], raw[nxt], *hit)
    pts = [frame.pt(x, y) for x, y in raw]
    style = str(spec.get("style") or edge.get("style") or "solid")
    if len(pts) < 2 or style == "invisible":
        return []
    if edge.get("slant") and not spec.get("curve"):
        pts = _slanted(pts, frame.k)
    else:
        pts = _curved(pts, spec.get("curve"))
    k = frame.k
    dash = EDGE_DASH.get(style)
    color = tone(spec.get("tone"))[0] if spec.get("tone") else EDGE_COLOR
    paint = spec.get("paint") if isinstance(spec.get("paint"), dict) else {}
    color = _own_colour(paint.get("stroke"), CARD, 1.5) or color
    line_w = as_number(paint.get("strokeWidth")) or (2.6 if style == "thick" else 1.4)
    items: list[Item] = [
        Path(
            tuple(pts),
            stroke=color,
            width=min(line_w, 8.0) * k,
            dash=paint_dash(paint, k) or (tuple(d * k for d in dash) if dash else None),
        )
    ]
    head, tail = _edge_ends(style, spec)
    items.extend(_end_mark(head, pts[-2], pts[-1], color, k))
    items.extend(_end_mark(tail, pts[1], pts[0], color, k))
    label_box = edge.get("label") if isinstance(edge.get("label"), dict) else {}
    label = label_box.get("text") or spec.get("label")
    box = _box(label_box)
    if label:
        if box is None:
            mid = len(pts) // 2
            mx, my = (pts[mid - 1][0] + pts[mid][0]) / 2, (pts[mid - 1][1] + pts[mid][1]) / 2
            bw, bh = edge_label_size(str(label))
            lx, ly, lw, lh = mx - bw * k / 2, my - bh * k / 2, bw * k, bh * k
        else:
            lx, ly, lw, lh = frame.rect(box)
        lines = edge_label_lines(str(label), lw / k - 2 * EDGE_LABEL_PAD_X + 0.5)
        size = EDGE_LABEL_SIZE * k
        items.append(Box(lx, ly, lw, lh, fill=CARD, stroke=LINE, width=0.6 * k, radius=3 * k))
        top = ly + (lh - line_height(size) * len(lines)) / 2
        runs = text_runs(str(label), lines)
        if runs:
            items += _run_lines(runs, lx + lw / 2, top, size, FG, False)
        else:
            items.append(Text(lx + lw / 2, top, tuple(lines), size, "sans", FG, 0.0, "middle"))
    return items


def _run_lines(
    runs: list[list[tuple[str, tuple[bool, bool]]]],
    mid: float,
    top: float,
    size: float,
    color: str,
    italic: bool,
) -> list[Item]:
    """Lines of runs centred on ``mid``, one text item per run: bold runs bold, the
    others regular, emphasised ones (or all, with ``italic``) slanted."""
    lh = line_height(size)
    items: list[Item] = []
    for i, line in enumerate(runs):
        x = mid - runs_width(line, size) / 2
        for text, (bold, slant) in line:
            font = "sans-bold" if bold else "sans"
            items.append(
                Text(x, top + i * lh, (text,), size, font, color, 0.0, "start", slant or italic)
            )
            x += text_width(text, size, font)
    return items


def _edge_specs(payload: dict, geo_edges: list) -> list[dict]:
    """The authored edge behind each geo edge: by ``index`` when the engine gave
    one, else in order when the counts match, else by (from, to)."""
    specs = [e for e in payload.get("edges") or [] if isinstance(e, dict)]
    by_pair: dict[tuple[str, str], list[dict]] = {}
    for spec in specs:
        by_pair.setdefault((str(spec.get("from")), str(spec.get("to"))), []).append(spec)
    out = []
    for i, edge in enumerate(geo_edges):
        index = edge.get("index")
        if isinstance(index, int) and 0 <= index < len(specs):
            out.append(specs[index])
        elif len(specs) == len(geo_edges):
            out.append(specs[i])
        else:
            bucket = by_pair.get((str(edge.get("from")), str(edge.get("to")))) or []
            out.append(bucket.pop(0) if bucket else {})
    return out


def geo_items(payload: dict, frame: _Frame, *, marks: bool = False) -> list[Item]:
    """Lanes, groups, edges and nodes of ``payload.geo`` mapped through ``frame``
    (with ``marks``, a :class:`NodeMark` over each node)."""
    geo = payload.get("geo") if isinstance(payload.get("geo"), dict) else {}
    if isinstance(geo.get("sequence"), dict):
        titles = {nid: str(n.get("title") or nid) for nid, n in _collect_nodes(payload).items()}
        return sequence_items(geo, titles, frame)
    k = frame.k
    items: list[Item] = []
    lane_specs = [lane for lane in payload.get("lanes") or [] if isinstance(lane, dict)]
    for i, lane in enumerate(geo.get("lanes") or []):
        rect = _box(lane)
        if rect is None:
            continue
        x, y, w, h = frame.rect(rect)
        items.append(
            Box(x, y, w, h, fill=SOFT if i % 2 == 0 else "#fafbfc", stroke=LINE, width=0.8 * k)
        )
        label = lane.get("label") or (lane_specs[i].get("label") if i < len(lane_specs) else "")
        if label:
            items.append(
                Text(
                    x + 8 * k,
                    y + 6 * k,
                    (fit_line(str(label).upper(), w - 16 * k, 11 * k, "sans-bold"),),
                    11 * k,
                    "sans-bold",
                    MUTED,
                )
            )
    groups = _collect_groups(payload)
    regions = _regions(payload)
    for gid, rect in sorted(
        (geo.get("groups") or {}).items(),
        key=lambda kv: (_box(kv[1]) or (0, 0, 0, 0))[2] * -(_box(kv[1]) or (0, 0, 0, 1))[3],
    ):
        box = _box(rect)
        if box is None or str(gid) in regions:
            continue
        spec = groups.get(str(gid), {})
        ink, wash = tone(spec.get("tone"), "gray")
        x, y, w, h = frame.rect(box)
        items.append(
            Box(
                x,
                y,
                w,
                h,
                fill=wash if spec.get("tone") else "#f8f9fb",
                stroke=ink,
                width=1.0 * k,
                radius=8 * k,
                dash=(5 * k, 3 * k),
            )
        )
        items.extend(_dividers(gid, box, regions, geo, frame))
        title = display_text(str(spec.get("title") or ""))[0]
        meta = f"  {spec['meta']}" if spec.get("meta") else ""
        if not (title or meta):
            continue
        items.append(
            Text(
                x + 10 * k,
                y + 5 * k,
                (fit_line(title + meta, w - 20 * k, 12 * k, "sans-bold"),),
                12 * k,
                "sans-bold",
                ink,
            )
        )
    geo_edges = [e for e in geo.get("edges") or [] if isinstance(e, dict)]
    nodes = _collect_nodes(payload)
    outlines = {
        str(nid): (box, str(nodes.get(str(nid), {}).get("shape") or "rect"))
        for nid, rect in (geo.get("nodes") or {}).items()
        if (box := _box(rect)) is not None
    }
    for edge, spec in zip(geo_edges, _edge_specs(payload, geo_edges), strict=True):
        items.extend(_edge_items(edge, spec, frame, outlines))
    for nid, rect in (geo.get("nodes") or {}).items():
        box = _box(rect)
        if box is not None:
            items.extend(_node_items(nodes.get(str(nid), {"title": str(nid)}), frame.rect(box), k))
    items.extend(_port_items(geo, nodes, frame))
    # Over everything drawn: where each node is, for a viewer that moves or relabels it.
    for nid, rect in (geo.get("nodes") or {}).items() if marks else ():
        box = _box(rect)
        if box is not None:
            items.append(NodeMark(*frame.rect(box), str(nid)))
    return items


def _regions(payload: dict) -> dict[str, str]:
    """Concurrency regions: region id -> the group they split.

    A group holding no nodes of its own and two or more groups, all untitled, is
    split into regions (a state imported with ``--`` dividers): it is drawn as one
    frame with dashed dividers between them, and the regions get no frame or title.
    """
    out: dict[str, str] = {}
    for holder, group in containers(payload):
        if holder != "group" or group.get("nodes"):
            continue
        kids = [g for g in group.get("groups") or [] if isinstance(g, dict)]
        if len(kids) >= 2 and all(not g.get("title") and g.get("id") for g in kids):
            for g in kids:
                out[str(g["id"])] = str(group.get("id") or "")
    return out


def _dividers(
    gid: str,
    box: tuple[float, float, float, float],
    regions: dict[str, str],
    geo: dict,
    frame: _Frame,
) -> list[Item]:
    """Dashed lines between the regions of group ``gid``, across its frame."""
    boxes = [
        b
        for rid, parent in regions.items()
        if parent == str(gid) and (b := _box((geo.get("groups") or {}).get(rid))) is not None
    ]
    if len(boxes) < 2:
        return []
    k = frame.k
    items: list[Item] = []
    side_by_side = all(
        a[0] + a[2] <= b[0] + 0.5 for a, b in itertools.pairwise(sorted(boxes, key=lambda r: r[0]))
    )
    ordered = sorted(boxes, key=lambda r: r[0] if side_by_side else r[1])
    top = min(b[1] for b in boxes)
    for a, b in itertools.pairwise(ordered):
        if side_by_side:
            mid = (a[0] + a[2] + b[0]) / 2
            p0, p1 = frame.pt(mid, top), frame.pt(mid, box[1] + box[3])
        else:
            mid = (a[1] + a[3] + b[1]) / 2
            p0, p1 = frame.pt(box[0], mid), frame.pt(box[0] + box[2], mid)
        items.append(Path((p0, p1), stroke=MUTED, width=1.0 * k, dash=(6 * k, 4 * k)))
    return items


def _port_items(geo: dict, nodes: dict[str, dict], frame: _Frame) -> list[Item]:
    """A dot on the node border per port, with its label just inside the node."""
    k = frame.k
    items: list[Item] = []
    ports = geo.get("ports") if isinstance(geo.get("ports"), dict) else {}
    for nid, by_id in ports.items():
        if not isinstance(by_id, dict):
            continue
        specs = {
            str(p.get("id")): p
            for p in nodes.get(str(nid), {}).get("ports") or []
            if isinstance(p, dict)
        }
        for pid, spot in by_id.items():
            px, py = (
                as_number(spot.get("x")),
                as_number(spot.get("y")) if isinstance(spot, dict) else (None, None),
            )
            if px is None or py is None:
                continue
            cx, cy = frame.pt(px, py)
            items.append(
                Ellipse(cx - 3.5 * k, cy - 3.5 * k, 7 * k, 7 * k, CARD, EDGE_COLOR, 1.2 * k)
            )
            label = specs.get(str(pid), {}).get("label")
            if label:
                side = spot.get("side") or specs.get(str(pid), {}).get("side") or "right"
                size = 9.5 * k
                dx = {"left": 6 * k, "right": -6 * k}.get(side, 0.0)
                dy = {"top": 4 * k, "bottom": -4 * k - line_height(size)}.get(
                    side, -line_height(size) / 2
                )
                anchor = {"left": "start", "right": "end"}.get(side, "middle")
                items.append(
                    Text(cx + dx, cy + dy, (str(label),), size, "sans", MUTED, 0.0, anchor)
                )  # type: ignore[arg-type]
    return items


_ENGINE_BOXES = DIAGRAM_ENGINE_BOXES


def _engine_chrome(payload: dict, geo: dict, frame: _Frame) -> list[Item]:
    """Header, legend, stats strip, caption and footer at the boxes the engine placed."""
    k = frame.k
    items: list[Item] = []
    header = geo.get("header") if isinstance(geo.get("header"), dict) else {}
    styles = {
        "kicker": (12.0, "sans-bold", "#1c6ae4"),
        "title": (20.0, "sans-bold", FG),
        "subtitle": (14.0, "sans", MUTED),
    }
    for part in header.get("parts") or []:
        box = _box(part)
        key = part.get("key") if isinstance(part, dict) else None
        if box is None or key not in styles or not payload.get(key):
            continue
        size, font, color = styles[key]
        # Wrapping at the measured block width gives back the engine's own lines.
        run = text_run(0, 0, str(payload[key]), box[2] + 0.5, size=size, font=font)  # type: ignore[arg-type]
        x, y = frame.pt(box[0], box[1])
        items.append(Text(x, y, run.lines, size * k, font, color))  # type: ignore[arg-type]
    legend = _box(geo.get("legend"))
    if legend:
        lx, ly = frame.pt(legend[0], legend[1])
        right = lx + legend[2] * k
        for entry in payload.get("legend") or []:
            if not isinstance(entry, dict):
                continue
            label = str(entry.get("label") or "")
            span = (text_width(label, 12) + 60) * k
            if lx + span > right + 1 and lx > frame.pt(legend[0], 0)[0]:
                lx, ly = frame.pt(legend[0], 0)[0], ly + 22 * k
            style = str(entry.get("style") or "solid")
            dash = EDGE_DASH.get(style)
            items.append(
                Path(
                    ((lx, ly + 11 * k), (lx + 36 * k, ly + 11 * k)),
                    stroke=EDGE_COLOR,
                    width=(2.6 if style == "thick" else 1.4) * k,
                    dash=tuple(d * k for d in dash) if dash else None,
                )
            )
            items.append(
                Text(
                    lx + 44 * k,
                    ly + (22 - line_height(12)) / 2 * k,
                    (label,),
                    12 * k,
                    "sans",
                    MUTED,
                )
            )
            lx += span
    stats = geo.get("stats") if isinstance(geo.get("stats"), dict) else None
    box = _box(stats)
    if box:
        cell = as_number(stats.get("cell")) or box[2] / max(len(payload.get("stats") or [1]), 1)  # type: ignore[union-attr]
        for i, stat in enumerate(s for s in payload.get("stats") or [] if isinstance(s, dict)):
            sx, sy = frame.pt(box[0] + i * cell, box[1])
            items.append(Box(sx, sy, (cell - 6) * k, box[3] * k, fill=SOFT, radius=6 * k))
            items.append(
                Text(
                    sx + 10 * k,
                    sy + 4 * k,
                    (fit_line(str(stat.get("value") or ""), cell - 16, 20, "sans-bold"),),
                    20 * k,
                    "sans-bold",
                    FG,
                )
            )
            items.append(
                Text(
                    sx + 10 * k,
                    sy + 34 * k,
                    (fit_line(str(stat.get("label") or ""), cell - 16, 12),),
                    12 * k,
                    "sans",
                    MUTED,
                )
            )
    for key in ("caption", "footer"):
        box = _box(geo.get(key))
        if box and payload.get(key):
            text = plain_inline(str(payload[key])) if key == "caption" else str(payload[key])
            run = text_run(0, 0, text, box[2] + 0.5, size=12)
            x, y = frame.pt(box[0], box[1])
            items.append(Text(x, y, run.lines, 12 * k, "sans", MUTED))
    return items


def diagram_scene_items(
    payload: dict, x: float, y: float, w: float, h: float | None, *, marks: bool = False
) -> tuple[list[Item], float]:
    """Items of the whole diagram face in the box at (x, y) of width ``w``.

    ``h`` None means natural height (geo drawn 1:1 unless wider than ``w``).
    ``marks`` lays a :class:`NodeMark` over each node (a diagram card's face on a board).
    Returns the items and the height used.
    """
    payload = with_geo(payload)
    geo = payload.get("geo") if isinstance(payload.get("geo"), dict) else {}
    gw = as_number(geo.get("width")) or 0.0
    gh = as_number(geo.get("height")) or 0.0
    if gw > 0 and gh > 0 and diagram_engine_made(payload):
        # The engine laid out the whole face (header to footer): draw it as placed.
        k = min(w / gw, 1.0) if h is None else min(w / gw, h / gh, 2.0)
        frame = _Frame(x + (w - gw * k) / 2, y, k)
        return geo_items(payload, frame, marks=marks) + _engine_chrome(payload, geo, frame), gh * k
    return _stacked_face(payload, gw, gh, x, y, w, h, marks)


def _stacked_face(
    payload: dict,
    gw: float,
    gh: float,
    x: float,
    y: float,
    w: float,
    h: float | None,
    marks: bool = False,
) -> tuple[list[Item], float]:
    """A face the engine did not lay out: header, stats, geo, legend, footer and
    caption stacked top to bottom, the geo scaled into what the rest leaves."""
    pad = DIAGRAM_INSET
    inner = w - 2 * pad
    left = x + pad
    items, cy = _stacked_header(payload, left, y + pad, inner)
    stats, cy = _stacked_stats(payload, left, cy, inner)
    items += stats
    legend = [entry for entry in payload.get("legend") or [] if isinstance(entry, dict)]
    caption = plain_inline(str(payload["caption"])) if payload.get("caption") else ""
    footer_h = (line_height(11) if payload.get("footer") else 0) + diagram_caption_height(
        caption, inner
    )
    legend_h = DIAGRAM_LEGEND_H if legend else 0.0
    cy += 8
    if gw > 0 and gh > 0:
        avail_h = (y + h - cy - legend_h - footer_h - pad) if h is not None else gh
        k = min(inner / gw, max(avail_h, 1.0) / gh, 1.0 if h is None else 4.0)
        ox = left + (inner - gw * k) / 2
        items.extend(geo_items(payload, _Frame(ox, cy, k), marks=marks))
        cy += gh * k
    if legend:
        row, cy = _stacked_legend(legend, left, cy)
        items += row
    tail, cy = _stacked_footer(payload, caption, left, cy, inner)
    return items + tail, cy + pad - y


def _stacked_header(
    payload: dict, left: float, cy: float, inner: float
) -> tuple[list[Item], float]:
    """Kicker, title and subtitle from ``cy`` down, and the y below them."""
    items: list[Item] = []
    if payload.get("kicker"):
        kicker = fit_line(str(payload["kicker"]).upper(), inner, 11, "sans-bold")
        items.append(Text(left, cy, (kicker,), 11, "sans-bold", "#1c6ae4"))
        cy += line_height(11)
    if title := diagram_title(payload):
        run = text_run(left, cy, title, inner, size=18, font="sans-bold", max_lines=2)
        items.append(run)
        cy += run.height
    if payload.get("subtitle"):
        run = text_run(left, cy, str(payload["subtitle"]), inner, size=13, fill=MUTED, max_lines=2)
        items.append(run)
        cy += run.height
    return items, cy


def _stacked_stats(payload: dict, left: float, cy: float, inner: float) -> tuple[list[Item], float]:
    """One tile per stat (value over label) across the width, and the y below them."""
    stats = [s for s in payload.get("stats") or [] if isinstance(s, dict)]
    if not stats:
        return [], cy
    items: list[Item] = []
    cy += 6
    cw = inner / len(stats)
    for i, stat in enumerate(stats):
        sx = left + i * cw
        value = fit_line(str(stat.get("value") or ""), cw - 20, 18, "sans-bold")
        label = fit_line(str(stat.get("label") or ""), cw - 20, 11)
        items.append(Box(sx, cy, cw - 6, 48, fill=SOFT, radius=6))
        items.append(Text(sx + 8, cy + 4, (value,), 18, "sans-bold", FG))
        items.append(Text(sx + 8, cy + 29, (label,), 11, "sans", MUTED))
    return items, cy + 54


def _stacked_legend(legend: list[dict], left: float, cy: float) -> tuple[list[Item], float]:
    """A line sample and label per legend entry in one row, and the y below it."""
    items: list[Item] = []
    cy += 6
    lx = left
    for entry in legend:
        style = str(entry.get("style") or "solid")
        dash = EDGE_DASH.get(style)
        items.append(
            Path(
                ((lx, cy + 8), (lx + 24, cy + 8)),
                stroke=EDGE_COLOR,
                width=2.6 if style == "thick" else 1.4,
                dash=dash,
            )
        )
        label = str(entry.get("label") or style)
        items.append(Text(lx + 30, cy, (label,), 11, "sans", MUTED))
        lx += 30 + text_width(label, 11) + 18
    return items, cy + 16


def _stacked_footer(
    payload: dict, caption: str, left: float, cy: float, inner: float
) -> tuple[list[Item], float]:
    """The footer line, then the caption, and the y below them."""
    items: list[Item] = []
    if payload.get("footer"):
        items.append(
            Text(left, cy, (fit_line(str(payload["footer"]), inner, 11),), 11, "sans", MUTED)
        )
        cy += line_height(11)
    if caption:
        run = text_run(left, cy, caption, inner, size=12, fill=MUTED, max_lines=2)
        items.append(run)
        cy += run.height
    return items, cy


def diagram_scene(payload: dict) -> Scene:
    payload = with_geo(payload)
    gw = (
        as_number((payload.get("geo") or {}).get("width"))
        if isinstance(payload.get("geo"), dict)
        else None
    )
    geo = payload.get("geo") if isinstance(payload.get("geo"), dict) else {}
    engine_made = any(key in geo for key in _ENGINE_BOXES)
    width = (gw or 480.0) if engine_made and gw else max((gw or 480.0) + 24, 320.0)
    items, height = diagram_scene_items(payload, 0, 0, width, None)
    scene = Scene(width, height, background=CARD)
    scene.items = items
    return scene
