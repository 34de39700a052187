"""PDF page images over HTTP on a real server: an upload's pages land in the
background, POST /api/v1/cards/{id}/pages rasterises them again, and the pages
are served by the blob route to whoever may read the board."""

from __future__ import annotations

import httpx

from tests.adapters.conftest import Api
from tests.pdfs import report_pdf


def test_uploaded_pdf_pages_land_rerender_and_are_served(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "pdfs"})
    res = api.client.post(
        "/api/v1/boards/pdfs/upload",
        files=[("files", ("report.pdf", report_pdf(2), "application/pdf"))],
    )
    assert res.status_code == 201, res.text
    card = res.json()["files"][0]["card"]
    assert api.ws.jobs.drain(60)
    (scraped,) = api.op("scrape_board", {"board": "pdfs"}).json()["cards"]
    assert scraped["artifact"] == f"/api/v1/cards/{card}/file"
    again = api.client.post(f"/api/v1/cards/{card}/pages", json={})
    assert again.status_code == 200, again.text
    body = again.json()
    assert body["pages"] == 2 and len(body["pageImages"]) == 2
    first = body["pageImages"][0]["ref"]
    token = api.op("share_board", {"board": "pdfs"}).json()["url"].rsplit("/", 1)[-1]
    shared = {"authorization": f"Bearer {token}"}
    page = httpx.get(f"{api.url}/api/v1/cards/{card}/blobs/{first}", headers=shared)
    assert page.status_code == 200 and page.headers["content-type"] == "image/png"
    # A share link reads the pages but may not re-render them.
    refused = httpx.post(f"{api.url}/api/v1/cards/{card}/pages", json={}, headers=shared)
    assert refused.status_code == 403
