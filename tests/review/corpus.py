"""Where the shared screenshot corpus lives, and how tests read it.

The corpus (``shared/corpus/screens`` beside the repository) is not vendored:
its 24 PNGs weigh 5 MB. Tests that need it skip with a reason when it is
absent; ``LAYOUTKIT_SCREENS_CORPUS`` points elsewhere (a worktree, say).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCREENS = Path(
    os.environ.get("LAYOUTKIT_SCREENS_CORPUS") or REPO.parent / "shared" / "corpus" / "screens"
)
needs_corpus = pytest.mark.skipif(
    not (SCREENS / "desk__base.png").is_file(),
    reason="shared screenshot corpus not found next to the repo (set LAYOUTKIT_SCREENS_CORPUS)",
)
#: pixelmatch 7's counts on the corpus pairs; "how" in the file says how they were made.
COUNTS = json.loads((Path(__file__).with_name("pixelmatch_counts.json")).read_text("utf-8"))
SCREEN_NAMES = ("desk", "phone")
VARIANTS = (
    "identical",
    "reencode",
    "size",
    "aa_mild",
    "aa_subpx",
    "shift1px",
    "label",
    "photo5",
    "table20",
    "scroll40",
    "theme",
)


def read(screen: str, variant: str) -> bytes:
    return (SCREENS / f"{screen}__{variant}.png").read_bytes()
