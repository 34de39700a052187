"""Board card kinds and the card envelope (board vocabulary)."""

from __future__ import annotations

import json
import re
from typing import Any

from layoutkit.elements._core import BAD, Ctx, show
from layoutkit.elements._data import SPILL_THRESHOLD_ROWS
from layoutkit.elements._diagram import DIAGRAM
from layoutkit.elements._element import (
    DOC,
    ELEMENTS,
    check_envelope_extras,
    check_payload,
    kind_problem,
)
from layoutkit.elements._fields import (
    LIST_BOUND,
    Spec,
    boolean,
    card_id,
    check_list_items,
    custom,
    enum,
    number,
    number_check,
    object_check,
    objects,
    open_enum,
    server_owned,
    spec_ref,
    str_or_strings,
    string,
    text_block,
)
from layoutkit.elements._kind import Kind, one_of
from layoutkit.elements._media import PAGE
from layoutkit.elements.vocab import (
    CALLOUT_TONES,
    CARD_SHAPES,
    CHAT_ROLES,
    DIAGRAM_TONE_DEFAULT,
    DIAGRAM_TONES,
    LINK_DISPLAYS,
    NOTE_COLORS,
    TEXT_ROLES,
)

API_LIMIT = 512 * 1024
ARTIFACT_LIMIT = 8 * 1024 * 1024

# ---------------------------------------------------------------- small cards


def _text_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    if "level" in out and out.get("role") != "heading":
        ctx.warn(path, "level", "ignored_field", "level only applies to role heading")


TEXT = Kind(
    "text",
    "A markdown card; a role marks ideas, pros, cons, risks, headings and captions.",
    Spec(
        "text card",
        [
            text_block("md", "Full markdown.", required=True),
            enum("role", TEXT_ROLES, "What the text is."),
            number(
                "level", "Heading level, with role heading.", minimum=1, maximum=3, integer=True
            ),
        ],
        _text_post,
    ),
    "Markdown covers headings, lists, task lists, tables, quotes, rules, images, links, "
    "fenced code, math and icon tokens. Raw HTML shows as literal text and unsafe link "
    "schemes are neutralized.",
)

NOTE = Kind(
    "note",
    "A sticky note.",
    Spec(
        "note card",
        [
            text_block("md", "Note text.", required=True),
            enum("color", NOTE_COLORS, default="yellow"),
        ],
    ),
    "The contract leaves the note fields open; this is the shape layoutkit accepts.",
)

SHAPE = Kind(
    "shape",
    "A coloured geometric shape with an optional label.",
    Spec(
        "shape card",
        [
            enum("shape", CARD_SHAPES, default="rect"),
            open_enum("tone", DIAGRAM_TONES, DIAGRAM_TONE_DEFAULT),
            string("label"),
        ],
    ),
    "The contract leaves the shape fields open; this is the shape layoutkit accepts. "
    "Tones follow the diagram tone vocabulary.",
)

CALLOUT = Kind(
    "callout",
    "A toned emphasis block.",
    Spec(
        "callout card",
        [
            string("title"),
            text_block("md", required=True),
            enum("tone", CALLOUT_TONES, default="info"),
        ],
    ),
    "The contract leaves the callout fields open; this is the shape layoutkit accepts.",
)

CHECK_ITEM = Spec("checklist item", [string("text", required=True), boolean("done", default=False)])
CHECKLIST = Kind(
    "checklist",
    "An interactive checklist whose ticks persist.",
    Spec(
        "checklist card",
        [string("title"), objects("items", CHECK_ITEM, required=True)],
    ),
    "The contract leaves the checklist fields open; this is the shape layoutkit accepts.",
)

# ---------------------------------------------------------------- frames


