"""Workspace search: every group of content in one call, read from the search index;
``mode: resolve`` reads a task reference.

``search {q}`` answers the groups tasks, boards, pages, cards, sessions, shots,
tags and annotations (``GROUPS``); each hit names what it is, its title, a
snippet with the matched words between :data:`MARK` quotes, its url and the
board it sits on. Rules decided here:

- Words are folded (case and diacritics never matter) and cut where anything
  but a letter or digit stands (``layoutkit/search_text.py``); every word must
  occur in a hit, as the start of one of its words (``dash`` finds
  ``dashboard``). Rows come from the full-text index (FTS5 or PostgreSQL
  text search), best first by relevance only: bm25 or ts_rank, title words
  weighing more than body words.
- Rule 1, pins: a task named by number (``#12``, ``tk-12`` inside a token,
  ``<workspace>/12``, a task url, or a bare number that is the whole query)
  comes first in tasks with ``pinned: true``, and the boards its board refs
  name come first in boards. A task of another workspace carries a
  ``workspace`` object; one that cannot be opened gives no row.
- Rule 2: a task is read by title, body, its text fields, the addresses of its
  refs and its comments, never its hand-back summaries; a task hit says where
  it matched (``matchedIn``) and shows the first place (``matchedLabel``).
- Rule 3, typos: a letters-only word of 4 or more letters that starts no word
  of the workspace vocabulary is also searched as its nearest vocabulary words
  (one edit, two from 8 letters, same first letter), listed in
  ``corrections``. An edit is an inserted, dropped or changed letter or two
  neighbours swapped (rapidfuzz's optimal string alignment distance): a swap
  is the commonest slip of the fingers. Rows only a correction found carry
  ``corrected: true`` and come after the exact ones of their group.
- ``limit`` caps each group. Rows on boards the caller may not reach are left
  out (``may_reach``); a tag shows when a board the caller reaches has it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

import attrs

from layoutkit.errors import ServiceError
from layoutkit.folding import fold
from layoutkit.search_text import (
    annotation_parts,
    card_parts,
    card_title,
    index_text,
    ref_address,
    task_parts,
    tokens,
)
from layoutkit.service.boards.boards import board_url
from layoutkit.service.boards.tags import tag_url
from layoutkit.service.review.annotation_views import thread_url
from layoutkit.service.road.generic import kind_handler
from layoutkit.service.road.reach import may_reach, reachable_workspace
from layoutkit.service.road.task_pins import Pin, distinct, parse_pins, unpinned
from layoutkit.service.road.workspace import Call
from layoutkit.service.search.meaning import MATCHED_BY_MEANING, fused_rows, meaning_rerank
from layoutkit.service.search.outputs import SEARCH
from layoutkit.service.shared.vocabulary import nearest_words
from layoutkit.service.tasks.model import task_url
from layoutkit.service.tasks.resolve import MAX_CANDIDATES, resolve_reference
from layoutkit.storage import (
    BoardRecord,
    SearchDocHit,
    SearchTaskRow,
    TaskRecord,
    Tx,
    WorkspaceRecord,
)

GROUPS = ("tasks", "boards", "pages", "cards", "sessions", "shots", "tags", "annotations")
#: Most hits per group.
MAX_HITS = 50
DEFAULT_HITS = 10
#: The quotes around matched words in a snippet.
MARK = ("«", "»")
#: Characters of text shown around the first matched word.
SNIPPET = 160
#: Rows read past the limit, for those left out (unreachable boards, exact rows again).
_SLACK = 10
_WORD = re.compile(r"[^\W_]+")
#: How a task's text field is named in matchedLabel.
_FIELD_LABELS = {
    "gates": "gates and evidence",
    "nextAction": "next action",
    "outcome": "outcome",
    "decisions": "decisions",
    "branch": "branch",
}
_PUNCTUATION = ".,;:!?()[]{}\"'«»“”‘’"


@attrs.frozen(slots=True)
class Term:
    """One query word and the vocabulary words tried for it when misspelt."""

    word: str
    corrections: tuple[str, ...] = ()

    def alternatives(self, corrected: bool) -> list[tuple[str, bool]]:
        extra = [(c, False) for c in self.corrections] if corrected else []
        return [(self.word, True), *extra]


# ------------------------------------------------------------------ reading q


def query_terms(tx: Tx, workspace_id: int, text: str) -> list[Term]:
    """The words of ``text`` with the corrections rule 3 allows for each."""
    words: list[tuple[str, bool]] = []
    seen: set[str] = set()
    for raw in text.split():
        bare = fold(raw).strip(_PUNCTUATION)
        # A token with digits, dashes or slashes is an identifier: never corrected.
        may_correct = bare.isalpha()
        for word in tokens(raw):
            if word not in seen:
                seen.add(word)
                words.append((word, may_correct))
    # The words the vocabulary holds, all in one read: most queries need no more.
    held = tx.vocabulary_counts(workspace_id, [w for w, may in words if may])
    return [
        Term(word, nearest_words(tx, workspace_id, word, held) if may else ())
        for word, may in words
    ]


# ------------------------------------------------------------------ marking


class _Patterns(NamedTuple):
    #: A wanted word in folded text (index tokens between single spaces).
    folded: re.Pattern[str]
    #: Whether every wanted word is ASCII (and lower case): then ASCII text is read
    #: in lower case, all that folding does to it (:func:`_ascii_spans`).
    ascii: bool
    wanted: tuple[tuple[str, bool], ...]


# Sized for a server's distinct queries in turn (the bench's 200): a miss built and
# looked up the expression again, 2 us a search.
@functools.lru_cache(maxsize=512)
def _patterns(wanted: tuple[tuple[str, bool], ...]) -> _Patterns:
    """``wanted`` as a regular expression, so folded text is tested in one scan
    rather than word by word."""
    if not wanted:
        return _Patterns(re.compile(r"(?!)"), True, ())
    folded = "|".join(re.escape(w) + ("" if prefix else "(?![^ ])") for w, prefix in wanted)
    return _Patterns(
        re.compile(f"(?<![^ ])(?:{folded})"),
        all(w.isascii() and w == w.lower() for w, _ in wanted),
        wanted,
    )


_RUN = re.compile(r"[^\W_]*")


def _ascii_starts(found: _Patterns, low: str) -> Iterator[tuple[int, int | None]]:
    """Each place of ``low`` (ASCII text in lower case) where a wanted word starts a
    run of letters and digits (or is the run, for a whole word), word by word: the
    place and, for a whole word, the run's end (a prefix's is found only if asked).

    Each word's places are found by ``str.find``: a regular expression of the words
    tried every place of the text, two to three times slower on a task's body."""
    for word, prefix in found.wanted:
        at = low.find(word)
        while at != -1:
            if at == 0 or not low[at - 1].isalnum():  # where a run starts
                if prefix:
                    yield at, None
                else:
                    end = _RUN.match(low, at).end()  # type: ignore[union-attr]
                    if end == at + len(word):
                        yield at, end
            at = low.find(word, at + 1)


