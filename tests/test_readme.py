"""The README stands on its own: every file it names is inside the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: `dir/file` style names in backticks; addresses, URLs and placeholders do not
#: match, nor ./names, which are files the program writes where it runs.
_PATH = re.compile(r"`(?!\./)([\w.-]+(?:/[\w.-]+)+/?)`")
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_readme_names_no_file_outside_the_repository() -> None:
    assert "../" not in README


def test_every_path_the_readme_names_exists() -> None:
    named = _PATH.findall(README) + [
        t for t in _LINK.findall(README) if not re.match(r"[a-z]+:|#", t)
    ]
    assert named, "the README names no paths; is the pattern still right?"
    missing = [p for p in named if not (ROOT / p).exists()]
    assert not missing, missing


def test_the_limits_table_is_the_one_in_the_code() -> None:
    from layoutkit.limits import LIMITS

    rows = re.findall(r"^\| (`[^|]+`) \| ([^|]+) \|", README, re.M)
    shown: dict[str, str] = {}
    for names, values in rows:
        keys = re.findall(r"`(\w+)`", names)
        vals = [v.strip() for v in values.split(",")]
        if len(keys) == len(vals) and all(k in LIMITS for k in keys):
            shown.update(zip(keys, vals, strict=True))
    assert shown == {k: str(v) for k, v in LIMITS.items()}
