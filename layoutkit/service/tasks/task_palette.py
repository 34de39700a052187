"""The palette of a task reference: facet words read out of the text, before any lookup.

``read_palette`` splits a reference such as ``pod #12 login chyba hotovo`` into
pins (``task_pins``), facets and the words left for the title. It is pure: it
neither reads the store nor decides whether a facet holds any task (the
resolver relaxes facets that match nothing, ``service/tasks/resolve.py``).

Fields (``name:value``; Czech names in brackets):

- ``project:`` (``projekt:``) a project slug;
- ``type:`` (``typ:``) a task type;
- ``state:`` or ``in:`` (``stav:``) a status or a state word of the
  workspace: a status name (``in_progress``, ``in-progress``, ``progress``
  after ``in:``), any status edge word below, or else the state itself.

Edge words stand alone in the text (compared folded, so accents and case
never matter). Types: task/úkol, bug/chyba, story/příběh, epic/epik,
journey, meeting/schůzka/porada, qa; ``todo`` is read as a status, so the
todo type is reached only with ``type:todo``. Statuses: backlog/zásobník,
todo/"to do", "in progress"/wip/doing/rozpracované, "in review"/"v revizi",
done/finished/hotovo/dokončené, cancelled/zrušené, and the two groups
open/otevřené (not done or cancelled) and closed/uzavřené (done or cancelled).

``under <task>`` / ``pod <task>`` narrows to every descendant of the task the
next token names: a pin (``#12``, ``tk-12``, a task URL), a key, a quoted
title or one word. ``mine`` / ``moje`` narrows to the caller's tasks.

Tags and groups are not facets of a task reference: ``tag:``, ``label:``,
``group:``, ``kind:`` and ``#word`` raise :class:`PaletteRefusal`.
"""

from __future__ import annotations

import re
from typing import Literal

import attrs

from layoutkit.folding import fold
from layoutkit.service.road.task_pins import Pin, parse_pins
from layoutkit.service.tasks.model import CLOSED as _CLOSED
from layoutkit.service.tasks.model import STATUSES

FacetKind = Literal["project", "type", "status", "state", "under", "mine"]

OPEN = tuple(s for s in STATUSES if s not in _CLOSED)
CLOSED = tuple(s for s in STATUSES if s in _CLOSED)

#: Folded edge word -> task type.
TYPE_WORDS: dict[str, str] = {
    **dict.fromkeys(("task", "tasks", "ukol", "ukoly"), "task"),
    **dict.fromkeys(("bug", "bugs", "chyba", "chyby"), "bug"),
    **dict.fromkeys(("story", "stories", "pribeh", "pribehy"), "story"),
    **dict.fromkeys(("epic", "epics", "epik", "epiky"), "epic"),
    **dict.fromkeys(("journey", "journeys"), "journey"),
    **dict.fromkeys(("meeting", "meetings", "schuzka", "schuzky", "porada"), "meeting"),
    "qa": "qa",
}
#: Folded edge word or two-word phrase -> the statuses it stands for.
STATUS_WORDS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("backlog", "zasobnik"), ("backlog",)),
    **dict.fromkeys(("todo", "to do"), ("todo",)),
    **dict.fromkeys(
        (
            "in progress",
            "in-progress",
            "in_progress",
            "wip",
            "doing",
            "rozpracovane",
            "rozpracovany",
            "rozpracovana",
        ),
        ("in_progress",),
    ),
    **dict.fromkeys(
        ("in review", "in-review", "in_review", "v revizi", "ke kontrole"), ("in_review",)
    ),
    **dict.fromkeys(
        ("done", "finished", "hotovo", "hotove", "hotovy", "hotova", "dokoncene", "dokonceno"),
        ("done",),
    ),
    **dict.fromkeys(
        ("cancelled", "canceled", "zrusene", "zruseno", "zruseny", "zrusena"), ("cancelled",)
    ),
    **dict.fromkeys(("open", "otevrene", "otevreny", "otevrena", "otevreno"), OPEN),
    **dict.fromkeys(("closed", "uzavrene", "uzavreny", "uzavrena", "uzavreno"), CLOSED),
}
MINE_WORDS = frozenset({"mine", "moje"})
UNDER_WORDS = frozenset({"under", "pod"})
#: Folded field name -> the facet it sets.
FIELDS: dict[str, FacetKind] = {
    "project": "project",
    "projekt": "project",
    "type": "type",
    "typ": "type",
    "state": "state",
    "stav": "state",
    "in": "state",
}
#: Field names that ask for tags or groups, which a task reference has no use for.
REFUSED_FIELDS: dict[str, str] = {
    **dict.fromkeys(("tag", "tags", "label", "labels", "stitek", "stitky"), "tag"),
    **dict.fromkeys(("group", "groups", "kind", "skupina"), "group"),
}

#: A token is a run of non-space, or one holding a quoted part (``"a b"``, ``state:"a b"``).
_TOKEN = re.compile(r'[^\s"]*"[^"]*"?|\S+')
_FIELD = re.compile(r"^(?P<name>[^\W\d_]{2,10}):(?P<value>.*)$", re.DOTALL)
_HASHTAG = re.compile(r"^#[^\W\d_]")
_WORD = re.compile(r"\w+")


class PaletteRefusal(ValueError):
    """A reference asked for a facet tasks are not resolved by (``facet``: tag or group)."""

    def __init__(self, facet: str, word: str) -> None:
        super().__init__(f"a task reference takes no {facet}s: {word!r}")
        self.facet = facet
        self.word = word


