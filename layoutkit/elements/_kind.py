"""The kind descriptor shared by element and card declarations."""

from __future__ import annotations

from typing import Any

import attrs

from layoutkit.elements._core import BAD, Ctx, show
from layoutkit.elements._fields import Field, Spec
from layoutkit.elements.vocab import AUDIENCES

AUDIENCE_SET = frozenset(AUDIENCES)


@attrs.frozen
class Kind:
    """One kind: its payload shape (which validates and documents it) and its topic prose."""

    name: str
    summary: str
    spec: Spec
    prose: str = ""
    topic: str = ""

    @property
    def topic_name(self) -> str:
        return self.topic or self.name


def one_of(
    out: dict[str, Any], ctx: Ctx, path: Any, names: tuple[str, ...], what: str
) -> str | None:
    """Require exactly one of ``names`` in ``out``; returns the one present, if unique."""
    present = [n for n in names if n in out]
    listed = ", ".join(names)
    if not present:
        ctx.error(path, None, "missing_field", f"{what} needs exactly one of {listed}")
        return None
    if len(present) > 1:
        ctx.error(
            path,
            present[1],
            "conflicting_fields",
            f"{what} takes exactly one of {listed}, got {' and '.join(present)}",
            f"keep only {present[0]!r}",
        )
        return None
    return present[0]


def check_audience(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    """An audience list: 1 to 3 distinct names of public, technical, internal."""
    if type(v) is not list:
        ctx.wrong_type(parent, key, "an array of audience names", v)
        return BAD
    if not v or len(v) > 3:
        ctx.error(parent, key, "bad_audience", f"takes 1 to 3 audience names, got {len(v)}")
        return BAD
    out: list[str] = []
    path = (parent, key)
    for i, a in enumerate(v):
        if type(a) is not str or a not in AUDIENCE_SET:
            ctx.error(
                path,
                i,
                "bad_audience",
                f"{show(a)} is not an audience; use {', '.join(AUDIENCES)}",
            )
            return BAD
        if a in out:
            ctx.error(path, i, "bad_audience", f"audience {a!r} is listed twice")
            return BAD
        out.append(a)
    return out


AUDIENCE_FIELD = Field(
    "audience",
    "array of 1..3 of " + ", ".join(AUDIENCES),
    check_audience,
    notes="Only these readers see it; absent means everyone.",
    schema={
        "type": "array",
        "items": {"enum": list(AUDIENCES)},
        "minItems": 1,
        "maxItems": 3,
        "uniqueItems": True,
    },
)