def _ascii_spans(found: _Patterns, low: str) -> list[tuple[int, int]]:
    """The runs of ``low`` that a wanted word starts (see :func:`_ascii_starts`), in order."""
    spans = {
        at: _RUN.match(low, at).end() if end is None else end  # type: ignore[union-attr]
        for at, end in _ascii_starts(found, low)
    }
    return sorted(spans.items())


def _matches(word: str, found: _Patterns) -> bool:
    # An ASCII run of letters and digits folds to its lower case; only others need fold.
    folded = word.lower() if word.isascii() else index_text(word)
    return found.folded.search(folded) is not None


def matches(text: str, wanted: Sequence[tuple[str, bool]]) -> bool:
    """Whether a word of ``text`` matches one of ``wanted`` (cheaper than a snippet)."""
    return _holds(_patterns(tuple(wanted)), text)


def _holds(found: _Patterns, text: str) -> bool:
    if found.ascii and text.isascii():
        # Asked only whether one holds: the first place found ends it, with no run
        # end read for a prefix and no span made (a task view asks this of every part
        # of every hit).
        return next(_ascii_starts(found, text.lower()), None) is not None
    return found.folded.search(index_text(text)) is not None


def snippet(text: str, wanted: Sequence[tuple[str, bool]]) -> str | None:
    """A piece of ``text`` around its first matched word, every matched word in
    :data:`MARK` quotes; None when no word of it matches."""
    return _snippet(_patterns(tuple(wanted)), text)


