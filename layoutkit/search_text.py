"""What the search index holds of each row, as plain text both backends tokenise alike.

Every indexed row (a task, board, card, annotation or tag) becomes one document
with a ``title`` and a ``body``. Both are folded (:func:`layoutkit.folding.fold`:
no case, no diacritics) and reduced to words of letters and digits joined by
single spaces, so SQLite FTS5 (``unicode61``) and PostgreSQL (``to_tsvector``
with the ``simple`` configuration) cut them into the same tokens: punctuation,
dashes, slashes and underscores all separate words on both.

The vocabulary of typo correction (search rule 3) is read from the same text:
its letters-only words of :data:`MIN_WORD` or more letters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from layoutkit.folding import fold

#: The task event a comment is filed as; its ``detail.text`` is what was said.
COMMENT_ACTION = "comment"
#: Shortest word the vocabulary keeps (shorter words are never corrected).
MIN_WORD = 4
#: Longest word kept in the vocabulary; longer runs are identifiers, not words.
MAX_WORD = 40
#: Card payload keys whose strings are read (what a person wrote on the card).
CARD_TEXT_KEYS = frozenset(
    {"title", "md", "text", "label", "caption", "state", "url", "name", "body", "summary", "alt"}
)
#: Payload branches that hold data or geometry rather than prose.
_SKIPPED_KEYS = frozenset({"geo", "data", "rows", "src", "files", "href"})
#: Most strings read from one card payload (a huge table must not make a huge document).
_MAX_PARTS = 2000
_NOT_WORD = re.compile(r"[\W_]+")
#: ASCII that is no letter or digit, as a space: the ASCII path of :func:`index_text`.
_ASCII_GAPS = str.maketrans({chr(i): " " for i in range(128) if not chr(i).isalnum()})

#: Card kinds that answer in their own group of search rather than ``cards``.
CARD_GROUPS = {"page": "pages", "media": "shots", "figure": "shots", "gallery": "shots"}
#: Boards of this subgroup answer as ``sessions`` rather than ``boards``.
SESSION_SUBGROUP = "sessions"


def index_text(text: str) -> str:
    """``text`` folded and reduced to words of letters and digits, space-separated."""
    if text.isascii():
        # Most text: a translation table does what fold and the regex do, several
        # times faster (an index build reads every document's text).
        return " ".join(text.lower().translate(_ASCII_GAPS).split())
    return " ".join(_NOT_WORD.sub(" ", fold(text)).split())


def tokens(text: str) -> list[str]:
    """The index tokens of ``text`` in order (what a query word must prefix)."""
    return index_text(text).split()


def vocabulary_words(indexed: str) -> set[str]:
    """The words of an indexed text that typo correction may correct towards."""
    return {w for w in set(indexed.split()) if is_vocabulary_word(w)}


def is_vocabulary_word(word: str) -> bool:
    """Whether ``word`` (an index token) is one typo correction may correct towards:
    letters only, :data:`MIN_WORD` to :data:`MAX_WORD` long."""
    return MIN_WORD <= len(word) <= MAX_WORD and word.isalpha()


def card_parts(payload: Mapping[str, Any]) -> list[str]:
    """The strings of a card payload a person reads, in payload order."""
    parts: list[str] = []
    stack: list[Any] = [payload]
    while stack and len(parts) < _MAX_PARTS:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in reversed(list(node.items())):
                if (key in CARD_TEXT_KEYS and isinstance(value, str)) or (
                    isinstance(value, dict | list) and key not in _SKIPPED_KEYS
                ):
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(reversed(node))
        elif isinstance(node, str):
            parts.append(node)
    return parts


def card_title(kind: str, payload: Mapping[str, Any]) -> str:
    """A card's name in a hit: its title, else the first line it shows, else its kind."""
    title = payload.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    for part in card_parts(payload):
        line = part.strip().lstrip("#").strip().split("\n", 1)[0]
        if line:
            return line[:120]
    return kind


def board_title(slug: str, meta: Mapping[str, Any]) -> str:
    title = meta.get("title")
    return title if isinstance(title, str) and title.strip() else slug


def board_parts(slug: str, meta: Mapping[str, Any], tags: Iterable[str]) -> tuple[str, str]:
    """(title, body) of a board: its title or slug, then the slug, tags and section."""
    title = board_title(slug, meta)
    return title, " ".join([slug, *tags])


def annotation_parts(row: Mapping[str, Any]) -> tuple[str, str]:
    """(title, body) of a finding: its prompt summary, then detail, key, category, replies."""
    prompt = row.get("prompt") or {}
    summary = prompt.get("summary") if isinstance(prompt, dict) else None
    detail = prompt.get("detail") if isinstance(prompt, dict) else None
    replies = [
        r.get("text") or r.get("body") or ""
        for r in (row.get("replies") or [])
        if isinstance(r, dict)
    ]
    body = [detail or "", row.get("key") or "", row.get("category") or "", *replies]
    return summary or row.get("key") or "", " ".join(str(b) for b in body)


def task_parts(
    task: Mapping[str, Any],
    refs: Iterable[Mapping[str, Any]] = (),
    comments: Iterable[str] = (),
) -> dict[str, str]:
    """What search reads of a task, by where it can match (rule 2), as written.

    Keys: ``title``, ``body``, ``field:<name>`` (the text fields, gates with
    their evidence, custom string fields), ``ref`` (ref addresses: a PR's key
    and title, board slugs, branches, worktrees, tracker keys) and
    ``comment``. Hand-back summaries are not read: a hand-back files its
    summary as a ref version's content, never as a ref address.
    """
    # Most tasks have only a title and a body: the other parts are skipped without a
    # call each (a search reads this for every task hit, a build for every task).
    get = task.get
    out = {"title": get("title") or "", "body": get("body") or ""}
    gates = get("gates")
    texts = {
        "gates": " ".join(
            " ".join(str(g.get(k) or "") for k in ("title", "who", "evidence")) for g in gates
        )
        if gates
        else "",
        "nextAction": get("next_action") or "",
        "outcome": get("outcome") or "",
        "decisions": get("decisions") or "",
        "branch": get("branch") or "",
    }
    fields = get("fields")
    if fields:
        for name, value in fields.items():
            if isinstance(value, str):
                texts.setdefault(name, value)
    for name, value in texts.items():
        if value and not value.isspace():  # as value.strip() would say, without a copy
            out[f"field:{name}"] = value
    addresses = [
        ref_address(ref.get("kind") or "", ref.get("ref") or "", ref.get("meta")) for ref in refs
    ]
    if addresses:
        out["ref"] = "\n".join(a for a in addresses if a)
    if comments:
        said = "\n".join(c for c in comments if c)
        if said:
            out["comment"] = said
    return out


#: Ref meta keys that are addresses (where the attached thing lives), not content.
REF_ADDRESS_KEYS = ("title", "branch", "worktree", "board", "issue", "key", "number")


def ref_address(kind: str, ref: str, meta: Mapping[str, Any] | None) -> str:
    """The address words of one ref: its key (``owner/repo#12``, a slug, a URL)
    and the address fields of its meta (PR title, branch, worktree, tracker key)."""
    words = [ref]
    for key in REF_ADDRESS_KEYS:
        value = (meta or {}).get(key)
        if isinstance(value, str | int) and not isinstance(value, bool):
            words.append(str(value))
    return " ".join(words)


def task_document(parts: Mapping[str, str]) -> tuple[str, str]:
    """(title, body) index texts of a task from :func:`task_parts`."""
    rest = [v for k, v in parts.items() if k != "title"]
    return index_text(parts.get("title", "")), index_text(" ".join(rest))
