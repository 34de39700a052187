"""The one comparison key for names people type: section titles, tags and search text.

Two spellings that differ only in case, diacritics or spacing name the same
thing, so every lookup that matches a typed name folds both sides with
:func:`fold`. (Anchor ids are another rule, ASCII only: ``elements.slugify``.)
"""

from __future__ import annotations

import unicodedata


def fold(text: str) -> str:
    """``text`` without case, diacritics or extra spacing: ``fold(" Café  Ideas") == "cafe ideas"``.

    Letters of scripts without case or accents (CJK, say) are kept as they are,
    so text in any script still matches itself.
    """
    if text.isascii():
        # Most text is ASCII: nothing to decompose, and casefold is lower there
        # (eight times faster, and index builds fold every document).
        return " ".join(text.lower().split())
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(bare.casefold().split())
