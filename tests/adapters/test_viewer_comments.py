# The browser, page and served fixtures come from the viewer's browser tests.
# ruff: noqa: F811
"""Comments in the viewer, in headless Chromium: a person pins a comment on a card and on
the empty board (pointer and keyboard), another person sees both arrive live, replies,
resolves; pins follow their card; an annotate share link comments, a view link has no
Comment tool and hears 403 from the API. Every step is checked in the database."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from layoutkit import Principal, Workspace
from tests.adapters.conftest import Api
from tests.adapters.test_viewer_browser import (  # noqa: F401 (fixtures)
    AGENT,
    _data,
    _empty_spot,
    _open,
    _view,
    _wait,
    browser,
    served,
)
from tests.browser import ARTIFACTS, CHROMIUM, SKIP_REASON
from tests.render.test_browser import compare

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON),
]

DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}
#: Long enough for a pushed change on a loaded machine (the wait ends at the event).
LIVE_S = 30.0


def _context(browser: Any, size: dict[str, int]) -> Iterator[Any]:
    context = browser.new_context(viewport=size, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, errors


@pytest.fixture
def ana(browser: Any) -> Iterator[Any]:
    yield from _context(browser, DESKTOP)


@pytest.fixture
def bob(browser: Any) -> Iterator[Any]:
    yield from _context(browser, DESKTOP)


def _board(ws: Workspace) -> tuple[int, int]:
    ws.call("create", {"kind": "board", "slug": "launch"})
    cards = ws.call(
        "compose_board",
        {
            "board": "launch",
            "cards": [
                {"kind": "note", "payload": {"md": "# Hero\n\nShip the new checkout."}},
                {"kind": "note", "payload": {"md": "# Risks\n\nPayments provider limits."}},
            ],
        },
        AGENT,
    )["cards"]
    return cards[0]["id"], cards[1]["id"]


def _threads(ws: Workspace) -> list[Any]:
    with ws.store.read() as tx:
        board = tx.board_by_slug(ws.workspace_id, "launch")
        assert board is not None
        return tx.annotations(board.id, kind="comment")


def _ops(name: str) -> Any:
    return lambda r: r.url.endswith(f"/ops/{name}")


def _card_spot(page: Any, ws: Workspace, card: int, fx: float, fy: float) -> tuple[float, float]:
    """The page point at fractions (fx, fy) of ``card``'s box."""
    with ws.store.read() as tx:
        c = tx.card(card)
        assert c is not None
        bx, by = c.x + fx * c.w, c.y + fy * c.h
    area = page.locator("#board").bounding_box()
    x, y, s = _view(page)
    return area["x"] + (bx - x) * s, area["y"] + (by - y) * s


def _pin_tip(page: Any, thread: int) -> tuple[float, float]:
    """Where a pin points (its bottom-left corner), in page pixels."""
    box = page.locator(f".cpin[data-comment='{thread}']").bounding_box()
    return box["x"], box["y"] + box["height"]


def _shoot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    # The status line and each message's date tell the time: masked, so the picture
    # holds still from run to run.
    page.screenshot(path=str(path), mask=[page.locator("#status"), page.locator(".msg .who")])
    compare(Image.open(path).convert("RGB"), name)


