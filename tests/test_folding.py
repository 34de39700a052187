"""The comparison key for typed names (section titles, tags, search text)."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutkit.folding import fold
from layoutkit.search_text import MAX_WORD, MIN_WORD, index_text, vocabulary_words


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


_NOT_WORD = re.compile(r"[\W_]+")


@given(st.text(max_size=200) | st.text(alphabet=st.characters(max_codepoint=127), max_size=200))
def test_index_text_and_vocabulary_words_keep_their_definition(text: str) -> None:
    # The fast paths (a translation table for ASCII, distinct words first) answer as
    # the rule reads: fold, every run of non-word characters or underscores a space,
    # and vocabulary words letters only, MIN_WORD to MAX_WORD long.
    indexed = index_text(text)
    assert indexed == " ".join(_NOT_WORD.sub(" ", fold(text)).split())
    assert vocabulary_words(indexed) == {
        w for w in indexed.split() if MIN_WORD <= len(w) <= MAX_WORD and w.isalpha()
    }
