"""The board viewer in headless Chromium: every card of the board is drawn."""

from __future__ import annotations

import re

import pytest

from layoutkit.adapters.http import seed_example
from tests.adapters.conftest import Api
from tests.browser import ARTIFACTS, CHROMIUM, SKIP_REASON, run_chromium

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON),
]


def test_viewer_draws_every_card(api: Api) -> None:
    slug = seed_example(api.ws)
    cards = api.op("scrape_board", {"board": slug}).json()["cards"]
    page = f"{api.url}/boards/{slug}?token={api.token}"
    dom = run_chromium("--dump-dom", "--virtual-time-budget=8000", page)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-ready="1"' in dom.stdout, dom.stdout[-2000:]
    assert f'data-cards="{len(cards)}"' in dom.stdout
    drawn = {int(i) for i in re.findall(r'data-card-id="(\d+)"', dom.stdout)}
    assert drawn == {c["id"] for c in cards}

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "viewer-welcome.png"
    result = run_chromium(
        f"--screenshot={shot}", "--window-size=1600,1000", "--virtual-time-budget=8000", page
    )
    assert shot.exists() and shot.stat().st_size > 10_000, result.stderr[-2000:]


def test_share_link_opens_the_viewer(api: Api) -> None:
    slug = seed_example(api.ws)
    url = api.op("share_board", {"board": slug}).json()["url"]
    dom = run_chromium("--dump-dom", "--virtual-time-budget=8000", f"{api.url}{url}")
    assert 'data-ready="1"' in dom.stdout, dom.stdout[-2000:]
