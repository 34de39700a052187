"""Addresses people follow (share links, viewer addresses) are absolute under a
server's public address, and stay server paths for embedding code without one."""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator

import pytest
from PIL import Image

from layoutkit import Workspace

PUBLIC = "https://boards.example.com/team"


@pytest.fixture
def ws() -> Iterator[Workspace]:
    with Workspace.open() as workspace:
        yield workspace


def _addresses(ws: Workspace) -> dict[str, str]:
    """Every address a person is handed by the operations that hand them out."""
    made = ws.call("create", {"kind": "board", "slug": "plan", "tags": ["roadmap"]})
    cards = ws.call(
        "compose_board", {"board": "plan", "cards": [{"kind": "note", "payload": {"md": "Hi"}}]}
    )["cards"]
    item = {
        "key": "k1",
        "cardId": cards[0]["id"],
        "cardVersion": 1,
        "region": {"nx": 0.1, "ny": 0.1, "nw": 0.2, "nh": 0.2},
        "prompt": "too small",
    }
    filed = ws.call("annotate", {"board": "plan", "agent": "codex", "items": [item]})["results"][0]
    hits = ws.call("search", {"q": "roadmap"})["groups"]
    png = io.BytesIO()
    Image.new("RGB", (40, 30), "teal").save(png, format="PNG")
    data = base64.b64encode(png.getvalue()).decode()
    ws.call("upload_files", {"board": "plan", "files": [{"name": "a.png", "data": data}]})
    scraped = ws.call("scrape_board", {"board": "plan"})
    task = ws.call("create", {"kind": "task", "title": "Ship it"})["task"]["id"]
    attached = ws.call(
        "attach_task_files", {"id": task, "filename": "plan.md", "content": "# Plan"}
    )
    return {
        "create": made["url"],
        "share": ws.call("share_board", {"board": "plan"})["url"],
        "annotate": filed["url"],
        "scrape": scraped["annotations"][0]["url"],
        "crop": filed["crop"],
        "deck": scraped["annotations"][0]["deck"]["before"]["url"],
        "image": next(c["image"] for c in scraped["cards"] if "image" in c),
        "taskFile": attached["uploaded"][0]["url"],
        "taskRef": attached["refs"][0]["url"],
        "search": hits["boards"][0]["url"],
        "tag": hits["tags"][0]["url"],
    }


def test_without_a_public_address_they_are_server_paths(ws: Workspace) -> None:
    got = _addresses(ws)
    assert got["create"] == "/boards/plan"
    assert got["share"].startswith("/s/")
    assert got["annotate"] == got["scrape"] == "/boards/plan?annotation=1"
    assert got["search"] == "/boards/plan"
    assert got["tag"] == "/?tag=roadmap"
    assert got["crop"] == got["deck"] and got["crop"].startswith("/api/v1/boards/plan/cards/")
    assert got["image"].startswith("/api/v1/cards/")
    assert got["taskFile"] == got["taskRef"] and got["taskFile"].startswith("/api/v1/tasks/")


def test_with_a_public_address_they_are_absolute_under_it(ws: Workspace) -> None:
    ws.public_url = PUBLIC
    got = _addresses(ws)
    assert got["create"] == f"{PUBLIC}/boards/plan"
    assert got["share"].startswith(f"{PUBLIC}/s/")
    assert got["annotate"] == got["scrape"] == f"{PUBLIC}/boards/plan?annotation=1"
    assert got["search"] == f"{PUBLIC}/boards/plan"
    assert got["tag"] == f"{PUBLIC}/?tag=roadmap"
    # Addresses of bytes too: a crop, a stored picture, a task's file.
    assert got["crop"] == got["deck"]
    assert got["crop"].startswith(f"{PUBLIC}/api/v1/boards/plan/cards/")
    assert got["image"].startswith(f"{PUBLIC}/api/v1/cards/")
    assert got["taskFile"] == got["taskRef"]
    assert got["taskFile"].startswith(f"{PUBLIC}/api/v1/tasks/")
    # The absolute share link still carries the token that opens the board.
    assert ws.authenticate(got["share"].rsplit("/", 1)[-1]) is not None
