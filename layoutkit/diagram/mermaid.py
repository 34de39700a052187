"""Mermaid text import: flowchart/graph, sequenceDiagram and stateDiagram into a diagram payload."""

from __future__ import annotations

from typing import Any

from layoutkit.diagram._flowchart import read_flowchart
from layoutkit.diagram._mermaid_common import (
    SUPPORTED_TYPES,
    broken,
    finding,
    split_front_matter,
    strip_comment,
)
from layoutkit.diagram._sequence import read_sequence
from layoutkit.diagram._state import read_state
from layoutkit.errors import DiagramError
from layoutkit.limits import check_limit

#: Titles for imported text that names none, by the text's diagram type word.
_TYPE_TITLES = {
    "flowchart": "Flowchart",
    "flowchart-elk": "Flowchart",
    "graph": "Flowchart",
    "sequenceDiagram": "Sequence diagram",
    "stateDiagram": "State diagram",
    "stateDiagram-v2": "State diagram",
}


def type_title(text: str) -> str:
    """A title for a diagram imported from ``text`` that names none: its type in words."""
    _, lines = split_front_matter(text)
    for _, raw in lines:
        s = strip_comment(raw).strip()
        if s and not s.startswith("%%"):
            return _TYPE_TITLES.get(s.split()[0].rstrip(";"), "Diagram")
    return "Diagram"


def import_text(text: str) -> dict[str, Any]:
    """Convert Mermaid text into the semantic diagram payload.

    Returns a dict with ``dir``, ``nodes``, ``groups``, ``lanes`` (sequence only),
    ``edges``, ``title`` when the source has one, and ``diagnostics`` notes for
    things the payload cannot express (ignored styles, reversed directions).
    Node ids are the source ids; group ids are subgraph / composite ids.

    Raises ``DiagramError("diagram_text_unsupported")`` for any other
    diagram type (``supported`` lists the accepted ones) and
    ``DiagramError("diagram_text_invalid")`` with line-numbered
    ``findings`` for text that cannot be read.
    """
    if not isinstance(text, str) or not text.strip():
        raise broken("diagram_text is empty", [finding(1, "no diagram type line")])
    check_limit("diagramLines", text.count("\n") + 1, field="diagram_text")
    meta, lines = split_front_matter(text)
    header_at = None
    for k, (_number, raw) in enumerate(lines):
        s = strip_comment(raw).strip()
        if s and not (s.startswith("%%{") or s.startswith("%%")):
            header_at = k
            break
    if header_at is None:
        raise broken("diagram_text has no diagram type line", [finding(1, "no diagram type line")])
    number, raw = lines[header_at]
    first = strip_comment(raw).strip()
    word = first.replace(";", " ").split()[0]
    body = lines[header_at + 1 :]
    if word in ("flowchart", "graph", "flowchart-elk"):
        # Statements may follow the header after a ``;`` (``graph TD;A-->B;``).
        header, _, rest = first.partition(";")
        if rest.strip():
            body = [(number, rest), *body]
        return read_flowchart(header.strip(), body, meta)
    if word == "sequenceDiagram":
        return read_sequence(lines[header_at:], meta)
    if word in ("stateDiagram", "stateDiagram-v2"):
        # The state lexer reads the header as a token: statements may follow it.
        rest = first[len(word) :].lstrip(";")
        if rest.strip():
            body = [(number, rest), *body]
        return read_state(body, meta)
    raise DiagramError(
        "diagram_text_unsupported",
        f"diagram type {word!r} is not supported; use one of: {', '.join(SUPPORTED_TYPES)}",
        supported=list(SUPPORTED_TYPES),
        findings=[
            {
                "path": "diagram_text",
                "line": number,
                "severity": "error",
                "message": f"unsupported diagram type {word!r}",
                "allowed": list(SUPPORTED_TYPES),
            }
        ],
    )
