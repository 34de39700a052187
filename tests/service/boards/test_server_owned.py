"""Server-owned payload fields are never taken from an author, on any write path.

The contract marks them server-owned (html href and natural size, a page's
editor mirror, a ref's target, a doc's push set...): an authored value is
dropped or overwritten when composed, patched, pushed, or nested in a doc card.
"""

from __future__ import annotations

from typing import Any

import pytest

from layoutkit import Principal, Workspace

AGENT = Principal.agent("claude")
USER = Principal.user("ana")
PHISH = "https://login.example-bank.test/"
FORGED_TARGET = {"id": 999, "kind": "text", "title": "Forged"}

HTML = {"src": "<!doctype html><p>hi</p>", "href": PHISH, "natW": 5000, "natH": 20}
PAGE = {"md": "# Notes", "pm": {"type": "doc", "content": []}, "pmStale": False}


@pytest.fixture
def ws(any_ws: Workspace) -> Workspace:
    any_ws.call("create", {"kind": "board", "slug": "b"})
    return any_ws


def stored(ws: Workspace, card_id: int) -> dict[str, Any]:
    with ws.store.read() as tx:
        return tx.card(card_id).payload


def compose(ws: Workspace, *cards: dict[str, Any], who: Principal = AGENT) -> dict[str, Any]:
    return ws.call("compose_board", {"board": "b", "cards": list(cards)}, who)


def in_doc(*elements: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "doc", "payload": {"title": "D", "elements": list(elements)}}


def test_compose_drops_authored_server_fields(ws: Workspace) -> None:
    (note,) = compose(ws, {"kind": "text", "payload": {"md": "target"}})["cards"]
    receipt = compose(
        ws,
        {"kind": "html", "payload": HTML},
        {"kind": "page", "payload": PAGE},
        {"kind": "ref", "payload": {"card": note["id"], "target": FORGED_TARGET}},
    )
    html, page, ref = (stored(ws, c["id"]) for c in receipt["cards"])
    assert html == {"src": HTML["src"]}
    # Authored natural sizes no longer size the card (5000 px wide would be 1600 x 6).
    assert (receipt["cards"][0]["w"], receipt["cards"][0]["h"]) != (1600, 6.4)
    assert page == {"md": "# Notes"}
    assert ref["target"]["title"] == "target" and ref["target"]["id"] == note["id"]
    dropped = {(w["index"], w["path"]) for w in receipt["warnings"] if w["code"] == "server_owned"}
    assert dropped >= {
        (0, "payload.href"),
        (0, "payload.natW"),
        (0, "payload.natH"),
        (1, "payload.pm"),
        (1, "payload.pmStale"),
        (2, "payload.target"),
    }


def test_server_fields_nested_in_a_doc_card_are_dropped(ws: Workspace) -> None:
    receipt = compose(
        ws,
        in_doc(
            {"kind": "html", "payload": HTML},
            {
                "kind": "section",
                "payload": {
                    "title": "S",
                    "elements": [
                        {"kind": "page", "payload": PAGE},
                        {"kind": "ref", "payload": {"section": "s", "target": FORGED_TARGET}},
                    ],
                },
            },
        ),
    )
    payload = stored(ws, receipt["cards"][0]["id"])
    html, section = payload["elements"]
    assert html["payload"] == {"src": HTML["src"]}
    page, ref = section["payload"]["elements"]
    assert page["payload"] == {"md": "# Notes"}
    assert "target" not in ref["payload"]


