"""Element kinds that show or point at things: images, media, HTML, mockups, pages, refs."""

from __future__ import annotations

from typing import Any

from layoutkit.elements._core import BAD, Ctx
from layoutkit.elements._fields import (
    LIST_BOUND,
    Spec,
    boolean,
    card_id,
    check_list_items,
    check_object,
    custom,
    enum,
    map_check,
    number,
    obj,
    objects,
    schema_ref,
    server_owned,
    str_or_number,
    string,
    text_block,
)
from layoutkit.elements._kind import AUDIENCE_FIELD, Kind, one_of

# ---------------------------------------------------------------- images and media


def _figure_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    one_of(out, ctx, path, ("src", "ref", "shot"), "a figure")


FIGURE = Kind(
    "figure",
    "One image with caption and alt text.",
    Spec(
        "figure payload",
        [
            string("src", "Image URL."),
            string("ref", "Blob or upload reference."),
            number("shot", "Index into the pushed set's shots.", minimum=0, integer=True),
            string("caption"),
            string("alt", "Accessible description."),
        ],
        _figure_post,
    ),
    "Give exactly one of src, ref and shot.",
)

GALLERY_ITEM = Spec(
    "gallery item",
    [
        string("src"),
        string("ref"),
        number("shot", minimum=0, integer=True),
        string("alt", "Missing alt text warns."),
        string("caption"),
        enum("span", ("wide", "tall", "large"), "Bento only."),
        AUDIENCE_FIELD,
    ],
)


def _gallery_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    bento = out.get("layout") == "bento"
    items_path = (path, "items")
    if len(out.get("items", ())) == 1:
        ctx.warn(path, "items", "single_image", "a gallery of one image", "use a figure")
    for i, item in enumerate(out.get("items", ())):
        one_of(item, ctx, (items_path, i), ("src", "ref", "shot"), "a gallery item")
        if "alt" not in item:
            ctx.warn(items_path, i, "missing_alt", "a gallery item without alt text")
        if "span" in item and not bento:
            ctx.warn(
                (items_path, i),
                "span",
                "ignored_field",
                "span only applies to the bento layout",
                "remove span or use layout bento",
            )


GALLERY = Kind(
    "gallery",
    "Several images as a grid, bento mosaic, masonry or carousel.",
    Spec(
        "gallery payload",
        [
            enum("layout", ("grid", "bento", "masonry", "carousel"), default="grid"),
            text_block("caption"),
            objects(
                "items",
                GALLERY_ITEM,
                "Each with exactly one of src, ref, shot.",
                required=True,
                min_items=1,
                max_items=24,
            ),
        ],
        _gallery_post,
    ),
    "grid tiles evenly, bento makes the first item large on a six-column mosaic, masonry "
    "keeps natural aspect, carousel shows one at a time. Print and export always use a "
    "two-column grid. For a single image use a figure.",
)


def _media_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    one_of(out, ctx, path, ("src", "ref"), "a media element")


MEDIA = Kind(
    "media",
    "A PDF, video, audio clip or downloadable file.",
    Spec(
        "media payload",
        [
            string("src", "URL."),
            string("ref", "Blob reference."),
            string("mime", "Type hint."),
            string("caption"),
            string("alt"),
            server_owned("natW", "number", "Natural image width, read on upload."),
            server_owned("natH", "number", "Natural image height, read on upload."),
        ],
        _media_post,
    ),
    "PDFs embed as documents, video and audio get players, other files show as a download chip.",
)