def _snippet(found: _Patterns, text: str) -> str | None:
    flat = " ".join(text.split())
    if found.ascii and flat.isascii():
        # ASCII keeps its places when lowered.
        spans = _ascii_spans(found, flat.lower())
    else:
        spans = [m.span() for m in _WORD.finditer(flat) if _matches(m.group(), found)]
    if not spans:
        return None
    first = spans[0][0]
    start = 0 if first < SNIPPET // 3 else flat.rfind(" ", 0, first - SNIPPET // 3) + 1
    end = min(len(flat), start + SNIPPET)
    if end < len(flat):
        cut = flat.rfind(" ", start, end)
        end = cut if cut > first else end
    out, at = [], start
    for s, e in spans:
        if s < start or e > end:
            continue
        out += [flat[at:s], MARK[0], flat[s:e], MARK[1]]
        at = e
    out.append(flat[at:end])
    return ("…" if start > 0 else "") + "".join(out) + ("…" if end < len(flat) else "")


# ------------------------------------------------------------------ hit views


class _Views:
    """Turns index rows into the hits a person reads, loading each source once."""

    def __init__(self, call: Call, terms: Sequence[Term]) -> None:
        self.call = call
        self.tx = call.tx
        self.wanted = tuple(alt for t in terms for alt in t.alternatives(True))
        self.found = _patterns(self.wanted)
        self._boards: dict[int, BoardRecord | None] = {}

    def board(self, board_id: int) -> BoardRecord | None:
        if board_id not in self._boards:
            self._boards[board_id] = self.tx.board(board_id)
        return self._boards[board_id]

    def load_boards(self, board_ids: Iterable[int | None]) -> None:
        """Read the boards of a batch of hits at once, so access is decided per board
        from one read rather than one read per hit."""
        missing = {b for b in board_ids if b is not None and b not in self._boards}
        if missing:
            found = self.tx.boards_by_id(missing)
            self._boards.update({b: found.get(b) for b in missing})

    def reachable(self, board_id: int | None) -> BoardRecord | None:
        board = self.board(board_id) if board_id is not None else None
        return board if board is not None and may_reach(self.call.principal, board) else None

    def tasks(self, hits: Sequence[SearchDocHit]) -> list[dict[str, Any]]:
        ids = [int(h.subject) for h in hits]
        found = self.tx.search_task_rows(self.call.workspace_id, ids)
        return [self.task(found[i]) for i in ids if i in found]

    def task(self, task: SearchTaskRow) -> dict[str, Any]:
        # Most tasks have no refs: no versions to reduce to the latest, none to convert.
        latest = {(r.kind, r.ref): r for r in task.refs} if task.refs else {}
        parts = task_parts(
            task._asdict(), [r._asdict() for r in latest.values()] if latest else (), task.comments
        )
        found = self.found
        matched: list[str] = []
        shown = None
        for name, value in parts.items():
            if not matched and found.ascii and value.isascii():
                # The first part that matches is shown: its snippet says whether it does
                # (on ASCII text exactly when _holds would), so it is read once, not twice.
                shown = _snippet(found, value)
                if shown is not None:
                    matched.append(name)
            elif _holds(found, value):
                matched.append(name)
        row = {
            "kind": "task",
            "id": task.id,
            "key": task.key,
            "title": task.title,
            "type": task.type,
            "status": task.status,
            "state": task.state,
            "project": task.project,
            "url": task_url(task),
            "board": None,
            "matchedIn": matched,
        }
        if matched:
            where = matched[0]
            row["matchedLabel"] = self._label(where, latest.values())
            row["snippet"] = shown if shown is not None else _snippet(found, parts[where])
        for ref in latest.values():
            if ref.kind == "board":
                row["board"] = ref.ref
                break
        return row

    def _label(self, where: str, refs: Iterable[Any]) -> str:
        if where.startswith("field:"):
            name = where.split(":", 1)[1]
            return _FIELD_LABELS.get(name, name)
        if where == "ref":
            for ref in refs:
                address = ref_address(ref.kind, ref.ref, ref.meta)
                if _holds(self.found, address):
                    return f"{ref.kind} {address}"
        return where

    def board_hit(self, board: BoardRecord, **extra: Any) -> dict[str, Any]:
        title = board.meta.get("title") if isinstance(board.meta.get("title"), str) else None
        text = " ".join([title or board.slug, *([board.slug] if title else []), *board.tags])
        return {
            "kind": "board",
            "board": board.slug,
            "title": title or board.slug,
            "snippet": _snippet(self.found, text),
            "url": board_url(self.call.workspace, board.slug),
            "subgroup": board.subgroup,
            **extra,
        }

    def boards(self, hits: Sequence[SearchDocHit]) -> list[dict[str, Any]]:
        self.load_boards(int(h.subject) for h in hits)
        out = []
        for hit in hits:
            board = self.reachable(int(hit.subject))
            if board is not None:
                out.append(self.board_hit(board))
        return out

    def cards(self, hits: Sequence[SearchDocHit]) -> list[dict[str, Any]]:
        cards = {c.id: c for c in self.tx.cards_by_id([int(h.subject) for h in hits])}
        self.load_boards(h.board_id for h in hits)
        out = []
        for hit in hits:
            card = cards.get(int(hit.subject))
            board = self.reachable(hit.board_id)
            if card is None or card.deleted or board is None:
                continue
            out.append(
                {
                    "kind": "card",
                    "id": card.id,
                    "cardKind": card.kind,
                    "title": card_title(card.kind, card.payload),
                    "snippet": _snippet(self.found, " ".join(card_parts(card.payload))),
                    "url": f"{board_url(self.call.workspace, board.slug)}?card={card.id}",
                    "board": board.slug,
                }
            )
        return out

    def annotations(self, hits: Sequence[SearchDocHit]) -> list[dict[str, Any]]:
        self.load_boards(h.board_id for h in hits)
        findings = self.tx.annotations_by_id(int(h.subject) for h in hits)
        out = []
        for hit in hits:
            found = findings.get(int(hit.subject))
            board = self.reachable(hit.board_id)
            if found is None or board is None:
                continue
            title, body = annotation_parts(attrs.asdict(found, recurse=False))
            out.append(
                {
                    "kind": "comment" if found.kind == "comment" else "annotation",
                    "id": found.id,
                    "key": found.key,
                    "title": title,
                    "state": found.state,
                    "snippet": _snippet(self.found, f"{title} {body}"),
                    "url": thread_url(self.call.workspace, board.slug, found),
                    "board": board.slug,
                    "cardId": found.card_id,
                }
            )
        return out

    def tags(self, hits: Sequence[SearchDocHit]) -> list[dict[str, Any]]:
        out = []
        for hit in hits:
            holders = [
                b
                for b in self.tx.boards(self.call.workspace_id, all_tags=[hit.subject])
                if may_reach(self.call.principal, b)
            ]
            if holders:
                out.append(
                    {
                        "kind": "tag",
                        "tag": hit.subject,
                        "title": hit.subject,
                        "snippet": _snippet(self.found, hit.subject),
                        "boards": len(holders),
                        "url": tag_url(self.call.workspace, hit.subject),
                        "board": None,
                    }
                )
        return out

    def rows(self, group: str, hits: Sequence[SearchDocHit]) -> list[dict[str, Any]]:
        if group == "tasks":
            return self.tasks(hits)
        if group in ("boards", "sessions"):
            return self.boards(hits)
        if group == "tags":
            return self.tags(hits)
        if group == "annotations":
            return self.annotations(hits)
        return self.cards(hits)


