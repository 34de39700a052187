# The browser, page and served fixtures come from the viewer's browser tests.
# ruff: noqa: F811
"""The viewer's findings panel in headless Chromium: Accept, Dismiss, all at once,
retriage, withdraw, driven with a real pointer and keyboard and checked in the
database; changes made elsewhere arrive without a reload."""

from __future__ import annotations

from typing import Any

import pytest

from layoutkit import Workspace
from layoutkit.principal import Principal
from tests.adapters.conftest import Api
from tests.adapters.test_viewer_browser import (  # noqa: F401 (fixtures)
    AGENT,
    _data,
    _open,
    _shot,
    _view,
    _wait,
    browser,
    page,
    served,
)
from tests.browser import CHROMIUM, SKIP_REASON

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON),
]


def _board(ws: Workspace) -> tuple[int, int]:
    ws.call("create", {"kind": "board", "slug": "checkout"})
    cards = ws.call(
        "compose_board",
        {
            "board": "checkout",
            "cards": [
                {"kind": "note", "payload": {"md": "# Pay\n\nPay now with the saved card."}},
                {"kind": "note", "payload": {"md": "# Cart\n\nThree items, total 42 EUR."}},
            ],
        },
        AGENT,
    )["cards"]
    return cards[0]["id"], cards[1]["id"]


def _file(ws: Workspace, card: int, key: str, summary: str, **extra: Any) -> int:
    item = {
        "key": key,
        "cardId": card,
        "cardVersion": 1,
        "region": extra.pop("region", {"nx": 0.1, "ny": 0.2, "nw": 0.5, "nh": 0.3}),
        "prompt": {"summary": summary, "detail": extra.pop("detail", "")}
        if "detail" in extra
        else summary,
        **extra,
    }
    out = ws.call("annotate", {"board": "checkout", "items": [item]}, Principal.agent("claude"))
    assert out["results"][0]["status"] == "created", out
    return int(out["results"][0]["id"])


def _states(ws: Workspace) -> dict[int, tuple[str, str]]:
    with ws.store.read() as tx:
        board = tx.board_by_slug(ws.workspace_id, "checkout")
        assert board is not None
        return {a.id: (a.state, a.intent) for a in tx.annotations(board.id)}


def _ops(name: str) -> Any:
    return lambda r: r.url.endswith(f"/ops/{name}")


