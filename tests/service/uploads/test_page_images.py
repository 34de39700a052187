"""PDF page images: rasterised after the upload, off the request path, in a capped
child process; at most 24 pages into payload.pageImages; render_pages redoes it."""

from __future__ import annotations

import base64
import io
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from layoutkit import Principal, ServiceError, Workspace
from layoutkit.service.uploads import page_images, pdf_pages
from tests.pdfs import BLOCK, report_pdf

AGENT = Principal.agent("claude")


@pytest.fixture
def ws() -> Iterator[Workspace]:
    with Workspace.open() as ws:
        ws.call("create", {"kind": "board", "slug": "docs"}, AGENT)
        yield ws


def upload(ws: Workspace, name: str, data: bytes) -> dict:
    files = [{"name": name, "data": base64.b64encode(data).decode()}]
    return ws.call("upload_files", {"board": "docs", "files": files}, AGENT)["files"][0]


def payload(ws: Workspace, card_id: int) -> dict:
    with ws.store.read() as tx:
        card = tx.card(card_id)
        assert card is not None
        return card.payload


def near(colour: tuple[int, ...], want: tuple[int, int, int], by: int = 12) -> bool:
    return all(abs(a - b) <= by for a, b in zip(colour, want, strict=False))


def test_an_uploaded_pdf_gets_its_page_images_after_the_receipt(ws: Workspace) -> None:
    started = time.monotonic()
    f = upload(ws, "report.pdf", report_pdf(3))
    assert time.monotonic() - started < 5
    assert "pageImages" not in payload(ws, f["card"])  # the receipt did not wait for them
    assert ws.jobs.drain(60)
    p = payload(ws, f["card"])
    assert p["pages"] == 3 and "pagesError" not in p
    assert [(i["w"], i["h"]) for i in p["pageImages"]] == [(849, 1200)] * 3
    with ws.store.read() as tx:
        first = tx.blobs.get(p["pageImages"][0]["ref"])
        card = tx.card(f["card"])
    assert first is not None and first.startswith(b"\x89PNG")
    assert card is not None and card.version == 2  # landing bumped it: viewers redraw
    assert near(Image.open(io.BytesIO(first)).convert("RGB").getpixel((400, 1000)), BLOCK)


def test_the_board_picture_shows_the_first_page(ws: Workspace) -> None:
    f = upload(ws, "report.pdf", report_pdf(1))
    assert ws.jobs.drain(60)
    key = payload(ws, f["card"])["pageImages"][0]["ref"]
    svg = ws.call("render_board", {"board": "docs"}, AGENT)["svg"]
    assert f"/api/v1/cards/{f['card']}/blobs/{key}" in svg and "report.pdf" in svg
    png = base64.b64decode(
        ws.call("render_board", {"board": "docs", "format": "png"})["image"]["data"]
    )
    img = Image.open(io.BytesIO(png)).convert("RGB")
    blue = sum(n for n, c in img.getcolors(1 << 22) or [] if near(c, BLOCK))
    assert blue > 20_000


def test_at_most_24_pages_are_rasterised(ws: Workspace) -> None:
    f = upload(ws, "long.pdf", report_pdf(30))
    assert ws.jobs.drain(120)
    p = payload(ws, f["card"])
    assert p["pages"] == 30 and len(p["pageImages"]) == 24


def test_a_pdf_that_cannot_be_rasterised_says_why_on_the_card(ws: Workspace) -> None:
    f = upload(ws, "broken.pdf", b"%PDF-1.7\n this is not a PDF body")
    assert ws.jobs.drain(60)
    p = payload(ws, f["card"])
    assert "pageImages" not in p and p["pagesError"]
    svg = ws.call("render_board", {"board": "docs"}, AGENT)["svg"]
    assert "broken.pdf" in svg  # the plain PDF face, never a failed picture
    with pytest.raises(ServiceError) as exc:
        ws.call("render_pages", {"id": f["card"]}, AGENT)
    assert (exc.value.status, exc.value.code) == (422, "pdf_unreadable")
    assert payload(ws, f["card"]) == p  # nothing written


def test_render_pages_rasterises_again_and_only_for_those_who_may_write(ws: Workspace) -> None:
    f = upload(ws, "report.pdf", report_pdf(2))
    assert ws.jobs.drain(60)
    before = payload(ws, f["card"])
    out = ws.call("render_pages", {"id": f["card"]}, AGENT)
    assert out["pageImages"] == before["pageImages"]  # the same pages: the same blobs
    assert out["pages"] == 2 and out["version"] == 3
    with pytest.raises(ServiceError) as exc:
        ws.call("render_pages", {"id": f["card"]}, Principal.share("docs"))
    assert exc.value.status == 403


def test_without_a_rasteriser_uploads_keep_the_plain_face_and_the_route_is_501(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pdf_pages, "can_rasterise", lambda: False)
    f = upload(ws, "report.pdf", report_pdf(1))
    assert ws.jobs.drain(10)
    assert "pageImages" not in payload(ws, f["card"])
    with pytest.raises(ServiceError) as exc:
        ws.call("render_pages", {"id": f["card"]}, AGENT)
    assert (exc.value.status, exc.value.code) == (501, "no_rasterizer")


def test_the_child_is_held_to_its_time_and_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    data = report_pdf(4)
    monkeypatch.setattr(pdf_pages, "STARTUP_SECONDS", 0.0)
    late = pdf_pages.rasterise(data, seconds=0.05)  # the interpreter alone takes longer
    assert late.error is not None and "took over" in late.error and len(late.pages) < 4
    starved = pdf_pages.rasterise(data, memory=48 * 1024 * 1024)
    assert starved.pages == () and starved.error


def test_a_card_removed_before_its_pages_land_is_left_alone(ws: Workspace) -> None:
    notes = [{"kind": "note", "payload": {"md": f"note {i}"}} for i in range(3)]
    ws.call("compose_board", {"board": "docs", "cards": notes}, AGENT)
    f = upload(ws, "report.pdf", report_pdf(1))
    assert ws.jobs.drain(60)
    ws.call("update_cards", {"remove": [f["card"]]}, AGENT)
    with ws.store.read() as tx:
        board = tx.board_by_slug(ws.workspace_id, "docs")
    assert board is not None
    ref = payload(ws, f["card"])["ref"]
    assert not page_images.rasterise_and_land(ws, board.id, f["card"], ref)


def test_pdfs_whose_pages_never_landed_are_queued_again(ws: Workspace) -> None:
    f = upload(ws, "report.pdf", report_pdf(1))
    assert ws.jobs.drain(60)
    with ws.store.transaction() as tx:
        card = tx.card(f["card"])
        assert card is not None
        bare = {k: v for k, v in card.payload.items() if k not in page_images.FIELDS}
        tx.update_cards([{"id": card.id, "payload": bare}])
    assert ws.resume("pages") == 1
    assert ws.jobs.drain(60)
    assert len(payload(ws, f["card"])["pageImages"]) == 1
    assert ws.resume("pages") == 0


def test_a_job_dropped_at_shutdown_leaves_the_card_for_the_next_start(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ws.db'}"
    with Workspace.open(url) as ws:
        ws.call("create", {"kind": "board", "slug": "docs"}, AGENT)
        ws.jobs.shutdown()  # as a process stopping before its jobs start
        f = upload(ws, "report.pdf", report_pdf(1))
        assert not any(k in payload(ws, f["card"]) for k in page_images.FIELDS)
    with Workspace.open(url) as again:
        assert again.resume("pages") == 1
        assert again.jobs.drain(60)
        assert len(payload(again, f["card"])["pageImages"]) == 1