def test_a_payload_patch_cannot_set_server_fields(ws: Workspace) -> None:
    html, page, doc = (
        c["id"]
        for c in compose(
            ws,
            {"kind": "html", "payload": {"src": HTML["src"]}},
            {"kind": "page", "payload": {"md": "x"}},
            in_doc({"kind": "prose", "payload": {"md": "p"}}),
        )["cards"]
    )
    before = ws.call("scrape_board", {"board": "b"})["cards"]
    out = ws.call(
        "update_cards",
        {
            "patch": [
                {"id": html, "payload": {"href": PHISH, "natW": 5000, "natH": 20}},
                {"id": page, "payload": {"pm": PAGE["pm"], "pmStale": False}},
                {"id": doc, "payload": {"elements": [{"kind": "html", "payload": HTML}]}},
            ]
        },
        AGENT,
    )
    assert stored(ws, html) == {"src": HTML["src"]}
    assert stored(ws, page) == {"md": "x"}
    assert stored(ws, doc)["elements"][0]["payload"] == {"src": HTML["src"]}
    boxes = {c["id"]: (c["w"], c["h"]) for c in before}
    assert next(c for c in out["cards"] if c["id"] == html)["w"] == boxes[html][0]
    assert {w["index"] for w in out["warnings"] if w["code"] == "server_owned"} == {0, 1, 2}


def test_push_drops_server_fields_inside_the_doc(ws: Workspace) -> None:
    out = ws.call(
        "push_doc",
        {
            "board": "b",
            "doc": in_doc(
                {"kind": "html", "payload": HTML},
                {"kind": "page", "payload": PAGE},
            ),
        },
    )
    payload = stored(ws, out["card"])
    assert [e["payload"] for e in payload["elements"]] == [{"src": HTML["src"]}, {"md": "# Notes"}]
    assert payload["set"]["version"] == 1


def test_the_page_mirror_is_the_editors_and_goes_stale_when_md_changes(ws: Workspace) -> None:
    (card,) = compose(ws, {"kind": "page", "payload": {"md": "one"}}, who=USER)["cards"]
    mirror = {"type": "doc", "content": [{"type": "text", "text": "one"}]}
    # A person's patch is the editor's write path: it may set the mirror, which is fresh.
    ws.call("update_cards", {"patch": [{"id": card["id"], "payload": {"pm": mirror}}]}, USER)
    assert stored(ws, card["id"]) == {"md": "one", "pm": mirror, "pmStale": False}
    # md changes: the mirror stays as it was and is now stale.
    ws.call("update_cards", {"patch": [{"id": card["id"], "payload": {"md": "two"}}]}, USER)
    assert stored(ws, card["id"]) == {"md": "two", "pm": mirror, "pmStale": True}
    # Sending the payload back as read changes nothing and warns about nothing.
    read = stored(ws, card["id"])
    out = ws.call("update_cards", {"patch": [{"id": card["id"], "payload": read}]}, USER)
    assert stored(ws, card["id"]) == read and out["warnings"] == []
    # Nobody may clear the stale flag or the mirror by hand.
    ws.call(
        "update_cards",
        {"patch": [{"id": card["id"], "payload": {"pmStale": False, "pm": None}}]},
        USER,
    )
    assert stored(ws, card["id"]) == read


def test_agents_do_not_write_the_editors_fields(ws: Workspace) -> None:
    (card,) = compose(ws, {"kind": "page", "payload": {"md": "one"}})["cards"]
    ws.call("update_cards", {"patch": [{"id": card["id"], "payload": {"pm": {"x": 1}}}]}, AGENT)
    assert stored(ws, card["id"]) == {"md": "one"}


def test_uploads_keep_the_sizes_the_server_measured(ws: Workspace) -> None:
    import base64
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (640, 400), "teal").save(buf, "PNG")
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    out = ws.call("upload_files", {"board": "b", "files": [{"name": "a.png", "data": data}]})
    card_id = out["cards"][0]["id"]
    assert (stored(ws, card_id)["natW"], stored(ws, card_id)["natH"]) == (640, 400)
    # A later caption patch keeps them.
    ws.call("update_cards", {"patch": [{"id": card_id, "payload": {"caption": "c"}}]})
    assert (stored(ws, card_id)["natW"], stored(ws, card_id)["natH"]) == (640, 400)
