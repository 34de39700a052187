"""Finding sections by name and journeys by key.

Two section names are the *same* only when they are equal as written. They
*nearly match* when, once folded (case, diacritics, spacing), they are equal,
or they differ by a small typo: an edit distance, with a swap of two
neighbouring letters counting as one edit, of 1 for names up to 6 characters,
2 up to 12 and 3 beyond. Two guards keep distinct sections apart: names whose
numbers differ ("Step 1" / "Step 2", "Q1" / "Q2", "Research" / "Research 2")
never nearly match, and names of 3 folded characters or fewer nearly match
only when they fold to the same text. A near match stops a batch with
``section_near_match`` unless the author forces a new section.
"""

from __future__ import annotations

import re

from layoutkit.errors import LayoutError
from layoutkit.folding import fold
from layoutkit.layout.model import Board, Card

#: Folded names this short are too short for typo matching: one edit is most of the name.
SHORT_NAME = 3

_NUMBER = re.compile(r"\d+")


def edit_distance(a: str, b: str, cap: int = 4) -> int:
    """Edit distance where inserting, deleting or changing a character, or swapping two
    neighbouring ones, costs 1 (optimal string alignment); gives up with ``cap`` once
    the distance reaches it."""
    if abs(len(a) - len(b)) >= cap:
        return cap
    before: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            d = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                d = min(d, before[j - 2] + 1)
            cur.append(d)
        if min(cur) >= cap:
            return cap
        before, prev = prev, cur
    return min(prev[-1], cap)


def _allowed_distance(name: str) -> int:
    n = len(name)
    return 1 if n <= 6 else 2 if n <= 12 else 3


def _numbers(folded: str) -> list[int]:
    return [int(n) for n in _NUMBER.findall(folded)]


def _canonical(folded: str) -> str:
    # "Step 01" and "Step 1" carry the same number; compare them as written the same way.
    return _NUMBER.sub(lambda m: str(int(m.group())), folded)


def nearly_matches(name: str, other: str) -> bool:
    """True when ``name`` and ``other`` nearly match (see the module doc); equal names
    are not a near match. Symmetric in its two arguments."""
    if name == other:
        return False
    a, b = fold(name), fold(other)
    if a == b:
        return True
    if min(len(a), len(b)) <= SHORT_NAME or _numbers(a) != _numbers(b):
        return False
    a, b = _canonical(a), _canonical(b)
    return edit_distance(a, b) <= _allowed_distance(min(a, b, key=len))


def section_title(card: Card) -> str:
    t = card.payload.get("title")
    return t if isinstance(t, str) else ""


def find_section(board: Board, name: str) -> Card | None:
    """The oldest section titled exactly ``name``."""
    for s in board.sections():
        if section_title(s) == name:
            return s
    return None


def near_sections(board: Board, name: str) -> list[str]:
    """Titles of sections that nearly match ``name``, oldest first, without repeats."""
    out: list[str] = []
    for s in board.sections():
        t = section_title(s)
        if t and nearly_matches(name, t) and t not in out:
            out.append(t)
    return out


def require_section(board: Board, name: str) -> Card:
    """The section titled ``name``; raises ``unknown_section`` with ``didYouMean``."""
    found = find_section(board, name)
    if found is None:
        raise LayoutError(
            "unknown_section",
            f"no section titled {name!r} on this board",
            didYouMean=near_sections(board, name),
        )
    return found


def journey_passes(board: Board, key: str) -> list[Card]:
    """Pass sections of journey ``key`` ordered by pass number."""
    passes = [
        s
        for s in board.sections()
        if s.payload.get("journey") == key and isinstance(s.payload.get("pass"), int)
    ]
    passes.sort(key=lambda s: s.payload["pass"])
    return passes


def adoptable_section(board: Board, key: str) -> Card | None:
    """A plain section (no journey) whose title matches ``key`` case- and accent-blind."""
    folded = fold(key)
    for s in board.sections():
        if "journey" not in s.payload and fold(section_title(s)) == folded:
            return s
    return None


def pass_title(key: str, number: int) -> str:
    """Title of a journey pass: the key for pass 1, ``"<key> · pass <n>"`` after."""
    return key if number == 1 else f"{key} · pass {number}"