def test_accept_dismiss_retriage_and_withdraw_from_the_findings_panel(
    served: Api,
    page: Any,
) -> None:
    api = served
    pay, cart = _board(api.ws)
    contrast = _file(
        api.ws,
        pay,
        "pay-contrast",
        "Low contrast on the Pay button",
        detail="Grey on blue, 2.1:1",
        severity="high",
        category="contrast",
    )
    wording = _file(
        api.ws,
        pay,
        "pay-wording",
        "Say what is charged",
        severity="medium",
        region={"nx": 0.05, "ny": 0.6, "nw": 0.8, "nh": 0.2},
        category="copy",
    )
    total = _file(api.ws, cart, "cart-total", "Total wraps on phones", severity="low")
    _open(page, api, "/boards/checkout")
    panel = page.locator("#annotations")
    assert panel.is_visible()
    assert _data(page, "findings") == "3"
    assert page.locator(f".abadge[data-annotation-card='{pay}']").inner_text().endswith("2")
    assert page.locator(".aregion").count() == 3
    item = panel.locator(f".finding[data-annotation='{contrast}']")
    assert "agent:claude" in item.inner_text() and "via claude" in item.inner_text()
    _shot(page, "viewer-findings.png")

    # A click on a finding pans and zooms to its region.
    before = _view(page)
    item.locator(".summary").click()
    assert _data(page, "annotationFocus") == str(contrast)
    x, y, s = _view(page)
    assert (x, y, s) != before and s > before[2]
    region = page.locator(f".aregion[data-annotation='{contrast}']").bounding_box()
    board = page.locator("#board").bounding_box()
    assert (
        board["x"] <= region["x"] and region["x"] + region["width"] <= board["x"] + board["width"]
    )
    assert (
        board["y"] <= region["y"] and region["y"] + region["height"] <= board["y"] + board["height"]
    )
    _shot(page, "viewer-finding-focused.png")

    # Retriage with the keyboard: the intent select, one step down.
    select = panel.locator(f"select[data-intent-of='{wording}']")
    select.focus()
    with page.expect_response(_ops("retriage_annotation")) as res:
        page.keyboard.press("ArrowDown")
    assert res.value.status == 200
    assert _states(api.ws)[wording] == ("staged", "investigate")

    # Accept one with the pointer.
    with page.expect_response(_ops("agent_verdict")):
        item.locator("button[data-action='accept']").click()
    assert _states(api.ws)[contrast] == ("open", "fix")
    _wait(
        lambda: (
            panel.locator(f".finding[data-annotation='{contrast}']").get_attribute("data-state")
            == "open"
        )
    )
    # An accepted finding keeps no intent select: retriage is for staged ones.
    assert panel.locator(f"select[data-intent-of='{contrast}']").count() == 0

    # Dismiss one with the keyboard: focus the button, Enter.
    panel.locator(f".finding[data-annotation='{total}'] button[data-action='dismiss']").focus()
    with page.expect_response(_ops("agent_verdict")):
        page.keyboard.press("Enter")
    assert _states(api.ws)[total] == ("cancelled", "fix")
    _wait(lambda: panel.locator(f".finding[data-annotation='{total}']").count() == 0)

    # An agent files two more: they show up without a reload (pushed by the stream).
    late = [
        _file(
            api.ws,
            cart,
            f"late-{i}",
            f"Late finding {i}",
            region={"nx": 0.1 * i, "ny": 0.1, "nw": 0.08, "nh": 0.1},
        )
        for i in range(1, 3)
    ]
    # Pushed by the stream, which a loaded machine may be reconnecting (every 25 s):
    # the wait ends at the event, its bound only covers the reconnection.
    _wait(lambda: _data(page, "findings") == "4", timeout=30.0)
    # Another person dismisses one of them elsewhere: the panel follows.
    api.op("agent_verdict", {"board": "checkout", "action": "dismiss", "ids": [late[1]]})
    _wait(
        lambda: panel.locator(f".finding[data-annotation='{late[1]}']").count() == 0, timeout=30.0
    )

    # Accept all staged: the ones the panel shows (the retriaged one and late[0]).
    assert page.locator("#accept-all").inner_text() == "Accept all 2 staged"
    with page.expect_response(_ops("agent_verdict")):
        page.locator("#accept-all").click()
    got = _states(api.ws)
    assert got[wording] == ("open", "investigate") and got[late[0]][0] == "open"
    _wait(lambda: page.locator("#accept-all").is_disabled())

    # Dismiss all staged, on two new ones.
    fresh = [
        _file(
            api.ws,
            pay,
            f"fresh-{i}",
            f"Fresh finding {i}",
            region={"nx": 0.1 * i, "ny": 0.05, "nw": 0.05, "nh": 0.05},
        )
        for i in range(1, 3)
    ]
    _wait(lambda: page.locator("#dismiss-all").inner_text() == "Dismiss all 2 staged")
    with page.expect_response(_ops("agent_verdict")):
        page.locator("#dismiss-all").click()
    assert [_states(api.ws)[i][0] for i in fresh] == ["cancelled", "cancelled"]
    _wait(
        lambda: all(panel.locator(f".finding[data-annotation='{i}']").count() == 0 for i in fresh)
    )

    # Withdraw asks first: Escape keeps it, then the pointer confirms.
    row = panel.locator(f".finding[data-annotation='{contrast}']")
    row.locator("button.withdraw-ask").click()
    # The focus moves to the confirming button (and stays there through pushed redraws).
    assert page.evaluate(
        f"document.activeElement.matches('.finding[data-annotation=\"{contrast}\"] button.danger')"
    )
    _shot(page, "viewer-finding-withdraw.png")
    page.keyboard.press("Escape")
    assert row.locator("button.danger").count() == 0
    assert _states(api.ws)[contrast][0] == "open"
    row.locator("button.withdraw-ask").click()
    with page.expect_response(_ops("withdraw_annotation")):
        row.locator("button.danger").click()
    assert _states(api.ws)[contrast][0] == "cancelled"
    _wait(lambda: panel.locator(f".finding[data-annotation='{contrast}']").count() == 0)

    with api.ws.store.read() as tx:
        found = tx.board_by_slug(api.ws.workspace_id, "checkout")
        assert found is not None
        verdicts = [
            (e.action, e.detail["ids"])
            for e in tx.events(board_id=found.id)
            if e.action.startswith("annotations.")
        ]
    assert verdicts == [
        ("annotations.accept", [contrast]),
        ("annotations.dismiss", [total]),
        ("annotations.dismiss", [late[1]]),
        ("annotations.accept", sorted([wording, late[0]])),
        ("annotations.dismiss", fresh),
    ]
    _shot(page, "viewer-findings-after.png")


