"""Docs topics, generated from the same field tables that validate payloads."""

from __future__ import annotations

from functools import cache

from layoutkit.elements._cards import ANCHOR, API_LIMIT, ARTIFACT_LIMIT, CARD_ENVELOPE, CARDS
from layoutkit.elements._data import SPILL_THRESHOLD_ROWS, SPILL_THRESHOLD_VALUES
from layoutkit.elements._diagram import GROUP_DEPTH_CAP
from layoutkit.elements._element import ELEMENTS, ENVELOPE_DOC, NESTING_CAP, RETIRED_CARD_KINDS
from layoutkit.elements._fields import Spec
from layoutkit.elements._kind import Kind
from layoutkit.elements._media import TREE_CAP
from layoutkit.elements.vocab import AUDIENCES

_SHARED = ("doc", "diagram", "page")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def field_table(spec: Spec) -> str:
    """Markdown table of a spec's fields: name, type, required, default, notes."""
    lines = ["| Field | Type | Required | Default | Notes |", "|---|---|---|---|---|"]
    for f in spec.fields:
        lines.append(
            f"| {f.name} | {_cell(f.type)} | {'yes' if f.required else 'no'} | "
            f"{_cell(f.default_doc)} | {_cell(f.notes)} |"
        )
    return "\n".join(lines)


def _member_specs(spec: Spec, seen: dict[str, Spec]) -> None:
    for f in spec.fields:
        m = f.members
        if m is not None and m.title not in seen:
            seen[m.title] = m
            _member_specs(m, seen)


def kind_topic(kind: Kind, heading: str) -> str:
    parts = [f"# {heading}", "", kind.summary, ""]
    if kind.prose:
        parts += [kind.prose, ""]
    parts += ["## Payload fields", "", field_table(kind.spec), ""]
    members: dict[str, Spec] = {}
    _member_specs(kind.spec, members)
    for title, spec in members.items():
        parts += [f"### {title}", "", field_table(spec), ""]
    server = [f.name for f in kind.spec.fields if f.server]
    if server:
        parts += [
            "Server-owned fields (" + ", ".join(server) + ") may come back from a read and "
            "be sent again unchanged; the server rewrites them on every write.",
            "",
        ]
    return "\n".join(parts).rstrip() + "\n"


def _envelope_topic() -> str:
    rows = ["| Field | Type | Required | Default | Notes |", "|---|---|---|---|---|"]
    rows += [f"| {n} | {_cell(t)} | {r} | {d} | {_cell(no)} |" for n, t, r, d, no in ENVELOPE_DOC]
    retired = ", ".join(f"{old} (use {new})" for old, new in RETIRED_CARD_KINDS.items())
    return "\n".join(
        [
            "# envelope",
            "",
            "Every element is an object with a kind and a payload; the payload's shape is "
            "the kind's topic. A document nests elements inside doc, section, columns and "
            f"compare, at most {NESTING_CAP} containers deep.",
            "",
            "## Element envelope",
            "",
            *rows,
            "",
            "## Card envelope (boards)",
            "",
            "A card is {kind, payload} plus placement hints. The board vocabulary is every "
            "card kind plus every element kind (an element kind takes the element payload). "
            "Where a name is both, such as section and compare, the card meaning applies. "
            f"Retired card names are refused: {retired}.",
            "",
            "Besides kind and payload (and dataRef on chart and table cards), a card takes:",
            "",
            field_table(CARD_ENVELOPE),
            "",
            "### anchor",
            "",
            field_table(ANCHOR),
            "",
            "## How validation answers",
            "",
            "A check returns ok, findings and the normalized value. A finding has a path "
            "(payload.elements[1].payload.viz), a severity (error or warning), a machine "
            "code, a message and sometimes a fix. ok is false exactly when an error is "
            "present.",
            "",
            "Normalization fills every default listed in the field tables. An unknown field "
            "is a warning (code unknown_field, with a did-you-mean when one is close) and is "
            "left out of the normalized value, so stored payloads stay canonical.",
            "",
            "Server-owned fields (diagram geo, render, overrides, metrics, repairs, "
            "diagnostics; page pm, pmStale; ref target; html href, natW, natH; link unfurl "
            "data; file pageImages; doc set) are never an error: a value read back can be "
            "sent again. validate passes it through unchanged (as long as it is plain JSON); "
            "every write (compose, update_cards, push, and elements nested in a doc card) "
            "drops what was sent with a server_owned warning and keeps or recomputes the "
            "server's own value. A page's pm and a diagram's overrides are the editor's: only "
            "a person's payload patch (the board's editor) sets them; a new md under an "
            "unchanged pm sets pmStale.",
            "",
            "Numbers are finite; integers fit in signed 64 bits. Anything else is reported "
            "as a finding, never raised.",
            "",
            "Bulk data: see the limits topic for when chart data and table rows move behind "
            "a dataRef.",
        ]
    )


