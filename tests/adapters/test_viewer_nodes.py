"""Issue 32's hands on a board: a diagram's nodes dragged and relabelled in place, a
section frame drawn around a selection (and undone without a dialog), a wire picked
by a finger's tap.

Playwright drives Debian's Chromium with a real pointer, keyboard and touch (CDP
touch events) against a real server on 127.0.0.1; each step is checked in the
workspace's database.
"""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image

from layoutkit.principal import Principal
from tests.adapters.conftest import Api
from tests.adapters.test_viewer_hands import (
    SIZE,
    SLUG,
    Pages,
    _board,
    _card,
    _centre,
    _open,
    _person,
    _screen,
    _selection,
    _wait,
)
from tests.adapters.test_viewer_wires import _ON_WIRE, _wire
from tests.browser import ARTIFACTS, CHROMIUM, SKIP_REASON

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON),
]

AGENT = Principal.agent("claude")
PHONE = {"width": 390, "height": 844}

DIAGRAM = {
    "title": "Checkout flow",
    "dir": "LR",
    "nodes": [
        {"id": "cart", "title": "Cart"},
        {"id": "pay", "title": "Payment"},
        {"id": "ship", "title": "Shipping"},
    ],
    "edges": [{"from": "cart", "to": "pay"}, {"from": "pay", "to": "ship"}],
}


def _diagram_board(api: Api) -> int:
    """A board holding one diagram an agent made (the person adjusts it by hand)."""
    api.ws.call("create", {"kind": "board", "slug": SLUG})
    (card,) = api.ws.call(
        "compose_board", {"board": SLUG, "cards": [{"kind": "diagram", "payload": DIAGRAM}]}, AGENT
    )["cards"]
    return int(card["id"])


#: The screen box of a diagram node as the topmost drawing marks it: [x, y, w, h].
_NODE = """id => {
  for (const svg of [...document.querySelectorAll('#faces > svg')].reverse()) {
    const el = svg.querySelector(`rect.dnode[data-node-id="${id}"]`);
    if (el) { const b = el.getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; }
  }
  return null;
}"""


def _node(page: Any, nid: str) -> tuple[float, float, float, float]:
    return tuple(_wait(lambda: page.evaluate(_NODE, nid)))  # type: ignore[return-value]


def _mid(box: tuple[float, float, float, float]) -> tuple[float, float]:
    return box[0] + box[2] / 2, box[1] + box[3] / 2


def _overrides(api: Api, card_id: int) -> dict[str, Any]:
    return dict(_card(api, card_id).payload.get("overrides") or {})


def _undone(page: Any, n: int, redo: bool = False) -> None:
    page.keyboard.press("Control+Shift+Z" if redo else "Control+z")
    _wait(lambda: page.evaluate("document.body.dataset.undone") == str(n))


def _pick_diagram(page: Any, api: Api, card_id: int) -> None:
    page.mouse.click(*_centre(page, api, card_id))
    _wait(lambda: _selection(page) == [card_id])
    page.locator("#inspector").get_by_text("Drag a node to move it").wait_for()


# --------------------------------------------------------------------------- diagram nodes


