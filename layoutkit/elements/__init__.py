"""The content contract: element and card kinds, validated, normalized and documented.

Every kind is declared once as a table of fields (``_fields.Spec``); the same
table validates payloads, fills defaults into the normalized value, generates
the field tables of the docs topics and the JSON Schema of each kind.

    >>> from layoutkit.elements import validate_element
    >>> validate_element({"kind": "prose", "payload": {"md": "Hi"}}).ok
    True
"""

from __future__ import annotations

from typing import Any

from layoutkit.elements._audience import filter_audience, visible_to
from layoutkit.elements._cards import BOARD_KINDS, BOARD_VOCABULARY, CARD_KINDS, check_card
from layoutkit.elements._core import BAD, Ctx, Finding, Validation
from layoutkit.elements._data import (
    SPILL_THRESHOLD,
    SPILL_THRESHOLD_ROWS,
    SPILL_THRESHOLD_VALUES,
    canonical_json,
    data_ref,
)
from layoutkit.elements._docs import docs_index, docs_topic, topic_names
from layoutkit.elements._element import (
    ELEMENT_KINDS,
    NESTING_CAP,
    RETIRED_CARD_KINDS,
    assign_section_ids,
    check_element,
    slugify,
)
from layoutkit.elements._fields import schema_ref
from layoutkit.elements._schema import (
    card_schema,
    card_variants,
    element_payload_ref,
    element_schema,
    schema_defs,
)
from layoutkit.elements._sources import doc_source, repo_url, source_url

__all__ = [
    "BOARD_VOCABULARY",
    "CARD_KINDS",
    "ELEMENT_KINDS",
    "NESTING_CAP",
    "RETIRED_CARD_KINDS",
    "SPILL_THRESHOLD",
    "SPILL_THRESHOLD_ROWS",
    "SPILL_THRESHOLD_VALUES",
    "Finding",
    "Validation",
    "canonical_json",
    "card_schema",
    "card_variants",
    "data_ref",
    "doc_source",
    "docs_index",
    "docs_topic",
    "element_payload_ref",
    "element_schema",
    "filter_audience",
    "repo_url",
    "schema_defs",
    "schema_ref",
    "server_fields",
    "slugify",
    "source_url",
    "topic_names",
    "validate_card",
    "validate_element",
    "visible_to",
]


def _finish(ctx: Ctx, out: Any) -> Validation:
    if out is BAD:
        return Validation(ctx.findings, None, ctx.spilled)
    assign_section_ids(ctx)
    return Validation(ctx.findings, out, ctx.spilled)


def _too_deep(ctx: Ctx) -> Validation:
    ctx.error(None, None, "too_deep", "the value nests too deeply to be checked")
    return Validation(ctx.findings, None, {})


def validate_element(value: Any, *, authored: bool = False) -> Validation:
    """Validate and normalize one element of the document vocabulary.

    Takes any Python/JSON value; never raises. The result's ``normalized`` is
    None when the input is not an element object of a known kind with an
    object payload. Section ids are derived and checked across the tree, and
    section refs are resolved when the root is a doc.
    """
    ctx = Ctx(authored=authored)
    ctx.track_sections = type(value) is dict and value.get("kind") == "doc"
    try:
        out = check_element(value, ctx, None, None)
    except RecursionError:
        return _too_deep(ctx)
    return _finish(ctx, out)


def validate_card(value: Any, *, authored: bool = False, editor: bool = False) -> Validation:
    """Validate and normalize one board card ({kind, payload, ref?, children?, anchor?, x/y/w/h?}).

    The board vocabulary is the card kinds plus the element kinds; where a name
    is both (section, compare, doc, diagram, page) the card meaning applies.
    ``authored`` drops every server-owned field, at any depth, with a
    ``server_owned`` warning (``editor`` keeps the ones the editor writes).
    Never raises.
    """
    ctx = Ctx(authored=authored, editor=editor)
    try:
        out = check_card(value, ctx)
    except RecursionError:
        return _too_deep(ctx)
    return _finish(ctx, out)


def server_fields(kind: str) -> frozenset[str]:
    """The server-owned payload fields of a board kind (none for an unknown kind)."""
    declared = BOARD_KINDS.get(kind)
    if declared is None:
        return frozenset()
    return frozenset(f.name for f in declared.spec.fields if f.server)
