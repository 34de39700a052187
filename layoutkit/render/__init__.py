"""Rendering: documents to self-contained HTML, boards and cards to SVG and PNG.

Pure code: plain dicts in, a string (HTML, SVG) or PNG bytes out; no I/O
besides reading the bundled fonts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from layoutkit.elements.vocab import FRAME_KINDS
from layoutkit.layout.cuts import Cut
from layoutkit.render._board import (
    DASHED_RELS,
    board_scene,
    card_rect,
    card_scene,
    draws_glances,
    faces_of,
    write,
)
from layoutkit.render._board import _frame as frame_size
from layoutkit.render._board import _rect as rect_of
from layoutkit.render._boxes import TextLine, png_size, text_lines
from layoutkit.render._doc import render_document
from layoutkit.render._glance import FACES, GLANCE_KEYS, code_digest, face_key
from layoutkit.render._images import card_blob_base, image_keys, place_blobs
from layoutkit.render._paper import PAGINGS, PAPERS, Printed, PrintError

__all__ = [
    "DASHED_RELS",
    "GLANCE_KEYS",
    "PAGINGS",
    "PAPERS",
    "BoardSvg",
    "Cut",
    "PrintError",
    "Printed",
    "TextLine",
    "board_pdf",
    "board_svg",
    "card_blob_base",
    "card_faces",
    "card_png_size",
    "card_text_lines",
    "code_digest",
    "doc_pdf",
    "face_cuts",
    "face_key",
    "faces_at_hand",
    "image_keys",
    "picture_size",
    "png_glances",
    "render_board",
    "render_card",
    "render_doc",
]

PNG_MAX_DIM = 1600


def render_doc(doc: dict, *, audience: str | None = None, typeset: str | None = None) -> str:
    """One self-contained HTML file (inline CSS, no network) for a doc element.

    ``doc`` is a doc element ``{"kind": "doc", "payload": {...}}`` or its bare
    payload. ``audience`` ("public", "technical" or "internal") exports only
    what that audience may see and drops the in-page audience switch;
    ``typeset`` overrides the doc's default typeset (the reader's own choice,
    stored in the browser, still wins).

    Raises ValueError for an unknown audience or typeset.
    """
    return render_document(doc, audience=audience, typeset=typeset)


def render_board(
    board: dict,
    *,
    format: str = "svg",
    region: tuple[float, float, float, float] | None = None,
    scale: float | None = None,
) -> str | bytes:
    """A whole board as an SVG string or PNG bytes (longest side at most 1600 px).

    ``scale`` (PNG only) draws at that many pixels per board pixel instead of
    fitting 1600 px: 1.0 shows a card's text at the size a person reads it
    (the picture is at most 8192 px on its longest side either way).

    ``region`` (x, y, w, h in board coordinates) draws only that window, at
    full size and without the title band (``board`` need only hold the cards
    that reach into it).

    A PNG drawn at less than a tenth of the board's size shows each card as a
    glance, its box and title, instead of its whole face: the face's text
    would be too small to read.

    ``board`` is what ``scrape_board`` returns: ``{"board": {...}, "cards":
    [{id, kind, payload, x, y, w, h, parent, ...}], "edges": [{from, to,
    label, rel}]}``. Raises ValueError for a format other than "svg" or "png".
    """
    if format == "svg":
        return board_svg(board, region=region).svg
    _check_region(region)
    if scale is not None and not scale > 0:
        raise ValueError("scale must be a positive number of pixels per board pixel")
    png = format == "png"
    scene = board_scene(
        board, max_dim=PNG_MAX_DIM if png else None, region=region, scale=scale if png else None
    )
    return write(scene, format, max_dim=PNG_MAX_DIM, title=_title(board), scale=scale)


def picture_size(
    board: dict, region: tuple[float, float, float, float] | None = None
) -> tuple[float, float]:
    """The size, in board pixels, of the picture :func:`render_board` draws of ``board``
    (or of ``region``, x, y, w, h): what a scale multiplies into PNG pixels."""
    if region is not None:
        return region[2], region[3]
    cards = [c for c in board.get("cards") or [] if isinstance(c, dict)]
    return frame_size({c.get("id"): rect_of(c) for c in cards})[1]


def png_glances(board: dict) -> bool:
    """Whether :func:`render_board` draws this whole board as PNG with its cards as
    glances: then each card's payload needs only the fields of :data:`GLANCE_KEYS`
    (frames excepted), and text of at most 400 characters."""
    return draws_glances(board, PNG_MAX_DIM)


@attrs.frozen
class BoardSvg:
    """A board drawn as SVG, and the faces drawn for it that the caller did not hold:
    ``faces`` maps card ids to (face key, SVG text of the face at the origin)."""

    svg: str
    faces: dict[Any, tuple[str, str]]


def board_svg(
    board: dict,
    *,
    region: tuple[float, float, float, float] | None = None,
    stored: Mapping[str, str] | None = None,
) -> BoardSvg:
    """:func:`render_board` as SVG, taking faces drawn before from the caller.

    A caller that keeps the faces a call returned (:attr:`BoardSvg.faces`, in a
    database) draws a board whose cards did not change since at the cost of
    reading it, whatever this process's cache holds. It hands them back either
    as a card's ``face`` (the SVG text, when it knows the card is unchanged
    since: its payload may then be left out) or in ``stored`` by
    :func:`face_key` (any card whose kind, payload and size give that key).
    :attr:`BoardSvg.faces` holds every face not given as ``face``.
    """
    _check_region(region)
    fresh: list = []
    scene = board_scene(board, region=region, stored=stored, fresh=fresh)
    svg = write(scene, "svg", title=_title(board))
    # Every fresh face was written into the SVG just now, so its text is known.
    return BoardSvg(str(svg), {cid: (key, str(face.svg)) for cid, key, face in fresh})


def card_faces(
    cards: list[dict], stored: Mapping[str, str] | None = None
) -> dict[Any, tuple[str, str]]:
    """The faces of ``cards`` (frames have none) as :func:`board_svg` would draw them:
    card id → (face key, SVG text at the origin), taken from ``stored`` by key
    where it holds them; a caller keeps them to hand back to :func:`board_svg`."""
    return faces_of(cards, stored or {})


def faces_at_hand(cards: list[dict]) -> bool:
    """Whether this process holds the face of each of ``cards`` already drawn (a compose
    draws its new cards' faces to find what they leave out), so :func:`card_faces`
    would only write them out as SVG: far less work than drawing them elsewhere."""
    for card in cards:
        kind = str(card.get("kind") or "")
        if kind in FRAME_KINDS or isinstance(card.get("face"), str):
            continue
        _, _, w, h = rect_of(card)
        if face_key(kind, card.get("payload"), w, h) not in FACES:
            return False
    return True


def _check_region(region: tuple[float, float, float, float] | None) -> None:
    if region is not None and not (region[2] > 0 and region[3] > 0):
        raise ValueError("a region needs a positive width and height")


def _title(board: dict) -> str:
    meta = board.get("board") if isinstance(board.get("board"), dict) else {}
    return str(meta.get("title") or meta.get("slug") or "board")


def render_card(card: dict, *, format: str = "svg", max_dim: int = 1600) -> str | bytes:
    """One card's face, exactly its ``w`` × ``h``, as SVG or PNG.

    PNG output is scaled down so its longest side is at most ``max_dim``
    pixels (never scaled up). Raises ValueError for an unknown format or a
    non-positive ``max_dim``.
    """
    out = write(card_scene(card), format, max_dim=max_dim, title=str(card.get("kind") or "card"))
    # A face drawn alone links its blob pictures through its own card, as on a board.
    return place_blobs(out, card["id"]) if isinstance(out, str) and "id" in card else out


def face_cuts(kind: str, payload: Any, w: float, h: float) -> list[Cut]:
    """What the face of a ``kind`` card ``w`` × ``h`` leaves out, each with the marker
    its face draws for it; empty when the face shows all of its content."""
    if kind in FRAME_KINDS:
        return []
    # Through the cache of drawn faces: the drawing behind a compose that asked
    # finds this face there instead of drawing it a second time.
    return list(FACES.cuts(kind, payload, float(w), float(h)))


def card_png_size(card: dict, *, max_dim: int = 1600) -> tuple[int, int]:
    """The pixel size of :func:`render_card`'s PNG of ``card`` at ``max_dim``, without
    drawing it."""
    _, _, w, h = card_rect(card)
    return png_size(w, h, max_dim)


def card_text_lines(card: dict, *, max_dim: int = 1600) -> list[TextLine]:
    """Every line of text :func:`render_card` draws on ``card``'s face, with its box in
    the pixels of the PNG drawn at ``max_dim``: the run it belongs to (text runs
    counted in drawing order), its line in that run, its text and x, y, w, h."""
    _, _, w, h = card_rect(card)
    return text_lines(str(card.get("kind") or ""), card.get("payload"), w, h, max_dim)


def board_pdf(board: dict, *, pages: str = "fit", paper: str = "a4") -> Printed:
    """A board as PDF pages, fitted to one or tiled at print size
    (:func:`layoutkit.render._print.board_pdf`). The PDF writer is imported here, on
    the first print, not when the package is."""
    from layoutkit.render import _print

    return _print.board_pdf(board, pages=pages, paper=paper)


def doc_pdf(doc: dict, *, paper: str = "a4", images: Mapping[str, bytes] | None = None) -> Printed:
    """A document as portrait PDF pages with its headings as the outline
    (:func:`layoutkit.render._print.doc_pdf`); the writer is imported on first use."""
    from layoutkit.render import _print

    return _print.doc_pdf(doc, paper=paper, images=images)
