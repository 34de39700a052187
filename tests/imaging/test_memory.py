"""What one request on a huge picture costs in memory, measured where nothing else ran:
a child process that uploads the 9,400 x 9,400 PNG, then reads its peak resident size
before and after asking for the card image, a region of it and the board as PNG. The
renditions are not made (the job is switched off), so each answer decodes the original:
the worst case, a picture stored before renditions existed. Decoded whole it took
1.1 GB; the bound is 256 MiB over what the process held before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_CHILD = """
import base64, json, resource
from layoutkit import Workspace
from layoutkit.service.uploads import renditions
from tests import pngs

renditions.schedule = lambda workspace, keys: None
data = pngs.huge_png()
peaks = {}
with Workspace.open() as ws:
    ws.call("create", {"kind": "board", "slug": "b"})
    files = [{"name": "huge.png", "data": base64.b64encode(data).decode()}]
    card = ws.call("upload_files", {"board": "b", "files": files})["cards"][0]["id"]
    peaks["before"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    whole = ws.call("get_card_image", {"board": "b", "cardId": card})
    region = {"x": 9000, "y": 8000, "w": 100, "h": 100}
    crop = ws.call("get_card_image", {"board": "b", "cardId": card, "region": region})
    ws.call("render_board", {"board": "b", "format": "png"})
    peaks["after"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peaks["sizes"] = [whole["width"], whole["imageWidth"], crop["width"], crop["imageWidth"]]
print(json.dumps(peaks))
"""


def test_one_request_on_a_huge_picture_stays_under_256_mib() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    peaks = json.loads(done.stdout.strip().splitlines()[-1])
    assert peaks["sizes"] == [1600, 9400, 100, 9400]
    grown_kib = peaks["after"] - peaks["before"]  # ru_maxrss is in KiB on Linux
    assert grown_kib < 256 * 1024, f"the requests grew the peak by {grown_kib // 1024} MiB"