# ------------------------------------------------------------------ pins


@attrs.frozen
class _Target:
    """A pin that names a task the caller can open, and where that task lives."""

    pin: Pin
    task: TaskRecord
    space: WorkspaceRecord
    elsewhere: bool


def _pin_targets(call: Call, pins: Sequence[Pin]) -> list[_Target]:
    """The pins naming a task the caller can open (rule 1), in order."""
    if not pins:
        return []  # most queries name no task: no need to read the workspace
    tx = call.tx
    here = tx.workspace(call.workspace_id)
    out = []
    for pin in pins:
        space = here
        if pin.workspace is not None and (here is None or pin.workspace != here.name):
            reach = reachable_workspace(
                tx,
                call.workspace_id,
                call.principal,
                pin.workspace,
                multi_workspace=call.workspace.multi_workspace,
            )
            space = None if reach is None else reach[0]
        task = tx.task(pin.number) if space is not None else None
        if task is None or space is None or task.workspace_id != space.id or task.draft:
            continue
        out.append(_Target(pin, task, space, space is not here))
    return out


def _pinned(
    call: Call, views: _Views, targets: Sequence[_Target]
) -> dict[str, list[dict[str, Any]]]:
    """The rows rule 1 puts first: pinned tasks, and the boards their board refs name."""
    tx = call.tx
    out: dict[str, list[dict[str, Any]]] = {"tasks": [], "boards": [], "sessions": []}
    for target in targets:
        task, space = target.task, target.space
        # A pin answers whatever the task's state, trashed included (rule 1).
        shown = tx.search_task_rows(space.id, [task.id], live=False)[task.id]
        refs = shown.refs
        row = views.task(shown)
        row.update(pinned=True, matchedLabel=target.pin.text)
        extra: dict[str, Any] = {}
        if target.elsewhere:
            extra = {"workspace": {"name": space.name, "url": f"/{space.name}"}}
            row.update(extra, url=f"/{space.name}{task_url(task)}")
        out["tasks"].append(row)
        for ref in refs:
            board = tx.board_by_slug(space.id, ref.ref) if ref.kind == "board" else None
            if board is None or not may_reach(call.principal, board):
                continue
            hit = views.board_hit(board, pinned=True, **extra)
            if target.elsewhere:
                hit["url"] = f"/{space.name}{hit['url']}"
            group = "sessions" if board.subgroup == "sessions" else "boards"
            if all(h["board"] != board.slug for h in out[group]):
                out[group].append(hit)
    return out