def test_a_view_link_sees_findings_but_cannot_judge_them(api: Api, page: Any) -> None:
    pay, _ = _board(api.ws)
    fid = _file(api.ws, pay, "k1", "Low contrast", severity="high")
    url = api.op("share_board", {"board": "checkout"}).json()["url"]
    page.goto(f"{api.url}{url}")
    page.wait_for_selector("body[data-ready='1']")
    row = page.locator(f".finding[data-annotation='{fid}']")
    assert row.is_visible()
    for sel in (
        "button[data-action='accept']",
        "button[data-action='dismiss']",
        "select",
        "button.withdraw-ask",
    ):
        assert row.locator(sel).is_disabled(), sel
    assert page.locator("#accept-all").is_disabled() and page.locator("#dismiss-all").is_disabled()
    row.locator("button[data-action='accept']").click(force=True)
    assert _states(api.ws)[fid] == ("staged", "fix")


def test_a_deep_link_and_a_badge_open_on_the_finding(api: Api, page: Any) -> None:
    pay, cart = _board(api.ws)
    _file(api.ws, pay, "k1", "On the pay card")
    fid = _file(
        api.ws, cart, "k2", "On the cart card", region={"nx": 0.6, "ny": 0.6, "nw": 0.3, "nh": 0.3}
    )
    ask = {"board": "checkout", "prompt": "Ship the new checkout?", "options": ["Yes", "No"]}
    api.ws.call("ask_board", ask, AGENT)
    # The address annotate answers with (url) opens on the finding's region.
    _open(page, api, f"/boards/checkout?annotation={fid}")
    assert _data(page, "annotationFocus") == str(fid)
    # Both side panels open at once: each keeps its own width beside the board.
    assert page.locator("#questions").is_visible() and page.locator("#annotations").is_visible()
    _shot(page, "viewer-findings-and-questions.png")
    region = page.locator(f".aregion.selected[data-annotation='{fid}']").bounding_box()
    board = page.locator("#board").bounding_box()
    middle = (region["x"] + region["width"] / 2, region["y"] + region["height"] / 2)
    assert abs(middle[0] - (board["x"] + board["width"] / 2)) < 2
    assert abs(middle[1] - (board["y"] + board["height"] / 2)) < 2
    # Closed panel: the badge on a card opens it on that card's finding.
    page.locator("#annotations-toggle").click()
    assert page.locator("#annotations").is_hidden()
    page.keyboard.press("0")
    page.locator(f".abadge[data-annotation-card='{pay}']").click()
    assert page.locator("#annotations").is_visible()
    first = api.ws.call("get", {"kind": "annotations", "board": "checkout", "cardId": pay})
    assert _data(page, "annotationFocus") == str(first["annotations"][0]["id"])


def test_an_action_on_a_finding_decided_meanwhile_reads_as_a_sentence(api: Api, page: Any) -> None:
    pay, _ = _board(api.ws)
    fid = _file(api.ws, pay, "k1", "Low contrast")
    # Polling every two seconds: the page still shows the finding staged for a moment.
    _open(page, api, "/boards/checkout?live=poll")
    api.op("agent_verdict", {"board": "checkout", "action": "accept", "ids": [fid]})
    select = page.locator(f"select[data-intent-of='{fid}']")
    select.focus()
    with page.expect_response(_ops("retriage_annotation")) as res:
        page.keyboard.press("ArrowDown")
    assert res.value.status == 409
    # The toast is written after the response arrives: wait for it rather than read it at once.
    _wait(
        timeout=3,
        what=lambda: "accepted or dismissed meanwhile" in page.locator("#toast").inner_text(),
    )
    assert _states(api.ws)[fid] == ("open", "fix")
    _shot(page, "viewer-finding-refused.png")
    # The page reads the findings again at once (not at the next check, two seconds on).
    _wait(
        timeout=1.5,
        what=lambda: (
            page.locator(f".finding[data-annotation='{fid}']").get_attribute("data-state") == "open"
        ),
    )
