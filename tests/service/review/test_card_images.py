"""get_card_image on every backend: versions drawn as they were, image cards from their
stored image, regions, maxDim, surveys and their limit, refusals with codes and fields,
and run sheets with their text block."""

from __future__ import annotations

import base64
import io
from typing import Any

import numpy as np
import pytest
from PIL import Image

from layoutkit import Principal, ServiceError, Workspace, render
from layoutkit.review import sheets
from layoutkit.service.review import card_images
from tests.service.helpers import err


def _png(w: int, h: int, color: tuple[int, int, int] = (200, 120, 40)) -> bytes:
    img = Image.new("RGB", (w, h), color)
    img.paste((0, 0, 255), (0, 0, 10, 10))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def _upload(ws: Workspace, board: str, data: bytes, name: str = "screen.png") -> int:
    files = [{"name": name, "data": base64.b64encode(data).decode()}]
    return int(ws.call("upload_files", {"board": board, "files": files})["cards"][0]["id"])


def _note(ws: Workspace, board: str, md: str) -> int:
    cards = [{"kind": "text", "payload": {"md": md}}]
    return int(ws.call("compose_board", {"board": board, "cards": cards})["cards"][0]["id"])


def _pixels(result: dict[str, Any]) -> Image.Image:
    assert result["image"]["mime"] == "image/png"
    img = Image.open(io.BytesIO(base64.b64decode(result["image"]["data"])))
    assert img.format == "PNG"
    assert img.size == (result["width"], result["height"])
    return img.convert("RGB")


@pytest.fixture
def board(any_ws: Workspace) -> Workspace:
    any_ws.call("create", {"kind": "board", "slug": "home"})
    any_ws.call("create", {"kind": "board", "slug": "other"})
    return any_ws


def test_an_image_card_draws_its_stored_image(board: Workspace) -> None:
    data = _png(1440, 900)
    card = _upload(board, "home", data)
    got = board.call("get_card_image", {"board": "home", "cardId": card})
    assert base64.b64decode(got["image"]["data"]) == data
    assert {k: v for k, v in got.items() if k != "image"} == {
        "board": "home",
        "cardId": card,
        "cardVersion": 1,
        "kind": "media",
        "source": "image",
        "width": 1440,
        "height": 900,
        "imageWidth": 1440,
        "imageHeight": 900,
        "cropped": False,
    }


def test_an_older_version_is_drawn_as_it_was(board: Workspace) -> None:
    card = _note(board, "home", "# First\n\nthe first words")
    first = board.call("get_card_image", {"board": "home", "cardId": card})
    board.call(
        "update_cards",
        {"patch": [{"id": card, "payload": {"md": "# Second\n\n" + "many more words " * 20}}]},
    )
    board.call("update_cards", {"patch": [{"id": card, "x": 2000, "y": 0}]})
    now = board.call("get_card_image", {"board": "home", "cardId": card})
    assert now["cardVersion"] == 3
    assert (now["imageWidth"], now["imageHeight"]) != (first["imageWidth"], first["imageHeight"])
    again = board.call("get_card_image", {"board": "home", "cardId": card, "version": 1})
    assert again["cardVersion"] == 1
    assert (again["width"], again["height"]) == (first["width"], first["height"])
    assert np.array_equal(np.asarray(_pixels(again)), np.asarray(_pixels(first)))
    # Version 3 only moved the card: it draws as version 2 did.
    two = board.call("get_card_image", {"board": "home", "cardId": card, "version": 2})
    assert two["image"] == now["image"]


def test_a_face_is_the_renderers_at_one_pixel_per_board_pixel(board: Workspace) -> None:
    card = _note(board, "home", "# Plain\n\nwords")
    got = board.call("get_card_image", {"board": "home", "cardId": card})
    stored = board.call("scrape_board", {"board": "home"})["cards"][0]
    drawn = render.render_card(stored, format="png")
    assert isinstance(drawn, bytes)
    expected = Image.open(io.BytesIO(drawn)).convert("RGB")
    assert got["source"] == "face"
    assert (got["imageWidth"], got["imageHeight"]) == (round(stored["w"]), round(stored["h"]))
    assert np.array_equal(np.asarray(_pixels(got)), np.asarray(expected))


