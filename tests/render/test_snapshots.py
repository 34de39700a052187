"""Snapshots of the rendered gallery: HTML for documents, SVG for boards and cards.

Stored as real .html/.svg files under __snapshots__/ so a reviewer can open
them in a browser; refresh with ``pytest tests/render --snapshot-update``.
"""

from __future__ import annotations

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from layoutkit.render import render_board, render_card, render_doc
from tests.render.gallery import BOARDS, DIAGRAM, DOCS, EVERY_CARD


class HTMLSnapshot(SingleFileSnapshotExtension):
    file_extension = "html"
    _write_mode = WriteMode.TEXT


class SVGSnapshot(SingleFileSnapshotExtension):
    file_extension = "svg"
    _write_mode = WriteMode.TEXT


@pytest.fixture
def html_snapshot(snapshot):
    return snapshot.use_extension(HTMLSnapshot)


@pytest.fixture
def svg_snapshot(snapshot):
    return snapshot.use_extension(SVGSnapshot)


@pytest.mark.parametrize("name", sorted(DOCS))
def test_document_html(name: str, html_snapshot) -> None:
    assert render_doc(DOCS[name]) == html_snapshot


@pytest.mark.parametrize("audience", ["public", "internal"])
def test_document_audience_export(audience: str, html_snapshot) -> None:
    assert render_doc(DOCS["every-element"], audience=audience) == html_snapshot


@pytest.mark.parametrize("name", sorted(BOARDS))
def test_board_svg(name: str, svg_snapshot) -> None:
    assert render_board(BOARDS[name]) == svg_snapshot


@pytest.mark.parametrize("kind", ["text", "doc", "diagram", "api", "link", "checklist"])
def test_card_svg(kind: str, svg_snapshot) -> None:
    card = next(c for c in EVERY_CARD if c["kind"] == kind)
    assert render_card(card) == svg_snapshot


def test_standalone_diagram_svg(svg_snapshot) -> None:
    card = {"id": 1, "kind": "diagram", "payload": DIAGRAM, "w": 760, "h": 520}
    assert render_card(card) == svg_snapshot
