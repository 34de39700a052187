"""Renditions of large pictures on every backend: made after an upload commits, made on
first use for a picture stored without one, read by card images, contact sheets and board
PNGs whenever they need no more pixels, and never by a region read near natural size."""

from __future__ import annotations

import base64
import io
import os
from collections.abc import Iterator

import pytest
from PIL import Image

from layoutkit import Workspace, imaging
from layoutkit.service.pictures import pictures
from layoutkit.service.uploads import renditions
from layoutkit.storage import blob_key

WIDE = (3000, 2000)


def _png(size: tuple[int, int] = WIDE, colour: tuple[int, int, int] = (30, 140, 90)) -> bytes:
    img = Image.new("RGB", size, colour)
    img.paste((250, 10, 10), (2900, 1900, 3000, 2000))  # a red corner, at natural pixels
    # Bytes of this run only: blobs outlive a test in a shared PostgreSQL database.
    img.putpixel((0, 0), tuple(os.urandom(3)))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def _upload(ws: Workspace, data: bytes, name: str = "wide.png") -> tuple[int, str]:
    files = [{"name": name, "data": base64.b64encode(data).decode()}]
    got = ws.call("upload_files", {"board": "home", "files": files})["files"][0]
    return int(got["card"]), str(got["ref"])


def _kept(ws: Workspace, key: str) -> bytes | None:
    with ws.store.read() as tx:
        return renditions.kept(tx, key)


@pytest.fixture
def board(any_ws: Workspace) -> Workspace:
    any_ws.call("create", {"kind": "board", "slug": "home"})
    return any_ws


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """How each picture was read (imaging.Decoded.read), in order."""
    seen: list[str] = []
    decode = imaging.decode

    def spy(*args: object, **kw: object) -> imaging.Decoded:
        got = decode(*args, **kw)  # type: ignore[arg-type]
        seen.append(got.read)
        return got

    monkeypatch.setattr(imaging, "decode", spy)
    yield seen


def test_an_upload_makes_the_rendition_after_its_answer(board: Workspace, reads: list[str]) -> None:
    card, key = _upload(board, _png())
    assert board.drawing.drain(timeout=60)
    kept = _kept(board, key)
    assert kept is not None and imaging.header(kept).size == (2048, 1365)
    reads.clear()
    whole = board.call("get_card_image", {"board": "home", "cardId": card})
    assert (whole["width"], whole["height"], whole["imageWidth"]) == (1600, 1067, 3000)
    survey = board.call("get_card_image", {"board": "home", "cardIds": [card]})
    assert survey["tiles"][0]["width"] == 3000  # the tile says the picture's own size
    assert reads == ["rendition", "rendition"]
    # A region near natural size is read from the original, at its natural pixels.
    region = {"x": 2890, "y": 1890, "w": 110, "h": 110}
    crop = board.call("get_card_image", {"board": "home", "cardId": card, "region": region})
    assert reads[-1] == "whole" and crop["region"] == region
    img = Image.open(io.BytesIO(base64.b64decode(crop["image"]["data"]))).convert("RGB")
    assert img.getpixel((5, 5)) == (30, 140, 90) and img.getpixel((15, 15)) == (250, 10, 10)


def test_a_small_picture_has_none(board: Workspace) -> None:
    _, key = _upload(board, _png((2048, 900)))
    assert board.drawing.drain(timeout=60)
    assert _kept(board, key) is None


def test_a_picture_stored_without_one_gets_it_on_first_use(
    board: Workspace, reads: list[str]
) -> None:
    data = _png()
    with board.store.transaction() as tx:
        key = tx.blobs.put(data)
    payload = {"ref": key, "mime": "image/png", "natW": 3000, "natH": 2000}
    made = board.call(
        "compose_board", {"board": "home", "cards": [{"kind": "media", "payload": payload}]}
    )
    card = made["cards"][0]["id"]
    assert board.drawing.drain(timeout=60)
    assert _kept(board, key) is None
    first = board.call("get_card_image", {"board": "home", "cardId": card})
    assert reads == ["whole"] and first["width"] == 1600
    assert board.drawing.drain(timeout=60)
    assert _kept(board, key) is not None
    again = board.call("get_card_image", {"board": "home", "cardId": card})
    assert reads[-1] == "rendition" and again["height"] == first["height"]


def test_a_board_png_draws_the_rendition(board: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    queued: list[str] = []
    monkeypatch.setattr(renditions, "schedule", lambda ws, keys: queued.extend(keys))
    data = _png()
    _, key = _upload(board, data)
    assert queued == [key]  # the upload asked for it once it committed
    cards = [{"kind": "media", "payload": {"ref": key, "mime": "image/png"}}]
    # Until it is made the board hands the picture itself, and asks for it again.
    with board.store.read() as tx:
        lacking: set[str] = set()
        assert pictures.read_images(tx, cards, lacking=lacking) == {key: data}
    assert lacking == {key}
    with board.store.transaction() as tx:
        assert renditions.make(tx, key) is True
        assert renditions.make(tx, key) is False  # kept already
    kept = _kept(board, key)
    assert kept is not None
    with board.store.read() as tx:
        lacking = set()
        assert pictures.read_images(tx, cards, lacking=lacking) == {key: kept}
    assert lacking == set()
    shot = board.call("render_board", {"board": "home", "format": "png"})
    img = Image.open(io.BytesIO(base64.b64decode(shot["image"]["data"]))).convert("RGB")
    assert (30, 140, 90) in {c for _, c in img.getcolors(1 << 20) or []}


def test_renditions_are_derived_blobs_of_their_key(any_ws: Workspace) -> None:
    store = any_ws.store
    key = blob_key(b"original")
    with store.transaction() as tx:
        tx.blobs.put_derived(key, renditions.KIND, b"smaller")
        tx.blobs.put_derived(key, renditions.KIND, b"smaller")  # idempotent
    with store.read() as tx:
        assert tx.blobs.get_derived(key, renditions.KIND) == b"smaller"
        assert tx.blobs.get_derived(key, "r64") is None
        assert tx.blobs.get_derived("sha256:" + "0" * 64, renditions.KIND) is None
        # Never a content key: nothing reads it as a blob.
        assert tx.blobs.get(f"{renditions.KIND}:{key[7:]}") is None
        assert tx.blobs.get_derived(key, "sha256") is None
