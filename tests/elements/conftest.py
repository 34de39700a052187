"""Shared helpers: minimal valid payloads per kind and finding lookups."""

from __future__ import annotations

from typing import Any

import pytest

from layoutkit.elements import Validation

P = {"kind": "prose", "payload": {"md": "text"}}

#: A minimal valid payload for every element kind.
VALID_ELEMENTS: dict[str, dict[str, Any]] = {
    "chart": {"viz": "line", "data": {"series": [{"points": [1, 2, 3]}]}},
    "chips": {"items": [{"k": "Owner", "v": "Ann"}]},
    "code": {"source": "print(1)"},
    "columns": {"cols": [{"elements": [P]}, {"elements": [P]}]},
    "compare": {"a": {"label": "A", "elements": [P]}, "b": {"label": "B", "elements": [P]}},
    "deploy": {"env": "prod", "sha": "abc123"},
    "diagram": {
        "title": "Flow",
        "nodes": [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}],
        "edges": [{"from": "a", "to": "b"}],
    },
    "doc": {"title": "Doc", "elements": [P]},
    "epic": {"title": "Epic"},
    "figure": {"src": "https://x.example/a.png", "alt": "a"},
    "finding": {"title": "Slow", "evidence": "trace 12"},
    "gallery": {"items": [{"src": "https://x.example/a.png", "alt": "a"}]},
    "goal": {"title": "Goal"},
    "html": {"src": "<!doctype html><p>x</p>"},
    "list": {"items": ["a", "b"]},
    "media": {"src": "https://x.example/a.pdf"},
    "meter": {"items": [{"label": "CPU", "value": 3, "max": 10}]},
    "milestone": {"title": "M1", "due": "2024-06-01"},
    "mockup": {"frames": [{"name": "home", "tree": [{"t": "button", "label": "Go"}]}]},
    "page": {"md": "# Page"},
    "prose": {"md": "Hello"},
    "ref": {"card": 12},
    "release": {"title": "v1"},
    "section": {"title": "Intro", "elements": [P]},
    "stat": {"items": [{"label": "Users", "value": 10}]},
    "table": {"cols": [{"key": "a"}], "rows": [{"a": 1}]},
    "timeline": {"items": [{"when": "May", "title": "Start"}]},
    "verdict": {"state": "Go"},
}

#: A minimal valid payload for every card kind.
VALID_CARDS: dict[str, dict[str, Any]] = {
    "text": {"md": "hello"},
    "note": {"md": "remember"},
    "shape": {"shape": "circle", "label": "x"},
    "callout": {"md": "careful"},
    "checklist": {"items": [{"text": "a"}, {"text": "b", "done": True}]},
    "cluster": {"title": "Todo", "layout": {"mode": "row"}},
    "section": {"title": "Journey"},
    "step": {"image": "login.png"},
    "compare": {"a": 1, "b": 2},
    "doc": {"elements": [P]},
    "link": {"url": "https://example.com"},
    "board": {"board": "other-board"},
    "diagram": {"title": "D", "nodes": [{"title": "A"}]},
    "api": {"openapi": "3.1.0", "info": {"title": "Pets"}, "paths": {}},
    "page": {"md": "# P"},
    "artifact": {"body": "<div>x</div>", "runtime": "tw4"},
    "chat": {"turns": [{"role": "user", "text": "hi"}]},
    "file": {"name": "a.pdf", "mime": "application/pdf", "pages": 3},
}


def el(kind: str, payload: Any, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "payload": payload, **extra}


def codes(v: Validation, severity: str | None = None) -> list[tuple[str, str]]:
    """(path, code) of the findings, optionally of one severity."""
    return [(f.path, f.code) for f in v.findings if severity is None or f.severity == severity]


def errors(v: Validation) -> list[tuple[str, str]]:
    return codes(v, "error")


def warnings(v: Validation) -> list[tuple[str, str]]:
    return codes(v, "warning")


@pytest.fixture
def valid_elements() -> dict[str, dict[str, Any]]:
    return VALID_ELEMENTS
