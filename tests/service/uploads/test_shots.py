"""Kind shot: the screenshots of a pushed set, listed per version with device and
theme filters, read one by one with the URL of their image, and named the way
attach_after names an after-shot (docs/annotations.md, Shots of a pushed set)."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image, ImageDraw

from layoutkit import Principal, Workspace
from layoutkit.storage import blob_key
from tests.service.helpers import err
from tests.service.review.test_annotations import filed, verdict
from tests.service.uploads.test_push import CART, HOME, doc, entry, png, prose

DARK = png(390, 844, "black")
AGENT = Principal.agent("claude")


@pytest.fixture
def ws() -> Workspace:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "docs"})
    return ws


def _push(ws: Workspace, shots: list[Any], files: list[dict[str, Any]], **extra: Any) -> dict:
    return ws.call(
        "push_doc",
        {"board": "docs", "doc": doc(prose("x")), "files": files, "shots": shots, **extra},
    )


def _set(ws: Workspace) -> dict:
    return _push(
        ws,
        [
            {"file": "home.png", "device": "desktop", "theme": "light"},
            {"file": "cart.png", "device": "phone", "theme": "light"},
            {"file": "cart-dark.png", "device": "phone", "theme": "dark"},
        ],
        [entry("home.png", HOME), entry("cart.png", CART), entry("cart-dark.png", DARK)],
    )


def test_list_shows_the_latest_version_and_filters_by_device_and_theme(ws: Workspace) -> None:
    first = _set(ws)
    second = _push(ws, ["home.png"], [entry("home.png", HOME)])
    latest = ws.call("list", {"kind": "shot", "board": "docs"})
    assert latest["version"] == second["version"] == 2
    assert [(s["name"], s["device"]) for s in latest["shots"]] == [("home.png", None)]
    older = ws.call("list", {"kind": "shot", "board": "docs", "version": first["version"]})
    assert [s["name"] for s in older["shots"]] == ["home.png", "cart.png", "cart-dark.png"]
    phones = ws.call("list", {"kind": "shot", "board": "docs", "version": 1, "device": "phone"})[
        "shots"
    ]
    assert [s["name"] for s in phones] == ["cart.png", "cart-dark.png"]
    dark = ws.call(
        "list", {"kind": "shot", "board": "docs", "version": 1, "device": "phone", "theme": "dark"}
    )["shots"]
    assert [(s["name"], s["ref"]) for s in dark] == [("cart-dark.png", blob_key(DARK))]
    assert dark[0]["imageUrl"] == f"/api/v1/cards/{first['card']}/blobs/{blob_key(DARK)}"


def test_get_reads_one_shot_whose_url_serves_its_bytes(ws: Workspace) -> None:
    made = _set(ws)
    shot = ws.call("get", {"kind": "shot", "board": "docs", "name": "cart-dark.png"})["shot"]
    assert (shot["width"], shot["height"], shot["mime"]) == (390, 844, "image/png")
    assert (shot["device"], shot["theme"], shot["version"]) == ("phone", "dark", 1)
    assert shot["card"] == made["card"]
    # The URL's card and key are what card_blob (the route behind it) takes.
    blob = ws.call("card_blob", {"id": shot["card"], "key": shot["ref"], "data": False})
    assert blob["key"] == blob_key(DARK)


def test_the_shot_names_what_attach_after_takes(ws: Workspace) -> None:
    _set(ws)
    # A shot pushed by blob ref alone is named by its position, and attach_after takes it.
    _push(ws, [{"ref": blob_key(CART), "device": "tablet"}], [], branch="fix")
    ws.call("create", {"kind": "board", "slug": "rev"})
    (finding,) = filed(ws)
    verdict(ws, "accept", [finding])
    shot = ws.call("get", {"kind": "shot", "board": "docs", "name": "shot-1", "branch": "fix"})
    assert shot["shot"]["device"] == "tablet"
    after = ws.call("attach_after", {"id": finding, **shot["shot"]["attachAfter"]})
    attempt = after["deck"]["attempts"][-1]
    assert (attempt["file"], attempt["ref"], attempt["branch"]) == ("shot-1", blob_key(CART), "fix")


def test_sets_pushed_before_shot_names_still_list(ws: Workspace) -> None:
    made = _set(ws)
    with ws.store.transaction() as tx:
        card = tx.card(made["card"])
        stamp = {k: v for k, v in card.payload["set"].items() if k != "shotMeta"}
        tx.update_rows("cards", [{"id": card.id, "payload": {**card.payload, "set": stamp}}])
    shots = ws.call("list", {"kind": "shot", "board": "docs"})["shots"]
    assert [(s["name"], s["device"]) for s in shots] == [
        ("home.png", None),
        ("cart.png", None),
        ("cart-dark.png", None),
    ]


def test_refusals(ws: Workspace) -> None:
    empty = err(ws, "list", {"kind": "shot", "board": "docs"})
    assert (empty.status, empty.code, empty.body["field"]) == (
        404,
        "unknown_set_version",
        "version",
    )
    _set(ws)
    gone = err(ws, "list", {"kind": "shot", "board": "docs", "version": 7})
    assert (gone.status, gone.code, gone.body["versions"]) == (404, "unknown_set_version", [1])
    miss = err(ws, "get", {"kind": "shot", "board": "docs", "name": "cart.pgn"})
    assert (miss.status, miss.code, miss.body["field"]) == (404, "unknown_shot", "name")
    assert miss.body["didYouMean"][0] == "cart.png"
    bad = err(ws, "list", {"kind": "shot", "board": "docs", "device": "watch"})
    assert (bad.status, bad.code, bad.body["field"]) == (400, "invalid_params", "device")
    nowhere = err(ws, "get", {"kind": "shot", "board": "nope", "name": "x"})
    assert (nowhere.status, nowhere.code) == (404, "unknown_board")
    # A share link of the board reads its shots; one of another board does not.
    ws.call("create", {"kind": "board", "slug": "other"})
    assert ws.call("list", {"kind": "shot", "board": "docs"}, Principal.share("docs"))["shots"]
    other = err(ws, "list", {"kind": "shot", "board": "docs"}, Principal.share("other"))
    assert other.status == 403


def test_the_step_card_of_a_shot_is_a_screen_the_review_plan_judges(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "journey", "project": "app"})
    screen = Image.new("RGB", (390, 844), "white")
    ImageDraw.Draw(screen).rectangle((20, 40, 370, 120), fill="navy")
    buf = io.BytesIO()
    screen.save(buf, "PNG")
    ws.call(
        "push_doc",
        {
            "board": "journey",
            "doc": doc(prose("x")),
            "files": [entry("home.png", buf.getvalue())],
            "shots": [{"file": "home.png", "device": "phone"}],
        },
    )
    shot = ws.call("get", {"kind": "shot", "board": "journey", "name": "home.png"})["shot"]
    assert shot["step"] == {"kind": "step", "payload": {"image": shot["ref"], "title": "home.png"}}
    card = ws.call("compose_board", {"board": "journey", "cards": [shot["step"]]})["cards"][0]
    plan = ws.call("review_plan", {"boards": ["journey"], "cards": [card["id"]]}, AGENT)
    assert plan["planned"]["judge"] == 1 and plan["gaps"] == []
