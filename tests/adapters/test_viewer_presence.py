"""Two people on one board in two browsers: each sees the other's avatar, cursor,
selection and the card they drag, live; a closed page drops out of the other's view.

Playwright drives Debian's Chromium against a real server on 127.0.0.1; every wait
is on the page's own state (its avatars and overlay elements, which it draws from
what the server pushed) and each report is checked in the database.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from PIL import Image

from layoutkit.service.boards.presence import PRESENCE_TTL_S
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
    _wait,
)
from tests.browser import ARTIFACTS, CHROMIUM, SKIP_REASON, playwright_browser

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON),
]

PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from playwright_browser()


@pytest.fixture
def pages(browser: Any) -> Iterator[Pages]:
    made = Pages(browser)
    yield made
    for context in made.contexts:
        context.close()
    assert not made.errors, made.errors


def _view(page: Any) -> tuple[float, float, float]:
    x, y, s = (float(v) for v in page.evaluate("document.body.dataset.view").split(","))
    return x, y, s


def _board_point(page: Any, sx: float, sy: float) -> tuple[float, float]:
    """The board point under page pixel (sx, sy), as the page's view places it now."""
    vx, vy, s = _view(page)
    area = page.locator("#board").bounding_box()
    return vx + (sx - area["x"]) / s, vy + (sy - area["y"]) / s


def _people(page: Any) -> str:
    return str(page.evaluate("document.body.dataset.people || ''"))


def _cursor_at(page: Any) -> tuple[float, float] | None:
    """Where the page draws the one remote cursor it shows (board coordinates)."""
    at = page.evaluate("(document.querySelector('.rcursor') || {dataset: {}}).dataset.at || ''")
    if not at:
        return None
    x, y = (float(v) for v in at.split(","))
    return x, y


def _near(got: tuple[float, float] | None, want: tuple[float, float], by: float = 1.0) -> bool:
    return got is not None and abs(got[0] - want[0]) <= by and abs(got[1] - want[1]) <= by


def _stored(api: Api, who: str) -> Any:
    """The presence row ``who`` (a principal label) has on the board, or None."""
    with api.ws.store.read() as tx:
        board = tx.board_by_slug(api.ws.workspace_id, SLUG)
        assert board is not None
        since = tx.now() - timedelta(seconds=PRESENCE_TTL_S)
        rows = [r for r in tx.presence(board.id, since) if r.who == who]
    return rows[0] if rows else None


