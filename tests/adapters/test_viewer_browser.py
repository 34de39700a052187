"""The board viewer in headless Chromium: the cards in view are drawn, and only those."""

from __future__ import annotations

import re

import pytest

from layoutkit.adapters.http import seed_example
from layoutkit.storage import NewCard
from tests.adapters.conftest import Api
from tests.browser import ARTIFACTS, CHROMIUM, SKIP_REASON, run_chromium

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON),
]


def _drawn(dom: str) -> set[int]:
    return {int(i) for i in re.findall(r'data-card-id="(\d+)"', dom)}


def test_viewer_draws_every_card_in_view(api: Api) -> None:
    slug = seed_example(api.ws)
    cards = api.op("scrape_board", {"board": slug}).json()["cards"]
    page = f"{api.url}/boards/{slug}?token={api.token}"
    # A window larger than the board: the region asked for holds every card.
    dom = run_chromium("--dump-dom", "--window-size=4000,3000", "--virtual-time-budget=8000", page)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-ready="1"' in dom.stdout, dom.stdout[-2000:]
    assert f'data-cards="{len(cards)}"' in dom.stdout
    assert _drawn(dom.stdout) == {c["id"] for c in cards}

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "viewer-welcome.png"
    result = run_chromium(
        f"--screenshot={shot}", "--window-size=1600,1000", "--virtual-time-budget=8000", page
    )
    assert shot.exists() and shot.stat().st_size > 10_000, result.stderr[-2000:]


def test_viewer_of_a_large_board_reads_only_the_cards_near_the_view(api: Api) -> None:
    """A 3,000-card board: the page draws the cards around the view, not the board."""
    api.ws.call("create", {"kind": "board", "slug": "huge"})
    with api.ws.store.transaction() as tx:
        board = tx.board_by_slug(api.ws.workspace_id, "huge")
        assert board is not None
        tx.insert_cards(
            board.id,
            [
                NewCard(
                    "note",
                    {"md": f"Note {i}"},
                    (i % 60) * 240.0,
                    (i // 60) * 140.0,
                    216.0,
                    116.0,
                    "ai",
                    "agent:seed",
                    sized_by="content",
                )
                for i in range(3000)
            ],
        )
    page = f"{api.url}/boards/huge?token={api.token}"
    dom = run_chromium("--dump-dom", "--window-size=1200,800", "--virtual-time-budget=8000", page)
    assert 'data-ready="1"' in dom.stdout, dom.stdout[-2000:]
    drawn = _drawn(dom.stdout)
    # The view and half a view around it: a few dozen cards, the top-left ones among them.
    assert 10 < len(drawn) < 300, len(drawn)
    assert f'data-cards="{len(drawn)}"' in dom.stdout
    with api.ws.store.read() as tx:
        first = tx.card_boxes(board.id)[0].id
    assert first in drawn
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "viewer-large-board.png"
    run_chromium(
        f"--screenshot={shot}", "--window-size=1200,800", "--virtual-time-budget=8000", page
    )
    assert shot.exists() and shot.stat().st_size > 10_000

    # Moving the view (here through an #at= address, which scrolls the page) draws
    # the cards around the new place and leaves the first ones behind.
    far = f"{page}#at=9000,3000"
    dom = run_chromium("--dump-dom", "--window-size=1200,800", "--virtual-time-budget=8000", far)
    moved = _drawn(dom.stdout)
    assert 10 < len(moved) < 300 and first not in moved, len(moved)
    with api.ws.store.read() as tx:
        near = {b.id for b in tx.card_boxes(board.id, within=(8900, 2900, 9100, 3100))}
    assert near and near <= moved
    shot = ARTIFACTS / "viewer-large-board-moved.png"
    run_chromium(
        f"--screenshot={shot}", "--window-size=1200,800", "--virtual-time-budget=8000", far
    )
    assert shot.exists() and shot.stat().st_size > 10_000


def test_share_link_opens_the_viewer(api: Api) -> None:
    slug = seed_example(api.ws)
    url = api.op("share_board", {"board": slug}).json()["url"]
    dom = run_chromium("--dump-dom", "--virtual-time-budget=8000", f"{api.url}{url}")
    assert 'data-ready="1"' in dom.stdout, dom.stdout[-2000:]


def test_viewer_shows_an_uploaded_image_fetched_through_the_blob_route(api: Api) -> None:
    import io

    from PIL import Image

    api.op("create", {"kind": "board", "slug": "photos"})
    picture = io.BytesIO()
    Image.new("RGB", (480, 320), "#e11d48").save(picture, format="PNG")
    from tests.pdfs import BLOCK, report_pdf

    res = api.client.post(
        "/api/v1/boards/photos/upload",
        files=[
            ("files", ("rose.png", picture.getvalue(), "image/png")),
            ("files", ("report.pdf", report_pdf(2), "application/pdf")),
        ],
    )
    assert res.status_code == 201, res.text
    assert api.ws.jobs.drain(60)  # the PDF's pages have landed
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "viewer-image.png"
    page = f"{api.url}/boards/photos?token={api.token}"
    result = run_chromium(
        f"--screenshot={shot}", "--window-size=1100,800", "--virtual-time-budget=8000", page
    )
    assert shot.exists(), result.stderr[-2000:]
    colours = Image.open(shot).convert("RGB").getcolors(1 << 20) or []
    # The picture itself, not its placeholder: most of its 480 x 320 pixels in its colour.
    assert sum(n for n, c in colours if c == (225, 29, 72)) > 100_000
    # The PDF card shows its first page (the page's blue block), fetched by the browser.
    near = [n for n, c in colours if all(abs(a - b) <= 12 for a, b in zip(c, BLOCK, strict=True))]
    assert sum(near) > 20_000