def _nullable(spec: Spec) -> Any:
    inner = object_check(spec)

    def check(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
        return None if v is None else inner(v, ctx, parent, key)

    return check


def _or_null(spec: Spec) -> dict[str, Any]:
    return {"anyOf": [spec_ref(spec), {"type": "null"}]}


CLUSTER_LAYOUT = Spec(
    "cluster layout",
    [enum("mode", ("row", "grid"), required=True), number("cols", minimum=1, integer=True)],
)
CLUSTER = Kind(
    "cluster",
    "A grouping frame; its children are the member cards.",
    Spec(
        "cluster card",
        [
            string("title", "An untitled cluster draws no chrome."),
            string("role", "kanban makes a titled cluster a status column."),
            custom(
                "layout",
                "cluster layout or null",
                _nullable(CLUSTER_LAYOUT),
                schema=_or_null(CLUSTER_LAYOUT),
                members=CLUSTER_LAYOUT,
            ),
        ],
    ),
    "Members are listed in the card's children (batch refs). Frames nest five deep on a board.",
)

SECTION_MODES = ("column", "row", "grid", "flow", "lanes", "masonry", "timeline", "timeaxis")
_COUNT = number_check(minimum=1, integer=True)


def _check_section_cols(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    # arrange takes cols "auto" and save stores the layout as arranged, so the
    # section keeps choosing a near-square grid on every reflow.
    return v if v == "auto" else _COUNT(v, ctx, parent, key)


SECTION_LAYOUT = Spec(
    "section layout",
    [
        enum("mode", SECTION_MODES, required=True),
        custom(
            "cols",
            "integer or auto",
            _check_section_cols,
            "Columns of grid and masonry; auto picks the count whose block is nearest aspect 1.6 "
            "on every reflow.",
            schema={"anyOf": [{"type": "integer", "minimum": 1}, {"const": "auto"}]},
        ),
        number("gap", minimum=0),
        number("padding", minimum=0),
        enum("sort", ("reading", "oldest")),
    ],
)
CARD_SECTION = Kind(
    "section",
    "A named frame (journey); reflows its children by its layout.",
    Spec(
        "section card",
        [
            string("title"),
            string("description", "One line under the title."),
            custom(
                "layout",
                "section layout or null",
                _nullable(SECTION_LAYOUT),
                "null hands placement back to the author.",
                schema=_or_null(SECTION_LAYOUT),
                default=lambda: {"mode": "grid", "cols": 2},
                members=SECTION_LAYOUT,
            ),
        ],
    ),
    "Children fill rows left to right in compose order and wrap after cols cards. "
    "Membership is spatial; a new iteration is a new sibling section.",
    topic="card-section",
)


def _step_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    one_of(out, ctx, path, ("image", "cardId"), "a step")


STEP = Kind(
    "step",
    "A numbered journey step showing one screen.",
    Spec(
        "step card",
        [
            string("image", "File name inside an already pushed set."),
            card_id("cardId", "Existing card shown as a live thumbnail."),
            string("title"),
            string("note"),
            number("n", "Step number.", minimum=1, integer=True),
        ],
        _step_post,
    ),
    "Give image or cardId, never both. The card takes the screen's own aspect.",
)

CARD_COMPARE = Kind(
    "compare",
    "Two existing cards behind a wipe or ghost slider.",
    Spec(
        "compare card",
        [
            card_id("a", "First card.", required=True),
            card_id("b", "Second card.", required=True),
            enum("mode", ("wipe", "ghost"), default="wipe"),
            string("title"),
        ],
    ),
    "The contract leaves the compare card fields open; this is the shape layoutkit accepts.",
    topic="card-compare",
)

# ---------------------------------------------------------------- web and files

_HTTP = re.compile(r"^https?://[^\s/?#]+", re.IGNORECASE)


def _check_url(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is not str:
        ctx.wrong_type(parent, key, "a URL string", v)
        return BAD
    if not _HTTP.match(v):
        ctx.error(parent, key, "bad_url", f"{show(v)} is not an http or https URL")
        return BAD
    return v


LINK = Kind(
    "link",
    "A website card: unfurled title and icon, screenshots, or a live frame.",
    Spec(
        "link card",
        [
            custom(
                "url",
                "http(s) URL",
                _check_url,
                # The contract matches the scheme case-insensitively; JSON Schema patterns cannot.
                schema={"type": "string", "pattern": r"^[hH][tT][tT][pP][sS]?://[^\s/?#]+"},
                required=True,
            ),
            enum("display", LINK_DISPLAYS, "How the card shows the site.", default="preview"),
            string("title", "Overrides the unfurled title."),
            server_owned("meta", "object", "Unfurled metadata."),
            server_owned("icon", "string"),
            server_owned("framable", "boolean"),
            server_owned("shots", "object"),
            server_owned("error", "string", "Why only the bare URL is kept."),
        ],
    ),
    "display (the contract leaves its name open) is preview (16:10), phone (mobile frame), "
    "widget (compact row) or live (embedded frame when the site allows it). Only public "
    "internet addresses are fetched, after the write: meta (url, contentType, title, "
    "description, siteName, image, type), icon, framable and shots ({desktop, phone} as "
    "{ref, w, h, thumb} blob keys, or {reason} without a capture sidecar) land on the card "
    "when the fetch does; error says why only the bare URL is kept.",
)

BOARD = Kind(
    "board",
    "A portal card: live minimap of another board.",
    Spec("board card", [string("board", "Target board slug.", required=True)]),
    "The target must exist and must not be the board itself; both are checked when the "
    "card is written.",
)


def _api_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    if "openapi" not in out and "swagger" not in out:
        ctx.error(path, "openapi", "missing_field", "an API description needs openapi or swagger")
    if "paths" not in out:
        ctx.error(path, "paths", "missing_field", "an API description needs paths")
    if "title" not in out:
        info = out.get("info")
        if type(info) is dict and type(info.get("title")) is str:
            out["title"] = info["title"]
    try:
        size = len(json.dumps(out, ensure_ascii=False, allow_nan=False).encode())
    except (TypeError, ValueError, RecursionError):
        ctx.error(path, None, "not_serializable", "the API description is not plain JSON")
        out.clear()
        return
    if size >= API_LIMIT:
        ctx.error(
            path,
            None,
            "too_large",
            f"the API description is {size} bytes; it must stay under {API_LIMIT}",
        )


def _check_obj(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is dict:
        return v
    ctx.wrong_type(parent, key, "an object", v)
    return BAD


API = Kind(
    "api",
    "A browsable API reference from a raw OpenAPI or Swagger description.",
    Spec(
        "api card",
        [
            string("openapi", "Version (OpenAPI 3)."),
            string("swagger", "Version (Swagger 2)."),
            custom("paths", "object", _check_obj, schema={"type": "object"}, required=True),
            custom("info", "object", _check_obj, schema={"type": "object"}),
            string("title", "Default: info.title."),
        ],
        _api_post,
        open=True,
    ),
    "Send the description unconverted; every other member is kept as is. It must "
    f"serialize to under {API_LIMIT} bytes (512 KB).",
)

_HTML_START = re.compile(r"^\s*(<!doctype|<html)", re.IGNORECASE)


def _artifact_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    shape = one_of(out, ctx, path, ("html", "body"), "an artifact")
    if shape == "html":
        html = out["html"]
        if not _HTML_START.match(html[:4096]):
            ctx.error(path, "html", "not_a_document", "html must start with <!doctype or <html")
        if len(html) > ARTIFACT_LIMIT // 4 and len(html.encode()) > ARTIFACT_LIMIT:
            ctx.error(path, "html", "too_large", f"html is over {ARTIFACT_LIMIT} bytes (8 MiB)")
        if "runtime" in out:
            ctx.warn(path, "runtime", "ignored_field", "runtime only applies to body")
            del out["runtime"]
    elif shape == "body" and out.get("runtime") != "tw4":
        ctx.error(path, "runtime", "missing_field", "body needs runtime 'tw4'")


ARTIFACT = Kind(
    "artifact",
    "Self-contained HTML in a sandboxed frame (a last resort).",
    Spec(
        "artifact card",
        [
            string("html", "Whole document from <!doctype or <html>, at most 8 MiB."),
            string("body", "Markup only, wrapped by the server with utility CSS."),
            enum("runtime", ("tw4",), "Required with body."),
            string("title"),
        ],
        _artifact_post,
    ),
    "Exactly one shape: html (a complete document; external network is blocked, so assets "
    "are inline apart from the host's /vendor/ shelf) or body with runtime tw4 (cheaper, "
    "preferred). Reach for chart, table, mockup or doc first.",
)

TURN = Spec(
    "chat turn",
    [
        enum("role", CHAT_ROLES, required=True),
        text_block("text", required=True),
        str_or_strings("evidence"),
    ],
)
CHAT = Kind(
    "chat",
    "A multi-turn AI conversation as a thread of bubbles with evidence.",
    Spec("chat card", [string("title"), objects("turns", TURN, required=True, min_items=1)]),
    "The contract leaves the chat fields open; this is the shape layoutkit accepts.",
)

FILE = Kind(
    "file",
    "An uploaded file: a PDF as an A4 card with page count, anything else a download chip.",
    Spec(
        "file card",
        [
            string("name", required=True),
            string("mime"),
            number("size", "Bytes.", minimum=0, integer=True),
            number("pages", minimum=0, integer=True),
            string("ref", "Blob reference."),
            server_owned(
                "pageImages", "array", "Rasterized PDF pages: the first 24, each {ref, w, h}."
            ),
            server_owned("pagesError", "string", "Why the PDF's pages could not be rasterized."),
        ],
    ),
    "Normally produced by uploads; images become media cards instead.",
)

CARD_KIND_LIST = (
    TEXT,
    NOTE,
    SHAPE,
    CALLOUT,
    CHECKLIST,
    CLUSTER,
    CARD_SECTION,
    STEP,
    CARD_COMPARE,
    DOC,
    LINK,
    BOARD,
    DIAGRAM,
    API,
    PAGE,
    ARTIFACT,
    CHAT,
    FILE,
)
CARDS: dict[str, Kind] = {k.name: k for k in CARD_KIND_LIST}
CARD_KINDS = tuple(CARDS)
BOARD_KINDS: dict[str, Kind] = {**ELEMENTS, **CARDS}
BOARD_VOCABULARY = CARD_KINDS + tuple(k for k in ELEMENTS if k not in CARDS)

# ---------------------------------------------------------------- card envelope

ANCHOR = Spec(
    "anchor",
    [
        card_id("cardId"),
        string("ref"),
        enum("relation", ("after", "before", "under", "beside", "into"), default="beside"),
    ],
)


#: A card named by its batch ref or by its id.
BATCH_REF_SCHEMA: dict[str, Any] = {
    "anyOf": [{"type": "string"}, {"type": "integer", "minimum": 1}]
}


def _check_children(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is not list:
        ctx.wrong_type(parent, key, "an array of refs", v)
        return BAD
    check_list_items(v, parent, key)
    path = (parent, key)
    out = []
    for i, x in enumerate(v):
        if type(x) is str or (type(x) is int and x > 0):
            out.append(x)
        else:
            ctx.wrong_type(path, i, "a batch ref or card id", x)
    return out


CARD_ENVELOPE = Spec(
    "card",
    [
        string("ref", "Batch-local handle."),
        custom(
            "children",
            "array of ref",
            _check_children,
            "Members of a cluster or section.",
            schema={"type": "array", "items": BATCH_REF_SCHEMA, **LIST_BOUND},
        ),
        custom(
            "anchor",
            "object (anchor)",
            object_check(ANCHOR),
            schema=spec_ref(ANCHOR),
            members=ANCHOR,
        ),
        number("x"),
        number("y"),
        number("w", positive=True),
        number("h", positive=True),
    ],
)
_ENVELOPE_NAMES = ("kind", "payload", "dataRef", *CARD_ENVELOPE.by_name)


def check_card(v: Any, ctx: Ctx) -> Any:
    """Validate one card (board vocabulary); returns the normalized card or BAD."""
    if type(v) is not dict:
        ctx.wrong_type(None, None, "a card object {kind, payload}", v)
        return BAD
    kind_name = v.get("kind")
    kind = BOARD_KINDS.get(kind_name) if type(kind_name) is str else None
    if kind is None:
        if "kind" not in v:
            ctx.error(None, "kind", "missing_field", "a card needs a kind")
        else:
            code, msg, fix = kind_problem(kind_name, BOARD_VOCABULARY, "card", ctx)
            ctx.error(None, "kind", code, msg, fix)
        return BAD
    root = None
    raw = v.get("payload")
    if kind_name == "doc" and type(raw) is dict and "nodes" in raw:
        ctx.error(
            (root, "payload"),
            "nodes",
            "retired_grammar",
            "the doc card's node grammar is retired; send a doc element payload",
            "put the content in payload.elements",
        )
        return BAD
    out: dict[str, Any] = {"kind": kind_name}
    for k, x in v.items():
        if k in ("kind", "payload", "dataRef"):
            continue
        f = CARD_ENVELOPE.by_name.get(k)
        if f is None:
            ctx.unknown_field(root, k, _ENVELOPE_NAMES, "a card")
            continue
        y = f.check(x, ctx, root, k) if f.check is not None else x
        if y is not BAD:
            out[k] = y
    if "dataRef" in v:
        check_envelope_extras({"dataRef": v["dataRef"]}, kind_name, ctx, root, out)
    if kind_name == "doc":
        ctx.track_sections = True
    if not check_payload(kind, v, out, ctx, root):
        return BAD
    return out


__all__ = ["BOARD_VOCABULARY", "CARDS", "CARD_KINDS", "SPILL_THRESHOLD_ROWS", "check_card"]
