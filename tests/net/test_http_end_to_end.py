"""A link card through the real HTTP server: the receipt at once, the unfurl live."""

from __future__ import annotations

from typing import Any

from layoutkit import Workspace
from layoutkit.adapters.http import create_app
from layoutkit.net import Unfurler
from tests.adapters.conftest import Api, LiveServer
from tests.net.conftest import SITE


def test_compose_over_http_then_the_viewer_sees_the_unfurl(make_fetcher: Any) -> None:
    ws = Workspace.open(unfurler=Unfurler(make_fetcher()))
    try:
        with LiveServer(create_app(ws)) as server:
            api = Api(ws, server)
            assert api.op("create", {"kind": "board", "slug": "links"}).status_code == 200
            stamp = api.op("board_stamp", {"board": "links"}).json()["stamp"]
            composed = api.client.post(
                "/api/v1/boards/links/compose",
                json={"cards": [{"kind": "link", "payload": {"url": f"http://{SITE}/"}}]},
            )
            assert composed.status_code == 200, composed.text
            assert ws.jobs.drain(30)
            # What the viewer polls changed, and what it draws carries the unfurl.
            assert api.op("board_stamp", {"board": "links"}).json()["stamp"] != stamp
            card = api.op("scrape_board", {"board": "links"}).json()["cards"][0]
            assert card["payload"]["meta"]["title"] == "The OG title"
            svg = api.op("render_board", {"board": "links"}).json()["svg"]
            assert "The OG title" in svg and "Example Site" in svg
            api.client.close()
    finally:
        ws.close()