def test_region_and_max_dim(board: Workspace) -> None:
    card = _upload(board, "home", _png(1440, 900))
    crop = board.call(
        "get_card_image",
        {"board": "home", "cardId": card, "region": {"x": 0, "y": 0, "w": 20, "h": 10}},
    )
    assert (crop["cropped"], crop["region"], crop["width"], crop["height"]) == (
        True,
        {"x": 0, "y": 0, "w": 20, "h": 10},
        20,
        10,
    )
    assert _pixels(crop).getpixel((5, 5)) == (0, 0, 255)
    clamped = board.call(
        "get_card_image",
        {"board": "home", "cardId": card, "region": {"x": 1400, "y": 880, "w": 100, "h": 100}},
    )
    assert clamped["region"] == {"x": 1400, "y": 880, "w": 40, "h": 20}
    small = board.call("get_card_image", {"board": "home", "cardId": card, "maxDim": 360})
    assert (small["width"], small["height"], small["imageWidth"]) == (360, 225, 1440)
    assert small["cropped"] is False and "region" not in small


def test_refusals_carry_codes_and_fields(board: Workspace) -> None:
    card = _upload(board, "home", _png(640, 400))
    elsewhere = _note(board, "other", "not here")
    outside = err(
        board,
        "get_card_image",
        {"board": "home", "cardId": card, "region": {"x": 700, "y": 0, "w": 10, "h": 10}},
    )
    assert (outside.status, outside.code, outside.body["field"]) == (
        400,
        "region_outside",
        "region",
    )
    wrong_board = err(board, "get_card_image", {"board": "home", "cardId": elsewhere})
    assert (wrong_board.status, wrong_board.code) == (404, "unknown_card")
    version = err(board, "get_card_image", {"board": "home", "cardId": card, "version": 2})
    assert (version.status, version.code, version.body["field"]) == (
        404,
        "unknown_version",
        "version",
    )
    assert (version.body["current"], version.body["kept"]) == (1, [1])
    for i in range(4):  # removing one card of five needs no confirmation
        _note(board, "home", f"note {i}")
    board.call("update_cards", {"remove": [card]})
    gone = err(board, "get_card_image", {"board": "home", "cardId": card})
    assert (gone.status, gone.code) == (404, "unknown_card")
    neither = err(board, "get_card_image", {"board": "home"})
    assert (neither.status, neither.body["field"]) == (400, "cardId")
    both = err(board, "get_card_image", {"board": "home", "cardId": 1, "cardIds": [1]})
    assert (both.code, both.body["field"]) == ("exclusive_params", "cardIds")
    survey_region = err(
        board,
        "get_card_image",
        {"board": "home", "cardIds": [elsewhere], "region": {"x": 0, "y": 0, "w": 1, "h": 1}},
    )
    assert (survey_region.code, survey_region.body["field"]) == ("exclusive_params", "region")
    bad_dim = err(board, "get_card_image", {"board": "home", "cardId": 1, "maxDim": 0})
    assert (bad_dim.code, bad_dim.body["field"]) == ("invalid_params", "maxDim")


