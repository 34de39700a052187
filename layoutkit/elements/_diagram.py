"""The diagram payload: semantic nodes, groups, lanes and edges (geometry is the server's)."""

from __future__ import annotations

from typing import Any

from layoutkit.elements._core import BAD, Ctx, show
from layoutkit.elements._fields import (
    CARD_ID_SCHEMA,
    LIST_BOUND,
    Spec,
    boolean,
    check_list_items,
    check_object,
    custom,
    enum,
    number,
    numbers,
    obj,
    objects,
    open_enum,
    schema_ref,
    server_owned,
    str_or_number,
    string,
    text_block,
)
from layoutkit.elements._kind import Kind
from layoutkit.elements._media import SOURCE
from layoutkit.elements.vocab import (
    DIAGRAM_TONE_DEFAULT,
    DIAGRAM_TONES,
    EDGE_CURVES,
    EDGE_ENDS,
    EDGE_STYLE_DEFAULT,
    EDGE_STYLES,
    NODE_SHAPE_DEFAULT,
    NODE_SHAPES,
    NODE_TYPES,
)
from layoutkit.limits import DIAGRAM_PICTURE

GROUP_DEPTH_CAP = 8
QUALITY_TIERS = ("showcase",)


def _tone() -> Any:
    return open_enum("tone", DIAGRAM_TONES, DIAGRAM_TONE_DEFAULT)


