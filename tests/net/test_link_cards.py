"""Link cards in a workspace: the receipt at once, the unfurl after, never clobbering."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from layoutkit import Workspace
from layoutkit.net import Unfurled, Unfurler
from layoutkit.service.boards.links import OFFLINE
from tests.net.conftest import PUBLIC, SITE

FORGED = {
    "meta": {"title": "Your bank: log in here"},
    "icon": "https://evil.example.org/bank.png",
    "framable": True,
    "shots": {"desktop": {"ref": "sha256:" + "0" * 64}},
    "error": "forged",
}


def _card(ws: Workspace, board: str, card_id: int) -> dict[str, Any]:
    cards = ws.call("scrape_board", {"board": board})["cards"]
    return next(c for c in cards if c["id"] == card_id)


def _compose_link(ws: Workspace, url: str, **payload: Any) -> int:
    receipt = ws.call(
        "compose_board",
        {"board": "b", "cards": [{"kind": "link", "payload": {"url": url, **payload}}]},
    )
    return receipt["cards"][0]["id"]


@pytest.fixture
def online(make_fetcher: Any) -> Any:
    ws = Workspace.open(unfurler=Unfurler(make_fetcher()))
    ws.call("create", {"kind": "board", "slug": "b"})
    yield ws
    ws.close()


@pytest.fixture
def offline() -> Any:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "b"})
    yield ws
    ws.close()


def test_an_air_gapped_workspace_keeps_the_bare_url_and_says_why(offline: Workspace) -> None:
    card_id = _compose_link(offline, f"http://{SITE}/", **FORGED)
    assert _card(offline, "b", card_id)["payload"] == {
        "url": f"http://{SITE}/",
        "display": "preview",
        "error": OFFLINE,
    }
    assert offline.jobs.pending == 0


def test_the_unfurl_lands_after_the_receipt_and_changes_the_board_stamp(
    online: Workspace,
) -> None:
    stamp = online.call("board_stamp", {"board": "b"})["stamp"]
    card_id = _compose_link(online, f"http://{SITE}/", **FORGED)
    assert online.jobs.drain(30)
    card = _card(online, "b", card_id)
    payload = card["payload"]
    assert payload["meta"]["title"] == "The OG title"
    assert payload["meta"]["siteName"] == "Example Site"
    assert payload["icon"].startswith("data:image/png;base64,")
    assert payload["framable"] is True
    assert payload["shots"] == {"reason": "no capture sidecar is configured"}
    assert "error" not in payload
    assert card["version"] == 2
    assert online.call("board_stamp", {"board": "b"})["stamp"] != stamp


def test_a_refused_link_gets_its_reason_and_nothing_else(online: Workspace) -> None:
    card_id = _compose_link(online, "http://169.254.169.254/latest/meta-data/")
    assert online.jobs.drain(30)
    payload = _card(online, "b", card_id)["payload"]
    assert payload["error"] == "169.254.169.254 is a link-local address"
    assert not {"meta", "icon", "framable", "shots"} & set(payload)


def test_authored_server_fields_never_survive_a_patch(online: Workspace) -> None:
    card_id = _compose_link(online, f"http://{SITE}/title")
    assert online.jobs.drain(30)
    kept = _card(online, "b", card_id)["payload"]
    online.call(
        "update_cards", {"patch": [{"id": card_id, "payload": {**FORGED, "title": "Mine"}}]}
    )
    assert online.jobs.drain(30)
    after = _card(online, "b", card_id)["payload"]
    assert after == {**kept, "title": "Mine"}


def test_a_new_url_is_fetched_again(online: Workspace) -> None:
    card_id = _compose_link(online, f"http://{SITE}/title")
    assert online.jobs.drain(30)
    online.call("update_cards", {"patch": [{"id": card_id, "payload": {"url": f"http://{SITE}/"}}]})
    assert online.jobs.drain(30)
    assert _card(online, "b", card_id)["payload"]["meta"]["title"] == "The OG title"


def test_a_new_url_on_an_air_gapped_install_clears_the_old_unfurl(offline: Workspace) -> None:
    card_id = _compose_link(offline, f"http://{SITE}/")
    offline.call(
        "update_cards", {"patch": [{"id": card_id, "payload": {"url": "https://a.example.org/"}}]}
    )
    payload = _card(offline, "b", card_id)["payload"]
    assert payload["url"] == "https://a.example.org/" and payload["error"] == OFFLINE


class _Gated:
    """An unfurler that waits for the test before answering, and counts its calls."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.urls: list[str] = []

    def unfurl(self, url: str) -> Unfurled:
        self.urls.append(url)
        assert self.go.wait(30)
        return Unfurled({"meta": {"url": url, "title": f"title of {url}"}, "framable": False})


@pytest.fixture
def gated() -> Any:
    gate = _Gated()
    ws = Workspace.open(unfurler=gate)  # type: ignore[arg-type]
    ws.call("create", {"kind": "board", "slug": "b"})
    yield ws, gate
    gate.go.set()
    ws.close()


