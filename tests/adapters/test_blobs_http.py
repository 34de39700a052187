"""Blobs over HTTP: GET /api/v1/cards/{id}/blobs/{key} on a real server on 127.0.0.1.

The caller's access to the card's board decides; a share link reaches its own
board's blobs only; a key the card does not name is unknown; the answer is the
bytes with the type they announce, the key as ETag (304 on If-None-Match) and
year-long private immutable caching.
"""

from __future__ import annotations

import io

import httpx
from PIL import Image

from layoutkit.storage import blob_key
from tests.adapters.conftest import Api


def _png(w: int = 40, h: int = 30, color: str = "#3b82f6") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (w, h), color).save(out, format="PNG")
    return out.getvalue()


def _upload(api: Api, board: str, files: list[tuple[str, bytes, str]]) -> list[dict]:
    api.op("create", {"kind": "board", "slug": board})
    res = api.client.post(f"/api/v1/boards/{board}/upload", files=[("files", f) for f in files])
    assert res.status_code == 201, res.text
    return res.json()["files"]


def test_a_cards_image_blob_is_served_with_type_etag_and_immutable_caching(api: Api) -> None:
    data = _png()
    (f,) = _upload(api, "pics", [("shot.png", data, "image/png")])
    url = f"/api/v1/cards/{f['card']}/blobs/{f['ref']}"
    got = api.client.get(url)
    assert got.status_code == 200, got.text
    assert got.content == data
    assert got.headers["content-type"] == "image/png"
    assert got.headers["etag"] == f'"{blob_key(data)}"'
    assert got.headers["cache-control"] == "private, max-age=31536000, immutable"
    assert got.headers["x-content-type-options"] == "nosniff"
    # The same ETag back: 304 without a body, with the caching headers again.
    again = api.client.get(url, headers={"if-none-match": got.headers["etag"]})
    assert (again.status_code, again.content) == (304, b"")
    assert again.headers["etag"] == got.headers["etag"]
    assert again.headers["cache-control"] == got.headers["cache-control"]
    weak = api.client.get(url, headers={"if-none-match": f'"x", W/{got.headers["etag"]}'})
    assert weak.status_code == 304
    other = api.client.get(url, headers={"if-none-match": '"sha256:' + "0" * 64 + '"'})
    assert other.status_code == 200 and other.content == data


def test_without_a_credential_even_a_matching_etag_is_401(api: Api) -> None:
    (f,) = _upload(api, "private", [("a.png", _png(), "image/png")])
    url = f"{api.url}/api/v1/cards/{f['card']}/blobs/{f['ref']}"
    assert httpx.get(url).status_code == 401
    assert httpx.get(url, headers={"if-none-match": f'"{f["ref"]}"'}).status_code == 401


def test_a_share_link_reaches_its_own_boards_blobs_only(api: Api) -> None:
    (mine,) = _upload(api, "shared", [("a.png", _png(color="#ef4444"), "image/png")])
    (theirs,) = _upload(api, "elsewhere", [("b.png", _png(color="#22c55e"), "image/png")])
    token = api.op("share_board", {"board": "shared"}).json()["url"].rsplit("/", 1)[-1]
    link = {"authorization": f"Bearer {token}"}
    ok = httpx.get(f"{api.url}/api/v1/cards/{mine['card']}/blobs/{mine['ref']}", headers=link)
    assert ok.status_code == 200 and ok.headers["content-type"] == "image/png"
    # The other board's card: refused, with and without a matching ETag.
    url = f"{api.url}/api/v1/cards/{theirs['card']}/blobs/{theirs['ref']}"
    assert httpx.get(url, headers=link).status_code == 403
    assert (
        httpx.get(url, headers={**link, "if-none-match": f'"{theirs["ref"]}"'}).status_code == 403
    )
    # Its own card, but naming the other board's blob by its (public) hash: unknown.
    sneaky = f"{api.url}/api/v1/cards/{mine['card']}/blobs/{theirs['ref']}"
    res = httpx.get(sneaky, headers=link)
    assert (res.status_code, res.json()["code"]) == (404, "unknown_blob")
    assert httpx.get(sneaky, headers={**link, "if-none-match": "*"}).status_code == 404


def test_a_viewer_cookie_fetches_blobs_as_the_board_pictures_link_them(api: Api) -> None:
    (f,) = _upload(api, "cookie", [("a.png", _png(), "image/png")])
    token = api.op("share_board", {"board": "cookie"}).json()["url"].rsplit("/", 1)[-1]
    with httpx.Client(base_url=api.url) as browser:
        assert browser.get(f"/s/{token}").status_code == 303  # trades the token for the cookie
        svg = browser.post("/api/v1/ops/render_board", json={"board": "cookie"}).json()["svg"]
        href = f"/api/v1/cards/{f['card']}/blobs/{f['ref']}"
        assert f'href="{href}"' in svg
        assert browser.get(href).status_code == 200


def test_uploaded_bytes_that_are_no_image_are_a_download_never_a_page(api: Api) -> None:
    (f,) = _upload(api, "html", [("page.html", b"<script>alert(1)</script>", "text/html")])
    got = api.client.get(f"/api/v1/cards/{f['card']}/blobs/{f['ref']}")
    assert got.status_code == 200
    assert got.headers["content-type"] == "application/octet-stream"
    assert got.headers["content-disposition"] == "attachment"
    assert got.headers["content-security-policy"] == "sandbox"


def test_unknown_cards_keys_and_malformed_keys(api: Api) -> None:
    (f,) = _upload(api, "misc", [("a.png", _png(), "image/png")])
    assert api.client.get(f"/api/v1/cards/999999/blobs/{f['ref']}").status_code == 404
    bad = api.client.get(f"/api/v1/cards/{f['card']}/blobs/sha256:nothex")
    assert (bad.status_code, bad.json()["code"]) == (400, "invalid_params")
    doc = httpx.get(f"{api.url}/api/v1/openapi.json").json()
    route = doc["paths"]["/api/v1/cards/{id}/blobs/{key}"]["get"]
    assert set(route["responses"]) >= {"200", "304", "403", "404"}
