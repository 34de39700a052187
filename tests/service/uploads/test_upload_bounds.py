"""Uploads whose decoding could take the server: picture bombs are refused, PDFs counted under caps."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from PIL import Image

from layoutkit import Workspace
from layoutkit.limits import IMAGE_PIXELS
from layoutkit.service.uploads import pdf_pages
from layoutkit.service.uploads.pdf_pages import pdf_page_count, pdf_page_counts
from tests.service.helpers import err
from tests.service.uploads.test_uploads import blank_pdf, entry, object_stream_pdf


@pytest.fixture
def ws() -> Workspace:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "up"})
    return ws


def _png(w: int, h: int) -> bytes:
    buf = io.BytesIO()
    Image.new("1", (w, h)).save(buf, "PNG")
    return buf.getvalue()


@pytest.mark.parametrize(("w", "h"), [(10_000, 9_000), (30_000, 30_000)])
def test_a_picture_over_the_pixel_limit_is_413_naming_it(ws: Workspace, w: int, h: int) -> None:
    # 90 megapixels is over Pillow's threshold (a warning only); 900 over twice it
    # (Pillow refuses to tell the size). Both became file cards before.
    data = _png(w, h)
    assert len(data) < 2_000_000
    e = err(
        ws, "upload_files", {"board": "up", "files": [entry("ok.txt", b"x"), entry("b.png", data)]}
    )
    assert (e.status, e.code, e.body["limit"]) == (413, "limit_exceeded", "imagePixels")
    assert (e.body["max"], e.body["value"]) == (IMAGE_PIXELS, w * h)
    assert e.body["field"] == "files[1].data"
    assert ws.call("scrape_board", {"board": "up"})["cards"] == []


def test_a_picture_at_the_limit_is_a_media_card(ws: Workspace) -> None:
    side = int(IMAGE_PIXELS**0.5)
    r = ws.call("upload_files", {"board": "up", "files": [entry("big.png", _png(side, side))]})
    assert r["files"][0]["kind"] == "media"


def _count_digits_pdf(count: bytes = b"9" * 5000) -> bytes:
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count " + count + b" >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>",
    ]
    out, offsets = b"%PDF-1.4\n", []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref_at = len(out)
    out += b"xref\n0 4\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    return out + b"trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref_at


HOSTILE = {
    # 4 MB of one unterminated page-tree dictionary: froze the regex count for minutes.
    "pages regex bomb": b"%PDF-1.4\n<< /Type /Pages " + b"a" * 4_000_000 + b"\n",
    "repeated /Type /Pages": b"%PDF-1.4\n" + b"/Type /Pages aaaa " * 250_000,
    "60,000 objects, no xref": b"%PDF-1.4\n"
    + b"".join(b"%d 0 obj\n<< /Type /Pages /Kids [] >>\nendobj\n" % i for i in range(1, 60_000))
    + b"trailer\n<< /Root 1 0 R >>\n%%EOF\n",
}
#: Files built to hurt a reader: refused (nothing written), not kept as file cards.
#: Built when their test runs: the bomb takes seconds to deflate, and every test
#: process imports this module to collect it.
REFUSED: dict[str, Callable[[], bytes]] = {
    # An object stream that inflates to 1 GB: the old count inflated every stream.
    "compressed-stream bomb": lambda: object_stream_pdf(3, 1_000_000_000),
    # A page count of 5,000 digits: int() of it crashed the request with a 500.
    "/Count of 5,000 digits": _count_digits_pdf,
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_unreadable_pdfs_upload_as_file_cards_without_a_count(ws: Workspace, name: str) -> None:
    data = HOSTILE[name]
    r = ws.call("upload_files", {"board": "up", "files": [entry("x.pdf", data)]})
    (f,) = r["files"]
    assert (f["kind"], f["mime"], f["size"]) == ("file", "application/pdf", len(data))
    assert "pages" not in f


@pytest.mark.parametrize("name", list(REFUSED))
def test_hostile_pdfs_are_refused_and_nothing_is_written(ws: Workspace, name: str) -> None:
    ok = entry("fine.pdf", blank_pdf(1))
    e = err(ws, "upload_files", {"board": "up", "files": [ok, entry("x.pdf", REFUSED[name]())]})
    assert (e.status, e.code, e.body["field"]) == (422, "pdf_refused", "files[1]")
    assert ws.call("scrape_board", {"board": "up"})["cards"] == []


def test_a_pdf_with_more_pages_than_the_cap_is_refused(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pdf_pages, "PDF_PAGES", 3)
    e = err(ws, "upload_files", {"board": "up", "files": [entry("x.pdf", blank_pdf(5))]})
    assert (e.status, e.code, e.body["field"]) == (422, "pdf_refused", "files[0]")
    assert ws.call("scrape_board", {"board": "up"})["cards"] == []
    monkeypatch.undo()
    # A file that only states a large /Count is counted by its real page tree.
    claim = _count_digits_pdf(b"123456789012")
    (f,) = ws.call("upload_files", {"board": "up", "files": [entry("x.pdf", claim)]})["files"]
    assert f["pages"] == 1


def test_a_page_tree_inside_a_modest_object_stream_is_still_counted() -> None:
    # 1 MB inflated is far under the per-stream cap: a real (if padded) file counts.
    assert pdf_page_count(object_stream_pdf(4, 1_000_000)) == 4


def test_a_pdf_that_takes_longer_than_the_time_cap_has_no_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # With no time at all the child is killed before it answers; the files after it
    # are read by a fresh child, which is killed in turn.
    monkeypatch.setattr(pdf_pages, "PDF_SECONDS", 0.0)
    monkeypatch.setattr(pdf_pages, "STARTUP_SECONDS", 0.0)
    assert pdf_page_counts([blank_pdf(2), blank_pdf(3)]) == [None, None]
    monkeypatch.undo()
    assert pdf_page_counts([blank_pdf(2), b"GIF89a", blank_pdf(3)]) == [2, None, 3]


def test_a_stream_over_the_inflate_cap_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf_pages, "INFLATE_BYTES", 500_000)
    with pytest.raises(pdf_pages.PdfRefused) as got:
        pdf_page_count(object_stream_pdf(4, 1_000_000))
    assert got.value.code == "pdf_refused"
