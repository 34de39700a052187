"""Reader for Mermaid ``sequenceDiagram`` text: participants in one lane, messages as edges."""

from __future__ import annotations

import json
import re
from typing import Any

from layoutkit.diagram._mermaid_common import broken, clean_label, finding, note, strip_comment

_PARTICIPANT = re.compile(
    r"^(?:create\s+)?(participant|actor)\s+([^\s@]+?)(?:@(\{.*?\}))?(?:\s+as\s+(.+))?\s*$"
)
_MESSAGE = re.compile(
    r"^(?P<src>[^:]+?)\s*(?P<c1>\(\))?(?P<arrow><<-->>|<<->>|-->>|->>|-->|->|--x|-x|--\)|-\))"
    r"\s*(?P<c2>\(\))?\s*(?P<act>[+-])?\s*(?P<dst>[^:]+?)\s*:(?P<text>.*)$"
)
_ARROW_STYLE = {
    "->>": "solid",
    "-->>": "dashed",
    "->": "plain",
    "-->": "dotted",
    "-x": "cross",
    "--x": "cross",
    "-)": "solid",
    "--)": "dashed",
    "<<->>": "both",
    "<<-->>": "both",
}
_KIND_SHAPES = {
    "actor": "person",
    "database": "cylinder",
    "queue": "cylinder",
    "collections": "document",
}
_BLOCKS = ("loop", "alt", "opt", "par", "critical", "break", "rect")
_BRANCHES = {"else": "alt", "and": "par", "option": "critical"}


def block_prefix(blocks: list[dict[str, Any]]) -> str:
    """The label prefix for the enclosing blocks, outermost first (colour ``rect`` blocks skipped)."""
    parts = []
    for b in blocks:
        if b["type"] == "rect":
            continue
        if b.get("branch"):
            word, label = b["branch"], b.get("branchLabel", "")
        else:
            word, label = b["type"], b.get("label", "")
        parts.append(f"[{word} {label}]".replace(" ]", "]"))
    return " ".join(parts)


def read_sequence(lines: list[tuple[int, str]], meta: dict[str, str]) -> dict[str, Any]:
    """Convert sequence diagram text (header already split off) into a diagram payload."""
    participants: dict[str, dict[str, Any]] = {}
    edges: list[dict[str, Any]] = []
    stack: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []
    title = meta.get("title")
    autonumber = False
    counter = 0
    box_depth = 0

    def ensure(pid: str) -> None:
        if pid not in participants:
            participants[pid] = {"id": pid, "title": pid, "kind": "participant"}

    for number, raw in lines:
        s = strip_comment(raw).strip()
        if not s:
            continue
        word = s.split(None, 1)[0]
        rest = s[len(word) :].strip()
        m = _PARTICIPANT.match(s)
        if m:
            kind, pid, extra, alias = m.groups()
            entry = participants.setdefault(pid, {"id": pid, "title": pid, "kind": kind})
            entry["kind"] = kind
            if extra:
                try:
                    spec = json.loads(extra)
                except ValueError:
                    spec = {}
                entry["kind"] = spec.get("type", kind)
                if spec.get("alias"):
                    entry["title"] = clean_label(spec["alias"])
            if alias:
                entry["title"] = clean_label(alias)
            continue
        if word in _BLOCKS:
            stack.append({"type": word, "label": clean_label(rest)})
            continue
        if word in _BRANCHES:
            if not stack:
                errors.append(finding(number, f"'{word}' outside a block"))
                continue
            stack[-1]["branch"] = word
            stack[-1]["branchLabel"] = clean_label(rest)
            continue
        if word == "end":
            if box_depth and not stack:
                box_depth -= 1
            elif stack:
                stack.pop()
            else:
                errors.append(finding(number, "'end' without an open block"))
            continue
        if word == "box":
            box_depth += 1
            notes.append(note("box_ignored", "participant boxes are not drawn", number))
            continue
        if word == "autonumber":
            autonumber = True
            continue
        if word == "title":
            title = rest.lstrip(":").strip()
            continue
        if word.lower() == "note" or word in ("activate", "deactivate", "destroy", "link", "links"):
            continue
        if word.startswith(("accTitle", "accDescr")):
            continue
        mm = _MESSAGE.match(s)
        if not mm:
            errors.append(finding(number, f"cannot read {s[:40]!r}"))
            continue
        src, dst = mm.group("src").strip(), mm.group("dst").strip()
        ensure(src)
        ensure(dst)
        counter += 1
        label = clean_label(mm.group("text"))
        prefix = block_prefix(stack)
        if prefix:
            label = f"{prefix} {label}".strip()
        if autonumber:
            label = f"{counter}. {label}"
        edge: dict[str, Any] = {"from": src, "to": dst}
        style = _ARROW_STYLE[mm.group("arrow")]
        if style != "solid":
            edge["style"] = style
        if label:
            edge["label"] = label
        edges.append(edge)
    if stack:
        errors.append(
            finding(lines[-1][0] if lines else 1, f"block {stack[-1]['type']!r} is never closed")
        )
    if errors:
        raise broken("the sequence diagram text cannot be read", errors)
    nodes = []
    for p in participants.values():
        node: dict[str, Any] = {"id": p["id"], "title": p["title"]}
        shape = _KIND_SHAPES.get(p["kind"])
        if shape:
            node["shape"] = shape
        nodes.append(node)
    payload: dict[str, Any] = {}
    if title:
        payload["title"] = title
    payload["dir"] = "LR"
    payload["lanes"] = [{"label": "Participants", "nodes": nodes}]
    payload["edges"] = edges
    if notes:
        payload["diagnostics"] = notes
    return payload
