"""The element envelope, the container kinds (doc, section, columns, compare) and section ids."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from layoutkit.elements._core import BAD, Ctx, show
from layoutkit.elements._data import CHART, TABLE, spill
from layoutkit.elements._diagram import DIAGRAM
from layoutkit.elements._fields import (
    LIST_BOUND,
    Spec,
    check_list_items,
    check_object,
    custom,
    enum,
    map_check,
    object_check,
    objects,
    schema_ref,
    server_owned,
    spec_ref,
    string,
    text_block,
)
from layoutkit.elements._kind import AUDIENCE_FIELD, Kind, check_audience
from layoutkit.elements._media import MEDIA_KINDS
from layoutkit.elements._simple import CHIP, SIMPLE_KINDS
from layoutkit.elements.vocab import ACCENT_NAMES, ACCENT_PAIRS
from layoutkit.formatting import an

NESTING_CAP = 6
CONTAINER_KINDS = frozenset(("doc", "section", "columns", "compare"))
SECTION_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
RETIRED_CARD_KINDS = {"viz": "chart", "wireframe": "mockup"}
_CARD_ONLY = frozenset(
    (
        "text",
        "note",
        "shape",
        "callout",
        "checklist",
        "cluster",
        "step",
        "link",
        "board",
        "api",
        "artifact",
        "chat",
        "file",
    )
)


def _check_elements(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is not list:
        ctx.wrong_type(parent, key, "an array of elements", v)
        return BAD
    check_list_items(v, parent, key)
    path = (parent, key)
    out = []
    for i, x in enumerate(v):
        y = check_element(x, ctx, path, i)
        if y is not BAD:
            out.append(y)
    return out


def elements_field(notes: str = "", *, required: bool = True) -> Any:
    return custom(
        "elements",
        "array of element",
        _check_elements,
        notes,
        schema={"type": "array", "items": schema_ref("element"), **LIST_BOUND},
        required=required,
    )


# ---------------------------------------------------------------- section ids


def slugify(text: str) -> str:
    """Fold ``text`` to an anchor id: ASCII, lower case, dashes, at most 64 characters.

    Text with nothing left after folding (punctuation, a script with no ASCII
    reading) gets ``section``: an anchor id is never empty. Section ids, heading
    anchors and wikilink targets all use this one rule, so a link built from a
    title finds the anchor the renderer gave it.
    """
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    return slug[:64].rstrip("-") or "section"


def _check_section_id(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is str and SECTION_ID.match(v):
        return v
    if type(v) is not str:
        ctx.wrong_type(parent, key, "a section id string", v)
        return BAD
    ctx.error(
        parent,
        key,
        "bad_section_id",
        f"{show(v)} is not a section id (lower-case letters, digits and dashes, "
        "starting with a letter or digit, at most 64)",
        f"use {slugify(v)!r}",
    )
    return BAD


def assign_section_ids(ctx: Ctx) -> None:
    """Give every section without a valid id one derived from label or title, in order."""
    used: dict[str, Any] = {}
    for entry in ctx.pending_sections:
        if entry is None:
            continue
        payload, path = entry
        sid = payload.get("id")
        if sid is not None:
            if sid in used:
                ctx.error(path, "id", "duplicate_section_id", f"section id {sid!r} is used twice")
            used[sid] = path
    next_suffix: dict[str, int] = {}
    for entry in ctx.pending_sections:
        if entry is None or "id" in entry[0]:
            continue
        payload = entry[0]
        source = payload.get("label") or payload.get("title") or ""
        base = slugify(source)
        sid, n = base, next_suffix.get(base, 2)
        # Remember where each base's numbering stopped so many repeats stay linear.
        while sid in used:
            suffix = f"-{n}"
            sid = base[: 64 - len(suffix)].rstrip("-") + suffix
            n += 1
        next_suffix[base] = n
        used[sid] = entry[1]
        payload["id"] = sid
    ctx.section_ids = used
    for name, path, key in ctx.section_refs:
        if name not in used:
            ctx.error(
                path,
                key,
                "unknown_section",
                f"no section in this document has id {show(name)}",
                ctx.suggest(name, used),
            )
    for name, path, key in ctx.anchor_refs:
        if name not in used:
            ctx.warn(
                path,
                key,
                "unknown_anchor",
                f"no section in this document has id {show(name)}",
                ctx.suggest(name, used),
            )


# ---------------------------------------------------------------- container kinds


def _section_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    if "elements" in out and not out["elements"]:
        ctx.warn(path, "elements", "empty_section", "an empty section shows a bare heading")


SECTION = Kind(
    "section",
    "A titled part of a document with an anchor id; holds elements.",
    Spec(
        "section payload",
        [
            custom(
                "id",
                "string",
                _check_section_id,
                "Anchor id; derived when absent.",
                schema={"type": "string", "pattern": SECTION_ID.pattern},
            ),
            string("label", "Upper-case eyebrow."),
            text_block("title"),
            string("note", "Muted line under the title."),
            elements_field("Validated like the document's own elements."),
        ],
        _section_post,
    ),
    "An id matches ^[a-z0-9][a-z0-9-]{0,63}$. Without one, the id comes from the label "
    "(or the title): accents are folded to plain ASCII, anything else becomes a dash, and "
    "a repeat in document order gets -2, -3 and so on, so an unchanged label keeps its "
    "anchor between pushes. An empty section warns.",
)

RATIOS = ("1:1", "1:2", "2:1", "1:1:1")
# Named apart from the table column in the generated JSON Schema definitions.
COLUMN = Spec("column", [elements_field("At least one.")], name="columns column")


def _columns_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    cols = out.get("cols")
    if cols is None:
        return
    n = len(cols)
    for i, c in enumerate(cols):
        if "elements" in c and not c["elements"]:
            ctx.error(((path, "cols"), i), "elements", "empty_column", "a column needs an element")
    even = "1:1:1" if n == 3 else "1:1"
    ratio = out.get("ratio")
    if ratio is None:
        out["ratio"] = even
    elif 2 <= n <= 3 and ratio.count(":") + 1 != n:
        ctx.error(
            path,
            "ratio",
            "ratio_mismatch",
            f"ratio {ratio} has {ratio.count(':') + 1} parts for {n} columns",
            f"use {even!r}",
        )
        out["ratio"] = even


COLUMNS = Kind(
    "columns",
    "Two or three columns of elements side by side.",
    Spec(
        "columns payload",
        [
            enum(
                "ratio",
                RATIOS,
                "Parts must match the column count. Default 1:1 (1:1:1 for three columns).",
            ),
            objects(
                "cols",
                COLUMN,
                "Each with at least one element.",
                required=True,
                min_items=2,
                max_items=3,
            ),
        ],
        _columns_post,
    ),
    "The ratio defaults to equal parts (1:1, or 1:1:1 for three columns). On a narrow "
    "view the columns stack in order.",
)

SIDE = Spec("compare side", [string("label"), elements_field()])


def _compare_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    for side in ("a", "b"):
        if side in out and "label" not in out[side]:
            ctx.warn((path, side), "label", "missing_label", "label both sides of a compare")


COMPARE = Kind(
    "compare",
    "Two stacks of elements side by side: a on the left, b on the right.",
    Spec(
        "compare payload",
        [
            custom(
                "a",
                "object (compare side)",
                object_check(SIDE),
                "Left side.",
                schema=spec_ref(SIDE),
                required=True,
                members=SIDE,
            ),
            custom(
                "b",
                "object (compare side)",
                object_check(SIDE),
                "Right side.",
                schema=spec_ref(SIDE),
                required=True,
                members=SIDE,
            ),
            string("title"),
        ],
        _compare_post,
    ),
    "Label both sides; an unlabeled side warns.",
)

_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")
_HEX_SCHEMA = {"type": "string", "pattern": _HEX.pattern}


def _check_accent(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is str:
        pair = ACCENT_PAIRS.get(v)
        if pair is not None:
            return dict(pair)
        ctx.error(
            parent,
            key,
            "unknown_value",
            f"{show(v)} is not a named accent; use one of {', '.join(ACCENT_NAMES)} "
            "or {light, dark}",
            ctx.suggest(v, ACCENT_NAMES),
        )
        return BAD
    if type(v) is dict:
        out = {}
        for side in ("light", "dark"):
            c = v.get(side)
            if type(c) is str and _HEX.match(c):
                out[side] = c.lower()
            else:
                ctx.error((parent, key), side, "bad_color", f"{side} must be a #rrggbb colour")
        extra = [k for k in v if k not in ("light", "dark")]
        for k in extra:
            ctx.unknown_field((parent, key), k, ("light", "dark"), "accentColor")
        return out if len(out) == 2 else BAD
    ctx.wrong_type(parent, key, "an accent name or {light, dark}", v)
    return BAD


REPO_SOURCE = Spec("repo source", [string("repo", required=True), string("ref", required=True)])

DOC_SPEC = Spec(
    "doc payload",
    [
        string("title"),
        string("kicker", "Eyebrow line."),
        enum(
            "direction",
            ("editorial", "dossier", "terminal", "gallery", "release"),
            "Design register.",
        ),
        enum(
            "typeset",
            ("house", "editorial", "bookish", "swiss", "gallery", "hyperlegible"),
            "Absent means the board's, else house; a reader's choice wins.",
        ),
        string("accent", "Phrase of the title to highlight."),
        text_block("intro", "Lede."),
        objects("chips", CHIP, "Facts under the lede."),
        custom(
            "accentColor",
            "accent name or {light, dark} of #rrggbb",
            _check_accent,
            "Normalized to a {light, dark} pair. Names: " + ", ".join(ACCENT_NAMES) + ".",
            schema={
                "anyOf": [
                    {"enum": list(ACCENT_NAMES)},
                    {
                        "type": "object",
                        "required": ["light", "dark"],
                        "properties": {"light": _HEX_SCHEMA, "dark": _HEX_SCHEMA},
                    },
                ]
            },
        ),
        string("project", "Project reported on."),
        custom(
            "sources",
            "map of alias to {repo, ref}",
            map_check(object_check(REPO_SOURCE), "repository sources"),
            "Aliases usable in links as alias:path#L1-L9.",
            schema={"type": "object", "additionalProperties": spec_ref(REPO_SOURCE)},
            members=REPO_SOURCE,
        ),
        elements_field("The content, in order."),
        server_owned("set", "object", "Pushed set stamp: branch, version and its files."),
    ],
)

DOC = Kind(
    "doc",
    "A whole document: title block and its elements in order; on a board, the doc card.",
    DOC_SPEC,
    "A pushed doc.json is one doc element. Containers (doc, section, columns, compare) "
    f"nest at most {NESTING_CAP} levels; flatten rather than nest documents.\n\n"
    "As a card, the payload is the same; the old node grammar {nodes: [...]} is refused, "
    "and the inner elements are drawn as one picture (not annotatable or wireable).",
)

ELEMENT_KIND_LIST = (
    CHART,
    *SIMPLE_KINDS,
    *MEDIA_KINDS,
    COLUMNS,
    COMPARE,
    DIAGRAM,
    DOC,
    SECTION,
    TABLE,
)
ELEMENTS: dict[str, Kind] = {k.name: k for k in sorted(ELEMENT_KIND_LIST, key=lambda k: k.name)}
ELEMENT_KINDS = tuple(ELEMENTS)

ENVELOPE_FIELDS = ("kind", "payload", "audience", "dataRef")
_DATA_KINDS = frozenset(("chart", "table"))
# By identity: the section and compare card kinds share names with containers but are frames.
_CONTAINER_IDS = frozenset(id(k) for k in (DOC, SECTION, COLUMNS, COMPARE))
_LEAF_IDS = frozenset(
    id(k) for k in ELEMENT_KIND_LIST if k not in (DOC, SECTION, COLUMNS, COMPARE, CHART, TABLE)
)
_SLOT = {"chart": "data", "table": "rows"}


def kind_problem(
    kind: Any, allowed: tuple[str, ...], vocabulary: str, ctx: Ctx
) -> tuple[str, str, str | None]:
    """(code, message, fix) for a kind outside ``allowed``."""
    if type(kind) is not str:
        return "wrong_type", f"kind must be a string naming one of the {vocabulary} kinds", None
    if kind in RETIRED_CARD_KINDS:
        repl = RETIRED_CARD_KINDS[kind]
        return (
            "retired_kind",
            f"kind {kind!r} is retired; use {repl!r}",
            f"use kind {repl!r}",
        )
    if vocabulary == "element" and kind in _CARD_ONLY:
        return (
            "unknown_kind",
            f"{kind!r} is a board card kind, not a document element; allowed: "
            + ", ".join(allowed),
            None,
        )
    return (
        "unknown_kind",
        f"unknown {vocabulary} kind {show(kind)}; allowed: {', '.join(allowed)}",
        ctx.suggest(kind, allowed),
    )


def check_envelope_extras(
    v: dict[Any, Any], kind: str, ctx: Ctx, path: Any, out: dict[str, Any]
) -> None:
    """audience and dataRef of an element envelope, written into ``out``."""
    if "audience" in v:
        aud = check_audience(v["audience"], ctx, path, "audience")
        if aud is not BAD:
            out["audience"] = aud
    if "dataRef" in v:
        ref = v["dataRef"]
        if kind not in _DATA_KINDS:
            ctx.error(path, "dataRef", "misplaced_field", "only chart and table carry a dataRef")
        elif type(ref) is not str or not ref:
            ctx.wrong_type(path, "dataRef", "a non-empty reference string", ref)
        else:
            out["dataRef"] = ref


def _container_payload(
    kind: Kind, raw: dict[Any, Any], ctx: Ctx, path: Any
) -> dict[str, Any] | None:
    """The checked payload of a container one level deeper, or None past the nesting cap.

    A section reserves its place in ``pending_sections`` before its children
    check, so sections keep document order."""
    if ctx.depth >= NESTING_CAP:
        ctx.error(
            path,
            None,
            "nesting_too_deep",
            f"doc, section, columns and compare nest at most {NESTING_CAP} levels",
            "flatten: put the content in the enclosing container",
        )
        return None
    slot = -1
    if kind is SECTION:
        slot = len(ctx.pending_sections)
        ctx.pending_sections.append(None)
    ctx.depth += 1
    try:
        payload = check_object(kind.spec, raw, ctx, path, "payload")
    finally:
        ctx.depth -= 1
    if slot >= 0:
        ctx.pending_sections[slot] = (payload, (path, "payload"))
    return payload


def _data_slot(
    name: str, payload: dict[str, Any], out: dict[str, Any], ctx: Ctx, path: Any
) -> None:
    """A dataRef wins over inline data; large inline data spills behind a new one."""
    slot_name = _SLOT[name]
    if "dataRef" in out:
        if slot_name in payload:
            ctx.warn(
                (path, "payload"),
                slot_name,
                "replaced_by_dataref",
                f"the dataRef replaces inline {slot_name}; the inline copy is dropped",
            )
            del payload[slot_name]
    else:
        ref = spill(name, payload, ctx)
        if ref is not None:
            out["dataRef"] = ref


def check_payload(kind: Kind, v: dict[Any, Any], out: dict[str, Any], ctx: Ctx, path: Any) -> bool:
    """Validate the payload of ``kind`` into ``out['payload']``; False when it is unusable."""
    name = kind.name
    if "payload" not in v:
        ctx.error(path, "payload", "missing_field", f"{an(name)} needs a payload object")
        return False
    raw = v["payload"]
    if type(raw) is not dict:
        ctx.wrong_type(path, "payload", "an object", raw)
        return False
    data_kind = name in _DATA_KINDS
    if data_kind:
        ctx.data_ref = "dataRef" in out
    if id(kind) in _CONTAINER_IDS:
        payload = _container_payload(kind, raw, ctx, path)
        if payload is None:
            return False
    else:
        payload = check_object(kind.spec, raw, ctx, path, "payload")
    out["payload"] = payload
    if data_kind:
        ctx.data_ref = False
        _data_slot(name, payload, out, ctx, path)
    return True


def check_element(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    """Validate one element envelope (document vocabulary); returns the normalized element or BAD."""
    if type(v) is not dict:
        ctx.wrong_type(parent, key, "an element object {kind, payload}", v)
        return BAD
    path = (parent, key)
    kind_name = v.get("kind")
    kind = ELEMENTS.get(kind_name) if type(kind_name) is str else None
    if kind is None:
        if "kind" not in v:
            ctx.error(path, "kind", "missing_field", "an element needs a kind")
        else:
            code, msg, fix = kind_problem(kind_name, ELEMENT_KINDS, "element", ctx)
            ctx.error(path, "kind", code, msg, fix)
        return BAD
    if id(kind) in _LEAF_IDS and len(v) == 2:
        # The common case: a plain {kind, payload} of a kind without nesting or bulk data.
        raw = v.get("payload")
        if type(raw) is dict:
            return {
                "kind": kind_name,
                "payload": check_object(kind.spec, raw, ctx, path, "payload"),
            }
    out: dict[str, Any] = {"kind": kind_name}
    if len(v) > 2 or "payload" not in v:
        for k in v:
            if k not in ENVELOPE_FIELDS:
                ctx.unknown_field(path, k, ENVELOPE_FIELDS, "an element envelope")
        check_envelope_extras(v, kind_name, ctx, path, out)
    if not check_payload(kind, v, out, ctx, path):
        return BAD
    if "audience" in out:
        # Keep the canonical key order kind, payload, audience, dataRef.
        out["audience"] = out.pop("audience")
    if "dataRef" in out:
        out["dataRef"] = out.pop("dataRef")
    return out


ENVELOPE_DOC = [
    ("kind", "string", "yes", "", "An element kind (or, on a board, a card kind)."),
    ("payload", "object", "yes", "", "Shape depends on the kind."),
    (
        "audience",
        AUDIENCE_FIELD.type,
        "no",
        "",
        "Readers who see the element; absent means everyone.",
    ),
    ("dataRef", "string", "no", "", "Chart and table only: bulk data stored apart."),
]
