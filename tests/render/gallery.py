"""Representative documents and boards shared by the snapshot, kind and browser tests."""

from __future__ import annotations

from typing import Any

from layoutkit.layout.sizing import size_card

PNG_1PX = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

DIAGRAM: dict[str, Any] = {
    "title": "Checkout",
    "kicker": "architecture",
    "subtitle": "Request path of an order",
    "stats": [{"value": "3", "label": "services"}, {"value": "99.9%", "label": "SLO"}],
    "lanes": [
        {
            "label": "Edge",
            "nodes": [{"id": "web", "title": "Web", "icon": "globe", "tone": "info"}],
        },
        {
            "label": "Core",
            "groups": [
                {
                    "id": "svc",
                    "title": "Services",
                    "tone": "teal",
                    "nodes": [
                        {
                            "id": "api",
                            "type": "endpoint",
                            "title": "Create order",
                            "method": "POST",
                            "path": "/orders",
                            "codes": [201, 400, 409],
                        },
                        {
                            "id": "worker",
                            "type": "service",
                            "title": "Worker",
                            "replicas": 3,
                            "mappings": [{"host": 8080, "cont": 80, "proto": "tcp"}],
                        },
                    ],
                }
            ],
            "nodes": [
                {
                    "id": "orders",
                    "type": "entity",
                    "title": "orders",
                    "columns": [
                        {"name": "id", "type": "uuid", "pk": True},
                        {"name": "user_id", "type": "uuid", "fk": True},
                        {"name": "note", "type": "text", "nullable": True},
                    ],
                },
                {
                    "id": "memo",
                    "type": "note",
                    "title": "Idempotent",
                    "body": "keyed by requestKey",
                },
                {
                    "id": "q",
                    "title": "Queue",
                    "shape": "cylinder",
                    "chips": [{"text": "fifo", "tone": "good"}],
                },
            ],
        },
    ],
    "edges": [
        {"from": "web", "to": "api", "label": "HTTPS"},
        {"from": "api", "to": "orders", "style": "dashed"},
        {"from": "api", "to": "q", "style": "thick"},
        {"from": "q", "to": "worker", "style": "both", "label": "jobs"},
    ],
    "legend": [{"style": "dashed", "label": "writes"}, {"style": "thick", "label": "async"}],
    "footer": "Drawn from geo",
    "geo": {
        "nodes": {
            "web": {"x": 40, "y": 30, "w": 140, "h": 48},
            "api": {"x": 240, "y": 40, "w": 190, "h": 70},
            "worker": {"x": 240, "y": 170, "w": 190, "h": 64},
            "orders": {"x": 500, "y": 30, "w": 180, "h": 110},
            "memo": {"x": 500, "y": 180, "w": 160, "h": 60},
            "q": {"x": 40, "y": 170, "w": 140, "h": 70},
        },
        "groups": {"svc": {"x": 225, "y": 8, "w": 220, "h": 240}},
        "lanes": [
            {"label": "Edge", "x": 0, "y": 0, "w": 210, "h": 260},
            {"label": "Core", "x": 210, "y": 0, "w": 490, "h": 260},
        ],
        "edges": [
            {
                "from": "web",
                "to": "api",
                "points": [[180, 54], [240, 54]],
                "label": {"x": 186, "y": 30, "w": 48, "h": 18},
            },
            {"from": "api", "to": "orders", "points": [[430, 75], [500, 75]]},
            {"from": "api", "to": "q", "points": [[240, 95], [110, 95], [110, 170]]},
            {
                "from": "q",
                "to": "worker",
                "points": [[180, 205], [240, 205]],
                "label": {"x": 190, "y": 210, "w": 40, "h": 18},
            },
        ],
        "width": 700,
        "height": 260,
    },
}

