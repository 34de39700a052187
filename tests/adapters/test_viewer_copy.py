"""Copying, pasting and duplicating cards in the viewer, and dropping cards into and
out of a section frame.

Playwright drives Debian's Chromium with a real pointer and keyboard against a
real server on 127.0.0.1; each action is then checked in the workspace's
database (the copies' kind, payload, size, layer and place, the section's order).
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from PIL import Image

from layoutkit.principal import Principal
from tests.adapters.conftest import Api
from tests.adapters.test_viewer_hands import (
    SLUG,
    Pages,
    _board,
    _card,
    _centre,
    _drag,
    _open,
    _person,
    _screen,
    _selection,
    _wait,
    _wrote,
)
from tests.adapters.test_viewer_writing import _cards, _edges, _empty_spot
from tests.browser import ARTIFACTS, CHROMIUM, SKIP_REASON

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON),
]

ANA = Principal.user("ana")
OTHER = "elsewhere"


def _new(api: Api, before: set[int], slug: str = SLUG) -> list[Any]:
    with api.ws.store.read() as tx:
        board = tx.board_by_slug(api.ws.workspace_id, slug)
        assert board is not None
        cards = tx.cards_by_id([c.id for c in tx.card_boxes(board.id)])
    return sorted((c for c in cards if c.id not in before), key=lambda c: c.id)


def _pick(page: Any, api: Api, *ids: int) -> None:
    page.mouse.click(*_centre(page, api, ids[0]))
    page.keyboard.down("Shift")
    for card_id in ids[1:]:
        page.mouse.click(*_centre(page, api, card_id))
    page.keyboard.up("Shift")
    _wait(lambda: sorted(_selection(page)) == sorted(ids))


def _same_copy(copy: Any, source: Any) -> None:
    assert (copy.kind, copy.payload, copy.w, copy.h) == (
        source.kind,
        source.payload,
        source.w,
        source.h,
    )
    assert (copy.author, copy.layer) == ("user:ana", "human")


# --------------------------------------------------------------------------- duplicating


def test_ctrl_d_duplicates_the_selection_beside_it_and_undo_takes_the_copies_away(
    api: Api, pages: Pages
) -> None:
    ids = _board(api.ws)
    a, b = ids["a"], ids["b"]
    page = pages.new()
    _open(page, api, _person(api))
    before = {c.id for c in _cards(api)}
    _pick(page, api, a, b)
    page.keyboard.press("Control+d")
    _wait(lambda: len(_new(api, before)) == 2 and page.evaluate("document.body.dataset.pasted"))
    ca, cb = _card(api, a), _card(api, b)
    na, nb = _new(api, before)
    _same_copy(na, ca)
    _same_copy(nb, cb)
    # At a small offset, each where its source sits relative to the others.
    assert (na.x - ca.x, na.y - ca.y) == (24, 24)
    assert (nb.x - ca.x, nb.y - ca.y) == (cb.x - ca.x + 24, cb.y - ca.y + 24)
    # The sources did not move; the copies are the selection now.
    assert (ca.x, ca.y, ca.version, cb.version) == (0, 0, 1, 1)
    _wait(lambda: sorted(_selection(page)) == [na.id, nb.id])

    page.keyboard.press("Control+z")
    _wait(lambda: page.evaluate("document.body.dataset.undone") == "1")
    assert _card(api, na.id).deleted and _card(api, nb.id).deleted
    page.keyboard.press("Control+Shift+Z")
    _wait(lambda: page.evaluate("document.body.dataset.undone") == "2")
    _wait(lambda: not _card(api, na.id).deleted and not _card(api, nb.id).deleted)


def test_the_inspector_duplicates_a_section_with_the_cards_it_holds(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    page = pages.new()
    _open(page, api, _person(api))
    before = {c.id for c in _cards(api)}
    section = _card(api, ids["section"])
    # A frame is picked by a click on its title bar.
    page.mouse.click(*_screen(page, section.x + 40, section.y + 12))
    _wait(lambda: _selection(page) == [section.id])
    page.locator("#inspector [data-role='duplicate']").click()
    _wait(lambda: len(_new(api, before)) == 3 and page.evaluate("document.body.dataset.pasted"))
    frame, *inside = _new(api, before)
    assert frame.kind == "section" and frame.payload["title"] == section.payload["title"]
    assert (frame.x - section.x, frame.y - section.y) == (24, 24)
    assert frame.layer == "human"
    assert frame.children == [c.id for c in inside]
    assert [c.parent_id for c in inside] == [frame.id, frame.id]
    assert [c.payload["md"] for c in inside] == ["In the section", "Also in it"]
    _wait(lambda: _selection(page) == [frame.id])


# --------------------------------------------------------------------------- copy and paste


def test_copied_cards_paste_at_the_pointer_here_and_on_another_board(
    api: Api, pages: Pages
) -> None:
    ids = _board(api.ws)
    api.ws.call("create", {"kind": "board", "slug": OTHER})
    a, c = ids["a"], ids["c"]
    # A wire between the copied cards comes along (its label and relation too); one
    # to a card left behind does not.
    api.ws.call(
        "compose_board",
        {"board": SLUG, "edges": [{"from": a, "to": c, "label": "then", "rel": "depends-on"}]},
        ANA,
    )
    api.ws.call("compose_board", {"board": SLUG, "edges": [{"from": a, "to": ids["b"]}]}, ANA)
    token = _person(api)
    page = pages.new()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    _open(page, api, token)
    _pick(page, api, a, c)
    page.keyboard.press("Control+c")
    _wait(lambda: page.evaluate("document.body.dataset.copied") == "2")
    clip = json.loads(page.evaluate("navigator.clipboard.readText()"))
    assert [e["kind"] for e in clip["cards"]] == ["note", "note"]
    assert clip["cards"][1]["x"] == _card(api, c).x - _card(api, a).x
    nothing = _wrote(page)
    assert nothing == 0  # copying writes nothing

    before = {card.id for card in _cards(api)}
    bx, by, px, py = _empty_spot(page, api)
    page.mouse.move(px, py)
    page.keyboard.press("Control+v")
    _wait(lambda: len(_new(api, before)) == 2 and page.evaluate("document.body.dataset.pasted"))
    na, nc = _new(api, before)
    ca, cc = _card(api, a), _card(api, c)
    _same_copy(na, ca)
    _same_copy(nc, cc)
    assert abs(na.x - bx) <= 1 and abs(na.y - by) <= 1
    assert (nc.x - na.x, nc.y - na.y) == (cc.x - ca.x, cc.y - ca.y)
    _wait(lambda: len(_edges(api)) == 3)
    copied = _edges(api)[-1]
    assert (copied.from_card, copied.to_card) == (na.id, nc.id)
    assert (copied.label, copied.rel) == ("then", "depends-on")
    # Undo takes the paste away.
    page.keyboard.press("Control+z")
    _wait(lambda: _card(api, na.id).deleted and _card(api, nc.id).deleted)

    # On another board the same clipboard pastes the same cards.
    page.goto(f"{api.url}/boards/{OTHER}?token={token}")
    page.wait_for_selector("body[data-ready='1']", timeout=20_000)
    box = page.locator("#board").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.keyboard.press("Control+v")
    _wait(lambda: len(_new(api, set(), OTHER)) == 2)
    there = _new(api, set(), OTHER)
    assert [card.payload for card in there] == [ca.payload, cc.payload]
    assert all(card.layer == "human" for card in there)
    # Plain text still pastes as a text card.
    page.evaluate("navigator.clipboard.writeText('Just words')")
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.8)
    page.keyboard.press("Control+v")
    _wait(lambda: len(_new(api, set(), OTHER)) == 3)
    assert _new(api, set(), OTHER)[-1].payload["md"] == "Just words"


# --------------------------------------------------------------------------- sections


def test_a_card_dropped_into_a_section_joins_its_order_and_dragged_out_leaves(
    api: Api, pages: Pages
) -> None:
    ids = _board(api.ws)
    d, s1, s2, frame_id = ids["d"], ids["s1"], ids["s2"], ids["section"]
    page = pages.new()
    _open(page, api, _person(api))
    frame = _card(api, frame_id)
    # The card's centre onto the second card of the section: the frame is outlined.
    _drag(page, _centre(page, api, d), _centre(page, api, s2), hold=True)
    assert page.evaluate("document.body.dataset.dropTarget") == str(frame_id)
    assert page.locator(f".droptarget[data-card-id='{frame_id}']").count() == 1
    # The inspector docks after the drop, not while the card moves (it would take
    # the board's room, and maybe the frame, from under the pointer).
    assert page.locator("#inspector").is_hidden()
    page.mouse.up()
    assert page.locator(".droptarget").count() == 0
    page.locator("#inspector").wait_for(state="visible")
    _wait(lambda: _card(api, d).parent_id == frame_id)
    grown = _card(api, frame_id)
    assert grown.children == [s1, d, s2]
    assert grown.w * grown.h > frame.w * frame.h  # the frame reflowed around it
    inside = _card(api, d)
    assert grown.x <= inside.x and inside.x + inside.w <= grown.x + grown.w
    assert grown.y <= inside.y and inside.y + inside.h <= grown.y + grown.h
    assert (inside.author, inside.layer) == ("agent:claude", "ai")

    # Dragged out below the frame, it leaves the section, which shrinks back.
    # Once the page has heard of the reflow; nothing picked, the inspector's dock
    # gives the board its room back.
    _wait(lambda: int(page.evaluate("document.body.dataset.rev || '0'")) >= grown.rev)
    page.keyboard.press("Escape")
    out_to = _screen(page, grown.x + inside.w / 2, grown.y + grown.h + 120)
    _drag(page, _centre(page, api, d), out_to, hold=True)
    assert not page.evaluate("document.body.dataset.dropTarget")
    page.mouse.up()
    _wait(lambda: _card(api, d).parent_id is None)
    _wait(lambda: _card(api, frame_id).children == [s1, s2])
    assert _card(api, frame_id).h < grown.h


# --------------------------------------------------------------------------- share links


@pytest.mark.parametrize("mode", ["view", "annotate"])
def test_a_share_link_copies_pastes_duplicates_and_drops_nothing(
    api: Api, pages: Pages, mode: str
) -> None:
    ids = _board(api.ws)
    url = api.op("share_board", {"board": SLUG, "mode": mode}).json()["url"]
    page = pages.new()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(f"{api.url}{url}")
    page.wait_for_selector("body[data-ready='1']", timeout=20_000)
    before = [(c.id, c.version, c.parent_id) for c in _cards(api)]
    page.mouse.click(*_centre(page, api, ids["a"]))
    _wait(lambda: _selection(page) == [ids["a"]])
    assert page.locator("#inspector [data-role='duplicate']").count() == 0
    page.keyboard.press("Control+c")
    page.keyboard.press("Control+d")
    # Cards copied elsewhere, in the clipboard and in this browser's keeping.
    clip = {
        "layoutkit/cards": 1,
        "board": SLUG,
        "cards": [{"ref": "c1", "kind": "note", "payload": {"md": "x"}, "w": 120, "h": 80}],
    }
    page.evaluate(
        "(t) => { localStorage.setItem('layoutkit.clipboard', t); return navigator.clipboard.writeText(t); }",
        json.dumps(clip),
    )
    page.keyboard.press("Control+v")
    _drag(page, _centre(page, api, ids["d"]), _centre(page, api, ids["s2"]))
    time.sleep(0.6)
    assert [(c.id, c.version, c.parent_id) for c in _cards(api)] == before
    assert _wrote(page) == 0
    assert not page.evaluate("document.body.dataset.copied")


# --------------------------------------------------------------------------- how it looks


@pytest.mark.parametrize(
    ("name", "viewport"),
    [("wide", {"width": 1440, "height": 900}), ("phone", {"width": 390, "height": 844})],
)
def test_drop_target_and_duplicate_look(
    api: Api, pages: Pages, name: str, viewport: dict[str, int]
) -> None:
    from tests.render.test_browser import compare

    ids = _board(api.ws)
    page = pages.new(viewport)
    _open(page, api, _person(api))
    page.wait_for_timeout(300)
    (ARTIFACTS / "render").mkdir(parents=True, exist_ok=True)
    before = {c.id for c in _cards(api)}
    page.mouse.click(*_centre(page, api, ids["b"]))
    _wait(lambda: _selection(page) == [ids["b"]])
    page.keyboard.press("Control+d")
    _wait(lambda: len(_new(api, before)) == 1 and page.evaluate("document.body.dataset.pasted"))
    (copy,) = _new(api, before)
    _wait(lambda: _selection(page) == [copy.id])
    page.wait_for_timeout(300)
    dup = ARTIFACTS / f"viewer-copy-{name}-duplicate.png"
    page.screenshot(path=str(dup), mask=[page.locator("#status"), page.locator("#toast")])
    # The card to drag picked first, so the board is fitted beside the open dock.
    page.mouse.click(*_centre(page, api, ids["d"]))
    _wait(lambda: _selection(page) == [ids["d"]])
    page.keyboard.press("0")
    _drag(page, _centre(page, api, ids["d"]), _centre(page, api, ids["s1"]), hold=True)
    drop = ARTIFACTS / f"viewer-copy-{name}-drop.png"
    page.screenshot(path=str(drop), mask=[page.locator("#status"), page.locator("#toast")])
    page.mouse.move(*_centre(page, api, ids["d"]), steps=4)
    page.mouse.up()
    compare(Image.open(dup).convert("RGB"), f"viewer-copy-{name}-duplicate")
    compare(Image.open(drop).convert("RGB"), f"viewer-copy-{name}-drop")
