"""Findings, the validation result, and the bookkeeping one validation run carries.

Paths are built lazily: a location is a linked pair ``(parent, key)`` and is
only formatted into text when a finding is recorded, so valid content never
pays for path strings.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from layoutkit.errors import did_you_mean, show, typename

#: Marker a checker returns when the value cannot be kept in the normalized output.
BAD: Any = type("_Bad", (), {"__repr__": lambda self: "BAD"})()

#: Marker for "no default" in field declarations.
MISSING: Any = type("_Missing", (), {"__repr__": lambda self: "MISSING"})()

#: Fuzzy suggestions per validation run; past this, findings carry no did-you-mean.
SUGGESTION_CAP = 200

_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


@attrs.frozen
class Finding:
    """One problem found in a payload, located by a path such as ``payload.items[2].tone``."""

    path: str
    severity: str
    code: str
    message: str
    fix: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The finding as JSON-able dict; ``fix`` is present only when there is one."""
        out: dict[str, Any] = {
            "path": self.path,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
        }
        if self.fix is not None:
            out["fix"] = self.fix
        return out


@attrs.frozen
class Validation:
    """Result of validating one element or card.

    ``normalized`` is None only when the input is not an object of a known kind.
    ``spilled`` maps each ``dataRef`` the normalizer created to the bulk data it
    moved out of the payload.
    """

    findings: list[Finding]
    normalized: Any
    spilled: dict[str, Any] = attrs.field(factory=dict)

    @property
    def ok(self) -> bool:
        """False iff some finding is an error."""
        return not any(f.severity == "error" for f in self.findings)

    def as_dict(self) -> dict[str, Any]:
        """``{ok, findings, normalized}`` plus ``spilled`` when something was spilled."""
        out: dict[str, Any] = {
            "ok": self.ok,
            "findings": [f.as_dict() for f in self.findings],
            "normalized": self.normalized,
        }
        if self.spilled:
            out["spilled"] = self.spilled
        return out


def format_path(parent: Any, key: Any) -> str:
    """Render a linked location ``(parent, key)`` as ``payload.items[2].tone``."""
    keys = [key]
    node = parent
    while node is not None:
        node, k = node
        keys.append(k)
    parts: list[str] = []
    for k in reversed(keys):
        if k is None:
            continue
        if type(k) is int:
            parts.append(f"[{k}]")
        elif type(k) is str and _PLAIN_KEY.match(k):
            parts.append(f".{k}" if parts else k)
        else:
            parts.append(f"[{show(k)}]")
    return "".join(parts)


class Ctx:
    """Mutable state of one validation run: findings, nesting depth, sections, spills."""

    __slots__ = (
        "anchor_refs",
        "authored",
        "aux_depth",
        "data_ref",
        "depth",
        "editor",
        "findings",
        "pending_sections",
        "section_ids",
        "section_refs",
        "spilled",
        "suggestions",
        "track_sections",
    )

    def __init__(self, *, authored: bool = False, editor: bool = False) -> None:
        self.findings: list[Finding] = []
        # An authored value (what a client wrote) may not carry server-owned fields:
        # they are dropped with a warning. ``editor`` lets the editor-written ones
        # (a page's pm, a diagram's overrides) through: the editor's write path.
        self.authored = authored
        self.editor = editor
        self.suggestions = 0
        self.depth = 0
        # Depth of other recursive shapes (mockup trees, diagram groups).
        self.aux_depth = 0
        # True while checking the payload of an element whose envelope carries a dataRef.
        self.data_ref = False
        self.spilled: dict[str, Any] = {}
        # Section ids are resolved after the whole tree is walked (document order).
        self.track_sections = False
        self.section_ids: dict[str, Any] = {}
        self.pending_sections: list[tuple[dict[str, Any], str]] = []
        self.section_refs: list[tuple[str, Any, Any]] = []
        # Table links to #section-id: a missing anchor warns rather than fails.
        self.anchor_refs: list[tuple[str, Any, Any]] = []

    def error(self, parent: Any, key: Any, code: str, message: str, fix: str | None = None) -> None:
        self.findings.append(Finding(format_path(parent, key), "error", code, message, fix))

    def warn(self, parent: Any, key: Any, code: str, message: str, fix: str | None = None) -> None:
        self.findings.append(Finding(format_path(parent, key), "warning", code, message, fix))

    def wrong_type(self, parent: Any, key: Any, expected: str, value: Any) -> None:
        self.error(parent, key, "wrong_type", f"expected {expected}, got {typename(value)}")

    def suggest(self, word: Any, choices: Any) -> str | None:
        """``did you mean 'x'?`` for a close match, or None (also once a run made many)."""
        if type(word) is not str or self.suggestions >= SUGGESTION_CAP:
            return None
        self.suggestions += 1
        hits = did_you_mean(word[:200], choices, n=1)
        return f"did you mean {hits[0]!r}?" if hits else None

    def unknown_field(self, parent: Any, key: Any, known: Any, where: str) -> None:
        fix = self.suggest(key, known)
        self.warn(
            parent,
            key,
            "unknown_field",
            f"{where} has no field {show(key)}; it is left out of the normalized payload",
            fix,
        )
