"""Flowchart and state drawings as Chromium lays out their text.

Every text the browser draws inside a node stays in that shape's inner box
(never across a slanted or curved border, never clipped by the box), every edge
label stays in its label box, and no two texts overlap.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from layoutkit.diagram import lay_out
from layoutkit.diagram._flowchart import SHAPES
from layoutkit.diagram.labels import NO_TEXT, inner_box
from layoutkit.diagram.model import containers
from layoutkit.render._board import diagram_svg
from tests.browser import CHROMIUM, SKIP_REASON
from tests.browser import run_chromium as chromium

pytestmark = pytest.mark.browser

if CHROMIUM is None:
    pytest.skip(SKIP_REASON, allow_module_level=True)

PROBE = """
<script>
addEventListener('load', () => {
  // Back to the drawing's own units (the SVG scales to the page width).
  const root = document.querySelector('svg');
  const svg = root.getBoundingClientRect();
  const k = root.viewBox.baseVal.width / svg.width;
  const texts = [];
  for (const el of document.querySelectorAll('text')) {
    const r = el.getBoundingClientRect();
    if (!el.textContent.trim()) continue;
    texts.push({text: el.textContent, left: (r.left - svg.left) * k,
                right: (r.right - svg.left) * k, top: (r.top - svg.top) * k,
                bottom: (r.bottom - svg.top) * k});
  }
  const out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify(texts);
  document.body.appendChild(out);
});
</script>
"""

CLASSIC = """flowchart LR
A[Rectangle with a rather long label that wraps] --> B(Rounded corners here)
B --> C([Stadium shaped terminal])
C --> D[[Subroutine call]]
D --> E[(Database storage)]
E --> F((A circle with several words in it))
A --> G>Odd flag shape]
G --> H{Is this a decision with long text?}
H -->|yes| I{{Hexagon preparation}}
H -->|no| J[/Lean right input/]
J --> K[\\\\Lean left output\\\\]
K --> L[/Trapezoid base bottom\\\\]
L --> M[\\\\Trapezoid top/]
M --> N(((Double circle stop)))
N -- an edge label long enough to wrap onto a second line --> O(-An ellipse-)
"""

NAMED = "flowchart TD\n" + "\n".join(
    f'n{k}@{{ shape: {name}, label: "{name} shape text" }} --> n{k + 1}'
    for k, name in enumerate(sorted({n for n, s in SHAPES.items() if s not in NO_TEXT}))
    if not name.startswith(("icon", "image", "class"))
)

STATE = """stateDiagram-v2
[*] --> Active
state Active {
  [*] --> NumLockOff
  NumLockOff --> NumLockOn : EvNumLockPressed
  --
  [*] --> CapsLockOff
  CapsLockOff --> CapsLockOn : EvCapsLockPressed
}
state fork_state <<fork>>
Active --> fork_state
fork_state --> S2
fork_state --> S3
state if_state <<choice>>
S2 --> if_state
if_state --> False: if n < 0
if_state --> True : if n >= 0
"""


def _probe(tmp_path: Path, payload: dict) -> list[dict]:
    page = tmp_path / "diagram.html"
    page.write_text(
        "<!doctype html><html><body style='margin:0;width:4000px'>"
        + diagram_svg(payload)
        + PROBE
        + "</body></html>",
        encoding="utf-8",
    )
    result = chromium("--dump-dom", "--virtual-time-budget=3000", page.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    found = re.search(r'<pre id="probe">(.*?)</pre>', result.stdout, re.S)
    assert found, result.stdout[-2000:]
    raw = found.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
    return json.loads(raw.replace("&amp;", "&"))


_CURVED = {
    "diamond": lambda u, v: u + v,
    "circle": lambda u, v: u * u + v * v,
    "double-circle": lambda u, v: u * u + v * v,
    "ellipse": lambda u, v: u * u + v * v,
}


def _inside(t: dict, box: tuple[float, float, float, float], slack: float) -> bool:
    x, y, w, h = box
    return (
        t["left"] >= x - slack
        and t["right"] <= x + w + slack
        and t["top"] >= y - slack
        and t["bottom"] <= y + h + slack
    )


@pytest.mark.parametrize("text", [CLASSIC, NAMED, STATE], ids=["classic", "named", "state"])
def test_texts_stay_in_their_shapes_and_never_overlap(tmp_path: Path, text: str) -> None:
    payload = lay_out({"title": "Shapes", "diagram_text": text})
    geo = payload["geo"]
    shapes = {
        n["id"]: n.get("shape", "rect")
        for _, holder in containers(payload)
        for n in holder.get("nodes") or []
    }
    seen = _probe(tmp_path, payload)
    placed = 0
    for nid, b in geo["nodes"].items():
        shape = shapes.get(nid, "rect")
        cx, cy = b["x"] + b["w"] / 2, b["y"] + b["h"] / 2
        mine = [
            t
            for t in seen
            if b["x"] <= (t["left"] + t["right"]) / 2 <= b["x"] + b["w"]
            and b["y"] <= (t["top"] + t["bottom"]) / 2 <= b["y"] + b["h"]
        ]
        if shape in NO_TEXT:
            assert not mine, (nid, mine)
            continue
        assert mine, f"no text drawn in {nid} ({shape})"
        dx, dy, iw, ih = inner_box(shape, b["w"], b["h"])
        for t in mine:
            if shape in _CURVED:
                # Every corner of the text lies within the outline (2 px of glyph overhang).
                a, c = b["w"] / 2 + 2, b["h"] / 2 + 2
                for px in (t["left"], t["right"]):
                    for py in (t["top"], t["bottom"]):
                        u, v = abs(px - cx) / a, abs(py - cy) / c
                        assert _CURVED[shape](u, v) <= 1.0, (nid, shape, t)
            else:
                # Glyph boxes overhang their advance by a pixel or two.
                assert _inside(t, (b["x"] + dx, b["y"] + dy, iw, ih), 3.0), (nid, shape, t)
            placed += 1
    for e in geo["edges"]:
        lab = e.get("label")
        if lab:
            mine = [t for t in seen if _inside(t, (lab["x"], lab["y"], lab["w"], lab["h"]), 3.0)]
            assert mine, f"edge label {lab['text']!r} not drawn in its box"
    assert placed
    title_h = 40
    body = [t for t in seen if t["top"] > title_h]
    for i, a in enumerate(body):
        for c in body[i + 1 :]:
            w = min(a["right"], c["right"]) - max(a["left"], c["left"])
            h = min(a["bottom"], c["bottom"]) - max(a["top"], c["top"])
            assert w <= 1 or h <= 1, (a, c)
