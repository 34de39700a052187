"""The content contract (being built): element and card kinds, validation, docs topics."""

from __future__ import annotations

from typing import Any

import attrs


@attrs.frozen
class Validation:
    findings: list[dict[str, Any]]
    normalized: Any

    def as_dict(self) -> dict[str, Any]:
        ok = not any(f["severity"] == "error" for f in self.findings)
        return {"ok": ok, "findings": self.findings, "normalized": self.normalized}


def validate_element(value: Any) -> Validation:
    return Validation([], value)


def validate_card(value: Any) -> Validation:
    return Validation([], value)


def docs_index() -> list[dict[str, str]]:
    return []


def docs_topic(topic: str) -> str | None:
    return None


def topic_names() -> list[str]:
    return []
