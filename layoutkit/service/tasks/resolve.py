"""Resolving one task reference: search's ``mode: resolve`` (search rule 5).

The text is read by :func:`task_palette.read_palette` into pins, facets and
title words; this module looks them up and gives a verdict:

- ``exact``: one task is named outright: a single pin (``#12``, ``tk-12``,
  ``<workspace>/12``, a task URL, a whole-query number; a draft's number too,
  with ``draft: true``), the task's key (the whole text, any case), or the
  only task in the facets whose whole title is the text (compared folded,
  punctuation aside). Two such titles are ``ambiguous``.
- ``confident``: the best candidate scores at least :data:`CONFIDENT` and
  leads the next one by at least :data:`MARGIN` points.
- ``ambiguous``: candidates scoring at least :data:`FLOOR`, none clearly first.
- ``none``: nothing reaches :data:`FLOOR`, or the text named nothing.

A candidate's score (0-100) is how well the title words cover the query
words: each query word takes its best title word by rapidfuzz's normalised
Indel similarity (a title word the query word begins, from 3 letters, counts
at least 90), averaged; 85% of the score is that, 15% the share of the
title's words matched (at 80 or more), so a title that says little else ranks
first. Ties go to live tasks, then the most recently updated.

A facet relaxes (``interpreted.relaxed``) when no task in it alone holds every
title word while some task elsewhere does, or when it holds no task at all:
an edge word then reverts to title text, a field (``type:bug``), ``mine`` and
an ``under`` that names no task are dropped. Pinned tasks outside the facets
are listed in ``outside``; pinned numbers naming no task the caller can open,
in ``missing``.

Title candidates come from one function, :func:`_candidate_rows`, reading the
tasks' titles through :meth:`Tx.task_titles`, which matches words in the search
index's title column (a word matches the start of a title word) and applies
the facets in the same query. When no title holds every word, the loose
reading looks for each word and the vocabulary words search rule 3 would
correct it to (a word with neither, by its first three letters).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import attrs
from rapidfuzz import fuzz, process

from layoutkit.errors import ServiceError
from layoutkit.folding import fold
from layoutkit.service.road.reach import reachable_workspace
from layoutkit.service.road.task_pins import Pin, distinct
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.vocabulary import nearest_words
from layoutkit.service.tasks.model import DECLINED, task_url
from layoutkit.service.tasks.task_palette import (
    CLOSED,
    Facet,
    Palette,
    PaletteRefusal,
    read_palette,
)
from layoutkit.storage import TaskRecord, TaskTitleQuery, TaskTitleRow

MAX_CANDIDATES = 5
#: The top score a confident verdict needs.
CONFIDENT = 75.0
#: How far the top candidate must lead the second for a confident verdict.
MARGIN = 8.0
#: Below this score a task is no candidate at all.
FLOOR = 50.0
#: A query word that begins a title word (from this many letters) matches it at least 90.
PREFIX = 3
#: Rows read holding every word, and rows read holding some fragment of them.
STRICT_ROWS = 60
LOOSE_ROWS = 500

_WORD = re.compile(r"\w+")
_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,39}$")


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(fold(text)))


@attrs.frozen(slots=True)
class _Scope:
    """The facets in force, as the store reads them."""

    types: tuple[str, ...] | None = None
    statuses: tuple[str, ...] | None = None
    state: str | None = None
    project_id: int | None = None
    under: int | None = None
    assignees: tuple[str, ...] = ()
    creators: tuple[str, ...] = ()


def _scope(facets: Iterable[_Held]) -> _Scope:
    types: set[str] | None = None
    statuses: set[str] | None = None
    values: dict[str, Any] = {}
    for held in facets:
        facet = held.facet
        if facet.kind == "type":
            types = (types or set()) | set(facet.values)
        elif facet.kind == "status":
            statuses = (statuses or set()) | set(facet.values)
        elif facet.kind == "state":
            values["state"] = facet.values[0]
        elif facet.kind == "project":
            values["project_id"] = held.id
        elif facet.kind == "under":
            values["under"] = held.id
        elif facet.kind == "mine":
            values["assignees"], values["creators"] = held.people
    return _Scope(
        types=tuple(sorted(types)) if types is not None else None,
        statuses=tuple(sorted(statuses)) if statuses is not None else None,
        **values,
    )


@attrs.frozen(slots=True)
class _Held:
    """A facet with what it was looked up to: a project's or a task's id, the caller's names."""

    facet: Facet
    id: int | None = None
    people: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())


# ------------------------------------------------------------------ the seam