def test_a_node_dragged_and_relabelled_in_place_with_undo_and_redo(api: Api, pages: Pages) -> None:
    card_id = _diagram_board(api)
    page = pages.new()
    _open(page, api, _person(api))
    _pick_diagram(page, api, card_id)
    geo = _card(api, card_id).payload["geo"]["nodes"]
    before_version = _card(api, card_id).version

    # Drag the payment node down by 120 screen pixels and left by 40.
    box = _node(page, "pay")
    k = box[2] / geo["pay"]["w"]
    start = _mid(box)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0] - 40, start[1] + 120, steps=8)
    page.wait_for_selector("body[data-node-drag='pay']")
    page.mouse.up()
    _wait(lambda: page.evaluate("document.body.dataset.nodeMoved") == "1")
    moved = _overrides(api, card_id)["pay"]
    assert abs(moved["x"] - (geo["pay"]["x"] - 40 / k)) <= 2
    assert abs(moved["y"] - (geo["pay"]["y"] + 120 / k)) <= 2
    stored = _card(api, card_id)
    assert stored.version == before_version + 1
    # The card stays put and selected; its wires were re-routed to the node's new place.
    assert _selection(page) == [card_id]
    pay = stored.payload["geo"]["nodes"]["pay"]
    (into,) = [e for e in stored.payload["geo"]["edges"] if e["to"] == "pay"]
    end = into["points"][-1]
    assert pay["x"] - 1 <= end[0] <= pay["x"] + pay["w"] + 1
    assert pay["y"] - 1 <= end[1] <= pay["y"] + pay["h"] + 1
    # The drawing shows the node where it was dropped.
    _wait(lambda: abs(_node(page, "pay")[1] - (box[1] + 120)) <= 3)

    # A double-click on the shipping node opens its label in place.
    page.mouse.dblclick(*_mid(_node(page, "ship")))
    editor = page.locator("textarea.editor.node")
    editor.wait_for()
    assert editor.input_value() == "Shipping"
    editor.fill("Delivery")
    page.keyboard.press("Enter")
    _wait(lambda: page.evaluate("document.body.dataset.nodeLabelled") == "1")
    assert _overrides(api, card_id) == {
        "pay": {"x": moved["x"], "y": moved["y"]},
        "ship": {"title": "Delivery"},
    }
    _wait(lambda: "Delivery" in page.locator("#faces").text_content())
    # The semantics keep the author's label.
    assert [n["title"] for n in _card(api, card_id).payload["nodes"]] == [
        "Cart",
        "Payment",
        "Shipping",
    ]

    # Undo takes the label back, then the move; redo brings both again.
    _undone(page, 1)
    assert _overrides(api, card_id) == {"pay": {"x": moved["x"], "y": moved["y"]}}
    _undone(page, 2)
    assert _overrides(api, card_id) == {}
    assert _card(api, card_id).payload["geo"]["nodes"]["pay"]["x"] == geo["pay"]["x"]
    _undone(page, 3, redo=True)
    assert _overrides(api, card_id) == {"pay": {"x": moved["x"], "y": moved["y"]}}
    _undone(page, 4, redo=True)
    assert _overrides(api, card_id)["ship"] == {"title": "Delivery"}

    # A refresh of the diagram keeps the person's adjustments.
    api.ws.call("refresh_card", {"id": card_id})
    assert _overrides(api, card_id)["ship"] == {"title": "Delivery"}
    assert _card(api, card_id).payload["geo"]["nodes"]["pay"]["y"] == moved["y"]


def test_the_keyboard_moves_and_renames_a_node_from_the_inspector(api: Api, pages: Pages) -> None:
    card_id = _diagram_board(api)
    page = pages.new()
    _open(page, api, _person(api))
    _pick_diagram(page, api, card_id)
    geo = _card(api, card_id).payload["geo"]["nodes"]
    k = _node(page, "pay")[2] / geo["pay"]["w"]
    pick = page.locator("#inspector select[data-role='node']")
    pick.wait_for()
    assert pick.locator("option").all_inner_texts() == ["Cart", "Payment", "Shipping"]
    pick.focus()
    pick.select_option(label="Payment")
    # Alt+Down twice: 8 board px a press, one write each, the list keeping the focus.
    for n in (1, 2):
        page.keyboard.press("Alt+ArrowDown")
        _wait(lambda n=n: page.evaluate("document.body.dataset.nodeMoved") == str(n))
        _wait(lambda: page.evaluate("document.activeElement.dataset.role") == "node")
    moved = _overrides(api, card_id)["pay"]
    assert moved["x"] == geo["pay"]["x"] and abs(moved["y"] - (geo["pay"]["y"] + 16 / k)) <= 2
    assert pick.input_value() == "pay"
    # Enter opens the picked node's label in place.
    page.keyboard.press("Enter")
    editor = page.locator("textarea.editor.node")
    editor.wait_for()
    assert editor.input_value() == "Payment"
    editor.fill("Pay now")
    page.keyboard.press("Enter")
    _wait(lambda: page.evaluate("document.body.dataset.nodeLabelled") == "1")
    assert _overrides(api, card_id)["pay"] == {**moved, "title": "Pay now"}


