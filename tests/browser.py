"""Headless Chromium for the browser tests (Debian's chromium package).

Tests that need it skip with a reason when it is not installed.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from layoutkit.net._capture import HEADLESS_FLAGS

CHROMIUM = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else shutil.which("chromium")
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
SKIP_REASON = "headless Chromium not installed (install Debian's chromium package)"


def run_chromium(*args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    """Run Chromium headless with a throw-away profile and no background traffic."""
    if CHROMIUM is None:
        raise RuntimeError(SKIP_REASON)
    with tempfile.TemporaryDirectory(prefix="layoutkit-chromium-") as profile:
        cmd = [
            str(CHROMIUM),
            *HEADLESS_FLAGS,
            "--hide-scrollbars",
            "--force-color-profile=srgb",
            f"--user-data-dir={profile}",
            *args,
        ]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)


def playwright_browser() -> Iterator[Any]:
    """Playwright driving Debian's Chromium (no browser download of its own); skips
    the test when either is missing."""
    if CHROMIUM is None:
        pytest.skip(SKIP_REASON)
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')"
    )
    with sync_api.sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=str(CHROMIUM), args=["--force-color-profile=srgb"]
        )
        try:
            yield browser
        finally:
            browser.close()