def _audiences_topic() -> str:
    names = ", ".join(AUDIENCES)
    return "\n".join(
        [
            "# audiences",
            "",
            f"An element may name the readers it is for: audience is a list of 1 to 3 of "
            f"{names}, without repeats. Untagged content is for everyone.",
            "",
            "Table rows written as {cells, audience} and gallery items with an audience are "
            "filtered the same way.",
            "",
            "When a document is shown to one audience:",
            "",
            "- an element tagged for other readers is left out;",
            "- a doc, section, columns or compare whose children were all left out vanishes "
            "(a section that was empty to begin with keeps its bare heading);",
            "- a columns element left with one column gives its content to the parent;",
            "- a gallery without visible items and a table without a visible row vanish; a "
            "table whose rows sit behind a dataRef is kept as is.",
        ]
    )


def _limits_topic() -> str:
    rows = [
        ("Nesting of doc, section, columns, compare", f"{NESTING_CAP} levels"),
        ("Gallery items", "1 to 24"),
        ("Columns", "2 to 3"),
        ("Stat strip", "3 to 6 read best; more warns"),
        ("Section id", "64 characters, ^[a-z0-9][a-z0-9-]{0,63}$"),
        ("Frame nesting on a board", "5"),
        ("Diagram group nesting", f"{GROUP_DEPTH_CAP} levels"),
        ("Mockup primitive tree", f"{TREE_CAP} levels"),
        ("html element width", "1:1 up to 1600 px, scaled beyond"),
        ("artifact html", f"{ARTIFACT_LIMIT} bytes (8 MiB)"),
        ("api card description", f"under {API_LIMIT} bytes (512 KB) as JSON"),
        ("Table rows kept inline", f"{SPILL_THRESHOLD_ROWS}; more move behind a dataRef"),
        ("Chart numbers kept inline", f"{SPILL_THRESHOLD_VALUES}; more move behind a dataRef"),
    ]
    table = ["| Subject | Limit |", "|---|---|", *(f"| {a} | {_cell(b)} |" for a, b in rows)]
    return "\n".join(
        [
            "# limits",
            "",
            *table,
            "",
            "## Spilling bulk data",
            "",
            "Authors always write data inline. When a normalized table has more than "
            f"{SPILL_THRESHOLD_ROWS} rows, or a chart's data holds more than "
            f"{SPILL_THRESHOLD_VALUES} numbers (series points and values, items, heatmap "
            "cells, calendar days), the rows or the whole data object leave the payload. The "
            "envelope gets dataRef = sha256:<hex>, the SHA-256 of the data's canonical JSON "
            "(sorted keys, no whitespace, UTF-8), so equal data shares one stored blob. A "
            "table with audience-tagged rows stays inline so readers can be filtered.",
        ]
    )


@cache
def _topics() -> dict[str, tuple[str, str]]:
    topics: dict[str, tuple[str, str]] = {
        "envelope": ("Element and card envelopes, findings, normalization.", _envelope_topic()),
        "audiences": ("Who sees what: audience tags and filtering.", _audiences_topic()),
        "limits": ("Sizes, counts, nesting caps and the spill threshold.", _limits_topic()),
    }
    for name, kind in ELEMENTS.items():
        shared = name in _SHARED
        heading = f"{name} (element and card)" if shared else f"{name} (element)"
        said = "Document element and board card" if shared else "Document element"
        topics[kind.topic_name] = (f"{said}: {kind.summary}", kind_topic(kind, heading))
    for name, kind in CARDS.items():
        if name in _SHARED:
            continue
        text = kind_topic(kind, f"{name} (card)")
        topics[kind.topic_name] = (f"Board card: {kind.summary}", text)
    # A name that is both a document element and (as card-<name>) a board card:
    # each topic points at the other, so a reader who asked for one finds both.
    for name, kind in CARDS.items():
        other = ELEMENTS.get(name)
        if other is None or kind.topic_name == other.topic_name:
            continue
        for here, there in ((other.topic_name, kind.topic_name), (kind.topic_name, name)):
            summary, text = topics[here]
            also = f"See also `{there}`: {topics[there][0]}"
            head, _, rest = text.partition("\n\n")
            topics[here] = (summary, f"{head}\n\n{also}\n\n{rest}")
    return topics


def ambiguous_topics() -> dict[str, str]:
    """Names that are a document element and, as ``card-<name>``, a board card too."""
    return {
        name: kind.topic_name
        for name, kind in CARDS.items()
        if name in ELEMENTS and kind.topic_name != ELEMENTS[name].topic_name
    }


def docs_index() -> list[dict[str, str]]:
    """Every topic with a one-line summary, in index order."""
    return [{"topic": t, "summary": s} for t, (s, _) in _topics().items()]


def docs_topic(topic: str) -> str | None:
    """The markdown text of ``topic``, or None when there is no such topic."""
    entry = _topics().get(topic)
    return entry[1] if entry else None


def topic_names() -> list[str]:
    """All topic names."""
    return list(_topics())
