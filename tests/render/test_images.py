"""Pictures on faces: blob images linked in SVG through their card, drawn as pixels in
PNG (decoded once, in a bounded cache), and a clear placeholder for anything broken."""

from __future__ import annotations

import base64
import io

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage

from layoutkit import render
from layoutkit.render._images import PIXELS, Pixels, image_keys
from layoutkit.storage import blob_key

SOFT = (241, 243, 247)  # the placeholder's fill (render._palette.SOFT)


def png(w: int, h: int, color: str) -> bytes:
    out = io.BytesIO()
    PILImage.new("RGB", (w, h), color).save(out, format="PNG")
    return out.getvalue()


def board(*cards: dict, images: dict[str, bytes] | None = None) -> dict:
    return {"board": {"slug": "pics"}, "cards": list(cards), "edges": [], "images": images or {}}


def media(
    cid: int, ref: str, x: float = 0, w: float = 400, h: float = 300, **extra: object
) -> dict:
    payload = {"ref": ref, "mime": "image/png", "alt": f"card {cid}", **extra}
    return {"id": cid, "kind": "media", "payload": payload, "x": x, "y": 0, "w": w, "h": h}


def pixel(data: bytes, x: int, y: int) -> tuple[int, int, int]:
    return PILImage.open(io.BytesIO(data)).convert("RGB").getpixel((x, y))


# The PNG of a one-card board puts the card's top left at (40, 104): PAD and the title band.
X0, Y0 = 40, 104


def test_svg_links_a_blob_image_through_its_own_card() -> None:
    data = png(40, 30, "#2563eb")
    key = blob_key(data)
    svg = str(render.render_board(board(media(7, key), media(9, key, x=420))))
    assert f'href="/api/v1/cards/7/blobs/{key}"' in svg
    assert f'href="/api/v1/cards/9/blobs/{key}"' in svg
    assert "{card}" not in svg
    # A figure shows the whole picture.
    assert 'preserveAspectRatio="xMidYMid meet"' in svg
    alone = str(render.render_card(media(5, key)))
    assert f'href="/api/v1/cards/5/blobs/{key}"' in alone


def test_png_draws_blob_pictures_as_pixels() -> None:
    blue, red = png(400, 300, "#2563eb"), png(400, 300, "#dc2626")
    cards = (media(1, blob_key(blue)), media(2, blob_key(red), x=420))
    out = render.render_board(board(*cards, images={blob_key(blue): blue, blob_key(red): red}))
    shot = render.render_board(
        board(*cards, images={blob_key(blue): blue, blob_key(red): red}), format="png"
    )
    assert isinstance(out, str) and isinstance(shot, bytes)
    assert pixel(shot, X0 + 200, Y0 + 150) == (37, 99, 235)
    assert pixel(shot, X0 + 420 + 200, Y0 + 150) == (220, 38, 38)


def test_contain_shows_a_wide_picture_whole_inside_a_square_card() -> None:
    wide = png(400, 100, "#16a34a")
    shot = render.render_board(
        board(media(1, blob_key(wide), w=300, h=300), images={blob_key(wide): wide}), format="png"
    )
    assert isinstance(shot, bytes)
    assert pixel(shot, X0 + 150, Y0 + 150) == (22, 163, 74)  # the picture, centred
    assert pixel(shot, X0 + 150, Y0 + 20) != (22, 163, 74)  # above it: not cropped to fill
    assert pixel(shot, X0 + 2, Y0 + 150) == (22, 163, 74)  # full width: nothing cut at the sides


def test_a_broken_picture_draws_a_placeholder_that_says_so_and_a_missing_one_its_label() -> None:
    broken = b"\x89PNG\r\n\x1a\n not really"
    missing = "sha256:" + "e" * 64
    cards = (media(1, blob_key(broken)), media(2, missing, x=420))
    shot = render.render_board(board(*cards, images={blob_key(broken): broken}), format="png")
    assert isinstance(shot, bytes)
    r, g, b = pixel(shot, X0 + 200, Y0 + 40)
    assert r > 240 and g < 245 and b < 240  # the broken picture's pink wash
    # Not handed in (over a picture's budget, or gone): the labelled placeholder.
    assert pixel(shot, X0 + 420 + 200, Y0 + 40) == SOFT


def test_a_picture_is_decoded_once_and_the_cache_is_bounded() -> None:
    data = png(300, 200, "#9333ea")
    key = blob_key(data)
    PIXELS.clear()
    for _ in range(3):
        render.render_board(board(media(1, key), images={key: data}), format="png")
    assert PIXELS.decodes == 1
    small = Pixels(budget=300 * 200 * 3 * 2)
    pictures = [png(300, 200, c) for c in ("#111111", "#222222", "#333333", "#444444")]
    for i, p in enumerate(pictures):
        small.picture(f"k{i}", lambda p=p: p)
    assert len(small) <= 2  # the least recently used went
    assert small.picture("k3", lambda: None) is not None  # the newest is still kept


def test_data_urls_draw_in_png_and_http_addresses_keep_their_placeholder() -> None:
    data = png(50, 50, "#ea580c")
    url = "data:image/png;base64," + base64.b64encode(data).decode()
    fig = {"id": 1, "kind": "figure", "payload": {"src": url}, "x": 0, "y": 0, "w": 200, "h": 200}
    far = {**fig, "id": 2, "x": 220, "payload": {"src": "https://example.com/a.png"}}
    shot = render.render_board(board(fig, far), format="png")
    assert isinstance(shot, bytes)
    assert pixel(shot, X0 + 100, Y0 + 100) == (234, 88, 12)
    assert pixel(shot, X0 + 220 + 100, Y0 + 30) == SOFT  # never fetched: no I/O in rendering


