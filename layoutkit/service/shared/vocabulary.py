"""The workspace's own words, as search corrects a misspelt one (search rule 3).

Both search and resolving a task reference correct words against the same
vocabulary, so the rule lives below both.
"""

from __future__ import annotations

from collections.abc import Mapping

from rapidfuzz import process
from rapidfuzz.distance import OSA

from layoutkit.search_text import MAX_WORD, MIN_WORD
from layoutkit.storage import Tx

#: Nearest vocabulary words searched for one misspelt word.
MAX_CORRECTIONS = 3
#: A word the vocabulary has is corrected all the same when it is rare, held by at
#: most RARE_DOCS documents, and a near word is held by RARE times as many
#: (see :func:`nearest_words`).
RARE = 5
RARE_DOCS = 2


def nearest_words(
    tx: Tx, workspace_id: int, word: str, held: Mapping[str, int] | None = None
) -> tuple[str, ...]:
    """The vocabulary words nearest ``word``, when it is misspelt.

    A word is misspelt when it starts no vocabulary word, or when it is a rare
    word (at most :data:`RARE_DOCS` documents) beside a near one :data:`RARE`
    times as common: typos sit in the rows too, and one row holding the typo
    must not hide the many that hold the word meant. ``held`` gives what
    :meth:`vocabulary_counts` read for several words at once; a word it lacks is
    looked up alone.
    """
    if not MIN_WORD <= len(word) <= MAX_WORD:
        return ()
    own = (
        held[word] if held is not None and word in held else tx.vocabulary_word(workspace_id, word)
    )
    if own == 0 or (own or 0) > RARE_DOCS:
        return ()
    most = 2 if len(word) >= 8 else 1
    near = tx.vocabulary_near(
        workspace_id, word[0], len(word) - most, len(word) + most, min_docs=RARE * (own or 0) or 1
    )
    near.pop(word, None)
    found = process.extract(word, list(near), scorer=OSA.distance, score_cutoff=most, limit=None)
    if not found:
        return ()
    best = min(score for _, score, _ in found)
    closest = [w for w, score, _ in found if score == best]
    # Among equally near words the more common one is the likelier meaning.
    return tuple(sorted(closest, key=lambda w: (-near[w], w))[:MAX_CORRECTIONS])
