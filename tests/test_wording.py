"""The indefinite article of words the messages fill in (kinds, modes, sizes)."""

from __future__ import annotations

import pytest

from layoutkit.formatting import an


@pytest.mark.parametrize(
    ("word", "read"),
    [
        ("agent", "an agent"),
        ("annotate", "an annotate"),
        ("owner", "an owner"),
        ("image", "an image"),
        ("edit", "an edit"),
        ("user", "a user"),
        ("unit", "a unit"),
        ("url", "a url"),
        ("one-off", "a one-off"),
        ("umbrella", "an umbrella"),
        ("hour", "an hour"),
        ("service", "a service"),
        ("x", "an x"),
        ("8x8", "an 8x8"),
        ("1024x768", "a 1024x768"),
        ("18x2", "an 18x2"),
    ],
)
def test_an_reads_the_word_aloud(word: str, read: str) -> None:
    assert an(word) == read
