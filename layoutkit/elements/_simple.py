"""Leaf element kinds of text, facts and status: chips to verdict."""

from __future__ import annotations

from typing import Any

from layoutkit.elements._core import Ctx
from layoutkit.elements._fields import (
    Spec,
    boolean,
    enum,
    number,
    numbers,
    obj,
    objects,
    parse_time,
    scalar,
    str_or_number,
    str_or_strings,
    string,
    strings,
    text_block,
    timestamp,
)
from layoutkit.elements._kind import Kind
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

SIMPLE_KINDS = (
    CHIPS,
    CODE,
    DEPLOY,
    EPIC,
    FINDING,
    GOAL,
    LIST,
    METER,
    MILESTONE,
    PROSE,
    RELEASE,
    STAT,
    TIMELINE,
    VERDICT,
)

__all__ = ["CHIP", "SIMPLE_KINDS", "TONE"]
