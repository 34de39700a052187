"""Working on a board by hand in the viewer: select, move, resize, delete, restore.

Playwright drives Debian's Chromium with a real pointer and keyboard against a
real server on 127.0.0.1; each action is then checked in the workspace's
database (the card's box, version, who sized it, the trash).
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from PIL import Image

from layoutkit import Workspace
from layoutkit.principal import Principal
from tests.adapters.conftest import Api, Pages
from tests.browser import ARTIFACTS, CHROMIUM, SKIP_REASON

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON),
]

AGENT = Principal.agent("claude")
SIZE = {"width": 1440, "height": 900}
SLUG = "hands"


def _board(ws: Workspace) -> dict[str, int]:
    """Four notes by an agent in a row, one by the person, and a section of two."""
    ws.call("create", {"kind": "board", "slug": SLUG})
    cards = [
        {"kind": "note", "ref": r, "payload": {"md": f"Idea {r}: a short note"}}
        for r in ("a", "b", "c", "d")
    ]
    out = ws.call("compose_board", {"board": SLUG, "cards": cards, "layout": "row"}, AGENT)
    ids = {c["ref"]: c["id"] for c in out["cards"]}
    framed = ws.call(
        "compose_board",
        {
            "board": SLUG,
            "section": "Later",
            "cards": [
                {"kind": "note", "ref": "s1", "payload": {"md": "In the section"}},
                {"kind": "note", "ref": "s2", "payload": {"md": "Also in it"}},
            ],
        },
        AGENT,
    )["cards"]
    ids.update({c["ref"]: c["id"] for c in framed})
    ids["section"] = framed[0]["container"]
    return ids


def _person(api: Api, name: str = "ana") -> str:
    return api.ws.create_token("user", name)


def _open(page: Any, api: Api, token: str, extra: str = "") -> None:
    page.goto(f"{api.url}/boards/{SLUG}?token={token}{extra}")
    page.wait_for_selector("body[data-ready='1']", timeout=20_000)
    page.wait_for_selector(".cardfocus", state="attached", timeout=10_000)


def _card(api: Api, card_id: int) -> Any:
    with api.ws.store.read() as tx:
        (record,) = tx.cards_by_id([card_id])
    return record


def _screen(page: Any, x: float, y: float) -> tuple[float, float]:
    """Page pixels of a board point, as the page's view places it now."""
    vx, vy, s = (float(v) for v in page.evaluate("document.body.dataset.view").split(","))
    area = page.locator("#board").bounding_box()
    return area["x"] + (x - vx) * s, area["y"] + (y - vy) * s


def _scale(page: Any) -> float:
    return float(page.evaluate("document.body.dataset.view").split(",")[2])


def _centre(page: Any, api: Api, card_id: int) -> tuple[float, float]:
    c = _card(api, card_id)
    return _screen(page, c.x + c.w / 2, c.y + c.h / 2)


def _wait(what: Any, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = what()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError("gave up waiting")
        time.sleep(0.05)


def _selection(page: Any) -> list[int]:
    raw = page.evaluate("document.body.dataset.selection || ''")
    return [int(v) for v in raw.split(",") if v]


def _wrote(page: Any) -> int:
    return int(page.evaluate("document.body.dataset.wrote || '0'"))


def _drag(
    page: Any, start: tuple[float, float], end: tuple[float, float], hold: bool = False
) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=8)
    if not hold:
        page.mouse.up()


# --------------------------------------------------------------------------- selecting