@attrs.frozen(slots=True)
class Facet:
    """One facet the reference asked for.

    ``values`` are what it narrows to (types, statuses, a state word, a
    project slug; empty for ``mine``); ``target`` is what ``under`` names: a
    pin, or text to read as a task. ``word`` is the text as written and
    ``typed`` says how: a ``field`` (``type:bug``) or an edge ``word``.
    """

    kind: FacetKind
    values: tuple[str, ...]
    word: str
    typed: Literal["field", "word"]
    target: Pin | str | None = None


@attrs.frozen(slots=True)
class Palette:
    """A reference read: its pins, facets and the title words left over.

    ``words`` are folded; ``typed`` holds the same words as they were written
    (case and accents kept), for stores that compare without folding.
    """

    pins: tuple[Pin, ...]
    facets: tuple[Facet, ...]
    words: tuple[str, ...]
    typed: tuple[str, ...]


def _split(text: str) -> tuple[list[str], list[str]]:
    typed = _WORD.findall(text)
    return [fold(w) for w in typed], typed


def read_palette(q: str) -> Palette:
    """Read ``q`` as one task reference; raises :class:`PaletteRefusal` for tags and groups."""
    return _Reader(parse_pins(q), list(_TOKEN.finditer(q))).palette()


@attrs.define
class _Reader:
    """One pass over a reference's tokens: each token (or a pair) becomes pins, a
    facet, or title words."""

    pins: list[Pin]
    tokens: list[re.Match[str]]
    facets: list[Facet] = attrs.field(factory=list)
    kept_pins: list[Pin] = attrs.field(factory=list)
    words: list[str] = attrs.field(factory=list)
    typed: list[str] = attrs.field(factory=list)

    def palette(self) -> Palette:
        i = 0
        while i < len(self.tokens):
            i += self._step(i)
        return Palette(
            tuple(self.kept_pins), tuple(self.facets), tuple(self.words), tuple(self.typed)
        )

    def _inside(self, token: re.Match[str]) -> list[Pin]:
        return [p for p in self.pins if p.start >= token.start() and p.end <= token.end()]

    def _add_words(self, text: str) -> None:
        folded, raw = _split(text)
        self.words.extend(folded)
        self.typed.extend(raw)

    def _step(self, i: int) -> int:
        """Read the token at ``i``; how many tokens it took."""
        token = self.tokens[i]
        raw = token.group(0)
        folded = fold(raw)
        after = fold(self.tokens[i + 1].group(0)) if i + 1 < len(self.tokens) else None
        inside = self._inside(token)
        if inside:
            self.kept_pins.extend(inside)
            self._add_words(_without_pins(token, inside))
            return 1
        if folded in UNDER_WORDS and after is not None:
            self._under(raw, self.tokens[i + 1])
            return 2
        if after is not None and f"{folded} {after}" in STATUS_WORDS:
            phrase = f"{raw} {self.tokens[i + 1].group(0)}"
            self.facets.append(Facet("status", STATUS_WORDS[f"{folded} {after}"], phrase, "word"))
            return 2
        field = _FIELD.match(folded)
        if field is not None and (field["name"] in FIELDS or field["name"] in REFUSED_FIELDS):
            return self._field(i, field["name"], after is not None)
        if _HASHTAG.match(raw):
            raise PaletteRefusal("tag", raw)
        facet = _word_facet(folded, raw)
        if facet is not None:
            self.facets.append(facet)
        else:
            self._add_words(raw)
        return 1

    def _under(self, raw: str, target: re.Match[str]) -> None:
        """``under <task>``: the facet of a parent task, named by a pin or by its words."""
        target_pins = self._inside(target)
        target_text = target.group(0).strip('"').strip()
        self.facets.append(
            Facet(
                "under",
                (),
                f"{raw} {target.group(0)}",
                "word",
                target_pins[0] if target_pins else target_text,
            )
        )

    def _field(self, i: int, name: str, more: bool) -> int:
        """``name:value`` (or ``name: value`` over two tokens); how many tokens it took."""
        raw = self.tokens[i].group(0)
        value = raw.split(":", 1)[1].strip('"').strip()
        if name in REFUSED_FIELDS:
            raise PaletteRefusal(REFUSED_FIELDS[name], raw)
        used = 1
        if not value and more:
            value = self.tokens[i + 1].group(0).strip('"').strip()
            raw = f"{raw} {self.tokens[i + 1].group(0)}"
            used = 2
        self.facets.append(_field_facet(FIELDS[name], value, raw))
        return used


def _without_pins(token: re.Match[str], inside: list[Pin]) -> str:
    """The token without the pins inside it: what it adds to the title words."""
    start = token.start()
    out = token.group(0)
    for pin in sorted(inside, key=lambda p: p.start, reverse=True):
        out = out[: pin.start - start] + " " + out[pin.end - start :]
    return out


def _word_facet(folded: str, raw: str) -> Facet | None:
    """The facet one word sets on its own (mine, a type, a status), else None."""
    if folded in MINE_WORDS:
        return Facet("mine", (), raw, "word")
    if folded in TYPE_WORDS:
        return Facet("type", (TYPE_WORDS[folded],), raw, "word")
    if folded in STATUS_WORDS:
        return Facet("status", STATUS_WORDS[folded], raw, "word")
    return None


def _field_facet(kind: FacetKind, value: str, raw: str) -> Facet:
    """The facet a field form sets; a value no type or status names keeps its own word
    (a type the resolver then finds no task of, a state word of the workspace)."""
    folded = fold(value)
    if kind == "type":
        word = folded.replace("-", "_")
        return Facet("type", (TYPE_WORDS.get(word, word),), raw, "field")
    if kind == "state":
        spaced = folded.replace("_", " ").replace("-", " ")
        for option in (folded, spaced, f"in {spaced}"):
            if option in STATUS_WORDS:
                return Facet("status", STATUS_WORDS[option], raw, "field")
        return Facet("state", (value,), raw, "field")
    return Facet(kind, (value,), raw, "field")
