"""export_board as pictures through Workspace.call: a board as PDF pages (fit on one page,
or tiled at print size with page numbers), a doc card as a paginated PDF whose outline is
its headings, the board's SVG and PNG; read back with pypdf. Refusals name their param;
another workspace reaches neither the board nor the card."""

from __future__ import annotations

import base64
import io
import uuid
from typing import Any

import pypdf
import pytest
from PIL import Image

from layoutkit import ServiceError, Workspace, render
from layoutkit.limits import LIMITS
from layoutkit.service.pictures.travel import _linked_pictures


def _png(w: int = 60, h: int = 40, color: str = "#2f9e44") -> str:
    out = io.BytesIO()
    Image.new("RGB", (w, h), color).save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode()


_PARA = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 14

DOC: dict[str, Any] = {
    "title": "Quarterly report",
    "intro": "What happened this quarter.",
    "elements": [
        {
            "kind": "prose",
            "payload": {
                "md": f"Opening.\n\n# Background\n\n{_PARA}\n\n## Details\n\n{_PARA}\n\n```\n# not a heading\n```"
            },
        },
        {
            "kind": "section",
            "payload": {
                "title": "Numbers",
                "elements": [
                    {
                        "kind": "table",
                        "payload": {
                            "cols": [{"key": "name"}, {"key": "n"}],
                            "rows": [{"name": f"row {i}", "n": i} for i in range(50)],
                        },
                    },
                    {
                        "kind": "section",
                        "payload": {
                            "title": "Deeper",
                            "elements": [{"kind": "prose", "payload": {"md": _PARA}}],
                        },
                    },
                ],
            },
        },
        {
            "kind": "section",
            "payload": {
                "title": "End",
                "elements": [{"kind": "prose", "payload": {"md": _PARA * 3}}],
            },
        },
    ],
}
HEADINGS = [
    ("Quarterly report", 0),
    ("Background", 1),
    ("Details", 2),
    ("Numbers", 1),
    ("Deeper", 2),
    ("End", 1),
]


def _board(ws: Workspace, slug: str = "plan") -> dict[str, int]:
    ws.call("create", {"kind": "board", "slug": slug})
    made = ws.call(
        "compose_board",
        {
            "board": slug,
            "cards": [
                {"kind": "note", "ref": "a", "payload": {"md": "Remember the milk"}},
                {"kind": "text", "ref": "b", "payload": {"md": "Second thought"}},
                {"kind": "doc", "ref": "d", "payload": DOC},
                {"kind": "table", "payload": {"cols": [{"key": "who"}], "rows": [{"who": "Ada"}]}},
            ],
            "edges": [{"from": "a", "to": "b", "label": "then"}],
        },
    )
    ws.call("upload_files", {"board": slug, "files": [{"name": "pic.png", "data": _png()}]})
    return {c["ref"]: c["id"] for c in made["cards"] if "ref" in c}


def _pdf(result: dict[str, Any]) -> pypdf.PdfReader:
    data = base64.b64decode(result["data"])
    assert data.startswith(b"%PDF-")
    assert result["size"] == len(data) and result["mime"] == "application/pdf"
    return pypdf.PdfReader(io.BytesIO(data))


def _outline(reader: pypdf.PdfReader) -> list[tuple[str, int, int]]:
    found: list[tuple[str, int, int]] = []

    def walk(entries: list[Any], level: int) -> None:
        for entry in entries:
            if isinstance(entry, list):
                walk(entry, level + 1)
            else:
                found.append((entry.title, level, reader.get_destination_page_number(entry) + 1))

    walk(reader.outline, 0)
    return found


def _text(reader: pypdf.PdfReader) -> str:
    return "\n".join(page.extract_text() for page in reader.pages)


def test_a_board_fits_one_landscape_page_with_its_cards_text_and_picture() -> None:
    with Workspace.open() as ws:
        _board(ws)
        out = ws.call("export_board", {"board": "plan", "format": "pdf"})
        assert (out["name"], out["pages"], out["paging"], out["paper"]) == (
            "plan.pdf",
            1,
            "fit",
            "a4",
        )
        assert out["cards"] == 5 and 0 < out["scale"] <= 0.75
        reader = _pdf(out)
        assert len(reader.pages) == 1
        box = reader.pages[0].mediabox
        assert (round(float(box.width)), round(float(box.height))) == (842, 595)
        text = _text(reader)
        for words in ("Remember the milk", "Second thought", "Quarterly report", "Ada", "then"):
            assert words in text
        # the uploaded picture is embedded, not linked
        assert len(reader.pages[0].images) == 1


