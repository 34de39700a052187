"""One plain, valid payload per card kind and per document element kind: what an agent
that has read the docs topic of the kind would send."""

from __future__ import annotations

from typing import Any

_PROSE = {"kind": "prose", "payload": {"md": "Body text."}}
_IMAGE = "https://example.com/shot.png"

#: Payloads a card and an element of the same name share.
SHARED: dict[str, dict[str, Any]] = {
    "chart": {"viz": "line", "data": {"series": [{"label": "Visits", "values": [1, 2, 3]}]}},
    "chips": {"items": [{"k": "Owner", "v": "Ada"}]},
    "code": {"source": "print('hi')", "lang": "python"},
    "columns": {"ratio": "1:2", "cols": [{"elements": [_PROSE]}, {"elements": [_PROSE]}]},
    "deploy": {"env": "prod", "sha": "abc1234"},
    "diagram": {"title": "Flow", "diagram_text": "flowchart LR\n  A --> B"},
    "epic": {"title": "Checkout"},
    "figure": {"src": _IMAGE, "alt": "A shot", "caption": "The page"},
    "finding": {"title": "Slow search", "sev": "high", "evidence": "trace 12"},
    "gallery": {"items": [{"src": _IMAGE, "alt": "One"}, {"src": _IMAGE, "alt": "Two"}]},
    "goal": {"title": "Ship the beta"},
    "html": {"src": "https://example.com/", "title": "Page"},
    "list": {"items": ["One", "Two"]},
    "media": {"src": "https://example.com/clip.mp4", "alt": "A clip"},
    "meter": {"items": [{"label": "Done", "value": 3, "max": 10}]},
    "milestone": {"title": "Beta"},
    "mockup": {"frames": [{"name": "Home", "tree": [{"t": "text", "label": "Hello"}]}]},
    "page": {"md": "# Title\n\nBody."},
    "prose": {"md": "Some **text**."},
    "ref": {"page": "intro", "label": "Intro"},
    "release": {"title": "1.0"},
    "stat": {"items": [{"label": "Users", "value": 120}]},
    "table": {"cols": [{"key": "name"}], "rows": [{"name": "Ada"}]},
    "timeline": {"items": [{"when": "2024-01-01", "title": "Start"}]},
    "verdict": {"state": "pass", "text": "Looks right", "tone": "good"},
}

CARDS: dict[str, dict[str, Any]] = {
    **SHARED,
    "text": {"md": "Hello"},
    "note": {"md": "Remember this", "color": "pink"},
    "shape": {"shape": "round", "label": "Box"},
    "callout": {"md": "Careful", "tone": "warn"},
    "checklist": {"title": "Todo", "items": [{"text": "Write"}, {"text": "Ship"}]},
    "cluster": {"title": "Group"},
    "section": {"title": "Part one"},
    "step": {"image": _IMAGE, "title": "Open the page"},
    "compare": {"a": 1, "b": 2},
    "doc": {"title": "Report", "elements": [_PROSE]},
    "link": {"url": "https://example.com/", "title": "Example"},
    "board": {"board": "other"},
    "api": {"openapi": "3.1.0", "info": {"title": "API", "version": "1"}, "paths": {}},
    "artifact": {"body": "<p>Hi</p>", "runtime": "tw4", "title": "Snippet"},
    "chat": {"turns": [{"role": "user", "text": "Hello"}]},
    "file": {"name": "notes.txt"},
}

ELEMENTS: dict[str, dict[str, Any]] = {
    **SHARED,
    "section": {"title": "Part one", "elements": [_PROSE]},
    "compare": {
        "a": {"label": "Before", "elements": [_PROSE]},
        "b": {"label": "After", "elements": [_PROSE]},
    },
}