def test_a_survey_labels_every_tile_and_says_where_it_is(board: Workspace) -> None:
    ids = [
        _upload(board, "home", _png(1440, 900, (i * 20, 90, 90)), f"s{i}.png") for i in range(11)
    ]
    ids.append(_note(board, "home", "# A note"))
    got = board.call("get_card_image", {"board": "home", "cardIds": ids})
    img = _pixels(got)
    assert [t["cardId"] for t in got["tiles"]] == ids
    assert [t["label"] for t in got["tiles"]] == [f"#{i}" for i in ids]
    rects = [t["at"] for t in got["tiles"]]
    for i, a in enumerate(rects):
        assert a["x"] + a["w"] <= got["width"] and a["y"] + a["h"] <= got["height"]
        for b in rects[i + 1 :]:
            apart = (
                a["x"] + a["w"] <= b["x"]
                or b["x"] + b["w"] <= a["x"]
                or a["y"] + a["h"] <= b["y"]
                or b["y"] + b["h"] <= a["y"]
            )
            assert apart
    for i, tile in enumerate(got["tiles"][:11]):
        at = tile["at"]
        assert img.getpixel((at["x"] + at["w"] // 2, at["y"] + at["h"] // 2)) == (i * 20, 90, 90)
    assert got["tiles"][11]["source"] == "face"


def test_a_survey_takes_at_most_twelve_cards(board: Workspace) -> None:
    card = _note(board, "home", "x")
    ids = list(range(card, card + 13))
    refused = err(board, "get_card_image", {"board": "home", "cardIds": ids})
    assert (refused.status, refused.code, refused.body["field"]) == (
        400,
        "too_many_cards",
        "cardIds",
    )
    assert (refused.body["limit"], refused.body["count"]) == (sheets.MAX_SURVEY, 13)
    missing = err(board, "get_card_image", {"board": "home", "cardIds": [card, 99999]})
    assert (missing.status, missing.code, missing.body["ids"]) == (404, "unknown_card", [99999])


def test_a_view_link_may_look(board: Workspace) -> None:
    card = _upload(board, "home", _png(100, 60))
    link = board.call("share_board", {"board": "home"})
    token = link["url"].rsplit("/", 1)[-1]
    viewer = board.authenticate(token)
    assert viewer is not None
    got = board.call("get_card_image", {"board": "home", "cardId": card}, viewer)
    assert got["width"] == 100
    other = err(board, "get_card_image", {"board": "other", "cardId": card}, viewer)
    assert other.status == 403
    assert Principal.owner().kind == "owner"


def test_a_run_sheet_and_its_text_block(board: Workspace) -> None:
    base = _upload(board, "home", _png(1440, 900))
    near = _upload(board, "home", _png(1440, 900, (10, 200, 10)))
    note = _note(board, "other", "# Copy")
    specs = [
        {"cardId": base, "prior": ["spacing open"]},
        {"cardId": near, "crop": {"x": 0, "y": 0, "w": 300, "h": 200}, "vs": base, "lint": []},
        {"cardId": note, "label": "N"},
    ]
    with board.store.read() as tx:
        drawn = card_images.sheet_for(
            tx, board.workspace_id, specs, sight="Q7", run="rv-1", sheet=1
        )
    lines = drawn.text.splitlines()
    assert lines[0].startswith("sheet 1, run rv-1: 3 tiles")
    assert lines[1].startswith(
        f"T1 cardId={base} board=home cardVersion=1 width=1440 height=900 at="
    )
    assert lines[2] == "  prior: spacing open"
    assert f"crop=0,0,300,200 vs={base}" in lines[3]
    assert lines[4] == "  lint: none"
    assert lines[5].startswith(f"N cardId={note} board=other cardVersion=1")
    assert "Q7" not in drawn.text and "Q7" not in repr(drawn.tiles)
    reply = drawn.reply()
    assert reply["text"] == drawn.text and reply["image"]["mime"] == "image/png"
    img = Image.open(io.BytesIO(drawn.png))
    assert img.size == (drawn.width, drawn.height)
    with board.store.read() as tx, pytest.raises(ServiceError) as unknown:
        card_images.read_tiles(tx, board.workspace_id, [{"cardId": 99999}])
    assert unknown.value.body["field"] == "tiles[0].cardId"


def test_image_refs_by_kind() -> None:
    key = "sha256:" + "0" * 64
    assert card_images.stored_image_ref("media", {"ref": key, "mime": "image/png"}) == key
    assert card_images.stored_image_ref("media", {"ref": key, "mime": "application/pdf"}) is None
    assert card_images.stored_image_ref("figure", {"ref": key}) == key
    assert card_images.stored_image_ref("step", {"ref": key, "image": "a.png"}) == key
    assert card_images.stored_image_ref("link", {"shots": {"desktop": {"ref": key}}}) == key
    assert card_images.stored_image_ref("figure", {"src": "https://example.com/a.png"}) is None
    assert card_images.stored_image_ref("text", {"ref": key}) is None