def test_click_shift_click_marquee_escape_and_tab_select_cards(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    page = pages.new()
    _open(page, api, _person(api))
    a, b = ids["a"], ids["b"]

    page.mouse.click(*_centre(page, api, a))
    assert _selection(page) == [a]
    inspector = page.locator("#inspector")
    inspector.get_by_text("claude").wait_for()
    text = inspector.inner_text()
    assert "note" in text and "AI layer" in text and "agent:claude" in text and "v1" in text
    # The inspector docks beside the board: it covers no card.
    board = page.locator("#board").bounding_box()
    panel = inspector.bounding_box()
    assert panel["x"] >= board["x"] + board["width"] - 1

    page.keyboard.down("Shift")
    page.mouse.click(*_centre(page, api, b))
    assert _selection(page) == [a, b]
    page.mouse.click(*_centre(page, api, a))
    page.keyboard.up("Shift")
    assert _selection(page) == [b]
    page.keyboard.press("Escape")
    assert _selection(page) == []

    # Shift-drag on the empty board draws a marquee around what it should select.
    ca, cb = _card(api, a), _card(api, b)
    top_left = _screen(page, ca.x - 10, ca.y - 10)
    bottom_right = _screen(page, cb.x + cb.w + 10, max(ca.y + ca.h, cb.y + cb.h) + 10)
    page.keyboard.down("Shift")
    _drag(page, top_left, bottom_right)
    page.keyboard.up("Shift")
    assert sorted(_selection(page)) == sorted([a, b])
    assert "2 cards selected" in inspector.inner_text()
    page.mouse.click(*_screen(page, ca.x - 30, ca.y - 30))
    assert _selection(page) == []

    # The keyboard reaches every card, each named by its kind and first words.
    page.locator("#board").focus()
    page.keyboard.press("Tab")
    focused = page.evaluate(
        "[document.activeElement.className, document.activeElement.getAttribute('aria-label'),"
        " +document.activeElement.dataset.cardId]"
    )
    assert focused[0] == "cardfocus" and focused[1].startswith("note: Idea")
    assert _selection(page) == [focused[2]]
    # Nothing of the selecting moved anything.
    assert (_card(api, a).version, _card(api, b).version) == (1, 1)


# --------------------------------------------------------------------------- moving


def test_a_drag_moves_a_card_snapped_to_its_neighbour_and_another_browser_sees_it(
    api: Api, pages: Pages
) -> None:
    ids = _board(api.ws)
    page, other = pages.new(), pages.new()
    _open(page, api, _person(api))
    _open(other, api, api.token)
    a, c = ids["a"], ids["c"]
    ca, cc = _card(api, a), _card(api, c)
    s = _scale(page)
    # Drop card a under card c, its left edge 3 screen pixels off c's: it snaps onto it.
    target_x, target_y = cc.x + 3 / s, cc.y + cc.h + 120
    start = _centre(page, api, a)
    end = _screen(page, target_x + ca.w / 2, target_y + ca.h / 2)
    _drag(page, start, end, hold=True)
    assert int(page.evaluate("document.body.dataset.guides")) >= 1
    assert page.locator(".guide").count() >= 1
    page.mouse.up()
    _wait(lambda: _wrote(page) == 1)
    moved = _card(api, a)
    assert moved.x == cc.x  # snapped onto the neighbour's left edge
    assert abs(moved.y - target_y) <= 2
    assert (moved.w, moved.h, moved.version) == (ca.w, ca.h, 2)
    assert moved.author == "agent:claude" and moved.layer == "ai"
    assert page.evaluate("String(window.getSelection())") == ""
    # The second browser hears of it on its event stream and shows the card there.
    spot = other.locator(f".cardfocus[data-card-id='{a}']")
    _wait(lambda: spot.evaluate("e => parseFloat(e.style.left)") == moved.x)
    assert spot.evaluate("e => parseFloat(e.style.top)") == moved.y


def test_a_long_press_picks_a_card_up_by_touch_and_a_swipe_pans(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    context = pages.browser.new_context(viewport=SIZE, has_touch=True)
    pages.contexts.append(context)
    page = context.new_page()
    page.on("pageerror", lambda exc: pages.errors.append(str(exc)))
    _open(page, api, _person(api))
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, x: float = 0, y: float = 0) -> None:
        points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    a, b = ids["a"], ids["b"]
    ca = _card(api, a)
    s = _scale(page)
    x, y = _centre(page, api, a)
    touch("touchStart", x, y)
    # Held still, the finger picks the card up...
    page.wait_for_selector(f"body[data-long-press='{a}']", timeout=5_000)
    for step in (30, 60, 90, 120):
        touch("touchMove", x + step, y + step / 2)
    touch("touchEnd")
    _wait(lambda: _card(api, a).version == 2)
    moved = _card(api, a)
    assert abs(moved.x - (ca.x + 120 / s)) <= 2 and abs(moved.y - (ca.y + 60 / s)) <= 2
    assert _selection(page) == [a]
    # ...while a finger that moves at once pans the view and leaves the card alone.
    cb = _card(api, b)  # the move may have pushed it aside
    view = page.evaluate("document.body.dataset.view")
    x, y = _centre(page, api, b)
    touch("touchStart", x, y)
    for step in (15, 40, 80):
        touch("touchMove", x - step, y)
    touch("touchEnd")
    _wait(lambda: page.evaluate("document.body.dataset.view") != view)
    assert _card(api, b).version == cb.version and _wrote(page) == 1


def test_a_drag_moves_the_whole_selection_in_one_write(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    page = pages.new()
    _open(page, api, _person(api))
    a, b = ids["a"], ids["b"]
    ca, cb = _card(api, a), _card(api, b)
    page.mouse.click(*_centre(page, api, a))
    page.keyboard.down("Shift")
    page.mouse.click(*_centre(page, api, b))
    page.keyboard.up("Shift")
    s = _scale(page)
    start = _centre(page, api, b)
    page.keyboard.down("Alt")
    _drag(page, start, (start[0] + 60 * s, start[1] + 200 * s))
    page.keyboard.up("Alt")
    _wait(lambda: _wrote(page) == 1)
    na, nb = _card(api, a), _card(api, b)
    assert (na.x - ca.x, na.y - ca.y) == (nb.x - cb.x, nb.y - cb.y)
    assert abs(nb.y - cb.y - 200) <= 2
    assert sorted(_selection(page)) == sorted([a, b])


def test_arrow_keys_move_and_alt_arrows_resize_the_selection(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    page = pages.new()
    _open(page, api, _person(api))
    b = ids["b"]
    before = _card(api, b)
    page.mouse.click(*_centre(page, api, b))
    page.keyboard.press("Shift+ArrowDown")
    page.keyboard.press("Shift+ArrowDown")
    page.keyboard.press("ArrowRight")
    _wait(lambda: _wrote(page) == 1)
    after = _card(api, b)
    assert (after.x, after.y) == (before.x + 10, before.y + 100)
    page.keyboard.press("Alt+ArrowRight")
    page.keyboard.press("Alt+ArrowDown")
    _wait(lambda: _wrote(page) == 2)
    sized = _card(api, b)
    assert (sized.w, sized.h, sized.sized_by) == (before.w + 10, before.h + 10, "person")
    assert sized.version == 3


def test_the_handle_resizes_and_the_card_stays_user_sized(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    page = pages.new()
    _open(page, api, _person(api))
    d = ids["d"]
    before = _card(api, d)
    page.mouse.click(*_centre(page, api, d))
    handle = page.locator(".handle").bounding_box()
    hx, hy = handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2
    s = _scale(page)
    # Alt: a free size, no snapping.
    page.keyboard.down("Alt")
    _drag(page, (hx, hy), (hx + 80 * s, hy + 60 * s))
    page.keyboard.up("Alt")
    _wait(lambda: _wrote(page) == 1)
    sized = _card(api, d)
    assert abs(sized.w - (before.w + 80)) <= 2 and abs(sized.h - (before.h + 60)) <= 2
    assert sized.sized_by == "person"
    # An agent's later text change keeps the person's size.
    api.ws.call("update_cards", {"patch": [{"id": d, "payload": {"md": "more " * 90}}]}, AGENT)
    assert (_card(api, d).w, _card(api, d).h) == (sized.w, sized.h)


def test_moving_a_frame_moves_its_children(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    page = pages.new()
    _open(page, api, _person(api))
    frame = _card(api, ids["section"])
    kids = [_card(api, ids["s1"]), _card(api, ids["s2"])]
    # A click on the frame's own band selects it; a drag of a selected frame moves it.
    grip = _screen(page, frame.x + frame.w - 12, frame.y + 12)
    page.mouse.click(*grip)
    assert _selection(page) == [frame.id]
    # The inspector docked beside the board took room from it: the frame's
    # grip may now be out of view, so bring it back.
    page.locator("#board").focus()
    page.keyboard.press("0")
    grip = _screen(page, frame.x + frame.w - 12, frame.y + 12)
    s = _scale(page)
    page.keyboard.down("Alt")
    _drag(page, grip, (grip[0] + 150 * s, grip[1] + 100 * s))
    page.keyboard.up("Alt")
    _wait(lambda: _wrote(page) == 1)
    moved = _card(api, frame.id)
    dx, dy = moved.x - frame.x, moved.y - frame.y
    assert abs(dx - 150) <= 2 and abs(dy - 100) <= 2
    for kid in kids:
        now = _card(api, kid.id)
        assert (now.x - kid.x, now.y - kid.y) == (dx, dy)


def test_a_stale_move_snaps_to_the_servers_card_without_an_error(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    page = pages.new()
    # This page hears of no change: its idea of card a goes stale.
    page.route("**/events*", lambda route: route.abort())
    page.route("**/ops/board_changes", lambda route: route.abort())
    _open(page, api, _person(api))
    a = ids["a"]
    start = _centre(page, api, a)
    page.mouse.click(*start)
    page.locator("#inspector").get_by_text("v1").wait_for()
    # Someone else moves the card first.
    api.ws.call("update_cards", {"patch": [{"id": a, "x": -900, "y": -700}]}, Principal.user("bo"))
    won = _card(api, a)
    page.keyboard.down("Alt")
    _drag(page, start, (start[0] + 100, start[1] + 160))
    page.keyboard.up("Alt")
    _wait(lambda: page.evaluate("document.body.dataset.snapped") == str(a))
    # The later-arriving stale write changed nothing; the view shows the server's card.
    assert (_card(api, a).x, _card(api, a).y, _card(api, a).version) == (won.x, won.y, won.version)
    spot = page.locator(f".selbox[data-card-id='{a}']")
    assert spot.evaluate("e => [parseFloat(e.style.left), parseFloat(e.style.top)]") == [
        won.x,
        won.y,
    ]
    assert page.locator("#toast.error:not([hidden])").count() == 0
    assert page.locator("dialog[open]").count() == 0


def test_two_people_move_one_card_as_an_agent_composes_around_it(api: Api, pages: Pages) -> None:
    """Two browsers and an agent: Ana's move wins, Bo's view of the card had gone stale
    (his page hears of no change) and snaps to Ana's answer without an error, and the
    agent's next batch is placed around the card where Ana put it."""
    ids = _board(api.ws)
    ana, bo = pages.new(), pages.new()
    bo.route("**/events*", lambda route: route.abort())
    bo.route("**/ops/board_changes", lambda route: route.abort())
    _open(ana, api, _person(api, "ana"))
    _open(bo, api, _person(api, "bo"))
    a = ids["a"]
    start_ana, start_bo = _centre(ana, api, a), _centre(bo, api, a)
    bo.mouse.click(*start_bo)
    bo.locator("#inspector").get_by_text("v1").wait_for()
    # Ana drags it well below the row; her write lands first.
    ana.keyboard.down("Alt")
    _drag(ana, start_ana, (start_ana[0] + 40, start_ana[1] + 260))
    ana.keyboard.up("Alt")
    _wait(lambda: _card(api, a).version == 2)
    won = _card(api, a)
    # Bo, still on v1, drags it elsewhere: the later write is refused and his view snaps.
    bo.keyboard.down("Alt")
    _drag(bo, start_bo, (start_bo[0] - 120, start_bo[1] + 40))
    bo.keyboard.up("Alt")
    _wait(lambda: bo.evaluate("document.body.dataset.snapped") == str(a))
    assert (_card(api, a).x, _card(api, a).y, _card(api, a).version) == (won.x, won.y, 2)
    assert bo.locator("#toast.error:not([hidden])").count() == 0
    assert bo.locator("dialog[open]").count() == 0
    # The agent's next batch goes around the card where Ana put it.
    batch = [{"kind": "note", "payload": {"md": f"Agent note {i}"}} for i in range(6)]
    placed = api.ws.call("compose_board", {"board": SLUG, "cards": batch}, AGENT)["cards"]
    moved = _card(api, a)
    assert (moved.x, moved.y) == (won.x, won.y)
    for c in placed:
        apart = (
            c["x"] + c["w"] <= moved.x
            or moved.x + moved.w <= c["x"]
            or c["y"] + c["h"] <= moved.y
            or moved.y + moved.h <= c["y"]
        )
        assert apart, (c, (moved.x, moved.y, moved.w, moved.h))
    # Ana's page hears of the batch on its event stream.
    ana.locator(f".cardfocus[data-card-id='{placed[0]['id']}']").wait_for(state="attached")


# --------------------------------------------------------------------------- deleting


def test_deleting_someone_elses_card_asks_for_a_reason(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    page = pages.new()
    _open(page, api, _person(api))
    c = ids["c"]
    page.mouse.click(*_centre(page, api, c))
    page.locator("#inspector [data-role='delete']").click()
    dialog = page.locator("#confirm-remove")
    dialog.wait_for(state="visible")
    assert "agent:claude" in dialog.inner_text()
    page.locator("#confirm-remove-reason").fill("too short")
    page.locator("#confirm-remove-go").click()
    assert "20 characters" in page.locator("#confirm-remove-error").inner_text()
    assert not _card(api, c).deleted
    page.locator("#confirm-remove-reason").fill("a duplicate of the idea next to it")
    page.locator("#confirm-remove-go").click()
    _wait(lambda: _card(api, c).deleted)
    assert page.locator("dialog[open]").count() == 0
    with api.ws.store.read() as tx:
        board = tx.board_by_slug(api.ws.workspace_id, SLUG)
        assert board is not None
        events = [e for e in tx.events(board_id=board.id) if e.action == "cards.update"]
    assert events[-1].detail["reason"] == "a duplicate of the idea next to it"


def test_delete_key_trashes_my_own_card_and_the_inspector_restores_it(
    api: Api, pages: Pages
) -> None:
    _board(api.ws)
    token = _person(api)
    (mine,) = api.ws.call(
        "compose_board",
        {"board": SLUG, "cards": [{"kind": "note", "payload": {"md": "Mine to drop"}}]},
        Principal.user("ana"),
    )["cards"]
    page = pages.new()
    _open(page, api, token)
    page.mouse.click(*_centre(page, api, mine["id"]))
    page.keyboard.press("Delete")
    _wait(lambda: _card(api, mine["id"]).deleted)
    assert page.locator("dialog[open]").count() == 0
    restore = page.locator("#inspector [data-role='restore']")
    restore.click()
    _wait(lambda: not _card(api, mine["id"]).deleted)
    _wait(lambda: _selection(page) == [mine["id"]])


def test_the_restore_shows_when_the_stream_tells_of_the_removal_first(
    api: Api, pages: Pages
) -> None:
    # The live stream may bring the removal before the page has its own answer (a
    # loaded server): the selection empties and the dock closes, then the answer comes.
    _board(api.ws)
    (mine,) = api.ws.call(
        "compose_board",
        {"board": SLUG, "cards": [{"kind": "note", "payload": {"md": "Mine to drop"}}]},
        Principal.user("ana"),
    )["cards"]
    page = pages.new()
    _open(page, api, _person(api))
    rev = int(page.evaluate("document.body.dataset.rev"))

    def late(route: Any) -> None:
        # The page's removal is written here, as the person, and answered only once
        # the stream has brought it to the page.
        out = api.ws.call(
            "update_cards", json.loads(route.request.post_data), Principal.user("ana")
        )
        _wait(lambda: int(page.evaluate("document.body.dataset.rev")) > rev)
        route.fulfill(status=200, content_type="application/json", body=json.dumps(out))

    page.route("**/ops/update_cards", late)
    page.mouse.click(*_centre(page, api, mine["id"]))
    page.keyboard.press("Delete")
    restore = page.locator("#inspector [data-role='restore']")
    restore.click()
    _wait(lambda: not _card(api, mine["id"]).deleted)


# --------------------------------------------------------------------------- share links


def test_a_view_link_can_select_but_not_move_resize_or_delete(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    url = api.op("share_board", {"board": SLUG}).json()["url"]
    page = pages.new()
    page.goto(f"{api.url}{url}")
    page.wait_for_selector("body[data-ready='1']", timeout=20_000)
    a = ids["a"]
    before = _card(api, a)
    start = _centre(page, api, a)
    page.mouse.click(*start)
    assert _selection(page) == [a]
    assert page.locator(".handle").count() == 0
    assert page.locator("#inspector [data-role='delete']").is_disabled()
    _drag(page, start, (start[0] + 120, start[1] + 90))
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Delete")
    time.sleep(0.6)
    after = _card(api, a)
    assert (after.x, after.y, after.version, after.deleted) == (before.x, before.y, 1, False)
    assert _wrote(page) == 0


# --------------------------------------------------------------------------- how it looks


@pytest.mark.parametrize(
    ("name", "viewport"), [("wide", SIZE), ("phone", {"width": 390, "height": 844})]
)
def test_selection_guides_and_docked_inspector_look(
    api: Api, pages: Pages, name: str, viewport: dict[str, int]
) -> None:
    from tests.render.test_browser import compare

    ids = _board(api.ws)
    page = pages.new(viewport)
    _open(page, api, _person(api))
    page.wait_for_timeout(300)
    a, c = ids["a"], ids["c"]
    cc = _card(api, c)
    start = _centre(page, api, a)
    page.mouse.click(*start)
    page.locator("#inspector").get_by_text("claude").wait_for()
    end = _screen(page, cc.x + 2 / _scale(page) + _card(api, a).w / 2, cc.y + cc.h + 90)
    _drag(page, start, end, hold=True)
    page.wait_for_timeout(200)
    # compare() writes a picture of any difference under artifacts/render.
    (ARTIFACTS / "render").mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"viewer-hands-{name}.png"
    # The status line tells the time: masked, so the picture holds still.
    page.screenshot(path=str(path), mask=[page.locator("#status")])
    page.mouse.up()
    # The minimap, when shown, sits in the board area's own corner.
    if page.locator("#minimap").is_visible():
        board, mini = page.locator("#board").bounding_box(), page.locator("#minimap").bounding_box()
        assert mini["x"] + mini["width"] <= board["x"] + board["width"]
        assert mini["y"] + mini["height"] <= board["y"] + board["height"]
    compare(Image.open(path).convert("RGB"), f"viewer-hands-{name}")