def test_escape_leaves_a_label_as_it_was_and_an_unselected_diagram_moves_whole(
    api: Api, pages: Pages
) -> None:
    card_id = _diagram_board(api)
    page = pages.new()
    _open(page, api, _person(api))
    before = _card(api, card_id)
    # Not selected yet: a drag on a node moves the card itself.
    start = _mid(_node(page, "cart"))
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0] + 80, start[1] + 60, steps=8)
    page.mouse.up()
    _wait(lambda: _card(api, card_id).version == before.version + 1)
    after = _card(api, card_id)
    assert (after.x, after.y) != (before.x, before.y) and not _overrides(api, card_id)
    # Once the card is drawn where it went, a double-click on the node opens its label.
    moved = _wait(
        lambda: (box := _node(page, "cart")) and abs(_mid(box)[0] - start[0]) > 40 and box
    )
    page.mouse.dblclick(*_mid(moved))
    editor = page.locator("textarea.editor.node")
    editor.wait_for()
    assert (
        editor.input_value() == "Cart"
        and page.evaluate("document.body.dataset.editingNode") == "cart"
    )
    editor.fill("Basket")
    # The label open in place, kept to be looked at.
    page.screenshot(path=str(ARTIFACTS / "viewer-node-label.png"), mask=[page.locator("#status")])
    page.keyboard.press("Escape")
    editor.wait_for(state="detached")
    assert _card(api, card_id).version == after.version and not _overrides(api, card_id)


# --------------------------------------------------------------------------- frames


def test_ctrl_g_frames_the_selection_in_place_and_undo_takes_it_away_without_asking(
    api: Api, pages: Pages
) -> None:
    api.ws.call("create", {"kind": "board", "slug": SLUG})
    notes = [{"kind": "note", "payload": {"md": f"Idea {i}: keep it short"}} for i in (1, 2)]
    a, b = (
        c["id"]
        for c in api.ws.call(
            "compose_board", {"board": SLUG, "cards": notes, "layout": "row"}, AGENT
        )["cards"]
    )
    page = pages.new()
    _open(page, api, _person(api))
    places = {i: (_card(api, i).x, _card(api, i).y) for i in (a, b)}
    page.mouse.click(*_centre(page, api, a))
    page.keyboard.down("Shift")
    page.mouse.click(*_centre(page, api, b))
    page.keyboard.up("Shift")
    assert sorted(_selection(page)) == sorted([a, b])
    page.keyboard.press("Control+g")
    frame = int(_wait(lambda: page.evaluate("document.body.dataset.framed")))
    stored = _card(api, frame)
    assert stored.kind == "section" and stored.payload["layout"] is None
    assert stored.author == "user:ana" and sorted(stored.children) == sorted([a, b])
    for i in (a, b):
        assert (_card(api, i).x, _card(api, i).y) == places[i]
        assert _card(api, i).parent_id == frame
    assert _selection(page) == [frame]

    # The frame is a third of this board: removing it by update_cards asks first, but
    # undoing one's own frame takes it away at once, the cards staying where they are.
    _undone(page, 1)
    assert not page.locator("#confirm-remove").evaluate("d => d.open")
    assert _card(api, frame).deleted
    for i in (a, b):
        assert (_card(api, i).x, _card(api, i).y) == places[i]
        assert _card(api, i).parent_id is None
    _wait(lambda: page.evaluate("document.body.dataset.total") == "2")
    # Redo brings the same frame back around them.
    _undone(page, 2, redo=True)
    assert not _card(api, frame).deleted
    assert {_card(api, i).parent_id for i in (a, b)} == {frame}
    _wait(lambda: page.evaluate("document.body.dataset.total") == "3")


