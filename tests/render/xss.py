"""Hostile markdown and link inputs. Each, if it ran, would set the page title
to a marker built at run time (so the marker text never appears literally)."""

from __future__ import annotations

from typing import Any

FIRE = "document.title='XSS'+'-FIRED'"
MARKER = "XSS-FIRED"

HOSTILE_MARKDOWN: list[str] = [
    f"<script>{FIRE}</script>",
    f'<img src=x onerror="{FIRE}">',
    f'<svg onload="{FIRE}"></svg>',
    f'<iframe src="javascript:{FIRE}"></iframe>',
    f'<a href="javascript:{FIRE}">raw html link</a>',
    f"[plain](javascript:{FIRE})",
    f"[case](JaVaScRiPt:{FIRE})",
    f"[entity](&#106;avascript:{FIRE})",
    f"[hex entity](&#x6A;&#x61;vascript:{FIRE})",
    f"[named entity](javascript&colon;{FIRE})",
    f"[tab](java\tscript:{FIRE})",
    f"[newline](<java\nscript:{FIRE}>)",
    f"[leading space]( javascript:{FIRE})",
    "[vbscript](vbscript:msgbox(1))",
    "[data html](data:text/html;base64,PHNjcmlwdD5kb2N1bWVudC50aXRsZT0nWFNTJzwvc2NyaXB0Pg==)",
    "![svg image](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    f"![js image](javascript:{FIRE})",
    f"<javascript:{FIRE}>",
    f"[ref link][r]\n\n[r]: javascript:{FIRE}",
    f'[title attr](https://example.com "x\\" onmouseover=\\"{FIRE}")',
    f'![alt" onerror="{FIRE}](https://example.com/x.png)',
    f"`<script>{FIRE}</script>`",
    f"```html\n<script>{FIRE}</script>\n```",
    f"$<img src=x onerror={FIRE}>$",
    f"$$\n</div><script>{FIRE}</script>\n$$",
    f"==<img src=x onerror={FIRE}>==",
    f"[[<img src=x onerror={FIRE}>]]",
    f'[[x" onmouseover="{FIRE}|label]]',
    f':x" onload="{FIRE}:',
    f"<style>body{{background:url(javascript:{FIRE})}}</style>",
    f"<math><mtext><table><mglyph><style><img src=x onerror={FIRE}>",
    f"[nested [link](javascript:{FIRE})](https://example.com)",
    f'<details open ontoggle="{FIRE}">',
    f"[unicode ws](\u200bjavascript:{FIRE})",
    f"[percent](javascript%3A{FIRE})",
    f"| a |\n|---|\n| <img src=x onerror={FIRE}> |",
    f"- [ ] <img src=x onerror={FIRE}>",
    f"> <script>{FIRE}</script>",
]

HOSTILE_URLS: list[str] = [
    f"javascript:{FIRE}",
    f" JAVASCRIPT:{FIRE}",
    f"&#106;avascript:{FIRE}",
    f"java\nscript:{FIRE}",
    "vbscript:msgbox(1)",
    "data:text/html,<script>alert(1)</script>",
    "data:image/svg+xml,<svg onload=alert(1)>",
]


def hostile_doc() -> dict[str, Any]:
    """A doc that carries every hostile input through prose and payload fields."""
    elements: list[dict[str, Any]] = [
        {"kind": "prose", "payload": {"md": md}} for md in HOSTILE_MARKDOWN
    ]
    for url in HOSTILE_URLS:
        elements += [
            {"kind": "figure", "payload": {"src": url, "alt": f'"><img src=x onerror={FIRE}>'}},
            {"kind": "media", "payload": {"src": url}},
            {"kind": "epic", "payload": {"title": "t", "url": url, "cover": url}},
            {
                "kind": "table",
                "payload": {
                    "cols": [{"key": "a", "type": "link"}],
                    "rows": [{"a": url}, {"a": {"v": "x", "href": url}}],
                },
            },
            {"kind": "gallery", "payload": {"items": [{"src": url, "alt": "a"}]}},
        ]
    elements += [
        {"kind": "chips", "payload": {"items": [{"k": f"<script>{FIRE}</script>", "v": "<b>"}]}},
        {
            "kind": "code",
            "payload": {
                "source": f"</code></pre><script>{FIRE}</script>",
                "lang": '"><script>x</script>',
            },
        },
        {"kind": "html", "payload": {"src": f"<script>parent.{FIRE};top.{FIRE}</script>"}},
        {
            "kind": "chart",
            "payload": {
                "viz": "bars",
                "title": f"</svg><script>{FIRE}</script>",
                "data": {"items": [{"label": f"<img src=x onerror={FIRE}>", "value": 1}]},
            },
        },
        {
            "kind": "mockup",
            "payload": {
                "frames": [
                    {"name": "<script>", "tree": [{"t": f'x" onclick="{FIRE}', "label": "<b>"}]}
                ]
            },
        },
        {
            "kind": "diagram",
            "payload": {
                "title": f"<script>{FIRE}</script>",
                "nodes": [{"id": "a", "title": f"<img src=x onerror={FIRE}>"}],
                "geo": {
                    "nodes": {"a": {"x": 0, "y": 0, "w": 100, "h": 40}},
                    "width": 100,
                    "height": 40,
                },
            },
        },
        {
            "kind": "section",
            "payload": {"id": 'x"><script>', "title": f"<script>{FIRE}</script>", "elements": []},
        },
    ]
    return {
        "kind": "doc",
        "payload": {
            "title": "Hostile inputs",
            "kicker": f"</title><script>{FIRE}</script>",
            "accentColor": {"light": f"red;}}</style><script>{FIRE}</script>", "dark": "#000000"},
            "intro": f"<img src=x onerror={FIRE}>",
            "elements": elements,
        },
    }