def test_tiles_print_at_print_size_on_numbered_pages() -> None:
    with Workspace.open() as ws:
        _board(ws)
        fit = ws.call("export_board", {"board": "plan", "format": "pdf", "paper": "letter"})
        tiled = ws.call(
            "export_board", {"board": "plan", "format": "pdf", "pages": "tile", "paper": "letter"}
        )
        assert fit["pages"] == 1
        assert tiled["scale"] == 0.75 and tiled["paging"] == "tile"
        reader = _pdf(tiled)
        assert len(reader.pages) == tiled["pages"] > 1
        box = reader.pages[0].mediabox
        assert (round(float(box.width)), round(float(box.height))) == (792, 612)
        for n, page in enumerate(reader.pages, start=1):
            assert f"page {n} of {tiled['pages']}" in page.extract_text()
        assert "Remember the milk" in _text(reader)


def test_a_doc_card_prints_as_pages_with_its_headings_as_the_outline() -> None:
    with Workspace.open() as ws:
        ids = _board(ws)
        out = ws.call("export_board", {"board": "plan", "format": "pdf", "card": ids["d"]})
        assert out["name"] == f"plan-{ids['d']}.pdf" and out["card"] == ids["d"]
        reader = _pdf(out)
        assert len(reader.pages) == out["pages"] > 1
        box = reader.pages[0].mediabox
        assert round(float(box.width)) < round(float(box.height))  # portrait
        outline = _outline(reader)
        assert [(t, lv) for t, lv, _ in outline] == HEADINGS
        assert [(o["title"], o["level"], o["page"]) for o in out["outline"]] == outline
        # each heading's page holds its words; pages go in reading order
        pages = [o[2] for o in outline]
        assert pages == sorted(pages)
        for title, _, page in outline:
            assert title in reader.pages[page - 1].extract_text()
        assert "# not a heading" in _text(reader)
        assert "row 49" in _text(reader)


def test_svg_and_png_are_the_board_picture_with_name_and_mime() -> None:
    with Workspace.open() as ws:
        _board(ws)
        svg = ws.call("export_board", {"board": "plan", "format": "svg"})
        assert (svg["name"], svg["mime"]) == ("plan.svg", "image/svg+xml")
        assert svg["document"].startswith("<svg") and "Remember the milk" in svg["document"]
        # the uploaded picture rides inside the file, not as a link to this server
        assert 'href="data:image/png;base64,' in svg["document"]
        assert "/blobs/sha256:" not in svg["document"]
        # so does it from faces stored by an earlier drawing (which name it through
        # their placeholder), whichever the next drawing reads
        again = ws.call("export_board", {"board": "plan", "format": "svg"})
        assert again["document"] == svg["document"]
        media = next(
            c for c in ws.call("scrape_board", {"board": "plan"})["cards"] if c["kind"] == "media"
        )
        face = render.card_faces([media])[media["id"]][1]
        with ws.store.read() as tx:
            assert list(_linked_pictures(tx, [{"id": media["id"], "face": face}])) == [
                media["payload"]["ref"]
            ]
        png = ws.call("export_board", {"board": "plan", "format": "png", "scale": 0.5})
        assert (png["name"], png["mime"]) == ("plan.png", "image/png")
        image = Image.open(io.BytesIO(base64.b64decode(png["image"]["data"])))
        assert image.format == "PNG" and png["image"]["scale"] == 0.5