def test_the_inspectors_frame_button_frames_one_card(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    page = pages.new()
    _open(page, api, _person(api))
    a = ids["a"]
    place = (_card(api, a).x, _card(api, a).y)
    page.mouse.click(*_centre(page, api, a))
    page.locator("#inspector [data-role='frame']").click()
    frame = int(_wait(lambda: page.evaluate("document.body.dataset.framed")))
    assert _card(api, a).parent_id == frame and (_card(api, a).x, _card(api, a).y) == place


# --------------------------------------------------------------------------- a wire by touch


def test_a_tap_near_a_wire_picks_it(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    a, b = ids["a"], ids["b"]
    # b moved down and right: the wire between them has a long run in the open.
    cb = _card(api, b)
    api.ws.call(
        "update_cards",
        {"patch": [{"id": b, "x": cb.x + 160, "y": cb.y + 260}]},
        Principal.user("ana"),
    )
    edge = _wire(api, a, b)
    context = pages.browser.new_context(viewport=SIZE, has_touch=True)
    pages.contexts.append(context)
    page = context.new_page()
    page.on("pageerror", lambda exc: pages.errors.append(str(exc)))
    _open(page, api, _person(api))
    cdp = page.context.new_cdp_session(page)

    def tap(x: float, y: float) -> None:
        cdp.send(
            "Input.dispatchTouchEvent",
            {"type": "touchStart", "touchPoints": [{"x": x, "y": y, "id": 1}]},
        )
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    wrote = page.evaluate("document.body.dataset.wrote || '0'")
    at = _wait(lambda: page.evaluate(_ON_WIRE, edge))
    x, y = _screen(page, *at)
    # A fingertip lands a little off the line: 12 screen pixels is still on the wire.
    tap(x + 12, y + 12)
    page.wait_for_selector(f"body[data-wire='{edge}']", timeout=5_000)
    page.wait_for_selector(f".wirepick[data-edge-id='{edge}']", state="attached")
    assert _selection(page) == []
    # Picking writes nothing.
    assert page.evaluate("document.body.dataset.wrote || '0'") == wrote
    # A tap on the empty board lets the wire go.
    tap(x + 200, y - 200)
    page.wait_for_selector("body[data-wire='']", timeout=5_000)


# --------------------------------------------------------------------------- how it looks


@pytest.mark.parametrize(("name", "viewport"), [("wide", SIZE), ("phone", PHONE)])
def test_a_node_being_dragged_looks(
    api: Api, pages: Pages, name: str, viewport: dict[str, int]
) -> None:
    from tests.render.test_browser import compare

    card_id = _diagram_board(api)
    page = pages.new(viewport)
    _open(page, api, _person(api))
    _pick_diagram(page, api, card_id)
    page.wait_for_timeout(300)
    start = _mid(_node(page, "ship"))
    page.mouse.move(*start)
    page.mouse.down()
    # Down and to the left, under the payment node (on a phone less far: the dock
    # below the board would hide it).
    page.mouse.move(start[0] - 110, start[1] + (72 if name == "wide" else 40), steps=6)
    page.wait_for_selector("body[data-node-drag='ship']")
    (ARTIFACTS / "render").mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"viewer-node-drag-{name}.png"
    # The status line tells the time: masked, so the picture holds still.
    page.screenshot(path=str(path), mask=[page.locator("#status")])
    page.mouse.up()
    _wait(lambda: page.evaluate("document.body.dataset.nodeMoved") == "1")
    # How the dropped node and its re-routed wires are drawn: kept to be looked at.
    page.wait_for_timeout(300)
    page.screenshot(
        path=str(ARTIFACTS / f"viewer-node-dropped-{name}.png"), mask=[page.locator("#status")]
    )
    compare(Image.open(path).convert("RGB"), f"viewer-node-drag-{name}")


@pytest.mark.parametrize(("name", "viewport"), [("wide", SIZE), ("phone", PHONE)])
def test_a_frame_just_drawn_looks(
    api: Api, pages: Pages, name: str, viewport: dict[str, int]
) -> None:
    from tests.render.test_browser import compare

    ids = _board(api.ws)
    page = pages.new(viewport)
    _open(page, api, _person(api))
    page.wait_for_timeout(300)
    page.mouse.click(*_centre(page, api, ids["b"]))
    page.keyboard.down("Shift")
    page.mouse.click(*_centre(page, api, ids["c"]))
    page.keyboard.up("Shift")
    page.keyboard.press("Control+g")
    frame = int(_wait(lambda: page.evaluate("document.body.dataset.framed")))
    page.locator("#inspector").get_by_text(f"Card {frame}").wait_for()
    # The frame's face drawn (it holds its two cards), then the picture.
    _wait(
        lambda: page.evaluate(
            f"!!document.querySelector('#faces rect.card[data-card-id=\"{frame}\"]')"
        )
    )
    page.wait_for_timeout(300)
    path = ARTIFACTS / f"viewer-frame-{name}.png"
    page.screenshot(path=str(path), mask=[page.locator("#status"), page.locator("#toast")])
    compare(Image.open(path).convert("RGB"), f"viewer-frame-{name}")