def _candidate_rows(
    call: Call,
    words: Sequence[tuple[str, ...]],
    scope: _Scope,
    limit: int,
    *,
    loose: bool = False,
) -> list[TaskTitleRow]:
    """Tasks in ``scope`` whose title holds every word (each word a group of spellings,
    each matched as the start of a title word), shortest titles first; ``loose``: the
    same with each word's near vocabulary words as spellings too, and when no title
    holds them all, those holding any, the most words first. A ``limit``
    of 1 asks only whether any task qualifies, in no order. Titles are read from the
    search index (``Tx.task_titles``), never scanned."""
    if not loose:
        query = TaskTitleQuery(terms=tuple(words), **attrs.asdict(scope))
        return call.tx.task_titles(call.workspace_id, query, limit=limit, ordered=limit > 1)
    terms = tuple(_near(call, group) for group in words)
    # A typo mostly has its correction: titles holding every word, some as corrected,
    # are few and the nearest. Only without one are titles holding any word read.
    query = TaskTitleQuery(terms=terms, **attrs.asdict(scope))
    rows = call.tx.task_titles(call.workspace_id, query, limit=min(limit, STRICT_ROWS))
    if rows:
        return rows
    query = TaskTitleQuery(terms=terms, match="any", **attrs.asdict(scope))
    return call.tx.task_titles(call.workspace_id, query, limit=limit, ordered=limit > 1)


def _near(call: Call, group: tuple[str, ...]) -> tuple[str, ...]:
    """A word's spellings with the vocabulary words a misspelling of it most likely
    meant (search rule 3's corrections); a word no vocabulary word starts and none is
    near also by its first letters, as a title word starting the same way may still
    score near it. A word the vocabulary holds is looked for as it is: its first
    letters would only bring thousands of rows the scoring drops."""
    tx, workspace_id = call.tx, call.workspace_id
    out: list[str] = []
    for word in group:
        out.append(word)
        fixes = nearest_words(tx, workspace_id, word)
        out += fixes
        if not fixes and len(word) > PREFIX + 1 and tx.vocabulary_word(workspace_id, word) is None:
            out.append(word[:PREFIX])
    return tuple(dict.fromkeys(out))


# ------------------------------------------------------------------ scoring


def _scores(words: Sequence[str], rows: Sequence[TaskTitleRow]) -> dict[int, float]:
    if not words:
        return {}
    titles = {row.id: _WORD.findall(fold(row.title)) for row in rows}
    vocab = sorted({w for ws in titles.values() for w in ws})
    if not vocab:
        return dict.fromkeys(titles, 0.0)
    matrix = process.cdist(list(words), vocab, scorer=fuzz.ratio)
    best_of: dict[tuple[str, str], float] = {}
    for i, query_word in enumerate(words):
        for j, title_word in enumerate(vocab):
            score = float(matrix[i][j])
            if len(query_word) >= PREFIX and title_word.startswith(query_word):
                score = max(score, 90.0)
            best_of[query_word, title_word] = score
    out: dict[int, float] = {}
    for task_id, title_words in titles.items():
        if not title_words:
            out[task_id] = 0.0
            continue
        coverage = 0.0
        matched: set[str] = set()
        for query_word in words:
            best_word = max(title_words, key=lambda w: best_of[query_word, w])
            best = best_of[query_word, best_word]
            coverage += best
            if best >= 80:
                matched.add(best_word)
        share = sum(1 for w in title_words if w in matched) / len(title_words)
        out[task_id] = round(0.85 * coverage / len(words) + 15 * share, 1)
    return out


# ------------------------------------------------------------------ resolving


def resolve_reference(call: Call, q: str, *, limit: int = MAX_CANDIDATES) -> dict[str, Any]:
    """The verdict on ``q`` read as one task reference (see the module docstring)."""
    try:
        palette = read_palette(q)
    except PaletteRefusal as refusal:
        raise ServiceError(
            400,
            "unsupported_facet",
            f"{refusal}; a task reference narrows by project, type, state, under and mine",
            field="q",
            facet=refusal.facet,
            word=refusal.word,
        ) from None
    return _Resolver(call, q, palette, min(limit, MAX_CANDIDATES)).run()