def _check_fk(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is str or type(v) is bool:
        return v
    ctx.wrong_type(parent, key, "a string (target) or a boolean", v)
    return BAD


CHIP = Spec("node chip", [string("text", required=True), _tone()])
PORT = Spec(
    "port",
    [string("id", required=True), string("label"), string("side"), number("order")],
)
DB_COLUMN = Spec(
    "entity column",
    [
        string("name", required=True),
        string("type"),
        boolean("pk"),
        custom(
            "fk",
            "string or boolean",
            _check_fk,
            "Referenced column, or true.",
            schema={"type": ["string", "boolean"]},
        ),
        boolean("unique"),
        boolean("nullable"),
    ],
)
PAINT = Spec(
    "paint",
    [
        string("fill", "CSS colour of the shape's inside."),
        string("stroke", "CSS colour of the outline or the edge line."),
        number("strokeWidth", "Outline or line width in px.", minimum=0),
        numbers(
            "strokeDasharray",
            "Dash and gap lengths in px, as CSS stroke-dasharray: the outline or line is dashed.",
        ),
        string("color", "CSS colour of the title text."),
        open_enum("fontStyle", ("normal", "italic"), "normal", "Slant of the title text."),
    ],
)
MAPPING = Spec(
    "port mapping",
    [
        str_or_number("host", required=True),
        str_or_number("cont", required=True),
        string("proto"),
    ],
)
PICTURE = Spec(
    "picture",
    [
        string("src", "Address of the picture: a stored blob's or a site's.", required=True),
        enum("pos", ("t", "b"), "Label above (t) or below (b, the default) the picture."),
        number("w", "Frame width in px (default: its height).", minimum=8, maximum=DIAGRAM_PICTURE),
        number(
            "h",
            "Frame height in px (default: its width, or 60).",
            minimum=8,
            maximum=DIAGRAM_PICTURE,
        ),
    ],
)
NODE = Spec(
    "node",
    [
        string("id", "Edge endpoint name; node.port addresses a port."),
        enum("type", NODE_TYPES, "Closed set."),
        string("title", required=True),
        text_block("body"),
        objects("chips", CHIP),
        string("icon", "Icon name."),
        open_enum("shape", NODE_SHAPES, NODE_SHAPE_DEFAULT),
        _tone(),
        obj(
            "paint",
            PAINT,
            "The author's own colours; a colour that cannot be read is drawn with the tone's.",
        ),
        objects("ports", PORT),
        objects("columns", DB_COLUMN, "Entity columns."),
        string("method", "Endpoint method."),
        string("path", "Endpoint path."),
        numbers("codes", "Response codes."),
        string("tag"),
        string("image", "Container image."),
        obj(
            "picture",
            PICTURE,
            "A picture the node shows with its title (Mermaid's img:); a site's is never fetched.",
        ),
        number("replicas", minimum=0, integer=True),
        objects("mappings", MAPPING),
        number("doc", "Document number it links to.", integer=True),
        string("docAnchor"),
    ],
)


def _check_groups(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is not list:
        ctx.wrong_type(parent, key, "an array of groups", v)
        return BAD
    check_list_items(v, parent, key)
    if ctx.aux_depth >= GROUP_DEPTH_CAP:
        ctx.error(
            parent, key, "nesting_too_deep", f"diagram groups nest at most {GROUP_DEPTH_CAP} levels"
        )
        return BAD
    ctx.aux_depth += 1
    try:
        path = (parent, key)
        out = []
        for i, g in enumerate(v):
            y = check_object(GROUP, g, ctx, path, i)
            if y is not BAD:
                out.append(y)
        return out
    finally:
        ctx.aux_depth -= 1


_GROUPS = {"type": "array", "items": schema_ref("group"), **LIST_BOUND}
GROUP = Spec(
    "group",
    [
        string("id"),
        string("title", required=True),
        string("meta"),
        enum(
            "dir",
            ("TD", "LR", "BT", "RL"),
            "The group's own direction (BT and RL point its arrows up and leftwards); as in "
            "Mermaid it applies while no edge links a member to something outside the group.",
        ),
        _tone(),
        objects("nodes", NODE),
        custom(
            "groups",
            "array of group",
            _check_groups,
            f"Nest up to {GROUP_DEPTH_CAP} deep.",
            # The group shape is still being defined here, so it is named rather than passed.
            schema=_GROUPS,
        ),
    ],
)
LANE = Spec(
    "lane",
    [
        string("label", required=True),
        string("note"),
        objects("nodes", NODE),
        custom("groups", "array of group", _check_groups, schema=_GROUPS, members=GROUP),
    ],
)


def _check_card_link(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is str or (type(v) is int and v > 0):
        return v
    ctx.wrong_type(parent, key, "a card id or a batch ref", v)
    return BAD


EDGE = Spec(
    "edge",
    [
        string("from", "Node id or node.port.", required=True),
        string("to", "Node id or node.port.", required=True),
        open_enum("style", EDGE_STYLES, EDGE_STYLE_DEFAULT),
        open_enum(
            "head",
            EDGE_ENDS,
            "arrow",
            "End mark at the target when the style leaves it open (a dotted or thick "
            "line ending in a circle, a cross or nothing).",
        ),
        open_enum("tail", EDGE_ENDS, "none", "End mark at the source."),
        open_enum(
            "curve",
            EDGE_CURVES,
            "orthogonal",
            "How the routed wire is drawn: its right-angled runs, straight cuts across "
            "its corners, or one smooth curve through them.",
        ),
        _tone(),
        obj("paint", PAINT, "Line colour (stroke) and width; fill and color are unused."),
        string("label"),
        custom(
            "card",
            "card id or ref",
            _check_card_link,
            "Card the edge stands for.",
            schema={"anyOf": [{"type": "string"}, CARD_ID_SCHEMA]},
        ),
    ],
)
LEGEND = Spec(
    "legend entry",
    [open_enum("style", EDGE_STYLES, EDGE_STYLE_DEFAULT), string("label", required=True)],
)
STAT = Spec("diagram stat", [string("value", required=True), string("label", required=True)])


def _check_quality(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    # Consumed by the write path from the authored payload; never kept.
    if v not in QUALITY_TIERS:
        ctx.warn(
            parent,
            key,
            "unknown_value",
            f"{show(v)} is not a quality tier; the default tier applies",
            "use 'showcase' or leave quality out",
        )
    return BAD


def _node_names(out: dict[str, Any], ids: dict[str, str], dup: list[str]) -> None:
    for n in out.get("nodes", ()):
        name = n.get("id")
        if name is not None:
            if name in ids and ids[name] == "id":
                dup.append(name)
            ids[name] = "id"
        elif "title" in n:
            ids.setdefault(n["title"], "title")
    for g in out.get("groups", ()):
        # An edge may end on a group: the drawing stops it at the group's frame.
        if isinstance(g.get("id"), str):
            ids.setdefault(g["id"], "group")
        _node_names(g, ids, dup)
    for lane in out.get("lanes", ()):
        _node_names(lane, ids, dup)


def _diagram_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    has_text = "diagram_text" in out
    has_members = bool(out.get("nodes") or out.get("groups") or out.get("lanes"))
    if "title" not in out and not has_text:
        ctx.error(path, "title", "missing_field", "a diagram needs a title")
    if has_text and has_members:
        ctx.warn(
            path,
            "diagram_text",
            "ignored_field",
            "diagram_text is only imported when there are no nodes, groups or lanes",
        )
    if not has_text and not has_members:
        ctx.warn(path, None, "empty_diagram", "the diagram has no nodes, groups or lanes")
    ids: dict[str, str] = {}
    dup: list[str] = []
    _node_names(out, ids, dup)
    for name in dup:
        ctx.error(path, "nodes", "duplicate_node", f"node id {name!r} is used twice")
    if not has_members:
        return
    for i, e in enumerate(out.get("edges", ())):
        for end in ("from", "to"):
            name = e.get(end)
            if name is None or name in ids or name.split(".", 1)[0] in ids:
                continue
            ctx.warn(
                ((path, "edges"), i),
                end,
                "unknown_endpoint",
                f"no node is named {show(name)}",
                ctx.suggest(name, ids),
            )


DIAGRAM_SPEC = Spec(
    "diagram payload",
    [
        enum("dir", ("TD", "LR"), "Main flow direction.", default="TD"),
        string("kicker"),
        string(
            "title",
            "Required unless diagram_text is given; text that names no title is titled "
            "after its type (Flowchart, Sequence diagram, State diagram).",
        ),
        string("subtitle"),
        boolean(
            "band",
            "Draw the card's top band (node and edge counts, direction). Default on; "
            "off when the payload was imported from diagram_text.",
        ),
        boolean(
            "showTitle",
            "Draw the title on the face. Default on; off when the title was derived "
            "from the text's type because the text names none.",
        ),
        string("footer"),
        text_block("caption"),
        objects("stats", STAT, "Stat strip."),
        objects("nodes", NODE, "Loose nodes (diagrams without lanes)."),
        custom(
            "groups",
            "array of group",
            _check_groups,
            "Top-level groups.",
            schema=_GROUPS,
            members=GROUP,
        ),
        objects("lanes", LANE, "Swimlanes holding their members."),
        objects("edges", EDGE),
        objects("legend", LEGEND, "Explains edge styles."),
        custom(
            "quality",
            "string",
            _check_quality,
            "showcase makes composition findings fail the write; never stored.",
            # Another value only warns (the default tier applies).
            schema={"examples": list(QUALITY_TIERS)},
        ),
        string(
            "diagram_text",
            "Text source (flowchart/graph, sequenceDiagram, stateDiagram) imported at write "
            "time when there are no nodes, groups or lanes.",
        ),
        obj("source", SOURCE, "Living source, refreshed on request."),
        server_owned("geo", "object", "Computed geometry."),
        server_owned(
            "sequence",
            "object",
            "What a sequenceDiagram import found beyond lanes and edges (arrow kinds, blocks, "
            "notes, activations, numbering, boxes, create/destroy); lay_out draws from it.",
        ),
        server_owned("render", "object"),
        server_owned("overrides", "object", "Human adjustments; survive refresh.", editor=True),
        server_owned("metrics", "object"),
        server_owned("repairs", "array"),
        server_owned("diagnostics", "array"),
    ],
    _diagram_post,
)

DIAGRAM = Kind(
    "diagram",
    "A boxes-and-arrows diagram from semantics only; on a board, the diagram card.",
    DIAGRAM_SPEC,
    "Send meaning, not coordinates: nodes, groups (nestable), swimlanes and edges. The "
    "server lays it out and writes geo.\n\n"
    "Tones, node shapes and edge styles are open vocabularies: an unknown value is drawn "
    "with the default and reported as a warning with a suggestion. Node types are closed.\n\n"
    "Edges name nodes by id (or by title when a node has no id); node.port addresses a "
    "port. As a card, nodes take an icon name and a living source is refreshed on request "
    "while human overrides survive.",
)
