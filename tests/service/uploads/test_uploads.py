"""upload_files: what each file becomes, natural sizes, page counts, limits and placement."""

from __future__ import annotations

import base64
import io
import zlib
from typing import Any

import pytest
from PIL import Image
from pypdf import PdfWriter

from layoutkit import Principal, Workspace
from layoutkit.service.uploads import uploads
from layoutkit.service.uploads.pdf_pages import pdf_page_count
from layoutkit.service.uploads.uploads import MAX_CALL_BYTES, MAX_FILE_BYTES
from layoutkit.storage import blob_key
from tests.service.helpers import assert_tidy, err


def png(w: int, h: int, fmt: str = "PNG") -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), "teal").save(buf, fmt)
    return buf.getvalue()


def pdf(pages: int) -> bytes:
    sheets = [Image.new("RGB", (60, 85), "white") for _ in range(pages)]
    buf = io.BytesIO()
    sheets[0].save(buf, "PDF", save_all=True, append_images=sheets[1:])
    return buf.getvalue()


def entry(name: str, data: bytes, **extra: Any) -> dict[str, Any]:
    return {"name": name, "data": base64.b64encode(data).decode("ascii"), **extra}


@pytest.fixture
def ws() -> Workspace:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "up"})
    return ws


def stored(ws: Workspace, card_id: int) -> Any:
    with ws.store.read() as tx:
        return tx.card(card_id)


def test_image_becomes_media_card_with_natural_size(ws: Workspace) -> None:
    data = png(640, 400)
    r = ws.call("upload_files", {"board": "up", "files": [entry("hero.png", data)]})
    (f,) = r["files"]
    assert (f["kind"], f["natW"], f["natH"], f["mime"]) == ("media", 640, 400, "image/png")
    card = stored(ws, f["card"])
    assert card.kind == "media"
    assert card.payload == {
        "ref": f["ref"],
        "mime": "image/png",
        "alt": "hero.png",
        "natW": 640,
        "natH": 400,
    }
    # The box keeps the picture's aspect (480 wide at most).
    assert (card.w, card.h) == (480.0, 300.0)
    with ws.store.read() as tx:
        assert tx.blobs.get(f["ref"]) == data


def test_small_and_tall_images_keep_their_aspect(ws: Workspace) -> None:
    r = ws.call(
        "upload_files",
        {
            "board": "up",
            "files": [entry("tall.jpg", png(200, 600, "JPEG")), entry("s.gif", png(90, 30, "GIF"))],
        },
    )
    tall, small = r["cards"]
    assert tall["w"] / tall["h"] == pytest.approx(200 / 600)
    assert (small["w"], small["h"]) == (90.0, 30.0)
    assert [f["mime"] for f in r["files"]] == ["image/jpeg", "image/gif"]


def test_pdf_becomes_a4_file_card_with_page_count(ws: Workspace) -> None:
    data = pdf(3)
    r = ws.call("upload_files", {"board": "up", "files": [entry("spec.pdf", data)]})
    (f,) = r["files"]
    assert (f["kind"], f["pages"], f["mime"], f["size"]) == (
        "file",
        3,
        "application/pdf",
        len(data),
    )
    card = stored(ws, f["card"])
    assert card.payload == {
        "name": "spec.pdf",
        "mime": "application/pdf",
        "size": len(data),
        "pages": 3,
        "ref": f["ref"],
    }
    assert (card.w, card.h) == (420.0, 594.0)


def test_other_files_become_download_chips(ws: Workspace) -> None:
    r = ws.call(
        "upload_files",
        {
            "board": "up",
            "files": [
                entry("notes.csv", b"a,b\n1,2\n"),
                entry("blob.bin", b"\x00\x01", mime="application/x-thing"),
                entry("noext", b"x"),
            ],
        },
    )
    assert [(f["kind"], f["mime"]) for f in r["files"]] == [
        ("file", "text/csv"),
        ("file", "application/x-thing"),
        ("file", "application/octet-stream"),
    ]
    assert {(c["w"], c["h"]) for c in r["cards"]} == {(280.0, 64.0)}


def test_a_file_named_like_an_image_that_is_not_one_is_a_chip(ws: Workspace) -> None:
    r = ws.call("upload_files", {"board": "up", "files": [entry("fake.png", b"not an image")]})
    assert r["files"][0]["kind"] == "file"
    assert r["files"][0]["mime"] == "image/png"


def test_same_bytes_share_one_blob(ws: Workspace) -> None:
    data = png(10, 10)
    r = ws.call(
        "upload_files", {"board": "up", "files": [entry("a.png", data), entry("b.png", data)]}
    )
    a, b = r["files"]
    assert a["ref"] == b["ref"] == blob_key(data)
    assert a["card"] != b["card"]


