"""The gallery in headless Chromium: screenshots against stored baselines, a
printable PDF, and the hostile inputs proven inert in a real browser.

Pixel tolerance: a screenshot matches its baseline when both have the same
size, the mean absolute channel difference is at most 3.0 (of 255), and at
most 1% of pixels differ by more than 40 in any channel. That absorbs
anti-aliasing and hinting jitter between Chromium builds but fails on any
moved block, missing element or colour change. Screenshots are kept under
``artifacts/render/`` (git-ignored); set ``LAYOUTKIT_UPDATE_BASELINES=1`` to
rewrite ``tests/render/baselines/*.png``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from layoutkit.render import render_board, render_doc
from tests.browser import CHROMIUM, SKIP_REASON
from tests.browser import run_chromium as chromium
from tests.render.gallery import BOARDS, DOCS
from tests.render.xss import FIRE, MARKER, hostile_doc

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
BASELINES = Path(__file__).resolve().parent / "baselines"
ARTIFACTS = REPO / "artifacts" / "render"
MEAN_TOLERANCE = 3.0
PIXEL_DELTA = 40
PIXEL_SHARE = 0.01
WINDOW = (1000, 1400)

if CHROMIUM is None:
    pytest.skip(SKIP_REASON, allow_module_level=True)


def screenshot(page: Path, out: Path) -> Image.Image:
    out.parent.mkdir(parents=True, exist_ok=True)
    result = chromium(
        f"--screenshot={out}",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        "--virtual-time-budget=2000",
        page.as_uri(),
    )
    assert out.exists(), result.stderr[-2000:]
    return Image.open(out).convert("RGB")


def dump_dom(page: Path) -> str:
    result = chromium("--dump-dom", "--virtual-time-budget=3000", page.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def compare(shot: Image.Image, name: str) -> None:
    baseline_path = BASELINES / f"{name}.png"
    if os.environ.get("LAYOUTKIT_UPDATE_BASELINES") == "1" or not baseline_path.exists():
        BASELINES.mkdir(parents=True, exist_ok=True)
        shot.save(baseline_path)
        if os.environ.get("LAYOUTKIT_UPDATE_BASELINES") != "1":
            pytest.skip(f"baseline {baseline_path.name} created; commit it")
        return
    baseline = Image.open(baseline_path).convert("RGB")
    assert shot.size == baseline.size, f"{name}: size {shot.size} != baseline {baseline.size}"
    diff = np.abs(np.asarray(shot, dtype=np.int16) - np.asarray(baseline, dtype=np.int16))
    mean = float(diff.mean())
    share = float((diff.max(axis=2) > PIXEL_DELTA).mean())
    if mean > MEAN_TOLERANCE or share > PIXEL_SHARE:
        Image.fromarray((diff.max(axis=2) * 4).clip(0, 255).astype(np.uint8)).save(
            ARTIFACTS / f"{name}.diff.png"
        )
    assert mean <= MEAN_TOLERANCE, f"{name}: mean difference {mean:.2f}"
    assert share <= PIXEL_SHARE, f"{name}: {share:.2%} of pixels differ"


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("render-pages")
    out: dict[str, Path] = {}
    for name, doc in DOCS.items():
        out[f"doc-{name}"] = root / f"doc-{name}.html"
        out[f"doc-{name}"].write_text(render_doc(doc), encoding="utf-8")
    for name, board in BOARDS.items():
        out[f"board-{name}"] = root / f"board-{name}.svg"
        out[f"board-{name}"].write_text(str(render_board(board)), encoding="utf-8")
    out["hostile"] = root / "hostile.html"
    out["hostile"].write_text(render_doc(hostile_doc()), encoding="utf-8")
    return out


@pytest.mark.parametrize(
    "name", [f"doc-{n}" for n in sorted(DOCS)] + [f"board-{n}" for n in sorted(BOARDS)]
)
def test_screenshot_matches_baseline(name: str, pages: dict[str, Path]) -> None:
    shot = screenshot(pages[name], ARTIFACTS / f"{name}.png")
    compare(shot, name)


def test_hostile_inputs_never_run_script(pages: dict[str, Path]) -> None:
    screenshot(pages["hostile"], ARTIFACTS / "hostile.png")
    dom = dump_dom(pages["hostile"])
    assert "<title>Hostile inputs</title>" in dom
    assert MARKER not in dom


def test_marker_detection_works(tmp_path: Path) -> None:
    """Control: a page that really runs the payload is caught by the same check."""
    page = tmp_path / "control.html"
    page.write_text(
        f"<!doctype html><title>Hostile inputs</title><script>{FIRE}</script>", encoding="utf-8"
    )
    assert MARKER in dump_dom(page)


def test_page_script_runs_and_shows_the_switches(pages: dict[str, Path]) -> None:
    dom = dump_dom(pages["doc-every-element"])
    assert '<div class="controls">' in dom  # the page's own script unhid the controls


def test_print_produces_a_pdf(pages: dict[str, Path]) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pdf = ARTIFACTS / "doc-every-element.pdf"
    pdf.unlink(missing_ok=True)
    chromium(
        f"--print-to-pdf={pdf}",
        "--no-pdf-header-footer",
        "--virtual-time-budget=2000",
        pages["doc-every-element"].as_uri(),
    )
    assert pdf.exists() and pdf.read_bytes().startswith(b"%PDF")
    assert pdf.stat().st_size > 10_000