ALL_VIZ: list[dict[str, Any]] = [
    {
        "viz": "line",
        "title": "Latency",
        "data": {
            "x": ["Mon", "Tue", "Wed", "Thu"],
            "unit": "ms",
            "series": [
                {"label": "p50", "points": [120, 98, 101, 87]},
                {"label": "p95", "points": [310, 280, 260, 240]},
            ],
            "refs": [{"label": "SLO", "value": 250}],
        },
    },
    {
        "viz": "area",
        "data": {
            "stack": True,
            "series": [{"label": "a", "points": [1, 2, 3]}, {"label": "b", "points": [2, 2, 1]}],
            "refs": [{"label": "plan", "points": [2, 4, 5]}],
        },
    },
    {
        "viz": "bars",
        "data": {
            "series": [
                {"label": "2025", "points": [4, 6, 3]},
                {"label": "2026", "points": [5, 7, 2]},
            ],
            "x": ["Q1", "Q2", "Q3"],
        },
    },
    {
        "viz": "bars",
        "data": {"stack": True, "series": [{"points": [4, 6, 3]}, {"points": [5, 7, 2]}]},
    },
    {
        "viz": "bars",
        "title": "Mixed units",
        "data": {
            "items": [
                {"label": "cold start", "value": 820, "unit": "ms"},
                {"label": "warm", "value": 40, "unit": "ms"},
                {"label": "bundle", "value": 2.4, "unit": "MB", "tone": "warn"},
            ]
        },
    },
    {
        "viz": "bars",
        "title": "Share",
        "data": {
            "rank": 2,
            "items": [
                {"label": "a", "value": 50},
                {"label": "b", "value": 30},
                {"label": "c", "value": 15},
                {"label": "d", "value": 5},
            ],
        },
    },
    {
        "viz": "scatter",
        "data": {"series": [{"label": "runs", "points": [[1, 2], [2, 3.5], [3, 2.8]]}]},
    },
    {
        "viz": "pie",
        "data": {
            "items": [{"label": "yes", "value": 62, "tone": "good"}, {"label": "no", "value": 38}]
        },
    },
    {
        "viz": "donut",
        "data": {"unit": "%", "items": [{"label": "a", "value": 70}, {"label": "b", "value": 30}]},
    },
    {
        "viz": "heatmap",
        "data": {
            "x": ["00", "06", "12", "18"],
            "y": ["Mon", "Tue"],
            "values": [[1, 5, 9, 2], [0, 3, 7, 4]],
        },
    },
    {
        "viz": "heatmap",
        "title": "Commits",
        "data": {
            "calendar": {"from": "2026-01-05", "values": [0, 1, 3, 5, 2, 0, 0, 4, 6, 8, 1, 0, 2, 3]}
        },
    },
    {
        "viz": "stat",
        "data": {
            "items": [
                {
                    "label": "Uptime",
                    "value": 99.95,
                    "unit": "%",
                    "delta": "+0.02",
                    "tone": "good",
                    "spark": [99.9, 99.92, 99.95],
                }
            ]
        },
    },
    {
        "viz": "matrix",
        "data": {
            "x": ["effort", "more"],
            "y": ["value"],
            "items": [
                {"label": "cache", "x": 1, "y": 4, "tone": "good"},
                {"label": "rewrite", "x": 5, "y": 2, "tone": "bad"},
            ],
        },
    },
    {
        "viz": "flow",
        "data": {
            "items": [
                {"label": "visits", "value": 1000},
                {"label": "signups", "value": 120},
                {"label": "paid", "value": 18, "tone": "good"},
            ]
        },
    },
    {
        "viz": "timeline",
        "data": {
            "items": [
                {"label": "alpha", "when": "2026-01-10"},
                {"label": "beta", "when": "2026-03-02"},
                {"label": "GA", "when": "2026-06-01", "tone": "good"},
            ]
        },
    },
    {
        "viz": "compare",
        "title": "Before/after",
        "data": {
            "better": "lower",
            "unit": "ms",
            "before": "v1",
            "after": "v2",
            "items": [
                {"label": "p50", "before": 120, "after": 48},
                {"label": "p99", "before": 900, "after": 950, "note": "noisy host"},
                {"label": "size", "before": 3.1, "after": 2.2, "unit": "MB"},
                {"label": "flat", "before": 5, "after": 5},
                {"label": "forced", "before": 1, "after": 2, "tone": "good"},
            ],
        },
    },
]


