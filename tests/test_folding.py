"""The comparison key for typed names (section titles, tags, search text)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutkit.folding import fold


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("  Résumé  Draft ", "resume draft"),
        ("Café\tIdeas", "cafe ideas"),
        ("Straße", "strasse"),
        ("ÅNGSTRÖM", "angstrom"),
        # A script without case or accents keeps its letters, so it still matches itself.
        ("日本 語", "日本 語"),
        ("Søren", "søren"),
        ("", ""),
    ],
)
def test_fold_drops_case_diacritics_and_extra_spacing_only(text: str, folded: str) -> None:
    assert fold(text) == folded
    assert fold(folded) == folded


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_the_ascii_shortcut_folds_as_the_whole_rule_does(text: str) -> None:
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    assert fold(text) == " ".join(bare.casefold().split())