def test_the_receipt_does_not_wait_for_the_fetch(gated: Any) -> None:
    ws, gate = gated
    card_id = _compose_link(ws, "https://one.example.org/")
    # The fetch is still held at the gate, yet the card is stored and readable.
    assert "meta" not in _card(ws, "b", card_id)["payload"]
    gate.go.set()
    assert ws.jobs.drain(30)
    assert (
        _card(ws, "b", card_id)["payload"]["meta"]["title"] == "title of https://one.example.org/"
    )


def test_an_edit_made_while_fetching_is_kept(gated: Any) -> None:
    ws, gate = gated
    card_id = _compose_link(ws, "https://one.example.org/")
    ws.call("update_cards", {"patch": [{"id": card_id, "payload": {"display": "widget"}}]})
    gate.go.set()
    assert ws.jobs.drain(30)
    payload = _card(ws, "b", card_id)["payload"]
    assert payload["display"] == "widget" and payload["meta"]["title"].endswith("one.example.org/")


def test_a_url_changed_while_fetching_drops_the_stale_unfurl(gated: Any) -> None:
    ws, gate = gated
    card_id = _compose_link(ws, "https://one.example.org/")
    ws.call(
        "update_cards", {"patch": [{"id": card_id, "payload": {"url": "https://two.example.org/"}}]}
    )
    gate.go.set()
    assert ws.jobs.drain(30)
    payload = _card(ws, "b", card_id)["payload"]
    assert payload["url"] == "https://two.example.org/"
    assert payload["meta"]["title"] == "title of https://two.example.org/"
    assert gate.urls == ["https://one.example.org/", "https://two.example.org/"]


def test_a_card_removed_while_fetching_stays_removed_and_unchanged(gated: Any) -> None:
    ws, gate = gated
    notes = [{"kind": "note", "payload": {"md": f"note {i}"}} for i in range(4)]
    ws.call("compose_board", {"board": "b", "cards": notes})  # one card of five: no confirm
    card_id = _compose_link(ws, "https://one.example.org/")
    ws.call("update_cards", {"remove": [card_id]})
    gate.go.set()
    assert ws.jobs.drain(30)
    with ws.store.read() as tx:
        card = tx.card(card_id)
    assert card is not None and card.deleted and "meta" not in card.payload


def test_the_unfurl_lands_on_every_backend(any_ws: Workspace, make_fetcher: Any) -> None:
    any_ws.unfurler = Unfurler(make_fetcher())
    any_ws.call("create", {"kind": "board", "slug": "b"})
    card_id = _compose_link(any_ws, f"http://{SITE}/title")
    assert any_ws.jobs.drain(30)
    card = _card(any_ws, "b", card_id)
    assert card["payload"]["meta"]["title"] == "Only a title" and card["version"] == 2


def test_sending_the_same_url_again_retries_a_card_that_was_not_fetched(
    make_fetcher: Any,
) -> None:
    table: dict[str, Any] = {"later.example.net": []}  # no address yet: unresolved
    ws = Workspace.open(unfurler=Unfurler(make_fetcher(table)))
    try:
        ws.call("create", {"kind": "board", "slug": "b"})
        card_id = _compose_link(ws, "http://later.example.net/title")
        assert ws.jobs.drain(30)
        assert "has no address" in _card(ws, "b", card_id)["payload"]["error"]
        ws.unfurler.fetcher.resolver.table["later.example.net"] = [PUBLIC]  # type: ignore[union-attr]
        ws.call(
            "update_cards",
            {"patch": [{"id": card_id, "payload": {"url": "http://later.example.net/title"}}]},
        )
        assert ws.jobs.drain(30)
        payload = _card(ws, "b", card_id)["payload"]
        assert payload["meta"]["title"] == "Only a title" and "error" not in payload
    finally:
        ws.close()


def test_a_server_that_starts_again_fetches_the_links_whose_fetch_never_landed(
    tmp_path: Any, make_fetcher: Any
) -> None:
    db = f"sqlite:///{tmp_path / 'ws.db'}"
    with Workspace.open(db) as first:
        first.call("create", {"kind": "board", "slug": "b"})
        card_id = _compose_link(first, f"http://{SITE}/title")
        done = _compose_link(first, f"http://{SITE}/")
        # As a server killed mid-fetch leaves it: the URL and nothing else.
        with first.store.transaction() as tx:
            tx.update_cards([{"id": card_id, "payload": {"url": f"http://{SITE}/title"}}])
    with Workspace.open(db, unfurler=Unfurler(make_fetcher())) as again:
        assert again.resume("links") == 1
        assert again.jobs.drain(30)
        assert _card(again, "b", card_id)["payload"]["meta"]["title"] == "Only a title"
        assert _card(again, "b", done)["payload"]["error"] == OFFLINE  # left alone
    with Workspace.open(db) as offline:
        assert offline.resume("links") == 0