def test_pin_reply_and_resolve_comments_live_between_two_people(
    served: Api, ana: Any, bob: Any
) -> None:
    api = served
    hero, risks = _board(api.ws)
    _open(ana, api, "/boards/launch")
    _open(bob, api, "/boards/launch")
    tool = ana.locator("#comment-tool")
    assert tool.is_visible() and tool.get_attribute("aria-pressed") == "false"

    # The keyboard turns the tool on; a click on the card pins a draft there.
    ana.locator("#board").focus()
    ana.keyboard.press("c")
    assert _data(ana, "commenting") == "1" and tool.get_attribute("aria-pressed") == "true"
    ana.mouse.click(*_card_spot(ana, api.ws, hero, 0.6, 0.4))
    text = ana.locator("#cpop textarea")
    text.wait_for(state="visible")
    assert text.evaluate("el => el === document.activeElement")
    ana.keyboard.type("Is the headline final?")
    with ana.expect_response(_ops("add_comment")) as res:
        ana.locator("#cpop button[data-part='send']").click()
    assert res.value.status == 200
    (on_card,) = _threads(api.ws)
    assert (on_card.card_id, on_card.state, on_card.prompt["summary"]) == (
        hero,
        "open",
        "Is the headline final?",
    )
    region = on_card.region["normalized"]
    assert abs(region["nx"] - 0.6) < 0.02 and abs(region["ny"] - 0.4) < 0.02
    _wait(lambda: _data(ana, "thread") == str(on_card.id))

    # Still in comment mode: a click on the empty board pins one there (Ctrl+Enter sends).
    spot = _empty_spot(ana, api, "launch")
    ana.mouse.click(*spot)
    ana.locator("#cpop textarea").wait_for(state="visible")
    ana.keyboard.type("Add a launch date card here")
    with ana.expect_response(_ops("add_comment")) as res:
        ana.keyboard.press("Control+Enter")
    assert res.value.status == 200
    threads = _threads(api.ws)
    assert len(threads) == 2
    on_board = threads[1]
    x, y, s = _view(ana)
    area = ana.locator("#board").bounding_box()
    at = on_board.region["at"]
    assert (on_board.card_id, on_board.prompt["summary"]) == (None, "Add a launch date card here")
    assert abs(at["x"] - (x + (spot[0] - area["x"]) / s)) < 2 / s + 1
    assert abs(at["y"] - (y + (spot[1] - area["y"]) / s)) < 2 / s + 1
    # The page opens the new thread once it has the answer: the Escapes wait for that.
    _wait(lambda: _data(ana, "thread") == str(on_board.id))
    ana.keyboard.press("Escape")  # closes the popover
    ana.keyboard.press("Escape")  # ends comment mode
    _wait(lambda: _data(ana, "commenting") == "")

    # Bob sees both arrive without a reload, replies to the card's one.
    _wait(lambda: _data(bob, "comments") == "2", LIVE_S)
    bob.locator(f".cpin[data-comment='{on_card.id}']").click()
    bob.locator("#cpop textarea").fill("Yes, signed off by marketing.")
    with bob.expect_response(_ops("reply")) as res:
        bob.locator("#cpop button[data-part='send']").click()
    assert res.value.status == 200
    replies = _threads(api.ws)[0].replies
    assert [r["text"] for r in replies] == ["Yes, signed off by marketing."]
    _wait(lambda: _data(bob, "commentSaved"))
    _shoot(bob, "viewer-comments-thread-1440")

    # Ana's pin counts the reply live; her open popover shows it.
    pin = ana.locator(f".cpin[data-comment='{on_card.id}']")
    _wait(lambda: pin.inner_text() == "2", LIVE_S)

    # The pin moves with its card.
    before = _pin_tip(ana, on_card.id)
    with api.ws.store.read() as tx:
        card = tx.card(hero)
        assert card is not None
    api.ws.call("update_cards", {"patch": [{"id": hero, "x": card.x + 300, "y": card.y + 80}]})
    s = _view(ana)[2]
    _wait(
        lambda: (
            abs(_pin_tip(ana, on_card.id)[0] - (before[0] + 300 * s)) < 3
            and abs(_pin_tip(ana, on_card.id)[1] - (before[1] + 80 * s)) < 3
        ),
        LIVE_S,
    )

    # Bob resolves: the pin goes behind the Resolved toggle, for Ana too.
    with bob.expect_response(_ops("resolve_comment")) as res:
        bob.locator("#cpop button[data-part='flip']").click()
    assert res.value.status == 200
    assert _threads(api.ws)[0].state == "resolved"
    _wait(lambda: bob.locator(f".cpin[data-comment='{on_card.id}']").count() == 0)
    _wait(lambda: _data(ana, "commentsResolved") == "1", LIVE_S)
    assert ana.locator(f".cpin[data-comment='{on_card.id}']").count() == 0
    toggle = ana.locator("#comments-resolved")
    assert toggle.inner_text() == "✓ 1"
    assert toggle.get_attribute("aria-label") == "Show the 1 resolved comment"
    toggle.click()
    assert ana.locator(f".cpin.resolved[data-comment='{on_card.id}']").count() == 1
    ana.locator(f".cpin[data-comment='{on_card.id}']").click()
    with ana.expect_response(_ops("reopen_comment")) as res:
        ana.locator("#cpop button[data-part='flip']").click()
    assert res.value.status == 200
    assert _threads(api.ws)[0].state == "open"
    _shoot(ana, "viewer-comments-reopened-1440")

    # On a phone the popover stays inside the board area.
    ana.set_viewport_size(PHONE)
    # A thread's address opens on it (centred, its popover showing).
    ana.evaluate(f"location.hash = '#comment={on_board.id}'")
    _wait(lambda: _data(ana, "thread") == str(on_board.id))
    pop = ana.locator("#cpop").bounding_box()
    area = ana.locator("#board").bounding_box()
    assert pop["x"] >= area["x"] and pop["x"] + pop["width"] <= area["x"] + area["width"]
    assert pop["y"] >= area["y"] and pop["y"] + pop["height"] <= area["y"] + area["height"]
    _shoot(ana, "viewer-comments-390")
    assert risks


