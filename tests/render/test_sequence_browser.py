"""A sequence diagram as a browser draws it: lifelines under the heads, messages in order.

The page embeds the diagram's SVG (as a document shows it) and a script that
reads back what Chromium laid out: the vertical lifeline strokes and the
screen boxes of the message texts. The test then checks the drawing, not
the geometry the engine wrote.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from layoutkit.diagram import lay_out
from layoutkit.render._board import diagram_svg
from layoutkit.render._face_sequence import LIFELINE
from tests.browser import CHROMIUM, SKIP_REASON
from tests.browser import run_chromium as chromium

pytestmark = pytest.mark.browser

if CHROMIUM is None:
    pytest.skip(SKIP_REASON, allow_module_level=True)

TEXT = """sequenceDiagram
    actor U as Shopper
    participant W as Web shop
    participant P as Payments
    U->>+W: Add to basket
    W->>P: Authorise card
    alt approved
        P-->>W: Authorised
    else declined
        P--xW: Refused
    end
    W-->>-U: Order placed
"""
ORDER = ["Add to basket", "Authorise card", "Authorised", "Refused", "Order placed"]
ENDS = [("U", "W"), ("W", "P"), ("P", "W"), ("P", "W"), ("W", "U")]

PROBE = """
<script>
addEventListener('load', () => {
  const lines = [];
  for (const el of document.querySelectorAll('polyline')) {
    const pts = el.getAttribute('points').trim().split(/\\s+/).map(p => p.split(',').map(Number));
    if (el.getAttribute('stroke') !== '%s' || pts.length !== 2) continue;
    if (pts[0][0] !== pts[1][0]) continue;
    const r = el.getBoundingClientRect();
    lines.push({x: r.left + r.width / 2, top: r.top, bottom: r.bottom});
  }
  const texts = [];
  for (const el of document.querySelectorAll('text')) {
    const r = el.getBoundingClientRect();
    texts.push({text: el.textContent, x: r.left + r.width / 2, y: r.top + r.height / 2,
                left: r.left, right: r.right, top: r.top, bottom: r.bottom});
  }
  const out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify({lines, texts});
  document.body.appendChild(out);
});
</script>
"""


def _probe(tmp_path: Path) -> dict:
    payload = lay_out({"title": "Checkout", "diagram_text": TEXT})
    page = tmp_path / "sequence.html"
    page.write_text(
        "<!doctype html><html><body style='margin:0'>"
        + diagram_svg(payload)
        + PROBE % LIFELINE
        + "</body></html>",
        encoding="utf-8",
    )
    result = chromium("--dump-dom", "--virtual-time-budget=3000", page.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    found = re.search(r'<pre id="probe">(.*?)</pre>', result.stdout, re.S)
    assert found, result.stdout[-2000:]
    raw = found.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
    return json.loads(raw.replace("&amp;", "&"))


def test_browser_draws_lifelines_and_messages_in_order(tmp_path: Path) -> None:
    seen = _probe(tmp_path)
    lines = sorted(seen["lines"], key=lambda line: line["x"])
    assert len(lines) == 3
    texts = {t["text"]: t for t in seen["texts"]}
    heads = {"U": texts["Shopper"], "W": texts["Web shop"], "P": texts["Payments"]}
    # Each head has its lifeline below it; the heads stand left to right in declaration order.
    xs = {}
    for pid, line in zip(("U", "W", "P"), lines, strict=True):
        head = [t for t in seen["texts"] if t["text"] == heads[pid]["text"]]
        top = min(head, key=lambda t: t["y"])
        assert abs(top["x"] - line["x"]) < 2
        assert top["bottom"] <= line["top"] + 1
        xs[pid] = line["x"]
    assert xs["U"] < xs["W"] < xs["P"]
    # Messages from top to bottom in order, each between its two lifelines.
    ys = []
    for text, (a, b) in zip(ORDER, ENDS, strict=True):
        label = texts[text]
        ys.append(label["y"])
        lo, hi = sorted((xs[a], xs[b]))
        assert lo < label["x"] < hi
        assert lines[0]["top"] < label["y"] < lines[0]["bottom"]
    assert ys == sorted(ys)
    # The frame shows its keyword once; the message texts carry no block prefix.
    assert [t["text"] for t in seen["texts"]].count("alt") == 1
    assert not any(
        t["text"].startswith("[alt") and "Authorised" in t["text"] for t in seen["texts"]
    )


def test_sequence_screenshot_matches_baseline(tmp_path: Path) -> None:
    """The drawing as Chromium paints it, against the kept baseline (``seq-checkout.png``)."""
    from tests.render.test_browser import ARTIFACTS, compare, screenshot

    payload = lay_out({"title": "Checkout", "diagram_text": TEXT})
    page = tmp_path / "sequence.html"
    page.write_text(
        "<!doctype html><html><body style='margin:0;background:#fff'>"
        + diagram_svg(payload)
        + "</body></html>",
        encoding="utf-8",
    )
    compare(screenshot(page, ARTIFACTS / "seq-checkout.png"), "seq-checkout")
