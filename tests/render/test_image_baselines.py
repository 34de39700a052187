"""Visual baselines of pictures on cards, drawn by layoutkit's own PNG writer (no browser):
an image card, a broken image, a PDF card showing its first page, the example board
with its picture, a dashboard with every chart viz and a flowchart of issue 31's rules. Same tolerance as the browser baselines (tests/render/test_browser.py):
same size, mean channel difference at most 3.0, at most 1% of pixels off by more than 40.
``LAYOUTKIT_UPDATE_BASELINES=1`` rewrites them; each drawing is also written under
``artifacts/render/`` to look at."""

from __future__ import annotations

import base64
import io
import os
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from layoutkit import Workspace, render
from layoutkit.diagram import import_text, lay_out
from layoutkit.examples import seed_example
from layoutkit.service.uploads import pdf_pages
from layoutkit.storage import blob_key
from tests.pdfs import report_pdf
from tests.render.gallery import CHART_BOARD

BASELINES = Path(__file__).resolve().parent / "baselines"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "render"
MEAN_TOLERANCE = 3.0
PIXEL_DELTA = 40
PIXEL_SHARE = 0.01

LANDING = resources.files("layoutkit.examples").joinpath("landing.png").read_bytes()


def compare(png: bytes, name: str) -> None:
    shot = Image.open(io.BytesIO(png)).convert("RGB")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot.save(ARTIFACTS / f"{name}.png")
    path = BASELINES / f"{name}.png"
    if os.environ.get("LAYOUTKIT_UPDATE_BASELINES") == "1" or not path.exists():
        shot.save(path)
        if os.environ.get("LAYOUTKIT_UPDATE_BASELINES") != "1":
            pytest.skip(f"baseline {path.name} created; commit it")
        return
    baseline = Image.open(path).convert("RGB")
    assert shot.size == baseline.size, f"{name}: size {shot.size} != baseline {baseline.size}"
    diff = np.abs(np.asarray(shot, dtype=np.int16) - np.asarray(baseline, dtype=np.int16))
    mean = float(diff.mean())
    share = float((diff.max(axis=2) > PIXEL_DELTA).mean())
    assert mean <= MEAN_TOLERANCE, f"{name}: mean difference {mean:.2f}"
    assert share <= PIXEL_SHARE, f"{name}: {share:.2%} of pixels differ"


def card(kind: str, payload: dict, w: float, h: float, images: dict[str, bytes]) -> dict:
    return {"id": 1, "kind": kind, "payload": payload, "w": w, "h": h, "images": images}


def test_image_card_baseline() -> None:
    key = blob_key(LANDING)
    payload = {"ref": key, "mime": "image/png", "alt": "landing.png", "caption": "Landing page"}
    png = render.render_card(card("media", payload, 480, 330, {key: LANDING}), format="png")
    assert isinstance(png, bytes)
    compare(png, "card-image")


def test_broken_image_card_baseline() -> None:
    broken = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
    key = blob_key(broken)
    payload = {"ref": key, "mime": "image/png", "alt": "broken.png"}
    png = render.render_card(card("media", payload, 360, 240, {key: broken}), format="png")
    assert isinstance(png, bytes)
    compare(png, "card-image-broken")


def test_pdf_card_baseline() -> None:
    raster = pdf_pages.rasterise(report_pdf(3))
    assert raster.error is None and len(raster.pages) == 3
    first = raster.pages[0]
    key = blob_key(first.data)
    payload = {
        "name": "quarterly-report.pdf",
        "mime": "application/pdf",
        "pages": 3,
        "ref": "sha256:" + "0" * 64,
        "pageImages": [{"ref": key, "w": first.width, "h": first.height}],
    }
    png = render.render_card(card("file", payload, 420, 594, {key: first.data}), format="png")
    assert isinstance(png, bytes)
    compare(png, "card-pdf")


def test_example_board_with_its_picture_baseline() -> None:
    with Workspace.open() as ws:
        slug = seed_example(ws)
        out = ws.call("render_board", {"board": slug, "format": "png"})
    compare(base64.b64decode(out["image"]["data"]), "board-welcome")


def test_dashboard_of_every_chart_viz_baseline() -> None:
    png = render.render_board(CHART_BOARD, format="png")
    assert isinstance(png, bytes)
    compare(png, "board-charts")


# Italic titles from style and classDef, a markdown string, underscores that are not
# emphasis, a diamond and a circle sized to their text, a label wider than the nodes it
# joins, and three disconnected parts in source order.
FLOWCHART = """flowchart TD
  A[Request] --> R[Check]
  R --> B{Is the payment authorised by the bank?}
  B -->|yes| C((Ship the order))
  B --> D["`**Refund** _now_`"]
  D --> E[Transition1_____]
  F[Audit] -->|a label wider than the two nodes it joins| G[Log]
  H[Standalone note]
  style A font-style:italic,color:#b00020
  classDef quiet font-style:italic,fill:#eef
  class F,H quiet
"""


