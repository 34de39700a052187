"""Near-duplicates: the perceptual hash, its distance, and groups with their baselines."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit.review.diff import Pixels, decode
from layoutkit.review.neardup import (
    MAX_DISTANCE,
    DupGroup,
    group_near_duplicates,
    hash_distance,
    perceptual_hash,
)
from tests.review.corpus import SCREEN_NAMES, needs_corpus, read

H0 = "0" * 64


def bits(n: int) -> str:
    """A hash n bits away from H0."""
    return f"{(1 << n) - 1:064x}"


def test_the_hash_is_256_bits_in_hex_and_reads_every_image_form() -> None:
    rng = np.random.default_rng(0)
    rgba = rng.integers(0, 256, (60, 80, 4), dtype=np.uint8)
    rgba[..., 3] = 255
    digest = perceptual_hash(rgba)
    assert len(digest) == 64 and int(digest, 16) >= 0
    assert perceptual_hash(Pixels.from_rgba(rgba)) == digest


def test_distance_counts_differing_bits() -> None:
    assert hash_distance(H0, H0) == 0
    assert hash_distance(H0, bits(5)) == 5
    assert hash_distance(bits(3), bits(5)) == 2


def test_groups_stay_within_their_key() -> None:
    groups = group_near_duplicates([("phone", H0), ("desk", H0), ("phone", bits(1))])
    assert groups == [DupGroup("phone", 0, (0, 2)), DupGroup("desk", 1, (1,))]


def test_the_baseline_is_the_earliest_and_the_distance_is_measured_to_it() -> None:
    items = [("k", bits(10)), ("k", bits(10 + MAX_DISTANCE)), ("k", bits(10 + MAX_DISTANCE + 1))]
    groups = group_near_duplicates(items)
    # The second is within reach of the first; the third is not, though it is one
    # bit from the second: members do not chain.
    assert groups == [DupGroup("k", 0, (0, 1)), DupGroup("k", 2, (2,))]
    assert groups[0].others == (1,)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("ab"), st.integers(0, 256)), max_size=25))
def test_adding_a_later_capture_never_moves_a_baseline(raw: list[tuple[str, int]]) -> None:
    items = [(k, bits(n)) for k, n in raw]
    before = group_near_duplicates(items)
    after = group_near_duplicates([*items, ("a", bits(7))])
    assert [g.baseline for g in before] == [g.baseline for g in after][: len(before)]
    assert sorted(p for g in after for p in g.members) == list(range(len(items) + 1))


@needs_corpus
@pytest.mark.parametrize("screen", SCREEN_NAMES)
def test_corpus_edits_group_with_their_base_and_a_theme_does_not(screen: str) -> None:
    variants = ["base", "label", "photo5", "table20", "shift1px", "aa_subpx", "theme"]
    items = [(screen, perceptual_hash(decode(read(screen, v)))) for v in variants]
    groups = group_near_duplicates(items)
    assert groups[0].baseline == 0 and groups[0].members == (0, 1, 2, 3, 4, 5)
    assert groups[1] == DupGroup(screen, 6, (6,))