def _str_only(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is str:
        return v
    ctx.wrong_type(parent, key, "file content as a string", v)
    return BAD


_FILES = map_check(_str_only, "file contents")


def _check_files(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    out = _FILES(v, ctx, parent, key)
    if out is not BAD and "index.html" not in out:
        ctx.error(parent, key, "missing_index", "files must include index.html")
    return out


def _html_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    one_of(out, ctx, path, ("src", "files"), "an html element")


HTML = Kind(
    "html",
    "A self-contained HTML page in a sandboxed frame.",
    Spec(
        "html payload",
        [
            string("src", "Complete HTML document."),
            custom(
                "files",
                "map of path to string",
                _check_files,
                "Flat file set; must include index.html.",
                schema={
                    "type": "object",
                    "required": ["index.html"],
                    "additionalProperties": {"type": "string"},
                },
            ),
            string("title"),
            number("width", "Pinned width in px; absent means measured.", positive=True),
            number("height", "Pinned height in px; absent means measured.", positive=True),
            server_owned("href", "string"),
            server_owned("natW", "number", "Measured natural width."),
            server_owned("natH", "number", "Measured natural height."),
        ],
        _html_post,
    ),
    "Give src or files, not both. The frame shows natural size 1:1 up to 1600 px wide and "
    "scales wider pages down. HTML is opaque to search and editing, so prefer a "
    "structured kind when one fits.",
)

# ---------------------------------------------------------------- mockup

TREE_CAP = 12


def _check_tree(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is not list:
        ctx.wrong_type(parent, key, "an array of primitives", v)
        return BAD
    check_list_items(v, parent, key)
    if ctx.aux_depth >= TREE_CAP:
        ctx.error(parent, key, "nesting_too_deep", f"mockup trees nest at most {TREE_CAP} levels")
        return BAD
    ctx.aux_depth += 1
    try:
        path = (parent, key)
        out = []
        for i, x in enumerate(v):
            y = check_object(PRIMITIVE, x, ctx, path, i)
            if y is not BAD:
                out.append(y)
        return out
    finally:
        ctx.aux_depth -= 1


_TREE = {"type": "array", "items": schema_ref("primitive"), **LIST_BOUND}
PRIMITIVE = Spec(
    "primitive",
    [
        string("t", "Primitive type, e.g. button, input, list, card.", required=True),
        string("label"),
        boolean("primary"),
        str_or_number("h", "Heading level or height."),
        number("n", "Repeat count.", minimum=0),
        enum("dir", ("row", "col")),
        string("name"),
        custom(
            "children",
            "array of primitive",
            _check_tree,
            "Nested primitives.",
            # The primitive shape is still being defined here, so it is named rather than passed.
            schema=_TREE,
        ),
    ],
)

FRAME = Spec(
    "mockup frame",
    [
        string("name", required=True),
        number("w", positive=True),
        number("h", positive=True),
        custom(
            "tree",
            "array of primitive",
            _check_tree,
            schema=_TREE,
            required=True,
            members=PRIMITIVE,
        ),
    ],
)
TOKENS = Spec(
    "mockup tokens",
    [string("palette"), number("radius", minimum=0), string("font")],
)

MOCKUP = Kind(
    "mockup",
    "Low-fidelity screens drawn from a tree of UI primitives.",
    Spec(
        "mockup payload",
        [
            objects("frames", FRAME, "Screens.", required=True, min_items=1),
            obj("tokens", TOKENS, "Look of the frames."),
        ],
    ),
    f"Primitive trees nest at most {TREE_CAP} levels.",
)

# ---------------------------------------------------------------- page, ref

SOURCE = Spec(
    "source", [string("kind", required=True), string("ref", required=True), string("rev")]
)

PAGE = Kind(
    "page",
    "A markdown page; on a board, the page card.",
    Spec(
        "page payload",
        [
            text_block("md", "The durable truth.", required=True),
            obj("source", SOURCE, "Repository file the page mirrors; a push refreshes it."),
            server_owned("pm", "object", "Editor mirror.", editor=True),
            server_owned("pmStale", "boolean", "Whether pm lags md."),
        ],
    ),
    "md is the truth; the server keeps pm, the editor mirror, and flags it stale, and never "
    "converts between the two. As a card, anchors of the form #E<elemNo> deep-link into it.",
)


def _ref_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    which = one_of(out, ctx, path, ("card", "page", "section"), "a ref")
    if which == "section":
        if out.get("mode", "link") != "link":
            ctx.warn(path, "mode", "ignored_field", "a section ref is always a link")
            out["mode"] = "link"
        if ctx.track_sections:
            ctx.section_refs.append((out["section"], path, "section"))


REF = Kind(
    "ref",
    "A chip, preview or embed pointing at a card, a sibling page or a section.",
    Spec(
        "ref payload",
        [
            card_id("card", "Card id in this workspace."),
            string("page", "Slug of a page in the same push."),
            string("section", "Id of a section in the same document."),
            enum("mode", ("link", "preview", "embed"), default="link"),
            string("label", "Chip text."),
            server_owned("target", "object", "Resolved card summary."),
        ],
        _ref_post,
    ),
    "Exactly one of card, page and section. A section ref is always a link and must name "
    "a section id the same document carries.",
)

MEDIA_KINDS = (FIGURE, GALLERY, HTML, MEDIA, MOCKUP, PAGE, REF)