def el(kind: str, audience: list[str] | None = None, **payload: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": kind, "payload": payload}
    if audience:
        out["audience"] = audience
    return out


EVERY_ELEMENT: list[dict[str, Any]] = [
    el(
        "prose",
        md="# Prose heading\n\nText with **bold**, ==marked==, $e^{i\\pi}+1=0$, :check: and [[Other Page]].\n\n- [x] done\n- [ ] open\n\n```python\nprint('hi')\n```\n\n$$\n\\int_0^1 x\\,dx\n$$\n\n> quoted\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n[source](src:layoutkit/render/__init__.py#L1-L5)",
    ),
    *[el("chart", **c) for c in ALL_VIZ],
    el("chips", items=[{"k": "owner", "v": "render"}, {"k": "state", "v": "draft"}]),
    el(
        "code",
        source="def area(w, h):\n    return w * h  # px\n",
        lang="python",
        caption="Area of a card",
    ),
    el("code", source="SELECT 1;"),
    el(
        "columns",
        ratio="1:2",
        cols=[{"elements": [el("prose", md="Left")]}, {"elements": [el("prose", md="Right")]}],
    ),
    el(
        "compare",
        title="Two designs",
        a={"label": "Old", "elements": [el("prose", md="Before")]},
        b={"label": "New", "elements": [el("prose", md="After")]},
    ),
    el(
        "deploy",
        env="production",
        sha="9f2c4e1d2a7b",
        at="2026-03-01T10:00:00Z",
        count=12,
        live=True,
    ),
    el("diagram", caption="The *checkout* path", **DIAGRAM),
    el("doc", title="Nested doc", kicker="inner", elements=[el("prose", md="Inside")]),
    el(
        "epic",
        title="Search",
        phase="built",
        mark="building",
        done=3,
        total=8,
        live=True,
        who=["ana"],
        id=42,
        url="https://example.com/t/42",
        type="feature",
        at="2026-02-02T00:00:00Z",
    ),
    el("figure", src=PNG_1PX, alt="A pixel", caption="One pixel"),
    el("figure", ref="blob:abc", alt="Unresolved ref"),
    el(
        "finding",
        sev="high",
        tag="security",
        status="confirmed",
        title="Token in URL",
        where="api/auth.py:88",
        body="First.\n\nSecond.",
        cause="Query string logging",
        summary="Tokens leak to logs.",
        cost="Credential exposure",
        fix="Move to header",
        trace={
            "before": {"key": "token", "dest": "query"},
            "after": {"key": "token", "dest": "header", "note": "masked"},
        },
        evidence=["log line 12", "trace 7"],
    ),
    el("finding", sev="low", status="refuted", title="False alarm"),
    el(
        "finding",
        sev="medium",
        status="likely",
        title="Slow query",
        evidence="EXPLAIN shows seq scan",
    ),
    el(
        "gallery",
        layout="bento",
        caption="Shots",
        items=[
            {"src": PNG_1PX, "alt": "one", "span": "large"},
            {"src": PNG_1PX, "alt": "two", "caption": "second"},
            {"shot": 2, "alt": "three"},
        ],
    ),
    el(
        "gallery",
        layout="carousel",
        items=[
            {"src": PNG_1PX, "alt": "a"},
            {"src": PNG_1PX, "alt": "b", "audience": ["internal"]},
        ],
    ),
    el("gallery", layout="masonry", items=[{"src": PNG_1PX, "alt": "m"}]),
    el("gallery", items=[{"src": PNG_1PX, "alt": "g"}]),
    el(
        "goal",
        title="Faster renders",
        outcome="p95 under **50 ms**",
        status="running",
        starts="2026-01-01",
        ends="2026-04-01",
        percent=40,
    ),
    el(
        "html",
        title="Widget",
        src="<!doctype html><p id=x>hi</p><script>document.getElementById('x').textContent='ran'</script>",
        height=120,
    ),
    el("list", style="check", items=["one", "*two*"]),
    el("list", style="number", items=["first", "second"]),
    el("media", src="https://example.com/talk.mp4", caption="Talk"),
    el("media", src="https://example.com/a.pdf", alt="Spec"),
    el("media", src="https://example.com/a.mp3"),
    el("media", src="https://example.com/a.zip"),
    el(
        "meter",
        title="Budgets",
        items=[
            {"label": "CPU", "value": 62, "max": 100, "threshold": 80, "unit": "%", "tone": "good"},
            {
                "label": "Memory",
                "value": 7.5,
                "max": 8,
                "unit": "GB",
                "tone": "bad",
                "note": "near limit",
            },
        ],
    ),
    el("milestone", title="Beta", due="2026-05-01"),
    el("milestone", title="Alpha", due="2026-02-01", reached="2026-01-28"),
    el(
        "mockup",
        tokens={"radius": 8},
        frames=[
            {
                "name": "Login",
                "w": 320,
                "h": 400,
                "tree": [
                    {"t": "nav", "label": "App"},
                    {
                        "t": "col",
                        "children": [
                            {"t": "input", "label": "Email"},
                            {"t": "input", "label": "Password"},
                            {"t": "button", "label": "Sign in", "primary": True},
                        ],
                    },
                    {
                        "t": "row",
                        "dir": "row",
                        "children": [{"t": "text", "label": "Help", "n": 2}],
                    },
                ],
            }
        ],
    ),
    el("page", md="## Page element\n\nDurable truth."),
    el("ref", section="details", label="See details"),
    el(
        "ref",
        card=7,
        mode="preview",
        target={"title": "Runbook", "kind": "page", "summary": "How to deploy"},
    ),
    el("ref", page="other-page"),
    el(
        "release",
        title="v1.4.0",
        status="cut",
        prs=31,
        at="2026-03-03T12:00:00Z",
        url="https://example.com/r/1.4",
    ),
    el("release", title="v1.5.0", status="next"),
    el(
        "section",
        id="details",
        label="Details",
        title="The *details*",
        note="A muted line",
        elements=[el("prose", md="Section body")],
    ),
    el("section", label="Empty section", elements=[]),
    el(
        "stat",
        title="Headline",
        items=[
            {
                "label": "Users",
                "value": 12840,
                "delta": "+4%",
                "tone": "good",
                "spark": [1, 3, 2, 5],
            },
            {"label": "Errors", "value": 0.3, "unit": "%", "tone": "bad"},
            {"label": "Deploys", "value": "12", "note": "this week"},
        ],
    ),
    el(
        "table",
        title="Services",
        caption="From the *registry*",
        cols=[
            {"key": "name", "label": "Name"},
            {"key": "rps", "label": "RPS", "type": "number"},
            {"key": "since", "type": "date"},
            {"key": "ok", "type": "check"},
            {"key": "tier", "type": "select", "options": ["gold", "silver"]},
            {"key": "doc", "type": "link"},
        ],
        rows=[
            {
                "name": "**api**",
                "rps": 1200.5,
                "since": "2025-01-02",
                "ok": True,
                "tier": "gold",
                "doc": "https://example.com/api",
            },
            {
                "cells": {
                    "name": "worker",
                    "rps": {"v": 80, "tone": "warn"},
                    "ok": False,
                    "tier": "silver",
                    "doc": {"v": "runbook", "href": "#details"},
                },
                "audience": ["technical"],
            },
            {"name": "cron", "rps": None},
        ],
        views=[
            {"name": "Busiest", "sort": [{"col": "rps", "dir": "desc"}]},
            {"name": "Healthy", "filter": [{"col": "ok", "op": "eq", "value": True}]},
            {"name": "By tier", "group": "tier"},
        ],
        aggregates={"rps": "sum", "name": "count"},
    ),
    el(
        "timeline",
        title="Incident",
        items=[
            {"when": "2026-03-01T10:00:00Z", "title": "Alert", "status": "bad"},
            {
                "when": "2026-03-01T10:20:00Z",
                "title": "Mitigated",
                "status": "done",
                "text": "Rolled back.",
                "evidence": ["graph"],
            },
        ],
        axis="time",
    ),
    el(
        "timeline",
        items=[
            {"when": "week 1", "title": "Kickoff"},
            {"when": "week 3", "title": "Ship", "status": "fixed", "summary": "Done"},
        ],
    ),
    el("verdict", state="Ship it", text="Numbers hold.\n\nRisks are known.", tone="good"),
    el("verdict", text="Only reasoning"),
    el("prose", audience=["internal"], md="Internal only note."),
    el(
        "section",
        audience=["public"],
        title="Public corner",
        elements=[el("prose", md="For everyone outside.")],
    ),
]

EVERY_ELEMENT_DOC: dict[str, Any] = {
    "kind": "doc",
    "payload": {
        "title": "Every element, rendered",
        "kicker": "Gallery",
        "accent": "rendered",
        "intro": "A document that uses **every** element kind.",
        "chips": [{"k": "owner", "v": "render"}, {"k": "status", "v": "draft"}],
        "direction": "dossier",
        "typeset": "house",
        "accentColor": {"light": "#0c7c74", "dark": "#4fd1c5"},
        "sources": {
            "src": {"repo": "acme/layoutkit", "ref": "main"},
            "gl": {"repo": "gitlab.com/acme/tools", "ref": "v2"},
        },
        "elements": EVERY_ELEMENT,
    },
}

RELEASE_DOC: dict[str, Any] = {
    "kind": "doc",
    "payload": {
        "title": "Release 1.4",
        "direction": "release",
        "typeset": "swiss",
        "accentColor": "violet",
        "intro": "What changed.",
        "elements": [
            el(
                "section",
                label="New",
                title="Features",
                elements=[el("prose", md="- Faster boards\n- Print CSS")],
            ),
            el(
                "stat",
                items=[
                    {"label": "PRs", "value": 31},
                    {"label": "Fixes", "value": 12},
                    {"label": "Contributors", "value": 7},
                ],
            ),
        ],
    },
}

TERMINAL_DOC: dict[str, Any] = {
    "title": "Terminal notes",
    "direction": "terminal",
    "typeset": "bookish",
    "project": "layoutkit",
    "elements": [
        el("prose", md="## Run\n\n`make test` then read the log."),
        el("code", source="$ layoutkit serve\nlistening on :8080", lang="console"),
    ],
}

GALLERY_DOC: dict[str, Any] = {
    "kind": "doc",
    "payload": {
        "title": "Screens",
        "direction": "gallery",
        "typeset": "gallery",
        "elements": [
            el(
                "gallery",
                layout="grid",
                items=[
                    {"src": PNG_1PX, "alt": f"shot {i}", "caption": f"Screen {i}"} for i in range(5)
                ],
            )
        ],
    },
}

EDITORIAL_DOC: dict[str, Any] = {
    "kind": "doc",
    "payload": {
        "title": "Why layout matters",
        "kicker": "Essay",
        "direction": "editorial",
        "typeset": "editorial",
        "accentColor": "coral",
        "intro": "Readers skim; structure carries meaning.",
        "elements": [
            el(
                "prose",
                md="## Structure\n\nA paragraph with a [link](https://example.com) and a footnote-ish aside.",
            ),
            el(
                "columns",
                ratio="1:1:1",
                cols=[
                    {"elements": [el("prose", md="One")]},
                    {"elements": [el("prose", md="Two")]},
                    {"elements": [el("prose", md="Three")]},
                ],
            ),
            el("verdict", state="Layout is meaning", tone="info"),
        ],
    },
}

DOCS: dict[str, dict[str, Any]] = {
    "every-element": EVERY_ELEMENT_DOC,
    "release": RELEASE_DOC,
    "terminal": TERMINAL_DOC,
    "gallery": GALLERY_DOC,
    "editorial": EDITORIAL_DOC,
}


def card(
    cid: int,
    kind: str,
    x: float,
    y: float,
    w: float,
    h: float,
    parent: int | None = None,
    **payload: Any,
) -> dict[str, Any]:
    return {
        "id": cid,
        "kind": kind,
        "payload": payload,
        "x": x,
        "y": y,
        "w": w,
        "h": h,
        "layer": "ai",
        "version": 1,
        "parent": parent,
        "section": None,
    }


def _first(kind: str) -> dict[str, Any]:
    return next(e["payload"] for e in EVERY_ELEMENT if e["kind"] == kind)


OPENAPI = {
    "openapi": "3.1.0",
    "info": {"title": "Orders API", "version": "2.0"},
    "paths": {
        "/orders": {
            "get": {"summary": "List orders", "tags": ["orders"]},
            "post": {"summary": "Create", "tags": ["orders"]},
        },
        "/orders/{id}": {"delete": {"summary": "Cancel", "tags": ["orders"]}},
        "/health": {"get": {"summary": "Liveness"}},
    },
}

EVERY_CARD: list[dict[str, Any]] = [
    card(1, "section", 0, 0, 1500, 1000, title="Journey", description="Sign-up flow, iteration 2"),
    card(2, "cluster", 20, 60, 700, 420, 1, title="Ideas", role="kanban", children=[3, 4, 5, 6]),
    card(
        3,
        "text",
        40,
        110,
        320,
        160,
        2,
        md="# Heading\n\n- [x] task done\n- [ ] open task\n\n`code` and $x^2$",
        role="idea",
    ),
    card(4, "note", 380, 110, 200, 160, 2, md="A sticky note with a few words"),
    card(5, "shape", 40, 290, 160, 110, 2, shape="diamond", label="Decide", fill="yellow"),
    card(
        6,
        "callout",
        220,
        290,
        360,
        110,
        2,
        tone="warn",
        title="Careful",
        md="Rate limits apply.",
        icon="warning",
    ),
    card(
        7,
        "checklist",
        740,
        60,
        320,
        200,
        1,
        title="Launch",
        items=[{"text": "Docs", "done": True}, {"text": "Bench", "done": False}, "Announce"],
    ),
    card(8, "step", 1080, 60, 360, 280, 1, n=1, title="Sign up", image="signup.png"),
    card(9, "compare", 740, 280, 320, 200, 1, a=8, b=3),
    card(10, "doc", 20, 500, 560, 480, 1, **EDITORIAL_DOC["payload"]),
    card(
        11,
        "link",
        600,
        500,
        360,
        300,
        1,
        url="https://example.com/pricing",
        title="Pricing",
        description="Plans and limits for teams.",
    ),
    card(
        12, "link", 600, 820, 360, 64, 1, url="https://example.com", title="Example", mode="widget"
    ),
    card(
        13,
        "board",
        980,
        500,
        300,
        220,
        1,
        board="roadmap",
        minimap=[{"x": 0, "y": 0, "w": 300, "h": 200}, {"x": 320, "y": 0, "w": 200, "h": 200}],
    ),
    card(14, "file", 980, 740, 300, 80, 1, name="report.csv", mime="text/csv", size=20480),
    card(15, "file", 1300, 360, 180, 250, 1, name="spec.pdf", mime="application/pdf", pages=12),
    card(
        16,
        "chat",
        1300,
        640,
        180,
        300,
        1,
        messages=[
            {"role": "user", "text": "Why is it slow?"},
            {"role": "assistant", "text": "N+1 query in the list view."},
        ],
    ),
    card(20, "diagram", 0, 1040, 760, 520, None, **DIAGRAM),
    card(21, "api", 800, 1040, 480, 360, None, **OPENAPI),
    card(22, "page", 1300, 1040, 360, 300, None, md="# Runbook\n\n1. Drain\n2. Deploy\n3. Verify"),
    card(
        23,
        "artifact",
        800,
        1420,
        480,
        200,
        None,
        title="Playground",
        html="<!doctype html><p>hi</p>",
    ),
    card(24, "text", 1300, 1360, 360, 60, None, md="# Board heading", role="heading", level=1),
    card(25, "text", 1300, 1430, 360, 40, None, md="A caption under things", role="caption"),
    card(26, "chart", 0, 1600, 420, 260, None, **ALL_VIZ[0]),
    card(27, "table", 440, 1600, 420, 200, None, **_first("table")),
    card(28, "stat", 880, 1660, 420, 120, None, **_first("stat")),
    card(29, "cluster", 1320, 1600, 300, 200, None),
    card(
        30,
        "link",
        1660,
        0,
        200,
        400,
        None,
        url="https://example.com/m",
        title="Mobile",
        mode="phone",
    ),
    card(
        31, "link", 1660, 420, 260, 120, None, url="http://10.0.0.1/admin", error="private address"
    ),
]

CONTENT_SIZED = ("text", "note", "callout", "checklist", "doc", "page", "chart", "table", "stat")
# The layout engine gives content-sized cards the height their content needs; a hand-made
# box taller than that is a band no board shows, so the gallery takes the engine's height.
for _c in EVERY_CARD:
    if _c["kind"] in CONTENT_SIZED:
        _c["h"] = min(_c["h"], size_card(_c["kind"], _c["payload"], _c["w"])[1])

CARD_KINDS = sorted({c["kind"] for c in EVERY_CARD})

EVERY_CARD_BOARD: dict[str, Any] = {
    "board": {"slug": "render-gallery", "title": "Every card kind"},
    "cards": EVERY_CARD,
    "edges": [
        {"from": 3, "to": 7, "label": "feeds", "rel": "flow"},
        {"from": 8, "to": 10, "rel": "relates"},
        {"from": 20, "to": 21, "label": "documents"},
    ],
}

SMALL_BOARD: dict[str, Any] = {
    "board": {"slug": "small", "title": "Small board"},
    "cards": [
        card(1, "text", 0, 0, 260, 120, md="## Plan\n\nShip the *renderer*."),
        card(2, "note", 320, 0, 200, 160, md="Remember print CSS"),
        card(3, "callout", 0, 180, 260, 100, tone="good", title="Done", md="Tests pass"),
    ],
    "edges": [{"from": 1, "to": 2, "label": "then"}, {"from": 1, "to": 3}],
}

BOARDS: dict[str, dict[str, Any]] = {"every-card": EVERY_CARD_BOARD, "small": SMALL_BOARD}

# Charts a dashboard shows that ALL_VIZ leaves out: dates on the x axis, an axis that
# starts above zero, large values with a unit, ranked shares, a donut of money.
DASHBOARD_VIZ: list[dict[str, Any]] = [
    {
        "viz": "line",
        "title": "Daily signups",
        "data": {
            "unit": "users",
            "x": [f"2026-03-{d:02d}" for d in range(1, 11)],
            "series": [
                {"label": "signups", "points": [182, 190, 201, 195, 210, 222, 219, 230, 228, 241]}
            ],
        },
    },
    {
        "viz": "area",
        "title": "Monthly revenue",
        "data": {
            "unit": "EUR",
            "x": ["2025-10", "2025-11", "2025-12", "2026-01", "2026-02", "2026-03"],
            "series": [{"label": "revenue", "points": [41000, 45500, 52000, 49800, 56100, 61234]}],
        },
    },
    {
        "viz": "bars",
        "title": "Revenue by region",
        "data": {
            "unit": "EUR",
            "rank": 3,
            "items": [
                {"label": "Americas", "value": 530000},
                {"label": "EMEA", "value": 412000},
                {"label": "APAC", "value": 260000},
                {"label": "LatAm", "value": 120000},
                {"label": "Other", "value": 90000},
            ],
        },
    },
    {
        "viz": "donut",
        "title": "Spend",
        "data": {
            "unit": "EUR",
            "items": [
                {"label": "infra", "value": 12000},
                {"label": "people", "value": 48000},
                {"label": "tools", "value": 3000},
            ],
        },
    },
    {
        "viz": "bars",
        "title": "Cards by kind",
        "data": {
            "items": [
                {"label": "text", "value": 12},
                {"label": "chart", "value": 7},
                {"label": "diagram", "value": 3},
                {"label": "table", "value": 2},
            ]
        },
    },
]
CHART_VIZ = ALL_VIZ + DASHBOARD_VIZ


def _chart_cards(width: float = 420, per_row: int = 4, gap: float = 30) -> list[dict[str, Any]]:
    """Every chart viz as a card on a grid, each as tall as its content."""
    cards = []
    row_h = 0.0
    y = 0.0
    for i, payload in enumerate(CHART_VIZ):
        if i and i % per_row == 0:
            y += row_h + gap
            row_h = 0.0
        h = size_card("chart", payload, width)[1]
        cards.append(card(i + 1, "chart", (i % per_row) * (width + gap), y, width, h, **payload))
        row_h = max(row_h, h)
    return cards


CHART_BOARD: dict[str, Any] = {
    "board": {"slug": "charts", "title": "Every chart viz"},
    "cards": _chart_cards(),
    "edges": [],
}