def blank_pdf(pages: int, **encryption: str) -> bytes:
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(612, 792)
    if encryption:
        writer.encrypt(**encryption, algorithm="AES-256")
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def object_stream_pdf(pages: int, padding: int = 0) -> bytes:
    """A PDF 1.5 whose catalog and page tree sit in a compressed object stream, found through
    a cross-reference stream (pypdf reads such files but does not write them). ``padding``
    spaces pad the stream: a few hundred kilobytes that inflate to that many bytes."""
    kids = " ".join(f"{3 + i} 0 R" for i in range(pages))
    bodies = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode(),
    ]
    bodies += [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"] * pages
    offsets, at = [], 0
    for body in bodies:
        offsets.append(at)
        at += len(body) + 1
    header = " ".join(f"{n + 1} {off}" for n, off in enumerate(offsets)).encode() + b" "
    z = zlib.compressobj(9)
    content = z.compress(header + b" ".join(bodies) + b" ")
    chunk = b" " * 1_000_000
    content += b"".join(z.compress(chunk) for _ in range(padding // len(chunk))) + z.flush()
    stm, xref = len(bodies) + 1, len(bodies) + 2
    out = bytearray(b"%PDF-1.5\n")
    stm_at = len(out)
    out += (
        f"{stm} 0 obj\n<< /Type /ObjStm /N {len(bodies)} /First {len(header)} "
        f"/Filter /FlateDecode /Length {len(content)} >>\nstream\n"
    ).encode()
    out += content + b"\nendstream\nendobj\n"
    xref_at = len(out)
    rows = [bytes([0]) + (0).to_bytes(4, "big") + (65535).to_bytes(2, "big")]
    rows += [bytes([2]) + stm.to_bytes(4, "big") + n.to_bytes(2, "big") for n in range(len(bodies))]
    rows += [bytes([1]) + a.to_bytes(4, "big") + (0).to_bytes(2, "big") for a in (stm_at, xref_at)]
    table = b"".join(rows)
    out += (
        f"{xref} 0 obj\n<< /Type /XRef /Size {xref + 1} /W [1 4 2] /Root 1 0 R "
        f"/Length {len(table)} >>\nstream\n"
    ).encode()
    out += table + f"\nendstream\nendobj\nstartxref\n{xref_at}\n%%EOF\n".encode()
    return bytes(out)


def test_pdf_page_count_reads_compressed_object_streams() -> None:
    data = object_stream_pdf(7)
    assert b"/Count 7" not in data  # only inside the deflated object stream
    assert pdf_page_count(data) == 7


def test_pdf_page_count_takes_the_latest_incremental_update() -> None:
    original = blank_pdf(3)
    update = PdfWriter(io.BytesIO(original), incremental=True)
    update.remove_page(0)
    buf = io.BytesIO()
    update.write(buf)
    revised = buf.getvalue()
    # The first revision, with its 3 pages, is still in the file, unchanged.
    assert revised.startswith(original)
    assert pdf_page_count(revised) == 2


def test_pdf_page_count_of_encrypted_files() -> None:
    # Permission-only encryption (empty user password) opens in every viewer: counted.
    assert pdf_page_count(blank_pdf(4, user_password="", owner_password="owner")) == 4
    # A file that needs a password to open cannot be counted.
    assert pdf_page_count(blank_pdf(4, user_password="secret", owner_password="owner")) is None


def test_pdf_page_count_ignores_outline_counts() -> None:
    writer = PdfWriter()
    for _ in range(2):
        writer.add_blank_page(612, 792)
    for n in range(40):
        writer.add_outline_item(title=f"heading {n}", page_number=0)
    buf = io.BytesIO()
    writer.write(buf)
    assert pdf_page_count(buf.getvalue()) == 2


def test_pdf_page_count_is_none_for_what_is_not_a_readable_pdf() -> None:
    assert pdf_page_count(b"%PDF-1.4\nnothing here") is None
    assert pdf_page_count(blank_pdf(2)[:200]) is None
    assert pdf_page_count(b"GIF89a") is None


def test_limits_are_25_and_100_mib() -> None:
    assert (MAX_FILE_BYTES, MAX_CALL_BYTES) == (25 * 1024 * 1024, 100 * 1024 * 1024)


def test_file_over_the_limit_answers_413(ws: Workspace) -> None:
    big = entry("big.bin", b"\0" * (MAX_FILE_BYTES + 1))
    e = err(ws, "upload_files", {"board": "up", "files": [entry("ok.txt", b"ok"), big]})
    assert (e.status, e.code, e.body["index"], e.body["limit"]) == (
        413,
        "payload_too_large",
        1,
        MAX_FILE_BYTES,
    )
    assert ws.call("scrape_board", {"board": "up"})["cards"] == []


def test_call_over_the_total_limit_answers_413(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(uploads, "MAX_CALL_BYTES", 100)
    files = [entry(f"{i}.txt", b"x" * 40) for i in range(3)]
    e = err(ws, "upload_files", {"board": "up", "files": files})
    assert (e.status, e.code, e.body["index"]) == (413, "payload_too_large", 2)
    ws.call("upload_files", {"board": "up", "files": files[:2]})


def test_bad_base64_names_the_file(ws: Workspace) -> None:
    e = err(
        ws,
        "upload_files",
        {"board": "up", "files": [entry("a.txt", b"a"), {"name": "b", "data": "@@"}]},
    )
    assert (e.status, e.code, e.body["index"], e.body["field"]) == (
        400,
        "invalid_base64",
        1,
        "files[1].data",
    )


def test_placement_in_free_space_is_tidy(ws: Workspace) -> None:
    ws.call("compose_board", {"board": "up", "cards": [{"kind": "text", "payload": {"md": "hi"}}]})
    files = [entry(f"{i}.png", png(100 + 40 * i, 80)) for i in range(5)]
    r = ws.call("upload_files", {"board": "up", "files": files})
    assert {c["placedAs"] for c in r["cards"]} == {"free"}
    assert len(assert_tidy(ws, "up")) == 6


def test_anchor_right_joins_the_row_after_the_anchor(ws: Workspace) -> None:
    anchor = ws.call(
        "compose_board", {"board": "up", "cards": [{"kind": "text", "payload": {"md": "a"}}]}
    )
    a = anchor["cards"][0]
    r = ws.call(
        "upload_files",
        {
            "board": "up",
            "files": [entry("x.png", png(200, 100))],
            "anchor": a["id"],
            "side": "right",
        },
    )
    (c,) = r["cards"]
    assert c["placedAs"] == "after"
    assert c["x"] >= a["x"] + a["w"]
    assert c["y"] == a["y"]
    assert_tidy(ws, "up")


def test_anchor_below_opens_a_row_under_it(ws: Workspace) -> None:
    anchor = ws.call(
        "compose_board", {"board": "up", "cards": [{"kind": "text", "payload": {"md": "a"}}]}
    )
    a = anchor["cards"][0]
    r = ws.call(
        "upload_files",
        {
            "board": "up",
            "files": [entry("x.txt", b"x"), entry("y.txt", b"y")],
            "anchor": a["id"],
            "side": "below",
        },
    )
    assert {c["placedAs"] for c in r["cards"]} == {"under"}
    assert all(c["y"] >= a["y"] + a["h"] for c in r["cards"])
    assert r["cards"][0]["x"] == a["x"]
    assert_tidy(ws, "up")


def test_anchor_defaults_to_right(ws: Workspace) -> None:
    a = ws.call(
        "compose_board", {"board": "up", "cards": [{"kind": "text", "payload": {"md": "a"}}]}
    )
    r = ws.call(
        "upload_files",
        {"board": "up", "files": [entry("x.txt", b"x")], "anchor": a["cards"][0]["id"]},
    )
    assert r["cards"][0]["placedAs"] == "after"


def test_side_without_anchor_is_refused(ws: Workspace) -> None:
    e = err(ws, "upload_files", {"board": "up", "files": [entry("x.txt", b"x")], "side": "below"})
    assert (e.status, e.code, e.body["field"]) == (400, "invalid_params", "side")


def test_section_is_created_on_demand_and_filled(ws: Workspace) -> None:
    r = ws.call(
        "upload_files",
        {
            "board": "up",
            "files": [entry("a.png", png(50, 50)), entry("b.pdf", pdf(1))],
            "section": "Evidence",
        },
    )
    (section,) = r["sections"]
    assert section["title"] == "Evidence"
    assert {c["container"] for c in r["cards"]} == {section["id"]}
    assert_tidy(ws, "up")


def test_near_miss_section_name_needs_create_section(ws: Workspace) -> None:
    ws.call("upload_files", {"board": "up", "files": [entry("a.txt", b"a")], "section": "Evidence"})
    e = err(
        ws, "upload_files", {"board": "up", "files": [entry("b.txt", b"b")], "section": "Evidense"}
    )
    assert (e.status, e.code) == (409, "section_near_match")
    r = ws.call(
        "upload_files",
        {
            "board": "up",
            "files": [entry("b.txt", b"b")],
            "section": "Evidense",
            "createSection": True,
        },
    )
    assert r["sections"][0]["title"] == "Evidense"


def test_failed_placement_writes_nothing_not_even_blobs(ws: Workspace) -> None:
    data = png(33, 44)
    e = err(ws, "upload_files", {"board": "up", "files": [entry("a.png", data)], "anchor": 999_999})
    assert e.status in (400, 404)
    assert ws.call("scrape_board", {"board": "up"})["cards"] == []
    with ws.store.read() as tx:
        assert not tx.blobs.has(blob_key(data))


def test_request_key_replays_the_receipt(ws: Workspace) -> None:
    params = {"board": "up", "files": [entry("a.txt", b"a")], "requestKey": "u-1"}
    first = ws.call("upload_files", params)
    assert ws.call("upload_files", params) == first
    assert len(ws.call("scrape_board", {"board": "up"})["cards"]) == 1
    e = err(ws, "upload_files", {**params, "files": [entry("a.txt", b"b")]})
    assert (e.status, e.code) == (409, "request_key_conflict")


def test_unknown_board_and_share_links_are_refused(ws: Workspace) -> None:
    e = err(ws, "upload_files", {"board": "upp", "files": [entry("a.txt", b"a")]})
    assert (e.status, e.code, e.body["didYouMean"]) == (404, "unknown_board", ["up"])
    e = err(
        ws,
        "upload_files",
        {"board": "up", "files": [entry("a.txt", b"a")]},
        Principal.share("up", "annotate"),
    )
    assert e.status == 403


def test_agent_uploads_land_on_the_ai_layer(ws: Workspace) -> None:
    r = ws.call(
        "upload_files", {"board": "up", "files": [entry("a.txt", b"a")]}, Principal.agent("bot")
    )
    assert stored(ws, r["cards"][0]["id"]).layer == "ai"


def test_receipt_snapshot(ws: Workspace, snapshot: Any) -> None:
    r = ws.call(
        "upload_files",
        {
            "board": "up",
            "files": [
                entry("wide.png", png(1200, 300)),
                entry("doc.pdf", pdf(2)),
                entry("a.txt", b"a"),
            ],
        },
    )
    assert {k: v for k, v in r.items() if k != "files"} == snapshot
    assert [
        {k: v for k, v in f.items() if k not in ("ref", "size")} for f in r["files"]
    ] == snapshot


def test_scrape_gives_file_cards_their_document_url_under_artifact(ws: Workspace) -> None:
    data = pdf(2)
    out = ws.call(
        "upload_files",
        {"board": "up", "files": [entry("spec.pdf", data), entry("a.png", png(40, 30))]},
    )
    file_id, media_id = (c["id"] for c in out["cards"])
    cards = {c["id"]: c for c in ws.call("scrape_board", {"board": "up"})["cards"]}
    assert cards[file_id]["kind"] == "file"
    assert cards[file_id]["artifact"] == f"/api/v1/cards/{file_id}/file"
    assert "artifact" not in cards[media_id]
    got = ws.call("card_file", {"id": file_id}, Principal.share("up"))
    assert (got["name"], got["mime"], got["size"]) == ("spec.pdf", "application/pdf", len(data))
    assert base64.b64decode(got["data"]) == data
    # A share link of another board cannot read it; a card without a file has none.
    ws.call("create", {"kind": "board", "slug": "other"})
    assert err(ws, "card_file", {"id": file_id}, Principal.share("other")).status == 403
    (note,) = ws.call(
        "compose_board", {"board": "up", "cards": [{"kind": "note", "payload": {"md": "n"}}]}
    )["cards"]
    assert err(ws, "card_file", {"id": note["id"]}).code == "no_file"


def test_screenshots_of_one_upload_share_one_height(ws: Workspace) -> None:
    files = [
        entry("phone.png", png(390, 844)),
        entry("desktop.png", png(1440, 900)),
        entry("icon.png", png(48, 48)),
    ]
    phone, desktop, icon = ws.call("upload_files", {"board": "up", "files": files})["cards"]
    # The desktop shot is 480 wide; the phone is drawn at the same height, not
    # twice as tall as it would be alone at 480 wide.
    assert (desktop["w"], desktop["h"]) == (480.0, 300.0)
    assert phone["h"] == desktop["h"]
    assert phone["w"] == pytest.approx(300 * 390 / 844, abs=1)
    # A picture smaller than the batch height keeps its pixels.
    assert (icon["w"], icon["h"]) == (48.0, 48.0)
    # Alone, the phone shot keeps its own size.
    (alone,) = ws.call("upload_files", {"board": "up", "files": files[:1]})["cards"]
    assert (alone["w"], alone["h"]) == (390.0, 844.0)


def test_a_panorama_does_not_shrink_the_batch_past_the_floor(ws: Workspace) -> None:
    files = [entry("pano.png", png(4000, 200)), entry("desktop.png", png(1440, 900))]
    pano, desktop = ws.call("upload_files", {"board": "up", "files": files})["cards"]
    assert desktop["h"] == 160.0
    assert (pano["w"], pano["h"]) == (480.0, 24.0)