def test_flowchart_fidelity_baseline() -> None:
    payload = lay_out(import_text(FLOWCHART) | {"title": "Flowchart fidelity"})
    geo = payload["geo"]
    diagram = card("diagram", payload, geo["width"] + 40, geo["height"] + 90, {})
    png = render.render_card(diagram | {"x": 0, "y": 0}, format="png")
    assert isinstance(png, bytes)
    compare(png, "diagram-flowchart-fidelity")


STATE_TEXT = """stateDiagram-v2
    [*] --> Still
    Still --> Moving
    Moving --> Still
    note left of Still : at rest
    Moving --> Busy
    state Busy {
        [*] --> Working
        Working --> Checking
        Checking --> [*]
    }
    Busy --> Busy : retry
    Busy --> Done
    note right of Done
        all finished
    end note
    Done --> [*]
"""


def test_state_diagram_with_composite_cycle_note_and_start_markers_baseline() -> None:
    """A state diagram as Mermaid draws one: the notes beside their states, the two-state
    cycle as two wires apart, start markers over their targets, the composite's self-loop
    on a side of its frame no other wire uses."""
    payload = lay_out({"diagram_text": STATE_TEXT})
    w, h = payload["geo"]["width"] + 40, payload["geo"]["height"] + 60
    png = render.render_card(card("diagram", payload, w, h, {}), format="png")
    assert isinstance(png, bytes)
    compare(png, "card-state-diagram")


# Subgraph-to-subgraph wires (Mermaid's docs-0099), and picture nodes: a site's picture
# named but never fetched, an inline one drawn, the title above (pos t) and below.
GROUPS_AND_PICTURES = """flowchart TB
    c1-->a2
    subgraph one
    a1-->a2
    end
    subgraph two
    b1-->b2
    end
    subgraph three
    c1-->c2
    end
    one --> two
    three --> two
    two --> c2
    c2 --> P@{ img: "https://example.com/logo.png", label: "Company logo", h: 50 }
    P --> Q@{ img: "%s", label: "Inline", pos: "t", w: 80, h: 40 }
"""


def test_frames_and_picture_nodes_baseline() -> None:
    buf = io.BytesIO()
    Image.new("RGB", (40, 20), (200, 60, 60)).save(buf, "PNG")
    inline = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()
    payload = lay_out(import_text(GROUPS_AND_PICTURES % inline) | {"title": "Frames"})
    geo = payload["geo"]
    diagram = card("diagram", payload, geo["width"] + 40, geo["height"] + 90, {})
    png = render.render_card(diagram | {"x": 0, "y": 0}, format="png")
    assert isinstance(png, bytes)
    compare(png, "diagram-frames-and-pictures")


def _first_page_png(pdf: bytes) -> bytes:
    """The first page of ``pdf`` rasterised by PDFium at 100 dpi."""
    import pypdfium2

    document = pypdfium2.PdfDocument(pdf)
    try:
        image = document[0].render(scale=100 / 72).to_pil()
    finally:
        document.close()
    out = io.BytesIO()
    image.convert("RGB").save(out, format="PNG")
    return out.getvalue()


def test_example_board_as_a_pdf_page_baseline() -> None:
    """The welcome board fitted to one A4 page by the PDF writer, as PDFium draws it:
    the same cards, text and picture as the PNG writer's board-welcome."""
    with Workspace.open() as ws:
        slug = seed_example(ws)
        out = ws.call("export_board", {"board": slug, "format": "pdf"})
    compare(_first_page_png(base64.b64decode(out["data"])), "board-welcome-pdf")


def test_document_as_pdf_pages_baseline() -> None:
    """A doc card's first printed page: its head, a markdown heading, prose, a chart
    kept whole and the start of a table, in one column."""
    doc = {
        "title": "Quarterly report",
        "kicker": "Operations",
        "intro": "What happened this quarter, in numbers.",
        "chips": [{"k": "owner", "v": "Ana"}],
        "elements": [
            {"kind": "prose", "payload": {"md": "# Background\n\n" + "Orders grew. " * 40}},
            {"kind": "chart", "payload": CHART_BOARD["cards"][0]["payload"]},
            {
                "kind": "table",
                "payload": {
                    "cols": [{"key": "team"}, {"key": "orders"}],
                    "rows": [{"team": f"team {i}", "orders": i * 7} for i in range(40)],
                },
            },
        ],
    }
    printed = render.doc_pdf(doc)
    assert printed.pages == 2
    compare(_first_page_png(printed.pdf), "doc-pdf-page")