def test_two_people_see_each_others_cursor_selection_and_drag(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    a, b = ids["a"], ids["b"]
    bo = pages.new()
    _open(bo, api, _person(api, "bo"))
    ana = pages.new()
    _open(ana, api, _person(api, "ana"))

    # Each sees the other's avatar (not their own): initials, the name on hover and focus.
    _wait(lambda: _people(bo) == "ana")
    _wait(lambda: _people(ana) == "bo")
    avatar = bo.locator("#people .avatar")
    assert avatar.inner_text() == "AN"
    assert avatar.get_attribute("data-name") == "ana"
    assert "ana" in (avatar.get_attribute("aria-label") or "")

    # Ana's pointer over the board: Bo sees her cursor where it is, and following it move.
    area = ana.locator("#board").bounding_box()
    for fx, fy in ((0.3, 0.7), (0.6, 0.8)):
        sx, sy = area["x"] + area["width"] * fx, area["y"] + area["height"] * fy
        ana.mouse.move(sx, sy, steps=4)
        want = _board_point(ana, sx, sy)
        _wait(lambda want=want: _near(_cursor_at(bo), want))
        row = _stored(api, "user:ana")
        assert row is not None and _near((row.state["cursor"]["x"], row.state["cursor"]["y"]), want)
    label = bo.locator(".rcursor .ptag")
    assert label.inner_text() == "ana"

    # The avatar, pressed from the keyboard, brings Ana's cursor into view.
    before = _view(bo)
    bo.locator("#people .avatar").focus()
    bo.keyboard.press("Enter")
    _wait(lambda: _view(bo) != before)

    # Her selection is outlined in her colour on Bo's page.
    ana.mouse.click(*_centre(ana, api, a))
    bo.wait_for_selector(f".rsel[data-card-id='{a}']", state="attached", timeout=10_000)
    colour = bo.locator("#people .avatar").evaluate("e => e.style.getPropertyValue('--c')")
    assert bo.locator(".rsel").evaluate("e => e.style.getPropertyValue('--c')") == colour
    assert _stored(api, "user:ana").state["selection"] == [a]

    # She drags card b (held, not dropped): Bo sees its ghost, named, moving with her.
    cb = _card(api, b)
    start = _centre(ana, api, b)
    scale = _view(ana)[2]
    ghost = bo.locator(f".rdrag[data-card-id='{b}']")

    def ghost_at() -> tuple[float, float]:
        box = ghost.evaluate("e => [parseFloat(e.style.left), parseFloat(e.style.top)]")
        return box[0], box[1]

    ana.mouse.move(*start)
    ana.mouse.down()
    for step in (40, 80, 120):
        ana.mouse.move(start[0] + step, start[1] + step / 2, steps=3)
        ghost.wait_for(state="attached", timeout=10_000)
        want = (cb.x + step / scale, cb.y + step / 2 / scale)
        # Snapping may pull the card a few screen pixels.
        _wait(lambda want=want: _near(ghost_at(), want, by=8 / scale))
    assert ghost.locator(".ptag").inner_text() == "ana is moving this"
    dragging = _stored(api, "user:ana").state["dragging"]
    assert dragging["id"] == b
    ana.mouse.up()
    # Dropped: the ghost goes, and the card itself arrives where she put it.
    bo.wait_for_selector(".rdrag", state="detached", timeout=10_000)
    moved = _wait(lambda: _card(api, b) if _card(api, b).version == 2 else None)
    spot = bo.locator(f".cardfocus[data-card-id='{b}']")
    _wait(lambda: spot.evaluate("e => parseFloat(e.style.left)") == moved.x)
    assert _stored(api, "user:ana").state["dragging"] is None

    # Ana closes her page: it says so as it goes, and Bo's avatars drop her.
    ana.close()
    _wait(lambda: _people(bo) == "", timeout=PRESENCE_TTL_S / 3)
    assert bo.locator(".rcursor, .rsel, .rdrag").count() == 0
    assert _stored(api, "user:ana") is None


def test_a_view_link_visitor_shows_as_a_guest_and_sees_the_others(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    bo = pages.new()
    _open(bo, api, _person(api, "bo"))
    url = api.op("share_board", {"board": SLUG}).json()["url"]
    guest = pages.new()
    guest.goto(f"{api.url}{url}")
    guest.wait_for_selector("body[data-ready='1']", timeout=20_000)
    _wait(lambda: _people(bo) == "Guest")
    _wait(lambda: _people(guest) == "bo")
    # The guest's pointer is shown to Bo like anyone's.
    area = guest.locator("#board").bounding_box()
    sx, sy = area["x"] + area["width"] * 0.4, area["y"] + area["height"] * 0.75
    guest.mouse.move(sx, sy, steps=3)
    want = _board_point(guest, sx, sy)
    _wait(lambda: _near(_cursor_at(bo), want))
    assert bo.locator(".rcursor .ptag").inner_text() == "Guest"
    # A guest's selection is reported too; the board itself is untouched.
    guest.mouse.click(*_centre(guest, api, ids["a"]))
    bo.wait_for_selector(f".rsel[data-card-id='{ids['a']}']", state="attached", timeout=10_000)
    assert _card(api, ids["a"]).version == 1


@pytest.mark.parametrize(("name", "viewport"), [("wide", SIZE), ("phone", PHONE)])
def test_the_presence_look(api: Api, pages: Pages, name: str, viewport: dict[str, int]) -> None:
    """Two others on the board, one pointing and selecting, one dragging a card."""
    from tests.render.test_browser import compare

    ids = _board(api.ws)
    page = pages.new(viewport)
    _open(page, api, _person(api, "bo"))
    # Their reports are made through the API (people elsewhere), where they stay put.
    ca, cc = _card(api, ids["a"]), _card(api, ids["c"])
    ana = _person(api, "ana.lopez")
    kim = _person(api, "kim")
    for token, params in (
        (
            ana,
            {"cursor": {"x": ca.x + ca.w * 0.7, "y": ca.y + ca.h + 40}, "selection": [ids["a"]]},
        ),
        (
            kim,
            {
                "cursor": {"x": cc.x + cc.w / 2 + 60, "y": cc.y + cc.h + 70},
                "dragging": {"id": ids["c"], "x": cc.x + 60, "y": cc.y + 60},
            },
        ),
    ):
        res = api.client.post(
            "/api/v1/ops/board_presence",
            json={"board": SLUG, **params},
            headers={"authorization": f"Bearer {token}"},
        )
        assert res.status_code == 200, res.text
    _wait(lambda: _people(page) == "ana.lopez,kim")
    page.wait_for_selector(".rdrag", state="attached", timeout=10_000)
    page.wait_for_selector(".rsel", state="attached", timeout=10_000)
    # The view as a person leaves it: the cards in sight, the others' marks on them.
    x, y = _screen(page, cc.x + cc.w / 2, cc.y + cc.h / 2)
    assert x > 0 and y > 0
    page.locator("#people .avatar").first.hover()
    (ARTIFACTS / "render").mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"viewer-presence-{name}.png"
    # Cursors glide to their place: the picture is taken with the glide finished.
    page.screenshot(path=str(path), mask=[page.locator("#status")], animations="disabled")
    # Nothing drawn for the others sits outside the board area or over the top bar.
    bar = page.locator("header").bounding_box()
    for box in (page.locator("#people").bounding_box(),):
        assert box is not None and box["y"] + box["height"] <= bar["y"] + bar["height"]
        assert box["x"] + box["width"] <= bar["x"] + bar["width"]
    compare(Image.open(path).convert("RGB"), f"viewer-presence-{name}")