def test_an_annotate_link_comments_and_a_view_link_cannot(served: Api, browser: Any) -> None:
    api = served
    hero, _ = _board(api.ws)
    for mode in ("annotate", "view"):
        url = api.op("share_board", {"board": "launch", "mode": mode}).json()["url"]
        for page in _context(browser, DESKTOP):
            page.goto(f"{api.url}{url}")
            page.wait_for_selector("body[data-ready='1']", timeout=20_000)
            if mode == "view":
                assert page.locator("#comment-tool").is_hidden()
                page.locator("#board").focus()
                page.keyboard.press("c")
                assert _data(page, "commenting") in (None, "")
                status = page.evaluate(
                    """async (card) => (await fetch('/api/v1/ops/add_comment', {method: 'POST',
                        headers: {'content-type': 'application/json'}, credentials: 'same-origin',
                        body: JSON.stringify({board: 'launch', text: 'sneaky', cardId: card})})).status""",
                    hero,
                )
                assert status == 403
                assert len(_threads(api.ws)) == 1
                continue
            page.locator("#comment-tool").click()
            page.mouse.click(*_card_spot(page, api.ws, hero, 0.3, 0.7))
            page.locator("#cpop textarea").fill("From the review link")
            with page.expect_response(_ops("add_comment")) as res:
                page.locator("#cpop button[data-part='send']").click()
            assert res.value.status == 200
            (thread,) = _threads(api.ws)
            assert (thread.card_id, thread.principal) == (hero, "share:share:launch")
            # The page has the answer a moment after the database has the thread: typing
            # before it turned the draft into the thread would be cleared with the draft.
            page.wait_for_selector(f"#cpop[data-comment='{thread.id}']")
            page.locator("#cpop textarea").fill("And a reply")
            with page.expect_response(_ops("reply")) as res:
                page.locator("#cpop button[data-part='send']").click()
            assert res.value.status == 200
            assert [r["text"] for r in _threads(api.ws)[0].replies] == ["And a reply"]


def test_a_comments_read_asked_before_a_pin_lands_keeps_the_new_thread_open(
    served: Api, ana: Any
) -> None:
    # Another person's comment makes the page ask for the comments; that read is
    # answered by the server at once but reaches the page only after Ana's pin has
    # landed (and no later read was asked: the polls are held meanwhile). The late
    # answer knows nothing of her pin; taking it whole closed the thread the page had
    # just opened for it (seen as a flake of the test above on a loaded machine).
    api = served
    hero, _ = _board(api.ws)
    _open(ana, api, "/boards/launch?live=poll")
    late_reads: list[tuple[Any, Any]] = []
    held_polls: list[Any] = []
    holding = [False]

    def on_get(route: Any) -> None:
        if '"comments"' in (route.request.post_data or ""):
            late_reads.append((route, route.fetch()))
        else:
            route.continue_()

    def on_poll(route: Any) -> None:
        if holding[0]:
            held_polls.append(route)
        else:
            route.continue_()

    ana.route("**/ops/get", on_get)
    ana.route("**/ops/board_changes", on_poll)
    theirs = api.ws.call(
        "add_comment",
        {"board": "launch", "text": "Who owns the risks?", "at": {"x": -400, "y": -300}},
        Principal.user("bob"),
    )["id"]
    # Route handlers run while the page is asked something: wait on the page.
    _wait(lambda: ana.evaluate("1") and late_reads, LIVE_S)
    holding[0] = True

    ana.locator("#board").focus()
    ana.keyboard.press("c")
    ana.mouse.click(*_card_spot(ana, api.ws, hero, 0.5, 0.5))
    ana.locator("#cpop textarea").wait_for(state="visible")
    ana.keyboard.type("Pinned while a read was out")
    with ana.expect_response(_ops("add_comment")) as res:
        ana.keyboard.press("Control+Enter")
    mine = res.value.json()["id"]
    _wait(lambda: _data(ana, "thread") == str(mine))

    route, answer = late_reads.pop()
    route.fulfill(response=answer)
    # The late answer has landed once Bob's pin, which only it brings, is drawn.
    _wait(lambda: ana.locator(f".cpin[data-comment='{theirs}']").count() == 1)
    assert _data(ana, "thread") == str(mine)
    assert ana.locator("#cpop").is_visible()
    assert ana.locator(f".cpin[data-comment='{mine}']").count() == 1
    holding[0] = False
    for held in held_polls:
        held.continue_()
