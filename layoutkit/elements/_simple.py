"""Leaf element kinds: text, facts, tiles, media and the small planning kinds."""

from __future__ import annotations

from typing import Any

from layoutkit.elements._core import BAD, Ctx
from layoutkit.elements._fields import (
    Spec,
    boolean,
    card_id,
    check_object,
    custom,
    enum,
    map_check,
    number,
    numbers,
    obj,
    objects,
    parse_time,
    scalar,
    server_owned,
    str_or_number,
    str_or_strings,
    string,
    strings,
    text_block,
    timestamp,
)
from layoutkit.elements._kind import AUDIENCE_FIELD, Kind, one_of
from layoutkit.elements.vocab import ITEM_TONES

TONE = ITEM_TONES

# ---------------------------------------------------------------- chips, code, prose, list

CHIP = Spec("chip", [string("k", "Key.", required=True), string("v", "Value.", required=True)])

CHIPS = Kind(
    "chips",
    "A row of key/value pills for short facts.",
    Spec("chips payload", [objects("items", CHIP, "Pills, in order.", required=True)]),
    "Chips suit short facts such as owner, version or region. Longer text belongs in prose.",
)

CODE = Kind(
    "code",
    "A verbatim code listing with optional highlighting.",
    Spec(
        "code payload",
        [
            string("source", "The code, exactly as it should read.", required=True),
            string("lang", "Highlighter language id; absent means detect it."),
            string("caption", "Small line under the listing."),
        ],
    ),
)

PROSE = Kind(
    "prose",
    "Markdown text: paragraphs, links, icon tokens, wikilinks, inline math, ==marks==.",
    Spec("prose payload", [text_block("md", "The text.", required=True)]),
    "Headings inside prose get stable anchor slugs. Marks written with double equals "
    "signs do not nest.",
)

LIST = Kind(
    "list",
    "A bullet, check or numbered list of short lines.",
    Spec(
        "list payload",
        [
            enum("style", ("bullet", "check", "number"), "Marker style.", default="bullet"),
            strings("items", "Lines; inline markup allowed.", required=True),
        ],
    ),
)

# ---------------------------------------------------------------- status tiles