# ------------------------------------------------------------------ the operation

_SEARCH_PARAMS = {
    "q": {"type": "string", "minLength": 1, "maxLength": 500},
    "mode": {
        "enum": ["words", "resolve"],
        "description": "resolve: read q as one task reference and answer with a verdict, "
        "candidates and the next call",
    },
    "limit": {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_HITS,
        "description": f"most hits per group (default {DEFAULT_HITS})",
    },
}


def _key(row: dict[str, Any]) -> tuple[str, Any]:
    return (row["kind"], row.get("id", row.get("board", row.get("tag"))))


def _by_group(hits: Sequence[SearchDocHit]) -> dict[str, list[SearchDocHit]]:
    out: dict[str, list[SearchDocHit]] = {}
    for hit in hits:
        out.setdefault(hit.group, []).append(hit)
    return out


def search_groups(call: Call, groups: Sequence[str]) -> dict[str, Any]:
    """The reply of ``search``: every group in ``groups``, pins first, then the
    exact rows by relevance, then the rows only a correction found."""
    q = call.params["q"]
    limit = call.params.get("limit", DEFAULT_HITS)
    tx = call.tx
    targets = _pin_targets(call, distinct(parse_pins(q)))
    # A pin that named a task is taken out of the words; one that named none
    # stays a word (a bare 481 may be a pull request's number).
    terms = query_terms(tx, call.workspace_id, unpinned(q, [t.pin for t in targets]))
    views = _Views(call, terms)
    pinned = _pinned(call, views, targets)
    exact: list[SearchDocHit] = []
    fixed: list[SearchDocHit] = []
    if terms:
        per = limit + _SLACK
        exact = tx.search_index(
            call.workspace_id, [t.alternatives(False) for t in terms], groups=groups, per_group=per
        )
        if any(t.corrections for t in terms):
            seen = {h.doc_id for h in exact}
            fixed = [
                h
                for h in tx.search_index(
                    call.workspace_id,
                    [t.alternatives(True) for t in terms],
                    groups=groups,
                    per_group=per + len(seen),
                )
                if h.doc_id not in seen
            ]
    reply: dict[str, list[dict[str, Any]]] = {}
    # Each list of hits split by group once (not once per group).
    split = [(_by_group(exact), False), (_by_group(fixed), True)]
    for group in groups:
        rows = list(pinned.get(group, []))
        taken = {_key(r) for r in rows}
        for by_group, corrected in split:
            waiting = by_group.get(group, [])
            # Views are made only for the rows shown: a few at a time, as many as
            # the limit still wants (a row may be left out, or be a pin again).
            while waiting and len(rows) < limit:
                batch, waiting = waiting[: limit - len(rows)], waiting[limit - len(rows) :]
                for row in views.rows(group, batch):
                    key = _key(row)
                    if key not in taken:
                        taken.add(key)
                        if corrected:
                            row["corrected"] = True
                        rows.append(row)
        reply[group] = rows
    corrections = [{"from": t.word, "to": c} for t in terms for c in t.corrections]
    out: dict[str, Any] = {"q": q, "groups": reply, "corrections": corrections}
    if "tasks" in groups and terms:
        # Rule 4: words alone answered when a task holds every word as typed (or
        # the query named one); otherwise meaning ranks tasks too, when it can.
        held = bool(targets) or any(h.group == "tasks" for h in exact)
        out.update(_by_meaning(call, views, q, reply, held=held, limit=limit))
    return out


