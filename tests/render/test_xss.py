"""Hostile markdown and URLs come out inert: no script but the page's own, no
event-handler attributes, every link and source target vetted."""

from __future__ import annotations

from html.parser import HTMLParser
from xml.etree import ElementTree

import pytest

from layoutkit.render import render_board, render_doc
from layoutkit.render._doc import _SCRIPT
from layoutkit.render._markdown import render_markdown
from layoutkit.render._safe import safe_url
from tests.render.xss import FIRE, HOSTILE_MARKDOWN, HOSTILE_URLS, hostile_doc

URL_ATTRS = {"href", "src", "data", "action", "formaction", "poster", "xlink:href", "background"}


class _Audit(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.scripts: list[str] = []
        self.styles = 0
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag}> has event handler {name}")
            unsafe = value is not None and safe_url(value, image=tag in ("img", "image")) is None
            if name in URL_ATTRS and unsafe:
                self.problems.append(f"<{tag} {name}={value!r}> is unsafe")
            if name == "style" and value and ("url(" in value or "expression" in value):
                self.problems.append(f"<{tag}> style loads {value!r}")
        if tag in ("embed", "base", "form", "link", "meta") and tag != "meta":
            self.problems.append(f"unexpected <{tag}>")
        if tag == "meta" and values.get("http-equiv", "").lower() == "refresh":
            self.problems.append("meta refresh")
        if tag == "iframe":
            sandbox = values.get("sandbox")
            if sandbox is None or "allow-same-origin" in sandbox.split():
                self.problems.append("iframe without a closed sandbox")
            if values.get("src"):
                self.problems.append("iframe with src")
        if tag in ("script", "style"):
            self._in = tag
            if tag == "style":
                self.styles += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            self.scripts.append(data)


def audit(html: str) -> _Audit:
    parser = _Audit()
    parser.feed(html)
    parser.close()
    return parser


def test_there_are_at_least_thirty_hostile_inputs() -> None:
    assert len(HOSTILE_MARKDOWN) + len(HOSTILE_URLS) >= 30


@pytest.mark.parametrize("md", HOSTILE_MARKDOWN, ids=range(len(HOSTILE_MARKDOWN)))
def test_hostile_markdown_is_neutralised(md: str) -> None:
    html = render_markdown(md)
    report = audit(html)
    assert report.problems == []
    assert report.scripts == []
    assert report.styles == 0
    assert "<script" not in html.lower()


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_hostile_urls_are_refused(url: str) -> None:
    assert safe_url(url) is None
    assert safe_url(url, image=True) is None


def test_hostile_document_keeps_only_its_own_script() -> None:
    html = render_doc(hostile_doc())
    report = audit(html)
    assert report.problems == []
    assert report.scripts == [_SCRIPT]
    assert report.styles == 1
    # The hostile accent colour never reaches the stylesheet.
    assert "red;}" not in html.split("</style>")[0]


def test_hostile_html_element_is_sandboxed_and_escaped() -> None:
    html = render_doc(hostile_doc())
    assert 'sandbox="allow-scripts"' in html
    assert f"&gt;&lt;script&gt;parent.{FIRE.replace(chr(39), '&#x27;')}" in html
    # The frame's document opens with a policy that allows it no network at all.
    assert (
        'srcdoc="&lt;!doctype html&gt;&lt;meta http-equiv=&quot;Content-Security-Policy&quot; content=&quot;default-src &#x27;none&#x27;;'
        in html
    )


def test_raw_html_shows_as_text() -> None:
    html = render_markdown("<b>bold?</b>")
    assert "&lt;b&gt;bold?&lt;/b&gt;" in html


def test_safe_raster_data_images_survive() -> None:
    png = "data:image/png;base64,iVBORw0KGgo="
    assert safe_url(png, image=True) == png
    assert safe_url(png) is None
    assert '<img src="data:image/png' in render_markdown(f"![p]({png})")


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/a?b=1#c",
        "http://x.org",
        "mailto:a@b.c",
        "tel:+123",
        "/path/x",
        "#anchor",
        "?q=1",
        "rel/path.md",
    ],
)
def test_ordinary_targets_pass(url: str) -> None:
    assert safe_url(url) == url


def test_hostile_text_in_board_svg_is_escaped() -> None:
    cards = [
        {"id": i, "kind": "text", "payload": {"md": md}, "x": i * 300, "y": 0, "w": 280, "h": 200}
        for i, md in enumerate(HOSTILE_MARKDOWN)
    ]
    cards.append(
        {
            "id": 999,
            "kind": "step",
            "payload": {"src": f"javascript:{FIRE}"},
            "x": 0,
            "y": 400,
            "w": 200,
            "h": 160,
        }
    )
    svg = render_board(
        {"board": {"title": f"<script>{FIRE}</script>"}, "cards": cards, "edges": []}
    )
    root = ElementTree.fromstring(svg)
    for node in root.iter():
        assert not node.tag.endswith("script")
        for name, value in node.attrib.items():
            assert not name.startswith("on")
            if name.endswith("href"):
                assert safe_url(value, image=True) is not None