class _Resolver:
    """One reading of one reference: what was let go, missed and left outside on the way."""

    def __init__(self, call: Call, q: str, palette: Palette, limit: int) -> None:
        self.call = call
        self.q = q
        self.palette = palette
        self.limit = limit
        self.words = list(palette.words)
        self.typed = list(palette.typed)
        self.relaxed: list[dict[str, Any]] = []
        self.missing: list[int | str] = []
        self.outside: list[int | str] = []
        self.interpreted: dict[str, Any] = {}
        self.by_pins = False

    # -------------------------------------------------------------- facets

    def _hold(self, facet: Facet) -> _Held | None:
        """The facet looked up, or None when it names nothing (it is then relaxed)."""
        tx, principal = self.call.tx, self.call.principal
        if facet.kind == "project":
            project = tx.project_by_slug(self.call.workspace_id, facet.values[0].lower())
            return None if project is None else _Held(facet, id=project.id)
        if facet.kind == "mine":
            return _Held(facet, people=((principal.name,), (principal.label,)))
        if facet.kind == "under":
            task = self._under_target(facet.target)
            return None if task is None else _Held(facet, id=task.id)
        return _Held(facet)

    def _under_target(self, target: Pin | str | None) -> TaskRecord | None:
        tx, workspace_id = self.call.tx, self.call.workspace_id
        if isinstance(target, Pin):
            task = tx.task(target.number) if target.workspace is None else None
            if task is None or task.workspace_id != workspace_id or task.draft is not None:
                self.missing.append(_pin_id(target))
                return None
            return task
        if not target:
            return None
        if _KEY.match(target):
            task = tx.task_by_key(workspace_id, target) or tx.task_by_key(
                workspace_id, target.upper()
            )
            if task is not None and task.draft is None:
                return task
        try:
            inner = read_palette(target)
        except PaletteRefusal:
            return None
        sub = _Resolver(self.call, target, inner, MAX_CANDIDATES)
        verdict = sub.run()
        if verdict["verdict"] in ("exact", "confident"):
            return tx.task(verdict["candidates"][0]["id"])
        return None

    def _relax(self, held: _Held, reason: str, rest: Sequence[_Held] = ()) -> None:
        """Let go of a facet: its words join the title words when some task among
        ``rest`` (the facets still held) holds them with the others, else it is dropped."""
        facet = held.facet
        text = ""
        if facet.typed == "word" and facet.kind in ("type", "status"):
            text = facet.word
        elif facet.kind == "under" and isinstance(facet.target, str):
            text = facet.target
        folded, raw = _split_words(text)
        into = "dropped"
        if folded:
            groups = self._groups() + [_spellings(f, t) for f, t in zip(folded, raw, strict=True)]
            if _candidate_rows(self.call, groups, _scope(rest), 1):
                self.words += folded
                self.typed += raw
                into = "text"
        self.relaxed.append({"word": facet.word, "facet": facet.kind, "as": into, "why": reason})

    def _groups(self) -> list[tuple[str, ...]]:
        return [_spellings(f, t) for f, t in zip(self.words, self.typed, strict=True)]

    def _looked_up(self) -> list[_Held]:
        held: list[_Held] = []
        for facet in self.palette.facets:
            found = self._hold(facet)
            if found is None:
                self._relax(_Held(facet), "names nothing here")
            else:
                held.append(found)
        return held

    def _relaxed(self, held: list[_Held]) -> list[_Held]:
        """The facets kept once those keeping every word-holder out are let go
        (no task in ``held`` together holds every word)."""
        groups = self._groups()
        anywhere = bool(_candidate_rows(self.call, groups, _Scope(), 1)) if groups else False
        kept: list[_Held] = []
        for facet in held:
            alone = _scope([facet])
            if _candidate_rows(self.call, groups, alone, 1):
                kept.append(facet)
            elif anywhere:
                self._relax(facet, "no task in it holds every word", kept)
            elif not _candidate_rows(self.call, [], alone, 1):
                self._relax(facet, "holds no task", kept)
            else:
                kept.append(facet)
        # Each holds some on its own but not together: the last written gives way first.
        while len(kept) > 1 and (anywhere or not groups):
            if _candidate_rows(self.call, self._groups(), _scope(kept), 1):
                break
            last = kept.pop()
            self._relax(last, "no task in it and in the others holds every word", kept)
        return kept

    # -------------------------------------------------------------- run

    def run(self) -> dict[str, Any]:
        pins = distinct(list(self.palette.pins))
        held = self._looked_up()
        pinned = [row for pin in pins if (row := self._pinned(pin, _scope(held))) is not None]
        if pinned:
            self.by_pins = True
            self._describe(pins, held)
            return self._answer("exact" if len(pinned) == 1 else "ambiguous", pinned)
        keyed = self._keyed()
        if keyed is not None:
            self._describe(pins, held)
            return self._answer("exact", [keyed])
        if not self.words and not held:
            self._describe(pins, held)
            return self._answer("none", [])
        rows = _candidate_rows(self.call, self._groups(), _scope(held), STRICT_ROWS)
        if not rows and held:
            held = self._relaxed(held)
            rows = _candidate_rows(self.call, self._groups(), _scope(held), STRICT_ROWS)
        self._describe(pins, held)
        return self._by_title(_scope(held), rows)

    def _describe(self, pins: list[Pin], held: list[_Held]) -> None:
        shown: dict[str, Any] = {}
        if pins:
            shown["pins"] = [
                {"id": p.number, "form": p.form, "text": p.text}
                | ({"workspace": p.workspace} if p.workspace else {})
                for p in pins
            ]
        for h in held:
            facet = h.facet
            if facet.kind == "mine":
                shown["mine"] = True
            elif facet.kind == "under":
                task = self.call.tx.task(h.id) if h.id is not None else None
                shown["under"] = {"id": h.id, "title": task.title if task else None}
            elif facet.kind in ("type", "status"):
                shown.setdefault(facet.kind, [])
                shown[facet.kind] += [v for v in facet.values if v not in shown[facet.kind]]
            elif facet.kind == "project":
                # The slug it was found by (slugs are lower case).
                shown["project"] = facet.values[0].lower()
            else:
                shown[facet.kind] = facet.values[0]
        shown["text"] = " ".join(self.words)
        shown["relaxed"] = self.relaxed
        self.interpreted = shown

    def _pinned(self, pin: Pin, scope: _Scope) -> dict[str, Any] | None:
        tx = self.call.tx
        workspace_id = self.call.workspace_id
        other = None
        if pin.workspace is not None:
            # A workspace the caller may not open is as missing as one that is not there.
            reach = reachable_workspace(
                tx,
                workspace_id,
                self.call.principal,
                pin.workspace,
                multi_workspace=self.call.workspace.multi_workspace,
            )
            if reach is None:
                self.missing.append(_pin_id(pin))
                return None
            other = reach[0] if reach[0].id != workspace_id else None
        task = tx.task(pin.number)
        if task is None or task.workspace_id != (other.id if other else workspace_id):
            self.missing.append(_pin_id(pin))
            return None
        why = f"pinned {pin.text}"
        if other is not None:
            # Another workspace's facets are its own: the pin alone names the task.
            return {"task": task, "why": why, "workspace": {"name": other.name}}
        if task.draft is not None:
            declined = task.draft == DECLINED
            state = "a declined draft" if declined else "a draft waiting for a person to accept it"
            found = {"task": task, "why": f"{why}, {state}", "draft": True}
            return found | ({"declined": True} if declined else {})
        query = TaskTitleQuery(ids=(task.id,), **attrs.asdict(scope))
        if scope != _Scope() and not tx.task_titles(workspace_id, query, limit=1):
            self.outside.append(task.id)
            return None
        return {"task": task, "why": why}

    def _keyed(self) -> dict[str, Any] | None:
        text = self.q.strip()
        if self.palette.facets or self.palette.pins or not _KEY.match(text):
            return None
        tx = self.call.tx
        for key in dict.fromkeys((text, text.upper())):
            task = tx.task_by_key(self.call.workspace_id, key)
            if task is not None and task.draft is None:
                return {"task": task, "why": f"key {task.key}"}
        return None

    def _by_title(self, scope: _Scope, rows: list[TaskTitleRow]) -> dict[str, Any]:
        groups = self._groups()
        holding = {row.id for row in rows}
        if not rows and groups:
            # No title holds every word as written: read those holding pieces of them.
            rows = _candidate_rows(self.call, groups, scope, LOOSE_ROWS, loose=True)
        if not groups:
            # Facets alone: every task in them is as near as the next.
            ranked = [(100.0, row) for row in rows]
        else:
            scores = _scores(self.words, rows)
            ranked = [(scores[row.id], row) for row in rows if scores[row.id] >= FLOOR]
        ranked.sort(key=lambda sr: (-sr[0], sr[1].status in CLOSED, -sr[1].updated_at.timestamp()))
        # The text as a title: the title words, or the whole query with its edge words.
        texts = {" ".join(self.words), _norm(self.q)} - {""}
        whole = [row for _, row in ranked if _norm(row.title) in texts]
        if whole:
            verdict = "exact" if len(whole) == 1 else "ambiguous"
            why = "exact title" if len(whole) == 1 else "same title"
            rest = [row for _, row in ranked if row not in whole]
            return self._answer(
                verdict,
                [{"row": row, "why": why, "score": 100.0} for row in whole]
                + [
                    {"row": row, "why": _why(row.id in holding, score), "score": score}
                    for score, row in ranked
                    if row in rest
                ],
            )
        if not ranked:
            return self._answer("none", [])
        top = ranked[0][0]
        second = ranked[1][0] if len(ranked) > 1 else 0.0
        verdict = "confident" if top >= CONFIDENT and top - second >= MARGIN else "ambiguous"
        if not groups and len(ranked) > 1:
            verdict = "ambiguous"
        if not groups:
            # No title words to hold: the facets alone picked these.
            why = f"in {', '.join(self._facets())}" if self._facets() else "every task"
            return self._answer(verdict, [{"row": row, "why": why} for _, row in ranked])
        return self._answer(
            verdict,
            [
                {"row": row, "why": _why(row.id in holding, score), "score": score}
                for score, row in ranked
            ],
        )

    def _facets(self) -> list[str]:
        """The facets the query was read as, as a reader would write them."""
        names = ("project", "type", "status", "state", "mine", "under")
        out = []
        for key, value in self.interpreted.items():
            if key not in names or value in (None, False, [], ""):
                continue
            if isinstance(value, dict):  # under: the task it names
                value = f"#{value.get('id')}"
            out.append(key if value is True else f"{key} {value}")
        return out

    # -------------------------------------------------------------- answer

    def _answer(self, verdict: str, found: list[dict[str, Any]]) -> dict[str, Any]:
        found = found[: self.limit]
        candidates = self._candidates(found)
        return {
            "verdict": verdict,
            "interpreted": self.interpreted,
            "candidates": candidates,
            "missing": self.missing,
            "outside": self.outside,
            "next": self._next(verdict, candidates),
        }

    def _candidates(self, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        tx = self.call.tx
        rows = [f.get("task") or f["row"] for f in found]
        ids = [row.id for row in rows]
        counts = tx.task_child_counts(ids)
        parents = tx.task_titles_by_id([r.parent_id for r in rows if r.parent_id is not None])
        out = []
        for f, task_id, row in zip(found, ids, rows, strict=True):
            parent = parents.get(row.parent_id) if row.parent_id is not None else None
            candidate: dict[str, Any] = {
                "id": task_id,
                "key": row.key,
                "title": row.title,
                "type": row.type,
                "state": row.state,
                "status": row.status,
                "parentId": row.parent_id,
                "parent": (
                    {"id": parent.id, "key": parent.key, "title": parent.title}
                    if parent is not None
                    else None
                ),
                "childCount": counts.get(task_id, 0),
                "url": task_url(row),
                "why": f["why"],
            }
            if "score" in f:
                candidate["score"] = f["score"]
            if f.get("draft"):
                candidate["draft"] = True
            if f.get("declined"):
                candidate["declined"] = True
            if "workspace" in f:
                candidate["workspace"] = f["workspace"]
            out.append(candidate)
        return out

    def _next(self, verdict: str, candidates: list[dict[str, Any]]) -> dict[str, Any]:
        if verdict in ("exact", "confident"):
            top = candidates[0]
            task_id = top["id"]
            if "workspace" in top:
                task_id = f"{top['workspace']['name']}/{task_id}"
            return {"operation": "get", "params": {"kind": "task", "id": task_id}}
        if verdict == "ambiguous" and self.words and not self.by_pins:
            # Every task the words pick, beyond the five candidates shown.
            f: dict[str, Any] = {"text": " ".join(self.words)}
            for key in ("project", "type", "status", "state"):
                if key in self.interpreted:
                    f[key] = self.interpreted[key]
            return {"operation": "list", "params": {"kind": "task", "f": f}}
        if verdict == "ambiguous":
            return {"operation": "get", "params": {"kind": "task", "id": candidates[0]["id"]}}
        return {"operation": "search", "params": {"q": self.q}}


def _why(holds: bool, score: float) -> str:
    return f"title holds every word ({score:g})" if holds else f"title near the words ({score:g})"


def _split_words(text: str) -> tuple[list[str], list[str]]:
    raw = _WORD.findall(text)
    return [fold(w) for w in raw], raw


def _spellings(folded: str, typed: str) -> tuple[str, ...]:
    """The ways a word is looked for in titles: folded, and as typed when that differs.
    The store folds no accents, and SQLite's LIKE ignores the case of ASCII letters
    only, so the typed word is kept as written when it has upper-case letters beyond."""
    lower = typed.lower()
    spellings = [folded, lower]
    if typed != lower and not typed.isascii():
        spellings.append(typed)
    return tuple(dict.fromkeys(spellings))


def _pin_id(pin: Pin) -> int | str:
    return pin.number if pin.workspace is None else f"{pin.workspace}/{pin.number}"