def test_a_shot_outside_its_set_is_a_labelled_placeholder() -> None:
    fig = {"id": 1, "kind": "figure", "payload": {"shot": 3}, "x": 0, "y": 0, "w": 200, "h": 150}
    svg = str(render.render_board(board(fig)))
    assert "shot 3" in svg and "<image" not in svg


def test_a_documents_figures_and_gallery_show_their_pictures() -> None:
    data = png(160, 100, "#0891b2")
    key = blob_key(data)
    doc = {
        "title": "Screens",
        "elements": [
            {"kind": "figure", "payload": {"ref": key, "alt": "home"}},
            {"kind": "gallery", "payload": {"items": [{"ref": key, "alt": "g"}]}},
        ],
    }
    card = {"id": 4, "kind": "doc", "payload": doc, "x": 0, "y": 0, "w": 560, "h": 640}
    assert image_keys("doc", doc) == {key}
    svg = str(render.render_board(board(card)))
    assert svg.count(f'href="/api/v1/cards/4/blobs/{key}"') == 2
    shot = render.render_board(board(card, images={key: data}), format="png")
    assert isinstance(shot, bytes)
    colours = PILImage.open(io.BytesIO(shot)).convert("RGB").getcolors(1 << 20) or []
    assert any(c == (8, 145, 178) and n > 1000 for n, c in colours)


def test_a_pdf_card_shows_its_first_page_and_never_its_own_bytes() -> None:
    page = png(210, 297, "#fef3c7")
    key = blob_key(page)
    pdf_ref = "sha256:" + "a" * 64
    payload = {
        "name": "spec.pdf",
        "mime": "application/pdf",
        "pages": 3,
        "ref": pdf_ref,
        "pageImages": [{"ref": key, "w": 210, "h": 297}],
    }
    card = {"id": 3, "kind": "file", "payload": payload, "x": 0, "y": 0, "w": 420, "h": 594}
    assert image_keys("file", payload) == {key}
    svg = str(render.render_board(board(card)))
    assert f"/api/v1/cards/3/blobs/{key}" in svg and pdf_ref not in svg
    assert "spec.pdf" in svg and "PDF · 3 pages" in svg
    shot = render.render_board(board(card, images={key: page}), format="png")
    assert isinstance(shot, bytes)
    assert pixel(shot, X0 + 210, Y0 + 280) == (254, 243, 199)


def test_a_faces_key_changes_with_its_blob() -> None:
    one, two = "sha256:" + "1" * 64, "sha256:" + "2" * 64
    assert render.face_key("media", {"ref": one}, 400, 300) != render.face_key(
        "media", {"ref": two}, 400, 300
    )


def test_a_stored_face_is_linked_through_the_card_it_is_placed_for() -> None:
    key = "sha256:" + "3" * 64
    first = render.board_svg(board(media(1, key)))
    ((_, (face_key, face_svg)),) = first.faces.items()
    assert "/api/v1/cards/{card}/blobs/" in face_svg  # kept for any card with this payload
    # Another card with the same payload and size reuses the stored face, with its own id.
    again = render.board_svg(board(media(8, key)), stored={face_key: face_svg})
    assert f"/api/v1/cards/8/blobs/{key}" in again.svg
    given = render.board_svg(board({**media(6, key), "face": face_svg}))
    assert f"/api/v1/cards/6/blobs/{key}" in given.svg


@settings(max_examples=40, deadline=None)
@given(st.binary(max_size=300), st.sampled_from(["media", "figure"]))
def test_any_bytes_as_a_picture_never_break_a_drawing(data: bytes, kind: str) -> None:
    key = blob_key(data)
    card = {"id": 1, "kind": kind, "payload": {"ref": key}, "x": 0, "y": 0, "w": 120, "h": 90}
    shot = render.render_board(board(card, images={key: data}), format="png")
    assert isinstance(shot, bytes) and shot.startswith(b"\x89PNG")


def test_a_link_cards_stored_screenshot_is_pasted_into_a_png() -> None:
    shot = io.BytesIO()
    PILImage.new("RGB", (320, 200), "#65a30d").save(shot, format="JPEG", quality=95)
    src = "data:image/jpeg;base64," + base64.b64encode(shot.getvalue()).decode()
    link = {
        "id": 1,
        "kind": "link",
        "payload": {
            "url": "https://example.com",
            "title": "Example",
            "shots": {"desktop": {"src": src}},
        },
        "x": 0,
        "y": 0,
        "w": 360,
        "h": 300,
    }
    out = render.render_board(board(link), format="png")
    assert isinstance(out, bytes)
    r, g, b = pixel(out, X0 + 180, Y0 + 60)
    assert abs(r - 101) < 12 and abs(g - 163) < 12 and abs(b - 13) < 12


def test_a_step_shows_its_stored_screen() -> None:
    data = png(360, 240, "#7c3aed")
    key = blob_key(data)
    step = {"id": 2, "kind": "step", "payload": {"n": 1, "title": "Sign up", "ref": key}}
    step.update(x=0, y=0, w=360, h=280)
    assert f"/api/v1/cards/2/blobs/{key}" in str(render.render_board(board(step)))
    shot = render.render_board(board(step, images={key: data}), format="png")
    assert isinstance(shot, bytes)
    assert pixel(shot, X0 + 180, Y0 + 160) == (124, 58, 237)
