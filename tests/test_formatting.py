"""How sizes and numbers read on faces."""

from __future__ import annotations

import pytest

from layoutkit.formatting import fmt_bytes


@pytest.mark.parametrize(
    ("size", "shown"),
    [
        (0, "0 B"),
        (14, "14 B"),  # a small file is bytes, never "0 KB"
        (1023, "1,023 B"),
        (1024, "1.0 KB"),
        (1536, "1.5 KB"),
        (20 * 1024, "20 KB"),
        (5.1 * 1024**2, "5.1 MB"),
        (25 * 1024**2, "25 MB"),
        (3 * 1024**3, "3.0 GB"),
    ],
)
def test_file_sizes_read_in_the_unit_that_fits(size: float, shown: str) -> None:
    assert fmt_bytes(size) == shown