@pytest.mark.parametrize(
    ("params", "status", "code", "field"),
    [
        ({"format": "pdf", "scale": 1}, 400, "exclusive_params", "scale"),
        ({"format": "png", "pages": "tile"}, 400, "exclusive_params", "pages"),
        ({"format": "canvas", "paper": "a4"}, 400, "exclusive_params", "paper"),
        ({"format": "svg", "cards": [1]}, 400, "exclusive_params", "cards"),
        ({"format": "png", "cards": [1]}, 400, "exclusive_params", "cards"),
        ({"format": "pdf", "cards": [999_999]}, 404, "unknown_card", "cards[0]"),
        ({"format": "svg", "card": 1}, 400, "exclusive_params", "card"),
        ({"format": "pdf", "paper": "a3"}, 400, "invalid_params", "paper"),
        ({"format": "pdf", "pages": "all"}, 400, "invalid_params", "pages"),
        ({"format": "docx"}, 400, "invalid_params", "format"),
        ({"format": "pdf", "card": 999_999}, 404, "unknown_card", "card"),
    ],
)
def test_refusals_name_the_param(
    params: dict[str, Any], status: int, code: str, field: str
) -> None:
    with Workspace.open() as ws:
        _board(ws)
        with pytest.raises(ServiceError) as caught:
            ws.call("export_board", {"board": "plan", **params})
        assert (caught.value.status, caught.value.body["code"]) == (status, code)
        assert caught.value.body["field"] == field


def test_a_pdf_of_a_selection_prints_just_those_cards_and_their_wires() -> None:
    with Workspace.open() as ws:
        ids = _board(ws)
        out = ws.call(
            "export_board", {"board": "plan", "format": "pdf", "cards": [ids["a"], ids["b"]]}
        )
        assert (out["cards"], out["pages"]) == (2, 1)
        text = _text(_pdf(out))
        assert "Remember the milk" in text and "Second thought" in text and "then" in text
        assert "Quarterly report" not in text and "Ada" not in text
        # Alone, the note leaves its wire out too: a wire needs both of its cards.
        alone = _text(
            _pdf(ws.call("export_board", {"board": "plan", "format": "pdf", "cards": [ids["a"]]}))
        )
        assert "Remember the milk" in alone and "then" not in alone and "Second" not in alone
        with pytest.raises(ServiceError) as caught:
            ws.call(
                "export_board",
                {"board": "plan", "format": "pdf", "card": ids["d"], "cards": [ids["a"]]},
            )
        assert (caught.value.body["code"], caught.value.body["field"]) == (
            "exclusive_params",
            "cards",
        )


def test_a_pdf_of_a_card_that_is_no_doc_and_a_doc_with_pages_are_refused() -> None:
    with Workspace.open() as ws:
        ids = _board(ws)
        with pytest.raises(ServiceError) as caught:
            ws.call("export_board", {"board": "plan", "format": "pdf", "card": ids["a"]})
        assert (caught.value.body["code"], caught.value.body["field"]) == ("not_a_doc", "card")
        with pytest.raises(ServiceError) as caught:
            ws.call(
                "export_board",
                {"board": "plan", "format": "pdf", "card": ids["d"], "pages": "tile"},
            )
        assert caught.value.body["field"] == "pages"


def test_a_tiling_past_the_page_cap_is_refused_before_drawing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(LIMITS, "exportPages", 2)
    with Workspace.open() as ws:
        _board(ws)
        with pytest.raises(ServiceError) as caught:
            ws.call("export_board", {"board": "plan", "format": "pdf", "pages": "tile"})
        body = caught.value.body
        assert caught.value.status == 413
        assert (body["code"], body["limit"], body["field"]) == (
            "limit_exceeded",
            "exportPages",
            "pages",
        )
        # fit is one page whatever the board's size
        assert ws.call("export_board", {"board": "plan", "format": "pdf"})["pages"] == 1


def test_another_workspace_reaches_neither_the_board_nor_its_doc_card() -> None:
    with Workspace.open() as ws:
        ids = _board(ws)
        ws.multi_workspace = True
        other = Workspace(ws.store, name=f"other-{uuid.uuid4().hex[:8]}", multi_workspace=True)
        with pytest.raises(ServiceError) as caught:
            other.call("export_board", {"board": "plan", "format": "pdf"})
        assert (caught.value.status, caught.value.body["code"]) == (404, "unknown_board")
        other.call("create", {"kind": "board", "slug": "mine"})
        with pytest.raises(ServiceError) as caught:
            other.call("export_board", {"board": "mine", "format": "pdf", "card": ids["d"]})
        assert (caught.value.status, caught.value.body["code"]) == (404, "unknown_card")