def _by_meaning(
    call: Call,
    views: _Views,
    q: str,
    reply: dict[str, list[dict[str, Any]]],
    *,
    held: bool,
    limit: int,
) -> dict[str, Any]:
    """Fuse the meaning ranking into ``reply["tasks"]`` (search rule 4); returns
    ``mode`` and ``modeReason`` when the reply carries them."""
    lexical = {row["id"]: row for row in reply["tasks"]}
    result = meaning_rerank(call, q, list(lexical), None, every_word_held=held, limit=limit)
    if result.mode == "hybrid":

        def row_of(task: TaskRecord) -> dict[str, Any]:
            row = views.task(call.tx.search_task_rows(task.workspace_id, [task.id])[task.id])
            # Found by what it means: no word's place to name, whatever words it shares.
            row["matchedLabel"] = MATCHED_BY_MEANING
            return row

        reply["tasks"] = fused_rows(call, result, lexical, row_of)[:limit]
    return result.reply_fields()


def _resolve(call: Call, q: str) -> dict[str, Any]:
    """Read ``q`` as one task reference (search rule 5, :mod:`layoutkit.service.tasks.resolve`)."""
    if call.params.get("kind", "any") != "any":
        # A reference names a task: narrowing to another group of hits means nothing to it.
        raise ServiceError(
            400,
            "unsupported_facet",
            f"mode resolve reads a task reference; kind {call.params['kind']!r} is a group",
            field="kind",
            facet="group",
        )
    return resolve_reference(call, q, limit=call.params.get("limit", MAX_CANDIDATES))


def _search(call: Call, groups: Sequence[str]) -> dict[str, Any]:
    if call.params.get("mode") == "resolve":
        return _resolve(call, call.params["q"])
    return search_groups(call, groups)


@kind_handler("search", "any", {**_SEARCH_PARAMS}, required=("q",), output=SEARCH)
def search_any(call: Call) -> dict[str, Any]:
    return _search(call, GROUPS)


@kind_handler("search", "board", {**_SEARCH_PARAMS}, required=("q",), output=SEARCH)
def search_boards(call: Call) -> dict[str, Any]:
    return _search(call, ("boards", "sessions"))


@kind_handler("search", "card", {**_SEARCH_PARAMS}, required=("q",), output=SEARCH)
def search_cards(call: Call) -> dict[str, Any]:
    return _search(call, ("cards", "pages", "shots"))


@kind_handler("search", "task", {**_SEARCH_PARAMS}, required=("q",), output=SEARCH)
def search_tasks(call: Call) -> dict[str, Any]:
    return _search(call, ("tasks",))