def _done_total(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    done, total = out.get("done"), out.get("total")
    if done is not None and total is not None and done > total:
        ctx.warn(path, "done", "done_exceeds_total", "done is larger than total")


DEPLOY = Kind(
    "deploy",
    "A deploy tile: which commit runs in which environment.",
    Spec(
        "deploy payload",
        [
            string("env", "Environment name.", required=True),
            string("sha", "Commit that was deployed.", required=True),
            timestamp("at", "When the deploy landed."),
            number("count", "Deploys in the period.", minimum=0),
            boolean("live", "True while the environment runs this deploy."),
        ],
    ),
)

EPIC = Kind(
    "epic",
    "An epic tile with its phase, progress and people.",
    Spec(
        "epic payload",
        [
            string("title", required=True),
            enum(
                "phase",
                ("planned", "built", "verified", "shipped"),
                "Where the work stands.",
                default="planned",
            ),
            enum(
                "mark",
                ("built", "verified", "shipped", "building", "due", "pinned"),
                "Why a timeline places it on a week.",
            ),
            number("done", "Finished work children.", minimum=0),
            number("total", "All work children.", minimum=0),
            string("cover", "Screenshot URL."),
            boolean("live", "Someone works on it right now."),
            strings("who", "People working on it."),
            number("id", "Task id.", integer=True),
            string("url", "Task URL."),
            string("page", "Feature page URL."),
            string("type", "Task type word."),
            timestamp("at", "When it reached the mark."),
        ],
        _done_total,
    ),
)

GOAL = Kind(
    "goal",
    "A goal tile: outcome, status, time box and progress.",
    Spec(
        "goal payload",
        [
            string("title", required=True),
            string("outcome", "What success looks like."),
            enum(
                "status",
                ("running", "overdue", "planned", "done"),
                default="planned",
            ),
            timestamp("starts"),
            timestamp("ends"),
            number("percent", "Progress.", minimum=0, maximum=100),
            number("done", minimum=0),
            number("total", minimum=0),
            string("url"),
        ],
        _done_total,
    ),
)

MILESTONE = Kind(
    "milestone",
    "A milestone with its due date and the date it was met.",
    Spec(
        "milestone payload",
        [
            string("title", required=True),
            timestamp("due"),
            timestamp("reached", "Set once the milestone is met."),
        ],
    ),
)

RELEASE = Kind(
    "release",
    "A release tile: next or cut, with merged pull requests.",
    Spec(
        "release payload",
        [
            string("title", required=True),
            enum("status", ("next", "cut"), default="cut"),
            number("prs", "Merged pull requests.", minimum=0, integer=True),
            timestamp("at", "Cut time."),
            string("url", "Release board."),
        ],
    ),
)


def _verdict_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    if "state" not in out and "text" not in out:
        ctx.error(path, None, "missing_field", "a verdict needs state, text or both")


VERDICT = Kind(
    "verdict",
    "The call: a one-line state and the reasoning behind it.",
    Spec(
        "verdict payload",
        [
            string("state", "The one-line call."),
            text_block("text", "Reasoning; blank lines split paragraphs."),
            enum("tone", ("good", "warn", "bad", "info"), default="info"),
        ],
        _verdict_post,
    ),
    "At least one of state and text must be present. The tone is never guessed from the words.",
)

# ---------------------------------------------------------------- finding, timeline

TRACE_END = Spec(
    "trace end",
    [string("key", required=True), string("dest", required=True), string("note")],
)
TRACE = Spec("trace", [obj("before", TRACE_END), obj("after", TRACE_END)])
FINDING_STATUSES = (
    "verified",
    "confirmed",
    "fixed",
    "suspected",
    "likely",
    "open",
    "refuted",
    "wont-fix",
)


def _finding_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    if not out.get("evidence"):
        ctx.warn(
            path,
            "evidence",
            "missing_evidence",
            "a finding without evidence is hard to trust",
            "add evidence: a log line, a measurement or a file reference",
        )


FINDING = Kind(
    "finding",
    "One finding of a review or investigation, with severity, status and evidence.",
    Spec(
        "finding payload",
        [
            enum("sev", ("high", "medium", "low"), "Colours the rail."),
            string("tag", "Free category."),
            enum(
                "status",
                FINDING_STATUSES,
                "verified, confirmed and fixed read as resolved; suspected, likely and "
                "open as pending.",
            ),
            string("title"),
            string("where", "Locator: file and line, route or query."),
            text_block("body", "Blank lines split paragraphs."),
            string("cause"),
            string("summary", "One concluding sentence."),
            string("cost"),
            string("fix", "One line."),
            obj("trace", TRACE, "Key movement before and after."),
            str_or_strings("evidence", "Without it the finding warns."),
        ],
        _finding_post,
    ),
    "Every field is optional, but a finding without evidence produces a warning.",
)


def _timeline_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    if out.get("axis") != "time":
        return
    for i, item in enumerate(out.get("items", ())):
        when = item.get("when")
        if type(when) is not str or parse_time(when) is None:
            ctx.warn(
                (path, "items"),
                i,
                "axis_fallback",
                "axis time needs every item's when to be a date; the spine axis is drawn",
            )
            return


TIMELINE_ITEM = Spec(
    "timeline item",
    [
        str_or_number("when", "Any label on the spine; a date on the time axis."),
        string("title"),
        string("status", "Free chip: done, good, warn, bad or a finding status."),
        text_block("text"),
        string("summary"),
        str_or_strings("evidence"),
    ],
)

TIMELINE = Kind(
    "timeline",
    "A story told in order: dated or labelled steps on a spine or a time axis.",
    Spec(
        "timeline payload",
        [
            string("title"),
            enum(
                "axis",
                ("spine", "time"),
                "time spaces items by date and needs dates.",
                default="spine",
            ),
            objects("items", TIMELINE_ITEM, "In story order.", required=True),
        ],
        _timeline_post,
    ),
)

# ---------------------------------------------------------------- stat, meter


def _stat_item_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    for name in ("label", "value"):
        if name not in out:
            ctx.warn(path, name, "missing_field", f"a stat item without {name} reads as blank")


STAT_ITEM = Spec(
    "stat item",
    [
        string("label"),
        scalar("value"),
        string("display", "Text shown instead of value."),
        scalar("delta"),
        string("note"),
        string("unit"),
        enum("tone", TONE, "Stated meaning; never inferred from a sign."),
        numbers("spark", "Sparkline values."),
    ],
    _stat_item_post,
)


def _stat_post(out: dict[str, Any], ctx: Ctx, path: Any) -> None:
    n = len(out.get("items", ()))
    if n > 6:
        ctx.warn(
            path,
            "items",
            "too_many_items",
            f"{n} stats no longer read as headlines; 3 to 6 work best",
            "move the rest into a table",
        )


STAT = Kind(
    "stat",
    "The headline strip: a few big numbers with deltas and sparklines.",
    Spec(
        "stat payload",
        [string("title"), objects("items", STAT_ITEM, "3 to 6 read best.", required=True)],
        _stat_post,
    ),
)

METER_ITEM = Spec(
    "meter item",
    [
        string("label", required=True),
        number("value", required=True),
        number("max", "Full scale.", required=True, positive=True),
        number("threshold", "Marker on the scale."),
        string("unit"),
        string("note"),
        enum("tone", TONE),
    ],
)

METER = Kind(
    "meter",
    "Gauges: values against a full scale, with an optional threshold marker.",
    Spec("meter payload", [string("title"), objects("items", METER_ITEM, required=True)]),
)

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

_TREE_CAP = 12


def _check_tree(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is not list:
        ctx.wrong_type(parent, key, "an array of primitives", v)
        return BAD
    if ctx.aux_depth >= _TREE_CAP:
        ctx.error(parent, key, "nesting_too_deep", f"mockup trees nest at most {_TREE_CAP} levels")
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
        custom("children", "array of primitive", _check_tree, "Nested primitives."),
    ],
)

FRAME = Spec(
    "mockup frame",
    [
        string("name", required=True),
        number("w", positive=True),
        number("h", positive=True),
        custom("tree", "array of primitive", _check_tree, required=True, members=PRIMITIVE),
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
    f"Primitive trees nest at most {_TREE_CAP} levels.",
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
            server_owned("pm", "object", "Editor mirror."),
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

SIMPLE_KINDS = (
    CHIPS,
    CODE,
    DEPLOY,
    EPIC,
    FIGURE,
    FINDING,
    GALLERY,
    GOAL,
    HTML,
    LIST,
    MEDIA,
    METER,
    MILESTONE,
    MOCKUP,
    PAGE,
    PROSE,
    REF,
    RELEASE,
    STAT,
    TIMELINE,
    VERDICT,
)

__all__ = ["SIMPLE_KINDS", "SOURCE", "TONE"]
