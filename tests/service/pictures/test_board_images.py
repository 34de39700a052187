"""Uploaded pictures on board pictures: render_board's PNG draws their pixels (the
service hands the blob bytes to the renderer), its SVG links them through the
blob route, and a face follows its blob when the card names another."""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator

import pytest
from PIL import Image

from layoutkit import Principal, ServiceError, Workspace
from layoutkit.service.pictures import pictures
from layoutkit.storage import blob_key

AGENT = Principal.agent("claude")


def png(color: str, w: int = 480, h: int = 320) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (w, h), color).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def ws() -> Iterator[Workspace]:
    with Workspace.open() as ws:
        ws.call("create", {"kind": "board", "slug": "pics"}, AGENT)
        yield ws


def upload(ws: Workspace, name: str, data: bytes) -> dict:
    files = [{"name": name, "data": base64.b64encode(data).decode()}]
    return ws.call("upload_files", {"board": "pics", "files": files}, AGENT)["files"][0]


def colours(b64: str) -> dict[tuple[int, int, int], int]:
    img = Image.open(io.BytesIO(base64.b64decode(b64))).convert("RGB")
    return {c: n for n, c in img.getcolors(1 << 22) or []}


def test_a_png_of_the_board_shows_the_uploaded_picture(ws: Workspace) -> None:
    upload(ws, "rose.png", png("#e11d48"))
    out = ws.call("render_board", {"board": "pics", "format": "png"}, AGENT)
    assert colours(out["image"]["data"]).get((225, 29, 72), 0) > 100_000


def test_the_svg_links_the_picture_and_follows_a_new_blob(ws: Workspace) -> None:
    f = upload(ws, "rose.png", png("#e11d48"))
    svg = ws.call("render_board", {"board": "pics"}, AGENT)["svg"]
    assert f'href="/api/v1/cards/{f["card"]}/blobs/{f["ref"]}"' in svg
    ws.jobs.drain(10)
    ws.drawing.drain(10)
    # The card names another picture: its stored face is not served for it any more.
    green = png("#16a34a")
    with ws.store.transaction() as tx:
        new = tx.blobs.put(green)
    ws.call(
        "update_cards",
        {"patch": [{"id": f["card"], "payload": {"ref": new}}]},
        AGENT,
    )
    svg = ws.call("render_board", {"board": "pics"}, AGENT)["svg"]
    assert f"/blobs/{new}" in svg and f"/blobs/{f['ref']}" not in svg
    out = ws.call("render_board", {"board": "pics", "format": "png"}, AGENT)
    assert colours(out["image"]["data"]).get((22, 163, 74), 0) > 100_000
    assert blob_key(green) == new


def test_a_picture_over_the_budget_keeps_its_placeholder(ws: Workspace) -> None:
    upload(ws, "a.png", png("#e11d48"))
    upload(ws, "b.png", png("#2563eb"))
    with ws.store.read() as tx:
        board = tx.board_by_slug(ws.workspace_id, "pics")
        assert board is not None
        picture, _, _ = pictures.read_picture(tx, board, faces=False)
        everything = pictures.read_images(tx, picture["cards"])
        one = pictures.read_images(tx, picture["cards"], budget=max(map(len, everything.values())))
    assert len(everything) == 2 and len(one) == 1


def test_card_blob_serves_only_what_the_card_names(ws: Workspace) -> None:
    data = png("#e11d48")
    f = upload(ws, "rose.png", data)
    got = ws.call("card_blob", {"id": f["card"], "key": f["ref"]}, Principal.share("pics"))
    assert (got["mime"], got["size"]) == ("image/png", len(data))
    assert base64.b64decode(got["data"]) == data
    head = ws.call("card_blob", {"id": f["card"], "key": f["ref"], "data": False}, AGENT)
    assert head == {"id": f["card"], "key": f["ref"]}
    ws.call("create", {"kind": "board", "slug": "other"}, AGENT)
    with pytest.raises(ServiceError) as exc:
        ws.call("card_blob", {"id": f["card"], "key": f["ref"]}, Principal.share("other"))
    assert exc.value.status == 403
    with ws.store.transaction() as tx:
        stored_elsewhere = tx.blobs.put(png("#000000"))
    for params in ({"key": stored_elsewhere}, {"key": stored_elsewhere, "data": False}):
        with pytest.raises(ServiceError) as exc:
            ws.call("card_blob", {"id": f["card"], **params}, AGENT)
        assert (exc.value.status, exc.value.code) == (404, "unknown_blob")


def test_scrape_gives_picture_and_page_image_urls(ws: Workspace) -> None:
    from tests.pdfs import report_pdf

    f = upload(ws, "rose.png", png("#e11d48"))
    files = [{"name": "r.pdf", "data": base64.b64encode(report_pdf(2)).decode()}]
    pdf = ws.call("upload_files", {"board": "pics", "files": files}, AGENT)["files"][0]
    assert ws.jobs.drain(60)
    cards = {c["id"]: c for c in ws.call("scrape_board", {"board": "pics"}, AGENT)["cards"]}
    assert cards[f["card"]]["image"] == f"/api/v1/cards/{f['card']}/blobs/{f['ref']}"
    pages = cards[pdf["card"]]["pageImages"]
    refs = [i["ref"] for i in cards[pdf["card"]]["payload"]["pageImages"]]
    assert pages == [f"/api/v1/cards/{pdf['card']}/blobs/{r}" for r in refs] and len(pages) == 2
    assert "image" not in cards[pdf["card"]]


def test_the_pictures_of_one_answer_share_one_budget(ws: Workspace) -> None:
    upload(ws, "a.png", png("#e11d48"))
    upload(ws, "b.png", png("#2563eb"))
    with ws.store.read() as tx:
        board = tx.board_by_slug(ws.workspace_id, "pics")
        assert board is not None
        picture, _, _ = pictures.read_picture(tx, board, faces=False)
        pool: dict[str, bytes] = {}
        first = pictures.read_images(tx, picture["cards"][:1], pool=pool)
        size = len(next(iter(first.values())))
        # The same picture again costs nothing; a new one past the budget is left out.
        again = pictures.read_images(tx, picture["cards"], budget=size, pool=pool)
    assert list(again) == list(first) and len(pool) == 1
